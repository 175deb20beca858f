/*
 * check_ptx_call.c - device-function calls in the PTX frontend
 * (frontend/ptx_call.c and the call parts of ptx_parse_func.c,
 * ptx_decode.c, ptx_exec.c, ptx_lower.c).
 *
 * Functional tests run small hand-written modules (one warp unless said
 * otherwise) and check every lane's result against C: return values,
 * arguments of every kind (.param scalars and .b8 arrays, registers,
 * constants), recursion with registers and .local variables of their own
 * in every activation, calls some lanes make while the others wait,
 * nested calls, calls through function pointers.  Error tests check that
 * bad input fails with exit status 2 and a message naming file:line: a
 * call stack deeper than the launch file allows, malformed calls, a
 * function that is only declared or holds an unsupported instruction
 * (which makes only the kernels calling it unlaunchable).  The sm_90 tests
 * check the SASS operations a call, a return and a recursive function's
 * frame become, and that the lowered run computes the same results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "testlib.h"

#define HEADER ".version 9.0", ".target sm_90", ".address_size 64"
#define NAME_LEN 40

/* Write lines to testlib_dir/k.ptx and a launch file for `kernel` with one
 * u32 output buffer of `words` and the extra launch lines (or NULL). */
static void
write_module(const char *const *lines, size_t n, const char *kernel, unsigned threads,
             unsigned words, const char *extra)
{
    char path[512];
    snprintf(path, sizeof path, "%s/k.ptx", testlib_dir);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s\n", lines[i]);
    ck_assert_int_eq(fclose(fp), 0);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "ptx = k.ptx\nkernel = %s\ngrid = 1\nblock = %u\nregs = 32\n"
                "arg = out buffer u32 %u zeros\n%s\n", kernel, threads, words,
            extra != NULL ? extra : "");
    ck_assert_int_eq(fclose(fp), 0);
}

/* Open testlib_dir/k.launch (lowered for sm_<cc> unless cc is 0) and run
 * it functionally; the status, the message in err. */
static int
open_run(unsigned cc, struct inst_source *src, struct sim_error *err)
{
    char path[512];
    struct record_totals tot;
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    int rc = ptx_source_open(path, src, err);
    if (rc < 0)
        return rc;
    if (cc != 0)
        src->ops->set_target(src->ctx, cc);
    rc = record_emulate(src, &tot, err);
    if (rc < 0)
        inst_source_destroy(src);
    return rc;
}

/* Run the module (written by write_module) and copy its output words. */
static void
run_ok(unsigned cc, uint32_t *out, unsigned words)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    ck_assert_msg(open_run(cc, &src, &err) == SIM_OK, "%s", err.msg);
    memcpy(out, ptx_source_launch(&src)->args[0].data, words * sizeof *out);
    inst_source_destroy(&src);
}

/* The run must fail with exit status 2 and a message holding
 * "k.ptx:<line>:" (line 0: the launch file's "k.launch:") and frag. */
static void
expect_error(unsigned line, const char *frag)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    char where[64];
    int rc = open_run(0, &src, &err);
    if (rc == SIM_OK)
        inst_source_destroy(&src);
    if (line > 0)
        snprintf(where, sizeof where, "k.ptx:%u:", line);
    else
        snprintf(where, sizeof where, "k.launch:");
    ck_assert_msg(rc < 0, "expected an error naming %s (%s), the run succeeded", where, frag);
    ck_assert_msg(sim_error_exit_status(rc) == 2, "exit status %d for: %s",
                  sim_error_exit_status(rc), err.msg);
    ck_assert_msg(strstr(err.msg, where) != NULL, "message lacks '%s': %s", where, err.msg);
    ck_assert_msg(strstr(err.msg, frag) != NULL, "message lacks '%s': %s", frag, err.msg);
}

/* ---- return values and arguments ------------------------------------------ */

/* mix(a, s[3] as a .b8 array, p) = a * s0 + s1 - s2 + low(p): .param
 * scalars of 4 and 8 bytes, a struct passed as .align 4 .b8 [12] filled by
 * three stores (two constants), a return value; add2 takes a register and
 * a constant directly and returns into a register. */
static const char *const ARGS_PTX[] = {
    HEADER,
    ".func (.param .b32 r) mix(.param .b32 a, .param .align 4 .b8 s[12], .param .b64 p)",
    "{",
    "    .reg .b32 %r<8>;",
    "    .reg .b64 %rd<2>;",
    "    ld.param.u32 %r1, [a];",
    "    ld.param.u32 %r2, [s+0];",
    "    ld.param.u32 %r3, [s+4];",
    "    ld.param.u32 %r4, [s+8];",
    "    ld.param.u64 %rd1, [p];",
    "    cvt.u32.u64 %r5, %rd1;",
    "    mad.lo.s32 %r6, %r1, %r2, %r3;",
    "    sub.s32 %r6, %r6, %r4;",
    "    add.s32 %r6, %r6, %r5;",
    "    st.param.b32 [r], %r6;",
    "    ret;",
    "}",
    ".func (.param .b32 r) add2(.param .b32 x, .param .b32 y)",
    "{",
    "    .reg .b32 %r<4>;",
    "    ld.param.u32 %r1, [x];",
    "    ld.param.u32 %r2, [y];",
    "    add.s32 %r3, %r1, %r2;",
    "    st.param.b32 [r], %r3;",
    "    ret;",
    "}",
    ".visible .entry k(.param .u64 k_param_0)",
    "{",
    "    .reg .b32 %r<8>;",
    "    .reg .b64 %rd<6>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    { // callseq 0, 0",
    "    .param .b32 param0;",
    "    st.param.b32 [param0+0], %r1;",
    "    .param .align 4 .b8 param1[12];",
    "    st.param.b32 [param1+0], 3;",
    "    st.param.b32 [param1+4], %r1;",
    "    st.param.b32 [param1+8], 7;",
    "    .param .b64 param2;",
    "    st.param.b64 [param2+0], 1000;",
    "    .param .b32 retval0;",
    "    call.uni (retval0),",
    "    mix,",
    "    (",
    "    param0,",
    "    param1,",
    "    param2",
    "    );",
    "    ld.param.b32 %r2, [retval0+0];",
    "    } // callseq 0",
    "    call.uni (%r3), add2, (%r2, 5);",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r2;",
    "    st.global.u32 [%rd4+128], %r3;",
    "    ret;",
    "}",
};

START_TEST(return_values_and_arguments)
{
    uint32_t out[64];
    write_module(ARGS_PTX, SIM_ARRAY_LEN(ARGS_PTX), "k", 32, 64, NULL);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        run_ok(cc, out, 64);
        for (uint32_t t = 0; t < 32; t++) {
            ck_assert_uint_eq(out[t], 3 * t + t - 7 + 1000);
            ck_assert_uint_eq(out[32 + t], 3 * t + t - 7 + 1000 + 5);
        }
    }
}
END_TEST

/* ---- recursion -------------------------------------------------------------- */

/* fact(n) = n * fact(n - 1): the caller's n (%r1) must survive the
 * recursive call, so every activation has registers of its own; lane t
 * computes fact(t % 13), so the lanes recurse to different depths.
 * lsum(n) = n + lsum(n - 1) keeps n in a .local variable of its own frame
 * across the call, written through its name and read through its address
 * (mov of the variable, then ld.local); lane t computes lsum(t % 16). */
static const char *const RECURSION_PTX[] = {
    HEADER,
    ".func (.param .b32 r) fact(.param .b32 n)",
    "{",
    "    .reg .pred %p<2>;",
    "    .reg .b32 %r<6>;",
    "    ld.param.u32 %r1, [n];",
    "    setp.le.u32 %p1, %r1, 1;",
    "    @%p1 bra $DONE;",
    "    add.s32 %r2, %r1, -1;",
    "    {",
    "    .param .b32 a0;",
    "    st.param.b32 [a0+0], %r2;",
    "    .param .b32 r0;",
    "    call.uni (r0), fact, (a0);",
    "    ld.param.b32 %r3, [r0+0];",
    "    }",
    "    mul.lo.s32 %r4, %r3, %r1;",
    "    st.param.b32 [r+0], %r4;",
    "    ret;",
    "$DONE:",
    "    mov.u32 %r5, 1;",
    "    st.param.b32 [r+0], %r5;",
    "    ret;",
    "}",
    ".func (.param .b32 r) lsum(.param .b32 n)",
    "{",
    "    .local .align 4 .b8 keep[8];",
    "    .reg .pred %p<2>;",
    "    .reg .b32 %r<6>;",
    "    .reg .b64 %rd<2>;",
    "    ld.param.u32 %r1, [n];",
    "    st.local.u32 [keep+4], %r1;",
    "    mov.u32 %r5, 0;",
    "    setp.eq.u32 %p1, %r1, 0;",
    "    @%p1 bra $Z;",
    "    add.s32 %r2, %r1, -1;",
    "    {",
    "    .param .b32 a0;",
    "    st.param.b32 [a0+0], %r2;",
    "    .param .b32 r0;",
    "    call.uni (r0), lsum, (a0);",
    "    ld.param.b32 %r3, [r0+0];",
    "    }",
    "    mov.u64 %rd1, keep;",
    "    ld.local.u32 %r4, [%rd1+4];",
    "    add.s32 %r5, %r3, %r4;",
    "$Z:",
    "    st.param.b32 [r+0], %r5;",
    "    ret;",
    "}",
    ".visible .entry k(.param .u64 k_param_0)",
    "{",
    "    .reg .b32 %r<8>;",
    "    .reg .b64 %rd<6>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    rem.u32 %r2, %r1, 13;",
    "    call.uni (%r3), fact, (%r2);",
    "    rem.u32 %r5, %r1, 16;",
    "    call.uni (%r4), lsum, (%r5);",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r3;",
    "    st.global.u32 [%rd4+128], %r4;",
    "    ret;",
    "}",
};

START_TEST(recursion)
{
    uint32_t out[64];
    write_module(RECURSION_PTX, SIM_ARRAY_LEN(RECURSION_PTX), "k", 32, 64, NULL);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        run_ok(cc, out, 64);
        for (uint32_t t = 0; t < 32; t++) {
            uint32_t f = 1;
            for (uint32_t i = 2; i <= t % 13; i++)
                f *= i;
            ck_assert_msg(out[t] == f, "fact(%u) = %u, expected %u", t % 13, out[t], f);
            uint32_t u = t % 16;
            ck_assert_msg(out[32 + t] == u * (u + 1) / 2, "lsum(%u) = %u", u, out[32 + t]);
        }
    }
}
END_TEST

/* The call stack is stack bytes per thread: lsum(15) fits in the default
 * 1 KB, lsum(100 + t) does not; a larger `stack` lets it run. */
START_TEST(stack_depth_limit)
{
    uint32_t out[64];
    const char *lines[SIM_ARRAY_LEN(RECURSION_PTX)];
    memcpy(lines, RECURSION_PTX, sizeof lines);
    size_t n = SIM_ARRAY_LEN(RECURSION_PTX);
    for (size_t i = 0; i < n; i++)
        if (strcmp(lines[i], "    rem.u32 %r5, %r1, 16;") == 0)
            lines[i] = "    add.s32 %r5, %r1, 100;";
    write_module(lines, n, "k", 32, 64, NULL);
    /* the recursive call of lsum is line 43 */
    expect_error(43, "call stack overflow: the call to lsum at depth");
    expect_error(43, "more than the 1024 bytes allowed (launch file key stack");
    write_module(lines, n, "k", 32, 64, "stack = 8192");
    run_ok(0, out, 64);
    for (uint32_t t = 0; t < 32; t++)
        ck_assert_uint_eq(out[32 + t], (t + 100) * (t + 101) / 2);
    write_module(lines, n, "k", 32, 64, "stack = 8");
    expect_error(0, "bad stack '8'");
}
END_TEST

/* Infinite recursion without any variable still ends: every frame takes
 * PTX_FRAME_MIN bytes. */
START_TEST(infinite_recursion)
{
    static const char *const ptx[] = {
        HEADER,
        ".func forever()",
        "{",
        "    call.uni forever, ();",
        "    ret;",
        "}",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    call.uni forever;",
        "    ret;",
        "}",
    };
    write_module(ptx, SIM_ARRAY_LEN(ptx), "k", 32, 32, NULL);
    expect_error(6, "call stack overflow: the call to forever at depth 65 needs 1040 bytes");
}
END_TEST

/* ---- divergence ---------------------------------------------------------------- */

/* Lanes 0..15 call through a guard, the even lanes through a branch
 * around the call; after each call every lane of the warp runs together
 * again (activemask), the callers with the result, the others with the
 * value they had.  twice() itself diverges inside (odd arguments take
 * another path), and returns from both paths. */
static const char *const DIVERGENT_PTX[] = {
    HEADER,
    ".func (.param .b32 r) twice(.param .b32 x)",
    "{",
    "    .reg .pred %p<2>;",
    "    .reg .b32 %r<4>;",
    "    ld.param.u32 %r1, [x];",
    "    and.b32 %r2, %r1, 1;",
    "    setp.eq.u32 %p1, %r2, 1;",
    "    @%p1 bra $ODD;",
    "    shl.b32 %r3, %r1, 1;",
    "    st.param.b32 [r+0], %r3;",
    "    ret;",
    "$ODD:",
    "    add.s32 %r3, %r1, %r1;",
    "    st.param.b32 [r+0], %r3;",
    "    ret;",
    "}",
    ".visible .entry k(.param .u64 k_param_0)",
    "{",
    "    .reg .pred %p<4>;",
    "    .reg .b32 %r<12>;",
    "    .reg .b64 %rd<6>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    add.s32 %r2, %r1, 1000;",
    "    setp.lt.u32 %p1, %r1, 16;",
    "    @%p1 call (%r2), twice, (%r1);",
    "    activemask.b32 %r3;",
    "    mov.u32 %r4, 7;",
    "    and.b32 %r5, %r1, 1;",
    "    setp.ne.u32 %p2, %r5, 0;",
    "    @%p2 bra $SKIP;",
    "    call.uni (%r4), twice, (%r2);",
    "$SKIP:",
    "    activemask.b32 %r6;",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r2;",
    "    st.global.u32 [%rd4+128], %r3;",
    "    st.global.u32 [%rd4+256], %r4;",
    "    st.global.u32 [%rd4+384], %r6;",
    "    ret;",
    "}",
};

START_TEST(divergent_calls)
{
    uint32_t out[128];
    write_module(DIVERGENT_PTX, SIM_ARRAY_LEN(DIVERGENT_PTX), "k", 32, 128, NULL);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        run_ok(cc, out, 128);
        for (uint32_t t = 0; t < 32; t++) {
            uint32_t a = t < 16 ? 2 * t : t + 1000;
            ck_assert_uint_eq(out[t], a);
            ck_assert_uint_eq(out[32 + t], 0xffffffffu);    /* reconverged after the call */
            ck_assert_uint_eq(out[64 + t], (t & 1) ? 7 : 2 * a);
            ck_assert_uint_eq(out[96 + t], 0xffffffffu);
        }
    }
}
END_TEST

/* ---- nested calls ------------------------------------------------------------ */

/* outer calls middle twice, middle calls inner; a function declared
 * before its definition (a prototype) is called before it is defined. */
static const char *const NESTED_PTX[] = {
    HEADER,
    ".func (.param .b32 r) inner(.param .b32 x);",
    ".func (.param .b32 r) middle(.param .b32 x)",
    "{",
    "    .reg .b32 %r<4>;",
    "    ld.param.u32 %r1, [x];",
    "    call.uni (%r2), inner, (%r1);",
    "    add.s32 %r3, %r2, 100;",
    "    st.param.b32 [r+0], %r3;",
    "    ret;",
    "}",
    ".func (.param .b32 r) inner(.param .b32 x)",
    "{",
    "    .reg .b32 %r<3>;",
    "    ld.param.u32 %r1, [x];",
    "    mul.lo.s32 %r2, %r1, 3;",
    "    st.param.b32 [r+0], %r2;",
    "    ret;",
    "}",
    ".func (.param .b32 r) outer(.param .b32 x)",
    "{",
    "    .reg .b32 %r<6>;",
    "    ld.param.u32 %r1, [x];",
    "    call.uni (%r2), middle, (%r1);",
    "    add.s32 %r3, %r1, 1;",
    "    call.uni (%r4), middle, (%r3);",
    "    add.s32 %r5, %r2, %r4;",
    "    st.param.b32 [r+0], %r5;",
    "    ret;",
    "}",
    ".visible .entry k(.param .u64 k_param_0)",
    "{",
    "    .reg .b32 %r<4>;",
    "    .reg .b64 %rd<6>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    call.uni (%r2), outer, (%r1);",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r2;",
    "    ret;",
    "}",
};

START_TEST(nested_calls)
{
    uint32_t out[32];
    write_module(NESTED_PTX, SIM_ARRAY_LEN(NESTED_PTX), "k", 32, 32, NULL);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        run_ok(cc, out, 32);
        for (uint32_t t = 0; t < 32; t++)
            ck_assert_uint_eq(out[t], (3 * t + 100) + (3 * (t + 1) + 100));
    }
}
END_TEST

/* ---- function pointers ---------------------------------------------------------- */

/* Each lane calls twice or negate through a pointer it chose: one call
 * instruction, two targets; then a bad pointer is an error. */
static const char *const POINTER_PTX[] = {
    HEADER,
    ".func (.param .b32 r) twice(.param .b32 x)",
    "{",
    "    .reg .b32 %r<3>;",
    "    ld.param.u32 %r1, [x];",
    "    shl.b32 %r2, %r1, 1;",
    "    st.param.b32 [r+0], %r2;",
    "    ret;",
    "}",
    ".func (.param .b32 r) negate(.param .b32 x)",
    "{",
    "    .reg .b32 %r<3>;",
    "    ld.param.u32 %r1, [x];",
    "    neg.s32 %r2, %r1;",
    "    st.param.b32 [r+0], %r2;",
    "    ret;",
    "}",
    ".visible .entry k(.param .u64 k_param_0)",
    "{",
    "    .reg .pred %p<2>;",
    "    .reg .b32 %r<6>;",
    "    .reg .b64 %rd<8>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    and.b32 %r2, %r1, 3;",
    "    setp.eq.u32 %p1, %r2, 0;",
    "    mov.u64 %rd5, twice;",
    "    mov.u64 %rd6, negate;",
    "    selp.b64 %rd7, %rd5, %rd6, %p1;",
    "    {",
    "    .param .b32 param0;",
    "    st.param.b32 [param0+0], %r1;",
    "    .param .b32 retval0;",
    "    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);",
    "    call (retval0), %rd7, (param0), prototype_0;",
    "    ld.param.b32 %r3, [retval0+0];",
    "    }",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r3;",
    "    ret;",
    "}",
};

START_TEST(function_pointers)
{
    uint32_t out[32];
    write_module(POINTER_PTX, SIM_ARRAY_LEN(POINTER_PTX), "k", 32, 32, NULL);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        run_ok(cc, out, 32);
        for (uint32_t t = 0; t < 32; t++)
            ck_assert_uint_eq(out[t], (t & 3) == 0 ? 2 * t : (uint32_t)-(int32_t)t);
    }
    const char *lines[SIM_ARRAY_LEN(POINTER_PTX)];
    memcpy(lines, POINTER_PTX, sizeof lines);
    lines[31] = "    add.s64 %rd7, %rd5, 8;";        /* not a function's address */
    write_module(lines, SIM_ARRAY_LEN(lines), "k", 32, 32, NULL);
    expect_error(38, "call through a function pointer to 0x300000000008, which is no function's");
}
END_TEST

/* ---- errors ------------------------------------------------------------------------ */

/* A two-function module with one call at line 17, each case replacing one
 * line. */
static const char *const CALLER_PTX[] = {
    /*  1 */ ".version 9.0",
    /*  2 */ ".target sm_90",
    /*  3 */ ".address_size 64",
    /*  4 */ ".func (.param .b32 r) f(.param .b32 x)",
    /*  5 */ "{",
    /*  6 */ "    .reg .b32 %r<2>;",
    /*  7 */ "    ld.param.u32 %r1, [x];",
    /*  8 */ "    st.param.b32 [r+0], %r1;",
    /*  9 */ "    ret;",
    /* 10 */ "}",
    /* 11 */ ".func g()",
    /* 12 */ "{",
    /* 13 */ "    ret;",
    /* 14 */ "}",
    /* 15 */ ".visible .entry k(.param .u64 k_param_0)",
    /* 16 */ "{ .reg .b32 %r<4>; .param .b32 a0; .param .b32 r0;",
    /* 17 */ "    call.uni (r0), f, (a0);",
    /* 18 */ "    ret;",
    /* 19 */ "}",
};

struct call_err {
    unsigned at;                 /* line replaced */
    const char *repl;
    unsigned line;               /* line the message names */
    const char *frag;
};

static const struct call_err call_errs[] = {
    { 17, "    call.uni (r0), nosuch, (a0);", 17, "call to undeclared function 'nosuch'" },
    { 17, "    call.uni (r0) f, (a0);", 17, "expected ',', found 'f'" },
    { 17, "    call.uni (r0), f, (a0, a0);", 17, "the call passes 2 arguments, function f takes 1" },
    { 17, "    call.uni (r0), f;", 17, "the call passes 0 arguments, function f takes 1" },
    { 17, "    call.uni (r0), f, (a0;", 17, "expected ',' or ')' in a call's arguments" },
    { 17, "    call.uni (r0), f, (a0)", 18, "expected ';' after a call, found 'ret'" },
    { 17, "    call.uni (3), f, (a0);", 17, "a call's return value cannot be a constant" },
    { 17, "    call.uni (r0), f, ([a0]);", 17, "must be a .param variable of the caller" },
    { 17, "    call.uni (r0), g;", 17, "the call expects a return value, function g returns none" },
    { 17, "    call.uni (r0), f, (a0), f;", 17, "unexpected 'f' in a call" },
    { 17, "    call.uni (r0), %r1, (a0);", 17, "needs a prototype or call table" },
    { 17, "    call.uni (r0), .f, (a0);", 17, "expected the called function's name" },
    /* fuzz finding (tests/fuzz/crashers/ptx/call-args-leak.ptx): a lexical
     * error after the arguments leaked them */
    { 17, "    call (r0), %r1, (a0), \"p;", 17, "unterminated string" },
    { 11, ".func f()", 11, "function f defined twice (first at line 4)" },
    { 4, ".func (.param .b32 r, .param .b32 q) f(.param .b32 x)", 4, "returns one parameter at most" },
    { 4, ".func (.param .b32 r) (.param .b32 x)", 4, "expected a function name after .func" },
    { 4, ".func (.param .b32 r) f(.param .align 3 .b32 x)", 4, "bad .align value '3'" },
    { 7, "    ld.param.u32 %r1, [%r1];", 7, "ld.param/st.param through a register" },
    { 17, "    call.uni (r0), f, (%r1);", 17, "" },          /* a register argument: fine */
};

/* ---- device-side malloc and free ------------------------------------------- */

/* Without recursion the stack a launch needs is known and the limit
 * rises to it, as the driver raises cudaLimitStackSize: three nested
 * calls with 600-byte .local arrays (more than the 1,024 bytes of the
 * default) run, each adding its level to the argument. */
static void
check_deep_static(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 32; i++)
        ck_assert_msg(out[i] == i + 111, "lane %u: %u (%s)", i, out[i], s ? "run" : "emulate");
}

#define LEVEL(name, callee, add)                                                            \
    ".func (.param .b32 r) " name "(.param .b32 a)", "{", "    .local .align 4 .b8 buf[600];", \
        "    .reg .b32 %q<5>;", "    ld.param.u32 %q1, [a];", "    st.local.u32 [buf+596], %q1;", \
        callee, "    ld.local.u32 %q3, [buf+596];", "    add.s32 %q4, %q3, " add ";",          \
        "    add.s32 %q4, %q4, %q2;", "    st.param.b32 [r], %q4;", "    ret;", "}"

START_TEST(static_stack_raises_limit)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_80", ".address_size 64",
        LEVEL("f3", "    mov.u32 %q2, 0;", "100"),
        LEVEL("f2", "    { .param .b32 pa; st.param.b32 [pa], 0; .param .b32 pr; call.uni (pr), f3, "
              "(pa); ld.param.b32 %q2, [pr]; }", "10"),
        LEVEL("f1", "    { .param .b32 pa; st.param.b32 [pa], 0; .param .b32 pr; call.uni (pr), f2, "
              "(pa); ld.param.b32 %q2, [pr]; }", "1"),
        ".visible .entry k(.param .u64 p)", "{", "    .reg .b32 %r<4>;", "    .reg .b64 %rd<5>;",
        "    mov.u32 %r1, %tid.x;",
        "    { .param .b32 pa; st.param.b32 [pa], %r1; .param .b32 pr; call.uni (pr), f1, (pa); "
        "ld.param.b32 %r2, [pr]; }",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mul.wide.u32 %rd3, %r1, 4;", "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r2;", "    ret;", "}",
    };
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                   "arg = out buffer u32 32 zeros" };
    testlib_emulate_and_run(ptx, sizeof ptx / sizeof ptx[0], launch,
                            sizeof launch / sizeof launch[0], NULL, check_deep_static, NULL);
}
END_TEST

/* A function's own .shared variable (nvcc -G keeps a device function's
 * static __shared__ in the function): it gets shared memory after the
 * kernel's own and before the dynamic shared memory, so none of the three
 * overlap (before: offset 0 of the function's, the kernel's word, and the
 * block had no byte for it).  Lane 0 writes 11 to the kernel's variable,
 * the function writes 22 to its own and 33 to dynamic shared word 0; every
 * lane reads the three back. */
static void
check_func_shared(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 32; i++)
        ck_assert_msg(out[i] == 112233u, "lane %u: %u, expected 112233 (%s)", i, out[i],
                      s ? "run" : "emulate");
}

START_TEST(function_shared)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_80", ".address_size 64",
        ".extern .shared .align 4 .b8 dyn[];",
        ".func fn()", "{", "    .shared .align 4 .u32 fsh;", "    .reg .pred %p<2>;",
        "    .reg .b32 %r<4>;",
        "    mov.u32 %r1, %tid.x;", "    setp.ne.u32 %p1, %r1, 0;",
        "    @%p1 bra $done;", "    mov.u32 %r2, 22;", "    st.shared.u32 [fsh], %r2;",
        "    mov.u32 %r3, 33;", "    st.shared.u32 [dyn], %r3;", "$done:",
        "    bar.sync 0;", "    ld.shared.u32 %r2, [fsh];", "    st.shared.u32 [dyn+4], %r2;",
        "    bar.sync 0;", "    ret;", "}",
        ".visible .entry k(.param .u64 p)", "{", "    .shared .align 4 .u32 ksh;",
        "    .reg .pred %p<2>;", "    .reg .b32 %r<10>;", "    .reg .b64 %rd<5>;",
        "    mov.u32 %r1, %tid.x;", "    setp.ne.u32 %p1, %r1, 0;", "    @%p1 bra $skip;",
        "    mov.u32 %r2, 11;", "    st.shared.u32 [ksh], %r2;", "$skip:", "    bar.sync 0;",
        "    call.uni fn, ();",
        "    ld.shared.u32 %r3, [ksh];", "    ld.shared.u32 %r4, [dyn+4];",
        "    ld.shared.u32 %r5, [dyn];", "    mul.lo.u32 %r6, %r3, 10000;",
        "    mad.lo.u32 %r7, %r4, 100, %r6;", "    add.u32 %r8, %r7, %r5;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mul.wide.u32 %rd3, %r1, 4;", "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r8;", "    ret;", "}",
    };
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                   "smem = 16", "arg = out buffer u32 32 zeros" };
    testlib_emulate_and_run(ptx, sizeof ptx / sizeof ptx[0], launch,
                            sizeof launch / sizeof launch[0], NULL, check_func_shared, NULL);
}
END_TEST

/* Each of four threads mallocs (tid + 1) x 8 bytes, writes through the
 * pointer and reads back; allocations are 16-byte aligned, taken in lane
 * order, distinct; free is accepted; more than the 8 MB heap is NULL. */
START_TEST(device_malloc)
{
    static const char *const lines[] = {
        HEADER,
        ".extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);",
        ".extern .func free (.param .b64 free_param_0);",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "  .reg .b32 %r<8>;",
        "  .reg .b64 %rd<12>;",
        "  ld.param.u64 %rd1, [k_param_0];",
        "  cvta.to.global.u64 %rd2, %rd1;",
        "  mov.u32 %r1, %tid.x;",
        "  add.u32 %r2, %r1, 1;",
        "  mul.wide.u32 %rd3, %r2, 8;",
        "  { .param .b64 param0; st.param.b64 [param0], %rd3; .param .b64 retval0;",
        "    call.uni (retval0), malloc, (param0); ld.param.b64 %rd4, [retval0]; }",
        "  add.u32 %r3, %r1, 100;",
        "  st.u32 [%rd4], %r3;",
        "  ld.u32 %r4, [%rd4];",
        "  mul.wide.u32 %rd5, %r1, 4;",
        "  add.s64 %rd6, %rd2, %rd5;",
        "  st.global.u32 [%rd6], %r4;",
        "  cvt.u32.u64 %r5, %rd4;",
        "  st.global.u32 [%rd6+16], %r5;",
        "  { .param .b64 param0; st.param.b64 [param0], %rd4; call.uni free, (param0); }",
        "  mov.u64 %rd7, 16777216;",
        "  { .param .b64 param0; st.param.b64 [param0], %rd7; .param .b64 retval0;",
        "    call.uni (retval0), malloc, (param0); ld.param.b64 %rd8, [retval0]; }",
        "  cvt.u32.u64 %r6, %rd8;",
        "  st.global.u32 [%rd6+32], %r6;",
        "  ret;",
        "}",
    };
    write_module(lines, sizeof lines / sizeof lines[0], "k", 4, 12, NULL);
    for (unsigned cc = 0; cc <= 90; cc += 90) {
        uint32_t out[12];
        run_ok(cc, out, 12);
        for (unsigned t = 0; t < 4; t++) {
            ck_assert_uint_eq(out[t], 100 + t);
            ck_assert_uint_eq(out[4 + t] % 16, 0);
            ck_assert_uint_eq(out[8 + t], 0);          /* 16 MB: more than the heap */
        }
        /* lane order, rounded to 16: 8 -> 16, 16, 24 -> 32, 32 */
        ck_assert_uint_eq(out[5] - out[4], 16);
        ck_assert_uint_eq(out[6] - out[5], 16);
        ck_assert_uint_eq(out[7] - out[6], 32);
    }
}
END_TEST

START_TEST(malformed_calls)
{
    const struct call_err *e = &call_errs[_i];
    const char *lines[SIM_ARRAY_LEN(CALLER_PTX)];
    memcpy(lines, CALLER_PTX, sizeof lines);
    lines[e->at - 1] = e->repl;
    write_module(lines, SIM_ARRAY_LEN(lines), "k", 32, 32, NULL);
    if (e->frag[0] == '\0') {
        uint32_t out[32];
        run_ok(0, out, 32);
        return;
    }
    expect_error(e->line, e->frag);
}
END_TEST

/* An unsupported instruction in a function makes the kernels that call it
 * unlaunchable (naming the function's line and the kernel), not the
 * module's others; a function only declared (a runtime function other
 * than printf's and assert's) too. */
START_TEST(unsupported_in_function)
{
    static const char *const ptx[] = {
        /*  1 */ HEADER,
        /*  4 */ ".extern .func (.param .b64 r) malloc(.param .b64 n, .param .b64 a);",
        /*  5 */ ".func bad()",
        /*  6 */ "{",
        /*  7 */ "    .reg .b32 %r<2>;",
        /*  8 */ "    frobnicate.u32 %r1, %r1;",
        /*  9 */ "    ret;",
        /* 10 */ "}",
        /* 11 */ ".visible .entry k(.param .u64 k_param_0)",
        /* 12 */ "{",
        /* 13 */ "    call.uni bad;",
        /* 14 */ "    ret;",
        /* 15 */ "}",
        /* 16 */ ".visible .entry k2(.param .u64 k_param_0)",
        /* 17 */ "{ .reg .b64 %rd<2>; .param .b64 p0; .param .b64 p1; .param .b64 r0;",
        /* 18 */ "    call.uni (r0), malloc, (p0, p1);",
        /* 19 */ "    ret;",
        /* 20 */ "}",
        /* 21 */ ".visible .entry k3(.param .u64 k_param_0)",
        /* 22 */ "{",
        /* 23 */ "    ret;",
        /* 24 */ "}",
    };
    write_module(ptx, SIM_ARRAY_LEN(ptx), "k", 32, 32, NULL);
    expect_error(8, "function bad: unsupported instruction 'frobnicate.u32' (called by kernel k)");
    write_module(ptx, SIM_ARRAY_LEN(ptx), "k2", 32, 32, NULL);
    expect_error(18, "kernel k2 calls malloc, which the module declares but does not define");
    uint32_t out[32];
    write_module(ptx, SIM_ARRAY_LEN(ptx), "k3", 32, 32, NULL);
    run_ok(0, out, 32);
}
END_TEST

/* trap aborts the kernel: an error naming its line, block, thread and pc
 * when a lane executes it; guarded off in every lane it is nothing.  A
 * kernel that reads the grid-sync workspace (%envreg1:%envreg2, as
 * cooperative groups' grid_group::sync() does) and traps because a
 * launch that is not cooperative has none is told so. */
START_TEST(trap_aborts)
{
    static const char *const ptx[] = {
        /*  1 */ HEADER,
        /*  4 */ ".visible .entry k(.param .u64 k_param_0)",
        /*  5 */ "{ .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;",
        /*  6 */ "    ld.param.u64 %rd1, [k_param_0];",
        /*  7 */ "    mov.u32 %r1, %tid.x;",
        /*  8 */ "    mov.u32 %r2, %envreg1;",
        /*  9 */ "    setp.eq.u32 %p1, %r1, 37;",
        /* 10 */ "    @%p1 trap;",
        /* 11 */ "    mul.wide.u32 %rd2, %r1, 4;",
        /* 12 */ "    add.s64 %rd3, %rd1, %rd2;",
        /* 13 */ "    st.global.u32 [%rd3], %r1;",
        /* 14 */ "    ret;",
        /* 15 */ "}",
    };
    write_module(ptx, SIM_ARRAY_LEN(ptx), "k", 64, 64, NULL);
    expect_error(10, "kernel k: trap: the kernel aborted (block 0, thread 37, pc ");
    expect_error(10, "which needs a cooperative launch (cudaLaunchCooperativeKernel)");
    /* no lane traps: the kernel runs */
    const char *lines[SIM_ARRAY_LEN(ptx)];
    memcpy(lines, ptx, sizeof lines);
    lines[8] = "    setp.eq.u32 %p1, %r1, 99;";   /* line 9 */
    write_module(lines, SIM_ARRAY_LEN(lines), "k", 64, 64, NULL);
    uint32_t out[64];
    run_ok(0, out, 64);
    ck_assert_uint_eq(out[63], 63);
}
END_TEST

/* ---- sm_90: the SASS operations of calls ------------------------------------------- */

/* Warp 0's operations after set_target(90), by name. */
static unsigned
names90(char (*names)[NAME_LEN], unsigned max)
{
    char path[512];
    struct inst_source src;
    struct sim_error err = { 0 };
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    return testlib_warp0(&src, 90, NULL, names[0], NAME_LEN, max);
}

static unsigned
count(char (*names)[NAME_LEN], unsigned n, const char *name)
{
    unsigned c = 0;
    for (unsigned i = 0; i < n; i++)
        c += strcmp(names[i], name) == 0;
    return c;
}

/* A call as in modern_modern.sass (call_poly): the caller's MOV of the
 * return address and CALL.REL.NOINC, the callee's HFMA2.MMA, MOV and
 * RET.REL.NODEC; the arguments stored from registers nothing else reads
 * and the parameters' loads fold away; a stored constant is a MOV. */
START_TEST(lowered_call)
{
    static const char *const ptx[] = {
        HEADER,
        ".func (.param .b32 r) f(.param .b32 x, .param .b32 y)",
        "{",
        "    .reg .f32 %f<4>;",
        "    ld.param.f32 %f1, [x];",
        "    ld.param.f32 %f2, [y];",
        "    fma.rn.f32 %f3, %f1, %f2, 0f3F800000;",
        "    st.param.f32 [r+0], %f3;",
        "    ret;",
        "}",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .b32 %r<4>;",
        "    .reg .f32 %f<4>;",
        "    .reg .b64 %rd<6>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;",
        "    cvt.rn.f32.u32 %f1, %r1;",
        "    {",
        "    .param .b32 param0;",
        "    st.param.f32 [param0+0], %f1;",
        "    .param .b32 param1;",
        "    st.param.f32 [param1+0], 0f40000000;",
        "    .param .b32 retval0;",
        "    call.uni (retval0), f, (param0, param1);",
        "    ld.param.f32 %f2, [retval0+0];",
        "    }",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.f32 [%rd4], %f2;",
        "    ret;",
        "}",
    };
    char names[64][NAME_LEN];
    write_module(ptx, SIM_ARRAY_LEN(ptx), "k", 32, 32, NULL);
    unsigned n = names90(names, 64);
    ck_assert_uint_eq(count(names, n, "CALL.REL.NOINC"), 1);
    ck_assert_uint_eq(count(names, n, "RET.REL.NODEC"), 1);
    ck_assert_uint_eq(count(names, n, "FFMA"), 1);
    /* moves: the return address, the constant argument, the return
     * address pair (HFMA2.MMA makes a constant) */
    ck_assert_uint_eq(count(names, n, "MOV") + count(names, n, "IMAD.MOV.U32") +
                      count(names, n, "HFMA2.MMA"), 4);
    ck_assert_uint_eq(count(names, n, "LD.E") + count(names, n, "ST.E"), 0);
    uint32_t out[32];
    run_ok(90, out, 32);
    for (uint32_t t = 0; t < 32; t++) {
        float f;
        memcpy(&f, &out[t], 4);
        ck_assert_msg(f == (float)t * 2.0f + 1.0f, "lane %u: %g", t, (double)f);
    }
}
END_TEST

/* A recursive function stores its callee-saved registers to its frame on
 * entry and loads them before returning (STL / LDL: without a ptxas
 * report, the registers live across its call, %r1, and the return
 * address), and moves the stack pointer (IADD3 ... VIADD). */
START_TEST(lowered_recursion)
{
    char names[1024][NAME_LEN];
    const char *lines[SIM_ARRAY_LEN(RECURSION_PTX)];
    memcpy(lines, RECURSION_PTX, sizeof lines);
    size_t n = SIM_ARRAY_LEN(RECURSION_PTX);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(lines[i], "    rem.u32 %r2, %r1, 13;") == 0)
            lines[i] = "    mov.u32 %r2, 3;";         /* fact(3): three activations */
        if (strcmp(lines[i], "    call.uni (%r4), lsum, (%r5);") == 0)
            lines[i] = "    mov.u32 %r4, 0;";
    }
    write_module(lines, n, "k", 32, 64, NULL);
    unsigned k = names90(names, 1024);
    /* fact(3) -> fact(2) -> fact(1): 3 entries, 3 returns */
    ck_assert_uint_eq(count(names, k, "CALL.REL.NOINC"), 3);
    ck_assert_uint_eq(count(names, k, "RET.REL.NODEC"), 3);
    ck_assert_uint_eq(count(names, k, "STL"), 3 * 2);
    ck_assert_uint_eq(count(names, k, "LDL"), 3 * 2);
    ck_assert_uint_eq(count(names, k, "VIADD") >= 3, 1);
    uint32_t out[64];
    run_ok(90, out, 64);
    for (uint32_t t = 0; t < 32; t++)
        ck_assert_uint_eq(out[t], 6);
}
END_TEST

static Suite *
ptx_call_suite(void)
{
    Suite *s = suite_create("ptx_call");
    TCase *tc = tcase_create("calls");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, return_values_and_arguments);
    tcase_add_test(tc, recursion);
    tcase_add_test(tc, stack_depth_limit);
    tcase_add_test(tc, infinite_recursion);
    tcase_add_test(tc, divergent_calls);
    tcase_add_test(tc, nested_calls);
    tcase_add_test(tc, function_pointers);
    tcase_add_loop_test(tc, malformed_calls, 0, (int)SIM_ARRAY_LEN(call_errs));
    tcase_add_test(tc, device_malloc);
    tcase_add_test(tc, function_shared);
    tcase_add_test(tc, static_stack_raises_limit);
    tcase_add_test(tc, unsupported_in_function);
    tcase_add_test(tc, trap_aborts);
    tcase_add_test(tc, lowered_call);
    tcase_add_test(tc, lowered_recursion);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_call_suite)
