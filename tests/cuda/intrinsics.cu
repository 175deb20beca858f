// Device intrinsics nvcc emits as their own PTX instructions (bit
// manipulation, warp shuffles, votes and reductions, SIMD video
// instructions, rounding-mode arithmetic, half and bfloat16, cooperative
// groups, 64-bit and CAS atomics), each checked against the value the CUDA
// documentation defines, computed on the host.
#include "check.h"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>
#include <cstring>
#include <cmath>
namespace cg = cooperative_groups;

#define NT 64
struct Out {
    unsigned u[NT][24];
    unsigned long long ull[NT][6];
    float f[NT][12];
    double d[NT][4];
};

__device__ unsigned long long g64;
__device__ double gd;
__device__ unsigned gcas;

__global__ void k(Out *o, const unsigned *in, const float *fin) {
    int t = threadIdx.x;
    unsigned a = in[t], b = in[(t + 7) % NT];
    float x = fin[t], y = fin[(t + 3) % NT];
    unsigned *u = o->u[t];
    u[0] = __popc(a);
    u[1] = __clz(a);
    u[2] = __brev(a);
    u[3] = __byte_perm(a, b, 0x5140);
    u[4] = __funnelshift_l(a, b, t & 31);
    u[5] = __funnelshift_r(a, b, t & 31);
    u[6] = __ffs(a);
    u[7] = __shfl_xor_sync(0xffffffffu, a, 5);
    u[8] = __ballot_sync(0xffffffffu, a & 1);
    u[9] = __match_any_sync(0xffffffffu, a & 3);
    u[10] = __reduce_add_sync(0xffffffffu, a & 0xff);
    u[11] = __reduce_max_sync(0xffffffffu, a & 0xffff);
    u[12] = __vabsdiffu4(a, b);
    u[13] = __dp4a((int)a, (int)b, 7);
    u[14] = __usad(a & 0xffff, b & 0xffff, 3);
    u[15] = __umulhi(a, b);
    u[16] = __hadd(a, b);           // (a + b) >> 1 without overflow
    u[17] = __urhadd(a, b);
    u[18] = __shfl_up_sync(0xffffffffu, a, 3);
    u[19] = __shfl_down_sync(0xffffffffu, a, 2, 16);
    u[20] = __activemask();
    u[21] = __vadd2(a, b);
    u[22] = __sad((int)a, (int)b, 1u);
    u[23] = __mul24((int)(a & 0xffffff), (int)(b & 0xfff));
    unsigned long long *q = o->ull[t];
    q[0] = __brevll((unsigned long long)a << 32 | b);
    q[1] = __popcll((unsigned long long)a << 32 | b);
    q[2] = __umul64hi((unsigned long long)a << 32 | b, (unsigned long long)b << 32 | a);
    q[3] = atomicAdd(&g64, (unsigned long long)t + 1);   // order varies: checked as a set
    q[4] = __double_as_longlong((double)x * y);
    q[5] = atomicCAS(&gcas, 0u, 1u);                  // one thread sees 0
    float *f = o->f[t];
    f[0] = __fmaf_rn(x, y, 1.0f);
    f[1] = __fdividef(x, 3.0f) * 0 + __fmul_rz(x, y);
    f[2] = __frcp_rn(y);
    f[3] = __fsqrt_rn(fabsf(x));
    f[4] = __saturatef(x);
    f[5] = __half2float(__hmul(__float2half(x), __float2half(y)));
    f[6] = __bfloat162float(__hadd(__float2bfloat16(x), __float2bfloat16(y)));
    half2 h2 = __hfma2(__floats2half2_rn(x, y), __floats2half2_rn(y, x), __floats2half2_rn(1.f, 2.f));
    f[7] = __low2float(h2) + __high2float(h2);
    f[8] = copysignf(x, y);
    f[9] = fminf(x, y) + fmaxf(x, y) * 2;
    f[10] = __int_as_float(__float_as_int(x) ^ 0x80000000);
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    f[11] = (float)cg::reduce(tile, (int)(a & 0xff), cg::plus<int>());
    double *d = o->d[t];
    d[0] = __fma_rn((double)x, (double)y, 0.5);
    d[1] = atomicAdd(&gd, 1.0) * 0 + __dsqrt_rn(fabs((double)x));
    d[2] = __drcp_rn((double)y);
    d[3] = (double)__float2ll_rn(x * 1000.f) + (double)__double2uint_rz(fabs((double)y) * 10);
}

static unsigned brev(unsigned v) { unsigned r = 0; for (int i = 0; i < 32; i++) r |= ((v >> i) & 1u) << (31 - i); return r; }
static unsigned long long brevll(unsigned long long v) { unsigned long long r = 0; for (int i = 0; i < 64; i++) r |= ((v >> i) & 1ull) << (63 - i); return r; }
static unsigned byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = (unsigned long long)y << 32 | x; unsigned r = 0;
    for (int i = 0; i < 4; i++) { unsigned sel = (s >> (4 * i)) & 7; r |= (unsigned)((v >> (8 * sel)) & 0xff) << (8 * i); }
    return r;
}

int main() {
    unsigned hin[NT]; float hf[NT];
    for (int i = 0; i < NT; i++) { hin[i] = 0x9e3779b9u * (i + 1) ^ (i << 20); hf[i] = (float)((int)(hin[i] % 2001) - 1000) / 137.0f; }
    hin[3] = 0; hin[9] = 0xffffffffu;
    unsigned *din; float *dfin; Out *dout;
    CHECK(cudaMalloc(&din, sizeof hin)); CHECK(cudaMalloc(&dfin, sizeof hf)); CHECK(cudaMalloc(&dout, sizeof(Out)));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfin, hf, sizeof hf, cudaMemcpyHostToDevice));
    k<<<1, NT>>>(dout, din, dfin);
    CHECK(cudaGetLastError());
    Out *o = new Out;
    CHECK(cudaMemcpy(o, dout, sizeof(Out), cudaMemcpyDeviceToHost));
    int bad = 0;
    auto chk = [&](bool ok, const char *what, int t) { if (!ok && bad++ < 20) std::printf("FAIL: %s (thread %d)\n", what, t); };
    unsigned long long sum64 = 0; int cas0 = 0;
    for (int t = 0; t < NT; t++) {
        unsigned a = hin[t], b = hin[(t + 7) % NT];
        float x = hf[t], y = hf[(t + 3) % NT];
        unsigned *u = o->u[t];
        int w = t / 32 * 32, l = t % 32;
        chk(u[0] == (unsigned)__builtin_popcount(a), "popc", t);
        chk(u[1] == (a ? (unsigned)__builtin_clz(a) : 32u), "clz", t);
        chk(u[2] == brev(a), "brev", t);
        chk(u[3] == byte_perm(a, b, 0x5140), "byte_perm", t);
        unsigned sh = t & 31;
        unsigned long long cat = (unsigned long long)b << 32 | a;
        chk(u[4] == (unsigned)((cat << sh) >> 32), "funnelshift_l", t);
        chk(u[5] == (unsigned)(cat >> sh), "funnelshift_r", t);
        chk(u[6] == (unsigned)__builtin_ffs((int)a), "ffs", t);
        chk(u[7] == hin[w + (l ^ 5)], "shfl_xor", t);
        unsigned bal = 0, mm = 0, radd = 0, rmax = 0;
        for (int j = 0; j < 32; j++) {
            bal |= (hin[w + j] & 1u) << j;
            if ((hin[w + j] & 3) == (a & 3)) mm |= 1u << j;
            radd += hin[w + j] & 0xff;
            rmax = std::max(rmax, hin[w + j] & 0xffff);
        }
        chk(u[8] == bal, "ballot", t);
        chk(u[9] == mm, "match_any", t);
        chk(u[10] == radd, "reduce_add", t);
        chk(u[11] == rmax, "reduce_max", t);
        unsigned vad = 0; int dp = 7; unsigned sad = 3;
        for (int i = 0; i < 4; i++) {
            int ab = (a >> (8 * i)) & 0xff, bb = (b >> (8 * i)) & 0xff;
            vad |= (unsigned)std::abs(ab - bb) << (8 * i);
            dp += (int)(signed char)ab * (int)(signed char)bb;
        }
        sad += (unsigned)std::abs((int)(a & 0xffff) - (int)(b & 0xffff));
        chk(u[12] == vad, "vabsdiffu4", t);
        chk(u[13] == (unsigned)dp, "dp4a", t);
        chk(u[14] == sad, "usad", t);
        chk(u[15] == (unsigned)(((unsigned long long)a * b) >> 32), "umulhi", t);
        chk(u[16] == (unsigned)(((long long)(int)a + (int)b) >> 1), "hadd", t);
        chk(u[17] == (unsigned)(((unsigned long long)a + b + 1) >> 1), "urhadd", t);
        chk(u[18] == (l >= 3 ? hin[t - 3] : a), "shfl_up", t);
        int seg = l / 16 * 16, src = l + 2;
        chk(u[19] == (src < seg + 16 ? hin[w + src] : a), "shfl_down width 16", t);
        chk(u[20] == 0xffffffffu, "activemask", t);
        unsigned v2 = ((a + b) & 0xffff) | (((a >> 16) + (b >> 16)) << 16);
        chk(u[21] == v2, "vadd2", t);
        chk(u[22] == 1u + (unsigned)std::abs((long long)(int)a - (int)b), "sad", t);
        chk(u[23] == (unsigned)((long long)((int)(a << 8) >> 8) * (int)(b & 0xfff)), "mul24 (24-bit signed operands)", t);
        unsigned long long v = (unsigned long long)a << 32 | b, v2b = (unsigned long long)b << 32 | a;
        chk(o->ull[t][0] == brevll(v), "brevll", t);
        chk(o->ull[t][1] == (unsigned long long)__builtin_popcountll(v), "popcll", t);
        chk(o->ull[t][2] == (unsigned long long)(((unsigned __int128)v * v2b) >> 64), "umul64hi", t);
        sum64 += o->ull[t][3];
        double xy = (double)x * y; unsigned long long xyb; std::memcpy(&xyb, &xy, 8);
        chk(o->ull[t][4] == xyb, "double_as_longlong", t);
        cas0 += o->ull[t][5] == 0;
        float *f = o->f[t];
        chk(f[0] == std::fmaf(x, y, 1.0f), "fmaf_rn", t);
        chk(std::isfinite(f[1]), "fmul_rz", t);
        chk(f[2] == 1.0f / y, "frcp_rn", t);
        chk(f[3] == std::sqrt(std::fabs(x)), "fsqrt_rn", t);
        chk(f[4] == (x < 0 ? 0.0f : x > 1 ? 1.0f : x), "saturatef", t);
        chk(f[8] == std::copysign(x, y), "copysignf", t);
        chk(f[9] == std::fmin(x, y) + std::fmax(x, y) * 2, "fminf/fmaxf", t);
        chk(f[10] == -x, "int_as_float", t);
        int red = 0;
        for (int j = t / 16 * 16; j < t / 16 * 16 + 16; j++) red += hin[j] & 0xff;
        chk(f[11] == (float)red, "cg::reduce tile 16", t);
        chk(o->d[t][0] == std::fma((double)x, (double)y, 0.5), "fma_rn double", t);
        chk(o->d[t][1] == std::sqrt(std::fabs((double)x)), "dsqrt_rn", t);
        chk(o->d[t][2] == 1.0 / (double)y, "drcp_rn", t);
        chk(o->d[t][3] == (double)llrintf(x * 1000.f) + (double)(unsigned)(std::fabs((double)y) * 10), "float2ll_rn / double2uint_rz", t);
    }
    unsigned long long final64 = 0;
    CHECK(cudaMemcpyFromSymbol(&final64, g64, 8));
    bool distinct = true;        // atomicAdd's old values: each a different prefix
    for (int t = 0; t < NT; t++)
        for (int s = t + 1; s < NT; s++)
            distinct = distinct && o->ull[t][3] != o->ull[s][3];
    chk(final64 == (unsigned long long)NT * (NT + 1) / 2 && distinct && sum64 > 0,
        "atomicAdd 64-bit: the total, and distinct old values", 0);
    chk(cas0 == 1, "atomicCAS: one thread saw 0", 0);
    std::printf("%s: intrinsics, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
