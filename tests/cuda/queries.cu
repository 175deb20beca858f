// Small runtime queries: pinned memory's flags, the PCI bus id, a kernel's
// parameter layout, and the cluster occupancy calls (a 2-block cluster
// kernel): their answers against what the other calls say.
#include "check.h"
#include <cstring>

__global__ void params(int a, double b, float *c, char d) {
    if (threadIdx.x == 0 && c != nullptr) c[0] = (float)(a + b + d);
}
__global__ void __cluster_dims__(2, 1, 1) clustered(float *c) { c[threadIdx.x] = 1.0f; }

int main() {
    int bad = 0;
    void *h;
    CHECK(cudaHostAlloc(&h, 4096, cudaHostAllocMapped));
    unsigned flags = 0;
    CHECK(cudaHostGetFlags(&flags, h));
    bad += (flags & cudaHostAllocMapped) == 0;
    char bus[32];
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    int dev = -1;
    CHECK(cudaDeviceGetByPCIBusId(&dev, bus));
    bad += dev != 0 || std::strlen(bus) != 12;
    size_t off[4], size[4];
    for (int i = 0; i < 4; i++)
        CHECK(cudaFuncGetParamInfo((const void *)params, i, &off[i], &size[i]));
    bad += !(off[0] == 0 && size[0] == 4 && off[1] == 8 && size[1] == 8 && off[2] == 16 &&
             size[2] == 8 && off[3] == 24 && size[3] == 1);
    bad += cudaFuncGetParamInfo((const void *)params, 4, &off[0], &size[0]) != cudaErrorInvalidValue;
    cudaGetLastError();
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(64);
    cfg.blockDim = dim3(128);
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = 2; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    int clusters = 0, csize = 0, per_sm = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, (const void *)clustered, &cfg));
    CHECK(cudaOccupancyMaxPotentialClusterSize(&csize, (const void *)clustered, &cfg));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, clustered, 128, 0));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    bad += clusters <= 0 || clusters > p.multiProcessorCount * per_sm / 2 || csize != 8;
    std::printf("%s: queries (bus %s, %d clusters of 2 resident, %d blocks a cluster at most)\n",
                bad ? "FAIL" : "PASS", bus, clusters, csize);
    CHECK(cudaFreeHost(h));
    return bad != 0;
}
