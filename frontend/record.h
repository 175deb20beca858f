/*
 * record.h - write the instruction streams of any source to a .smt file.
 *
 * Blocks are recorded one at a time.  Within a block the warps advance
 * round-robin, each until it reaches a barrier or ends; when every live
 * warp waits at the barrier it is released.  This is the order an
 * execution-driven frontend (PTX) needs for correct shared-memory values.
 */
#ifndef SMSIM_FRONTEND_RECORD_H
#define SMSIM_FRONTEND_RECORD_H

#include "sim/inst.h"

struct record_totals {
    uint32_t kernels;
    uint64_t blocks;
    uint64_t warp_insts;
};

/* Record every kernel of src into path (atomically).  chunk_raw = chunk
 * size in bytes, 0 for the default. */
int record_to_smt(struct inst_source *src, const char *path, const char *producer,
                  uint32_t chunk_raw, struct record_totals *tot, struct sim_error *err);

/* Run every kernel of src functionally, in the same order, writing
 * nothing (the PTX frontend's emulation-only mode). */
int record_emulate(struct inst_source *src, struct record_totals *tot, struct sim_error *err);

#endif /* SMSIM_FRONTEND_RECORD_H */
