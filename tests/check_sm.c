/*
 * check_sm.c - cycle-exact tests of the SM model through the whole
 * simulator (1 SM unless stated), fed by programmed instruction streams.
 */
#include <math.h>
#include <string.h>

#include "sim/sim.h"
#include "testlib.h"

/* ---- generators --------------------------------------------------------- */

struct chain {
    uint64_t n;                  /* instructions before EXIT */
    unsigned opclass;
    bool dependent;              /* each reads the previous one's result */
    uint32_t mask;
    uint32_t aux;                /* warp_inst.aux of each */
};

static int
gen_chain(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct chain *c = arg;
    (void)block;
    (void)warp;
    if (k > c->n)
        return 0;
    if (k == c->n) {
        tl_exit(wi);
        return 1;
    }
    if (c->dependent)
        tl_alu(wi, c->opclass, 1, 1, 2);
    else
        tl_alu(wi, c->opclass, (int)(10 + k % 200), 1, 2);
    if (c->mask)
        wi->active_mask = c->mask;
    wi->aux = c->aux;
    return 1;
}

static uint64_t
chain_aux_cycles(const char *cfgtext, uint64_t n, unsigned opclass, bool dep, uint32_t aux)
{
    struct sim_config c;
    struct chain ch = { n, opclass, dep, 0, aux };
    struct testlib_kernel k = { "chain", 1, 32, 32, 0, gen_chain, &ch };
    testlib_small_config(&c, cfgtext);
    return testlib_cycles(&c, &k);
}

static uint64_t
chain_cycles(const char *cfgtext, uint64_t n, unsigned opclass, bool dep)
{
    return chain_aux_cycles(cfgtext, n, opclass, dep, 0);
}

/* ---- latency and throughput ------------------------------------------- */

START_TEST(test_dependent_chain_exact)
{
    static const unsigned lat[] = { 4, 6, 29 };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(lat); i++) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "op.fp32.latency = %u", lat[i]);
        uint64_t c1 = chain_cycles(cfg, 1, SIM_OPC_FP32, true);
        ck_assert_uint_eq(c1, lat[i]);                 /* no fixed overhead in this config */
        for (uint64_t n = 2; n <= 200; n *= 10) {
            uint64_t cn = chain_cycles(cfg, n, SIM_OPC_FP32, true);
            uint64_t cm = chain_cycles(cfg, n - 1, SIM_OPC_FP32, true);
            ck_assert_uint_eq(cn, n * lat[i]);          /* N x latency + 0, not one cycle less */
            ck_assert_uint_eq(cn - cm, lat[i]);
        }
    }
    /* a fixed overhead adds exactly once */
    uint64_t a = chain_cycles("op.fp32.latency = 4; gpu.kernel_launch_latency = 100;"
                              "sm.block_launch_latency = 30", 50, SIM_OPC_FP32, true);
    ck_assert_uint_eq(a, 50 * 4 + 100 + 30);
}
END_TEST

/* Cycles of `blocks` blocks of `threads` threads, each warp one fp32 op
 * (4 cycles) then EXIT. */
static uint64_t
blocks_cycles(const char *cfgtext, uint32_t blocks, uint32_t threads)
{
    struct sim_config c;
    struct chain ch = { 1, SIM_OPC_FP32, true, 0, 0 };
    struct testlib_kernel k = { "blocks", blocks, threads, 32, 0, gen_chain, &ch };
    char buf[512];
    snprintf(buf, sizeof buf, "op.fp32.latency = 4; %s", cfgtext);
    testlib_small_config(&c, buf);
    return testlib_cycles(&c, &k);
}

/* gpu.block_dispatch_interval: block k is handed out at ceil(k x interval)
 * (a fractional interval is a rate, not rounded per block); with no room
 * the dispatcher waits for a retirement and then places the block at once. */
START_TEST(test_block_dispatch_interval)
{
    /* 8 one-block SMs: the last of 8 blocks goes at ceil(7 x I), ends 4 later */
    ck_assert_uint_eq(blocks_cycles("sm.count = 8", 8, 32), 4);
    ck_assert_uint_eq(blocks_cycles("sm.count = 8; gpu.block_dispatch_interval = 1", 8, 32), 11);
    ck_assert_uint_eq(blocks_cycles("sm.count = 8; gpu.block_dispatch_interval = 1.25", 8, 32),
                      9 + 4);
    ck_assert_uint_eq(blocks_cycles("sm.count = 8; gpu.block_dispatch_interval = 1.5", 8, 32),
                      11 + 4);
    ck_assert_uint_eq(blocks_cycles("sm.count = 8; gpu.block_dispatch_interval = 2", 8, 32),
                      14 + 4);
    /* the kernel launch latency comes first, then the same pacing */
    ck_assert_uint_eq(blocks_cycles("sm.count = 8; gpu.block_dispatch_interval = 1.5;"
                                    "gpu.kernel_launch_latency = 100", 8, 32), 100 + 11 + 4);
    /* one SM holding one block: a block retires every 4 cycles, and the
     * waiting dispatcher places the next one in that cycle */
    ck_assert_uint_eq(blocks_cycles("sm.max_blocks = 1; gpu.block_dispatch_interval = 2", 5, 32),
                      5 * 4);
    ck_assert_uint_eq(blocks_cycles("sm.max_blocks = 1", 5, 32), 5 * 4);
    /* an interval longer than a block: the rate decides (0, 10, 20, 30, 40) */
    ck_assert_uint_eq(blocks_cycles("sm.max_blocks = 1; gpu.block_dispatch_interval = 10", 5, 32),
                      40 + 4);
    /* blocks on the SMs in round-robin order: 3 SMs, 6 blocks, interval 1:
     * SM 0 gets blocks 0 and 3 (cycles 0 and 3), the last block goes at 5 */
    ck_assert_uint_eq(blocks_cycles("sm.count = 3; gpu.block_dispatch_interval = 1", 6, 32), 9);
}
END_TEST

/* sm.warp_launch_latency W: warp i of a block starts at ceil(i x W); with
 * sm.serial_block_launch the next block's warps wait for the previous
 * block's launch (n_warps x W later). */
START_TEST(test_warp_launch_serial)
{
    /* one block of 4 warps, W = 5: the last warp starts at 15 */
    ck_assert_uint_eq(blocks_cycles("sm.warp_launch_latency = 5", 1, 128), 15 + 4);
    /* W = 4.5: starts 0, 5, 9, 14 (ceil of 0, 4.5, 9, 13.5) */
    ck_assert_uint_eq(blocks_cycles("sm.warp_launch_latency = 4.5", 1, 128), 14 + 4);
    /* two blocks at once, launched independently: both blocks' warp i start
     * together; the one scheduler issues each warp's op and EXIT, so of the
     * last pair (at 15) the second op issues at 17 */
    ck_assert_uint_eq(blocks_cycles("sm.warp_launch_latency = 5", 2, 128), 17 + 4);
    /* serial: block 1 starts launching when block 0's 4 warps are done (20):
     * 20, 25, 30, 35 */
    ck_assert_uint_eq(blocks_cycles("sm.warp_launch_latency = 5; sm.serial_block_launch = true",
                                    2, 128), 35 + 4);
    /* serial, W = 4.5: block 1 from 18: 18, 23, 27, 32 */
    ck_assert_uint_eq(blocks_cycles("sm.warp_launch_latency = 4.5; sm.serial_block_launch = true",
                                    2, 128), 32 + 4);
    /* serial with W = 0 changes nothing */
    ck_assert_uint_eq(blocks_cycles("sm.serial_block_launch = true", 2, 128),
                      blocks_cycles("", 2, 128));
}
END_TEST

/* warp_inst.stall: the warp's next instruction issues `stall` cycles after
 * this one (0 and 1: the next cycle), whatever the operands allow. */
struct stalled {
    uint64_t n;
    uint8_t stall;
};

static int
gen_stalled(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct stalled *st = arg;
    (void)block;
    (void)warp;
    if (k > st->n)
        return 0;
    if (k == st->n) {
        tl_exit(wi);
        return 1;
    }
    tl_alu(wi, SIM_OPC_FP32, (int)(10 + k % 200), 1, 2);
    wi->stall = st->stall;
    return 1;
}

START_TEST(test_stall_counts)
{
    struct sim_config c;
    testlib_small_config(&c, "op.fp32.latency = 4");
    static const uint8_t stalls[] = { 0, 1, 2, 5, 13 };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(stalls); i++) {
        struct stalled st = { 100, stalls[i] };
        struct testlib_kernel k = { "stalled", 1, 32, 32, 0, gen_stalled, &st };
        uint64_t gap = stalls[i] > 1 ? stalls[i] : 1;
        /* the last of 100 independent ops issues at 99 x gap, its result 4
         * later; the EXIT after it at 100 x gap (the kernel contains its cycle) */
        uint64_t want = 99 * gap + 4 > 100 * gap + 1 ? 99 * gap + 4 : 100 * gap + 1;
        ck_assert_uint_eq(testlib_cycles(&c, &k), want);
    }
    /* a stall shorter than a dependence changes nothing: the scoreboard waits */
    struct chain ch = { 50, SIM_OPC_FP32, true, 0, 0 };
    struct testlib_kernel k = { "chain", 1, 32, 32, 0, gen_chain, &ch };
    ck_assert_uint_eq(testlib_cycles(&c, &k), 50 * 4);
}
END_TEST

/* ex2 (sfu_ex2) has its own latency, not op.sfu.latency, and issues to the SFU pipe. */
START_TEST(test_sfu_ex2_own_latency)
{
    const char *cfg = "op.sfu.latency = 18; op.sfu_ex2.latency = 46; pipe.sfu.lanes = 4";
    for (uint64_t n = 1; n <= 100; n *= 10) {
        uint64_t cn = chain_cycles(cfg, n, SIM_OPC_SFU_EX2, true);
        ck_assert_uint_eq(cn, n * 46);                 /* N x 46, not one cycle less or more */
        if (n > 1)
            ck_assert_uint_eq(cn - chain_cycles(cfg, n - 1, SIM_OPC_SFU_EX2, true), 46);
        ck_assert_uint_eq(chain_cycles(cfg, n, SIM_OPC_SFU, true), n * 18);
    }
    /* 4 SFU lanes: 8 cycles per warp instruction, then op.sfu_ex2.interval */
    ck_assert_uint_eq(chain_cycles(cfg, 100, SIM_OPC_SFU_EX2, false), 8 * 99 + 46);
    ck_assert_uint_eq(chain_cycles("op.sfu_ex2.latency = 46; op.sfu_ex2.interval = 9", 100,
                                   SIM_OPC_SFU_EX2, false), 9 * 99 + 46);
}
END_TEST

/* int_wide (IMAD.WIDE, IMAD.HI) is its own class: on the H100's values it
 * holds the FMA pipe 4 cycles where int_mul holds it 2, at the same latency. */
START_TEST(test_int_wide_rate)
{
    const char *cfg = "op.int_mul.pipe = sp; op.int_mul.latency = 5; op.int_mul.interval = 2;"
                      "op.int_wide.pipe = sp; op.int_wide.latency = 5; op.int_wide.interval = 4";
    for (uint64_t n = 1; n <= 100; n *= 10) {
        ck_assert_uint_eq(chain_cycles(cfg, n, SIM_OPC_INT_WIDE, false), 4 * (n - 1) + 5);
        ck_assert_uint_eq(chain_cycles(cfg, n, SIM_OPC_INT_MUL, false), 2 * (n - 1) + 5);
        ck_assert_uint_eq(chain_cycles(cfg, n, SIM_OPC_INT_WIDE, true), 5 * n);
    }
    /* a latency longer than the interval still decides a chain */
    ck_assert_uint_eq(chain_cycles("op.int_wide.latency = 3; op.int_wide.interval = 4", 10,
                                   SIM_OPC_INT_WIDE, true), 4 * 9 + 3);
}
END_TEST

/* tensor_dp (DMMA): op.tensor_dp.interval is a DMMA.884's; aux gives an
 * instruction's work in such units (DMMA.1688 4, DMMA.16816 8), and the
 * tensor pipe is held that many intervals.  Independent: interval x
 * units apart; dependent: the latency, or the pipe when it is longer. */
START_TEST(test_tensor_dp_units)
{
    const char *cfg = "op.tensor_dp.latency = 10; op.tensor_dp.interval = 8";
    for (uint64_t n = 1; n <= 100; n *= 10) {
        ck_assert_uint_eq(chain_aux_cycles(cfg, n, SIM_OPC_TENSOR_DP, false, 0), 8 * (n - 1) + 10);
        ck_assert_uint_eq(chain_aux_cycles(cfg, n, SIM_OPC_TENSOR_DP, false, 1), 8 * (n - 1) + 10);
        ck_assert_uint_eq(chain_aux_cycles(cfg, n, SIM_OPC_TENSOR_DP, false, 8), 64 * (n - 1) + 10);
        ck_assert_uint_eq(chain_aux_cycles(cfg, n, SIM_OPC_TENSOR_DP, true, 1), 10 * n);
        ck_assert_uint_eq(chain_aux_cycles(cfg, n, SIM_OPC_TENSOR_DP, true, 2), 16 * (n - 1) + 10);
    }
    /* aux means nothing to the other tensor classes */
    ck_assert_uint_eq(chain_aux_cycles("op.tensor.latency = 10; op.tensor.interval = 8", 10,
                                       SIM_OPC_TENSOR, false, 8), 8 * 9 + 10);
}
END_TEST

START_TEST(test_independent_stream_reaches_throughput)
{
    /* one FP32 instruction per cycle on 32 lanes */
    ck_assert_uint_eq(chain_cycles("op.fp32.latency = 4", 500, SIM_OPC_FP32, false), 499 + 4);
    /* 16 lanes: a warp instruction occupies the pipe 2 cycles */
    ck_assert_uint_eq(chain_cycles("op.fp32.latency = 4; pipe.sp.lanes = 16", 500, SIM_OPC_FP32,
                                   false), 2 * 499 + 4);
    /* an explicit initiation interval */
    ck_assert_uint_eq(chain_cycles("op.fp32.latency = 4; op.fp32.interval = 3", 500, SIM_OPC_FP32,
                                   false), 3 * 499 + 4);
    /* SFU: 4 lanes -> 8 cycles per warp instruction; DPU 16 lanes -> 2 */
    ck_assert_uint_eq(chain_cycles("op.sfu.latency = 20; pipe.sfu.lanes = 4", 100, SIM_OPC_SFU,
                                   false), 8 * 99 + 20);
    ck_assert_uint_eq(chain_cycles("op.fp64.latency = 8; pipe.dpu.lanes = 16", 100, SIM_OPC_FP64,
                                   false), 2 * 99 + 8);
    ck_assert_uint_eq(chain_cycles("op.fp64.latency = 8; pipe.dpu.lanes = 2", 100, SIM_OPC_FP64,
                                   false), 16 * 99 + 8);
    /* a class can be moved to another pipe */
    ck_assert_uint_eq(chain_cycles("op.int.pipe = sfu; pipe.sfu.lanes = 4; op.int.latency = 4", 10,
                                   SIM_OPC_INT, false), 8 * 9 + 4);
}
END_TEST

/* Alternating independent FP64 and FP32 instructions (n pairs), EXIT. */
static int
gen_alt64(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const uint64_t *n = arg;
    (void)block;
    (void)warp;
    if (k > 2 * *n)
        return 0;
    if (k == 2 * *n)
        tl_exit(wi);
    else
        tl_alu(wi, k % 2 == 0 ? SIM_OPC_FP64 : SIM_OPC_FP32, (int)(10 + k % 200), 1, 2);
    return 1;
}

/* pipe.dpu.holds_issue: a DPU instruction keeps its scheduler from issuing
 * for the 16 cycles it feeds a 2-lane DPU.  Without it the FP32 one issues
 * the next cycle and the DPU paces the stream at 16 cycles a pair (the
 * last FP64 at 16 (n - 1), its result 8 later); with it the FP32 one
 * waits the 16 cycles, and the next FP64 issues one cycle after it: 17 a
 * pair, the last FP32 at 17 (n - 1) + 16, its result 4 later. */
START_TEST(test_dpu_holds_issue)
{
    const char *base = "op.fp64.latency = 8; op.fp32.latency = 4; pipe.dpu.lanes = 2";
    char cfg[256];
    for (uint64_t n = 1; n <= 40; n += 13) {
        struct sim_config c;
        struct testlib_kernel k = { "alt64", 1, 32, 32, 0, gen_alt64, &n };
        testlib_small_config(&c, base);
        ck_assert_uint_eq(testlib_cycles(&c, &k), 16 * (n - 1) + 8);
        snprintf(cfg, sizeof cfg, "%s; pipe.dpu.holds_issue = true", base);
        testlib_small_config(&c, cfg);
        ck_assert_uint_eq(testlib_cycles(&c, &k), 17 * (n - 1) + 16 + 4);
    }
}
END_TEST

/* pipe.dpu.per_sm: the DPU lanes are the SM's.  Four warps, one in each
 * of four partitions, each issue n independent FP64 instructions: with 2
 * lanes a partition they run side by side (16 cycles each, the last at
 * 16 (n - 1), its result 8 later); with 2 lanes for the SM they take them
 * in turn (the last of 4n at 16 (4n - 1)).  One warp's dependent chain
 * runs at the latency when it exceeds the 16 cycles (45 n), and at the
 * occupancy when not (latency 8: 16 (n - 1) + 8). */
START_TEST(test_dpu_per_sm)
{
    for (uint64_t n = 1; n <= 40; n += 13) {
        struct sim_config c;
        struct chain ch = { n, SIM_OPC_FP64, false, 0, 0 };
        struct testlib_kernel k = { "dpu4", 1, 128, 32, 0, gen_chain, &ch };
        testlib_small_config(&c, "sm.subpartitions = 4; op.fp64.latency = 8; pipe.dpu.lanes = 2");
        ck_assert_uint_eq(testlib_cycles(&c, &k), 16 * (n - 1) + 8);
        testlib_small_config(&c, "sm.subpartitions = 4; op.fp64.latency = 8; pipe.dpu.lanes = 2;"
                                 "pipe.dpu.per_sm = true");
        ck_assert_uint_eq(testlib_cycles(&c, &k), 16 * (4 * n - 1) + 8);
        ck_assert_uint_eq(chain_cycles("op.fp64.latency = 45; pipe.dpu.lanes = 2;"
                                       "pipe.dpu.per_sm = true", n, SIM_OPC_FP64, true), 45 * n);
        ck_assert_uint_eq(chain_cycles("op.fp64.latency = 8; pipe.dpu.lanes = 2;"
                                       "pipe.dpu.per_sm = true", n, SIM_OPC_FP64, true),
                          16 * (n - 1) + 8);
    }
}
END_TEST

START_TEST(test_dual_issue)
{
    /* Kepler-like: 48 FP32 lanes per scheduler, two dispatch units: 3 per 2 cycles */
    uint64_t dual = chain_cycles("op.fp32.latency = 4; pipe.sp.lanes = 48; sm.dispatch_units = 2",
                                 300, SIM_OPC_FP32, false);
    uint64_t single = chain_cycles("op.fp32.latency = 4; pipe.sp.lanes = 48", 300, SIM_OPC_FP32,
                                   false);
    ck_assert_uint_eq(single, 299 + 4);
    ck_assert_uint_eq(dual, 199 + 4);
    /* a dependent pair is never dual-issued */
    ck_assert_uint_eq(chain_cycles("op.fp32.latency = 4; pipe.sp.lanes = 48; sm.dispatch_units = 2",
                                   50, SIM_OPC_FP32, true), 50 * 4);
}
END_TEST

START_TEST(test_divergence_halves_lanes_not_slots)
{
    struct sim_config c;
    struct chain full = { 64, SIM_OPC_FP32, true, 0, 0 }, half = { 64, SIM_OPC_FP32, true, 0x0000ffffu, 0 };
    struct testlib_kernel kf = { "full", 1, 32, 32, 0, gen_chain, &full };
    struct testlib_kernel kh = { "half", 1, 32, 32, 0, gen_chain, &half };
    struct testlib_kernel both[2] = { kf, kh };
    struct inst_source src;
    testlib_small_config(&c, "op.fp32.latency = 4");
    testlib_source(&src, both, 2);
    sim *s = testlib_run(&c, &src);
    ck_assert_uint_eq(sim_kernel(s, 0)->cycles, sim_kernel(s, 1)->cycles);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.warp_insts"), testlib_stat(s, 1, "sm.warp_insts"));
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.fp32_lanes"), 64 * 32);
    ck_assert_uint_eq(testlib_stat(s, 1, "sm.fp32_lanes"), 64 * 16);
    ck_assert_uint_eq(testlib_stat(s, 1, "sm.slot.issued"), 65);   /* same issue slots */
    /* kernels run back to back */
    ck_assert_uint_eq(sim_total_cycles(s), 2 * 64 * 4);
    ck_assert_uint_eq(sim_kernel(s, 1)->start, 64 * 4);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* ---- barriers ------------------------------------------------------------ */

/* Every warp: the barrier first, then an FADD, then EXIT. */
static int
gen_barrier_first(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)arg;
    (void)block;
    (void)warp;
    if (k == 0)
        tl_barrier(wi);
    else if (k == 1)
        tl_alu(wi, SIM_OPC_FP32, 5, 3, 4);
    else if (k == 2)
        tl_exit(wi);
    else
        return 0;
    return 1;
}

/* Warp 0: ten dependent FADDs first; the others as gen_barrier_first. */
static int
gen_barrier(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    if (warp != 0 || k >= 10)
        return gen_barrier_first(arg, block, warp, warp == 0 ? k - 10 : k, wi);
    tl_alu(wi, SIM_OPC_FP32, 1, 1, 2);
    return 1;
}

START_TEST(test_barrier_release_timing)
{
    struct sim_config c;
    struct testlib_kernel k = { "bar", 1, 64, 32, 0, gen_barrier, NULL };
    /* warp 0: FADDs at 0,4,..,36, BAR at 37 (warp 1 waits since cycle 1);
     * release at 37 + 20 = 57.  GTO: warp 0 issues its FADD at 57 and EXIT at
     * 58, warp 1 its FADD at 59, which completes at 63.  LRR: warp 1 first at
     * 57, warp 0 at 58: 62. */
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 63);
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 21");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 64);
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20; sched.policy = lrr");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 62);
    /* time at the barrier is classified as such */
    struct inst_source src;
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20");
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    ck_assert_uint_gt(testlib_stat(s, 0, "sm.slot.barrier"), 0);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.slot.issued"), 16);
    sim_destroy(s);
    inst_source_destroy(&src);
    /* two schedulers: warp 1 (scheduler 1) waits at the barrier from
     * cycle 1; warp 0 (scheduler 0) completes it at 37, and scheduler 1,
     * evaluated after 0 in that cycle, sees its warp released (no_inst
     * until 57), so cycles 1 .. 36 are its barrier slots: 36 */
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20; sm.subpartitions = 2");
    testlib_source(&src, &k, 1);
    s = testlib_run(&c, &src);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.slot.barrier"), 36);
    ck_assert_uint_eq(sim_kernel(s, 0)->cycles, 61);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* sm.barrier_warp_cycles: the SM's barrier unit takes one arrival every N
 * cycles and the barrier releases op.barrier.latency after the last one
 * is taken (the H100's bar_only probes: 2 cycles a warp).  Arrivals far
 * apart cost one unit time after the last (gen_barrier: warp 1 arrives at
 * 0, taken by 3; warp 0 at 37, taken by 40: release 60, not 57); close
 * ones queue (gen_barrier_first: arrivals at 0 and 1 are taken by 3 and 6:
 * release 26, not 21). */
START_TEST(test_barrier_unit_per_warp)
{
    struct sim_config c;
    struct testlib_kernel k = { "bar", 1, 64, 32, 0, gen_barrier, NULL };
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20; "
                             "sm.barrier_warp_cycles = 3");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 63 + 3);
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20; "
                             "sm.barrier_warp_cycles = 0");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 63);
    struct testlib_kernel k2 = { "bar", 1, 64, 32, 0, gen_barrier_first, NULL };
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20");
    uint64_t base = testlib_cycles(&c, &k2);
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20; "
                             "sm.barrier_warp_cycles = 3");
    ck_assert_uint_eq(testlib_cycles(&c, &k2), base + 5);
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20; "
                             "sm.barrier_warp_cycles = 2.5");
    ck_assert_uint_eq(testlib_cycles(&c, &k2), base + 4);   /* taken by 5 (2.5 + 2.5): 25 */
}
END_TEST

/* Named barriers (sim/inst.h SIM_BAR_AUX): warps 0 and 1 as gen_barrier
 * but at barrier 1 of 2 warps (warp 1 with bar.arrive when *arg is set);
 * warps 2 and 3 meet at barrier 2 of 2 warps, then an FADD. */
static int
gen_named(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const bool *arrive = arg;
    int r = warp < 2 ? gen_barrier(NULL, block, warp, k, wi)
                     : gen_barrier_first(NULL, block, warp, k, wi);
    if (r == 1 && (wi->flags & SIM_IF_BARRIER))
        wi->aux = warp < 2 ? SIM_BAR_AUX(1, 2, warp == 1 && *arrive) : SIM_BAR_AUX(2, 2, false);
    return r;
}

START_TEST(test_named_barriers)
{
    struct sim_config c;
    bool arrive = false;
    struct testlib_kernel k = { "bar", 1, 128, 32, 0, gen_named, &arrive };
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20");
    /* warps 2 and 3 do not wait for warp 0's FADDs: they arrive at 2 and
     * 3, their barrier releases at 23 and warp 3's FADD at 24 takes the
     * slot of warp 0's FADD, which runs a cycle late from there on: one
     * more than gen_barrier's 63 */
    ck_assert_uint_eq(testlib_cycles(&c, &k), 64);
    /* bar.arrive: warp 1 counts itself and goes on (FADD at 1, EXIT); warp 0
     * completes the barrier at 37 and is released at 57: FADD 57, done 61 */
    arrive = true;
    ck_assert_uint_eq(testlib_cycles(&c, &k), 61);
    /* __syncthreads (aux 0): all four wait for warp 0 until 57, then
     * issue their FADDs and exits one after another: 67 */
    struct testlib_kernel k0 = { "bar", 1, 128, 32, 0, gen_barrier, NULL };
    ck_assert_uint_eq(testlib_cycles(&c, &k0), 67);
}
END_TEST

/* Warp 0: a branch, the barrier right behind it, then an FADD; warp 1:
 * ten dependent FADDs, then the barrier.  The instruction buffer holds
 * the branch and the barrier at once, and the branch issues while the
 * barrier waits: that must not let the FADD after the barrier be fetched
 * (an execution-driven source executes what it hands out, so a load or a
 * %clock read there would run before the barrier released).  The
 * generator notes how many of warp 1's instructions had been fetched when
 * warp 0's FADD was. */
struct bar_fetch {
    uint64_t warp1_fetched;      /* instructions of warp 1 handed out so far */
    uint64_t seen;               /* ... when warp 0's instruction 2 was */
};

static int
gen_branch_barrier(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    struct bar_fetch *f = arg;
    (void)block;
    if (warp == 0) {
        if (k == 0) {
            tl_alu(wi, SIM_OPC_BRANCH, -1, -1, -1);
            wi->flags = SIM_IF_BRANCH;
        } else if (k == 1) {
            tl_barrier(wi);
        } else if (k == 2) {
            f->seen = f->warp1_fetched;
            tl_alu(wi, SIM_OPC_FP32, 5, 3, 4);
        } else if (k == 3) {
            tl_exit(wi);
        } else {
            return 0;
        }
        wi->pc = (uint32_t)k * 16;
        return 1;
    }
    if (k > 11)
        return 0;
    f->warp1_fetched = k + 1;
    if (k < 10)
        tl_alu(wi, SIM_OPC_FP32, 1, 1, 2);
    else if (k == 10)
        tl_barrier(wi);
    else
        tl_exit(wi);
    wi->pc = (uint32_t)k * 16;
    return 1;
}

START_TEST(test_no_fetch_past_a_barrier)
{
    struct sim_config c;
    struct bar_fetch f = { 0, 0 };
    struct testlib_kernel k = { "branchbar", 1, 64, 32, 0, gen_branch_barrier, &f };
    testlib_small_config(&c, "op.fp32.latency = 4; op.barrier.latency = 20");
    testlib_cycles(&c, &k);
    /* after warp 1's barrier (its 11th instruction), not before */
    ck_assert_msg(f.seen == 11, "warp 0 fetched past its barrier after %" PRIu64
                  " of warp 1's instructions", f.seen);
}
END_TEST

/* ---- memory ------------------------------------------------------------- */

struct memgen {
    uint64_t n;
    unsigned space;
    unsigned flags;
    int64_t stride;
    unsigned width;
    uint64_t per_warp;           /* address offset per warp and iteration */
};

static int
gen_mem(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct memgen *g = arg;
    if (k > g->n)
        return 0;
    if (k == g->n) {
        tl_exit(wi);
        return 1;
    }
    sim_addr_t base = 0x10000000 + (block * 64 + warp) * g->per_warp + k * g->per_warp * 64 * 1024;
    if (g->space == SIM_SPACE_SHARED)
        base = 0;
    tl_mem(wi, g->space, g->flags, (g->flags & SIM_IF_STORE) ? -1 : (int)(10 + k % 32), 2, base,
           g->stride, g->width);
    return 1;
}

START_TEST(test_bank_conflicts_cost_32x)
{
    struct sim_config c;
    struct memgen ok = { 200, SIM_SPACE_SHARED, SIM_IF_LOAD, 4, 4, 0 };
    struct memgen bad = { 200, SIM_SPACE_SHARED, SIM_IF_LOAD, 128, 4, 0 };
    struct testlib_kernel k1 = { "ok", 1, 256, 32, 0, gen_mem, &ok };
    struct testlib_kernel k2 = { "conflict", 1, 256, 32, 0, gen_mem, &bad };
    struct testlib_kernel both[2] = { k1, k2 };
    struct inst_source src;
    testlib_small_config(&c, "sm.subpartitions = 4; smem.latency = 20");
    testlib_source(&src, both, 2);
    sim *s = testlib_run(&c, &src);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.mem.shared_wavefronts"), 8 * 200);
    ck_assert_uint_eq(testlib_stat(s, 1, "sm.mem.shared_wavefronts"), 8 * 200 * 32);
    ck_assert_uint_eq(testlib_stat(s, 1, "sm.mem.bank_conflicts"), 8 * 200 * 31);
    double r = (double)sim_kernel(s, 1)->cycles / (double)sim_kernel(s, 0)->cycles;
    ck_assert_msg(r > 30.0 && r < 33.0, "conflict slowdown %.2f", r);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* Every warp chases shared memory (each load reads the register the
 * previous one wrote).  Eight warps on one scheduler and a 4-cycle load
 * pipe: a round of the eight takes 32 cycles of pipe, more than one
 * load's 20-cycle round trip.  GTO gives every free slot to the oldest
 * ready warp, so the seven older ones alone keep the pipe busy (7 x 4 >=
 * 20 + 1) and the youngest runs only when they are done; GTRR serves the
 * warps round robin after the greedy one, each once a round. */
static int
gen_chase(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const uint64_t *n = arg;
    (void)block;
    (void)warp;
    if (k > *n)
        return 0;
    if (k == *n) {
        tl_exit(wi);
        return 1;
    }
    tl_mem(wi, SIM_SPACE_SHARED, SIM_IF_LOAD, 10, 10, 0, 4, 4);
    return 1;
}

/* Transaction-barrier sync (inst.h, enum sim_sync): warp 1 runs a chain
 * of 10 dependent FP32 operations, then arrives (signal 1 of object 0);
 * warp 0 waits for that signal and adds its result.  The wait issues the
 * cycle after the arrive, and its result is ready at the later of its own
 * shared-memory access (20) and the arrive's issue + sync.arrive_latency +
 * sync.wait_latency.
 * With a syncgen (test_sync_after_copies_exact), warp 1 instead starts one
 * FP64 operation writing an accumulating register (an asynchronous copy in
 * flight: it lands op.fp64.latency later) and arrives at once with a
 * signal of kind `kind`; warp 0's wait is followed by `chain` dependent
 * FP32 operations. */
struct syncgen {
    unsigned kind, chain;
};

static int
gen_sync(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct syncgen *g = arg;
    uint64_t arrive = g != NULL ? 1 : 10, chain = g != NULL ? g->chain : 1;
    (void)block;
    if (warp == 1) {
        if (k < arrive && g != NULL)
            tl_alu(wi, SIM_OPC_FP64, (int)SIM_REG_ACC_BASE + 2, -1, -1);
        else if (k < arrive)
            tl_alu(wi, SIM_OPC_FP32, 1, 1, -1);
        else if (k == arrive) {
            tl_mem(wi, SIM_SPACE_SHARED, SIM_IF_LOAD | SIM_IF_STORE, -1, g != NULL ? -1 : 1, 0, 0,
                   8);
            wi->sync = (uint8_t)(g != NULL ? g->kind : SIM_SYNC_SIGNAL);
            wi->aux = 1;
        } else if (k == arrive + 1)
            tl_exit(wi);
        else
            return 0;
        return 1;
    }
    if (k == 0) {
        tl_mem(wi, SIM_SPACE_SHARED, SIM_IF_LOAD, 10, -1, 0, 0, 8);
        wi->sync = SIM_SYNC_WAIT;
        wi->aux = 1;
    } else if (k <= chain)
        tl_alu(wi, SIM_OPC_FP32, g != NULL ? 10 : 11, 10, -1);
    else if (k == chain + 1)
        tl_exit(wi);
    else
        return 0;
    return 1;
}

/* Cycles of gen_sync's kernel (g: NULL, or a syncgen) under config text. */
static uint64_t
sync_kernel_cycles(const struct syncgen *g, const char *text)
{
    struct testlib_kernel k = { "sync", 1, 64, 32, 0, gen_sync, (void *)(uintptr_t)g };
    struct sim_config c;
    testlib_small_config(&c, text);
    return testlib_cycles(&c, &k);
}

static uint64_t
sync_cycles(unsigned arrive, unsigned wait)
{
    char cfg[160];
    snprintf(cfg, sizeof cfg, "smem.latency = 20; sync.arrive_latency = %u; sync.wait_latency = %u",
             arrive, wait);
    return sync_kernel_cycles(NULL, cfg);
}

START_TEST(test_sync_wait_exact)
{
    uint64_t base = sync_cycles(0, 0);
    /* the arrive issues at 40 (ten 4-cycle FP32 steps) and holds the LDST
     * pipe 4 cycles (32 lanes, 8 a cycle): the wait issues at 44, its
     * access is back at 64, the FADD done at 68 */
    ck_assert_uint_eq(base, 68);
    ck_assert_uint_eq(sync_cycles(23, 0), base);       /* 40 + 23 < 64 */
    ck_assert_uint_eq(sync_cycles(24, 0), base);       /* 40 + 24 = 64 */
    ck_assert_uint_eq(sync_cycles(25, 0), base + 1);   /* the signal is later */
    ck_assert_uint_eq(sync_cycles(100, 0), base + 76);
    ck_assert_uint_eq(sync_cycles(100, 10), base + 86);
    ck_assert_uint_eq(sync_cycles(0, 30), base + 6);   /* 40 + 30 = 70 */
}
END_TEST

/* A signal after the warp's copies (inst.h SIM_SYNC_SIGNAL_ASYNC), with
 * gen_sync's syncgen: a plain signal is done sync.arrive_latency after
 * the arrive issues, whatever the copy; one after the copies not before
 * the copy has landed either. */
static uint64_t
sync_async_cycles(unsigned kind, unsigned copy)
{
    struct syncgen g = { kind, 20 };
    char cfg[200];
    snprintf(cfg, sizeof cfg, "smem.latency = 20; sync.arrive_latency = 30; sync.wait_latency = 0; "
             "op.fp32.latency = 4; op.fp64.latency = %u", copy);
    return sync_kernel_cycles(&g, cfg);
}

START_TEST(test_sync_after_copies_exact)
{
    /* the wait's result: the arrive's issue + 30 at the earliest; then 80
     * cycles of FP32.  A plain signal: the same for every copy latency up
     * to the end (warp 1's copy then ends the kernel) */
    uint64_t plain = sync_async_cycles(SIM_SYNC_SIGNAL, 10);
    ck_assert_uint_eq(sync_async_cycles(SIM_SYNC_SIGNAL, 60), plain);
    ck_assert_uint_eq(sync_async_cycles(SIM_SYNC_SIGNAL_ASYNC, 10), plain);
    /* after the copy: the copy issues one cycle before the arrive, so a
     * copy of up to 31 cycles lands no later than the arrive's 30 */
    ck_assert_uint_eq(sync_async_cycles(SIM_SYNC_SIGNAL_ASYNC, 31), plain);
    ck_assert_uint_eq(sync_async_cycles(SIM_SYNC_SIGNAL_ASYNC, 32), plain + 1);
    ck_assert_uint_eq(sync_async_cycles(SIM_SYNC_SIGNAL_ASYNC, 60), plain + 29);
    ck_assert_uint_eq(sync_async_cycles(SIM_SYNC_SIGNAL_ASYNC, 200), plain + 169);
}
END_TEST

/* Warpgroup MMAs (sim/inst.h SIM_OPC_WGMMA): nmma of N columns (A in
 * shared memory or not) written to one accumulating register, then a wait
 * reading it (class nop: it holds fetch) and a dependent FADD. */
struct wggen {
    unsigned n, nmma;
    bool a_shared;
};

static int
gen_wgmma(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct wggen *g = arg;
    const int acc = (int)SIM_REG_ACC_BASE + 40;
    (void)block;
    (void)warp;
    if (k < g->nmma) {
        tl_alu(wi, SIM_OPC_WGMMA, acc, -1, -1);
        wi->aux = g->n | (g->a_shared ? SIM_WGMMA_A_SHARED : 0);
    } else if (k == g->nmma) {
        tl_alu(wi, SIM_OPC_NOP, -1, acc, -1);
    } else if (k == g->nmma + 1) {
        tl_alu(wi, SIM_OPC_FP32, 1, -1, -1);
    } else if (k == g->nmma + 2) {
        tl_exit(wi);
    } else {
        return 0;
    }
    return 1;
}

static uint64_t
wgmma_cycles(unsigned n, unsigned nmma, bool a_shared, unsigned warps, const char *extra)
{
    struct wggen g = { n, nmma, a_shared };
    struct testlib_kernel k = { "wgmma", 1, 32 * warps, 32, 0, gen_wgmma, &g };
    struct sim_config c;
    char cfg[256];
    snprintf(cfg, sizeof cfg, "op.wgmma.interval = 4; op.wgmma.latency = 38; op.nop.latency = 1; "
             "op.fp32.latency = 4; smem.wgmma_bytes_per_cycle = 128; %s", extra);
    testlib_small_config(&c, cfg);
    return testlib_cycles(&c, &k);
}

/* One m64nNk warp quarter is ready 16 (A's 2 KB at 128 B a cycle) + N / 8
 * intervals of 4 + 38 cycles after it issues; a second queues behind the
 * first on the tensor core; the tiles of two warps' MMAs share the SM's
 * shared-memory bandwidth. */
START_TEST(test_wgmma_exact)
{
    uint64_t base = wgmma_cycles(64, 1, true, 1, "");
    /* issue 0, ready 16 + 32 + 38 = 86; the wait issues at 86, the FADD
     * at 87, done at 91 */
    ck_assert_uint_eq(base, 91);
    ck_assert_uint_eq(wgmma_cycles(64, 1, false, 1, ""), base - 16);   /* A in registers */
    ck_assert_uint_eq(wgmma_cycles(128, 1, true, 1, ""), base + 32);   /* 8 intervals more */
    ck_assert_uint_eq(wgmma_cycles(64, 1, true, 1, "op.wgmma.latency = 39"), base + 1);
    ck_assert_uint_eq(wgmma_cycles(64, 1, true, 1, "op.wgmma.interval = 5"), base + 8);
    /* a second starts when the first's 32 cycles on the tensor core end */
    ck_assert_uint_eq(wgmma_cycles(64, 2, true, 1, ""), base + 32);
    /* m64n8 at 32 B a cycle: A's 2 KB take 64 before the tensor core's 4;
     * a warp's second MMA issues when its first starts (64: one queued at
     * a time) and waits for A's 64 again */
    ck_assert_uint_eq(wgmma_cycles(8, 1, true, 1, "smem.wgmma_bytes_per_cycle = 32"),
                      64 + 4 + 38 + 5);
    ck_assert_uint_eq(wgmma_cycles(8, 2, true, 1, "smem.wgmma_bytes_per_cycle = 32"),
                      64 + 64 + 4 + 38 + 5);
    /* two warps on one scheduler: the second's tiles (576 bytes, 18
     * cycles) queue behind the first's; then its A (64): start 82, after
     * the first's 4 on the tensor core */
    ck_assert_uint_eq(wgmma_cycles(8, 1, true, 2, "smem.wgmma_bytes_per_cycle = 32"),
                      18 + 64 + 4 + 38 + 5);
}
END_TEST

START_TEST(test_gtrr_does_not_starve_a_warp)
{
    uint64_t n = 100;
    struct testlib_kernel k = { "chase", 1, 256, 32, 0, gen_chase, &n };
    struct sim_config c;
    testlib_small_config(&c, "pipe.ldst.lanes = 8; smem.latency = 20; sched.policy = gtrr");
    uint64_t gtrr = testlib_cycles(&c, &k);
    testlib_small_config(&c, "pipe.ldst.lanes = 8; smem.latency = 20; sched.policy = gto");
    uint64_t gto = testlib_cycles(&c, &k);
    ck_assert_uint_eq(gtrr, 99 * 32 + 28 + 20);  /* the last round: warp 7 issues at +28 */
    ck_assert_uint_eq(gto, 4008);   /* the youngest issues only in slots the older seven leave */
}
END_TEST

START_TEST(test_coalescing_sectors)
{
    struct sim_config c;
    struct memgen co = { 10, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 4, 4, 128 };
    struct memgen st = { 10, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 128, 4, 4096 };
    struct testlib_kernel k1 = { "coalesced", 1, 32, 32, 0, gen_mem, &co };
    struct testlib_kernel k2 = { "strided", 1, 32, 32, 0, gen_mem, &st };
    struct testlib_kernel both[2] = { k1, k2 };
    struct inst_source src;
    testlib_small_config(&c, NULL);
    testlib_source(&src, both, 2);
    sim *s = testlib_run(&c, &src);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.mem.load_sectors"), 10 * 4);
    ck_assert_uint_eq(testlib_stat(s, 1, "sm.mem.load_sectors"), 10 * 32);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.mem.global_loads"), 10);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

START_TEST(test_load_use_latency_exact)
{
    /* a load then a dependent FADD: the FADD waits for the data */
    struct sim_config c;
    struct memgen g = { 1, SIM_SPACE_SHARED, SIM_IF_LOAD, 4, 4, 0 };
    struct testlib_kernel k = { "lds", 1, 32, 32, 0, gen_mem, &g };
    testlib_small_config(&c, "smem.latency = 23");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 23);
    g.space = SIM_SPACE_GLOBAL;
    testlib_small_config(&c, "dram.latency = 450; l2.hit_latency = 200");
    ck_assert_uint_eq(testlib_cycles(&c, &k), 450);
}
END_TEST

/* ---- accumulating registers (sim/types.h) --------------------------------- */

struct accgen {
    unsigned first_space, second_space; /* the two loads' spaces */
    int reg;                     /* the register both write ... */
    int reg2;                    /* ... unless >= 0: the second load's, which the reader reads */
};

static int
gen_acc(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct accgen *g = arg;
    (void)block;
    (void)warp;
    switch (k) {
    case 0:
    case 1: {
        unsigned sp = k == 0 ? g->first_space : g->second_space;
        sim_addr_t base = sp == SIM_SPACE_SHARED ? 0 : 0x10000000 + k * 4096;
        tl_mem(wi, sp, SIM_IF_LOAD, k == 1 && g->reg2 >= 0 ? g->reg2 : g->reg, 2, base, 4, 4);
        return 1;
    }
    case 2:
        tl_alu(wi, SIM_OPC_FP32, 3, g->reg2 >= 0 ? g->reg2 : g->reg, -1);   /* reads it */
        return 1;
    case 3:
        tl_exit(wi);
        return 1;
    default:
        return 0;
    }
}

/* Two loads in flight write one accumulating register: the second issues
 * at once (no WAW stall) and the reader waits for the later completion,
 * whichever load was first; an ordinary register waits for the first
 * load's write before the second load may issue. */
START_TEST(test_accumulating_registers)
{
    struct sim_config c;
    testlib_small_config(&c, "dram.latency = 450; l2.hit_latency = 200; smem.latency = 23;"
                         "op.fp32.latency = 4");
    const int acc = (int)SIM_REG_ACC_BASE + 5;
    /* global (450) then shared (issued at 1, ready 24): the reader at 450 */
    struct accgen g = { SIM_SPACE_GLOBAL, SIM_SPACE_SHARED, acc, -1 };
    struct testlib_kernel k = { "acc", 1, 32, 32, 0, gen_acc, &g };
    ck_assert_uint_eq(testlib_cycles(&c, &k), 450 + 4);
    /* shared (ready 23) then global, issued at 1: the reader waits for the
     * global load, exactly as when the loads write two registers and it
     * reads the global one's */
    g = (struct accgen){ SIM_SPACE_SHARED, SIM_SPACE_GLOBAL, 8, 9 };
    uint64_t want = testlib_cycles(&c, &k);
    ck_assert_uint_ge(want, 451 + 4);
    g = (struct accgen){ SIM_SPACE_SHARED, SIM_SPACE_GLOBAL, acc, -1 };
    ck_assert_uint_eq(testlib_cycles(&c, &k), want);
    /* an ordinary register: the shared load waits for the global one's
     * write (450), is ready at 473; its reader at 473 */
    g = (struct accgen){ SIM_SPACE_GLOBAL, SIM_SPACE_SHARED, 7, -1 };
    ck_assert_uint_eq(testlib_cycles(&c, &k), 450 + 23 + 4);
}
END_TEST

/* ---- occupancy: blocks resident per SM ---------------------------------- */

static uint64_t
waves(const char *cfgtext, uint32_t regs, uint32_t smem, uint32_t blocks, uint32_t *bps)
{
    struct sim_config c;
    struct chain ch = { 100, SIM_OPC_FP32, true, 0, 0 };
    struct testlib_kernel k = { "waves", blocks, 256, regs, smem, gen_chain, &ch };
    struct inst_source src;
    char text[512];
    snprintf(text, sizeof text, "sm.subpartitions = 4; op.fp32.latency = 32; %s", cfgtext);
    testlib_small_config(&c, text);
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    uint64_t cycles = sim_kernel(s, 0)->cycles;
    *bps = sim_kernel(s, 0)->occ.blocks_per_sm;
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.blocks"), blocks);
    sim_destroy(s);
    inst_source_destroy(&src);
    return cycles;
}

START_TEST(test_blocks_resident_match_occupancy)
{
    static const struct {
        const char *cfg;
        uint32_t regs, smem, want;
    } cases[] = {
        { "sm.max_threads = 1024", 32, 0, 4 },              /* threads */
        { "sm.max_blocks = 3", 32, 0, 3 },                  /* block slots */
        { "", 128, 0, 2 },                                  /* registers */
        { "sm.smem_size = 131072; sm.smem_per_block = 131072", 32, 40 * 1024, 3 }, /* smem */
        { "sm.max_warps = 40; sm.max_threads = 1280", 32, 0, 5 }, /* warps */
    };
    const uint64_t t = 100 * 32;
    for (unsigned i = 0; i < SIM_ARRAY_LEN(cases); i++) {
        uint32_t b;
        uint64_t one = waves(cases[i].cfg, cases[i].regs, cases[i].smem, cases[i].want, &b);
        ck_assert_uint_eq(b, cases[i].want);
        ck_assert_msg(one < t + t / 10, "case %u: %u blocks took %" PRIu64 " cycles", i,
                      cases[i].want, one);
        uint64_t two = waves(cases[i].cfg, cases[i].regs, cases[i].smem, cases[i].want + 1, &b);
        ck_assert_msg(two > 2 * t - t / 10, "case %u: %u blocks took %" PRIu64 " cycles", i,
                      cases[i].want + 1, two);
    }
}
END_TEST

/* ---- bandwidth -------------------------------------------------------- */

static double
copy_bw(unsigned sms)
{
    struct sim_config c;
    char text[512];
    struct memgen g = { 64, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 4, 4, 128 };
    struct testlib_kernel k = { "stream", sms * 2, 512, 32, 0, gen_mem, &g };
    struct inst_source src;
    snprintf(text, sizeof text,
             "sm.count = %u; sm.subpartitions = 4; dram.bandwidth_gbps = 128; dram.latency = 500;"
             "l2.hit_latency = 200; l2.size_kb = 1024; l2.slices = 8; dram.channels = 8;"
             "l2.bytes_per_cycle = 64", sms);
    testlib_small_config(&c, text);
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    double bw = (double)testlib_stat(s, 0, "dram.read_bytes") / (double)sim_kernel(s, 0)->cycles;
    sim_destroy(s);
    inst_source_destroy(&src);
    return bw;
}

START_TEST(test_copy_bandwidth_scales_and_saturates)
{
    double b1 = copy_bw(1), b2 = copy_bw(2), b4 = copy_bw(4), b8 = copy_bw(8), b16 = copy_bw(16);
    ck_assert_msg(b2 > 1.6 * b1, "1 SM %.1f, 2 SMs %.1f B/cycle", b1, b2);
    ck_assert_msg(b4 > b2, "2 SMs %.1f, 4 SMs %.1f B/cycle", b2, b4);
    ck_assert_msg(b16 <= 128.5 && b16 > 0.85 * 128, "16 SMs %.1f of 128 B/cycle", b16);
    ck_assert_msg(fabs(b16 - b8) < 0.12 * b16, "8 SMs %.1f, 16 SMs %.1f B/cycle", b8, b16);
}
END_TEST

/* ---- two-level scheduling -------------------------------------------- */

/* Even warps: (BAR,) EXIT at once; odd warps: 20 dependent loads first.  With
 * an active set of 2, the short warps fill it while the long ones wait on
 * memory and are demoted. */
static int
gen_uneven(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    bool bar = arg != NULL;
    uint64_t loads = warp % 2 ? 20 : 0, n = loads + (bar ? 1 : 0);
    (void)block;
    if (k > n)
        return 0;
    if (k < loads)
        tl_mem(wi, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 10, 10, 0x100000 + (warp * 64 + k) * 4096, 4, 4);
    else if (k < n)
        tl_barrier(wi);
    else
        tl_exit(wi);
    return 1;
}

START_TEST(test_two_level_drained_and_barrier_warps_leave_the_active_set)
{
    /* a drained warp, or one at a barrier the pending warps must reach,
     * cannot issue again: it gives its active slot up (both deadlocked when
     * only memory stalls demoted) */
    for (int bar = 0; bar < 2; bar++) {
        struct sim_config c;
        struct inst_source src;
        struct testlib_kernel k = { "uneven", 2, 256, 32, 0, gen_uneven, bar ? &c : NULL };
        testlib_small_config(&c, "sched.policy = two_level; sched.active_warps = 2");
        testlib_source(&src, &k, 1);
        sim *s = testlib_run(&c, &src);
        ck_assert_uint_eq(testlib_stat(s, 0, "sm.warp_insts"), 2 * (8 + 4 * 20 + (bar ? 8 : 0)));
        ck_assert_uint_gt(testlib_stat(s, 0, "sm.slot.memory"), 0);
        sim_destroy(s);
        inst_source_destroy(&src);
    }
}
END_TEST

/* ---- the scheduler's shortcut against its plain form ------------------ */

/* A pseudo-random but deterministic stream per (block, warp): ALU chains and
 * independent ALU, SFU, loads, shared loads, stores, a barrier at a fixed
 * step (every warp of a block reaches it), warps of different lengths. */
static int
gen_mix(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)arg;
    uint64_t len = 30 + (block * 7 + warp * 13) % 40;
    if (k > len)
        return 0;
    if (k == len) {
        tl_exit(wi);
        return 1;
    }
    if (k == 12) {
        tl_barrier(wi);
        return 1;
    }
    uint64_t h = (block * 0x9e3779b97f4a7c15u) ^ (warp * 0xbf58476d1ce4e5b9u) ^ (k * 0x94d049bb133111ebu);
    h ^= h >> 29;
    int r = (int)(10 + h % 8), a = (int)(10 + (h >> 8) % 8);
    switch ((h >> 16) % 7) {
    case 0:
    case 1:
        tl_alu(wi, SIM_OPC_FP32, r, a, -1);
        break;
    case 2:
        tl_alu(wi, SIM_OPC_INT, r, 2, -1);
        break;
    case 3:
        tl_alu(wi, SIM_OPC_SFU, r, a, -1);
        break;
    case 4:
        tl_mem(wi, SIM_SPACE_GLOBAL, SIM_IF_LOAD, r, 2,
               0x100000 + (block * 64 + warp) * 4096 + k * 128, 4, 4);
        break;
    case 5:
        tl_mem(wi, SIM_SPACE_SHARED, SIM_IF_LOAD, r, 2, (h >> 24) % 64 * 4, (int64_t)((h >> 32) % 3) * 4, 4);
        break;
    default:
        tl_mem(wi, SIM_SPACE_GLOBAL, SIM_IF_STORE, -1, a, 0x800000 + (block * 64 + warp) * 128, 4, 4);
        break;
    }
    return 1;
}

START_TEST(test_reference_scheduler_same_results)
{
    /* sim.reference_scheduler walks every warp each evaluation; the model's
     * shortcut (waiting-warp masks, lazy slots) must give the same figures */
    static const char *const counters[] = {
        "sm.warp_insts", "sm.slot.issued", "sm.slot.no_inst", "sm.slot.scoreboard",
        "sm.slot.memory", "sm.slot.pipe_busy", "sm.slot.barrier", "sm.slot.idle",
        "sm.active_cycles", "sm.warp_cycles", "sm.l1.hits", "sm.l1.misses", "l2.read_sectors"
    };
    static const char *const cfgs[] = {
        "sm.count = 2; sm.subpartitions = 4; sched.policy = gto",
        "sm.count = 2; sm.subpartitions = 4; sched.policy = lrr",
        "sm.count = 1; sm.subpartitions = 2; sched.policy = gto; sm.dispatch_units = 2",
        "sm.count = 3; sm.subpartitions = 1; sched.policy = lrr; sm.max_blocks = 2",
        "sm.count = 2; sm.subpartitions = 4; sched.policy = gto; sched.lookahead = 8",
        "sm.count = 2; sm.subpartitions = 4; sched.policy = gtrr",
        "sm.count = 1; sm.subpartitions = 2; sched.policy = gtrr; sm.dispatch_units = 2",
        /* the mix's SFU operations on a 2-lane DPU that holds its scheduler */
        "sm.count = 2; sm.subpartitions = 2; sched.policy = gto; sm.dispatch_units = 2; "
        "op.sfu.pipe = dpu; pipe.dpu.lanes = 2; pipe.dpu.holds_issue = true",
        "sm.count = 1; sm.subpartitions = 4; sched.policy = lrr; "
        "op.sfu.pipe = dpu; pipe.dpu.lanes = 1; pipe.dpu.holds_issue = true",
    };
    unsigned compared = 0;
    for (unsigned c = 0; c < SIM_ARRAY_LEN(cfgs); c++) {
        uint64_t want[SIM_ARRAY_LEN(counters) + 1];
        for (int ref = 0; ref < 2; ref++) {
            struct sim_config cfg;
            struct inst_source src;
            char text[320];
            struct testlib_kernel k = { "mix", 9, 160, 32, 0, gen_mix, NULL };
            snprintf(text, sizeof text, "%s; sim.reference_scheduler = %s", cfgs[c],
                     ref ? "true" : "false");
            testlib_small_config(&cfg, text);
            testlib_set_isa(strstr(cfgs[c], "lookahead") ? SIM_ISA_PTX : 0);
            testlib_source(&src, &k, 1);
            sim *s = testlib_run(&cfg, &src);
            testlib_set_isa(0);
            for (unsigned i = 0; i <= SIM_ARRAY_LEN(counters); i++) {
                uint64_t v = i < SIM_ARRAY_LEN(counters) ? testlib_stat(s, 0, counters[i])
                                                         : sim_kernel(s, 0)->cycles;
                if (ref == 0)
                    want[i] = v;
                else
                    ck_assert_msg(v == want[i], "%s: %s %" PRIu64 " (reference) vs %" PRIu64,
                                  cfgs[c], i < SIM_ARRAY_LEN(counters) ? counters[i] : "cycles",
                                  v, want[i]);
            }
            sim_destroy(s);
            inst_source_destroy(&src);
        }
        compared++;
    }
    ck_assert_uint_eq(compared, SIM_ARRAY_LEN(cfgs));
}
END_TEST

/* ---- accounting and robustness ----------------------------------------- */

/* An instruction writing no register, then EXIT: the block is done (and
 * retires) in the cycle of its last issue. */
static int
gen_short(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)arg;
    (void)block;
    (void)warp;
    if (k == 0)
        tl_alu(wi, SIM_OPC_INT, -1, 1, -1);
    else if (k == 1)
        tl_exit(wi);
    return k < 2;
}

/* The scheduler-cycles of kernel 0 over every slot classification. */
static uint64_t
slot_sum(sim *s)
{
    static const char *const slots[] = { "issued", "no_inst", "scoreboard", "memory",
                                         "pipe_busy", "barrier", "idle" };
    uint64_t sum = 0;
    for (unsigned i = 0; i < SIM_ARRAY_LEN(slots); i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "sm.slot.%s", slots[i]);
        sum += testlib_stat(s, 0, nm);
    }
    return sum;
}

START_TEST(test_every_slot_classified_once)
{
    struct sim_config c;
    struct memgen g = { 50, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 4, 4, 128 };
    struct testlib_kernel k = { "mix", 7, 192, 32, 0, gen_mem, &g };
    struct inst_source src;
    testlib_small_config(&c, "sm.count = 3; sm.subpartitions = 4");
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    uint64_t sum = slot_sum(s);
    ck_assert_uint_eq(sum, sim_kernel(s, 0)->cycles * 4 * 3);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.slot.issued"), testlib_stat(s, 0, "sm.warp_insts"));
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.warp_insts"), 7 * 6 * 51);
    ck_assert_uint_gt(testlib_stat(s, 0, "sm.slot.memory"), 0);
    sim_destroy(s);
    inst_source_destroy(&src);

    /* many waves of short blocks: a block retires (and the next launches)
     * in a cycle its SM has already ticked; the SM is evaluated again only
     * at the next cycle (it was evaluated twice, counting the cycle twice) */
    struct testlib_kernel k2 = { "waves", 400, 64, 32, 0, gen_short, NULL };
    testlib_small_config(&c, "sm.count = 2; sm.subpartitions = 4; sm.max_blocks = 4");
    testlib_source(&src, &k2, 1);
    s = testlib_run(&c, &src);
    sum = slot_sum(s);
    ck_assert_uint_eq(sum, sim_kernel(s, 0)->cycles * 4 * 2);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.slot.issued"), 400 * 2 * 2);
    sim_destroy(s);
    inst_source_destroy(&src);

    /* a DPU that holds its scheduler: the held cycles are pipe_busy, once */
    uint64_t n64 = 20;
    struct testlib_kernel k3 = { "alt64", 24, 128, 32, 0, gen_alt64, &n64 };
    testlib_small_config(&c, "sm.count = 2; sm.subpartitions = 4; pipe.dpu.lanes = 2; "
                             "pipe.dpu.holds_issue = true");
    testlib_source(&src, &k3, 1);
    s = testlib_run(&c, &src);
    sum = slot_sum(s);
    ck_assert_uint_eq(sum, sim_kernel(s, 0)->cycles * 4 * 2);
    ck_assert_uint_eq(testlib_stat(s, 0, "sm.slot.issued"), testlib_stat(s, 0, "sm.warp_insts"));
    ck_assert_uint_gt(testlib_stat(s, 0, "sm.slot.pipe_busy"), 24 * 4 * 20 * 15 / 2);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

static int
gen_fail(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)arg;
    (void)block;
    (void)warp;
    if (k == 3) {
        memset(wi, 0, sizeof *wi);
        wi->opclass = 200;          /* invalid: the model rejects it */
        return 1;
    }
    tl_alu(wi, SIM_OPC_INT, 1, 2, -1);
    return k < 10;
}

/* Run k and expect sim_run to fail with code and a message containing frag. */
static void
expect_run_error(const struct testlib_kernel *k, int code, const char *frag)
{
    struct sim_config c;
    struct inst_source src;
    struct sim_error err = { 0 };
    testlib_small_config(&c, NULL);
    testlib_source(&src, k, 1);
    sim *s = sim_new(&c);
    ck_assert_int_eq(sim_run(s, &src, &err), code);
    ck_assert_msg(strstr(err.msg, frag) != NULL, "message: %s", err.msg);
    sim_destroy(s);
    inst_source_destroy(&src);
}

START_TEST(test_bad_instruction_is_an_error)
{
    struct testlib_kernel k = { "bad", 1, 32, 32, 0, gen_fail, NULL };
    expect_run_error(&k, SIM_ERR_FORMAT, "malformed instruction");
}
END_TEST

START_TEST(test_kernel_that_cannot_launch)
{
    struct chain ch = { 1, SIM_OPC_FP32, true, 0, 0 };
    struct testlib_kernel k = { "huge", 1, 1024, 255, 0, gen_chain, &ch };
    expect_run_error(&k, SIM_ERR_FORMAT, "registers");
}
END_TEST

/* A kernel compiled for a larger register file runs with the GPU's limit
 * (the occupancy follows the clamped count) and the result says so. */
START_TEST(test_registers_clamped_to_the_limit)
{
    struct sim_config c;
    struct chain ch = { 4, SIM_OPC_FP32, true, 0, 0 };
    struct testlib_kernel k = { "big", 8, 256, 200, 0, gen_chain, &ch };
    struct inst_source src;
    testlib_small_config(&c, "sm.max_regs_per_thread = 63; sm.registers = 65536");
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    const struct sim_kernel_result *kr = sim_kernel(s, 0);
    ck_assert_uint_eq(kr->regs_requested, 200);
    ck_assert_uint_eq(kr->ki.regs_per_thread, 63);
    ck_assert_uint_eq(kr->occ.limiter, OCC_LIMIT_REGISTERS);
    ck_assert_uint_eq(kr->occ.blocks_per_sm, 65536 / (64 * 256));   /* 63 -> 64 allocated */
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* Slow progress is not a stuck model: an SM whose warp waits 100,000
 * cycles for each result sleeps until it comes, however small the
 * watchdog (it counts evaluations without an issue, not cycles; it once
 * stopped legal configurations such as dram.bandwidth_gbps = 0.1 with
 * exit 3). */
START_TEST(test_watchdog_tolerates_slow_progress)
{
    ck_assert_uint_eq(chain_cycles("op.fp32.latency = 100000; sim.watchdog_cycles = 1000", 3,
                                   SIM_OPC_FP32, true), 300000);
}
END_TEST

START_TEST(test_max_cycles_truncates)
{
    struct sim_config c;
    struct chain ch = { 1000, SIM_OPC_FP32, true, 0, 0 };
    struct testlib_kernel k = { "long", 4, 32, 32, 0, gen_chain, &ch };
    struct inst_source src;
    testlib_small_config(&c, "op.fp32.latency = 4; sim.max_cycles = 500");
    testlib_source(&src, &k, 1);
    sim *s = testlib_run(&c, &src);
    ck_assert(sim_kernel(s, 0)->truncated);
    ck_assert_uint_eq(sim_kernel(s, 0)->cycles, 500);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* ---- instruction supply: taken branches and the PTX issue window ------- */

struct loop {
    uint64_t iters;              /* ALU + branch pairs before EXIT */
    bool taken;                  /* branches jump back (else fall through) */
};

/* iters x { independent INT at pc A, branch at A + 16 }, then EXIT at the
 * last branch's fall-through.  Looping: A stays 0x100, so every branch but
 * the last is taken; straight: A advances by 32, so every branch falls through. */
static int
gen_loop(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const struct loop *l = arg;
    (void)block;
    (void)warp;
    uint64_t it = k / 2;
    uint32_t a = 0x100 + (l->taken ? 0 : (uint32_t)it * 32);
    if (it > l->iters)
        return 0;
    if (it == l->iters) {
        if (k % 2)
            return 0;
        tl_exit(wi);
        wi->pc = (l->taken ? 0x100 + 32 : a);
        return 1;
    }
    if (k % 2 == 0) {
        tl_alu(wi, SIM_OPC_INT, (int)(10 + it % 100), 1, 2);
        wi->pc = a;
    } else {
        tl_alu(wi, SIM_OPC_BRANCH, -1, -1, -1);
        wi->flags = SIM_IF_BRANCH;
        wi->pc = a + 16;
    }
    return 1;
}

static uint64_t
loop_cycles(uint64_t iters, bool taken, unsigned penalty)
{
    struct sim_config c;
    struct loop l = { iters, taken };
    struct testlib_kernel k = { "loop", 1, 32, 32, 0, gen_loop, &l };
    char cfg[160];
    snprintf(cfg, sizeof cfg, "op.int.latency = 4; op.branch.latency = 4;"
             "sched.taken_branch_penalty = %u", penalty);
    testlib_small_config(&c, cfg);
    return testlib_cycles(&c, &k);
}

START_TEST(test_taken_branch_penalty_exact)
{
    /* without a penalty: INT, branch, 4 cycles to the next INT: 5 per iteration */
    uint64_t base10 = loop_cycles(10, true, 0), base11 = loop_cycles(11, true, 0);
    ck_assert_uint_eq(base11 - base10, 5);
    ck_assert_uint_eq(loop_cycles(10, false, 0), base10);
    for (unsigned p = 1; p <= 14; p += 13) {
        /* each taken branch (all but the last) costs exactly p more ... */
        ck_assert_uint_eq(loop_cycles(10, true, p), base10 + 9 * p);
        ck_assert_uint_eq(loop_cycles(11, true, p) - loop_cycles(10, true, p), 5 + p);
        /* ... and a branch that falls through nothing */
        ck_assert_uint_eq(loop_cycles(10, false, p), base10);
    }
}
END_TEST

/* SFU r1 <- r1 (20 cycles), FP32 r3 <- r1 and FP32 r4 <- r3 (a dependent pair),
 * then n independent FP32, EXIT. */
static int
gen_shadow(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    const uint64_t *n = arg;
    (void)block;
    (void)warp;
    if (k == 0)
        tl_alu(wi, SIM_OPC_SFU, 1, 1, -1);
    else if (k == 1)
        tl_alu(wi, SIM_OPC_FP32, 3, 1, -1);
    else if (k == 2)
        tl_alu(wi, SIM_OPC_FP32, 4, 3, -1);
    else if (k < 3 + *n)
        tl_alu(wi, SIM_OPC_FP32, (int)(10 + k), 5, 6);
    else if (k == 3 + *n)
        tl_exit(wi);
    else
        return 0;
    return 1;
}

static uint64_t
shadow_cycles(uint64_t n, unsigned lookahead, unsigned isa)
{
    struct sim_config c;
    struct testlib_kernel k = { "shadow", 1, 32, 32, 0, gen_shadow, &n };
    char cfg[160];
    testlib_set_isa(isa);
    snprintf(cfg, sizeof cfg, "op.sfu.latency = 20; op.fp32.latency = 4; op.branch.latency = 1;"
             "sched.lookahead = %u", lookahead);
    testlib_small_config(&c, cfg);
    uint64_t cycles = testlib_cycles(&c, &k);
    testlib_set_isa(0);
    return cycles;
}

/* A stalled head, then one instruction of each hazard against the older
 * ones, then an independent one: k0 SFU r1 <- r1 (20 cycles); k1 r3 <- r1
 * (RAW on k0: waits); k2 r7 <- r3 (RAW on k1); k3 r5 <- r8 (independent:
 * passes); k4 r1 <- r8 (WAW on k0, WAR on k1); k5 r8 <- r9 (WAR on k3's and
 * k4's r8: may not pass k4); k6 r9 <- r10 (WAR on k5); k7 r20 <- r21
 * (independent); EXIT. */
static int
gen_hazards(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    static const int ops[][3] = { { 1, 1, -1 }, { 3, 1, -1 }, { 7, 3, -1 }, { 5, 8, -1 },
                                  { 1, 8, -1 }, { 8, 9, -1 }, { 9, 10, -1 }, { 20, 21, -1 } };
    (void)arg;
    (void)block;
    (void)warp;
    if (k < SIM_ARRAY_LEN(ops))
        tl_alu(wi, k == 0 ? SIM_OPC_SFU : SIM_OPC_FP32, ops[k][0], ops[k][1], ops[k][2]);
    else if (k == SIM_ARRAY_LEN(ops))
        tl_exit(wi);
    else
        return 0;
    return 1;
}

static void
record_issue(void *ctx, uint32_t sm, uint32_t sched, sim_cycle_t cycle, const struct warp_inst *wi)
{
    (void)sm;
    (void)sched;
    sim_cycle_t *at = ctx;
    at[wi->pc / 16] = cycle;
}

/* Run one warp of gen's PTX-like stream with the given window (SFU 20
 * cycles, FP32 4, then the settings in extra, if any); at[k] = the issue
 * cycle of instruction k. */
static void
lookahead_issue_cycles(testlib_gen_fn gen, unsigned lookahead, sim_cycle_t *at, const char *extra)
{
    struct sim_config c;
    struct inst_source src;
    struct sim_error err = { 0 };
    struct testlib_kernel k = { "lookahead", 1, 32, 32, 0, gen, NULL };
    struct sim_observer ob = { .on_issue = record_issue, .ctx = at };
    char cfg[256];
    snprintf(cfg, sizeof cfg, "op.sfu.latency = 20; op.fp32.latency = 4; sched.lookahead = %u; %s",
             lookahead, extra ? extra : "");
    testlib_set_isa(SIM_ISA_PTX);
    testlib_small_config(&c, cfg);
    testlib_source(&src, &k, 1);
    sim *s = sim_new(&c);
    sim_set_observer(s, &ob);
    ck_assert_int_eq(sim_run(s, &src, &err), SIM_OK);
    testlib_set_isa(0);
    sim_destroy(s);
    inst_source_destroy(&src);
}

START_TEST(test_lookahead_respects_every_hazard)
{
    sim_cycle_t at[16] = { 0 };
    lookahead_issue_cycles(gen_hazards, 16, at, NULL);
    /* k0 at 0; k3 and k7 pass the stalled k1 in its shadow; k4 may not pass
     * k1 (WAR) nor k0 (WAW); k5 may not pass k4 or k3 (WAR on r8); k6 not k5 */
    ck_assert_uint_eq(at[0], 0);
    ck_assert_uint_eq(at[1], 20);
    ck_assert_uint_lt(at[3], at[1]);
    ck_assert_uint_lt(at[7], at[1]);
    ck_assert_uint_gt(at[4], at[1]);
    ck_assert_uint_gt(at[5], at[4]);
    ck_assert_uint_gt(at[5], at[3]);
    ck_assert_uint_gt(at[6], at[5]);
    ck_assert_uint_gt(at[2], at[1]);
}
END_TEST

/* The window's candidates (entries free of dependences on older ones)
 * are cached while a warp waits; an issue must refresh them.  k0 SFU r1
 * (20 cycles); k1 r3 <- r1 waits for it; k2, k3, k4 read r3 (RAW on k1);
 * k5 r7 <- r8 is independent; EXIT.  With a window of 4, k1..k4 wait
 * together (no candidate but k1) until k1 issues at 20; then the window
 * is k2..k5 and k5 passes the stalled k2 at 21 (a stale cache would keep
 * k5 behind k2, which waits for r3 until 24). */
static int
gen_window_change(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    static const int ops[][2] = { { 1, 2 }, { 3, 1 }, { 4, 3 }, { 5, 3 }, { 6, 3 }, { 7, 8 } };
    (void)arg;
    (void)block;
    (void)warp;
    if (k < SIM_ARRAY_LEN(ops))
        tl_alu(wi, k == 0 ? SIM_OPC_SFU : SIM_OPC_FP32, ops[k][0], ops[k][1], -1);
    else if (k == SIM_ARRAY_LEN(ops))
        tl_exit(wi);
    else
        return 0;
    return 1;
}

START_TEST(test_lookahead_window_change_refreshes_candidates)
{
    sim_cycle_t at[16] = { 0 };
    lookahead_issue_cycles(gen_window_change, 4, at, NULL);
    ck_assert_uint_eq(at[0], 0);
    ck_assert_uint_eq(at[1], 20);
    ck_assert_uint_eq(at[5], 21);
    ck_assert_uint_eq(at[2], 24);
    ck_assert_uint_eq(at[3], 25);
    ck_assert_uint_eq(at[4], 26);
}
END_TEST

/* A waiting window whose candidates wait for different pipes: k0 SFU
 * (the SFU pipe then busy for 10 cycles), k1 FP64 (the DPU busy for 4),
 * k2 SFU and k3 FP64, independent: at 2 both wait for their pipes, k3
 * issues when the DPU frees (5), before k2 (10).  A check that remembered
 * only the first candidate's pipe would hold k3 until 11. */
static int
gen_two_pipes(void *arg, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    static const unsigned opc[] = { SIM_OPC_SFU, SIM_OPC_FP64, SIM_OPC_SFU, SIM_OPC_FP64 };
    (void)arg;
    (void)block;
    (void)warp;
    if (k < SIM_ARRAY_LEN(opc))
        tl_alu(wi, opc[k], (int)(2 * k + 1), (int)(2 * k + 2), -1);
    else if (k == SIM_ARRAY_LEN(opc))
        tl_exit(wi);
    else
        return 0;
    return 1;
}

START_TEST(test_lookahead_candidates_on_two_pipes)
{
    sim_cycle_t at[16] = { 0 };
    lookahead_issue_cycles(gen_two_pipes, 4, at, "op.sfu.interval = 10; op.fp64.interval = 4");
    ck_assert_uint_eq(at[0], 0);
    ck_assert_uint_eq(at[1], 1);
    ck_assert_uint_eq(at[3], 5);
    ck_assert_uint_eq(at[2], 10);
}
END_TEST

START_TEST(test_lookahead_issues_past_a_stall)
{
    /* in order: SFU 0, r3 20, r4 24, the n independent ones 25 .. 24 + n (last ready 28 + n) */
    uint64_t in_order = shadow_cycles(6, 1, SIM_ISA_PTX);
    ck_assert_uint_eq(shadow_cycles(7, 1, SIM_ISA_PTX) - in_order, 1);
    /* window 2 sees r3 and r4 (r4 depends on r3): nothing passes until r3 issues
     * at 20; then three independent ones fill 21 .. 23 while r4 waits for 24 */
    ck_assert_uint_eq(shadow_cycles(6, 2, SIM_ISA_PTX), in_order - 3);
    /* window 3 reaches past the pair: the independent ones issue at 1 .. n in the
     * SFU's shadow, and the kernel ends when r4 is ready (28), n cycles earlier */
    for (unsigned w = 3; w <= 16; w += 13) {
        ck_assert_uint_eq(shadow_cycles(6, w, SIM_ISA_PTX), in_order - 6);
        ck_assert_uint_eq(shadow_cycles(7, w, SIM_ISA_PTX), in_order - 6);
    }
    /* SASS (already scheduled by ptxas) and synthetic streams stay in order */
    ck_assert_uint_eq(shadow_cycles(6, 16, SIM_ISA_SASS), in_order);
    ck_assert_uint_eq(shadow_cycles(6, 16, 0), in_order);
}
END_TEST

static Suite *
sm_suite(void)
{
    Suite *s = suite_create("sm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_dependent_chain_exact);
    tcase_add_test(tc, test_block_dispatch_interval);
    tcase_add_test(tc, test_int_wide_rate);
    tcase_add_test(tc, test_tensor_dp_units);
    tcase_add_test(tc, test_warp_launch_serial);
    tcase_add_test(tc, test_stall_counts);
    tcase_add_test(tc, test_reference_scheduler_same_results);
    tcase_add_test(tc, test_two_level_drained_and_barrier_warps_leave_the_active_set);
    tcase_add_test(tc, test_independent_stream_reaches_throughput);
    tcase_add_test(tc, test_sfu_ex2_own_latency);
    tcase_add_test(tc, test_dual_issue);
    tcase_add_test(tc, test_dpu_holds_issue);
    tcase_add_test(tc, test_dpu_per_sm);
    tcase_add_test(tc, test_taken_branch_penalty_exact);
    tcase_add_test(tc, test_lookahead_issues_past_a_stall);
    tcase_add_test(tc, test_lookahead_respects_every_hazard);
    tcase_add_test(tc, test_lookahead_window_change_refreshes_candidates);
    tcase_add_test(tc, test_lookahead_candidates_on_two_pipes);
    tcase_add_test(tc, test_divergence_halves_lanes_not_slots);
    tcase_add_test(tc, test_barrier_release_timing);
    tcase_add_test(tc, test_barrier_unit_per_warp);
    tcase_add_test(tc, test_named_barriers);
    tcase_add_test(tc, test_sync_wait_exact);
    tcase_add_test(tc, test_sync_after_copies_exact);
    tcase_add_test(tc, test_wgmma_exact);
    tcase_add_test(tc, test_no_fetch_past_a_barrier);
    tcase_add_test(tc, test_bank_conflicts_cost_32x);
    tcase_add_test(tc, test_gtrr_does_not_starve_a_warp);
    tcase_add_test(tc, test_coalescing_sectors);
    tcase_add_test(tc, test_load_use_latency_exact);
    tcase_add_test(tc, test_accumulating_registers);
    tcase_add_test(tc, test_blocks_resident_match_occupancy);
    tcase_add_test(tc, test_copy_bandwidth_scales_and_saturates);
    tcase_add_test(tc, test_every_slot_classified_once);
    tcase_add_test(tc, test_bad_instruction_is_an_error);
    tcase_add_test(tc, test_kernel_that_cannot_launch);
    tcase_add_test(tc, test_registers_clamped_to_the_limit);
    tcase_add_test(tc, test_max_cycles_truncates);
    tcase_add_test(tc, test_watchdog_tolerates_slow_progress);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(sm_suite)
