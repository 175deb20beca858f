/*
 * ptx_sync.c - mbarrier, cp.async.bulk and elect.sync (ptx_sync.h).
 *
 * An mbarrier is 8 bytes of shared memory (PTX ISA 9.7.13.15).  Its layout
 * is opaque to programs; here: bits 0-19 the expected arrival count, 20-39
 * the arrivals still pending in the current phase, 40-60 the pending
 * transaction count (bytes, two's complement: a complete_tx may come
 * before its expect_tx), bit 63 the current phase's parity.  A phase
 * completes when no arrival and no transaction is pending; the next one
 * then expects the same count.  A wait (test_wait, try_wait) answers
 * whether the phase of the given parity (or of the given state) has
 * completed: the current phase never has, the one before always has.
 *
 * Functionally every operation is done when it executes: a bulk copy
 * moves its bytes and completes its transactions at once (a program may
 * not read them before its wait says so).  Time is the model's: each
 * block's barriers are numbered as the model's sync objects (sim/inst.h);
 * every arrive and every bulk copy is the next signal of its barrier's
 * object, and a wait that finds a phase complete waits (in the model) for
 * the signal that completed it.  A bulk copy shared to global belongs to
 * the warp's open bulk group (frontend/async.h).
 */
#include "frontend/exec/ptx_sync.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "frontend/exec/ptx_cluster.h"
#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_spin.h"
#include "frontend/exec/ptx_tma.h"

#define MB_COUNT_MAX ((1u << 20) - 1)
#define MB_TX_BITS 21

static uint32_t mb_expected(uint64_t v) { return (uint32_t)(v & MB_COUNT_MAX); }
static uint32_t mb_pending(uint64_t v) { return (uint32_t)(v >> 20 & MB_COUNT_MAX); }
static int32_t mb_tx(uint64_t v)
{
    uint32_t t = (uint32_t)(v >> 40 & ((1u << MB_TX_BITS) - 1));
    return (int32_t)(t << (32 - MB_TX_BITS)) >> (32 - MB_TX_BITS);
}
static unsigned mb_phase(uint64_t v) { return (unsigned)(v >> 63); }
static uint64_t
mb_make(uint32_t expected, uint32_t pending, int32_t tx, unsigned phase)
{
    return (uint64_t)expected | (uint64_t)pending << 20 |
           (uint64_t)((uint32_t)tx & ((1u << MB_TX_BITS) - 1)) << 40 | (uint64_t)phase << 63;
}

static int
serr(const struct ptx_run *r, const struct pblock *b, const struct pwarp *pw, const struct xop *x,
     struct sim_error *err, int code, const char *what)
{
    return sim_error_set(err, code, "%s:%u: kernel %s, block %" PRIu64 ", warp %u: %s", r->m->path,
                         x->line, r->k->name, b->id, pw->index, what);
}

/* The barrier at shared offset off: its index in b->mbar (a new one for
 * mbarrier.init), or -1 with *err set. */
static int
mbar_index(const struct ptx_run *r, struct pblock *b, const struct pwarp *pw, const struct xop *x,
           uint32_t off, bool init, struct sim_error *err)
{
    for (uint32_t i = 0; i < b->n_mbar; i++)
        if (b->mbar[i].off == off)
            return (int)i;
    if (!init) {
        char msg[160];
        snprintf(msg, sizeof msg, "mbarrier at shared offset %" PRIu32 " used before its "
                 "mbarrier.init", off);
        serr(r, b, pw, x, err, SIM_ERR_FORMAT, msg);
        return -1;
    }
    if (b->n_mbar == SIM_SYNC_OBJS) {
        serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED,
             "unsupported: more than 16 mbarriers in a block");
        return -1;
    }
    b->mbar[b->n_mbar] = (struct pmbar){ off, 0, { 0, 0 } };
    return (int)b->n_mbar++;
}

/* Count `arrivals` arrivals and `tx` more completed transaction bytes
 * (negative: expected) on barrier word *v; completing a phase records
 * signal sig as the one that completed it. */
static void
mb_update(uint64_t *v, struct pmbar *mb, uint32_t arrivals, int32_t tx, uint32_t sig)
{
    uint32_t pend = mb_pending(*v) - arrivals;
    int32_t t = mb_tx(*v) - tx;
    unsigned ph = mb_phase(*v);
    if (pend == 0 && t == 0) {
        mb->last_sig[ph] = sig;
        ph ^= 1u;
        pend = mb_expected(*v);
    }
    *v = mb_make(mb_expected(*v), pend, t, ph);
}

/* Tell the model: *wi is kind (enum sim_sync) of signal sig of barrier obj. */
static void
set_sync(struct warp_inst *wi, unsigned kind, int obj, uint32_t sig)
{
    wi->sync = (uint8_t)kind;
    wi->sync_obj = (uint8_t)(obj < 0 ? 0 : obj);
    wi->aux = sig;
}

/* Lane l's barrier of x at [base + off]: its memory in *ac, its index in
 * *obj (a new one for mbarrier.init), which the lanes before it gave too
 * (*obj >= 0). */
static int
lane_barrier(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
             const struct slot *base, int64_t off, unsigned l, bool init, int *obj,
             struct ptx_access *ac, struct warp_inst *wi, struct sim_error *err)
{
    sim_addr_t a = lane_slot_addr(pw, base, off, l, true);
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, a, 8, x, ac, err));
    if (wi != NULL)
        wi->addr[l] = ac->taddr;
    int k = mbar_index(r, b, pw, x, (uint32_t)a, init, err);
    if (k < 0)
        return err->code;
    if (*obj >= 0 && k != *obj)
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: lanes of one "
                    "mbarrier instruction on different barriers");
    *obj = k;
    return SIM_OK;
}

/* A wait (test_wait, try_wait) of lanes m: *done = the lanes whose phase
 * has completed, *sig = the signal that completed it (0: none numbered,
 * the phase before a barrier's first), *obj = the barrier. */
static int
eval_wait(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
          struct warp_inst *wi, uint32_t *done, uint32_t *sig, int *obj, struct sim_error *err)
{
    *done = 0;
    *sig = 0;
    *obj = -1;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        struct ptx_access ac;
        SIM_FORWARD_IF_ERROR(lane_barrier(r, b, pw, x, &x->base, x->off, l, false, obj, &ac, wi,
                                          err));
        int k = *obj;
        uint64_t v;
        memcpy(&v, ac.p, 8);
        uint64_t n = lane_get(pw, &x->a, l);
        unsigned p = (x->flags & PF_PARITY) ? (unsigned)(n & 1u) : mb_phase(n);
        if (p != mb_phase(v)) {  /* the phase of parity p is the one before the current */
            *done |= 1u << l;
            *sig = b->mbar[k].last_sig[p];
        }
    }
    return SIM_OK;
}

/* Execute a wait of lanes m: its predicate, and what the model waits for. */
static int
commit_wait(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
            struct warp_inst *wi, struct sim_error *err)
{
    uint32_t done, sig;
    int obj;
    SIM_FORWARD_IF_ERROR(eval_wait(r, b, pw, x, m, wi, &done, &sig, &obj, err));
    pred_write(pw, &x->d, m, done);
    if (done != 0 && sig != 0)
        set_sync(wi, SIM_SYNC_WAIT, obj, sig);
    else if (done != m && r->now == SIM_CYCLE_MAX)
        set_sync(wi, SIM_SYNC_WAITING, obj, 0);   /* no timing model: let the others run */
    else
        set_sync(wi, SIM_SYNC_NONE, 0, 0);
    return SIM_OK;
}

static int
exec_mbar(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
          struct warp_inst *wi, struct sim_error *err)
{
    unsigned md = x->mode;
    wi->space = SIM_SPACE_SHARED;
    wi->width = 8;
    if (md == PM_MB_TEST || md == PM_MB_TRY) {
        if (r->now == SIM_CYCLE_MAX)     /* no timing model: decided now */
            return commit_wait(r, b, pw, x, m, wi, err);
        /* the model decides it when it issues (sim/inst.h, SIM_SYNC_POLL) */
        uint32_t done, sig;
        int obj;
        SIM_FORWARD_IF_ERROR(eval_wait(r, b, pw, x, m, wi, &done, &sig, &obj, err));
        pw->poll = (int32_t)(x - r->x);
        pw->poll_mask = m;
        set_sync(wi, SIM_SYNC_POLL, obj, md == PM_MB_TRY ? SIM_POLL_TRY : SIM_POLL_TEST);
        return SIM_OK;
    }
    int obj = -1;
    uint32_t sig = 0;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        struct ptx_access ac;
        SIM_FORWARD_IF_ERROR(lane_barrier(r, b, pw, x, &x->base, x->off, l, md == PM_MB_INIT,
                                          &obj, &ac, wi, err));
        struct pmbar *mb = &b->mbar[obj];
        uint64_t v;
        memcpy(&v, ac.p, 8);
        uint32_t n = x->a.cls != SC_NONE ? (uint32_t)lane_get(pw, &x->a, l) : 1;
        switch (md) {
        case PM_MB_INIT:
            if (n == 0 || n > MB_COUNT_MAX)
                return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "mbarrier.init: the count must be "
                            "1 .. 2^20 - 1");
            v = mb_make(n, n, 0, 0);
            break;
        case PM_MB_INVAL:
            v = 0;
            break;
        case PM_MB_EXPECT_TX:
            v = mb_make(mb_expected(v), mb_pending(v), mb_tx(v) + (int32_t)n, mb_phase(v));
            break;
        default: {               /* arrive, arrive.expect_tx, complete_tx */
            if (sig == 0)
                sig = ++mb->signals;
            if (x->d.cls != SC_NONE)
                lane_set(pw, &x->d, l, v);   /* the state: the phase it arrived in */
            uint32_t arrivals = md == PM_MB_COMPLETE_TX ? 0 : md == PM_MB_ARRIVE ? n : 1;
            int32_t tx = md == PM_MB_COMPLETE_TX ? (int32_t)n
                         : md == PM_MB_ARRIVE_TX ? -(int32_t)n : 0;
            if (arrivals > mb_pending(v))
                return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "mbarrier arrive: more arrivals "
                            "than the phase expects");
            mb_update(&v, mb, arrivals, tx, sig);
            break;
        }
        }
        memcpy(ac.p, &v, 8);
        ptx_spin_memory_changed(r);
    }
    if (sig != 0)
        set_sync(wi, SIM_SYNC_SIGNAL, obj, sig);
    return SIM_OK;
}

static int bulk_done(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                     unsigned l, bool g2s, uint32_t n, struct warp_inst *wi,
                     struct sim_error *err);

static int
exec_bulk(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
          struct warp_inst *wi, struct sim_error *err)
{
    if (m == 0)
        return SIM_OK;
    if (m & (m - 1))
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: cp.async.bulk from "
                    "more than one lane of a warp at once");
    unsigned l = (unsigned)__builtin_ctz(m);
    bool g2s = (x->iflags & SIM_IF_LOAD) != 0;
    uint32_t n;
    if (x->flags & PF_TENSOR) {  /* cp.async.bulk.tensor: ptx_tma.c */
        SIM_FORWARD_IF_ERROR(ptx_tma_copy(r, b, pw, x, l, wi, &n, err));
        if (x->iflags == 0)
            return SIM_OK;       /* a prefetch */
        return bulk_done(r, b, pw, x, l, g2s, n, wi, err);
    }
    n = (uint32_t)lane_get(pw, &x->a, l);
    sim_addr_t ga = lane_slot_addr(pw, &x->base, x->off, l, false);
    sim_addr_t sa = lane_slot_addr(pw, &x->base2, x->off2, l, true);
    if (n == 0 || n % 16 != 0 || ga % 16 != 0 || sa % 16 != 0)
        return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "cp.async.bulk: the size and both "
                    "addresses must be multiples of 16 bytes");
    struct ptx_access gac, sac;
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, ga, n, x, &gac, err));
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, n, x, &sac, err));
    if (g2s)
        memmove(sac.p, gac.p, n);
    else
        memmove(gac.p, sac.p, n);
    ptx_spin_memory_changed(r);
    wi->space = SIM_SPACE_GLOBAL;
    wi->width = 16;
    wi->bulk = SIM_BULK_COPY;
    wi->active_mask = 1u << l;
    wi->addr[0] = gac.taddr;     /* the bulk fields (sim/inst.h, enum sim_bulk) */
    wi->addr[1] = n;
    return bulk_done(r, b, pw, x, l, g2s, n, wi, err);
}

/* A bulk copy of n bytes by lane l has moved its data: a store joins the
 * warp's bulk group; a load completes n bytes of its mbarrier's
 * transactions. */
static int
bulk_done(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
          bool g2s, uint32_t n, struct warp_inst *wi, struct sim_error *err)
{
    if (!g2s) {                  /* its bulk group's register */
        wi->n_dst = 1;
        wi->dst[0] = bulk_reg(pw->bulk_groups);
        return SIM_OK;
    }
    /* complete n bytes of the mbarrier's transactions */
    struct ptx_access mac;
    int k = -1;
    SIM_FORWARD_IF_ERROR(lane_barrier(r, b, pw, x, &x->base3, x->off3, l, false, &k, &mac, NULL,
                                      err));
    struct pmbar *mb = &b->mbar[k];
    uint64_t v;
    memcpy(&v, mac.p, 8);
    uint32_t sig = ++mb->signals;
    mb_update(&v, mb, 0, (int32_t)n, sig);
    memcpy(mac.p, &v, 8);
    set_sync(wi, SIM_SYNC_SIGNAL, k, sig);
    return SIM_OK;
}

/* elect.sync d|p, membermask: the lowest active lane of membermask leads;
 * every lane gets its index in d, and p is true in the leader alone. */
static void
exec_elect(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    uint32_t leader = 0, mask = 0;
    LANES(m, { mask = (uint32_t)lane_get(pw, &x->a, l); });
    uint32_t cand = m & mask;
    uint32_t p = 0;
    if (cand != 0) {
        leader = (uint32_t)__builtin_ctz(cand);
        p = 1u << leader;
    }
    LANES(m, { lane_set(pw, &x->d, l, leader); });
    pred_write(pw, &x->d2, m, p);
}

int
ptx_sync_poll(struct ptx_run *r, uint32_t slot, uint32_t warp, uint32_t *sig)
{
    struct pblock *b = &r->blocks[slot];
    struct pwarp *pw = &b->warps[warp];
    if (pw->poll < 0)
        return 0;
    if (r->x[pw->poll].kind == XK_CLWAIT) {   /* barrier.cluster.wait (ptx_cluster.c) */
        *sig = 0;
        if (!ptx_cluster_wait_done(r, b, pw))
            return 0;
        return b->cluster >= 0 && r->clusters[b->cluster].last_release ? 2 : 1;
    }
    uint32_t done;
    int obj;
    struct sim_error err;
    if (eval_wait(r, b, pw, &r->x[pw->poll], pw->poll_mask, NULL, &done, sig, &obj, &err) != SIM_OK)
        return 1;                /* commit reports it */
    return done == pw->poll_mask;
}

int
ptx_sync_commit(struct ptx_run *r, uint32_t slot, uint32_t warp, bool complete,
                struct warp_inst *wi, struct sim_error *err)
{
    struct pblock *b = &r->blocks[slot];
    struct pwarp *pw = &b->warps[warp];
    if (pw->poll < 0)
        return sim_error_set(err, SIM_ERR_INTERNAL, "no mbarrier wait pending in warp %u", warp);
    const struct xop *x = &r->x[pw->poll];
    uint32_t m = pw->poll_mask;
    pw->poll = -1;
    if (x->kind == XK_CLWAIT) {  /* issued once complete (a blocking poll) */
        pw->cl_waits++;
        set_sync(wi, SIM_SYNC_NONE, 0, 0);
        return SIM_OK;
    }
    if (complete)
        return commit_wait(r, b, pw, x, m, wi, err);
    pred_write(pw, &x->d, m, 0);  /* timed out (try_wait) or not yet (test_wait): false */
    set_sync(wi, SIM_SYNC_NONE, 0, 0);
    return SIM_OK;
}

int
ptx_sync_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
              uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    switch (x->kind) {
    case XK_MBAR:
        return m != 0 ? exec_mbar(r, b, pw, x, m, wi, err) : SIM_OK;
    case XK_BULK:
        return exec_bulk(r, b, pw, x, m, wi, err);
    default:
        exec_elect(pw, x, m);
        return SIM_OK;
    }
}
