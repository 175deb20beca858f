// Mechanism probes (issue 29): small kernels that each isolate one of the
// mechanisms the held-out kernels showed smsim gets wrong, written for the
// project and measured on an H100 SXM5 (validation/measured/h100-sxm5/).
//
//   stride_read / stride_write  the memory system's granularity under
//                               strided access (sector, line, DRAM burst)
//   row_walk / col_walk         a matrix-vector product walked along rows
//                               (uncoalesced: 32 rows per warp load) and
//                               along columns (coalesced), small grids
//   bar_loop / gload_bar_loop / gdep_bar_loop
//                               latency-bound blocks: a barrier, an
//                               independent or a dependent global load per
//                               step of a sequential loop
//   pb_gemm                     a PolyBench-style triple loop (C updated in
//                               memory every step, as PolyBench writes it)
//   sgemm_reg                   a register-tiled SIMT SGEMM (64x64 tile,
//                               4x4 outputs per thread, shared A and B tiles)
//   wmma_smem_gemm              wmma fed from padded shared tiles filled by a
//                               two-stage cp.async pipeline
//   mma_ldsm_gemm               mma.sync m16n8k16 fed by ldmatrix from the
//                               same kind of pipeline
//   softmax_rows                a block-wide softmax per row (shuffle and
//                               shared-memory reductions)
//
// nvcc 13.0: nvcc -ptx -arch=sm_90 -o mech.ptx mech.cu
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void stride_read(const float *__restrict__ in, float *__restrict__ out, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[(size_t)i * s];
}

extern "C" __global__ void stride_write(float *out, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[(size_t)i * s] = (float)i;
}

extern "C" __global__ void row_walk(const float *__restrict__ a, const float *__restrict__ y,
                                    float *__restrict__ x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += a[(size_t)i * n + j] * y[j];
    x[i] = s;
}

extern "C" __global__ void col_walk(const float *__restrict__ a, const float *__restrict__ y,
                                    float *__restrict__ x, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += a[(size_t)i * n + j] * y[i];
    x[j] = s;
}

extern "C" __global__ void bar_loop(float *out, int steps)
{
    __shared__ float sh[1024];
    int t = threadIdx.x, n = blockDim.x;
    float v = (float)t;
    for (int k = 0; k < steps; k++) {
        sh[t] = v;
        __syncthreads();
        v += sh[(t + 1) % n] * 0.5f;
        __syncthreads();
    }
    out[blockIdx.x * n + t] = v;
}

extern "C" __global__ void gload_bar_loop(const float *__restrict__ a, float *__restrict__ out,
                                          int steps)
{
    __shared__ float sh[1024];
    int t = threadIdx.x, n = blockDim.x;
    const float *p = a + (size_t)blockIdx.x * steps * n;
    float v = 0.0f;
    for (int k = 0; k < steps; k++) {
        float x = p[(size_t)k * n + t];
        sh[t] = v * 0.5f + x;
        __syncthreads();
        v = sh[(t + 1) % n];
        __syncthreads();
    }
    out[blockIdx.x * n + t] = v;
}

extern "C" __global__ void gdep_bar_loop(const int *__restrict__ next, int *__restrict__ out,
                                         int steps)
{
    __shared__ int sh[1024];
    int t = threadIdx.x, n = blockDim.x;
    int j = blockIdx.x * n + t;
    for (int k = 0; k < steps; k++) {
        j = next[j];
        sh[t] = j;
        __syncthreads();
        j = sh[(t + 1) % n];
        __syncthreads();
    }
    out[blockIdx.x * n + t] = j;
}

extern "C" __global__ void pb_gemm(const float *a, const float *b, float *c, int ni, int nj,
                                   int nk, float alpha, float beta)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}

#define SG_T 64
#define SG_K 16
extern "C" __global__ void __launch_bounds__(256) sgemm_reg(const float *__restrict__ a,
                                                            const float *__restrict__ b,
                                                            float *__restrict__ c, int n)
{
    __shared__ float as[SG_K][SG_T + 4];
    __shared__ float bs[SG_K][SG_T];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * SG_T, col0 = blockIdx.x * SG_T;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += SG_K) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
            int idx = threadIdx.x + r * 256;
            int m = idx / SG_K, k = idx % SG_K;
            as[k][m] = a[(size_t)(row0 + m) * n + k0 + k];
            int kb = idx / SG_T, cb = idx % SG_T;
            bs[kb][cb] = b[(size_t)(k0 + kb) * n + col0 + cb];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SG_K; k++) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                av[i] = as[k][ty * 4 + i];
#pragma unroll
            for (int j = 0; j < 4; j++)
                bv[j] = bs[k][tx * 4 + j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            c[(size_t)(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}

// 64x64 C tile per block of 4 warps (each warp 32x32), K step 32, two stages.
#define WA_LD 40 // A tile row: 32 halves + 8 padding
#define WB_LD 72 // B tile row: 64 halves + 8 padding
extern "C" __global__ void __launch_bounds__(128) wmma_smem_gemm(const __half *__restrict__ a,
                                                                 const __half *__restrict__ b,
                                                                 float *__restrict__ c, int n)
{
    __shared__ __align__(128) __half as[2][64 * WA_LD];
    __shared__ __align__(128) __half bs[2][32 * WB_LD];
    int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    int tiles = n / 32;
    for (int t = 0; t <= tiles; t++) {
        if (t < tiles) { // fill stage t & 1 with k0 = 32 t
            int s = t & 1, k0 = t * 32;
#pragma unroll
            for (int r = 0; r < 2; r++) {
                int ch = threadIdx.x + r * 128;
                int m = ch / 4, kc = (ch % 4) * 8;
                __pipeline_memcpy_async(&as[s][m * WA_LD + kc], &a[(size_t)(row0 + m) * n + k0 + kc], 16);
                int kb = ch / 8, nc = (ch % 8) * 8;
                __pipeline_memcpy_async(&bs[s][kb * WB_LD + nc], &b[(size_t)(k0 + kb) * n + col0 + nc], 16);
            }
        }
        __pipeline_commit();
        if (t == 0)
            continue;
        __pipeline_wait_prior(1);
        __syncthreads();
        int s = (t - 1) & 1;
#pragma unroll
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
#pragma unroll
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(fa[i], &as[s][(wm * 32 + i * 16) * WA_LD + kk], WA_LD);
#pragma unroll
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(fb[j], &bs[s][kk * WB_LD + wn * 32 + j * 16], WB_LD);
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&c[(size_t)(row0 + wm * 32 + i * 16) * n + col0 + wn * 32 + j * 16],
                                    acc[i][j], n, wmma::mem_row_major);
}

// The same tiles, fragments by ldmatrix and mma.sync.m16n8k16 (f16 in, f32 out).
extern "C" __global__ void __launch_bounds__(128) mma_ldsm_gemm(const __half *__restrict__ a,
                                                                const __half *__restrict__ b,
                                                                float *__restrict__ c, int n)
{
    __shared__ __align__(128) __half as[2][64 * WA_LD];
    __shared__ __align__(128) __half bs[2][32 * WB_LD];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[2][4][4]; // [m16 block][n8 block][fragment]
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;
    int tiles = n / 32;
    for (int t = 0; t <= tiles; t++) {
        if (t < tiles) {
            int s = t & 1, k0 = t * 32;
#pragma unroll
            for (int r = 0; r < 2; r++) {
                int ch = threadIdx.x + r * 128;
                int m = ch / 4, kc = (ch % 4) * 8;
                __pipeline_memcpy_async(&as[s][m * WA_LD + kc], &a[(size_t)(row0 + m) * n + k0 + kc], 16);
                int kb = ch / 8, nc = (ch % 8) * 8;
                __pipeline_memcpy_async(&bs[s][kb * WB_LD + nc], &b[(size_t)(k0 + kb) * n + col0 + nc], 16);
            }
        }
        __pipeline_commit();
        if (t == 0)
            continue;
        __pipeline_wait_prior(1);
        __syncthreads();
        int s = (t - 1) & 1;
#pragma unroll
        for (int kk = 0; kk < 32; kk += 16) {
            unsigned fa[2][4], fb[4][2];
#pragma unroll
            for (int i = 0; i < 2; i++) {
                const __half *p = &as[s][(wm * 32 + i * 16 + lane % 16) * WA_LD + kk + (lane / 16) * 8];
                unsigned addr = (unsigned)__cvta_generic_to_shared(p);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(fa[i][0]), "=r"(fa[i][1]), "=r"(fa[i][2]), "=r"(fa[i][3])
                             : "r"(addr));
            }
#pragma unroll
            for (int j = 0; j < 4; j += 2) {
                const __half *p = &bs[s][(kk + lane % 16) * WB_LD + wn * 32 + j * 8 + (lane / 16) * 8];
                unsigned addr = (unsigned)__cvta_generic_to_shared(p);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(fb[j][0]), "=r"(fb[j][1]), "=r"(fb[j + 1][0]), "=r"(fb[j + 1][1])
                             : "r"(addr));
            }
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                                 : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]),
                                   "+f"(acc[i][j][3])
                                 : "r"(fa[i][0]), "r"(fa[i][1]), "r"(fa[i][2]), "r"(fa[i][3]),
                                   "r"(fb[j][0]), "r"(fb[j][1]));
        }
        __syncthreads();
    }
    int g = lane / 4, q = lane % 4;
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            size_t r = row0 + wm * 32 + i * 16 + g, col = col0 + wn * 32 + j * 8 + q * 2;
            c[r * n + col] = acc[i][j][0];
            c[r * n + col + 1] = acc[i][j][1];
            c[(r + 8) * n + col] = acc[i][j][2];
            c[(r + 8) * n + col + 1] = acc[i][j][3];
        }
}

__device__ float block_reduce(float v, bool is_max, float *red)
{
    for (int o = 16; o > 0; o /= 2) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = lane < nw ? red[lane] : (is_max ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o /= 2) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    __syncthreads();
    return v;
}

extern "C" __global__ void softmax_rows(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float red[32];
    const float *r = x + (size_t)blockIdx.x * cols;
    float *o = y + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, r[c]);
    m = block_reduce(m, true, red);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += __expf(r[c] - m);
    s = block_reduce(s, false, red);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        o[c] = __expf(r[c] - m) * inv;
}
