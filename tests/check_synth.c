/*
 * check_synth.c - synthetic kernels: spec parsing, instruction counts and
 * the SAXPY stream's shape and addresses.
 */
#include <string.h>

#include "frontend/synth.h"
#include "testlib.h"

/* Drain every warp of every block; returns the instruction count. */
static uint64_t
drain(const char *spec, struct kernel_info *ki)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    struct warp_inst wi;
    uint64_t n = 0;
    ck_assert_msg(synth_source_open(spec, &src, &err) == SIM_OK, "%s", err.msg);
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, ki, &err), 1);
    ck_assert_int_eq(src.ops->kernel_begin(src.ctx, 1, 1, &err), SIM_OK);
    for (uint64_t b = 0; b < kernel_info_blocks(ki); b++) {
        ck_assert_int_eq(src.ops->block_begin(src.ctx, b, 0, 0, &err), SIM_OK);
        for (uint32_t w = 0; w < kernel_info_warps_per_block(ki); w++)
            while (inst_source_next(&src, 0, w, SIM_CYCLE_MAX, &wi, &err) == 1)
                n++;
    }
    struct kernel_info more;
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &more, &err), 0);
    inst_source_destroy(&src);
    return n;
}

START_TEST(test_counts_match_kernel_info)
{
    static const char *const specs[] = {
        "saxpy", "saxpy:blocks=3,threads=96,iters=5,alu=2", "fma:blocks=2,threads=64,n=100,ilp=8",
        "copy:blocks=4,threads=128,iters=3,width=16", "copy:width=8,blocks=1,threads=32,iters=1"
    };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(specs); i++) {
        struct kernel_info ki;
        uint64_t n = drain(specs[i], &ki);
        ck_assert_msg(n == ki.warp_insts, "%s: %" PRIu64 " vs %" PRIu64, specs[i], n, ki.warp_insts);
    }
    struct kernel_info ki;
    ck_assert_uint_eq(drain("saxpy:blocks=640,threads=256,iters=1", &ki), 640 * 8 * 17);
}
END_TEST

START_TEST(test_saxpy_shape)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    struct kernel_info ki;
    struct warp_inst wi;
    ck_assert_int_eq(synth_source_open("saxpy:blocks=4,threads=64,iters=2", &src, &err), SIM_OK);
    src.ops->next_kernel(src.ctx, &ki, &err);
    src.ops->kernel_begin(src.ctx, 2, 1, &err);
    src.ops->block_begin(src.ctx, 2, 1, 0, &err);
    const char *want[] = { "MOV", "S2R", "S2R", "IMAD", "ISETP.GE.AND", "MOV", "MOV", "IMAD.WIDE",
                           "IMAD.WIDE", "LDG.E", "LDG.E", "FFMA", "IADD3", "STG.E", "ISETP.GE.AND", "BRA" };
    for (unsigned k = 0; k < SIM_ARRAY_LEN(want); k++) {
        ck_assert_int_eq(inst_source_next(&src, 1, 1, SIM_CYCLE_MAX, &wi, &err), 1);
        ck_assert_str_eq(src.ops->opcode_name(src.ctx, wi.opcode), want[k]);
        if (k == 9) {                          /* x[] load of block 2, warp 1, lane 0..31 */
            ck_assert_uint_eq(wi.space, SIM_SPACE_GLOBAL);
            ck_assert_uint_eq(wi.flags, SIM_IF_LOAD);
            ck_assert_uint_eq(wi.addr[0], UINT64_C(0x7f0000000000) + 4 * (2 * 64 + 32));
            ck_assert_uint_eq(wi.addr[31] - wi.addr[0], 31 * 4);
        }
        if (k == 13)
            ck_assert_uint_eq(wi.flags, SIM_IF_STORE);
    }
    inst_source_destroy(&src);
}
END_TEST

START_TEST(test_bad_specs)
{
    static const struct { const char *spec, *frag; } bad[] = {
        { "gemm", "unknown synthetic kernel 'gemm'" },
        { "saxpy:blocks=0", "blocks = '0' must be 1 .. " },
        { "saxpy:threads=100", "threads must be a multiple of 32" },
        { "saxpy:threads=2048", "threads = '2048' must be 32 .. 1024" },
        { "fma:ilp=0", "ilp = '0' must be 1 .. 128" },
        { "copy:width=3", "width = '3' must be 4 .. 16" },
        { "copy:width=12", "width must be 4, 8 or 16" },
        { "saxpy:n=4", "unknown parameter 'n'" },
        { "fma:blocks", "expected key=value" },
        { "saxpy:iters=-1", "iters = '-1'" },
    };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(bad); i++) {
        struct inst_source src;
        struct sim_error err = { 0 };
        ck_assert_int_eq(synth_source_open(bad[i].spec, &src, &err), SIM_ERR_USAGE);
        ck_assert_msg(strstr(err.msg, bad[i].frag) != NULL, "%s: %s", bad[i].spec, err.msg);
    }
}
END_TEST

static Suite *
synth_suite(void)
{
    Suite *s = suite_create("synth");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_counts_match_kernel_info);
    tcase_add_test(tc, test_saxpy_shape);
    tcase_add_test(tc, test_bad_specs);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(synth_suite)
