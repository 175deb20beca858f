// latency.cu - memory latency by pointer chasing (seed 002 section 3a).
//
// PTX: nvcc -ptx -arch=sm_90 latency.cu (make ptx)
// regs: nvcc -arch=sm_90 -cubin -Xptxas -v -o /dev/null latency.cu
// launch files: latency_smem.launch, latency_l1.launch, latency_l2.launch,
//               latency_dram.launch
//
// What it measures.  One thread (<<<1, 1>>>) follows a pointer chain
// j = a[j], starting at j = 0: each load's address depends on the value the
// previous load returned, so there is never more than one load in flight
// and clk / steps is the load-to-use latency of the level the chain lives in
// (plus the loop's own few instructions, as in the seed).  The launch files
// fill `a` with smsim's `chase STRIDE` initialiser: elements 0, STRIDE,
// 2*STRIDE, ... form one random cycle (Sattolo) through the whole buffer, so
// consecutive loads hit unrelated lines and no prefetcher or row-buffer
// pattern helps.  clock64() brackets only the timed chase; thread 0 (the only
// thread) writes the final index to res[0] and the cycle count to clk[0].
//
//   chase_smem  shared memory, 8 KB working set (2048 u32, stride 1): the
//               chain is copied from global into a static shared array,
//               then chased there.                         (seed: 28.6 cycles)
//   chase_l1    L1, 8 KB global working set: one untimed chase pass over
//               the whole cycle (`warm` steps) loads every line into L1, then
//               the timed pass of `steps` chases through L1. (seed: 40.2)
//   chase_l2    L2, 4 MB working set, one element per 128-byte line
//               (stride 32 u32), all loads __ldcg (ld.global.cg: cached in L2
//               only, so nothing is ever served by L1).  Warm-up is an
//               in-kernel, untimed sweep that reads every line of the cycle
//               with __ldcg, 32 independent loads at a time, so it costs
//               about 1/32 of the simulated cycles of a warm-up chase or of
//               a first launch with `repeat = 2` (both pay one DRAM latency
//               per line, 32768 lines); its sum goes to res[1] so the sweep
//               is not dead code.                              (seed: 259.9)
//   chase_dram  DRAM, one element per 128-byte line (stride 32 u32), plain
//               loads.  The seed chases a 256 MB buffer and first flushes L2
//               by reading a buffer larger than L2; smsim starts every
//               simulation with cold caches, so as long as the timed pass
//               touches each line at most once (steps <= lines in the cycle)
//               every load misses L1 and L2 and goes to DRAM, and no flush
//               is needed.  The launch file uses a 64 MB buffer (larger than
//               H100's 50 MB L2, random lines spread over it like the seed's)
//               and fewer steps than lines.                  (seed: 570.5)

extern "C" __global__ void chase_smem(const unsigned *a, unsigned n, unsigned *res,
                                      unsigned long long *clk, int steps)
{
    __shared__ unsigned s[2048];                 // 8 KB
    for (unsigned i = threadIdx.x; i < n && i < 2048; i += blockDim.x)
        s[i] = a[i];
    __syncthreads();

    unsigned j = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < steps; k++)
        j = s[j];
    long long t1 = clock64();

    res[0] = j;
    clk[0] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void chase_l1(const unsigned *a, int warm, unsigned *res,
                                    unsigned long long *clk, int steps)
{
    unsigned j = 0;
#pragma unroll 1
    for (int k = 0; k < warm; k++)               // untimed: fills L1
        j = a[j];

    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < steps; k++)
        j = a[j];
    long long t1 = clock64();

    res[0] = j;
    clk[0] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void chase_l2(const unsigned *a, unsigned n, unsigned stride, unsigned *res,
                                    unsigned long long *clk, int steps)
{
    // Untimed: every line of the cycle into L2, 32 independent loads at a
    // time (n must be a multiple of 32 * stride).  Summing only after all 32
    // are issued keeps them in flight together.
    unsigned sum = 0;
#pragma unroll 1
    for (unsigned i = 0; i < n; i += 32 * stride) {
        unsigned v[32];
#pragma unroll
        for (int u = 0; u < 32; u++)
            v[u] = __ldcg(&a[i + u * stride]);
#pragma unroll
        for (int u = 0; u < 32; u++)
            sum += v[u];
    }

    unsigned j = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < steps; k++)
        j = __ldcg(&a[j]);
    long long t1 = clock64();

    res[0] = j;
    res[1] = sum;
    clk[0] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void chase_dram(const unsigned *a, unsigned *res, unsigned long long *clk,
                                      int steps)
{
    unsigned j = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < steps; k++)
        j = a[j];
    long long t1 = clock64();

    res[0] = j;
    clk[0] = (unsigned long long)(t1 - t0);
}
