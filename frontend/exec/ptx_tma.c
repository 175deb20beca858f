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
    /* the box: rows of n[0] elements (the inner dimension), over the
     * outer dimensions' counts; lo/hi: the part inside the tensor */
    uint32_t n[PTX_TMAP_MAX_RANK] = { 1, 1, 1, 1, 1 };
    int64_t lo[PTX_TMAP_MAX_RANK] = { 0 }, hi[PTX_TMAP_MAX_RANK] = { 0 };
    for (unsigned d = 0; d < PTX_TMAP_MAX_RANK; d++) {
        if (d >= m.rank) {
            hi[d] = 1;
            continue;
        }
        n[d] = ptx_tmap_box_elems(&m, d);
        int64_t es = d == 0 ? 1 : m.estride[d];
        /* box index i reads coordinate c + i es: inside for 0 <= c + i es < dims */
        int64_t first = c[d] >= 0 ? 0 : (-c[d] + es - 1) / es;
        int64_t last = ((int64_t)m.dims[d] - 1 - c[d]) < 0 ? -1 : ((int64_t)m.dims[d] - 1 - c[d]) / es;
        lo[d] = first;
        hi[d] = last + 1 < (int64_t)n[d] ? last + 1 : (int64_t)n[d];
        if (hi[d] < lo[d])
            hi[d] = lo[d];
    }
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
    bool inside = hi[0] > lo[0];
    for (unsigned d = 1; d < PTX_TMAP_MAX_RANK; d++)
        inside = inside && hi[d] > lo[d];
    int rc = SIM_OK;
    uint64_t first_t = 0;
    for (int64_t i4 = lo[4]; inside && i4 < hi[4] && rc == SIM_OK; i4++)
    for (int64_t i3 = lo[3]; i3 < hi[3] && rc == SIM_OK; i3++)
    for (int64_t i2 = lo[2]; i2 < hi[2] && rc == SIM_OK; i2++)
    for (int64_t i1 = lo[1]; i1 < hi[1] && rc == SIM_OK; i1++) {
        int64_t i[5] = { lo[0], i1, i2, i3, i4 };
        uint64_t ga = m.gaddr, bo = 0, span = 1;
        for (unsigned d = 0; d < m.rank; d++) {
            int64_t es = d == 0 ? 1 : m.estride[d];
            ga += (uint64_t)(c[d] + i[d] * es) * m.strides[d];
            bo += (uint64_t)i[d] * span;
            span *= n[d];
        }
        uint64_t len = (uint64_t)(hi[0] - lo[0]) * m.esize;
        struct ptx_access gac;
        rc = ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, ga, (unsigned)len, x, &gac, err);
        if (rc != SIM_OK)
            break;
        if (first_t == 0)
            first_t = gac.taddr;
        if (load)
            memcpy(box + bo * m.esize, gac.p, len);
        else if (rtype == PT_NONE)
            memcpy(gac.p, box + bo * m.esize, len);
        else
            ptx_reduce_bytes(x->atom, rtype, gac.p, box + bo * m.esize, len);
    }
    if (rc == SIM_OK && load)
        for (uint64_t o = 0; o < total; o += 16)
            memcpy(sac.p + (ptx_tmap_smem_addr(&m, (uint32_t)sa, o) - sa), box + o, 16);
    free(box);
    SIM_FORWARD_IF_ERROR(rc);
    ptx_spin_memory_changed(r);
    /* the timing model: the rows inside the tensor (sim/inst.h) */
    wi->space = SIM_SPACE_GLOBAL;
    wi->width = 16;
    wi->bulk = SIM_BULK_TENSOR;
    wi->active_mask = 1u << l;
    memset(wi->addr, 0, 10 * sizeof wi->addr[0]);
    if (inside) {
        wi->addr[0] = first_t;
        wi->addr[1] = (uint64_t)(hi[0] - lo[0]) * m.esize;
        for (unsigned d = 1; d < PTX_TMAP_MAX_RANK; d++) {
            wi->addr[2 * d] = d < m.rank ? (uint64_t)(hi[d] - lo[d]) : 1;
            wi->addr[2 * d + 1] = d < m.rank ? m.estride[d] * m.strides[d] : 0;
        }
    }
    return SIM_OK;
}
