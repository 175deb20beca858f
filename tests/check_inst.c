/*
 * check_inst.c - name tables of pipes, opcode classes, spaces and flags,
 * and the kernel_info helpers.
 */
#include <string.h>

#include "sim/inst.h"
#include "testlib.h"

START_TEST(test_tables_round_trip)
{
    for (unsigned i = 0; i < SIM_PIPE_COUNT; i++)
        ck_assert_int_eq(inst_pipe_lookup(inst_pipe_name(i)), (int)i);
    for (unsigned i = 0; i < SIM_OPC_COUNT; i++) {
        ck_assert_int_eq(inst_opclass_lookup(inst_opclass_name(i)), (int)i);
        ck_assert_uint_lt(inst_opclass_default_pipe(i), SIM_PIPE_COUNT);
        ck_assert(strlen(inst_opclass_help(i)) > 10);
    }
    for (unsigned i = 0; i < SIM_SPACE_COUNT; i++)
        ck_assert_int_eq(inst_space_lookup(inst_space_name(i)), (int)i);
    ck_assert_int_eq(inst_pipe_lookup("nope"), -1);
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_COUNT), "?");
    /* the .smt format depends on this order (ORDER OPCLASS) */
    ck_assert_str_eq(inst_opclass_name(0), "nop");
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_MEM), "mem");
    ck_assert_int_eq(SIM_OPC_COUNT, 28);
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_SFU_EX2), "sfu_ex2");   /* appended in .smt 1.1 */
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_SETP), "setp");         /* appended in .smt 1.2 */
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_TENSOR_HALF), "tensor_half");   /* .smt 1.3 */
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_INT_WIDE), "int_wide");         /* .smt 1.4 */
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_WGMMA), "wgmma");               /* .smt 1.5 */
    ck_assert_str_eq(inst_opclass_name(SIM_OPC_TENSOR_DP), "tensor_dp");       /* .smt 1.6 */
    ck_assert_str_eq(inst_space_name(SIM_SPACE_SHARED), "shared");
}
END_TEST

START_TEST(test_flags_and_kernel_info)
{
    char buf[96];
    ck_assert_str_eq(inst_flags_str(SIM_IF_LOAD | SIM_IF_BYPASS_L1, buf, sizeof buf), "load|bypass_l1");
    ck_assert_str_eq(inst_flags_str(0, buf, sizeof buf), "-");
    struct kernel_info ki = { .grid = { 43, 43, 1 }, .block = { 16, 16, 1 } };
    ck_assert_uint_eq(kernel_info_blocks(&ki), 1849);
    ck_assert_uint_eq(kernel_info_threads_per_block(&ki), 256);
    ck_assert_uint_eq(kernel_info_warps_per_block(&ki), 8);
    ki.block[0] = 5;
    ki.block[1] = 5;
    ck_assert_uint_eq(kernel_info_warps_per_block(&ki), 1);  /* 25 threads: one partial warp */
    ck_assert_uint_eq(inst_popc(0xf0f0f0f0u), 16);
}
END_TEST

static Suite *
inst_suite(void)
{
    Suite *s = suite_create("inst");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_tables_round_trip);
    tcase_add_test(tc, test_flags_and_kernel_info);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(inst_suite)
