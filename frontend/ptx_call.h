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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

struct ptx_kernel;
struct ptx_run;
struct pblock;
struct pwarp;
struct xop;

/* Default bytes of call stack per thread: CUDA's default cudaLimitStackSize
 * (CUDA Runtime API, cudaDeviceSetLimit: 1 KB). */
#define PTX_STACK_DEFAULT 1024u
/* The least a frame takes (its return address and alignment), so that even
 * a function without variables cannot recurse without bound. */
#define PTX_FRAME_MIN 16u

/* Where an argument, a return value or a parameter is. */
enum xloc_kind { XL_FRAME, XL_SLOT };

struct xloc {
    uint8_t kind;                /* enum xloc_kind */
    uint8_t cls;                 /* XL_SLOT: enum slot_class */
    uint32_t idx;                /* XL_SLOT: the slot (a register or a constant) */
    uint32_t off;                /* XL_FRAME: bytes from the frame base */
    uint32_t size;               /* bytes */
};

/* A function of the linked program (r->funcs). */
struct xfunc {
    const struct ptx_kernel *body;   /* its PTX (the module's) */
    const char *name;
    int32_t mod;                 /* index in the module's funcs; -1: the kernel */
    int32_t entry, end;          /* its operations: x[entry .. end) (renumbered by ptx_lower) */
    uint32_t line;               /* its .func line */
    uint32_t frame;              /* bytes of an activation's frame (a multiple of 16) */
    uint32_t local_off;          /* frame offsets of its .local variables, */
    uint32_t param_off;          /* its parameters, */
    uint32_t site_off;           /* and its calls' .param variables */
    uint32_t r32, n32, r64, n64, rp, np;   /* its registers: slots r32 .. r32 + n32 - 1, ... */
    int32_t ret;                 /* its return parameter: r->locs[ret], or -1 */
    uint32_t arg0, nargs;        /* its argument parameters: r->locs[arg0 .. arg0 + nargs) */
    bool recursive;              /* on a cycle of the call graph */
    uint8_t builtin;             /* a CUDA runtime function the module only declares and smsim
                                    carries out itself (enum xbuiltin), else XB_NONE */
    /* what ptxas makes of it on sm_90 (ptx_call_spills) */
    uint16_t save_words;         /* 4-byte registers stored on entry and loaded before each
                                    return (callee-saved registers) */
    bool sp_adjust;              /* it has a stack frame: the stack pointer moves on entry and
                                    before each return */
};

/* The runtime functions a kernel may call without a body in the PTX:
 * printf's vprintf(format, arguments) and assert's __assertfail(message,
 * file, line, function, char size). */
enum xbuiltin { XB_NONE, XB_VPRINTF, XB_ASSERTFAIL };

/* A call instruction (r->sites). */
struct xcallsite {
    int32_t func;                /* the callee (r->funcs), or XCALL_INDIRECT: the function the
                                    lane's pointer (the call's slot a) names */
    int32_t ret;                 /* the caller's receiver: r->locs[ret], or -1 */
    uint32_t arg0, nargs;        /* the arguments: r->locs[arg0 .. arg0 + nargs) */
    uint32_t line;
};

/* The callee of an indirect call site (func < 0). */
#define XCALL_INDIRECT (-1)

/* One call in progress in a warp. */
struct call_frame {
    int32_t func, caller;        /* r->funcs */
    int32_t site;                /* r->sites */
    int32_t base_sp;             /* SIMT entries below belong to the caller */
    uint32_t fp, caller_fp;      /* frame bases */
    uint32_t returned;           /* lanes that executed ret */
    size_t saved;                /* the callee's registers in save[], or SIZE_MAX */
};

/* A warp's calls. */
struct ptx_callstack {
    struct call_frame *frames;
    uint32_t n, cap;
    uint32_t fp;                 /* frame base of the running function (a local address) */
    int32_t func;                /* the running function (r->funcs; 0: the kernel) */
    int32_t end;                 /* its end in x[] */
    uint16_t *active;            /* per function: its activations in progress */
    uint8_t *save;               /* registers of recursive activations */
    size_t save_len, save_cap;
    uint8_t *mem;                /* the call stack: lane l's byte o at mem[l * mem_cap + o],
                                    o = local address - local_bytes */
    uint32_t mem_cap;            /* bytes per lane */
    uint32_t mem_hi;             /* bytes per lane used since the warp started */
};

/* Link the kernel r->k with the functions it calls: r->funcs, their
 * frames and parameters, x[] positions and register slots (before
 * decoding).  An error (exit 2) when a function it may call is only
 * declared or has an unsupported instruction, naming the kernel, the
 * function and the file:line. */
int ptx_call_link(struct ptx_run *r, struct sim_error *err);

/* The r->funcs index of module function mod, or -1 if it is not linked. */
int32_t ptx_call_func(const struct ptx_run *r, int32_t mod);

/* Add a location to r->locs; returns its index. */
uint32_t ptx_call_add_loc(struct ptx_run *r, const struct xloc *l);

/* Set every linked function's save_words and sp_adjust for sm_<cc>: from
 * ptxas -v's report for the function when there is one (a recursive
 * function's spill stores are its callee-saved registers), else from the
 * registers live across its calls. */
void ptx_call_spills(struct ptx_run *r, unsigned cc, bool ask_ptxas);

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

/* Host memory of lane l's local address a (>= r->local_bytes: the call
 * stack), bytes long; NULL when outside the stack in use. */
uint8_t *ptx_call_stack_mem(const struct ptx_run *r, struct pwarp *pw, unsigned l, uint64_t a,
                            unsigned bytes);

#endif /* SMSIM_FRONTEND_PTX_CALL_H */
