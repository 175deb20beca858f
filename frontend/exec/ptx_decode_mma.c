/*
 * ptx_decode_mma.c - decoding of the tensor-core instructions: mma.sync,
 * wmma, ldmatrix/stmatrix and wgmma (see ptx_decode_int.h; executed by
 * ptx_mma.c and ptx_wgmma.c).
 */
#include "frontend/exec/ptx_decode_int.h"
#include "frontend/exec/ptx_mma.h"
#include "frontend/exec/ptx_wgmma.h"

#include <string.h>

/* Decode fragment operand o ({r0, ..}) of n registers of element type t
 * (.f64: 64-bit registers, else 32-bit) into slots. */
static int
frag_regs(struct dctx *c, const struct ptx_opnd *o, unsigned n, unsigned t, const char *what,
          struct slot *out)
{
    unsigned have = o->kind == PO_VEC ? o->nvec : o->kind == PO_REG ? 1 : 0;
    if (have != n)
        return ptx_dc_err(c, "the %s fragment needs %u register%s in { }, found %u", what, n,
                    n == 1 ? "" : "s", have);
    for (unsigned i = 0; i < n; i++) {
        struct ptx_opnd ro = { .kind = PO_REG, .reg = o->kind == PO_VEC ? o->regs[i] : o->reg };
        if (ro.reg < 0)
            return ptx_dc_err(c, "'_' in a %s fragment", what);
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &ro, t == PT_F64 ? SC_64 : SC_32,
                                         t == PT_F64 ? PT_F64 : PT_B32, &out[i], false));
    }
    return SIM_OK;
}

/* mma.sync.aligned and wmma.mma.sync.aligned (ptx_mma.h): operands {D},
 * {A}, {B}, {C}.  The model sees D written and A, B and C read (the sm_90
 * lowering splits a wmma into its tiles, each with its own registers). */
int
ptx_dc_mma(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    struct ptx_mma_desc d;
    memset(&d, 0, sizeof d);
    d.wmma = in->op == PTXOP_WMMA;
    const char *why;
    if (!ptx_mma_shape_dims(in->shape, &d.m, &d.n, &d.k) || in->shape == SH_M8N8)
        return ptx_dc_err(c, "'%s' needs a shape (.m16n8k16, ...)", r->m->mnems[in->mnem]);
    d.dtype = in->type;
    if (d.wmma && in->vec == 2) {            /* wmma.mma .dtype.ctype: f16 inputs */
        d.atype = d.btype = PT_F16;
        d.ctype = in->type2;
    } else if (in->vec == 4) {
        d.atype = in->type2;
        d.btype = in->type3;
        d.ctype = in->type4;
    } else {
        return ptx_dc_err(c, "'%s': expected the types .dtype.atype.btype.ctype%s",
                    r->m->mnems[in->mnem], d.wmma ? " (or .dtype.ctype with .f16 inputs)" : "");
    }
    d.satfinite = (in->flags & PF_SATFINITE) != 0;
    if (!(in->flags & PF_SYNC) || !ptx_mma_supported(&d, &why))
        return ptx_dc_err(c, "unsupported form '%s' (supported: %s)", r->m->mnems[in->mnem], why);
    static const char fr[4] = { 'd', 'a', 'b', 'c' };
    static const char *const what[4] = { "D", "A", "B", "C" };
    const unsigned wbase[4] = { 0, PTX_WMMA_A, PTX_WMMA_B, PTX_WMMA_C };
    unsigned at = 0, n[4], dist[4];
    for (unsigned k = 0; k < 4; k++) {
        n[k] = ptx_mma_frag_regs(&d, (unsigned)fr[k], &dist[k]);
        unsigned base = d.wmma ? wbase[k] : at;
        SIM_FORWARD_IF_ERROR(frag_regs(c, &in->o[k], n[k], ptx_mma_frag_type(&d, (unsigned)fr[k]),
                                       what[k], &x->frag[base]));
        at += n[k];
    }
    x->kind = d.wmma ? XK_WMMA : XK_MMA;
    x->shape = in->shape;
    x->type = d.dtype;
    x->type2 = d.atype;
    x->btype = d.btype;
    x->ctype = d.ctype;
    x->flags = in->flags;
    x->rnd = d.atype == PT_F64 ? in->rnd : 0;   /* .f64 only: .rn .rz .rm .rp */
    const struct slot *D = &x->frag[0];
    const struct slot *A = &x->frag[d.wmma ? PTX_WMMA_A : n[0]];
    const struct slot *B = &x->frag[d.wmma ? PTX_WMMA_B : n[0] + n[1]];
    const struct slot *C = &x->frag[d.wmma ? PTX_WMMA_C : n[0] + n[1] + n[2]];
    for (unsigned i = 0; i < dist[0]; i++)
        ptx_dc_add_dst(r, x, &D[i]);
    for (unsigned i = 0; i < dist[1]; i++)
        ptx_dc_add_src(r, x, &A[i]);
    for (unsigned i = 0; i < dist[2]; i++)
        ptx_dc_add_src(r, x, &B[i]);
    for (unsigned i = 0; i < dist[3]; i++)
        ptx_dc_add_src(r, x, &C[i]);
    return SIM_OK;
}

/* wmma.load.{a,b,c} / wmma.store.d (ptx_mma.h): d, [p][, stride] or [p],
 * d[, stride] (stride in elements, 16 when not given). */
int
ptx_dc_wmma_mem(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    const struct ptx_opnd *o = in->o;
    unsigned f = in->frag;
    bool load = in->mode == PM_WLOAD;
    if ((load && (f < 'a' || f > 'c')) || (!load && f != 'd'))
        return ptx_dc_err(c, "expected wmma.load.a/.b/.c or wmma.store.d");
    struct ptx_mma_desc d;
    memset(&d, 0, sizeof d);
    d.wmma = true;
    if (!ptx_mma_shape_dims(in->shape, &d.m, &d.n, &d.k) ||
        ((in->shape < SH_M16N16K16 || in->shape > SH_M16N16K8) && in->shape != SH_M8N8K4))
        return ptx_dc_err(c, "wmma needs a shape: .m16n16k16, .m32n8k16, .m8n32k16, .m16n16k8 or "
                          ".m8n8k4");
    unsigned t = in->type;
    bool ab = f == 'a' || f == 'b';
    bool tf32_shape = in->shape == SH_M16N16K8, f64_shape = in->shape == SH_M8N8K4;
    bool ok = f64_shape ? t == PT_F64
            : ab ? (tf32_shape ? t == PT_TF32
                               : (t == PT_F16 || t == PT_BF16 || t == PT_S8 || t == PT_U8))
                 : (tf32_shape ? t == PT_F32 : (t == PT_F32 || t == PT_F16 || t == PT_S32));
    if (!ok)
        return ptx_dc_err(c, "unsupported wmma.%s.%c type '.%s' for .%ux%ux%u (A/B: .f16 .bf16 .s8 "
                    ".u8, or .tf32 for m16n16k8; C/D: .f32 .f16 .s32, or .f32 for m16n16k8; "
                    ".f64 for m8n8k4)",
                    load ? "load" : "store", f, ptx_type_name(t), d.m, d.n, d.k);
    x->type2 = x->btype = ab ? (uint8_t)t
                             : (uint8_t)(f64_shape ? PT_F64 : tf32_shape ? PT_TF32 : PT_F16);
    x->ctype = ab ? (uint8_t)(f64_shape ? PT_F64 : PT_F32) : (uint8_t)t;
    x->type = (uint8_t)t;
    x->shape = in->shape;
    x->kind = load ? XK_WLOAD : XK_WSTORE;
    ptx_mma_desc_of(x, &d);
    unsigned dist, nregs = ptx_mma_frag_regs(&d, f, &dist);
    const struct ptx_opnd *mo = load ? &o[1] : &o[0], *fo = load ? &o[0] : &o[1];
    x->space = in->space;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, mo, x));
    SIM_FORWARD_IF_ERROR(frag_regs(c, fo, nregs, t, load ? "loaded" : "stored", &x->frag[0]));
    x->atom = (uint8_t)f;
    x->flags = in->flags;
    x->iflags = load ? SIM_IF_LOAD : SIM_IF_STORE;
    x->b.cls = SC_NONE;
    if (in->nops == 3)
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_32, PT_U32, &x->b, false));
    ptx_dc_add_src(r, x, &x->base);
    ptx_dc_add_src(r, x, &x->b);
    for (unsigned i = 0; i < dist; i++) {
        if (load && i < SIM_MAX_DST)
            ptx_dc_add_dst(r, x, &x->frag[i]);
        else if (!load)
            ptx_dc_add_src(r, x, &x->frag[i]);
    }
    x->ids_truncated = false;    /* the fragment's first registers stand for it */
    return SIM_OK;
}

/* ldmatrix / stmatrix .sync.aligned.m8n8.x{1,2,4}{.trans}.b16 (ptx_mma.h):
 * {r0 ..}, [p] or [p], {r0 ..}. */
int
ptx_dc_ldmatrix(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    bool load = in->op == PTXOP_LDMATRIX;
    if (!(in->flags & PF_SYNC) || in->shape != SH_M8N8 || in->type != PT_B16 ||
        (in->vec != 1 && in->vec != 2 && in->vec != 4))
        return ptx_dc_err(c, "expected %s.sync.aligned.m8n8.x1/.x2/.x4{.trans}{.shared}.b16",
                    load ? "ldmatrix" : "stmatrix");
    if (in->space != PS_SHARED && in->space != PS_GENERIC)
        return ptx_dc_err(c, "%s accesses shared memory", load ? "ldmatrix" : "stmatrix");
    x->space = in->space;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, &in->o[load ? 1 : 0], x));
    SIM_FORWARD_IF_ERROR(frag_regs(c, &in->o[load ? 0 : 1], in->vec, PT_B32,
                                   load ? "loaded" : "stored", &x->frag[0]));
    x->kind = load ? XK_LDMATRIX : XK_STMATRIX;
    x->shape = in->shape;
    x->type = PT_B16;
    x->vec = in->vec;
    x->flags = in->flags;
    x->iflags = load ? SIM_IF_LOAD : SIM_IF_STORE;
    ptx_dc_add_src(r, x, &x->base);
    for (unsigned i = 0; i < in->vec; i++) {
        if (load)
            ptx_dc_add_dst(r, x, &x->frag[i]);
        else
            ptx_dc_add_src(r, x, &x->frag[i]);
    }
    return SIM_OK;
}


/* An immediate operand of wgmma that must be one of two values. */
static int
wg_imm(struct dctx *c, const struct ptx_opnd *o, const char *what, int64_t a, int64_t b,
       bool *is_b)
{
    if (o->kind != PO_IMM || (o->imm != a && o->imm != b))
        return ptx_dc_err(c, "wgmma: %s must be the constant %lld or %lld", what, (long long)a,
                          (long long)b);
    *is_b = o->imm == b;
    return SIM_OK;
}

/* wgmma (PTX ISA 9.7.15): .mma_async d, a-desc | {a}, b-desc, scale-d
 * {, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b} (the trailing
 * immediates as the types have them: f16/bf16 all, tf32 and FP8 the
 * scales, integers none); .fence, .commit_group, .wait_group N.  D's
 * registers go to r->wslots; the model sees the descriptors and A's
 * registers read, and the group's register written (ptx_exec.c). */
int
ptx_dc_wgmma(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    struct ptx_run *r = c->r;
    const struct ptx_opnd *o = in->o;
    if (!(in->flags & PF_SYNC))
        return ptx_dc_err(c, "wgmma needs .sync.aligned");
    switch (in->mode) {
    case PM_WG_FENCE: x->kind = XK_WGFENCE; return SIM_OK;
    case PM_WG_COMMIT: x->kind = XK_WGCOMMIT; return SIM_OK;
    case PM_WG_WAIT:
        if (o[0].kind != PO_IMM || o[0].imm < 0 || o[0].imm > 7)
            return ptx_dc_err(c, "wgmma.wait_group needs a constant group count 0 .. 7");
        x->kind = XK_WGWAIT;
        x->vec = (uint8_t)o[0].imm;
        return SIM_OK;   /* its sources are set as it executes (ptx_exec.c) */
    case PM_WG_MMA: break;
    default: return ptx_dc_err(c, "wgmma: expected .mma_async, .fence, .commit_group or .wait_group");
    }
    if (in->shape != SH_M64)
        return ptx_dc_err(c, "wgmma.mma_async needs a shape .m64nNkK");
    struct ptx_wgmma_desc d;
    memset(&d, 0, sizeof d);
    d.n = (uint16_t)(in->vec * 8u);
    d.k = in->frag;
    d.dtype = in->type;
    d.atype = in->type2;
    d.btype = in->type3;
    d.satfinite = (in->flags & PF_SATFINITE) != 0;
    bool a_regs = o[1].kind == PO_VEC;
    bool half = d.atype == PT_F16 || d.atype == PT_BF16;
    bool intg = d.atype == PT_S8 || d.atype == PT_U8;
    unsigned want = intg ? 4 : half ? (a_regs ? 7 : 8) : 6;
    if (in->nops != want)
        return ptx_dc_err(c, "wgmma.mma_async .%s with A %s takes %u operands, found %u",
                          ptx_type_name(d.atype), a_regs ? "in registers" : "from a descriptor",
                          want, in->nops);
    bool v = false;
    if (!intg) {
        SIM_FORWARD_IF_ERROR(wg_imm(c, &o[4], "imm-scale-a", 1, -1, &v));
        d.mode |= v ? WG_NEG_A : 0;
        SIM_FORWARD_IF_ERROR(wg_imm(c, &o[5], "imm-scale-b", 1, -1, &v));
        d.mode |= v ? WG_NEG_B : 0;
    }
    if (half && !a_regs) {
        SIM_FORWARD_IF_ERROR(wg_imm(c, &o[6], "imm-trans-a", 0, 1, &v));
        d.mode |= v ? WG_TRANS_A : 0;
    }
    if (half) {
        SIM_FORWARD_IF_ERROR(wg_imm(c, &o[a_regs ? 6 : 7], "imm-trans-b", 0, 1, &v));
        d.mode |= v ? WG_TRANS_B : 0;
    }
    d.mode |= a_regs ? WG_A_REGS : 0;
    const char *why;
    if (!ptx_wgmma_supported(&d, &why))
        return ptx_dc_err(c, "unsupported form '%s' (supported: %s)", r->m->mnems[in->mnem], why);
    /* D */
    unsigned nd = ptx_wgmma_d_regs(&d);
    if (o[0].kind != PO_VEC || o[0].nvec != nd)
        return ptx_dc_err(c, "wgmma.mma_async .m64n%u .%s: D needs %u registers in { }, found %u",
                          d.n, ptx_type_name(d.dtype), nd, o[0].kind == PO_VEC ? o[0].nvec : 0);
    if (r->n_wslots + nd > r->cap_wslots) {
        r->cap_wslots = 2 * (r->n_wslots + nd);
        r->wslots = xrealloc(r->wslots, r->cap_wslots * sizeof *r->wslots);
    }
    x->off = r->n_wslots;
    for (unsigned i = 0; i < nd; i++) {
        struct ptx_opnd ro = { .kind = PO_REG, .reg = ptx_vec_reg(c->body, &o[0], i) };
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &ro, SC_32, PT_B32, &r->wslots[r->n_wslots + i],
                                         false));
    }
    r->n_wslots += nd;
    /* A, B, scale-d */
    if (a_regs) {
        if (o[1].nvec != 4)
            return ptx_dc_err(c, "wgmma.mma_async: A in registers needs 4 registers in { }, "
                              "found %u", o[1].nvec);
        for (unsigned i = 0; i < 4; i++) {
            struct ptx_opnd ro = { .kind = PO_REG, .reg = o[1].regs[i] };
            if ((o[1].vimm & (1u << i)) || ro.reg < 0)
                return ptx_dc_err(c, "wgmma.mma_async: A's fragment holds registers only");
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &ro, SC_32, PT_B32, &x->frag[i], false));
            ptx_dc_add_src(r, x, &x->frag[i]);
        }
    } else {
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[1], SC_64, PT_B64, &x->a, false));
        ptx_dc_add_src(r, x, &x->a);
    }
    SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[2], SC_64, PT_B64, &x->b, false));
    ptx_dc_add_src(r, x, &x->b);
    SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &o[3], SC_PRED, PT_PRED, &x->c, false));
    if (o[3].neg)
        x->negmask |= 4u;
    ptx_dc_add_src(r, x, &x->c);
    x->kind = XK_WGMMA;
    x->type = d.dtype;
    x->type2 = d.atype;
    x->btype = d.btype;
    x->vec = (uint8_t)(d.n / 8);
    x->mode = d.mode;
    x->flags = in->flags;
    return SIM_OK;
}
