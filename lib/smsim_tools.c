/*
 * smsim_tools.c - libsmsim's tools over a source or a config: functional
 * emulation, launch inputs, .smt recording and checking, Accel-Sim export,
 * the SASS listing (`smsim sass`) and the occupancy calculator.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/smsim.h"
#include "lib/smsim_internal.h"
#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "frontend/sass/accelsim.h"
#include "frontend/sass/sass_isa.h"
#include "frontend/smt/smt.h"
#include "sim/occupancy.h"
#include "sim/stats.h"

static void
totals(struct smsim_totals *out, const struct record_totals *t)
{
    *out = (struct smsim_totals){ t->kernels, t->blocks, t->warp_insts, 0, 0, 0 };
}

int
smsim_emulate(smsim_source *src, struct smsim_totals *tot, smsim_error *err)
{
    struct record_totals t = { 0 };
    int rc = record_emulate(&src->src, &t, SERR(err));
    totals(tot, &t);
    return rc;
}

int
smsim_launch_write_inputs(const char *launch, const char *dir, smsim_error *err)
{
    struct launch *l = NULL;
    int rc = launch_parse(launch, &l, SERR(err));
    if (rc == SIM_OK)
        rc = launch_write_inputs(l, dir, SERR(err));
    launch_free(l);
    return rc;
}

int
smsim_trace_record(smsim_source *src, const char *path, const char *producer, uint32_t chunk,
                   struct smsim_totals *tot, smsim_error *err)
{
    struct record_totals t = { 0 };
    int rc = record_to_smt(&src->src, path, producer, chunk, &t, SERR(err));
    totals(tot, &t);
    return rc;
}

int
smsim_trace_export(smsim_source *src, const char *dir, unsigned binary_version,
                   struct smsim_export_totals *tot, smsim_error *err)
{
    struct accelsim_export_opts eo = { binary_version };
    struct accelsim_export_totals t = { 0 };
    int rc = accelsim_export(&src->src, dir, &eo, &t, SERR(err));
    *tot = (struct smsim_export_totals){ t.kernels, t.warp_insts, t.approximated,
                                         t.regs_folded, t.regs_dropped, t.async_approx };
    return rc;
}

int
smsim_trace_verify(const char *path, struct smsim_trace_totals *tot, smsim_error *err)
{
    struct smt_totals t = { 0 };
    int rc = smt_verify(path, &t, SERR(err));
    *tot = (struct smsim_trace_totals){ t.bytes, t.kernels, t.blocks, t.warps, t.chunks,
                                        t.warp_insts, t.thread_insts, t.raw_bytes };
    return rc;
}

int
smsim_trace_info(const char *path, FILE *out, smsim_error *err)
{
    return smt_info(path, out, SERR(err));
}

int
smsim_trace_dump(const char *path, FILE *out, int64_t kernel, int64_t block, int64_t warp,
                 uint64_t limit, smsim_error *err)
{
    struct smt_dump_opts o = { kernel, block, warp, limit };
    return smt_dump(path, out, &o, SERR(err));
}

/* ---- the SASS listing ---------------------------------------------------------------- */

static void
print_ids(FILE *out, const uint16_t *ids, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%u", i ? "," : "", ids[i]);
    if (n == 0)
        fputc('-', out);
}

int
smsim_print_sass(FILE *out, const char *launch, const smsim_config *c, smsim_error *err)
{
    const struct sim_config *cfg = &c->cfg;
    struct inst_source src = { 0 };
    int rc = ptx_source_open(launch, &src, SERR(err));
    if (rc < 0)
        return rc;
    if (src.ops->set_target != NULL)
        src.ops->set_target(src.ctx, cfg->gpu_cc);
    struct kernel_info ki;
    rc = src.ops->next_kernel(src.ctx, &ki, SERR(err));   /* reports a lowering failure */
    if (rc < 0) {
        inst_source_destroy(&src);
        return rc;
    }
    struct ptx_static *st = NULL;
    size_t n = ptx_source_static(&src, &st), ops = 0, ptx = 0;
    for (size_t i = 0; i < n; i++) {
        ops += !st[i].silent;
        ptx += st[i].head;
    }
    fprintf(out, "# kernel %s on %s (sm_%u): %zu PTX instructions, %zu operations issue\n",
            ki.name, cfg->gpu_name, cfg->gpu_cc, ptx, ops);
    for (size_t i = 0; i < n; i++) {
        const struct ptx_static *s = &st[i];
        char line[16] = "-";
        if (s->line)
            snprintf(line, sizeof line, "%u", s->line);
        if (s->silent) {
            fprintf(out, "%5zu %5s   (%s: folded)\n", i, line, s->mnemonic);
            continue;
        }
        fprintf(out, "%5zu %5s %s%-26s %-9s %-5s %2u  ", i, line, s->guarded ? "@ " : "  ",
                s->mnemonic, inst_opclass_name(s->opclass), sass_npipe_name(s->npipe), s->stall);
        print_ids(out, s->dst, s->n_dst);
        fputs(" <- ", out);
        print_ids(out, s->src, s->n_src);
        if (s->target >= 0)
            fprintf(out, "  -> %d", s->target);
        fputc('\n', out);
    }
    free(st);
    inst_source_destroy(&src);
    return SIM_OK;
}

/* ---- the occupancy calculator ------------------------------------------------------------- */

static void
occ_text(FILE *out, const struct sim_config *c, const char *name, uint32_t regs, uint32_t smem,
           const struct occ_result *r)
{
    static const char *const what[OCC_LIMIT_COUNT] = {
        "block slots (sm.max_blocks)", "warp slots (sm.max_warps)",
        "thread slots (sm.max_threads)", "registers (sm.registers)",
        "shared memory (sm.smem_size)"
    };
    fprintf(out, "%s (%s): blocks of %u threads, %u registers/thread, %u B shared memory/block\n",
           name, c->gpu_name, r->threads_per_block, regs, smem);
    fprintf(out, "  a block takes %u warps, %u registers per warp, %u B of shared memory "
           "(with %u B reserved)\n", r->warps_per_block, r->regs_per_warp, r->smem_per_block,
           c->sm_smem_reserved);
    fprintf(out, "  blocks per SM allowed by:\n");
    for (int l = 0; l < OCC_LIMIT_COUNT; l++) {
        if (r->limit[l] == UINT32_MAX)
            fprintf(out, "    %-32s unlimited\n", what[l]);
        else
            fprintf(out, "    %-32s %u%s\n", what[l], r->limit[l],
                   (enum occ_limiter)l == r->limiter ? "  <- limiter" : "");
    }
    fprintf(out, "  %u blocks/SM = %u of %u warps = %.1f %% occupancy, limited by %s\n",
           r->blocks_per_sm, r->active_warps, c->sm_max_warps, 100.0 * r->occupancy,
           occupancy_limiter_name(r->limiter));
}

static void
occ_json(FILE *out, const struct sim_config *c, const char *name, uint32_t regs, uint32_t smem,
           const struct occ_result *r)
{
    fputs("{\"config\": ", out);
    stats_json_string(out, name);
    fputs(", \"gpu\": ", out);
    stats_json_string(out, c->gpu_name);
    fprintf(out, ", \"threads_per_block\": %u, \"regs_per_thread\": %u, \"smem_per_block\": %u,\n"
           " \"warps_per_block\": %u, \"regs_per_warp\": %u, \"smem_allocated_per_block\": %u,\n"
           " \"limits\": {", r->threads_per_block, regs, smem, r->warps_per_block,
           r->regs_per_warp, r->smem_per_block);
    for (int l = 0; l < OCC_LIMIT_COUNT; l++) {
        fprintf(out, "%s\"%s\": ", l ? ", " : "", occupancy_limiter_name((enum occ_limiter)l));
        if (r->limit[l] == UINT32_MAX)
            fputs("null", out);
        else
            fprintf(out, "%u", r->limit[l]);
    }
    fprintf(out, "},\n \"blocks_per_sm\": %u, \"active_warps\": %u, \"max_warps\": %u, "
           "\"occupancy\": ", r->blocks_per_sm, r->active_warps, c->sm_max_warps);
    stats_json_double(out, r->occupancy);
    fprintf(out, ", \"limiter\": \"%s\"}\n", occupancy_limiter_name(r->limiter));
}


int
smsim_occupancy_blocks(const smsim_config *c, uint32_t threads_per_block, uint32_t regs_per_thread,
                       uint32_t smem_bytes, unsigned *blocks_per_sm, smsim_error *err)
{
    struct occ_result r;
    int rc = occupancy_compute(&c->cfg, threads_per_block, regs_per_thread, smem_bytes, &r,
                               SERR(err));
    *blocks_per_sm = rc < 0 ? 0 : r.blocks_per_sm;
    return rc;
}

int
smsim_print_occupancy(FILE *out, const smsim_config *c, const char *config_name,
                      uint32_t threads_per_block, uint32_t regs_per_thread, uint32_t smem_bytes,
                      bool json, smsim_error *err)
{
    struct occ_result r;
    int rc = occupancy_compute(&c->cfg, threads_per_block, regs_per_thread, smem_bytes, &r,
                               SERR(err));
    if (rc < 0)
        return rc;
    if (json)
        occ_json(out, &c->cfg, config_name, regs_per_thread, smem_bytes, &r);
    else
        occ_text(out, &c->cfg, config_name, regs_per_thread, smem_bytes, &r);
    return SIM_OK;
}
