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

static Suite *
ptx_sreg_suite(void)
{
    Suite *s = suite_create("ptx_sreg");
    TCase *tc = tcase_create("sreg");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, warp_sz);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_sreg_suite)
