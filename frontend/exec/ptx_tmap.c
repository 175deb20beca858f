/*
 * ptx_tmap.c - TMA tensor maps (see ptx_tmap.h).
 */
#include "frontend/exec/ptx_tmap.h"

#include <string.h>

static const char *const type_names[TMT_COUNT] = {
    "u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz", "tf32",
    "tf32_ftz",
};
static const uint8_t type_sizes[TMT_COUNT] = { 1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4 };

static const char magic[8] = { 'S', 'M', 'T', 'M', 'A', 'P', '0', '1' };

unsigned
ptx_tmap_type_size(unsigned t)
{
    return t < TMT_COUNT ? type_sizes[t] : 0;
}

const char *
ptx_tmap_type_name(unsigned t)
{
    return t < TMT_COUNT ? type_names[t] : "?";
}

int
ptx_tmap_type_lookup(const char *name)
{
    for (unsigned t = 0; t < TMT_COUNT; t++)
        if (strcmp(type_names[t], name) == 0)
            return (int)t;
    return -1;
}

/* cuTensorMapEncodeIm2col's rules (CUDA Driver API, cuda.h). */
static bool
check_im2col(const struct ptx_tmap *m, const char **why)
{
    static const int lim[6] = { 0, 0, 0, 32768, 128, 16 };  /* corner range by rank */
    if (m->rank < 3 || m->rank > 5) {
        *why = "an im2col tensor map's rank must be 3 .. 5";
        return false;
    }
    for (unsigned j = 0; j + 2 < m->rank; j++) {
        if (m->lower[j] < -lim[m->rank] || m->lower[j] >= lim[m->rank] ||
            m->upper[j] < -lim[m->rank] || m->upper[j] >= lim[m->rank]) {
            *why = m->rank == 3 ? "the pixel box corners must be -32768 .. 32767 (rank 3)"
                   : m->rank == 4 ? "the pixel box corners must be -128 .. 127 (rank 4)"
                                  : "the pixel box corners must be -16 .. 15 (rank 5)";
            return false;
        }
        if ((int64_t)m->dims[j + 1] - 1 + m->upper[j] < m->lower[j]) {
            *why = "the pixel box must not be empty (lower <= dim - 1 + upper)";
            return false;
        }
    }
    if (m->cpp == 0 || m->cpp > 256 || m->ppc == 0 || m->ppc > 1024) {
        *why = "channels per pixel must be 1 .. 256 and pixels per column 1 .. 1024";
        return false;
    }
    if (m->estride[m->rank - 1] != 1) {
        *why = "unsupported: an im2col traversal stride other than 1 along N (the last "
               "dimension)";
        return false;
    }
    return true;
}

bool
ptx_tmap_check(const struct ptx_tmap *m, const char **why)
{
    if (m->im2col && !check_im2col(m, why))
        return false;
    if (m->rank < 1 || m->rank > PTX_TMAP_MAX_RANK) {
        *why = "the rank must be 1 .. 5";
        return false;
    }
    if (m->gaddr % 16 != 0) {
        *why = "the global address must be a multiple of 16 bytes";
        return false;
    }
    for (unsigned d = 0; d < m->rank; d++) {
        if (m->dims[d] == 0 || m->dims[d] > (UINT64_C(1) << 32)) {
            *why = "every dimension must be 1 .. 2^32 elements";
            return false;
        }
        /* 0 is a multiple of 16: CUTLASS gives a batch dimension of 1 that stride */
        if (d > 0 && (m->strides[d] % 16 != 0 || m->strides[d] >= (UINT64_C(1) << 40))) {
            *why = "the strides must be multiples of 16 bytes below 2^40";
            return false;
        }
        if (!m->im2col && (m->box[d] == 0 || m->box[d] > 256)) {
            *why = "every box dimension must be 1 .. 256 elements";
            return false;
        }
        if (m->estride[d] == 0 || m->estride[d] > 8) {
            *why = "the element strides must be 1 .. 8";
            return false;
        }
    }
    uint64_t inner = (uint64_t)(m->im2col ? m->cpp : m->box[0]) * m->esize;
    if (inner % 16 != 0) {
        *why = m->im2col ? "a pixel's channels must be a multiple of 16 bytes"
                         : "the box's inner dimension must be a multiple of 16 bytes";
        return false;
    }
    if (m->swizzle != TMS_NONE && inner > (16u << m->swizzle)) {
        *why = m->im2col ? "a pixel's channels must fit the swizzle span (32, 64 or 128 bytes)"
                         : "the box's inner dimension must fit the swizzle span (32, 64 or "
                           "128 bytes)";
        return false;
    }
    if (m->interleave != 0) {
        *why = "unsupported: interleaved tensor maps";
        return false;
    }
    return true;
}

static void
put(uint8_t **p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        *(*p)++ = (uint8_t)(v >> 8 * i);
}

static uint64_t
get(const uint8_t **p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)*(*p)++ << 8 * i;
    return v;
}

void
ptx_tmap_encode(const struct ptx_tmap *m, uint8_t out[PTX_TMAP_BYTES])
{
    memset(out, 0, PTX_TMAP_BYTES);
    memcpy(out, magic, 8);
    uint8_t *p = out + 8;
    put(&p, m->gaddr, 8);
    for (unsigned d = 0; d < 5; d++)
        put(&p, m->dims[d], 8);
    for (unsigned d = 1; d < 5; d++)
        put(&p, m->strides[d], 8);
    for (unsigned d = 0; d < 5; d++)
        put(&p, m->box[d], 2);
    for (unsigned d = 0; d < 5; d++)
        put(&p, m->estride[d], 1);
    put(&p, m->rank, 1);
    put(&p, m->esize, 1);
    put(&p, m->type, 1);
    put(&p, m->swizzle, 1);
    put(&p, m->interleave, 1);
    put(&p, m->fill_nan, 1);
    put(&p, m->im2col, 1);
    for (unsigned j = 0; j < 3; j++)
        put(&p, (uint16_t)m->lower[j], 2);
    for (unsigned j = 0; j < 3; j++)
        put(&p, (uint16_t)m->upper[j], 2);
    put(&p, m->cpp, 2);
    put(&p, m->ppc, 2);
}

bool
ptx_tmap_decode(const uint8_t in[PTX_TMAP_BYTES], struct ptx_tmap *m)
{
    if (memcmp(in, magic, 8) != 0)
        return false;
    const uint8_t *p = in + 8;
    memset(m, 0, sizeof *m);
    m->gaddr = get(&p, 8);
    for (unsigned d = 0; d < 5; d++)
        m->dims[d] = get(&p, 8);
    for (unsigned d = 1; d < 5; d++)
        m->strides[d] = get(&p, 8);
    for (unsigned d = 0; d < 5; d++)
        m->box[d] = (uint32_t)get(&p, 2);
    for (unsigned d = 0; d < 5; d++)
        m->estride[d] = (uint32_t)get(&p, 1);
    m->rank = (uint8_t)get(&p, 1);
    m->esize = (uint8_t)get(&p, 1);
    m->type = (uint8_t)get(&p, 1);
    m->swizzle = (uint8_t)get(&p, 1);
    m->interleave = (uint8_t)get(&p, 1);
    m->fill_nan = (uint8_t)get(&p, 1);
    m->im2col = get(&p, 1) != 0;
    for (unsigned j = 0; j < 3; j++)
        m->lower[j] = (int16_t)(uint16_t)get(&p, 2);
    for (unsigned j = 0; j < 3; j++)
        m->upper[j] = (int16_t)(uint16_t)get(&p, 2);
    m->cpp = (uint16_t)get(&p, 2);
    m->ppc = (uint16_t)get(&p, 2);
    m->strides[0] = m->esize;
    const char *why;
    return m->esize == ptx_tmap_type_size(m->type) && ptx_tmap_check(m, &why);
}

uint64_t
ptx_tmap_box_bytes(const struct ptx_tmap *m)
{
    uint64_t n = m->esize;
    if (m->im2col)
        return n * m->cpp * m->ppc;
    for (unsigned d = 0; d < m->rank; d++)
        n *= ptx_tmap_box_elems(m, d);
    return n;
}

uint32_t
ptx_tmap_smem_addr(const struct ptx_tmap *m, uint32_t base, uint64_t byte_off)
{
    uint32_t a = base + (uint32_t)byte_off;
    unsigned bits = m->swizzle;  /* 32B: 1, 64B: 2, 128B: 3 */
    if (bits != 0)
        a ^= ((a >> 7) & ((1u << bits) - 1)) << 4;
    return a;
}
