/*
 * ptx_half.h - half-precision arithmetic of the PTX frontend: IEEE binary16
 * (.f16) and bfloat16 (.bf16), scalar and packed two to a 32-bit register
 * (.f16x2, .bf16x2; the first value in bits 0-15), and the conversions to
 * them (private to frontend/ptx_*.c).
 *
 * Semantics are the PTX ISA's (sections 9.7.4 and 9.7.9.21): every result
 * is the exact result rounded once to the destination format (an fma too),
 * to nearest even unless a conversion names .rz/.rm/.rp.  A NaN result is
 * the canonical NaN 0x7fff (the GPU's; the ISA leaves the payload
 * unspecified).  .ftz (f16 only) flushes subnormal inputs and results to
 * zero of the same sign; .sat clamps to [+0, 1] with NaN to +0; .relu
 * clamps negative results (and -0) to +0 and keeps NaN.
 */
#ifndef SMSIM_FRONTEND_PTX_HALF_H
#define SMSIM_FRONTEND_PTX_HALF_H

#include <stdbool.h>
#include <stdint.h>

struct pwarp;
struct xop;
struct ptx_ins;

/* The two 16-bit floating-point formats, and the two FP8 formats (OCP
 * E4M3 and E5M2) as ptx_half.c rounds to them: the sign in bit 15, the
 * exponent and mantissa in the low bits, as in the 16-bit ones (E4M3 with
 * a 5-bit exponent field, so that rounding never overflows to infinity:
 * E4M3 has none). */
enum ptx_hfmt { PTX_HF16, PTX_HBF16, PTX_HE4M3, PTX_HE5M2 };

/* The value of h in format fmt (exact; a NaN stays a NaN). */
double ptx_half_value(uint16_t h, unsigned fmt);

/* The value of FP8 byte b in format fmt (PTX_HE4M3, PTX_HE5M2; exact). */
double ptx_half_f8_value(uint8_t b, unsigned fmt);

/* v rounded to format fmt in rounding mode rnd (enum ptx_rnd: PR_NONE or
 * PR_RN to nearest even, PR_RZ, PR_RM, PR_RP).  Overflow gives infinity or
 * the largest finite value as the mode says; NaN gives 0x7fff. */
uint16_t ptx_half_round(double v, unsigned fmt, unsigned rnd);

/* Does ptx_half_exec() execute decoded instruction x (half-precision add,
 * sub, mul, fma, neg, abs, min, max, setp, set, cvt to a half type, and
 * the FP8 pair conversions)? */
bool ptx_half_handles(const struct xop *x);

/* Execute x on the lanes m of warp pw. */
void ptx_half_exec(struct pwarp *pw, const struct xop *x, uint32_t m);

/* An IEEE binary16 value as a float (exact), and a float rounded to
 * binary16 (to nearest even). */
float ptx_half_to_float(uint16_t h);
uint16_t ptx_half_from_float(float x);

#endif /* SMSIM_FRONTEND_PTX_HALF_H */
