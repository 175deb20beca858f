/*
 * ptx_spin.h - kernels that never end: warps that provably spin forever
 * (private to frontend/ptx*.c).
 *
 * A warp spins when it comes back to the same loop head with every
 * register, predicate and SIMT-stack entry exactly as it was the last time
 * and nothing in memory has changed in between: it will do the same
 * again, forever, unless another warp writes memory.  When every warp of
 * the blocks running spins or waits at a barrier, none ever will: the
 * kernel never ends on the GPU either, and the run stops with an error
 * (exit 2) naming the loop, instead of simulating forever.  A loop that
 * reads %clock, counts, or writes memory is not a spin by this rule; only
 * a provable one is reported, never a slow kernel.
 */
#ifndef SMSIM_FRONTEND_PTX_SPIN_H
#define SMSIM_FRONTEND_PTX_SPIN_H

#include "frontend/exec/ptx_run.h"

/* Memory changed (a store, a copy, an atomic that changed a word): no
 * warp can be proven to spin on what it read before. */
static inline void
ptx_spin_memory_changed(struct ptx_run *r)
{
    r->mem_epoch++;
    r->n_spinning = 0;
}

/* Warp pw of block b takes branch x (at index pc) back to target:
 * update its record; an error (SIM_ERR_FORMAT, naming the loop) when the
 * whole kernel can only spin from now on. */
int ptx_spin_backedge(struct ptx_run *r, const struct pblock *b, struct pwarp *pw,
                      const struct xop *x, int32_t target, struct sim_error *err);

/* A warp (re)starts: no loop yet. */
void ptx_spin_reset(struct pwarp *pw);

#endif /* SMSIM_FRONTEND_PTX_SPIN_H */
