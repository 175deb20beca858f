/*
 * mbdev.c - Many-BSP device descriptions (see mbdev.h).
 */
#include "validation/mbdev.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/inst.h"
#include "sim/kvfile.h"

void
mbdev_init(struct mbdev *d, const struct sim_config *cfg)
{
    memset(d, 0, sizeof *d);
    d->cfg = cfg;
    d->l1_hit_latency = cfg->l1_hit_latency;
}

static int
fu_of_name(const char *s)
{
    static const char *const n[MBX_FU_COUNT] = { "SP", "DPU", "SFU", "LDST", "BAR" };
    for (int i = 0; i < MBX_FU_COUNT; i++)
        if (strcmp(s, n[i]) == 0)
            return i;
    return -1;
}

int
mbdev_load(struct mbdev *d, const char *path, struct sim_error *err)
{
    struct kvfile kf;
    char *key, *val;
    int rc = kvfile_open(&kf, path, "device", SIM_ERR_FORMAT, err);
    if (rc < 0)
        return rc;
    snprintf(d->path, sizeof d->path, "%s", path);
    while ((rc = kvfile_next(&kf, &key, &val, err)) > 0) {
        if (strcmp(key, "op") == 0) {
            struct mbdev_op o;
            char fu[16], extra;
            if (d->n_op == MBDEV_MAX_OPS) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: more than %d ops", kf.where,
                                   MBDEV_MAX_OPS);
                break;
            }
            if (sscanf(val, "%31s %15s %lf %lf %lf %c", o.pattern, fu, &o.n_fu, &o.T, &o.lat,
                       &extra) != 5 || fu_of_name(fu) < 0 || o.T <= 0 || o.n_fu <= 0 ||
                o.lat < 0) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'op = PATTERN SP|DPU|SFU|"
                                   "LDST N_FU T LATENCY'", kf.where);
                break;
            }
            o.fu = (uint8_t)fu_of_name(fu);
            d->op[d->n_op++] = o;
        } else if (strcmp(key, "bar") == 0) {
            double nt, ovh;
            char extra;
            if (d->n_bar == 8 || sscanf(val, "%lf %lf %c", &nt, &ovh, &extra) != 2) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'bar = THREADS OVERHEAD'",
                                   kf.where);
                break;
            }
            d->bar_nt[d->n_bar] = nt;
            d->bar_ovh[d->n_bar++] = ovh;
        } else if (strcmp(key, "l1_hit_latency") == 0) {
            char extra;
            if (sscanf(val, "%lf %c", &d->l1_hit_latency, &extra) != 1) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad l1_hit_latency", kf.where);
                break;
            }
        } else {
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown key '%s' (op, bar, "
                               "l1_hit_latency)", kf.where, key);
            break;
        }
    }
    kvfile_close(&kf);
    return rc < 0 ? rc : SIM_OK;
}

/* pattern matches whole leading components of the mnemonic */
static size_t
match(const char *pattern, const char *mn)
{
    size_t n = strlen(pattern);
    if (strncmp(pattern, mn, n) != 0 || (mn[n] != '\0' && mn[n] != '.'))
        return 0;
    return n;
}

void
mbdev_lookup(const struct mbdev *d, const char *mnemonic, unsigned opclass, unsigned space,
             bool store, struct mbx_row *row)
{
    const struct sim_config *c = d->cfg;
    char key[96];
    /* a global or shared access through a generic address is looked up by
     * its space */
    if (space == SIM_SPACE_GLOBAL)
        snprintf(key, sizeof key, "%s.global", store ? "st" : "ld");
    else if (space == SIM_SPACE_SHARED)
        snprintf(key, sizeof key, "%s.shared", store ? "st" : "ld");
    else if (opclass == SIM_OPC_SREG)
        snprintf(key, sizeof key, "mov.sreg");
    else
        snprintf(key, sizeof key, "%s", mnemonic);
    const struct mbdev_op *best = NULL;
    size_t best_n = 0;
    for (uint32_t i = 0; i < d->n_op; i++) {
        size_t n = match(d->op[i].pattern, key);
        if (n > best_n) {
            best_n = n;
            best = &d->op[i];
        }
    }
    if (best != NULL) {
        row->fu = best->fu;
        row->n_fu = best->n_fu;
        row->T = best->T;
        row->lat = best->lat;
        return;
    }
    /* the config's view */
    unsigned pipe = opclass < SIM_OPC_COUNT ? (unsigned)c->op_pipe[opclass] : SIM_PIPE_SP;
    double lanes = pipe < SIM_PIPE_COUNT ? c->pipe_lanes[pipe] : 32;
    row->fu = pipe == SIM_PIPE_DPU ? MBX_DPU : pipe == SIM_PIPE_SFU ? MBX_SFU :
              pipe == SIM_PIPE_LDST ? MBX_LDST : MBX_SP;
    row->T = fmin(32, lanes);
    row->n_fu = row->T;
    row->lat = opclass < SIM_OPC_COUNT ? c->op_latency[opclass] : 4;
    if (space == SIM_SPACE_GLOBAL || space == SIM_SPACE_LOCAL) {
        row->fu = MBX_LDST;
        row->lat = c->dram_latency;
    } else if (space == SIM_SPACE_SHARED) {
        row->fu = MBX_LDST;
        row->lat = c->smem_latency;
    } else if (space != SIM_SPACE_NONE) {
        row->fu = MBX_LDST;
        row->lat = c->l1_hit_latency;
    }
    if (row->fu == MBX_LDST) {
        row->T = fmin(32, c->pipe_lanes[SIM_PIPE_LDST]);
        row->n_fu = row->T;
    }
}

double
mbdev_bar_ovh(const struct mbdev *d, double n_t)
{
    if (d->n_bar == 0)
        return d->cfg->op_latency[SIM_OPC_BARRIER];
    /* the entry for the nearest block size (linear between two) */
    uint32_t lo = 0, hi = 0;
    for (uint32_t i = 0; i < d->n_bar; i++) {
        if (d->bar_nt[i] <= n_t && (d->bar_nt[lo] > n_t || d->bar_nt[i] > d->bar_nt[lo]))
            lo = i;
        if (d->bar_nt[i] >= n_t && (d->bar_nt[hi] < n_t || d->bar_nt[i] < d->bar_nt[hi]))
            hi = i;
    }
    if (d->bar_nt[lo] > n_t)
        return d->bar_ovh[hi];
    if (d->bar_nt[hi] < n_t || hi == lo)
        return d->bar_ovh[lo];
    double f = (n_t - d->bar_nt[lo]) / (d->bar_nt[hi] - d->bar_nt[lo]);
    return d->bar_ovh[lo] + f * (d->bar_ovh[hi] - d->bar_ovh[lo]);
}

double
mbdev_l1_latency(const struct mbdev *d)
{
    return d->l1_hit_latency;
}
