/*
 * check_ptx.c - the PTX frontend's contract on bad input, and PTX forms
 * beyond the kernel suite.
 *
 * Error tests: a small valid kernel (BASE_PTX) and launch file
 * (BASE_LAUNCH) are written to a temporary directory with one line
 * replaced or appended; opening (and, for run-time errors, emulating) must
 * fail with a code that maps to exit status 2 and a message naming the
 * offending file and line.  Each class of error (lexical, syntax,
 * declarations, operands, unsupported features, launch-file keys, argument
 * binding, out-of-bounds and misaligned accesses) is covered at least once.
 *
 * Acceptance tests: PTX in the older style of seed 001's listings
 * (.version 4.x, sm_30, BB labels, '$' in names, shared symbols moved into
 * registers) and constructs the suite kernels do not use.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/exec/ptx_run.h"
#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "testlib.h"

static const char *const BASE_PTX[] = {
    /*  1 */ ".version 8.0",
    /*  2 */ ".target sm_75",
    /*  3 */ ".address_size 64",
    /*  4 */ "",
    /*  5 */ ".visible .entry k(",
    /*  6 */ "    .param .u64 k_param_0,",
    /*  7 */ "    .param .u32 k_param_1",
    /*  8 */ ")",
    /*  9 */ "{",
    /* 10 */ "    .reg .pred %p<2>;",
    /* 11 */ "    .reg .b32 %r<8>;",
    /* 12 */ "    .reg .b64 %rd<8>;",
    /* 13 */ "",
    /* 14 */ "    ld.param.u64 %rd1, [k_param_0];",
    /* 15 */ "    ld.param.u32 %r1, [k_param_1];",
    /* 16 */ "    cvta.to.global.u64 %rd2, %rd1;",
    /* 17 */ "    mov.u32 %r2, %tid.x;",
    /* 18 */ "    setp.ge.u32 %p1, %r2, %r1;",
    /* 19 */ "    @%p1 bra $L__BB0_2;",
    /* 20 */ "    mul.wide.u32 %rd3, %r2, 4;",
    /* 21 */ "    add.s64 %rd4, %rd2, %rd3;",
    /* 22 */ "    st.global.u32 [%rd4], %r2;",
    /* 23 */ "$L__BB0_2:",
    /* 24 */ "    ret;",
    /* 25 */ "}",
};
#define BASE_PTX_LINES (sizeof BASE_PTX / sizeof BASE_PTX[0])

static const char *const BASE_LAUNCH[] = {
    /* 1 */ "ptx = k.ptx",
    /* 2 */ "kernel = k",
    /* 3 */ "grid = 1",
    /* 4 */ "block = 32",
    /* 5 */ "arg = out buffer u32 32 zeros",
    /* 6 */ "arg = n u32 32",
};
#define BASE_LAUNCH_LINES (sizeof BASE_LAUNCH / sizeof BASE_LAUNCH[0])


/* PTX with line `at` replaced, the base launch file. */
static void
ptx_case(unsigned at, const char *repl, const char *extra)
{
    testlib_write_lines("k.ptx", BASE_PTX, BASE_PTX_LINES, at, repl, extra);
    testlib_write_lines("k.launch", BASE_LAUNCH, BASE_LAUNCH_LINES, 0, NULL, NULL);
}

/* The base PTX, the launch file with line `at` replaced and extra appended. */
static void
launch_case(unsigned at, const char *repl, const char *extra)
{
    testlib_write_lines("k.ptx", BASE_PTX, BASE_PTX_LINES, 0, NULL, NULL);
    testlib_write_lines("k.launch", BASE_LAUNCH, BASE_LAUNCH_LINES, at, repl, extra);
}

/* The register file packed by liveness (ptx_regalloc.h): registers on
 * disjoint paths of a divergent branch (%r3 odd lanes, %r4 even ones) and
 * short-lived ones in a loop may share a slot; a register read before any
 * write on one path (%r6: 0 on the even lanes) and one first written
 * under a guard (%r7: 0 on lanes >= 16, registers start at zero) must
 * not share one with the registers before them.  Lane l writes
 * r5 + r6 + 1000 * r7 + 10000 * 4l, the same with and without packing,
 * emulated and lowered for sm_90; and packed, the kernel's sixteen
 * 32-bit registers need fewer slots. */
static const char *const regalloc_ptx[] = {
    ".version 8.0", ".target sm_80", ".address_size 64",
    ".visible .entry k(.param .u64 p)", "{",
    "    .reg .pred %p<4>;", "    .reg .b32 %r<16>;", "    .reg .b64 %rd<4>;",
    "    ld.param.u64 %rd1, [p];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    and.b32 %r2, %r1, 1;",
    "    setp.eq.u32 %p1, %r2, 0;",
    "    @%p1 bra EVEN;",
    "    mul.lo.u32 %r3, %r1, 3;",
    "    add.u32 %r5, %r3, 100;",
    "    mov.u32 %r6, 7;",
    "    bra.uni JOIN;",
    "EVEN:",
    "    mul.lo.u32 %r4, %r1, 5;",
    "    add.u32 %r5, %r4, 200;",
    "JOIN:",
    "    setp.lt.u32 %p2, %r1, 16;",
    "    @%p2 mov.u32 %r7, 9;",
    "    mov.u32 %r8, 0;",
    "    mov.u32 %r9, 0;",
    "LOOP:",
    "    add.u32 %r8, %r8, %r1;",
    "    add.u32 %r10, %r9, 1;",
    "    mov.u32 %r9, %r10;",
    "    setp.lt.u32 %p3, %r9, 4;",
    "    @%p3 bra LOOP;",
    "    add.u32 %r11, %r5, %r6;",
    "    mad.lo.u32 %r12, %r7, 1000, %r11;",
    "    mad.lo.u32 %r13, %r8, 10000, %r12;",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd3, %rd2, %rd3;",
    "    st.global.u32 [%rd3], %r13;",
    "    ret;", "}",
};

static void
check_regalloc(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t r5 = i % 2 ? 3 * i + 100 : 5 * i + 200, r6 = i % 2 ? 7 : 0;
        uint32_t want = r5 + r6 + 1000 * (i < 16 ? 9 : 0) + 10000 * 4 * i;
        ck_assert_msg(out[i] == want, "lane %u: %u, expected %u (%s, %s)", i, out[i], want,
                      s ? "lowered" : "emulated", getenv("SMSIM_REGALLOC") ? "one slot each"
                                                                           : "packed");
    }
}

START_TEST(regalloc_shares_slots)
{
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                   "arg = out buffer u32 32 zeros" };
    for (int packed = 0; packed <= 1; packed++) {
        if (!packed)
            setenv("SMSIM_REGALLOC", "0", 1);
        testlib_emulate_and_run(regalloc_ptx, sizeof regalloc_ptx / sizeof regalloc_ptx[0],
                                launch, sizeof launch / sizeof launch[0], "gpu.cc = 90",
                                check_regalloc, NULL);
        unsetenv("SMSIM_REGALLOC");
    }
    /* packed: the slots of the sixteen %r, the special register read
     * (%tid.x) and the constants */
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    struct inst_source src;
    sim *s;
    testlib_launch_run(path, NULL, &src, &s);
    const struct ptx_run *r = src.ctx;
    ck_assert_msg(r->regs_packed && r->nvar32 < 16 && r->nvar32 >= 4,
                  "%u slots for the 16 32-bit registers", r->nvar32);
    ck_assert_uint_eq(r->sr_slot[SR_TID_X], r->nvar32);
    ck_assert_uint_eq(r->sr_slot[SR_CTAID_X], UINT32_MAX);
    ck_assert_uint_eq(r->cbase32, r->nvar32 + 1);
    inst_source_destroy(&src);
}
END_TEST

START_TEST(base_runs)
{
    struct sim_error err = { 0 };
    launch_case(0, NULL, NULL);
    ck_assert_msg(testlib_ptx_emulate(&err) == SIM_OK, "%s", err.msg);
}
END_TEST

/* regs.sm_NN: the registers per thread for the simulated GPU's architecture
 * (ptxas -v for it), `regs` for the others. */
START_TEST(regs_per_arch)
{
    static const unsigned cc[] = { 90, 61 }, want[] = { 40, 24 };
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    launch_case(0, NULL, "regs = 24\nregs.sm_90 = 40\nregs.sm_80 = 48");
    for (unsigned i = 0; i < 2; i++) {
        struct inst_source src;
        struct kernel_info ki;
        struct sim_error err = { 0 };
        ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
        src.ops->set_target(src.ctx, cc[i]);
        ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 1);
        ck_assert_uint_eq(ki.regs_per_thread, want[i]);
        inst_source_destroy(&src);
    }
}
END_TEST

/* Fuzz finding (tests/fuzz/crashers/ptx/branch-to-end-label.ptx): a branch
 * to a label after the last instruction read past the block table when
 * reconvergence points were computed.  Such a branch ends the warp. */
START_TEST(label_at_end)
{
    struct sim_error err = { 0 };
    ptx_case(24, "", NULL);             /* $L__BB0_2: is now followed only by '}' */
    ck_assert_msg(testlib_ptx_emulate(&err) == SIM_OK, "%s", err.msg);
}
END_TEST

/* Debug line information (nvcc -G, -lineinfo): a `.loc` in a body has no
 * ';', and skipping to the next one dropped the instruction after it
 * (a -G kernel's `mov.u64 %rd1, hits` was lost, its atomic then went to
 * address 0).  Each lane writes lane + 100 through instructions that each
 * follow a .loc. */
/* Every lane l of the 32 wrote l * mul + add (ctx: struct lane_want). */
struct lane_want {
    uint32_t mul, add;
};

static void
check_lanes(const struct launch *l, sim *s, void *ctx)
{
    const struct lane_want *w = ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 32; i++)
        ck_assert_msg(out[i] == i * w->mul + w->add, "lane %u: %u, expected %u (%s)", i, out[i],
                      i * w->mul + w->add, s ? "run" : "emulate");
}

/* Emulate and time ptx's kernel k on one block of 32 threads writing a u32
 * each: lane l must write l * mul + add. */
static void
run_lanes(const char *const *ptx, size_t n, uint32_t mul, uint32_t add)
{
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                   "arg = out buffer u32 32 zeros" };
    struct lane_want w = { mul, add };
    testlib_emulate_and_run(ptx, n, launch, sizeof launch / sizeof launch[0], NULL, check_lanes,
                            &w);
}

START_TEST(loc_lines)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_80", ".address_size 64", ".file 1 \"k.cu\"",
        ".visible .entry k(.param .u64 p)", "{", "    .reg .b32 %r<4>;", "    .reg .b64 %rd<5>;",
        "    .loc 1 3 0", "$L__func_begin0:", "    .loc 1 3 0",
        "    ld.param.u64 %rd1, [p];",
        "    .loc 1 4 7, function_name $L__info_string0, inlined_at 1 3 5",
        "    cvta.to.global.u64 %rd2, %rd1;", "    .loc 1 5 1", "    mov.u32 %r1, %tid.x;",
        "    .loc 1 6 1", "    add.s32 %r2, %r1, 100;", "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;", "    .loc 1 7 1", "    st.global.u32 [%rd4], %r2;",
        "    ret;", "}",
    };
    run_lanes(ptx, sizeof ptx / sizeof ptx[0], 1, 100);
}
END_TEST

/* isspacep (libcu++'s __isShared under -G) on a generic shared, global and
 * local address, and a called function whose name is 700 characters long
 * (C++ template names; tokens were cut at 511, and calls at 255):
 * out[lane] = bits: shared(shared), global(global), local(local),
 * !shared(global), then + 100 from the function. */
START_TEST(isspacep_and_long_names)
{
    static char fdecl[900], fcall[900];
    char name[701];
    memset(name, 'x', 700);
    name[0] = '_', name[700] = '\0';
    snprintf(fdecl, sizeof fdecl, ".func (.param .b32 r) %s(.param .b32 a) { .reg .b32 %%q<3>; "
             "ld.param.u32 %%q1, [a]; add.s32 %%q2, %%q1, 100; st.param.b32 [r], %%q2; ret; }", name);
    snprintf(fcall, sizeof fcall, "    { .param .b32 pa; st.param.b32 [pa], %%r9; .param .b32 pr; "
             "call.uni (pr), %s, (pa); ld.param.b32 %%r10, [pr]; }", name);
    const char *const ptx[] = {
        ".version 8.0", ".target sm_80", ".address_size 64", fdecl,
        ".visible .entry k(.param .u64 p)", "{", "    .shared .align 4 .u32 sh;",
        "    .local .align 4 .u32 lo;", "    .reg .pred %p<5>;", "    .reg .b32 %r<12>;",
        "    .reg .b64 %rd<9>;", "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u64 %rd5, sh;", "    cvta.shared.u64 %rd6, %rd5;", "    mov.u64 %rd7, lo;",
        "    cvta.local.u64 %rd8, %rd7;",
        "    isspacep.shared %p1, %rd6;", "    isspacep.global %p2, %rd1;",
        "    isspacep.local %p3, %rd8;", "    isspacep.shared::cta %p4, %rd1;",
        "    selp.u32 %r1, 1, 0, %p1;", "    selp.u32 %r2, 2, 0, %p2;", "    selp.u32 %r3, 4, 0, %p3;",
        "    selp.u32 %r4, 0, 8, %p4;", "    add.s32 %r5, %r1, %r2;", "    add.s32 %r6, %r5, %r3;",
        "    add.s32 %r9, %r6, %r4;", fcall,
        "    mov.u32 %r11, %tid.x;", "    mul.wide.u32 %rd3, %r11, 4;", "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r10;", "    ret;", "}",
    };
    run_lanes(ptx, sizeof ptx / sizeof ptx[0], 0, 115);
}
END_TEST

/* prefetch and prefetchu (CCCL's cub::transform issues prefetch.global.L2):
 * accepted in their forms, no effect on what the kernel computes. */
START_TEST(prefetch_forms)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_80", ".address_size 64",
        ".visible .entry k(.param .u64 p)", "{", "    .reg .b32 %r<4>;", "    .reg .b64 %rd<5>;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    mul.wide.u32 %rd3, %r1, 4;", "    add.s64 %rd4, %rd2, %rd3;",
        "    prefetch.global.L2 [%rd4];", "    prefetch.global.L1 [%rd4+4];",
        "    prefetch.L2 [%rd1];", "    prefetch.global.L2::evict_last [%rd4];",
        "    prefetchu.L1 [%rd1];", "    mul.lo.u32 %r2, %r1, 3;", "    st.global.u32 [%rd4], %r2;",
        "    ret;", "}",
    };
    run_lanes(ptx, sizeof ptx / sizeof ptx[0], 3, 0);
}
END_TEST

/* cvt to TF32 (wmma::__float_to_tf32 is cvt.rna.tf32.f32; sm_90 adds .rn
 * and .rz): the f32 pattern rounded at bit 13, worked out by hand for
 * ties, the largest float, a NaN, -inf and a subnormal.  (It once went
 * through the f16 conversion: 1.1 became 0x00000001.) */
START_TEST(cvt_tf32)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".const .align 4 .b32 vals[8] = { 0x3F8CCCCD, 0x3F801000, 0x3F803000, 0xBF801000, "
        "0x7F7FFFFF, 0x7FC00001, 0xFF800000, 0x00001800 };",
        ".visible .entry k(.param .u64 p)", "{", "    .reg .pred %p<2>;", "    .reg .b32 %r<12>;",
        "    .reg .f32 %f<2>;", "    .reg .b64 %rd<8>;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    setp.ge.u32 %p1, %r1, 8;", "    @%p1 bra DONE;",
        "    mul.wide.u32 %rd3, %r1, 4;", "    mov.u64 %rd4, vals;", "    add.s64 %rd5, %rd4, %rd3;",
        "    ld.const.f32 %f1, [%rd5];",
        "    cvt.rna.tf32.f32 %r2, %f1;", "    cvt.rn.tf32.f32 %r3, %f1;",
        "    cvt.rz.tf32.f32 %r4, %f1;", "    cvt.rna.satfinite.tf32.f32 %r5, %f1;",
        "    mul.wide.u32 %rd6, %r1, 16;", "    add.s64 %rd7, %rd2, %rd6;",
        "    st.global.v4.u32 [%rd7], {%r2, %r3, %r4, %r5};",
        "DONE:", "    ret;", "}",
    };
    static const uint32_t want[8][4] = {
        { 0x3F8CC000, 0x3F8CC000, 0x3F8CC000, 0x3F8CC000 },   /* 1.1: down */
        { 0x3F802000, 0x3F800000, 0x3F800000, 0x3F802000 },   /* a tie, even below */
        { 0x3F804000, 0x3F804000, 0x3F802000, 0x3F804000 },   /* a tie, odd below */
        { 0xBF802000, 0xBF800000, 0xBF800000, 0xBF802000 },   /* a negative tie */
        { 0x7F800000, 0x7F800000, 0x7F7FE000, 0x7F7FE000 },   /* FLT_MAX: to inf, or saturated */
        { 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF },   /* NaN: canonical */
        { 0xFF800000, 0xFF800000, 0xFF800000, 0xFF7FE000 },   /* -inf */
        { 0x00002000, 0x00002000, 0x00000000, 0x00002000 },   /* a subnormal */
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (unsigned i = 0; i < 8; i++)
        for (unsigned f = 0; f < 4; f++)
            ck_assert_msg(out[4 * i + f] == want[i][f], "input %u form %u: %#x, expected %#x", i,
                          f, out[4 * i + f], want[i][f]);
    inst_source_destroy(&src);
}
END_TEST

/* The per-type fast paths of setp, selp, cvt and the f32 operations
 * against C references, converged (every lane) and under a guard (odd
 * lanes only: the per-lane loop): all twelve ordered and unordered
 * comparisons, with a NaN and with equal operands, saturating and rounding conversions of out-of-range values, a
 * tie, -0 and infinity. */
static uint32_t
fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint32_t
cmp_bits(float a, float b)
{
    bool un = isnan(a) || isnan(b);
    return (uint32_t)(un || a < b) | (uint32_t)(!un && a >= b) << 1 |
           (uint32_t)(un || a != b) << 2 | (uint32_t)(!un && a != b) << 3 |
           (uint32_t)(!un && a == b) << 4 | (uint32_t)(un || a == b) << 5 |
           (uint32_t)(!un && a < b) << 6 | (uint32_t)(!un && a <= b) << 7 |
           (uint32_t)(!un && a > b) << 8 | (uint32_t)(un || a <= b) << 9 |
           (uint32_t)(un || a > b) << 10 | (uint32_t)(un || a >= b) << 11;
}

static uint32_t
sat_int(double v, bool sgn)
{
    if (isnan(v))
        return 0;
    if (sgn)
        return v <= -2147483648.0 ? 0x80000000u : v >= 2147483648.0 ? 0x7fffffffu
               : (uint32_t)(int32_t)v;
    return v <= 0 ? 0 : v >= 4294967296.0 ? 0xffffffffu : (uint32_t)v;
}

START_TEST(float_fast_paths)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".const .align 4 .b32 vals[8] = { 0x3FC00000, 0xC0200000, 0x40200000, 0x7FC00000, "
        "0x4F32D05E, 0xCF32D05E, 0x80000000, 0x7F800000 };",
        ".visible .entry k(.param .u64 p0, .param .u64 p)", "{",
        "    .reg .pred %p<10>;", "    .reg .b32 %r<30>;", "    .reg .f32 %f<8>;",
        "    .reg .b64 %rd<12>;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    and.b32 %r2, %r1, 7;", "    shr.u32 %r3, %r1, 2;",
        "    and.b32 %r3, %r3, 7;", "    mov.u64 %rd3, vals;", "    mul.wide.u32 %rd4, %r2, 4;",
        "    add.s64 %rd5, %rd3, %rd4;", "    ld.const.f32 %f1, [%rd5];",
        "    mul.wide.u32 %rd6, %r3, 4;", "    add.s64 %rd7, %rd3, %rd6;",
        "    ld.const.f32 %f2, [%rd7];",
        "    and.b32 %r4, %r1, 1;", "    setp.eq.u32 %p9, %r4, 1;",
        "    setp.ltu.f32 %p1, %f1, %f2;", "    setp.ge.f32 %p2, %f1, %f2;",
        "    setp.neu.f32 %p3, %f1, %f2;", "    setp.ne.f32 %p4, %f1, %f2;",
        "    setp.eq.f32 %p5, %f1, %f2;", "    setp.equ.f32 %p6, %f1, %f2;",
        "    selp.u32 %r5, 1, 0, %p1;", "    selp.u32 %r6, 2, 0, %p2;",
        "    selp.u32 %r7, 4, 0, %p3;", "    selp.u32 %r8, 8, 0, %p4;",
        "    selp.u32 %r9, 16, 0, %p5;", "    selp.u32 %r10, 32, 0, %p6;",
        "    or.b32 %r11, %r5, %r6;", "    or.b32 %r11, %r11, %r7;", "    or.b32 %r11, %r11, %r8;",
        "    or.b32 %r11, %r11, %r9;", "    or.b32 %r11, %r11, %r10;",
        "    setp.lt.f32 %p1, %f1, %f2;", "    selp.u32 %r5, 64, 0, %p1;",
        "    setp.le.f32 %p1, %f1, %f2;", "    selp.u32 %r6, 128, 0, %p1;",
        "    setp.gt.f32 %p1, %f1, %f2;", "    selp.u32 %r7, 256, 0, %p1;",
        "    setp.leu.f32 %p1, %f1, %f2;", "    selp.u32 %r8, 512, 0, %p1;",
        "    setp.gtu.f32 %p1, %f1, %f2;", "    selp.u32 %r9, 1024, 0, %p1;",
        "    setp.geu.f32 %p1, %f1, %f2;", "    selp.u32 %r10, 2048, 0, %p1;",
        "    or.b32 %r11, %r11, %r5;", "    or.b32 %r11, %r11, %r6;", "    or.b32 %r11, %r11, %r7;",
        "    or.b32 %r11, %r11, %r8;", "    or.b32 %r11, %r11, %r9;", "    or.b32 %r11, %r11, %r10;",
        "    cvt.rzi.s32.f32 %r12, %f1;", "    cvt.rmi.u32.f32 %r13, %f1;",
        "    cvt.rni.f32.f32 %f3, %f1;", "    div.rn.f32 %f4, %f1, %f2;",
        "    setp.gtu.f32 %p7, %f1, %f2;", "    selp.b32 %r14, %r12, %r13, %p7;",
        "    mov.u32 %r15, 0;", "    mov.u32 %r16, 0;",
        "    @%p9 setp.ltu.f32 %p1, %f1, %f2;", "    @%p9 setp.ge.f32 %p2, %f1, %f2;",
        "    @%p9 selp.u32 %r15, 1, 0, %p1;", "    @%p9 selp.u32 %r17, 2, 0, %p2;",
        "    @%p9 or.b32 %r15, %r15, %r17;", "    @%p9 cvt.rzi.s32.f32 %r16, %f1;",
        "    mul.wide.u32 %rd8, %r1, 32;", "    add.s64 %rd9, %rd2, %rd8;",
        "    mov.b32 %r18, %f3;", "    mov.b32 %r19, %f4;",
        "    st.global.v4.u32 [%rd9], {%r11, %r12, %r13, %r18};",
        "    st.global.v4.u32 [%rd9+16], {%r19, %r14, %r15, %r16};",
        "    ret;", "}",
    };
    static const uint32_t vals[8] = { 0x3FC00000, 0xC0200000, 0x40200000, 0x7FC00000,
                                      0x4F32D05E, 0xCF32D05E, 0x80000000, 0x7F800000 };
    struct inst_source src;
    testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], "arg = out2 buffer u32 256 zeros", &src);
    const uint32_t *out = (const uint32_t *)ptx_source_launch(&src)->args[1].data;
    for (unsigned t = 0; t < 32; t++) {
        float a, b;
        memcpy(&a, &vals[t & 7], 4);
        memcpy(&b, &vals[(t >> 2) & 7], 4);      /* lanes 0 and 10: a == b */
        const uint32_t *o = out + 8 * t;
        uint32_t rz = sat_int(trunc(a), true), rm = sat_int(floor(a), false);
        bool gtu = isnan(a) || isnan(b) || a > b;
        ck_assert_msg(o[0] == cmp_bits(a, b), "lane %u compare %#x, expected %#x", t, o[0],
                      cmp_bits(a, b));
        ck_assert_msg(o[1] == rz, "lane %u cvt.rzi.s32 %#x, expected %#x", t, o[1], rz);
        ck_assert_msg(o[2] == rm, "lane %u cvt.rmi.u32 %#x, expected %#x", t, o[2], rm);
        float ri = nearbyintf(a), q = a / b;
        ck_assert_msg(isnan(a) ? (o[3] & 0x7fffffffu) > 0x7f800000u : o[3] == fbits(ri),
                      "lane %u cvt.rni.f32 %#x, expected %#x", t, o[3], fbits(ri));
        ck_assert_msg(isnan(q) ? (o[4] & 0x7fffffffu) > 0x7f800000u : o[4] == fbits(q),
                      "lane %u div %#x, expected %#x", t, o[4], fbits(q));
        ck_assert_msg(o[5] == (gtu ? rz : rm), "lane %u selp %#x", t, o[5]);
        uint32_t odd = t & 1;
        ck_assert_msg(o[6] == (odd ? cmp_bits(a, b) & 3 : 0), "lane %u guarded compare %#x", t,
                      o[6]);
        ck_assert_msg(o[7] == (odd ? rz : 0), "lane %u guarded cvt %#x", t, o[7]);
    }
    inst_source_destroy(&src);
}
END_TEST

/* .ftz on f32 (PTX ISA 9.7.3): subnormal inputs and results flushed to a
 * zero of their sign, in arithmetic, comparisons and conversions; the same
 * operations without it keep the subnormals.  1e-40 and -1e-40 are
 * subnormal, 1e-20 squared is. */
START_TEST(ftz_f32)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 p)", "{", "    .reg .pred %p<4>;", "    .reg .b32 %r<20>;",
        "    .reg .f32 %f<20>;", "    .reg .f64 %fd<2>;", "    .reg .b64 %rd<4>;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    setp.ne.u32 %p3, %r1, 0;", "    @%p3 bra DONE;",
        "    mov.b32 %f1, 0x000116C2;", "    mov.b32 %f2, 0x800116C2;", "    mov.f32 %f3, 0f1E3CE508;",
        "    add.ftz.f32 %f4, %f1, 0f00000000;", "    add.f32 %f5, %f1, 0f00000000;",
        "    mul.ftz.f32 %f6, %f3, %f3;", "    mul.f32 %f7, %f3, %f3;",
        "    min.ftz.f32 %f8, %f1, 0f3F800000;", "    neg.ftz.f32 %f9, %f1;",
        "    fma.rn.ftz.f32 %f10, %f3, %f3, 0f00000000;",
        "    cvt.ftz.f32.f32 %f11, %f1;", "    cvt.rmi.ftz.s32.f32 %r2, %f2;",
        "    cvt.rmi.s32.f32 %r3, %f2;", "    cvt.f64.f32 %fd1, %f1;",
        "    cvt.rn.ftz.f32.f64 %f12, %fd1;",
        "    setp.gt.ftz.f32 %p1, %f1, 0f00000000;", "    setp.gt.f32 %p2, %f1, 0f00000000;",
        "    selp.u32 %r4, 1, 0, %p1;", "    selp.u32 %r5, 2, 0, %p2;", "    or.b32 %r6, %r4, %r5;",
        "    mov.b32 %r7, %f4;", "    mov.b32 %r8, %f5;", "    mov.b32 %r9, %f6;",
        "    mov.b32 %r10, %f7;", "    mov.b32 %r11, %f8;", "    mov.b32 %r12, %f9;",
        "    mov.b32 %r13, %f10;", "    mov.b32 %r14, %f11;", "    mov.b32 %r15, %f12;",
        "    st.global.v4.u32 [%rd2], {%r7, %r8, %r9, %r10};",
        "    st.global.v4.u32 [%rd2+16], {%r11, %r12, %r13, %r14};",
        "    st.global.v4.u32 [%rd2+32], {%r15, %r2, %r3, %r6};",
        "DONE:", "    ret;", "}",
    };
    float sq = 1e-20f * 1e-20f;
    uint32_t sqb;
    memcpy(&sqb, &sq, 4);
    const uint32_t want[12] = {
        0x00000000, 0x000116C2,   /* add: flushed input, kept */
        0x00000000, sqb,          /* mul: flushed result, the subnormal product */
        0x00000000, 0x80000000,   /* min(flushed, 1); neg of a flushed input is -0 */
        0x00000000, 0x00000000,   /* fma's result, cvt.f32.f32's */
        0x00000000,               /* cvt.f32.f64: a subnormal result */
        0, 0xFFFFFFFFu,           /* floor of -1e-40: of -0 with .ftz, else -1 */
        2,                        /* 1e-40 > 0 only without .ftz */
    };
    ck_assert_uint_ne(sqb & 0x7f800000u, 0x7f800000u);
    ck_assert_uint_eq(sqb & 0x7f800000u, 0);    /* the product is subnormal */
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (unsigned i = 0; i < 12; i++)
        ck_assert_msg(out[i] == want[i], "result %u: %#x, expected %#x", i, out[i], want[i]);
    inst_source_destroy(&src);
}
END_TEST

/* ld.param.v4 (thrust's fill functor reads its byte value as one): four
 * elements of a struct parameter, bytes into 16-bit registers and halves,
 * each zero-extended. */
START_TEST(param_v4)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 p, .param .align 4 .b8 s[4], .param .align 8 .b8 t[8])",
        "{", "    .reg .b16 %rs<10>;", "    .reg .b32 %r<10>;", "    .reg .b64 %rd<4>;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    ld.param.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [s];",
        "    ld.param.v4.u16 {%rs5, %rs6, %rs7, %rs8}, [t];",
        "    cvt.u32.u16 %r1, %rs1;", "    cvt.u32.u16 %r2, %rs2;", "    cvt.u32.u16 %r3, %rs3;",
        "    cvt.u32.u16 %r4, %rs4;", "    cvt.u32.u16 %r5, %rs5;", "    cvt.u32.u16 %r6, %rs6;",
        "    cvt.u32.u16 %r7, %rs7;", "    cvt.u32.u16 %r8, %rs8;",
        "    st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};",
        "    st.global.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};",
        "    ret;", "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0],
                                          "arg = s u32 0xF1030201\narg = t u64 0x8004000300020001",
                                          &src);
    static const uint32_t want[8] = { 1, 2, 3, 0xF1, 1, 2, 3, 0x8004 };
    for (unsigned i = 0; i < 8; i++)
        ck_assert_msg(out[i] == want[i], "element %u: %#x, expected %#x", i, out[i], want[i]);
    inst_source_destroy(&src);
}
END_TEST

/* ---- malformed PTX ------------------------------------------------------- */

struct ptx_err {
    unsigned at;                 /* line replaced */
    const char *repl;
    unsigned line;               /* line the message must name */
    const char *frag;
};

static const struct ptx_err ptx_errs[] = {
    /* lexical */
    { 20, "    /* never closed", 20, "unterminated comment" },
    { 20, "    mov.u32 %r3, 0xZZ;", 20, "bad number '0xZZ'" },
    /* syntax */
    { 20, "    add.s32 %r3, %r2, 1", 21, "expected ',' or ';'" },
    { 25, "", 26, "missing '}'" },
    { 1, ".version 99.0", 1, "PTX ISA version 99.0 is not supported" },
    { 1, ".version x", 1, "bad .version" },
    { 3, ".address_size 48", 3, "bad .address_size" },
    { 20, "    .frob 3;", 20, "unsupported directive '.frob'" },
    /* declarations and names */
    { 20, "    add.s32 %r3, %q1, 1;", 20, "undeclared register '%q1'" },
    { 19, "    @%p1 bra NOWHERE;", 19, "undefined label NOWHERE" },
    { 23, "$L__BB0_2: $L__BB0_2:", 23, "label $L__BB0_2 defined twice" },
    { 13, "    .reg .f32 %r<4>;", 13, "register %r0 declared twice in one scope" },
    { 20, "    mov.u32 %r3, %foo;", 20, "'%foo'" },
    /* operands */
    { 20, "    add.s32 %r3, %r2;", 20, "takes 3 operands, found 2" },
    { 20, "    add.s32 %rd3, %r2, 1;", 20, "has the wrong size for a .s32 operand" },
    { 20, "    add.f32 %r3, %p1, 1.0;", 20, "register %p1 (.pred) has the wrong size" },
    { 14, "    ld.param.u64 %rd1, [k_param_0+64];", 14, "outside the parameter space" },
    { 20, "    cvt.rni.f32.s32 %r3, %r2;", 20, "integer rounding modifier" },
    /* unsupported features: exit 2, never silently */
    { 20, "    frobnicate.u32 %r3, %r2;", 20, "unsupported instruction 'frobnicate.u32'" },
    { 20, "    call foo;", 20, "call to undeclared function 'foo'" },
    { 20, "    tex.2dms.v4.s32.s32 {%r1,%r2,%r3,%r4}, [t, {%r1,%r2,%r3,%r4}];", 20,
      "unsupported tex form '.2dms'" },
    { 20, "    sust.p.2d.b32.trap [%rd1, {%r1,%r2}], {%r1};", 20, "unsupported sust form '.p'" },
    { 20, "    tex.2d.v4.f32.s32 {%r1,%r2,%r3,%r4}, [%rd1, {%r1}];", 20, "with 2 coordinates" },
    { 20, "    atom.global.frob.u32 %r3, [%rd2], 1;", 20, "unsupported modifier '.frob'" },
    { 20, "    shfl.sync.frob.b32 %r3, %r2, 1, 31, -1;", 20, "unsupported modifier '.frob'" },
    { 20, "    sqrt.approx.f16x2 %r3, %r2;", 20, "'.f16x2' data is unsupported here" },
    /* half precision and dot products: the forms ptxas rejects */
    { 20, "    fma.f16x2 %r3, %r2, %r2, %r2;", 20, "fma needs the rounding modifier .rn" },
    { 20, "    fma.rn.f16x2 %r3, %r2, %r2;", 20, "'fma' takes 4 operands, found 3" },
    { 20, "    cvt.rn.f16x2.f32 %r3, %r2;", 20, "'cvt' takes 3 operands, found 2" },
    { 20, "    cvt.f16x2.f32 %r3, %r2, %r2;", 20, "needs the rounding .rn or .rz" },
    { 20, "    cvt.f16.f32 %r3, %r2;", 20, "needs a rounding modifier" },
    { 20, "    add.rz.f16x2 %r3, %r2, %r2;", 20, "the only rounding of half-precision arithmetic" },
    { 20, "    add.sat.bf16x2 %r3, %r2, %r2;", 20, ".sat is allowed on .f16/.f16x2" },
    { 20, "    mul.ftz.bf16x2 %r3, %r2, %r2;", 20, ".ftz is not allowed on .bf16" },
    { 20, "    min.xorsign.f16x2 %r3, %r2, %r2;", 20, ".xorsign needs .abs" },
    { 20, "    fma.rn.sat.relu.f16x2 %r3, %r2, %r2, %r2;", 20, ".relu cannot be combined with .sat" },
    { 20, "    add.f16x2 %r3, %r2, 0x3c003c00;", 20, "half-precision operands must be registers" },
    { 20, "    setp.lt.f16 %p0|%p1, %r2, %r2;", 20, "setp on .f16/.bf16 writes one predicate" },
    { 20, "    set.lt.f32.f16x2 %r3, %r2, %r2;", 20, "writes .u32, .s32 or .f16x2" },
    { 20, "    dp4a.u32 %r3, %r2, %r2, %r2;", 20, "expected two source types" },
    { 20, "    dp2a.u32.u32 %r3, %r2, %r2, %r2;", 20, "dp2a needs .lo or .hi" },
    { 20, "    min.NaN.f64 %rd3, %rd2, %rd2;", 20, "'min.NaN.f64': .NaN and .xorsign.abs are "
      "defined on .f32" },
    /* the warp and barrier reductions: their operand rules */
    { 20, "    bar.red.u32 %r3, 0, %p1;", 20, "bar.red needs .popc, .and or .or" },
    { 20, "    bar.red.popc.u32 %r3, 0;", 20, "bar.red needs d, a{, b}, {!}c" },
    { 20, "    bar.arrive 0;", 20, "bar.arrive needs a, b" },
    { 20, "    bar.sync 0, 64, 1;", 20, "unsupported form: 'bar' takes 1 to 2 operands, found 3" },
    { 20, "    redux.sync.add.f32 %r3, %r2, -1;", 20, "only .u32, .s32 and .b32" },
    { 20, "    redux.sync.u32 %r3, %r2, -1;", 20, "needs .add, .min, .max, .and, .or or .xor" },
    { 20, "    match.any.sync.b32 %r3|%p1, %r2, -1;", 20, "only match.all writes a predicate" },
    { 20, "    { .reg .b32 q; .reg .b32 q; }", 20, "register q declared twice in one scope" },
    { 20, "    { .reg .b32 q; } mov.u32 q, 1;", 20, "no register or variable called 'q'" },
    /* fuzz findings (tests/fuzz/crashers/ptx): these leaked the name under ASan */
    { 20, "    .local .u32 q[x];", 20, "bad array size 'x'" },
    { 20, "    .shared .u32 q", 21, "expected ';'" },
    { 6, "    .param .u64 k_param_0[0],", 6, "bad parameter array size" },
    { 6, "    .param .u64 k_param_0", 7, "expected ',' or ')'" },
    /* fuzz finding: %r<N> grew the register table one entry at a time (a
     * 10 s timeout under ASan at N = 77779); now amortised */
    { 13, "    .reg .b32 %q<100000>;", 13, "more than 100000 registers" },
};

START_TEST(malformed_ptx)
{
    const struct ptx_err *e = &ptx_errs[_i];
    ptx_case(e->at, e->repl, NULL);
    testlib_expect_error("k.ptx", e->line, e->frag);
}
END_TEST

/* Errors found while executing: out of bounds, misaligned, in the PTX line
 * that accessed memory, with the block and thread. */
START_TEST(runtime_errors)
{
    launch_case(5, "arg = out buffer u32 16 zeros", NULL);   /* threads 16.. overrun it */
    testlib_expect_error("k.ptx", 22, "out-of-bounds global-memory write of 4 bytes 0 bytes past the "
                 "end of buffer out (64 bytes, ");
    testlib_expect_error("k.ptx", 22, "block 0, thread 16, pc ");

    ptx_case(20, "    mul.wide.u32 %rd3, %r2, 5;", NULL);
    testlib_expect_error("k.ptx", 22, "misaligned access");

    ptx_case(20, "    ld.global.u32 %r3, [%rd2+-8];", NULL);
    testlib_expect_error("k.ptx", 20, "block 0, thread 0");
}
END_TEST

/* A read past the end of a __constant__ variable (HeCBench's lci reads
 * one element past its table) names constant memory and the variable. */
START_TEST(const_out_of_bounds)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".const .align 4 .b32 tab[4] = { 1, 2, 3, 4 };",
        ".visible .entry k(.param .u64 p)", "{", "    .reg .b32 %r<4>;", "    .reg .b64 %rd<6>;",
        "    ld.param.u64 %rd1, [p];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    mul.wide.u32 %rd3, %r1, 4;", "    mov.u64 %rd4, tab;",
        "    add.s64 %rd5, %rd4, %rd3;", "    ld.const.u32 %r2, [%rd5];",
        "    add.s64 %rd5, %rd2, %rd3;", "    st.global.u32 [%rd5], %r2;", "    ret;", "}",
    };
    struct inst_source src;
    struct sim_error err = { 0 };
    struct record_totals tot;
    testlib_ptx_open(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    ck_assert_int_ne(record_emulate(&src, &tot, &err), SIM_OK);
    ck_assert_msg(strstr(err.msg, "out-of-bounds constant-memory read of 4 bytes 0 bytes past the "
                                  "end of") != NULL && strstr(err.msg, "tab") != NULL,
                  "%s", err.msg);
    inst_source_destroy(&src);
}
END_TEST

/* ---- bad launch files ---------------------------------------------------- */

struct launch_err {
    unsigned at;                 /* line replaced, 0 = none */
    const char *repl;
    const char *extra;           /* line appended (line 7) */
    unsigned line;
    const char *frag;
};

static const struct launch_err launch_errs[] = {
    /* syntax */
    { 1, "ptx k.ptx", NULL, 1, "expected 'key = value'" },
    { 2, "kernal = k", NULL, 2, "unknown key 'kernal'" },
    { 2, "kernel =", NULL, 2, "missing value for 'kernel'" },
    { 0, NULL, "grid = 2", 7, "'grid' given twice" },
    /* files */
    { 1, "ptx = nothere.ptx", NULL, 1, "cannot open PTX file" },
    { 2, "kernel = nope", NULL, 2, "no kernel 'nope' in" },
    /* geometry and resources */
    { 3, "grid = 0", NULL, 3, "expected grid = X[, Y[, Z]]" },
    { 3, "grid = 1,2,3,4", NULL, 3, "expected grid" },
    { 4, "block = 2048", NULL, 4, "at most 1024 threads" },
    { 0, NULL, "smem = -4", 7, "bad smem" },
    { 0, NULL, "regs = 300", 7, "bad regs '300'" },
    { 0, NULL, "regs.sm_90 = 0", 7, "bad 'regs.sm_90 = 0'" },
    { 0, NULL, "regs.sm_x = 32", 7, "expected regs.sm_NN = 1 .. 255" },
    { 0, NULL, "repeat = 0", 7, "bad repeat '0'" },
    /* arguments */
    { 5, "arg = out buffer u33 32 zeros", NULL, 5, "unknown element type 'u33'" },
    { 5, "arg = out buffer u32 -1 zeros", NULL, 5, "bad element count" },
    { 5, "arg = out buffer u32 32 frob", NULL, 5, "bad initialiser" },
    { 5, "arg = out buffer u32 32 random 5 1", NULL, 5, "random range 5 .. 1 is empty" },
    { 5, "arg = out buffer u32 32 random 0 1 sed 4", NULL, 5, "expected 'seed S'" },
    { 5, "arg = out buffer u32 32 random 2 2e110", NULL, 5, "'2e110' is out of range for u32" },
    { 5, "arg = out buffer u8 32 const 256", NULL, 5, "'256' is out of range for u8 (0 .. 255)" },
    { 5, "arg = out buffer s16 4 seq 32766 1", NULL, 5, "the last element, 32769, is out of "
      "range for s16" },
    { 5, "arg = out buffer f32 4 const -3.5e38", NULL, 5, "'-3.5e38' is out of range for f32" },
    { 5, "arg = out buffer f16 4 const 65520", NULL, 5, "'65520' is out of range for f16" },
    { 5, "arg = out buffer f32 4 random -inf 1", NULL, 5, "a random range needs finite bounds" },
    { 5, "arg = out buffer u32 4 const 1.5", NULL, 5, "'1.5' is not an integer" },
    { 6, "arg = n u32 -1", NULL, 6, "'-1' is out of range for u32 (0 .. 4294967295)" },
    { 0, NULL, "var = nothere u32 4 zeros", 7, "declares no .const or .global variable called "
      "nothere" },
    { 0, NULL, "var = v u32 zeros", 7, "expected 'var = NAME TYPE COUNT INIT'" },
    { 5, "arg = out buffer f32 32 chase 4", NULL, 5, "chase needs 32- or 64-bit integer" },
    { 5, "arg = out buffer u32 32 chase 64", NULL, 5, "bad chase stride" },
    { 5, "arg = out buffer u32 32 file nofile.bin", NULL, 5, "cannot open" },
    { 6, "arg = n u32 abc", NULL, 6, "'abc' is not an integer" },
    { 6, "arg = n u32 1 2", NULL, 6, "a scalar takes one value" },
    { 6, "arg = out u32 3", NULL, 6, "argument 'out' named twice" },
    /* binding to the kernel's parameters */
    { 5, "arg = out u32 32", NULL, 5, "is 4 bytes but parameter 0 of k" },
    { 6, "arg = n f32 32", NULL, 6, "argument n is f32 but parameter 1 of k" },
    { 0, NULL, "arg = x u32 1", 7, "kernel k takes 2 parameters, the launch file gives 3" },
    { 6, "", NULL, 2, "kernel k takes 2 parameters, the launch file gives 1" },
    /* outputs */
    { 0, NULL, "output = nobuf x.bin", 7, "'nobuf' is not a buffer argument or a variable" },
    { 0, NULL, "output = n x.bin", 7, "'n' is not a buffer argument" },
    { 0, NULL, "output = out", 7, "expected 'output = BUFFER PATH'" },
};

START_TEST(bad_launch)
{
    const struct launch_err *e = &launch_errs[_i];
    launch_case(e->at, e->repl, e->extra);
    testlib_expect_error("k.launch", e->line, e->frag);
}
END_TEST

START_TEST(missing_keys)
{
    static const char *const keys[] = { "ptx", "kernel", "grid", "block" };
    for (unsigned i = 0; i < 4; i++) {
        struct sim_error err = { 0 };
        char frag[64];
        launch_case(i + 1, "# removed", NULL);
        ck_assert_int_lt(testlib_ptx_emulate(&err), 0);
        snprintf(frag, sizeof frag, "no '%s = ...' line", keys[i]);
        ck_assert_msg(strstr(err.msg, frag) != NULL && strstr(err.msg, "k.launch") != NULL,
                      "%s", err.msg);
    }
}
END_TEST

START_TEST(file_size_mismatch)
{
    char path[512];
    snprintf(path, sizeof path, "%s/small.bin", testlib_dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    for (int i = 0; i < 100; i++)
        fputc(0, fp);
    fclose(fp);
    launch_case(5, "arg = out buffer u32 32 file small.bin", NULL);
    testlib_expect_error("k.launch", 5, "holds fewer bytes than the buffer's 128");
    launch_case(5, "arg = out buffer u8 99 file small.bin", NULL);
    testlib_expect_error("k.launch", 5, "holds more bytes");
}
END_TEST

START_TEST(output_unwritable)
{
    struct sim_error err = { 0 };
    char path[512];
    struct inst_source src;
    struct record_totals tot;
    launch_case(0, NULL, "output = out k.ptx/x.bin");   /* a file where a directory must be */
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    ck_assert_int_eq(record_emulate(&src, &tot, &err), SIM_OK);
    int rc = ptx_source_write_outputs(&src, NULL, &err);
    inst_source_destroy(&src);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "k.launch:7: output:") != NULL, "%s", err.msg);
}
END_TEST

/* ---- PTX forms ----------------------------------------------------------- */

/* Opcode classes the PTX frontend gives the special functions: ex2 (with
 * or without .ftz) is sfu_ex2, the other approximate functions sfu. */
START_TEST(special_function_classes)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .f32 %f<6>;",
        "    mov.f32 %f1, 0f3F000000;",
        "    ex2.approx.f32 %f2, %f1;",
        "    ex2.approx.ftz.f32 %f3, %f1;",
        "    lg2.approx.f32 %f4, %f1;",
        "    sin.approx.f32 %f5, %f1;",
        "    ret;",
        "}",
    };
    static const unsigned want[] = { SIM_OPC_SFU_EX2, SIM_OPC_SFU_EX2, SIM_OPC_SFU, SIM_OPC_SFU };
    struct inst_source src;
    struct sim_error err = { 0 };
    struct kernel_info ki;
    struct warp_inst wi;
    testlib_ptx_open(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 1);
    ck_assert_int_eq(src.ops->kernel_begin(src.ctx, 1, 1, &err), SIM_OK);
    ck_assert_int_eq(src.ops->block_begin(src.ctx, 0, 0, 0, &err), SIM_OK);
    unsigned n = 0;
    while (inst_source_next(&src, 0, 0, SIM_CYCLE_MAX, &wi, &err) == 1) {
        if (wi.opclass != SIM_OPC_SFU && wi.opclass != SIM_OPC_SFU_EX2)
            continue;
        ck_assert_uint_lt(n, SIM_ARRAY_LEN(want));
        ck_assert_msg(wi.opclass == want[n], "special function %u: class %s", n,
                      inst_opclass_name(wi.opclass));
        n++;
    }
    ck_assert_uint_eq(n, SIM_ARRAY_LEN(want));
    inst_source_destroy(&src);
}
END_TEST

/* The style of seed 001's listings (nvcc of the Kepler era): .version 4.2,
 * sm_30, BB labels, a '$' in a shared array's name moved into a register,
 * bra.uni and a negated guard. */
START_TEST(old_style_listing)
{
    static const char *const ptx[] = {
        ".version 4.2",
        ".target sm_30",
        ".address_size 64",
        ".visible .entry k(",
        "    .param .u64 k_param_0",
        ")",
        "{",
        "    .reg .pred %p<3>;",
        "    .reg .s32 %r<10>;",
        "    .reg .s64 %rd<10>;",
        "    // demoted variable",
        "    .shared .align 4 .b8 k$__cuda_local_var_1_tile[128];",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    mov.u32 %r1, %tid.x;",
        "    setp.gt.s32 %p1, %r1, 15;",
        "    @!%p1 bra BB0_2;",
        "    bra.uni BB0_1;",
        "BB0_1:",
        "    mul.lo.s32 %r2, %r1, 3;",
        "    bra.uni BB0_3;",
        "BB0_2:",
        "    mul.lo.s32 %r2, %r1, 2;",
        "BB0_3:",
        "    mov.u64 %rd2, k$__cuda_local_var_1_tile;",
        "    mul.lo.s32 %r9, %r1, 1;",
        "    selp.b32%r8, %r9, %r9, %p1;",               /* no space: ptxas accepts it */
        "    mul.wide.s32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.shared.u32 [%rd4], %r2;",
        "    bar.sync 0;",
        "    xor.b32 %r3, %r1, 31;",
        "    mul.wide.s32 %rd5, %r3, 4;",
        "    add.s64 %rd6, %rd2, %rd5;",
        "    ld.shared.u32 %r4, [%rd6];",
        "    cvta.to.global.u64 %rd7, %rd1;",
        "    add.s64 %rd8, %rd7, %rd3;",
        "    st.global.u32 [%rd8], %r4;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t t = 0; t < 32; t++) {
        uint32_t u = t ^ 31;
        ck_assert_uint_eq(out[t], u > 15 ? 3 * u : 2 * u);
    }
    inst_source_destroy(&src);
}
END_TEST

/* Warp-level operations: shfl (all modes), vote, and atomics with a result. */
START_TEST(warp_ops)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_75", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .pred %p<3>;",
        "    .reg .b32 %r<20>;",
        "    .reg .b64 %rd<6>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;",
        "    shfl.sync.down.b32 %r2, %r1, 1, 31, -1;",     /* lane+1, last keeps its own */
        "    shfl.sync.bfly.b32 %r3, %r1, 3, 31, -1;",     /* lane^3 */
        "    shfl.sync.idx.b32 %r4, %r1, 5, 31, -1;",      /* 5 */
        "    shfl.sync.up.b32 %r5, %r1, 2, 0, -1;",        /* lane-2, first two keep */
        "    setp.lt.u32 %p1, %r1, 10;",
        "    vote.sync.ballot.b32 %r6, %p1, -1;",          /* 0x3ff */
        "    vote.sync.any.pred %p2, %p1, -1;",
        "    selp.u32 %r7, 1, 0, %p2;",
        "    atom.global.add.u32 %r8, [%rd2+124], 1;",     /* out[31] counts the lanes */
        "    add.s32 %r9, %r2, %r3;",
        "    mad.lo.s32 %r9, %r4, 100, %r9;",
        "    mad.lo.s32 %r9, %r5, 10000, %r9;",
        "    setp.eq.u32 %p1, %r6, 1023;",
        "    selp.u32 %r10, 1000000, 0, %p1;",
        "    add.s32 %r9, %r9, %r10;",
        "    mad.lo.s32 %r9, %r7, 2000000, %r9;",
        "    setp.lt.u32 %p1, %r1, 31;",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    @%p1 st.global.u32 [%rd4], %r9;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 31; l++) {
        uint32_t down = l < 31 ? l + 1 : l, up = l >= 2 ? l - 2 : l;
        uint32_t want = down + (l ^ 3) + 5 * 100 + up * 10000 + 1000000 + 2000000;
        ck_assert_msg(out[l] == want, "lane %u: %u, expected %u", l, out[l], want);
    }
    ck_assert_uint_eq(out[31], 32);
    inst_source_destroy(&src);
}
END_TEST

/* vote.sync with a member mask that differs between lanes, as cooperative
 * groups' thread_block_tile<8>::all/any/ballot emit it (each tile's own 8
 * lanes): every lane reduces over its own mask.  The first lane's mask
 * used to stand for all of them. */
START_TEST(vote_member_masks)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_80", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .pred %p<4>;",
        "    .reg .b32 %r<12>;",
        "    .reg .b64 %rd<6>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;",
        "    and.b32 %r2, %r1, 24;",
        "    mov.u32 %r3, 255;",
        "    shl.b32 %r3, %r3, %r2;",                       /* the lane's tile of 8 */
        "    setp.ne.u32 %p1, %r1, 3;",                     /* false in lane 3 only */
        "    vote.sync.all.pred %p2, %p1, %r3;",            /* false in lanes 0 .. 7 */
        "    setp.gt.u32 %p1, %r1, 20;",
        "    vote.sync.any.pred %p3, %p1, %r3;",            /* true in lanes 16 .. 31 */
        "    vote.sync.ballot.b32 %r4, %p1, %r3;",          /* 0x1fe00000 in 16 .. 23 */
        "    selp.u32 %r5, 1, 0, %p2;",
        "    selp.u32 %r6, 2, 0, %p3;",
        "    add.s32 %r5, %r5, %r6;",
        "    add.s32 %r5, %r5, %r4;",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r5;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t tile = 0xffu << (l & 24), ballot = 0xffe00000u & tile;
        uint32_t want = (l >= 8) + 2 * (l >= 16) + ballot;
        ck_assert_msg(out[l] == want, "lane %u: %#x, expected %#x", l, out[l], want);
    }
    inst_source_destroy(&src);
}
END_TEST

/* activemask under a guard is the mask of the lanes executing it (the
 * sm_90 lowering predicates the body of a short if, as ptxas does, so
 * __activemask() in `if (lane < 20)` is guarded there). */
START_TEST(guarded_activemask)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .pred %p<2>;",
        "    .reg .b32 %r<4>;",
        "    .reg .b64 %rd<5>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    setp.lt.u32 %p1, %r1, 20;",
        "    @%p1 activemask.b32 %r2;",
        "    @%p1 st.global.u32 [%rd4], %r2;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], l < 20 ? 0xfffffu : 0);
    inst_source_destroy(&src);
}
END_TEST

/* Inline-asm blocks: nested scopes, register names without '%', and a
 * register that shadows an outer one only inside its block. */
START_TEST(nested_scopes)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_80", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .b32 %r<6>;",
        "    .reg .b64 %rd<5>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    mov.u32 %r1, %laneid;",
        "    // begin inline asm",
        "    {",
        "    .reg .pred p;",
        "    setp.lt.u32 p, %r1, 16;",
        "    selp.u32 %r2, 1, 2, p;",
        "    }",
        "    // end inline asm",
        "    {",
        "    .reg .b32 %r1;",
        "    mov.u32 %r1, 100;",
        "    add.u32 %r3, %r1, 0;",
        "    { .reg .pred p; setp.ne.u32 p, %r1, 100; @p mov.u32 %r3, 7; }",
        "    }",
        "    mad.lo.s32 %r4, %r2, 1000, %r3;",
        "    add.s32 %r4, %r4, %r1;",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r4;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], (l < 16 ? 1000u : 2000u) + 100u + l);
    inst_source_destroy(&src);
}
END_TEST

/* Forms nvcc emits for CUDA's own headers and for byte and short
 * arithmetic: cuda_fp16.h's inline asm declares "{.reg.b32 f; .reg.b16
 * r;" (no space after .reg), and a multiply of 16-bit values widens to a
 * 32-bit register (mul.wide.u16 %r, %rs, 4: the histogram of bytes). */
START_TEST(narrow_forms)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .b16 %rs<6>;",
        "    .reg .b32 %r<8>;",
        "    .reg .b64 %rd<5>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    mov.u32 %r1, %laneid;",
        "    cvt.u16.u32 %rs1, %r1;",
        "    add.s16 %rs2, %rs1, -36;",                 /* 65500 + lane as .u16 */
        "    mul.wide.u16 %r2, %rs2, 3;",
        "    mov.u16 %rs3, -3;",
        "    mul.wide.s16 %r3, %rs1, %rs3;",
        "    mad.wide.u16 %r4, %rs2, 2, 7;",
        "    {.reg.b32 f;",
        "     .reg.b16 r;",
        "     mov.b16 r, %rs1;",
        "     cvt.u32.u16 f, r;",
        "     add.u32 %r5, f, 0;",
        "    }",
        "    add.s32 %r6, %r2, %r3;",
        "    add.s32 %r6, %r6, %r4;",
        "    add.s32 %r6, %r6, %r5;",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r6;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 32; l++)   /* 3 (65500 + l) - 3 l + 2 (65500 + l) + 7 + l */
        ck_assert_uint_eq(out[l], 327507u + 3u * l);
    inst_source_destroy(&src);
}
END_TEST

/* Packed 16-bit integer add / min / max (.u16x2, .s16x2, max.relu) and
 * vabsdiff4 (plain, .sat, .add), as the CUDA headers' __vadd2, __vminu2,
 * __vabsdiffu4 and __vsadu4 emit them, against a C reference per lane. */
static uint32_t
ref16x2(uint32_t a, uint32_t b, int op, bool sgn, bool relu)
{
    uint32_t r = 0;
    for (unsigned h = 0; h < 2; h++) {
        uint32_t ua = (a >> 16 * h) & 0xffff, ub = (b >> 16 * h) & 0xffff;
        int32_t x = sgn ? (int16_t)ua : (int32_t)ua, y = sgn ? (int16_t)ub : (int32_t)ub;
        int32_t v = op == 0 ? x + y : op == 1 ? (x < y ? x : y) : (x > y ? x : y);
        if (relu && v < 0)
            v = 0;
        r |= ((uint32_t)v & 0xffff) << 16 * h;
    }
    return r;
}

static uint32_t
refvabsdiff4(uint32_t a, uint32_t b, uint32_t c, bool sgn, bool sat, bool add)
{
    uint32_t sum = c, r = 0;
    for (unsigned i = 0; i < 4; i++) {
        int32_t x = sgn ? (int8_t)(a >> 8 * i) : (uint8_t)(a >> 8 * i);
        int32_t y = sgn ? (int8_t)(b >> 8 * i) : (uint8_t)(b >> 8 * i);
        int32_t d = x > y ? x - y : y - x;
        sum += (uint32_t)d;
        if (sat)
            d = sgn ? (d > 127 ? 127 : d) : d;
        r |= ((uint32_t)d & 0xff) << 8 * i;
    }
    return add ? sum : r;
}

START_TEST(packed_integer)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .b32 %r<40>;",
        "    .reg .b64 %rd<5>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    mov.u32 %r1, %laneid;",
        "    add.u32 %r2, %r1, 1;",
        "    mul.lo.u32 %r3, %r2, -2130739455;",        /* a = 0x80FF7F01 (lane + 1) */
        "    mul.lo.u32 %r4, %r1, -1640531527;",
        "    xor.b32 %r5, %r4, 33456383;",              /* b = 0x01FE80FF ^ lane 0x9E3779B9 */
        "    add.u16x2 %r10, %r3, %r5;",
        "    add.s16x2 %r11, %r3, %r5;",
        "    min.u16x2 %r12, %r3, %r5;",
        "    max.s16x2 %r13, %r3, %r5;",
        "    max.relu.s16x2 %r14, %r3, %r5;",
        "    min.s16x2 %r15, %r3, %r5;",
        "    vabsdiff4.u32.u32.u32 %r16, %r3, %r5, %r1;",
        "    vabsdiff4.s32.s32.s32.sat %r17, %r3, %r5, %r1;",
        "    vabsdiff4.u32.u32.u32.add %r18, %r3, %r5, %r1;",
        "    mad.lo.u32 %r20, %r11, 23, %r10;",
        "    mad.lo.u32 %r20, %r12, 3, %r20;",
        "    mad.lo.u32 %r20, %r13, 5, %r20;",
        "    mad.lo.u32 %r20, %r14, 7, %r20;",
        "    mad.lo.u32 %r20, %r15, 11, %r20;",
        "    mad.lo.u32 %r20, %r16, 13, %r20;",
        "    mad.lo.u32 %r20, %r17, 17, %r20;",
        "    mad.lo.u32 %r20, %r18, 19, %r20;",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mul.wide.u32 %rd3, %r1, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r20;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t a = 0x80FF7F01u * (l + 1), b = 0x01FE80FFu ^ (l * 0x9E3779B9u);
        uint32_t want = ref16x2(a, b, 0, false, false) + 23u * ref16x2(a, b, 0, true, false) +
                        3u * ref16x2(a, b, 1, false, false) + 5u * ref16x2(a, b, 2, true, false) +
                        7u * ref16x2(a, b, 2, true, true) + 11u * ref16x2(a, b, 1, true, false) +
                        13u * refvabsdiff4(a, b, l, false, false, false) +
                        17u * refvabsdiff4(a, b, l, true, true, false) +
                        19u * refvabsdiff4(a, b, l, false, false, true);
        ck_assert_uint_eq(out[l], want);
    }
    inst_source_destroy(&src);
}
END_TEST

/* Every instruction form doc/launch-format.md lists as supported and the
 * suite does not otherwise use parses, decodes and executes. */
START_TEST(documented_forms)
{
    static const char *const ptx[] = {
        ".version 9.0",
        ".target sm_80",
        ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        ".maxntid 32, 1, 1",
        ".reqntid 32",
        ".minnctapersm 1",
        "{",
        "    .reg .pred %p<4>;",
        "    .reg .b32 %r<40>;",
        "    .reg .f32 %f<10>;",
        "    .reg .b64 %rd<10>;",
        "    .reg .f64 %fd<4>;",
        "    .reg .b16 %rs<4>;",
        "    .shared .align 4 .b8 sh[128];",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;",
        "    mov.u64 %rd3, %globaltimer;",
        "    mov.u32 %r2, %dynamic_smem_size;",
        "    mov.u32 %r3, %total_smem_size;",
        "    mov.u32 %r4, %nwarpid;",
        "    mov.u32 %r5, %lanemask_lt;",
        "    bar.warp.sync -1;",
        "    lop3.b32 %r6, %r1, %r5, %r4, 0x96;",
        "    nanosleep.u32 10;",
        "    ldu.global.u32 %r7, [%rd2];",
        "    ld.global.nc.u32 %r8, [%rd2+4];",
        "    ld.global.cg.u32 %r9, [%rd2+8];",
        "    ld.global.cs.u32 %r9, [%rd2+8];",
        "    ld.global.lu.u32 %r9, [%rd2+8];",
        "    ld.global.cv.u32 %r9, [%rd2+8];",
        "    mad.lo.cc.u32 %r10, %r1, %r1, %r1;",
        "    madc.hi.u32 %r11, %r1, %r1, 0;",
        "    cvt.rn.f32.s32 %f1, %r1;",
        "    cvt.sat.f32.f32 %f2, %f1;",
        "    cvt.rzi.sat.u8.f32 %r12, %f1;",
        "    barrier.sync 0;",
        "    bar.sync 0;",
        "    membar.gl;",
        "    fence.acq_rel.gpu;",
        "    tanh.approx.f32 %f3, %f1;",
        "    testp.finite.f32 %p1, %f3;",
        "    copysign.f32 %f4, %f1, %f3;",
        "    bfind.u32 %r13, %r1;",
        "    brev.b32 %r14, %r1;",
        "    bfe.u32 %r15, %r1, 1, 3;",
        "    bfi.b32 %r16, %r1, %r2, 4, 4;",
        "    prmt.b32 %r17, %r1, %r2, 0x3210;",
        "    mul24.lo.u32 %r18, %r1, %r1;",
        "    sad.u32 %r19, %r1, %r2, %r3;",
        "    slct.u32.s32 %r20, %r1, %r2, %r3;",
        "    shf.l.wrap.b32 %r21, %r1, %r2, 3;",
        "    cnot.b32 %r22, %r1;",
        "    activemask.b32 %r23;",
        "    red.global.add.u32 [%rd2+12], 1;",
        "    atom.shared.cas.b32 %r24, [sh], 0, 1;",
        "    rsqrt.approx.ftz.f32 %f5, %f1;",
        "    sqrt.rn.f64 %fd1, %fd2;",
        "    div.full.f32 %f6, %f1, %f2;",
        "    ex2.approx.ftz.f32 %f7, %f1;",
        "    set.lt.u32.f32 %r25, %f1, %f2;",
        "    setp.lt.and.f32 %p2, %f1, %f2, %p1;",
        "    vote.sync.uni.pred %p3, %p2, -1;",
        "    add.f16 %rs1, %rs2, %rs3;",
        "    cvt.rn.f16.f32 %rs1, %f1;",
        "    ld.volatile.global.u32 %r26, [%rd2];",
        "    st.global.wb.u32 [%rd2+16], %r26;",
        "    exit;",
        "}",
    };
    struct inst_source src;
    testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    inst_source_destroy(&src);
}
END_TEST

/* ld/st of an integer type through a wider register: loads sign- or
 * zero-extend by the type, stores keep the low bytes (nvcc emits
 * `ld.param.s32 %rd3, [p]` for an int parameter used in 64-bit math). */
START_TEST(wide_registers)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
        "{",
        "    .reg .b32 %r<4>;",
        "    .reg .b64 %rd<12>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    ld.param.s32 %rd2, [k_param_1];",              /* -5, sign-extended */
        "    ld.param.u32 %rd3, [k_param_1];",              /* zero-extended */
        "    cvta.to.global.u64 %rd4, %rd1;",
        "    st.global.u64 [%rd4], %rd2;",
        "    st.global.u64 [%rd4+8], %rd3;",
        "    st.global.s32 [%rd4+16], %rd2;",               /* low 4 bytes */
        "    ld.global.s32 %rd5, [%rd4+16];",
        "    st.global.u64 [%rd4+24], %rd5;",
        "    ld.global.u8 %rd6, [%rd4+16];",                /* 0xfb */
        "    st.global.u64 [%rd4+32], %rd6;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], "arg = v s32 -5", &src);
    int64_t v[5];
    memcpy(v, out, sizeof v);
    ck_assert_int_eq(v[0], -5);
    ck_assert_int_eq(v[1], 0xfffffffbLL);
    ck_assert_int_eq((int32_t)(uint32_t)v[2], -5);
    ck_assert_int_eq(v[3], -5);
    ck_assert_int_eq(v[4], 0xfb);
    inst_source_destroy(&src);
}
END_TEST

/* 32-bit shared-memory address arithmetic wraps at 2^32, as on the GPU:
 * [%r + 8] with %r = sm - 4 (0xfffffffc when sm is at 0) is sm + 4.  The
 * sum used to be taken in 64 bits and rejected as an out-of-bounds access
 * at 0x100000004 (a real-world kernel that runs on the H100 did this). */
START_TEST(shared_address_wraps)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
        "{",
        "    .reg .b32 %r<8>;",
        "    .reg .b64 %rd<4>;",
        "    .shared .align 4 .b8 sm[64];",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, sm;",
        "    add.s32 %r2, %r1, -4;",                     /* sm - 4, wrapped */
        "    mov.u32 %r3, 77;",
        "    st.shared.u32 [%r2+8], %r3;",               /* sm + 4 */
        "    ld.shared.u32 %r4, [%r1+4];",
        "    st.global.u32 [%rd2], %r4;",
        "    add.s32 %r6, %r1, -8;",                     /* a 64-bit register holding a */
        "    cvt.u64.u32 %rd3, %r6;",                    /* wrapped 32-bit shared address */
        "    ld.shared.u32 %r5, [%rd3+12];",             /* sm + 4 in the 32-bit window */
        "    st.global.u32 [%rd2+4], %r5;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], "arg = v u32 0", &src);
    ck_assert_uint_eq(out[0], 77);
    ck_assert_uint_eq(out[1], 77);
    inst_source_destroy(&src);
}
END_TEST

/* ---- modern instructions: f16x2, cp.async, mma, wmma, per-kernel support -- */

/* Packed halves: mov.b32 {lo, hi} packs, fma/add/mul.f16x2 work on each
 * half, mov.b32 {..}, %r unpacks.  1.5 * 1.5 + 1 = 3.25, 2 * 2 + 0.25 =
 * 4.25, ... all exact in binary16.  0x3E00 is a hex integer: a literal with
 * an 'e' digit used to be read as a decimal float (and became 0). */
START_TEST(packed_half)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .b16 %rs<4>;",
        "    .reg .b32 %r<8>;",
        "    .reg .b64 %rd<3>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.b16 %rs1, 0x3E00;",                     /* 1.5 */
        "    mov.b16 %rs2, 0x4000;",                     /* 2.0 */
        "    mov.b32 %r1, {%rs1, %rs2};",
        "    mov.b32 %r2, 0x34003C00;",                  /* {1.0, 0.25} */
        "    fma.rn.f16x2 %r3, %r1, %r1, %r2;",
        "    add.f16x2 %r4, %r1, %r2;",
        "    mul.f16x2 %r5, %r1, %r2;",
        "    mov.b32 {%rs1, %rs3}, %r3;",
        "    cvt.u32.u16 %r6, %rs3;",
        "    st.global.u32 [%rd2], %r3;",
        "    st.global.u32 [%rd2+4], %r4;",
        "    st.global.u32 [%rd2+8], %r5;",
        "    st.global.u32 [%rd2+12], %r6;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    ck_assert_uint_eq(out[0], 0x44404280u);     /* {3.25, 4.25} */
    ck_assert_uint_eq(out[1], 0x40804100u);     /* {2.5, 2.25} */
    ck_assert_uint_eq(out[2], 0x38003E00u);     /* {1.5, 0.5} */
    ck_assert_uint_eq(out[3], 0x4440u);
    inst_source_destroy(&src);
}
END_TEST

/* cp.async: 16 bytes per lane global -> shared, then 8 with a src-size of
 * 4 (the other 4 zero-filled); the copies are there after wait_group 0 /
 * wait_all.  For the model a copy is a global load of the bytes it reads. */
START_TEST(cp_async)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)",
        "{",
        "    .reg .b32 %r<12>;",
        "    .reg .b64 %rd<8>;",
        "    .shared .align 16 .b8 buf[512];",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    ld.param.u64 %rd3, [k_param_1];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    cvta.to.global.u64 %rd4, %rd3;",
        "    mov.u32 %r1, %tid.x;",
        "    mul.wide.u32 %rd5, %r1, 16;",
        "    add.s64 %rd6, %rd4, %rd5;",
        "    mov.u32 %r2, buf;",
        "    shl.b32 %r3, %r1, 4;",
        "    add.s32 %r4, %r2, %r3;",
        "    cp.async.cg.shared.global [%r4], [%rd6], 16;",
        "    cp.async.commit_group;",
        "    cp.async.wait_group 0;",
        "    ld.shared.u32 %r5, [%r4+4];",
        "    cp.async.ca.shared.global [%r4], [%rd6+8], 8, 4;",
        "    cp.async.commit_group;",
        "    cp.async.wait_all;",
        "    ld.shared.u32 %r6, [%r4];",
        "    ld.shared.u32 %r7, [%r4+4];",
        "    shl.b32 %r8, %r6, 8;",
        "    shl.b32 %r9, %r7, 16;",
        "    add.s32 %r10, %r5, %r8;",
        "    add.s32 %r11, %r10, %r9;",
        "    mul.wide.u32 %rd7, %r1, 4;",
        "    add.s64 %rd7, %rd2, %rd7;",
        "    st.global.u32 [%rd7], %r11;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0],
                                     "arg = in buffer u32 128 seq 0 1", &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], (4 * l + 1) + ((4 * l + 2) << 8));
    inst_source_destroy(&src);
}
END_TEST

/* wmma m16n16k16: A (row-major) and B (column-major) halves with bit
 * patterns 0 .. 255 (subnormal: value = bits x 2^-24, every sum exact),
 * the other operand all ones; D = A x B + 0 stored row-major as f32. */
START_TEST(wmma_row_col)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2,",
        "                  .param .u64 k_param_3, .param .u64 k_param_4)",
        "{",
        "    .reg .b32 %r<40>;",
        "    .reg .f32 %f<20>;",
        "    .reg .b64 %rd<8>;",
        "    ld.param.u64 %rd1, [k_param_1];",
        "    ld.param.u64 %rd2, [k_param_2];",
        "    ld.param.u64 %rd3, [k_param_3];",
        "    ld.param.u64 %rd4, [k_param_4];",
        "    mov.f32 %f1, 0f00000000;",
        "    mov.u32 %r1, 16;",
        "    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8, %r9}, [%rd1], %r1;",
        "    wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r10, %r11, %r12, %r13, %r14, "
        "%r15, %r16, %r17}, [%rd2], %r1;",
        "    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, "
        "%f9}, {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, {%r10, %r11, %r12, %r13, %r14, %r15, "
        "%r16, %r17}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
        "    wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd3], {%f2, %f3, %f4, %f5, %f6, "
        "%f7, %f8, %f9}, %r1;",
        "    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8, %r9}, [%rd2], %r1;",       /* the ones */
        "    wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r10, %r11, %r12, %r13, %r14, "
        "%r15, %r16, %r17}, [%rd1], %r1;",
        "    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, "
        "%f9}, {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, {%r10, %r11, %r12, %r13, %r14, %r15, "
        "%r16, %r17}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
        "    wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd4], {%f2, %f3, %f4, %f5, %f6, "
        "%f7, %f8, %f9}, %r1;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0],
               "arg = a buffer u16 256 seq 0 1\narg = b buffer u16 256 const 15360\n"
               "arg = d buffer f32 256 zeros\narg = e buffer f32 256 zeros", &src);
    const struct launch *l = ptx_source_launch(&src);
    const float *d = (const float *)l->args[3].data, *e = (const float *)l->args[4].data;
    for (unsigned i = 0; i < 16; i++)
        for (unsigned j = 0; j < 16; j++) {
            /* D[i][j] = sum_k A[i][k] (row-major bits 16 i + k); E[i][j] = sum_k B[k][j]
             * with B column-major: element (k, j) at j * 16 + k */
            ck_assert_float_eq(d[i * 16 + j], ldexpf((float)(256 * i + 120), -24));
            ck_assert_float_eq(e[i * 16 + j], ldexpf((float)(256 * j + 120), -24));
        }
    inst_source_destroy(&src);
}
END_TEST

/* A module whose other kernel uses an unsupported instruction still runs
 * its supported kernels; launching the other one names it and the line. */
static const char *const TWO_KERNELS[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0)",
    "{",
    "    ret;",
    "}",
    ".visible .entry bad(.param .u64 bad_param_0)",
    "{",
    "    .reg .b32 %r<6>;",
    "    .reg .b64 %rd<3>;",
    "    sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;",
    "    ret;",
    "}",
};

START_TEST(unsupported_per_kernel)
{
    static const char *const launch_k[] = { "ptx = k.ptx", "kernel = k", "grid = 1",
                                            "block = 32", "arg = out buffer u32 32 zeros" };
    static const char *const launch_bad[] = { "ptx = k.ptx", "kernel = bad", "grid = 1",
                                              "block = 32", "arg = out buffer u32 32 zeros" };
    struct sim_error err = { 0 };
    testlib_write_lines("k.ptx", TWO_KERNELS, sizeof TWO_KERNELS / sizeof TWO_KERNELS[0], 0, NULL,
                        NULL);
    testlib_write_lines("k.launch", launch_k, 5, 0, NULL, NULL);
    ck_assert_msg(testlib_ptx_emulate(&err) == SIM_OK, "%s", err.msg);
    testlib_write_lines("k.launch", launch_bad, 5, 0, NULL, NULL);
    testlib_expect_error("k.ptx", 12, "kernel bad: unsupported instruction 'sured.b.add.2d.u32.trap'");
}
END_TEST

/* Malformed tensor instructions: exit 2 with file:line and what was
 * expected. */
START_TEST(mma_malformed)
{
    ptx_case(0, NULL, NULL);
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .f32 %f<6>;",
        "    .reg .b32 %r<6>;",
        "    mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, "
        "{%r1, %r2}, {%r3, %r4}, {%f1, %f2, %f3, %f4};",
        "    ret;",
        "}",
    };
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                           "arg = out buffer u32 32 zeros" };
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, 5, 0, NULL, NULL);
    testlib_expect_error("k.ptx", 8, "the A fragment needs 4 registers");
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 8,
               "    mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};",
               NULL);
    /* Volta's f16 m8n8k4 (the shape is known: .f64 uses it) */
    testlib_expect_error("k.ptx", 8,
                         "unsupported form 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32'");
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 8,
               "    mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1}, {%r1}, {%r2}, {%r1};",
               NULL);
    testlib_expect_error("k.ptx", 8, "unsupported shape '.m8n8k16' on 'mma'");
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 8,
               "    cp.async.cg.shared.global [%r1], [%r2], 8;", NULL);
    testlib_expect_error("k.ptx", 8, "cp.async.cg copies 16 bytes");
}
END_TEST

/* Launch-file initialisers are deterministic and do what they say. */
START_TEST(initialisers)
{
    struct sim_error err = { 0 };
    launch_case(5, "arg = out buffer u32 32 chase 4 seed 9", NULL);
    char path[512];
    struct launch *l;
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    const uint32_t *a = (const uint32_t *)l->args[0].data;
    uint32_t j = 0, seen = 0;
    for (unsigned i = 0; i < 8; i++) {      /* one cycle through all 8 nodes */
        ck_assert_uint_eq(j % 4, 0);
        seen |= 1u << (j / 4);
        j = a[j];
    }
    ck_assert_uint_eq(j, 0);
    ck_assert_uint_eq(seen, 0xff);
    launch_free(l);

    /* every value the element type holds, and nothing else: its extremes,
     * infinities and NaN as literals (a value outside the type is an error:
     * bad_launch) */
    launch_case(5, "arg = out buffer s16 4 seq 32764 1", "arg = m s16 -32768");
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    const int16_t *h = (const int16_t *)l->args[0].data;
    ck_assert_int_eq(h[3], 32767);
    ck_assert_uint_eq(l->args[2].value, 0x8000);
    launch_free(l);
    static const char *const f32s[] = { "inf", "-inf", "-INFINITY", "nan", "-3.4028235e38",
                                        "3.4028235e38", "1e-50" };
    static const uint32_t f32bits[] = { 0x7f800000, 0xff800000, 0xff800000, 0x7fc00000,
                                        0xff7fffff, 0x7f7fffff, 0 };
    for (unsigned i = 0; i < sizeof f32s / sizeof f32s[0]; i++) {
        char line[96];
        snprintf(line, sizeof line, "arg = out buffer f32 32 const %s", f32s[i]);
        launch_case(5, line, NULL);
        ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s: %s", f32s[i], err.msg);
        ck_assert_uint_eq(((const uint32_t *)l->args[0].data)[31], f32bits[i]);
        launch_free(l);
    }
    launch_case(5, "arg = out buffer u64 32 random 0 9223372036854775807 seed 5",
                "arg = big u64 18446744073709551615");
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    const uint64_t *q = (const uint64_t *)l->args[0].data;
    unsigned high = 0;
    for (unsigned i = 0; i < 32; i++)
        high += q[i] >> 62 != 0;                 /* the whole range is drawn from */
    ck_assert_uint_gt(high, 0);
    ck_assert_uint_eq(l->args[2].value, UINT64_MAX);
    launch_free(l);
    launch_case(5, "arg = out buffer s64 32 random -9223372036854775808 9223372036854775807", NULL);
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    launch_free(l);

    /* half-precision elements and scalars, rounded to nearest even */
    launch_case(5, "arg = out buffer f16 4 seq 1 0.5", "arg = h bf16 1.00390625");
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    h = (const int16_t *)l->args[0].data;
    ck_assert_uint_eq((uint16_t)h[0], 0x3c00);          /* 1.0 */
    ck_assert_uint_eq((uint16_t)h[3], 0x4100);          /* 2.5 */
    ck_assert_uint_eq(l->args[2].value & 0xffff, 0x3f80);   /* halfway: to even, 1.0 */
    launch_free(l);

    launch_case(5, "arg = out buffer u32 32 seq 5 3", NULL);
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    a = (const uint32_t *)l->args[0].data;
    ck_assert_uint_eq(a[0], 5);
    ck_assert_uint_eq(a[31], 5 + 3 * 31);
    launch_free(l);

    uint32_t first[32];
    launch_case(5, "arg = out buffer u32 32 random 10 20 seed 3", NULL);
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    memcpy(first, l->args[0].data, sizeof first);
    launch_free(l);
    ck_assert_msg(launch_parse(path, &l, &err) == SIM_OK, "%s", err.msg);
    ck_assert_mem_eq(first, l->args[0].data, sizeof first);
    for (unsigned i = 0; i < 32; i++)
        ck_assert(first[i] >= 10 && first[i] <= 20);
    launch_free(l);
}
END_TEST

static Suite *
ptx_suite(void)
{
    Suite *s = suite_create("ptx");
    TCase *tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, base_runs);
    tcase_add_test(tc, regs_per_arch);
    tcase_add_test(tc, label_at_end);
    tcase_add_test(tc, loc_lines);
    tcase_add_test(tc, isspacep_and_long_names);
    tcase_add_test(tc, prefetch_forms);
    tcase_add_test(tc, cvt_tf32);
    tcase_add_test(tc, float_fast_paths);
    tcase_add_test(tc, ftz_f32);
    tcase_add_test(tc, param_v4);
    tcase_add_test(tc, const_out_of_bounds);
    tcase_add_loop_test(tc, malformed_ptx, 0, (int)(sizeof ptx_errs / sizeof ptx_errs[0]));
    tcase_add_test(tc, runtime_errors);
    tcase_add_loop_test(tc, bad_launch, 0, (int)(sizeof launch_errs / sizeof launch_errs[0]));
    tcase_add_test(tc, missing_keys);
    tcase_add_test(tc, file_size_mismatch);
    tcase_add_test(tc, output_unwritable);
    suite_add_tcase(s, tc);
    tc = tcase_create("forms");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, old_style_listing);
    tcase_add_test(tc, special_function_classes);
    tcase_add_test(tc, warp_ops);
    tcase_add_test(tc, vote_member_masks);
    tcase_add_test(tc, guarded_activemask);
    tcase_add_test(tc, nested_scopes);
    tcase_add_test(tc, narrow_forms);
    tcase_add_test(tc, packed_integer);
    tcase_add_test(tc, documented_forms);
    tcase_add_test(tc, wide_registers);
    tcase_add_test(tc, shared_address_wraps);
    tcase_add_test(tc, packed_half);
    tcase_add_test(tc, cp_async);
    tcase_add_test(tc, wmma_row_col);
    tcase_add_test(tc, unsupported_per_kernel);
    tcase_add_test(tc, mma_malformed);
    tcase_add_test(tc, initialisers);
    tcase_add_test(tc, regalloc_shares_slots);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_suite)
