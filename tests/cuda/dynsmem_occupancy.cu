// Dynamic shared memory beyond 48 KB (cudaFuncSetAttribute), the
// occupancy API and the device's properties.
#include "check.h"
__global__ void reverse(const int *in, int *out, int n) {
    extern __shared__ int buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];
}
int main() {
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    const int n = 20000;                         // 80,000 bytes of shared memory
    size_t smem = n * sizeof(int);
    int *in, *out, *h = new int[n];
    for (int i = 0; i < n; i++) h[i] = 3 * i + 1;
    CHECK(cudaMalloc(&in, smem)); CHECK(cudaMalloc(&out, smem));
    CHECK(cudaMemcpy(in, h, smem, cudaMemcpyHostToDevice));
    reverse<<<1, 256, smem>>>(in, out, n);
    bool refused = cudaGetLastError() != cudaSuccess;   // above 48 KB without the opt-in
    CHECK(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    reverse<<<1, 256, smem>>>(in, out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, out, smem, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 3 * (n - 1 - i) + 1;
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse, 256, smem));
    bool ok = bad == 0 && refused && count == 1 && p.multiProcessorCount > 0 && p.major >= 3 &&
              blocks >= 1;
    std::printf("%s: %s (sm_%d%d, %d SMs, %zu B opt-in shared), %d wrong, %d blocks/SM of 256 threads\n",
                ok ? "PASS" : "FAIL", p.name, p.major, p.minor, p.multiProcessorCount,
                p.sharedMemPerBlockOptin, bad, blocks);
    return !ok;
}
