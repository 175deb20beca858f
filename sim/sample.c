/*
 * sample.c - wave-level systematic block sampling (see sample.h).
 */
#include "sim/sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
sample_begin(struct sampler *sp, const struct sample_params *p, bool enabled, uint64_t n_blocks,
             uint64_t wave, sim_cycle_t start, uint64_t insts)
{
    memset(sp, 0, sizeof *sp);
    sp->p = *p;
    if (sp->p.windows < 2)
        sp->p.windows = 2;
    if (sp->p.windows > SAMPLE_MAX_WINDOWS)
        sp->p.windows = SAMPLE_MAX_WINDOWS;
    if (sp->p.chunks < 1)
        sp->p.chunks = 1;
    if (sp->p.chunks > SAMPLE_MAX_CHUNKS)
        sp->p.chunks = SAMPLE_MAX_CHUNKS;
    if (sp->p.tail_waves < 1)
        sp->p.tail_waves = 1;
    sp->n_blocks = n_blocks;
    sp->wave = wave > 0 ? wave : 1;
    sp->win_left = sp->wave;
    sp->win_t0 = start;
    sp->win_i0 = insts;
    sp->state = SAMPLE_OFF;
    if (!enabled) {
        snprintf(sp->why, sizeof sp->why, "not asked for");
        return;
    }
    uint64_t waves = (n_blocks + sp->wave - 1) / sp->wave;
    if (waves < sp->p.min_waves || waves < 2 + sp->p.windows + sp->p.tail_waves) {
        snprintf(sp->why, sizeof sp->why, "%llu wave(s) of %llu blocks: too few to sample",
                 (unsigned long long)waves, (unsigned long long)sp->wave);
        return;
    }
    sp->state = SAMPLE_MEASURING;
}

/* The last m windows' rates: their pooled cycles per warp instruction
 * (returned), relative standard deviation, relative standard error of the
 * mean, relative difference between the older and the newer half's rates
 * (a trend), and warp instructions. */
static double
window_stats(const struct sampler *sp, uint32_t m, double *rel_sd, double *se, double *trend,
             double *ins)
{
    double c = 0, n = 0, ch[2] = { 0, 0 }, nh[2] = { 0, 0 };
    for (uint32_t k = 0; k < m; k++) {
        uint32_t i = (sp->n_win - 1 - k) % SAMPLE_MAX_WINDOWS;
        c += sp->w_cyc[i];
        n += sp->w_ins[i];
        ch[k < (m + 1) / 2] += sp->w_cyc[i];     /* [1]: the newer half */
        nh[k < (m + 1) / 2] += sp->w_ins[i];
    }
    *rel_sd = *se = *trend = 1;
    *ins = n;
    if (c <= 0 || n <= 0 || ch[0] <= 0 || ch[1] <= 0)
        return 0;
    double mean = n / c, ss = 0;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t i = (sp->n_win - 1 - k) % SAMPLE_MAX_WINDOWS;
        double r = sp->w_cyc[i] > 0 ? sp->w_ins[i] / sp->w_cyc[i] / mean - 1 : 1;
        ss += r * r;
    }
    *rel_sd = sqrt(ss / (m - 1));
    *se = *rel_sd / sqrt((double)m);
    *trend = fabs(nh[1] / ch[1] - nh[0] / ch[0]) / mean;
    return c / n;
}

/* Steady: for the fewest of the last windows (at least `windows`) whose
 * mean rate is known to tol / 2 (standard error) and whose older and newer
 * halves agree within tol.  Quiet kernels pass on `windows` windows; noisy
 * but stationary ones on more (up to SAMPLE_MAX_WINDOWS); drifting ones
 * not at all.  Fills *m, *c, *rel_sd, *ins; else *se_best and *trend_best
 * say how close it came. */
static bool
find_steady(const struct sampler *sp, uint32_t *m, double *c, double *rel_sd, double *ins,
            double *se_best, double *trend_best)
{
    uint32_t avail = sp->n_win - 1 < SAMPLE_MAX_WINDOWS ? sp->n_win - 1 : SAMPLE_MAX_WINDOWS;
    *se_best = *trend_best = 1;
    for (uint32_t k = sp->p.windows; k <= avail; k++) {
        double se, trend;
        double x = window_stats(sp, k, rel_sd, &se, &trend, ins);
        if (x > 0 && se <= sp->p.tol / 2 && trend <= sp->p.tol) {
            *m = k;
            *c = x;
            return true;
        }
        if (se < *se_best)
            *se_best = se;
        if (trend < *trend_best)
            *trend_best = trend;
    }
    return false;
}

/* Plan the next skipped run from next_block, or end the skipping. */
static void
next_run(struct sampler *sp, uint64_t next_block, double c_before, double ipb_before)
{
    uint64_t left = sp->n_blocks - next_block, tail = sp->p.tail_waves * sp->wave;
    uint64_t room = left > tail ? (left - tail) / sp->wave * sp->wave : 0;
    if (sp->cur >= sp->n_chunks || room == 0) {
        sp->state = SAMPLE_DONE;
        return;
    }
    struct sample_chunk *c = &sp->ch[sp->cur];
    memset(c, 0, sizeof *c);
    c->c_before = c_before;
    c->ipb_before = ipb_before;
    sp->skip_lo = next_block;
    sp->skip_hi = next_block + (room < sp->run_blocks ? room : sp->run_blocks);
    sp->state = SAMPLE_PENDING;
}

void
sample_retired(struct sampler *sp, sim_cycle_t t, uint64_t insts, uint64_t next_block)
{
    if (sp->state == SAMPLE_OFF || sp->state == SAMPLE_DONE || --sp->win_left > 0)
        return;
    uint32_t i = sp->n_win % SAMPLE_MAX_WINDOWS;
    sp->w_cyc[i] = (double)(t - sp->win_t0);
    sp->w_ins[i] = (double)(insts - sp->win_i0);
    sp->last_c = sp->w_ins[i] > 0 ? sp->w_cyc[i] / sp->w_ins[i] : 0;
    sp->last_ipb = sp->w_ins[i] / (double)sp->wave;
    if (sp->n_win >= 2 && sp->w_ins[i] > 0) {   /* successive windows after the warm-up */
        uint32_t pv = (sp->n_win - 1) % SAMPLE_MAX_WINDOWS;
        double cp = sp->w_ins[pv] > 0 ? sp->w_cyc[pv] / sp->w_ins[pv] : 0;
        if (cp > 0 && sp->last_c > 0 && sp->state != SAMPLE_SETTLE && sp->state != SAMPLE_GAP) {
            double d = (sp->last_c - cp) / (0.5 * (sp->last_c + cp));
            sp->ss_diff += d * d;
            sp->n_diff++;
        }
    }
    sp->n_win++;
    sp->win_left = sp->wave;
    sp->win_t0 = t;
    sp->win_i0 = insts;

    uint64_t left = sp->n_blocks - next_block, tail = sp->p.tail_waves * sp->wave;
    switch (sp->state) {
    case SAMPLE_MEASURING: {
        if (sp->n_win < 1 + sp->p.windows) {   /* the first window is the warm-up */
            if (left < tail + sp->wave) {
                sp->state = SAMPLE_OFF;
                snprintf(sp->why, sizeof sp->why, "too few blocks left after the warm-up");
            }
            return;
        }
        double rel_sd, ins, c, se, trend;
        uint32_t m;
        if (!find_steady(sp, &m, &c, &rel_sd, &ins, &se, &trend)) {
            if (left < tail + 2 * sp->wave) {
                sp->state = SAMPLE_OFF;
                snprintf(sp->why, sizeof sp->why, "no steady state: rate s.e. %.1f %%, trend "
                         "%.1f %% (tolerance %.1f %%)", 100 * se, 100 * trend, 100 * sp->p.tol);
            }
            return;
        }
        uint64_t middle = left > tail ? (left - tail) / sp->wave : 0;   /* waves */
        if (middle == 0) {
            sp->state = SAMPLE_OFF;
            snprintf(sp->why, sizeof sp->why, "steady only when too few blocks were left");
            return;
        }
        /* k runs of r waves with two windows between each two: k r + 2 (k - 1) <= middle */
        uint64_t k = (middle + 2) / 3 < sp->p.chunks ? (middle + 2) / 3 : sp->p.chunks;
        if (k == 0)
            k = 1;
        uint64_t r = (middle - 2 * (k - 1)) / k;
        if (r == 0) {
            k = 1;
            r = middle;
        }
        sp->n_chunks = (uint32_t)k;
        sp->run_blocks = r * sp->wave;
        sp->rel_sd = rel_sd;
        sp->cur = 0;
        next_run(sp, next_block, c, ins / ((double)m * (double)sp->wave));
        return;
    }
    case SAMPLE_PENDING:         /* a window closed before the run's dispatch came */
        sp->ch[sp->cur].c_before = sp->last_c;
        sp->ch[sp->cur].ipb_before = sp->last_ipb;
        return;
    case SAMPLE_SETTLE:
        sp->ch[sp->cur].settle_cyc = sp->w_cyc[i];
        sp->ch[sp->cur].settle_ins = sp->w_ins[i];
        sp->state = SAMPLE_GAP;
        return;
    case SAMPLE_GAP:
        sp->ch[sp->cur].c_after = sp->last_c;
        sp->ch[sp->cur].ipb_after = sp->last_ipb;
        sp->cur++;
        sp->tail_i0 = insts;
        next_run(sp, next_block, sp->last_c, sp->last_ipb);
        return;
    default:
        return;
    }
}

void
sample_skipped_block(struct sampler *sp, uint64_t insts)
{
    struct sample_chunk *c = &sp->ch[sp->cur];
    c->blocks++;
    c->insts += insts;
    sp->skipped++;
    if (sp->state == SAMPLE_PENDING && c->blocks == sp->skip_hi - sp->skip_lo)
        sp->state = SAMPLE_SETTLE;
}

void
sample_result(const struct sampler *sp, uint64_t simulated, uint64_t insts_end,
              struct sample_result *r)
{
    memset(r, 0, sizeof *r);
    r->simulated = r->cycles = r->lo = r->hi = simulated;
    if (sp->skipped == 0)
        return;
    r->sampled = true;
    r->rel_sd = sp->rel_sd;
    double noise, var = 0;
    if (sp->n_diff > 0) {        /* successive differences: var(d) = 2 s^2 */
        double s2 = sqrt(sp->ss_diff / (2.0 * sp->n_diff));
        if (s2 > r->rel_sd)
            r->rel_sd = s2;
    }
    noise = sqrt(2.0) * r->rel_sd;
    if (noise < sp->p.tol / 2)
        noise = sp->p.tol / 2;
    uint32_t n = sp->cur + (sp->state == SAMPLE_GAP || sp->state == SAMPLE_SETTLE ||
                            sp->state == SAMPLE_PENDING);
    for (uint32_t k = 0; k < n && k < SAMPLE_MAX_CHUNKS; k++) {
        const struct sample_chunk *c = &sp->ch[k];
        if (c->blocks == 0)
            continue;
        /* a run the kernel ended before measuring after: its window before */
        double ca = c->c_after > 0 ? c->c_after : c->c_before;
        double ia = c->c_after > 0 ? c->ipb_after : c->ipb_before;
        double ins = (double)c->insts, cyc = ins * (c->c_before + ca) / 2;
        double ref = (c->ipb_before + ia) / 2, ipb = ins / (double)c->blocks;
        r->runs++;
        r->blocks_skipped += c->blocks;
        r->insts_skipped += c->insts;
        r->cycles_skipped += cyc;
        r->half_drift += ins * fabs(c->c_before - ca) / 2;
        var += (cyc * noise) * (cyc * noise);
        r->half_mix += cyc * (ref > 0 ? fabs(ipb / ref - 1) : 1);
        if (c->c_after > 0 && c->settle_ins > 0) {
            double x = c->settle_cyc - c->settle_ins * c->c_after;
            r->settle += x;
            r->half_settle += fabs(x);
            var += (2 * r->rel_sd * c->settle_cyc) * (2 * r->rel_sd * c->settle_cyc);
        }
    }
    r->half_noise = sqrt(var);
    /* the tail after the last run whose rate after it was measured */
    const struct sample_chunk *last = sp->cur > 0 ? &sp->ch[sp->cur - 1] : NULL;
    if (last != NULL && last->c_after > 0 && insts_end > sp->tail_i0 && sp->tail_i0 > 0)
        r->half_tail = (double)(insts_end - sp->tail_i0) * fabs(last->c_after - last->c_before);
    double half = r->half_drift + r->half_noise + r->half_mix + r->half_settle + r->half_tail;
    double base = (double)simulated - r->settle;
    if (base < 0)
        base = 0;
    r->cycles = (uint64_t)llround(base + r->cycles_skipped);
    r->lo = (uint64_t)llround(fmax(0, base + r->cycles_skipped - half));
    r->hi = (uint64_t)llround(base + r->cycles_skipped + half);
}
