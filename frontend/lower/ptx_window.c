/*
 * ptx_window.c - the unrolled loops' windows (see ptx_window.h).
 *
 * A window is PTX_UNROLL iterations of a loop mark_unrolled (ptx_lower.c)
 * tagged: copy c of the body issues every operation that is not folded
 * away, except the loop's control (counter, compare, branch, the pointer
 * steps ptxas folds into address offsets), which only the last copy
 * issues.  Its plan:
 *  - renaming: a register an operation of copies 0 .. PTX_UNROLL - 2
 *    writes gets a fresh timing id (one no operation of the kernel uses);
 *    the last copy writes the original ids, so what the loop leaves for
 *    the code after it, and the next window reads, is where it was;
 *  - order: a list schedule of the copies' operations under their
 *    dependences (a register read after its write, written after its
 *    reads and writes; a store after, and before, every other memory
 *    access; the branch last) that takes the loads first, then what
 *    computes a load's operands, then the rest, each in execution order,
 *    while the values it makes fit the registers the loop leaves (the
 *    launch's regs less 3, as ptx_sched.c counts them, less the body's
 *    live-in values); at that limit, what frees the most registers first.
 *    That is ptxas's unrolled body to the first order (its allocator is
 *    not modelled, only its count).
 * Invariant: every dependence of the execution order holds in the plan's
 * order (the list schedule places an operation only after all it depends
 * on).
 */
#include "frontend/lower/ptx_window.h"

#include <stdlib.h>
#include <string.h>

#include "frontend/lower/ptx_lower_emit.h"
#include "sim/error.h"

/* Priority classes of the list schedule. */
enum { WC_LOAD, WC_FEEDS_LOAD, WC_OTHER };

/* May x be issued out of its execution order within the window? */
static bool
movable(const struct xop *x)
{
    switch (x->kind) {
    case XK_ALU:
    case XK_PARAM:
    case XK_LD:
    case XK_ST:
    case XK_TIMING:
    case XK_MMA:
    case XK_LDMATRIX:
        return true;
    default:
        return false;
    }
}

static bool
is_load(const struct xop *x)
{
    return x->kind == XK_LD || x->kind == XK_LDMATRIX;
}

static bool
is_mem(const struct xop *x)
{
    return x->kind == XK_LD || x->kind == XK_ST || x->kind == XK_LDMATRIX;
}

/* Registers a value of timing id `id` takes: predicates none, 64-bit
 * values two (ptx_decode.c numbers predicates, then 32-bit, then 64-bit
 * registers; an expansion's temporaries are 32-bit). */
static unsigned
id_regs(const struct ptx_run *r, uint16_t id)
{
    if (id >= PTX_TMP_BASE)
        return id < SIM_REG_ACC_BASE ? 1 : 0;
    return id < r->id32 ? 0 : id < r->id64 ? 1 : 2;
}

/* Does id list a (na ids) share an id with b (nb ids)? */
static bool
share(const uint16_t *a, unsigned na, const uint16_t *b, unsigned nb)
{
    for (unsigned i = 0; i < na; i++)
        for (unsigned j = 0; j < nb; j++)
            if (a[i] == b[j])
                return true;
    return false;
}

/* The window of the loop whose back branch is x[e], into w, renaming into
 * timing ids from fresh up.  False when it has none. */
static bool
plan_loop(const struct ptx_run *r, uint32_t e, uint16_t fresh, struct ptx_window *w)
{
    const struct xop *x = r->x;
    uint32_t h = (uint32_t)x[e].target;
    for (uint32_t j = h; j < e; j++)
        if (!movable(&x[j]))
            return false;
    for (uint32_t j = 0; j < r->n_x; j++)      /* one basic block: no label inside */
        if (x[j].target > (int32_t)h && x[j].target <= (int32_t)e)
            return false;
    uint32_t n = 0;
    for (unsigned c = 0; c < PTX_UNROLL; c++)
        for (uint32_t j = h; j <= e; j++)
            n += !x[j].silent && (x[j].unroll == 0 || c == PTX_UNROLL - 1);
    if (n < 2 || n > PTX_WIN_MAX)
        return false;
    uint32_t *xop = xmalloc(n * sizeof *xop);
    uint16_t *ids = xcalloc((size_t)n * PTX_WIN_IDS, sizeof *ids);
    uint8_t *copy = xmalloc(n);
    uint8_t *width = xcalloc((size_t)n * SIM_MAX_DST, 1);   /* registers of each dst */
    /* renaming: from[m] (an original id) is to[m] in the current copy */
    uint16_t *from = xmalloc((size_t)n * SIM_MAX_DST * sizeof *from);
    uint16_t *to = xmalloc((size_t)n * SIM_MAX_DST * sizeof *to);
    unsigned nren = 0;
    uint32_t k = 0, n_mem = 0;
    bool ok = true;
    for (unsigned c = 0; c < PTX_UNROLL && ok; c++)
        for (uint32_t j = h; j <= e && ok; j++) {
            const struct xop *o = &x[j];
            if (o->silent || (o->unroll != 0 && c != PTX_UNROLL - 1))
                continue;
            xop[k] = j;
            copy[k] = (uint8_t)c;
            n_mem += is_mem(o);
            uint16_t *d = ids + (size_t)k * PTX_WIN_IDS, *s = d + SIM_MAX_DST;
            for (unsigned q = 0; q < o->n_src; q++) {
                s[q] = o->src[q];
                for (unsigned m = 0; m < nren; m++)
                    if (from[m] == o->src[q])
                        s[q] = to[m];
            }
            for (unsigned q = 0; q < o->n_dst; q++) {
                uint16_t id = o->dst[q], nm = id;
                if (c != PTX_UNROLL - 1 && id < SIM_REG_ACC_BASE) {
                    if (fresh >= PTX_TMP_BASE) {
                        ok = false;
                        break;
                    }
                    nm = fresh++;
                }
                unsigned m = 0;
                while (m < nren && from[m] != id)
                    m++;
                if (m == nren)
                    from[nren++] = id;
                to[m] = nm;
                d[q] = nm;
                width[(size_t)k * SIM_MAX_DST + q] = (uint8_t)id_regs(r, id);
            }
            k++;
        }
    free(from);
    free(to);
    /* dependences, pred[k * n + i]: i must issue before k */
    uint8_t *pred = ok ? xcalloc((size_t)n * n, 1) : NULL;
    for (uint32_t b = 0; ok && b < n; b++) {
        const struct xop *ob = &x[xop[b]];
        const uint16_t *db = ids + (size_t)b * PTX_WIN_IDS, *sb = db + SIM_MAX_DST;
        for (uint32_t a = 0; a < b; a++) {
            const struct xop *oa = &x[xop[a]];
            const uint16_t *da = ids + (size_t)a * PTX_WIN_IDS, *sa = da + SIM_MAX_DST;
            bool dep = share(da, oa->n_dst, sb, ob->n_src) ||      /* read after write */
                       share(sa, oa->n_src, db, ob->n_dst) ||      /* write after read */
                       share(da, oa->n_dst, db, ob->n_dst) ||      /* write after write */
                       (is_mem(oa) && is_mem(ob) && (oa->kind == XK_ST || ob->kind == XK_ST)) ||
                       ob->kind == XK_BRA || !movable(ob);
            pred[(size_t)b * n + a] = dep;
        }
    }
    /* classes: loads, what a load depends on, the rest */
    uint8_t *cls = xmalloc(n);
    for (uint32_t i = n; ok && i-- > 0;) {
        cls[i] = is_load(&x[xop[i]]) ? WC_LOAD : WC_OTHER;
        for (uint32_t b = i + 1; b < n && cls[i] == WC_OTHER; b++)
            if (pred[(size_t)b * n + i] && cls[b] != WC_OTHER && x[xop[b]].kind != XK_BRA)
                cls[i] = WC_FEEDS_LOAD;
    }
    /* registers: the kernel's (ptxas's allocation for the unrolled body,
     * less 3 as ptx_sched.c counts it: R1 and two never used) less those
     * the loop keeps live throughout (what its body reads before writing:
     * invariants, pointers, accumulators); the values a window's
     * operations make beyond that may be live at once, at least 4 */
    unsigned base = 0;
    uint16_t *seen = xmalloc(((size_t)n * PTX_WIN_IDS + 1) * sizeof *seen);
    unsigned nseen = 0;
    for (uint32_t b = 0; ok && b < n && copy[b] == 0; b++) {
        const struct xop *o = &x[xop[b]];
        for (unsigned q = 0; q < o->n_src; q++) {
            uint16_t id = o->src[q];
            bool dup = false;
            for (unsigned m = 0; m < nseen && !dup; m++)
                dup = seen[m] == id;
            if (!dup) {
                seen[nseen++] = id;
                base += id_regs(r, id);
            }
        }
        for (unsigned q = 0; q < o->n_dst; q++)    /* written first: not live in */
            seen[nseen++] = o->dst[q];
    }
    free(seen);
    unsigned budget = r->l->regs > 3 ? r->l->regs - 3 : 0;   /* as ptx_sched.c's */
    unsigned cap = budget > base + 4 ? budget - base : 4;
    /* def[b * SIM_MAX_SRC + q]: the value source q of b reads, as a
     * producer's a * SIM_MAX_DST + its dst (-1: made before the window);
     * readers[a * SIM_MAX_DST + v]: the operations that read it */
    int32_t *def = xmalloc((size_t)n * SIM_MAX_SRC * sizeof *def);
    uint16_t *readers = xcalloc((size_t)n * SIM_MAX_DST, sizeof *readers);
    for (uint32_t b = 0; ok && b < n; b++) {
        const struct xop *ob = &x[xop[b]];
        const uint16_t *sb = ids + (size_t)b * PTX_WIN_IDS + SIM_MAX_DST;
        for (unsigned q = 0; q < SIM_MAX_SRC; q++) {
            int32_t at = -1;
            for (uint32_t a = b; q < ob->n_src && at < 0 && a-- > 0;) {
                const uint16_t *da = ids + (size_t)a * PTX_WIN_IDS;
                for (unsigned v = 0; v < x[xop[a]].n_dst; v++)
                    if (da[v] == sb[q])
                        at = (int32_t)(a * SIM_MAX_DST + v);
            }
            def[(size_t)b * SIM_MAX_SRC + q] = at;
            if (at >= 0)
                readers[at]++;
        }
    }
    uint16_t *order = xmalloc(n * sizeof *order);
    uint8_t *placed = xcalloc(n, 1);
    unsigned live = 0;
    for (uint32_t p = 0; ok && p < n; p++) {
        /* below the register limit: loads, what feeds them, the rest; at
         * it, what frees the most registers (the arithmetic that reads
         * the loaded values for the last time), loads last */
        uint32_t best = n;
        long best_key = 0;
        for (uint32_t b = 0; b < n; b++) {
            if (placed[b])
                continue;
            bool ready = true;
            for (uint32_t a = 0; a < b && ready; a++)
                ready = placed[a] || !pred[(size_t)b * n + a];
            if (!ready)
                continue;
            long key = cls[b];
            if (live >= cap) {
                const struct xop *ob = &x[xop[b]];
                long delta = 0;
                for (unsigned q = 0; q < ob->n_dst; q++)
                    if (readers[(size_t)b * SIM_MAX_DST + q] > 0)
                        delta += width[(size_t)b * SIM_MAX_DST + q];
                for (unsigned q = 0; q < ob->n_src; q++) {
                    int32_t at = def[(size_t)b * SIM_MAX_SRC + q];
                    if (at >= 0 && readers[at] == 1)
                        delta -= width[at];
                }
                key = (cls[b] == WC_LOAD ? 1000 : 0) + delta;
            }
            if (best == n || key < best_key) {
                best = b;
                best_key = key;
            }
        }
        if (best == n) {         /* cannot happen: execution order is a schedule */
            ok = false;
            break;
        }
        placed[best] = 1;
        order[p] = (uint16_t)best;
        /* its values become live; the values it reads for the last time die */
        const struct xop *ob = &x[xop[best]];
        for (unsigned q = 0; q < ob->n_dst; q++)
            if (readers[(size_t)best * SIM_MAX_DST + q] > 0)
                live += width[(size_t)best * SIM_MAX_DST + q];
        for (unsigned q = 0; q < ob->n_src; q++) {
            int32_t at = def[(size_t)best * SIM_MAX_SRC + q];
            if (at >= 0 && readers[at] > 0 && --readers[at] == 0)
                live -= width[at];
        }
    }
    free(def);
    free(readers);
    free(width);
    free(placed);
    free(cls);
    free(pred);
    free(copy);
    if (!ok) {
        free(xop);
        free(ids);
        free(order);
        return false;
    }
    w->n = n;
    w->n_mem = n_mem;
    w->xop = xop;
    w->order = order;
    w->ids = ids;
    return true;
}

void
ptx_window_plan(struct ptx_run *r)
{
    if (r->n_unroll == 0 || r->windows != NULL)
        return;
    /* fresh ids: above every id the kernel's operations use */
    uint32_t top = 0;
    for (uint32_t j = 0; j < r->n_x; j++) {
        const struct xop *o = &r->x[j];
        for (unsigned q = 0; q < o->n_dst; q++)
            if (o->dst[q] < PTX_TMP_BASE && o->dst[q] >= top)
                top = o->dst[q] + 1u;
        for (unsigned q = 0; q < o->n_src; q++)
            if (o->src[q] < PTX_TMP_BASE && o->src[q] >= top)
                top = o->src[q] + 1u;
    }
    r->windows = xcalloc(r->n_unroll, sizeof *r->windows);
    r->win_head = xcalloc(r->n_x ? r->n_x : 1, 1);
    for (uint32_t e = 0; e < r->n_x; e++) {
        const struct xop *b = &r->x[e];
        if (b->kind != XK_BRA || b->unroll == 0 || b->target < 0 || (uint32_t)b->target >= e)
            continue;
        struct ptx_window *w = &r->windows[b->unroll - 1];
        if (w->n != 0 || !plan_loop(r, e, (uint16_t)top, w))
            continue;
        r->win_head[w->xop[0]] = b->unroll;
        if (w->n_mem > r->win_mem)
            r->win_mem = w->n_mem;
        if (w->n > r->win_max)
            r->win_max = w->n;
    }
}
