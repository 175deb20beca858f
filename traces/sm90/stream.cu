// stream.cu - one thread streaming bulk copies: what a copy costs the
// SM's bulk-copy unit (per copy and per byte), loading and storing.
// Written for smsim (issue 30); measured on an H100 (README.md).
// PTX: nvcc -ptx -arch=sm_90a -O3 stream.cu
//
// bulk_load_stream: lane 0 of the block's one warp streams `chunks` copies
// of `chunk` bytes (this block's part of `in`) into a ring of `stages`
// shared slots, one mbarrier each; before it reuses a slot it waits for
// the copy that last filled it.  At the end the warp sums the words of
// every slot (out[block * 32 + lane]).
// bulk_store_stream: lane 0 stores `chunks` copies of `chunk` bytes from
// `stages` shared slots (filled with a pattern) to this block's part of
// `out`, one bulk group each, waiting (wait_group.read stages - 1) before
// it stores from a slot again, and for all of them at the end.
#include <cstdint>

__device__ __forceinline__ uint32_t sa(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void bulk_load_stream(const uint32_t *in, uint32_t *out, uint32_t chunk,
                                            uint32_t stages, uint32_t chunks)
{
    extern __shared__ __align__(128) uint8_t smem[];
    uint64_t *bar = (uint64_t *)smem;                  // [stages], at most 16
    uint8_t *buf = smem + 128;
    const uint8_t *src = (const uint8_t *)in + (size_t)blockIdx.x * chunks * chunk;
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < stages; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&bar[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (uint32_t i = 0; i < chunks; i++) {
            uint32_t s = i % stages, round = i / stages;
            if (round > 0)                             // the copy that last filled slot s has landed
                asm volatile("{ .reg .pred p;\n"
                             "W_%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                             "@!p bra W_%=; }" ::"r"(sa(&bar[s])), "r"((round - 1) & 1) : "memory");
            asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }"
                         ::"r"(sa(&bar[s])), "r"(chunk) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(sa(buf + (size_t)s * chunk)), "l"(src + (size_t)i * chunk), "r"(chunk),
                           "r"(sa(&bar[s])) : "memory");
        }
        for (uint32_t i = chunks > stages ? chunks - stages : 0; i < chunks; i++) {
            uint32_t s = i % stages, round = i / stages;
            asm volatile("{ .reg .pred p;\n"
                         "V_%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                         "@!p bra V_%=; }" ::"r"(sa(&bar[s])), "r"(round & 1) : "memory");
        }
    }
    __syncwarp();
    uint32_t sum = 0;
    const uint32_t *w = (const uint32_t *)buf;
    for (uint32_t k = threadIdx.x; k < stages * chunk / 4; k += 32)
        sum += w[k];
    out[blockIdx.x * 32 + threadIdx.x] = sum;
}

extern "C" __global__ void bulk_store_stream(uint32_t *out, uint32_t chunk, uint32_t stages,
                                             uint32_t chunks)
{
    extern __shared__ __align__(128) uint8_t smem[];
    uint32_t *w = (uint32_t *)smem;
    for (uint32_t k = threadIdx.x; k < stages * chunk / 4; k += 32)
        w[k] = k * 2654435761u + blockIdx.x;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    uint8_t *dst = (uint8_t *)out + (size_t)blockIdx.x * chunks * chunk;
    if (threadIdx.x == 0) {
        for (uint32_t i = 0; i < chunks; i++) {
            uint32_t s = i % stages;
            if (i >= stages)
                asm volatile("cp.async.bulk.wait_group.read 3;" ::: "memory");   // stages = 4
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                         ::"l"(dst + (size_t)i * chunk), "r"(sa(smem + (size_t)s * chunk)), "r"(chunk)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
