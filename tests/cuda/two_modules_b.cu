// The second translation unit of two_modules.
#include "check.h"
__global__ void twice_plus_one(int *d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] = 2 * d[i] + 1; }
void run_b(int *d, int n) { twice_plus_one<<<(n + 63) / 64, 64>>>(d, n); CHECK(cudaGetLastError()); }
