// Device-side new and delete (malloc and free): each thread builds a small
// array on the device heap, another kernel reads it after the first has
// ended (the heap lasts from launch to launch).
#include "check.h"
struct Node { int value; int *extra; };
__global__ void build(Node **nodes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Node *p = new Node;
    p->value = i * 3;
    p->extra = new int[4];
    for (int k = 0; k < 4; k++) p->extra[k] = i + k;
    nodes[i] = p;
}
__global__ void use_and_free(Node **nodes, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Node *p = nodes[i];
    out[i] = p->value + p->extra[0] + p->extra[3];
    delete[] p->extra;
    delete p;
}
int main() {
    const int n = 300;
    Node **nodes;
    int *out, h[n];
    CHECK(cudaMalloc(&nodes, n * sizeof(Node *)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    build<<<(n + 127) / 128, 128>>>(nodes, n);
    use_and_free<<<(n + 127) / 128, 128>>>(nodes, out, n);
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 3 * i + i + i + 3;
    std::printf("%s: device new/delete, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
