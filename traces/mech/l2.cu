// L2 slice throughput probes (issue 29): reads only, writes only, from a
// buffer that stays in the H100's L2 (8 MB; the first of the `repeat`
// launches warms it).  Global accesses with .cg (__ldcg/__stcg) bypass L1.
//   l2_read:  each thread sums float4 elements, grid-stride, `iters` passes
//   l2_write: each thread stores float4 elements, grid-stride, `iters` passes
// nvcc 13.0: nvcc -ptx -arch=sm_90 -o l2.ptx l2.cu
extern "C" __global__ void l2_read(const float4 *__restrict__ in, float *__restrict__ out, int n4,
                                   int iters)
{
    int stride = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int it = 0; it < iters; it++)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            float4 v = __ldcg(&in[i]);
            acc += v.x + v.y + v.z + v.w;
        }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void l2_write(float4 *__restrict__ out, int n4, int iters)
{
    int stride = gridDim.x * blockDim.x;
    for (int it = 0; it < iters; it++)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
            __stcg(&out[i], make_float4((float)it, (float)i, 0.0f, 1.0f));
}
