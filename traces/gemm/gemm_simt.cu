// gemm_simt.cu - the first four kernels of seed 002's GEMM progression,
// written anew for smsim (traces/gemm/README.md): C (M x N, row-major, f32)
// = A (M x K, row-major) . B^T (B: N x K, row-major).
//
//   gemm_naive       one thread per element of C, FP32 FMAs (16 x 16 threads a block)
//   gemm_naive_kn    the same with B stored K x N (row-major): C = A . B, the layout of
//                    seed 002's naive kernel ("A(4096x16384) x B(16384x8192)"), whose
//                    B loads a warp coalesces
//   gemm_mma         TF32 mma.sync m16n8k8 with fragments loaded from global memory:
//                    128 x 128 tiles, 128 threads (2 x 2 warps of 64 x 64), 8-deep k-steps
//   gemm_smem8,      the same tiles staged through shared memory with 16-byte cp.async
//   gemm_smem32      copies (rows padded by 16 bytes), a k-tile of 8 or 32 at a time
#include <cstdint>

// C[r][c] = sum over k of A[r][k] B[c][k] (B N x K), or A[r][k] B[k][c] (KN: K x N)
template <bool KN>
__device__ __forceinline__ void naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    int c = blockIdx.x * 16 + threadIdx.x % 16, r = blockIdx.y * 16 + threadIdx.x / 16;
    if (r >= M || c >= N)
        return;
    float s = 0.f;
    for (int k = 0; k < K; k++)
        s = fmaf(A[(size_t)r * K + k], KN ? B[(size_t)k * N + c] : B[(size_t)c * K + k], s);
    C[(size_t)r * N + c] = s;
}

extern "C" __global__ void __launch_bounds__(256)
gemm_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive<false>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(256)
gemm_naive_kn(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive<true>(A, B, C, M, N, K);
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// a warp's 64 x 64 of C: 4 x 8 tiles of m16n8; (g, t) = (lane / 4, lane % 4)
__device__ __forceinline__ void store_tile(float (&d)[4][8][4], float *C, int N, int r0, int c0)
{
    int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    for (int mi = 0; mi < 4; mi++)
        for (int ni = 0; ni < 8; ni++)
            for (int h = 0; h < 4; h++)
                C[(size_t)(r0 + mi * 16 + g + 8 * (h / 2)) * N + c0 + ni * 8 + 2 * t + h % 2] =
                    d[mi][ni][h];
}

extern "C" __global__ void __launch_bounds__(128)
gemm_mma(const float *A, const float *B, float *C, int M, int N, int K)
{
    int w = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    int r0 = blockIdx.y * 128 + (w / 2) * 64, c0 = blockIdx.x * 128 + (w % 2) * 64;
    float d[4][8][4] = {};
    for (int k0 = 0; k0 < K; k0 += 8) {
        uint32_t a[4][4], b[8][2];
        for (int mi = 0; mi < 4; mi++)   // A (16 x 8): (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)
            for (int j = 0; j < 4; j++)
                a[mi][j] = __float_as_uint(
                    A[(size_t)(r0 + mi * 16 + g + 8 * (j % 2)) * K + k0 + t + 4 * (j / 2)]);
        for (int ni = 0; ni < 8; ni++)   // B (8 x 8): k = t, t + 4 of column g
            for (int j = 0; j < 2; j++)
                b[ni][j] = __float_as_uint(B[(size_t)(c0 + ni * 8 + g) * K + k0 + t + 4 * j]);
        for (int mi = 0; mi < 4; mi++)
            for (int ni = 0; ni < 8; ni++)
                mma_tf32(d[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
    store_tile(d, C, N, r0, c0);
}

template <int BK>
__device__ __forceinline__ void gemm_smem_body(const float *A, const float *B, float *C, int N,
                                               int K)
{
    constexpr int LD = BK + 4;           // padded rows: 16 bytes more
    __shared__ __align__(16) float as[128 * LD], bs[128 * LD];
    int w = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128;
    int wr = (w / 2) * 64, wc = (w % 2) * 64;
    float d[4][8][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < 128 * BK / 4; i += 128) {
            int r = i / (BK / 4), c = i % (BK / 4) * 4;
            uint32_t sa = (uint32_t)__cvta_generic_to_shared(&as[r * LD + c]);
            uint32_t sb = (uint32_t)__cvta_generic_to_shared(&bs[r * LD + c]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"(sa), "l"(A + (size_t)(m0 + r) * K + k0 + c) : "memory");
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"(sb), "l"(B + (size_t)(n0 + r) * K + k0 + c) : "memory");
        }
        asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t a[4][4], b[8][2];
            for (int mi = 0; mi < 4; mi++)
                for (int j = 0; j < 4; j++)
                    a[mi][j] = __float_as_uint(
                        as[(wr + mi * 16 + g + 8 * (j % 2)) * LD + kk + t + 4 * (j / 2)]);
            for (int ni = 0; ni < 8; ni++)
                for (int j = 0; j < 2; j++)
                    b[ni][j] = __float_as_uint(bs[(wc + ni * 8 + g) * LD + kk + t + 4 * j]);
            for (int mi = 0; mi < 4; mi++)
                for (int ni = 0; ni < 8; ni++)
                    mma_tf32(d[mi][ni], a[mi], b[ni][0], b[ni][1]);
        }
        __syncthreads();
    }
    store_tile(d, C, N, m0 + wr, n0 + wc);
}

extern "C" __global__ void __launch_bounds__(128)
gemm_smem8(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_smem_body<8>(A, B, C, N, K);
}

extern "C" __global__ void __launch_bounds__(128)
gemm_smem32(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_smem_body<32>(A, B, C, N, K);
}
