/*
 * sched.c - warp scheduling policies of one sub-partition.
 *
 *  lrr        loose round robin: start after the warp issued last
 *  gto        greedy then oldest: the warp issued last, then by age
 *  gtrr       greedy then round robin: the warp issued last, then the
 *             others from the one after it (no warp waits behind older
 *             ones that alone keep a pipe busy, as under gto)
 *  two_level  only the first sched.active_warps warps of the list are
 *             candidates (round robin among them); a candidate that stalls
 *             on a memory operand, has drained or waits at a barrier is
 *             moved to the end of the list, letting the oldest pending
 *             warp in (sm.c: eval_ordered)
 *
 * s->warps[] is kept in age order (two_level: active set first, then the
 * pending warps in the order they were demoted); s->pos[] maps a warp slot
 * back to its index, and the s->wait bits follow the warps when they move.
 */
#include "sim/sm_internal.h"

#include <string.h>

static unsigned
index_of(const struct sm_sched *s, uint8_t warp)
{
    unsigned i = s->pos[warp];
    return i < s->n && s->warps[i] == warp ? i : s->n;
}

/* mask without bit i, the bits above it moved down one */
static uint64_t
drop_bit(uint64_t mask, unsigned i)
{
    uint64_t low = mask & ((UINT64_C(1) << i) - 1);
    return i >= 63 ? low : low | ((mask >> (i + 1)) << i);
}

/* Take the warp at position i out of warps[] (those after it move up). */
static void
take_out(struct sm_sched *s, unsigned i)
{
    memmove(&s->warps[i], &s->warps[i + 1], (s->n - i - 1) * sizeof s->warps[0]);
    memmove(&s->retry[i], &s->retry[i + 1], (s->n - i - 1) * sizeof s->retry[0]);
    s->n--;
    for (unsigned j = i; j < s->n; j++)
        s->pos[s->warps[j]] = (uint8_t)j;
    s->wait = drop_bit(s->wait, i);
    s->idle = drop_bit(s->idle, i);
    s->far = drop_bit(s->far, i);
}

unsigned
sched_order(const struct sm *sm, const struct sm_sched *s, uint8_t *order)
{
    unsigned n = s->n;

    switch (sm->cfg->sched_policy) {
    case CFG_SCHED_GTO:
    case CFG_SCHED_GTRR: {
        /* the last warp issued, then the others: oldest first (gto), or
         * round robin from the one after it (gtrr) */
        unsigned i = s->have_last ? index_of(s, s->last) : n;
        if (i == n) {
            memcpy(order, s->warps, n);
            return n;
        }
        order[0] = s->last;
        if (sm->cfg->sched_policy == CFG_SCHED_GTO) {
            memcpy(order + 1, s->warps, i);
            memcpy(order + 1 + i, s->warps + i + 1, n - i - 1);
        } else {
            memcpy(order + 1, s->warps + i + 1, n - i - 1);
            memcpy(order + n - i, s->warps, i);
        }
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
    SIM_ASSERT(s->n < SM_NW);
    s->pos[warp] = s->n;
    s->wait &= ~(UINT64_C(1) << s->n);
    s->idle &= ~(UINT64_C(1) << s->n);
    s->far &= ~(UINT64_C(1) << s->n);
    s->retry[s->n] = 0;
    s->warps[s->n++] = warp;
    sm->skip_until[s - sm->sched] = sm->issue_hold[s - sm->sched];
}

void
sched_remove_warp(struct sm *sm, struct sm_sched *s, uint8_t warp)
{
    unsigned i = index_of(s, warp);
    SIM_ASSERT(i < s->n);
    take_out(s, i);
    sm->skip_until[s - sm->sched] = sm->issue_hold[s - sm->sched];
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
    uint64_t waiting = s->wait >> i & 1, idle = s->idle >> i & 1, far = s->far >> i & 1;
    sim_cycle_t retry = s->retry[i];
    take_out(s, i);
    s->pos[warp] = s->n;
    s->retry[s->n] = retry;
    s->warps[s->n++] = warp;
    s->wait |= waiting << (s->n - 1);
    s->idle |= idle << (s->n - 1);
    s->far |= far << (s->n - 1);
}

void
sched_refresh(struct sm_sched *s, sim_cycle_t now)
{
    if (now < s->wait_min)
        return;
    /* the far warps only when the earliest of them may have come */
    bool all = now >= s->far_min;
    sim_cycle_t least = SIM_CYCLE_MAX, far_least = SIM_CYCLE_MAX;
    uint64_t m = all ? s->wait : s->wait & ~s->far, come = 0;
    while (m != 0) {             /* no data-dependent branch: which warp is ready is random */
        unsigned i = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        sim_cycle_t r = s->retry[i];
        bool ready = r <= now;
        come |= (uint64_t)ready << i;
        r = ready ? SIM_CYCLE_MAX : r;
        least = r < least ? r : least;
        sim_cycle_t fr = (s->far >> i & 1) ? r : SIM_CYCLE_MAX;
        far_least = fr < far_least ? fr : far_least;
    }
    s->wait &= ~come;
    s->idle &= ~come;
    s->far &= ~come;
    if (all)
        s->far_min = far_least;
    s->wait_min = least < s->far_min ? least : s->far_min;
}
