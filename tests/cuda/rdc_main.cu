// Separate compilation (nvcc -rdc=true, tests/exec.sh): a kernel in this unit
// calls a device function and reads and atomically updates a __device__
// variable defined in rdc_lib.cu; both units have a static function and a
// printf string of the same names (internal linkage keeps them apart) and
// use the same inline function (a .weak definition in each).
#include "check.h"
extern __device__ float scale_by(float x, int k);
extern __device__ int hits;
extern __device__ float table[4];
__device__ __forceinline__ int shared_inline(int x);
static __device__ int local_helper(int x) { return x + 1000; }
__device__ __noinline__ int common_weak(int x);
__global__ void k(float *a, int *b) {
    int t = threadIdx.x;
    a[t] = scale_by(a[t], t % 4) + table[t % 4];
    b[t] = local_helper(t) + common_weak(t);
    atomicAdd(&hits, 1);
    if (t == 0) printf("main unit: %d\n", t);
}
int main() {
    float h[64], *d; int hb[64], *db;
    for (int i = 0; i < 64; i++) h[i] = (float)i;
    CHECK(cudaMalloc(&d, sizeof h)); CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    k<<<1, 64>>>(d, db);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hb, db, sizeof hb, cudaMemcpyDeviceToHost));
    int hits_h = 0;
    CHECK(cudaMemcpyFromSymbol(&hits_h, hits, sizeof hits_h));
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        bad += h[i] != (float)i * (i % 4 + 1) + 0.5f * (i % 4);
        bad += hb[i] != i + 1000 + 2 * i + 7;
    }
    bool ok = bad == 0 && hits_h == 64 + 5;
    std::printf("%s: separate compilation, %d wrong, %d hits\n", ok ? "PASS" : "FAIL", bad, hits_h);
    return !ok;
}
