/*
 * ldst.h - an SM's memory unit: coalescer, shared memory, L1 data cache,
 * constant cache and miss-status registers.
 *
 * ldst_access() takes a memory warp instruction issued at cycle t and
 * returns the cycle its destination registers are written (for loads and
 * atomics) or its data leaves the SM (stores).  Like mem.c it reserves
 * the SM's shared resources (L1 data port, shared-memory pipe, MSHRs)
 * rather than queueing requests, so it never allocates and never needs
 * events.
 *
 *  - Global and local accesses are coalesced into 32-byte sectors of
 *    128-byte lines; each sector takes 1 / l1.sectors_per_cycle cycles of
 *    the L1 data port.  An L1 hit returns l1.hit_latency after the port;
 *    a miss takes one MSHR (line granularity) until its fill returns from
 *    the L2.  Stores are write-through/no-allocate (or write-back with
 *    l1.write_policy).  The L1 is invalidated at kernel boundaries.
 *  - Shared-memory accesses take one cycle of the SM's shared-memory pipe
 *    per wavefront, where wavefronts = the largest number of distinct
 *    bank-width words any bank must supply (same word = broadcast).
 *  - Constant/param loads serialise over distinct addresses.
 */
#ifndef SMSIM_SIM_LDST_H
#define SMSIM_SIM_LDST_H

#include "sim/config.h"
#include "sim/inst.h"
#include "sim/mem.h"

struct ldst_stats {
    uint64_t gld_insts;          /* global/local/tex load instructions */
    uint64_t gst_insts;          /* global/local store instructions */
    uint64_t atom_insts;         /* atomic instructions (global and shared) */
    uint64_t sld_insts;          /* shared loads */
    uint64_t dsmem_insts;        /* shared accesses to another block of the cluster */
    uint64_t sst_insts;          /* shared stores */
    uint64_t smem_wavefronts;    /* shared-memory pipe cycles */
    uint64_t smem_conflicts;     /* wavefronts beyond one per instruction */
    uint64_t const_insts;        /* constant and parameter loads */
    uint64_t gld_sectors;        /* sectors requested by global/local loads */
    uint64_t gst_sectors;        /* sectors written by global/local stores */
    uint64_t l1_hits;            /* load sectors that hit in L1 (incl. in flight) */
    uint64_t l1_misses;          /* load sectors sent to L2 (incl. L1 bypass) */
    uint64_t mshr_wait_cycles;   /* cycles misses waited for a free MSHR */
    uint64_t bulk_loads;         /* bulk copies global to shared (cp.async.bulk, UBLKCP) */
    uint64_t bulk_stores;        /* bulk copies shared to global */
    uint64_t bulk_bytes;         /* bytes they moved */
};

/* One coalesced line request. */
struct ldst_line {
    uint64_t line;               /* line address (byte address / line size) */
    uint32_t mask;               /* sectors touched */
    uint32_t lanes;              /* active lanes touching this line */
};

#define LDST_MAX_LINES 128

struct ldst;

/* st: where the unit counts (owned by the caller, e.g. inside struct sm,
 * so counters of all SMs can be registered as one vector). */
struct ldst *ldst_new(const struct sim_config *cfg, mem *m, struct ldst_stats *st);
void ldst_destroy(struct ldst *u);

/* Invalidate the L1 and resize it to l1_bytes for the next kernel. */
void ldst_kernel_begin(struct ldst *u, uint64_t l1_bytes);

/* Perform memory instruction wi issued at cycle t; returns the cycle its
 * result is available (loads, atomics) or its data has left the SM. */
sim_cycle_t ldst_access(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t);

/* Functional warming (sampled simulation, sample.h): the contents of the
 * L1 and, through mem_warm(), the L2 change as wi's global, local or bulk
 * accesses would change them, untimed: no port, MSHR or statistic is
 * touched.  A write-back L1's dirty victims are written to the L2. */
void ldst_warm(struct ldst *u, const struct warp_inst *wi);

/* A hint, given when wi issues, that ldst_access() will time it soon:
 * starts loading the host memory it will touch (L1 and L2 tag sets of
 * its first and last active lanes' lines).  Changes nothing in the model;
 * reads only, so ticks on several threads may call it. */
void ldst_prefetch(const struct ldst *u, const struct warp_inst *wi);

/* The latest cycle any access issued so far completes. */
sim_cycle_t ldst_drain_cycle(const struct ldst *u);

/* Coalesce the active lanes of wi into line requests (at most max);
 * returns the number of lines.  Exposed for tests. */
unsigned ldst_coalesce(const struct warp_inst *wi, uint32_t line_size, uint32_t sector_size,
                       struct ldst_line *out, unsigned max);

/* Shared-memory wavefronts needed by wi.  Exposed for tests. */
unsigned ldst_bank_wavefronts(const struct warp_inst *wi, unsigned banks, unsigned bank_width);

#endif /* SMSIM_SIM_LDST_H */
