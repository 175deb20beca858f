// l2_bw.cu - L2 copy bandwidth with __ldcg / __stcg (seed 002 section 3c).
//
// PTX: nvcc -ptx -arch=sm_90 l2_bw.cu (make ptx)
// regs: nvcc -arch=sm_90 -cubin -Xptxas -v -o /dev/null l2_bw.cu
// launch files: l2_bw_132blocks.launch, l2_bw_528blocks.launch,
//               l2_bw_132blocks_u4.launch
//
// What it measures.  The same grid-stride copy as copy_bw.cu, but every
// load is __ldcg (ld.global.cg: cached in L2, not L1) and every store
// __stcg (st.global.cg), and the working set (src + dst) fits in L2, so
// once it is resident the copy runs at L2 bandwidth: 2 * bytes / time.
// The launch files use `repeat = 3`: launch 1 brings src into L2 from DRAM
// and allocates dst there (the warm-up), launches 2 and 3 copy entirely
// within L2; smsim reports each launch separately, and the L2 figure is
// taken from the last one.  The seed's table: 132 SMs 3,223 GB/s,
// 528 blocks 3,574 GB/s, 256 MB (HBM) 887 GB/s.
//
// extern "C" wrappers: l2_copy_f4_u1 (float4, one element per grid stride),
// l2_copy_f4_u4 (float4, four independent loads per thread, then four
// stores); n counts float4 elements.

template <typename T, int U>
__device__ __forceinline__ void l2_copy(const T *src, T *dst, unsigned long long n)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;

    for (; i + (U - 1) * stride < n; i += U * stride) {
        T v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = __ldcg(&src[i + u * stride]);
#pragma unroll
        for (int u = 0; u < U; u++)
            __stcg(&dst[i + u * stride], v[u]);
    }
    for (; i < n; i += stride)
        __stcg(&dst[i], __ldcg(&src[i]));
}

#define L2_COPY_KERNEL(name, T, U) \
    extern "C" __global__ void name(const T *src, T *dst, unsigned long long n) \
    { \
        l2_copy<T, U>(src, dst, n); \
    }

L2_COPY_KERNEL(l2_copy_f4_u1, float4, 1)
L2_COPY_KERNEL(l2_copy_f4_u4, float4, 4)
