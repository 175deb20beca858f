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
#include <stdio.h>

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
enum rt_op { RT_KERNEL, RT_COPY, RT_SET, RT_KERNEL_EST };
struct rt_event_rec {
    uint8_t op;
    uint8_t dir;                 /* copies: enum cudaMemcpyKind */
    uint32_t kernel;             /* RT_KERNEL: the sim's kernel index; RT_KERNEL_EST: the
                                    function's (rt.funcs) */
    double start_ns, dur_ns;
    uint64_t bytes;              /* copies, sets; RT_KERNEL_EST: its estimated cycles */
};

/* Launch sampling (cudart_repeat.c): a launch's shape, and what was
 * simulated and estimated of it. */
enum { RT_WINDOW_MAX = 16 };     /* sim.sample_launches at most */
struct rt_shape_key {
    uint32_t grid[3], block[3], smem, cluster[3], cooperative;
};
struct rt_shape {
    uint32_t func;               /* rt.funcs index */
    struct rt_shape_key key;
    double cpi[RT_WINDOW_MAX];   /* the last simulated launches' cycles per PTX warp inst */
    uint64_t work[RT_WINDOW_MAX];  /* and their PTX warp instructions */
    uint32_t n_win;
    bool steady;                 /* they agree: launches are estimated */
    uint32_t since_check;        /* estimated launches since the last simulated one */
    uint32_t restarts;
    uint64_t n_timed, timed_cycles;
    uint64_t n_est, est_work, est_cycles, est_lo, est_hi;
};

struct rt {
    bool ready;
    cudaError_t init_err;        /* set when the device could not be set up */
    cudaError_t last;            /* cudaGetLastError */
    cudaError_t sticky;          /* a failed kernel: every call returns it */
    uint64_t failed;             /* launches that did not run (kernel_failed) ... */
    char first_failure[SMSIM_ERRMSG_MAX];   /* ... and why the first did not */
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
    double now_ns;               /* the timeline */
    double kernel_ns, copy_ns;
    struct rt_event_rec *tl;
    uint32_t n_tl, cap_tl;
    uint64_t launches;
    uint32_t sample_launches;    /* sim.sample_launches (0 under --no-timing) */
    bool replay;                 /* sim.replay_launches */
    double sample_tol;           /* sim.sample_tolerance */
    struct rt_shape *shapes;
    uint32_t n_shapes, cap_shapes;
};

extern struct rt rt;

/* A stream is only a name, work runs when issued; while it captures
 * (cudart_graph.c), its work is added to a graph instead. */
struct CUstream_st {
    int flags;
    struct CUgraph_st *capture;  /* the graph being captured, or NULL */
    struct CUgraphNode_st **tail;   /* the nodes its next node depends on */
    uint32_t n_tail, cap_tail;
};

struct CUevent_st {
    double t_ns;                 /* the timeline when it was recorded */
    bool recorded;
    unsigned long long capture_id;  /* recorded in a capturing stream: its capture (0: none) */
    struct CUgraphNode_st **tail;   /* and the nodes a stream waiting for it depends on */
    uint32_t n_tail;
};

/* The per-thread default stream (cudaStreamPerThread, and stream 0 of the
 * _ptsz entry points): a stream object that is never destroyed, so that
 * it can be captured as NVIDIA's can. */
extern struct CUstream_st rt_per_thread_stream;

/* The stream object behind handle s (NULL: the legacy default stream). */
static inline struct CUstream_st *
rt_stream(cudaStream_t s)
{
    if (s == cudaStreamPerThread)
        return &rt_per_thread_stream;
    return s == NULL || s == cudaStreamLegacy ? NULL : s;
}

/* Stream 0 of a _ptsz entry point: the per-thread default stream. */
#define RT_PT(s) ((s) == NULL ? cudaStreamPerThread : (s))

/* Array p of elements of elem bytes, with room for at least need of them
 * (*cap, doubled as needed); out of memory aborts, as the simulator's own
 * allocations do. */
void *rt_grow(void *p, uint32_t *cap, uint32_t need, size_t elem);

/* The loaded config's value of field `name` (a number); 0 when there is no
 * such field. */
double rt_config_number(const char *name);

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
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, int kind);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func,
                                                          int blockSize, size_t dynSmem);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind);
/* The error of the last call that failed (after rt_fail). */
static inline cudaError_t
rt_last_error(void)
{
    return rt.last;
}
/* Device memory at p is freed: the pool it came from (cudart_pool.c) no
 * longer counts it. */
void rt_pool_release(const void *p);
/* Graph memory (cudart_pool.c): an allocation node's memory is reserved
 * when the node is made (its address fixed for the graph's life) and is
 * live from a launch of the node until a free node, cudaFree or
 * cudaFreeAsync frees it; it stays device memory throughout, so a later
 * launch has it again at the same address. */
cudaError_t rt_graph_mem_reserve(size_t bytes, void **dptr);
cudaError_t rt_graph_mem_alloc(const void *p);
cudaError_t rt_graph_mem_free(const void *p);
bool rt_graph_mem_owns(const void *p);
size_t rt_graph_mem_bytes(const void *p);
/* Capture of stream-ordered allocation (cudart_graph.c): the node that
 * stands for cudaMallocAsync / cudaFreeAsync in capturing stream s. */
cudaError_t rt_capture_alloc(cudaStream_t s, size_t bytes, void **dptr);
cudaError_t rt_capture_free(cudaStream_t s, void *p);
/* CUDA array a (cudart_tex.c) as pitched device memory, its element size
 * in *esize; false if a is no array. */
bool rt_array_pitched(const void *a, struct cudaPitchedPtr *out, unsigned *esize);
/* Time a copy of bytes over the host link (0 within the device). */
double rt_copy_ns(uint64_t bytes, int dir);

/* A kernel launch (cudart.c); the offsets (may be NULL) and sizes of
 * kernel func's parameters in its parameter space into offsets[] and
 * sizes[] (at most max): their number, or -1 after rt_fail. */
cudaError_t rt_launch(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                      const uint32_t *cluster, bool cooperative);
int rt_param_layout(const void *func, uint32_t *offsets, uint32_t *sizes, unsigned max);
/* count elements of esize bytes (1, 2, 4) set to value at device memory dst (cudart_mem.c). */
cudaError_t rt_memset_elems(void *dst, uint32_t value, unsigned esize, size_t count);

/* Stream capture (cudart_graph.c): whether stream s captures, and the
 * operations that then become nodes of its graph. */
bool rt_capturing(cudaStream_t s);
cudaError_t rt_capture_kernel(cudaStream_t s, const void *func, dim3 grid, dim3 block,
                              void **args, size_t smem, const uint32_t *cluster, bool coop);
cudaError_t rt_capture_copy(cudaStream_t s, void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height, int kind);
cudaError_t rt_capture_set(cudaStream_t s, void *dst, size_t pitch, uint32_t value,
                           unsigned esize, size_t width, size_t height);
cudaError_t rt_capture_host(cudaStream_t s, void (*fn)(void *), void *data);
cudaError_t rt_capture_record(cudaEvent_t ev, cudaStream_t s);
cudaError_t rt_capture_wait(cudaStream_t s, cudaEvent_t ev);
/* Stream s is destroyed: it leaves the capture it joined. */
void rt_capture_stream_gone(struct CUstream_st *s);

/* Launch sampling (cudart_repeat.c).  The shape of a launch of rt.funcs[func]. */
struct rt_shape *rt_shape_of(uint32_t func, const struct rt_shape_key *k);
/* Whether the next launch of s is simulated (false: estimated). */
bool rt_shape_simulate(struct rt_shape *s);
/* A simulated launch of s took cycles for work PTX warp instructions. */
void rt_shape_timed(struct rt_shape *s, uint64_t cycles, uint64_t work);
/* The cycles of a launch of s run functionally (work PTX warp
 * instructions), with their interval *lo .. *hi. */
uint64_t rt_shape_estimate(struct rt_shape *s, uint64_t work, uint64_t *lo, uint64_t *hi);
/* Launches estimated so far; the report's lines; the JSON object. */
uint64_t rt_shapes_estimated(void);
void rt_shapes_report(FILE *fp);
void rt_shapes_json(FILE *fp);

#endif /* SMSIM_CUDART_CUDART_H */
