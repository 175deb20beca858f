/*
 * ptx_lower_mma.c - tensor-core instructions as ptxas emits them on sm_90
 * (see ptx_lower_mma.h).
 */
#include "frontend/lower/ptx_lower_mma.h"

#include <stdio.h>
#include <string.h>

#include "frontend/exec/ptx_decode.h"
#include "frontend/exec/ptx_mma.h"
#include "frontend/exec/ptx_wgmma.h"

static const char *
type_suffix(unsigned t)
{
    switch (t) {
    case PT_F16: return "F16";
    case PT_BF16: return "BF16";
    case PT_TF32: return "TF32";
    case PT_S8: return "S8";
    case PT_U8: return "U8";
    case PT_S32: return "S32";
    default: return "F32";
    }
}

void
ptx_lower_mma_mnemonic(const struct ptx_mma_desc *d, char *buf, size_t n)
{
    unsigned k = d->k;
    if (d->atype == PT_F64) {    /* DMMA.884 (wmma .m8n8k4 too), DMMA.16816 ... */
        snprintf(buf, n, "DMMA.%u%u%u", d->m, d->n, k);
        return;
    }
    if (d->wmma)                 /* one tile: K of the m16n8 mma it is made of */
        k = d->atype == PT_TF32 ? 8 : 16;
    if (d->atype == PT_S8 || d->atype == PT_U8) {
        snprintf(buf, n, "IMMA.168%u.%s.%s%s", k, type_suffix(d->atype), type_suffix(d->btype),
                 d->satfinite ? ".SAT" : "");
        return;
    }
    const char *in = d->atype == PT_BF16 ? ".BF16" : d->atype == PT_TF32 ? ".TF32" : "";
    snprintf(buf, n, "HMMA.168%u.%s%s", k, d->dtype == PT_F16 ? "F16" : "F32", in);
}

void
ptx_lower_wgmma_mnemonic(const struct xop *o, char *buf, size_t n)
{
    unsigned a = o->type2, k = ptx_wgmma_k(a), nn = o->vec * 8u;
    const char *d = o->type == PT_F16 ? "F16" : o->type == PT_S32 ? "S32" : "F32";
    if (a == PT_S8 || a == PT_U8)     /* IGMMA.64x256x32.S8.S8 */
        snprintf(buf, n, "IGMMA.64x%ux%u.%s.%s%s", nn, k, type_suffix(a), type_suffix(o->btype),
                 (o->flags & PF_SATFINITE) ? ".SAT" : "");
    else if (a == PT_E4M3 || a == PT_E5M2)   /* QGMMA.64x256x32.F32.E4M3.E4M3 */
        snprintf(buf, n, "QGMMA.64x%ux%u.%s.%s.%s", nn, k, d, a == PT_E4M3 ? "E4M3" : "E5M2",
                 o->btype == PT_E4M3 ? "E4M3" : "E5M2");
    else                              /* HGMMA.64x128x16.F32(.BF16, .TF32) */
        snprintf(buf, n, "HGMMA.64x%ux%u.%s%s", nn, k, d,
                 a == PT_BF16 ? ".BF16" : a == PT_TF32 ? ".TF32" : "");
}

/* Append the timing id of slot s to list unless it is not a register. */
static void
add_id(const struct ptx_run *r, uint16_t *list, uint8_t *cnt, unsigned max, const struct slot *s)
{
    uint16_t id;
    if (ptx_decode_reg_id(r, s, &id))
        ptx_lower_emit_add_id(list, cnt, max, id);
}

/* o's operation reset to its guard as its only source and no destination. */
static struct xop
bare(const struct xop *o)
{
    struct xop x = *o;
    x.n_dst = 0;
    x.n_src = 0;
    x.frag_rd = x.frag_wr = 0;
    x.ids_truncated = false;
    if (o->guard >= 0)
        x.src[x.n_src++] = (uint16_t)o->guard;
    return x;
}

/* wmma.mma: one operation per tile; the last computes the whole product,
 * so it alone keeps the PTX instruction's registers for the functional
 * order (ptx_sched.c): an earlier tile waits only for its own fragments,
 * and ptxas may load the next tile's B after it (the wmma_gemm listing:
 * LDG R18, R19 after the first HMMA.16816 that read them). */
static int
lower_wmma(struct lower_emit *B, const struct xop *o, const struct ptx_mma_desc *d)
{
    const struct ptx_run *r = B->r;
    char mn[64];
    ptx_lower_mma_mnemonic(d, mn, sizeof mn);
    unsigned nt = ptx_mma_tiles(d);
    for (unsigned i = 0; i < nt; i++) {
        uint8_t a[PTX_FRAG_MAX], b[PTX_FRAG_MAX], c[PTX_FRAG_MAX];
        unsigned na, nb, nc;
        ptx_mma_tile_regs(d, i, a, &na, b, &nb, c, &nc);
        struct xop x = bare(o);
        x.part = (uint8_t)i;
        x.nparts = (uint8_t)nt;
        x.head = o->head && i == 0;
        for (unsigned k = 0; k < nc; k++)
            add_id(r, x.dst, &x.n_dst, SIM_MAX_DST, &o->frag[c[k]]);
        for (unsigned k = 0; k < na; k++)
            add_id(r, x.src, &x.n_src, SIM_MAX_SRC, &o->frag[PTX_WMMA_A + a[k]]);
        for (unsigned k = 0; k < nb; k++)
            add_id(r, x.src, &x.n_src, SIM_MAX_SRC, &o->frag[PTX_WMMA_B + b[k]]);
        for (unsigned k = 0; k < nc; k++)
            add_id(r, x.src, &x.n_src, SIM_MAX_SRC, &o->frag[PTX_WMMA_C + c[k]]);
        if (i + 1 < nt) {
            x.n_fsrc = x.n_fdst = 0;
        } else {
            /* the product reads all of A, B and C and writes all of D:
             * 8 registers of D, 24 of A, B and C are more than the PTX
             * instruction's lists hold */
            unsigned dist, n[4];
            const char fr[4] = { 'd', 'a', 'b', 'c' };
            for (unsigned k = 0; k < 4; k++)
                n[k] = ptx_mma_frag_regs(d, (unsigned)fr[k], &dist);
            x.frag_wr = (1u << n[0]) - 1;
            x.frag_rd = ((1u << n[1]) - 1) << PTX_WMMA_A | ((1u << n[2]) - 1) << PTX_WMMA_B |
                        ((1u << n[3]) - 1) << PTX_WMMA_C;
        }
        SIM_FORWARD_IF_ERROR(ptx_lower_emit_op(B, &x, mn, false));
    }
    return SIM_OK;
}

static const char *
width_suffix(unsigned w)
{
    switch (w) {
    case 1: return ".U8";
    case 2: return ".U16";
    case 8: return ".64";
    case 16: return ".128";
    default: return "";
    }
}

/* A timing-only operation of o: sass, writing dst, reading the ids of
 * src[0 .. ns). */
static int
timing(struct lower_emit *B, const struct xop *o, const char *sass, uint16_t dst,
       const uint16_t *src, unsigned ns)
{
    struct xop x = bare(o);
    x.kind = XK_TIMING;
    x.head = false;
    x.opclass = SIM_OPC_INT;
    x.dst[x.n_dst++] = dst;
    for (unsigned i = 0; i < ns; i++)
        ptx_lower_emit_add_id(x.src, &x.n_src, SIM_MAX_SRC, src[i]);
    return ptx_lower_emit_op(B, &x, sass, false);
}

/* wmma.load / wmma.store: the addresses, then one memory operation per
 * part of the split.  ptxas adds the lane's offset in the tile (computed
 * once per kernel from %laneid) to the fragment's base, a 64-bit add of a
 * global address (IADD3 + IMAD.X) or a 32-bit one (IADD3), and when the
 * leading dimension is not a constant each further row (column-major:
 * column) of the tile a lane touches needs its own base register,
 * IMAD.WIDE.U32 ld x rows from the first (the wmma_gemm listing: rows g
 * and g + 8 of A, LDG.E [R28], [R28 + 0x10] and LDG.E [R28'] after
 * IMAD.WIDE.U32 R28', R3, 0x10, R28); the parts use these bases. */
static int
lower_wmma_mem(struct lower_emit *B, const struct xop *o, const struct ptx_mma_desc *d)
{
    const struct ptx_run *r = B->r;
    unsigned f = o->atom;
    bool load = o->kind == XK_WLOAD, shared = o->space == PS_SHARED;
    bool col_major = (o->flags & PF_COLMAJOR) != 0;
    struct ptx_frag_part parts[PTX_PARTS_MAX];
    unsigned np = ptx_mma_parts(d, f, col_major, shared, parts);
    unsigned dist, nregs = ptx_mma_frag_regs(d, f, &dist);
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    unsigned ne = ptx_mma_frag(d, f, 0, el);
    /* the base registers */
    uint16_t in[2], nin = 0, base_id = 0;
    if (ptx_decode_reg_id(r, &o->base, &in[nin]))
        nin++;
    uint16_t ld_id;
    bool ld_reg = ptx_decode_reg_id(r, &o->b, &ld_id);
    bool ldsm = np > 0 && parts[0].ldsm;
    unsigned majors = 0;
    uint8_t seen[PTX_FRAG_MAX];
    for (unsigned i = 0; i < ne; i++) {
        uint8_t mj = col_major ? el[i].col : el[i].row;
        bool dup = false;
        for (unsigned k = 0; k < majors && !dup; k++)
            dup = seen[k] == mj;
        if (!dup)
            seen[majors++] = mj;
    }
    if (nin > 0) {
        base_id = (uint16_t)(PTX_TMP_BASE + B->tmp++ % PTX_TMP_COUNT);
        SIM_FORWARD_IF_ERROR(timing(B, o, "IADD3", base_id, in, nin));
        if (o->base.cls == SC_64)
            SIM_FORWARD_IF_ERROR(timing(B, o, "IMAD.X", base_id, &base_id, 1));
    }
    uint16_t more[PTX_FRAG_MAX];
    unsigned nmore = 0;
    for (unsigned k = 1; !ldsm && ld_reg && nin > 0 && k < majors; k++) {
        uint16_t src[2] = { base_id, ld_id };
        more[nmore] = (uint16_t)(PTX_TMP_BASE + B->tmp++ % PTX_TMP_COUNT);
        SIM_FORWARD_IF_ERROR(timing(B, o, "IMAD.WIDE.U32", more[nmore], src, 2));
        nmore++;
    }
    for (unsigned p = 0; p < np; p++) {
        struct xop x = bare(o);
        x.part = (uint8_t)p;
        x.nparts = (uint8_t)np;
        x.head = o->head && p == 0;
        if (nin > 0)
            ptx_lower_emit_add_id(x.src, &x.n_src, SIM_MAX_SRC, base_id);
        else
            add_id(r, x.src, &x.n_src, SIM_MAX_SRC, &o->base);
        if (nmore > 0) {         /* the base register of this part's first element */
            uint8_t mj = col_major ? el[parts[p].elem[0]].col : el[parts[p].elem[0]].row;
            for (unsigned k = 1; k < majors; k++)
                if (seen[k] == mj)
                    ptx_lower_emit_add_id(x.src, &x.n_src, SIM_MAX_SRC, more[k - 1]);
        }
        /* the part's registers, then their repeats (f16 A and B) */
        uint8_t regs[PTX_FRAG_MAX];
        unsigned nr = 0;
        for (unsigned q = 0; q < parts[p].nelem; q++) {
            uint8_t reg = el[parts[p].elem[q]].reg;
            if (nr == 0 || regs[nr - 1] != reg)
                regs[nr++] = reg;
        }
        for (unsigned rep = 0; rep * dist < nregs; rep++)
            for (unsigned q = 0; q < nr && rep * dist + regs[q] < nregs; q++) {
                const struct slot *s = &o->frag[rep * dist + regs[q]];
                if (load)
                    add_id(r, x.dst, &x.n_dst, SIM_MAX_DST, s);
                else if (rep == 0)
                    add_id(r, x.src, &x.n_src, SIM_MAX_SRC, s);
                /* as it executes: a load updates its registers' elements
                 * (reading the others' halves) and their repeats, a store
                 * reads them; an LDSM's eight are more than dst[] holds */
                if (load || rep == 0)
                    x.frag_rd |= 1u << (rep * dist + regs[q]);
                if (load)
                    x.frag_wr |= 1u << (rep * dist + regs[q]);
            }
        if (load) {              /* the part loads its own registers (ptx_exec.c) */
            x.n_fdst = x.n_dst;
            memcpy(x.fdst, x.dst, sizeof x.fdst);
        }
        char mn[48];
        if (parts[p].ldsm)
            snprintf(mn, sizeof mn, "LDSM.16.%s.4", (f == 'b') != col_major ? "MT88" : "M88");
        else if (shared)
            snprintf(mn, sizeof mn, "%s%s", load ? "LDS" : "STS", width_suffix(parts[p].width));
        else
            snprintf(mn, sizeof mn, "%s.E%s", load ? "LDG" : "STG", width_suffix(parts[p].width));
        SIM_FORWARD_IF_ERROR(ptx_lower_emit_op(B, &x, mn, true));
    }
    return SIM_OK;
}

int
ptx_lower_mma(struct lower_emit *B, const struct xop *o)
{
    struct ptx_mma_desc d;
    ptx_mma_desc_of(o, &d);
    char mn[64];
    switch (o->kind) {
    case XK_MMA:
        ptx_lower_mma_mnemonic(&d, mn, sizeof mn);
        return ptx_lower_emit_op(B, o, mn, false);
    case XK_WMMA:
        return lower_wmma(B, o, &d);
    case XK_WLOAD:
    case XK_WSTORE:
        return lower_wmma_mem(B, o, &d);
    case XK_WGMMA:
        ptx_lower_wgmma_mnemonic(o, mn, sizeof mn);
        return ptx_lower_emit_op(B, o, mn, true);
    case XK_LDMATRIX:
    case XK_STMATRIX:
        snprintf(mn, sizeof mn, "%s.16.%s%s", o->kind == XK_LDMATRIX ? "LDSM" : "STSM",
                 (o->flags & PF_TRANS) ? "MT88" : "M88",
                 o->vec == 4 ? ".4" : o->vec == 2 ? ".2" : "");
        return ptx_lower_emit_op(B, o, mn, true);
    default:
        return sim_error_set(B->err, SIM_ERR_INTERNAL, "ptx_lower_mma: not a tensor instruction");
    }
}
