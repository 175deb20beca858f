/*
 * record.h - write the instruction streams of any source to a .smt file.
 *
 * Blocks are recorded one at a time (a cluster's together), each run by
 * sim/ffwd.h's functional fast-forward: within a block the warps advance
 * round-robin, each until it reaches a barrier or ends (or has run
 * FFWD_SLICE instructions without either: it may be spinning on another
 * warp's store); when every live warp waits at the barrier it is
 * released.  This is the order an execution-driven frontend (PTX) needs
 * for correct shared-memory values.
 */
#ifndef SMSIM_FRONTEND_RECORD_H
#define SMSIM_FRONTEND_RECORD_H

#include "sim/inst.h"

struct record_totals {
    uint32_t kernels;
    uint64_t blocks;
    uint64_t warp_insts;
};

/* Where driven instructions go (every callback returns SIM_OK or < 0). */
struct record_sink {
    int (*kernel_begin)(void *ctx, const struct kernel_info *ki, struct sim_error *err);
    int (*block_begin)(void *ctx, uint64_t block_id, struct sim_error *err);
    int (*inst)(void *ctx, uint32_t warp, const struct warp_inst *wi, struct sim_error *err);
    int (*block_end)(void *ctx, struct sim_error *err);
    int (*kernel_end)(void *ctx, struct sim_error *err);
    void *ctx;
};

/* Drive every kernel of src without the timing model, in the order above,
 * handing each instruction to sink (NULL: execute only). */
int record_drive(struct inst_source *src, const struct record_sink *sink,
                 struct record_totals *tot, struct sim_error *err);

/* Record every kernel of src into path (atomically).  chunk_raw = chunk
 * size in bytes, 0 for the default. */
int record_to_smt(struct inst_source *src, const char *path, const char *producer,
                  uint32_t chunk_raw, struct record_totals *tot, struct sim_error *err);

/* Run every kernel of src functionally, in the same order, writing
 * nothing (the PTX frontend's emulation-only mode). */
int record_emulate(struct inst_source *src, struct record_totals *tot, struct sim_error *err);

#endif /* SMSIM_FRONTEND_RECORD_H */
