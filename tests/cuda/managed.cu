// Unified memory: cudaMallocManaged data the host writes, a kernel
// updates in place and the host reads after cudaDeviceSynchronize; and
// __managed__ variables, initialised, set by the host, summed by the kernel.
#include "check.h"
__device__ __managed__ int offset = 5;
__device__ __managed__ unsigned long long sum;
__global__ void square(int *v, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        v[i] = v[i] * v[i] + offset;
        atomicAdd(&sum, (unsigned long long)v[i]);
    }
}
int main() {
    const int n = 3000;
    int *v;
    CHECK(cudaMallocManaged(&v, n * sizeof(int)));
    for (int i = 0; i < n; i++) v[i] = i - 1500;
    bool init_ok = offset == 5;
    offset = 2;
    sum = 0;
    square<<<4, 128>>>(v, n);
    CHECK(cudaDeviceSynchronize());
    int bad = !init_ok;
    unsigned long long want = 0;
    for (int i = 0; i < n; i++) { bad += v[i] != (i - 1500) * (i - 1500) + 2; want += v[i]; }
    bad += sum != want;
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, v));
    bool ok = bad == 0 && pa.type == cudaMemoryTypeManaged;
    CHECK(cudaFree(v));
    std::printf("%s: managed memory, %d wrong, type %d\n", ok ? "PASS" : "FAIL", bad, (int)pa.type);
    return !ok;
}
