/*
 * check_ptx_mma.c - mma.sync and wmma over a warp's fragments
 * (frontend/ptx_mma.c): fragments filled by the PTX ISA's formulas
 * (section 9.7.14.5, "Matrix Fragments for mma.m16n8k8 / m16n8k16"),
 * written out here independently of the module, against a plain matrix
 * product; the wmma layout's coverage of its matrices.
 */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_mma.h"
#include "testlib.h"

#define NREG 40
#define NREG64 24

struct warp {
    struct pwarp pw;
    union r32 r[NREG * 32];
    union r64 d[NREG64 * 32];
};

static void
warp_init(struct warp *w)
{
    memset(w, 0, sizeof *w);
    w->pw.r32 = w->r;
    w->pw.r64 = w->d;
    w->pw.kb32 = NREG;           /* no constant slots */
    w->pw.kb64 = NREG64;
}

static double
get64(const struct warp *w, unsigned reg, unsigned lane)
{
    double f;
    memcpy(&f, &w->d[reg * 32 + lane].u, 8);
    return f;
}

static void
set64(struct warp *w, unsigned reg, unsigned lane, double f)
{
    memcpy(&w->d[reg * 32 + lane].u, &f, 8);
}

static void
set32(struct warp *w, unsigned reg, unsigned lane, uint32_t v)
{
    w->r[reg * 32 + lane].u = v;
}

static uint32_t
get32(const struct warp *w, unsigned reg, unsigned lane)
{
    return w->r[reg * 32 + lane].u;
}

static uint32_t
f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float
u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Small integers: every product and sum is exact, so the result must be. */
static float
aval(unsigned i, unsigned k)
{
    return (float)((int)(i * 3 + k * 5) % 7 - 3);
}

static float
bval(unsigned k, unsigned j)
{
    return (float)((int)(k * 2 + j * 3) % 5 - 2);
}

static float
cval(unsigned i, unsigned j)
{
    return (float)(i + 16 * j);
}

/* A half with a small integer value (exact). */
static uint16_t
h16(float f)
{
    return ptx_half_from_float(f);
}

static void
check_d(const struct warp *w, unsigned K)
{
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3;
        for (unsigned e = 0; e < 4; e++) {
            unsigned row = e < 2 ? g : g + 8, col = t * 2 + (e & 1);
            float want = cval(row, col);
            for (unsigned k = 0; k < K; k++)
                want += aval(row, k) * bval(k, col);
            ck_assert_msg(u2f(get32(w, e, lane)) == want, "lane %u d%u: %g, want %g", lane, e,
                          (double)u2f(get32(w, e, lane)), (double)want);
        }
    }
}

/* D in registers 0-3, A from 4, B from 8, C from 12. */
static struct xop
mma_op(unsigned shape, unsigned atype, unsigned na, unsigned nb)
{
    struct xop x;
    memset(&x, 0, sizeof x);
    x.kind = XK_MMA;
    x.shape = (uint8_t)shape;
    x.type = PT_F32;
    x.ctype = PT_F32;
    x.type2 = (uint8_t)atype;
    x.btype = (uint8_t)atype;
    unsigned at = 0;
    for (unsigned i = 0; i < 4; i++)
        x.frag[at++] = (struct slot){ SC_32, i };
    for (unsigned i = 0; i < na; i++)
        x.frag[at++] = (struct slot){ SC_32, 4 + i };
    for (unsigned i = 0; i < nb; i++)
        x.frag[at++] = (struct slot){ SC_32, 8 + i };
    for (unsigned i = 0; i < 4; i++)
        x.frag[at++] = (struct slot){ SC_32, 12 + i };
    return x;
}

static void
fill_c(struct warp *w)
{
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3;
        for (unsigned e = 0; e < 4; e++)
            set32(w, 12 + e, lane, f2u(cval(e < 2 ? g : g + 8, t * 2 + (e & 1))));
    }
}

/* m16n8k8 .tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4);
 * b0 (t, g), b1 (t+4, g).  Low mantissa bits of the f32 pattern are not
 * read (tf32), so set them: the result must not change. */
START_TEST(mma_m16n8k8_tf32)
{
    static struct warp w;
    warp_init(&w);
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3;
        set32(&w, 4, lane, f2u(aval(g, t)) | 0x1fffu * (aval(g, t) != 0));
        set32(&w, 5, lane, f2u(aval(g + 8, t)));
        set32(&w, 6, lane, f2u(aval(g, t + 4)));
        set32(&w, 7, lane, f2u(aval(g + 8, t + 4)));
        set32(&w, 8, lane, f2u(bval(t, g)));
        set32(&w, 9, lane, f2u(bval(t + 4, g)));
    }
    fill_c(&w);
    struct xop x = mma_op(SH_M16N8K8, PT_TF32, 4, 2);
    ptx_mma_exec(&w.pw, &x, UINT32_MAX);
    check_d(&w, 8);
}
END_TEST

/* m16n8k16 .f16: a0 a1 (g, 2t, 2t+1), a2 a3 (g+8, ..), a4 a5 (g, 2t+8, ..),
 * a6 a7 (g+8, 2t+8, ..), two per register, low half first;
 * b0 b1 (2t, 2t+1; g), b2 b3 (2t+8, 2t+9; g). */
START_TEST(mma_m16n8k16_f16)
{
    static struct warp w;
    warp_init(&w);
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3;
        for (unsigned r = 0; r < 4; r++) {
            unsigned row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
            set32(&w, 4 + r, lane, h16(aval(row, col)) | (uint32_t)h16(aval(row, col + 1)) << 16);
        }
        for (unsigned r = 0; r < 2; r++) {
            unsigned k = 2 * t + 8 * r;
            set32(&w, 8 + r, lane, h16(bval(k, g)) | (uint32_t)h16(bval(k + 1, g)) << 16);
        }
    }
    fill_c(&w);
    struct xop x = mma_op(SH_M16N8K16, PT_F16, 4, 2);
    ptx_mma_exec(&w.pw, &x, UINT32_MAX);
    check_d(&w, 16);
}
END_TEST

/* Lanes outside the mask keep their D registers (their fragments are
 * still read). */
/* .f64 (PTX ISA 9.7.14.5, "Matrix Fragments for mma.m8n8k4 with .f64"
 * and mma.m16n8k4/k8/k16 .f64), g = lane / 4, t = lane % 4:
 *   m8n8k4:  a0 (g, t); b0 (t, g); c0 c1 (g, 2t .. 2t+1);
 *   m16n8kK: a_i (g + 8 (i % 2), t + 4 (i / 2)); b_i (t + 4 i, g);
 *            c0 c1 (g, 2t ..), c2 c3 (g + 8, 2t ..).
 * Small values whose products and sums are exact in double, and one,
 * D (1, 0), that tells a chain of fused multiply-adds in k order, rounded
 * to nearest (x->rnd 0: .rn), from products rounded before they are
 * summed. */
static double
fa(unsigned i, unsigned k)
{
    if (i == 1)                  /* row 1: (1 + 2^-30, 0, 0, ..) */
        return k == 0 ? 1.0 + 0x1p-30 : 0.0;
    return aval(i, k) / 8.0;
}

static double
fb(unsigned k, unsigned j)
{
    return k == 0 && j == 0 ? 1.0 + 0x1p-30 : bval(k, j) * 3.0;
}

/* C (1, 0) = -1: D (1, 0) = 2^-29 + 2^-60 when the product is fused with
 * C, 2^-29 when it is rounded first */
static double
fc(unsigned i, unsigned j)
{
    return i == 1 && j == 0 ? -1.0 : cval(i, j) + 0.5;
}

static void
mma_f64_case(unsigned shape, unsigned M, unsigned K)
{
    static struct warp w;
    warp_init(&w);
    unsigned na = M * K / 32, nb = K / 4, nc = M / 4;
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3;
        for (unsigned i = 0; i < na; i++)
            set64(&w, 4 + i, lane, M == 8 ? fa(g, t) : fa(g + 8 * (i % 2), t + 4 * (i / 2)));
        for (unsigned i = 0; i < nb; i++)
            set64(&w, 4 + na + i, lane, fb(t + 4 * i, g));
        for (unsigned i = 0; i < nc; i++)
            set64(&w, 4 + na + nb + i, lane, fc(g + 8 * (i / 2), 2 * t + (i & 1)));
    }
    struct xop x;
    memset(&x, 0, sizeof x);
    x.kind = XK_MMA;
    x.shape = (uint8_t)shape;
    x.type = x.ctype = x.type2 = x.btype = PT_F64;
    unsigned at = 0;
    for (unsigned i = 0; i < nc; i++)
        x.frag[at++] = (struct slot){ SC_64, i };
    for (unsigned i = 0; i < na + nb + nc; i++)
        x.frag[at++] = (struct slot){ SC_64, 4 + i };    /* A, B, C */
    struct ptx_mma_desc d;
    const char *why;
    ptx_mma_desc_of(&x, &d);
    ck_assert_msg(ptx_mma_supported(&d, &why), "m%un8k%u .f64: %s", M, K, why);
    ptx_mma_exec(&w.pw, &x, UINT32_MAX);
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3;
        for (unsigned i = 0; i < nc; i++) {
            unsigned row = g + 8 * (i / 2), col = 2 * t + (i & 1);
            double want = fc(row, col);
            for (unsigned k = 0; k < K; k++)
                want = fma(fa(row, k), fb(k, col), want);
            if (row == 1 && col == 0)
                ck_assert(want == 0x1p-29 + 0x1p-60);
            ck_assert_msg(get64(&w, i, lane) == want, "m%un8k%u lane %u d%u: %.17g, want %.17g",
                          M, K, lane, i, get64(&w, i, lane), want);
        }
    }
}

START_TEST(mma_f64)
{
    mma_f64_case(SH_M8N8K4, 8, 4);
    mma_f64_case(SH_M16N8K4, 16, 4);
    mma_f64_case(SH_M16N8K8, 16, 8);
    mma_f64_case(SH_M16N8K16, 16, 16);
}
END_TEST

/* .f64 rounding modes: D (0, 0) = C + 2^-30 x 2^-30 with C = 1 and -1
 * (lane 0's c0); the exact sum lies between two doubles. */
static double
mma_f64_rounded(unsigned rnd, double c)
{
    static struct warp w;
    warp_init(&w);
    set64(&w, 4, 0, 0x1p-30);                    /* a0 of lane 0: A (0, 0) */
    set64(&w, 5, 0, 0x1p-30);                    /* b0 of lane 0: B (0, 0) */
    set64(&w, 6, 0, c);                          /* c0 of lane 0: C (0, 0) */
    struct xop x;
    memset(&x, 0, sizeof x);
    x.kind = XK_MMA;
    x.shape = SH_M8N8K4;
    x.type = x.ctype = x.type2 = x.btype = PT_F64;
    x.rnd = (uint8_t)rnd;
    const unsigned idx[6] = { 0, 1, 4, 5, 6, 7 };   /* D0 D1, A, B, C0 C1 */
    for (unsigned i = 0; i < 6; i++)
        x.frag[i] = (struct slot){ SC_64, idx[i] };
    ptx_mma_exec(&w.pw, &x, UINT32_MAX);
    return get64(&w, 0, 0);
}

START_TEST(mma_f64_rounding)
{
    ck_assert(mma_f64_rounded(PR_NONE, 1.0) == 1.0);
    ck_assert(mma_f64_rounded(PR_RN, 1.0) == 1.0);
    ck_assert(mma_f64_rounded(PR_RZ, 1.0) == 1.0);
    ck_assert(mma_f64_rounded(PR_RM, 1.0) == 1.0);
    ck_assert(mma_f64_rounded(PR_RP, 1.0) == 1.0 + 0x1p-52);
    ck_assert(mma_f64_rounded(PR_RZ, -1.0) == -1.0 + 0x1p-53);
    ck_assert(mma_f64_rounded(PR_RM, -1.0) == -1.0);
    ck_assert(mma_f64_rounded(PR_RP, -1.0) == -1.0 + 0x1p-53);
    ck_assert_int_eq(fegetround(), FE_TONEAREST);  /* restored */
}
END_TEST

START_TEST(mma_mask)
{
    static struct warp w;
    warp_init(&w);
    for (unsigned lane = 0; lane < 32; lane++)
        for (unsigned e = 0; e < 4; e++)
            set32(&w, e, lane, 0xdeadbeefu);
    struct xop x = mma_op(SH_M16N8K8, PT_TF32, 4, 2);
    ptx_mma_exec(&w.pw, &x, 0x0000ffffu);
    ck_assert_uint_eq(get32(&w, 0, 0), 0);          /* 0 x 0 + 0 */
    ck_assert_uint_eq(get32(&w, 0, 31), 0xdeadbeefu);
}
END_TEST

/* Every wmma shape and type the layout supports: each element of A, B and
 * C/D is held by exactly one (lane, register, element) -- f16 A and B
 * fragments list their registers twice or more (PTX's 8), the repeats
 * holding nothing new -- and the registers are those the ISA gives. */
START_TEST(wmma_layout_covers)
{
    static const struct {
        uint8_t shape, atype, ctype;
        uint8_t ra, rb, rc;          /* PTX fragment registers of A, B, C */
    } cases[] = {
        { SH_M16N16K16, PT_F16, PT_F32, 8, 8, 8 }, { SH_M16N16K16, PT_F16, PT_F16, 8, 8, 4 },
        { SH_M32N8K16, PT_F16, PT_F32, 8, 8, 8 },  { SH_M8N32K16, PT_F16, PT_F16, 8, 8, 4 },
        { SH_M16N16K16, PT_BF16, PT_F32, 4, 4, 8 }, { SH_M32N8K16, PT_BF16, PT_F32, 8, 2, 8 },
        { SH_M8N32K16, PT_BF16, PT_F32, 2, 8, 8 },  { SH_M16N16K16, PT_S8, PT_S32, 2, 2, 8 },
        { SH_M32N8K16, PT_U8, PT_S32, 4, 1, 8 },   { SH_M8N32K16, PT_S8, PT_S32, 1, 4, 8 },
        { SH_M16N16K8, PT_TF32, PT_F32, 4, 4, 8 },
    };
    for (unsigned c = 0; c < SIM_ARRAY_LEN(cases); c++) {
        struct xop x;
        memset(&x, 0, sizeof x);
        x.kind = XK_WMMA;
        x.shape = cases[c].shape;
        x.type2 = x.btype = cases[c].atype;
        x.type = x.ctype = cases[c].ctype;
        struct ptx_mma_desc d;
        ptx_mma_desc_of(&x, &d);
        const char *why;
        ck_assert_msg(ptx_mma_supported(&d, &why), "case %u", c);
        const unsigned want[3] = { cases[c].ra, cases[c].rb, cases[c].rc };
        const unsigned rows[3] = { d.m, d.k, d.m }, cols[3] = { d.k, d.n, d.n };
        for (unsigned f = 0; f < 3; f++) {
            unsigned dist, nregs = ptx_mma_frag_regs(&d, "abc"[f], &dist);
            ck_assert_msg(nregs == want[f], "case %u %c: %u registers, want %u", c, "abc"[f],
                          nregs, want[f]);
            unsigned seen[32][32] = { { 0 } };
            struct ptx_frag_elem el0[PTX_FRAG_MAX];
            unsigned n0 = ptx_mma_frag(&d, "abc"[f], 0, el0);
            for (unsigned lane = 0; lane < 32; lane++) {
                struct ptx_frag_elem el[PTX_FRAG_MAX];
                unsigned used[PTX_FRAG_MAX][4] = { { 0 } };
                unsigned n = ptx_mma_frag(&d, "abc"[f], lane, el);
                /* every lane's list is lane 0's moved (ptx_mma_frag_shift) */
                unsigned dr, dc;
                ptx_mma_frag_shift(&d, "abc"[f], lane, &dr, &dc);
                ck_assert_uint_eq(n, n0);
                for (unsigned i = 0; i < n; i++)
                    ck_assert_msg(el[i].row == el0[i].row + dr && el[i].col == el0[i].col + dc &&
                                  el[i].reg == el0[i].reg && el[i].sub == el0[i].sub,
                                  "case %u %c lane %u element %u", c, "abc"[f], lane, i);
                for (unsigned i = 0; i < n; i++) {
                    ck_assert_uint_lt(el[i].row, rows[f]);
                    ck_assert_uint_lt(el[i].col, cols[f]);
                    ck_assert_uint_lt(el[i].reg, dist);
                    ck_assert_uint_eq(used[el[i].reg][el[i].sub]++, 0);
                    seen[el[i].row][el[i].col]++;
                }
            }
            for (unsigned i = 0; i < rows[f]; i++)
                for (unsigned j = 0; j < cols[f]; j++)
                    ck_assert_msg(seen[i][j] == 1, "case %u %c (%u, %u) held %u times", c,
                                  "abc"[f], i, j, seen[i][j]);
        }
    }
}
END_TEST

/* mma.sync's fragments: every lane's elements are lane 0's moved by
 * ptx_mma_frag_shift, which the executor relies on. */
START_TEST(mma_frag_shift)
{
    static const struct ptx_mma_desc cases[] = {
        { false, 16, 8, 4, PT_TF32, PT_TF32, PT_F32, PT_F32, false },
        { false, 16, 8, 8, PT_TF32, PT_TF32, PT_F32, PT_F32, false },
        { false, 16, 8, 8, PT_F16, PT_F16, PT_F16, PT_F16, false },
        { false, 16, 8, 16, PT_BF16, PT_BF16, PT_F32, PT_F32, false },
        { false, 16, 8, 16, PT_S8, PT_U8, PT_S32, PT_S32, false },
        { false, 16, 8, 32, PT_S8, PT_S8, PT_S32, PT_S32, true },
    };
    for (unsigned c = 0; c < SIM_ARRAY_LEN(cases); c++) {
        const char *why;
        ck_assert_msg(ptx_mma_supported(&cases[c], &why), "case %u", c);
        for (unsigned f = 0; f < 4; f++) {
            struct ptx_frag_elem el0[PTX_FRAG_MAX], el[PTX_FRAG_MAX];
            unsigned n0 = ptx_mma_frag(&cases[c], "abcd"[f], 0, el0);
            ck_assert_uint_gt(n0, 0);
            for (unsigned lane = 0; lane < 32; lane++) {
                unsigned n = ptx_mma_frag(&cases[c], "abcd"[f], lane, el), dr, dc;
                ptx_mma_frag_shift(&cases[c], "abcd"[f], lane, &dr, &dc);
                ck_assert_uint_eq(n, n0);
                for (unsigned i = 0; i < n; i++)
                    ck_assert_msg(el[i].row == el0[i].row + dr && el[i].col == el0[i].col + dc &&
                                  el[i].reg == el0[i].reg && el[i].sub == el0[i].sub,
                                  "case %u %c lane %u element %u", c, "abcd"[f], lane, i);
            }
        }
    }
}
END_TEST

/* wmma.mma m16n16k16 through the layout: fragments written with
 * ptx_mma_frag, the product read back the same way (each tile of the
 * split, ptx_mma_tile_regs, covers its own registers). */
START_TEST(wmma_mma_product)
{
    static struct warp w;
    warp_init(&w);
    struct xop x;
    memset(&x, 0, sizeof x);
    x.kind = XK_WMMA;
    x.shape = SH_M16N16K16;
    x.type = PT_F32;
    x.type2 = x.btype = PT_F16;
    x.ctype = PT_F32;
    for (unsigned i = 0; i < 32; i++)
        x.frag[i] = (struct slot){ SC_32, i };
    struct ptx_mma_desc d;
    ptx_mma_desc_of(&x, &d);
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned n = ptx_mma_frag(&d, 'a', lane, el);
        for (unsigned i = 0; i < n; i++)
            w.r[(PTX_WMMA_A + el[i].reg) * 32 + lane].u |=
                (uint32_t)h16(aval(el[i].row, el[i].col)) << (16 * el[i].sub);
        n = ptx_mma_frag(&d, 'b', lane, el);
        for (unsigned i = 0; i < n; i++)
            w.r[(PTX_WMMA_B + el[i].reg) * 32 + lane].u |=
                (uint32_t)h16(bval(el[i].row, el[i].col)) << (16 * el[i].sub);
        n = ptx_mma_frag(&d, 'c', lane, el);
        for (unsigned i = 0; i < n; i++)
            set32(&w, PTX_WMMA_C + el[i].reg, lane, f2u(cval(el[i].row, el[i].col)));
    }
    ptx_mma_exec(&w.pw, &x, UINT32_MAX);
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned n = ptx_mma_frag(&d, 'd', lane, el);
        for (unsigned i = 0; i < n; i++) {
            float want = cval(el[i].row, el[i].col);
            for (unsigned k = 0; k < 16; k++)
                want += aval(el[i].row, k) * bval(k, el[i].col);
            ck_assert_msg(u2f(get32(&w, el[i].reg, lane)) == want, "lane %u (%u, %u)", lane,
                          el[i].row, el[i].col);
        }
    }
    /* two tiles: D columns 0-7 and 8-15, each with 4 A, 2 B and 4 C registers */
    ck_assert_uint_eq(ptx_mma_tiles(&d), 2);
    for (unsigned t = 0; t < 2; t++) {
        uint8_t a[PTX_FRAG_MAX], b[PTX_FRAG_MAX], c[PTX_FRAG_MAX];
        unsigned na, nb, nc;
        ptx_mma_tile_regs(&d, t, a, &na, b, &nb, c, &nc);
        ck_assert_uint_eq(na, 4);
        ck_assert_uint_eq(nb, 2);
        ck_assert_uint_eq(nc, 4);
        ck_assert_uint_eq(b[0], 2 * t);
        ck_assert_uint_eq(c[0], 4 * t);
    }
}
END_TEST

/* ptxas's split of a fragment load: f16 A row-major, four 4-byte accesses
 * (the wmma_gemm listing's LDG.E); f32 C row-major, four 8-byte ones
 * (STG.E.64); f16 A in shared memory, one LDSM.16.M88.4 of 32 rows. */
START_TEST(wmma_parts)
{
    struct xop x;
    memset(&x, 0, sizeof x);
    x.kind = XK_WLOAD;
    x.shape = SH_M16N16K16;
    x.type2 = x.btype = PT_F16;
    x.ctype = PT_F32;
    struct ptx_mma_desc d;
    ptx_mma_desc_of(&x, &d);
    struct ptx_frag_part p[PTX_PARTS_MAX];
    unsigned n = ptx_mma_parts(&d, 'a', false, false, p);
    ck_assert_uint_eq(n, 4);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(p[i].width, 4);
    n = ptx_mma_parts(&d, 'c', false, false, p);
    ck_assert_uint_eq(n, 4);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(p[i].width, 8);
    n = ptx_mma_parts(&d, 'a', true, false, p);    /* column-major A: one half at a time */
    ck_assert_uint_eq(n, 8);
    ck_assert_uint_eq(p[0].width, 2);
    n = ptx_mma_parts(&d, 'a', false, true, p);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(p[0].ldsm, 1);
    /* its 32 rows: every 8-element piece of the 16 x 16 tile once */
    unsigned seen[16][2] = { { 0 } };
    for (unsigned lane = 0; lane < 32; lane++) {
        uint64_t off;
        ck_assert(ptx_mma_ldsm_row(&d, 'a', false, 16, 1, lane, &off));
        seen[off / 32][(off % 32) / 16]++;
    }
    for (unsigned i = 0; i < 16; i++)
        ck_assert(seen[i][0] == 1 && seen[i][1] == 1);
}
END_TEST

static float
tf32_step(const float *a, const float *b, unsigned n, bool neg, float c)
{
    return ptx_mma_step(a, b, n, neg, c, PT_TF32, false);
}

/* One TF32 step as the H100 computes it (ptx_mma_step), on both
 * sides of each rule: an operand's bits below TF32's 10 are dropped; a
 * term below 2 bits under the largest one's 24-bit significand is dropped
 * before the sum (eight of 2^-26 on 1.0 add nothing, where their exact sum
 * is an ulp); the sum is truncated to FP32, toward zero for either sign
 * (1 + 0.75 ulp is 1, not 1 + 1 ulp); special values as IEEE has them. */
START_TEST(tf32_step_rules)
{
    float one = 1.0f, a[8], b[8];
    /* operand truncation: 1 + 2^-11 reads as 1; 1 + 2^-10 is TF32's own */
    a[0] = 1.0f + 0x1p-11f;
    b[0] = 1.0f;
    ck_assert_float_eq(tf32_step(a, b, 1, false, 0.0f), 1.0f);
    a[0] = 1.0f + 0x1p-10f;
    ck_assert_float_eq(tf32_step(a, b, 1, false, 0.0f), 1.0f + 0x1p-10f);
    /* alignment: 2^-26 terms vanish, 2^-25 ones stay (8 x 2^-25 = 2 ulps) */
    for (unsigned k = 0; k < 8; k++) {
        a[k] = 0x1p-13f;
        b[k] = 0x1p-13f;
    }
    ck_assert_float_eq(tf32_step(a, b, 8, false, one), 1.0f);
    for (unsigned k = 0; k < 8; k++)
        b[k] = 0x1p-12f;
    ck_assert_float_eq(tf32_step(a, b, 8, false, one), 1.0f + 0x1p-22f);
    /* the final truncation: 1 + 3 x 2^-25 (0.75 ulp) is 1; 1 + 4 x 2^-25 is 1 + ulp */
    a[0] = 0x1.8p-12f;
    b[0] = 0x1p-13f;
    ck_assert_float_eq(tf32_step(a, b, 1, false, one), 1.0f);
    ck_assert_float_eq(tf32_step(a, b, 1, true, -one), -1.0f);   /* toward zero */
    a[0] = 0x1p-10f;
    ck_assert_float_eq(tf32_step(a, b, 1, false, one), 1.0f + 0x1p-23f);
    /* just below a power of two: 2 - 2^-23 less a quarter ulp is 2 - 2 ulps
     * (round to nearest would keep 2 - 2^-23) */
    a[0] = 0x1p-12f;
    b[0] = -0x1p-13f;
    ck_assert_float_eq(tf32_step(a, b, 1, false, 2.0f - 0x1p-23f), 2.0f - 0x1p-22f);
    /* cancellation is exact zero; special values */
    a[0] = 3.0f;
    b[0] = 1.0f;
    a[1] = -3.0f;
    b[1] = 1.0f;
    ck_assert_uint_eq(f2u(tf32_step(a, b, 2, false, 0.0f)), 0);
    a[0] = u2f(0x7f800000u);
    b[0] = 0.0f;
    ck_assert(isnan(tf32_step(a, b, 1, false, 0.0f)));
    b[0] = -2.0f;
    ck_assert_float_eq(tf32_step(a, b, 1, false, 1.0f), -INFINITY);
    ck_assert(isnan(tf32_step(a, b, 1, false, INFINITY)));
}
END_TEST

/* FP16 and BF16 steps: 16 products a step, aligned as TF32's (sixteen
 * of 2^-26 on 1.0 add nothing, where their exact sum is 2^-22), and an
 * FP16 result rounded to nearest even from the aligned sum (1 + 0.75 ulp
 * is 1 + ulp, 1 + 0.5 ulp ties to 1; truncation would give 1 for both). */
START_TEST(f16_bf16_step_rules)
{
    float a[16], b[16];
    for (unsigned k = 0; k < 16; k++) {
        a[k] = 0x1p-13f;
        b[k] = 0x1p-13f;
    }
    ck_assert_float_eq(ptx_mma_step(a, b, 16, false, 1.0f, PT_F16, false), 1.0f);
    ck_assert_float_eq(ptx_mma_step(a, b, 16, false, 1.0f, PT_BF16, false), 1.0f);
    for (unsigned k = 0; k < 16; k++)
        b[k] = 0x1p-12f;          /* 2^-25 each: kept, 16 of them 2^-21 */
    ck_assert_float_eq(ptx_mma_step(a, b, 16, false, 1.0f, PT_BF16, false), 1.0f + 0x1p-21f);
    a[0] = 0x1.8p-5f;             /* 0.75 ulp of an FP16 1.0 */
    b[0] = 0x1p-6f;
    ck_assert_float_eq(ptx_mma_step(a, b, 1, false, 1.0f, PT_F16, true), 1.0f + 0x1p-10f);
    ck_assert_float_eq(ptx_mma_step(a, b, 1, true, -1.0f, PT_F16, true), -1.0f - 0x1p-10f);
    a[0] = 0x1p-5f;               /* 0.5 ulp: the tie goes to the even 1.0 */
    ck_assert_float_eq(ptx_mma_step(a, b, 1, false, 1.0f, PT_F16, true), 1.0f);
    ck_assert_float_eq(ptx_mma_step(a, b, 1, false, 1.0f, PT_F16, false), 1.0f + 0x1p-11f);
    a[0] = 256.0f;                /* beyond FP16's largest: infinity */
    b[0] = 256.0f;
    ck_assert_float_eq(ptx_mma_step(a, b, 1, false, 0.0f, PT_F16, true), INFINITY);
}
END_TEST

/* A random operand of type t as a float: any finite bit pattern of the
 * type, subnormals and zeros included, with both signs. */
static float
random_operand(unsigned t)
{
    uint32_t u;
    float f;
    do {
        uint32_t r = (uint32_t)rand() << 16 ^ (uint32_t)rand();
        if (t == PT_F16) {
            f = ptx_half_to_float((uint16_t)r);
            memcpy(&u, &f, 4);
        } else {
            u = t == PT_BF16 ? r << 16 : r & 0xffffe000u;
        }
    } while (((u >> 23) & 255) == 255);
    memcpy(&f, &u, 4);
    return f;
}

/* ptx_mma_dot takes a faster path (four products at a time in floats)
 * when every significand has 11 bits or fewer: it must give the bits of
 * the general path (the vectors marked wide) for every operand, sign,
 * accumulator and result type.  Narrow exponent ranges make the products
 * overlap, wide ones exercise the truncation of small terms. */
START_TEST(dot_fast_path_agrees)
{
    static const unsigned types[] = { PT_F16, PT_BF16, PT_TF32 };
    static const unsigned ns[] = { 4, 8, 16, 32 };
    srand(7);
    for (unsigned it = 0; it < 60000; it++) {
        unsigned t = types[it % 3], n = ns[(it / 3) % 4];
        float a[32], b[32];
        for (unsigned k = 0; k < n; k++) {
            a[k] = random_operand(t);
            b[k] = random_operand(t);
            if (it & 1) {        /* magnitudes near 1: the sums carry */
                a[k] = ldexpf(frexpf(a[k], &(int){ 0 }), rand() % 5 - 2);
                b[k] = ldexpf(frexpf(b[k], &(int){ 0 }), rand() % 5 - 2);
            }
        }
        float c = (it & 2) ? 0.0f : random_operand(PT_TF32) * (float)(rand() % 3);
        bool neg = (it & 4) != 0, h = (it & 8) != 0;
        if (h && fabsf(c) > 60000.0f)
            c = 1.0f;
        struct ptx_mma_vec va, vb;
        ptx_mma_split(a, n, t, &va);
        ptx_mma_split(b, n, t, &vb);
        ck_assert(va.narrow && vb.narrow);
        float fast = ptx_mma_dot(&va, &vb, n, neg, c, h);
        va.narrow = 0;
        float slow = ptx_mma_dot(&va, &vb, n, neg, c, h);
        uint32_t uf, us;
        memcpy(&uf, &fast, 4);
        memcpy(&us, &slow, 4);
        ck_assert_msg(uf == us, "case %u (type %u, n %u): %08x against %08x", it, t, n, uf, us);
    }
}
END_TEST

/* Every FP16 split from its bits as from its float. */
START_TEST(split_f16_every_value)
{
    for (uint32_t h = 0; h < 65536; h++) {
        uint16_t bits = (uint16_t)h;
        float f = ptx_half_to_float(bits);
        struct ptx_mma_vec d, r;
        ptx_mma_split_f16(&bits, 1, &d);
        ptx_mma_split(&f, 1, PT_F16, &r);
        ck_assert_msg(d.cls[0] == r.cls[0] && d.s[0] == r.s[0] && d.m[0] == r.m[0] &&
                      d.e[0] == r.e[0] && d.any == r.any && d.narrow == r.narrow &&
                      memcmp(&d.f[0], &r.f[0], 4) == 0, "half %04x", h);
    }
}
END_TEST

static Suite *
mma_suite(void)
{
    Suite *s = suite_create("ptx_mma");
    TCase *tc = tcase_create("mma");
    tcase_add_test(tc, mma_m16n8k8_tf32);
    tcase_add_test(tc, tf32_step_rules);
    tcase_add_test(tc, f16_bf16_step_rules);
    tcase_add_test(tc, mma_m16n8k16_f16);
    tcase_add_test(tc, mma_f64);
    tcase_add_test(tc, mma_f64_rounding);
    tcase_add_test(tc, mma_mask);
    tcase_add_test(tc, wmma_layout_covers);
    tcase_add_test(tc, mma_frag_shift);
    tcase_add_test(tc, wmma_mma_product);
    tcase_add_test(tc, wmma_parts);
    tcase_add_test(tc, dot_fast_path_agrees);
    tcase_add_test(tc, split_f16_every_value);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(mma_suite)
