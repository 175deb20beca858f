// hotspot.cu - one launch of the Rodinia HotSpot thermal stencil
// (calculate_temp): each 16x16 block loads a tile of temperature and power
// into shared memory, advances it `iteration` steps (the pyramid height),
// and writes the interior (16 - 2*iteration)^2 results.
//
// Reference for the instruction sequence: ../shared/seeds/001, table 2-1
// (GTX 760; tables 5-1 and 8-1 for 940MX and GTX 1070): 13 loaded
// parameters, the temp_on_cuda/power_on_cuda/temp_t shared tiles, the
// double-precision update with the 2.0 constant, and the three barriers.
// Written for smsim from that listing and Rodinia's published algorithm.
// PTX: nvcc -ptx -arch=sm_75 hotspot.cu (make ptx); launch: traces/hotspot.launch
#define BLOCK_SIZE 16

__device__ __forceinline__ bool in_range(int x, int lo, int hi) { return x >= lo && x <= hi; }

extern "C" __global__ void
calculate_temp(int iteration, const float *power, const float *temp_src, float *temp_dst,
               int grid_cols, int grid_rows, int border_cols, int border_rows,
               float cap, float rx, float ry, float rz, float step, float time_elapsed)
{
    __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];
    const float amb_temp = 80.0f;
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    float step_div_cap = step / cap;
    float rx_1 = 1 / rx, ry_1 = 1 / ry, rz_1 = 1 / rz;

    /* the interior this block is responsible for, and its halo */
    int small_rows = BLOCK_SIZE - iteration * 2, small_cols = BLOCK_SIZE - iteration * 2;
    int blk_y = small_rows * by - border_rows, blk_x = small_cols * bx - border_cols;
    int blk_ymax = blk_y + BLOCK_SIZE - 1, blk_xmax = blk_x + BLOCK_SIZE - 1;
    int yidx = blk_y + ty, xidx = blk_x + tx;
    int index = grid_cols * yidx + xidx;

    if (in_range(yidx, 0, grid_rows - 1) && in_range(xidx, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    __syncthreads();

    /* the part of the tile that lies inside the grid */
    int valid_ymin = blk_y < 0 ? -blk_y : 0;
    int valid_ymax = blk_ymax > grid_rows - 1 ? BLOCK_SIZE - 1 - (blk_ymax - grid_rows + 1) : BLOCK_SIZE - 1;
    int valid_xmin = blk_x < 0 ? -blk_x : 0;
    int valid_xmax = blk_xmax > grid_cols - 1 ? BLOCK_SIZE - 1 - (blk_xmax - grid_cols + 1) : BLOCK_SIZE - 1;
    int n = ty - 1 < valid_ymin ? valid_ymin : ty - 1;
    int s = ty + 1 > valid_ymax ? valid_ymax : ty + 1;
    int w = tx - 1 < valid_xmin ? valid_xmin : tx - 1;
    int e = tx + 1 > valid_xmax ? valid_xmax : tx + 1;

    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (in_range(tx, i + 1, BLOCK_SIZE - i - 2) && in_range(ty, i + 1, BLOCK_SIZE - i - 2) &&
            in_range(tx, valid_xmin, valid_xmax) && in_range(ty, valid_ymin, valid_ymax)) {
            computed = true;
            float t = temp_on_cuda[ty][tx];
            temp_t[ty][tx] = t + step_div_cap * (power_on_cuda[ty][tx] +
                             (temp_on_cuda[s][tx] + temp_on_cuda[n][tx] - 2.0 * t) * ry_1 +
                             (temp_on_cuda[ty][e] + temp_on_cuda[ty][w] - 2.0 * t) * rx_1 +
                             (amb_temp - t) * rz_1);
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed)
        temp_dst[index] = temp_t[ty][tx];
}
