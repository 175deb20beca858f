// Breadth-first search driven from the host: launch a level kernel until
// a device flag stays clear (the loop a launch file cannot express).
#include "check.h"
#include <vector>
#include <queue>
__global__ void level(const int *rowptr, const int *cols, int *dist, int n, int d, int *changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || dist[v] != d) return;
    for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
        int u = cols[e];
        if (dist[u] < 0) { dist[u] = d + 1; *changed = 1; }
    }
}
int main() {
    const int n = 4096;
    std::vector<int> rowptr(n + 1), cols;
    unsigned seed = 12345;
    for (int v = 0; v < n; v++) {
        rowptr[v] = (int)cols.size();
        int deg = 1 + v % 4;
        for (int k = 0; k < deg; k++) { seed = seed * 1103515245u + 12345u; cols.push_back((int)((seed >> 8) % n)); }
        cols.push_back((v + 1) % n);
    }
    rowptr[n] = (int)cols.size();
    std::vector<int> want(n, -1);
    std::queue<int> q; want[0] = 0; q.push(0);
    while (!q.empty()) { int v = q.front(); q.pop();
        for (int e = rowptr[v]; e < rowptr[v + 1]; e++) if (want[cols[e]] < 0) { want[cols[e]] = want[v] + 1; q.push(cols[e]); } }
    int *drow, *dcol, *ddist, *dchanged;
    CHECK(cudaMalloc(&drow, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&dcol, cols.size() * sizeof(int)));
    CHECK(cudaMalloc(&ddist, n * sizeof(int)));
    CHECK(cudaMalloc(&dchanged, sizeof(int)));
    CHECK(cudaMemcpy(drow, rowptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcol, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(ddist, 0xff, n * sizeof(int)));
    int zero = 0;
    CHECK(cudaMemcpy(ddist, &zero, sizeof zero, cudaMemcpyHostToDevice));
    int d = 0, changed = 1, levels = 0;
    while (changed) {
        CHECK(cudaMemset(dchanged, 0, sizeof(int)));
        level<<<n / 128, 128>>>(drow, dcol, ddist, n, d++, dchanged);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&changed, dchanged, sizeof changed, cudaMemcpyDeviceToHost));
        levels++;
    }
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), ddist, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int v = 0; v < n; v++) bad += got[v] != want[v];
    std::printf("%s: bfs %d levels, %d of %d distances wrong\n", bad ? "FAIL" : "PASS", levels, bad, n);
    return bad != 0;
}
