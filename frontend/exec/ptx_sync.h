/*
 * ptx_sync.h - Hopper's transaction barriers, bulk copies and elect.sync,
 * executed (private to frontend/exec/).
 */
#ifndef SMSIM_FRONTEND_PTX_SYNC_H
#define SMSIM_FRONTEND_PTX_SYNC_H

#include "frontend/exec/ptx_run.h"

/* Where an mbarrier's state (an arrive's result) holds the arrivals still
 * pending in its phase: mbarrier.pending_count extracts them (ptx_decode.c). */
#define PTX_MB_PENDING_POS 20u
#define PTX_MB_COUNT_BITS 20u

/* Execute x (XK_MBAR, XK_BULK or XK_ELECT) for lanes m of warp pw of
 * block b and describe it for the timing model in *wi (space, addresses,
 * sync and bulk fields).  Returns SIM_OK or an error naming x's PTX line. */
int ptx_sync_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                  uint32_t m, struct warp_inst *wi, struct sim_error *err);

/* The model's questions about warp's pending wait (sim/inst.h,
 * SIM_SYNC_POLL): has its phase completed (1, *sig the signal that
 * completed it), and, at its issue, execute it as the model found it
 * (complete: the phase's answer; else false, a try_wait that timed out):
 * its predicate, and *wi's sync and aux become what the model waits for. */
int ptx_sync_poll(struct ptx_run *r, uint32_t slot, uint32_t warp, uint32_t *sig);

/* st.async / red.async x (XK_ST / XK_RED with PX_ASYNC), its stores done
 * for lanes m: complete each lane's bytes on the mbarrier of its (base3,
 * off3), a barrier of the block its store went to; one signal per barrier
 * (the local one in *wi's sync fields, others as remote signals). */
int ptx_sync_async_tx(struct ptx_run *r, struct pblock *b, struct pwarp *pw,
                      const struct xop *x, uint32_t m, struct warp_inst *wi,
                      struct sim_error *err);
int ptx_sync_commit(struct ptx_run *r, uint32_t slot, uint32_t warp, bool complete,
                    struct warp_inst *wi, struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTX_SYNC_H */
