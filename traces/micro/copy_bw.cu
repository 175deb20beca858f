// copy_bw.cu - DRAM (HBM) copy bandwidth from 1 thread to all SMs
// (seed 002 section 3b).
//
// PTX: nvcc -ptx -arch=sm_90 copy_bw.cu (make ptx)
// regs: nvcc -arch=sm_90 -cubin -Xptxas -v -o /dev/null copy_bw.cu
// launch files: copy_bw_*.launch (see README.md for the list)
//
// What it measures.  dst[i] = src[i] over n elements with a grid-stride
// loop; bandwidth = 2 * n * sizeof(T) bytes (read + write) / simulated
// time, as in the seed.  The kernel is a template on the element type
// (float or float4) and the unroll factor U (1 or 4): with U = 4 each thread
// issues four independent loads (at i, i + stride, i + 2 * stride,
// i + 3 * stride) before the four stores, so four times as many bytes are in
// flight per thread.  The launch files scale the grid from one thread to
// 528 blocks (4 per H100 SM), the seed's "1 thread to all SMs" table, and
// compare float / float4 x U = 1 / 4 at 132 blocks (one per SM).
//
// extern "C" wrappers (plain .entry names for the launch files):
//   copy_f1_u1  float,  U = 1     copy_f1_u4  float,  U = 4
//   copy_f4_u1  float4, U = 1     copy_f4_u4  float4, U = 4
// n counts elements of T (for float4, a quarter of the floats).

template <typename T, int U>
__device__ __forceinline__ void copy_grid_stride(const T *src, T *dst, unsigned long long n)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;

    // Main loop: U independent loads in flight, then U stores.
    for (; i + (U - 1) * stride < n; i += U * stride) {
        T v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = src[i + u * stride];
#pragma unroll
        for (int u = 0; u < U; u++)
            dst[i + u * stride] = v[u];
    }
    // Remainder (fewer than U grid strides left).
    for (; i < n; i += stride)
        dst[i] = src[i];
}

#define COPY_KERNEL(name, T, U) \
    extern "C" __global__ void name(const T *src, T *dst, unsigned long long n) \
    { \
        copy_grid_stride<T, U>(src, dst, n); \
    }

COPY_KERNEL(copy_f1_u1, float, 1)
COPY_KERNEL(copy_f1_u4, float, 4)
COPY_KERNEL(copy_f4_u1, float4, 1)
COPY_KERNEL(copy_f4_u4, float4, 4)
