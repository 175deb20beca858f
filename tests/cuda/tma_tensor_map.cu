// A Hopper TMA program as the CUDA programming guide writes one: the host
// gets cuTensorMapEncodeTiled through cudaGetDriverEntryPoint (runtime API
// only) and encodes a 2-D tensor map of a 100 x 70 float matrix; the kernel
// (a __grid_constant__ CUtensorMap) copies 32 x 32 tiles into shared memory
// with cp.async.bulk.tensor and an mbarrier (libcu++'s cuda::barrier), one
// of them over the matrix's edge (zero-filled), and writes them out.  The
// encoder must also refuse a map that breaks the driver's rules.
#include "check.h"
#include <cuda.h>
#include <cuda/barrier>
#include <cudaTypedefs.h>
#include <utility>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int W = 100, H = 70, T = 32;

__global__ void tiles(const __grid_constant__ CUtensorMap tm, float *out) {
    __shared__ alignas(128) float smem[T][T];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    int x0 = blockIdx.x * T, y0 = blockIdx.y * T;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&smem, &tm, x0, y0, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    float *o = out + ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * T * T;
    for (int i = threadIdx.x; i < T * T; i += blockDim.x)
        o[i] = smem[i / T][i % T];
}

int main() {
    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
    if (encode == nullptr || q != cudaDriverEntryPointSuccess) {
        std::printf("FAIL: no cuTensorMapEncodeTiled\n");
        return 1;
    }
    static float h[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) h[y][x] = (float)(y * 1000 + x);
    float *d, *out;
    const int gx = (W + T - 1) / T, gy = (H + T - 1) / T;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMalloc(&out, (size_t)gx * gy * T * T * sizeof(float)));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    CUtensorMap tm;
    cuuint64_t dims[2] = { W, H }, strides[1] = { W * sizeof(float) };
    cuuint32_t box[2] = { T, T }, estr[2] = { 1, 1 };
    // a row stride that is no multiple of 16 bytes: refused
    cuuint64_t bad_strides[1] = { W * sizeof(float) + 4 };
    CUresult refused = encode(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, bad_strides, box,
                              estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    CUresult ok_map = encode(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, estr,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    tiles<<<dim3(gx, gy), 128>>>(tm, out);
    CHECK(cudaGetLastError());
    static float got[3][4][T * T];
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int by = 0; by < gy; by++)
        for (int bx = 0; bx < gx; bx++)
            for (int i = 0; i < T * T; i++) {
                int y = by * T + i / T, x = bx * T + i % T;
                float want = y < H && x < W ? h[y][x] : 0.0f;
                bad += got[by][bx][i] != want;
            }
    bool ok = refused != CUDA_SUCCESS && ok_map == CUDA_SUCCESS && bad == 0;
    std::printf("%s: TMA tiles through a tensor map from cuTensorMapEncodeTiled: %d wrong%s\n",
                ok ? "PASS" : "FAIL", bad, refused != CUDA_SUCCESS ? "" : ", a bad map accepted");
    CHECK(cudaFree(d)); CHECK(cudaFree(out));
    return !ok;
}
