/*
 * smsim.h - libsmsim, the simulator as a library: its one public header.
 *
 * smsim simulates CUDA kernels cycle by cycle on a configured GPU without
 * the GPU.  This header is all a program that embeds it sees (the `smsim`
 * command-line tool uses nothing else; doc/library.md is the guide):
 *
 *   smsim_config   a GPU configuration (configs/NAME.cfg plus overrides)
 *   smsim_source   where instructions come from: a PTX launch file (executed
 *                  functionally as it is simulated), a .smt or Accel-Sim
 *                  trace, or a synthetic kernel
 *   smsim_sim      a simulation: run a source on a config, then read each
 *                  kernel's result and every statistic by name
 *
 * and the tools built on them: functional emulation, trace recording and
 * export, the SASS listing, occupancy, the Many-BSP validator.  Types are
 * opaque; results are plain structs the caller owns.  A minimal embedder:
 *
 *     smsim_error err = { 0 };
 *     smsim_config *cfg = NULL;
 *     smsim_source *src = NULL;
 *     if (smsim_config_load(&cfg, "h100", NULL, 0, &err) < 0 ||
 *         smsim_source_open_launch(&src, "k.launch", &err) < 0)
 *         ...err.msg says what and where...
 *     smsim_sim *s = smsim_new(cfg);
 *     if (smsim_run(s, src, &err) == SMSIM_OK)
 *         printf("%llu cycles\n", (unsigned long long)smsim_stat(s, SMSIM_TOTAL, "cycles"));
 *     smsim_free(s); smsim_source_free(src); smsim_config_free(cfg);
 *
 * Errors: a function that can fail returns SMSIM_OK (0) or a negative
 * enum smsim_status and fills the caller's smsim_error with a message
 * naming the file and line (or byte offset) and what was expected.  A
 * broken model invariant is not returned: the process exits with status 3
 * naming the cycle and source location.  Allocation failure is fatal.
 * Not thread-safe across one smsim_sim; separate sims are independent
 * (smsim_set_threads parallelises one sim internally, byte-identically).
 */
#ifndef SMSIM_H
#define SMSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SMSIM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SMSIM_PRINTF(f, a)
#endif

/* ---- errors ------------------------------------------------------------------ */

enum smsim_status {
    SMSIM_OK = 0,
    SMSIM_ERR_IO = -1,           /* cannot open, read or write a file */
    SMSIM_ERR_FORMAT = -2,       /* malformed input: trace, PTX, launch file */
    SMSIM_ERR_CONFIG = -3,       /* unknown config key, bad value, out of range */
    SMSIM_ERR_NOMEM = -4,        /* an input asked for an implausible size */
    SMSIM_ERR_UNSUPPORTED = -5,  /* valid input smsim does not support */
    SMSIM_ERR_USAGE = -6,        /* a bad argument to a function or command */
    SMSIM_ERR_INTERNAL = -7      /* an invariant failed (a bug in smsim) */
};

#define SMSIM_ERRMSG_MAX 1024

/* An error report: plain data the caller owns (zero it before first use). */
typedef struct smsim_error {
    int code;                    /* enum smsim_status; SMSIM_OK when clear */
    char msg[SMSIM_ERRMSG_MAX];  /* "file:line: what was wrong, what was expected" */
} smsim_error;

/* "I/O error", "format error", ... for a status. */
const char *smsim_strerror(int code);
/* The process exit status for a status: 0, 1 usage, 2 bad input, 3 internal. */
int smsim_exit_status(int code);
/* Fill *e (if not NULL) and return code; printf-style message. */
int smsim_error_set(smsim_error *e, int code, const char *fmt, ...) SMSIM_PRINTF(3, 4);

/* Print "smsim: KIND: message" (kind NULL: "smsim: message") on stderr on
 * one line, control characters and bytes that are not UTF-8 escaped. */
void smsim_report(const char *kind, const char *msg);
void smsim_reportf(const char *kind, const char *fmt, ...) SMSIM_PRINTF(2, 3);

/* ---- output files -------------------------------------------------------------- */

/* Write a whole file atomically (a temporary beside it, then renamed; "-"
 * is stdout) from a callback that prints into fp. */
int smsim_write_file(const char *path, void (*print)(FILE *fp, void *arg), void *arg,
                     smsim_error *err);

/* The same, streamed: open, write into smsim_outfile_stream(), then commit
 * (renames into place) or abort (removes the temporary).  Both free it;
 * abort(NULL) does nothing. */
typedef struct smsim_outfile smsim_outfile;
int smsim_outfile_open(smsim_outfile **out, const char *path, smsim_error *err);
FILE *smsim_outfile_stream(smsim_outfile *of);
int smsim_outfile_commit(smsim_outfile *of, smsim_error *err);
void smsim_outfile_abort(smsim_outfile *of);

/* Remove uncommitted temporaries when SIGINT, SIGTERM, SIGHUP or SIGQUIT
 * ends the process (call once, at start). */
void smsim_cleanup_on_signals(void);

/* JSON values as smsim writes them: a quoted, escaped string; a number
 * (shortest round-trip form, null for NaN and infinities). */
void smsim_json_string(FILE *out, const char *s);
void smsim_json_double(FILE *out, double v);

/* Monotonic wall-clock seconds. */
double smsim_wall_seconds(void);

/* "key = value" files (# comments, blank lines): 1 and *key, *val (valid
 * until the next call) when a pair was read, 0 at the end, < 0 on error.
 * what names the kind of file in messages; code is the status of a
 * syntax error (SMSIM_ERR_FORMAT or SMSIM_ERR_CONFIG). */
typedef struct smsim_kvfile smsim_kvfile;
int smsim_kvfile_open(smsim_kvfile **out, const char *path, const char *what, int code,
                      smsim_error *err);
int smsim_kvfile_next(smsim_kvfile *kf, char **key, char **val, smsim_error *err);
/* "path:line" of the pair last read, for messages. */
const char *smsim_kvfile_where(const smsim_kvfile *kf);
void smsim_kvfile_close(smsim_kvfile *kf);

/* ---- GPU configurations ---------------------------------------------------------- */

typedef struct smsim_config smsim_config;

/* Load config NAME (a file in the config directory without .cfg; a path
 * with '/' or ending in .cfg as given) with n_sets "key=value" overrides,
 * validated.  Remembers where each field's value came from. */
int smsim_config_load(smsim_config **out, const char *name, const char *const *sets,
                      size_t n_sets, smsim_error *err);
void smsim_config_free(smsim_config *c);

/* The config directory: $SMSIM_CONFIG_DIR, else installed or source-tree. */
int smsim_config_dir(char *buf, size_t n, smsim_error *err);
/* The file config NAME resolves to. */
int smsim_config_resolve(const char *name, char *buf, size_t n, smsim_error *err);

/* What a config describes, in brief (strings owned by the config). */
struct smsim_gpu {
    const char *name;            /* gpu.name, "NVIDIA H100 SXM5 80GB" */
    const char *arch;            /* "hopper" */
    unsigned cc;                 /* compute capability x 10 (90) */
    unsigned sm_count;
    unsigned subpartitions;      /* warp schedulers per SM */
    unsigned max_warps;          /* per SM */
    unsigned smem_reserved;      /* bytes of shared memory reserved per block */
    double clock_mhz;
};
void smsim_config_gpu(const smsim_config *c, struct smsim_gpu *out);

/* The typed field table (sim/config_fields.def): count, names, values. */
size_t smsim_config_field_count(void);
const char *smsim_config_field_name(size_t i);
/* Index of a field, or -1; and the closest known name, for a message. */
long smsim_config_field_index(const char *name);
const char *smsim_config_field_suggest(const char *name);
/* Field i's value as text (at most SMSIM_CONFIG_VALUE_MAX bytes). */
#define SMSIM_CONFIG_VALUE_MAX 256
void smsim_config_value(const smsim_config *c, size_t i, char *buf, size_t n);

/* Every field with its unit and where its value came from. */
void smsim_config_print(FILE *out, const smsim_config *c);
/* The Markdown reference of every field (doc/config-reference.md). */
void smsim_config_print_reference(FILE *out);

/* ---- instruction sources ----------------------------------------------------------- */

typedef struct smsim_source smsim_source;

/* An opcode an Accel-Sim trace's ISA table does not know: an error
 * (default), or simulated as an integer ALU instruction and counted. */
enum smsim_unknown_opcode { SMSIM_UNKNOWN_ERROR, SMSIM_UNKNOWN_ALU };

/* A PTX launch file (doc/launch-format.md). */
int smsim_source_open_launch(smsim_source **out, const char *path, smsim_error *err);
/* A .smt trace, or an Accel-Sim trace (kernelslist.g, kernel-N.traceg[.xz],
 * or a directory holding a kernelslist.g). */
int smsim_source_open_trace(smsim_source **out, const char *path, int unknown_opcode,
                            smsim_error *err);
/* A synthetic kernel (smsim_print_synth_help describes SPEC). */
int smsim_source_open_synth(smsim_source **out, const char *spec, smsim_error *err);
void smsim_print_synth_help(FILE *out);
void smsim_source_free(smsim_source *src);

/* Lower PTX for this config's GPU (sm_90: as ptxas would); smsim_run does
 * it itself, recording and listing tools need it said. */
void smsim_source_set_target(smsim_source *src, const smsim_config *c);
/* True for a PTX launch file. */
bool smsim_source_is_launch(const smsim_source *src);
/* Write the launch file's outputs (relative paths under outdir if not
 * NULL, else beside the launch file); nothing for other sources. */
int smsim_source_write_outputs(const smsim_source *src, const char *outdir, smsim_error *err);

/* ---- simulation --------------------------------------------------------------------- */

typedef struct smsim_sim smsim_sim;

smsim_sim *smsim_new(const smsim_config *c);
void smsim_free(smsim_sim *s);

/* Tick the SMs of each cycle on n threads (results byte-identical for
 * every n; PTX launches and windows tick on one). */
void smsim_set_threads(smsim_sim *s, unsigned n);

/* What watches a run (any callback may be NULL). */
struct smsim_watch {
    void (*kernel_begin)(void *ctx, const smsim_sim *s, size_t index, const char *name);
    void (*block_retired)(void *ctx, const smsim_sim *s);
    void *ctx;
};
void smsim_set_watch(smsim_sim *s, const struct smsim_watch *w);

/* Per-window statistics over windows of k warp instructions (per SM and
 * GPU-wide; doc/stats-reference.md), written to out as CSV, or JSON Lines
 * when jsonl; the header is written now. */
void smsim_set_windows(smsim_sim *s, uint64_t k, FILE *out, bool jsonl);

/* Simulate every kernel of src.  src is consumed (run it once). */
int smsim_run(smsim_sim *s, smsim_source *src, smsim_error *err);

/* Progress while running (from a watch callback) and after. */
uint64_t smsim_now(const smsim_sim *s);                /* simulated cycle */
uint64_t smsim_blocks_total(const smsim_sim *s);       /* of the current kernel */
uint64_t smsim_blocks_retired(const smsim_sim *s);
uint64_t smsim_warp_insts(const smsim_sim *s);         /* issued so far */

/* One kernel's result (strings owned by the sim). */
struct smsim_kernel {
    const char *name;
    uint64_t start;              /* cycle it was launched */
    uint64_t cycles;             /* launch to completion (sampled: the estimate) */
    uint64_t blocks;             /* simulated in detail */
    unsigned regs_per_thread;    /* simulated */
    unsigned regs_requested;     /* asked for; more than simulated when clamped */
    unsigned smem_per_block;     /* static + dynamic bytes */
    bool truncated;              /* stopped by sim.max_cycles before it finished */
    /* sim.sample (smsim run --sample): blocks skipped and the interval the
     * estimate may carry (cycles_lo = cycles_hi = cycles when not sampled) */
    bool sampled;
    uint64_t cycles_lo, cycles_hi, cycles_simulated, blocks_skipped;
};
size_t smsim_kernel_count(const smsim_sim *s);
int smsim_kernel(const smsim_sim *s, size_t k, struct smsim_kernel *out);

/* A statistic by name (doc/stats-reference.md; "sm.inst_issued" sums the
 * SMs) for kernel k, or SMSIM_TOTAL for the whole run; 0 if unknown.
 * smsim_stat_known tells. */
#define SMSIM_TOTAL ((size_t)-1)
uint64_t smsim_stat(const smsim_sim *s, size_t k, const char *name);
bool smsim_stat_known(const smsim_sim *s, const char *name);

/* Printers: the summary `smsim run` prints (with the CPI stack), every
 * statistic as text (per SM too) or JSON.  config_name labels them. */
void smsim_print_summary(FILE *out, const smsim_sim *s, const char *config_name, bool per_sm);
void smsim_print_stats(FILE *out, const smsim_sim *s, const char *config_name);
void smsim_print_json(FILE *out, const smsim_sim *s, const char *config_name);
/* The Markdown reference of every statistic (doc/stats-reference.md). */
int smsim_print_stats_reference(FILE *out, smsim_error *err);

/* ---- tools -------------------------------------------------------------------------- */

struct smsim_totals {
    unsigned kernels;
    uint64_t blocks;
    uint64_t warp_insts;
    /* smsim_program_launch, timed or not: the PTX warp instructions executed
     * with a lane active (those ptxas folds away included, which warp_insts,
     * the instructions issued, leaves out; the same count whether the sm_90
     * lowering runs or not), and of them the ones that retried an mbarrier
     * wait (from a wait that found its phase incomplete until the warp came
     * back to it) */
    uint64_t active_insts, wait_retries;
    uint64_t replayed;           /* launches replayed (smsim_launch_desc.replay) */
};

/* Execute src functionally (PTX as written, warps in order; no timing). */
int smsim_emulate(smsim_source *src, struct smsim_totals *tot, smsim_error *err);
/* Write every buffer argument's initial bytes of a launch file to DIR/NAME.bin. */
int smsim_launch_write_inputs(const char *launch, const char *dir, smsim_error *err);

/* Record every kernel of src into a .smt trace (atomically); chunk = raw
 * chunk bytes, 0 default; producer is stored in the header. */
int smsim_trace_record(smsim_source *src, const char *path, const char *producer,
                       uint32_t chunk, struct smsim_totals *tot, smsim_error *err);

struct smsim_export_totals {
    unsigned kernels;
    uint64_t warp_insts;
    uint64_t approximated;       /* IEEE div/rcp/sqrt written as one MUFU */
    uint64_t regs_folded;        /* register ids above 254 folded */
    uint64_t regs_dropped;       /* beyond one destination / four sources */
    uint64_t async_approx;       /* async copies and waits approximated */
};
/* Write src as an Accel-Sim tracer-format-5 trace into directory dir;
 * binary_version 0 = the source's own, else 70. */
int smsim_trace_export(smsim_source *src, const char *dir, unsigned binary_version,
                       struct smsim_export_totals *tot, smsim_error *err);

struct smsim_trace_totals {
    uint64_t bytes, kernels, blocks, warps, chunks, warp_insts, thread_insts, raw_bytes;
};
/* Check every header, chunk and record of a .smt file. */
int smsim_trace_verify(const char *path, struct smsim_trace_totals *tot, smsim_error *err);
/* Print a .smt file's headers. */
int smsim_trace_info(const char *path, FILE *out, smsim_error *err);
/* Print its records, one per line; negative filters mean all, limit 0 none. */
int smsim_trace_dump(const char *path, FILE *out, int64_t kernel, int64_t block, int64_t warp,
                     uint64_t limit, smsim_error *err);

/* The launch file's kernel as the model issues it on c's GPU (`smsim sass`). */
int smsim_print_sass(FILE *out, const char *launch, const smsim_config *c, smsim_error *err);

/* Blocks per SM, occupancy and the limiting resource of a kernel shape on
 * c's GPU, as text or one JSON object (`smsim occupancy`); config_name
 * labels it. */
int smsim_print_occupancy(FILE *out, const smsim_config *c, const char *config_name,
                          uint32_t threads_per_block, uint32_t regs_per_thread,
                          uint32_t smem_bytes, bool json, smsim_error *err);

/* Blocks of that shape resident per SM on c's GPU (0: it does not fit). */
int smsim_occupancy_blocks(const smsim_config *c, uint32_t threads_per_block,
                           uint32_t regs_per_thread, uint32_t smem_bytes, unsigned *blocks_per_sm,
                           smsim_error *err);

/* The Many-BSP closed form on a case file (validation/cases/\*.case). */
int smsim_validate_case(FILE *out, const char *path, bool json, smsim_error *err);

/* The cross-check of one launch: simulated, Many-BSP-extracted and
 * measured cycles (`smsim validate --launch`).  *within: the verdict. */
struct smsim_validate_opts {
    const char *launch;
    const char *config;          /* name or path */
    const char *const *sets;     /* config overrides */
    size_t n_sets;
    double measured;             /* cycles; <= 0: look them up */
    double threshold;            /* percent */
    bool tables;                 /* print the extracted tables */
    bool json;
};
int smsim_validate_launch(FILE *out, const struct smsim_validate_opts *o, bool *within,
                          smsim_error *err);

/* ---- whole CUDA programs ------------------------------------------------------------ */

/* The device side of a CUDA program that runs whole (`smsim exec` and the
 * replacement CUDA runtime, cudart/; doc/exec.md): device memory that
 * persists from launch to launch, the PTX modules the program registered
 * and launches of their kernels, simulated on a sim (timed, each kernel
 * one smsim_kernel of it) or executed functionally.  Device addresses
 * are 64-bit numbers the host cannot dereference, except host memory
 * mapped into the device's view (managed and pinned memory), whose device
 * address is its host address. */
typedef struct smsim_program smsim_program;

smsim_program *smsim_program_new(void);
void smsim_program_free(smsim_program *p);

/* Parse PTX text (len bytes; name labels it in messages; ptx_path, if not
 * NULL, a file holding the same text for ptxas -v) as a module and
 * allocate its __device__ and __constant__ variables.  *module: its index. */
int smsim_program_load_ptx(smsim_program *p, const char *name, const char *text, size_t len,
                           const char *ptx_path, unsigned *module, smsim_error *err);

/* Device memory: allocate (zeroed; what names it in messages), map host
 * memory, free (*host: a mapped region's host memory, else NULL).  Mapped
 * host memory with SMSIM_MAP_ZERO_COPY (pinned or registered memory) is
 * reached over the host link in the timing model (host.link_gbps); without
 * it (managed memory, which migrates) it is timed as device memory. */
#define SMSIM_MAP_ZERO_COPY 1u
int smsim_program_malloc(smsim_program *p, uint64_t bytes, const char *what, uint64_t *addr,
                         smsim_error *err);
int smsim_program_map_host(smsim_program *p, void *host, uint64_t bytes, const char *what,
                           unsigned flags, smsim_error *err);
int smsim_program_release(smsim_program *p, uint64_t addr, void **host, smsim_error *err);
/* The device heap device-side malloc uses (cudaLimitMallocHeapSize; 8 MB
 * unless set): settable until a kernel that calls malloc is loaded. */
int smsim_program_set_heap(smsim_program *p, uint64_t bytes, smsim_error *err);
uint64_t smsim_program_heap(const smsim_program *p);
/* The host memory behind device bytes [addr, addr + bytes) of one live
 * allocation, or NULL and err says why. */
void *smsim_program_host(smsim_program *p, uint64_t addr, uint64_t bytes, smsim_error *err);
/* Is addr device memory of the program?  Its allocation's start and size,
 * and whether it is mapped host memory (any pointer may be NULL). */
bool smsim_program_lookup(smsim_program *p, uint64_t addr, uint64_t *base, uint64_t *size,
                          bool *mapped);
/* A module variable's device address and size. */
int smsim_program_symbol(smsim_program *p, unsigned module, const char *name, uint64_t *addr,
                         uint64_t *size, smsim_error *err);

/* What a module's kernel declares. */
struct smsim_kernel_decl {
    unsigned n_params;
    uint32_t param_bytes;        /* of the parameter space */
    uint32_t smem_static;        /* bytes of .shared variables */
    uint32_t cluster[3];         /* .reqnctapercluster, 0s if none */
};
int smsim_program_kernel_decl(smsim_program *p, unsigned module, const char *kernel,
                              struct smsim_kernel_decl *out, smsim_error *err);
/* Registers per thread of a module's kernel on sm_<cc> as ptxas -v
 * reports them (cached); 32 and *known false without a ptxas. */
int smsim_program_kernel_regs(smsim_program *p, unsigned module, const char *kernel, unsigned cc,
                              uint32_t *regs, bool *known, smsim_error *err);
/* Parameter i's offset and size in the parameter space. */
int smsim_program_kernel_param(smsim_program *p, unsigned module, const char *kernel, unsigned i,
                               uint32_t *offset, uint32_t *size, smsim_error *err);

/* A launch: kernel of module with its parameter space laid out as the
 * kernel's .param list says. */
struct smsim_launch_desc {
    const char *what;            /* names it in messages: "vadd (launch 3)" */
    unsigned module;
    const char *kernel;
    uint32_t grid[3], block[3];
    uint32_t cluster[3];         /* 0s: the kernel's own, else 1 */
    uint32_t smem;               /* dynamic shared memory per block */
    uint32_t stack;              /* bytes of call stack per thread (0: CUDA's default) */
    const void *params;
    bool cooperative;            /* cudaLaunchCooperativeKernel: every block resident at once
                                    (the launch fails if they do not fit), and a grid-sync
                                    workspace for cooperative groups' grid_group::sync() */
    bool replay;                 /* functional (s NULL): when an earlier functional launch of
                                    the same kernel, shape and parameters found the program's
                                    memory as this one finds it, make its writes again
                                    instead of executing (the same bytes; its work is counted
                                    again: frontend/exec/ptx_replay.h) */
};
/* Run the launch to completion: on s (timed: it becomes s's next kernel),
 * or functionally when s is NULL (tot, if not NULL, adds what ran; its
 * wait_retries either way).  A sim that has run a program's launches
 * reads that program's counters from then on: it serves that one program,
 * and is freed before it. */
int smsim_program_launch(smsim_program *p, smsim_sim *s, const struct smsim_launch_desc *d,
                         struct smsim_totals *tot, smsim_error *err);

/* A TMA tensor map: the arguments of cuTensorMapEncodeTiled (im2col
 * false) or cuTensorMapEncodeIm2col (im2col true), with the driver's enum
 * values (CUtensorMapDataType, ...Interleave, ...Swizzle, ...L2promotion,
 * ...FloatOOBfill).  strides[i] is the byte stride of dimension i + 1. */
struct smsim_tensor_map {
    unsigned type, rank;
    uint64_t address;            /* the device address of element 0 */
    uint64_t dims[5], strides[4];
    uint32_t box[5];             /* tiled */
    uint32_t elem_strides[5];
    unsigned interleave, swizzle, l2promotion, oob_fill;
    bool im2col;
    int lower[3], upper[3];      /* im2col: the pixel box's corners, W first */
    unsigned channels, pixels;   /* im2col: channels per pixel, pixels per column */
};
/* Encode m into the 128 bytes a kernel's cp.async.bulk.tensor reads
 * (smsim's own encoding: frontend/exec/ptx_tmap.h), after checking the
 * driver's rules; an error says which rule m breaks. */
int smsim_tensor_map_encode(const struct smsim_tensor_map *m, void *out, smsim_error *err);

/* A texture or surface object (CUDA's cudaResourceDesc and cudaTextureDesc
 * in one): the resource at address, row-major, rows pitch bytes apart and
 * 2D slices (depth steps, layers, cube faces) slice bytes apart; its
 * format (channels of bits each, of cudaChannelFormatKind kind) and the
 * sampler state in CUDA's enum values (cudaTextureAddressMode,
 * cudaTextureFilterMode, cudaReadModeNormalizedFloat, cudaResourceType). */
#define SMSIM_TEXTURE_BYTES 128
struct smsim_texture {
    bool surface;
    uint64_t address, pitch, slice;
    uint32_t width, height, depth;   /* 1 where a dimension is absent */
    uint32_t layers;             /* layered textures' layers (cube maps: 6 per cube), else 1 */
    unsigned channels, bits, kind;
    unsigned dims;               /* 1, 2 or 3 */
    bool layered, cube;
    unsigned filter, address_mode[3], resource;
    bool normalized_read, normalized_coords;
    float border[4];
};
/* Encode t into the SMSIM_TEXTURE_BYTES bytes of device memory whose
 * address is the object's handle (tex and suld read them: smsim's own
 * encoding, frontend/exec/ptx_tex.h), after checking it; an error says
 * what is wrong (SMSIM_ERR_UNSUPPORTED for what smsim does not simulate). */
int smsim_texture_encode(const struct smsim_texture *t, void *out, smsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SMSIM_H */
