/*
 * check_par.c - the worker pool (sim/par.c) and the promise it exists for:
 * ticking the SMs on N threads gives byte-identical statistics.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/synth.h"
#include "sim/par.h"
#include "sim/report.h"
#include "testlib.h"

#define MAXW 8

struct tally {
    atomic_uint runs[MAXW];      /* times worker k ran */
    atomic_uint bad_n;           /* calls that saw the wrong pool size */
    uint32_t n;
};

static void
count(void *ctx, uint32_t k, uint32_t n)
{
    struct tally *t = ctx;
    if (n != t->n || k >= n)
        atomic_fetch_add(&t->bad_n, 1);
    else
        atomic_fetch_add(&t->runs[k], 1);
}

/* Every worker runs each job exactly once, and par_run returns only after
 * all of them have (the counts are complete when it returns). */
START_TEST(test_each_worker_once_per_run)
{
    static const uint32_t sizes[] = { 1, 2, 3, 5 };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(sizes); i++) {
        struct tally t = { .n = sizes[i] };
        par *p = par_new(sizes[i]);
        ck_assert_uint_eq(par_threads(p), sizes[i]);
        for (unsigned r = 1; r <= 2000; r++) {
            par_run(p, count, &t);
            for (uint32_t k = 0; k < sizes[i]; k++)
                ck_assert_uint_eq(atomic_load(&t.runs[k]), r);
        }
        ck_assert_uint_eq(atomic_load(&t.bad_n), 0);
        par_destroy(p);
    }
}
END_TEST

/* A pool survives idle stretches long enough for its workers to sleep. */
START_TEST(test_runs_after_workers_slept)
{
    struct tally t = { .n = 3 };
    par *p = par_new(3);
    for (unsigned r = 1; r <= 3; r++) {
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        par_run(p, count, &t);
        for (uint32_t k = 0; k < 3; k++)
            ck_assert_uint_eq(atomic_load(&t.runs[k]), r);
    }
    par_destroy(p);
}
END_TEST

/* The statistics (every counter, per kernel, as JSON) of a run of spec on
 * GPU config gpu with the SMs ticked on `threads` threads. */
static char *
run_json(const char *gpu, const char *spec, uint32_t threads)
{
    struct sim_config cfg;
    struct sim_error err = { 0 };
    struct inst_source src;
    char *buf = NULL;
    size_t len = 0;
    ck_assert_msg(config_load(&cfg, gpu, NULL, 0, NULL, &err) == SIM_OK, "%s", err.msg);
    ck_assert_msg(synth_source_open(spec, &src, &err) == SIM_OK, "%s", err.msg);
    sim *s = sim_new(&cfg);
    sim_set_threads(s, threads);
    ck_assert_msg(sim_run(s, &src, &err) == SIM_OK, "%s", err.msg);
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    report_json(f, s, gpu);
    fclose(f);
    sim_destroy(s);
    inst_source_destroy(&src);
    return buf;
}

/* Memory-bound and compute-bound kernels, two GPUs, 1 vs 2, 3 and 4
 * threads (more threads than this machine may have CPUs: still equal). */
START_TEST(test_threads_give_identical_statistics)
{
    static const char *const runs[][2] = {
        { "v100", "saxpy:blocks=320,threads=256,iters=4" },
        { "h100", "copy:blocks=264,threads=256,iters=2,width=16" },
        { "gtx760", "fma:blocks=32,threads=128,n=200,ilp=2" },
    };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(runs); i++) {
        char *one = run_json(runs[i][0], runs[i][1], 1);
        ck_assert_ptr_nonnull(strstr(one, "\"gpu.cycles\""));
        for (uint32_t th = 2; th <= 4; th++) {
            char *many = run_json(runs[i][0], runs[i][1], th);
            ck_assert_msg(strcmp(one, many) == 0, "%s %s: -j %u differs from -j 1", runs[i][0],
                          runs[i][1], th);
            free(many);
        }
        free(one);
    }
}
END_TEST

static Suite *
par_suite(void)
{
    Suite *su = suite_create("par");
    TCase *tc = tcase_create("pool");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_each_worker_once_per_run);
    tcase_add_test(tc, test_runs_after_workers_slept);
    tcase_add_test(tc, test_threads_give_identical_statistics);
    suite_add_tcase(su, tc);
    return su;
}

TESTLIB_MAIN(par_suite)
