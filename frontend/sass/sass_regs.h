/*
 * sass_regs.h - how many registers each operand of a SASS instruction
 * names (doc/trace-format.md, "Wide operands").
 *
 * A SASS operand may be a run of consecutive registers of which the
 * disassembly, and so an Accel-Sim trace, names only the first: a 64-bit
 * value is a pair (`R6` means R6:R7), a 128-bit load fills a quad, an
 * HMMA.16816.F32 reads its A fragment from four registers.  The model must
 * see every one of them, or an instruction that reads the fourth register
 * of a fragment does not wait for the load that writes it.  The sizes come
 * from the mnemonic (its class, shape and type tokens) and, for ordinary
 * loads and stores, from the access width of the trace line.
 *
 * The reader (accelsim.c) expands each operand into its registers; the
 * writer (accelsim_export.c) splits a register list back into operands
 * and names their first registers, so a trace reads back the same.
 */
#ifndef SMSIM_FRONTEND_SASS_REGS_H
#define SMSIM_FRONTEND_SASS_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontend/sass/sass_decoded.h"

/* Registers per operand of one instruction (each 1 .. 8). */
struct sass_regs {
    uint8_t dst;                 /* the destination */
    uint8_t src[3];              /* the sources in positions 0, 1, 2 of the trace line
                                    (A, B and C of a matrix multiply-accumulate) */
    uint8_t rest;                /* sources in positions 3 and later */
    uint8_t last;                /* if not 0: the last source (a store's data), whatever
                                    its position */
};

/* The operand sizes of mnemonic mn[0, len), decoded as d (sass_decode),
 * on a line whose memory access is `width` bytes per lane (0: none):
 *  - FP64 arithmetic (class fp64, fp64_fma): every operand a pair;
 *  - a load of 8 or 16 bytes per lane writes a pair or quad, the data of
 *    such a store (the last source) is one;
 *  - LDSM and STSM: the destination (LDSM) or the data (STSM) is one
 *    register per 8x8 matrix: 4 with `.4`, 2 with `.2`, else 1;
 *  - HMMA, IMMA and DMMA with a shape token (`16816`, `1688`, `16832`,
 *    `884`, ...: M, N, K) and not sparse (`.SP`): each fragment spread
 *    over the 32 lanes' 32-bit registers, as the PTX ISA gives mma's
 *    fragments per thread: A = M*K*a/1024, B = N*K*a/1024, C = D =
 *    M*N*c/1024 registers, with a the input type's bits (f16/bf16 16,
 *    tf32 32, s8/u8 8, s4/u4 4, f64 64) and c the accumulator's (F32 or
 *    F16 after the shape, s32 for IMMA, f64 for DMMA).  A shape whose
 *    fragments do not divide evenly over the lanes (Volta's HMMA.884,
 *    which works on quad pairs in STEPs) is left at one register each;
 *  - everything else: one register per operand. */
void sass_regs_of(const char *mn, size_t len, const struct sass_decoded *d, unsigned width,
                  struct sass_regs *out);

/* Registers of the source in position i of a line with n sources. */
static inline unsigned
sass_regs_src(const struct sass_regs *r, unsigned i, unsigned n)
{
    if (r->last != 0 && i + 1 == n)
        return r->last;
    return i < 3 ? r->src[i] : r->rest;
}

/* Split regs[0, n), the sources of an instruction as the reader expanded
 * them (each operand's registers consecutive, in operand order; operands
 * that were the zero register absent), back into operands: their first
 * registers go to first[] (room for max); returns how many.  *exact is
 * set to whether every operand had exactly its registers (false when the
 * list does not come from these sizes, e.g. a PTX stream's). */
unsigned sass_regs_split(const struct sass_regs *r, const uint16_t *regs, unsigned n,
                         uint16_t *first, unsigned max, bool *exact);

/* True if dst[0, n) is the destination of these sizes: none (the zero
 * register) or exactly r->dst consecutive registers. */
bool sass_regs_dst_fits(const struct sass_regs *r, const uint16_t *dst, unsigned n);

#endif /* SMSIM_FRONTEND_SASS_REGS_H */
