/*
 * sched.c - warp scheduling policies of one sub-partition.
 *
 *  lrr        loose round robin: start after the warp issued last
 *  gto        greedy then oldest: the warp issued last, then by age
 *  two_level  only the first sched.active_warps warps of the list are
 *             candidates (round robin among them); a candidate that stalls
 *             on a memory operand is moved to the end of the list, letting
 *             the oldest pending warp in
 *
 * s->warps[] is kept in age order (two_level: active set first, then the
 * pending warps in the order they were demoted).
 */
#include "sim/sm_internal.h"

#include <string.h>

static unsigned
index_of(const struct sm_sched *s, uint8_t warp)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->warps[i] == warp)
            return i;
    return s->n;
}

unsigned
sched_order(const struct sm *sm, const struct sm_sched *s, uint8_t *order)
{
    unsigned n = s->n;

    switch (sm->cfg->sched_policy) {
    case CFG_SCHED_GTO: {
        /* the last warp issued, then the others oldest first */
        unsigned i = s->have_last ? index_of(s, s->last) : n;
        if (i == n) {
            memcpy(order, s->warps, n);
            return n;
        }
        order[0] = s->last;
        memcpy(order + 1, s->warps, i);
        memcpy(order + 1 + i, s->warps + i + 1, n - i - 1);
        return n;
    }
    case CFG_SCHED_TWO_LEVEL:
        if (n > sm->cfg->sched_active_warps)
            n = sm->cfg->sched_active_warps;
        __attribute__((fallthrough)); /* round robin over the active candidates */
    default: {
        /* round robin: from the warp after the last one issued */
        unsigned start = 0;
        if (s->have_last) {
            unsigned i = index_of(s, s->last);
            start = i < n ? i + 1 : 0;
        }
        if (start >= n)
            start = 0;
        memcpy(order, s->warps + start, n - start);
        memcpy(order + n - start, s->warps, start);
        return n;
    }
    }
}

void
sched_issued(struct sm_sched *s, uint8_t warp)
{
    s->last = warp;
    s->have_last = true;
}

void
sched_add_warp(struct sm *sm, struct sm_sched *s, uint8_t warp)
{
    (void)sm;
    SIM_ASSERT(s->n < SM_NW);
    s->warps[s->n++] = warp;
    s->skip_until = 0;
}

void
sched_remove_warp(struct sm_sched *s, uint8_t warp)
{
    unsigned i = index_of(s, warp);
    SIM_ASSERT(i < s->n);
    memmove(&s->warps[i], &s->warps[i + 1], (s->n - i - 1) * sizeof s->warps[0]);
    s->n--;
    s->skip_until = 0;
    if (s->have_last && s->last == warp)
        s->have_last = false;
}

void
sched_demote(struct sm *sm, struct sm_sched *s, uint8_t warp)
{
    (void)sm;
    unsigned i = index_of(s, warp);
    if (i >= s->n)
        return;
    memmove(&s->warps[i], &s->warps[i + 1], (s->n - i - 1) * sizeof s->warps[0]);
    s->warps[s->n - 1] = warp;
}
