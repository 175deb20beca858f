/*
 * observer.h - what a caller may watch while the simulation runs (plain
 * data).  Its own header so that the SM (sm.c), which calls on_issue, need
 * not know the simulator that owns it (sim.h).
 */
#ifndef SMSIM_SIM_OBSERVER_H
#define SMSIM_SIM_OBSERVER_H

#include "sim/inst.h"

typedef struct sim sim;
struct sim_kernel_result;

/* Optional observer (per-window statistics, progress); any hook may be
 * NULL.  on_issue is called for every warp instruction an SM issues, in
 * issue order (SMs ticking in the same cycle in their deterministic event
 * order); on_block_done when a block retires. */
struct sim_observer {
    void (*on_kernel_begin)(void *ctx, const sim *s, const struct kernel_info *ki);
    void (*on_kernel_end)(void *ctx, const sim *s, const struct sim_kernel_result *kr);
    void (*on_issue)(void *ctx, uint32_t sm, uint32_t sched, sim_cycle_t cycle,
                     const struct warp_inst *wi);
    void (*on_block_done)(void *ctx, const sim *s, sim_cycle_t cycle);
    void *ctx;
};

#endif /* SMSIM_SIM_OBSERVER_H */
