// mma_bits.cu - the tensor cores' rounding, measured: C = A . B^T over K
// with mma.sync.m16n8k16 from registers, one warp per 16 x 8 tile of C,
// the k-steps in order (k = 0..15, 16..31, ...), the accumulator starting
// at zero.  A (M x K) and B (N x K) are FP32 in memory, converted to the
// input type with round-to-nearest (cvt.rn); C is written as FP32.  Run on
// a GPU (scripts/measure-gpu.py --outputs), the C bytes tell how its tensor
// cores align, sum and round (traces/tensor/bits/README.md).
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T> __device__ uint32_t pack(float lo, float hi);
template <> __device__ uint32_t pack<__half>(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&h);
}
template <> __device__ uint32_t pack<__nv_bfloat16>(float lo, float hi)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&h);
}

// the fragments of k-step k0 for lane (PTX ISA 9.7.14.5.8, m16n8k16 .f16/.bf16)
template <typename T>
__device__ void frags(const float *A, const float *B, int K, int m0, int n0, int k0,
                      uint32_t (&a)[4], uint32_t (&b)[2])
{
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const float *ar0 = A + (size_t)(m0 + g) * K + k0, *ar8 = A + (size_t)(m0 + g + 8) * K + k0;
    a[0] = pack<T>(ar0[2 * t], ar0[2 * t + 1]);
    a[1] = pack<T>(ar8[2 * t], ar8[2 * t + 1]);
    a[2] = pack<T>(ar0[2 * t + 8], ar0[2 * t + 9]);
    a[3] = pack<T>(ar8[2 * t + 8], ar8[2 * t + 9]);
    const float *bc = B + (size_t)(n0 + g) * K + k0;
    b[0] = pack<T>(bc[2 * t], bc[2 * t + 1]);
    b[1] = pack<T>(bc[2 * t + 8], bc[2 * t + 9]);
}

__device__ void store(float *C, int N, int m0, int n0, const float (&d)[4])
{
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    C[(size_t)(m0 + g) * N + n0 + 2 * t] = d[0];
    C[(size_t)(m0 + g) * N + n0 + 2 * t + 1] = d[1];
    C[(size_t)(m0 + g + 8) * N + n0 + 2 * t] = d[2];
    C[(size_t)(m0 + g + 8) * N + n0 + 2 * t + 1] = d[3];
}

// f16 or bf16 inputs (T), f32 accumulator
template <typename T>
__device__ void mma_f32acc(const float *A, const float *B, float *C, int N, int K)
{
    int m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
    float d[4] = { 0.f, 0.f, 0.f, 0.f };
    for (int k0 = 0; k0 < K; k0 += 16) {
        uint32_t a[4], b[2];
        frags<T>(A, B, K, m0, n0, k0, a, b);
        if constexpr (__is_same(T, __half))
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        else
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    store(C, N, m0, n0, d);
}

extern "C" __global__ void mma_bits_f16(const float *A, const float *B, float *C, int N, int K)
{
    mma_f32acc<__half>(A, B, C, N, K);
}

extern "C" __global__ void mma_bits_bf16(const float *A, const float *B, float *C, int N, int K)
{
    mma_f32acc<__nv_bfloat16>(A, B, C, N, K);
}

// f16 inputs, f16 accumulator (D converted to FP32 exactly for the store)
extern "C" __global__ void mma_bits_f16acc(const float *A, const float *B, float *C, int N, int K)
{
    int m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
    uint32_t d[2] = { 0u, 0u };
    for (int k0 = 0; k0 < K; k0 += 16) {
        uint32_t a[4], b[2];
        frags<__half>(A, B, K, m0, n0, k0, a, b);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                     "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
                     : "+r"(d[0]), "+r"(d[1])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    __half2 lo = *reinterpret_cast<__half2 *>(&d[0]), hi = *reinterpret_cast<__half2 *>(&d[1]);
    float f[4] = { __low2float(lo), __high2float(lo), __low2float(hi), __high2float(hi) };
    store(C, N, m0, n0, f);
}

// TF32 m16n8k4 (4 products a step): raw FP32 bits as the operands
extern "C" __global__ void mma_bits_tf32k4(const float *A, const float *B, float *C, int N, int K)
{
    int m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float d[4] = { 0.f, 0.f, 0.f, 0.f };
    for (int k0 = 0; k0 < K; k0 += 4) {
        uint32_t a0 = __float_as_uint(A[(size_t)(m0 + g) * K + k0 + t]);
        uint32_t a1 = __float_as_uint(A[(size_t)(m0 + g + 8) * K + k0 + t]);
        uint32_t b0 = __float_as_uint(B[(size_t)(n0 + g) * K + k0 + t]);
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 "
                     "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(b0));
    }
    store(C, N, m0, n0, d);
}

// f16 or bf16 inputs, f32 accumulator, m16n8k8 (8 products a step)
template <typename T>
__device__ void mma_k8(const float *A, const float *B, float *C, int N, int K)
{
    int m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float d[4] = { 0.f, 0.f, 0.f, 0.f };
    for (int k0 = 0; k0 < K; k0 += 8) {
        const float *ar0 = A + (size_t)(m0 + g) * K + k0, *ar8 = A + (size_t)(m0 + g + 8) * K + k0;
        const float *bc = B + (size_t)(n0 + g) * K + k0;
        uint32_t a0 = pack<T>(ar0[2 * t], ar0[2 * t + 1]), a1 = pack<T>(ar8[2 * t], ar8[2 * t + 1]);
        uint32_t b0 = pack<T>(bc[2 * t], bc[2 * t + 1]);
        if constexpr (__is_same(T, __half))
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                         : "r"(a0), "r"(a1), "r"(b0));
        else
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                         : "r"(a0), "r"(a1), "r"(b0));
    }
    store(C, N, m0, n0, d);
}

extern "C" __global__ void mma_bits_f16k8(const float *A, const float *B, float *C, int N, int K)
{
    mma_k8<__half>(A, B, C, N, K);
}

extern "C" __global__ void mma_bits_bf16k8(const float *A, const float *B, float *C, int N, int K)
{
    mma_k8<__nv_bfloat16>(A, B, C, N, K);
}
