/*
 * ptx_sched.h - the static instruction order ptxas gives a PTX kernel
 * (private to frontend/ptx*.c).
 *
 * nvcc writes each basic block's instructions in source order; ptxas
 * schedules them for the in-order issue of the SM: it starts the longest
 * dependence chains first (a loop's counter increment and compare before
 * its body, loads before their uses, the chains of unrolled iterations
 * interleaved).  ptx_schedule() reorders the decoded instructions of every
 * basic block the same way (see ptx_sched.c), so the timing model sees the
 * order the GPU runs while the functional results stay those of the PTX.
 */
#ifndef SMSIM_FRONTEND_PTX_SCHED_H
#define SMSIM_FRONTEND_PTX_SCHED_H

#include "frontend/exec/ptx_run.h"

/* Reorder r->x[0 .. r->n_x) within each basic block.  Branch targets and
 * reconvergence points (block leaders) keep their indices. */
void ptx_schedule(struct ptx_run *r);

/* The cycles the scheduler assumes between an instruction of this class
 * (a memory instruction: of this space and kind) and a dependent one. */
unsigned ptx_sched_latency(const struct xop *x);

#endif /* SMSIM_FRONTEND_PTX_SCHED_H */
