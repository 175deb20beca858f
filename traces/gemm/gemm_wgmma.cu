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
#include <cstdint>

#define BM 128
#define BN 128
#define BK 32

__device__ __forceinline__ uint32_t sa(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ uint64_t desc(const void *p)
{
    return (uint64_t)((sa(p) & 0x3ffff) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 |
           (uint64_t)1 << 62;
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
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    if (SWZ) {                           // grouped tile order (above)
        const int tiles_m = M / BM, tiles_n = N / BN, bid = blockIdx.x, G = 8;
        const int first = bid / (G * tiles_n) * G, rows = min(tiles_m - first, G);
        m0 = (first + bid % rows) * BM;
        n0 = (bid % (G * tiles_n)) / rows * BN;
    }
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
        uint64_t da = desc(&as[st][wg * 64 * BK]), db = desc(bs[st]);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < BK / 8; kk++)
            wgmma_tf32(d, da + 2 * kk, db + 2 * kk);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads();                          // the slot may be refilled
        if (STAGES == 1 && kt + 1 < ktiles)
            load_tiles<STAGES>(as, bs, A, B, K, m0, n0, kt + 1, 0);
    }
    const int w = tid / 32, l = tid % 32;
    for (int i = 0; i < 64; i++) {
        int r = m0 + wg * 64 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        int c = n0 + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
        if (r < M && c < N)
            C[(size_t)r * N + c] = d[i];
    }
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
