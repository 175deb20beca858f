/*
 * ptx_lower.h - a decoded PTX kernel as the SASS operations ptxas emits
 * for it on sm_90 (private to frontend/ptx*.c).
 *
 * The timing model should see what the GPU runs, not what nvcc wrote.
 * ptx_lower() rewrites the kernel's decoded instructions into the
 * operations ptxas makes of them (the rules in ptx_lower.c, the
 * expansions in ptx_lower_sm90.def, emitted by ptx_lower_emit.c):
 *  - an instruction ptxas folds away (cvta, a register rename, a 64-bit
 *    zero extension, an address offset, a multiply fused into an add, a
 *    predicate operation fused into a compare or branch, a local array
 *    that lives in registers) stays, marked silent: it executes, it issues
 *    nothing, and whoever reads its result waits for its inputs instead;
 *  - one that becomes several operations (64-bit integer arithmetic, the
 *    IEEE divide, reciprocal and square root sequences, integer division)
 *    becomes one operation per SASS instruction: the one that writes the
 *    PTX destination performs the instruction, the others (kind
 *    XK_TIMING) only take time, linked by temporary register ids
 *    (PTX_TMP_BASE and up, ptx_lower_emit.h) so the model orders them as the GPU must;
 *  - loads of consecutive words from one base ptxas merges into one
 *    vector load (LDS.128): the first issues for all, the others are
 *    silent;
 *  - every kernel starts with the stack-pointer load, and the first
 *    global access with the memory descriptor's.
 * Each operation carries its SASS mnemonic (as its opcode name), the
 * timing class of that mnemonic in the Hopper SASS table and its Nsight
 * Compute pipe.  The functional results stay those of the PTX.
 */
#ifndef SMSIM_FRONTEND_PTX_LOWER_H
#define SMSIM_FRONTEND_PTX_LOWER_H

#include "frontend/exec/ptx_run.h"

/* Lower r->x for sm_90 (branch targets and reconvergence points are
 * renumbered).  Returns SIM_OK, or an error when the kernel's registers
 * reach the temporaries' ids or its mnemonic table is full. */
int ptx_lower(struct ptx_run *r, struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTX_LOWER_H */
