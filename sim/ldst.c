/*
 * ldst.c - the SM memory unit (see ldst.h).
 *
 * Invariants: port_free and smem_free only move forward; the MSHR pool is
 * a binary min-heap of the cycles each entry becomes free, with exactly
 * l1.mshrs entries.
 */
#include "sim/ldst.h"

#include <stdlib.h>
#include <string.h>
#include "sim/cache.h"

struct ldst {
    const struct sim_config *cfg;
    mem *m;
    cache *l1;
    uint64_t l1_bytes;
    uint32_t l1_sets;
    uint64_t host_line;          /* L1 lines from here up are host memory (SIM_SYSMEM_BASE):
                                    not cached */
    cache *cc;                   /* constant cache */
    uint32_t cc_sets;
    uint64_t port_free;          /* ticks: L1 data port */
    uint64_t port_occ;           /* ticks per sector */
    uint64_t line_occ;           /* ticks per distinct line of a request (0: no limit) */
    uint64_t smem_free;          /* ticks: shared-memory pipe */
    uint64_t dsmem_free;         /* ticks: the SM's port to other SMs' shared memory */
    uint64_t cc_free;            /* ticks: constant cache port */
    uint64_t rd_free, wr_free;   /* ticks: the SM's read and write ports to the L2 */
    uint64_t rd_occ, wr_occ;     /* ticks per sector on them (0 = unlimited) */
    uint64_t tma_free;           /* ticks: the bulk-copy unit has sent every line given it */
    uint64_t tma_occ;            /* ticks per L2 line it requests (tma.bytes_per_cycle) ... */
    uint64_t tma_store_occ;      /* ... and stores (tma.store_bytes_per_cycle) */
    sim_cycle_t *mshr;           /* min-heap of free times */
    uint32_t n_mshr;
    sim_cycle_t drain;           /* latest completion */
    struct ldst_stats *stp;      /* counters, owned by the caller */
};

/* Ticks one unit of `bytes` takes on a port of `per_cycle` bytes a cycle. */
static uint64_t
occ_ticks(double bytes, double per_cycle)
{
    return (uint64_t)(bytes / per_cycle * (double)MEM_TICKS(1) + 0.5);
}

struct ldst *
ldst_new(const struct sim_config *c, mem *m, struct ldst_stats *st)
{
    struct ldst *u = xcalloc(1, sizeof *u);
    u->stp = st;
    u->cfg = c;
    u->m = m;
    u->l1 = cache_new(0, c->l1_assoc, c->l1_line_size);
    u->cc = cache_new((uint64_t)c->const_size_kb * 1024, 4, c->l1_line_size);
    u->cc_sets = cache_sets(u->cc);
    u->port_occ = (MEM_TICKS(1) + c->l1_sectors_per_cycle - 1) / c->l1_sectors_per_cycle;
    u->host_line = SIM_SYSMEM_BASE / c->l1_line_size;
    if (c->l1_lines_per_cycle > 0)
        u->line_occ = (MEM_TICKS(1) + c->l1_lines_per_cycle - 1) / c->l1_lines_per_cycle;
    if (c->l1_l2_read_bytes_per_cycle > 0)
        u->rd_occ = occ_ticks(c->l1_sector_size, c->l1_l2_read_bytes_per_cycle);
    if (c->l1_l2_write_bytes_per_cycle > 0)
        u->wr_occ = occ_ticks(c->l1_sector_size, c->l1_l2_write_bytes_per_cycle);
    u->tma_occ = occ_ticks(c->l2_line_size, c->tma_bytes_per_cycle);
    u->tma_store_occ = occ_ticks(c->l2_line_size, c->tma_store_bytes_per_cycle);
    u->n_mshr = c->l1_mshrs;
    u->mshr = xcalloc(u->n_mshr, sizeof *u->mshr);
    return u;
}

void
ldst_destroy(struct ldst *u)
{
    if (u == NULL)
        return;
    cache_destroy(u->l1);
    cache_destroy(u->cc);
    free(u->mshr);
    free(u);
}

void
ldst_kernel_begin(struct ldst *u, uint64_t l1_bytes)
{
    uint64_t unit = (uint64_t)u->cfg->l1_assoc * u->cfg->l1_line_size;
    l1_bytes = l1_bytes / unit * unit;
    if (l1_bytes != u->l1_bytes) {
        cache_destroy(u->l1);
        u->l1 = cache_new(l1_bytes, u->cfg->l1_assoc, u->cfg->l1_line_size);
        u->l1_bytes = l1_bytes;
    } else {
        cache_invalidate_all(u->l1);
    }
    u->l1_sets = cache_sets(u->l1);
    cache_invalidate_all(u->cc);
}

sim_cycle_t
ldst_drain_cycle(const struct ldst *u)
{
    return u->drain;
}

static inline uint64_t
max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static inline sim_cycle_t
ceil_cycles(uint64_t ticks)
{
    return (ticks + MEM_TICKS(1) - 1) >> MEM_TICK_SHIFT;
}

/* The entry of out[0..*n) for line, appended if new; NULL when out is
 * full (*n == max). */
static inline struct ldst_line *
line_entry(struct ldst_line *out, unsigned *n, unsigned max, uint64_t line)
{
    unsigned i = 0;
    while (i < *n && out[i].line != line)
        i++;
    if (i == *n) {
        if (*n == max)
            return NULL;
        out[i].line = line;
        out[i].mask = 0;
        out[i].lanes = 0;
        (*n)++;
    }
    return &out[i];
}

/* ldst_coalesce() of a full warp whose lanes read consecutive elements
 * (lane i at a0 + i * width, width a power of two <= the sector, a0 a
 * multiple of width): each lane lies in one sector, so the lines, their
 * sectors and lane counts follow from the byte range [a0, end). */
static unsigned
coalesce_contiguous(sim_addr_t a0, uint32_t width, unsigned sshift, unsigned lbits,
                    struct ldst_line *out, unsigned max)
{
    uint64_t end = a0 + (uint64_t)SIM_WARP_SIZE * width;
    uint64_t smask = ((uint64_t)1 << (lbits - sshift)) - 1;
    unsigned wshift = (unsigned)__builtin_ctz(width), n = 0;
    for (uint64_t l = a0 >> lbits; l <= (end - 1) >> lbits; l++) {
        if (n == max)
            return n;
        uint64_t lo = l << lbits, hi = lo + ((uint64_t)1 << lbits);
        if (lo < a0)
            lo = a0;
        if (hi > end)
            hi = end;
        unsigned s_lo = (unsigned)((lo >> sshift) & smask), s_hi = (unsigned)(((hi - 1) >> sshift) & smask);
        out[n].line = l;
        out[n].mask = (uint32_t)((UINT64_C(2) << s_hi) - (UINT64_C(1) << s_lo));
        out[n].lanes = (uint32_t)((hi - lo) >> wshift);
        n++;
    }
    return n;
}

/* Is lane i of wi at addr[0] + i * stride for all 32 lanes (stride = the
 * element size: consecutive elements; 0: all on one address)? */
static bool
lanes_contiguous(const struct warp_inst *wi, uint32_t stride)
{
    sim_addr_t a0 = wi->addr[0];
    bool ok = a0 <= UINT64_MAX - (uint64_t)SIM_WARP_SIZE * stride;
    for (unsigned i = 1; i < SIM_WARP_SIZE; i++)      /* no early exit: vectorisable */
        ok &= wi->addr[i] == a0 + (uint64_t)i * stride;
    return ok;
}

unsigned
ldst_coalesce(const struct warp_inst *wi, uint32_t line_size, uint32_t sector_size,
              struct ldst_line *out, unsigned max)
{
    /* sizes are powers of two (config_validate): shifts, not divisions */
    SIM_ASSERT((line_size & (line_size - 1)) == 0 && (sector_size & (sector_size - 1)) == 0 &&
               sector_size <= line_size);
    unsigned sshift = (unsigned)__builtin_ctz(sector_size);
    unsigned lshift = (unsigned)__builtin_ctz(line_size) - sshift;   /* sectors -> lines */
    uint64_t smask = ((uint64_t)1 << lshift) - 1;
    unsigned n = 0;
    uint32_t m = wi->active_mask;
    uint32_t width = wi->width ? wi->width : 4;
    struct ldst_line *cur = NULL;    /* the line the previous sector fell in */

    if (m == UINT32_MAX && (width & (width - 1)) == 0 && width <= sector_size &&
        (wi->addr[0] & (width - 1)) == 0 && lanes_contiguous(wi, width))
        return coalesce_contiguous(wi->addr[0], width, sshift, lshift + sshift, out, max);
    while (m != 0) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        sim_addr_t a = wi->addr[lane];
        uint64_t s = a >> sshift, s_last = (a + width - 1) >> sshift;
        /* the lane counts once in each line it touches (usually one sector) */
        for (bool first = true; s <= s_last; s++, first = false) {
            uint64_t line = s >> lshift;
            bool count = first;
            if (cur == NULL || cur->line != line) {
                if ((cur = line_entry(out, &n, max, line)) == NULL)
                    return n;
                count = true;
            }
            cur->mask |= 1u << (s & smask);
            cur->lanes += count;
        }
    }
    return n;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct-words-per-bank count by sorting (bank << 48 | word) keys;
 * the general case behind ldst_bank_wavefronts(). */
static unsigned
wavefronts_sorted(uint64_t *key, unsigned n)
{
    qsort(key, n, sizeof key[0], cmp_u64);
    unsigned best = 1, run = 1;
    for (unsigned i = 1; i < n; i++) {
        if (key[i] == key[i - 1])
            continue;
        run = (key[i] >> 48) == (key[i - 1] >> 48) ? run + 1 : 1;
        if (run > best)
            best = run;
    }
    return best;
}

#define BANK_SLOTS 4             /* distinct words per bank tracked without sorting */

unsigned
ldst_bank_wavefronts(const struct warp_inst *wi, unsigned banks, unsigned bank_width)
{
    /* (bank << 48 | word) keys */
    uint64_t key[SIM_WARP_SIZE * 16];
    unsigned n = 0;
    uint32_t m = wi->active_mask;
    uint32_t width = wi->width ? wi->width : 4;

    /* bank widths are 4 or 8 bytes; bank counts usually a power of two */
    unsigned wshift = bank_width == 8 ? 3 : 2;
    bool pow2 = (banks & (banks - 1)) == 0;
    /* a full warp over consecutive elements, or all on one address (a
     * broadcast): the words touched are one contiguous run, and a run of W
     * words puts at most ceil(W / banks) distinct words in a bank */
    if (m == UINT32_MAX && wi->addr[0] < (UINT64_C(1) << 40)) {
        bool run = lanes_contiguous(wi, width);
        if (run || lanes_contiguous(wi, 0)) {
            uint64_t a0 = wi->addr[0], end = a0 + (run ? (uint64_t)SIM_WARP_SIZE * width : width);
            uint64_t words = ((end - 1) >> wshift) - (a0 >> wshift) + 1;
            return (unsigned)((words + banks - 1) / banks);
        }
    }
    while (m != 0) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        uint64_t w0 = wi->addr[lane] >> wshift;
        uint64_t w1 = (wi->addr[lane] + width - 1) >> wshift;
        for (uint64_t w = w0; w <= w1 && n < SIM_ARRAY_LEN(key); w++)
            key[n++] = (pow2 ? w & (banks - 1) : w % banks) << 48 | (w & ((UINT64_C(1) << 48) - 1));
    }
    if (n == 0)
        return 1;
    /* usually each bank sees a word or a few: count them in place, and sort
     * only when some bank sees more than BANK_SLOTS distinct words */
    uint64_t seen[64][BANK_SLOTS];
    uint8_t cnt[64] = { 0 };
    unsigned best = 1;
    for (unsigned i = 0; i < n && banks <= 64; i++) {
        unsigned b = (unsigned)(key[i] >> 48), c = cnt[b], j = 0;
        while (j < c && seen[b][j] != key[i])
            j++;
        if (j < c)
            continue;
        if (c == BANK_SLOTS)
            return wavefronts_sorted(key, n);
        seen[b][c] = key[i];
        cnt[b] = (uint8_t)(c + 1);
        if (c + 1u > best)
            best = c + 1u;
    }
    return banks <= 64 ? best : wavefronts_sorted(key, n);
}

/* Largest number of active lanes that address the same word (atomics on
 * one address serialise). */
static unsigned
same_word_lanes(const struct warp_inst *wi)
{
    uint64_t key[SIM_WARP_SIZE];
    unsigned n = 0, best = 1, run = 1;
    uint32_t m = wi->active_mask;
    while (m != 0) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        key[n++] = wi->addr[lane];
    }
    if (n == 0)
        return 1;
    qsort(key, n, sizeof key[0], cmp_u64);
    for (unsigned i = 1; i < n; i++) {
        run = key[i] == key[i - 1] ? run + 1 : 1;
        if (run > best)
            best = run;
    }
    return best;
}

/* Send n sectors to the L2 through an SM port (*free, occ ticks a sector)
 * no earlier than cycle t; returns the cycle they start leaving. */
static sim_cycle_t
port_send(uint64_t *free, uint64_t occ, uint32_t n, sim_cycle_t t)
{
    if (occ == 0)
        return t;
    uint64_t start = max_u64(MEM_TICKS(t), *free);
    *free = start + (uint64_t)n * occ;
    return ceil_cycles(start);
}

/* Take the MSHR that frees first, at or after t; returns the start cycle
 * of the miss and records it busy until `until` via mshr_release(). */
static sim_cycle_t
mshr_take(struct ldst *u, sim_cycle_t t)
{
    sim_cycle_t start = max_u64(t, u->mshr[0]);
    u->stp->mshr_wait_cycles += start - t;
    return start;
}

static void
mshr_release_at(struct ldst *u, sim_cycle_t until)
{
    /* replace the root (the entry just taken) and sift down */
    sim_cycle_t *h = u->mshr;
    uint32_t n = u->n_mshr, i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] < h[c])
            c++;
        if (h[c] >= until)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = until;
}

static bool
l1_caches(const struct ldst *u, const struct warp_inst *wi)
{
    if (u->l1_sets == 0 || (wi->flags & SIM_IF_BYPASS_L1))
        return false;
    if (wi->space == SIM_SPACE_LOCAL)
        return true;
    return u->cfg->l1_cache_global;
}

/* Coalesce wi and reserve the L1 data port for its sectors from cycle t:
 * at[i] = the cycle line i's sectors pass the port.  A line takes its
 * sectors' share of l1.sectors_per_cycle, and at least its share of
 * l1.lines_per_cycle (the tag stage). */
static unsigned
coalesce_through_port(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t,
                      struct ldst_line *ln, sim_cycle_t *at)
{
    const struct sim_config *c = u->cfg;
    unsigned n = ldst_coalesce(wi, c->l1_line_size, c->l1_sector_size, ln, LDST_MAX_LINES);
    uint64_t port = max_u64(MEM_TICKS(t), u->port_free);
    for (unsigned i = 0; i < n; i++) {
        at[i] = ceil_cycles(port);
        port += max_u64((uint64_t)sim_popc32(ln[i].mask) * u->port_occ, u->line_occ);
    }
    u->port_free = port;
    return n;
}

static sim_cycle_t
global_load(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    struct ldst_line ln[LDST_MAX_LINES];
    sim_cycle_t ats[LDST_MAX_LINES];
    const struct sim_config *c = u->cfg;
    unsigned n = coalesce_through_port(u, wi, t, ln, ats);
    bool cached = l1_caches(u, wi);
    sim_cycle_t ready = t + c->l1_hit_latency;

    u->stp->gld_insts++;
    for (unsigned i = 0; i < n; i++) {
        sim_cycle_t at = ats[i];
        u->stp->gld_sectors += (uint64_t)sim_popc32(ln[i].mask);
        uint32_t miss = ln[i].mask;
        struct cache_line *l = NULL;
        uint32_t set = 0;
        /* host memory (zero-copy) is not cached (mem.h) */
        bool l1 = cached && ln[i].line < u->host_line;
        if (l1) {
            set = (uint32_t)(cache_mix(ln[i].line) % u->l1_sets);
            l = cache_find(u->l1, set, ln[i].line);
            if (l != NULL) {
                uint32_t hit = l->valid & ln[i].mask;
                miss &= ~hit;
                u->stp->l1_hits += (uint64_t)sim_popc32(hit);
                if (hit != 0)
                    ready = max_u64(ready, max_u64(at + c->l1_hit_latency, l->fill));
            }
        }
        if (miss == 0)
            continue;
        u->stp->l1_misses += (uint64_t)sim_popc32(miss);
        sim_cycle_t s = mshr_take(u, at);
        s = port_send(&u->rd_free, u->rd_occ, sim_popc32(miss), s);
        sim_cycle_t fill = mem_read(u->m, ln[i].line, miss, s);
        mshr_release_at(u, fill);
        if (l1) {
            if (l == NULL) {
                l = cache_victim(u->l1, set);
                cache_install(u->l1, l, ln[i].line);
            }
            l->valid |= miss;
            l->fill = max_u64(l->fill, fill);
        }
        ready = max_u64(ready, fill);
    }
    return ready;
}

/* A store's sectors `mask` of `line` in the L1 (set `set`): a
 * write-through L1 updates a copy it holds; a write-back one allocates the
 * line and marks them dirty.  A dirty victim's tag and sectors come back
 * in *vtag, *vdirty (0: none) for the caller to write to the L2. */
static void
l1_store(struct ldst *u, uint32_t set, uint64_t line, uint32_t mask, bool wb, uint64_t *vtag,
         uint32_t *vdirty)
{
    struct cache_line *l = cache_find(u->l1, set, line);
    *vdirty = 0;
    if (l == NULL && wb) {
        l = cache_victim(u->l1, set);
        if (l->valid != 0 && l->dirty != 0) {
            *vtag = cache_line_tag(u->l1, l);
            *vdirty = l->dirty;
        }
        cache_install(u->l1, l, line);
    }
    if (l != NULL) {
        l->valid |= mask;
        if (wb)
            l->dirty |= mask;
    }
}

static sim_cycle_t
global_store(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    struct ldst_line ln[LDST_MAX_LINES];
    sim_cycle_t ats[LDST_MAX_LINES];
    const struct sim_config *c = u->cfg;
    unsigned n = coalesce_through_port(u, wi, t, ln, ats);
    bool cached = l1_caches(u, wi);
    bool wb = cached && c->l1_write_policy == CFG_WRITE_BACK;
    sim_cycle_t done = t;

    u->stp->gst_insts++;
    for (unsigned i = 0; i < n; i++) {
        sim_cycle_t at = ats[i];
        u->stp->gst_sectors += (uint64_t)sim_popc32(ln[i].mask);
        if (cached) {
            uint64_t vtag = 0;
            uint32_t vdirty;
            l1_store(u, (uint32_t)(cache_mix(ln[i].line) % u->l1_sets), ln[i].line, ln[i].mask,
                     wb, &vtag, &vdirty);
            if (vdirty != 0)
                done = max_u64(done, mem_write(u->m, vtag, vdirty, at));
        }
        if (!wb)
            done = max_u64(done, mem_write_bytes(u->m, ln[i].line, ln[i].mask,
                                                 wi->width ? ln[i].lanes * wi->width
                                                           : UINT32_MAX,
                                                 port_send(&u->wr_free, u->wr_occ,
                                                           sim_popc32(ln[i].mask), at)));
        else
            done = max_u64(done, at + 1);
    }
    return done;
}

static sim_cycle_t
global_atomic(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    struct ldst_line ln[LDST_MAX_LINES];
    sim_cycle_t ats[LDST_MAX_LINES];
    unsigned n = coalesce_through_port(u, wi, t, ln, ats);
    sim_cycle_t ready = t;

    u->stp->atom_insts++;
    for (unsigned i = 0; i < n; i++) {
        sim_cycle_t at = ats[i];
        /* atomics are performed at L2: drop any stale L1 copy */
        if (u->l1_sets != 0) {
            uint32_t set = (uint32_t)(cache_mix(ln[i].line) % u->l1_sets);
            struct cache_line *l = cache_find(u->l1, set, ln[i].line);
            if (l != NULL)
                cache_drop_sectors(u->l1, l, ln[i].mask);
        }
        sim_cycle_t s = mshr_take(u, at);
        s = port_send(&u->wr_free, u->wr_occ, sim_popc32(ln[i].mask), s);
        sim_cycle_t r = mem_atomic(u->m, ln[i].line, ln[i].mask, ln[i].lanes, s);
        mshr_release_at(u, r);
        ready = max_u64(ready, r);
    }
    return ready;
}

/* Send `bytes` through the SM's port to the SM-to-SM network from tick a
 * on (smem.dsmem_bytes_per_cycle, after what it carries already); the
 * cycle they have arrived (smem.dsmem_latency after the last left). */
static sim_cycle_t
dsmem_send(struct ldst *u, uint64_t a, uint64_t bytes)
{
    const struct sim_config *c = u->cfg;
    uint64_t start = max_u64(a, u->dsmem_free);
    u->dsmem_free = start + occ_ticks((double)bytes, c->smem_dsmem_bytes_per_cycle);
    return ceil_cycles(u->dsmem_free) + c->smem_dsmem_latency;
}

static sim_cycle_t
shared_access(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    const struct sim_config *c = u->cfg;
    unsigned wf = ldst_bank_wavefronts(wi, c->smem_banks, c->smem_bank_width);
    if (wi->flags & SIM_IF_ATOMIC) {
        unsigned same = same_word_lanes(wi);
        if (same > wf)
            wf = same;
        u->stp->atom_insts++;
    } else if (wi->flags & SIM_IF_STORE) {
        u->stp->sst_insts++;
    } else {
        u->stp->sld_insts++;
    }
    if (wi->remote) {
        /* distributed shared memory: another SM's, through the SM-to-SM
         * network at smem.dsmem_bytes_per_cycle */
        u->stp->dsmem_insts++;
        uint64_t bytes = (uint64_t)inst_popc(wi->active_mask) * (wi->width ? wi->width : 4);
        return dsmem_send(u, MEM_TICKS(t), bytes);
    }
    uint64_t start = max_u64(MEM_TICKS(t), u->smem_free);
    u->smem_free = start + MEM_TICKS(wf);
    u->stp->smem_wavefronts += wf;
    u->stp->smem_conflicts += wf - 1;
    return ceil_cycles(start) + c->smem_latency + wf - 1;
}

static sim_cycle_t
const_load(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    const struct sim_config *c = u->cfg;
    uint64_t addr[SIM_WARP_SIZE];
    unsigned n = 0;
    uint32_t m = wi->active_mask;

    u->stp->const_insts++;
    while (m != 0) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        uint64_t a = wi->addr[lane];
        bool seen = false;
        for (unsigned i = 0; i < n && !seen; i++)
            seen = addr[i] == a;
        if (!seen)
            addr[n++] = a;
    }
    if (n == 0)
        n = 1;
    uint64_t start = max_u64(MEM_TICKS(t), u->cc_free);
    u->cc_free = start + MEM_TICKS(n);
    sim_cycle_t at = ceil_cycles(start);
    sim_cycle_t ready = at + c->const_hit_latency + n - 1;
    if (u->cc_sets == 0 || wi->space == SIM_SPACE_PARAM)
        return ready;
    for (unsigned i = 0; i < n; i++) {
        uint64_t line = addr[i] / c->l1_line_size;
        uint32_t set = (uint32_t)(cache_mix(line) % u->cc_sets);
        struct cache_line *l = cache_find(u->cc, set, line);
        if (l != NULL) {
            ready = max_u64(ready, l->fill);
            continue;
        }
        l = cache_victim(u->cc, set);
        cache_install(u->cc, l, line);
        l->valid = 1;
        l->fill = mem_read(u->m, line, 1u << (addr[i] % c->l1_line_size / c->l1_sector_size), at) +
                  c->const_hit_latency;
        ready = max_u64(ready, l->fill);
    }
    return ready;
}

void
ldst_prefetch(const struct ldst *u, const struct warp_inst *wi)
{
    if ((wi->space != SIM_SPACE_GLOBAL && wi->space != SIM_SPACE_LOCAL &&
         wi->space != SIM_SPACE_TEX) || wi->bulk != SIM_BULK_NONE)   /* a bulk copy: no lanes */
        return;
    uint32_t m = wi->active_mask;
    if (m == 0)
        return;
    uint32_t ls = u->cfg->l1_line_size;
    uint64_t first = wi->addr[__builtin_ctz(m)] / ls;
    uint64_t last = wi->addr[31 - __builtin_clz(m)] / ls;
    bool cached = l1_caches(u, wi);
    for (uint64_t line = first;; line = last) {
        if (cached)
            cache_prefetch(u->l1, (uint32_t)(cache_mix(line) % u->l1_sets));
        mem_prefetch(u->m, line);
        if (line == last)
            break;
    }
}

/* A bulk copy (inst.h, enum sim_bulk): addr[1] bytes at global timing
 * address addr[0].  The SM's bulk-copy unit takes it tma.latency after
 * its issue, once it has sent the lines of the copies before, and sends
 * one L2 line (the sectors the copy covers) per l2.line_size /
 * tma.bytes_per_cycle cycles (tma.store_bytes_per_cycle for a store), to
 * the L2 directly (no L1, no MSHR).  A load is done when its last line is
 * back; a store when its last line is written at the L2. */
/* The rows of a bulk copy (inst.h): one for a plain copy, else the
 * tensor copy's addr[2 d] rows at a stride of addr[2 d + 1]. */
static void
bulk_rows(const struct warp_inst *wi, uint64_t cnt[4], uint64_t str[4])
{
    for (unsigned d = 0; d < 4; d++) {
        cnt[d] = wi->bulk == SIM_BULK_TENSOR ? wi->addr[2 + 2 * d] : 1;
        str[d] = wi->bulk == SIM_BULK_TENSOR ? wi->addr[3 + 2 * d] : 0;
    }
}

static uint64_t
bulk_bytes(const struct warp_inst *wi)
{
    uint64_t cnt[4], str[4];
    bulk_rows(wi, cnt, str);
    return wi->addr[1] * cnt[0] * cnt[1] * cnt[2] * cnt[3];
}

/* Call fn(ctx, line, sectors) for every L2 line of every row of bulk copy
 * wi, in order. */
static void
bulk_lines(const struct ldst *u, const struct warp_inst *wi,
           void (*fn)(void *ctx, uint64_t line, uint32_t mask), void *ctx)
{
    uint64_t ls = u->cfg->l2_line_size, ss = u->cfg->l2_sector_size;
    uint64_t a = wi->addr[0], n = wi->addr[1], cnt[4], str[4];
    bulk_rows(wi, cnt, str);
    for (uint64_t i3 = 0; i3 < cnt[3]; i3++)
    for (uint64_t i2 = 0; i2 < cnt[2]; i2++)
    for (uint64_t i1 = 0; i1 < cnt[1]; i1++)
    for (uint64_t i0 = 0; i0 < cnt[0]; i0++) {
        uint64_t row = a + i0 * str[0] + i1 * str[1] + i2 * str[2] + i3 * str[3];
        for (uint64_t p = row; n > 0 && p < row + n; p = (p / ls + 1) * ls) {
            uint64_t end = (p / ls + 1) * ls < row + n ? (p / ls + 1) * ls : row + n;
            uint32_t mask = 0;
            for (uint64_t q = p / ss * ss; q < end; q += ss)
                mask |= 1u << ((q % ls) / ss);
            fn(ctx, p / ls, mask);
        }
    }
}

/* bulk_copy's line: sent through the bulk-copy unit at its rate. */
struct bulk_send {
    struct ldst *u;
    uint64_t at;                 /* ticks: the unit is next free */
    sim_cycle_t done;
    bool load;
};

static void
bulk_send_line(void *ctx, uint64_t line, uint32_t mask)
{
    struct bulk_send *b = ctx;
    sim_cycle_t send = (sim_cycle_t)((b->at + MEM_TICKS(1) - 1) >> MEM_TICK_SHIFT);
    sim_cycle_t r = b->load ? mem_read(b->u->m, line, mask, send)
                            : mem_write(b->u->m, line, mask, send);
    b->done = max_u64(b->done, r);
    b->at += b->load ? b->u->tma_occ : b->u->tma_store_occ;
}

static sim_cycle_t
bulk_copy(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    const struct sim_config *c = u->cfg;
    bool load = (wi->flags & SIM_IF_STORE) == 0;
    struct bulk_send bs = { u, max_u64(MEM_TICKS(t + c->tma_latency), u->tma_free),
                            t + c->tma_latency, load };
    if (load)
        u->stp->bulk_loads++;
    else
        u->stp->bulk_stores++;
    u->stp->bulk_bytes += bulk_bytes(wi);
    bulk_lines(u, wi, bulk_send_line, &bs);
    u->tma_free = bs.at;
    return bs.done;
}

/* A bulk copy to another block's shared memory (SIM_BULK_DSMEM): the
 * bulk-copy unit takes it tma.latency after its issue, once it has sent
 * the copies before, and sends its addr[1] bytes through the SM's port
 * to the SM-to-SM network at smem.dsmem_bytes_per_cycle; done
 * smem.dsmem_latency after its last byte left.  (No probe has timed this
 * copy: the unit's and the network's measured figures, composed.) */
static sim_cycle_t
bulk_dsmem(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    const struct sim_config *c = u->cfg;
    uint64_t n = wi->addr[1];
    u->stp->bulk_stores++;
    u->stp->bulk_bytes += n;
    u->stp->dsmem_insts++;
    sim_cycle_t done = dsmem_send(u, max_u64(MEM_TICKS(t + c->tma_latency), u->tma_free), n);
    u->tma_free = u->dsmem_free;
    return done;
}

/* A bulk copy's line, warmed (ldst_warm). */
struct bulk_warm {
    mem *m;
    bool write;
};

static void
bulk_warm_line(void *ctx, uint64_t line, uint32_t mask)
{
    struct bulk_warm *b = ctx;
    mem_warm(b->m, line, mask, b->write);
}

void
ldst_warm(struct ldst *u, const struct warp_inst *wi)
{
    struct ldst_line ln[LDST_MAX_LINES];
    bool write = (wi->flags & (SIM_IF_STORE | SIM_IF_ATOMIC)) != 0;
    if (wi->bulk == SIM_BULK_COPY || wi->bulk == SIM_BULK_TENSOR) {
        struct bulk_warm bw = { u->m, (wi->flags & SIM_IF_STORE) != 0 };
        bulk_lines(u, wi, bulk_warm_line, &bw);
        return;
    }
    if (wi->bulk != SIM_BULK_NONE || wi->remote || wi->width == 0 ||
        (wi->space != SIM_SPACE_GLOBAL && wi->space != SIM_SPACE_LOCAL &&
         wi->space != SIM_SPACE_TEX))
        return;
    const struct sim_config *c = u->cfg;
    unsigned n = ldst_coalesce(wi, c->l1_line_size, c->l1_sector_size, ln, LDST_MAX_LINES);
    bool cached = l1_caches(u, wi);
    bool wb = cached && c->l1_write_policy == CFG_WRITE_BACK && !(wi->flags & SIM_IF_ATOMIC);
    for (unsigned i = 0; i < n; i++) {
        struct cache_line *l = NULL;
        uint32_t set = 0, miss = ln[i].mask;
        if (u->l1_sets != 0 && (cached || (wi->flags & SIM_IF_ATOMIC))) {
            set = (uint32_t)(cache_mix(ln[i].line) % u->l1_sets);
            l = cache_find(u->l1, set, ln[i].line);
        }
        if (wi->flags & SIM_IF_ATOMIC) {     /* performed at L2: no L1 copy stays */
            if (l != NULL)
                cache_drop_sectors(u->l1, l, ln[i].mask);
            mem_warm(u->m, ln[i].line, ln[i].mask, true);
            continue;
        }
        if (write) {
            if (cached) {
                uint64_t vtag = 0;
                uint32_t vdirty;
                l1_store(u, set, ln[i].line, ln[i].mask, wb, &vtag, &vdirty);
                if (vdirty != 0)
                    mem_warm(u->m, vtag, vdirty, true);
            }
            if (!wb)
                mem_warm(u->m, ln[i].line, ln[i].mask, true);
            continue;
        }
        if (l != NULL)
            miss &= ~l->valid;
        if (miss == 0)
            continue;
        mem_warm(u->m, ln[i].line, miss, false);
        if (cached) {
            if (l == NULL) {
                l = cache_victim(u->l1, set);
                cache_install(u->l1, l, ln[i].line);
            }
            l->valid |= miss;
        }
    }
}

sim_cycle_t
ldst_access(struct ldst *u, const struct warp_inst *wi, sim_cycle_t t)
{
    sim_cycle_t r;
    if (wi->bulk != SIM_BULK_NONE) {
        r = wi->bulk == SIM_BULK_DSMEM ? bulk_dsmem(u, wi, t) : bulk_copy(u, wi, t);
        if (r > u->drain)
            u->drain = r;
        return r;
    }
    switch (wi->space) {
    case SIM_SPACE_SHARED:
        r = shared_access(u, wi, t);
        break;
    case SIM_SPACE_CONST:
    case SIM_SPACE_PARAM:
        r = (wi->flags & SIM_IF_STORE) ? t + 1 : const_load(u, wi, t);
        break;
    case SIM_SPACE_GLOBAL:
    case SIM_SPACE_LOCAL:
    case SIM_SPACE_TEX:
        if (wi->flags & SIM_IF_ATOMIC)
            r = global_atomic(u, wi, t);
        else if (wi->flags & SIM_IF_STORE)
            r = global_store(u, wi, t);
        else
            r = global_load(u, wi, t);
        break;
    default:
        r = t + 1;
        break;
    }
    if (r > u->drain)
        u->drain = r;
    return r;
}
