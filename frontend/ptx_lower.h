/*
 * ptx_lower.h - PTX instructions as the SASS operations ptxas emits for
 * them (private to frontend/ptx*.c).
 *
 * The timing model should see what the GPU runs.  Where ptxas turns one
 * PTX instruction into several SASS operations (ex2.approx.f32 into a
 * compare, two predicated multiplies around MUFU.EX2; sin.approx.f32 into
 * FMUL.RZ and MUFU.SIN; the table is frontend/ptx_lower_sm90.def),
 * ptx_lower() replaces its decoded instruction by one per operation: the
 * one that writes the PTX destination performs the PTX instruction, the
 * others (kind XK_TIMING) only take time, linked by temporary register ids
 * (PTX_TMP_BASE and up) so the model orders them as the GPU must.
 */
#ifndef SMSIM_FRONTEND_PTX_LOWER_H
#define SMSIM_FRONTEND_PTX_LOWER_H

#include "frontend/ptx_exec.h"

/* Timing register ids of the expansions' temporaries: the top
 * PTX_TMP_COUNT ids, reused in rotation (far enough apart that two
 * expansions in flight in one warp never share one). */
#define PTX_TMP_COUNT 1024u
#define PTX_TMP_BASE (SIM_MAX_REGS - PTX_TMP_COUNT)

/* Lower r->x for sm_90 (branch targets and reconvergence points are
 * renumbered).  Returns SIM_OK, or an error when the kernel's registers
 * reach the temporaries' ids. */
int ptx_lower(struct ptx_run *r, struct sim_error *err);

/* Operations the PTX instruction x becomes (1 when it is not expanded);
 * exposed for tests. */
unsigned ptx_lower_count(const struct xop *x);

#endif /* SMSIM_FRONTEND_PTX_LOWER_H */
