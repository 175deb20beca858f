/*
 * ptx_mma.c - mma.sync, wmma and ldmatrix fragments (see ptx_mma.h).
 */
#include "frontend/exec/ptx_mma.h"
#include "frontend/exec/ptx_half.h"

#include <limits.h>
#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "frontend/exec/ptx_lanes.h"

/* ORDER SHAPE (enum ptx_shape) */
static const uint8_t dims[SH_COUNT][3] = {
    { 0, 0, 0 }, { 16, 8, 4 }, { 16, 8, 8 }, { 16, 8, 16 }, { 16, 8, 32 }, { 16, 16, 16 },
    { 32, 8, 16 }, { 8, 32, 16 }, { 16, 16, 8 }, { 8, 8, 0 }, { 8, 8, 4 },
};

bool
ptx_mma_shape_dims(unsigned shape, uint8_t *m, uint8_t *n, uint8_t *k)
{
    if (shape == SH_NONE || shape >= SH_COUNT)
        return false;
    *m = dims[shape][0];
    *n = dims[shape][1];
    *k = dims[shape][2];
    return true;
}

void
ptx_mma_desc_of(const struct xop *x, struct ptx_mma_desc *d)
{
    memset(d, 0, sizeof *d);
    d->wmma = x->kind != XK_MMA;
    ptx_mma_shape_dims(x->shape, &d->m, &d->n, &d->k);
    d->dtype = x->type;
    d->atype = x->type2;
    d->btype = x->btype;
    d->ctype = x->ctype;
    d->satfinite = (x->flags & PF_SATFINITE) != 0;
}

static bool
is_int8(unsigned t)
{
    return t == PT_S8 || t == PT_U8;
}

static bool
is_half(unsigned t)
{
    return t == PT_F16 || t == PT_BF16;
}

/* Elements of type t a 32-bit register holds. */
static unsigned
per_reg(unsigned t)
{
    return is_int8(t) ? 4 : is_half(t) ? 2 : 1;
}

unsigned
ptx_mma_esize(unsigned t)
{
    return is_int8(t) ? 1 : is_half(t) ? 2 : t == PT_F64 ? 8 : 4;
}

/* The K of one tensor-core tile for input type t (wmma). */
static unsigned
tile_k(unsigned t)
{
    return t == PT_TF32 ? 8 : t == PT_F64 ? 4 : 16;
}

bool
ptx_mma_supported(const struct ptx_mma_desc *d, const char **why)
{
    unsigned a = d->atype, b = d->btype, c = d->ctype, dt = d->dtype;
    bool ok;
    bool f64 = a == PT_F64 && b == PT_F64 && c == PT_F64 && dt == PT_F64 && !d->satfinite;
    if (!d->wmma) {
        *why = "mma.sync.aligned .row.col: m16n8k4 / m16n8k8 .f32.tf32.tf32.f32; m16n8k8 / "
               "m16n8k16 .f16 (f32 or f16 C and D) and .f32.bf16.bf16.f32; m16n8k16 / m16n8k32 "
               ".s32.{s8,u8}.{s8,u8}.s32; m8n8k4 and m16n8k4 / m16n8k8 / m16n8k16 .f64";
        if (a == PT_F64)
            return f64 && ((d->m == 8 && d->n == 8 && d->k == 4) ||
                           (d->m == 16 && d->n == 8 && (d->k == 4 || d->k == 8 || d->k == 16)));
        if (d->m != 16 || d->n != 8)
            return false;
        if (a == PT_TF32)
            ok = b == PT_TF32 && (d->k == 4 || d->k == 8) && c == PT_F32 && dt == PT_F32;
        else if (a == PT_F16)
            ok = b == PT_F16 && (d->k == 8 || d->k == 16) && (c == PT_F32 || c == PT_F16) &&
                 (dt == PT_F32 || dt == PT_F16);
        else if (a == PT_BF16)
            ok = b == PT_BF16 && (d->k == 8 || d->k == 16) && c == PT_F32 && dt == PT_F32;
        else if (is_int8(a))
            ok = is_int8(b) && (d->k == 16 || d->k == 32) && c == PT_S32 && dt == PT_S32;
        else
            ok = false;
        return ok && (!d->satfinite || dt == PT_S32);
    }
    *why = "wmma .m16n16k16 / .m32n8k16 / .m8n32k16 with .f16 (f32 or f16 C and D), .bf16 "
           "(f32) or .s8/.u8 (s32) inputs; .m16n16k8 with .tf32 (f32); .m8n8k4 with .f64";
    if (a == PT_F64)
        return f64 && d->m == 8 && d->n == 8 && d->k == 4;
    bool big = d->m * d->n == 256 && d->k == 16 &&
               ((d->m == 16 && d->n == 16) || (d->m == 32 && d->n == 8) || (d->m == 8 && d->n == 32));
    if (a == PT_F16)
        ok = big && b == PT_F16 && (c == PT_F32 || c == PT_F16) && (dt == PT_F32 || dt == PT_F16);
    else if (a == PT_BF16)
        ok = big && b == PT_BF16 && c == PT_F32 && dt == PT_F32;
    else if (is_int8(a))
        ok = big && is_int8(b) && c == PT_S32 && dt == PT_S32;
    else if (a == PT_TF32)
        ok = d->m == 16 && d->n == 16 && d->k == 8 && b == PT_TF32 && c == PT_F32 && dt == PT_F32;
    else
        ok = false;
    return ok && (!d->satfinite || dt == PT_S32);
}

unsigned
ptx_mma_frag_type(const struct ptx_mma_desc *d, unsigned f)
{
    return f == 'a' ? d->atype : f == 'b' ? d->btype : f == 'c' ? d->ctype : d->dtype;
}

/* Tiles of a fragment: rows of tiles (M / 16, at least 1), columns of
 * tiles (N / 8), K of a tile. */
static void
tiles(const struct ptx_mma_desc *d, unsigned *mt, unsigned *nt, unsigned *kt)
{
    *mt = d->m >= 16 ? d->m / 16u : 1;
    *nt = d->n / 8u;
    *kt = d->wmma ? tile_k(d->atype) : d->k;
}

/* Append the elements of one tile's registers of fragment f to out:
 * tile (tm, tn, tk) at row offset r0 and column offset c0 in its matrix;
 * registers numbered from *reg. */
static unsigned
tile_elems(const struct ptx_mma_desc *d, unsigned f, unsigned lane, unsigned r0, unsigned c0,
           bool half_m, unsigned K, unsigned *reg, struct ptx_frag_elem *out)
{
    unsigned g = lane >> 2, t = lane & 3, n = 0;
    unsigned ty = ptx_mma_frag_type(d, f);
    if (f == 'a' || f == 'b') {
        unsigned e = per_reg(ty), blocks = K / (4 * e);
        unsigned regs = f == 'a' ? 2 * blocks : blocks;
        for (unsigned r = 0; r < regs; r++) {
            if (f == 'a' && half_m && (r & 1))
                continue;        /* M = 8: the tile's rows g + 8 do not exist */
            for (unsigned i = 0; i < e; i++) {
                unsigned row, col;
                if (f == 'a') {
                    row = g + 8 * (r & 1);
                    col = e * t + 4 * e * (r >> 1) + i;
                } else {
                    row = e * t + 4 * e * r + i;
                    col = g;
                }
                out[n++] = (struct ptx_frag_elem){ (uint8_t)(r0 + row), (uint8_t)(c0 + col),
                                                   (uint8_t)*reg, (uint8_t)i };
            }
            (*reg)++;
        }
        return n;
    }
    if (ty == PT_F16) {          /* two halves a register: row g + 8 r */
        for (unsigned r = 0; r < (half_m ? 1u : 2u); r++) {
            for (unsigned i = 0; i < 2; i++)
                out[n++] = (struct ptx_frag_elem){ (uint8_t)(r0 + g + 8 * r),
                                                   (uint8_t)(c0 + 2 * t + i), (uint8_t)*reg,
                                                   (uint8_t)i };
            (*reg)++;
        }
        return n;
    }
    for (unsigned r = 0; r < (half_m ? 2u : 4u); r++) {
        out[n++] = (struct ptx_frag_elem){ (uint8_t)(r0 + g + 8 * (r >> 1)),
                                           (uint8_t)(c0 + 2 * t + (r & 1)), (uint8_t)*reg, 0 };
        (*reg)++;
    }
    return n;
}

unsigned
ptx_mma_frag(const struct ptx_mma_desc *d, unsigned f, unsigned lane, struct ptx_frag_elem *out)
{
    unsigned mt, nt, kt, n = 0, reg = 0;
    tiles(d, &mt, &nt, &kt);
    bool half_m = d->m < 16;
    if (f == 'a') {
        for (unsigned i = 0; i < mt; i++)
            n += tile_elems(d, f, lane, 16 * i, 0, half_m, kt, &reg, out + n);
    } else if (f == 'b') {
        for (unsigned j = 0; j < nt; j++)
            n += tile_elems(d, f, lane, 0, 8 * j, half_m, kt, &reg, out + n);
    } else {
        for (unsigned i = 0; i < mt; i++)
            for (unsigned j = 0; j < nt; j++)
                n += tile_elems(d, f, lane, 16 * i, 8 * j, half_m, kt, &reg, out + n);
    }
    return n;
}

void
ptx_mma_frag_shift(const struct ptx_mma_desc *d, unsigned f, unsigned lane, unsigned *dr,
                   unsigned *dc)
{
    /* tile_elems: every element's row and column is lane 0's plus these */
    unsigned g = lane >> 2, t = lane & 3;
    unsigned e = per_reg(ptx_mma_frag_type(d, f));
    if (f == 'a') {
        *dr = g;
        *dc = e * t;
    } else if (f == 'b') {
        *dr = e * t;
        *dc = g;
    } else {
        *dr = g;
        *dc = 2 * t;
    }
}

unsigned
ptx_mma_frag_regs(const struct ptx_mma_desc *d, unsigned f, unsigned *distinct)
{
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    unsigned n = ptx_mma_frag(d, f, 0, el);
    unsigned regs = n ? el[n - 1].reg + 1u : 0;
    *distinct = regs;
    /* wmma .f16 A and B: always 8 registers (PTX ISA, wmma fragments) */
    if (d->wmma && (f == 'a' || f == 'b') && ptx_mma_frag_type(d, f) == PT_F16)
        return 8;
    return regs;
}

unsigned
ptx_mma_tiles(const struct ptx_mma_desc *d)
{
    unsigned mt, nt, kt;
    tiles(d, &mt, &nt, &kt);
    return mt * nt;
}

void
ptx_mma_tile_regs(const struct ptx_mma_desc *d, unsigned i, uint8_t *a, unsigned *na, uint8_t *b,
                  unsigned *nb, uint8_t *c, unsigned *nc)
{
    unsigned mt, nt, kt;
    tiles(d, &mt, &nt, &kt);
    unsigned ti = i / nt, tj = i % nt;
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    /* a tile's registers are consecutive: find them by its element rows
     * and columns in lane 0's list (every lane has the same numbering) */
    unsigned n = ptx_mma_frag(d, 'a', 0, el);
    *na = 0;
    for (unsigned k = 0; k < n; k++)
        if (el[k].row / 16u == ti && (*na == 0 || a[*na - 1] != el[k].reg))
            a[(*na)++] = el[k].reg;
    n = ptx_mma_frag(d, 'b', 0, el);
    *nb = 0;
    for (unsigned k = 0; k < n; k++)
        if (el[k].col / 8u == tj && (*nb == 0 || b[*nb - 1] != el[k].reg))
            b[(*nb)++] = el[k].reg;
    n = ptx_mma_frag(d, 'c', 0, el);
    *nc = 0;
    for (unsigned k = 0; k < n; k++)
        if (el[k].row / 16u == ti && el[k].col / 8u == tj && (*nc == 0 || c[*nc - 1] != el[k].reg))
            c[(*nc)++] = el[k].reg;
}

/* ---- execution ------------------------------------------------------------ */

/* |m| x 2^g, with the sign neg, truncated to an FP32 (round toward zero;
 * beyond the largest finite an infinity: not measured). */
static inline float
round_f32_rz(uint64_t m, int g, bool neg)
{
    if (m == 0)
        return 0.0f;
    int msb = 63 - __builtin_clzll(m), e = g + msb;
    if (e > 127)
        return neg ? -INFINITY : INFINITY;
    int keep = e >= -126 ? 24 : 24 - (-126 - e);    /* subnormal: fewer bits */
    if (keep <= 0)
        return neg ? -0.0f : 0.0f;
    int sh = msb + 1 - keep;
    uint64_t q = sh > 0 ? m >> sh : m << -sh;
    /* the bits: a normal q in [2^23, 2^24) at exponent e; a subnormal q <
     * 2^23 at 2^-149 (g + sh = -149 then) */
    uint32_t u = keep == 24 ? (uint32_t)(e + 127) << 23 | ((uint32_t)q & 0x7fffffu)
                            : (uint32_t)q;
    u |= neg ? 0x80000000u : 0;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* |m| x 2^g, with the sign neg, rounded to the nearest FP16 (ties to
 * even; subnormals in steps of 2^-24), as a float. */
static inline float
round_f16_rne(uint64_t m, int g, bool neg)
{
    if (m == 0)
        return 0.0f;
    int msb = 63 - __builtin_clzll(m), e = g + msb;
    int last = e >= -14 ? e - 10 : -24;             /* the exponent of the last bit kept */
    int sh = last - g;
    uint64_t q;
    if (sh <= 0) {
        q = m << -sh;
    } else if (sh > 62) {
        q = 0;
    } else {
        uint64_t rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
        q = (m >> sh) + (rem > half || (rem == half && ((m >> sh) & 1)));
    }
    double v = ldexp((double)q, last);              /* exact: q <= 2^11 */
    float f = v > 65504.0 ? INFINITY : (float)v;
    return neg ? -f : f;
}

/* One term of a step: |value| = m x 2^lsb, aligned by exponent e. */
struct term {
    uint64_t m;
    int lsb, e;
    bool s;
};

/* Float x's significand and exponent as the tensor core takes them: an
 * FP16 subnormal (f16) at exponent -14 with a shorter significand.  (Exact
 * for an FP16 value, which has 11 significant bits; an FP32 C of an FP16
 * result, .f16.f16.f16.f32, loses what lies below 2^-24.) */
static void
split(uint32_t u, bool f16, uint64_t *m, int *e)
{
    uint32_t x = (u >> 23) & 255;
    *m = (u & 0x7fffffu) | (x ? 0x800000u : 0);
    *e = x ? (int)x - 127 : -126;
    if (f16 && *e < -14) {
        unsigned sh = (unsigned)(-14 - *e);
        *m = sh < 64 ? *m >> sh : 0;
        *e = -14;
    }
}

/* Element k of out from u, a 32-bit float's bits (the ones the type
 * keeps): its class, sign, significand and exponent as ptx_mma_dot takes
 * them.  f16: an FP16's value (split). */
static inline void
split_bits(uint32_t u, bool f16, struct ptx_mma_vec *out, unsigned k)
{
    uint32_t xe = (u >> 23) & 255;
    out->s[k] = u >> 31;
    out->m[k] = 0;
    out->e[k] = PTX_OPND_ZERO_E;
    if (xe == 255) {
        out->cls[k] = (u & 0x7fffffu) ? PTX_OPND_NAN : PTX_OPND_INF;
    } else if ((u & 0x7fffffffu) == 0) {
        out->cls[k] = PTX_OPND_ZERO;
    } else {
        uint64_t m;
        int e;
        split(u, f16, &m, &e);
        out->cls[k] = PTX_OPND_FINITE;
        out->m[k] = (uint32_t)m;
        out->e[k] = e;
    }
}

/* The same for an FP16's bits h, decoded directly: what split_bits gives
 * for the float of the same value (a subnormal keeps exponent -14). */
static inline void
split_half(uint32_t h, struct ptx_mma_vec *out, unsigned k)
{
    uint32_t x = (h >> 10) & 31, man = h & 0x3ffu;
    out->s[k] = (h >> 15) & 1;
    out->m[k] = 0;
    out->e[k] = PTX_OPND_ZERO_E;
    if (x == 31) {
        out->cls[k] = man ? PTX_OPND_NAN : PTX_OPND_INF;
    } else if (x == 0 && man == 0) {
        out->cls[k] = PTX_OPND_ZERO;
    } else {
        out->cls[k] = PTX_OPND_FINITE;
        out->m[k] = (x ? man | 0x400u : man) << 13;
        out->e[k] = x ? (int)x - 15 : -14;
    }
}

/* The summaries of split operands 0 .. n-1 of v: any, narrow and f. */
static void
vec_finish(struct ptx_mma_vec *v, unsigned n)
{
    uint8_t any = 0;
    uint32_t low = 0;
    for (unsigned k = 0; k < n; k++) {
        any |= v->cls[k];
        low |= v->m[k] & 0x1fffu;
        float f = (float)(v->m[k] >> 13);
        v->f[k] = v->s[k] ? -f : f;
    }
    v->any = any;
    v->narrow = low == 0;
}

/* Operands split once (ptx_mma_split), so that a row or column used by
 * many products of an instruction is decoded once. */
void
ptx_mma_split(const float *x, unsigned n, unsigned itype, struct ptx_mma_vec *out)
{
    uint32_t keep = itype == PT_TF32 ? 0xffffe000u : 0xffffffffu;  /* TF32: the top 19 bits */
    bool f16 = itype == PT_F16;
    n = n < 32 ? n : 32;
    for (unsigned k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &x[k], 4);
        split_bits(u & keep, f16, out, k);
    }
    vec_finish(out, n);
}

void
ptx_mma_split_f16(const uint16_t *h, unsigned n, struct ptx_mma_vec *out)
{
    n = n < 32 ? n : 32;
    for (unsigned k = 0; k < n; k++)
        split_half(h[k], out, k);
    vec_finish(out, n);
}

/* ptx_mma_dot where an operand or c is an infinity or a NaN. */
static float
dot_special(const struct ptx_mma_vec *a, const struct ptx_mma_vec *b, unsigned n, bool neg,
            float c, bool f16_out)
{
    struct term t[33];
    unsigned nt = 0;
    uint32_t uc;
    memcpy(&uc, &c, 4);
    bool nan = isnan(c), pinf = isinf(c) && c > 0, ninf = isinf(c) && c < 0;
    for (unsigned k = 0; k < n && k < 32; k++) {
        unsigned xc = a->cls[k], yc = b->cls[k];
        bool s = ((a->s[k] ^ b->s[k]) != 0) != neg;
        if (xc == PTX_OPND_FINITE && yc == PTX_OPND_FINITE) {
            t[nt].m = (uint64_t)a->m[k] * b->m[k];
            t[nt].e = a->e[k] + b->e[k];     /* the unnormalised product's exponent */
            t[nt].lsb = t[nt].e - 46;
            t[nt].s = s;
            nt++;
        } else if (xc == PTX_OPND_NAN || yc == PTX_OPND_NAN) {
            nan = true;
        } else if (xc == PTX_OPND_INF || yc == PTX_OPND_INF) {
            if (xc == PTX_OPND_ZERO || yc == PTX_OPND_ZERO)
                nan = true;
            else if (s)
                ninf = true;
            else
                pinf = true;
        }
    }
    if (nan || (pinf && ninf)) {
        uint32_t q = 0x7fffffffu;  /* the canonical NaN */
        float f;
        memcpy(&f, &q, 4);
        return f;
    }
    if (pinf || ninf)
        return pinf ? INFINITY : -INFINITY;
    if ((uc & 0x7fffffffu) != 0) {
        split(uc, f16_out, &t[nt].m, &t[nt].e);
        t[nt].lsb = t[nt].e - 23;
        t[nt].s = (uc >> 31) != 0;
        nt++;
    }
    if (nt == 0)
        return 0.0f;
    int e = t[0].e;
    for (unsigned i = 1; i < nt; i++)
        e = t[i].e > e ? t[i].e : e;
    int g = e - 25;                /* 2 bits below the largest term's 24 */
    int64_t sum = 0;
    for (unsigned i = 0; i < nt; i++) {
        int sh = g - t[i].lsb;     /* >= -2 (c), >= 21 (a product) */
        uint64_t v = sh >= 64 ? 0 : sh >= 0 ? t[i].m >> sh : t[i].m << -sh;
        sum += t[i].s ? -(int64_t)v : (int64_t)v;
    }
    uint64_t mag = sum < 0 ? (uint64_t)-sum : (uint64_t)sum;
    return f16_out ? round_f16_rne(mag, g, sum < 0) : round_f32_rz(mag, g, sum < 0);
}

#ifdef __SSE2__
/* The sum of ptx_mma_dot's truncated products for narrow operands, n a
 * multiple of 4, four at a time; e is the largest term's exponent.  A
 * product is p = fa x fb (22 bits: exact in a float) times 2^26 at
 * exponent pe; truncated to the grid 2 bits below the largest term's 24,
 * it is trunc(p x 2^(5 - (e - pe))): the scale is a power of two (0 when
 * the product lies below the grid's last bit), so the float product is
 * exact and the conversion truncates toward zero as the magnitude's shift
 * does.  Each term is below 2^27, so 16 of them sum below 2^31. */
static int64_t
sum_narrow(const struct ptx_mma_vec *a, const struct ptx_mma_vec *b, unsigned n, bool neg,
           int e)
{
    __m128i base = _mm_set1_epi32(127 + 5 - e), zero = _mm_setzero_si128();
    __m128i sign = _mm_set1_epi32(neg ? INT32_MIN : 0), acc = zero;
    int64_t sum = 0;
    for (unsigned k = 0; k < n; k += 4) {
        if (k == 16) {           /* 16 terms at most in 32 bits */
            int32_t t[4];
            _mm_storeu_si128((__m128i *)t, acc);
            sum = (int64_t)t[0] + t[1] + t[2] + t[3];
            acc = zero;
        }
        __m128i pe = _mm_add_epi32(_mm_loadu_si128((const __m128i *)&a->e[k]),
                                   _mm_loadu_si128((const __m128i *)&b->e[k]));
        __m128i fld = _mm_add_epi32(pe, base);
        fld = _mm_and_si128(fld, _mm_cmpgt_epi32(fld, zero));
        __m128 scale = _mm_castsi128_ps(_mm_or_si128(_mm_slli_epi32(fld, 23), sign));
        __m128 p = _mm_mul_ps(_mm_loadu_ps(&a->f[k]), _mm_loadu_ps(&b->f[k]));
        acc = _mm_add_epi32(acc, _mm_cvttps_epi32(_mm_mul_ps(p, scale)));
    }
    int32_t t[4];
    _mm_storeu_si128((__m128i *)t, acc);
    return sum + t[0] + t[1] + t[2] + t[3];
}
#endif

float
ptx_mma_dot(const struct ptx_mma_vec *a, const struct ptx_mma_vec *b, unsigned n, bool neg,
            float c, bool f16_out)
{
    uint32_t uc;
    memcpy(&uc, &c, 4);
    n = n < 32 ? n : 32;
    if (((a->any | b->any) & PTX_OPND_INF) || ((uc >> 23) & 255) == 255)
        return dot_special(a, b, n, neg, c, f16_out);   /* INF and NAN have that bit */
    /* every term finite or zero: dot_special's sum without its branches.
     * A zero operand's product has significand 0, and its exponent
     * (PTX_OPND_ZERO_E) is never the largest but when every term is zero. */
    int pe[32];
    int e = INT_MIN;
    for (unsigned k = 0; k < n; k++) {
        pe[k] = a->e[k] + b->e[k];
        e = pe[k] > e ? pe[k] : e;
    }
    uint64_t cm = 0;
    int ce = 0;
    if ((uc & 0x7fffffffu) != 0) {
        split(uc, f16_out, &cm, &ce);
        e = ce > e ? ce : e;
    }
    int g = e - 25;                /* 2 bits below the largest term's 24 */
    int64_t sum = 0;
#ifdef __SSE2__
    if (a->narrow && b->narrow && n % 4 == 0 && n > 0) {
        sum = sum_narrow(a, b, n, neg, e);
    } else
#endif
    {
        uint32_t nm = neg ? 1 : 0;
        for (unsigned k = 0; k < n; k++) {
            int sh = g - (pe[k] - 46); /* >= 21: a product (< 2^48) is truncated */
            sh = sh < 63 ? sh : 63;
            uint64_t v = ((uint64_t)a->m[k] * b->m[k]) >> sh;
            /* all ones: negative */
            uint64_t sgn = UINT64_C(0) - (uint64_t)(a->s[k] ^ b->s[k] ^ nm);
            sum += (int64_t)((v ^ sgn) - sgn);
        }
    }
    if (cm != 0) {
        int sh = g - (ce - 23);    /* >= -2 */
        int64_t v = sh >= 64 ? 0 : (int64_t)(sh >= 0 ? cm >> sh : cm << -sh);
        sum += (uc >> 31) != 0 ? -v : v;
    }
    uint64_t mag = sum < 0 ? (uint64_t)-sum : (uint64_t)sum;
    return f16_out ? round_f16_rne(mag, g, sum < 0) : round_f32_rz(mag, g, sum < 0);
}

float
ptx_mma_step(const float *a, const float *b, unsigned n, bool neg, float c, unsigned itype,
             bool f16_out)
{
    struct ptx_mma_vec oa, ob;
    if (n > 32)
        n = 32;
    ptx_mma_split(a, n, itype, &oa);
    ptx_mma_split(b, n, itype, &ob);
    return ptx_mma_dot(&oa, &ob, n, neg, c, f16_out);
}

static double
f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Element sub of a register value v of type t, as a double (integers:
 * exactly). */
static double
elem_value(uint64_t v64, unsigned t, unsigned sub)
{
    uint32_t v = (uint32_t)v64;
    switch (t) {
    case PT_F64: {
        double f;
        memcpy(&f, &v64, 8);
        return f;
    }
    case PT_F16: return ptx_half_to_float((uint16_t)(v >> (16 * sub)));
    case PT_BF16: return f32_of((v >> (16 * sub)) << 16);
    case PT_TF32: return f32_of(v & 0xffffe000u);
    case PT_S8: return (int8_t)(v >> (8 * sub));
    case PT_U8: return (uint8_t)(v >> (8 * sub));
    case PT_S32: return (int32_t)v;
    default: return f32_of(v);
    }
}

/* The first fragment register of x for fragment f (its operand list). */
static const struct slot *
frag_base(const struct xop *x, const struct ptx_mma_desc *d, unsigned f)
{
    if (d->wmma)
        return &x->frag[f == 'a' ? PTX_WMMA_A : f == 'b' ? PTX_WMMA_B : f == 'c' ? PTX_WMMA_C : 0];
    unsigned nd, na, nb, dist;
    nd = ptx_mma_frag_regs(d, 'd', &dist);
    na = ptx_mma_frag_regs(d, 'a', &dist);
    nb = ptx_mma_frag_regs(d, 'b', &dist);
    return &x->frag[f == 'd' ? 0 : f == 'a' ? nd : f == 'b' ? nd + na : nd + na + nb];
}

/* Where fragment f of x lies: its registers, its type, lane 0's elements
 * and every lane's shift from them (ptx_mma_frag_shift). */
struct frag_walk {
    const struct slot *regs;
    unsigned t, n;
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    uint8_t dr[32], dc[32];
};

static void
frag_walk_init(struct frag_walk *w, const struct xop *x, const struct ptx_mma_desc *d, unsigned f)
{
    w->regs = frag_base(x, d, f);
    w->t = ptx_mma_frag_type(d, f);
    w->n = ptx_mma_frag(d, f, 0, w->el);
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned r, c;
        ptx_mma_frag_shift(d, f, lane, &r, &c);
        w->dr[lane] = (uint8_t)r;
        w->dc[lane] = (uint8_t)c;
    }
}

/* Read fragment f of every lane into mat[row][col]: of the lanes in m;
 * a lane outside m (the ISA leaves an mma.sync of a diverged warp
 * undefined) gives zeros, not whatever its registers hold, which would
 * depend on how the register file is laid out (ptx_regalloc.h). */
static void
read_frag(const struct pwarp *pw, const struct xop *x, const struct ptx_mma_desc *d, unsigned f,
          uint32_t m, double mat[32][32])
{
    struct frag_walk w;
    frag_walk_init(&w, x, d, f);
    /* register by register: its 32 lanes are adjacent in memory */
    for (unsigned i = 0; i < w.n; i++)
        for (unsigned lane = 0; lane < 32; lane++) {
            uint64_t v = m >> lane & 1 ? lane_get(pw, &w.regs[w.el[i].reg], lane) : 0;
            mat[w.el[i].row + w.dr[lane]][w.el[i].col + w.dc[lane]] =
                elem_value(v, w.t, w.el[i].sub);
        }
}

/* Fragment f ('a' or 'b') of the lanes in m straight into split
 * operands: vec[row] holds A's row, vec[col] B's column, indexed by k
 * (a lane outside m gives zeros, as read_frag).  The float input types
 * only; decoding each element once from its register bits is what makes
 * this cheaper than read_frag and ptx_mma_split. */
static void
gather_split(const struct pwarp *pw, const struct xop *x, const struct ptx_mma_desc *d,
             unsigned f, uint32_t m, struct ptx_mma_vec *vec)
{
    struct frag_walk w;
    frag_walk_init(&w, x, d, f);
    for (unsigned i = 0; i < w.n; i++) {
        const struct slot *s = &w.regs[w.el[i].reg];
        unsigned sh = 16 * w.el[i].sub;
        for (unsigned lane = 0; lane < 32; lane++) {
            unsigned row = w.el[i].row + w.dr[lane], col = w.el[i].col + w.dc[lane];
            struct ptx_mma_vec *o = &vec[f == 'a' ? row : col];
            unsigned k = f == 'a' ? col : row;
            uint32_t u = m >> lane & 1 ? (uint32_t)lane_get(pw, s, lane) : 0;
            switch (w.t) {
            case PT_F16: split_half((u >> sh) & 0xffffu, o, k); break;
            case PT_BF16: split_bits(((u >> sh) & 0xffffu) << 16, false, o, k); break;
            default: split_bits(u & 0xffffe000u, false, o, k); break;   /* .tf32: the top 19 bits */
            }
        }
    }
    unsigned nv = f == 'a' ? d->m : d->n, kk = d->k < 32 ? d->k : 32;
    for (unsigned v = 0; v < nv && v < 32; v++)
        vec_finish(&vec[v], kk);
}

/* mma and wmma with .f16, .bf16 or .tf32 inputs: each product and sum as
 * the tensor core forms them (ptx_mma_dot). */
static void
mma_float(struct pwarp *pw, const struct xop *x, const struct ptx_mma_desc *d, uint32_t m)
{
    static _Thread_local struct ptx_mma_vec Ao[32], Bo[32];
    float C[32][32];
    gather_split(pw, x, d, 'a', m, Ao);
    gather_split(pw, x, d, 'b', m, Bo);
    struct frag_walk w;          /* C's, whose lanes' shifts are D's */
    frag_walk_init(&w, x, d, 'c');
    for (unsigned i = 0; i < w.n; i++)
        for (unsigned lane = 0; lane < 32; lane++) {
            uint32_t u = m >> lane & 1 ? (uint32_t)lane_get(pw, &w.regs[w.el[i].reg], lane) : 0;
            float c;
            if (w.t == PT_F16) {
                c = ptx_half_to_float((uint16_t)(u >> (16 * w.el[i].sub)));
            } else {
                memcpy(&c, &u, 4);
            }
            C[w.el[i].row + w.dr[lane]][w.el[i].col + w.dc[lane]] = c;
        }
    const struct slot *D = frag_base(x, d, 'd');
    unsigned dist, nregs = ptx_mma_frag_regs(d, 'd', &dist);
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    unsigned n = ptx_mma_frag(d, 'd', 0, el);
    unsigned kk = d->k < 32 ? d->k : 32;
    bool h = d->dtype == PT_F16;
    LANES(m, {
        uint64_t out[PTX_FRAG_MAX] = { 0 };
        for (unsigned i = 0; i < n; i++) {
            unsigned row = el[i].row + w.dr[l], col = el[i].col + w.dc[l];
            float f = ptx_mma_dot(&Ao[row], &Bo[col], kk, false, C[row][col], h);
            uint32_t u32;
            if (h)
                u32 = (uint32_t)ptx_half_from_float(f) << (16 * el[i].sub);   /* exact */
            else
                memcpy(&u32, &f, 4);
            out[el[i].reg] |= u32;
        }
        for (unsigned r = 0; r < nregs; r++)
            lane_set(pw, &D[r], l, out[r % dist]);
    });
}

unsigned
ptx_mma_dmma_units(const struct xop *x)
{
    uint8_t m, n, k;
    if (!ptx_mma_shape_dims(x->shape, &m, &n, &k))
        return 1;
    return sim_dmma_units(m, k);
}

void
ptx_mma_exec(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    struct ptx_mma_desc d;
    ptx_mma_desc_of(x, &d);
    if (d.atype == PT_TF32 || d.atype == PT_F16 || d.atype == PT_BF16) {
        mma_float(pw, x, &d, m);
        return;
    }
    static _Thread_local double A[32][32], B[32][32], C[32][32];
    read_frag(pw, x, &d, 'a', m, A);
    read_frag(pw, x, &d, 'b', m, B);
    read_frag(pw, x, &d, 'c', m, C);
    const struct slot *D = frag_base(x, &d, 'd');
    unsigned dist, nregs = ptx_mma_frag_regs(&d, 'd', &dist);
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    unsigned n = ptx_mma_frag(&d, 'd', 0, el);
    /* .f64: a chain of fused multiply-adds in k order, each rounded as
     * x->rnd says (.rn when not given) */
    bool f64 = d.atype == PT_F64;
    bool set_rnd = f64 && (x->rnd == PR_RZ || x->rnd == PR_RM || x->rnd == PR_RP);
    int old_round = 0;
    if (set_rnd) {
        old_round = fegetround();
        fesetround(lane_host_round(x->rnd));
    }
    LANES(m, {
        unsigned dr, dc;
        ptx_mma_frag_shift(&d, 'd', l, &dr, &dc);
        uint64_t out[PTX_FRAG_MAX] = { 0 };
        for (unsigned i = 0; i < n; i++) {
            unsigned row = el[i].row + dr, col = el[i].col + dc;
            uint64_t u;
            if (f64) {
                double s = C[row][col];
                for (unsigned k = 0; k < d.k; k++)
                    s = fma(A[row][k], B[k][col], s);
                memcpy(&u, &s, 8);
            } else {             /* .s8 / .u8 into .s32: what ptx_mma_supported leaves */
                int64_t s = (int64_t)C[row][col];
                for (unsigned k = 0; k < d.k; k++)
                    s += (int64_t)A[row][k] * (int64_t)B[k][col];
                if (d.satfinite)
                    s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
                u = (uint32_t)s;
            }
            out[el[i].reg] |= u;
        }
        for (unsigned r = 0; r < nregs; r++)
            lane_set(pw, &D[r], l, out[r % dist]);
    });
    if (set_rnd)
        fesetround(old_round);
}

/* ---- fragment loads and stores --------------------------------------------- */

unsigned
ptx_mma_parts(const struct ptx_mma_desc *d, unsigned f, bool col_major, bool shared,
              struct ptx_frag_part *out)
{
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    unsigned t = ptx_mma_frag_type(d, f), es = ptx_mma_esize(t);
    unsigned n = ptx_mma_frag(d, f, 0, el), np = 0;
    if (shared && es == 2 && (f == 'a' || f == 'b')) {
        /* ldmatrix: 512 bytes (32 rows of 16) an operation, and each
         * operation writes the registers of its rows */
        unsigned bytes = (unsigned)d->m * d->k * es;
        if (f == 'b')
            bytes = (unsigned)d->k * d->n * es;
        unsigned nl = (bytes + 511) / 512, per = (n + nl - 1) / nl;
        for (unsigned p = 0; p < nl; p++) {
            struct ptx_frag_part *q = &out[np++];
            memset(q, 0, sizeof *q);
            q->width = 16;
            q->ldsm = (uint8_t)(p + 1);
            for (unsigned i = p * per; i < n && i < (p + 1) * per; i++)
                q->elem[q->nelem++] = (uint8_t)i;
        }
        return np;
    }
    /* per register: its elements' addresses in lane 0 (any leading
     * dimension large enough: rows never touch) */
    const uint64_t ld = 4096;
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        while (j < n && el[j].reg == el[i].reg)
            j++;
        bool adjacent = true;
        for (unsigned k = i + 1; k < j; k++)
            adjacent = adjacent && ptx_mma_offset(el[k].row, el[k].col, col_major, ld, es) ==
                                   ptx_mma_offset(el[k - 1].row, el[k - 1].col, col_major, ld, es) + es;
        if (adjacent) {
            /* a register's elements in one access, merged with the previous
             * register's when they continue it (two f32 accumulators: .64) */
            struct ptx_frag_part *q = np ? &out[np - 1] : NULL;
            uint64_t here = ptx_mma_offset(el[i].row, el[i].col, col_major, ld, es);
            bool merge = false;
            unsigned w = (j - i) * es;
            if (q != NULL && (w == 4 || w == 8) && q->width == w && q->nelem > 0) {
                const struct ptx_frag_elem *last = &el[q->elem[q->nelem - 1]];
                const struct ptx_frag_elem *first = &el[q->elem[0]];
                merge = ptx_mma_offset(last->row, last->col, col_major, ld, es) + es == here &&
                        ptx_mma_offset(first->row, first->col, col_major, ld, es) % (2 * w) == 0;
            }
            if (!merge) {
                q = &out[np++];
                memset(q, 0, sizeof *q);
            }
            for (unsigned k = i; k < j; k++)
                q->elem[q->nelem++] = (uint8_t)k;
            q->width = (uint8_t)(q->nelem * es);
        } else {
            for (unsigned k = i; k < j && np < PTX_PARTS_MAX; k++) {
                struct ptx_frag_part *q = &out[np++];
                memset(q, 0, sizeof *q);
                q->width = (uint8_t)es;
                q->elem[q->nelem++] = (uint8_t)k;
            }
        }
        if (np >= PTX_PARTS_MAX)
            break;
        i = j;
    }
    return np;
}

bool
ptx_mma_ldsm_row(const struct ptx_mma_desc *d, unsigned f, bool col_major, uint64_t ld,
                 unsigned ldsm, unsigned lane, uint64_t *off)
{
    /* the fragment's 8-element row pieces along the contiguous dimension,
     * in order: lane l of operation p reads piece 32 (p - 1) + l */
    unsigned rows = f == 'a' ? d->m : d->k, cols = f == 'a' ? d->k : d->n;
    unsigned outer = col_major ? cols : rows, inner = col_major ? rows : cols;
    unsigned pieces_per = (inner + 7) / 8, idx = 32 * (ldsm - 1) + lane;
    if (idx >= outer * pieces_per)
        return false;
    unsigned o = idx % outer, pc = idx / outer;
    *off = ((uint64_t)o * ld + 8u * pc) * 2u;
    return true;
}
