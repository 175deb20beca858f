/*
 * sm_internal.h - the state of one SM, shared by sm.c, sched.c and sim.c.
 * Nothing outside sim/ includes this file.
 *
 * Per-warp state is an array of one-cache-line structs indexed by the
 * SM's warp slot (0 .. sm.max_warps-1): a tick of one of many SMs finds
 * nothing in the host's L1, so a warp's scalars share one line.  A warp slot belongs to one block slot and one
 * scheduler (sub-partition = slot % sm.subpartitions).
 *
 * Timing invariants:
 *  - every pending register write has a known completion cycle (ALU:
 *    issue + op latency; memory: computed by ldst/mem at issue), so a
 *    stalled warp always knows when it can retry, except a warp waiting at
 *    a barrier, which is woken by the warp that completes the barrier;
 *  - sm->acct[i] is the first cycle whose slot of scheduler i is not yet
 *    classified; the cycles up to its next evaluation repeat its last
 *    reason, which is exact because nothing changes in between (a tick
 *    evaluates only the schedulers whose skip_until has come).
 */
#ifndef SMSIM_SIM_SM_INTERNAL_H
#define SMSIM_SIM_SM_INTERNAL_H

#include "sim/config.h"
#include "sim/evq.h"
#include "sim/inst.h"
#include "sim/ldst.h"
#include "sim/observer.h"
#include "sim/occupancy.h"
#include "sim/stats.h"

#define SM_SB_MAX 64             /* pending register writes per warp */
#define SM_IBUF_MAX 16           /* instruction buffer entries per warp */
#define SM_NW SIM_MAX_WARPS_PER_SM
#define SM_LINE 64               /* host cache line: alignment of per-warp/scheduler state */
#define SM_WARPS_PER_BLOCK (SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE)
#define SM_PEND_MAX (SIM_MAX_SUBPARTITIONS * 2)  /* memory instructions one tick can issue */
/* Scoreboard ready time of a memory result whose access is not yet timed
 * (between sm_tick and sm_flush). */
#define SM_READY_PENDING (SIM_CYCLE_MAX - 1)

/* What an SM needs from the simulation that owns it (sim.c fills it in):
 * the running kernel's costs and occupancy, the observer, and where it
 * reports a retired block and a failure.  The SM knows nothing else of
 * its owner. */
struct sm_host {
    const struct sm_costs *costs;        /* per-opcode costs of the config */
    const struct occ_result *occ;        /* the running kernel's occupancy */
    const struct sim_observer *obs;      /* hooks (any may be NULL) */
    const bool *failed;                  /* the run has failed (set between ticks) */
    /* block blk of SM sm retires at cycle when (its last write performed) */
    void (*block_done)(void *ctx, uint32_t sm, uint32_t blk, sim_cycle_t when);
    /* the SM's source failed: stop the run with err */
    void (*fail)(void *ctx, const struct sim_error *err);
    /* signal sig of sync object obj of block `block` (another block of the
     * cluster of a block of SM sm) is done at cycle t (inst.h, remote
     * signals); called from sm_flush() at now */
    void (*remote_signal)(void *ctx, uint32_t sm, uint64_t block, unsigned obj, uint32_t sig,
                          sim_cycle_t t, sim_cycle_t now);
    void *ctx;
};

enum warp_state {
    W_FREE = 0,                  /* slot unused */
    W_ACTIVE,                    /* running (may wait for launch, fetch, operands) */
    W_BARRIER,                   /* issued a barrier, waiting for its block */
    W_DRAIN                      /* all instructions issued; results still in flight */
};

/* Classification of one scheduler issue slot (one scheduler-cycle). */
#define SM_REASONS(X) \
    X(ISSUED, "issued", "an instruction was issued") \
    X(NO_INST, "no_inst", "no instruction ready: launch, fetch or control (branch) delay") \
    X(SCOREBOARD, "scoreboard", "operand not ready: waiting on an arithmetic result") \
    X(MEMORY, "memory", "operand not ready: waiting on a load or atomic") \
    X(PIPE_BUSY, "pipe_busy", "instruction ready but its pipe is busy") \
    X(BARRIER, "barrier", "warps wait at a block barrier") \
    X(IDLE, "idle", "no warp resident on the scheduler")

enum sm_reason {
#define X(id, name, help) SM_R_##id,
    SM_REASONS(X)
#undef X
    SM_R_COUNT
};

/* A block's sync object (inst.h, enum sim_sync): signals 1 .. done are
 * all done; of the next SM_SYNC_RING, bit i of ahead says signal done + 1
 * + i is done (at t[its number % ring]); tdone[n % ring] = when signals 1
 * .. n were all done, for the last SM_SYNC_RING of them (tdone[done %
 * ring]: the latest; 0 before any). */
#define SM_SYNC_RING 64u
struct sm_sync_obj {
    uint32_t done;
    uint64_t ahead;
    sim_cycle_t t[SM_SYNC_RING];
    sim_cycle_t tdone[SM_SYNC_RING];
};

struct sm_block {
    bool used;
    struct sm_sync_obj *sync;    /* SIM_SYNC_OBJS of them, allocated by the block slot's first
                                  * sync instruction (kept and cleared for the next block) */
    uint64_t id;                 /* linear block id in the grid */
    uint32_t src_slot;           /* inst_source slot */
    uint32_t n_warps;
    uint32_t live;               /* warps whose streams have not ended */
    uint16_t at_bar[SIM_BARRIERS];   /* warps that arrived at each barrier (SIM_BAR_AUX) ... */
    uint16_t bar_need[SIM_BARRIERS]; /* ... and the warps it waits for (0: all live warps) */
    uint8_t warp[SM_WARPS_PER_BLOCK]; /* SM warp slot of each warp of the block */
};

/* One warp scheduler (sub-partition); what every tick reads of it is in
 * struct sm's first lines (skip_until[], reason[], acct[]). */
struct sm_sched {
    /* The warps whose last check found they cannot issue before their
     * retry[] (bit i = warps[i]); a clear bit means the warp must be
     * checked.  Lets an evaluation visit only the warps that may issue
     * instead of every resident one. */
    _Alignas(SM_LINE) uint64_t wait;
    uint64_t idle;               /* waiting warps whose reason is SM_R_IDLE (drained) */
    sim_cycle_t wait_min;        /* <= the least retry[] of the waiting warps (exact after
                                    sched_refresh() scanned them; an issue can leave it low) */
    uint64_t far;                /* waiting warps whose retry was SCHED_FAR or more cycles
                                    ahead when they began to wait (on memory, drained):
                                    sched_refresh() scans them only once far_min has come */
    sim_cycle_t far_min;         /* <= the least retry[] of the far warps */
    uint8_t n;
    uint8_t last;                /* slot of the last warp issued (LRR/GTO) */
    bool have_last;
    uint8_t warps[SM_NW];        /* warp slots in age order (oldest first) */
    uint8_t pos[SM_NW];          /* by warp slot: its index in warps[] */
    sim_cycle_t retry[SM_NW];    /* by position: the warp cannot issue before this cycle
                                    (valid while its wait bit is set) */
    uint64_t pipe_busy[SIM_PIPE_COUNT]; /* lane-slots: pipe accepts while < (cycle+1)*lanes */
    sim_cycle_t wgmma_free;      /* its tensor core has started every warpgroup MMA queued to
                                    it and is busy until here (sm.c wgmma_issue) */
};

/* The scalar state of one warp slot, one host cache line: checking a warp
 * touches this line, its buffered instruction and its scoreboard. */
/* Why a warp's fetch is held (sm_warp.hold): each is lifted by its own
 * event, so a branch that issues while a barrier behind it has been
 * fetched does not let the instructions after the barrier be fetched
 * (and executed: a %clock read there would read a time before the
 * barrier released). */
#define SM_HOLD_BARRIER 1u       /* until the barrier releases */
#define SM_HOLD_BRANCH 2u        /* until the branch issues (lookahead) */
#define SM_HOLD_POLL 4u          /* until the polled wait issues (inst.h SIM_SYNC_POLL) */
#define SM_HOLD_DEPBAR 8u        /* until the wait on accumulating registers issues (types.h) */

struct sm_warp {
    _Alignas(SM_LINE) sim_cycle_t next; /* earliest cycle the warp may issue */
    sim_cycle_t done;            /* latest completion of the warp's instructions */
    sim_cycle_t poll_since;      /* a polled wait at the head: the cycle it could first issue
                                    (SIM_CYCLE_MAX: not polled yet) ... */
    bool poll_complete;          /* ... and whether the last poll found its phase complete */
    uint8_t state;               /* enum warp_state */
    uint8_t blk;                 /* block slot */
    uint8_t idx;                 /* warp index within its block */
    uint8_t bar;                 /* the barrier it waits at (state W_BARRIER) */
    uint8_t sched;               /* scheduler (slot % sub-partitions) */
    uint8_t ib_n;                /* instructions in the buffer */
    uint8_t ib_pos[SM_IBUF_MAX]; /* the buffer's entry slot (0 .. ibuf-1) of each position,
                                    oldest first; positions ib_n.. hold the free slots, so an
                                    entry issued out of order frees its slot without moving
                                    the others */
    uint8_t sb_n;                /* scoreboard entries */
    uint8_t pick;                /* buffer position check_issue() found issuable */
    uint8_t why;                 /* reason it cannot issue before its retry (valid while
                                    its bit is set in its scheduler's wait) */
    bool ended;                  /* the source has no more instructions */
    uint8_t hold;                /* SM_HOLD_*: a barrier (or, with lookahead, a branch) was
                                    fetched: fetch no further until released / issued */
    uint8_t cand_n;              /* lookahead: the window size cand was found for; 0 = stale
                                    (an issue changed the window) */
    uint16_t cand;               /* lookahead: window positions with no register dependence
                                    on an older entry that may issue ahead of them (bit 0
                                    always): depends only on the window's contents */
    uint8_t pwait;               /* with cand_n: 1 + the pipe that alone held back every
                                    candidate at the last check (operands and fetch were
                                    ready, and stay so until the window changes; the head
                                    is always a candidate, so it issues when the pipe
                                    accepts); 0 = none */
};

struct sb_entry {
    uint16_t reg;
    uint8_t mem;                 /* written by a memory instruction */
    sim_cycle_t ready;           /* cycle the value can be read */
};

/* The fields of a buffered instruction that the issue checks read, kept
 * apart from the whole struct warp_inst (whose 32 lane addresses make it
 * 300-odd bytes): scanning a lookahead window then touches a few host
 * cache lines instead of several kilobytes. */
struct ib_meta {
    sim_cycle_t avail;           /* cycle the entry may issue (fetch latency) */
    uint32_t pc, active_mask;    /* copies of the instruction's: issue() reads only this */
    uint8_t opclass, space, flags, n_dst, n_src;
    uint8_t stall;               /* warp_inst.stall */
    uint8_t sync, sync_obj;      /* warp_inst.sync, .sync_obj */
    uint32_t aux;                /* warp_inst.aux */
    uint16_t dst[SIM_MAX_DST];
    uint16_t src[SIM_MAX_SRC];
};

/* A memory instruction issued by a tick, timed by sm_flush(). */
struct sm_pend {
    uint8_t warp;
    sim_cycle_t floor;           /* the latest completion already pending on its accumulating
                                    destinations when it issued (types.h): they are ready
                                    no earlier */
    sim_cycle_t since;           /* a polled wait: the cycle it began to wait, suspended in the
                                    sync unit (its latency counts from there); else its issue */
    struct warp_inst wi;         /* a copy: the buffer entry is reused at once */
};

struct sm_stats {
    uint64_t warp_insts;         /* warp instructions issued */
    uint64_t thread_insts;       /* active lanes of issued instructions */
    uint64_t slot[SM_R_COUNT];   /* scheduler-cycles by classification */
    uint64_t pipe_insts[SIM_PIPE_COUNT];
    uint64_t pipe_used[SIM_PIPE_COUNT];   /* lane-slots occupied */
    uint64_t pipe_avail[SIM_PIPE_COUNT];  /* lane-slots available (set at kernel end) */
    uint64_t opclass_insts[SIM_OPC_COUNT];
    uint64_t fp32_lanes;         /* active lanes of FP32 instructions */
    uint64_t fma_insts;          /* FP32 FMA warp instructions */
    uint64_t cycles;             /* kernel cycles (same for every SM) */
    uint64_t active_cycles;      /* cycles with at least one resident warp */
    uint64_t warp_cycles;        /* sum over cycles of resident warps */
    uint64_t warp_slot_cycles;   /* cycles x sm.max_warps */
    uint64_t blocks;             /* blocks completed */
};

struct sm {
    /* read by every tick: the first host cache lines */
    const struct sm_host *host;  /* its owner (sim.c) */
    const struct sim_config *cfg;
    const struct sm_costs *k;    /* the simulation's per-opcode costs (host->costs) */
    sim_cycle_t *wake;           /* cycle of the next tick, SIM_CYCLE_MAX if none: the SM's
                                    entry of the simulation's dense array, which the loop
                                    scans every cycle without touching struct sm */
    sim_cycle_t last_issue;      /* the last cycle a warp issued (for messages) */
    uint64_t idle_ticks;         /* ticks in a row in which no warp issued (the watchdog) */
    sim_cycle_t cluster_seen[SM_NW];  /* by warp slot: when its cluster barrier wait found its
                                         phase complete (SIM_CYCLE_MAX: not yet) */
    bool cluster_wait;           /* this tick a warp waited for its cluster's barrier (other
                                    SMs' warps: legitimately long, no livelock) */
    sim_cycle_t tick_cycle;      /* the cycle of the last tick (an SM ticks once a cycle) */
    uint32_t tick_due;           /* during a tick: schedulers still to evaluate (bits) */
    uint32_t tick_at;            /* during a tick: the scheduler being evaluated; else
                                    SIM_MAX_SUBPARTITIONS */
    uint32_t n_warps;            /* resident warps */
    uint32_t n_sched;
    uint32_t n_pend;             /* entries of pend[] */
    uint32_t n_pend_blk;         /* entries of pend_blk[] */
    /* by scheduler: */
    sim_cycle_t skip_until[SIM_MAX_SUBPARTITIONS]; /* no warp can issue before this cycle
                                    (cache of the last evaluation that issued nothing, or the
                                    issue_hold[] of one that issued; issue_hold[] when a warp
                                    was added, removed or released from a barrier) */
    uint8_t reason[SIM_MAX_SUBPARTITIONS];   /* classification of the last evaluated cycle,
                                                and, while now < skip_until, of every cycle */
    sim_cycle_t acct[SIM_MAX_SUBPARTITIONS]; /* first cycle not yet classified: the cycles from
                                    here to the scheduler's next evaluation all take reason[]
                                    (added to st.slot[] then, or by sm_catch_up()) */
    sim_cycle_t issue_hold[SIM_MAX_SUBPARTITIONS]; /* the scheduler issues nothing before
                                    this cycle: it is still feeding a DPU instruction
                                    (pipe.dpu.holds_issue); never above skip_until[] */
    struct sm_stats st;
    struct sb_entry *sb;         /* [SM_NW * SM_SB_MAX] */
    struct warp_inst *ib;        /* [SM_NW * ibuf] */
    struct ib_meta *ibm;         /* [SM_NW * ibuf] issue-relevant fields of ib[] */
    uint32_t ibuf;               /* entries per warp */
    uint32_t id;
    bool failed;                 /* a tick failed (source error); err says why */
    const struct sim_observer *obs; /* host->obs */
    struct inst_source *src;
    /* warps */
    struct sm_warp warp[SM_NW];  /* by warp slot */
    /* schedulers */
    struct sm_sched sched[SIM_MAX_SUBPARTITIONS];
    /* blocks and resources */
    struct sm_block blk[SIM_MAX_BLOCKS_PER_SM];
    uint32_t n_blocks;
    uint64_t bar_free;           /* 1/256 cycles: the barrier unit has taken every warp's
                                    arrival so far by here */
    uint64_t sync_free;          /* 1/256 cycles: the sync unit has counted every arrive sent
                                    to it (mbarrier arrives of all blocks, one at a time) */
    uint64_t sync_step;          /* 1/256 cycles one arrive takes (sync.arrive_cycles) */
    uint64_t bar_step;           /* 1/256 cycles one arrival takes (sm.barrier_warp_cycles) */
    uint64_t wgmma_free;         /* 1/256 cycles: shared memory has delivered the tiles of every
                                    warpgroup MMA issued so far (smem.wgmma_bytes_per_cycle) */
    double wgmma_byte;           /* 1/256 cycles one byte of them takes */
    sim_cycle_t wgmma_start[SM_NW];  /* by warp slot: when its last warpgroup MMA starts on the
                                        tensor core (its next may issue then: one queued each) */
    uint64_t launch_free;        /* 1/256 cycles: the block launcher is busy until here
                                    (sm.serial_block_launch) */
    /* memory */
    struct ldst *ldst;
    /* time */
    sim_cycle_t occ_since;       /* occupancy integrated up to here */
    struct ldst_stats mst;       /* the memory unit's counters */
    /* work a tick leaves for sm_flush(): everything that touches state
     * shared with other SMs (the memory system, the event queue, the
     * simulation's error) */
    struct sm_pend pend[SM_PEND_MAX];
    uint8_t pend_blk[SIM_MAX_BLOCKS_PER_SM]; /* blocks whose last warp finished */
    struct sim_error err;
};

/* Per-opcode-class costs derived from the config once. */
struct sm_costs {
    uint8_t pipe[SIM_OPC_COUNT];
    uint32_t latency[SIM_OPC_COUNT];
    uint64_t cost[SIM_OPC_COUNT];    /* lane-slots per warp instruction */
    uint32_t lanes[SIM_PIPE_COUNT];
    uint32_t lookahead;              /* issue window of the running kernel (1 = in order) */
    bool dpu_holds_issue;            /* pipe.dpu.holds_issue */
    bool per_sm[SIM_PIPE_COUNT];     /* the pipe's lanes are the SM's (pipe.dpu.per_sm): its
                                        lane-slots are counted in sched[0].pipe_busy for every
                                        sub-partition */
};

/* sm.c */
/* wake: where the SM keeps its next tick cycle (owned by the caller) */
void sm_init(struct sm *sm, const struct sm_host *host, uint32_t id, const struct sim_config *cfg,
             mem *m, sim_cycle_t *wake);
void sm_fini(struct sm *sm);
void sm_register_stats(struct sm *sms, uint32_t n, stats *st);
/* Classify scheduler slots up to (not including) cycle t. */
void sm_catch_up(struct sm *sm, sim_cycle_t t);
/* Integrate occupancy up to cycle t. */
void sm_occ_update(struct sm *sm, sim_cycle_t t);
/* Does a block of the current kernel fit now? */
bool sm_has_room(const struct sm *sm);
/* Start block `id` (source slot src_slot) at cycle t. */
int sm_launch_block(struct sm *sm, uint64_t id, uint32_t src_slot, sim_cycle_t t,
                    struct sim_error *err);
/* Free a finished block's resources (its retire event). */
void sm_retire_block(struct sm *sm, uint32_t blk, sim_cycle_t t);
/* Evaluate cycle `now`: issue, then set *sm->wake to the next cycle worth
 * evaluating.  Touches only the SM's own state (and its source slots), so
 * the ticks of different SMs at one cycle may run concurrently; the
 * memory accesses it issues and the blocks that finish wait for
 * sm_flush(). */
void sm_tick(struct sm *sm, sim_cycle_t now);
/* Second half of cycle `now`, run for the SMs in id order on one thread:
 * time the tick's memory accesses through the ldst unit and the shared
 * memory system, set their results' scoreboard ready times, schedule the
 * retirement of finished blocks and report a tick's failure. */
void sm_flush(struct sm *sm, sim_cycle_t now);
/* Ask for a tick at cycle t (no-op if one is due earlier). */
void sm_wake(struct sm *sm, sim_cycle_t t);
/* If block `block` runs on sm: signal sig of its sync object obj is done
 * at t (a remote signal, delivered at now), and true. */
bool sm_remote_signal(struct sm *sm, uint64_t block, unsigned obj, uint32_t sig, sim_cycle_t t,
                      sim_cycle_t now);
void sm_dump_state(const struct sm *sm, FILE *out, sim_cycle_t now);
/* When nothing is left to simulate but blocks remain: whether a warp of
 * sm waits on the program (at a CTA barrier, or on an mbarrier phase or
 * cluster barrier through its next instruction), described in buf. */
bool sm_program_wait(const struct sm *sm, char *buf, size_t n);

/* sched.c: pick the order in which sched s considers its warps this
 * cycle; writes warp slots to order[], returns their count. */
unsigned sched_order(const struct sm *sm, const struct sm_sched *s, uint8_t *order);
/* Tell the policy a warp issued / stalled on memory. */
void sched_issued(struct sm_sched *s, uint8_t warp);
void sched_add_warp(struct sm *sm, struct sm_sched *s, uint8_t warp);
void sched_remove_warp(struct sm *sm, struct sm_sched *s, uint8_t warp);
void sched_demote(struct sm *sm, struct sm_sched *s, uint8_t warp);
/* Clear the wait bits of the warps whose retry[] has come (now >= it). */
void sched_refresh(struct sm_sched *s, sim_cycle_t now);

#define SCHED_FAR 16             /* cycles: a wait this long or longer is "far" */

/* Warp w (of scheduler s) cannot issue before cycle retry, for reason why
 * (found at cycle now). */
static inline void
sched_wait(struct sm *sm, struct sm_sched *s, uint8_t w, sim_cycle_t retry, int why,
           sim_cycle_t now)
{
    unsigned i = s->pos[w];
    sm->warp[w].why = (uint8_t)why;
    uint64_t bit = UINT64_C(1) << i;
    s->retry[i] = retry;
    s->wait |= bit;
    if (why == SM_R_IDLE)
        s->idle |= bit;
    else
        s->idle &= ~bit;
    if (retry - now >= SCHED_FAR) {
        s->far |= bit;
        if (retry < s->far_min)
            s->far_min = retry;
    } else {
        s->far &= ~bit;
    }
    if (retry < s->wait_min)
        s->wait_min = retry;
}

/* Warp w's state changed (it issued, or left a barrier): check it again. */
static inline void
sched_unwait(struct sm_sched *s, uint8_t w)
{
    unsigned i = s->pos[w];
    uint64_t bit = UINT64_C(1) << i;
    s->retry[i] = 0;
    s->wait &= ~bit;
    s->idle &= ~bit;
    s->far &= ~bit;
}

/* The warps of s, as a mask over positions in s->warps[]. */
static inline uint64_t
sched_all(const struct sm_sched *s)
{
    return s->n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << s->n) - 1;
}

#endif /* SMSIM_SIM_SM_INTERNAL_H */
