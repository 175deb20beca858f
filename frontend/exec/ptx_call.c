/*
 * ptx_call.c - device-function calls: linking, frames, the per-warp call
 * stack (see ptx_call.h).
 *
 * Invariants.  x[] holds the kernel's operations, then each linked
 * function's, contiguously (funcs[i].entry .. end); every function entry
 * is a basic-block leader.  A warp's call frames nest like its SIMT
 * stack: frames[j].base_sp is the number of entries when call j began, and
 * the entries above it run that call's callee; when the stack falls to
 * base_sp the call is over (ptx_exec_step calls ptx_call_leave).  Frame
 * bases grow with depth: frame j's base is its caller's base plus the
 * caller's frame size, so an activation never overlaps another.
 */
#include "frontend/exec/ptx_call.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_spin.h"

static uint32_t
align_to(uint64_t x, uint32_t a)
{
    return (uint32_t)((x + a - 1) / a * a);
}

static uint32_t
align16(uint64_t x)
{
    return align_to(x, 16);
}

/* The strictest alignment (at least 4) of body k's variables of space sp,
 * or of its parameters of that space (params). */
static uint32_t
area_align(const struct ptx_kernel *k, uint8_t sp, bool params)
{
    uint32_t a = 4;
    const struct ptx_sym *s = params ? k->params : k->syms;
    uint32_t n = params ? k->n_params : k->n_syms;
    for (uint32_t i = 0; i < n; i++)
        if (s[i].space == sp && s[i].align > a && s[i].align <= 16)
            a = s[i].align;
    return a;
}

/* ---- linking ------------------------------------------------------------ */

uint32_t
ptx_call_add_loc(struct ptx_run *r, const struct xloc *l)
{
    if ((r->n_locs & (r->n_locs - 1)) == 0)   /* grow at powers of two */
        r->locs = xrealloc(r->locs, (r->n_locs ? 2 * r->n_locs : 16) * sizeof *r->locs);
    r->locs[r->n_locs] = *l;
    return r->n_locs++;
}

int32_t
ptx_call_func(const struct ptx_run *r, int32_t mod)
{
    return mod >= 0 && (uint32_t)mod < r->m->n_funcs ? r->fmap[mod] : -1;
}

/* The line of call number c of body k. */
static uint32_t
call_line(const struct ptx_kernel *k, uint32_t c)
{
    for (uint32_t i = 0; i < k->n_ins; i++)
        if (k->ins[i].op == PTXOP_CALL && k->ins[i].target == (int32_t)c)
            return k->ins[i].line;
    return k->line;
}

/* Parameter p of function f (linked as f's register bases say) as a
 * location in f's frame or register files. */
static struct xloc
param_loc(const struct xfunc *f, const struct ptx_sym *p)
{
    struct xloc l = { .kind = XL_FRAME, .size = (uint32_t)p->size };
    if (p->space != PS_REG) {
        l.off = f->param_off + (uint32_t)p->offset;
        return l;
    }
    const struct ptx_reg *g = &f->body->regs[p->offset];
    l.kind = XL_SLOT;
    l.cls = g->rclass == RC_PRED ? SC_PRED : g->rclass == RC_64 ? SC_64 : SC_32;
    l.idx = g->index + (l.cls == SC_PRED ? f->rp : l.cls == SC_64 ? f->r64 : f->r32);
    return l;
}

/* Mark the functions on a cycle of the call graph (a call through a
 * pointer may reach every function whose address is taken). */
static void
find_recursion(struct ptx_run *r)
{
    uint32_t n = r->n_funcs;
    uint8_t *seen = xmalloc(n);
    uint32_t *stack = xmalloc((n + 1) * sizeof *stack);
    for (uint32_t f = 1; f < n; f++) {
        memset(seen, 0, n);
        uint32_t sp = 0;
        stack[sp++] = f;
        while (sp > 0 && !r->funcs[f].recursive) {
            const struct ptx_kernel *b = r->funcs[stack[--sp]].body;
            for (uint32_t c = 0; c < b->n_calls; c++) {
                for (uint32_t g = 1; g < n; g++) {
                    bool edge = b->calls[c].func < 0 ? r->funcs[g].body->addr_taken
                                                     : r->funcs[g].mod == b->calls[c].func;
                    if (!edge)
                        continue;
                    if (g == f)
                        r->funcs[f].recursive = true;
                    if (!seen[g]) {
                        seen[g] = 1;
                        stack[sp++] = g;
                    }
                }
            }
        }
    }
    free(stack);
    free(seen);
}

/* The stack a call to function f needs at most (the call graph below it
 * has no cycle): its frame and its deepest callee's; memo[] caches. */
static uint64_t
deepest(const struct ptx_run *r, uint32_t f, uint64_t *memo)
{
    if (memo[f] != UINT64_MAX)
        return memo[f];
    uint64_t best = 0;
    const struct ptx_kernel *b = r->funcs[f].body;
    for (uint32_t c = 0; c < b->n_calls; c++)
        for (uint32_t g = 1; g < r->n_funcs; g++) {
            bool edge = b->calls[c].func < 0 ? r->funcs[g].body->addr_taken
                                             : r->funcs[g].mod == b->calls[c].func;
            uint64_t d = edge ? deepest(r, g, memo) : 0;
            best = d > best ? d : best;
        }
    return memo[f] = (f == 0 ? 0 : r->funcs[f].frame) + best;
}

uint8_t
ptx_call_builtin(const struct ptx_kernel *f)
{
    static const struct { const char *name; uint8_t params, rets, b; } rt[] = {
        { "vprintf", 3, 1, XB_VPRINTF }, { "__assertfail", 5, 0, XB_ASSERTFAIL },
        { "malloc", 2, 1, XB_MALLOC }, { "free", 1, 0, XB_FREE },
        { "cudaGraphSetConditional", 2, 0, XB_SETCOND },
    };
    for (size_t i = 0; !f->defined && i < SIM_ARRAY_LEN(rt); i++)
        if (strcmp(f->name, rt[i].name) == 0 && f->n_params == rt[i].params &&
            f->n_rets == rt[i].rets)
            return rt[i].b;
    return XB_NONE;
}

/* Link module function mod (a callee of body b's call c, or -1 for one
 * that a function pointer may reach: skipped when it cannot run). */
static int
link_func(struct ptx_run *r, int32_t mod, const struct ptx_kernel *b, int32_t c,
          struct sim_error *err)
{
    const struct ptx_module *m = r->m;
    const struct ptx_kernel *f = &m->funcs[mod];
    if (r->fmap[mod] >= 0)
        return SIM_OK;
    if (!f->defined && c < 0)
        return SIM_OK;
    uint8_t builtin = ptx_call_builtin(f);
    if (builtin == XB_MALLOC && r->heap->base == 0)
        return sim_error_set(err, SIM_ERR_INTERNAL, "kernel %s calls malloc but has no heap",
                             r->k->name);
    if (!f->defined && builtin == XB_NONE)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s:%u: kernel %s calls %s, which "
                             "the module declares but does not define (unsupported: "
                             "runtime functions other than printf, assert, malloc, free "
                             "and cudaGraphSetConditional are not simulated)",
                             m->path, call_line(b, (uint32_t)c), r->k->name, f->name);
    if (f->unsupported != NULL && c < 0)
        return SIM_OK;
    if (f->unsupported != NULL)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s (called by kernel %s)",
                             f->unsupported, r->k->name);
    r->fmap[mod] = (int32_t)r->n_funcs;
    r->funcs[r->n_funcs++] = (struct xfunc){ .body = f, .name = f->name, .mod = mod,
                                             .line = f->line, .ret = -1, .builtin = builtin };
    return SIM_OK;
}

int
ptx_call_link(struct ptx_run *r, struct sim_error *err)
{
    const struct ptx_module *m = r->m;
    const struct ptx_kernel *k = r->k;
    r->funcs = xcalloc(m->n_funcs + 1, sizeof *r->funcs);
    r->fmap = xmalloc((m->n_funcs + 1) * sizeof *r->fmap);
    for (uint32_t i = 0; i < m->n_funcs; i++)
        r->fmap[i] = -1;
    r->n_funcs = 1;
    r->funcs[0] = (struct xfunc){ .body = k, .name = k->name, .mod = -1, .line = k->line,
                                  .ret = -1 };
    /* every function the kernel may reach, breadth first */
    for (uint32_t i = 0; i < r->n_funcs; i++) {
        const struct ptx_kernel *b = r->funcs[i].body;
        for (uint32_t c = 0; c < b->n_calls; c++) {
            int32_t mod = b->calls[c].func;
            if (mod >= 0) {
                SIM_FORWARD_IF_ERROR(link_func(r, mod, b, (int32_t)c, err));
                continue;
            }
            for (uint32_t g = 0; g < m->n_funcs; g++)   /* through a function pointer */
                if (m->funcs[g].addr_taken)
                    SIM_FORWARD_IF_ERROR(link_func(r, (int32_t)g, b, -1, err));
        }
    }
    /* positions in x[], register slots, frames */
    uint32_t pos = 0, n32 = 0, n64 = 0, np = 0;
    for (uint32_t i = 0; i < r->n_funcs; i++) {
        struct xfunc *f = &r->funcs[i];
        const struct ptx_kernel *b = f->body;
        f->entry = (int32_t)pos;
        pos += b->n_ins;
        f->end = (int32_t)pos;
        f->r32 = n32;
        f->n32 = b->n_rclass[RC_32];
        f->r64 = n64;
        f->n64 = b->n_rclass[RC_64];
        f->rp = np;
        f->np = b->n_rclass[RC_PRED];
        n32 += f->n32;
        n64 += f->n64;
        np += f->np;
        /* .local variables from 0, then the parameters, then the calls'
         * .param variables, each area aligned as its strictest member;
         * frames start 16-aligned */
        uint32_t site_align = area_align(b, PS_PARAM, false);
        if (i == 0) {
            f->site_off = b->callsite_bytes ? align_to(b->local_bytes, site_align)
                                            : (uint32_t)b->local_bytes;
            f->frame = f->site_off + (uint32_t)b->callsite_bytes;
            if (r->n_funcs > 1)
                f->frame = align16(f->frame);
            continue;
        }
        f->param_off = align_to(b->local_bytes, area_align(b, PS_PARAM, true));
        f->site_off = align_to(f->param_off + b->param_bytes, site_align);
        f->frame = align16(f->site_off + b->callsite_bytes);
        if (f->frame < PTX_FRAME_MIN)
            f->frame = PTX_FRAME_MIN;
    }
    if (pos > 10000000)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s: kernel %s and the functions it calls "
                             "have more than 10 million instructions", m->path, k->name);
    for (uint32_t i = 1; i < r->n_funcs; i++) {
        struct xfunc *f = &r->funcs[i];
        const struct ptx_kernel *b = f->body;
        if (b->n_rets > 0) {
            struct xloc l = param_loc(f, &b->params[0]);
            f->ret = (int32_t)ptx_call_add_loc(r, &l);
        }
        f->arg0 = r->n_locs;
        f->nargs = b->n_params - b->n_rets;
        for (uint32_t p = b->n_rets; p < b->n_params; p++) {
            struct xloc l = param_loc(f, &b->params[p]);
            if (l.kind == XL_SLOT && l.cls == SC_PRED)
                return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s:%u: function %s: predicate "
                                     "parameters are unsupported", m->path, b->line, b->name);
            ptx_call_add_loc(r, &l);
        }
    }
    find_recursion(r);
    r->stack_limit = r->n_funcs > 1 ? r->l->stack : 0;
    /* without recursion the stack a launch needs is known, and the driver
     * raises the limit to it (cudaDeviceSetLimit, cudaLimitStackSize: "the
     * driver will set the limit to the maximum of value and what the kernel
     * function requires") */
    bool recursive = false;
    for (uint32_t fi = 1; fi < r->n_funcs; fi++)
        recursive = recursive || r->funcs[fi].recursive;
    if (r->n_funcs > 1 && !recursive) {
        uint64_t *memo = xmalloc(r->n_funcs * sizeof *memo);
        for (uint32_t fi = 0; fi < r->n_funcs; fi++)
            memo[fi] = UINT64_MAX;
        uint64_t need = deepest(r, 0, memo);
        free(memo);
        if (need > r->stack_limit && need <= UINT32_MAX)
            r->stack_limit = (uint32_t)need;
    }
    r->local_bytes = r->funcs[0].frame;
    r->local_span = r->local_bytes + r->stack_limit;
    /* .shared variables a called function declares itself (nvcc -G keeps a
     * function's static __shared__ there): after the kernel's own, before
     * the dynamic shared memory */
    uint64_t sh = r->k->shared_bytes;
    for (uint32_t fi = 1; fi < r->n_funcs; fi++) {
        r->funcs[fi].smem_base = (uint32_t)sh;
        sh += (r->funcs[fi].body->shared_bytes + 15) & ~UINT64_C(15);
    }
    r->smem_funcs = (uint32_t)(sh - r->k->shared_bytes);
    return SIM_OK;
}

/* ---- the call stack -------------------------------------------------------- */

void
ptx_call_warp_init(struct ptx_run *r, struct pwarp *pw)
{
    struct ptx_callstack *cs = &pw->cs;
    cs->n = 0;
    cs->fp = 0;
    cs->func = 0;
    cs->end = r->n_funcs > 0 ? r->funcs[0].end : (int32_t)r->n_x;
    cs->save_len = 0;
    if (r->n_funcs > 1) {
        if (cs->active == NULL)
            cs->active = xcalloc(r->n_funcs, sizeof *cs->active);
        memset(cs->active, 0, r->n_funcs * sizeof *cs->active);
    }
    if (cs->mem_hi > 0)
        memset(cs->mem, 0, 32 * (size_t)cs->mem_cap);
    cs->mem_hi = 0;
}

void
ptx_call_warp_free(struct pwarp *pw)
{
    struct ptx_callstack *cs = &pw->cs;
    free(cs->frames);
    free(cs->active);
    free(cs->save);
    free(cs->mem);
    memset(cs, 0, sizeof *cs);
}

/* Make the call stack hold need bytes per lane (need <= the limit). */
static void
stack_room(struct ptx_callstack *cs, uint32_t need)
{
    if (need > cs->mem_hi)
        cs->mem_hi = need;
    if (need <= cs->mem_cap)
        return;
    uint32_t cap = cs->mem_cap ? cs->mem_cap : 64;
    while (cap < need)
        cap *= 2;
    uint8_t *mem = xcalloc(32 * (size_t)cap, 1);
    for (unsigned l = 0; l < 32 && cs->mem_cap > 0; l++)
        memcpy(mem + (size_t)l * cap, cs->mem + (size_t)l * cs->mem_cap, cs->mem_cap);
    free(cs->mem);
    cs->mem = mem;
    cs->mem_cap = cap;
}

/* Lane l's memory at local address a (a frame: the kernel's, or one on the
 * call stack, whose room was made). */
static uint8_t *
frame_mem(const struct ptx_run *r, struct pblock *b, struct pwarp *pw, unsigned l, uint64_t a)
{
    if (a < r->local_bytes)
        return b->local + ((size_t)pw->index * 32 + l) * r->local_bytes + a;
    return pw->cs.mem + (size_t)l * pw->cs.mem_cap + (a - r->local_bytes);
}

/* Lane l's value of location x in the frame at fp (at most 8 bytes). */
static uint64_t
loc_get(const struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xloc *x,
        uint32_t fp, unsigned l, uint32_t size)
{
    if (x->kind == XL_SLOT) {
        struct slot s = { x->cls, x->idx };
        return lane_get(pw, &s, l);
    }
    uint64_t v = 0;
    memcpy(&v, frame_mem(r, b, pw, l, (uint64_t)fp + x->off), size < 8 ? size : 8);
    return v;
}

static void
loc_set(const struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xloc *x,
        uint32_t fp, unsigned l, uint64_t v)
{
    if (x->kind == XL_SLOT) {
        struct slot s = { x->cls, x->idx };
        lane_set(pw, &s, l, v);
        return;
    }
    memcpy(frame_mem(r, b, pw, l, (uint64_t)fp + x->off), &v, x->size < 8 ? x->size : 8);
}

/* Copy location src (frame at sfp) to dst (frame at dfp) in lanes m: the
 * smaller of their sizes (a direct call's are the parameter's); both in
 * memory, or a value of at most 8 bytes (ptx_decode.c and match_callee
 * check). */
static void
loc_copy(const struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xloc *src,
         uint32_t sfp, const struct xloc *dst, uint32_t dfp, uint32_t m)
{
    uint32_t n = src->size < dst->size ? src->size : dst->size;
    if (src->kind == XL_FRAME && dst->kind == XL_FRAME) {
        LANES(m, {
            memmove(frame_mem(r, b, pw, l, (uint64_t)dfp + dst->off),
                    frame_mem(r, b, pw, l, (uint64_t)sfp + src->off), n);
        });
        return;
    }
    LANES(m, { loc_set(r, b, pw, dst, dfp, l, loc_get(r, b, pw, src, sfp, l, n)); });
}

/* A call through a function pointer: the function lane l0 (the first of
 * m) calls; *same = the lanes of m calling it too.  An error for a pointer
 * that is no function's address, or a function that cannot run, or whose
 * parameters the call's arguments do not fill. */
static int
pointer_target(const struct ptx_run *r, const struct pblock *b, struct pwarp *pw,
               const struct xop *x, uint32_t m, int32_t *fi, uint32_t *same, struct sim_error *err)
{
    const struct xcallsite *site = &r->sites[x->off];
    *fi = -1;
    *same = 0;
    uint32_t mm = m;
    while (mm != 0) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        mm &= mm - 1;
        uint64_t p = lane_get(pw, &x->a, l), i = (p - PTX_FUNC_BASE) / 16;
        int32_t f = p >= PTX_FUNC_BASE && (p - PTX_FUNC_BASE) % 16 == 0 && i < r->m->n_funcs
                    ? r->fmap[i] : -2;
        if (f < 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: call through a function pointer "
                                 "to %#" PRIx64 ", %s (block %" PRIu64 ", thread %u)",
                                 r->m->path, x->line, p, f == -2 ? "which is no function's "
                                 "address" : "a function that is not defined or cannot run",
                                 b->id, pw->index * 32 + l);
        if (*fi < 0)
            *fi = f;
        if (f == *fi)
            *same |= 1u << l;
    }
    const struct xfunc *callee = &r->funcs[*fi];
    bool ok = site->nargs == callee->nargs;
    for (uint32_t a = 0; a < site->nargs && ok; a++) {
        const struct xloc *src = &r->locs[site->arg0 + a], *dst = &r->locs[callee->arg0 + a];
        ok = src->size >= dst->size && (dst->size <= 8 || src->kind == XL_FRAME);
    }
    if (!ok)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: the call through a function pointer "
                             "passes %u argument%s that do not match the parameters of %s (%u)",
                             r->m->path, x->line, site->nargs, site->nargs == 1 ? "" : "s",
                             callee->name, callee->nargs);
    return SIM_OK;
}

/* Save function f's registers (every lane) on the save stack. */
static size_t
save_regs(struct pwarp *pw, const struct xfunc *f)
{
    struct ptx_callstack *cs = &pw->cs;
    size_t b32 = (size_t)f->n32 * 32 * sizeof(union r32), b64 = (size_t)f->n64 * 32 * sizeof(union r64);
    size_t bp = (size_t)f->np * sizeof(uint32_t), at = cs->save_len;
    if (at + b32 + b64 + bp > cs->save_cap) {
        cs->save_cap = 2 * (at + b32 + b64 + bp) + 256;
        cs->save = xrealloc(cs->save, cs->save_cap);
    }
    if (b32 > 0)                 /* a file the kernel has no register of may be NULL */
        memcpy(cs->save + at, pw->r32 + (size_t)f->r32 * 32, b32);
    if (b64 > 0)
        memcpy(cs->save + at + b32, pw->r64 + (size_t)f->r64 * 32, b64);
    if (bp > 0)
        memcpy(cs->save + at + b32 + b64, pw->pred + f->rp, bp);
    cs->save_len = at + b32 + b64 + bp;
    return at;
}

static void
restore_regs(struct pwarp *pw, const struct xfunc *f, size_t at)
{
    struct ptx_callstack *cs = &pw->cs;
    size_t b32 = (size_t)f->n32 * 32 * sizeof(union r32), b64 = (size_t)f->n64 * 32 * sizeof(union r64);
    size_t bp = (size_t)f->np * sizeof(uint32_t);
    if (b32 > 0)
        memcpy(pw->r32 + (size_t)f->r32 * 32, cs->save + at, b32);
    if (b64 > 0)
        memcpy(pw->r64 + (size_t)f->r64 * 32, cs->save + at + b32, b64);
    if (bp > 0)
        memcpy(pw->pred + f->rp, cs->save + at + b32 + b64, bp);
    cs->save_len = at;
}

/* ---- printf and assert --------------------------------------------------- */

#define BUILTIN_STR_MAX 4096   /* longest format or %s string read */

/* Lane l's NUL-terminated string at generic address a, at most
 * BUILTIN_STR_MAX - 1 bytes ("(null)" for address 0). */
static int
peek_str(struct ptx_run *r, struct pblock *b, const struct pwarp *pw, unsigned l, uint64_t a,
         char *s, const struct xop *x, struct sim_error *err)
{
    if (a == 0) {
        snprintf(s, BUILTIN_STR_MAX, "(null)");
        return SIM_OK;
    }
    for (unsigned i = 0; i + 1 < BUILTIN_STR_MAX; i++) {
        SIM_FORWARD_IF_ERROR(ptx_mem_peek(r, b, pw->index, l, a + i, &s[i], 1, x, err));
        if (s[i] == '\0')
            return SIM_OK;
    }
    s[BUILTIN_STR_MAX - 1] = '\0';
    return SIM_OK;
}

/* The host's printf formats each conversion from a spec rebuilt here out
 * of checked characters only (flags, digits, '.', the conversion and our
 * own "ll"), with an argument of the type that conversion takes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* printf(format, ...) of lane l as CUDA's vprintf does it: the arguments
 * packed in a buffer at args, each aligned to its size (int 4, long,
 * double, pointer 8; a float arrives as a double).  Writes to stdout;
 * *parsed = the arguments read, what CUDA's printf returns. */
static int
lane_printf(struct ptx_run *r, struct pblock *b, const struct pwarp *pw, unsigned l,
            uint64_t fmt, uint64_t args, const struct xop *x, int *parsed, struct sim_error *err)
{
    static char f[BUILTIN_STR_MAX], s[BUILTIN_STR_MAX], out[BUILTIN_STR_MAX + 64];
    SIM_FORWARD_IF_ERROR(peek_str(r, b, pw, l, fmt, f, x, err));
    uint64_t off = 0;
    *parsed = 0;
    for (const char *p = f; *p != '\0'; p++) {
        if (*p != '%') {
            putchar(*p);
            continue;
        }
        if (p[1] == '%') {
            putchar('%');
            p++;
            continue;
        }
        /* %[flags][width][.precision][length]conversion, rebuilt without the
         * length for the host's printf */
        char spec[32];
        size_t k = 0;
        const char *q = p + 1;
        spec[k++] = '%';
        while (*q != '\0' && strchr("-+ #0", *q) != NULL && k < 12)
            spec[k++] = *q++;
        while (*q >= '0' && *q <= '9' && k < 20)
            spec[k++] = *q++;
        if (*q == '.') {
            spec[k++] = *q++;
            while (*q >= '0' && *q <= '9' && k < 28)
                spec[k++] = *q++;
        }
        int longs = 0, shorts = 0;
        for (; *q != '\0' && strchr("hlLqjzt", *q) != NULL; q++) {
            if (*q == 'h')
                shorts++;
            else
                longs++;
        }
        char conv = *q;
        if (conv == '\0' || strchr("diouxXcsfFeEgGaAp", conv) == NULL) {
            fputs(p, stdout);        /* not a conversion CUDA's printf knows: as written */
            break;
        }
        unsigned size = strchr("fFeEgGaAsp", conv) != NULL || longs > 0 ? 8 : 4;
        off = (off + size - 1) & ~(uint64_t)(size - 1);
        uint64_t v = 0;
        SIM_FORWARD_IF_ERROR(ptx_mem_peek(r, b, pw->index, l, args + off, &v, size, x, err));
        off += size;
        (*parsed)++;
        if (conv == 's') {
            SIM_FORWARD_IF_ERROR(peek_str(r, b, pw, l, v, s, x, err));
            spec[k++] = 's';
            spec[k] = '\0';
            snprintf(out, sizeof out, spec, s);
        } else if (conv == 'p') {
            snprintf(out, sizeof out, "0x%" PRIx64, v);
        } else if (strchr("fFeEgGaA", conv) != NULL) {
            double d;
            memcpy(&d, &v, 8);
            spec[k++] = conv;
            spec[k] = '\0';
            snprintf(out, sizeof out, spec, d);
        } else {
            bool sgn = conv == 'd' || conv == 'i';
            if (size == 4)
                v = sgn ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
            if (shorts == 1)
                v = sgn ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
            else if (shorts >= 2 || conv == 'c')
                v = sgn ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
            if (conv == 'c') {
                spec[k++] = 'c';
                spec[k] = '\0';
                snprintf(out, sizeof out, spec, (int)(unsigned char)v);
            } else {
                spec[k++] = 'l';
                spec[k++] = 'l';
                spec[k++] = conv;
                spec[k] = '\0';
                if (sgn)
                    snprintf(out, sizeof out, spec, (long long)v);
                else
                    snprintf(out, sizeof out, spec, (unsigned long long)v);
            }
        }
        fputs(out, stdout);
        p = q;
    }
    return SIM_OK;
}

#pragma GCC diagnostic pop

/* Carry out runtime function callee (a builtin) for lanes m at call x:
 * printf prints each lane's line, in lane order, and returns the number of
 * arguments it read; a failed assert is the kernel's error, as the GPU's
 * trap is; malloc takes each lane's bytes from the heap in lane order;
 * cudaGraphSetConditional writes a conditional node's value. */
static int
run_builtin(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
            const struct xcallsite *site, const struct xfunc *callee, uint32_t m,
            struct sim_error *err)
{
    uint32_t fp = pw->cs.fp;
    uint64_t a[5] = { 0 };
    for (unsigned l = 0; l < 32; l++) {
        if (!(m >> l & 1))
            continue;
        for (uint32_t i = 0; i < site->nargs && i < 5; i++)
            a[i] = loc_get(r, b, pw, &r->locs[site->arg0 + i], fp, l,
                           r->locs[callee->arg0 + i].size);
        if (callee->builtin == XB_MALLOC) {
            uint64_t bytes = (a[0] + 15) / 16 * 16;
            struct ptx_heap *h = r->heap;
            uint64_t p = 0;
            if (a[0] != 0 && bytes <= h->size - h->used) {
                p = h->base + h->used;
                h->used += bytes;
            }
            if (site->ret >= 0)
                loc_set(r, b, pw, &r->locs[site->ret], fp, l, p);
            continue;
        }
        if (callee->builtin == XB_FREE)
            continue;
        if (callee->builtin == XB_SETCOND) {
            /* the handle is the address of the condition's word (the
             * runtime's, cudart/cudart_graph.c): each lane writes it, in
             * lane order (concurrent calls: undefined in CUDA) */
            struct ptx_access ac;
            uint32_t v = (uint32_t)a[1];
            SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GENERIC, a[0], 4, x, &ac,
                                                 err));
            memcpy(ac.p, &v, 4);
            ptx_spin_memory_changed(r);
            continue;
        }
        if (callee->builtin == XB_VPRINTF) {
            int parsed;
            SIM_FORWARD_IF_ERROR(lane_printf(r, b, pw, l, a[0], a[1], x, &parsed, err));
            if (site->ret >= 0)
                loc_set(r, b, pw, &r->locs[site->ret], fp, l, (uint64_t)(int64_t)parsed);
            continue;
        }
        static char msg[BUILTIN_STR_MAX], file[BUILTIN_STR_MAX], func[BUILTIN_STR_MAX];
        SIM_FORWARD_IF_ERROR(peek_str(r, b, pw, l, a[0], msg, x, err));
        SIM_FORWARD_IF_ERROR(peek_str(r, b, pw, l, a[1], file, x, err));
        SIM_FORWARD_IF_ERROR(peek_str(r, b, pw, l, a[3], func, x, err));
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: device-side assertion "
                             "failed: %s:%u: %s: Assertion `%s' failed (block %" PRIu64
                             ", thread %u)", r->m->path, x->line, file,
                             (unsigned)a[2], func, msg, b->id, pw->index * 32 + l);
    }
    fflush(stdout);
    return SIM_OK;
}

/* The caller's entry waits after the call at pc, with every lane it has;
 * lanes rest (another function pointer's) call again from pc.  Leaves
 * room for one more entry, the callee's. */
static void
after_call(struct pwarp *pw, int32_t pc, uint32_t rest)
{
    pw->stk[pw->sp - 1].pc = pc + 1;
    ptx_stack_reserve(pw);
    if (rest != 0)
        pw->stk[pw->sp++] = (struct simt_entry){ pc, pc + 1, rest };
}

int
ptx_call_enter(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
               int32_t pc, uint32_t m, struct sim_error *err)
{
    struct ptx_callstack *cs = &pw->cs;
    const struct xcallsite *site = &r->sites[x->off];
    int32_t fi = site->func;
    uint32_t rest = 0;
    if (fi == XCALL_INDIRECT) {
        /* the lanes calling the first lane's function now; the others
         * call theirs after it returns, from an entry at this call */
        uint32_t same;
        SIM_FORWARD_IF_ERROR(pointer_target(r, b, pw, x, m, &fi, &same, err));
        rest = m & ~same;
        m = same;
    }
    const struct xfunc *callee = &r->funcs[fi];
    if (callee->builtin != XB_NONE) {    /* carried out here: no frame, no body */
        SIM_FORWARD_IF_ERROR(run_builtin(r, b, pw, x, site, callee, m, err));
        after_call(pw, pc, rest);
        return SIM_OK;
    }
    uint64_t nfp = (uint64_t)cs->fp + r->funcs[cs->func].frame, top = nfp + callee->frame;
    if (top > (uint64_t)r->local_bytes + r->stack_limit)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: call stack overflow: the call to %s at "
                             "depth %u needs %" PRIu64 " bytes of stack per thread, more than "
                             "the %u bytes allowed (launch file key stack; block %" PRIu64
                             ", warp %u)", r->m->path, x->line, callee->name, cs->n + 1,
                             top - r->local_bytes, r->stack_limit, b->id, pw->index);
    stack_room(cs, (uint32_t)(top - r->local_bytes));
    size_t saved = cs->active[fi] > 0 ? save_regs(pw, callee) : SIZE_MAX;
    /* the arguments: parameters in memory first (the caller's frame and
     * the callee's do not overlap), then register parameters, read before
     * any is written (a recursive function's registers may be both) */
    bool in_regs = false;
    for (uint32_t a = 0; a < site->nargs; a++) {
        const struct xloc *src = &r->locs[site->arg0 + a], *dst = &r->locs[callee->arg0 + a];
        if (dst->kind == XL_FRAME)
            loc_copy(r, b, pw, src, cs->fp, dst, (uint32_t)nfp, m);
        else
            in_regs = true;
    }
    if (in_regs) {
        uint64_t *v = xmalloc((size_t)site->nargs * 32 * sizeof *v);
        for (uint32_t a = 0; a < site->nargs; a++) {
            const struct xloc *src = &r->locs[site->arg0 + a], *dst = &r->locs[callee->arg0 + a];
            if (dst->kind == XL_SLOT)
                LANES(m, { v[a * 32 + l] = loc_get(r, b, pw, src, cs->fp, l, dst->size); });
        }
        for (uint32_t a = 0; a < site->nargs; a++) {
            const struct xloc *dst = &r->locs[callee->arg0 + a];
            if (dst->kind == XL_SLOT)
                LANES(m, { loc_set(r, b, pw, dst, (uint32_t)nfp, l, v[a * 32 + l]); });
        }
        free(v);
    }
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? 2 * cs->cap : 8;
        cs->frames = xrealloc(cs->frames, cs->cap * sizeof *cs->frames);
    }
    after_call(pw, pc, rest);
    cs->frames[cs->n++] = (struct call_frame){ fi, cs->func, (int32_t)x->off, pw->sp,
                                               (uint32_t)nfp, cs->fp, 0, saved };
    pw->stk[pw->sp++] = (struct simt_entry){ callee->entry, -1, m };
    cs->active[fi]++;
    cs->fp = (uint32_t)nfp;
    cs->func = fi;
    cs->end = callee->end;
    return SIM_OK;
}

void
ptx_call_ret(struct pwarp *pw, uint32_t m)
{
    struct call_frame *fr = &pw->cs.frames[pw->cs.n - 1];
    for (int i = fr->base_sp; i < pw->sp; i++)
        pw->stk[i].mask &= ~m;
    fr->returned |= m;
}

void
ptx_call_leave(struct ptx_run *r, struct pblock *b, struct pwarp *pw)
{
    struct ptx_callstack *cs = &pw->cs;
    const struct call_frame *fr = &cs->frames[cs->n - 1];
    const struct xcallsite *site = &r->sites[fr->site];
    const struct xfunc *callee = &r->funcs[fr->func];
    uint32_t m = fr->returned;
    const struct xloc *src = callee->ret >= 0 ? &r->locs[callee->ret] : NULL;
    const struct xloc *dst = site->ret >= 0 ? &r->locs[site->ret] : NULL;
    uint64_t v[32];
    bool late = false;
    if (src != NULL && dst != NULL && m != 0) {
        if (src->kind == XL_FRAME && dst->kind == XL_FRAME) {
            loc_copy(r, b, pw, src, fr->fp, dst, fr->caller_fp, m);
        } else {
            /* a register on either side: read it before the callee's
             * registers are restored (they may be the receiver's) */
            LANES(m, { v[l] = loc_get(r, b, pw, src, fr->fp, l, dst->size); });
            late = true;
        }
    }
    if (fr->saved != SIZE_MAX)
        restore_regs(pw, callee, fr->saved);
    if (late)
        LANES(m, { loc_set(r, b, pw, dst, fr->caller_fp, l, v[l]); });
    cs->active[fr->func]--;
    cs->fp = fr->caller_fp;
    cs->func = fr->caller;
    cs->end = r->funcs[fr->caller].end;
    cs->n--;
}
