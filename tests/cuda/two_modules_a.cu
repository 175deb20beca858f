// Two translation units, each with its own kernels and fat binary: the
// runtime registers both.  This one holds main.
#include "check.h"
void run_b(int *d, int n);
__global__ void fill(int *d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] = i; }
int main() {
    const int n = 777;
    int *d, h[n];
    CHECK(cudaMalloc(&d, sizeof h));
    fill<<<(n + 127) / 128, 128>>>(d, n);
    run_b(d, n);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 2 * i + 1;
    std::printf("%s: two modules, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
