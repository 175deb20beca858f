/*
 * check_report.c - the JSON statistics document and the text summary.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/report.h"
#include "testlib.h"

static int
gen(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)arg;
    if (k >= 20)
        return k == 20 ? (tl_exit(wi), 1) : 0;
    if (k % 4 == 0)
        tl_mem(wi, SIM_SPACE_GLOBAL, SIM_IF_LOAD, (int)(10 + k % 8), 2,
               0x100000 + (block * 8 + warp) * 128 + k * 65536, 4, 4);
    else
        tl_alu(wi, SIM_OPC_FP32_FMA, (int)(20 + k % 8), (int)(10 + (k - 1) % 8), 3);
    return 1;
}

static char *
json_of_run(void)
{
    struct sim_config c;
    struct testlib_kernel k[2] = { { "first", 6, 128, 32, 0, gen, NULL },
                                   { "second", 3, 64, 32, 0, gen, NULL } };
    struct inst_source src;
    char *buf = NULL;
    size_t len = 0;
    testlib_small_config(&c, "sm.count = 2; sm.subpartitions = 4");
    testlib_source(&src, k, 2);
    sim *s = testlib_run(&c, &src);
    FILE *fp = open_memstream(&buf, &len);
    report_json(fp, s, "small");
    fclose(fp);
    sim_destroy(s);
    inst_source_destroy(&src);
    return buf;
}

START_TEST(test_json_document)
{
    char *a = json_of_run();
    ck_assert_ptr_nonnull(strstr(a, "\n  \"cycles\": "));
    ck_assert_ptr_nonnull(strstr(a, "\n  \"warp_insts\": 630,"));
    ck_assert_ptr_nonnull(strstr(a, "\"config\": {"));
    ck_assert_ptr_nonnull(strstr(a, "\"sm.count\": 2,"));
    ck_assert_ptr_nonnull(strstr(a, "\"sched.policy\": \"gto\""));
    ck_assert_ptr_nonnull(strstr(a, "\"kernels\": ["));
    ck_assert_ptr_nonnull(strstr(a, "\"name\": \"first\""));
    ck_assert_ptr_nonnull(strstr(a, "\"name\": \"second\""));
    ck_assert_ptr_nonnull(strstr(a, "\"per_sm\": {"));
    ck_assert_ptr_nonnull(strstr(a, "\"totals\": {"));
    /* the CPI stack's seven parts add up to its total; cpi = cycles x 4
     * sub-partitions / warp instructions of the SMs (both kernels) */
    for (const char *p = a; (p = strstr(p, "\"cpi_stack\": {\"cpi\": ")) != NULL; p++) {
        double v[8];
        int n = sscanf(p, "\"cpi_stack\": {\"cpi\": %lf, \"issued\": %lf, \"no_inst\": %lf, "
                          "\"scoreboard\": %lf, \"memory\": %lf, \"pipe_busy\": %lf, "
                          "\"barrier\": %lf, \"idle\": %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
                       &v[5], &v[6], &v[7]);
        ck_assert_int_eq(n, 8);
        ck_assert_double_gt(v[0], 0.25);
        ck_assert_double_eq_tol(v[1], 0.25, 1e-9); /* one issue per instruction, 4 slots/cycle */
        ck_assert_double_eq_tol(v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7], v[0], 1e-4);
    }
    /* same input, same bytes */
    char *b = json_of_run();
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_text_summary_and_reference)
{
    struct sim_config c;
    struct testlib_kernel k = { "only", 4, 128, 32, 0, gen, NULL };
    struct inst_source src;
    char *buf = NULL;
    size_t len = 0;
    testlib_small_config(&c, NULL);
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    FILE *fp = open_memstream(&buf, &len);
    report_text(fp, s, "small", false);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "kernel 0: only"));
    ck_assert_ptr_nonnull(strstr(buf, "CPI stack "));
    ck_assert_ptr_nonnull(strstr(buf, " cycles per warp instruction per SM = issued "));
    ck_assert_ptr_nonnull(strstr(buf, "total: 1 kernel(s)"));
    free(buf);
    fp = open_memstream(&buf, &len);
    report_stats_reference(fp, s);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "| `sm.slot.memory` |"));
    ck_assert_ptr_nonnull(strstr(buf, "| `dram.read_bytes` |"));
    ck_assert_ptr_nonnull(strstr(buf, "## CPI stack"));
    ck_assert_ptr_nonnull(strstr(buf, "| `phi` | FLOPs/cycle |"));
    ck_assert_ptr_nonnull(strstr(buf, "| `u_sfu` | fraction |"));
    free(buf);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

static Suite *
report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_json_document);
    tcase_add_test(tc, test_text_summary_and_reference);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(report_suite)
