/*
 * check_windows.c - per-window statistics (sim/windows.c): seed 000's
 * worked example, window boundaries and cycle spans, pipe and scheduler
 * utilisation, and the pure-FMA kernel whose bound is 2 x C_fp32.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/windows.h"
#include "testlib.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

struct rows {
    struct window_row r[4096];
    size_t n;
};

static void
collect(void *ctx, const struct window_row *r)
{
    struct rows *rs = ctx;
    ck_assert(rs->n < SIM_ARRAY_LEN(rs->r));
    rs->r[rs->n++] = *r;
}

static struct rows *
rows_new(void)
{
    return calloc(1, sizeof(struct rows));
}

static struct warp_inst
inst(unsigned opc, uint32_t mask)
{
    struct warp_inst wi;
    tl_alu(&wi, opc, 1, 2, 3);
    wi.active_mask = mask;
    return wi;
}

START_TEST(test_seed000_formulas)
{
    double phi = windows_phi(128, 0.75, 0.6);
    ck_assert(NEAR(phi, 153.6));
    double hat = windows_phi_hat(0.9, 0.8, phi);
    ck_assert(NEAR(hat, 110.592));
    ck_assert(fabs(hat - 110.6) < 0.05);
    /* the sanity checks of seed 000 section 1 */
    ck_assert(NEAR(windows_phi(128, 1, 1), 256));
    ck_assert(NEAR(windows_phi(128, 0.5, 0), 64));
}
END_TEST

/* A window built to have exactly the seed's inputs: C_fp32 = 4 x 32 = 128,
 * 225 instructions over cycles 0..49, 180 of them FP32 (f = 0.8), 108 of
 * those FMAs (m = 0.6), each with 24 of 32 lanes (theta = 0.75); FP32
 * issue cycles used 180 x 32 / 128 = 45 of 50 (u = 0.9). */
START_TEST(test_seed000_window)
{
    struct sim_config c;
    testlib_config(&c, "sm.count = 1; sm.subpartitions = 4; pipe.sp.lanes = 32");
    struct rows *rs = rows_new();
    windows *w = windows_new(&c, 225, collect, rs);
    windows_kernel_begin(w, 0);
    for (unsigned i = 0; i < 225; i++) {
        unsigned opc = i < 108 ? SIM_OPC_FP32_FMA : i < 180 ? SIM_OPC_FP32 : SIM_OPC_INT;
        struct warp_inst wi = inst(opc, 0x00ffffffu);
        windows_issue(w, 0, i % 4, (sim_cycle_t)(i * 50 / 225), &wi);
    }
    ck_assert_uint_eq(rs->n, 2);     /* GPU-wide and SM 0, both closed at 225 */
    for (size_t k = 0; k < 2; k++) {
        const struct window_row *r = &rs->r[k];
        ck_assert_uint_eq(r->insts, 225);
        ck_assert_uint_eq(r->n_fp32, 180);
        ck_assert_uint_eq(r->first, 0);
        ck_assert_uint_eq(r->last, 49);
        ck_assert(NEAR(r->c_fp32, 128));
        ck_assert(NEAR(r->theta, 0.75));
        ck_assert(NEAR(r->m_fma, 0.6));
        ck_assert(NEAR(r->f_fp32, 0.8));
        ck_assert(NEAR(r->u_issue, 0.9));
        ck_assert(NEAR(r->phi, 153.6));
        ck_assert(NEAR(r->phi_hat, 110.592));
        /* achieved: 180 x 24 lanes x 1.6 FLOPs / 50 cycles */
        ck_assert(NEAR(r->flops, 180 * 24 * 1.6 / 50));
    }
    ck_assert(rs->r[0].gpu);
    ck_assert(!rs->r[1].gpu);
    windows_kernel_end(w);
    ck_assert_uint_eq(rs->n, 2);     /* nothing left open */
    windows_destroy(w);
    free(rs);
}
END_TEST

/* Windows tile the kernel: the first starts at the kernel's start cycle,
 * each later one the cycle after its predecessor's last instruction; a
 * kernel's last window may be short; pipe and scheduler utilisation. */
START_TEST(test_boundaries)
{
    struct sim_config c;
    testlib_config(&c, "sm.count = 2; sm.subpartitions = 2; sm.dispatch_units = 1; "
                       "pipe.sp.lanes = 16; pipe.sfu.lanes = 4");
    struct rows *rs = rows_new();
    windows *w = windows_new(&c, 4, collect, rs);
    windows_kernel_begin(w, 5);
    struct warp_inst f = inst(SIM_OPC_FP32, ~0u), s = inst(SIM_OPC_SFU, ~0u);
    /* SM 1: FP32 at 10, 11, 11 and SFU at 12 -> window [5, 12], 8 cycles */
    windows_issue(w, 1, 0, 10, &f);
    windows_issue(w, 1, 1, 11, &f);
    windows_issue(w, 1, 0, 11, &f);
    windows_issue(w, 1, 1, 12, &s);
    ck_assert_uint_eq(rs->n, 2);
    const struct window_row *g = &rs->r[0], *r = &rs->r[1];
    ck_assert(g->gpu && !r->gpu);
    ck_assert_uint_eq(r->sm, 1);
    ck_assert_uint_eq(r->first, 5);
    ck_assert_uint_eq(r->last, 12);
    ck_assert_uint_eq(r->index, 0);
    /* 3 FP32 x 32/16 = 6 pipe-cycles over 8 cycles x 2 sub-partitions */
    ck_assert(NEAR(r->u_pipe[SIM_PIPE_SP], 6.0 / 16));
    ck_assert(NEAR(g->u_pipe[SIM_PIPE_SP], 6.0 / 32));   /* 2 SMs */
    /* 1 SFU x 32/4 = 8 pipe-cycles */
    ck_assert(NEAR(r->u_pipe[SIM_PIPE_SFU], 8.0 / 16));
    ck_assert(NEAR(r->u_issue, 3 * 32.0 / (8 * 32)));
    ck_assert(NEAR(r->f_fp32, 0.75));
    ck_assert_uint_eq(r->n_sched, 2);
    ck_assert(NEAR(r->u_sched[0], 2.0 / 8));
    ck_assert(NEAR(r->u_sched[1], 2.0 / 8));
    ck_assert(NEAR(g->c_fp32, 2 * 2 * 16));
    ck_assert(NEAR(r->c_fp32, 2 * 16));

    /* the next window starts at 13 although its first instruction is at 20 */
    windows_issue(w, 1, 0, 20, &f);
    windows_issue(w, 0, 0, 21, &f);     /* SM 0's first window starts at 5 */
    windows_kernel_end(w);
    ck_assert_uint_eq(rs->n, 5);        /* partial: GPU, SM 0, SM 1 */
    ck_assert(rs->r[2].gpu);
    ck_assert_uint_eq(rs->r[2].first, 13);
    ck_assert_uint_eq(rs->r[2].last, 21);
    ck_assert_uint_eq(rs->r[2].insts, 2);
    ck_assert_uint_eq(rs->r[2].index, 1);
    ck_assert_uint_eq(rs->r[3].sm, 0);
    ck_assert_uint_eq(rs->r[3].first, 5);
    ck_assert_uint_eq(rs->r[3].last, 21);
    ck_assert_uint_eq(rs->r[4].sm, 1);
    ck_assert_uint_eq(rs->r[4].first, 13);
    ck_assert_uint_eq(rs->r[4].last, 20);
    ck_assert_uint_eq(rs->r[4].index, 1);

    /* a second kernel numbers its windows from 0 again */
    windows_kernel_begin(w, 100);
    for (unsigned i = 0; i < 4; i++)
        windows_issue(w, 0, 0, 100, &f);
    ck_assert_uint_eq(rs->n, 7);
    ck_assert_uint_eq(rs->r[5].kernel, 1);
    ck_assert_uint_eq(rs->r[5].index, 0);
    ck_assert_uint_eq(rs->r[5].first, 100);
    ck_assert_uint_eq(rs->r[5].last, 100);
    windows_destroy(w);
    free(rs);
}
END_TEST

/* Several windows closing in one cycle: the later ones span that cycle. */
START_TEST(test_same_cycle)
{
    struct sim_config c;
    testlib_config(&c, "sm.count = 1; sm.subpartitions = 4");
    struct rows *rs = rows_new();
    windows *w = windows_new(&c, 1, collect, rs);
    windows_kernel_begin(w, 5);
    struct warp_inst f = inst(SIM_OPC_FP32_FMA, 0x0000ffffu);
    for (unsigned i = 0; i < 3; i++)
        windows_issue(w, 0, i, 7, &f);
    ck_assert_uint_eq(rs->n, 6);
    ck_assert_uint_eq(rs->r[1].first, 5);
    ck_assert_uint_eq(rs->r[1].last, 7);
    ck_assert_uint_eq(rs->r[3].first, 7);
    ck_assert_uint_eq(rs->r[3].last, 7);
    ck_assert_uint_eq(rs->r[5].first, 7);
    ck_assert(NEAR(rs->r[5].theta, 0.5));
    ck_assert(NEAR(rs->r[5].m_fma, 1));
    ck_assert(NEAR(rs->r[5].u_sched[2], 1.0));
    ck_assert(NEAR(rs->r[5].u_sched[0], 0.0));
    windows_destroy(w);
    free(rs);
}
END_TEST

/* Through the simulator: a kernel of FMAs with all lanes active gives
 * Phi = 2 x C_fp32 in every window that holds FP32 instructions, and every
 * issued instruction lands in exactly one per-SM and one GPU-wide window. */
#define FMA_N 200

static int
gen_fma(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)arg;
    (void)block;
    (void)warp;
    if (k < FMA_N)
        tl_alu(wi, SIM_OPC_FP32_FMA, (int)(k % 8), (int)((k + 7) % 8), 9);
    else if (k == FMA_N)
        tl_exit(wi);
    else
        return 0;
    return 1;
}

struct both {
    windows *w;
};

static void
ob_issue(void *ctx, uint32_t sm, uint32_t sched, sim_cycle_t cycle, const struct warp_inst *wi)
{
    windows_issue(((struct both *)ctx)->w, sm, sched, cycle, wi);
}

static void
ob_begin(void *ctx, const sim *s, const struct kernel_info *ki)
{
    (void)ki;
    windows_kernel_begin(((struct both *)ctx)->w, sim_now(s));
}

static void
ob_end(void *ctx, const sim *s, const struct sim_kernel_result *kr)
{
    (void)s;
    (void)kr;
    windows_kernel_end(((struct both *)ctx)->w);
}

START_TEST(test_pure_fma_kernel)
{
    struct sim_config c;
    testlib_config(&c, "sm.count = 4; sm.subpartitions = 4; pipe.sp.lanes = 32");
    struct rows *rs = rows_new();
    struct both b = { windows_new(&c, 1000, collect, rs) };
    struct testlib_kernel k = { "fma", 16, 256, 32, 0, gen_fma, NULL };
    struct inst_source src;
    testlib_source(&src, &k, 1);
    sim *s = sim_new(&c);
    struct sim_observer ob = { ob_begin, ob_end, ob_issue, NULL, &b };
    sim_set_observer(s, &ob);
    struct sim_error err = { 0 };
    ck_assert_msg(sim_run(s, &src, &err) == SIM_OK, "%s", err.msg);
    uint64_t sm_insts = 0, gpu_insts = 0, fp32 = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const struct window_row *r = &rs->r[i];
        if (r->gpu)
            gpu_insts += r->insts;
        else {
            sm_insts += r->insts;
            fp32 += r->n_fp32;
        }
        if (r->n_fp32 == 0)
            continue;
        double cfp = r->gpu ? 4 * 4 * 32 : 4 * 32;
        ck_assert(NEAR(r->c_fp32, cfp));
        ck_assert(NEAR(r->theta, 1));
        ck_assert(NEAR(r->m_fma, 1));
        ck_assert_msg(NEAR(r->phi, 2 * cfp), "window %zu: phi %g", i, r->phi);
        ck_assert(r->u_issue <= 1.0 + 1e-9);
        ck_assert(r->phi_hat <= r->phi + 1e-9);
    }
    uint64_t total = testlib_stat(s, 0, "sm.warp_insts");
    ck_assert_uint_eq(total, 16 * 8 * (FMA_N + 1));
    ck_assert_uint_eq(sm_insts, total);
    ck_assert_uint_eq(gpu_insts, total);
    ck_assert_uint_eq(fp32, 16 * 8 * FMA_N);
    sim_destroy(s);
    inst_source_destroy(&src);
    windows_destroy(b.w);
    free(rs);
}
END_TEST

static Suite *
windows_suite(void)
{
    Suite *s = suite_create("windows");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_seed000_formulas);
    tcase_add_test(tc, test_seed000_window);
    tcase_add_test(tc, test_boundaries);
    tcase_add_test(tc, test_same_cycle);
    tcase_add_test(tc, test_pure_fma_kernel);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(windows_suite)
