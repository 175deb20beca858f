/*
 * ptx_sync.c - mbarrier, cp.async.bulk and elect.sync (ptx_sync.h).
 *
 * An mbarrier is 8 bytes of shared memory (PTX ISA 9.7.13.15).  Its layout
 * is opaque to programs; here: bits 0-19 the expected arrival count, 20-39
 * the arrivals still pending in the current phase, 40-60 the pending
 * transaction count (bytes, two's complement: a complete_tx may come
 * before its expect_tx), bit 63 the current phase's parity.  A phase
 * completes when no arrival and no transaction is pending; the next one
 * then expects the same count, less the arrivals of arrive_drop (which
 * also leave the current phase's count).  A wait (test_wait, try_wait) answers
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
 * the warp's open bulk group (frontend/async.h).  cp.async.mbarrier.arrive
 * is an arrive whose signal is done when the warp's copies in flight have
 * landed (SIM_SYNC_SIGNAL_ASYNC); functionally they have when it executes.
 *
 * Across a cluster: an arrive or complete_tx at another block's barrier
 * (a shared::cluster address), a multicast copy's transactions at each
 * block of its ctaMask and a shared-to-shared copy's at its destination's
 * are signals of that block's object, numbered in its sequence; the
 * instruction carries them to the model as remote signals (sim/inst.h),
 * done when it completes.  cp.reduce.async.bulk combines each element
 * with the destination's as red does (ptx_atom_apply).
 */
#include "frontend/exec/ptx_sync.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_cluster.h"
#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_spin.h"
#include "frontend/exec/ptx_tma.h"

#define MB_COUNT_MAX ((1u << PTX_MB_COUNT_BITS) - 1)
#define MB_TX_BITS 21

static uint32_t mb_expected(uint64_t v) { return (uint32_t)(v & MB_COUNT_MAX); }
static uint32_t mb_pending(uint64_t v) { return (uint32_t)(v >> PTX_MB_PENDING_POS & MB_COUNT_MAX); }
static int32_t mb_tx(uint64_t v)
{
    uint32_t t = (uint32_t)(v >> 40 & ((1u << MB_TX_BITS) - 1));
    return (int32_t)(t << (32 - MB_TX_BITS)) >> (32 - MB_TX_BITS);
}
static unsigned mb_phase(uint64_t v) { return (unsigned)(v >> 63); }
static uint64_t
mb_make(uint32_t expected, uint32_t pending, int32_t tx, unsigned phase)
{
    return (uint64_t)expected | (uint64_t)pending << PTX_MB_PENDING_POS |
           (uint64_t)((uint32_t)tx & ((1u << MB_TX_BITS) - 1)) << 40 | (uint64_t)phase << 63;
}

static int
serr(const struct ptx_run *r, const struct pblock *b, const struct pwarp *pw, const struct xop *x,
     struct sim_error *err, int code, const char *what)
{
    return sim_error_set(err, code, "%s:%u: kernel %s, block %" PRIu64 ", warp %u: %s", r->m->path,
                         x->line, r->k->name, b->id, pw->index, what);
}

/* The barrier at offset off of block o's shared memory (b: the block
 * executing x): its index in o->mbar (a new one for mbarrier.init), or -1
 * with *err set. */
static int
mbar_index(const struct ptx_run *r, struct pblock *b, struct pblock *o, const struct pwarp *pw,
           const struct xop *x, uint32_t off, bool init, struct sim_error *err)
{
    for (uint32_t i = 0; i < o->n_mbar; i++)
        if (o->mbar[i].off == off)
            return (int)i;
    if (!init) {
        char msg[160];
        snprintf(msg, sizeof msg, "mbarrier at shared offset %" PRIu32 "%s used before its "
                 "mbarrier.init", off, o != b ? " of another block of the cluster" : "");
        serr(r, b, pw, x, err, SIM_ERR_FORMAT, msg);
        return -1;
    }
    if (o->n_mbar == SIM_SYNC_OBJS) {
        serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED,
             "unsupported: more than 32 mbarriers in a block");
        return -1;
    }
    o->mbar[o->n_mbar] = (struct pmbar){ off, 0, { 0, 0 } };
    return (int)o->n_mbar++;
}

/* Record, for the timing model, that x's instruction gives signal sig of
 * barrier obj of block peer, another block of the cluster: as remote
 * signal `pos` of *wi (sim/inst.h, SIM_RSIG). */
static int
remote_signal(const struct ptx_run *r, const struct pblock *b, const struct pwarp *pw,
              const struct xop *x, struct warp_inst *wi, unsigned pos, const struct pblock *peer,
              int obj, uint32_t sig, struct sim_error *err)
{
    if (peer->id > UINT32_MAX || sig > SIM_RSIG_MAX_SIG)
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: a signal to another "
                    "block's mbarrier in a grid of over 2^32 blocks or after 2^27 signals");
    wi->addr[pos] = SIM_RSIG(peer->id, (unsigned)obj, sig);
    wi->rsig_mask |= 1u << pos;
    return SIM_OK;
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

/* Is x a cp.async.mbarrier.arrive{.noinc}? */
static bool
cp_arrive(const struct xop *x)
{
    return x->mode == PM_CP_MB_ARRIVE || x->mode == PM_CP_MB_NOINC;
}

/* The barrier at shared (or shared::cluster) address a, as lane l of x
 * uses it: its memory in *ac (ac->owner: the block it belongs to), its
 * index in *k (a new one for mbarrier.init).  Only arrives, expect_tx and
 * complete_tx may name another block's (PTX ISA 9.7.13.15). */
static int
find_barrier(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
             sim_addr_t a, unsigned l, bool init, int *k, struct ptx_access *ac,
             struct sim_error *err)
{
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, a, 8, x, ac, err));
    bool remote_ok = x->kind == XK_BULK || (x->xmod & PX_ASYNC) ||
                     (x->kind == XK_MBAR && x->mode != PM_MB_INIT &&
                                            x->mode != PM_MB_INVAL && x->mode != PM_MB_TEST &&
                                            x->mode != PM_MB_TRY && !cp_arrive(x));
    if (ac->owner != b && !remote_ok)
        return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "mbarrier.init, .inval, .test_wait, "
                    ".try_wait and cp.async.mbarrier.arrive take a barrier of the executing "
                    "block (.shared::cta), not another block's");
    *k = mbar_index(r, b, ac->owner, pw, x, (uint32_t)ac->taddr, init, err);
    return *k < 0 ? err->code : SIM_OK;
}

/* Lane l's barrier of x at [base + off], the executing block's: its
 * memory in *ac, its index in *obj (a new one for mbarrier.init), which
 * the lanes before it gave too (*obj >= 0). */
static int
lane_barrier(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
             const struct slot *base, int64_t off, unsigned l, bool init, int *obj,
             struct ptx_access *ac, struct warp_inst *wi, struct sim_error *err)
{
    sim_addr_t a = lane_slot_addr(pw, base, off, l, true);
    int k;
    SIM_FORWARD_IF_ERROR(find_barrier(r, b, pw, x, a, l, init, &k, ac, err));
    if (wi != NULL)
        wi->addr[l] = ac->taddr;
    if (*obj >= 0 && k != *obj)
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: lanes of one "
                    "mbarrier instruction on different barriers of their block");
    *obj = k;
    return SIM_OK;
}

/* The barriers one instruction's lanes signal, one signal each (0: none
 * given yet). */
struct bar_set {
    unsigned n;
    struct { struct pblock *o; int k; uint32_t sig; } e[32];
};

/* Lane l's barrier of x at [base + off] (a shared::cluster address may
 * name another block's): its memory in *ac, its entry in set in *i. */
static int
set_barrier(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
            const struct slot *base, int64_t off, unsigned l, bool init, struct bar_set *set,
            unsigned *i, struct ptx_access *ac, struct sim_error *err)
{
    int k;
    SIM_FORWARD_IF_ERROR(find_barrier(r, b, pw, x, lane_slot_addr(pw, base, off, l, true), l,
                                      init, &k, ac, err));
    unsigned j = 0;
    while (j < set->n && (set->e[j].o != ac->owner || set->e[j].k != k))
        j++;
    if (j == set->n) {
        set->e[j].o = ac->owner;
        set->e[j].k = k;
        set->e[j].sig = 0;
        set->n++;
    }
    *i = j;
    return SIM_OK;
}

/* Signal sig of barrier k of block o, given by x: the executing block's
 * in *wi's sync fields (one such barrier an instruction), another block's
 * as remote signal `pos` (sim/inst.h). */
static int
give_signal(const struct ptx_run *r, struct pblock *b, const struct pwarp *pw, const struct xop *x,
            const struct pblock *o, int k, uint32_t sig, unsigned pos, struct warp_inst *wi,
            struct sim_error *err)
{
    if (o != b)
        return remote_signal(r, b, pw, x, wi, pos, o, k, sig, err);
    if (wi->sync != SIM_SYNC_NONE)
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: lanes of one "
                    "instruction on different mbarriers of their block");
    set_sync(wi, SIM_SYNC_SIGNAL, k, sig);
    return SIM_OK;
}

/* Complete n transaction bytes of barrier mb, whose word is at p, as
 * signal sig. */
static void
mb_complete(uint8_t *p, struct pmbar *mb, uint32_t n, uint32_t sig)
{
    uint64_t v;
    memcpy(&v, p, 8);
    mb_update(&v, mb, 0, (int32_t)n, sig);
    memcpy(p, &v, 8);
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

/* Execute a wait of lanes m as eval_wait() found it: its predicate, and
 * what the model waits for. */
static void
wait_result(const struct ptx_run *r, struct pwarp *pw, const struct xop *x, uint32_t m,
            uint32_t done, uint32_t sig, int obj, struct warp_inst *wi)
{
    pred_write(pw, &x->d, m, done);
    if (done != m)               /* what follows retries it (ptx_counters.wait_retries) */
        pw->retry_at = (int32_t)(x - r->x);
    if (done != 0 && sig != 0)
        set_sync(wi, SIM_SYNC_WAIT, obj, sig);
    else if (done != m && r->now == SIM_CYCLE_MAX)
        set_sync(wi, SIM_SYNC_WAITING, obj, 0);   /* no timing model (a test_wait): let the
                                                     others run */
    else
        set_sync(wi, SIM_SYNC_NONE, 0, 0);
}

/* Execute a wait of lanes m. */
static int
commit_wait(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
            struct warp_inst *wi, struct sim_error *err)
{
    uint32_t done, sig;
    int obj;
    SIM_FORWARD_IF_ERROR(eval_wait(r, b, pw, x, m, wi, &done, &sig, &obj, err));
    wait_result(r, pw, x, m, done, sig, obj, wi);
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
        uint32_t done, sig;
        int obj;
        SIM_FORWARD_IF_ERROR(eval_wait(r, b, pw, x, m, wi, &done, &sig, &obj, err));
        if (SIM_UNTIMED(r->now)) {       /* no timing model: decided now */
            if (md == PM_MB_TRY && r->now != SIM_CYCLE_TIMEOUT && done != m)
                /* a try_wait suspends until its phase completes: until
                 * then it is not executed (sim/inst.h, SIM_SYNC_BLOCKED),
                 * unless nothing else can move (it times out) */
                set_sync(wi, SIM_SYNC_BLOCKED, obj, 0);
            else
                wait_result(r, pw, x, m, done, sig, obj, wi);
            return SIM_OK;
        }
        /* the model decides it when it issues (sim/inst.h, SIM_SYNC_POLL) */
        pw->poll = (int32_t)(x - r->x);
        pw->poll_mask = m;
        set_sync(wi, SIM_SYNC_POLL, obj, md == PM_MB_TRY ? SIM_POLL_TRY : SIM_POLL_TEST);
        return SIM_OK;
    }
    /* the executing block's barrier (every such lane the same one) and,
     * at shared::cluster addresses, other blocks' (whose lanes get no
     * timing addresses): a signal per barrier */
    struct bar_set set = { 0 };
    int obj = -1;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm), i;
        struct ptx_access ac;
        SIM_FORWARD_IF_ERROR(set_barrier(r, b, pw, x, &x->base, x->off, l, md == PM_MB_INIT,
                                         &set, &i, &ac, err));
        struct pblock *o = ac.owner;
        int k = set.e[i].k;
        uint32_t *lsig = &set.e[i].sig;
        if (o == b) {
            if (obj >= 0 && k != obj)
                return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: lanes of one "
                            "mbarrier instruction on different barriers of their block");
            obj = k;
            wi->addr[l] = ac.taddr;
        } else {
            wi->remote = 1;      /* a DSMEM access */
        }
        struct pmbar *mb = &o->mbar[k];
        uint64_t v;
        memcpy(&v, ac.p, 8);
        uint32_t n = x->a.cls != SC_NONE ? (uint32_t)lane_get(pw, &x->a, l) : 1;
        bool fresh = false;      /* this lane gives the barrier its signal */
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
            if (*lsig == 0) {
                *lsig = ++mb->signals;
                fresh = true;
            }
            if (x->d.cls != SC_NONE && o == b)
                lane_set(pw, &x->d, l, v);   /* the state: the phase it arrived in */
            /* cp.async.mbarrier.arrive adds an arrival the phase expects
             * and arrives once the thread's copies have landed (here: they
             * have, functionally): no count changes, but the phase cannot
             * complete before the copies land, which its signal (below)
             * makes the model wait for; .noinc arrives on the phase's
             * count */
            uint32_t arrivals = md == PM_MB_COMPLETE_TX || md == PM_CP_MB_ARRIVE ? 0
                                : md == PM_MB_ARRIVE ? n : 1;
            int32_t tx = md == PM_MB_COMPLETE_TX ? (int32_t)n
                         : md == PM_MB_ARRIVE_TX ? -(int32_t)n : 0;
            if (arrivals > mb_pending(v))
                return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "mbarrier arrive: more arrivals "
                            "than the phase expects");
            if (x->xmod & PX_DROP)   /* arrivals <= pending <= expected; an expected
                                        count of 0 leaves phases no arrive completes */
                v = mb_make(mb_expected(v) - arrivals, mb_pending(v), mb_tx(v), mb_phase(v));
            unsigned ph = mb_phase(v);
            mb_update(&v, mb, arrivals, tx, *lsig);
            if ((x->xmod & PX_NO_COMPLETE) && mb_phase(v) != ph)
                return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "mbarrier arrive .noComplete "
                            "completed the phase (undefined in the PTX ISA)");
            break;
        }
        }
        memcpy(ac.p, &v, 8);
        ptx_spin_memory_changed(r);
        if (fresh) {
            SIM_FORWARD_IF_ERROR(give_signal(r, b, pw, x, o, k, *lsig, l, wi, err));
            if (cp_arrive(x))    /* done when the warp's copies have landed */
                wi->sync = SIM_SYNC_SIGNAL_ASYNC;
        }
    }
    return SIM_OK;
}

/* Shared address a (an offset in a block's shared memory, or a
 * shared::cluster address) as the same offset in the block of cluster
 * rank `rank`: a shared::cluster address. */
static sim_addr_t
at_rank(sim_addr_t a, uint32_t rank)
{
    return (sim_addr_t)(rank + 1) << PTX_CLUSTER_SHIFT | (a & ((1u << PTX_CLUSTER_SHIFT) - 1));
}

/* Complete n bytes of the transactions of the mbarrier at shared (or
 * shared::cluster) address a, as lane l of bulk copy x: the executing
 * block's barrier is the local signal of *wi, another block's its remote
 * signal 16 + that block's rank. */
static int
complete_tx(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
            unsigned l, sim_addr_t a, uint32_t n, struct warp_inst *wi, struct sim_error *err)
{
    struct ptx_access ac;
    int k;
    SIM_FORWARD_IF_ERROR(find_barrier(r, b, pw, x, a, l, false, &k, &ac, err));
    struct pmbar *mb = &ac.owner->mbar[k];
    uint32_t sig = ++mb->signals;
    mb_complete(ac.p, mb, n, sig);
    return give_signal(r, b, pw, x, ac.owner, k, sig, 16 + ptx_cluster_rank(r, ac.owner), wi,
                       err);
}

/* n bytes from src to dst: copied, or (cp.reduce.async.bulk) reduced
 * element by element with x's operation. */
static void
bulk_move(const struct xop *x, uint8_t *dst, const uint8_t *src, uint32_t n)
{
    if (x->xmod & PX_REDUCE)
        ptx_reduce_bytes(x->atom, x->type, dst, src, n);
    else
        memmove(dst, src, n);
}

/* A bulk copy by lane l has moved its n bytes: a store (to global memory)
 * joins the warp's bulk group; a copy to shared memory completes n bytes
 * of the mbarrier at base3 (a multicast: of the barrier at that offset in
 * each block of ctaMask). */
static int
bulk_done(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
          uint32_t n, uint32_t mask, struct warp_inst *wi, struct sim_error *err)
{
    if ((x->iflags & SIM_IF_STORE) && !(x->xmod & PX_SHARED_DST)) {   /* its bulk group */
        wi->n_dst = 1;
        wi->dst[0] = bulk_reg(pw->bulk_groups);
        return SIM_OK;
    }
    sim_addr_t mbar = lane_slot_addr(pw, &x->base3, x->off3, l, true);
    if (!(x->xmod & PX_MULTICAST))
        return complete_tx(r, b, pw, x, l, mbar, n, wi, err);
    for (uint32_t mm = mask; mm != 0; mm &= mm - 1)
        SIM_FORWARD_IF_ERROR(complete_tx(r, b, pw, x, l, at_rank(mbar, (uint32_t)__builtin_ctz(mm)),
                                         n, wi, err));
    return SIM_OK;
}

/* A multicast copy's ctaMask: the ranks it writes to, each in the cluster. */
static int
multicast_mask(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
               unsigned l, uint32_t *mask, struct sim_error *err)
{
    *mask = (uint32_t)lane_get(pw, &x->b, l) & 0xffffu;
    if (*mask == 0 || (r->cluster_size < 16 && (*mask >> r->cluster_size) != 0)) {
        char msg[120];
        snprintf(msg, sizeof msg, "multicast::cluster: ctaMask %#x names no rank or a rank "
                 "outside the cluster of %u blocks", *mask, r->cluster_size);
        return serr(r, b, pw, x, err, SIM_ERR_FORMAT, msg);
    }
    return SIM_OK;
}

/* A multicast copy has written its n bytes at shared address sa of this
 * block (which need not be in ctaMask: then nothing else was written
 * there, and those bytes are restored from save): the same bytes at the
 * same offset in every block of the mask. */
static int
multicast_spread(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                 unsigned l, sim_addr_t sa, uint32_t n, uint32_t mask, const uint8_t *save,
                 struct sim_error *err)
{
    struct ptx_access own;
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, n, x, &own, err));
    uint32_t me = ptx_cluster_rank(r, b);
    for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
        uint32_t rank = (uint32_t)__builtin_ctz(mm);
        if (rank == me)
            continue;
        struct ptx_access ac;
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, at_rank(sa, rank), n,
                                             x, &ac, err));
        memcpy(ac.p, own.p, n);
    }
    if (!(mask & (1u << me)))
        memcpy(own.p, save, n);
    return SIM_OK;
}

/* Lane l's size and addresses of cp.async.bulk x (base: the global, or for
 * s2s the destination's shared::cluster, address; base2: this block's
 * shared memory), checked as the ISA requires. */
static int
bulk_operands(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
              unsigned l, bool s2s, uint32_t *n, sim_addr_t *ga, sim_addr_t *sa,
              struct sim_error *err)
{
    *n = (uint32_t)lane_get(pw, &x->a, l);
    *ga = lane_slot_addr(pw, &x->base, x->off, l, s2s);
    *sa = lane_slot_addr(pw, &x->base2, x->off2, l, true);
    if (*n == 0 || *n % 16 != 0 || *ga % 16 != 0 || *sa % 16 != 0)
        return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "cp.async.bulk: the size and both "
                    "addresses must be multiples of 16 bytes");
    if ((x->xmod & PX_REDUCE) && *n % ptx_type_bytes(x->type) != 0)
        return serr(r, b, pw, x, err, SIM_ERR_FORMAT, "cp.reduce.async.bulk: the size must be a "
                    "multiple of the element size");
    return SIM_OK;
}

/* The timing addresses a[0 .. k) (ascending) as rows of a tensor copy
 * (sim/inst.h, SIM_BULK_TENSOR): c1 rows stride s1 apart, c2 times s2
 * apart.  False if they are no such grid. */
static bool
lanes_as_rows(const sim_addr_t *a, unsigned k, uint64_t *c1, uint64_t *s1, uint64_t *c2,
              uint64_t *s2)
{
    unsigned run = 1;
    uint64_t st = k > 1 ? a[1] - a[0] : 0;
    while (run < k && a[run] - a[run - 1] == st && a[run] > a[run - 1])
        run++;
    if (k % run != 0)
        return false;
    uint64_t st2 = run < k ? a[run] - a[0] : 0;
    for (unsigned i = 0; i < k; i++)
        if (a[i] != a[0] + (uint64_t)(i / run) * st2 + (uint64_t)(i % run) * st)
            return false;
    *c1 = run;
    *s1 = st;
    *c2 = k / run;
    *s2 = st2;
    return true;
}

/* cp.async.bulk (global to shared, or shared to global) from several lanes
 * of a warp at once, as cuda::memcpy_async with a cuda::barrier compiles
 * for sm_90: each lane's copy is made, and the model sees one bulk copy
 * of their rows (a grid of at most two dimensions of equal-sized copies)
 * whose completion is one signal of their mbarrier for all their bytes. */
static int
exec_bulk_lanes(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    bool g2s = (x->iflags & SIM_IF_LOAD) != 0;
    sim_addr_t ta[SIM_WARP_SIZE];
    uint32_t total = 0, n0 = 0;
    unsigned k = 0, l0 = (unsigned)__builtin_ctz(m);
    sim_addr_t mbar = 0;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint32_t n;
        sim_addr_t ga, sa;
        SIM_FORWARD_IF_ERROR(bulk_operands(r, b, pw, x, l, false, &n, &ga, &sa, err));
        if (k > 0 && n != n0)
            return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: cp.async.bulk from "
                        "several lanes at once with different sizes");
        if (g2s) {
            sim_addr_t mb = lane_slot_addr(pw, &x->base3, x->off3, l, true);
            if (k > 0 && mb != mbar)
                return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: cp.async.bulk "
                            "from several lanes at once on different mbarriers");
            mbar = mb;
        }
        struct ptx_access gac, sac;
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, ga, n, x, &gac, err));
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, n, x, &sac, err));
        if (g2s)
            memmove(sac.p, gac.p, n);
        else
            bulk_move(x, gac.p, sac.p, n);
        ta[k++] = gac.taddr;
        n0 = n;
        total += n;
    }
    ptx_spin_memory_changed(r);
    uint64_t c1, s1, c2, s2;
    if (!lanes_as_rows(ta, k, &c1, &s1, &c2, &s2))
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: cp.async.bulk from "
                    "several lanes at once at global addresses that are not a grid of rows "
                    "(one or two strides, ascending)");
    wi->width = 16;
    wi->active_mask = 1u << l0;
    wi->space = SIM_SPACE_GLOBAL;
    wi->bulk = SIM_BULK_TENSOR;  /* the lanes' copies as rows (sim/inst.h) */
    memset(wi->addr, 0, 10 * sizeof wi->addr[0]);
    wi->addr[0] = ta[0];
    wi->addr[1] = n0;
    wi->addr[2] = c1;
    wi->addr[3] = s1;
    wi->addr[4] = c2;
    wi->addr[5] = s2;
    wi->addr[6] = wi->addr[8] = 1;
    if (!g2s) {                  /* its bulk group */
        wi->n_dst = 1;
        wi->dst[0] = bulk_reg(pw->bulk_groups);
        return SIM_OK;
    }
    return complete_tx(r, b, pw, x, l0, mbar, total, wi, err);
}

/* Do the lanes of m give a tensor copy the same operands: tensor map,
 * coordinates (and im2col offsets) and shared-memory address? */
static bool
same_tensor_operands(const struct pwarp *pw, const struct xop *x, uint32_t m)
{
    unsigned l0 = (unsigned)__builtin_ctz(m);
    for (uint32_t mm = m & (m - 1); mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        if (lane_slot_addr(pw, &x->base, x->off, l, false) !=
            lane_slot_addr(pw, &x->base, x->off, l0, false) ||
            lane_slot_addr(pw, &x->base2, x->off2, l, true) !=
            lane_slot_addr(pw, &x->base2, x->off2, l0, true))
            return false;
        for (unsigned d = 0; d < 8; d++)
            if (x->frag[d].cls != SC_NONE &&
                lane_get(pw, &x->frag[d], l) != lane_get(pw, &x->frag[d], l0))
                return false;
    }
    return true;
}

static int
exec_bulk(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
          struct warp_inst *wi, struct sim_error *err)
{
    if (m == 0)
        return SIM_OK;
    /* A tensor store (or prefetch) that several lanes give with the same
     * operands, as CUTLASS's SM90 epilogues have a whole warp do: each
     * lane's copy writes the same bytes to the same place, so one is made
     * and the model sees one (ptxas runs the uniform-datapath UTMASTG once
     * for each distinct set of operands).  Not a reduction: each lane's
     * would add again. */
    if ((m & (m - 1)) && (x->flags & PF_TENSOR) && !(x->iflags & SIM_IF_LOAD) &&
        !(x->xmod & (PX_MULTICAST | PX_REDUCE)) && same_tensor_operands(pw, x, m))
        m &= -m;
    if ((m & (m - 1)) && ((x->flags & PF_TENSOR) || (x->xmod & (PX_MULTICAST | PX_SHARED_DST))))
        return serr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, "unsupported: a tensor, multicast "
                    "or shared::cluster cp.async.bulk from more than one lane of a warp at once "
                    "(other than a tensor store or prefetch with the same operands in each)");
    if (m & (m - 1))
        return exec_bulk_lanes(r, b, pw, x, m, wi, err);
    unsigned l = (unsigned)__builtin_ctz(m);
    uint32_t n, mask = 0;
    if (x->xmod & PX_MULTICAST)
        SIM_FORWARD_IF_ERROR(multicast_mask(r, b, pw, x, l, &mask, err));
    if (x->flags & PF_TENSOR) {  /* cp.async.bulk.tensor: ptx_tma.c */
        uint8_t *save = NULL;
        sim_addr_t sa = lane_slot_addr(pw, &x->base2, x->off2, l, true);
        if (mask != 0 && !(mask & (1u << ptx_cluster_rank(r, b)))) {
            /* this block's tiles are not in the mask: keep them */
            struct ptx_access ac;
            uint32_t box;
            SIM_FORWARD_IF_ERROR(ptx_tma_box_bytes(r, b, pw, x, l, &box, err));
            SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, box, x, &ac,
                                                 err));
            save = xmalloc(box);
            memcpy(save, ac.p, box);
        }
        int rc = ptx_tma_copy(r, b, pw, x, l, wi, &n, err);
        if (rc == SIM_OK && mask != 0)
            rc = multicast_spread(r, b, pw, x, l, sa, n, mask, save, err);
        free(save);
        SIM_FORWARD_IF_ERROR(rc);
        if (x->iflags == 0)
            return SIM_OK;       /* a prefetch */
        return bulk_done(r, b, pw, x, l, n, mask, wi, err);
    }
    bool s2s = (x->xmod & PX_SHARED_DST) != 0, g2s = (x->iflags & SIM_IF_LOAD) != 0;
    sim_addr_t ga, sa;
    SIM_FORWARD_IF_ERROR(bulk_operands(r, b, pw, x, l, s2s, &n, &ga, &sa, err));
    struct ptx_access gac, sac;
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, s2s ? PS_SHARED : PS_GLOBAL, ga, n, x,
                                         &gac, err));
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, n, x, &sac, err));
    if (mask != 0) {
        /* a multicast: the same bytes at sa's offset in each block of the mask */
        for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
            struct ptx_access ac;
            SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED,
                                                 at_rank(sa, (uint32_t)__builtin_ctz(mm)), n, x,
                                                 &ac, err));
            memmove(ac.p, gac.p, n);
        }
    } else if (g2s) {
        memmove(sac.p, gac.p, n);
    } else {
        bulk_move(x, gac.p, sac.p, n);
    }
    ptx_spin_memory_changed(r);
    wi->width = 16;
    wi->active_mask = 1u << l;
    wi->addr[1] = n;             /* the bulk fields (sim/inst.h, enum sim_bulk) */
    if (s2s) {
        wi->space = SIM_SPACE_SHARED;
        wi->bulk = SIM_BULK_DSMEM;
        wi->remote = gac.owner != b;
        wi->addr[0] = gac.taddr;
    } else {
        wi->space = SIM_SPACE_GLOBAL;
        wi->bulk = SIM_BULK_COPY;
        wi->addr[0] = gac.taddr;
    }
    return bulk_done(r, b, pw, x, l, n, mask, wi, err);
}

int
ptx_sync_async_tx(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                  uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    uint32_t n = ptx_type_bytes(x->type) * x->vec;   /* bytes a lane stores */
    struct bar_set set = { 0 };
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm), i;
        struct ptx_access ac;
        SIM_FORWARD_IF_ERROR(set_barrier(r, b, pw, x, &x->base3, x->off3, l, false, &set, &i,
                                         &ac, err));
        struct pmbar *mb = &ac.owner->mbar[set.e[i].k];
        bool fresh = set.e[i].sig == 0;
        if (fresh)
            set.e[i].sig = ++mb->signals;
        mb_complete(ac.p, mb, n, set.e[i].sig);
        if (fresh)
            SIM_FORWARD_IF_ERROR(give_signal(r, b, pw, x, ac.owner, set.e[i].k, set.e[i].sig, l,
                                             wi, err));
    }
    ptx_spin_memory_changed(r);
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
    wait_result(r, pw, x, m, 0, 0, 0, wi);   /* timed out (try_wait) or not yet (test_wait) */
    r->cnt->wait_retries += x->head;          /* counted when fetched: the first retry */
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
