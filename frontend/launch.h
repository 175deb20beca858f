/*
 * launch.h - launch files: how to run a PTX kernel without a GPU.
 *
 * A launch file is `key = value` lines (# comments), documented in
 * doc/launch-format.md:
 *
 *   ptx    = src/vecadd.ptx            PTX file, relative to the launch file
 *   kernel = vecadd                    .entry name, or the C++ name of a mangled one
 *   grid   = 1024[, Y[, Z]]            blocks
 *   block  = 256[, Y[, Z]]             threads per block
 *   cluster = 2[, Y[, Z]]              blocks per thread-block cluster (default: the
 *                                       kernel's .reqnctapercluster, else 1)
 *   smem   = 0                         dynamic shared memory per block, bytes
 *   regs   = 32 | auto                 registers per thread (auto: ptxas -v for the
 *                                       simulated GPU; default: auto when ptxas is on
 *                                       PATH, else 32)
 *   regs.sm_90 = 32                    registers per thread when the simulated GPU is
 *                                       sm_90 (ptxas -v for that architecture; repeatable
 *                                       for other sm_NN); overrides regs there
 *   repeat = 1                         launch the kernel this many times in a row
 *   stack  = 1024                      bytes of call stack per thread (device functions)
 *   arg    = n u32 1048576             scalar argument: NAME TYPE VALUE
 *   arg    = a buffer f32 1048576 random -1 1 seed 7
 *                                      buffer argument: NAME buffer TYPE COUNT INIT
 *   arg    = tmA tensormap a f16 dims=4096,1024 box=64,128 swizzle=128B
 *                                      a TMA tensor map (CUtensorMap) of buffer a, as
 *                                      cuTensorMapEncodeTiled builds it (exec/ptx_tmap.h)
 *   mem    = a f32 1048576 random -1 1 device memory the kernel gets no pointer to (a
 *                                      tensor map's): NAME TYPE COUNT INIT
 *   var    = c_coef f32 16 random -1 1 the contents of a __constant__ or __device__
 *                                      variable: NAME TYPE COUNT INIT (cudaMemcpyToSymbol)
 *   output = c results/c.bin           after the run, write buffer (or variable) c to a file
 *
 * INIT is zeros | const V | random LO HI [seed S] | seq START [STEP] |
 * chase STRIDE [seed S] | file PATH.  Arguments are listed in the kernel's parameter order.
 */
#ifndef SMSIM_FRONTEND_LAUNCH_H
#define SMSIM_FRONTEND_LAUNCH_H

#include "frontend/exec/ptx_tmap.h"
#include "sim/error.h"
#include "sim/types.h"

/* Default bytes of call stack per thread: CUDA's default cudaLimitStackSize
 * (CUDA Runtime API, cudaDeviceSetLimit: 1 KB). */
#define PTX_STACK_DEFAULT 1024u

/* Element/scalar types a launch file may name. */
enum launch_type { LT_U8, LT_S8, LT_U16, LT_S16, LT_U32, LT_S32, LT_U64, LT_S64, LT_F32, LT_F64,
                   LT_F16, LT_BF16, LT_COUNT };

enum launch_init { LI_ZEROS, LI_CONST, LI_RANDOM, LI_SEQ, LI_FILE, LI_CHASE };

struct launch_arg {
    char name[64];
    bool buffer;                 /* a device buffer (the argument is its address) */
    bool unbound;                /* a `mem` line: a buffer that is no argument of the kernel
                                    (a tensor map's memory): skipped when parameters are
                                    matched */
    uint8_t type;                /* enum launch_type of the scalar or element */
    uint64_t count;              /* buffer elements */
    uint64_t bytes;              /* buffer bytes, or scalar bytes */
    uint8_t *data;               /* buffer contents (host copy = device memory) */
    uint64_t value;              /* scalar bit pattern (little-endian, low bytes used) */
    uint8_t init;                /* enum launch_init */
    double lo, hi;               /* float elements: const value / random range / seq start,
                                  * step; chase stride (lo) */
    uint64_t ilo, ihi;           /* integer elements: const value / random range / seq start,
                                  * step, as two's-complement bit patterns */
    uint64_t seed;               /* random */
    sim_addr_t addr;             /* device address, assigned by the PTX frontend */
    uint32_t line;               /* line in the launch file */
    /* a tensor map (arg = NAME tensormap BUFFER TYPE key=value ...): 128
     * bytes the PTX frontend encodes once the buffer has its address */
    bool tmap;
    int32_t tmap_buffer;         /* the buffer argument it describes (args[]) */
    uint64_t tmap_offset;        /* bytes into the buffer of element (0, ..., 0) */
    struct ptx_tmap tm;         /* every field but gaddr */
};

struct launch_output {
    uint32_t arg;                /* index of the buffer argument (or of the variable) */
    bool var;                    /* a module variable (vars[arg]) */
    char *path;                  /* resolved against the launch file's directory */
    char *given;                 /* as written in the launch file */
    uint32_t line;
};

#define LAUNCH_MAX_REGS_ARCH 16      /* regs.sm_NN lines in one launch file */

struct launch {
    char *path;                  /* the launch file */
    char *ptx_path;              /* resolved */
    char kernel[4096];           /* CUTLASS's mangled names run past 1,000 characters */
    uint32_t grid[3], block[3];
    uint32_t cluster[3];         /* blocks per cluster (cluster = X[, Y[, Z]]; 0: no line) */
    uint32_t smem;               /* dynamic shared memory per block, bytes */
    uint32_t regs;               /* registers per thread (for occupancy) */
    bool regs_auto;              /* `regs = auto`: from ptxas -v for the simulated GPU */
    bool regs_given;             /* the file has a regs line */
    uint32_t regs_cc[LAUNCH_MAX_REGS_ARCH];  /* regs.sm_NN lines: NN, */
    uint32_t regs_arch[LAUNCH_MAX_REGS_ARCH]; /* and their registers per thread */
    uint32_t n_regs_arch;
    uint32_t repeat;             /* launches of the kernel, back to back (default 1) */
    uint32_t stack;              /* bytes of call stack per thread for device-function frames
                                    (default PTX_STACK_DEFAULT, CUDA's) */
    struct launch_arg *args;
    uint32_t n_args;
    struct launch_arg *vars;     /* `var` lines: module variables' initial contents (buffer
                                    set, addr unused; data is the variable's memory) */
    uint32_t n_vars;
    struct launch_output *outputs;
    uint32_t n_outputs;
    uint32_t line_ptx, line_kernel, line_grid, line_block, line_cluster;
};

/* Parse a launch file and build its buffers.  Errors name file:line. */
int launch_parse(const char *path, struct launch **out, struct sim_error *err);
void launch_free(struct launch *l);

/* Largest total of buffer bytes a launch file may declare (0 restores the
 * default, 8 GiB); more is SIM_ERR_NOMEM naming the line.  The fuzz harness
 * lowers it. */
void launch_set_buffer_limit(uint64_t bytes);

/* Write every `output` buffer (each atomically), creating missing parent
 * directories.  outdir, if not NULL, replaces the launch file's directory
 * as the base of relative output paths. */
int launch_write_outputs(const struct launch *l, const char *outdir, struct sim_error *err);

/* Write every buffer argument's and variable's initial contents (what the
 * kernel sees before it runs) to dir/NAME.bin, each atomically, creating dir if
 * missing.  For measuring the same launch on a real GPU
 * (scripts/measure-gpu.py). */
int launch_write_inputs(const struct launch *l, const char *dir, struct sim_error *err);

/* Index of the argument called name, or -1. */
int launch_find_arg(const struct launch *l, const char *name);
/* Index of the `var` line for variable name, or -1. */
int launch_find_var(const struct launch *l, const char *name);

/* Bytes of a launch type; its name. */
unsigned launch_type_bytes(unsigned t);
const char *launch_type_name(unsigned t);
bool launch_type_is_float(unsigned t);

/* Fill a->count elements of a->type at dst per a's initialiser (not
 * `file`). */
void launch_fill(uint8_t *dst, const struct launch_arg *a);

#endif /* SMSIM_FRONTEND_LAUNCH_H */
