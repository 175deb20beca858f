/*
 * cache.c - tag array (see cache.h).  Invariant: lines of set s occupy
 * lines[s * ways .. s * ways + ways - 1], and tags[i] == lines[i].tag: the
 * tags are also kept apart, densely, so that a lookup reads one or two host
 * cache lines per set instead of every way's whole entry.  Likewise the
 * LRU stamps: lru[i] is 0 exactly when lines[i] is empty (valid == 0),
 * else its last-use stamp (larger = more recent).
 */
#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>
#include "sim/error.h"

struct cache {
    struct cache_line *lines;
    uint64_t *tags;              /* [sets * ways] copy of lines[].tag */
    uint64_t *lru;               /* [sets * ways] last-use stamps, 0 = empty */
    uint32_t *set_epoch;         /* [sets] the invalidation a set was last cleared for */
    uint32_t sets, ways;
    uint32_t epoch;              /* invalidations so far (cache_invalidate_all) */
    uint64_t stamp;              /* LRU clock */
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
    c->lru[i] = ++c->stamp;
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
    const uint64_t *u = &c->lru[base];
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
    l->tag = tag;
    c->tags[i] = tag;
    l->valid = 0;
    l->dirty = 0;
    l->partial = 0;
    l->fill = 0;
    c->lru[i] = ++c->stamp;
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
