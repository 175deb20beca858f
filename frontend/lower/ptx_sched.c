/*
 * ptx_sched.c - the static instruction order ptxas gives a PTX kernel (see
 * ptx_sched.h).
 *
 * What it models.  The SM issues each warp's instructions in order, so the
 * cycles a basic block takes depend on the order ptxas chose.  ptxas list-
 * schedules every basic block with its own latency model of the target:
 * the SASS of the H100 micro-benchmarks (shared/measured/h100/sass) shows a
 * loop's counter increment (UIADD3) and compare (ISETP) hoisted to the top
 * of the body so that the 13-cycle compare-to-branch latency overlaps the
 * body, the independent chains of an unrolled loop interleaved breadth
 * first, and loads issued before the arithmetic that does not need them.
 * This pass does the same to the decoded PTX: a cycle-driven list
 * scheduler per basic block, highest "height" first (the latency-weighted
 * longest path from the instruction to the end of its block), ties broken
 * by the PTX order.
 *
 * Invariants.  Only the order within a basic block changes: a block's
 * first index, its terminating branch or exit, and therefore every branch
 * target and reconvergence point keep their indices.  Every dependence of
 * the PTX order is kept: registers (read after write, write after read,
 * write after write, the guard predicate included), the carry flag of
 * add.cc/addc, memory (a load stays after the stores and atomics before
 * it, a store or atomic after every memory access before it, in the same
 * state space: PTX's spaces are disjoint, so a global load may pass a
 * shared store as ptxas lets it -- it hoists a tile's global loads above
 * the shared stores they feed -- while a generic access is ordered with
 * every space), and
 * fences, nanosleep and %clock reads split blocks, so nothing moves
 * across them; a barrier keeps every memory access and warp operation on
 * its side, while register arithmetic and loads of read-only memory pass
 * it as ptxas lets them (barrier_free()); a shuffle or vote stays after
 * the global and shared stores and atomics before it (a lock's release).  The functional results are
 * therefore those of the PTX order (tests/check_kernels.c and check_micro.c
 * compare every output with a C reference).
 *
 * The latencies are the scheduler's own (ptxas's model of sm_90, read off
 * the stall counts of its SASS control words: 4 for the FP32 and integer
 * ALUs, 13 from a compare to its predicate's consumer, about 18 for MUFU);
 * the timing model's latencies come from the config.
 */
#include "frontend/lower/ptx_sched.h"
#include "frontend/exec/ptx_decode.h"
#include "frontend/lower/ptx_lower.h"
#include "frontend/exec/ptx_mma.h"

#include <stdlib.h>
#include <string.h>

#define KEY_CARRY SIM_MAX_REGS   /* key of the pseudo-register "carry flag" */
#define MAX_OPS 96               /* keys an instruction reads or writes (operands(): the id
                                    lists and every slot, frag[] included) */
#define SYNC_DRAIN 3             /* a BSYNC issues 3 cycles after the fast path's last result
                                    is written (the FFMA before every BSYNC stalls 4 + 3) */

struct edge {
    uint32_t to;
    uint32_t next;               /* next edge of the same node, or UINT32_MAX */
    uint16_t lat;
};

struct node {
    uint32_t first;              /* first outgoing edge, or UINT32_MAX */
    uint32_t rend;               /* an expansion's branch: the last node of the path it skips
                                    to (its BSYNC), else the node itself */
    uint32_t npred;              /* predecessors not yet scheduled */
    uint32_t height;             /* longest latency-weighted path to the block's end */
    uint32_t ready;              /* earliest cycle its operands allow */
    uint8_t pipe;                /* enum sched_pipe */
    uint8_t hold;                /* cycles it holds the pipe (pipe_interval, or WIDE_INTERVAL) */
    bool done;
};

/* The execution pipes as ptxas sees an sm_90 sub-partition, and the
 * cycles one warp instruction holds each (NVIDIA's throughput table,
 * CUDA C++ Programming Guide, compute capability 9.0, per SM / 4:
 * FP32 128, INT32 compare/logic 64, IMAD 64, FP64 64, MUFU 16,
 * conversions 16, load/store 32 lanes).  Integer adds, moves and logic
 * (SP_INT) issue every cycle: ptxas alternates IADD3 / LOP3 on the ALU
 * pipe with IMAD.IADD / IMAD.MOV on the FMA pipe (the iadd ILP=128 loop
 * runs at 1.18 cycles an add); compares (SP_ALU) have only the ALU. */
enum sched_pipe { SP_FMA, SP_ALU, SP_INT, SP_IMAD, SP_FP64, SP_MUFU, SP_LSU, SP_OTHER,
                  SP_NONE, SP_COUNT };
static const uint8_t pipe_interval[SP_COUNT] = { 1, 2, 1, 2, 2, 8, 1, 1, 0 };
/* ... but IMAD.WIDE / IMAD.HI (class int_wide) hold the FMA pipe twice as
 * long: 32 a clock per SM (configs/base/hopper.cfg, op.int_wide.interval). */
#define WIDE_INTERVAL 4

/* Per-key (register) state while a block's edges are built. */
struct keyst {
    int32_t writer;              /* last node that wrote the key, -1 */
    uint32_t reader;             /* head of the readers since that write (a reader link) */
    uint32_t stamp;              /* block number that last touched the key */
};

struct rlink {
    uint32_t node;
    uint32_t next;
};

/* Register pressure (see list_schedule): per register id, its value on
 * entry to the block being scheduled and the value the block writes (the
 * order keeps every read of the entry value before the write). */
struct regst {
    int32_t read_blk;            /* the block that reads it, -2 several, -1 none */
    uint16_t in_left;            /* reads of the entry value not yet placed */
    uint16_t left;               /* reads of the value written in the block not yet placed */
    uint8_t width;               /* 32-bit registers it takes (64-bit: 2; predicates,
                                    accumulating ids: 0) */
    bool live;                   /* holds a value at this point of the schedule */
    bool out;                    /* its last value is read after the block */
    bool written;                /* written in the block (pressure_begin: so far) */
    bool defined;                /* its write has been placed */
};

struct sched {
    struct ptx_run *r;
    struct regst *regs;          /* [SIM_MAX_REGS] */
    uint32_t budget;             /* registers per thread ptxas can give values (0: no limit) */
    uint32_t *through;           /* per block: registers live across it that it does not touch */
    uint32_t pressure;           /* registers live at the current point of the schedule */
    uint32_t blk;                /* number of the block being scheduled */
    struct node *nodes;
    struct edge *edges;
    uint32_t n_edges, cap_edges;
    struct rlink *links;
    uint32_t n_links, cap_links;
    struct keyst *keys;          /* [SIM_MAX_REGS + 1]: by register id, then the carry flag */
    uint32_t stamp;
    /* list_schedule's working sets, per block (n entries each) */
    uint32_t *rdy;               /* nodes ready (npred 0, not placed), ascending */
    uint32_t n_rdy;
    uint32_t *pstart, *preds;    /* node j's predecessors: preds[pstart[j] .. pstart[j + 1]) */
    uint32_t *mark;              /* pending(): the node last counted, per node */
    uint32_t mark_stamp;
};

unsigned
ptx_sched_latency(const struct xop *x)
{
    if (x->silent)
        return 0;                /* folded away: its readers wait for its inputs */
    if ((x->kind == XK_LD || x->kind == XK_ST) && x->space == PS_PARAM)
        return 4;                /* a call's argument or result: a register move */
    switch (x->kind) {
    case XK_CPASYNC:
        return 300;
    case XK_SPILL:
        return (x->iflags & SIM_IF_LOAD) ? 300 : 1;   /* a local load, as ld.local */
    case XK_WLOAD:
    case XK_LD:
    case XK_ATOM:
        /* shared memory ~23; a global or local load is assumed long (an L2
         * hit and more): ptxas issues every independent load of a block
         * before the first use of one (the SASS of latency_l2's sweep:
         * 32 LDGs, then the adds) */
        return x->space == PS_SHARED ? 23 : 300;
    case XK_ST:
    case XK_RED:
    case XK_WSTORE:
        return 1;
    case XK_PARAM:
        return 1;
    default:
        break;
    }
    switch (x->opclass) {
    case SIM_OPC_SETP: return 13;
    case SIM_OPC_UNIFORM: return 6;
    case SIM_OPC_FP16: return 6;
    case SIM_OPC_FP64: case SIM_OPC_FP64_FMA: return 8;
    case SIM_OPC_FP64_DIV: return 100;
    case SIM_OPC_SFU: case SIM_OPC_SFU_EX2: return 18;
    case SIM_OPC_FP32_DIV: case SIM_OPC_FP32_RCP: case SIM_OPC_FP32_SQRT: return 40;
    case SIM_OPC_CONV: return 6;
    case SIM_OPC_CONV64: return 8;
    case SIM_OPC_INT_MUL: case SIM_OPC_INT_WIDE: return 5;
    case SIM_OPC_SREG: return 20;
    case SIM_OPC_WARP: return 8;
    case SIM_OPC_TENSOR: return 16;
    default: return 4;
    }
}

static uint8_t
sched_pipe(const struct xop *x)
{
    if (x->silent)
        return SP_NONE;
    if ((x->kind == XK_LD || x->kind == XK_ST) && x->space == PS_PARAM)
        return SP_INT;           /* a call's argument or result: a register move */
    switch (x->kind) {
    case XK_LD: case XK_ST: case XK_ATOM: case XK_RED: case XK_CPASYNC: case XK_WLOAD:
    case XK_WSTORE: case XK_SPILL:
        return SP_LSU;
    case XK_FRAMEADDR:
    case XK_ALU: case XK_TIMING: case XK_SHFL: case XK_VOTE: case XK_ACTIVEMASK:
        break;
    default:
        return SP_OTHER;
    }
    switch (x->opclass) {
    case SIM_OPC_FP32: case SIM_OPC_FP32_FMA: case SIM_OPC_FP16: return SP_FMA;
    case SIM_OPC_INT_MUL: case SIM_OPC_INT_WIDE: return SP_IMAD;
    case SIM_OPC_INT: return SP_INT;
    case SIM_OPC_SETP: return SP_ALU;
    case SIM_OPC_FP64: case SIM_OPC_FP64_FMA: case SIM_OPC_FP64_DIV: case SIM_OPC_CONV64:
        return SP_FP64;
    case SIM_OPC_SFU: case SIM_OPC_SFU_EX2: case SIM_OPC_CONV: case SIM_OPC_FP32_DIV:
    case SIM_OPC_FP32_RCP: case SIM_OPC_FP32_SQRT:
        return SP_MUFU;
    default: return SP_OTHER;
    }
}

/* The cycles x holds its pipe in the static schedule. */
static uint8_t
sched_hold(const struct xop *x)
{
    return x->opclass == SIM_OPC_INT_WIDE && !x->silent ? WIDE_INTERVAL
                                                        : pipe_interval[sched_pipe(x)];
}

/* Is x a barrier of its block: bar.sync and its kin, or bar.warp.sync
 * (__syncwarp)?  ptxas treats a warp sync as it treats a block barrier:
 * the SASS of traces/mech/smem_only (bar.sass) keeps the shared stores
 * and loads on their sides of each NOP it made of bar.warp.sync -1, and
 * hoists the loop counter's IADD3 and ISETP above them. */
static bool
sched_barrier(const struct xop *x)
{
    return x->kind == XK_BAR || (x->kind == XK_NOP && (x->flags & PF_WARPSYNC));
}

/* Does x end a block where it stands, with nothing moved across it?
 * (Barriers do not: barrier_free() below says what passes them.) */
static bool
fence_like(const struct xop *x)
{
    return (x->kind == XK_NOP && !sched_barrier(x)) || x->kind == XK_MOVE_CLOCK ||
           x->kind == XK_CPASYNC ||
           x->kind == XK_WGMMA || x->kind == XK_WGFENCE || x->kind == XK_WGCOMMIT ||
           x->kind == XK_WGWAIT ||     /* wgmma's accumulators are in no id list */
           x->kind == XK_CLARRIVE || x->kind == XK_CLWAIT ||   /* order the cluster's memory */
           x->ids_truncated;
}

/* May x move across a barrier (bar.sync, bar.red, bar.arrive,
 * bar.warp.sync) of its block?  A barrier orders memory and the clock;
 * register arithmetic and reads of memory that no thread writes while
 * the kernel runs need no order with it.  ptxas moves both: the SASS of
 * traces/mech/gload_bar_loop (mech.sass) issues the address arithmetic
 * and the LDG.E.CONSTANT of later steps above the BAR.SYNCs of earlier
 * ones, eight loads ahead.  ld.global.nc is read-only for the kernel's
 * lifetime by the PTX ISA's definition (nvcc emits it for const
 * __restrict__ data); .const is read-only too.  (An arithmetic
 * instruction ptxas lowers to several operations passes as a whole.)
 * Every other memory access, the clock, warp-wide operations, calls and
 * an expansion's control stay on their side.  The move is upward only
 * (build_edges). */
static bool
barrier_free(const struct xop *x)
{
    if (x->ctl != XC_NONE || x->ids_truncated)
        return false;
    if (x->kind == XK_ALU || x->kind == XK_PARAM)
        return true;
    if (x->kind == XK_TIMING)        /* a lowered instruction's extra SASS operation */
        return !(x->iflags & (SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC | SIM_IF_BARRIER |
                              SIM_IF_FENCE | SIM_IF_BRANCH | SIM_IF_EXIT));
    return x->kind == XK_LD && ((x->space == PS_GLOBAL && (x->flags & PF_NC)) ||
                                x->space == PS_CONST);
}

/* Does x end its block (a branch, an exit, a call or a return)? */
static bool
terminator(const struct xop *x)
{
    return x->kind == XK_BRA || x->kind == XK_EXIT || x->kind == XK_CALL || x->kind == XK_RET;
}

static void
add_edge(struct sched *s, uint32_t from, uint32_t to, uint32_t lat)
{
    if (from == to)
        return;
    if (s->n_edges == s->cap_edges) {
        s->cap_edges = s->cap_edges ? 2 * s->cap_edges : 256;
        s->edges = xrealloc(s->edges, s->cap_edges * sizeof *s->edges);
    }
    struct edge *e = &s->edges[s->n_edges];
    e->to = to;
    e->lat = (uint16_t)(lat > 0xffff ? 0xffff : lat);
    e->next = s->nodes[from].first;
    s->nodes[from].first = s->n_edges++;
    s->nodes[to].npred++;
}

static struct keyst *
key(struct sched *s, uint32_t id)
{
    struct keyst *k = &s->keys[id];
    if (k->stamp != s->stamp) {
        k->stamp = s->stamp;
        k->writer = -1;
        k->reader = UINT32_MAX;
    }
    return k;
}

static void
add_key(uint32_t *list, unsigned *n, uint32_t k)
{
    for (unsigned i = 0; i < *n; i++)
        if (list[i] == k)
            return;
    list[(*n)++] = k;
}

/* Append the key of slot sl when it is a register (not a constant or a
 * special register). */
static void
add_slot(const struct ptx_run *r, uint32_t *list, unsigned *n, const struct slot *sl)
{
    uint16_t id;
    if (sl->cls != SC_NONE && ptx_decode_reg_id(r, sl, &id))
        add_key(list, n, id);
}

/* The register ids x reads and writes by its lists: its timing ids, its
 * PTX ids (ptx_lower.c), and the carry flag of add.cc/addc. */
static void
ids_of(const struct xop *x, uint32_t *rd, unsigned *nr, uint32_t *wr, unsigned *nw)
{
    *nr = *nw = 0;
    for (unsigned i = 0; i < x->n_src; i++)
        add_key(rd, nr, x->src[i]);
    for (unsigned i = 0; i < x->n_fsrc; i++)
        add_key(rd, nr, x->fsrc[i]);
    for (unsigned i = 0; i < x->n_dst; i++)
        add_key(wr, nw, x->dst[i]);
    for (unsigned i = 0; i < x->n_fdst; i++)
        add_key(wr, nw, x->fdst[i]);
    if ((x->flags & PF_CC) || x->op == PTXOP_ADDC || x->op == PTXOP_SUBC || x->op == PTXOP_MADC) {
        add_key(rd, nr, KEY_CARRY);
        add_key(wr, nw, KEY_CARRY);
    }
}

/* The registers x reads and writes, for the order: its id lists (ids_of)
 * and, whatever those say, every register slot the executor touches when
 * the operation has a functional effect of its own (ptx_exec.c): the
 * sources a, b, c, e, the address bases and the guard are reads; the
 * destinations d, d2 writes; a vector's registers writes of a load (or of
 * a mov that unpacks) and reads of a store (or of a mov that packs); a
 * fragment's registers writes of a load and of a product's D, reads
 * otherwise.  That is what keeps a missing id (a shuffle's clamp, a vote's
 * member mask) from ever reordering a computation; it only adds
 * dependences.  A split tensor operation's part (x->nparts > 0) is
 * ordered by its lists and the fragment registers it reads and writes as
 * it executes (frag_rd, frag_wr: ptx_lower_mma.c), not by every slot: an
 * earlier tile of a wmma.mma computes nothing, and a part of a wmma.load
 * writes only its own registers. */
static void
operands(const struct ptx_run *r, const struct xop *x, uint32_t *rd, unsigned *nr, uint32_t *wr,
         unsigned *nw)
{
    ids_of(x, rd, nr, wr, nw);
    if (x->kind == XK_TIMING || x->kind == XK_SPILL)
        return;
    if (x->nparts > 0) {
        for (unsigned i = 0; i < sizeof x->frag / sizeof x->frag[0]; i++) {
            if ((x->frag_rd >> i) & 1)
                add_slot(r, rd, nr, &x->frag[i]);
            if ((x->frag_wr >> i) & 1)
                add_slot(r, wr, nw, &x->frag[i]);
        }
        return;
    }
    const struct slot *reads[] = { &x->a, &x->b, &x->c, &x->e, &x->base, &x->base2 };
    /* bar.warp.sync's member mask (x->a) only tells the functional
     * executor which lanes wait (ptx_spin_sync): the barrier orders it */
    bool warpsync = x->kind == XK_NOP && (x->flags & PF_WARPSYNC);
    for (unsigned i = warpsync ? 1 : 0; i < sizeof reads / sizeof reads[0]; i++)
        add_slot(r, rd, nr, reads[i]);
    if (x->guard >= 0)
        add_key(rd, nr, (uint32_t)x->guard);
    add_slot(r, wr, nw, &x->d);
    add_slot(r, wr, nw, &x->d2);
    bool vec_written = x->kind == XK_LD || (x->kind == XK_ALU && x->d.cls == SC_NONE);
    for (unsigned i = 0; i < 4; i++)
        add_slot(r, vec_written ? wr : rd, vec_written ? nw : nr, &x->v[i]);
    unsigned nf = 0, nd = 0;         /* fragment slots, of which written first */
    switch (x->kind) {
    case XK_MMA: case XK_WMMA: {
        struct ptx_mma_desc d;
        unsigned dist;
        ptx_mma_desc_of(x, &d);
        nd = ptx_mma_frag_regs(&d, 'd', &dist);
        nf = PTX_FRAG_MAX;
        break;
    }
    case XK_WLOAD: case XK_LDMATRIX:
        nd = nf = PTX_FRAG_MAX;
        break;
    case XK_WSTORE: case XK_STMATRIX:
        nf = PTX_FRAG_MAX;
        break;
    default:
        break;
    }
    for (unsigned i = 0; i < nf; i++)
        add_slot(r, i < nd ? wr : rd, i < nd ? nw : nr, &x->frag[i]);
}

static bool
is_mem(const struct xop *x)
{
    return x->kind == XK_LD || x->kind == XK_ST || x->kind == XK_ATOM || x->kind == XK_RED ||
           x->kind == XK_WLOAD || x->kind == XK_WSTORE || x->kind == XK_LDMATRIX ||
           x->kind == XK_STMATRIX || x->kind == XK_MBAR || x->kind == XK_BULK;
}

/* Does memory operation x only read (a load: loads may pass each other)? */
static bool
mem_reads_only(const struct xop *x)
{
    return x->kind == XK_LD || x->kind == XK_WLOAD || x->kind == XK_LDMATRIX ||
           (x->kind == XK_MBAR && (x->mode == PM_MB_TEST || x->mode == PM_MB_TRY));
}

/* The memory classes ordered separately: PTX's state spaces do not alias
 * (a .global address never names .shared or .local memory), so accesses
 * to different spaces need no order; a generic access may reach any of
 * them.  .const and .param (read-only, or the call frames') are one class. */
enum { MC_GLOBAL, MC_SHARED, MC_LOCAL, MC_OTHER, MC_COUNT };
#define MC_ALL ((1u << MC_COUNT) - 1)

static unsigned
mem_classes(const struct xop *x)
{
    if (x->kind == XK_LDMATRIX || x->kind == XK_STMATRIX)
        return 1u << MC_SHARED;
    if (x->kind == XK_BULK)      /* global and shared; its mbarrier too */
        return 1u << MC_GLOBAL | 1u << MC_SHARED;
    switch (x->space) {
    case PS_GLOBAL: return 1u << MC_GLOBAL;
    case PS_SHARED: return 1u << MC_SHARED;
    case PS_LOCAL: return 1u << MC_LOCAL;
    case PS_CONST: case PS_PARAM: return 1u << MC_OTHER;
    default: return MC_ALL;
    }
}

/* Prepend node to the reader list whose head is next; the new head. */
static uint32_t
push_link(struct sched *s, uint32_t node, uint32_t next)
{
    if (s->n_links == s->cap_links) {
        s->cap_links = s->cap_links ? 2 * s->cap_links : 256;
        s->links = xrealloc(s->links, s->cap_links * sizeof *s->links);
    }
    s->links[s->n_links] = (struct rlink){ node, next };
    return s->n_links++;
}

/* Build the dependence edges of block [s0, s0 + n) (node i = x[s0 + i]);
 * the terminator, if any, is node n - 1 and depends on everything. */
static void
build_edges(struct sched *s, const struct xop *x, uint32_t n)
{
    int32_t last_store[MC_COUNT];        /* per memory class: the last store or atomic */
    uint32_t loads[MC_COUNT];            /* reader links of the loads since it */
    int32_t last_bar = -1;               /* the last barrier */
    int32_t last_release = -1;           /* the last global or shared store or atomic */
    uint32_t since_bar = UINT32_MAX;     /* links of the operations since it: all stay before
                                            the next barrier (ptxas hoists over a barrier, it
                                            does not sink: bar_loop's FFMA stays above it) */
    for (unsigned c = 0; c < MC_COUNT; c++) {
        last_store[c] = -1;
        loads[c] = UINT32_MAX;
    }
    s->stamp++;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t rd[MAX_OPS], wr[MAX_OPS];
        unsigned nr, nw;
        operands(s->r, &x[j], rd, &nr, wr, &nw);
        for (unsigned a = 0; a < nr; a++) {
            struct keyst *k = key(s, rd[a]);
            if (k->writer >= 0)
                add_edge(s, (uint32_t)k->writer, j, ptx_sched_latency(&x[k->writer]));
        }
        for (unsigned a = 0; a < nw; a++) {
            struct keyst *k = key(s, wr[a]);
            if (k->writer >= 0)
                add_edge(s, (uint32_t)k->writer, j, 1);
            for (uint32_t l = k->reader; l != UINT32_MAX; l = s->links[l].next)
                add_edge(s, s->links[l].node, j, 1);
        }
        /* now record j: its reads after its writes' edges, so a node
         * reading and writing one key does not depend on itself */
        for (unsigned a = 0; a < nw; a++) {
            struct keyst *k = key(s, wr[a]);
            k->writer = (int32_t)j;
            k->reader = UINT32_MAX;
        }
        for (unsigned a = 0; a < nr; a++) {
            struct keyst *k = key(s, rd[a]);
            if (k->writer == (int32_t)j)
                continue;
            k->reader = push_link(s, j, k->reader);
        }
        if (sched_barrier(&x[j])) {      /* after everything before it that it orders */
            for (uint32_t l = since_bar; l != UINT32_MAX; l = s->links[l].next)
                add_edge(s, s->links[l].node, j, 1);
            if (last_bar >= 0)
                add_edge(s, (uint32_t)last_bar, j, 1);
            last_bar = (int32_t)j;
            since_bar = UINT32_MAX;
        } else {
            if (last_bar >= 0 && !barrier_free(&x[j]))
                add_edge(s, (uint32_t)last_bar, j, 1);
            since_bar = push_link(s, j, since_bar);
        }
        /* a warp-synchronizing operation (shfl.sync, vote.sync, ...) stays
         * after the stores and atomics before it: lanes of a warp that
         * independent thread scheduling split wait at it for the others
         * (ptx_spin.h), so hoisted above a lock's release it would hold
         * the lock while the others wait for it */
        if ((x[j].kind == XK_SHFL || x[j].kind == XK_VOTE) && last_release >= 0)
            add_edge(s, (uint32_t)last_release, j, 1);
        if (is_mem(&x[j]) && !mem_reads_only(&x[j]) &&
            (mem_classes(&x[j]) & (1u << MC_GLOBAL | 1u << MC_SHARED)))
            last_release = (int32_t)j;
        if (is_mem(&x[j])) {
            unsigned classes = mem_classes(&x[j]);
            for (unsigned c = 0; c < MC_COUNT; c++) {
                if (!(classes & (1u << c)))
                    continue;
                if (last_store[c] >= 0)
                    add_edge(s, (uint32_t)last_store[c], j, 1);
                if (mem_reads_only(&x[j])) {
                    loads[c] = push_link(s, j, loads[c]);
                } else {
                    for (uint32_t l = loads[c]; l != UINT32_MAX; l = s->links[l].next)
                        add_edge(s, s->links[l].node, j, 1);
                    last_store[c] = (int32_t)j;
                    loads[c] = UINT32_MAX;
                }
            }
        }
    }
    if (n > 0 && terminator(&x[n - 1]))
        for (uint32_t i = 0; i + 1 < n; i++)
            add_edge(s, i, n - 1, 0);
    /* An expansion's fast path (after its BRA, to the end of the block,
     * where its BSYNC starts the next) is a block of its own in SASS: it
     * follows the branch, and nothing else enters it (list_schedule).  A
     * BSYNC stays first in its block. */
    for (uint32_t i = 0; i < n; i++) {
        s->nodes[i].rend = i;
        if ((x[i].ctl == XC_SYNC || x[i].ctl == XC_ENTRY) && i == 0)
            for (uint32_t j = 1; j < n; j++)
                add_edge(s, 0, j, 0);
        if (x[i].ctl != XC_BRANCH)
            continue;
        for (uint32_t j = i + 1; j < n && x[j].line == x[i].line && x[j].op == x[i].op; j++)
            s->nodes[i].rend = j;
        for (uint32_t j = i + 1; j <= s->nodes[i].rend; j++)
            add_edge(s, i, j, 1);
    }
}

static void
heights(struct sched *s, const struct xop *x, uint32_t n)
{
    /* edges go forward in the PTX order: one backward sweep */
    for (uint32_t i = n; i-- > 0;) {
        struct node *nd = &s->nodes[i];
        uint32_t h = terminator(&x[i]) ? 0 : ptx_sched_latency(&x[i]);
        for (uint32_t e = nd->first; e != UINT32_MAX; e = s->edges[e].next) {
            uint32_t c = s->edges[e].lat + s->nodes[s->edges[e].to].height;
            if (c > h)
                h = c;
        }
        nd->height = h;
    }
}

/* Does x write id? */
static bool
writes(const struct xop *x, uint16_t id)
{
    for (unsigned k = 0; k < x->n_dst; k++)
        if (x->dst[k] == id)
            return true;
    return false;
}

/* Is x's read of register g the last of the value it reads, and does that
 * value then die? */
static bool
last_read_frees(const struct regst *g, const struct xop *x, uint16_t id)
{
    if (!g->live || writes(x, id))
        return false;
    if (!g->defined)             /* the entry value: dead after its reads if written again */
        return g->in_left == 1 && (g->written || !g->out);
    return g->left == 1 && !g->out;
}

/* The change in live registers if node x is placed now: the values it
 * defines that are not live yet, less the values whose last reader it is. */
static int
pressure_delta(const struct sched *s, const struct xop *x)
{
    int d = 0;
    for (unsigned i = 0; i < x->n_dst; i++) {
        const struct regst *g = &s->regs[x->dst[i]];
        if (!g->live && (g->left > 0 || g->out))
            d += g->width;
    }
    for (unsigned i = 0; i < x->n_src; i++)
        if (last_read_frees(&s->regs[x->src[i]], x, x->src[i]))
            d -= s->regs[x->src[i]].width;
    return d;
}

static void
pressure_place(struct sched *s, const struct xop *x)
{
    for (unsigned i = 0; i < x->n_src; i++) {
        struct regst *g = &s->regs[x->src[i]];
        bool frees = last_read_frees(g, x, x->src[i]);
        if (!g->defined && g->in_left > 0)
            g->in_left--;
        else if (g->defined && g->left > 0)
            g->left--;
        if (frees) {
            g->live = false;
            s->pressure -= g->width;
        }
    }
    for (unsigned i = 0; i < x->n_dst; i++) {
        struct regst *g = &s->regs[x->dst[i]];
        g->defined = true;
        if (!g->live && (g->left > 0 || g->out)) {
            g->live = true;
            s->pressure += g->width;
        }
    }
}

/* Set up the register state of block x[0 .. n): a register read before it
 * is written is live on entry; the value written last lives on when the
 * register is read in another block or was read here before the write (a
 * loop-carried value). */
static void
pressure_begin(struct sched *s, const struct xop *x, uint32_t n)
{
    s->pressure = s->through != NULL ? s->through[s->blk] : 0;
    for (uint32_t j = 0; j < n; j++) {
        for (unsigned i = 0; i < x[j].n_src + x[j].n_dst; i++) {
            uint16_t id = i < x[j].n_src ? x[j].src[i] : x[j].dst[i - x[j].n_src];
            struct regst *g = &s->regs[id];
            g->left = g->in_left = 0;
            g->live = g->written = g->defined = false;
            g->out = g->read_blk == -2 || (g->read_blk >= 0 && (uint32_t)g->read_blk != s->blk);
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        for (unsigned i = 0; i < x[j].n_src; i++) {
            struct regst *g = &s->regs[x[j].src[i]];
            if (g->written) {
                g->left++;
                continue;
            }
            if (!g->live) {
                g->live = true;          /* live on entry */
                s->pressure += g->width;
            }
            g->in_left++;
        }
        for (unsigned i = 0; i < x[j].n_dst; i++) {
            struct regst *g = &s->regs[x[j].dst[i]];
            if (g->live && !g->written)
                g->out = true;           /* read, then written: carried to the next pass */
            g->written = true;
        }
    }
}

/* Does node i have an edge to node j? */
static bool
feeds(const struct sched *s, uint32_t i, uint32_t j)
{
    for (uint32_t e = s->nodes[i].first; e != UINT32_MAX; e = s->edges[e].next)
        if (s->edges[e].to == j)
            return true;
    return false;
}

/* The consumer ptxas is completing: of the instructions still waiting for
 * operands, the one with the fewest left that does not raise the register
 * count when it issues (its last reads free what it defines); ties: PTX
 * order.  -1: none. */
static int32_t
consumer(const struct sched *s, const struct xop *x, uint32_t n)
{
    int32_t tgt = -1;
    for (uint32_t i = 0; i < n; i++) {
        const struct node *nd = &s->nodes[i];
        if (nd->done || nd->npred == 0 || terminator(&x[i]) ||
            (tgt >= 0 && nd->npred >= s->nodes[tgt].npred) || pressure_delta(s, &x[i]) > 0)
            continue;
        tgt = (int32_t)i;
    }
    return tgt;
}

/* The registers the operands of consumer c not yet placed will take (the
 * rise of each of its unplaced predecessors but `but`). */
static int
pending(struct sched *s, const struct xop *x, uint32_t c, uint32_t but)
{
    int sum = 0;
    s->mark_stamp++;
    for (uint32_t k = s->pstart[c]; k < s->pstart[c + 1]; k++) {
        uint32_t i = s->preds[k];
        if (i == but || s->nodes[i].done || s->mark[i] == s->mark_stamp)
            continue;
        s->mark[i] = s->mark_stamp;          /* an edge given twice counts once */
        int d = pressure_delta(s, &x[i]);
        if (d > 0)
            sum += d;
    }
    return sum;
}

/* The predecessor lists (pstart, preds) of the block's n nodes, from the
 * edges, and the nodes ready at the start (rdy). */
static void
index_block(struct sched *s, uint32_t n)
{
    memset(s->pstart, 0, (n + 1) * sizeof *s->pstart);
    for (uint32_t e = 0; e < s->n_edges; e++)
        s->pstart[s->edges[e].to + 1]++;
    for (uint32_t j = 0; j < n; j++)
        s->pstart[j + 1] += s->pstart[j];
    s->preds = xrealloc(s->preds, (s->n_edges ? s->n_edges : 1) * sizeof *s->preds);
    for (uint32_t i = 0; i < n; i++)
        s->mark[i] = 0;              /* as the fill cursor of node i's list, for now */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t e = s->nodes[i].first; e != UINT32_MAX; e = s->edges[e].next) {
            uint32_t j = s->edges[e].to;
            s->preds[s->pstart[j] + s->mark[j]++] = i;
        }
    memset(s->mark, 0, n * sizeof *s->mark);
    s->mark_stamp = 0;
    s->n_rdy = 0;
    for (uint32_t i = 0; i < n; i++)
        if (s->nodes[i].npred == 0)
            s->rdy[s->n_rdy++] = i;
}

/* Position of node i in rdy (or where it would go). */
static uint32_t
rdy_pos(const struct sched *s, uint32_t i)
{
    uint32_t lo = 0, hi = s->n_rdy;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->rdy[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void
rdy_insert(struct sched *s, uint32_t i)
{
    uint32_t k = rdy_pos(s, i);
    memmove(&s->rdy[k + 1], &s->rdy[k], (s->n_rdy - k) * sizeof *s->rdy);
    s->rdy[k] = i;
    s->n_rdy++;
}

static void
rdy_remove(struct sched *s, uint32_t i)
{
    uint32_t k = rdy_pos(s, i);
    memmove(&s->rdy[k], &s->rdy[k + 1], (s->n_rdy - k - 1) * sizeof *s->rdy);
    s->n_rdy--;
}

/* List-schedule block x[0 .. n) into order[].  Each cycle one ready
 * instruction (operands available, pipe free) goes:
 *  - while the block is latency-bound, the one with the greatest height
 *    (ties: PTX order), so the longest chains start first;
 *  - while it is bound by a slow pipe (one whose work left exceeds both the
 *    longest path and the instructions left to issue: MUFU in a loop of
 *    __logf or __sinf), an issuable instruction of that pipe first, else
 *    the earliest in PTX order, which feeds the pipe chain by chain as
 *    nvcc wrote them.  ptxas keeps the MUFU busy the same way, with the
 *    other instructions between (the SASS of the __expf/__sinf loops). */
static void
list_schedule(struct sched *s, const struct xop *x, uint32_t n, uint32_t *order)
{
    uint32_t t = 0, placed = 0, pipe_free[SP_COUNT] = { 0 }, work[SP_COUNT] = { 0 };
    uint32_t longest = 0, lock_lo = 0, lock_hi = UINT32_MAX;   /* a fast path being placed */
    for (uint32_t i = 0; i < n; i++) {
        work[s->nodes[i].pipe] += s->nodes[i].hold;
        if (s->nodes[i].height > longest)
            longest = s->nodes[i].height;
    }
    while (placed < n) {
        unsigned crit = SP_COUNT;
        uint32_t cw = longest > n - placed ? longest : n - placed;
        for (unsigned p = 0; p < SP_OTHER; p++)
            if (pipe_interval[p] > 1 && work[p] > cw) {
                cw = work[p];
                crit = p;
            }
        int32_t best = -1, best_crit = -1, fold = -1;
        uint32_t soonest = UINT32_MAX;
        bool locked = lock_hi != UINT32_MAX, any = false;
        /* every scan below looks only at ready nodes (npred 0, not placed),
         * in rdy, ascending: the PTX order breaks ties */
        for (uint32_t k = 0; k < s->n_rdy && fold < 0; k++) {
            uint32_t i = s->rdy[k];
            const struct node *nd = &s->nodes[i];
            if (nd->pipe == SP_NONE && nd->ready <= t &&
                (!locked || (i >= lock_lo && i <= lock_hi)))
                fold = (int32_t)i;   /* issues nothing: place it now */
        }
        for (uint32_t k = 0; k < s->n_rdy && fold < 0; k++) {
            uint32_t i = s->rdy[k];
            const struct node *nd = &s->nodes[i];
            if (locked && (i < lock_lo || i > lock_hi))
                continue;
            any = true;
            uint32_t at = nd->ready > pipe_free[nd->pipe] ? nd->ready : pipe_free[nd->pipe];
            if (at > t) {
                if (at < soonest)
                    soonest = at;
                continue;
            }
            if (best < 0 || (crit == SP_COUNT && nd->height > s->nodes[best].height))
                best = (int32_t)i;
            if (nd->pipe == crit && best_crit < 0)
                best_crit = (int32_t)i;
        }
        if (fold < 0 && best_crit >= 0)
            best = best_crit;        /* the slow pipe's: the budget applies to it too */
        int over = 0;
        if (fold < 0 && best >= 0 && s->budget > 0) {
            int d = pressure_delta(s, &x[best]);
            over = (int)s->pressure + d > (int)s->budget;
            if (!over && d > 0) {
                /* room for it, and for the rest of the consumer being
                 * completed if it is not one of that consumer's operands */
                int32_t c = consumer(s, x, n);
                if (c >= 0 && !feeds(s, (uint32_t)best, (uint32_t)c))
                    over = (int)s->pressure + d + pending(s, x, (uint32_t)c, (uint32_t)best) >
                           (int)s->budget;
            }
        }
        if (over) {
            /* over the registers ptxas has: a ready node that does not
             * raise the pressure, else wait for one (a consumer of values
             * in flight), else go on regardless */
            int32_t low = -1;
            uint32_t low_at = UINT32_MAX;
            for (uint32_t k = 0; k < s->n_rdy; k++) {
                uint32_t i = s->rdy[k];
                const struct node *nd = &s->nodes[i];
                if ((locked && (i < lock_lo || i > lock_hi)) || pressure_delta(s, &x[i]) > 0)
                    continue;
                uint32_t at = nd->ready > pipe_free[nd->pipe] ? nd->ready : pipe_free[nd->pipe];
                if (at <= t && (low < 0 || nd->height > s->nodes[low].height))
                    low = (int32_t)i;
                else if (at > t && at < low_at)
                    low_at = at;
            }
            if (low >= 0) {
                best = low;
            } else if (low_at != UINT32_MAX) {
                t = low_at;
                continue;
            } else {
                /* nothing lowers it before more is loaded: the earliest
                 * ready node in the PTX order, which completes the
                 * operands of the next consumer (one unrolled step at a
                 * time, as nvcc wrote them) rather than starting more */
                for (uint32_t k = 0; k < s->n_rdy; k++) {
                    uint32_t i = s->rdy[k];
                    const struct node *nd = &s->nodes[i];
                    uint32_t at = nd->ready > pipe_free[nd->pipe] ? nd->ready : pipe_free[nd->pipe];
                    if (at <= t && (!locked || (i >= lock_lo && i <= lock_hi))) {
                        best = (int32_t)i;
                        break;
                    }
                }
            }
        }
        if (fold >= 0) {
            best = fold;
        } else if (locked && !any) {
            lock_hi = UINT32_MAX;    /* the fast path waits on something outside: let go */
            continue;
        } else if (best < 0) {
            t = soonest;             /* every candidate waits for an operand or a pipe */
            continue;
        }
        struct node *b = &s->nodes[best];
        b->done = true;
        rdy_remove(s, (uint32_t)best);
        order[placed++] = (uint32_t)best;
        pressure_place(s, &x[best]);
        if (b->rend > (uint32_t)best) {
            lock_lo = (uint32_t)best + 1;
            lock_hi = b->rend;
        } else if ((uint32_t)best == lock_hi) {
            lock_hi = UINT32_MAX;
        }
        pipe_free[b->pipe] = t + b->hold;
        work[b->pipe] -= b->hold;
        for (uint32_t e = b->first; e != UINT32_MAX; e = s->edges[e].next) {
            struct node *to = &s->nodes[s->edges[e].to];
            to->npred--;
            if (t + s->edges[e].lat > to->ready)
                to->ready = t + s->edges[e].lat;
            if (to->npred == 0)
                rdy_insert(s, s->edges[e].to);
        }
        if (b->pipe != SP_NONE)
            t++;
    }
}

/* Is x's result timed by a scoreboard (variable latency: memory, MUFU,
 * conversions, special registers, warp shuffles, the multi-instruction
 * IEEE sequences) rather than by the stall counts of the instructions
 * after it? */
static bool
variable_latency(const struct xop *x)
{
    if (x->kind == XK_LD || x->kind == XK_ATOM || x->kind == XK_SHFL || x->kind == XK_VOTE ||
        x->kind == XK_MOVE_CLOCK || x->kind == XK_CPASYNC || x->kind == XK_WLOAD ||
        (x->kind == XK_SPILL && (x->iflags & SIM_IF_LOAD)))
        return true;
    switch (x->opclass) {
    case SIM_OPC_SFU: case SIM_OPC_SFU_EX2: case SIM_OPC_CONV: case SIM_OPC_SREG:
    case SIM_OPC_WARP: case SIM_OPC_FP32_DIV: case SIM_OPC_FP32_RCP: case SIM_OPC_FP32_SQRT:
    case SIM_OPC_FP64_DIV: case SIM_OPC_TENSOR: case SIM_OPC_MEM:
        return true;
    default:
        return false;
    }
}

/* The stall counts of block x[0 .. n) in its final order: the cycles
 * between consecutive instructions in the static schedule ptxas encodes,
 * built from the fixed-latency dependences and the pipes' issue intervals
 * only (an instruction waiting for a load or a MUFU waits on a scoreboard
 * instead, so it is assumed to issue at once, and whatever follows it keeps
 * its stall: the SASS of the __logf loop stalls its branch 12 cycles after
 * the FMUL that waited for MUFU.LG2, because the compare that feeds the
 * branch was 13 cycles ahead of that FMUL's assumed slot).  The block's last
 * instruction gets none: what follows it is decided at run time. */
static void
stall_counts(struct sched *s, struct xop *x, uint32_t n)
{
    uint32_t t = 0, pipe_free[SP_COUNT] = { 0 };
    uint32_t *when = xmalloc(n * sizeof *when);
    int32_t prev = -1;               /* the last operation that issues */
    s->stamp++;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t rd[MAX_OPS], wr[MAX_OPS];
        unsigned nr, nw;
        ids_of(&x[j], rd, &nr, wr, &nw);
        if (x[j].silent) {           /* issues nothing: no slot, no stall of its own */
            for (unsigned a = 0; a < nw; a++)
                key(s, wr[a])->writer = (int32_t)j;
            when[j] = t;
            x[j].stall = 0;
            continue;
        }
        uint8_t p = sched_pipe(&x[j]);
        uint32_t at = prev < 0 ? 0 : t + 1;
        if (pipe_free[p] > at)
            at = pipe_free[p];
        for (unsigned a = 0; a < nr; a++) {
            struct keyst *k = key(s, rd[a]);
            if (k->writer >= 0 && !variable_latency(&x[k->writer])) {
                uint32_t ready = when[k->writer] + ptx_sched_latency(&x[k->writer]);
                if (ready > at)
                    at = ready;
            }
        }
        for (unsigned a = 0; a < nw; a++)
            key(s, wr[a])->writer = (int32_t)j;
        if (prev >= 0) {
            uint32_t gap = x[prev].ctl == XC_BRANCH ? 0 : at - when[prev];   /* taken */
            x[prev].stall = (uint8_t)(gap > 15 ? 15 : gap);   /* 4 bits, as in SASS */
        }
        when[j] = at;
        pipe_free[p] = at + sched_hold(&x[j]);
        t = at;
        prev = (int32_t)j;
    }
    if (prev >= 0)
        x[prev].stall = 0;
    free(when);
}

static bool
has_key(const uint32_t *keys, unsigned n, uint32_t k)
{
    for (unsigned i = 0; i < n; i++)
        if (keys[i] == k)
            return true;
    return false;
}

/* Does x write register key k (writes_only), or access it (read or write;
 * timing or PTX ids)? */
static bool
uses_key(const struct ptx_run *r, const struct xop *x, uint32_t k, bool writes_only)
{
    uint32_t rd[MAX_OPS], wr[MAX_OPS];
    unsigned nr, nw;
    operands(r, x, rd, &nr, wr, &nw);
    return has_key(wr, nw, k) || (!writes_only && has_key(rd, nr, k));
}

/* ptxas moves a loop's control (the counter's UIADD3 and the compare that
 * feeds the back-edge) to the top of the body, over the IEEE-divide
 * regions in it (the SASS of the __frcp_rn / __fsqrt_rn loops); the
 * regions split our blocks, so do that move first: in each block of the
 * PTX (ending at a branch, exit or fence), an integer operation on the
 * uniform datapath or a compare that comes after an expansion's branch
 * and shares no register with anything between goes just before that
 * branch. */
static void
hoist_over_regions(struct ptx_run *r, const bool *leader)
{
    uint32_t n = r->n_x;
    for (uint32_t b0 = 0; b0 < n;) {
        uint32_t b1 = b0 + 1;
        while (b1 < n && !leader[b1])
            b1++;
        uint32_t f = UINT32_MAX;
        for (uint32_t j = b0; j < b1; j++) {
            struct xop *x = &r->x[j];
            if (x->ctl == XC_BRANCH && f == UINT32_MAX) {
                f = j;
                continue;
            }
            if (f == UINT32_MAX || x->silent || x->kind != XK_ALU ||
                (x->opclass != SIM_OPC_UNIFORM && x->opclass != SIM_OPC_SETP) ||
                x->ids_truncated || (x->flags & PF_CC))
                continue;
            uint32_t rd[MAX_OPS], wr[MAX_OPS];
            unsigned nr, nw;
            operands(r, x, rd, &nr, wr, &nw);
            bool free_of = true;
            for (uint32_t i = f; i < j && free_of; i++) {
                for (unsigned a = 0; a < nr && free_of; a++)
                    free_of = !uses_key(r, &r->x[i], rd[a], true);
                for (unsigned a = 0; a < nw && free_of; a++)
                    free_of = !uses_key(r, &r->x[i], wr[a], false);
            }
            if (!free_of)
                continue;
            struct xop moved = *x;
            memmove(&r->x[f + 1], &r->x[f], (j - f) * sizeof *x);
            r->x[f] = moved;
            f++;
        }
        b0 = b1;
    }
}

/* Values ptxas holds in registers across a block that the block does not
 * read or write (a loop's invariants used after it, a pointer kept for
 * the epilogue): they count against the budget there too.  Backward
 * liveness over the basic blocks (leader[]) of the registers that take
 * room (width > 0); returns the registers live across each block
 * untouched, per block number, or NULL when there is nothing to count. */
static uint32_t *
live_through(const struct ptx_run *r, const bool *leader, const struct regst *regs)
{
    uint32_t n_x = r->n_x, nb = 0, nr = 0;
    uint32_t *bit = xmalloc(SIM_MAX_REGS * sizeof *bit);
    for (uint32_t id = 0; id < SIM_MAX_REGS; id++)
        bit[id] = regs[id].width > 0 ? nr++ : UINT32_MAX;
    for (uint32_t i = 0; i < n_x; i++)
        nb += i == 0 || leader[i];
    if (nr == 0 || nb < 2) {
        free(bit);
        return NULL;
    }
    uint32_t w = (nr + 63) / 64;
    uint32_t *first = xmalloc((nb + 1) * sizeof *first), *blk_of = xmalloc(n_x * sizeof *blk_of);
    for (uint32_t i = 0, b = 0; i < n_x; i++) {
        if (i > 0 && leader[i])
            b++;
        if (i == 0 || leader[i])
            first[b] = i;
        blk_of[i] = b;
    }
    first[nb] = n_x;
    uint64_t *use = xcalloc((size_t)nb * w * 4, sizeof *use);
    uint64_t *def = use + (size_t)nb * w, *in = def + (size_t)nb * w, *out = in + (size_t)nb * w;
#define BS(v, b) ((v) + (size_t)(b) * w)
#define SETB(v, k) ((v)[(k) / 64] |= UINT64_C(1) << ((k) % 64))
#define HASB(v, k) (((v)[(k) / 64] >> ((k) % 64)) & 1)
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t i = first[b]; i < first[b + 1]; i++) {
            const struct xop *x = &r->x[i];
            for (unsigned k = 0; k < x->n_src; k++)
                if (bit[x->src[k]] != UINT32_MAX && !HASB(BS(def, b), bit[x->src[k]]))
                    SETB(BS(use, b), bit[x->src[k]]);
            for (unsigned k = 0; k < x->n_dst; k++)
                if (bit[x->dst[k]] != UINT32_MAX)
                    SETB(BS(def, b), bit[x->dst[k]]);
        }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = nb; b-- > 0;) {
            const struct xop *e = &r->x[first[b + 1] - 1];
            uint32_t succ[2], ns = 0;
            bool falls = e->kind != XK_EXIT && e->kind != XK_RET &&
                         !(e->kind == XK_BRA && e->guard < 0);
            if (falls && b + 1 < nb)
                succ[ns++] = b + 1;
            if (e->kind == XK_BRA && e->target >= 0 && (uint32_t)e->target < n_x)
                succ[ns++] = blk_of[e->target];
            for (uint32_t k = 0; k < w; k++) {
                uint64_t o = 0;
                for (uint32_t q = 0; q < ns; q++)
                    o |= BS(in, succ[q])[k];
                uint64_t v = BS(use, b)[k] | (o & ~BS(def, b)[k]);
                changed |= v != BS(in, b)[k];
                BS(out, b)[k] = o;
                BS(in, b)[k] = v;
            }
        }
    }
    uint32_t *through = xcalloc(nb, sizeof *through);
    for (uint32_t id = 0; id < SIM_MAX_REGS; id++) {
        uint32_t k = bit[id];
        if (k == UINT32_MAX)
            continue;
        for (uint32_t b = 0; b < nb; b++)
            if (HASB(BS(in, b), k) && HASB(BS(out, b), k) && !HASB(BS(use, b), k) &&
                !HASB(BS(def, b), k))
                through[b] += regs[id].width;
    }
#undef BS
#undef SETB
#undef HASB
    free(use);
    free(first);
    free(blk_of);
    free(bit);
    return through;
}

/* ---- the order's own check ----------------------------------------------- */

#define KEY_MEMORY (KEY_CARRY + 1)   /* pseudo-registers: memory, one per class (a store
                                        writes, a load reads) */

/* The keys x reads and writes for verify_order: operands() and memory. */
static void
order_keys(const struct ptx_run *r, const struct xop *x, uint32_t *rd, unsigned *nr, uint32_t *wr,
           unsigned *nw)
{
    operands(r, x, rd, nr, wr, nw);
    if (is_mem(x)) {
        unsigned classes = mem_classes(x);
        for (unsigned c = 0; c < MC_COUNT; c++) {
            if (!(classes & (1u << c)))
                continue;
            add_key(rd, nr, KEY_MEMORY + c);
            if (!mem_reads_only(x))
                add_key(wr, nw, KEY_MEMORY + c);
        }
    }
}

_Noreturn static void
order_broken(const struct ptx_run *r, const struct xop *a, const struct xop *b, const char *what)
{
    SIM_PANIC("%s: kernel %s: the sm_90 schedule broke the PTX order: %s (line %u '%s' and "
              "line %u '%s'); please report this with the PTX file", r->m->path, r->k->name,
              what, a->line, ptx_op_name(a->op), b->line, ptx_op_name(b->op));
}

/* Check that the final order r->x keeps every dependence of the order
 * before ptx_schedule (x->seq): operations stay in their basic block
 * (blk_of, by seq), branches, fences and block ends stay where they were,
 * and for every register (and memory) each read sees the write it saw
 * before, and writes stay in order.  Linear in the operations.  The
 * scheduler is built to keep all of that; this is the proof it did, on
 * every kernel, so a mistake is an internal error (exit 3) instead of a
 * silently different computation. */
static void
verify_order(const struct ptx_run *r, const uint32_t *blk_of)
{
    uint32_t n = r->n_x;
    uint32_t *pos = xmalloc(n * sizeof *pos);          /* by seq: index in the final order */
    for (uint32_t i = 0; i < n; i++) {
        const struct xop *x = &r->x[i];
        if (x->seq >= n)
            order_broken(r, x, x, "an operation was lost or duplicated");
        pos[x->seq] = i;
        if (blk_of[x->seq] != blk_of[i])
            order_broken(r, x, x, "an operation left its basic block");
        if ((terminator(x) || fence_like(x) || x->ctl == XC_ENTRY) && x->seq != i)
            order_broken(r, x, x, "a branch or fence moved");
    }
    /* barriers: what barrier_free() keeps in place sees the same number
     * of barriers before it in both orders (blocks do not move, so a
     * running count over the kernel is the count in its block plus the
     * same constant in both) */
    uint32_t *epoch = xmalloc(n * sizeof *epoch);      /* by seq: barriers before it, PTX order */
    for (uint32_t q = 0, nb = 0; q < n; q++) {
        epoch[q] = nb;
        nb += sched_barrier(&r->x[pos[q]]);
    }
    for (uint32_t i = 0, nb = 0; i < n; i++) {
        const struct xop *x = &r->x[i];
        if (!barrier_free(x) && epoch[x->seq] != nb)      /* a barrier is not free either */
            order_broken(r, x, x, "an operation crossed a barrier");
        nb += sched_barrier(x);
    }
    free(epoch);
    /* pass 1, in the PTX order: the write each read sees (seq + 1, 0: none) */
    uint32_t *start = xmalloc((n + 1) * sizeof *start);
    uint32_t total = 0;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t rd[MAX_OPS], wr[MAX_OPS];
        unsigned nr, nw;
        order_keys(r, &r->x[pos[q]], rd, &nr, wr, &nw);
        start[q] = total;
        total += nr;
    }
    start[n] = total;
    uint32_t *seen = xmalloc((total ? total : 1) * sizeof *seen);
    uint32_t *last = xcalloc(KEY_MEMORY + MC_COUNT, sizeof *last);  /* per key: writer seq + 1 */
    for (uint32_t q = 0; q < n; q++) {
        uint32_t rd[MAX_OPS], wr[MAX_OPS];
        unsigned nr, nw;
        order_keys(r, &r->x[pos[q]], rd, &nr, wr, &nw);
        for (unsigned a = 0; a < nr; a++)
            seen[start[q] + a] = last[rd[a]];
        for (unsigned a = 0; a < nw; a++)
            last[wr[a]] = q + 1;
    }
    /* pass 2, in the final order: the same writes, in the same order */
    memset(last, 0, (KEY_MEMORY + MC_COUNT) * sizeof *last);
    for (uint32_t i = 0; i < n; i++) {
        const struct xop *x = &r->x[i];
        uint32_t rd[MAX_OPS], wr[MAX_OPS];
        unsigned nr, nw;
        order_keys(r, x, rd, &nr, wr, &nw);
        for (unsigned a = 0; a < nr; a++)
            if (seen[start[x->seq] + a] != last[rd[a]]) {
                uint32_t w = seen[start[x->seq] + a] ? seen[start[x->seq] + a] :
                             last[rd[a]];
                order_broken(r, x, &r->x[pos[w - 1]], rd[a] >= KEY_MEMORY ?
                             "a memory access passed a store" : "a read sees another write");
            }
        for (unsigned a = 0; a < nw; a++) {
            if (last[wr[a]] > x->seq + 1)
                order_broken(r, x, &r->x[pos[last[wr[a]] - 1]], "two writes changed places");
            last[wr[a]] = x->seq + 1;
        }
    }
    free(last);
    free(seen);
    free(start);
    free(pos);
}

/* A basic block longer than SCHED_WINDOW operations (straight-line code of
 * tens of thousands of instructions: a fully unrolled loop, generated
 * code) is scheduled as consecutive windows of about that many, each on
 * its own, so the list scheduler's work (quadratic in a block's length)
 * stays linear in the kernel's.  A window never ends inside the
 * operations of one PTX instruction (an expansion's fast path stays
 * whole).  No block of the measured kernels comes near the window (the
 * longest, tests/ptx/realworld spill's, has 1,797 operations), so their
 * schedules are exactly those of a whole-block schedule. */
#define SCHED_WINDOW 2048u

static void
window_blocks(const struct ptx_run *r, bool *leader)
{
    uint32_t n_x = r->n_x, start = 0;
    for (uint32_t i = 1; i < n_x; i++) {
        if (leader[i]) {
            start = i;
            continue;
        }
        if (i - start >= SCHED_WINDOW && (r->x[i].line != r->x[i - 1].line ||
                                          r->x[i].op != r->x[i - 1].op)) {
            leader[i] = true;
            start = i;
        }
    }
}

void
ptx_schedule(struct ptx_run *r)
{
    uint32_t n_x = r->n_x;
    if (n_x == 0)
        return;
    bool *leader = xcalloc(n_x + 1, sizeof *leader);
    leader[0] = true;
    for (uint32_t i = 0; i < n_x; i++) {
        const struct xop *x = &r->x[i];
        if (terminator(x))
            leader[i + 1] = true;
        if (x->kind == XK_BRA && x->target >= 0 && (uint32_t)x->target < n_x)
            leader[x->target] = true;
        if (x->reconv >= 0 && (uint32_t)x->reconv < n_x)
            leader[x->reconv] = true;
        if (fence_like(x))
            leader[i] = leader[i + 1] = true;
    }
    for (uint32_t f = 0; f < r->n_funcs; f++)
        if ((uint32_t)r->funcs[f].entry < n_x)
            leader[r->funcs[f].entry] = true;    /* a function's entry */
    window_blocks(r, leader);
    uint32_t *blk_of = xmalloc(n_x * sizeof *blk_of);
    for (uint32_t i = 0, b = 0; i < n_x; i++) {
        b += i > 0 && leader[i];
        blk_of[i] = b;
        r->x[i].seq = i;
    }
    hoist_over_regions(r, leader);
    for (uint32_t i = 0; i < n_x; i++)
        if (r->x[i].ctl == XC_SYNC)
            leader[i] = true;        /* an expansion's convergence point: nothing moves across */
    struct sched s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.keys = xcalloc(SIM_MAX_REGS + 1, sizeof *s.keys);
    /* the registers ptxas can give values: its count less R1 (the stack
     * pointer, written only by the LDC at every kernel's entry) and the two
     * above the highest it uses (in 59 of the 60 sm_90 kernels of
     * shared/measured/h100/sass, the highest register is R(count - 3)) */
    s.budget = r->l == NULL || r->l->regs == 0 ? 0 : r->l->regs > 4 ? r->l->regs - 3 : 1;
    s.regs = xcalloc(SIM_MAX_REGS, sizeof *s.regs);
    for (uint32_t id = 0; id < SIM_MAX_REGS; id++) {
        s.regs[id].read_blk = -1;
        /* predicates have their own file; an expansion's temporaries
         * (ptx_lower.h) are taken as the registers ptxas computes them in
         * in place (the destination's, or a source's that dies); ids
         * above the kernel's registers name none (live_through's sets
         * are as wide as the registers that take room) */
        s.regs[id].width = id >= r->id32 && id < r->id64 ? 1 :
                           id >= r->id64 && id < r->id64 + r->nvar64 ? 2 : 0;
    }
    for (uint32_t i = 0, blk = 0; i < n_x; i++) {
        if (i > 0 && leader[i])
            blk++;
        for (unsigned k = 0; k < r->x[i].n_src; k++) {
            struct regst *g = &s.regs[r->x[i].src[k]];
            if (g->read_blk == -1)
                g->read_blk = (int32_t)blk;
            else if (g->read_blk != (int32_t)blk)
                g->read_blk = -2;
        }
    }
    if (s.budget > 0)
        s.through = live_through(r, leader, s.regs);
    s.nodes = xmalloc(n_x * sizeof *s.nodes);
    s.rdy = xmalloc(n_x * sizeof *s.rdy);
    s.pstart = xmalloc((n_x + 1) * sizeof *s.pstart);
    s.mark = xmalloc(n_x * sizeof *s.mark);
    uint32_t *order = xmalloc(n_x * sizeof *order);
    struct xop *tmp = xmalloc(n_x * sizeof *tmp);
    for (uint32_t b0 = 0; b0 < n_x;) {
        uint32_t b1 = b0 + 1;
        while (b1 < n_x && !leader[b1])
            b1++;
        uint32_t n = b1 - b0;
        bool fixed_end = terminator(&r->x[b1 - 1]);
        if (n - (fixed_end ? 1u : 0u) >= 2) {
            s.n_edges = 0;
            s.n_links = 0;
            for (uint32_t i = 0; i < n; i++)
                s.nodes[i] = (struct node){ UINT32_MAX, i, 0, 0, 0, sched_pipe(&r->x[b0 + i]),
                                            sched_hold(&r->x[b0 + i]), false };
            build_edges(&s, &r->x[b0], n);
            index_block(&s, n);
            heights(&s, &r->x[b0], n);
            pressure_begin(&s, &r->x[b0], n);
            list_schedule(&s, &r->x[b0], n, order);
            for (uint32_t i = 0; i < n; i++)
                tmp[i] = r->x[b0 + order[i]];
            memcpy(&r->x[b0], tmp, n * sizeof *tmp);
        }
        stall_counts(&s, &r->x[b0], n);
        b0 = b1;
        s.blk++;
    }
    /* the operations' byte offsets as issued: a branch over an expansion's
     * slow path skips its four instructions (MOV, CALL, MOV, BRA) */
    uint32_t spc = 0;
    int32_t last = -1;
    for (uint32_t i = 0; i < n_x; i++) {
        struct xop *x = &r->x[i];
        x->spc = spc;
        if (x->silent)
            continue;
        spc += x->ctl == XC_BRANCH ? 5 * 16 : x->ctl == XC_SYNC ? 2 * 16 : 16;
        /* the fast path's last result is written SYNC_DRAIN cycles before
         * its BSYNC issues (the FFMA before every BSYNC stalls 7) */
        if (x->ctl == XC_SYNC && last >= 0 && !variable_latency(&r->x[last])) {
            unsigned st = ptx_sched_latency(&r->x[last]) + SYNC_DRAIN;
            if (r->x[last].stall < st)
                r->x[last].stall = (uint8_t)st;
        }
        last = (int32_t)i;
    }
    verify_order(r, blk_of);
    free(blk_of);
    free(tmp);
    free(order);
    free(s.nodes);
    free(s.rdy);
    free(s.pstart);
    free(s.preds);
    free(s.mark);
    free(s.edges);
    free(s.links);
    free(s.keys);
    free(s.regs);
    free(s.through);
    free(leader);
}
