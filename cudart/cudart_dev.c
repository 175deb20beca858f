/*
 * cudart_dev.c - the replacement CUDA runtime's device, stream, event and
 * occupancy calls: one device, the configured GPU; streams and events on
 * the one simulated timeline (work runs when issued, so every wait has
 * already been met); occupancy from smsim's calculator.
 */
#include "cudart/cudart.h"

#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* The last cudaDeviceAttr of CUDA 13.0 (driver_types.h: 147, cudaDevAttrMax - 1;
 * later ones are invalid here). */
#define CUDART_DEV_ATTR_MAX 147

/* Runtime and driver version this runtime stands in for (CUDA 13.0). */
#define CUDART_VERSION_NUMBER 13000

/* An integer config field (every one is far below 2^53: exact as a double) */
static uint64_t
field_u64(const char *name)
{
    return (uint64_t)rt_config_number(name);
}

/* The memory clock the runtime reports, in kHz: the one at which two
 * transfers per clock over dram.bus_bits give dram.bandwidth_gbps, as the
 * CUDA samples turn it back into bandwidth (2 x clock x width / 8); 0
 * when the config gives no width. */
static int
memory_clock_khz(void)
{
    uint64_t bits = field_u64("dram.bus_bits");
    if (bits == 0)
        return 0;
    return (int)(rt_config_number("dram.bandwidth_gbps") * 1e6 * 4.0 / (double)bits + 0.5);
}

API cudaError_t
cudaGetDeviceCount(int *count)
{
    RT_GUARD;
    cudaError_t e = rt_ready();
    *count = e == cudaSuccess ? 1 : 0;
    return e == cudaSuccess ? cudaSuccess : rt_fail(cudaErrorNoDevice, NULL);
}

API cudaError_t
cudaGetDevice(int *device)
{
    RT_GUARD;
    *device = 0;
    return cudaSuccess;
}

API cudaError_t
cudaSetDevice(int device)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    return device == 0 ? cudaSuccess : rt_fail(cudaErrorInvalidDevice, NULL);
}

API cudaError_t
cudaInitDevice(int device, unsigned deviceFlags, unsigned flags)
{
    RT_GUARD;
    (void)deviceFlags, (void)flags;
    return cudaSetDevice(device);
}

API cudaError_t
cudaSetDeviceFlags(unsigned flags)
{
    RT_GUARD;
    (void)flags;
    return rt_ready();
}

API cudaError_t
cudaGetDeviceFlags(unsigned *flags)
{
    RT_GUARD;
    *flags = 0;
    return cudaSuccess;
}

API cudaError_t
cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    RT_GUARD;
    (void)prop;
    *device = 0;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceSynchronize(void)
{
    RT_GUARD;
    return rt_ready();               /* all work has run */
}

API cudaError_t
cudaDeviceReset(void)
{
    RT_GUARD;
    return cudaSuccess;
}

API cudaError_t
cudaRuntimeGetVersion(int *v)
{
    RT_GUARD;
    *v = CUDART_VERSION_NUMBER;
    return cudaSuccess;
}

API cudaError_t
cudaDriverGetVersion(int *v)
{
    RT_GUARD;
    *v = CUDART_VERSION_NUMBER;
    return cudaSuccess;
}

/* Device memory reported: gpu.memory_mb when the config has it, else 80 GB. */
static uint64_t
total_mem(void)
{
    uint64_t mb = field_u64("gpu.memory_mb");
    return (mb ? mb : 81920) << 20;
}

API cudaError_t
cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    *free_bytes = *total = (size_t)total_mem();
    return cudaSuccess;
}

/* cudaDeviceProp's texture and surface limits, maxTexture1D ..
 * maxSurfaceCubemapLayered[1] in its order: the CUDA C++ Programming
 * Guide's "Technical Specifications per Compute Capability" (compute
 * capability 6.0 and later; the smaller ones of 3.x and 5.x before). */
static void
texture_limits(int out[39])
{
    static const int newer[39] = {
        131072, 32768, 131072, 65536, 32768, 32768, 131072, 65000, 2097120, 32768, 32768,
        16384, 16384, 16384, 8192, 8192, 32768, 32768, 32768, 2048, 32768, 32768, 2048,
        32768, 2046,
        32768, 131072, 65536, 16384, 16384, 16384, 32768, 2048, 32768, 32768, 2048, 32768,
        32768, 2046 };
    static const int older[39] = {
        65536, 16384, 65536, 65536, 16384, 16384, 65536, 65536, 1048544, 16384, 16384,
        4096, 4096, 4096, 2048, 2048, 16384, 16384, 16384, 2048, 16384, 16384, 2048,
        16384, 2046,
        16384, 65536, 32768, 4096, 4096, 4096, 16384, 2048, 16384, 16384, 2048, 16384,
        16384, 2046 };
    memcpy(out, rt.gpu.cc >= 60 ? newer : older, sizeof newer);
}

static int
attribute(int attr, int *ok)
{
    const struct smsim_gpu *g = &rt.gpu;
    *ok = 1;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY: return (int)field_u64("sm.max_threads_per_block");
    case cudaDevAttrMaxBlockDimZ: return 64;
    case cudaDevAttrMaxGridDimX: return 2147483647;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: return 65535;
    case cudaDevAttrMaxSharedMemoryPerBlock: return 48 * 1024;
    case cudaDevAttrTotalConstantMemory: return 64 * 1024;
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxRegistersPerBlock: return (int)field_u64("sm.max_regs_per_block");
    case cudaDevAttrClockRate: return (int)(g->clock_mhz * 1000.0);
    case cudaDevAttrMemoryClockRate: {
        int khz = memory_clock_khz();
        *ok = khz > 0;
        return khz;
    }
    case cudaDevAttrGlobalMemoryBusWidth: {
        int bits = (int)field_u64("dram.bus_bits");
        *ok = bits > 0;
        return bits;
    }
    case cudaDevAttrMultiProcessorCount: return (int)g->sm_count;
    case cudaDevAttrMaxPitch: return 2147483647;
    case cudaDevAttrTextureAlignment:
    case cudaDevAttrSurfaceAlignment: return 512;
    case cudaDevAttrTexturePitchAlignment: return 32;
    case cudaDevAttrGpuOverlap: return 1;
    case cudaDevAttrAsyncEngineCount: return 2;
    case cudaDevAttrKernelExecTimeout: return 0;
    case cudaDevAttrIntegrated: return 0;
    case cudaDevAttrCanMapHostMemory: return 1;
    case cudaDevAttrComputeMode: return 0;           /* cudaComputeModeDefault */
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrEccEnabled:
    case cudaDevAttrTccDriver:
    case cudaDevAttrIsMultiGpuBoard:
    case cudaDevAttrMultiGpuBoardGroupID:
    case cudaDevAttrHostNativeAtomicSupported:
    case cudaDevAttrPageableMemoryAccess:
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
    case cudaDevAttrDirectManagedMemAccessFromHost:
    case cudaDevAttrPciBusId:
    case cudaDevAttrPciDeviceId:
    case cudaDevAttrPciDomainId: return 0;           /* no board: no bus, no ECC */
    case cudaDevAttrStreamPrioritiesSupported:
    case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported:
    case cudaDevAttrComputePreemptionSupported: return 1;
    case cudaDevAttrL2CacheSize: return (int)(field_u64("l2.size_kb") * 1024);
    /* the L2 set-aside for persisting accesses (compute capability 8.0 and
     * later): three quarters of the L2, and windows up to 128 MiB less
     * 4 KiB -- what an A100 reports (l2CacheSize 41943040,
     * persistingL2CacheMaxSize 31457280, accessPolicyMaxWindowSize
     * 134213632: NVIDIA developer forum, "What is the difference:
     * cudaLimitPersistingL2CacheSize, accessPolicyMaxWindowSize,
     * persistingL2CacheMaxSize", 2023), the ratio assumed for the later
     * GPUs.  The model keeps no set-aside: accesses under an access policy
     * window are cached as any other (doc/exec.md). */
    case cudaDevAttrMaxPersistingL2CacheSize:
        return g->cc >= 80 ? (int)(field_u64("l2.size_kb") * 1024 / 4 * 3) : 0;
    case cudaDevAttrMaxAccessPolicyWindowSize: return g->cc >= 80 ? 134213632 : 0;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return (int)field_u64("sm.max_threads");
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrComputeCapabilityMajor: return (int)(g->cc / 10);
    case cudaDevAttrComputeCapabilityMinor: return (int)(g->cc % 10);
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return (int)field_u64("sm.smem_size");
    case cudaDevAttrMaxRegistersPerMultiprocessor: return (int)field_u64("sm.registers");
    case cudaDevAttrManagedMemory: return 1;
    case cudaDevAttrConcurrentManagedAccess: return 1;
    case cudaDevAttrCooperativeLaunch: return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return (int)field_u64("sm.smem_per_block");
    case cudaDevAttrMaxBlocksPerMultiprocessor: return (int)field_u64("sm.max_blocks");
    case cudaDevAttrReservedSharedMemoryPerBlock: return (int)g->smem_reserved;
    case cudaDevAttrClusterLaunch: return g->cc >= 90;
    case cudaDevAttrMemoryPoolsSupported: return 1;       /* cudart_pool.c */
    case cudaDevAttrMemoryPoolSupportedHandleTypes: return 0;   /* no IPC */
    case cudaDevAttrMaxTexture1DWidth: case cudaDevAttrMaxTexture2DWidth:
    case cudaDevAttrMaxTexture2DHeight: case cudaDevAttrMaxTexture3DWidth:
    case cudaDevAttrMaxTexture3DHeight: case cudaDevAttrMaxTexture3DDepth:
    case cudaDevAttrMaxTexture2DLayeredWidth: case cudaDevAttrMaxTexture2DLayeredHeight:
    case cudaDevAttrMaxTexture2DLayeredLayers: {
        /* attributes 21 .. 29: maxTexture1D, 2D[0 .. 1], 3D[0 .. 2], 2DLayered[0 .. 2] */
        static const unsigned char at[9] = { 0, 2, 3, 11, 12, 13, 20, 21, 22 };
        int lim[39];
        texture_limits(lim);
        return lim[at[attr - cudaDevAttrMaxTexture1DWidth]];
    }
    default: *ok = 0; return 0;
    }
}

API cudaError_t
cudaDeviceGetAttribute(int *value, int attr, int device)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (device != 0)
        return rt_fail(cudaErrorInvalidDevice, NULL);
    int ok;
    *value = attribute(attr, &ok);
    if (ok)
        return cudaSuccess;
    if (attr <= 0 || attr > CUDART_DEV_ATTR_MAX)
        return rt_fail(cudaErrorInvalidValue, NULL);
    /* a real attribute smsim does not model (memory pools, texture limits,
     * ...): the answer of a GPU without the feature, said once */
    static unsigned char told[CUDART_DEV_ATTR_MAX + 1];
    if (!told[attr]++)
        rt_fail(cudaSuccess, "note: cudaDeviceGetAttribute(%d): not modelled, 0 returned", attr);
    return cudaSuccess;
}

API cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (device != 0)
        return rt_fail(cudaErrorInvalidDevice, NULL);
    int ok;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s (smsim)", rt.gpu.name);
    p->totalGlobalMem = (size_t)total_mem();
    p->sharedMemPerBlock = 48 * 1024;
    p->regsPerBlock = attribute(cudaDevAttrMaxRegistersPerBlock, &ok);
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = attribute(cudaDevAttrMaxThreadsPerBlock, &ok);
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsPerBlock;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->totalConstMem = 64 * 1024;
    p->major = (int)(rt.gpu.cc / 10);
    p->minor = (int)(rt.gpu.cc % 10);
    p->textureAlignment = 512;
    texture_limits(p->textures_and_surfaces);
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = (int)rt.gpu.sm_count;
    p->canMapHostMemory = 1;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->l2CacheSize = attribute(cudaDevAttrL2CacheSize, &ok);
    p->memoryBusWidth = attribute(cudaDevAttrGlobalMemoryBusWidth, &ok);
    p->maxThreadsPerMultiProcessor = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, &ok);
    p->globalL1CacheSupported = p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = (size_t)attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                                      &ok);
    p->regsPerMultiprocessor = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, &ok);
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = (size_t)attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &ok);
    p->maxBlocksPerMultiProcessor = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, &ok);
    p->reservedSharedMemPerBlock = rt.gpu.smem_reserved;
    p->clusterLaunch = rt.gpu.cc >= 90;
    p->persistingL2CacheMaxSize = attribute(cudaDevAttrMaxPersistingL2CacheSize, &ok);
    p->accessPolicyMaxWindowSize = attribute(cudaDevAttrMaxAccessPolicyWindowSize, &ok);
    return cudaSuccess;
}

API cudaError_t
cudaGetDeviceProperties_v2(struct cudaDeviceProp *p, int device)
{
    RT_GUARD;
    return cudaGetDeviceProperties(p, device);
}

/* cudaLimitMallocHeapSize (2) sizes device malloc's heap, until a kernel
 * calling malloc has been loaded (then only its size is accepted, as the
 * driver refuses a change once the heap is in use).  The others are
 * accepted and read back: the stack is sized by smsim from the kernel's
 * calls, device printf writes straight to stdout (no FIFO to fill), and the
 * device-runtime and L2 limits have nothing to act on (the persisting L2
 * size is checked against persistingL2CacheMaxSize, as the driver does). */
enum { LIMIT_STACK, LIMIT_PRINTF_FIFO, LIMIT_MALLOC_HEAP, LIMIT_PERSISTING_L2 = 6, LIMIT_COUNT = 7 };
static size_t limits[LIMIT_COUNT] = { 1024, 1u << 20, 8u << 20, 2, 2048, 0, 0 };

API cudaError_t
cudaDeviceSetLimit(int limit, size_t value)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (limit < 0 || limit >= LIMIT_COUNT)
        return rt_fail(cudaErrorNotSupported, "unsupported: cudaDeviceSetLimit(%d)", limit);
    if (limit == LIMIT_PERSISTING_L2) {
        int ok;
        if (value > (size_t)attribute(cudaDevAttrMaxPersistingL2CacheSize, &ok))
            return rt_fail(cudaErrorInvalidValue, "cudaDeviceSetLimit("
                           "cudaLimitPersistingL2CacheSize): %zu bytes, more than the %d "
                           "bytes persistingL2CacheMaxSize allows", value,
                           attribute(cudaDevAttrMaxPersistingL2CacheSize, &ok));
    }
    if (limit == LIMIT_MALLOC_HEAP) {
        smsim_error err = { 0 };
        if (smsim_program_set_heap(rt.prog, value, &err) < 0)
            return rt_fail(cudaErrorInvalidValue, "cudaDeviceSetLimit(cudaLimitMallocHeapSize): "
                           "%s", err.msg);
    }
    limits[limit] = value;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetLimit(size_t *value, int limit)
{
    RT_GUARD;
    if (value == NULL || limit < 0 || limit >= LIMIT_COUNT)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *value = limit == LIMIT_MALLOC_HEAP && rt.prog != NULL ? smsim_program_heap(rt.prog)
                                                            : limits[limit];
    return cudaSuccess;
}

/* The persisting lines back to normal: none are kept apart in the model. */
API cudaError_t
cudaCtxResetPersistingL2Cache(void)
{
    RT_GUARD;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceSetCacheConfig(int config)
{
    RT_GUARD;
    (void)config;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetCacheConfig(int *config)
{
    RT_GUARD;
    *config = 0;                     /* cudaFuncCachePreferNone */
    return cudaSuccess;
}

API cudaError_t
cudaDeviceSetSharedMemConfig(int config)
{
    RT_GUARD;
    (void)config;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetSharedMemConfig(int *config)
{
    RT_GUARD;
    *config = 1;                     /* cudaSharedMemBankSizeFourByte */
    return cudaSuccess;
}

API cudaError_t
cudaDeviceCanAccessPeer(int *can, int device, int peer)
{
    RT_GUARD;
    (void)device, (void)peer;
    *can = 0;                        /* one device */
    return cudaSuccess;
}

/* The profiler's range: the whole program is simulated anyway. */
API cudaError_t
cudaProfilerStart(void)
{
    RT_GUARD;
    return cudaSuccess;
}

API cudaError_t
cudaProfilerStop(void)
{
    RT_GUARD;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    RT_GUARD;
    if (least != NULL)
        *least = 0;
    if (greatest != NULL)
        *greatest = -5;
    return cudaSuccess;
}

/* ---- streams and events ------------------------------------------------------------- */

API cudaError_t
cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority)
{
    RT_GUARD;
    (void)priority;
    RT_REQUIRE_READY();
    *s = calloc(1, sizeof **s);
    if (*s == NULL)
        return rt_fail(cudaErrorMemoryAllocation, NULL);
    (*s)->flags = (int)flags;
    return cudaSuccess;
}

API cudaError_t
cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    RT_GUARD;
    return cudaStreamCreateWithPriority(s, flags, 0);
}

API cudaError_t
cudaStreamCreate(cudaStream_t *s)
{
    RT_GUARD;
    return cudaStreamCreateWithPriority(s, 0, 0);
}

struct CUstream_st rt_per_thread_stream;

API cudaError_t
cudaStreamDestroy(cudaStream_t s)
{
    RT_GUARD;
    struct CUstream_st *st = rt_stream(s);
    if (st == NULL || st == &rt_per_thread_stream)
        return cudaSuccess;      /* the default streams are not destroyed */
    rt_capture_stream_gone(st);
    free(st->tail);
    free(st);
    return cudaSuccess;
}

API cudaError_t
cudaStreamSynchronize(cudaStream_t s)
{
    RT_GUARD;
    (void)s;
    return rt_ready();
}

API cudaError_t
cudaStreamQuery(cudaStream_t s)
{
    RT_GUARD;
    (void)s;
    return rt_ready();
}

API cudaError_t
cudaStreamGetFlags(cudaStream_t s, unsigned *flags)
{
    RT_GUARD;
    const struct CUstream_st *st = rt_stream(s);
    *flags = st != NULL ? (unsigned)st->flags : 0;
    return cudaSuccess;
}

API cudaError_t
cudaStreamGetPriority(cudaStream_t s, int *priority)
{
    RT_GUARD;
    (void)s;
    *priority = 0;
    return cudaSuccess;
}

API cudaError_t
cudaStreamGetDevice(cudaStream_t s, int *device)
{
    RT_GUARD;
    (void)s;
    *device = 0;
    return cudaSuccess;
}

/* Host functions in a stream: the work before them has run, so now. */
API cudaError_t
cudaLaunchHostFunc(cudaStream_t s, void (*fn)(void *), void *data)
{
    if (rt_capturing(s)) {
        RT_GUARD;
        return rt_capture_host(s, fn, data);
    }
    fn(data);
    return cudaSuccess;
}

API cudaError_t
cudaStreamAddCallback(cudaStream_t s, void (*cb)(cudaStream_t, cudaError_t, void *), void *data,
                      unsigned flags)
{
    (void)flags;
    cb(s, rt.sticky, data);
    return cudaSuccess;
}

API cudaError_t
cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    if (ev != NULL && ev->capture_id != 0)
        return rt_capture_wait(s, ev);
    return rt_ready();
}

API cudaError_t
cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    RT_REQUIRE_READY();
    *ev = calloc(1, sizeof **ev);
    return *ev != NULL ? cudaSuccess : rt_fail(cudaErrorMemoryAllocation, NULL);
}

API cudaError_t
cudaEventCreate(cudaEvent_t *ev)
{
    RT_GUARD;
    return cudaEventCreateWithFlags(ev, 0);
}

API cudaError_t
cudaEventDestroy(cudaEvent_t ev)
{
    RT_GUARD;
    if (ev != NULL)
        free(ev->tail);
    free(ev);
    return cudaSuccess;
}

API cudaError_t
cudaEventRecord(cudaEvent_t ev, cudaStream_t s)
{
    RT_GUARD;
    if (ev == NULL)
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    if (rt_capturing(s))
        return rt_capture_record(ev, s);
    ev->capture_id = 0;
    ev->t_ns = rt.now_ns;
    ev->recorded = true;
    return cudaSuccess;
}

API cudaError_t
cudaEventRecordWithFlags(cudaEvent_t ev, cudaStream_t s, unsigned flags)
{
    RT_GUARD;
    (void)flags;
    return cudaEventRecord(ev, s);
}

API cudaError_t
cudaEventSynchronize(cudaEvent_t ev)
{
    RT_GUARD;
    (void)ev;
    return rt_ready();
}

API cudaError_t
cudaEventQuery(cudaEvent_t ev)
{
    RT_GUARD;
    (void)ev;
    return rt_ready();
}

/* Simulated milliseconds between two recorded events. */
API cudaError_t
cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_GUARD;
    if (start == NULL || end == NULL)
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    if (!start->recorded || !end->recorded)
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    *ms = (float)((end->t_ns - start->t_ns) / 1e6);
    return cudaSuccess;
}

/* ---- occupancy ------------------------------------------------------------------------ */

API cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
                                                       int blockSize, size_t dynSmem,
                                                       unsigned flags)
{
    RT_GUARD;
    (void)flags;
    RT_REQUIRE_READY();
    struct cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, func);
    if (e != cudaSuccess)
        return e;
    unsigned n = 0;
    smsim_error err = { 0 };
    if (smsim_occupancy_blocks(rt.cfg, (uint32_t)blockSize, (uint32_t)fa.numRegs,
                               (uint32_t)(fa.sharedSizeBytes + dynSmem), &n, &err) < 0)
        n = 0;
    *blocks = (int)n;
    return cudaSuccess;
}

API cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int blockSize,
                                              size_t dynSmem)
{
    RT_GUARD;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, blockSize,
                                                                  dynSmem, 0);
}

API cudaError_t
cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, const void *func, int numBlocks,
                                          int blockSize)
{
    RT_GUARD;
    (void)func, (void)blockSize;
    RT_REQUIRE_READY();
    uint64_t per_sm = field_u64("sm.smem_size");
    uint64_t per = numBlocks > 0 ? per_sm / (uint64_t)numBlocks : 0;
    uint64_t cap = field_u64("sm.smem_per_block");
    per = per > rt.gpu.smem_reserved ? per - rt.gpu.smem_reserved : 0;
    *smem = (size_t)(per < cap ? per : cap);
    return cudaSuccess;
}

/* ---- driver entry points -------------------------------------------------------------- */

/* The driver functions a runtime-API program may ask for by name
 * (cudaGetDriverEntryPoint): the TMA tensor-map encoders, in smsim's own
 * 128-byte encoding (lib/smsim.h), which its cp.async.bulk.tensor reads.
 * They return CUresult: CUDA_SUCCESS (0) or CUDA_ERROR_INVALID_VALUE (1). */
static int
encode_map(void *map, const struct smsim_tensor_map *m)
{
    smsim_error err = { 0 };
    if (map == NULL || smsim_tensor_map_encode(m, map, &err) < 0) {
        /* a driver call: the runtime's last error stays as it was */
        fprintf(stderr, "smsim exec: cuTensorMapEncode: %s\n",
                map == NULL ? "a tensor map at NULL" : err.msg);
        return 1;
    }
    return 0;
}

/* The fields both encoders take (rank 1 .. 5 is checked by the encoding). */
static struct smsim_tensor_map
map_fields(unsigned type, unsigned rank, void *addr, const uint64_t *dims, const uint64_t *strides,
           const uint32_t *estr, unsigned interleave, unsigned swizzle, unsigned l2, unsigned oob)
{
    struct smsim_tensor_map m;
    memset(&m, 0, sizeof m);
    m.type = type, m.rank = rank, m.address = (uint64_t)(uintptr_t)addr;
    for (unsigned d = 0; d < rank && d < 5; d++) {
        m.dims[d] = dims[d];
        m.elem_strides[d] = estr[d];
        if (d > 0)
            m.strides[d - 1] = strides[d - 1];
    }
    m.interleave = interleave, m.swizzle = swizzle, m.l2promotion = l2, m.oob_fill = oob;
    return m;
}

static int
tensor_map_tiled(void *map, unsigned type, unsigned rank, void *addr, const uint64_t *dims,
                 const uint64_t *strides, const uint32_t *box, const uint32_t *estr,
                 unsigned interleave, unsigned swizzle, unsigned l2, unsigned oob)
{
    RT_GUARD;
    struct smsim_tensor_map m = map_fields(type, rank, addr, dims, strides, estr, interleave,
                                           swizzle, l2, oob);
    for (unsigned d = 0; d < rank && d < 5; d++)
        m.box[d] = box[d];
    return encode_map(map, &m);
}

static int
tensor_map_im2col(void *map, unsigned type, unsigned rank, void *addr, const uint64_t *dims,
                  const uint64_t *strides, const int *lower, const int *upper, unsigned channels,
                  unsigned pixels, const uint32_t *estr, unsigned interleave, unsigned swizzle,
                  unsigned l2, unsigned oob)
{
    RT_GUARD;
    struct smsim_tensor_map m = map_fields(type, rank, addr, dims, strides, estr, interleave,
                                           swizzle, l2, oob);
    m.im2col = true;
    for (unsigned d = 0; d + 2 < rank && d < 3; d++)
        m.lower[d] = lower[d], m.upper[d] = upper[d];
    m.channels = channels, m.pixels = pixels;
    return encode_map(map, &m);
}

API cudaError_t
cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags, int *status)
{
    RT_GUARD;
    (void)flags;
    if (symbol == NULL || fn == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *fn = strcmp(symbol, "cuTensorMapEncodeTiled") == 0 ? (void *)tensor_map_tiled
          : strcmp(symbol, "cuTensorMapEncodeIm2col") == 0 ? (void *)tensor_map_im2col : NULL;
    if (status != NULL)
        *status = *fn != NULL ? 0 : 1;   /* cudaDriverEntryPointSuccess, ...SymbolNotFound */
    if (*fn == NULL)
        fprintf(stderr, "smsim exec: unsupported: the driver function %s "
                "(cudaGetDriverEntryPoint gives cuTensorMapEncodeTiled and "
                "cuTensorMapEncodeIm2col)\n", symbol);
    return cudaSuccess;
}

API cudaError_t
cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
                                 unsigned long long flags, int *status)
{
    RT_GUARD;
    (void)version;
    return cudaGetDriverEntryPoint(symbol, fn, flags, status);
}

API cudaError_t
cudaGetDriverEntryPoint_ptsz(const char *symbol, void **fn, unsigned long long flags, int *status)
{
    return cudaGetDriverEntryPoint(symbol, fn, flags, status);
}

API cudaError_t
cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **fn, unsigned version,
                                      unsigned long long flags, int *status)
{
    return cudaGetDriverEntryPointByVersion(symbol, fn, version, flags, status);
}

/* ---- small queries -------------------------------------------------------------------- */

/* Host memory the runtime allocated or registered: cudaHostAllocDefault (0)
 * or a mapping flag is all the program can have asked for; the runtime
 * maps them all (cudart_mem.c), so cudaHostAllocMapped (2) says what is. */
API cudaError_t
cudaHostGetFlags(unsigned *flags, void *host)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    bool mapped = false;
    if (flags == NULL ||
        !smsim_program_lookup(rt.prog, (uint64_t)(uintptr_t)host, NULL, NULL, &mapped) || !mapped)
        return rt_fail(cudaErrorInvalidValue, "cudaHostGetFlags(%p): not host memory the "
                       "runtime allocated or registered", host);
    *flags = 2;
    return cudaSuccess;
}

/* One device, with no PCI location of its own: domain, bus and device 0. */
API cudaError_t
cudaDeviceGetPCIBusId(char *id, int len, int device)
{
    RT_GUARD;
    if (id == NULL || len <= 0 || device != 0)
        return rt_fail(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue, NULL);
    snprintf(id, (size_t)len, "0000:00:00.0");
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetByPCIBusId(int *device, const char *id)
{
    RT_GUARD;
    if (device == NULL || id == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *device = 0;
    return cudaSuccess;
}

/* A kernel's parameter i: its offset and size in the parameter space. */
API cudaError_t
cudaFuncGetParamInfo(const void *func, size_t i, size_t *offset, size_t *size)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    uint32_t offs[256], sizes[256];
    int n = rt_param_layout(func, offs, sizes, 256);
    if (n < 0)
        return rt.last;
    if (i >= (size_t)n)
        return rt_fail(cudaErrorInvalidValue, "cudaFuncGetParamInfo: the kernel has %d "
                       "parameters, not %zu", n, i + 1);
    if (offset != NULL)
        *offset = offs[i];
    if (size != NULL)
        *size = sizes[i];
    return cudaSuccess;
}

/* Blocks of func per SM at config's block size and dynamic shared memory,
 * and the SMs of a GPC (gpu.gpc_sms; the whole GPU if 0). */
static cudaError_t
config_occupancy(const void *func, const cudaLaunchConfig_t *config, int *per_sm, uint64_t *gpc)
{
    if (config == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    unsigned threads = config->blockDim.x * config->blockDim.y * config->blockDim.z;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, func, (int)threads,
                                                                  config->dynamicSmemBytes);
    *gpc = field_u64("gpu.gpc_sms");
    if (*gpc == 0 || *gpc > rt.gpu.sm_count)
        *gpc = rt.gpu.sm_count;
    return e;
}

/* Clusters of config's dimensions resident at once: per GPC (gpu.gpc_sms
 * consecutive SMs, the last GPC what is left), its SMs' blocks over the
 * cluster's, as the block scheduler places them (sim/sim.c). */
API cudaError_t
cudaOccupancyMaxActiveClusters(int *clusters, const void *func, const cudaLaunchConfig_t *config)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (clusters == NULL || config == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    uint64_t size = 1;
    for (unsigned i = 0; i < config->numAttrs; i++)
        if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
            size = (uint64_t)config->attrs[i].val.clusterDim.x * config->attrs[i].val.clusterDim.y *
                   config->attrs[i].val.clusterDim.z;
    int per_sm = 0;
    uint64_t gpc, sms = rt.gpu.sm_count, n = 0;
    cudaError_t e = config_occupancy(func, config, &per_sm, &gpc);
    if (e != cudaSuccess)
        return e;
    for (uint64_t first = 0; first < sms && size > 0; first += gpc) {
        uint64_t g = sms - first < gpc ? sms - first : gpc;
        n += g * (uint64_t)per_sm / size;
    }
    *clusters = (int)n;
    return cudaSuccess;
}

/* The largest cluster with one resident: the portable limit, 8 blocks, or
 * what one GPC holds if less. */
API cudaError_t
cudaOccupancyMaxPotentialClusterSize(int *size, const void *func, const cudaLaunchConfig_t *config)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (size == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    int per_sm = 0;
    uint64_t gpc;
    cudaError_t e = config_occupancy(func, config, &per_sm, &gpc);
    if (e != cudaSuccess)
        return e;
    uint64_t fit = gpc * (uint64_t)per_sm;
    *size = (int)(fit < 8 ? fit : 8);
    return cudaSuccess;
}
