/*
 * ptx_cluster.h - thread-block clusters: ranks, distributed shared memory
 * (mapa, ld/st/atom .shared::cluster) and barrier.cluster (private to
 * frontend/exec/).
 *
 * A launch's clusters (ptx_run.cluster, from the launch file or the
 * kernel's .reqnctapercluster) tile its grid; a block's rank is its
 * position in its cluster, x fastest (%cluster_ctarank).  The blocks of a
 * cluster run together (the model and the emulator start them together).
 *
 * A shared::cluster address of another block is (rank + 1) << 24 | offset
 * (mapa makes it; a plain shared offset, below 2^24, is the block's own
 * memory), so that every shared::cta address is also a shared::cluster
 * one, as the PTX ISA has it; a generic one is it in the shared window.
 *
 * barrier.cluster: each warp's n-th arrive counts its threads for phase n
 * of its cluster, and its n-th wait completes once phase n has every
 * thread of the cluster's blocks.  Without a timing model a wait that
 * finds its phase incomplete stays where it is and gives the other warps
 * their turn; with one it is decided when it issues (sim/inst.h
 * SIM_SYNC_POLL, a blocking poll).
 */
#ifndef SMSIM_FRONTEND_PTX_CLUSTER_H
#define SMSIM_FRONTEND_PTX_CLUSTER_H

#include "frontend/exec/ptx_run.h"

#define PTX_CLUSTER_SHIFT 24u

/* Block b starts and ends: its cluster's entry. */
void ptx_cluster_block_begin(struct ptx_run *r, struct pblock *b);
void ptx_cluster_block_end(struct ptx_run *r, struct pblock *b);

/* Block b's rank in its cluster. */
uint32_t ptx_cluster_rank(const struct ptx_run *r, const struct pblock *b);

/* The block that shared::cluster address a of block b's cluster names,
 * and the offset in its shared memory; NULL if the rank is outside the
 * cluster or its block is not running. */
struct pblock *ptx_cluster_shared(struct ptx_run *r, struct pblock *b, uint64_t a, uint32_t *off);

/* Execute XK_MAPA, XK_CLARRIVE or XK_CLWAIT for lanes m of warp pw.  A
 * wait sets *advance false when it must be executed again (no timing
 * model, phase incomplete). */
int ptx_cluster_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                     uint32_t m, struct warp_inst *wi, bool *advance, struct sim_error *err);

/* Has warp pw's pending barrier.cluster.wait's phase completed? */
bool ptx_cluster_wait_done(const struct ptx_run *r, const struct pblock *b,
                           const struct pwarp *pw);

#endif /* SMSIM_FRONTEND_PTX_CLUSTER_H */
