/*
 * ptx_uniform.h - the warp-uniform values of a kernel (private to
 * frontend/ptx_lower*.c).
 *
 * ptxas computes values that are the same in every lane of a warp on the
 * uniform datapath (UIADD3, ULEA, S2UR: Turing and later).  A value is
 * uniform when its instruction reads only uniform values and no lane
 * special register, under a uniform guard, outside a divergent region;
 * ptx_uniform_mark() finds the least fixed point of those rules.
 */
#ifndef SMSIM_FRONTEND_PTX_UNIFORM_H
#define SMSIM_FRONTEND_PTX_UNIFORM_H

#include "frontend/exec/ptx_run.h"

/* Give the integer adds, moves and logic of r->x that write uniform values
 * class `uniform`, compares FSETP's class `setp`; div_branch[i] (r->n_x
 * entries) is set for a branch whose lanes may diverge (not an mbarrier
 * wait's retry, which ptxas moves out of line), inv_srcs[i] for an
 * instruction whose register sources (and guard) are the same in every
 * lane. */
void ptx_uniform_mark(struct ptx_run *r, bool *div_branch, bool *inv_srcs);

#endif /* SMSIM_FRONTEND_PTX_UNIFORM_H */
