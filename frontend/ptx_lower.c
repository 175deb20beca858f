/*
 * ptx_lower.c - PTX instructions as the SASS operations ptxas emits for
 * them (see ptx_lower.h; the table is ptx_lower_sm90.def).
 *
 * Invariants: the functional behaviour is the PTX one (exactly one
 * operation of an expansion executes, with the instruction's own operand
 * slots); every operation carries the instruction's guard and PTX line;
 * the operations of one expansion are consecutive and in table order, so
 * the scheduler (ptx_sched.c), which runs after this, sees their
 * dependences through the temporaries' ids and may interleave other
 * instructions between them.
 */
#include "frontend/ptx_lower.h"

#include <stdlib.h>
#include <string.h>

enum lower_key { LK_NONE, LK_EX2_F32, LK_SIN_F32, LK_COS_F32, LK_COUNT };
enum lower_opnd { LO_NN, LO_D, LO_A, LO_T0, LO_T1, LO_P0 };

struct lower_row {
    uint8_t key;                 /* enum lower_key */
    const char *sass;            /* the SASS operation (documentation, dumps) */
    uint8_t opclass;             /* enum sim_opclass */
    uint8_t dst, s1, s2;         /* enum lower_opnd */
};

static const struct lower_row rows[] = {
#define LOWER(key, sass, cls, d, a, b) \
    { LK_##key, sass, SIM_OPC_##cls, LO_##d, LO_##a, LO_##b },
#include "frontend/ptx_lower_sm90.def"
#undef LOWER
};

/* The expansion of x, or LK_NONE. */
static unsigned
key_of(const struct xop *x)
{
    if (x->kind != XK_ALU || x->type != PT_F32 || !(x->flags & PF_APPROX))
        return LK_NONE;
    switch (x->op) {
    case PTXOP_EX2:
        return (x->flags & PF_FTZ) ? LK_NONE : LK_EX2_F32;
    case PTXOP_SIN:
        return LK_SIN_F32;
    case PTXOP_COS:
        return LK_COS_F32;
    default:
        return LK_NONE;
    }
}

/* The table's rows of key k: first index and count. */
static unsigned
rows_of(unsigned k, unsigned *first)
{
    unsigned n = 0;
    *first = 0;
    for (unsigned i = 0; i < SIM_ARRAY_LEN(rows); i++)
        if (rows[i].key == k) {
            if (n == 0)
                *first = i;
            n++;
        }
    return n;
}

unsigned
ptx_lower_count(const struct xop *x)
{
    unsigned first, k = key_of(x);
    return k == LK_NONE ? 1 : rows_of(k, &first);
}

struct temps {
    uint16_t t0, t1, p0;
};

static uint16_t
tmp_id(const struct temps *t, unsigned o)
{
    return o == LO_T0 ? t->t0 : o == LO_T1 ? t->t1 : t->p0;
}

/* Append operand o's ids to list[*n] (at most max). */
static void
add_ids(uint16_t *list, uint8_t *n, unsigned max, const struct xop *orig, const struct temps *t,
        unsigned o)
{
    const uint16_t *ids = NULL;
    unsigned k = 0;
    uint16_t one;
    switch (o) {
    case LO_NN: return;
    case LO_D: ids = orig->dst; k = orig->n_dst; break;
    case LO_A: ids = orig->src; k = orig->n_src; break;
    default: one = tmp_id(t, o); ids = &one; k = 1; break;
    }
    for (unsigned i = 0; i < k; i++) {
        bool seen = false;
        for (unsigned j = 0; j < *n; j++)
            seen = seen || list[j] == ids[i];
        if (!seen && *n < max)
            list[(*n)++] = ids[i];
    }
}

/* The operation of `row` for instruction orig into *out. */
static void
build(const struct lower_row *row, const struct xop *orig, const struct temps *t,
      uint16_t guard_id, bool guarded, struct xop *out)
{
    if (row->dst == LO_D) {
        *out = *orig;            /* the one that computes the PTX result */
        out->opclass = row->opclass;
        add_ids(out->src, &out->n_src, SIM_MAX_SRC, orig, t, row->s1);
        add_ids(out->src, &out->n_src, SIM_MAX_SRC, orig, t, row->s2);
        return;
    }
    memset(out, 0, sizeof *out);
    out->kind = XK_TIMING;
    out->op = orig->op;
    out->type = orig->type;
    out->opcode = orig->opcode;
    out->opclass = row->opclass;
    out->guard = orig->guard;
    out->guard_neg = orig->guard_neg;
    out->line = orig->line;
    out->target = out->reconv = -1;
    add_ids(out->dst, &out->n_dst, SIM_MAX_DST, orig, t, row->dst);
    if (guarded)
        out->src[out->n_src++] = guard_id;
    add_ids(out->src, &out->n_src, SIM_MAX_SRC, orig, t, row->s1);
    add_ids(out->src, &out->n_src, SIM_MAX_SRC, orig, t, row->s2);
}

/* Does x read a special register whose value differs between the lanes
 * of a warp (%tid, %laneid, %lanemask_*, the clocks)? */
static bool
reads_lane_sreg(const struct ptx_run *r, const struct xop *x)
{
    const struct slot *sl[5] = { &x->a, &x->b, &x->c, &x->e, &x->base };
    for (unsigned i = 0; i < 5; i++) {
        if (sl[i]->cls != SC_32 || sl[i]->idx < r->sreg_base ||
            sl[i]->idx >= r->sreg_base + SR_COUNT)
            continue;
        switch (sl[i]->idx - r->sreg_base) {
        case SR_TID_X: case SR_TID_Y: case SR_TID_Z: case SR_LANEID: case SR_CLOCK:
        case SR_CLOCK64: case SR_LANEMASK_EQ: case SR_LANEMASK_LT: case SR_LANEMASK_LE:
        case SR_LANEMASK_GT: case SR_LANEMASK_GE: case SR_GLOBALTIMER:
            return true;
        default:
            break;
        }
    }
    return false;
}

/* Could x's result live in the uniform datapath (an integer or predicate
 * operation, or a parameter)? */
static bool
uniform_kind(const struct xop *x)
{
    if (x->kind == XK_PARAM)
        return true;
    if (x->kind != XK_ALU || x->op == PTXOP_CVT || ptx_type_is_float(x->type))
        return false;
    return x->opclass == SIM_OPC_INT || x->opclass == SIM_OPC_INT_MUL ||
           x->opclass == SIM_OPC_SETP;
}

/* ptxas keeps values that are the same in every lane of a warp (loop
 * counters and trip counts, block offsets) in uniform registers and
 * computes them on the uniform datapath (UIADD3, UMOV, ULDC, ...).  Find
 * them: a register is uniform when every instruction writing it is an
 * integer operation of uniform sources (immediates, parameters, %ctaid,
 * %ntid, %nctaid, %warpid, uniform registers), unguarded or guarded by a
 * uniform predicate, and outside the region of a branch on a non-uniform
 * predicate (from the branch or its target to its reconvergence point);
 * the least fixed point of those rules.  The integer adds, moves and logic
 * that write one become class `uniform` (op.uniform.*: on the H100 a
 * uniform result reaches a vector instruction 6 cycles after it issues,
 * the SASS stall counts of UIADD3 -> ISETP). */
static void
mark_uniform(struct ptx_run *r)
{
    uint32_t nid = r->npred + r->nvar32 + r->nvar64 + 1, n = r->n_x;
    bool *nonuni = xcalloc(nid, sizeof *nonuni);
    bool *divergent = xcalloc(n ? n : 1, sizeof *divergent);
    for (bool changed = true; changed;) {
        changed = false;
        memset(divergent, 0, n * sizeof *divergent);
        for (uint32_t i = 0; i < n; i++) {
            const struct xop *x = &r->x[i];
            if (x->kind != XK_BRA || x->guard < 0 || !nonuni[x->guard])
                continue;
            uint32_t lo = x->target >= 0 && (uint32_t)x->target < i ? (uint32_t)x->target : i + 1;
            uint32_t hi = x->reconv >= 0 && (uint32_t)x->reconv <= n ? (uint32_t)x->reconv : n;
            for (uint32_t j = lo; j < hi; j++)
                divergent[j] = true;
        }
        for (uint32_t i = 0; i < n; i++) {
            const struct xop *x = &r->x[i];
            bool nu = !uniform_kind(x) || divergent[i] || reads_lane_sreg(r, x) ||
                      (x->guard >= 0 && nonuni[x->guard]);
            for (unsigned k = 0; k < x->n_src && !nu; k++)
                nu = x->src[k] < nid && nonuni[x->src[k]];
            for (unsigned k = 0; k < x->n_dst && nu; k++)
                if (x->dst[k] < nid && !nonuni[x->dst[k]]) {
                    nonuni[x->dst[k]] = true;
                    changed = true;
                }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        struct xop *x = &r->x[i];
        if (x->kind == XK_ALU && x->op == PTXOP_SETP && x->opclass == SIM_OPC_FP32)
            x->opclass = SIM_OPC_SETP;      /* FSETP: the ALU, and the predicate latency */
        if ((x->kind != XK_ALU && x->kind != XK_PARAM) || x->opclass != SIM_OPC_INT ||
            x->n_dst == 0)
            continue;
        bool uni = true;
        for (unsigned k = 0; k < x->n_dst; k++)
            uni = uni && x->dst[k] < nid && !nonuni[x->dst[k]];
        if (uni)
            x->opclass = SIM_OPC_UNIFORM;
    }
    free(nonuni);
    free(divergent);
}

int
ptx_lower(struct ptx_run *r, struct sim_error *err)
{
    uint32_t extra = 0, top = r->npred + r->nvar32 + r->nvar64;
    mark_uniform(r);
    for (uint32_t i = 0; i < r->n_x; i++)
        extra += ptx_lower_count(&r->x[i]) - 1;
    if (extra == 0)
        return SIM_OK;
    if (top > PTX_TMP_BASE)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s: kernel %s has %u registers; the "
                             "lowering to SASS operations needs fewer than %u", r->m->path,
                             r->k->name, top, PTX_TMP_BASE);
    uint32_t nx = r->n_x + extra, tmp = 0;
    struct xop *x = xcalloc(nx, sizeof *x);
    int32_t *map = xmalloc((r->n_x + 1) * sizeof *map);
    uint32_t j = 0;
    for (uint32_t i = 0; i < r->n_x; i++) {
        const struct xop *o = &r->x[i];
        unsigned first, k = key_of(o), n = k == LK_NONE ? 0 : rows_of(k, &first);
        map[i] = (int32_t)j;
        if (n == 0) {
            x[j++] = *o;
            continue;
        }
        struct temps t;
        t.t0 = (uint16_t)(PTX_TMP_BASE + tmp++ % PTX_TMP_COUNT);
        t.t1 = (uint16_t)(PTX_TMP_BASE + tmp++ % PTX_TMP_COUNT);
        t.p0 = (uint16_t)(PTX_TMP_BASE + tmp++ % PTX_TMP_COUNT);
        bool guarded = o->guard >= 0;
        uint16_t gid = guarded ? (uint16_t)o->guard : 0;   /* predicate ids are their slots */
        for (unsigned q = 0; q < n; q++)
            build(&rows[first + q], o, &t, gid, guarded, &x[j++]);
    }
    map[r->n_x] = (int32_t)nx;
    for (uint32_t i = 0; i < nx; i++) {
        if (x[i].target >= 0 && (uint32_t)x[i].target <= r->n_x)
            x[i].target = map[x[i].target];
        if (x[i].reconv >= 0 && (uint32_t)x[i].reconv <= r->n_x)
            x[i].reconv = map[x[i].reconv];
    }
    free(map);
    free(r->x);
    r->x = x;
    r->n_x = nx;
    return SIM_OK;
}
