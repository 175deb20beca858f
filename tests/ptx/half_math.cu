// half_math.cu - packed half and bfloat16 arithmetic, conversions and
// integer dot products through the CUDA intrinsics, for tests/check_ptx_half.c
// (its C reference checks every output of every lane).
// PTX: nvcc -ptx -arch=sm_90 half_math.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// 8 results per lane: add, sub, mul, fma, min, max.NaN, fma.relu, a < b (1.0 or 0.0)
extern "C" __global__ void h2math(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 x = a[i], y = b[i], z = c[i];
    __half2 *d = o + 8 * i;
    d[0] = __hadd2(x, y);
    d[1] = __hsub2(x, y);
    d[2] = __hmul2(x, y);
    d[3] = __hfma2(x, y, z);
    d[4] = __hmin2(x, y);
    d[5] = __hmax2_nan(x, y);
    d[6] = __hfma2_relu(x, y, z);
    d[7] = __hlt2(x, y);
}

extern "C" __global__ void bf2math(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                                   const __nv_bfloat162 *c, __nv_bfloat162 *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __nv_bfloat162 x = a[i], y = b[i], z = c[i];
    __nv_bfloat162 *d = o + 8 * i;
    d[0] = __hadd2(x, y);
    d[1] = __hsub2(x, y);
    d[2] = __hmul2(x, y);
    d[3] = __hfma2(x, y, z);
    d[4] = __hmin2(x, y);
    d[5] = __hmax2_nan(x, y);
    d[6] = __hfma2_relu(x, y, z);
    d[7] = __hlt2(x, y);
}

// 8 words per lane: {f16(f.x), f16(f.y)}, the same in bf16, f.x as f16 and
// as bf16 (low halves), dp4a s32 and u32, dp2a.lo and .hi (s32)
extern "C" __global__ void cvtdot(const float2 *f, const int *a, const int *b, const int *c,
                                  unsigned *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float2 v = f[i];
    unsigned *d = o + 8 * i;
    __half2 h = __floats2half2_rn(v.x, v.y);
    __nv_bfloat162 g = __floats2bfloat162_rn(v.x, v.y);
    d[0] = *reinterpret_cast<unsigned *>(&h);
    d[1] = *reinterpret_cast<unsigned *>(&g);
    d[2] = __half_as_ushort(__float2half_rn(v.x));
    d[3] = __bfloat16_as_ushort(__float2bfloat16_rn(v.x));
    d[4] = (unsigned)__dp4a(a[i], b[i], c[i]);
    d[5] = __dp4a((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
    d[6] = (unsigned)__dp2a_lo(a[i], b[i], c[i]);
    d[7] = (unsigned)__dp2a_hi(a[i], b[i], c[i]);
}
