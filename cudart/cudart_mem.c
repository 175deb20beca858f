/*
 * cudart_mem.c - the replacement CUDA runtime's memory calls: device
 * allocations in the program's smsim_program, host-mapped (managed and
 * pinned) memory, copies and sets (each on the timeline: the host link's
 * time for a copy across it), symbols.
 */
#include "cudart/cudart.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define API __attribute__((visibility("default")))

/* The memory at device-or-host pointer p for n bytes: device memory's
 * host copy, or p itself when it is host memory.  *dev: device memory. */
static void *
resolve(const void *p, size_t n, bool *dev)
{
    uint64_t a = (uint64_t)(uintptr_t)p;
    bool mapped = false;
    if (!smsim_program_lookup(rt.prog, a, NULL, NULL, &mapped) || mapped) {
        *dev = false;
        return (void *)(uintptr_t)p;
    }
    *dev = true;
    smsim_error err = { 0 };
    return smsim_program_host(rt.prog, a, n, &err);
}

/* The memory of a device pointer (the direction says it is one). */
static void *
device(const void *p, size_t n, const char *call)
{
    uint64_t a = (uint64_t)(uintptr_t)p;
    smsim_error err = { 0 };
    void *h = smsim_program_host(rt.prog, a, n, &err);
    if (h == NULL)
        rt_fail(cudaErrorInvalidValue, "%s: %s", call, err.msg);
    return h;
}

API cudaError_t
cudaMalloc(void **devPtr, size_t size)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (devPtr == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    char what[64];
    static unsigned long n;
    snprintf(what, sizeof what, "cudaMalloc #%lu", ++n);
    uint64_t a;
    smsim_error err = { 0 };
    if (smsim_program_malloc(rt.prog, size, what, &a, &err) < 0)
        return rt_fail(cudaErrorMemoryAllocation, "%s", err.msg);
    *devPtr = (void *)(uintptr_t)a;
    return cudaSuccess;
}

/* Host memory the device addresses at the same address (managed, pinned):
 * pages of its own, so that no heap block shares them.  flags: 0
 * (managed) or SMSIM_MAP_ZERO_COPY (pinned: kernels reach it over the
 * host link). */
static cudaError_t
map_host(void **ptr, size_t size, const char *kind, unsigned flags)
{
    RT_REQUIRE_READY();
    if (ptr == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    size_t len = size ? size : 1;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return rt_fail(cudaErrorMemoryAllocation, NULL);
    smsim_error err = { 0 };
    if (smsim_program_map_host(rt.prog, p, len, kind, flags, &err) < 0) {
        munmap(p, len);
        return rt_fail(cudaErrorMemoryAllocation, "%s", err.msg);
    }
    *ptr = p;
    return cudaSuccess;
}

API cudaError_t
cudaMallocManaged(void **devPtr, size_t size, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    return map_host(devPtr, size, "cudaMallocManaged memory", 0);
}

API cudaError_t
cudaMallocHost(void **ptr, size_t size)
{
    RT_GUARD;
    return map_host(ptr, size, "cudaMallocHost memory", SMSIM_MAP_ZERO_COPY);
}

API cudaError_t
cudaHostAlloc(void **ptr, size_t size, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    return map_host(ptr, size, "cudaHostAlloc memory", SMSIM_MAP_ZERO_COPY);
}

API cudaError_t
cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    *pDevice = pHost;
    return cudaSuccess;
}

static cudaError_t
release(void *p, bool host_call)
{
    RT_REQUIRE_READY();
    if (p == NULL)
        return cudaSuccess;
    if (!host_call && rt_graph_mem_owns(p))   /* a graph's allocation: it stays reserved */
        return rt_graph_mem_free(p);
    uint64_t base, size;
    bool mapped;
    if (!smsim_program_lookup(rt.prog, (uint64_t)(uintptr_t)p, &base, &size, &mapped) ||
        (host_call && !mapped))
        return rt_fail(cudaErrorInvalidValue, "%s(%p): not memory of this program, or freed "
                       "already", host_call ? "cudaFreeHost" : "cudaFree", p);
    void *host = NULL;
    smsim_error err = { 0 };
    if (smsim_program_release(rt.prog, (uint64_t)(uintptr_t)p, &host, &err) < 0)
        return rt_fail(cudaErrorInvalidValue, "%s(%p): %s", host_call ? "cudaFreeHost" :
                       "cudaFree", p, err.msg);
    if (host != NULL)
        munmap(host, size);
    rt_pool_release(p);
    return cudaSuccess;
}

API cudaError_t
cudaFree(void *devPtr)
{
    RT_GUARD;
    return release(devPtr, false);
}

API cudaError_t
cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_free(stream, devPtr);
    return release(devPtr, false);
}

API cudaError_t
cudaFreeHost(void *ptr)
{
    RT_GUARD;
    return release(ptr, true);
}

API cudaError_t
cudaMemcpy(void *dst, const void *src, size_t count, int kind)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (count == 0)
        return cudaSuccess;
    void *d;
    const void *s;
    int dir = kind;
    switch (kind) {
    case cudaMemcpyHostToHost:
        d = dst, s = src;
        break;
    case cudaMemcpyHostToDevice:
        d = device(dst, count, "cudaMemcpy"), s = src;
        break;
    case cudaMemcpyDeviceToHost:
        d = dst, s = device(src, count, "cudaMemcpy");
        break;
    case cudaMemcpyDeviceToDevice:
        d = device(dst, count, "cudaMemcpy"), s = device(src, count, "cudaMemcpy");
        break;
    case cudaMemcpyDefault: {
        bool dd, sd;
        d = resolve(dst, count, &dd);
        s = resolve(src, count, &sd);
        dir = dd ? (sd ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                 : (sd ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
        break;
    }
    default:
        return rt_fail(cudaErrorInvalidMemcpyDirection, NULL);
    }
    if (d == NULL || s == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    memmove(d, s, count);
    rt_timeline(RT_COPY, (uint8_t)dir, 0, rt_copy_ns(count, dir), count);
    return cudaSuccess;
}

API cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_copy(stream, dst, count, src, count, count, 1, kind);
    return cudaMemcpy(dst, src, count, kind);
}

API cudaError_t
cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
             size_t height, int kind)
{
    RT_GUARD;
    if (width > dpitch || width > spitch)
        return rt_fail(cudaErrorInvalidValue, NULL);
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = cudaMemcpy((char *)dst + r * dpitch, (const char *)src + r * spitch,
                                   width, kind);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

API cudaError_t
cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height, int kind, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_copy(stream, dst, dpitch, src, spitch, width, height, kind);
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

API cudaError_t
cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    RT_GUARD;
    if (dstDevice != 0 || srcDevice != 0)
        return rt_fail(cudaErrorInvalidDevice, NULL);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

API cudaError_t
cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                    cudaStream_t stream)
{
    RT_GUARD;
    (void)stream;
    return cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
}

/* Rows padded to 512 bytes, the texture alignment cudaDeviceProp reports. */
API cudaError_t
cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    RT_GUARD;
    *pitch = (width + 511) / 512 * 512;
    return cudaMalloc(devPtr, *pitch * height);
}

/* Host memory the program already has, made addressable by the device at
 * its own address (the runtime does not own it). */
API cudaError_t
cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e)
{
    RT_GUARD;
    if (p == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    size_t pitch;
    void *d = NULL;
    cudaError_t r = cudaMallocPitch(&d, &pitch, e.width, e.height * (e.depth ? e.depth : 1));
    if (r != cudaSuccess)
        return r;
    *p = (struct cudaPitchedPtr){ d, pitch, e.width, e.height };
    return cudaSuccess;
}

/* cudaMemcpy3D: slice by slice, row by row.  A CUDA array is pitched
 * memory (cudart_tex.c) whose positions count elements; the extent's
 * width counts elements when an array takes part, bytes otherwise. */
API cudaError_t
cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    RT_GUARD;
    if (p == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    struct cudaPitchedPtr sa, da;
    unsigned se = 1, de = 1;
    if ((p->srcArray != NULL && !rt_array_pitched(p->srcArray, &sa, &se)) ||
        (p->dstArray != NULL && !rt_array_pitched(p->dstArray, &da, &de)))
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    const struct cudaPitchedPtr *s = p->srcArray ? &sa : &p->srcPtr, *d = p->dstArray ? &da : &p->dstPtr;
    size_t ss = s->pitch * s->ysize, ds = d->pitch * d->ysize;
    size_t w = p->extent.width * (p->srcArray ? se : de);
    size_t h = p->extent.height ? p->extent.height : p->srcArray || p->dstArray;  /* an array's
                                                                   absent dimension: one row */
    if ((p->srcArray && (p->srcPos.x * se + w > s->pitch || p->srcPos.y + h > s->ysize)) ||
        (p->dstArray && (p->dstPos.x * de + w > d->pitch || p->dstPos.y + h > d->ysize)))
        return rt_fail(cudaErrorInvalidValue, "cudaMemcpy3D: the extent runs past a CUDA array");
    for (size_t z = 0; z < p->extent.depth; z++) {   /* a zero extent copies nothing */
        cudaError_t e = cudaMemcpy2D((char *)d->ptr + (p->dstPos.z + z) * ds + p->dstPos.y * d->pitch +
                                     p->dstPos.x * de, d->pitch,
                                     (const char *)s->ptr + (p->srcPos.z + z) * ss +
                                     p->srcPos.y * s->pitch + p->srcPos.x * se, s->pitch,
                                     w, h, p->kind);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

API cudaError_t
cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_fail(cudaErrorNotSupported, "unsupported: cudaMemcpy3DAsync in a stream "
                       "capture (cudaMemcpyAsync and cudaMemcpy2DAsync are captured)");
    return cudaMemcpy3D(p);
}

API cudaError_t
cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e)
{
    RT_GUARD;
    for (size_t z = 0; z < e.depth; z++) {   /* a zero extent sets nothing */
        cudaError_t r = cudaMemset2D((char *)p.ptr + z * p.pitch * p.ysize, p.pitch, value,
                                     e.width, e.height);
        if (r != cudaSuccess)
            return r;
    }
    return cudaSuccess;
}

API cudaError_t
cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e, cudaStream_t stream)
{
    RT_GUARD;
    if (!rt_capturing(stream))
        return cudaMemset3D(p, value, e);
    for (size_t z = 0; z < e.depth; z++) {   /* a memset node per slice */
        cudaError_t r = rt_capture_set(stream, (char *)p.ptr + z * p.pitch * p.ysize, p.pitch,
                                       (uint8_t)value, 1, e.width, e.height);
        if (r != cudaSuccess)
            return r;
    }
    return cudaSuccess;
}

API cudaError_t
cudaHostRegister(void *ptr, size_t size, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    RT_REQUIRE_READY();
    smsim_error err = { 0 };
    if (smsim_program_map_host(rt.prog, ptr, size, "cudaHostRegister memory",
                               SMSIM_MAP_ZERO_COPY, &err) < 0)
        return rt_fail(cudaErrorInvalidValue, "cudaHostRegister(%p, %zu): %s", ptr, size,
                       err.msg);
    return cudaSuccess;
}

API cudaError_t
cudaHostUnregister(void *ptr)
{
    RT_GUARD;
    smsim_error err = { 0 };
    void *host = NULL;
    if (rt.prog == NULL ||
        smsim_program_release(rt.prog, (uint64_t)(uintptr_t)ptr, &host, &err) < 0 ||
        host == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    return cudaSuccess;              /* not unmapped: the program's memory */
}

API cudaError_t
cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    RT_GUARD;
    if (width > pitch)
        return rt_fail(cudaErrorInvalidValue, NULL);
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = cudaMemset((char *)devPtr + r * pitch, value, width);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

API cudaError_t
cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                  cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_set(stream, devPtr, pitch, (uint8_t)value, 1, width, height);
    return cudaMemset2D(devPtr, pitch, value, width, height);
}

API cudaError_t
cudaMemset(void *devPtr, int value, size_t count)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (count == 0)
        return cudaSuccess;
    bool dev;
    void *d = resolve(devPtr, count, &dev);
    if (d == NULL || (!dev && !smsim_program_lookup(rt.prog, (uint64_t)(uintptr_t)devPtr, NULL,
                                                    NULL, NULL)))
        return rt_fail(cudaErrorInvalidValue, "cudaMemset(%p, %d, %zu): not device memory of "
                       "this program", devPtr, value, count);
    memset(d, value, count);
    rt_timeline(RT_SET, cudaMemcpyDeviceToDevice, 0, 0, count);
    return cudaSuccess;
}

cudaError_t
rt_memset_elems(void *dst, uint32_t value, unsigned esize, size_t count)
{
    if (esize == 1)
        return cudaMemset(dst, (int)value, count);
    RT_REQUIRE_READY();
    if (count == 0)
        return cudaSuccess;
    bool dev;
    uint8_t *d = resolve(dst, count * esize, &dev);
    if (d == NULL || !dev || (esize != 2 && esize != 4) || (uintptr_t)dst % esize != 0)
        return rt_fail(cudaErrorInvalidValue, "a memset node of %u-byte elements at %p: not "
                       "aligned device memory of this program", esize, dst);
    for (size_t i = 0; i < count; i++)
        memcpy(d + i * esize, &value, esize);   /* little-endian: the low bytes */
    rt_timeline(RT_SET, cudaMemcpyDeviceToDevice, 0, 0, count * esize);
    return cudaSuccess;
}

API cudaError_t
cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_set(stream, devPtr, count, (uint8_t)value, 1, count, 1);
    return cudaMemset(devPtr, value, count);
}

/* A copy into (to) or out of a variable from or to p: host memory, or
 * device memory for cudaMemcpyDeviceToDevice. */
static cudaError_t
symbol_transfer(const void *symbol, void *p, size_t count, size_t offset, int kind, bool to,
                const char *call)
{
    uint64_t addr, size;
    cudaError_t e = rt_symbol(symbol, &addr, &size);
    if (e != cudaSuccess)
        return e;
    if (offset > size || count > size - offset)
        return rt_fail(cudaErrorInvalidValue, "%s: %zu bytes at offset %zu of a %llu-byte "
                       "variable", call, count, offset, (unsigned long long)size);
    void *var = device((void *)(uintptr_t)(addr + offset), count, call);
    void *mem = kind == cudaMemcpyDeviceToDevice ? device(p, count, call) : p;
    if (var == NULL || mem == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    memmove(to ? var : mem, to ? mem : var, count);
    if (kind != cudaMemcpyDeviceToDevice) {
        int dir = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
        rt_timeline(RT_COPY, (uint8_t)dir, 0, rt_copy_ns(count, dir), count);
    }
    return cudaSuccess;
}

API cudaError_t
cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset, int kind)
{
    RT_GUARD;
    return symbol_transfer(symbol, (void *)(uintptr_t)src, count, offset, kind, true,
                           "cudaMemcpyToSymbol");
}

/* A copy into (to) or out of a variable from or to p, captured in
 * stream s: a copy node of the variable's device address. */
static cudaError_t
capture_symbol(cudaStream_t s, const void *symbol, void *p, size_t count, size_t offset, int kind,
               bool to)
{
    uint64_t a, size;
    cudaError_t e = rt_symbol(symbol, &a, &size);
    if (e != cudaSuccess)
        return e;
    if (offset + count > size)
        return rt_fail(cudaErrorInvalidValue, NULL);
    void *var = (void *)(uintptr_t)(a + offset);
    int k = kind == cudaMemcpyDeviceToDevice ? kind
            : to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    return to ? rt_capture_copy(s, var, count, p, count, count, 1, k)
              : rt_capture_copy(s, p, count, var, count, count, 1, k);
}

API cudaError_t
cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                        int kind, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return capture_symbol(stream, symbol, (void *)(uintptr_t)src, count, offset, kind, true);
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

API cudaError_t
cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, int kind)
{
    RT_GUARD;
    return symbol_transfer(symbol, dst, count, offset, kind, false, "cudaMemcpyFromSymbol");
}

API cudaError_t
cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, int kind,
                          cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return capture_symbol(stream, symbol, dst, count, offset, kind, false);
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

API cudaError_t
cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    RT_GUARD;
    uint64_t addr, size;
    cudaError_t e = rt_symbol(symbol, &addr, &size);
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)addr;
    return e;
}

API cudaError_t
cudaGetSymbolSize(size_t *size, const void *symbol)
{
    RT_GUARD;
    uint64_t addr, sz;
    cudaError_t e = rt_symbol(symbol, &addr, &sz);
    if (e == cudaSuccess)
        *size = (size_t)sz;
    return e;
}

API cudaError_t
cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    memset(attr, 0, sizeof *attr);
    bool mapped;
    if (smsim_program_lookup(rt.prog, (uint64_t)(uintptr_t)ptr, NULL, NULL, &mapped)) {
        attr->type = mapped ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
        attr->devicePointer = (void *)(uintptr_t)ptr;
        attr->hostPointer = mapped ? (void *)(uintptr_t)ptr : NULL;
    } else {
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
    }
    return cudaSuccess;
}

API cudaError_t
cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
{
    RT_GUARD;
    (void)devPtr, (void)count, (void)dstDevice, (void)stream;
    return cudaSuccess;              /* a hint: managed memory is always in place */
}

API cudaError_t
cudaMemAdvise(const void *devPtr, size_t count, int advice, int device)
{
    RT_GUARD;
    (void)devPtr, (void)count, (void)advice, (void)device;
    return cudaSuccess;
}
