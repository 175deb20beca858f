// Four host threads, each with its own stream, memory and launches, and a
// host function each stream runs after its work: the runtime serialises
// the calls; every thread gets its own results.
#include "check.h"
#include <thread>
#include <vector>
#include <atomic>
__global__ void add_k(int *v, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += k;
}
static std::atomic<int> hostfns{0};
static void CUDART_CB done(void *arg) { (void)arg; hostfns++; }
int main() {
    const int threads = 4, n = 2000;
    std::vector<int> bad(threads, -1);
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++)
        ts.emplace_back([t, &bad]() {
            cudaStream_t s;
            CHECK(cudaStreamCreate(&s));
            std::vector<int> h(n);
            for (int i = 0; i < n; i++) h[i] = i * (t + 1);
            int *d;
            CHECK(cudaMalloc(&d, n * sizeof(int)));
            CHECK(cudaMemcpyAsync(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
            for (int k = 0; k < 3; k++) add_k<<<(n + 127) / 128, 128, 0, s>>>(d, n, t + k);
            CHECK(cudaLaunchHostFunc(s, done, nullptr));
            CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
            CHECK(cudaStreamSynchronize(s));
            int b = 0;
            for (int i = 0; i < n; i++) b += h[i] != i * (t + 1) + 3 * t + 3;
            bad[t] = b;
            CHECK(cudaFree(d));
            CHECK(cudaStreamDestroy(s));
        });
    for (auto &th : ts) th.join();
    int total = 0;
    for (int t = 0; t < threads; t++) total += bad[t];
    bool ok = total == 0 && hostfns == threads;
    std::printf("%s: %d host threads, %d wrong, %d host functions ran\n", ok ? "PASS" : "FAIL",
                threads, total, (int)hostfns);
    return !ok;
}
