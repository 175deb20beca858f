// realworld.cu - CUDA kernels of the kinds users bring that the measured
// set lacks (tests/realworld.sh): CUDA-sample style Black-Scholes, double-
// precision libm, 64-bit division, a local-array sort, a byte histogram with
// shared atomics, float atomics with a CAS loop, warp votes and shuffles, a
// switch-heavy loop, a 2-D stencil tile, half math (cuda_fp16.h's inline
// asm), device calls, single-precision libm, the integer atomics, integer
// intrinsics, a 3-D grid, a fully unrolled register array and a spilled
// local array.  The PTX is committed (nvcc 13.0); the checks:
// tests/ptx/realworld_check.py.
// PTX: nvcc -ptx -arch=sm_90 realworld.cu
#include <cassert>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
extern "C" {
// Black-Scholes (CUDA sample style): expf, logf, sqrtf, division
__device__ float cnd(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = 0.3989422804f * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0f - c : c;
}
__global__ void blackscholes(float *call, float *put, const float *S, const float *X, const float *T, float R, float V, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float s = S[i], x = X[i], t = T[i];
        float sq = sqrtf(t);
        float d1 = (logf(s / x) + (R + 0.5f * V * V) * t) / (V * sq);
        float d2 = d1 - V * sq;
        float e = expf(-R * t);
        call[i] = s * cnd(d1) - x * e * cnd(d2);
        put[i] = x * e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
    }
}
// double precision: exp, log, pow, sqrt, division
__global__ void dmath(double *out, const double *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = in[i];
        out[i] = exp(x) / (1.0 + log(1.0 + x * x)) + pow(x, 1.5) + sqrt(x) / (x + 3.0);
    }
}
// 64-bit integer division and modulo, hashing
__global__ void i64ops(unsigned long long *out, const unsigned long long *in, long long d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned long long v = in[i];
        long long s = (long long)v - 12345;
        out[i] = v / (unsigned long long)d + v % 977 + (unsigned long long)(s / d) + (unsigned long long)(s % 13);
    }
}
// local array with dynamic index (stays in local memory), bubble sort
__global__ void localsort(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a[16];
    for (int k = 0; k < 16; k++) a[k] = in[(i * 16 + k) % n];
    for (int p = 0; p < 16; p++)
        for (int k = 0; k < 15 - p; k++)
            if (a[k] > a[k + 1]) { int t = a[k]; a[k] = a[k + 1]; a[k + 1] = t; }
    int idx = in[i] & 15;
    out[i] = a[idx] + a[0] + a[15];
}
// histogram: shared atomics, global atomics
__global__ void histo(unsigned *bins, const unsigned char *data, int n) {
    __shared__ unsigned h[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < 256; k += blockDim.x) atomicAdd(&bins[k], h[k]);
}
// float atomics and CAS loop (atomicMax on float via CAS)
__device__ float atomicMaxF(float *a, float v) {
    int *ai = (int *)a; int old = *ai, assumed;
    do { assumed = old; if (__int_as_float(assumed) >= v) break;
         old = atomicCAS(ai, assumed, __float_as_int(v)); } while (assumed != old);
    return __int_as_float(old);
}
__global__ void fatomics(float *sum, float *mx, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { atomicAdd(sum, in[i]); atomicMaxF(mx, in[i]); }
}
// warp intrinsics: ballot, popc, shfl_xor, any/all
__global__ void warpops(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned b = __ballot_sync(0xffffffffu, v & 1);
    int s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    int any = __any_sync(0xffffffffu, v > 100), all = __all_sync(0xffffffffu, v >= 0);
    if (i < n) out[i] = s + __popc(b) + any * 2 + all * 4 + __clz(v) + __ffs(v);
}
// switch, while with break, integer ops
__global__ void control(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i], r = 0, k = 0;
    while (v != 1 && k < 200) {
        switch (v & 3) {
        case 0: r += v >> 2; break;
        case 1: r ^= v * 7; break;
        case 2: r -= v / 3; break;
        default: r += __brev(v) & 0xff; break;
        }
        v = (v & 1) ? 3 * v + 1 : v / 2;
        k++;
    }
    out[i] = r + k;
}
// stencil with shared memory tile and halo, 2D indices
__global__ void stencil2d(float *out, const float *in, int w, int h) {
    __shared__ float t[18][18];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    int cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1);
    t[threadIdx.y + 1][threadIdx.x + 1] = in[cy * w + cx];
    if (threadIdx.x == 0) t[threadIdx.y + 1][0] = in[cy * w + max(cx - 1, 0)];
    if (threadIdx.x == 15) t[threadIdx.y + 1][17] = in[cy * w + min(cx + 1, w - 1)];
    if (threadIdx.y == 0) t[0][threadIdx.x + 1] = in[max(cy - 1, 0) * w + cx];
    if (threadIdx.y == 15) t[17][threadIdx.x + 1] = in[min(cy + 1, h - 1) * w + cx];
    __syncthreads();
    if (x < w && y < h)
        out[y * w + x] = 0.2f * (t[threadIdx.y + 1][threadIdx.x + 1] + t[threadIdx.y][threadIdx.x + 1] +
                                 t[threadIdx.y + 2][threadIdx.x + 1] + t[threadIdx.y + 1][threadIdx.x] +
                                 t[threadIdx.y + 1][threadIdx.x + 2]);
}
// half precision math
__global__ void hmath(__half *out, const __half *a, const __half *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __hadd(__hmul(a[i], b[i]), hsqrt(__habs(a[i])));
}
// recursion-free device function calls with many args, float division precise
__device__ __noinline__ float poly(float x, float a, float b, float c, float d) { return (((a * x + b) * x + c) * x + d) / (x * x + 1.0f); }
__global__ void calls2(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = poly(in[i], 1.0f, 2.0f, 3.0f, 4.0f) + poly(in[i] * 2.0f, 0.5f, 0.25f, 0.125f, 1.0f);
}
// sincos, tanh, erf, fmod, rint (libdevice heavy)
__global__ void libm(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s, c; sincosf(in[i], &s, &c);
        out[i] = s * c + tanhf(in[i]) + erff(in[i]) + fmodf(in[i] * 10.0f, 3.0f) + rintf(in[i] * 4.0f) + atan2f(s, c) + cbrtf(in[i]);
    }
}
__global__ void atomics2(double *dsum, int *imin, int *imax, unsigned *inc, int *exch, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(dsum, (double)in[i] * 0.5);
        atomicMin(imin, in[i]);
        atomicMax(imax, in[i]);
        atomicInc(inc, 1000000u);
        atomicExch(exch, in[i]);
        __threadfence();
    }
}

__global__ void intdiv(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        unsigned ux = (unsigned)x, uy = (unsigned)y | 1u;
        out[i] = x / y + x % y + (int)(ux / uy) + (int)(ux % uy) + __byte_perm(x, y, 0x5140) +
                 __funnelshift_l(x, y, y & 31) + __brev(x) + (int)(((unsigned long long)x << (y & 63)) >> 7) +
                 __float2int_rn((float)x * 0.37f) + __mul24(x, y) + __umulhi(ux, uy) + __sad(x, y, 3);
    }
}

__global__ void grid3d(int *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < w && y < h) out[(z * h + y) * w + x] = x + 10 * y + 100 * z + gridDim.z;
}

__global__ void bigunroll(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc[32];
#pragma unroll
    for (int k = 0; k < 32; k++) acc[k] = in[(i + k) % n];
    float s = 0;
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int k = 0; k < 32; k++) s += acc[k] * acc[(k + r) & 31];
    out[i] = s;
}

__global__ void spill(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a[256];
    for (int k = 0; k < 256; k++) a[k] = in[(i * 7 + k) % n];
    int s = 0;
    for (int k = 0; k < 256; k++) s += a[(k * 31 + in[i]) & 255];
    out[i] = s;
}
// printf and assert (the runtime's vprintf and __assertfail)
__global__ void printfs(int *out, int n, float x, double d, long long big) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 3)
        printf("thread %d of %u: x=%.3f d=%e big=%lld hex=%#x c=%c s=%s pct=100%% w=[%5d] [%-4u] h=%hd\n",
               i, blockDim.x, x, d, big, 255 + i, 'A' + i, "str", i, (unsigned)i, (short)(-i));
    if (i == 0 && n < 0)
        printf("bad n %d\n", n);
    assert(i < n);
    if (i < n)
        out[i] = 2 * i;
}
// warp-synchronous intrinsics of sm_70/sm_80: match, the __reduce_*_sync
// family (redux.sync) and cooperative groups' reduce
__global__ void warpsync(int *out, const int *in, int n) {
    namespace cg = cooperative_groups;
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned any = __match_any_sync(0xffffffffu, v & 7);
    int pred;
    unsigned all = __match_all_sync(0xffffffffu, v >> 30, &pred);
    unsigned u = (unsigned)v;
    int r = __reduce_add_sync(0xffffffffu, v) + (int)__reduce_min_sync(0xffffffffu, u) +
            __reduce_max_sync(0xffffffffu, v - 50) + (int)__reduce_and_sync(0xffffffffu, u | 1u) +
            (int)__reduce_or_sync(0xffffffffu, u & 6u) + (int)__reduce_xor_sync(0xffffffffu, u);
    int s = cg::reduce(t, v, cg::plus<int>());
    if (i < n)
        out[i] = r + s + __popc(any) + (int)(all != 0) + 2 * pred;
}
// __syncthreads_count/_or/_and (bar.red), several instances in a row
__global__ void syncreduce(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0, c = 0;
    for (int r = 0; r < 4; r++)
        c += __syncthreads_count(v > 25 * r) << (8 * r);
    int o = __syncthreads_or(v > 98), a = __syncthreads_and(v >= 1);
    if (i < n)
        out[i] = c + (o << 30) + (a << 29);
}
// half-precision atomics (atom.add.noftz .f16 .f16x2 .bf16 .bf16x2)
__global__ void halfatomics(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2,
                            const __half *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half v = in[i];
        atomicAdd(h, v);
        atomicAdd(h2, __halves2half2(v, __hneg(v)));
        __nv_bfloat16 w = __float2bfloat16(__half2float(v));
        atomicAdd(b, w);
        atomicAdd(b2, __halves2bfloat162(w, w));
    }
}
// Rodinia-style kernels (bfs, pathfinder, kmeans, srad), written for smsim from the
// algorithms' descriptions
// BFS (Rodinia style)
__global__ void bfs1(const int *starts, const int *nedges, const int *edges, bool *mask, bool *updating, bool *visited, int *cost, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n && mask[tid]) {
        mask[tid] = false;
        for (int i = starts[tid]; i < starts[tid] + nedges[tid]; i++) {
            int id = edges[i];
            if (!visited[id]) { cost[id] = cost[tid] + 1; updating[id] = true; }
        }
    }
}
// pathfinder
__global__ void pathfinder(const int *wall, const int *src, int *dst, int cols, int row) {
    __shared__ int prev[256], result[256];
    int tx = threadIdx.x, x = blockIdx.x * 254 + tx - 1;
    bool valid = x >= 0 && x < cols;
    prev[tx] = valid ? src[x] : 0;
    __syncthreads();
    if (tx > 0 && tx < 255 && valid) {
        int l = x > 0 ? prev[tx - 1] : prev[tx], r = x < cols - 1 ? prev[tx + 1] : prev[tx];
        result[tx] = min(prev[tx], min(l, r)) + wall[row * cols + x];
    }
    __syncthreads();
    if (tx > 0 && tx < 255 && valid) dst[x] = result[tx];
}
// kmeans assignment
__global__ void kmeans(const float *feat, const float *clusters, int *membership, int npoints, int nclusters, int nfeatures) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints) return;
    int best = 0; float bd = 3.4e38f;
    for (int c = 0; c < nclusters; c++) {
        float d = 0;
        for (int f = 0; f < nfeatures; f++) { float t = feat[f * npoints + p] - clusters[c * nfeatures + f]; d += t * t; }
        if (d < bd) { bd = d; best = c; }
    }
    membership[p] = best;
}
// SRAD-like
__global__ void srad(const float *J, float *C, float *dN, float *dS, float *dW, float *dE, int rows, int cols, float q0sqr) {
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows || j >= cols) return;
    int k = i * cols + j;
    float Jc = J[k];
    float n = J[max(i - 1, 0) * cols + j] - Jc, s = J[min(i + 1, rows - 1) * cols + j] - Jc;
    float w = J[i * cols + max(j - 1, 0)] - Jc, e = J[i * cols + min(j + 1, cols - 1)] - Jc;
    float G2 = (n * n + s * s + w * w + e * e) / (Jc * Jc);
    float L = (n + s + w + e) / Jc;
    float num = (0.5f * G2) - ((1.0f / 16.0f) * (L * L));
    float den = 1 + (.25f * L);
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
    float c = 1.0f / (1.0f + den);
    C[k] = c < 0 ? 0 : (c > 1 ? 1 : c);
    dN[k] = n; dS[k] = s; dW[k] = w; dE[k] = e;
}
}
