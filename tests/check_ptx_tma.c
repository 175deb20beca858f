/*
 * check_ptx_tma.c - TMA tensor copies (frontend/exec/ptx_tma.c) and the
 * launch file's tensor maps (frontend/exec/ptx_tmap.c) against a C reference
 * of the PTX ISA (9.7.9.27 cp.async.bulk.tensor) and of
 * cuTensorMapEncodeTiled's definition: boxes of 1 to 5 dimensions,
 * traversal strides, out-of-bounds fill (zero, NaN) on loads and no write
 * on stores, the 32-, 64- and 128-byte swizzles of the shared-memory
 * image; each copy emulated and (some) timed, which must write the same
 * bytes; and the errors of wrong programs and wrong tensor maps.  The
 * im2col copies (PTX ISA 5.5.4, cuTensorMapEncodeIm2col) likewise, against
 * a reference that numbers the pixel box's positions instead of walking
 * them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "sim/sim.h"
#include "testlib.h"

#define SMEM 8192u

struct tcase {
    const char *type;            /* tensormap element type: u32, u16, f32 */
    unsigned es;                 /* its bytes */
    unsigned rank;
    uint64_t dims[5];
    uint32_t box[5];
    uint32_t estr[5];            /* 0: all 1 */
    int32_t c[5];
    unsigned swz;                /* 0 none, 1 32B, 2 64B, 3 128B */
    bool nan;                    /* fill=nan */
    bool store;                  /* shared to global */
    bool timed;
    bool reduce;                 /* a store as cp.reduce.async.bulk.tensor .add */
    int warp;                    /* a store from 0: lane 0, 1: every lane with the same
                                    operands (CUTLASS's epilogues), 2: every lane, each its
                                    own coordinates (unsupported) */
};

/* An im2col map and copy (t.box unused): the pixel box's corners, the
 * copy's offsets (W, H, D), channels per pixel, pixels per column. */
struct icase {
    struct tcase t;
    int16_t lower[3], upper[3], off[3];
    uint16_t cpp, ppc;
};

static uint32_t
swz(uint32_t a, unsigned s)     /* 16-byte chunk bits ^= the 128-byte row's low bits */
{
    uint32_t row = (a / 128) % (1u << s), chunk = (a / 16) % (1u << s);
    return a - chunk * 16 + (chunk ^ row) * 16;
}

static uint64_t
elems(const struct tcase *t)
{
    uint64_t n = 1;
    for (unsigned d = 0; d < t->rank; d++)
        n *= t->dims[d];
    return n;
}

/* The value the tensor holds at linear index i (`seq 0`, wrapped to the type). */
static uint32_t
tval(const struct tcase *t, uint64_t i)
{
    if (t->type[0] == 'f') {
        float f = (float)i;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    return t->es == 2 ? (uint32_t)(i & 0xffff) : (uint32_t)i;
}

static void
write_kernel(const struct tcase *t, uint64_t box_bytes, const struct icase *ic)
{
    char coords[64] = "", cp[512], ins2[512] = "", ins3[128] = "";
    char *p = coords;
    for (unsigned d = 0; d < t->rank; d++)
        p += sprintf(p, "%s%%r%u", d ? ", " : "", 10 + d);
    char offs[96] = "", movs[160] = "";
    if (ic != NULL && !t->store) {   /* the offsets, in .b16 registers */
        char *q = offs + sprintf(offs, ", {");
        char *mv = movs + sprintf(movs, "    .reg .b16 %%rs<4>;\n");
        for (unsigned j = 0; j + 2 < t->rank; j++) {
            q += sprintf(q, "%s%%rs%u", j ? ", " : "", j + 1);
            mv += sprintf(mv, "    mov.b16 %%rs%u, %d;\n", j + 1, ic->off[j]);
        }
        sprintf(q, "}");
    }
    const char *mode = ic == NULL ? "tile" : t->store ? "im2col_no_offs" : "im2col";
    if (!t->store) {
        snprintf(cp, sizeof cp, "    @%%p1 cp.async.bulk.tensor.%ud.shared::cluster.global.%s."
                 "mbarrier::complete_tx::bytes [%%r2], [%%rd4, {%s}], [%%r6]%s;", t->rank, mode,
                 coords, offs);
        char pf[192] = "";       /* an im2col load is prefetched first (no effect) */
        if (ic != NULL)
            snprintf(pf, sizeof pf, "    @%%p1 cp.async.bulk.prefetch.tensor.%ud.L2.global.im2col "
                     "[%%rd4, {%s}]%s;\n", t->rank, coords, offs);
        snprintf(ins2, sizeof ins2, "%s%s    @%%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, "
                 "[%%r6], %llu;", movs, pf, (unsigned long long)box_bytes);
    } else {
        const char *g = t->warp ? "" : "@%p1 ";
        snprintf(cp, sizeof cp, "    %scp%s.async.bulk.tensor.%ud.global.shared::cta.%s."
                 "bulk_group%s [%%rd4, {%s}], [%%r2];", g, t->reduce ? ".reduce" : "", t->rank,
                 mode, t->reduce ? ".add" : "", coords);
        snprintf(ins3, sizeof ins3, "    %scp.async.bulk.commit_group;", g);
        if (t->warp == 2)
            snprintf(ins2, sizeof ins2, "    add.s32 %%r10, %%r10, %%r1;");
    }
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 p_out, .param .align 64 .b8 p_tm[128], .param .u32 c0, "
        ".param .u32 c1, .param .u32 c2, .param .u32 c3, .param .u32 c4)",
        "{",
        "    .reg .pred %p<8>;", "    .reg .b32 %r<40>;", "    .reg .b64 %rd<40>;",
        "    .shared .align 1024 .b8 sm[8192];", "    .shared .align 8 .b64 bar;",
        "    ld.param.u64 %rd1, [p_out];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.b64 %rd3, p_tm;", "    cvta.param.u64 %rd4, %rd3;",
        "    ld.param.u32 %r10, [c0];", "    ld.param.u32 %r11, [c1];",
        "    ld.param.u32 %r12, [c2];", "    ld.param.u32 %r13, [c3];",
        "    ld.param.u32 %r14, [c4];",
        "    mov.u32 %r1, %laneid;", "    mov.u32 %r2, sm;", "    mov.u32 %r6, bar;",
        "    setp.eq.u32 %p1, %r1, 0;",
        /* a store's source: word i of sm holds 1000000 + i */
        "    mov.u32 %r7, %r1;",
        "$fill:",
        "    shl.b32 %r8, %r7, 2;", "    add.s32 %r9, %r2, %r8;", "    add.s32 %r15, %r7, 1000000;",
        "    st.shared.u32 [%r9], %r15;", "    add.s32 %r7, %r7, 32;",
        "    setp.lt.u32 %p3, %r7, 2048;", "    @%p3 bra $fill;",
        "    @%p1 mbarrier.init.shared::cta.b64 [%r6], 1;",
        "    fence.proxy.async.shared::cta;",
        "    bar.sync 0;",
        ins2, cp, ins3,
        t->warp ? "    cp.async.bulk.wait_group 0;" : "    @%p1 cp.async.bulk.wait_group 0;",
        t->store ? "    bra $out;" : "    bra $wait;",
        "$wait:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;",
        "    @!%p2 bra $wait;",
        "$out:",
        "    bar.sync 0;",
        /* the shared image to out (a load) */
        "    mov.u32 %r7, %r1;",
        "$copy:",
        "    shl.b32 %r8, %r7, 2;", "    add.s32 %r9, %r2, %r8;", "    ld.shared.u32 %r16, [%r9];",
        "    mul.wide.u32 %rd5, %r7, 4;", "    add.s64 %rd6, %rd2, %rd5;",
        "    st.global.u32 [%rd6], %r16;", "    add.s32 %r7, %r7, 32;",
        "    setp.lt.u32 %p3, %r7, 2048;", "    @%p3 bra $copy;",
        "    ret;", "}",
    };
    testlib_write_lines("k.ptx", ptx, sizeof ptx / sizeof ptx[0], 0, NULL, NULL);
}

static void
write_launch(const struct tcase *t, const char *extra_map, const struct icase *ic)
{
    char mem[96], tm[512], cs[5][48];
    char *p;
    snprintf(mem, sizeof mem, "mem = t %s %llu seq 0", t->type, (unsigned long long)elems(t));
    p = tm + sprintf(tm, "arg = tm tensormap t %s%s dims=", t->type,
                     ic != NULL ? " mode=im2col" : "");
    for (unsigned d = 0; d < t->rank; d++)
        p += sprintf(p, "%s%llu", d ? "," : "", (unsigned long long)t->dims[d]);
    if (ic != NULL) {
        for (unsigned k = 0; k < 2; k++) {
            p += sprintf(p, k ? " upper=" : " lower=");
            for (unsigned j = 0; j + 2 < t->rank; j++)
                p += sprintf(p, "%s%d", j ? "," : "", k ? ic->upper[j] : ic->lower[j]);
        }
        p += sprintf(p, " channels=%u pixels=%u", ic->cpp, ic->ppc);
    } else {
        p += sprintf(p, " box=");
        for (unsigned d = 0; d < t->rank; d++)
            p += sprintf(p, "%s%u", d ? "," : "", t->box[d]);
    }
    if (t->estr[0]) {
        p += sprintf(p, " elemstrides=");
        for (unsigned d = 0; d < t->rank; d++)
            p += sprintf(p, "%s%u", d ? "," : "", t->estr[d]);
    }
    static const char *const sw[] = { "none", "32B", "64B", "128B" };
    p += sprintf(p, " swizzle=%s%s%s", sw[t->swz], t->nan ? " fill=nan" : "",
                 extra_map ? extra_map : "");
    for (unsigned d = 0; d < 5; d++)
        snprintf(cs[d], sizeof cs[d], "arg = c%u s32 %d", d, d < t->rank ? t->c[d] : 0);
    const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32", mem,
        "arg = out buffer u32 2048 zeros", tm, cs[0], cs[1], cs[2], cs[3], cs[4],
    };
    testlib_write_lines("k.launch", launch, sizeof launch / sizeof launch[0], 0, NULL, NULL);
}

/* Box element counts, and whether box index i (per dimension) is inside. */
static void
box_counts(const struct tcase *t, uint32_t n[5])
{
    for (unsigned d = 0; d < 5; d++) {
        uint32_t es = t->estr[0] ? t->estr[d] : 1;
        n[d] = d >= t->rank ? 1 : d == 0 ? t->box[0] : (t->box[d] + es - 1) / es;
    }
}

/* The expected images before a copy: shared memory's marker words into
 * want_s, and the tensor's values (returned, calloc'ed). */
static uint8_t *
expect_init(const struct tcase *t, uint8_t *want_s)
{
    uint64_t ne = elems(t);
    uint8_t *want_t = calloc(ne, t->es);
    for (uint64_t i = 0; i < ne; i++) {
        uint32_t v = tval(t, i);
        memcpy(want_t + i * t->es, &v, t->es);
    }
    for (uint32_t w = 0; w < SMEM / 4; w++) {
        uint32_t v = 1000000 + w;
        memcpy(want_s + 4 * w, &v, 4);
    }
    return want_t;
}

/* Emulate testlib_dir/k.launch, and time it too when timed: the shared
 * image of a load's box (bytes) or the tensor after a store must be the
 * expected ones; what names the case in failures. */
static void
compare_runs(const struct tcase *t, uint64_t bytes, const uint8_t *want_s, const uint8_t *want_t,
             bool timed_too, const char *what)
{
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    for (int timed = 0; timed <= (int)timed_too; timed++) {
        struct inst_source src;
        sim *s;
        const struct launch *l = testlib_launch_run(path, timed ? "tma.latency = 128\n"
                                                    "tma.bytes_per_cycle = 91" : NULL, &src, &s);
        const uint8_t *out = l->args[1].data, *tens = l->args[0].data;
        if (!t->store) {
            for (uint32_t b = 0; b < bytes; b++)
                ck_assert_msg(out[b] == want_s[b], "%s%ud %s load: shared byte %u is 0x%02x, "
                              "expected 0x%02x (%s)", what, t->rank, t->type, b, out[b],
                              want_s[b], timed ? "run" : "emulate");
        } else {
            for (uint64_t b = 0; b < elems(t) * t->es; b++)
                ck_assert_msg(tens[b] == want_t[b], "%s%ud %s store: tensor byte %llu is 0x%02x, "
                              "expected 0x%02x (%s)", what, t->rank, t->type,
                              (unsigned long long)b, tens[b], want_t[b],
                              timed ? "run" : "emulate");
        }
        if (s != NULL)
            sim_destroy(s);
        inst_source_destroy(&src);
    }
}

static void
run_case(const struct tcase *t)
{
    uint32_t n[5];
    box_counts(t, n);
    uint64_t nbox = (uint64_t)n[0] * n[1] * n[2] * n[3] * n[4], bytes = nbox * t->es;
    ck_assert_uint_le(bytes, SMEM);
    write_kernel(t, bytes, NULL);
    write_launch(t, NULL, NULL);
    /* the expected shared image (a load) or tensor (a store) */
    static uint8_t want_s[SMEM];
    uint8_t *want_t = expect_init(t, want_s);
    for (uint64_t e = 0; e < nbox; e++) {
        uint64_t rest = e, gi = 0, pitch = 1;
        bool in = true;
        for (unsigned d = 0; d < t->rank; d++) {
            uint64_t i = rest % n[d];
            rest /= n[d];
            int64_t g = t->c[d] + (int64_t)i * (d == 0 || !t->estr[0] ? 1 : t->estr[d]);
            in = in && g >= 0 && g < (int64_t)t->dims[d];
            gi += (uint64_t)(g < 0 ? 0 : g) * pitch;
            pitch *= t->dims[d];
        }
        uint32_t at = swz((uint32_t)(e * t->es), t->swz);
        if (!t->store) {
            uint32_t v = in ? tval(t, gi) : t->nan ? 0x7fffffffu : 0;
            memcpy(want_s + at, &v, t->es);
        } else if (in && t->reduce) {
            uint32_t a = 0, v = 0;
            memcpy(&a, want_t + gi * t->es, t->es);
            memcpy(&v, want_s + at, t->es);
            a += v;
            memcpy(want_t + gi * t->es, &a, t->es);
        } else if (in) {
            memcpy(want_t + gi * t->es, want_s + at, t->es);
        }
    }
    compare_runs(t, bytes, want_s, want_t, t->timed, "");
    free(want_t);
}

static const struct tcase cases[] = {
    /* 2-D, the box over the tensor's far corner and its near one */
    { "u32", 4, 2, { 40, 30 }, { 16, 8 }, { 0 }, { 30, 25 }, 0, false, false, true, false, 0 },
    { "u32", 4, 2, { 40, 30 }, { 16, 8 }, { 0 }, { -3, -2 }, 0, false, false, false, false, 0 },
    /* the swizzles: 128 B rows of u16, 64 B and 32 B rows */
    { "u16", 2, 2, { 200, 50 }, { 64, 8 }, { 0 }, { 10, 3 }, 3, false, false, true, false, 0 },
    { "u32", 4, 2, { 64, 64 }, { 16, 16 }, { 0 }, { 0, 5 }, 2, false, false, false, false, 0 },
    { "u16", 2, 2, { 64, 64 }, { 16, 16 }, { 0 }, { 40, 40 }, 1, false, false, false, false, 0 },
    /* 1-D, 3-D with a traversal stride, 5-D */
    { "u32", 4, 1, { 100 }, { 32 }, { 0 }, { 80 }, 0, false, false, false, false, 0 },
    { "u32", 4, 3, { 20, 10, 6 }, { 8, 4, 3 }, { 1, 2, 1 }, { 4, 1, 2 }, 0, false, false, true,
      false, 0 },
    { "u32", 4, 5, { 4, 3, 2, 2, 2 }, { 4, 2, 2, 1, 2 }, { 0 }, { 0, 1, -1, 1, 0 }, 0, false,
      false, false, false, 0 },
    /* NaN fill */
    { "f32", 4, 2, { 40, 30 }, { 16, 8 }, { 0 }, { 30, 25 }, 0, true, false, false, false, 0 },
    /* stores: only the elements inside the tensor are written */
    { "u32", 4, 2, { 40, 30 }, { 16, 8 }, { 0 }, { 30, 25 }, 0, false, true, true, false, 0 },
    { "u16", 2, 2, { 200, 50 }, { 64, 8 }, { 0 }, { 150, 45 }, 3, false, true, false, false, 0 },
    /* a reduction: cp.reduce.async.bulk.tensor .add adds the box's elements
     * inside the tensor to it (2-D, timed too; 3-D) */
    { "u32", 4, 2, { 40, 30 }, { 16, 8 }, { 0 }, { 30, 25 }, 0, false, true, true, true, 0 },
    { "u32", 4, 3, { 20, 10, 6 }, { 8, 4, 3 }, { 0 }, { 4, 1, 2 }, 0, false, true, false, true, 0 },
    /* stores that every lane of the warp gives with the same operands: one
     * store's bytes (timed too; a 128-byte swizzle) */
    { "u32", 4, 2, { 40, 30 }, { 16, 8 }, { 0 }, { 30, 25 }, 0, false, true, true, false, 1 },
    { "u16", 2, 2, { 200, 50 }, { 64, 8 }, { 0 }, { 150, 45 }, 3, false, true, false, false, 1 },
};

START_TEST(copies)
{
    run_case(&cases[_i]);
}
END_TEST

/* Tensor maps cuTensorMapEncodeTiled would refuse: exit 2 naming the line. */
static const struct {
    const char *map;
    const char *frag;
} bad_maps[] = {
    { "arg = tm tensormap t u32 dims=40,30 box=16", "one value per dimension" },
    { "arg = tm tensormap t u32 dims=40,30 box=300,8", "1 .. 256" },
    { "arg = tm tensormap t u16 dims=40,30 box=4,8", "multiple of 16 bytes" },
    { "arg = tm tensormap t u32 dims=64,30 box=64,8 swizzle=128B", "swizzle span" },
    { "arg = tm tensormap t u32 dims=40,30 box=16,8 strides=100", "multiples of 16" },
    { "arg = tm tensormap nope u32 dims=40,30 box=16,8", "no buffer argument" },
    { "arg = tm tensormap t u32 dims=40,300 box=16,8", "reaches byte" },
    { "arg = tm tensormap t q8 dims=40,30 box=16,8", "unknown element type" },
};

START_TEST(wrong_maps)
{
    struct tcase t = cases[0];
    write_kernel(&t, 512, NULL);
    const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32", "mem = t u32 1200 seq 0",
        "arg = out buffer u32 2048 zeros", bad_maps[_i].map, "arg = c0 s32 0", "arg = c1 s32 0",
        "arg = c2 s32 0", "arg = c3 s32 0", "arg = c4 s32 0",
    };
    testlib_write_lines("k.launch", launch, sizeof launch / sizeof launch[0], 0, NULL, NULL);
    testlib_expect_error("k.launch", 7, bad_maps[_i].frag);
}
END_TEST

/* Wrong programs: a copy whose rank is not the map's, a shared address
 * not a multiple of 128, a tensor map that is no tensor map. */
START_TEST(wrong_programs)
{
    struct tcase t = cases[0];
    t.rank = 3;                  /* a 3d copy of a 2-D map */
    write_kernel(&t, 512, NULL);
    t.rank = 2;
    write_launch(&t, NULL, NULL);
    testlib_expect_error("k.ptx", 37, "a 3d copy of a tensor map of rank 2");
    /* a store from every lane, each with its own coordinates; a reduction
     * from every lane with the same (each would add) */
    t = cases[9];
    t.warp = 2;
    write_kernel(&t, 512, NULL);
    write_launch(&t, NULL, NULL);
    testlib_expect_error("k.ptx", 37, "unsupported: a tensor, multicast or shared::cluster "
                         "cp.async.bulk from more than one lane");
    t = cases[11];
    t.warp = 1;
    write_kernel(&t, 512, NULL);
    testlib_expect_error("k.ptx", 37, "other than a tensor store or prefetch with the same");
}
END_TEST

/* im2col copies (PTX ISA 5.5.4, cuTensorMapEncodeIm2col) against a C
 * reference written differently from the executor's walk: row k of the
 * box is the filter base position m0 + k of the pixel box, numbered W
 * fastest over each spatial dimension's ceil((hi - lower + 1) / stride)
 * positions and then image by image; the pixel read is that position plus
 * the offsets; channels c0 .. c0 + cpp - 1. */
static void
run_i2c(const struct icase *ic)
{
    const struct tcase *t = &ic->t;
    unsigned ns = t->rank - 2, es = t->es;
    uint64_t bytes = (uint64_t)ic->ppc * ic->cpp * es;
    ck_assert_uint_le(bytes, SMEM);
    write_kernel(t, bytes, ic);
    write_launch(t, NULL, ic);
    int64_t cnt[3] = { 1, 1, 1 }, st[3] = { 1, 1, 1 }, per_image = 1, m0 = 0, stride = 1;
    for (unsigned j = 0; j < ns; j++) {
        st[j] = t->estr[0] ? t->estr[j + 1] : 1;
        int64_t hi = (int64_t)t->dims[j + 1] - 1 + ic->upper[j];
        cnt[j] = (hi - ic->lower[j]) / st[j] + 1;
        m0 += (t->c[j + 1] - ic->lower[j]) / st[j] * stride;
        stride *= cnt[j];
        per_image *= cnt[j];
    }
    m0 += (int64_t)t->c[t->rank - 1] * per_image;
    static uint8_t want_s[SMEM];
    uint8_t *want_t = expect_init(t, want_s);
    for (uint32_t k = 0; k < ic->ppc; k++) {
        int64_t m = m0 + k, n = m / per_image, rest = m % per_image;
        int64_t pix[3] = { 0, 0, 0 };
        bool in = n < (int64_t)t->dims[t->rank - 1];
        uint64_t gi = (uint64_t)n * t->dims[0];
        uint64_t pitch = t->dims[0];
        for (unsigned j = 0; j < ns; j++) {
            pix[j] = ic->lower[j] + rest % cnt[j] * st[j] + (t->store ? 0 : ic->off[j]);
            rest /= cnt[j];
            in = in && pix[j] >= 0 && pix[j] < (int64_t)t->dims[j + 1];
        }
        /* linear pixel index: ((n D + d) H + h) W + w, times C */
        uint64_t lin = (uint64_t)n;
        for (unsigned j = ns; j-- > 0;)
            lin = lin * t->dims[j + 1] + (uint64_t)(pix[j] < 0 ? 0 : pix[j]);
        gi = lin * pitch;
        for (uint32_t ch = 0; ch < ic->cpp; ch++) {
            int64_t cc = t->c[0] + ch;
            bool ok = in && cc >= 0 && cc < (int64_t)t->dims[0];
            uint32_t at = swz((uint32_t)(((uint64_t)k * ic->cpp + ch) * es), t->swz);
            if (!t->store) {
                uint32_t v = ok ? tval(t, gi + (uint64_t)cc) : t->nan ? 0x7fffffffu : 0;
                memcpy(want_s + at, &v, es);
            } else if (ok) {
                memcpy(want_t + (gi + (uint64_t)cc) * es, want_s + at, es);
            }
        }
    }
    compare_runs(t, bytes, want_s, want_t, true, "im2col ");
    free(want_t);
}

/* NHWC u16 N=2 H=4 W=5 C=8 with a 3x3 filter's padding-1 box (lower =
 * upper = -1: base positions w -1 .. 3, h -1 .. 2), 16 pixels of 8
 * channels from output pixel (0, 0): the centre tap (no fill), the top
 * left (rows 0-5, 10 and 15 filled), the bottom right (4, 9, 14, 15),
 * across images (from h 1: image 1 from row 10), past the last image,
 * a traversal stride of 2, a 128-byte swizzle with 64 channels of u16, a
 * 3-D (NWC) and a 5-D (NDHWC) map, channels past C (NaN-filled f32), and a store
 * (.im2col_no_offs: the box's rows written where they lie inside). */
static const struct icase i2c_cases[] = {
    { { "u16", 2, 4, { 8, 5, 4, 2 }, { 0 }, { 0 }, { 0, -1, -1, 0 }, 0, false, false, false,
        false, 0 }, { -1, -1 }, { -1, -1 }, { 1, 1 }, 8, 16 },
    { { "u16", 2, 4, { 8, 5, 4, 2 }, { 0 }, { 0 }, { 0, -1, -1, 0 }, 0, false, false, false,
        false, 0 }, { -1, -1 }, { -1, -1 }, { 0, 0 }, 8, 16 },
    { { "u16", 2, 4, { 8, 5, 4, 2 }, { 0 }, { 0 }, { 0, -1, -1, 0 }, 0, false, false, false,
        false, 0 }, { -1, -1 }, { -1, -1 }, { 2, 2 }, 8, 16 },
    { { "u16", 2, 4, { 8, 5, 4, 2 }, { 0 }, { 0 }, { 0, -1, 1, 0 }, 0, false, false, false,
        false, 0 }, { -1, -1 }, { -1, -1 }, { 1, 1 }, 8, 16 },
    { { "u16", 2, 4, { 8, 5, 4, 2 }, { 0 }, { 0 }, { 0, -1, 1, 1 }, 0, false, false, false,
        false, 0 }, { -1, -1 }, { -1, -1 }, { 1, 1 }, 8, 16 },
    { { "u16", 2, 4, { 8, 5, 4, 2 }, { 0 }, { 1, 2, 2, 1 }, { 0, -1, -1, 0 }, 0, false, false,
        false, false, 0 }, { -1, -1 }, { -1, -1 }, { 1, 1 }, 8, 16 },
    { { "u16", 2, 4, { 64, 6, 5, 2 }, { 0 }, { 0 }, { 0, 0, 0, 0 }, 3, false, false, false,
        false, 0 }, { 0, 0 }, { -2, -2 }, { 2, 1 }, 64, 24 },
    { { "u32", 4, 3, { 4, 9, 3 }, { 0 }, { 0 }, { 0, -2, 0 }, 0, false, false, false, false, 0 },
      { -2 }, { 0 }, { 1 }, 4, 20 },
    { { "u32", 4, 5, { 4, 3, 3, 2, 2 }, { 0 }, { 0 }, { 0, 0, 0, 0, 0 }, 0, false, false, false,
        false, 0 }, { 0, 0, -1 }, { -1, -1, 0 }, { 1, 0, 1 }, 4, 12 },
    { { "f32", 4, 4, { 8, 5, 4, 1 }, { 0 }, { 0 }, { 6, 0, 0, 0 }, 0, true, false, false,
        false, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 4, 8 },
    { { "u32", 4, 4, { 4, 5, 4, 2 }, { 0 }, { 0 }, { 0, 1, 1, 0 }, 0, false, true, false,
        false, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 4, 12 },
};

START_TEST(im2col)
{
    run_i2c(&i2c_cases[_i]);
}
END_TEST

/* Wrong im2col programs and maps: a .tile copy of an im2col map, an
 * .im2col copy of a tiled one, a base position outside the pixel box, an
 * im2col map of rank 2, corners out of range. */
START_TEST(im2col_wrong)
{
    struct icase ic = i2c_cases[0];
    struct tcase t = ic.t;
    t.box[0] = 8, t.box[1] = 4, t.box[2] = 2, t.box[3] = 1;
    write_kernel(&t, 2 * 8 * 16, NULL);        /* a .tile copy of an im2col map */
    write_launch(&t, NULL, &ic);
    testlib_expect_error("k.ptx", 37, "a .tile copy of an im2col tensor map");
    write_kernel(&t, 2 * 8 * 16, &ic);         /* an .im2col copy (its prefetch) of a tiled one */
    write_launch(&t, NULL, NULL);
    testlib_expect_error("k.ptx", 39, "an .im2col copy of a tiled tensor map");
    ic.t.c[1] = 4;               /* w: the box's base positions are -1 .. 3 */
    write_kernel(&ic.t, 2 * 8 * 16, &ic);
    write_launch(&ic.t, NULL, &ic);
    testlib_expect_error("k.ptx", 41, "outside the tensor map's pixel box");
    ic = i2c_cases[0];
    write_kernel(&ic.t, 2 * 8 * 16, &ic);
    write_launch(&ic.t, " upper=-200,-1", &ic);
    testlib_expect_error("k.launch", 7, "-128 .. 127");
}
END_TEST

/* A multicast tensor load (.multicast::cluster) in a cluster of 2: rank r
 * loads rows 8r .. 8r+7 of a 16 x 16 u32 tensor to offset 512 r; rank 0
 * sends to both blocks, rank 1 to rank 0 only.  Rank 0 receives the whole
 * tensor (its barrier expects 1024 bytes), rank 1 the first half and
 * keeps its own marker words in the second (512 bytes).  Emulated and
 * timed, the same words. */
static void
check_multicast(const struct launch *l, sim *s, void *ctx)
{
    (void)ctx;
    const uint32_t *out = (const uint32_t *)l->args[1].data;
    for (uint32_t i = 0; i < 512; i++) {
        uint32_t blk = i / 256, w = i % 256;
        uint32_t want = blk == 1 && w >= 128 ? 7000 + w : w;
        ck_assert_msg(out[i] == want, "block %u word %u: %u, expected %u (%s)", blk, w, out[i],
                      want, s != NULL ? "run" : "emulate");
    }
    if (s != NULL)
        ck_assert_uint_eq(testlib_stat(s, 0, "sm.bulk.loads"), 2);
}

START_TEST(multicast)
{
    const char *const ptx[] = {
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 p_out, .param .align 64 .b8 p_tm[128])",
        ".explicitcluster .reqnctapercluster 2, 1, 1",
        "{",
        "    .reg .pred %p<8>;", "    .reg .b16 %rs<4>;", "    .reg .b32 %r<40>;",
        "    .reg .b64 %rd<40>;",
        "    .shared .align 1024 .b8 sm[1024];", "    .shared .align 8 .b64 bar;",
        "    ld.param.u64 %rd1, [p_out];", "    cvta.to.global.u64 %rd2, %rd1;",
        "    mov.b64 %rd3, p_tm;", "    cvta.param.u64 %rd4, %rd3;",
        "    mov.u32 %r1, %laneid;", "    mov.u32 %r2, sm;", "    mov.u32 %r6, bar;",
        "    mov.u32 %r3, %cluster_ctarank;", "    mov.u32 %r4, %ctaid.x;",
        "    setp.eq.u32 %p1, %r1, 0;",
        "    mov.u32 %r7, %r1;",
        "$fill:",
        "    shl.b32 %r8, %r7, 2;", "    add.s32 %r9, %r2, %r8;", "    add.s32 %r15, %r7, 7000;",
        "    st.shared.u32 [%r9], %r15;", "    add.s32 %r7, %r7, 32;",
        "    setp.lt.u32 %p3, %r7, 256;", "    @%p3 bra $fill;",
        "    @%p1 mbarrier.init.shared::cta.b64 [%r6], 1;",
        "    fence.mbarrier_init.release.cluster;", "    fence.proxy.async.shared::cta;",
        "    barrier.cluster.arrive.release.aligned;", "    barrier.cluster.wait.acquire.aligned;",
        "    setp.eq.u32 %p2, %r3, 0;",
        "    selp.u32 %r10, 1024, 512, %p2;",
        "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], %r10;",
        "    selp.b16 %rs1, 3, 1, %p2;",
        "    mul.lo.s32 %r11, %r3, 8;", "    mov.u32 %r12, 0;",
        "    mad.lo.s32 %r13, %r3, 512, %r2;",
        "    @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%r13], [%rd4, {%r12, %r11}], [%r6], %rs1;",
        "$wait:",
        "    mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r6], 0;",
        "    @!%p4 bra $wait;",
        "    mov.u32 %r7, %r1;",
        "$copy:",
        "    shl.b32 %r8, %r7, 2;", "    add.s32 %r9, %r2, %r8;", "    ld.shared.u32 %r16, [%r9];",
        "    mad.lo.s32 %r17, %r4, 256, %r7;",
        "    mul.wide.u32 %rd5, %r17, 4;", "    add.s64 %rd6, %rd2, %rd5;",
        "    st.global.u32 [%rd6], %r16;", "    add.s32 %r7, %r7, 32;",
        "    setp.lt.u32 %p3, %r7, 256;", "    @%p3 bra $copy;",
        "    barrier.cluster.arrive.aligned;", "    barrier.cluster.wait.aligned;",
        "    ret;", "}",
    };
    const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 2", "block = 32", "mem = t u32 256 seq 0",
        "arg = out buffer u32 512 zeros", "arg = tm tensormap t u32 dims=16,16 box=16,8",
    };
    testlib_emulate_and_run(ptx, sizeof ptx / sizeof ptx[0], launch,
                            sizeof launch / sizeof launch[0], "gpu.gpc_sms = 6", check_multicast,
                            NULL);
}
END_TEST

static Suite *
ptx_tma_suite(void)
{
    Suite *s = suite_create("ptx_tma");
    TCase *tc = tcase_create("tma");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_loop_test(tc, copies, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, wrong_maps, 0, (int)(sizeof bad_maps / sizeof bad_maps[0]));
    tcase_add_test(tc, wrong_programs);
    tcase_add_loop_test(tc, im2col, 0, (int)(sizeof i2c_cases / sizeof i2c_cases[0]));
    tcase_add_test(tc, im2col_wrong);
    tcase_add_test(tc, multicast);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptx_tma_suite)
