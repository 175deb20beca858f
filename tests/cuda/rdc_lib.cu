// The other unit of tests/cuda/rdc_main.cu.
#include <cstdio>
__device__ int hits = 5;
__device__ float table[4] = { 0.0f, 0.5f, 1.0f, 1.5f };
static __device__ int local_helper(int x) { return x * 3; }   // not the main unit's
__device__ __noinline__ int common_weak(int x) { return 2 * x + 7; }
__device__ float scale_by(float x, int k) {
    if (x < 0) printf("lib unit: %f\n", x);
    return x * (k + 1) + 0 * local_helper(k);
}
