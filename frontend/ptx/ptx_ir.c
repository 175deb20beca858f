/*
 * ptx_ir.c - the PTX IR's tables, the reconvergence analysis, and module
 * lookup and release (see ptx_ir.h).
 */
#include "frontend/ptx/ptx_ir.h"

#include <stdlib.h>
#include <string.h>

/* ---- tables ------------------------------------------------------------ */

static const char *const op_names[] = {
#define PTXOP(id, name, nsrc, help) name,
#include "frontend/ptx/ptx_ops.def"
#undef PTXOP
};

static const char *const type_names[PT_COUNT] = {
    "", "pred", "b8", "u8", "s8", "b16", "u16", "s16", "f16", "f16x2", "bf16",
    "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64", "b128", "tf32", "bf16x2",
    "u16x2", "s16x2", "e4m3x2", "e5m2x2", "e4m3", "e5m2"
};

static const uint8_t type_bytes[PT_COUNT] = { 0, 1, 1, 1, 1, 2, 2, 2, 2, 4, 2,
                                              4, 4, 4, 4, 8, 8, 8, 8, 16, 4, 4, 4, 4, 2, 2, 1, 1 };

unsigned
ptx_type_bytes(unsigned t)
{
    return t < PT_COUNT ? type_bytes[t] : 0;
}

bool
ptx_type_is_half(unsigned t)
{
    return t == PT_F16 || t == PT_BF16 || t == PT_F16X2 || t == PT_BF16X2;
}

bool
ptx_type_is_float(unsigned t)
{
    return t == PT_F16 || t == PT_F16X2 || t == PT_BF16 || t == PT_BF16X2 || t == PT_F32 ||
           t == PT_F64;
}

bool
ptx_type_is_signed(unsigned t)
{
    return t == PT_S8 || t == PT_S16 || t == PT_S32 || t == PT_S64;
}

const char *
ptx_type_name(unsigned t)
{
    return t < PT_COUNT ? type_names[t] : "?";
}

const char *
ptx_op_name(unsigned op)
{
    return op < PTXOP_COUNT ? op_names[op] : "?";
}

/* ---- reconvergence points ----------------------------------------------- */

/* Immediate post-dominators (Cooper, Harvey and Kennedy's iterative
 * algorithm on the reverse CFG of basic blocks, with a virtual exit node):
 * a divergent branch reconverges at the first instruction of its block's
 * immediate post-dominator; -1 when the paths only meet at the exit. */
int
ptx_ir_reconvergence(struct ptx_kernel *k, const char *path, struct sim_error *err)
{
    uint32_t n = k->n_ins;
    (void)path;
    (void)err;
    if (n == 0)
        return SIM_OK;
    /* basic blocks: leaders are 0, branch targets and the instruction after
     * a branch or an unconditional return */
    uint8_t *leader = xcalloc(n + 1, 1);
    leader[0] = 1;
    for (uint32_t i = 0; i < n; i++) {
        const struct ptx_ins *in = &k->ins[i];
        if (in->op == PTXOP_BRA) {
            leader[in->target] = 1;
            leader[i + 1] = 1;
        } else if (in->op == PTXOP_RET || in->op == PTXOP_EXIT || in->op == PTXOP_TRAP) {
            leader[i + 1] = 1;
        }
    }
    uint32_t *blk_of = xmalloc(n * sizeof *blk_of);
    uint32_t nb = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (leader[i])
            nb++;
        blk_of[i] = nb - 1;
    }
    uint32_t *first = xmalloc(nb * sizeof *first);
    int32_t (*succ)[2] = xmalloc(nb * sizeof *succ);   /* -1 none, (int)nb = exit */
    for (uint32_t i = 0; i < n; i++)
        if (leader[i])
            first[blk_of[i]] = i;
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t last = b + 1 < nb ? first[b + 1] - 1 : n - 1;
        const struct ptx_ins *in = &k->ins[last];
        int32_t fall = last + 1 < n ? (int32_t)blk_of[last + 1] : (int32_t)nb;
        succ[b][0] = succ[b][1] = -1;
        if (in->op == PTXOP_BRA) {
            /* a label after the last instruction is the exit, as in ptx_exec */
            succ[b][0] = (uint32_t)in->target < n ? (int32_t)blk_of[in->target] : (int32_t)nb;
            if (in->guard >= 0)
                succ[b][1] = fall;
        } else if ((in->op == PTXOP_RET || in->op == PTXOP_EXIT || in->op == PTXOP_TRAP) &&
                   in->guard < 0) {
            succ[b][0] = (int32_t)nb;
        } else {
            succ[b][0] = fall;
        }
    }
    /* predecessors in the reverse graph = successors in the CFG; a
     * post-order of the reverse graph from the exit node */
    uint32_t *npred = xcalloc(nb + 1, sizeof *npred);
    for (uint32_t b = 0; b < nb; b++)
        for (int e = 0; e < 2; e++)
            if (succ[b][e] >= 0)
                npred[succ[b][e]]++;
    uint32_t *pstart = xcalloc(nb + 2, sizeof *pstart);
    for (uint32_t v = 0; v <= nb; v++)
        pstart[v + 1] = pstart[v] + npred[v];
    uint32_t *plist = xmalloc((pstart[nb + 1] + 1) * sizeof *plist);
    memset(npred, 0, (nb + 1) * sizeof *npred);
    for (uint32_t b = 0; b < nb; b++)
        for (int e = 0; e < 2; e++)
            if (succ[b][e] >= 0) {
                uint32_t v = (uint32_t)succ[b][e];
                plist[pstart[v] + npred[v]++] = b;   /* reverse edge v -> b */
            }
    int32_t *order = xmalloc((nb + 1) * sizeof *order);   /* post-order number */
    uint32_t *rpo = xmalloc((nb + 1) * sizeof *rpo);
    uint32_t *stack = xmalloc((nb + 1) * sizeof *stack);
    uint32_t *it = xcalloc(nb + 1, sizeof *it);
    for (uint32_t v = 0; v <= nb; v++)
        order[v] = -1;
    uint32_t sp = 0, cnt = 0;
    stack[sp++] = nb;
    order[nb] = -2;               /* on stack */
    while (sp > 0) {
        uint32_t v = stack[sp - 1];
        if (it[v] < npred[v]) {
            uint32_t w = plist[pstart[v] + it[v]++];
            if (order[w] == -1) {
                order[w] = -2;
                stack[sp++] = w;
            }
        } else {
            sp--;
            order[v] = (int32_t)cnt;
            rpo[cnt++] = v;
        }
    }
    /* idom over the reverse graph, processing in reverse post-order */
    int32_t *idom = xmalloc((nb + 1) * sizeof *idom);
    for (uint32_t v = 0; v <= nb; v++)
        idom[v] = -1;
    idom[nb] = (int32_t)nb;
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t r = cnt; r-- > 0;) {
            uint32_t b = rpo[r];
            if (b == nb)
                continue;
            /* reverse-graph predecessors of b = CFG successors of b */
            int32_t nd = -1;
            for (int e = 0; e < 2; e++) {
                int32_t p = succ[b][e];
                if (p < 0 || idom[p] < 0)
                    continue;
                if (nd < 0) {
                    nd = p;
                    continue;
                }
                int32_t a = p, c = nd;
                while (a != c) {
                    while (order[a] < order[c])
                        a = idom[a];
                    while (order[c] < order[a])
                        c = idom[c];
                }
                nd = a;
            }
            if (nd >= 0 && idom[b] != nd) {
                idom[b] = nd;
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        struct ptx_ins *in = &k->ins[i];
        if (in->op != PTXOP_BRA || in->guard < 0)
            continue;
        int32_t pd = idom[blk_of[i]];
        in->reconv = (pd < 0 || pd == (int32_t)nb) ? -1 : (int32_t)first[pd];
    }
    free(idom);
    free(it);
    free(stack);
    free(rpo);
    free(order);
    free(plist);
    free(pstart);
    free(npred);
    free(succ);
    free(first);
    free(blk_of);
    free(leader);
    return SIM_OK;
}

static void
free_syms(struct ptx_sym *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(s[i].name);
        free(s[i].init);
    }
    free(s);
}

/* Release what body k owns (not k itself). */
void
ptx_body_free(struct ptx_kernel *k)
{
    free(k->name);
    free(k->unsupported);
    free_syms(k->params, k->n_params);
    for (uint32_t r = 0; r < k->n_regs; r++)
        free(k->regs[r].name);
    free(k->regs);
    free_syms(k->syms, k->n_syms);
    free(k->ins);
    free(k->vregs);
    for (uint32_t l = 0; l < k->n_labels; l++)
        free(k->labels[l]);
    free(k->labels);
    free(k->label_at);
    for (uint32_t c = 0; c < k->n_calls; c++)
        free(k->calls[c].args);
    free(k->calls);
    memset(k, 0, sizeof *k);
}

void
ptx_module_free(struct ptx_module *m)
{
    if (m == NULL)
        return;
    for (uint32_t i = 0; i < m->n_kernels; i++)
        ptx_body_free(&m->kernels[i]);
    free(m->kernels);
    for (uint32_t i = 0; i < m->n_funcs; i++)
        ptx_body_free(&m->funcs[i]);
    free(m->funcs);
    free_syms(m->syms, m->n_syms);
    for (uint32_t i = 0; i < m->n_mnems; i++)
        free(m->mnems[i]);
    free(m->mnems);
    free(m->mnem_slots);
    free(m->path);
    free(m);
}

/* The identifier of an Itanium-mangled name (_Z6vecaddPKf... -> vecadd). */
static bool
mangled_matches(const char *mangled, const char *name)
{
    if (strncmp(mangled, "_Z", 2) != 0)
        return false;
    const char *p = mangled + 2;
    if (*p == 'N')
        return false;            /* nested (namespaced) names: match the full name only */
    char *end;
    long len = strtol(p, &end, 10);
    if (end == p || len <= 0)
        return false;
    return (size_t)len == strlen(name) && strncmp(end, name, (size_t)len) == 0;
}

struct ptx_kernel *
ptx_module_find(struct ptx_module *m, const char *name)
{
    struct ptx_kernel *found = NULL;
    for (uint32_t i = 0; i < m->n_kernels; i++)
        if (strcmp(m->kernels[i].name, name) == 0)
            return &m->kernels[i];
    for (uint32_t i = 0; i < m->n_kernels; i++) {
        if (mangled_matches(m->kernels[i].name, name)) {
            if (found != NULL)
                return NULL;
            found = &m->kernels[i];
        }
    }
    return found;
}

int32_t
ptx_module_func(const struct ptx_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (strcmp(m->funcs[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* FNV-1a of a mnemonic. */
static uint32_t
mnem_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The slot of text in the hash index: where it is, or the empty slot
 * where it would go. */
static uint32_t
mnem_slot(const struct ptx_module *m, const char *text)
{
    uint32_t mask = m->n_mnem_slots - 1, i = mnem_hash(text) & mask;
    while (m->mnem_slots[i] != 0 && strcmp(m->mnems[m->mnem_slots[i] - 1], text) != 0)
        i = (i + 1) & mask;
    return i;
}

int
ptx_module_mnem(struct ptx_module *m, const char *text)
{
    if (m->n_mnem_slots > 0) {
        uint32_t i = mnem_slot(m, text);
        if (m->mnem_slots[i] != 0)
            return (int)m->mnem_slots[i] - 1;
    }
    if (m->n_mnems >= 65535)
        return -1;
    if (2 * (m->n_mnems + 1) >= m->n_mnem_slots) {
        /* grow the index (and the table, at powers of two) */
        free(m->mnem_slots);
        m->n_mnem_slots = m->n_mnem_slots ? 2 * m->n_mnem_slots : 64;
        m->mnem_slots = xcalloc(m->n_mnem_slots, sizeof *m->mnem_slots);
        for (uint32_t k = 0; k < m->n_mnems; k++)
            m->mnem_slots[mnem_slot(m, m->mnems[k])] = k + 1;
        m->mnems = xrealloc(m->mnems, m->n_mnem_slots / 2 * sizeof *m->mnems);
    }
    size_t n = strlen(text);
    m->mnems[m->n_mnems] = xmalloc(n + 1);
    memcpy(m->mnems[m->n_mnems], text, n + 1);
    m->mnem_slots[mnem_slot(m, text)] = m->n_mnems + 1;
    return (int)m->n_mnems++;
}
