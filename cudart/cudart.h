/*
 * cudart.h - what the replacement CUDA runtime's files share (never
 * installed): the state of the program's one simulated device.
 *
 * libcudart.so.13 (the files of cudart/, doc/exec.md) stands in for NVIDIA's
 * runtime in an unmodified program: it takes the PTX out of the fat
 * binaries the program registers, keeps device memory in libsmsim's
 * smsim_program and simulates every launch on the configured GPU
 * (smsim exec says which, through SMSIM_EXEC_* variables).  Work is done
 * when it is asked for, in program order, so every stream's order holds;
 * simulated time runs on one timeline: kernels take their simulated
 * cycles, copies the host link's time, and events read the timeline.
 * Host threads: every call holds one recursive lock while it runs (RT_GUARD),
 * so calls from several threads are serialised in the order they take it;
 * a host function a stream runs (cudaLaunchHostFunc) runs without it.
 */
#ifndef SMSIM_CUDART_CUDART_H
#define SMSIM_CUDART_CUDART_H

#include <stdbool.h>
#include <stdint.h>

#include "cudart/cudart_abi.h"
#include "lib/smsim.h"

/* A registered fat binary: its PTX is loaded when first needed. */
struct rt_bin {
    const struct cudart_fatbin_wrapper *wrap;
    int module;                  /* in rt.prog; -1: not loaded yet; -2: failed */
    char *ptx_path;              /* the PTX written out (ptxas -v, messages) */
};

/* A registered kernel: the host stub's address names it. */
struct rt_func {
    const void *host;
    uint32_t bin;
    char *name;                  /* the PTX .entry name */
    uint32_t max_dyn_smem;       /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    uint32_t cluster[3];         /* cudaFuncAttributeRequiredCluster* */
};

/* A registered __device__ or __constant__ variable: its host shadow's address names it. */
struct rt_var {
    const void *host;
    uint32_t bin;
    char *name;
    uint64_t size;
    void **managed;              /* __managed__: the host's pointer to it, set when loaded */
};

/* One entry of the whole-program timeline. */
enum rt_op { RT_KERNEL, RT_COPY, RT_SET };
struct rt_event_rec {
    uint8_t op;
    uint8_t dir;                 /* copies: enum cudaMemcpyKind */
    uint32_t kernel;             /* RT_KERNEL: the sim's kernel index */
    double start_ns, dur_ns;
    uint64_t bytes;
};

struct rt {
    bool ready;
    cudaError_t init_err;        /* set when the device could not be set up */
    cudaError_t last;            /* cudaGetLastError */
    cudaError_t sticky;          /* a failed kernel: every call returns it */
    smsim_config *cfg;
    char cfg_name[256];
    struct smsim_gpu gpu;
    smsim_sim *sim;              /* NULL: functional only (--no-timing) */
    smsim_program *prog;
    smsim_outfile *wout;         /* --windows: where they go */
    struct smsim_totals tot;     /* functional only: what ran */
    double host_gbps;            /* host link (host.link_gbps, host.link_latency_us) */
    double host_latency_ns;
    struct rt_bin *bins;
    uint32_t n_bins;
    struct rt_func *funcs;
    uint32_t n_funcs;
    struct rt_var *vars;
    uint32_t n_vars;
    /* the launch configuration <<<...>>> pushes and the stub pops */
    dim3 cfg_grid[8], cfg_block[8];
    size_t cfg_smem[8];
    void *cfg_stream[8];
    uint32_t cfg_depth;
    double now_ns;               /* the timeline */
    double kernel_ns, copy_ns;
    struct rt_event_rec *tl;
    uint32_t n_tl, cap_tl;
    uint64_t launches;
};

extern struct rt rt;

/* Take the runtime's lock until the enclosing function returns. */
int rt_lock(void);
void rt_unlock(int *guard);
#define RT_GUARD __attribute__((cleanup(rt_unlock))) int rt_guard_ = rt_lock(); (void)rt_guard_

/* Set the device up on first use (config, sim, program); the status of
 * that, or the sticky error of a failed kernel. */
cudaError_t rt_ready(void);
/* Return from the calling entry point with the status of rt_ready()
 * unless the device is set up and no kernel has failed. */
#define RT_REQUIRE_READY()                                                                 \
    do {                                                                                   \
        cudaError_t ready_ = rt_ready();                                                   \
        if (ready_ != cudaSuccess)                                                         \
            return rt_fail(ready_, NULL);                                                  \
    } while (0)
/* Return e, remembered for cudaGetLastError; with a message on stderr
 * when fmt is not NULL. */
cudaError_t rt_fail(cudaError_t e, const char *fmt, ...) SMSIM_PRINTF(2, 3);
/* Load bin's PTX into the program if not yet; its module or -1. */
int rt_module(uint32_t bin);
/* The device address and size of the variable whose host shadow is sym. */
cudaError_t rt_symbol(const void *sym, uint64_t *addr, uint64_t *size);
/* Add an operation to the timeline: dur_ns from now. */
void rt_timeline(uint8_t op, uint8_t dir, uint32_t kernel, double dur_ns, uint64_t bytes);
/* Entry points one file of the runtime calls in another's. */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
/* Time a copy of bytes over the host link (0 within the device). */
double rt_copy_ns(uint64_t bytes, int dir);

#endif /* SMSIM_CUDART_CUDART_H */
