/*
 * smt_writer.h - writes .smt trace files (see doc/trace-format.md).
 *
 * Instructions of the warps of the open block may be appended in any
 * interleaving (the PTX emulator produces them round-robin); each warp's
 * records are buffered until a chunk fills, then compressed and appended,
 * and the warp's previous chunk is linked to it.  Block and kernel headers
 * are written when the block or kernel ends.  The output is a temporary
 * file renamed into place by smt_writer_close(), so a failed or interrupted
 * recording never leaves a partial .smt behind.  Writer memory: one chunk
 * buffer per warp of the open block.
 */
#ifndef SMSIM_FRONTEND_SMT_WRITER_H
#define SMSIM_FRONTEND_SMT_WRITER_H

#include "sim/inst.h"
#include "sim/error.h"

/* ---- API ------------------------------------------------------------- */

typedef struct smt_writer smt_writer;

/* Create a writer; the file appears at path only when smt_writer_close()
 * succeeds.  opnames (may be NULL) names opcode ids 0..n_opnames-1 for
 * dumps; chunk_raw = uncompressed chunk size (0 = SMT_DEFAULT_CHUNK). */
smt_writer *smt_writer_open(const char *path, unsigned isa, unsigned isa_version,
                            const char *producer, const char *const *opnames,
                            size_t n_opnames, uint32_t chunk_raw, struct sim_error *err);
int smt_writer_kernel_begin(smt_writer *w, const struct kernel_info *ki, struct sim_error *err);
/* Blocks of a kernel are written in increasing id order. */
int smt_writer_block_begin(smt_writer *w, uint64_t block_id, struct sim_error *err);
/* Append one instruction to warp `warp` of the open block. */
int smt_writer_add(smt_writer *w, uint32_t warp, const struct warp_inst *wi,
                   struct sim_error *err);
int smt_writer_block_end(smt_writer *w, struct sim_error *err);
int smt_writer_kernel_end(smt_writer *w, struct sim_error *err);
/* Finish the file and rename it into place; frees w. */
int smt_writer_close(smt_writer *w, struct sim_error *err);
/* Discard everything written; frees w. */
void smt_writer_abort(smt_writer *w);

#endif /* SMSIM_FRONTEND_SMT_WRITER_H */
