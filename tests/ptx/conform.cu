// conform.cu - the conformance corpus (tests/conform.sh): the CUDA features
// users write every day, one kernel per group, compiled by nvcc for three
// targets (the PTX of each is committed; its checks: conform_check.py).
// nvcc 13 cannot target sm_70 (CUDA 13 dropped Volta), so sm_75 stands for
// the pre-Ampere code paths (no redux.sync, no cp.async, bf16 emulated in
// f32, cooperative groups' block_tile_memory in the user's shared memory).
// PTX: nvcc -ptx -arch=sm_75 conform.cu -o conform_sm75.ptx
// PTX: nvcc -ptx -arch=sm_80 conform.cu -o conform_sm80.ptx
// PTX: nvcc -ptx -arch=sm_90 conform.cu -o conform_sm90.ptx
#include <cassert>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;
extern "C" {
// thread_block, tiled_partition<4/8/16/32>, the dynamic tiled_partition,
// cg::reduce with plus, less, greater and the bit operations, tile shuffles
// and votes (12 ints per thread)
__global__ void cg_tiles(int *out, const int *in) {
    cg::thread_block blk = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned u = (unsigned)v;
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(blk);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(blk);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(blk);
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(blk);
    cg::thread_group td = cg::tiled_partition(blk, 16);
    int *o = out + 12 * i;
    o[0] = cg::reduce(t4, v, cg::plus<int>());
    o[1] = cg::reduce(t8, v, cg::less<int>());
    o[2] = cg::reduce(t16, v, cg::greater<int>());
    o[3] = (int)cg::reduce(t32, u, cg::bit_and<unsigned>());
    o[4] = (int)cg::reduce(t32, u, cg::bit_or<unsigned>());
    o[5] = (int)cg::reduce(t16, u, cg::bit_xor<unsigned>());
    o[6] = t8.shfl(v, 3) + t16.shfl_down(v, 1) * 3 + t4.shfl_xor(v, 1) * 7;
    o[7] = (int)td.size() * 1000 + (int)td.thread_rank() + 100000 * (int)t4.meta_group_rank();
    td.sync();
    o[8] = (int)blk.thread_rank() + 1000 * (int)blk.size() + (int)t8.meta_group_size() * 1000000;
    o[9] = __popc(t32.ballot(v & 1)) + 100 * t16.any(v > 900) + 1000 * t8.all(v > 100);
    blk.sync();
    o[10] = (int)t32.thread_rank() + 100 * (int)t16.num_threads() + (int)blk.group_index().x * 10000;
    o[11] = t16.shfl_up(v, 2) - t32.shfl(v, 31);
}
// cg::inclusive_scan and exclusive_scan over tiles (8 ints per thread)
__global__ void cg_scan(int *out, const int *in) {
    cg::thread_block blk = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned u = (unsigned)v;
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(blk);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(blk);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(blk);
    int *o = out + 8 * i;
    o[0] = cg::inclusive_scan(t32, v);
    o[1] = cg::exclusive_scan(t32, v);
    o[2] = cg::inclusive_scan(t8, v, cg::plus<int>());
    o[3] = cg::exclusive_scan(t8, v, cg::plus<int>());
    o[4] = (int)cg::inclusive_scan(t16, u, cg::bit_or<unsigned>());
    o[5] = cg::inclusive_scan(t32, v, cg::greater<int>());
    o[6] = cg::inclusive_scan(t16, v, cg::less<int>());
    o[7] = (int)cg::inclusive_scan(t32, u, cg::bit_xor<unsigned>());
}
// labeled_partition, binary_partition, coalesced_threads() (6 ints per thread)
__global__ void cg_part(int *out, const int *in) {
    cg::thread_block blk = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(blk);
    int *o = out + 6 * i;
    cg::coalesced_group lg = cg::labeled_partition(t32, v % 3);
    o[0] = cg::reduce(lg, v, cg::plus<int>());
    o[1] = (int)lg.size() * 100 + (int)lg.thread_rank();
    cg::thread_block_tile<32> t = t32;
    cg::coalesced_group bg = cg::binary_partition(t, (v & 1) != 0);
    o[2] = cg::reduce(bg, v, cg::greater<int>()) * 100 + (int)bg.size();
    o[3] = -1;
    o[4] = -1;
    if (v % 5 == 0) {
        cg::coalesced_group ct = cg::coalesced_threads();
        o[3] = (int)ct.size() * 100 + (int)ct.thread_rank();
        o[4] = ct.shfl(v, 0) + cg::reduce(ct, v, cg::plus<int>()) * 1000;
    }
    cg::coalesced_group all = cg::coalesced_threads();
    o[5] = cg::inclusive_scan(all, v) + (int)all.size();
}
// cg::memcpy_async of a block's slice into shared memory, cg::wait
__global__ void cg_memcpy(int *out, const int *in) {
    __shared__ int sh[512];
    cg::thread_block blk = cg::this_thread_block();
    cg::memcpy_async(blk, sh, in + blockIdx.x * 512, sizeof(int) * 512);
    cg::wait(blk);
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(blk);
    __shared__ int sh2[128];
    cg::memcpy_async(t32, sh2 + 32 * t32.meta_group_rank(), in + blockIdx.x * 512 + 32 * t32.meta_group_rank(), sizeof(int) * 32);
    cg::wait(t32);
    int t = threadIdx.x;
    out[blockIdx.x * blockDim.x + t] = sh[t] + 3 * sh[511 - t] + 7 * sh2[t ^ 31];   /* its own tile's */
}
// block_tile_memory: tiles of 64 and 128 threads (%reserved_smem_offset_* on sm_80 and later)
__global__ void cg_tilemem(int *out, const int *in) {
    __shared__ cg::block_tile_memory<256> scratch;
    __shared__ int sh[256];
    cg::thread_block blk = cg::this_thread_block(scratch);
    cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(blk);
    cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(blk);
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sh[t] = in[i];
    t64.sync();
    int a = sh[t ^ 63];
    t128.sync();
    int b = sh[t ^ 127];
    out[i] = a + 3 * b + 1000 * (int)t64.meta_group_rank() + 10000 * (int)t128.thread_rank() +
             (int)t64.meta_group_size() * 10000000;
}
// warpSize (nvcc's WARP_SZ) in a reduce7-style warp reduction
__global__ void warpsz(int *out, const int *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = in[i];
    for (int o = warpSize / 2; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    int lane = threadIdx.x % warpSize, w = threadIdx.x / warpSize;
    out[i] = (lane == 0 ? s : 0) + warpSize * 100000 + w * 1000 + lane;
}
// cache-hinted loads and stores
__global__ void ldst(int *o1, int *o2, int *o3, int4 *o4, const int *in, const int4 *in4, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int a = __ldg(in + i), b = __ldcs(in + (i + 1) % n), c = __ldcg(in + (i + 2) % n);
    int d = __ldlu(in + (i + 3) % n), e = __ldcv(in + (i + 5) % n), f = __ldca(in + (i + 7) % n);
    int4 q = __ldg(in4 + i / 4);
    __stcs(o1 + i, a + 2 * b);
    __stcg(o2 + i, c - d + e);
    __stwt(o3 + i, f ^ a);
    if (i % 4 == 0) {
        int4 r = make_int4(q.x + 1, q.y + 2, q.z + 3, q.w + 4);
        __stwb(o4 + i / 4, r);
    }
}
// integer atomics of every type, 64-bit min and max, inc and dec,
// exchanges (each thread keeps the value it took out), CAS loops, block
// and system scope
__device__ long long atomicMulMod(unsigned long long *p, unsigned long long f) {
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, (assumed * f) % 1000003ull);
    } while (assumed != old);
    return (long long)old;
}
__global__ void iatomics(int *ia, unsigned *ua, unsigned long long *ull, long long *ll,
                         int *exch_old, unsigned long long *exch_old64, float *fexch_old,
                         int *blk, unsigned short *us, const int *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned u = (unsigned)v;
    atomicAdd(&ia[0], v);
    atomicSub(&ia[1], v);
    atomicMin(&ia[2], v - 500);
    atomicMax(&ia[3], v - 500);
    atomicAnd(&ia[4], ~(1 << (v & 31)));
    atomicOr(&ia[5], 1 << (v & 31));
    atomicXor(&ia[6], v);
    exch_old[i] = atomicExch(&ia[7], v);
    atomicAdd(&ua[0], u * 3u);
    atomicMin(&ua[1], u + 7u);
    atomicMax(&ua[2], u * 5u);
    atomicInc(&ua[3], 37u);
    atomicDec(&ua[4], 53u);
    atomicAdd(&ull[0], (unsigned long long)u << 20);
    atomicMin(&ull[1], (unsigned long long)u * 0x100000001ull);
    atomicMax(&ull[2], (unsigned long long)u * 0x100000001ull);
    atomicAnd(&ull[3], ~(1ull << (v & 63)));
    atomicOr(&ull[4], 1ull << (v & 63));
    atomicXor(&ull[5], (unsigned long long)u * 0x9e3779b97f4a7c15ull);
    exch_old64[i] = atomicExch(&ull[6], (unsigned long long)u * 0x10001ull);
    atomicMulMod(&ull[7], (unsigned long long)(v % 97 + 2));
    atomicMin(&ll[0], (long long)(v - 500) * 100000000000ll);
    atomicMax(&ll[1], (long long)(v - 500) * 100000000000ll);
    fexch_old[i] = atomicExch((float *)&ia[8], (float)v * 0.5f);
    atomicAdd_block(&blk[blockIdx.x], v);
    atomicOr_block(&blk[gridDim.x + blockIdx.x], 1 << (v & 31));
    atomicAdd_system(&blk[2 * gridDim.x], 1);
    atomicMax_system(&blk[2 * gridDim.x + 1], v);
    unsigned short old = us[0], assumed;
    do {
        assumed = old;
        old = atomicCAS(&us[0], assumed, (unsigned short)(assumed + 1));
    } while (old != assumed);
}
// floating-point atomics across blocks (their sums depend on the order)
__device__ double atomicMaxD(double *p, double v) {
    unsigned long long *q = (unsigned long long *)p, old = *q, assumed;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) >= v)
            break;
        old = atomicCAS(q, assumed, __double_as_longlong(v));
    } while (assumed != old);
    return __longlong_as_double(old);
}
__global__ void fatomics(float *fs, double *ds, __half2 *h2, double *dmax, const float *in) {
    __shared__ float bsum;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    if (threadIdx.x == 0)
        bsum = 0;
    __syncthreads();
    atomicAdd(&bsum, x);
    atomicAdd(&fs[0], x);
    atomicAdd(&ds[0], (double)x * 0.25);
    atomicAdd(h2, __floats2half2_rn(x * 0.01f, 1.0f));
    atomicMaxD(dmax, (double)x);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(&fs[1], bsum);
}
// __nanosleep, a passing assert, printf
__global__ void sleepy(int *out, const int *in, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    __nanosleep(100 + (v & 7));
    assert(v >= 0);
    if (i < 3)
        printf("conform %d: v=%d f=%.2f %s %5.1e\n", i, v, f * i, "ok", (double)v * 1e3);
    out[i] = v * 2 + 1;
}
// warp intrinsics: shuffles with a width, ballot, activemask, match_any,
// __reduce_add_sync, __syncwarp with a mask (8 ints per thread)
__global__ void warpintr(int *out, const int *in) {
    __shared__ int sh[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int v = in[i];
    int *o = out + 8 * i;
    o[0] = __shfl_sync(0xffffffffu, v, (lane + 3) & 7, 8) + 3 * __shfl_up_sync(0xffffffffu, v, 2, 16);
    o[1] = __shfl_down_sync(0xffffffffu, v, 3, 8) + 3 * __shfl_xor_sync(0xffffffffu, v, 5, 16);
    o[2] = (int)__ballot_sync(0xffffffffu, v & 1);
    o[3] = 0;
    if (lane < 20)
        o[3] = (int)__activemask();
    o[4] = (int)__match_any_sync(0xffffffffu, v % 4);
#if __CUDA_ARCH__ >= 800
    o[5] = __reduce_add_sync(0xffffffffu, v);
#else
    int s = v;
    for (int k = 16; k > 0; k >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, k);
    o[5] = s;
#endif
    o[6] = 0;
    if (lane < 16) {
        sh[threadIdx.x] = v;
        __syncwarp(0xffffu);
        o[6] = sh[threadIdx.x ^ 1] + __shfl_xor_sync(0xffffu, v, 2) * 3;
    }
    __syncwarp();
    o[7] = __shfl_sync(0xffffffffu, v, 31 - lane, 32) - __shfl_up_sync(0xffffffffu, v, 1);
}
// integer intrinsics (16 64-bit words per thread)
__global__ void intintr(unsigned long long *out, const unsigned long long *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long w = in[i];
    unsigned a = (unsigned)w, b = (unsigned)(w >> 32);
    int sa = (int)a, sb = (int)b;
    unsigned long long *o = out + 16 * i;
    o[0] = __funnelshift_l(a, b, sb & 63);
    o[1] = __funnelshift_r(a, b, sa) + ((unsigned long long)__funnelshift_lc(b, a, sa) << 32);
    o[2] = __byte_perm(a, b, b & 0x7777) + ((unsigned long long)__byte_perm(b, a, 0x3210) << 32);
    o[3] = __brevll(w);
    o[4] = __popcll(w) + 100 * __clzll(w >> (a & 63)) + 10000 * __ffs(sa) + 1000000ull * __ffsll((long long)(w >> 7));
    o[5] = (unsigned long long)__mul64hi((long long)w, (long long)(w * 0x9e3779b97f4a7c15ull));
    o[6] = __umul64hi(w, w ^ 0x5555555555555555ull);
    o[7] = __umulhi(a, b) + ((unsigned long long)(unsigned)__mulhi(sa, sb) << 32);
    o[8] = (unsigned)__sad(sa, sb, 7u) + ((unsigned long long)__usad(a, b, 3u) << 32);
    o[9] = __vabsdiffu4(a, b) + ((unsigned long long)__vabsdiffs4(a, b) << 32);
    o[10] = (unsigned)__hadd(sa, sb) + ((unsigned long long)(unsigned)__rhadd(sa, sb) << 32);
    o[11] = __uhadd(a, b) + ((unsigned long long)__urhadd(a, b) << 32);
    o[12] = __brev(a) + ((unsigned long long)__popc(b) << 32) + ((unsigned long long)__clz(a) << 40);
    o[13] = (unsigned long long)(long long)__mul24(sa, sb) ^ ((unsigned long long)__umul24(a, b) << 32);
    o[14] = (unsigned long long)((long long)sa * sb) + (unsigned long long)(sa >> (b & 31));
    o[15] = (unsigned long long)(long long)(short)a + ((unsigned long long)(signed char)b << 40);
}
// single-precision intrinsics and rounding (16 words per thread: floats and ints)
__global__ void fltintr(float *fo, long long *io, const float *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i], y = in[(i + 1) % (gridDim.x * blockDim.x)];
    float *f = fo + 12 * i;
    long long *k = io + 10 * i;
    float s, c;
    __sincosf(x, &s, &c);
    f[0] = __fdividef(x, y);
    f[1] = __saturatef(x);
    f[2] = __frsqrt_rn(fabsf(x) + 0.5f);
    f[3] = __expf(x);
    f[4] = s;
    f[5] = c;
    f[6] = rintf(x * 3.5f);
    f[7] = __fadd_rz(x, y) ;
    f[8] = __fmul_ru(x, y);
    f[9] = __fsqrt_rn(fabsf(y));
    f[10] = __frcp_rn(y);
    f[11] = __logf(fabsf(x) + 1.0f) + __powf(fabsf(y) + 1.0f, 0.5f);
    float z = x * 1000.0f;
    k[0] = llrintf(z);
    k[1] = __float2int_rn(z);
    k[2] = __float2int_rz(z);
    k[3] = __float2int_ru(z);
    k[4] = __float2int_rd(z);
    k[5] = __float2uint_rn(fabsf(z));
    k[6] = __float2ll_rd(z * 1e6f);
    k[7] = lrintf(z * 0.5f);
    k[8] = (long long)__float2ull_ru(fabsf(z));
    k[9] = __float_as_int(x) ^ (long long)__int2float_rn(i * 7);
}
// __half and __nv_bfloat16 arithmetic (16 halves per thread)
__global__ void halfarith(__half *ho, __nv_bfloat16 *bo, int *io, const __half *ha, const float *fa) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half a = ha[2 * i], b = ha[2 * i + 1];
    __half *h = ho + 8 * i;
    h[0] = a + b;
    h[1] = a * b - b;
    h[2] = __hfma(a, b, a);
    h[3] = a / b;
    h[4] = __hmax(a, b);
    __half2 p = __halves2half2(a, b), q = __halves2half2(b, a);
    __half2 r = __hfma2(p, q, p);
    h[5] = __low2half(r);
    h[6] = __high2half(__hmul2(p, q));
    h[7] = __float2half_rn(__half2float(a) * 3.0f) - __int2half_rn(i);
    __nv_bfloat16 x = __float2bfloat16(fa[2 * i]), y = __float2bfloat16(fa[2 * i + 1]);
    __nv_bfloat16 *g = bo + 8 * i;
    g[0] = x + y;
    g[1] = x * y;
#if __CUDA_ARCH__ >= 800
    g[2] = __hfma(x, y, x);
#else
    g[2] = __float2bfloat16(__fmaf_rn(__bfloat162float(x), __bfloat162float(y), __bfloat162float(x)));
#endif
    g[3] = x - y;
    __nv_bfloat162 bp = __halves2bfloat162(x, y);
    __nv_bfloat162 bq = __hmul2(bp, bp);
    g[4] = __low2bfloat16(bq);
    g[5] = __high2bfloat16(bq);
    g[6] = __hmin(x, y);
    g[7] = __float2bfloat16_rz(__bfloat162float(x) * 1.5f);
    int *k = io + 4 * i;
    k[0] = __hlt(a, b) + 2 * __hge(a, b) + 4 * __heq(a, a) + 8 * (x > y);
    k[1] = __half2int_rz(a * (__half)10.0f);
    k[2] = __bfloat162int_rn(x * (__nv_bfloat16)4.0f);
    k[3] = __half_as_ushort(a) ^ ((int)__bfloat16_as_ushort(y) << 16);
}
}
