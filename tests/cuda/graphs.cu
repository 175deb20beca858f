// CUDA graphs: one captured from two streams (a fork and a join through
// events, async copies, a memset, a host function), one built node by node
// (memcpy, memset of 4-byte elements, kernel, host and child-graph nodes, a
// dependency added afterwards), each instantiated and launched several
// times, a kernel node's arguments changed in the executable graph, and
// events in a graph launch's stream timing it.
#include "check.h"
#include <cstring>

__global__ void scale_add(float *y, const float *x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] + b;
}
__global__ void square(float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] * y[i];
}

static int host_calls;
static void CUDART_CB count_call(void *data) { host_calls += *(int *)data; }

int main() {
    const int n = 4096;
    float *hx, *hy;
    CHECK(cudaMallocHost(&hx, n * sizeof(float)));
    CHECK(cudaMallocHost(&hy, n * sizeof(float)));
    for (int i = 0; i < n; i++) hx[i] = (float)(i % 7);
    float *x, *y, *z;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&z, n * sizeof(float)));

    // 1. capture: s0 copies x in and forks to s1 (z = 0, z = 1 x + z + 1);
    //    s0 sets y = 0 and runs y = 2 x + y; s1 joins; s0 squares y, adds z
    //    through scale_add (y = 1 z + y + 0) and copies y out
    cudaStream_t s0, s1;
    CHECK(cudaStreamCreate(&s0));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    cudaEvent_t fork, join, t0, t1;
    CHECK(cudaEventCreate(&fork)); CHECK(cudaEventCreate(&join));
    CHECK(cudaEventCreate(&t0)); CHECK(cudaEventCreate(&t1));
    int one = 1;
    CHECK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s0, &st));
    bool capturing = st == cudaStreamCaptureStatusActive;
    CHECK(cudaMemcpyAsync(x, hx, n * sizeof(float), cudaMemcpyHostToDevice, s0));
    CHECK(cudaEventRecord(fork, s0));
    CHECK(cudaStreamWaitEvent(s1, fork, 0));
    CHECK(cudaMemsetAsync(z, 0, n * sizeof(float), s1));
    scale_add<<<n / 256, 256, 0, s1>>>(z, x, 1.0f, 1.0f, n);
    CHECK(cudaEventRecord(join, s1));
    CHECK(cudaMemsetAsync(y, 0, n * sizeof(float), s0));
    scale_add<<<n / 256, 256, 0, s0>>>(y, x, 2.0f, 0.0f, n);
    CHECK(cudaStreamWaitEvent(s0, join, 0));
    square<<<n / 256, 256, 0, s0>>>(y, n);
    scale_add<<<n / 256, 256, 0, s0>>>(y, z, 1.0f, 0.0f, n);
    CHECK(cudaMemcpyAsync(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost, s0));
    CHECK(cudaLaunchHostFunc(s0, count_call, &one));
    cudaGraph_t g1;
    CHECK(cudaStreamEndCapture(s0, &g1));
    CHECK(cudaStreamIsCapturing(s1, &st));
    capturing = capturing && st == cudaStreamCaptureStatusNone;   // s1's capture ended too
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(g1, nullptr, &nodes));
    bool ran_early = host_calls != 0;
    cudaGraphExec_t e1;
    CHECK(cudaGraphInstantiate(&e1, g1, 0));
    int bad1 = 0;
    for (int rep = 0; rep < 3; rep++) {
        std::memset(hy, 0, n * sizeof(float));
        CHECK(cudaEventRecord(t0, s0));
        CHECK(cudaGraphLaunch(e1, s0));
        CHECK(cudaEventRecord(t1, s0));
        CHECK(cudaStreamSynchronize(s0));
        for (int i = 0; i < n; i++) {
            float xv = (float)(i % 7), want = 4 * xv * xv + xv + 1;
            bad1 += hy[i] != want;
        }
    }
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));

    // 2. built by hand: copy x in, set y to 3 (4-byte elements), y = 2 x + y + 1
    //    (changed to 3 x + y + 1 in the executable graph), a child graph
    //    squaring y, copy y out, a host node; the copy-out's dependency on
    //    the child is added after both exist
    cudaGraph_t g2, child;
    CHECK(cudaGraphCreate(&g2, 0));
    CHECK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t cin, cset, ck, cchild, cout, chost, csq;
    CHECK(cudaGraphAddMemcpyNode1D(&cin, g2, nullptr, 0, x, hx, n * sizeof(float),
                                   cudaMemcpyHostToDevice));
    float three = 3.0f;
    unsigned bits;
    std::memcpy(&bits, &three, 4);
    cudaMemsetParams mp = {};
    mp.dst = y; mp.value = bits; mp.elementSize = 4; mp.width = n; mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&cset, g2, nullptr, 0, &mp));
    float a = 2.0f, b = 1.0f;
    int nn = n;
    const float *xc = x;
    void *args[] = { &y, &xc, &a, &b, &nn };
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale_add; kp.gridDim = dim3(n / 256); kp.blockDim = dim3(256);
    kp.kernelParams = args;
    cudaGraphNode_t deps[2] = { cin, cset };
    CHECK(cudaGraphAddKernelNode(&ck, g2, deps, 2, &kp));
    a = 100.0f;                  // the node copied its arguments already
    void *sargs[] = { &y, &nn };
    cudaKernelNodeParams sp = {};
    sp.func = (void *)square; sp.gridDim = dim3(n / 256); sp.blockDim = dim3(256);
    sp.kernelParams = sargs;
    CHECK(cudaGraphAddKernelNode(&csq, child, nullptr, 0, &sp));
    CHECK(cudaGraphAddChildGraphNode(&cchild, g2, &ck, 1, child));
    cudaMemcpy3DParms cp = {};
    cp.srcPtr = make_cudaPitchedPtr(y, n * sizeof(float), n, 1);
    cp.dstPtr = make_cudaPitchedPtr(hy, n * sizeof(float), n, 1);
    cp.extent = make_cudaExtent(n * sizeof(float), 1, 1);
    cp.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddMemcpyNode(&cout, g2, nullptr, 0, &cp));
    CHECK(cudaGraphAddDependencies(g2, &cchild, &cout, nullptr, 1));
    int two = 2;
    cudaHostNodeParams hp = {};
    hp.fn = count_call; hp.userData = &two;
    CHECK(cudaGraphAddHostNode(&chost, g2, &cout, 1, &hp));
    cudaGraphExec_t e2;
    CHECK(cudaGraphInstantiate(&e2, g2, 0));
    std::memset(hy, 0, n * sizeof(float));
    CHECK(cudaGraphLaunch(e2, s0));
    CHECK(cudaStreamSynchronize(s0));
    int bad2 = 0;
    for (int i = 0; i < n; i++) {
        float v = 2 * (float)(i % 7) + 3 + 1;
        bad2 += hy[i] != v * v;
    }
    a = 3.0f;                    // the executable graph's kernel node, changed
    CHECK(cudaGraphExecKernelNodeSetParams(e2, ck, &kp));
    std::memset(hy, 0, n * sizeof(float));
    CHECK(cudaGraphLaunch(e2, s0));
    CHECK(cudaStreamSynchronize(s0));
    for (int i = 0; i < n; i++) {
        float v = 3 * (float)(i % 7) + 3 + 1;
        bad2 += hy[i] != v * v;
    }
    bool ok = capturing && !ran_early && nodes == 9 && bad1 == 0 && bad2 == 0 &&
              host_calls == 3 + 2 * 2 && ms > 0;
    std::printf("%s: graphs: captured %zu nodes, %d + %d wrong, %d host calls, %.6f ms a launch\n",
                ok ? "PASS" : "FAIL", nodes, bad1, bad2, host_calls, ms);
    CHECK(cudaGraphExecDestroy(e1)); CHECK(cudaGraphExecDestroy(e2));
    CHECK(cudaGraphDestroy(g1)); CHECK(cudaGraphDestroy(g2)); CHECK(cudaGraphDestroy(child));
    CHECK(cudaStreamDestroy(s0)); CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(z));
    CHECK(cudaFreeHost(hx)); CHECK(cudaFreeHost(hy));
    return !ok;
}
