/*
 * smsim_validate.c - libsmsim's validator: the Many-BSP closed form
 * (validation/manybsp.c) alone on a worked case, or extracted from a
 * kernel's PTX and a functional profile of its representative block
 * (validation/mbx.c, mbdev.c) and held against the simulator and the
 * measured cycles (`smsim validate`; doc/manybsp.md).
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/smsim.h"
#include "lib/smsim_internal.h"
#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "sim/stats.h"
#include "validation/manybsp.h"
#include "validation/mbdev.h"
#include "validation/mbx.h"

int
smsim_validate_case(FILE *out, const char *path, bool json, smsim_error *e)
{
    struct sim_error *err = SERR(e);
    struct manybsp_case *mc = xmalloc(sizeof *mc);
    struct manybsp_result r, corr;
    int rc = manybsp_case_load(path, mc, err);
    if (rc == SIM_OK)
        rc = manybsp_eval(&mc->in, &r, err);
    const struct manybsp_result *cp = NULL;
    if (rc == SIM_OK && manybsp_case_has_overrides(mc)) {
        struct manybsp_input fixed = mc->in;
        fixed.ov = (struct manybsp_overrides){ -1, -1, -1, -1 };
        rc = manybsp_eval(&fixed, &corr, err);
        cp = &corr;
    }
    if (rc == SIM_OK && json)
        manybsp_print_json(out, mc, &r, cp);
    else if (rc == SIM_OK)
        manybsp_print(out, mc, &r, cp);
    free(mc);
    return rc;
}

/* ---- the cross-check ------------------------------------------------------------ */

/* What the functional run of the representative block tells the extractor. */
struct profile {
    uint64_t block;              /* the representative block */
    uint32_t wpb;                /* warps per block */
    size_t n;                    /* static instructions */
    double *count;               /* warp executions per static instruction */
    double *segs;                /* sum of 128-byte segments per global access */
    uint8_t *space;              /* the space seen at run time */
    uint8_t *l1_hit;             /* every execution touched only segments loaded before */
    uint64_t **seen;             /* per warp: segments already loaded (small open hash) */
    uint32_t *n_seen, *cap_seen;
    bool active;
};

static bool
seen_has(struct profile *p, uint32_t w, uint64_t seg, bool add)
{
    if (p->cap_seen[w] == 0 || 2 * (p->n_seen[w] + 1) > p->cap_seen[w]) {
        uint32_t oc = p->cap_seen[w];
        uint64_t *old = p->seen[w];
        p->cap_seen[w] = oc ? 2 * oc : 64;
        p->seen[w] = xcalloc(p->cap_seen[w], sizeof **p->seen);
        p->n_seen[w] = 0;
        for (uint32_t i = 0; i < oc; i++)
            if (old[i] != 0)
                seen_has(p, w, old[i] - 1, true);
        free(old);
    }
    uint32_t m = p->cap_seen[w] - 1, i = (uint32_t)(seg * 0x9e3779b97f4a7c15ull >> 40) & m;
    while (p->seen[w][i] != 0) {
        if (p->seen[w][i] == seg + 1)
            return true;
        i = (i + 1) & m;
    }
    if (add) {
        p->seen[w][i] = seg + 1;
        p->n_seen[w]++;
    }
    return false;
}

static int
pf_kernel_begin(void *ctx, const struct kernel_info *ki, struct sim_error *err)
{
    struct profile *p = ctx;
    (void)err;
    p->wpb = kernel_info_warps_per_block(ki);
    p->block = kernel_info_blocks(ki) / 2;
    return SIM_OK;
}

static int
pf_block_begin(void *ctx, uint64_t id, struct sim_error *err)
{
    struct profile *p = ctx;
    (void)err;
    p->active = id == p->block;
    if (p->active && p->seen == NULL) {
        p->seen = xcalloc(p->wpb, sizeof *p->seen);
        p->n_seen = xcalloc(p->wpb, sizeof *p->n_seen);
        p->cap_seen = xcalloc(p->wpb, sizeof *p->cap_seen);
    }
    return SIM_OK;
}

static int
pf_inst(void *ctx, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    struct profile *p = ctx;
    size_t i = wi->pc / 16;
    (void)err;
    if (!p->active || i >= p->n)
        return SIM_OK;
    p->count[i] += 1;
    if (wi->opclass != SIM_OPC_MEM || wi->active_mask == 0)
        return SIM_OK;
    p->space[i] = wi->space;
    if (wi->space != SIM_SPACE_GLOBAL)
        return SIM_OK;
    /* distinct 128-byte segments of the active lanes; all seen before? */
    uint64_t segs[32];
    unsigned n = 0;
    bool all_seen = true;
    for (uint32_t m = wi->active_mask; m != 0; m &= m - 1) {
        uint64_t s = wi->addr[__builtin_ctz(m)] / 128;
        bool dup = false;
        for (unsigned k = 0; k < n && !dup; k++)
            dup = segs[k] == s;
        if (!dup)
            segs[n++] = s;
    }
    for (unsigned k = 0; k < n; k++)
        all_seen &= seen_has(p, warp, segs[k], (wi->flags & SIM_IF_LOAD) != 0);
    p->segs[i] += n;
    if (!all_seen || !(wi->flags & SIM_IF_LOAD) || (wi->flags & SIM_IF_STORE))
        p->l1_hit[i] = 0;
    return SIM_OK;
}

static int
pf_nothing(void *ctx, struct sim_error *err)
{
    (void)ctx;
    (void)err;
    return SIM_OK;
}

static void
profile_free(struct profile *p)
{
    for (uint32_t w = 0; p->seen != NULL && w < p->wpb; w++)
        free(p->seen[w]);
    free(p->seen);
    free(p->n_seen);
    free(p->cap_seen);
    free(p->count);
    free(p->segs);
    free(p->space);
    free(p->l1_hit);
}

/* The directory of validation data: $SMSIM_VALIDATION_DIR, else the one
 * beside the configs directory. */
static void
validation_dir(char *buf, size_t n)
{
    const char *env = getenv("SMSIM_VALIDATION_DIR");
    char cdir[1024];
    struct sim_error err = { 0 };
    if (env != NULL) {
        snprintf(buf, n, "%s", env);
    } else if (config_dir(cdir, sizeof cdir, &err) == SIM_OK) {
        char *slash = strrchr(cdir, '/');
        if (slash != NULL)
            *slash = '\0';
        snprintf(buf, n, "%s/validation", slash != NULL ? cdir : ".");
    } else {
        snprintf(buf, n, "validation");
    }
}

/* Look for kernel on gpu in one measurements file whose rows have at least
 * min_cols tab-separated columns (kernel, gpu, cycles, source, ...).
 * 1 and *out, src set when found; 0 if not; a malformed row is an error
 * naming the file and line. */
static int
scan_measured(const char *path, unsigned min_cols, const char *kernel, const char *gpu,
              double *out, char *src, size_t n, struct sim_error *err)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return 0;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int found = 0;
    while (found == 0 && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[8];
        unsigned nf = 0;
        for (char *p = line; nf < 8; ) {
            f[nf++] = p;
            char *t = strchr(p, '\t');
            if (t == NULL)
                break;
            *t = '\0';
            p = t + 1;
        }
        char *end;
        double v = nf >= 3 ? strtod(f[2], &end) : 0;
        if (nf < min_cols || end == f[2] || *end != '\0' || !(v > 0) || !isfinite(v)) {
            found = sim_error_set(err, SIM_ERR_FORMAT, "%s:%zu: expected %u tab-separated "
                                  "columns: kernel, gpu, cycles (a positive number), source%s",
                                  path, lineno, min_cols,
                                  min_cols > 4 ? ", method, device" : "");
            break;
        }
        if (strcmp(f[0], kernel) != 0 || strcmp(f[1], gpu) != 0)
            continue;
        *out = v;
        int o = snprintf(src, n, "%s:%zu", path, lineno);
        for (unsigned c = 3; c < nf && o > 0 && (size_t)o < n; c++)
            o += snprintf(src + o, n - (size_t)o, "%s%s", c == 3 ? " (" : "; ", f[c]);
        if (nf > 3 && o > 0 && (size_t)o < n)
            snprintf(src + o, n - (size_t)o, ")");
        found = 1;
    }
    free(line);
    fclose(fp);
    return found;
}

static int
cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Measured cycles of kernel on gpu (-1 if none): the first row naming them
 * in DIR/measured.tsv (the seed's published figures), else in the files
 * DIR/measured/\*.tsv (measurements on real GPUs, validation/measured/
 * README.md), taken in name order.  SIM_OK, or an error for a malformed
 * row. */
static int
lookup_measured(const char *dir, const char *kernel, const char *gpu, double *out, char *src,
                size_t n, struct sim_error *err)
{
    char path[1200];
    *out = -1;
    snprintf(path, sizeof path, "%s/measured.tsv", dir);
    int rc = scan_measured(path, 4, kernel, gpu, out, src, n, err);
    if (rc != 0)
        return rc < 0 ? rc : SIM_OK;
    snprintf(path, sizeof path, "%s/measured", dir);
    DIR *d = opendir(path);
    if (d == NULL)
        return SIM_OK;
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".tsv") == 0) {
            names = xrealloc(names, (nn + 1) * sizeof *names);
            names[nn++] = xstrdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_name);
    rc = 0;
    for (size_t i = 0; i < nn && rc == 0; i++) {
        char file[2400];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        rc = scan_measured(file, 6, kernel, gpu, out, src, n, err);
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return rc < 0 ? rc : SIM_OK;
}

/* Table x-1 rows from the PTX, the profile and the device description. */
static uint32_t
build_rows(const struct ptx_static *st, size_t n_st, const struct profile *pf,
           const struct mbdev *dev, const struct mbx_params *mp, double n_t,
           struct mbx_row **out_rows)
{
    struct mbx_row *rows = xcalloc(n_st ? n_st : 1, sizeof *rows);
    int32_t *map = xmalloc((n_st + 1) * sizeof *map);
    int32_t (*dst)[8] = xcalloc(n_st ? n_st : 1, sizeof *dst);
    int32_t (*src)[8] = xcalloc(n_st ? n_st : 1, sizeof *src);
    uint32_t n = 0;
    /* exit/ret are not rows of the report's tables */
    for (size_t i = 0; i < n_st; i++) {
        map[i] = (int32_t)n;
        if (!(st[i].flags & SIM_IF_EXIT))
            n++;
    }
    map[n_st] = (int32_t)n;
    uint32_t k = 0;
    for (size_t i = 0; i < n_st; i++) {
        const struct ptx_static *s = &st[i];
        if (s->flags & SIM_IF_EXIT)
            continue;
        struct mbx_row *x = &rows[k];
        snprintf(x->text, sizeof x->text, "%s", s->mnemonic);
        x->line = s->line;
        unsigned space = s->space != SIM_SPACE_NONE ? s->space : pf->space[i];
        bool mem = s->opclass == SIM_OPC_MEM;
        bool store = (s->flags & SIM_IF_STORE) && !(s->flags & SIM_IF_LOAD);
        mbdev_lookup(dev, s->mnemonic, s->opclass, mem ? space : SIM_SPACE_NONE, store, x);
        x->count = pf->count[i] / pf->wpb;
        if (s->opclass == SIM_OPC_BARRIER) {
            x->fu = MBX_BAR;
            x->bar_ovh = mbdev_bar_ovh(dev, n_t);
        }
        x->n_ma = 1;
        if (mem && space == SIM_SPACE_GLOBAL) {
            x->n_ma = pf->count[i] > 0 ? ceil(pf->segs[i] / pf->count[i] - 1e-9) : 1;
            if (x->n_ma < 1)
                x->n_ma = 1;
            x->load = (s->flags & SIM_IF_LOAD) != 0;
            if (pf->l1_hit[i] && pf->count[i] > 0 && x->load) {
                x->lat = mbdev_l1_latency(dev);      /* served on chip: computation */
            } else {
                x->global = true;
                x->lat = mp->mem_lat;
            }
        }
        x->branch = (s->flags & SIM_IF_BRANCH) != 0;
        x->cond_branch = x->branch && s->guarded;
        x->target = s->target >= 0 ? map[s->target] : -1;
        if (x->target >= (int32_t)n)
            x->target = -1;                          /* to the exit: no loop */
        for (int d = 0; d < 8; d++)
            dst[k][d] = src[k][d] = -1;
        for (unsigned d = 0; d < s->n_dst && d < 8; d++)
            dst[k][d] = s->dst[d];
        for (unsigned d = 0; d < s->n_src && d < 8; d++)
            src[k][d] = s->src[d];
        k++;
    }
    int32_t *u = xmalloc((n ? n : 1) * sizeof *u);
    mbx_first_uses((const int32_t (*)[8])dst, (const int32_t (*)[8])src, n, u);
    for (uint32_t i = 0; i < n; i++) {
        rows[i].u = u[i];
        /* p: neighbours on different units may dual-issue (not across a barrier) */
        rows[i].p = i + 1 < n && rows[i].fu != rows[i + 1].fu && rows[i].fu != MBX_BAR &&
                    rows[i + 1].fu != MBX_BAR;
    }
    free(u);
    free(dst);
    free(src);
    free(map);
    *out_rows = rows;
    return n;
}

int
smsim_validate_launch(FILE *out, const struct smsim_validate_opts *o, bool *within_out,
                      smsim_error *e)
{
    const char *launch = o->launch, *config = o->config;
    double measured = o->measured > 0 ? o->measured : -1, threshold = o->threshold;
    bool json = o->json, tables = o->tables;
    char msrc[1400] = "--measured";
    int status = SIM_OK;
    *within_out = false;
    struct sim_error *err = SERR(e);
    struct sim_config cfg;
        struct inst_source src = { 0 };
    struct profile pf = { 0 };
    struct ptx_static *st = NULL;
    struct mbx_row *rows = NULL;
    struct mbx_result mr = { 0 };
    struct manybsp_case *mc = xcalloc(1, sizeof *mc);
    struct manybsp_result res;
    sim *s = NULL;
    char vdir[1024], path[1400];

    if (config_load(&cfg, config, o->sets, o->n_sets, NULL, err) < 0 ||
        ptx_source_open(launch, &src, err) < 0) {
        status = err->code;
        goto out;
    }
    /* 1. profile the representative block functionally */
    size_t n_st = ptx_source_static(&src, &st);
    pf.n = n_st;
    pf.count = xcalloc(n_st + 1, sizeof *pf.count);
    pf.segs = xcalloc(n_st + 1, sizeof *pf.segs);
    pf.space = xcalloc(n_st + 1, 1);
    pf.l1_hit = xmalloc(n_st + 1);
    memset(pf.l1_hit, 1, n_st + 1);
    struct record_sink sink = { pf_kernel_begin, pf_block_begin, pf_inst, pf_nothing, pf_nothing,
                                &pf };
    struct record_totals rt;
    const struct launch *ln = ptx_source_launch(&src);
    if (record_drive(&src, &sink, &rt, err) < 0) {
        status = err->code;
        goto out;
    }
    /* 2. the device description and the extraction */
    struct mbdev dev;
    mbdev_init(&dev, &cfg);
    validation_dir(vdir, sizeof vdir);
    const char *cname = strrchr(config, '/') != NULL ? strrchr(config, '/') + 1 : config;
    char gpu[256];
    snprintf(gpu, sizeof gpu, "%s", cname);
    char *dot = strrchr(gpu, '.');
    if (dot != NULL && strcmp(dot, ".cfg") == 0)
        *dot = '\0';
    snprintf(path, sizeof path, "%s/devices/%s.mbd", vdir, gpu);
    FILE *probe = fopen(path, "r");
    if (probe != NULL) {
        fclose(probe);
        if (mbdev_load(&dev, path, err) < 0) {
            status = err->code;
            goto out;
        }
    }
    double n_t = (double)ln->block[0] * ln->block[1] * ln->block[2];
    struct mbx_params mp = { ceil(n_t / (32.0 * cfg.sm_subpartitions)), 32, cfg.dram_latency };
    uint32_t n = build_rows(st, n_st, &pf, &dev, &mp, n_t, &rows);
    if (mbx_extract(rows, n, &mp, &mr, err) < 0) {
        status = err->code;
        goto out;
    }
    /* 3. the closed form with the config's and the launch's parameters */
    struct manybsp_params *p = &mc->in.p;
    mc->in.ov = (struct manybsp_overrides){ -1, -1, -1, -1 };
    snprintf(mc->name, sizeof mc->name, "%s on %s (extracted)", ln->kernel, gpu);
    double l = 0, l_m = 0, l_b = 0;
    for (uint32_t i = 0; i < n; i++) {
        l += rows[i].count;
        if (rows[i].global)
            l_m += rows[i].count;
        if (rows[i].fu == MBX_BAR)
            l_b += rows[i].count;
    }
    p->d = 3;
    p->n_c = (double)cfg.pipe_lanes[SIM_PIPE_SP] * cfg.sm_subpartitions;
    p->n_sm = cfg.sm_count;
    p->n_ws = cfg.sm_subpartitions;
    p->n_du = (double)cfg.sm_subpartitions * cfg.sm_dispatch_units;
    p->n_fu = 4;
    p->warp_size = 32;
    p->n_b = (double)ln->grid[0] * ln->grid[1] * ln->grid[2];
    p->n_t = n_t;
    p->h = n;
    p->l = round(l);
    p->l_m = round(l_m);
    p->l_b = round(l_b);
    p->l_c = p->l - p->l_m - p->l_b;
    p->g[0] = cfg.l1_hit_latency;
    p->g[1] = cfg.l2_hit_latency > cfg.l1_hit_latency ? cfg.l2_hit_latency - cfg.l1_hit_latency : 0;
    p->g[2] = cfg.dram_latency - p->g[0] - p->g[1];
    p->mem_lat = cfg.dram_latency;
    p->warp_lnch_ovh = cfg.sm_warp_launch_latency;
    p->block_lnch_ovh = cfg.sm_block_launch_latency;
    p->issue_cycle = 1;
    p->max_thread_per_sm = cfg.sm_max_threads;
    p->reg_per_thread = ln->regs;
    p->shmem_size = cfg.sm_smem_size;
    p->shmem_per_block = 0;
    p->n_reg = cfg.sm_registers;
    p->mu = cfg.manybsp_mu;
    mc->seed_kernel_exec_cycle = -1;
    if (mbx_to_input(&mr, &mc->in, err) < 0 || manybsp_eval(&mc->in, &res, err) < 0) {
        status = err->code;
        goto out;
    }
    /* 4. the simulation */
    inst_source_destroy(&src);
    if (ptx_source_open(launch, &src, err) < 0) {
        status = err->code;
        goto out;
    }
    s = sim_new(&cfg);
    if (sim_run(s, &src, err) < 0) {
        status = err->code;
        goto out;
    }
    const struct sim_kernel_result *kr = sim_kernel(s, 0);
    p->shmem_per_block = kr->ki.smem_static + kr->ki.smem_dynamic;
    p->reg_per_thread = kr->ki.regs_per_thread;
    manybsp_eval(&mc->in, &res, err);
    double simulated = (double)kr->cycles;
    /* 5. the measurement */
    char kname[256];
    const char *lb = strrchr(launch, '/') != NULL ? strrchr(launch, '/') + 1 : launch;
    snprintf(kname, sizeof kname, "%s", lb);
    dot = strrchr(kname, '.');
    if (dot != NULL)
        *dot = '\0';
    if (measured < 0 && lookup_measured(vdir, kname, gpu, &measured, msrc, sizeof msrc,
                                        err) < 0) {
        status = err->code;
        goto out;
    }
    double ref = measured > 0 ? measured : res.kernel_exec_cycle;
    double diff = fabs(simulated - ref) / ref * 100;
    bool within = diff <= threshold;
    if (tables && !json)
        mbx_print(out, rows, n, &mr);
    if (json) {
        fprintf(out, "{\n  \"kernel\": ");
        stats_json_string(out, kname);
        fprintf(out, ",\n  \"gpu\": ");
        stats_json_string(out, gpu);
        fprintf(out, ",\n  \"simulated_cycles\": %.0f,\n  \"manybsp_cycles\": %.0f,\n", simulated,
               floor(res.kernel_exec_cycle + 0.5));
        fprintf(out, "  \"measured_cycles\": ");
        if (measured > 0)
            fprintf(out, "%.0f,\n  \"simulated_error_pct\": %.2f,\n  \"manybsp_error_pct\": %.2f,\n",
                   measured, manybsp_error_pct(measured, simulated),
                   manybsp_error_pct(measured, res.kernel_exec_cycle));
        else
            fprintf(out, "null,\n  \"simulated_vs_manybsp_pct\": %.2f,\n", diff);
        fprintf(out, "  \"threshold_pct\": %g,\n  \"verdict\": \"%s\",\n  \"level1\": [", threshold,
               within ? "within" : "beyond");
        for (uint32_t k = 0; k < mr.n_l1; k++)
            fprintf(out, "%s{\"start\": %u, \"end\": %u, \"comp\": %g, \"comm\": %g, \"ovh\": %g, "
                   "\"iterations\": %u}", k ? ", " : "", mr.l1[k].start + 1, mr.l1[k].end + 1,
                   mr.l1[k].comp, mr.l1[k].comm, mr.l1[k].ovh, mr.l1[k].iters);
        fprintf(out, "],\n  \"manybsp\": ");
        manybsp_print_json(out, mc, &res, NULL);
        fprintf(out, "}\n");
    } else {
        fprintf(out, "validate %s on %s\n", launch, gpu);
        fprintf(out, "  simulated      %12.0f cycles\n", simulated);
        fprintf(out, "  Many-BSP       %12.0f cycles (extracted: %u instructions, %u level-2 and %u "
               "level-1 supersteps%s)\n", res.kernel_exec_cycle, n, mr.n_l2, mr.n_l1,
               dev.path[0] ? "" : "; device values from the config");
        if (p->mu <= 0)
            fprintf(out, "                 note: manybsp.mu is not measured for this GPU: the "
                   "(1 + rho)/2 concurrency is used alone\n");
        if (measured > 0) {
            fprintf(out, "  measured       %12.0f cycles (%s)\n", measured, msrc);
            fprintf(out, "  simulated vs measured  %+.1f %%\n", (simulated - measured) / measured * 100);
            fprintf(out, "  Many-BSP vs measured   %+.1f %%\n",
                   (res.kernel_exec_cycle - measured) / measured * 100);
        } else {
            fprintf(out, "  measured       none (no %s on %s in validation/measured.tsv nor "
                   "validation/measured/*.tsv)\n", kname, gpu);
            fprintf(out, "  simulated vs Many-BSP  %+.1f %%\n",
                   (simulated - res.kernel_exec_cycle) / res.kernel_exec_cycle * 100);
        }
        fprintf(out, "  verdict        %s the %g %% threshold (simulated vs %s)\n",
               within ? "within" : "beyond", threshold, measured > 0 ? "measured" : "Many-BSP");
    }
    *within_out = within;
out:
    sim_destroy(s);
    inst_source_destroy(&src);
    mbx_result_free(&mr);
    profile_free(&pf);
    free(st);
    free(rows);
    free(mc);
    return status;
}

