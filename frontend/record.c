/*
 * record.c - source -> .smt copier (see record.h).
 */
#include "frontend/record.h"

#include <stdlib.h>
#include <string.h>
#include "frontend/smt/smt.h"
#include "frontend/smt/smt_writer.h"

#define MAX_OPNAMES 65536u

/* Instructions a warp runs before the others of its block get a turn when
 * it reaches no barrier: a warp may spin on a word another warp of the
 * block sets (cooperative groups' barrier of a tile of 64 threads and
 * more), which without turns would never end.  Kernels whose warps meet a
 * barrier or end within this many instructions run as before, each warp
 * up to its barrier. */
#define RECORD_SLICE 65536u

/* Run the blocks ids[0 .. nb) (a cluster's, or one block) to completion
 * together, in slots 0 .. nb - 1, handing each instruction to sink (which
 * may be NULL: emulation only; it takes one block at a time).  Each round
 * runs every live warp up to its next barrier, a wait for the others
 * (SIM_SYNC_WAITING) or its end, or for RECORD_SLICE instructions; a
 * block's barrier releases when every live warp of the block waits at it.
 * A round in which nothing but waits ran, with warps left, is a deadlock. */
static int
record_blocks(struct inst_source *src, const struct record_sink *sink, uint32_t wpb,
              const uint64_t *ids, uint32_t nb, struct record_totals *tot, struct sim_error *err)
{
    enum { MAXW = SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE };
    bool done[16][MAXW], waiting[16][MAXW];
    uint32_t live[16];
    struct warp_inst wi;
    memset(done, 0, sizeof done);
    memset(waiting, 0, sizeof waiting);
    for (uint32_t j = 0; j < nb; j++) {
        live[j] = wpb;
        SIM_FORWARD_IF_ERROR(src->ops->block_begin(src->ctx, ids[j], j, 0, err));
    }
    if (sink != NULL)
        SIM_FORWARD_IF_ERROR(sink->block_begin(sink->ctx, ids[0], err));
    uint32_t left = nb;
    while (left > 0) {
        bool progress = false;
        for (uint32_t j = 0; j < nb; j++) {
            bool yielded = false;
            for (uint32_t k = 0; k < wpb; k++) {
                for (uint32_t n = 0; !done[j][k] && !waiting[j][k]; n++) {
                    if (n == RECORD_SLICE) {
                        yielded = true;
                        break;
                    }
                    int r = inst_source_next(src, j, k, SIM_CYCLE_MAX, &wi, err);
                    if (r < 0)
                        return r;
                    if (r == 0) {
                        done[j][k] = true;
                        progress = true;
                        if (--live[j] == 0)
                            left--;
                        break;
                    }
                    if (sink != NULL)
                        SIM_FORWARD_IF_ERROR(sink->inst(sink->ctx, k, &wi, err));
                    tot->warp_insts++;
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
    for (uint32_t j = 0; j < nb; j++) {
        src->ops->block_end(src->ctx, j);
        tot->blocks++;
    }
    if (sink != NULL)
        SIM_FORWARD_IF_ERROR(sink->block_end(sink->ctx, err));
    return SIM_OK;
}

/* Run every kernel from *ki on (the first already fetched). */
static int
drive(struct inst_source *src, struct kernel_info *ki, const struct record_sink *sink,
      struct record_totals *tot, struct sim_error *err)
{
    int rc = 1;
    while (rc > 0) {
        uint32_t wpb = kernel_info_warps_per_block(ki);
        uint64_t nb = kernel_info_blocks(ki);
        uint32_t cs = kernel_info_cluster_size(ki);
        if (cs > 1 && sink != NULL)
            return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s: unsupported: recording "
                                 "or exporting a trace of thread-block clusters", ki->name);
        rc = src->ops->kernel_begin(src->ctx, cs, 1, err);
        if (rc == SIM_OK && sink != NULL)
            rc = sink->kernel_begin(sink->ctx, ki, err);
        uint64_t ids[16];
        for (uint64_t c = 0; rc == SIM_OK && c < nb / cs; c++)   /* cs 1: block c alone */
            rc = record_blocks(src, sink, wpb, ids, kernel_info_cluster_blocks(ki, c, ids), tot,
                               err);
        if (rc == SIM_OK && sink != NULL)
            rc = sink->kernel_end(sink->ctx, err);
        if (rc < 0)
            return rc;
        tot->kernels++;
        rc = src->ops->next_kernel(src->ctx, ki, err);
    }
    return rc;
}

int
record_drive(struct inst_source *src, const struct record_sink *sink, struct record_totals *tot,
             struct sim_error *err)
{
    struct kernel_info ki;
    memset(tot, 0, sizeof *tot);
    int rc = src->ops->next_kernel(src->ctx, &ki, err);
    if (rc <= 0)
        return rc;
    return drive(src, &ki, sink, tot, err);
}

/* The .smt writer as a sink. */
static int
smt_kernel_begin(void *ctx, const struct kernel_info *ki, struct sim_error *err)
{
    return smt_writer_kernel_begin(ctx, ki, err);
}

static int
smt_block_begin(void *ctx, uint64_t id, struct sim_error *err)
{
    return smt_writer_block_begin(ctx, id, err);
}

static int
smt_inst(void *ctx, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    return smt_writer_add(ctx, warp, wi, err);
}

static int
smt_block_end(void *ctx, struct sim_error *err)
{
    return smt_writer_block_end(ctx, err);
}

static int
smt_kernel_end(void *ctx, struct sim_error *err)
{
    return smt_writer_kernel_end(ctx, err);
}

int
record_emulate(struct inst_source *src, struct record_totals *tot, struct sim_error *err)
{
    return record_drive(src, NULL, tot, err);
}

int
record_to_smt(struct inst_source *src, const char *path, const char *producer,
              uint32_t chunk_raw, struct record_totals *tot, struct sim_error *err)
{
    struct kernel_info ki;
    const char **names = NULL;
    size_t n_names = 0;
    smt_writer *w = NULL;
    int rc;

    memset(tot, 0, sizeof *tot);
    rc = src->ops->next_kernel(src->ctx, &ki, err);
    if (rc < 0)
        return rc;
    if (src->ops->opcode_name != NULL) {
        names = xcalloc(MAX_OPNAMES, sizeof *names);
        while (n_names < MAX_OPNAMES) {
            const char *nm = src->ops->opcode_name(src->ctx, (uint16_t)n_names);
            if (nm == NULL)
                break;
            names[n_names++] = nm;
        }
    }
    w = smt_writer_open(path, ki.isa, ki.isa_version, producer, names, n_names, chunk_raw, err);
    free(names);
    if (w == NULL)
        return err->code < 0 ? err->code : SIM_ERR_IO;
    struct record_sink sink = { smt_kernel_begin, smt_block_begin, smt_inst, smt_block_end,
                                smt_kernel_end, w };
    if (rc > 0)
        rc = drive(src, &ki, &sink, tot, err);
    if (rc < 0) {
        smt_writer_abort(w);
        return rc;
    }
    return smt_writer_close(w, err);
}
