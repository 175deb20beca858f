// Tensor-core, ldmatrix and cp.async forms for smsim's functional tests
// (tests/check_kernels.c computes every output in C from the same formulas).
// PTX: nvcc -ptx -arch=sm_90 -O3 tensor.cu -o tensor.ptx
//
// Inputs are small integers generated from their indices (exact in f16,
// bf16, tf32 and int8), so every product and sum is exact: the results
// must equal the C reference bit for bit.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

__device__ __host__ inline int aval(int i, int k) { return (i * 3 + k * 5) % 7 - 3; }
__device__ __host__ inline int bval(int k, int j) { return (k * 2 + j * 3) % 5 - 2; }
__device__ __host__ inline int cval(int i, int j) { return (i + 2 * j) % 9 - 4; }

// ---- wmma: D = A * B + C for one tile per warp, A and B in global memory
// in the given layouts (lda = K or M, ldb = N or K), C and D row-major ----
template <int M, int N, int K, typename T, typename LA, typename LB, typename TC>
__device__ void wmma_tile(T *a, T *b, TC *c, TC *d)
{
    int lane = threadIdx.x;
    bool arow = std::is_same<LA, wmma::row_major>::value;
    bool brow = std::is_same<LB, wmma::row_major>::value;
    for (int e = lane; e < M * K; e += 32) {
        int i = e / K, k = e % K;
        a[arow ? i * K + k : k * M + i] = (T)(float)aval(i, k);
    }
    for (int e = lane; e < K * N; e += 32) {
        int k = e / N, j = e % N;
        b[brow ? k * N + j : j * K + k] = (T)(float)bval(k, j);
    }
    for (int e = lane; e < M * N; e += 32)
        c[e] = (TC)(float)cval(e / N, e % N);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    wmma::load_matrix_sync(fa, a, arow ? K : M);
    wmma::load_matrix_sync(fb, b, brow ? N : K);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

#define WMMA_KERNEL(name, M, N, K, T, LA, LB, TC) \
    extern "C" __global__ void name(T *a, T *b, TC *c, TC *d) \
    { wmma_tile<M, N, K, T, wmma::LA, wmma::LB, TC>(a, b, c, d); }

WMMA_KERNEL(wmma_f16_16x16x16_rc, 16, 16, 16, half, row_major, col_major, float)
WMMA_KERNEL(wmma_f16_16x16x16_cr, 16, 16, 16, half, col_major, row_major, float)
WMMA_KERNEL(wmma_f16_32x8x16_rr, 32, 8, 16, half, row_major, row_major, float)
WMMA_KERNEL(wmma_f16_8x32x16_cc, 8, 32, 16, half, col_major, col_major, float)
WMMA_KERNEL(wmma_f16acc_16x16x16_rc, 16, 16, 16, half, row_major, col_major, half)
WMMA_KERNEL(wmma_bf16_16x16x16_rc, 16, 16, 16, __nv_bfloat16, row_major, col_major, float)
WMMA_KERNEL(wmma_bf16_8x32x16_rr, 8, 32, 16, __nv_bfloat16, row_major, row_major, float)
WMMA_KERNEL(wmma_s8_16x16x16_rc, 16, 16, 16, signed char, row_major, col_major, int)
WMMA_KERNEL(wmma_u8_32x8x16_rr, 32, 8, 16, unsigned char, row_major, row_major, int)
WMMA_KERNEL(wmma_f64_8x8x4_rc, 8, 8, 4, double, row_major, col_major, double)

// wmma tf32 m16n16k8: the fragments are f32 in memory (exact small integers)
extern "C" __global__ void wmma_tf32_16x16x8_rc(float *a, float *b, float *c, float *d)
{
    int lane = threadIdx.x;
    for (int e = lane; e < 16 * 8; e += 32) {
        a[e] = (float)aval(e / 8, e % 8);              // row-major 16 x 8
        b[e] = (float)bval(e % 8, e / 8);              // col-major 8 x 16: b[j * 8 + k]
    }
    for (int e = lane; e < 256; e += 32)
        c[e] = (float)cval(e / 16, e % 16);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

// ---- mma.sync: fragments built per the PTX ISA's figures; D written out
// row-major (16 x 8) per the same figures ----
__device__ inline unsigned pack_h2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *(unsigned *)&h;
}
__device__ inline unsigned pack_bf2(float lo, float hi)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *(unsigned *)&h;
}
__device__ inline unsigned pack_i8(int a, int b, int c, int e)
{
    return (unsigned)(a & 0xff) | (unsigned)(b & 0xff) << 8 | (unsigned)(c & 0xff) << 16 |
           (unsigned)(e & 0xff) << 24;
}

extern "C" __global__ void mma_f16_16816(float *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    float c[4], r[4];
    for (int q = 0; q < 4; q++) {
        int row = g + 8 * (q & 1), col = 2 * t + 8 * (q >> 1);
        a[q] = pack_h2((float)aval(row, col), (float)aval(row, col + 1));
    }
    for (int q = 0; q < 2; q++) {
        int k = 2 * t + 8 * q;
        b[q] = pack_h2((float)bval(k, g), (float)bval(k + 1, g));
    }
    for (int q = 0; q < 4; q++)
        c[q] = (float)cval(g + 8 * (q >> 1), 2 * t + (q & 1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int q = 0; q < 4; q++)
        d[(g + 8 * (q >> 1)) * 8 + 2 * t + (q & 1)] = r[q];
}

extern "C" __global__ void mma_f16acc_16816(__half *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2], c[2], r[2];
    for (int q = 0; q < 4; q++) {
        int row = g + 8 * (q & 1), col = 2 * t + 8 * (q >> 1);
        a[q] = pack_h2((float)aval(row, col), (float)aval(row, col + 1));
    }
    for (int q = 0; q < 2; q++) {
        int k = 2 * t + 8 * q;
        b[q] = pack_h2((float)bval(k, g), (float)bval(k + 1, g));
    }
    for (int q = 0; q < 2; q++)
        c[q] = pack_h2((float)cval(g + 8 * q, 2 * t), (float)cval(g + 8 * q, 2 * t + 1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, "
                 "{%6,%7}, {%8,%9};"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]));
    for (int q = 0; q < 2; q++)
        *(unsigned *)&d[(g + 8 * q) * 8 + 2 * t] = r[q];
}

extern "C" __global__ void mma_bf16_1688(float *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[2], b;
    float c[4], r[4];
    for (int q = 0; q < 2; q++) {
        int row = g + 8 * q, col = 2 * t;
        a[q] = pack_bf2((float)aval(row, col), (float)aval(row, col + 1));
    }
    b = pack_bf2((float)bval(2 * t, g), (float)bval(2 * t + 1, g));
    for (int q = 0; q < 4; q++)
        c[q] = (float)cval(g + 8 * (q >> 1), 2 * t + (q & 1));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6}, {%7,%8,%9,%10};"
                 : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int q = 0; q < 4; q++)
        d[(g + 8 * (q >> 1)) * 8 + 2 * t + (q & 1)] = r[q];
}

extern "C" __global__ void mma_tf32_1684(float *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    float a0 = (float)aval(g, t), a1 = (float)aval(g + 8, t), b0 = (float)bval(t, g);
    float c[4], r[4];
    for (int q = 0; q < 4; q++)
        c[q] = (float)cval(g + 8 * (q >> 1), 2 * t + (q & 1));
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6}, {%7,%8,%9,%10};"
                 : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3])
                 : "r"(__float_as_uint(a0)), "r"(__float_as_uint(a1)), "r"(__float_as_uint(b0)),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int q = 0; q < 4; q++)
        d[(g + 8 * (q >> 1)) * 8 + 2 * t + (q & 1)] = r[q];
}

// f64 (DMMA): m8n8k4 a0 (g, t), b0 (t, g), c0 c1 (g, 2t ..); m16n8k8
// a_i (g + 8 (i % 2), t + 4 (i / 2)), b_i (t + 4 i, g), c_i (g + 8 (i / 2), 2t + i % 2)
extern "C" __global__ void mma_f64_884(double *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    double r0, r1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(r0), "=d"(r1)
                 : "d"((double)aval(g, t)), "d"((double)bval(t, g)),
                   "d"((double)cval(g, 2 * t)), "d"((double)cval(g, 2 * t + 1)));
    d[g * 8 + 2 * t] = r0;
    d[g * 8 + 2 * t + 1] = r1;
}

extern "C" __global__ void mma_f64_1688(double *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    double a[4], b[2], c[4], r[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (double)aval(g + 8 * (i % 2), t + 4 * (i / 2));
        c[i] = (double)cval(g + 8 * (i / 2), 2 * t + (i % 2));
    }
    for (int i = 0; i < 2; i++)
        b[i] = (double)bval(t + 4 * i, g);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=d"(r[0]), "=d"(r[1]), "=d"(r[2]), "=d"(r[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]),
                   "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
    for (int q = 0; q < 4; q++)
        d[(g + 8 * (q >> 1)) * 8 + 2 * t + (q & 1)] = r[q];
}

// int8: A values scaled so that the s32 sums pass 2^31 with .satfinite
extern "C" __global__ void mma_s8_16832(int *d, int scale)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    int c[4], r[4];
    for (int q = 0; q < 4; q++) {
        int row = g + 8 * (q & 1), col = 4 * t + 16 * (q >> 1);
        a[q] = pack_i8(aval(row, col) * 30, aval(row, col + 1) * 30, aval(row, col + 2) * 30,
                       aval(row, col + 3) * 30);
    }
    for (int q = 0; q < 2; q++) {
        int k = 4 * t + 16 * q;
        b[q] = pack_i8(bval(k, g) * 50, bval(k + 1, g) * 50, bval(k + 2, g) * 50,
                       bval(k + 3, g) * 50);
    }
    for (int q = 0; q < 4; q++)
        c[q] = cval(g + 8 * (q >> 1), 2 * t + (q & 1)) * scale;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int q = 0; q < 4; q++)
        d[(g + 8 * (q >> 1)) * 8 + 2 * t + (q & 1)] = r[q];
}

extern "C" __global__ void mma_u8s8_16816(int *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[2], b;
    int c[4], r[4];
    for (int q = 0; q < 2; q++) {
        int row = g + 8 * q, col = 4 * t;
        a[q] = pack_i8(aval(row, col) + 200, aval(row, col + 1) + 200, aval(row, col + 2) + 200,
                       aval(row, col + 3) + 200);
    }
    b = pack_i8(bval(4 * t, g), bval(4 * t + 1, g), bval(4 * t + 2, g), bval(4 * t + 3, g));
    for (int q = 0; q < 4; q++)
        c[q] = cval(g + 8 * (q >> 1), 2 * t + (q & 1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6}, {%7,%8,%9,%10};"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int q = 0; q < 4; q++)
        d[(g + 8 * (q >> 1)) * 8 + 2 * t + (q & 1)] = r[q];
}

// ---- ldmatrix / stmatrix: a 16 x 16 b16 tile in shared memory (row i,
// column j holds i * 16 + j); out[lane * 8 + 2 * reg + h] for x4 and
// x4.trans, then stmatrix of the registers back to a second tile ----
extern "C" __global__ void ldsm(unsigned short *out, unsigned short *back)
{
    __shared__ __align__(16) unsigned short tile[16 * 16], tile2[16 * 16];
    int lane = threadIdx.x;
    for (int e = lane; e < 256; e += 32)
        tile[e] = (unsigned short)e;
    __syncwarp();
    // lanes 0-7 rows 0-7 cols 0-7 (matrix 0), 8-15 rows 8-15 (matrix 1),
    // 16-23 rows 0-7 cols 8-15 (matrix 2), 24-31 rows 8-15 cols 8-15 (matrix 3)
    int r = (lane & 7) + 8 * ((lane >> 3) & 1), c = 8 * (lane >> 4);
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[r * 16 + c]);
    unsigned v[4], w[4];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "r"(addr));
    unsigned short x1;
    {
        unsigned q;
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(q) : "r"(addr));
        x1 = (unsigned short)(q >> 16);
    }
    for (int q = 0; q < 4; q++) {
        out[lane * 16 + 2 * q] = (unsigned short)v[q];
        out[lane * 16 + 2 * q + 1] = (unsigned short)(v[q] >> 16);
        out[lane * 16 + 8 + 2 * q] = (unsigned short)w[q];
        out[lane * 16 + 8 + 2 * q + 1] = (unsigned short)(w[q] >> 16);
    }
    out[512 + lane] = x1;
    unsigned addr2 = (unsigned)__cvta_generic_to_shared(&tile2[r * 16 + c]);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};"
                 :: "r"(addr2), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]));
    __syncwarp();
    for (int e = lane; e < 256; e += 32)
        back[e] = tile2[e];
}

// ---- cp.async: a three-stage pipeline through shared memory; each stage's
// tile is summed after wait_group 1 (the newest group may still be in
// flight).  out[block * 256 + t] = sum over stages of src ----
extern "C" __global__ void cp_async_stages(const float *src, float *out, int stages)
{
    __shared__ __align__(16) float buf[3][256];
    int t = threadIdx.x;
    const float *base = src + (size_t)blockIdx.x * stages * 256;
    float acc = 0.f;
    __pipeline_memcpy_async(&buf[0][t], &base[t], 4);
    __pipeline_commit();
    for (int s = 0; s < stages; s++) {
        if (s + 1 < stages)
            __pipeline_memcpy_async(&buf[(s + 1) % 3][t], &base[(s + 1) * 256 + t], 4);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[s % 3][(t + 1) % 256];
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = acc;
}
