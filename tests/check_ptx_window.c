/*
 * check_ptx_window.c - the unrolled loops' windows (frontend/lower/ptx_window.c):
 * four iterations of a loop ptxas unrolls issue in its unrolled body's
 * order (the loads first, as many as the registers hold, each iteration's
 * values in registers of their own), a window the loop leaves early
 * issues in program order, a body that may not move keeps its order, and
 * what the kernel computes does not change.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/ptx.h"
#include "sim/sim.h"
#include "tests/testlib.h"

#define N_LINES(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_LEN 40
#define MAXI 512

/* Each lane stores float(tid) at out[tid]; then every lane sums
 * out[k] * out[k + 2] over k < n (a dot product of two loads an
 * iteration, the naive GEMM's loop), and stores the sum at out[tid]. */
static const char *loop_ptx[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)", "{",
    "    .reg .pred %p<4>;", "    .reg .b32 %r<8>;", "    .reg .f32 %f<8>;", "    .reg .b64 %rd<8>;",
    "    ld.param.u64 %rd1, [k_param_0];", "    ld.param.u32 %r1, [k_param_1];",
    "    mov.u32 %r2, %tid.x;", "    cvta.to.global.u64 %rd2, %rd1;",
    "    mul.wide.u32 %rd3, %r2, 4;", "    add.s64 %rd4, %rd2, %rd3;",
    "    cvt.rn.f32.u32 %f5, %r2;", "    st.global.f32 [%rd4], %f5;",
    "    mov.u32 %r3, 0;", "    mov.f32 %f1, 0f00000000;", "    mov.u64 %rd5, %rd2;",
    "$L_loop:",
    "    ld.global.f32 %f2, [%rd5];",
    "    ld.global.f32 %f3, [%rd5+8];",
    "    fma.rn.f32 %f1, %f2, %f3, %f1;",
    "    add.s64 %rd5, %rd5, 4;",
    "    add.s32 %r3, %r3, 1;",
    "    setp.lt.u32 %p1, %r3, %r1;",
    "    @%p1 bra $L_loop;",
    "    st.global.f32 [%rd4], %f1;",
    "    ret;", "}",
};
#define LOOP_LINE 22     /* 1-based line of the loop's first load */

static struct warp_inst w[MAXI];
static char nm[MAXI][NAME_LEN];

/* Warp 0's stream of kernel ptx with `n` iterations and `regs`. */
static unsigned
stream(const char **ptx, size_t n_ptx, unsigned n, unsigned regs)
{
    char extra[64];
    snprintf(extra, sizeof extra, "arg = n u32 %u\nregs = %u\n", n, regs);
    struct inst_source src;
    testlib_ptx_open(ptx, n_ptx, extra, &src);
    return testlib_warp0(&src, 90, w, nm[0], NAME_LEN, MAXI);
}

static bool
is(unsigned i, const char *name)
{
    return strncmp(nm[i], name, strlen(name)) == 0;
}

/* The index of the first LDG, and the LDGs before the first FFMA. */
static unsigned
loads_ahead(unsigned k, unsigned *first_ldg)
{
    unsigned ldg = 0;
    *first_ldg = k;
    for (unsigned i = 0; i < k; i++) {
        if (is(i, "FFMA"))
            return ldg;
        if (is(i, "LDG")) {
            if (*first_ldg == k)
                *first_ldg = i;
            ldg++;
        }
    }
    return ldg;
}

/* With registers to spare, the four iterations' eight loads issue before
 * their first FMA, each into a register of its own, and FMA i reads the
 * two loads of iteration i. */
START_TEST(test_loads_first)
{
    unsigned k = stream(loop_ptx, N_LINES(loop_ptx), 12, 64), first;
    ck_assert_uint_eq(loads_ahead(k, &first), 8);
    unsigned ld[8], nld = 0, nfma = 0;
    for (unsigned i = first; i < k && nfma < 4; i++) {
        if (is(i, "LDG"))
            ld[nld++] = i;
        if (is(i, "FFMA")) {
            ck_assert_uint_eq(nld, 8);
            const struct warp_inst *f = &w[i];
            unsigned hits = 0;
            for (unsigned s = 0; s < f->n_src; s++)
                hits += f->src[s] == w[ld[2 * nfma]].dst[0] ||
                        f->src[s] == w[ld[2 * nfma + 1]].dst[0];
            ck_assert_msg(hits == 2, "FFMA %u does not read its iteration's loads", nfma);
            nfma++;
        }
    }
    for (unsigned a = 0; a < 8; a++)     /* renamed: eight registers, not two */
        for (unsigned b = a + 1; b < 8; b++)
            ck_assert_uint_ne(w[ld[a]].dst[0], w[ld[b]].dst[0]);
    /* 12 iterations: 24 loads, 12 FMAs, the branch once a window */
    unsigned ldg = 0, ffma = 0, bra = 0;
    for (unsigned i = 0; i < k; i++) {
        ldg += is(i, "LDG");
        ffma += is(i, "FFMA");
        bra += is(i, "BRA");
    }
    ck_assert_uint_eq(ldg, 24);
    ck_assert_uint_eq(ffma, 12);
    ck_assert_uint_eq(bra, 3);
}
END_TEST

/* The kernel's registers bound the loads in flight: of 11, less the 3
 * ptxas never allocates (ptx_sched.c) and what the loop keeps live (the
 * pointer, two registers, and the sum) leave 5, so five loads go ahead of
 * the first FMA, not eight; with 9 the floor of 4 holds. */
START_TEST(test_register_limit)
{
    unsigned k = stream(loop_ptx, N_LINES(loop_ptx), 12, 11), first;
    ck_assert_uint_eq(loads_ahead(k, &first), 5);
    k = stream(loop_ptx, N_LINES(loop_ptx), 12, 9);
    ck_assert_uint_eq(loads_ahead(k, &first), 4);
}
END_TEST

/* A window the loop leaves early (6 iterations: the second window ends
 * after two) issues in program order: LDG LDG FFMA, twice. */
START_TEST(test_early_exit)
{
    unsigned k = stream(loop_ptx, N_LINES(loop_ptx), 6, 64);
    char seq[64] = "";
    unsigned nffma = 0;
    for (unsigned i = 0; i < k; i++) {
        if (!is(i, "LDG") && !is(i, "FFMA"))
            continue;
        nffma += is(i, "FFMA");
        if (nffma >= 4)
            strcat(seq, is(i, "LDG") ? "L" : "F");
    }
    ck_assert_str_eq(seq, "FLLFLLF");    /* the fourth FMA, then iterations 5 and 6 */
}
END_TEST

/* A barrier in the body keeps the program order: two loads, then the FMA. */
START_TEST(test_barrier_keeps_order)
{
    const char *ptx[N_LINES(loop_ptx) + 1];
    size_t n = 0;
    for (size_t i = 0; i < N_LINES(loop_ptx); i++) {
        ptx[n++] = loop_ptx[i];
        if (i + 1 == LOOP_LINE + 2)      /* after the FMA */
            ptx[n++] = "    bar.sync 0;";
    }
    unsigned k = stream(ptx, n, 12, 64), first;
    ck_assert_uint_eq(loads_ahead(k, &first), 2);
}
END_TEST

static void
check_sum(const struct launch *l, sim *s, void *ctx)
{
    (void)s;
    (void)ctx;
    float want = 0.0f;
    for (int j = 0; j < 12; j++)
        want = fmaf((float)j, (float)(j + 2), want);
    const float *out = (const float *)l->args[0].data;
    for (unsigned t = 0; t < 32; t++)
        ck_assert_msg(out[t] == want, "lane %u: %g, expected %g", t, out[t], want);
}

/* emulate and run compute the same sums; the window makes the timed loop
 * faster than the same loop kept in order ("nounroll"). */
START_TEST(test_same_results_faster)
{
    static const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32",
                                          "arg = out buffer u32 32 zeros", "arg = n u32 12",
                                          "regs = 32" };
    testlib_emulate_and_run(loop_ptx, N_LINES(loop_ptx), launch, N_LINES(launch), "gpu.cc = 90",
                            check_sum, NULL);
    uint64_t cyc[2];
    for (int v = 0; v < 2; v++) {
        const char *ptx[N_LINES(loop_ptx)];
        memcpy(ptx, loop_ptx, sizeof ptx);
        if (v == 1)
            ptx[LOOP_LINE - 1] = "    .pragma \"nounroll\"; ld.global.f32 %f2, [%rd5];";
        testlib_write_lines("k.ptx", ptx, N_LINES(ptx), 0, NULL, NULL);
        testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
        char path[512];
        snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
        struct inst_source src;
        sim *s;
        const struct launch *l = testlib_launch_run(path, "gpu.cc = 90", &src, &s);
        check_sum(l, s, NULL);
        cyc[v] = testlib_stat(s, 0, "gpu.cycles");
        sim_destroy(s);
        inst_source_destroy(&src);
    }
    ck_assert_msg(cyc[0] * 10 < cyc[1] * 7, "windowed %llu cycles, in order %llu",
                  (unsigned long long)cyc[0], (unsigned long long)cyc[1]);
}
END_TEST

static Suite *
window_suite(void)
{
    Suite *s = suite_create("ptx_window");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, test_loads_first);
    tcase_add_test(tc, test_register_limit);
    tcase_add_test(tc, test_early_exit);
    tcase_add_test(tc, test_barrier_keeps_order);
    tcase_add_test(tc, test_same_results_faster);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(window_suite)
