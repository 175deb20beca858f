/*
 * check_ptx_forms.c - PTX forms that nvcc 13, CUDA's headers and CUTLASS-
 * style code emit and smsim once refused as valid-but-unsupported input:
 * bmsk and szext, prmt's modes, min/max .NaN and .xorsign.abs on .f32, ex2.approx and
 * tanh.approx on packed and bf16 halves, cache hints (createpolicy, the
 * .L2::cache_hint policy operand of ld, st and cp.async, applypriority,
 * discard, prefetch.tensormap, fence.proxy.tensormap), getctarank and
 * elect.sync's '_' destination.  Each kernel is emulated and timed and
 * must write the words the PTX ISA's definitions give, worked out here
 * by hand or by an independent C formula.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "testlib.h"

#define N_LINES(a) (sizeof(a) / sizeof(a)[0])

/* The expected words of out (ctx) for a check callback. */
struct want {
    const uint32_t *w;
    unsigned n;
};

static void
check_words(const struct launch *l, sim *s, void *ctx)
{
    const struct want *w = ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (unsigned i = 0; i < w->n; i++)
        ck_assert_msg(out[i] == w->w[i], "word %u: %#x, expected %#x (%s)", i, out[i], w->w[i],
                      s != NULL ? "run" : "emulate");
}

/* Emulate and time kernel k (one warp, out a buffer of n_out u32 zeros,
 * in a buffer of `in` words when given) and check out against want[]. */
static void
run_kernel(const char *const *ptx, size_t n, unsigned n_out, const char *in, const uint32_t *want,
           unsigned n_want)
{
    char out_arg[64];
    snprintf(out_arg, sizeof out_arg, "arg = out buffer u32 %u zeros", n_out);
    const char *launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32", out_arg, in };
    struct want w = { want, n_want };
    testlib_emulate_and_run(ptx, n, launch, N_LINES(launch) - (in == NULL), NULL, check_words, &w);
}

/* ---- bmsk, szext (PTX ISA 7.6, sm_70) --------------------------------------- */

static const uint32_t mask_pairs[16][2] = {
    { 1, 2 }, { 0, 0 }, { 0, 32 }, { 5, 40 }, { 40, 3 }, { 31, 1 }, { 30, 5 }, { 0, 31 },
    { 33, 1 }, { 8, 8 }, { 32, 0 }, { 3, 64 }, { 16, 16 }, { 12, 20 }, { 7, 25 }, { 0, 1 },
};

/* The mask of width w from bit p, in 32 bits, bit by bit. */
static uint32_t
bits_from(uint32_t p, uint32_t w)
{
    uint32_t m = 0;
    for (uint32_t i = p; i < p + w && i < 32; i++)
        m |= 1u << i;
    return m;
}

/* szext by its description: the low N bits of a, extended; N = 0: 0. */
static uint32_t
extend(uint32_t a, uint32_t n, bool sgn)
{
    if (n == 0)
        return 0;
    if (n >= 32)
        return a;
    uint32_t low = a & bits_from(0, n);
    return sgn && (a >> (n - 1) & 1) ? low | ~bits_from(0, n) : low;
}

START_TEST(bit_masks)
{
    char table[600];
    int off = snprintf(table, sizeof table, ".const .align 8 .b32 pairs[32] = {");
    uint32_t want[64];
    for (unsigned i = 0; i < 16; i++) {
        uint32_t a = mask_pairs[i][0], b = mask_pairs[i][1], v = a ^ 0xA5F0C3B4u;
        off += snprintf(table + off, sizeof table - (size_t)off, "%s%u, %u", i ? ", " : " ", a, b);
        want[4 * i] = a >= 32 ? 0 : bits_from(a, b > 32 ? 32 : b);        /* clamp */
        want[4 * i + 1] = bits_from(a & 31, b & 31);                       /* wrap */
        want[4 * i + 2] = extend(v, b > 32 ? 32 : b, true);
        want[4 * i + 3] = extend(v, b & 31, false);
    }
    snprintf(table + off, sizeof table - (size_t)off, " };");
    ck_assert_uint_eq(want[1], 0x6);    /* the PTX ISA's example: bmsk.wrap 1, 2 */
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64", table,
        ".visible .entry k(.param .u64 po)", "{",
        "    .reg .pred %p<2>;", "    .reg .b32 %r<16>;", "    .reg .b64 %rd<8>;",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    setp.ge.u32 %p1, %r1, 16;", "    @%p1 bra DONE;",
        "    mul.wide.u32 %rd5, %r1, 8;", "    mov.u64 %rd3, pairs;", "    add.s64 %rd6, %rd3, %rd5;",
        "    ld.const.v2.u32 {%r2, %r3}, [%rd6];",
        "    bmsk.clamp.b32 %r4, %r2, %r3;", "    bmsk.wrap.b32 %r5, %r2, %r3;",
        /* szext of a pattern with bit 31 and a mix below, the width b */
        "    xor.b32 %r10, %r2, 0xA5F0C3B4;",
        "    szext.clamp.s32 %r6, %r10, %r3;", "    szext.wrap.u32 %r7, %r10, %r3;",
        "    mul.wide.u32 %rd5, %r1, 16;", "    add.s64 %rd7, %rd2, %rd5;",
        "    st.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r7};",
        "DONE:", "    ret;", "}",
    };
    run_kernel(ptx, N_LINES(ptx), 64, NULL, want, 64);
}
END_TEST

/* ---- prmt's modes (PTX ISA 9.7.9.7) ------------------------------------------ */

/* d for a = 0x33221100, b = 0x77665544 (byte k of {b, a} is 0x11 k), by
 * mode and c[1:0], written out from the ISA's table (d.b3 d.b2 d.b1 d.b0). */
static const uint32_t prmt_want[6][4] = {
    { 0x33221100, 0x44332211, 0x55443322, 0x66554433 },   /* f4e */
    { 0x55667700, 0x66770011, 0x77001122, 0x00112233 },   /* b4e */
    { 0x00000000, 0x11111111, 0x22222222, 0x33333333 },   /* rc8 */
    { 0x33221100, 0x33221111, 0x33222222, 0x33333333 },   /* ecl */
    { 0x00000000, 0x11111100, 0x22221100, 0x33221100 },   /* ecr */
    { 0x11001100, 0x33223322, 0x11001100, 0x33223322 },   /* rc16 */
};

/* Lane l of 0 .. 7 gives c = l (bits above c[1:0] ignored) to each mode. */
START_TEST(prmt_modes)
{
    uint32_t want[48];
    for (unsigned l = 0; l < 8; l++)
        for (unsigned m = 0; m < 6; m++)
            want[6 * l + m] = prmt_want[m][l % 4];
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 po)", "{",
        "    .reg .pred %p<2>;", "    .reg .b32 %r<16>;", "    .reg .b64 %rd<8>;",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    setp.ge.u32 %p1, %r1, 8;", "    @%p1 bra DONE;",
        "    mov.b32 %r2, 0x33221100;", "    mov.b32 %r3, 0x77665544;",
        "    prmt.b32.f4e %r4, %r2, %r3, %r1;", "    prmt.b32.b4e %r5, %r2, %r3, %r1;",
        "    prmt.b32.rc8 %r6, %r2, %r3, %r1;", "    prmt.b32.ecl %r7, %r2, %r3, %r1;",
        "    prmt.b32.ecr %r8, %r2, %r3, %r1;", "    prmt.b32.rc16 %r9, %r2, %r3, %r1;",
        "    mul.wide.u32 %rd5, %r1, 24;", "    add.s64 %rd7, %rd2, %rd5;",
        "    st.global.v2.u32 [%rd7], {%r4, %r5};", "    st.global.v2.u32 [%rd7+8], {%r6, %r7};",
        "    st.global.v2.u32 [%rd7+16], {%r8, %r9};",
        "DONE:", "    ret;", "}",
    };
    run_kernel(ptx, N_LINES(ptx), 48, NULL, want, 48);
}
END_TEST

/* ---- min/max .NaN and .xorsign.abs on .f32 (sm_80, sm_86) ------------------- */

#define QNAN 0x7fc00000u
#define CANON 0x7fffffffu
#define NEG0 0x80000000u
#define ONE 0x3f800000u
#define TWO 0x40000000u
#define M3 0xc0400000u
#define SUB 0x00000001u          /* the smallest subnormal */

START_TEST(min_max_f32)
{
    static const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".const .align 8 .b32 pairs[16] = { 0x7fc00000, 0x3f800000, 0x3f800000, 0x7fc00000, "
        "0x7fc00000, 0x7fc00000, 0x80000000, 0, 0xc0000000, 0x40400000, 0x40000000, 0xc0400000, "
        "0x7f800000, 0xff800000, 1, 0x80000002 };",
        ".visible .entry k(.param .u64 po)", "{",
        "    .reg .b32 %r<16>;", "    .reg .f32 %f<16>;", "    .reg .b64 %rd<8>;",
        "    .reg .pred %p<2>;",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    setp.ge.u32 %p1, %r1, 8;", "    @%p1 bra DONE;",
        "    mul.wide.u32 %rd5, %r1, 8;", "    mov.u64 %rd4, pairs;", "    add.s64 %rd6, %rd4, %rd5;",
        "    ld.const.v2.f32 {%f1, %f2}, [%rd6];",
        "    min.NaN.f32 %f3, %f1, %f2;", "    max.NaN.f32 %f4, %f1, %f2;",
        "    min.xorsign.abs.f32 %f5, %f1, %f2;", "    max.NaN.xorsign.abs.f32 %f6, %f1, %f2;",
        "    min.ftz.NaN.f32 %f7, %f1, %f2;", "    min.NaN.xorsign.abs.f32 %f8, %f1, %f2;",
        "    mul.wide.u32 %rd5, %r1, 24;", "    add.s64 %rd7, %rd2, %rd5;",
        "    st.global.v2.f32 [%rd7], {%f3, %f4};", "    st.global.v2.f32 [%rd7+8], {%f5, %f6};",
        "    st.global.v2.f32 [%rd7+16], {%f7, %f8};",
        "DONE:", "    ret;", "}",
    };
    /* a, b | min.NaN, max.NaN, min.xorsign.abs, max.NaN.xorsign.abs, min.ftz.NaN,
     * min.NaN.xorsign.abs */
    static const uint32_t rows[8][8] = {
        { QNAN, ONE, CANON, CANON, ONE, CANON, CANON, CANON },       /* a NaN: .NaN gives it */
        { ONE, QNAN, CANON, CANON, ONE, CANON, CANON, CANON },
        { QNAN, QNAN, CANON, CANON, CANON, CANON, CANON, CANON },
        { NEG0, 0, NEG0, 0, NEG0, NEG0, NEG0, NEG0 },                /* -0 < +0; sign a ^ b */
        { 0xc0000000u, 0x40400000u, 0xc0000000u, 0x40400000u,        /* -2, 3 */
          0xc0000000u, 0xc0400000u, 0xc0000000u, 0xc0000000u },
        { TWO, M3, M3, TWO, 0xc0000000u, 0xc0400000u, M3, 0xc0000000u },   /* 2, -3 */
        { 0x7f800000u, 0xff800000u, 0xff800000u, 0x7f800000u,        /* inf, -inf */
          0xff800000u, 0xff800000u, 0xff800000u, 0xff800000u },
        { SUB, 0x80000002u, 0x80000002u, SUB, 0x80000001u, 0x80000002u, NEG0, 0x80000001u },
    };
    uint32_t want[48];
    for (unsigned i = 0; i < 8; i++)
        memcpy(&want[6 * i], &rows[i][2], 6 * sizeof want[0]);
    run_kernel(ptx, N_LINES(ptx), 48, NULL, want, 48);
}
END_TEST

/* ---- ex2.approx and tanh.approx on packed and bf16 halves ------------------- */

/* Exact cases: 2^2 = 4, 2^-1 = 0.5, tanh 0 = 0 (f16: 0x4400, 0x3800, 0;
 * bf16: 0x4080, 0x3f00); tanh 1 rounded to f16; and the packed form agrees
 * with the scalar .f16 one on an inexact value (0.3: 0x34cd). */
START_TEST(half_ex2_tanh)
{
    static const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 po)", "{",
        "    .reg .b16 %h<4>;", "    .reg .b32 %r<16>;", "    .reg .b64 %rd<4>;",
        "    .reg .pred %p<2>;",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    setp.ne.u32 %p1, %r1, 0;", "    @%p1 bra DONE;",
        "    mov.b32 %r2, 0xBC004000;",           /* f16x2 { 2, -1 } */
        "    ex2.approx.f16x2 %r3, %r2;",
        "    mov.b32 %r4, 0x00003C00;",           /* f16x2 { 1, 0 } */
        "    tanh.approx.f16x2 %r5, %r4;",
        "    mov.b32 %r6, 0xBF804000;",           /* bf16x2 { 2, -1 } */
        "    ex2.approx.ftz.bf16x2 %r7, %r6;",
        "    mov.b16 %h1, 0x34CD;",               /* f16 0.3 */
        "    ex2.approx.f16 %h2, %h1;",
        "    mov.b32 %r8, {%h1, %h1};",
        "    ex2.approx.f16x2 %r9, %r8;",
        "    mov.b32 %r10, {%h2, %h2};",
        "    st.global.v4.u32 [%rd2], {%r3, %r5, %r7, %r9};",
        "    st.global.u32 [%rd2+16], %r10;",
        "DONE:", "    ret;", "}",
    };
    /* { 4, 0.5 }; { tanh 1 = 0.761594: 0x3a18, tanh 0 = 0 }; bf16 { 4, 0.5 };
     * 2^0.3 = 1.231144 = 1 + 236.7 / 1024 in f16: 0x3ced (237), packed and
     * scalar alike */
    static const uint32_t want[5] = { 0x38004400u, 0x00003a18u, 0x3f004080u, 0x3ced3cedu,
                                      0x3ced3cedu };
    run_kernel(ptx, N_LINES(ptx), 8, NULL, want, 5);
}
END_TEST

/* ---- cache hints, tensor-map fences, getctarank, elect.sync _|p ------------- */

/* Each lane l copies word l of in to out[l] through ld/st with a cache
 * policy (createpolicy), and word 32 + l to out[32 + 2 l] through cp.async
 * with a policy (the last operand, not a src-size) and to out[33 + 2 l]
 * with a src-size of 2 and a policy (the rest zero-filled); the hints
 * (applypriority, discard of a line nobody reads again, prefetch.tensormap,
 * fence.proxy.tensormap) change nothing; getctarank gives 0 for the
 * block's own address and for mapa's rank 0, and elect.sync _|p elects
 * lane 0: out[96 + l] = elected | rank(mapa) << 4 | rank(own) << 8. */
START_TEST(hints)
{
    static const char *const ptx[] = {
        ".version 8.0", ".target sm_90a", ".address_size 64",
        ".visible .entry k(.param .u64 po, .param .u64 pi)", "{",
        "    .reg .b32 %r<16>;", "    .reg .b64 %rd<16>;", "    .reg .pred %p<4>;",
        "    .shared .align 16 .b8 sm[512];",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    ld.param.u64 %rd3, [pi];", "    cvta.to.global.u64 %rd4, %rd3;",
        "    mov.u32 %r1, %laneid;", "    mul.wide.u32 %rd5, %r1, 4;",
        "    add.s64 %rd6, %rd4, %rd5;", "    add.s64 %rd7, %rd2, %rd5;",
        "    createpolicy.fractional.L2::evict_last.b64 %rd8, 1.0;",
        "    createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd9, 0.5;",
        "    prefetch.tensormap [%rd3];",
        "    fence.proxy.tensormap::generic.release.gpu;",
        "    fence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;",
        "    applypriority.global.L2::evict_normal [%rd4], 128;",
        "    ld.global.L2::cache_hint.u32 %r2, [%rd6], %rd8;",
        "    st.global.L2::cache_hint.u32 [%rd7], %r2, %rd9;",
        "    mov.u32 %r3, sm;", "    mul.lo.u32 %r4, %r1, 8;", "    add.s32 %r5, %r3, %r4;",
        "    add.s64 %rd10, %rd6, 128;",
        "    cp.async.ca.shared.global.L2::cache_hint [%r5], [%rd10], 4, %rd8;",
        "    cp.async.ca.shared.global.L2::cache_hint [%r5+4], [%rd10], 4, 2, %rd8;",
        "    cp.async.wait_all;", "    bar.sync 0;",
        "    ld.shared.v2.u32 {%r6, %r7}, [%r5];",
        "    mul.wide.u32 %rd11, %r1, 8;", "    add.s64 %rd12, %rd2, %rd11;",
        "    st.global.v2.u32 [%rd12+128], {%r6, %r7};",
        "    getctarank.shared::cluster.u32 %r8, %r3;",
        "    mapa.shared::cluster.u32 %r9, %r3, 0;",
        "    getctarank.shared::cluster.u32 %r10, %r9;",
        "    elect.sync _|%p1, 0xffffffff;",
        "    selp.u32 %r11, 1, 0, %p1;",
        "    shl.b32 %r12, %r10, 4;", "    or.b32 %r11, %r11, %r12;",
        "    shl.b32 %r12, %r8, 8;", "    or.b32 %r11, %r11, %r12;",
        "    st.global.u32 [%rd7+384], %r11;",
        "    discard.global.L2 [%rd4+256], 128;",
        "    ret;", "}",
    };
    uint32_t want[128];
    for (unsigned l = 0; l < 32; l++) {
        want[l] = 100000 + l;
        want[32 + 2 * l] = 100032 + l;
        want[33 + 2 * l] = (100032 + l) & 0xffff;
        want[96 + l] = l == 0;
    }
    run_kernel(ptx, N_LINES(ptx), 128, "arg = in buffer u32 128 seq 100000", want, 128);
}
END_TEST

/* Labels are scoped by { } (inline assembly repeats its blocks, each with
 * the same labels: CUTLASS's barrier waits); a block's label hides an
 * outer one of the same name; a branch to a label its block does not
 * define reaches the enclosing one.  Each lane counts how many of three
 * blocks it passed through (a loop of 2 in each) into out[l], plus 100 from
 * the outer DONE. */
START_TEST(labels_in_blocks)
{
    static const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 po)", "{",
        "    .reg .pred %p<4>;", "    .reg .b32 %r<8>;", "    .reg .b64 %rd<4>;",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    mul.wide.u32 %rd3, %r1, 4;", "    add.s64 %rd2, %rd2, %rd3;",
        "    mov.u32 %r2, 0;",
        "    {", "    .reg .b32 %r3;", "    mov.u32 %r3, 0;",
        "LAB_WAIT:", "    add.u32 %r2, %r2, 1;", "    add.u32 %r3, %r3, 1;",
        "    setp.lt.u32 %p1, %r3, 2;", "    @%p1 bra LAB_WAIT;", "    bra DONE;",
        "    add.u32 %r2, %r2, 1000;", "DONE:", "    }",
        "    {", "    .reg .b32 %r3;", "    mov.u32 %r3, 0;",
        "LAB_WAIT:", "    add.u32 %r2, %r2, 1;", "    add.u32 %r3, %r3, 1;",
        "    setp.lt.u32 %p1, %r3, 2;", "    @%p1 bra LAB_WAIT;", "    bra DONE;",
        "    add.u32 %r2, %r2, 1000;", "DONE:", "    }",
        "    {", "    setp.eq.u32 %p2, %r2, 4;", "    @%p2 bra OUT;",   /* to the outer OUT */
        "    add.u32 %r2, %r2, 1000;", "    }",
        "    add.u32 %r2, %r2, 1000;",
        "OUT:", "    add.u32 %r2, %r2, 100;",
        "    st.global.u32 [%rd2], %r2;", "    ret;", "}",
    };
    uint32_t want[32];
    for (unsigned l = 0; l < 32; l++)
        want[l] = 104;
    run_kernel(ptx, N_LINES(ptx), 32, NULL, want, 32);
    /* twice in one block is still an error */
    static const char *const twice[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 po)", "{", "    {", "L:", "    bra L;", "L:", "    }",
        "    ret;", "}",
    };
    testlib_write_lines("k.ptx", twice, N_LINES(twice), 0, NULL, NULL);
    testlib_expect_error("k.ptx", 9, "label L defined twice");
}
END_TEST

/* brkpt (in CUTLASS's unreachable paths): decoded, harmless where no lane
 * reaches it; executed with no debugger it fails the launch as trap does. */
START_TEST(brkpt)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 po)", "{",
        "    .reg .pred %p<2>;", "    .reg .b32 %r<4>;", "    .reg .b64 %rd<4>;",
        "    ld.param.u64 %rd1, [po];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    mul.wide.u32 %rd3, %r1, 4;", "    add.s64 %rd2, %rd2, %rd3;",
        "    setp.gt.u32 %p1, %r1, 99;", "    @%p1 brkpt;",
        "    st.global.u32 [%rd2], %r1;", "    ret;", "}",
    };
    uint32_t want[32];
    for (unsigned l = 0; l < 32; l++)
        want[l] = l;
    run_kernel(ptx, N_LINES(ptx), 32, NULL, want, 32);
    testlib_write_lines("k.ptx", ptx, N_LINES(ptx), 15, "    @!%p1 brkpt;", NULL);
    testlib_expect_error("k.ptx", 15, "brkpt (a breakpoint, and no debugger): the kernel aborted");
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("ptx_forms");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, bit_masks);
    tcase_add_test(tc, prmt_modes);
    tcase_add_test(tc, min_max_f32);
    tcase_add_test(tc, half_ex2_tanh);
    tcase_add_test(tc, hints);
    tcase_add_test(tc, labels_in_blocks);
    tcase_add_test(tc, brkpt);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(suite)
