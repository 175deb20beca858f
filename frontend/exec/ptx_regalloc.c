/*
 * ptx_regalloc.c - the functional register file packed by liveness (see
 * ptx_regalloc.h).
 *
 * Steps, each linear in the kernel (or n log n):
 *   1. every operation's register reads and whole-register writes
 *      (op_regs: keys 0 .. nvar32 - 1 the 32-bit registers, then the
 *      64-bit ones; predicates stay as they are: 4 bytes a warp each);
 *   2. basic blocks and their predecessors;
 *   3. for each register, its hull: the operations that touch it, and the
 *      block boundaries where it is live, found by walking back from each
 *      read to the writes that reach it (each block visited once per
 *      register);
 *   4. interval partitioning of the hulls, per class, lowest free slot
 *      first (deterministic: the same kernel gives the same file);
 *   5. every slot field of every operation renumbered.
 */
#include "frontend/exec/ptx_regalloc.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "frontend/exec/ptx_mma.h"
#include "frontend/exec/ptx_wgmma.h"

#define OPREGS_MAX 64            /* slot fields of one xop, with its fragment */
_Static_assert(13 + sizeof ((struct xop *)0)->frag / sizeof(struct slot) <= OPREGS_MAX,
               "every slot field of an xop fits an opregs list (op_regs, slots_of)");

struct opregs {
    uint32_t rd[OPREGS_MAX], kl[OPREGS_MAX];
    unsigned nr, nk;
    uint32_t pn[OPREGS_MAX];     /* registers live everywhere (slots of their own) */
    unsigned np;
};

static void
add(uint32_t *list, unsigned *n, uint32_t k)
{
    for (unsigned i = 0; i < *n; i++)
        if (list[i] == k)
            return;
    if (*n < OPREGS_MAX)
        list[(*n)++] = k;
}

/* The key of slot s if it is an ordinary 32- or 64-bit register, else
 * UINT32_MAX. */
static uint32_t
key_of(const struct ptx_run *r, const struct slot *s)
{
    if (s->cls == SC_32 && s->idx < r->nvar32)
        return s->idx;
    if (s->cls == SC_64 && s->idx < r->nvar64)
        return r->nvar32 + s->idx;
    return UINT32_MAX;
}

static void
rd(const struct ptx_run *r, struct opregs *o, const struct slot *s)
{
    uint32_t k = key_of(r, s);
    if (k != UINT32_MAX)
        add(o->rd, &o->nr, k);
}

static void
kill(const struct ptx_run *r, struct opregs *o, const struct slot *s, bool whole)
{
    uint32_t k = key_of(r, s);
    if (k != UINT32_MAX)
        add(whole ? o->kl : o->rd, whole ? &o->nk : &o->nr, k);
}

/* A wmma.load (whole, or part x->part of a split one: ptx_exec.c
 * exec_wmma_mem): the registers it overwrites whole in every lane, and
 * those it updates in part (read); the others it does not write. */
static void
wload_regs(const struct ptx_run *r, const struct xop *x, struct opregs *o, bool whole)
{
    struct ptx_mma_desc d;
    ptx_mma_desc_of(x, &d);
    unsigned f = x->atom, es = ptx_mma_esize(x->type);
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    struct ptx_frag_part parts[PTX_PARTS_MAX];
    unsigned dist, nregs = ptx_mma_frag_regs(&d, f, &dist);
    unsigned n = ptx_mma_frag(&d, f, 0, el);
    const struct ptx_frag_part *part = NULL;
    if (x->nparts > 0) {
        unsigned np = ptx_mma_parts(&d, f, x->flags & PF_COLMAJOR, x->space == PS_SHARED, parts);
        part = x->part < np ? &parts[x->part] : NULL;
    }
    /* per distinct register: the elements the operation writes (bit sub) */
    uint32_t subs[PTX_FRAG_MAX] = { 0 };
    unsigned cnt = part != NULL ? part->nelem : n;
    for (unsigned q = 0; q < cnt; q++) {
        const struct ptx_frag_elem *e = &el[part != NULL ? part->elem[q] : q];
        if (e->reg < PTX_FRAG_MAX)
            subs[e->reg] |= 1u << e->sub;
    }
    uint32_t full = es == 0 || es >= 4 ? 1u : (1u << (4 / es)) - 1;
    for (unsigned i = 0; i < nregs && i < PTX_FRAG_MAX; i++) {
        unsigned b = dist ? i % dist : 0;
        if (subs[b] == 0)
            continue;            /* not written: its value is read but unused */
        bool covered = whole && subs[b] == full;
        kill(r, o, &x->frag[i], covered);
        if (!covered && i != b)
            rd(r, o, &x->frag[b]);   /* a repeat copies its base register */
    }
}

/* Step 1: what x reads and what it overwrites whole. */
static void
op_regs(const struct ptx_run *r, const struct xop *x, struct opregs *o)
{
    o->nr = o->nk = o->np = 0;
    if (x->kind == XK_TIMING || x->kind == XK_SPILL)
        return;                  /* they execute nothing */
    bool whole = x->guard < 0;
    bool dest_written = false, vec_written = false;
    switch (x->kind) {
    case XK_ALU:
        dest_written = true;
        vec_written = x->d.cls == SC_NONE;   /* a mov that unpacks */
        break;
    case XK_LD:
        dest_written = vec_written = true;
        break;
    case XK_PARAM:               /* elements i < vec: XOP_PARAM_DST(x, i) <- constants */
        for (unsigned i = 0; i < x->vec && i < 4; i++)
            kill(r, o, XOP_PARAM_DST(x, i), whole);
        for (unsigned i = x->vec; i < 4; i++)
            rd(r, o, XOP_PARAM_DST(x, i));
        return;                  /* the values are constant slots */
    case XK_MOVE_CLOCK: case XK_ATOM: case XK_SHFL: case XK_VOTE: case XK_ACTIVEMASK:
        dest_written = true;
        break;
    default:
        break;
    }
    /* the kill fields first: a field both read and written is a read */
    if (dest_written) {
        kill(r, o, &x->d, whole);
        kill(r, o, &x->d2, whole);
    }
    for (unsigned i = 0; i < 4; i++)
        if (vec_written)
            kill(r, o, &x->v[i], whole);
    const struct slot *reads[] = { &x->a, &x->b, &x->c, &x->e, &x->base, &x->base2, &x->base3 };
    for (unsigned i = 0; i < sizeof reads / sizeof reads[0]; i++)
        rd(r, o, reads[i]);
    if (!dest_written) {
        rd(r, o, &x->d);
        rd(r, o, &x->d2);
    }
    for (unsigned i = 0; i < 4; i++)
        if (!vec_written)
            rd(r, o, &x->v[i]);
    /* the fragment */
    const unsigned nf = sizeof x->frag / sizeof x->frag[0];
    switch (x->kind) {
    case XK_MMA:
    case XK_WMMA: {
        if (x->nparts > 0 && x->part + 1 < x->nparts)
            break;               /* an earlier tile computes nothing (ptx_exec.c) */
        struct ptx_mma_desc d;
        unsigned dist;
        ptx_mma_desc_of(x, &d);
        unsigned nd = ptx_mma_frag_regs(&d, 'd', &dist);
        for (unsigned i = 0; i < nf; i++)
            if (i < nd)
                kill(r, o, &x->frag[i], whole);
            else
                rd(r, o, &x->frag[i]);
        break;
    }
    case XK_WLOAD:
        wload_regs(r, x, o, whole);
        break;
    case XK_LDMATRIX:
        for (unsigned i = 0; i < nf; i++)
            kill(r, o, &x->frag[i], whole && x->nparts == 0 && i < x->vec);
        break;
    default:
        for (unsigned i = 0; i < nf; i++)
            rd(r, o, &x->frag[i]);
        break;
    }
    /* a warpgroup MMA reads A and writes D in all 32 lanes (ptx_wgmma.c),
     * whatever the mask, and a shuffle reads its source in other lanes,
     * which may be inactive (undefined in the ISA): what they read there
     * is what the register last held, as if it had a slot of its own, so
     * it has one (a wgmma's D, up to 128 registers: pin_wslots) */
    if (x->kind == XK_WGMMA) {
        memcpy(o->pn, o->rd, o->nr * sizeof *o->rd);
        memcpy(o->pn + o->nr, o->kl, o->nk * sizeof *o->kl);
        o->np = o->nr + o->nk;
    }
    if (x->kind == XK_SHFL && key_of(r, &x->a) != UINT32_MAX)
        o->pn[o->np++] = key_of(r, &x->a);
    /* a slot both overwritten and read is live before: keep it a read */
    for (unsigned i = 0; i < o->nk; i++)
        for (unsigned j = 0; j < o->nr; j++)
            if (o->kl[i] == o->rd[j]) {
                o->kl[i--] = o->kl[--o->nk];
                break;
            }
}

/* Key k is live everywhere. */
static void
pin(uint32_t k, uint32_t n, uint32_t *lo, uint32_t *hi)
{
    lo[k] = 0;
    hi[k] = n - 1;
}

/* A warpgroup MMA's D registers (r->wslots), live everywhere. */
static void
pin_wslots(const struct ptx_run *r, const struct xop *x, uint32_t *lo, uint32_t *hi, uint32_t n)
{
    struct ptx_wgmma_desc d;
    ptx_wgmma_desc_of(r, x, &d);
    unsigned nd = ptx_wgmma_d_regs(&d);
    for (unsigned i = 0; i < nd && (uint64_t)x->off + i < r->n_wslots; i++) {
        uint32_t k = key_of(r, &r->wslots[x->off + i]);
        if (k != UINT32_MAX)
            pin(k, n, lo, hi);
    }
}

/* Can the packing be done on r? */
static bool
eligible(const struct ptx_run *r)
{
    const char *env = getenv("SMSIM_REGALLOC");
    if (env != NULL && strcmp(env, "0") == 0)
        return false;
    if (r->n_funcs != 1 || r->n_x == 0)
        return false;
    for (uint32_t i = 0; i < r->n_x; i++)
        if (r->x[i].kind == XK_CALL)
            return false;
    return true;
}

/* Does operation x end a basic block (a branch, or the end of lanes)? */
static bool
ends_block(const struct xop *x)
{
    return x->kind == XK_BRA || x->kind == XK_EXIT || x->kind == XK_TRAP || x->kind == XK_RET;
}

/* Does control go past operation x to the next one? */
static bool
falls_through(const struct xop *x)
{
    return !ends_block(x) || x->guard >= 0;
}

/* The latest position in list[0 .. n) (sorted) in [lo, hi), or -1. */
static int64_t
latest_in(const uint32_t *list, uint32_t n, uint32_t lo, uint32_t hi)
{
    uint32_t a = 0, b = n;       /* first element >= hi */
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (list[mid] < hi)
            a = mid + 1;
        else
            b = mid;
    }
    return a > 0 && list[a - 1] >= lo ? (int64_t)list[a - 1] : -1;
}

/* A min-heap of (end, slot) pairs, or of slots alone (end 0). */
struct heap {
    uint64_t *v;
    uint32_t n;
};

static void
heap_push(struct heap *h, uint64_t x)
{
    uint32_t i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static uint64_t
heap_pop(struct heap *h)
{
    uint64_t top = h->v[0], x = h->v[--h->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= x)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n > 0)
        h->v[i] = x;
    return top;
}

struct byhull {
    uint32_t lo, key;
};

static int
cmp_hull(const void *pa, const void *pb)
{
    const struct byhull *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* Step 4: slots for keys [k0, k1) from their hulls; returns the count. */
static uint32_t
partition(uint32_t k0, uint32_t k1, const uint32_t *lo, const uint32_t *hi, uint32_t *map)
{
    uint32_t n = 0;
    struct byhull *order = xmalloc(((size_t)(k1 - k0) + 1) * sizeof *order);
    for (uint32_t k = k0; k < k1; k++)
        if (lo[k] != UINT32_MAX)
            order[n++] = (struct byhull){ lo[k], k };
    qsort(order, n, sizeof *order, cmp_hull);
    struct heap active = { xmalloc(((size_t)n + 1) * sizeof(uint64_t)), 0 };
    struct heap free_ = { xmalloc(((size_t)n + 1) * sizeof(uint64_t)), 0 };
    uint32_t slots = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = order[i].key;
        while (active.n > 0 && (active.v[0] >> 32) < lo[k])
            heap_push(&free_, (uint32_t)heap_pop(&active));
        uint32_t s = free_.n > 0 ? (uint32_t)heap_pop(&free_) : slots++;
        map[k] = s;
        heap_push(&active, (uint64_t)hi[k] << 32 | s);
    }
    free(order);
    free(active.v);
    free(free_.v);
    return slots;
}

/* Step 5: the new slot of every 32-bit slot (variables: map; the
 * special registers read, in order; the constants after them) and of
 * every 64-bit one. */
struct renum {
    const uint32_t *map;         /* variables' keys to slots */
    uint32_t sr[SR_COUNT];       /* special register to slot (UINT32_MAX: unread) */
    uint32_t c32, c64;           /* slots of the first 32- and 64-bit constants */
};

static void
renumber(const struct ptx_run *r, struct slot *s, const struct renum *t)
{
    if (s->cls == SC_32) {
        if (s->idx < r->nvar32)
            s->idx = t->map[s->idx];
        else if (s->idx < r->nvar32 + SR_COUNT)
            s->idx = t->sr[s->idx - r->nvar32];
        else
            s->idx = s->idx - r->nvar32 - SR_COUNT + t->c32;
    } else if (s->cls == SC_64) {
        s->idx = s->idx < r->nvar64 ? t->map[r->nvar32 + s->idx] : s->idx - r->nvar64 + t->c64;
    }
}

/* The slot fields of x (struct xop), for the renumbering. */
static unsigned
slots_of(struct xop *x, struct slot **all)
{
    struct slot *f[] = { &x->d, &x->a, &x->b, &x->c, &x->e, &x->base, &x->base2, &x->base3,
                         &x->d2, &x->v[0], &x->v[1], &x->v[2], &x->v[3] };
    unsigned n = 0;
    for (unsigned j = 0; j < sizeof f / sizeof f[0]; j++)
        all[n++] = f[j];
    for (unsigned j = 0; j < sizeof x->frag / sizeof x->frag[0]; j++)
        all[n++] = &x->frag[j];
    return n;
}

/* Step 2: the basic blocks of x[0 .. n) and their predecessors. */
struct cfg {
    uint32_t nb;
    uint32_t *blk;               /* [n] the block of each operation */
    uint32_t *bstart;            /* [nb + 1] block b is bstart[b] .. bstart[b + 1] - 1 */
    uint32_t *pstart, *pred;     /* block b's predecessors: pred[pstart[b] .. pstart[b + 1]) */
};

static void
cfg_build(const struct ptx_run *r, struct cfg *g)
{
    uint32_t n = r->n_x;
    uint8_t *leader = xcalloc((size_t)n + 1, 1);
    leader[0] = 1;
    for (uint32_t i = 0; i < n; i++) {
        const struct xop *x = &r->x[i];
        if (x->kind == XK_BRA && x->target >= 0 && (uint32_t)x->target < n)
            leader[x->target] = 1;
        if (ends_block(x))
            leader[i + 1] = 1;
    }
    g->nb = 0;
    g->blk = xmalloc((size_t)n * sizeof *g->blk);
    for (uint32_t i = 0; i < n; i++) {
        g->nb += leader[i];
        g->blk[i] = g->nb - 1;
    }
    g->bstart = xmalloc(((size_t)g->nb + 1) * sizeof *g->bstart);
    for (uint32_t i = 0; i < n; i++)
        if (leader[i])
            g->bstart[g->blk[i]] = i;
    g->bstart[g->nb] = n;
    free(leader);
    /* the successors of each block's last operation, counted, then listed */
    g->pstart = xcalloc((size_t)g->nb + 1, sizeof *g->pstart);
    g->pred = NULL;
    uint32_t *fill = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t b = 0; b < g->nb; b++) {
            const struct xop *x = &r->x[g->bstart[b + 1] - 1];
            uint32_t succ[2], ns = 0;
            if (x->kind == XK_BRA && x->target >= 0 && (uint32_t)x->target < n)
                succ[ns++] = g->blk[x->target];
            if (falls_through(x) && g->bstart[b + 1] < n)
                succ[ns++] = b + 1;
            for (uint32_t k = 0; k < ns; k++) {
                if (pass)
                    g->pred[fill[succ[k]]++] = b;
                else
                    g->pstart[succ[k] + 1]++;
            }
        }
        if (pass)
            break;
        for (uint32_t b = 0; b < g->nb; b++)
            g->pstart[b + 1] += g->pstart[b];
        fill = xmalloc(((size_t)g->nb + 1) * sizeof *fill);
        memcpy(fill, g->pstart, ((size_t)g->nb + 1) * sizeof *fill);
        g->pred = xmalloc(((size_t)g->pstart[g->nb] + 1) * sizeof *g->pred);
    }
    free(fill);
}

static void
cfg_free(struct cfg *g)
{
    free(g->blk);
    free(g->bstart);
    free(g->pstart);
    free(g->pred);
}

/* The operations of each key (CSR over keys, positions ascending). */
struct csr {
    uint32_t *start;             /* [nk + 1] */
    uint32_t *pos;
};

/* A list of (key, position) pairs in ascending position, grouped by key. */
static void
csr_build(const uint32_t *key, const uint32_t *pos, size_t n, uint32_t nk, struct csr *c)
{
    c->start = xcalloc((size_t)nk + 1, sizeof *c->start);
    c->pos = xmalloc((n + 1) * sizeof *c->pos);
    for (size_t i = 0; i < n; i++)
        c->start[key[i] + 1]++;
    for (uint32_t k = 0; k < nk; k++)
        c->start[k + 1] += c->start[k];
    uint32_t *fill = xmalloc(((size_t)nk + 1) * sizeof *fill);
    memcpy(fill, c->start, ((size_t)nk + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        c->pos[fill[key[i]]++] = pos[i];
    free(fill);
}

/* Step 3: key k's hull [lo[k], hi[k]] grows to cover its live points:
 * walking back from each read to the writes that reach it, a block it is
 * live into covers its start and each predecessor's end. */
static void
hull(uint32_t k, const struct cfg *g, const struct csr *kills, const struct csr *reads,
     uint32_t *seen, uint32_t *work, uint32_t *lo, uint32_t *hi)
{
    const uint32_t *kl = kills->pos + kills->start[k];
    uint32_t nkl = kills->start[k + 1] - kills->start[k], nw = 0;
#define COVER(p) do { uint32_t p_ = (p); lo[k] = p_ < lo[k] ? p_ : lo[k]; \
                      hi[k] = p_ > hi[k] ? p_ : hi[k]; } while (0)
    for (uint32_t j = 0; j < nkl; j++)
        COVER(kl[j]);
    for (uint32_t j = reads->start[k]; j < reads->start[k + 1]; j++) {
        uint32_t u = reads->pos[j], b = g->blk[u];
        COVER(u);
        if (seen[b] == k + 1 || latest_in(kl, nkl, g->bstart[b], u) >= 0)
            continue;
        seen[b] = k + 1;         /* live into b */
        work[nw++] = b;
    }
    while (nw > 0) {
        uint32_t b = work[--nw];
        COVER(g->bstart[b]);
        for (uint32_t q = g->pstart[b]; q < g->pstart[b + 1]; q++) {
            uint32_t p = g->pred[q];
            COVER(g->bstart[p + 1] - 1);
            if (seen[p] == k + 1 || latest_in(kl, nkl, g->bstart[p], g->bstart[p + 1]) >= 0)
                continue;
            seen[p] = k + 1;
            work[nw++] = p;
        }
    }
#undef COVER
}

void
ptx_regalloc(struct ptx_run *r)
{
    if (r->regs_packed)
        return;
    r->regs_packed = true;
    if (!eligible(r))
        return;
    uint32_t n = r->n_x, nk = r->nvar32 + r->nvar64;
    if (nk == 0)
        return;
    /* step 1: each operation's kills and reads as (key, position) pairs
     * in program order; the pinned keys' hulls are the whole kernel */
    uint32_t *lo = xmalloc((size_t)nk * sizeof *lo), *hi = xcalloc(nk, sizeof *hi);
    for (uint32_t k = 0; k < nk; k++)
        lo[k] = UINT32_MAX;
    size_t cap = 4 * (size_t)n + OPREGS_MAX, nkp = 0, nrp = 0;
    uint32_t *kkey = xmalloc(cap * sizeof *kkey), *kat = xmalloc(cap * sizeof *kat);
    uint32_t *rkey = xmalloc(cap * sizeof *rkey), *rat = xmalloc(cap * sizeof *rat);
    size_t kcap = cap, rcap = cap;
    struct opregs o;
    for (uint32_t i = 0; i < n; i++) {
        op_regs(r, &r->x[i], &o);
        if (nkp + o.nk > kcap) {
            kcap = 2 * (nkp + o.nk);
            kkey = xrealloc(kkey, kcap * sizeof *kkey);
            kat = xrealloc(kat, kcap * sizeof *kat);
        }
        if (nrp + o.nr > rcap) {
            rcap = 2 * (nrp + o.nr);
            rkey = xrealloc(rkey, rcap * sizeof *rkey);
            rat = xrealloc(rat, rcap * sizeof *rat);
        }
        for (unsigned j = 0; j < o.nk; j++, nkp++) {
            kkey[nkp] = o.kl[j];
            kat[nkp] = i;
        }
        for (unsigned j = 0; j < o.nr; j++, nrp++) {
            rkey[nrp] = o.rd[j];
            rat[nrp] = i;
        }
        for (unsigned j = 0; j < o.np; j++)
            pin(o.pn[j], n, lo, hi);
        if (r->x[i].kind == XK_WGMMA)
            pin_wslots(r, &r->x[i], lo, hi, n);
    }
    struct csr kills, reads;
    csr_build(kkey, kat, nkp, nk, &kills);
    csr_build(rkey, rat, nrp, nk, &reads);
    free(kkey);
    free(kat);
    free(rkey);
    free(rat);
    /* steps 2 and 3 */
    struct cfg g;
    cfg_build(r, &g);
    uint32_t *seen = xcalloc(g.nb, sizeof *seen);   /* key + 1: live into the block */
    uint32_t *work = xmalloc(((size_t)g.nb + 1) * sizeof *work);
    for (uint32_t k = 0; k < nk; k++)
        hull(k, &g, &kills, &reads, seen, work, lo, hi);
    free(seen);
    free(work);
    cfg_free(&g);
    free(kills.start);
    free(kills.pos);
    free(reads.start);
    free(reads.pos);
    /* step 4 */
    uint32_t *map = xcalloc(nk, sizeof *map);
    uint32_t p32 = partition(0, r->nvar32, lo, hi, map);
    uint32_t p64 = partition(r->nvar32, nk, lo, hi, map);
    /* step 5: the special registers the kernel reads after the variables,
     * then the constants */
    struct renum t = { .map = map };
    struct slot *all[OPREGS_MAX];
    uint32_t used = 0;
    for (unsigned i = 0; i < SR_COUNT; i++)
        t.sr[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned j = 0, ns = slots_of(&r->x[i], all); j < ns; j++)
            if (all[j]->cls == SC_32 && all[j]->idx >= r->nvar32 &&
                all[j]->idx < r->nvar32 + SR_COUNT)
                t.sr[all[j]->idx - r->nvar32] = 0;
    for (unsigned i = 0; i < SR_COUNT; i++)
        if (t.sr[i] == 0)
            t.sr[i] = p32 + used++;
    t.c32 = p32 + used;
    t.c64 = p64;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned j = 0, ns = slots_of(&r->x[i], all); j < ns; j++)
            renumber(r, all[j], &t);
    for (uint32_t i = 0; i < r->n_wslots; i++)
        renumber(r, &r->wslots[i], &t);
    r->n32 = r->n32 - r->nvar32 - SR_COUNT + p32 + used;
    r->n64 = r->n64 - r->nvar64 + p64;
    r->nvar32 = p32;
    r->nvar64 = p64;
    r->cbase32 = t.c32;
    memcpy(r->sr_slot, t.sr, sizeof r->sr_slot);
    r->funcs[0].n32 = p32;
    r->funcs[0].n64 = p64;
    free(map);
    free(lo);
    free(hi);
}
