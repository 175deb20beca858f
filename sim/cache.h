/*
 * cache.h - a sectored, set-associative tag array with LRU replacement.
 *
 * Models contents only (which sectors of which lines are present, dirty,
 * and when an in-flight fill arrives); timing is the caller's.  A line's
 * tag is its full line address, so any set-index function is safe.  All
 * storage is allocated at creation; lookups never allocate.
 */
#ifndef SMSIM_SIM_CACHE_H
#define SMSIM_SIM_CACHE_H

#include "sim/types.h"

/* 16 bytes: with the tag and the LRU stamp kept apart (cache.c), a line
 * costs 28 bytes of host memory; the H100's L1s and L2 hold 0.7 million. */
struct cache_line {
    sim_cycle_t fill;            /* cycle the latest fill of this line arrives */
    uint32_t partial;            /* the L2's: bytes written so far into each sector written
                                    partially and never fetched, 8 bits a sector (mem.c) */
    uint16_t valid;              /* sector bit mask; 0 = empty line */
    uint16_t dirty;              /* sector bit mask */
};

/* Sectors a line may have at most (the width of valid and dirty). */
#define CACHE_MAX_SECTORS 16

typedef struct cache cache;

/* bytes / (ways * line_size) sets; bytes may be 0 (no cache: every
 * lookup misses and nothing is stored). */
cache *cache_new(uint64_t bytes, uint32_t ways, uint32_t line_size);
void cache_destroy(cache *c);

uint32_t cache_sets(const cache *c);
uint32_t cache_ways(const cache *c);

/* The line holding tag in set, or NULL; a hit refreshes its LRU stamp. */
struct cache_line *cache_find(cache *c, uint32_t set, uint64_t tag);

/* The same without counting as a use (the LRU order is unchanged). */
struct cache_line *cache_peek(cache *c, uint32_t set, uint64_t tag);

/* The line to replace in set: an empty one if any, else the least
 * recently used.  The caller writes back what it must, then calls
 * cache_install(). */
struct cache_line *cache_victim(cache *c, uint32_t set);
void cache_install(cache *c, struct cache_line *l, uint64_t tag);

/* The tag l was installed with. */
uint64_t cache_line_tag(const cache *c, const struct cache_line *l);

/* Remove the sectors in mask from line l (a line left with none is empty
 * and the first candidate for replacement).  Callers must not clear
 * l->valid bits themselves. */
void cache_drop_sectors(cache *c, struct cache_line *l, uint32_t mask);

/* A hint: start bringing set's tags, stamps and lines into the host's
 * caches (a later cache_find()/cache_victim() on it then does not stall).
 * Changes nothing. */
void cache_prefetch(const cache *c, uint32_t set);

/* Drop every line (kernel boundary for the L1). */
void cache_invalidate_all(cache *c);

/* For tests: set the LRU clock, which counts uses in 32 bits and
 * renumbers the stamps when it wraps (replacement is unchanged by it). */
void cache_set_clock(cache *c, uint32_t stamp);

/* A bijective 64-bit mix used for set, slice and channel selection. */
static inline uint64_t
cache_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

#endif /* SMSIM_SIM_CACHE_H */
