/*
 * ptx_tma.c - TMA tensor copies (see ptx_tma.h).
 */
#include "frontend/exec/ptx_tma.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_spin.h"
#include "frontend/exec/ptx_tmap.h"

static int
terr(const struct ptx_run *r, const struct pblock *b, const struct pwarp *pw, const struct xop *x,
     struct sim_error *err, int code, const char *what)
{
    return sim_error_set(err, code, "%s:%u: kernel %s, block %" PRIu64 ", warp %u: "
                         "cp.async.bulk.tensor: %s", r->m->path, x->line, r->k->name, b->id,
                         pw->index, what);
}

/* The tensor map at generic (or parameter-space) address a. */
static int
read_map(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
         sim_addr_t a, struct ptx_tmap *m, struct sim_error *err)
{
    const uint8_t *p;
    struct ptx_access ac;
    if (a + PTX_TMAP_BYTES <= r->k->param_bytes) {
        p = r->param_blob + a;   /* a parameter's address without cvta.param */
    } else {
        SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GENERIC, a, PTX_TMAP_BYTES,
                                             x, &ac, err));
        p = ac.p;
    }
    if (!ptx_tmap_decode(p, m)) {
        char msg[200];
        snprintf(msg, sizeof msg, "the 128 bytes at %#" PRIx64 " are no tensor map (a launch "
                 "file's `arg = NAME tensormap ...` makes one: doc/launch-format.md)", a);
        return terr(r, b, pw, x, err, SIM_ERR_FORMAT, msg);
    }
    if (m->rank != x->vec) {
        char msg[120];
        snprintf(msg, sizeof msg, "a %ud copy of a tensor map of rank %u", x->vec, m->rank);
        return terr(r, b, pw, x, err, SIM_ERR_FORMAT, msg);
    }
    if (m->im2col != ((x->xmod & PX_IM2COL) != 0))
        return terr(r, b, pw, x, err, SIM_ERR_FORMAT, m->im2col ? "a .tile copy of an im2col "
                    "tensor map (the copy needs .im2col)" : "an .im2col copy of a tiled tensor "
                    "map (the map needs mode=im2col: cuTensorMapEncodeIm2col)");
    return SIM_OK;
}

/* Move one row of a copy between the box and global memory at ga (len
 * bytes; rtype: a reduction's element type, or PT_NONE); *first_t: the
 * first row's timing address. */
static int
move_row(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
         uint64_t ga, uint64_t len, bool load, unsigned rtype, uint8_t *row, uint64_t *first_t,
         struct sim_error *err)
{
    struct ptx_access gac;
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, ga, (unsigned)len, x, &gac,
                                         err));
    if (*first_t == 0)
        *first_t = gac.taddr;
    if (load)
        memcpy(row, gac.p, len);
    else if (rtype == PT_NONE)
        memcpy(gac.p, row, len);
    else
        ptx_reduce_bytes(x->atom, rtype, gac.p, row, len);
    return SIM_OK;
}

/* The pixels of an im2col copy (ptx_tma.h): row k of the box (cpp
 * channels from c[0]) is the pixel at the k-th filter base position from
 * c[1 .. rank - 2] in the tensor map's pixel box (W fastest, every
 * estride-th, then the next image), moved by lane l's offsets; pixels and
 * channels outside the tensor are not read (the box keeps the fill) or
 * written.  The timing model (addr[], zeroed) sees the pixels read as one
 * run along W: their number and bytes are the copy's, the addresses where
 * a row of the box wraps are not. */
static int
im2col_rows(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
            const struct ptx_tmap *m, const int64_t *c, bool load, unsigned rtype, uint8_t *box,
            sim_addr_t *addr, struct sim_error *err)
{
    static const int64_t off_max[6] = { 0, 0, 0, 65535, 255, 31 };
    unsigned ns = m->rank - 2u, last = m->rank - 1u;
    int64_t pos[3], hi[3], off[3] = { 0, 0, 0 }, n = c[last];
    for (unsigned j = 0; j < ns; j++) {
        pos[j] = c[j + 1];
        hi[j] = (int64_t)m->dims[j + 1] - 1 + m->upper[j];
        if (pos[j] < m->lower[j] || pos[j] > hi[j])
            return terr(r, b, pw, x, err, SIM_ERR_FORMAT, "im2col: the filter's base position "
                        "lies outside the tensor map's pixel box (lower .. dim - 1 + upper)");
        if (x->frag[5 + j].cls != SC_NONE)
            off[j] = (int64_t)(uint16_t)lane_get(pw, &x->frag[5 + j], l);
        if (off[j] > off_max[m->rank])
            return terr(r, b, pw, x, err, SIM_ERR_FORMAT, m->rank == 3 ? "im2col: an offset "
                        "above 65535 (rank 3)" : m->rank == 4 ? "im2col: an offset above 255 "
                        "(rank 4)" : "im2col: an offset above 31 (rank 5)");
    }
    /* the channels of a pixel inside the tensor: [ch_lo, ch_hi) of the row */
    int64_t ch_lo = c[0] < 0 ? -c[0] : 0;
    int64_t ch_hi = (int64_t)m->dims[0] - c[0] < m->cpp ? (int64_t)m->dims[0] - c[0] : m->cpp;
    uint64_t len = ch_hi > ch_lo ? (uint64_t)(ch_hi - ch_lo) * m->esize : 0, first_t = 0;
    uint32_t rows = 0;
    for (uint32_t k = 0; k < m->ppc; k++) {
        bool in = len > 0 && n >= 0 && n < (int64_t)m->dims[last];
        uint64_t ga = m->gaddr + (uint64_t)(c[0] + ch_lo) * m->esize + (uint64_t)n * m->strides[last];
        for (unsigned j = 0; j < ns && in; j++) {
            int64_t p = pos[j] + off[j];
            in = p >= 0 && p < (int64_t)m->dims[j + 1];
            ga += (uint64_t)p * m->strides[j + 1];
        }
        if (in) {
            uint8_t *row = box + ((uint64_t)k * m->cpp + (uint64_t)ch_lo) * m->esize;
            SIM_FORWARD_IF_ERROR(move_row(r, b, pw, x, l, ga, len, load, rtype, row, &first_t,
                                          err));
            rows++;
        }
        unsigned j = 0;          /* the next base position */
        for (; j < ns; j++) {
            pos[j] += m->estride[j + 1];
            if (pos[j] <= hi[j])
                break;
            pos[j] = m->lower[j];
        }
        if (j == ns)
            n++;
    }
    if (rows > 0) {
        addr[0] = first_t;
        addr[1] = len;
        addr[2] = rows;
        addr[3] = m->estride[1] * m->strides[1];
        for (unsigned d = 2; d < PTX_TMAP_MAX_RANK; d++)
            addr[2 * d] = 1;
    }
    return SIM_OK;
}

/* The box of a tiled copy (ptx_tma.h): rows of n[0] elements (the inner
 * dimension) over the outer dimensions' counts, those inside the tensor
 * moved; the timing model (addr[], zeroed) sees them (sim/inst.h). */
static int
tile_rows(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
          const struct ptx_tmap *m, const int64_t *c, bool load, unsigned rtype, uint8_t *box,
          sim_addr_t *addr, struct sim_error *err)
{
    /* lo/hi: the part of the box inside the tensor */
    uint32_t n[PTX_TMAP_MAX_RANK] = { 1, 1, 1, 1, 1 };
    int64_t lo[PTX_TMAP_MAX_RANK] = { 0 }, hi[PTX_TMAP_MAX_RANK] = { 0 };
    bool inside = true;
    for (unsigned d = 0; d < PTX_TMAP_MAX_RANK; d++) {
        if (d >= m->rank) {
            hi[d] = 1;
            continue;
        }
        n[d] = ptx_tmap_box_elems(m, d);
        int64_t es = d == 0 ? 1 : m->estride[d];
        /* box index i reads coordinate c + i es: inside for 0 <= c + i es < dims */
        int64_t first = c[d] >= 0 ? 0 : (-c[d] + es - 1) / es;
        int64_t last = ((int64_t)m->dims[d] - 1 - c[d]) < 0 ? -1
                                                            : ((int64_t)m->dims[d] - 1 - c[d]) / es;
        lo[d] = first;
        hi[d] = last + 1 < (int64_t)n[d] ? last + 1 : (int64_t)n[d];
        inside = inside && hi[d] > lo[d];
    }
    if (!inside)
        return SIM_OK;
    uint64_t len = (uint64_t)(hi[0] - lo[0]) * m->esize, first_t = 0;
    for (int64_t i4 = lo[4]; i4 < hi[4]; i4++)
    for (int64_t i3 = lo[3]; i3 < hi[3]; i3++)
    for (int64_t i2 = lo[2]; i2 < hi[2]; i2++)
    for (int64_t i1 = lo[1]; i1 < hi[1]; i1++) {
        int64_t i[5] = { lo[0], i1, i2, i3, i4 };
        uint64_t ga = m->gaddr, bo = 0, span = 1;
        for (unsigned d = 0; d < m->rank; d++) {
            int64_t es = d == 0 ? 1 : m->estride[d];
            ga += (uint64_t)(c[d] + i[d] * es) * m->strides[d];
            bo += (uint64_t)i[d] * span;
            span *= n[d];
        }
        SIM_FORWARD_IF_ERROR(move_row(r, b, pw, x, l, ga, len, load, rtype, box + bo * m->esize,
                                      &first_t, err));
    }
    addr[0] = first_t;
    addr[1] = len;
    for (unsigned d = 1; d < PTX_TMAP_MAX_RANK; d++) {
        addr[2 * d] = d < m->rank ? (uint64_t)(hi[d] - lo[d]) : 1;
        addr[2 * d + 1] = d < m->rank ? m->estride[d] * m->strides[d] : 0;
    }
    return SIM_OK;
}

/* The bits of the NaN a float type fills with, in esize bytes. */
static uint64_t
nan_bits(unsigned type)
{
    switch (type) {
    case TMT_F16: return 0x7fff;
    case TMT_BF16: return 0x7fff;
    case TMT_F64: return UINT64_C(0x7fffffffffffffff);
    case TMT_F32: case TMT_F32_FTZ: case TMT_TF32: case TMT_TF32_FTZ: return 0x7fffffff;
    default: return 0;
    }
}

/* The PTX type a reduction into a tensor of map type t combines its
 * elements as, or PT_NONE when x's operation is not defined on it. */
static unsigned
reduce_type(unsigned t, unsigned op)
{
    static const uint8_t pt[TMT_COUNT] = {
        [TMT_U8] = PT_NONE, [TMT_U16] = PT_NONE, [TMT_U32] = PT_U32, [TMT_S32] = PT_S32,
        [TMT_U64] = PT_U64, [TMT_S64] = PT_S64, [TMT_F16] = PT_F16, [TMT_F32] = PT_F32,
        [TMT_F64] = PT_NONE, [TMT_BF16] = PT_BF16, [TMT_F32_FTZ] = PT_F32, [TMT_TF32] = PT_NONE,
        [TMT_TF32_FTZ] = PT_NONE,
    };
    unsigned r = t < TMT_COUNT ? pt[t] : PT_NONE;
    bool is_float = r == PT_F32 || r == PT_F16 || r == PT_BF16;
    bool half = r == PT_F16 || r == PT_BF16;
    switch (op) {
    case PA_ADD: return r;
    case PA_MIN: case PA_MAX: return r == PT_F32 ? PT_NONE : r;
    case PA_INC: case PA_DEC: return r == PT_U32 ? r : PT_NONE;
    case PA_AND: case PA_OR: case PA_XOR: return is_float || half ? PT_NONE : r;
    default: return PT_NONE;
    }
}

int
ptx_tma_box_bytes(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                  unsigned l, uint32_t *bytes, struct sim_error *err)
{
    struct ptx_tmap m;
    SIM_FORWARD_IF_ERROR(read_map(r, b, pw, x, l, lane_slot_addr(pw, &x->base, x->off, l, false),
                                  &m, err));
    *bytes = (uint32_t)ptx_tmap_box_bytes(&m);
    return SIM_OK;
}

int
ptx_tma_copy(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
             unsigned l, struct warp_inst *wi, uint32_t *bytes, struct sim_error *err)
{
    struct ptx_tmap m;
    SIM_FORWARD_IF_ERROR(read_map(r, b, pw, x, l, lane_slot_addr(pw, &x->base, x->off, l, false),
                                  &m, err));
    int64_t c[PTX_TMAP_MAX_RANK] = { 0 };
    for (unsigned d = 0; d < m.rank; d++)
        c[d] = (int32_t)lane_get(pw, &x->frag[d], l);
    uint64_t total = ptx_tmap_box_bytes(&m);
    *bytes = (uint32_t)total;
    if (x->iflags == 0)          /* a prefetch to L2: no effect on what the kernel computes */
        return SIM_OK;
    bool load = (x->iflags & SIM_IF_LOAD) != 0;
    unsigned rtype = PT_NONE;    /* cp.reduce.async.bulk.tensor: what it combines elements as */
    if (x->xmod & PX_REDUCE) {
        rtype = reduce_type(m.type, x->atom);
        if (rtype == PT_NONE) {
            static const char *const ops[] = { "?", "add", "min", "max", "inc", "dec", "and",
                                               "or", "xor" };
            char msg[160];
            snprintf(msg, sizeof msg, "unsupported: cp.reduce.async.bulk.tensor .%s on a "
                     "tensor map of %s", x->atom < 9 ? ops[x->atom] : "?",
                     ptx_tmap_type_name(m.type));
            return terr(r, b, pw, x, err, SIM_ERR_UNSUPPORTED, msg);
        }
    }
    sim_addr_t sa = lane_slot_addr(pw, &x->base2, x->off2, l, true);
    if (sa % 128 != 0)
        return terr(r, b, pw, x, err, SIM_ERR_FORMAT, "the shared-memory address must be a "
                    "multiple of 128 bytes");
    struct ptx_access sac;
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_SHARED, sa, (unsigned)total, x,
                                         &sac, err));
    uint8_t *box = malloc(total);
    if (box == NULL)
        return terr(r, b, pw, x, err, SIM_ERR_NOMEM, "out of memory");
    uint64_t fill = m.fill_nan ? nan_bits(m.type) : 0;
    if (load) {
        for (uint64_t e = 0; e < total / m.esize; e++)
            memcpy(box + e * m.esize, &fill, m.esize);
    } else {
        for (uint64_t o = 0; o < total; o += 16)
            memcpy(box + o, sac.p + (ptx_tmap_smem_addr(&m, (uint32_t)sa, o) - sa), 16);
    }
    /* the timing model: the rows moved (sim/inst.h) */
    wi->space = SIM_SPACE_GLOBAL;
    wi->width = 16;
    wi->bulk = SIM_BULK_TENSOR;
    wi->active_mask = 1u << l;
    memset(wi->addr, 0, 10 * sizeof wi->addr[0]);
    int rc = (m.im2col ? im2col_rows : tile_rows)(r, b, pw, x, l, &m, c, load, rtype, box,
                                                   wi->addr, err);
    if (rc == SIM_OK && load)
        for (uint64_t o = 0; o < total; o += 16)
            memcpy(sac.p + (ptx_tmap_smem_addr(&m, (uint32_t)sa, o) - sa), box + o, 16);
    free(box);
    SIM_FORWARD_IF_ERROR(rc);
    ptx_spin_memory_changed(r);
    return SIM_OK;
}
