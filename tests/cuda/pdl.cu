// Programmatic dependent launch (cudaLaunchKernelEx with programmatic stream
// serialisation, cudaTriggerProgrammaticLaunchCompletion and
// cudaGridDependencySynchronize in the kernels) and a launch-completion event.
#include "check.h"
__global__ void producer(int *a) { a[threadIdx.x] = threadIdx.x; cudaTriggerProgrammaticLaunchCompletion(); }
__global__ void consumer(const int *a, int *b) { cudaGridDependencySynchronize(); b[threadIdx.x] = a[threadIdx.x] * 2; }
int main() {
    int *a, *b; CHECK(cudaMalloc(&a, 128)); CHECK(cudaMalloc(&b, 128));
    cudaStream_t s; CHECK(cudaStreamCreate(&s));
    cudaEvent_t ev; CHECK(cudaEventCreate(&ev));
    producer<<<1, 32, 0, s>>>(a);
    cudaLaunchConfig_t cfg = {}; cfg.gridDim = 1; cfg.blockDim = 32; cfg.stream = s;
    cudaLaunchAttribute at[2];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; at[0].val.programmaticStreamSerializationAllowed = 1;
    at[1].id = cudaLaunchAttributeLaunchCompletionEvent; at[1].val.launchCompletionEvent.event = ev; at[1].val.launchCompletionEvent.flags = 0;
    cfg.attrs = at; cfg.numAttrs = 2;
    CHECK(cudaLaunchKernelEx(&cfg, consumer, (const int *)a, b));
    CHECK(cudaEventSynchronize(ev));
    int h[32]; CHECK(cudaMemcpy(h, b, 128, cudaMemcpyDeviceToHost));
    int bad = 0; for (int i = 0; i < 32; i++) bad += h[i] != 2 * i;
    CHECK(cudaEventQuery(ev));
    std::printf("%s: programmatic dependent launch, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
