// mm.cu - tiled matrix multiply C = A x B in the shape of the CUDA samples'
// matrixMul with BLOCK_SIZE 32: each 32x32 block stages a tile of A and of
// B in shared memory per step and accumulates 32 products per thread.
//
// Reference for the instruction sequence: ../shared/seeds/001, table 4-1
// (GTX 760; tables 7-1 and 10-1): 5 parameters (C, A, B, wA, wB), the tile
// loop from aBegin to aEnd in steps of 32, two global loads and shared
// stores, a barrier, the fully unrolled 32 x (2 ld.shared + fma) body, a
// second barrier, and one store of the result.  Written for smsim.
// PTX: nvcc -ptx -arch=sm_75 mm.cu (make ptx); launch: traces/mm.launch
#define BLOCK_SIZE 32

extern "C" __global__ void
matrix_mul(float *c, const float *a, const float *b, int wa, int wb)
{
    __shared__ float as[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float bs[BLOCK_SIZE][BLOCK_SIZE];
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int a_begin = wa * BLOCK_SIZE * by;
    int a_end = a_begin + wa - 1;
    int b_begin = BLOCK_SIZE * bx, b_step = BLOCK_SIZE * wb;
    float sum = 0.0f;
    for (int ia = a_begin, ib = b_begin; ia <= a_end; ia += BLOCK_SIZE, ib += b_step) {
        as[ty][tx] = a[ia + wa * ty + tx];
        bs[ty][tx] = b[ib + wb * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; k++)
            sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[wb * BLOCK_SIZE * by + BLOCK_SIZE * bx + wb * ty + tx] = sum;
}
