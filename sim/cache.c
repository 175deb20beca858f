/*
 * cache.c - tag array (see cache.h).  Invariant: lines of set s occupy
 * lines[s * ways .. s * ways + ways - 1], and tags[i] is the tag of
 * lines[i]: the tags are kept apart, densely, so that a lookup reads one or
 * two host cache lines per set instead of every way's whole entry.
 * Likewise the LRU stamps: lru[i] is 0 exactly when lines[i] is empty
 * (valid == 0), else its last-use stamp (larger = more recent).  Stamps
 * are 32-bit; when the clock would wrap, each set's stamps are replaced by
 * their ranks (1 .. ways), which keeps every set's order and so every
 * replacement decision.
 */
#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>
#include "sim/error.h"

struct cache {
    struct cache_line *lines;
    uint64_t *tags;              /* [sets * ways] the lines' tags */
    uint32_t *lru;               /* [sets * ways] last-use stamps, 0 = empty */
    uint32_t *set_epoch;         /* [sets] the invalidation a set was last cleared for */
    uint32_t sets, ways;
    uint32_t epoch;              /* invalidations so far (cache_invalidate_all) */
    uint32_t stamp;              /* LRU clock: the latest stamp given */
};

/* Invalidation is lazy: cache_invalidate_all counts an epoch, and a set is
 * cleared when next looked at (cache_find, cache_victim: every way into a
 * set), so the cache behaves as if all were cleared at once, at the cost of
 * the sets a kernel touches rather than the whole cache per kernel. */
static inline void
fresh(cache *c, uint32_t set)
{
    if (c->set_epoch[set] == c->epoch)
        return;
    size_t base = (size_t)set * c->ways;
    memset(&c->lines[base], 0, c->ways * sizeof *c->lines);
    memset(&c->tags[base], 0, c->ways * sizeof *c->tags);
    memset(&c->lru[base], 0, c->ways * sizeof *c->lru);
    c->set_epoch[set] = c->epoch;
}

/* Renumber every current set's stamps by rank, oldest 1 (the clock is
 * about to wrap); sets not cleared since the last invalidation are
 * cleared when next looked at, whatever their stamps. */
static void
renumber(cache *c)
{
    uint32_t top = 0, *rank = xcalloc(c->ways, sizeof *rank);
    for (uint32_t set = 0; set < c->sets; set++) {
        if (c->set_epoch[set] != c->epoch)
            continue;
        uint32_t *u = &c->lru[(size_t)set * c->ways];
        for (uint32_t w = 0; w < c->ways; w++) {
            rank[w] = 0;
            if (u[w] == 0)
                continue;
            for (uint32_t v = 0; v < c->ways; v++)
                rank[w] += u[v] != 0 && u[v] <= u[w];
        }
        for (uint32_t w = 0; w < c->ways; w++) {
            u[w] = rank[w];
            top = rank[w] > top ? rank[w] : top;
        }
    }
    free(rank);
    c->stamp = top;
}

/* The next LRU stamp. */
static inline uint32_t
tick(cache *c)
{
    if (__builtin_expect(c->stamp == UINT32_MAX, 0))
        renumber(c);
    return ++c->stamp;
}

void
cache_set_clock(cache *c, uint32_t stamp)
{
    c->stamp = stamp;
}

cache *
cache_new(uint64_t bytes, uint32_t ways, uint32_t line_size)
{
    cache *c = xcalloc(1, sizeof *c);
    c->ways = ways ? ways : 1;
    c->sets = (uint32_t)(bytes / ((uint64_t)c->ways * line_size));
    if (c->sets > 0) {
        c->lines = xcalloc((size_t)c->sets * c->ways, sizeof *c->lines);
        c->tags = xcalloc((size_t)c->sets * c->ways, sizeof *c->tags);
        c->lru = xcalloc((size_t)c->sets * c->ways, sizeof *c->lru);
        c->set_epoch = xcalloc(c->sets, sizeof *c->set_epoch);
    }
    return c;
}

void
cache_destroy(cache *c)
{
    if (c == NULL)
        return;
    free(c->lines);
    free(c->tags);
    free(c->lru);
    free(c->set_epoch);
    free(c);
}

uint32_t
cache_sets(const cache *c)
{
    return c->sets;
}

uint32_t
cache_ways(const cache *c)
{
    return c->ways;
}

/* The way of set that holds tag, or ways when none does. */
static inline uint32_t
lookup(cache *c, uint32_t set, uint64_t tag)
{
    fresh(c, set);
    size_t base = (size_t)set * c->ways;
    const uint64_t *t = &c->tags[base];
    uint32_t w = 0;
    while (w < c->ways && !(t[w] == tag && c->lines[base + w].valid != 0))
        w++;
    return w;
}

struct cache_line *
cache_find(cache *c, uint32_t set, uint64_t tag)
{
    if (c->sets == 0)
        return NULL;
    uint32_t w = lookup(c, set, tag);
    if (w == c->ways)
        return NULL;
    size_t i = (size_t)set * c->ways + w;
    c->lru[i] = tick(c);
    return &c->lines[i];
}

struct cache_line *
cache_peek(cache *c, uint32_t set, uint64_t tag)
{
    if (c->sets == 0)
        return NULL;
    uint32_t w = lookup(c, set, tag);
    return w == c->ways ? NULL : &c->lines[(size_t)set * c->ways + w];
}

void
cache_prefetch(const cache *c, uint32_t set)
{
    if (c->sets == 0)
        return;
    size_t base = (size_t)set * c->ways;
    __builtin_prefetch(&c->tags[base]);
    __builtin_prefetch(&c->lru[base]);
    __builtin_prefetch(&c->lines[base]);
}

struct cache_line *
cache_victim(cache *c, uint32_t set)
{
    if (c->sets == 0)
        return NULL;
    fresh(c, set);
    size_t base = (size_t)set * c->ways;
    const uint32_t *u = &c->lru[base];
    uint32_t best = 0;
    for (uint32_t w = 0; w < c->ways; w++) {
        if (u[w] == 0)
            return &c->lines[base + w];
        if (u[w] < u[best])
            best = w;
    }
    return &c->lines[base + best];
}

void
cache_install(cache *c, struct cache_line *l, uint64_t tag)
{
    size_t i = (size_t)(l - c->lines);
    c->tags[i] = tag;
    l->valid = 0;
    l->dirty = 0;
    l->partial = 0;
    l->fill = 0;
    c->lru[i] = tick(c);
}

uint64_t
cache_line_tag(const cache *c, const struct cache_line *l)
{
    return c->tags[l - c->lines];
}

void
cache_drop_sectors(cache *c, struct cache_line *l, uint32_t mask)
{
    l->valid &= ~mask;
    if (l->valid == 0)
        c->lru[l - c->lines] = 0;
}

void
cache_invalidate_all(cache *c)
{
    if (c->sets == 0)
        return;
    if (++c->epoch == 0) {       /* wrapped: clear for real, every set current */
        memset(c->lines, 0, (size_t)c->sets * c->ways * sizeof *c->lines);
        memset(c->tags, 0, (size_t)c->sets * c->ways * sizeof *c->tags);
        memset(c->lru, 0, (size_t)c->sets * c->ways * sizeof *c->lru);
        memset(c->set_epoch, 0, c->sets * sizeof *c->set_epoch);
    }
}
