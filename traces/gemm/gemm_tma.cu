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
//
// The tile loads, the k-tile multiply and the stores come from gemm_sm90.cuh.
#include <cuda.h>
#include "gemm_sm90.cuh"

#define STAGES 3
#define TILE_BYTES (BM * BK * 4)

struct __align__(1024) Smem {
    float a[STAGES][BM * BK];
    float b[STAGES][BN * BK];
    uint64_t full[STAGES];
    uint64_t empty[STAGES];
};

// k-tile kt of A's rows m0.. and B's rows n0.. into ring slot `it % STAGES`
// once the consumers freed it (the it-th load of this block)
__device__ __forceinline__ void load_ktile(Smem &s, const CUtensorMap *tmA,
                                           const CUtensorMap *tmB, int it, int kt, int m0, int n0)
{
    int st = it % STAGES;
    if (it >= STAGES)                    // wait until the consumers freed the slot
        mbar_wait(&s.empty[st], ((it / STAGES) - 1) & 1);
    mbar_expect_tx(&s.full[st], 2 * TILE_BYTES);
    tma_load(s.a[st], tmA, kt * BK, m0, &s.full[st]);
    tma_load(s.b[st], tmB, kt * BK, n0, &s.full[st]);
}

// the consumers' side of ring load `it`: rows 64 half .. of the tile
__device__ __forceinline__ void use_ktile(Smem &s, float (&d)[64], int it, int half, int tid)
{
    int st = it % STAGES;
    mbar_wait(&s.full[st], (it / STAGES) & 1);
    mma_ktile(d, &s.a[st][half * 64 * BK], s.b[st]);
    if (tid == 0)                        // this warpgroup is done with the slot
        mbar_arrive(&s.empty[st]);
}

// thread 0: the ring's mbarriers, `consumers` warpgroups freeing each slot
__device__ __forceinline__ void init_ring(uint64_t *full, uint64_t *empty, unsigned consumers)
{
    for (int i = 0; i < STAGES; i++) {
        mbar_init(&full[i], 1);
        mbar_init(&empty[i], consumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;");
}

extern "C" __global__ void __launch_bounds__(384)
gemm_tma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
         float *C, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    Smem &s = *reinterpret_cast<Smem *>(raw);
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, ktiles = K / BK;
    if (threadIdx.x == 0)
        init_ring(s.full, s.empty, 2);
    __syncthreads();
    if (wg == 0) {                       // the producer
        if (tid == 0)
            for (int kt = 0; kt < ktiles; kt++)
                load_ktile(s, &tmA, &tmB, kt, kt, m0, n0);
        return;
    }
    float d[64];
    for (int i = 0; i < 64; i++)
        d[i] = 0.f;
    const int half = wg - 1;             // rows 64 half .. of the tile
    for (int kt = 0; kt < ktiles; kt++)
        use_ktile(s, d, kt, half, tid);
    store_acc(d, C, M, N, m0 + half * 64, n0);
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
        mbar_wait(&s.empty[st], ((kt / STAGES) - 1) & 1);
    mbar_expect_tx(&s.full[st], TILE2_BYTES);
    tma_load(s.a[st], tmA, kt * BK, m0, &s.full[st]);
    for (int h = 0; h < 2; h++)
        tma_load(&s.b[st][h * 128 * BK], tmB, kt * BK, n0 + 128 * h, &s.full[st]);
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
        init_ring(s.full, s.empty, 4);
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
        mbar_wait(&s.full[st], (kt / STAGES) & 1);
        mma_ktile(d, &s.a[st][mq * 64 * BK], &s.b[st][nq * 128 * BK]);
        if (tid == 0)
            mbar_arrive(&s.empty[st]);
    }
    store_acc(d, C, M, N, m0 + mq * 64, n0 + nq * 128);
}

extern "C" __global__ void __launch_bounds__(384)
gemm_ws(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
        float *C, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    Smem &s = *reinterpret_cast<Smem *>(raw);
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int ktiles = K / BK, tiles = (M / BM) * (N / BN);
    if (threadIdx.x == 0)
        init_ring(s.full, s.empty, 2);
    __syncthreads();
    if (wg == 0) {                       // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (tid == 0) {
            int it = 0;
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                int m0, n0;
                grouped_tile(t, M, N, &m0, &n0);
                for (int kt = 0; kt < ktiles; kt++, it++)
                    load_ktile(s, &tmA, &tmB, it, kt, m0, n0);
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int half = wg - 1;
    int it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int m0, n0;
        grouped_tile(t, M, N, &m0, &n0);
        float d[64];
        for (int i = 0; i < 64; i++)
            d[i] = 0.f;
        for (int kt = 0; kt < ktiles; kt++, it++)
            use_ktile(s, d, it, half, tid);
        store_acc(d, C, M, N, m0 + half * 64, n0);
    }
}
