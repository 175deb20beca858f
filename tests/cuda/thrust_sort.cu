// Thrust (and CUB under it): a radix sort whose blocks wait on each
// other's published prefixes (decoupled look-back), then a reduction;
// long mangled kernel names, templates, occupancy and attribute queries.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <cstdio>
int main() {
    const int n = 10000;
    thrust::host_vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (i * 7919) % n;
    thrust::device_vector<int> d = h;
    thrust::sort(d.begin(), d.end());
    long long s = thrust::reduce(d.begin(), d.end(), 0LL);
    thrust::host_vector<int> r = d;
    bool ok = s == (long long)n * (n - 1) / 2;
    for (int i = 0; i < n; i++) ok = ok && r[i] == i;
    std::printf("%s: thrust sort + reduce of %d, sum %lld\n", ok ? "PASS" : "FAIL", n, s);
    return !ok;
}
