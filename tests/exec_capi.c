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
 *   exec_capi spin             one launch shape 30 times whose warps poll an
 *                              mbarrier (launch sampling of spinning work)
 *   exec_capi late             a cudaFree after the runtime shut down (an exit
 *                              handler that runs after its own)
 *   exec_capi reuse            a kernel simulated, then estimated and run
 *                              functionally in the blocks the simulated
 *                              launches left
 *   exec_capi graph            CUDA graphs, captured and built by hand;
 *                              conditional nodes (if/else, while, switch)
 *   exec_capi texture          CUDA arrays, texture and surface objects
 * Exit status 0 when every check passed.
 */
#include <lz4.h>
#include <math.h>
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
cudaError_t cudaDeviceGetAttribute(int *value, int attr, int dev);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, cudaStream_t s);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s);
cudaError_t cudaStreamBeginCapture(cudaStream_t s, int mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
/* the entry points of a program built with --default-stream per-thread */
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t s, int mode);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **args, size_t smem,
                                  cudaStream_t s);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, int kind, cudaStream_t s);
#define cudaStreamPerThread ((cudaStream_t)0x2)
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
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *h, cudaGraph_t g,
                                             unsigned dflt, unsigned flags);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                             const void *edges, size_t nd, struct cudaGraphNodeParams *p);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int *status, unsigned long long *id,
                                     cudaGraph_t *g, const cudaGraphNode_t **deps,
                                     const void **edges, size_t *nd);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                const void *edges, size_t nd, unsigned flags);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
                                          const cudaGraphNode_t *deps, const void *edges,
                                          size_t nd, int mode);
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f);
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int dev);
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const void *props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, int attr, void *v);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, int attr, void *v);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                     size_t nd, struct cudaMemAllocNodeParams *p);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
                                    size_t nd, void *dptr);
cudaError_t cudaDeviceGetGraphMemAttribute(int dev, int attr, void *value);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);
cudaError_t cudaCtxResetPersistingL2Cache(void);
cudaError_t cudaDeviceGetLimit(size_t *value, int limit);
cudaError_t cudaMallocArray(cudaArray_t *a, const struct cudaChannelFormatDesc *d, size_t w,
                            size_t h, unsigned flags);
cudaError_t cudaMalloc3DArray(cudaArray_t *a, const struct cudaChannelFormatDesc *d,
                              struct cudaExtent e, unsigned flags);
cudaError_t cudaFreeArray(cudaArray_t a);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *d, struct cudaExtent *e,
                             unsigned *flags, cudaArray_t a);
cudaError_t cudaMemcpy2DToArray(cudaArray_t d, size_t wo, size_t ho, const void *src, size_t sp,
                                size_t w, size_t h, int kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dp, cudaArray_const_t s, size_t wo, size_t ho,
                                  size_t w, size_t h, int kind);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const struct cudaResourceDesc *r,
                                    const struct cudaTextureDesc *d, const void *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *r, cudaTextureObject_t t);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const struct cudaResourceDesc *r);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s);

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
    "}\n"
    /* a[i] += 1 at i = the thread's index + s (mode reuse: NVIDIA's
     * coalescing example's offset kernel, as nvcc 13 writes it) */
    ".visible .entry bump(.param .u64 pa, .param .u32 ps)\n"
    "{\n"
    "  .reg .f32 %f<3>;\n  .reg .b32 %r<7>;\n  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u32 %r1, [ps];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n  add.s32 %r6, %r5, %r1;\n"
    "  mul.wide.s32 %rd3, %r6, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  ld.global.f32 %f1, [%rd4];\n  add.f32 %f2, %f1, 0f3F800000;\n"
    "  st.global.f32 [%rd4], %f2;\n"
    "  ret;\n"
    "}\n"
    /* c[i] = 2 a[i] (mode replay: a launch whose effect is all in memory) */
    ".visible .entry twice(.param .u64 pa, .param .u64 pc, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<3>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<7>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pc];\n  ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mul.wide.s32 %rd5, %r5, 4;\n  add.s64 %rd6, %rd3, %rd5;\n  ld.global.f32 %f1, [%rd6];\n"
    "  add.f32 %f2, %f1, %f1;\n  add.s64 %rd6, %rd4, %rd5;\n  st.global.f32 [%rd6], %f2;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    /* mode spin: warp 1 runs a chain of n dependent FMAs and arrives on
     * the block's mbarrier; warp 0 polls it (test_wait) until then, and
     * thread 0 writes n to o[block] */
    ".visible .entry spin(.param .u64 po, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<6>;\n  .reg .f32 %f<2>;\n  .reg .b64 %rd<6>;\n"
    "  .shared .align 8 .b64 bar;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, bar;\n"
    "  setp.eq.u32 %p1, %r2, 0;\n"
    "  @%p1 mbarrier.init.shared.b64 [%r3], 1;\n"
    "  bar.sync 0;\n"
    "  setp.lt.u32 %p2, %r2, 32;\n"
    "  @%p2 bra WAIT;\n"
    "  mov.f32 %f1, 0f3F800000;\n  mov.u32 %r4, 0;\n"
    "LOOP:\n"
    "  fma.rn.f32 %f1, %f1, 0f3F800001, 0f3F800000;\n"
    "  add.u32 %r4, %r4, 1;\n  setp.lt.u32 %p3, %r4, %r1;\n"
    "  @%p3 bra LOOP;\n"
    "  setp.eq.u32 %p3, %r2, 32;\n"
    "  @%p3 mbarrier.arrive.shared.b64 %rd2, [%r3];\n"
    "  bra.uni DONE;\n"
    "WAIT:\n"
    "  mbarrier.test_wait.parity.shared.b64 %p3, [%r3], 0;\n"
    "  @!%p3 bra WAIT;\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  mov.u32 %r5, %ctaid.x;\n"
    "  mul.wide.u32 %rd4, %r5, 4;\n  add.s64 %rd5, %rd3, %rd4;\n"
    "  @%p1 st.global.u32 [%rd5], %r1;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    /* texture and surface objects (mode texture): thread i fetches at
     * xy[i] (a layer or the cube direction first where the geometry has
     * one) and writes the four components to out[4 i ..] */
    ".visible .entry tex2d(.param .u64 po, .param .u64 pt, .param .u64 pxy, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u64 %rd2, [pt];\n  ld.param.u64 %rd3, [pxy];\n"
    "  ld.param.u32 %r1, [pn];\n  mov.u32 %r5, %tid.x;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra T2;\n"
    "  mul.wide.s32 %rd4, %r5, 16;\n  add.s64 %rd5, %rd3, %rd4;\n  add.s64 %rd6, %rd1, %rd4;\n"
    "  ld.global.v2.f32 {%f1, %f2}, [%rd5];\n"
    "  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f2}];\n"
    "  st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};\n"
    "T2:\n  ret;\n}\n"
    ".visible .entry texa2d(.param .u64 po, .param .u64 pt, .param .u64 pxy, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u64 %rd2, [pt];\n  ld.param.u64 %rd3, [pxy];\n"
    "  ld.param.u32 %r1, [pn];\n  mov.u32 %r5, %tid.x;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra TA;\n"
    "  mul.wide.s32 %rd4, %r5, 16;\n  add.s64 %rd5, %rd3, %rd4;\n  add.s64 %rd6, %rd1, %rd4;\n"
    "  ld.global.u32 %r2, [%rd5];\n  ld.global.f32 %f1, [%rd5+4];\n  ld.global.f32 %f2, [%rd5+8];\n"
    "  tex.a2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%r2, %f1, %f2, %f2}];\n"
    "  st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};\n"
    "TA:\n  ret;\n}\n"
    ".visible .entry texcube(.param .u64 po, .param .u64 pt, .param .u64 pxy, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u64 %rd2, [pt];\n  ld.param.u64 %rd3, [pxy];\n"
    "  ld.param.u32 %r1, [pn];\n  mov.u32 %r5, %tid.x;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra TC;\n"
    "  mul.wide.s32 %rd4, %r5, 16;\n  add.s64 %rd5, %rd3, %rd4;\n  add.s64 %rd6, %rd1, %rd4;\n"
    "  ld.global.v4.f32 {%f1, %f2, %f7, %f0}, [%rd5];\n"
    "  tex.cube.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f2, %f7, %f7}];\n"
    "  st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};\n"
    "TC:\n  ret;\n}\n"
    /* out[4 i ..] = tex1Dfetch<int4>(t, xy[4 i]); then txq width, height */
    ".visible .entry tex1di(.param .u64 po, .param .u64 pt, .param .u64 pxy, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u64 %rd2, [pt];\n  ld.param.u64 %rd3, [pxy];\n"
    "  ld.param.u32 %r1, [pn];\n  mov.u32 %r5, %tid.x;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra TI;\n"
    "  mul.wide.s32 %rd4, %r5, 16;\n  add.s64 %rd5, %rd3, %rd4;\n  add.s64 %rd6, %rd1, %rd4;\n"
    "  ld.global.u32 %r2, [%rd5];\n"
    "  tex.1d.v4.s32.s32 {%r6, %r7, %r8, %r9}, [%rd2, {%r2}];\n"
    "  st.global.v4.u32 [%rd6], {%r6, %r7, %r8, %r9};\n"
    "TI:\n  ret;\n}\n"
    ".visible .entry texq(.param .u64 po, .param .u64 pt)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u64 %rd2, [pt];\n"
    "  txq.width.b32 %r1, [%rd2];\n  txq.height.b32 %r2, [%rd2];\n"
    "  txq.normalized_coords.b32 %r3, [%rd2];\n"
    "  st.global.v2.u32 [%rd1], {%r1, %r2};\n  st.global.u32 [%rd1+8], %r3;\n"
    "  ret;\n}\n"
    /* *out = whether device malloc gave 16 MB (more than the default 8 MB heap) */
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
    ".visible .entry heapk(.param .u64 po)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [po];\n  mov.u64 %rd2, 16777216;\n"
    "  {\n  .param .b64 param0;\n  st.param.b64 [param0], %rd2;\n  .param .b64 retval0;\n"
    "  call.uni (retval0), malloc, (param0);\n  ld.param.b64 %rd3, [retval0];\n  }\n"
    "  setp.ne.s64 %p1, %rd3, 0;\n  selp.u32 %r1, 1, 0, %p1;\n  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n}\n"
    /* every element v of a w x h surface of u32 becomes 2 v + 1 */
    ".visible .entry surf2x(.param .u64 ps, .param .u32 pw)\n"
    "{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [ps];\n  ld.param.u32 %r1, [pw];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %tid.y;\n  shl.b32 %r4, %r2, 2;\n"
    "  suld.b.2d.b32.trap {%r5}, [%rd1, {%r4, %r3}];\n"
    "  mad.lo.u32 %r6, %r5, 2, 1;\n"
    "  sust.b.2d.b32.trap [%rd1, {%r4, %r3}], {%r6};\n"
    "  ret;\n}\n"
    /* conditional graph nodes: condk decrements *pc and sets the handle to
     * what is left (a while loop's body); setk sets it to *pv */
    ".extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);\n"
    ".visible .entry condk(.param .u64 pc, .param .u64 ph)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [pc];\n  ld.param.u64 %rd2, [ph];\n  cvta.to.global.u64 %rd3, %rd1;\n"
    "  ld.global.u32 %r1, [%rd3];\n  sub.u32 %r2, %r1, 1;\n  st.global.u32 [%rd3], %r2;\n"
    "  {\n  .param .b64 p0;\n  .param .b32 p1;\n  st.param.b64 [p0], %rd2;\n"
    "  st.param.b32 [p1], %r2;\n  call.uni cudaGraphSetConditional, (p0, p1);\n  }\n"
    "  ret;\n}\n"
    ".visible .entry setk(.param .u64 ph, .param .u64 pv)\n"
    "{\n"
    "  .reg .b32 %r<2>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [ph];\n  ld.param.u64 %rd2, [pv];\n  cvta.to.global.u64 %rd3, %rd2;\n"
    "  ld.global.u32 %r1, [%rd3];\n"
    "  {\n  .param .b64 p0;\n  .param .b32 p1;\n  st.param.b64 [p0], %rd1;\n"
    "  st.param.b32 [p1], %r1;\n  call.uni cudaGraphSetConditional, (p0, p1);\n  }\n"
    "  ret;\n}\n";

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

/* The host shadows that name the kernels and the variables. */
static void vscale_stub(void) { }
static void bump_stub(void) { }
static void twice_stub(void) { }
static void tex2d_stub(void) { }
static void texa2d_stub(void) { }
static void texcube_stub(void) { }
static void tex1di_stub(void) { }
static void texq_stub(void) { }
static void surf2x_stub(void) { }
static void heapk_stub(void) { }
static void condk_stub(void) { }
static void setk_stub(void) { }
static void spin_stub(void) { }
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
    /* memory nodes: c2 allocated by a node, written by the kernel, copied
     * out, freed by a node; launched twice at the same address.  Then a
     * captured cudaMallocAsync whose memory the program frees itself. */
    cudaGraph_t g3, g4;
    cudaGraphExec_t x3, x4;
    cudaGraphNode_t al, kn, cp, fr;
    struct cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = 1;              /* pinned, on device 0 */
    ap.poolProps.locationType = 1;
    ap.bytesize = sizeof hc;
    float *c2 = NULL, *c3 = NULL;
    void *args3[] = { &a, &c2, &n };
    unsigned long long used = 1, high = 0;
    int ok = cudaGraphCreate(&g3, 0) == cudaSuccess &&
             cudaGraphAddMemAllocNode(&al, g3, NULL, 0, &ap) == cudaSuccess && ap.dptr != NULL;
    c2 = ap.dptr;
    struct cudaKernelNodeParams kp3 = { (void *)(uintptr_t)vscale_stub, grid, block, 0, args3,
                                        NULL };
    memset(hc, 0, sizeof hc);
    ok = ok && cudaGraphAddKernelNode(&kn, g3, &al, 1, &kp3) == cudaSuccess &&
         cudaGraphAddMemcpyNode1D(&cp, g3, &kn, 1, hc, c2, sizeof hc, cudaMemcpyDeviceToHost) ==
         cudaSuccess && cudaGraphAddMemFreeNode(&fr, g3, &cp, 1, c2) == cudaSuccess &&
         cudaGraphInstantiate(&x3, g3, 0) == cudaSuccess && cudaGraphLaunch(x3, st) == cudaSuccess &&
         cudaGraphLaunch(x3, st) == cudaSuccess && cudaStreamSynchronize(st) == cudaSuccess &&
         cudaDeviceGetGraphMemAttribute(0, 0, &used) == cudaSuccess && used == 0 &&
         cudaDeviceGetGraphMemAttribute(0, 1, &high) == cudaSuccess && high == sizeof hc;
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != 2.0f * (float)i;
    expect(ok && bad == 0, "graphs: allocation and free nodes, launched twice");
    ok = cudaStreamBeginCapture(st, 0) == cudaSuccess &&
         cudaMallocAsync((void **)&c3, sizeof hc, st) == cudaSuccess &&
         cudaMemsetAsync(c3, 0, sizeof hc, st) == cudaSuccess &&
         cudaStreamEndCapture(st, &g4) == cudaSuccess && cudaGraphGetNodes(g4, NULL, &nodes) ==
         cudaSuccess && nodes == 2 && cudaGraphInstantiate(&x4, g4, 0) == cudaSuccess &&
         cudaGraphLaunch(x4, st) == cudaSuccess &&
         cudaDeviceGetGraphMemAttribute(0, 0, &used) == cudaSuccess && used == sizeof hc &&
         cudaGraphLaunch(x4, st) != cudaSuccess &&     /* still allocated: refused */
         cudaFree(c3) == cudaSuccess && cudaGraphLaunch(x4, st) == cudaSuccess &&
         cudaFreeAsync(c3, st) == cudaSuccess;
    cudaGetLastError();
    expect(ok, "graphs: a captured cudaMallocAsync, freed by the program between launches");
    /* an allocation after the free of another (graphMemoryFootprint's
     * virtual address reuse) takes its address; one beside it, or larger,
     * does not; a launch runs them in turn at the shared address */
    cudaGraph_t g5;
    cudaGraphExec_t x5;
    cudaGraphNode_t a1, f1, a2, f2, a3, a4;
    void *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL;
    ok = cudaGraphCreate(&g5, 0) == cudaSuccess &&
         cudaGraphAddMemAllocNode(&a1, g5, NULL, 0, &ap) == cudaSuccess;
    p1 = ap.dptr;
    ok = ok && cudaGraphAddMemAllocNode(&a3, g5, &a1, 1, &ap) == cudaSuccess;
    p3 = ap.dptr;
    ok = ok && cudaGraphAddMemFreeNode(&f1, g5, &a1, 1, p1) == cudaSuccess &&
         cudaGraphAddMemAllocNode(&a2, g5, &f1, 1, &ap) == cudaSuccess;
    p2 = ap.dptr;
    ap.bytesize = 2 * sizeof hc;
    ok = ok && cudaGraphAddMemFreeNode(&f2, g5, &a2, 1, p2) == cudaSuccess &&
         cudaGraphAddMemAllocNode(&a4, g5, &f2, 1, &ap) == cudaSuccess;
    p4 = ap.dptr;
    ap.bytesize = sizeof hc;
    ok = ok && cudaGraphInstantiate(&x5, g5, 0) == cudaSuccess &&
         cudaGraphLaunch(x5, st) == cudaSuccess && cudaStreamSynchronize(st) == cudaSuccess &&
         cudaFree(p3) == cudaSuccess && cudaFree(p4) == cudaSuccess;
    expect(ok && p2 == p1 && p3 != p1 && p4 != p1 && p4 != p3,
           "graphs: an allocation after the free of one as large takes its address");
    expect(cudaGraphExecDestroy(x5) == cudaSuccess && cudaGraphDestroy(g5) == cudaSuccess,
           "graphs: the address-reuse graph destroyed");
    /* the per-thread default stream can be captured, by its handle and as
     * stream 0 of the _ptsz entry points; the legacy stream cannot */
    cudaGraph_t g6, g7;
    cudaGraphExec_t x6;
    memset(hc, 0, sizeof hc);
    ok = cudaStreamBeginCapture(cudaStreamPerThread, 0) == cudaSuccess &&
         cudaMemsetAsync(c, 0, sizeof hc, cudaStreamPerThread) == cudaSuccess &&
         cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid, block, args, 0,
                          cudaStreamPerThread) == cudaSuccess &&
         cudaMemcpyAsync(hc, c, sizeof hc, cudaMemcpyDeviceToHost, cudaStreamPerThread) ==
         cudaSuccess && cudaStreamEndCapture(cudaStreamPerThread, &g6) == cudaSuccess &&
         hc[5] == 0.0f && cudaGraphGetNodes(g6, NULL, &nodes) == cudaSuccess && nodes == 3 &&
         cudaGraphInstantiate(&x6, g6, 0) == cudaSuccess &&
         cudaGraphLaunch(x6, cudaStreamPerThread) == cudaSuccess &&
         cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess;
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != 2.0f * (float)i;
    expect(ok && bad == 0, "graphs: cudaStreamPerThread captured, its graph launched");
    ok = cudaStreamBeginCapture_ptsz(NULL, 0) == cudaSuccess &&
         cudaLaunchKernel_ptsz((const void *)(uintptr_t)vscale_stub, grid, block, args, 0, NULL) ==
         cudaSuccess && cudaMemcpyAsync_ptsz(hc, c, sizeof hc, cudaMemcpyDeviceToHost, NULL) ==
         cudaSuccess && cudaStreamEndCapture_ptsz(NULL, &g7) == cudaSuccess &&
         cudaGraphGetNodes(g7, NULL, &nodes) == cudaSuccess && nodes == 2;
    expect(ok, "graphs: stream 0 of the _ptsz entry points captured");
    expect(cudaStreamBeginCapture(NULL, 0) == 900 &&   /* cudaErrorStreamCaptureUnsupported */
           cudaStreamDestroy(cudaStreamPerThread) == cudaSuccess,
           "graphs: the legacy stream is not captured; the per-thread one is not destroyed");
    cudaGetLastError();
    expect(cudaGraphExecDestroy(x6) == cudaSuccess && cudaGraphDestroy(g6) == cudaSuccess &&
           cudaGraphDestroy(g7) == cudaSuccess, "graphs: the per-thread stream's graphs destroyed");
    expect(cudaGraphExecDestroy(x1) == cudaSuccess && cudaGraphExecDestroy(x2) == cudaSuccess &&
           cudaGraphExecDestroy(x3) == cudaSuccess && cudaGraphExecDestroy(x4) == cudaSuccess &&
           cudaGraphDestroy(g1) == cudaSuccess && cudaGraphDestroy(g2) == cudaSuccess &&
           cudaGraphDestroy(g3) == cudaSuccess && cudaGraphDestroy(g4) == cudaSuccess &&
           cudaStreamDestroy(st) == cudaSuccess && cudaFree(a) == cudaSuccess &&
           cudaFree(c) == cudaSuccess, "graphs: destroyed");
    return fails != 0;
}

/* Conditional nodes (CUDA 12.4+): a while loop whose body kernel counts
 * *w down and sets the condition to what is left (the handle's default, 1,
 * assigned at each launch); an if/else captured from a stream, whose
 * bodies are filled by capturing into them; a switch. */
static int
conditionals(void)
{
    unsigned *w = NULL, *v = NULL, *flag = NULL, hw = 0, hf = 0;
    cudaStream_t st;
    expect(cudaMalloc((void **)&w, 4) == cudaSuccess && cudaMalloc((void **)&v, 4) ==
           cudaSuccess && cudaMalloc((void **)&flag, 4) == cudaSuccess &&
           cudaStreamCreate(&st) == cudaSuccess, "conditionals: set-up");
    dim3 one = { 1, 1, 1 };
    /* while */
    cudaGraph_t g;
    cudaGraphExec_t x;
    cudaGraphConditionalHandle h;
    cudaGraphNode_t cn, kn;
    struct cudaGraphNodeParams cp, kp;
    memset(&cp, 0, sizeof cp);
    memset(&kp, 0, sizeof kp);
    int ok = cudaGraphCreate(&g, 0) == cudaSuccess &&
             cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault) ==
             cudaSuccess;
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    ok = ok && cudaGraphAddNode(&cn, g, NULL, NULL, 0, &cp) == cudaSuccess &&
         cp.conditional.phGraph_out != NULL;
    void *cargs[] = { &w, &h };
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel = (struct cudaKernelNodeParams){ (void *)(uintptr_t)condk_stub, one, one, 0, cargs,
                                               NULL };
    hw = 5;
    ok = ok && cudaGraphAddNode(&kn, cp.conditional.phGraph_out[0], NULL, NULL, 0, &kp) ==
         cudaSuccess && cudaGraphInstantiate(&x, g, 0) == cudaSuccess &&
         cudaMemcpy(w, &hw, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaGraphLaunch(x, st) == cudaSuccess && cudaMemcpy(&hw, w, 4, cudaMemcpyDeviceToHost) ==
         cudaSuccess && hw == 0;
    hw = 3;
    ok = ok && cudaMemcpy(w, &hw, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaGraphLaunch(x, st) == cudaSuccess && cudaMemcpy(&hw, w, 4, cudaMemcpyDeviceToHost) ==
         cudaSuccess && hw == 0;
    expect(ok, "conditionals: a while node runs its body until the device clears it, twice");
    /* if/else, captured: setk -> if [flag = 1 | flag = 2] -> flag += 16 */
    cudaGraph_t g2;
    cudaGraphExec_t x2;
    cudaGraphConditionalHandle h2;
    const cudaGraphNode_t *deps = NULL;
    size_t nd = 0;
    void *sargs[] = { &h2, &v };
    ok = cudaStreamBeginCapture(st, 0) == cudaSuccess &&
         cudaStreamGetCaptureInfo(st, NULL, NULL, &g2, NULL, NULL, NULL) == cudaSuccess &&
         cudaGraphConditionalHandleCreate(&h2, g2, 0, 0) == cudaSuccess &&
         cudaLaunchKernel((const void *)(uintptr_t)setk_stub, one, one, sargs, 0, st) ==
         cudaSuccess &&
         cudaStreamGetCaptureInfo(st, NULL, NULL, &g2, &deps, NULL, &nd) == cudaSuccess && nd == 1;
    memset(&cp, 0, sizeof cp);
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h2;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 2;
    ok = ok && cudaGraphAddNode(&cn, g2, deps, NULL, nd, &cp) == cudaSuccess &&
         cudaStreamUpdateCaptureDependencies(st, &cn, NULL, 1, 1) == cudaSuccess &&
         cudaMemsetAsync((char *)flag + 1, 16, 1, st) == cudaSuccess &&
         cudaStreamEndCapture(st, &g2) == cudaSuccess;
    cudaGraph_t then = ok ? cp.conditional.phGraph_out[0] : NULL;
    cudaGraph_t other = ok ? cp.conditional.phGraph_out[1] : NULL;
    ok = ok && cudaStreamBeginCaptureToGraph(st, then, NULL, NULL, 0, 0) == cudaSuccess &&
         cudaMemsetAsync(flag, 1, 1, st) == cudaSuccess &&
         cudaStreamEndCapture(st, NULL) == cudaSuccess &&
         cudaStreamBeginCaptureToGraph(st, other, NULL, NULL, 0, 0) == cudaSuccess &&
         cudaMemsetAsync(flag, 2, 1, st) == cudaSuccess &&
         cudaStreamEndCapture(st, NULL) == cudaSuccess &&
         cudaGraphInstantiate(&x2, g2, 0) == cudaSuccess;
    unsigned got[2] = { 0, 0 };
    for (unsigned c = 0; c < 2 && ok; c++) {
        hf = 0;
        ok = cudaMemcpy(v, &c, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemcpy(flag, &hf, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaGraphLaunch(x2, st) == cudaSuccess &&
             cudaMemcpy(&got[c], flag, 4, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    expect(ok && got[0] == 0x1002 && got[1] == 0x1001,
           "conditionals: if/else captured, its bodies captured into, the node between");
    /* switch of three bodies: body i sets the flag to 10 + i; 5 runs none */
    cudaGraph_t g3;
    cudaGraphExec_t x3;
    cudaGraphConditionalHandle h3;
    cudaGraphNode_t sn, mn;
    ok = cudaGraphCreate(&g3, 0) == cudaSuccess &&
         cudaGraphConditionalHandleCreate(&h3, g3, 0, 0) == cudaSuccess;
    void *s3args[] = { &h3, &v };
    memset(&kp, 0, sizeof kp);
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel = (struct cudaKernelNodeParams){ (void *)(uintptr_t)setk_stub, one, one, 0, s3args,
                                               NULL };
    memset(&cp, 0, sizeof cp);
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h3;
    cp.conditional.type = cudaGraphCondTypeSwitch;
    cp.conditional.size = 3;
    ok = ok && cudaGraphAddNode(&kn, g3, NULL, NULL, 0, &kp) == cudaSuccess &&
         cudaGraphAddNode(&sn, g3, &kn, NULL, 1, &cp) == cudaSuccess;
    for (unsigned i = 0; i < 3 && ok; i++) {
        struct cudaGraphNodeParams mp;
        memset(&mp, 0, sizeof mp);
        mp.type = cudaGraphNodeTypeMemset;
        mp.memset = (struct cudaMemsetParams){ flag, 0, 10 + i, 4, 1, 1 };
        ok = cudaGraphAddNode(&mn, cp.conditional.phGraph_out[i], NULL, NULL, 0, &mp) ==
             cudaSuccess;
    }
    ok = ok && cudaGraphInstantiate(&x3, g3, 0) == cudaSuccess;
    unsigned sw[4] = { 0, 1, 2, 5 }, res[4] = { 0, 0, 0, 0 };
    for (unsigned c = 0; c < 4 && ok; c++) {
        hf = 99;
        ok = cudaMemcpy(v, &sw[c], 4, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemcpy(flag, &hf, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaGraphLaunch(x3, st) == cudaSuccess &&
             cudaMemcpy(&res[c], flag, 4, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    expect(ok && res[0] == 10 && res[1] == 11 && res[2] == 12 && res[3] == 99,
           "conditionals: a switch runs body n for n, none past the last");
    expect(cudaGraphExecDestroy(x) == cudaSuccess && cudaGraphExecDestroy(x2) == cudaSuccess &&
           cudaGraphExecDestroy(x3) == cudaSuccess && cudaGraphDestroy(g) == cudaSuccess &&
           cudaGraphDestroy(g2) == cudaSuccess && cudaGraphDestroy(g3) == cudaSuccess &&
           cudaStreamDestroy(st) == cudaSuccess && cudaFree(w) == cudaSuccess &&
           cudaFree(v) == cudaSuccess && cudaFree(flag) == cudaSuccess,
           "conditionals: destroyed");
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

/* 30 launches of spin over 264 blocks (two waves on an H100): the warps
 * that poll an mbarrier run more instructions timed (a poll a few cycles)
 * than functionally, which launch sampling must not take for work. */
static int
spin(void)
{
    enum { BLOCKS = 264, LAUNCHES = 30 };
    unsigned *o = NULL, ho[BLOCKS];
    int n = 150, ok = 0;
    expect(cudaMalloc((void **)&o, sizeof ho) == cudaSuccess, "cudaMalloc");
    void *args[] = { &o, &n };
    dim3 grid = { BLOCKS, 1, 1 }, block = { 64, 1, 1 };
    for (int i = 0; i < LAUNCHES; i++)
        ok += cudaLaunchKernel((const void *)(uintptr_t)spin_stub, grid, block, args, 0, NULL) ==
              cudaSuccess;
    expect(ok == LAUNCHES, "30 launches");
    expect(cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost) == cudaSuccess,
           "cudaMemcpy device to host");
    int bad = 0;
    for (int i = 0; i < BLOCKS; i++)
        bad += ho[i] != (unsigned)n;
    expect(bad == 0, "every block passed its barrier");
    return fails != 0;
}

/* Launches that repeat earlier ones (sim.replay_launches): c = 2 a eight
 * times on c cleared each time (a replay makes the recorded writes), then
 * eight times more on c left as it is (the launch writes what is there),
 * then with new values in a (nothing recorded matches: it executes).
 * Every result is checked; exec.sh counts the replays. */
static int
replay(void)
{
    enum { N = 64 * 256 };
    float *a = NULL, *c = NULL, *h = malloc(N * sizeof *h), *hc = malloc(N * sizeof *hc);
    for (int i = 0; i < N; i++)
        h[i] = (float)i;
    expect(cudaMalloc((void **)&a, N * sizeof *a) == cudaSuccess &&
           cudaMalloc((void **)&c, N * sizeof *c) == cudaSuccess &&
           cudaMemcpy(a, h, N * sizeof *h, cudaMemcpyHostToDevice) == cudaSuccess, "set-up");
    dim3 grid = { N / 256, 1, 1 }, block = { 256, 1, 1 };
    int n = N, bad = 0, ok = 0;
    void *args[] = { &a, &c, &n };
    for (int round = 0; round < 3; round++) {
        if (round == 2) {
            for (int i = 0; i < N; i++)
                h[i] = (float)(3 * i);
            ok += cudaMemcpy(a, h, N * sizeof *h, cudaMemcpyHostToDevice) == cudaSuccess;
        }
        for (int k = 0; k < 8; k++) {
            ok += (round != 0 || cudaMemset(c, 0, N * sizeof *c) == cudaSuccess) &&
                  cudaLaunchKernel((const void *)(uintptr_t)twice_stub, grid, block, args, 0,
                                   NULL) == cudaSuccess &&
                  cudaMemcpy(hc, c, N * sizeof *hc, cudaMemcpyDeviceToHost) == cudaSuccess;
            for (int i = 0; i < N; i++)
                bad += hc[i] != 2.0f * h[i];
        }
    }
    expect(ok == 25, "24 launches");
    expect(bad == 0, "every launch's result: c = 2 a");
    cudaFree(a);
    cudaFree(c);
    free(h);
    free(hc);
    return fails != 0;
}

/* Eight launches of bump over 4,096 blocks, one more element along each
 * time: the first are simulated, the rest estimated by launch sampling and
 * run functionally in the block storage the simulated ones left (whose
 * register layout differs: the timing model's lowering packs registers
 * otherwise), so every element's count checks both. */
static int
reuse(void)
{
    enum { N = 4096 * 256, LAUNCHES = 8 };
    float *a = NULL, *h = malloc((N + LAUNCHES) * sizeof *h);
    expect(cudaMalloc((void **)&a, (N + LAUNCHES) * sizeof *a) == cudaSuccess &&
           cudaMemset(a, 0, (N + LAUNCHES) * sizeof *a) == cudaSuccess, "set-up");
    dim3 grid = { N / 256, 1, 1 }, block = { 256, 1, 1 };
    int ok = 0;
    for (int s = 0; s < LAUNCHES; s++) {
        void *args[] = { &a, &s };
        ok += cudaLaunchKernel((const void *)(uintptr_t)bump_stub, grid, block, args, 0, NULL) ==
              cudaSuccess;
    }
    expect(ok == LAUNCHES, "8 launches");
    expect(cudaMemcpy(h, a, (N + LAUNCHES) * sizeof *h, cudaMemcpyDeviceToHost) == cudaSuccess,
           "cudaMemcpy device to host");
    int bad = 0;
    for (int i = 0; i < N + LAUNCHES; i++) {
        int want = (i < LAUNCHES ? i + 1 : LAUNCHES) - (i >= N ? i - N + 1 : 0);
        bad += h[i] != (float)want;
    }
    expect(bad == 0, "every element counts the launches that covered it");
    cudaFree(a);
    free(h);
    return fails != 0;
}

/* Launch fetch kernel k (tex2d ...) over n coordinates (4 values each)
 * with texture t: the four components of each fetch into out. */
static int
fetch(void (*k)(void), cudaTextureObject_t t, const void *xy, unsigned n, float *out)
{
    void *dxy = NULL, *dout = NULL;
    int ok = cudaMalloc(&dxy, 16 * n) == cudaSuccess && cudaMalloc(&dout, 16 * n) == cudaSuccess &&
             cudaMemcpy(dxy, xy, 16 * n, cudaMemcpyHostToDevice) == cudaSuccess;
    void *args[] = { &dout, &t, &dxy, &n };
    dim3 g = { 1, 1, 1 }, b = { 32, 1, 1 };
    ok = ok && cudaLaunchKernel((const void *)(uintptr_t)k, g, b, args, 0, NULL) == cudaSuccess &&
         cudaMemcpy(out, dout, 16 * n, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(dxy);
    cudaFree(dout);
    return ok;
}

/* Does every fetch's first component match want[] (within tol), and the
 * fourth (absent from a one-channel format) read 1? */
static int
near(const float *got, const float *want, unsigned n, float tol)
{
    int ok = 1;
    for (unsigned i = 0; i < n; i++)
        if (!(got[4 * i] >= want[i] - tol && got[4 * i] <= want[i] + tol) ||
            got[4 * i + 1] != 0.0f || got[4 * i + 3] != 1.0f) {
            printf("  fetch %u: %.6f, expected %.6f\n", i, got[4 * i], want[i]);
            ok = 0;
        }
    return ok;
}

/* A CUDA array of floats, w x h x d (flags: layered, cube map), filled
 * from host memory by cudaMemcpy3D; NULL if a call failed. */
static cudaArray_t
float_array(const void *host, size_t w, size_t h, size_t d, unsigned flags)
{
    struct cudaChannelFormatDesc f1 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    struct cudaExtent e = { w, h, d };
    struct cudaMemcpy3DParms cp;
    memset(&cp, 0, sizeof cp);
    cp.srcPtr = (struct cudaPitchedPtr){ (void *)(uintptr_t)host, w * sizeof(float), w, h };
    cp.extent = e;
    cp.kind = cudaMemcpyHostToDevice;
    cudaArray_t a = NULL;
    if (cudaMalloc3DArray(&a, &f1, e, flags) != cudaSuccess)
        return NULL;
    cp.dstArray = a;
    return cudaMemcpy3D(&cp) == cudaSuccess ? a : NULL;
}

/* Texture and surface objects (cudart/cudart_tex.c, frontend/exec/ptx_tex.c):
 * the expected values are worked out by hand from the CUDA C++ Programming
 * Guide's texture fetching rules for a texture whose texel (x, y) holds
 * x + 10 y, so that linear filtering inside it is exact. */
static int
textures(void)
{
    enum { W = 5, H = 4 };
    float img[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            img[y][x] = (float)(x + 10 * y);
    struct cudaChannelFormatDesc f1 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t arr = NULL;
    expect(cudaMallocArray(&arr, &f1, W, H, 0) == cudaSuccess &&
           cudaMemcpy2DToArray(arr, 0, 0, img, sizeof img[0], sizeof img[0], H,
                               cudaMemcpyHostToDevice) == cudaSuccess, "a 5 x 4 float CUDA array");
    struct cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    struct { int filter, addr, norm; float border; const float xy[6][2]; float want[6]; } cfg[] = {
        { cudaFilterModePoint, cudaAddressModeClamp, 0, 0,
          { { 0.5f, 0.5f }, { 1.25f, 2.75f }, { 4.9f, 3.9f }, { -1.3f, 0.2f }, { 6.1f, 5.0f },
            { 2.0f, 1.0f } }, { 0, 21, 34, 0, 34, 12 } },
        { cudaFilterModeLinear, cudaAddressModeClamp, 0, 0,
          { { 0.5f, 0.5f }, { 1.25f, 2.75f }, { 4.9f, 3.9f }, { -1.3f, 0.2f }, { 6.1f, 5.0f },
            { 2.0f, 1.0f } }, { 0, 23.25f, 34, 0, 34, 6.5f } },
        /* (4.9, 3.9): weights (1 - 102/256)^2 on texel (4, 3), the rest on the border */
        { cudaFilterModeLinear, cudaAddressModeBorder, 0, 100,
          { { 0.5f, 0.5f }, { 1.25f, 2.75f }, { 4.9f, 3.9f }, { -1.3f, 0.2f }, { 6.1f, 5.0f },
            { 2.0f, 1.0f } }, { 0, 23.25f, 76.116089f, 100, 100, 6.5f } },
        { cudaFilterModePoint, cudaAddressModeWrap, 1, 0,
          { { 0.1f, 0.1f }, { 1.1f, 0.6f }, { -0.1f, -0.1f }, { 0.5f, 0.5f }, { 0.99f, 0.99f },
            { 2.3f, 0.3f } }, { 0, 20, 34, 22, 34, 11 } },
        { cudaFilterModeLinear, cudaAddressModeMirror, 1, 0,
          { { 0.5f, 0.5f }, { -0.1f, 0.125f }, { 1.1f, 0.5f }, { 1.0f, 0.25f }, { 0.5f, 0.5f },
            { 0.5f, 0.5f } }, { 17, 0, 19, 9, 17, 17 } },
    };
    const char *names[] = { "point, clamp", "linear, clamp", "linear, border", "point, wrap, "
                            "normalized", "linear, mirror, normalized" };
    for (unsigned c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        struct cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        td.addressMode[0] = td.addressMode[1] = cfg[c].addr;
        td.filterMode = cfg[c].filter;
        td.normalizedCoords = cfg[c].norm;
        td.borderColor[0] = cfg[c].border;
        cudaTextureObject_t t = 0;
        float xy[6][4] = { { 0 } }, out[6 * 4];
        for (int i = 0; i < 6; i++)
            xy[i][0] = cfg[c].xy[i][0], xy[i][1] = cfg[c].xy[i][1];
        char what[96];
        snprintf(what, sizeof what, "tex2D %s", names[c]);
        expect(cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaSuccess && t != 0 &&
               fetch(tex2d_stub, t, xy, 6, out) && near(out, cfg[c].want, 6, 1e-4f) &&
               cudaDestroyTextureObject(t) == cudaSuccess, what);
    }
    /* txq, and the descriptors the runtime keeps */
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.normalizedCoords = 1;
    cudaTextureObject_t t = 0;
    unsigned q[3] = { 0, 0, 0 }, *dq = NULL;
    struct cudaResourceDesc back;
    void *qargs[] = { &dq, &t };
    dim3 one = { 1, 1, 1 };
    expect(cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaSuccess &&
           cudaMalloc((void **)&dq, sizeof q) == cudaSuccess &&
           cudaLaunchKernel((const void *)(uintptr_t)texq_stub, one, one, qargs, 0, NULL) ==
           cudaSuccess && cudaMemcpy(q, dq, sizeof q, cudaMemcpyDeviceToHost) == cudaSuccess &&
           q[0] == W && q[1] == H && q[2] == 1 &&
           cudaGetTextureObjectResourceDesc(&back, t) == cudaSuccess &&
           back.res.array.array == arr, "txq width, height, normalized_coords");
    cudaDestroyTextureObject(t);
    cudaFree(dq);

    /* cudaReadModeNormalizedFloat on uchar4 */
    unsigned char px[2][4] = { { 255, 51, 0, 128 }, { 1, 2, 3, 4 } };
    struct cudaChannelFormatDesc u4 = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    cudaArray_t arr4 = NULL;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeNormalizedFloat;
    rd.res.array.array = NULL;
    float xy4[2][4] = { { 0.5f, 0.5f }, { 1.5f, 0.5f } }, o4[8];
    int ok = cudaMallocArray(&arr4, &u4, 2, 1, 0) == cudaSuccess &&
             cudaMemcpy2DToArray(arr4, 0, 0, px, 8, 8, 1, cudaMemcpyHostToDevice) == cudaSuccess;
    rd.res.array.array = arr4;
    ok = ok && cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaSuccess &&
         fetch(tex2d_stub, t, xy4, 2, o4);
    expect(ok && o4[0] == 1.0f && o4[1] == 51.0f / 255.0f && o4[2] == 0.0f &&
           o4[3] == 128.0f / 255.0f && o4[4] == 1.0f / 255.0f && o4[7] == 4.0f / 255.0f,
           "tex2D of uchar4, cudaReadModeNormalizedFloat");
    cudaDestroyTextureObject(t);
    cudaFreeArray(arr4);

    /* tex1Dfetch<int> from linear memory: outside it reads zero */
    int lin[16], *dlin = NULL;
    for (int i = 0; i < 16; i++)
        lin[i] = 3 * i - 7;
    int idx[5][4] = { { 0 }, { 5 }, { 15 }, { 16 }, { -1 } };
    int io[5 * 4], iwant[5] = { -7, 8, 38, 0, 0 };
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
    rd.res.linear.sizeInBytes = sizeof lin;
    memset(&td, 0, sizeof td);
    ok = cudaMalloc((void **)&dlin, sizeof lin) == cudaSuccess &&
         cudaMemcpy(dlin, lin, sizeof lin, cudaMemcpyHostToDevice) == cudaSuccess;
    rd.res.linear.devPtr = dlin;
    ok = ok && cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaSuccess &&
         fetch(tex1di_stub, t, idx, 5, (float *)io);
    for (int i = 0; i < 5; i++)
        ok = ok && io[4 * i] == iwant[i] && io[4 * i + 3] == (i < 3);
    expect(ok, "tex1Dfetch<int> from linear memory");
    cudaDestroyTextureObject(t);
    cudaFree(dlin);

    /* a layered array (cudaMemcpy3D into it): texel (x, y) of layer l holds 100 l + x + 10 y */
    float lay[2][3][3];
    for (int l = 0; l < 2; l++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++)
                lay[l][y][x] = (float)(100 * l + x + 10 * y);
    cudaArray_t larr = float_array(lay, 3, 3, 2, cudaArrayLayered);
    ok = larr != NULL;
    struct { int layer; float x, y, pad; } lxy[3] = { { 1, 2.5f, 1.5f, 0 }, { 0, 0.5f, 2.9f, 0 },
                                                      { 5, 0.2f, 0.2f, 0 } };
    float lo[12], lwant[3] = { 112, 20, 100 };
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = larr;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    ok = ok && cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaSuccess &&
         fetch(texa2d_stub, t, lxy, 3, lo) && near(lo, lwant, 3, 0);
    struct cudaExtent gext;
    unsigned gflags = 0;
    expect(ok && cudaArrayGetInfo(NULL, &gext, &gflags, larr) == cudaSuccess && gext.depth == 2 &&
           gflags == cudaArrayLayered, "tex2DLayered of a layered array filled by cudaMemcpy3D");
    cudaDestroyTextureObject(t);
    cudaFreeArray(larr);

    /* a cube map: texel (x, y) of face f holds 10 f + x + 2 y */
    float cube[6][2][2];
    for (int fc = 0; fc < 6; fc++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++)
                cube[fc][y][x] = (float)(10 * fc + x + 2 * y);
    cudaArray_t carr = float_array(cube, 2, 2, 6, cudaArrayCubemap);
    ok = carr != NULL;
    float dir[5][4] = { { 1, -0.5f, -0.5f }, { 0, -1, 0 }, { -1, 0.5f, -0.5f }, { 0.2f, 0.3f, -2 },
                        { 0.1f, 2, 0.5f } }, co[20], cwant[5] = { 3, 33, 10, 50, 23 };
    rd.res.array.array = carr;
    memset(&td, 0, sizeof td);
    td.normalizedCoords = 1;
    ok = ok && cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaSuccess &&
         fetch(texcube_stub, t, dir, 5, co) && near(co, cwant, 5, 0);
    expect(ok, "texCubemap: faces +x, -y, -x, -z, +y");
    cudaDestroyTextureObject(t);
    cudaFreeArray(carr);

    /* a surface: every element v becomes 2 v + 1 */
    unsigned sv[3][4], sback[3][4];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            sv[y][x] = (unsigned)(x + 4 * y + 1);
    struct cudaChannelFormatDesc u1 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t sarr = NULL, plain = NULL;
    cudaSurfaceObject_t so = 0;
    ok = cudaMallocArray(&sarr, &u1, 4, 3, cudaArraySurfaceLoadStore) == cudaSuccess &&
         cudaMemcpy2DToArray(sarr, 0, 0, sv, 16, 16, 3, cudaMemcpyHostToDevice) == cudaSuccess;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = sarr;
    int w4 = 4;
    void *sargs[] = { &so, &w4 };
    dim3 sb = { 4, 3, 1 };
    ok = ok && cudaCreateSurfaceObject(&so, &rd) == cudaSuccess &&
         cudaLaunchKernel((const void *)(uintptr_t)surf2x_stub, one, sb, sargs, 0, NULL) ==
         cudaSuccess && cudaMemcpy2DFromArray(sback, 16, sarr, 0, 0, 16, 3,
                                              cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            ok = ok && sback[y][x] == 2 * sv[y][x] + 1;
    expect(ok && cudaDestroySurfaceObject(so) == cudaSuccess, "surf2Dread / surf2Dwrite");
    /* what the runtime refuses */
    ok = cudaMallocArray(&plain, &u1, 4, 3, 0) == cudaSuccess;
    rd.res.array.array = plain;
    expect(ok && cudaCreateSurfaceObject(&so, &rd) == cudaErrorInvalidValue,
           "a surface of an array without cudaArraySurfaceLoadStore: cudaErrorInvalidValue");
    memset(&td, 0, sizeof td);
    td.sRGB = 1;
    expect(cudaCreateTextureObject(&t, &rd, &td, NULL) == cudaErrorNotSupported,
           "an sRGB texture: cudaErrorNotSupported");
    struct cudaChannelFormatDesc odd = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned);
    cudaArray_t oarr = NULL;
    expect(cudaMallocArray(&oarr, &odd, 4, 4, 0) == cudaErrorInvalidValue,
           "a format of unequal channels: cudaErrorInvalidValue");
    cudaGetLastError();
    cudaFreeArray(plain);
    cudaFreeArray(sarr);
    cudaFreeArray(arr);
    /* a handle that names no texture: the kernel faults (last: it is sticky) */
    void *junk = NULL;
    float jxy[4] = { 0 }, jo[4];
    expect(cudaMalloc(&junk, 256) == cudaSuccess && cudaMemset(junk, 0, 256) == cudaSuccess &&
           !fetch(tex2d_stub, (cudaTextureObject_t)(uintptr_t)junk, jxy, 1, jo) &&
           cudaDeviceSynchronize() != cudaSuccess, "a fetch through no texture object fails");
    return fails != 0;
}

/* mode late: a buffer freed by an exit handler that runs after the
 * runtime's own (as a C++ global's destructor does): the runtime has shut
 * down, and says so (cudaErrorCudartUnloading) without setting up again. */
static void *late_buf;

static void
late_free(void)
{
    printf("late cudaFree: %d\n", (int)cudaFree(late_buf));
}

int
main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    if (strcmp(mode, "late") == 0)
        atexit(late_free);       /* before the runtime registers its handler: runs after it */
    int future = strcmp(mode, "future") == 0;
    static struct cudart_fatbin_wrapper wrap;
    wrap.magic = (int)CUDART_FATBINC_MAGIC;
    wrap.version = 1;
    const char *packing = future || strcmp(mode, "repeat") == 0 || strcmp(mode, "graph") == 0 ||
                          strcmp(mode, "reuse") == 0 || strcmp(mode, "spin") == 0 ||
                          strcmp(mode, "replay") == 0 ||
                          strcmp(mode, "late") == 0 ||
                          strcmp(mode, "texture") == 0 ? "plain" : mode;
    wrap.data = (const unsigned long long *)(void *)make_fatbin(packing, future ? 100 : 80);
    void **h = __cudaRegisterFatBinary(&wrap);
    __cudaRegisterFunction(h, (const char *)(uintptr_t)vscale_stub, (char *)"vscale", "vscale",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterVar(h, (char *)&scale_shadow, (char *)"scale", "scale", 0, 4, 1, 0);
    __cudaRegisterVar(h, (char *)&counter_shadow, (char *)"counter", "counter", 0, 4, 0, 0);
    __cudaRegisterManagedVar(h, (void **)&mcount, (char *)"mcount", "mcount", 0, 4, 0, 0);
    static const struct { void (*stub)(void); const char *name; } tk[] = {
        { tex2d_stub, "tex2d" }, { texa2d_stub, "texa2d" }, { texcube_stub, "texcube" },
        { tex1di_stub, "tex1di" }, { texq_stub, "texq" }, { surf2x_stub, "surf2x" },
        { heapk_stub, "heapk" }, { condk_stub, "condk" }, { setk_stub, "setk" },
        { bump_stub, "bump" }, { spin_stub, "spin" }, { twice_stub, "twice" },
    };
    for (unsigned i = 0; i < sizeof tk / sizeof tk[0]; i++)
        __cudaRegisterFunction(h, (const char *)(uintptr_t)tk[i].stub, (char *)tk[i].name,
                               tk[i].name, -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    if (strcmp(mode, "texture") == 0)
        return textures();
    if (strcmp(mode, "repeat") == 0)
        return repeat();
    if (strcmp(mode, "reuse") == 0)
        return reuse();
    if (strcmp(mode, "replay") == 0)
        return replay();
    if (strcmp(mode, "spin") == 0)
        return spin();
    if (strcmp(mode, "late") == 0) {
        expect(cudaMalloc(&late_buf, 256) == cudaSuccess, "cudaMalloc");
        return fails != 0;
    }
    if (strcmp(mode, "graph") == 0)
        return graphs() | conditionals();
    dim3 grid1 = { 1, 1, 1 }, block1 = { 32, 1, 1 };
    if (future) {                /* nothing loads: the launch says why */
        void *none[] = { NULL, NULL, NULL };
        expect(cudaLaunchKernel((const void *)(uintptr_t)vscale_stub, grid1, block1, none, 0,
                                NULL) == cudaErrorNoKernelImageForDevice,
               "no PTX for the simulated GPU: cudaErrorNoKernelImageForDevice");
        return fails != 0;
    }

    /* cudaLimitMallocHeapSize (2): set before the module is loaded, a kernel
     * gets 16 MB from device malloc; once loaded, the size is fixed */
    size_t heap = 0;
    expect(cudaDeviceSetLimit(2, 32u << 20) == cudaSuccess &&
           cudaDeviceGetLimit(&heap, 2) == cudaSuccess && heap == 32u << 20,
           "cudaDeviceSetLimit(cudaLimitMallocHeapSize)");
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
    unsigned got16 = 0, *dgot = NULL;
    void *hargs[] = { &dgot };
    dim3 one1 = { 1, 1, 1 };
    expect(cudaMalloc((void **)&dgot, 4) == cudaSuccess &&
           cudaLaunchKernel((const void *)(uintptr_t)heapk_stub, one1, one1, hargs, 0, NULL) ==
           cudaSuccess && cudaMemcpy(&got16, dgot, 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
           got16 == 1 && cudaDeviceSetLimit(2, 64u << 20) == cudaErrorInvalidValue,
           "device malloc of 16 MB from a 32 MB heap; the heap's size is then fixed");
    cudaGetLastError();
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
    /* the 5120-bit HBM (dram.bus_bits) of the H100 and of the A100 (the
     * two configs tests/exec.sh runs this under) at the clock that gives
     * their 3350 and 1555 GB/s (dram.bandwidth_gbps) as the CUDA samples
     * compute it */
    int mclk = 0, mbus = 0;
    expect(cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
           cudaDeviceGetAttribute(&mbus, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess &&
           mbus == 5120 && p.memoryBusWidth == 5120 &&
           (fabs(2.0 * mclk * (mbus / 8) / 1e6 - 3350.0) < 1.0 ||
            fabs(2.0 * mclk * (mbus / 8) / 1e6 - 1555.0) < 1.0),
           "memory clock and bus width give the configured bandwidth");
    /* the L2 set-aside for persisting accesses: three quarters of the L2
     * (both configs are of compute capability 8.0 or later), settable up to
     * that and no further; NVIDIA's simpleAttributes sample waives itself
     * on a GPU that reports none */
    int pmax = 0, pwin = 0;
    expect(cudaDeviceGetAttribute(&pmax, cudaDevAttrMaxPersistingL2CacheSize, 0) == cudaSuccess &&
           cudaDeviceGetAttribute(&pwin, cudaDevAttrMaxAccessPolicyWindowSize, 0) ==
           cudaSuccess && pmax == p.l2CacheSize / 4 * 3 && p.persistingL2CacheMaxSize == pmax &&
           pwin == 134213632 && p.accessPolicyMaxWindowSize == pwin,
           "persistingL2CacheMaxSize and accessPolicyMaxWindowSize");
    expect(cudaDeviceSetLimit(6, (size_t)pmax) == cudaSuccess &&
           cudaDeviceSetLimit(6, (size_t)pmax + 1) == cudaErrorInvalidValue &&
           cudaGetLastError() == cudaErrorInvalidValue &&
           cudaCtxResetPersistingL2Cache() == cudaSuccess,
           "cudaLimitPersistingL2CacheSize up to persistingL2CacheMaxSize; "
           "cudaCtxResetPersistingL2Cache");

    /* stream-ordered allocation: the default pool and one of the program's own
     * (attributes: 4 release threshold, 7 used now, 8 used at most) */
    cudaMemPool_t dp = NULL, op = NULL;
    void *m1 = NULL, *m2 = NULL;
    unsigned long long thr = 1ull << 30, v4 = 0, used = 1, high = 0, oused = 0;
    unsigned char props[128] = { 1 };   /* cudaMemAllocationTypePinned, device 0 */
    expect(cudaDeviceGetDefaultMemPool(&dp, 0) == cudaSuccess &&
           cudaMemPoolSetAttribute(dp, 4, &thr) == cudaSuccess &&
           cudaMemPoolGetAttribute(dp, 4, &v4) == cudaSuccess && v4 == thr &&
           cudaMallocAsync(&m1, 1000, NULL) == cudaSuccess &&
           cudaMemPoolCreate(&op, props) == cudaSuccess &&
           cudaMallocFromPoolAsync(&m2, 24, op, NULL) == cudaSuccess &&
           cudaMemPoolGetAttribute(op, 7, &oused) == cudaSuccess && oused == 24 &&
           cudaFreeAsync(m1, NULL) == cudaSuccess && cudaFree(m2) == cudaSuccess &&
           cudaMemPoolGetAttribute(dp, 7, &used) == cudaSuccess && used == 0 &&
           cudaMemPoolGetAttribute(dp, 8, &high) == cudaSuccess && high >= 1000 &&
           cudaMemPoolDestroy(op) == cudaSuccess, "memory pools: default and created");

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
    /* codes smsim never raises have their names too (a program prints them) */
    expect(strcmp(cudaGetErrorName(718), "cudaErrorInvalidPc") == 0 &&
           strcmp(cudaGetErrorName(900), "cudaErrorStreamCaptureUnsupported") == 0 &&
           strcmp(cudaGetErrorName(4), "cudaErrorCudartUnloading") == 0,
           "cudaGetErrorName of 718, 900, 4");
    return fails != 0;
}
