/*
 * ptx_lanes.h - per-lane register access shared by the PTX executor and
 * its arithmetic (private to frontend/ptx_exec.c, ptx_alu.c and ptx_decode.c).
 */
#ifndef SMSIM_FRONTEND_PTX_LANES_H
#define SMSIM_FRONTEND_PTX_LANES_H

#include "frontend/exec/ptx_run.h"

#include <fenv.h>
#include <math.h>

#define FULL 0xffffffffu

/* Run body for every lane l set in mask (all 32 in a tight loop when the
 * warp is converged). */
#define LANES(mask, ...) \
    do { \
        uint32_t mm_ = (mask); \
        if (mm_ == FULL) { \
            for (unsigned l = 0; l < 32; l++) { __VA_ARGS__; } \
        } else { \
            while (mm_ != 0) { \
                unsigned l = (unsigned)__builtin_ctz(mm_); \
                mm_ &= mm_ - 1; \
                __VA_ARGS__; \
            } \
        } \
    } while (0)

/* The 32 lanes of 32-bit slot i, 64-bit slot i: the warp's own, or a
 * constant shared by the launch's warps (never written: the decoder gives
 * constants only to operands that are read). */
static inline union r32 *
slot32(const struct pwarp *pw, uint32_t i)
{
    return i < pw->kb32 ? pw->r32 + (size_t)i * 32 : (union r32 *)(pw->k32 + (size_t)(i - pw->kb32) * 32);
}

static inline union r64 *
slot64(const struct pwarp *pw, uint32_t i)
{
    return i < pw->kb64 ? pw->r64 + (size_t)i * 32 : (union r64 *)(pw->k64 + (size_t)(i - pw->kb64) * 32);
}

/* The host's rounding mode (fenv.h) for PTX rounding modifier rnd
 * (enum ptx_rnd): directed ones as they say, else to nearest. */
static inline int
lane_host_round(unsigned rnd)
{
    switch (rnd) {
    case PR_RZ: case PR_RZI: return FE_TOWARDZERO;
    case PR_RM: case PR_RMI: return FE_DOWNWARD;
    case PR_RP: case PR_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

#define R32(s) slot32(pw, (s).idx)
#define R64(s) slot64(pw, (s).idx)

/* Raw bits of slot s in lane l. */
static inline uint64_t
lane_get(const struct pwarp *pw, const struct slot *s, unsigned l)
{
    return s->cls == SC_64 ? slot64(pw, s->idx)[l].u : slot32(pw, s->idx)[l].u;
}

static inline void
lane_set(struct pwarp *pw, const struct slot *s, unsigned l, uint64_t v)
{
    if (s->cls == SC_64)
        pw->r64[(size_t)s->idx * 32 + l].u = v;
    else if (s->cls == SC_32)
        pw->r32[(size_t)s->idx * 32 + l].u = (uint32_t)v;
}

/* Lane l's address: base register s (SC_NONE: none) plus off.  A 32-bit
 * register's sum wraps at 2^32, and so does every narrow (shared, local,
 * param) address: those windows are 32-bit on the hardware. */
static inline sim_addr_t
lane_slot_addr(const struct pwarp *pw, const struct slot *s, int64_t off, unsigned l, bool narrow)
{
    if (s->cls == SC_32)
        return (uint32_t)(slot32(pw, s->idx)[l].u + (uint32_t)off);
    uint64_t a = (s->cls == SC_64 ? slot64(pw, s->idx)[l].u : 0) + (uint64_t)off;
    return narrow ? (uint32_t)a : a;
}

/* The address lane l accesses (ptx_lanes.h lane_slot_addr: [%r + 8] with
 * a 32-bit %r = 0xfffffffc is address 4); with no base register, a
 * function's frame variable is at its frame pointer plus the offset. */
static inline sim_addr_t
lane_addr(const struct pwarp *pw, const struct xop *x, unsigned l)
{
    bool narrow = x->space == PS_SHARED || x->space == PS_LOCAL || x->space == PS_PARAM;
    if ((x->flags & PF_FRAME) && x->base.cls == SC_NONE) {
        uint64_t a = pw->cs.fp + (uint64_t)x->off;
        return narrow ? (uint32_t)a : a;
    }
    return lane_slot_addr(pw, &x->base, x->off, l, narrow);
}

/* Sign- or zero-extend the low bytes of v per type t to 64 bits. */
static inline uint64_t
lane_extend(uint64_t v, unsigned t)
{
    switch (t) {
    case PT_S8: return (uint64_t)(int64_t)(int8_t)v;
    case PT_S16: return (uint64_t)(int64_t)(int16_t)v;
    case PT_S32: return (uint64_t)(int64_t)(int32_t)v;
    case PT_B8: case PT_U8: return (uint8_t)v;
    case PT_B16: case PT_U16: case PT_F16: return (uint16_t)v;
    case PT_B32: case PT_U32: case PT_F32: return (uint32_t)v;
    default: return v;
    }
}

/* Write predicate lanes m of slot d from v. */
static inline void
pred_write(struct pwarp *pw, const struct slot *d, uint32_t m, uint32_t v)
{
    if (d->cls == SC_PRED)
        pw->pred[d->idx] = (pw->pred[d->idx] & ~m) | (v & m);
}

/* Predicate source i of x (a = 0, b = 1, c = 2, e = 3), negated if '!'. */
static inline uint32_t
pred_src(const struct pwarp *pw, const struct xop *x, const struct slot *s, unsigned i)
{
    uint32_t v = pw->pred[s->idx];
    return (x->negmask & (1u << i)) ? ~v : v;
}

/* ptx_alu.c: execute an XK_ALU instruction on lanes m. */
void ptx_alu_exec(struct pwarp *pw, const struct xop *x, uint32_t m);

/* ptx_alu.c: the new value of an atomic or reduction `op` (enum ptx_atom)
 * of type t on old value old with operands b (and c: cas) -- atom, red
 * and cp.reduce.async.bulk; half types round to nearest even. */
uint64_t ptx_atom_apply(unsigned op, unsigned t, uint64_t old, uint64_t b, uint64_t c);

/* ptx_alu.c: dst[i] = op(dst[i], src[i]) for the n / (t's size) elements of
 * type t of two byte arrays (the bulk reductions). */
void ptx_reduce_bytes(unsigned op, unsigned t, uint8_t *dst, const uint8_t *src, uint64_t n);

/* "a c b" for a float comparison c (enum ptx_cmp; NaN makes the ordered
 * ones false, the unordered ones true): setp/set of ptx_alu.c and of the
 * half-precision forms (ptx_half.c). */
static inline bool
ptx_cmp_float(double a, double b, unsigned c)
{
    bool un = isnan(a) || isnan(b);
    switch (c) {
    case PC_EQ: return !un && a == b;
    case PC_NE: return !un && a != b;
    case PC_LT: return !un && a < b;
    case PC_LE: return !un && a <= b;
    case PC_GT: return !un && a > b;
    case PC_GE: return !un && a >= b;
    case PC_EQU: return un || a == b;
    case PC_NEU: return un || a != b;
    case PC_LTU: return un || a < b;
    case PC_LEU: return un || a <= b;
    case PC_GTU: return un || a > b;
    case PC_GEU: return un || a >= b;
    case PC_NUM: return !un;
    case PC_NAN: return un;
    default: return false;
    }
}

/* The lanes v combined with predicate c by setp/set's boolean operation
 * mode (PM_AND, PM_OR, PM_XOR; PM_NONE: v). */
static inline uint32_t
ptx_bool_combine(uint32_t v, uint32_t c, unsigned mode)
{
    switch (mode) {
    case PM_AND: return v & c;
    case PM_OR: return v | c;
    case PM_XOR: return v ^ c;
    default: return v;
    }
}

#endif /* SMSIM_FRONTEND_PTX_LANES_H */
