/*
 * check_ptx_wgmma.c - wgmma.mma_async (frontend/exec/ptx_wgmma.c) against
 * a C reference of the PTX ISA's definition (9.7.15): every input type and
 * accumulator, shapes from n8 to n256, A from shared memory or registers,
 * the four descriptor layouts (no swizzle, 32-, 64-, 128-byte swizzles)
 * K-major and (f16, bf16) MN-major, scale-d, negation, .satfinite; each
 * kernel emulated and, for some, timed, which must write the same bytes;
 * the group registers the model waits on; and the errors of wrong forms.
 *
 * The reference builds the shared-memory image from the canonical layouts
 * written as CuTe layouts (shape, stride) per the PTX ISA's "Shared Memory
 * Matrix Layout" table, evaluated by a generic layout function, not from
 * the closed forms of ptx_wgmma.c; the register fragments from the ISA's
 * figures (row/column per register and lane).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "sim/sim.h"
#include "testlib.h"

enum ty { F16, BF16, TF32, E4M3, E5M2, S8, U8, F32, S32 };
static const char *const ty_name[] = { "f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "f32",
                                       "s32" };

static unsigned
es_of(int t)                     /* bytes per element */
{
    return t == F16 || t == BF16 ? 2 : t == TF32 || t == F32 || t == S32 ? 4 : 1;
}

/* ---- element encodings of small values ------------------------------------ */

static uint32_t
f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* v (a multiple of 1/4 with |v| < 2048) as binary16 bits: exact. */
static uint16_t
f16_bits(double v)
{
    if (v == 0)
        return 0;
    uint16_t s = v < 0 ? 0x8000 : 0;
    double a = fabs(v);
    int e;
    double m = frexp(a, &e);     /* a = m 2^e, m in [0.5, 1) */
    return (uint16_t)(s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024));
}

/* Encoding of value v (from the small set the tests use) in type t. */
static uint32_t
encode(int t, double v, uint32_t noise)
{
    switch (t) {
    case F16: return f16_bits(v);
    case BF16: return f32_bits((float)v) >> 16;
    case TF32: return f32_bits((float)v) | (noise & 0x1fffu);   /* low bits the core ignores */
    case E4M3: case E5M2: {
        double a = fabs(v);
        uint8_t m = (uint8_t)(a == 0 ? 0 : a == 0.5 ? (t == E4M3 ? 0x30 : 0x38)
                              : a == 1 ? (t == E4M3 ? 0x38 : 0x3c) : 0x40);
        return (uint32_t)(m | (v < 0 ? 0x80u : 0));
    }
    default: return (uint32_t)(int32_t)v & 0xffu;
    }
}

/* The value of element i of the test matrices: small and exact everywhere. */
static double
value(int t, uint32_t seed, unsigned i)
{
    uint32_t h = (i + 1) * 2654435761u ^ seed * 40503u;
    h ^= h >> 13;
    if (t == S8)
        return (int)(h % 9) - 4;
    if (t == U8)
        return h % 7;
    if (t == E4M3 || t == E5M2) {
        static const double v[] = { -2, -1, -0.5, 0, 0.5, 1, 2 };
        return v[h % 7];
    }
    return (int)(h % 5) - 2;
}

/* ---- the canonical layouts as CuTe layouts ---------------------------------- */

/* A mode of a layout: coordinate x splits into parts of the given sizes
 * (the last one unbounded), each with its stride in bytes. */
struct mode {
    unsigned n;
    unsigned size[3];
    uint32_t stride[3];
};

static uint32_t
eval(const struct mode *m, unsigned x)
{
    uint32_t off = 0;
    for (unsigned i = 0; i < m->n; i++) {
        unsigned c = i + 1 < m->n ? x % m->size[i] : x;
        off += c * m->stride[i];
        x /= i + 1 < m->n ? m->size[i] : 1;
    }
    return off;
}

/* The PTX ISA's table, in bytes, for elements of es bytes (T = 16 / es per
 * 16-byte chunk), swizzle width w chunks (1: none): coordinate (i, k) of
 * an operand -> the offset before the swizzle. */
static uint32_t
layout(bool mn_major, unsigned w, unsigned es, uint32_t lbo, uint32_t sbo, unsigned i, unsigned k)
{
    unsigned t = 16 / es;
    struct mode mi, mk;
    if (!mn_major) {
        /* ((8, m), (T, 2k)) : ((W T, SBO), (1, LBO | T)) in elements */
        mi = (struct mode){ 2, { 8, 0, 0 }, { 16 * w, sbo, 0 } };
        mk = (struct mode){ 2, { t, 0, 0 }, { es, w == 1 ? lbo : 16, 0 } };
    } else if (w == 1) {
        /* ((T, 1, m), (8, k)) : ((1, T, SBO), (T, LBO)) */
        mi = (struct mode){ 2, { t, 0, 0 }, { es, sbo, 0 } };
        mk = (struct mode){ 2, { 8, 0, 0 }, { 16, lbo, 0 } };
    } else {
        /* ((T, W, m), (8, k)) : ((1, T, LBO), (W T, SBO)) */
        mi = (struct mode){ 3, { t, w, 0 }, { es, 16, lbo } };
        mk = (struct mode){ 2, { 8, 0, 0 }, { 16 * w, sbo, 0 } };
    }
    return eval(&mi, i) + eval(&mk, k);
}

/* Swizzle<B, 4, 3> of a shared address (B = log2 w). */
static uint32_t
swizzle(uint32_t a, unsigned w)
{
    unsigned b = w == 8 ? 3 : w == 4 ? 2 : w == 2 ? 1 : 0;
    return a ^ (((a >> 7) & ((1u << b) - 1)) << 4);
}

static uint64_t
descriptor(uint32_t start, uint32_t lbo, uint32_t sbo, unsigned w)
{
    uint64_t mode = w == 8 ? 1 : w == 4 ? 2 : w == 2 ? 3 : 0;
    return (uint64_t)(start >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
           mode << 62;
}

/* ---- one case ------------------------------------------------------------------- */

struct wcase {
    int atype, btype, dtype;
    unsigned n;
    bool a_regs;
    unsigned swz;                /* chunks: 1 (none), 2, 4, 8 */
    bool trans_a, trans_b;
    bool scale_d;                /* accumulate into C */
    bool neg_a, neg_b;
    bool satfinite;
    bool timed;                  /* also run on the model: the same bytes */
    bool big_c;                  /* s32: C near INT32_MAX, so that sums leave the range */
};

#define SMEM 49152u
#define A_AT 0u                  /* A's tile, then B's at B_AT: both 1024-aligned */
#define B_AT 8192u

/* The strides of an operand of `rows` rows (64 for A, N for B). */
static void
strides(const struct wcase *c, bool mn_major, unsigned rows, unsigned es, uint32_t *lbo,
        uint32_t *sbo)
{
    unsigned w = c->swz;
    if (!mn_major && w == 1) {
        *lbo = rows / 8 * 128;   /* both 16-byte K chunks of every row group, then the next */
        *sbo = 128;
    } else if (!mn_major) {
        *lbo = 16;               /* unused */
        *sbo = 8 * 16 * w;
    } else if (w == 1) {
        *sbo = 128;              /* next T rows' core matrix */
        *lbo = rows * es / 16 * 128;   /* next 8 k */
    } else {
        unsigned atom = 16 * w / es;   /* rows per swizzle atom */
        unsigned katoms = 32 / es / 8; /* groups of 8 k */
        *sbo = 8 * 16 * w;
        *lbo = (rows > atom ? katoms : 1) * *sbo;
    }
}

static void
write_file(const char *name, const void *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", testlib_dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

/* Lines of the kernel; returns their count. */
static size_t
kernel(const struct wcase *c, unsigned nd, char **lines)
{
    size_t n = 0;
#define L(...) do { lines[n] = malloc(4096); snprintf(lines[n++], 4096, __VA_ARGS__); } while (0)
    bool f32d = c->dtype == F32;
    unsigned k = 32 / es_of(c->atype);
    L(".version 8.0");
    L(".target sm_90a");
    L(".address_size 64");
    L(".visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3, "
      ".param .u64 p4, .param .u64 p5, .param .u32 p6)");
    L("{");
    L("    .reg .pred %%p<4>;");
    L("    .reg .b32 %%r<300>;");
    L("    .reg .f32 %%f<300>;");
    L("    .reg .b64 %%rd<40>;");
    L("    .shared .align 1024 .b8 sm[%u];", SMEM);
    L("    mov.u32 %%r1, %%tid.x;");
    L("    ld.param.u64 %%rd1, [p0];");       /* out */
    L("    ld.param.u64 %%rd2, [p1];");       /* the shared-memory image */
    L("    ld.param.u64 %%rd3, [p2];");       /* C */
    L("    ld.param.u64 %%rd4, [p3];");       /* A's registers */
    L("    ld.param.u64 %%rd5, [p4];");       /* A's descriptor (start relative to sm) */
    L("    ld.param.u64 %%rd6, [p5];");       /* B's */
    L("    ld.param.u32 %%r2, [p6];");        /* scale-d */
    /* copy the image: thread t copies words t, t + 128, ... */
    L("    mov.u32 %%r3, %%r1;");
    L("    mov.u32 %%r4, sm;");
    L("$copy:");
    L("    mul.wide.u32 %%rd7, %%r3, 4;");
    L("    add.s64 %%rd8, %%rd2, %%rd7;");
    L("    ld.global.u32 %%r5, [%%rd8];");
    L("    shl.b32 %%r6, %%r3, 2;");
    L("    add.s32 %%r7, %%r4, %%r6;");
    L("    st.shared.u32 [%%r7], %%r5;");
    L("    add.s32 %%r3, %%r3, 128;");
    L("    setp.lt.u32 %%p1, %%r3, %u;", SMEM / 4);
    L("    @%%p1 bra $copy;");
    L("    bar.sync 0;");
    /* C, A's registers */
    L("    mul.wide.u32 %%rd9, %%r1, %u;", nd * 4);
    L("    add.s64 %%rd10, %%rd3, %%rd9;");
    L("    add.s64 %%rd11, %%rd1, %%rd9;");
    for (unsigned i = 0; i < nd; i++)
        L("    ld.global.%s %%%s%u, [%%rd10+%u];", f32d ? "f32" : "b32", f32d ? "f" : "r", i + 100,
          4 * i);
    L("    mul.wide.u32 %%rd12, %%r1, 16;");
    L("    add.s64 %%rd13, %%rd4, %%rd12;");
    for (unsigned i = 0; i < 4; i++)
        L("    ld.global.b32 %%r%u, [%%rd13+%u];", 20 + i, 4 * i);
    /* descriptors: the start address field plus sm's address / 16 */
    L("    cvt.u64.u32 %%rd14, %%r4;");
    L("    shr.u64 %%rd14, %%rd14, 4;");
    L("    add.s64 %%rd15, %%rd5, %%rd14;");
    L("    add.s64 %%rd16, %%rd6, %%rd14;");
    L("    setp.ne.b32 %%p2, %%r2, 0;");
    char d[2048] = "{", *p = d + 1;
    for (unsigned i = 0; i < nd; i++)
        p += sprintf(p, "%s%%%s%u", i ? ", " : "", f32d ? "f" : "r", i + 100);
    strcpy(p, "}");
    char tail[64];
    bool half = c->atype == F16 || c->atype == BF16, intg = c->atype == S8 || c->atype == U8;
    if (intg)
        tail[0] = '\0';
    else if (!half)
        snprintf(tail, sizeof tail, ", %d, %d", c->neg_a ? -1 : 1, c->neg_b ? -1 : 1);
    else if (c->a_regs)
        snprintf(tail, sizeof tail, ", %d, %d, %d", c->neg_a ? -1 : 1, c->neg_b ? -1 : 1,
                 c->trans_b);
    else
        snprintf(tail, sizeof tail, ", %d, %d, %d, %d", c->neg_a ? -1 : 1, c->neg_b ? -1 : 1,
                 c->trans_a, c->trans_b);
    L("    wgmma.fence.sync.aligned;");
    L("    wgmma.mma_async.sync.aligned.m64n%uk%u.%s.%s.%s%s %s, %s, %%rd16, %%p2%s;", c->n, k,
      ty_name[c->dtype], ty_name[c->atype], ty_name[c->btype], c->satfinite ? ".satfinite" : "",
      d, c->a_regs ? "{%r20, %r21, %r22, %r23}" : "%rd15", tail);
    L("    wgmma.commit_group.sync.aligned;");
    L("    wgmma.wait_group.sync.aligned 0;");
    for (unsigned i = 0; i < nd; i++)
        L("    st.global.%s [%%rd11+%u], %%%s%u;", f32d ? "f32" : "b32", 4 * i, f32d ? "f" : "r",
          i + 100);
    L("    ret;");
    L("}");
#undef L
    return n;
}

/* Run case c emulated (and timed) and compare with the reference. */
static void
run_case(const struct wcase *c)
{
    unsigned esa = es_of(c->atype), esb = es_of(c->btype), k = 32 / esa, n = c->n;
    unsigned nd = c->dtype == F16 ? n / 4 : n / 2;
    /* the matrices: A 64 x K, B K x N (element (n, k) of the operand) */
    static double A[64][32], B[32][256], C[64][256];
    static uint8_t img[SMEM];
    static uint32_t areg[128][4], cbuf[128 * 128], want[128 * 128];
    memset(img, 0, sizeof img);
    memset(areg, 0, sizeof areg);
    uint32_t la, sa, lb, sb;
    strides(c, c->trans_a, 64, esa, &la, &sa);
    strides(c, c->trans_b, n, esb, &lb, &sb);
    /* K-major swizzled tiles: the slice sits 32 bytes into each row (a
     * k-step: the start address advanced, as CUTLASS does) */
    uint32_t koff = (c->swz > 2 && !c->trans_a) ? 32 : 0, kofb = (c->swz > 2 && !c->trans_b) ? 32 : 0;
    for (unsigned m = 0; m < 64; m++)
        for (unsigned kk = 0; kk < k; kk++) {
            A[m][kk] = value(c->atype, 1, m * 32 + kk);
            uint32_t e = encode(c->atype, A[m][kk], m * 77 + kk);
            uint32_t at = swizzle(A_AT + koff + layout(c->trans_a, c->swz, esa, la, sa, m, kk),
                                  c->swz);
            memcpy(img + at, &e, esa);
            /* the register fragment: warp m / 16, g = m % 8, register
             * (m % 16) / 8 + 2 (kk / (4 e)), lane 4 g + (kk % 4e) / e */
            unsigned e4 = 4 / esa, w = m / 16, g = m % 8;
            unsigned reg = (m % 16) / 8 + 2 * (kk / (4 * e4));
            unsigned lane = 4 * g + (kk % (4 * e4)) / e4, sub = kk % e4;
            areg[32 * w + lane][reg] |= (e & (esa == 4 ? 0xffffffffu : (1u << 8 * esa) - 1))
                                        << (8 * esa * sub);
        }
    for (unsigned j = 0; j < n; j++)
        for (unsigned kk = 0; kk < k; kk++) {
            B[kk][j] = value(c->btype, 2, j * 32 + kk);
            uint32_t e = encode(c->btype, B[kk][j], j * 13 + kk);
            uint32_t at = swizzle(B_AT + kofb + layout(c->trans_b, c->swz, esb, lb, sb, j, kk),
                                  c->swz);
            ck_assert_uint_lt(at + esb, SMEM);
            memcpy(img + at, &e, esb);
        }
    for (unsigned m = 0; m < 64; m++)
        for (unsigned j = 0; j < n; j++)
            C[m][j] = c->big_c ? 2147483647.0 - 40 : value(c->dtype == S32 ? S8 : F16, 3, m * 256 + j) * 8;
    /* D's fragment: register i of thread t (PTX ISA figures for m64nNk*) */
    for (unsigned t = 0; t < 128; t++)
        for (unsigned i = 0; i < nd; i++) {
            uint32_t cw = 0, ww = 0;
            for (unsigned h = 0; h < (c->dtype == F16 ? 2u : 1u); h++) {
                unsigned el = c->dtype == F16 ? 2 * i + h : i;
                unsigned row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((el >> 1) & 1);
                unsigned col = 8 * (el >> 2) + 2 * (t % 4) + (el & 1);
                double s = c->scale_d ? C[row][col] : 0;
                for (unsigned kk = 0; kk < k; kk++)
                    s += (c->neg_a ? -1 : 1) * A[row][kk] * (c->neg_b ? -1 : 1) * B[kk][col];
                if (c->dtype == F16) {
                    cw |= (uint32_t)f16_bits(C[row][col]) << 16 * h;
                    ww |= (uint32_t)f16_bits(s) << 16 * h;
                } else if (c->dtype == F32) {
                    cw = f32_bits((float)C[row][col]);
                    ww = f32_bits((float)s);
                } else {         /* exact in double: |s| < 2^53 */
                    int64_t v = (int64_t)s;
                    if (c->satfinite)
                        v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
                    cw = (uint32_t)(int64_t)C[row][col];
                    ww = (uint32_t)v;    /* without .satfinite: wraps */
                }
            }
            cbuf[t * nd + i] = cw;
            want[t * nd + i] = ww;
        }
    write_file("img.bin", img, sizeof img);
    write_file("c.bin", cbuf, 128 * nd * 4);
    write_file("a.bin", areg, sizeof areg);
    char *lines[512];
    size_t nl = kernel(c, nd, lines);
    testlib_write_lines("k.ptx", (const char *const *)lines, nl, 0, NULL, NULL);
    for (size_t i = 0; i < nl; i++)
        free(lines[i]);
    char l1[96], l2[96], l3[96], l4[96], l5[96], l6[96];
    snprintf(l1, sizeof l1, "arg = out buffer u32 %u zeros", 128 * nd);
    snprintf(l2, sizeof l2, "arg = img buffer u8 %u file img.bin", SMEM);
    snprintf(l3, sizeof l3, "arg = c buffer u32 %u file c.bin", 128 * nd);
    snprintf(l4, sizeof l4, "arg = a buffer u32 512 file a.bin");
    snprintf(l5, sizeof l5, "arg = da u64 %llu",
             (unsigned long long)descriptor(A_AT + koff, la, sa, c->swz));
    snprintf(l6, sizeof l6, "arg = db u64 %llu",
             (unsigned long long)descriptor(B_AT + kofb, lb, sb, c->swz));
    const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 128", l1, l2, l3, l4, l5, l6,
        c->scale_d ? "arg = sd u32 1" : "arg = sd u32 0",
    };
    testlib_write_lines("k.launch", launch, sizeof launch / sizeof launch[0], 0, NULL, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    for (int timed = 0; timed <= (int)c->timed; timed++) {
        struct inst_source src;
        sim *s;
        const struct launch *l = testlib_launch_run(path, timed ? "op.wgmma.interval = 4\n"
                                                    "op.wgmma.latency = 38" : NULL, &src, &s);
        const uint32_t *out = (const uint32_t *)l->args[0].data;
        for (unsigned i = 0; i < 128 * nd; i++)
            ck_assert_msg(out[i] == want[i], "m64n%u %s.%s.%s%s%s swz %u%s%s: thread %u register %u: "
                          "0x%08x, expected 0x%08x (%s)", n, ty_name[c->dtype], ty_name[c->atype],
                          ty_name[c->btype], c->a_regs ? " A in registers" : "",
                          c->trans_a ? " A MN-major" : "", c->swz, c->trans_b ? " B MN-major" : "",
                          c->scale_d ? "" : " scale-d 0", i / nd, i % nd, out[i], want[i],
                          timed ? "run" : "emulate");
        if (s != NULL)
            sim_destroy(s);
        inst_source_destroy(&src);
    }
}

static const struct wcase cases[] = {
    /* every input type and accumulator, A from shared memory, no swizzle */
    { F16, F16, F32, 64, false, 1, false, false, true, false, false, false, true, false },
    { F16, F16, F16, 64, false, 1, false, false, true, false, false, false, false, false },
    { BF16, BF16, F32, 64, false, 1, false, false, true, false, false, false, false, false },
    { TF32, TF32, F32, 64, false, 1, false, false, true, false, false, false, false, false },
    { E4M3, E4M3, F32, 64, false, 1, false, false, true, false, false, false, false, false },
    { E5M2, E4M3, F16, 64, false, 1, false, false, true, false, false, false, false, false },
    { E4M3, E5M2, F32, 64, false, 1, false, false, true, false, false, false, false, false },
    { S8, S8, S32, 64, false, 1, false, false, true, false, false, false, true, false },
    { U8, S8, S32, 64, false, 1, false, false, true, false, false, false, false, false },
    { S8, U8, S32, 24, false, 1, false, false, true, false, false, true, false, false },
    /* shapes */
    { F16, F16, F32, 8, false, 1, false, false, true, false, false, false, false, false },
    { F16, F16, F32, 16, false, 1, false, false, true, false, false, false, false, false },
    { F16, F16, F32, 136, false, 1, false, false, true, false, false, false, false, false },
    { F16, F16, F32, 256, false, 1, false, false, true, false, false, false, true, false },
    { TF32, TF32, F32, 256, false, 8, false, false, true, false, false, false, false, false },
    { S8, S8, S32, 256, false, 8, false, false, true, false, false, false, false, false },
    /* swizzles, K-major */
    { F16, F16, F32, 64, false, 2, false, false, true, false, false, false, false, false },
    { F16, F16, F32, 64, false, 4, false, false, true, false, false, false, false, false },
    { BF16, BF16, F32, 128, false, 8, false, false, true, false, false, false, true, false },
    { E4M3, E4M3, F32, 128, false, 4, false, false, true, false, false, false, false, false },
    /* MN-major (transposed) A and B, f16 and bf16, every layout */
    { F16, F16, F32, 64, false, 1, true, true, true, false, false, false, false, false },
    { F16, F16, F32, 64, false, 2, true, false, true, false, false, false, false, false },
    { BF16, BF16, F32, 128, false, 4, false, true, true, false, false, false, false, false },
    { F16, F16, F32, 256, false, 8, true, true, true, false, false, false, false, false },
    /* A in registers */
    { F16, F16, F32, 64, true, 1, false, false, true, false, false, false, true, false },
    { BF16, BF16, F32, 256, true, 8, false, true, true, false, false, false, false, false },
    { TF32, TF32, F32, 32, true, 2, false, false, true, false, false, false, false, false },
    { E4M3, E5M2, F16, 64, true, 1, false, false, true, false, false, false, false, false },
    { S8, S8, S32, 48, true, 1, false, false, true, false, false, false, false, false },
    /* scale-d false, negation */
    { F16, F16, F32, 64, false, 1, false, false, false, false, false, false, false, false },
    { F16, F16, F32, 64, false, 1, false, false, true, true, false, false, false, false },
    { TF32, TF32, F32, 64, false, 1, false, false, false, false, true, false, false, false },
    { E4M3, E4M3, F16, 64, true, 1, false, false, true, true, true, false, false, false },
};

START_TEST(forms)
{
    run_case(&cases[_i]);
}
END_TEST

/* .satfinite: with C near INT32_MAX, sums past the s32 range saturate;
 * without it they wrap (both occur among the 64 x 16 results). */
START_TEST(satfinite_and_wrap)
{
    struct wcase c = { S8, S8, S32, 16, false, 1, false, false, true, false, false, true, true,
                       true };
    run_case(&c);
    c.satfinite = false;
    run_case(&c);
}
END_TEST

/* Wrong forms: each must fail with exit status 2 naming the line. */
static const struct {
    const char *ins;
    const char *frag;
} bad[] = {
    { "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1, %f2}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
      "D needs 32 registers" },
    { "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1, %f2}, %rd1, %rd2, %p1, 1, 1, 0;",
      "takes 8 operands" },
    { "wgmma.mma_async.sync.aligned.m64n64k8.f32.f16.f16 {%f1, %f2}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
      "unsupported form" },
    { "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%f1, %f2}, %rd1, %rd2, %p1, 2, 1;",
      "imm-scale-a must be" },
    { "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r1, %r2}, %rd1, %rd2, %p1;",
      "unsupported form" },
    { "wgmma.wait_group.sync.aligned 9;", "group count 0 .. 7" },
};

START_TEST(wrong_forms)
{
    char ins[512];
    snprintf(ins, sizeof ins, "    %s", bad[_i].ins);
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90a", ".address_size 64",
        ".visible .entry k(.param .u64 p0)", "{", "    .reg .pred %p<4>;", "    .reg .b32 %r<40>;",
        "    .reg .f32 %f<40>;", "    .reg .b64 %rd<8>;", ins, "    ret;", "}",
    };
    const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 128", "arg = out buffer u32 32 zeros",
    };
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, 5, 0, NULL, NULL);
    testlib_expect_error("k.ptx", 10, bad[_i].frag);
}
END_TEST

/* A warpgroup issues a wgmma together: once warp 0's wait_group returns,
 * the program may overwrite the tiles, even while (in the functional
 * execution) warps 1-3 have not executed their part yet: each warp's D
 * must be the product of the tiles as the group read them.  A = B = 1:
 * every element 16; with the overwritten (zero) B it would be 0. */
START_TEST(group_reads_tiles_once)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90a", ".address_size 64",
        ".visible .entry k(.param .u64 p0)", "{",
        "    .reg .pred %p<4>;", "    .reg .b32 %r<40>;", "    .reg .f32 %f<8>;",
        "    .reg .b64 %rd<12>;", "    .shared .align 1024 .b8 sm[4096];",
        "    ld.param.u64 %rd1, [p0];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.u32 %r1, %tid.x;", "    mov.u32 %r2, sm;", "    mov.u32 %r3, %r1;",
        "$fill:",
        "    shl.b32 %r4, %r3, 2;", "    add.s32 %r5, %r2, %r4;",
        "    st.shared.u32 [%r5], 0x3c003c00;",            /* f16 1.0, 1.0 */
        "    add.s32 %r3, %r3, 128;", "    setp.lt.u32 %p1, %r3, 1024;", "    @%p1 bra $fill;",
        "    bar.sync 0;",
        /* A at sm, B at sm + 2048: no swizzle, LBO 128, SBO 256 */
        "    cvt.u64.u32 %rd3, %r2;", "    shr.u64 %rd3, %rd3, 4;",
        "    or.b64 %rd4, %rd3, 0x0000001000080000;",      /* SBO 256 >> 4 = 16, LBO 128 >> 4 = 8 */
        "    add.s64 %rd5, %rd4, 128;",                    /* + 2048 >> 4 */
        "    mov.f32 %f1, 0f00000000;", "    mov.f32 %f2, 0f00000000;",
        "    mov.f32 %f3, 0f00000000;", "    mov.f32 %f4, 0f00000000;",
        "    wgmma.fence.sync.aligned;",
        "    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd4, %rd5, "
        "1, 1, 1, 0, 0;",
        "    wgmma.commit_group.sync.aligned;", "    wgmma.wait_group.sync.aligned 0;",
        /* warp 0 clears B (its 256 bytes) at once */
        "    setp.lt.u32 %p2, %r1, 32;", "    shl.b32 %r6, %r1, 3;", "    add.s32 %r7, %r2, %r6;",
        "    @%p2 st.shared.v2.u32 [%r7+2048], {0, 0};",
        "    bar.sync 0;",
        "    mul.wide.u32 %rd6, %r1, 16;", "    add.s64 %rd7, %rd2, %rd6;",
        "    st.global.v4.f32 [%rd7], {%f1, %f2, %f3, %f4};",
        "    ret;", "}",
    };
    const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 128", "arg = out buffer f32 512 zeros",
    };
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, 5, 0, NULL, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    for (int timed = 0; timed <= 1; timed++) {
        struct inst_source src;
        sim *s;
        const struct launch *l = testlib_launch_run(path, timed ? "op.wgmma.interval = 4" : NULL,
                                                    &src, &s);
        const float *out = (const float *)l->args[0].data;
        for (unsigned i = 0; i < 512; i++)
            ck_assert_msg(out[i] == 16.0f, "thread %u register %u: %g, expected 16 (%s)", i / 4,
                          i % 4, out[i], timed ? "run" : "emulate");
        if (s != NULL)
            sim_destroy(s);
        inst_source_destroy(&src);
    }
}
END_TEST

/* The descriptor's address function at the corners the layouts name
 * (numbers worked out by hand from the PTX ISA's table). */
START_TEST(descriptor_addresses)
{
    /* a 128-byte-swizzled K-major f16 tile at 1024: row 9, k 3 -> row 1 of
     * the second 8-row group (SBO 1024): 1024 + 1024 + 128 + 6, then the
     * chunk bits 4-6 ^= row 1 -> + 16 */
    uint32_t a = 1024 + 1024 + 128 + 6;
    ck_assert_uint_eq(swizzle(a, 8), a ^ 16);
    ck_assert_uint_eq(swizzle(1024 + layout(false, 8, 2, 16, 1024, 9, 3), 8), a ^ 16);
    ck_assert_uint_eq(descriptor(1024, 16, 1024, 8),
                      UINT64_C(1) << 62 | UINT64_C(64) << 32 | UINT64_C(1) << 16 | 64);
    /* no swizzle, K-major, k 9 (second chunk: + LBO), row 10 (+ SBO, row 2) */
    ck_assert_uint_eq(layout(false, 1, 2, 256, 512, 10, 9), 2 * 16 + 512 + 256 + 2);
    /* MN-major, no swizzle: element 10 (chunk 1: + SBO), k 9 (+ LBO, k row 1) */
    ck_assert_uint_eq(layout(true, 1, 2, 1024, 128, 10, 9), 2 * 2 + 128 + 16 + 1024);
}
END_TEST

static Suite *
ptx_wgmma_suite(void)
{
    Suite *s = suite_create("ptx_wgmma");
    TCase *tc = tcase_create("wgmma");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_loop_test(tc, forms, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, satfinite_and_wrap);
    tcase_add_loop_test(tc, wrong_forms, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, descriptor_addresses);
    tcase_add_test(tc, group_reads_tiles_once);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_wgmma_suite)
