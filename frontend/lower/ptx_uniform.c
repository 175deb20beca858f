/*
 * ptx_uniform.c - which values of a kernel are the same in every lane of
 * a warp (see ptx_uniform.h).
 */
#include "frontend/lower/ptx_uniform.h"

#include <stdlib.h>
#include <string.h>

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
        case SR_LANEMASK_GT: case SR_LANEMASK_GE: case SR_GLOBALTIMER: case SR_CLOCK_HI:
        case SR_GLOBALTIMER_LO: case SR_GLOBALTIMER_HI:
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
           x->opclass == SIM_OPC_INT_WIDE || x->opclass == SIM_OPC_SETP;
}

/* Could x's result be the same in every lane when its sources are (any
 * register operation or a parameter; not a load, whose address may be,
 * but whose memory a store of another lane may change)? */
static bool
invariant_kind(const struct xop *x)
{
    return x->kind == XK_PARAM || x->kind == XK_ALU;
}

/* The least fixed point: nonuni[id] for every register a lane may hold a
 * value of its own in, given which instructions can make one that is not
 * (kind) -- a register is uniform when every instruction writing it is of
 * that kind, reads only uniform values and no lane special register, is
 * unguarded or guarded by a uniform predicate, and lies outside the region
 * of a branch on a non-uniform predicate (from the branch or its target to
 * its reconvergence point). */
static void
fixed_point(const struct ptx_run *r, bool (*kind)(const struct xop *), bool *nonuni,
            uint32_t nid, bool *divergent, const uint32_t *fend)
{
    uint32_t n = r->n_x;
    for (bool changed = true; changed;) {
        changed = false;
        memset(divergent, 0, n * sizeof *divergent);
        for (uint32_t i = 0; i < n; i++) {
            const struct xop *x = &r->x[i];
            if (x->kind != XK_BRA || x->guard < 0 || !nonuni[x->guard])
                continue;
            uint32_t lo = x->target >= 0 && (uint32_t)x->target < i ? (uint32_t)x->target : i + 1;
            uint32_t hi = x->reconv >= 0 && (uint32_t)x->reconv <= n ? (uint32_t)x->reconv
                                                                       : fend[i];
            for (uint32_t j = lo; j < hi; j++)
                divergent[j] = true;
        }
        for (uint32_t i = 0; i < n; i++) {
            const struct xop *x = &r->x[i];
            bool nu = !kind(x) || divergent[i] || reads_lane_sreg(r, x) ||
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
}

/* ptxas keeps values that are the same in every lane of a warp (loop
 * counters and trip counts, block offsets) in uniform registers and
 * computes them on the uniform datapath (UIADD3, UMOV, ULDC, ...): the
 * integer operations of fixed_point's rules.  The integer adds, moves and
 * logic that write one become class `uniform` (op.uniform.*: on the H100 a
 * uniform result reaches a vector instruction 6 cycles after it issues,
 * the SASS stall counts of UIADD3 -> ISETP).  A value of any type can be
 * the same in every lane (a float parameter, its reciprocal): an
 * instruction whose sources all are gets inv_srcs[i], and a branch of its
 * expansion cannot diverge. */
/* Is branch i the retry of an mbarrier wait (`W: mbarrier.try_wait p, ...;
 * @!p bra W;`)?  ptxas moves the retry out of line: the wait falls through
 * to the code after it, with no divergence region (no BSSY/BSYNC:
 * traces/sm90/bulk.sass). */
static bool
wait_retry(const struct ptx_run *r, uint32_t i)
{
    const struct xop *x = &r->x[i];
    const struct xop *w = i > 0 ? &r->x[i - 1] : NULL;
    return w != NULL && x->target == (int32_t)(i - 1) && w->kind == XK_MBAR &&
           (w->mode == PM_MB_TRY || w->mode == PM_MB_TEST);
}

void
ptx_uniform_mark(struct ptx_run *r, bool *div_branch, bool *inv_srcs)
{
    uint32_t nid = r->npred + r->nvar32 + r->nvar64 + 1, n = r->n_x;
    bool *nonuni = xcalloc(nid, sizeof *nonuni), *nonvar = xcalloc(nid, sizeof *nonvar);
    bool *divergent = xcalloc(n ? n : 1, sizeof *divergent);
    uint32_t *fend = xmalloc((n ? n : 1) * sizeof *fend);   /* the end of each one's body */
    for (uint32_t f = 0; f < r->n_funcs; f++)
        for (int32_t i = r->funcs[f].entry; i < r->funcs[f].end; i++)
            fend[i] = (uint32_t)r->funcs[f].end;
    fixed_point(r, invariant_kind, nonvar, nid, divergent, fend);
    for (uint32_t i = 0; i < n; i++) {
        const struct xop *x = &r->x[i];
        bool inv = x->guard < 0 || !nonvar[x->guard];
        for (unsigned k = 0; k < x->n_src && inv; k++)
            inv = x->src[k] < nid && !nonvar[x->src[k]];
        inv_srcs[i] = inv && !reads_lane_sreg(r, x);
    }
    fixed_point(r, uniform_kind, nonuni, nid, divergent, fend);
    for (uint32_t i = 0; i < n; i++) {
        struct xop *x = &r->x[i];
        if (x->kind == XK_ALU && x->op == PTXOP_SETP && x->opclass == SIM_OPC_FP32)
            x->opclass = SIM_OPC_SETP;      /* FSETP: the ALU, and the predicate latency */
        if ((x->kind != XK_ALU && x->kind != XK_PARAM) ||
            (x->opclass != SIM_OPC_INT && x->opclass != SIM_OPC_INT_MUL &&
             x->opclass != SIM_OPC_INT_WIDE) || x->n_dst == 0)
            continue;
        bool uni = true;
        for (unsigned k = 0; k < x->n_dst; k++)
            uni = uni && x->dst[k] < nid && !nonuni[x->dst[k]];
        if (uni)
            x->opclass = SIM_OPC_UNIFORM;
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct xop *x = &r->x[i];
        div_branch[i] = x->kind == XK_BRA && x->guard >= 0 && nonuni[x->guard] && !wait_retry(r, i);
    }
    free(nonuni);
    free(nonvar);
    free(divergent);
    free(fend);
}
