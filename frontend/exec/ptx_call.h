/*
 * ptx_call.h - device-function calls: linking a kernel with the functions
 * it calls, activation frames, and the per-warp call stack (private to
 * frontend/ptx*.c).
 *
 * Linking.  ptx_call_link() lays the kernel's instructions out in x[]
 * followed by every function it may call (directly or through other
 * functions, and, when it calls through a function pointer, every
 * function whose address the module takes), each with registers of its
 * own in the warp's register files.  r->funcs[0] is the kernel.  A
 * function's address is PTX_FUNC_BASE + 16 x its module index.
 *
 * Frames.  Every activation of a function has a frame in the thread's
 * local memory: its .local variables, its parameters (the return
 * parameter and the arguments, as .param declares them) and the .param
 * variables its own calls pass and receive.  The kernel's frame is the
 * start of local memory (local_bytes); the call stack follows it, at most
 * stack_limit bytes per thread (a deeper call is an error naming the
 * call's line).  A frame's base is the same in every lane of a warp:
 * lanes of one warp that run together are at the same depth.
 *
 * Calls.  A call copies its arguments into the callee's parameters, in
 * the calling lanes; the caller's SIMT entry waits after the call, and an
 * entry for the calling lanes runs the callee.  `ret` takes its lanes out
 * of the callee's entries; when they are all gone the return value is
 * copied to the caller's receiver, in the lanes that returned, and the
 * caller goes on with every lane of its entry (those that did not call,
 * under a guard or in a divergent branch, included).  A function called
 * while it is already active in the warp (recursion) has its registers
 * saved at the call and restored at the return, so each activation has
 * its own registers, parameters and .local variables.
 */
#ifndef SMSIM_FRONTEND_PTX_CALL_H
#define SMSIM_FRONTEND_PTX_CALL_H

#include "frontend/exec/ptx_run.h"

/* Link the kernel r->k with the functions it calls: r->funcs, their
 * frames and parameters, x[] positions and register slots (before
 * decoding).  An error (exit 2) when a function it may call is only
 * declared or has an unsupported instruction, naming the kernel, the
 * function and the file:line. */
int ptx_call_link(struct ptx_run *r, struct sim_error *err);

/* The runtime function the executor carries out that f, a declared-only
 * function, is (vprintf, __assertfail, malloc, free,
 * cudaGraphSetConditional: enum xbuiltin), or XB_NONE. */
uint8_t ptx_call_builtin(const struct ptx_kernel *f);

/* The r->funcs index of module function mod, or -1 if it is not linked. */
int32_t ptx_call_func(const struct ptx_run *r, int32_t mod);

/* Add a location to r->locs; returns its index. */
uint32_t ptx_call_add_loc(struct ptx_run *r, const struct xloc *l);

/* A warp starts (or restarts in a new block) / its memory is released. */
void ptx_call_warp_init(struct ptx_run *r, struct pwarp *pw);
void ptx_call_warp_free(struct pwarp *pw);

/* XK_CALL x at pc, lanes m (non-empty) of the top SIMT entry call. */
int ptx_call_enter(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                   int32_t pc, uint32_t m, struct sim_error *err);

/* Lanes m return from the running function (ret, or its end reached). */
void ptx_call_ret(struct pwarp *pw, uint32_t m);

/* The running function's SIMT entries are gone: the return value goes to
 * the caller, its registers are restored, the frame pops. */
void ptx_call_leave(struct ptx_run *r, struct pblock *b, struct pwarp *pw);

#endif /* SMSIM_FRONTEND_PTX_CALL_H */
