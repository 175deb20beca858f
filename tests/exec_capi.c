/*
 * exec_capi.c - a CUDA program written in C, as nvcc's generated host code
 * would be: it builds a fat binary around its PTX (plain, LZ4 or
 * Zstandard, as nvcc's -compress-mode none / speed / default do), registers
 * it, its kernel and its variables with the runtime, and drives it through
 * the runtime API.  Run under `smsim exec` (tests/exec.sh), it tests the
 * replacement runtime (cudart/) on machines without a CUDA toolkit.
 *
 *   exec_capi plain|lz4|zstd   the checks; prints PASS or FAIL lines
 *   exec_capi future           PTX only for compute_100: a launch must fail
 *                              with cudaErrorNoKernelImageForDevice
 *   exec_capi repeat           one launch shape 40 times (launch sampling,
 *                              sim.sample_launches): the results and the
 *                              counter of the 40
 *   exec_capi graph            CUDA graphs, captured and built by hand
 * Exit status 0 when every check passed.
 */
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cudart/cudart_abi.h"

/* What nvcc's host code and the program call (the CUDA headers declare them). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, void *tid, void *bid,
                            void *bDim, void *gDim, int *wSize);
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global);
char __cudaInitModule(void **handle);
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off, int kind);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, int kind);
cudaError_t cudaGetSymbolAddress(void **p, const void *sym);
cudaError_t cudaLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t smem,
                             cudaStream_t s);
cudaError_t cudaGetLastError(void);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, cudaStream_t s);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s);
cudaError_t cudaStreamBeginCapture(cudaStream_t s, int mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned flags);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                   size_t nd, const struct cudaKernelNodeParams *p);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *n, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t nd, void *dst,
                                     const void *src, size_t count, int kind);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const void *edge, size_t n);
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x);
cudaError_t cudaGraphDestroy(cudaGraph_t g);

/* c[i] = a[i] * scale; counter counts the threads that wrote. */
static const char ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".const .align 4 .f32 scale;\n"
    ".global .align 4 .u32 counter;\n"
    ".global .attribute(.managed) .align 4 .u32 mcount = 7;\n"
    ".visible .entry vscale(.param .u64 pa, .param .u64 pc, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pc];\n  ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mul.wide.s32 %rd5, %r5, 4;\n"
    "  add.s64 %rd6, %rd3, %rd5;\n  ld.global.f32 %f1, [%rd6];\n"
    "  ld.const.f32 %f2, [scale];\n"
    "  mul.f32 %f3, %f1, %f2;\n"
    "  add.s64 %rd7, %rd4, %rd5;\n  st.global.f32 [%rd7], %f3;\n"
    "  atom.global.add.u32 %r6, [counter], 1;\n"
    "  atom.global.add.u32 %r7, [mcount], 2;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

static void put(unsigned char *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A fat binary with one PTX entry for compute_<arch>, compressed per mode. */
static unsigned char *
make_fatbin(const char *mode, unsigned arch)
{
    size_t usize = sizeof ptx;            /* with its NUL, as nvcc stores it */
    size_t cap = LZ4_compressBound((int)usize) + ZSTD_compressBound(usize) + usize;
    unsigned char *pay = calloc(1, cap);
    size_t csize = 0;
    uint64_t flags = 0x11;                /* 64-bit, Linux */
    if (strcmp(mode, "lz4") == 0) {
        csize = (size_t)LZ4_compress_default(ptx, (char *)pay, (int)usize, (int)cap);
        flags |= 0x2000;
    } else if (strcmp(mode, "zstd") == 0) {
        csize = ZSTD_compress(pay, cap, ptx, usize, 3);
        flags |= 0x8000;
    } else {
        memcpy(pay, ptx, usize);
    }
    size_t stored = flags & 0xa000 ? csize : usize;
    size_t padded = (stored + 7) / 8 * 8;
    size_t total = 16 + 64 + padded;
    unsigned char *fb = calloc(1, total + 8);
    put(fb, 0xBA55ED50u, 4);
    put(fb + 4, 1, 2);
    put(fb + 6, 16, 2);
    put(fb + 8, 64 + padded, 8);
    unsigned char *e = fb + 16;
    put(e, 1, 2);                         /* PTX */
    put(e + 2, 0x0101, 2);
    put(e + 4, 64, 4);
    put(e + 8, padded, 8);
    put(e + 16, flags & 0xa000 ? csize : 0, 4);
    put(e + 24, 0, 2);
    put(e + 26, 8, 2);                    /* PTX ISA 8.0 */
    put(e + 28, arch, 4);
    put(e + 40, flags, 8);
    put(e + 56, flags & 0xa000 ? usize : 0, 8);
    memcpy(e + 64, pay, stored);
    free(pay);
    return fb;
}

/* The host shadows that name the kernel and the variables. */
static void vscale_stub(void) { }
static float scale_shadow;
static unsigned counter_shadow;
static unsigned *mcount;         /* __managed__: the runtime points it at the variable */

static int fails;

static void
expect(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
    fails += !ok;
}

/* CUDA graphs: one captured from a stream (copy in, kernel, copy out),
 * launched twice; one built by hand whose copy-out depends on the kernel
 * through an edge added after both; nothing runs before a launch. */
static int
graphs(void)
{
    enum { N = 512 };
    float ha[N], hc[N];
    for (int i = 0; i < N; i++)
        ha[i] = (float)i;
    float *a = NULL, *c = NULL, s = 2.0f;
    unsigned zero = 0, cnt = 0;
    expect(cudaMalloc((void **)&a, sizeof ha) == cudaSuccess &&
           cudaMalloc((void **)&c, sizeof hc) == cudaSuccess &&
           cudaMemcpyToSymbol(&scale_shadow, &s, 4, 0, cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpyToSymbol(&counter_shadow, &zero, 4, 0, cudaMemcpyHostToDevice) ==
           cudaSuccess, "graphs: set-up");
    cudaStream_t st;
    cudaGraph_t g1, g2;
    cudaGraphExec_t x1, x2;
    int n = N;
    void *args[] = { &a, &c, &n };
    dim3 grid = { N / 128, 1, 1 }, block = { 128, 1, 1 };
    memset(hc, 0, sizeof hc);
    expect(cudaStreamCreate(&st) == cudaSuccess && cudaStreamBeginCapture(st, 0) == cudaSuccess &&
           cudaMemcpyAsync(a, ha, sizeof ha, cudaMemcpyHostToDevice, st) == cudaSuccess &&
           cudaMemsetAsync(c, 0, sizeof hc, st) == cudaSuccess &&
           cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid, block, args, 0, st) ==
           cudaSuccess &&
           cudaMemcpyAsync(hc, c, sizeof hc, cudaMemcpyDeviceToHost, st) == cudaSuccess &&
           cudaStreamEndCapture(st, &g1) == cudaSuccess, "graphs: a stream captured");
    expect(cudaMemcpyFromSymbol(&cnt, &counter_shadow, 4, 0, cudaMemcpyDeviceToHost) ==
           cudaSuccess && cnt == 0 && hc[5] == 0.0f, "graphs: nothing ran while capturing");
    size_t nodes = 0;
    expect(cudaGraphGetNodes(g1, NULL, &nodes) == cudaSuccess && nodes == 4,
           "graphs: four nodes captured");
    expect(cudaGraphInstantiate(&x1, g1, 0) == cudaSuccess &&
           cudaGraphLaunch(x1, st) == cudaSuccess && cudaGraphLaunch(x1, st) == cudaSuccess &&
           cudaStreamSynchronize(st) == cudaSuccess, "graphs: the captured graph launched twice");
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != 2.0f * (float)i;
    expect(cudaMemcpyFromSymbol(&cnt, &counter_shadow, 4, 0, cudaMemcpyDeviceToHost) ==
           cudaSuccess && cnt == 2 * N && bad == 0, "graphs: its results, twice the counter");
    /* by hand: the kernel node, then the copy-out added first with no edge */
    cudaGraphNode_t k, out;
    struct cudaKernelNodeParams kp = { (void *)(uintptr_t)vscale_stub, grid, block, 0, args, NULL };
    memset(hc, 0, sizeof hc);
    expect(cudaGraphCreate(&g2, 0) == cudaSuccess &&
           cudaGraphAddMemcpyNode1D(&out, g2, NULL, 0, hc, c, sizeof hc,
                                    cudaMemcpyDeviceToHost) == cudaSuccess &&
           cudaGraphAddKernelNode(&k, g2, NULL, 0, &kp) == cudaSuccess &&
           cudaGraphAddDependencies(g2, &k, &out, NULL, 1) == cudaSuccess &&
           cudaMemset(c, 0, sizeof hc) == cudaSuccess &&
           cudaGraphInstantiate(&x2, g2, 0) == cudaSuccess && cudaGraphLaunch(x2, st) ==
           cudaSuccess, "graphs: a graph built by hand launched");
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != 2.0f * (float)i;
    expect(bad == 0, "graphs: an edge added afterwards orders the copy after the kernel");
    expect(cudaGraphExecDestroy(x1) == cudaSuccess && cudaGraphExecDestroy(x2) == cudaSuccess &&
           cudaGraphDestroy(g1) == cudaSuccess && cudaGraphDestroy(g2) == cudaSuccess &&
           cudaStreamDestroy(st) == cudaSuccess && cudaFree(a) == cudaSuccess &&
           cudaFree(c) == cudaSuccess, "graphs: destroyed");
    return fails != 0;
}

/* 40 launches of one shape over 100,000 elements; each adds N to counter. */
static int
repeat(void)
{
    enum { N = 100000, LAUNCHES = 40 };
    float *ha = malloc(N * sizeof *ha), *hc = malloc(N * sizeof *hc), *a = NULL, *c = NULL;
    for (int i = 0; i < N; i++)
        ha[i] = (float)(i % 1000) * 0.25f;
    float s = 3.0f;
    unsigned zero = 0, cnt = 0;
    expect(cudaMalloc((void **)&a, N * sizeof *ha) == cudaSuccess &&
           cudaMalloc((void **)&c, N * sizeof *hc) == cudaSuccess &&
           cudaMemcpy(a, ha, N * sizeof *ha, cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpyToSymbol(&scale_shadow, &s, 4, 0, cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpyToSymbol(&counter_shadow, &zero, 4, 0, cudaMemcpyHostToDevice) ==
           cudaSuccess, "set-up");
    int n = N;
    void *args[] = { &a, &c, &n };
    dim3 grid = { (N + 127) / 128, 1, 1 }, block = { 128, 1, 1 };
    int ok = 0;
    for (int i = 0; i < LAUNCHES; i++)
        ok += cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid, block, args, 0,
                               NULL) == cudaSuccess;
    expect(ok == LAUNCHES, "40 launches");
    expect(cudaMemcpy(hc, c, N * sizeof *hc, cudaMemcpyDeviceToHost) == cudaSuccess,
           "cudaMemcpy device to host");
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != ha[i] * 3.0f;
    expect(bad == 0, "the results of the last launch");
    expect(cudaMemcpyFromSymbol(&cnt, &counter_shadow, 4, 0, cudaMemcpyDeviceToHost) ==
           cudaSuccess && cnt == (unsigned)N * LAUNCHES, "every launch ran: the counter");
    printf("counter %u\n", cnt);
    free(ha);
    free(hc);
    return fails != 0;
}

int
main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    int future = strcmp(mode, "future") == 0;
    static struct cudart_fatbin_wrapper wrap;
    wrap.magic = (int)CUDART_FATBINC_MAGIC;
    wrap.version = 1;
    const char *packing = future || strcmp(mode, "repeat") == 0 || strcmp(mode, "graph") == 0
                          ? "plain" : mode;
    wrap.data = (const unsigned long long *)(void *)make_fatbin(packing, future ? 100 : 80);
    void **h = __cudaRegisterFatBinary(&wrap);
    __cudaRegisterFunction(h, (const char *)(uintptr_t)vscale_stub, (char *)"vscale", "vscale",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterVar(h, (char *)&scale_shadow, (char *)"scale", "scale", 0, 4, 1, 0);
    __cudaRegisterVar(h, (char *)&counter_shadow, (char *)"counter", "counter", 0, 4, 0, 0);
    __cudaRegisterManagedVar(h, (void **)&mcount, (char *)"mcount", "mcount", 0, 4, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
    if (strcmp(mode, "repeat") == 0)
        return repeat();
    if (strcmp(mode, "graph") == 0)
        return graphs();
    dim3 grid1 = { 1, 1, 1 }, block1 = { 32, 1, 1 };
    if (future) {                /* nothing loads: the launch says why */
        void *none[] = { NULL, NULL, NULL };
        expect(cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid1, block1, none, 0,
                                NULL) == cudaErrorNoKernelImageForDevice,
               "no PTX for the simulated GPU: cudaErrorNoKernelImageForDevice");
        return fails != 0;
    }

    enum { N = 1000 };
    float ha[N], hc[N];
    for (int i = 0; i < N; i++)
        ha[i] = (float)i - 300.0f;
    float *a = NULL, *c = NULL;
    expect(cudaMalloc((void **)&a, sizeof ha) == cudaSuccess &&
           cudaMalloc((void **)&c, sizeof hc) == cudaSuccess, "cudaMalloc");
    expect(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice) == cudaSuccess,
           "cudaMemcpy host to device");
    expect(cudaMemset(c, 0, sizeof hc) == cudaSuccess, "cudaMemset");
    float s = 1.5f;
    unsigned zero = 0;
    expect(cudaMemcpyToSymbol(&scale_shadow, &s, 4, 0, cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpyToSymbol(&counter_shadow, &zero, 4, 0, cudaMemcpyHostToDevice) ==
           cudaSuccess, "cudaMemcpyToSymbol");
    int n = N;
    void *args[] = { &a, &c, &n };
    dim3 grid = { (N + 127) / 128, 1, 1 }, block = { 128, 1, 1 };
    cudaError_t e = cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid, block, args, 0,
                                     NULL);
    expect(e == cudaSuccess, "cudaLaunchKernel");
    expect(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost) == cudaSuccess,
           "cudaMemcpy device to host");
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != ha[i] * 1.5f;
    expect(bad == 0, "the kernel's results");
    unsigned cnt = 0;
    expect(cudaMemcpyFromSymbol(&cnt, &counter_shadow, 4, 0, cudaMemcpyDeviceToHost) ==
           cudaSuccess && cnt == N, "cudaMemcpyFromSymbol: the __device__ counter");
    void *sa = NULL;
    expect(cudaGetSymbolAddress(&sa, &scale_shadow) == cudaSuccess && sa != NULL,
           "cudaGetSymbolAddress");
    /* __managed__: host code reads it through the pointer the runtime set
     * (nvcc's host code calls __cudaInitModule first) */
    expect(__cudaInitModule(h) == 1 && mcount != NULL && *mcount == 7 + 2 * N,
           "a __managed__ variable the kernel added to, read by the host");
    struct cudaDeviceProp p;
    expect(cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.multiProcessorCount > 0 &&
           p.warpSize == 32 && strstr(p.name, "smsim") != NULL, "cudaGetDeviceProperties");

    /* errors the program gets back, as from NVIDIA's runtime */
    expect(cudaMemcpy(hc, (void *)(uintptr_t)0x1234, 4, cudaMemcpyDeviceToHost) ==
           cudaErrorInvalidValue, "a copy from no device memory: cudaErrorInvalidValue");
    expect(cudaLaunchKernel((const void *)(uintptr_t)main, grid, block, args, 0, NULL) ==
           cudaErrorInvalidDeviceFunction, "an unregistered kernel: "
           "cudaErrorInvalidDeviceFunction");
    dim3 huge = { 2048, 1, 1 };
    expect(cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid, huge, args, 0, NULL) ==
           cudaErrorInvalidConfiguration, "2048 threads a block: cudaErrorInvalidConfiguration");
    expect(cudaGetLastError() == cudaErrorInvalidConfiguration && cudaGetLastError() == cudaSuccess,
           "cudaGetLastError returns the last error once");
    expect(cudaFree(a) == cudaSuccess && cudaFree(a) == cudaErrorInvalidValue,
           "cudaFree twice: cudaErrorInvalidValue");
    /* a kernel reading beyond its buffer: cudaErrorIllegalAddress, and it stays */
    n = N + 64;
    void *args2[] = { &c, &c, &n };
    grid.x = (N + 64 + 127) / 128;
    e = cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid, block, args2, 0, NULL);
    cudaError_t e2 = cudaDeviceSynchronize();
    printf("%s: an out-of-bounds kernel: %s, then %s\n",
           e == cudaErrorIllegalAddress && e2 == cudaErrorIllegalAddress ? "PASS" : "FAIL",
           cudaGetErrorName(e), cudaGetErrorName(e2));
    fails += !(e == cudaErrorIllegalAddress && e2 == cudaErrorIllegalAddress);
    return fails != 0;
}
