/*
 * ptx_mma.h - warp-level matrix multiply-accumulate: mma.sync (private to
 * frontend/ptx*.c).
 *
 * A warp's 32 lanes hold the fragments of A (M x K), B (K x N) and C/D
 * (M x N) in their registers; which lane and register holds which element
 * is fixed by the PTX ISA ("Matrix Fragments for mma.m16n8k8" and
 * "... mma.m16n8k16", section 9.7.14.5).  Supported (.row.col, as the ISA
 * requires for these shapes):
 *   m16n8k8  .f32.tf32.tf32.f32   A 4 x b32, B 2 x b32, C/D 4 x f32
 *   m16n8k8  .f32.f16.f16.f32     A 2 x f16x2, B 1 x f16x2, C/D 4 x f32 (and .bf16)
 *   m16n8k16 .f32.f16.f16.f32     A 4 x f16x2, B 2 x f16x2, C/D 4 x f32 (and .bf16)
 * The products are exact in double precision and summed there; D is
 * rounded once to single precision (the hardware's accumulation order is
 * not specified, so results agree with it to the rounding of the sum).
 * tf32 inputs keep the top 19 bits of the f32 pattern, as the tensor core
 * reads them.
 */
#ifndef SMSIM_FRONTEND_PTX_MMA_H
#define SMSIM_FRONTEND_PTX_MMA_H

#include "frontend/ptx_exec.h"

/* Fragment registers of an mma: D, then A, B and C (counts in x->nfrag). */
#define PTX_MMA_FRAG 16

/* The registers per fragment for shape (enum ptx_mode) and input type
 * atype; false for an unsupported combination. */
bool ptx_mma_shape(unsigned shape, unsigned atype, unsigned *na, unsigned *nb, unsigned *ncd);

/* Execute mma x for the lanes of m (every lane's fragments are read). */
void ptx_mma_exec(struct pwarp *pw, const struct xop *x, uint32_t m);

/* wmma, shape m16n16k16 (A and B .f16 or .bf16, C and D .f32 or .f16).
 * The PTX ISA leaves a wmma fragment's layout to the implementation; this
 * one is sm_80's and later, which ptxas compiles wmma.mma into: two
 * mma.m16n8k16 (HMMA.16816), one per 8 columns of D.  A: registers 0-3
 * are the m16n8k16 A fragment, 4-7 repeat them; B: registers 0-1 hold
 * columns 0-7, 2-3 columns 8-15 (m16n8k16 B fragments), 4-7 repeat them;
 * C/D .f32: registers 0-3 columns 0-7, 4-7 columns 8-15; C/D .f16: two
 * registers per 8 columns.  x->frag: D at 0, A at 8, B at 16, C at 24. */
#define PTX_WMMA_A 8
#define PTX_WMMA_B 16
#define PTX_WMMA_C 24

struct ptx_wmma_elem {
    uint8_t row, col;            /* in the 16 x 16 matrix (B: row = k, col = n) */
    uint8_t reg, half;           /* fragment register, and the 16-bit half (0 for f32) */
};

/* The elements lane holds of fragment frag ('a' .. 'd') with elements of
 * ebytes (2 or 4) into out[16]; returns their number (16 for A/B, 8 for
 * C/D), and *nregs the fragment's registers. */
unsigned ptx_wmma_layout(unsigned frag, unsigned ebytes, unsigned lane, struct ptx_wmma_elem *out,
                         unsigned *nregs);

/* Execute wmma.mma x for the lanes of m. */
void ptx_wmma_exec(struct pwarp *pw, const struct xop *x, uint32_t m);

#endif /* SMSIM_FRONTEND_PTX_MMA_H */
