/*
 * check_kernels.c - every kernel of the suite, executed by the PTX frontend,
 * against a C reference computed from the same inputs.
 *
 * Each test opens traces/<name>.launch, runs it functionally
 * (record_emulate), re-reads the launch file for pristine inputs, computes
 * the expected outputs in C and compares: exactly for integer results,
 * within a relative tolerance for floating-point ones (nvcc contracts
 * multiply-adds into fma, so the last bits may differ from C).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/exec/ptx_half.h"
#include "frontend/exec/ptx_lanes.h"
#include "frontend/record.h"
#include "testlib.h"

struct run {
    struct inst_source src;
    const struct launch *out;    /* buffers after the run */
    struct launch *in;           /* pristine inputs */
    uint64_t warp_insts;
};

static void
run_kernel(const char *name, struct run *r)
{
    char path[1024];
    const char *srcdir = getenv("srcdir");
    struct sim_error err = { 0 };
    struct record_totals tot;
    snprintf(path, sizeof path, "%s/traces/%s.launch", srcdir ? srcdir : ".", name);
    ck_assert_msg(ptx_source_open(path, &r->src, &err) == SIM_OK, "%s", err.msg);
    ck_assert_msg(record_emulate(&r->src, &tot, &err) == SIM_OK, "%s", err.msg);
    r->warp_insts = tot.warp_insts;
    r->out = ptx_source_launch(&r->src);
    ck_assert_msg(launch_parse(path, &r->in, &err) == SIM_OK, "%s", err.msg);
}

static void
run_free(struct run *r)
{
    launch_free(r->in);
    inst_source_destroy(&r->src);
}

static const void *
buf(const struct launch *l, const char *name)
{
    int i = launch_find_arg(l, name);
    ck_assert_msg(i >= 0 && l->args[i].buffer, "no buffer %s", name);
    return l->args[i].data;
}

static double
scalar(const struct launch *l, const char *name)
{
    int i = launch_find_arg(l, name);
    ck_assert_msg(i >= 0 && !l->args[i].buffer, "no scalar %s", name);
    const struct launch_arg *a = &l->args[i];
    if (a->type == LT_F32) {
        float f;
        memcpy(&f, &a->value, 4);
        return f;
    }
    int32_t v;
    memcpy(&v, &a->value, 4);
    return v;
}

static void
expect_close_f32(const char *what, const float *got, const float *want, size_t n, double tol)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (!(d <= tol * fmax(1.0, fabs((double)want[i])))) {
            if (bad++ == 0)
                first = i;
        }
    }
    ck_assert_msg(bad == 0, "%s: %zu of %zu values differ; first [%zu] = %.9g, expected %.9g",
                  what, bad, n, first, (double)got[first], (double)want[first]);
}

/* ---- vecadd ------------------------------------------------------------ */

START_TEST(test_vecadd)
{
    struct run r;
    run_kernel("vecadd", &r);
    const float *a = buf(r.in, "a"), *b = buf(r.in, "b"), *c = buf(r.out, "c");
    int n = (int)scalar(r.in, "n");
    float *want = malloc((size_t)n * sizeof *want);
    for (int i = 0; i < n; i++)
        want[i] = a[i] + b[i];
    expect_close_f32("vecadd c", c, want, (size_t)n, 0.0);
    free(want);
    run_free(&r);
}
END_TEST

/* ---- reduce ------------------------------------------------------------- */

START_TEST(test_reduce)
{
    struct run r;
    run_kernel("reduce", &r);
    const float *in = buf(r.in, "in"), *out = buf(r.out, "out");
    double sum = 0;
    for (size_t i = 0; i < 1048576; i++)
        sum += in[i];
    float want = (float)sum;
    expect_close_f32("reduce out", out, &want, 1, 1e-5);
    run_free(&r);
}
END_TEST

/* ---- divergent ------------------------------------------------------------ */

START_TEST(test_divergent)
{
    struct run r;
    run_kernel("divergent", &r);
    const uint32_t *x = buf(r.in, "x"), *steps = buf(r.out, "steps"), *digits = buf(r.out, "digits");
    int n = (int)scalar(r.in, "n");
    for (int i = 0; i < n; i++) {
        uint32_t v = x[i], s = 0, d = 0;
        if (v & 1) {
            uint64_t c = v;
            while (c != 1 && s < 1000) {
                c = (c & 1) ? 3 * c + 1 : c / 2;
                s++;
            }
        } else {
            for (int b = 0; b < 4; b++) {
                if ((v >> b) & 1)
                    continue;
                for (uint32_t w = v >> b; w != 0; w /= 10)
                    d += w % 10;
            }
            s = d & 7;
        }
        ck_assert_msg(steps[i] == s && digits[i] == d, "element %d: got %u/%u, expected %u/%u", i,
                      steps[i], digits[i], s, d);
    }
    run_free(&r);
}
END_TEST

/* ---- hotspot ------------------------------------------------------------ */

#define HS 16

static bool
in_range(int x, int lo, int hi)
{
    return x >= lo && x <= hi;
}

/* The seed-001 kernels run twice: the project's own PTX (nvcc 13, sm_75)
 * and the report's nvcc 7.5 / sm_30 listing reconstructed in
 * validation/seed-ptx/; both must give the reference's results. */
static const char *const seed_kernel[][2] = {
    { "hotspot", "../validation/seed-ptx/hotspot" },
    { "knn", "../validation/seed-ptx/knn" },
    { "mm", "../validation/seed-ptx/mm" },
};

START_TEST(test_hotspot)
{
    struct run r;
    run_kernel(seed_kernel[0][_i], &r);
    const float *power = buf(r.in, "power"), *src = buf(r.in, "temp_src");
    const float *dst = buf(r.out, "temp_dst");
    int iteration = (int)scalar(r.in, "iteration");
    int cols = (int)scalar(r.in, "grid_cols"), rows = (int)scalar(r.in, "grid_rows");
    int bcols = (int)scalar(r.in, "border_cols"), brows = (int)scalar(r.in, "border_rows");
    float cap = (float)scalar(r.in, "cap"), rx = (float)scalar(r.in, "rx");
    float ry = (float)scalar(r.in, "ry"), rz = (float)scalar(r.in, "rz");
    float step = (float)scalar(r.in, "step");
    float *want = calloc((size_t)rows * cols, sizeof *want);
    float sdc = step / cap, rx1 = 1 / rx, ry1 = 1 / ry, rz1 = 1 / rz;
    const float amb = 80.0f;
    int nb_x = (int)r.in->grid[0], nb_y = (int)r.in->grid[1];
    for (int by = 0; by < nb_y; by++) {
        for (int bx = 0; bx < nb_x; bx++) {
            float t[HS][HS] = { { 0 } }, p[HS][HS] = { { 0 } }, tt[HS][HS] = { { 0 } };
            bool comp[HS][HS] = { { false } };
            int sr = HS - iteration * 2, sc = HS - iteration * 2;
            int by0 = sr * by - brows, bx0 = sc * bx - bcols;
            int bymax = by0 + HS - 1, bxmax = bx0 + HS - 1;
            for (int ty = 0; ty < HS; ty++)
                for (int tx = 0; tx < HS; tx++) {
                    int y = by0 + ty, x = bx0 + tx;
                    if (in_range(y, 0, rows - 1) && in_range(x, 0, cols - 1)) {
                        t[ty][tx] = src[y * cols + x];
                        p[ty][tx] = power[y * cols + x];
                    }
                }
            int vymin = by0 < 0 ? -by0 : 0;
            int vymax = bymax > rows - 1 ? HS - 1 - (bymax - rows + 1) : HS - 1;
            int vxmin = bx0 < 0 ? -bx0 : 0;
            int vxmax = bxmax > cols - 1 ? HS - 1 - (bxmax - cols + 1) : HS - 1;
            for (int i = 0; i < iteration; i++) {
                for (int ty = 0; ty < HS; ty++)
                    for (int tx = 0; tx < HS; tx++) {
                        comp[ty][tx] = false;
                        if (in_range(tx, i + 1, HS - i - 2) && in_range(ty, i + 1, HS - i - 2) &&
                            in_range(tx, vxmin, vxmax) && in_range(ty, vymin, vymax)) {
                            int n = ty - 1 < vymin ? vymin : ty - 1;
                            int s = ty + 1 > vymax ? vymax : ty + 1;
                            int w = tx - 1 < vxmin ? vxmin : tx - 1;
                            int e = tx + 1 > vxmax ? vxmax : tx + 1;
                            float c = t[ty][tx];
                            comp[ty][tx] = true;
                            tt[ty][tx] = (float)(c + sdc * (p[ty][tx] +
                                         (t[s][tx] + t[n][tx] - 2.0 * c) * ry1 +
                                         (t[ty][e] + t[ty][w] - 2.0 * c) * rx1 + (amb - c) * rz1));
                        }
                    }
                if (i == iteration - 1)
                    break;
                for (int ty = 0; ty < HS; ty++)
                    for (int tx = 0; tx < HS; tx++)
                        if (comp[ty][tx])
                            t[ty][tx] = tt[ty][tx];
            }
            for (int ty = 0; ty < HS; ty++)
                for (int tx = 0; tx < HS; tx++)
                    if (comp[ty][tx])
                        want[(by0 + ty) * cols + bx0 + tx] = tt[ty][tx];
        }
    }
    expect_close_f32("hotspot temp_dst", dst, want, (size_t)rows * cols, 1e-6);
    free(want);
    run_free(&r);
}
END_TEST

/* ---- knn ------------------------------------------------------------------ */

START_TEST(test_knn)
{
    struct run r;
    run_kernel(seed_kernel[1][_i], &r);
    const float *loc = buf(r.in, "locations"), *dist = buf(r.out, "distances");
    int n = (int)scalar(r.in, "num_records");
    float lat = (float)scalar(r.in, "lat"), lng = (float)scalar(r.in, "lng");
    float *want = malloc((size_t)n * sizeof *want);
    for (int i = 0; i < n; i++) {
        float a = lat - loc[2 * i], b = lng - loc[2 * i + 1];
        want[i] = sqrtf(a * a + b * b);
    }
    expect_close_f32("knn distances", dist, want, (size_t)n, 1e-6);
    free(want);
    run_free(&r);
}
END_TEST

/* ---- mm ------------------------------------------------------------------- */

START_TEST(test_mm)
{
    struct run r;
    run_kernel(seed_kernel[2][_i], &r);
    const float *a = buf(r.in, "a"), *b = buf(r.in, "b"), *c = buf(r.out, "c");
    int wa = (int)scalar(r.in, "wa"), wb = (int)scalar(r.in, "wb");
    int ha = (int)r.in->grid[1] * 32;
    float *want = malloc((size_t)ha * wb * sizeof *want);
    for (int i = 0; i < ha; i++)
        for (int j = 0; j < wb; j++) {
            float s = 0;
            for (int k = 0; k < wa; k++)
                s = fmaf(a[i * wa + k], b[k * wb + j], s);
            want[i * wb + j] = s;
        }
    expect_close_f32("mm c", c, want, (size_t)ha * wb, 1e-5);
    free(want);
    run_free(&r);
}
END_TEST

/* ---- ftest ----------------------------------------------------------------- */

START_TEST(test_ftest)
{
    struct run r;
    run_kernel("ftest", &r);
    int p = (int)scalar(r.in, "p"), rows = (int)scalar(r.in, "rows");
    int colsx = (int)scalar(r.in, "colsx"), colsy = (int)scalar(r.in, "colsy");
    int rcols = (int)scalar(r.in, "rCols"), ucols = (int)scalar(r.in, "unrCols");
    int od = (int)scalar(r.in, "obsDim"), rcd = (int)scalar(r.in, "rCoeffsDim");
    int ucd = (int)scalar(r.in, "unrCoeffsDim"), rdd = (int)scalar(r.in, "rdataDim");
    int udd = (int)scalar(r.in, "unrdataDim");
    const float *obs = buf(r.in, "obs"), *rc = buf(r.in, "rCoeffs"), *uc = buf(r.in, "unrCoeffs");
    const float *rd = buf(r.in, "rdata"), *ud = buf(r.in, "unrdata");
    const float *got = buf(r.out, "dfStats");
    float want[25];
    ck_assert_int_le(colsx * colsy, 25);
    for (int i = 0; i < colsy; i++)
        for (int j = 0; j < colsx; j++) {
            int idx = i * colsx + j;
            if (i == j) {
                want[idx] = 0;
                continue;
            }
            float rr = 0, ru = 0;
            for (int k = 0; k < rows; k++) {
                float er = 0, eu = 0, y = obs[idx * od + k];
                for (int m = 0; m < rcols; m++)
                    er = fmaf(rc[i * rcd + m], rd[i * rdd + k * rcols + m], er);
                for (int m = 0; m < ucols; m++)
                    eu = fmaf(uc[idx * ucd + m], ud[idx * udd + k * ucols + m], eu);
                rr = fmaf(y - er, y - er, rr);
                ru = fmaf(y - eu, y - eu, ru);
            }
            float f = ((rr - ru) * ((float)rows - 2.0f * (float)p - 1.0f)) / ((float)p * ru);
            want[idx] = isfinite(f) ? f : 0.0f;
        }
    expect_close_f32("ftest dfStats", got, want, (size_t)(colsx * colsy), 1e-4);
    run_free(&r);
}
END_TEST

/* ---- tensor cores, ldmatrix, cp.async (traces/tensor) --------------------- */

/* The inputs tensor.cu generates (small integers: every product and sum is
 * exact in each type). */
static int tval_a(int i, int k) { return (i * 3 + k * 5) % 7 - 3; }
static int tval_b(int k, int j) { return (k * 2 + j * 3) % 5 - 2; }
static int tval_c(int i, int j) { return (i + 2 * j) % 9 - 4; }

/* D = A B + C over M x N x K with A and B transformed by fa and fb
 * (int8 wrapping, scaling) and C scaled: as int64. */
static int64_t
tensor_ref(int i, int j, int K, int (*fa)(int), int (*fb)(int), int64_t cscale)
{
    int64_t s = (int64_t)tval_c(i, j) * cscale;
    s = (int64_t)(int32_t)(uint32_t)s;           /* C is an s32 register */
    for (int k = 0; k < K; k++)
        s += (int64_t)fa(tval_a(i, k)) * fb(tval_b(k, j));
    return s;
}

static int t_ident(int v) { return v; }
static int t_u8(int v) { return v < 0 ? 0 : v; }   /* (unsigned char)(float)v: cvt saturates */
static int t_s8x30(int v) { return (int8_t)(uint8_t)((v * 30) & 0xff); }
static int t_s8x50(int v) { return (int8_t)(uint8_t)((v * 50) & 0xff); }
static int t_u8p200(int v) { return (v + 200) & 0xff; }

static double
tensor_out(const struct launch *l, const char *name, int idx, char kind)
{
    const void *d = buf(l, name);
    switch (kind) {
    case 'f': return ((const float *)d)[idx];
    case 'h': return ptx_half_to_float(((const uint16_t *)d)[idx]);
    case 'd': return ((const double *)d)[idx];
    default: return ((const int32_t *)d)[idx];
    }
}

static const struct {
    const char *kernel;
    int m, n, k;
    char out;                    /* f f32, h f16, i s32, d f64 */
    int (*fa)(int), (*fb)(int);
    int64_t cscale;
    bool satfinite;
} tensor_cases[] = {
    { "wmma_f16_16x16x16_rc", 16, 16, 16, 'f', t_ident, t_ident, 1, false },
    { "wmma_f16_16x16x16_cr", 16, 16, 16, 'f', t_ident, t_ident, 1, false },
    { "wmma_f16_32x8x16_rr", 32, 8, 16, 'f', t_ident, t_ident, 1, false },
    { "wmma_f16_8x32x16_cc", 8, 32, 16, 'f', t_ident, t_ident, 1, false },
    { "wmma_f16acc_16x16x16_rc", 16, 16, 16, 'h', t_ident, t_ident, 1, false },
    { "wmma_bf16_16x16x16_rc", 16, 16, 16, 'f', t_ident, t_ident, 1, false },
    { "wmma_bf16_8x32x16_rr", 8, 32, 16, 'f', t_ident, t_ident, 1, false },
    { "wmma_s8_16x16x16_rc", 16, 16, 16, 'i', t_ident, t_ident, 1, false },
    { "wmma_u8_32x8x16_rr", 32, 8, 16, 'i', t_u8, t_u8, 1, false },
    { "wmma_tf32_16x16x8_rc", 16, 16, 8, 'f', t_ident, t_ident, 1, false },
    { "wmma_f64_8x8x4_rc", 8, 8, 4, 'd', t_ident, t_ident, 1, false },
    { "mma_f16_16816", 16, 8, 16, 'f', t_ident, t_ident, 1, false },
    { "mma_f16acc_16816", 16, 8, 16, 'h', t_ident, t_ident, 1, false },
    { "mma_bf16_1688", 16, 8, 8, 'f', t_ident, t_ident, 1, false },
    { "mma_tf32_1684", 16, 8, 4, 'f', t_ident, t_ident, 1, false },
    { "mma_s8_16832", 16, 8, 32, 'i', t_s8x30, t_s8x50, 100000000, true },
    { "mma_u8s8_16816", 16, 8, 16, 'i', t_u8p200, t_ident, 1, false },
    { "mma_f64_884", 8, 8, 4, 'd', t_ident, t_ident, 1, false },
    { "mma_f64_1688", 16, 8, 8, 'd', t_ident, t_ident, 1, false },
};

/* Each tensor kernel's D (row-major) against the plain product. */
START_TEST(test_tensor_forms)
{
    struct run r;
    char name[128];
    snprintf(name, sizeof name, "tensor/%s", tensor_cases[_i].kernel);
    run_kernel(name, &r);
    const char *kern = tensor_cases[_i].kernel;
    int M = tensor_cases[_i].m, N = tensor_cases[_i].n, K = tensor_cases[_i].k;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int64_t want = tensor_ref(i, j, K, tensor_cases[_i].fa, tensor_cases[_i].fb,
                                      tensor_cases[_i].cscale);
            if (tensor_cases[_i].satfinite)
                want = want > INT32_MAX ? INT32_MAX : want < INT32_MIN ? INT32_MIN : want;
            double got = tensor_out(r.out, "d", i * N + j, tensor_cases[_i].out);
            ck_assert_msg(got == (double)want, "%s: d[%d][%d] = %.17g, expected %lld", kern, i,
                          j, got, (long long)want);
        }
    run_free(&r);
}
END_TEST

/* ldmatrix x4 and x4.trans of a 16 x 16 tile holding its element indices,
 * lanes 8q..8q+7 giving matrix q's rows (tensor.cu), x1, and stmatrix.trans
 * of the x4 registers: each 8 x 8 block transposed in place. */
START_TEST(test_tensor_ldmatrix)
{
    struct run r;
    run_kernel("tensor/ldsm", &r);
    const uint16_t *o = buf(r.out, "out"), *back = buf(r.out, "back");
    for (int lane = 0; lane < 32; lane++) {
        for (int q = 0; q < 4; q++)
            for (int j = 0; j < 2; j++) {
                for (int tr = 0; tr < 2; tr++) {
                    int row = tr ? 2 * (lane & 3) + j : lane >> 2;
                    int col = tr ? lane >> 2 : 2 * (lane & 3) + j;
                    int src = 8 * q + row;                   /* the lane that gave the row */
                    int rr = (src & 7) + 8 * ((src >> 3) & 1), cc = 8 * (src >> 4);
                    ck_assert_int_eq(o[lane * 16 + 8 * tr + 2 * q + j], rr * 16 + cc + col);
                }
            }
        ck_assert_int_eq(o[512 + lane], (lane >> 2) * 16 + 2 * (lane & 3) + 1);
    }
    for (int q = 0; q < 4; q++) {
        int r0 = 8 * (q & 1), c0 = 8 * (q >> 1);
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                ck_assert_int_eq(back[(r0 + i) * 16 + c0 + j], (r0 + j) * 16 + c0 + i);
    }
    run_free(&r);
}
END_TEST

/* cp.async in a three-stage pipeline with wait_group 1: each thread's sum
 * of its neighbour's element over the stages. */
START_TEST(test_tensor_cp_async_stages)
{
    struct run r;
    run_kernel("tensor/cp_async_stages", &r);
    const float *src = buf(r.in, "src"), *got = buf(r.out, "out");
    int stages = (int)scalar(r.in, "stages");
    float want[64 * 256];
    for (int b = 0; b < 64; b++)
        for (int t = 0; t < 256; t++) {
            float acc = 0.f;
            for (int s = 0; s < stages; s++)
                acc += src[(size_t)b * stages * 256 + s * 256 + (t + 1) % 256];
            want[b * 256 + t] = acc;
        }
    expect_close_f32("cp_async_stages out", got, want, 64 * 256, 0.0);
    run_free(&r);
}
END_TEST

/* ---- calls: device functions (recursion, frames, pointers) --------------- */

static int
ref_fib(int n)
{
    return n < 2 ? n : ref_fib(n - 1) + ref_fib(n - 2);
}

static int
ref_rsum(int n, int *acc)
{
    if (n == 0)
        return 0;
    int r = ref_rsum(n - 1, acc) + n;
    *acc += r;
    return r;
}

START_TEST(test_calls)
{
    struct run r;
    run_kernel("calls", &r);
    const int32_t *in = buf(r.in, "in"), *out = buf(r.out, "out");
    const uint64_t *wide = buf(r.out, "wide");
    const float *fout = buf(r.out, "fout");
    int n = (int)scalar(r.in, "n");
    float *want = calloc((size_t)n * 2, sizeof *want), *got = calloc((size_t)n * 2, sizeof *got);
    for (int t = 0; t < n; t++) {
        int v = in[t], acc = 0;
        uint64_t f = 1;
        for (unsigned k = 2; k <= (unsigned)(v & 31); k++)
            f *= k;
        int rs = ref_rsum(v & 7, &acc);
        int fp = ((v & 1) ? 2 * v : -v) + ((t & 1) ? -t : 2 * t);
        int outer = (t & 1) ? (v * 3 + 1) + ((v + 1) * 3 + 1) : 0;
        ck_assert_msg(out[t * 8] == ref_fib(v & 7) && wide[t] == f && out[t * 8 + 1] == outer &&
                      out[t * 8 + 2] == rs && out[t * 8 + 3] == acc && out[t * 8 + 4] == fp,
                      "thread %d (v = %d): fib %d, fact %llu, outer %d, rsum %d/%d, pointers %d", t,
                      v, out[t * 8], (unsigned long long)wide[t], out[t * 8 + 1], out[t * 8 + 2],
                      out[t * 8 + 3], out[t * 8 + 4]);
        ck_assert_int_eq(out[t * 8 + 5], 0);
        want[2 * t] = fmaf((float)v, 1.25f, 0.5f * (float)v) + (float)t - (float)((v & 7) * 3);
        want[2 * t + 1] = (float)t + 2.0f * (float)t;
        got[2 * t] = fout[2 * t];
        got[2 * t + 1] = fout[2 * t + 1];
    }
    for (int t = n; t < 384; t++)     /* threads past n return before any call */
        ck_assert_msg(out[t * 8] == 0 && wide[t] == 0, "thread %d wrote", t);
    expect_close_f32("calls fout", got, want, (size_t)n * 2, 1e-6);
    free(want);
    free(got);
    run_free(&r);
}
END_TEST

static Suite *
kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_vecadd);
    tcase_add_test(tc, test_reduce);
    tcase_add_test(tc, test_divergent);
    tcase_add_loop_test(tc, test_hotspot, 0, 2);
    tcase_add_loop_test(tc, test_knn, 0, 2);
    tcase_add_loop_test(tc, test_mm, 0, 2);
    tcase_add_test(tc, test_ftest);
    tcase_add_loop_test(tc, test_tensor_forms, 0, (int)SIM_ARRAY_LEN(tensor_cases));
    tcase_add_test(tc, test_tensor_ldmatrix);
    tcase_add_test(tc, test_tensor_cp_async_stages);
    tcase_add_test(tc, test_calls);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(kernels_suite)
