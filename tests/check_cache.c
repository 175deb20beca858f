/*
 * check_cache.c - tag array: lookup, LRU replacement, sectors.
 */
#include "sim/cache.h"
#include "testlib.h"

START_TEST(test_lru_replacement)
{
    cache *c = cache_new(2 * 128 * 4, 2, 128);   /* 4 sets x 2 ways */
    ck_assert_uint_eq(cache_sets(c), 4);
    struct cache_line *a = cache_victim(c, 1);
    cache_install(c, a, 100);
    a->valid = 1;
    struct cache_line *b = cache_victim(c, 1);
    ck_assert_ptr_ne(a, b);                      /* the empty way first */
    cache_install(c, b, 200);
    b->valid = 3;
    ck_assert_ptr_eq(cache_find(c, 1, 100), a);  /* touch A: B is now LRU */
    ck_assert_ptr_eq(cache_victim(c, 1), b);
    ck_assert_ptr_null(cache_find(c, 0, 100));   /* other set */
    ck_assert_ptr_null(cache_find(c, 1, 300));
    cache_install(c, b, 300);
    ck_assert_uint_eq(b->valid, 0);
    b->valid = 1;
    ck_assert_ptr_null(cache_find(c, 1, 200));
    ck_assert_ptr_eq(cache_find(c, 1, 300), b);
    cache_invalidate_all(c);
    ck_assert_ptr_null(cache_find(c, 1, 300));
    cache_destroy(c);
}
END_TEST

/* The 32-bit LRU clock wraps: the stamps are renumbered by rank and the
 * replacement order is the one an unbounded clock gives. */
START_TEST(test_lru_clock_wraps)
{
    cache *c = cache_new(4 * 128 * 2, 4, 128);   /* 2 sets x 4 ways */
    struct cache_line *l[4];
    cache_set_clock(c, UINT32_MAX - 6);
    for (unsigned w = 0; w < 4; w++) {
        l[w] = cache_victim(c, 0);
        cache_install(c, l[w], 10 + w);          /* stamps MAX-5 .. MAX-2 */
        l[w]->valid = 1;
    }
    struct cache_line *o = cache_victim(c, 1);
    cache_install(c, o, 99);
    o->valid = 1;
    ck_assert_ptr_eq(cache_find(c, 0, 11), l[1]);    /* MAX: order 10 12 13 11 */
    ck_assert_ptr_eq(cache_find(c, 0, 10), l[0]);    /* wraps: renumbered, order 12 13 11 10 */
    ck_assert_ptr_eq(cache_victim(c, 0), l[2]);
    ck_assert_ptr_eq(cache_find(c, 0, 12), l[2]);    /* order 13 11 10 12 */
    ck_assert_ptr_eq(cache_victim(c, 0), l[3]);
    ck_assert_ptr_eq(cache_find(c, 0, 13), l[3]);
    ck_assert_ptr_eq(cache_victim(c, 0), l[1]);
    ck_assert_ptr_eq(cache_find(c, 1, 99), o);       /* the other set kept its line */
    ck_assert_uint_eq(cache_line_tag(c, l[3]), 13);
    cache_destroy(c);
}
END_TEST

START_TEST(test_zero_size)
{
    cache *c = cache_new(0, 4, 128);
    ck_assert_uint_eq(cache_sets(c), 0);
    ck_assert_ptr_null(cache_find(c, 0, 1));
    ck_assert_ptr_null(cache_victim(c, 0));
    cache_destroy(c);
}
END_TEST

START_TEST(test_mix_is_bijective_on_a_sample)
{
    /* distinct inputs give distinct outputs (the mixer is invertible) */
    uint64_t seen[1024];
    for (unsigned i = 0; i < 1024; i++) {
        seen[i] = cache_mix(i);
        for (unsigned j = 0; j < i; j++)
            ck_assert_uint_ne(seen[i], seen[j]);
    }
}
END_TEST

static Suite *
cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_lru_replacement);
    tcase_add_test(tc, test_lru_clock_wraps);
    tcase_add_test(tc, test_zero_size);
    tcase_add_test(tc, test_mix_is_bijective_on_a_sample);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(cache_suite)
