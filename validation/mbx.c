/*
 * mbx.c - Many-BSP steps 3 and 4: BLOCK table and supersteps (see mbx.h;
 * the rules and the evidence for each are in doc/manybsp.md).
 *
 * Rows are 0-based here; the report numbers them from 1.
 */
#include "validation/mbx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *
mbx_fu_name(unsigned fu)
{
    static const char *const n[MBX_FU_COUNT] = { "SP", "DPU", "SFU", "LDST", "BAR" };
    return fu < MBX_FU_COUNT ? n[fu] : "?";
}

/* First row after i that reads reg before any row redefines it, or -1. */
static int32_t
first_read(const int32_t (*dst)[8], const int32_t (*src)[8], uint32_t n, uint32_t i, int32_t reg)
{
    for (uint32_t k = i + 1; k < n; k++) {
        for (int s = 0; s < 8 && src[k][s] >= 0; s++)
            if (src[k][s] == reg)
                return (int32_t)k;
        for (int d = 0; d < 8 && dst[k][d] >= 0; d++)
            if (dst[k][d] == reg)
                return -1;
    }
    return -1;
}

void
mbx_first_uses(const int32_t (*dst)[8], const int32_t (*src)[8], uint32_t n, int32_t *u)
{
    for (uint32_t i = 0; i < n; i++) {
        u[i] = -1;
        for (int d = 0; d < 8 && dst[i][d] >= 0; d++) {
            int32_t k = first_read(dst, src, n, i, dst[i][d]);
            if (k >= 0 && (u[i] < 0 || k < u[i]))
                u[i] = k;
        }
    }
}

/* ---- the walk ------------------------------------------------------------------ */

struct walk {
    const struct mbx_row *x;
    uint32_t n;
    const struct mbx_params *p;
    struct mbx_cell *c;
    bool *l1cut;                 /* level-1 boundary after row i */
};

static bool
dep_next(const struct walk *wk, uint32_t i)
{
    return i + 1 < wk->n && wk->x[i].u == (int32_t)(i + 1);
}

static double
base_issue(const struct walk *wk, uint32_t i)
{
    const struct mbx_row *x = &wk->x[i];
    if (x->fu == MBX_SP || x->fu == MBX_BAR)
        return wk->p->w;
    return x->n_fu > 0 ? wk->p->w * wk->p->warp_size / x->n_fu : wk->p->w;
}

/* Dual issue: p_i, i+1 independent of i, not a barrier after, not a
 * conditional branch; greedy, pairs do not overlap; the cheaper Issue is
 * dropped (a tie drops row i's). */
static void
pair_up(struct walk *wk)
{
    for (uint32_t i = 0; i < wk->n; i++) {
        wk->c[i].issue = base_issue(wk, i);
        wk->c[i].partner = -1;
    }
    for (uint32_t i = 0; i + 1 < wk->n; i++) {
        const struct mbx_row *x = &wk->x[i];
        if (!x->p || dep_next(wk, i) || wk->c[i].partner >= 0 || wk->x[i + 1].fu == MBX_BAR ||
            x->cond_branch)
            continue;
        wk->c[i].partner = (int32_t)(i + 1);
        wk->c[i + 1].partner = (int32_t)i;
        if (wk->c[i + 1].issue < wk->c[i].issue)
            wk->c[i + 1].issue = 0;
        else
            wk->c[i].issue = 0;
        i++;
    }
}

/* 'L', 'I', or 0 (global access, barrier: no FU cost). */
static char
form_of(const struct walk *wk, uint32_t i, const bool *fu_used)
{
    const struct mbx_row *x = &wk->x[i];
    if (x->global || x->fu == MBX_BAR)
        return 0;
    if (i == 0)
        return 'L';
    if (wk->x[i - 1].fu == MBX_BAR)
        return 'L';
    if (dep_next(wk, i - 1))
        return 'L';
    if (x->fu != MBX_SP && !fu_used[x->fu])
        return 'L';                  /* a cold non-SP pipeline */
    return 'I';
}

static double
cost_of(const struct walk *wk, uint32_t i, char form)
{
    const struct mbx_row *x = &wk->x[i];
    if (form == 0)
        return 0;
    double r = x->T > 0 ? wk->p->warp_size / x->T : 1;
    if (r > x->lat && x->lat > 0)
        r = x->lat;                  /* a warp never holds a unit longer than its latency */
    double k = wk->p->w * (x->n_ma > 0 ? x->n_ma : 1);
    return form == 'L' ? x->lat + (k - 1) * r : k * r;
}

/* Equation 7 for producer i, consumer j, superstep start l: instructions
 * after i are costed as if the superstep went on. */
static void
eq7(const struct walk *wk, uint32_t l, uint32_t i, uint32_t j, const bool *fu_used_in,
    double *lhs_out, double *rhs_out)
{
    bool fu_used[MBX_FU_COUNT];
    memcpy(fu_used, fu_used_in, sizeof fu_used);
    double *cost = malloc((j + 1) * sizeof *cost);
    for (uint32_t k = l; k <= i; k++)
        cost[k] = wk->c[k].cost;
    for (uint32_t k = i + 1; k < j; k++) {
        char f = form_of(wk, k, fu_used);
        cost[k] = cost_of(wk, k, f);
        if (f != 0)
            fu_used[wk->x[k].fu] = true;
    }
    unsigned fx = wk->x[i].fu;
    double lhs = 0, iss = 0, others[MBX_FU_COUNT] = { 0 };
    for (uint32_t k = l; k <= i; k++)
        if (wk->x[k].fu == fx)
            lhs += cost[k];
    for (uint32_t k = l + 1; k < j; k++)
        iss += wk->c[k].issue;
    for (uint32_t k = l; k + 1 < j; k++)
        if (wk->x[k].fu != fx && wk->x[k].fu != MBX_BAR)
            others[wk->x[k].fu] += cost[k];
    double mo = 0;
    for (unsigned f = 0; f < MBX_BAR; f++)
        mo = fmax(mo, others[f]);
    free(cost);
    *lhs_out = lhs;
    *rhs_out = iss + mo;
}

/* A level-2 boundary after i that does not depend on costs. */
static bool
natural_cut(const struct walk *wk, uint32_t i)
{
    const struct mbx_row *x = &wk->x[i];
    if (wk->c[i].partner == (int32_t)(i + 1))
        return false;                /* a dual-issue pair is never split */
    if (x->fu == MBX_BAR || x->cond_branch || x->global)
        return true;
    if (i > 0 && wk->c[i].partner == (int32_t)i - 1 && wk->x[i - 1].global)
        return true;
    return dep_next(wk, i) || wk->l1cut[i] || i + 1 == wk->n;
}

static void
close_superstep(struct walk *wk, uint32_t l, uint32_t i, struct mbx_result *r)
{
    double rest = 0, fu[MBX_FU_COUNT] = { 0 }, comm = 0, ovh = 0, loads = 0;
    for (uint32_t k = l; k <= i; k++) {
        if (k > l)
            rest += wk->c[k].issue;
        if (wk->c[k].form != 0)
            fu[wk->x[k].fu] += wk->c[k].cost;
        comm += wk->c[k].comm;
        ovh += wk->c[k].ovh;
        if (wk->x[k].global && wk->x[k].load)
            loads += wk->c[k].comm;
    }
    double m = rest;
    for (unsigned f = 0; f < MBX_FU_COUNT; f++)
        m = fmax(m, fu[f]);
    r->l2 = realloc(r->l2, (r->n_l2 + 1) * sizeof *r->l2);
    r->l2[r->n_l2++] = (struct mbx_superstep){ l, i, wk->c[l].issue + m, comm, ovh, loads, 1 };
}

/* Level-1 boundaries: before a loop head, after a back edge, after a
 * conditional branch that leaves its loop. */
static void
level1_cuts(struct walk *wk)
{
    for (uint32_t i = 0; i < wk->n; i++)
        wk->l1cut[i] = wk->x[i].l1_cut;
    for (uint32_t i = 0; i < wk->n; i++) {
        const struct mbx_row *x = &wk->x[i];
        if (!x->branch || x->target < 0 || (uint32_t)x->target > i)
            continue;
        uint32_t h = (uint32_t)x->target;    /* loop h .. i */
        if (h > 0)
            wk->l1cut[h - 1] = true;
        wk->l1cut[i] = true;
        for (uint32_t k = h; k < i; k++) {
            const struct mbx_row *y = &wk->x[k];
            if (y->cond_branch && (y->target < (int32_t)h || y->target > (int32_t)i))
                wk->l1cut[k] = true;
        }
    }
    wk->l1cut[wk->n - 1] = false;
}

int
mbx_extract(const struct mbx_row *rows, uint32_t n, const struct mbx_params *p,
            struct mbx_result *r, struct sim_error *err)
{
    memset(r, 0, sizeof *r);
    if (n == 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "Many-BSP extraction: no instructions");
    struct walk wk = { rows, n, p, xcalloc(n, sizeof *r->cell), xcalloc(n, 1) };
    r->cell = wk.c;
    level1_cuts(&wk);
    pair_up(&wk);
    bool *nat = xcalloc(n, sizeof *nat);
    uint32_t *seg_end = xcalloc(n, sizeof *seg_end);
    for (uint32_t i = 0; i < n; i++)
        nat[i] = natural_cut(&wk, i);
    for (uint32_t i = n, next = n - 1; i-- > 0;) {
        if (nat[i])
            next = i;
        seg_end[i] = next;
    }
    bool fu_used[MBX_FU_COUNT] = { false };
    uint32_t l = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct mbx_row *x = &rows[i];
        struct mbx_cell *c = &wk.c[i];
        c->form = form_of(&wk, i, fu_used);
        c->cost = cost_of(&wk, i, c->form);
        c->comm = x->global ? p->w * (x->n_ma > 0 ? x->n_ma : 1) * p->mem_lat : 0;
        c->ovh = x->fu == MBX_BAR ? x->bar_ovh : 0;
        if (c->form != 0)
            fu_used[x->fu] = true;
        int reason = nat[i] ? 1 : 0;     /* 1 natural, 2 equation 7 */
        if (!reason && x->u > (int32_t)(i + 1) && (uint32_t)x->u <= seg_end[i] && !x->global) {
            double lhs, rhs;
            eq7(&wk, l, i, (uint32_t)x->u, fu_used, &lhs, &rhs);
            if (lhs > rhs) {
                c->sync = lhs - rhs;                      /* equation 8 */
                if (c->partner == (int32_t)(i + 1))
                    nat[i + 1] = true;                    /* cut after the pair */
                else
                    reason = 2;
            }
        }
        if (reason) {
            if (reason == 1 && i + 1 < n && dep_next(&wk, i))
                c->sync = c->form != 0 ? c->cost : 1;
            else if (reason == 1 && i + 1 < n)
                c->sync = c->sync > 0 ? c->sync : 1;
            close_superstep(&wk, l, i, r);
            l = i + 1;
            memset(fu_used, 0, sizeof fu_used);
        }
    }
    if (l < n)
        close_superstep(&wk, l, n - 1, r);
    /* level 1 */
    uint32_t a = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!wk.l1cut[i] && i + 1 != n)
            continue;
        struct mbx_superstep s = { a, i, 0, 0, 0, 0, 1 };
        for (uint32_t k = 0; k < r->n_l2; k++)
            if (r->l2[k].start >= a && r->l2[k].end <= i) {
                s.comp += r->l2[k].comp;
                s.comm += r->l2[k].comm;
                s.ovh += r->l2[k].ovh;
                s.comm_loads += r->l2[k].comm_loads;
            }
        double cnt = rows[a].count;
        s.iters = cnt > 0 ? (uint32_t)floor(cnt + 0.5) : 1;
        r->l1 = realloc(r->l1, (r->n_l1 + 1) * sizeof *r->l1);
        r->l1[r->n_l1++] = s;
        a = i + 1;
    }
    free(nat);
    free(seg_end);
    free(wk.l1cut);
    return SIM_OK;
}

void
mbx_result_free(struct mbx_result *r)
{
    free(r->cell);
    free(r->l2);
    free(r->l1);
    memset(r, 0, sizeof *r);
}

int
mbx_to_input(const struct mbx_result *r, struct manybsp_input *in, struct sim_error *err)
{
    if (r->n_l1 > MANYBSP_MAX_SSTEPS)
        return sim_error_set(err, SIM_ERR_NOMEM, "more than %d level-1 supersteps",
                             MANYBSP_MAX_SSTEPS);
    in->n_ss = 0;
    in->block_comm_delta = 0;
    for (uint32_t i = 0; i < r->n_l1; i++) {
        const struct mbx_superstep *s = &r->l1[i];
        in->ss[in->n_ss++] = (struct manybsp_sstep){ s->start + 1, s->end + 1, s->comp, s->comm,
                                                     s->ovh, s->iters };
        in->block_comm_delta += s->iters * s->comm_loads;
    }
    return SIM_OK;
}

void
mbx_print(FILE *out, const struct mbx_row *rows, uint32_t n, const struct mbx_result *r)
{
    fprintf(out, "Table x-1/x-2 (instruction table and BLOCK data structure):\n");
    fprintf(out, "  %4s  %-24s %-4s %5s %5s %4s %6s %4s %4s %2s | %6s %-12s %6s %5s %6s\n", "#",
            "instruction", "FU", "n_fu", "T", "n_ma", "lat", "u", "cnt", "p", "Issue", "FU cost",
            "comm", "ovh", "sync");
    for (uint32_t i = 0; i < n; i++) {
        const struct mbx_row *x = &rows[i];
        const struct mbx_cell *c = &r->cell[i];
        char cost[32] = "";
        if (c->form == 'L') {
            double rr = x->T > 0 ? 32 / x->T : 1;
            (void)rr;
            snprintf(cost, sizeof cost, "%g+%g", x->lat, c->cost - x->lat);
        } else if (c->form == 'I') {
            snprintf(cost, sizeof cost, "%g", c->cost);
        }
        char u[12];
        snprintf(u, sizeof u, "%d", x->u >= 0 ? x->u + 1 : 0);
        fprintf(out, "  %4u  %-24.24s %-4s %5g %5g %4g %6g %4s %4.3g %2d | %6g %-12s %6g %5g %6g\n",
                i + 1, x->text, mbx_fu_name(x->fu), x->n_fu, x->T, x->global || x->n_ma > 1 ?
                x->n_ma : 0, x->global ? 0 : x->lat, u, x->count, x->p, c->issue, cost, c->comm,
                c->ovh, c->sync);
    }
    fprintf(out, "Table x-3, level 2: <start~end, comp, comm, ovh>\n ");
    for (uint32_t k = 0; k < r->n_l2; k++)
        fprintf(out, " %u:<%u~%u,%g,%g,%g>%s", k + 1, r->l2[k].start + 1, r->l2[k].end + 1,
                r->l2[k].comp, r->l2[k].comm, r->l2[k].ovh, (k + 1) % 6 == 0 ? "\n " : "");
    fprintf(out, "\nTable x-3, level 1: <start~end, comp, comm, ovh> x iterations\n");
    for (uint32_t k = 0; k < r->n_l1; k++)
        fprintf(out, "  %u: <%u~%u,%g,%g,%g> x %u\n", k + 1, r->l1[k].start + 1, r->l1[k].end + 1,
                r->l1[k].comp, r->l1[k].comm, r->l1[k].ovh, r->l1[k].iters);
}
