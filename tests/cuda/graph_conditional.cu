// Conditional graph nodes (CUDA 12.4+): a while loop whose body kernel
// counts down and clears the condition from the device
// (cudaGraphSetConditional) when it reaches zero, launched twice with the
// handle's default value assigned at each launch; an if/else node whose
// condition a kernel upstream sets, with its bodies filled by capturing a
// stream into them (cudaStreamBeginCaptureToGraph).
#include "check.h"

__global__ void count_down(int *n, int *runs, cudaGraphConditionalHandle h) {
    runs[0]++;
    if (--*n == 0) cudaGraphSetConditional(h, 0);
}
__global__ void decide(const int *v, cudaGraphConditionalHandle h) {
    cudaGraphSetConditional(h, *v > 0);
}
__global__ void put(int *out, int x) { *out = x; }

int main() {
    int *n, *runs, *v, *out;
    CHECK(cudaMalloc(&n, 4)); CHECK(cudaMalloc(&runs, 4));
    CHECK(cudaMalloc(&v, 4)); CHECK(cudaMalloc(&out, 4));
    int bad = 0;

    // while: default 1 (a do-while), the body counts n down to zero
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional};
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    cudaGraphNode_t cn;
    CHECK(cudaGraphAddNode(&cn, g, nullptr, nullptr, 0, &cp));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamBeginCaptureToGraph(s, cp.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                        cudaStreamCaptureModeGlobal));
    count_down<<<1, 1, 0, s>>>(n, runs, h);
    CHECK(cudaStreamEndCapture(s, nullptr));
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, nullptr, nullptr, 0));
    for (int start : {7, 2}) {
        int zero = 0, hn = -1, hr = -1;
        CHECK(cudaMemcpy(n, &start, 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(runs, &zero, 4, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(x, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(&hn, n, 4, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&hr, runs, 4, cudaMemcpyDeviceToHost));
        if (hn != 0 || hr != start) {
            std::printf("FAIL: while from %d: n = %d after %d runs\n", start, hn, hr);
            bad++;
        }
    }

    // if/else after a kernel that sets the condition: out = 1 or 2
    cudaGraph_t g2;
    CHECK(cudaGraphCreate(&g2, 0));
    cudaGraphConditionalHandle h2;
    CHECK(cudaGraphConditionalHandleCreate(&h2, g2, 0, 0));
    cudaGraphNodeParams kp = {cudaGraphNodeTypeKernel};
    void *kargs[] = {&v, &h2};
    kp.kernel.func = (void *)decide;
    kp.kernel.gridDim = dim3(1);
    kp.kernel.blockDim = dim3(1);
    kp.kernel.kernelParams = kargs;
    cudaGraphNode_t kn, ifn;
    CHECK(cudaGraphAddNode(&kn, g2, nullptr, nullptr, 0, &kp));
    cudaGraphNodeParams ip = {cudaGraphNodeTypeConditional};
    ip.conditional.handle = h2;
    ip.conditional.type = cudaGraphCondTypeIf;
    ip.conditional.size = 2;
    CHECK(cudaGraphAddNode(&ifn, g2, &kn, nullptr, 1, &ip));
    for (int b = 0; b < 2; b++) {
        CHECK(cudaStreamBeginCaptureToGraph(s, ip.conditional.phGraph_out[b], nullptr, nullptr, 0,
                                            cudaStreamCaptureModeGlobal));
        put<<<1, 1, 0, s>>>(out, b + 1);
        CHECK(cudaStreamEndCapture(s, nullptr));
    }
    cudaGraphExec_t x2;
    CHECK(cudaGraphInstantiate(&x2, g2, nullptr, nullptr, 0));
    for (int hv : {5, -5}) {
        int ho = 0, zero = 0;
        CHECK(cudaMemcpy(v, &hv, 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(out, &zero, 4, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(x2, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(&ho, out, 4, cudaMemcpyDeviceToHost));
        if (ho != (hv > 0 ? 1 : 2)) {
            std::printf("FAIL: if/else with %d: out = %d\n", hv, ho);
            bad++;
        }
    }
    CHECK(cudaGraphExecDestroy(x)); CHECK(cudaGraphExecDestroy(x2));
    CHECK(cudaGraphDestroy(g)); CHECK(cudaGraphDestroy(g2));
    CHECK(cudaStreamDestroy(s));
    if (bad == 0) std::printf("PASS: conditional graph nodes\n");
    return bad != 0;
}
