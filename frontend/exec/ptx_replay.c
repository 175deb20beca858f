/*
 * ptx_replay.c - replaying functional launches that repeat an earlier one
 * (see ptx_replay.h).
 *
 * Invariants: an entry's changed regions are regions of the fingerprint it
 * was recorded under, so a launch that finds that fingerprint finds them
 * live and of the same size; `bytes` is the sum of the entries' recorded
 * bytes and stays within PTX_REPLAY_BUDGET.
 */
#include "frontend/exec/ptx_replay.h"

#include "frontend/exec/ptx_call.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define MAX_ENTRIES 256u

/* A region as the fingerprint sees it (no padding: hashed as bytes). */
struct rsum {
    sim_addr_t base;
    uint64_t size;
    uint64_t hash;               /* of its bytes (0: freed) */
    uint8_t kind, watch, host, pad[5];
};

struct rchange {
    sim_addr_t base;
    uint64_t size;
    uint8_t *bytes;              /* the region after the launch */
};

struct rentry {
    uint64_t key, fp;            /* the launch and the memory it found */
    struct ptx_replay_work work;
    struct rchange *chg;
    uint32_t n_chg;
    uint64_t bytes;
};

struct rkey {
    uint64_t key;
    uint32_t misses, hits;
    bool never;                  /* its kernel's effects are not all in memory */
};

struct ptx_replay {
    struct rentry *e;            /* oldest first */
    uint32_t n_e;
    uint64_t bytes;
    struct rkey *keys;
    uint32_t n_keys, cap_keys;
    /* the launch begun and not yet ended (a miss) */
    bool armed;
    uint64_t key, fp;
    uint32_t n_pre;              /* regions summarised in pre */
    struct rsum *pre, *post;
    uint32_t cap_sum;
    struct ptx_counters cnt0;
};

struct ptx_replay *
ptx_replay_new(void)
{
    struct ptx_replay *rp = xcalloc(1, sizeof *rp);
    rp->e = xcalloc(MAX_ENTRIES, sizeof *rp->e);
    return rp;
}

static void
entry_free(struct rentry *e)
{
    for (uint32_t i = 0; i < e->n_chg; i++)
        free(e->chg[i].bytes);
    free(e->chg);
}

void
ptx_replay_free(struct ptx_replay *rp)
{
    if (rp == NULL)
        return;
    for (uint32_t i = 0; i < rp->n_e; i++)
        entry_free(&rp->e[i]);
    free(rp->e);
    free(rp->keys);
    free(rp->pre);
    free(rp->post);
    free(rp);
}

/* Does kernel `kernel` of module m reach (through its calls, a function
 * pointer reaching every function whose address is taken) a runtime
 * function the executor carries out (ptx_call_builtin): printf's output,
 * assert's message, the device heap's bookkeeping, a graph's condition
 * are not all in memory? */
static bool
side_effects(const struct ptx_module *m, const char *kernel)
{
    const struct ptx_kernel *k = NULL;
    for (uint32_t i = 0; i < m->n_kernels && k == NULL; i++)
        if (strcmp(m->kernels[i].name, kernel) == 0)
            k = &m->kernels[i];
    if (k == NULL)
        return true;
    bool *seen = xcalloc(m->n_funcs + 1, sizeof *seen);
    uint32_t *todo = xmalloc((m->n_funcs + 1) * sizeof *todo), n = 0;
    bool found = false;
    for (const struct ptx_kernel *b = k; b != NULL && !found;
         b = n > 0 ? &m->funcs[todo[--n]] : NULL) {
        if (!b->defined && b != k) {
            found = ptx_call_builtin(b) != XB_NONE;
            continue;
        }
        for (uint32_t c = 0; c < b->n_calls; c++)
            for (uint32_t g = 0; g < m->n_funcs; g++)
                if (!seen[g] && (b->calls[c].func < 0 ? m->funcs[g].addr_taken
                                                      : (int32_t)g == b->calls[c].func)) {
                    seen[g] = true;
                    todo[n++] = g;
                }
    }
    free(seen);
    free(todo);
    return found;
}

/* The program's regions summarised into rp->post (after) or rp->pre
 * (grown as needed), *n of them; their fingerprint. */
static uint64_t
summarise(struct ptx_replay *rp, struct ptx_prog *p, bool after, uint32_t *n)
{
    const struct region *g = ptx_prog_regions(p, n);
    if (*n > rp->cap_sum) {
        rp->cap_sum = *n;
        rp->pre = xrealloc(rp->pre, rp->cap_sum * sizeof *rp->pre);
        rp->post = xrealloc(rp->post, rp->cap_sum * sizeof *rp->post);
    }
    struct rsum *s = after ? rp->post : rp->pre;
    for (uint32_t i = 0; i < *n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].base = g[i].base;
        s[i].size = g[i].size;
        s[i].kind = g[i].kind;
        s[i].watch = g[i].watch;
        s[i].host = g[i].host;
        if (g[i].kind != RK_FREED && g[i].ptr != NULL)
            s[i].hash = XXH3_64bits(g[i].ptr, g[i].size);
    }
    return XXH3_64bits(s, *n * sizeof *s);
}

static struct rkey *
key_stats(struct ptx_replay *rp, uint64_t key)
{
    for (uint32_t i = 0; i < rp->n_keys; i++)
        if (rp->keys[i].key == key)
            return &rp->keys[i];
    if (rp->n_keys == rp->cap_keys) {
        rp->cap_keys = rp->cap_keys ? 2 * rp->cap_keys : 16;
        rp->keys = xrealloc(rp->keys, rp->cap_keys * sizeof *rp->keys);
    }
    rp->keys[rp->n_keys] = (struct rkey){ key, 0, 0, false };
    return &rp->keys[rp->n_keys++];
}

static void
add_counters(struct ptx_counters *to, const struct ptx_counters *d)
{
    to->ptx_insts += d->ptx_insts;
    to->active_insts += d->active_insts;
    to->wait_retries += d->wait_retries;
    for (size_t i = 0; i < SIM_ARRAY_LEN(to->npipe); i++)
        to->npipe[i] += d->npipe[i];
}

int
ptx_replay_begin(struct ptx_replay *rp, struct ptx_prog *p, uint32_t mod, const char *kernel,
                 uint64_t key, struct ptx_replay_work *w)
{
    rp->armed = false;
    const struct ptx_module *m = ptx_prog_module(p, mod);
    struct rkey *ks = key_stats(rp, key);
    if (ks->misses == 0 && ks->hits == 0)
        ks->never = m == NULL || side_effects(m, kernel);
    if (ks->never || (ks->hits == 0 && ks->misses >= PTX_REPLAY_GIVE_UP))
        return -1;
    uint32_t n;
    uint64_t fp = summarise(rp, p, false, &n);
    for (uint32_t i = rp->n_e; i-- > 0;) {
        struct rentry *e = &rp->e[i];
        if (e->key != key || e->fp != fp)
            continue;
        for (uint32_t c = 0; c < e->n_chg; c++) {
            uint8_t *dst = ptx_prog_host(p, e->chg[c].base, e->chg[c].size, NULL);
            if (dst == NULL)
                SIM_PANIC("replay: a recorded region at %#llx is gone",
                          (unsigned long long)e->chg[c].base);
            memcpy(dst, e->chg[c].bytes, e->chg[c].size);
        }
        *w = e->work;
        add_counters(ptx_prog_counters(p), &e->work.cnt);
        ks->hits++;
        struct rentry keep = *e;     /* the most recently used goes last */
        memmove(e, e + 1, (rp->n_e - i - 1) * sizeof *e);
        rp->e[rp->n_e - 1] = keep;
        return 1;
    }
    ks->misses++;
    rp->armed = true;
    rp->n_pre = n;
    rp->key = key;
    rp->fp = fp;
    rp->cnt0 = *ptx_prog_counters(p);
    return 0;
}

void
ptx_replay_end(struct ptx_replay *rp, struct ptx_prog *p, bool ok, const struct ptx_replay_work *w)
{
    if (!rp->armed)
        return;
    rp->armed = false;
    if (!ok)
        return;
    uint32_t n;
    summarise(rp, p, true, &n);
    const struct rsum *pre = rp->pre, *post = rp->post;
    if (n != rp->n_pre)
        return;                  /* the launch changed the regions themselves */
    uint64_t bytes = 0;
    uint32_t n_chg = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (pre[i].base != post[i].base || pre[i].size != post[i].size ||
            pre[i].kind != post[i].kind || pre[i].watch != post[i].watch ||
            pre[i].host != post[i].host)
            return;
        if (pre[i].hash != post[i].hash) {
            n_chg++;
            bytes += post[i].size;
        }
    }
    if (bytes > PTX_REPLAY_BUDGET / 2)
        return;
    while (rp->n_e > 0 && (rp->n_e == MAX_ENTRIES || rp->bytes + bytes > PTX_REPLAY_BUDGET)) {
        rp->bytes -= rp->e[0].bytes;
        entry_free(&rp->e[0]);
        memmove(&rp->e[0], &rp->e[1], (rp->n_e - 1) * sizeof rp->e[0]);
        rp->n_e--;
    }
    struct rentry *e = &rp->e[rp->n_e++];
    memset(e, 0, sizeof *e);
    e->key = rp->key;
    e->fp = rp->fp;
    e->work = *w;
    const struct ptx_counters *now = ptx_prog_counters(p);
    e->work.cnt.ptx_insts = now->ptx_insts - rp->cnt0.ptx_insts;
    e->work.cnt.active_insts = now->active_insts - rp->cnt0.active_insts;
    e->work.cnt.wait_retries = now->wait_retries - rp->cnt0.wait_retries;
    for (size_t i = 0; i < SIM_ARRAY_LEN(now->npipe); i++)
        e->work.cnt.npipe[i] = now->npipe[i] - rp->cnt0.npipe[i];
    e->chg = xcalloc(n_chg + 1, sizeof *e->chg);
    for (uint32_t i = 0; i < n; i++) {
        if (pre[i].hash == post[i].hash)
            continue;
        struct rchange *c = &e->chg[e->n_chg++];
        c->base = post[i].base;
        c->size = post[i].size;
        c->bytes = xmalloc(c->size ? c->size : 1);
        memcpy(c->bytes, ptx_prog_host(p, c->base, c->size, NULL), c->size);
    }
    e->bytes = bytes;
    rp->bytes += bytes;
}
