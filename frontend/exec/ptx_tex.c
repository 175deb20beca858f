/*
 * ptx_tex.c - texture and surface objects and the instructions that use
 * them (see ptx_tex.h): the descriptors, the decoding of tex, tld4, txq,
 * suld, sust and suq, and their execution.
 */
#include "frontend/exec/ptx_tex.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/exec/ptx_decode_int.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_mem.h"
#include "frontend/exec/ptx_spin.h"

/* ---- descriptors ------------------------------------------------------------ */

static const char tex_magic[7] = { 'S', 'M', 'T', 'E', 'X', '0', '1' };

static void
put64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void
ptx_tex_encode(const struct ptx_tex *t, void *out)
{
    uint8_t *p = out;
    memset(p, 0, PTX_TEX_BYTES);
    memcpy(p, tex_magic, sizeof tex_magic);
    p[7] = t->surface ? 's' : 't';
    put64(p + 8, t->base);
    put64(p + 16, t->pitch);
    put64(p + 24, t->slice);
    put64(p + 32, (uint64_t)t->width | (uint64_t)t->height << 32);
    put64(p + 40, (uint64_t)t->depth | (uint64_t)t->layers << 32);
    uint8_t f[] = { t->channels, t->esize, t->bits, t->ckind, t->dims, t->layered, t->cube,
                    t->filter, t->read_float, t->norm_coords, t->addr[0], t->addr[1], t->addr[2],
                    t->resource };
    memcpy(p + 48, f, sizeof f);
    memcpy(p + 64, t->border, sizeof t->border);
}

bool
ptx_tex_decode(const void *in, struct ptx_tex *t)
{
    const uint8_t *p = in;
    if (memcmp(p, tex_magic, sizeof tex_magic) != 0 || (p[7] != 's' && p[7] != 't'))
        return false;
    memset(t, 0, sizeof *t);
    t->surface = p[7] == 's';
    t->base = get64(p + 8);
    t->pitch = get64(p + 16);
    t->slice = get64(p + 24);
    uint64_t wh = get64(p + 32), dl = get64(p + 40);
    t->width = (uint32_t)wh;
    t->height = (uint32_t)(wh >> 32);
    t->depth = (uint32_t)dl;
    t->layers = (uint32_t)(dl >> 32);
    const uint8_t *f = p + 48;
    t->channels = f[0];
    t->esize = f[1];
    t->bits = f[2];
    t->ckind = f[3];
    t->dims = f[4];
    t->layered = f[5] != 0;
    t->cube = f[6] != 0;
    t->filter = f[7];
    t->read_float = f[8] != 0;
    t->norm_coords = f[9] != 0;
    memcpy(t->addr, f + 10, 3);
    t->resource = f[13];
    memcpy(t->border, p + 64, sizeof t->border);
    const char *why;
    return ptx_tex_check(t, &why);
}

bool
ptx_tex_check(const struct ptx_tex *t, const char **why)
{
    *why = NULL;
    if (t->channels < 1 || t->channels > 4 || (t->bits != 8 && t->bits != 16 && t->bits != 32) ||
        t->esize != t->channels * t->bits / 8 || t->ckind > 2 || (t->ckind == 2 && t->bits == 8))
        *why = "the channel format must be 1, 2 or 4 channels of 8, 16 or 32 bits, signed, "
               "unsigned or float (16 or 32 bits), all alike";
    else if (t->channels == 3)
        *why = "three-channel formats do not exist on the device (use four)";
    else if (t->dims < 1 || t->dims > 3 || (t->cube && (t->dims != 2 || t->width != t->height)))
        *why = "a texture has 1, 2 or 3 dimensions; a cube map is 2D with square faces";
    else if (t->width == 0 || t->height == 0 || t->depth == 0 || t->layers == 0)
        *why = "a texture's width, height, depth and layers are at least 1";
    else if (t->pitch < (uint64_t)t->width * t->esize ||
             (t->height > 1 && t->slice < t->pitch * t->height))
        *why = "the row pitch is smaller than a row";
    else if (t->filter > 1 || t->addr[0] > TXA_BORDER || t->addr[1] > TXA_BORDER ||
             t->addr[2] > TXA_BORDER)
        *why = "unknown filter or address mode";
    else if (t->filter == 1 && t->ckind != 2 && !t->read_float)
        *why = "linear filtering needs a float result: a float format or "
               "cudaReadModeNormalizedFloat";
    else if (t->read_float && t->ckind != 2 && t->bits == 32)
        *why = "cudaReadModeNormalizedFloat applies to 8- and 16-bit integer formats (and "
               "reads float formats as they are), not to 32-bit integers";
    return *why == NULL;
}

uint64_t
ptx_tex_extent(const struct ptx_tex *t)
{
    uint64_t slices = (uint64_t)t->depth * t->layers;
    return (slices - 1) * t->slice + (uint64_t)(t->height - 1) * t->pitch +
           (uint64_t)t->width * t->esize;
}

/* ---- decoding ------------------------------------------------------------------ */

/* Coordinates of a geometry (a vector of 3 is padded to 4). */
static unsigned
geom_coords(unsigned g)
{
    switch (g) {
    case TG_1D: return 1;
    case TG_2D: case TG_A1D: return 2;
    case TG_3D: case TG_A2D: case TG_CUBE: case TG_ACUBE: return 4;
    default: return 0;
    }
}

static int
dc_vec(struct dctx *c, const struct ptx_opnd *o, unsigned n, uint8_t cls, unsigned t,
       struct slot *s, bool dst, struct xop *x)
{
    if (o->kind == PO_REG && n == 1) {
        SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, o, cls, t, &s[0], false));
    } else {
        if (o->kind != PO_VEC || o->nvec != n)
            return ptx_dc_err(c, "%s: expected a vector of %u registers", ptx_op_name(x->op), n);
        for (unsigned i = 0; i < n; i++) {
            struct ptx_opnd e = ptx_dc_vec_elem(o, i);
            SIM_FORWARD_IF_ERROR(ptx_dc_opnd(c, &e, cls, t, &s[i], dst));
        }
    }
    for (unsigned i = 0; i < n; i++)
        (dst ? ptx_dc_add_dst : ptx_dc_add_src)(c->r, x, &s[i]);
    return SIM_OK;
}

/* The object's handle: [reg] (a 64-bit register). */
static int
dc_handle(struct dctx *c, const struct ptx_opnd *o, struct xop *x)
{
    if (o->kind != PO_MEM || o->reg < 0 || o->imm != 0)
        return ptx_dc_err(c, "%s: expected [handle, ...] with the object's handle in a register "
                          "(texture references and explicit samplers are unsupported)",
                          ptx_op_name(x->op));
    x->space = PS_GLOBAL;
    SIM_FORWARD_IF_ERROR(ptx_dc_mem_operand(c, o, x));
    if (x->base.cls != SC_64)
        return ptx_dc_err(c, "%s: the handle must be a 64-bit register", ptx_op_name(x->op));
    ptx_dc_add_src(c->r, x, &x->base);
    return SIM_OK;
}

/* tex{.level,.grad}.geom.v4.dtype.ctype d, [h, {c}]{, lod | , dPdx, dPdy};
 * tld4.comp.geom.v4.dtype.f32 d, [h, {c}]; txq.q.b32 d, [h]; suq.q.b32
 * d, [h]; suld.b.geom{.vec}.dtype.clamp d, [h, {c}]; sust.b.geom{.vec}
 * .ctype.clamp [h, {c}], v.  Destinations frag[0 .. 3], coordinates
 * frag[4 .. 7], tex.level's lod frag[8], tex.grad's gradients frag[8 ..
 * 15] (read by nothing: one level). */
int
ptx_dc_tex(struct dctx *c, const struct ptx_ins *in, struct xop *x)
{
    const struct ptx_opnd *o = in->o;
    x->kind = XK_TEX;
    x->shape = in->shape;
    x->mode = in->mode;
    x->cmp = in->frag;           /* tld4's component, a surface's clamp mode, a query */
    if (in->op == PTXOP_TXQ || in->op == PTXOP_SUQ) {
        if (in->nops != 2 || in->frag == TQ_NONE)
            return ptx_dc_err(c, "%s: expected %s.QUERY.b32 d, [handle]", ptx_op_name(in->op),
                              ptx_op_name(in->op));
        x->vec = 1;
        SIM_FORWARD_IF_ERROR(dc_vec(c, &o[0], 1, SC_32, PT_B32, x->frag, true, x));
        return dc_handle(c, &o[1], x);
    }
    bool st = in->op == PTXOP_SUST, surf = st || in->op == PTXOP_SULD;
    unsigned nc = geom_coords(in->shape), vec = in->vec ? in->vec : 1;
    if (nc == 0)
        return ptx_dc_err(c, "%s: expected a geometry (.1d .2d .3d .a1d .a2d%s)",
                          ptx_op_name(in->op), surf ? "" : " .cube .acube");
    unsigned want = 3 + (in->mode == PM_TEX_LEVEL) + 2 * (in->mode == PM_TEX_GRAD);
    unsigned mi = st ? 0 : 1, di = st ? 2 : 0;
    if (in->nops != want || o[mi + 1].kind != PO_VEC || o[mi + 1].nvec != nc)
        return ptx_dc_err(c, "unsupported %s form: expected %s with %u coordinate%s (no "
                          "offsets, depth compare or sparse-residency predicate)",
                          ptx_op_name(in->op), st ? "[handle, {c..}], value" :
                          "d, [handle, {c..}]", nc, nc > 1 ? "s" : "");
    if (surf) {
        unsigned tb = ptx_type_bytes(in->type);
        if (in->frag == 0)
            return ptx_dc_err(c, "%s: expected an out-of-bounds mode (.trap, .clamp, .zero)",
                              ptx_op_name(in->op));
        if ((tb != 1 && tb != 2 && tb != 4 && tb != 8) || (vec != 1 && vec != 2 && vec != 4) ||
            (tb == 8 && vec == 4))
            return ptx_dc_err(c, "%s: unsupported type (.b8 .b16 .b32 .b64, .v2 or .v4)",
                              ptx_op_name(in->op));
    } else {
        if (vec != 4 || (in->type != PT_F32 && in->type != PT_S32 && in->type != PT_U32) ||
            (in->type2 != PT_F32 && in->type2 != PT_S32) ||
            (in->op == PTXOP_TLD4 && (in->frag == 0 || in->type2 != PT_F32)))
            return ptx_dc_err(c, "unsupported %s form (supported: .v4 with .f32, .s32 or .u32 "
                              "results%s)", ptx_op_name(in->op),
                              in->op == PTXOP_TLD4 ? ", .f32 coordinates, a component .r .g .b .a"
                                                   : ", .f32 or .s32 coordinates");
        if ((in->shape == TG_CUBE || in->shape == TG_ACUBE) && in->type2 != PT_F32)
            return ptx_dc_err(c, "%s: cube maps take .f32 coordinates", ptx_op_name(in->op));
    }
    x->vec = (uint8_t)vec;
    x->type = in->type;
    x->type2 = surf ? PT_S32 : in->type2;
    uint8_t vcls = surf && ptx_type_bytes(in->type) == 8 ? SC_64 : SC_32;
    SIM_FORWARD_IF_ERROR(dc_handle(c, &o[mi], x));
    SIM_FORWARD_IF_ERROR(dc_vec(c, &o[mi + 1], nc, SC_32, PT_B32, &x->frag[4], false, x));
    SIM_FORWARD_IF_ERROR(dc_vec(c, &o[di], vec, vcls, surf ? in->type : PT_B32, x->frag, !st, x));
    if (in->mode == PM_TEX_LEVEL)
        SIM_FORWARD_IF_ERROR(dc_vec(c, &o[3], 1, SC_32, PT_F32, &x->frag[8], false, x));
    for (unsigned g = 0; in->mode == PM_TEX_GRAD && g < 2; g++) {
        unsigned n = o[3 + g].kind == PO_VEC ? o[3 + g].nvec : 1;
        if (n > 4)
            return ptx_dc_err(c, "tex.grad: a gradient has at most 4 components");
        SIM_FORWARD_IF_ERROR(dc_vec(c, &o[3 + g], n, SC_32, PT_F32, &x->frag[8 + 4 * g], false,
                                    x));
    }
    x->iflags = st ? SIM_IF_STORE : SIM_IF_LOAD;
    return SIM_OK;
}

/* ---- execution ----------------------------------------------------------------- */

/* What one warp instruction works on: the object and its memory. */
struct texrun {
    struct ptx_tex t;
    uint8_t *mem;                /* host memory of the resource's first byte */
    sim_addr_t taddr;            /* its timing-model address */
};

static int
texerr(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x, unsigned l,
       struct sim_error *err, int code, const char *what)
{
    return sim_error_set(err, code, "%s:%u: kernel %s, block %" PRIu64 ", thread %u, pc %#x: "
                         "%s: %s", r->m->path, x->line, r->k->name, b->id, pw->index * 32 + l,
                         x->spc, ptx_op_name(x->op), what);
}

/* The object of handle h (lane l) into *tr. */
static int
load_object(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
            unsigned l, uint64_t h, struct texrun *tr, struct sim_error *err)
{
    struct ptx_access ac;
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, h, PTX_TEX_BYTES, x, &ac,
                                         err));
    bool surf = x->op == PTXOP_SULD || x->op == PTXOP_SUST || x->op == PTXOP_SUQ;
    char msg[200];
    if (!ptx_tex_decode(ac.p, &tr->t) || tr->t.surface != surf) {
        snprintf(msg, sizeof msg, "handle %#" PRIx64 " names no %s object (cudaCreate%sObject "
                 "makes one)", h, surf ? "surface" : "texture", surf ? "Surface" : "Texture");
        return texerr(r, b, pw, x, l, err, SIM_ERR_FORMAT, msg);
    }
    const struct ptx_tex *t = &tr->t;
    if (x->op == PTXOP_TXQ || x->op == PTXOP_SUQ)
        return SIM_OK;
    unsigned g = x->shape;
    unsigned dims = g == TG_1D || g == TG_A1D ? 1 : g == TG_3D ? 3 : 2;
    bool layered = g == TG_A1D || g == TG_A2D || g == TG_ACUBE, cube = g == TG_CUBE || g == TG_ACUBE;
    if (dims != t->dims || layered != t->layered || cube != t->cube) {
        snprintf(msg, sizeof msg, "a %s fetch from a %uD%s%s object", (const char *[]){ "", "1d",
                 "2d", "3d", "a1d", "a2d", "cube", "acube" }[g], t->dims,
                 t->layered ? " layered" : "", t->cube ? " cube map" : "");
        return texerr(r, b, pw, x, l, err, SIM_ERR_FORMAT, msg);
    }
    uint64_t extent = ptx_tex_extent(t);
    if (extent > UINT32_MAX)
        return texerr(r, b, pw, x, l, err, SIM_ERR_UNSUPPORTED, "a resource over 4 GB");
    SIM_FORWARD_IF_ERROR(ptx_mem_resolve(r, b, pw->index, l, PS_GLOBAL, t->base,
                                         (unsigned)extent, x, &ac, err));
    tr->mem = ac.p;
    tr->taddr = ac.taddr;
    return SIM_OK;
}

/* Texel index i of a dimension of n texels under address mode a (the
 * coordinates normalized or not); -1: outside (border). */
static int64_t
address(int64_t i, uint32_t n, unsigned a, bool norm)
{
    if (!norm && (a == TXA_WRAP || a == TXA_MIRROR))
        a = TXA_CLAMP;           /* unnormalized coordinates: clamp and border only */
    switch (a) {
    case TXA_WRAP:
        i %= n;
        return i < 0 ? i + n : i;
    case TXA_MIRROR: {
        int64_t p = i % (2 * (int64_t)n);
        if (p < 0)
            p += 2 * (int64_t)n;
        return p < n ? p : 2 * (int64_t)n - 1 - p;
    }
    case TXA_BORDER:
        return i < 0 || i >= n ? -1 : i;
    default:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

static float
u2f(uint32_t u)
{
    union { uint32_t u; float f; } v = { u };
    return v.f;
}

static uint32_t
f2u(float f)
{
    union { float f; uint32_t u; } v = { f };
    return v.u;
}

/* Channel c of the element at p, as the fetch returns it: a float
 * (float formats, normalized reads) or the integer's bits. */
static uint32_t
channel(const struct ptx_tex *t, const uint8_t *p, unsigned c, bool as_float)
{
    int64_t v;
    const uint8_t *q = p + c * t->bits / 8;
    union { float f; uint32_t u; } o;
    switch (t->bits) {
    case 8: v = t->ckind == 0 ? (int64_t)(int8_t)q[0] : (int64_t)q[0]; break;
    case 16: {
        uint16_t h;
        memcpy(&h, q, 2);
        if (t->ckind == 2) {
            o.f = ptx_half_to_float(h);
            return o.u;
        }
        v = t->ckind == 0 ? (int64_t)(int16_t)h : (int64_t)h;
        break;
    }
    default: {
        uint32_t u;
        memcpy(&u, q, 4);
        if (t->ckind == 2 || !as_float)
            return u;            /* a float's bits, or an integer's */
        v = t->ckind == 0 ? (int64_t)(int32_t)u : (int64_t)u;
        o.f = (float)v;
        return o.u;
    }
    }
    if (!as_float)
        return (uint32_t)v;
    if (t->read_float) {         /* (a float format never comes here: read as it is) */
        float m = t->bits == 8 ? (t->ckind == 0 ? 127.0f : 255.0f)
                               : (t->ckind == 0 ? 32767.0f : 65535.0f);
        o.f = fmaxf((float)v / m, -1.0f);
    } else {
        o.f = (float)v;
    }
    return o.u;
}

/* The texel at integer coordinates (already addressed; -1: the border)
 * into out[4], and its address offset in *off (the first texel a
 * fetch reads, for the timing model). */
static void
texel(const struct texrun *tr, int64_t x, int64_t y, int64_t z, uint32_t layer, bool as_float,
      uint32_t out[4])
{
    const struct ptx_tex *t = &tr->t;
    union { float f; uint32_t u; } one = { 1.0f };
    bool border = x < 0 || y < 0 || z < 0;   /* the border colour, in the format's channels */
    const uint8_t *p = border ? NULL : tr->mem + ((uint64_t)layer * t->depth + (uint64_t)z) *
                       t->slice + (uint64_t)y * t->pitch + (uint64_t)x * t->esize;
    for (unsigned c = 0; c < 4; c++)
        out[c] = c >= t->channels ? (c < 3 ? 0u : as_float ? one.u : 1u)
                 : border ? (as_float ? f2u(t->border[c]) : (uint32_t)(int32_t)t->border[c])
                 : channel(t, p, c, as_float);
}

/* A cube map's direction (x, y, z) as face and face coordinates in [0, 1]
 * (the CUDA C++ Programming Guide's cubemap fetch table). */
static void
cube_face(float x, float y, float z, uint32_t *face, float *u, float *v)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
    if (ax >= ay && ax >= az) {
        *face = x >= 0 ? 0 : 1;
        m = ax, s = x >= 0 ? -z : z, t = -y;
    } else if (ay >= az) {
        *face = y >= 0 ? 2 : 3;
        m = ay, s = x, t = y >= 0 ? z : -z;
    } else {
        *face = z >= 0 ? 4 : 5;
        m = az, s = z >= 0 ? x : -x, t = -y;
    }
    *u = m > 0 ? (s / m + 1.0f) * 0.5f : 0.5f;
    *v = m > 0 ? (t / m + 1.0f) * 0.5f : 0.5f;
}

/* One lane's tex or tld4: its result in d[4]; *first: the offset of the
 * first texel it reads (for the timing model). */
static void
fetch(const struct texrun *tr, const struct xop *x, const uint32_t cin[4], uint32_t d[4],
      uint64_t *first)
{
    const struct ptx_tex *t = &tr->t;
    unsigned g = x->shape, dims = t->dims;
    bool icoord = x->type2 == PT_S32, as_float = x->type == PT_F32;
    float c[3] = { 0, 0, 0 };
    uint32_t layer = 0;
    unsigned k = 0;
    if (g == TG_A1D || g == TG_A2D || g == TG_ACUBE) {
        int64_t li = (int32_t)cin[k++];
        uint32_t n = t->cube ? t->layers / 6 : t->layers;
        layer = (uint32_t)(li < 0 ? 0 : li >= n ? n - 1 : li);
    }
    int64_t ic[3] = { 0, 0, 0 };
    for (unsigned i = 0; i < (t->cube ? 3u : dims); i++, k++) {
        c[i] = u2f(cin[k]);
        ic[i] = (int32_t)cin[k];
    }
    uint32_t size[3] = { t->width, t->height, t->depth };
    bool norm = t->norm_coords;
    if (t->cube) {
        uint32_t face;
        cube_face(c[0], c[1], c[2], &face, &c[0], &c[1]);
        layer = layer * 6 + face;
        norm = true;
    }
    if (!icoord && norm)
        for (unsigned i = 0; i < dims; i++)
            c[i] *= (float)size[i];
    bool linear = t->filter == 1 && !icoord && as_float;
    if (x->op == PTXOP_TLD4)
        linear = true;
    int64_t i0[3] = { 0, 0, 0 }, i1[3] = { 0, 0, 0 };
    float a[3] = { 0, 0, 0 };
    for (unsigned i = 0; i < dims; i++) {
        float cb = linear ? c[i] - 0.5f : c[i];
        float fl = floorf(cb);
        int64_t ii = icoord ? ic[i] : isfinite(fl) ? (int64_t)fmaxf(fminf(fl, 2e9f), -2e9f) : 0;
        if (linear)              /* 9-bit fixed point, 8 fractional bits */
            a[i] = roundf((cb - fl) * 256.0f) / 256.0f;
        if (t->resource == 2 && (ii < 0 || ii >= size[i])) {
            i0[i] = i1[i] = -1;  /* linear memory: outside reads zero */
            continue;
        }
        i0[i] = address(ii, size[i], t->addr[i], norm);
        i1[i] = linear ? address(ii + 1, size[i], t->addr[i], norm) : i0[i];
    }
    if (t->resource == 2 && i0[0] < 0) {
        memset(d, 0, 4 * sizeof *d);
        *first = 0;
        return;
    }
    *first = ((uint64_t)layer * t->depth + (uint64_t)(i0[2] < 0 ? 0 : i0[2])) * t->slice +
             (uint64_t)(i0[1] < 0 ? 0 : i0[1]) * t->pitch + (uint64_t)(i0[0] < 0 ? 0 : i0[0]) * t->esize;
    if (x->op == PTXOP_TLD4) {
        /* the footprint's component, counter-clockwise from the lower left */
        const int64_t xs[4] = { i0[0], i1[0], i1[0], i0[0] }, ys[4] = { i1[1], i1[1], i0[1], i0[1] };
        unsigned comp = x->cmp == 'r' ? 0 : x->cmp == 'g' ? 1 : x->cmp == 'b' ? 2 : 3;
        for (unsigned q = 0; q < 4; q++) {
            uint32_t v[4];
            texel(tr, xs[q], ys[q], i0[2], layer, true, v);
            d[q] = v[comp];
        }
        return;
    }
    if (!linear) {
        texel(tr, i0[0], i0[1], i0[2], layer, as_float, d);
        return;
    }
    float acc[4] = { 0, 0, 0, 0 };
    for (unsigned n = 0; n < (1u << dims); n++) {
        float w = 1.0f;
        int64_t p[3];
        for (unsigned i = 0; i < 3; i++) {
            bool hi = i < dims && (n >> i & 1);
            p[i] = hi ? i1[i] : i0[i];
            if (i < dims)
                w *= hi ? a[i] : 1.0f - a[i];
        }
        uint32_t v[4];
        texel(tr, p[0], p[1], p[2], layer, true, v);
        for (unsigned q = 0; q < 4; q++)
            acc[q] += w * u2f(v[q]);
    }
    for (unsigned q = 0; q < 4; q++)
        d[q] = f2u(acc[q]);
}

static uint32_t
query(const struct ptx_tex *t, unsigned q)
{
    switch (q) {
    case TQ_WIDTH: return t->surface ? t->width * t->esize : t->width;   /* suq: bytes */
    case TQ_HEIGHT: return t->height;
    case TQ_DEPTH: return t->depth;
    case TQ_ARRAY_SIZE: return t->layered ? (t->cube ? t->layers / 6 : t->layers) : 0;
    case TQ_NORMALIZED: return t->norm_coords;
    case TQ_FILTER: return t->filter;
    case TQ_ADDR0: case TQ_ADDR1: case TQ_ADDR2: return t->addr[q - TQ_ADDR0];
    case TQ_MIPMAPS: return 0;
    default: return 1;           /* samples */
    }
}

/* One lane's surface access: the byte offset in the resource, or -1
 * (outside, .zero); an error when outside under .trap. */
static int64_t
surface_offset(const struct ptx_tex *t, const struct xop *x, const uint32_t cin[4], unsigned bytes)
{
    unsigned g = x->shape, k = 0;
    int64_t layer = 0, c[3] = { 0, 0, 0 };
    if (g == TG_A1D || g == TG_A2D)
        layer = (int32_t)cin[k++];
    for (unsigned i = 0; i < t->dims; i++)
        c[i] = (int32_t)cin[k++];
    int64_t lim[3] = { (int64_t)t->width * t->esize - bytes, (int64_t)t->height - 1,
                       (int64_t)t->depth - 1 };
    bool out = layer < 0 || layer >= t->layers;
    for (unsigned i = 0; i < 3; i++) {
        if (c[i] >= 0 && c[i] <= lim[i])
            continue;
        if (x->cmp == 'c')       /* .clamp: the nearest element */
            c[i] = c[i] < 0 ? 0 : lim[i];
        else
            out = true;
    }
    if (out || lim[0] < 0)
        return -1;
    return (layer * t->depth + c[2]) * (int64_t)t->slice + c[1] * (int64_t)t->pitch + c[0];
}

int
ptx_tex_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
             uint32_t m, struct warp_inst *wi, struct sim_error *err)
{
    struct texrun tr;
    uint64_t cur = 0;
    bool have = false, surf = x->op == PTXOP_SULD || x->op == PTXOP_SUST;
    bool q = x->op == PTXOP_TXQ || x->op == PTXOP_SUQ;
    unsigned tb = surf ? ptx_type_bytes(x->type) : 4, bytes = tb * x->vec;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint64_t h = lane_get(pw, &x->base, l) + (uint64_t)x->off;
        if (!have || h != cur) {
            SIM_FORWARD_IF_ERROR(load_object(r, b, pw, x, l, h, &tr, err));
            have = true;
            cur = h;
        }
        if (q) {
            lane_set(pw, &x->frag[0], l, query(&tr.t, x->cmp));
            continue;
        }
        uint32_t cin[4];
        for (unsigned i = 0; i < 4; i++)
            cin[i] = x->frag[4 + i].cls == SC_NONE ? 0 : (uint32_t)lane_get(pw, &x->frag[4 + i], l);
        uint64_t first = 0;
        if (!surf) {
            uint32_t d[4];
            fetch(&tr, x, cin, d, &first);
            for (unsigned i = 0; i < 4; i++)
                lane_set(pw, &x->frag[i], l, d[i]);
        } else {
            int64_t off = surface_offset(&tr.t, x, cin, bytes);
            if (off < 0 && x->cmp == 't') {
                char msg[160];
                snprintf(msg, sizeof msg, "an access of %u bytes outside the surface (%u x %u "
                         "x %u elements of %u bytes; x is in bytes) under .trap", bytes,
                         tr.t.width, tr.t.height, tr.t.depth, tr.t.esize);
                return texerr(r, b, pw, x, l, err, SIM_ERR_FORMAT, msg);
            }
            first = off < 0 ? 0 : (uint64_t)off;
            for (unsigned i = 0; i < x->vec; i++) {
                uint8_t *p = off < 0 ? NULL : tr.mem + off + i * tb;
                uint64_t v = 0;
                if (x->op == PTXOP_SUST) {
                    v = lane_get(pw, &x->frag[i], l);
                    if (p != NULL)
                        memcpy(p, &v, tb);   /* little-endian: the low bytes */
                } else {
                    if (p != NULL)
                        memcpy(&v, p, tb);
                    lane_set(pw, &x->frag[i], l, v);
                }
            }
        }
        wi->addr[l] = tr.taddr + first;
    }
    if (q || m == 0)
        return SIM_OK;
    wi->space = SIM_SPACE_TEX;
    wi->width = (uint8_t)(surf ? bytes : tr.t.esize);
    if (x->op == PTXOP_SUST)
        ptx_spin_memory_changed(r);
    return SIM_OK;
}
