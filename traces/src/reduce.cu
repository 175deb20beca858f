// reduce.cu - sum of n floats: each block reduces 2 x blockDim elements in
// shared memory (tree with __syncthreads), the last warp with shuffles, and
// thread 0 adds the block's sum to *out with an atomic.
// PTX: nvcc -ptx -arch=sm_75 reduce.cu (make ptx); launch: traces/reduce.launch
extern "C" __global__ void reduce(const float *in, float *out, unsigned n)
{
    extern __shared__ float s[];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) {
        v = s[t] + s[t + 32];
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0)
            atomicAdd(out, v);
    }
}
