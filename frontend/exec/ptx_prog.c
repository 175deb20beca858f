/*
 * ptx_prog.c - the memory and modules of a CUDA program's device (see
 * ptx_prog.h).
 *
 * Invariants: regions[] is sorted by base and its live regions never
 * overlap; a device address is handed out again only to an allocation of
 * the size it had, after it was freed (freed[]: the most recent last); the
 * host memory of a module variable belongs to the program (a run borrows
 * it through its copy of regions[]).
 */
#include "frontend/exec/ptx_prog.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_exec.h"
#include "frontend/exec/ptx_wgmma.h"
#include "frontend/ptx/ptx_parse.h"

struct pmod {
    struct ptx_module *m;
    char *ptx_path;              /* a file with its text (ptxas -v), or NULL */
    sim_addr_t *sym_addr;        /* per module symbol: device address (0: not global/const) */
};

/* What parked blocks fit: the run's kernel and its block storage sizes. */
struct park_key {
    const struct ptx_kernel *k;
    struct ptx_block_sizes sz;
};

struct ptx_prog {
    struct ptx_heap heap;        /* device malloc's, made for the first module that calls it */
    uint64_t heap_bytes;         /* its size when it is made */
    struct pblock *parked;       /* a finished run's blocks, or NULL */
    uint32_t n_parked;
    struct park_key park;
    struct region *regions;      /* sorted by base; names owned (xstrdup) */
    uint32_t n_regions, cap_regions;
    sim_addr_t *freed;           /* bases of freed allocations, the most recent last (at
                                    most PTX_PROG_FREED: the oldest are forgotten) */
    uint32_t n_freed;
    sim_addr_t next_base;        /* the next allocation's device address */
    sim_addr_t tcur;             /* the next timing-model address */
    struct pmod *mods;
    uint32_t n_mods;
    struct ptx_counters cnt;
};

struct ptx_prog *
ptx_prog_new(void)
{
    struct ptx_prog *p = xcalloc(1, sizeof *p);
    p->next_base = PTX_PROG_BASE;
    p->tcur = PTX_GLOBAL_BASE;
    p->heap_bytes = PTX_HEAP_BYTES;
    return p;
}

int
ptx_prog_set_heap(struct ptx_prog *p, uint64_t bytes, struct sim_error *err)
{
    if (p->heap.base != 0 && bytes != p->heap.size)
        return sim_error_set(err, SIM_ERR_USAGE, "the device heap exists already (a kernel "
                             "calling malloc has been loaded): its size is set before that");
    if (bytes < 16 || bytes > (UINT64_C(1) << 36))
        return sim_error_set(err, SIM_ERR_USAGE, "a device heap of %" PRIu64 " bytes (16 bytes "
                             "to 64 GB)", bytes);
    p->heap_bytes = bytes;
    return SIM_OK;
}

uint64_t
ptx_prog_heap(const struct ptx_prog *p)
{
    return p->heap.base != 0 ? p->heap.size : p->heap_bytes;
}

void
ptx_prog_free(struct ptx_prog *p)
{
    if (p == NULL)
        return;
    for (uint32_t i = 0; i < p->n_regions; i++) {
        free((char *)p->regions[i].name);
        if (!p->regions[i].host)         /* mapped host memory is the program's */
            free(p->regions[i].ptr);
    }
    free(p->regions);
    free(p->freed);
    ptx_exec_blocks_free(p->parked, p->n_parked, p->park.sz.wpb);
    for (uint32_t i = 0; i < p->n_mods; i++) {
        ptx_module_free(p->mods[i].m);
        free(p->mods[i].ptx_path);
        free(p->mods[i].sym_addr);
    }
    free(p->mods);
    free(p);
}

/* Index of the region holding addr (live or freed), or -1. */
static int64_t
find(const struct ptx_prog *p, sim_addr_t addr)
{
    uint32_t lo = 0, hi = p->n_regions;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (p->regions[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const struct region *g = &p->regions[lo - 1];
    return addr - g->base < (g->size ? g->size : 1) ? (int64_t)lo - 1 : -1;
}

static struct region *
insert(struct ptx_prog *p, sim_addr_t base)
{
    if (p->n_regions == p->cap_regions) {
        p->cap_regions = p->cap_regions ? 2 * p->cap_regions : 16;
        p->regions = xrealloc(p->regions, p->cap_regions * sizeof *p->regions);
    }
    uint32_t i = p->n_regions;
    while (i > 0 && p->regions[i - 1].base > base)
        i--;
    memmove(&p->regions[i + 1], &p->regions[i], (p->n_regions - i) * sizeof *p->regions);
    p->n_regions++;
    memset(&p->regions[i], 0, sizeof p->regions[i]);
    p->regions[i].base = base;
    return &p->regions[i];
}

/* The timing-model address of a new region of `bytes`: compact, 4 KB
 * apart, as a GPU allocator lays allocations out (ptx_mem.c does the same
 * for a launch file's buffers). */
static sim_addr_t
next_tbase(struct ptx_prog *p, uint64_t bytes)
{
    sim_addr_t t = p->tcur;
    p->tcur = (p->tcur + bytes + 4096 + 4095) / 4096 * 4096;
    return t;
}

/* Device allocations above 64 GiB would need more host memory than any
 * machine running this has; say so rather than fail in calloc. */
#define PTX_PROG_MAX_ALLOC (UINT64_C(1) << 36)

/* Freed allocations remembered for reuse. */
#define PTX_PROG_FREED 4096u

/* A freed allocation of exactly `bytes`, the most recently freed, taken
 * out of freed[]; NULL if none. */
static struct region *
reuse_freed(struct ptx_prog *p, uint64_t bytes)
{
    for (uint32_t i = p->n_freed; i-- > 0;) {
        int64_t r = find(p, p->freed[i]);
        if (r < 0 || p->regions[r].kind != RK_FREED || p->regions[r].size != bytes)
            continue;
        memmove(&p->freed[i], &p->freed[i + 1], (p->n_freed - i - 1) * sizeof *p->freed);
        p->n_freed--;
        return &p->regions[r];
    }
    return NULL;
}

static int
new_region(struct ptx_prog *p, uint64_t bytes, const char *what, uint8_t kind, sim_addr_t *addr,
           struct region **out, struct sim_error *err)
{
    if (bytes > PTX_PROG_MAX_ALLOC)
        return sim_error_set(err, SIM_ERR_NOMEM, "%s: %" PRIu64 " bytes is more than smsim can "
                             "back with host memory (64 GiB at most)", what, bytes);
    struct region *g = kind == RK_BUFFER ? reuse_freed(p, bytes) : NULL;
    if (g != NULL) {             /* its address and timing address again */
        g->ptr = xcalloc(1, bytes ? bytes : 1);
        free((char *)g->name);
        g->name = xstrdup(what);
        g->kind = kind;
        g->watch = false;
        *addr = g->base;
        if (out != NULL)
            *out = g;
        return SIM_OK;
    }
    if (p->next_base > UINT64_MAX - PTX_REGION_STRIDE)
        return sim_error_set(err, SIM_ERR_NOMEM, "%s: out of device addresses (a freed "
                             "allocation's is reused only for one of its size)", what);
    sim_addr_t base = p->next_base;
    p->next_base += PTX_REGION_STRIDE;
    g = insert(p, base);
    g->size = bytes;
    g->ptr = xcalloc(1, bytes ? bytes : 1);
    g->name = xstrdup(what);
    g->kind = kind;
    g->tbase = next_tbase(p, bytes);
    *addr = base;
    if (out != NULL)
        *out = g;
    return SIM_OK;
}

/* A __managed__ variable: the program's own memory at its host address,
 * which host code dereferences and kernels address alike. */
static int
managed_region(struct ptx_prog *p, uint64_t bytes, const char *what, sim_addr_t *addr,
               struct region **out, struct sim_error *err)
{
    uint8_t *mem = xcalloc(1, bytes ? bytes : 1);
    SIM_FORWARD_IF_ERROR(ptx_prog_map_host(p, mem, bytes ? bytes : 1, what, false, err));
    int64_t i = find(p, (sim_addr_t)(uintptr_t)mem);
    struct region *g = &p->regions[i];
    g->kind = RK_GLOBAL;
    g->host = false;             /* ours: freed with the program */
    g->size = bytes;
    *addr = g->base;
    *out = g;
    return SIM_OK;
}

int
ptx_prog_alloc(struct ptx_prog *p, uint64_t bytes, const char *what, sim_addr_t *addr,
               struct sim_error *err)
{
    return new_region(p, bytes, what, RK_BUFFER, addr, NULL, err);
}

int
ptx_prog_map_host(struct ptx_prog *p, void *host, uint64_t bytes, const char *what,
                  bool zero_copy, struct sim_error *err)
{
    sim_addr_t a = (sim_addr_t)(uintptr_t)host;
    if (a >= PTX_PROG_BASE || (a >= PTX_SHARED_WINDOW && a < PTX_SHARED_WINDOW + PTX_WINDOW_SIZE) ||
        (a >= PTX_LOCAL_WINDOW && a < PTX_LOCAL_WINDOW + PTX_WINDOW_SIZE) ||
        (a >= PTX_PARAM_WINDOW && a < PTX_PARAM_WINDOW + PTX_WINDOW_SIZE))
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s: unsupported: host memory at %p "
                             "falls in a window smsim keeps for device addresses", what, host);
    for (uint32_t i = 0; i < p->n_regions; i++) {
        const struct region *g = &p->regions[i];
        if (a < g->base + g->size && g->base < a + bytes)
            return sim_error_set(err, SIM_ERR_INTERNAL, "%s: host memory at %p overlaps %s",
                                 what, host, g->name);
    }
    struct region *g = insert(p, a);
    g->size = bytes;
    g->ptr = host;
    g->name = xstrdup(what);
    g->kind = RK_BUFFER;
    g->host = true;              /* the program's memory, not ours */
    g->tbase = next_tbase(p, bytes) + (zero_copy ? SIM_SYSMEM_BASE : 0);
    return SIM_OK;
}

int
ptx_prog_release(struct ptx_prog *p, sim_addr_t addr, void **host_out, struct sim_error *err)
{
    int64_t i = find(p, addr);
    if (host_out != NULL)
        *host_out = NULL;
    if (i < 0 || p->regions[i].base != addr || p->regions[i].kind != RK_BUFFER)
        return sim_error_set(err, SIM_ERR_USAGE, "%#" PRIx64 " is %s", addr,
                             i >= 0 && p->regions[i].kind == RK_FREED ? "freed already"
                             : i >= 0 && p->regions[i].base != addr ? "not the start of an "
                             "allocation" : "no allocation");
    struct region *g = &p->regions[i];
    if (g->host) {               /* mapped host memory: gone from the device's view */
        if (host_out != NULL)
            *host_out = g->ptr;
        free((char *)g->name);
        memmove(g, g + 1, (p->n_regions - (uint32_t)i - 1) * sizeof *g);
        p->n_regions--;
        return SIM_OK;
    }
    free(g->ptr);
    g->ptr = NULL;
    g->kind = RK_FREED;
    g->watch = true;             /* keeps the executor's fast path away (ptx_exec.c) */
    if (p->freed == NULL)
        p->freed = xmalloc(PTX_PROG_FREED * sizeof *p->freed);
    if (p->n_freed == PTX_PROG_FREED)
        memmove(&p->freed[0], &p->freed[1], --p->n_freed * sizeof *p->freed);
    p->freed[p->n_freed++] = addr;
    return SIM_OK;
}

uint8_t *
ptx_prog_host(struct ptx_prog *p, sim_addr_t addr, uint64_t bytes, struct sim_error *err)
{
    int64_t i = find(p, addr);
    if (i < 0) {
        sim_error_set(err, SIM_ERR_USAGE, "%#" PRIx64 " is no device address of this program",
                      addr);
        return NULL;
    }
    const struct region *g = &p->regions[i];
    if (g->kind == RK_FREED) {
        sim_error_set(err, SIM_ERR_USAGE, "%#" PRIx64 " is in %s, freed already", addr, g->name);
        return NULL;
    }
    if (addr - g->base + bytes > g->size) {
        sim_error_set(err, SIM_ERR_USAGE, "%" PRIu64 " bytes at offset %" PRIu64 " of %s run "
                      "%" PRIu64 " bytes past its end (%" PRIu64 " bytes)", bytes, addr - g->base,
                      g->name, addr - g->base + bytes - g->size, g->size);
        return NULL;
    }
    return g->ptr + (addr - g->base);
}

bool
ptx_prog_lookup(struct ptx_prog *p, sim_addr_t addr, sim_addr_t *base, uint64_t *size,
                bool *mapped)
{
    int64_t i = find(p, addr);
    if (i < 0 || p->regions[i].kind == RK_FREED)
        return false;
    if (base != NULL)
        *base = p->regions[i].base;
    if (size != NULL)
        *size = p->regions[i].size;
    if (mapped != NULL)
        *mapped = p->regions[i].host;
    return true;
}

int
ptx_prog_load(struct ptx_prog *p, const char *name, const char *text, size_t len,
              const char *ptx_path, uint32_t *mod, struct sim_error *err)
{
    struct ptx_module *m;
    SIM_FORWARD_IF_ERROR(ptx_parse_text(name, text, len, &m, err));
    sim_addr_t *addr = xcalloc(m->n_syms + 1, sizeof *addr);
    for (uint32_t i = 0; i < m->n_syms; i++) {
        const struct ptx_sym *s = &m->syms[i];
        if (s->space != PS_GLOBAL && s->space != PS_CONST)
            continue;
        struct region *g;
        int rc = s->managed ? managed_region(p, s->size, s->name, &addr[i], &g, err)
                 : new_region(p, s->size, s->name, s->space == PS_CONST ? RK_CONST : RK_GLOBAL,
                              &addr[i], &g, err);
        if (rc < 0) {
            free(addr);
            ptx_module_free(m);
            return rc;
        }
        if (s->init != NULL)
            memcpy(g->ptr, s->init, s->size);
    }
    p->mods = xrealloc(p->mods, (p->n_mods + 1) * sizeof *p->mods);
    p->mods[p->n_mods] = (struct pmod){ m, ptx_path ? xstrdup(ptx_path) : NULL, addr };
    *mod = p->n_mods++;
    return SIM_OK;
}

uint32_t
ptx_prog_modules(const struct ptx_prog *p)
{
    return p->n_mods;
}

struct ptx_module *
ptx_prog_module(struct ptx_prog *p, uint32_t mod)
{
    return mod < p->n_mods ? p->mods[mod].m : NULL;
}

const char *
ptx_prog_module_path(const struct ptx_prog *p, uint32_t mod)
{
    return mod < p->n_mods ? p->mods[mod].ptx_path : NULL;
}

int
ptx_prog_symbol(struct ptx_prog *p, uint32_t mod, const char *name, sim_addr_t *addr,
                uint64_t *size, struct sim_error *err)
{
    const struct pmod *pm = &p->mods[mod];
    for (uint32_t i = 0; i < pm->m->n_syms; i++) {
        const struct ptx_sym *s = &pm->m->syms[i];
        if ((s->space == PS_GLOBAL || s->space == PS_CONST) && strcmp(s->name, name) == 0) {
            *addr = pm->sym_addr[i];
            *size = s->size;
            return SIM_OK;
        }
    }
    return sim_error_set(err, SIM_ERR_USAGE, "%s declares no .global or .const variable %s",
                         pm->m->path, name);
}

int
ptx_prog_layout(struct ptx_prog *p, uint32_t mod, struct ptx_run *r, const uint8_t *params,
                struct sim_error *err)
{
    const struct pmod *pm = &p->mods[mod];
    if (p->heap.base == 0 && ptx_module_calls_malloc(pm->m)) {
        SIM_FORWARD_IF_ERROR(new_region(p, p->heap_bytes, "device heap (malloc)", RK_BUFFER,
                                        &p->heap.base, NULL, err));
        p->heap.size = p->heap_bytes;
    }
    r->heap = &p->heap;
    r->regions = xmalloc((p->n_regions + 1) * sizeof *r->regions);
    memcpy(r->regions, p->regions, p->n_regions * sizeof *r->regions);
    r->n_regions = p->n_regions;
    r->last_region = 0;
    r->msym_addr = xcalloc(pm->m->n_syms + 1, sizeof *r->msym_addr);
    memcpy(r->msym_addr, pm->sym_addr, pm->m->n_syms * sizeof *r->msym_addr);
    r->msym_data = NULL;
    r->param_blob = xcalloc(1, r->k->param_bytes ? r->k->param_bytes : 1);
    if (r->k->param_bytes > 0)
        memcpy(r->param_blob, params, r->k->param_bytes);
    r->cnt = &p->cnt;
    return SIM_OK;
}

static struct park_key
key_of(const struct ptx_run *r)
{
    struct park_key k;
    memset(&k, 0, sizeof k);     /* the padding too: keys are compared by memcmp */
    k.k = r->k;
    k.sz = ptx_block_sizes(r);
    return k;
}

void
ptx_prog_park_blocks(struct ptx_prog *p, struct ptx_run *r)
{
    if (r->blocks == NULL)
        return;
    ptx_exec_blocks_free(p->parked, p->n_parked, p->park.sz.wpb);
    for (uint32_t s = 0; s < r->n_slots; s++) {
        struct pblock *b = &r->blocks[s];
        ptx_wgmma_block_free(r, b);
        b->running = false;
        for (uint32_t w = 0; b->allocated && w < r->wpb; w++) {
            b->warps[w].live = false;       /* counted by the next run afresh */
            b->warps[w].bar_counted = false;
        }
    }
    p->parked = r->blocks;
    p->n_parked = r->n_slots;
    p->park = key_of(r);
    r->blocks = NULL;
    r->n_slots = 0;
}

void
ptx_prog_adopt_blocks(struct ptx_prog *p, struct ptx_run *r)
{
    struct park_key k = key_of(r);
    if (p->parked == NULL || r->blocks != NULL || memcmp(&k, &p->park, sizeof k) != 0)
        return;
    r->blocks = p->parked;
    r->n_slots = p->n_parked;
    p->parked = NULL;
    p->n_parked = 0;
}

const struct region *
ptx_prog_regions(const struct ptx_prog *p, uint32_t *n)
{
    *n = p->n_regions;
    return p->regions;
}

struct ptx_counters *
ptx_prog_counters(struct ptx_prog *p)
{
    return &p->cnt;
}
