// libcu++ and cooperative groups as a program uses them: cg::memcpy_async into
// shared memory, a warp tile's reduce and inclusive_scan, cuda::atomic_ref,
// a cuda::pipeline with cuda::memcpy_async, cuda::std::complex; checked on the
// host (tests/exec.sh also builds it with -G: a deeper call stack than 1 KB).
#include "check.h"
#include <cuda/pipeline>
#include <cuda/atomic>
#include <cuda/std/complex>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
__global__ void k(const int *in, int *out, int *count, float *cplx) {
    __shared__ int tile[256];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(int) * 256);
    cg::wait(block);
    auto warp = cg::tiled_partition<32>(block);
    int v = tile[threadIdx.x];
    int s = cg::reduce(warp, v, cg::plus<int>());
    int incl = cg::inclusive_scan(warp, v);
    cuda::atomic_ref<int, cuda::thread_scope_device> a(*count);
    a.fetch_add(1, cuda::memory_order_relaxed);
    auto pipe = cuda::make_pipeline();
    __shared__ int buf[256];
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(int), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    int w = buf[threadIdx.x];
    pipe.consumer_release();
    cuda::std::complex<float> z(v, 1.0f), z2 = z * z;
    out[blockIdx.x * 256 + threadIdx.x] = s + incl + w;
    cplx[blockIdx.x * 256 + threadIdx.x] = z2.real() + z2.imag();
}
int main() {
    const int n = 1024;
    int h[n], *in, *out, *cnt, zero = 0; float *c, hc[n];
    for (int i = 0; i < n; i++) h[i] = i % 13;
    CHECK(cudaMalloc(&in, sizeof h)); CHECK(cudaMalloc(&out, sizeof h)); CHECK(cudaMalloc(&cnt, 4)); CHECK(cudaMalloc(&c, sizeof hc));
    CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice)); CHECK(cudaMemcpy(cnt, &zero, 4, cudaMemcpyHostToDevice));
    k<<<n / 256, 256>>>(in, out, cnt, c);
    CHECK(cudaGetLastError());
    int o[n], hcnt; CHECK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(&hcnt, cnt, 4, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int w0 = i / 32 * 32, s = 0, incl = 0;
        for (int j = w0; j < w0 + 32; j++) { s += h[j]; if (j <= i) incl += h[j]; }
        bad += o[i] != s + incl + h[i];
        float v = (float)h[i]; bad += hc[i] != (v * v - 1.0f) + 2 * v;
    }
    bad += hcnt != n;
    std::printf("%s: libcu++ and cooperative groups, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
