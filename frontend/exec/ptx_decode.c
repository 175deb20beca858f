/*
 * ptx_decode.c - functional memory layout and instruction decoding for one
 * kernel launch (see ptx_decode.h).
 *
 * Register-file slots: 32-bit file = [registers][special registers]
 * [constants]; 64-bit file = [registers][constants]; predicate file =
 * [registers][constants].  The registers are the kernel's, then those of
 * each function it calls (ptx_call.c links them).  Constants (immediates,
 * symbol addresses, kernel parameters) are deduplicated per file.
 *
 * In a function, .local and .param variables live in the activation's
 * frame: their accesses are marked PF_FRAME (relative to the warp's frame
 * base); ld.param/st.param of a call's arguments and return value are
 * register moves for the timing model (no memory space).
 */
#include "frontend/exec/ptx_decode.h"
#include "frontend/exec/ptx_call.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_mma.h"
#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_decode_int.h"
#include "frontend/exec/ptx_opclass.h"
#include "frontend/exec/ptx_sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int
ptx_dc_err(struct dctx *c, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->func)
        return sim_error_set(c->err, SIM_ERR_FORMAT, "%s:%u: function %s (called by kernel %s): "
                             "%s", c->r->m->path, c->line, c->body->name, c->r->k->name, msg);
    return sim_error_set(c->err, SIM_ERR_FORMAT, "%s:%u: %s", c->r->m->path, c->line, msg);
}

/* ---- operands ----------------------------------------------------------- */

static uint8_t
cls_of_type(unsigned t)
{
    if (t == PT_PRED)
        return SC_PRED;
    return ptx_type_bytes(t) == 8 ? SC_64 : SC_32;
}

static uint8_t
cls_of_reg(const struct ptx_reg *g)
{
    return g->rclass == RC_PRED ? SC_PRED : g->rclass == RC_64 ? SC_64 : SC_32;
}


/* Decode data operand o of type t of ld, ldu, st or cvt (dst: the result),
 * under the relaxed rules of PTX ISA section 9.4.1 ("Operand Size
 * Exceeding Instruction-Type Size"), which those instructions' own
 * sections invoke: a register wider than t may hold the operand when t is a
 * bit-size type, when t is an integer type and the register is not a
 * floating-point one, or when the register is a bit-size one (cvt: not
 * for a .bf16 or .bf16x2 source, nor a .bf16, .bf16x2 or .tf32 result).
 * A source is truncated to t (the executor reads its low bits), a result
 * sign-extended for a signed integer t, else zero-extended (lane_extend).
 * A wider register is one of the 64-bit file for a type of 32 bits or
 * less (registers of 16 and 32 bits share a file, as before). */
static int
data_opnd(struct dctx *c, const struct ptx_opnd *o, unsigned t, bool dst, bool cvt,
          struct slot *out)
{
    uint8_t want = cls_of_type(t);
    if (o->kind == PO_REG && want == SC_32 && cls_of_reg(&c->body->regs[o->reg]) == SC_64) {
        const struct ptx_reg *g = &c->body->regs[o->reg];
        bool tbits = t == PT_B8 || t == PT_B16 || t == PT_B32, tfloat = ptx_type_is_float(t);
        bool ok = tbits || (!tfloat && !ptx_type_is_float(g->type)) ||
                  (tfloat && g->type == PT_B64);
        if (cvt && (t == PT_BF16 || t == PT_BF16X2 || (dst && t == PT_TF32)))
            ok = false;
        if (!ok)
            return ptx_dc_err(c, "register %s (.%s) cannot hold the .%s %s (PTX ISA 9.4.1: a wider "
                        "register may hold an integer or bit-size operand, or a floating-point "
                        "one if it is a bit-size register%s)", g->name, ptx_type_name(g->type),
                        ptx_type_name(t), dst ? "result" : "source",
                        cvt ? "; not cvt's .bf16, .bf16x2 or .tf32" : "");
        want = SC_64;
    }
    return ptx_dc_opnd(c, o, want, t, out, false);
}

/* The value an immediate takes for an operand of type t. */
static uint64_t
imm_value(const struct ptx_opnd *o, unsigned t)
{
    bool fl = ptx_type_is_float(t) && !ptx_type_is_half(t);
    unsigned bytes = ptx_type_bytes(t);
    if (fl && bytes == 4) {
        float f;
        if (o->fimm == 1)
            return (uint32_t)o->imm;
        if (o->fimm == 2) {
            double d;
            memcpy(&d, &o->imm, 8);
            f = (float)d;
        } else {
            f = (float)o->imm;
        }
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    if (fl && bytes == 8) {
        double d;
        if (o->fimm == 2)
            return (uint64_t)o->imm;
        if (o->fimm == 1) {
            float f;
            uint32_t b = (uint32_t)o->imm;
            memcpy(&f, &b, 4);
            d = f;
        } else {
            d = (double)o->imm;
        }
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    uint64_t v = (uint64_t)o->imm;
    if (bytes < 8)
        v &= (UINT64_C(1) << (bytes * 8)) - 1;
    return v;
}

/* Address value of a symbol operand. */
static int
sym_value(struct dctx *c, int32_t sym, uint64_t *v)
{
    struct ptx_run *r = c->r;
    if (sym <= -2) {
        if (!c->func) {          /* a kernel parameter: its offset in the parameter space */
            *v = c->body->params[-sym - 2].offset;
            return SIM_OK;
        }
        return ptx_dc_err(c, "the address of parameter %s cannot be taken",
                    c->body->params[-sym - 2].name);
    }
    const struct ptx_sym *s = &c->body->syms[sym];
    switch (s->space) {
    case PS_LOCAL:
        if (c->func)             /* in the frame: XK_FRAMEADDR (mov) */
            return ptx_dc_err(c, "the address of %s (a function's .local variable) is taken with "
                        "mov", s->name);
        *v = s->offset;
        return SIM_OK;
    case PS_SHARED:
        if (s->external) {           /* dynamic shared memory: after every static variable */
            *v = r->k->shared_bytes + r->smem_funcs;
            return SIM_OK;
        }
        if (c->func && s->type == 0xff) {
            /* a module .shared variable: where the kernel placed it */
            for (uint32_t i = 0; i < r->k->n_syms; i++) {
                const struct ptx_sym *ks = &r->k->syms[i];
                if (ks->space == PS_SHARED && ks->type == 0xff && strcmp(ks->name, s->name) == 0) {
                    *v = ks->offset;
                    return SIM_OK;
                }
            }
            return ptx_dc_err(c, "function %s uses the .shared variable %s, which kernel %s does not "
                        "(unsupported)", c->body->name, s->name, r->k->name);
        }
        *v = (c->func ? c->f->smem_base : 0) + s->offset;   /* a function's own: ptx_call_link */
        return SIM_OK;
    case PS_GLOBAL:
    case PS_CONST:
        if (s->type != 0xff)
            return ptx_dc_err(c, "symbol %s has no address", s->name);
        *v = r->msym_addr[s->offset];
        return SIM_OK;
    default:
        return ptx_dc_err(c, "the address of %s cannot be taken", s->name);
    }
}

/* The slot of register g of the body being decoded. */
static uint32_t
reg_slot(const struct dctx *c, const struct ptx_reg *g)
{
    return g->index + (g->rclass == RC_PRED ? c->f->rp : g->rclass == RC_64 ? c->f->r64
                                                                             : c->f->r32);
}

/* Decode operand o to a slot of class want for a value of type t.
 * allow_sink: '_' is accepted (a destination that is discarded). */
int
ptx_dc_opnd(struct dctx *c, const struct ptx_opnd *o, uint8_t want, unsigned t, struct slot *out,
            bool allow_sink)
{
    struct ptx_run *r = c->r;
    out->cls = want;
    switch (o->kind) {
    case PO_REG: {
        const struct ptx_reg *g = &c->body->regs[o->reg];
        if (cls_of_reg(g) != want)
            return ptx_dc_err(c, "register %s (.%s) has the wrong size for a .%s operand", g->name,
                        ptx_type_name(g->type), want == SC_PRED ? "pred" : ptx_type_name(t));
        out->idx = reg_slot(c, g);
        return SIM_OK;
    }
    case PO_FUNC:
        if (want != SC_64)
            return ptx_dc_err(c, "a function's address is 64 bits");
        out->idx = ptx_dc_const64(c, PTX_FUNC_BASE + 16 * (uint64_t)o->sym);
        return SIM_OK;
    case PO_IMM:
        if (want == SC_PRED)
            out->idx = ptx_dc_constp(c, o->imm != 0);
        else if (want == SC_64)
            out->idx = ptx_dc_const64(c, imm_value(o, t));
        else
            out->idx = ptx_dc_const32(c, (uint32_t)imm_value(o, t));
        return SIM_OK;
    case PO_SREG:
        if (ptx_opclass_sreg_is_clock(o->sreg))
            return ptx_dc_err(c, "%%clock, %%clock_hi, %%clock64 and %%globaltimer* can only be read "
                        "by mov");
        if (o->sreg == SR_IS_EXPLICIT_CLUSTER) {
            /* a launch without an explicit cluster (smsim has no cluster launch) */
            if (want != SC_PRED)
                return ptx_dc_err(c, "%%is_explicit_cluster is a predicate");
            out->idx = ptx_dc_constp(c, false);
            return SIM_OK;
        }
        if (want != SC_32)
            return ptx_dc_err(c, "a special register here must be read as 32 bits (mov reads the "
                        "64-bit %%gridid, %%current_graph_exec and %%pm*_64; use cvt to "
                        "widen the others)");
        if (o->sreg >= SR_RSV_BEGIN && o->sreg <= SR_RSV_1)
            c->reserved_smem = true;
        if (o->sreg == SR_ENVREG_GRID_HI || o->sreg == SR_ENVREG_GRID_LO)
            r->uses_grid_ws = true;
        out->idx = r->nvar32 + o->sreg;
        return SIM_OK;
    case PO_SYM: {
        uint64_t v;
        SIM_FORWARD_IF_ERROR(sym_value(c, o->sym, &v));
        v += (uint64_t)o->imm;
        if (want == SC_64)
            out->idx = ptx_dc_const64(c, v);
        else if (want == SC_32)
            out->idx = ptx_dc_const32(c, (uint32_t)v);
        else
            return ptx_dc_err(c, "a symbol address is not a predicate");
        return SIM_OK;
    }
    case PO_SINK:
        if (allow_sink) {
            out->cls = SC_NONE;
            return SIM_OK;
        }
        return ptx_dc_err(c, "'_' is not allowed here");
    default:
        return ptx_dc_err(c, "unexpected operand kind for '%s'", ptx_op_name(0));
    }
}

/* ---- timing classification ------------------------------------------------ */



/* ---- instructions -------------------------------------------------------- */

static uint16_t
reg_id(const struct ptx_run *r, const struct slot *s)
{
    uint32_t id = s->cls == SC_PRED ? s->idx : s->cls == SC_32 ? r->id32 + s->idx : r->id64 + s->idx;
    return (uint16_t)id;
}

/* Is slot s an ordinary register (not a constant or special register)? */
static bool
is_var(const struct ptx_run *r, const struct slot *s);

bool
ptx_decode_reg_id(const struct ptx_run *r, const struct slot *s, uint16_t *id)
{
    if (!is_var(r, s))
        return false;
    *id = reg_id(r, s);
    return true;
}

static bool
is_var(const struct ptx_run *r, const struct slot *s)
{
    switch (s->cls) {
    case SC_32: return s->idx < r->nvar32;
    case SC_64: return s->idx < r->nvar64;
    case SC_PRED: return s->idx < r->nvarp;
    default: return false;
    }
}

void
ptx_dc_add_dst(struct ptx_run *r, struct xop *x, const struct slot *s)
{
    if (!is_var(r, s))
        return;
    if (x->n_dst < SIM_MAX_DST)
        x->dst[x->n_dst++] = reg_id(r, s);
    else
        x->ids_truncated = true;
}

void
ptx_dc_add_src(struct ptx_run *r, struct xop *x, const struct slot *s)
{
    if (!is_var(r, s))
        return;
    for (unsigned i = 0; i < x->n_src; i++)
        if (x->src[i] == reg_id(r, s))
            return;              /* a register read twice is one dependence */
    if (x->n_src < SIM_MAX_SRC)
        x->src[x->n_src++] = reg_id(r, s);
    else
        x->ids_truncated = true;
}

/* Memory operand [base + off] / [sym + off] / [abs]. */
int
ptx_dc_mem_operand(struct dctx *c, const struct ptx_opnd *o, struct xop *x)
{
    if (o->kind != PO_MEM)
        return ptx_dc_err(c, "expected a memory operand [addr] for '%s'", ptx_op_name(x->op));
    x->off = o->imm;
    x->base.cls = SC_NONE;
    if (o->reg >= 0) {
        const struct ptx_reg *g = &c->body->regs[o->reg];
        if (g->rclass == RC_PRED)
            return ptx_dc_err(c, "a predicate cannot be an address");
        x->base.cls = g->rclass == RC_64 ? SC_64 : SC_32;
        x->base.idx = reg_slot(c, g);
        if (x->space == PS_PARAM && c->func)
            return ptx_dc_err(c, "ld.param/st.param through a register is unsupported in a "
                              "function");
    } else if (o->sym <= -2) {
        const struct ptx_sym *p = &c->body->params[-o->sym - 2];
        if (x->space != PS_PARAM)
            return ptx_dc_err(c, "parameter %s accessed outside the .param space", p->name);
        if (p->space == PS_REG)
            return ptx_dc_err(c, "parameter %s is a register, not in the .param space", p->name);
        x->off += (int64_t)p->offset;
        if (c->func) {           /* a function's parameters: in its frame */
            x->off += c->f->param_off;
            x->flags |= PF_FRAME;
        }
    } else if (o->sym >= 0) {
        const struct ptx_sym *s = &c->body->syms[o->sym];
        if (s->space == PS_PARAM) {
            /* a call's argument or return value: in the caller's frame */
            if (x->space != PS_PARAM)
                return ptx_dc_err(c, "the .param variable %s accessed outside the .param space",
                            s->name);
            x->off += (int64_t)(c->f->site_off + s->offset);
            x->flags |= PF_FRAME;
            return SIM_OK;
        }
        if (s->space == PS_LOCAL && c->func) {
            if (x->space == PS_GENERIC)
                x->space = PS_LOCAL;
            if (x->space != PS_LOCAL)
                return ptx_dc_err(c, "the .local variable %s accessed outside the .local space",
                            s->name);
            x->off += (int64_t)(c->f->local_off + s->offset);
            x->flags |= PF_FRAME;
            return SIM_OK;
        }
        uint64_t v;
        SIM_FORWARD_IF_ERROR(sym_value(c, o->sym, &v));
        if (x->space == PS_GENERIC) {
            /* a named variable accessed generically: use its own space */
            x->space = s->space == PS_CONST ? PS_CONST : s->space == PS_SHARED ? PS_SHARED
                       : s->space == PS_LOCAL ? PS_LOCAL : PS_GLOBAL;
        }
        x->off += (int64_t)v;
    }
    return SIM_OK;
}

/* cp.async (the non-bulk forms, PTX ISA 9.7.9.25): a copy of 4, 8 or 16
 * bytes from global to shared memory per thread (.cg: 16 only), the rest
 * zero-filled when a src-size smaller than the copy is given; commit_group,
 * wait_group N and wait_all (and those of cp.async.bulk's bulk groups,
 * PF_BULK: ptx_exec.c keeps them apart).  Functionally the copy is done when it
 * executes (a program may not read the destination before its wait).  For
 * the timing model it is a global load (LDGSTS) that writes its group's
 * accumulating register (frontend/async.h), which wait_group N reads for
 * every group but the newest N: the warp goes on until a wait, which holds
 * it until those copies have landed. */
static int
decode_cp_async(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    const struct ptx_opnd *o = in->o;
    if (in->mode == PM_COMMIT) {
        x->kind = XK_NOP;
        return SIM_OK;
    }
    if (in->mode == PM_CP_MB_ARRIVE || in->mode == PM_CP_MB_NOINC) {
        /* cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [addr]: an
         * arrive at the executing block's barrier, done when the thread's
         * earlier copies have landed (ptx_sync.c) */
        if ((in->space != PS_SHARED && in->space != PS_GENERIC) || o[0].kind != PO_MEM)
            return ptx_dc_err(c, "cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]: "
                              "expected a shared-memory barrier address");
        x->kind = XK_MBAR;
        x->mode = in->mode;
        x->space = PS_SHARED;
        SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &o[0], x));
        ptx_dc_add_src(r, x, &x->base);
        x->a.cls = SC_NONE;
        x->d.cls = SC_NONE;
        x->iflags = SIM_IF_LOAD | SIM_IF_STORE;
        return SIM_OK;
    }
    if (in->mode == PM_WAIT || in->mode == PM_WAITALL) {
        x->kind = XK_NOP;        /* its sources are set as it executes (ptx_exec.c) */
        if (in->mode == PM_WAIT && (o[0].kind != PO_IMM || o[0].imm < 0 || o[0].imm > 63))
            return ptx_dc_err(c, "cp.async.wait_group needs a constant group count 0 .. 63");
        x->vec = in->mode == PM_WAIT ? (uint8_t)o[0].imm : 0;
        return SIM_OK;
    }
    if (in->mode != PM_NONE)
        return ptx_dc_err(c, "cp.async: expected .commit_group, .wait_group, .wait_all or a copy "
                    "(cp.async.ca/.cg.shared.global [dst], [src], size)");
    if (in->space != PS_GLOBAL || in->o[0].kind != PO_MEM || in->o[1].kind != PO_MEM)
        return ptx_dc_err(c, "cp.async copies from .global to .shared: cp.async.ca.shared.global "
                    "[dst], [src], cp-size[, src-size]");
    if (o[2].kind != PO_IMM || (o[2].imm != 4 && o[2].imm != 8 && o[2].imm != 16))
        return ptx_dc_err(c, "cp.async: the copy size must be 4, 8 or 16 bytes");
    if ((in->flags & PF_BYPASS_L1) && o[2].imm != 16)
        return ptx_dc_err(c, "cp.async.cg copies 16 bytes");
    x->space = PS_SHARED;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &o[0], x));
    x->base2 = x->base;
    x->off2 = x->off;
    x->space = PS_GLOBAL;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &o[1], x));
    x->kind = XK_CPASYNC;
    x->type = PT_B8;
    x->vec = (uint8_t)o[2].imm;
    x->iflags = SIM_IF_LOAD | ((in->flags & PF_BYPASS_L1) ? SIM_IF_BYPASS_L1 : 0);
    x->a.cls = SC_NONE;
    if (in->nops >= 4)           /* src-size: a constant or a register */
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[3], SC_32, PT_U32, &x->a, false));
    ptx_dc_add_src(r, x, &x->base);
    ptx_dc_add_src(r, x, &x->base2);
    ptx_dc_add_src(r, x, &x->a);
    return SIM_OK;               /* its group's register: set as it executes (ptx_exec.c) */
}

/* A bulk copy's shared-memory operand sh into (base2, off2) and, for a
 * load, its mbarrier operand mb (NULL: none) into (base3, off3). */
static int
bulk_shared(struct dctx *c, const struct ptx_opnd *sh, const struct ptx_opnd *mb, struct xop *x)
{
    x->space = PS_SHARED;
    x->base2.cls = x->base3.cls = SC_NONE;
    if (sh != NULL) {
        SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, sh, x));
        x->base2 = x->base;
        x->off2 = x->off;
    }
    if (mb != NULL) {
        SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, mb, x));
        x->base3 = x->base;
        x->off3 = x->off;
    }
    return SIM_OK;
}

/* cp.async.bulk.tensor.Nd (PTX ISA 9.7.9.27): .shared::cluster.global.tile
 * .mbarrier::complete_tx::bytes [dst], [tmap, {c0, ..}], [mbar] (a load),
 * .global.shared::cta.tile.bulk_group [tmap, {c0, ..}], [src] (a store),
 * each with an optional L2 cache policy last; cp.async.bulk.prefetch
 * .tensor.Nd.L2.global.tile [tmap, {c0, ..}].  x: the tensor map's
 * generic address at (base, off), the shared address at (base2, off2),
 * the mbarrier at (base3, off3), the coordinates in frag[0 .. vec - 1]
 * (executed by ptx_tma.c). */
static int
decode_tensor(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    const struct ptx_opnd *o = in->o;
    bool pf = in->mode == PM_PREFETCH;
    bool g2s = !pf && in->space == PS_SHARED && in->space2 == PS_GLOBAL;
    bool s2g = !pf && in->space == PS_GLOBAL && in->space2 == PS_SHARED;
    unsigned mi = pf || s2g ? 0 : 1, n = in->vec;     /* the tensor map's operand */
    bool mc = (in->xmod & PX_MULTICAST) != 0, i2c = (in->xmod & PX_IM2COL) != 0;
    unsigned offs = i2c && in->frag != 'o', oi = pf ? 2 : 4;  /* im2col offsets: o[oi] */
    unsigned want = (pf ? 2 : g2s ? 4 : 3) + offs + mc + ((in->xmod & PX_CACHE_HINT) != 0);
    if ((!pf && !g2s && !s2g) || (mc && !g2s) || ((in->xmod & PX_REDUCE) && !s2g) || n < 1 ||
        n > 5 || in->nops != want || (i2c && (n < 3 || (offs != 0) == s2g)) ||
        (offs && (o[oi].kind != PO_VEC || o[oi].nvec != n - 2)) ||
        o[mi].kind != PO_MEM || o[mi + 1].kind != PO_VEC || o[mi + 1].nvec != n)
        return ptx_dc_err(c, "unsupported cp.async.bulk.tensor form (supported: .Nd (N 1 .. 5) "
                          ".shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                          "{.multicast::cluster} [dst], [tmap, {c0, ..}], [mbar]{, ctaMask}; "
                          ".global.shared::cta.tile.bulk_group (also cp.reduce.async.bulk"
                          ".tensor.Nd...OP) "
                          "[tmap, {c0, ..}], [src]; cp.async.bulk.prefetch.tensor.Nd.L2.global"
                          ".tile [tmap, {c0, ..}]; each with N coordinates and an optional "
                          ".L2::cache_hint policy last; .im2col (N 3 .. 5) for loads and "
                          "prefetches with {offW, ..} (N - 2 of them) after [mbar] or the "
                          "coordinates, .im2col_no_offs for stores)");
    x->kind = XK_BULK;
    x->vec = (uint8_t)n;
    x->b.cls = SC_NONE;
    if (mc) {
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[4 + offs], SC_32, PT_B16, &x->b, false));
        ptx_dc_add_src(r, x, &x->b);
    }
    for (unsigned i = 0; offs && i < n - 2; i++) {   /* into frag[5 ..] (ptx_tma.c) */
        struct ptx_opnd co = ptx_dc_vec_elem(&o[oi], i);
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &co, SC_32, PT_U16, &x->frag[5 + i], false));
        ptx_dc_add_src(r, x, &x->frag[5 + i]);
    }
    SIM_FORWARD_IF_ERROR(bulk_shared(c, pf ? NULL : &o[g2s ? 0 : 2], g2s ? &o[3] : NULL, x));
    x->space = PS_GENERIC;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &o[mi], x));
    for (unsigned i = 0; i < n; i++) {
        struct ptx_opnd co = ptx_dc_vec_elem(&o[mi + 1], i);
        if (co.kind == PO_SINK)
            return ptx_dc_err(c, "cp.async.bulk.tensor: '_' as a coordinate");
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &co, SC_32, PT_S32, &x->frag[i], false));
        ptx_dc_add_src(r, x, &x->frag[i]);
    }
    x->iflags = pf ? 0 : g2s ? SIM_IF_LOAD : SIM_IF_STORE;
    ptx_dc_add_src(r, x, &x->base);
    ptx_dc_add_src(r, x, &x->base2);
    ptx_dc_add_src(r, x, &x->base3);
    return SIM_OK;
}

/* st.async / red.async (PTX ISA 9.7.9.12, 9.7.13.6): a store or
 * reduction to shared::cluster memory that completes its bytes on the
 * mbarrier of its last operand (in the destination's block): that operand
 * into (base3, off3); the store itself decodes as st / red (ptx_sync.c
 * completes the transactions). */
static int
decode_async_mbar(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    if (in->space != PS_SHARED || in->nops != 3 || in->o[2].kind != PO_MEM)
        return ptx_dc_err(c, "st.async / red.async: expected .shared::cluster"
                          ".mbarrier::complete_tx::bytes [addr], value, [mbar]");
    SIM_FORWARD_IF_ERROR(bulk_shared(c, NULL, &in->o[2], x));
    ptx_dc_add_src(c->r, x, &x->base3);
    return SIM_OK;
}

/* mbarrier, cp.async.bulk and elect.sync (PTX ISA 9.7.13.15, 9.7.9.25,
 * 9.7.13.x): executed by ptx_sync.c.  An mbarrier operation and a bulk
 * copy are shared-memory (SYNCS) and bulk (UBLKCP) operations for the
 * timing model; their sync fields are set as they execute. */
static int dst_and_pred(struct dctx *c, const struct ptx_opnd *d, struct xop *x);

static int
decode_sync(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    const struct ptx_opnd *o = in->o;
    if (in->op == PTXOP_ELECT) {
        x->kind = XK_ELECT;
        SIM_FORWARD_IF_ERROR(dst_and_pred(c, &o[0], x));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_32, PT_B32, &x->a, false));
        ptx_dc_add_src(r, x, &x->a);
        return SIM_OK;
    }
    if (in->op == PTXOP_MBARRIER && in->mode == PM_MB_PENDING) {
        /* pending_count.b64 d, state: the state's pending-arrivals field,
         * an integer bit-field extract (bfe.u64, d its low 32 bits) */
        if (in->type != PT_B64)
            return ptx_dc_err(c, "mbarrier.pending_count: expected .b64");
        x->kind = XK_ALU;
        x->op = PTXOP_BFE;
        x->type = PT_U64;
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], SC_32, PT_U32, &x->d, true));
        ptx_dc_add_dst(r, x, &x->d);
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_64, PT_B64, &x->a, false));
        ptx_dc_add_src(r, x, &x->a);
        x->b = (struct slot){ SC_32, ptx_dc_const32(c, PTX_MB_PENDING_POS) };
        x->c = (struct slot){ SC_32, ptx_dc_const32(c, PTX_MB_COUNT_BITS) };
        return SIM_OK;
    }
    if (in->op == PTXOP_MBARRIER) {
        unsigned md = in->mode;
        if (md == PM_NONE)
            return ptx_dc_err(c, "mbarrier: expected an operation (.init, .arrive, .arrive.expect_tx, "
                        ".arrive_drop, .expect_tx, .complete_tx, .test_wait, .try_wait, .inval)");
        if (in->space != PS_SHARED || in->type != PT_B64)
            return ptx_dc_err(c, "mbarrier: expected .shared (or .shared::cta) and .b64");
        bool wait = md == PM_MB_TEST || md == PM_MB_TRY;
        bool has_d = wait || md == PM_MB_ARRIVE || md == PM_MB_ARRIVE_TX;
        unsigned mi = has_d ? 1 : 0;
        if (wait && (in->flags & PF_PARITY) == 0 && in->nops < 3)
            return ptx_dc_err(c, "mbarrier.test_wait/try_wait: expected p, [addr], state");
        if ((in->xmod & PX_NO_COMPLETE) && in->nops < 3)
            return ptx_dc_err(c, "mbarrier arrive .noComplete: expected state, [addr], count");
        x->kind = XK_MBAR;
        x->space = PS_SHARED;
        SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &o[mi], x));
        ptx_dc_add_src(r, x, &x->base);
        if (has_d) {
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], wait ? SC_PRED : SC_64, wait ? PT_PRED : PT_B64,
                                      &x->d, true));
            ptx_dc_add_dst(r, x, &x->d);
        }
        x->a.cls = SC_NONE;
        if (in->nops > mi + 1) {
            bool state = wait && (in->flags & PF_PARITY) == 0;
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[mi + 1], state ? SC_64 : SC_32, state ? PT_B64 : PT_U32,
                                      &x->a, false));
            ptx_dc_add_src(r, x, &x->a);
        }
        /* SYNCS: one operation of the sync unit per warp, whatever the lanes
         * (ptxas gives it a uniform address), not a per-lane shared atomic */
        x->iflags = wait ? SIM_IF_LOAD : md == PM_MB_INIT || md == PM_MB_INVAL ? SIM_IF_STORE
                    : SIM_IF_LOAD | SIM_IF_STORE;
        return SIM_OK;
    }
    if (in->flags & PF_TENSOR)
        return decode_tensor(c, in, x);
    /* a cp.async.bulk copy or cp.reduce.async.bulk reduction (their groups'
     * commit and wait: decode_cp_async) */
    bool g2s = in->space == PS_SHARED && in->space2 == PS_GLOBAL;
    bool s2g = in->space == PS_GLOBAL && in->space2 == PS_SHARED;
    bool s2s = in->space == PS_SHARED && in->space2 == PS_SHARED;
    bool red = (in->xmod & PX_REDUCE) != 0, mc = (in->xmod & PX_MULTICAST) != 0;
    unsigned want = (s2g ? 3u : 4u) + mc + ((in->xmod & PX_CACHE_HINT) != 0);
    if ((!g2s && !s2g && !s2s) || (red && g2s) || (mc && !g2s) || in->nops != want)
        return ptx_dc_err(c, "unsupported cp.async.bulk form (supported: "
                    ".shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster} "
                    "[dst], [src], size, [mbar]{, ctaMask}; .shared::cluster.shared::cta.mbarrier"
                    "::complete_tx::bytes [dst], [src], size, [mbar]; .global.shared::cta"
                    ".bulk_group [dst], [src], size; the last two also as cp.reduce.async.bulk"
                    ".OP.TYPE; .commit_group; .wait_group{.read} N; each with an optional "
                    ".L2::cache_hint policy last)");
    if (red) {
        unsigned t = in->type, a = in->atom, b = ptx_type_bytes(t);
        bool is_float = t == PT_F32 || t == PT_F64 || t == PT_F16 || t == PT_BF16;
        bool is_bit = t == PT_B32 || t == PT_B64;
        bool ok = b >= 2 && (a == PA_ADD || a == PA_MIN || a == PA_MAX || a == PA_INC ||
                             a == PA_DEC || a == PA_AND || a == PA_OR || a == PA_XOR);
        if (is_float && s2s)
            return ptx_dc_err(c, "cp.reduce.async.bulk.shared::cluster reduces integers only "
                              "(.b32, .u32, .s32, .b64, .u64)");
        if (is_float)
            ok = ok && (a == PA_ADD || ((t == PT_F16 || t == PT_BF16) &&
                                        (a == PA_MIN || a == PA_MAX)));
        else if (is_bit)
            ok = ok && (a == PA_AND || a == PA_OR || a == PA_XOR);
        else
            ok = ok && (t == PT_U32 || t == PT_S32 || t == PT_U64 || t == PT_S64) &&
                 a != PA_AND && a != PA_OR && a != PA_XOR &&
                 ((a != PA_INC && a != PA_DEC) || t == PT_U32);
        if (!ok)
            return ptx_dc_err(c, "cp.reduce.async.bulk: unsupported operation and type (.add "
                              ".f16/.bf16 (.noftz)/.f32/.f64/.u32/.s32/.u64/.s64; .min/.max "
                              ".f16/.bf16/.u32/.s32/.u64/.s64; .inc/.dec .u32; .and/.or/.xor "
                              ".b32/.b64)");
    }
    x->kind = XK_BULK;
    /* operands: base = the global (s2s: the shared::cluster destination)
     * address, base2 = this block's shared memory, base3 = the mbarrier,
     * a = the size, b = ctaMask */
    SIM_FORWARD_IF_ERROR(bulk_shared(c, &o[g2s ? 0 : 1], s2g ? NULL : &o[3], x));
    x->space = s2s ? PS_SHARED : PS_GLOBAL;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &o[g2s ? 1 : 0], x));
    SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_U32, &x->a, false));
    x->b.cls = SC_NONE;
    if (mc) {
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[4], SC_32, PT_B16, &x->b, false));
        ptx_dc_add_src(r, x, &x->b);
    }
    if (s2s)
        x->xmod |= PX_SHARED_DST;
    x->iflags = g2s ? SIM_IF_LOAD : SIM_IF_STORE;
    ptx_dc_add_src(r, x, &x->base);
    ptx_dc_add_src(r, x, &x->base2);
    ptx_dc_add_src(r, x, &x->base3);
    ptx_dc_add_src(r, x, &x->a);
    return SIM_OK;
}

/* A load from the parameter space at a fixed offset becomes a move of
 * constants (the parameter values are known for the launch): element i
 * of a vector (at most 4) into XOP_PARAM_DST from XOP_PARAM_VAL. */
static int
decode_param_load(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    unsigned eb = ptx_type_bytes(in->type);
    const struct ptx_opnd *vo = &in->o[0];
    unsigned nv = vo->kind == PO_VEC ? vo->nvec : 1;
    if (nv > 4)
        return ptx_dc_err(c, "ld.param with more than 4 vector elements");
    if (x->off < 0 || (uint64_t)x->off + (uint64_t)eb * nv > c->body->param_bytes)
        return ptx_dc_err(c, "ld.param reads outside the parameter space");
    x->kind = XK_PARAM;
    x->vec = (uint8_t)nv;
    for (unsigned i = 0; i < nv; i++) {
        struct slot *dst = XOP_PARAM_DST(x, i), *val = XOP_PARAM_VAL(x, i);
        uint64_t v = 0;
        memcpy(&v, r->param_blob + x->off + (int64_t)i * eb, eb);
        struct ptx_opnd ro = *vo;
        if (vo->kind == PO_VEC) {
            if (vo->regs[i] < 0) {
                dst->cls = SC_NONE;
                continue;
            }
            ro = (struct ptx_opnd){ .kind = PO_REG, .reg = vo->regs[i] };
        }
        if (ro.kind != PO_REG)
            return ptx_dc_err(c, "ld.param needs a register destination");
        SIM_FORWARD_IF_ERROR(data_opnd(c, &ro, in->type, true, false, dst));
        v = lane_extend(v, in->type);
        val->cls = dst->cls;
        val->idx = dst->cls == SC_64 ? ptx_dc_const64(c, v) : ptx_dc_const32(c, (uint32_t)v);
        ptx_dc_add_dst(r, x, dst);
    }
    return SIM_OK;
}

/* Is every half-precision type of in one the executor implements for its
 * instruction (ptx_half.c; scalar .f16 also in the FP32 ones)? */
static bool
half_supported(const struct ptx_ins *in)
{
    unsigned t = in->type;
    if (!ptx_type_is_half(t) || t == PT_F16)
        return true;
    switch (in->op) {
    case PTXOP_ADD: case PTXOP_SUB: case PTXOP_MUL: case PTXOP_FMA: case PTXOP_NEG:
    case PTXOP_ABS: case PTXOP_MIN: case PTXOP_MAX: case PTXOP_SETP: case PTXOP_SET:
    case PTXOP_CVT: case PTXOP_MOV: case PTXOP_LD: case PTXOP_LDU: case PTXOP_ST:
    case PTXOP_ATOM: case PTXOP_RED:     /* atom.add.noftz.f16x2 ...: ptx_exec.c */
        return true;
    case PTXOP_EX2: case PTXOP_TANH:     /* .approx{.ftz}: ptx_half.c */
        return (in->flags & PF_APPROX) != 0;
    default:
        return false;
    }
}

/* Where a call's argument or receiver o is, for a parameter of type t
 * and size bytes (a .param variable of the caller: its frame; a register
 * or an immediate: a slot).  Through a function pointer (t = PT_NONE) the
 * parameter is not known yet: the size is the operand's own. */
static int
call_loc(struct dctx *c, const struct ptx_opnd *o, unsigned t, uint32_t size, const char *what,
         struct xloc *out)
{
    memset(out, 0, sizeof *out);
    if (t == PT_NONE) {
        if (o->kind == PO_IMM)
            return ptx_dc_err(c, "a constant argument of a call through a function pointer is not "
                        "supported (pass a .param variable or a register)");
        size = o->kind == PO_SYM ? (uint32_t)c->body->syms[o->sym].size
             : cls_of_reg(&c->body->regs[o->reg]) == SC_64 ? 8 : 4;
        t = size == 8 ? PT_B64 : PT_B32;
    }
    if (o->kind == PO_SYM) {
        const struct ptx_sym *s = &c->body->syms[o->sym];
        if (s->size < size)
            return ptx_dc_err(c, "the call's %s %s is %" PRIu64 " bytes, the parameter %u", what,
                        s->name, s->size, size);
        out->kind = XL_FRAME;
        out->off = c->f->site_off + (uint32_t)s->offset;
        out->size = size;
        return SIM_OK;
    }
    if (size > 8)
        return ptx_dc_err(c, "the call's %s is a register or constant, the parameter is %u bytes",
                    what, size);
    uint8_t want = o->kind == PO_REG ? cls_of_reg(&c->body->regs[o->reg]) : cls_of_type(t);
    if (want == SC_PRED)
        return ptx_dc_err(c, "a predicate cannot be passed to or returned from a function");
    struct slot sl;
    SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, o, want, t, &sl, false));
    out->kind = XL_SLOT;
    out->cls = sl.cls;
    out->idx = sl.idx;
    out->size = size;
    return SIM_OK;
}

/* call: the callee's entry, and the call site (r->sites) with where its
 * arguments and receiver are; the registers it passes are its sources,
 * the one it receives into its destination. */
static int
decode_call(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    const struct ptx_call *pc = &c->body->calls[in->target];
    int32_t fi = pc->func >= 0 ? ptx_call_func(r, pc->func) : XCALL_INDIRECT;
    if (pc->func >= 0 && fi < 0)
        return ptx_dc_err(c, "call to a function that is not linked");
    /* a direct call's parameters; through a pointer, the callee's are
     * matched when it is known (ptx_call_enter) */
    const struct ptx_kernel *fb = fi >= 0 ? r->funcs[fi].body : NULL;
    x->kind = XK_CALL;
    x->iflags = SIM_IF_BRANCH;
    x->target = fi >= 0 ? r->funcs[fi].entry : -1;
    if (fi < 0) {
        struct ptx_opnd fo = { .kind = PO_REG, .reg = pc->fptr };
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &fo, SC_64, PT_U64, &x->a, false));
        ptx_dc_add_src(r, x, &x->a);
    }
    struct xcallsite site = { fi, -1, 0, pc->nargs, in->line };
    struct xloc loc;
    if (pc->has_ret && (fb == NULL || fb->n_rets > 0)) {
        SIM_FORWARD_IF_ERROR(call_loc(c, &pc->ret, fb ? fb->params[0].type : PT_NONE,
                                      fb ? (uint32_t)fb->params[0].size : 0, "return value",
                                      &loc));
        site.ret = (int32_t)ptx_call_add_loc(r, &loc);
        if (loc.kind == XL_SLOT) {
            struct slot sl = { loc.cls, loc.idx };
            ptx_dc_add_dst(r, x, &sl);
        }
    }
    struct xloc *args = xcalloc(pc->nargs + 1, sizeof *args);
    for (uint32_t a = 0; a < pc->nargs; a++) {
        const struct ptx_sym *p = fb ? &fb->params[fb->n_rets + a] : NULL;
        int rc = call_loc(c, &pc->args[a], p ? p->type : PT_NONE, p ? (uint32_t)p->size : 0,
                          "argument", &args[a]);
        if (rc < 0) {
            free(args);
            return rc;
        }
        if (args[a].kind == XL_SLOT) {
            struct slot sl = { args[a].cls, args[a].idx };
            ptx_dc_add_src(r, x, &sl);
        }
    }
    site.arg0 = r->n_locs;
    for (uint32_t a = 0; a < pc->nargs; a++)
        ptx_call_add_loc(r, &args[a]);
    free(args);
    if ((r->n_sites & (r->n_sites - 1)) == 0)
        r->sites = xrealloc(r->sites, (r->n_sites ? 2 * r->n_sites : 16) * sizeof *r->sites);
    x->off = r->n_sites;
    r->sites[r->n_sites++] = site;
    return SIM_OK;
}

/* A 32-bit destination d, or d|p with a predicate (shfl.sync, match.all):
 * x->d and x->d2; elect.sync's d may be '_' (x->d none). */
static int
dst_and_pred(struct dctx *c, const struct ptx_opnd *d, struct xop *x)
{
    struct ptx_run *r = c->r;
    if (d->kind == PO_VEC) {
        struct ptx_opnd r0 = { .kind = d->regs[0] >= 0 ? PO_REG : PO_SINK, .reg = d->regs[0] };
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &r0, SC_32, PT_B32, &x->d, x->kind == XK_ELECT));
        if (d->regs[1] >= 0) {
            struct ptx_opnd r1 = { .kind = PO_REG, .reg = d->regs[1] };
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &r1, SC_PRED, PT_PRED, &x->d2, false));
            ptx_dc_add_dst(r, x, &x->d2);
        }
    } else {
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, d, SC_32, PT_B32, &x->d, false));
    }
    ptx_dc_add_dst(r, x, &x->d);
    return SIM_OK;
}

static int
decode_ins(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    unsigned t = in->type;
    uint8_t T = cls_of_type(t);
    const struct ptx_opnd *o = in->o;

    memset(x, 0, sizeof *x);
    x->head = true;
    x->op = in->op;
    x->type = in->type;
    x->type2 = in->type2;
    if (in->op == PTXOP_VABSDIFF4)
        x->btype = in->type3;
    x->cmp = in->cmp;
    x->rnd = in->rnd;
    x->atom = in->atom;
    x->mode = in->mode;
    x->vec = in->vec ? in->vec : 1;
    x->space = in->space;
    x->flags = in->flags;
    x->xmod = in->xmod;
    x->line = in->line;
    x->target = in->target;
    x->reconv = in->reconv;
    x->opcode = in->mnem;
    x->opclass = (uint8_t)ptx_opclass_of(in);
    x->guard = -1;
    x->kind = XK_ALU;
    if (in->guard >= 0) {
        const struct ptx_reg *g = &c->body->regs[in->guard];
        x->guard = (int32_t)reg_slot(c, g);
        x->guard_neg = in->guard_neg;
        struct slot gs = { SC_PRED, (uint32_t)x->guard };
        ptx_dc_add_src(r, x, &gs);
    }
    for (unsigned i = 0; i < in->nops; i++)
        if (o[i].kind == PO_VEC && o[i].vimm && !(i == 1 && (in->op == PTXOP_MOV ||
                                                             in->op == PTXOP_ST)))
            return ptx_dc_err(c, "unsupported operand: a constant in a vector operand of '%s' (mov "
                        "packing {a, b} and st take constants)", r->m->mnems[in->mnem]);
    bool tensor = in->op == PTXOP_MMA || in->op == PTXOP_WMMA;   /* types checked there */
    if (!tensor && (t == PT_B128 || !half_supported(in)))
        return ptx_dc_err(c, "'.%s' data is unsupported here (.f16x2, .bf16x2 and .bf16: add, sub, "
                    "mul, fma, neg, abs, min, max, setp, set, cvt, mov, ex2.approx, tanh.approx)",
                    ptx_type_name(t));

    switch (in->op) {
    case PTXOP_BRA:
        x->kind = XK_BRA;
        x->iflags = SIM_IF_BRANCH;
        break;
    case PTXOP_EXIT:
    case PTXOP_RET:
        /* a function's ret goes back to the caller; a kernel's ends the thread */
        x->kind = in->op == PTXOP_RET && c->func ? XK_RET : XK_EXIT;
        x->iflags = x->kind == XK_RET ? SIM_IF_BRANCH : SIM_IF_EXIT;
        break;
    case PTXOP_TRAP:             /* executed, it fails the launch (ptx_exec.c) */
    case PTXOP_BRKPT:            /* (CUTLASS's unreachable paths: cute's "invalid control path") */
        x->kind = XK_TRAP;
        x->iflags = SIM_IF_EXIT;
        break;
    case PTXOP_CALL:
        SIM_FORWARD_IF_ERROR(decode_call(c, in, x));
        break;
    case PTXOP_BAR:
    case PTXOP_BARRIER:
        if (in->flags & PF_WARPSYNC) {
            x->kind = XK_NOP;
            if (in->nops >= 1)   /* the member mask: ptx_spin_sync() */
                SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], SC_32, PT_B32, &x->a, false));
            break;
        }
        if (in->mode == PM_CL_ARRIVE || in->mode == PM_CL_WAIT) {
            x->kind = in->mode == PM_CL_ARRIVE ? XK_CLARRIVE : XK_CLWAIT;   /* ptx_cluster.c */
            break;
        }
        x->kind = XK_BAR;
        x->iflags = SIM_IF_BARRIER;
        if (in->atom != PA_NONE) {
            /* bar.red: d from the predicate c of every thread at barrier a (of b threads) */
            if (in->nops < 3 || in->nops > 4)
                return ptx_dc_err(c, "bar.red needs d, a{, b}, {!}c");
            bool popc = in->atom == PA_ADD;
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], popc ? SC_32 : SC_PRED, popc ? PT_U32 : PT_PRED,
                                      &x->d, false));
            ptx_dc_add_dst(r, x, &x->d);
            const struct ptx_opnd *pc = &o[in->nops - 1];
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, pc, SC_PRED, PT_PRED, &x->a, false));
            if (pc->neg)
                x->negmask |= 1;
            ptx_dc_add_src(r, x, &x->a);
            o++;                 /* a{, b} as bar.sync's */
        } else if (in->nops < 1 || in->nops > 2 || ((in->flags & PF_ARRIVE) && in->nops != 2)) {
            return ptx_dc_err(c, (in->flags & PF_ARRIVE) ? "bar.arrive needs a, b"
                                                         : "bar.sync needs a{, b}");
        }
        /* the barrier a (x->b) and its thread count b (x->c; none: the whole block) */
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], SC_32, PT_U32, &x->b, false));
        ptx_dc_add_src(r, x, &x->b);
        unsigned n_ab = in->atom != PA_NONE ? in->nops - 2 : in->nops;   /* a{, b} */
        if (n_ab == 2) {
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_32, PT_U32, &x->c, false));
            ptx_dc_add_src(r, x, &x->c);
        }
        break;
    case PTXOP_MEMBAR:
    case PTXOP_FENCE:
        x->kind = XK_NOP;
        x->iflags = SIM_IF_FENCE;
        break;
    case PTXOP_NANOSLEEP: case PTXOP_PREFETCH: case PTXOP_PREFETCHU:   /* no effect on results */
    case PTXOP_APPLYPRIORITY: case PTXOP_DISCARD:
        x->kind = XK_NOP;
        x->op = in->op == PTXOP_NANOSLEEP ? in->op : PTXOP_PREFETCH;   /* an issue slot (ptx_lower) */
        break;
    case PTXOP_CREATEPOLICY:     /* an opaque policy that no hint here reads: 0 */
        if (in->frag == 0 || in->type != PT_B64)
            return ptx_dc_err(c, "createpolicy: expected .fractional, .range or .cvt, and .b64");
        x->kind = XK_ALU;
        x->op = PTXOP_MOV;
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], SC_64, PT_B64, &x->d, false));
        x->a = (struct slot){ SC_64, ptx_dc_const64(c, 0) };
        ptx_dc_add_dst(r, x, &x->d);
        break;
    case PTXOP_MAPA:             /* mapa{.shared::cluster}.u32/.u64 d, a, rank (ptx_cluster.c) */
    case PTXOP_GETCTARANK: {     /* getctarank{.shared::cluster}.u32/.u64 d, a: d .u32 */
        bool rank = in->op == PTXOP_GETCTARANK;
        if (t != PT_U32 && t != PT_U64 && t != PT_B32 && t != PT_B64)
            return ptx_dc_err(c, rank ? "getctarank: expected .u32 or .u64"
                                      : "mapa: expected .u32 or .u64");
        uint8_t cls = ptx_type_bytes(t) == 8 ? SC_64 : SC_32;
        x->kind = XK_MAPA;
        x->space = in->space == PS_SHARED ? PS_SHARED : PS_GENERIC;
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], rank ? SC_32 : cls, rank ? PT_U32 : t, &x->d,
                                         false));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], cls, t, &x->a, false));
        x->b.cls = SC_NONE;
        if (!rank)
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_U32, &x->b, false));
        ptx_dc_add_dst(r, x, &x->d);
        ptx_dc_add_src(r, x, &x->a);
        ptx_dc_add_src(r, x, &x->b);
        break;
    }
    case PTXOP_SETMAXNREG:       /* the allocation the hardware gives the warp: no effect here */
        if (in->atom != PA_INC && in->atom != PA_DEC)
            return ptx_dc_err(c, "setmaxnreg: expected .inc or .dec");
        const char *tg = c->r->m->target;           /* as ptxas: sm_90a, not sm_90 */
        if (tg[0] == '\0' || tg[strlen(tg) - 1] != 'a')
            return ptx_dc_err(c, "setmaxnreg needs an architecture-specific target (.target sm_90a), "
                        "not .target %s", c->r->m->target);
        if (o[0].kind != PO_IMM || o[0].imm < 24 || o[0].imm > 256 || o[0].imm % 8 != 0)
            return ptx_dc_err(c, "setmaxnreg: the register count must be a constant, a multiple of 8 "
                        "in 24 .. 256");
        x->kind = XK_NOP;
        break;
    case PTXOP_GRIDDEPCONTROL:   /* kernels run one after another: nothing to wait for */
        if (in->mode != PM_GDC_LAUNCH && in->mode != PM_GDC_WAIT)
            return ptx_dc_err(c, "griddepcontrol: expected .launch_dependents or .wait");
        x->kind = XK_NOP;
        break;
    case PTXOP_CP:
        if ((in->flags & PF_BULK) && in->mode == PM_PREFETCH && !(in->flags & PF_TENSOR))
            x->kind = XK_NOP;    /* cp.async.bulk.prefetch.L2: no effect on results */
        else if ((in->flags & PF_BULK) && (in->mode == PM_NONE || in->mode == PM_PREFETCH))
            SIM_FORWARD_IF_ERROR(decode_sync(c, in, x));
        else
            SIM_FORWARD_IF_ERROR(decode_cp_async(c, in, x));
        break;
    case PTXOP_MBARRIER:
    case PTXOP_ELECT:
        SIM_FORWARD_IF_ERROR(decode_sync(c, in, x));
        break;
    case PTXOP_MMA:
        SIM_FORWARD_IF_ERROR(ptx_dc_mma(c, in, x));
        break;
    case PTXOP_WMMA:
        if (in->mode == PM_WMMA)
            SIM_FORWARD_IF_ERROR(ptx_dc_mma(c, in, x));
        else
            SIM_FORWARD_IF_ERROR(ptx_dc_wmma_mem(c, in, x));
        break;
    case PTXOP_LDMATRIX:
    case PTXOP_STMATRIX:
        SIM_FORWARD_IF_ERROR(ptx_dc_ldmatrix(c, in, x));
        break;
    case PTXOP_WGMMA:
        SIM_FORWARD_IF_ERROR(ptx_dc_wgmma(c, in, x));
        break;
    case PTXOP_TEX: case PTXOP_TLD4: case PTXOP_TXQ: case PTXOP_SULD: case PTXOP_SUST:
    case PTXOP_SUQ:
        SIM_FORWARD_IF_ERROR(ptx_dc_tex(c, in, x));
        break;
    case PTXOP_ACTIVEMASK:
        x->kind = XK_ACTIVEMASK;
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], SC_32, PT_B32, &x->d, false));
        ptx_dc_add_dst(r, x, &x->d);
        break;
    case PTXOP_LD:
    case PTXOP_LDU:
    case PTXOP_ST: {
        bool st = in->op == PTXOP_ST;
        const struct ptx_opnd *mo = st ? &o[0] : &o[1];
        if (in->xmod & PX_ASYNC)
            SIM_FORWARD_IF_ERROR(decode_async_mbar(c, in, x));
        const struct ptx_opnd *vo = st ? &o[1] : &o[0];
        SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, mo, x));
        bool kparam = x->space == PS_PARAM && !(x->flags & PF_FRAME);
        if (kparam && st)
            return ptx_dc_err(c, "st.param to a kernel parameter");
        if (kparam && x->base.cls == SC_NONE)
            return decode_param_load(c, in, x);
        /* else a kernel parameter through a register (ld.param [%rd + 8],
         * %rd from mov of a parameter: its offset): a load from the
         * parameter space as it runs, a constant-bank load (LDC) for the
         * model (ptx_mem.c) */
        x->kind = st ? XK_ST : XK_LD;
        /* ldu, like ld.global.nc (its PF_NC came with in->flags), reads
         * memory that is read-only while the kernel runs (PTX ISA): the
         * schedule may move it over barriers */
        if (in->op == PTXOP_LDU)
            x->flags |= PF_NC;
        /* a call's argument or return value, or a function's parameter:
         * a register move for the model */
        x->iflags = x->space == PS_PARAM && !kparam ? 0 : st ? SIM_IF_STORE : SIM_IF_LOAD;
        if (in->flags & PF_BYPASS_L1)
            x->iflags |= SIM_IF_BYPASS_L1;
        unsigned nv = vo->kind == PO_VEC ? vo->nvec : 1;
        if (nv != x->vec)
            return ptx_dc_err(c, "'%s' expects %u value%s", r->m->mnems[in->mnem], x->vec,
                        x->vec == 1 ? "" : "s");
        for (unsigned i = 0; i < nv; i++) {
            struct ptx_opnd ro = vo->kind == PO_VEC ? ptx_dc_vec_elem(vo, i) : *vo;
            if (ro.kind == PO_SINK) {
                x->v[i].cls = SC_NONE;
                continue;
            }
            SIM_FORWARD_IF_ERROR(data_opnd(c, &ro, t, !st, false, &x->v[i]));
            if (st)
                ptx_dc_add_src(r, x, &x->v[i]);
            else if (ro.kind != PO_REG)
                return ptx_dc_err(c, "a load needs a register destination");
            else
                ptx_dc_add_dst(r, x, &x->v[i]);
        }
        ptx_dc_add_src(r, x, &x->base);
        break;
    }
    case PTXOP_ATOM:
    case PTXOP_RED: {
        bool red = in->op == PTXOP_RED;
        const struct ptx_opnd *mo = red ? &o[0] : &o[1];
        if (in->xmod & PX_ASYNC)
            SIM_FORWARD_IF_ERROR(decode_async_mbar(c, in, x));
        SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, mo, x));
        if (x->space != PS_GLOBAL && x->space != PS_SHARED && x->space != PS_GENERIC)
            return ptx_dc_err(c, "atomics on the %s space are unsupported",
                        x->space == PS_LOCAL ? "local" : "const/param");
        if (in->atom == PA_NONE)
            return ptx_dc_err(c, "'%s' needs an operation (.add, .cas, ...)", r->m->mnems[in->mnem]);
        x->kind = red ? XK_RED : XK_ATOM;
        x->iflags = SIM_IF_ATOMIC | SIM_IF_STORE | (red ? 0 : SIM_IF_LOAD);
        if (!red) {
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], T, t, &x->d, true));
            ptx_dc_add_dst(r, x, &x->d);
        }
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[red ? 1 : 2], T, t, &x->b, false));
        ptx_dc_add_src(r, x, &x->b);
        if (in->atom == PA_CAS) {
            if (red || in->nops != 4)
                return ptx_dc_err(c, "atom.cas takes a destination, an address and two values");
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[3], T, t, &x->c, false));
            ptx_dc_add_src(r, x, &x->c);
        } else if (in->nops != (red ? 2u + ((in->xmod & PX_ASYNC) != 0) : 3u)) {
            return ptx_dc_err(c, "wrong number of operands for '%s'", r->m->mnems[in->mnem]);
        }
        ptx_dc_add_src(r, x, &x->base);
        break;
    }
    case PTXOP_SHFL: {
        x->kind = XK_SHFL;
        if (in->mode < PM_UP || in->mode > PM_IDX)
            return ptx_dc_err(c, "shfl needs .up, .down, .bfly or .idx");
        SIM_FORWARD_IF_ERROR(dst_and_pred(c, &o[0], x));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_32, PT_B32, &x->a, false));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_B32, &x->b, false));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[3], SC_32, PT_B32, &x->c, false));
        ptx_dc_add_src(r, x, &x->a);
        ptx_dc_add_src(r, x, &x->b);
        ptx_dc_add_src(r, x, &x->c);    /* the clamp and segment mask (SHFL reads it) */
        if (in->nops == 5) {
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[4], SC_32, PT_B32, &x->e, false));
            ptx_dc_add_src(r, x, &x->e);
        }
        break;
    }
    case PTXOP_REDUX: {
        /* a warp op (kind XK_VOTE, told apart by x->op): d = the reduction
         * of a over the lanes of membermask b */
        x->kind = XK_VOTE;
        if (in->atom != PA_ADD && in->atom != PA_MIN && in->atom != PA_MAX && in->atom != PA_AND &&
            in->atom != PA_OR && in->atom != PA_XOR)
            return ptx_dc_err(c, "redux.sync needs .add, .min, .max, .and, .or or .xor");
        if (ptx_type_bytes(t) != 4 || ptx_type_is_float(t))
            return ptx_dc_err(c, "redux.sync: only .u32, .s32 and .b32 are supported");
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], SC_32, t, &x->d, false));
        ptx_dc_add_dst(r, x, &x->d);
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_32, t, &x->a, false));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_B32, &x->b, false));
        ptx_dc_add_src(r, x, &x->a);
        ptx_dc_add_src(r, x, &x->b);
        break;
    }
    case PTXOP_MATCH: {
        /* d = the lanes of membermask b whose a equals this lane's (.any),
         * or all of them if every a is equal, else 0, with p (.all) */
        x->kind = XK_VOTE;
        if (in->mode != PM_ANY && in->mode != PM_ALL)
            return ptx_dc_err(c, "match.sync needs .any or .all");
        if (ptx_type_bytes(t) != 4 && ptx_type_bytes(t) != 8)
            return ptx_dc_err(c, "match.sync needs .b32 or .b64");
        if (o[0].kind == PO_VEC && in->mode != PM_ALL)
            return ptx_dc_err(c, "only match.all writes a predicate");
        SIM_FORWARD_IF_ERROR(dst_and_pred(c, &o[0], x));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], T, t, &x->a, false));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_B32, &x->b, false));
        ptx_dc_add_src(r, x, &x->a);
        ptx_dc_add_src(r, x, &x->b);
        break;
    }
    case PTXOP_VOTE: {
        x->kind = XK_VOTE;
        if (in->mode != PM_ALL && in->mode != PM_ANY && in->mode != PM_UNI && in->mode != PM_BALLOT)
            return ptx_dc_err(c, "vote needs .all, .any, .uni or .ballot");
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], in->mode == PM_BALLOT ? SC_32 : SC_PRED,
                                  in->mode == PM_BALLOT ? PT_B32 : PT_PRED, &x->d, false));
        ptx_dc_add_dst(r, x, &x->d);
        struct ptx_opnd po = o[1];
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &po, SC_PRED, PT_PRED, &x->a, false));
        if (o[1].neg)
            x->negmask |= 1;
        ptx_dc_add_src(r, x, &x->a);
        if (in->nops >= 3) {     /* vote.sync's member mask */
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_B32, &x->b, false));
            ptx_dc_add_src(r, x, &x->b);
        }
        break;
    }
    case PTXOP_MOV: {
        if (o[1].kind == PO_SREG && ptx_opclass_sreg_is_clock(o[1].sreg)) {
            x->kind = XK_MOVE_CLOCK;     /* ptx_exec.c takes the half the register names */
            x->atom = o[1].sreg;
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], T, t, &x->d, false));
            ptx_dc_add_dst(r, x, &x->d);
            break;
        }
        if (o[1].kind == PO_SREG && T == SC_64 &&
            (o[1].sreg == SR_GRIDID || o[1].sreg == SR_CURRENT_GRAPH_EXEC ||
             o[1].sreg == SR_PM64)) {
            /* a 64-bit special register, held in a 32-bit slot: zero-extended */
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], T, t, &x->d, false));
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_32, PT_U32, &x->a, false));
            ptx_dc_add_dst(r, x, &x->d);
            break;
        }
        if (o[0].kind == PO_VEC || o[1].kind == PO_VEC) {
            /* mov.b64 %rd, {%r1, %r2} (pack) or mov.b64 {%r1, %r2}, %rd (unpack);
             * mov.b32 with two 16-bit halves (x->type b32: halves) */
            bool pack = o[1].kind == PO_VEC;
            const struct ptx_opnd *vo = pack ? &o[1] : &o[0];
            if (vo->nvec != 2 || (T != SC_64 && ptx_type_bytes(t) != 4))
                return ptx_dc_err(c, "only 64-bit <-> 2 x 32-bit and 32-bit <-> 2 x 16-bit vector "
                            "moves are supported");
            x->vec = 2;
            x->flags |= pack ? PF_WIDE : PF_HI;   /* direction marker */
            for (unsigned i = 0; i < 2; i++) {
                struct ptx_opnd ro = ptx_dc_vec_elem(vo, i);
                if (ro.kind == PO_SINK)
                    return ptx_dc_err(c, "'_' is unsupported in a vector move");
                SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &ro, SC_32, T == SC_64 ? PT_B32 : PT_B16, &x->v[i],
                                          false));
            }
            if (pack) {
                SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], T, t, &x->d, false));
                ptx_dc_add_dst(r, x, &x->d);
                ptx_dc_add_src(r, x, &x->v[0]);
                ptx_dc_add_src(r, x, &x->v[1]);
            } else {
                SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], T, t, &x->a, false));
                ptx_dc_add_src(r, x, &x->a);
                ptx_dc_add_dst(r, x, &x->v[0]);
                ptx_dc_add_dst(r, x, &x->v[1]);
            }
            break;
        }
        if (c->func && o[1].kind == PO_SYM && o[1].sym >= 0 &&
            c->body->syms[o[1].sym].space == PS_LOCAL) {
            /* the address of a function's .local variable: in its frame */
            x->kind = XK_FRAMEADDR;
            x->off = (int64_t)(c->f->local_off + c->body->syms[o[1].sym].offset) + o[1].imm;
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], T, t, &x->d, false));
            ptx_dc_add_dst(r, x, &x->d);
            break;
        }
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], T, t, &x->d, false));
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], T, t, &x->a, false));
        ptx_dc_add_dst(r, x, &x->d);
        ptx_dc_add_src(r, x, &x->a);
        if (o[1].kind == PO_SYM && o[1].sym >= 0 && c->body->syms[o[1].sym].space == PS_SHARED)
            x->flags |= PF_SHSYM;
        break;
    }
    default: {
        /* arithmetic and logic: operand classes by instruction */
        uint8_t cd = T, ca = T, cb = T, cc = T, ce = SC_NONE;
        unsigned ta = t, tb = t, tc = t;
        unsigned nsrc = in->nops > 0 ? in->nops - 1u : 0;
        switch (in->op) {
        case PTXOP_MUL: case PTXOP_MAD:
            if (in->flags & PF_WIDE) {
                if (ptx_type_bytes(t) == 8)
                    return ptx_dc_err(c, ".wide needs a 16- or 32-bit type");
                /* twice the width: mul.wide.u16 writes a 32-bit register */
                bool w16 = ptx_type_bytes(t) == 2;
                cd = cc = w16 ? SC_32 : SC_64;
                tc = ptx_type_is_signed(t) ? (w16 ? PT_S32 : PT_S64) : (w16 ? PT_U32 : PT_U64);
            }
            break;
        case PTXOP_SHL: case PTXOP_SHR:
            cb = SC_32;
            tb = PT_U32;
            break;
        case PTXOP_BMSK: case PTXOP_SZEXT:   /* .b32 / .s32 .u32 d, a, b; b a .u32 */
            if (!(in->flags & (PF_CLAMP | PF_WRAP)) || ptx_type_bytes(t) != 4 ||
                (in->op == PTXOP_SZEXT && t != PT_S32 && t != PT_U32))
                return ptx_dc_err(c, in->op == PTXOP_BMSK ? "bmsk: expected .clamp or .wrap, "
                                  "and .b32" : "szext: expected .clamp or .wrap, and .s32 or .u32");
            cb = SC_32;
            tb = PT_U32;
            break;
        case PTXOP_POPC: case PTXOP_CLZ: case PTXOP_BFIND:
            cd = SC_32;
            break;
        case PTXOP_SELP:
            cc = SC_PRED;
            tc = PT_PRED;
            break;
        case PTXOP_SLCT:
            cc = SC_32;
            tc = in->type2 ? in->type2 : PT_S32;
            break;
        case PTXOP_SETP:
            cd = SC_PRED;
            cc = SC_PRED;
            tc = PT_PRED;
            break;
        case PTXOP_SET:
            ca = cb = cls_of_type(in->type2);
            ta = tb = in->type2;
            cc = SC_PRED;
            tc = PT_PRED;
            break;
        case PTXOP_CVT:
            ca = cls_of_type(in->type2);
            ta = in->type2;
            cb = ca;                 /* cvt.rn.f16x2.f32 d, a, b: b is an .f32 too */
            tb = in->type2;
            if (ptx_type_is_float(t) && !ptx_type_is_float(in->type2) && in->rnd >= PR_RNI)
                return ptx_dc_err(c, "integer rounding modifier on an int-to-float conversion");
            break;
        case PTXOP_TESTP:
            cd = SC_PRED;
            break;
        case PTXOP_ISSPACEP:     /* isspacep.SPACE p, a: a generic address */
            cd = SC_PRED;
            ca = SC_64;
            ta = PT_U64;
            break;
        case PTXOP_BFE:
            cb = cc = SC_32;
            tb = tc = PT_U32;
            break;
        case PTXOP_BFI:
            cc = SC_32;
            tc = PT_U32;
            ce = SC_32;
            break;
        case PTXOP_PRMT:
            cd = ca = cb = cc = SC_32;
            break;
        case PTXOP_SHF:
            cd = ca = cb = cc = SC_32;
            break;
        case PTXOP_LOP3:
            ce = SC_32;
            break;
        case PTXOP_CVTA:
            break;
        default:
            break;
        }
        if (in->op == PTXOP_CVTA && !(in->flags & PF_TO) && x->space == PS_GENERIC)
            return ptx_dc_err(c, "cvta needs a state space");
        if ((in->op == PTXOP_DIV || in->op == PTXOP_REM || in->op == PTXOP_MUL) && t == PT_PRED)
            return ptx_dc_err(c, "arithmetic on predicates");
        if (in->op == PTXOP_CVT) {
            /* cvt d, a (cvt.rn.f16x2.f32 d, a, b): the relaxed operand sizes */
            SIM_FORWARD_IF_ERROR(data_opnd(c, &o[0], t, true, true, &x->d));
            ptx_dc_add_dst(r, x, &x->d);
            struct slot *cs[2] = { &x->a, &x->b };
            for (unsigned i = 0; i < nsrc && i < 2; i++) {
                const struct ptx_opnd *so = &o[1 + i];
                if (so->kind == PO_MEM || so->kind == PO_LABEL || so->kind == PO_VEC)
                    return ptx_dc_err(c, "unexpected operand %u of '%s'", i + 1, r->m->mnems[in->mnem]);
                SIM_FORWARD_IF_ERROR(data_opnd(c, so, in->type2, false, true, cs[i]));
                ptx_dc_add_src(r, x, cs[i]);
            }
            break;
        }
        if (in->op == PTXOP_SETP && in->nops >= 1 && o[0].kind == PO_VEC) {
            struct ptx_opnd p0 = { .kind = PO_REG, .reg = o[0].regs[0] };
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &p0, SC_PRED, PT_PRED, &x->d, false));
            if (o[0].regs[1] >= 0) {
                struct ptx_opnd p1 = { .kind = PO_REG, .reg = o[0].regs[1] };
                SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &p1, SC_PRED, PT_PRED, &x->d2, false));
                ptx_dc_add_dst(r, x, &x->d2);
            }
        } else {
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[0], cd, t, &x->d, false));
        }
        ptx_dc_add_dst(r, x, &x->d);
        struct slot *srcs[4] = { &x->a, &x->b, &x->c, &x->e };
        uint8_t cls[4] = { ca, cb, cc, ce == SC_NONE ? T : ce };
        unsigned typ[4] = { ta, tb, tc, ce == SC_32 ? PT_U32 : t };
        for (unsigned i = 0; i < nsrc && i < 4; i++) {
            const struct ptx_opnd *so = &o[1 + i];
            if (so->kind == PO_MEM || so->kind == PO_LABEL || so->kind == PO_VEC)
                return ptx_dc_err(c, "unexpected operand %u of '%s'", i + 1, r->m->mnems[in->mnem]);
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, so, cls[i], typ[i], srcs[i], false));
            if (so->neg && cls[i] == SC_PRED)
                x->negmask |= (uint8_t)(1u << i);
            ptx_dc_add_src(r, x, srcs[i]);
        }
        break;
    }
    }
    return SIM_OK;
}

int
ptx_decode_kernel(struct ptx_run *r, struct sim_error *err)
{
    struct ptx_kernel *k = r->k;
    struct dctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.err = err;
    SIM_FORWARD_IF_ERROR(ptx_call_link(r, err));
    const struct xfunc *last = &r->funcs[r->n_funcs - 1];
    r->nvar32 = last->r32 + last->n32;
    r->nvar64 = last->r64 + last->n64;
    r->nvarp = last->rp + last->np;
    r->sreg_base = r->nvar32;
    r->id32 = r->nvarp;
    r->id64 = r->nvarp + r->nvar32;
    r->n_x = (uint32_t)last->end;
    r->x = xcalloc(r->n_x ? r->n_x : 1, sizeof *r->x);
    int rc = SIM_OK;
    for (uint32_t fi = 0; fi < r->n_funcs && rc == SIM_OK; fi++) {
        const struct xfunc *f = &r->funcs[fi];
        c.body = f->body;
        c.f = f;
        c.func = fi > 0;
        for (uint32_t i = 0; i < c.body->n_ins && rc == SIM_OK; i++) {
            struct xop *x = &r->x[f->entry + (int32_t)i];
            c.line = c.body->ins[i].line;
            rc = decode_ins(&c, &c.body->ins[i], x);
            x->spc = ((uint32_t)f->entry + i) * 16;
            if (x->kind == XK_BRA) {     /* body-relative: to x[] */
                x->target += f->entry;
                if (x->reconv >= 0)
                    x->reconv += f->entry;
            }
        }
    }
    free(c.h32);
    free(c.h64);
    if (rc < 0) {
        free(c.c32);
        free(c.c64);
        free(c.cp);
        return rc;
    }
    r->n32 = r->nvar32 + SR_COUNT + c.n_c32;
    r->cbase32 = r->nvar32 + SR_COUNT;
    for (unsigned i = 0; i < SR_COUNT; i++)
        r->sr_slot[i] = r->sreg_base + i;
    r->n64 = r->nvar64 + c.n_c64;
    r->npred = r->nvarp + c.n_cp;
    r->const32 = c.c32;
    r->const64 = c.c64;
    r->constp = c.cp;
    /* shared memory per block (local memory per thread: ptx_call_link) */
    r->shared_static = (uint32_t)k->shared_bytes + r->smem_funcs;
    r->shared_bytes = r->shared_static + r->l->smem;
    if (r->cc == 0 && sscanf(r->m->target, "sm_%u", &r->cc) != 1)
        r->cc = 0;
    if (c.reserved_smem) {
        /* the region reserved for the system software from compute capability
         * 8.0 (cooperative groups keep their tile barriers there), after the
         * user's shared memory; the model counts it as sm.smem_reserved */
        r->reserved_smem = (r->shared_bytes + 15) & ~15u;
        r->shared_bytes = r->reserved_smem + PTX_RESERVED_SMEM;
    }
    return SIM_OK;
}
