/*
 * check_ptx_sync.c - Hopper's transaction barriers, bulk copies and
 * elect.sync (frontend/exec/ptx_sync.c) against the PTX ISA's definitions
 * (9.7.13.15 mbarrier, 9.7.9.25 cp.async.bulk, elect.sync, setmaxnreg,
 * griddepcontrol): phases and
 * their parity, the preceding phase of a fresh barrier, arrival and
 * transaction counts in either order, bulk copies both ways, the leader
 * of a partial warp; each kernel emulated and timed (the model decides
 * the waits when they issue: sim/inst.h SIM_SYNC_POLL), which must write
 * the same words; and the errors a wrong program gets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "sim/sim.h"
#include "testlib.h"

#define N_LINES(a) (sizeof(a) / sizeof(a)[0])

/* One warp; parameter 0 is the output (32 u32), %r1 the lane, %rd3 the
 * lane's output word, %r2 the shared address of sm (an 8-byte barrier at
 * sm, another at sm + 8, 128-aligned data at sm + 128). */
#define HEAD(...) HEAD_T("sm_90", __VA_ARGS__)
#define HEAD_T(target, ...) \
    ".version 8.0", ".target " target, ".address_size 64", \
    ".visible .entry k(.param .u64 k_param_0" __VA_ARGS__ ")", "{", \
    "    .reg .pred %p<8>;", "    .reg .b32 %r<40>;", "    .reg .b64 %rd<40>;", \
    "    .shared .align 128 .b8 sm[512];", \
    "    ld.param.u64 %rd1, [k_param_0];", "    cvta.to.global.u64 %rd2, %rd1;", \
    "    mov.u32 %r1, %laneid;", "    mul.wide.u32 %rd4, %r1, 4;", \
    "    add.s64 %rd3, %rd2, %rd4;", "    mov.u32 %r2, sm;", "    setp.eq.u32 %p1, %r1, 0;"

/* HEAD with two more buffers (%rd11 in, %rd13 out2), data at %r3 = sm +
 * 128, and barrier 0 initialised for one arrival. */
#define BULK_HEAD \
    HEAD(", .param .u64 k_param_1, .param .u64 k_param_2"), \
    "    ld.param.u64 %rd10, [k_param_1];", "    cvta.to.global.u64 %rd11, %rd10;", \
    "    ld.param.u64 %rd12, [k_param_2];", "    cvta.to.global.u64 %rd13, %rd12;", \
    "    add.s32 %r3, %r2, 128;", "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;", \
    "    fence.mbarrier_init.release.cluster;", "    bar.sync 0;"

/* p<a> .. into %r10 as bits 0, 1, ...: %r10 = sum of selp(1 << i). */
#define BIT(p, i) "    selp.u32 %r11, " #i ", 0, " p ";", "    or.b32 %r10, %r10, %r11;"

/* Run the kernel emulated and timed; both must write want(lane) to out. */
static void
run_both(const char *const *ptx, size_t n, const char *extra, uint32_t (*want)(uint32_t),
         const uint32_t *want2, size_t n2)
{
    struct inst_source src;
    const uint32_t *out = testlib_ptx_run(ptx, n, extra, &src);
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_msg(out[l] == want(l), "emulate: lane %u: %u, expected %u", l, out[l], want(l));
    for (size_t i = 0; i < n2; i++)
        ck_assert_uint_eq(((const uint32_t *)ptx_source_launch(&src)->args[2].data)[i], want2[i]);
    inst_source_destroy(&src);

    struct sim_config cfg;
    testlib_config(&cfg, "sync.try_wait_cycles = 7\nsync.arrive_cycles = 5.5\ntma.latency = 128\n"
                         "tma.bytes_per_cycle = 91");
    testlib_ptx_open(ptx, n, extra, &src);
    sim *s = testlib_run(&cfg, &src);
    out = (const uint32_t *)ptx_source_launch(&src)->args[0].data;
    for (uint32_t l = 0; l < 32; l++)
        ck_assert_msg(out[l] == want(l), "run: lane %u: %u, expected %u", l, out[l], want(l));
    for (size_t i = 0; i < n2; i++)
        ck_assert_uint_eq(((const uint32_t *)ptx_source_launch(&src)->args[2].data)[i], want2[i]);
    sim_destroy(s);
    inst_source_destroy(&src);
}

/* Phases: a fresh barrier's preceding phase (parity 1) counts as complete
 * and its current one (0) not; 32 arrivals complete phase 0, after which
 * parity 0 is complete and 1 (the current phase) is not; the state an
 * arrive returned names a completed phase. */
static uint32_t want_phases(uint32_t l) { (void)l; return 1 | 4 | 16; }

START_TEST(phases)
{
    static const char *const ptx[] = {
        HEAD(),
        "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 32;",
        "    bar.sync 0;",
        "    mov.u32 %r10, 0;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 1;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 0;",
        "    mbarrier.arrive.shared::cta.b64 %rd5, [%r2];",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2], 0;",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r2], 1;",
        "    mbarrier.test_wait.shared::cta.b64 %p6, [%r2], %rd5;",
        BIT("%p2", 1), BIT("%p3", 2), BIT("%p4", 4), BIT("%p5", 8), BIT("%p6", 16),
        "    st.global.u32 [%rd3], %r10;",
        "    ret;",
        "}",
    };
    run_both(ptx, N_LINES(ptx), NULL, want_phases, NULL, 0);
}
END_TEST

/* mbarrier.pending_count: the arrivals a phase still awaited before the
 * arrive that returned the state (PTX ISA 9.7.13.15.16); the lanes of a
 * warp arrive in lane order, so lane l's arrive found 40 - l pending. */
static uint32_t want_pending(uint32_t l) { return 40 - l; }

START_TEST(pending_count)
{
    static const char *const ptx[] = {
        HEAD(),
        "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 40;",
        "    bar.sync 0;",
        "    mbarrier.arrive.shared::cta.b64 %rd5, [%r2];",
        "    mbarrier.pending_count.b64 %r10, %rd5;",
        "    st.global.u32 [%rd3], %r10;",
        "    ret;",
        "}",
    };
    run_both(ptx, N_LINES(ptx), NULL, want_pending, NULL, 0);
}
END_TEST

/* Transactions: a complete_tx before its expect_tx (the count goes
 * negative), then the arrive.expect_tx that balances it completes phase
 * 0; in phase 1 an expect_tx keeps the arrived phase open until its bytes
 * complete; after inval and a new init (count 2), one arrive of count 2
 * completes phase 0 again. */
static uint32_t want_tx(uint32_t l) { (void)l; return 2 | 8 | 16; }

START_TEST(transactions)
{
    static const char *const ptx[] = {
        HEAD(),
        "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;",
        "    bar.sync 0;",
        "    mov.u32 %r10, 0;",
        "    @%p1 mbarrier.complete_tx.shared::cta.b64 [%r2], 32;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 0;",
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r2], 32;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 0;",
        "    @%p1 mbarrier.expect_tx.shared::cta.b64 [%r2], 16;",
        "    @%p1 mbarrier.arrive.shared::cta.b64 %rd6, [%r2];",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2], 1;",
        "    @%p1 mbarrier.complete_tx.shared::cta.b64 [%r2], 16;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p5, [%r2], 1;",
        "    @%p1 mbarrier.inval.shared::cta.b64 [%r2];",          /* then a fresh barrier */
        "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 2;",
        "    @%p1 mbarrier.arrive.shared::cta.b64 %rd6, [%r2], 2;", /* an arrive of count 2 */
        "    mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r2], 0;",
        BIT("%p2", 1), BIT("%p3", 2), BIT("%p4", 4), BIT("%p5", 8), BIT("%p6", 16),
        "    st.global.u32 [%rd3], %r10;",
        "    ret;",
        "}",
    };
    run_both(ptx, N_LINES(ptx), NULL, want_tx, NULL, 0);
}
END_TEST

/* Drops (arrive_drop): with 32 expected, lanes 0-15 drop out as they
 * arrive and 16-31 arrive, completing phase 0; phase 1 then expects 16:
 * lanes 16-23 leave it open, 24-31 complete it; in phase 2 lane 0's
 * arrive_drop.expect_tx (expected 15 from now on) and lanes 17-31's
 * arrivals leave it open for its 64 bytes, whose complete_tx completes
 * it; in phase 3 a .noComplete arrive of 14 leaves one arrival pending. */
static uint32_t want_drops(uint32_t l) { (void)l; return 1 | 4 | 16 | 32; }

START_TEST(drops)
{
    static const char *const ptx[] = {
        HEAD(),
        "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 32;",
        "    bar.sync 0;",
        "    mov.u32 %r10, 0;",
        "    setp.lt.u32 %p7, %r1, 16;",
        "    @%p7 mbarrier.arrive_drop.shared::cta.b64 %rd5, [%r2];",
        "    @!%p7 mbarrier.arrive.shared::cta.b64 %rd5, [%r2];",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 0;",
        "    setp.ge.u32 %p7, %r1, 16;",
        "    setp.lt.and.u32 %p7, %r1, 24, %p7;",
        "    @%p7 mbarrier.arrive.release.cta.shared::cta.b64 %rd5, [%r2];",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 1;",
        "    setp.ge.u32 %p7, %r1, 24;",
        "    @%p7 mbarrier.arrive.shared::cta.b64 %rd5, [%r2];",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2], 1;",
        "    @%p1 mbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd5, [%r2], 64;",
        "    setp.gt.u32 %p7, %r1, 16;",
        "    @%p7 mbarrier.arrive.shared::cta.b64 %rd5, [%r2];",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p5, [%r2], 0;",
        "    @%p1 mbarrier.complete_tx.shared::cta.b64 [%r2], 64;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r2], 0;",
        "    @%p1 mbarrier.arrive.noComplete.shared::cta.b64 %rd5, [%r2], 14;",
        "    mbarrier.test_wait.parity.shared::cta.b64 %p7, [%r2], 1;",
        "    selp.u32 %r11, 0, 32, %p7;",       /* 32 when phase 3 is still open */
        "    or.b32 %r10, %r10, %r11;",
        BIT("%p2", 1), BIT("%p3", 2), BIT("%p4", 4), BIT("%p5", 8), BIT("%p6", 16),
        "    st.global.u32 [%rd3], %r10;",
        "    ret;",
        "}",
    };
    run_both(ptx, N_LINES(ptx), NULL, want_drops, NULL, 0);
}
END_TEST

/* Bulk copies: lane 0 copies in (64 words, in[i] = i) to shared memory,
 * completing the barrier's 256 bytes, every lane waits (a try_wait loop)
 * and adds two of the words (out[l] = l + l + 32); lane 0 copies the
 * shared words back to out2 in a bulk group and waits for it. */
static uint32_t want_bulk(uint32_t l) { return 2 * l + 32; }

START_TEST(bulk_copies)
{
    static const char *const ptx[] = {
        BULK_HEAD,
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r2], 256;",
        "    @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
        "[%r3], [%rd11], 256, [%r2];",
        "WAIT:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;",
        "    @!%p2 bra WAIT;",
        "    shl.b32 %r4, %r1, 2;",
        "    add.s32 %r5, %r3, %r4;",
        "    ld.shared.u32 %r6, [%r5];",
        "    ld.shared.u32 %r7, [%r5+128];",
        "    add.s32 %r10, %r6, %r7;",
        "    st.global.u32 [%rd3], %r10;",
        "    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd13], [%r3], 256;",
        "    cp.async.bulk.commit_group;",
        "    cp.async.bulk.wait_group 0;",
        "    ret;",
        "}",
    };
    uint32_t want2[64];
    for (uint32_t i = 0; i < 64; i++)
        want2[i] = i;
    run_both(ptx, N_LINES(ptx), "arg = in buffer u32 64 seq 0\narg = out2 buffer u32 64 zeros",
             want_bulk, want2, 64);
}
END_TEST

/* Bulk copies from several lanes at once (cuda::memcpy_async with a
 * cuda::barrier on sm_90): lanes 0 .. 7 each copy 16 bytes of a 2 x 64-byte
 * tile of in (rows 128 bytes apart) to shared memory, one complete_tx of
 * 128 bytes, before lane 0's expect_tx; every lane reads its word back
 * (out[l] = in[(l / 16) * 32 + l % 16]); lanes 0 .. 7 then store their
 * 16 bytes to out2 in one bulk group. */
static uint32_t want_lanes(uint32_t l) { return (l / 16) * 32 + l % 16; }

START_TEST(bulk_copies_from_lanes)
{
    static const char *const ptx[] = {
        BULK_HEAD,
        "    setp.lt.u32 %p3, %r1, 8;",
        "    shr.u32 %r12, %r1, 2;",
        "    and.b32 %r13, %r1, 3;",
        "    shl.b32 %r14, %r12, 7;",
        "    shl.b32 %r15, %r13, 4;",
        "    add.s32 %r16, %r14, %r15;",
        "    cvt.u64.u32 %rd20, %r16;",
        "    add.s64 %rd21, %rd11, %rd20;",
        "    shl.b32 %r17, %r1, 4;",
        "    add.s32 %r18, %r3, %r17;",
        "    @%p3 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
        "[%r18], [%rd21], 16, [%r2];",
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r2], 128;",
        "WAIT:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;",
        "    @!%p2 bra WAIT;",
        "    shl.b32 %r4, %r1, 2;",
        "    add.s32 %r5, %r3, %r4;",
        "    ld.shared.u32 %r10, [%r5];",
        "    st.global.u32 [%rd3], %r10;",
        "    cvt.u64.u32 %rd22, %r17;",
        "    add.s64 %rd23, %rd13, %rd22;",
        "    @%p3 cp.async.bulk.global.shared::cta.bulk_group [%rd23], [%r18], 16;",
        "    cp.async.bulk.commit_group;",
        "    cp.async.bulk.wait_group 0;",
        "    ret;",
        "}",
    };
    uint32_t want2[32];
    for (uint32_t i = 0; i < 32; i++)
        want2[i] = want_lanes(i);
    run_both(ptx, N_LINES(ptx), "arg = in buffer u32 64 seq 0\narg = out2 buffer u32 32 zeros",
             want_lanes, want2, 32);
}
END_TEST

/* elect.sync among the lanes >= 5 with membermask 0xfffffff0: lane 5
 * leads; every participating lane gets 5, the leader alone the predicate;
 * the others keep what they had. */
static uint32_t want_elect(uint32_t l) { return l < 5 ? 99 : 50 + (l == 5); }

START_TEST(elect)
{
    static const char *const ptx[] = {
        HEAD(),
        "    mov.u32 %r5, 99;",
        "    setp.ge.u32 %p3, %r1, 5;",
        "    @%p3 elect.sync %r5|%p2, 0xfffffff0;",
        "    @%p3 selp.u32 %r6, 1, 0, %p2;",
        "    @%p3 mad.lo.u32 %r5, %r5, 10, %r6;",
        "    st.global.u32 [%rd3], %r5;",
        "    ret;",
        "}",
    };
    run_both(ptx, N_LINES(ptx), NULL, want_elect, NULL, 0);
}
END_TEST

/* setmaxnreg and griddepcontrol (programmatic dependent launch) change
 * nothing a kernel computes: out[l] = l. */
static uint32_t want_lane(uint32_t l) { return l; }

START_TEST(setmaxnreg_and_pdl)
{
    static const char *const ptx[] = {
        HEAD_T("sm_90a"),
        "    griddepcontrol.wait;",
        "    setmaxnreg.inc.sync.aligned.u32 240;",
        "    st.global.u32 [%rd3], %r1;",
        "    setmaxnreg.dec.sync.aligned.u32 40;",
        "    griddepcontrol.launch_dependents;",
        "    ret;",
        "}",
    };
    run_both(ptx, N_LINES(ptx), NULL, want_lane, NULL, 0);
}
END_TEST

/* A wrong program gets exit status 2 naming its line; a form smsim does
 * not run says "unsupported". */
static const struct {
    const char *ins;
    const char *frag;
} errors[] = {
    { "    mbarrier.arrive.shared::cta.b64 %rd5, [%r2];", "used before its mbarrier.init" },
    { "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 0;", "the count must be 1 .. 2^20 - 1" },
    { "    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r2], 20;",
      "multiples of 16 bytes" },
    { "    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
      "[%r2+128], [%r2+256], 16, [%r2];",
      "unsupported: a tensor, multicast or shared::cluster cp.async.bulk from more than one lane" },
    { "    setmaxnreg.inc.sync.aligned.u32 40;", "needs an architecture-specific target" },
    { "    @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%r2+128], [%rd2], 16, [%r2], 2;",
      "ctaMask 0x2 names no rank or a rank outside the cluster of 1 blocks" },
    { "    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.f32 "
      "[%r2+128], [%r2+256], 16, [%r2];", "reduces integers only" },
    { "    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.b32 [%rd2], [%r2], 16;",
      "unsupported operation and type" },
    { "    cp.async.bulk.global.shared::cta.bulk_group.multicast::cluster [%rd2], [%r2], 16, 1;",
      "unsupported cp.async.bulk form" },
};

/* Write module ptx[] as k.ptx and a launch file of `grid` one-warp blocks
 * of kernel k with the output buffer, k.launch, into the test directory. */
static void
write_kernel(const char *const *ptx, size_t n, const char *grid)
{
    testlib_write_lines("k.ptx", ptx, n, 0, NULL, NULL);
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", grid, "block = 32",
                                   "arg = out buffer u32 32 zeros" };
    testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
}

START_TEST(wrong_programs)
{
    const char *const ptx[] = { HEAD(), errors[_i].ins, "    ret;", "}" };
    write_kernel(ptx, N_LINES(ptx), "grid = 1");
    testlib_expect_error("k.ptx", (unsigned)N_LINES(ptx) - 2, errors[_i].frag);
}
END_TEST

/* A block's mbarriers: lane 0 initialises 32 (the most a block may have:
 * CUTLASS's ping-pong GEMM needs more than 16), arrives on each and finds
 * its phase 0 complete; a 33rd is unsupported. */
#define MANY_BARRIERS(n) \
    HEAD(), "    setp.ne.u32 %p2, %r1, %r1;", "    mov.u32 %r10, 0;", "    mov.u32 %r12, 0;", \
    "$loop:", "    shl.b32 %r13, %r12, 3;", "    add.s32 %r14, %r2, %r13;", \
    "    @%p1 mbarrier.init.shared::cta.b64 [%r14], 1;", \
    "    @%p1 mbarrier.arrive.shared::cta.b64 %rd5, [%r14];", \
    "    @%p1 mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r14], 0;", \
    "    selp.u32 %r11, 1, 0, %p2;", "    add.s32 %r10, %r10, %r11;", \
    "    add.s32 %r12, %r12, 1;", "    setp.lt.u32 %p3, %r12, " #n ";", "    @%p3 bra $loop;", \
    "    st.global.u32 [%rd3], %r10;", "    ret;", "}"

static uint32_t want_many(uint32_t l) { return l == 0 ? 32 : 0; }

START_TEST(many_barriers)
{
    static const char *const ptx[] = { MANY_BARRIERS(32) };
    run_both(ptx, N_LINES(ptx), NULL, want_many, NULL, 0);
    static const char *const ptx33[] = { MANY_BARRIERS(33) };
    write_kernel(ptx33, N_LINES(ptx33), "grid = 1");
    testlib_expect_error("k.ptx", 23, "unsupported: more than 32 mbarriers in a block");
}
END_TEST

/* An arrive .noComplete that completes its phase is undefined: an error. */
START_TEST(no_complete_completing)
{
    const char *const ptx[] = { HEAD(), "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 2;",
                                "    @%p1 mbarrier.arrive.noComplete.shared::cta.b64 %rd5, [%r2], 2;",
                                "    ret;", "}" };
    write_kernel(ptx, N_LINES(ptx), "grid = 1");
    testlib_expect_error("k.ptx", (unsigned)N_LINES(ptx) - 2, "completed the phase");
}
END_TEST

START_TEST(unsupported_forms)
{
    static const char *const ptx[] = { HEAD(),
                                       "    cp.async.bulk.tensor.3d.shared::cluster.global.im2col"
                                       "::w.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r1, %r1, "
                                       "%r1}], [%r2], {%r1};",
                                       "    ret;", "}" };
    write_kernel(ptx, N_LINES(ptx), "grid = 1");
    struct sim_error err = { 0 };
    int rc = testlib_ptx_emulate(&err);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "unsupported cp.async.bulk form '.im2col::w'") != NULL, "%s",
                  err.msg);
}
END_TEST

/* A kernel for clusters of more than one block says "unsupported" when it
 * is launched (smsim runs clusters of one); one of one block runs. */
/* Thread-block clusters of 4 (.reqnctapercluster): each block writes its
 * rank and %cluster_* registers into its shared memory, arrives on the
 * cluster barrier, waits, then every lane l reads word 0 of the block of
 * rank l % 4 through mapa and ld.shared::cluster and writes it, with its
 * own rank and cluster id, to out[block][l]; emulated and timed (the
 * model starts a cluster's blocks together, on SMs of one GPC) the words
 * must be the same.  A launch file's cluster must agree with the
 * kernel's, and tile the grid. */
static uint32_t
want_cluster(uint32_t i)
{
    uint32_t blk = i / 32, l = i % 32, rank = blk % 4, cid = blk / 4;
    return (l % 4 + 1) * 1000 + cid * 100 + rank * 10 + (l % 4 == rank);
}

static void
check_cluster(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 256; i++)
        ck_assert_msg(out[i] == want_cluster(i), "block %u lane %u: %u, expected %u (%s)", i / 32,
                      i % 32, out[i], want_cluster(i), s != NULL ? "run" : "emulate");
    if (s != NULL)
        ck_assert_uint_eq(testlib_stat(s, 0, "sm.mem.dsmem_insts"), 8 * 1);
}

START_TEST(clusters)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)", ".explicitcluster .reqnctapercluster 4, 1, 1",
        "{",
        "    .reg .pred %p<8>;", "    .reg .b32 %r<40>;", "    .reg .b64 %rd<40>;",
        "    .shared .align 16 .b8 sm[64];",
        "    ld.param.u64 %rd1, [k_param_0];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;", "    mov.u32 %r2, %cluster_ctarank;",
        "    mov.u32 %r3, %clusterid.x;", "    mov.u32 %r4, %cluster_nctarank;",
        "    mov.u32 %r5, %ctaid.x;", "    mov.u32 %r6, sm;",
        /* word 0: (rank + 1) x 1000 + cluster id x 100 */
        "    add.s32 %r7, %r2, 1;", "    mul.lo.s32 %r7, %r7, 1000;", "    mad.lo.s32 %r7, %r3,"
        " 100, %r7;",
        "    setp.eq.u32 %p1, %r1, 0;", "    @%p1 st.shared.u32 [%r6], %r7;",
        "    barrier.cluster.arrive.relaxed.aligned;", "    barrier.cluster.wait.aligned;",
        /* lane l reads rank l % nranks's word 0 */
        "    rem.u32 %r8, %r1, %r4;",
        "    mapa.shared::cluster.u32 %r9, %r6, %r8;",
        "    ld.shared::cluster.u32 %r10, [%r9];",
        "    mad.lo.s32 %r10, %r2, 10, %r10;",
        "    setp.eq.u32 %p2, %r8, %r2;", "    selp.u32 %r11, 1, 0, %p2;", "    add.s32 %r10,"
        " %r10, %r11;",
        /* everyone done reading before any block may exit */
        "    barrier.cluster.arrive;", "    barrier.cluster.wait;",
        "    mad.lo.s32 %r12, %r5, 32, %r1;", "    mul.wide.u32 %rd3, %r12, 4;",
        "    add.s64 %rd4, %rd2, %rd3;", "    st.global.u32 [%rd4], %r10;",
        "    ret;", "}",
    };
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 8", "block = 32",
                                   "arg = out buffer u32 256 zeros" };
    testlib_emulate_and_run(ptx, N_LINES(ptx), launch, N_LINES(launch),
                            "gpu.gpc_sms = 6\nsync.cluster_latency = 65", check_cluster, NULL);
    /* the launch file's cluster must agree with the kernel's and tile the grid */
    const char *const bad[][2] = {
        { "cluster = 2", "requires 4, 1, 1" }, { "grid = 6", "no whole number of clusters" },
    };
    for (unsigned b = 0; b < 2; b++) {
        const char *const lb[] = { "ptx = k.ptx", "kernel = k", b == 1 ? bad[1][0] : "grid = 8",
                                   "block = 32", "arg = out buffer u32 256 zeros",
                                   b == 0 ? bad[0][0] : "# no cluster line" };
        testlib_write_lines("k.launch", lb, N_LINES(lb), 0, NULL, NULL);
        struct sim_error err = { 0 };
        ck_assert_int_eq(sim_error_exit_status(testlib_ptx_emulate(&err)), 2);
        ck_assert_msg(strstr(err.msg, bad[b][1]) != NULL, "%s", err.msg);
    }
}
END_TEST

/* Bulk copies across a cluster of 4 (PTX ISA 9.7.9.25, 9.7.9.26):
 * rank 0 multicasts in[c*64 .. +32) to ranks 1-3 only (its own tile keeps
 * its marker), rank 1 in[c*64+32 .. +32) to all four; ranks 1-3 reduce
 * their vectors (rank+1)(l+1) into rank 0's with cp.reduce.async.bulk
 * .shared::cluster and arrive on rank 0's barrier remotely; rank 0 adds
 * the sum into out2 with cp.reduce.async.bulk.global (both clusters:
 * 20(l+1)) and copies its marker tile into rank 3's shared memory with
 * cp.async.bulk.shared::cluster.shared::cta.  Emulated and timed the
 * words must be the same; timed, the remote signals must hold rank 0's
 * wait until the network has carried them (smem.dsmem_latency). */
static const char *const cluster_bulk_ptx[] = {
        ".version 8.0",
        ".target sm_90",
        ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2)",
        ".explicitcluster .reqnctapercluster 4, 1, 1",
        "{",
        "    .reg .pred %p<8>;",
        "    .reg .b16 %rs<4>;",
        "    .reg .b32 %r<40>;",
        "    .reg .b64 %rd<40>;",
        "    .reg .f32 %f<4>;",
        "    .shared .align 128 .b8 sm[2048];",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    ld.param.u64 %rd5, [k_param_1];",
        "    cvta.to.global.u64 %rd6, %rd5;",
        "    ld.param.u64 %rd7, [k_param_2];",
        "    cvta.to.global.u64 %rd8, %rd7;",
        "    mov.u32 %r1, %laneid;",
        "    mov.u32 %r2, %cluster_ctarank;",
        "    mov.u32 %r3, %clusterid.x;",
        "    mov.u32 %r5, %ctaid.x;",
        "    mov.u32 %r6, sm;",
        "    setp.eq.u32 %p1, %r1, 0;",
        "    add.s32 %r7, %r2, 1;",
        "    mul.lo.s32 %r8, %r7, 16843009;",
        "    shl.b32 %r9, %r1, 2;",
        "    add.s32 %r10, %r6, %r9;",
        "    st.shared.u32 [%r10+128], %r8;",
        "    st.shared.u32 [%r10+256], %r8;",
        "    add.s32 %r11, %r1, 1;",
        "    mul.lo.s32 %r12, %r11, %r7;",
        "    st.shared.u32 [%r10+512], %r12;",
        "    @%p1 mbarrier.init.shared::cta.b64 [sm], 1;",
        "    @%p1 mbarrier.init.shared::cta.b64 [sm+8], 4;",
        "    @%p1 mbarrier.init.shared::cta.b64 [sm+16], 1;",
        "    fence.mbarrier_init.release.cluster;",
        "    fence.proxy.async.shared::cta;",
        "    barrier.cluster.arrive.release.aligned;",
        "    barrier.cluster.wait.acquire.aligned;",
        "    setp.eq.u32 %p2, %r2, 0;",
        "    selp.u32 %r13, 128, 256, %p2;",
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd9, [sm], %r13;",
        "    mul.lo.s32 %r14, %r3, 256;",
        "    cvt.u64.u32 %rd10, %r14;",
        "    add.s64 %rd11, %rd5, %rd10;",
        "    and.pred %p3, %p1, %p2;",
        "    mov.b16 %rs1, 14;",
        "    @%p3 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [sm+128], [%rd11], 128, [sm], %rs1;",
        "    setp.eq.u32 %p4, %r2, 1;",
        "    and.pred %p5, %p1, %p4;",
        "    add.s64 %rd12, %rd11, 128;",
        "    mov.b16 %rs2, 15;",
        "    @%p5 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [sm+256], [%rd12], 128, [sm], %rs2;",
        "WAIT1:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p6, [sm], 0;",
        "    @!%p6 bra WAIT1;",
        "    mov.u32 %r15, 0;",
        "    mapa.shared::cluster.u32 %r16, %r6, %r15;",
        "    @%p3 mbarrier.arrive.expect_tx.shared::cta.b64 %rd13, [sm+8], 384;",
        "    not.pred %p7, %p2;",
        "    and.pred %p7, %p7, %p1;",
        "    add.s32 %r17, %r16, 512;",
        "    add.s32 %r18, %r16, 8;",
        "    @%p7 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
        ".add.u32 [%r17], [sm+512], 128, [%r18];",
        "    @%p7 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r18];",
        "    @!%p2 bra SKIP2;",
        "WAIT2:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p6, [sm+8], 0;",
        "    @!%p6 bra WAIT2;",
        "    @%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32"
        " [%rd7], [sm+512], 128;",
        "    @%p1 cp.async.bulk.commit_group;",
        "    @%p1 cp.async.bulk.wait_group 0;",
        "    mov.u32 %r19, 3;",
        "    mapa.shared::cluster.u32 %r20, %r6, %r19;",
        "    add.s32 %r21, %r20, 1024;",
        "    add.s32 %r22, %r20, 16;",
        "    @%p1 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
        " [%r21], [sm+128], 128, [%r22];",
        "SKIP2:",
        "    setp.eq.u32 %p4, %r2, 3;",
        "    @!%p4 bra SKIP3;",
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd14, [sm+16], 128;",
        "WAIT3:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p6, [sm+16], 0;",
        "    @!%p6 bra WAIT3;",
        "    ld.shared.u32 %r23, [%r10+1024];",
        "SKIP3:",
        "    ld.shared.u32 %r24, [%r10+128];",
        "    ld.shared.u32 %r25, [%r10+256];",
        "    selp.u32 %r23, %r23, 0, %p4;",
        "    mul.lo.s32 %r26, %r5, 96;",
        "    add.s32 %r26, %r26, %r1;",
        "    mul.wide.u32 %rd15, %r26, 4;",
        "    add.s64 %rd16, %rd2, %rd15;",
        "    st.global.u32 [%rd16], %r24;",
        "    st.global.u32 [%rd16+128], %r25;",
        "    st.global.u32 [%rd16+256], %r23;",
        "    barrier.cluster.arrive.aligned;",
        "    barrier.cluster.wait.aligned;",
        "    ret;",
        "}",
};

static uint32_t
want_cluster_bulk(uint32_t i)
{
    uint32_t blk = i / 96, w = i % 96, l = w % 32, rank = blk % 4, c = blk / 4;
    if (w < 32)
        return rank == 0 ? 0x01010101u : 1000 + c * 64 + l;
    if (w < 64)
        return 1000 + c * 64 + 32 + l;
    return rank == 3 ? 0x01010101u : 0;
}

START_TEST(cluster_bulk)
{
    testlib_write_lines("k.ptx", cluster_bulk_ptx, N_LINES(cluster_bulk_ptx), 0, NULL, NULL);
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 8", "block = 32",
                                   "arg = out buffer u32 768 zeros",
                                   "arg = in buffer u32 128 seq 1000",
                                   "arg = out2 buffer u32 32 zeros" };
    testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    uint64_t cycles[2] = { 0, 0 };
    for (int run = 0; run <= 2; run++) {
        struct inst_source src;
        sim *s;
        const char *cfg = run == 0 ? NULL : run == 1 ? "gpu.gpc_sms = 6\nsmem.dsmem_latency = 200"
                                                     : "gpu.gpc_sms = 6\nsmem.dsmem_latency = 2200";
        const struct launch *l = testlib_launch_run(path, cfg, &src, &s);
        const uint32_t *out = (const uint32_t *)l->args[0].data;
        const uint32_t *out2 = (const uint32_t *)l->args[2].data;
        for (uint32_t i = 0; i < 768; i++)
            ck_assert_msg(out[i] == want_cluster_bulk(i), "block %u word %u: %#x, expected %#x "
                          "(run %d)", i / 96, i % 96, out[i], want_cluster_bulk(i), run);
        for (uint32_t i = 0; i < 32; i++)
            ck_assert_msg(out2[i] == 20 * (i + 1), "out2[%u]: %u (run %d)", i, out2[i], run);
        if (s != NULL) {
            cycles[run - 1] = testlib_stat(s, 0, "gpu.cycles");
            sim_destroy(s);
        }
        inst_source_destroy(&src);
    }
    /* rank 0 waits for three remote arrives and reductions, then copies to
     * rank 3 (one more DSMEM trip): 2000 cycles more each way, at least */
    ck_assert_msg(cycles[1] >= cycles[0] + 2 * 2000, "dsmem latency 200: %llu cycles, 2200: %llu",
                  (unsigned long long)cycles[0], (unsigned long long)cycles[1]);
}
END_TEST

/* st.async and red.async (sm_90, PTX ISA 8.1) in clusters of 2: every
 * lane stores (rank+1) x 100 + lane into the other block's shared memory
 * and adds rank+1 to a word the other block set to 1000, each completing
 * its 4 bytes on the other block's barrier, which expects 256.  Each
 * block waits on its own barrier, then writes what it received: emulated
 * and timed, the same words. */
static const char *const async_ptx[] = {
        ".version 8.1",
        ".target sm_90",
        ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        ".explicitcluster .reqnctapercluster 2, 1, 1",
        "{",
        "    .reg .pred %p<8>;",
        "    .reg .b32 %r<40>;",
        "    .reg .b64 %rd<40>;",
        "    .shared .align 16 .b8 sm[512];",
        "    ld.param.u64 %rd1, [k_param_0];",
        "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %laneid;",
        "    mov.u32 %r2, %cluster_ctarank;",
        "    mov.u32 %r5, %ctaid.x;",
        "    mov.u32 %r6, sm;",
        "    setp.eq.u32 %p1, %r1, 0;",
        "    shl.b32 %r7, %r1, 2;",
        "    add.s32 %r8, %r6, %r7;",
        "    mov.u32 %r9, 1000;",
        "    st.shared.u32 [%r8+256], %r9;",
        "    @%p1 mbarrier.init.shared::cta.b64 [sm], 1;",
        "    fence.mbarrier_init.release.cluster;",
        "    barrier.cluster.arrive.release.aligned;",
        "    barrier.cluster.wait.acquire.aligned;",
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [sm], 256;",
        "    xor.b32 %r10, %r2, 1;",
        "    mapa.shared::cluster.u32 %r11, %r8, %r10;",
        "    mapa.shared::cluster.u32 %r12, %r6, %r10;",
        "    add.s32 %r13, %r2, 1;",
        "    mad.lo.s32 %r14, %r13, 100, %r1;",
        "    st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r11+128], %r14, [%r12];",
        "    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32"
        " [%r11+256], %r13, [%r12];",
        "WAIT:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p2, [sm], 0;",
        "    @!%p2 bra WAIT;",
        "    ld.shared.u32 %r15, [%r8+128];",
        "    ld.shared.u32 %r16, [%r8+256];",
        "    mad.lo.s32 %r17, %r5, 64, %r1;",
        "    mul.wide.u32 %rd4, %r17, 4;",
        "    add.s64 %rd5, %rd2, %rd4;",
        "    st.global.u32 [%rd5], %r15;",
        "    st.global.u32 [%rd5+128], %r16;",
        "    barrier.cluster.arrive.aligned;",
        "    barrier.cluster.wait.aligned;",
        "    ret;",
        "}",
};

static uint32_t
want_async(uint32_t i)
{
    uint32_t blk = i / 64, w = i % 64, peer = (blk % 2) ^ 1;
    return w < 32 ? (peer + 1) * 100 + w : 1000 + peer + 1;
}

static void
check_async(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 256; i++)
        ck_assert_msg(out[i] == want_async(i), "block %u word %u: %u, expected %u (%s)", i / 64,
                      i % 64, out[i], want_async(i), s != NULL ? "run" : "emulate");
    if (s != NULL)
        ck_assert_uint_eq(testlib_stat(s, 0, "sm.mem.dsmem_insts"), 4 * 2);
}

START_TEST(async_stores)
{
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 4", "block = 32",
                                   "arg = out buffer u32 256 zeros" };
    testlib_emulate_and_run(async_ptx, N_LINES(async_ptx), launch, N_LINES(launch),
                            "gpu.gpc_sms = 6", check_async, NULL);
}
END_TEST

/* Named CTA barriers (PTX ISA 9.7.13.1 bar, barrier): warps 2-3 write
 * shared memory, meet at barrier 2 (64 threads: the two of them), raise a
 * flag and bar.arrive at barrier 1 of 128; warps 0-1 spin on the flag, so
 * they cannot arrive anywhere until warps 2-3 pass barrier 2, then
 * barrier.sync at barrier 1 (id and count in registers) and read what
 * warps 2-3 wrote; warps 2-3 also count their flag-raising thread with
 * bar.red.popc at barrier 3 of 64 (1).  Were barrier ids
 * and counts ignored (every barrier the whole block's), warps 2-3 would
 * wait at barrier 2 for the spinning warps forever. */
static void
check_named(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[0].data;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t t = i % 128, want = t < 64 ? (t + 64) * 3 + 1 : t + 7;
        ck_assert_msg(out[i] == want, "thread %u: %u, expected %u (%s)", i, out[i], want,
                      s != NULL ? "run" : "emulate");
    }
}

START_TEST(named_barriers)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)", "{",
        "    .reg .pred %p<8>;", "    .reg .b32 %r<40>;", "    .reg .b64 %rd<40>;",
        "    .shared .align 16 .b32 sm[129];",
        "    ld.param.u64 %rd1, [k_param_0];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    mov.u32 %r2, sm;", "    mov.u32 %r3, %ctaid.x;",
        "    mad.lo.s32 %r4, %r3, 128, %r1;", "    mul.wide.u32 %rd3, %r4, 4;",
        "    add.s64 %rd4, %rd2, %rd3;",
        "    setp.lt.u32 %p1, %r1, 64;",
        "    @%p1 bra CONSUMER;",
        /* warps 2-3 */
        "    mul.lo.s32 %r5, %r1, 3;", "    shl.b32 %r6, %r1, 2;", "    add.s32 %r6, %r2, %r6;",
        "    st.shared.u32 [%r6], %r5;",
        "    bar.sync 2, 64;",
        "    setp.eq.u32 %p2, %r1, 64;",
        "    mov.u32 %r7, 1;",
        "    @%p2 st.volatile.shared.u32 [%r2+512], %r7;",
        "    bar.arrive 1, 128;",
        "    bar.red.popc.u32 %r12, 3, 64, %p2;",   /* warps 2-3 only: one thread's p2 */
        "    add.s32 %r8, %r1, 6;", "    add.s32 %r8, %r8, %r12;",
        "    st.global.u32 [%rd4], %r8;",
        "    ret;",
        "CONSUMER:",
        "    ld.volatile.shared.u32 %r9, [%r2+512];",
        "    setp.eq.u32 %p3, %r9, 0;",
        "    @%p3 bra CONSUMER;",
        "    mov.u32 %r20, 1;", "    mov.u32 %r21, 128;",
        "    barrier.sync.aligned %r20, %r21;",   /* as CUTLASS's inline asm: registers */
        "    add.s32 %r10, %r1, 64;", "    shl.b32 %r10, %r10, 2;", "    add.s32 %r10, %r2, %r10;",
        "    ld.shared.u32 %r11, [%r10];",
        "    add.s32 %r11, %r11, 1;",
        "    st.global.u32 [%rd4], %r11;",
        "    ret;", "}",
    };
    const char *const launch[] = { "ptx = k.ptx", "kernel = k", "grid = 2", "block = 128",
                                   "arg = out buffer u32 256 zeros" };
    testlib_emulate_and_run(ptx, N_LINES(ptx), launch, N_LINES(launch), NULL, check_named, NULL);
    /* a barrier id past 15 and a count that is no multiple of 32 fail the run */
    static const char *const bad[][2] = {
        { "    bar.sync 2, 64;", "barrier 2 of 48 threads: expected a multiple of 32" },
        { "    bar.sync 2, 64;", "barrier 16: expected 0 .. 15" },
    };
    for (unsigned b = 0; b < 2; b++) {
        testlib_write_lines("k.ptx", ptx, N_LINES(ptx), 24,
                            b == 0 ? "    bar.sync 2, 48;" : "    bar.sync 16, 64;", NULL);
        testlib_write_lines("k.launch", launch, N_LINES(launch), 0, NULL, NULL);
        testlib_expect_error("k.ptx", 24, bad[b][1]);
    }
    /* a count more than the warps that reach the barrier: the program's
     * deadlock, exit 2 both emulated and timed (not a model error) */
    testlib_write_lines("k.ptx", ptx, N_LINES(ptx), 24, "    bar.sync 2, 96;", NULL);
    struct sim_error err = { 0 };
    ck_assert_int_eq(sim_error_exit_status(testlib_ptx_emulate(&err)), 2);
    ck_assert_msg(strstr(err.msg, "never ends") != NULL && strstr(err.msg, "2 spin and 2 wait "
                  "at a barrier") != NULL, "%s", err.msg);
    struct inst_source src;
    struct sim_config cfg;
    char path[512];
    testlib_config(&cfg, "");
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    sim *s = sim_new(&cfg);
    int rc = sim_run(s, &src, &err);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "never ends") != NULL, "%s", err.msg);
    sim_destroy(s);
    inst_source_destroy(&src);
    /* no spinning warp to notice it: warps 2-3 exit, 0-1 wait at barrier 1
     * of 128 for ever; the model says so (exit 2, not an internal error) */
    static const char *const dead[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)", "{", "    .reg .pred %p<4>;",
        "    .reg .b32 %r<4>;", "    mov.u32 %r1, %tid.x;", "    setp.ge.u32 %p1, %r1, 64;",
        "    @%p1 bra DONE;", "    bar.sync 1, 128;", "DONE:", "    ret;", "}",
    };
    testlib_write_lines("k.ptx", dead, N_LINES(dead), 0, NULL, NULL);
    ck_assert_msg(ptx_source_open(path, &src, &err) == SIM_OK, "%s", err.msg);
    s = sim_new(&cfg);
    rc = sim_run(s, &src, &err);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "2 of its 2 live warps wait at barrier 1, which waits for 4") !=
                  NULL, "%s", err.msg);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* cp.async.mbarrier.arrive (PTX ISA 9.7.9.25.3.3; cuda::pipeline and
 * cuda::barrier on sm_80 and later): each lane copies word l, which
 * lane l - 1 stored (3 l), to shared memory, then arrives with .noinc on
 * barrier 0 (count 32: the copies' arrivals complete its phase) and
 * without it on barrier 1 (count 32: an arrival added and made, so the
 * phase stays open, %p3 false, until 32 plain arrives complete it, %p4
 * true); after the wait on barrier 0 each lane reads its copy.  Lowered
 * for sm_90, the arrives are ARRIVES.LDGSTSBAR, signals done when the
 * warp's copies have landed (sim/inst.h SIM_SYNC_SIGNAL_ASYNC). */
static uint32_t want_cp_arrive(uint32_t l) { return 3 * l << 8 | 2; }

static const char *const cp_arrive_ptx[] = {
    HEAD(),
    "    add.s32 %r3, %r2, 128;",
    "    @%p1 mbarrier.init.shared::cta.b64 [%r2], 32;",
    "    @%p1 mbarrier.init.shared::cta.b64 [%r2+8], 32;",
    "    bar.sync 0;",
    "    add.s32 %r4, %r1, 1;",
    "    and.b32 %r4, %r4, 31;",
    "    mul.lo.u32 %r5, %r4, 3;",
    "    mul.wide.u32 %rd6, %r4, 4;",
    "    add.s64 %rd7, %rd2, %rd6;",
    "    st.global.u32 [%rd7], %r5;",
    "    bar.sync 0;",
    "    shl.b32 %r6, %r1, 2;",
    "    add.s32 %r7, %r3, %r6;",
    "    cp.async.ca.shared.global [%r7], [%rd3], 4;",
    "    cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];",
    "    cp.async.mbarrier.arrive.shared::cta.b64 [%r2+8];",
    "    mov.u32 %r10, 0;",
    "    mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2+8], 0;",
    "    mbarrier.arrive.shared::cta.b64 %rd5, [%r2+8];",
    "    mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2+8], 0;",
    "WAIT:",
    "    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;",
    "    @!%p2 bra WAIT;",
    "    ld.shared.u32 %r8, [%r7];",
    BIT("%p3", 1), BIT("%p4", 2),
    "    shl.b32 %r9, %r8, 8;",
    "    or.b32 %r10, %r10, %r9;",
    "    st.global.u32 [%rd3], %r10;",
    "    ret;",
    "}",
};

START_TEST(cp_async_arrives)
{
    run_both(cp_arrive_ptx, N_LINES(cp_arrive_ptx), NULL, want_cp_arrive, NULL, 0);
    /* what the model gets */
    struct inst_source src;
    testlib_ptx_open(cp_arrive_ptx, N_LINES(cp_arrive_ptx), NULL, &src);
    struct warp_inst wi[64];
    char names[64][32];
    unsigned n = testlib_warp0(&src, 90, wi, &names[0][0], sizeof names[0], 64), found = 0;
    for (unsigned i = 0; i < n; i++) {
        if (strncmp(names[i], "ARRIVES", 7) != 0)
            continue;
        ck_assert_uint_eq(wi[i].sync, SIM_SYNC_SIGNAL_ASYNC);
        ck_assert_uint_eq(wi[i].sync_obj, found);
        ck_assert_uint_eq(wi[i].aux, 1);
        found++;
    }
    ck_assert_uint_eq(found, 2);
    /* .shared::cluster is not a form of it */
    static const char *const bad[] = { HEAD(), "    cp.async.mbarrier.arrive.noinc.shared::cluster"
                                       ".b64 [%r2];", "    ret;", "}" };
    write_kernel(bad, N_LINES(bad), "grid = 1");
    struct sim_error err = { 0 };
    int rc = testlib_ptx_emulate(&err);
    ck_assert_int_eq(sim_error_exit_status(rc), 2);
    ck_assert_msg(strstr(err.msg, "unsupported cp.async.mbarrier form '.shared::cluster'") != NULL,
                  "%s", err.msg);
}
END_TEST

static Suite *
ptx_sync_suite(void)
{
    Suite *s = suite_create("ptx_sync");
    TCase *tc = tcase_create("sync");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, phases);
    tcase_add_test(tc, pending_count);
    tcase_add_test(tc, transactions);
    tcase_add_test(tc, drops);
    tcase_add_test(tc, bulk_copies);
    tcase_add_test(tc, bulk_copies_from_lanes);
    tcase_add_test(tc, cp_async_arrives);
    tcase_add_test(tc, elect);
    tcase_add_test(tc, setmaxnreg_and_pdl);
    tcase_add_loop_test(tc, wrong_programs, 0, (int)N_LINES(errors));
    tcase_add_test(tc, many_barriers);
    tcase_add_test(tc, no_complete_completing);
    tcase_add_test(tc, unsupported_forms);
    tcase_add_test(tc, clusters);
    tcase_add_test(tc, cluster_bulk);
    tcase_add_test(tc, async_stores);
    tcase_add_test(tc, named_barriers);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_sync_suite)
