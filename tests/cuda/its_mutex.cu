// its_mutex.cu - independent thread scheduling (compute capability 7.0 on):
// the lanes of one warp take one lock, which needs the lane that wins to go
// on while the others of its warp spin.  A global lock for every thread of
// the grid, a shared-memory lock per block, and two lanes of a warp that wait
// for each other in turn.
#include "check.h"

__device__ int glock, gcount;

__global__ void global_lock(int *seen) {
    while (atomicCAS(&glock, 0, 1) != 0) { }
    __threadfence();
    int v = *(volatile int *)&gcount;
    *(volatile int *)&gcount = v + 1;
    seen[blockIdx.x * blockDim.x + threadIdx.x] = v;
    __threadfence();
    atomicExch(&glock, 0);
}

__global__ void shared_lock(int *sums) {
    __shared__ int lock, sum;
    if (threadIdx.x == 0) { lock = 0; sum = 0; }
    __syncthreads();
    while (atomicCAS(&lock, 0, 1) != 0) { }
    __threadfence_block();
    *(volatile int *)&sum += threadIdx.x;
    __threadfence_block();
    atomicExch(&lock, 0);
    __syncthreads();
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

__global__ void handshake(volatile int *f) {
    unsigned lane = threadIdx.x % 32;
    if (lane == 0) {
        f[0] = 1;
        while (f[1] == 0) { }
        f[2] = f[1] + 1;
    } else if (lane == 31) {
        while (f[0] == 0) { }
        f[1] = 2;
        while (f[2] == 0) { }
        f[3] = f[2] + f[0];
    }
}

int main() {
    const int blocks = 3, threads = 80, n = blocks * threads;
    int *seen, *sums, *f, h[n], hs[blocks], hf[4];
    CHECK(cudaMalloc(&seen, n * sizeof(int)));
    CHECK(cudaMalloc(&sums, blocks * sizeof(int)));
    CHECK(cudaMalloc(&f, 4 * sizeof(int)));
    CHECK(cudaMemset(f, 0, 4 * sizeof(int)));
    global_lock<<<blocks, threads>>>(seen);
    shared_lock<<<blocks, threads>>>(sums);
    handshake<<<1, 32>>>(f);
    CHECK(cudaDeviceSynchronize());
    int count;
    CHECK(cudaMemcpyFromSymbol(&count, gcount, sizeof count));
    CHECK(cudaMemcpy(h, seen, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
    int ok = count == n, hits[n] = { 0 };
    for (int i = 0; i < n; i++)
        if (h[i] < 0 || h[i] >= n || hits[h[i]]++) ok = 0;
    for (int b = 0; b < blocks; b++)
        if (hs[b] != threads * (threads - 1) / 2) ok = 0;
    if (hf[0] != 1 || hf[1] != 2 || hf[2] != 3 || hf[3] != 4) ok = 0;
    std::printf("%s: %d threads took one lock, counter %d; block sums %d %d %d; handshake %d %d %d %d\n",
                ok ? "PASS" : "FAIL", n, count, hs[0], hs[1], hs[2], hf[0], hf[1], hf[2], hf[3]);
    return !ok;
}
