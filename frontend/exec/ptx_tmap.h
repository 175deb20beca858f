/*
 * ptx_tmap.h - TMA tensor maps (CUtensorMap) as smsim encodes them.
 *
 * A CUDA program builds a tensor map on the host with
 * cuTensorMapEncodeTiled and passes its 128 opaque bytes to the kernel
 * (a __grid_constant__ parameter, or memory the kernel reads); the
 * kernel's cp.async.bulk.tensor names it by address.  The bytes are the
 * driver's own format, undocumented, so smsim defines its own for the
 * same fields: a launch file's `arg = NAME tensormap ...` line
 * (doc/launch-format.md) is encoded here into the parameter's 128 bytes,
 * and the executor decodes whatever 128 bytes a tensor copy names (a map
 * the kernel copied elsewhere works; bytes that are not a map are an
 * error).  The fields are cuTensorMapEncodeTiled's, with its rules
 * (CUDA Driver API, cuda.h: rank 1..5, dims <= 2^32, strides multiples of
 * 16 below 2^40, box 1..256 with the inner box a multiple of 16 bytes,
 * element strides 1..8, the inner box within the swizzle span), checked
 * by ptx_tmap_check().
 *
 * Layout of the 128 bytes (little-endian): "SMTMAP01" (8), global
 * address (8), dims[5] (8 each), strides[4] (8 each: of dimensions 1..4,
 * bytes), box[5] (2 each), element strides[5] (1 each), rank, element
 * size, data type, swizzle, interleave, fill (1 each), then im2col (1),
 * lower[3], upper[3] (2 each, signed), channels per pixel, pixels per
 * column (2 each); the rest zero.  cuTensorMapEncodeIm2col's maps are
 * the same fields with im2col set and its own rules.
 */
#ifndef SMSIM_FRONTEND_PTX_TMAP_H
#define SMSIM_FRONTEND_PTX_TMAP_H

#include <stdbool.h>
#include <stdint.h>

#define PTX_TMAP_BYTES 128u
#define PTX_TMAP_MAX_RANK 5u

/* cuTensorMapEncodeTiled's CUtensorMapDataType values (cuda.h); the
 * packed 4- and 6-bit types are not supported. */
enum ptx_tmap_type {
    TMT_U8 = 0, TMT_U16, TMT_U32, TMT_S32, TMT_U64, TMT_S64, TMT_F16, TMT_F32, TMT_F64,
    TMT_BF16, TMT_F32_FTZ, TMT_TF32, TMT_TF32_FTZ, TMT_COUNT
};

/* CUtensorMapSwizzle's first four (the 128B atom variants are not supported). */
enum ptx_tmap_swizzle { TMS_NONE = 0, TMS_32B, TMS_64B, TMS_128B };

struct ptx_tmap {
    uint64_t gaddr;              /* device address of element (0, ..., 0) */
    uint64_t dims[PTX_TMAP_MAX_RANK];     /* elements per dimension */
    uint64_t strides[PTX_TMAP_MAX_RANK];  /* bytes per step of each dimension (strides[0]:
                                              the element size) */
    uint32_t box[PTX_TMAP_MAX_RANK];      /* elements traversed per dimension */
    uint32_t estride[PTX_TMAP_MAX_RANK];  /* traversal step per dimension (the first is 1) */
    uint8_t rank;
    uint8_t esize;               /* bytes per element */
    uint8_t type;                /* enum ptx_tmap_type */
    uint8_t swizzle;             /* enum ptx_tmap_swizzle */
    uint8_t interleave;          /* 0: CU_TENSOR_MAP_INTERLEAVE_NONE (the only one) */
    uint8_t fill_nan;            /* out-of-bounds elements read as NaN (float types) */
    /* cuTensorMapEncodeIm2col's (im2col true; box[] unused): a tensor of
     * rank 3 .. 5, dimension 0 the channels C, the last the images N, the
     * others the pixels' W, H, D.  The bounding box of a filter's base
     * position along spatial dimension j (tensor dimension j + 1) is
     * lower[j] .. dims[j + 1] - 1 + upper[j], both inclusive; a copy reads
     * ppc pixels of cpp channels each (ptx_tma.h). */
    bool im2col;
    int16_t lower[3], upper[3];  /* W, H, D */
    uint16_t cpp;                /* channels per pixel, 1 .. 256 */
    uint16_t ppc;                /* pixels per column, 1 .. 1024 */
};

/* Bytes per element of type t (0 for none). */
unsigned ptx_tmap_type_size(unsigned t);

/* The name of type t as the launch format writes it (u8 ... tf32), and back (-1 if none). */
const char *ptx_tmap_type_name(unsigned t);
int ptx_tmap_type_lookup(const char *name);

/* Does m follow cuTensorMapEncodeTiled's rules?  If not, *why says which. */
bool ptx_tmap_check(const struct ptx_tmap *m, const char **why);

/* The 128 bytes of m, and m from 128 bytes (false: they are no tensor map). */
void ptx_tmap_encode(const struct ptx_tmap *m, uint8_t out[PTX_TMAP_BYTES]);
bool ptx_tmap_decode(const uint8_t in[PTX_TMAP_BYTES], struct ptx_tmap *m);

/* Elements the box holds along dimension d (ceil(box / estride)), and in all. */
static inline uint32_t
ptx_tmap_box_elems(const struct ptx_tmap *m, unsigned d)
{
    /* the inner dimension has no traversal stride (cuTensorMapEncodeTiled) */
    return d == 0 ? m->box[0] : (m->box[d] + m->estride[d] - 1) / m->estride[d];
}

uint64_t ptx_tmap_box_bytes(const struct ptx_tmap *m);

/* The shared-memory offset of box element index idx (dimension 0 fastest,
 * packed: a row of the inner dimension after another) for a box stored at
 * shared address base, with m's swizzle applied to the address (16-byte
 * chunk bits 4 .. 3 + log2(span / 16) exchanged with bits 7 ..: the
 * pattern of CU_TENSOR_MAP_SWIZZLE_32B/64B/128B, the one wgmma reads). */
uint32_t ptx_tmap_smem_addr(const struct ptx_tmap *m, uint32_t base, uint64_t byte_off);

#endif /* SMSIM_FRONTEND_PTX_TMAP_H */
