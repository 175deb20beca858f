/*
 * check_sched.c - the order in which each policy considers its warps.
 */
#include <string.h>

#include "sim/sm_internal.h"
#include "testlib.h"

static void
setup(struct sm *sm, struct sim_config *c, const char *policy)
{
    char text[128];
    snprintf(text, sizeof text, "sched.policy = %s; sched.active_warps = 2", policy);
    testlib_config(c, text);
    memset(sm, 0, sizeof *sm);
    sm->cfg = c;
    struct sm_sched *s = &sm->sched[0];
    sched_add_warp(sm, s, 3);
    sched_add_warp(sm, s, 7);
    sched_add_warp(sm, s, 11);
}

START_TEST(test_lrr)
{
    struct sm sm;
    struct sim_config c;
    uint8_t o[SM_NW];
    setup(&sm, &c, "lrr");
    struct sm_sched *s = &sm.sched[0];
    ck_assert_uint_eq(sched_order(&sm, s, o), 3);
    ck_assert(o[0] == 3 && o[1] == 7 && o[2] == 11);
    sched_issued(s, 7);
    sched_order(&sm, s, o);
    ck_assert(o[0] == 11 && o[1] == 3 && o[2] == 7);
    sched_remove_warp(&sm, s, 7);                  /* last issued warp leaves: start over */
    ck_assert_uint_eq(sched_order(&sm, s, o), 2);
    ck_assert(o[0] == 3 && o[1] == 11);
}
END_TEST

START_TEST(test_gto)
{
    struct sm sm;
    struct sim_config c;
    uint8_t o[SM_NW];
    setup(&sm, &c, "gto");
    struct sm_sched *s = &sm.sched[0];
    sched_issued(s, 11);
    sched_order(&sm, s, o);
    ck_assert(o[0] == 11 && o[1] == 3 && o[2] == 7);   /* greedy, then oldest */
    sched_issued(s, 3);
    sched_order(&sm, s, o);
    ck_assert(o[0] == 3 && o[1] == 7 && o[2] == 11);
}
END_TEST

START_TEST(test_two_level)
{
    struct sm sm;
    struct sim_config c;
    uint8_t o[SM_NW];
    setup(&sm, &c, "two_level");
    struct sm_sched *s = &sm.sched[0];
    ck_assert_uint_eq(sched_order(&sm, s, o), 2);      /* active set of 2 */
    ck_assert(o[0] == 3 && o[1] == 7);
    sched_demote(&sm, s, 3);                            /* 3 stalls on memory */
    ck_assert_uint_eq(sched_order(&sm, s, o), 2);
    ck_assert(o[0] == 7 && o[1] == 11);
    ck_assert(s->warps[2] == 3);
}
END_TEST

static Suite *
sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_lrr);
    tcase_add_test(tc, test_gto);
    tcase_add_test(tc, test_two_level);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(sched_suite)
