// Texture and surface objects as nvcc compiles them (tex2D, tex3D,
// tex1Dfetch, tex2DLayered, texCubemap, tex2Dgather, surf2Dread /
// surf2Dwrite): every texel holds a linear function of its coordinates,
// so point and bilinear fetches have exact expected values, worked out on
// the host from the CUDA C++ Programming Guide's texture fetching rules.
#include "check.h"
#include <cstring>

__global__ void fetch2d(float4 *out, cudaTextureObject_t t, const float2 *xy, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}
__global__ void fetch3d(float *out, cudaTextureObject_t t, const float4 *xyz, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, xyz[i].x, xyz[i].y, xyz[i].z);
}
__global__ void fetch1d(int *out, cudaTextureObject_t t, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i - 2);
}
__global__ void gather(float4 *out, cudaTextureObject_t t, float x, float y) {
    out[0] = tex2Dgather<float4>(t, x, y, 0);
}
__global__ void layered(float *out, cudaTextureObject_t t) {
    out[threadIdx.x] = tex2DLayered<float>(t, 1.5f, 0.5f, threadIdx.x);
}
__global__ void cube(float *out, cudaTextureObject_t t) {
    const float d[6][3] = { { 1, 0.1f, 0.1f }, { -1, 0.1f, 0.1f }, { 0.1f, 1, 0.1f },
                            { 0.1f, -1, 0.1f }, { 0.1f, 0.1f, 1 }, { 0.1f, 0.1f, -1 } };
    int f = threadIdx.x;
    out[f] = texCubemap<float>(t, d[f][0], d[f][1], d[f][2]);
}
__global__ void negate(cudaSurfaceObject_t s, int w, int h) {
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) {
        short2 v = surf2Dread<short2>(s, x * sizeof(short2), y);
        surf2Dwrite(make_short2(-v.x, v.y + 1), s, x * sizeof(short2), y);
    }
}

static int fails;
static void expect(bool ok, const char *what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    fails += !ok;
}

// A CUDA array of floats, w x h x d (flags: layered, cube map), filled from host memory.
static cudaArray_t float_array(const float *host, int w, int h, int d, unsigned flags) {
    cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    cudaExtent e = make_cudaExtent(w, h, d);
    CHECK(cudaMalloc3DArray(&a, &f1, e, flags));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(const_cast<float *>(host), w * sizeof(float), w, h);
    p.dstArray = a;
    p.extent = e;
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    return a;
}

int main() {
    // a 4 x 3 float2 texture, texel (x, y) = (x + 10 y, -x)
    const int W = 4, H = 3;
    float2 img[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y][x] = make_float2(x + 10.0f * y, -(float)x);
    cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &f2, W, H, cudaArrayTextureGather));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, sizeof img[0], sizeof img[0], H,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    const int N = 4;
    float2 hxy[N] = { { 0.5f, 0.5f }, { 1.75f, 1.25f }, { 9.0f, 0.5f }, { 2.0f, 2.0f } };
    float4 want[N] = { { 0, 0, 0, 1 }, { 8.75f, -1.25f, 0, 1 }, { 3, -3, 0, 1 },
                       { 16.5f, -1.5f, 0, 1 } };
    float2 *xy;
    float4 *out4, h4[N];
    CHECK(cudaMalloc(&xy, sizeof hxy));
    CHECK(cudaMalloc(&out4, sizeof h4));
    CHECK(cudaMemcpy(xy, hxy, sizeof hxy, cudaMemcpyHostToDevice));
    fetch2d<<<1, 32>>>(out4, t, xy, N);
    CHECK(cudaMemcpy(h4, out4, sizeof h4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < N; i++)
        ok = ok && h4[i].x == want[i].x && h4[i].y == want[i].y && h4[i].z == 0 && h4[i].w == 1;
    expect(ok, "tex2D<float4> of a float2 array, bilinear, clamped");

    // tex2Dgather: component 0 of the footprint of (2, 2): texels (1,2), (2,2), (2,1), (1,1)
    cudaTextureObject_t tg;
    td.filterMode = cudaFilterModePoint;
    CHECK(cudaCreateTextureObject(&tg, &rd, &td, nullptr));
    gather<<<1, 1>>>(out4, tg, 2.0f, 2.0f);
    CHECK(cudaMemcpy(h4, out4, sizeof h4[0], cudaMemcpyDeviceToHost));
    expect(h4[0].x == 21 && h4[0].y == 22 && h4[0].z == 12 && h4[0].w == 11,
           "tex2Dgather: counter-clockwise from the lower left");

    // a 3D texture 3 x 2 x 2 of float, texel (x, y, z) = x + 10 y + 100 z, trilinear
    float vol[2][2][3];
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++) vol[z][y][x] = x + 10.0f * y + 100.0f * z;
    cudaArray_t a3 = float_array(&vol[0][0][0], 3, 2, 2, 0);
    rd.res.array.array = a3;
    td.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t t3;
    CHECK(cudaCreateTextureObject(&t3, &rd, &td, nullptr));
    float4 hxyz[2] = { { 1.0f, 1.0f, 1.0f, 0 }, { 2.5f, 1.5f, 1.5f, 0 } };
    float4 *dxyz;
    float *o1, h1[8];
    CHECK(cudaMalloc(&dxyz, sizeof hxyz));
    CHECK(cudaMalloc(&o1, sizeof h1));
    CHECK(cudaMemcpy(dxyz, hxyz, sizeof hxyz, cudaMemcpyHostToDevice));
    fetch3d<<<1, 32>>>(o1, t3, dxyz, 2);
    CHECK(cudaMemcpy(h1, o1, 2 * sizeof(float), cudaMemcpyDeviceToHost));
    expect(h1[0] == 55.5f && h1[1] == 112, "tex3D<float>, trilinear");

    // tex1Dfetch<int> of linear memory; outside it reads 0
    int lin[6] = { 5, 6, 7, 8, 9, 10 }, *dlin, *oi, hi[8];
    CHECK(cudaMalloc(&dlin, sizeof lin));
    CHECK(cudaMalloc(&oi, sizeof hi));
    CHECK(cudaMemcpy(dlin, lin, sizeof lin, cudaMemcpyHostToDevice));
    cudaResourceDesc rl = {};
    rl.resType = cudaResourceTypeLinear;
    rl.res.linear.devPtr = dlin;
    rl.res.linear.desc = cudaCreateChannelDesc<int>();
    rl.res.linear.sizeInBytes = sizeof lin;
    cudaTextureDesc tl = {};
    cudaTextureObject_t t1;
    CHECK(cudaCreateTextureObject(&t1, &rl, &tl, nullptr));
    fetch1d<<<1, 8>>>(oi, t1, 8);
    CHECK(cudaMemcpy(hi, oi, sizeof hi, cudaMemcpyDeviceToHost));
    expect(hi[0] == 0 && hi[1] == 0 && hi[2] == 5 && hi[7] == 10, "tex1Dfetch<int>");

    // a layered array: 3 layers of 2 x 1, texel (x, 0) of layer l = 10 l + x
    float lay[3][2] = { { 0, 1 }, { 10, 11 }, { 20, 21 } };
    cudaArray_t al = float_array(&lay[0][0], 2, 1, 3, cudaArrayLayered);
    rd.res.array.array = al;
    td.filterMode = cudaFilterModePoint;
    cudaTextureObject_t tlay;
    CHECK(cudaCreateTextureObject(&tlay, &rd, &td, nullptr));
    layered<<<1, 3>>>(o1, tlay);
    CHECK(cudaMemcpy(h1, o1, 3 * sizeof(float), cudaMemcpyDeviceToHost));
    expect(h1[0] == 1 && h1[1] == 11 && h1[2] == 21, "tex2DLayered<float>");

    // a cube map of 1 x 1 faces holding their face number
    float faces[6] = { 0, 1, 2, 3, 4, 5 };
    cudaArray_t ac = float_array(faces, 1, 1, 6, cudaArrayCubemap);
    rd.res.array.array = ac;
    td.normalizedCoords = 1;
    cudaTextureObject_t tc;
    CHECK(cudaCreateTextureObject(&tc, &rd, &td, nullptr));
    cube<<<1, 6>>>(o1, tc);
    CHECK(cudaMemcpy(h1, o1, 6 * sizeof(float), cudaMemcpyDeviceToHost));
    ok = true;
    for (int f = 0; f < 6; f++) ok = ok && h1[f] == f;
    expect(ok, "texCubemap<float>: the face of the major axis");

    // a surface of short2: (a, b) becomes (-a, b + 1)
    short2 s[2][3], back[2][3];
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) s[y][x] = make_short2(x + 3 * y, 100 * y);
    cudaChannelFormatDesc fs = cudaCreateChannelDesc<short2>();
    cudaArray_t as;
    CHECK(cudaMallocArray(&as, &fs, 3, 2, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(as, 0, 0, s, sizeof s[0], sizeof s[0], 2, cudaMemcpyHostToDevice));
    cudaResourceDesc rs = {};
    rs.resType = cudaResourceTypeArray;
    rs.res.array.array = as;
    cudaSurfaceObject_t so;
    CHECK(cudaCreateSurfaceObject(&so, &rs));
    negate<<<1, dim3(3, 2)>>>(so, 3, 2);
    CHECK(cudaMemcpy2DFromArray(back, sizeof back[0], as, 0, 0, sizeof back[0], 2,
                                cudaMemcpyDeviceToHost));
    ok = true;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
            ok = ok && back[y][x].x == -s[y][x].x && back[y][x].y == s[y][x].y + 1;
    expect(ok, "surf2Dread / surf2Dwrite of short2");

    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaDestroyTextureObject(tg));
    CHECK(cudaDestroyTextureObject(t3));
    CHECK(cudaDestroyTextureObject(t1));
    CHECK(cudaDestroyTextureObject(tlay));
    CHECK(cudaDestroyTextureObject(tc));
    CHECK(cudaDestroySurfaceObject(so));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFreeArray(a3));
    CHECK(cudaFreeArray(al));
    CHECK(cudaFreeArray(ac));
    CHECK(cudaFreeArray(as));
    std::printf(fails ? "FAIL\n" : "PASS\n");
    return fails != 0;
}
