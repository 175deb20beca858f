/*
 * check_ptx_sched.c - the PTX frontend's sm_90 lowering and static schedule
 * (frontend/ptx_lower.c, ptx_sched.c): what the timing model sees after
 * set_target(90), and that the functional results do not change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "testlib.h"

/* A loop of eight independent FMA chains, its counter and compare, and a
 * store of their sum; %r4 is tid-dependent, %r3 the uniform counter. */
static const char *const LOOP_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .pred %p<3>;",
    "    .reg .b32 %r<8>;",
    "    .reg .f32 %f<12>;",
    "    .reg .b64 %rd<5>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    ld.param.u32 %r1, [k_param_1];",
    "    mov.u32 %r2, %tid.x;",
    "    cvt.rn.f32.u32 %f1, %r2;",
    "    add.f32 %f2, %f1, 0f3F800000;",
    "    add.f32 %f3, %f1, 0f40000000;",
    "    add.f32 %f4, %f1, 0f40400000;",
    "    add.f32 %f8, %f1, 0f40800000;",
    "    add.f32 %f9, %f1, 0f40A00000;",
    "    add.f32 %f10, %f1, 0f40C00000;",
    "    add.f32 %f11, %f1, 0f40E00000;",
    "    mov.u32 %r3, 0;",
    "$L_loop:",
    "    fma.rn.f32 %f1, %f1, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f2, %f2, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f3, %f3, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f4, %f4, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f8, %f8, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f9, %f9, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f10, %f10, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f11, %f11, 0f3F000000, 0f3F800000;",
    "    add.s32 %r3, %r3, 1;",
    "    add.s32 %r4, %r2, %r3;",
    "    setp.lt.s32 %p1, %r3, %r1;",
    "    @%p1 bra $L_loop;",
    "    add.f32 %f5, %f1, %f2;",
    "    add.f32 %f6, %f3, %f4;",
    "    add.f32 %f7, %f5, %f6;",
    "    add.f32 %f5, %f8, %f9;",
    "    add.f32 %f6, %f10, %f11;",
    "    add.f32 %f7, %f7, %f5;",
    "    add.f32 %f7, %f7, %f6;",
    "    cvt.rn.f32.u32 %f6, %r4;",
    "    add.f32 %f7, %f7, %f6;",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mul.wide.u32 %rd3, %r2, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.f32 [%rd4], %f7;",
    "    ret;",
    "}",
};

/* Write lines to testlib_dir/k.ptx and a launch file for one warp, 32
 * 32-bit outputs and the scalar `n`; open it. */
static void
open_kernel(const char *const *lines, size_t n, uint32_t scalar, struct inst_source *src)
{
    char path[512];
    snprintf(path, sizeof path, "%s/k.ptx", testlib_dir);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s\n", lines[i]);
    fclose(fp);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "ptx = k.ptx\nkernel = k\ngrid = 1\nblock = 32\n"
                "arg = out buffer u32 32 zeros\narg = n u32 %u\n", scalar);
    fclose(fp);
    struct sim_error err = { 0 };
    ck_assert_msg(ptx_source_open(path, src, &err) == SIM_OK, "%s", err.msg);
}

/* Warp 0's instruction stream (at most max) after set_target(cc). */
static unsigned
stream(const char *const *lines, size_t n, uint32_t scalar, unsigned cc, struct warp_inst *out,
       unsigned max)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    struct kernel_info ki;
    open_kernel(lines, n, scalar, &src);
    if (cc != 0)
        src.ops->set_target(src.ctx, cc);
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 1);
    ck_assert_int_eq(src.ops->kernel_begin(src.ctx, 1, 1, &err), SIM_OK);
    ck_assert_int_eq(src.ops->block_begin(src.ctx, 0, 0, 0, &err), SIM_OK);
    unsigned k = 0;
    struct warp_inst wi;
    while (k < max && inst_source_next(&src, 0, 0, SIM_CYCLE_MAX, &wi, &err) == 1)
        out[k++] = wi;
    inst_source_destroy(&src);
    return k;
}

/* The outputs (32 words) of emulating the kernel, lowered and scheduled
 * for cc (0: as nvcc wrote it). */
static void
outputs(const char *const *lines, size_t n, uint32_t scalar, unsigned cc, uint32_t *out)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    struct record_totals tot;
    open_kernel(lines, n, scalar, &src);
    if (cc != 0)
        src.ops->set_target(src.ctx, cc);
    ck_assert_msg(record_emulate(&src, &tot, &err) == SIM_OK, "%s", err.msg);
    memcpy(out, ptx_source_launch(&src)->args[0].data, 32 * sizeof *out);
    inst_source_destroy(&src);
}

/* Index of the loop's first instruction in the second pass through it
 * (after the first taken branch). */
static unsigned
second_pass(const struct warp_inst *w, unsigned n, unsigned *len)
{
    unsigned first_bra = n;
    for (unsigned i = 0; i < n; i++)
        if (w[i].opclass == SIM_OPC_BRANCH && i + 1 < n && w[i + 1].pc < w[i].pc) {
            if (first_bra == n) {
                first_bra = i;
            } else {
                *len = i - first_bra;
                return first_bra + 1;
            }
        }
    ck_abort_msg("the loop did not run twice");
    return 0;
}

/* The loop as ptxas orders it: the counter (on the uniform datapath)
 * first, the compare hoisted between the FMAs, the branch last with the
 * compare's 13 cycles before it; the PTX order without a target. */
START_TEST(test_loop_schedule)
{
    struct warp_inst w[128];
    unsigned n = stream(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 3, 90, w, 128), len = 0;
    unsigned s = second_pass(w, n, &len);
    ck_assert_uint_eq(len, 12);
    ck_assert_msg(w[s].opclass == SIM_OPC_UNIFORM, "loop starts with %s",
                  inst_opclass_name(w[s].opclass));
    unsigned setp = s, fma_after = 0;
    for (unsigned i = s; i < s + len; i++)
        if (w[i].opclass == SIM_OPC_SETP)
            setp = i;
    ck_assert_uint_gt(setp, s);
    for (unsigned i = setp; i < s + len; i++)
        fma_after += w[i].opclass == SIM_OPC_FP32_FMA;
    ck_assert_uint_ge(fma_after, 1);      /* hoisted above some of the body */
    ck_assert_uint_eq(w[s + len - 1].opclass, SIM_OPC_BRANCH);
    unsigned gap = 0;
    for (unsigned i = setp; i < s + len - 1; i++)
        gap += w[i].stall > 1 ? w[i].stall : 1;
    ck_assert_uint_ge(gap, 13);           /* the predicate's latency, in stall counts */
    /* the tid-dependent add is not uniform */
    unsigned ints = 0;
    for (unsigned i = s; i < s + len; i++)
        ints += w[i].opclass == SIM_OPC_INT;
    ck_assert_uint_eq(ints, 1);
    /* no target: the PTX order, no stall counts */
    n = stream(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 3, 0, w, 128);
    s = second_pass(w, n, &len);
    ck_assert_uint_eq(w[s].opclass, SIM_OPC_FP32_FMA);
    ck_assert_uint_eq(w[s + 8].opclass, SIM_OPC_INT);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_le(w[i].stall, 1);
    /* a target without tables (sm_80) keeps the PTX order too */
    n = stream(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 3, 80, w, 128);
    s = second_pass(w, n, &len);
    ck_assert_uint_eq(w[s].opclass, SIM_OPC_FP32_FMA);
}
END_TEST

/* Dependences of every kind, in blocks the scheduler reorders: a carry
 * chain, 64-bit pack/unpack, a value read then overwritten, a store then a
 * load of the same word, shared memory across a barrier, shuffles, and the
 * lowered ex2/sin in a loop (branch targets renumbered).  The outputs with
 * the sm_90 order and expansions are those of the PTX order. */
static const char *const DEPS_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .pred %p<4>;",
    "    .reg .b32 %r<24>;",
    "    .reg .f32 %f<8>;",
    "    .reg .b64 %rd<8>;",
    "    .shared .align 4 .b8 sm[128];",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    ld.param.u32 %r1, [k_param_1];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r2, %tid.x;",
    "    mul.wide.u32 %rd3, %r2, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    add.cc.u32 %r3, %r2, -5;",          /* carry chain */
    "    addc.u32 %r4, %r2, 7;",
    "    add.s32 %r20, %r4, 3;",             /* a chain from the addc: it would go first */
    "    add.s32 %r21, %r20, 5;",
    "    add.s32 %r22, %r21, 7;",
    "    mov.b64 %rd5, {%r4, %r22};",        /* pack ... */
    "    mov.b64 {%r5, %r6}, %rd5;",          /* ... unpack */
    "    add.s32 %r7, %r5, %r6;",
    "    mov.u32 %r5, 100;",                 /* %r5 read above, overwritten here */
    "    add.s32 %r7, %r7, %r5;",
    "    st.global.u32 [%rd4], %r7;",        /* store, then load the same word */
    "    ld.global.u32 %r8, [%rd4];",
    "    add.s32 %r8, %r8, 1;",
    "    mov.u32 %r9, sm;",
    "    shl.b32 %r10, %r2, 2;",
    "    add.s32 %r11, %r9, %r10;",
    "    st.shared.u32 [%r11], %r8;",
    "    bar.sync 0;",
    "    xor.b32 %r12, %r10, 4;",
    "    add.s32 %r13, %r9, %r12;",
    "    ld.shared.u32 %r14, [%r13];",
    "    shfl.sync.bfly.b32 %r15, %r14, 1, 31, -1;",
    "    add.s32 %r16, %r14, %r15;",
    "    cvt.rn.f32.u32 %f1, %r2;",
    "    mul.f32 %f1, %f1, 0f3C23D70A;",      /* 0.01 */
    "    mov.u32 %r17, 0;",
    "$L_loop:",
    "    ex2.approx.f32 %f2, %f1;",
    "    sin.approx.f32 %f3, %f1;",
    "    add.f32 %f1, %f2, %f3;",
    "    mul.f32 %f1, %f1, 0f3E800000;",      /* 0.25 */
    "    add.s32 %r17, %r17, 1;",
    "    setp.lt.s32 %p1, %r17, %r1;",
    "    @%p1 bra $L_loop;",
    "    setp.lt.u32 %p2, %r2, 16;",
    "    @%p2 bra $L_half;",
    "    cos.approx.f32 %f4, %f1;",
    "    add.f32 %f1, %f1, %f4;",
    "$L_half:",
    "    mov.b32 %r18, %f1;",
    "    xor.b32 %r19, %r16, %r18;",
    "    xor.b32 %r19, %r19, %r22;",
    "    xor.b32 %r19, %r19, %r3;",          /* the add.cc's own result, used last */
    "    st.global.u32 [%rd4], %r19;",
    "    ret;",
    "}",
};

START_TEST(test_same_results)
{
    uint32_t a[32], b[32];
    outputs(DEPS_PTX, SIM_ARRAY_LEN(DEPS_PTX), 5, 0, a);
    outputs(DEPS_PTX, SIM_ARRAY_LEN(DEPS_PTX), 5, 90, b);
    for (unsigned i = 0; i < 32; i++)
        ck_assert_msg(a[i] == b[i], "lane %u: %#x in the PTX order, %#x scheduled", i, a[i], b[i]);
    /* and the values are not trivial: lanes differ */
    ck_assert_uint_ne(a[0], a[1]);
    outputs(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 7, 0, a);
    outputs(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 7, 90, b);
    ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
}
END_TEST

/* The lowering: ex2.approx.f32 is FSETP, FMUL, MUFU.EX2, FMUL (.ftz: the
 * MUFU alone), sin/cos.approx FMUL.RZ then MUFU; each operation waits for
 * the one before (temporaries), and the branch of the loop still works. */
START_TEST(test_lowering)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
        "{",
        "    .reg .f32 %f<8>;",
        "    .reg .b32 %r<4>;",
        "    mov.u32 %r1, %tid.x;",
        "    cvt.rn.f32.u32 %f1, %r1;",
        "    ex2.approx.f32 %f2, %f1;",
        "    ex2.approx.ftz.f32 %f3, %f2;",
        "    sin.approx.f32 %f4, %f3;",
        "    cos.approx.ftz.f32 %f5, %f4;",
        "    lg2.approx.f32 %f6, %f5;",
        "    ret;",
        "}",
    };
    struct warp_inst w[32];
    unsigned n = stream(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, 32);
    static const unsigned want[] = {
        SIM_OPC_SREG, SIM_OPC_CONV, SIM_OPC_SETP, SIM_OPC_FP32, SIM_OPC_SFU_EX2, SIM_OPC_FP32,
        SIM_OPC_SFU_EX2, SIM_OPC_FP32, SIM_OPC_SFU, SIM_OPC_FP32, SIM_OPC_SFU, SIM_OPC_SFU,
        SIM_OPC_BRANCH,
    };
    ck_assert_uint_eq(n, SIM_ARRAY_LEN(want));
    for (unsigned i = 0; i < n; i++)
        ck_assert_msg(w[i].opclass == want[i], "operation %u: %s, expected %s", i,
                      inst_opclass_name(w[i].opclass), inst_opclass_name(want[i]));
    /* the chain: FSETP -> FMUL (predicate), FMUL -> MUFU, MUFU -> FMUL */
    ck_assert_uint_eq(w[3].src[w[3].n_src - 1], w[2].dst[0]);
    ck_assert_uint_eq(w[4].src[0], w[3].dst[0]);
    bool reads = false;
    for (unsigned k = 0; k < w[5].n_src; k++)
        reads = reads || w[5].src[k] == w[4].dst[0];
    ck_assert(reads);
    /* the compare's 13 cycles are a stall count before the predicated FMUL */
    ck_assert_uint_eq(w[2].stall, 13);
    /* the PTX view: one instruction each */
    n = stream(ptx, SIM_ARRAY_LEN(ptx), 0, 0, w, 32);
    ck_assert_uint_eq(n, 8);
}
END_TEST

/* A value computed inside the region of a branch on a lane-dependent
 * predicate is not uniform, even from uniform sources; one computed after
 * the reconvergence point is. */
START_TEST(test_uniform_regions)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
        "{",
        "    .reg .pred %p<3>;",
        "    .reg .b32 %r<8>;",
        "    ld.param.u32 %r1, [k_param_1];",
        "    mov.u32 %r2, %tid.x;",
        "    mov.u32 %r3, 0;",
        "    setp.lt.u32 %p1, %r2, 3;",
        "    @%p1 bra $L_skip;",
        "    add.s32 %r3, %r1, 5;",              /* lanes >= 3 only: not uniform */
        "$L_skip:",
        "    add.s32 %r4, %r1, 9;",              /* every lane: uniform */
        "    add.s32 %r5, %r3, %r4;",            /* reads %r3: not uniform */
        "    ret;",
        "}",
    };
    struct warp_inst w[32];
    unsigned n = stream(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, 32);
    unsigned uni = 0, ints = 0;
    for (unsigned i = 0; i < n; i++) {
        uni += w[i].opclass == SIM_OPC_UNIFORM;
        ints += w[i].opclass == SIM_OPC_INT;
    }
    /* ld.param and %r4; not %r3, whose second write is under the branch
     * (so its mov 0 is not either), nor %r5 (the tid move is an sreg read) */
    ck_assert_uint_eq(uni, 2);
    ck_assert_uint_eq(ints, 3);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("ptx_sched");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, test_loop_schedule);
    tcase_add_test(tc, test_same_results);
    tcase_add_test(tc, test_lowering);
    tcase_add_test(tc, test_uniform_regions);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(suite)
