/*
 * smsim.c - libsmsim's core: errors, output files, configs, instruction
 * sources, simulations and their statistics, over sim/ and frontend/.
 *
 * The library is the only code besides the tests that sees both sides:
 * sim/ never includes frontend/, frontends see sim/{inst,error,types}.h
 * only, and lib/ joins them behind opaque handles.  The tools (emulation,
 * traces, listings, occupancy) are in smsim_tools.c, the validator in
 * smsim_validate.c.  smsim_error has sim_error's layout (checked below),
 * so errors pass through without copying.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/smsim.h"
#include "lib/smsim_internal.h"
#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/sass/accelsim.h"
#include "frontend/smt/smt.h"
#include "frontend/synth.h"
#include "sim/afile.h"
#include "sim/kvfile.h"
#include "sim/report.h"
#include "sim/stats.h"
#include "sim/windows.h"

_Static_assert(sizeof(smsim_error) == sizeof(struct sim_error), "smsim_error layout");
_Static_assert(offsetof(smsim_error, msg) == offsetof(struct sim_error, msg), "smsim_error layout");
_Static_assert(SMSIM_ERRMSG_MAX == SIM_ERRMSG_MAX, "smsim_error layout");
_Static_assert((int)SMSIM_ERR_IO == (int)SIM_ERR_IO && (int)SMSIM_ERR_FORMAT == (int)SIM_ERR_FORMAT &&
               (int)SMSIM_ERR_CONFIG == (int)SIM_ERR_CONFIG &&
               (int)SMSIM_ERR_NOMEM == (int)SIM_ERR_NOMEM &&
               (int)SMSIM_ERR_UNSUPPORTED == (int)SIM_ERR_UNSUPPORTED &&
               (int)SMSIM_ERR_USAGE == (int)SIM_ERR_USAGE &&
               (int)SMSIM_ERR_INTERNAL == (int)SIM_ERR_INTERNAL,
               "smsim_status mirrors enum sim_err");
_Static_assert(SMSIM_CONFIG_VALUE_MAX >= CFG_STR_MAX + 32, "a formatted config value fits");
_Static_assert(SMSIM_UNKNOWN_ERROR == (int)ACCELSIM_UNKNOWN_ERROR &&
               SMSIM_UNKNOWN_ALU == (int)ACCELSIM_UNKNOWN_ALU, "unknown opcode policy");

/* ---- errors and reports ------------------------------------------------------------ */

const char *
smsim_strerror(int code)
{
    return sim_strerror(code);
}

int
smsim_exit_status(int code)
{
    return sim_error_exit_status(code);
}

int
smsim_error_set(smsim_error *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset(SERR(e), code, fmt, ap);
    va_end(ap);
    return rc;
}

void
smsim_report(const char *kind, const char *msg)
{
    sim_report(kind, msg);
}

void
smsim_reportf(const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_vreportf(kind, fmt, ap);
    va_end(ap);
}

/* ---- output files ---------------------------------------------------------------------- */

struct smsim_outfile {
    struct afile af;
};

int
smsim_write_file(const char *path, void (*print)(FILE *fp, void *arg), void *arg,
                 smsim_error *err)
{
    return afile_write(path, print, arg, SERR(err));
}

int
smsim_outfile_open(smsim_outfile **out, const char *path, smsim_error *err)
{
    smsim_outfile *of = xcalloc(1, sizeof *of);
    int rc = afile_open(&of->af, path, SERR(err));
    if (rc < 0) {
        free(of);
        of = NULL;
    }
    *out = of;
    return rc;
}

FILE *
smsim_outfile_stream(smsim_outfile *of)
{
    return of->af.fp;
}

int
smsim_outfile_commit(smsim_outfile *of, smsim_error *err)
{
    int rc = afile_commit(&of->af, SERR(err));     /* frees what it held, either way */
    free(of);
    return rc;
}

void
smsim_outfile_abort(smsim_outfile *of)
{
    if (of == NULL)
        return;
    afile_abort(&of->af);
    free(of);
}

void
smsim_cleanup_on_signals(void)
{
    afile_cleanup_on_signals();
}

void
smsim_json_string(FILE *out, const char *s)
{
    stats_json_string(out, s);
}

void
smsim_json_double(FILE *out, double v)
{
    stats_json_double(out, v);
}

double
smsim_wall_seconds(void)
{
    return sim_wall_seconds();
}

struct smsim_kvfile {
    struct kvfile kf;
};

int
smsim_kvfile_open(smsim_kvfile **out, const char *path, const char *what, int code,
                  smsim_error *err)
{
    smsim_kvfile *k = xcalloc(1, sizeof *k);
    int rc = kvfile_open(&k->kf, path, what, code, SERR(err));
    if (rc < 0) {
        free(k);
        k = NULL;
    }
    *out = k;
    return rc;
}

int
smsim_kvfile_next(smsim_kvfile *kf, char **key, char **val, smsim_error *err)
{
    return kvfile_next(&kf->kf, key, val, SERR(err));
}

const char *
smsim_kvfile_where(const smsim_kvfile *kf)
{
    return kf->kf.where;
}

void
smsim_kvfile_close(smsim_kvfile *kf)
{
    if (kf == NULL)
        return;
    kvfile_close(&kf->kf);
    free(kf);
}

/* ---- configs ------------------------------------------------------------------------------ */

int
smsim_config_load(smsim_config **out, const char *name, const char *const *sets, size_t n_sets,
                  smsim_error *err)
{
    smsim_config *c = xcalloc(1, sizeof *c);
    c->origin = config_origin_new();
    int rc = config_load(&c->cfg, name, sets, n_sets, c->origin, SERR(err));
    if (rc < 0) {
        smsim_config_free(c);
        c = NULL;
    }
    *out = c;
    return rc;
}

void
smsim_config_free(smsim_config *c)
{
    if (c == NULL)
        return;
    config_origin_destroy(c->origin);
    free(c);
}

int
smsim_config_dir(char *buf, size_t n, smsim_error *err)
{
    return config_dir(buf, n, SERR(err));
}

int
smsim_config_resolve(const char *name, char *buf, size_t n, smsim_error *err)
{
    return config_resolve(name, buf, n, SERR(err));
}

void
smsim_config_gpu(const smsim_config *c, struct smsim_gpu *out)
{
    const struct sim_config *g = &c->cfg;
    *out = (struct smsim_gpu){
        .name = g->gpu_name, .arch = cfg_arch_names[g->gpu_arch], .cc = g->gpu_cc,
        .sm_count = g->sm_count, .subpartitions = g->sm_subpartitions,
        .max_warps = g->sm_max_warps, .smem_reserved = g->sm_smem_reserved,
        .clock_mhz = g->gpu_clock_mhz
    };
}

size_t
smsim_config_field_count(void)
{
    return config_field_count();
}

const char *
smsim_config_field_name(size_t i)
{
    return i < config_field_count() ? config_field(i)->name : NULL;
}

long
smsim_config_field_index(const char *name)
{
    return config_field_index(name);
}

const char *
smsim_config_field_suggest(const char *name)
{
    return config_field_suggest(name);
}

void
smsim_config_value(const smsim_config *c, size_t i, char *buf, size_t n)
{
    config_format_value(&c->cfg, i, buf, n);
}

void
smsim_config_print(FILE *out, const smsim_config *c)
{
    config_print(out, &c->cfg, c->origin);
}

void
smsim_config_print_reference(FILE *out)
{
    config_print_reference(out);
}

/* ---- sources -------------------------------------------------------------------------------- */

static smsim_source *
source_new(void)
{
    return xcalloc(1, sizeof(smsim_source));
}

static int
source_done(smsim_source **out, smsim_source *s, int rc)
{
    if (rc < 0) {
        smsim_source_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

int
smsim_source_open_launch(smsim_source **out, const char *path, smsim_error *err)
{
    smsim_source *s = source_new();
    return source_done(out, s, ptx_source_open(path, &s->src, SERR(err)));
}

int
smsim_source_open_trace(smsim_source **out, const char *path, int unknown_opcode,
                        smsim_error *err)
{
    smsim_source *s = source_new();
    int rc;
    if (smt_sniff(path)) {
        rc = smt_source_open(path, &s->src, SERR(err));
    } else if (accelsim_sniff(path)) {
        struct accelsim_opts o = { unknown_opcode };
        rc = accelsim_source_open(path, &o, &s->src, SERR(err));
    } else {
        FILE *fp = fopen(path, "rb");
        if (fp == NULL) {
            rc = sim_error_set(SERR(err), SIM_ERR_IO, "%s: cannot open trace", path);
        } else {
            fclose(fp);
            rc = sim_error_set(SERR(err), SIM_ERR_FORMAT,
                               "%s: byte offset 0: not a trace smsim reads (expected a .smt "
                               "file, an Accel-Sim kernelslist.g or kernel-N.traceg[.xz], or "
                               "a directory holding a kernelslist.g)", path);
        }
    }
    return source_done(out, s, rc);
}

int
smsim_source_open_synth(smsim_source **out, const char *spec, smsim_error *err)
{
    smsim_source *s = source_new();
    return source_done(out, s, synth_source_open(spec, &s->src, SERR(err)));
}

void
smsim_print_synth_help(FILE *out)
{
    synth_print_help(out);
}

void
smsim_source_free(smsim_source *src)
{
    if (src == NULL)
        return;
    inst_source_destroy(&src->src);
    free(src);
}

void
smsim_source_set_target(smsim_source *src, const smsim_config *c)
{
    if (src->src.ops != NULL && src->src.ops->set_target != NULL)
        src->src.ops->set_target(src->src.ctx, c->cfg.gpu_cc);
}

bool
smsim_source_is_launch(const smsim_source *src)
{
    return ptx_source_is(&src->src);
}

int
smsim_source_write_outputs(const smsim_source *src, const char *outdir, smsim_error *err)
{
    return ptx_source_write_outputs(&src->src, outdir, SERR(err));
}

/* ---- simulations ------------------------------------------------------------------------------ */

struct smsim_sim {
    sim *s;
    struct smsim_watch watch;    /* the embedder's */
    bool watched;
    windows *win;                /* smsim_set_windows() */
    FILE *wout;
    enum report_wfmt wfmt;
    uint32_t n_sched;
};

smsim_sim *
smsim_new(const smsim_config *c)
{
    smsim_sim *s = xcalloc(1, sizeof *s);
    s->s = sim_new(&c->cfg);
    return s;
}

void
smsim_free(smsim_sim *s)
{
    if (s == NULL)
        return;
    windows_destroy(s->win);
    sim_destroy(s->s);
    free(s);
}

void
smsim_set_threads(smsim_sim *s, unsigned n)
{
    sim_set_threads(s->s, n);
}

static void
ob_kernel_begin(void *ctx, const sim *x, const struct kernel_info *ki)
{
    smsim_sim *s = ctx;
    if (s->win != NULL)
        windows_kernel_begin(s->win, sim_now(x));
    if (s->watch.kernel_begin != NULL)
        s->watch.kernel_begin(s->watch.ctx, s, sim_kernel_count(x), ki->name);
}

static void
ob_kernel_end(void *ctx, const sim *x, const struct sim_kernel_result *kr)
{
    smsim_sim *s = ctx;
    (void)x;
    (void)kr;
    if (s->win != NULL)
        windows_kernel_end(s->win);
}

static void
ob_issue(void *ctx, uint32_t sm, uint32_t sched, sim_cycle_t cycle, const struct warp_inst *wi)
{
    smsim_sim *s = ctx;
    windows_issue(s->win, sm, sched, cycle, wi);
}

static void
ob_block(void *ctx, const sim *x, sim_cycle_t cycle)
{
    smsim_sim *s = ctx;
    (void)x;
    (void)cycle;
    if (s->watch.block_retired != NULL)
        s->watch.block_retired(s->watch.ctx, s);
}

/* Observe only what is asked for: an issue callback ticks the SMs on one
 * thread, so it is installed only for the windows. */
static void
observe(smsim_sim *s)
{
    struct sim_observer ob = { ob_kernel_begin, ob_kernel_end,
                               s->win != NULL ? ob_issue : NULL, ob_block, s };
    if (s->win != NULL || s->watched)
        sim_set_observer(s->s, &ob);
}

void
smsim_set_watch(smsim_sim *s, const struct smsim_watch *w)
{
    s->watch = *w;
    s->watched = true;
    observe(s);
}

static void
window_row(void *ctx, const struct window_row *r)
{
    smsim_sim *s = ctx;
    report_window_row(s->wout, s->wfmt, s->n_sched, r);
}

void
smsim_set_windows(smsim_sim *s, uint64_t k, FILE *out, bool jsonl)
{
    const struct sim_config *cfg = sim_config(s->s);
    windows_destroy(s->win);
    s->wout = out;
    s->wfmt = jsonl ? REPORT_WJSONL : REPORT_WCSV;
    s->n_sched = cfg->sm_subpartitions < WINDOWS_MAX_SCHED ? cfg->sm_subpartitions
                                                           : WINDOWS_MAX_SCHED;
    s->win = windows_new(cfg, k, window_row, s);
    report_window_header(out, s->wfmt, s->n_sched);
    observe(s);
}

int
smsim_run(smsim_sim *s, smsim_source *src, smsim_error *err)
{
    return sim_run(s->s, &src->src, SERR(err));
}

uint64_t
smsim_now(const smsim_sim *s)
{
    return sim_now(s->s);
}

uint64_t
smsim_blocks_total(const smsim_sim *s)
{
    return sim_blocks_total(s->s);
}

uint64_t
smsim_blocks_retired(const smsim_sim *s)
{
    return sim_blocks_retired(s->s);
}

uint64_t
smsim_warp_insts(const smsim_sim *s)
{
    return sim_warp_insts(s->s);
}

size_t
smsim_kernel_count(const smsim_sim *s)
{
    return sim_kernel_count(s->s);
}

int
smsim_kernel(const smsim_sim *s, size_t k, struct smsim_kernel *out)
{
    if (k >= sim_kernel_count(s->s))
        return SIM_ERR_USAGE;
    const struct sim_kernel_result *kr = sim_kernel(s->s, k);
    *out = (struct smsim_kernel){
        .name = kr->ki.name, .start = kr->start, .cycles = kr->cycles, .blocks = kr->blocks,
        .regs_per_thread = kr->ki.regs_per_thread, .regs_requested = kr->regs_requested,
        .smem_per_block = kr->ki.smem_static + kr->ki.smem_dynamic, .truncated = kr->truncated,
        .sampled = kr->sample.sampled, .cycles_lo = kr->sample.lo, .cycles_hi = kr->sample.hi,
        .cycles_simulated = kr->sample.simulated, .blocks_skipped = kr->sample.blocks_skipped
    };
    return SMSIM_OK;
}

uint64_t
smsim_stat(const smsim_sim *s, size_t k, const char *name)
{
    const stats *st = sim_stats(s->s);
    if (stats_instances(st, name) == 0)
        return 0;
    const struct stats_snapshot *snap = k == SMSIM_TOTAL ? sim_total_snapshot(s->s)
                                                         : sim_kernel_stats(s->s, k);
    return snap != NULL ? stats_get(st, snap, name) : 0;
}

bool
smsim_stat_known(const smsim_sim *s, const char *name)
{
    return stats_instances(sim_stats(s->s), name) != 0;
}

void
smsim_print_summary(FILE *out, const smsim_sim *s, const char *config_name, bool per_sm)
{
    report_text(out, s->s, config_name, per_sm);
}

void
smsim_print_stats(FILE *out, const smsim_sim *s, const char *config_name)
{
    report_text(out, s->s, config_name, true);
}

void
smsim_print_json(FILE *out, const smsim_sim *s, const char *config_name)
{
    report_json(out, s->s, config_name);
}

/* The statistics reference: a sim of two SMs run on an empty source that
 * registers every frontend's counters too. */
static int
doc_next_kernel(void *ctx, struct kernel_info *ki, struct sim_error *err)
{
    (void)ctx;
    (void)ki;
    (void)err;
    return 0;
}

static void
doc_register_stats(void *ctx, stats *st)
{
    (void)ctx;
    ptx_register_doc_stats(st);
    accelsim_register_doc_stats(st);
}

int
smsim_print_stats_reference(FILE *out, smsim_error *err)
{
    struct sim_config cfg;
    config_defaults(&cfg);
    cfg.sm_count = 2;
    sim *s = sim_new(&cfg);
    static const struct inst_source_ops doc_ops = {
        .next_kernel = doc_next_kernel, .register_stats = doc_register_stats
    };
    struct inst_source doc = { &doc_ops, NULL };
    int rc = sim_run(s, &doc, SERR(err));
    if (rc == SIM_OK)
        report_stats_reference(out, s);
    sim_destroy(s);
    return rc;
}
