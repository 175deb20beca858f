/*
 * check_config.c - the config table, parser, overrides and checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/config.h"
#include "testlib.h"

static const char *
write_file(const char *text)
{
    const char *p = testlib_tmpfile(".cfg");
    FILE *fp = fopen(p, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    return p;
}

START_TEST(test_table_defaults_parse_and_names_unique)
{
    struct sim_config c;
    config_defaults(&c);
    ck_assert_uint_gt(config_field_count(), 100);
    for (size_t i = 0; i < config_field_count(); i++) {
        const struct cfg_field *f = config_field(i);
        ck_assert_ptr_nonnull(strchr(f->name, '.'));
        ck_assert_msg(f->help[0] != '\0', "%s has no help", f->name);
        for (size_t j = i + 1; j < config_field_count(); j++)
            ck_assert_str_ne(f->name, config_field(j)->name);
        /* formatting a value and parsing it back is the identity */
        char v[256], a[512];
        struct sim_config d = c;
        struct sim_error err;
        config_format_value(&c, i, v, sizeof v);
        snprintf(a, sizeof a, "%s=%s", f->name, v);
        ck_assert_msg(config_set(&d, a, "t", NULL, &err) == SIM_OK, "%s", err.msg);
        ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
    }
    struct sim_error err;
    ck_assert_msg(config_validate(&c, &err) == SIM_OK, "defaults invalid: %s", err.msg);
    ck_assert_uint_eq(c.sm_count, 132);
    ck_assert_uint_eq(c.pipe_lanes[SIM_PIPE_SP], 32);
    ck_assert_int_eq(c.op_pipe[SIM_OPC_FP32_FMA], SIM_PIPE_SP);
}
END_TEST

START_TEST(test_set_range_and_unknown_key)
{
    struct sim_config c;
    struct sim_error err;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "sm.count=0", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "out of range"));
    ck_assert_ptr_nonnull(strstr(err.msg, "1 .. 1024"));
    ck_assert_int_eq(config_set(&c, "sm.count = 1025", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_int_eq(config_set(&c, "sm.count=12x", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_int_eq(config_set(&c, "sm.count=-1", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_int_eq(config_set(&c, "sm.cout=4", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "did you mean 'sm.count'"));
    ck_assert_int_eq(config_set(&c, "sched.policy=fifo", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "lrr, gto, two_level"));
    ck_assert_int_eq(config_set(&c, "sched.policy=LRR", "--set", NULL, &err), SIM_OK);
    ck_assert_int_eq(c.sched_policy, CFG_SCHED_LRR);
    ck_assert_int_eq(config_set(&c, "l1.cache_global=no", "--set", NULL, &err), SIM_OK);
    ck_assert(!c.l1_cache_global);
    ck_assert_int_eq(config_set(&c, "dram.efficiency=1.5", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_int_eq(config_set(&c, "dram.efficiency=nan", "--set", NULL, &err), SIM_ERR_CONFIG);
    ck_assert_int_eq(config_set(&c, "op.fp32.latency=29", "--set", NULL, &err), SIM_OK);
    ck_assert_uint_eq(c.op_latency[SIM_OPC_FP32], 29);
    ck_assert_int_eq(config_set(&c, "op.sfu.pipe=dpu", "--set", NULL, &err), SIM_OK);
    ck_assert_int_eq(c.op_pipe[SIM_OPC_SFU], SIM_PIPE_DPU);
    ck_assert_int_eq(config_set(&c, "sm.count", "--set", NULL, &err), SIM_ERR_CONFIG);
}
END_TEST

START_TEST(test_file_errors_name_file_and_line)
{
    struct sim_config c;
    struct sim_error err;
    char want[600];

    config_defaults(&c);
    const char *p = write_file("# comment\n\nsm.count = 4\nsm.subpartitons = 2\n");
    ck_assert_int_eq(config_load_file(&c, p, NULL, &err), SIM_ERR_CONFIG);
    snprintf(want, sizeof want, "%s:4: unknown key 'sm.subpartitons' (did you mean 'sm.subpartitions'?)", p);
    ck_assert_str_eq(err.msg, want);
    unlink(p);

    p = write_file("sm.count = 4\nl2.assoc = 0   # zero ways\n");
    ck_assert_int_eq(config_load_file(&c, p, NULL, &err), SIM_ERR_CONFIG);
    snprintf(want, sizeof want, "%s:2: l2.assoc = 0 is out of range: allowed 1 .. 1024 ways", p);
    ck_assert_str_eq(err.msg, want);
    unlink(p);

    p = write_file("sm.count = 4\nsm.count = 5\n");
    ck_assert_int_eq(config_load_file(&c, p, NULL, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: 'sm.count' is already set at line 1"));
    unlink(p);

    p = write_file("this is not an assignment\n");
    ck_assert_int_eq(config_load_file(&c, p, NULL, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, ":1: expected 'key = value'"));
    unlink(p);

    ck_assert_int_eq(config_load_file(&c, "/nonexistent/x.cfg", NULL, &err), SIM_ERR_IO);
}
END_TEST

START_TEST(test_include_and_override)
{
    struct sim_config c;
    struct sim_error err;
    char text[1024], base[512], top[512], bad[512], top2[512];
    snprintf(base, sizeof base, "%s",
             write_file("sm.count = 4\nsm.max_warps = 48\nsm.max_threads = 1536\n"));
    snprintf(text, sizeof text, "include = %s\nsm.count = 8   # override\n",
             strrchr(base, '/') + 1);
    snprintf(top, sizeof top, "%s", write_file(text));

    struct cfg_origin *o = config_origin_new();
    config_defaults(&c);
    ck_assert_msg(config_load_file(&c, top, o, &err) == SIM_OK, "%s", err.msg);
    ck_assert_uint_eq(c.sm_count, 8);
    ck_assert_uint_eq(c.sm_max_warps, 48);
    long i = config_field_index("sm.count");
    ck_assert_ptr_nonnull(strstr(config_origin_get(o, (size_t)i), ":2"));
    ck_assert_str_eq(config_origin_get(o, (size_t)config_field_index("gpu.cc")), "default");
    config_origin_destroy(o);

    /* an error inside an included file names both files */
    snprintf(bad, sizeof bad, "%s", write_file("sm.bogus = 1\n"));
    snprintf(text, sizeof text, "include = %s\n", strrchr(bad, '/') + 1);
    snprintf(top2, sizeof top2, "%s", write_file(text));
    ck_assert_int_eq(config_load_file(&c, top2, NULL, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, ":1: in included file: "));
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown key 'sm.bogus'"));
    unlink(base);
    unlink(top);
    unlink(bad);
    unlink(top2);
}
END_TEST

START_TEST(test_validate_cross_field)
{
    struct sim_config c;
    struct sim_error err;
    config_defaults(&c);
    c.sm_max_threads = 4096;
    ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "sm.max_threads"));
    config_defaults(&c);
    c.l2_slices = 7;
    ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "l2.size_kb"));
    config_defaults(&c);
    snprintf(c.l1_carveouts_kb, sizeof c.l1_carveouts_kb, "0,64,32");
    ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
    config_defaults(&c);
    c.l1_sector_size = 48;
    ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "powers of two"));
    config_defaults(&c);
    c.l2_line_size = 96;         /* a multiple of the 32-byte sector, but not a power of two */
    c.l2_size_kb = 96 * 16 * 2 / 1024 * c.l2_slices;
    ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "l2.line_size (96)"));
    config_defaults(&c);
    c.smem_bank_width = 6;       /* in the field's range, but no GPU has 6-byte banks */
    ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "smem.bank_width = 6"));
    c.smem_bank_width = 8;
    ck_assert_int_eq(config_validate(&c, &err), SIM_OK);
    /* dram.access_bytes: 0, or a power of two from the sector to the line */
    static const uint32_t bad[] = { 16, 48, 256 }, good[] = { 0, 32, 64, 128 };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(bad); i++) {
        config_defaults(&c);
        c.dram_access_bytes = bad[i];
        ck_assert_int_eq(config_validate(&c, &err), SIM_ERR_CONFIG);
        ck_assert_ptr_nonnull(strstr(err.msg, "dram.access_bytes"));
    }
    for (unsigned i = 0; i < SIM_ARRAY_LEN(good); i++) {
        config_defaults(&c);
        c.dram_access_bytes = good[i];
        ck_assert_int_eq(config_validate(&c, &err), SIM_OK);
    }
}
END_TEST

static const char *const gpus[] = { "gtx760", "940mx", "gtx1070", "titan-black", "titan-x",
                                    "titan-v", "v100", "rtx2080ti", "a100", "rtx4070", "h100",
                                    "h200" };

START_TEST(test_every_gpu_config_loads)
{
    struct sim_config c;
    struct sim_error err;
    ck_assert_msg(config_load(&c, gpus[_i], NULL, 0, NULL, &err) == SIM_OK, "%s: %s", gpus[_i],
                  err.msg);
    ck_assert_str_ne(c.gpu_name, "generic");
    /* occupancy-relevant limits are consistent */
    ck_assert_uint_le(c.sm_max_threads, c.sm_max_warps * 32);
}
END_TEST

START_TEST(test_reference_lists_every_field)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    config_print_reference(fp);
    fclose(fp);
    for (size_t i = 0; i < config_field_count(); i++) {
        char key[160];
        snprintf(key, sizeof key, "`%s`", config_field(i)->name);
        ck_assert_msg(strstr(buf, key) != NULL, "%s missing from the reference", key);
    }
    free(buf);
}
END_TEST

static Suite *
config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_table_defaults_parse_and_names_unique);
    tcase_add_test(tc, test_set_range_and_unknown_key);
    tcase_add_test(tc, test_file_errors_name_file_and_line);
    tcase_add_test(tc, test_include_and_override);
    tcase_add_test(tc, test_validate_cross_field);
    tcase_add_loop_test(tc, test_every_gpu_config_loads, 0, (int)SIM_ARRAY_LEN(gpus));
    tcase_add_test(tc, test_reference_lists_every_field);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(config_suite)
