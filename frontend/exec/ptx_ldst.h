/*
 * ptx_ldst.h - the fast paths of PTX loads and stores (private to
 * frontend/exec/ptx_exec.c).
 */
#ifndef SMSIM_FRONTEND_PTX_LDST_H
#define SMSIM_FRONTEND_PTX_LDST_H

#include "frontend/exec/ptx_run.h"

/* Execute ld or st x for lanes m of warp pw of block b, filling wi's
 * space, width and addresses, when every lane's access is aligned and in
 * bounds of the block's shared memory or one global allocation: 1.  0:
 * nothing done; the caller's general path executes x (and reports what is
 * wrong).  The results are the same either way. */
int ptx_ldst_fast(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                  uint32_t m, struct warp_inst *wi);

#endif
