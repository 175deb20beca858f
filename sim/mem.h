/*
 * mem.h - the memory system shared by all SMs: L2 slices and DRAM channels.
 *
 * Timing is by reservation: every shared resource (an L2 slice's port, a
 * DRAM channel) keeps the time it is next free; a request starts at
 * max(arrival, next free) and pushes next free by its occupancy.  Requests
 * are served in the order the SMs issue them, so bandwidth saturates at the
 * configured rate and queueing delay grows with load (Little's law); a DRAM
 * channel also places a request in an idle gap an earlier-computed but
 * later-arriving one left before it (mem.c).  With
 * no load, an L2 hit returns l2.hit_latency cycles after the SM sent it and
 * an L2 miss dram.latency cycles after.  Internal times are in ticks of
 * 1/256 cycle so fractional occupancies add up exactly.
 *
 * Contents: the L2 is a sectored, write-back, write-allocate cache; a store
 * of a whole sector needs no DRAM read; dirty sectors are written to DRAM
 * when evicted, or when more than l2.dirty_lines lines are dirty;
 * partially written sectors beyond l2.partial_lines lines are read from
 * DRAM, merged and written back (mem.c).  Atomics are
 * performed at the L2 slice.
 *
 * Host memory (timing addresses from SIM_SYSMEM_BASE: zero-copy) is held
 * by no cache: every access crosses the host link, one reservation per
 * direction at host.link_gbps, and takes dram.latency plus
 * host.link_latency_us.  A config without a link rate (0) times it as
 * device memory.
 */
#ifndef SMSIM_SIM_MEM_H
#define SMSIM_SIM_MEM_H

#include "sim/config.h"
#include "sim/stats.h"

#define MEM_TICK_SHIFT 8
#define MEM_TICKS(cycles) ((uint64_t)(cycles) << MEM_TICK_SHIFT)

struct mem_stats {
    uint64_t l2_read_sectors;    /* sectors read by SMs */
    uint64_t l2_read_hits;       /* of those, present in L2 (or in flight) */
    uint64_t l2_write_sectors;   /* sectors written by SMs */
    uint64_t l2_atomic_ops;      /* lane operations performed at L2 */
    uint64_t l2_lookups;         /* sector lookups: reads, writes and atomics */
    uint64_t l2_lookup_hits;     /* of those, hits: present sectors, and every write
                                    (write-allocate, no fetch: as Nsight Compute counts) */
    uint64_t dram_read_bytes;
    uint64_t dram_write_bytes;
    uint64_t l2_queue_cycles;    /* total cycles requests waited for a busy slice */
    uint64_t dram_queue_cycles;  /* total cycles requests waited for a busy channel */
    uint64_t host_read_bytes;    /* read from host memory over the host link (zero-copy) */
    uint64_t host_write_bytes;   /* written to it */
};

typedef struct mem mem;

mem *mem_new(const struct sim_config *cfg);
void mem_destroy(mem *m);
void mem_register_stats(mem *m, stats *st);

/* Read the sectors in mask of line `line` (line address = byte address /
 * l2.line_size), sent by an SM at cycle t.  Returns the cycle the data is
 * back at the SM. */
sim_cycle_t mem_read(mem *m, uint64_t line, uint32_t mask, sim_cycle_t t);

/* Write the sectors in mask whole (write-through traffic from an L1).
 * Returns the cycle the write is performed at the L2. */
sim_cycle_t mem_write(mem *m, uint64_t line, uint32_t mask, sim_cycle_t t);

/* Write `bytes` bytes within the sectors in mask (a store's lanes x their
 * width); a partial write into sectors the L2 holds is cheaper (mem.c). */
sim_cycle_t mem_write_bytes(mem *m, uint64_t line, uint32_t mask, uint32_t bytes, sim_cycle_t t);

/* Perform ops lane atomics on the sectors in mask; returns the cycle the
 * result is back at the SM. */
sim_cycle_t mem_atomic(mem *m, uint64_t line, uint32_t mask, uint32_t ops, sim_cycle_t t);

/* A hint that line will be accessed soon (host caches only; changes
 * nothing in the model, safe during parallel ticks). */
void mem_prefetch(const mem *m, uint64_t line);

/* Mark [addr, addr + bytes) present in L2 (Accel-Sim MemcpyHtoD warm-up). */
void mem_preload(mem *m, sim_addr_t addr, uint64_t bytes);

/* Functional warming (sampled simulation, sample.h): the sectors in mask
 * of `line` are read (write false) or written by an access that is not
 * timed: the L2's contents and LRU order change as that access would
 * change them (a read brings its DRAM groups, a write makes its sectors
 * dirty; a dirty victim is dropped, its write-back not counted), and
 * nothing else: no reservation, no statistic. */
void mem_warm(mem *m, uint64_t line, uint32_t mask, bool write);

/* The latest cycle at which any write issued so far is performed. */
/* Empty the L2: every line invalid, dirty sectors dropped without DRAM
 * traffic (a flush between kernels, written back outside their time). */
void mem_flush(mem *m);

sim_cycle_t mem_drain_cycle(const mem *m);

const struct mem_stats *mem_get_stats(const mem *m);

#endif /* SMSIM_SIM_MEM_H */
