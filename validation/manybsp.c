/*
 * manybsp.c - the closed-form Many-BSP model (see manybsp.h and
 * doc/manybsp.md).
 *
 * Rounding, chosen so the report's nine worked cases come out as printed
 * (doc/manybsp.md lists the one intermediate that still differs by 1):
 * warp_comp = ceil(COMP / w); warps_need as eq. 15 (ceil inside);
 * nonoverlapped = ceil(eq. 17); everything else is kept exact and the
 * final kernel_exec_cycle is reported unrounded (printed to the nearest
 * cycle).
 */
#include "validation/manybsp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/kvfile.h"
#include "sim/stats.h"

double
manybsp_error_pct(double measured, double predicted)
{
    return measured != 0 ? fabs(measured - predicted) / measured * 100.0 : NAN;
}

double
manybsp_warps_need_eq1(double mem_lat, double inst_time, double alpha)
{
    return mem_lat / (inst_time * alpha);
}

double
manybsp_warps_need_eq2(double mem_lat, double inst_time, double alpha)
{
    return mem_lat / (inst_time * (alpha + 1)) + 1;
}

double
manybsp_warps_need_eq3(double mem_lat, double alu_thru, double alpha, double alu_lat)
{
    return mem_lat * alu_thru / alpha + alu_lat * alu_thru;
}

static double
floor_div(double a, double b)
{
    return b > 0 ? floor(a / b) : INFINITY;
}

int
manybsp_eval(const struct manybsp_input *in, struct manybsp_result *r, struct sim_error *err)
{
    const struct manybsp_params *p = &in->p;
    memset(r, 0, sizeof *r);
    if (in->n_ss == 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "no level-1 superstep");
    if (p->warp_size <= 0 || p->n_ws <= 0 || p->n_t <= 0 || p->n_sm <= 0 || p->n_b <= 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "warp_size, n_ws, n_t, n_sm and n_b must be "
                             "positive");
    /* eq. 6 */
    r->w = ceil(p->n_t / (p->warp_size * p->n_ws));
    /* eq. 10-12 */
    for (uint32_t i = 0; i < in->n_ss; i++) {
        const struct manybsp_sstep *s = &in->ss[i];
        r->parallel_comp += s->iters * s->comp;
        r->block_bar_ovh += s->iters * s->ovh;
        r->block_comm += s->iters * s->comm;
    }
    if (in->ov.block_bar_ovh >= 0)
        r->block_bar_ovh = in->ov.block_bar_ovh;
    if (in->block_comm_delta < 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "block_comm_delta is not given");
    r->block_comm_delta = in->block_comm_delta;
    /* eq. 5 */
    r->COMP = r->w * p->warp_lnch_ovh + r->parallel_comp;
    /* eq. 13, 14 */
    r->max_sum_overlapped = fmin(r->block_comm, r->w * (r->w - 1) / 2 +
                                                (r->COMP - r->w) * (r->w - 1));
    r->min_nonoverlapped = floor((r->block_comm - r->max_sum_overlapped) / r->w);
    /* eq. 15 */
    r->warp_comp = in->ov.warp_comp >= 0 ? in->ov.warp_comp : ceil(r->COMP / r->w);
    r->warp_comm_delta = r->block_comm_delta / r->w;
    double lm1 = p->l_m - 1 > 0 ? p->l_m - 1 : 1;   /* one access: nothing to overlap with */
    r->warps_need = r->warp_comp > 0 ?
        p->n_ws * (ceil(r->warp_comm_delta * p->l_c / (r->warp_comp * lm1)) + 1) : p->n_ws;
    /* eq. 17 */
    double share = r->warps_need > 0 ? fmax(0, 1 - r->w * p->n_ws / r->warps_need) : 0;
    r->nonoverlapped = ceil(fmin(r->block_comm / r->w,
                                 p->mem_lat + r->block_comm_delta / r->w * share));
    /* eq. 4 */
    double lnch = in->ov.block_lnch_ovh >= 0 ? in->ov.block_lnch_ovh : p->block_lnch_ovh;
    double comp_term = in->ov.block_exec_comp >= 0 ? in->ov.block_exec_comp : r->COMP;
    r->block_exec_cycle = lnch + r->block_bar_ovh + r->nonoverlapped + comp_term;
    /* eq. 19, 20: every block has the same profile (eq. 18) */
    r->comp = r->COMP + r->block_bar_ovh;
    r->novlp = r->nonoverlapped;
    /* eq. 21-23 */
    double by_threads = floor_div(p->max_thread_per_sm, p->n_t);
    double by_regs = floor_div(p->n_reg, p->n_t * p->reg_per_thread);
    double by_smem = floor_div(p->shmem_size, p->shmem_per_block);
    r->rho = fmax(1, fmin(by_threads, fmin(by_regs, by_smem)));
    r->K = p->n_b / (p->n_sm * r->rho);
    r->tau = r->comp > 0 ? floor(r->novlp / r->comp) + 1 : 1;
    /* eq. 24, 25 */
    double conc = (1 + r->rho) / 2;
    if (p->mu > 0)
        conc = fmin(p->mu, conc);
    r->kernel_exec_cycle = lnch + p->n_b / p->n_sm * r->comp / conc + r->novlp / 2;
    r->equation = 24;
    if (r->rho < r->tau) {
        r->equation = 25;
        r->kernel_exec_cycle += (r->K - 1) * (r->tau - r->rho) / (r->tau - 1) * r->novlp;
    }
    return SIM_OK;
}

bool
manybsp_case_has_overrides(const struct manybsp_case *c)
{
    const struct manybsp_overrides *o = &c->in.ov;
    return o->block_bar_ovh >= 0 || o->block_lnch_ovh >= 0 || o->block_exec_comp >= 0 ||
           o->warp_comp >= 0;
}

/* ---- case files ------------------------------------------------------------------ */

#define PARAMS(X) \
    X(d) X(n_c) X(n_sm) X(n_ws) X(n_du) X(n_fu) X(warp_size) X(n_b) X(n_t) X(h) X(l) X(l_c) \
    X(l_m) X(l_b) X(mem_lat) X(warp_lnch_ovh) X(block_lnch_ovh) X(issue_cycle) \
    X(max_thread_per_sm) X(reg_per_thread) X(shmem_size) X(shmem_per_block) X(n_reg) X(mu)

static bool
parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(x) || x < 0)
        return false;
    *v = x;
    return true;
}

int
manybsp_case_load(const char *path, struct manybsp_case *c, struct sim_error *err)
{
    struct kvfile kf;
    char *key, *val;
    int rc;
    bool have_g[3] = { false, false, false }, have_mem_lat = false;
    struct { const char *name; double *v; bool set; } fields[] = {
#define X(f) { #f, &c->in.p.f, false },
        PARAMS(X)
#undef X
    };
    const size_t n_fields = sizeof fields / sizeof fields[0];

    memset(c, 0, sizeof *c);
    c->in.block_comm_delta = -1;
    c->in.ov = (struct manybsp_overrides){ -1, -1, -1, -1 };
    c->seed_kernel_exec_cycle = -1;
    c->measured = -1;
    const char *base = strrchr(path, '/');
    snprintf(c->name, sizeof c->name, "%s", base != NULL ? base + 1 : path);
    char *dot = strrchr(c->name, '.');
    if (dot != NULL)
        *dot = '\0';
    rc = kvfile_open(&kf, path, "case", SIM_ERR_FORMAT, err);
    if (rc < 0)
        return rc;
    while ((rc = kvfile_next(&kf, &key, &val, err)) > 0) {
        const char *where = kf.where;
        double v;
        size_t i;
        for (i = 0; i < n_fields; i++)
            if (strcmp(key, fields[i].name) == 0)
                break;
        if (i < n_fields) {
            if (fields[i].set) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' given twice", where, key);
                break;
            }
            if (!parse_num(val, &v)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: %s = '%s' is not a non-negative "
                                   "number", where, key, val);
                break;
            }
            *fields[i].v = v;
            fields[i].set = true;
            if (strcmp(key, "mem_lat") == 0)
                have_mem_lat = true;
        } else if ((strcmp(key, "g0") == 0 || strcmp(key, "g1") == 0 || strcmp(key, "g2") == 0)) {
            int k = key[1] - '0';
            if (have_g[k] || !parse_num(val, &c->in.p.g[k])) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad or repeated %s", where, key);
                break;
            }
            have_g[k] = true;
        } else if (strcmp(key, "sstep") == 0) {
            struct manybsp_sstep s;
            unsigned st, en, it;
            char extra;
            if (sscanf(val, "%u %u %lf %lf %lf %u %c", &st, &en, &s.comp, &s.comm, &s.ovh, &it,
                       &extra) != 6 || en < st || s.comp < 0 || s.comm < 0 || s.ovh < 0) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'sstep = START END COMP "
                                   "COMM OVH ITERATIONS'", where);
                break;
            }
            if (c->in.n_ss == MANYBSP_MAX_SSTEPS) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: more than %d supersteps", where,
                                   MANYBSP_MAX_SSTEPS);
                break;
            }
            if (c->in.n_ss > 0 && st != c->in.ss[c->in.n_ss - 1].end + 1) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: superstep starts at %u, the previous "
                                   "one ends at %u", where, st, c->in.ss[c->in.n_ss - 1].end);
                break;
            }
            s.start = st;
            s.end = en;
            s.iters = it;
            c->in.ss[c->in.n_ss++] = s;
        } else if (strcmp(key, "block_comm_delta") == 0) {
            if (!parse_num(val, &c->in.block_comm_delta)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad block_comm_delta", where);
                break;
            }
        } else if (strcmp(key, "seed_kernel_exec_cycle") == 0) {
            if (!parse_num(val, &c->seed_kernel_exec_cycle)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad seed_kernel_exec_cycle", where);
                break;
            }
        } else if (strcmp(key, "measured") == 0) {
            if (strcmp(val, "held-out") != 0 && !parse_num(val, &c->measured)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: measured is a number of cycles or "
                                   "'held-out'", where);
                break;
            }
        } else if (strncmp(key, "override.", 9) == 0) {
            double *dst = strcmp(key + 9, "block_bar_ovh") == 0 ? &c->in.ov.block_bar_ovh :
                          strcmp(key + 9, "block_lnch_ovh") == 0 ? &c->in.ov.block_lnch_ovh :
                          strcmp(key + 9, "block_exec_comp") == 0 ? &c->in.ov.block_exec_comp :
                          strcmp(key + 9, "warp_comp") == 0 ? &c->in.ov.warp_comp : NULL;
            if (dst == NULL || !parse_num(val, dst)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected override.block_bar_ovh, "
                                   "override.block_lnch_ovh, override.block_exec_comp or "
                                   "override.warp_comp with a number", where);
                break;
            }
        } else if (strcmp(key, "note") == 0) {
            size_t n = strlen(c->note);
            snprintf(c->note + n, sizeof c->note - n, "%s%s", n ? " " : "", val);
        } else if (strcmp(key, "name") == 0) {
            snprintf(c->name, sizeof c->name, "%s", val);
        } else {
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown key '%s'", where, key);
            break;
        }
    }
    kvfile_close(&kf);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n_fields; i++)
        if (!fields[i].set && strcmp(fields[i].name, "mem_lat") != 0 &&
            strcmp(fields[i].name, "mu") != 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: no '%s = ...' line", path,
                                 fields[i].name);
    if (!have_g[0] || !have_g[1] || !have_g[2])
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: g0, g1 and g2 are all needed", path);
    double G2 = c->in.p.g[0] + c->in.p.g[1] + c->in.p.g[2];     /* eq. 26 */
    if (!have_mem_lat)
        c->in.p.mem_lat = G2;
    else if (c->in.p.mem_lat != G2)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: mem_lat = %g but g0 + g1 + g2 = %g "
                             "(eq. 26)", path, c->in.p.mem_lat, G2);
    if (c->in.n_ss == 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: no 'sstep = ...' line", path);
    if (c->in.block_comm_delta < 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: no 'block_comm_delta = ...' line", path);
    return SIM_OK;
}

/* ---- printers -------------------------------------------------------------------- */

#define RESULTS(X) \
    X(w, "eq. 6") X(parallel_comp, "eq. 10") X(block_bar_ovh, "eq. 11") X(block_comm, "eq. 12") \
    X(block_comm_delta, "") X(COMP, "eq. 5") X(max_sum_overlapped, "eq. 13") \
    X(min_nonoverlapped, "eq. 14") X(warp_comp, "COMP / w") X(warp_comm_delta, "") \
    X(warps_need, "eq. 15") X(nonoverlapped, "eq. 17") X(block_exec_cycle, "eq. 4") \
    X(comp, "eq. 19") X(novlp, "eq. 20") X(rho, "eq. 21") X(K, "eq. 22") X(tau, "eq. 23")

void
manybsp_print(FILE *out, const struct manybsp_case *c, const struct manybsp_result *r,
              const struct manybsp_result *corrected)
{
    const struct manybsp_params *p = &c->in.p;
    fprintf(out, "Many-BSP: %s\n", c->name);
    fprintf(out, "  parameters   ");
#define X(f) fprintf(out, " %s=%g", #f, p->f);
    PARAMS(X)
#undef X
    fprintf(out, " g0=%g g1=%g g2=%g\n", p->g[0], p->g[1], p->g[2]);
    fprintf(out, "  level-1 supersteps <start~end, comp, comm, ovh> x iterations:\n");
    for (uint32_t i = 0; i < c->in.n_ss; i++) {
        const struct manybsp_sstep *s = &c->in.ss[i];
        fprintf(out, "    %u: <%u~%u, %g, %g, %g> x %u\n", i + 1, s->start, s->end, s->comp,
                s->comm, s->ovh, s->iters);
    }
#define X(f, eq) fprintf(out, "  %-20s %14.3f  %s\n", #f, r->f, eq);
    RESULTS(X)
#undef X
    fprintf(out, "  kernel_exec_cycle    %14.0f  eq. %d (%.3f)\n", r->kernel_exec_cycle,
            r->equation, r->kernel_exec_cycle);
    if (c->seed_kernel_exec_cycle >= 0)
        fprintf(out, "  seed's prediction    %14.0f  (difference %+.0f)\n",
                c->seed_kernel_exec_cycle, floor(r->kernel_exec_cycle + 0.5) -
                c->seed_kernel_exec_cycle);
    if (c->measured >= 0)
        fprintf(out, "  measured             %14.0f  (error %.2f %%, eq. 27)\n", c->measured,
                manybsp_error_pct(c->measured, r->kernel_exec_cycle));
    else
        fprintf(out, "  measured             held out\n");
    if (corrected != NULL) {
        fprintf(out, "  the seed's arithmetic, corrected: block_bar_ovh %.0f, block_exec_cycle %.0f,"
                " kernel_exec_cycle %.0f\n", corrected->block_bar_ovh, corrected->block_exec_cycle,
                corrected->kernel_exec_cycle);
        if (c->note[0] != '\0')
            fprintf(out, "  note: %s\n", c->note);
    }
}

void
manybsp_print_json(FILE *out, const struct manybsp_case *c, const struct manybsp_result *r,
                   const struct manybsp_result *corrected)
{
    const struct manybsp_params *p = &c->in.p;
    fputs("{\n  \"case\": ", out);
    stats_json_string(out, c->name);
    fputs(",\n  \"parameters\": {", out);
    const char *sep = "";
#define X(f) do { fprintf(out, "%s\"%s\": ", sep, #f); stats_json_double(out, p->f); sep = ", "; } while (0);
    PARAMS(X)
#undef X
    fprintf(out, ", \"g\": [%g, %g, %g]},\n  \"supersteps\": [", p->g[0], p->g[1], p->g[2]);
    for (uint32_t i = 0; i < c->in.n_ss; i++) {
        const struct manybsp_sstep *s = &c->in.ss[i];
        fprintf(out, "%s{\"start\": %u, \"end\": %u, \"comp\": %g, \"comm\": %g, \"ovh\": %g, "
                "\"iterations\": %u}", i ? ", " : "", s->start, s->end, s->comp, s->comm, s->ovh,
                s->iters);
    }
    fputs("],\n", out);
#define X(f, eq) do { fprintf(out, "  \"%s\": ", #f); stats_json_double(out, r->f); fputs(",\n", out); } while (0);
    RESULTS(X)
#undef X
    fprintf(out, "  \"equation\": %d,\n  \"kernel_exec_cycle\": %.0f,\n  \"kernel_exec_cycle_exact\": ",
            r->equation, floor(r->kernel_exec_cycle + 0.5));
    stats_json_double(out, r->kernel_exec_cycle);
    fputs(",\n  \"seed_kernel_exec_cycle\": ", out);
    if (c->seed_kernel_exec_cycle >= 0)
        fprintf(out, "%.0f", c->seed_kernel_exec_cycle);
    else
        fputs("null", out);
    fputs(",\n  \"measured\": ", out);
    if (c->measured >= 0) {
        fprintf(out, "%.0f,\n  \"error_pct\": ", c->measured);
        stats_json_double(out, manybsp_error_pct(c->measured, r->kernel_exec_cycle));
    } else {
        fputs("null", out);
    }
    if (corrected != NULL) {
        fprintf(out, ",\n  \"corrected_kernel_exec_cycle\": %.0f,\n  \"note\": ",
                floor(corrected->kernel_exec_cycle + 0.5));
        stats_json_string(out, c->note);
    }
    fputs("\n}\n", out);
}
