// ubench.cu - the micro-benchmarks of the published papers, for every config.
//
// PTX: nvcc -ptx -arch=sm_75 ubench.cu
// regs: nvcc -arch=sm_75 -cubin -Xptxas -v -o /dev/null ubench.cu
//
// scripts/published.py (`make validate`, section "Published micro-benchmark
// figures") writes a launch file per config and kernel (sizes follow the
// config: one block per SM, footprints from its L1 and L2), runs it with
// `smsim run` and sets the figure next to what the papers measured on that
// GPU (validation/published.tsv).  The kernels measure the way the papers
// do (Jia et al. 2018/2019, Mei & Chu 2016, Abdelkhalik et al. 2022, Luo et
// al. 2024): clock64() around an unrolled dependent chain, so the figure
// is cycles per step of the chain with no loop or address arithmetic on
// the critical path.
//
// Dependent chains (one warp, <<<1, 32>>>): lat_<op> runs `iters` x 256
// dependent operations; latency = clk[0] / (iters * 256).  The chain is
// inline PTX, one instruction per step, so every lowering sees exactly the
// instruction the paper timed:
//   lat_fadd   add.f32            lat_iadd   add.s32
//   lat_fmul   mul.f32            lat_imad   mad.lo.s32
//   lat_ffma   fma.rn.f32         lat_dfma   fma.rn.f64
//   lat_hfma2  fma.rn.f16x2       lat_mufu   rsqrt.approx.ftz.f32 (MUFU.RSQ)
//   lat_shfl   shfl.sync.bfly.b32
//
// Pointer chases (one thread): each load's address is the value the
// previous load returned.
//   chase_smem_ptr  shared memory: the ring of `a` (indices, the launch
//                   file's `chase` initialiser) is rewritten as shared byte
//                   addresses, then chased with ld.shared.u32 [r].
//   chase_l1_ptr    L1: the ring is rewritten as 64-bit global addresses in
//                   `p`, chased once untimed (fills L1), then `steps` timed
//                   ld.global.ca [r].  (The L2 and DRAM chases are
//                   latency.cu's chase_l2 and chase_dram, whose one address
//                   multiply is small beside 200-700 cycles.)
//
// Throughput (one block of 1024 threads per SM): the block's clock64()
// span, atomically maxed into clk[0]; bytes / (clk[0]) is bytes per clock
// per SM, as the papers report it.
//   bw_smem    `iters` x 32 dependent 4-byte shared loads per thread, each
//              thread chasing its own ring (consecutive words across the
//              warp: conflict-free), as Accel-Sim's shared_bw.
//   bw_l1      `iters` x 4 float4 loads per thread from a 16 KB buffer
//              (ld.global.ca; the untimed first pass fills L1).
// bw_l2 (a grid of several blocks per SM): `iters` passes of float4
// ld.global.cg loads over a buffer that fits L2 (the launch runs twice;
// the first fills L2): bytes read / kernel time, in GB/s.  DRAM bandwidth
// is copy_bw.cu's copy_f4_u4 over buffers larger than L2 (read + write
// bytes / time, as STREAM's copy counts them).

#include <cuda_fp16.h>

#define CHAIN256(stmt) \
    _Pragma("unroll") for (int u = 0; u < 256; u++) { stmt; }

#define LAT_KERNEL(name, T, init, stmt)                                          \
    extern "C" __global__ void name(T a, T b, T *out, unsigned long long *clk,   \
                                    int iters)                                   \
    {                                                                            \
        T x = init;                                                              \
        long long t0 = clock64();                                                \
        _Pragma("unroll 1") for (int k = 0; k < iters; k++) { CHAIN256(stmt) }   \
        long long t1 = clock64();                                                \
        out[threadIdx.x] = x;                                                    \
        if (threadIdx.x == 0)                                                    \
            clk[0] = (unsigned long long)(t1 - t0);                              \
    }

LAT_KERNEL(lat_fadd, float, a * threadIdx.x,
           asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(b)))
LAT_KERNEL(lat_fmul, float, a * threadIdx.x,
           asm volatile("mul.f32 %0, %0, %1;" : "+f"(x) : "f"(b)))
LAT_KERNEL(lat_ffma, float, a * threadIdx.x,
           asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(b), "f"(a)))
LAT_KERNEL(lat_iadd, unsigned, a * threadIdx.x,
           asm volatile("add.s32 %0, %0, %1;" : "+r"(x) : "r"(b)))
LAT_KERNEL(lat_imad, unsigned, a * threadIdx.x,
           asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x) : "r"(b), "r"(a)))
LAT_KERNEL(lat_dfma, double, a * threadIdx.x,
           asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(b), "d"(a)))
LAT_KERNEL(lat_hfma2, unsigned, a ^ threadIdx.x,
           asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(b), "r"(a)))
LAT_KERNEL(lat_mufu, float, a + threadIdx.x,
           asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x)))
LAT_KERNEL(lat_shfl, unsigned, a + threadIdx.x,
           asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 31, -1;" : "+r"(x)))

extern "C" __global__ void chase_smem_ptr(const unsigned *a, unsigned n, unsigned *res,
                                          unsigned long long *clk, int steps)
{
    __shared__ unsigned s[2048];                 // 8 KB
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (unsigned i = threadIdx.x; i < n && i < 2048; i += blockDim.x)
        s[i] = base + 4 * a[i];
    __syncthreads();

    unsigned p = base;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < steps; k += 16) {
#pragma unroll
        for (int u = 0; u < 16; u++)
            asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    }
    long long t1 = clock64();

    res[0] = p - base;
    clk[0] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void chase_l1_ptr(const unsigned *a, unsigned long long *p, unsigned n,
                                        unsigned stride, unsigned *res,
                                        unsigned long long *clk, int steps)
{
    // Untimed: the ring as addresses (only its nodes are written), then
    // one pass over it, which brings every node's line into L1.
    for (unsigned i = 0; i < n; i += stride)
        p[i] = (unsigned long long)&p[a[i]];
    unsigned long long q = (unsigned long long)p;
#pragma unroll 1
    for (unsigned i = 0; i < n; i += stride)
        asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(q));

    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < steps; k += 16) {
#pragma unroll
        for (int u = 0; u < 16; u++)
            asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(q));
    }
    long long t1 = clock64();

    res[0] = (unsigned)((q - (unsigned long long)p) / 8);
    clk[0] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void bw_smem(unsigned *out, unsigned long long *clk, int iters)
{
    // 8192 words (32 KB), word i holding the shared address of word
    // (i + blockDim.x) mod 8192: every thread chases its own ring, a warp's
    // 32 loads are 32 consecutive words (no bank conflict), and with 32
    // warps in flight the SM's shared-memory pipe, not the latency, bounds
    // the rate (Accel-Sim's shared_bw does the same with indices).
    __shared__ unsigned s[8192];
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (unsigned i = threadIdx.x; i < 8192; i += blockDim.x)
        s[i] = base + 4 * ((i + blockDim.x) % 8192);
    unsigned p = base + 4 * threadIdx.x;
    __syncthreads();
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; k++) {
#pragma unroll
        for (int u = 0; u < 32; u++)
            asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    }
    __syncthreads();
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = p - base;
    if (threadIdx.x == 0)
        atomicMax(clk, (unsigned long long)(t1 - t0));
}

// One float4 load through L1 (ld.global.ca, what -dlcm=ca makes of a load).
__device__ __forceinline__ float4 ld_ca4(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.ca.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
}

extern "C" __global__ void bw_l1(const float4 *buf, float *out, unsigned long long *clk, int iters)
{
    // 1024 float4 = 16 KB; thread t reads elements t, t + 256, ... (4 per
    // pass; every warp touches whole 512-byte stretches).
    float acc = 0.0f;
    const float4 *b = buf + (threadIdx.x & 255);
#pragma unroll
    for (int u = 0; u < 4; u++) {                // untimed: fills L1
        float4 v = ld_ca4(b + 256 * u);
        acc += v.x + v.y + v.z + v.w;
    }
    __syncthreads();
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; k++) {
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc += ld_ca4(b + 256 * u).x;
    }
    __syncthreads();
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0)
        atomicMax(clk, (unsigned long long)(t1 - t0));
}

extern "C" __global__ void bw_l2(const float4 *buf, unsigned n, float *out, int iters)
{
    // n float4 (a multiple of the grid's thread count); each pass reads all
    // of them, thread i elements i, i + T, ... (T threads in the grid).
    unsigned T = gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < iters; k++) {
#pragma unroll 4
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T) {
            float4 v;
            asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(buf + i));
            acc += v.x;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
