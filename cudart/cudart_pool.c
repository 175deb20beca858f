/*
 * cudart_pool.c - stream-ordered memory pools (cudaMemPool_t): the
 * device's default pool, pools of the program's own, their attributes and
 * usage counters, and allocations from them (cudaMallocFromPoolAsync;
 * cudaMallocAsync takes the device's current pool).
 *
 * Work runs when it is issued (cudart.h), so a stream-ordered allocation
 * is an allocation at once and its free a free at once: a pool keeps no
 * memory of its own, its reserved memory is what it has handed out, and
 * the release threshold and reuse policies are accepted and kept (read
 * back by cudaMemPoolGetAttribute) without effect on the simulation.
 * Graph memory (allocation and free nodes, and stream-ordered allocation
 * captured into a graph) is kept here too: see cudart.h.
 */
#include "cudart/cudart.h"

#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* enum cudaMemPoolAttr */
enum { PA_REUSE_FOLLOW = 1, PA_REUSE_OPPORTUNISTIC = 2, PA_REUSE_INTERNAL = 3,
       PA_RELEASE_THRESHOLD = 4, PA_RESERVED_CURRENT = 5, PA_RESERVED_HIGH = 6,
       PA_USED_CURRENT = 7, PA_USED_HIGH = 8 };

struct CUmemPoolHandle_st {
    int reuse[3];                /* the three reuse policies (1: allowed, the default) */
    uint64_t threshold;          /* cudaMemPoolAttrReleaseThreshold */
    uint64_t used, high;         /* bytes handed out now, and at most */
};

/* An allocation from a pool, until it is freed. */
struct pool_alloc {
    uint64_t addr, bytes;
    struct CUmemPoolHandle_st *pool;
};

static struct CUmemPoolHandle_st default_pool = { { 1, 1, 1 }, 0, 0, 0 };
static struct CUmemPoolHandle_st *current = &default_pool;
static struct pool_alloc *allocs;
static uint32_t n_allocs, cap_allocs;

void
rt_pool_release(const void *p)
{
    uint64_t a = (uint64_t)(uintptr_t)p;
    for (size_t i = 0; i < n_allocs; i++)
        if (allocs[i].addr == a) {
            allocs[i].pool->used -= allocs[i].bytes;
            allocs[i] = allocs[--n_allocs];
            return;
        }
}

/* The graphs' allocations (cudart.h), and their totals: live now, live
 * at most, reserved (every graph allocation is), reserved at most. */
struct graph_alloc {
    uint64_t addr, bytes;
    bool live;
};
static struct graph_alloc *gallocs;
static uint32_t n_gallocs, cap_gallocs;
static uint64_t g_used, g_high, g_reserved, g_reserved_high;

static struct graph_alloc *
graph_alloc_of(const void *p)
{
    for (size_t i = 0; i < n_gallocs; i++)
        if (gallocs[i].addr == (uint64_t)(uintptr_t)p)
            return &gallocs[i];
    return NULL;
}

bool
rt_graph_mem_owns(const void *p)
{
    return p != NULL && graph_alloc_of(p) != NULL;
}

/* The bytes reserved at graph allocation p (0: none). */
size_t
rt_graph_mem_bytes(const void *p)
{
    const struct graph_alloc *a = p != NULL ? graph_alloc_of(p) : NULL;
    return a != NULL ? (size_t)a->bytes : 0;
}

cudaError_t
rt_graph_mem_reserve(size_t bytes, void **dptr)
{
    gallocs = rt_grow(gallocs, &cap_gallocs, n_gallocs + 1, sizeof *gallocs);
    cudaError_t r = cudaMalloc(dptr, bytes);
    if (r != cudaSuccess)
        return r;
    gallocs[n_gallocs++] = (struct graph_alloc){ (uint64_t)(uintptr_t)*dptr, bytes, false };
    g_reserved += bytes;
    if (g_reserved > g_reserved_high)
        g_reserved_high = g_reserved;
    return cudaSuccess;
}

cudaError_t
rt_graph_mem_alloc(const void *p)
{
    struct graph_alloc *a = graph_alloc_of(p);
    if (a == NULL || a->live)
        return rt_fail(cudaErrorInvalidValue, "a graph's allocation node at %p runs while its "
                       "memory is still allocated (free it before launching the graph again)", p);
    a->live = true;
    g_used += a->bytes;
    if (g_used > g_high)
        g_high = g_used;
    return cudaSuccess;
}

cudaError_t
rt_graph_mem_free(const void *p)
{
    struct graph_alloc *a = graph_alloc_of(p);
    if (a == NULL || !a->live)
        return rt_fail(cudaErrorInvalidValue, "a free of a graph's allocation at %p that is not "
                       "allocated (its graph has not run, or it was freed already)", p);
    a->live = false;
    g_used -= a->bytes;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGraphMemTrim(int device)
{
    RT_GUARD;
    return device != 0 ? rt_fail(cudaErrorInvalidDevice, NULL) : cudaSuccess;
}

/* enum cudaGraphMemAttributeType: used now, used at most, reserved now,
 * reserved at most (the "at most" ones may be reset to 0). */
API cudaError_t
cudaDeviceGetGraphMemAttribute(int device, int attr, void *value)
{
    RT_GUARD;
    if (device != 0 || value == NULL || attr < 0 || attr > 3)
        return rt_fail(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue, NULL);
    uint64_t v = attr == 0 ? g_used : attr == 1 ? g_high : attr == 2 ? g_reserved
                                                                     : g_reserved_high;
    memcpy(value, &v, sizeof v);
    return cudaSuccess;
}

API cudaError_t
cudaDeviceSetGraphMemAttribute(int device, int attr, void *value)
{
    RT_GUARD;
    uint64_t v = 1;
    if (value != NULL)
        memcpy(&v, value, sizeof v);
    if (device != 0 || (attr != 1 && attr != 3) || v != 0)
        return rt_fail(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue, NULL);
    if (attr == 1)
        g_high = g_used;
    else
        g_reserved_high = g_reserved;
    return cudaSuccess;
}

static cudaError_t
pool_malloc(void **p, size_t size, struct CUmemPoolHandle_st *pool, cudaStream_t s)
{
    if (rt_capturing(s))
        return rt_capture_alloc(s, size, p);
    if (pool == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    cudaError_t r = cudaMalloc(p, size);
    if (r != cudaSuccess)
        return r;
    allocs = rt_grow(allocs, &cap_allocs, n_allocs + 1, sizeof *allocs);
    allocs[n_allocs++] = (struct pool_alloc){ (uint64_t)(uintptr_t)*p, size, pool };
    pool->used += size;
    if (pool->used > pool->high)
        pool->high = pool->used;
    return cudaSuccess;
}

API cudaError_t
cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
    RT_GUARD;
    return pool_malloc(devPtr, size, current, stream);
}

API cudaError_t
cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream)
{
    RT_GUARD;
    return pool_malloc(ptr, size, pool, stream);
}

/* The device-pool calls' arguments: a pool (or where to put one) and device 0. */
static cudaError_t
pool_device(const void *pool, int device)
{
    if (pool == NULL || device != 0)
        return rt_fail(pool == NULL ? cudaErrorInvalidValue : cudaErrorInvalidDevice, NULL);
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
    RT_GUARD;
    cudaError_t e = pool_device(pool, device);
    if (e != cudaSuccess)
        return e;
    *pool = &default_pool;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetMemPool(cudaMemPool_t *pool, int device)
{
    RT_GUARD;
    cudaError_t e = pool_device(pool, device);
    if (e != cudaSuccess)
        return e;
    *pool = current;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
    RT_GUARD;
    cudaError_t e = pool_device(pool, device);
    if (e != cudaSuccess)
        return e;
    current = pool;
    return cudaSuccess;
}

/* Pools of the program's own: the properties (pinned device memory of
 * device 0) are not read beyond their presence. */
API cudaError_t
cudaMemPoolCreate(cudaMemPool_t *pool, const void *props)
{
    RT_GUARD;
    if (pool == NULL || props == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    if (p == NULL)
        return rt_fail(cudaErrorMemoryAllocation, NULL);
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    *pool = p;
    return cudaSuccess;
}

API cudaError_t
cudaMemPoolDestroy(cudaMemPool_t pool)
{
    RT_GUARD;
    if (pool == NULL || pool == &default_pool)
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (current == pool)
        current = &default_pool;
    for (size_t i = 0; i < n_allocs; i++)   /* its allocations live on until freed */
        if (allocs[i].pool == pool)
            allocs[i].pool = &default_pool;
    free(pool);
    return cudaSuccess;
}

API cudaError_t
cudaMemPoolSetAttribute(cudaMemPool_t pool, int attr, void *value)
{
    RT_GUARD;
    if (pool == NULL || value == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    switch (attr) {
    case PA_REUSE_FOLLOW: case PA_REUSE_OPPORTUNISTIC: case PA_REUSE_INTERNAL:
        memcpy(&pool->reuse[attr - PA_REUSE_FOLLOW], value, sizeof(int));
        return cudaSuccess;
    case PA_RELEASE_THRESHOLD:
        memcpy(&pool->threshold, value, sizeof pool->threshold);
        return cudaSuccess;
    case PA_RESERVED_HIGH: case PA_USED_HIGH: {   /* only a reset to 0 is allowed */
        uint64_t v;
        memcpy(&v, value, sizeof v);
        if (v != 0)
            return rt_fail(cudaErrorInvalidValue, NULL);
        pool->high = pool->used;
        return cudaSuccess;
    }
    default:
        return rt_fail(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: attribute %d cannot be "
                       "set", attr);
    }
}

API cudaError_t
cudaMemPoolGetAttribute(cudaMemPool_t pool, int attr, void *value)
{
    RT_GUARD;
    if (pool == NULL || value == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    uint64_t v;
    switch (attr) {
    case PA_REUSE_FOLLOW: case PA_REUSE_OPPORTUNISTIC: case PA_REUSE_INTERNAL:
        memcpy(value, &pool->reuse[attr - PA_REUSE_FOLLOW], sizeof(int));
        return cudaSuccess;
    case PA_RELEASE_THRESHOLD: v = pool->threshold; break;
    case PA_RESERVED_CURRENT: case PA_USED_CURRENT: v = pool->used; break;
    case PA_RESERVED_HIGH: case PA_USED_HIGH: v = pool->high; break;
    default:
        return rt_fail(cudaErrorInvalidValue, "cudaMemPoolGetAttribute: unknown attribute %d",
                       attr);
    }
    memcpy(value, &v, sizeof v);
    return cudaSuccess;
}

/* Nothing is kept beyond what is in use: there is nothing to trim. */
API cudaError_t
cudaMemPoolTrimTo(cudaMemPool_t pool, size_t minBytesToKeep)
{
    RT_GUARD;
    (void)minBytesToKeep;
    return pool == NULL ? rt_fail(cudaErrorInvalidValue, NULL) : cudaSuccess;
}

/* One device: its own pool is accessible to it (read and write). */
API cudaError_t
cudaMemPoolSetAccess(cudaMemPool_t pool, const void *descList, size_t count)
{
    RT_GUARD;
    (void)descList, (void)count;
    return pool == NULL ? rt_fail(cudaErrorInvalidValue, NULL) : cudaSuccess;
}

API cudaError_t
cudaMemPoolGetAccess(int *flags, cudaMemPool_t pool, void *location)
{
    RT_GUARD;
    (void)location;
    if (flags == NULL || pool == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *flags = 3;                  /* cudaMemAccessFlagsProtReadWrite */
    return cudaSuccess;
}
