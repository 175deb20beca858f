/*
 * check_stats.c - the statistics registry, snapshots and printers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/stats.h"
#include "testlib.h"

struct unit {
    uint64_t hits, accesses;
};

START_TEST(test_register_snapshot_diff)
{
    stats *st = stats_new();
    uint64_t cycles = 0;
    struct unit u[3] = { { 0, 0 } };
    stats_add_u64(st, "gpu.cycles", &cycles, "cycles", "cycles");
    stats_add_vec(st, "l1.hits", &u[0].hits, sizeof u[0], 3, "sm", "sectors", "hits");
    stats_add_vec(st, "l1.accesses", &u[0].accesses, sizeof u[0], 3, "sm", "sectors", "accesses");
    stats_add_ratio(st, "l1.hit_rate", "l1.hits", "l1.accesses", 1.0, "", "hit rate");

    struct stats_snapshot a, b;
    stats_snapshot_init(st, &a);
    stats_snapshot_init(st, &b);
    cycles = 100;
    u[0].hits = 1; u[0].accesses = 4;
    u[2].hits = 3; u[2].accesses = 4;
    stats_snapshot_take(st, &a);
    ck_assert_uint_eq(stats_get(st, &a, "l1.hits"), 4);
    ck_assert(fabs(stats_get_ratio(st, &a, "l1.hit_rate") - 0.5) < 1e-12);
    cycles = 150;
    u[1].hits = 2; u[1].accesses = 2;
    stats_snapshot_take(st, &b);
    stats_snapshot_diff(&b, &b, &a);
    ck_assert_uint_eq(stats_get(st, &b, "gpu.cycles"), 50);
    ck_assert_uint_eq(stats_get(st, &b, "l1.hits"), 2);
    ck_assert(fabs(stats_get_ratio(st, &b, "l1.hit_rate") - 1.0) < 1e-12);
    ck_assert_uint_eq(stats_get(st, &b, "nope"), UINT64_MAX);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    stats_print_json(fp, st, &a, 2);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "\"gpu.cycles\": 100"));
    ck_assert_ptr_nonnull(strstr(buf, "\"l1.hit_rate\": 0.5"));
    ck_assert_ptr_nonnull(strstr(buf, "\"per_sm\": {"));
    ck_assert_ptr_nonnull(strstr(buf, "\"l1.hits\": [1, 0, 3]"));
    ck_assert_ptr_nonnull(strstr(buf, "\"l1.hit_rate\": [0.25, 0.0, 0.75]"));
    free(buf);
    stats_snapshot_free(&a);
    stats_snapshot_free(&b);
    stats_destroy(st);
}
END_TEST

START_TEST(test_duplicate_name_panics)
{
    stats *st = stats_new();
    uint64_t x = 0;
    stats_add_u64(st, "a.b", &x, "", "x");
    stats_add_u64(st, "a.b", &x, "", "x");
}
END_TEST

START_TEST(test_json_string_escapes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    stats_json_string(fp, "a\"b\\c\n");
    stats_json_double(fp, 1.0 / 0.0);
    fclose(fp);
    ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\u000a\"0.0");
    free(buf);
}
END_TEST

/* A byte that is not UTF-8 (a trace's kernel name may hold any) is still
 * valid JSON: as the code point of that byte; UTF-8 passes as it is. */
START_TEST(test_json_string_not_utf8)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    stats_json_string(fp, "k\xff\x1b\xc3\xa9");
    fclose(fp);
    ck_assert_str_eq(buf, "\"k\\u00ff\\u001b\xc3\xa9\"");
    free(buf);
}
END_TEST

/* A packed snapshot gives back every value; runs of zeros and of equal
 * per-instance values take a few bytes (a kernel's statistics are kept
 * packed until the report: 20,000 launches in one trace). */
START_TEST(test_pack_round_trip)
{
    struct stats_snapshot a = { calloc(5000, sizeof(uint64_t)), 5000 };
    struct stats_snapshot b = { calloc(5000, sizeof(uint64_t)), 5000 };
    for (size_t i = 1000; i < 1132; i++)
        a.v[i] = 123456789;                       /* every SM's cycles */
    a.v[0] = 1;
    a.v[4999] = UINT64_MAX;
    uint64_t x = 7;
    for (size_t i = 3000; i < 3100; i++) {        /* and some that differ */
        x = x * 6364136223846793005u + 1442695040888963407u;
        a.v[i] = x >> (x % 64);
    }
    struct stats_packed p;
    stats_pack(&p, &a);
    b.v[7] = 5;                                   /* overwritten by the unpacking */
    stats_unpack(&p, &b);
    ck_assert_mem_eq(a.v, b.v, 5000 * sizeof(uint64_t));
    ck_assert_uint_lt(p.len, 100 * 12 + 40);
    stats_packed_free(&p);
    memset(a.v, 0, 5000 * sizeof(uint64_t));
    stats_pack(&p, &a);
    ck_assert_uint_eq(p.len, 0);
    stats_unpack(&p, &b);
    ck_assert_mem_eq(a.v, b.v, 5000 * sizeof(uint64_t));
    stats_packed_free(&p);
    free(a.v);
    free(b.v);
}
END_TEST

static Suite *
stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_register_snapshot_diff);
    tcase_add_test(tc, test_json_string_escapes);
    tcase_add_test(tc, test_json_string_not_utf8);
    tcase_add_test(tc, test_pack_round_trip);
    suite_add_tcase(s, tc);
    TCase *death = tcase_create("death");
    tcase_set_tags(death, "death");
    tcase_add_exit_test(death, test_duplicate_name_panics, 3);
    suite_add_tcase(s, death);
    return s;
}

TESTLIB_MAIN(stats_suite)
