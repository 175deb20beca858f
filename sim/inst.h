/*
 * inst.h - the model's instruction and the one instruction-source interface.
 *
 * A frontend (the .smt reader, the PTX emulator, the Accel-Sim reader, the
 * synthetic generator) turns its input into a stream of struct warp_inst per
 * warp and hands them to the model through struct inst_source.  The model
 * sees only what is here: it never includes frontend/ and never needs an ISA
 * table.  struct warp_inst is plain fixed-width data with no pointers.
 *
 * Protocol, per kernel:
 *   next_kernel(&ki)                   -> 1, or 0 when there are no more kernels
 *   kernel_begin(max_slots, n_sms)     the model will keep at most max_slots
 *                                      blocks open at once on n_sms SMs
 *   block_begin(block_id, slot, sm)    block_id = linear block index (x fastest);
 *                                      ids are opened in increasing order; slot
 *                                      is the model's handle, < max_slots; sm is
 *                                      the SM the block runs on (%smid)
 *   next_inst(slot, warp, now, &wi)    -> 1 with *wi filled, 0 when that warp has
 *                                      no more instructions, < 0 on error; now
 *                                      is the model's cycle at the fetch (what a
 *                                      %clock read returns), SIM_CYCLE_MAX when
 *                                      no timing model runs (record, emulate),
 *                                      SIM_CYCLE_TIMEOUT when none runs and a
 *                                      blocking wait must time out (below)
 *   block_end(slot)                    the block's slot may be reused
 * Errors are negative enum sim_err codes with the message in *err.
 *
 * Execution-driven frontends (PTX) execute an instruction functionally when
 * next_inst returns it; the model therefore never asks a warp for the
 * instruction after a barrier until that barrier has been released.
 */
#ifndef SMSIM_SIM_INST_H
#define SMSIM_SIM_INST_H

#include "sim/types.h"
#include "sim/error.h"

/* Execution pipes of a sub-partition.  ORDER PIPE (part of the config names). */
#define SIM_PIPES(X) \
    X(SP, "sp", "FP32 lanes (CUDA cores)") \
    X(INT, "int", "INT32 lanes") \
    X(DPU, "dpu", "FP64 lanes") \
    X(SFU, "sfu", "special-function units") \
    X(LDST, "ldst", "load/store units (address generation to L1/shared memory)") \
    X(TENSOR, "tensor", "tensor cores") \
    X(BRANCH, "branch", "branch unit") \
    X(UNIFORM, "uniform", "uniform datapath (one value per warp: UIADD3, UMOV, ULDC; Turing and later)")

enum sim_pipe {
#define X(id, name, help) SIM_PIPE_##id,
    SIM_PIPES(X)
#undef X
    SIM_PIPE_COUNT
};

enum sim_opclass {
#define OPCLASS(id, name, pipe, lat, help) SIM_OPC_##id,
#include "sim/opclass.def"
#undef OPCLASS
    SIM_OPC_COUNT
};

/* Memory space of a memory instruction.  ORDER SPACE (stored in .smt). */
#define SIM_SPACES(X) \
    X(NONE, "none") \
    X(GLOBAL, "global") \
    X(SHARED, "shared") \
    X(LOCAL, "local") \
    X(CONST, "const") \
    X(PARAM, "param") \
    X(TEX, "tex")

enum sim_space {
#define X(id, name) SIM_SPACE_##id,
    SIM_SPACES(X)
#undef X
    SIM_SPACE_COUNT
};

/* Instruction flags (bit set).  Stored in .smt: never renumber. */
enum sim_inst_flag {
    SIM_IF_LOAD = 1u << 0,       /* reads memory */
    SIM_IF_STORE = 1u << 1,      /* writes memory */
    SIM_IF_ATOMIC = 1u << 2,     /* read-modify-write at L2 (global) or in shared memory */
    SIM_IF_BARRIER = 1u << 3,    /* CTA barrier (aux: SIM_BAR_AUX) */
    SIM_IF_EXIT = 1u << 4,       /* retires the active lanes of the warp */
    SIM_IF_BRANCH = 1u << 5,     /* control transfer */
    SIM_IF_BYPASS_L1 = 1u << 6,  /* global access that is not cached in L1 (.cg, volatile) */
    SIM_IF_FENCE = 1u << 7,      /* memory fence */
    SIM_IF_FLAGS_ALL = 0xffu
};

/* A CTA barrier's aux (SIM_IF_BARRIER; PTX bar.sync / bar.arrive / bar.red
 * a, b): its id a (0 .. SIM_BARRIERS - 1), the warps it waits for (b / 32;
 * 0: every warp of the block that has not exited) and whether the warp
 * only arrives and goes on (bar.arrive).  0 is __syncthreads(): barrier 0,
 * the whole block.  (Accel-Sim traces carry no barrier operands: each of
 * their BARs is 0.) */
#define SIM_BARRIERS 16u
#define SIM_BAR_AUX(id, warps, arrive) \
    ((uint32_t)(id) | (uint32_t)(warps) << 8 | ((arrive) ? UINT32_C(1) << 31 : 0))
#define SIM_BAR_ID(aux) ((aux) & (SIM_BARRIERS - 1u))
#define SIM_BAR_WARPS(aux) (((aux) >> 8) & 0xffffu)
#define SIM_BAR_ARRIVE(aux) (((aux) >> 31) != 0)

/* Synchronisation through a block's transaction barriers (PTX mbarrier,
 * SASS SYNCS): sync objects 0 .. SIM_SYNC_OBJS - 1 of the block, each
 * counting signals 1, 2, 3 ... in the order the frontend numbered them
 * (warp_inst.aux).  A signal is done when its instruction completes (an
 * arrive: its shared-memory access; a bulk copy: its last byte landed in
 * shared memory).  A wait for signal n does not issue before signals 1 ..
 * n of its object have issued, and its result is ready no earlier than the
 * last of them is done: the frontend gives a wait that found a phase
 * complete the number of the signal that completed it.
 *
 * SIM_SYNC_POLL: a wait the source decides when it issues, not when it is
 * fetched (an mbarrier try_wait or test_wait whose phase may complete in
 * the meantime).  The model fetches nothing after it until it has issued;
 * while it is next, the model asks the source's wait_poll() whether its
 * phase has completed: if so it issues once the signal wait_poll() named
 * is done; if not, it issues anyway after sync.try_wait_cycles (aux =
 * SIM_POLL_TRY: a try_wait, which suspends that long) or at once
 * (SIM_POLL_TEST: a test_wait), or not until it has (SIM_POLL_BLOCKING:
 * barrier.cluster.wait, whose completion the source may learn from other
 * SMs' fetches).
 * At issue wait_commit() executes it and turns it into a WAIT or NONE.
 *
 * SIM_SYNC_WAITING: without a timing model (next_inst's now is
 * SIM_CYCLE_MAX: emulate, trace record), a test_wait that found its phase
 * incomplete: it was executed (its predicate is false) and whoever drives
 * the warps gives the others a turn.
 * SIM_SYNC_BLOCKED: without a timing model, a wait that blocks until its
 * phase completes (try_wait, barrier.cluster.wait) and found it
 * incomplete: it was not executed, the warp's next instruction is the
 * same wait again, and whoever drives the warps neither counts nor
 * records it and gives the others a turn.  So an untimed run, and a trace
 * recorded from one, has each try_wait once, complete, as the hardware's
 * suspending wait mostly has it.  (The timing model never gets either:
 * they are malformed there.)  When no warp can go on (every one is
 * blocked or at a barrier), the driver fetches with now =
 * SIM_CYCLE_TIMEOUT: a try_wait then times out as the hardware's does
 * after its time limit (executed, false: SIM_SYNC_NONE); a wait
 * without a time limit (barrier.cluster.wait) stays blocked, and if
 * nothing moves then either the kernel has deadlocked. */
#define SIM_CYCLE_TIMEOUT (SIM_CYCLE_MAX - 1)
/* Does next_inst's now say that no timing model runs? */
#define SIM_UNTIMED(now) ((now) >= SIM_CYCLE_TIMEOUT)
/* SIM_SYNC_POLL's aux: what a wait whose phase has not completed does. */
enum sim_poll { SIM_POLL_TEST = 0, SIM_POLL_TRY = 1, SIM_POLL_BLOCKING = 2 };
/* SIM_SYNC_SIGNAL_ASYNC: a signal done when its instruction completes and
 * every write of an accumulating register (sim/types.h) the warp issued
 * before it has landed: an arrive that fires when the warp's
 * asynchronous copies in flight are done (PTX cp.async.mbarrier.arrive,
 * SASS ARRIVES.LDGSTSBAR).  The warp itself does not wait for them.  Every
 * accumulating register counts (the frontend's copy groups, and its bulk
 * and warpgroup-MMA groups too, which such a warp rarely has in flight):
 * the signal may be later than the hardware's, never earlier. */
enum sim_sync { SIM_SYNC_NONE = 0, SIM_SYNC_SIGNAL = 1, SIM_SYNC_WAIT = 2, SIM_SYNC_POLL = 3,
                SIM_SYNC_WAITING = 4, SIM_SYNC_BLOCKED = 5, SIM_SYNC_SIGNAL_ASYNC = 6 };
/* 32: the .smt record's sync byte holds the object in 5 bits.  CUTLASS's
 * SM90 ping-pong GEMM has the most mbarriers of the kernels run so far
 * (its mainloop, epilogue and order pipelines). */
#define SIM_SYNC_OBJS 32u

/* A bulk transfer (PTX cp.async.bulk, SASS UBLKCP): one instruction moves
 * addr[1] bytes from or to global memory at timing address addr[0]
 * through the SM's bulk-copy unit; SIM_IF_LOAD: global to shared,
 * SIM_IF_STORE: shared to global.  SIM_BULK_TENSOR: a tensor copy
 * (cp.async.bulk.tensor, UTMALDG, UTMASTG) moves rows: addr[1] bytes at
 * addr[0], repeated addr[2 d] times at a stride of addr[2 d + 1] bytes for
 * d = 1 .. 4 (dimension 1 fastest; a count of 0 moves nothing). */
enum sim_bulk { SIM_BULK_NONE = 0, SIM_BULK_COPY = 1, SIM_BULK_TENSOR = 2, SIM_BULK_DSMEM = 3 };
/* SIM_BULK_DSMEM: addr[1] bytes from this block's shared memory to another
 * block's of its cluster (cp.async.bulk.shared::cluster.shared::cta),
 * through the bulk-copy unit and the SM-to-SM network. */

/* Remote signals: signals of sync objects of other blocks of the cluster
 * (an mbarrier of another block: a multicast bulk copy's transactions, an
 * arrive or complete_tx at a shared::cluster address).  Bit i of
 * warp_inst.rsig_mask: addr[i] holds one, SIM_RSIG(block id, object,
 * signal number); that signal is done when the instruction completes (its
 * DSMEM access; a copy: its last byte landed).  A lane whose access is
 * remote has no timing address of its own (the DSMEM port counts bytes);
 * a bulk copy uses bits 16 .. 31 (addr[16 + the peer's cluster rank]). */
#define SIM_RSIG(block, obj, sig) \
    ((uint64_t)(block) << 32 | (uint64_t)(obj) << 27 | (uint64_t)(sig))
#define SIM_RSIG_BLOCK(v) ((v) >> 32)
#define SIM_RSIG_OBJ(v) ((unsigned)((v) >> 27 & 0x1fu))
#define SIM_RSIG_SIG(v) ((uint32_t)((v) & 0x07ffffffu))
#define SIM_RSIG_MAX_SIG 0x07ffffffu

/* A warpgroup MMA (SIM_OPC_WGMMA): aux = N (8 .. 256, the columns of its
 * m64nNk tile; the warp computes 16 of the 64 rows), | SIM_WGMMA_A_SHARED
 * when A is read from shared memory (else from registers).  B (N x 32
 * bytes) is always read from shared memory, by the four warps of the
 * group together: a quarter each. */
#define SIM_WGMMA_A_SHARED (1u << 16)
#define SIM_WGMMA_N(aux) ((aux) & 0x1ffu)

/* An FP64 tensor-core MMA (SIM_OPC_TENSOR_DP): aux = its work in
 * DMMA.884 units (M / 8 x K / 4: 1, 2, 4 or 8; 0 counts as 1), which
 * multiplies op.tensor_dp.interval. */
#define SIM_DMMA_UNITS(aux) ((aux) > 1 ? (aux) : 1u)

/* The aux of a DMMA of shape m x n x k (n = 8). */
static inline unsigned
sim_dmma_units(unsigned m, unsigned k)
{
    return (m / 8u) * (k / 4u);
}

/* One dynamic warp instruction, as the model sees it. */
struct warp_inst {
    uint32_t pc;                 /* byte offset of the instruction in the kernel */
    uint32_t active_mask;        /* lanes that execute it (guard predicate applied) */
    uint16_t opcode;             /* frontend ISA opcode id (for dumps/exports only) */
    uint8_t opclass;             /* enum sim_opclass */
    uint8_t flags;               /* enum sim_inst_flag bits */
    uint8_t space;               /* enum sim_space; SIM_SPACE_NONE if not memory */
    uint8_t width;               /* bytes accessed per active lane (1..16), 0 if none */
    uint8_t n_dst;               /* number of valid dst[] entries */
    uint8_t n_src;               /* number of valid src[] entries */
    uint8_t stall;               /* cycles from its issue until the warp's next instruction
                                    may issue: the stall count of a Volta+ control word, as
                                    the compiler's static schedule sets it for fixed-latency
                                    dependences; 0 or 1: the next cycle */
    uint8_t sync;                /* enum sim_sync: a signal or wait of sync object sync_obj,
                                    signal number aux */
    uint8_t sync_obj;            /* < SIM_SYNC_OBJS */
    uint8_t bulk;                /* enum sim_bulk */
    uint8_t remote;              /* a shared-memory access to another block of the cluster
                                    (distributed shared memory: smem.dsmem_latency more) */
    uint32_t rsig_mask;          /* remote signals (above) in addr[] */
    uint16_t dst[SIM_MAX_DST];   /* destination register ids, < SIM_MAX_REGS */
    uint16_t src[SIM_MAX_SRC];   /* source register ids, < SIM_MAX_REGS */
    uint32_t aux;                /* barrier id, immediate (DEPBAR count), signal number (sync),
                                    etc. */
    sim_addr_t addr[SIM_WARP_SIZE]; /* per-lane address, valid for active lanes of memory insts */
};

/* Kernel description delivered by next_kernel(). */
#define SIM_KERNEL_NAME_MAX 512
struct kernel_info {
    char name[SIM_KERNEL_NAME_MAX];  /* mangled or plain kernel name */
    uint32_t grid[3];            /* blocks in x, y, z */
    uint32_t block[3];           /* threads per block in x, y, z */
    uint32_t regs_per_thread;    /* registers per thread (occupancy) */
    uint32_t smem_static;        /* bytes of static shared memory per block */
    uint32_t smem_dynamic;       /* bytes of dynamic shared memory per block */
    uint16_t isa;                /* enum sim_isa of the source */
    uint16_t isa_version;        /* SASS: binary version (70 = sm_70); PTX: target sm */
    uint64_t warp_insts;         /* total dynamic warp instructions if known, else 0 */
    uint32_t cluster[3];         /* blocks per thread-block cluster in x, y, z (0: 1): a
                                    cluster's blocks run together, on SMs of one GPC
                                    (gpu.gpc_sms), ranked x fastest; its blocks' ids are
                                    not consecutive unless the cluster spans whole rows */
    bool cooperative;            /* a cooperative launch: its blocks sync the whole grid, so
                                    all of them must be resident at once */
};

/* A host-to-device copy recorded with a trace (Accel-Sim MemcpyHtoD). */
struct sim_copy {
    sim_addr_t addr;             /* device address */
    uint64_t bytes;
};

typedef struct stats stats;

/* Source instruction-set family. */
enum sim_isa { SIM_ISA_NONE = 0, SIM_ISA_PTX = 1, SIM_ISA_SASS = 2, SIM_ISA_SYNTH = 3 };

struct inst_source_ops {
    int (*next_kernel)(void *ctx, struct kernel_info *ki, struct sim_error *err);
    int (*kernel_begin)(void *ctx, uint32_t max_slots, uint32_t n_sms, struct sim_error *err);
    int (*block_begin)(void *ctx, uint64_t block_id, uint32_t slot, uint32_t sm,
                       struct sim_error *err);
    int (*next_inst)(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now,
                     struct warp_inst *wi, struct sim_error *err);
    void (*block_end)(void *ctx, uint32_t slot);
    /* Name of an opcode id for printing.  Opcode ids are dense from 0:
     * NULL is returned for the first id past the table (and may be for all). */
    const char *(*opcode_name)(void *ctx, uint16_t opcode);
    void (*destroy)(void *ctx);
    /* Optional (NULL if the source has none) -------------------------- */
    /* Host-to-device copies made before the kernel next_kernel() returned
     * last, in order; *out stays valid until the next next_kernel(). */
    size_t (*copies)(void *ctx, const struct sim_copy **out);
    /* Register the source's own counters (e.g. unknown opcodes) with the
     * model's statistics; called once, before the first kernel. */
    void (*register_stats)(void *ctx, stats *st);
    /* The compute capability (x 10) of the GPU the model simulates, told
     * once before the first next_kernel(): a source that compiles (PTX)
     * schedules and lowers its kernels for that target. */
    void (*set_target)(void *ctx, unsigned cc);
    /* Sources that return SIM_SYNC_POLL instructions (else NULL).
     * wait_poll: would warp's pending wait find its phase complete now (1,
     * *sig the signal to wait for, 0 if none; 2: complete, a cluster
     * barrier whose phase had a releasing arrive, whose fence the release
     * waits for; 0: not complete)?  It
     * executes nothing.  wait_commit: execute the wait, at its issue, as
     * the model found it at its last poll (complete: as wait_poll() said;
     * else false in every lane, a try_wait that timed out); *wi's sync and
     * aux become SIM_SYNC_WAIT and the signal, or SIM_SYNC_NONE. */
    int (*wait_poll)(void *ctx, uint32_t slot, uint32_t warp, uint32_t *sig);
    int (*wait_commit)(void *ctx, uint32_t slot, uint32_t warp, bool complete,
                       struct warp_inst *wi, struct sim_error *err);
    /* true if next_inst() may be called concurrently for slots whose
     * blocks run on different SMs (block_begin said which); calls for one
     * SM's slots are never concurrent.  false: one call at a time. */
    bool concurrent_next;
};

/* An instruction source: an ops table and its state.  Plain data. */
struct inst_source {
    const struct inst_source_ops *ops;
    void *ctx;
};

/* Convenience wrappers (inline: they sit on the fetch path). */
static inline int
inst_source_next(struct inst_source *s, uint32_t slot, uint32_t warp, sim_cycle_t now,
                 struct warp_inst *wi, struct sim_error *err)
{
    return s->ops->next_inst(s->ctx, slot, warp, now, wi, err);
}

void inst_source_destroy(struct inst_source *s);

/* Derived kernel quantities. */
uint64_t kernel_info_blocks(const struct kernel_info *ki);
uint32_t kernel_info_threads_per_block(const struct kernel_info *ki);
uint32_t kernel_info_warps_per_block(const struct kernel_info *ki);
/* Blocks per cluster (1 without clusters), and the ids of cluster c's
 * blocks in rank order (x fastest) into ids (room for 16); their count. */
uint32_t kernel_info_cluster_size(const struct kernel_info *ki);
uint32_t kernel_info_cluster_blocks(const struct kernel_info *ki, uint64_t c, uint64_t *ids);

/* Name tables (never NULL; "?" for out-of-range values). */
const char *inst_pipe_name(unsigned pipe);
const char *inst_opclass_name(unsigned opclass);
const char *inst_opclass_help(unsigned opclass);
const char *inst_space_name(unsigned space);
const char *inst_isa_name(unsigned isa);
/* Look up a name; returns the enum value or -1. */
int inst_pipe_lookup(const char *name);
int inst_opclass_lookup(const char *name);
int inst_space_lookup(const char *name);

/* Default pipe and latency of an opcode class (the config's defaults). */
unsigned inst_opclass_default_pipe(unsigned opclass);
unsigned inst_opclass_default_latency(unsigned opclass);

/* Format the flag bits as "load|bypass_l1" into buf; returns buf. */
const char *inst_flags_str(unsigned flags, char *buf, size_t n);

/* Population count of an active mask. */
static inline unsigned
inst_popc(uint32_t m)
{
    return sim_popc32(m);
}

#endif /* SMSIM_SIM_INST_H */
