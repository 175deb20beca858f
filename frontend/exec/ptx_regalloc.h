/*
 * ptx_regalloc.h - the functional register file packed by liveness
 * (private to frontend/ptx*.c).
 *
 * A PTX kernel names a fresh virtual register for nearly every value
 * (nvcc's output has hundreds: %f<146>, %r<120>, %rd<61>), and the
 * executor gave each its own slot of 32 lanes in every resident warp: a
 * wmma GEMM with 4,096 resident warps kept 246 MB of registers for what
 * ptxas fits in 32 per thread.  ptx_regalloc() gives registers whose live
 * ranges never meet the same slot, as a register allocator does, and
 * renumbers the kernel's operations to the smaller file.
 *
 * What it keeps: the values every lane reads.  A register occupies its
 * slot over the hull (first to last operation, in x[] order) of every
 * operation that touches it and every point where it is live, so two
 * registers share a slot only if no operation and no live point of one
 * lies inside the other's hull.  Liveness is the per-thread one (a lane
 * follows one path; writes touch only the lanes that execute them), with
 * a write counting as a definition only where it overwrites the whole
 * register in every lane that executes it: an unguarded destination of
 * an operation that writes all its lanes' values.  Everything else an
 * operation names -- a guarded write, a partial one (a split wmma.load
 * that fills half a register), an operand it may only read -- counts as
 * a read, which can only make a live range longer.  What the timing model
 * sees (x->dst, x->src: ids fixed at decode) does not change, nor does
 * what a kernel computes: the slots of registers live into the kernel's
 * entry are zeroed at a warp's start as before.
 *
 * Registers that other lanes read whatever their mask (a shuffle's
 * source) and a warpgroup MMA's registers (it reads A and writes D in all
 * 32 lanes) keep a slot of their own for the whole kernel.  Kernels that
 * call functions (the save stack copies a function's slot range) are left
 * as they are.  SMSIM_REGALLOC=0 in the environment turns the packing off
 * (for comparisons).
 */
#ifndef SMSIM_FRONTEND_PTX_REGALLOC_H
#define SMSIM_FRONTEND_PTX_REGALLOC_H

#include "frontend/exec/ptx_run.h"

/* Pack r's 32- and 64-bit register slots (once; after lowering and
 * scheduling, before the first block starts).  The special registers and
 * constants move down with the file; r->nvar32, r->nvar64, r->n32,
 * r->n64, r->sreg_base and funcs[0]'s counts become the packed ones. */
void ptx_regalloc(struct ptx_run *r);

#endif /* SMSIM_FRONTEND_PTX_REGALLOC_H */
