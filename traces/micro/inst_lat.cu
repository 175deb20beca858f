// inst_lat.cu - instruction latency and throughput (seed 002 section 2).
//
// PTX: nvcc -ptx -arch=sm_90 inst_lat.cu (make ptx)
// regs: ptxas -arch=sm_90 -v inst_lat.ptx -o /dev/null (gen_launch.sh runs it)
// launch files: inst_lat_<op>_ilp<N>.launch, made by gen_launch.sh
//
// What it measures.  One warp (<<<1, 32>>>) runs `iters` iterations of a
// loop whose body applies one operation to each of ILP independent
// accumulators x[0..ILP-1].  With ILP = 1 every operation waits for the
// previous one, so cycles / (iters * ILP) is the dependent-issue latency of
// the operation; as ILP grows the chains overlap and the figure falls to the
// issue interval (throughput) of the unit, plus the loop overhead
// (counter add, compare, branch) amortised over ILP operations.  This is
// seed 002 section 2 ("Instruction Latency & Throughput"): ops FADD, FMUL,
// FMA, IADD, IMUL, __frcp_rn, __fsqrt_rn, __sinf, __logf(fabsf(x) + 2.0f)
// and __expf(x * 1e-5f) at ILP 1, 2, 4, ..., 128.
//
// How: the outer loop is `#pragma unroll 1` (kept as a loop, so the
// dependency structure is what the source says), the inner ILP loop is fully
// unrolled into ILP independent chains.  clock64() is read right before and
// right after the loop; thread 0 writes the difference to clk[0].  Every
// thread writes the sum of its chains to out[threadIdx.x] so no chain is
// dead code, and the inputs come from kernel parameters (a, b) and the
// thread index so nothing can be folded at compile time.
//
// Chains (j = threadIdx.x * ILP + i + 1 numbers the chain; T is float, or
// unsigned for the integer ops):
//   init   x = (T)j * a
//   fadd   x = x + b                     (add.f32)
//   fmul   x = x * b                     (mul.f32)
//   fma    x = fmaf(x, b, a)             (fma.rn.f32)
//   iadd   x = x + b                     (add.s32, wraps)
//   imul   x = x * b                     (mul.lo.s32, wraps)
//   frcp   x = __frcp_rn(x)              (rcp.rn.f32)
//   fsqrt  x = __fsqrt_rn(x)             (sqrt.rn.f32)
//   sinf   x = __sinf(x)                 (sin.approx.f32)
//   logf   x = __logf(fabsf(x) + 2.0f)   (abs, add, lg2.approx, mul: 4 PTX ops)
//   expf   x = __expf(x * 1e-5f)         (mul, mul, ex2.approx: 3 PTX ops)
// The logf/expf wrappers keep the values finite, as in the seed; they make
// one "operation" several PTX instructions, so for those two the figure is
// cycles per chain step, not per instruction (as the seed reports them).
// Out[] holds x[0] + x[1] + ... + x[ILP-1] (in that order) per thread.

template <typename T> struct add_op {
    static __device__ __forceinline__ T f(T x, T a, T b) { (void)a; return x + b; }
};
template <typename T> struct mul_op {
    static __device__ __forceinline__ T f(T x, T a, T b) { (void)a; return x * b; }
};
struct fma_op {
    static __device__ __forceinline__ float f(float x, float a, float b) { return fmaf(x, b, a); }
};
struct frcp_op {
    static __device__ __forceinline__ float f(float x, float, float) { return __frcp_rn(x); }
};
struct fsqrt_op {
    static __device__ __forceinline__ float f(float x, float, float) { return __fsqrt_rn(x); }
};
struct sinf_op {
    static __device__ __forceinline__ float f(float x, float, float) { return __sinf(x); }
};
struct logf_op {
    static __device__ __forceinline__ float f(float x, float, float) { return __logf(fabsf(x) + 2.0f); }
};
struct expf_op {
    static __device__ __forceinline__ float f(float x, float, float) { return __expf(x * 1e-5f); }
};

template <typename T, typename Op, int ILP>
__device__ __forceinline__ void chains(T *out, unsigned long long *clk, int iters, T a, T b)
{
    T x[ILP];
#pragma unroll
    for (int i = 0; i < ILP; i++)
        x[i] = (T)(threadIdx.x * ILP + i + 1) * a;

    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int i = 0; i < ILP; i++)
            x[i] = Op::f(x[i], a, b);
    }
    long long t1 = clock64();

    T s = x[0];
#pragma unroll
    for (int i = 1; i < ILP; i++)
        s = s + x[i];
    out[threadIdx.x] = s;
    if (threadIdx.x == 0)
        clk[0] = (unsigned long long)(t1 - t0);
}

// One extern "C" kernel per (operation, ILP): fadd_ilp1 ... expf_ilp128.
#define INST_LAT_KERNEL(name, T, Op, ILP) \
    extern "C" __global__ void name##_ilp##ILP(T *out, unsigned long long *clk, int iters, T a, T b) \
    { \
        chains<T, Op, ILP>(out, clk, iters, a, b); \
    }

#define INST_LAT_ALL_ILP(name, T, Op) \
    INST_LAT_KERNEL(name, T, Op, 1) \
    INST_LAT_KERNEL(name, T, Op, 2) \
    INST_LAT_KERNEL(name, T, Op, 4) \
    INST_LAT_KERNEL(name, T, Op, 8) \
    INST_LAT_KERNEL(name, T, Op, 16) \
    INST_LAT_KERNEL(name, T, Op, 32) \
    INST_LAT_KERNEL(name, T, Op, 64) \
    INST_LAT_KERNEL(name, T, Op, 128)

INST_LAT_ALL_ILP(fadd, float, add_op<float>)
INST_LAT_ALL_ILP(fmul, float, mul_op<float>)
INST_LAT_ALL_ILP(fma, float, fma_op)
INST_LAT_ALL_ILP(iadd, unsigned, add_op<unsigned>)
INST_LAT_ALL_ILP(imul, unsigned, mul_op<unsigned>)
INST_LAT_ALL_ILP(frcp, float, frcp_op)
INST_LAT_ALL_ILP(fsqrt, float, fsqrt_op)
INST_LAT_ALL_ILP(sinf, float, sinf_op)
INST_LAT_ALL_ILP(logf, float, logf_op)
INST_LAT_ALL_ILP(expf, float, expf_op)
