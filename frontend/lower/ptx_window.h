/*
 * ptx_window.h - the unrolled loops' windows: PTX_UNROLL iterations of a
 * loop ptxas unrolls, in the order its unrolled body issues them.
 *
 * ptxas unrolls a small counted loop 4 times and schedules the four
 * copies as one basic block: the loads of the later copies move above the
 * arithmetic of the earlier ones, each copy in registers of its own, so a
 * warp has 4 iterations' loads in flight where the PTX's loop has one
 * (the naive GEMM of traces/gemm: 32 LDG a warp before its first FFMA in
 * validation/measured/h100-sxm5/sass/gemm_simt.sass).  ptx_lower.c marks
 * the loops (mark_unrolled) and makes their control issue once per 4
 * iterations; this module plans, per loop, the order of the operations of
 * 4 iterations (struct ptx_window, frontend/exec/ptx_run.h), which the
 * executor follows (ptx_exec.c).  May include exec/ and lower/.
 */
#ifndef SMSIM_FRONTEND_LOWER_PTX_WINDOW_H
#define SMSIM_FRONTEND_LOWER_PTX_WINDOW_H

#include "frontend/exec/ptx_run.h"

/* Plan the window of every loop r's lowering marked unrolled (r->windows,
 * r->win_head, r->win_mem); a loop whose body holds an operation that may
 * not move (a barrier, an atomic, a call, a wait, an asynchronous copy),
 * or whose 4 iterations issue more than PTX_WIN_MAX operations, keeps the
 * order it is executed in.  Run after ptx_schedule(). */
void ptx_window_plan(struct ptx_run *r);

#endif
