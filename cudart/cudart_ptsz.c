/*
 * cudart_ptsz.c - the per-thread default stream entry points.  A program
 * compiled with `nvcc --default-stream per-thread` (or defining
 * CUDA_API_PER_THREAD_DEFAULT_STREAM) calls cudaMemcpy_ptds,
 * cudaLaunchKernel_ptsz, ... instead of the plain names (cuda_runtime_api.h
 * maps them).  Work runs when it is issued, on one timeline (cudart.h), so
 * the per-thread default stream orders work as the legacy one does: each
 * entry point is its plain one, with stream 0 taken as cudaStreamPerThread
 * (which, unlike the legacy stream, can be captured into a graph).  Also
 * the stream calls that have nothing to do here (ids, attributes,
 * attaching managed memory).
 */
#include "cudart/cudart.h"

#include <string.h>

#define API __attribute__((visibility("default")))

/* The plain entry points (defined in the other files of cudart/). */
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off, int kind);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, int kind);
cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int v, struct cudaExtent e);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, cudaStream_t s);
cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t n, size_t off,
                                    int kind, cudaStream_t s);
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off, int kind,
                                      cudaStream_t s);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dp, const void *src, size_t sp, size_t w,
                              size_t h, int kind, cudaStream_t s);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t s);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s);
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s);
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int v, struct cudaExtent e,
                              cudaStream_t s);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamGetDevice(cudaStream_t s, int *device);
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *flags);
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority);
cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t ev, cudaStream_t s, unsigned flags);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned flags);
cudaError_t cudaStreamAddCallback(cudaStream_t s, void (*cb)(cudaStream_t, cudaError_t, void *),
                                  void *data, unsigned flags);
cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t smem,
                             cudaStream_t s);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f, void **args);
cudaError_t cudaLaunchCooperativeKernel(const void *f, dim3 g, dim3 b, void **args, size_t smem,
                                        cudaStream_t s);
cudaError_t cudaLaunchHostFunc(cudaStream_t s, void (*fn)(void *), void *data);
cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, int device, cudaStream_t s);
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t cudaMemcpy2DToArray(cudaArray_t d, size_t wo, size_t ho, const void *src, size_t sp,
                                size_t w, size_t h, int kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dp, cudaArray_const_t s, size_t wo, size_t ho,
                                  size_t w, size_t h, int kind);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t d, size_t wd, size_t hd, cudaArray_const_t s,
                                     size_t ws, size_t hs, size_t w, size_t h, int kind);
cudaError_t cudaMemcpyToArray(cudaArray_t d, size_t wo, size_t ho, const void *src, size_t n,
                              int kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t s, size_t wo, size_t ho, size_t n,
                                int kind);
cudaError_t cudaMemcpyArrayToArray(cudaArray_t d, size_t wd, size_t hd, cudaArray_const_t s,
                                   size_t ws, size_t hs, size_t n, int kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t d, size_t wo, size_t ho, const void *src,
                                     size_t sp, size_t w, size_t h, int kind, cudaStream_t s);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dp, cudaArray_const_t s, size_t wo,
                                       size_t ho, size_t w, size_t h, int kind, cudaStream_t st);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t d, size_t wo, size_t ho, const void *src, size_t n,
                                   int kind, cudaStream_t s);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t s, size_t wo, size_t ho,
                                     size_t n, int kind, cudaStream_t st);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);

/* ---- stream calls with nothing to carry out ------------------------------------------- */

API cudaError_t
cudaStreamGetId(cudaStream_t s, unsigned long long *id)
{
    RT_GUARD;
    if (id == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *id = (unsigned long long)(uintptr_t)s;   /* unique while the stream lives */
    return cudaSuccess;
}

/* Managed memory is the host's (cudart_mem.c): attaching it to a stream changes nothing. */
API cudaError_t
cudaStreamAttachMemAsync(cudaStream_t s, void *p, size_t n, unsigned flags)
{
    RT_GUARD;
    (void)s, (void)p, (void)n, (void)flags;
    return rt_ready();
}

/* Stream attributes (access policy windows, synchronisation policy): hints
 * the simulation has no use for; a query reads them as zero. */
API cudaError_t
cudaStreamSetAttribute(cudaStream_t s, int attr, const void *value)
{
    RT_GUARD;
    (void)s, (void)attr;
    return value != NULL ? cudaSuccess : rt_fail(cudaErrorInvalidValue, NULL);
}

API cudaError_t
cudaStreamGetAttribute(cudaStream_t s, int attr, void *value)
{
    RT_GUARD;
    (void)s, (void)attr;
    if (value == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    memset(value, 0, 64);        /* union cudaLaunchAttributeValue: 64 bytes */
    return cudaSuccess;
}

API cudaError_t
cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    RT_GUARD;
    (void)dst, (void)src;
    return cudaSuccess;
}

/* ---- the per-thread default stream ---------------------------------------------------- */

/* FWD(name, plain, (parameters), (arguments)): entry point name is plain. */
#define FWD(name, plain, params, args)                                                     \
    API cudaError_t name params;                                                           \
    API cudaError_t name params { return plain args; }

FWD(cudaMemcpy_ptds, cudaMemcpy,
    (void *dst, const void *src, size_t n, int kind),
    (dst, src, n, kind))
FWD(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol,
    (const void *sym, const void *src, size_t n, size_t off, int kind),
    (sym, src, n, off, kind))
FWD(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol,
    (void *dst, const void *sym, size_t n, size_t off, int kind),
    (dst, sym, n, off, kind))
FWD(cudaMemcpy2D_ptds, cudaMemcpy2D,
    (void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h, int kind),
    (dst, dp, src, sp, w, h, kind))
FWD(cudaMemcpy3D_ptds, cudaMemcpy3D, (const struct cudaMemcpy3DParms *p), (p))
FWD(cudaMemset_ptds, cudaMemset, (void *p, int v, size_t n), (p, v, n))
FWD(cudaMemset2D_ptds, cudaMemset2D,
    (void *p, size_t pitch, int v, size_t w, size_t h),
    (p, pitch, v, w, h))
FWD(cudaMemset3D_ptds, cudaMemset3D,
    (struct cudaPitchedPtr p, int v, struct cudaExtent e),
    (p, v, e))
FWD(cudaMemcpyAsync_ptsz, cudaMemcpyAsync,
    (void *dst, const void *src, size_t n, int kind, cudaStream_t s),
    (dst, src, n, kind, RT_PT(s)))
FWD(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync,
    (const void *sym, const void *src, size_t n, size_t off, int kind, cudaStream_t s),
    (sym, src, n, off, kind, RT_PT(s)))
FWD(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync,
    (void *dst, const void *sym, size_t n, size_t off, int kind, cudaStream_t s),
    (dst, sym, n, off, kind, RT_PT(s)))
FWD(cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync,
    (void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h, int kind,
        cudaStream_t s),
    (dst, dp, src, sp, w, h, kind, RT_PT(s)))
FWD(cudaMemcpy3DAsync_ptsz, cudaMemcpy3DAsync,
    (const struct cudaMemcpy3DParms *p, cudaStream_t s),
    (p, RT_PT(s)))
FWD(cudaMemsetAsync_ptsz, cudaMemsetAsync, (void *p, int v, size_t n, cudaStream_t s),
    (p, v, n, RT_PT(s)))
FWD(cudaMemset2DAsync_ptsz, cudaMemset2DAsync,
    (void *p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s),
    (p, pitch, v, w, h, RT_PT(s)))
FWD(cudaMemset3DAsync_ptsz, cudaMemset3DAsync,
    (struct cudaPitchedPtr p, int v, struct cudaExtent e, cudaStream_t s),
    (p, v, e, RT_PT(s)))
FWD(cudaMemcpy2DToArray_ptds, cudaMemcpy2DToArray,
    (cudaArray_t d, size_t wo, size_t ho, const void *src, size_t sp, size_t w, size_t h, int k),
    (d, wo, ho, src, sp, w, h, k))
FWD(cudaMemcpy2DFromArray_ptds, cudaMemcpy2DFromArray,
    (void *dst, size_t dp, cudaArray_const_t s, size_t wo, size_t ho, size_t w, size_t h, int k),
    (dst, dp, s, wo, ho, w, h, k))
FWD(cudaMemcpy2DArrayToArray_ptds, cudaMemcpy2DArrayToArray,
    (cudaArray_t d, size_t wd, size_t hd, cudaArray_const_t s, size_t ws, size_t hs, size_t w,
     size_t h, int k), (d, wd, hd, s, ws, hs, w, h, k))
FWD(cudaMemcpyToArray_ptds, cudaMemcpyToArray,
    (cudaArray_t d, size_t wo, size_t ho, const void *src, size_t n, int k), (d, wo, ho, src, n, k))
FWD(cudaMemcpyFromArray_ptds, cudaMemcpyFromArray,
    (void *dst, cudaArray_const_t s, size_t wo, size_t ho, size_t n, int k), (dst, s, wo, ho, n, k))
FWD(cudaMemcpyArrayToArray_ptds, cudaMemcpyArrayToArray,
    (cudaArray_t d, size_t wd, size_t hd, cudaArray_const_t s, size_t ws, size_t hs, size_t n,
     int k), (d, wd, hd, s, ws, hs, n, k))
FWD(cudaMemcpy2DToArrayAsync_ptsz, cudaMemcpy2DToArrayAsync,
    (cudaArray_t d, size_t wo, size_t ho, const void *src, size_t sp, size_t w, size_t h, int k,
     cudaStream_t s), (d, wo, ho, src, sp, w, h, k, RT_PT(s)))
FWD(cudaMemcpy2DFromArrayAsync_ptsz, cudaMemcpy2DFromArrayAsync,
    (void *dst, size_t dp, cudaArray_const_t s, size_t wo, size_t ho, size_t w, size_t h, int k,
     cudaStream_t st), (dst, dp, s, wo, ho, w, h, k, RT_PT(st)))
FWD(cudaMemcpyToArrayAsync_ptsz, cudaMemcpyToArrayAsync,
    (cudaArray_t d, size_t wo, size_t ho, const void *src, size_t n, int k, cudaStream_t s),
    (d, wo, ho, src, n, k, RT_PT(s)))
FWD(cudaMemcpyFromArrayAsync_ptsz, cudaMemcpyFromArrayAsync,
    (void *dst, cudaArray_const_t s, size_t wo, size_t ho, size_t n, int k, cudaStream_t st),
    (dst, s, wo, ho, n, k, RT_PT(st)))
FWD(cudaMallocFromPoolAsync_ptsz, cudaMallocFromPoolAsync,
    (void **p, size_t n, cudaMemPool_t pool, cudaStream_t s), (p, n, pool, RT_PT(s)))
FWD(cudaStreamQuery_ptsz, cudaStreamQuery, (cudaStream_t s), (RT_PT(s)))
FWD(cudaStreamSynchronize_ptsz, cudaStreamSynchronize, (cudaStream_t s), (RT_PT(s)))
FWD(cudaStreamGetDevice_ptsz, cudaStreamGetDevice, (cudaStream_t s, int *device),
    (RT_PT(s), device))
FWD(cudaStreamGetFlags_ptsz, cudaStreamGetFlags, (cudaStream_t s, unsigned *flags),
    (RT_PT(s), flags))
FWD(cudaStreamGetId_ptsz, cudaStreamGetId, (cudaStream_t s, unsigned long long *id),
    (RT_PT(s), id))
FWD(cudaStreamGetPriority_ptsz, cudaStreamGetPriority,
    (cudaStream_t s, int *priority),
    (RT_PT(s), priority))
FWD(cudaStreamAttachMemAsync_ptsz, cudaStreamAttachMemAsync,
    (cudaStream_t s, void *p, size_t n, unsigned flags),
    (RT_PT(s), p, n, flags))
FWD(cudaStreamSetAttribute_ptsz, cudaStreamSetAttribute,
    (cudaStream_t s, int attr, const void *value),
    (RT_PT(s), attr, value))
FWD(cudaStreamGetAttribute_ptsz, cudaStreamGetAttribute,
    (cudaStream_t s, int attr, void *value),
    (RT_PT(s), attr, value))
FWD(cudaStreamCopyAttributes_ptsz, cudaStreamCopyAttributes,
    (cudaStream_t dst, cudaStream_t src),
    (dst, src))
FWD(cudaEventRecord_ptsz, cudaEventRecord, (cudaEvent_t ev, cudaStream_t s),
    (ev, RT_PT(s)))
FWD(cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags,
    (cudaEvent_t ev, cudaStream_t s, unsigned flags),
    (ev, RT_PT(s), flags))
FWD(cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent,
    (cudaStream_t s, cudaEvent_t ev, unsigned flags),
    (RT_PT(s), ev, flags))
FWD(cudaStreamAddCallback_ptsz, cudaStreamAddCallback,
    (cudaStream_t s, void (*cb)(cudaStream_t, cudaError_t, void *), void *data, unsigned flags),
    (RT_PT(s), cb, data, flags))
FWD(cudaLaunchKernel_ptsz, cudaLaunchKernel,
    (const void *f, dim3 g, dim3 b, void **args, size_t smem, cudaStream_t s),
    (f, g, b, args, smem, RT_PT(s)))
API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *f,
                                         void **args);
API cudaError_t
cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *f, void **args)
{
    if (config == NULL || config->stream != NULL)
        return cudaLaunchKernelExC(config, f, args);
    cudaLaunchConfig_t c = *config;
    c.stream = cudaStreamPerThread;
    return cudaLaunchKernelExC(&c, f, args);
}
FWD(cudaLaunchCooperativeKernel_ptsz, cudaLaunchCooperativeKernel,
    (const void *f, dim3 g, dim3 b, void **args, size_t smem, cudaStream_t s),
    (f, g, b, args, smem, RT_PT(s)))
FWD(cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc,
    (cudaStream_t s, void (*fn)(void *), void *data),
    (RT_PT(s), fn, data))
FWD(cudaMemPrefetchAsync_ptsz, cudaMemPrefetchAsync,
    (const void *p, size_t n, int device, cudaStream_t s),
    (p, n, device, RT_PT(s)))
FWD(cudaMallocAsync_ptsz, cudaMallocAsync, (void **p, size_t n, cudaStream_t s),
    (p, n, RT_PT(s)))
FWD(cudaFreeAsync_ptsz, cudaFreeAsync, (void *p, cudaStream_t s), (p, RT_PT(s)))
