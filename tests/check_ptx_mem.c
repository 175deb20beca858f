/*
 * check_ptx_mem.c - the memory of a running PTX kernel and how it ends
 * (frontend/ptx_mem.c, ptx_spin.c, ptx_exec.c): module variables, set by
 * their initialisers or the launch file's var lines; accesses checked
 * against the allocations themselves; the %clock proxy across a barrier;
 * kernels that never end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "testlib.h"

/* emulate has no clock: %clock reads 4 per warp instruction executed.  A
 * barrier joins the warps' timelines: a read after it is never earlier
 * than a read before it in any warp of the block (the usual
 * "__syncthreads(); t = clock64();" micro-benchmark form), while warp 1
 * ran far fewer instructions than warp 0. */
/* Write k.ptx and k.launch and emulate the launch; src holds its buffers. */
static void
emulate_lines(const char *const *ptx, size_t n_ptx, const char *const *launch, size_t n_launch,
              struct inst_source *src)
{
    struct sim_error err = { 0 };
    struct record_totals tot;
    char path[512];
    testlib_write_lines("k.ptx", ptx, n_ptx, 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, n_launch, 0, NULL, NULL);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(ptx_source_open(path, src, &err) == SIM_OK, "%s", err.msg);
    ck_assert_msg(record_emulate(src, &tot, &err) == SIM_OK, "%s", err.msg);
}

START_TEST(clock_after_barrier)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_75", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .pred %p<3>;",
        "    .reg .b32 %r<8>;",
        "    .reg .b64 %rd<8>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;",
        "    mov.u32 %r2, 0;",
        "    setp.ge.u32 %p1, %r1, 32;",
        "    @%p1 bra $L_wait;",
        "$L_loop:",
        "    add.s32 %r2, %r2, 1;",
        "    setp.lt.u32 %p2, %r2, 500;",
        "    @%p2 bra $L_loop;",
        "$L_wait:",
        "    mov.u64 %rd3, %clock64;",
        "    bar.sync 0;",
        "    mov.u64 %rd4, %clock64;",
        "    shr.u32 %r3, %r1, 5;",
        "    mul.wide.u32 %rd5, %r3, 16;",
        "    add.s64 %rd6, %rd2, %rd5;",
        "    st.global.u64 [%rd6], %rd3;",
        "    st.global.u64 [%rd6+8], %rd4;",
        "    ret;",
        "}",
    };
    static const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 64", "arg = out buffer u64 4 zeros",
    };
    struct inst_source src;
    emulate_lines(ptx, sizeof ptx / sizeof ptx[0], launch, sizeof launch / sizeof launch[0], &src);
    const uint64_t *t = (const uint64_t *)ptx_source_launch(&src)->args[0].data;
    /* warp 0: about 1,500 instructions before its first read; warp 1: a few */
    ck_assert_uint_gt(t[0], 4 * 1000);
    ck_assert_uint_lt(t[2], 4 * 20);
    ck_assert_msg(t[3] >= t[0] && t[1] >= t[0], "after the barrier: %" PRIu64 " and %" PRIu64
                  ", before it in warp 0: %" PRIu64, t[1], t[3], t[0]);
    ck_assert_uint_lt(t[3] - t[0], 4 * 20);
    inst_source_destroy(&src);
}
END_TEST

/* Module-scope .const and .global variables with initialisers (direct,
 * through a symbol address in a register, and generic via cvta), and
 * per-thread .local arrays. */
START_TEST(module_variables)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_75", ".address_size 64",
        ".const .align 4 .b32 ctab[4] = {10, 20, 30, 40};",
        ".global .align 4 .u32 gcount = 5;",
        ".global .align 8 .f64 gd[2] = {1.5, 2.5};",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .local .align 4 .b8 buf[16];",
        "    .reg .b32 %r<12>;",
        "    .reg .f64 %fd<3>;",
        "    .reg .b64 %rd<12>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    mov.u32 %r1, %laneid;",
        "    and.b32 %r2, %r1, 3;",
        "    mul.wide.u32 %rd2, %r2, 4;",
        "    mov.u64 %rd3, ctab;",
        "    add.s64 %rd4, %rd3, %rd2;",
        "    ld.const.u32 %r3, [%rd4];",                 /* ctab[lane % 4] */
        "    ld.const.u32 %r4, [ctab+12];",              /* 40 */
        "    ld.global.u32 %r5, [gcount];",              /* 5 */
        "    ld.global.f64 %fd1, [gd+8];",               /* 2.5 */
        "    cvt.rzi.u32.f64 %r6, %fd1;",                /* 2 */
        "    mov.u64 %rd5, buf;",                        /* local: per thread */
        "    st.local.u32 [%rd5+4], %r1;",
        "    cvta.local.u64 %rd6, %rd5;",
        "    ld.u32 %r7, [%rd6+4];",                     /* generic read back: lane */
        "    cvta.const.u64 %rd7, %rd3;",
        "    ld.u32 %r8, [%rd7];",                       /* generic const: 10 */
        "    add.s32 %r9, %r3, %r4;",
        "    add.s32 %r9, %r9, %r5;",
        "    add.s32 %r9, %r9, %r6;",
        "    mad.lo.s32 %r9, %r7, 1000, %r9;",
        "    mad.lo.s32 %r9, %r8, 100000, %r9;",
        "    cvta.to.global.u64 %rd8, %rd1;",
        "    mul.wide.u32 %rd9, %r1, 4;",
        "    add.s64 %rd10, %rd8, %rd9;",
        "    st.global.u32 [%rd10], %r9;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], 10 * (l % 4 + 1) + 40 + 5 + 2 + 1000 * l + 1000000);
    inst_source_destroy(&src);
}
END_TEST

/* Module variables set from the launch file (var = NAME TYPE COUNT INIT,
 * what cudaMemcpyToSymbol does): a __constant__ array without an
 * initialiser in the PTX, a __device__ scalar the kernel updates (written
 * back with output =), and one whose name nvcc mangled in a namespace. */
START_TEST(launch_variables)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_75", ".address_size 64",
        ".const .align 4 .b8 coef[16];",
        ".global .align 4 .u32 counter;",
        ".global .align 4 .f32 _ZN2ns5scaleE;",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
        "    .reg .b32 %r<12>;",
        "    .reg .f32 %f<4>;",
        "    .reg .b64 %rd<12>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    mov.u32 %r1, %laneid;",
        "    and.b32 %r2, %r1, 3;",
        "    mul.wide.u32 %rd2, %r2, 4;",
        "    mov.u64 %rd3, coef;",
        "    add.s64 %rd4, %rd3, %rd2;",
        "    ld.const.u32 %r3, [%rd4];",                 /* coef[lane % 4] */
        "    ld.global.f32 %f1, [_ZN2ns5scaleE];",
        "    cvt.rzi.u32.f32 %r4, %f1;",
        "    add.s32 %r5, %r3, %r4;",
        "    atom.global.add.u32 %r6, [counter], 1;",
        "    cvta.to.global.u64 %rd8, %rd1;",
        "    mul.wide.u32 %rd9, %r1, 4;",
        "    add.s64 %rd10, %rd8, %rd9;",
        "    st.global.u32 [%rd10], %r5;",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0],
                                     "var = coef u32 4 seq 100 10\n"
                                     "var = counter u32 1 const 7\n"
                                     "var = ns::scale f32 1 const 2.5\n"
                                     "output = counter counter.bin", &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_uint_eq(out[l], 100 + 10 * (l % 4) + 2);
    struct sim_error err = { 0 };
    ck_assert_msg(ptx_source_write_outputs(&src, NULL, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&src);
    char path[512];
    snprintf(path, sizeof path, "%s/counter.bin", testlib_dir);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    uint32_t c = 0;
    ck_assert_uint_eq(fread(&c, 4, 1, fp), 1);
    fclose(fp);
    ck_assert_uint_eq(c, 7 + 32);

    /* the sizes must agree */
    testlib_write_lines("k.launch", (const char *const[]){ "ptx = k.ptx", "kernel = k", "grid = 1",
                                                  "block = 32", "arg = out buffer u32 32 zeros",
                                                  "var = coef u32 3 zeros" }, 6, 0, NULL, NULL);
    testlib_expect_error("k.launch", 6, "variable coef is 16 bytes in");

    /* without the var line the constant array is read unset: a warning
     * naming it (stderr), zeros, no error */
    testlib_write_lines("k.launch", (const char *const[]){ "ptx = k.ptx", "kernel = k", "grid = 1",
                                                  "block = 32", "arg = out buffer u32 32 zeros" },
               5, 0, NULL, NULL);
    fflush(stderr);
    int saved = dup(2);
    snprintf(path, sizeof path, "%s/stderr.txt", testlib_dir);
    FILE *cap = freopen(path, "w", stderr);
    ck_assert_ptr_nonnull(cap);
    int rc = testlib_ptx_emulate(&err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ck_assert_msg(rc == SIM_OK, "%s", err.msg);
    fp = fopen(path, "r");
    char text[2048] = "";
    size_t got = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[got] = '\0';
    ck_assert_msg(strstr(text, "kernel k reads __constant__ variable coef, which neither the PTX "
                               "nor the launch file initialises") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "k.ptx:22: kernel k reads __device__ variable counter") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(strstr(text, "coef") + 1, "variable coef") == NULL, "twice: %s", text);
}
END_TEST

/* Memory checks against the allocations themselves: an overrun far past a
 * buffer's end (beyond any gap a GPU allocator leaves) is reported at the
 * first access, naming the buffer and the offset, never read from another
 * buffer (Rodinia's srad_v2 really reads outside its buffers). */
START_TEST(overrun_names_the_buffer)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_75", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)",
        "{",
        "    .reg .b32 %r<4>;",
        "    .reg .b64 %rd<8>;",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;",
        "    mul.wide.u32 %rd3, %r1, 8192;",            /* thread 1: 8 KB past a's start */
        "    add.s64 %rd4, %rd2, %rd3;",
        "    st.global.u32 [%rd4], %r1;",
        "    ret;",
        "}",
    };
    static const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
        "arg = a buffer u32 32 zeros", "arg = b buffer u32 32 zeros",
    };
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, sizeof launch / sizeof launch[0], 0, NULL, NULL);
    testlib_expect_error("k.ptx", 13, "out-of-bounds global-memory write of 4 bytes 8064 bytes past the "
                 "end of buffer a (128 bytes, ");
    testlib_expect_error("k.ptx", 13, "(block 0, thread 1, pc ");
    /* before a buffer, far past it, and nowhere near any */
    static const char *const other[] = {
        "    ld.global.u32 %r2, [%rd2+-8];", "    ld.global.u32 %r2, [%rd2+124000000];",
        "    ld.global.u32 %r2, [0];", "    ld.shared.u32 %r2, [64];",
    };
    static const char *const what[] = {
        "8 bytes before the start of buffer a", "past the end of buffer a (128 bytes",
        "outside every allocation", "out-of-bounds shared-memory access of 4 bytes at offset 64: "
        "the block has 0 bytes (0 static, 0 dynamic: launch key smem)",
    };
    for (unsigned i = 0; i < 4; i++) {
        testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 11, other[i], NULL);
        testlib_expect_error("k.ptx", 11, what[i]);
    }
}
END_TEST

/* A kernel that never ends stops with an error naming its loop, at once:
 * warps that spin on a flag nobody sets (their registers repeat, memory
 * does not change) while no other warp can set it.  A warp that waits for
 * another warp's store is not stopped (warp 1 computes for a while first,
 * then stores the flag warp 0 waits for). */
static const char *const SPIN_PTX[] = {
    ".version 9.0", ".target sm_75", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .pred %p<4>;",
    "    .reg .b32 %r<8>;",
    "    .reg .b64 %rd<8>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    ld.param.u32 %r5, [k_param_1];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    setp.lt.u32 %p1, %r1, 32;",
    "    @%p1 bra $L_wait;",
    "    mov.u32 %r2, 0;",
    "$L_work:",                                      /* warps 1..: count to n, then set the flag */
    "    add.s32 %r2, %r2, 1;",
    "    setp.lt.u32 %p2, %r2, %r5;",
    "    @%p2 bra $L_work;",
    "    st.volatile.global.u32 [%rd2], %r2;",
    "    bra.uni $L_end;",
    "$L_wait:",                                      /* warp 0: wait for it */
    "    ld.volatile.global.u32 %r3, [%rd2];",
    "    setp.eq.u32 %p3, %r3, 0;",
    "    @%p3 bra $L_wait;",
    "    st.global.u32 [%rd2+4], %r3;",
    "$L_end:",
    "    ret;",
    "}",
};

/* Loads and stores of a converged warp take ptx_exec.c's converged path
 * (all 32 addresses checked at once); a partial warp's go lane by lane.
 * Both must give the same bytes: 80 threads, warps 0 and 1 full, warp 2
 * of 16 lanes, each doing sign- and zero-extending byte and half loads,
 * a vector load, a vector byte store to shared memory, and generic loads
 * that land in the shared window and in global memory. */
START_TEST(converged_accesses)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_in, .param .u64 k_out)",
        "{",
        "    .reg .b32 %r<12>;",
        "    .reg .b64 %rd<16>;",
        "    .shared .align 4 .b8 s[320];",
        "    ld.param.u64 %rd1, [k_in];",
        "    ld.param.u64 %rd2, [k_out];",
        "    cvta.to.global.u64 %rd3, %rd1;",
        "    cvta.to.global.u64 %rd4, %rd2;",
        "    mov.u32 %r1, %tid.x;",
        "    cvt.u64.u32 %rd5, %r1;",
        "    add.s64 %rd6, %rd3, %rd5;",
        "    ld.global.s8 %r2, [%rd6];",                 /* in[t], sign-extended */
        "    add.s64 %rd7, %rd6, %rd5;",                 /* in + 2t */
        "    ld.global.v2.u8 {%r3, %r4}, [%rd7];",
        "    ld.global.s16 %r5, [%rd7];",
        "    shl.b32 %r6, %r1, 2;",
        "    mov.u32 %r7, s;",
        "    add.s32 %r8, %r7, %r6;",
        "    st.shared.v4.u8 [%r8], {%r3, %r4, %r2, %r5};",
        "    bar.sync 0;",
        "    sub.s32 %r9, 316, %r6;",                    /* 4 (79 - t) */
        "    add.s32 %r10, %r7, %r9;",
        "    ld.shared.u32 %r9, [%r10];",
        "    mov.u64 %rd8, s;",
        "    cvta.shared.u64 %rd9, %rd8;",
        "    add.s64 %rd10, %rd9, %rd5;",
        "    add.s64 %rd10, %rd10, %rd5;",               /* generic: shared + 2t */
        "    ld.u16 %r10, [%rd10];",
        "    add.s64 %rd11, %rd1, %rd5;",                /* generic: the global in + t */
        "    ld.s8 %r11, [%rd11+1];",
        "    shl.b64 %rd12, %rd5, 5;",
        "    add.s64 %rd13, %rd4, %rd12;",
        "    st.global.v4.u32 [%rd13], {%r2, %r3, %r4, %r5};",
        "    st.global.v4.u32 [%rd13+16], {%r9, %r10, %r11, %r1};",
        "    ret;",
        "}",
    };
    static const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 80",
        "arg = in buffer u8 320 random 0 255 seed 7", "arg = out buffer u32 640 zeros",
    };
    struct inst_source src;
    emulate_lines(ptx, sizeof ptx / sizeof ptx[0], launch, sizeof launch / sizeof launch[0], &src);
    const uint8_t *in = ptx_source_launch(&src)->args[0].data;
    const uint32_t *out = (const uint32_t *)ptx_source_launch(&src)->args[1].data;
    uint8_t sh[320];             /* thread u's four bytes at 4u */
    for (unsigned u = 0; u < 80; u++) {
        sh[4 * u] = in[2 * u];
        sh[4 * u + 1] = in[2 * u + 1];
        sh[4 * u + 2] = in[u];
        sh[4 * u + 3] = in[2 * u];
    }
    for (unsigned t = 0; t < 80; t++) {
        unsigned u = 79 - t;
        uint32_t want[8] = {
            (uint32_t)(int32_t)(int8_t)in[t], in[2 * t], in[2 * t + 1],
            (uint32_t)(int32_t)(int16_t)(uint16_t)(in[2 * t] | in[2 * t + 1] << 8),
            (uint32_t)sh[4 * u] | (uint32_t)sh[4 * u + 1] << 8 | (uint32_t)sh[4 * u + 2] << 16 |
                (uint32_t)sh[4 * u + 3] << 24,
            (uint32_t)sh[2 * t] | (uint32_t)sh[2 * t + 1] << 8,
            (uint32_t)(int32_t)(int8_t)in[t + 1], t,
        };
        for (unsigned i = 0; i < 8; i++)
            ck_assert_msg(out[8 * t + i] == want[i], "thread %u (%s path), value %u: %#x, want %#x",
                          t, t < 64 ? "converged" : "lane-by-lane", i, out[8 * t + i], want[i]);
    }
    inst_source_destroy(&src);
}
END_TEST

/* The executor's fast paths for 8/16-bit integer operations, 64-bit
 * shifts and compares and mad.wide (ptx_alu.c) against C: 16-bit add,
 * sub, xor, not, signed and unsigned compares of values with the sign bit
 * set; mad.wide.s32/.u32 of negative operands; shl/shr.s64/shr.u64 by 0
 * to 79 bits; 64-bit signed and unsigned compares. */
START_TEST(integer_fast_paths)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_o32, .param .u64 k_o64)",
        "{",
        "    .reg .pred %p<6>;",
        "    .reg .b16 %rs<8>;",
        "    .reg .b32 %r<24>;",
        "    .reg .b64 %rd<16>;",
        "    ld.param.u64 %rd10, [k_o32];",
        "    ld.param.u64 %rd11, [k_o64];",
        "    cvta.to.global.u64 %rd10, %rd10;",
        "    cvta.to.global.u64 %rd11, %rd11;",
        "    mov.u32 %r1, %tid.x;",
        "    mul.lo.u32 %r5, %r1, 2731;",
        "    cvt.u16.u32 %rs1, %r5;",
        "    mad.lo.u32 %r6, %r1, 40503, 7;",
        "    cvt.u16.u32 %rs2, %r6;",
        "    add.s16 %rs3, %rs1, %rs2;",
        "    sub.s16 %rs4, %rs1, %rs2;",
        "    xor.b16 %rs5, %rs1, %rs2;",
        "    not.b16 %rs6, %rs1;",
        "    setp.lt.s16 %p1, %rs1, %rs2;",
        "    setp.lo.u16 %p2, %rs1, %rs2;",
        "    mad.lo.s32 %r2, %r1, 123457, -5000000;",
        "    mad.lo.s32 %r3, %r1, -7, 3;",
        "    mov.s64 %rd1, -4886718345;",
        "    mad.wide.s32 %rd2, %r2, %r3, %rd1;",
        "    mad.wide.u32 %rd3, %r2, %r3, %rd1;",
        "    shl.b64 %rd4, %rd2, %r1;",
        "    shr.s64 %rd5, %rd2, %r1;",
        "    shr.u64 %rd6, %rd2, %r1;",
        "    setp.lt.s64 %p3, %rd2, %rd3;",
        "    setp.lo.u64 %p4, %rd2, %rd3;",
        "    cvt.u32.u16 %r10, %rs3;",
        "    cvt.u32.u16 %r11, %rs4;",
        "    cvt.u32.u16 %r12, %rs5;",
        "    cvt.u32.u16 %r13, %rs6;",
        "    selp.u32 %r14, 1, 0, %p1;",
        "    selp.u32 %r15, 2, 0, %p2;",
        "    selp.u32 %r16, 4, 0, %p3;",
        "    selp.u32 %r17, 8, 0, %p4;",
        "    or.b32 %r14, %r14, %r15;",
        "    or.b32 %r14, %r14, %r16;",
        "    or.b32 %r14, %r14, %r17;",
        "    mul.wide.u32 %rd7, %r1, 32;",
        "    add.s64 %rd8, %rd10, %rd7;",
        "    st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};",
        "    st.global.v4.u32 [%rd8+16], {%r14, %r1, %r1, %r1};",
        "    mul.wide.u32 %rd7, %r1, 40;",
        "    add.s64 %rd9, %rd11, %rd7;",
        "    st.global.u64 [%rd9], %rd2;",
        "    st.global.u64 [%rd9+8], %rd3;",
        "    st.global.u64 [%rd9+16], %rd4;",
        "    st.global.u64 [%rd9+24], %rd5;",
        "    st.global.u64 [%rd9+32], %rd6;",
        "    ret;",
        "}",
    };
    static const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 80",
        "arg = o32 buffer u32 640 zeros", "arg = o64 buffer u64 400 zeros",
    };
    struct inst_source src;
    emulate_lines(ptx, sizeof ptx / sizeof ptx[0], launch, sizeof launch / sizeof launch[0], &src);
    const uint32_t *o32 = (const uint32_t *)ptx_source_launch(&src)->args[0].data;
    const uint64_t *o64 = (const uint64_t *)ptx_source_launch(&src)->args[1].data;
    for (uint32_t t = 0; t < 80; t++) {
        uint16_t a = (uint16_t)(t * 2731u), b = (uint16_t)(t * 40503u + 7u);
        int32_t r2 = (int32_t)(t * 123457u - 5000000u), r3 = (int32_t)(3u - 7u * t);
        uint64_t d2 = (uint64_t)((int64_t)r2 * r3) - UINT64_C(4886718345);
        uint64_t d3 = (uint64_t)(uint32_t)r2 * (uint32_t)r3 - UINT64_C(4886718345);
        uint32_t flags = ((int16_t)a < (int16_t)b) | (a < b) << 1 |
                         ((int64_t)d2 < (int64_t)d3) << 2 | (d2 < d3) << 3;
        uint32_t w32[8] = { (uint16_t)(a + b), (uint16_t)(a - b), (uint16_t)(a ^ b),
                            (uint16_t)~a, flags, t, t, t };
        uint64_t w64[5] = { d2, d3, t >= 64 ? 0 : d2 << t,
                            (uint64_t)((int64_t)d2 >> (t >= 64 ? 63 : t)), t >= 64 ? 0 : d2 >> t };
        for (unsigned i = 0; i < 8; i++)
            ck_assert_msg(o32[8 * t + i] == w32[i], "thread %u, 32-bit result %u: %#x, want %#x",
                          t, i, o32[8 * t + i], w32[i]);
        for (unsigned i = 0; i < 5; i++)
            ck_assert_msg(o64[5 * t + i] == w64[i], "thread %u, 64-bit result %u: %#" PRIx64
                          ", want %#" PRIx64, t, i, o64[5 * t + i], w64[i]);
    }
    inst_source_destroy(&src);
}
END_TEST

START_TEST(runaway_kernels)
{
    static const char *const ok[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 64",
                                      "arg = flag buffer u32 2 zeros", "arg = n u32 100000" };
    static const char *const never[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                         "arg = flag buffer u32 2 zeros", "arg = n u32 5" };
    testlib_write_lines("k.ptx", SPIN_PTX, sizeof SPIN_PTX / sizeof SPIN_PTX[0], 0, NULL, NULL);
    testlib_write_lines("k.launch", ok, sizeof ok / sizeof ok[0], 0, NULL, NULL);
    struct sim_error err = { 0 };
    ck_assert_msg(testlib_ptx_emulate(&err) == SIM_OK, "%s", err.msg);
    /* one warp only: nobody sets the flag */
    testlib_write_lines("k.launch", never, sizeof never / sizeof never[0], 0, NULL, NULL);
    testlib_expect_error("k.ptx", 25, "kernel k never ends: warp 0 of block 0 loops from line 25 back to "
                 "line 23 forever (its registers repeat and memory has not changed");
}
END_TEST

/* Independent thread scheduling: every thread of two blocks of 48 takes
 * one lock in global memory (m[0]) with atom.cas in a loop, as nvcc
 * compiles `while (atomicCAS(&lock, 0, 1) != 0) ;`, then bumps a counter
 * (m[1]) under it, keeping what it saw.  The lane that wins leaves the
 * loop while the others of its warp spin: on compute capability 7.0 and
 * later it goes on past their reconvergence point, releases the lock, and
 * the counter values seen are 0..95 once each.  Before 7.0 the winner
 * waits for the spinners: the kernel never ends, as on the GPU. */
static const char *const MUTEX_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_out, .param .u64 k_m)",
    "{",
    "    .reg .pred %p<2>;",
    "    .reg .b32 %r<10>;",
    "    .reg .b64 %rd<8>;",
    "    ld.param.u64 %rd1, [k_out];",
    "    ld.param.u64 %rd2, [k_m];",
    "    cvta.to.global.u64 %rd3, %rd1;",
    "    cvta.to.global.u64 %rd4, %rd2;",
    "    mov.u32 %r1, 1;",
    "$L_spin:",
    "    mov.u32 %r2, 0;",
    "    atom.global.cas.b32 %r3, [%rd4], %r2, %r1;",
    "    setp.ne.s32 %p1, %r3, 0;",
    "    @%p1 bra $L_spin;",                          /* line 18 */
    "    membar.gl;",
    "    ld.volatile.global.u32 %r4, [%rd4+4];",
    "    add.s32 %r5, %r4, 1;",
    "    st.volatile.global.u32 [%rd4+4], %r5;",
    "    mov.u32 %r6, %ctaid.x;",
    "    mov.u32 %r7, %ntid.x;",
    "    mov.u32 %r8, %tid.x;",
    "    mad.lo.s32 %r9, %r6, %r7, %r8;",
    "    mul.wide.u32 %rd5, %r9, 4;",
    "    add.s64 %rd6, %rd3, %rd5;",
    "    st.global.u32 [%rd6], %r4;",
    "    membar.gl;",
    "    atom.global.exch.b32 %r3, [%rd4], 0;",
    "    ret;",
    "}",
};

static void
check_mutex(const struct launch *l, sim *s, void *ctx)
{
    (void)s, (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    const uint32_t *m = (const uint32_t *)l->args[1].data;
    ck_assert_uint_eq(m[0], 0);
    ck_assert_uint_eq(m[1], 96);
    uint32_t seen[96] = { 0 };
    for (unsigned t = 0; t < 96; t++) {
        ck_assert_msg(out[t] < 96, "thread %u saw %u", t, out[t]);
        ck_assert_msg(seen[out[t]]++ == 0, "counter value %u seen twice", out[t]);
    }
}

START_TEST(its_mutex)
{
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 2", "block = 48",
                                          "arg = out buffer u32 96 zeros",
                                          "arg = m buffer u32 2 zeros" };
    testlib_emulate_and_run(MUTEX_PTX, sizeof MUTEX_PTX / sizeof MUTEX_PTX[0], launch,
                            sizeof launch / sizeof launch[0], "", check_mutex, NULL);
    /* compute capability 6.1: no independent thread scheduling */
    testlib_write_lines("k.ptx", MUTEX_PTX, sizeof MUTEX_PTX / sizeof MUTEX_PTX[0], 2,
                        ".target sm_61", NULL);
    testlib_expect_error("k.ptx", 18, "kernel k never ends: ");
    testlib_expect_error("k.ptx", 18, "(lanes that could end it wait for their warp's spinning "
                         "lanes to reconverge: GPUs before compute capability 7.0 have no "
                         "independent thread scheduling)");
}
END_TEST

/* A lock in shared memory per block, then a warp-wide shuffle (full
 * member mask) and a CTA barrier.  The lanes that took the lock ran ahead
 * of their warp's spinning lanes: they wait at the shuffle until the rest
 * of the warp comes to it, and the warp reaches the barrier whole.  The
 * block's sum (out[0..127]) and each warp's sum of its thread indices
 * (out[128..255], by the shuffles) are exact.  Line 31 (the first
 * shuffle) replaced by a move: the split lanes wait at the barrier. */
static const char *const SHARED_LOCK_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_out)",
    "{",
    "    .reg .pred %p<3>;",
    "    .reg .b32 %r<24>;",
    "    .reg .b64 %rd<6>;",
    "    .shared .align 4 .b32 s_lock;",
    "    .shared .align 4 .b32 s_sum;",
    "    ld.param.u64 %rd1, [k_out];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    setp.ne.u32 %p1, %r1, 0;",
    "    @%p1 bra $L_init;",
    "    mov.u32 %r2, 0;",
    "    st.shared.u32 [s_lock], %r2;",
    "    st.shared.u32 [s_sum], %r2;",
    "$L_init:",
    "    bar.sync 0;",
    "    mov.u32 %r3, 0;",
    "    mov.u32 %r4, 1;",
    "$L_spin:",
    "    atom.shared.cas.b32 %r5, [s_lock], %r3, %r4;",
    "    setp.ne.s32 %p2, %r5, 0;",
    "    @%p2 bra $L_spin;",
    "    ld.volatile.shared.u32 %r6, [s_sum];",
    "    add.s32 %r7, %r6, %r1;",
    "    st.volatile.shared.u32 [s_sum], %r7;",
    "    atom.shared.exch.b32 %r8, [s_lock], 0;",
    "    shfl.sync.bfly.b32 %r10, %r1, 16, 31, -1;",   /* line 31 */
    "    add.s32 %r11, %r1, %r10;",
    "    shfl.sync.bfly.b32 %r12, %r11, 8, 31, -1;",
    "    add.s32 %r13, %r11, %r12;",
    "    shfl.sync.bfly.b32 %r14, %r13, 4, 31, -1;",
    "    add.s32 %r15, %r13, %r14;",
    "    shfl.sync.bfly.b32 %r16, %r15, 2, 31, -1;",
    "    add.s32 %r17, %r15, %r16;",
    "    shfl.sync.bfly.b32 %r18, %r17, 1, 31, -1;",
    "    add.s32 %r19, %r17, %r18;",
    "    bar.sync 0;",
    "    ld.shared.u32 %r9, [s_sum];",
    "    mov.u32 %r20, %ctaid.x;",
    "    mad.lo.s32 %r21, %r20, 64, %r1;",
    "    mul.wide.u32 %rd3, %r21, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r9;",
    "    st.global.u32 [%rd4+512], %r19;",
    "    ret;",
    "}",
};

struct shared_lock_want {
    bool shuffles;               /* out[128..255] hold the warps' sums */
};

static void
check_shared_lock(const struct launch *l, sim *s, void *ctx)
{
    (void)s;
    const struct shared_lock_want *want = ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (unsigned t = 0; t < 128; t++) {
        ck_assert_msg(out[t] == 64 * 63 / 2, "thread %u: block sum %u", t, out[t]);
        unsigned w = t % 64 / 32;
        if (want->shuffles)
            ck_assert_msg(out[128 + t] == 32 * 32 * w + 496, "thread %u: warp sum %u", t,
                          out[128 + t]);
    }
}

START_TEST(its_shared_lock)
{
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 2", "block = 64",
                                          "arg = out buffer u32 256 zeros" };
    size_t n = sizeof SHARED_LOCK_PTX / sizeof SHARED_LOCK_PTX[0];
    ck_assert_str_eq(SHARED_LOCK_PTX[30], "    shfl.sync.bfly.b32 %r10, %r1, 16, 31, -1;");
    struct shared_lock_want want = { true };
    testlib_emulate_and_run(SHARED_LOCK_PTX, n, launch, sizeof launch / sizeof launch[0], "",
                            check_shared_lock, &want);
    const char *ptx[sizeof SHARED_LOCK_PTX / sizeof SHARED_LOCK_PTX[0]];
    memcpy(ptx, SHARED_LOCK_PTX, sizeof ptx);
    ptx[30] = "    mov.u32 %r10, %r1;";
    want.shuffles = false;
    testlib_emulate_and_run(ptx, n, launch, sizeof launch / sizeof launch[0], "",
                            check_shared_lock, &want);
}
END_TEST

/* Lanes a yield split that then wait at two different barriers (the
 * lock's winners take one branch or the other by their parity) are
 * refused, not miscounted: the second barrier (line 34) names the first. */
START_TEST(its_two_barriers)
{
    static const char *const tail[] = {
        "    and.b32 %r9, %r1, 1;",
        "    setp.eq.u32 %p1, %r9, 0;",
        "    @%p1 bra $L_even;",
        "    bar.sync 0;",                                /* line 34 */
        "    bra.uni $L_end;",
        "$L_even:",
        "    bar.sync 0;",                                /* line 37 */
        "$L_end:",
        "    ret;",
        "}",
    };
    const char *ptx[30 + sizeof tail / sizeof tail[0]];
    memcpy(ptx, SHARED_LOCK_PTX, 30 * sizeof *ptx);
    ck_assert_str_eq(ptx[29], "    atom.shared.exch.b32 %r8, [s_lock], 0;");
    memcpy(ptx + 30, tail, sizeof tail);
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                          "arg = out buffer u32 256 zeros" };
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, sizeof launch / sizeof launch[0], 0, NULL, NULL);
    testlib_expect_error("k.ptx", 34, "unsupported: lanes of warp 0 wait at two different "
                         "synchronizing instructions (this one and the one at line 37)");
}
END_TEST

/* __syncwarp() holds lanes a yield let run ahead: lane 0 of warp 0 waits
 * for a flag warp 1 sets after counting to n (memory unchanged meanwhile:
 * lane 0 provably spins, and its warp's other lanes get their turn), then
 * stores it to shared memory; after bar.warp.sync every lane of warp 0
 * reads it.  Lanes 1..31 must wait at the bar.warp.sync for lane 0,
 * whether its mask is a constant or in a register. */
static const char *const SYNCWARP_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_out, .param .u64 k_flag, .param .u32 k_n)",
    "{",
    "    .reg .pred %p<4>;",
    "    .reg .b32 %r<8>;",
    "    .reg .b64 %rd<8>;",
    "    .shared .align 4 .b32 s_v;",
    "    ld.param.u64 %rd1, [k_out];",
    "    ld.param.u64 %rd2, [k_flag];",
    "    ld.param.u32 %r5, [k_n];",
    "    cvta.to.global.u64 %rd3, %rd1;",
    "    cvta.to.global.u64 %rd4, %rd2;",
    "    mov.u32 %r1, %tid.x;",
    "    setp.lt.u32 %p1, %r1, 32;",
    "    @%p1 bra $L_w0;",
    "    mov.u32 %r2, 0;",
    "$L_work:",                                       /* warp 1: count, then set the flag */
    "    add.s32 %r2, %r2, 1;",
    "    setp.lt.u32 %p2, %r2, %r5;",
    "    @%p2 bra $L_work;",
    "    st.volatile.global.u32 [%rd4], %r2;",
    "    bra.uni $L_end;",
    "$L_w0:",
    "    setp.ne.u32 %p3, %r1, 0;",
    "    @%p3 bra $L_sync;",
    "$L_spin:",                                       /* lane 0 of warp 0 */
    "    ld.volatile.global.u32 %r3, [%rd4];",
    "    setp.eq.u32 %p2, %r3, 0;",
    "    @%p2 bra $L_spin;",
    "    st.shared.u32 [s_v], %r3;",
    "$L_sync:",
    "    bar.warp.sync -1;",
    "    ld.shared.u32 %r4, [s_v];",
    "    mul.wide.u32 %rd5, %r1, 4;",
    "    add.s64 %rd6, %rd3, %rd5;",
    "    st.global.u32 [%rd6], %r4;",
    "$L_end:",
    "    ret;",
    "}",
};

static void
check_syncwarp(const struct launch *l, sim *s, void *ctx)
{
    (void)s, (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (unsigned t = 0; t < 32; t++)
        ck_assert_msg(out[t] == 5000, "lane %u read %u", t, out[t]);
}

START_TEST(its_syncwarp)
{
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 64",
                                          "arg = out buffer u32 32 zeros",
                                          "arg = flag buffer u32 1 zeros", "arg = n u32 5000" };
    size_t n = sizeof SYNCWARP_PTX / sizeof SYNCWARP_PTX[0];
    testlib_emulate_and_run(SYNCWARP_PTX, n, launch, sizeof launch / sizeof launch[0], "",
                            check_syncwarp, NULL);
    /* the mask in a register, as cooperative groups' tile.sync() has it */
    const char *ptx[sizeof SYNCWARP_PTX / sizeof SYNCWARP_PTX[0]];
    memcpy(ptx, SYNCWARP_PTX, sizeof ptx);
    ck_assert_str_eq(ptx[14], "    mov.u32 %r1, %tid.x;");
    ck_assert_str_eq(ptx[33], "    bar.warp.sync -1;");
    ptx[14] = "    mov.u32 %r1, %tid.x; mov.u32 %r7, -1;";
    ptx[33] = "    bar.warp.sync %r7;";
    testlib_emulate_and_run(ptx, n, launch, sizeof launch / sizeof launch[0], "", check_syncwarp,
                            NULL);
}
END_TEST

/* Lanes of one warp that wait for each other in turn, on paths a branch
 * split: lane 0 sets a, waits for b, sets c; lane 31 waits for a, sets b,
 * waits for c, then writes what it saw.  Whichever path the warp runs
 * first spins until it gives the other its turn. */
START_TEST(its_handshake)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_out)",
        "{",
        "    .reg .pred %p<4>;",
        "    .reg .b32 %r<8>;",
        "    .reg .b64 %rd<4>;",
        "    ld.param.u64 %rd1, [k_out];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;",
        "    setp.eq.u32 %p1, %r1, 0;",
        "    @%p1 bra $L_zero;",
        "    setp.ne.u32 %p2, %r1, 31;",
        "    @%p2 bra $L_end;",
        "$L_wa:",                                       /* lane 31 */
        "    ld.volatile.global.u32 %r2, [%rd2+4];",
        "    setp.eq.u32 %p3, %r2, 0;",
        "    @%p3 bra $L_wa;",
        "    mov.u32 %r3, 2;",
        "    st.volatile.global.u32 [%rd2+8], %r3;",
        "$L_wc:",
        "    ld.volatile.global.u32 %r4, [%rd2+12];",
        "    setp.eq.u32 %p3, %r4, 0;",
        "    @%p3 bra $L_wc;",
        "    add.s32 %r5, %r4, %r2;",
        "    st.global.u32 [%rd2+16], %r5;",
        "    bra.uni $L_end;",
        "$L_zero:",                                     /* lane 0 */
        "    mov.u32 %r3, 1;",
        "    st.volatile.global.u32 [%rd2+4], %r3;",
        "$L_wb:",
        "    ld.volatile.global.u32 %r2, [%rd2+8];",
        "    setp.eq.u32 %p3, %r2, 0;",
        "    @%p3 bra $L_wb;",
        "    add.s32 %r3, %r2, 1;",
        "    st.volatile.global.u32 [%rd2+12], %r3;",
        "$L_end:",
        "    ret;",
        "}",
    };
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, sizeof ptx / sizeof ptx[0], NULL, &src);
    ck_assert_uint_eq(out[1], 1);
    ck_assert_uint_eq(out[2], 2);
    ck_assert_uint_eq(out[3], 3);
    ck_assert_uint_eq(out[4], 4);
    inst_source_destroy(&src);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("ptx_mem");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, module_variables);
    tcase_add_test(tc, converged_accesses);
    tcase_add_test(tc, integer_fast_paths);
    tcase_add_test(tc, launch_variables);
    tcase_add_test(tc, overrun_names_the_buffer);
    tcase_add_test(tc, clock_after_barrier);
    tcase_add_test(tc, runaway_kernels);
    tcase_add_test(tc, its_mutex);
    tcase_add_test(tc, its_handshake);
    tcase_add_test(tc, its_shared_lock);
    tcase_add_test(tc, its_syncwarp);
    tcase_add_test(tc, its_two_barriers);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(suite)
