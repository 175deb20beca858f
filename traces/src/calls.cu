// calls.cu - device-function calls: recursion (fib; a sum whose every
// activation has a local array of its own and adds to its caller's local
// through a pointer), a 64-bit result, a struct passed by value (a .b8
// array parameter), a call only odd lanes make (divergent) to a function
// that calls another twice (nested), a float2 result, and calls through
// function pointers (one chosen per lane, and a table in global memory).
// PTX: nvcc -ptx -arch=sm_90 calls.cu (make ptx); launch: traces/calls.launch
struct S {
    int a;
    float b;
    int c[3];
};

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ unsigned long long fact(unsigned n)
{
    return n <= 1 ? 1ull : n * fact(n - 1);
}

__device__ __noinline__ float sdot(S s, float x)
{
    return s.a * x + s.b + s.c[0] - s.c[1] * s.c[2];
}

__device__ __noinline__ int inner(int x)
{
    return x * 3 + 1;
}

__device__ __noinline__ int outer(int x)
{
    return inner(x) + inner(x + 1);
}

__device__ __noinline__ int rsum(int n, int *acc)
{
    int loc[4];
    loc[n & 3] = n;
    if (n == 0)
        return loc[0];
    int r = rsum(n - 1, acc) + loc[n & 3];
    *acc += r;
    return r;
}

typedef int (*op_t)(int);

__device__ __noinline__ int twice(int x)
{
    return 2 * x;
}

__device__ __noinline__ int negate(int x)
{
    return -x;
}

__device__ op_t ops[2] = { twice, negate };

__device__ __noinline__ float2 pair(float a)
{
    return make_float2(a, a * 2);
}

extern "C" __global__ void calls(const int *in, int *out, unsigned long long *wide, float *fout,
                                 int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    int v = in[t];
    out[t * 8 + 0] = fib(v & 7);
    wide[t] = fact(v & 31);
    S s;
    s.a = v;
    s.b = 0.5f * v;
    s.c[0] = t;
    s.c[1] = v & 7;
    s.c[2] = 3;
    fout[t * 2] = sdot(s, 1.25f);
    int r = 0;
    if (t & 1)
        r = outer(v);
    out[t * 8 + 1] = r;
    int acc = 0;
    out[t * 8 + 2] = rsum(v & 7, &acc);
    out[t * 8 + 3] = acc;
    op_t f = (v & 1) ? twice : negate;
    out[t * 8 + 4] = f(v) + ops[t & 1](t);
    float2 p = pair((float)t);
    fout[t * 2 + 1] = p.x + p.y;
}
