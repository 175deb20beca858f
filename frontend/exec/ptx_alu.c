/*
 * ptx_alu.c - per-lane semantics of PTX arithmetic, logic, comparison,
 * selection and conversion instructions (the XK_ALU instructions).
 *
 * Integer arithmetic wraps (computed on unsigned types, never relying on
 * signed overflow); shifts beyond the width give 0 or the sign; float to
 * integer conversions saturate and map NaN to 0; the non-default rounding
 * modes .rz/.rm/.rp switch the host rounding mode around the operation.
 * Not modelled: .ftz (subnormals are kept) and the exact error of .approx
 * functions (the host's correctly rounded functions are used).
 */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_lanes.h"

enum kind { K_U16, K_S16, K_U32, K_S32, K_U64, K_S64, K_F16, K_F16X2, K_F32, K_F64, K_PRED };

static enum kind
kind_of(unsigned t)
{
    switch (t) {
    case PT_PRED: return K_PRED;
    case PT_S8: case PT_S16: return K_S16;
    case PT_B8: case PT_U8: case PT_B16: case PT_U16: return K_U16;
    case PT_S32: return K_S32;
    case PT_S64: return K_S64;
    case PT_B64: case PT_U64: return K_U64;
    case PT_F16: return K_F16;
    case PT_F16X2: return K_F16X2;
    case PT_F32: return K_F32;
    case PT_F64: return K_F64;
    default: return K_U32;
    }
}

/* ---- helpers -------------------------------------------------------------- */

/* Saturating conversion of a double to an integer type of `bits` bits. */
static uint64_t
to_int(double v, bool is_signed, unsigned bits)
{
    if (isnan(v))
        return 0;
    if (is_signed) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
        if (v <= lo)
            return (uint64_t)(INT64_MIN >> (64 - bits));
        if (v >= hi)
            return (uint64_t)(INT64_MAX >> (64 - bits));
        return (uint64_t)(int64_t)v;
    }
    if (v <= 0)
        return 0;
    if (v >= ldexp(1.0, (int)bits))
        return bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    return (uint64_t)v;
}

static double
round_int(double v, unsigned rnd)
{
    switch (rnd) {
    case PR_RZI: return trunc(v);
    case PR_RMI: return floor(v);
    case PR_RPI: return ceil(v);
    case PR_RNI: return nearbyint(v);
    default: return v;
    }
}

/* .ftz on f32 (PTX ISA 9.7.3): a subnormal input or result is flushed to
 * zero of its sign. */
static float
ftzf(float v, bool ftz)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    if (ftz && (u & 0x7f800000u) == 0)
        u &= 0x80000000u;
    memcpy(&v, &u, 4);
    return v;
}

/* Value of type t in lane l as a double (for conversions). */
static double
as_double(const struct pwarp *pw, const struct slot *s, unsigned t, unsigned l)
{
    uint64_t b = lane_get(pw, s, l);
    switch (t) {
    case PT_F16: return ptx_half_value((uint16_t)b, PTX_HF16);
    case PT_BF16: return ptx_half_value((uint16_t)b, PTX_HBF16);
    case PT_F32: { float f; uint32_t u = (uint32_t)b; memcpy(&f, &u, 4); return f; }
    case PT_F64: { double d; memcpy(&d, &b, 8); return d; }
    case PT_S8: return (int8_t)b;
    case PT_S16: return (int16_t)b;
    case PT_S32: return (int32_t)b;
    case PT_S64: return (double)(int64_t)b;
    case PT_U8: case PT_B8: return (uint8_t)b;
    case PT_U16: case PT_B16: return (uint16_t)b;
    case PT_U32: case PT_B32: return (uint32_t)b;
    default: return (double)b;
    }
}

/* ---- conversions ---------------------------------------------------------- */

/* The common conversions with default rounding, converged or not. */
static bool
cvt_fast(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    unsigned dt = x->type, st = x->type2;
    if ((x->flags & (PF_SAT | PF_FTZ)) || x->a.cls != (ptx_type_bytes(st) == 8 ? SC_64 : SC_32) ||
        x->d.cls != (ptx_type_bytes(dt) == 8 ? SC_64 : SC_32))
        return false;                /* a wider register (PTX ISA 9.4.1): exec_cvt's lanes */
    if (dt == PT_F64 && st == PT_F32) {
        union r64 *D = R64(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l].d = A[l].f; });
        return true;
    }
    if (dt == PT_F32 && st == PT_F64 && (x->rnd == PR_RN || x->rnd == PR_NONE)) {
        union r32 *D = R32(x->d);
        const union r64 *A = R64(x->a);
        LANES(m, { D[l].f = (float)A[l].d; });
        return true;
    }
    if (dt == PT_F32 && st == PT_S32 && (x->rnd == PR_RN || x->rnd == PR_NONE)) {
        union r32 *D = R32(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l].f = (float)A[l].s; });
        return true;
    }
    if (dt == PT_F64 && st == PT_S32) {
        union r64 *D = R64(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l].d = A[l].s; });
        return true;
    }
    if ((dt == PT_S64 || dt == PT_U64) && st == PT_S32) {
        union r64 *D = R64(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l].s = A[l].s; });
        return true;
    }
    if ((dt == PT_U64 || dt == PT_S64) && st == PT_U32) {
        union r64 *D = R64(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l].u = A[l].u; });
        return true;
    }
    if ((dt == PT_U32 || dt == PT_S32) && (st == PT_U64 || st == PT_S64)) {
        union r32 *D = R32(x->d);
        const union r64 *A = R64(x->a);
        LANES(m, { D[l].u = (uint32_t)A[l].u; });
        return true;
    }
    /* float to a 32-bit integer, and f32 rounded to an integral f32: as
     * exec_cvt's lanes compute them, without their per-lane type switches */
    unsigned rnd = x->rnd ? x->rnd : PR_RZI;
    if ((dt == PT_U32 || dt == PT_S32) && st == PT_F32) {
        union r32 *D = R32(x->d);
        const union r32 *A = R32(x->a);
        bool sgn = dt == PT_S32;
        LANES(m, { D[l].u = (uint32_t)to_int(round_int(A[l].f, rnd), sgn, 32); });
        return true;
    }
    if ((dt == PT_U32 || dt == PT_S32) && st == PT_F64) {
        union r32 *D = R32(x->d);
        const union r64 *A = R64(x->a);
        bool sgn = dt == PT_S32;
        LANES(m, { D[l].u = (uint32_t)to_int(round_int(A[l].d, rnd), sgn, 32); });
        return true;
    }
    if (dt == PT_F32 && st == PT_F32 && x->rnd >= PR_RNI) {
        union r32 *D = R32(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l].f = (float)round_int(A[l].f, x->rnd); });
        return true;
    }
    return false;
}

/* cvt{.rna,.rn,.rz}{.relu}{.satfinite}.tf32.f32 (PTX ISA 9.7.9.21): the
 * f32 rounded to TF32's 10 mantissa bits, as an f32 bit pattern whose low
 * 13 bits are zero; a NaN is the canonical 0x7fffffff; .satfinite makes
 * an infinity the largest finite TF32 of its sign; .relu makes a negative
 * result +0. */
static void
exec_cvt_tf32(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    union r32 *D = R32(x->d);
    const union r32 *A = R32(x->a);
    bool sat = (x->flags & PF_SATFINITE) != 0, relu = (x->flags & PF_RELU) != 0;
    LANES(m, {
        uint32_t u = A[l].u;
        if ((u & 0x7fffffffu) > 0x7f800000u) {
            D[l].u = 0x7fffffffu;
            continue;
        }
        if ((u & 0x7fffffffu) != 0x7f800000u) {   /* finite: round the magnitude */
            if (x->rnd == PR_RNA || x->rnd == PR_NONE)
                u += 0x1000u;
            else if (x->rnd == PR_RN)
                u += 0xfffu + ((u >> 13) & 1u);
        }
        u &= ~0x1fffu;
        if (sat && (u & 0x7fffffffu) == 0x7f800000u)
            u = (u & 0x80000000u) | 0x7f7fe000u;
        if (relu && (u & 0x80000000u))
            u = 0;
        D[l].u = u;
    });
}

static void
exec_cvt(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    if (x->type == PT_TF32) {
        exec_cvt_tf32(pw, x, m);
        return;
    }
    if (cvt_fast(pw, x, m))
        return;
    unsigned dt = x->type, st = x->type2;
    bool df = ptx_type_is_float(dt), sf = ptx_type_is_float(st);
    bool sat = (x->flags & PF_SAT) != 0;
    /* .ftz: an f32 source and an f32 result are flushed */
    bool ftz = (x->flags & PF_FTZ) != 0;
    bool ftz_in = ftz && st == PT_F32, ftz_out = ftz && dt == PT_F32;
    int old = 0;
    bool set_rnd = df && (x->rnd == PR_RZ || x->rnd == PR_RM || x->rnd == PR_RP);
    if (set_rnd) {
        old = fegetround();
        fesetround(lane_host_round(x->rnd));
    }
    LANES(m, {
        uint64_t out;
        if (!df && !sf) {
            /* integer to integer: truncate or extend, optionally saturate */
            uint64_t v = lane_extend(lane_get(pw, &x->a, l), st);
            if (sat) {
                double dv = ptx_type_is_signed(st) ? (double)(int64_t)v : (double)v;
                out = to_int(dv, ptx_type_is_signed(dt), ptx_type_bytes(dt) * 8);
            } else {
                out = v;
            }
            out = lane_extend(out, dt);
        } else if (!df) {
            /* float to integer */
            double a = as_double(pw, &x->a, st, l);
            if (ftz_in)
                a = ftzf((float)a, true);
            double v = round_int(a, x->rnd ? x->rnd : PR_RZI);
            out = to_int(v, ptx_type_is_signed(dt), ptx_type_bytes(dt) * 8);
        } else {
            double v;
            if (sf) {
                v = as_double(pw, &x->a, st, l);
                if (ftz_in)
                    v = ftzf((float)v, true);
                if (x->rnd >= PR_RNI)
                    v = round_int(v, x->rnd);
            } else if (st == PT_U64 || st == PT_B64) {
                v = 0;
                volatile uint64_t u = lane_get(pw, &x->a, l);
                if (dt == PT_F32) {
                    volatile float f = (float)u;
                    v = f;
                } else {
                    v = (double)u;
                }
            } else if (st == PT_S64) {
                volatile int64_t s = (int64_t)lane_get(pw, &x->a, l);
                if (dt == PT_F32) {
                    volatile float f = (float)s;
                    v = f;
                } else {
                    v = (double)s;
                }
            } else {
                v = as_double(pw, &x->a, st, l);
            }
            if (sat)
                v = isnan(v) ? 0.0 : v < 0 ? 0.0 : v > 1 ? 1.0 : v;
            if (dt == PT_F64) {
                memcpy(&out, &v, 8);
            } else if (dt == PT_F32) {
                volatile double vd = v;
                float f = ftzf((float)vd, ftz_out);
                uint32_t u;
                memcpy(&u, &f, 4);
                out = u;
            } else {
                out = ptx_half_round(v, PTX_HF16, x->rnd);   /* (ptx_half.c converts to halves) */
            }
        }
        lane_set(pw, &x->d, l, out);
    });
    if (set_rnd)
        fesetround(old);
}

/* ---- comparisons ---------------------------------------------------------- */

static bool
cmp_int(uint64_t a, uint64_t b, bool sgn, unsigned c)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (c) {
    case PC_EQ: return a == b;
    case PC_NE: return a != b;
    case PC_LT: return sgn ? sa < sb : a < b;
    case PC_LE: return sgn ? sa <= sb : a <= b;
    case PC_GT: return sgn ? sa > sb : a > b;
    case PC_GE: return sgn ? sa >= sb : a >= b;
    case PC_LO: return a < b;
    case PC_LS: return a <= b;
    case PC_HI: return a > b;
    case PC_HS: return a >= b;
    default: return false;
    }
}

/* 1 << l, from a table: the vectorised compare ANDs it with its masks */
static const uint32_t lane_bit[32] = {
    1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 1u << 7,
    1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
    1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
    1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31,
};

/* For a converged warp one straight loop of selects from lane_bit (which
 * the compiler vectorises: compare, AND, OR), else lane by lane. */
#define CMP_LANES(expr) \
    do { \
        if (m == FULL) { \
            for (unsigned l = 0; l < 32; l++) \
                res |= (expr) ? lane_bit[l] : 0; \
        } else { \
            LANES(m, { if (expr) res |= 1u << l; }); \
        } \
    } while (0)
/* The lanes (into res) of m whose A[l] cmp B[l] holds, A and B arrays of
 * union r32 or union r64: one switch for both widths (.s when sgn). */
#define CMP_ORD(op, sgn) \
    do { if (sgn) CMP_LANES(A[l].s op B[l].s); else CMP_LANES(A[l].u op B[l].u); } while (0)
#define INT_COMPARE(sgn) \
    do { \
        bool sgn_ = (sgn); \
        switch (x->cmp) { \
        case PC_EQ: CMP_LANES(A[l].u == B[l].u); break; \
        case PC_NE: CMP_LANES(A[l].u != B[l].u); break; \
        case PC_LT: CMP_ORD(<, sgn_); break; \
        case PC_LE: CMP_ORD(<=, sgn_); break; \
        case PC_GT: CMP_ORD(>, sgn_); break; \
        case PC_GE: CMP_ORD(>=, sgn_); break; \
        case PC_LO: CMP_LANES(A[l].u < B[l].u); break; \
        case PC_LS: CMP_LANES(A[l].u <= B[l].u); break; \
        case PC_HI: CMP_LANES(A[l].u > B[l].u); break; \
        case PC_HS: CMP_LANES(A[l].u >= B[l].u); break; \
        default: break; \
        } \
    } while (0)

/* The same for float arrays A and B (member f or d), as ptx_cmp_float
 * decides each lane: an ordered comparison fails on a NaN, an unordered
 * one (the U forms) holds.  C's own comparisons are IEEE's: <, <=, >, >=
 * and == are false on a NaN and != true, so each form is one comparison
 * or its negation (NE ordered: < or >), with no NaN test (so that
 * CMP_LANES's converged loop vectorises). */
#define FLOAT_COMPARE(f) \
    do { \
        switch (x->cmp) { \
        case PC_EQ: CMP_LANES(A[l].f == B[l].f); break; \
        case PC_NE: CMP_LANES(A[l].f < B[l].f || A[l].f > B[l].f); break; \
        case PC_LT: CMP_LANES(A[l].f < B[l].f); break; \
        case PC_LE: CMP_LANES(A[l].f <= B[l].f); break; \
        case PC_GT: CMP_LANES(A[l].f > B[l].f); break; \
        case PC_GE: CMP_LANES(A[l].f >= B[l].f); break; \
        case PC_EQU: CMP_LANES(!(A[l].f < B[l].f || A[l].f > B[l].f)); break; \
        case PC_NEU: CMP_LANES(A[l].f != B[l].f); break; \
        case PC_LTU: CMP_LANES(!(A[l].f >= B[l].f)); break; \
        case PC_LEU: CMP_LANES(!(A[l].f > B[l].f)); break; \
        case PC_GTU: CMP_LANES(!(A[l].f <= B[l].f)); break; \
        case PC_GEU: CMP_LANES(!(A[l].f < B[l].f)); break; \
        default: LANES(m, { if (ptx_cmp_float(A[l].f, B[l].f, x->cmp)) res |= 1u << l; }); \
        } \
    } while (0)

/* Lanes of m for which "a cmp b" holds (type t). */
static uint32_t
compare(const struct pwarp *pw, const struct xop *x, unsigned t, uint32_t m)
{
    uint32_t res = 0;
    if (t == PT_F32 && (x->flags & PF_FTZ)) {
        const union r32 *A = R32(x->a), *B = R32(x->b);
        LANES(m, { if (ptx_cmp_float(ftzf(A[l].f, true), ftzf(B[l].f, true), x->cmp))
                       res |= 1u << l; });
    } else if (t == PT_F32) {
        const union r32 *A = R32(x->a), *B = R32(x->b);
        FLOAT_COMPARE(f);
    } else if (t == PT_F64) {
        const union r64 *A = R64(x->a), *B = R64(x->b);
        FLOAT_COMPARE(d);
    } else if (t == PT_F16) {
        LANES(m, {
            double a = as_double(pw, &x->a, t, l), b = as_double(pw, &x->b, t, l);
            if (ptx_cmp_float(a, b, x->cmp))
                res |= 1u << l;
        });
    } else if (t == PT_PRED) {
        uint32_t a = pw->pred[x->a.idx], b = pw->pred[x->b.idx];
        LANES(m, {
            uint64_t av = (a >> l) & 1, bv = (b >> l) & 1;
            if (cmp_int(av, bv, false, x->cmp))
                res |= 1u << l;
        });
    } else if (t == PT_S32 || t == PT_U32 || t == PT_B32) {
        const union r32 *A = R32(x->a), *B = R32(x->b);
        INT_COMPARE(t == PT_S32);
    } else if ((t == PT_S16 || t == PT_U16 || t == PT_B16) && x->a.cls == SC_32 &&
               x->b.cls == SC_32) {
        /* 16-bit values in 32-bit slots: their low halves, extended per type */
        const union r32 *A = R32(x->a), *B = R32(x->b);
        if (t == PT_S16) {
            LANES(m, { if (cmp_int((uint64_t)(int64_t)(int16_t)A[l].u,
                                   (uint64_t)(int64_t)(int16_t)B[l].u, true, x->cmp))
                           res |= 1u << l; });
        } else {
            LANES(m, { if (cmp_int((uint16_t)A[l].u, (uint16_t)B[l].u, false, x->cmp))
                           res |= 1u << l; });
        }
    } else if ((t == PT_S64 || t == PT_U64 || t == PT_B64) && x->a.cls == SC_64 &&
               x->b.cls == SC_64) {
        const union r64 *A = R64(x->a), *B = R64(x->b);
        INT_COMPARE(t == PT_S64);
    } else {
        bool sgn = ptx_type_is_signed(t);
        LANES(m, {
            uint64_t a = lane_extend(lane_get(pw, &x->a, l), t), b = lane_extend(lane_get(pw, &x->b, l), t);
            if (cmp_int(a, b, sgn, x->cmp))
                res |= 1u << l;
        });
    }
    return res;
}
#undef FLOAT_COMPARE
#undef INT_COMPARE
#undef CMP_ORD
#undef CMP_LANES

/* ---- integer ------------------------------------------------------------- */

#define BIN32(expr) \
    do { \
        union r32 *D = R32(x->d); \
        const union r32 *A = R32(x->a), *B = R32(x->b); \
        LANES(m, { uint32_t a = A[l].u, b = B[l].u; (void)a; (void)b; D[l].u = (uint32_t)(expr); }); \
    } while (0)
#define BIN64(expr) \
    do { \
        union r64 *D = R64(x->d); \
        const union r64 *A = R64(x->a), *B = R64(x->b); \
        LANES(m, { uint64_t a = A[l].u, b = B[l].u; (void)a; (void)b; D[l].u = (uint64_t)(expr); }); \
    } while (0)
#define UN32(expr) \
    do { \
        union r32 *D = R32(x->d); \
        const union r32 *A = R32(x->a); \
        LANES(m, { uint32_t a = A[l].u; D[l].u = (uint32_t)(expr); }); \
    } while (0)

static uint32_t
brev32(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
}

static uint64_t
lop3(uint64_t a, uint64_t b, uint64_t c, unsigned lut)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 8; i++)
        if ((lut >> i) & 1)
            r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
    return r;
}

/* prmt: bytes of {b, a} picked by sel's four nibbles (the generic form:
 * bit 3 of a nibble replicates the byte's sign), or by mode (PM_PRMT_F4E
 * ..) and sel's two low bits, per the PTX ISA's table (9.7.9.7): for
 * each mode and selector, the source byte of d's bytes 0 .. 3. */
static uint32_t
prmt(uint32_t a, uint32_t b, uint32_t sel, unsigned mode)
{
    static const uint8_t modes[6][4][4] = {
        { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },   /* f4e */
        { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },   /* b4e */
        { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },   /* rc8 */
        { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },   /* ecl */
        { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },   /* ecr */
        { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },   /* rc16 */
    };
    uint64_t bytes = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (unsigned i = 0; i < 4; i++) {
        if (mode >= PM_PRMT_F4E) {
            r |= (uint32_t)(uint8_t)(bytes >> (8 * modes[mode - PM_PRMT_F4E][sel & 3][i]))
                 << (8 * i);
            continue;
        }
        unsigned s = (sel >> (4 * i)) & 0xf;
        uint8_t v = (uint8_t)(bytes >> (8 * (s & 7)));
        if (s & 8)
            v = (v & 0x80) ? 0xff : 0;
        r |= (uint32_t)v << (8 * i);
    }
    return r;
}

/* Any-width integer operation on lanes m (16/32/64-bit), general path. */
static void
int_generic(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    unsigned t = x->type, bits = ptx_type_bytes(t) * 8;
    bool sgn = ptx_type_is_signed(t);
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    LANES(m, {
        uint64_t a = lane_extend(lane_get(pw, &x->a, l), t);
        uint64_t b = x->b.cls ? lane_extend(lane_get(pw, &x->b, l), t) : 0;
        uint64_t c = x->c.cls == SC_32 || x->c.cls == SC_64 ? lane_get(pw, &x->c, l) : 0;
        int64_t sa = (int64_t)a, sb = (int64_t)b;
        uint64_t r = 0;
        switch (x->op) {
        case PTXOP_ADD: r = a + b; break;
        case PTXOP_SUB: r = a - b; break;
        case PTXOP_ADDC: r = a + b + ((pw->carry >> l) & 1); break;
        case PTXOP_SUBC: r = a - b - ((pw->carry >> l) & 1); break;
        case PTXOP_MUL:
        case PTXOP_MAD:
            if (x->flags & PF_HI) {
                if (bits == 64) {
                    r = sgn ? (uint64_t)(((__int128)sa * sb) >> 64)
                            : (uint64_t)(((unsigned __int128)a * b) >> 64);
                } else {
                    r = sgn ? (uint64_t)((sa * sb) >> bits) : (a * b) >> bits;
                }
            } else if (x->flags & PF_WIDE) {
                r = sgn ? (uint64_t)(sa * sb) : a * b;
            } else {
                r = a * b;
            }
            if (x->op == PTXOP_MAD)
                r += (x->flags & PF_WIDE) ? c : lane_extend(c, t);
            break;
        case PTXOP_MUL24:
        case PTXOP_MAD24: {
            int64_t a24 = sgn ? (int64_t)((uint64_t)a << 40) >> 40 : (int64_t)(a & 0xffffff);
            int64_t b24 = sgn ? (int64_t)((uint64_t)b << 40) >> 40 : (int64_t)(b & 0xffffff);
            uint64_t p = (uint64_t)(a24 * b24);
            r = (x->flags & PF_HI) ? p >> 16 : p;
            if (x->op == PTXOP_MAD24)
                r += c;
            break;
        }
        case PTXOP_SAD: {
            uint64_t d = sgn ? (uint64_t)(sa > sb ? sa - sb : sb - sa) : (a > b ? a - b : b - a);
            r = c + d;
            break;
        }
        case PTXOP_DIV:
            if (b == 0)
                r = mask;
            else if (sgn)
                r = (sb == -1) ? (uint64_t)0 - a : (uint64_t)(sa / sb);
            else
                r = a / b;
            break;
        case PTXOP_REM:
            if (b == 0)
                r = a;
            else if (sgn)
                r = (sb == -1) ? 0 : (uint64_t)(sa % sb);
            else
                r = a % b;
            break;
        case PTXOP_MIN: r = (sgn ? sa < sb : a < b) ? a : b; break;
        case PTXOP_MAX: r = (sgn ? sa > sb : a > b) ? a : b; break;
        case PTXOP_ABS: r = (sgn && sa < 0) ? (uint64_t)0 - a : a; break;
        case PTXOP_NEG: r = (uint64_t)0 - a; break;
        case PTXOP_NOT: r = ~a; break;
        case PTXOP_CNOT: r = (a & mask) == 0; break;
        case PTXOP_AND: r = a & b; break;
        case PTXOP_OR: r = a | b; break;
        case PTXOP_XOR: r = a ^ b; break;
        case PTXOP_SHL: {
            uint32_t n = (uint32_t)lane_get(pw, &x->b, l);
            r = n >= bits ? 0 : a << n;
            break;
        }
        case PTXOP_SHR: {
            uint32_t n = (uint32_t)lane_get(pw, &x->b, l);
            if (sgn)
                r = n >= bits ? (uint64_t)(sa >> 63) : (uint64_t)(sa >> n);
            else
                r = n >= bits ? 0 : (a & mask) >> n;
            break;
        }
        case PTXOP_BMSK: {       /* PTX ISA 9.7.1.x bmsk: bits a .. a + b - 1 */
            uint32_t ua = (uint32_t)a, ub = (uint32_t)b, a1 = ua & 31, b1 = ub & 31;
            bool clamp = (x->flags & PF_CLAMP) != 0, over = a1 + b1 >= 32;
            uint32_t m0 = ~0u << a1, m1 = over ? 0 : ~0u << (a1 + b1);
            if (clamp && ua >= 32) {
                over = true;
                m0 = 0;
            }
            over = over || (clamp && ub >= 32);
            m1 = over ? 0 : b1 == 0 ? ~0u : m1;
            r = m0 & ~m1;
            break;
        }
        case PTXOP_SZEXT: {      /* szext: the low N = b bits of a, extended; N = 0: 0 */
            uint32_t ua = (uint32_t)a, ub = (uint32_t)b, b1 = ub & 31;
            bool too = ub >= 32 && (x->flags & PF_CLAMP);
            uint32_t msk = too ? 0 : ~0u << b1;
            bool sbit = b1 != 0 && !too && sgn && ((ua >> ((b1 - 1) & 31)) & 1);
            r = (ua & ~msk) | (sbit ? msk : 0);
            break;
        }
        case PTXOP_POPC: r = (uint64_t)__builtin_popcountll(a & mask); break;
        case PTXOP_CLZ:
            r = (a & mask) == 0 ? bits : (uint64_t)(__builtin_clzll(a & mask) - (64 - (int)bits));
            break;
        case PTXOP_BREV:
            r = bits == 64 ? ((uint64_t)brev32((uint32_t)a) << 32) | brev32((uint32_t)(a >> 32))
                           : brev32((uint32_t)a) >> (32 - bits);
            break;
        case PTXOP_BFIND: {
            uint64_t v = (sgn && sa < 0) ? ~a & mask : a & mask;
            if (v == 0) {
                r = 0xffffffffu;
            } else {
                unsigned pos = 63 - (unsigned)__builtin_clzll(v);
                r = (x->flags & PF_SHIFTAMT) ? bits - 1 - pos : pos;
            }
            break;
        }
        case PTXOP_BFE: {
            uint32_t pos = (uint32_t)lane_get(pw, &x->b, l) & 0xff;
            uint32_t len = (uint32_t)lane_get(pw, &x->c, l) & 0xff;
            if (len == 0) {
                r = 0;
            } else if (pos >= bits) {
                r = (sgn && sa < 0) ? mask : 0;
            } else {
                uint64_t f = (a & mask) >> pos;
                if (len < 64)
                    f &= (UINT64_C(1) << len) - 1;
                unsigned top = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
                if (sgn && ((a >> top) & 1) && len < 64)
                    f |= ~((UINT64_C(1) << (top - pos + 1)) - 1);
                r = f;
            }
            break;
        }
        case PTXOP_BFI: {
            uint32_t pos = (uint32_t)lane_get(pw, &x->c, l) & 0xff;
            uint32_t len = (uint32_t)lane_get(pw, &x->e, l) & 0xff;
            r = b;
            if (len > 0 && pos < bits) {
                uint64_t fm = (len >= 64 ? UINT64_MAX : (UINT64_C(1) << len) - 1) << pos;
                r = (b & ~fm) | ((a << pos) & fm);
            }
            break;
        }
        case PTXOP_PRMT:
            r = prmt((uint32_t)a, (uint32_t)b, (uint32_t)c, x->mode);
            break;
        case PTXOP_LOP3:
            r = lop3(a, b, c, (unsigned)lane_get(pw, &x->e, l));
            break;
        case PTXOP_SHF: {
            uint32_t n = (uint32_t)c;
            n = (x->flags & PF_CLAMP) ? (n > 32 ? 32 : n) : (n & 31);
            uint64_t pair = ((uint64_t)(uint32_t)b << 32) | (uint32_t)a;
            r = x->mode == PM_L ? (uint32_t)((pair << n) >> 32) : (uint32_t)(pair >> n);
            break;
        }
        default:
            r = 0;
            break;
        }
        if ((x->op == PTXOP_ADD || x->op == PTXOP_ADDC) && (x->flags & PF_CC)) {
            bool cy = bits == 64 ? r < a : ((a & mask) + (b & mask) + (x->op == PTXOP_ADDC ? ((pw->carry >> l) & 1) : 0)) > mask;
            pw->carry = (pw->carry & ~(1u << l)) | ((uint32_t)cy << l);
        }
        if ((x->op == PTXOP_SUB || x->op == PTXOP_SUBC) && (x->flags & PF_CC)) {
            bool bw = (a & mask) < (b & mask) + (x->op == PTXOP_SUBC ? ((pw->carry >> l) & 1) : 0);
            pw->carry = (pw->carry & ~(1u << l)) | ((uint32_t)bw << l);
        }
        if ((x->flags & PF_SAT) && sgn && bits == 32 && (x->op == PTXOP_ADD || x->op == PTXOP_SUB)) {
            int64_t s = x->op == PTXOP_ADD ? (int64_t)(int32_t)a + (int32_t)b
                                           : (int64_t)(int32_t)a - (int32_t)b;
            r = (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
        }
        unsigned db = x->d.cls == SC_64 ? 64 : bits;
        if (x->op == PTXOP_POPC || x->op == PTXOP_CLZ || x->op == PTXOP_BFIND)
            db = 32;
        if ((x->op == PTXOP_MUL || x->op == PTXOP_MAD) && (x->flags & PF_WIDE))
            db = 2 * bits;
        lane_set(pw, &x->d, l, db >= 64 ? r : r & ((UINT64_C(1) << db) - 1));
    });
}

/* Fast paths for the common converged 32- and 64-bit cases; everything else
 * goes through int_generic(). */
static void
int_op(struct pwarp *pw, const struct xop *x, uint32_t m, enum kind k)
{
    bool plain = !(x->flags & (PF_CC | PF_SAT | PF_HI));
    if (k == K_U32 || k == K_S32) {
        switch (x->op) {
        case PTXOP_ADD: if (plain) { BIN32(a + b); return; } break;
        case PTXOP_SUB: if (plain) { BIN32(a - b); return; } break;
        case PTXOP_AND: BIN32(a & b); return;
        case PTXOP_OR: BIN32(a | b); return;
        case PTXOP_XOR: BIN32(a ^ b); return;
        case PTXOP_NOT: UN32(~a); return;
        case PTXOP_SHL: BIN32(b >= 32 ? 0 : a << b); return;
        case PTXOP_SHR:
            if (k == K_S32)
                BIN32(b >= 32 ? (uint32_t)((int32_t)a >> 31) : (uint32_t)((int32_t)a >> b));
            else
                BIN32(b >= 32 ? 0 : a >> b);
            return;
        case PTXOP_MIN:
            if (k == K_S32) BIN32((int32_t)a < (int32_t)b ? a : b); else BIN32(a < b ? a : b);
            return;
        case PTXOP_MAX:
            if (k == K_S32) BIN32((int32_t)a > (int32_t)b ? a : b); else BIN32(a > b ? a : b);
            return;
        case PTXOP_MUL:
            if (plain && !(x->flags & PF_WIDE)) {
                BIN32(a * b);
                return;
            }
            if (x->flags & PF_WIDE) {
                union r64 *D = R64(x->d);
                const union r32 *A = R32(x->a), *B = R32(x->b);
                if (k == K_S32)
                    LANES(m, { D[l].s = (int64_t)A[l].s * B[l].s; });
                else
                    LANES(m, { D[l].u = (uint64_t)A[l].u * B[l].u; });
                return;
            }
            break;
        case PTXOP_MAD:
            if (plain && !(x->flags & PF_WIDE)) {
                union r32 *D = R32(x->d);
                const union r32 *A = R32(x->a), *B = R32(x->b), *C = R32(x->c);
                LANES(m, { D[l].u = A[l].u * B[l].u + C[l].u; });
                return;
            }
            if (plain && x->c.cls == SC_64 && x->d.cls == SC_64) {
                /* mad.wide: the 64-bit product plus a 64-bit addend */
                union r64 *D = R64(x->d);
                const union r64 *C = R64(x->c);
                const union r32 *A = R32(x->a), *B = R32(x->b);
                if (k == K_S32)
                    LANES(m, { D[l].u = (uint64_t)((int64_t)A[l].s * B[l].s) + C[l].u; });
                else
                    LANES(m, { D[l].u = (uint64_t)A[l].u * B[l].u + C[l].u; });
                return;
            }
            break;
        default:
            break;
        }
    } else if ((k == K_U16 || k == K_S16) && plain && x->d.cls == SC_32 && x->a.cls == SC_32 &&
               (x->b.cls == SC_32 || x->op == PTXOP_NOT)) {
        /* 8- and 16-bit values in 32-bit slots: the low bits of the
         * 32-bit result are the narrow result, whatever the upper bits held */
        uint32_t w = ptx_type_bytes(x->type) == 1 ? 0xffu : 0xffffu;
        switch (x->op) {
        case PTXOP_ADD: BIN32((a + b) & w); return;
        case PTXOP_SUB: BIN32((a - b) & w); return;
        case PTXOP_AND: BIN32((a & b) & w); return;
        case PTXOP_OR: BIN32((a | b) & w); return;
        case PTXOP_XOR: BIN32((a ^ b) & w); return;
        case PTXOP_NOT: UN32(~a & w); return;
        default:
            break;
        }
    } else if (k == K_U64 || k == K_S64) {
        switch (x->op) {
        case PTXOP_ADD: if (plain) { BIN64(a + b); return; } break;
        case PTXOP_SUB: if (plain) { BIN64(a - b); return; } break;
        case PTXOP_AND: BIN64(a & b); return;
        case PTXOP_OR: BIN64(a | b); return;
        case PTXOP_XOR: BIN64(a ^ b); return;
        case PTXOP_MUL: if (plain) { BIN64(a * b); return; } break;
        case PTXOP_SHL:
        case PTXOP_SHR:
            if (x->b.cls == SC_32 && x->d.cls == SC_64) {   /* a 32-bit shift amount */
                union r64 *D = R64(x->d);
                const union r64 *A = R64(x->a);
                const union r32 *B = R32(x->b);
                if (x->op == PTXOP_SHL)
                    LANES(m, { uint32_t n = B[l].u; D[l].u = n >= 64 ? 0 : A[l].u << n; });
                else if (k == K_S64)
                    LANES(m, { uint32_t n = B[l].u;
                               D[l].u = (uint64_t)(A[l].s >> (n >= 64 ? 63 : n)); });
                else
                    LANES(m, { uint32_t n = B[l].u; D[l].u = n >= 64 ? 0 : A[l].u >> n; });
                return;
            }
            break;
        default:
            break;
        }
    }
    int_generic(pw, x, m);
}

/* ---- floating point ------------------------------------------------------ */

static float
satf(float v, bool sat)
{
    if (!sat)
        return v;
    return isnan(v) ? 0.0f : v < 0 ? 0.0f : v > 1 ? 1.0f : v;
}

static double
satd(double v, bool sat)
{
    if (!sat)
        return v;
    return isnan(v) ? 0.0 : v < 0 ? 0.0 : v > 1 ? 1.0 : v;
}

/* One FP32 operation on values a, b, c (volatile so a non-default rounding
 * mode set around the call is honoured). */
static float
f32_op(unsigned op, volatile float a, volatile float b, volatile float c)
{
    switch (op) {
    case PTXOP_ADD: return a + b;
    case PTXOP_SUB: return a - b;
    case PTXOP_MUL: return a * b;
    case PTXOP_FMA: case PTXOP_MAD: return fmaf(a, b, c);
    case PTXOP_DIV: return a / b;
    case PTXOP_MIN: return fminf(a, b);
    case PTXOP_MAX: return fmaxf(a, b);
    case PTXOP_ABS: return fabsf(a);
    case PTXOP_NEG: return -a;
    case PTXOP_SQRT: return sqrtf(a);
    case PTXOP_RSQRT: return 1.0f / sqrtf(a);
    case PTXOP_RCP: return 1.0f / a;
    case PTXOP_SIN: return sinf(a);
    case PTXOP_COS: return cosf(a);
    case PTXOP_EX2: return exp2f(a);
    case PTXOP_LG2: return log2f(a);
    case PTXOP_TANH: return tanhf(a);
    case PTXOP_COPYSIGN: return copysignf(b, a);
    default: return 0.0f;
    }
}

static double
f64_op(unsigned op, volatile double a, volatile double b, volatile double c)
{
    switch (op) {
    case PTXOP_ADD: return a + b;
    case PTXOP_SUB: return a - b;
    case PTXOP_MUL: return a * b;
    case PTXOP_FMA: case PTXOP_MAD: return fma(a, b, c);
    case PTXOP_DIV: return a / b;
    case PTXOP_MIN: return fmin(a, b);
    case PTXOP_MAX: return fmax(a, b);
    case PTXOP_ABS: return fabs(a);
    case PTXOP_NEG: return -a;
    case PTXOP_SQRT: return sqrt(a);
    case PTXOP_RSQRT: return 1.0 / sqrt(a);
    case PTXOP_RCP: return 1.0 / a;
    case PTXOP_SIN: return sin(a);
    case PTXOP_COS: return cos(a);
    case PTXOP_EX2: return exp2(a);
    case PTXOP_LG2: return log2(a);
    case PTXOP_TANH: return tanh(a);
    case PTXOP_COPYSIGN: return copysign(b, a);
    default: return 0.0;
    }
}

/* min/max{.ftz}{.NaN}{.xorsign.abs}.f32 of bit patterns a and b (PTX ISA
 * 9.7.3.11-12): .NaN gives the canonical NaN when either is one (else a
 * NaN yields to the other operand); .xorsign.abs compares magnitudes and
 * gives the result the sign a ^ b; of two zeros min takes -0, max +0. */
static uint32_t
minmax_f32(bool is_min, uint32_t flags, bool ftz, uint32_t a, uint32_t b)
{
    const uint32_t sgn = 0x80000000u;
    if (ftz) {
        a = (a & 0x7f800000u) == 0 ? a & sgn : a;
        b = (b & 0x7f800000u) == 0 ? b & sgn : b;
    }
    bool xs = (flags & PF_XORSIGN) != 0;
    uint32_t sign = (a ^ b) & sgn, d;
    if (xs) {
        a &= ~sgn;
        b &= ~sgn;
    }
    bool na = (a & 0x7fffffffu) > 0x7f800000u, nb = (b & 0x7fffffffu) > 0x7f800000u;
    if ((na && nb) || ((flags & PF_NAN) && (na || nb)))
        return 0x7fffffffu;
    if (na) {
        d = b;
    } else if (nb) {
        d = a;
    } else {
        float fa, fb;
        memcpy(&fa, &a, 4);
        memcpy(&fb, &b, 4);
        if (fa == fb)            /* equal, or zeros: +0 > -0 */
            d = (a & sgn) == (is_min ? sgn : 0) ? a : b;
        else
            d = (fa < fb) == is_min ? a : b;
    }
    return xs ? (d & ~sgn) | sign : d;
}

/* Cloned for CPUs with FMA instructions (the same results, fmaf inlined).
 * Not under ThreadSanitizer: its instrumented ifunc resolver would run
 * before the sanitizer's run time is set up. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PTX_NO_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(PTX_NO_CLONES)
static void
#else
__attribute__((target_clones("fma", "default"))) static void
#endif
float_op(struct pwarp *pw, const struct xop *x, uint32_t m, enum kind k)
{
    bool sat = (x->flags & PF_SAT) != 0;
    bool ftz = k == K_F32 && (x->flags & PF_FTZ) != 0;
    bool dir = x->rnd == PR_RZ || x->rnd == PR_RM || x->rnd == PR_RP;
    if (k == K_F32 && (x->op == PTXOP_MIN || x->op == PTXOP_MAX) &&
        (x->flags & (PF_NAN | PF_XORSIGN))) {
        LANES(m, {
            lane_set(pw, &x->d, l, minmax_f32(x->op == PTXOP_MIN, x->flags, ftz,
                                              (uint32_t)lane_get(pw, &x->a, l),
                                              (uint32_t)lane_get(pw, &x->b, l)));
        });
        return;
    }
    if (k == K_F32 && !dir && !sat && !ftz) {
        union r32 *D = R32(x->d);
        const union r32 *A = R32(x->a), *B = R32(x->b), *C = R32(x->c);
        switch (x->op) {
        case PTXOP_ADD: LANES(m, { D[l].f = A[l].f + B[l].f; }); return;
        case PTXOP_SUB: LANES(m, { D[l].f = A[l].f - B[l].f; }); return;
        case PTXOP_MUL: LANES(m, { D[l].f = A[l].f * B[l].f; }); return;
        case PTXOP_FMA: case PTXOP_MAD: LANES(m, { D[l].f = fmaf(A[l].f, B[l].f, C[l].f); }); return;
        case PTXOP_NEG: LANES(m, { D[l].f = -A[l].f; }); return;
        case PTXOP_ABS: LANES(m, { D[l].f = fabsf(A[l].f); }); return;
        case PTXOP_MIN: LANES(m, { D[l].f = fminf(A[l].f, B[l].f); }); return;
        case PTXOP_MAX: LANES(m, { D[l].f = fmaxf(A[l].f, B[l].f); }); return;
        /* the rest as f32_op computes them, without its per-lane switch */
        case PTXOP_DIV: LANES(m, { D[l].f = A[l].f / B[l].f; }); return;
        case PTXOP_SQRT: LANES(m, { D[l].f = sqrtf(A[l].f); }); return;
        case PTXOP_RSQRT: LANES(m, { D[l].f = 1.0f / sqrtf(A[l].f); }); return;
        case PTXOP_RCP: LANES(m, { D[l].f = 1.0f / A[l].f; }); return;
        case PTXOP_EX2: LANES(m, { D[l].f = exp2f(A[l].f); }); return;
        case PTXOP_LG2: LANES(m, { D[l].f = log2f(A[l].f); }); return;
        default: break;
        }
    }
    if (k == K_F64 && !dir && !sat) {
        union r64 *D = R64(x->d);
        const union r64 *A = R64(x->a), *B = R64(x->b), *C = R64(x->c);
        switch (x->op) {
        case PTXOP_ADD: LANES(m, { D[l].d = A[l].d + B[l].d; }); return;
        case PTXOP_SUB: LANES(m, { D[l].d = A[l].d - B[l].d; }); return;
        case PTXOP_MUL: LANES(m, { D[l].d = A[l].d * B[l].d; }); return;
        case PTXOP_FMA: case PTXOP_MAD: LANES(m, { D[l].d = fma(A[l].d, B[l].d, C[l].d); }); return;
        case PTXOP_DIV: LANES(m, { D[l].d = A[l].d / B[l].d; }); return;
        case PTXOP_NEG: LANES(m, { D[l].d = -A[l].d; }); return;
        case PTXOP_ABS: LANES(m, { D[l].d = fabs(A[l].d); }); return;
        case PTXOP_MIN: LANES(m, { D[l].d = fmin(A[l].d, B[l].d); }); return;
        case PTXOP_MAX: LANES(m, { D[l].d = fmax(A[l].d, B[l].d); }); return;
        case PTXOP_SQRT: LANES(m, { D[l].d = sqrt(A[l].d); }); return;
        case PTXOP_RCP: LANES(m, { D[l].d = 1.0 / A[l].d; }); return;
        default: break;
        }
    }
    int old = 0;
    if (dir) {
        old = fegetround();
        fesetround(lane_host_round(x->rnd));
    }
    if (k == K_F64) {
        LANES(m, {
            double a = as_double(pw, &x->a, PT_F64, l);
            double b = x->b.cls ? as_double(pw, &x->b, PT_F64, l) : 0;
            double c = x->c.cls ? as_double(pw, &x->c, PT_F64, l) : 0;
            double v = satd(f64_op(x->op, a, b, c), sat);
            uint64_t u;
            memcpy(&u, &v, 8);
            lane_set(pw, &x->d, l, u);
        });
    } else {
        unsigned t = k == K_F16 ? PT_F16 : PT_F32;
        LANES(m, {
            float a = ftzf((float)as_double(pw, &x->a, t, l), ftz);
            float b = x->b.cls ? ftzf((float)as_double(pw, &x->b, t, l), ftz) : 0;
            float c = x->c.cls ? ftzf((float)as_double(pw, &x->c, t, l), ftz) : 0;
            float v = satf(ftzf(f32_op(x->op, a, b, c), ftz), sat);
            uint32_t u;
            if (k == K_F16) {
                u = ptx_half_from_float(v);
            } else {
                memcpy(&u, &v, 4);
            }
            lane_set(pw, &x->d, l, u);
        });
    }
    if (dir)
        fesetround(old);
}

/* ---- moves, selection, predicates ---------------------------------------- */

static void
exec_mov(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    if (x->vec == 2) {
        /* two halves of a 64-bit register (32 bits each) or of a 32-bit one (16) */
        bool wide = (x->flags & PF_WIDE) ? x->d.cls == SC_64 : x->a.cls == SC_64;
        unsigned sh = wide ? 32 : 16;
        uint64_t mask = wide ? UINT32_MAX : UINT16_MAX;
        if (x->flags & PF_WIDE)      /* pack */
            LANES(m, { lane_set(pw, &x->d, l, (lane_get(pw, &x->v[0], l) & mask) |
                                                  ((lane_get(pw, &x->v[1], l) & mask) << sh)); });
        else                         /* unpack */
            LANES(m, {
                uint64_t v = lane_get(pw, &x->a, l);
                lane_set(pw, &x->v[0], l, v & mask);
                lane_set(pw, &x->v[1], l, (v >> sh) & mask);
            });
        return;
    }
    switch (x->d.cls) {
    case SC_PRED:
        pred_write(pw, &x->d, m, pred_src(pw, x, &x->a, 0));
        return;
    case SC_64: {
        union r64 *D = R64(x->d);
        if (x->a.cls == SC_32) {     /* a 64-bit special register's 32-bit slot */
            const union r32 *A = R32(x->a);
            LANES(m, { D[l].u = A[l].u; });
            return;
        }
        const union r64 *A = R64(x->a);
        LANES(m, { D[l] = A[l]; });
        return;
    }
    default: {
        union r32 *D = R32(x->d);
        const union r32 *A = R32(x->a);
        LANES(m, { D[l] = A[l]; });
        return;
    }
    }
}

static void
exec_cvta(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    uint64_t base = x->space == PS_SHARED ? PTX_SHARED_WINDOW
                    : x->space == PS_LOCAL ? PTX_LOCAL_WINDOW
                    : x->space == PS_PARAM ? PTX_PARAM_WINDOW : 0;
    bool to = (x->flags & PF_TO) != 0;
    LANES(m, {
        uint64_t a = lane_get(pw, &x->a, l), r = a;
        if (base != 0) {
            if (!to)
                r = a + base;
            else if (a >= base && a < base + PTX_WINDOW_SIZE)
                r = a - base;
        }
        lane_set(pw, &x->d, l, r);
    });
}

/* isspacep.SPACE p, a: whether generic address a lies in the window of
 * SPACE (ptx_run.h); global: in none of them.  A constant's generic
 * address is a global one here (constant memory is a global region). */
static void
exec_isspacep(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    uint32_t res = 0;
    LANES(m, {
        uint64_t a = lane_get(pw, &x->a, l);
        bool sh = a >= PTX_SHARED_WINDOW && a < PTX_SHARED_WINDOW + PTX_WINDOW_SIZE;
        bool lo = a >= PTX_LOCAL_WINDOW && a < PTX_LOCAL_WINDOW + PTX_WINDOW_SIZE;
        bool pa = a >= PTX_PARAM_WINDOW && a < PTX_PARAM_WINDOW + PTX_WINDOW_SIZE;
        bool in = x->space == PS_SHARED ? sh : x->space == PS_LOCAL ? lo
                  : x->space == PS_PARAM ? pa : x->space == PS_GLOBAL ? !sh && !lo && !pa : false;
        res |= (uint32_t)in << l;
    });
    pred_write(pw, &x->d, m, res);
}

static void
exec_pred_logic(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    uint32_t a = pred_src(pw, x, &x->a, 0);
    uint32_t b = x->b.cls == SC_PRED ? pred_src(pw, x, &x->b, 1) : 0;
    uint32_t r;
    switch (x->op) {
    case PTXOP_AND: r = a & b; break;
    case PTXOP_OR: r = a | b; break;
    case PTXOP_XOR: r = a ^ b; break;
    case PTXOP_NOT: r = ~a; break;
    case PTXOP_CNOT: r = ~a; break;
    default: r = a; break;
    }
    pred_write(pw, &x->d, m, r);
}

static bool
testp(double v, unsigned mode, bool is_f32)
{
    switch (mode) {
    case PM_FINITE: return isfinite(v);
    case PM_INFINITE: return isinf(v);
    case PM_NUMBER: return !isnan(v);
    case PM_NOTANUMBER: return isnan(v);
    case PM_NORMAL: return is_f32 ? isnormal((float)v) : isnormal(v);
    case PM_SUBNORMAL: return is_f32 ? fpclassify((float)v) == FP_SUBNORMAL
                                     : fpclassify(v) == FP_SUBNORMAL;
    default: return false;
    }
}

/* dp4a: four byte products, dp2a: two 16-bit x byte products (the low or
 * high bytes of b), each byte or half signed or not by its type, summed
 * into c modulo 2^32. */
static void
exec_dot(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    bool as = x->type == PT_S32, bs = x->type2 == PT_S32, four = x->op == PTXOP_DP4A;
    unsigned sel = (x->flags & PF_HI) ? 2 : 0;
    union r32 *D = R32(x->d);
    const union r32 *A = R32(x->a), *B = R32(x->b), *C = R32(x->c);
    LANES(m, {
        uint32_t a = A[l].u, b = B[l].u, d = C[l].u;
        for (unsigned i = 0; i < (four ? 4u : 2u); i++) {
            int32_t va = four ? (as ? (int8_t)(a >> 8 * i) : (uint8_t)(a >> 8 * i))
                              : (as ? (int16_t)(a >> 16 * i) : (uint16_t)(a >> 16 * i));
            unsigned j = four ? i : sel + i;
            int32_t vb = bs ? (int8_t)(b >> 8 * j) : (uint8_t)(b >> 8 * j);
            d += (uint32_t)(va * vb);
        }
        D[l].u = d;
    });
}

/* add, min and max on two packed 16-bit integers (.u16x2 / .s16x2), each
 * half on its own; max.relu.s16x2 / min.relu clamp each result at 0. */
static void
exec_int16x2(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    bool sgn = x->type == PT_S16X2, relu = (x->flags & PF_RELU) != 0;
    union r32 *D = R32(x->d);
    const union r32 *A = R32(x->a), *B = R32(x->b);
    LANES(m, {
        uint32_t r = 0;
        for (unsigned h = 0; h < 2; h++) {
            uint32_t ua = (A[l].u >> 16 * h) & 0xffff, ub = (B[l].u >> 16 * h) & 0xffff;
            int32_t a = sgn ? (int16_t)ua : (int32_t)ua, b = sgn ? (int16_t)ub : (int32_t)ub;
            int32_t v = x->op == PTXOP_ADD ? a + b : x->op == PTXOP_MIN ? (a < b ? a : b)
                                                                        : (a > b ? a : b);
            if (relu && v < 0)
                v = 0;
            r |= ((uint32_t)v & 0xffff) << 16 * h;
        }
        D[l].u = r;
    });
}

/* vabsdiff4 (the default byte selectors, no mask): the absolute
 * differences of the four byte pairs of a and b, each byte signed or not
 * by its type (type2: a's, btype: b's); with .add their sum plus c, else
 * the four bytes of the result (.sat: clamped to the byte range of the
 * destination type, else modulo 256). */
static void
exec_vabsdiff4(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    bool as = x->type2 == PT_S32, bs = x->btype == PT_S32, ds = x->type == PT_S32;
    bool sat = (x->flags & PF_SAT) != 0, add = x->atom == PA_ADD;
    union r32 *D = R32(x->d);
    const union r32 *A = R32(x->a), *B = R32(x->b), *C = R32(x->c);
    LANES(m, {
        uint32_t sum = C[l].u, r = 0;
        for (unsigned i = 0; i < 4; i++) {
            int32_t a = as ? (int8_t)(A[l].u >> 8 * i) : (uint8_t)(A[l].u >> 8 * i);
            int32_t b = bs ? (int8_t)(B[l].u >> 8 * i) : (uint8_t)(B[l].u >> 8 * i);
            int32_t d = a > b ? a - b : b - a;
            sum += (uint32_t)d;
            if (sat)
                d = ds ? (d > 127 ? 127 : d) : (d > 255 ? 255 : d);
            r |= ((uint32_t)d & 0xff) << 8 * i;
        }
        D[l].u = add ? sum : r;
    });
}

void
ptx_alu_exec(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    enum kind k = kind_of(x->type);
    if (ptx_half_handles(x)) {
        ptx_half_exec(pw, x, m);
        return;
    }
    if (x->type == PT_U16X2 || x->type == PT_S16X2) {
        exec_int16x2(pw, x, m);
        return;
    }
    switch (x->op) {
    case PTXOP_DP4A: case PTXOP_DP2A:
        exec_dot(pw, x, m);
        return;
    case PTXOP_VABSDIFF4:
        exec_vabsdiff4(pw, x, m);
        return;
    case PTXOP_MOV:
        exec_mov(pw, x, m);
        return;
    case PTXOP_CVT:
        exec_cvt(pw, x, m);
        return;
    case PTXOP_CVTA:
        exec_cvta(pw, x, m);
        return;
    case PTXOP_ISSPACEP:
        exec_isspacep(pw, x, m);
        return;
    case PTXOP_SETP: {
        uint32_t res = compare(pw, x, x->type, m);
        if (x->c.cls == SC_PRED) {
            uint32_t c = pred_src(pw, x, &x->c, 2);
            pred_write(pw, &x->d, m, ptx_bool_combine(res, c, x->mode));
            pred_write(pw, &x->d2, m, ptx_bool_combine(~res, c, x->mode));
        } else {
            pred_write(pw, &x->d, m, res);
            pred_write(pw, &x->d2, m, ~res);
        }
        return;
    }
    case PTXOP_SET: {
        uint32_t res = compare(pw, x, x->type2, m);
        if (x->c.cls == SC_PRED)
            res = ptx_bool_combine(res, pred_src(pw, x, &x->c, 2), x->mode);
        uint32_t tv = x->type == PT_F32 ? 0x3f800000u : x->type == PT_F16 ? 0x3c00u
                      : x->type == PT_BF16 ? 0x3f80u : ptx_type_bytes(x->type) == 2 ? 0xffffu
                      : 0xffffffffu;
        LANES(m, { lane_set(pw, &x->d, l, ((res >> l) & 1) ? tv : 0); });
        return;
    }
    case PTXOP_SELP: {
        uint32_t c = pred_src(pw, x, &x->c, 2);
        if (x->d.cls == SC_32 && x->a.cls == SC_32 && x->b.cls == SC_32) {
            union r32 *D = R32(x->d);
            const union r32 *A = R32(x->a), *B = R32(x->b);
            LANES(m, { D[l].u = ((c >> l) & 1) ? A[l].u : B[l].u; });
            return;
        }
        if (x->d.cls == SC_64 && x->a.cls == SC_64 && x->b.cls == SC_64) {
            union r64 *D = R64(x->d);
            const union r64 *A = R64(x->a), *B = R64(x->b);
            LANES(m, { D[l].u = ((c >> l) & 1) ? A[l].u : B[l].u; });
            return;
        }
        LANES(m, { lane_set(pw, &x->d, l, ((c >> l) & 1) ? lane_get(pw, &x->a, l) : lane_get(pw, &x->b, l)); });
        return;
    }
    case PTXOP_SLCT:
        LANES(m, {
            bool ge = x->type2 == PT_F32 ? as_double(pw, &x->c, PT_F32, l) >= 0
                                          : (int32_t)lane_get(pw, &x->c, l) >= 0;
            lane_set(pw, &x->d, l, ge ? lane_get(pw, &x->a, l) : lane_get(pw, &x->b, l));
        });
        return;
    case PTXOP_TESTP: {
        uint32_t res = 0;
        LANES(m, { if (testp(as_double(pw, &x->a, x->type, l), x->mode, x->type == PT_F32)) res |= 1u << l; });
        pred_write(pw, &x->d, m, res);
        return;
    }
    default:
        break;
    }
    if (k == K_PRED)
        exec_pred_logic(pw, x, m);
    else if (k == K_F32 || k == K_F64 || k == K_F16)
        float_op(pw, x, m, k);
    else
        int_op(pw, x, m, k);
}

/* A half-precision atomic (atom/red .add.noftz, .min, .max on .f16,
 * .bf16 and the packed pairs): each half rounded to nearest even. */
static uint64_t
atom_half(unsigned op, unsigned t, uint64_t old, uint64_t b)
{
    unsigned fmt = t == PT_BF16 || t == PT_BF16X2 ? PTX_HBF16 : PTX_HF16;
    unsigned halves = t == PT_F16X2 || t == PT_BF16X2 ? 2 : 1;
    uint64_t r = 0;
    for (unsigned h = 0; h < halves; h++) {
        uint16_t ho = (uint16_t)(old >> (16 * h)), hb = (uint16_t)(b >> (16 * h));
        double x = ptx_half_value(ho, fmt), y = ptx_half_value(hb, fmt);
        uint16_t v = op == PA_ADD ? ptx_half_round(x + y, fmt, PR_RN) :
                     op == PA_MIN ? (y < x || isnan(x) ? hb : ho) :
                     op == PA_MAX ? (y > x || isnan(x) ? hb : ho) : hb;   /* exch */
        r |= (uint64_t)v << (16 * h);
    }
    return r;
}

uint64_t
ptx_atom_apply(unsigned op, unsigned t, uint64_t old, uint64_t b, uint64_t c)
{
    if (ptx_type_is_half(t) && op != PA_CAS)
        return atom_half(op, t, old, b);
    bool sgn = ptx_type_is_signed(t);
    unsigned bytes = ptx_type_bytes(t);
    uint64_t mask = bytes == 8 ? UINT64_MAX : (UINT64_C(1) << (bytes * 8)) - 1;
    old = lane_extend(old & mask, t);
    b = lane_extend(b, t);
    switch (op) {
    case PA_ADD:
        if (t == PT_F32) {
            float x, y;
            uint32_t u = (uint32_t)old, v = (uint32_t)b;
            memcpy(&x, &u, 4);
            memcpy(&y, &v, 4);
            x += y;
            memcpy(&u, &x, 4);
            return u;
        }
        if (t == PT_F64) {
            double x, y;
            memcpy(&x, &old, 8);
            memcpy(&y, &b, 8);
            x += y;
            memcpy(&old, &x, 8);
            return old;
        }
        return (old + b) & mask;
    case PA_MIN:
        return (sgn ? (int64_t)old < (int64_t)b : old < b) ? old : b;
    case PA_MAX:
        return (sgn ? (int64_t)old > (int64_t)b : old > b) ? old : b;
    case PA_INC:
        return old >= b ? 0 : old + 1;
    case PA_DEC:
        return (old == 0 || old > b) ? b : old - 1;
    case PA_AND: return old & b;
    case PA_OR: return old | b;
    case PA_XOR: return old ^ b;
    case PA_EXCH: return b;
    case PA_CAS: return old == b ? c : old;
    default: return old;
    }
}

void
ptx_reduce_bytes(unsigned op, unsigned t, uint8_t *dst, const uint8_t *src, uint64_t n)
{
    unsigned eb = ptx_type_bytes(t);
    for (uint64_t o = 0; o + eb <= n; o += eb) {
        uint64_t d = 0, v = 0;
        memcpy(&d, dst + o, eb);  /* little-endian hosts only (as the rest) */
        memcpy(&v, src + o, eb);
        d = ptx_atom_apply(op, t, d, v, 0);
        memcpy(dst + o, &d, eb);
    }
}
