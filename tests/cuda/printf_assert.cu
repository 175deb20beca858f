// Device printf, and a device-side assert that fails: the launch's error
// must be cudaErrorAssert and stay (sticky).
#include "check.h"
#include <cassert>
#include <cstring>
__global__ void hello(int k) {
    if (threadIdx.x < 2) printf("hello from block %d thread %d, k = %d\n", blockIdx.x, threadIdx.x, k);
}
__global__ void check_positive(const int *x) {
    assert(x[threadIdx.x] > 0);
}
int main(int argc, char **argv) {
    hello<<<2, 32>>>(7);
    CHECK(cudaDeviceSynchronize());
    if (argc > 1 && std::strcmp(argv[1], "assert") == 0) {
        int h[32];
        for (int i = 0; i < 32; i++) h[i] = i == 5 ? 0 : 1;
        int *x;
        CHECK(cudaMalloc(&x, sizeof h));
        CHECK(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));
        check_positive<<<1, 32>>>(x);
        cudaError_t e = cudaDeviceSynchronize();
        cudaError_t e2 = cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
        bool ok = e == cudaErrorAssert && e2 == cudaErrorAssert;
        std::printf("%s: assert gave %s, then %s\n", ok ? "PASS" : "FAIL", cudaGetErrorName(e), cudaGetErrorName(e2));
        return !ok;
    }
    std::printf("PASS: printf\n");
    return 0;
}
