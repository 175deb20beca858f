/*
 * ptx_wgmma.h - warpgroup matrix multiply-accumulate: wgmma.mma_async
 * (private to frontend/ptx*.c).
 *
 * A warpgroup (four consecutive warps of a block, warp index / 4) computes
 * D (64 x N) = A (64 x K) . B (K x N) + D together; warp q of the group
 * holds rows 16 q .. 16 q + 15 of D and, when A comes from registers, of
 * A.  Every row of D depends only on its row of A and on B, so each warp
 * computes its quarter when it executes the instruction, and the result
 * is the one the whole group would give.  With g = lane / 4, t = lane % 4
 * (PTX ISA 9.7.15.5.1, "Register Fragments"):
 *   D, f32 and s32: register i holds (16 q + g + 8 ((i % 4) / 2),
 *                   8 (i / 4) + 2 t + i % 2)              (N / 2 registers)
 *   D, f16:         register i holds row 16 q + g + 8 (i % 2), columns
 *                   8 (i / 2) + 2 t and + 1 (low half first)  (N / 4)
 *   A in registers: register r holds row 16 q + g + 8 (r % 2), columns
 *                   e t + 4 e (r / 2) .. + e - 1, e = elements per 32-bit
 *                   register (f16/bf16 2, tf32 1, FP8 and 8-bit integers 4)
 * K is 32 bytes of the input type: 16 (f16, bf16), 8 (tf32), 32 (e4m3,
 * e5m2, s8, u8).
 *
 * A and B in shared memory are described by 64-bit matrix descriptors
 * (PTX ISA 9.7.15.5.1.2, "Matrix Descriptor Format"; CUTLASS
 * cute/arch/mma_sm90_desc.hpp names the same fields): start address
 * bits 0-13 (>> 4), leading-dimension byte offset (LBO) bits 16-29 (>> 4),
 * stride-dimension byte offset (SBO) bits 32-45 (>> 4), base offset bits
 * 49-51, swizzle bits 62-63 (0 none, 1 128-byte, 2 64-byte, 3 32-byte).
 * The layouts are made of 8-row "core matrices" whose rows are 16 bytes
 * (no swizzle) or W = 32, 64, 128 bytes (the swizzle's width).  For
 * element (i, k) of an operand (i the row of A or column of B, K-major:
 * k contiguous in memory), byte offsets kb = k x size, ib = i x size:
 *   K-major, no swizzle:  (i % 8) 16 + (i / 8) SBO + (kb / 16) LBO + kb % 16
 *   K-major, swizzled:    (i % 8) W + (i / 8) SBO + kb
 *   MN-major (.trans, f16/bf16 only), no swizzle:
 *                         (k % 8) 16 + (k / 8) LBO + (ib / 16) SBO + ib % 16
 *   MN-major, swizzled:   (k % 8) W + (k / 8) SBO + (ib / W) LBO + ib % W
 * (LBO and SBO change roles between the two MN-major cases: PTX ISA
 * "Strides", CUTLASS make_gmma_desc).
 * added to the start address; a swizzle then exchanges the address's
 * 16-byte chunk bits 4 .. 3 + log2(W / 16) with its bits 7 .. 6 + log2(W
 * / 16) by exclusive or (CUTLASS's Swizzle<B, 4, 3>), on the shared
 * address itself: tiles are aligned to 8 W bytes and a step along K
 * advances the start address.  A nonzero base offset (a tile not so
 * aligned) is refused.
 *
 * Products are exact in double precision (integers in 64 bits) and summed
 * there with C; D is rounded once (f32, f16) or wrapped / saturated (s32,
 * .satfinite), as ptx_mma.c does for mma.sync.  scale-d false: D = A.B;
 * imm-scale-a/-b -1 negate A/B (floating-point types).
 */
#ifndef SMSIM_FRONTEND_PTX_WGMMA_H
#define SMSIM_FRONTEND_PTX_WGMMA_H

#include "frontend/exec/ptx_run.h"

/* x->mode bits of a decoded wgmma.mma_async */
enum {
    WG_A_REGS = 1u << 0,         /* A in registers (frag[0 .. 3]), else a descriptor (slot a) */
    WG_NEG_A = 1u << 1, WG_NEG_B = 1u << 2,   /* imm-scale-a / -b = -1 */
    WG_TRANS_A = 1u << 3, WG_TRANS_B = 1u << 4  /* imm-trans-a / -b = 1: MN-major */
};

/* Threads of a warpgroup. */
#define PTX_WARPGROUP 128u

/* What a wgmma multiplies. */
struct ptx_wgmma_desc {
    uint16_t n;                  /* 8 .. 256, a multiple of 8 */
    uint8_t k;                   /* 8, 16 or 32 */
    uint8_t atype, btype, dtype; /* A/B: PT_F16, PT_BF16, PT_TF32, PT_E4M3, PT_E5M2, PT_S8,
                                    PT_U8; D: PT_F32, PT_F16, PT_S32 */
    uint8_t mode;                /* WG_* */
    bool satfinite;
};

/* Is d a wgmma the ISA defines (dense)?  If not, *why says what is. */
bool ptx_wgmma_supported(const struct ptx_wgmma_desc *d, const char **why);

/* The K of input type t (32 bytes of it), 0 for none. */
unsigned ptx_wgmma_k(unsigned t);

/* Registers of D per thread (N / 2, or N / 4 for f16). */
unsigned ptx_wgmma_d_regs(const struct ptx_wgmma_desc *d);

/* Bytes of shared memory a warpgroup's wgmma reads: A (when in shared
 * memory: 64 x K elements) and B (N x K). */
uint32_t ptx_wgmma_a_bytes(const struct ptx_wgmma_desc *d);
uint32_t ptx_wgmma_b_bytes(const struct ptx_wgmma_desc *d);

/* The shared-memory offset of element (i, k) of the operand descriptor
 * desc describes, of elements of size bytes (1, 2, 4), K-major or
 * MN-major (above). */
uint32_t ptx_wgmma_elem_addr(uint64_t desc, bool mn_major, unsigned i, unsigned k,
                             unsigned size);

/* The descriptor of decoded wgmma x. */
void ptx_wgmma_desc_of(const struct ptx_run *r, const struct xop *x, struct ptx_wgmma_desc *d);

/* Execute wgmma x for warp pw of block b (its quarter of the group's D),
 * active lanes m: every lane of the warp must take part.  The shared-memory
 * operands are the ones the group's first warp to execute it read (a
 * warpgroup issues a wgmma together: a program may release the tiles once
 * one warp's wait_group returns, and the functional warps do not run in
 * lockstep); the four warps must give the same descriptors. */
int ptx_wgmma_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                   uint32_t m, struct sim_error *err);

/* Drop block b's pending operand snapshots (the block restarts), and
 * free the run's (it ends). */
void ptx_wgmma_block_free(struct ptx_run *r, struct pblock *b);
void ptx_wgmma_free(struct ptx_run *r);

#endif /* SMSIM_FRONTEND_PTX_WGMMA_H */
