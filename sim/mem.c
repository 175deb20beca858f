/*
 * mem.c - L2 slices and DRAM channels (see mem.h).
 *
 * A request for line L goes to slice  set(L) % slices  where set(L) is a
 * mixed hash of L, and misses go to channel  (mix(L) >> 40) % channels.
 * A slice's port takes one sector read (or atomic) per l2.sector_size /
 * l2.bytes_per_cycle cycles and one sector written per l2.sector_size /
 * l2.write_bytes_per_cycle (the same when that is 0): reads and writes
 * share it at their own rates, and it loses l2.turnaround_cycles each
 * time it turns from one kind to the other.  A write of fewer bytes than
 * its sectors hold, into sectors the slice already holds, merges them: it
 * takes its bytes' time at the write rate, but no less than its sectors'
 * slots at the read rate (a sector's access); a write that allocates its
 * sectors takes their whole time.  (bfs Kernel2 on the H100: 31,000 one-
 * byte stores to one flag pass its slice at 1.4 a cycle, where the
 * strided partial stores that allocate, traces/mech/stride_write_*, go
 * no faster than whole sectors.)
 * A store of fewer bytes than a sector, into a sector the slice does not
 * hold, leaves a partial sector: its bytes are counted (8 bits a sector
 * in cache_line.partial) until the stores into it add up to a whole
 * sector.  At most l2.partial_lines lines (the whole L2's; a FIFO of
 * l2.partial_lines / slices a slice) may hold partial sectors: when one
 * more line needs one, the oldest line that still does is written back
 * first, its partial sectors read from DRAM and merged (HBM3 has no write
 * mask), and stays clean; a partial line evicted for capacity pays the
 * same read; a read of a partial sector misses and fetches it.  The
 * kernel ends when these write-backs are done, a stand-in for the back-
 * pressure that keeps the SMs from writing faster than DRAM takes them.
 * (traces/mech/stride_write_s32: 4 bytes into one sector of each of 524,288
 * lines; the H100 reads and writes about 460,000 of them back during the
 * kernel, about 64,000 lines stay.)
 * Likewise at most l2.dirty_lines lines are dirty: when one more line
 * becomes dirty the oldest dirty line is written back and stays, clean
 * (the H100 keeps about 177,000, 21.7 MiB of its 50 MB, hopper.cfg).
 * Unloaded latency is split as: SM -> slice  to_slice,  slice -> SM
 * from_slice (to_slice + from_slice = l2.hit_latency), slice -> DRAM and
 * back  2 * dram_half (= dram.latency - l2.hit_latency).
 *
 * Requests reach a DRAM channel or an L2 slice out of time order (a miss
 * waits at its slice first; a load that waited for an MSHR is sent after
 * later-issued stores), so a reservation that starts after the resource's
 * next free time leaves an idle gap behind it.  Each slice and channel is
 * a timeline that remembers its last MEM_GAPS gaps and places a
 * later-computed but earlier-arriving request in the first gap it fits, so
 * the bandwidth is not lost to the order in which requests happen to be
 * computed.
 */
#include "sim/mem.h"

#include <stdlib.h>
#include "sim/cache.h"

#define MEM_GAPS 8               /* idle intervals remembered per DRAM channel */

struct gap {
    uint64_t start, end;         /* ticks; empty when start == end */
};

/* A reserved resource: busy until `free`, with the idle intervals before
 * it that later requests may still use. */
struct timeline {
    uint64_t free;               /* ticks */
    struct gap gap[MEM_GAPS];
};

/* Per slice, the lines that came to hold something (partial sectors,
 * dirty data) in the order they did, at most cap of them: the oldest
 * still holding it is written back when one more comes. */
struct line_fifo {
    uint32_t cap;                /* lines a slice; 0 = no limit */
    uint64_t *line;              /* [slices * cap], oldest at head[slice] */
    uint32_t *head;              /* [slices] */
    uint32_t *n;                 /* [slices] entries in use */
};

struct mem {
    cache *l2;
    uint32_t sets;               /* L2 sets (all slices) */
    uint32_t slices;
    uint32_t channels;
    uint32_t sectors_per_line;
    uint32_t sector_bytes;
    uint32_t group_mask;         /* sectors of one DRAM access (dram.access_bytes), low bits */
    uint32_t group_sectors;
    uint64_t to_slice;           /* ticks */
    uint64_t from_slice;         /* ticks */
    uint64_t dram_half;          /* ticks */
    uint64_t slice_occ;          /* ticks one sector read occupies its slice's port */
    uint64_t wslice_occ;         /* ... one sector written (l2.write_bytes_per_cycle) */
    uint64_t chan_occ;           /* ticks one sector occupies a DRAM channel */
    uint64_t atomic_occ;         /* ticks per lane atomic at a slice */
    struct timeline *slice;      /* [slices] */
    uint8_t *slice_dir;          /* [slices]: its port's last reservation: 0 none, 1 a read
                                    (or atomic), 2 a write */
    uint64_t turnaround;         /* ticks a port loses between a read and a write */
    struct timeline *chan;       /* [channels] */
    struct line_fifo partial;    /* lines with partial sectors (l2.partial_lines) */
    struct line_fifo dirty;      /* dirty lines (l2.dirty_lines) */
    uint64_t drain;              /* ticks */
    /* the host link (zero-copy host memory) */
    uint64_t host_line;          /* lines from here up are host memory; UINT64_MAX: none */
    uint64_t host_occ;           /* ticks one sector occupies a direction of the link */
    uint64_t host_half;          /* ticks from the SM to the link's end, and back */
    struct timeline host_rd, host_wr;
    struct mem_stats st;
};

static uint64_t
ticks_per(double bytes, double bytes_per_cycle)
{
    double t = bytes / bytes_per_cycle * (double)(1u << MEM_TICK_SHIFT);
    uint64_t r = (uint64_t)(t + 0.5);
    return r ? r : 1;
}

static void
fifo_init(struct line_fifo *f, uint32_t lines, uint32_t slices)
{
    if (lines == 0)
        return;
    f->cap = (lines + slices - 1) / slices;
    f->line = xcalloc((size_t)slices * f->cap, sizeof *f->line);
    f->head = xcalloc(slices, sizeof *f->head);
    f->n = xcalloc(slices, sizeof *f->n);
}

static void
fifo_free(struct line_fifo *f)
{
    free(f->line);
    free(f->head);
    free(f->n);
}

mem *
mem_new(const struct sim_config *c)
{
    mem *m = xcalloc(1, sizeof *m);
    m->l2 = cache_new((uint64_t)c->l2_size_kb * 1024, c->l2_assoc, c->l2_line_size);
    m->sets = cache_sets(m->l2);
    m->slices = c->l2_slices;
    m->channels = c->dram_channels;
    m->sector_bytes = c->l2_sector_size;
    m->sectors_per_line = c->l2_line_size / c->l2_sector_size;
    m->group_sectors = c->dram_access_bytes > c->l2_sector_size
                       ? c->dram_access_bytes / c->l2_sector_size : 1;
    if (m->group_sectors > m->sectors_per_line)
        m->group_sectors = m->sectors_per_line;
    m->group_mask = (uint32_t)((UINT64_C(1) << m->group_sectors) - 1);
    uint32_t l2h = c->l2_hit_latency;
    uint32_t dl = c->dram_latency > l2h ? c->dram_latency : l2h;
    m->to_slice = MEM_TICKS(l2h / 2);
    m->from_slice = MEM_TICKS(l2h - l2h / 2);
    m->dram_half = MEM_TICKS(dl - l2h) / 2;
    m->slice_occ = ticks_per(c->l2_sector_size, c->l2_bytes_per_cycle);
    m->chan_occ = ticks_per(c->l2_sector_size, config_dram_bytes_per_cycle(c) / c->dram_channels);
    m->atomic_occ = MEM_TICKS(c->l2_atomic_cycles);
    m->slice = xcalloc(m->slices, sizeof *m->slice);
    m->slice_dir = xcalloc(m->slices, 1);
    m->turnaround = (uint64_t)(c->l2_turnaround_cycles * (double)(1u << MEM_TICK_SHIFT) + 0.5);
    m->wslice_occ = c->l2_write_bytes_per_cycle > 0
                    ? ticks_per(c->l2_sector_size, c->l2_write_bytes_per_cycle) : m->slice_occ;
    m->chan = xcalloc(m->channels, sizeof *m->chan);
    m->host_line = UINT64_MAX;
    if (c->host_link_gbps > 0) {
        m->host_line = SIM_SYSMEM_BASE / c->l2_line_size;
        m->host_occ = ticks_per(c->l2_sector_size, c->host_link_gbps * 1e3 / c->gpu_clock_mhz);
        m->host_half = (MEM_TICKS(dl) + (uint64_t)(c->host_link_latency_us * c->gpu_clock_mhz *
                                                   (double)(1u << MEM_TICK_SHIFT) + 0.5)) / 2;
    }
    if (m->sets != 0) {
        fifo_init(&m->partial, c->l2_partial_lines, m->slices);
        fifo_init(&m->dirty, c->l2_dirty_lines, m->slices);
    }
    return m;
}

void
mem_destroy(mem *m)
{
    if (m == NULL)
        return;
    cache_destroy(m->l2);
    free(m->slice);
    free(m->slice_dir);
    free(m->chan);
    fifo_free(&m->partial);
    fifo_free(&m->dirty);
    free(m);
}

void
mem_register_stats(mem *m, stats *st)
{
    stats_add_u64(st, "l2.read_sectors", &m->st.l2_read_sectors, "sectors",
                  "sectors read from the L2 by the SMs (L1 misses and L1-bypassing loads)");
    stats_add_u64(st, "l2.read_hits", &m->st.l2_read_hits, "sectors",
                  "read sectors found in the L2 (including fills in flight)");
    stats_add_ratio(st, "l2.hit_rate", "l2.read_hits", "l2.read_sectors", 1.0, "",
                    "fraction of L2 read sectors that hit");
    stats_add_u64(st, "l2.write_sectors", &m->st.l2_write_sectors, "sectors",
                  "sectors written to the L2 by the SMs");
    stats_add_u64(st, "l2.atomic_ops", &m->st.l2_atomic_ops, "operations",
                  "lane atomic operations performed at the L2");
    stats_add_u64(st, "l2.lookups", &m->st.l2_lookups, "sectors",
                  "sector lookups in the L2: reads, writes and atomics");
    stats_add_u64(st, "l2.lookup_hits", &m->st.l2_lookup_hits, "sectors",
                  "lookups that hit: sectors present (or in flight) and every write (the L2 "
                  "allocates writes without a fetch), as Nsight Compute counts them");
    stats_add_ratio(st, "l2.sector_hit_rate", "l2.lookup_hits", "l2.lookups", 1.0, "",
                    "fraction of L2 sector lookups that hit (Nsight Compute's "
                    "lts__t_sector_hit_rate)");
    stats_add_u64(st, "l2.queue_cycles", &m->st.l2_queue_cycles, "cycles",
                  "total cycles requests waited for a busy L2 slice");
    stats_add_u64(st, "dram.read_bytes", &m->st.dram_read_bytes, "bytes", "bytes read from DRAM");
    stats_add_u64(st, "dram.write_bytes", &m->st.dram_write_bytes, "bytes",
                  "bytes written to DRAM (dirty L2 evictions)");
    stats_add_u64(st, "dram.queue_cycles", &m->st.dram_queue_cycles, "cycles",
                  "total cycles requests waited for a busy DRAM channel");
    stats_add_u64(st, "host.read_bytes", &m->st.host_read_bytes, "bytes",
                  "bytes read from host memory over the host link (zero-copy)");
    stats_add_u64(st, "host.write_bytes", &m->st.host_write_bytes, "bytes",
                  "bytes written to host memory over the host link (zero-copy)");
}

static inline uint64_t
ceil_cycles(uint64_t ticks)
{
    return (ticks + (1u << MEM_TICK_SHIFT) - 1) >> MEM_TICK_SHIFT;
}

static inline uint64_t
max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Reserve `occ` ticks of a timeline from arrival a: in the earliest
 * remembered gap it fits in, else after its last reservation; returns the
 * start. */
static uint64_t
timeline_reserve(struct timeline *tl, uint64_t a, uint64_t occ)
{
    struct gap *g = tl->gap;
    uint64_t start;
    int best = -1;

    if (a >= tl->free) {
        /* the common case: nothing waits; the idle interval is a gap */
        if (a > tl->free) {
            int o = 0;
            for (int i = 1; i < MEM_GAPS; i++)
                if (g[i].end < g[o].end)
                    o = i;
            g[o].start = tl->free;
            g[o].end = a;
        }
        tl->free = a + occ;
        return a;
    }
    for (int i = 0; i < MEM_GAPS; i++) {
        uint64_t s = max_u64(a, g[i].start);
        if (s + occ <= g[i].end && (best < 0 || g[i].start < g[best].start))
            best = i;
    }
    if (best >= 0) {
        /* split the gap around the reservation; keep the larger piece */
        struct gap *b = &g[best];
        start = max_u64(a, b->start);
        if (start - b->start >= b->end - (start + occ))
            b->end = start;
        else
            b->start = start + occ;
        return start;
    }
    start = tl->free;
    tl->free = start + occ;
    return start;
}

/* Reserve a slice port for `occ` ticks from arrival a, for a write or
 * not; when the port last served the other kind it first turns round
 * (l2.turnaround_cycles).  Returns when the request's own service starts. */
static uint64_t
slice_reserve(mem *m, uint32_t slice, uint64_t a, uint64_t occ, bool write)
{
    uint8_t dir = write ? 2 : 1;
    uint64_t turn = m->slice_dir[slice] != 0 && m->slice_dir[slice] != dir ? m->turnaround : 0;
    m->slice_dir[slice] = dir;
    uint64_t start = timeline_reserve(&m->slice[slice], a, occ + turn);
    m->st.l2_queue_cycles += (start - a) >> MEM_TICK_SHIFT;
    return start + turn;
}

/* Reserve a DRAM channel for `occ` ticks from arrival a; returns the start. */
static uint64_t
chan_reserve(mem *m, uint32_t chan, uint64_t a, uint64_t occ)
{
    uint64_t start = timeline_reserve(&m->chan[chan], a, occ);
    m->st.dram_queue_cycles += (start - a) >> MEM_TICK_SHIFT;
    return start;
}

/* The L2 set (all slices) and slice of a line. */
static inline uint32_t
slice_of(const mem *m, uint64_t line, uint32_t *set)
{
    uint64_t h = cache_mix(line);
    *set = m->sets ? (uint32_t)(h % m->sets) : 0;
    return (uint32_t)((m->sets ? *set : h) % m->slices);
}

static inline uint32_t
channel_of(const mem *m, uint64_t line)
{
    return (uint32_t)((cache_mix(line) >> 40) % m->channels);
}

static inline uint32_t dram_groups(const mem *m, uint32_t miss, uint32_t valid);

/* The sectors of a line with partial-write byte counts. */
static inline uint32_t
partial_sectors(uint32_t partial)
{
    uint32_t out = 0;
    for (uint32_t s = 0; partial != 0; s++, partial >>= 8)
        if (partial & 0xffu)
            out |= 1u << s;
    return out;
}

/* Write line l's dirty sectors to DRAM from time t (ticks), its partial
 * sectors read first and merged; the line stays, clean. */
static void
write_back(mem *m, struct cache_line *l, uint64_t t)
{
    uint32_t pm = partial_sectors(l->partial);
    uint32_t nr = sim_popc32(pm);
    uint32_t nd = sim_popc32(l->dirty);
    /* DRAM moves whole dram.access_bytes groups: a sector alone costs its group */
    uint32_t gr = m->group_sectors > 1 ? sim_popc32(dram_groups(m, pm, 0)) : nr;
    uint32_t gw = m->group_sectors > 1 ? sim_popc32(dram_groups(m, l->dirty, 0)) : nd;
    uint64_t occ = (uint64_t)(gr + gw) * m->chan_occ;
    uint64_t start = chan_reserve(m, channel_of(m, cache_line_tag(m->l2, l)), t + m->dram_half, occ);
    m->st.dram_read_bytes += (uint64_t)nr * m->sector_bytes;
    m->st.dram_write_bytes += (uint64_t)nd * m->sector_bytes;
    if (nr != 0)
        m->drain = max_u64(m->drain, start + occ);
    l->dirty = 0;
    l->partial = 0;
}

/* Line `line` of slice `slice` has just come to hold what fifo f counts
 * (partial sectors, dirty data): enter it, first writing back the oldest
 * line still holding it when the slice's FIFO is full (from time t; not
 * timed when t is MEM_UNTIMED: warming, whose write-backs happened before
 * the simulated stretch resumes). */
#define MEM_UNTIMED UINT64_MAX
static void
fifo_enter(mem *m, struct line_fifo *f, uint32_t slice, uint64_t line, uint64_t t)
{
    uint64_t *fifo = &f->line[(size_t)slice * f->cap];
    uint32_t *head = &f->head[slice];
    uint32_t *n = &f->n[slice];
    while (*n == f->cap) {
        uint64_t old = fifo[*head];
        *head = *head + 1 == f->cap ? 0 : *head + 1;
        --*n;
        uint32_t set;
        (void)slice_of(m, old, &set);
        struct cache_line *l = cache_peek(m->l2, set, old);
        if (l == NULL || (f == &m->partial ? l->partial : l->dirty) == 0)
            continue;
        if (t == MEM_UNTIMED) {
            l->dirty = 0;
            l->partial = 0;
        } else {
            write_back(m, l, t);
        }
    }
    uint32_t tail = *head + *n;
    fifo[tail >= f->cap ? tail - f->cap : tail] = line;
    ++*n;
}

/* Count a write of `bytes` into the sectors in mask of line l (`held`: the
 * sectors it held before) as partial where it is; returns whether the line
 * has just come to hold partial sectors. */
static bool
partial_write(const mem *m, struct cache_line *l, uint32_t mask, uint32_t held, uint32_t bytes)
{
    uint32_t before = l->partial;
    uint32_t per = bytes / sim_popc32(mask);
    for (uint32_t s = 0; s < m->sectors_per_line; s++) {
        if (!(mask & (1u << s)))
            continue;
        uint32_t sh = 8 * s;
        uint32_t c = (l->partial >> sh) & 0xffu;
        if (c == 0 && (held & (1u << s)) != 0 && per < m->sector_bytes)
            continue;                       /* merges into a sector the slice holds */
        c += per;
        if (c >= m->sector_bytes)
            c = 0;                          /* written whole */
        l->partial = (l->partial & ~(0xffu << sh)) | (c << sh);
    }
    return before == 0 && l->partial != 0;
}

/* Allocate the L2 line (not present); an evicted line's dirty sectors
 * are written to DRAM starting at time t (ticks). */
static struct cache_line *
l2_alloc(mem *m, uint32_t set, uint64_t line, uint64_t t)
{
    struct cache_line *l = cache_victim(m->l2, set);
    if (l->valid != 0 && l->dirty != 0)
        write_back(m, l, t);
    cache_install(m->l2, l, line);
    return l;
}

/* Find or allocate the L2 line (l2_alloc). */
static struct cache_line *
l2_line(mem *m, uint32_t set, uint64_t line, uint64_t t)
{
    struct cache_line *l = cache_find(m->l2, set, line);
    if (l != NULL || m->sets == 0)
        return l;
    return l2_alloc(m, set, line, t);
}

/* The sectors a DRAM read of `miss` brings: every sector of each aligned
 * group of dram.access_bytes that holds a missing one, less those already
 * valid. */
static inline uint32_t
dram_groups(const mem *m, uint32_t miss, uint32_t valid)
{
    uint32_t out = 0;
    for (uint32_t g = 0; g < m->sectors_per_line; g += m->group_sectors)
        if (miss & (m->group_mask << g))
            out |= m->group_mask << g;
    return out & ~valid;
}

/* Fetch `miss` sectors from DRAM for a request that started at the slice
 * at `start`; returns the fill time at the slice (ticks). */
static uint64_t
dram_fetch(mem *m, uint64_t line, uint32_t miss, uint64_t start)
{
    uint32_t n = sim_popc32(miss);
    uint64_t cs = chan_reserve(m, channel_of(m, line), start + m->dram_half, n * m->chan_occ);
    m->st.dram_read_bytes += (uint64_t)n * m->sector_bytes;
    return cs + m->dram_half;
}

/* An access of n sectors to host memory (line >= host_line) sent at
 * cycle t: it holds one direction of the link for its sectors; returns
 * the cycle it is back at the SM (a read, an atomic) or done (a write). */
static sim_cycle_t
host_access(mem *m, uint32_t n, sim_cycle_t t, bool write)
{
    uint64_t a = MEM_TICKS(t) + m->host_half;
    uint64_t start = timeline_reserve(write ? &m->host_wr : &m->host_rd, a, n * m->host_occ);
    *(write ? &m->st.host_write_bytes : &m->st.host_read_bytes) += (uint64_t)n * m->sector_bytes;
    uint64_t done = start + n * m->host_occ;
    if (write) {
        m->drain = max_u64(m->drain, done);
        return ceil_cycles(done);
    }
    return ceil_cycles(done + m->host_half);
}

void
mem_prefetch(const mem *m, uint64_t line)
{
    if (line >= m->host_line)
        return;
    uint32_t set;
    uint32_t slice = slice_of(m, line, &set);
    cache_prefetch(m->l2, set);
    __builtin_prefetch(&m->slice[slice]);
}

sim_cycle_t
mem_read(mem *m, uint64_t line, uint32_t mask, sim_cycle_t t)
{
    if (line >= m->host_line)
        return host_access(m, sim_popc32(mask), t, false);
    uint32_t set;
    uint32_t slice = slice_of(m, line, &set);
    uint32_t n = sim_popc32(mask);
    uint64_t start = slice_reserve(m, slice, MEM_TICKS(t) + m->to_slice, n * m->slice_occ, false);
    struct cache_line *l = l2_line(m, set, line, start);
    uint32_t hit = l ? (l->valid & mask & ~partial_sectors(l->partial)) : 0;
    uint32_t miss = mask & ~hit;
    uint64_t ready = start;

    m->st.l2_read_sectors += n;
    m->st.l2_read_hits += (uint64_t)sim_popc32(hit);
    m->st.l2_lookups += n;
    m->st.l2_lookup_hits += (uint64_t)sim_popc32(hit);
    if (hit != 0 && l->fill > ready)
        ready = l->fill;
    if (miss != 0) {
        uint32_t whole = l ? l->valid & ~partial_sectors(l->partial) : 0;
        uint32_t fetch = m->group_sectors > 1 ? dram_groups(m, miss, whole) : miss;
        uint64_t fill = dram_fetch(m, line, fetch, start);
        if (l != NULL) {
            for (uint32_t s = 0; s < m->sectors_per_line; s++)
                if (fetch & (1u << s))
                    l->partial &= ~(0xffu << (8 * s));      /* fetched and merged */
            l->valid |= fetch;
            l->fill = max_u64(l->fill, fill);
        }
        ready = max_u64(ready, fill);
    }
    return ceil_cycles(ready + m->from_slice);
}

sim_cycle_t
mem_write_bytes(mem *m, uint64_t line, uint32_t mask, uint32_t bytes, sim_cycle_t t)
{
    if (line >= m->host_line)
        return host_access(m, sim_popc32(mask), t, true);
    uint32_t set;
    uint32_t slice = slice_of(m, line, &set);
    uint32_t n = sim_popc32(mask);
    uint64_t occ = n * m->wslice_occ;
    uint32_t whole = n * m->sector_bytes;
    struct cache_line *l = m->sets ? cache_find(m->l2, set, line) : NULL;
    /* a partial write merges into sectors the slice holds: its bytes at
     * the write rate, no less than the sectors' read-rate slots */
    if (bytes < whole && l != NULL && (l->valid & mask) == mask)
        occ = max_u64((occ * bytes + whole - 1) / whole, n * m->slice_occ);
    uint64_t start = slice_reserve(m, slice, MEM_TICKS(t) + m->to_slice, occ, true);
    uint32_t held = l ? l->valid & ~partial_sectors(l->partial) : 0;
    if (l == NULL && m->sets != 0)
        l = l2_alloc(m, set, line, start);

    m->st.l2_write_sectors += n;
    m->st.l2_lookups += n;
    m->st.l2_lookup_hits += n;
    if (l != NULL) {
        if (m->partial.cap != 0 && partial_write(m, l, mask, held, bytes))
            fifo_enter(m, &m->partial, slice, line, start);
        if (m->dirty.cap != 0 && l->dirty == 0)
            fifo_enter(m, &m->dirty, slice, line, start);
        l->valid |= mask;
        l->dirty |= mask;
    } else {
        /* no L2: write straight through to DRAM */
        (void)chan_reserve(m, channel_of(m, line), start + m->dram_half, n * m->chan_occ);
        m->st.dram_write_bytes += (uint64_t)n * m->sector_bytes;
    }
    uint64_t done = start + occ;
    m->drain = max_u64(m->drain, done);
    return ceil_cycles(done);
}

sim_cycle_t
mem_write(mem *m, uint64_t line, uint32_t mask, sim_cycle_t t)
{
    return mem_write_bytes(m, line, mask, sim_popc32(mask) * m->sector_bytes, t);
}

sim_cycle_t
mem_atomic(mem *m, uint64_t line, uint32_t mask, uint32_t ops, sim_cycle_t t)
{
    if (line >= m->host_line)    /* performed in host memory: a round trip */
        return host_access(m, sim_popc32(mask), t, false);
    uint32_t set;
    uint32_t slice = slice_of(m, line, &set);
    uint64_t occ = (uint64_t)ops * m->atomic_occ;
    uint64_t start = slice_reserve(m, slice, MEM_TICKS(t) + m->to_slice, occ ? occ : m->slice_occ,
                                   false);
    struct cache_line *l = l2_line(m, set, line, start);
    uint32_t hit = l ? (l->valid & mask) : 0;
    uint32_t miss = mask & ~hit;
    uint64_t ready = start;

    m->st.l2_atomic_ops += ops;
    m->st.l2_lookups += (uint64_t)sim_popc32(mask);
    m->st.l2_lookup_hits += (uint64_t)sim_popc32(hit);
    if (hit != 0 && l->fill > ready)
        ready = l->fill;
    uint32_t fetch = miss;
    if (miss != 0) {
        fetch = m->group_sectors > 1 ? dram_groups(m, miss, l ? l->valid : 0) : miss;
        ready = max_u64(ready, dram_fetch(m, line, fetch, start));
    }
    if (l != NULL) {
        l->valid |= mask | fetch;
        l->dirty |= mask;
        l->fill = max_u64(l->fill, ready);
    }
    ready += occ;
    m->drain = max_u64(m->drain, ready);
    return ceil_cycles(ready + m->from_slice);
}

void
mem_preload(mem *m, sim_addr_t addr, uint64_t bytes)
{
    uint64_t line_bytes = (uint64_t)m->sectors_per_line * m->sector_bytes;
    uint64_t cap = (uint64_t)m->sets * cache_ways(m->l2) * line_bytes;
    if (m->sets == 0 || bytes == 0 || addr / line_bytes >= m->host_line)
        return;
    if (bytes > cap) {               /* only the last L2-full of a copy can remain */
        addr += bytes - cap;
        bytes = cap;
    }
    for (uint64_t a = addr / line_bytes * line_bytes; a < addr + bytes; a += line_bytes) {
        uint64_t line = a / line_bytes;
        uint32_t set = (uint32_t)(cache_mix(line) % m->sets);
        struct cache_line *l = l2_line(m, set, line, 0);
        l->valid = (uint16_t)((1u << m->sectors_per_line) - 1);
    }
}

void
mem_warm(mem *m, uint64_t line, uint32_t mask, bool write)
{
    uint32_t set;
    if (m->sets == 0 || mask == 0 || line >= m->host_line)
        return;
    uint32_t slice = slice_of(m, line, &set);
    struct cache_line *l = cache_find(m->l2, set, line);
    if (l == NULL) {
        l = cache_victim(m->l2, set);
        cache_install(m->l2, l, line);
    }
    if (write) {
        /* at most l2.dirty_lines stay dirty, as in timed writes: else the
         * windows after a skip would write back what the full run had
         * written back already */
        if (m->dirty.cap != 0 && l->dirty == 0)
            fifo_enter(m, &m->dirty, slice, line, MEM_UNTIMED);
        l->valid |= mask;
        l->dirty |= mask;
    } else {
        l->valid |= mask | dram_groups(m, mask & ~l->valid, l->valid);
    }
}

void
mem_flush(mem *m)
{
    cache_invalidate_all(m->l2);
}

sim_cycle_t
mem_drain_cycle(const mem *m)
{
    return ceil_cycles(m->drain);
}

const struct mem_stats *
mem_get_stats(const mem *m)
{
    return &m->st;
}
