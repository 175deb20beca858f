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

/* Run block id to completion, handing each instruction to sink (which may
 * be NULL: emulation only). */
static int
record_block(struct inst_source *src, const struct record_sink *sink, uint32_t wpb, uint64_t id,
             struct record_totals *tot, struct sim_error *err)
{
    bool done[SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE] = { false };
    bool waiting[SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE] = { false };
    struct warp_inst wi;
    uint32_t live = wpb;

    SIM_FORWARD_IF_ERROR(src->ops->block_begin(src->ctx, id, 0, 0, err));
    if (sink != NULL)
        SIM_FORWARD_IF_ERROR(sink->block_begin(sink->ctx, id, err));
    while (live > 0) {
        /* run every live warp up to its next barrier or its end, or for
         * RECORD_SLICE instructions */
        bool yielded = false;
        for (uint32_t k = 0; k < wpb; k++) {
            for (uint32_t n = 0; !done[k] && !waiting[k]; n++) {
                if (n == RECORD_SLICE) {
                    yielded = true;
                    break;
                }
                int r = inst_source_next(src, 0, k, SIM_CYCLE_MAX, &wi, err);
                if (r < 0)
                    return r;
                if (r == 0) {
                    done[k] = true;
                    live--;
                    break;
                }
                if (sink != NULL)
                    SIM_FORWARD_IF_ERROR(sink->inst(sink->ctx, k, &wi, err));
                tot->warp_insts++;
                if (wi.flags & SIM_IF_BARRIER)
                    waiting[k] = true;
                if (wi.sync == SIM_SYNC_WAITING) {   /* its phase needs the others */
                    yielded = true;
                    break;
                }
            }
        }
        /* when every live warp waits at the barrier: release it */
        for (uint32_t k = 0; k < wpb && !yielded; k++)
            waiting[k] = false;
    }
    src->ops->block_end(src->ctx, 0);
    if (sink != NULL)
        SIM_FORWARD_IF_ERROR(sink->block_end(sink->ctx, err));
    tot->blocks++;
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
        rc = src->ops->kernel_begin(src->ctx, 1, 1, err);
        if (rc == SIM_OK && sink != NULL)
            rc = sink->kernel_begin(sink->ctx, ki, err);
        for (uint64_t b = 0; rc == SIM_OK && b < nb; b++)
            rc = record_block(src, sink, wpb, b, tot, err);
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
