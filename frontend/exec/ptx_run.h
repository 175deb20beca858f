/*
 * ptx_run.h - a PTX kernel decoded for execution, and the state of its
 * running warps and blocks: plain data shared by the frontend's modules
 * (private to frontend/ptx*.c).
 *
 * A kernel is decoded once per launch into struct xop: every operand
 * becomes a slot in one of three per-warp register files (32-bit, 64-bit,
 * predicate masks).  Immediates, symbol addresses, kernel parameters and
 * the block-invariant special registers are read-only slots filled when a
 * warp starts, so instructions never test operand kinds.  Register files
 * are lane-major ("struct of arrays": slot s holds 32 lanes), so an
 * instruction is one tight loop over the active lanes.
 *
 * Divergence uses a SIMT reconvergence stack: a divergent branch pushes
 * the not-taken and taken paths, both ending at the branch's immediate
 * post-dominator, where the entries pop and the lanes run together again.
 *
 * Device functions are linked after the kernel in x[] (ptx_call.h): a
 * call pushes a frame on the warp's call stack and an entry for the
 * calling lanes on the SIMT stack; the caller's entry waits after the
 * call, so lanes that did not call rejoin the callers when they return.
 *
 * Who does what with it: ptx_decode.c fills it in, ptx_exec.c executes it
 * (memory through ptx_mem.c, calls through ptx_call.c), ptx_lower.c and
 * ptx_sched.c rewrite x[] for sm_90.
 */
#ifndef SMSIM_FRONTEND_PTX_RUN_H
#define SMSIM_FRONTEND_PTX_RUN_H

#include "frontend/async.h"
#include "frontend/launch.h"
#include "frontend/ptx/ptx_ir.h"
#include "sim/error.h"
#include "sim/inst.h"

#include <string.h>

/* The counters a PTX source registers as statistics. */
struct ptx_counters {
    uint64_t ptx_insts;          /* PTX warp instructions executed (ptx.insts) */
    /* Of those, the ones with a lane active (an if-converted body that a
     * warp's lanes all skip runs for none; the same work whether or not
     * the sm_90 lowering runs), and of those the retries of mbarrier waits:
     * from a wait that found its phase incomplete (itself included) until
     * the warp comes back to it.  Launch sampling's work (cudart). */
    uint64_t active_insts, wait_retries;
    uint64_t npipe[8];           /* issued per enum sass_npipe (sass.inst_pipe_*) */
};

/* ---- device-function calls (ptx_call.c) ---------------------------------- */

/* The least a frame takes (its return address and alignment), so that even
 * a function without variables cannot recurse without bound. */
#define PTX_FRAME_MIN 16u

/* Where an argument, a return value or a parameter is. */
enum xloc_kind { XL_FRAME, XL_SLOT };

struct xloc {
    uint8_t kind;                /* enum xloc_kind */
    uint8_t cls;                 /* XL_SLOT: enum slot_class */
    uint32_t idx;                /* XL_SLOT: the slot (a register or a constant) */
    uint32_t off;                /* XL_FRAME: bytes from the frame base */
    uint32_t size;               /* bytes */
};

/* A function of the linked program (r->funcs). */
struct xfunc {
    const struct ptx_kernel *body;   /* its PTX (the module's) */
    const char *name;
    int32_t mod;                 /* index in the module's funcs; -1: the kernel */
    int32_t entry, end;          /* its operations: x[entry .. end) (renumbered by ptx_lower) */
    uint32_t line;               /* its .func line */
    uint32_t frame;              /* bytes of an activation's frame (a multiple of 16) */
    uint32_t local_off;          /* frame offsets of its .local variables, */
    uint32_t param_off;          /* its parameters, */
    uint32_t site_off;           /* and its calls' .param variables */
    uint32_t r32, n32, r64, n64, rp, np;   /* its registers: slots r32 .. r32 + n32 - 1, ... */
    int32_t ret;                 /* its return parameter: r->locs[ret], or -1 */
    uint32_t arg0, nargs;        /* its argument parameters: r->locs[arg0 .. arg0 + nargs) */
    bool recursive;              /* on a cycle of the call graph */
    uint32_t smem_base;          /* where its own .shared variables start in the block's
                                    shared memory (after the kernel's; 0 for the kernel) */
    uint8_t builtin;             /* a CUDA runtime function the module only declares and smsim
                                    carries out itself (enum xbuiltin), else XB_NONE */
    /* what ptxas makes of it on sm_90 (ptx_lower_emit_spills) */
    uint16_t save_words;         /* 4-byte registers stored on entry and loaded before each
                                    return (callee-saved registers) */
    bool sp_adjust;              /* it has a stack frame: the stack pointer moves on entry and
                                    before each return */
};

/* The runtime functions a kernel may call without a body in the PTX:
 * printf's vprintf(format, arguments), assert's __assertfail(message,
 * file, line, function, char size), and the device heap's malloc(size)
 * and free(pointer) (new and delete call them). */
enum xbuiltin { XB_NONE, XB_VPRINTF, XB_ASSERTFAIL, XB_MALLOC, XB_FREE, XB_SETCOND };

/* The device heap device-side malloc allocates from (a global region):
 * CUDA's default cudaLimitMallocHeapSize, 8 MB, unless a program sets
 * another before the heap is made (ptx_prog_set_heap).  Allocations are
 * 16-byte aligned and never reused (free is accepted and does nothing);
 * an exhausted heap returns NULL, as CUDA's does. */
#define PTX_HEAP_BYTES (UINT64_C(8) << 20)
struct ptx_heap {
    sim_addr_t base;             /* device address of its region (0: none) */
    uint64_t size;               /* bytes */
    uint64_t used;
    uint8_t *mem;                /* its memory, when the run owns it (a launch file's) */
};

/* Does module m call device-side malloc (declare it without a body)? */
bool ptx_module_calls_malloc(const struct ptx_module *m);

/* A call instruction (r->sites). */
struct xcallsite {
    int32_t func;                /* the callee (r->funcs), or XCALL_INDIRECT: the function the
                                    lane's pointer (the call's slot a) names */
    int32_t ret;                 /* the caller's receiver: r->locs[ret], or -1 */
    uint32_t arg0, nargs;        /* the arguments: r->locs[arg0 .. arg0 + nargs) */
    uint32_t line;
};

/* The callee of an indirect call site (func < 0). */
#define XCALL_INDIRECT (-1)

/* One call in progress in a warp. */
struct call_frame {
    int32_t func, caller;        /* r->funcs */
    int32_t site;                /* r->sites */
    int32_t base_sp;             /* SIMT entries below belong to the caller */
    uint32_t fp, caller_fp;      /* frame bases */
    uint32_t returned;           /* lanes that executed ret */
    size_t saved;                /* the callee's registers in save[], or SIZE_MAX */
};

/* A warp's calls. */
struct ptx_callstack {
    uint32_t n, cap;             /* (n and end: read by every step) */
    int32_t end;                 /* the running function's end in x[] */
    int32_t func;                /* the running function (r->funcs; 0: the kernel) */
    uint32_t fp;                 /* frame base of the running function (a local address) */
    struct call_frame *frames;
    uint16_t *active;            /* per function: its activations in progress */
    uint8_t *save;               /* registers of recursive activations */
    size_t save_len, save_cap;
    uint8_t *mem;                /* the call stack: lane l's byte o at mem[l * mem_cap + o],
                                    o = local address - local_bytes */
    uint32_t mem_cap;            /* bytes per lane */
    uint32_t mem_hi;             /* bytes per lane used since the warp started */
};

/* ---- registers, decoded operations, warps and blocks --------------------- */

union r32 {
    uint32_t u;
    int32_t s;
    float f;
};

union r64 {
    uint64_t u;
    int64_t s;
    double d;
};

enum slot_class { SC_NONE, SC_32, SC_64, SC_PRED };

struct slot {
    uint8_t cls;                 /* enum slot_class */
    uint32_t idx;                /* index in that file */
};

/* Generic address windows of the functional memory (cvta). */
#define PTX_SHARED_WINDOW UINT64_C(0x0000100000000000)
#define PTX_LOCAL_WINDOW  UINT64_C(0x0000200000000000)
#define PTX_WINDOW_SIZE   UINT64_C(0x0000010000000000)
/* ... and of the kernel's parameters (cvta.param of a parameter's address:
 * a __grid_constant__ parameter, a tensor map, read through a pointer). */
#define PTX_PARAM_WINDOW  UINT64_C(0x0000500000000000)
/* Device addresses of buffers and module globals. */
#define PTX_GLOBAL_BASE   UINT64_C(0x00007f0000000000)
/* Timing-model addresses of local memory (interleaved per lane). */
#define PTX_LOCAL_TRACE   UINT64_C(0x00007e0000000000)

/* Executor operations (the decoded form of an instruction). */
enum xkind {
    XK_ALU,                      /* arithmetic/logic on registers */
    XK_PARAM,                    /* ld.param: d <- a (and d2 <- b for .v2), constants */
    XK_MOVE_CLOCK,               /* mov from %clock / %clock64 */
    XK_LD, XK_ST, XK_ATOM, XK_RED,
    XK_BRA, XK_EXIT, XK_TRAP, XK_BAR, XK_NOP,
    XK_SHFL, XK_VOTE, XK_ACTIVEMASK,
    XK_MMA,                      /* mma.sync: frag[] (ptx_mma.h) */
    XK_WMMA,                     /* wmma.mma.sync: frag[] (ptx_mma.h) */
    XK_WLOAD, XK_WSTORE,         /* wmma.load / wmma.store: frag[], base/off, stride in b */
    XK_CPASYNC,                  /* cp.async: global (base, off) -> shared (base2, off2) */
    XK_LDMATRIX, XK_STMATRIX,    /* ldmatrix / stmatrix .m8n8 .b16: frag[0 .. vec - 1] */
    XK_TIMING,                   /* an operation of a lowered instruction that only takes time
                                    (ptx_lower.c) */
    XK_CALL,                     /* call: off = its call site (r->sites), target = the callee's
                                    entry (ptx_call.c) */
    XK_RET,                      /* ret in a function: the lanes return to the caller */
    XK_FRAMEADDR,                /* d <- the frame base + off (mov of a function's .local
                                    variable's address) */
    XK_MBAR,                     /* mbarrier.*: x->mode, the barrier at (base, off), d the state
                                    or predicate, a the count / tx count / parity / state */
    XK_BULK,                     /* cp.async.bulk: global (base, off) <-> shared (base2, off2),
                                    a bytes; global to shared: the mbarrier at (base3, off3) */
    XK_ELECT,                    /* elect.sync d|d2, a */
    XK_WGMMA,                    /* wgmma.mma_async (ptx_wgmma.h): D in r->wslots[off ..], A's
                                    descriptor a or registers frag[0 .. 3], B's descriptor b,
                                    scale-d c */
    XK_WGFENCE, XK_WGCOMMIT, XK_WGWAIT,   /* wgmma.fence, .commit_group, .wait_group (a) */
    XK_MAPA,                     /* mapa d, a, rank (ptx_cluster.c) */
    XK_CLARRIVE, XK_CLWAIT,      /* barrier.cluster.arrive, .wait */
    XK_TEX,                      /* tex, tld4, txq, suld, sust, suq (ptx_tex.c): the handle at
                                    (base, off), results or values frag[0 .. 3], coordinates
                                    frag[4 .. 7] */
    XK_SPILL                     /* a register saved to or restored from the frame (ptxas's
                                    callee-saved registers, ptx_lower.c): only takes time, at
                                    frame address off */
};

/* Control operations inside an expansion (ptx_lower.c): the fast path of
 * an IEEE divide branches over its slow-path call (taken: the model sees
 * the fetch redirected) and reconverges at a BSYNC. */
enum xctl { XC_NONE, XC_BRANCH, XC_SYNC, XC_ENTRY /* the kernel's first operation */ };

struct xop {
    /* what every operation reads as it executes and issues, first: a few
     * cache lines (the kernel's operations are an array run through again
     * and again) */
    uint8_t kind;                /* enum xkind */
    uint8_t space;               /* enum ptx_space of a memory access */
    uint16_t op;                 /* enum ptx_op */
    uint8_t type, type2, cmp, rnd, atom, mode, vec;
    uint8_t xmod;                /* PX_* of the instruction (ptx_ir.h); XK_BULK also
                                    PX_SHARED_DST */
    uint32_t flags;              /* PF_* */
    int32_t guard;               /* predicate slot, -1 if none */
    uint8_t guard_neg;
    uint8_t negmask;             /* bit i: predicate source i (a, b, c, e) is negated */
    /* what the timing model sees */
    uint8_t opclass;             /* enum sim_opclass */
    uint8_t iflags;              /* SIM_IF_* */
    struct slot d, a, b, c;      /* destination, sources */
    struct slot base;            /* memory base register (SC_NONE: absolute) */
    int64_t off;                 /* memory offset (symbol address included; with PF_FRAME
                                    relative to the running function's frame); XK_CALL: the
                                    call site */
    uint16_t opcode;             /* index in the run's opcode-name table */
    uint8_t n_dst, n_src;
    uint8_t stall;               /* static stall count (ptx_sched.c), warp_inst.stall */
    /* the SASS-level view (ptx_lower.c; an unlowered kernel: head, not silent) */
    bool silent;                 /* executes functionally, issues nothing (ptxas folded it) */
    bool head;                   /* completes a PTX instruction (counted in ptx.insts) */
    uint8_t unroll;              /* control of a loop ptxas unrolls: its number + 1 (0: none) */
    uint32_t spc;                /* byte offset of the operation in the kernel as issued (the
                                    warp_inst pc): 16 per issued operation, with a gap after an
                                    expansion's branch over its slow path */
    int32_t target, reconv;      /* branch target and reconvergence point */
    uint16_t dst[SIM_MAX_DST], src[SIM_MAX_SRC];
    struct slot v[4];            /* vector registers of ld/st */
    struct slot d2;              /* a second destination (setp's) */
    /* the rest: operands and views few operations have */
    struct slot e;
    bool ids_truncated;          /* more register operands than dst[]/src[] hold */
    uint8_t npipe;               /* enum sass_npipe of the operation (sass.inst_pipe_*) */
    uint8_t vbytes;              /* a load ptxas merged with its neighbours: bytes per lane of
                                    the merged access (0: its own) */
    uint8_t ctl;                 /* enum xctl: a branch or convergence point of an expansion */
    uint8_t ctype, btype;        /* mma, wmma.mma: C's and B's types (x->type: D's, type2: A's) */
    uint8_t shape;               /* enum ptx_shape */
    uint8_t part, nparts;        /* a wmma load/store or mma ptxas splits (ptx_lower_mma.c):
                                    this operation's part of nparts (0: not split) */
    uint32_t frag_rd, frag_wr;   /* of such a part: the frag[] registers it reads and writes as
                                    it executes (bit i: frag[i]), which its id lists may not
                                    hold (SIM_MAX_DST, SIM_MAX_SRC); ptx_sched.c orders by them */
    struct slot base2;           /* cp.async: the shared destination's base register ... */
    int64_t off2;                /* ... and offset */
    struct slot base3;           /* cp.async.bulk: its mbarrier's base register ... */
    int64_t off3;                /* ... and offset */
    uint32_t line;               /* PTX source line */
    uint32_t seq;                /* its index before ptx_schedule() (verify_order) */
    uint8_t n_fdst, n_fsrc;      /* the PTX registers it writes and reads (functional order) */
    uint16_t fdst[SIM_MAX_DST], fsrc[SIM_MAX_SRC];
    struct slot frag[32];        /* mma, wmma: fragment registers (ptx_mma.h) */
};

/* Element i (< 4) of an ld.param, a move of the launch's constants
 * (ptx_decode.c decode_param_load): its destination d, d2, v[2], v[3] and
 * its value's constant slot a, b, c, e. */
#define XOP_PARAM_DST(x, i) ((i) == 0 ? &(x)->d : (i) == 1 ? &(x)->d2 : &(x)->v[i])
#define XOP_PARAM_VAL(x, i) ((i) == 0 ? &(x)->a : (i) == 1 ? &(x)->b : (i) == 2 ? &(x)->c : &(x)->e)

/* SIMT stack entries one function's divergence may use (the stack grows by
 * that much per call) */
#define PTX_STACK_MAX 72
#define PTX_STACK_INLINE 4       /* entries a warp's stack starts with, in struct pwarp
                                    (it grows) */
/* ptxas unrolls a small counted loop 4 times (ptx_lower.c): its control
 * (counter, compare, branch) issues once per PTX_UNROLL iterations */
#define PTX_UNROLL 4

/* A loop ptxas unrolls, as the timing model issues PTX_UNROLL of its
 * iterations (frontend/lower/ptx_window.c): the operations those
 * iterations issue, in execution order, and the order ptxas's unrolled
 * body gives them (its loads hoisted above the arithmetic of the earlier
 * iterations, each iteration's registers renamed).  ptx_exec.c runs the
 * iterations ahead, in program order, and hands their operations out in
 * that order; what the kernel computes does not change. */
struct ptx_window {
    uint32_t n;                  /* operations issued by PTX_UNROLL iterations; 0: none */
    uint32_t n_mem;              /* of which memory accesses (their lanes' addresses) */
    uint32_t *xop;               /* [n]: each one's x[] index, in execution order */
    uint16_t *order;             /* [n]: execution-order positions, in the order issued */
    uint16_t *ids;               /* [n][PTX_WIN_IDS]: its dst then src ids, renamed */
};
#define PTX_WIN_IDS (SIM_MAX_DST + SIM_MAX_SRC)
#define PTX_WIN_MAX 192u         /* operations a window may hold */

/* Named barriers (bar.sync/bar.red a: 0 .. 15) */
#define PTX_BARRIERS 16

/* One instance of a reducing barrier (bar.red) as its warps arrive:
 * instance g of a barrier counts in slot g % 2 (a warp reads its result
 * after the release, before any warp can reach instance g + 2). */
struct bred {
    uint32_t gen;                /* its instance + 1 (0: unused) */
    uint32_t count;              /* threads whose predicate was true (.popc) */
    bool all, any;               /* every, some arriving thread's predicate (.and, .or) */
};

/* A warp's record of the loop it runs (ptx_spin.c): the target of its
 * last taken backward branch, how often it came back there while memory
 * stayed as it was, and the hash of its state when it last looked. */
struct ptx_spin {
    bool its;                    /* it has: its lanes may reach a barrier apart */
    uint32_t parked;             /* lanes waiting at barrier parked_pc for the warp's others */
    int32_t parked_pc;
    int32_t pc;                  /* the loop's head (the branch target), -1: none */
    uint32_t count;              /* back-edges to it since memory last changed */
    uint64_t epoch;              /* ptx_run.mem_epoch at the first of them */
    uint64_t hash;               /* its state at the last look (state 1) */
    uint8_t state;               /* 0: counting; 1: hashed, compare at the next back-edge;
                                    2: spinning (its state repeats) */
    uint32_t yields;             /* paths it gave the turn to since memory last changed */
    uint64_t yield_epoch;        /* ptx_run.mem_epoch of those yields */
};

struct simt_entry {
    int32_t pc;                  /* next instruction */
    int32_t rpc;                 /* reconvergence point (-1: none, runs to the end) */
    uint32_t mask;               /* lanes on this path */
};

struct pwarp {
    /* what every step reads, first: with thousands of resident warps a
     * warp's state is out of the host's caches when it next steps, and
     * each 64-byte line it touches is a miss.  The SIMT stack's first
     * entries are here (stk points to them until it outgrows them). */
    struct simt_entry stk_in[PTX_STACK_INLINE];
    int sp;                      /* entries on the stack */
    uint16_t win_n, win_pos;     /* an unrolled loop's window: entries buffered, handed out */
    uint32_t kb32, kb64;         /* the first constant slots (ptx_run.cbase32, .nvar64) */
    union r32 *r32;              /* [kb32 slots][32 lanes]: variables, special registers */
    union r64 *r64;              /* [kb64 slots][32 lanes] */
    uint32_t *pred;              /* [npred slots] lane masks */
    struct simt_entry *stk;      /* the SIMT stack, stk_cap entries */
    int32_t retry_at;            /* a wait that found its phase incomplete, until the warp
                                    executes it again (ptx_counters.wait_retries), or -1 */
    int32_t bred_pc;             /* a bar.red whose result it takes at its next step, or -1 */
    bool win_end;                /* the warp finished after the last of the window's entries */
    bool bar_pending;            /* it reached a block-wide barrier: its next step takes the
                                    block's clock */
    int8_t nbar;                 /* a named barrier (a count, not the whole block) it waits at,
                                    -1 none ... */
    bool finished;               /* it has run to its end (counted out of live_warps) */
    uint32_t exited;             /* lanes that have executed exit/ret */
    uint64_t icount;             /* warp instructions executed (the %clock proxy) */
    const union r32 *k32;        /* the launch's constant slots kb32 .. n32 - 1 (ptx_run.tmpl32),
                                    read-only and shared by its warps */
    /* an unrolled loop's window being handed out (struct ptx_window) */
    uint8_t *win;                /* [r->win_max]: the warp_insts up to addr[], or NULL */
    uint16_t *win_at;            /* [r->win_max]: an entry's row of win_addr, or UINT16_MAX */
    sim_addr_t *win_addr;        /* [r->win_mem][32]: the memory accesses' addresses */
    const struct ptx_window *win_plan;   /* its order and renamed ids; NULL: as executed */
    const union r64 *k64;        /* kb64 .. n64 - 1 (ptx_run.tmpl64) */
    struct ptx_callstack cs;     /* calls in progress (ptx_call.h) */
    struct ptx_spin spin;        /* does it spin forever? (ptx_spin.c) */
    /* the rest */
    int stk_cap;
    uint32_t carry;              /* per-lane carry flag (add.cc / addc) */
    uint64_t sr_serial;          /* the ptx_run.sr_serial its read-only slots (special
                                    registers, constants) hold; 0: none */
    uint32_t *loop_iter;         /* per unrolled loop: iterations since it was entered */
    uint32_t async_groups;       /* cp.async groups committed (frontend/async.h) */
    uint32_t bulk_groups;        /* cp.async.bulk groups committed (frontend/async.h) */
    uint32_t wgmma_groups;       /* wgmma groups committed (frontend/async.h) */
    uint32_t wgmma_seq;          /* wgmma.mma_async instructions executed (ptx_wgmma.c) */
    uint32_t cl_arrives, cl_waits;  /* barrier.cluster.arrive / .wait executed (ptx_cluster.c) */
    int32_t poll;                /* an mbarrier wait the model decides at its issue
                                    (ptx_sync.c): its operation, -1 if none ... */
    uint32_t poll_mask;          /* ... and its lanes */
    uint32_t index;              /* warp index in the block */
    uint32_t bred_gen[PTX_BARRIERS];  /* bar.red instances it has reached, per barrier */
    uint16_t bred_slot;          /* bred_pc's result from pblock.bred[bred_slot / 2]
                                    [bred_slot % 2] ... */
    uint32_t bred_mask;          /* ... for these lanes */
    uint32_t bars;               /* block-wide barriers it has reached (the %clock proxy) */
    uint32_t nbar_gen;           /* nbar's instance (pblock.nbar_gen) ... */
    bool bar_counted;            /* ... and whether it counts in n_at_bar */
    bool live;                   /* it has been started (counted in ptx_run.live_warps) */
};

/* An mbarrier of a block as the timing model knows it (ptx_sync.c): its
 * sync object (sim/inst.h) is its index in pblock.mbar. */
struct pmbar {
    uint32_t off;                /* shared-memory offset of its 8 bytes */
    uint32_t signals;            /* signals numbered so far */
    uint32_t last_sig[2];        /* the signal that completed the last phase of each parity
                                    (0: none yet) */
};

struct wg_snap;                  /* ptx_wgmma.c: a warpgroup's operands of one wgmma */

/* Every size a block's storage is allocated by: a warp's 32-bit registers
 * by cbase32 and its 64-bit ones by nvar64 (which the register packing of
 * ptx_regalloc.c may set differently for two runs of one kernel), its
 * predicates by npred, its window buffers (made at its first window) by
 * win_max and win_mem; the block's shared and local memory; and the
 * register counts the slots are numbered by (ptx_block_sizes()). */
struct ptx_block_sizes {
    uint32_t n32, n64, nvar32, nvar64, cbase32, nvarp, npred, n_unroll;
    uint32_t shared_bytes, local_bytes, tpb, wpb, win_max, win_mem;
};

/* A thread-block cluster running (ptx_cluster.c): its barrier.cluster. */
struct pcluster {
    uint64_t id;                 /* linear cluster id */
    uint32_t live;               /* its blocks begun and not ended (0: the entry is free) */
    uint32_t arrived[2];         /* threads that arrived for phase g, in slot g % 2 */
    uint32_t gen;                /* phases completed */
    bool release[2];             /* phase g % 2 has an arrive with release semantics */
    bool last_release;           /* ... and so had the phase gen - 1 */
};

struct pblock {
    uint64_t id;                 /* linear block id */
    int32_t cluster;             /* its cluster's entry in r->clusters, -1: none */
    bool running;                /* between block_begin and block_end */
    struct wg_snap *wg_snaps;    /* operands read by a warpgroup's first warp, until its
                                    other three have executed the same wgmma (ptx_wgmma.c) */
    struct pmbar mbar[SIM_SYNC_OBJS];
    uint32_t n_mbar;
    uint32_t ctaid[3];
    uint32_t sm;                 /* SM the block runs on (%smid) */
    uint8_t *smem;               /* shared memory: static + dynamic bytes */
    uint8_t *local;              /* local memory: local_bytes per thread (the call stack beyond
                                    is per warp: ptx_call.h) */
    struct pwarp *warps;         /* warps_per_block */
    struct bred bred[PTX_BARRIERS][2];
    /* The %clock proxy without a timing model (emulate: 4 per warp
     * instruction): the latest any warp had at barrier instance g, in slot
     * g % 2, so that a read after a barrier is never earlier than a read
     * before it in another warp (the barrier joins their timelines). */
    uint32_t bar_gen[2];         /* instance + 1 that the slot holds (0: none) */
    uint64_t bar_icount[2];      /* the largest icount of the warps that reached it */
    uint16_t nbar_at[PTX_BARRIERS];   /* named barriers (bar.sync a, b; bar.arrive): warps
                                         arrived at the current instance ... */
    uint32_t nbar_gen[PTX_BARRIERS];  /* ... and instances released (the hang detector's:
                                         ptx_spin.c; the model times them) */
    uint32_t bar_arrived[2];     /* warps that reached it (it has released when every
                                    unfinished warp of the block has: ptx_spin.c) */
    bool allocated;
    struct ptx_block_sizes sz;   /* those its storage was allocated for: a later run
                                    reusing it (ptx_prog_adopt_blocks) must have them */
};

/* Global memory: every launch buffer and module variable is a region.
 * The device addresses the kernel computes with are PTX_REGION_STRIDE
 * apart, so an overrun of one never lands in another: every access is
 * checked against the live regions and one outside them is an error at
 * the first offending access (ptx_exec.c resolve()).  The timing model
 * sees the compact layout GPUs give (tbase: 4 KB-aligned, a 4 KB gap
 * after each), which is what its caches and DRAM channels hash. */
#define PTX_REGION_STRIDE (UINT64_C(1) << 40)

/* RK_FREED: memory a CUDA program has freed (cudaFree), kept so that a
 * later access is reported as a use after free (ptx_prog.c). */
enum region_kind { RK_BUFFER, RK_GLOBAL, RK_CONST, RK_FREED };

struct region {
    sim_addr_t base;             /* device address */
    sim_addr_t tbase;            /* timing-model address of its first byte */
    uint64_t size;               /* bytes */
    uint8_t *ptr;                /* host memory */
    const char *name;            /* for messages */
    uint8_t kind;                /* enum region_kind */
    bool watch;                  /* a variable nothing initialised: warn at its first read */
    bool host;                   /* a CUDA program's host memory the device addresses (mapped:
                                    pinned, registered, managed allocations; ptx_prog.c) */
    uint32_t line;               /* a buffer's launch-file line */
};

/* Bytes of shared memory the system software reserves per block on sm_80
 * and later (cudaDevAttrReservedSharedMemoryPerBlock): %reserved_smem_offset_cap. */
#define PTX_RESERVED_SMEM 1024u

struct ptx_run {
    struct launch *l;
    struct ptx_module *m;
    bool borrowed_module;        /* m belongs to a CUDA program (ptx_prog.h), not to the run */
    struct ptx_prog *prog;       /* that program, or NULL (a launch file's run) */
    struct ptx_heap *heap;       /* device malloc's heap: &own_heap, or the program's */
    struct ptx_heap own_heap;
    struct ptx_kernel *k;
    /* functional global memory: buffers and module variables */
    struct region *regions;      /* sorted by base */
    uint32_t n_regions;
    uint32_t last_region;        /* lookup cache */
    sim_addr_t *msym_addr;       /* device address of each module symbol */
    uint8_t **msym_data;         /* host memory of each module global/const symbol (NULL: set
                                    by a launch-file var, whose memory it is) */
    uint8_t *param_blob;         /* kernel parameter space, k->param_bytes */
    /* decoded program */
    struct xop *x;
    uint32_t n_x;
    struct wg_snap *wg_free;     /* operand snapshots to reuse (ptx_wgmma.c) */
    struct slot *wslots;         /* the D registers of wgmma operations (XK_WGMMA) */
    uint32_t n_wslots, cap_wslots;
    uint32_t n32, n64, npred;    /* slots per warp register file */
    uint32_t nvar32, nvar64, nvarp; /* of which ordinary registers (zeroed at warp start) */
    union r32 *const32;          /* constant slots' values [n32 - cbase32] */
    union r64 *const64;          /* [n64 - nvar64] */
    uint32_t *constp;            /* [npred - nvarp] */
    union r32 *tmpl32;           /* constants replicated over 32 lanes, ready to copy */
    union r64 *tmpl64;
    union r32 *sr_tmpl;          /* special registers common to the launch's warps [SR_COUNT x 32]
                                    (ptx_exec.c), built for launch sr_tmpl_for */
    uint32_t sr_tmpl_for;
    uint64_t sr_serial;          /* that template's number, unique in the process (not 0) */
    uint64_t grid_ws;            /* a cooperative launch: its grid-sync workspace's device
                                    address (%envreg1:%envreg2); 0: not cooperative */
    bool uses_grid_ws;           /* the kernel reads %envreg1 or %envreg2 (grid syncs) */
    uint32_t sreg_base;          /* r32 slot of special register 0 as decoded (what lowering
                                    reads; packing moves them: sr_slot) */
    uint32_t sr_slot[SR_COUNT];  /* r32 slot of special register i; UINT32_MAX: the packed
                                    kernel never reads it (ptx_regalloc.c) */
    uint32_t cbase32;            /* r32 slot of the first constant (const32[0]) */
    uint32_t cluster[3];         /* blocks per cluster (1, 1, 1: none) */
    uint32_t cluster_size;
    struct pcluster *clusters;   /* cap_clusters entries (>= n_slots: a cluster per running
                                    block at most) */
    uint32_t cap_clusters;
    uint32_t smem_funcs;         /* bytes of the called functions' own .shared variables */
    uint32_t shared_static, shared_bytes; /* bytes per block (shared_bytes: with the reserved
                                             region, if any) */
    uint32_t reserved_smem;      /* offset of the reserved region (%reserved_smem_offset_begin)
                                    when the kernel reads its registers, else 0 */
    unsigned cc;                 /* compute capability: the GPU's (set_target), else the PTX
                                    .target's (0: unknown) */
    uint32_t local_bytes;        /* per thread: the kernel's frame (its .local and .param
                                    variables); function frames follow, up to stack_limit */
    uint32_t local_span;         /* per thread: local_bytes + stack_limit (the local address
                                    space the timing addresses interleave) */
    /* device functions (ptx_call.c) */
    struct xfunc *funcs;         /* [0]: the kernel itself, then the functions it may call */
    uint32_t n_funcs;
    int32_t *fmap;               /* the module's function i is funcs[fmap[i]]; -1: not linked */
    struct xcallsite *sites;     /* every call instruction's operands */
    uint32_t n_sites;
    struct xloc *locs;           /* arguments and parameters (sites', funcs' ranges) */
    uint32_t n_locs;
    uint32_t stack_limit;        /* bytes of call stack per thread (launch file `stack`) */
    /* opcode names seen (for the timing records and dumps) */
    char **opnames;
    uint32_t n_opnames;
    /* geometry */
    uint32_t tpb, wpb;
    uint64_t n_blocks;
    struct pblock *blocks;       /* per inst_source slot */
    uint32_t n_slots;
    /* scoreboard id bases */
    uint32_t id32, id64;         /* first ids of 32-bit and 64-bit registers */
    uint64_t executed;           /* warp instructions executed (issued to the model) */
    struct ptx_counters *cnt;    /* the statistics the source registers: &own, or a CUDA
                                    program's (one set over all its launches, ptx_prog.h) */
    struct ptx_counters own;
    uint32_t n_unroll;           /* loops ptxas unrolls (ptx_lower.c) */
    struct ptx_window *windows;  /* [n_unroll]: their windows (ptx_window.c), or NULL */
    uint8_t *win_head;           /* [n_x]: 1 + the window whose first operation it is, or 0 */
    uint32_t win_mem;            /* the most memory accesses of one window */
    uint32_t win_max;            /* the most operations of one window */
    int64_t ptxas_stack;         /* the stack frame ptxas -v reports, bytes; -1: not known */
    uint32_t n_sms;              /* SMs of the GPU (%nsmid) */
    sim_cycle_t now;             /* model cycle of the current fetch (%clock), or
                                  * SIM_UNTIMED (sim/inst.h): use 4 x the warp's
                                  * instruction count */
    uint32_t launches;           /* kernels handed to the model so far */
    /* runaway kernels (ptx_spin.c) */
    uint64_t mem_epoch;          /* counts the instructions that changed memory */
    uint32_t live_warps;         /* warps of the blocks begun that have not finished */
    uint32_t n_at_bar;           /* of which reached a barrier and have not run since (an upper
                                    bound of those waiting: it may have released) */
    uint32_t n_spinning;         /* of which spinning since mem_epoch last moved */
    bool scheduled;              /* x[] is lowered and in the static schedule of the target
                                    (ptx_lower.c, ptx_sched.c) */
    bool regs_packed;            /* the register slots are packed (ptx_regalloc.c): slots no
                                    longer map to the decoder's register ids */
    struct sim_error target_err; /* a failure of that, returned by the next next_kernel() */
};

/* Run r's block storage sizes (struct ptx_block_sizes). */
static inline struct ptx_block_sizes
ptx_block_sizes(const struct ptx_run *r)
{
    return (struct ptx_block_sizes){ r->n32, r->n64, r->nvar32, r->nvar64, r->cbase32, r->nvarp,
                                     r->npred, r->n_unroll, r->shared_bytes, r->local_bytes,
                                     r->tpb, r->wpb, r->win_max, r->win_mem };
}

/* The lanes of warp w that hold threads of r's blocks (the last warp of a
 * block whose size is not a multiple of 32 has fewer). */
static inline uint32_t
ptx_warp_lanes(const struct ptx_run *r, uint32_t w)
{
    uint32_t threads = r->tpb - w * 32;
    return threads >= 32 ? ~0u : (1u << threads) - 1;
}

/* Room for two more entries on warp pw's SIMT stack (PTX_STACK_MAX, which
 * the callers check, bounds it; it grows by doubling). */
static inline void
ptx_stack_reserve(struct pwarp *pw)
{
    if (pw->sp + 2 > pw->stk_cap) {
        pw->stk_cap = 2 * pw->stk_cap + 2;
        if (pw->stk == pw->stk_in) {
            pw->stk = xmalloc((size_t)pw->stk_cap * sizeof *pw->stk);
            memcpy(pw->stk, pw->stk_in, sizeof pw->stk_in);
        } else {
            pw->stk = xrealloc(pw->stk, (size_t)pw->stk_cap * sizeof *pw->stk);
        }
    }
}

#endif /* SMSIM_FRONTEND_PTX_RUN_H */
