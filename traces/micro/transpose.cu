// transpose.cu - shared-memory tiled matrix transpose (seed 002 section 4).
//
// PTX: nvcc -ptx -arch=sm_90 transpose.cu (make ptx)
// regs: nvcc -arch=sm_90 -cubin -Xptxas -v -o /dev/null transpose.cu
// launch files: transpose_basic.launch, transpose_padded.launch,
//               transpose_vec.launch
//
// What it measures.  out = transpose(in) for an n x n row-major float
// matrix (n a multiple of 32), one 32 x 32 tile per block staged through
// shared memory so that both the global reads (rows of the tile) and the
// global writes (rows of the transposed tile) are coalesced.  Bandwidth =
// 2 * n * n * 4 bytes / simulated time (read + write), as in the seed.
//
//   transpose_basic   seed "Basic": 32 x 8 threads, TILE 32, each thread
//                     moves 4 elements (rows ty, ty + 8, ty + 16, ty + 24).
//                     The tile is float[32][32] with no padding, so the
//                     column reads tile[tx][...] of a warp all fall in one
//                     bank: 32-way shared-memory bank conflicts.
//   transpose_padded  the same with float[32][33] (TILE_DIM + 1): a column
//                     of the tile spreads over all 32 banks.  (Not a row of
//                     the seed's table; it isolates the padding effect.)
//   transpose_vec     seed "Vectorized": 8 x 32 threads, each moves 4
//                     contiguous floats as one float4 global load (row ty of
//                     the input tile, columns 4 tx .. 4 tx + 3) and one
//                     float4 global store (row ty of the output tile);
//                     padded tile float[32][33], so the shared accesses are
//                     scalar and conflict-free.
// The seed transposes 32768 x 32768 (4 GB); the launch files use a smaller
// n (see README.md) so the simulation stays short.

#define TILE 32

// The scalar kernels differ only in the tile's row length (PAD = 0 or 1).
template <int PAD>
__device__ __forceinline__ void transpose_tile(const float *in, float *out, int n)
{
    __shared__ float tile[TILE][TILE + PAD];
    int tx = threadIdx.x, ty = threadIdx.y;          // 32 x 8
    int col = blockIdx.x * TILE + tx, row = blockIdx.y * TILE + ty;

#pragma unroll
    for (int r = 0; r < TILE; r += 8)
        tile[ty + r][tx] = in[(size_t)(row + r) * n + col];
    __syncthreads();

    // Output tile (blockIdx.y, blockIdx.x): its row ty + r is column ty + r of
    // the input tile.
    col = blockIdx.y * TILE + tx;
    row = blockIdx.x * TILE + ty;
#pragma unroll
    for (int r = 0; r < TILE; r += 8)
        out[(size_t)(row + r) * n + col] = tile[tx][ty + r];
}

extern "C" __global__ void transpose_basic(const float *in, float *out, int n)
{
    transpose_tile<0>(in, out, n);
}

extern "C" __global__ void transpose_padded(const float *in, float *out, int n)
{
    transpose_tile<1>(in, out, n);
}

extern "C" __global__ void transpose_vec(const float *in, float *out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;          // 8 x 32
    int c4 = 4 * tx;                                 // first of this thread's 4 columns

    float4 v = *reinterpret_cast<const float4 *>(
        &in[(size_t)(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + c4]);
    tile[ty][c4 + 0] = v.x;
    tile[ty][c4 + 1] = v.y;
    tile[ty][c4 + 2] = v.z;
    tile[ty][c4 + 3] = v.w;
    __syncthreads();

    // Output row blockIdx.x * TILE + ty, columns blockIdx.y * TILE + c4 .. + 3:
    // input column ty of the tile, rows c4 .. c4 + 3.
    float4 w;
    w.x = tile[c4 + 0][ty];
    w.y = tile[c4 + 1][ty];
    w.z = tile[c4 + 2][ty];
    w.w = tile[c4 + 3][ty];
    *reinterpret_cast<float4 *>(&out[(size_t)(blockIdx.x * TILE + ty) * n + blockIdx.y * TILE + c4]) = w;
}
