/*
 * check_micro.c - every launch file of traces/micro/ (the H100
 * micro-benchmarks of seed 002), executed by the PTX frontend, against a C
 * reference computed from the same inputs.
 *
 * One loop test per launch file: run it functionally (record_emulate),
 * re-read the launch file for pristine inputs, dispatch on the kernel name
 * to a C reference and compare every output buffer the file names:
 *
 *   <op>_ilp<N>        inst_lat.cu: N chains per thread, `iters` steps each,
 *                      out[t] = sum of the chains.  Exact for FADD, FMUL,
 *                      FMA (explicit fmaf), IADD, IMUL, __frcp_rn and
 *                      __fsqrt_rn (IEEE round-to-nearest, as C); relative
 *                      tolerance for __sinf, __logf, __expf (approximate
 *                      on the GPU; the emulator uses the host's sinf,
 *                      log2f, exp2f, the reference sinf, logf, expf).
 *   chase_*            latency.cu: the pointer chase walked in C (exact).
 *   copy_*, l2_copy_*  copy_bw.cu, l2_bw.cu: dst == src bit for bit.
 *   transpose_*        transpose.cu: out[c][r] == in[r][c] bit for bit.
 *
 * `clk` buffers hold clock64() differences, not functional results; only
 * clk[0] > 0 is checked.  A launch file whose kernel has no reference here,
 * or that writes a buffer this test does not compare, fails.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "testlib.h"

#define MAX_FILES 256

static char *files[MAX_FILES];
static int n_files;

static const char *
micro_dir(void)
{
    static char dir[1024];
    const char *srcdir = getenv("srcdir");
    snprintf(dir, sizeof dir, "%s/traces/micro", srcdir ? srcdir : ".");
    return dir;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .launch files of traces/micro, sorted. */
static void
scan_files(void)
{
    DIR *d = opendir(micro_dir());
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n_files < MAX_FILES) {
        size_t len = strlen(e->d_name);
        if (len > 7 && strcmp(e->d_name + len - 7, ".launch") == 0)
            files[n_files++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(files, (size_t)n_files, sizeof *files, cmp_str);
}

struct run {
    struct inst_source src;
    const struct launch *out;    /* buffers after the run */
    struct launch *in;           /* pristine inputs */
    const char *file;
    bool checked[64];            /* per argument: compared against a reference */
};

static void
run_kernel(const char *file, struct run *r)
{
    char path[1200];
    struct sim_error err = { 0 };
    struct record_totals tot;
    memset(r, 0, sizeof *r);
    r->file = file;
    snprintf(path, sizeof path, "%s/%s", micro_dir(), file);
    ck_assert_msg(ptx_source_open(path, &r->src, &err) == SIM_OK, "%s", err.msg);
    ck_assert_msg(record_emulate(&r->src, &tot, &err) == SIM_OK, "%s", err.msg);
    r->out = ptx_source_launch(&r->src);
    ck_assert_msg(launch_parse(path, &r->in, &err) == SIM_OK, "%s", err.msg);
    ck_assert_uint_le(r->in->n_args, 64);
}

static void
run_free(struct run *r)
{
    launch_free(r->in);
    inst_source_destroy(&r->src);
}

static const struct launch_arg *
arg(const struct launch *l, const char *file, const char *name, bool buffer)
{
    int i = launch_find_arg(l, name);
    ck_assert_msg(i >= 0 && l->args[i].buffer == buffer, "%s: no %s %s", file,
                  buffer ? "buffer" : "scalar", name);
    return &l->args[i];
}

/* Input buffer (pristine contents). */
static const void *
in_buf(struct run *r, const char *name)
{
    return arg(r->in, r->file, name, true)->data;
}

/* Output buffer (after the run); marks it compared. */
static const void *
out_buf(struct run *r, const char *name)
{
    const struct launch_arg *a = arg(r->out, r->file, name, true);
    r->checked[a - r->out->args] = true;
    return a->data;
}

static uint64_t
out_count(struct run *r, const char *name)
{
    return arg(r->out, r->file, name, true)->count;
}

static uint64_t
scalar_bits(struct run *r, const char *name)
{
    return arg(r->in, r->file, name, false)->value;
}

static float
scalar_f32(struct run *r, const char *name)
{
    const struct launch_arg *a = arg(r->in, r->file, name, false);
    ck_assert_msg(a->type == LT_F32, "%s: %s is not f32", r->file, name);
    uint32_t bits = (uint32_t)a->value;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static void
expect_close_f32(const char *what, const float *got, const float *want, size_t n, double tol)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        bool ok = tol == 0.0 ? memcmp(&got[i], &want[i], 4) == 0
                             : d <= tol * fmax(1.0, fabs((double)want[i]));
        if (!ok && bad++ == 0)
            first = i;
    }
    ck_assert_msg(bad == 0, "%s: %zu of %zu values differ; first [%zu] = %.9g, expected %.9g",
                  what, bad, n, first, (double)got[first], (double)want[first]);
}

/* ---- inst_lat ------------------------------------------------------------ */

enum op { OP_FADD, OP_FMUL, OP_FMA, OP_IADD, OP_IMUL, OP_FRCP, OP_FSQRT, OP_SINF, OP_LOGF,
          OP_EXPF, OP_COUNT };

static const char *const op_names[OP_COUNT] = {
    "fadd", "fmul", "fma", "iadd", "imul", "frcp", "fsqrt", "sinf", "logf", "expf"
};

/* Kernel "<op>_ilp<N>": op and N, or false. */
static bool
parse_inst_lat(const char *kernel, int *op, int *ilp)
{
    const char *u = strstr(kernel, "_ilp");
    if (u == NULL)
        return false;
    for (int i = 0; i < OP_COUNT; i++)
        if ((size_t)(u - kernel) == strlen(op_names[i]) &&
            strncmp(kernel, op_names[i], strlen(op_names[i])) == 0) {
            *op = i;
            *ilp = atoi(u + 4);
            return *ilp > 0;
        }
    return false;
}

static float
step_f32(int op, float x, float a, float b)
{
    switch (op) {
    case OP_FADD: return x + b;
    case OP_FMUL: return x * b;
    case OP_FMA: return fmaf(x, b, a);
    case OP_FRCP: return 1.0f / x;
    case OP_FSQRT: return sqrtf(x);
    case OP_SINF: return sinf(x);
    case OP_LOGF: return logf(fabsf(x) + 2.0f);
    case OP_EXPF: return expf(x * 1e-5f);
    default: ck_abort_msg("not a float op"); return 0.0f;
    }
}

static void
check_inst_lat(struct run *r, int op, int ilp)
{
    unsigned threads = r->in->block[0];
    int iters = (int)(int32_t)scalar_bits(r, "iters");
    ck_assert_uint_eq(out_count(r, "out"), threads);
    if (op == OP_IADD || op == OP_IMUL) {
        uint32_t a = (uint32_t)scalar_bits(r, "a"), b = (uint32_t)scalar_bits(r, "b");
        const uint32_t *got = out_buf(r, "out");
        for (unsigned t = 0; t < threads; t++) {
            uint32_t s = 0;
            for (int i = 0; i < ilp; i++) {
                uint32_t x = (t * (uint32_t)ilp + (uint32_t)i + 1) * a;
                for (int k = 0; k < iters; k++)
                    x = op == OP_IADD ? x + b : x * b;
                s += x;
            }
            ck_assert_msg(got[t] == s, "%s: out[%u] = %u, expected %u", r->file, t, got[t], s);
        }
        return;
    }
    float a = scalar_f32(r, "a"), b = scalar_f32(r, "b");
    float *want = malloc(threads * sizeof *want);
    for (unsigned t = 0; t < threads; t++) {
        float s = 0.0f;
        for (int i = 0; i < ilp; i++) {
            float x = (float)(t * (unsigned)ilp + (unsigned)i + 1) * a;
            for (int k = 0; k < iters; k++)
                x = step_f32(op, x, a, b);
            s = i == 0 ? x : s + x;
        }
        want[t] = s;
    }
    bool approx = op == OP_SINF || op == OP_LOGF || op == OP_EXPF;
    expect_close_f32(r->file, out_buf(r, "out"), want, threads, approx ? 1e-5 : 0.0);
    free(want);
}

/* ---- latency --------------------------------------------------------------- */

static void
check_chase(struct run *r)
{
    const char *k = r->in->kernel;
    const uint32_t *a = in_buf(r, "a");
    uint64_t count = arg(r->in, r->file, "a", true)->count;
    int steps = (int)(int32_t)scalar_bits(r, "steps");
    int warm = strcmp(k, "chase_l1") == 0 ? (int)(int32_t)scalar_bits(r, "warm") : 0;
    const uint32_t *res = out_buf(r, "res");
    uint32_t j = 0;
    for (int s = 0; s < warm + steps; s++) {
        ck_assert_uint_lt(j, count);
        j = a[j];
    }
    ck_assert_msg(res[0] == j, "%s: final index %u, expected %u", r->file, res[0], j);
    if (strcmp(k, "chase_l2") == 0) {
        uint32_t n = (uint32_t)scalar_bits(r, "n"), stride = (uint32_t)scalar_bits(r, "stride");
        uint32_t sum = 0;
        for (uint32_t i = 0; i < n; i += stride)
            sum += a[i];
        ck_assert_msg(res[1] == sum, "%s: warm-up sum %u, expected %u", r->file, res[1], sum);
    }
}

/* ---- copy_bw / l2_bw ---------------------------------------------------------- */

static void
check_copy(struct run *r)
{
    const char *k = r->in->kernel;
    uint64_t width = strstr(k, "_f4_") != NULL ? 4 : 1;       /* floats per element */
    uint64_t n = scalar_bits(r, "n"), count = out_count(r, "dst");
    ck_assert_uint_le(n * width, count);
    const float *src = in_buf(r, "src");
    const float *dst = out_buf(r, "dst");
    uint64_t bad = 0, first = 0;
    for (uint64_t i = 0; i < count; i++) {
        float want = i < n * width ? src[i] : 0.0f;
        if (memcmp(&dst[i], &want, 4) != 0 && bad++ == 0)
            first = i;
    }
    ck_assert_msg(bad == 0, "%s: %llu of %llu floats differ; first [%llu] = %.9g, expected %.9g",
                  r->file, (unsigned long long)bad, (unsigned long long)count,
                  (unsigned long long)first, (double)dst[first],
                  first < n * width ? (double)src[first] : 0.0);
}

/* ---- transpose ------------------------------------------------------------------ */

static void
check_transpose(struct run *r)
{
    int n = (int)(int32_t)scalar_bits(r, "n");
    ck_assert_int_eq(n % 32, 0);
    ck_assert_uint_eq(r->in->grid[0] * 32, (unsigned)n);
    ck_assert_uint_eq(r->in->grid[1] * 32, (unsigned)n);
    const float *in = in_buf(r, "in");
    const float *out = out_buf(r, "out");
    for (int row = 0; row < n; row++)
        for (int col = 0; col < n; col++)
            ck_assert_msg(memcmp(&out[(size_t)col * n + row], &in[(size_t)row * n + col], 4) == 0,
                          "%s: out[%d][%d] = %.9g, expected in[%d][%d] = %.9g", r->file, col, row,
                          (double)out[(size_t)col * n + row], row, col,
                          (double)in[(size_t)row * n + col]);
}

/* ---- driver ------------------------------------------------------------------------ */

START_TEST(test_launch)
{
    ck_assert_int_lt(_i, n_files);
    struct run r;
    run_kernel(files[_i], &r);
    const char *k = r.in->kernel;
    int op, ilp;
    if (parse_inst_lat(k, &op, &ilp))
        check_inst_lat(&r, op, ilp);
    else if (strncmp(k, "chase_", 6) == 0)
        check_chase(&r);
    else if (strncmp(k, "copy_", 5) == 0 || strncmp(k, "l2_copy_", 8) == 0)
        check_copy(&r);
    else if (strncmp(k, "transpose_", 10) == 0)
        check_transpose(&r);
    else
        ck_abort_msg("%s: no C reference for kernel %s", files[_i], k);

    /* Every output is compared, except the clock buffer (sanity only). */
    for (uint32_t i = 0; i < r.in->n_outputs; i++) {
        uint32_t ai = r.in->outputs[i].arg;
        const char *name = r.in->args[ai].name;
        if (strcmp(name, "clk") == 0) {
            uint64_t c;
            memcpy(&c, r.out->args[ai].data, 8);
            ck_assert_msg(c > 0, "%s: clk[0] is 0", files[_i]);
            continue;
        }
        ck_assert_msg(r.checked[ai], "%s: output %s has no reference", files[_i], name);
    }
    run_free(&r);
}
END_TEST

/* The set is complete: seed 002's 10 operations x 8 ILPs, 4 latency levels,
 * and the copy, L2 and transpose files. */
START_TEST(test_inventory)
{
    int inst = 0, lat = 0, copy = 0, l2 = 0, tr = 0;
    for (int i = 0; i < n_files; i++) {
        inst += strncmp(files[i], "inst_lat_", 9) == 0;
        lat += strncmp(files[i], "latency_", 8) == 0;
        copy += strncmp(files[i], "copy_bw_", 8) == 0;
        l2 += strncmp(files[i], "l2_bw_", 6) == 0;
        tr += strncmp(files[i], "transpose_", 10) == 0;
    }
    ck_assert_int_eq(inst, 80);
    ck_assert_int_eq(lat, 4);
    ck_assert_int_ge(copy, 8);
    ck_assert_int_ge(l2, 2);
    ck_assert_int_ge(tr, 3);
}
END_TEST

static Suite *
micro_suite(void)
{
    scan_files();
    Suite *s = suite_create("micro");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_inventory);
    tcase_add_loop_test(tc, test_launch, 0, n_files);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(micro_suite)
