// Two streams, async copies and kernels, events and their elapsed time.
#include "check.h"
__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
    const int n = 1 << 16;
    float *hx, *hy;
    CHECK(cudaMallocHost(&hx, n * sizeof(float)));
    CHECK(cudaMallocHost(&hy, n * sizeof(float)));
    for (int i = 0; i < n; i++) { hx[i] = 1.0f; hy[i] = (float)i; }
    float *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    cudaStream_t s[2];
    CHECK(cudaStreamCreate(&s[0]));
    CHECK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, s[0]));
    int half = n / 2;
    for (int k = 0; k < 2; k++) {
        CHECK(cudaMemcpyAsync(x + k * half, hx + k * half, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        CHECK(cudaMemcpyAsync(y + k * half, hy + k * half, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        axpy<<<half / 256, 256, 0, s[k]>>>(2.0f, x + k * half, y + k * half, half);
        CHECK(cudaMemcpyAsync(hy + k * half, y + k * half, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    }
    CHECK(cudaEventRecord(stop, s[1]));
    CHECK(cudaStreamSynchronize(s[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hy[i] != 2.0f + i;
    bool ok = bad == 0 && ms > 0;
    std::printf("%s: streams %d wrong, %.6f ms between the events\n", ok ? "PASS" : "FAIL", bad, ms);
    CHECK(cudaStreamDestroy(s[0])); CHECK(cudaStreamDestroy(s[1]));
    CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop));
    CHECK(cudaFreeHost(hx)); CHECK(cudaFreeHost(hy));
    return !ok;
}
