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
 *
 * An im2col copy (.im2col, a map of cuTensorMapEncodeIm2col: PTX ISA
 * 5.5.4) moves ppc pixels of cpp channels each, a row of the box per
 * pixel.  The coordinates are the first channel, the filter's base
 * position (W, H, D: inside the map's pixel box, lower .. dim - 1 +
 * upper) and the image; successive rows take the base positions after
 * it, W fastest, every estride-th, each dimension restarting at its lower
 * corner, then the next image; the pixel read is the base position plus
 * the instruction's offsets (one per pixel dimension).  Pixels outside
 * the tensor (and channels past it) are filled as above; a store
 * (.im2col_no_offs) writes the rows of the pixels inside.  The timing
 * model sees the pixels read as one run along W (their number and bytes
 * exact, the addresses where a row of the box wraps not).
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
