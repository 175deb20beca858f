/*
 * ptx.c - the PTX instruction source (see ptx.h).
 */
#include "frontend/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_cluster.h"
#include "frontend/exec/ptx_decode.h"
#include "frontend/exec/ptx_call.h"
#include "frontend/exec/ptx_exec.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_regalloc.h"
#include "frontend/exec/ptx_prog.h"
#include "frontend/exec/ptx_sync.h"
#include "frontend/ptx/ptx_parse.h"
#include "frontend/lower/ptx_lower.h"
#include "frontend/lower/ptx_lower_emit.h"
#include "frontend/lower/ptx_sched.h"
#include "frontend/lower/ptx_window.h"
#include "frontend/lower/ptxas.h"
#include "frontend/sass/sass_isa.h"
#include "sim/stats.h"

static int
px_next_kernel(void *ctx, struct kernel_info *ki, struct sim_error *err)
{
    struct ptx_run *r = ctx;
    if (r->target_err.code < 0) {
        *err = r->target_err;
        return err->code;
    }
    if (r->launches == r->l->repeat)
        return 0;
    r->launches++;
    memset(ki, 0, sizeof *ki);
    snprintf(ki->name, sizeof ki->name, "%s", r->k->name);
    memcpy(ki->grid, r->l->grid, sizeof ki->grid);
    memcpy(ki->block, r->l->block, sizeof ki->block);
    ki->regs_per_thread = r->l->regs;
    ki->smem_static = r->shared_static;
    ki->smem_dynamic = r->l->smem;
    ki->isa = SIM_ISA_PTX;
    memcpy(ki->cluster, r->cluster, sizeof ki->cluster);
    ki->cooperative = r->grid_ws != 0;
    unsigned sm = 0;
    if (sscanf(r->m->target, "sm_%u", &sm) == 1)
        ki->isa_version = (uint16_t)sm;
    return 1;
}

static int
px_kernel_begin(void *ctx, uint32_t max_slots, uint32_t n_sms, struct sim_error *err)
{
    struct ptx_run *r = ctx;
    (void)err;
    r->n_sms = n_sms;
    ptx_regalloc(r);             /* once: after lowering, before any block's storage */
    if (r->prog != NULL)
        ptx_prog_adopt_blocks(r->prog, r);
    if (max_slots > r->n_slots) {
        r->blocks = xrealloc(r->blocks, max_slots * sizeof *r->blocks);
        memset(r->blocks + r->n_slots, 0, (max_slots - r->n_slots) * sizeof *r->blocks);
        r->n_slots = max_slots;
    }
    return SIM_OK;
}

static int
px_block_begin(void *ctx, uint64_t id, uint32_t slot, uint32_t sm, struct sim_error *err)
{
    struct ptx_run *r = ctx;
    if (slot >= r->n_slots || id >= r->n_blocks)
        return sim_error_set(err, SIM_ERR_INTERNAL, "block %" PRIu64 " / slot %u out of range",
                             id, slot);
    ptx_exec_block_begin(r, slot, id, sm);
    return SIM_OK;
}

/* Every message names the launch file first: prefix err's with it (and
 * the line of its `kernel` key) unless it already starts with it. */
static void
name_launch(const struct ptx_run *r, struct sim_error *err)
{
    size_t n = strlen(r->l->path);
    if (strncmp(err->msg, r->l->path, n) == 0 && err->msg[n] == ':')
        return;
    if (r->l->line_kernel > 0)
        sim_error_prefix(err, "%s:%u: ", r->l->path, r->l->line_kernel);
    else                         /* a CUDA program's launch: no file */
        sim_error_prefix(err, "%s: ", r->l->path);
}

static int
px_next_inst(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now, struct warp_inst *wi,
             struct sim_error *err)
{
    struct ptx_run *r = ctx;
    r->now = now;
    int rc = ptx_exec_step(r, slot, warp, wi, err);
    if (rc < 0)
        name_launch(r, err);
    return rc;
}

static int
px_wait_poll(void *ctx, uint32_t slot, uint32_t warp, uint32_t *sig)
{
    return ptx_sync_poll(ctx, slot, warp, sig);
}

static int
px_wait_commit(void *ctx, uint32_t slot, uint32_t warp, bool complete, struct warp_inst *wi,
               struct sim_error *err)
{
    struct ptx_run *r = ctx;
    int rc = ptx_sync_commit(r, slot, warp, complete, wi, err);
    if (rc < 0)
        name_launch(r, err);
    return rc;
}

static void
px_block_end(void *ctx, uint32_t slot)
{
    struct ptx_run *r = ctx;
    ptx_cluster_block_end(r, &r->blocks[slot]);
}

/* Lower and schedule the kernel as ptxas does for the simulated GPU.  The
 * expansions, the static schedule and its stall counts are modelled on
 * sm_90's SASS (frontend/ptx_lower.c, ptx_sched.c); for other families the
 * PTX instructions and order stay until their tables exist. */
/* Registers per thread: the launch file's `regs.sm_<cc>` for the simulated
 * GPU; else from ptxas -v for sm_<cc> when the launch file says
 * `regs = auto`, or gives none and a ptxas is available (ptxas.h); the
 * stack frame it reports tells the lowering whether local arrays live in
 * registers.  Without a report, `auto` falls back to 32 and says so. */
static void
resolve_regs(struct ptx_run *r, unsigned cc)
{
    struct launch *l = r->l;
    r->ptxas_stack = -1;
    for (unsigned i = 0; i < l->n_regs_arch; i++)
        if (l->regs_cc[i] == cc) {
            l->regs = l->regs_arch[i];
            return;
        }
    if (!l->regs_auto && (l->regs_given || !ptxas_available()))
        return;
    struct ptxas_info info;
    struct sim_error err = { 0 };
    int rc = ptxas_kernel_info(l->ptx_path, r->k->name, cc, &info, &err);
    if (rc == SIM_OK) {
        l->regs = info.regs > 0 ? info.regs : 1;
        r->ptxas_stack = (int64_t)info.stack;
    } else if (rc > 0) {
        sim_reportf("note", "%s: regs = auto, but there is no ptxas (nor a cached report): 32 "
                    "registers per thread", l->path);
        l->regs = 32;
    } else if (l->regs_auto) {
        r->target_err = err;          /* reported by next_kernel() */
    } else {
        sim_reportf("note", "%s: no regs line and %s; 32 registers per thread", l->path,
                    err.msg);
    }
}

static void
px_set_target(void *ctx, unsigned cc)
{
    struct ptx_run *r = ctx;
    r->cc = cc;
    if (r->scheduled)
        return;
    if (r->regs_packed) {        /* lowering reads the decoder's slots */
        sim_error_set(&r->target_err, SIM_ERR_INTERNAL, "%s: kernel %s: lowered after its "
                      "registers were packed", r->l->path, r->k->name);
        return;
    }
    resolve_regs(r, cc);
    if (cc >= 90 && cc < 100 && r->target_err.code == 0) {
        r->scheduled = true;
        /* the functions' stack frames: ptxas's report when regs came from
         * it (a report for the kernel means one for its functions) */
        ptx_lower_emit_spills(r, cc, r->ptxas_stack >= 0);
        if (ptx_lower(r, &r->target_err) == SIM_OK) {
            ptx_schedule(r);
            ptx_window_plan(r);
        }
        else
            name_launch(r, &r->target_err);
    }
}

static void
register_counters(stats *st, const uint64_t *ptx_insts)
{
    stats_add_u64(st, "ptx.insts", ptx_insts, "warp insts",
                  "PTX instructions executed, per warp (on sm_90 configs the model issues the "
                  "SASS-level operations ptxas makes of them: warp_insts)");
}

static void
px_register_stats(void *ctx, stats *st)
{
    struct ptx_run *r = ctx;
    register_counters(st, &r->cnt->ptx_insts);
    if (r->scheduled)
        sass_register_npipe_stats(st, r->cnt->npipe);
}

void
ptx_register_doc_stats(stats *st)
{
    static const uint64_t zero;
    register_counters(st, &zero);
}

static const char *
px_opcode_name(void *ctx, uint16_t op)
{
    struct ptx_run *r = ctx;
    return op < r->m->n_mnems ? r->m->mnems[op] : NULL;
}

static void
px_destroy(void *ctx)
{
    struct ptx_run *r = ctx;
    if (r->prog != NULL)
        ptx_prog_park_blocks(r->prog, r);
    ptx_exec_free(r);
    if (!r->borrowed_module)
        ptx_module_free(r->m);
    launch_free(r->l);
    free(r);
}

static const struct inst_source_ops ptx_ops = {
    .next_kernel = px_next_kernel,
    .kernel_begin = px_kernel_begin,
    .block_begin = px_block_begin,
    .next_inst = px_next_inst,
    .block_end = px_block_end,
    .opcode_name = px_opcode_name,
    .destroy = px_destroy,
    .set_target = px_set_target,
    .register_stats = px_register_stats,
    .wait_poll = px_wait_poll,
    .wait_commit = px_wait_commit,
};

bool
ptx_source_is(const struct inst_source *src)
{
    return src != NULL && src->ops == &ptx_ops;
}

const struct launch *
ptx_source_launch(const struct inst_source *src)
{
    return ptx_source_is(src) ? ((const struct ptx_run *)src->ctx)->l : NULL;
}

uint64_t
ptx_source_executed(const struct inst_source *src)
{
    return ptx_source_is(src) ? ((const struct ptx_run *)src->ctx)->executed : 0;
}

int
ptx_source_write_outputs(const struct inst_source *src, const char *outdir,
                         struct sim_error *err)
{
    if (!ptx_source_is(src))
        return SIM_OK;
    return launch_write_outputs(((const struct ptx_run *)src->ctx)->l, outdir, err);
}

size_t
ptx_source_static(const struct inst_source *src, struct ptx_static **out)
{
    *out = NULL;
    if (!ptx_source_is(src))
        return 0;
    const struct ptx_run *r = src->ctx;
    struct ptx_static *s = xcalloc(r->n_x ? r->n_x : 1, sizeof *s);
    for (uint32_t i = 0; i < r->n_x; i++) {
        const struct xop *x = &r->x[i];
        s[i].line = x->line;
        s[i].mnemonic = x->opcode < r->m->n_mnems ? r->m->mnems[x->opcode] : "?";
        s[i].opclass = x->opclass;
        s[i].flags = x->iflags;
        s[i].space = x->space == PS_GLOBAL ? SIM_SPACE_GLOBAL : x->space == PS_SHARED ?
                     SIM_SPACE_SHARED : x->space == PS_LOCAL ? SIM_SPACE_LOCAL :
                     x->space == PS_CONST ? SIM_SPACE_CONST : SIM_SPACE_NONE;
        if (x->kind != XK_LD && x->kind != XK_ST && x->kind != XK_ATOM && x->kind != XK_RED)
            s[i].space = SIM_SPACE_NONE;
        s[i].guarded = x->guard >= 0;
        s[i].target = x->kind == XK_BRA ? x->target : -1;
        s[i].reconv = x->kind == XK_BRA ? x->reconv : -1;
        s[i].n_dst = x->n_dst;
        s[i].n_src = x->n_src;
        memcpy(s[i].dst, x->dst, sizeof s[i].dst);
        memcpy(s[i].src, x->src, sizeof s[i].src);
        s[i].silent = x->silent;
        s[i].head = x->head;
        s[i].npipe = x->npipe;
        s[i].stall = x->stall;
    }
    *out = s;
    return r->n_x;
}

/* The launch's thread-block clusters: the launch file's cluster line, else
 * the kernel's .reqnctapercluster, else clusters of one; they must tile the
 * grid, and agree when both are given. */
static int
cluster_of(struct ptx_run *r, struct sim_error *err)
{
    const char *launch_path = r->l->path;
    const struct launch *l = r->l;
    const struct ptx_kernel *k = r->k;
    for (unsigned d = 0; d < 3; d++)
        r->cluster[d] = l->line_cluster ? l->cluster[d] : k->cluster[0] ? k->cluster[d] : 1;
    if (l->line_cluster && k->cluster[0] &&
        (l->cluster[0] != k->cluster[0] || l->cluster[1] != k->cluster[1] ||
         l->cluster[2] != k->cluster[2]))
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: cluster %u, %u, %u, but kernel %s "
                             "requires %u, %u, %u (.reqnctapercluster)", launch_path,
                             l->line_cluster, l->cluster[0], l->cluster[1], l->cluster[2],
                             k->name, k->cluster[0], k->cluster[1], k->cluster[2]);
    if (k->explicit_cluster && !l->line_cluster && !k->cluster[0])
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: kernel %s is launched with clusters "
                             "(.explicitcluster): the launch file needs a cluster line",
                             launch_path, l->line_kernel, k->name);
    for (unsigned d = 0; d < 3; d++)
        if (l->grid[d] % r->cluster[d] != 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: the grid (%u, %u, %u) is no whole "
                                 "number of clusters of %u, %u, %u blocks", launch_path,
                                 l->line_cluster ? l->line_cluster : l->line_grid, l->grid[0],
                                 l->grid[1], l->grid[2], r->cluster[0], r->cluster[1],
                                 r->cluster[2]);
    r->cluster_size = r->cluster[0] * r->cluster[1] * r->cluster[2];
    return SIM_OK;
}

/* What every run does once its kernel is found: check it, its clusters
 * and grid, lay out memory (a launch file's buffers; or program p's
 * memory with parameters params) and decode it. */
static int
open_kernel(struct ptx_run *r, struct ptx_prog *p, uint32_t mod,
            const uint8_t *params, struct sim_error *err)
{
    const char *launch_path = r->l->path;
    int rc;
    if (r->k->unsupported != NULL)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s:%u: %s", launch_path,
                             r->l->line_kernel, r->k->unsupported);
    SIM_FORWARD_IF_ERROR(cluster_of(r, err));
    uint64_t tpb = (uint64_t)r->l->block[0] * r->l->block[1] * r->l->block[2];
    uint64_t nb = (uint64_t)r->l->grid[0] * r->l->grid[1];
    if (nb > (UINT64_C(1) << 40) / r->l->grid[2])
        return sim_error_set(err, SIM_ERR_NOMEM, "%s:%u: more than 2^40 blocks", launch_path,
                             r->l->line_grid);
    r->n_blocks = nb * r->l->grid[2];
    r->tpb = (uint32_t)tpb;
    r->wpb = (uint32_t)((tpb + 31) / 32);
    rc = p != NULL ? ptx_prog_layout(p, mod, r, params, err) : ptx_mem_layout(r, err);
    if (rc == SIM_OK)
        rc = ptx_decode_kernel(r, err);
    if (rc < 0)
        name_launch(r, err);     /* a PTX line's error: the launch's kernel line first */
    return rc;
}

int
ptx_source_open(const char *launch_path, struct inst_source *src, struct sim_error *err)
{
    struct ptx_run *r = xcalloc(1, sizeof *r);
    r->ptxas_stack = -1;
    r->cnt = &r->own;
    r->heap = &r->own_heap;
    int rc = launch_parse(launch_path, &r->l, err);
    if (rc < 0)
        goto fail;
    rc = ptx_parse_file(r->l->ptx_path, &r->m, err);
    if (rc < 0) {
        sim_error_prefix(err, "%s:%u: ", launch_path, r->l->line_ptx);
        goto fail;
    }
    r->k = ptx_module_find(r->m, r->l->kernel);
    if (r->k == NULL) {
        char names[1024] = "";
        size_t n = 0;
        for (uint32_t i = 0; i < r->m->n_kernels && n + 2 < sizeof names; i++) {
            int w = snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", r->m->kernels[i].name);
            if (w > 0)
                n += (size_t)w;
        }
        rc = sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: no kernel '%s' in %s (it has: %s)",
                           launch_path, r->l->line_kernel, r->l->kernel, r->l->ptx_path, names);
        goto fail;
    }
    rc = open_kernel(r, NULL, 0, NULL, err);
    if (rc < 0)
        goto fail;
    src->ops = &ptx_ops;
    src->ctx = r;
    return SIM_OK;
fail:
    px_destroy(r);
    return rc;
}

int
ptx_source_open_prog(struct ptx_prog *p, const struct ptx_prog_launch *pl,
                     struct inst_source *src, struct sim_error *err)
{
    struct ptx_run *r = xcalloc(1, sizeof *r);
    r->ptxas_stack = -1;
    r->m = ptx_prog_module(p, pl->mod);
    r->borrowed_module = true;
    r->prog = p;
    r->grid_ws = pl->grid_ws;
    struct launch *l = r->l = xcalloc(1, sizeof *l);
    l->path = xstrdup(pl->what);
    const char *ptx_path = ptx_prog_module_path(p, pl->mod);
    l->ptx_path = xstrdup(ptx_path != NULL ? ptx_path : r->m->path);
    snprintf(l->kernel, sizeof l->kernel, "%s", pl->kernel);
    memcpy(l->grid, pl->grid, sizeof l->grid);
    memcpy(l->block, pl->block, sizeof l->block);
    if (pl->cluster[0] != 0) {
        memcpy(l->cluster, pl->cluster, sizeof l->cluster);
        l->line_cluster = 1;     /* given (there is no line) */
    }
    l->smem = pl->smem;
    l->stack = pl->stack;
    l->repeat = 1;
    l->regs = pl->regs ? pl->regs : 32;
    l->regs_given = pl->regs != 0 || ptx_path == NULL;
    l->regs_auto = !l->regs_given && ptxas_available();
    int rc;
    r->k = ptx_module_find(r->m, pl->kernel);
    if (r->k == NULL)
        rc = sim_error_set(err, SIM_ERR_USAGE, "%s: no kernel %s in %s", pl->what, pl->kernel,
                           r->m->path);
    else
        rc = open_kernel(r, p, pl->mod, pl->params, err);
    if (rc < 0) {
        px_destroy(r);
        return rc;
    }
    src->ops = &ptx_ops;
    src->ctx = r;
    return SIM_OK;
}
