// gemm_wgmma.cu - seed 002's "CuTe WGMMA" and "CuTe WGMMA Pipe" GEMMs,
// written anew for smsim (traces/gemm/README.md): C (M x N, row-major, f32)
// = A (M x K, row-major) . B^T (B: N x K, row-major), TF32 tensor cores.
//
// A block of 256 threads (two warpgroups) computes a 128 x 128 tile of C:
// every thread copies its share of the 128 x 32 tiles of A and B with
// cp.async (16 bytes each) into shared memory laid out as wgmma's 128-byte
// swizzle expects (16-byte chunk c of row r at r x 128 + (c ^ r % 8) x 16),
// and each warpgroup computes 64 x 128 with wgmma m64n128k8 .tf32 straight
// from the tiles (4 per k-tile).  gemm_wgmma waits for each tile before
// computing on it; gemm_wgmma_pipe double-buffers: the next tile's copies
// are in flight while the current one is multiplied; gemm_wgmma_pipe_swz
// also walks the tiles of C in groups of 8 tile rows (a 1-D grid: block b
// takes row b % 8 of its group, column b / 8 within it), so that blocks
// running together share rows of A and columns of B in the L2.
#include "gemm_sm90.cuh"

// the 128 x 32 tiles of A and B at k-tile kt into slot st: 4 + 4 chunks a thread
template <int STAGES>
__device__ __forceinline__ void load_tiles(float (*as)[BM * BK], float (*bs)[BN * BK],
                                           const float *A, const float *B, int K, int m0, int n0,
                                           int kt, int st)
{
    for (int i = threadIdx.x; i < BM * BK / 4; i += blockDim.x) {
        int r = i / 8, c = i % 8;
        uint32_t off = r * 128 + ((c ^ (r % 8)) * 16);
        const float *ga = A + (size_t)(m0 + r) * K + kt * BK + c * 4;
        const float *gb = B + (size_t)(n0 + r) * K + kt * BK + c * 4;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                     :: "r"(sa(as[st]) + off), "l"(ga) : "memory");
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                     :: "r"(sa(bs[st]) + off), "l"(gb) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int STAGES, bool SWZ>
__device__ __forceinline__ void gemm_body(const float *A, const float *B, float *C, int M, int N,
                                          int K)
{
    extern __shared__ __align__(1024) float dyn[];   // STAGES x (A tile, B tile): 32 KB each
    float (*as)[BM * BK] = reinterpret_cast<float (*)[BM * BK]>(dyn);
    float (*bs)[BN * BK] = reinterpret_cast<float (*)[BN * BK]>(dyn + STAGES * BM * BK);
    const int wg = threadIdx.x / 128;
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    if (SWZ)                             // grouped tile order (above)
        grouped_tile(blockIdx.x, M, N, &m0, &n0);
    const int ktiles = K / BK;
    float d[64];
    for (int i = 0; i < 64; i++)
        d[i] = 0.f;
    load_tiles<STAGES>(as, bs, A, B, K, m0, n0, 0, 0);
    for (int kt = 0; kt < ktiles; kt++) {
        int st = kt % STAGES;
        if (STAGES > 1 && kt + 1 < ktiles) {     // the next tile's copies go out now
            load_tiles<STAGES>(as, bs, A, B, K, m0, n0, kt + 1, (kt + 1) % STAGES);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        mma_ktile(d, &as[st][wg * 64 * BK], bs[st]);
        __syncthreads();                          // the slot may be refilled
        if (STAGES == 1 && kt + 1 < ktiles)
            load_tiles<STAGES>(as, bs, A, B, K, m0, n0, kt + 1, 0);
    }
    store_acc(d, C, M, N, m0 + wg * 64, n0);
}

extern "C" __global__ void __launch_bounds__(256)
gemm_wgmma(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_body<1, false>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(256)
gemm_wgmma_pipe(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_body<2, false>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(256)
gemm_wgmma_pipe_swz(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_body<2, true>(A, B, C, M, N, K);
}
