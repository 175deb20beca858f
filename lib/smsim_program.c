/*
 * smsim_program.c - whole CUDA programs: lib/smsim.h's smsim_program over
 * frontend/exec/ptx_prog.h (memory and modules) and frontend/ptx.h (a
 * launch as a PTX instruction source).
 */
#include "lib/smsim.h"
#include "lib/smsim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "frontend/exec/ptx_prog.h"
#include "frontend/exec/ptx_replay.h"
#include "frontend/exec/ptx_tex.h"
#include "frontend/exec/ptx_tmap.h"
#include "frontend/ptx.h"
#include "frontend/lower/ptxas.h"
#include "frontend/record.h"

struct smsim_program {
    struct ptx_prog *p;
    sim_addr_t grid_ws;          /* cooperative launches' grid-sync workspace (0: none yet) */
    struct ptx_replay *replay;   /* functional launches recorded for replay */
};

/* Bytes of the grid-sync workspace: cooperative groups keep a 32-bit
 * arrival counter at offset 4 (the PTX nvcc emits for grid_group::sync()). */
enum { GRID_WS_BYTES = 16 };

smsim_program *
smsim_program_new(void)
{
    smsim_program *p = xcalloc(1, sizeof *p);
    p->p = ptx_prog_new();
    p->replay = ptx_replay_new();
    return p;
}

void
smsim_program_free(smsim_program *p)
{
    if (p == NULL)
        return;
    ptx_replay_free(p->replay);
    ptx_prog_free(p->p);
    free(p);
}

int
smsim_program_load_ptx(smsim_program *p, const char *name, const char *text, size_t len,
                       const char *ptx_path, unsigned *module, smsim_error *err)
{
    uint32_t m = 0;
    int rc = ptx_prog_load(p->p, name, text, len, ptx_path, &m, SERR(err));
    *module = m;
    return rc;
}

int
smsim_program_malloc(smsim_program *p, uint64_t bytes, const char *what, uint64_t *addr,
                     smsim_error *err)
{
    return ptx_prog_alloc(p->p, bytes, what, addr, SERR(err));
}

int
smsim_program_map_host(smsim_program *p, void *host, uint64_t bytes, const char *what,
                       unsigned flags, smsim_error *err)
{
    return ptx_prog_map_host(p->p, host, bytes, what, (flags & SMSIM_MAP_ZERO_COPY) != 0,
                             SERR(err));
}

int
smsim_program_release(smsim_program *p, uint64_t addr, void **host, smsim_error *err)
{
    return ptx_prog_release(p->p, addr, host, SERR(err));
}

int
smsim_program_set_heap(smsim_program *p, uint64_t bytes, smsim_error *err)
{
    return ptx_prog_set_heap(p->p, bytes, SERR(err));
}

uint64_t
smsim_program_heap(const smsim_program *p)
{
    return ptx_prog_heap(p->p);
}

void *
smsim_program_host(smsim_program *p, uint64_t addr, uint64_t bytes, smsim_error *err)
{
    return ptx_prog_host(p->p, addr, bytes, SERR(err));
}

bool
smsim_program_lookup(smsim_program *p, uint64_t addr, uint64_t *base, uint64_t *size,
                     bool *mapped)
{
    return ptx_prog_lookup(p->p, addr, base, size, mapped);
}

int
smsim_program_symbol(smsim_program *p, unsigned module, const char *name, uint64_t *addr,
                     uint64_t *size, smsim_error *err)
{
    if (module >= ptx_prog_modules(p->p))
        return smsim_error_set(err, SMSIM_ERR_USAGE, "no module %u", module);
    return ptx_prog_symbol(p->p, module, name, addr, size, SERR(err));
}

static int
kernel_of(smsim_program *p, unsigned module, const char *kernel, const struct ptx_kernel **k,
          smsim_error *err)
{
    struct ptx_module *m = ptx_prog_module(p->p, module);
    if (m == NULL)
        return smsim_error_set(err, SMSIM_ERR_USAGE, "no module %u", module);
    *k = ptx_module_find(m, kernel);
    if (*k == NULL)
        return smsim_error_set(err, SMSIM_ERR_USAGE, "%s has no kernel %s", m->path, kernel);
    return SMSIM_OK;
}

int
smsim_program_kernel_decl(smsim_program *p, unsigned module, const char *kernel,
                          struct smsim_kernel_decl *out, smsim_error *err)
{
    const struct ptx_kernel *k;
    int rc = kernel_of(p, module, kernel, &k, err);
    if (rc < 0)
        return rc;
    *out = (struct smsim_kernel_decl){ .n_params = k->n_params,
                                       .param_bytes = (uint32_t)k->param_bytes,
                                       .smem_static = (uint32_t)k->shared_bytes };
    memcpy(out->cluster, k->cluster, sizeof out->cluster);
    return SMSIM_OK;
}

int
smsim_program_kernel_regs(smsim_program *p, unsigned module, const char *kernel, unsigned cc,
                          uint32_t *regs, bool *known, smsim_error *err)
{
    const struct ptx_kernel *k;
    int rc = kernel_of(p, module, kernel, &k, err);
    *regs = 32;
    *known = false;
    const char *path = ptx_prog_module_path(p->p, module);
    if (rc < 0 || path == NULL)
        return rc;
    struct ptxas_info info;
    rc = ptxas_kernel_info(path, kernel, cc, &info, SERR(err));
    if (rc == SIM_OK) {
        *regs = info.regs > 0 ? info.regs : 1;
        *known = true;
    }
    return rc > 0 ? SMSIM_OK : rc;
}

int
smsim_program_kernel_param(smsim_program *p, unsigned module, const char *kernel, unsigned i,
                           uint32_t *offset, uint32_t *size, smsim_error *err)
{
    const struct ptx_kernel *k;
    int rc = kernel_of(p, module, kernel, &k, err);
    if (rc < 0)
        return rc;
    if (i >= k->n_params)
        return smsim_error_set(err, SMSIM_ERR_USAGE, "kernel %s has %u parameters, not %u",
                               kernel, k->n_params, i + 1);
    *offset = (uint32_t)k->params[i].offset;
    *size = (uint32_t)k->params[i].size;
    return SMSIM_OK;
}

int
smsim_program_launch(smsim_program *p, smsim_sim *s, const struct smsim_launch_desc *d,
                     struct smsim_totals *tot, smsim_error *err)
{
    if (ptx_prog_module(p->p, d->module) == NULL)
        return smsim_error_set(err, SMSIM_ERR_USAGE, "no module %u", d->module);
    struct ptx_prog_launch pl = { .what = d->what, .mod = d->module, .kernel = d->kernel,
                                  .smem = d->smem,
                                  .stack = d->stack ? d->stack : PTX_STACK_DEFAULT,
                                  .params = d->params };
    memcpy(pl.grid, d->grid, sizeof pl.grid);
    memcpy(pl.block, d->block, sizeof pl.block);
    memcpy(pl.cluster, d->cluster, sizeof pl.cluster);
    int rc;
    if (d->cooperative) {
        /* the workspace, zeroed for each launch as the driver gives it */
        if (p->grid_ws == 0 &&
            (rc = ptx_prog_alloc(p->p, GRID_WS_BYTES, "the grid-sync workspace of cooperative "
                                 "launches", &p->grid_ws, SERR(err))) < 0)
            return rc;
        uint8_t *ws = ptx_prog_host(p->p, p->grid_ws, GRID_WS_BYTES, SERR(err));
        if (ws == NULL)
            return err != NULL ? err->code : SMSIM_ERR_INTERNAL;
        memset(ws, 0, GRID_WS_BYTES);
        pl.grid_ws = p->grid_ws;
    }
    /* a functional launch that repeats an earlier one (ptx_replay.h) */
    int replay = -1;
    if (s == NULL && d->replay) {
        struct smsim_kernel_decl kd;
        if ((rc = smsim_program_kernel_decl(p, d->module, d->kernel, &kd, err)) < 0)
            return rc;
        XXH3_state_t *h = XXH3_createState();
        XXH3_64bits_reset(h);
        XXH3_64bits_update(h, d->kernel, strlen(d->kernel) + 1);
        uint32_t shape[13] = { d->module, d->grid[0], d->grid[1], d->grid[2], d->block[0],
                               d->block[1], d->block[2], d->cluster[0], d->cluster[1],
                               d->cluster[2], d->smem, pl.stack, d->cooperative };
        XXH3_64bits_update(h, shape, sizeof shape);
        if (kd.param_bytes > 0)
            XXH3_64bits_update(h, d->params, kd.param_bytes);
        uint64_t key = XXH3_64bits_digest(h);
        XXH3_freeState(h);
        struct ptx_replay_work w;
        replay = ptx_replay_begin(p->replay, p->p, d->module, d->kernel, key, &w);
        if (replay == 1) {
            if (tot != NULL) {
                tot->kernels += (unsigned)w.kernels;
                tot->blocks += w.blocks;
                tot->warp_insts += w.warp_insts;
                tot->active_insts += w.cnt.active_insts;
                tot->wait_retries += w.cnt.wait_retries;
                tot->replayed++;
            }
            return SMSIM_OK;
        }
    }
    smsim_source src;
    rc = ptx_source_open_prog(p->p, &pl, &src.src, SERR(err));
    if (rc < 0) {
        if (replay == 0)
            ptx_replay_end(p->replay, p->p, false, NULL);
        return rc;
    }
    const struct ptx_counters *cnt = ptx_prog_counters(p->p);
    uint64_t insts = cnt->active_insts, retries = cnt->wait_retries;
    if (s != NULL) {
        rc = smsim_run(s, &src, err);
    } else {
        struct smsim_totals t = { 0 };
        rc = smsim_emulate(&src, &t, err);
        if (tot != NULL) {
            tot->kernels += t.kernels;
            tot->blocks += t.blocks;
            tot->warp_insts += t.warp_insts;
        }
        if (replay == 0) {
            struct ptx_replay_work w = { .kernels = t.kernels, .blocks = t.blocks,
                                         .warp_insts = t.warp_insts };
            ptx_replay_end(p->replay, p->p, rc >= 0, &w);
        }
    }
    if (tot != NULL) {
        tot->active_insts += cnt->active_insts - insts;
        tot->wait_retries += cnt->wait_retries - retries;
    }
    inst_source_destroy(&src.src);
    return rc;
}

int
smsim_tensor_map_encode(const struct smsim_tensor_map *m, void *out, smsim_error *err)
{
    struct ptx_tmap t;
    memset(&t, 0, sizeof t);
    if (m->rank < 1 || m->rank > PTX_TMAP_MAX_RANK || m->type >= TMT_COUNT)
        return smsim_error_set(err, SMSIM_ERR_FORMAT, "tensor map: %s",
                             m->type >= TMT_COUNT ? "unsupported data type (the packed 4- and "
                             "6-bit types are not simulated)" : "the rank must be 1 .. 5");
    t.rank = (uint8_t)m->rank;
    t.type = (uint8_t)m->type;
    t.esize = (uint8_t)ptx_tmap_type_size(m->type);
    t.gaddr = m->address;
    t.strides[0] = t.esize;
    for (unsigned d = 0; d < m->rank; d++) {
        t.dims[d] = m->dims[d];
        t.estride[d] = m->elem_strides[d];
        t.box[d] = m->im2col ? 0 : m->box[d];
        if (d > 0)
            t.strides[d] = m->strides[d - 1];
    }
    if (m->swizzle > TMS_128B)
        return smsim_error_set(err, SMSIM_ERR_UNSUPPORTED, "tensor map: unsupported swizzle %u (the "
                             "128-byte atom variants are not simulated)", m->swizzle);
    t.swizzle = (uint8_t)m->swizzle;
    t.interleave = (uint8_t)(m->interleave != 0);
    t.fill_nan = m->oob_fill != 0;
    t.im2col = m->im2col;
    for (unsigned j = 0; m->im2col && j < 3; j++) {
        if (m->lower[j] < INT16_MIN || m->lower[j] > INT16_MAX || m->upper[j] < INT16_MIN ||
            m->upper[j] > INT16_MAX)
            return smsim_error_set(err, SMSIM_ERR_FORMAT, "tensor map: a pixel box corner out of "
                                 "range");
        t.lower[j] = (int16_t)m->lower[j];
        t.upper[j] = (int16_t)m->upper[j];
    }
    t.cpp = (uint16_t)(m->channels > 0xffff ? 0 : m->channels);
    t.ppc = (uint16_t)(m->pixels > 0xffff ? 0 : m->pixels);
    const char *why;
    if (!ptx_tmap_check(&t, &why))
        return smsim_error_set(err, SMSIM_ERR_FORMAT, "tensor map: %s (cuTensorMapEncode%s's rules)",
                             why, m->im2col ? "Im2col" : "Tiled");
    ptx_tmap_encode(&t, out);
    return SMSIM_OK;
}

int
smsim_texture_encode(const struct smsim_texture *t, void *out, smsim_error *err)
{
    if (t->kind > 2)
        return smsim_error_set(err, SMSIM_ERR_UNSUPPORTED, "texture: unsupported channel format "
                               "kind %u (signed, unsigned and float are simulated)", t->kind);
    struct ptx_tex x = {
        .surface = t->surface, .base = t->address, .pitch = t->pitch, .slice = t->slice,
        .width = t->width, .height = t->height, .depth = t->depth, .layers = t->layers,
        .channels = (uint8_t)t->channels, .bits = (uint8_t)t->bits,
        .esize = (uint8_t)(t->channels * t->bits / 8), .ckind = (uint8_t)t->kind,
        .dims = (uint8_t)t->dims, .layered = t->layered, .cube = t->cube,
        .filter = (uint8_t)t->filter, .read_float = t->normalized_read,
        .norm_coords = t->normalized_coords, .resource = (uint8_t)t->resource,
    };
    for (unsigned i = 0; i < 3; i++)
        x.addr[i] = (uint8_t)(t->address_mode[i] > 255 ? 255 : t->address_mode[i]);
    memcpy(x.border, t->border, sizeof x.border);
    /* the narrowing above keeps only what ptx_tex_check can then judge */
    const char *why = t->channels > 4 || t->bits > 32 || t->dims > 3 || t->filter > 255
                      ? "out of range" : NULL;
    if (why != NULL || !ptx_tex_check(&x, &why))
        return smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: %s", t->surface ? "surface" : "texture",
                               why);
    ptx_tex_encode(&x, out);
    return SMSIM_OK;
}
