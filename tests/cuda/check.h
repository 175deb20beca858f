// check.h - what the test programs share: a CUDA call that must succeed.
#include <cstdio>
#include <cstdlib>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    std::exit(1); } } while (0)
