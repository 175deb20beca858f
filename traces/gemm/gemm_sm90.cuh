// gemm_sm90.cuh - what the Hopper GEMMs of this folder share (gemm_wgmma.cu,
// gemm_tma.cu): shared addresses and wgmma descriptors of 128-byte-swizzled
// K-major tiles, mbarriers, TMA tile loads, the multiply of one k-tile and
// the store of a warpgroup's 64 x 128 accumulators.
#ifndef GEMM_SM90_CUH
#define GEMM_SM90_CUH

#include <cstdint>

#define BM 128
#define BN 128
#define BK 32                            // a k-tile: 32 floats, one 128-byte swizzle row

__device__ __forceinline__ uint32_t sa(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// K-major, 128-byte swizzle: rows 128 bytes apart, 8-row groups 1024 apart
__device__ __forceinline__ uint64_t desc(const void *p)
{
    return (uint64_t)((sa(p) & 0x3ffff) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 |
           (uint64_t)1 << 62;
}

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sa(bar)), "r"(count));
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    asm volatile("{\n\t.reg .pred p;\n"
                 "W%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "\t@!p bra W%=;\n\t}" :: "r"(sa(bar)), "r"(parity) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(bar)) : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(sa(bar)), "r"(bytes) : "memory");
}

// the box of tensor map tm at (x, y) into dst, completing its bytes on bar
__device__ __forceinline__ void tma_load(void *dst, const void *tm, int x, int y, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                 "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sa(dst)), "l"(tm), "r"(x), "r"(y), "r"(sa(bar)) : "memory");
}

__device__ __forceinline__ void wgmma_tf32(float (&d)[64], uint64_t da, uint64_t db)
{
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n\t}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
          "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db));
}

// d += the k-tile's 64 rows of A at a times its 128 rows of B at b: four
// m64n128k8 steps, the descriptors' start 32 bytes (8 tf32) further each
__device__ __forceinline__ void mma_ktile(float (&d)[64], const float *a, const float *b)
{
    uint64_t da = desc(a), db = desc(b);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int kk = 0; kk < BK / 8; kk++)
        wgmma_tf32(d, da + 2 * kk, db + 2 * kk);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// a warpgroup's accumulators (PTX ISA: wgmma D fragment, m64nNk f32) to
// C's rows r0 .. r0 + 63, columns c0 .. c0 + 127
__device__ __forceinline__ void store_acc(const float (&d)[64], float *C, int M, int N, int r0,
                                          int c0)
{
    const int w = threadIdx.x % 128 / 32, l = threadIdx.x % 32;
    for (int i = 0; i < 64; i++) {
        int r = r0 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        int c = c0 + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
        if (r < M && c < N)
            C[(size_t)r * N + c] = d[i];
    }
}

// tile t of C in grouped order (8 tile rows a group): its origin
__device__ __forceinline__ void grouped_tile(int t, int M, int N, int *m0, int *n0)
{
    const int tiles_m = M / BM, tiles_n = N / BN, G = 8;
    const int first = t / (G * tiles_n) * G, rows = min(tiles_m - first, G);
    *m0 = (first + t % rows) * BM;
    *n0 = (t % (G * tiles_n)) / rows * BN;
}

#endif
