/*
 * ptx_lower_emit.h - the SASS operations of one lowered PTX instruction
 * (private to frontend/ptx_lower*.c and its tests).
 *
 * ptx_lower.c decides what ptxas makes of each PTX instruction (a key:
 * one LOWER row of ptx_lower_sm90.def and its NEXT rows); this module
 * turns a key into operations: the one that writes the PTX destination
 * performs the instruction, the others (XK_TIMING) only take time, linked
 * by temporary register ids.  Each operation gets its Hopper mnemonic as
 * its opcode name, that mnemonic's timing class and its Nsight Compute
 * pipe; an "A|B" row goes to the pipe its basic block has used least.
 */
#ifndef SMSIM_FRONTEND_PTX_LOWER_EMIT_H
#define SMSIM_FRONTEND_PTX_LOWER_EMIT_H

#include "frontend/exec/ptx_run.h"

/* Timing register ids of the expansions' temporaries: the PTX_TMP_COUNT
 * ids below the accumulating registers (sim/types.h), reused in rotation
 * (far enough apart that two expansions in flight in one warp never share
 * one). */
#define PTX_TMP_COUNT 1024u
#define PTX_TMP_BASE (SIM_REG_ACC_BASE - PTX_TMP_COUNT)

enum lower_key {
    LK_SILENT,                   /* folded away: no operation */
#define LOWER(key, sass, d, a, b, c) LK_##key,
#define NEXT(key, sass, d, a, b, c)
#include "frontend/lower/ptx_lower_sm90.def"
#undef LOWER
#undef NEXT
    LK_COUNT
};

/* The operations being built (the lowered kernel's instruction list). */
struct lower_emit {
    struct ptx_run *r;
    struct xop *out;             /* room for every operation */
    uint32_t n;                  /* operations so far */
    uint32_t tmp;                /* rotation of the temporaries */
    uint32_t load[3];            /* weighted ALU, FMA and MMA-pipe moves in the current block */
    uint32_t half[2];            /* half-precision HFMA2.MMA and FMA-pipe (HADD2, HMUL2, HFMA2)
                                    operations in the current block */
    bool invariant;              /* the instruction being lowered reads only values that are
                                    the same in every lane: its expansion's branch cannot
                                    diverge, so ptxas sets no convergence barrier around it */
    struct sim_error *err;
};

/* Append the operations of instruction o lowered as key (body: the
 * unrolled loop it is in, or 0). */
int ptx_lower_emit_key(struct lower_emit *B, const struct xop *o, unsigned key, uint8_t body);

/* Append operation o, built by the caller, named by the Hopper SASS
 * mnemonic sass: its opcode, its timing class (keep_class: o's own) and
 * its Nsight Compute pipe. */
int ptx_lower_emit_op(struct lower_emit *B, const struct xop *o, const char *sass, bool keep_class);

/* Append a standalone operation (the entry loads, BSSY, BSYNC). */
int ptx_lower_emit_standalone(struct lower_emit *B, unsigned key);

/* A new basic block starts (the pipe balance restarts). */
void ptx_lower_emit_block(struct lower_emit *B);

/* The number of operations of key; whether one of them is a branch,
 * BSSY or BSYNC. */
unsigned ptx_lower_emit_count(unsigned key);
bool ptx_lower_emit_control(unsigned key);

/* Add id to list[*n] unless present or the list (max) is full. */
void ptx_lower_emit_add_id(uint16_t *list, uint8_t *n, unsigned max, uint16_t id);

/* The table's rows: their number, and row i's key name and SASS mnemonic.
 * Returns false past the end (tests). */
unsigned ptx_lower_emit_rows(void);
bool ptx_lower_emit_row(unsigned i, const char **key, const char **sass);

/* The operations ptxas puts at function f's entry (its stack pointer and
 * callee-saved registers, or a copy of its return address when it calls),
 * and those of its ret o (of expansion key): the registers loaded back,
 * the stack pointer moved up, the return waiting for them. */
int ptx_lower_emit_prologue(struct lower_emit *B, const struct xfunc *f, bool calls);

/* The key (the expansion) of cvt x: by its destination and source types. */
unsigned ptx_lower_emit_key_cvt(const struct xop *x);
int ptx_lower_emit_return(struct lower_emit *B, const struct xfunc *f, const struct xop *o,
                          unsigned key);

/* Set every linked function's save_words and sp_adjust for sm_<cc>: from
 * ptxas -v's report for the function when there is one (a recursive
 * function's spill stores are its callee-saved registers), else from the
 * registers live across its calls. */
void ptx_lower_emit_spills(struct ptx_run *r, unsigned cc, bool ask_ptxas);

#endif /* SMSIM_FRONTEND_PTX_LOWER_EMIT_H */
