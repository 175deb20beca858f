/*
 * ptx_tex.h - texture and surface objects: what the runtime's
 * cudaCreateTextureObject / cudaCreateSurfaceObject make, and the PTX
 * instructions that read and write through them (tex, tld4, txq, suld,
 * sust, suq) (private to frontend/exec/, the encoder also to lib/).
 *
 * A CUDA program names a texture by an opaque 64-bit handle
 * (cudaTextureObject_t); the driver's descriptors are undocumented, so
 * smsim keeps its own: the handle is the device address of a
 * PTX_TEX_BYTES descriptor in global memory (the runtime allocates it),
 * and the executor reads the descriptor a handle names (a handle that
 * names no descriptor is an error).  The resource (a CUDA array, linear
 * memory or pitched 2D memory) lies in global memory, row-major: element
 * (x, y, z) of layer (or cube face) L at base + ((L * depth + z) * height
 * + y) * pitch + x * element bytes.  (The hardware tiles CUDA arrays; a
 * program cannot see the layout, only the timing model could, and it
 * sees these addresses.)
 *
 * Fetches follow the CUDA C++ Programming Guide's "Texture Fetching"
 * appendix: normalized coordinates scale by the size; wrap and mirror
 * (normalized coordinates only), clamp and border addressing; point
 * sampling takes texel floor(x); linear filtering weighs texels
 * floor(x - 0.5) and the next by the fraction alpha, held as 9-bit fixed
 * point with 8 fractional bits (so results match the hardware's to about
 * 2^-9 of the texel difference, not bit for bit); cudaReadModeNormalizedFloat
 * maps 8- and 16-bit integers to [0, 1] (unsigned) or [-1, 1] (signed).
 * Components the format lacks read as 0, the fourth as 1; a texel outside
 * under border addressing reads the border colour in the format's channels.  Cube maps pick
 * the face of the coordinate of largest magnitude (the Guide's cubemap
 * table: faces +x, -x, +y, -y, +z, -z as layers 0 .. 5).  Mipmaps,
 * sRGB conversion, depth compare and multisampled textures are not
 * supported (the runtime refuses them); tex.level and tex.grad read level
 * 0, the only one.  Surfaces (suld.b / sust.b) address x in bytes; .trap
 * makes an access outside the surface an error, .clamp clamps it and
 * .zero reads zero (and drops the store).
 *
 * Layout of the descriptor (little-endian): "SMTEX01" and a kind byte
 * ('t' texture, 's' surface) (8), base address (8), row pitch (8), slice
 * pitch (8: bytes per 2D slice), width, height, depth, layers (4 each),
 * then one byte each: channels, element bytes, channel bits, channel kind
 * (cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float), dimensions,
 * layered, cube, filter (0 point, 1 linear), read mode (1: normalized
 * float), normalized coordinates, address modes 0 .. 2
 * (cudaTextureAddressMode), resource type (cudaResourceType); the border
 * colour (4 floats) at byte 64; the rest zero.
 */
#ifndef SMSIM_FRONTEND_PTX_TEX_H
#define SMSIM_FRONTEND_PTX_TEX_H

#include <stdbool.h>
#include <stdint.h>

#define PTX_TEX_BYTES 128u

/* cudaTextureAddressMode */
enum ptx_tex_addr { TXA_WRAP = 0, TXA_CLAMP, TXA_MIRROR, TXA_BORDER };

struct ptx_tex {
    bool surface;
    uint64_t base;               /* device address of element (0, 0, 0) of layer 0 */
    uint64_t pitch;              /* bytes per row */
    uint64_t slice;              /* bytes per 2D slice (a z step or a layer) */
    uint32_t width, height, depth;   /* elements (height, depth 1 where the dimension is absent) */
    uint32_t layers;             /* layered and cube textures (6 per cube), else 1 */
    uint8_t channels;            /* 1 .. 4 */
    uint8_t esize;               /* bytes per element */
    uint8_t bits;                /* bits per channel: 8, 16 or 32 */
    uint8_t ckind;               /* cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float */
    uint8_t dims;                /* 1, 2 or 3 */
    bool layered, cube;
    uint8_t filter;              /* 0 point, 1 linear */
    bool read_float;             /* cudaReadModeNormalizedFloat */
    bool norm_coords;
    uint8_t addr[3];             /* enum ptx_tex_addr per dimension */
    uint8_t resource;            /* cudaResourceType: 0 array, 2 linear, 3 pitch 2D */
    float border[4];
};

/* Does t describe a texture or surface smsim can fetch from?  If not,
 * *why says what is wrong. */
bool ptx_tex_check(const struct ptx_tex *t, const char **why);

/* Bytes of the resource t covers (from base). */
uint64_t ptx_tex_extent(const struct ptx_tex *t);

/* Encode t into PTX_TEX_BYTES bytes at out; decode them back (false: the
 * bytes are no descriptor). */
void ptx_tex_encode(const struct ptx_tex *t, void *out);
bool ptx_tex_decode(const void *in, struct ptx_tex *t);

struct ptx_run;
struct pblock;
struct pwarp;
struct xop;
struct warp_inst;
struct sim_error;

/* Execute XK_TEX (tex, tld4, txq, suld, sust, suq) for lanes m of warp
 * pw: the results, and for the timing model the address of the first
 * texel or element each lane reads or writes (space SIM_SPACE_TEX). */
int ptx_tex_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                 uint32_t m, struct warp_inst *wi, struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTX_TEX_H */
