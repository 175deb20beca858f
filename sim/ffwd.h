/*
 * ffwd.h - functional fast-forward: run blocks through an instruction
 * source without the timing model.
 *
 * Used wherever instructions must be executed (a PTX source computes as it
 * hands instructions out) but not timed: recording a trace, emulation, and
 * the blocks a sampled simulation skips (sample.h).  Within the blocks run
 * together, the warps advance round-robin, each until it reaches a
 * barrier, a wait for the others (SIM_SYNC_WAITING, SIM_SYNC_BLOCKED) or
 * its end, or has run FFWD_SLICE instructions without either (it may be
 * spinning on another warp's store); a block's barrier releases when every live warp of it
 * waits there.  This is the order an execution-driven frontend needs for
 * correct shared-memory values.  Every instruction is fetched with now =
 * SIM_CYCLE_MAX (no timing model), except, after a round in which nothing
 * moved, each warp's first of the next round, with SIM_CYCLE_TIMEOUT: a
 * try_wait blocked on a phase that no warp can complete times out then, as
 * on the hardware (sim/inst.h).
 */
#ifndef SMSIM_SIM_FFWD_H
#define SMSIM_SIM_FFWD_H

#include "sim/inst.h"

/* Instructions a warp runs before the others of its blocks get a turn when
 * it reaches no barrier. */
#define FFWD_SLICE 65536u
/* Rounds in a row in which only try_waits that timed out moved (each a
 * round of their own, after one in which nothing did): a deadlock. */
#define FFWD_TIMEOUTS 65536u
/* ffwd_run(): the most instructions of a warp's turn. */
#define FFWD_TURN_MAX 64u

/* Called for every instruction run (may be NULL): warp k of the j-th of
 * the blocks.  SIM_OK or < 0 to stop. */
typedef int (*ffwd_inst_fn)(void *ctx, uint32_t j, uint32_t warp, const struct warp_inst *wi,
                            struct sim_error *err);

/* Run blocks ids[0 .. nb) (nb <= 16: a cluster's, or one block) of wpb
 * warps each to completion together, block j in source slot slots[j]:
 * block_begin, every instruction, block_end; each warp's turn lasts until
 * a barrier, a wait, its end or FFWD_SLICE instructions.  Adds the warp instructions
 * run to *warp_insts.  A round in which nothing but waits ran, with warps
 * left, is a deadlock (SIM_ERR_FORMAT). */
int ffwd_blocks(struct inst_source *src, uint32_t wpb, const uint64_t *ids, const uint32_t *slots,
                uint32_t nb, ffwd_inst_fn fn, void *ctx, uint64_t *warp_insts,
                struct sim_error *err);

/* What ffwd_run() reports. */
struct ffwd_calls {
    ffwd_inst_fn inst;           /* every instruction (j: the slot index); may be NULL */
    void (*block_done)(void *ctx, uint64_t id, uint64_t warp_insts);   /* may be NULL */
    void *ctx;
};

/* Run blocks lo .. hi - 1 (no clusters) of wpb warps each, up to n_slots
 * of them at a time in source slots slot0 .. slot0 + n_slots - 1: as one finishes
 * the next starts in its slot, as a GPU's block scheduler would start it.
 * Turns go round every warp of every running block, each running until
 * it has run `quantum` memory instructions (or FFWD_TURN_MAX instructions
 * in all; fewer at a barrier, a wait or its end), so that the memory
 * accesses of the running blocks interleave about as they do on the GPU
 * (what functional warming of a cache needs: sample.h) while the
 * instructions between them cost no turn.  Barriers release and
 * deadlocks are found as in ffwd_blocks(). */
int ffwd_run(struct inst_source *src, uint32_t wpb, uint64_t lo, uint64_t hi, uint32_t slot0,
             uint32_t n_slots, uint32_t quantum, const struct ffwd_calls *calls,
             struct sim_error *err);

#endif /* SMSIM_SIM_FFWD_H */
