/*
 * ffwd.c - functional fast-forward of blocks (see ffwd.h).
 */
#include "sim/ffwd.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

enum { MAXW = SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE };
enum { RUNNING = 0, AT_BARRIER = 1, DONE = 2 };   /* a warp's state */

/* A block being run: its warps' states, live warps, instructions run,
 * the barrier each warp waits at and each barrier's arrivals and count
 * (SIM_BAR_AUX; 0: every live warp). */
struct fblock {
    uint64_t id, insts;
    uint32_t slot, live;
    uint8_t ws[MAXW];
    uint8_t bar[MAXW];
    uint16_t at[SIM_BARRIERS], need[SIM_BARRIERS];
};

/* Release barrier id of b if the warps it waits for have arrived. */
static void
release(struct fblock *b, uint32_t wpb, uint32_t id, bool *progress)
{
    if (b->at[id] == 0 || b->at[id] < (b->need[id] ? b->need[id] : b->live))
        return;
    b->at[id] = 0;
    for (uint32_t k = 0; k < wpb; k++)
        if (b->ws[k] == AT_BARRIER && b->bar[k] == id)
            b->ws[k] = RUNNING;
    *progress = true;
}

static int
fblock_begin(struct inst_source *src, struct fblock *b, uint64_t id, uint32_t slot,
             uint32_t wpb, struct sim_error *err)
{
    memset(b, 0, sizeof *b);
    b->id = id;
    b->slot = slot;
    b->live = wpb;
    return src->ops->block_begin(src->ctx, id, slot, 0, err);
}

/* A turn of block b (the j-th): each of its warps runs until its end, a
 * barrier, a wait for the others (SIM_SYNC_WAITING, _BLOCKED), `quantum`
 * memory instructions or `turn_max` instructions in all, its first fetch
 * at `now` (SIM_CYCLE_TIMEOUT: the wait it is blocked at times out); a
 * barrier releases once the warps it waits for have arrived.  *progress is
 * set when anything but a wait ran (a try_wait that timed out did) or a
 * barrier released. */
static int
fblock_turn(struct inst_source *src, uint32_t wpb, struct fblock *b, uint32_t j,
            uint32_t quantum, uint32_t turn_max, sim_cycle_t now, ffwd_inst_fn fn, void *ctx,
            bool *progress, struct sim_error *err)
{
    struct warp_inst wi;
    for (uint32_t k = 0; k < wpb; k++) {
        for (uint32_t n = 0, all = 0; b->ws[k] == RUNNING && n < quantum && all < turn_max;
             all++) {
            /* a timeout is for the wait the warp is blocked at */
            int r = inst_source_next(src, b->slot, k, all == 0 ? now : SIM_CYCLE_MAX, &wi, err);
            if (r < 0)
                return r;
            if (r == 0) {
                b->ws[k] = DONE;
                b->live--;
                *progress = true;
                break;
            }
            if (wi.sync == SIM_SYNC_BLOCKED)   /* not executed: again at its next turn */
                break;
            b->insts++;
            if (wi.space != SIM_SPACE_NONE || wi.bulk != SIM_BULK_NONE)
                n++;
            if (fn != NULL)
                SIM_FORWARD_IF_ERROR(fn(ctx, j, k, &wi, err));
            if (wi.flags & SIM_IF_BARRIER) {
                uint32_t id = SIM_BAR_ID(wi.aux);
                b->at[id]++;
                b->need[id] = (uint16_t)SIM_BAR_WARPS(wi.aux);
                if (!SIM_BAR_ARRIVE(wi.aux)) {
                    b->ws[k] = AT_BARRIER;
                    b->bar[k] = (uint8_t)id;
                }
                release(b, wpb, id, progress);
            }
            if (wi.sync == SIM_SYNC_WAITING)   /* its phase needs the others */
                break;
            *progress = true;
        }
    }
    for (uint32_t id = 0; id < SIM_BARRIERS; id++)   /* warps may have finished */
        release(b, wpb, id, progress);
    return SIM_OK;
}

/* After a round (run at *now) in which something moved or not: the next
 * round's now (SIM_CYCLE_TIMEOUT after one in which nothing did), and
 * true when the rounds are a deadlock: nothing moved even with waits
 * timing out, or only timed-out waits have moved for FFWD_TIMEOUTS rounds. */
static bool
round_end(sim_cycle_t *now, uint32_t *timeouts, bool progress)
{
    if (*now == SIM_CYCLE_TIMEOUT && (!progress || ++*timeouts > FFWD_TIMEOUTS))
        return true;
    if (progress && *now == SIM_CYCLE_MAX)
        *timeouts = 0;
    *now = progress ? SIM_CYCLE_MAX : SIM_CYCLE_TIMEOUT;
    return false;
}

static int
deadlock(const struct fblock *b, bool cluster, struct sim_error *err)
{
    return sim_error_set(err, SIM_ERR_FORMAT, "kernel deadlocked: every warp left of block "
                         "%llu%s waits for another (a bar.sync count more than the warps that "
                         "reach it, a barrier.cluster or an mbarrier phase that never "
                         "completes)", (unsigned long long)b->id,
                         cluster ? " and its cluster" : "");
}

int
ffwd_blocks(struct inst_source *src, uint32_t wpb, const uint64_t *ids, const uint32_t *slots,
            uint32_t nb, ffwd_inst_fn fn, void *ctx, uint64_t *warp_insts, struct sim_error *err)
{
    struct fblock b[16];
    if (nb == 0 || nb > 16 || wpb == 0 || wpb > MAXW)
        return sim_error_set(err, SIM_ERR_INTERNAL, "ffwd: %u blocks of %u warps", nb, wpb);
    for (uint32_t j = 0; j < nb; j++)
        SIM_FORWARD_IF_ERROR(fblock_begin(src, &b[j], ids[j], slots[j], wpb, err));
    /* a round in which nothing moved is run again with waits timing out
     * (inst.h, SIM_CYCLE_TIMEOUT); if nothing moves then, or only timed-out
     * waits ever do, it is a deadlock */
    sim_cycle_t now = SIM_CYCLE_MAX;
    uint32_t timeouts = 0;
    for (uint32_t left = nb; left > 0;) {
        bool progress = false;
        left = 0;
        for (uint32_t j = 0; j < nb; j++) {
            if (b[j].live > 0)
                SIM_FORWARD_IF_ERROR(fblock_turn(src, wpb, &b[j], j, UINT32_MAX, FFWD_SLICE, now,
                                                 fn, ctx, &progress, err));
            left += b[j].live > 0;
        }
        if (left > 0 && round_end(&now, &timeouts, progress))
            return deadlock(&b[0], nb > 1, err);
    }
    for (uint32_t j = 0; j < nb; j++) {
        src->ops->block_end(src->ctx, slots[j]);
        *warp_insts += b[j].insts;
    }
    return SIM_OK;
}

int
ffwd_run(struct inst_source *src, uint32_t wpb, uint64_t lo, uint64_t hi, uint32_t slot0,
         uint32_t n_slots, uint32_t quantum, const struct ffwd_calls *calls,
         struct sim_error *err)
{
    if (wpb == 0 || wpb > MAXW || n_slots == 0 || quantum == 0)
        return sim_error_set(err, SIM_ERR_INTERNAL, "ffwd_run: %u slots of %u warps", n_slots, wpb);
    struct fblock *b = xcalloc(n_slots, sizeof *b);
    uint64_t next = lo;
    uint32_t active = 0;
    int rc = SIM_OK;

    for (uint32_t j = 0; j < n_slots && next < hi && rc == SIM_OK; j++, active++)
        rc = fblock_begin(src, &b[j], next++, slot0 + j, wpb, err);
    sim_cycle_t now = SIM_CYCLE_MAX;   /* SIM_CYCLE_TIMEOUT: as in ffwd_blocks() */
    uint32_t timeouts = 0;
    while (active > 0 && rc == SIM_OK) {
        bool progress = false;
        for (uint32_t j = 0; j < n_slots && rc == SIM_OK; j++) {
            if (b[j].live == 0)
                continue;
            rc = fblock_turn(src, wpb, &b[j], j, quantum, FFWD_TURN_MAX, now, calls->inst,
                             calls->ctx, &progress, err);
            if (rc != SIM_OK || b[j].live > 0)
                continue;
            /* the block is done: the next one takes its slot */
            src->ops->block_end(src->ctx, b[j].slot);
            if (calls->block_done != NULL)
                calls->block_done(calls->ctx, b[j].id, b[j].insts);
            if (next < hi)
                rc = fblock_begin(src, &b[j], next++, slot0 + j, wpb, err);
            else
                active--;
        }
        if (rc == SIM_OK && active > 0 && round_end(&now, &timeouts, progress))
            for (uint32_t j = 0; j < n_slots && rc == SIM_OK; j++)
                if (b[j].live > 0)
                    rc = deadlock(&b[j], false, err);
    }
    free(b);
    return rc;
}
