/*
 * ptx_mem.c - the memory of a running PTX kernel as its instructions
 * address it (see ptx_mem.h).
 *
 * Global memory is the launch file's buffers and the module's variables,
 * each a region PTX_REGION_STRIDE apart (ptx_run.h): an access outside
 * every region is reported at once, naming the allocation it ran past.
 * Shared memory is per block, local memory per thread (its frame, then its
 * call stack: ptx_call.c).  Generic addresses are told apart by their
 * window (PTX_SHARED_WINDOW, PTX_LOCAL_WINDOW).  Every access also gets
 * the address the timing model sees: global regions in the compact layout
 * of a GPU allocator, local memory interleaved per lane.
 */
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_cluster.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct region *
ptx_mem_region(struct ptx_run *r, sim_addr_t a, uint64_t bytes)
{
    struct region *g = &r->regions[r->last_region];
    if (r->n_regions > 0 && a >= g->base && a - g->base + bytes <= g->size)
        return g;
    uint32_t lo = 0, hi = r->n_regions;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (r->regions[mid].base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    g = &r->regions[lo - 1];
    if (a - g->base + bytes > g->size)
        return NULL;
    r->last_region = lo - 1;
    return g;
}

static int
mem_error(struct ptx_run *r, const struct xop *x, const struct pblock *b, unsigned w, unsigned l,
          const char *what, sim_addr_t a, struct sim_error *err)
{
    return sim_error_set(err, SIM_ERR_FORMAT,
                         "%s:%u: kernel %s: %s at address %#" PRIx64 " (block %" PRIu64
                         ", thread %u, pc %#x)", r->m->path, x->line, r->k->name, what, a, b->id,
                         w * 32 + l, x->spc);
}

static const char *const region_kinds[] = { "buffer", "__device__ variable",
                                            "__constant__ variable", "freed allocation" };

/* An access of `bytes` at global address a that no region holds: the
 * error names the allocation it ran past or before (memcheck's report). */
static int
global_fault(struct ptx_run *r, const struct xop *x, const struct pblock *b, unsigned w,
             unsigned l, sim_addr_t a, unsigned bytes, struct sim_error *err)
{
    char what[512];
    uint32_t lo = 0, hi = r->n_regions;
    while (lo < hi) {                /* the first region above a */
        uint32_t mid = (lo + hi) / 2;
        if (r->regions[mid].base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct region *below = lo > 0 ? &r->regions[lo - 1] : NULL;
    const char *dir = x->kind == XK_ST || x->kind == XK_WSTORE || x->kind == XK_STMATRIX ? "write"
                      : x->kind == XK_ATOM || x->kind == XK_RED ? "atomic" : "read";
    /* ld.const names its space; a generic or global access is global memory */
    const char *sp = x->space == PS_CONST ? "constant-memory" : "global-memory";
    if (below != NULL && a - below->base < PTX_REGION_STRIDE / 2) {
        uint64_t off = a - below->base;
        char line[32] = "";
        if (below->line > 0)
            snprintf(line, sizeof line, ", %s:%u", r->l->path, below->line);
        if (off < below->size)
            snprintf(what, sizeof what, "out-of-bounds %s %s of %u bytes at offset %"
                     PRIu64 " of %s %s (%" PRIu64 " bytes%s): it runs %" PRIu64 " bytes past "
                     "the end", sp, dir, bytes, off, region_kinds[below->kind], below->name,
                     below->size, line, off + bytes - below->size);
        else
            snprintf(what, sizeof what, "out-of-bounds %s %s of %u bytes %" PRIu64
                     " bytes past the end of %s %s (%" PRIu64 " bytes%s)", sp, dir, bytes,
                     off - below->size, region_kinds[below->kind], below->name, below->size, line);
    } else if (lo < r->n_regions && r->regions[lo].base - a <= PTX_REGION_STRIDE / 2) {
        const struct region *above = &r->regions[lo];
        snprintf(what, sizeof what, "out-of-bounds %s %s of %u bytes %" PRIu64 " bytes "
                 "before the start of %s %s", sp, dir, bytes, above->base - a,
                 region_kinds[above->kind], above->name);
    } else {
        snprintf(what, sizeof what, "%s %s of %u bytes outside every allocation (a "
                 "null or stray pointer)", sp, dir, bytes);
    }
    return mem_error(r, x, b, w, l, what, a, err);
}

/* The first read of a module variable that nothing initialised (no
 * initialiser in the PTX, no `var` line) is worth a warning: on the GPU
 * the host would have set it with cudaMemcpyToSymbol. */
static void
watch_access(struct ptx_run *r, struct region *g, const struct xop *x, bool write)
{
    if (!write)
        sim_reportf("warning", "%s:%u: kernel %s reads %s %s, which neither the PTX nor the "
                    "launch file initialises: it holds zeros (right for '= 0'; if the host sets "
                    "it with cudaMemcpyToSymbol, add 'var = %s TYPE COUNT INIT' to %s)",
                    r->m->path, x->line, r->k->name, region_kinds[g->kind], g->name, g->name,
                    r->l->path);
    g->watch = false;
}

/* The timing-model address of lane l's local address a: local memory is
 * interleaved per lane, 4 bytes at a time, over the thread's local address
 * space (its frame and call stack). */
sim_addr_t
ptx_mem_local_taddr(const struct ptx_run *r, const struct pblock *b, unsigned w, unsigned l,
                    uint64_t a)
{
    uint64_t gw = b->id * r->wpb + w;
    return PTX_LOCAL_TRACE + ((gw * (r->local_span / 4) + a / 4) * 32 + l) * 4 + a % 4;
}

/* Host memory of lane l's local address a (>= r->local_bytes: the call
 * stack), bytes long; NULL when outside the stack in use. */
static uint8_t *
stack_mem(const struct ptx_run *r, struct pwarp *pw, unsigned l, uint64_t a, unsigned bytes)
{
    const struct ptx_callstack *cs = &pw->cs;
    /* the stack in use ends with the running function's frame */
    uint64_t top = (uint64_t)cs->fp + (r->n_funcs > 0 ? r->funcs[cs->func].frame : 0);
    if (a < r->local_bytes || a + bytes > top || a + bytes - r->local_bytes > cs->mem_cap)
        return NULL;
    return cs->mem + (size_t)l * cs->mem_cap + (a - r->local_bytes);
}

/* Bytes at offset a of the kernel's parameter space, read only. */
static int
param_access(struct ptx_run *r, const struct pblock *b, unsigned w, unsigned l, sim_addr_t a,
             unsigned bytes, const struct xop *x, struct ptx_access *out, struct sim_error *err)
{
    if (a + bytes > r->k->param_bytes || x->kind == XK_ST || x->kind == XK_ATOM ||
        x->kind == XK_RED)
        return mem_error(r, x, b, w, l, "access to the kernel's parameters beyond them, or a "
                         "write", a, err);
    out->p = r->param_blob + a;
    out->space = SIM_SPACE_CONST;
    out->taddr = a;
    return SIM_OK;
}

int
ptx_mem_resolve(struct ptx_run *r, struct pblock *b, unsigned w, unsigned l, unsigned space,
                sim_addr_t a, unsigned bytes, const struct xop *x, struct ptx_access *out,
                struct sim_error *err)
{
    if (bytes > 1 && (a & (bytes - 1)) != 0 && bytes <= 16)
        return mem_error(r, x, b, w, l, "misaligned access", a, err);
    if (space == PS_GENERIC) {
        if (a >= PTX_SHARED_WINDOW && a < PTX_SHARED_WINDOW + PTX_WINDOW_SIZE) {
            space = PS_SHARED;
            a -= PTX_SHARED_WINDOW;
        } else if (a >= PTX_LOCAL_WINDOW && a < PTX_LOCAL_WINDOW + PTX_WINDOW_SIZE) {
            space = PS_LOCAL;
            a -= PTX_LOCAL_WINDOW;
        } else if (a >= PTX_PARAM_WINDOW && a < PTX_PARAM_WINDOW + PTX_WINDOW_SIZE) {
            /* a kernel parameter through its generic address (read only: the
             * program may not write a __grid_constant__ parameter) */
            return param_access(r, b, w, l, a - PTX_PARAM_WINDOW, bytes, x, out, err);
        } else {
            space = PS_GLOBAL;
        }
    }
    if (space == PS_PARAM && !(x->flags & PF_FRAME))  /* ld.param [%rd]: an offset */
        return param_access(r, b, w, l, a, bytes, x, out, err);
    struct pblock *sb = b;
    uint8_t remote = 0;
    if (space == PS_SHARED && a >= (UINT64_C(1) << PTX_CLUSTER_SHIFT)) {
        /* distributed shared memory: another block of the cluster */
        uint32_t off;
        sb = ptx_cluster_shared(r, b, a, &off);
        if (sb == NULL)
            return mem_error(r, x, b, w, l, "shared::cluster access to a rank outside the "
                             "block's cluster", a, err);
        remote = sb != b;
        a = off;
    }
    switch (space) {
    case PS_SHARED:
        if (a + bytes > r->shared_bytes) {
            char what[256];
            snprintf(what, sizeof what, "out-of-bounds shared-memory access of %u bytes at "
                     "offset %" PRIu64 ": the block has %u bytes (%u static, %u dynamic: launch "
                     "key smem)", bytes, a, r->shared_bytes, r->shared_static,
                     r->shared_bytes - r->shared_static);
            return mem_error(r, x, b, w, l, what, a, err);
        }
        out->p = sb->smem + a;
        out->space = SIM_SPACE_SHARED;
        out->taddr = a;
        out->remote = remote;
        out->owner = sb;
        return SIM_OK;
    case PS_LOCAL:
    case PS_PARAM: {             /* .param: a frame's parameters and call arguments */
        if (a + bytes > r->local_bytes) {
            out->p = stack_mem(r, &b->warps[w], l, a, bytes);
            if (out->p == NULL) {
                char what[256];
                snprintf(what, sizeof what, "out-of-bounds local-memory access of %u bytes at "
                         "offset %" PRIu64 ": past the thread's %u bytes of local memory and its "
                         "call stack", bytes, a, r->local_bytes);
                return mem_error(r, x, b, w, l, what, a, err);
            }
        } else {
            out->p = b->local + ((size_t)w * 32 + l) * r->local_bytes + a;
        }
        out->space = SIM_SPACE_LOCAL;
        out->taddr = ptx_mem_local_taddr(r, b, w, l, a);
        return SIM_OK;
    }
    default: {
        struct region *g = ptx_mem_region(r, a, bytes);
        if (g == NULL)
            return global_fault(r, x, b, w, l, a, bytes, err);
        if (g->kind == RK_FREED) {   /* (watch is set too: the fast path comes here) */
            char what[320];
            snprintf(what, sizeof what, "use after free: global-memory access of %u bytes at "
                     "offset %" PRIu64 " of %s, which the program freed (cudaFree)", bytes,
                     a - g->base, g->name);
            return mem_error(r, x, b, w, l, what, a, err);
        }
        if (g->watch)
            watch_access(r, g, x, x->kind == XK_ST || x->kind == XK_WSTORE ||
                                  x->kind == XK_STMATRIX || x->kind == XK_RED);
        out->p = g->ptr + (a - g->base);
        out->space = space == PS_CONST ? SIM_SPACE_CONST : SIM_SPACE_GLOBAL;
        out->taddr = g->tbase + (a - g->base);
        return SIM_OK;
    }
    }
}

int
ptx_mem_peek(struct ptx_run *r, struct pblock *b, unsigned w, unsigned l, sim_addr_t a, void *buf,
             unsigned n, const struct xop *x, struct sim_error *err)
{
    uint8_t *dst = buf;
    for (unsigned i = 0; i < n; i++) {   /* byte by byte: a string may end a region */
        struct ptx_access acc;
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, w, l, PS_GENERIC, a + i, 1, x, &acc, err));
        dst[i] = *acc.p;
    }
    return SIM_OK;
}

/* ---- the layout --------------------------------------------------------- */

static sim_addr_t
align_up(sim_addr_t x, sim_addr_t a)
{
    return (x + a - 1) / a * a;
}

/* The `var` line for module variable sym: its name, or for a name C++
 * mangled in a namespace (_ZN2ns5coeffE) the last identifier (coeff) or
 * the namespace path written with :: (ns::coeff).  -1: none. */
static int
var_of(const struct launch *l, const char *sym)
{
    int i = launch_find_var(l, sym);
    if (i >= 0 || strncmp(sym, "_ZN", 3) != 0)
        return i;
    char plain[256] = "";
    const char *last = NULL;
    size_t n = 0;
    for (const char *p = sym + 3; *p >= '0' && *p <= '9';) {
        char *end;
        unsigned long len = strtoul(p, &end, 10);
        if (len == 0 || strlen(end) < len || n + len + 3 > sizeof plain)
            return -1;
        if (n > 0) {
            memcpy(plain + n, "::", 2);
            n += 2;
        }
        memcpy(plain + n, end, len);
        last = plain + n;
        n += len;
        plain[n] = '\0';
        p = end + len;
    }
    if (last == NULL)
        return -1;
    i = launch_find_var(l, plain);
    return i >= 0 ? i : launch_find_var(l, last);
}

int
ptx_mem_layout(struct ptx_run *r, struct sim_error *err)
{
    struct launch *l = r->l;
    struct ptx_kernel *k = r->k;
    struct ptx_module *m = r->m;

    /* the arguments that are parameters (a `mem` line is none) */
    uint32_t na = 0, surplus = 0;
    for (uint32_t i = 0; i < l->n_args; i++)
        if (!l->args[i].unbound && na++ == k->n_params)
            surplus = i;
    if (na != k->n_params) {
        /* point at the first surplus arg, else at the kernel line */
        unsigned line = na > k->n_params ? l->args[surplus].line : l->line_kernel;
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s:%u: kernel %s takes %u parameter%s, the launch file gives %u arg%s",
                             l->path, line, k->name, k->n_params, k->n_params == 1 ? "" : "s",
                             na, na == 1 ? "" : "s");
    }
    r->regions = xcalloc(l->n_args + m->n_syms + 2, sizeof *r->regions);
    r->msym_addr = xcalloc(m->n_syms + 1, sizeof *r->msym_addr);
    r->msym_data = xcalloc(m->n_syms + 1, sizeof *r->msym_data);
    bool *var_used = xcalloc(l->n_vars + 1, sizeof *var_used);
    sim_addr_t tcur = PTX_GLOBAL_BASE;   /* the timing layout: compact */
    for (uint32_t i = 0; i < l->n_args; i++) {
        struct launch_arg *a = &l->args[i];
        if (!a->buffer)
            continue;
        a->addr = PTX_GLOBAL_BASE + (sim_addr_t)r->n_regions * PTX_REGION_STRIDE;
        r->regions[r->n_regions++] = (struct region){ .base = a->addr, .tbase = tcur,
                                                      .size = a->bytes, .ptr = a->data,
                                                      .name = a->name, .kind = RK_BUFFER,
                                                      .line = a->line };
        tcur = align_up(tcur + a->bytes + 4096, 4096);     /* a GPU allocator's gap */
    }
    for (uint32_t i = 0; i < m->n_syms; i++) {
        struct ptx_sym *s = &m->syms[i];
        if (s->space != PS_GLOBAL && s->space != PS_CONST)
            continue;
        if (s->size > (UINT64_C(1) << 32)) {
            free(var_used);
            return sim_error_set(err, SIM_ERR_NOMEM, "%s: variable %s is larger than 4 GiB",
                                 m->path, s->name);
        }
        int vi = var_of(l, s->name);
        struct launch_arg *v = vi >= 0 ? &l->vars[vi] : NULL;
        if (v != NULL && v->bytes != s->size) {
            free(var_used);
            return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: variable %s is %" PRIu64 " bytes in "
                                 "%s, the launch file gives %" PRIu64 " x %s = %" PRIu64 " bytes",
                                 l->path, v->line, s->name, s->size, m->path, v->count,
                                 launch_type_name(v->type), v->bytes);
        }
        uint8_t *mem;
        if (v != NULL) {
            var_used[vi] = true;
            mem = v->data;           /* the launch's memory (outputs see what the kernel wrote) */
        } else {
            mem = r->msym_data[i] = xcalloc(1, s->size ? s->size : 1);
            if (s->init != NULL)
                memcpy(mem, s->init, s->size);
        }
        r->msym_addr[i] = PTX_GLOBAL_BASE + (sim_addr_t)r->n_regions * PTX_REGION_STRIDE;
        r->regions[r->n_regions++] = (struct region){
            .base = r->msym_addr[i], .tbase = tcur, .size = s->size, .ptr = mem,
            .name = s->name, .kind = s->space == PS_CONST ? RK_CONST : RK_GLOBAL,
            .watch = v == NULL && s->init == NULL, .line = v != NULL ? v->line : 0 };
        tcur = align_up(tcur + s->size + 4096, 4096);
    }
    if (ptx_module_calls_malloc(m)) {    /* the device heap, last */
        r->own_heap.mem = xcalloc(1, PTX_HEAP_BYTES);
        r->own_heap.size = PTX_HEAP_BYTES;
        r->own_heap.base = PTX_GLOBAL_BASE + (sim_addr_t)r->n_regions * PTX_REGION_STRIDE;
        r->regions[r->n_regions++] = (struct region){
            .base = r->own_heap.base, .tbase = tcur, .size = PTX_HEAP_BYTES,
            .ptr = r->own_heap.mem, .name = "device heap (malloc)", .kind = RK_BUFFER };
    }
    for (uint32_t i = 0; i < l->n_vars; i++)
        if (!var_used[i]) {
            int rc = sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: %s declares no .const or .global "
                                   "variable called %s (var = sets a __constant__ or __device__ "
                                   "variable)", l->path, l->vars[i].line, m->path,
                                   l->vars[i].name);
            free(var_used);
            return rc;
        }
    free(var_used);
    /* the parameter space */
    r->param_blob = xcalloc(1, k->param_bytes ? k->param_bytes : 1);
    for (uint32_t i = 0, ai = 0; i < k->n_params; i++) {
        const struct ptx_sym *p = &k->params[i];
        while (l->args[ai].unbound)
            ai++;
        const struct launch_arg *a = &l->args[ai++];
        uint64_t bytes = a->buffer ? (m->address_size == 32 ? 4 : 8) : a->bytes;
        if (a->tmap) {           /* a CUtensorMap by value: .param .align 64 .b8 p[128] */
            if (p->size != PTX_TMAP_BYTES)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: argument %s is a tensor map "
                                     "(128 bytes) but parameter %u of %s (%s) is %" PRIu64
                                     " bytes", l->path, a->line, a->name, i, k->name, p->name,
                                     p->size);
            struct ptx_tmap tm = a->tm;
            tm.gaddr = l->args[a->tmap_buffer].addr + a->tmap_offset;
            ptx_tmap_encode(&tm, r->param_blob + p->offset);
            continue;
        }
        if (bytes != p->size)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s:%u: argument %s is %" PRIu64 " bytes but parameter %u of %s "
                                 "(%s, .%s) is %" PRIu64, l->path, a->line, a->name, bytes, i,
                                 k->name, p->name, ptx_type_name(p->type), p->size);
        bool pf = p->type == PT_F32 || p->type == PT_F64 || p->type == PT_F16;
        bool pint = p->type != PT_NONE && !pf && p->type != PT_B8 && p->type != PT_B16 &&
                    p->type != PT_B32 && p->type != PT_B64;
        if (!a->buffer && ((pf && !launch_type_is_float(a->type)) ||
                           (pint && launch_type_is_float(a->type))))
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s:%u: argument %s is %s but parameter %u of %s (%s) is .%s",
                                 l->path, a->line, a->name, launch_type_name(a->type), i, k->name,
                                 p->name, ptx_type_name(p->type));
        uint64_t v = a->buffer ? a->addr : a->value;
        memcpy(r->param_blob + p->offset, &v, bytes);
    }
    return SIM_OK;
}

bool
ptx_module_calls_malloc(const struct ptx_module *m)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (!m->funcs[i].defined && strcmp(m->funcs[i].name, "malloc") == 0)
            return true;
    return false;
}
