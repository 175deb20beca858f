/*
 * ptx_half.c - half-precision arithmetic, comparisons and conversions of
 * the PTX frontend (see ptx_half.h; PTX ISA 9.1, sections 9.7.4 "Half
 * Precision Floating-Point Instructions", 9.7.3 setp/set and 9.7.9.21 cvt).
 *
 * Exactness: a half (11 significant bits for f16, 8 for bf16) is a double
 * exactly; so is the product of two.  A sum (add, sub, the addend of fma)
 * is computed in double rounded to odd (the round-to-nearest sum, its
 * exact error from TwoSum, and the sticky bit folded into the last place),
 * which with 53 >= 11 + 2 bits makes the final rounding to the 16-bit
 * format the same as rounding the exact sum once (Boldo and Melquiond,
 * "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd", IEEE TC 2008).  The final rounding works on the bits
 * (round_bits): any rounding mode, subnormals, overflow.
 */
#include "frontend/exec/ptx_half.h"

#include <math.h>
#include <string.h>

#include "frontend/exec/ptx_lanes.h"

/* half <-> float (IEEE binary16, round to nearest even) */
float
ptx_half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, f;
    if (e == 0) {
        if (m == 0) {
            f = s;
        } else {
            e = 127 - 15 + 1;
            while (!(m & 0x400)) {
                m <<= 1;
                e--;
            }
            f = s | (e << 23) | ((m & 0x3ff) << 13);
        }
    } else if (e == 31) {
        f = s | 0x7f800000 | (m << 13);
    } else {
        f = s | ((e + 127 - 15) << 23) | (m << 13);
    }
    float x;
    memcpy(&x, &f, 4);
    return x;
}

uint16_t
ptx_half_from_float(float x)
{
    uint32_t f;
    memcpy(&f, &x, 4);
    uint32_t s = (f >> 16) & 0x8000, e = (f >> 23) & 0xff, m = f & 0x7fffff;
    if (e == 0xff)
        return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
    int ne = (int)e - 127 + 15;
    if (ne >= 31)
        return (uint16_t)(s | 0x7c00);
    if (ne <= 0) {
        if (ne < -10)
            return (uint16_t)s;
        m |= 0x800000;
        uint32_t shift = (uint32_t)(14 - ne);
        uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (hm & 1)))
            hm++;
        return (uint16_t)(s | hm);
    }
    uint32_t hm = m >> 13, rem = m & 0x1fff;
    uint32_t h = s | ((uint32_t)ne << 10) | hm;
    if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
        h++;
    return (uint16_t)h;
}

/* The formats: mantissa bits, exponent field mask, bias, 1.0, the largest
 * finite value. */
static const struct hfmt {
    unsigned mbits;
    unsigned emask;
    int bias;
    uint16_t one, maxfin;
} fmts[4] = {
    [PTX_HF16] = { 10, 0x1f, 15, 0x3c00, 0x7bff },
    [PTX_HBF16] = { 7, 0xff, 127, 0x3f80, 0x7f7f },
    [PTX_HE4M3] = { 3, 0x1f, 7, 0x38, 0x7e },        /* 448 = 1.75 x 2^8 */
    [PTX_HE5M2] = { 2, 0x1f, 15, 0x3c, 0x7b },       /* 57344 = 1.75 x 2^15 */
};

#define CANON_NAN 0x7fffu
#define SIGN 0x8000u

static unsigned
fmt_of(unsigned t)
{
    return t == PT_BF16 || t == PT_BF16X2 ? PTX_HBF16 : PTX_HF16;
}

static bool
packed(unsigned t)
{
    return t == PT_F16X2 || t == PT_BF16X2;
}

static unsigned
exp_field(uint16_t h, unsigned fmt)
{
    return (h >> fmts[fmt].mbits) & fmts[fmt].emask;
}

static bool
is_nan(uint16_t h, unsigned fmt)
{
    return exp_field(h, fmt) == fmts[fmt].emask && (h & ((1u << fmts[fmt].mbits) - 1)) != 0;
}

static bool
is_subnormal(uint16_t h, unsigned fmt)
{
    return exp_field(h, fmt) == 0 && (h & ((1u << fmts[fmt].mbits) - 1)) != 0;
}

/* .ftz: a subnormal becomes zero of its sign. */
static uint16_t
flush(uint16_t h, unsigned fmt, bool ftz)
{
    return ftz && is_subnormal(h, fmt) ? (uint16_t)(h & SIGN) : h;
}

double
ptx_half_value(uint16_t h, unsigned fmt)
{
    if (fmt == PTX_HBF16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return ptx_half_to_float(h);
}

/* (-1)^neg x mant x 2^exp rounded to fmt in mode rnd. */
static uint16_t
round_bits(bool neg, uint64_t mant, int exp, unsigned fmt, unsigned rnd)
{
    const struct hfmt *F = &fmts[fmt];
    uint16_t sign = neg ? SIGN : 0;
    if (mant == 0)
        return sign;
    int e = exp + 63 - __builtin_clzll(mant);          /* the value is in [2^e, 2^(e+1)) */
    int emin = 1 - F->bias;
    int q = (e > emin ? e : emin) - (int)F->mbits;      /* the last place of the result */
    int shift = q - exp;
    uint64_t r;
    if (shift <= 0) {
        r = mant << -shift;                             /* exact: at most mbits + 1 bits */
    } else {
        int cmp;                                        /* the dropped bits against half a place */
        bool inexact;
        if (shift > 64) {
            r = 0;
            inexact = true;
            cmp = -1;
        } else {
            uint64_t rem = shift == 64 ? mant : mant & ((UINT64_C(1) << shift) - 1);
            uint64_t half = UINT64_C(1) << (shift - 1);
            r = shift == 64 ? 0 : mant >> shift;
            inexact = rem != 0;
            cmp = rem < half ? -1 : rem > half;
        }
        bool up;
        switch (rnd) {
        case PR_RZ: up = false; break;
        case PR_RM: up = neg && inexact; break;
        case PR_RP: up = !neg && inexact; break;
        default: up = cmp > 0 || (cmp == 0 && (r & 1)); break;
        }
        r += up;
    }
    if (r < (UINT64_C(1) << F->mbits))
        return (uint16_t)(sign | r);                    /* zero or subnormal */
    if (r >> (F->mbits + 1)) {                          /* rounded up into the next binade */
        r >>= 1;
        q++;
    }
    int biased = q + (int)F->mbits + F->bias;
    if (biased >= (int)F->emask) {
        bool to_max = rnd == PR_RZ || (rnd == PR_RM && !neg) || (rnd == PR_RP && neg);
        return (uint16_t)(sign | (to_max ? F->maxfin : F->emask << F->mbits));
    }
    return (uint16_t)(sign | (unsigned)biased << F->mbits | (r & ((1u << F->mbits) - 1)));
}

uint16_t
ptx_half_round(double v, unsigned fmt, unsigned rnd)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    bool neg = (u >> 63) != 0;
    unsigned e = (unsigned)(u >> 52) & 0x7ff;
    uint64_t f = u & ((UINT64_C(1) << 52) - 1);
    if (e == 0x7ff)
        return f != 0 ? CANON_NAN
                      : (uint16_t)((neg ? SIGN : 0) | fmts[fmt].emask << fmts[fmt].mbits);
    if (e == 0)
        return round_bits(neg, f, -1074, fmt, rnd);
    return round_bits(neg, f | UINT64_C(1) << 52, (int)e - 1075, fmt, rnd);
}

/* x + y rounded to odd: exact when the sum fits in a double, else the
 * truncated sum with its last bit set. */
static double
sum_odd(double x, double y)
{
    volatile double s = x + y;
    if (!isfinite(s))
        return s;
    double bp = s - x;
    double err = (x - (s - bp)) + (y - bp);             /* x + y = s + err exactly (TwoSum) */
    if (err == 0)
        return s;
    uint64_t u;
    double r = s;
    memcpy(&u, &r, 8);
    if ((err < 0) != (r < 0))
        u--;                                            /* one place toward zero: the truncation */
    u |= 1;
    memcpy(&r, &u, 8);
    return r;
}

/* ---- arithmetic ---------------------------------------------------------- */

/* Clamp a rounded result as .sat and .relu say. */
static uint16_t
saturate(uint16_t h, unsigned fmt, uint32_t flags)
{
    if (flags & PF_SAT) {
        if (is_nan(h, fmt) || (h & SIGN))
            return 0;
        return h > fmts[fmt].one ? fmts[fmt].one : h;
    }
    if ((flags & PF_RELU) && !is_nan(h, fmt) && (h & SIGN))
        return 0;
    return h;
}

static uint16_t
minmax(const struct xop *x, unsigned fmt, uint16_t a, uint16_t b)
{
    bool is_min = x->op == PTXOP_MIN, xs = (x->flags & PF_XORSIGN) != 0;
    uint16_t sign = (uint16_t)((a ^ b) & SIGN), d;
    if (xs) {
        a &= 0x7fff;
        b &= 0x7fff;
    }
    bool na = is_nan(a, fmt), nb = is_nan(b, fmt);
    if ((na && nb) || ((x->flags & PF_NAN) && (na || nb)))
        return CANON_NAN;
    if (na) {
        d = b;
    } else if (nb) {
        d = a;
    } else {
        double va = ptx_half_value(a, fmt), vb = ptx_half_value(b, fmt);
        if (va == vb)                                   /* equal, or zeros: +0 > -0 */
            d = (a & SIGN) == is_min * SIGN ? a : b;
        else
            d = (va < vb) == is_min ? a : b;
    }
    return xs ? (uint16_t)((d & 0x7fff) | sign) : d;
}

/* One 16-bit operation of x on a, b, c. */
static uint16_t
arith1(const struct xop *x, unsigned fmt, uint16_t a, uint16_t b, uint16_t c)
{
    bool ftz = (x->flags & PF_FTZ) && fmt == PTX_HF16;
    a = flush(a, fmt, ftz);
    b = flush(b, fmt, ftz);
    c = flush(c, fmt, ftz);
    double r;
    switch (x->op) {
    case PTXOP_NEG:
        return is_nan(a, fmt) ? CANON_NAN : (uint16_t)(a ^ SIGN);
    case PTXOP_ABS:
        return is_nan(a, fmt) ? CANON_NAN : (uint16_t)(a & 0x7fff);
    case PTXOP_MIN: case PTXOP_MAX:
        return minmax(x, fmt, a, b);
    case PTXOP_EX2: case PTXOP_TANH: {
        /* .approx, as a scalar .f16 is computed (ptx_alu.c): the FP32
         * function of the value, rounded to nearest; .ftz on .bf16 too */
        bool fz = (x->flags & PF_FTZ) != 0;
        float v = (float)ptx_half_value(flush(a, fmt, fz), fmt);
        r = x->op == PTXOP_EX2 ? exp2f(v) : tanhf(v);
        return flush(ptx_half_round(r, fmt, PR_RN), fmt, fz);
    }
    case PTXOP_ADD:
        r = sum_odd(ptx_half_value(a, fmt), ptx_half_value(b, fmt));
        break;
    case PTXOP_SUB:
        r = sum_odd(ptx_half_value(a, fmt), -ptx_half_value(b, fmt));
        break;
    case PTXOP_MUL:
        r = ptx_half_value(a, fmt) * ptx_half_value(b, fmt);     /* exact */
        break;
    default:                                                     /* fma */
        r = sum_odd(ptx_half_value(a, fmt) * ptx_half_value(b, fmt), ptx_half_value(c, fmt));
        break;
    }
    uint16_t h = flush(ptx_half_round(r, fmt, PR_RN), fmt, ftz);
    return saturate(h, fmt, x->flags);
}

static void
exec_arith(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    unsigned fmt = fmt_of(x->type), n = packed(x->type) ? 2 : 1;
    LANES(m, {
        uint32_t a = (uint32_t)lane_get(pw, &x->a, l);
        uint32_t b = x->b.cls ? (uint32_t)lane_get(pw, &x->b, l) : 0;
        uint32_t c = x->c.cls ? (uint32_t)lane_get(pw, &x->c, l) : 0;
        uint32_t out = 0;
        for (unsigned h = 0; h < n; h++)
            out |= (uint32_t)arith1(x, fmt, (uint16_t)(a >> 16 * h), (uint16_t)(b >> 16 * h),
                                    (uint16_t)(c >> 16 * h)) << 16 * h;
        lane_set(pw, &x->d, l, out);
    });
}

/* ---- comparisons ------------------------------------------------------- */

/* Bit h of the result: half h of a compared with half h of b, per lane of
 * m (type t), combined with the predicate c by BoolOp when there is one;
 * res[h] collects the lanes where it holds. */
static void
compare(struct pwarp *pw, const struct xop *x, unsigned t, uint32_t m, uint32_t res[2])
{
    unsigned fmt = fmt_of(t), n = packed(t) ? 2 : 1;
    bool ftz = (x->flags & PF_FTZ) && fmt == PTX_HF16;
    res[0] = res[1] = 0;
    LANES(m, {
        uint32_t a = (uint32_t)lane_get(pw, &x->a, l), b = (uint32_t)lane_get(pw, &x->b, l);
        for (unsigned h = 0; h < n; h++) {
            double va = ptx_half_value(flush((uint16_t)(a >> 16 * h), fmt, ftz), fmt);
            double vb = ptx_half_value(flush((uint16_t)(b >> 16 * h), fmt, ftz), fmt);
            if (ptx_cmp_float(va, vb, x->cmp))
                res[h] |= 1u << l;
        }
    });
    if (x->c.cls == SC_PRED) {
        uint32_t c = pred_src(pw, x, &x->c, 2);
        res[0] = ptx_bool_combine(res[0], c, x->mode);
        res[1] = ptx_bool_combine(res[1], c, x->mode);
    }
}

/* setp: p = BoolOp(t[0], c), q = BoolOp(t[1], c) (the high halves). */
static void
exec_setp(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    uint32_t res[2];
    compare(pw, x, x->type, m, res);
    pred_write(pw, &x->d, m, res[0]);
    if (packed(x->type))
        pred_write(pw, &x->d2, m, res[1]);
}

/* The value set writes for true into a destination of type t (a 16-bit
 * half of it for a packed source). */
static uint32_t
true_value(unsigned t, bool half)
{
    switch (t) {
    case PT_F16: case PT_F16X2: return 0x3c00;
    case PT_BF16: case PT_BF16X2: return 0x3f80;
    case PT_F32: return 0x3f800000;
    case PT_U16: case PT_S16: case PT_B16: return 0xffff;
    default: return half ? 0xffff : 0xffffffffu;
    }
}

/* set with a half-precision source type (x->type2). */
static void
exec_set(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    uint32_t res[2];
    compare(pw, x, x->type2, m, res);
    bool two = packed(x->type2);
    uint32_t tv = true_value(x->type, two);
    LANES(m, {
        uint32_t v = ((res[0] >> l) & 1) ? tv : 0;
        if (two && ((res[1] >> l) & 1))
            v |= tv << 16;
        lane_set(pw, &x->d, l, v);
    });
}

/* ---- conversions --------------------------------------------------------- */

static double
round_integral(double v, unsigned rnd)
{
    switch (rnd) {
    case PR_RZI: return trunc(v);
    case PR_RMI: return floor(v);
    case PR_RPI: return ceil(v);
    default: return nearbyint(v);
    }
}

/* Source s (type st) of lane l converted to format fmt as x says. */
static uint16_t
cvt1(const struct pwarp *pw, const struct xop *x, const struct slot *s, unsigned st,
     unsigned fmt, unsigned l)
{
    uint64_t bits = lane_get(pw, s, l);
    unsigned rnd = x->rnd >= PR_RNI ? PR_RN : x->rnd;
    uint16_t h;
    if (ptx_type_is_float(st)) {
        double v;
        if (st == PT_F64) {
            memcpy(&v, &bits, 8);
        } else if (st == PT_F32) {
            uint32_t u = (uint32_t)bits;
            if ((x->flags & PF_FTZ) && (u & 0x7f800000u) == 0)
                u &= 0x80000000u;                         /* .ftz: a subnormal f32 input */
            float f;
            memcpy(&f, &u, 4);
            v = f;
        } else {
            v = ptx_half_value((uint16_t)bits, fmt_of(st));
        }
        if (x->rnd >= PR_RNI && isfinite(v))
            v = round_integral(v, x->rnd);
        h = ptx_half_round(v, fmt, rnd);
    } else {
        uint64_t v = lane_extend(bits, st);
        bool neg = ptx_type_is_signed(st) && (int64_t)v < 0;
        h = round_bits(neg, neg ? 0 - v : v, 0, fmt, rnd);
    }
    if ((x->flags & PF_SATFINITE) && !is_nan(h, fmt) && exp_field(h, fmt) == fmts[fmt].emask)
        h = (uint16_t)((h & SIGN) | fmts[fmt].maxfin);
    return saturate(h, fmt, x->flags);
}

/* ---- FP8 pairs (PTX ISA 9.7.9.21: cvt.rn.satfinite{.relu}.e4m3x2/.e5m2x2
 * from two .f32 or one .f16x2, cvt.rn{.relu}.f16x2 from them) ---------- */

#define F8_NAN 0x7fu             /* the NaN the conversions give (E4M3's only, E5M2's canonical) */

/* The value of FP8 byte b of format fmt (exact). */
static double
f8_value(uint8_t b, unsigned fmt)
{
    unsigned mb = fmts[fmt].mbits, e = (b & 0x7fu) >> mb, mm = b & ((1u << mb) - 1);
    unsigned emax = fmt == PTX_HE4M3 ? 15 : 31;
    double v;
    if (e == emax && (fmt == PTX_HE5M2 || mm == (1u << mb) - 1))
        v = fmt == PTX_HE5M2 && mm == 0 ? INFINITY : NAN;
    else if (e == 0)
        v = ldexp((double)mm, 1 - fmts[fmt].bias - (int)mb);
    else
        v = ldexp((double)(mm | 1u << mb), (int)e - fmts[fmt].bias - (int)mb);
    return (b & 0x80u) ? -v : v;
}

double
ptx_half_f8_value(uint8_t b, unsigned fmt)
{
    return f8_value(b, fmt);
}

/* v rounded to nearest even in FP8 format fmt, saturated to the largest
 * finite value (.satfinite), negatives to zero with .relu; NaN stays NaN. */
static uint8_t
f8_round(double v, unsigned fmt, bool relu)
{
    if (isnan(v))
        return F8_NAN;
    if (relu && v < 0)
        return 0;
    uint16_t h = ptx_half_round(v, fmt, PR_RN);
    if ((h & 0x7fffu) > fmts[fmt].maxfin)             /* overflow (E5M2: infinity) */
        h = (uint16_t)((h & SIGN) | fmts[fmt].maxfin);
    return (uint8_t)((h & SIGN ? 0x80u : 0) | (h & 0x7fu));
}

static void
exec_cvt_f8(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    bool relu = (x->flags & PF_RELU) != 0;
    if (x->type2 == PT_E4M3X2 || x->type2 == PT_E5M2X2) {   /* to .f16x2 (exact) */
        unsigned f8 = x->type2 == PT_E4M3X2 ? PTX_HE4M3 : PTX_HE5M2;
        LANES(m, {
            uint32_t a = (uint32_t)lane_get(pw, &x->a, l), d = 0;
            for (unsigned k = 0; k < 2; k++) {
                double v = f8_value((uint8_t)(a >> (8 * k)), f8);
                uint16_t h = isnan(v) ? CANON_NAN
                             : relu && v < 0 ? 0 : ptx_half_round(v, PTX_HF16, PR_RN);
                d |= (uint32_t)h << (16 * k);
            }
            lane_set(pw, &x->d, l, d);
        });
        return;
    }
    unsigned f8 = x->type == PT_E4M3X2 ? PTX_HE4M3 : PTX_HE5M2;
    LANES(m, {
        double hi, lo;
        if (x->type2 == PT_F16X2) {
            uint32_t a = (uint32_t)lane_get(pw, &x->a, l);
            hi = ptx_half_value((uint16_t)(a >> 16), PTX_HF16);
            lo = ptx_half_value((uint16_t)a, PTX_HF16);
        } else {                 /* two .f32: a to the high byte */
            uint32_t ua = (uint32_t)lane_get(pw, &x->a, l), ub = (uint32_t)lane_get(pw, &x->b, l);
            float fa, fb;
            memcpy(&fa, &ua, 4);
            memcpy(&fb, &ub, 4);
            hi = fa;
            lo = fb;
        }
        lane_set(pw, &x->d, l, (uint32_t)f8_round(hi, f8, relu) << 8 | f8_round(lo, f8, relu));
    });
}

/* cvt to .f16/.bf16 (d = cvt(a)) or .f16x2/.bf16x2 (d = {cvt(b), cvt(a)}:
 * a in the high half). */
static void
exec_cvt(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    if (x->type == PT_E4M3X2 || x->type == PT_E5M2X2 || x->type2 == PT_E4M3X2 ||
        x->type2 == PT_E5M2X2) {
        exec_cvt_f8(pw, x, m);
        return;
    }
    unsigned fmt = fmt_of(x->type);
    if (packed(x->type))
        LANES(m, {
            uint32_t hi = cvt1(pw, x, &x->a, x->type2, fmt, l);
            uint32_t lo = cvt1(pw, x, &x->b, x->type2, fmt, l);
            lane_set(pw, &x->d, l, hi << 16 | lo);
        });
    else
        LANES(m, { lane_set(pw, &x->d, l, cvt1(pw, x, &x->a, x->type2, fmt, l)); });
}

/* ---- dispatch ------------------------------------------------------------ */

bool
ptx_half_handles(const struct xop *x)
{
    switch (x->op) {
    case PTXOP_ADD: case PTXOP_SUB: case PTXOP_MUL: case PTXOP_FMA: case PTXOP_NEG:
    case PTXOP_ABS: case PTXOP_MIN: case PTXOP_MAX: case PTXOP_SETP:
        return ptx_type_is_half(x->type);
    case PTXOP_CVT:
        return ptx_type_is_half(x->type) || x->type == PT_E4M3X2 || x->type == PT_E5M2X2;
    case PTXOP_EX2: case PTXOP_TANH:    /* a scalar .f16 is ptx_alu.c's */
        return ptx_type_is_half(x->type) && x->type != PT_F16;
    case PTXOP_SET:
        return ptx_type_is_half(x->type2);
    default:
        return false;
    }
}

void
ptx_half_exec(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    switch (x->op) {
    case PTXOP_SETP: exec_setp(pw, x, m); return;
    case PTXOP_SET: exec_set(pw, x, m); return;
    case PTXOP_CVT: exec_cvt(pw, x, m); return;
    default: exec_arith(pw, x, m); return;
    }
}
