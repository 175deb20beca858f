// A block reduction in shared memory with a scale factor set by
// cudaMemcpyToSymbol and a __device__ total read back by cudaMemcpyFromSymbol.
#include "check.h"
__constant__ float scale;
__device__ float total;
__global__ void reduce(const float *x, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] * scale : 0.0f;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&total, s[0]);
}
int main() {
    const int n = 1 << 14;
    float *h = new float[n];
    for (int i = 0; i < n; i++) h[i] = (float)(i % 7);
    float *x;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    float sc = 0.25f, zero = 0.0f;
    CHECK(cudaMemcpyToSymbol(scale, &sc, sizeof sc));
    CHECK(cudaMemcpyToSymbol(total, &zero, sizeof zero));
    reduce<<<n / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    float got;
    CHECK(cudaMemcpyFromSymbol(&got, total, sizeof got));
    double want = 0;
    for (int i = 0; i < n; i++) want += h[i] * 0.25;
    bool ok = got == (float)want;
    std::printf("%s: reduce %g, expected %g\n", ok ? "PASS" : "FAIL", got, want);
    return !ok;
}
