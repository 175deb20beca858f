/*
 * ptx_exec.c - functional execution of decoded PTX, one warp instruction
 * at a time (see ptx_exec.h).
 * This file holds the SIMT reconvergence stack, the memory instructions
 * and the warp-wide operations; per-lane arithmetic is in ptx_alu.c,
 * calls and frames in ptx_call.c, addresses and their checks in
 * ptx_mem.c.
 */
#include "frontend/exec/ptx_exec.h"

#include "frontend/exec/ptx_call.h"
#include "frontend/exec/ptx_cluster.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_ldst.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_mma.h"
#include "frontend/exec/ptx_wgmma.h"
#include "frontend/exec/ptx_spin.h"
#include "frontend/exec/ptx_sync.h"
#include "frontend/exec/ptx_tex.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
exec_mem(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, uint32_t m,
         struct warp_inst *wi, struct sim_error *err)
{
    if (ptx_ldst_fast(r, b, pw, x, m, wi))
        return SIM_OK;
    unsigned eb = ptx_type_bytes(x->type);
    unsigned nv = x->vec;
    unsigned w = pw->index;
    bool space_set = false;
    wi->width = (uint8_t)(eb * nv);
    wi->space = SIM_SPACE_GLOBAL;
    uint32_t mm = m;
    while (mm != 0) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        mm &= mm - 1;
        sim_addr_t a = lane_addr(pw, x, l);
        struct ptx_access ac = { NULL, SIM_SPACE_GLOBAL, 0, 0, NULL };
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, w, l, x->space, a, eb * nv, x, &ac, err));
        if (!space_set) {
            wi->space = ac.space;
            space_set = true;
        }
        wi->remote |= ac.remote;
        wi->addr[l] = ac.taddr;
        switch (x->kind) {
        case XK_LD:
            for (unsigned v = 0; v < nv; v++) {
                if (x->v[v].cls == SC_NONE)
                    continue;
                uint64_t val = 0;
                memcpy(&val, ac.p + v * eb, eb);
                lane_set(pw, &x->v[v], l, lane_extend(val, x->type));
            }
            break;
        case XK_ST:
            for (unsigned v = 0; v < nv; v++) {
                uint64_t val = lane_get(pw, &x->v[v], l);
                memcpy(ac.p + v * eb, &val, eb);
            }
            break;
        default: {
            uint64_t old = 0;
            memcpy(&old, ac.p, eb);
            uint64_t nw = ptx_atom_apply(x->atom, x->type, old, lane_get(pw, &x->b, l),
                                     x->c.cls != SC_NONE ? lane_extend(lane_get(pw, &x->c, l), x->type) : 0);
            memcpy(ac.p, &nw, eb);
            if (nw != old)
                ptx_spin_memory_changed(r);   /* a failed CAS or an add of 0 changes nothing */
            if (x->kind == XK_ATOM && x->d.cls != SC_NONE)
                lane_set(pw, &x->d, l, lane_extend(old, x->type));
            break;
        }
        }
    }
    return SIM_OK;
}

/* cp.async: each lane copies x->vec bytes from its global address to its
 * shared one (ptx_decode.c), zero-filling past src-size when one is given;
 * the model sees the global read. */
static int
exec_cp_async(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
              uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    unsigned n = x->vec;
    wi->width = (uint8_t)n;
    wi->space = SIM_SPACE_GLOBAL;
    uint32_t mm = m;
    while (mm != 0) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        mm &= mm - 1;
        struct ptx_access src = { NULL, SIM_SPACE_GLOBAL, 0, 0, NULL };
        struct ptx_access dst = { NULL, SIM_SPACE_SHARED, 0, 0, NULL };
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, lane_addr(pw, x, l), n, x,
                                     &src, err));
        sim_addr_t sa = lane_slot_addr(pw, &x->base2, x->off2, l, true);
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, n, x, &dst, err));
        unsigned keep = n;
        if (x->a.cls != SC_NONE) {
            uint64_t s = lane_get(pw, &x->a, l);
            keep = s < n ? (unsigned)s : n;
        }
        memmove(dst.p, src.p, keep);
        memset(dst.p + keep, 0, n - keep);
        wi->addr[l] = src.taddr;
    }
    return SIM_OK;
}

/* One element of a wmma fragment to or from memory at p: element el of
 * type size es bytes. */
static inline void
wmma_elem(uint8_t *p, const struct ptx_frag_elem *el, unsigned es, bool load, uint64_t *regs)
{
    if (es == 8) {               /* .f64: a whole 64-bit register */
        if (load)
            memcpy(&regs[el->reg], p, 8);
        else
            memcpy(p, &regs[el->reg], 8);
        return;
    }
    unsigned sh = 8 * es * el->sub;
    uint64_t mask = es == 4 ? UINT32_MAX : (1u << (8 * es)) - 1;
    /* fixed-size copies: a memcpy of es bytes into a wider variable is a
     * call, and reading the variable back stalls on the narrower store */
    if (load) {
        uint32_t v;
        if (es == 2) {
            uint16_t h;
            memcpy(&h, p, 2);
            v = h;
        } else if (es == 1) {
            v = *p;
        } else {
            memcpy(&v, p, 4);
        }
        regs[el->reg] = (regs[el->reg] & ~(mask << sh)) | (v & mask) << sh;
    } else {
        uint32_t v = (uint32_t)((regs[el->reg] >> sh) & mask);
        if (es == 2) {
            uint16_t h = (uint16_t)v;
            memcpy(p, &h, 2);
        } else if (es == 1) {
            *p = (uint8_t)v;
        } else {
            memcpy(p, &v, 4);
        }
    }
}

/* What a wmma.load / wmma.store moves, which depends only on its shape,
 * types, fragment, major order, space and part: its elements (lane 0's),
 * each lane's shift from them, and the registers a load writes.  Kept per
 * thread in a small direct-mapped table: worked out per execution it cost
 * more than moving the data. */
struct wmma_layout {
    uint64_t key;                /* 0: empty */
    unsigned cnt, nregs, dist;
    uint8_t width, ldsm;
    bool split;                  /* the instruction is a part, and the part exists */
    uint64_t own;                /* registers a load writes (bit i: frag[i]) */
    struct ptx_frag_elem use[PTX_FRAG_MAX];
    uint8_t dr[32], dc[32];
};

static const struct wmma_layout *
wmma_layout_of(const struct xop *x)
{
    static _Thread_local struct wmma_layout memo[16];
    bool col_major = (x->flags & PF_COLMAJOR) != 0, shared = x->space == PS_SHARED;
    uint64_t key = (uint64_t)x->atom | (uint64_t)x->shape << 8 | (uint64_t)x->type << 16 |
                   (uint64_t)x->type2 << 24 | (uint64_t)x->btype << 32 |
                   (uint64_t)x->ctype << 40 |
                   (uint64_t)(col_major | shared << 1 | (x->nparts > 0) << 2) << 48 |
                   (uint64_t)x->part << 56;
    struct wmma_layout *w = &memo[(key * UINT64_C(0x9e3779b97f4a7c15)) >> 60];
    if (w->key == key)
        return w;
    struct ptx_mma_desc d;
    ptx_mma_desc_of(x, &d);
    unsigned f = x->atom;
    struct ptx_frag_elem el[PTX_FRAG_MAX];
    struct ptx_frag_part parts[PTX_PARTS_MAX];
    w->nregs = ptx_mma_frag_regs(&d, f, &w->dist);
    const struct ptx_frag_part *part = NULL;
    if (x->nparts > 0) {
        unsigned np = ptx_mma_parts(&d, f, col_major, shared, parts);
        part = x->part < np ? &parts[x->part] : NULL;
    }
    w->split = part != NULL;
    w->width = part != NULL ? part->width : 16;
    w->ldsm = part != NULL ? part->ldsm : 0;
    unsigned n = ptx_mma_frag(&d, f, 0, el);
    w->cnt = part != NULL ? part->nelem : n;
    for (unsigned q = 0; q < w->cnt; q++)
        w->use[q] = el[part != NULL ? part->elem[q] : q];
    /* a load writes every register when whole; a part only its own and
     * their repeats (f16 A and B: registers 4 .. 7 copy 0 .. 3), the ones
     * the sm_90 schedule orders it by (ptx_lower_mma.c): an instruction
     * placed between two parts may have written another's repeat already */
    w->own = 0;
    for (unsigned i = 0; i < w->nregs && i < 64; i++) {
        bool mine = part == NULL;
        for (unsigned q = 0; q < w->cnt && !mine; q++)
            mine = w->use[q].reg == i % w->dist;
        w->own |= (uint64_t)mine << i;
    }
    for (unsigned l = 0; l < 32; l++) {
        unsigned dr, dc;
        ptx_mma_frag_shift(&d, f, l, &dr, &dc);
        w->dr[l] = (uint8_t)dr;
        w->dc[l] = (uint8_t)dc;
    }
    w->key = key;
    return w;
}

/* wmma.load / wmma.store (ptx_mma.h), row- or column-major with leading
 * dimension `stride` elements (16 when not given).  Split by the sm_90
 * lowering (x->nparts > 0), operation x->part moves its own elements
 * (ptx_mma_parts) and the model sees its accesses: each lane's first
 * element of the part, the part's width, or the rows of an LDSM.
 * Unsplit (other targets), it moves the whole fragment and the model sees
 * one 16-byte access per lane: the tile in 16-byte pieces. */
static int
exec_wmma_mem(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
              uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    const struct wmma_layout *w = wmma_layout_of(x);
    unsigned es = ptx_mma_esize(x->type), cnt = w->cnt, dist = w->dist;
    bool load = x->kind == XK_WLOAD, col_major = (x->flags & PF_COLMAJOR) != 0;
    const struct ptx_frag_elem *use = w->use;
    wi->width = w->width;
    wi->space = SIM_SPACE_GLOBAL;
    bool space_set = false;
    struct ptx_mma_desc d;
    if (!w->split || w->ldsm)
        ptx_mma_desc_of(x, &d);
    /* the elements' offsets for the leading dimension last seen */
    uint64_t off0[PTX_FRAG_MAX], lo = 0, hi = 0, seen_ld = 0;
    bool seen = false;
    uint32_t mm = m;
    while (mm != 0) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        mm &= mm - 1;
        sim_addr_t base = lane_addr(pw, x, l);
        uint64_t ld = x->b.cls != SC_NONE ? (uint32_t)lane_get(pw, &x->b, l) : 16;
        if (!seen || ld != seen_ld) {
            seen = true;
            seen_ld = ld;
            lo = UINT64_MAX;
            hi = 0;
            for (unsigned q = 0; q < cnt; q++) {
                off0[q] = ptx_mma_offset(use[q].row, use[q].col, col_major, ld, es);
                lo = off0[q] < lo ? off0[q] : lo;
                hi = off0[q] > hi ? off0[q] : hi;
            }
        }
        uint64_t shift = ptx_mma_offset(w->dr[l], w->dc[l], col_major, ld, es);
        uint64_t regs[PTX_FRAG_MAX];
        for (unsigned i = 0; i < dist; i++)
            regs[i] = lane_get(pw, &x->frag[i], l);
        struct ptx_access ac = { NULL, SIM_SPACE_GLOBAL, 0, 0, NULL };
        sim_addr_t first = 0;
        /* the lane's elements resolved at once when they lie in one
         * allocation (not local memory, whose timing addresses are
         * interleaved per lane); else one by one, which names the one at
         * fault */
        sim_addr_t a0 = base + lo + shift;
        bool whole = false;
        if (cnt > 0 && a0 % es == 0 && hi - lo + es > 16 && hi - lo < (1u << 30)) {
            whole = ptx_mem_resolve(r, b, pw->index, l, x->space, a0, (unsigned)(hi - lo + es), x,
                                    &ac, err) == SIM_OK && ac.space != SIM_SPACE_LOCAL;
            sim_error_clear(err);
        }
        if (whole) {
            for (unsigned q = 0; q < cnt; q++)
                wmma_elem(ac.p + (off0[q] - lo), &use[q], es, load, regs);
            first = ac.taddr + (off0[0] - lo);
        } else {
            for (unsigned q = 0; q < cnt; q++) {
                SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, x->space,
                                                     base + off0[q] + shift, es, x, &ac, err));
                wmma_elem(ac.p, &use[q], es, load, regs);
                if (q == 0)
                    first = ac.taddr;
            }
        }
        if (load)
            for (unsigned i = 0; i < w->nregs; i++)
                if (w->own >> i & 1)
                    lane_set(pw, &x->frag[i], l, regs[i % dist]);
        /* what the model sees: the part's first element, or a row address
         * (an LDSM's, or the unsplit fragment's 16-byte piece) */
        if (!w->split || w->ldsm) {
            unsigned f = x->atom;
            uint64_t off = ((uint64_t)(l / 2) * ld + (l % 2) * (16 / es)) * es;
            if (w->split && !ptx_mma_ldsm_row(&d, f, col_major, ld, w->ldsm, l, &off))
                ptx_mma_ldsm_row(&d, f, col_major, ld, w->ldsm, 0, &off);
            if (ptx_mem_resolve(r, b, pw->index, l, x->space, base + off, 1, x, &ac, err) != SIM_OK) {
                sim_error_clear(err);
                ac.taddr = ac.taddr + 16; /* past a small matrix's end: timing only, after
                                             the element before */
            }
            first = ac.taddr;
        }
        if (!space_set) {
            wi->space = ac.space;
            space_set = true;
        }
        wi->addr[l] = first;
    }
    return SIM_OK;
}

/* ldmatrix / stmatrix .m8n8 .b16 (ptx_mma.h): lanes 8 i .. 8 i + 7 give the
 * rows of matrix i; each lane's register i holds two of its elements.  The
 * model sees one 16-byte access per row-giving lane. */
static int
exec_ldmatrix(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
              uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    unsigned num = x->vec, rows = 8 * num;
    bool load = x->kind == XK_LDMATRIX, trans = (x->flags & PF_TRANS) != 0;
    sim_addr_t row_addr[32];
    uint8_t *row_ptr[32];
    wi->width = 16;
    wi->space = SIM_SPACE_SHARED;
    uint32_t given = 0;
    for (unsigned l = 0; l < rows; l++) {
        if (!(m >> l & 1))
            continue;
        struct ptx_access ac = { NULL, SIM_SPACE_SHARED, 0, 0, NULL };
        row_addr[l] = lane_addr(pw, x, l);
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, x->space, row_addr[l], 16, x, &ac, err));
        row_ptr[l] = ac.p;
        wi->space = ac.space;
        wi->addr[l] = ac.taddr;
        given |= 1u << l;
    }
    if (given == 0)
        return SIM_OK;
    unsigned any = (unsigned)__builtin_ctz(given);
    LANES(m, {
        if (l >= rows)
            wi->addr[l] = wi->addr[any];          /* no row of its own */
        for (unsigned i = 0; i < num; i++) {
            uint32_t v = load ? 0 : (uint32_t)lane_get(pw, &x->frag[i], l);
            for (unsigned j = 0; j < 2; j++) {
                unsigned row, col;
                ptx_ldmatrix_elem(l, j, trans, &row, &col);
                unsigned src = 8 * i + row;
                if (!(given >> src & 1))
                    return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: %s: lane %u gives no "
                                         "row address (inactive)", r->m->path, x->line,
                                         load ? "ldmatrix" : "stmatrix", src);
                uint8_t *p = row_ptr[src] + 2 * col;
                if (load) {
                    uint16_t h;
                    memcpy(&h, p, 2);
                    v |= (uint32_t)h << (16 * j);
                } else {
                    uint16_t h = (uint16_t)(v >> (16 * j));
                    memcpy(p, &h, 2);
                }
            }
            if (load)
                lane_set(pw, &x->frag[i], l, v);
        }
    });
    return SIM_OK;
}

/* cp.async.commit_group closes the warp's open group; wait_group N (and
 * wait_all, which commits first) reads the registers of every committed
 * group but the newest N (ptx_exec.h). */
static void
async_group_op(struct pwarp *pw, const struct xop *x, struct warp_inst *wi)
{
    if (x->flags & PF_BULK) {    /* cp.async.bulk.commit_group / .wait_group */
        if (x->mode == PM_COMMIT)
            pw->bulk_groups++;
        else
            async_group_wait_regs(BULK_REG, pw->bulk_groups, x->vec, wi->src, &wi->n_src,
                                  SIM_MAX_SRC);
        return;
    }
    if (x->mode == PM_COMMIT || x->mode == PM_WAITALL)
        pw->async_groups++;
    if (x->mode == PM_COMMIT)
        return;
    async_wait_regs(pw->async_groups, x->mode == PM_WAIT ? x->vec : 0, wi->src, &wi->n_src,
                    SIM_MAX_SRC);
}

/* ---- warp-wide operations ------------------------------------------------ */

static void
exec_shfl(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    const union r32 *A = R32(x->a), *B = R32(x->b), *C = R32(x->c);
    uint32_t out[32], valid = 0;
    LANES(m, {
        int lane = (int)l, bval = (int)(B[l].u & 0x1f), cval = (int)(C[l].u & 0x1f);
        int seg = (int)((C[l].u >> 8) & 0x1f);
        int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j;
        bool p;
        switch (x->mode) {
        case PM_UP: j = lane - bval; p = j >= maxl; break;
        case PM_DOWN: j = lane + bval; p = j <= maxl; break;
        case PM_BFLY: j = lane ^ bval; p = j <= maxl; break;
        default: j = minl | (bval & ~seg); p = j <= maxl; break;
        }
        if (!p || j < 0 || j > 31)
            j = lane;
        out[l] = A[j].u;
        if (p)
            valid |= 1u << l;
    });
    union r32 *D = R32(x->d);
    LANES(m, { D[l].u = out[l]; });
    pred_write(pw, &x->d2, m, valid);
}

/* redux.sync: every lane of m gets the reduction of a over the lanes of
 * m that its membermask names (PTX requires the lanes of the mask to
 * execute it together) */
static void
exec_redux(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    const union r32 *A = R32(x->a), *B = R32(x->b);
    union r32 *D = R32(x->d);
    uint32_t out[32];
    bool sgn = ptx_type_is_signed(x->type);
    LANES(m, {
        uint32_t g = B[l].u & m, acc = 0;
        bool first = true;
        for (unsigned k = 0; k < 32; k++) {
            if (!(g >> k & 1))
                continue;
            uint32_t v = A[k].u;
            if (first) {
                acc = v;
                first = false;
                continue;
            }
            switch (x->atom) {
            case PA_ADD: acc += v; break;
            case PA_AND: acc &= v; break;
            case PA_OR: acc |= v; break;
            case PA_XOR: acc ^= v; break;
            case PA_MIN:
                acc = sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
                break;
            default:
                acc = sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
                break;
            }
        }
        out[l] = acc;
    });
    LANES(m, { D[l].u = out[l]; });
}

/* match.any / match.all.sync over the lanes of m in each lane's membermask */
static void
exec_match(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    const union r32 *B = R32(x->b);
    uint32_t out[32], valid = 0;
    LANES(m, {
        uint32_t g = B[l].u & m, same = 0;
        uint64_t v = lane_get(pw, &x->a, l);
        for (unsigned k = 0; k < 32; k++)
            if ((g >> k & 1) && lane_get(pw, &x->a, k) == v)
                same |= 1u << k;
        if (x->mode == PM_ANY) {
            out[l] = same;
        } else {
            out[l] = same == g ? g : 0;
            if (same == g)
                valid |= 1u << l;
        }
    });
    union r32 *D = R32(x->d);
    LANES(m, { D[l].u = out[l]; });
    if (x->mode == PM_ALL && x->d2.cls == SC_PRED)
        pred_write(pw, &x->d2, m, valid);
}

static void
exec_vote(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    if (x->op == PTXOP_REDUX) {
        exec_redux(pw, x, m);
        return;
    }
    if (x->op == PTXOP_MATCH) {
        exec_match(pw, x, m);
        return;
    }
    /* vote.sync reduces, in each lane, over the non-exited threads of that
     * lane's member mask: a tile of 8 threads (cooperative groups'
     * thread_block_tile<8>::all) has a mask of its own 8 lanes */
    uint32_t q = pred_src(pw, x, &x->a, 0), res = 0;
    union r32 *D = x->mode == PM_BALLOT ? R32(x->d) : NULL;
    LANES(m, {
        uint32_t g = x->b.cls != SC_NONE ? m & R32(x->b)[l].u : m, p = q & g;
        if (D != NULL)
            D[l].u = p;
        else if (x->mode == PM_ALL ? p == g : x->mode == PM_ANY ? p != 0 : (p == 0 || p == g))
            res |= 1u << l;
    });
    if (D == NULL)
        pred_write(pw, &x->d, m, res);
}

/* bar.red: warp pw's lanes m arrive with their predicates; the result is
 * the block's once every warp has arrived, so the warp takes it at its
 * next step (bred_finish), which comes after the barrier's release. */
static int
bred_arrive(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
            int32_t pc, uint32_t m, struct sim_error *err)
{
    uint32_t id = (uint32_t)lane_get(pw, &x->b, (unsigned)__builtin_ctz(m));
    if (id >= PTX_BARRIERS)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: barrier %u (0 .. %u) (block %" PRIu64
                             ", warp %u)", r->m->path, x->line, id, PTX_BARRIERS - 1, b->id,
                             pw->index);
    uint32_t g = pw->bred_gen[id]++;
    struct bred *s = &b->bred[id][g & 1];
    if (s->gen != g + 1)
        *s = (struct bred){ g + 1, 0, true, false };
    uint32_t p = pred_src(pw, x, &x->a, 0) & m;
    s->count += (uint32_t)sim_popc32(p);
    s->all = s->all && p == m;
    s->any = s->any || p != 0;
    pw->bred_pc = pc;
    pw->bred_slot = (uint16_t)(2 * id + (g & 1));
    pw->bred_mask = m;
    return SIM_OK;
}

/* A CTA barrier's operands: barrier a (x->b) of b threads (x->c; none:
 * the whole block) into wi->aux (SIM_BAR_AUX). */
static int
bar_operands(const struct ptx_run *r, const struct pblock *b, struct pwarp *pw,
             const struct xop *x, uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    unsigned l = (unsigned)__builtin_ctz(m);
    uint32_t id = (uint32_t)lane_get(pw, &x->b, l);
    uint32_t threads = x->c.cls != SC_NONE ? (uint32_t)lane_get(pw, &x->c, l) : 0;
    bool arrive = (x->flags & PF_ARRIVE) != 0;
    if (id >= SIM_BARRIERS)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: barrier %u: expected 0 .. %u (block %"
                             PRIu64 ", warp %u)", r->m->path, x->line, id, SIM_BARRIERS - 1,
                             b->id, pw->index);
    if (x->c.cls != SC_NONE &&
        (threads == 0 || threads % SIM_WARP_SIZE != 0 || threads > r->wpb * SIM_WARP_SIZE))
        return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: barrier %u of %u threads: expected a "
                             "multiple of %u up to the block's %u (block %" PRIu64 ", warp %u)",
                             r->m->path, x->line, id, threads, SIM_WARP_SIZE,
                             r->wpb * SIM_WARP_SIZE, b->id, pw->index);
    wi->aux = SIM_BAR_AUX(id, threads / SIM_WARP_SIZE, arrive);
    return SIM_OK;
}

/* Warp pw reaches a barrier it waits at: it counts in n_at_bar (once, if
 * it spins through barriers) until its next step (left_barrier). */
static void
wait_at_barrier(struct ptx_run *r, struct pwarp *pw)
{
    pw->bar_counted = !(pw->spin.state == 2 && pw->spin.epoch == r->mem_epoch);
    r->n_at_bar += pw->bar_counted;
}

static void
left_barrier(struct ptx_run *r, struct pwarp *pw)
{
    if (pw->bar_counted)
        r->n_at_bar--;
    pw->bar_counted = false;
}

/* A named barrier (a count, or bar.arrive: aux from bar_operands) reached
 * by warp pw, for the hang detector (ptx_spin.c): its arrivals and the
 * instances released (the model times the barrier itself). */
static void
named_barrier(struct ptx_run *r, struct pblock *b, struct pwarp *pw, uint32_t aux)
{
    uint32_t id = SIM_BAR_ID(aux);
    uint32_t need = SIM_BAR_WARPS(aux) ? SIM_BAR_WARPS(aux) : r->wpb;
    if (!SIM_BAR_ARRIVE(aux)) {
        pw->nbar = (int8_t)id;
        pw->nbar_gen = b->nbar_gen[id];
        wait_at_barrier(r, pw);
    }
    if (++b->nbar_at[id] >= need) {
        b->nbar_at[id] = 0;
        b->nbar_gen[id]++;
    }
}

static void
bred_finish(struct ptx_run *r, struct pblock *b, struct pwarp *pw)
{
    const struct xop *x = &r->x[pw->bred_pc];
    const struct bred *s = &b->bred[pw->bred_slot / 2][pw->bred_slot % 2];
    uint32_t m = pw->bred_mask;
    if (x->atom == PA_ADD) {
        union r32 *D = R32(x->d);
        LANES(m, { D[l].u = s->count; });
    } else {
        pred_write(pw, &x->d, m, (x->atom == PA_AND ? s->all : s->any) ? FULL : 0);
    }
    pw->bred_pc = -1;
}

/* ---- blocks and steps ------------------------------------------------------ */

/* The 32 lanes of special register i in warp pw, or NULL when the kernel
 * never reads it (its registers packed: ptx_regalloc.h). */
#define SR_LANES(r, pw, i) \
    ((r)->sr_slot[i] == UINT32_MAX ? NULL : (pw)->r32 + (size_t)(r)->sr_slot[i] * 32)

/* The special registers of a launch's warps, per lane, as far as they are
 * the same for every warp (init_warp sets the thread, warp and block ids
 * over them): built at the launch's first warp, again at each repeat. */
static void
sr_template(struct ptx_run *r)
{
    const struct launch *ln = r->l;
    if (r->sr_tmpl == NULL)
        r->sr_tmpl = xmalloc((size_t)SR_COUNT * 32 * sizeof *r->sr_tmpl);
    r->sr_tmpl_for = r->launches;
    static _Atomic uint64_t serials;
    r->sr_serial = atomic_fetch_add(&serials, 1) + 1;
    /* %total_smem_size: the user's shared memory in allocation units (256
     * bytes on sm_3x .. sm_7x, 128 on the others; ISA section 10.30) */
    uint32_t user_smem = r->shared_static + ln->smem;
    uint32_t unit = r->cc >= 30 && r->cc < 80 ? 256 : 128;
    uint32_t total_smem = (user_smem + unit - 1) / unit * unit;
    for (unsigned l = 0; l < 32; l++) {
        uint32_t v[SR_COUNT] = { 0 };
        v[SR_NTID_X] = ln->block[0];
        v[SR_NTID_Y] = ln->block[1];
        v[SR_NTID_Z] = ln->block[2];
        v[SR_NCTAID_X] = ln->grid[0];
        v[SR_NCTAID_Y] = ln->grid[1];
        v[SR_NCTAID_Z] = ln->grid[2];
        v[SR_LANEID] = l;
        v[SR_NWARPID] = r->wpb;
        v[SR_NSMID] = r->n_sms;
        v[SR_LANEMASK_EQ] = 1u << l;
        v[SR_LANEMASK_LT] = (1u << l) - 1;
        v[SR_LANEMASK_LE] = (uint32_t)((UINT64_C(2) << l) - 1);
        v[SR_LANEMASK_GT] = ~(uint32_t)((UINT64_C(2) << l) - 1);
        v[SR_LANEMASK_GE] = ~((1u << l) - 1);
        v[SR_DYN_SMEM] = ln->smem;
        v[SR_TOTAL_SMEM] = total_smem;
        v[SR_AGGR_SMEM] = user_smem + PTX_RESERVED_SMEM;
        v[SR_GRIDID] = r->launches > 0 ? r->launches : 1;
        /* the reserved region (ptx_decode.c): 16 bytes of its start are
         * offsets 0 and 1, a plausible layout (the ISA leaves it to the
         * system software) */
        v[SR_RSV_BEGIN] = r->reserved_smem;
        v[SR_RSV_END] = r->reserved_smem + PTX_RESERVED_SMEM;
        v[SR_RSV_CAP] = PTX_RESERVED_SMEM;
        v[SR_RSV_0] = r->reserved_smem;
        v[SR_RSV_1] = r->reserved_smem + 8;
        /* the grid's clusters (each block a cluster of one without clusters) */
        for (unsigned d = 0; d < 3; d++) {
            v[SR_NCLUSTERID_X + d] = ln->grid[d] / r->cluster[d];
            v[SR_CLUSTER_NCTAID_X + d] = r->cluster[d];
        }
        v[SR_CLUSTER_NCTARANK] = r->cluster_size;
        v[SR_IS_EXPLICIT_CLUSTER] = r->cluster_size > 1 || r->k->explicit_cluster;
        /* a cooperative launch's grid-sync workspace (ptx_run.grid_ws);
         * the other %envreg*, %pm*, %current_graph_exec: 0 (the driver's
         * values, the undefined performance counters, no device graph) */
        v[SR_ENVREG_GRID_HI] = (uint32_t)(r->grid_ws >> 32);
        v[SR_ENVREG_GRID_LO] = (uint32_t)r->grid_ws;
        for (unsigned i = 0; i < SR_COUNT; i++)
            r->sr_tmpl[(size_t)i * 32 + l].u = v[i];
    }
}

/* The read-only slots of warp w of a slot: the special registers common
 * to the launch (sr_template) with the warp's thread and warp ids, written
 * once per launch (pw->sr_serial); and the constants, which the launch's
 * warps share (tmpl32, tmpl64: 32 lanes a constant, made at its first). */
static void
init_warp_constants(struct ptx_run *r, struct pwarp *pw, unsigned w)
{
    const struct launch *ln = r->l;
    for (unsigned i = 0; i < SR_COUNT; i++)
        if (r->sr_slot[i] != UINT32_MAX)
            memcpy(pw->r32 + (size_t)r->sr_slot[i] * 32, r->sr_tmpl + (size_t)i * 32,
                   32 * sizeof *r->sr_tmpl);
    uint32_t bx = ln->block[0], by = ln->block[1];
    union r32 *tx = SR_LANES(r, pw, SR_TID_X), *ty = SR_LANES(r, pw, SR_TID_Y);
    union r32 *tz = SR_LANES(r, pw, SR_TID_Z), *wid = SR_LANES(r, pw, SR_WARPID);
    for (unsigned l = 0; l < 32; l++) {
        uint32_t t = w * 32 + l;
        if (tx != NULL)
            tx[l].u = t % bx;
        if (ty != NULL)
            ty[l].u = (t / bx) % by;
        if (tz != NULL)
            tz[l].u = t / (bx * by);
        if (wid != NULL)
            wid[l].u = w;
    }
    uint32_t nc32 = r->n32 - r->cbase32, nc64 = r->n64 - r->nvar64;
    if (r->tmpl32 == NULL) {
        /* first warp of the launch: replicate the constants once */
        r->tmpl32 = xmalloc(((size_t)nc32 + 1) * 32 * sizeof *r->tmpl32);
        r->tmpl64 = xmalloc(((size_t)nc64 + 1) * 32 * sizeof *r->tmpl64);
        for (uint32_t i = 0; i < nc32; i++)
            for (unsigned l = 0; l < 32; l++)
                r->tmpl32[(size_t)i * 32 + l] = r->const32[i];
        for (uint32_t i = 0; i < nc64; i++)
            for (unsigned l = 0; l < 32; l++)
                r->tmpl64[(size_t)i * 32 + l] = r->const64[i];
    }
    pw->k32 = r->tmpl32;
    pw->k64 = r->tmpl64;
    pw->kb32 = r->cbase32;
    pw->kb64 = r->nvar64;
    for (uint32_t i = r->nvarp; i < r->npred; i++)
        pw->pred[i] = r->constp[i - r->nvarp];
    pw->sr_serial = r->sr_serial;
}

static void
init_warp(struct ptx_run *r, struct pblock *b, struct pwarp *pw, unsigned w)
{
    memset(pw->r32, 0, (size_t)r->nvar32 * 32 * sizeof *pw->r32);
    memset(pw->r64, 0, (size_t)r->nvar64 * 32 * sizeof *pw->r64);
    memset(pw->pred, 0, r->nvarp * sizeof *pw->pred);
    memset(pw->loop_iter, 0, (r->n_unroll + 1) * sizeof *pw->loop_iter);
    pw->async_groups = 0;
    pw->bulk_groups = 0;
    pw->wgmma_groups = 0;
    pw->wgmma_seq = 0;
    pw->cl_arrives = pw->cl_waits = 0;
    pw->poll = -1;
    pw->retry_at = -1;
    memset(pw->bred_gen, 0, sizeof pw->bred_gen);
    pw->bred_pc = -1;
    pw->bars = 0;
    pw->nbar = -1;
    pw->bar_pending = false;
    pw->bar_counted = false;
    pw->finished = false;
    ptx_spin_reset(pw);
    if (r->sr_tmpl == NULL || r->sr_tmpl_for != r->launches)
        sr_template(r);
    /* the rest of the special registers, and the constants, are read-only:
     * written once per launch into a slot's warp; then the block's */
    if (pw->sr_serial != r->sr_serial)
        init_warp_constants(r, pw, w);
    uint32_t block_v[SR_COUNT];
    static const uint8_t block_sr[] = { SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_SMID,
                                        SR_CLUSTERID_X, SR_CLUSTERID_Y, SR_CLUSTERID_Z,
                                        SR_CLUSTER_CTAID_X, SR_CLUSTER_CTAID_Y,
                                        SR_CLUSTER_CTAID_Z, SR_CLUSTER_CTARANK };
    block_v[SR_CTAID_X] = b->ctaid[0];
    block_v[SR_CTAID_Y] = b->ctaid[1];
    block_v[SR_CTAID_Z] = b->ctaid[2];
    block_v[SR_SMID] = b->sm;
    for (unsigned d = 0; d < 3; d++) {
        block_v[SR_CLUSTERID_X + d] = b->ctaid[d] / r->cluster[d];
        block_v[SR_CLUSTER_CTAID_X + d] = b->ctaid[d] % r->cluster[d];
    }
    block_v[SR_CLUSTER_CTARANK] = ptx_cluster_rank(r, b);
    for (unsigned i = 0; i < sizeof block_sr; i++) {
        union r32 *v = SR_LANES(r, pw, block_sr[i]);
        for (unsigned l = 0; v != NULL && l < 32; l++)
            v[l].u = block_v[block_sr[i]];
    }
    pw->sp = 1;
    pw->stk[0] = (struct simt_entry){ 0, -1, ptx_warp_lanes(r, w) };
    pw->exited = 0;
    pw->icount = 0;
    pw->index = w;
    pw->win_n = pw->win_pos = 0;
    ptx_call_warp_init(r, pw);
}

void
ptx_exec_block_begin(struct ptx_run *r, uint32_t slot, uint64_t id, uint32_t sm)
{
    struct pblock *b = &r->blocks[slot];
    if (!b->allocated) {
        b->smem = xcalloc(r->shared_bytes ? r->shared_bytes : 1, 1);
        b->local = xcalloc((size_t)r->local_bytes * r->tpb + 1, 1);
        b->warps = xcalloc(r->wpb, sizeof *b->warps);
        for (uint32_t w = 0; w < r->wpb; w++) {
            b->warps[w].r32 = xmalloc((size_t)r->cbase32 * 32 * sizeof(union r32) + 1);
            b->warps[w].r64 = xmalloc((size_t)r->nvar64 * 32 * sizeof(union r64) + 1);
            b->warps[w].pred = xmalloc((size_t)r->npred * sizeof(uint32_t) + 1);
            b->warps[w].loop_iter = xcalloc(r->n_unroll + 1, sizeof(uint32_t));
            /* grows as divergence nests (exec_one, ptx_call.c), to
             * PTX_STACK_MAX a function */
            b->warps[w].stk_cap = PTX_STACK_INLINE;
            b->warps[w].stk = b->warps[w].stk_in;
        }
        b->allocated = true;
        b->sz = ptx_block_sizes(r);
    } else {
        struct ptx_block_sizes now = ptx_block_sizes(r);
        if (memcmp(&b->sz, &now, sizeof now) != 0)
            SIM_PANIC("kernel %s: block slot %u reused with storage for another layout (32-bit "
                      "registers %u, now %u; 64-bit %u, now %u; warps %u, now %u)", r->k->name,
                      slot, b->sz.cbase32, now.cbase32, b->sz.nvar64, now.nvar64, b->sz.wpb,
                      now.wpb);
    }
    b->id = id;
    b->sm = sm;
    uint32_t gx = r->l->grid[0], gy = r->l->grid[1];
    b->ctaid[0] = (uint32_t)(id % gx);
    b->ctaid[1] = (uint32_t)((id / gx) % gy);
    b->ctaid[2] = (uint32_t)(id / ((uint64_t)gx * gy));
    memset(b->smem, 0, r->shared_bytes);
    memset(b->bred, 0, sizeof b->bred);
    memset(b->bar_gen, 0, sizeof b->bar_gen);
    memset(b->nbar_at, 0, sizeof b->nbar_at);
    memset(b->nbar_gen, 0, sizeof b->nbar_gen);
    b->n_mbar = 0;
    ptx_wgmma_block_free(r, b);
    ptx_cluster_block_begin(r, b);
    memset(b->local, 0, (size_t)r->local_bytes * r->tpb);
    for (uint32_t w = 0; w < r->wpb; w++) {
        struct pwarp *pw = &b->warps[w];
        if (pw->live && !pw->finished)      /* a block left unfinished (an earlier error) */
            r->live_warps--;
        if (pw->live && pw->bar_counted)
            r->n_at_bar--;
        init_warp(r, b, pw, w);
        pw->live = true;
        r->live_warps++;
    }
}

/* Does x synchronize lanes of its warp: a CTA barrier that waits,
 * bar.warp.sync, shfl.sync, vote.sync, match, redux?  *need: the lanes it
 * names (a member mask, read in the first of lanes m; every lane for a
 * barrier; m for a warp operation without one). */
static bool
sync_lanes(const struct pwarp *pw, const struct xop *x, uint32_t m, uint32_t *need)
{
    const struct slot *mask = NULL;
    switch (x->kind) {
    case XK_BAR:
        *need = ~0u;
        return !(x->flags & PF_ARRIVE);
    case XK_SHFL:
        mask = &x->e;
        break;
    case XK_VOTE:
        mask = &x->b;
        break;
    case XK_NOP:                 /* bar.warp.sync keeps its mask in a */
        if (!(x->flags & PF_WARPSYNC) || x->a.cls == SC_NONE)
            return false;
        mask = &x->a;
        break;
    default:
        return false;
    }
    *need = mask->cls != SC_NONE ? (uint32_t)lane_get(pw, mask, (unsigned)__builtin_ctz(m)) : m;
    return true;
}

/* Remove lanes from every stack entry (they exited). */
static void
retire_lanes(struct pwarp *pw, uint32_t lanes)
{
    pw->exited |= lanes;
    for (int i = 0; i < pw->sp; i++)
        pw->stk[i].mask &= ~lanes;
}

/* Run warp w of slot's block until an operation issues: *xi its x[]
 * index.  1 with wi filled, 0 when the warp has finished. */
static int
exec_one(struct ptx_run *r, uint32_t slot, uint32_t w, struct warp_inst *wi, int32_t *xi,
         struct sim_error *err)
{
    struct pblock *b = &r->blocks[slot];
    struct pwarp *pw = &b->warps[w];
    struct simt_entry *top;

    if (pw->bred_pc >= 0)
        bred_finish(r, b, pw);
    if (pw->nbar >= 0) {         /* released from a named barrier */
        pw->nbar = -1;
        left_barrier(r, pw);
    }
    if (pw->bar_pending) {       /* released: every warp of the block has arrived */
        uint32_t g = pw->bars - 1;
        if (b->bar_icount[g % 2] > pw->icount)
            pw->icount = b->bar_icount[g % 2];
        pw->bar_pending = false;
        left_barrier(r, pw);
    }

    /* Run the warp's instructions until one issues: an operation ptxas
     * folded away (ptx_lower.c) executes here but is not handed out. */
    for (;;) {
        /* find the path to run: pop reconverged and finished entries, and
         * finished calls */
        for (;;) {
            if (pw->cs.n > 0 && pw->sp <= pw->cs.frames[pw->cs.n - 1].base_sp) {
                ptx_call_leave(r, b, pw);
                continue;
            }
            if (pw->sp == 0 && pw->spin.parked != 0) {
                ptx_spin_unpark(pw);     /* the others exited */
                continue;
            }
            if (pw->sp == 0) {
                if (!pw->finished) {
                    pw->finished = true;
                    r->live_warps--;
                }
                return 0;
            }
            top = &pw->stk[pw->sp - 1];
            if (top->mask == 0 || (top->rpc >= 0 && top->pc == top->rpc)) {
                pw->sp--;
                continue;
            }
            if (top->pc >= pw->cs.end) {
                /* ran off the end: an implicit exit, or return */
                if (pw->cs.n > 0)
                    ptx_call_ret(pw, top->mask);
                else
                    retire_lanes(pw, top->mask);
                pw->sp--;
                continue;
            }
            break;
        }
        int32_t pc = top->pc;
        const struct xop *x = &r->x[pc];
        if (pw->retry_at == pc)  /* back at the wait it retries */
            pw->retry_at = -1;
        uint32_t active = top->mask;
        uint32_t m = active;
        if (x->guard >= 0)
            m &= x->guard_neg ? ~pw->pred[x->guard] : pw->pred[x->guard];

        memset(wi, 0, offsetof(struct warp_inst, addr));
        wi->pc = x->spc;
        wi->active_mask = m;
        wi->opcode = x->opcode;
        wi->opclass = x->opclass;
        wi->flags = x->iflags;
        wi->n_dst = x->n_dst;
        wi->n_src = x->n_src;
        wi->stall = x->stall;
        memcpy(wi->dst, x->dst, sizeof wi->dst);
        memcpy(wi->src, x->src, sizeof wi->src);

        uint32_t need;
        if (pw->spin.its && m != 0 && sync_lanes(pw, x, m, &need)) {
            /* lanes a yield split wait there for the others (ptx_spin.h) */
            int parked = ptx_spin_sync(r, pw, x, pc, need, &m, err);
            if (parked < 0)
                return parked;
            if (parked)
                continue;        /* run another path */
            wi->active_mask = m;
        }

        bool advance = true;
        switch (x->kind) {
        case XK_ALU:
            ptx_alu_exec(pw, x, m);
            break;
        case XK_PARAM:
            for (unsigned v = 0; v < x->vec; v++) {
                const struct slot *d = XOP_PARAM_DST(x, v), *a = XOP_PARAM_VAL(x, v);
                if (d->cls == SC_NONE)
                    continue;
                LANES(m, { lane_set(pw, d, l, lane_get(pw, a, l)); });
            }
            break;
        case XK_BAR:
            if (m == 0)
                break;
            SIM_FORWARD_IF_ERROR(bar_operands(r, b, pw, x, m, wi, err));
            if (x->atom != PA_NONE)
                SIM_FORWARD_IF_ERROR(bred_arrive(r, b, pw, x, pc, m, err));
            if (SIM_BAR_WARPS(wi->aux) != 0 || SIM_BAR_ARRIVE(wi->aux)) {
                named_barrier(r, b, pw, wi->aux);
            } else {             /* every warp of the block (__syncthreads) */
                uint32_t g = pw->bars++;
                if (b->bar_gen[g % 2] != g + 1) {
                    b->bar_gen[g % 2] = g + 1;
                    b->bar_icount[g % 2] = 0;
                    b->bar_arrived[g % 2] = 0;
                }
                b->bar_arrived[g % 2]++;
                if (pw->icount + 1 > b->bar_icount[g % 2])
                    b->bar_icount[g % 2] = pw->icount + 1;   /* + the barrier itself */
                pw->bar_pending = true;
                wait_at_barrier(r, pw);
            }
            break;
        case XK_MOVE_CLOCK: {
            /* %globaltimer counts as the clock does; x->atom names the half */
            uint64_t t = !SIM_UNTIMED(r->now) ? r->now : pw->icount * 4;
            if (x->atom == SR_CLOCK_HI || x->atom == SR_GLOBALTIMER_HI)
                t >>= 32;
            LANES(m, { lane_set(pw, &x->d, l, t); });
            break;
        }
        case XK_LD:
        case XK_ST:
        case XK_ATOM:
        case XK_RED:
            SIM_FORWARD_IF_ERROR(exec_mem(r, b, pw, x, m, wi, err));
            if (x->kind == XK_ST && m != 0)
                ptx_spin_memory_changed(r);
            if (x->xmod & PX_ASYNC)      /* st.async, red.async: their mbarrier */
                SIM_FORWARD_IF_ERROR(ptx_sync_async_tx(r, b, pw, x, m, wi, err));
            if (x->vbytes != 0)
                wi->width = x->vbytes;   /* the merged access ptxas issues */
            if (x->space == PS_PARAM) {  /* a call's argument: a register move */
                wi->space = SIM_SPACE_NONE;
                wi->width = 0;
            }
            break;
        case XK_CALL:
            advance = false;
            if (m == 0) {
                top->pc = pc + 1;
                break;
            }
            SIM_FORWARD_IF_ERROR(ptx_call_enter(r, b, pw, x, pc, m, err));
            break;
        case XK_RET:
            ptx_call_ret(pw, m);
            break;
        case XK_FRAMEADDR:
            LANES(m, { lane_set(pw, &x->d, l, pw->cs.fp + (uint64_t)x->off); });
            break;
        case XK_SPILL:
            LANES(m, { wi->addr[l] = ptx_mem_local_taddr(r, b, w, l, pw->cs.fp + (uint64_t)x->off); });
            wi->space = SIM_SPACE_LOCAL;
            wi->width = 4;
            break;
        case XK_MMA:
        case XK_WMMA:
            if (x->part + 1 >= x->nparts) /* a split wmma: its last tile computes all */
                ptx_mma_exec(pw, x, m);
            if (x->opclass == SIM_OPC_TENSOR_DP)   /* M / 8 x K / 4 DMMA.884s' work */
                wi->aux = ptx_mma_dmma_units(x);
            break;
        case XK_WLOAD:
        case XK_WSTORE:
            SIM_FORWARD_IF_ERROR(exec_wmma_mem(r, b, pw, x, m, wi, err));
            if (x->kind == XK_WSTORE && m != 0)
                ptx_spin_memory_changed(r);
            break;
        case XK_LDMATRIX:
        case XK_STMATRIX:
            SIM_FORWARD_IF_ERROR(exec_ldmatrix(r, b, pw, x, m, wi, err));
            if (x->kind == XK_STMATRIX && m != 0)
                ptx_spin_memory_changed(r);
            break;
        case XK_CPASYNC:
            if (m != 0)
                ptx_spin_memory_changed(r);
            SIM_FORWARD_IF_ERROR(exec_cp_async(r, b, pw, x, m, wi, err));
            wi->n_dst = 1;                /* its group's register */
            wi->dst[0] = async_reg(pw->async_groups);
            break;
        case XK_MBAR:
        case XK_BULK:
        case XK_ELECT:
            SIM_FORWARD_IF_ERROR(ptx_sync_exec(r, b, pw, x, m, wi, err));
            advance = wi->sync != SIM_SYNC_BLOCKED;
            break;
        case XK_SHFL:
            exec_shfl(pw, x, m);
            break;
        case XK_VOTE:
            exec_vote(pw, x, m);
            break;
        case XK_ACTIVEMASK: {
            /* the predicated-on active lanes: a lane whose guard is false
             * contributes 0 (PTX ISA, activemask), as one that branched
             * away does -- the same result when the sm_90 lowering turns
             * a short branch around it into guards (ptx_lower.c) */
            union r32 *D = R32(x->d);
            LANES(m, { D[l].u = m; });
            break;
        }
        case XK_BRA: {
            advance = false;
            bool yield = false;
            if (m != 0 && x->target <= pc)     /* a loop's back-edge */
                SIM_FORWARD_IF_ERROR(ptx_spin_backedge(r, b, pw, x, x->target, &yield, err));
            if (m == active) {
                top->pc = x->target;
            } else if (m == 0) {
                top->pc = pc + 1;
            } else {
                int base = pw->cs.n > 0 ? pw->cs.frames[pw->cs.n - 1].base_sp : 0;
                if (pw->sp - base + 2 > PTX_STACK_MAX)
                    return sim_error_set(err, SIM_ERR_UNSUPPORTED,
                                         "%s:%u: divergence nested deeper than %d levels",
                                         r->m->path, x->line, PTX_STACK_MAX / 2);
                ptx_stack_reserve(pw);
                top = &pw->stk[pw->sp - 1];
                int32_t rpc = x->reconv >= 0 ? x->reconv : pw->cs.end;
                top->pc = rpc;
                pw->stk[pw->sp++] = (struct simt_entry){ pc + 1, rpc, active & ~m };
                pw->stk[pw->sp++] = (struct simt_entry){ x->target, rpc, m };
            }
            if (yield)
                ptx_spin_yield(pw);
            break;
        }
        case XK_EXIT:
            retire_lanes(pw, m);
            break;
        case XK_TRAP:
            if (m != 0)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: kernel %s: %s: the kernel "
                                     "aborted (block %" PRIu64 ", thread %u, pc %#x)%s",
                                     r->m->path, x->line, r->k->name,
                                     x->op == PTXOP_BRKPT ? "brkpt (a breakpoint, and no "
                                     "debugger)" : "trap", b->id,
                                     w * 32 + (unsigned)__builtin_ctz(m), x->spc,
                                     r->grid_ws == 0 && r->uses_grid_ws
                                     ? "; the kernel syncs the grid (cooperative groups' "
                                       "grid_group::sync()), which needs a cooperative launch "
                                       "(cudaLaunchCooperativeKernel)" : "");
            break;
        case XK_NOP:
            if (x->op == PTXOP_CP)
                async_group_op(pw, x, wi);
            break;
        case XK_WGMMA:
            /* the group's register; aux: N, and whether A is read from
             * shared memory (sim/inst.h, SIM_OPC_WGMMA) */
            SIM_FORWARD_IF_ERROR(ptx_wgmma_exec(r, b, pw, x, m, err));
            wi->n_dst = 1;
            wi->dst[0] = wgmma_reg(pw->wgmma_groups);
            wi->aux = (uint32_t)x->vec * 8u | ((x->mode & WG_A_REGS) ? 0 : SIM_WGMMA_A_SHARED);
            break;
        case XK_WGCOMMIT:
            pw->wgmma_groups++;
            break;
        case XK_MAPA:
        case XK_CLARRIVE:
        case XK_CLWAIT:
            SIM_FORWARD_IF_ERROR(ptx_cluster_exec(r, b, pw, x, m, wi, &advance, err));
            break;
        case XK_TEX:
            SIM_FORWARD_IF_ERROR(ptx_tex_exec(r, b, pw, x, m, wi, err));
            break;
        case XK_WGWAIT:          /* aux: N, as WARPGROUP.DEPBAR.LE gsb0, N has it */
            wi->aux = x->vec;
            async_group_wait_regs(WGMMA_REG, pw->wgmma_groups, x->vec, wi->src, &wi->n_src,
                                  SIM_MAX_SRC);
            break;
        default:                      /* barriers, fences: timing only */
            break;
        }
        if (advance) {
            top = &pw->stk[pw->sp - 1];
            top->pc = pc + 1;
        } else if (wi->sync == SIM_SYNC_BLOCKED) {
            *xi = pc;            /* not executed: neither counted nor issued */
            return 1;
        }
        r->cnt->ptx_insts += x->head;
        if (m != 0) {
            r->cnt->active_insts += x->head;
            if (pw->retry_at >= 0)
                r->cnt->wait_retries += x->head;
        }
        bool issue = !x->silent;
        if (x->unroll != 0) {
            /* a control operation of a loop ptxas unrolled: it issues in one
             * iteration of PTX_UNROLL, and when the loop is left */
            uint32_t *it = &pw->loop_iter[x->unroll - 1];
            bool last = *it % PTX_UNROLL == PTX_UNROLL - 1;
            if (x->kind == XK_BRA) {
                bool taken = m != 0;
                issue = issue && (last || !taken);
                *it = taken ? *it + 1 : 0;
            } else {
                issue = issue && last;
            }
        }
        if (issue) {
            pw->icount++;
            r->executed++;
            r->cnt->npipe[x->npipe]++;
            *xi = pc;
            return 1;
        }
    }
}

/* ---- unrolled loops' windows (struct ptx_window) ---------------------------- */

#define WIN_HEAD offsetof(struct warp_inst, addr)

/* Buffer wi as entry k of the warp's window. */
static void
win_store(struct ptx_run *r, struct pwarp *pw, uint32_t k, const struct warp_inst *wi,
          uint32_t *n_mem)
{
    memcpy(pw->win + (size_t)k * WIN_HEAD, wi, WIN_HEAD);
    pw->win_at[k] = UINT16_MAX;
    if (wi->space != SIM_SPACE_NONE && *n_mem <= r->win_mem) {   /* win_mem + 1 rows */
        memcpy(pw->win_addr + (size_t)*n_mem * SIM_WARP_SIZE, wi->addr, sizeof wi->addr);
        pw->win_at[k] = (uint16_t)(*n_mem)++;
    }
}

/* Does wi carry x's own registers (those the plan renamed)? */
static bool
static_ids(const struct warp_inst *wi, const struct xop *x)
{
    return wi->n_dst == x->n_dst && wi->n_src == x->n_src &&
           memcmp(wi->dst, x->dst, x->n_dst * sizeof *wi->dst) == 0 &&
           memcmp(wi->src, x->src, x->n_src * sizeof *wi->src) == 0;
}

/* The entry the window hands out at position pos: the plan's order, or
 * as executed. */
static inline uint32_t
win_entry(const struct pwarp *pw, uint32_t pos)
{
    return pw->win_plan != NULL ? pw->win_plan->order[pos] : pos;
}

/* The window's next operation into wi. */
static int
win_next(struct pwarp *pw, struct warp_inst *wi)
{
    uint32_t k = win_entry(pw, pw->win_pos);
    pw->win_pos++;
    memcpy(wi, pw->win + (size_t)k * WIN_HEAD, WIN_HEAD);
    if (pw->win_at[k] != UINT16_MAX)
        memcpy(wi->addr, pw->win_addr + (size_t)pw->win_at[k] * SIM_WARP_SIZE, sizeof wi->addr);
    if (pw->win_plan != NULL) {
        const uint16_t *ids = pw->win_plan->ids + (size_t)k * PTX_WIN_IDS;
        memcpy(wi->dst, ids, wi->n_dst * sizeof *wi->dst);
        memcpy(wi->src, ids + SIM_MAX_DST, wi->n_src * sizeof *wi->src);
    }
    if (pw->win_pos == pw->win_n) {
        pw->win_n = pw->win_pos = 0;
    } else {
        /* the warp's next fetch reads the next entry: start bringing it
         * into the host's caches (the window is out of them by then) */
        uint32_t nk = win_entry(pw, pw->win_pos);
        const uint8_t *h = pw->win + (size_t)nk * WIN_HEAD;
        for (size_t o = 0; o < WIN_HEAD; o += 64)
            __builtin_prefetch(h + o);
        if (pw->win_at[nk] != UINT16_MAX) {
            const uint8_t *a = (const uint8_t *)(pw->win_addr + (size_t)pw->win_at[nk] *
                                                                 SIM_WARP_SIZE);
            for (size_t o = 0; o < SIM_WARP_SIZE * sizeof *pw->win_addr; o += 64)
                __builtin_prefetch(a + o);
        }
    }
    return 1;
}

/* The operations of PTX_UNROLL iterations of the loop whose window (plan
 * pl) starts with wi, executed now in program order and handed out in the
 * plan's; when the warp leaves the loop or finishes before, those it ran
 * in the order they ran. */
static int
win_fill(struct ptx_run *r, uint32_t slot, uint32_t w, struct warp_inst *wi,
         const struct ptx_window *pl, struct sim_error *err)
{
    struct pwarp *pw = &r->blocks[slot].warps[w];
    if (pw->win == NULL) {       /* once per warp slot: bounded by the resident warps */
        pw->win = xmalloc((size_t)r->win_max * WIN_HEAD);
        pw->win_at = xmalloc((size_t)r->win_max * sizeof *pw->win_at);
        pw->win_addr = xmalloc(((size_t)r->win_mem + 1) * SIM_WARP_SIZE * sizeof *pw->win_addr);
    }
    uint32_t n_mem = 0, k = 1;
    bool ok = static_ids(wi, &r->x[pl->xop[0]]);
    win_store(r, pw, 0, wi, &n_mem);
    while (ok && k < pl->n) {
        int32_t xi;
        int rc = exec_one(r, slot, w, wi, &xi, err);
        if (rc < 0)
            return rc;
        if (rc == 0) {           /* finished: hand out what ran */
            ok = false;
            break;
        }
        win_store(r, pw, k, wi, &n_mem);
        ok = (uint32_t)xi == pl->xop[k] && static_ids(wi, &r->x[xi]);
        k++;
    }
    pw->win_n = (uint16_t)k;
    pw->win_pos = 0;
    pw->win_plan = ok ? pl : NULL;
    return win_next(pw, wi);
}

int
ptx_exec_step(struct ptx_run *r, uint32_t slot, uint32_t w, struct warp_inst *wi,
              struct sim_error *err)
{
    struct pwarp *pw = &r->blocks[slot].warps[w];
    if (pw->win_pos < pw->win_n)
        return win_next(pw, wi);
    int32_t xi;
    int rc = exec_one(r, slot, w, wi, &xi, err);
    if (rc != 1 || r->win_head == NULL || r->win_head[xi] == 0)
        return rc;
    unsigned t = r->win_head[xi] - 1u;
    if (pw->loop_iter[t] % PTX_UNROLL != 0)
        return rc;
    return win_fill(r, slot, w, wi, &r->windows[t], err);
}

void
ptx_exec_blocks_free(struct pblock *blocks, uint32_t n_slots, uint32_t wpb)
{
    for (uint32_t s = 0; s < n_slots; s++) {
        struct pblock *b = &blocks[s];
        if (!b->allocated)
            continue;
        for (uint32_t w = 0; w < wpb; w++) {
            free(b->warps[w].r32);
            free(b->warps[w].r64);
            free(b->warps[w].pred);
            free(b->warps[w].loop_iter);
            free(b->warps[w].win);
            free(b->warps[w].win_at);
            free(b->warps[w].win_addr);
            if (b->warps[w].stk != b->warps[w].stk_in)
                free(b->warps[w].stk);
            ptx_call_warp_free(&b->warps[w]);
        }
        free(b->warps);
        free(b->smem);
        free(b->local);
    }
    free(blocks);
}

void
ptx_exec_free(struct ptx_run *r)
{
    for (uint32_t s = 0; s < r->n_slots; s++)
        ptx_wgmma_block_free(r, &r->blocks[s]);
    ptx_exec_blocks_free(r->blocks, r->n_slots, r->wpb);
    r->blocks = NULL;
    r->n_slots = 0;
    for (uint32_t t = 0; r->windows != NULL && t < r->n_unroll; t++) {
        free(r->windows[t].xop);
        free(r->windows[t].order);
        free(r->windows[t].ids);
    }
    free(r->windows);
    r->windows = NULL;
    free(r->win_head);
    r->win_head = NULL;
    free(r->x);
    free(r->wslots);
    free(r->clusters);
    ptx_wgmma_free(r);
    free(r->funcs);
    free(r->fmap);
    free(r->sites);
    free(r->locs);
    free(r->tmpl32);
    free(r->tmpl64);
    free(r->sr_tmpl);
    free(r->own_heap.mem);
    free(r->const32);
    free(r->const64);
    free(r->constp);
    free(r->param_blob);
    if (r->m != NULL)
        for (uint32_t i = 0; i < r->m->n_syms; i++)
            free(r->msym_data ? r->msym_data[i] : NULL);
    free(r->msym_data);
    free(r->msym_addr);
    free(r->regions);
}
