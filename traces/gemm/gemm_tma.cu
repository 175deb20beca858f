// gemm_tma.cu - seed 002's "CuTe WGMMA TMA 128x128" GEMM, written anew for
// smsim (traces/gemm/README.md): C (M x N, row-major, f32) = A (M x K,
// row-major) . B^T (B: N x K, row-major), TF32 tensor cores.
//
// A block computes a 128 x 128 tile of C with 3 warpgroups: warpgroup 0's
// first thread is the producer, loading 128 x 32 tiles of A and B with TMA
// (cp.async.bulk.tensor.2d, 128-byte swizzle) into a 3-stage ring of
// shared-memory slots, each with a "full" mbarrier (the copies' bytes) and
// an "empty" one (the consumers are done with it); warpgroups 1 and 2 are
// the consumers, each computing 64 rows x 128 columns with wgmma
// m64n128k8 .tf32 (4 per 32-wide k-tile, the descriptors' start address
// advanced 32 bytes a step), then storing their accumulators to C.
//
// gemm_tma_wide ("CuTe WGMMA TMA 128x256"): a 128 x 256 tile with 512
// threads, four warpgroups each computing a 64 x 128 quarter (2 x 2); the
// first thread also loads the tiles (B's 256 x 32 as two 128-row boxes),
// STAGES - 1 k-tiles ahead of the one being multiplied.
//
// gemm_ws ("CUTLASS WS GEMM"): warp-specialised and persistent: a grid of
// at most one block per SM walks the 128 x 128 tiles of C (grouped by 8
// tile rows, as gemm_wgmma_pipe_swz); warpgroup 0 gives up registers
// (setmaxnreg.dec 40) and its first thread streams every tile's k-tiles
// through the ring without pausing between tiles; warpgroups 1 and 2 take
// registers (setmaxnreg.inc 232), multiply and store each tile.
#include <cuda.h>
#include <cstdint>

#define BM 128
#define BN 128
#define BK 32
#define STAGES 3
#define TILE_BYTES (BM * BK * 4)

struct __align__(1024) Smem {
    float a[STAGES][BM * BK];
    float b[STAGES][BN * BK];
    uint64_t full[STAGES];
    uint64_t empty[STAGES];
};

__device__ __forceinline__ uint32_t sa(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// K-major, 128-byte swizzle: rows 128 bytes apart, 8-row groups 1024 apart
__device__ __forceinline__ uint64_t desc(const void *p)
{
    return (uint64_t)((sa(p) & 0x3ffff) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 |
           (uint64_t)1 << 62;
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n\t.reg .pred p;\n"
                 "W%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "\t@!p bra W%=;\n\t}" :: "r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ void wgmma_tf32(float (&d)[64], uint64_t da, uint64_t db)
{
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n\t}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
          "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db));
}

extern "C" __global__ void __launch_bounds__(384)
gemm_tma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
         float *C, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    Smem &s = *reinterpret_cast<Smem *>(raw);
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, ktiles = K / BK;
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&s.full[i])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(sa(&s.empty[i])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();
    if (wg == 0) {                       // the producer
        if (tid == 0)
            for (int kt = 0; kt < ktiles; kt++) {
                int st = kt % STAGES;
                if (kt >= STAGES)        // wait until the consumers freed the slot
                    mbar_wait(sa(&s.empty[st]), ((kt / STAGES) - 1) & 1);
                uint32_t fb = sa(&s.full[st]);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                             :: "r"(fb), "r"(2 * TILE_BYTES) : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                             "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                             :: "r"(sa(s.a[st])), "l"(&tmA), "r"(kt * BK), "r"(m0), "r"(fb)
                             : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                             "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                             :: "r"(sa(s.b[st])), "l"(&tmB), "r"(kt * BK), "r"(n0), "r"(fb)
                             : "memory");
            }
        return;
    }
    float d[64];
    for (int i = 0; i < 64; i++)
        d[i] = 0.f;
    const int half = wg - 1;             // rows 64 half .. of the tile
    for (int kt = 0; kt < ktiles; kt++) {
        int st = kt % STAGES;
        mbar_wait(sa(&s.full[st]), (kt / STAGES) & 1);
        uint64_t da = desc(&s.a[st][half * 64 * BK]), db = desc(s.b[st]);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < BK / 8; kk++)
            wgmma_tf32(d, da + 2 * kk, db + 2 * kk);   // +32 bytes: 8 tf32 further along K
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (tid == 0)                    // this warpgroup is done with the slot
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(&s.empty[st]))
                         : "memory");
    }
    // the accumulators (PTX ISA: wgmma D fragment, m64nNk8 f32)
    const int w = tid / 32, l = tid % 32;
    for (int i = 0; i < 64; i++) {
        int r = m0 + half * 64 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        int c = n0 + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
        if (r < M && c < N)
            C[(size_t)r * N + c] = d[i];
    }
}

#define BN2 256
#define TILE2_BYTES (BM * BK * 4 + BN2 * BK * 4)

struct __align__(1024) Smem2 {
    float a[STAGES][BM * BK];
    float b[STAGES][BN2 * BK];
    uint64_t full[STAGES];
    uint64_t empty[STAGES];
};

__device__ __forceinline__ void load_stage(Smem2 &s, const CUtensorMap *tmA,
                                           const CUtensorMap *tmB, int kt, int m0, int n0)
{
    int st = kt % STAGES;
    if (kt >= STAGES)                    // the four warpgroups are done with the slot
        mbar_wait(sa(&s.empty[st]), ((kt / STAGES) - 1) & 1);
    uint32_t fb = sa(&s.full[st]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(fb), "r"(TILE2_BYTES) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                 "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sa(s.a[st])), "l"(tmA), "r"(kt * BK), "r"(m0), "r"(fb) : "memory");
    for (int h = 0; h < 2; h++)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                     "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(sa(&s.b[st][h * 128 * BK])), "l"(tmB), "r"(kt * BK),
                        "r"(n0 + 128 * h), "r"(fb) : "memory");
}

extern "C" __global__ void __launch_bounds__(512)
gemm_tma_wide(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
             float *C, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    Smem2 &s = *reinterpret_cast<Smem2 *>(raw);
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN2, ktiles = K / BK;
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&s.full[i])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" :: "r"(sa(&s.empty[i])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;");
        for (int kt = 0; kt < STAGES - 1 && kt < ktiles; kt++)
            load_stage(s, &tmA, &tmB, kt, m0, n0);
    }
    __syncthreads();
    float d[64];
    for (int i = 0; i < 64; i++)
        d[i] = 0.f;
    const int mq = wg % 2, nq = wg / 2;  // this warpgroup's quarter: rows 64 mq, columns 128 nq
    for (int kt = 0; kt < ktiles; kt++) {
        if (threadIdx.x == 0 && kt + STAGES - 1 < ktiles)
            load_stage(s, &tmA, &tmB, kt + STAGES - 1, m0, n0);
        int st = kt % STAGES;
        mbar_wait(sa(&s.full[st]), (kt / STAGES) & 1);
        uint64_t da = desc(&s.a[st][mq * 64 * BK]), db = desc(&s.b[st][nq * 128 * BK]);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < BK / 8; kk++)
            wgmma_tf32(d, da + 2 * kk, db + 2 * kk);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (tid == 0)
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(&s.empty[st]))
                         : "memory");
    }
    const int w = tid / 32, l = tid % 32;
    for (int i = 0; i < 64; i++) {
        int r = m0 + mq * 64 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        int c = n0 + nq * 128 + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
        if (r < M && c < N)
            C[(size_t)r * N + c] = d[i];
    }
}

// the tile of C that block-loop step t covers: grouped order (8 tile rows)
__device__ __forceinline__ void ws_tile(int t, int M, int N, int *m0, int *n0)
{
    const int tiles_m = M / BM, tiles_n = N / BN, G = 8;
    const int first = t / (G * tiles_n) * G, rows = min(tiles_m - first, G);
    *m0 = (first + t % rows) * BM;
    *n0 = (t % (G * tiles_n)) / rows * BN;
}

extern "C" __global__ void __launch_bounds__(384)
gemm_ws(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
        float *C, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    Smem &s = *reinterpret_cast<Smem *>(raw);
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int ktiles = K / BK, tiles = (M / BM) * (N / BN);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&s.full[i])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(sa(&s.empty[i])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();
    if (wg == 0) {                       // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (tid == 0) {
            int it = 0;
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                int m0, n0;
                ws_tile(t, M, N, &m0, &n0);
                for (int kt = 0; kt < ktiles; kt++, it++) {
                    int st = it % STAGES;
                    if (it >= STAGES)
                        mbar_wait(sa(&s.empty[st]), ((it / STAGES) - 1) & 1);
                    uint32_t fb = sa(&s.full[st]);
                    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                                 :: "r"(fb), "r"(2 * TILE_BYTES) : "memory");
                    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                                 "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                                 :: "r"(sa(s.a[st])), "l"(&tmA), "r"(kt * BK), "r"(m0), "r"(fb)
                                 : "memory");
                    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                                 "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                                 :: "r"(sa(s.b[st])), "l"(&tmB), "r"(kt * BK), "r"(n0), "r"(fb)
                                 : "memory");
                }
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int half = wg - 1, w = tid / 32, l = tid % 32;
    int it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int m0, n0;
        ws_tile(t, M, N, &m0, &n0);
        float d[64];
        for (int i = 0; i < 64; i++)
            d[i] = 0.f;
        for (int kt = 0; kt < ktiles; kt++, it++) {
            int st = it % STAGES;
            mbar_wait(sa(&s.full[st]), (it / STAGES) & 1);
            uint64_t da = desc(&s.a[st][half * 64 * BK]), db = desc(s.b[st]);
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
            for (int kk = 0; kk < BK / 8; kk++)
                wgmma_tf32(d, da + 2 * kk, db + 2 * kk);
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (tid == 0)
                asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
                             :: "r"(sa(&s.empty[st])) : "memory");
        }
        for (int i = 0; i < 64; i++) {
            int r = m0 + half * 64 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
            int c = n0 + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
            if (r < M && c < N)
                C[(size_t)r * N + c] = d[i];
        }
    }
}
