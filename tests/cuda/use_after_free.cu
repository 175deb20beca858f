// The bounds check: a kernel reading memory the program freed gets
// cudaErrorIllegalAddress (and smsim names kernel, block, thread, address).
#include "check.h"
__global__ void readit(const int *p, int *out) { out[threadIdx.x] = p[threadIdx.x]; }
int main() {
    int *p, *out;
    CHECK(cudaMalloc(&p, 64 * sizeof(int)));
    CHECK(cudaMalloc(&out, 64 * sizeof(int)));
    CHECK(cudaFree(p));
    readit<<<1, 64>>>(p, out);
    cudaError_t e = cudaDeviceSynchronize();
    bool ok = e == cudaErrorIllegalAddress;
    std::printf("%s: a read after cudaFree gave %s\n", ok ? "PASS" : "FAIL", cudaGetErrorName(e));
    return !ok;
}
