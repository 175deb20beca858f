/*
 * ptx_wgmma.c - wgmma.mma_async (see ptx_wgmma.h).
 */
#include "frontend/exec/ptx_wgmma.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_mma.h"

#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_lanes.h"

/* The shared-memory operands of one wgmma of a warpgroup, as its first
 * warp read them: A's 64 rows (when A is in shared memory) and B's N
 * columns, each K long; freed when the four warps have used them. */
struct wg_snap {
    struct wg_snap *next;
    uint32_t group;              /* warp index / 4 */
    uint32_t seq;                /* the warps' wgmma_seq of this wgmma */
    uint8_t used;                /* bit q: warp q of the group has executed it */
    uint64_t adesc, bdesc;       /* the descriptors (A's 0 when in registers) */
    double a[64][32];
    double bt[256][32];
};

void
ptx_wgmma_block_free(struct ptx_run *r, struct pblock *b)
{
    while (b->wg_snaps != NULL) {
        struct wg_snap *n = b->wg_snaps->next;
        b->wg_snaps->next = r->wg_free;
        r->wg_free = b->wg_snaps;
        b->wg_snaps = n;
    }
}

void
ptx_wgmma_free(struct ptx_run *r)
{
    while (r->wg_free != NULL) {
        struct wg_snap *n = r->wg_free->next;
        free(r->wg_free);
        r->wg_free = n;
    }
}

unsigned
ptx_wgmma_k(unsigned t)
{
    switch (t) {
    case PT_F16: case PT_BF16: return 16;
    case PT_TF32: return 8;
    case PT_E4M3: case PT_E5M2: case PT_S8: case PT_U8: return 32;
    default: return 0;
    }
}

static unsigned
esize(unsigned t)
{
    return 32u / ptx_wgmma_k(t);
}

static bool
is_int(unsigned t)
{
    return t == PT_S8 || t == PT_U8;
}

bool
ptx_wgmma_supported(const struct ptx_wgmma_desc *d, const char **why)
{
    unsigned a = d->atype, b = d->btype, dt = d->dtype;
    bool half = a == PT_F16 || a == PT_BF16, f8 = a == PT_E4M3 || a == PT_E5M2;
    bool ok;
    if (half)
        ok = b == a && (dt == PT_F32 || (a == PT_F16 && dt == PT_F16));
    else if (a == PT_TF32)
        ok = b == a && dt == PT_F32;
    else if (f8)
        ok = (b == PT_E4M3 || b == PT_E5M2) && (dt == PT_F32 || dt == PT_F16);
    else if (is_int(a))
        ok = is_int(b) && dt == PT_S32;
    else
        ok = false;
    ok = ok && d->k == ptx_wgmma_k(a) && d->n >= 8 && d->n <= 256 && d->n % 8 == 0;
    /* the 8-bit integer shapes: N 8, 16, 24, then multiples of 16 */
    ok = ok && (!is_int(a) || d->n <= 24 || d->n % 16 == 0);
    ok = ok && (!d->satfinite || is_int(a));
    ok = ok && (half || !(d->mode & (WG_TRANS_A | WG_TRANS_B)));
    ok = ok && (!is_int(a) || !(d->mode & (WG_NEG_A | WG_NEG_B)));
    *why = "wgmma.mma_async.sync.aligned.m64nNkK: .f32 or .f16 D with .f16 A and B (K 16), .f32 "
           "with .bf16 (K 16) or .tf32 (K 8), .f32 or .f16 with .e4m3/.e5m2 (K 32), .s32 with "
           ".s8/.u8 (K 32, N 8, 16, 24 or a multiple of 16; .satfinite); N a multiple of 8 up to "
           "256; transposes for .f16/.bf16 only, negation for floating-point types only";
    return ok;
}

unsigned
ptx_wgmma_d_regs(const struct ptx_wgmma_desc *d)
{
    return d->dtype == PT_F16 ? d->n / 4u : d->n / 2u;
}

uint32_t
ptx_wgmma_a_bytes(const struct ptx_wgmma_desc *d)
{
    return (d->mode & WG_A_REGS) ? 0 : 64u * 32u;
}

uint32_t
ptx_wgmma_b_bytes(const struct ptx_wgmma_desc *d)
{
    return d->n * 32u;
}

/* An operand's layout: element (i, k) at start + ioff(i) + koff(k), then
 * swizzled (ptx_wgmma.h).  The two parts are separable in every layout. */
struct layout {
    uint32_t start, lbo, sbo, w;  /* bytes; w: row bytes of the swizzle (16: none) */
    unsigned bits;               /* log2(w / 16) */
    bool mn_major;
    unsigned size;               /* bytes per element */
};

static void
layout_of(uint64_t desc, bool mn_major, unsigned size, struct layout *l)
{
    unsigned sw = (unsigned)(desc >> 62);
    l->start = (uint32_t)(desc & 0x3fffu) << 4;
    l->lbo = (uint32_t)((desc >> 16) & 0x3fffu) << 4;
    l->sbo = (uint32_t)((desc >> 32) & 0x3fffu) << 4;
    l->bits = sw == 1 ? 3 : sw == 2 ? 2 : sw == 3 ? 1 : 0;
    l->w = 16u << l->bits;
    l->mn_major = mn_major;
    l->size = size;
}

static uint32_t
ioff(const struct layout *l, unsigned i)
{
    uint32_t ib = i * l->size;
    if (!l->mn_major)
        return (i % 8) * l->w + (i / 8) * l->sbo;
    return l->bits == 0 ? (ib / 16) * l->sbo + ib % 16 : (ib / l->w) * l->lbo + ib % l->w;
}

static uint32_t
koff(const struct layout *l, unsigned k)
{
    uint32_t kb = k * l->size;
    if (!l->mn_major)
        return l->bits == 0 ? (kb / 16) * l->lbo + kb % 16 : kb;
    return (k % 8) * l->w + (k / 8) * (l->bits == 0 ? l->lbo : l->sbo);
}

static uint32_t
swizzled(const struct layout *l, uint32_t a)
{
    return l->bits == 0 ? a : a ^ (((a >> 7) & ((1u << l->bits) - 1)) << 4);
}

uint32_t
ptx_wgmma_elem_addr(uint64_t desc, bool mn_major, unsigned i, unsigned k, unsigned size)
{
    struct layout l;
    layout_of(desc, mn_major, size, &l);
    return swizzled(&l, l.start + ioff(&l, i) + koff(&l, k));
}

void
ptx_wgmma_desc_of(const struct ptx_run *r, const struct xop *x, struct ptx_wgmma_desc *d)
{
    (void)r;
    memset(d, 0, sizeof *d);
    d->n = (uint16_t)(x->vec * 8u);
    d->atype = x->type2;
    d->btype = x->btype;
    d->dtype = x->type;
    d->k = (uint8_t)ptx_wgmma_k(d->atype);
    d->mode = x->mode;
    d->satfinite = (x->flags & PF_SATFINITE) != 0;
}

/* The value of element bits v (the low esize bytes) of type t. */
static double
value(uint32_t v, unsigned t)
{
    float f;
    switch (t) {
    case PT_F16: return ptx_half_to_float((uint16_t)v);
    case PT_BF16: return ptx_half_value((uint16_t)v, PTX_HBF16);
    case PT_TF32:
        v &= 0xffffe000u;        /* the tensor core reads the top 19 bits */
        memcpy(&f, &v, 4);
        return f;
    case PT_E4M3: return ptx_half_f8_value((uint8_t)v, PTX_HE4M3);
    case PT_E5M2: return ptx_half_f8_value((uint8_t)v, PTX_HE5M2);
    case PT_S8: return (int8_t)v;
    case PT_U8: return (uint8_t)v;
    default: return 0;
    }
}

/* Elements (i0 + i, k) of the operand descriptor desc describes, i < rows,
 * k < kk, into out[i * 32 + k], as values of type t. */
static int
smem_operand(const struct ptx_run *r, const struct pblock *b, const struct xop *x, uint64_t desc,
             bool mn_major, unsigned i0, unsigned rows, unsigned kk, unsigned t, double *out,
             struct sim_error *err)
{
    if (((desc >> 49) & 7u) != 0)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s:%u: wgmma: unsupported matrix "
                             "descriptor 0x%016llx with a nonzero base offset (a swizzled tile "
                             "not aligned to its pattern)", r->m->path, x->line,
                             (unsigned long long)desc);
    unsigned size = esize(t);
    struct layout l;
    layout_of(desc, mn_major, size, &l);
    uint32_t ko[32];
    for (unsigned k = 0; k < kk; k++)
        ko[k] = koff(&l, k);
    for (unsigned i = 0; i < rows; i++) {
        uint32_t base = l.start + ioff(&l, i0 + i);
        for (unsigned k = 0; k < kk; k++) {
            uint32_t a = swizzled(&l, base + ko[k]);
            if ((uint64_t)a + size > r->shared_bytes)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: wgmma: matrix descriptor "
                                     "0x%016llx addresses shared byte %u, beyond the block's %u "
                                     "bytes", r->m->path, x->line, (unsigned long long)desc, a,
                                     r->shared_bytes);
            uint32_t v = 0;
            memcpy(&v, b->smem + a, size);
            out[i * 32 + k] = value(v, t);
        }
    }
    return SIM_OK;
}

int
ptx_wgmma_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
               uint32_t m, struct sim_error *err)
{
    if (m == 0)
        return SIM_OK;
    if (m != FULL)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: wgmma.mma_async executed by lanes "
                             "0x%08x of warp %u: every thread of the warpgroup must take part",
                             r->m->path, x->line, m, pw->index);
    struct ptx_wgmma_desc d;
    ptx_wgmma_desc_of(r, x, &d);
    unsigned q = pw->index % 4u, n = d.n, kk = d.k;
    /* the group's operands: read by its first warp to get here (above) */
    bool a_regs = (d.mode & WG_A_REGS) != 0;
    uint64_t adesc = a_regs ? 0 : lane_get(pw, &x->a, 0), bdesc = lane_get(pw, &x->b, 0);
    uint32_t group = pw->index / 4u, seq = pw->wgmma_seq++;
    if ((group + 1) * 4 > r->wpb)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: wgmma.mma_async in warp %u, of a "
                             "warpgroup the block (%u warps) does not fill", r->m->path, x->line,
                             pw->index, r->wpb);
    struct wg_snap **pp = &b->wg_snaps, *sn;
    while (*pp != NULL && ((*pp)->group != group || (*pp)->seq != seq))
        pp = &(*pp)->next;
    sn = *pp;
    if (sn == NULL) {
        if (r->wg_free != NULL) {
            sn = r->wg_free;
            r->wg_free = sn->next;
        } else if ((sn = malloc(sizeof *sn)) == NULL) {
            return sim_error_set(err, SIM_ERR_NOMEM, "out of memory");
        }
        sn->group = group;
        sn->seq = seq;
        sn->used = 0;
        sn->adesc = adesc;
        sn->bdesc = bdesc;
        int rc = SIM_OK;
        if (!a_regs)
            rc = smem_operand(r, b, x, adesc, (d.mode & WG_TRANS_A) != 0, 0, 64, kk, d.atype,
                              &sn->a[0][0], err);
        if (rc == SIM_OK)
            rc = smem_operand(r, b, x, bdesc, (d.mode & WG_TRANS_B) != 0, 0, n, kk, d.btype,
                              &sn->bt[0][0], err);
        if (rc != SIM_OK) {
            sn->next = r->wg_free;
            r->wg_free = sn;
            return rc;
        }
        sn->next = b->wg_snaps;
        b->wg_snaps = sn;
        pp = &b->wg_snaps;
    } else if (sn->adesc != adesc || sn->bdesc != bdesc) {
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: wgmma.mma_async: warp %u gives the "
                             "descriptors 0x%016llx, 0x%016llx, warp %u of its warpgroup gave "
                             "0x%016llx, 0x%016llx (they must be the same)", r->m->path, x->line,
                             pw->index, (unsigned long long)adesc, (unsigned long long)bdesc,
                             group * 4 + (unsigned)__builtin_ctz(sn->used),
                             (unsigned long long)sn->adesc, (unsigned long long)sn->bdesc);
    }
    /* A: this warp's 16 rows */
    static _Thread_local double A[16][32], T[16][256];
    if (a_regs) {
        unsigned e = 4u / esize(d.atype), mask = e == 4 ? 0xffu : e == 2 ? 0xffffu : 0xffffffffu;
        for (unsigned l = 0; l < 32; l++)
            for (unsigned reg = 0; reg < 4; reg++) {
                uint32_t v = (uint32_t)lane_get(pw, &x->frag[reg], l);
                unsigned row = l / 4 + 8 * (reg % 2), col = e * (l % 4) + 4 * e * (reg / 2);
                for (unsigned s = 0; s < e; s++)
                    A[row][col + s] = value((v >> (32 / e * s)) & mask, d.atype);
            }
    } else {
        memcpy(A, sn->a[16 * q], sizeof A);
    }
    double (*Bt)[32] = sn->bt;
    double sign = ((d.mode & WG_NEG_A) != 0) != ((d.mode & WG_NEG_B) != 0) ? -1.0 : 1.0;
    /* the products are exact in double, and so are the sums of the
     * integer ones (|sum| < 2^53) */
    /* summed with c as the H100 does (ptx_mma_step) */
    bool step = d.atype == PT_TF32 || d.atype == PT_F16 || d.atype == PT_BF16;
    for (unsigned i = 0; i < 16 && !step; i++)
        for (unsigned j = 0; j < n; j++) {
            double s = 0;
            for (unsigned k = 0; k < kk; k++)
                s += A[i][k] * Bt[j][k];
            T[i][j] = sign * s;
        }
    /* the float types: A's rows and B's columns split once (ptx_mma_split) */
    static _Thread_local struct ptx_mma_vec Ao[16], Bo[256];
    for (unsigned i = 0; i < 16 && step; i++) {
        float v[32];
        for (unsigned k = 0; k < kk; k++)
            v[k] = (float)A[i][k];
        ptx_mma_split(v, kk, d.atype, &Ao[i]);
    }
    for (unsigned j = 0; j < n && j < 256 && step; j++) {
        float v[32];
        for (unsigned k = 0; k < kk; k++)
            v[k] = (float)Bt[j][k];
        ptx_mma_split(v, kk, d.atype, &Bo[j]);
    }
    bool accumulate = (pw->pred[x->c.idx] & 1u) != 0;
    if (x->negmask & 4u)
        accumulate = !accumulate;
    const struct slot *D = &r->wslots[x->off];
    unsigned nregs = ptx_wgmma_d_regs(&d);
    bool f16 = d.dtype == PT_F16, integer = d.dtype == PT_S32;
    for (unsigned l = 0; l < 32; l++) {
        unsigned g = l / 4, t = l % 4;
        for (unsigned i = 0; i < nregs; i++) {
            uint32_t old = (uint32_t)lane_get(pw, &D[i], l), out = 0;
            for (unsigned h = 0; h < (f16 ? 2u : 1u); h++) {
                unsigned row = f16 ? g + 8 * (i % 2) : g + 8 * ((i % 4) / 2);
                unsigned col = f16 ? 8 * (i / 2) + 2 * t + h : 8 * (i / 4) + 2 * t + i % 2;
                if (integer) {
                    int64_t s = (int64_t)T[row][col] + (accumulate ? (int32_t)old : 0);
                    if (d.satfinite)
                        s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
                    out = (uint32_t)s;
                } else {
                    double c = 0;
                    if (accumulate) {
                        if (f16) {
                            c = ptx_half_to_float((uint16_t)(old >> (16 * h)));
                        } else {
                            float f;
                            memcpy(&f, &old, 4);
                            c = f;
                        }
                    }
                    if (step) {
                        float f = ptx_mma_dot(&Ao[row], &Bo[col], kk, sign < 0, (float)c, f16);
                        if (f16) {
                            out |= (uint32_t)ptx_half_from_float(f) << (16 * h);   /* exact */
                        } else {
                            memcpy(&out, &f, 4);
                        }
                    } else if (f16) {
                        out |= (uint32_t)ptx_half_round(c + T[row][col], PTX_HF16, PR_RN)
                               << (16 * h);
                    } else {
                        float f = (float)(c + T[row][col]);
                        memcpy(&out, &f, 4);
                    }
                }
            }
            lane_set(pw, &D[i], l, out);
        }
    }
    sn->used |= (uint8_t)(1u << q);
    if (sn->used == 0xf) {       /* the group's four warps have it: B is free */
        *pp = sn->next;
        sn->next = r->wg_free;
        r->wg_free = sn;
    }
    return SIM_OK;
}
