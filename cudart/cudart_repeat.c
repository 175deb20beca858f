/*
 * cudart_repeat.c - launch sampling (sim.sample_launches): the repeats of
 * a kernel launch estimated from the launches of it simulated in detail.
 *
 * Whole programs launch the same kernel, with the same grid, over and over
 * (an iteration loop, a benchmark's timing loop, one launch per stream or
 * per level of a search).  A launch's shape is its kernel, grid, block,
 * dynamic shared memory and cluster.  Every launch of a shape is simulated
 * until its last K = sim.sample_launches simulated launches agree: their
 * rates (cycles per PTX warp instruction: those executed with a lane
 * active less the retries of mbarrier waits, which a warp makes every few
 * cycles timed and seldom functionally; smsim_totals.active_insts,
 * .wait_retries) within
 * sim.sample_tolerance of each other, and so their work (PTX warp
 * instructions).  From then on a launch of the shape runs functionally
 * (its results are computed in full, as always) and takes its own PTX warp
 * instructions x the mean rate, the lowest and highest rate giving its
 * interval.  A launch whose work is not within the tolerance of the
 * sampled ones' (a search level with a bigger frontier) is still estimated
 * at the rate, but the shape's sampling starts again: its next launches
 * are simulated.  One estimated launch in RT_RECHECK is simulated instead,
 * and joins the window (SMARTS's systematic sampling, on launches): a rate
 * that drifts (caches filling, data changing) ends the estimating.
 *
 * What an estimate cannot see: a repeat finds the L2 as the functional
 * launches before it left it in the program's memory, but the simulated
 * L2 as the last simulated launch left it; statistics other than cycles
 * cover the simulated launches only.  The report states what was
 * estimated (doc/exec.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"

/* one estimated launch in this many is simulated instead */
enum { RT_RECHECK = 32 };

static bool
same_shape(const struct rt_shape *s, uint32_t func, const struct rt_shape_key *k)
{
    return s->func == func && memcmp(&s->key, k, sizeof *k) == 0;
}

struct rt_shape *
rt_shape_of(uint32_t func, const struct rt_shape_key *k)
{
    for (uint32_t i = 0; i < rt.n_shapes; i++)
        if (same_shape(&rt.shapes[i], func, k))
            return &rt.shapes[i];
    if (rt.n_shapes == rt.cap_shapes) {
        rt.cap_shapes = rt.cap_shapes ? 2 * rt.cap_shapes : 16;
        rt.shapes = realloc(rt.shapes, rt.cap_shapes * sizeof *rt.shapes);
        if (rt.shapes == NULL)
            abort();
    }
    struct rt_shape *s = &rt.shapes[rt.n_shapes++];
    memset(s, 0, sizeof *s);
    s->func = func;
    s->key = *k;
    return s;
}

bool
rt_shape_simulate(struct rt_shape *s)
{
    if (!s->steady)
        return true;
    if (++s->since_check < RT_RECHECK)
        return false;
    s->since_check = 0;
    return true;
}

/* The window's lowest, highest and mean rate (cycles per PTX warp
 * instruction) and work (PTX warp instructions); n_win > 0. */
struct spread {
    double lo, hi, mean, wlo, whi, wmean;
};

static struct spread
spread_of(const struct rt_shape *s)
{
    struct spread p = { s->cpi[0], s->cpi[0], 0, (double)s->work[0], (double)s->work[0], 0 };
    for (uint32_t i = 0; i < s->n_win; i++) {
        p.lo = fmin(p.lo, s->cpi[i]);
        p.hi = fmax(p.hi, s->cpi[i]);
        p.mean += s->cpi[i];
        p.wlo = fmin(p.wlo, (double)s->work[i]);
        p.whi = fmax(p.whi, (double)s->work[i]);
        p.wmean += (double)s->work[i];
    }
    p.mean /= s->n_win;
    p.wmean /= s->n_win;
    return p;
}

/* Whether the window is full and its rates and works agree within the
 * tolerance. */
static bool
window_steady(const struct rt_shape *s)
{
    if (rt.sample_launches == 0 || s->n_win < rt.sample_launches)
        return false;
    struct spread p = spread_of(s);
    return p.mean > 0 && p.wmean > 0 && p.hi - p.lo <= rt.sample_tol * p.mean &&
           p.whi - p.wlo <= rt.sample_tol * p.wmean;
}

void
rt_shape_timed(struct rt_shape *s, uint64_t cycles, uint64_t work)
{
    s->n_timed++;
    s->timed_cycles += cycles;
    if (work == 0 || rt.sample_launches == 0)
        return;
    /* the last sim.sample_launches simulated launches */
    uint32_t k = rt.sample_launches;
    if (s->n_win == k) {
        memmove(s->cpi, s->cpi + 1, (k - 1) * sizeof *s->cpi);
        memmove(s->work, s->work + 1, (k - 1) * sizeof *s->work);
        s->n_win--;
    }
    s->cpi[s->n_win] = (double)cycles / (double)work;
    s->work[s->n_win] = work;
    s->n_win++;
    bool was = s->steady;
    s->steady = window_steady(s);
    if (was && !s->steady)
        s->restarts++;
}

uint64_t
rt_shape_estimate(struct rt_shape *s, uint64_t work, uint64_t *lo, uint64_t *hi)
{
    struct spread p = spread_of(s);
    uint64_t c = (uint64_t)llround((double)work * p.mean);
    *lo = (uint64_t)floor((double)work * p.lo);
    *hi = (uint64_t)ceil((double)work * p.hi);
    s->n_est++;
    s->est_work += work;
    s->est_cycles += c;
    s->est_lo += *lo;
    s->est_hi += *hi;
    if (fabs((double)work - p.wmean) > rt.sample_tol * p.wmean) {
        /* not the work that was sampled: sample again */
        s->steady = false;
        s->n_win = 0;
        s->since_check = 0;
        s->restarts++;
    }
    return c;
}

/* Totals over every shape: launches estimated, their cycles and interval. */
static void
totals(uint64_t *n, uint64_t *c, uint64_t *lo, uint64_t *hi)
{
    *n = *c = *lo = *hi = 0;
    for (uint32_t i = 0; i < rt.n_shapes; i++) {
        *n += rt.shapes[i].n_est;
        *c += rt.shapes[i].est_cycles;
        *lo += rt.shapes[i].est_lo;
        *hi += rt.shapes[i].est_hi;
    }
}

uint64_t
rt_shapes_estimated(void)
{
    uint64_t n, c, lo, hi;
    totals(&n, &c, &lo, &hi);
    return n;
}

void
rt_shapes_report(FILE *fp)
{
    uint64_t n, c, lo, hi;
    totals(&n, &c, &lo, &hi);
    if (n == 0)
        return;
    fprintf(fp, "launch sampling (sim.sample_launches = %u, tolerance %g): %llu launch(es) "
            "estimated from simulated launches of the same shape, %llu cycles in all, "
            "interval [%llu, %llu]; statistics above cover the simulated launches only\n",
            rt.sample_launches, rt.sample_tol, (unsigned long long)n, (unsigned long long)c,
            (unsigned long long)lo, (unsigned long long)hi);
    for (uint32_t i = 0; i < rt.n_shapes; i++) {
        const struct rt_shape *s = &rt.shapes[i];
        if (s->n_est == 0)
            continue;
        const struct rt_shape_key *k = &s->key;
        fprintf(fp, "  %s <<<(%u,%u,%u), (%u,%u,%u), %u>>>: %llu simulated (%llu cycles), "
                "%llu estimated (%llu cycles, [%llu, %llu]; %llu PTX warp instructions)%s\n",
                rt.funcs[s->func].name, k->grid[0], k->grid[1], k->grid[2], k->block[0],
                k->block[1], k->block[2], k->smem, (unsigned long long)s->n_timed,
                (unsigned long long)s->timed_cycles, (unsigned long long)s->n_est,
                (unsigned long long)s->est_cycles, (unsigned long long)s->est_lo,
                (unsigned long long)s->est_hi, (unsigned long long)s->est_work,
                s->restarts ? "; sampled again after a change" : "");
    }
}

void
rt_shapes_json(FILE *fp)
{
    uint64_t n, c, lo, hi;
    totals(&n, &c, &lo, &hi);
    fprintf(fp, "{\"sample_launches\": %u, \"launches\": %llu, \"launches_failed\": %llu, "
            "\"launches_estimated\": %llu, \"launches_replayed\": %llu, "
            "\"cycles_estimated\": %llu, \"cycles_estimated_lo\": %llu, "
            "\"cycles_estimated_hi\": %llu, \"shapes\": [",
            rt.sample_launches, (unsigned long long)rt.launches, (unsigned long long)rt.failed,
            (unsigned long long)n, (unsigned long long)rt.tot.replayed, (unsigned long long)c,
            (unsigned long long)lo, (unsigned long long)hi);
    for (uint32_t i = 0, first = 1; i < rt.n_shapes; i++) {
        const struct rt_shape *s = &rt.shapes[i];
        const struct rt_shape_key *k = &s->key;
        fprintf(fp, "%s\n    {\"kernel\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], "
                "\"smem\": %u, \"simulated\": %llu, \"cycles_simulated\": %llu, "
                "\"estimated\": %llu, \"cycles_estimated\": %llu, \"cycles_estimated_lo\": %llu, "
                "\"cycles_estimated_hi\": %llu, \"ptx_insts_estimated\": %llu, "
                "\"restarts\": %u}", first ? "" : ",", rt.funcs[s->func].name, k->grid[0],
                k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->smem,
                (unsigned long long)s->n_timed, (unsigned long long)s->timed_cycles,
                (unsigned long long)s->n_est, (unsigned long long)s->est_cycles,
                (unsigned long long)s->est_lo, (unsigned long long)s->est_hi,
                (unsigned long long)s->est_work, s->restarts);
        first = 0;
    }
    fprintf(fp, "]}");
}
