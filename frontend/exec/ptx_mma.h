/*
 * ptx_mma.h - warp-level matrix multiply-accumulate: mma.sync, wmma and
 * ldmatrix/stmatrix (private to frontend/ptx*.c).
 *
 * A warp's 32 lanes hold the fragments of A (M x K), B (K x N) and C/D
 * (M x N) in their registers.  For mma.sync which lane and register holds
 * which element is fixed by the PTX ISA (section 9.7.14.5, "Matrix
 * Fragments for mma.m16n8k*"): with g = lane / 4, t = lane % 4 and e the
 * elements a 32-bit register holds (f16/bf16 2, tf32 1, s8/u8 4):
 *   A (16 x K): register r holds row g + 8 (r % 2), columns
 *               e t + 4 e (r / 2) .. + e - 1;
 *   B (K x 8):  register r holds column g, rows e t + 4 e r .. + e - 1;
 *   C/D (16 x 8), f32/s32: register r holds (g + 8 (r / 2), 2 t + r % 2);
 *               f16: register r holds row g + 8 r, columns 2 t, 2 t + 1.
 * Supported mma.sync shapes: m16n8k4 and m16n8k8 .tf32, m16n8k8 and
 * m16n8k16 .f16/.bf16 (f32 or, for .f16, f16 accumulators), m16n8k16 and
 * m16n8k32 .s8/.u8 (s32 accumulators, .satfinite), m8n8k4 and
 * m16n8k4/k8/k16 .f64 (a 64-bit register an element, laid out as .tf32's
 * A and B and .f32's C and D; M = 8: the upper half of the m16 tile).
 *
 * A wmma fragment's layout is left to the implementation by the ISA.  This
 * one is what ptxas builds wmma from on sm_80 and later: the m16n8kK mma
 * tiles above, M / 16 x N / 8 of them (M = 8: the upper half of one tile
 * per 8 columns), with K = 16 (f16, bf16, s8, u8) or 8 (tf32); a wmma.mma
 * is one HMMA/IMMA per tile.  Registers are numbered tile by tile; a
 * fragment the ISA gives more registers than it has elements (f16 A and B:
 * always 8) repeats them.  Shapes m16n16k16, m32n8k16, m8n32k16 (f16,
 * bf16, s8, u8), m16n16k8 (tf32) and m8n8k4 (f64: one m8n8k4 mma).
 *
 * Products are exact in double precision (integers: in 64 bits) and summed
 * there; D is rounded once (f32, f16) or wrapped / saturated (s32), so
 * results agree with the GPU up to the order of its accumulation.  f64: C
 * then one fused multiply-add per k, in k order, rounded per x->rnd.  tf32
 * inputs keep the top 19 bits of the f32 pattern, as the tensor core reads
 * them.
 */
#ifndef SMSIM_FRONTEND_PTX_MMA_H
#define SMSIM_FRONTEND_PTX_MMA_H

#include "frontend/exec/ptx_run.h"

/* x->frag of an mma.sync: D, then A, B and C (ptx_mma_regs gives the
 * counts); of a wmma.mma: D at 0, A at PTX_WMMA_A, B at PTX_WMMA_B, C at
 * PTX_WMMA_C; of a wmma.load/store, ldmatrix, stmatrix: the registers. */
#define PTX_WMMA_A 8
#define PTX_WMMA_B 16
#define PTX_WMMA_C 24

/* Elements of one lane's fragment at most, memory operations of one
 * fragment load or store at most (ptxas's split, below). */
#define PTX_FRAG_MAX 32
#define PTX_PARTS_MAX 16

/* What an mma or wmma multiplies. */
struct ptx_mma_desc {
    bool wmma;
    uint8_t m, n, k;
    uint8_t atype, btype;        /* PT_F16, PT_BF16, PT_TF32, PT_S8, PT_U8, PT_F64 */
    uint8_t ctype, dtype;        /* PT_F32, PT_F16, PT_S32, PT_F64 */
    bool satfinite;              /* s32: saturate instead of wrapping */
};

/* One element of a lane's fragment. */
struct ptx_frag_elem {
    uint8_t row, col;            /* in its matrix (B: row = k, column = n) */
    uint8_t reg;                 /* fragment register (first occurrence) */
    uint8_t sub;                 /* element within the 32-bit register */
};

/* The descriptor of instruction x (mma, wmma.mma, or a wmma.load/store:
 * only m, n, k and the fragment's type are meaningful there). */
void ptx_mma_desc_of(const struct xop *x, struct ptx_mma_desc *d);

/* The shape (enum ptx_shape) as M, N, K; false for none. */
bool ptx_mma_shape_dims(unsigned shape, uint8_t *m, uint8_t *n, uint8_t *k);

/* Is d a supported mma.sync (wmma false) or wmma combination?  If not,
 * *why says what is supported. */
bool ptx_mma_supported(const struct ptx_mma_desc *d, const char **why);

/* Registers of fragment f ('a', 'b', 'c', 'd') as the PTX operand lists
 * them, and how many of them are distinct (the rest repeat them). */
unsigned ptx_mma_frag_regs(const struct ptx_mma_desc *d, unsigned f, unsigned *distinct);

/* Bytes of an element of type t in memory (s8/u8 1, f16/bf16 2, else 4). */
unsigned ptx_mma_esize(unsigned t);

/* The element type of fragment f. */
unsigned ptx_mma_frag_type(const struct ptx_mma_desc *d, unsigned f);

/* The elements lane holds of fragment f, in register order; returns their
 * number (<= PTX_FRAG_MAX). */
unsigned ptx_mma_frag(const struct ptx_mma_desc *d, unsigned f, unsigned lane,
                      struct ptx_frag_elem *out);

/* Lane's elements of fragment f are lane 0's, each moved down *dr rows
 * and right *dc columns (the layouts above): callers list lane 0's once. */
void ptx_mma_frag_shift(const struct ptx_mma_desc *d, unsigned f, unsigned lane, unsigned *dr,
                        unsigned *dc);

/* The tensor-core operations of a wmma.mma (M / 16 x N / 8 tiles, at
 * least one row of tiles), and for tile i its fragment registers: A's,
 * B's and C's (D's are C's) into the arrays (return counts in *na ...). */
unsigned ptx_mma_tiles(const struct ptx_mma_desc *d);
void ptx_mma_tile_regs(const struct ptx_mma_desc *d, unsigned i, uint8_t *a, unsigned *na,
                       uint8_t *b, unsigned *nb, uint8_t *c, unsigned *nc);

/* The work of .f64 mma or wmma x in DMMA.884 units (M / 8 x K / 4; the
 * warp_inst aux of SIM_OPC_TENSOR_DP, sim/inst.h). */
unsigned ptx_mma_dmma_units(const struct xop *x);

/* Execute mma.sync or wmma.mma x for the lanes of m (every lane's
 * fragments are read: the instructions are warp-wide). */
void ptx_mma_exec(struct pwarp *pw, const struct xop *x, uint32_t m);

/* ---- fragment loads and stores ------------------------------------------- */

/* The memory operations ptxas splits a wmma.load/store of fragment f
 * into: per lane, each register's elements when they are adjacent in
 * memory (one access of e x size bytes: LDG.E, LDG.E.64 for two adjacent
 * registers), else each element alone; a 16-bit A or B fragment in shared
 * memory is read by ldmatrix (LDSM.16.M88.4: 32 rows of 16 bytes an
 * operation). */
struct ptx_frag_part {
    uint8_t width;               /* bytes per lane */
    uint8_t ldsm;                /* an LDSM: its index among the fragment's (1-based) */
    uint8_t nelem;
    uint8_t elem[PTX_FRAG_MAX];  /* indices into ptx_mma_frag()'s list */
};
unsigned ptx_mma_parts(const struct ptx_mma_desc *d, unsigned f, bool col_major, bool shared,
                       struct ptx_frag_part *out);

/* Byte offset of element (row, col) of a matrix of element size es in
 * memory, row- or column-major with leading dimension ld elements. */
static inline uint64_t
ptx_mma_offset(unsigned row, unsigned col, bool col_major, uint64_t ld, unsigned es)
{
    return ((col_major ? (uint64_t)col * ld + row : (uint64_t)row * ld + col)) * es;
}

/* The 16-byte rows an LDSM part reads, for lane: its row's byte offset in
 * the matrix, or false when the lane supplies no row. */
bool ptx_mma_ldsm_row(const struct ptx_mma_desc *d, unsigned f, bool col_major, uint64_t ld,
                      unsigned ldsm, unsigned lane, uint64_t *off);

/* ldmatrix / stmatrix .m8n8 .b16: lane of matrix i (0 .. num-1) register i
 * holds the two elements at row lane / 4, columns 2 (lane % 4) .. + 1
 * (.trans: column lane / 4, rows 2 (lane % 4) .. + 1) of the 8 x 8 matrix
 * whose rows lanes 8 i .. 8 i + 7 give the addresses of. */
static inline void
ptx_ldmatrix_elem(unsigned lane, unsigned j, bool trans, unsigned *row, unsigned *col)
{
    unsigned a = lane >> 2, b = 2 * (lane & 3) + j;
    *row = trans ? b : a;
    *col = trans ? a : b;
}

/* One multiply-accumulate step of a tensor core with TF32, FP16 or BF16
 * inputs (itype PT_TF32, PT_F16, PT_BF16): c + the sum of the n <= 32
 * products a[k] x b[k] (each negated when neg), as an H100 computes it,
 * into an FP32 result, or an FP16 one when f16_out (the value returned as
 * a float).  The model of Khattak & Mikaitis, "Accurate models of NVIDIA
 * tensor cores" (arXiv:2512.07004), which the bytes of GEMMs measured on
 * an H100 confirm setting by setting (validation/measured/h100-sxm5/
 * outputs: gemm.sha256 for TF32 k8, mma_bits.sha256 for TF32 k4, FP16 and
 * BF16 with FP32 or FP16 accumulators): TF32 operands lose their low 13
 * bits; products are exact; every term, c included, is truncated toward
 * zero to 2 bits below the 24-bit significand of the largest exponent (a
 * product's unnormalised exponent ea + eb; an FP16 subnormal counts as
 * 2^-14); the sum is exact; an FP32 result is truncated toward zero, an
 * FP16 one rounded to nearest even from that sum.  A step is the
 * instruction's K products: 4 or 8 for TF32, 8 or 16 for FP16 and BF16. */
/* ptx_mma_step in two parts: operands split once (TF32's low bits
 * dropped, FP16 subnormals at 2^-14), then the dot product of two split
 * vectors with c.  ptx_mma_step(a, b, ...) is ptx_mma_dot of the splits
 * of a and b; an instruction reusing rows and columns splits them once. */
enum { PTX_OPND_ZERO = 0, PTX_OPND_FINITE = 1, PTX_OPND_INF = 2, PTX_OPND_NAN = 3 };
#define PTX_OPND_ZERO_E (-2048)  /* a zero's exponent: below every other's */
struct ptx_mma_vec {             /* n <= 32 operands, by field (the loops vectorise) */
    uint32_t m[32];              /* significands (24 bits at most; 0 but for a finite one) */
    int32_t e[32];               /* their exponents (a zero: PTX_OPND_ZERO_E) */
    uint32_t s[32];              /* signs (1: negative) */
    float f[32];                 /* narrow: the signed significands / 2^13, exact */
    uint8_t cls[32];             /* PTX_OPND_* */
    uint8_t any;                 /* the OR of cls: PTX_OPND_INF set for an infinity or a NaN */
    uint8_t narrow;              /* every significand a multiple of 2^13 (11 bits or fewer:
                                    FP16, BF16, TF32, FP8), so a product fits 22 bits */
};
void ptx_mma_split(const float *x, unsigned n, unsigned itype, struct ptx_mma_vec *out);
/* The same for n FP16s given by their bits, decoded directly (what the
 * fragment gathers of ptx_mma_exec do); equal to ptx_mma_split of their
 * floats with PT_F16. */
void ptx_mma_split_f16(const uint16_t *h, unsigned n, struct ptx_mma_vec *out);
float ptx_mma_dot(const struct ptx_mma_vec *a, const struct ptx_mma_vec *b, unsigned n,
                  bool neg, float c, bool f16_out);
float ptx_mma_step(const float *a, const float *b, unsigned n, bool neg, float c, unsigned itype,
                   bool f16_out);

#endif /* SMSIM_FRONTEND_PTX_MMA_H */
