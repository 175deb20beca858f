/*
 * ffwd.c - functional fast-forward of blocks (see ffwd.h).
 */
#include "sim/ffwd.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

int
ffwd_blocks(struct inst_source *src, uint32_t wpb, const uint64_t *ids, const uint32_t *slots,
            uint32_t nb, ffwd_inst_fn fn, void *ctx, uint64_t *warp_insts, struct sim_error *err)
{
    enum { MAXW = SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE, MAXB = 16 };
    bool done[MAXB][MAXW], waiting[MAXB][MAXW];
    uint32_t live[MAXB];
    struct warp_inst wi;
    if (nb == 0 || nb > MAXB || wpb == 0 || wpb > MAXW)
        return sim_error_set(err, SIM_ERR_INTERNAL, "ffwd: %u blocks of %u warps", nb, wpb);
    memset(done, 0, sizeof done);
    memset(waiting, 0, sizeof waiting);
    for (uint32_t j = 0; j < nb; j++) {
        live[j] = wpb;
        SIM_FORWARD_IF_ERROR(src->ops->block_begin(src->ctx, ids[j], slots[j], 0, err));
    }
    uint32_t left = nb;
    while (left > 0) {
        bool progress = false;
        for (uint32_t j = 0; j < nb; j++) {
            bool yielded = false;
            for (uint32_t k = 0; k < wpb; k++) {
                for (uint32_t n = 0; !done[j][k] && !waiting[j][k]; n++) {
                    if (n == FFWD_SLICE) {
                        yielded = true;
                        break;
                    }
                    int r = inst_source_next(src, slots[j], k, SIM_CYCLE_MAX, &wi, err);
                    if (r < 0)
                        return r;
                    if (r == 0) {
                        done[j][k] = true;
                        progress = true;
                        if (--live[j] == 0)
                            left--;
                        break;
                    }
                    if (fn != NULL)
                        SIM_FORWARD_IF_ERROR(fn(ctx, j, k, &wi, err));
                    (*warp_insts)++;
                    if (wi.flags & SIM_IF_BARRIER)
                        waiting[j][k] = true;
                    if (wi.sync == SIM_SYNC_WAITING) {   /* its phase needs the others */
                        yielded = true;
                        break;
                    }
                    progress = true;
                }
            }
            /* when every live warp of the block waits at its barrier: release it */
            bool all = !yielded;
            for (uint32_t k = 0; k < wpb && all; k++)
                all = done[j][k] || waiting[j][k];
            for (uint32_t k = 0; k < wpb && all; k++) {
                progress = progress || waiting[j][k];
                waiting[j][k] = false;
            }
        }
        if (!progress && left > 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "kernel deadlocked: every warp left of "
                                 "block %llu%s waits for another (a barrier.cluster or an "
                                 "mbarrier phase that never completes)",
                                 (unsigned long long)ids[0], nb > 1 ? " and its cluster" : "");
    }
    for (uint32_t j = 0; j < nb; j++)
        src->ops->block_end(src->ctx, slots[j]);
    return SIM_OK;
}

/* A running block of ffwd_run(): per warp, 0 running, 1 at a barrier, 2 done. */
enum { RUNNING = 0, AT_BARRIER = 1, DONE = 2 };

int
ffwd_run(struct inst_source *src, uint32_t wpb, uint64_t lo, uint64_t hi, const uint32_t *slots,
         uint32_t n_slots, uint32_t quantum, const struct ffwd_calls *calls, struct sim_error *err)
{
    enum { MAXW = SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE };
    if (wpb == 0 || wpb > MAXW || n_slots == 0 || quantum == 0)
        return sim_error_set(err, SIM_ERR_INTERNAL, "ffwd_run: %u slots of %u warps", n_slots, wpb);
    uint8_t *st = xcalloc((size_t)n_slots * wpb, 1);
    uint64_t *id = xcalloc(n_slots, sizeof *id), *insts = xcalloc(n_slots, sizeof *insts);
    uint32_t *live = xcalloc(n_slots, sizeof *live);
    bool *used = xcalloc(n_slots, sizeof *used);
    uint64_t next = lo;
    uint32_t active = 0;
    struct warp_inst wi;
    int rc = SIM_OK;

    for (uint32_t j = 0; j < n_slots && next < hi && rc == SIM_OK; j++, next++) {
        rc = src->ops->block_begin(src->ctx, next, slots[j], 0, err);
        id[j] = next;
        live[j] = wpb;
        used[j] = true;
        active++;
    }
    while (active > 0 && rc == SIM_OK) {
        bool progress = false;
        for (uint32_t j = 0; j < n_slots && rc == SIM_OK; j++) {
            if (!used[j])
                continue;
            uint8_t *ws = st + (size_t)j * wpb;
            bool barrier = false;
            for (uint32_t k = 0; k < wpb && rc == SIM_OK; k++) {
                /* a turn: `quantum` memory instructions, or FFWD_TURN_MAX in all */
                for (uint32_t n = 0, all = 0; ws[k] == RUNNING && n < quantum &&
                                              all < FFWD_TURN_MAX; all++) {
                    int r = inst_source_next(src, slots[j], k, SIM_CYCLE_MAX, &wi, err);
                    if (r < 0) {
                        rc = r;
                        break;
                    }
                    if (r == 0) {
                        ws[k] = DONE;
                        live[j]--;
                        progress = true;
                        break;
                    }
                    insts[j]++;
                    if (wi.space != SIM_SPACE_NONE || wi.bulk != SIM_BULK_NONE)
                        n++;
                    if (calls->inst != NULL && (rc = calls->inst(calls->ctx, j, k, &wi, err)) < 0)
                        break;
                    if (wi.flags & SIM_IF_BARRIER)
                        ws[k] = AT_BARRIER;
                    if (wi.sync == SIM_SYNC_WAITING)   /* its phase needs the others */
                        break;
                    progress = true;
                }
                barrier = barrier || ws[k] == AT_BARRIER;
            }
            if (rc != SIM_OK)
                break;
            /* every live warp at the barrier: release it */
            bool all = barrier;
            for (uint32_t k = 0; k < wpb && all; k++)
                all = ws[k] != RUNNING;
            for (uint32_t k = 0; k < wpb && all; k++)
                if (ws[k] == AT_BARRIER) {
                    ws[k] = RUNNING;
                    progress = true;
                }
            if (live[j] > 0)
                continue;
            /* the block is done: the next one takes its slot */
            src->ops->block_end(src->ctx, slots[j]);
            if (calls->block_done != NULL)
                calls->block_done(calls->ctx, id[j], insts[j]);
            memset(ws, 0, wpb);
            insts[j] = 0;
            if (next < hi) {
                rc = src->ops->block_begin(src->ctx, next, slots[j], 0, err);
                id[j] = next++;
                live[j] = wpb;
            } else {
                used[j] = false;
                active--;
            }
        }
        if (!progress && rc == SIM_OK)
            rc = sim_error_set(err, SIM_ERR_FORMAT, "kernel deadlocked: every warp left of "
                               "block %llu waits for another (an mbarrier phase that never "
                               "completes)", (unsigned long long)id[0]);
    }
    free(st);
    free(id);
    free(insts);
    free(live);
    free(used);
    return rc;
}
