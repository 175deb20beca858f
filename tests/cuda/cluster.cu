// A thread-block cluster launch (sm_90): blocks of a cluster exchange
// values through distributed shared memory; launched with <<<>>> and a
// __cluster_dims__ kernel, and with cudaLaunchKernelEx.
#include "check.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ void body(int *out) {
    __shared__ int mine;
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) mine = blockIdx.x * 10;
    cl.sync();
    unsigned peer = (cl.block_rank() + 1) % cl.num_blocks();
    int *theirs = cl.map_shared_rank(&mine, peer);
    if (threadIdx.x == 0) out[blockIdx.x] = *theirs;
    cl.sync();
}
__global__ void __cluster_dims__(2, 1, 1) fixed(int *out) { body(out); }
__global__ void free_dims(int *out) { body(out); }
int main() {
    const int blocks = 8;
    int *out, h[blocks];
    CHECK(cudaMalloc(&out, sizeof h));
    int bad = 0;
    fixed<<<blocks, 64>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) bad += h[b] != (b ^ 1) * 10;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks); cfg.blockDim = dim3(64);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 4; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr; cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, free_dims, out));
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) bad += h[b] != (b / 4 * 4 + (b % 4 + 1) % 4) * 10;
    std::printf("%s: clusters, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
