/*
 * cudart_tex.c - CUDA arrays, texture objects and surface objects.
 *
 * A CUDA array is device memory laid out row-major: rows of width
 * elements, pitch bytes apart (no padding), 2D slices (a 3D array's depth,
 * a layered array's layers, a cube map's faces) one after another.  The
 * hardware's tiled layout is invisible to a program (it reaches an array
 * only through copies, textures and surfaces), so only the timing model
 * could tell, and it sees these addresses.  A texture or surface object
 * is a descriptor in device memory (libsmsim's smsim_texture_encode,
 * frontend/exec/ptx_tex.h); its handle is the descriptor's address, which
 * the kernel's tex and suld instructions read.  Mipmapped arrays, sRGB
 * reads, anisotropic filtering and the normalized-integer channel kinds
 * are refused as unsupported.
 */
#include "cudart/cudart.h"

#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

#define ARRAY_MAGIC 0x534d4152u  /* "SMAR" */

struct cudaArray {
    uint32_t magic;
    void *dev;                   /* its device memory */
    struct cudaChannelFormatDesc desc;
    struct cudaExtent extent;    /* as allocated (0: a dimension absent) */
    unsigned flags;
    unsigned esize;              /* bytes per element */
    size_t pitch;                /* bytes per row */
    size_t slice;                /* bytes per 2D slice */
    size_t slices;               /* depth, layers or faces (at least 1) */
};

/* The objects made, for cudaGet*ObjectResourceDesc and *TextureDesc. */
struct rt_object {
    unsigned long long handle;
    bool surface;
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
};
static struct rt_object *objects;
static uint32_t n_objects, cap_objects;

API struct cudaChannelFormatDesc
cudaCreateChannelDesc(int x, int y, int z, int w, int f)
{
    return (struct cudaChannelFormatDesc){ x, y, z, w, f };
}

/* Bytes per element of desc and its channels and bits (all alike); 0
 * after rt_fail when smsim cannot simulate the format. */
static unsigned
format_of(const struct cudaChannelFormatDesc *d, unsigned *channels, unsigned *bits)
{
    int c[4] = { d->x, d->y, d->z, d->w };
    unsigned n = 0;
    while (n < 4 && c[n] != 0)
        n++;
    for (unsigned i = 0; i < 4; i++)
        if ((i < n && c[i] != c[0]) || (i >= n && c[i] != 0) || c[i] < 0)
            n = 0;
    if (d->f > cudaChannelFormatKindFloat || n == 0 || n == 3 ||
        (c[0] != 8 && c[0] != 16 && c[0] != 32) || (d->f == cudaChannelFormatKindFloat && c[0] == 8)) {
        rt_fail(d->f > cudaChannelFormatKindNone ? cudaErrorNotSupported : cudaErrorInvalidValue,
                "%schannel format {%d, %d, %d, %d, kind %d}: smsim simulates 1, 2 or 4 channels "
                "of 8, 16 or 32 bits, all alike, signed, unsigned or float",
                d->f > cudaChannelFormatKindNone ? "unsupported: " : "", d->x, d->y, d->z, d->w,
                d->f);
        return 0;
    }
    *channels = n;
    *bits = (unsigned)c[0];
    return n * (unsigned)c[0] / 8;
}

static cudaError_t
array_new(cudaArray_t *out, const struct cudaChannelFormatDesc *desc, struct cudaExtent e,
          unsigned flags)
{
    RT_REQUIRE_READY();
    if (out == NULL || desc == NULL || e.width == 0 ||
        ((flags & cudaArrayLayered) && e.depth == 0) ||
        ((flags & cudaArrayCubemap) && (e.width != e.height || e.depth == 0 || e.depth % 6 != 0 ||
                                        (!(flags & cudaArrayLayered) && e.depth != 6))) ||
        (e.depth != 0 && e.height == 0 && !(flags & cudaArrayLayered)))
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (flags & ~(unsigned)(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap |
                            cudaArrayTextureGather))
        return rt_fail(cudaErrorNotSupported, "unsupported: CUDA array flags %#x (smsim simulates "
                       "layered, cube-map, surface and gather arrays)", flags);
    unsigned channels, bits, esize = format_of(desc, &channels, &bits);
    if (esize == 0)
        return rt_last_error();
    struct cudaArray *a = calloc(1, sizeof *a);
    if (a == NULL)
        return rt_fail(cudaErrorMemoryAllocation, NULL);
    *a = (struct cudaArray){ ARRAY_MAGIC, NULL, *desc, e, flags, esize, e.width * esize, 0,
                             e.depth ? e.depth : 1 };
    a->slice = a->pitch * (e.height ? e.height : 1);
    cudaError_t r = cudaMalloc(&a->dev, a->slice * a->slices);
    if (r != cudaSuccess) {
        free(a);
        return r;
    }
    *out = a;
    return cudaSuccess;
}

static bool
array_ok(const struct cudaArray *a)
{
    return a != NULL && a->magic == ARRAY_MAGIC;
}

API cudaError_t
cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                size_t height, unsigned flags)
{
    RT_GUARD;
    if (flags & (cudaArrayLayered | cudaArrayCubemap))
        return rt_fail(cudaErrorInvalidValue, NULL);
    return array_new(array, desc, (struct cudaExtent){ width, height, 0 }, flags);
}

API cudaError_t
cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                  struct cudaExtent extent, unsigned flags)
{
    RT_GUARD;
    return array_new(array, desc, extent, flags);
}

API cudaError_t
cudaFreeArray(cudaArray_t array)
{
    RT_GUARD;
    if (array == NULL)
        return cudaSuccess;
    if (!array_ok(array))
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    cudaError_t r = cudaFree(array->dev);
    array->magic = 0;
    free(array);
    return r;
}

API cudaError_t
cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned *flags,
                 cudaArray_t array)
{
    RT_GUARD;
    if (!array_ok(array))
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    if (desc != NULL)
        *desc = array->desc;
    if (extent != NULL)
        *extent = array->extent;
    if (flags != NULL)
        *flags = array->flags;
    return cudaSuccess;
}

API cudaError_t
cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    RT_GUARD;
    if (!array_ok(array) || desc == NULL)
        return rt_fail(array_ok(array) ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle,
                       NULL);
    *desc = array->desc;
    return cudaSuccess;
}

bool
rt_array_pitched(const void *array, struct cudaPitchedPtr *out, unsigned *esize)
{
    const struct cudaArray *a = array;
    if (!array_ok(a))
        return false;
    *out = (struct cudaPitchedPtr){ a->dev, a->pitch, a->pitch, a->slice / a->pitch };
    *esize = a->esize;
    return true;
}

/* The device address of byte (x, row y) of slice 0 of array a, with
 * bytes w x h from there inside the array; NULL after rt_fail if not. */
static char *
array_at(const struct cudaArray *a, size_t x, size_t y, size_t w, size_t h)
{
    size_t rows = a->slice / a->pitch;
    if (!array_ok(a)) {
        rt_fail(cudaErrorInvalidResourceHandle, NULL);
        return NULL;
    }
    if (x + w > a->pitch || y + h > rows || w > a->pitch || h > rows) {
        rt_fail(cudaErrorInvalidValue, "a copy of %zu x %zu bytes at (%zu, %zu) outside a CUDA "
                "array of %zu x %zu bytes", w, h, x, y, a->pitch, rows);
        return NULL;
    }
    return (char *)a->dev + y * a->pitch + x;
}

API cudaError_t
cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                    size_t spitch, size_t width, size_t height, int kind)
{
    RT_GUARD;
    char *d = array_at(dst, wOffset, hOffset, width, height);
    return d == NULL ? rt_last_error()
                     : cudaMemcpy2D(d, dst->pitch, src, spitch, width, height, kind);
}

API cudaError_t
cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                      size_t hOffset, size_t width, size_t height, int kind)
{
    RT_GUARD;
    char *s = array_at(src, wOffset, hOffset, width, height);
    return s == NULL ? rt_last_error()
                     : cudaMemcpy2D(dst, dpitch, s, src->pitch, width, height, kind);
}

API cudaError_t
cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                         cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                         size_t width, size_t height, int kind)
{
    RT_GUARD;
    char *d = array_at(dst, wOffsetDst, hOffsetDst, width, height);
    char *s = d == NULL ? NULL : array_at(src, wOffsetSrc, hOffsetSrc, width, height);
    if (s == NULL)
        return rt_last_error();
    if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return rt_fail(cudaErrorInvalidMemcpyDirection, NULL);
    return cudaMemcpy2D(d, dst->pitch, s, src->pitch, width, height, cudaMemcpyDeviceToDevice);
}

/* The linear copies (deprecated, still exported): count bytes from (wOffset,
 * hOffset) on, row after row; the rows are contiguous here. */
static char *
array_linear(const struct cudaArray *a, size_t w, size_t h, size_t count)
{
    if (!array_ok(a)) {
        rt_fail(cudaErrorInvalidResourceHandle, NULL);
        return NULL;
    }
    size_t off = h * a->pitch + w;
    if (w > a->pitch || off > a->slice * a->slices || count > a->slice * a->slices - off) {
        rt_fail(cudaErrorInvalidValue, "a copy of %zu bytes at (%zu, %zu) outside a CUDA array",
                count, w, h);
        return NULL;
    }
    return (char *)a->dev + off;
}

API cudaError_t
cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                  int kind)
{
    RT_GUARD;
    char *d = array_linear(dst, wOffset, hOffset, count);
    return d == NULL ? rt_last_error() : cudaMemcpy(d, src, count, kind);
}

API cudaError_t
cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                    int kind)
{
    RT_GUARD;
    const char *s = array_linear(src, wOffset, hOffset, count);
    return s == NULL ? rt_last_error() : cudaMemcpy(dst, s, count, kind);
}

API cudaError_t
cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                       size_t wOffsetSrc, size_t hOffsetSrc, size_t count, int kind)
{
    RT_GUARD;
    char *d = array_linear(dst, wOffsetDst, hOffsetDst, count);
    const char *s = d == NULL ? NULL : array_linear(src, wOffsetSrc, hOffsetSrc, count);
    if (s == NULL)
        return rt_last_error();
    (void)kind;
    return cudaMemcpy(d, s, count, cudaMemcpyDeviceToDevice);
}

/* The asynchronous forms: work runs when issued (cudart.h). */
API cudaError_t
cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                         size_t spitch, size_t width, size_t height, int kind, cudaStream_t s)
{
    RT_GUARD;
    if (rt_capturing(s))
        return rt_fail(cudaErrorNotSupported, "unsupported: a copy to a CUDA array in a stream "
                       "capture");
    return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

API cudaError_t
cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                           size_t hOffset, size_t width, size_t height, int kind, cudaStream_t s)
{
    RT_GUARD;
    if (rt_capturing(s))
        return rt_fail(cudaErrorNotSupported, "unsupported: a copy from a CUDA array in a "
                       "stream capture");
    return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

API cudaError_t
cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                       size_t count, int kind, cudaStream_t s)
{
    RT_GUARD;
    if (rt_capturing(s))
        return rt_fail(cudaErrorNotSupported, "unsupported: a copy to a CUDA array in a stream "
                       "capture");
    return cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}

API cudaError_t
cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                         size_t count, int kind, cudaStream_t s)
{
    RT_GUARD;
    if (rt_capturing(s))
        return rt_fail(cudaErrorNotSupported, "unsupported: a copy from a CUDA array in a "
                       "stream capture");
    return cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}

/* ---- texture and surface objects --------------------------------------------------- */

/* The resource of r as an smsim_texture (format, extent, layout). */
static cudaError_t
resource_of(const struct cudaResourceDesc *r, bool surface, struct smsim_texture *t)
{
    memset(t, 0, sizeof *t);
    t->surface = surface;
    t->height = t->depth = t->layers = 1;
    t->dims = 1;
    t->resource = (unsigned)r->resType;
    const struct cudaChannelFormatDesc *d = NULL;
    switch (r->resType) {
    case cudaResourceTypeArray: {
        const struct cudaArray *a = r->res.array.array;
        if (!array_ok(a))
            return rt_fail(cudaErrorInvalidResourceHandle, NULL);
        if (surface && !(a->flags & cudaArraySurfaceLoadStore))
            return rt_fail(cudaErrorInvalidValue, "cudaCreateSurfaceObject: the array was not "
                           "allocated with cudaArraySurfaceLoadStore");
        d = &a->desc;
        t->address = (uint64_t)(uintptr_t)a->dev;
        t->pitch = a->pitch;
        t->slice = a->slice;
        t->width = (uint32_t)a->extent.width;
        t->height = a->extent.height ? (uint32_t)a->extent.height : 1;
        t->layered = (a->flags & cudaArrayLayered) != 0;
        t->cube = (a->flags & cudaArrayCubemap) != 0;
        t->dims = a->extent.height == 0 ? 1 : (a->extent.depth && !t->layered && !t->cube) ? 3 : 2;
        if (t->dims == 3)
            t->depth = (uint32_t)a->extent.depth;
        if (t->layered || t->cube)
            t->layers = (uint32_t)a->extent.depth;
        break;
    }
    case cudaResourceTypeLinear:
        if (surface)
            return rt_fail(cudaErrorInvalidValue, "a surface object needs a CUDA array");
        d = &r->res.linear.desc;
        t->address = (uint64_t)(uintptr_t)r->res.linear.devPtr;
        break;
    case cudaResourceTypePitch2D:
        if (surface)
            return rt_fail(cudaErrorInvalidValue, "a surface object needs a CUDA array");
        d = &r->res.pitch2D.desc;
        t->address = (uint64_t)(uintptr_t)r->res.pitch2D.devPtr;
        t->width = (uint32_t)r->res.pitch2D.width;
        t->height = (uint32_t)r->res.pitch2D.height;
        t->pitch = r->res.pitch2D.pitchInBytes;
        t->slice = t->pitch * t->height;
        t->dims = 2;
        break;
    default:
        return rt_fail(r->resType == cudaResourceTypeMipmappedArray ? cudaErrorNotSupported
                                                                    : cudaErrorInvalidValue,
                       "%sresource type %d", r->resType == cudaResourceTypeMipmappedArray
                       ? "unsupported: mipmapped " : "bad ", r->resType);
    }
    unsigned esize = format_of(d, &t->channels, &t->bits);
    if (esize == 0)
        return rt_last_error();
    t->kind = (unsigned)d->f;
    if (r->resType == cudaResourceTypeLinear) {
        if (r->res.linear.sizeInBytes < esize || r->res.linear.sizeInBytes / esize > (1u << 28))
            return rt_fail(cudaErrorInvalidValue, "a linear texture of %zu bytes (at most 2^28 "
                           "elements)", r->res.linear.sizeInBytes);
        t->width = (uint32_t)(r->res.linear.sizeInBytes / esize);
        t->pitch = t->slice = (uint64_t)t->width * esize;
    }
    return cudaSuccess;
}

/* Put t's descriptor in device memory: its address into *handle. */
static cudaError_t
object_new(const struct smsim_texture *t, const struct cudaResourceDesc *res,
           const struct cudaTextureDesc *tex, unsigned long long *handle)
{
    uint8_t bytes[SMSIM_TEXTURE_BYTES];
    smsim_error err = { 0 };
    if (smsim_texture_encode(t, bytes, &err) < 0)
        return rt_fail(err.code == SMSIM_ERR_UNSUPPORTED ? cudaErrorNotSupported
                                                         : cudaErrorInvalidValue, "%s", err.msg);
    void *d;
    cudaError_t r = cudaMalloc(&d, sizeof bytes);
    if (r != cudaSuccess)
        return r;
    void *h = smsim_program_host(rt.prog, (uint64_t)(uintptr_t)d, sizeof bytes, &err);
    if (h == NULL)
        return rt_fail(cudaErrorUnknown, "%s", err.msg);
    memcpy(h, bytes, sizeof bytes);
    objects = rt_grow(objects, &cap_objects, n_objects + 1, sizeof *objects);
    struct rt_object *o = &objects[n_objects++];
    memset(o, 0, sizeof *o);
    o->handle = (unsigned long long)(uintptr_t)d;
    o->surface = t->surface;
    o->res = *res;
    if (tex != NULL)
        o->tex = *tex;
    *handle = o->handle;
    return cudaSuccess;
}

static struct rt_object *
object_find(unsigned long long h, bool surface)
{
    for (size_t i = 0; i < n_objects; i++)
        if (objects[i].handle == h && objects[i].surface == surface)
            return &objects[i];
    return NULL;
}

static cudaError_t
object_destroy(unsigned long long h, bool surface)
{
    struct rt_object *o = object_find(h, surface);
    if (o == NULL)
        return h == 0 ? cudaSuccess : rt_fail(cudaErrorInvalidValue, NULL);
    *o = objects[--n_objects];
    return cudaFree((void *)(uintptr_t)h);
}

API cudaError_t
cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                        const struct cudaTextureDesc *pTexDesc, const void *pResViewDesc)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (pTexObject == NULL || pResDesc == NULL || pTexDesc == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (pResViewDesc != NULL)
        return rt_fail(cudaErrorNotSupported, "unsupported: a resource view "
                       "(cudaResourceViewDesc) on a texture object");
    const struct cudaTextureDesc *td = pTexDesc;
    if (td->sRGB || td->maxAnisotropy > 1)
        return rt_fail(cudaErrorNotSupported, "unsupported: %s textures",
                       td->sRGB ? "sRGB" : "anisotropically filtered");
    struct smsim_texture t;
    cudaError_t r = resource_of(pResDesc, false, &t);
    if (r != cudaSuccess)
        return r;
    t.filter = (unsigned)td->filterMode;
    t.normalized_read = td->readMode == cudaReadModeNormalizedFloat;
    t.normalized_coords = td->normalizedCoords != 0;
    for (unsigned i = 0; i < 3; i++)
        t.address_mode[i] = (unsigned)td->addressMode[i];
    memcpy(t.border, td->borderColor, sizeof t.border);
    return object_new(&t, pResDesc, td, pTexObject);
}

API cudaError_t
cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    RT_GUARD;
    return object_destroy(texObject, false);
}

API cudaError_t
cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject)
{
    RT_GUARD;
    const struct rt_object *o = object_find(texObject, false);
    if (o == NULL || pResDesc == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *pResDesc = o->res;
    return cudaSuccess;
}

API cudaError_t
cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject)
{
    RT_GUARD;
    const struct rt_object *o = object_find(texObject, false);
    if (o == NULL || pTexDesc == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *pTexDesc = o->tex;
    return cudaSuccess;
}

API cudaError_t
cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (pSurfObject == NULL || pResDesc == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    struct smsim_texture t;
    cudaError_t r = resource_of(pResDesc, true, &t);
    if (r != cudaSuccess)
        return r;
    t.address_mode[0] = t.address_mode[1] = t.address_mode[2] = cudaAddressModeClamp;
    return object_new(&t, pResDesc, NULL, pSurfObject);
}

API cudaError_t
cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    RT_GUARD;
    return object_destroy(surfObject, true);
}

API cudaError_t
cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject)
{
    RT_GUARD;
    const struct rt_object *o = object_find(surfObject, true);
    if (o == NULL || pResDesc == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *pResDesc = o->res;
    return cudaSuccess;
}
