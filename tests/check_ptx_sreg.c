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
    char path[512];
    struct inst_source src;
    struct sim_error err = { 0 };
    testlib_write_lines("k.ptx", ptx, N_LINES(ptx), 0, NULL, NULL);
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                          "arg = out buffer u32 32 zeros" };
    testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    int rc = ptx_source_open(path, &src, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "k.launch:2: ") != NULL && strstr(err.msg, "k.ptx:17: ") &&
                  strstr(err.msg, "unsupported") && strstr(err.msg, "%tid"), "%s", err.msg);
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
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_sreg_suite)
