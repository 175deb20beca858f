/*
 * sim.c - the top level: kernels, block dispatch, the event loop and the
 * per-kernel statistics (see sim.h).
 *
 * Time advances to the earliest of the next event (a kernel's first
 * dispatch, block retirements, sampling) and the next SM tick (each SM
 * keeps the cycle it next needs evaluating in s->wakes[id]).  A cycle runs in
 * this order: launch events (retirements free room, blocks dispatch), then
 * the ticks of every SM due at it (sm_tick: SM-private work, on several
 * threads with -j), then, in SM id order on one thread, their flush
 * (sm_flush: memory accesses through the shared L2/DRAM, finished blocks),
 * then later-priority events.  A flush may retire a block at the same
 * cycle, and its successor launch there; an SM that has already ticked
 * in that cycle sees both from the next one (an SM ticks once a cycle).
 * Because shared state is only touched in SM order, the results do not
 * depend on the number of threads.  The loop ends when neither events nor ticks are
 * left; a kernel whose blocks have not all retired by then is deadlocked (a
 * model bug) and is reported with a state dump (exit 3).
 */
#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "sim/evq.h"
#include "sim/ffwd.h"
#include "sim/mem.h"
#include "sim/par.h"
#include "sim/sample.h"
#include "sim/sm_internal.h"

struct sim {
    struct sim_config cfg;
    struct sm_costs costs;
    evq *q;
    stats *st;
    mem *m;
    struct sm *sms;
    uint32_t n_sm;
    struct sim_observer obs;
    /* the running kernel */
    struct inst_source *src;
    struct kernel_info ki;
    struct occ_result occ;
    uint64_t n_blocks, next_block, retired;
    uint32_t cluster_size;       /* blocks per cluster of the running kernel (1: none) */
    /* the GPU's block scheduler (gpu.block_dispatch_interval > 0): one block
     * per interval, to the next SM with room in round-robin order */
    uint64_t disp_interval;      /* 1/256 cycles; 0 = unlimited (breadth first at once) */
    uint64_t disp_free;          /* 1/256 cycles: the next block may go at or after this */
    uint32_t disp_rr;            /* the SM the search for room starts at */
    bool disp_idle;              /* no SM had room: a retirement wakes the dispatcher */
    uint32_t *free_slot;         /* stack of free source slots */
    uint32_t n_free;
    sim_cycle_t kstart, last_retire;
    struct sampler samp;         /* sim.sample: the running kernel's (sample.h) */
    uint32_t skip_slots;         /* source slots for its skipped blocks, after the others */
    bool failed;
    struct sim_error err;
    struct sm_host host;         /* what the SMs see of the simulation (sm_host) */
    /* results */
    struct sim_kernel_result *kr;
    size_t nk, capk;
    struct stats_snapshot begin, total;
    struct stats_snapshot *kstats;   /* sim_kernel_stats()'s buffer, and a kernel's end's */
    uint64_t g_cycles, g_kernels, g_blocks;
    bool src_stats;              /* the source's counters are registered */
    /* ticking */
    uint32_t n_threads;          /* sim_set_threads() */
    par *pool;                   /* NULL until a kernel may tick in parallel */
    uint32_t *due;               /* [n_sm] ids of the SMs ticking this cycle */
    sim_cycle_t *wakes;          /* [n_sm] each SM's next tick cycle (sm->wake points here) */
    uint32_t n_due;
    sim_cycle_t due_at;
    struct adapt {               /* parallel or not: measured, see tick_cycle() */
        uint32_t epoch;          /* epochs of ADAPT_CYCLES parallel-worthy cycles */
        uint32_t cycles;         /* cycles into the current epoch */
        uint64_t sm_ticks;       /* SM ticks in it */
        double t0;               /* wall seconds at its start */
        double ns_per_tick[2];   /* last measured cost: [0] one thread, [1] the pool */
        uint32_t period;         /* epochs between measurements */
        bool use_pool;
        bool force;              /* SMSIM_FORCE_POOL set: always the pool (to measure it) */
    } ad;
};

/* sm_host.fail: the first failure stops the run. */
static void
host_fail(void *ctx, const struct sim_error *err)
{
    struct sim *s = ctx;
    if (s->failed)
        return;
    s->failed = true;
    s->err = *err;
}

static void host_block_done(void *ctx, uint32_t sm, uint32_t blk, sim_cycle_t when);
static void host_remote_signal(void *ctx, uint32_t sm, uint64_t block, unsigned obj,
                               uint32_t sig, sim_cycle_t t, sim_cycle_t now);

static void
derive_costs(struct sim *s)
{
    const struct sim_config *c = &s->cfg;
    for (unsigned p = 0; p < SIM_PIPE_COUNT; p++)
        s->costs.lanes[p] = c->pipe_lanes[p];
    for (unsigned o = 0; o < SIM_OPC_COUNT; o++) {
        unsigned p = (unsigned)c->op_pipe[o];
        s->costs.pipe[o] = (uint8_t)p;
        s->costs.latency[o] = c->op_latency[o];
        s->costs.cost[o] = config_op_cost(c, o);
    }
    s->costs.lookahead = 1;
    s->costs.dpu_holds_issue = c->pipe_dpu_holds_issue;
    s->costs.per_sm[SIM_PIPE_DPU] = c->pipe_dpu_per_sm;
}

sim *
sim_new(const struct sim_config *cfg)
{
    sim *s = xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    derive_costs(s);
    s->q = evq_new(1024);
    s->st = stats_new();
    s->m = mem_new(&s->cfg);
    s->n_sm = cfg->sm_count;
    s->sms = xcalloc_aligned(s->n_sm, sizeof *s->sms, SM_LINE);
    s->due = xcalloc(s->n_sm, sizeof *s->due);
    s->wakes = xcalloc(s->n_sm, sizeof *s->wakes);
    s->n_threads = 1;
    s->ad.force = getenv("SMSIM_FORCE_POOL") != NULL;
    s->host = (struct sm_host){ &s->costs, &s->occ, &s->obs, &s->failed, host_block_done,
                                host_fail, host_remote_signal, s };
    for (uint32_t i = 0; i < s->n_sm; i++)
        sm_init(&s->sms[i], &s->host, i, &s->cfg, s->m, &s->wakes[i]);
    stats_add_u64(s->st, "gpu.cycles", &s->g_cycles, "cycles",
                  "core cycles of all kernels (launch to last write performed)");
    stats_add_u64(s->st, "gpu.kernels", &s->g_kernels, "kernels", "kernels simulated");
    stats_add_u64(s->st, "gpu.blocks", &s->g_blocks, "blocks", "thread blocks simulated");
    sm_register_stats(s->sms, s->n_sm, s->st);
    stats_add_ratio(s->st, "gpu.ipc", "sm.warp_insts", "gpu.cycles", 1.0, "instructions/cycle",
                    "warp instructions issued per cycle, whole GPU");
    mem_register_stats(s->m, s->st);
    stats_snapshot_init(s->st, &s->begin);
    stats_snapshot_init(s->st, &s->total);
    s->kstats = xcalloc(1, sizeof *s->kstats);
    stats_snapshot_init(s->st, s->kstats);
    return s;
}

void
sim_destroy(sim *s)
{
    if (s == NULL)
        return;
    for (uint32_t i = 0; i < s->n_sm; i++)
        sm_fini(&s->sms[i]);
    free(s->sms);
    free(s->due);
    free(s->wakes);
    par_destroy(s->pool);
    for (size_t i = 0; i < s->nk; i++)
        stats_packed_free(&s->kr[i].stats);
    stats_snapshot_free(s->kstats);
    free(s->kstats);
    free(s->kr);
    free(s->free_slot);
    stats_snapshot_free(&s->begin);
    stats_snapshot_free(&s->total);
    mem_destroy(s->m);
    stats_destroy(s->st);
    evq_destroy(s->q);
    free(s);
}

void
sim_set_observer(sim *s, const struct sim_observer *obs)
{
    if (obs != NULL)
        s->obs = *obs;
    else
        memset(&s->obs, 0, sizeof s->obs);
}

void
sim_set_threads(sim *s, uint32_t n_threads)
{
    s->n_threads = n_threads ? n_threads : 1;
}

uint64_t
sim_blocks_retired(const sim *s)
{
    return s->retired;
}

uint64_t
sim_blocks_total(const sim *s)
{
    return s->n_blocks;
}

uint64_t
sim_warp_insts(const sim *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->n_sm; i++)
        n += s->sms[i].st.warp_insts;
    return n;
}

static void dispatch_event(void *ctx, sim_cycle_t now, uint64_t arg);

/* SMs per GPC (gpu.gpc_sms; 0 or more than the GPU: the whole GPU). */
static uint32_t
gpc_size(const struct sim *s)
{
    uint32_t gs = s->cfg.gpu_gpc_sms;
    return gs != 0 && gs < s->n_sm ? gs : s->n_sm;
}

/* Start the next cluster of blocks (kernel_info.cluster) at cycle t if it
 * fits: all its blocks at once, on the SMs of one GPC (gpu.gpc_sms
 * consecutive SMs; the GPCs tried from a rotating first), spread one
 * block per SM with room in turn.  False when no GPC has room for it. */
static bool
place_cluster(struct sim *s, sim_cycle_t t)
{
    uint64_t ids[16];
    uint32_t n = kernel_info_cluster_blocks(&s->ki, s->next_block / s->cluster_size, ids);
    uint32_t gs = gpc_size(s), n_gpc = (s->n_sm + gs - 1) / gs, bps = s->occ.blocks_per_sm;
    for (uint32_t k = 0; k < n_gpc; k++) {
        uint32_t g = (s->disp_rr / gs + k) % n_gpc, lo = g * gs;
        uint32_t hi = lo + gs < s->n_sm ? lo + gs : s->n_sm, room = 0;
        for (uint32_t i = lo; i < hi; i++)
            room += bps > s->sms[i].n_blocks ? bps - s->sms[i].n_blocks : 0;
        if (room < n)
            continue;
        uint32_t i = lo;
        for (uint32_t r = 0; r < n; r++) {
            while (!sm_has_room(&s->sms[i]))
                i = i + 1 < hi ? i + 1 : lo;
            struct sim_error err = { 0 };
            SIM_ASSERT_AT(t, s->n_free > 0);
            uint32_t slot = s->free_slot[--s->n_free];
            if (sm_launch_block(&s->sms[i], ids[r], slot, t, &err) < 0) {
                host_fail(s, &err);
                return false;
            }
            i = i + 1 < hi ? i + 1 : lo;
        }
        s->next_block += n;
        s->disp_rr = (hi < s->n_sm ? hi : 0);
        return true;
    }
    return false;
}

/* A skipped block's instruction (the block in skip slot j): its memory
 * accesses warm the caches of the SM a breadth-first dispatch would have
 * put it on, and the L2 (ldst_warm), untimed. */
static int
warm_inst(void *ctx, uint32_t j, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    struct sim *s = ctx;
    (void)warp, (void)err;
    if (wi->space != SIM_SPACE_NONE || wi->bulk != SIM_BULK_NONE)
        ldst_warm(s->sms[j % s->n_sm].ldst, wi);
    return SIM_OK;
}

static void
skipped_block(void *ctx, uint64_t id, uint64_t insts)
{
    (void)id;
    sample_skipped_block(&((struct sim *)ctx)->samp, insts);
}

/* Blocks at the end of a skipped run whose accesses warm the caches:
 * enough to move twice the L2's capacity at the rate the simulated blocks
 * moved bytes through their L1s (sectors of global and local loads and
 * stores per block retired), and two waves at least (each SM's L1).  The
 * caches' state after the run is what its last accesses left (the L2 is
 * turned over twice), so warming the earlier blocks too changes nothing
 * that later windows see.  Every block of the run when nothing was
 * measured. */
static uint64_t
warm_tail(const struct sim *s, uint64_t blocks, uint32_t wave)
{
    uint64_t sectors = 0;
    for (uint32_t i = 0; i < s->n_sm; i++)
        sectors += s->sms[i].mst.gld_sectors + s->sms[i].mst.gst_sectors;
    if (sectors == 0 || s->retired == 0)
        return blocks;
    double per_block = (double)sectors * s->cfg.l1_sector_size / (double)s->retired;
    double need = 2.0 * (double)s->cfg.l2_size_kb * 1024.0 / per_block;
    uint64_t tail = need >= (double)blocks ? blocks : (uint64_t)ceil(need);
    uint64_t floor2 = 2 * (uint64_t)wave;
    tail = tail < floor2 ? floor2 : tail;
    return tail < blocks ? tail : blocks;
}

/* Skip the current run [skip_lo, skip_hi) of a sampled kernel (sample.h):
 * its blocks run functionally, untimed, as many at a time as the GPU
 * holds, in source slots after the timing model's, their warps
 * interleaved a memory instruction at a time (ffwd_run), each one's warp
 * instructions counted; the memory accesses of the run's last blocks
 * (warm_tail) warm the L1s and the L2 in about the order the GPU would
 * make them. */
static void
skip_blocks(struct sim *s)
{
    uint32_t wpb = kernel_info_warps_per_block(&s->ki);
    uint64_t lo = s->samp.skip_lo, hi = s->samp.skip_hi;
    uint32_t n = s->skip_slots;
    if (n > hi - lo)
        n = (uint32_t)(hi - lo);
    /* a wave: the blocks the GPU holds, the timing model's source slots */
    uint32_t wave = s->n_sm * s->occ.blocks_per_sm;
    uint64_t cut = hi - warm_tail(s, hi - lo, wave);
    struct ffwd_calls cold = { NULL, skipped_block, s }, warm = { warm_inst, skipped_block, s };
    struct sim_error err = { 0 };
    if ((cut > lo && ffwd_run(s->src, wpb, lo, cut, wave, n, 1, &cold, &err) < 0) ||
        ffwd_run(s->src, wpb, cut, hi, wave, n, 1, &warm, &err) < 0) {
        sim_error_prefix(&err, "blocks %" PRIu64 "..%" PRIu64 " (skipped by sim.sample): ", lo,
                         hi - 1);
        host_fail(s, &err);
    }
    s->next_block = hi;
}

/* Launch the next block on SM sm at cycle t (the caller checked there is
 * one and room for it); blocks a sampled kernel skips are skipped first. */
static void
launch_next(struct sim *s, struct sm *sm, sim_cycle_t t)
{
    struct sim_error err = { 0 };
    SIM_ASSERT_AT(t, s->n_free > 0);
    uint32_t slot = s->free_slot[--s->n_free];
    if (s->samp.state == SAMPLE_PENDING && s->next_block == s->samp.skip_lo)
        skip_blocks(s);
    if (s->failed)
        return;
    if (sm_launch_block(sm, s->next_block, slot, t, &err) < 0) {
        host_fail(s, &err);
        return;
    }
    s->next_block++;
}

/* Start as many blocks as fit on SM i at cycle t. */
static void
fill_sm(struct sim *s, struct sm *sm, sim_cycle_t t)
{
    if (s->cluster_size > 1) {   /* whole clusters, wherever they fit */
        while (!s->failed && s->next_block < s->n_blocks && place_cluster(s, t))
            ;
        return;
    }
    while (!s->failed && s->next_block < s->n_blocks && sm_has_room(sm))
        launch_next(s, sm, t);
}

/* Hand out blocks at the dispatcher's rate: every block whose turn (a
 * multiple of the interval since the dispatcher was last idle) has come by
 * `now`, each to the next SM with room; then come back for the next one, or
 * go idle until a retirement makes room. */
static void
dispatch_paced(struct sim *s, sim_cycle_t now)
{
    uint64_t t = (uint64_t)now << 8;
    while (s->cluster_size > 1 && s->next_block < s->n_blocks && !s->failed &&
           s->disp_free <= t) {
        if (!place_cluster(s, now)) {
            s->disp_idle = true;
            return;
        }
        s->disp_free += s->disp_interval * s->cluster_size;
    }
    while (s->cluster_size == 1 && s->next_block < s->n_blocks && !s->failed &&
           s->disp_free <= t) {
        uint32_t i = s->disp_rr, k;
        for (k = 0; k < s->n_sm; k++) {
            i = (s->disp_rr + k) % s->n_sm;
            if (sm_has_room(&s->sms[i]))
                break;
        }
        if (k == s->n_sm) {
            s->disp_idle = true;
            return;
        }
        launch_next(s, &s->sms[i], now);
        if (s->failed)
            return;
        s->disp_rr = (i + 1) % s->n_sm;
        s->disp_free += s->disp_interval;
    }
    if (s->next_block < s->n_blocks && !s->failed)
        evq_schedule(s->q, (s->disp_free + 255) >> 8, EVQ_PRI_LAUNCH, dispatch_event, s, 0);
}

static void
dispatch_event(void *ctx, sim_cycle_t now, uint64_t arg)
{
    struct sim *s = ctx;
    (void)arg;
    if (s->disp_interval != 0) {
        dispatch_paced(s, now);
        return;
    }
    if (s->cluster_size > 1) {
        while (!s->failed && s->next_block < s->n_blocks && place_cluster(s, now))
            ;
        return;
    }
    /* breadth first: one block per SM per round */
    bool placed = true;
    while (placed && s->next_block < s->n_blocks && !s->failed) {
        placed = false;
        for (uint32_t i = 0; i < s->n_sm && s->next_block < s->n_blocks && !s->failed; i++) {
            struct sm *sm = &s->sms[i];
            if (!sm_has_room(sm))
                continue;
            launch_next(s, sm, now);
            if (s->failed)
                return;
            placed = true;
        }
    }
}

static sim_cycle_t
max_c(sim_cycle_t a, sim_cycle_t b)
{
    return a > b ? a : b;
}

/* How far the GPU's work has got at cycle now: the later of now and the
 * cycle the writes already issued will have been performed by (stores
 * that outrun the memory system queue up there: the kernel ends when they
 * drain, so that is where its rate shows).  The sampler's clock. */
static sim_cycle_t
work_front(const struct sim *s, sim_cycle_t now)
{
    sim_cycle_t f = max_c(now, mem_drain_cycle(s->m));
    for (uint32_t i = 0; i < s->n_sm; i++)
        f = max_c(f, ldst_drain_cycle(s->sms[i].ldst));
    return f;
}

static void
retire_event(void *ctx, sim_cycle_t now, uint64_t arg)
{
    struct sim *s = ctx;
    struct sm *sm = &s->sms[arg >> 8];
    uint32_t bi = (uint32_t)(arg & 0xff);
    uint32_t slot = sm->blk[bi].src_slot;

    sm_retire_block(sm, bi, now);
    s->free_slot[s->n_free++] = slot;
    s->retired++;
    s->last_retire = now;
    if (s->samp.state != SAMPLE_OFF && s->samp.state != SAMPLE_DONE)
        sample_retired(&s->samp, work_front(s, now), sim_warp_insts(s), s->next_block);
    if (s->obs.on_block_done != NULL)
        s->obs.on_block_done(s->obs.ctx, s, now);
    if (s->disp_interval == 0) {
        fill_sm(s, sm, now);
    } else if (s->disp_idle && s->next_block < s->n_blocks) {
        /* the dispatcher was waiting for room: its next block goes now */
        s->disp_idle = false;
        if (s->disp_free < (uint64_t)now << 8)
            s->disp_free = (uint64_t)now << 8;
        dispatch_paced(s, now);
    }
}

/* sm_host.block_done: retire the block at `when`, in the event order. */
static void
host_block_done(void *ctx, uint32_t sm, uint32_t blk, sim_cycle_t when)
{
    struct sim *s = ctx;
    evq_schedule(s->q, when, EVQ_PRI_LAUNCH, retire_event, s, (uint64_t)sm << 8 | blk);
}

/* sm_host.remote_signal: the block is on an SM of the GPC of SM `sm`
 * (place_cluster); one that has retired meanwhile waits for nothing. */
static void
host_remote_signal(void *ctx, uint32_t sm, uint64_t block, unsigned obj, uint32_t sig,
                   sim_cycle_t t, sim_cycle_t now)
{
    struct sim *s = ctx;
    uint32_t gs = gpc_size(s), lo = sm / gs * gs;
    for (uint32_t i = lo; i < lo + gs && i < s->n_sm; i++)
        if (sm_remote_signal(&s->sms[i], block, obj, sig, t, now))
            return;
}

/* The earliest cycle an SM asked to be ticked at; the SMs due then are
 * left in s->due (ascending ids). */
static sim_cycle_t
next_tick(struct sim *s)
{
    /* two branch-free passes: which SM is due next is unpredictable */
    sim_cycle_t t = SIM_CYCLE_MAX;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_sm; i++)
        t = s->wakes[i] < t ? s->wakes[i] : t;
    if (t == SIM_CYCLE_MAX) {
        s->n_due = 0;
        return t;
    }
    for (uint32_t i = 0; i < s->n_sm; i++) {
        s->due[n] = i;
        n += s->wakes[i] == t;
    }
    s->n_due = n;
    return t;
}

/* Worker k's share of the SMs due: those whose id is k modulo n, so that
 * an SM's state stays in one CPU's caches from cycle to cycle. */
static void
tick_share(void *ctx, uint32_t k, uint32_t n)
{
    struct sim *s = ctx;
    for (uint32_t i = 0; i < s->n_due; i++)
        if (s->due[i] % n == k)
            sm_tick(&s->sms[s->due[i]], s->due_at);
}

#define ADAPT_CYCLES 256         /* parallel-worthy cycles per measured epoch */
#define ADAPT_PERIOD 16          /* epochs: one timed on each side, then the rest on the
                                    faster; doubled (up to 1024) each time the pool loses */

double
sim_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether the pool ticks this cycle.  Both ways give the same results;
 * which is faster depends on how much work a cycle has and on how busy the
 * machine's CPUs are (a descheduled worker stalls every cycle).  So of
 * every `period` epochs one is timed on one thread, one on the pool, and
 * the others use the faster; while the pool loses, it is tried less and
 * less often. */
static bool
adapt_use_pool(struct sim *s)
{
    struct adapt *a = &s->ad;
    if (a->cycles == 0) {
        a->t0 = sim_wall_seconds();
        a->sm_ticks = 0;
        if (a->period == 0)
            a->period = ADAPT_PERIOD;
    }
    uint32_t phase = a->epoch;
    if (a->force)
        return true;
    return phase < 2 ? phase == 1 : a->use_pool;
}

static void
adapt_account(struct sim *s)
{
    struct adapt *a = &s->ad;
    a->sm_ticks += s->n_due;
    if (++a->cycles < ADAPT_CYCLES)
        return;
    uint32_t phase = a->epoch;
    if (phase < 2) {
        a->ns_per_tick[phase] = (sim_wall_seconds() - a->t0) * 1e9 / (double)a->sm_ticks;
        if (phase == 1) {
            a->use_pool = a->ns_per_tick[1] < a->ns_per_tick[0];
            a->period = a->use_pool ? ADAPT_PERIOD
                                    : (a->period < 1024 ? 2 * a->period : a->period);
        }
    }
    a->epoch = a->epoch + 1 >= a->period ? 0 : a->epoch + 1;
    a->cycles = 0;
}

/* Tick the SMs next_tick() found due at cycle t, then flush them in id
 * order. */
static void
tick_cycle(struct sim *s, sim_cycle_t t, bool concurrent)
{
    s->due_at = t;
    evq_set_now(s->q, t);
    /* a few SMs are not worth waking the workers for */
    bool worth = concurrent && s->n_due >= 2 * par_threads(s->pool);
    if (worth && adapt_use_pool(s))
        par_run(s->pool, tick_share, s);
    else
        tick_share(s, 0, 1);
    for (uint32_t i = 0; i < s->n_due && !s->failed; i++)
        sm_flush(&s->sms[s->due[i]], t);
    if (worth)
        adapt_account(s);
}

static int
run_kernel(struct sim *s, struct sim_error *err)
{
    const struct sim_config *c = &s->cfg;
    struct kernel_info *ki = &s->ki;
    sim_cycle_t start = evq_now(s->q);
    uint32_t regs_requested = ki->regs_per_thread;

    if (ki->regs_per_thread > c->sm_max_regs_per_thread)
        ki->regs_per_thread = c->sm_max_regs_per_thread;
    SIM_FORWARD_IF_ERROR(occupancy_compute(c, kernel_info_threads_per_block(ki),
                                           ki->regs_per_thread, ki->smem_static + ki->smem_dynamic,
                                           &s->occ, err));
    if (s->occ.warps_per_block > SM_WARPS_PER_BLOCK)
        return sim_error_set(err, SIM_ERR_FORMAT, "kernel %s: %u warps per block (at most %u)",
                             ki->name, s->occ.warps_per_block, SM_WARPS_PER_BLOCK);
    /* ptxas schedules PTX before the GPU runs it; traces of SASS are already scheduled */
    s->costs.lookahead = ki->isa == SIM_ISA_PTX ? c->sched_lookahead : 1;
    if (s->costs.lookahead > SM_IBUF_MAX)
        s->costs.lookahead = SM_IBUF_MAX;
    uint32_t max_slots = s->n_sm * s->occ.blocks_per_sm;
    s->n_blocks = kernel_info_blocks(ki);
    s->next_block = 0;
    s->cluster_size = kernel_info_cluster_size(ki);
    if (s->cluster_size > 16 || s->n_blocks % s->cluster_size != 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "kernel %s: clusters of %u blocks in a grid of "
                             "%" PRIu64, ki->name, s->cluster_size, s->n_blocks);
    if ((uint64_t)gpc_size(s) * s->occ.blocks_per_sm < s->cluster_size)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s: unsupported: a cluster of %u "
                             "blocks does not fit one GPC (%u SMs of %u blocks each: "
                             "gpu.gpc_sms, occupancy)", ki->name, s->cluster_size, gpc_size(s),
                             s->occ.blocks_per_sm);
    if (ki->cooperative && s->n_blocks > max_slots)
        return sim_error_set(err, SIM_ERR_USAGE, "kernel %s: a cooperative launch of %" PRIu64
                             " blocks: at most %u can be resident at once (%u SMs x %u blocks "
                             "each), and every block of a cooperative launch must be",
                             ki->name, s->n_blocks, max_slots, s->n_sm, s->occ.blocks_per_sm);
    s->retired = 0;
    s->last_retire = start;
    s->kstart = start;
    free(s->free_slot);
    s->free_slot = xmalloc(max_slots * sizeof *s->free_slot);
    s->n_free = max_slots;
    for (uint32_t i = 0; i < max_slots; i++)
        s->free_slot[i] = max_slots - 1 - i;
    /* a sampled kernel's skipped blocks run functionally in max_slots more
     * slots (skip_blocks) */
    s->skip_slots = c->sim_sample && s->cluster_size == 1 ? max_slots : 0;
    SIM_FORWARD_IF_ERROR(s->src->ops->kernel_begin(s->src->ctx, max_slots + s->skip_slots,
                                                   s->n_sm, err));

    uint64_t l1 = occupancy_l1_bytes(c, &s->occ);
    for (uint32_t i = 0; i < s->n_sm; i++) {
        struct sm *sm = &s->sms[i];
        sm->src = s->src;
        sm->occ_since = start;
        sm->last_issue = start;
        sm->idle_ticks = 0;
        sm->tick_cycle = SIM_CYCLE_MAX;
        for (uint32_t k = 0; k < sm->n_sched; k++) {
            sm->reason[k] = SM_R_IDLE;
            sm->acct[k] = start;
        }
        ldst_kernel_begin(sm->ldst, l1);
    }
    stats_snapshot_take(s->st, &s->begin);
    struct sample_params sp = { c->sim_sample_min_waves, c->sim_sample_windows,
                                c->sim_sample_tail_waves, c->sim_sample_chunks,
                                c->sim_sample_tolerance };
    sample_begin(&s->samp, &sp, c->sim_sample && s->cluster_size == 1 && !ki->cooperative,
                 s->n_blocks, max_slots, start, sim_warp_insts(s));
    if (c->sim_sample && s->cluster_size > 1)
        snprintf(s->samp.why, sizeof s->samp.why, "clusters are simulated in full");
    else if (c->sim_sample && ki->cooperative)
        snprintf(s->samp.why, sizeof s->samp.why, "a cooperative launch is simulated in full");
    if (s->obs.on_kernel_begin != NULL)
        s->obs.on_kernel_begin(s->obs.ctx, s, ki);

    s->disp_interval = (uint64_t)(c->gpu_block_dispatch_interval * 256.0 + 0.5);
    s->disp_free = (uint64_t)(start + c->gpu_kernel_launch_latency) << 8;
    s->disp_rr = 0;
    s->disp_idle = false;
    evq_schedule(s->q, start + c->gpu_kernel_launch_latency, EVQ_PRI_LAUNCH, dispatch_event, s, 0);
    bool concurrent = s->n_threads > 1 && s->obs.on_issue == NULL && s->src->ops->concurrent_next;
    if (concurrent && s->pool == NULL)
        s->pool = par_new(s->n_threads < s->n_sm ? s->n_threads : s->n_sm);
    bool truncated = false;
    while (!s->failed) {
        sim_cycle_t te = evq_next_cycle(s->q), ts = next_tick(s);
        sim_cycle_t t = te < ts ? te : ts;
        if (t == SIM_CYCLE_MAX)
            break;
        if (c->sim_max_cycles != 0 && t - start > c->sim_max_cycles) {
            truncated = true;
            break;
        }
        if (te == t && (ts != t || evq_next_pri(s->q) < EVQ_PRI_TICK))
            evq_run_one(s->q);
        else
            tick_cycle(s, t, concurrent);
    }
    if (s->failed) {
        *err = s->err;
        return err->code < 0 ? err->code : SIM_ERR_INTERNAL;
    }
    sim_cycle_t end = max_c(s->last_retire, start + c->gpu_kernel_launch_latency);
    if (truncated) {
        end = start + c->sim_max_cycles;
    } else if (s->retired + s->samp.skipped != s->n_blocks) {
        char why[256];
        for (uint32_t i = 0; i < s->n_sm; i++)   /* the program's own deadlock: exit 2 */
            if (s->sms[i].n_warps > 0 && sm_program_wait(&s->sms[i], why, sizeof why))
                return sim_error_set(err, SIM_ERR_FORMAT, "deadlocked at cycle %" PRIu64
                                     ": %s", evq_now(s->q), why);
        for (uint32_t i = 0; i < s->n_sm; i++)
            if (s->sms[i].n_warps > 0)
                sm_dump_state(&s->sms[i], stderr, evq_now(s->q));
        SIM_PANIC_AT(evq_now(s->q), "deadlock: kernel %s: %" PRIu64 " of %" PRIu64 " blocks "
                     "retired and nothing left to simulate", ki->name, s->retired, s->n_blocks);
    } else {
        end = max_c(end, mem_drain_cycle(s->m));
        for (uint32_t i = 0; i < s->n_sm; i++) {
            end = max_c(end, ldst_drain_cycle(s->sms[i].ldst));
            /* a block whose last instruction writes nothing retires in the
             * cycle of its last issue, which the kernel still contains */
            for (uint32_t k = 0; k < s->sms[i].n_sched; k++)
                end = max_c(end, s->sms[i].acct[k]);
        }
    }
    uint64_t cycles = end - start;
    for (uint32_t i = 0; i < s->n_sm; i++) {
        struct sm *sm = &s->sms[i];
        sm_catch_up(sm, end);
        sm_occ_update(sm, end);
        sm->st.cycles += cycles;
        sm->st.warp_slot_cycles += cycles * c->sm_max_warps;
        for (unsigned p = 0; p < SIM_PIPE_COUNT; p++)
            sm->st.pipe_avail[p] += cycles * s->costs.lanes[p] *
                                    (s->costs.per_sm[p] ? 1 : sm->n_sched);
    }
    s->g_cycles += cycles;
    s->g_kernels++;
    s->g_blocks += s->retired;

    if (s->nk == s->capk) {
        s->capk = s->capk ? 2 * s->capk : 4;
        s->kr = xrealloc(s->kr, s->capk * sizeof *s->kr);
    }
    struct sim_kernel_result *kr = &s->kr[s->nk++];
    memset(kr, 0, sizeof *kr);
    kr->ki = *ki;
    kr->occ = s->occ;
    kr->carveout_kb = occupancy_carveout_kb(c, &s->occ);
    kr->l1_bytes = l1;
    kr->start = start;
    kr->cycles = cycles;
    kr->blocks = s->retired;
    sample_result(&s->samp, cycles, sim_warp_insts(s), &kr->sample);
    if (truncated && kr->sample.sampled) {   /* stopped: no estimate of the rest */
        memset(&kr->sample, 0, sizeof kr->sample);
        kr->sample.simulated = kr->sample.cycles = kr->sample.lo = kr->sample.hi = cycles;
    }
    kr->sample_asked = c->sim_sample;
    kr->cycles = kr->sample.cycles;
    if (c->sim_sample && !kr->sample.sampled)
        snprintf(kr->sample_why, sizeof kr->sample_why, "%s",
                 truncated ? "stopped at sim.max_cycles" : s->samp.why);
    kr->regs_requested = regs_requested;
    kr->truncated = truncated;
    stats_snapshot_take(s->st, s->kstats);
    stats_snapshot_diff(s->kstats, s->kstats, &s->begin);
    stats_pack(&kr->stats, s->kstats);
    if (s->obs.on_kernel_end != NULL)
        s->obs.on_kernel_end(s->obs.ctx, s, kr);

    /* drop leftover (stale or truncated) events; the next kernel starts at end */
    evq_destroy(s->q);
    s->q = evq_new(1024);
    evq_set_now(s->q, end + (kr->cycles - kr->sample.simulated));   /* the skipped waves */
    for (uint32_t i = 0; i < s->n_sm; i++) {
        struct sm *sm = &s->sms[i];
        s->wakes[i] = SIM_CYCLE_MAX;
        if (truncated) {
            /* abandon the blocks still resident */
            for (uint32_t b = 0; b < SIM_MAX_BLOCKS_PER_SM; b++)
                sm->blk[b].used = false;
            for (uint32_t w = 0; w < SM_NW; w++)
                sm->warp[w].state = W_FREE;
            for (uint32_t k = 0; k < sm->n_sched; k++)
                sm->sched[k].n = 0;
            sm->n_blocks = 0;
            sm->n_warps = 0;
        }
    }
    return SIM_OK;
}

/* Does msg name kernel `name` ("kernel NAME" followed by no more of a
 * name; a long name may have been cut to 96 characters and "...",
 * sim/error.c)? */
static bool
names_kernel(const char *msg, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(msg, "kernel "); p != NULL; p = strstr(p + 1, "kernel ")) {
        const char *q = p + 7;
        char c = strncmp(q, name, n) == 0 ? q[n] : 'x';
        if (!(isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.'))
            return true;         /* the whole name */
        if (n > 128 && strncmp(q, name, 96) == 0 && strncmp(q + 96, "...", 3) == 0)
            return true;         /* its first 96 characters and "..." */
    }
    return false;
}

int
sim_run(sim *s, struct inst_source *src, struct sim_error *err)
{
    int rc;
    s->src = src;
    if (src->ops->set_target != NULL)
        src->ops->set_target(src->ctx, s->cfg.gpu_cc);
    if (src->ops->register_stats != NULL && !s->src_stats) {
        /* the source's counters join the registry: size the snapshots anew */
        src->ops->register_stats(src->ctx, s->st);
        s->src_stats = true;
        stats_snapshot_free(&s->begin);
        stats_snapshot_free(&s->total);
        stats_snapshot_free(s->kstats);
        stats_snapshot_init(s->st, &s->begin);
        stats_snapshot_init(s->st, &s->total);
        stats_snapshot_init(s->st, s->kstats);
    }
    for (;;) {
        rc = src->ops->next_kernel(src->ctx, &s->ki, err);
        if (rc <= 0)
            break;
        if (s->cfg.sim_flush_caches)
            mem_flush(s->m);
        if (s->cfg.l2_preload_memcpy && src->ops->copies != NULL) {
            const struct sim_copy *cp;
            size_t n = src->ops->copies(src->ctx, &cp);
            for (size_t i = 0; i < n; i++)
                mem_preload(s->m, cp[i].addr, cp[i].bytes);
        }
        rc = run_kernel(s, err);
        if (rc < 0) {
            if (err != NULL && !names_kernel(err->msg, s->ki.name))
                sim_error_prefix(err, "kernel %s: ", s->ki.name);
            break;
        }
    }
    stats_snapshot_take(s->st, &s->total);
    s->src = NULL;
    return rc < 0 ? rc : SIM_OK;
}

const struct sim_config *
sim_config(const sim *s)
{
    return &s->cfg;
}

const stats *
sim_stats(const sim *s)
{
    return s->st;
}

size_t
sim_kernel_count(const sim *s)
{
    return s->nk;
}

const struct sim_kernel_result *
sim_kernel(const sim *s, size_t i)
{
    return i < s->nk ? &s->kr[i] : NULL;
}

const struct stats_snapshot *
sim_kernel_stats(const sim *s, size_t i)
{
    if (i >= s->nk)
        return NULL;
    stats_unpack(&s->kr[i].stats, s->kstats);
    return s->kstats;
}

sim_cycle_t
sim_total_cycles(const sim *s)
{
    uint64_t n = 0;
    for (size_t k = 0; k < s->nk; k++)
        n += s->kr[k].cycles;
    return n;
}

const struct stats_snapshot *
sim_total_snapshot(const sim *s)
{
    return &s->total;
}

sim_cycle_t
sim_now(const sim *s)
{
    return evq_now(s->q);
}
