// bulk.cu - Hopper bulk copies (cp.async.bulk) and mbarriers, as a
// producer/consumer pipeline, a bulk memcpy and an mbarrier block barrier.
// Written for smsim (issue 30); measured on an H100 (README.md).
// PTX: nvcc -ptx -arch=sm_90a -O3 bulk.cu
//
// Every kernel computes something checkable and order-deterministic: the
// pipeline's per-thread sums are taken in a fixed order, the memcpy copies
// bytes, the barrier loop exchanges values through shared memory.
#include <cstdint>

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }"
                 ::"r"(bar), "r"(bytes) : "memory");
}
// Wait until the phase with the given parity has completed (try_wait suspends a while each try).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    asm volatile("{ .reg .pred done;\n"
                 "WAIT_%=: mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT_%=; }" ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void bulk_g2s(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
__device__ __forceinline__ void bulk_s2g(void *dst, uint32_t src, uint32_t bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 ::"l"(dst), "r"(src), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ bool elect_one()
{
    uint32_t pred;
    asm volatile("{ .reg .pred p; .reg .b32 lane;\n"
                 "elect.sync lane|p, 0xffffffff;\n"
                 "selp.u32 %0, 1, 0, p; }" : "=r"(pred));
    return pred != 0;
}

// Producer/consumer pipeline.  Warp 0 is the producer: one elected lane
// streams `chunks` chunks of `chunk` bytes (this block's part of `in`) into
// a ring of `stages` shared buffers with bulk copies, each completing the
// transaction count of its stage's `full` barrier.  Warps 1..C consume:
// wait for `full`, each thread adds `work` FMAs' worth of its share of the
// chunk into its own sum, and each warp's lane 0 arrives on the stage's
// `empty` barrier (count C) so the producer may refill it.  out[block *
// (C * 32) + consumer thread] = the thread's sum.
extern "C" __global__ void bulk_pipe(const float *in, float *out, uint32_t chunk, uint32_t stages,
                                     uint32_t chunks, int work)
{
    extern __shared__ __align__(128) uint8_t smem[];
    uint64_t *full = (uint64_t *)smem;                 // [stages]
    uint64_t *empty = full + stages;                   // [stages]
    uint8_t *buf = smem + 128;                         // [stages][chunk]
    const uint32_t consumers = blockDim.x / 32 - 1;
    const uint32_t warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < stages; s++) {
            mbar_init(smem_addr(&full[s]), 1);
            mbar_init(smem_addr(&empty[s]), consumers);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const uint8_t *src = (const uint8_t *)in + (size_t)blockIdx.x * chunks * chunk;
    if (warp == 0) {
        if (elect_one()) {
            for (uint32_t i = 0; i < chunks; i++) {
                uint32_t s = i % stages, round = i / stages;
                mbar_wait(smem_addr(&empty[s]), (round & 1) ^ 1);   // a fresh barrier's preceding phase counts as complete
                mbar_arrive_tx(smem_addr(&full[s]), chunk);
                bulk_g2s(smem_addr(buf + (size_t)s * chunk), src + (size_t)i * chunk, chunk,
                         smem_addr(&full[s]));
            }
        }
        return;
    }
    const uint32_t t = threadIdx.x - 32;               // consumer thread 0 .. 32C - 1
    const uint32_t nthr = consumers * 32;
    const uint32_t nflt = chunk / 4;
    float acc = 0.0f;
    for (uint32_t i = 0; i < chunks; i++) {
        uint32_t s = i % stages, round = i / stages;
        mbar_wait(smem_addr(&full[s]), round & 1);
        const float *f = (const float *)(buf + (size_t)s * chunk);
        for (uint32_t k = t; k < nflt; k += nthr) {
            float x = f[k];
            for (int w = 0; w < work; w++)
                x = fmaf(x, 0.999f, 0.001f);
            acc += x;
        }
        __syncwarp();
        if ((threadIdx.x & 31) == 0)
            mbar_arrive(smem_addr(&empty[s]));
    }
    out[(size_t)blockIdx.x * nthr + t] = acc;
}

// Bulk memcpy: one thread per block moves `chunks` chunks of `chunk` bytes
// from in to out through two shared buffers: a bulk load
// completing a stage's mbarrier, then a bulk store of the same buffer
// (bulk_group), waiting for a store's reads before its buffer is refilled.
extern "C" __global__ void bulk_copy(const uint8_t *in, uint8_t *out, uint32_t chunk, uint32_t chunks)
{
    extern __shared__ __align__(128) uint8_t smem[];
    uint64_t *full = (uint64_t *)smem;
    uint8_t *buf = smem + 128;
    const uint32_t stages = 2;
    if (threadIdx.x != 0)
        return;
    for (uint32_t s = 0; s < stages; s++)
        mbar_init(smem_addr(&full[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    size_t base = (size_t)blockIdx.x * chunks * chunk;
    for (uint32_t i = 0; i < chunks; i++) {
        uint32_t s = i % stages, round = i / stages;
        if (i >= stages)   // the store that last read this buffer has read it
            asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(1) : "memory");
        mbar_arrive_tx(smem_addr(&full[s]), chunk);
        bulk_g2s(smem_addr(buf + (size_t)s * chunk), in + base + (size_t)i * chunk, chunk,
                 smem_addr(&full[s]));
        mbar_wait(smem_addr(&full[s]), round & 1);
        bulk_s2g(out + base + (size_t)i * chunk, smem_addr(buf + (size_t)s * chunk), chunk);
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// An mbarrier as a block barrier: `steps` times, every thread writes a
// value to shared memory, arrives on the barrier (count = all threads) and
// waits for the phase, then reads its neighbour's value.  out[thread] = the
// thread's final value.
extern "C" __global__ void mbar_ring(uint32_t *out, int steps)
{
    __shared__ uint32_t val[1024];
    __shared__ __align__(8) uint64_t bar[2];
    const uint32_t n = blockDim.x, t = threadIdx.x;
    if (t == 0) {
        mbar_init(smem_addr(&bar[0]), n);
        mbar_init(smem_addr(&bar[1]), n);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    uint32_t v = t * 2654435761u;
    for (int i = 0; i < steps; i++) {
        val[t] = v;
        mbar_arrive(smem_addr(&bar[0]));               // every write of this step ...
        mbar_wait(smem_addr(&bar[0]), i & 1);
        v = v * 3u + val[(t + 1) % n];
        mbar_arrive(smem_addr(&bar[1]));               // ... every read before the next write
        mbar_wait(smem_addr(&bar[1]), i & 1);
    }
    out[blockIdx.x * n + t] = v;
}
