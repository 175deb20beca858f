// vecadd.cu - c[i] = a[i] + b[i]: the smallest useful kernel.
// PTX: nvcc -ptx -arch=sm_75 vecadd.cu (make ptx); launch file: traces/vecadd.launch
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
