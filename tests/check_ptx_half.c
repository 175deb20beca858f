/*
 * check_ptx_half.c - half-precision arithmetic, comparisons and conversions
 * (.f16, .bf16, .f16x2, .bf16x2) and dp4a/dp2a of the PTX frontend
 * (frontend/ptx_half.c, ptx_alu.c), and what the sm_90 lowering issues for
 * them (frontend/ptx_lower.c).
 *
 * Three kinds of test: instructions run on chosen inputs against values
 * computed by hand (ties, subnormals, overflow, NaN, signed zeros, .sat,
 * .relu, .ftz, the single rounding of fma); the CUDA kernels of
 * tests/ptx/half_math.cu (compiled by nvcc 13.0, committed as PTX) over
 * random inputs against a C reference written independently of
 * ptx_half.c (its rounding searches the sorted 16-bit values instead of
 * working on the bits), each as written and lowered for sm_90; and the
 * SASS operations and Nsight Compute pipes of the lowered instructions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/ptx/ptx_ir.h"
#include "frontend/record.h"
#include "frontend/sass/sass_isa.h"
#include "testlib.h"

/* ---- an independent reference ------------------------------------------- */

enum { F16, BF16 };

static unsigned
mbits(unsigned fmt)
{
    return fmt == F16 ? 10 : 7;
}

static uint16_t
inf_bits(unsigned fmt)
{
    return fmt == F16 ? 0x7c00 : 0x7f80;
}

/* The value of h: (-1)^s x 2^(e - bias) x 1.m, or 2^(1 - bias) x 0.m. */
static double
ref_value(uint16_t h, unsigned fmt)
{
    unsigned mb = mbits(fmt), eb = fmt == F16 ? 5 : 8;
    int bias = fmt == F16 ? 15 : 127;
    unsigned e = (h >> mb) & ((1u << eb) - 1), m = h & ((1u << mb) - 1);
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == (1u << eb) - 1)
        return m ? NAN : s * INFINITY;
    if (e == 0)
        return s * ldexp(m, 1 - bias - (int)mb);
    return s * ldexp(m + (1u << mb), (int)e - bias - (int)mb);
}

/* The magnitude of pattern p, for p up to the infinity pattern (which
 * stands for the first value past the largest finite one). */
static double
ref_mag(uint16_t p, unsigned fmt)
{
    return p == inf_bits(fmt) ? ldexp(1.0, fmt == F16 ? 16 : 128) : ref_value(p, fmt);
}

/* hi + lo (|lo| below half a double place of hi, or 0) rounded to fmt:
 * rnd 0 to nearest even, 1 toward zero, 2 down, 3 up (directed: lo = 0). */
static uint16_t
ref_round(double hi, double lo, unsigned fmt, unsigned rnd)
{
    if (isnan(hi))
        return 0x7fff;
    uint16_t sign = signbit(hi) ? 0x8000 : 0, inf = inf_bits(fmt);
    double a = fabs(hi), alo = signbit(hi) ? -lo : lo;
    if (isinf(a))
        return sign | inf;
    uint16_t l = 0, r = (uint16_t)(inf - 1);       /* the largest p with value <= a */
    while (l < r) {
        uint16_t mid = (uint16_t)((l + r + 1) / 2);
        if (ref_mag(mid, fmt) <= a)
            l = mid;
        else
            r = (uint16_t)(mid - 1);
    }
    uint16_t p = l, q = (uint16_t)(l + 1), res;
    double vp = ref_mag(p, fmt), vq = ref_mag(q, fmt);
    bool exact = a == vp && alo == 0, neg = sign != 0;
    switch (rnd) {
    case 1: res = p; break;
    case 2: res = neg && !exact ? q : p; break;
    case 3: res = !neg && !exact ? q : p; break;
    default:
        if (a == vp) {
            res = p;
        } else {
            double d1 = a - vp, d2 = vq - a;    /* exact (Sterbenz) */
            if (d1 != d2)
                res = d1 < d2 ? p : q;
            else
                res = alo > 0 ? q : alo < 0 ? p : (p & 1) ? q : p;
        }
        break;
    }
    if (res == inf && rnd == 1)
        res = p;
    return sign | res;
}

/* hi + lo = x + y exactly (Knuth's TwoSum). */
static void
two_sum(double x, double y, double *hi, double *lo)
{
    volatile double s = x + y;
    *hi = s;
    if (!isfinite(s)) {
        *lo = 0;
        return;
    }
    double bp = s - x;
    *lo = (x - (s - bp)) + (y - bp);
}

/* add 0, sub 1, mul 2, fma 3 of one half. */
static uint16_t
ref_arith(unsigned op, unsigned fmt, uint16_t a, uint16_t b, uint16_t c)
{
    double x = ref_value(a, fmt), y = ref_value(b, fmt), z = ref_value(c, fmt), hi, lo = 0;
    switch (op) {
    case 0: two_sum(x, y, &hi, &lo); break;
    case 1: two_sum(x, -y, &hi, &lo); break;
    case 2: hi = x * y; break;
    default: two_sum(x * y, z, &hi, &lo); break;
    }
    return ref_round(hi, lo, fmt, 0);
}

static bool
ref_nan(uint16_t h, unsigned fmt)
{
    return isnan(ref_value(h, fmt));
}

/* min (is_min) or max, with .NaN (nan). */
static uint16_t
ref_minmax(bool is_min, bool nan, unsigned fmt, uint16_t a, uint16_t b)
{
    bool na = ref_nan(a, fmt), nb = ref_nan(b, fmt);
    if ((na && nb) || (nan && (na || nb)))
        return 0x7fff;
    if (na || nb)
        return na ? b : a;
    double x = ref_value(a, fmt), y = ref_value(b, fmt);
    if (x == 0 && y == 0)
        return is_min ? (uint16_t)(a | b) : (uint16_t)(a & b);   /* -0 < +0 */
    return (x < y) == is_min ? a : b;
}

/* ---- running PTX -------------------------------------------------------- */

static char g_path[600];

static const char *
srcfile(const char *rel)
{
    const char *srcdir = getenv("srcdir");
    char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", srcdir ? srcdir : ".", rel);
    if (realpath(buf, g_path) == NULL)
        ck_abort_msg("cannot find %s", buf);
    return g_path;
}

/* A kernel over one warp: lane l reads the four words in[l][0..3] into
 * %r1..%r4, runs body and stores %r10 to out[l]. */
static void
write_body(const char *body, const uint32_t (*in)[4], unsigned n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/in.bin", testlib_dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    uint32_t words[32][4];
    memset(words, 0, sizeof words);
    memcpy(words, in, n * sizeof *in);
    ck_assert_uint_eq(fwrite(words, sizeof words, 1, fp), 1);
    fclose(fp);
    snprintf(path, sizeof path, "%s/k.ptx", testlib_dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, ".version 9.0\n.target sm_90\n.address_size 64\n"
                ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
                "    .reg .pred %%p<8>;\n    .reg .b16 %%h<16>;\n    .reg .b32 %%r<32>;\n"
                "    .reg .b64 %%rd<12>;\n"
                "    ld.param.u64 %%rd1, [pin];\n    ld.param.u64 %%rd2, [pout];\n"
                "    cvta.to.global.u64 %%rd3, %%rd1;\n    cvta.to.global.u64 %%rd4, %%rd2;\n"
                "    mov.u32 %%r0, %%tid.x;\n    mul.wide.u32 %%rd5, %%r0, 16;\n"
                "    add.s64 %%rd6, %%rd3, %%rd5;\n"
                "    ld.global.v4.u32 {%%r1, %%r2, %%r3, %%r4}, [%%rd6];\n"
                "    %s\n"
                "    mul.wide.u32 %%rd7, %%r0, 4;\n    add.s64 %%rd8, %%rd4, %%rd7;\n"
                "    st.global.u32 [%%rd8], %%r10;\n    ret;\n}\n", body);
    fclose(fp);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "ptx = k.ptx\nkernel = k\ngrid = 1\nblock = 32\nregs = 32\n"
                "arg = in buffer u32 128 file in.bin\narg = out buffer u32 32 zeros\n");
    fclose(fp);
}

/* Emulate launch file `launch` (set_target(cc) first unless 0); the
 * caller destroys src. */
static void
emulate(const char *launch, unsigned cc, struct inst_source *src)
{
    struct sim_error err = { 0 };
    struct record_totals tot;
    ck_assert_msg(ptx_source_open(launch, src, &err) == SIM_OK, "%s", err.msg);
    if (cc != 0)
        src->ops->set_target(src->ctx, cc);
    ck_assert_msg(record_emulate(src, &tot, &err) == SIM_OK, "%s", err.msg);
}

struct lane {
    uint32_t in[4];
    uint32_t want;
};

/* Run body on the lanes (as written and lowered for sm_90: the same). */
static void
expect_lanes(const char *body, const struct lane *v, unsigned n)
{
    uint32_t in[32][4];
    for (unsigned i = 0; i < n; i++)
        memcpy(in[i], v[i].in, sizeof in[i]);
    write_body(body, (const uint32_t (*)[4])in, n);
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        struct inst_source src;
        emulate(path, cc, &src);
        const uint32_t *out = (const uint32_t *)ptx_source_launch(&src)->args[1].data;
        for (unsigned i = 0; i < n; i++)
            ck_assert_msg(out[i] == v[i].want, "%s\nlane %u (in %#x %#x %#x, target %u): %#010x, "
                          "expected %#010x", body, i, v[i].in[0], v[i].in[1], v[i].in[2], cc,
                          out[i], v[i].want);
        inst_source_destroy(&src);
    }
}

#define LANES(body, ...) \
    do { \
        static const struct lane v_[] = { __VA_ARGS__ }; \
        expect_lanes(body, v_, SIM_ARRAY_LEN(v_)); \
    } while (0)

/* {hi, lo} halves as one word */
#define H2(hi, lo) ((uint32_t)(hi) << 16 | (uint32_t)(lo))

/* ---- hand-computed cases --------------------------------------------------- */

/* Ties to even, overflow to infinity (65520 is the tie above 65504),
 * subnormal sums, inf - inf, signed zeros; each half on its own. */
START_TEST(f16x2_add_sub_mul)
{
    LANES("add.f16x2 %r10, %r1, %r2;",
          { { H2(0x3c01, 0x3c00), H2(0x1000, 0x1000) }, H2(0x3c02, 0x3c00) },   /* 1+2^-11: tie */
          { { H2(0x7bff, 0x7bff), H2(0x4800, 0x4c00) }, H2(0x7bff, 0x7c00) },   /* 65512, 65520 */
          { { H2(0x0401, 0x0001), H2(0x8400, 0x0001) }, H2(0x0001, 0x0002) },   /* subnormals */
          { { H2(0x3c00, 0x7c00), H2(0xbc00, 0xfc00) }, H2(0x0000, 0x7fff) },   /* 1-1, inf-inf */
          { { H2(0x7e00, 0x8000), H2(0x3c00, 0x8000) }, H2(0x7fff, 0x8000) });  /* NaN, -0 + -0 */
    LANES("sub.f16x2 %r10, %r1, %r2;",
          { { H2(0x3c00, 0x3c00), H2(0x8000, 0x3c00) }, H2(0x3c00, 0x0000) },
          { { H2(0x6400, 0x0400), H2(0x1400, 0x03ff) }, H2(0x6400, 0x0001) });
    LANES("mul.f16x2 %r10, %r1, %r2;",
          { { H2(0x0003, 0x0001), H2(0x3800, 0x3800) }, H2(0x0002, 0x0000) },   /* 1.5, 0.5 x 2^-24 */
          { { H2(0x3e00, 0x5c00), H2(0x3e00, 0x5c00) }, H2(0x4080, 0x7c00) },   /* 2.25, 65536 */
          { { H2(0x7c00, 0x0000), H2(0xbc00, 0x7c00) }, H2(0xfc00, 0x7fff) });  /* -inf, 0 x inf */
    LANES("add.sat.f16x2 %r10, %r1, %r2;",
          { { H2(0xbc00, 0x3a00), H2(0x3800, 0x3800) }, H2(0x0000, 0x3c00) });
    LANES("add.ftz.f16x2 %r10, %r1, %r2;",
          { { H2(0x8001, 0x0001), 0 }, 0 },                     /* subnormal inputs flush */
          { { H2(0x3c00, 0x0400), H2(0x0200, 0x83ff) }, H2(0x3c00, 0x0400) },
          { { H2(0x3c00, 0x0600), H2(0x3c00, 0x8400) }, H2(0x4000, 0x0000) });  /* a subnormal sum */
}
END_TEST

/* fma rounds once: (1+2^-10)^2 - (1+2^-9) is 2^-20 (rounding the product
 * first gives 0); (1+2^-10)(1-2^-11) + 9 x 2^-24 = 1 + 2^-11 + 2^-24 is just
 * above the tie (through an FP32 fma it becomes the tie and rounds down);
 * 65504 x 2 - 65504 does not overflow. */
START_TEST(f16_fma)
{
    LANES("fma.rn.f16x2 %r10, %r1, %r2, %r3;",
          { { H2(0x3c01, 0x3c01), H2(0x3bff, 0x3c01), H2(0x0009, 0xbc02) }, H2(0x3c01, 0x0010) },
          { { H2(0x3c00, 0x7bff), H2(0x3c00, 0x4000), H2(0x8000, 0xfbff) }, H2(0x3c00, 0x7bff) },
          { { H2(0x0000, 0x8000), H2(0x3c00, 0x3c00), H2(0x8000, 0x0000) }, H2(0x0000, 0x0000) },
          { { H2(0x3c00, 0x8000), H2(0x3c00, 0x3c00), H2(0x7c00, 0x8000) }, H2(0x7c00, 0x8000) });
    LANES("fma.rn.sat.f16x2 %r10, %r1, %r2, %r3;",
          { { H2(0x3c00, 0x3c00), H2(0xbc00, 0x3c00), H2(0x3800, 0x3800) }, H2(0x0000, 0x3c00) },
          { { H2(0x3800, 0x7c00), H2(0x3800, 0x0000), 0 }, H2(0x3400, 0x0000) });  /* NaN -> 0 */
    LANES("fma.rn.relu.f16x2 %r10, %r1, %r2, %r3;",
          { { H2(0x7c00, 0xbc00), H2(0x0000, 0x3c00), 0 }, H2(0x7fff, 0x0000) },
          { { H2(0x4000, 0x3c00), H2(0x3c00, 0x3c00), H2(0xc400, 0x3800) }, H2(0x0000, 0x3e00) });
    /* scalar .f16 (the low halves) */
    LANES("mov.b32 {%h1, %h4}, %r1; mov.b32 {%h2, %h5}, %r2; mov.b32 {%h3, %h6}, %r3; "
          "fma.rn.f16 %h7, %h1, %h2, %h3; cvt.u32.u16 %r10, %h7;",
          { { 0x3c01, 0x3bff, 0x0009 }, 0x3c01 });
}
END_TEST

/* neg and abs flip or clear the sign (a NaN becomes the canonical one);
 * min/max: a NaN loses unless both are (or .NaN), -0 < +0, .xorsign.abs. */
START_TEST(f16_neg_abs_min_max)
{
    LANES("neg.f16x2 %r10, %r1;",
          { { H2(0x7e01, 0x3c00) }, H2(0x7fff, 0xbc00) },
          { { H2(0x0001, 0x8000) }, H2(0x8001, 0x0000) });
    LANES("abs.f16x2 %r10, %r1;", { { H2(0xfe00, 0xbc00) }, H2(0x7fff, 0x3c00) });
    LANES("min.f16x2 %r10, %r1, %r2;",
          { { H2(0x8000, 0x7e00), H2(0x0000, 0x3c00) }, H2(0x8000, 0x3c00) },
          { { H2(0x4000, 0x7e00), H2(0xc000, 0xfe00) }, H2(0xc000, 0x7fff) });
    LANES("max.f16x2 %r10, %r1, %r2;",
          { { H2(0x8000, 0x7e00), H2(0x0000, 0x3c00) }, H2(0x0000, 0x3c00) },
          { { H2(0x8000, 0x0000), H2(0x0000, 0x8000) }, H2(0x0000, 0x0000) });
    LANES("max.NaN.f16x2 %r10, %r1, %r2;",
          { { H2(0x3c00, 0x7e00), H2(0x4000, 0x3c00) }, H2(0x4000, 0x7fff) });
    LANES("min.xorsign.abs.f16x2 %r10, %r1, %r2;",
          { { H2(0x4200, 0xc000), H2(0x4000, 0x4200) }, H2(0x4000, 0xc000) });
    LANES("max.xorsign.abs.f16x2 %r10, %r1, %r2;",
          { { H2(0x4200, 0xc000), H2(0x4000, 0x4200) }, H2(0x4200, 0xc200) });
}
END_TEST

/* bfloat16: ties, overflow, subnormals; 1.75 x 0.578125 = 259/256 is a tie
 * exactly, so -2^-100 decides it (an fma in double would round the tiny
 * addend away and pick the even side). */
START_TEST(bf16_arith)
{
    LANES("add.rn.bf16x2 %r10, %r1, %r2;",
          { { H2(0x3f81, 0x3f80), H2(0x3b80, 0x3b80) }, H2(0x3f82, 0x3f80) },
          { { H2(0x7f7f, 0x3f80), H2(0x7f7f, 0x0001) }, H2(0x7f80, 0x3f80) });
    LANES("sub.rn.bf16x2 %r10, %r1, %r2;",
          { { H2(0x3f80, 0x4000), H2(0x4000, 0x3f80) }, H2(0xbf80, 0x3f80) });
    LANES("mul.rn.bf16x2 %r10, %r1, %r2;",
          { { H2(0x7f00, 0x4000), H2(0x4000, 0x4040) }, H2(0x7f80, 0x40c0) });
    LANES("fma.rn.bf16x2 %r10, %r1, %r2, %r3;",
          { { H2(0x3fe0, 0x3fe0), H2(0x3f14, 0x3f14), H2(0x0d80, 0x8d80) }, H2(0x3f82, 0x3f81) },
          { { H2(0x0001, 0x0080), H2(0x3f00, 0x3f00), 0 }, H2(0x0000, 0x0040) });
    LANES("fma.rn.relu.bf16x2 %r10, %r1, %r2, %r3;",
          { { H2(0x3f80, 0xbf80), H2(0x3f80, 0x3f80), H2(0x3f80, 0x0000) }, H2(0x4000, 0x0000) });
    LANES("neg.bf16x2 %r10, %r1;", { { H2(0x7fc1, 0x3f80) }, H2(0x7fff, 0xbf80) });
    LANES("min.bf16x2 %r10, %r1, %r2;",
          { { H2(0x8000, 0x7fc0), H2(0x0000, 0x3f80) }, H2(0x8000, 0x3f80) });
    LANES("mov.b32 {%h1, %h4}, %r1; mov.b32 {%h2, %h5}, %r2; mov.b32 {%h3, %h6}, %r3; "
          "fma.rn.bf16 %h7, %h1, %h2, %h3; cvt.u32.u16 %r10, %h7;",
          { { 0x3fe0, 0x3f14, 0x8d80 }, 0x3f81 });
}
END_TEST

/* setp.f16x2 p|q: p from the low halves, q from the high ones, each with
 * the boolean operation and c; set writes 0xffff or 1.0 per half. */
START_TEST(half_compare)
{
    const char *pq = "selp.u32 %r5, 1, 0, %p1; selp.u32 %r6, 2, 0, %p2; or.b32 %r10, %r5, %r6;";
    char body[512];
    snprintf(body, sizeof body, "setp.lt.f16x2 %%p1|%%p2, %%r1, %%r2; %s", pq);
    LANES(body,
          { { H2(0x4000, 0x3c00), H2(0x3c00, 0x4000) }, 1 },
          { { H2(0xbc00, 0x7e00), H2(0x3c00, 0x3c00) }, 2 },
          { { H2(0x0000, 0x8000), H2(0x8000, 0x0000) }, 0 });
    snprintf(body, sizeof body, "setp.ne.u32 %%p3, %%r3, 0; "
             "setp.ltu.and.f16x2 %%p1|%%p2, %%r1, %%r2, %%p3; %s", pq);
    LANES(body,
          { { H2(0x4000, 0x7e00), H2(0x3c00, 0x3c00), 1 }, 1 },
          { { H2(0x4000, 0x7e00), H2(0x3c00, 0x3c00), 0 }, 0 });
    snprintf(body, sizeof body, "setp.gt.bf16x2 %%p1|%%p2, %%r1, %%r2; %s", pq);
    LANES(body, { { H2(0x3f80, 0x4000), H2(0x4000, 0x3f80) }, 1 });
    LANES("setp.eq.f16x2 %p1, %r1, %r2; selp.u32 %r10, 1, 0, %p1;",
          { { H2(0x3c00, 0x3c00), H2(0x4000, 0x3c00) }, 1 });
    LANES("mov.b32 {%h1, %h4}, %r1; mov.b32 {%h2, %h5}, %r2; setp.ge.f16 %p1, %h1, %h2; "
          "selp.u32 %r10, 1, 0, %p1;",
          { { 0x3c00, 0x3c00 }, 1 }, { { 0x3c00, 0x7e00 }, 0 });
    LANES("set.lt.u32.f16x2 %r10, %r1, %r2;", { { H2(0x4000, 0x3c00), H2(0x3c00, 0x4000) }, 0xffff });
    LANES("set.le.f16x2.f16x2 %r10, %r1, %r2;",
          { { H2(0x4000, 0x3c00), H2(0x3c00, 0x4000) }, 0x3c00 });
    LANES("set.neu.bf16x2.bf16x2 %r10, %r1, %r2;",
          { { H2(0x7fc0, 0x3f80), H2(0x7fc0, 0x3f80) }, H2(0x3f80, 0x0000) });
    LANES("set.gt.s32.bf16x2 %r10, %r1, %r2;",
          { { H2(0x4000, 0x4000), H2(0x3f80, 0x3f80) }, 0xffffffffu });
}
END_TEST

/* cvt.rn.f16x2.f32 d, a, b puts a in the high half; ties, overflow,
 * subnormals, NaN, -0; .satfinite, .relu, .rz; bf16; the directed
 * roundings; integers; f64 without double rounding through f32. */
START_TEST(half_convert)
{
    LANES("cvt.rn.f16x2.f32 %r10, %r1, %r2;",
          { { 0x3f801000, 0x3f803000 }, H2(0x3c00, 0x3c02) },     /* 1+2^-11, 1+3x2^-11 */
          { { 0x477ff000, 0x477fef00 }, H2(0x7c00, 0x7bff) },     /* 65520, 65519 */
          { { 0x33000000, 0x33c00000 }, H2(0x0000, 0x0002) },     /* 2^-25, 3 x 2^-25 */
          { { 0x7fc00000, 0x80000000 }, H2(0x7fff, 0x8000) });
    LANES("cvt.rn.satfinite.f16x2.f32 %r10, %r1, %r2;",
          { { 0x49742400, 0xff800000 }, H2(0x7bff, 0xfbff) },
          { { 0x7fc00000, 0x3f800000 }, H2(0x7fff, 0x3c00) });
    LANES("cvt.rn.relu.f16x2.f32 %r10, %r1, %r2;",
          { { 0xbf800000, 0x40000000 }, H2(0x0000, 0x4000) },
          { { 0x7fc00000, 0x80000000 }, H2(0x7fff, 0x0000) });
    LANES("cvt.rz.f16x2.f32 %r10, %r1, %r2;", { { 0x3f803000, 0x477ff000 }, H2(0x3c01, 0x7bff) });
    LANES("cvt.rn.bf16x2.f32 %r10, %r1, %r2;",
          { { 0x3f808000, 0x3f818000 }, H2(0x3f80, 0x3f82) },
          { { 0x7f7fffff, 0x00000001 }, H2(0x7f80, 0x0000) });
    LANES("cvt.rn.satfinite.relu.bf16x2.f32 %r10, %r1, %r2;",
          { { 0x7f7fffff, 0xc0a00000 }, H2(0x7f7f, 0x0000) });
    LANES("cvt.rm.f16.f32 %h1, %r1; cvt.u32.u16 %r10, %h1;",
          { { 0xbf800800 }, 0xbc01 }, { { 0x3f800800 }, 0x3c00 });
    LANES("cvt.rp.f16.f32 %h1, %r1; cvt.u32.u16 %r10, %h1;",
          { { 0x3f800800 }, 0x3c01 }, { { 0x477fe100 }, 0x7c00 });
    LANES("cvt.rz.bf16.f32 %h1, %r1; cvt.u32.u16 %r10, %h1;",
          { { 0x3f80ffff }, 0x3f80 }, { { 0xff7fffff }, 0xff7f });
    LANES("cvt.rn.f16.s32 %h1, %r1; cvt.u32.u16 %r10, %h1;",
          { { 2049 }, 0x6800 }, { { 2051 }, 0x6802 }, { { (uint32_t)-65520 }, 0xfc00 },
          { { 65519 }, 0x7bff });
    LANES("cvt.rn.bf16.u32 %h1, %r1; cvt.u32.u16 %r10, %h1;",
          { { 0xffffffffu }, 0x4f80 }, { { 257 }, 0x4380 });
    LANES("mov.b32 {%h1, %h2}, %r1; cvt.f32.bf16 %r10, %h1;", { { 0x3fc0 }, 0x3fc00000 });
    LANES("mov.b32 {%h1, %h2}, %r1; cvt.f32.f16 %r10, %h1;", { { 0x0001 }, 0x33800000 });
    LANES("mov.b64 %rd9, {%r1, %r2}; cvt.rn.f16.f64 %h1, %rd9; cvt.u32.u16 %r10, %h1;",
          { { 0x00001000, 0x3ff00200 }, 0x3c01 });              /* 1 + 2^-11 + 2^-40 */
}
END_TEST

/* The FP8 pairs (OCP E4M3: bias 7, no infinities, 448 the largest; E5M2:
 * bias 15, 57344): a to the high byte, rounded to nearest even (ties on
 * both sides), saturated to the largest finite value, NaN to 0x7f; back
 * to .f16x2 exactly. */
START_TEST(fp8_convert)
{
    LANES("cvt.rn.satfinite.e4m3x2.f32 %h1, %r1, %r2; cvt.u32.u16 %r10, %h1;",
          { { 0x3f800000, 0xc0000000 }, 0x38c0 },               /* 1, -2 */
          { { 0x43e00000, 0x43e80000 }, 0x7e7e },               /* 448, 464 (a tie: even) */
          { { 0x43f00000, 0xff800000 }, 0x7efe },               /* 480, -inf: saturated */
          { { 0x7fc00000, 0x3b000000 }, 0x7f01 },               /* NaN, 2^-9 (subnormal) */
          { { 0x3a800000, 0x3b400000 }, 0x0002 },               /* 2^-10, 3 x 2^-10: ties */
          { { 0x80000000, 0x3f880000 }, 0x8038 });              /* -0, 1 + 1/16 (a tie) */
    LANES("cvt.rn.satfinite.e5m2x2.f32 %h1, %r1, %r2; cvt.u32.u16 %r10, %h1;",
          { { 0x3f800000, 0xc0000000 }, 0x3cc0 },
          { { 0x47600000, 0x47700000 }, 0x7b7b },               /* 57344, 61440 (to inf: max) */
          { { 0x7f800000, 0x7fc00000 }, 0x7b7f },               /* inf, NaN */
          { { 0x37800000, 0x37000000 }, 0x0100 });              /* 2^-16, 2^-17 (a tie) */
    LANES("cvt.rn.satfinite.relu.e4m3x2.f32 %h1, %r1, %r2; cvt.u32.u16 %r10, %h1;",
          { { 0xbf800000, 0x40000000 }, 0x0040 });              /* -1 -> 0, 2 */
    LANES("cvt.rn.satfinite.e4m3x2.f16x2 %h1, %r1; cvt.u32.u16 %r10, %h1;",
          { { H2(0x3c00, 0x5f00) }, 0x387e });                  /* 1, 448 */
    LANES("mov.b32 {%h1, %h2}, %r1; cvt.rn.f16x2.e4m3x2 %r10, %h1;",
          { { 0x7e01 }, H2(0x5f00, 0x1800) },                   /* 448, 2^-9 */
          { { 0x7f80 }, H2(0x7fff, 0x8000) });                  /* NaN, -0 */
    LANES("mov.b32 {%h1, %h2}, %r1; cvt.rn.f16x2.e5m2x2 %r10, %h1;",
          { { 0x7c01 }, H2(0x7c00, 0x0100) },                   /* inf, 2^-16 */
          { { 0x7fbb }, H2(0x7fff, 0xbb00) });                  /* NaN, -0.875: f16 high byte */
}
END_TEST

/* dp4a and dp2a: bytes (and halves) signed or not by their type, the sum
 * modulo 2^32. */
START_TEST(dot_products)
{
    LANES("dp4a.u32.u32 %r10, %r1, %r2, %r3;",
          { { 0x01020304, 0x05060708, 10 }, 80 },
          { { 0xffffffffu, 0xffffffffu, 0 }, 4 * 255 * 255 },
          { { 1, 1, 0xffffffffu }, 0 });
    LANES("dp4a.s32.s32 %r10, %r1, %r2, %r3;",
          { { 0xff80807fu, 0x017f80ffu, 5 }, 5 },
          { { 0x80808080u, 0x80808080u, 0x7fffffffu }, 0x8000ffffu });
    LANES("dp4a.s32.u32 %r10, %r1, %r2, %r3;", { { 0xff80807fu, 0x017f80ffu, 5 }, 0xffffff05u });
    LANES("dp4a.u32.s32 %r10, %r1, %r2, %r3;", { { 0xff80807fu, 0x017f80ffu, 5 }, 5 });
    LANES("dp2a.lo.s32.s32 %r10, %r1, %r2, %r3;", { { 0x80007fffu, 0x0000807fu, 3 }, 0x7f7f84 });
    LANES("dp2a.hi.s32.s32 %r10, %r1, %r2, %r3;", { { 0x80007fffu, 0x807f0000u, 3 }, 0x7f7f84 });
    LANES("dp2a.lo.u32.s32 %r10, %r1, %r2, %r3;", { { 0x80007fffu, 0x0000807fu, 3 }, 0xffff7f84u });
    LANES("dp2a.hi.s32.u32 %r10, %r1, %r2, %r3;", { { 0x80007fffu, 0x807f0000u, 3 }, 0xffff7f84u });
    LANES("dp2a.lo.u32.u32 %r10, %r1, %r2, %r3;", { { 0xffffffffu, 0xffffffffu, 0 }, 0x1fdfe02 });
}
END_TEST

/* ---- the rounding itself against the reference -------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static uint64_t
rnd64(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Every pattern's neighbourhood: the value itself, the tie with the next
 * one and a double place either side of it, in all four roundings; and
 * random doubles of every binade the formats reach. */
START_TEST(round_to_half)
{
    static const unsigned rnd_of[4] = { PR_RN, PR_RZ, PR_RM, PR_RP };
    for (unsigned fmt = F16; fmt <= BF16; fmt++) {
        uint16_t inf = inf_bits(fmt);
        for (uint32_t p = 0; p < inf; p++) {
            double v = ref_value((uint16_t)p, fmt), next = ref_mag((uint16_t)(p + 1), fmt);
            double tie = (v + next) / 2;
            double probe[5] = { v, tie, nextafter(tie, 0), nextafter(tie, INFINITY), -tie };
            for (unsigned k = 0; k < 5; k++)
                for (unsigned r = 0; r < 4; r++) {
                    uint16_t got = ptx_half_round(probe[k], fmt, rnd_of[r]);
                    uint16_t want = ref_round(probe[k], 0, fmt, r);
                    if (got != want)
                        ck_abort_msg("fmt %u, %a, rounding %u: %#06x, expected %#06x", fmt, probe[k],
                                     r, got, want);
                }
        }
        for (unsigned i = 0; i < 200000; i++) {
            int e = (int)(rnd64() % (fmt == F16 ? 50 : 280)) - (fmt == F16 ? 30 : 140);
            double v = ldexp((double)(rnd64() >> 11), e - 53) * ((rnd64() & 1) ? -1 : 1);
            unsigned r = (unsigned)(rnd64() & 3);
            ck_assert_uint_eq(ptx_half_round(v, fmt, rnd_of[r]), ref_round(v, 0, fmt, r));
        }
        ck_assert_uint_eq(ptx_half_round(NAN, fmt, PR_RN), 0x7fff);
        ck_assert_uint_eq(ptx_half_round(-INFINITY, fmt, PR_RZ), 0x8000 | inf);
    }
}
END_TEST

/* ---- the CUDA kernels of tests/ptx/half_math.cu ------------------------------- */

/* Launch kernel k of half_math.ptx over 1024 lanes (random inputs from
 * the launch file's initialisers); the caller destroys src. */
static const struct launch *
run_cuda(const char *k, bool cvt, unsigned cc, struct inst_source *src)
{
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "ptx = %s\nkernel = %s\ngrid = 4\nblock = 256\nregs = 32\n",
            srcfile("tests/ptx/half_math.ptx"), k);
    if (cvt)
        fprintf(fp, "arg = f buffer u32 2048 random 0 4294967295 seed 11\n");
    fprintf(fp, "arg = a buffer u32 1024 random 0 4294967295 seed 12\n"
                "arg = b buffer u32 1024 random 0 4294967295 seed 13\n"
                "arg = c buffer u32 1024 random 0 4294967295 seed 14\n"
                "arg = o buffer u32 8192 zeros\n");
    fclose(fp);
    emulate(path, cc, src);
    return ptx_source_launch(src);
}

/* h2math / bf2math: add, sub, mul, fma, min, max.NaN, fma.relu, a < b. */
static void
check_math(const char *k, unsigned fmt, unsigned cc)
{
    struct inst_source src;
    const struct launch *l = run_cuda(k, false, cc, &src);
    const uint32_t *A = (const uint32_t *)l->args[0].data, *B = (const uint32_t *)l->args[1].data;
    const uint32_t *C = (const uint32_t *)l->args[2].data, *O = (const uint32_t *)l->args[3].data;
    uint16_t one = fmt == F16 ? 0x3c00 : 0x3f80;
    for (unsigned i = 0; i < 1024; i++)
        for (unsigned h = 0; h < 2; h++) {
            uint16_t a = (uint16_t)(A[i] >> 16 * h), b = (uint16_t)(B[i] >> 16 * h);
            uint16_t c = (uint16_t)(C[i] >> 16 * h);
            uint16_t relu = ref_arith(3, fmt, a, b, c);
            if (!ref_nan(relu, fmt) && (relu & 0x8000))
                relu = 0;
            uint16_t want[8] = {
                ref_arith(0, fmt, a, b, c), ref_arith(1, fmt, a, b, c), ref_arith(2, fmt, a, b, c),
                ref_arith(3, fmt, a, b, c), ref_minmax(true, false, fmt, a, b),
                ref_minmax(false, true, fmt, a, b), relu,
                ref_value(a, fmt) < ref_value(b, fmt) ? one : 0,
            };
            for (unsigned j = 0; j < 8; j++) {
                uint16_t got = (uint16_t)(O[8 * i + j] >> 16 * h);
                if (got != want[j])
                    ck_abort_msg("%s (target %u) lane %u half %u op %u: a %#06x b %#06x c %#06x: "
                                 "%#06x, expected %#06x", k, cc, i, h, j, a, b, c, got, want[j]);
            }
        }
    inst_source_destroy(&src);
}

START_TEST(cuda_half2)
{
    check_math("h2math", F16, 0);
    check_math("h2math", F16, 90);
    check_math("bf2math", BF16, 0);
    check_math("bf2math", BF16, 90);
}
END_TEST

static uint32_t
ref_dot(uint32_t a, uint32_t b, uint32_t c, bool sgn, int mode)   /* mode: 4, 0 lo, 2 hi */
{
    int64_t d = (int32_t)c;
    for (int i = 0; i < (mode == 4 ? 4 : 2); i++) {
        int64_t va = mode == 4 ? (int64_t)((a >> 8 * i) & 0xff) : (int64_t)((a >> 16 * i) & 0xffff);
        int64_t vb = (b >> 8 * ((mode == 4 ? 0 : mode) + i)) & 0xff;
        if (sgn) {
            va -= mode == 4 ? (va >= 128 ? 256 : 0) : (va >= 32768 ? 65536 : 0);
            vb -= vb >= 128 ? 256 : 0;
        }
        d += va * vb;
    }
    return (uint32_t)d;
}

START_TEST(cuda_convert_dot)
{
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        struct inst_source src;
        const struct launch *l = run_cuda("cvtdot", true, cc, &src);
        const uint32_t *F = (const uint32_t *)l->args[0].data, *A = (const uint32_t *)l->args[1].data;
        const uint32_t *B = (const uint32_t *)l->args[2].data, *C = (const uint32_t *)l->args[3].data;
        const uint32_t *O = (const uint32_t *)l->args[4].data;
        for (unsigned i = 0; i < 1024; i++) {
            float x, y;
            memcpy(&x, &F[2 * i], 4);
            memcpy(&y, &F[2 * i + 1], 4);
            uint32_t want[8] = {
                H2(ref_round(y, 0, F16, 0), ref_round(x, 0, F16, 0)),
                H2(ref_round(y, 0, BF16, 0), ref_round(x, 0, BF16, 0)),
                ref_round(x, 0, F16, 0), ref_round(x, 0, BF16, 0),
                ref_dot(A[i], B[i], C[i], true, 4), ref_dot(A[i], B[i], C[i], false, 4),
                ref_dot(A[i], B[i], C[i], true, 0), ref_dot(A[i], B[i], C[i], true, 2),
            };
            for (unsigned j = 0; j < 8; j++)
                if (O[8 * i + j] != want[j])
                    ck_abort_msg("cvtdot (target %u) lane %u word %u: f %#x %#x a %#x b %#x c %#x: "
                                 "%#x, expected %#x", cc, i, j, F[2 * i], F[2 * i + 1], A[i], B[i],
                                 C[i], O[8 * i + j], want[j]);
        }
        inst_source_destroy(&src);
    }
}
END_TEST

/* ---- the sm_90 lowering --------------------------------------------------------- */

/* The opcode names warp 0 issues for body after set_target(90). */
static unsigned
issued(const char *body, char (*names)[40], unsigned max)
{
    uint32_t in[1][4] = { { 0 } };
    write_body(body, (const uint32_t (*)[4])in, 1);
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    struct inst_source src;
    struct sim_error err = { 0 };
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    return testlib_warp0(&src, 90, NULL, names[0], 40, max);
}

static unsigned
count(char (*names)[40], unsigned n, const char *name)
{
    unsigned c = 0;
    for (unsigned i = 0; i < n; i++)
        c += strcmp(names[i], name) == 0;
    return c;
}

static unsigned
npipe(const char *name)
{
    return sass_npipe_of(SASS_HOPPER, name, strlen(name));
}

/* Packed arithmetic alternates between HFMA2.MMA (the shared pipe: no
 * Nsight Compute pipe of the five) and the FMA pipe's HFMA2 / HADD2 /
 * HMUL2, the MMA form first; .sat takes the FMA form; the others are one
 * operation each, on the pipes Nsight Compute counts them in. */
START_TEST(lowering)
{
    static char nm[128][40];
    unsigned n = issued("fma.rn.f16x2 %r10, %r1, %r2, %r3;", nm, 128);
    ck_assert_uint_eq(count(nm, n, "HFMA2.MMA"), 1);
    ck_assert_uint_eq(count(nm, n, "HFMA2"), 0);
    n = issued("fma.rn.f16x2 %r5, %r1, %r2, %r3; fma.rn.f16x2 %r6, %r2, %r3, %r4; "
               "fma.rn.f16x2 %r7, %r5, %r6, %r1; fma.rn.f16x2 %r8, %r7, %r5, %r6; "
               "add.f16x2 %r9, %r7, %r8; mul.bf16x2 %r11, %r8, %r9; "
               "fma.rn.sat.f16x2 %r12, %r11, %r9, %r1; xor.b32 %r10, %r12, %r11;", nm, 128);
    ck_assert_uint_eq(count(nm, n, "HFMA2.MMA"), 3);      /* fma, fma, add */
    ck_assert_uint_eq(count(nm, n, "HFMA2"), 3);          /* fma, fma, and the .sat one */
    ck_assert_uint_eq(count(nm, n, "HMUL2"), 1);
    n = issued("min.f16x2 %r5, %r1, %r2; setp.lt.f16x2 %p1|%p2, %r5, %r3; "
               "set.lt.u32.bf16x2 %r6, %r1, %r2; cvt.rn.f16x2.f32 %r7, %r1, %r2; "
               "cvt.rn.bf16x2.f32 %r8, %r1, %r2; dp4a.u32.s32 %r9, %r1, %r2, %r6; "
               "dp2a.hi.u32.u32 %r11, %r7, %r8, %r9; neg.f16x2 %r12, %r11; "
               "selp.b32 %r10, %r12, %r2, %p2;", nm, 128);
    static const char *const one[] = { "HMNMX2", "HSETP2", "HSET2", "F2FP.F16.F32.PACK_AB",
                                       "F2FP.BF16.F32.PACK_AB", "IDP.4A", "IDP.2A", "HADD2" };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(one); i++)
        ck_assert_msg(count(nm, n, one[i]) == 1, "%s", one[i]);
    ck_assert_uint_eq(npipe("HFMA2.MMA"), SASS_NPIPE_NONE);
    ck_assert_uint_eq(npipe("HFMA2"), SASS_NPIPE_FMA);
    ck_assert_uint_eq(npipe("HADD2"), SASS_NPIPE_FMA);
    ck_assert_uint_eq(npipe("IDP.4A"), SASS_NPIPE_FMA);
    ck_assert_uint_eq(npipe("HSETP2"), SASS_NPIPE_ALU);
    ck_assert_uint_eq(npipe("HMNMX2"), SASS_NPIPE_ALU);
    ck_assert_uint_eq(npipe("F2FP.F16.F32.PACK_AB"), SASS_NPIPE_ALU);
}
END_TEST

/* Two ld.param.u16 of the halves of one aligned word, packed by mov.b32
 * {lo, hi} (nvcc's code for a __half2 parameter), are one constant load;
 * a lone 16-bit parameter load stays. */
START_TEST(lowering_param_halves)
{
    static const char *const ptx =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k(.param .u64 p0, .param .align 4 .b8 p1[4], .param .u32 p2)\n{\n"
        "    .reg .b16 %rs<4>;\n    .reg .b32 %r<8>;\n    .reg .b64 %rd<4>;\n"
        "    ld.param.u64 %rd1, [p0];\n    ld.param.u16 %rs2, [p1+2];\n"
        "    ld.param.u16 %rs1, [p1];\n    ld.param.u16 %rs3, [p2];\n"
        "    cvta.to.global.u64 %rd2, %rd1;\n    mov.b32 %r1, {%rs1, %rs2};\n"
        "    ld.global.u32 %r2, [%rd2];\n    fma.rn.f16x2 %r3, %r1, %r2, %r2;\n"
        "    cvt.u32.u16 %r4, %rs3;\n    add.s32 %r5, %r3, %r4;\n"
        "    st.global.u32 [%rd2], %r5;\n    ret;\n}\n";
    char path[512];
    snprintf(path, sizeof path, "%s/k.ptx", testlib_dir);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(ptx, fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "ptx = k.ptx\nkernel = k\ngrid = 1\nblock = 32\nregs = 16\n"
                "arg = o buffer u32 1 const 0x3c003c00\narg = a u32 0x40003c00\narg = s u32 7\n");
    fclose(fp);
    struct inst_source src;
    struct sim_error err = { 0 };
    char names[256][40];
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    unsigned n = testlib_warp0(&src, 90, NULL, names[0], 40, 256), params = 0;
    ck_assert_uint_lt(n, 256);                   /* the whole stream */
    for (unsigned i = 0; i < n; i++)
        params += strcmp(names[i], "ULDC") == 0 || strcmp(names[i], "LDC") == 0;
    ck_assert_uint_eq(params, 1 + 3);            /* the stack pointer; p0, p1 once, p2 */
    emulate(path, 90, &src);                     /* {1, 2} x {1, 1} + {1, 1} = {2, 3}, + 7 */
    ck_assert_uint_eq(*(const uint32_t *)ptx_source_launch(&src)->args[0].data,
                      0x42004000u + 7);
    inst_source_destroy(&src);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("ptx_half");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, f16x2_add_sub_mul);
    tcase_add_test(tc, f16_fma);
    tcase_add_test(tc, f16_neg_abs_min_max);
    tcase_add_test(tc, bf16_arith);
    tcase_add_test(tc, half_compare);
    tcase_add_test(tc, half_convert);
    tcase_add_test(tc, fp8_convert);
    tcase_add_test(tc, dot_products);
    tcase_add_test(tc, round_to_half);
    tcase_add_test(tc, cuda_half2);
    tcase_add_test(tc, cuda_convert_dot);
    tcase_add_test(tc, lowering);
    tcase_add_test(tc, lowering_param_halves);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(suite)
