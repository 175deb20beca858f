/*
 * sim.h - the simulator: a GPU of SMs, an L2 and DRAM, driven by one
 * discrete-event loop over the kernels of an instruction source.
 *
 * Kernels run one after another.  Blocks are dispatched to SMs in block-id
 * order, breadth first at launch (one block per SM per round until each SM
 * is full), then to whichever SM frees room.  Statistics are registered by
 * the modules that own them; each kernel's figures are the difference of
 * two snapshots.  Same config + same source => byte-identical results.
 */
#ifndef SMSIM_SIM_SIM_H
#define SMSIM_SIM_SIM_H

#include "sim/config.h"
#include "sim/inst.h"
#include "sim/observer.h"
#include "sim/occupancy.h"
#include "sim/sample.h"
#include "sim/stats.h"

typedef struct sim sim;

/* Results of one kernel (plain data, owned by the sim). */
struct sim_kernel_result {
    struct kernel_info ki;
    struct occ_result occ;       /* occupancy the block scheduler used */
    uint32_t carveout_kb;        /* shared-memory carve-out chosen */
    uint64_t l1_bytes;           /* L1 data cache left for the kernel */
    sim_cycle_t start;           /* cycle the kernel was launched */
    sim_cycle_t cycles;          /* launch to completion (all writes performed); sampled:
                                  * the simulated cycles + the skipped blocks' estimate */
    uint64_t blocks;             /* blocks simulated (in detail) */
    uint32_t regs_requested;     /* registers per thread the source asked for; more than
                                  * ki.regs_per_thread when clamped to sm.max_regs_per_thread
                                  * (the source was compiled for a larger register file; the
                                  * spill code the compiler would add is not modelled) */
    bool truncated;              /* stopped by sim.max_cycles */
    /* sim.sample (sample.h): what was simulated and skipped.  sample.cycles,
     * .lo, .hi = cycles and sample.simulated = the cycles simulated in
     * detail; when not sampled, sample.sampled is false and all four are
     * cycles. */
    bool sample_asked;           /* sim.sample was set */
    struct sample_result sample;
    char sample_why[96];         /* sample_asked && !sampled: why not */
    struct stats_packed stats;   /* the kernel's statistics, packed: sim_kernel_stats() */
};

/* Create a simulator for a validated config (copied). */
sim *sim_new(const struct sim_config *cfg);
void sim_destroy(sim *s);

void sim_set_observer(sim *s, const struct sim_observer *obs);

/* Tick the SMs of a cycle on n_threads threads (1, the default: on the
 * caller's thread only).  The results are the same for every n: the
 * threads only share out SM-private work; everything that touches shared
 * state is done in SM order on one thread.  With an on_issue observer or a
 * source without concurrent_next the SMs tick one after another anyway.
 * Call before sim_run(). */
void sim_set_threads(sim *s, uint32_t n_threads);

/* Blocks of the running kernel retired so far, and its blocks in all. */
uint64_t sim_blocks_retired(const sim *s);
uint64_t sim_blocks_total(const sim *s);
/* Warp instructions issued so far, all kernels (sums the SMs' counters). */
uint64_t sim_warp_insts(const sim *s);

/* Simulate every kernel of src.  Returns SIM_OK, or a negative error
 * (bad input from the source, a kernel that cannot launch) with *err. */
int sim_run(sim *s, struct inst_source *src, struct sim_error *err);

const struct sim_config *sim_config(const sim *s);
const stats *sim_stats(const sim *s);
size_t sim_kernel_count(const sim *s);
const struct sim_kernel_result *sim_kernel(const sim *s, size_t i);
/* Kernel i's statistics (every counter, per instance), unpacked: valid
 * until the next call (one buffer per sim). */
const struct stats_snapshot *sim_kernel_stats(const sim *s, size_t i);
/* Whole-run totals: cycles of all kernels (sampled ones as estimated), and a
 * snapshot of every counter (of what was simulated in detail). */
sim_cycle_t sim_total_cycles(const sim *s);
const struct stats_snapshot *sim_total_snapshot(const sim *s);
/* Current simulated cycle (for observers). */
sim_cycle_t sim_now(const sim *s);

/* Host monotonic wall-clock time in seconds, for progress lines and for
 * timing the host; nothing simulated depends on it. */
double sim_wall_seconds(void);

#endif /* SMSIM_SIM_SIM_H */
