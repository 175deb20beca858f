// grid_sync.cu - a cooperative launch whose blocks synchronise the whole
// grid (cooperative groups' grid_group::sync()) between the phases of an
// iterative computation, as a solver does: each phase every block reads
// what all the blocks wrote in the phase before.  A grid larger than can
// be resident is refused (cudaErrorCooperativeLaunchTooLarge), and the same
// kernel launched without <<<>>>'s cooperation aborts at its first grid
// sync (cudaErrorLaunchFailure), as on a GPU.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "check.h"

namespace cg = cooperative_groups;

// phases times: x[i] += sum over all blocks of block b's value from the
// phase before (published in part[b]), then a grid sync.
__global__ void phases(int *x, int *part, int n, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    for (int r = 0; r < rounds; r++) {
        __shared__ int s;
        if (threadIdx.x == 0)
            s = 0;
        __syncthreads();
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            atomicAdd(&s, x[i] & 0xff);
        __syncthreads();
        if (threadIdx.x == 0)
            part[blockIdx.x] = s;
        grid.sync();
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            total += part[b];
        grid.sync();                     // everyone has read part[] before it changes
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            x[i] += total + r;
        grid.sync();
    }
}

int main()
{
    const int n = 4096, rounds = 4, threads = 128;
    int per_sm = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, threads, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int blocks = sms < 16 ? sms : 16;
    int h[n], ref[n];
    for (int i = 0; i < n; i++)
        h[i] = ref[i] = (i * 7) % 300;
    for (int r = 0; r < rounds; r++) {  // the host's version of the phases
        int total = 0;
        for (int i = 0; i < n; i++)
            total += ref[i] & 0xff;
        for (int i = 0; i < n; i++)
            ref[i] += total + r;
    }
    int *x, *part;
    CHECK(cudaMalloc(&x, sizeof h));
    CHECK(cudaMalloc(&part, 1024 * sizeof(int)));
    CHECK(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));
    int nn = n, rr = rounds;
    void *args[] = { &x, &part, &nn, &rr };
    CHECK(cudaLaunchCooperativeKernel((void *)phases, blocks, threads, args, 0, 0));
    CHECK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += h[i] != ref[i];
    if (bad) {
        std::printf("FAIL: grid_sync: %d of %d wrong (x[0] %d, expected %d)\n", bad, n, h[0], ref[0]);
        return 1;
    }
    // more blocks than can be resident: refused, and not sticky
    cudaError_t e = cudaLaunchCooperativeKernel((void *)phases, per_sm * sms + 1, threads, args, 0, 0);
    if (e != cudaErrorCooperativeLaunchTooLarge || cudaGetLastError() != e ||
        cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::printf("FAIL: grid_sync: a too large cooperative launch gave %s\n", cudaGetErrorName(e));
        return 1;
    }
    // without cooperation the grid sync traps: the launch fails
    phases<<<blocks, threads>>>(x, part, n, rounds);
    e = cudaDeviceSynchronize();
    if (e != cudaErrorLaunchFailure) {
        std::printf("FAIL: grid_sync: a grid sync in a plain launch gave %s\n", cudaGetErrorName(e));
        return 1;
    }
    std::printf("PASS: grid_sync %d blocks, %d rounds of 3 grid syncs\n", blocks, rounds);
    return 0;
}
