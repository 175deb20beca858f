/*
 * check_ffwd.c - functional fast-forward (sim/ffwd.h): every instruction of
 * every block is run, barriers hold a warp until its block's live warps
 * all reach them, ffwd_run() keeps its slots full and interleaves the
 * warps of its blocks, and a block whose warps only wait is a deadlock.
 */
#include "sim/ffwd.h"
#include "testlib.h"

#include <string.h>

/* A fake source: each warp runs N instructions, the one at index B (if
 * any) a barrier; warp 1 of a block may instead wait forever. */
#define N 6
#define B 2
#define SLOTS 8
#define WARPS 2
struct fake {
    uint64_t block[SLOTS];
    bool open[SLOTS];
    uint32_t pc[SLOTS][WARPS];
    uint32_t at_barrier[SLOTS];      /* warps of the block past its barrier instruction */
    bool barrier, stuck;
    int blocked;                     /* warp 1 blocks at instruction 3: 1 until warp 0 ends,
                                        2 until it times out, 3 for ever (a spin) */
    int begins, ends, violations, timeouts;
    uint64_t order[4096];            /* block * 16 + warp of each instruction, in order */
    size_t n_order;
};

static int
f_block_begin(void *ctx, uint64_t id, uint32_t slot, uint32_t sm, struct sim_error *err)
{
    struct fake *f = ctx;
    (void)sm, (void)err;
    ck_assert(!f->open[slot]);
    f->open[slot] = true;
    f->block[slot] = id;
    memset(f->pc[slot], 0, sizeof f->pc[slot]);
    f->at_barrier[slot] = 0;
    f->begins++;
    return SIM_OK;
}

static int
f_next(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now, struct warp_inst *wi,
       struct sim_error *err)
{
    struct fake *f = ctx;
    (void)err;
    ck_assert(f->open[slot]);
    ck_assert(SIM_UNTIMED(now));
    memset(wi, 0, sizeof *wi);
    if (f->stuck && warp == 1) {
        wi->sync = SIM_SYNC_WAITING;
        return 1;
    }
    uint32_t *pc = &f->pc[slot][warp];
    if (*pc == N)
        return 0;
    if (f->blocked && warp == 1 && *pc == 3) {
        if (now == SIM_CYCLE_TIMEOUT) {
            f->timeouts++;
            if (f->blocked == 3)
                return 1;            /* timed out, and loops back to the wait */
        } else if (f->blocked != 1 || f->pc[slot][0] < N) {
            wi->sync = SIM_SYNC_BLOCKED;
            return 1;
        }
    }
    /* past the barrier only once every warp of the block has reached it */
    if (f->barrier && *pc == B + 1 && f->at_barrier[slot] < WARPS)
        f->violations++;
    if (f->barrier && *pc == B) {
        wi->flags = SIM_IF_BARRIER;
        f->at_barrier[slot]++;
    } else if (*pc % 2 == 0) {       /* every other instruction a load */
        wi->space = SIM_SPACE_GLOBAL;
        wi->flags = SIM_IF_LOAD;
    }
    if (f->n_order < 4096)
        f->order[f->n_order++] = f->block[slot] * 16 + warp;
    (*pc)++;
    return 1;
}

static void
f_block_end(void *ctx, uint32_t slot)
{
    struct fake *f = ctx;
    ck_assert(f->open[slot]);
    f->open[slot] = false;
    f->ends++;
}

static const struct inst_source_ops fake_ops = {
    .block_begin = f_block_begin, .next_inst = f_next, .block_end = f_block_end,
};

static uint64_t done_insts[64];
static int done_n;

static void
on_done(void *ctx, uint64_t id, uint64_t insts)
{
    (void)ctx;
    ck_assert_uint_lt(id, 64);
    done_insts[id] = insts;
    done_n++;
}

START_TEST(test_blocks_run_every_instruction_with_barriers)
{
    static struct fake f;
    memset(&f, 0, sizeof f);
    f.barrier = true;
    struct inst_source src = { &fake_ops, &f };
    struct sim_error err = { 0 };
    uint64_t ids[2] = { 7, 8 }, n = 0;
    uint32_t slots[2] = { 3, 5 };
    ck_assert_int_eq(ffwd_blocks(&src, WARPS, ids, slots, 2, NULL, NULL, &n, &err), SIM_OK);
    ck_assert_uint_eq(n, 2 * WARPS * N);
    ck_assert_int_eq(f.begins, 2);
    ck_assert_int_eq(f.ends, 2);
    ck_assert_int_eq(f.violations, 0);
}
END_TEST

START_TEST(test_run_keeps_its_slots_full_and_interleaves)
{
    static struct fake f;
    memset(&f, 0, sizeof f);
    f.barrier = true;
    struct inst_source src = { &fake_ops, &f };
    struct sim_error err = { 0 };
    struct ffwd_calls calls = { NULL, on_done, NULL };
    memset(done_insts, 0, sizeof done_insts);
    done_n = 0;
    ck_assert_int_eq(ffwd_run(&src, WARPS, 10, 20, 5, 3, 1, &calls, &err), SIM_OK);   /* 5..7 */
    ck_assert_int_eq(done_n, 10);
    for (int b = 10; b < 20; b++)
        ck_assert_uint_eq(done_insts[b], WARPS * N);
    ck_assert_int_eq(f.begins, 10);
    ck_assert_int_eq(f.ends, 10);
    ck_assert_int_eq(f.violations, 0);
    /* quantum 1: a turn ends at a warp's first load (instruction 0), so the
     * first go block 10 warp 0, warp 1, block 11 warp 0, ...; the next turn
     * runs instruction 1 (not a load) and the barrier (2) */
    ck_assert_uint_eq(f.order[0], 10 * 16 + 0);
    ck_assert_uint_eq(f.order[1], 10 * 16 + 1);
    ck_assert_uint_eq(f.order[2], 11 * 16 + 0);
    ck_assert_uint_eq(f.order[3], 11 * 16 + 1);
    ck_assert_uint_eq(f.order[4], 12 * 16 + 0);
    ck_assert_uint_eq(f.order[6], 10 * 16 + 0);
    ck_assert_uint_eq(f.order[7], 10 * 16 + 0);
    ck_assert_uint_eq(f.order[8], 10 * 16 + 1);
    ck_assert_uint_eq(f.n_order, 10 * WARPS * N);
}
END_TEST

START_TEST(test_a_block_that_only_waits_is_a_deadlock)
{
    static struct fake f;
    memset(&f, 0, sizeof f);
    f.stuck = true;
    struct inst_source src = { &fake_ops, &f };
    struct sim_error err = { 0 };
    uint32_t slots[1] = { 0 };
    struct ffwd_calls calls = { NULL, NULL, NULL };
    ck_assert_int_eq(ffwd_run(&src, WARPS, 0, 1, 0, 1, 4, &calls, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "deadlocked"));
    memset(&f, 0, sizeof f);
    f.stuck = true;
    uint64_t id = 0, n = 0;
    ck_assert_int_eq(ffwd_blocks(&src, WARPS, &id, slots, 1, NULL, NULL, &n, &err),
                     SIM_ERR_FORMAT);
}
END_TEST

/* A blocked wait is neither counted nor handed on; it goes on once its
 * phase completes, times out when nothing else can move, and a wait that
 * only ever times out is a deadlock. */
START_TEST(test_blocked_waits_time_out_only_when_nothing_moves)
{
    static struct fake f;
    struct inst_source src = { &fake_ops, &f };
    struct sim_error err = { 0 };
    uint32_t slots[1] = { 0 };
    for (int mode = 1; mode <= 3; mode++) {
        memset(&f, 0, sizeof f);
        f.blocked = mode;
        uint64_t id = 0, n = 0;
        int rc = ffwd_blocks(&src, WARPS, &id, slots, 1, NULL, NULL, &n, &err);
        if (mode == 3) {
            ck_assert_int_eq(rc, SIM_ERR_FORMAT);
            ck_assert_ptr_nonnull(strstr(err.msg, "deadlocked"));
            ck_assert_int_eq(f.timeouts, FFWD_TIMEOUTS + 1);
            continue;
        }
        ck_assert_int_eq(rc, SIM_OK);
        ck_assert_uint_eq(n, WARPS * N);       /* the blocked fetches not counted */
        ck_assert_uint_eq(f.n_order, WARPS * N);
        ck_assert_int_eq(f.timeouts, mode == 1 ? 0 : 1);
    }
}
END_TEST

static Suite *
ffwd_suite(void)
{
    Suite *s = suite_create("ffwd");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_blocks_run_every_instruction_with_barriers);
    tcase_add_test(tc, test_run_keeps_its_slots_full_and_interleaves);
    tcase_add_test(tc, test_a_block_that_only_waits_is_a_deadlock);
    tcase_add_test(tc, test_blocked_waits_time_out_only_when_nothing_moves);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ffwd_suite)
