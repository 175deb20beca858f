// Cooperative groups' tiled partitions and a templated kernel (two
// instantiations): warp-level sums with shuffles.
#include "check.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <typename T, int TILE>
__global__ void tile_sums(const T *x, T *out) {
    cg::thread_block b = cg::this_thread_block();
    cg::thread_block_tile<TILE> t = cg::tiled_partition<TILE>(b);
    T v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = t.size() / 2; o > 0; o /= 2) v += t.shfl_down(v, o);
    if (t.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / TILE] = v;
}
int main() {
    const int n = 1024;
    int hi[n]; double hd[n];
    for (int i = 0; i < n; i++) { hi[i] = i % 13; hd[i] = 0.5 * (i % 5); }
    int *xi, *oi; double *xd, *od;
    CHECK(cudaMalloc(&xi, sizeof hi)); CHECK(cudaMalloc(&oi, sizeof hi));
    CHECK(cudaMalloc(&xd, sizeof hd)); CHECK(cudaMalloc(&od, sizeof hd));
    CHECK(cudaMemcpy(xi, hi, sizeof hi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(xd, hd, sizeof hd, cudaMemcpyHostToDevice));
    tile_sums<int, 16><<<n / 128, 128>>>(xi, oi);
    tile_sums<double, 32><<<n / 128, 128>>>(xd, od);
    CHECK(cudaGetLastError());
    int gi[n / 16]; double gd[n / 32];
    CHECK(cudaMemcpy(gi, oi, sizeof gi, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gd, od, sizeof gd, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < n / 16; t++) { int s = 0; for (int k = 0; k < 16; k++) s += hi[t * 16 + k]; bad += gi[t] != s; }
    for (int t = 0; t < n / 32; t++) { double s = 0; for (int k = 0; k < 32; k++) s += hd[t * 32 + k]; bad += gd[t] != s; }
    std::printf("%s: tile sums, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
