/*
 * ptxgen_internal.h - the state of the random PTX generator, shared by
 * tests/ptxgen.c (the module, control flow, calls, prologue and
 * epilogue), ptxgen_mem.c (memory, atomics, warp operations, barriers),
 * ptxgen_tensor.c (mma, wmma, ldmatrix, cp.async) and ptxgen_ops.c
 * (arithmetic, conversions, compares).
 *
 * Registers.  Every body (the kernel's or a device function's) has pools
 * of general registers, each initialised at its entry, so any of them may
 * be read anywhere: %r (.b32: 32-bit integers and packed halves), %rd
 * (.b64), %f (.f32), %fd (.f64), %rs (.b16: 16-bit integers, .f16,
 * .bf16), %p (.pred), numbered from 1.  Reserved registers are written
 * only where their meaning says: %ra (.b64 pointers), %rk (.b32 values
 * fixed for the thread: %tid.x, the global thread index, n, ...), %fk
 * (the .f32 parameter), %fa / %fo (a function's pointers and result
 * accumulators), %lc / %lt / %lp (a loop's counter, trip count and
 * predicate, one per nesting level), %rz / %rzd (the results of atomics
 * whose order is not fixed: never read), and the temporaries %ta, %tb,
 * %tf, %tg, %th, %tq (one per pool), each written by one instruction
 * only, as nvcc's virtual registers are, so the lowering sees their one
 * definition (addresses, fused producers, lane and mask operands).
 */
#ifndef SMSIM_TESTS_PTXGEN_INTERNAL_H
#define SMSIM_TESTS_PTXGEN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/ptxgen.h"

enum pg_pool { PG_R, PG_RD, PG_F, PG_FD, PG_RS, PG_P, PG_POOLS };

#define PG_MAX_FUNCS 3           /* device functions per module */
#define PG_MAX_PARAMS 4          /* parameters per device function */
#define PG_MAX_LOOPS 2           /* loops nested in one another */
#define PG_OUT_WORDS 96          /* output words per thread: every register, the shared
                                    slot, the local array (ptxgen.c, store_all) */
#define PG_SCR_WORDS 16          /* scratch words per thread in global memory */
#define PG_SLOT_BYTES 32         /* each thread's slot of shared memory */
#define PG_IN_WORDS 1024         /* words of the input buffer (a power of two) */
#define PG_CNT_WORDS 16          /* counters all threads update (global and shared) */
#define PG_LOCAL_BYTES 64        /* the local array (__local_depot0) */
#define PG_GTAB_BYTES 256        /* the module's .global table gtab */
#define PG_CTAB_BYTES 128        /* the module's .const table ctab */

/* A growable text. */
struct pg_buf {
    char *s;
    size_t len, cap;             /* bytes used / allocated */
};

/* A device function's signature. */
struct pg_func {
    unsigned n_params;
    enum pg_pool param[PG_MAX_PARAMS];   /* pool of each parameter (R, RD, F, FD) */
    enum pg_pool ret;            /* pool the result is read into (R, RD, F, FD) */
    bool scr;                    /* its last parameter is the caller's scratch pointer */
    bool recursive;              /* its first parameter is a depth (0 .. 3): it calls itself
                                    with depth - 1 while that is not 0 */
};

/* The kernel's reserved .b64 registers (%ra<i>): the raw parameters,
 * the input, the thread's output and scratch words (global; scratch also
 * generic), the counters, the thread's 64-byte window of the input, its
 * local array (local; generic), its shared slot (shared 64-bit; generic),
 * its warp's scratch words (lane 0's), the module's read-only tables gtab
 * (.global) and ctab (.const). */
enum { RA_P0, RA_P1, RA_P2, RA_P3, RA_IN, RA_OUT, RA_SCR, RA_GSCR, RA_CNT, RA_WIN, RA_LOC,
       RA_GLOC, RA_SH, RA_GSH, RA_WSCR, RA_GTAB, RA_CTAB, RA_COUNT };
/* ... and .b32 ones (%rk<i>), fixed for the thread: %tid.x, the global
 * thread index, n, %laneid, %ctaid.x, %ntid.x, %warpid, %lanemask_lt, the
 * shared memory's, the thread's slot's, the shared counters' and the
 * warp's slots' shared addresses. */
enum { RK_TID, RK_GTID, RK_N, RK_LANE, RK_CTA, RK_NTID, RK_WARP, RK_LTMASK, RK_SMEM, RK_SLOT,
       RK_SCNT, RK_WSH, RK_COUNT };
#define RK_VALUES RK_SCNT        /* %rk<0 .. RK_VALUES) may be read as data */

extern const char *const pg_pool_name[PG_POOLS];   /* "%r", "%rd", ... */

/* A single-definition temporary that may be read where it is live: after
 * its definition, in its scope (the body, if-branch or loop body it was
 * defined in) and the scopes nested in it. */
struct pg_tmp {
    uint16_t id;                 /* its number (%ta<id>, ...) */
    uint8_t depth;               /* the nesting depth of its scope */
    bool pending;                /* not read yet: folded into a pool register at scope end */
};

#define PG_MAX_LIVE 48           /* live temporaries per pool */
#define PG_STR 96                /* bytes of a string pg_str hands out */

struct pg {
    uint64_t rng;                /* splitmix64 state */
    struct pg_buf *out;          /* the body being written */
    unsigned pool[PG_POOLS];     /* general registers of each pool in this body (1 .. n) */
    unsigned n_tmp[PG_POOLS];    /* temporaries defined in this body, per pool */
    struct pg_tmp live[PG_POOLS][PG_MAX_LIVE];   /* the live ones, innermost scope last */
    unsigned n_live[PG_POOLS];
    bool dst_tmp;                /* the instruction being built writes a temporary: no guard */
    int budget;                  /* instructions this body may still get */
    unsigned label;              /* labels so far in the module */
    unsigned callseq;            /* call sequences so far in the module */
    unsigned loops;              /* loops around this point */
    unsigned brk, cont;          /* labels of the innermost loop's exit and latch, when its body
                                    may leave or skip ahead (0: it may not) */
    unsigned depth;              /* ifs and loops around this point */
    bool divergent;              /* lanes of a warp may be inactive here */
    bool block_uniform;          /* every live thread of the block runs here (bar.sync) */
    bool in_func;                /* writing a device function's body */
    const char *scr;             /* register holding the thread's scratch words, or NULL */
    char kscr[16];               /* the kernel's (scr while writing the kernel) */
    const char *flocal;          /* (in a function) register holding its local array, or NULL */
    bool exited;                 /* some threads may have exited before this point */
    bool exit_label;             /* a branch goes to the kernel's exit block */
    unsigned func_index;         /* the function being written (in_func) */
    /* the module */
    unsigned threads, blocks;    /* block and grid size (x) */
    bool dyn_shared;             /* the shared slots are dynamic shared memory */
    bool local_dynamic;          /* the local array is indexed by data (else constant offsets) */
    bool shared_cnt;             /* the block's counters in shared memory are in use */
    unsigned n_funcs;
    struct pg_func funcs[PG_MAX_FUNCS];
    char ring[64][PG_STR];       /* operand names handed out (pg_reg and friends) */
    unsigned ring_i;
};

/* ---- ptxgen.c: randomness, text, operands ----
 * Every call that draws a random number is a statement or an initialiser
 * of its own (never two in one argument list, whose order C leaves
 * open), so a seed gives the same program whatever the compiler. */
uint64_t pg_next(struct pg *g);
unsigned pg_rand(struct pg *g, unsigned n);         /* uniform in [0, n) */
bool pg_chance(struct pg *g, unsigned percent);
const char *pg_pick(struct pg *g, const char *const *v, unsigned n);
#define PG_PICK(g, ...) pg_pick((g), (const char *const[]){ __VA_ARGS__ }, \
                                sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))
void pg_emit(struct pg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* pg_emit with, at the given percent, a random guard @%p / @!%p (none when
 * the instruction writes a temporary) */
void pg_emitg(struct pg *g, unsigned percent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *pg_str(struct pg *g);                          /* a fresh ring slot */
const char *pg_reg(struct pg *g, enum pg_pool p);    /* a general register */
/* two different general registers of pool p */
void pg_reg2(struct pg *g, enum pg_pool p, const char **a, const char **b);
/* a destination: a general register or a fresh temporary (pending) */
const char *pg_dst(struct pg *g, enum pg_pool p);
/* a fresh temporary the caller reads itself (not pending) */
const char *pg_tmp(struct pg *g, enum pg_pool p);
/* a source: a live temporary, a general register, a fixed value of the
 * thread (%rk, %fk: kernels only) or, when imm, an immediate */
const char *pg_src(struct pg *g, enum pg_pool p, bool imm);
const char *pg_imm(struct pg *g, enum pg_pool p);

/* ---- ptxgen_mem.c: memory, warp operations, barriers ---- */
void pg_gen_mem(struct pg *g);
void pg_gen_warp(struct pg *g);
void pg_gen_exchange(struct pg *g);  /* only where g->block_uniform, in the kernel */
void pg_gen_barred(struct pg *g);    /* likewise */

/* ---- ptxgen_tensor.c: mma, wmma, ldmatrix, stmatrix, cp.async ---- */
bool pg_tensor_ok(const struct pg *g);  /* may a .sync.aligned warp instruction go here? */
void pg_gen_tensor(struct pg *g);       /* in the kernel only */

/* ---- ptxgen_ops.c: one random arithmetic statement of each family ---- */
void pg_op_int32(struct pg *g);
void pg_op_int64(struct pg *g);
void pg_op_int16(struct pg *g);
void pg_op_carry(struct pg *g);
void pg_op_f32(struct pg *g);
void pg_op_f64(struct pg *g);
void pg_op_half(struct pg *g);
void pg_op_cvt(struct pg *g);
void pg_op_pred(struct pg *g);
void pg_op_move(struct pg *g);

#endif /* SMSIM_TESTS_PTXGEN_INTERNAL_H */
