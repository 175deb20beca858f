/*
 * evq.c - binary min-heap of events stored by value.
 *
 * Invariant: heap[i] <= heap[2i+1], heap[2i+2] in (cycle, pri, seq) order;
 * now <= every pending event's cycle.
 */
#include "sim/evq.h"

#include <stdlib.h>
#include "sim/error.h"

struct ev {
    sim_cycle_t when;
    uint64_t seq;
    uint32_t pri;
    evq_fn fn;
    void *ctx;
    uint64_t arg;
};

struct evq {
    struct ev *h;
    size_t n, cap;
    uint64_t seq;
    sim_cycle_t now;
};

evq *
evq_new(size_t cap)
{
    evq *q = xcalloc(1, sizeof *q);
    q->cap = cap ? cap : 64;
    q->h = xmalloc(q->cap * sizeof *q->h);
    return q;
}

void
evq_destroy(evq *q)
{
    if (q == NULL)
        return;
    free(q->h);
    free(q);
}

static inline bool
before(const struct ev *a, const struct ev *b)
{
    if (a->when != b->when)
        return a->when < b->when;
    if (a->pri != b->pri)
        return a->pri < b->pri;
    return a->seq < b->seq;
}

void
evq_schedule(evq *q, sim_cycle_t when, enum evq_pri pri, evq_fn fn, void *ctx, uint64_t arg)
{
    if (when < q->now)
        SIM_PANIC_AT(q->now, "event scheduled in the past (at %" PRIu64 ")", when);
    if (q->n == q->cap) {
        q->cap *= 2;
        q->h = xrealloc(q->h, q->cap * sizeof *q->h);
    }
    struct ev e = { when, q->seq++, (uint32_t)pri, fn, ctx, arg };
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = e;
}

sim_cycle_t
evq_next_cycle(const evq *q)
{
    return q->n ? q->h[0].when : SIM_CYCLE_MAX;
}

enum evq_pri
evq_next_pri(const evq *q)
{
    SIM_ASSERT(q->n > 0);
    return (enum evq_pri)q->h[0].pri;
}

bool
evq_run_one(evq *q)
{
    if (q->n == 0)
        return false;
    struct ev top = q->h[0];
    struct ev last = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c]))
            c++;
        if (!before(&q->h[c], &last))
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n > 0)
        q->h[i] = last;
    q->now = top.when;
    top.fn(top.ctx, top.when, top.arg);
    return true;
}

sim_cycle_t
evq_now(const evq *q)
{
    return q->now;
}

void
evq_set_now(evq *q, sim_cycle_t now)
{
    SIM_ASSERT(now >= q->now);
    q->now = now;
}

size_t
evq_size(const evq *q)
{
    return q->n;
}
