/*
 * check_ptx_sreg.c - what nvcc 12 and 13 emit beyond the suite kernels'
 * PTX: the predefined identifiers and special registers of the PTX ISA
 * (chapter 10, "Special Registers", and section 4.4's "Predefined
 * Identifiers") with the values the GPU gives for the launch, and the
 * relaxed operand sizes of section 9.4.1 ("Operand Size Exceeding
 * Instruction-Type Size"), each form against a C computation of the same
 * value.  Each kernel runs one warp (testlib_ptx_run) and stores one word
 * per lane.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "testlib.h"

#define N_LINES(a) (sizeof(a) / sizeof(a)[0])

/* The kernel's head: parameter 0 is the output buffer, %rd2 its global
 * address, %rd3 lane l's word (out + 4 l), %r1 the lane. */
#define HEAD(...) \
    ".version 9.0", ".target sm_90", ".address_size 64", \
    ".visible .entry k(.param .u64 k_param_0" __VA_ARGS__ ")", "{", \
    "    .reg .pred %p<8>;", "    .reg .b16 %rs<8>;", "    .reg .b32 %r<40>;", \
    "    .reg .b64 %rd<40>;", "    .reg .f32 %f<8>;", "    .reg .f64 %fd<8>;", \
    "    ld.param.u64 %rd1, [k_param_0];", "    cvta.to.global.u64 %rd2, %rd1;", \
    "    mov.u32 %r1, %laneid;", "    mul.wide.u32 %rd4, %r1, 4;", \
    "    add.s64 %rd3, %rd2, %rd4;"

/* Opening the module ptx[] (one line at 17 after HEAD) with a plain launch
 * file must fail with exit status 2 naming the launch file's kernel line,
 * PTX line 17 and frag. */
static void
expect_open_error(const char *const *ptx, size_t n, const char *frag)
{
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                          "arg = out buffer u32 32 zeros" };
    char path[512];
    struct inst_source src;
    struct sim_error err = { 0 };
    testlib_write_lines("k.ptx", ptx, n, 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    int rc = ptx_source_open(path, &src, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "k.launch:2: ") != NULL && strstr(err.msg, "k.ptx:17: ") &&
                  strstr(err.msg, frag), "%s", err.msg);
}

/* WARP_SZ, the ISA's one predefined constant (nvcc's spelling of
 * warpSize): 32, wherever an immediate may stand. */
START_TEST(warp_sz)
{
    static const char *const ptx[] = {
        HEAD(),
        "    mov.u32 %r2, WARP_SZ;",
        "    add.s32 %r3, %r2, WARP_SZ;",
        "    rem.u32 %r4, %r1, WARP_SZ;",
        "    mad.lo.s32 %r5, %r3, 1000, %r4;",
        "    st.global.u32 [%rd3], %r5;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, N_LINES(ptx), NULL, &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], 64000u + l);
    inst_source_destroy(&src);
}
END_TEST

/* The special registers beyond the thread and block ids, read by lane 0
 * into out[0 ..]: the reserved shared memory region (after the user's 100
 * static bytes, 16-aligned, and 40 dynamic ones: 160 .. 1184), the shared memory
 * sizes (%total_smem_size in sm_90's 128-byte units), a block as a
 * cluster of one, the driver's and performance-monitor registers (0), the
 * 64-bit %gridid (the launch number) and %current_graph_exec (0, no
 * device graph), %is_explicit_cluster (false), and the clock halves. */
START_TEST(special_registers)
{
    static const char *const ptx[] = {
        HEAD(),
        "    .shared .align 4 .b8 s[100];",
        "    setp.ne.u32 %p1, %r1, 0;",
        "    @%p1 bra $L__done;",
        "    mov.u32 %r2, %reserved_smem_offset_begin;",
        "    st.global.u32 [%rd2], %r2;",
        "    mov.u32 %r2, %reserved_smem_offset_end;",
        "    st.global.u32 [%rd2+4], %r2;",
        "    mov.u32 %r2, %reserved_smem_offset_cap;",
        "    st.global.u32 [%rd2+8], %r2;",
        "    mov.u32 %r2, %reserved_smem_offset_0;",
        "    st.global.u32 [%rd2+12], %r2;",
        "    mov.u32 %r3, %reserved_smem_offset_1;",
        "    st.global.u32 [%rd2+16], %r3;",
        "    st.shared.u32 [%r3], 77;",                 /* the region is shared memory */
        "    ld.shared.u32 %r2, [%r3];",
        "    st.global.u32 [%rd2+20], %r2;",
        "    mov.u32 %r2, %total_smem_size;",
        "    st.global.u32 [%rd2+24], %r2;",
        "    mov.u32 %r2, %aggr_smem_size;",
        "    st.global.u32 [%rd2+28], %r2;",
        "    mov.u32 %r2, %dynamic_smem_size;",
        "    st.global.u32 [%rd2+32], %r2;",
        "    mov.u32 %r2, %clusterid.x;",
        "    mov.u32 %r4, %nclusterid.x;",
        "    mad.lo.s32 %r2, %r4, 100, %r2;",
        "    mov.u32 %r4, %cluster_nctaid.y;",
        "    mad.lo.s32 %r2, %r4, 10000, %r2;",
        "    mov.u32 %r4, %cluster_nctarank;",
        "    mad.lo.s32 %r2, %r4, 1000000, %r2;",
        "    st.global.u32 [%rd2+36], %r2;",
        "    mov.u32 %r2, %cluster_ctaid.z;",
        "    mov.u32 %r4, %cluster_ctarank;",
        "    add.s32 %r2, %r2, %r4;",
        "    mov.u32 %r4, %clusterid.z;",
        "    add.s32 %r2, %r2, %r4;",
        "    mov.u32 %r4, %envreg0;",
        "    add.s32 %r2, %r2, %r4;",
        "    mov.u32 %r4, %envreg31;",
        "    add.s32 %r2, %r2, %r4;",
        "    mov.u32 %r4, %pm7;",
        "    add.s32 %r2, %r2, %r4;",
        "    st.global.u32 [%rd2+40], %r2;",
        "    mov.u64 %rd5, %gridid;",
        "    st.global.u64 [%rd2+48], %rd5;",
        "    mov.u64 %rd5, %current_graph_exec;",
        "    mov.u64 %rd6, %pm2_64;",
        "    add.s64 %rd5, %rd5, %rd6;",
        "    st.global.u64 [%rd2+56], %rd5;",
        "    mov.pred %p2, %is_explicit_cluster;",
        "    selp.u32 %r2, 1, 2, %p2;",
        "    st.global.u32 [%rd2+64], %r2;",
        "    mov.u32 %r2, %clock_hi;",
        "    st.global.u32 [%rd2+68], %r2;",
        "    mov.u32 %r2, %globaltimer_lo;",
        "    mov.u32 %r4, %globaltimer_hi;",
        "    setp.ne.u32 %p3, %r2, 0;",
        "    selp.u32 %r2, 1, 0, %p3;",
        "    add.s32 %r2, %r2, %r4;",
        "    st.global.u32 [%rd2+72], %r2;",
        "$L__done:",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, N_LINES(ptx), "smem = 40", &src);
    static const uint32_t want[19] = {
        160, 160 + 1024, 1024, 160, 168, 77, 256, 152 + 1024, 40, 0 + 100 * 1 + 10000 + 1000000,
        0, 0, 1, 0, 0, 0, 2, 0, 1,
    };
    for (unsigned i = 0; i < 19; i++)
        ck_assert_msg(out[i] == want[i], "out[%u] = %u, expected %u", i, out[i], want[i]);
    inst_source_destroy(&src);
}
END_TEST

/* A whole vector special register (mov.v4.u32 of %tid) is valid PTX that
 * smsim does not support: launching that kernel fails saying so, with the
 * launch file's line and the PTX line. */
START_TEST(vector_sreg_unsupported)
{
    static const char *const ptx[] = {
        HEAD(),
        "    mov.v4.u32 {%r2, %r3, %r4, %r5}, %tid;",
        "    ret;",
        "}",
    };
    expect_open_error(ptx, N_LINES(ptx), "unsupported");
    expect_open_error(ptx, N_LINES(ptx), "%tid");
}
END_TEST

/* Constants in vector operands: cuda_bf16.h's inline asm widens a
 * bfloat16 with mov.b32 %f, {0, %rs} (its bits in the high half), and a
 * vector store may store a constant. */
START_TEST(vector_constants)
{
    static const char *const ptx[] = {
        HEAD(", .param .u64 k_param_1"),
        "    cvt.u16.u32 %rs1, %r1;",
        "    mov.b32 %f1, {0, %rs1};",
        "    mov.b32 %r3, {%rs1, 3};",
        "    mov.b32 %r2, %f1;",
        "    add.s32 %r4, %r2, %r3;",
        "    st.global.u32 [%rd3], %r4;",
        "    mov.b64 %rd5, {%r1, 0x12345};",
        "    ld.param.u64 %rd30, [k_param_1];",
        "    cvta.to.global.u64 %rd31, %rd30;",
        "    mul.wide.u32 %rd6, %r1, 16;",
        "    add.s64 %rd31, %rd31, %rd6;",
        "    st.global.v2.u64 [%rd31], {%rd5, 77};",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, N_LINES(ptx), "arg = w buffer u64 64 zeros", &src);
    const uint64_t *w = (const uint64_t *)ptx_source_launch(&src)->args[1].data;
    for (uint32_t l = 0; l < 32; l++) {
        ck_assert_uint_eq(out[l], (l << 16) + (3u << 16) + l);
        ck_assert_uint_eq(w[2 * l], (UINT64_C(0x12345) << 32) + l);
        ck_assert_uint_eq(w[2 * l + 1], 77);
    }
    inst_source_destroy(&src);
}
END_TEST

/* A warp spinning on a word another warp of its block sets, with no
 * barrier between (cooperative groups' barrier of a tile of 64 threads,
 * block_tile_memory): the emulation gives the other warps turns, so warp
 * 0 sees warp 1's store and the kernel ends (it used to run forever). */
START_TEST(spin_on_another_warp)
{
    static const char *const ptx[] = {
        HEAD(),
        "    .shared .align 4 .u32 flag;",
        "    mov.u32 %r2, %tid.x;",
        "    setp.ne.u32 %p1, %r2, 32;",
        "    @%p1 bra $L__wait;",
        "    atom.shared.exch.b32 %r3, [flag], 5;",      /* warp 1, lane 0 */
        "$L__wait:",
        "    setp.ge.u32 %p2, %r2, 32;",
        "    @%p2 bra $L__end;",
        "$L__spin:",
        "    ld.volatile.shared.u32 %r4, [flag];",
        "    setp.eq.u32 %p3, %r4, 0;",
        "    @%p3 bra $L__spin;",
        "    st.global.u32 [%rd3], %r4;",
        "$L__end:",
        "    ret;",
        "}",
    };
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 64",
                                          "arg = out buffer u32 32 zeros" };
    char path[512];
    struct inst_source src;
    struct record_totals tot;
    struct sim_error err = { 0 };
    testlib_write_lines("k.ptx", ptx, N_LINES(ptx), 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    ck_assert_msg(record_emulate(&src, &tot, &err) == SIM_OK, "%s", err.msg);
    const uint32_t *out = (const uint32_t *)ptx_source_launch(&src)->args[0].data;
    for (unsigned l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], 5);
    inst_source_destroy(&src);
}
END_TEST

/* ---- relaxed operand sizes (PTX ISA 9.4.1) ---------------------------------- */

/* The value lane l starts from: every bit pattern class (sign bits set
 * and clear in each of the low 8, 16 and 32 bits) across the warp. */
static uint64_t
wide_value(unsigned l)
{
    return (uint64_t)l * UINT64_C(0x0123456789abcdef) ^ UINT64_C(0xf0f0f0f0f0f0f0f0);
}

static uint64_t
f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t
f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* cvt, ld and st with registers wider than their types, as nvcc emits
 * them (cvt.s64.s32 %rd9, %rd32 in llm.c's layernorm backward): a source
 * is truncated to the type, a result sign-extended for a signed integer
 * type and zero-extended otherwise; each against the C conversion. */
START_TEST(wide_operands)
{
    static const char *const ptx[] = {
        HEAD(", .param .u64 k_param_1"),
        "    ld.param.u64 %rd30, [k_param_1];",
        "    cvta.to.global.u64 %rd31, %rd30;",
        "    mul.wide.u32 %rd4, %r1, 128;",
        "    add.s64 %rd31, %rd31, %rd4;",              /* lane l's 16 words */
        "    cvt.u64.u32 %rd5, %r1;",
        "    mul.lo.s64 %rd5, %rd5, 81985529216486895;",   /* 0x0123456789abcdef */
        "    xor.b64 %rd5, %rd5, -1085102592571150096;",    /* 0xf0f0f0f0f0f0f0f0 */
        "    cvt.s64.s32 %rd6, %rd5;",
        "    st.global.u64 [%rd31], %rd6;",
        "    cvt.u64.u16 %rd6, %rd5;",
        "    st.global.u64 [%rd31+8], %rd6;",
        "    cvt.s32.s8 %r2, %rd5;",
        "    cvt.s64.s32 %rd6, %r2;",
        "    st.global.u64 [%rd31+16], %rd6;",
        "    cvt.u32.u64 %r3, %rd5;",
        "    cvt.s16.s32 %rd6, %r3;",                   /* sign-extended into 64 bits */
        "    st.global.u64 [%rd31+24], %rd6;",
        "    cvt.u16.u32 %rd6, %r3;",                   /* zero-extended */
        "    st.global.u64 [%rd31+32], %rd6;",
        "    cvt.rn.f32.s32 %f1, %rd5;",
        "    mov.b32 %r4, %f1;",
        "    cvt.u64.u32 %rd6, %r4;",
        "    st.global.u64 [%rd31+40], %rd6;",
        "    cvt.f64.f32 %fd1, %rd6;",                  /* f32 bits in a .b64 register */
        "    st.global.f64 [%rd31+48], %fd1;",
        "    mul.f64 %fd2, %fd1, 0d3FF0000000000001;",  /* 1 + 2^-52: not an f32 */
        "    cvt.rn.f32.f64 %rd6, %fd2;",               /* zero-extended f32 bits */
        "    st.global.u64 [%rd31+56], %rd6;",
        "    mul.f32 %f2, %f1, 0fBE800000;",            /* x -0.25 */
        "    cvt.rzi.s32.f32 %rd6, %f2;",
        "    st.global.u64 [%rd31+64], %rd6;",
        "    cvt.rn.f16.f32 %rd6, %f2;",                /* zero-extended f16 bits */
        "    cvt.f32.f16 %f3, %rd6;",                   /* back from the low 16 bits */
        "    st.global.f32 [%rd31+72], %f3;",
        "    st.global.b16 [%rd31+76], %rd5;",          /* the low 16 bits */
        "    st.global.b16 [%rd31+78], %rd6;",
        "    ld.global.f32 %rd7, [%rd31+72];",          /* zero-extended */
        "    st.global.u64 [%rd31+80], %rd7;",
        "    ld.global.s16 %rd7, [%rd31+76];",          /* sign-extended */
        "    st.global.u64 [%rd31+88], %rd7;",
        "    cvt.u8.s64 %rd8, %rd5;",                   /* the low byte, zero-extended */
        "    cvt.s8.u64 %r5, %rd5;",                    /* the low byte, sign-extended */
        "    cvt.s64.s32 %rd9, %r5;",
        "    add.s64 %rd8, %rd8, %rd9;",
        "    st.global.u64 [%rd31+96], %rd8;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    testlib_ptx_run(ptx, N_LINES(ptx), "arg = wide buffer u64 512 zeros", &src);
    const uint64_t *w = (const uint64_t *)ptx_source_launch(&src)->args[1].data;
    for (unsigned l = 0; l < 32; l++) {
        const uint64_t *o = w + 16 * l;
        uint64_t v = wide_value(l);
        float f = (float)(int32_t)v, q = f * -0.25f;
        double d = (double)f * (1.0 + 0x1p-52);
        uint16_t h = o[9] >> 48;                /* the half of q, checked as a float below */
        uint64_t want[13] = {
            (uint64_t)(int64_t)(int32_t)v, (uint16_t)v, (uint64_t)(int64_t)(int8_t)v,
            (uint64_t)(int64_t)(int16_t)v, (uint16_t)v, f32_bits(f), f64_bits((double)f),
            f32_bits((float)d), (uint64_t)(int64_t)(int32_t)q, 0,
            f32_bits(*(const float *)&o[9]), (uint64_t)(int64_t)(int16_t)v,
            (uint64_t)(uint8_t)v + (uint64_t)(int64_t)(int8_t)v,
        };
        want[9] = (o[9] & UINT64_C(0xffffffff)) | (uint64_t)(uint16_t)v << 32 | (uint64_t)h << 48;
        for (unsigned i = 0; i < 13; i++)
            ck_assert_msg(o[i] == want[i], "lane %u word %u: %#llx, expected %#llx", l, i,
                          (unsigned long long)o[i], (unsigned long long)want[i]);
        /* the f16 round trip: q to a half (11 bits; beyond 65504 infinite),
         * whose bits the result's low 16 bits were, back as a float */
        float back = *(const float *)&o[9];
        unsigned e = (h >> 10) & 31, m = h & 1023;
        double hv = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(m + 1024, (int)e - 25)
                                                       : ldexp(m, -24);
        ck_assert_msg((double)back == ((h & 0x8000) ? -hv : hv), "lane %u: %#x vs %g", l, h,
                      (double)back);
        ck_assert_msg(fabsf(q) >= 65520.0f ? isinf(back) && (back < 0) == (q < 0)
                                           : fabsf(back - q) <= fabsf(q) * 0x1p-11f,
                      "lane %u: %g vs %g", l, (double)back, (double)q);
    }
    inst_source_destroy(&src);
}
END_TEST

/* Invalid wide operands (ISA 9.4.1's tables): a floating-point register
 * for an integer type, a wider float for a float type, cvt's .bf16
 * source; each an error naming the launch file's kernel line and the PTX
 * line, as every other message does. */
static const struct { const char *ins, *frag; } bad_wide[] = {
    { "    cvt.rn.f32.s32 %f1, %fd1;", "register %fd1 (.f64) cannot hold the .s32 source" },
    { "    cvt.f64.f32 %fd1, %fd2;", "register %fd2 (.f64) cannot hold the .f32 source" },
    { "    ld.global.u32 %fd1, [%rd2];", "register %fd1 (.f64) cannot hold the .u32 result" },
    { "    cvt.f32.bf16 %f1, %rd5;", "cannot hold the .bf16 source" },
};

START_TEST(wide_operands_invalid)
{
    const char *const ptx[] = { HEAD(), bad_wide[_i].ins, "    ret;", "}" };
    expect_open_error(ptx, N_LINES(ptx), bad_wide[_i].frag);
}
END_TEST

/* Valid PTX smsim does not simulate says "unsupported" and names the
 * construct: an indirect branch through a table, a form with more
 * operands than smsim knows, textures. */
static const struct { const char *ins, *frag; } unsupported_forms[] = {
    { "    brx.idx %r1, tbl;", "unsupported instruction 'brx.idx'" },
    { "    add.s32 %r2, %r1, %r1, %r1;", "unsupported form: 'add' takes 3 operands, found 4" },
    { "    sured.b.add.1d.u32.trap [%rd1, {%r1}], %r1;",
      "unsupported instruction 'sured.b.add.1d.u32.trap'" },
    { "    tex.1d.v4.f16.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];", "unsupported tex form" },
};

START_TEST(unsupported_says_so)
{
    const char *const ptx[] = { HEAD(), unsupported_forms[_i].ins, "    ret;", "}" };
    expect_open_error(ptx, N_LINES(ptx), unsupported_forms[_i].frag);
}
END_TEST

static Suite *
ptx_sreg_suite(void)
{
    Suite *s = suite_create("ptx_sreg");
    TCase *tc = tcase_create("sreg");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, warp_sz);
    tcase_add_test(tc, special_registers);
    tcase_add_test(tc, vector_sreg_unsupported);
    tcase_add_test(tc, vector_constants);
    tcase_add_test(tc, spin_on_another_warp);
    tcase_add_test(tc, wide_operands);
    tcase_add_loop_test(tc, wide_operands_invalid, 0, (int)N_LINES(bad_wide));
    tcase_add_loop_test(tc, unsupported_says_so, 0, (int)N_LINES(unsupported_forms));
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_sreg_suite)
