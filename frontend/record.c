/*
 * record.c - source -> .smt copier (see record.h).
 */
#include "frontend/record.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "frontend/smt/smt.h"
#include "frontend/smt/smt_writer.h"
#include "sim/ffwd.h"

#define MAX_OPNAMES 65536u
/* blocks of a cooperative launch emulated at once: more than any GPU holds
 * (132 SMs x 32 blocks on the H100) */
#define SIM_MAX_COOP_BLOCKS 65536u

static int
sink_inst(void *ctx, uint32_t j, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    const struct record_sink *sink = ctx;
    (void)j;
    return sink->inst(sink->ctx, warp, wi, err);
}

/* Run the blocks ids[0 .. nb) (a cluster's, or one block) to completion
 * together, in slots 0 .. nb - 1 (ffwd.h's order), handing each
 * instruction to sink (which may be NULL: emulation only; it takes one
 * block at a time). */
static int
record_blocks(struct inst_source *src, const struct record_sink *sink, uint32_t wpb,
              const uint64_t *ids, uint32_t nb, struct record_totals *tot, struct sim_error *err)
{
    static const uint32_t slots[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
    if (sink != NULL)
        SIM_FORWARD_IF_ERROR(sink->block_begin(sink->ctx, ids[0], err));
    SIM_FORWARD_IF_ERROR(ffwd_blocks(src, wpb, ids, slots, nb, sink != NULL ? sink_inst : NULL,
                                     (void *)sink, &tot->warp_insts, err));
    tot->blocks += nb;
    if (sink != NULL)
        SIM_FORWARD_IF_ERROR(sink->block_end(sink->ctx, err));
    return SIM_OK;
}

static void
count_block(void *ctx, uint64_t id, uint64_t warp_insts)
{
    struct record_totals *tot = ctx;
    (void)id;
    tot->blocks++;
    tot->warp_insts += warp_insts;
}

/* A cooperative launch (emulation only): every block at once, their warps
 * interleaved a memory instruction at a time, so that the blocks that
 * wait at a grid sync see the others arrive. */
static int
run_cooperative(struct inst_source *src, const struct kernel_info *ki,
                struct record_totals *tot, struct sim_error *err)
{
    uint64_t nb = kernel_info_blocks(ki);
    if (kernel_info_cluster_size(ki) > 1)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s: unsupported: emulating a "
                             "cooperative launch with thread-block clusters (simulate it: "
                             "the timing model runs it)", ki->name);
    if (nb > SIM_MAX_COOP_BLOCKS)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s: unsupported: a cooperative "
                             "launch of %" PRIu64 " blocks (at most %u)", ki->name, nb,
                             SIM_MAX_COOP_BLOCKS);
    SIM_FORWARD_IF_ERROR(src->ops->kernel_begin(src->ctx, (uint32_t)nb, 1, err));
    struct ffwd_calls calls = { NULL, count_block, tot };
    return ffwd_run(src, kernel_info_warps_per_block(ki), 0, nb, 0, (uint32_t)nb, 1, &calls, err);
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
        if (ki->cooperative && sink != NULL)
            return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s: unsupported: recording "
                                 "or exporting a trace of a cooperative launch", ki->name);
        if (ki->cooperative) {
            rc = run_cooperative(src, ki, tot, err);
        } else {
            rc = src->ops->kernel_begin(src->ctx, cs, 1, err);
            if (rc == SIM_OK && sink != NULL)
                rc = sink->kernel_begin(sink->ctx, ki, err);
            uint64_t ids[16];
            for (uint64_t c = 0; rc == SIM_OK && c < nb / cs; c++)   /* cs 1: block c alone */
                rc = record_blocks(src, sink, wpb, ids, kernel_info_cluster_blocks(ki, c, ids),
                                   tot, err);
            if (rc == SIM_OK && sink != NULL)
                rc = sink->kernel_end(sink->ctx, err);
        }
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
