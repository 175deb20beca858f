// CCCL as programs use it: a thrust transform with a device lambda (CUB's
// transform kernel prefetches with prefetch.global.L2), then CUB's radix sort
// and reduction with their temporary storage (tests/exec.sh builds it with
// --extended-lambda).
#include "check.h"
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
#include <thrust/reduce.h>
int main() {
    const int n = 5000;
    thrust::device_vector<int> v(n);
    thrust::sequence(v.begin(), v.end());
    thrust::transform(v.begin(), v.end(), v.begin(), [] __device__ (int x) { return (x * 7919) % 1000; });
    int *d_out; CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    void *tmp = nullptr; size_t tb = 0;
    cub::DeviceRadixSort::SortKeys(tmp, tb, thrust::raw_pointer_cast(v.data()), d_out, n);
    CHECK(cudaMalloc(&tmp, tb));
    cub::DeviceRadixSort::SortKeys(tmp, tb, thrust::raw_pointer_cast(v.data()), d_out, n);
    int *d_sum; CHECK(cudaMalloc(&d_sum, sizeof(int)));
    void *tmp2 = nullptr; size_t tb2 = 0;
    cub::DeviceReduce::Sum(tmp2, tb2, d_out, d_sum, n);
    CHECK(cudaMalloc(&tmp2, tb2));
    cub::DeviceReduce::Sum(tmp2, tb2, d_out, d_sum, n);
    static int h[n]; int hs = 0;
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(&hs, d_sum, 4, cudaMemcpyDeviceToHost));
    long want = 0; int bad = 0;
    for (int i = 0; i < n; i++) { want += (i * 7919L) % 1000; if (i && h[i] < h[i - 1]) bad++; }
    bad += hs != want;
    std::printf("%s: cub radix sort + reduce after a thrust lambda, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
