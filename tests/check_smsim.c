/*
 * check_smsim.c - libsmsim's public API, used as an embedder uses it: this
 * file includes lib/smsim.h and nothing else of smsim, and links libsmsim.a.
 *
 * What a run computes must not depend on how it is driven: a launch file
 * run through the library writes the bytes emulation writes; the same
 * trace gives the same cycles on one thread and on two; every error comes
 * back as a status and a message naming the input, with nothing left
 * allocated (the sanitizer build runs this too).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/smsim.h"

#define LAUNCH SMSIM_SRCDIR "/traces/vecadd.launch"
#define TRACE SMSIM_SRCDIR "/traces/saxpy.smt"

static smsim_config *
load(const char *name)
{
    smsim_error err = { 0 };
    smsim_config *c = NULL;
    ck_assert_msg(smsim_config_load(&c, name, NULL, 0, &err) == SMSIM_OK, "%s", err.msg);
    ck_assert_ptr_nonnull(c);
    return c;
}

static char *
slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "%s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* The vecadd output under run_dir and under emu_dir are the same bytes;
 * both directories are removed. */
static void
same_output_and_clean(const char *run_dir, const char *emu_dir)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/out/vecadd_c.bin", run_dir);
    snprintf(b, sizeof b, "%s/out/vecadd_c.bin", emu_dir);
    size_t la, lb;
    char *ba = slurp(a, &la), *bb = slurp(b, &lb);
    ck_assert_uint_eq(la, 1048500 * 4);
    ck_assert_uint_eq(la, lb);
    ck_assert(memcmp(ba, bb, la) == 0);
    free(ba);
    free(bb);
    unlink(a);
    unlink(b);
    snprintf(a, sizeof a, "%s/out", run_dir);
    snprintf(b, sizeof b, "%s/out", emu_dir);
    rmdir(a);
    rmdir(b);
    rmdir(run_dir);
    rmdir(emu_dir);
}

/* A launch run through the library writes what emulation writes, and the
 * kernel's result and statistics read back by name agree. */
/* A whole program's device (smsim_program): memory persists from launch to
 * launch; a timed launch computes what a functional one does; a freed
 * allocation read by a kernel is an error naming kernel, block, thread and
 * address; misuse comes back as a status. */
static void
program_vecadd(smsim_sim *s, float *out, unsigned n)
{
    smsim_error err = { 0 };
    size_t len;
    char *text = slurp(SMSIM_SRCDIR "/traces/src/vecadd.ptx", &len);
    smsim_program *p = smsim_program_new();
    unsigned mod = 99;
    ck_assert_msg(smsim_program_load_ptx(p, "vecadd.ptx", text, len, NULL, &mod, &err) ==
                  SMSIM_OK, "%s", err.msg);
    ck_assert_uint_eq(mod, 0);
    struct smsim_kernel_decl kd;
    ck_assert_int_eq(smsim_program_kernel_decl(p, mod, "vecadd", &kd, &err), SMSIM_OK);
    ck_assert_uint_eq(kd.n_params, 4);
    ck_assert_uint_eq(kd.param_bytes, 28);
    uint64_t a, b, c;
    ck_assert_int_eq(smsim_program_malloc(p, n * 4, "a", &a, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_malloc(p, n * 4, "b", &b, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_malloc(p, n * 4, "c", &c, &err), SMSIM_OK);
    float *ha = smsim_program_host(p, a, n * 4, &err), *hb = smsim_program_host(p, b, n * 4, &err);
    for (unsigned i = 0; i < n; i++) {
        ha[i] = (float)i * 0.5f;
        hb[i] = 3.0f - (float)i;
    }
    uint8_t blob[28] = { 0 };
    uint32_t off, size;
    uint64_t ptrs[3] = { a, b, c };
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_int_eq(smsim_program_kernel_param(p, mod, "vecadd", i, &off, &size, &err),
                         SMSIM_OK);
        ck_assert_uint_eq(size, 8);
        memcpy(blob + off, &ptrs[i], 8);
    }
    ck_assert_int_eq(smsim_program_kernel_param(p, mod, "vecadd", 3, &off, &size, &err), SMSIM_OK);
    memcpy(blob + off, &n, 4);
    struct smsim_launch_desc d = { .what = "launch 1", .module = mod, .kernel = "vecadd",
                                   .grid = { (n + 255) / 256, 1, 1 }, .block = { 256, 1, 1 },
                                   .params = blob };
    struct smsim_totals t = { 0 };
    ck_assert_msg(smsim_program_launch(p, s, &d, &t, &err) == SMSIM_OK, "%s", err.msg);
    memcpy(out, smsim_program_host(p, c, n * 4, &err), n * 4);
    /* freed, then read by the kernel */
    ck_assert_int_eq(smsim_program_release(p, a, NULL, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_release(p, a, NULL, &err), SMSIM_ERR_USAGE);
    ck_assert_ptr_null(smsim_program_host(p, a, 4, &err));
    ck_assert_int_ne(smsim_program_launch(p, s, &d, &t, &err), SMSIM_OK);
    ck_assert_msg(strstr(err.msg, "use after free") && strstr(err.msg, "kernel vecadd") &&
                  strstr(err.msg, "(block ") && strstr(err.msg, "thread ") &&
                  strstr(err.msg, "at address 0x"), "%s", err.msg);
    /* named once: a timed run does not prefix a message that names it */
    ck_assert_msg(strstr(strstr(err.msg, "kernel vecadd") + 1, "kernel vecadd") == NULL, "%s",
                  err.msg);
    ck_assert_int_ne(smsim_program_kernel_decl(p, mod, "nope", &kd, &err), SMSIM_OK);
    smsim_program_free(p);
    free(text);
}

START_TEST(test_program)
{
    enum { N = 3000 };
    static float timed[N], functional[N];
    smsim_config *c = load("h100");
    smsim_sim *s = smsim_new(c);
    program_vecadd(s, timed, N);
    ck_assert_uint_eq(smsim_kernel_count(s), 1);     /* the failed launch is no kernel */
    struct smsim_kernel k;
    ck_assert_int_eq(smsim_kernel(s, 0, &k), SMSIM_OK);
    ck_assert_uint_gt(k.cycles, 0);
    program_vecadd(NULL, functional, N);
    ck_assert_int_eq(memcmp(timed, functional, sizeof timed), 0);
    for (unsigned i = 0; i < N; i++)
        ck_assert_float_eq(timed[i], (float)i * 0.5f + 3.0f - (float)i);
    smsim_free(s);
    smsim_config_free(c);
}
END_TEST

/* Host memory a kernel reads: pinned (SMSIM_MAP_ZERO_COPY) crosses the
 * host link, 63 GB/s on h100 (host.link_gbps), and no cache holds it;
 * managed memory is timed as device memory.  vecadd of 2 x 1 MiB inputs
 * mapped each way computes the same; the zero-copy launch reads its
 * 2 MiB over the link (host.read_bytes) and takes at least the link's
 * transfer time, 2 MiB / (63e9 / 1.98e9 B a cycle) = 65,905 cycles. */
static uint64_t
vecadd_mapped(const smsim_config *cfg, unsigned flags, float *out, unsigned n,
              uint64_t *host_read)
{
    smsim_error err = { 0 };
    smsim_sim *s = smsim_new(cfg);     /* one program's: it reads the program's counters */
    size_t len;
    char *text = slurp(SMSIM_SRCDIR "/traces/src/vecadd.ptx", &len);
    smsim_program *p = smsim_program_new();
    unsigned mod;
    ck_assert_msg(smsim_program_load_ptx(p, "vecadd.ptx", text, len, NULL, &mod, &err) ==
                  SMSIM_OK, "%s", err.msg);
    float *ha = aligned_alloc(4096, (size_t)n * 4), *hb = aligned_alloc(4096, (size_t)n * 4);
    for (unsigned i = 0; i < n; i++) {
        ha[i] = (float)i * 0.5f;
        hb[i] = 3.0f - (float)i;
    }
    uint64_t c, ptrs[3] = { (uint64_t)(uintptr_t)ha, (uint64_t)(uintptr_t)hb, 0 };
    ck_assert_int_eq(smsim_program_map_host(p, ha, (uint64_t)n * 4, "a", flags, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_map_host(p, hb, (uint64_t)n * 4, "b", flags, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_malloc(p, (uint64_t)n * 4, "c", &c, &err), SMSIM_OK);
    ptrs[2] = c;
    uint8_t blob[28] = { 0 };
    uint32_t off, size;
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_int_eq(smsim_program_kernel_param(p, mod, "vecadd", i, &off, &size, &err),
                         SMSIM_OK);
        memcpy(blob + off, i < 3 ? (const void *)&ptrs[i] : (const void *)&n, i < 3 ? 8 : 4);
    }
    struct smsim_launch_desc d = { .what = "launch 1", .module = mod, .kernel = "vecadd",
                                   .grid = { (n + 255) / 256, 1, 1 }, .block = { 256, 1, 1 },
                                   .params = blob };
    ck_assert_msg(smsim_program_launch(p, s, &d, NULL, &err) == SMSIM_OK, "%s", err.msg);
    memcpy(out, smsim_program_host(p, c, (uint64_t)n * 4, &err), (size_t)n * 4);
    struct smsim_kernel k;
    ck_assert_int_eq(smsim_kernel(s, 0, &k), SMSIM_OK);
    ck_assert_uint_eq(smsim_stat(s, 0, "host.write_bytes"), 0);
    *host_read = smsim_stat(s, 0, "host.read_bytes");
    smsim_free(s);
    smsim_program_free(p);
    free(ha);
    free(hb);
    free(text);
    return k.cycles;
}

START_TEST(test_zero_copy)
{
    enum { N = 1 << 18 };
    static float pinned[N], managed[N];
    smsim_config *c = load("h100");
    uint64_t rd;
    uint64_t zc = vecadd_mapped(c, SMSIM_MAP_ZERO_COPY, pinned, N, &rd);
    ck_assert_uint_eq(rd, 2u * N * 4);
    uint64_t dev = vecadd_mapped(c, 0, managed, N, &rd);
    ck_assert_uint_eq(rd, 0);
    ck_assert_int_eq(memcmp(pinned, managed, sizeof pinned), 0);
    for (unsigned i = 0; i < N; i++)
        ck_assert_float_eq(pinned[i], (float)i * 0.5f + 3.0f - (float)i);
    ck_assert_msg(zc >= 65905 && zc < 65905 * 1.2 && dev < zc / 4,
                  "zero-copy %llu cycles, managed %llu", (unsigned long long)zc,
                  (unsigned long long)dev);
    smsim_config_free(c);
}
END_TEST

/* A kernel parameter read through a register (nvcc's code for a struct by
 * value indexed at run time: mov of the parameter's address, then
 * ld.param [%rd + off]) reads the parameter space as laid out; past it is
 * an error naming the access. */
static const char param_reg_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .align 4 .b8 k_param_0[32], .param .u64 k_param_1, "
    ".param .u32 k_param_2)\n"
    "{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  mov.b64 %rd1, k_param_0;\n"
    "  ld.param.u64 %rd2, [k_param_1];\n"
    "  ld.param.u32 %r5, [k_param_2];\n"
    "  cvta.to.global.u64 %rd3, %rd2;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  add.u32 %r6, %r1, %r5;\n"
    "  mul.wide.u32 %rd4, %r6, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  ld.param.u32 %r2, [%rd5];\n"
    "  mul.wide.u32 %rd6, %r1, 4;\n"
    "  add.s64 %rd7, %rd3, %rd6;\n"
    "  st.global.u32 [%rd7], %r2;\n"
    "  ret;\n"
    "}\n";

static int
param_reg_launch(smsim_sim *s, uint32_t skip, uint32_t *out, smsim_error *err)
{
    smsim_program *p = smsim_program_new();
    unsigned mod;
    ck_assert_msg(smsim_program_load_ptx(p, "k.ptx", param_reg_ptx, sizeof param_reg_ptx - 1,
                                         NULL, &mod, err) == SMSIM_OK, "%s", err->msg);
    uint64_t o;
    ck_assert_int_eq(smsim_program_malloc(p, 7 * 4, "out", &o, err), SMSIM_OK);
    uint8_t blob[44];
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t v = 100 + i;
        memcpy(blob + 4 * i, &v, 4);
    }
    memcpy(blob + 32, &o, 8);
    memcpy(blob + 40, &skip, 4);
    struct smsim_launch_desc d = { .what = "launch 1", .module = mod, .kernel = "k",
                                   .grid = { 1, 1, 1 }, .block = { 7, 1, 1 }, .params = blob };
    int rc = smsim_program_launch(p, s, &d, NULL, err);
    if (rc == SMSIM_OK)
        memcpy(out, smsim_program_host(p, o, 7 * 4, err), 7 * 4);
    smsim_program_free(p);
    return rc;
}

START_TEST(test_param_through_register)
{
    smsim_error err = { 0 };
    smsim_config *c = load("h100");
    smsim_sim *s = smsim_new(c);
    uint32_t out[7];
    ck_assert_msg(param_reg_launch(s, 1, out, &err) == SMSIM_OK, "%s", err.msg);
    for (uint32_t t = 0; t < 7; t++)
        ck_assert_uint_eq(out[t], 101 + t);
    ck_assert_msg(param_reg_launch(NULL, 1, out, &err) == SMSIM_OK, "%s", err.msg);
    ck_assert_uint_eq(out[6], 107);
    /* thread 6 with skip 5 reads 4 bytes at offset 44: past the 44 bytes */
    ck_assert_int_ne(param_reg_launch(NULL, 5, out, &err), SMSIM_OK);
    ck_assert_msg(strstr(err.msg, "parameters beyond them") != NULL &&
                  strstr(err.msg, "thread 6") != NULL, "%s", err.msg);
    smsim_free(s);
    smsim_config_free(c);
}
END_TEST

START_TEST(test_run_equals_emulate)
{
    char run_dir[] = "/tmp/check_smsim.XXXXXX", emu_dir[] = "/tmp/check_smsim.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(run_dir));
    ck_assert_ptr_nonnull(mkdtemp(emu_dir));
    smsim_error err = { 0 };
    smsim_config *cfg = load("h100");
    smsim_source *src = NULL;
    ck_assert_msg(smsim_source_open_launch(&src, LAUNCH, &err) == SMSIM_OK, "%s", err.msg);
    ck_assert(smsim_source_is_launch(src));
    smsim_sim *s = smsim_new(cfg);
    ck_assert_msg(smsim_run(s, src, &err) == SMSIM_OK, "%s", err.msg);
    ck_assert_int_eq(smsim_source_write_outputs(src, run_dir, &err), SMSIM_OK);

    ck_assert_uint_eq(smsim_kernel_count(s), 1);
    struct smsim_kernel k;
    ck_assert_int_eq(smsim_kernel(s, 0, &k), SMSIM_OK);
    ck_assert_str_eq(k.name, "vecadd");
    ck_assert_uint_eq(k.blocks, 4097);
    ck_assert_uint_eq(k.regs_per_thread, 12);        /* regs.sm_90 of the launch file */
    ck_assert(!k.truncated);
    ck_assert_uint_gt(k.cycles, 1000);
    ck_assert_uint_eq(smsim_stat(s, 0, "gpu.cycles"), k.cycles);
    ck_assert_uint_eq(smsim_stat(s, SMSIM_TOTAL, "gpu.blocks"), 4097);
    ck_assert_uint_eq(smsim_stat(s, 0, "sm.warp_insts"), smsim_stat(s, SMSIM_TOTAL, "sm.warp_insts"));
    ck_assert(smsim_stat_known(s, "sm.warp_insts"));
    ck_assert(!smsim_stat_known(s, "no.such.counter"));
    ck_assert_uint_eq(smsim_stat(s, 0, "no.such.counter"), 0);
    ck_assert_int_eq(smsim_kernel(s, 1, &k), SMSIM_ERR_USAGE);
    smsim_free(s);
    smsim_source_free(src);

    struct smsim_totals tot;
    ck_assert_int_eq(smsim_source_open_launch(&src, LAUNCH, &err), SMSIM_OK);
    ck_assert_msg(smsim_emulate(src, &tot, &err) == SMSIM_OK, "%s", err.msg);
    ck_assert_uint_eq(tot.kernels, 1);
    ck_assert_uint_eq(tot.blocks, 4097);
    ck_assert_int_eq(smsim_source_write_outputs(src, emu_dir, &err), SMSIM_OK);
    smsim_source_free(src);
    smsim_config_free(cfg);
    same_output_and_clean(run_dir, emu_dir);
}
END_TEST

/* A sampled run (sim.sample) reports what it skipped and its interval,
 * and still writes every output byte emulation writes. */
START_TEST(test_sampled_run)
{
    char run_dir[] = "/tmp/check_smsim.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(run_dir));
    smsim_error err = { 0 };
    const char *sets[] = { "sim.sample=true" };
    smsim_config *cfg = NULL;
    ck_assert_msg(smsim_config_load(&cfg, "gtx1070", sets, 1, &err) == SMSIM_OK, "%s", err.msg);
    smsim_source *src = NULL;
    ck_assert_int_eq(smsim_source_open_launch(&src, LAUNCH, &err), SMSIM_OK);
    smsim_sim *s = smsim_new(cfg);
    ck_assert_msg(smsim_run(s, src, &err) == SMSIM_OK, "%s", err.msg);
    ck_assert_int_eq(smsim_source_write_outputs(src, run_dir, &err), SMSIM_OK);
    struct smsim_kernel k;
    ck_assert_int_eq(smsim_kernel(s, 0, &k), SMSIM_OK);
    ck_assert(k.sampled);
    ck_assert_uint_gt(k.blocks_skipped, 0);
    ck_assert_uint_eq(k.blocks + k.blocks_skipped, 4097);
    ck_assert_uint_le(k.cycles_lo, k.cycles);
    ck_assert_uint_le(k.cycles, k.cycles_hi);
    ck_assert_uint_lt(k.cycles_simulated, k.cycles);
    smsim_free(s);
    smsim_source_free(src);

    /* the same bytes as emulate */
    struct smsim_totals tot;
    char emu_dir[] = "/tmp/check_smsim.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(emu_dir));
    ck_assert_int_eq(smsim_source_open_launch(&src, LAUNCH, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_emulate(src, &tot, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_source_write_outputs(src, emu_dir, &err), SMSIM_OK);
    smsim_source_free(src);
    smsim_config_free(cfg);
    same_output_and_clean(run_dir, emu_dir);
}
END_TEST

struct seen {
    unsigned kernels;
    uint64_t blocks;
    char name[64];
};

static void
on_kernel(void *ctx, const smsim_sim *s, size_t index, const char *name)
{
    struct seen *w = ctx;
    (void)s;
    ck_assert_uint_eq(index, w->kernels);
    w->kernels++;
    snprintf(w->name, sizeof w->name, "%s", name);
}

static void
on_block(void *ctx, const smsim_sim *s)
{
    struct seen *w = ctx;
    w->blocks++;
    ck_assert_uint_le(smsim_blocks_retired(s), smsim_blocks_total(s));
}

static uint64_t
trace_cycles(unsigned threads, struct seen *w)
{
    smsim_error err = { 0 };
    smsim_config *cfg = load("v100");
    smsim_source *src = NULL;
    ck_assert_msg(smsim_source_open_trace(&src, TRACE, SMSIM_UNKNOWN_ERROR, &err) == SMSIM_OK,
                  "%s", err.msg);
    ck_assert(!smsim_source_is_launch(src));
    smsim_sim *s = smsim_new(cfg);
    smsim_set_threads(s, threads);
    if (w != NULL) {
        struct smsim_watch watch = { on_kernel, on_block, w };
        smsim_set_watch(s, &watch);
    }
    ck_assert_msg(smsim_run(s, src, &err) == SMSIM_OK, "%s", err.msg);
    uint64_t c = smsim_stat(s, SMSIM_TOTAL, "gpu.cycles");
    struct smsim_kernel k;
    ck_assert_int_eq(smsim_kernel(s, 0, &k), SMSIM_OK);
    if (w != NULL)
        ck_assert_uint_eq(w->blocks, k.blocks);
    smsim_free(s);
    smsim_source_free(src);
    smsim_config_free(cfg);
    return c;
}

/* Threads change nothing; the watch sees every kernel and block. */
START_TEST(test_threads_and_watch)
{
    struct seen w = { 0 };
    uint64_t one = trace_cycles(1, &w), two = trace_cycles(2, NULL);
    ck_assert_uint_gt(one, 0);
    ck_assert_uint_eq(one, two);
    ck_assert_uint_eq(w.kernels, 1);
    ck_assert_uint_gt(w.blocks, 0);
    ck_assert_str_ne(w.name, "");
}
END_TEST

/* Windows: a header and rows, CSV. */
START_TEST(test_windows)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    smsim_error err = { 0 };
    smsim_config *cfg = load("h100");
    smsim_source *src = NULL;
    ck_assert_int_eq(smsim_source_open_synth(&src, "fma:blocks=4,n=256", &err), SMSIM_OK);
    smsim_sim *s = smsim_new(cfg);
    smsim_set_windows(s, 256, fp, false);
    ck_assert_msg(smsim_run(s, src, &err) == SMSIM_OK, "%s", err.msg);
    fclose(fp);
    /* the GPU-wide windows add up to every warp instruction issued */
    const char *hdr = "kernel,scope,sm,window,first_cycle,last_cycle,cycles,warp_insts,";
    ck_assert(strncmp(buf, hdr, strlen(hdr)) == 0);
    uint64_t sum = 0, rows = 0;
    for (char *line = strchr(buf, '\n'); line != NULL && line[1] != '\0';
         line = strchr(line + 1, '\n')) {
        unsigned kernel, window;
        int sm;
        unsigned long long first, last, cycles, wi;
        char scope[8];
        ck_assert_int_eq(sscanf(line + 1, "%u,%7[a-z],%d,%u,%llu,%llu,%llu,%llu", &kernel, scope,
                                &sm, &window, &first, &last, &cycles, &wi), 8);
        if (strcmp(scope, "gpu") == 0) {
            sum += wi;
            rows++;
        }
    }
    ck_assert_uint_gt(rows, 4);
    ck_assert_uint_eq(sum, smsim_stat(s, SMSIM_TOTAL, "sm.warp_insts"));
    free(buf);
    smsim_free(s);
    smsim_source_free(src);
    smsim_config_free(cfg);
}
END_TEST

/* Replayed functional launches (smsim_launch_desc.replay): the same
 * kernel, parameters and memory make the recorded writes again and count
 * the same work; other parameters, other data or another allocation
 * execute. */
START_TEST(test_replay)
{
    smsim_error err = { 0 };
    smsim_program *p = smsim_program_new();
    unsigned mod;
    ck_assert_int_eq(smsim_program_load_ptx(p, "k.ptx", param_reg_ptx, sizeof param_reg_ptx - 1,
                                            NULL, &mod, &err), SMSIM_OK);
    uint64_t o, x;
    ck_assert_int_eq(smsim_program_malloc(p, 7 * 4, "out", &o, &err), SMSIM_OK);
    uint32_t *out = smsim_program_host(p, o, 7 * 4, &err);
    uint8_t blob[44];
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t v = 100 + i;
        memcpy(blob + 4 * i, &v, 4);
    }
    memcpy(blob + 32, &o, 8);
    struct smsim_launch_desc d = { .what = "launch", .module = mod, .kernel = "k",
                                   .grid = { 1, 1, 1 }, .block = { 7, 1, 1 }, .params = blob,
                                   .replay = true };
    /* skip, clear out first, replayed?, out[0] after */
    static const struct { uint32_t skip; bool clear, alloc, replayed; uint32_t first; } steps[] = {
        { 0, false, false, false, 100 },   /* recorded: out from 0s */
        { 0, true, false, true, 100 },     /* out 0s again: replayed */
        { 0, false, false, false, 100 },   /* out as left (not recorded): executes */
        { 0, false, false, true, 100 },    /* ... and is recorded: replayed */
        { 1, false, false, false, 101 },   /* other parameters */
        { 0, true, true, false, 100 },     /* out 0s, but one more allocation */
        { 0, true, false, true, 100 },     /* that state again */
    };
    struct smsim_totals first = { 0 };
    for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (steps[i].clear)
            memset(out, 0, 7 * 4);
        if (steps[i].alloc)
            ck_assert_int_eq(smsim_program_malloc(p, 64, "x", &x, &err), SMSIM_OK);
        uint32_t skip = steps[i].skip;
        memcpy(blob + 40, &skip, 4);
        struct smsim_totals t = { 0 };
        ck_assert_int_eq(smsim_program_launch(p, NULL, &d, &t, &err), SMSIM_OK);
        ck_assert_msg(t.replayed == steps[i].replayed, "step %u: replayed %llu", i,
                      (unsigned long long)t.replayed);
        for (uint32_t l = 0; l < 7; l++)
            ck_assert_uint_eq(out[l], steps[i].first + l);
        if (i == 0)
            first = t;
        ck_assert_uint_eq(t.warp_insts, first.warp_insts);
        ck_assert_uint_eq(t.active_insts, first.active_insts);
        ck_assert_uint_eq(t.blocks, 1);
    }
    smsim_program_free(p);
}
END_TEST

/* A freed allocation's address is given again to an allocation of the
 * same size, the most recently freed first; another size gets a new one;
 * until reused, the address is no memory of the program. */
START_TEST(test_address_reuse)
{
    smsim_error err = { 0 };
    smsim_program *p = smsim_program_new();
    uint64_t a, b, c, d, e;
    ck_assert_int_eq(smsim_program_malloc(p, 1000, "a", &a, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_malloc(p, 1000, "b", &b, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_release(p, a, NULL, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_release(p, b, NULL, &err), SMSIM_OK);
    ck_assert(!smsim_program_lookup(p, a, NULL, NULL, NULL));
    ck_assert_int_eq(smsim_program_malloc(p, 999, "c", &c, &err), SMSIM_OK);
    ck_assert(c != a && c != b);
    ck_assert_int_eq(smsim_program_malloc(p, 1000, "d", &d, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_program_malloc(p, 1000, "e", &e, &err), SMSIM_OK);
    ck_assert_uint_eq(d, b);     /* the most recently freed first */
    ck_assert_uint_eq(e, a);
    const uint8_t *z = smsim_program_host(p, e, 1000, &err);
    ck_assert_ptr_nonnull(z);
    for (unsigned i = 0; i < 1000; i++)
        ck_assert_uint_eq(z[i], 0);  /* zeroed, as every allocation */
    smsim_program_free(p);
}
END_TEST

/* Errors: a status, a message naming the input, nothing returned. */
START_TEST(test_errors)
{
    smsim_error err = { 0 };
    smsim_config *cfg = (smsim_config *)&err;     /* overwritten with NULL on failure */
    int rc = smsim_config_load(&cfg, "no-such-gpu", NULL, 0, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_null(cfg);
    ck_assert_int_eq(smsim_exit_status(rc), 2);
    ck_assert_ptr_nonnull(strstr(err.msg, "no-such-gpu"));

    const char *bad[] = { "sm.count=0" };
    ck_assert_int_eq(smsim_config_load(&cfg, "h100", bad, 1, &err), SMSIM_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "sm.count"));
    const char *typo[] = { "sm.cont=4" };
    ck_assert_int_eq(smsim_config_load(&cfg, "h100", typo, 1, &err), SMSIM_ERR_CONFIG);

    smsim_source *src = (smsim_source *)&err;
    ck_assert_int_eq(smsim_source_open_launch(&src, "/nonexistent.launch", &err), SMSIM_ERR_IO);
    ck_assert_ptr_null(src);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent.launch"));
    ck_assert_int_eq(smsim_source_open_trace(&src, SMSIM_SRCDIR "/README.md", 0, &err),
                     SMSIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a trace"));
    ck_assert_int_lt(smsim_source_open_synth(&src, "nosuch", &err), 0);
    ck_assert_ptr_null(src);
    ck_assert_str_eq(smsim_strerror(SMSIM_ERR_IO), "I/O error");
    ck_assert_int_eq(smsim_exit_status(SMSIM_ERR_INTERNAL), 3);
    ck_assert_int_eq(smsim_exit_status(SMSIM_ERR_USAGE), 1);
    ck_assert_int_eq(smsim_error_set(&err, SMSIM_ERR_FORMAT, "x:%d: y", 3), SMSIM_ERR_FORMAT);
    ck_assert_str_eq(err.msg, "x:3: y");
    /* A message that would not fit with its names whole (CUTLASS's kernel
     * names are 1,500 characters) keeps what went wrong: its long names
     * are cut to 96 characters and "...", short ones stay whole. */
    static char name[1501];
    memset(name, 'Z', 1500);
    memcpy(name, "_ZN7cutlass", 11);
    smsim_error_set(&err, SMSIM_ERR_UNSUPPORTED, "kernel %s: f.ptx:9: kernel %s, block 0: the reason",
                    name, name);
    ck_assert_int_eq(err.code, SMSIM_ERR_UNSUPPORTED);
    char want[400];
    snprintf(want, sizeof want, "kernel %.96s...: f.ptx:9: kernel %.96s..., block 0: the reason",
             name, name);
    ck_assert_str_eq(err.msg, want);
    name[128] = '\0';              /* 128 characters: not cut, so the message's end is */
    smsim_error_set(&err, SMSIM_ERR_FORMAT, "%s %s %s %s %s %s %s %s: why", name, name, name, name,
                    name, name, name, name);
    ck_assert_uint_eq(strlen(err.msg), sizeof err.msg - 1);
    ck_assert_int_eq(strncmp(err.msg + 7 * 129, name, sizeof err.msg - 1 - 7 * 129), 0);
    smsim_config_free(NULL);
    smsim_source_free(NULL);
    smsim_free(NULL);
}
END_TEST

/* The config table through the API. */
START_TEST(test_config_fields)
{
    smsim_config *a = load("h100"), *b = NULL;
    const char *sets[] = { "sm.count=7" };
    smsim_error err = { 0 };
    ck_assert_int_eq(smsim_config_load(&b, "h100", sets, 1, &err), SMSIM_OK);
    struct smsim_gpu g;
    smsim_config_gpu(a, &g);
    ck_assert_uint_eq(g.sm_count, 132);
    ck_assert_uint_eq(g.cc, 90);
    ck_assert_str_eq(g.arch, "hopper");
    smsim_config_gpu(b, &g);
    ck_assert_uint_eq(g.sm_count, 7);
    long i = smsim_config_field_index("sm.count");
    ck_assert_int_ge(i, 0);
    ck_assert_str_eq(smsim_config_field_name((size_t)i), "sm.count");
    ck_assert_ptr_null(smsim_config_field_name(smsim_config_field_count()));
    char va[SMSIM_CONFIG_VALUE_MAX], vb[SMSIM_CONFIG_VALUE_MAX];
    smsim_config_value(a, (size_t)i, va, sizeof va);
    smsim_config_value(b, (size_t)i, vb, sizeof vb);
    ck_assert_str_eq(va, "132");
    ck_assert_str_eq(vb, "7");
    ck_assert_int_eq(smsim_config_field_index("sm.cont"), -1);
    ck_assert_str_eq(smsim_config_field_suggest("sm.cont"), "sm.count");
    smsim_config_free(a);
    smsim_config_free(b);
}
END_TEST

static void
print_hello(FILE *fp, void *arg)
{
    fputs(arg, fp);
}

/* Atomic output files and key = value files. */
START_TEST(test_files)
{
    char dir[] = "/tmp/check_smsim.XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.txt", dir);
    smsim_error err = { 0 };
    ck_assert_int_eq(smsim_write_file(path, print_hello, "k = v\n# c\nx=  y z \n", &err), SMSIM_OK);
    smsim_kvfile *kf = NULL;
    char *k, *v;
    ck_assert_int_eq(smsim_kvfile_open(&kf, path, "test file", SMSIM_ERR_FORMAT, &err), SMSIM_OK);
    ck_assert_int_eq(smsim_kvfile_next(kf, &k, &v, &err), 1);
    ck_assert_str_eq(k, "k");
    ck_assert_str_eq(v, "v");
    ck_assert_int_eq(smsim_kvfile_next(kf, &k, &v, &err), 1);
    ck_assert_str_eq(k, "x");
    ck_assert_str_eq(v, "y z");
    ck_assert_ptr_nonnull(strstr(smsim_kvfile_where(kf), "a.txt:3"));
    ck_assert_int_eq(smsim_kvfile_next(kf, &k, &v, &err), 0);
    smsim_kvfile_close(kf);

    /* an aborted file leaves the old contents; a committed one replaces them */
    smsim_outfile *of = NULL;
    ck_assert_int_eq(smsim_outfile_open(&of, path, &err), SMSIM_OK);
    fputs("half", smsim_outfile_stream(of));
    smsim_outfile_abort(of);
    size_t n;
    char *got = slurp(path, &n);
    ck_assert_uint_eq(n, strlen("k = v\n# c\nx=  y z \n"));
    free(got);
    ck_assert_int_eq(smsim_outfile_open(&of, path, &err), SMSIM_OK);
    fputs("whole\n", smsim_outfile_stream(of));
    ck_assert_int_eq(smsim_outfile_commit(of, &err), SMSIM_OK);
    got = slurp(path, &n);
    ck_assert_uint_eq(n, 6);
    ck_assert(memcmp(got, "whole\n", 6) == 0);
    free(got);
    ck_assert_int_eq(smsim_kvfile_open(&kf, "/nonexistent/x", "test file", SMSIM_ERR_FORMAT,
                                       &err), SMSIM_ERR_IO);
    ck_assert_ptr_null(kf);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* smsim_tensor_map_encode: the driver's rules (tiled and im2col), and the
 * 128 bytes the executor reads (smsim's encoding starts "SMTMAP01"). */
START_TEST(test_tensor_map_encode)
{
    struct smsim_tensor_map m;
    memset(&m, 0, sizeof m);
    m.type = 7;                  /* CU_TENSOR_MAP_DATA_TYPE_FLOAT32 */
    m.rank = 2;
    m.address = 0x10000;
    m.dims[0] = 100, m.dims[1] = 70;
    m.strides[0] = 400;
    m.box[0] = 32, m.box[1] = 32;
    m.elem_strides[0] = m.elem_strides[1] = 1;
    unsigned char out[128];
    smsim_error err = { 0 };
    ck_assert_int_eq(smsim_tensor_map_encode(&m, out, &err), SMSIM_OK);
    ck_assert(memcmp(out, "SMTMAP01", 8) == 0);
    m.strides[0] = 404;          /* no multiple of 16 */
    ck_assert_int_eq(smsim_tensor_map_encode(&m, out, &err), SMSIM_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "multiples of 16") != NULL, "%s", err.msg);
    m.strides[0] = 400;
    m.box[0] = 300;              /* a box dimension above 256 */
    ck_assert_int_eq(smsim_tensor_map_encode(&m, out, &err), SMSIM_ERR_FORMAT);
    /* a stride of 0 (a multiple of 16) for a dimension of one: CUTLASS's
     * batch of one (its SM90 GEMMs' rank-3 maps, globalStrides (.., 0)) */
    m.box[0] = 32;
    m.rank = 3;
    m.dims[2] = 1;
    m.strides[1] = 0;
    m.box[2] = 1;
    m.elem_strides[2] = 1;
    ck_assert_int_eq(smsim_tensor_map_encode(&m, out, &err), SMSIM_OK);
    /* im2col: NHWC f16 C=8 W=5 H=4 N=2, a 3x3 filter's padding-1 box */
    memset(&m, 0, sizeof m);
    m.type = 6, m.rank = 4, m.address = 0x20000, m.im2col = true;
    m.dims[0] = 8, m.dims[1] = 5, m.dims[2] = 4, m.dims[3] = 2;
    m.strides[0] = 16, m.strides[1] = 80, m.strides[2] = 320;
    for (int d = 0; d < 4; d++)
        m.elem_strides[d] = 1;
    m.lower[0] = m.lower[1] = m.upper[0] = m.upper[1] = -1;
    m.channels = 8, m.pixels = 16;
    ck_assert_int_eq(smsim_tensor_map_encode(&m, out, &err), SMSIM_OK);
    m.lower[0] = -200;           /* rank 4: corners -128 .. 127 */
    ck_assert_int_eq(smsim_tensor_map_encode(&m, out, &err), SMSIM_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "Im2col") != NULL, "%s", err.msg);
}
END_TEST

static Suite *
smsim_suite(void)
{
    Suite *s = suite_create("smsim");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_run_equals_emulate);
    tcase_add_test(tc, test_sampled_run);
    tcase_add_test(tc, test_threads_and_watch);
    tcase_add_test(tc, test_windows);
    tcase_add_test(tc, test_replay);
    tcase_add_test(tc, test_address_reuse);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_config_fields);
    tcase_add_test(tc, test_files);
    tcase_add_test(tc, test_program);
    tcase_add_test(tc, test_zero_copy);
    tcase_add_test(tc, test_param_through_register);
    tcase_add_test(tc, test_tensor_map_encode);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* the source tree's configs, as the other suites use them */
    setenv("SMSIM_CONFIG_DIR", SMSIM_SRCDIR "/configs", 0);
    SRunner *sr = srunner_create(smsim_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
