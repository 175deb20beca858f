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
 *
 * Independent thread scheduling (compute capability 7.0 on): a warp whose
 * spinning lanes are one path of a diverged warp first gives its other
 * lanes their turn (a path not begun, or the lanes waiting for the
 * spinners to reconverge, which go on past that point), as the hardware
 * lets every thread make progress: lanes of one warp can take one lock.
 * The turn passes after SPIN_FIRST_LOOK (64) passes with memory unchanged
 * and the state repeating; when the hardware switches is not documented,
 * so such a kernel's cycles are not calibrated.  Lanes split so wait for
 * the others at a CTA barrier, shfl.sync, vote.sync, match, redux and
 * __syncwarp() (bar.warp.sync: ptx_spin_sync), as the hardware's
 * barriers count threads.  Before 7.0 the warp's lanes wait for each
 * other and the kernel never ends, as on the GPU.
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
 * whole kernel can only spin from now on.  *yield set: the path spins and
 * other lanes of the warp can run: call ptx_spin_yield once the branch is
 * taken. */
int ptx_spin_backedge(struct ptx_run *r, const struct pblock *b, struct pwarp *pw,
                      const struct xop *x, int32_t target, bool *yield, struct sim_error *err);

/* Give the other lanes of warp pw their turn (independent thread
 * scheduling): its SIMT stack is reordered. */
void ptx_spin_yield(struct pwarp *pw);

/* The path on top of warp pw's stack, lanes *m (all of the path), reaches
 * x (at pc), an operation that synchronizes lanes `need` of the warp (a
 * CTA barrier: every lane; shfl.sync, vote.sync: the member mask).  Once
 * a yield has split the warp, the lanes wait there (1: they left the
 * stack; run another path) until the others of `need` come to it, when
 * they all go on together (0, *m grown by the lanes that waited).  0 and
 * nothing changed where no yield split the warp, or for a path some of
 * whose lanes skip x; an error (unsupported) for lanes that would wait in
 * a called function. */
int ptx_spin_sync(const struct ptx_run *r, struct pwarp *pw, const struct xop *x, int32_t pc,
                  uint32_t need, uint32_t *m, struct sim_error *err);

/* Warp pw's stack is empty and lanes wait at a barrier (the others
 * exited): they go on from it, the warp's only path. */
void ptx_spin_unpark(struct pwarp *pw);

/* A warp (re)starts: no loop yet. */
void ptx_spin_reset(struct pwarp *pw);

#endif /* SMSIM_FRONTEND_PTX_SPIN_H */
