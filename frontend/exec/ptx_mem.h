/*
 * ptx_mem.h - addresses of a running PTX kernel: host memory, bounds and
 * alignment checks, the timing model's address (private to frontend/ptx*.c).
 */
#ifndef SMSIM_FRONTEND_PTX_MEM_H
#define SMSIM_FRONTEND_PTX_MEM_H

#include "frontend/exec/ptx_run.h"

/* Where one lane's access lands. */
struct ptx_access {
    uint8_t *p;                  /* host memory */
    uint8_t space;               /* SIM_SPACE_* for the timing model */
    sim_addr_t taddr;            /* timing-model address */
    uint8_t remote;              /* shared memory of another block of the cluster */
    struct pblock *owner;        /* a shared access: the block whose memory it is (taddr: the
                                    offset in it) */
};

/* Resolve lane l's (of warp w of block b) access of `bytes` at address a
 * in `space` (PS_GENERIC: by its window) for instruction x: *out, or an
 * error (exit 2) naming x's PTX line, the kernel, block, thread and pc,
 * and for a global address outside every allocation the one it ran past.
 * Reads a module variable nothing initialised: a warning, once. */
int ptx_mem_resolve(struct ptx_run *r, struct pblock *b, unsigned w, unsigned l, unsigned space,
                    sim_addr_t a, unsigned bytes, const struct xop *x, struct ptx_access *out,
                    struct sim_error *err);

/* The global region holding [a, a + bytes), or NULL (the last one found
 * is cached: r->last_region). */
struct region *ptx_mem_region(struct ptx_run *r, sim_addr_t a, uint64_t bytes);

/* The timing-model address of lane l's local address a: local memory is
 * interleaved per lane, 4 bytes at a time, over the thread's local address
 * space (its frame and call stack). */
sim_addr_t ptx_mem_local_taddr(const struct ptx_run *r, const struct pblock *b, unsigned w,
                               unsigned l, uint64_t a);

/* Copy n bytes at lane l's generic address a (warp w of block b) into buf,
 * for a runtime function reading its arguments (printf's format string and
 * argument buffer).  An address outside memory is an error naming x's line. */
int ptx_mem_peek(struct ptx_run *r, struct pblock *b, unsigned w, unsigned l, sim_addr_t a,
                 void *buf, unsigned n, const struct xop *x, struct sim_error *err);

/* Give every launch buffer and module variable (with its `var` line's
 * contents, or its PTX initialiser) a device address, and build the
 * kernel's parameter space from the launch file's arguments, checking
 * their number and sizes against the .param list: errors name the launch
 * file's line. */
int ptx_mem_layout(struct ptx_run *r, struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTX_MEM_H */
