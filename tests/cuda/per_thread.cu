// Compiled with --default-stream per-thread (tests/exec.sh): every call is
// its _ptds/_ptsz entry point.  A pitched 3-D allocation set, filled by a
// kernel on cudaStreamPerThread, copied with cudaMemcpy3D into a second one
// at an offset, and back to the host; stream ids and attributes.
#include "check.h"
#include <cstring>

__global__ void fill(cudaPitchedPtr p, int w, int h, int d) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x < w && y < h && z < d) {
        float *row = (float *)((char *)p.ptr + (z * h + y) * p.pitch);
        row[x] += (float)(x + 100 * y + 10000 * z);
    }
}

int main() {
    const int w = 37, h = 5, d = 3;
    cudaExtent e = make_cudaExtent(w * sizeof(float), h, d);
    cudaPitchedPtr a, b;
    CHECK(cudaMalloc3D(&a, e));
    CHECK(cudaMalloc3D(&b, make_cudaExtent((w + 3) * sizeof(float), h + 1, d + 1)));
    CHECK(cudaMemset3D(a, 0, e));
    CHECK(cudaMemset3DAsync(b, 0xff, make_cudaExtent((w + 3) * sizeof(float), h + 1, d + 1),
                            cudaStreamPerThread));
    fill<<<dim3((w + 31) / 32, h, d), 32, 0, cudaStreamPerThread>>>(a, w, h, d);
    CHECK(cudaGetLastError());
    cudaMemcpy3DParms p = {};
    p.srcPtr = a;
    p.dstPtr = b;
    p.dstPos = make_cudaPos(2 * sizeof(float), 1, 1);    // bytes, rows, slices
    p.extent = e;
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3DAsync(&p, cudaStreamPerThread));
    static float host[(d + 1) * (h + 1) * (w + 3)];
    cudaMemcpy3DParms q = {};
    q.srcPtr = b;
    q.dstPtr = make_cudaPitchedPtr(host, (w + 3) * sizeof(float), w + 3, h + 1);
    q.extent = make_cudaExtent((w + 3) * sizeof(float), h + 1, d + 1);
    q.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&q));
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    int bad = 0;
    for (int z = 0; z <= d; z++)
        for (int y = 0; y <= h; y++)
            for (int x = 0; x < w + 3; x++) {
                float v = host[(z * (h + 1) + y) * (w + 3) + x];
                int sx = x - 2, sy = y - 1, sz = z - 1;
                bool in = sx >= 0 && sx < w && sy >= 0 && sy < h && sz >= 0 && sz < d;
                unsigned ones = 0xffffffffu;
                float nanv;
                std::memcpy(&nanv, &ones, 4);
                bad += in ? v != (float)(sx + 100 * sy + 10000 * sz)
                          : std::memcmp(&v, &nanv, 4) != 0;
            }
    unsigned long long id = 0;
    CHECK(cudaStreamGetId(cudaStreamPerThread, &id));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaStreamAttrValue av = {};
    av.syncPolicy = cudaSyncPolicySpin;
    CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &av));
    CHECK(cudaStreamDestroy(s));
    std::printf("%s: per-thread default stream, 3-D copies: %d wrong\n", bad ? "FAIL" : "PASS", bad);
    CHECK(cudaFree(a.ptr)); CHECK(cudaFree(b.ptr));
    return bad != 0;
}
