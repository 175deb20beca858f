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
static size_t n_allocs, cap_allocs;

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

static cudaError_t
pool_malloc(void **p, size_t size, struct CUmemPoolHandle_st *pool, cudaStream_t s)
{
    if (rt_capturing(s))
        return rt_fail(cudaErrorNotSupported, "unsupported: a stream-ordered allocation in a "
                       "stream capture (memory allocation nodes)");
    if (pool == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    cudaError_t r = cudaMalloc(p, size);
    if (r != cudaSuccess)
        return r;
    if (n_allocs == cap_allocs) {
        size_t cap = cap_allocs ? 2 * cap_allocs : 64;
        struct pool_alloc *a = realloc(allocs, cap * sizeof *a);
        if (a == NULL)
            return rt_fail(cudaErrorMemoryAllocation, NULL);
        allocs = a;
        cap_allocs = cap;
    }
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

API cudaError_t
cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
    RT_GUARD;
    if (pool == NULL || device != 0)
        return rt_fail(pool == NULL ? cudaErrorInvalidValue : cudaErrorInvalidDevice, NULL);
    *pool = &default_pool;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceGetMemPool(cudaMemPool_t *pool, int device)
{
    RT_GUARD;
    if (pool == NULL || device != 0)
        return rt_fail(pool == NULL ? cudaErrorInvalidValue : cudaErrorInvalidDevice, NULL);
    *pool = current;
    return cudaSuccess;
}

API cudaError_t
cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
    RT_GUARD;
    if (pool == NULL || device != 0)
        return rt_fail(pool == NULL ? cudaErrorInvalidValue : cudaErrorInvalidDevice, NULL);
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
