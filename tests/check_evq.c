/*
 * check_evq.c - event ordering: by cycle, then priority tier, then
 * insertion order; never in the past.
 */
#include "sim/evq.h"
#include "testlib.h"

static char log_buf[256];
static size_t log_n;

static void
record(void *ctx, sim_cycle_t now, uint64_t arg)
{
    (void)ctx;
    (void)now;
    if (log_n + 1 < sizeof log_buf) {
        log_buf[log_n++] = (char)arg;
        log_buf[log_n] = '\0';
    }
}

START_TEST(test_order)
{
    evq *q = evq_new(2);
    log_n = 0;
    evq_schedule(q, 10, EVQ_PRI_TICK, record, NULL, 'c');
    evq_schedule(q, 5, EVQ_PRI_TICK, record, NULL, 'a');
    evq_schedule(q, 10, EVQ_PRI_LAUNCH, record, NULL, 'b');
    evq_schedule(q, 10, EVQ_PRI_TICK, record, NULL, 'd');   /* same cycle and tier: FIFO */
    evq_schedule(q, 10, EVQ_PRI_EXIT, record, NULL, 'e');
    evq_schedule(q, 7, EVQ_PRI_STATS, record, NULL, 'x');
    ck_assert_uint_eq(evq_next_cycle(q), 5);
    while (evq_run_one(q))
        ;
    ck_assert_str_eq(log_buf, "axbcde");
    ck_assert_uint_eq(evq_now(q), 10);
    ck_assert_uint_eq(evq_next_cycle(q), SIM_CYCLE_MAX);
    evq_destroy(q);
}
END_TEST

static void
chain(void *ctx, sim_cycle_t now, uint64_t arg)
{
    evq *q = ctx;
    record(NULL, now, '0' + arg);
    if (arg < 5)
        evq_schedule(q, now, EVQ_PRI_TICK, chain, q, arg + 1); /* same cycle is allowed */
}

START_TEST(test_schedule_from_callback_and_growth)
{
    evq *q = evq_new(1);
    log_n = 0;
    evq_schedule(q, 3, EVQ_PRI_TICK, chain, q, 0);
    for (int i = 0; i < 1000; i++)
        evq_schedule(q, 100 + (uint64_t)(i * 7919 % 1000), EVQ_PRI_TICK, record, NULL, 'z');
    sim_cycle_t last = 0;
    while (evq_next_cycle(q) != SIM_CYCLE_MAX) {
        ck_assert_uint_ge(evq_next_cycle(q), last);
        last = evq_next_cycle(q);
        evq_run_one(q);
    }
    ck_assert_int_eq(memcmp(log_buf, "012345", 6), 0);
    evq_destroy(q);
}
END_TEST

START_TEST(test_never_in_the_past)
{
    evq *q = evq_new(4);
    evq_schedule(q, 10, EVQ_PRI_TICK, record, NULL, 'a');
    evq_run_one(q);
    evq_schedule(q, 9, EVQ_PRI_TICK, record, NULL, 'b');   /* exits with status 3 */
}
END_TEST

static Suite *
evq_suite(void)
{
    Suite *s = suite_create("evq");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_order);
    tcase_add_test(tc, test_schedule_from_callback_and_growth);
    suite_add_tcase(s, tc);
    TCase *death = tcase_create("death");
    tcase_set_tags(death, "death");
    tcase_add_exit_test(death, test_never_in_the_past, 3);
    suite_add_tcase(s, death);
    return s;
}

TESTLIB_MAIN(evq_suite)
