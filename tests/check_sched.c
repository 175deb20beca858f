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

START_TEST(test_gtrr)
{
    struct sm sm;
    struct sim_config c;
    uint8_t o[SM_NW];
    setup(&sm, &c, "gtrr");
    struct sm_sched *s = &sm.sched[0];
    ck_assert_uint_eq(sched_order(&sm, s, o), 3);
    ck_assert(o[0] == 3 && o[1] == 7 && o[2] == 11);   /* nothing issued yet: by age */
    sched_issued(s, 7);
    sched_order(&sm, s, o);
    ck_assert(o[0] == 7 && o[1] == 11 && o[2] == 3);   /* greedy, then round robin after it */
    sched_issued(s, 11);
    sched_order(&sm, s, o);
    ck_assert(o[0] == 11 && o[1] == 3 && o[2] == 7);
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

/* Waiting warps leave the wait mask exactly when their retry cycle comes,
 * near ones (under SCHED_FAR cycles ahead) and far ones alike, also after
 * a warp in front of them leaves and they move up; wait_min never passes
 * the earliest retry. */
START_TEST(test_refresh_near_and_far)
{
    struct sm sm;
    struct sim_config c;
    setup(&sm, &c, "gto");
    struct sm_sched *s = &sm.sched[0];
    sched_add_warp(&sm, s, 20);
    sched_refresh(s, 100);
    sched_wait(&sm, s, 3, 500, SM_R_MEMORY, 100);       /* far */
    sched_wait(&sm, s, 7, 104, SM_R_SCOREBOARD, 100);   /* near */
    sched_wait(&sm, s, 11, 300, SM_R_MEMORY, 100);      /* far */
    sched_wait(&sm, s, 20, 102, SM_R_PIPE_BUSY, 100);   /* near */
    ck_assert_uint_eq(s->far, 0x5);
    ck_assert_uint_le(s->wait_min, 102);
    sched_refresh(s, 101);
    ck_assert_uint_eq(s->wait, 0xf);
    sched_refresh(s, 102);
    ck_assert_uint_eq(s->wait, 0x7);                   /* 20 came */
    ck_assert_uint_le(s->wait_min, 104);
    sched_refresh(s, 104);
    ck_assert_uint_eq(s->wait, 0x5);                   /* 7 came */
    ck_assert_uint_le(s->wait_min, 300);
    sched_remove_warp(&sm, s, 3);                       /* 11 moves up to position 1 */
    ck_assert_uint_eq(s->wait, 0x2);
    ck_assert_uint_eq(s->far, 0x2);
    sched_refresh(s, 299);
    ck_assert_uint_eq(s->wait, 0x2);
    sched_refresh(s, 300);
    ck_assert_uint_eq(s->wait, 0x0);                   /* 11 came */
    ck_assert_uint_eq(s->far, 0x0);
    sched_wait(&sm, s, 11, 320, SM_R_MEMORY, 300);      /* far again, after a far scan */
    sched_wait(&sm, s, 7, 305, SM_R_SCOREBOARD, 300);
    sched_refresh(s, 319);
    ck_assert_uint_eq(s->wait, 0x2);
    sched_refresh(s, 320);
    ck_assert_uint_eq(s->wait, 0x0);
}
END_TEST

static Suite *
sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_lrr);
    tcase_add_test(tc, test_gto);
    tcase_add_test(tc, test_gtrr);
    tcase_add_test(tc, test_two_level);
    tcase_add_test(tc, test_refresh_near_and_far);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(sched_suite)
