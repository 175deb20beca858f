/*
 * cudart.c - the replacement CUDA runtime's core (see cudart.h): set-up
 * from SMSIM_EXEC_*, fat binary and kernel registration, launches, the
 * errors, and the report when the program ends.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE              /* dl_iterate_phdr */
#endif
#include "cudart/cudart.h"

#include <link.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudart/fatbin.h"
#include "cudart/ptxlink.h"

#define API __attribute__((visibility("default")))

struct rt rt;

static pthread_mutex_t rt_mutex;
static pthread_once_t rt_mutex_once = PTHREAD_ONCE_INIT;

static void
rt_mutex_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rt_mutex, &a);
    pthread_mutexattr_destroy(&a);
}

double
rt_config_number(const char *name)
{
    long i = smsim_config_field_index(name);
    if (i < 0)
        return 0;
    char buf[SMSIM_CONFIG_VALUE_MAX];
    smsim_config_value(rt.cfg, (size_t)i, buf, sizeof buf);
    return strcmp(buf, "true") == 0 ? 1 : strtod(buf, NULL);   /* a boolean: 1 or 0 */
}

void *
rt_grow(void *p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    uint32_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * elem);
    if (q == NULL)
        abort();
    *cap = c;
    return q;
}

int
rt_lock(void)
{
    pthread_once(&rt_mutex_once, rt_mutex_init);
    pthread_mutex_lock(&rt_mutex);
    return 1;
}

void
rt_unlock(int *guard)
{
    (void)guard;
    pthread_mutex_unlock(&rt_mutex);
}

cudaError_t
rt_fail(cudaError_t e, const char *fmt, ...)
{
    if (fmt != NULL) {
        char msg[SMSIM_ERRMSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        smsim_report("exec", msg);
    }
    if (e != cudaSuccess)
        rt.last = e;
    return e;
}

/* Config overrides: SMSIM_EXEC_SET holds "key=value" lines. */
static int
load_config(smsim_error *err)
{
    const char *name = getenv("SMSIM_EXEC_CONFIG");
    snprintf(rt.cfg_name, sizeof rt.cfg_name, "%s", name != NULL && *name ? name : "h100");
    const char *sets_env = getenv("SMSIM_EXEC_SET");
    char *copy = strdup(sets_env != NULL ? sets_env : "");
    const char *sets[256];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(copy, "\n", &save); t != NULL && n < 256;
         t = strtok_r(NULL, "\n", &save))
        sets[n++] = t;
    int rc = smsim_config_load(&rt.cfg, rt.cfg_name, sets, n, err);
    free(copy);
    const char *label = getenv("SMSIM_EXEC_CONFIG_NAME");   /* as the user named it */
    if (label != NULL && *label)
        snprintf(rt.cfg_name, sizeof rt.cfg_name, "%s", label);
    return rc;
}

static void at_exit(void);

/* NVIDIA's closed libraries: their kernels are SASS only (no PTX smsim
 * could run) and they reach the GPU through the driver rather than this
 * runtime, so on smsim their calls fail.  A program linked with one is told
 * so by name when it starts, before the library's own error. */
static const struct { const char *prefix, *what; } closed_libs[] = {
    { "libcublasLt.so", "cuBLASLt" }, { "libcublas.so", "cuBLAS" }, { "libcudnn", "cuDNN" },
    { "libcufft.so", "cuFFT" }, { "libcufftw.so", "cuFFTW" },
    { "libcurand.so", "cuRAND (the host API; curand_kernel.h's device API is PTX and runs)" },
    { "libcusparse.so", "cuSPARSE" }, { "libcusolver", "cuSOLVER" }, { "libnpp", "NPP" },
    { "libnvjpeg.so", "nvJPEG" }, { "libcutensor.so", "cuTENSOR" }, { "libnccl.so", "NCCL" },
    { "libnvrtc.so", "NVRTC (run-time compilation)" }, { "libcuda.so", "the CUDA driver API" },
};

static int
closed_lib_seen(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base != NULL ? base + 1 : info->dlpi_name;
    for (size_t i = 0; i < sizeof closed_libs / sizeof closed_libs[0]; i++)
        if (strncmp(base, closed_libs[i].prefix, strlen(closed_libs[i].prefix)) == 0)
            fprintf(stderr, "smsim: exec: unsupported: the program is linked with %s, NVIDIA's "
                    "%s: a closed library (its kernels carry no PTX, it calls the driver "
                    "directly), so its calls fail under smsim\n", base, closed_libs[i].what);
    return 0;
}

__attribute__((constructor)) static void
rt_name_closed_libs(void)
{
    dl_iterate_phdr(closed_lib_seen, NULL);
}

/* Set once the report is out and everything released (at_exit): what
 * the program's static destructors call after that (a global buffer's
 * cudaFree) gets cudaErrorCudartUnloading, as from NVIDIA's runtime at
 * shut-down, instead of setting the device up again. */
static bool rt_unloaded;

cudaError_t
rt_ready(void)
{
    if (rt_unloaded)
        return cudaErrorCudartUnloading;
    if (rt.ready)
        return rt.sticky != cudaSuccess ? rt.sticky : rt.init_err;
    rt.ready = true;
    smsim_error err = { 0 };
    if (load_config(&err) < 0) {
        rt.init_err = cudaErrorInitializationError;
        return rt_fail(rt.init_err, "%s", err.msg);
    }
    smsim_config_gpu(rt.cfg, &rt.gpu);
    rt.prog = smsim_program_new();
    const char *nt = getenv("SMSIM_EXEC_NO_TIMING");
    if (nt == NULL || strcmp(nt, "1") != 0) {
        rt.sim = smsim_new(rt.cfg);
        const char *j = getenv("SMSIM_EXEC_THREADS");
        if (j != NULL && *j)
            smsim_set_threads(rt.sim, (unsigned)strtoul(j, NULL, 10));
        const char *wk = getenv("SMSIM_EXEC_WINDOWS"), *wo = getenv("SMSIM_EXEC_WINDOWS_OUT");
        uint64_t k = wk != NULL ? strtoull(wk, NULL, 10) : 0;
        if (k > 0 && wo != NULL && *wo) {
            if (smsim_outfile_open(&rt.wout, wo, &err) < 0) {
                rt.init_err = cudaErrorInitializationError;
                return rt_fail(rt.init_err, "%s", err.msg);
            }
            size_t l = strlen(wo);
            smsim_set_windows(rt.sim, k, smsim_outfile_stream(rt.wout),
                              l > 6 && strcmp(wo + l - 6, ".jsonl") == 0);
        }
    }
    rt.host_gbps = rt_config_number("host.link_gbps");
    rt.host_latency_ns = rt_config_number("host.link_latency_us") * 1000.0;
    if (rt.sim != NULL)
        rt.sample_launches = (uint32_t)rt_config_number("sim.sample_launches");
    rt.sample_tol = rt_config_number("sim.sample_tolerance");
    rt.replay = rt_config_number("sim.replay_launches") != 0;
    atexit(at_exit);
    return cudaSuccess;
}

/* ---- registration --------------------------------------------------------------- */

API void **
__cudaRegisterFatBinary(void *fatCubin)
{
    RT_GUARD;
    rt.bins = realloc(rt.bins, (rt.n_bins + 1) * sizeof *rt.bins);
    if (rt.bins == NULL)
        abort();
    rt.bins[rt.n_bins] = (struct rt_bin){ fatCubin, -1, NULL };
    /* the handle: 1 + the index, as a pointer nothing dereferences */
    return (void **)(uintptr_t)(++rt.n_bins);
}

API void
__cudaRegisterFatBinaryEnd(void **handle)
{
    RT_GUARD;
    (void)handle;
}

API void
__cudaUnregisterFatBinary(void **handle)
{
    RT_GUARD;
    (void)handle;
}

static uint32_t
bin_of(void **handle)
{
    return (uint32_t)((uintptr_t)handle - 1);
}

API void
__cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                       int thread_limit, void *tid, void *bid, void *bDim, void *gDim, int *wSize)
{
    RT_GUARD;
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim,
        (void)wSize;
    rt.funcs = realloc(rt.funcs, (rt.n_funcs + 1) * sizeof *rt.funcs);
    if (rt.funcs == NULL)
        abort();
    rt.funcs[rt.n_funcs++] = (struct rt_func){ .host = hostFun, .bin = bin_of(handle),
                                               .name = strdup(deviceName) };
}

API void
__cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
                  int ext, size_t size, int constant, int global)
{
    RT_GUARD;
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    rt.vars = realloc(rt.vars, (rt.n_vars + 1) * sizeof *rt.vars);
    if (rt.vars == NULL)
        abort();
    rt.vars[rt.n_vars++] = (struct rt_var){ hostVar, bin_of(handle), strdup(deviceName), size,
                                            NULL };
}

API void
__cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                         const char *deviceName, int ext, size_t size, int constant, int global)
{
    RT_GUARD;
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    rt.vars = realloc(rt.vars, (rt.n_vars + 1) * sizeof *rt.vars);
    if (rt.vars == NULL)
        abort();
    rt.vars[rt.n_vars++] = (struct rt_var){ hostVarPtrAddress, bin_of(handle),
                                            strdup(deviceName), size, hostVarPtrAddress };
}

/* Load the module of a fat binary with __managed__ variables: host code
 * calls it before it touches one (nvcc's __nv_init_managed_rt). */
API char
__cudaInitModule(void **handle)
{
    RT_GUARD;
    if (rt_module(bin_of(handle)) >= 0)
        return 1;
    /* the host is about to dereference a __managed__ variable's pointer */
    smsim_report("error", "exec: the module holding the program's __managed__ variables does "
                 "not load (above): stopping before the program reads through a null pointer");
    exit(2);
}

/* The device link of nvcc -rdc=true: the registered wrapper (version 2,
 * fatbinary_section.h) lists the units' prelinked fat binaries, a NULL-
 * terminated array; their PTX is linked into one module (ptxlink.h). */
static int
linked_ptx(const struct cudart_fatbin_wrapper *w, char **text, size_t *len, char *why,
           size_t why_len)
{
    void *const *list = w->filename_or_fatbins;
    unsigned n = 0;
    while (list[n] != NULL && n < 4096)
        n++;
    char **texts = calloc(n ? n : 1, sizeof *texts);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    if (texts == NULL || lens == NULL)
        abort();
    /* a unit without PTX for this GPU is left out (nvcc links the device
     * runtime, cudadevrt, into every -rdc program: its PTX is for newer
     * GPUs); a symbol only it defines stays unresolved, and the PTX's
     * loader names it */
    int rc = 0;
    unsigned used = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned arch;
        char w2[400];
        if (fatbin_ptx(list[i], 0, rt.gpu.cc, &texts[used], &lens[used], &arch, w2,
                       sizeof w2) == 0)
            used++;
        else
            snprintf(why, why_len, "unit %u of %u: %s", i, n, w2);
    }
    if (used == 0)
        rc = -1;                 /* why: the last unit's reason */
    if (rc == 0 && (*text = ptxlink(texts, lens, used, len, why, why_len)) == NULL)
        rc = -1;
    for (unsigned i = 0; i < used; i++)
        free(texts[i]);
    free(texts);
    free(lens);
    return rc;
}

int
rt_module(uint32_t bin)
{
    if (bin >= rt.n_bins)
        return -1;
    struct rt_bin *b = &rt.bins[bin];
    if (b->module != -1)
        return b->module >= 0 ? b->module : -1;
    b->module = -2;
    if (rt_ready() != cudaSuccess)
        return -1;
    if (b->wrap == NULL || (unsigned)b->wrap->magic != CUDART_FATBINC_MAGIC) {
        rt_fail(cudaErrorInvalidKernelImage, "fat binary %u: no fat binary wrapper (magic %#x)",
                bin, b->wrap ? (unsigned)b->wrap->magic : 0u);
        return -1;
    }
    char *text = NULL, why[512];
    size_t len = 0;
    unsigned arch = 0;
    if (b->wrap->version == 2 && b->wrap->filename_or_fatbins != NULL) {
        /* nvcc -rdc=true: the units' relocatable PTX, linked (ptxlink.h) */
        if (linked_ptx(b->wrap, &text, &len, why, sizeof why) < 0) {
            rt_fail(cudaErrorNoKernelImageForDevice, "fat binary %u (-rdc=true): %s", bin, why);
            return -1;
        }
    } else if (fatbin_ptx(b->wrap->data, 0, rt.gpu.cc, &text, &len, &arch, why, sizeof why) < 0) {
        rt_fail(cudaErrorNoKernelImageForDevice, "fat binary %u: %s", bin, why);
        return -1;
    }
    /* the PTX as a file: for ptxas -v, and for the messages that name its lines */
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/smsim-exec-%ld-%u.ptx", tmp && *tmp ? tmp : "/tmp",
             (long)getpid(), bin);
    FILE *f = fopen(path, "w");
    bool written = f != NULL && fwrite(text, 1, len, f) == len;
    if (f != NULL && fclose(f) != 0)
        written = false;
    if (written)
        b->ptx_path = strdup(path);
    else
        remove(path);
    char name[512];
    snprintf(name, sizeof name, "%s", written ? path : "fatbin.ptx");
    smsim_error err = { 0 };
    unsigned mod = 0;
    int rc = smsim_program_load_ptx(rt.prog, name, text, len, b->ptx_path, &mod, &err);
    free(text);
    if (rc < 0) {
        rt_fail(rc == SMSIM_ERR_UNSUPPORTED ? cudaErrorNotSupported : cudaErrorInvalidKernelImage,
                "%s", err.msg);
        return -1;
    }
    b->module = (int)mod;
    /* __managed__ variables: the host's pointers to them */
    for (uint32_t i = 0; i < rt.n_vars; i++) {
        uint64_t addr, size;
        if (rt.vars[i].bin != bin || rt.vars[i].managed == NULL)
            continue;
        if (smsim_program_symbol(rt.prog, mod, rt.vars[i].name, &addr, &size, &err) < 0) {
            rt_fail(cudaErrorInvalidSymbol, "%s", err.msg);
            continue;
        }
        *rt.vars[i].managed = (void *)(uintptr_t)addr;
    }
    return b->module;
}

cudaError_t
rt_symbol(const void *sym, uint64_t *addr, uint64_t *size)
{
    RT_REQUIRE_READY();
    for (uint32_t i = 0; i < rt.n_vars; i++) {
        if (rt.vars[i].host != sym)
            continue;
        int mod = rt_module(rt.vars[i].bin);
        if (mod < 0)
            return rt_fail(cudaErrorInvalidSymbol, NULL);
        smsim_error err = { 0 };
        if (smsim_program_symbol(rt.prog, (unsigned)mod, rt.vars[i].name, addr, size, &err) < 0)
            return rt_fail(cudaErrorInvalidSymbol, "%s", err.msg);
        return cudaSuccess;
    }
    return rt_fail(cudaErrorInvalidSymbol, NULL);
}

/* ---- the timeline ---------------------------------------------------------------- */

void
rt_timeline(uint8_t op, uint8_t dir, uint32_t kernel, double dur_ns, uint64_t bytes)
{
    if (rt.n_tl == rt.cap_tl) {
        rt.cap_tl = rt.cap_tl ? 2 * rt.cap_tl : 64;
        rt.tl = realloc(rt.tl, rt.cap_tl * sizeof *rt.tl);
        if (rt.tl == NULL)
            abort();
    }
    rt.tl[rt.n_tl++] = (struct rt_event_rec){ op, dir, kernel, rt.now_ns, dur_ns, bytes };
    rt.now_ns += dur_ns;
    if (op == RT_KERNEL || op == RT_KERNEL_EST)
        rt.kernel_ns += dur_ns;
    else
        rt.copy_ns += dur_ns;
}

double
rt_copy_ns(uint64_t bytes, int dir)
{
    if (dir != cudaMemcpyHostToDevice && dir != cudaMemcpyDeviceToHost)
        return 0;
    return rt.host_latency_ns + (rt.host_gbps > 0 ? (double)bytes / rt.host_gbps : 0);
}

/* ---- launches -------------------------------------------------------------------- */

/* The launch configuration <<<...>>> pushes and the kernel's stub pops:
 * the calling thread's own, as in NVIDIA's runtime (two host threads
 * launching at once must not take each other's). */
static _Thread_local struct {
    dim3 grid[8], block[8];
    size_t smem[8];
    void *stream[8];
    uint32_t depth;
} call_cfg;

API unsigned
__cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, void *stream)
{
    if (call_cfg.depth == 8)
        return 1;
    uint32_t d = call_cfg.depth++;
    call_cfg.grid[d] = gridDim;
    call_cfg.block[d] = blockDim;
    call_cfg.smem[d] = sharedMem;
    call_cfg.stream[d] = stream;
    return 0;
}

API cudaError_t
__cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    if (call_cfg.depth == 0) {
        RT_GUARD;
        return rt_fail(cudaErrorInvalidConfiguration, NULL);
    }
    uint32_t d = --call_cfg.depth;
    *gridDim = call_cfg.grid[d];
    *blockDim = call_cfg.block[d];
    *sharedMem = call_cfg.smem[d];
    *(void **)stream = call_cfg.stream[d];
    return cudaSuccess;
}

static struct rt_func *
func_of(const void *f)
{
    for (uint32_t i = 0; i < rt.n_funcs; i++)
        if (rt.funcs[i].host == f || (const void *)&rt.funcs[i] == f)
            return &rt.funcs[i];
    return NULL;
}

int
rt_param_layout(const void *func, uint32_t *offsets, uint32_t *sizes, unsigned max)
{
    struct rt_func *f = func_of(func);
    if (f == NULL)
        return rt_fail(cudaErrorInvalidDeviceFunction, "a function the program did not "
                       "register as a kernel (%p)", func), -1;
    int mod = rt_module(f->bin);
    if (mod < 0)
        return rt_fail(rt.last != cudaSuccess ? rt.last : cudaErrorInvalidKernelImage, NULL), -1;
    smsim_error err = { 0 };
    struct smsim_kernel_decl kd;
    if (smsim_program_kernel_decl(rt.prog, (unsigned)mod, f->name, &kd, &err) < 0)
        return rt_fail(cudaErrorInvalidDeviceFunction, "%s", err.msg), -1;
    if (kd.n_params > max)
        return rt_fail(cudaErrorNotSupported, "unsupported: a graph node of kernel %s, which "
                       "has more than %u parameters", f->name, max), -1;
    for (unsigned i = 0; i < kd.n_params; i++) {
        uint32_t off;
        smsim_program_kernel_param(rt.prog, (unsigned)mod, f->name, i, &off, &sizes[i], &err);
        if (offsets != NULL)
            offsets[i] = off;
    }
    return (int)kd.n_params;
}

/* The status of a kernel that failed: a fault in memory, an assertion,
 * smsim's own limits; the first two are sticky, as on a GPU. */
static cudaError_t
kernel_failed(int rc, const char *msg)
{
    cudaError_t e = rc == SMSIM_ERR_UNSUPPORTED ? cudaErrorNotSupported
                    : strstr(msg, "device-side assertion") != NULL ? cudaErrorAssert
                    : strstr(msg, "global-memory") != NULL || strstr(msg, "use after free") ||
                      strstr(msg, "misaligned") != NULL || strstr(msg, "out-of-bounds") != NULL
                    ? cudaErrorIllegalAddress : cudaErrorLaunchFailure;
    rt_fail(e, "%s", msg);
    if (e != cudaErrorNotSupported)
        rt.sticky = e;
    if (rt.failed++ == 0)        /* said again at the end (report()), as a program that checks
                                    no launch goes on with outputs no kernel wrote */
        snprintf(rt.first_failure, sizeof rt.first_failure, "%s", msg);
    return e;
}

cudaError_t
rt_launch(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
          const uint32_t *cluster, bool cooperative)
{
    RT_REQUIRE_READY();
    struct rt_func *f = func_of(func);
    if (f == NULL)
        return rt_fail(cudaErrorInvalidDeviceFunction, "a launch of a function the program did "
                       "not register as a kernel (%p)", func);
    int mod = rt_module(f->bin);
    if (mod < 0)
        return rt_fail(rt.last != cudaSuccess ? rt.last : cudaErrorInvalidKernelImage, NULL);
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > 1024 ||
        grid.y > 65535 || grid.z > 65535)
        return rt_fail(cudaErrorInvalidConfiguration, NULL);
    smsim_error err = { 0 };
    struct smsim_kernel_decl kd;
    if (smsim_program_kernel_decl(rt.prog, (unsigned)mod, f->name, &kd, &err) < 0)
        return rt_fail(cudaErrorInvalidDeviceFunction, "%s", err.msg);
    if (smem > 48 * 1024 && smem > f->max_dyn_smem)
        return rt_fail(cudaErrorInvalidValue, "kernel %s: %zu bytes of dynamic shared memory "
                       "need cudaFuncSetAttribute(MaxDynamicSharedMemorySize) first (48 KB "
                       "without)", f->name, smem);
    if (cooperative) {           /* every block resident at once, or the launch fails */
        int per_sm = 0;
        cudaError_t oe = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func,
                                                                      (int)threads, smem);
        if (oe != cudaSuccess)
            return oe;
        uint64_t nb = (uint64_t)grid.x * grid.y * grid.z;
        if (nb > (uint64_t)per_sm * rt.gpu.sm_count)
            return rt_fail(cudaErrorCooperativeLaunchTooLarge, "kernel %s: a cooperative launch "
                           "of %llu blocks; %d per SM x %u SMs can be resident", f->name,
                           (unsigned long long)nb, per_sm, rt.gpu.sm_count);
    }
    uint8_t stackbuf[4096];
    uint8_t *params = kd.param_bytes <= sizeof stackbuf ? stackbuf : malloc(kd.param_bytes);
    if (params == NULL)
        abort();
    memset(params, 0, kd.param_bytes);
    for (unsigned i = 0; i < kd.n_params; i++) {
        uint32_t off, size;
        smsim_program_kernel_param(rt.prog, (unsigned)mod, f->name, i, &off, &size, &err);
        memcpy(params + off, args[i], size);
    }
    char what[512];
    snprintf(what, sizeof what, "launch %llu", (unsigned long long)rt.launches + 1);
    struct smsim_launch_desc d = { .what = what, .module = (unsigned)mod, .kernel = f->name,
                                   .grid = { grid.x, grid.y, grid.z },
                                   .block = { block.x, block.y, block.z },
                                   .smem = (uint32_t)smem, .params = params,
                                   .cooperative = cooperative, .replay = rt.replay };
    if (cluster != NULL)
        memcpy(d.cluster, cluster, sizeof d.cluster);
    else if (f->cluster[0] != 0)
        memcpy(d.cluster, f->cluster, sizeof d.cluster);
    /* launch sampling (cudart_repeat.c): simulated, or run functionally
     * and estimated from the simulated launches of its shape */
    struct rt_shape *sh = NULL;
    if (rt.sim != NULL && rt.sample_launches > 0) {
        struct rt_shape_key key;
        memset(&key, 0, sizeof key);
        memcpy(key.grid, d.grid, sizeof key.grid);
        memcpy(key.block, d.block, sizeof key.block);
        memcpy(key.cluster, d.cluster, sizeof key.cluster);
        key.smem = d.smem;
        key.cooperative = cooperative;
        sh = rt_shape_of((uint32_t)(f - rt.funcs), &key);
    }
    bool simulate = rt.sim != NULL && (sh == NULL || rt_shape_simulate(sh));
    struct smsim_totals t = { 0 };
    int rc = smsim_program_launch(rt.prog, simulate ? rt.sim : NULL, &d, &t, &err);
    if (params != stackbuf)
        free(params);
    rt.launches++;
    rt.tot.kernels += t.kernels;
    rt.tot.blocks += t.blocks;
    rt.tot.warp_insts += t.warp_insts;
    rt.tot.replayed += t.replayed;
    if (rc < 0)
        return kernel_failed(rc, err.msg);
    if (simulate) {
        size_t k = smsim_kernel_count(rt.sim) - 1;
        struct smsim_kernel kr;
        smsim_kernel(rt.sim, k, &kr);
        if (sh != NULL)
            rt_shape_timed(sh, kr.cycles, t.active_insts - t.wait_retries);
        rt_timeline(RT_KERNEL, 0, (uint32_t)k, (double)kr.cycles * 1000.0 / rt.gpu.clock_mhz, 0);
    } else if (sh != NULL) {
        uint64_t lo, hi, c = rt_shape_estimate(sh, t.active_insts - t.wait_retries, &lo, &hi);
        rt_timeline(RT_KERNEL_EST, 0, (uint32_t)(f - rt.funcs),
                    (double)c * 1000.0 / rt.gpu.clock_mhz, c);
    }
    return cudaSuccess;
}

API cudaError_t
cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                 cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_kernel(stream, func, gridDim, blockDim, args, sharedMem, NULL, false);
    return rt_launch(func, gridDim, blockDim, args, sharedMem, NULL, false);
}

API cudaError_t
__cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
    RT_GUARD;
    struct rt_func *f = func_of(func);
    if (f == NULL)
        return rt_fail(cudaErrorInvalidDeviceFunction, NULL);
    *kernel = (cudaKernel_t)(void *)f;
    return cudaSuccess;
}

API cudaError_t
__cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                   size_t sharedMem, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_kernel(stream, kernel, gridDim, blockDim, args, sharedMem, NULL, false);
    return rt_launch(kernel, gridDim, blockDim, args, sharedMem, NULL, false);
}

API cudaError_t
__cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                        size_t sharedMem, cudaStream_t stream)
{
    RT_GUARD;
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, RT_PT(stream));
}

API cudaError_t
cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                            size_t sharedMem, cudaStream_t stream)
{
    RT_GUARD;
    if (rt_capturing(stream))
        return rt_capture_kernel(stream, func, gridDim, blockDim, args, sharedMem, NULL, true);
    return rt_launch(func, gridDim, blockDim, args, sharedMem, NULL, true);
}

API cudaError_t
cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    RT_GUARD;
    uint32_t cluster[3] = { 0, 0, 0 };
    bool have = false, coop = false;
    cudaEvent_t done[2] = { NULL, NULL };    /* recorded when the kernel has run */
    unsigned n_done = 0;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension) {
            cluster[0] = a->val.clusterDim.x;
            cluster[1] = a->val.clusterDim.y;
            cluster[2] = a->val.clusterDim.z;
            have = true;
        } else if (a->id == cudaLaunchAttributeCooperative) {
            coop = a->val.cooperative != 0;
        } else if (a->id == 7 || a->id == 12) {
            /* programmatic and launch-completion events: the kernel has run
             * when the launch returns, so both are recorded then */
            memcpy(&done[n_done++], a->val.bytes, sizeof done[0]);
        } else if (a->id > 14 || a->id == 11 || a->id == 13) {
            return rt_fail(cudaErrorNotSupported, "unsupported: launch attribute %d "
                           "(cudaLaunchKernelEx)", a->id);
        }
        /* else a hint (access policy window, synchronisation policy, cluster
         * scheduling preference, programmatic stream serialisation -- the next
         * kernel may start early; running after this one is one of the orders
         * a GPU may take --, priority, memory sync domains, shared-memory
         * carveout): nothing to do when work runs as it is issued */
    }
    cudaError_t e = rt_capturing(config->stream)
        ? rt_capture_kernel(config->stream, func, config->gridDim, config->blockDim, args,
                            config->dynamicSmemBytes, have ? cluster : NULL, coop)
        : rt_launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                    have ? cluster : NULL, coop);
    for (unsigned i = 0; i < n_done && e == cudaSuccess; i++)   /* (in a capture: after it) */
        if (done[i] != NULL)
            cudaEventRecord(done[i], config->stream);
    return e;
}

API cudaError_t
cudaFuncSetAttribute(const void *func, int attr, int value)
{
    RT_GUARD;
    struct rt_func *f = func_of(func);
    if (f == NULL)
        return rt_fail(cudaErrorInvalidDeviceFunction, NULL);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || rt_ready() != cudaSuccess)
            return rt_fail(cudaErrorInvalidValue, NULL);
        f->max_dyn_smem = (uint32_t)value;
    } else if (attr >= cudaFuncAttributeRequiredClusterWidth &&
               attr <= cudaFuncAttributeRequiredClusterWidth + 2) {
        f->cluster[attr - cudaFuncAttributeRequiredClusterWidth] = (uint32_t)value;
        for (unsigned d = 0; d < 3; d++)
            if (f->cluster[d] == 0)
                f->cluster[d] = 1;
    }
    return cudaSuccess;              /* other attributes are hints */
}

API cudaError_t
cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    RT_GUARD;
    struct rt_func *f = func_of(func);
    if (f == NULL || attr == NULL)
        return rt_fail(cudaErrorInvalidDeviceFunction, NULL);
    int mod = rt_module(f->bin);
    if (mod < 0)
        return rt_fail(cudaErrorInvalidDeviceFunction, NULL);
    struct smsim_kernel_decl kd;
    smsim_error err = { 0 };
    if (smsim_program_kernel_decl(rt.prog, (unsigned)mod, f->name, &kd, &err) < 0)
        return rt_fail(cudaErrorInvalidDeviceFunction, "%s", err.msg);
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = kd.smem_static;
    attr->maxThreadsPerBlock = 1024;
    uint32_t regs;
    bool known;
    smsim_program_kernel_regs(rt.prog, (unsigned)mod, f->name, rt.gpu.cc, &regs, &known, &err);
    attr->numRegs = (int)regs;
    attr->ptxVersion = (int)rt.gpu.cc;
    attr->binaryVersion = (int)rt.gpu.cc;
    attr->maxDynamicSharedSizeBytes = (int)(f->max_dyn_smem ? f->max_dyn_smem : 48 * 1024);
    attr->requiredClusterWidth = (int)kd.cluster[0];
    attr->requiredClusterHeight = (int)kd.cluster[1];
    attr->requiredClusterDepth = (int)kd.cluster[2];
    return cudaSuccess;
}

API cudaError_t
cudaFuncGetName(const char **name, const void *func)
{
    RT_GUARD;
    struct rt_func *f = func_of(func);
    if (f == NULL)
        return rt_fail(cudaErrorInvalidDeviceFunction, NULL);
    *name = f->name;
    return cudaSuccess;
}

API cudaError_t
cudaFuncSetSharedMemConfig(const void *func, int config)
{
    RT_GUARD;
    (void)func, (void)config;
    return cudaSuccess;
}

API cudaError_t
cudaFuncSetCacheConfig(const void *func, int config)
{
    RT_GUARD;
    (void)func, (void)config;
    return cudaSuccess;              /* a preference: the model picks the carve-out */
}

/* ---- what is not carried out ------------------------------------------------------- */

static cudaError_t
unsupported(const char *name)
{
    return rt_fail(cudaErrorNotSupported, "unsupported: the CUDA runtime call %s (doc/exec.md "
                   "lists what smsim's runtime carries out)", name);
}

#define CUDART_UNSUPPORTED(name)                                                           \
    API cudaError_t name(void);                                                            \
    API cudaError_t name(void) { return unsupported(#name); }
#include "cudart/unsupported.def"
#undef CUDART_UNSUPPORTED

/* ---- errors ---------------------------------------------------------------------- */

API cudaError_t
cudaGetLastError(void)
{
    RT_GUARD;
    cudaError_t e = rt.sticky != cudaSuccess ? rt.sticky : rt.last;
    rt.last = cudaSuccess;
    return e;
}

API cudaError_t
cudaPeekAtLastError(void)
{
    RT_GUARD;
    return rt.sticky != cudaSuccess ? rt.sticky : rt.last;
}

static const struct {
    cudaError_t code;
    const char *name, *text;
} errors[] = {
    { cudaSuccess, "cudaSuccess", "no error" },
    { cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
    { cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory" },
    { cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error" },
    { cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down" },
    { cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
      "invalid configuration argument" },
    { cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol" },
    { cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer" },
    { cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
      "invalid copy direction for memcpy" },
    { cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
      "invalid device function" },
    { cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected" },
    { cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal" },
    { cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage",
      "device kernel image is invalid" },
    { cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
      "no kernel image is available for execution on the device" },
    { cudaErrorSharedObjectSymbolNotFound, "cudaErrorSharedObjectSymbolNotFound",
      "named symbol not found" },
    { cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
      "invalid resource handle" },
    { cudaErrorIllegalState, "cudaErrorIllegalState",
      "the operation cannot be performed in the present state" },
    { cudaErrorNotReady, "cudaErrorNotReady", "device not ready" },
    /* the device faults and capture errors smsim does not raise itself,
     * which programs print by code (CUDA's driver_types.h numbering) */
    { 702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated" },
    { 714, "cudaErrorHardwareStackError", "hardware stack error" },
    { 715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered" },
    { 716, "cudaErrorMisalignedAddress", "misaligned address" },
    { 717, "cudaErrorInvalidAddressSpace",
      "operation not supported on global/shared address space" },
    { 718, "cudaErrorInvalidPc", "invalid program counter" },
    { 900, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing" },
    { 901, "cudaErrorStreamCaptureInvalidated",
      "operation failed due to a previous error during capture" },
    { 902, "cudaErrorStreamCaptureMerge",
      "operation would result in a merge of separate capture sequences" },
    { 903, "cudaErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began" },
    { 904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work" },
    { 905, "cudaErrorStreamCaptureIsolation",
      "dependency created on uncaptured work in another stream" },
    { 906, "cudaErrorStreamCaptureImplicit",
      "operation would make the legacy stream depend on a capturing blocking stream" },
    { 907, "cudaErrorCapturedEvent",
      "operation not permitted on an event last recorded in a capturing stream" },
    { 908, "cudaErrorStreamCaptureWrongThread",
      "attempt to terminate a thread-local capture sequence from another thread" },
    { 909, "cudaErrorTimeout", "wait operation timed out" },
    { cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
      "an illegal memory access was encountered" },
    { cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
      "too many resources requested for launch" },
    { cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered" },
    { cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure" },
    { cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
      "too many blocks in cooperative launch" },
    { cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted" },
    { cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported" },
    { cudaErrorUnknown, "cudaErrorUnknown", "unknown error" },
};

API const char *
cudaGetErrorString(cudaError_t e)
{
    RT_GUARD;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return errors[i].text;
    return "unrecognized error code";
}

API const char *
cudaGetErrorName(cudaError_t e)
{
    RT_GUARD;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return errors[i].name;
    return "cudaErrorUnknown";
}

/* ---- the report ------------------------------------------------------------------ */

/* The sim's JSON document with an "exec" member: launch sampling's
 * estimates (cudart_repeat.c). */
static void
print_json(FILE *fp, void *arg)
{
    (void)arg;
    char *doc = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&doc, &n);
    if (mem == NULL)
        abort();
    smsim_print_json(mem, rt.sim, rt.cfg_name);
    if (fclose(mem) != 0)
        abort();
    size_t end = n;
    while (end > 0 && doc[end - 1] != '}')
        end--;
    if (end == 0) {                  /* not an object: as it is */
        fwrite(doc, 1, n, fp);
    } else {
        fwrite(doc, 1, end - 1, fp);
        fprintf(fp, ",\n  \"exec\": ");
        rt_shapes_json(fp);
        fprintf(fp, "\n}%s", doc + end);
    }
    free(doc);
}

/* Functional launches replayed (sim.replay_launches; ptx_replay.h). */
static void
replay_report(FILE *fp)
{
    if (rt.tot.replayed > 0)
        fprintf(fp, "smsim exec: %llu functional launch%s replayed: each found the kernel, "
                "shape, arguments and device memory of an earlier one, whose writes were made "
                "again (sim.replay_launches)\n", (unsigned long long)rt.tot.replayed,
                rt.tot.replayed == 1 ? "" : "es");
}

static void
report(void)
{
    fflush(stdout);
    for (uint32_t i = 0; i < rt.n_bins; i++)
        if (rt.bins[i].ptx_path != NULL && getenv("SMSIM_EXEC_KEEP_PTX") == NULL)
            remove(rt.bins[i].ptx_path);
    if (rt.init_err != cudaSuccess || rt.prog == NULL)
        return;
    const char *quiet = getenv("SMSIM_EXEC_QUIET");
    bool loud = quiet == NULL || strcmp(quiet, "1") != 0;
    if (rt.failed > 0)           /* even when quiet: what the program printed after it is not
                                    what a GPU would have computed */
        fprintf(stderr, "smsim exec: %llu kernel launch%s failed; the first: %s\n",
                (unsigned long long)rt.failed, rt.failed == 1 ? "" : "es", rt.first_failure);
    if (rt.sim == NULL) {
        if (loud) {
            fprintf(stderr, "smsim exec: %llu kernel launches executed functionally (no timing): "
                    "%llu blocks, %llu warp instructions%s\n", (unsigned long long)rt.launches,
                    (unsigned long long)rt.tot.blocks, (unsigned long long)rt.tot.warp_insts,
                    rt.tot.replayed > 0 ? " (with those of the replayed launches)" : "");
            replay_report(stderr);
        }
        return;
    }
    if (loud) {
        fprintf(stderr, "smsim exec: %s (%s): %llu kernel launches (%llu estimated), simulated "
                "%.3f us (kernels %.3f us, host copies %.3f us)\n", rt.cfg_name, rt.gpu.name,
                (unsigned long long)rt.launches, (unsigned long long)rt_shapes_estimated(),
                rt.now_ns / 1000.0, rt.kernel_ns / 1000.0, rt.copy_ns / 1000.0);
        if (smsim_kernel_count(rt.sim) > 0)
            smsim_print_summary(stderr, rt.sim, rt.cfg_name, false);
        rt_shapes_report(stderr);
        replay_report(stderr);
        fprintf(stderr, "timeline (simulated):\n  %12s %12s  %s\n", "start us", "length us",
                "operation");
        static const char *const dirs[] = { "host to host", "host to device", "device to host",
                                            "device to device", "default" };
        for (uint32_t i = 0; i < rt.n_tl; i++) {
            const struct rt_event_rec *t = &rt.tl[i];
            if (i == 200 && rt.n_tl > 400) {   /* the first 200 and the last 200 */
                fprintf(stderr, "  ... %u more ...\n", rt.n_tl - 400);
                i = rt.n_tl - 200;
                t = &rt.tl[i];
            }
            fprintf(stderr, "  %12.3f %12.3f  ", t->start_ns / 1000.0, t->dur_ns / 1000.0);
            if (t->op == RT_KERNEL) {
                struct smsim_kernel kr;
                smsim_kernel(rt.sim, t->kernel, &kr);
                fprintf(stderr, "kernel %s (%llu cycles)\n", kr.name,
                        (unsigned long long)kr.cycles);
            } else if (t->op == RT_KERNEL_EST) {
                fprintf(stderr, "kernel %s (%llu cycles, estimated: launch sampling)\n",
                        rt.funcs[t->kernel].name, (unsigned long long)t->bytes);
            } else {
                fprintf(stderr, "%s %s, %llu bytes\n", t->op == RT_COPY ? "copy" : "set",
                        t->dir < 5 ? dirs[t->dir] : "?", (unsigned long long)t->bytes);
            }
        }
    }
    if (rt.wout != NULL) {
        smsim_error err = { 0 };
        if (smsim_outfile_commit(rt.wout, &err) < 0)
            smsim_report("error", err.msg);
        rt.wout = NULL;
    }
    const char *json = getenv("SMSIM_EXEC_STATS_JSON");
    if (json != NULL && *json) {
        smsim_error err = { 0 };
        if (smsim_write_file(json, print_json, NULL, &err) < 0)
            smsim_report("error", err.msg);
    }
    fflush(stderr);
}

/* Everything the runtime holds, when the program ends (after the report). */
static void
release_all(void)
{
    smsim_free(rt.sim);
    smsim_program_free(rt.prog);
    smsim_config_free(rt.cfg);
    for (uint32_t i = 0; i < rt.n_bins; i++)
        free(rt.bins[i].ptx_path);
    for (uint32_t i = 0; i < rt.n_funcs; i++)
        free(rt.funcs[i].name);
    for (uint32_t i = 0; i < rt.n_vars; i++)
        free(rt.vars[i].name);
    free(rt.bins);
    free(rt.funcs);
    free(rt.vars);
    free(rt.tl);
    free(rt.shapes);
    memset(&rt, 0, sizeof rt);
}

static void
at_exit(void)
{
    report();
    release_all();
    rt_unloaded = true;
}
