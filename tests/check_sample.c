/*
 * check_sample.c - the sampler of sampled simulation (sim/sample.h): when
 * it samples, which blocks it skips, and the estimate and interval it
 * gives, on retirement streams built by hand.
 */
#include "sim/sample.h"
#include "testlib.h"

#include <string.h>

static const struct sample_params P = { 8, 3, 2, 4, 0.02 };

/* Retire blocks one at a time, each `cyc` cycles and `ins` warp
 * instructions after the last, the GPU holding `wave` blocks (so the next
 * block to dispatch is retired + wave, less what was skipped). */
struct feed {
    struct sampler sp;
    sim_cycle_t t;
    uint64_t insts, retired, next, n_blocks, wave;
};

static void
feed_init(struct feed *f, const struct sample_params *p, uint64_t n_blocks, uint64_t wave)
{
    memset(f, 0, sizeof *f);
    f->n_blocks = n_blocks;
    f->wave = wave;
    f->next = wave;
    sample_begin(&f->sp, p, true, n_blocks, wave, 0, 0);
}

/* One retirement; skips the pending run (each skipped block `skip_ins`
 * warp instructions) when the dispatch that follows reaches it. */
static void
feed_one(struct feed *f, sim_cycle_t cyc, uint64_t ins, uint64_t skip_ins)
{
    f->t += cyc;
    f->insts += ins;
    f->retired++;
    sample_retired(&f->sp, f->t, f->insts, f->next);
    if (f->next >= f->n_blocks)
        return;
    if (f->sp.state == SAMPLE_PENDING && f->next == f->sp.skip_lo) {
        for (uint64_t b = f->sp.skip_lo; b < f->sp.skip_hi; b++)
            sample_skipped_block(&f->sp, skip_ins);
        f->next = f->sp.skip_hi;
    }
    f->next++;
}

/* A kernel of 20 waves of 10 blocks with one skipped run (chunks 1), fed
 * 10 cycles and 100 warp instructions per retirement up to the run, whose
 * blocks ran skip_ins each: the state is SETTLE, after the run. */
static void
feed_to_one_run(struct feed *f, uint64_t skip_ins)
{
    struct sample_params p = P;
    p.chunks = 1;
    feed_init(f, &p, 200, 10);
    while (f->sp.state == SAMPLE_MEASURING)
        feed_one(f, 10, 100, skip_ins);
    ck_assert_int_eq(f->sp.state, SAMPLE_SETTLE);
}

START_TEST(test_too_few_waves_is_off)
{
    struct sampler sp;
    sample_begin(&sp, &P, true, 7 * 10, 10, 0, 0);
    ck_assert_int_eq(sp.state, SAMPLE_OFF);
    ck_assert_ptr_nonnull(strstr(sp.why, "too few"));
    sample_begin(&sp, &P, false, 1000, 10, 0, 0);
    ck_assert_int_eq(sp.state, SAMPLE_OFF);
    sample_begin(&sp, &P, true, 8 * 10, 10, 0, 0);
    ck_assert_int_eq(sp.state, SAMPLE_MEASURING);
}
END_TEST

/* A steady kernel: 20 waves of 10 blocks, 10 cycles and 100 warp
 * instructions per retirement.  After the warm-up and 3 windows (40
 * retirements, block 49 next) 151 blocks are left, 20 of them the tail:
 * 13 whole waves hold 4 runs of 1 wave with two windows between each two
 * (a transition and a measured one). */
START_TEST(test_steady_kernel_skips_runs_of_whole_waves)
{
    struct feed f;
    feed_init(&f, &P, 200, 10);
    for (int i = 0; i < 39; i++)
        feed_one(&f, 10, 100, 100);
    ck_assert_int_eq(f.sp.state, SAMPLE_MEASURING);
    feed_one(&f, 10, 100, 100);                 /* the 40th retirement closes window 4 */
    ck_assert_int_eq(f.sp.state, SAMPLE_SETTLE); /* and the dispatch after it skipped */
    ck_assert_uint_eq(f.sp.n_chunks, 4);
    ck_assert_uint_eq(f.sp.skip_lo, 49);
    ck_assert_uint_eq(f.sp.skip_hi, 59);
    ck_assert_uint_eq(f.next, 60);
    while (f.retired + f.sp.skipped < f.n_blocks)
        feed_one(&f, 10, 100, 100);
    ck_assert_int_eq(f.sp.state, SAMPLE_DONE);
    ck_assert_uint_eq(f.sp.skipped, 40);      /* 4 runs of 10 */

    struct sample_result r;
    sample_result(&f.sp, 1600, f.insts, &r);
    ck_assert(r.sampled);
    ck_assert_uint_eq(r.runs, 4);
    ck_assert_uint_eq(r.blocks_skipped, 40);
    ck_assert_uint_eq(r.insts_skipped, 4000);
    ck_assert_double_eq_tol(r.cycles_skipped, 400, 1e-9);   /* 0.1 cycle per instruction */
    ck_assert_double_eq_tol(r.settle, 0, 1e-9);   /* transitions ran at the rate after them */
    ck_assert_uint_eq(r.cycles, 2000);
    /* no drift, no mix; noise: the floor tol / 2 of each run's 100 cycles, in quadrature */
    ck_assert_double_eq_tol(r.half_drift, 0, 1e-9);
    ck_assert_double_eq_tol(r.half_mix, 0, 1e-9);
    ck_assert_double_eq_tol(r.half_noise, 2, 1e-9);
    ck_assert_uint_eq(r.lo, 1998);
    ck_assert_uint_eq(r.hi, 2002);
}
END_TEST

/* Windows alternating 10 % apart never agree within 2 %: simulated in full. */
START_TEST(test_unsteady_kernel_is_simulated_in_full)
{
    struct feed f;
    feed_init(&f, &P, 200, 10);
    for (int i = 0; f.retired < f.n_blocks && f.sp.state == SAMPLE_MEASURING; i++)
        feed_one(&f, (f.retired / 10) % 2 ? 11 : 10, 100, 100);
    ck_assert_int_eq(f.sp.state, SAMPLE_OFF);
    ck_assert_ptr_nonnull(strstr(f.sp.why, "no steady state"));
    struct sample_result r;
    sample_result(&f.sp, 1234, f.insts, &r);
    ck_assert(!r.sampled);
    ck_assert_uint_eq(r.cycles, 1234);
    ck_assert_uint_eq(r.lo, 1234);
    ck_assert_uint_eq(r.hi, 1234);
}
END_TEST

/* The rate changes across a run: the run takes the mean of the cycles per
 * instruction before and after it, and the interval holds the two. */
START_TEST(test_drift_is_interpolated_and_bounded)
{
    struct feed f;
    feed_to_one_run(&f, 100);
    uint64_t n = f.sp.skip_hi - f.sp.skip_lo;
    while (f.retired + f.sp.skipped < f.n_blocks)
        feed_one(&f, 12, 100, 100);             /* 0.12 cycle per instruction after it */
    struct sample_result r;
    sample_result(&f.sp, 5000, f.insts, &r);
    ck_assert(r.sampled);
    double ins = (double)n * 100;
    ck_assert_double_eq_tol(r.cycles_skipped, ins * 0.11, 1e-6);
    ck_assert_double_eq_tol(r.half_drift, ins * 0.01, 1e-6);
    /* the tail after the run's measured window ran in the state after it */
    ck_assert_uint_gt(f.sp.tail_i0, 0);
    ck_assert_double_eq_tol(r.half_tail, (double)(f.insts - f.sp.tail_i0) * 0.02, 1e-6);
    ck_assert(r.lo <= 5000 + (uint64_t)(ins * 0.10) && r.hi >= 5000 + (uint64_t)(ins * 0.12));
}
END_TEST

/* Skipped blocks doing twice the work of the measured ones widen the
 * interval by their difference. */
START_TEST(test_unlike_blocks_widen_the_interval)
{
    struct feed f;
    feed_to_one_run(&f, 200);
    uint64_t n = f.sp.skip_hi - f.sp.skip_lo;
    struct sample_result r;
    sample_result(&f.sp, 0, f.insts, &r);
    ck_assert_double_eq_tol(r.cycles_skipped, (double)n * 200 * 0.1, 1e-6);
    ck_assert_double_eq_tol(r.half_mix, r.cycles_skipped, 1e-6);   /* |200 / 100 - 1| = 1 */
}
END_TEST

/* The window after a skip ran 50 % slow (a transition): its excess over
 * the rate of the window after it is taken off the cycles simulated. */
START_TEST(test_transition_window_is_retimed)
{
    struct feed f;
    feed_to_one_run(&f, 100);
    for (int i = 0; i < 10; i++)
        feed_one(&f, 15, 100, 100);
    ck_assert_int_eq(f.sp.state, SAMPLE_GAP);
    while (f.retired + f.sp.skipped < f.n_blocks)
        feed_one(&f, 10, 100, 100);
    struct sample_result r;
    sample_result(&f.sp, 10000, f.insts, &r);
    ck_assert_double_eq_tol(r.settle, 50, 1e-9);            /* 150 cycles, 100 at the rate after */
    ck_assert_double_eq_tol(r.half_drift, 0, 1e-9);         /* before and after agree */
    ck_assert_uint_eq(r.cycles, (uint64_t)(10000 - 50 + r.cycles_skipped + 0.5));
}
END_TEST

static Suite *
sample_suite(void)
{
    Suite *s = suite_create("sample");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_too_few_waves_is_off);
    tcase_add_test(tc, test_steady_kernel_skips_runs_of_whole_waves);
    tcase_add_test(tc, test_unsteady_kernel_is_simulated_in_full);
    tcase_add_test(tc, test_drift_is_interpolated_and_bounded);
    tcase_add_test(tc, test_unlike_blocks_widen_the_interval);
    tcase_add_test(tc, test_transition_window_is_retimed);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(sample_suite)
