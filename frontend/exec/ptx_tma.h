/*
 * ptx_tma.h - TMA tensor copies: cp.async.bulk.tensor (private to
 * frontend/exec).
 *
 * A tensor copy moves a box of a tensor (frontend/exec/ptx_tmap.h) between
 * global and shared memory: box[d] elements per dimension d (every
 * estride[d]-th), starting at the signed coordinates the instruction
 * gives.  In shared memory the box is packed, dimension 0 fastest, each
 * 16-byte chunk at its packed offset from the destination with the tensor
 * map's swizzle applied to the shared address (CU_TENSOR_MAP_SWIZZLE_32B,
 * 64B, 128B: chunk bits 4 .. exchanged with bits 7 .. by exclusive or, the
 * layout wgmma's swizzled descriptors read).  A load fills the elements
 * outside the tensor with zeros (NaN with fill=nan, float types); a store
 * writes only those inside.  Functionally a copy is done when it executes,
 * as the 1-D bulk copies of ptx_sync.c are; the timing model sees the
 * rows of the box that lie inside the tensor (sim/inst.h, SIM_BULK_TENSOR).
 */
#ifndef SMSIM_FRONTEND_PTX_TMA_H
#define SMSIM_FRONTEND_PTX_TMA_H

#include "frontend/exec/ptx_run.h"

/* Execute tensor copy x (cp.async.bulk.tensor or its prefetch) for lane l
 * of warp pw: move the box, fill wi's bulk fields, and give the box's
 * bytes (what it completes of its mbarrier's transactions) in *bytes. */
/* The bytes of the box of x's tensor map (lane l's operand). */
int ptx_tma_box_bytes(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                      unsigned l, uint32_t *bytes, struct sim_error *err);

int ptx_tma_copy(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                 unsigned l, struct warp_inst *wi, uint32_t *bytes, struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTX_TMA_H */
