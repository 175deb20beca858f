/*
 * sm.c - one streaming multiprocessor: instruction fetch into per-warp
 * buffers, a register scoreboard (RAW and WAW), issue by each
 * sub-partition's scheduler to its pipes, block barriers, and block launch
 * and retirement.  Memory instructions are timed by the SM's ldst unit.
 *
 * A tick (at most one a cycle) evaluates one cycle for every scheduler of
 * the SM whose skip_until has come and then asks for the next tick at the
 * earliest cycle anything can change: the next cycle if an instruction
 * issued, else the earliest retry time of any stalled warp (operand ready,
 * pipe free, launch, branch delay).  Cycles in between are
 * skipped; a scheduler's slots up to its next evaluation take the reason
 * of its last one (added then, or by sm_catch_up()).
 */
#include "sim/sm_internal.h"

#include <stdlib.h>
#include <string.h>

static inline sim_cycle_t
min_c(sim_cycle_t a, sim_cycle_t b)
{
    return a < b ? a : b;
}

static inline sim_cycle_t
max_c(sim_cycle_t a, sim_cycle_t b)
{
    return a > b ? a : b;
}

void
sm_init(struct sm *sm, const struct sm_host *host, uint32_t id, const struct sim_config *cfg,
        mem *m, sim_cycle_t *wake)
{
    memset(sm, 0, sizeof *sm);
    sm->id = id;
    sm->host = host;
    sm->cfg = cfg;
    sm->k = host->costs;
    sm->obs = host->obs;
    sm->ibuf = cfg->sched_ibuffer > cfg->sched_lookahead ? cfg->sched_ibuffer : cfg->sched_lookahead;
    if (sm->ibuf > SM_IBUF_MAX)
        sm->ibuf = SM_IBUF_MAX;
    sm->sb = xcalloc((size_t)SM_NW * SM_SB_MAX, sizeof *sm->sb);
    sm->ib = xcalloc((size_t)SM_NW * sm->ibuf, sizeof *sm->ib);
    sm->ibm = xcalloc((size_t)SM_NW * sm->ibuf, sizeof *sm->ibm);
    sm->n_sched = cfg->sm_subpartitions;
    sm->bar_step = (uint64_t)(cfg->sm_barrier_warp_cycles * 256.0 + 0.5);
    sm->wgmma_byte = 256.0 / cfg->smem_wgmma_bytes_per_cycle;
    sm->sync_step = (uint64_t)(cfg->sync_arrive_cycles * 256.0 + 0.5);
    sm->ldst = ldst_new(cfg, m, &sm->mst);
    sm->wake = wake;
    *wake = SIM_CYCLE_MAX;
    sm->tick_at = SIM_MAX_SUBPARTITIONS;
    for (uint32_t i = 0; i < sm->n_sched; i++)
        sm->reason[i] = SM_R_IDLE;
    for (uint32_t w = 0; w < SM_NW; w++)
        sm->cluster_seen[w] = SIM_CYCLE_MAX;
}

void
sm_fini(struct sm *sm)
{
    for (uint32_t i = 0; i < SIM_MAX_BLOCKS_PER_SM; i++)
        free(sm->blk[i].sync);
    free(sm->sb);
    free(sm->ib);
    free(sm->ibm);
    ldst_destroy(sm->ldst);
}

void
sm_register_stats(struct sm *sms, uint32_t n, stats *st)
{
    size_t z = sizeof *sms;
#define VEC(name, field, unit, help) \
    stats_add_vec(st, name, &sms[0].st.field, z, n, "sm", unit, help)
    VEC("sm.warp_insts", warp_insts, "instructions", "warp instructions issued");
    VEC("sm.thread_insts", thread_insts, "instructions", "thread instructions issued (active lanes)");
    VEC("sm.cycles", cycles, "cycles", "cycles of the kernels run (the same on every SM)");
    stats_add_ratio(st, "sm.ipc", "sm.warp_insts", "sm.cycles", 1.0, "instructions/cycle",
                    "warp instructions issued per cycle per SM");
    VEC("sm.active_cycles", active_cycles, "cycles", "cycles with at least one resident warp");
    VEC("sm.warp_cycles", warp_cycles, "warp-cycles", "resident warps summed over cycles");
    VEC("sm.warp_slot_cycles", warp_slot_cycles, "warp-cycles", "cycles x sm.max_warps");
    stats_add_ratio(st, "sm.achieved_occupancy", "sm.warp_cycles", "sm.warp_slot_cycles", 1.0, "",
                    "mean resident warps / sm.max_warps");
    VEC("sm.blocks", blocks, "blocks", "thread blocks completed");
#define X(id, name, help) \
    stats_add_vec(st, "sm.slot." name, &sms[0].st.slot[SM_R_##id], z, n, "sm", "scheduler-cycles", help);
    SM_REASONS(X)
#undef X
#define X(id, name, help) \
    stats_add_vec(st, "sm.pipe." name ".insts", &sms[0].st.pipe_insts[SIM_PIPE_##id], z, n, "sm", \
                  "instructions", "warp instructions issued to the " help); \
    stats_add_vec(st, "sm.pipe." name ".used", &sms[0].st.pipe_used[SIM_PIPE_##id], z, n, "sm", \
                  "lane-slots", "lane-cycles occupied in the " help); \
    stats_add_vec(st, "sm.pipe." name ".avail", &sms[0].st.pipe_avail[SIM_PIPE_##id], z, n, "sm", \
                  "lane-slots", "lane-cycles available in the " help); \
    stats_add_ratio(st, "sm.pipe." name ".util", "sm.pipe." name ".used", "sm.pipe." name ".avail", \
                    1.0, "", "issue utilisation of the " help);
    SIM_PIPES(X)
#undef X
#define OPCLASS(id, name, pipe, lat, help) \
    stats_add_vec(st, "sm.op." name, &sms[0].st.opclass_insts[SIM_OPC_##id], z, n, "sm", \
                  "instructions", "warp instructions of class " name);
#include "sim/opclass.def"
#undef OPCLASS
    VEC("sm.fp32_lanes", fp32_lanes, "lanes", "active lanes of FP32 (fp32 + fp32_fma) instructions");
    VEC("sm.fma_insts", fma_insts, "instructions", "FP32 FMA warp instructions");
#define MVEC(name, field, unit, help) \
    stats_add_vec(st, name, &sms[0].mst.field, z, n, "sm", unit, help)
    MVEC("sm.mem.global_loads", gld_insts, "instructions", "global, local and texture load instructions");
    MVEC("sm.mem.global_stores", gst_insts, "instructions", "global and local store instructions");
    MVEC("sm.mem.atomics", atom_insts, "instructions", "atomic instructions (global and shared)");
    MVEC("sm.mem.shared_loads", sld_insts, "instructions", "shared-memory load instructions");
    MVEC("sm.mem.dsmem_insts", dsmem_insts, "instructions", "shared-memory accesses to another block of the cluster (distributed shared memory)");
    MVEC("sm.mem.shared_stores", sst_insts, "instructions", "shared-memory store instructions");
    MVEC("sm.mem.shared_wavefronts", smem_wavefronts, "wavefronts", "shared-memory pipe cycles used");
    MVEC("sm.mem.bank_conflicts", smem_conflicts, "wavefronts",
         "extra shared-memory wavefronts caused by bank conflicts");
    MVEC("sm.mem.const_loads", const_insts, "instructions", "constant and parameter load instructions");
    MVEC("sm.mem.load_sectors", gld_sectors, "sectors", "32-byte sectors requested by global/local loads");
    MVEC("sm.mem.store_sectors", gst_sectors, "sectors", "32-byte sectors written by global/local stores");
    MVEC("sm.l1.hits", l1_hits, "sectors", "load sectors that hit in the L1 (including fills in flight)");
    MVEC("sm.l1.misses", l1_misses, "sectors", "load sectors sent to the L2 (misses and L1 bypass)");
    stats_add_ratio(st, "sm.l1.hit_rate", "sm.l1.hits", "sm.mem.load_sectors", 1.0, "",
                    "fraction of load sectors that hit in the L1");
    MVEC("sm.l1.mshr_wait_cycles", mshr_wait_cycles, "cycles", "cycles misses waited for a free MSHR");
    MVEC("sm.bulk.loads", bulk_loads, "instructions", "bulk copies from global to shared memory (cp.async.bulk, UBLKCP)");
    MVEC("sm.bulk.stores", bulk_stores, "instructions", "bulk copies from shared memory to global memory or another block's");
    MVEC("sm.bulk.bytes", bulk_bytes, "bytes", "bytes the bulk copies moved");
#undef MVEC
#undef VEC
}

void
sm_catch_up(struct sm *sm, sim_cycle_t t)
{
    for (uint32_t i = 0; i < sm->n_sched; i++) {
        if (t > sm->acct[i]) {
            sm->st.slot[sm->reason[i]] += t - sm->acct[i];
            sm->acct[i] = t;
        }
    }
}

void
sm_occ_update(struct sm *sm, sim_cycle_t t)
{
    if (t <= sm->occ_since)
        return;
    uint64_t d = t - sm->occ_since;
    sm->st.warp_cycles += (uint64_t)sm->n_warps * d;
    if (sm->n_warps > 0)
        sm->st.active_cycles += d;
    sm->occ_since = t;
}

void
sm_wake(struct sm *sm, sim_cycle_t t)
{
    if (t < *sm->wake)
        *sm->wake = t;
}

/* Record the first failure of a tick; sm_flush() reports it. */
static void
sm_fail(struct sm *sm, const struct sim_error *err)
{
    if (sm->failed)
        return;
    sm->failed = true;
    sm->err = *err;
}

bool
sm_has_room(const struct sm *sm)
{
    return sm->n_blocks < sm->host->occ->blocks_per_sm;
}

/* ---- warps --------------------------------------------------------------- */

/* Where entry j (0 = oldest) of warp w's instruction buffer is in ib[]. */
static inline size_t
ib_slot(const struct sm *sm, uint8_t w, unsigned j)
{
    return (size_t)w * sm->ibuf + sm->warp[w].ib_pos[j];
}

static void finish_warp(struct sm *sm, uint8_t w, sim_cycle_t now);

/* Fill warp w's instruction buffer from the source. */
/* Is wi a wait on accumulating registers (types.h: DEPBAR.LE, WARPGROUP.DEPBAR;
 * class nop)?  The hardware stalls the warp at it: nothing after it is
 * fetched (and no %clock read there executes) until it issues. */
static inline bool
depbar(const struct warp_inst *wi)
{
    if (wi->opclass != SIM_OPC_NOP)
        return false;
    for (unsigned i = 0; i < wi->n_src; i++)
        if (wi->src[i] >= SIM_REG_ACC_BASE)
            return true;
    return false;
}

static void
warp_fetch(struct sm *sm, uint8_t w, sim_cycle_t now)
{
    struct sm_block *b = &sm->blk[sm->warp[w].blk];
    uint32_t ibuf = sm->ibuf;
    struct sim_error err;        /* not zeroed whole: 256-odd bytes per fetch */
    err.code = SIM_OK;
    err.msg[0] = '\0';

    while (sm->warp[w].ib_n < ibuf && !sm->warp[w].ended && !sm->warp[w].hold) {
        size_t slot = ib_slot(sm, w, sm->warp[w].ib_n);
        struct warp_inst *wi = &sm->ib[slot];
        int r = inst_source_next(sm->src, b->src_slot, sm->warp[w].idx, now, wi, &err);
        if (r < 0) {
            sm_fail(sm, &err);
            sm->warp[w].ended = true;
            return;
        }
        if (r == 0) {
            sm->warp[w].ended = true;
            break;
        }
        if (wi->opclass >= SIM_OPC_COUNT || wi->n_dst > SIM_MAX_DST || wi->n_src > SIM_MAX_SRC) {
            sim_error_set(&err, SIM_ERR_FORMAT, "block %" PRIu64 " warp %u pc %#x: malformed "
                          "instruction from the source", b->id, sm->warp[w].idx, wi->pc);
            sm_fail(sm, &err);
            sm->warp[w].ended = true;
            return;
        }
        struct ib_meta *mt = &sm->ibm[slot];
        mt->avail = now + sm->cfg->sched_fetch_latency;
        mt->opclass = wi->opclass;
        mt->space = wi->space;
        mt->flags = wi->flags;
        mt->n_dst = wi->n_dst;
        mt->n_src = wi->n_src;
        mt->stall = wi->stall;
        mt->sync = wi->sync;
        mt->sync_obj = wi->sync_obj;
        mt->aux = wi->aux;
        bool poll = wi->sync == SIM_SYNC_POLL;
        if (wi->sync != SIM_SYNC_NONE &&
            ((wi->sync > SIM_SYNC_POLL && wi->sync != SIM_SYNC_SIGNAL_ASYNC) ||
             wi->sync_obj >= SIM_SYNC_OBJS || (wi->aux == 0 && !poll) ||
             (poll && (sm->src->ops->wait_poll == NULL || sm->src->ops->wait_commit == NULL)))) {
            sim_error_set(&err, SIM_ERR_FORMAT, "block %" PRIu64 " warp %u pc %#x: malformed "
                          "sync operation from the source", b->id, sm->warp[w].idx, wi->pc);
            sm_fail(sm, &err);
            sm->warp[w].ended = true;
            return;
        }
        for (uint32_t rm = wi->rsig_mask; rm != 0; rm &= rm - 1) {
            uint64_t v = wi->addr[__builtin_ctz(rm)];
            if (SIM_RSIG_SIG(v) == 0 || sm->host->remote_signal == NULL) {
                sim_error_set(&err, SIM_ERR_FORMAT, "block %" PRIu64 " warp %u pc %#x: "
                              "malformed remote signal from the source", b->id,
                              sm->warp[w].idx, wi->pc);
                sm_fail(sm, &err);
                sm->warp[w].ended = true;
                return;
            }
        }
        if (wi->sync != SIM_SYNC_NONE && b->sync == NULL)
            b->sync = xcalloc(SIM_SYNC_OBJS, sizeof *b->sync);
        if (poll) {              /* decided at its issue: nothing after it yet */
            sm->warp[w].hold |= SM_HOLD_POLL;
            sm->warp[w].poll_since = SIM_CYCLE_MAX;
        }
        mt->pc = wi->pc;
        mt->active_mask = wi->active_mask;
        memcpy(mt->dst, wi->dst, sizeof mt->dst);
        memcpy(mt->src, wi->src, sizeof mt->src);
        sm->warp[w].ib_n++;
        if ((wi->flags & SIM_IF_BARRIER) && !SIM_BAR_ARRIVE(wi->aux))
            sm->warp[w].hold |= SM_HOLD_BARRIER;
        else if (depbar(wi))
            sm->warp[w].hold |= SM_HOLD_DEPBAR;
        else if (sm->cfg->sched_lookahead > 1 && wi->opclass == SIM_OPC_BRANCH)
            sm->warp[w].hold |= SM_HOLD_BRANCH;   /* no branch prediction: the target is
                                                     fetched at issue */
    }
}

/* Release the block's barrier `id` if the warps it waits for (every live
 * warp, or its count) have arrived. */
static void
check_barrier(struct sm *sm, struct sm_block *b, uint32_t id, sim_cycle_t now)
{
    uint32_t need = b->bar_need[id] ? b->bar_need[id] : b->live;
    if (b->at_bar[id] == 0 || b->at_bar[id] < need)
        return;
    /* after the barrier unit has taken the last arrival (issue()) */
    sim_cycle_t taken = (sim_cycle_t)((sm->bar_free + 255) >> 8);
    sim_cycle_t release = max_c(now, taken) + sm->k->latency[SIM_OPC_BARRIER];
    b->at_bar[id] = 0;
    for (uint32_t i = 0; i < b->n_warps; i++) {
        uint8_t w = b->warp[i];
        if (sm->warp[w].state != W_BARRIER || sm->warp[w].bar != id)
            continue;
        sm->warp[w].state = W_ACTIVE;
        sm->warp[w].hold &= (uint8_t)~SM_HOLD_BARRIER;
        sched_unwait(&sm->sched[sm->warp[w].sched], w);
        sm->skip_until[sm->warp[w].sched] = sm->issue_hold[sm->warp[w].sched];
        /* released in a tick, before its scheduler's turn: evaluated in it
         * (unless the scheduler is still feeding the DPU) */
        if (sm->warp[w].sched > sm->tick_at && now >= sm->issue_hold[sm->warp[w].sched])
            sm->tick_due |= 1u << sm->warp[w].sched;
        sm->warp[w].next = max_c(sm->warp[w].next, release);
        warp_fetch(sm, w, now);
        if (sm->warp[w].ib_n == 0 && sm->warp[w].ended)
            finish_warp(sm, w, now);
    }
}

static void
finish_warp(struct sm *sm, uint8_t w, sim_cycle_t now)
{
    struct sm_block *b = &sm->blk[sm->warp[w].blk];
    if (sm->warp[w].state == W_DRAIN)
        return;
    if (sm->warp[w].state == W_BARRIER)
        b->at_bar[sm->warp[w].bar]--;
    sm->warp[w].state = W_DRAIN;
    SIM_ASSERT_AT(now, b->live > 0);
    b->live--;
    if (b->live > 0) {
        for (uint32_t id = 0; id < SIM_BARRIERS; id++)   /* one that waits for all live warps */
            if (b->at_bar[id] != 0 && b->bar_need[id] == 0)
                check_barrier(sm, b, id, now);
        return;
    }
    /* its warps' last results may still be untimed loads: sm_flush() */
    SIM_ASSERT_AT(now, sm->n_pend_blk < SIM_MAX_BLOCKS_PER_SM);
    sm->pend_blk[sm->n_pend_blk++] = sm->warp[w].blk;
}

int
sm_launch_block(struct sm *sm, uint64_t id, uint32_t src_slot, sim_cycle_t t, struct sim_error *err)
{
    const struct occ_result *occ = sm->host->occ;
    const struct sim_config *c = sm->cfg;
    uint32_t bi = 0;

    sm_catch_up(sm, t);
    sm_occ_update(sm, t);
    while (bi < SIM_MAX_BLOCKS_PER_SM && sm->blk[bi].used)
        bi++;
    SIM_ASSERT_AT(t, bi < SIM_MAX_BLOCKS_PER_SM && sm->n_warps + occ->warps_per_block <= SM_NW);
    SIM_FORWARD_IF_ERROR(sm->src->ops->block_begin(sm->src->ctx, id, src_slot, sm->id, err));
    struct sm_block *b = &sm->blk[bi];
    struct sm_sync_obj *sync = b->sync;
    memset(b, 0, sizeof *b);
    if (sync != NULL)
        memset(sync, 0, SIM_SYNC_OBJS * sizeof *sync);
    b->sync = sync;
    b->used = true;
    b->id = id;
    b->src_slot = src_slot;
    b->n_warps = occ->warps_per_block;
    b->live = b->n_warps;
    /* warp i starts i x sm.warp_launch_latency after the block (in 1/256
     * cycles, rounded up to a cycle); a serial launcher first finishes the
     * previous block's warps */
    uint64_t wl = (uint64_t)(c->sm_warp_launch_latency * 256.0 + 0.5);
    uint64_t base = (uint64_t)t << 8;
    if (c->sm_serial_block_launch && sm->launch_free > base)
        base = sm->launch_free;
    sm->launch_free = base + (uint64_t)b->n_warps * wl;
    uint8_t w = 0;
    for (uint32_t i = 0; i < b->n_warps; i++) {
        while (sm->warp[w].state != W_FREE)
            w++;
        b->warp[i] = w;
        sm->warp[w].state = W_ACTIVE;
        sm->warp[w].blk = (uint8_t)bi;
        sm->warp[w].idx = (uint8_t)i;
        sm->warp[w].sched = (uint8_t)(w % sm->n_sched);
        for (unsigned j = 0; j < SM_IBUF_MAX; j++)
            sm->warp[w].ib_pos[j] = (uint8_t)j;
        sm->warp[w].ib_n = 0;
        sm->warp[w].sb_n = 0;
        sm->warp[w].ended = false;
        sm->warp[w].hold = 0;
        sm->warp[w].cand_n = 0;
        sm->warp[w].pwait = 0;
        sm->warp[w].next = ((base + i * wl + 255) >> 8) + c->sm_block_launch_latency;
        sm->warp[w].done = t;
        sched_add_warp(sm, &sm->sched[sm->warp[w].sched], w);
    }
    sm->n_blocks++;
    sm->n_warps += b->n_warps;
    for (uint32_t i = 0; i < b->n_warps; i++)
        warp_fetch(sm, b->warp[i], t);
    for (uint32_t i = 0; i < b->n_warps && b->used; i++) {
        uint8_t k = b->warp[i];
        if (sm->warp[k].state == W_ACTIVE && sm->warp[k].ib_n == 0 && sm->warp[k].ended)
            finish_warp(sm, k, t);
    }
    sm_flush(sm, t);             /* a block of empty warps is done at once */
    if (sm->failed) {
        *err = sm->err;
        return err->code;
    }
    sm_wake(sm, t);
    return SIM_OK;
}

void
sm_retire_block(struct sm *sm, uint32_t bi, sim_cycle_t t)
{
    struct sm_block *b = &sm->blk[bi];
    SIM_ASSERT_AT(t, b->used && b->live == 0);
    sm_catch_up(sm, t);
    sm_occ_update(sm, t);
    for (uint32_t i = 0; i < b->n_warps; i++) {
        uint8_t w = b->warp[i];
        sched_remove_warp(sm, &sm->sched[sm->warp[w].sched], w);
        sm->warp[w].state = W_FREE;
    }
    sm->n_warps -= b->n_warps;
    sm->n_blocks--;
    sm->st.blocks++;
    b->used = false;
    if (sm->src->ops->block_end != NULL)
        sm->src->ops->block_end(sm->src->ctx, b->src_slot);
    if (sm->n_warps > 0) {
        sm_wake(sm, t);          /* re-classify with the remaining warps */
    } else {
        for (uint32_t i = 0; i < sm->n_sched; i++)
            sm->reason[i] = SM_R_IDLE;
    }
}

/* ---- scoreboard ------------------------------------------------------- */

static void
sb_add(struct sm *sm, uint8_t w, uint16_t reg, sim_cycle_t ready, bool is_mem)
{
    struct sb_entry *e = &sm->sb[(size_t)w * SM_SB_MAX];
    uint8_t n = sm->warp[w].sb_n;
    for (uint8_t i = 0; i < n; i++) {
        if (e[i].reg == reg) {
            if (ready >= e[i].ready) {
                e[i].ready = ready;
                e[i].mem = is_mem;
            }
            return;
        }
    }
    SIM_ASSERT(n < SM_SB_MAX);
    e[n].reg = reg;
    e[n].ready = ready;
    e[n].mem = is_mem;
    sm->warp[w].sb_n = (uint8_t)(n + 1);
}

/* The latest known completion pending on the accumulating registers that
 * wi writes (types.h), or 0: a memory write to one is ready no earlier. */
static sim_cycle_t
acc_floor(const struct sm *sm, uint8_t w, const struct ib_meta *wi)
{
    sim_cycle_t f = 0;
    const struct sb_entry *e = &sm->sb[(size_t)w * SM_SB_MAX];
    for (unsigned d = 0; d < wi->n_dst; d++) {
        if (wi->dst[d] < SIM_REG_ACC_BASE)
            continue;
        for (uint8_t j = 0; j < sm->warp[w].sb_n; j++)
            if (e[j].reg == wi->dst[d] && e[j].ready != SM_READY_PENDING)
                f = max_c(f, e[j].ready);
    }
    return f;
}

/* 0 if wi's operands are ready at now; else SM_R_SCOREBOARD or SM_R_MEMORY
 * with *retry the cycle they will be. */
static int
sb_check(struct sm *sm, uint8_t w, const struct ib_meta *wi, sim_cycle_t now, sim_cycle_t *retry)
{
    struct sb_entry *e = &sm->sb[(size_t)w * SM_SB_MAX];
    uint8_t n = sm->warp[w].sb_n, k = 0;
    sim_cycle_t r = 0;
    bool blocked = false, on_mem = false;

    for (uint8_t i = 0; i < n; i++)
        if (e[i].ready > now)
            e[k++] = e[i];
    sm->warp[w].sb_n = k;
    for (uint8_t i = 0; i < k; i++) {
        uint16_t reg = e[i].reg;
        bool hit = false;
        for (unsigned j = 0; j < wi->n_src && !hit; j++)
            hit = wi->src[j] == reg;
        for (unsigned j = 0; j < wi->n_dst && !hit; j++)
            hit = wi->dst[j] == reg && reg < SIM_REG_ACC_BASE;   /* WAW, except accumulating */
        if (hit) {
            blocked = true;
            on_mem = on_mem || e[i].mem;
            r = max_c(r, e[i].ready);
        }
    }
    if (!blocked && k + wi->n_dst > SM_SB_MAX) {
        /* scoreboard full: wait for the earliest entry */
        r = SIM_CYCLE_MAX;
        for (uint8_t i = 0; i < k; i++)
            r = min_c(r, e[i].ready);
        blocked = true;
    }
    if (!blocked)
        return 0;
    *retry = r;
    return on_mem ? SM_R_MEMORY : SM_R_SCOREBOARD;
}

/* ---- issue -------------------------------------------------------------- */

/* The registers the older entries of a lookahead window write and read,
 * gathered as check_issue() walks the window, so that whether an entry may
 * pass them costs one look-up per operand instead of a comparison with
 * every older entry.  *bits: bit (reg & 63) of each register, a filter
 * before the exact search. */
struct older_regs {
    uint64_t dbits, sbits;
    unsigned nd, ns;
    uint16_t d[SM_IBUF_MAX * SIM_MAX_DST];
    uint16_t s[SM_IBUF_MAX * SIM_MAX_SRC];
};

static inline bool
in_regs(const uint16_t *set, unsigned n, uint64_t bits, uint16_t r)
{
    if (!(bits >> (r & 63) & 1))
        return false;
    for (unsigned i = 0; i < n; i++)
        if (set[i] == r)
            return true;
    return false;
}

static void
older_add(struct older_regs *o, const struct ib_meta *wi)
{
    for (unsigned i = 0; i < wi->n_dst; i++) {
        o->d[o->nd++] = wi->dst[i];
        o->dbits |= UINT64_C(1) << (wi->dst[i] & 63);
    }
    for (unsigned i = 0; i < wi->n_src; i++) {
        o->s[o->ns++] = wi->src[i];
        o->sbits |= UINT64_C(1) << (wi->src[i] & 63);
    }
}

/* May wi, behind the older entries gathered in o, issue before them?
 * Only an ALU instruction with no register dependence on them (read after
 * write, write after write, write after read). */
static bool
can_pass(const struct ib_meta *wi, const struct older_regs *o)
{
    unsigned opc = wi->opclass;
    if (wi->space != SIM_SPACE_NONE || opc == SIM_OPC_BRANCH || opc == SIM_OPC_BARRIER ||
        opc == SIM_OPC_SREG || opc == SIM_OPC_MEM ||
        (wi->flags & (SIM_IF_BARRIER | SIM_IF_EXIT | SIM_IF_BRANCH | SIM_IF_FENCE)))
        return false;
    for (unsigned i = 0; i < wi->n_src; i++)
        if (in_regs(o->d, o->nd, o->dbits, wi->src[i]))
            return false;
    for (unsigned i = 0; i < wi->n_dst; i++)
        if (in_regs(o->d, o->nd, o->dbits, wi->dst[i]) ||
            in_regs(o->s, o->ns, o->sbits, wi->dst[i]))
            return false;
    return true;
}

/* Remove entry j of warp w's instruction buffer, keeping the others in
 * order; its slot becomes the first free one. */
static void
ib_remove(struct sm *sm, uint8_t w, unsigned j)
{
    struct sm_warp *wp = &sm->warp[w];
    unsigned n = wp->ib_n;
    uint8_t freed = wp->ib_pos[j];
    memmove(&wp->ib_pos[j], &wp->ib_pos[j + 1], n - 1 - j);
    wp->ib_pos[n - 1] = freed;
    wp->ib_n--;
    wp->cand_n = 0;
    wp->pwait = 0;
}

/* May warp w's polled wait (inst.h, SIM_SYNC_POLL) issue at now?  Yes
 * when the source says its phase has completed and the signal that
 * completed it is done, or when it has waited sync.try_wait_cycles (a
 * try_wait; a test_wait does not wait) for a phase that has not. */
static bool
poll_ready(struct sm *sm, uint8_t w, const struct ib_meta *wi, sim_cycle_t now)
{
    struct sm_warp *wp = &sm->warp[w];
    const struct sm_block *b = &sm->blk[wp->blk];
    if (wp->poll_since == SIM_CYCLE_MAX)
        wp->poll_since = now;
    uint32_t sig = 0;
    int polled = sm->src->ops->wait_poll(sm->src->ctx, b->src_slot, wp->idx, &sig);
    wp->poll_complete = polled >= 1;
    if (wp->poll_complete && wi->aux == SIM_POLL_BLOCKING) {
        /* a cluster barrier: released sync.cluster_latency after this SM
         * first saw its phase complete, and the release's fence more */
        if (sm->cluster_seen[w] == SIM_CYCLE_MAX)
            sm->cluster_seen[w] = now;
        sm->cluster_wait = true;
        if (now < sm->cluster_seen[w] + sm->cfg->sync_cluster_latency +
                      (polled == 2 ? sm->cfg->sync_cluster_release_cycles : 0))
            return false;
        sm->cluster_seen[w] = SIM_CYCLE_MAX;
        return true;
    }
    if (wp->poll_complete)
        return sig == 0 || b->sync[wi->sync_obj].done >= sig;
    if (wi->aux == SIM_POLL_BLOCKING) {   /* barrier.cluster: until complete */
        sm->cluster_wait = true;
        return false;
    }
    sim_cycle_t limit = wi->aux == SIM_POLL_TRY ? sm->cfg->sync_try_wait_cycles : 0;
    return now >= wp->poll_since + limit;
}

/* The lane-slots pipe p of scheduler s has taken: its own, or, for a
 * pipe whose lanes are the SM's (costs.per_sm), the count every
 * sub-partition shares. */
static inline uint64_t *
pipe_busy(struct sm *sm, struct sm_sched *s, unsigned p)
{
    return sm->k->per_sm[p] ? &sm->sched[0].pipe_busy[p] : &s->pipe_busy[p];
}

/* Can buffered entry wi of warp w issue at now, its older entries aside
 * (fetch latency, operands, pipe)?  SM_R_ISSUED, or the reason and *retry. */
static inline int
check_entry(struct sm *sm, struct sm_sched *s, uint8_t w, const struct ib_meta *wi,
            sim_cycle_t now, sim_cycle_t *retry)
{
    const struct sm_costs *k = sm->k;
    *retry = SIM_CYCLE_MAX;
    if (wi->avail > now) {
        *retry = wi->avail;
        return SM_R_NO_INST;
    }
    int why = sb_check(sm, w, wi, now, retry);
    if (why != 0)
        return why;
    if (wi->sync == SIM_SYNC_WAIT && sm->blk[sm->warp[w].blk].sync[wi->sync_obj].done < wi->aux) {
        /* the signals it waits for have not all issued: look again next
         * cycle (they issue within a few: their warps fetched them first) */
        *retry = now + 1;
        return SM_R_BARRIER;
    }
    if (wi->sync == SIM_SYNC_POLL && !poll_ready(sm, w, wi, now)) {
        *retry = now + 1;
        return SM_R_BARRIER;
    }
    if (wi->opclass == SIM_OPC_WGMMA) {   /* its previous one has not started yet */
        if (sm->wgmma_start[w] > now) {
            *retry = sm->wgmma_start[w];
            return SM_R_PIPE_BUSY;
        }
        return SM_R_ISSUED;
    }
    unsigned p = k->pipe[wi->opclass];
    uint64_t lanes = k->lanes[p], busy = *pipe_busy(sm, s, p);
    if (busy >= (now + 1) * lanes) {
        *retry = busy / lanes;
        return SM_R_PIPE_BUSY;
    }
    return SM_R_ISSUED;
}

/* What the candidates of a check that has issued nothing found: the
 * head's reason, the earliest retry, and whether every candidate waited
 * for the same pipe and for nothing else (then, until the window changes,
 * only that pipe can change the outcome: operands ready stay ready, and
 * only the warp's own issue adds pending writes). */
struct cand_fold {
    int head_why;
    sim_cycle_t retry;
    uint8_t pipe1;               /* 1 + that pipe, 0 = none seen yet */
    bool only;
};

/* Check candidate j (entry wi) of warp w's window: true if it can issue
 * (the warp's pick), else its reason and retry are folded into f. */
static inline bool
try_candidate(struct sm *sm, struct sm_sched *s, uint8_t w, unsigned j, const struct ib_meta *wi,
              sim_cycle_t now, struct cand_fold *f)
{
    sim_cycle_t r;
    int why = check_entry(sm, s, w, wi, now, &r);
    if (why == SM_R_ISSUED) {
        sm->warp[w].pick = (uint8_t)j;
        return true;
    }
    if (why != SM_R_PIPE_BUSY || wi->opclass == SIM_OPC_WGMMA) {
        f->only = false;         /* a warpgroup MMA waits for its tensor-core queue */
    } else {
        unsigned pipe1 = sm->k->pipe[wi->opclass] + 1u;
        f->only = f->only && (f->pipe1 == 0 || f->pipe1 == pipe1);
        f->pipe1 = (uint8_t)pipe1;
    }
    if (j == 0)
        f->head_why = why;
    f->retry = min_c(f->retry, r);
    return false;
}

static inline void
remember_window(struct sm_warp *wp, unsigned window, uint32_t cand, const struct cand_fold *f)
{
    wp->cand = (uint16_t)cand;
    wp->cand_n = (uint8_t)window;
    wp->pwait = f->only ? f->pipe1 : 0;
}

/* Can warp w issue its next instruction at now?  Returns SM_R_ISSUED if
 * so, else the reason and *retry.  second: the warp already issued this
 * cycle (dual issue), so its one-per-cycle limit does not apply. */
static int
check_issue(struct sm *sm, struct sm_sched *s, uint8_t w, sim_cycle_t now, bool second,
            sim_cycle_t *retry)
{
    const struct sm_costs *k = sm->k;
    *retry = SIM_CYCLE_MAX;
    switch (sm->warp[w].state) {
    case W_DRAIN:
        return SM_R_IDLE;
    case W_BARRIER:
        return SM_R_BARRIER;
    default:
        break;
    }
    if (sm->warp[w].next > now && !(second && sm->warp[w].next == now + 1)) {
        *retry = sm->warp[w].next;
        return SM_R_NO_INST;
    }
    if (sm->warp[w].ib_n == 0)
        return SM_R_NO_INST;
    unsigned window = sm->warp[w].ib_n < k->lookahead ? sm->warp[w].ib_n : k->lookahead;
    struct sm_warp *wp = &sm->warp[w];
    if (wp->pwait != 0 && wp->cand_n == window) {
        /* the same window, whose candidates only waited for one pipe:
         * only the pipe can have changed */
        unsigned p = wp->pwait - 1u;
        uint64_t lanes = k->lanes[p], busy = *pipe_busy(sm, s, p);
        if (busy >= (now + 1) * lanes) {
            *retry = busy / lanes;
            return SM_R_PIPE_BUSY;
        }
        wp->pick = 0;            /* the head waited for the pipe: it goes first */
        return SM_R_ISSUED;
    }
    if (window == 1) {           /* in order: the head alone */
        const struct ib_meta *wi = &sm->ibm[ib_slot(sm, w, 0)];
        int why = check_entry(sm, s, w, wi, now, retry);
        if (why == SM_R_ISSUED) {
            wp->pick = 0;
        } else if (why == SM_R_PIPE_BUSY && wi->opclass != SIM_OPC_WGMMA) {
            struct cand_fold f = { why, *retry, (uint8_t)(k->pipe[wi->opclass] + 1), true };
            remember_window(wp, 1, 1, &f);
        }
        return why;
    }
    struct cand_fold f = { SM_R_NO_INST, SIM_CYCLE_MAX, 0, true };
    if (wp->cand_n == window) {
        /* the same window as at the last check: only its candidates */
        for (uint32_t cand = wp->cand; cand != 0; cand &= cand - 1) {
            unsigned j = (unsigned)__builtin_ctz(cand);
            if (try_candidate(sm, s, w, j, &sm->ibm[ib_slot(sm, w, j)], now, &f))
                return SM_R_ISSUED;
        }
        remember_window(wp, window, wp->cand, &f);
    } else {
        /* find the candidates as the walk goes: an entry may pass the older
         * ones if can_pass() them all (their registers gathered in o) */
        struct older_regs o;
        o.dbits = o.sbits = 0;
        o.nd = o.ns = 0;
        uint32_t cand = 1;
        for (unsigned j = 0; j < window; j++) {
            const struct ib_meta *wi = &sm->ibm[ib_slot(sm, w, j)];
            if (j > 0 && !can_pass(wi, &o)) {
                older_add(&o, wi);
                continue;
            }
            cand |= 1u << j;
            if (try_candidate(sm, s, w, j, wi, now, &f))
                return SM_R_ISSUED;
            if (j + 1 < window)
                older_add(&o, wi);
        }
        /* walked the whole window: remember its candidates until it changes */
        remember_window(wp, window, cand, &f);
    }
    *retry = f.retry;
    return f.head_why;
}

/* check_issue() with the per-warp cache: a warp that cannot issue before
 * cycle R is not examined again until R (its operands, pipe and delays can
 * only move later; its own issue or a barrier release clears the cache). */
static int
can_issue(struct sm *sm, struct sm_sched *s, uint8_t w, sim_cycle_t now, bool second,
          sim_cycle_t *retry)
{
    if (!second && now < s->retry[s->pos[w]]) {
        *retry = s->retry[s->pos[w]];
        return sm->warp[w].why;
    }
    int why = check_issue(sm, s, w, now, second, retry);
    if (why != SM_R_ISSUED && !second) {
        sched_wait(sm, s, w, *retry, why, now);
    }
    return why;
}

/* A warpgroup MMA wi of warp w issues at now (sim/inst.h): when its
 * group's wait may pass.  The warp's scheduler queues it to its tensor
 * core, which computes the warp's m16nNk quarter in N / 8 op.wgmma
 * intervals, in the order they were queued (a warp has one queued at a
 * time: wgmma_start, check_entry(), so the warpgroups sharing a tensor
 * core take turns).  Its tiles come from shared memory at
 * smem.wgmma_bytes_per_cycle for the whole SM: its quarter of B (and of
 * A, when A is in shared memory) after the tiles of the MMAs issued before
 * it, and A (the whole group's, 64 x 32 bytes) is read before the tensor
 * core starts.  *cost: the tensor-pipe slots it uses (statistics). */
static sim_cycle_t
wgmma_issue(struct sm *sm, struct sm_sched *s, uint8_t w, const struct warp_inst *wi,
            sim_cycle_t now, uint64_t *cost)
{
    const struct sm_costs *k = sm->k;
    unsigned n8 = SIM_WGMMA_N(wi->aux) / 8u, p = k->pipe[SIM_OPC_WGMMA];
    bool a_shared = (wi->aux & SIM_WGMMA_A_SHARED) != 0;
    *cost = k->cost[SIM_OPC_WGMMA] * (n8 ? n8 : 1u);
    sim_cycle_t compute = (sim_cycle_t)((*cost + k->lanes[p] - 1) / k->lanes[p]);
    uint64_t bytes = (uint64_t)n8 * 8u * 32u / 4u + (a_shared ? 64u * 32u / 4u : 0);
    uint64_t at = (uint64_t)now << 8;
    uint64_t fetch = sm->wgmma_free > at ? sm->wgmma_free : at;
    sm->wgmma_free = fetch + (uint64_t)((double)bytes * sm->wgmma_byte + 0.5);
    uint64_t a_fetch = a_shared ? (uint64_t)(64.0 * 32.0 * sm->wgmma_byte + 0.5) : 0;
    sim_cycle_t start = max_c((sim_cycle_t)((fetch + a_fetch + 255) >> 8), s->wgmma_free);
    s->wgmma_free = start + compute;
    sm->wgmma_start[w] = start;
    return start + compute + k->latency[SIM_OPC_WGMMA];
}

static void
issue(struct sm *sm, struct sm_sched *s, uint8_t w, sim_cycle_t now)
{
    const struct sm_costs *k = sm->k;
    unsigned pick = sm->warp[w].pick;
    size_t slot = ib_slot(sm, w, pick);
    /* the compact entry, which the check just read; the full instruction
     * (a cold line in a large buffer) only for a memory access or an
     * observer */
    const struct ib_meta *mt = &sm->ibm[slot];
    const struct warp_inst *wi = &sm->ib[slot];
    if (mt->sync == SIM_SYNC_POLL) {
        /* the polled wait executes now (inst.h): fetch may go on after it */
        struct sim_error err;
        err.code = SIM_OK;
        err.msg[0] = '\0';
        if (sm->src->ops->wait_commit(sm->src->ctx, sm->blk[sm->warp[w].blk].src_slot,
                                      sm->warp[w].idx, sm->warp[w].poll_complete, &sm->ib[slot],
                                      &err) < 0)
            sm_fail(sm, &err);
        sm->warp[w].hold &= (uint8_t)~SM_HOLD_POLL;
    }
    if ((sm->warp[w].hold & SM_HOLD_DEPBAR) && depbar(wi))   /* fetch stopped behind it */
        sm->warp[w].hold &= (uint8_t)~SM_HOLD_DEPBAR;
    if (mt->space != SIM_SPACE_NONE)     /* copied below: start its lines loading together */
        for (size_t o = 0; o < sizeof *wi; o += SM_LINE)
            __builtin_prefetch((const char *)wi + o);
    unsigned opc = mt->opclass, p = k->pipe[opc];
    uint64_t floor_slots = now * (uint64_t)k->lanes[p];
    uint64_t cost = k->cost[opc];
    sim_cycle_t ready = now + k->latency[opc];
    if (opc == SIM_OPC_TENSOR_DP)    /* a multiple of a DMMA.884's work */
        cost *= SIM_DMMA_UNITS(mt->aux);
    if (opc == SIM_OPC_WGMMA)    /* queued to the tensor core, not through the pipe */
        ready = wgmma_issue(sm, s, w, wi, now, &cost);
    else {
        uint64_t *busy = pipe_busy(sm, s, p);
        *busy = (*busy > floor_slots ? *busy : floor_slots) + cost;
    }
    if (p == SIM_PIPE_DPU && k->dpu_holds_issue) {  /* fed lanes-wide: nothing else issues */
        sim_cycle_t *h = &sm->issue_hold[s - sm->sched];
        *h = max_c(*h, now + (cost + k->lanes[p] - 1) / k->lanes[p]);
    }
    const struct sim_observer *ob = sm->obs;
    if (ob->on_issue != NULL)
        ob->on_issue(ob->ctx, sm->id, (uint32_t)(s - sm->sched), now, wi);
    sm->st.warp_insts++;
    unsigned lanes = inst_popc(mt->active_mask);
    sm->st.thread_insts += lanes;
    sm->st.pipe_insts[p]++;
    sm->st.pipe_used[p] += cost;
    sm->st.opclass_insts[opc]++;
    if (opc == SIM_OPC_FP32 || opc == SIM_OPC_FP32_FMA)
        sm->st.fp32_lanes += lanes;
    if (opc == SIM_OPC_FP32_FMA)
        sm->st.fma_insts++;

    bool is_mem = mt->space != SIM_SPACE_NONE;
    if (is_mem) {
        /* timed by sm_flush(), after every SM has ticked */
        SIM_ASSERT_AT(now, sm->n_pend < SM_PEND_MAX);
        struct sm_pend *pd = &sm->pend[sm->n_pend++];
        pd->warp = w;
        pd->floor = acc_floor(sm, w, mt);
        pd->since = mt->sync == SIM_SYNC_POLL ? sm->warp[w].poll_since : now;
        pd->wi = *wi;
        ldst_prefetch(sm->ldst, wi);   /* its flush, at the end of the cycle, then finds
                                          the tag sets in the host's caches */
        ready = SM_READY_PENDING;
    } else if (mt->n_dst > 0) {   /* a warp is done when its register writes are */
        sm->warp[w].done = max_c(sm->warp[w].done, ready);
    }
    for (unsigned i = 0; i < mt->n_dst; i++)
        sb_add(sm, w, mt->dst[i], ready, is_mem);
    sim_cycle_t after = mt->stall > 1 ? now + mt->stall : now + 1;   /* the static stall */
    sm->warp[w].next = opc == SIM_OPC_BRANCH ? max_c(after, now + k->latency[opc]) : after;
    bool barrier = (mt->flags & SIM_IF_BARRIER) != 0;
    bool branch = opc == SIM_OPC_BRANCH;
    uint32_t pc = mt->pc;

    sched_unwait(s, w);
    sm->warp[w].pick = 0;
    ib_remove(sm, w, pick);
    if (branch && !barrier)
        sm->warp[w].hold &= (uint8_t)~SM_HOLD_BRANCH;   /* lookahead held fetch at it */
    sched_issued(s, w);
    sm->last_issue = now;
    uint32_t bar_id = SIM_BAR_ID(mt->aux);
    if (barrier) {
        struct sm_block *b = &sm->blk[sm->warp[w].blk];
        if (!SIM_BAR_ARRIVE(mt->aux)) {
            sm->warp[w].state = W_BARRIER;
            sm->warp[w].bar = (uint8_t)bar_id;
        }
        b->at_bar[bar_id]++;
        b->bar_need[bar_id] = (uint16_t)SIM_BAR_WARPS(mt->aux);
        /* the SM's barrier unit takes one arrival at a time */
        uint64_t at = (uint64_t)now << 8;
        sm->bar_free = (sm->bar_free > at ? sm->bar_free : at) + sm->bar_step;
    }
    warp_fetch(sm, w, now);
    if (branch && sm->warp[w].ib_n > 0 && sm->cfg->sched_taken_branch_penalty > 0) {
        uint32_t next_pc = sm->ibm[ib_slot(sm, w, 0)].pc;
        if (next_pc <= pc || next_pc > pc + 16)   /* taken: fetch redirected */
            sm->warp[w].next = max_c(sm->warp[w].next, now + k->latency[opc] +
                                  sm->cfg->sched_taken_branch_penalty);
    }
    if (sm->warp[w].ib_n == 0 && sm->warp[w].ended)
        finish_warp(sm, w, now);
    else if (barrier)
        check_barrier(sm, &sm->blk[sm->warp[w].blk], bar_id, now);
}

/* Issue from warp w (check_issue() found it can), then, with several
 * dispatch units, the warp's next instructions while they can issue. */
static void
issue_all(struct sm *sm, struct sm_sched *s, uint8_t w, sim_cycle_t now)
{
    sim_cycle_t r;
    issue(sm, s, w, now);
    for (uint32_t d = 1; d < sm->cfg->sm_dispatch_units; d++) {
        if (sm->warp[w].state != W_ACTIVE || can_issue(sm, s, w, now, true, &r) != SM_R_ISSUED)
            break;
        issue(sm, s, w, now);
    }
}

/* The plain evaluation: the policy's whole order (sched_order()), every
 * warp through its retry cache (can_issue()); the first that can issue
 * does.  Two-level always takes it, demoting a candidate that waits on
 * memory or cannot issue again (drained, or at a barrier that the pending
 * warps must reach); LRR and GTO take it with sim.reference_scheduler, to
 * cross-check eval_sched()'s shortcut, which must give the same results. */
static int
eval_ordered(struct sm *sm, struct sm_sched *s, sim_cycle_t now, sim_cycle_t *retry)
{
    bool two_level = sm->cfg->sched_policy == CFG_SCHED_TWO_LEVEL;
    uint8_t order[SM_NW];
    unsigned n = sched_order(sm, s, order);
    int first = -1;

    *retry = SIM_CYCLE_MAX;
    for (unsigned i = 0; i < n; i++) {
        uint8_t w = order[i];
        sim_cycle_t r;
        int why = can_issue(sm, s, w, now, false, &r);
        if (why == SM_R_ISSUED) {
            issue_all(sm, s, w, now);
            return SM_R_ISSUED;
        }
        if (first < 0 && why != SM_R_IDLE)
            first = why;
        if (r < *retry)
            *retry = r;
        if (two_level && (why == SM_R_MEMORY || why == SM_R_IDLE || why == SM_R_BARRIER) &&
            s->n > sm->cfg->sched_active_warps) {
            sched_demote(sm, s, w);
            *retry = now + 1;
        }
    }
    return first >= 0 ? first : SM_R_IDLE;
}

/* Try warp w, known not to be waiting: issue, or record until when it waits. */
static bool
try_warp(struct sm *sm, struct sm_sched *s, uint8_t w, sim_cycle_t now)
{
    sim_cycle_t r;
    int why = check_issue(sm, s, w, now, false, &r);
    if (why == SM_R_ISSUED) {
        issue_all(sm, s, w, now);
        return true;
    }
    sched_wait(sm, s, w, r, why, now);
    return false;
}

/* Try the warps at the positions in m, lowest first, until one issues. */
static bool
try_positions(struct sm *sm, struct sm_sched *s, uint64_t m, sim_cycle_t now)
{
    while (m != 0) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        if (try_warp(sm, s, s->warps[i], now))
            return true;
    }
    return false;
}

/* Evaluate scheduler s at now; returns the slot's classification and,
 * when nothing issued, the earliest cycle worth retrying in *retry.
 * LRR and GTO visit only the warps not known to be waiting, in the
 * policy's order (sched_order()'s, without building it): the first that
 * can issue does; when none can, the slot takes the reason of the first
 * warp in that order that is not idle. */
static int
eval_sched(struct sm *sm, struct sm_sched *s, sim_cycle_t now, sim_cycle_t *retry)
{
    if (sm->cfg->sched_policy == CFG_SCHED_TWO_LEVEL || sm->cfg->sim_reference_scheduler)
        return eval_ordered(sm, s, now, retry);
    sched_refresh(s, now);
    uint64_t all = sched_all(s), ready = all & ~s->wait;
    unsigned start = 0;          /* LRR: position after the last warp issued */
    int lastpos = -1;            /* GTO, GTRR: the last warp issued goes first */
    if (s->have_last) {
        unsigned p = s->pos[s->last];
        if (sm->cfg->sched_policy != CFG_SCHED_LRR) {     /* GTO, GTRR: greedy first */
            lastpos = (int)p;
            if ((ready >> p & 1) && try_warp(sm, s, s->last, now))
                return SM_R_ISSUED;
            ready &= ~(UINT64_C(1) << p);
        }
        if (sm->cfg->sched_policy != CFG_SCHED_GTO)      /* LRR, GTRR: then round robin */
            start = p + 1 < s->n ? p + 1 : 0;
    }
    uint64_t high = start == 0 ? all : all & ~((UINT64_C(1) << start) - 1);
    if (try_positions(sm, s, ready & high, now) || try_positions(sm, s, ready & ~high, now))
        return SM_R_ISSUED;

    /* nothing issued: every warp now waits with a cached reason; the slot
     * takes the first in order that is not idle */
    uint64_t busy = all & ~s->idle;
    int first = SM_R_IDLE;
    if (lastpos >= 0 && (busy >> lastpos & 1))
        first = sm->warp[s->last].why;
    else if ((busy & high) != 0)
        first = sm->warp[s->warps[__builtin_ctzll(busy & high)]].why;
    else if (busy != 0)
        first = sm->warp[s->warps[__builtin_ctzll(busy)]].why;
    *retry = s->wait_min;
    return first;
}

void
sm_tick(struct sm *sm, sim_cycle_t now)
{
    sim_cycle_t next = SIM_CYCLE_MAX;
    bool issued = false;

    *sm->wake = SIM_CYCLE_MAX;
    /* An SM ticks once a cycle: a block that retires or launches after
     * this cycle's tick asks for another, which evaluates nothing and
     * passes the request on to the next cycle, where the change is seen. */
    bool again = now == sm->tick_cycle;
    sm->tick_cycle = now;
    if (sm->n_warps == 0)
        return;                  /* empty: its slots are idle until a block arrives */
    /* only the schedulers whose skip_until has come are evaluated (and one
     * whose barrier a warp of an earlier one completes in this tick:
     * check_barrier()); the others' slots keep their reason (sm->acct[]) */
    uint32_t due = 0;
    for (uint32_t i = 0; i < sm->n_sched; i++)
        due |= (uint32_t)(now >= sm->skip_until[i]) << i;
    if (again || *sm->host->failed)     /* failure: set only between ticks (sm_flush) */
        due = 0;
    sm->tick_due = due;
    while (sm->tick_due != 0 && !sm->failed) {
        unsigned i = (unsigned)__builtin_ctz(sm->tick_due);
        sm->tick_due &= sm->tick_due - 1;
        sm->tick_at = i;
        struct sm_sched *s = &sm->sched[i];
        sim_cycle_t r = SIM_CYCLE_MAX;
        SIM_ASSERT_AT(now, sm->acct[i] <= now);   /* evaluated once a cycle */
        sm->st.slot[sm->reason[i]] += now - sm->acct[i];
        int why = s->n == 0 ? SM_R_IDLE : eval_sched(sm, s, now, &r);
        bool held = why == SM_R_ISSUED && sm->issue_hold[i] > now + 1;
        sm->skip_until[i] = held ? sm->issue_hold[i] : why == SM_R_ISSUED ? 0 : r;
        sm->st.slot[why]++;
        /* the cycles a DPU instruction holds the scheduler count as pipe_busy */
        sm->reason[i] = (uint8_t)(held ? SM_R_PIPE_BUSY : why);
        sm->acct[i] = now + 1;
        issued |= why == SM_R_ISSUED;
    }
    sm->tick_at = SIM_MAX_SUBPARTITIONS;     /* outside a tick: check_barrier() adds nothing */
    for (uint32_t i = 0; i < sm->n_sched; i++)
        next = sm->skip_until[i] < next ? sm->skip_until[i] : next;
    next = (issued | (next <= now)) ? now + 1 : next;   /* issued, or asked again in this
                                                           cycle: the next one */
    /* watchdog: an SM evaluated again and again with warps resident and
     * none ever issuing is a stuck model state (a livelock of the model).
     * Slow progress is not: a warp waiting for a slow memory sleeps until
     * its data arrives (the SM is not evaluated in between), however many
     * cycles that takes, and a model deadlock (nothing left to wake
     * anything) is found by sim_run. */
    sm->idle_ticks = issued || sm->cluster_wait ? 0 : sm->idle_ticks + 1;
    sm->cluster_wait = false;
    if (sm->n_warps > 0 && sm->idle_ticks > sm->cfg->sim_watchdog_cycles) {
        sm_dump_state(sm, stderr, now);
        SIM_PANIC_AT(now, "watchdog: SM %u was evaluated %" PRIu64 " times in a row since cycle %"
                     PRIu64 " with %u warps resident and none issued (sim.watchdog_cycles = %"
                     PRIu64 ")", sm->id, sm->idle_ticks, sm->last_issue, sm->n_warps,
                     sm->cfg->sim_watchdog_cycles);
    }
    if (next != SIM_CYCLE_MAX)
        sm_wake(sm, next);
}

/* Signal n of sync object o is done at cycle t. */
static void
sync_signal(struct sm_sync_obj *o, uint32_t n, sim_cycle_t t)
{
    SIM_ASSERT_AT(t, n > o->done && n - o->done <= SM_SYNC_RING);
    o->ahead |= UINT64_C(1) << (n - o->done - 1);
    o->t[n % SM_SYNC_RING] = t;
    while (o->ahead & 1) {
        sim_cycle_t last = o->tdone[o->done % SM_SYNC_RING];
        o->done++;
        o->tdone[o->done % SM_SYNC_RING] = max_c(last, o->t[o->done % SM_SYNC_RING]);
        o->ahead >>= 1;
    }
}

/* The sync part of memory instruction wi of warp w, block b, whose access
 * completes at ready: an arrive is taken by the sync unit at its issue
 * (one at a time, sync.arrive_cycles each) and counted
 * sync.arrive_latency later (SIM_SYNC_SIGNAL_ASYNC: and not before the
 * warp's accumulating-register writes in flight have landed); a bulk
 * copy's signal is done when its data has landed; a wait's result comes
 * sync.wait_latency after the signal it waits for, and a polled wait that
 * issued at now after waiting since `since` has had its access in flight
 * from then.  Returns the cycle its destinations are ready. */
static sim_cycle_t
sync_op(struct sm *sm, uint8_t w, struct sm_block *b, const struct warp_inst *wi,
        sim_cycle_t since, sim_cycle_t now, sim_cycle_t ready)
{
    struct sm_sync_obj *o = &b->sync[wi->sync_obj];
    if (since < now)             /* a polled wait, suspended in the sync unit since then: its
                                    access latency counts from there */
        ready = since + (ready - now);
    if (wi->sync == SIM_SYNC_WAIT) {
        if (o->done < wi->aux)   /* a polled wait whose phase moved on between its last poll and
                                    its issue (same cycle): the latest known signal */
            return max_c(ready, o->tdone[o->done % SM_SYNC_RING] +
                                    sm->cfg->sync_wait_latency);
        if (o->done - wi->aux < SM_SYNC_RING)
            ready = max_c(ready, o->tdone[wi->aux % SM_SYNC_RING] + sm->cfg->sync_wait_latency);
        return ready;
    }
    sim_cycle_t at = ready;
    if (wi->bulk == SIM_BULK_NONE) {     /* from its issue, not its shared-memory access */
        uint64_t a = (uint64_t)since << 8;
        uint64_t taken = sm->sync_free > a ? sm->sync_free : a;
        sm->sync_free = taken + sm->sync_step;
        at = (sim_cycle_t)((taken + 255) >> 8) + sm->cfg->sync_arrive_latency;
    }
    if (wi->sync == SIM_SYNC_SIGNAL_ASYNC) {
        /* the entries of this cycle still pending are the warp's later
         * instructions' (flushed in issue order) */
        const struct sb_entry *e = &sm->sb[(size_t)w * SM_SB_MAX];
        for (uint8_t j = 0; j < sm->warp[w].sb_n; j++)
            if (e[j].reg >= SIM_REG_ACC_BASE && e[j].ready != SM_READY_PENDING)
                at = max_c(at, e[j].ready);
    }
    sync_signal(o, wi->aux, at);
    return ready;
}

bool
sm_remote_signal(struct sm *sm, uint64_t block, unsigned obj, uint32_t sig, sim_cycle_t t,
                 sim_cycle_t now)
{
    for (uint32_t i = 0; i < SIM_MAX_BLOCKS_PER_SM; i++) {
        struct sm_block *b = &sm->blk[i];
        if (!b->used || b->id != block)
            continue;
        if (b->sync == NULL)
            b->sync = xcalloc(SIM_SYNC_OBJS, sizeof *b->sync);
        sync_signal(&b->sync[obj], sig, t);
        sm_wake(sm, now + 1);    /* a wait for it may now issue */
        return true;
    }
    return false;
}

void
sm_flush(struct sm *sm, sim_cycle_t now)
{
    for (uint32_t i = 0; i < sm->n_pend; i++) {
        const struct sm_pend *pd = &sm->pend[i];
        uint8_t w = pd->warp;
        sim_cycle_t ready = ldst_access(sm->ldst, &pd->wi, now);
        if (pd->wi.sync != SIM_SYNC_NONE)
            ready = sync_op(sm, w, &sm->blk[sm->warp[w].blk], &pd->wi, pd->since, now, ready);
        for (uint32_t rm = pd->wi.rsig_mask; rm != 0; rm &= rm - 1) {
            uint64_t v = pd->wi.addr[__builtin_ctz(rm)];   /* done when it completes */
            sm->host->remote_signal(sm->host->ctx, sm->id, SIM_RSIG_BLOCK(v), SIM_RSIG_OBJ(v),
                                    SIM_RSIG_SIG(v), ready, now);
        }
        struct sb_entry *e = &sm->sb[(size_t)w * SM_SB_MAX];
        for (unsigned d = 0; d < pd->wi.n_dst; d++) {
            uint16_t reg = pd->wi.dst[d];
            for (uint8_t j = 0; j < sm->warp[w].sb_n; j++) {
                if (e[j].reg != reg)
                    continue;
                if (e[j].ready == SM_READY_PENDING)
                    e[j].ready = max_c(ready, pd->floor);
                else if (reg >= SIM_REG_ACC_BASE)   /* another write of this cycle was first */
                    e[j].ready = max_c(e[j].ready, ready);
            }
        }
        if (pd->wi.n_dst > 0)
            sm->warp[w].done = max_c(sm->warp[w].done, ready);
    }
    sm->n_pend = 0;
    for (uint32_t i = 0; i < sm->n_pend_blk; i++) {
        const struct sm_block *b = &sm->blk[sm->pend_blk[i]];
        sim_cycle_t done = now;
        for (uint32_t k = 0; k < b->n_warps; k++)
            done = max_c(done, sm->warp[b->warp[k]].done);
        sm->host->block_done(sm->host->ctx, sm->id, sm->pend_blk[i], done);
    }
    sm->n_pend_blk = 0;
    if (sm->failed)
        sm->host->fail(sm->host->ctx, &sm->err);
}

bool
sm_program_wait(const struct sm *sm, char *buf, size_t n)
{
    for (uint32_t b = 0; b < SIM_MAX_BLOCKS_PER_SM; b++) {
        const struct sm_block *k = &sm->blk[b];
        if (!k->used)
            continue;
        for (uint32_t id = 0; id < SIM_BARRIERS; id++)
            if (k->at_bar[id] != 0) {
                snprintf(buf, n, "block %" PRIu64 ": %u of its %u live warps wait at barrier %u, "
                         "which waits for %u (a bar.sync count more than the warps that reach "
                         "it?)", k->id, k->at_bar[id], k->live, id,
                         k->bar_need[id] ? k->bar_need[id] : k->live);
                return true;
            }
        for (uint32_t i = 0; i < k->n_warps; i++) {
            uint8_t w = k->warp[i];
            if (sm->warp[w].state == W_ACTIVE && sm->warp[w].ib_n > 0 &&
                sm->ib[ib_slot(sm, w, 0)].sync != SIM_SYNC_NONE) {
                snprintf(buf, n, "block %" PRIu64 " warp %u waits at pc %#x for a phase that "
                         "never completes (an mbarrier or barrier.cluster)", k->id,
                         sm->warp[w].idx, sm->ib[ib_slot(sm, w, 0)].pc);
                return true;
            }
        }
    }
    return false;
}

void
sm_dump_state(const struct sm *sm, FILE *out, sim_cycle_t now)
{
    static const char *const st[] = { "free", "active", "barrier", "drain" };
    fprintf(out, "SM %u at cycle %" PRIu64 ": %u blocks, %u warps, last issue %" PRIu64 "\n",
            sm->id, now, sm->n_blocks, sm->n_warps, sm->last_issue);
    for (uint32_t b = 0; b < SIM_MAX_BLOCKS_PER_SM; b++) {
        const struct sm_block *k = &sm->blk[b];
        if (!k->used)
            continue;
        fprintf(out, "  block slot %u: id %" PRIu64 " warps %u live %u", b, k->id, k->n_warps,
                k->live);
        for (uint32_t id = 0; id < SIM_BARRIERS; id++)
            if (k->at_bar[id] != 0)
                fprintf(out, ", %u at barrier %u (of %u)", k->at_bar[id], id,
                        k->bar_need[id] ? k->bar_need[id] : k->live);
        fputc('\n', out);
    }
    for (uint32_t w = 0; w < SM_NW; w++) {
        if (sm->warp[w].state == W_FREE)
            continue;
        fprintf(out, "  warp %2u: %-7s block slot %u idx %u sched %u next %" PRIu64
                " ibuf %u%s%s sb %u:", w, st[sm->warp[w].state], sm->warp[w].blk, sm->warp[w].idx,
                sm->warp[w].sched, sm->warp[w].next, sm->warp[w].ib_n, sm->warp[w].ended ? " ended" : "",
                sm->warp[w].hold ? " hold" : "", sm->warp[w].sb_n);
        for (uint8_t i = 0; i < sm->warp[w].sb_n; i++) {
            const struct sb_entry *e = &sm->sb[(size_t)w * SM_SB_MAX + i];
            fprintf(out, " r%u@%" PRIu64 "%s", e->reg, e->ready, e->mem ? "m" : "");
        }
        if (sm->warp[w].ib_n > 0) {
            const struct warp_inst *wi = &sm->ib[ib_slot(sm, w, 0)];
            fprintf(out, " head pc=%#x class=%s", wi->pc, inst_opclass_name(wi->opclass));
        }
        fputc('\n', out);
    }
}
