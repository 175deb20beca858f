// Barrier probes (issue 29): what one CTA barrier costs against the number
// of warps that meet at it, apart from the shared-memory traffic around it.
//   bar_only: `steps` iterations of two __syncthreads() and nothing else
//   smem_only: `steps` iterations of a shared store and a neighbour's load
//              with __syncwarp() between (no CTA barrier)
// One block; the launch files vary its size from 1 to 32 warps.
// nvcc 13.0: nvcc -ptx -arch=sm_90 -o bar.ptx bar.cu
extern "C" __global__ void bar_only(int *out, int steps)
{
    int k = 0;
    for (; k < steps; k++) {
        __syncthreads();
        __syncthreads();
    }
    out[threadIdx.x] = k;
}

extern "C" __global__ void smem_only(float *out, int steps)
{
    __shared__ float sh[1024];
    int t = threadIdx.x;
    float v = (float)t;
    for (int k = 0; k < steps; k++) {
        sh[t] = v;
        __syncwarp();
        v += sh[t ^ 1] * 0.5f;
        __syncwarp();
    }
    out[t] = v;
}
