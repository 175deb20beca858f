/*
 * ptx_exec.h - functional execution of a PTX kernel, warp by warp (private
 * to frontend/ptx*.c; the data: ptx_run.h).
 */
#ifndef SMSIM_FRONTEND_PTX_EXEC_H
#define SMSIM_FRONTEND_PTX_EXEC_H

#include "frontend/exec/ptx_run.h"

/* Prepare block slot s for block id (registers, shared and local memory,
 * SIMT stacks). */
void ptx_exec_block_begin(struct ptx_run *r, uint32_t slot, uint64_t id, uint32_t sm);

/* Execute the next instruction of warp w of slot s and describe it in *wi.
 * Returns 1, 0 if the warp has finished, negative on an execution error
 * (out-of-bounds access, misaligned access) with the PTX line. */
int ptx_exec_step(struct ptx_run *r, uint32_t slot, uint32_t w, struct warp_inst *wi,
                  struct sim_error *err);

void ptx_exec_free(struct ptx_run *r);
/* Free n_slots blocks of wpb warps each (their wgmma snapshots freed already). */
void ptx_exec_blocks_free(struct pblock *blocks, uint32_t n_slots, uint32_t wpb);

#endif /* SMSIM_FRONTEND_PTX_EXEC_H */
