/*
 * check_ptx_sched.c - the PTX frontend's sm_90 lowering and static schedule
 * (frontend/ptx_lower.c, ptx_sched.c): what the timing model sees after
 * set_target(90), and that the functional results do not change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/lower/ptx_lower.h"
#include "frontend/lower/ptx_lower_emit.h"
#include "frontend/record.h"
#include "frontend/sass/sass_isa.h"
#include "testlib.h"

/* A loop of eight independent FMA chains, its counter and compare, and a
 * store of their sum; %r4 is tid-dependent, %r3 the uniform counter. */
static const char *const LOOP_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .pred %p<3>;",
    "    .reg .b32 %r<8>;",
    "    .reg .f32 %f<12>;",
    "    .reg .b64 %rd<5>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    ld.param.u32 %r1, [k_param_1];",
    "    mov.u32 %r2, %tid.x;",
    "    cvt.rn.f32.u32 %f1, %r2;",
    "    add.f32 %f2, %f1, 0f3F800000;",
    "    add.f32 %f3, %f1, 0f40000000;",
    "    add.f32 %f4, %f1, 0f40400000;",
    "    add.f32 %f8, %f1, 0f40800000;",
    "    add.f32 %f9, %f1, 0f40A00000;",
    "    add.f32 %f10, %f1, 0f40C00000;",
    "    add.f32 %f11, %f1, 0f40E00000;",
    "    mov.u32 %r3, 0;",
    "$L_loop:",
    "    .pragma \"nounroll\";",
    "    fma.rn.f32 %f1, %f1, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f2, %f2, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f3, %f3, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f4, %f4, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f8, %f8, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f9, %f9, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f10, %f10, 0f3F000000, 0f3F800000;",
    "    fma.rn.f32 %f11, %f11, 0f3F000000, 0f3F800000;",
    "    add.s32 %r3, %r3, 1;",
    "    add.s32 %r4, %r2, %r3;",
    "    setp.lt.s32 %p1, %r3, %r1;",
    "    @%p1 bra $L_loop;",
    "    add.f32 %f5, %f1, %f2;",
    "    add.f32 %f6, %f3, %f4;",
    "    add.f32 %f7, %f5, %f6;",
    "    add.f32 %f5, %f8, %f9;",
    "    add.f32 %f6, %f10, %f11;",
    "    add.f32 %f7, %f7, %f5;",
    "    add.f32 %f7, %f7, %f6;",
    "    cvt.rn.f32.u32 %f6, %r4;",
    "    add.f32 %f7, %f7, %f6;",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mul.wide.u32 %rd3, %r2, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.f32 [%rd4], %f7;",
    "    ret;",
    "}",
};

/* The launch file's `regs` (0: none given). */
static unsigned t_regs;

/* Write lines to testlib_dir/k.ptx and a launch file for one warp, 32
 * 32-bit outputs and the scalar `n`; open it. */
static void
open_kernel(const char *const *lines, size_t n, uint32_t scalar, struct inst_source *src)
{
    char path[512];
    snprintf(path, sizeof path, "%s/k.ptx", testlib_dir);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s\n", lines[i]);
    fclose(fp);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "ptx = k.ptx\nkernel = k\ngrid = 1\nblock = 32\n"
                "arg = out buffer u32 32 zeros\narg = n u32 %u\n", scalar);
    if (t_regs != 0)
        fprintf(fp, "regs = %u\n", t_regs);
    fclose(fp);
    struct sim_error err = { 0 };
    ck_assert_msg(ptx_source_open(path, src, &err) == SIM_OK, "%s", err.msg);
}

#define NAME_MAX 40

/* Warp 0's instruction stream (at most max) after set_target(cc), and the
 * opcode name of each (names may be NULL). */
static unsigned
stream_named(const char *const *lines, size_t n, uint32_t scalar, unsigned cc,
             struct warp_inst *out, char (*names)[NAME_MAX], unsigned max)
{
    struct inst_source src;
    open_kernel(lines, n, scalar, &src);
    return testlib_warp0(&src, cc, out, names != NULL ? names[0] : NULL, NAME_MAX, max);
}

static unsigned
stream(const char *const *lines, size_t n, uint32_t scalar, unsigned cc, struct warp_inst *out,
       unsigned max)
{
    return stream_named(lines, n, scalar, cc, out, NULL, max);
}

/* The outputs (32 words) of emulating the kernel, lowered and scheduled
 * for cc (0: as nvcc wrote it). */
static void
outputs(const char *const *lines, size_t n, uint32_t scalar, unsigned cc, uint32_t *out)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    struct record_totals tot;
    open_kernel(lines, n, scalar, &src);
    if (cc != 0)
        src.ops->set_target(src.ctx, cc);
    ck_assert_msg(record_emulate(&src, &tot, &err) == SIM_OK, "%s", err.msg);
    memcpy(out, ptx_source_launch(&src)->args[0].data, 32 * sizeof *out);
    inst_source_destroy(&src);
}

/* The kernel's outputs are the same lowered and scheduled for sm_90 as
 * executed as nvcc wrote it; the lowered ones into b (32 words, or NULL). */
static void
same_outputs(const char *const *lines, size_t n, uint32_t scalar, uint32_t *b)
{
    uint32_t a[32], own[32];
    if (b == NULL)
        b = own;
    outputs(lines, n, scalar, 0, a);
    outputs(lines, n, scalar, 90, b);
    for (unsigned i = 0; i < 32; i++)
        ck_assert_msg(a[i] == b[i], "lane %u: %#x as written, %#x lowered", i, a[i], b[i]);
}

/* Index of the loop's first instruction in the second pass through it
 * (after the first taken branch). */
static unsigned
second_pass(const struct warp_inst *w, unsigned n, unsigned *len)
{
    unsigned first_bra = n;
    for (unsigned i = 0; i < n; i++)
        if (w[i].opclass == SIM_OPC_BRANCH && i + 1 < n && w[i + 1].pc < w[i].pc) {
            if (first_bra == n) {
                first_bra = i;
            } else {
                *len = i - first_bra;
                return first_bra + 1;
            }
        }
    ck_abort_msg("the loop did not run twice");
    return 0;
}

/* The loop as ptxas orders it: the counter (on the uniform datapath)
 * first, the compare hoisted between the FMAs, the branch last with the
 * compare's 13 cycles before it; the PTX order without a target. */
START_TEST(test_loop_schedule)
{
    struct warp_inst w[128];
    unsigned n = stream(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 3, 90, w, 128), len = 0;
    unsigned s = second_pass(w, n, &len);
    ck_assert_uint_eq(len, 12);
    ck_assert_msg(w[s].opclass == SIM_OPC_UNIFORM, "loop starts with %s",
                  inst_opclass_name(w[s].opclass));
    unsigned setp = s, fma_after = 0;
    for (unsigned i = s; i < s + len; i++)
        if (w[i].opclass == SIM_OPC_SETP)
            setp = i;
    ck_assert_uint_gt(setp, s);
    for (unsigned i = setp; i < s + len; i++)
        fma_after += w[i].opclass == SIM_OPC_FP32_FMA;
    ck_assert_uint_ge(fma_after, 1);      /* hoisted above some of the body */
    ck_assert_uint_eq(w[s + len - 1].opclass, SIM_OPC_BRANCH);
    unsigned gap = 0;
    for (unsigned i = setp; i < s + len - 1; i++)
        gap += w[i].stall > 1 ? w[i].stall : 1;
    ck_assert_uint_ge(gap, 13);           /* the predicate's latency, in stall counts */
    /* the tid-dependent add is not uniform (IADD3 or IMAD.IADD) */
    unsigned ints = 0;
    for (unsigned i = s; i < s + len; i++)
        ints += w[i].opclass == SIM_OPC_INT || w[i].opclass == SIM_OPC_INT_MUL;
    ck_assert_uint_eq(ints, 1);
    /* no target: the PTX order, no stall counts */
    n = stream(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 3, 0, w, 128);
    s = second_pass(w, n, &len);
    ck_assert_uint_eq(w[s].opclass, SIM_OPC_FP32_FMA);
    ck_assert_uint_eq(w[s + 8].opclass, SIM_OPC_INT);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_le(w[i].stall, 1);
    /* a target without tables (sm_80) keeps the PTX order too */
    n = stream(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 3, 80, w, 128);
    s = second_pass(w, n, &len);
    ck_assert_uint_eq(w[s].opclass, SIM_OPC_FP32_FMA);
}
END_TEST

/* Dependences of every kind, in blocks the scheduler reorders: a carry
 * chain, 64-bit pack/unpack, a value read then overwritten, a store then a
 * load of the same word, shared memory across a barrier, shuffles, and the
 * lowered ex2/sin in a loop (branch targets renumbered).  The outputs with
 * the sm_90 order and expansions are those of the PTX order. */
static const char *const DEPS_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .pred %p<4>;",
    "    .reg .b32 %r<24>;",
    "    .reg .f32 %f<8>;",
    "    .reg .b64 %rd<8>;",
    "    .shared .align 4 .b8 sm[128];",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    ld.param.u32 %r1, [k_param_1];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r2, %tid.x;",
    "    mul.wide.u32 %rd3, %r2, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    add.cc.u32 %r3, %r2, -5;",          /* carry chain */
    "    addc.u32 %r4, %r2, 7;",
    "    add.s32 %r20, %r4, 3;",             /* a chain from the addc: it would go first */
    "    add.s32 %r21, %r20, 5;",
    "    add.s32 %r22, %r21, 7;",
    "    mov.b64 %rd5, {%r4, %r22};",        /* pack ... */
    "    mov.b64 {%r5, %r6}, %rd5;",          /* ... unpack */
    "    add.s32 %r7, %r5, %r6;",
    "    mov.u32 %r5, 100;",                 /* %r5 read above, overwritten here */
    "    add.s32 %r7, %r7, %r5;",
    "    st.global.u32 [%rd4], %r7;",        /* store, then load the same word */
    "    ld.global.u32 %r8, [%rd4];",
    "    add.s32 %r8, %r8, 1;",
    "    mov.u32 %r9, sm;",
    "    shl.b32 %r10, %r2, 2;",
    "    add.s32 %r11, %r9, %r10;",
    "    st.shared.u32 [%r11], %r8;",
    "    bar.sync 0;",
    "    xor.b32 %r12, %r10, 4;",
    "    add.s32 %r13, %r9, %r12;",
    "    ld.shared.u32 %r14, [%r13];",
    "    shfl.sync.bfly.b32 %r15, %r14, 1, 31, -1;",
    "    add.s32 %r16, %r14, %r15;",
    "    cvt.rn.f32.u32 %f1, %r2;",
    "    mul.f32 %f1, %f1, 0f3C23D70A;",      /* 0.01 */
    "    mov.u32 %r17, 0;",
    "$L_loop:",
    "    ex2.approx.f32 %f2, %f1;",
    "    sin.approx.f32 %f3, %f1;",
    "    add.f32 %f1, %f2, %f3;",
    "    mul.f32 %f1, %f1, 0f3E800000;",      /* 0.25 */
    "    add.s32 %r17, %r17, 1;",
    "    setp.lt.s32 %p1, %r17, %r1;",
    "    @%p1 bra $L_loop;",
    "    setp.lt.u32 %p2, %r2, 16;",
    "    @%p2 bra $L_half;",
    "    cos.approx.f32 %f4, %f1;",
    "    add.f32 %f1, %f1, %f4;",
    "$L_half:",
    "    mov.b32 %r18, %f1;",
    "    xor.b32 %r19, %r16, %r18;",
    "    xor.b32 %r19, %r19, %r22;",
    "    xor.b32 %r19, %r19, %r3;",          /* the add.cc's own result, used last */
    "    st.global.u32 [%rd4], %r19;",
    "    ret;",
    "}",
};

START_TEST(test_same_results)
{
    uint32_t a[32], b[32];
    outputs(DEPS_PTX, SIM_ARRAY_LEN(DEPS_PTX), 5, 0, a);
    outputs(DEPS_PTX, SIM_ARRAY_LEN(DEPS_PTX), 5, 90, b);
    for (unsigned i = 0; i < 32; i++)
        ck_assert_msg(a[i] == b[i], "lane %u: %#x in the PTX order, %#x scheduled", i, a[i], b[i]);
    /* and the values are not trivial: lanes differ */
    ck_assert_uint_ne(a[0], a[1]);
    same_outputs(LOOP_PTX, SIM_ARRAY_LEN(LOOP_PTX), 7, NULL);
}
END_TEST

/* PTX's state spaces do not alias, and ptxas uses it: a tile's global
 * loads go up above the shared stores they feed (LDG, LDG, STS, STS, as in
 * every listing of a staged tile), while a generic access, which may reach
 * shared memory, stays after the shared store before it, and so does a
 * shared load.  The values are the PTX order's. */
static const char *const SPACES_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .b32 %r<16>;",
    "    .reg .b64 %rd<8>;",
    "    .shared .align 4 .b8 sm[256];",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mov.u32 %r1, %tid.x;",
    "    mul.wide.u32 %rd3, %r1, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    mov.u32 %r2, sm;",
    "    shl.b32 %r3, %r1, 2;",
    "    add.s32 %r4, %r2, %r3;",
    "    ld.global.u32 %r5, [%rd4];",
    "    add.s32 %r11, %r5, %r1;",
    "    add.s32 %r11, %r11, 100;",
    "    st.shared.u32 [%r4], %r11;",
    "    ld.global.u32 %r6, [%rd4];",        /* the buffer is 32 words: the same word */
    "    add.s32 %r10, %r6, 7;",
    "    st.shared.u32 [%r4+128], %r10;",
    "    cvt.u64.u32 %rd5, %r4;",
    "    cvta.shared.u64 %rd6, %rd5;",
    "    ld.u32 %r7, [%rd6];",               /* generic: sees the first store */
    "    ld.shared.u32 %r8, [%r4+128];",     /* shared: sees the second */
    "    mul.lo.s32 %r9, %r7, 3;",
    "    add.s32 %r9, %r9, %r8;",
    "    st.global.u32 [%rd4], %r9;",
    "    ret;",
    "}",
};

START_TEST(test_spaces)
{
    struct warp_inst w[48];
    char names[48][NAME_MAX];
    unsigned n = stream_named(SPACES_PTX, SIM_ARRAY_LEN(SPACES_PTX), 0, 90, w, names, 48);
    int ldg[2] = { -1, -1 }, sts[2] = { -1, -1 }, ld = -1, lds = -1;
    unsigned nldg = 0, nsts = 0;
    for (unsigned i = 0; i < n; i++) {
        if (strncmp(names[i], "LDG", 3) == 0 && nldg < 2)
            ldg[nldg++] = (int)i;
        else if (strcmp(names[i], "STS") == 0 && nsts < 2)
            sts[nsts++] = (int)i;
        else if (strncmp(names[i], "LD.", 3) == 0 || strcmp(names[i], "LD") == 0)
            ld = (int)i;
        else if (strncmp(names[i], "LDS", 3) == 0)
            lds = (int)i;
    }
    ck_assert_uint_eq(nldg, 2);
    ck_assert_uint_eq(nsts, 2);
    ck_assert_int_ge(ld, 0);
    ck_assert_int_ge(lds, 0);
    /* both global loads before either shared store */
    ck_assert_msg(ldg[1] < sts[0], "LDG at %d, %d; STS at %d, %d", ldg[0], ldg[1], sts[0], sts[1]);
    /* the generic and the shared load after the stores they may read */
    ck_assert_int_gt(ld, sts[0]);
    ck_assert_int_gt(lds, sts[1]);
    uint32_t b[32];
    same_outputs(SPACES_PTX, SIM_ARRAY_LEN(SPACES_PTX), 0, b);
    /* the buffer starts zero: the generic load read 100 + tid, the shared 7 */
    for (unsigned l = 0; l < 32; l++)
        ck_assert_uint_eq(b[l], 3 * (100 + l) + 7);
}
END_TEST

/* Operands computed in the same basic block as the warp operation that
 * reads them, after its data: the shuffle's clamp (width 8: 0x181f) and
 * the vote's member mask, both at the end of a long chain (so a list
 * scheduler that missed them would issue the warp operation first).  Neither is a data source in the usual sense,
 * and the order must keep them all the same (the scheduler once moved the
 * clamp's computation after the SHFL, which then ran with clamp 0). */
static const char *const WARP_OPERANDS_PTX[] = {
    ".version 9.0", ".target sm_90", ".address_size 64",
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
    "{",
    "    .reg .pred %p<4>;",
    "    .reg .b32 %r<24>;",
    "    .reg .f32 %f<4>;",
    "    .reg .b64 %rd<5>;",
    "    ld.param.u64 %rd1, [k_param_0];",
    "    ld.param.u32 %r1, [k_param_1];",
    "    mov.u32 %r2, %tid.x;",
    "    cvt.rn.f32.u32 %f1, %r2;",
    "    mul.f32 %f2, %f1, %f1;",
    "    mov.b32 %r14, %f2;",
    "    cvt.rn.f32.u32 %f3, %r1;",         /* width sqrt(n) = 8: a long chain */
    "    sqrt.approx.f32 %f3, %f3;",
    "    cvt.rzi.u32.f32 %r10, %f3;",
    "    shl.b32 %r11, %r10, 8;",
    "    mov.u32 %r12, 8192;",
    "    sub.s32 %r13, %r12, %r11;",
    "    or.b32 %r3, %r13, 31;",
    "    shfl.sync.down.b32 %r16|%p3, %r14, 3, %r3, -1;",
    "    shr.u32 %r5, %r10, 3;",
    "    sub.s32 %r6, 0, %r5;",
    "    and.b32 %r6, %r6, 0x0000ff0f;",
    "    setp.lt.u32 %p1, %r2, 20;",
    "    vote.sync.ballot.b32 %r7, %p1, %r6;",
    "    selp.u32 %r8, 1, 0, %p3;",
    "    xor.b32 %r9, %r16, %r7;",
    "    add.s32 %r9, %r9, %r8;",
    "    cvta.to.global.u64 %rd2, %rd1;",
    "    mul.wide.u32 %rd3, %r2, 4;",
    "    add.s64 %rd4, %rd2, %rd3;",
    "    st.global.u32 [%rd4], %r9;",
    "    ret;",
    "}",
};

START_TEST(test_warp_operands)
{
    uint32_t b[32];
    same_outputs(WARP_OPERANDS_PTX, SIM_ARRAY_LEN(WARP_OPERANDS_PTX), 64, b);
    /* lanes 0 .. 4 of each 8-lane segment read lane + 3 (valid), the rest
     * their own value; the ballot over the mask 0xff0f */
    for (unsigned l = 0; l < 32; l++) {
        unsigned src = l % 8 < 5 ? l + 3 : l;
        float f = (float)src * (float)src;
        uint32_t v;
        memcpy(&v, &f, 4);
        uint32_t want = (v ^ 0xff0fu) + (l % 8 < 5);
        ck_assert_msg(b[l] == want, "lane %u: %#x, expected %#x", l, b[l], want);
    }
}
END_TEST

/* The lowering: ex2.approx.f32 is FSETP, FMUL, MUFU.EX2, FMUL (.ftz: the
 * MUFU alone), sin/cos.approx FMUL.RZ then MUFU; each operation waits for
 * the one before (temporaries), and the branch of the loop still works. */
START_TEST(test_lowering)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
        "{",
        "    .reg .f32 %f<8>;",
        "    .reg .b32 %r<4>;",
        "    mov.u32 %r1, %tid.x;",
        "    cvt.rn.f32.u32 %f1, %r1;",
        "    ex2.approx.f32 %f2, %f1;",
        "    ex2.approx.ftz.f32 %f3, %f2;",
        "    sin.approx.f32 %f4, %f3;",
        "    cos.approx.ftz.f32 %f5, %f4;",
        "    lg2.approx.f32 %f6, %f5;",
        "    ret;",
        "}",
    };
    struct warp_inst w[32];
    unsigned n = stream(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, 32);
    static const unsigned want[] = {
        SIM_OPC_UNIFORM,     /* the kernel's stack-pointer load, LDC R1 */
        SIM_OPC_SREG, SIM_OPC_CONV, SIM_OPC_SETP, SIM_OPC_FP32, SIM_OPC_SFU_EX2, SIM_OPC_FP32,
        SIM_OPC_SFU_EX2, SIM_OPC_FP32, SIM_OPC_SFU, SIM_OPC_FP32, SIM_OPC_SFU, SIM_OPC_SFU,
        SIM_OPC_BRANCH,
    };
    ck_assert_uint_eq(n, SIM_ARRAY_LEN(want));
    for (unsigned i = 0; i < n; i++)
        ck_assert_msg(w[i].opclass == want[i], "operation %u: %s, expected %s", i,
                      inst_opclass_name(w[i].opclass), inst_opclass_name(want[i]));
    /* the chain: FSETP -> FMUL (predicate), FMUL -> MUFU, MUFU -> FMUL */
    ck_assert_uint_eq(w[4].src[w[4].n_src - 1], w[3].dst[0]);
    ck_assert_uint_eq(w[5].src[0], w[4].dst[0]);
    bool reads = false;
    for (unsigned k = 0; k < w[6].n_src; k++)
        reads = reads || w[6].src[k] == w[5].dst[0];
    ck_assert(reads);
    /* the compare's 13 cycles are a stall count before the predicated FMUL */
    ck_assert_uint_eq(w[3].stall, 13);
    /* the PTX view: one instruction each */
    n = stream(ptx, SIM_ARRAY_LEN(ptx), 0, 0, w, 32);
    ck_assert_uint_eq(n, 8);
}
END_TEST

/* A value computed inside the region of a branch on a lane-dependent
 * predicate is not uniform, even from uniform sources; one computed after
 * the reconvergence point is. */
START_TEST(test_uniform_regions)
{
    static const char *const ptx[] = {
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)",
        "{",
        "    .reg .pred %p<3>;",
        "    .reg .b32 %r<8>;",
        "    ld.param.u32 %r1, [k_param_1];",
        "    mov.u32 %r2, %tid.x;",
        "    mov.u32 %r3, 0;",
        "    setp.lt.u32 %p1, %r2, 3;",
        "    @%p1 bra $L_skip;",
        "    add.s32 %r3, %r1, 5;",              /* lanes >= 3 only: not uniform */
        "$L_skip:",
        "    add.s32 %r4, %r1, 9;",              /* every lane: uniform */
        "    add.s32 %r5, %r3, %r4;",            /* reads %r3: not uniform */
        "    add.s32 %r6, %r2, %r4;",            /* (a second reader: %r4 is not folded) */
        "    ret;",
        "}",
    };
    struct warp_inst w[32];
    char nm[32][NAME_MAX];
    unsigned n = stream_named(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, nm, 32);
    unsigned uni = 0, vec = 0;
    for (unsigned i = 0; i < n; i++) {
        uni += w[i].opclass == SIM_OPC_UNIFORM;
        vec += strcmp(nm[i], "IADD3") == 0 || strcmp(nm[i], "VIADD") == 0 ||
               strcmp(nm[i], "IMAD.IADD") == 0 || strcmp(nm[i], "HFMA2.MMA") == 0 ||
               strcmp(nm[i], "MOV") == 0 || strcmp(nm[i], "IMAD.MOV.U32") == 0;
    }
    /* the stack-pointer load, ld.param (ULDC) and %r4 (UIADD3); not %r3,
     * whose second write is under the branch (so its mov 0 is not either),
     * nor %r5 and %r6 (the tid move is an sreg read): vector operations */
    ck_assert_uint_eq(uni, 3);
    ck_assert_uint_eq(vec, 4);
}
END_TEST

/* ---- the lowering rules (ptx_lower.c), one kernel each ------------------- */

/* The multiset of opcode names warp 0 issues, sorted and joined by spaces. */
static void
issued(const char *const *lines, size_t n, uint32_t scalar, char *out, size_t size)
{
    static struct warp_inst w[512];
    static char nm[512][NAME_MAX];
    unsigned k = stream_named(lines, n, scalar, 90, w, nm, 512);
    qsort(nm, k, NAME_MAX, (int (*)(const void *, const void *))strcmp);
    out[0] = '\0';
    for (unsigned i = 0; i < k; i++) {
        strncat(out, i ? " " : "", size - strlen(out) - 1);
        strncat(out, nm[i], size - strlen(out) - 1);
    }
}

/* The kernel's body between a common head (two parameters, %tid in %r2,
 * the output pointer in %rd2) and `ret`. */
#define KHEAD ".version 9.0", ".target sm_90", ".address_size 64", \
    ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)", "{", \
    "    .reg .pred %p<8>;", "    .reg .b32 %r<32>;", "    .reg .f32 %f<16>;", \
    "    .reg .b64 %rd<32>;", "    .shared .align 16 .b8 sm[512];", \
    "    ld.param.u64 %rd1, [k_param_0];", "    ld.param.u32 %r1, [k_param_1];", \
    "    mov.u32 %r2, %tid.x;", "    cvta.to.global.u64 %rd2, %rd1;", \
    "    mul.wide.u32 %rd3, %r2, 4;", "    add.s64 %rd4, %rd2, %rd3;"
#define KTAIL "    ret;", "}"
/* what the head issues: the stack pointer (LDC), the global descriptor
 * (ULDC.64), two parameters (ULDC), S2R, and IMAD.WIDE for %rd4 */
#define HEAD_OPS "IMAD.WIDE LDC S2R ULDC ULDC ULDC.64"

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* want: the expected names in any order, joined by spaces. */
static void
expect_issued(const char *const *lines, size_t n, uint32_t scalar, const char *want_any)
{
    char got[4096], buf[1024], want[1024] = "";
    const char *tok[128];
    unsigned nt = 0;
    snprintf(buf, sizeof buf, "%s", want_any);
    for (char *t = strtok(buf, " "); t != NULL && nt < 128; t = strtok(NULL, " "))
        tok[nt++] = t;
    qsort(tok, nt, sizeof *tok, cmp_str);
    for (unsigned i = 0; i < nt; i++) {
        strncat(want, i ? " " : "", sizeof want - strlen(want) - 1);
        strncat(want, tok[i], sizeof want - strlen(want) - 1);
    }
    issued(lines, n, scalar, got, sizeof got);
    ck_assert_msg(strcmp(got, want) == 0, "issued: %s\nexpected: %s", got, want);
    same_outputs(lines, n, scalar, NULL);
}

/* Folded away: cvta, the add of an immediate that is only an address
 * offset, a register rename; a mul.wide fused into its add (IMAD.WIDE). */
START_TEST(test_fold_address)
{
    static const char *const ptx[] = {
        KHEAD,
        "    add.s64 %rd5, %rd4, 8;",
        "    ld.global.u32 %r3, [%rd5+-8];",
        "    mov.u32 %r4, %r3;",
        "    add.s32 %r5, %r4, %r2;",
        "    st.global.u32 [%rd4], %r5;",
        KTAIL,
    };
    char want[256];
    snprintf(want, sizeof want, "EXIT IADD3 %s LDG.E STG.E", HEAD_OPS);
    /* the reg + reg add: IADD3 or IMAD.IADD, by the pipes' balance */
    char got[4096];
    issued(ptx, SIM_ARRAY_LEN(ptx), 0, got, sizeof got);
    if (strstr(got, "IMAD.IADD") != NULL)
        snprintf(want, sizeof want, "EXIT IMAD.IADD %s LDG.E STG.E", HEAD_OPS);
    expect_issued(ptx, SIM_ARRAY_LEN(ptx), 0, want);
}
END_TEST

/* ptxas's choice between the ALU and the FMA form of an add (IADD3 or
 * VIADD) by the pipes' weighted use so far in the block: the FMA form when
 * they are equal (a block's first add), and an FP32 multiply weighing as
 * much as an IMAD (3) against an ALU operation's 4: after four FMULs and
 * two LOP3s (12 : 8) the add is an IADD3, after four and three (12 : 12)
 * a VIADD.  With FP32 at 2, the second would be a VIADD; at 4, the third
 * an IADD3. */
START_TEST(test_pipe_balance)
{
    static const char *const ptx[] = {
        KHEAD,
        "    cvt.rn.f32.u32 %f1, %r2;",
        "    bra.uni $L_a;",
        "$L_a:",
        "    add.s32 %r3, %r2, 5;",
        "    bra.uni $L_b;",
        "$L_b:",
        "    mul.f32 %f2, %f1, %f1;", "    mul.f32 %f3, %f2, %f1;",
        "    mul.f32 %f4, %f3, %f1;", "    mul.f32 %f5, %f4, %f1;",
        "    and.b32 %r4, %r2, 3;", "    and.b32 %r5, %r2, 6;",
        "    add.s32 %r6, %r2, 7;",
        "    bra.uni $L_c;",
        "$L_c:",
        "    mul.f32 %f6, %f5, %f1;", "    mul.f32 %f7, %f6, %f1;",
        "    mul.f32 %f8, %f7, %f1;", "    mul.f32 %f9, %f8, %f1;",
        "    and.b32 %r7, %r2, 12;", "    and.b32 %r8, %r2, 24;", "    and.b32 %r9, %r2, 48;",
        "    add.s32 %r10, %r2, 9;",
        "    bra.uni $L_d;",
        "$L_d:",
        "    mov.b32 %r11, %f9;",
        "    xor.b32 %r12, %r3, %r4;", "    xor.b32 %r12, %r12, %r5;",
        "    xor.b32 %r12, %r12, %r6;", "    xor.b32 %r12, %r12, %r7;",
        "    xor.b32 %r12, %r12, %r8;", "    xor.b32 %r12, %r12, %r9;",
        "    xor.b32 %r12, %r12, %r10;", "    xor.b32 %r12, %r12, %r11;",
        "    st.global.u32 [%rd4], %r12;",
        KTAIL,
    };
    static struct warp_inst w[256];
    static char nm[256][NAME_MAX];
    unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, nm, 256);
    char got[256] = "";
    for (unsigned i = 0; i < k; i++)
        if (strcmp(nm[i], "VIADD") == 0 || strcmp(nm[i], "IADD3") == 0) {
            strncat(got, got[0] ? " " : "", sizeof got - strlen(got) - 1);
            strncat(got, nm[i], sizeof got - strlen(got) - 1);
        }
    ck_assert_str_eq(got, "VIADD IADD3 VIADD");
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* 64-bit integers: two operations an add, compare or select; shl + add is
 * LEA, LEA.HI.X; a multiply by a small constant plus an immediate is two
 * moves and three IMADs; a right shift by 32 or more one SHF; a zero
 * extension sets the high word, a truncation is free. */
START_TEST(test_int64)
{
    static const char *const ptx[] = {
        KHEAD,
        "    cvt.u64.u32 %rd5, %r2;",            /* IMAD.MOV.U32 / MOV: RZ high word */
        "    mul.lo.s64 %rd6, %rd5, 3;",         /* fused into the add below */
        "    add.s64 %rd7, %rd6, 1;",            /* 2 moves + IMAD.WIDE.U32, IMAD, IMAD.IADD */
        "    shr.u64 %rd8, %rd7, 33;",           /* SHF.R.U32.HI */
        "    add.s64 %rd9, %rd8, %rd5;",         /* IADD3, IMAD.X */
        "    setp.lt.u64 %p1, %rd9, %rd7;",      /* ISETP, ISETP.EX */
        "    selp.b64 %rd10, %rd9, %rd7, %p1;",  /* SEL, SEL */
        "    shl.b64 %rd11, %rd10, 2;",          /* fused: LEA, LEA.HI.X */
        "    add.s64 %rd12, %rd11, %rd9;",
        "    cvt.u32.u64 %r3, %rd12;",           /* free */
        "    st.global.u32 [%rd4], %r3;",
        KTAIL,
    };
    char got[4096];
    issued(ptx, SIM_ARRAY_LEN(ptx), 0, got, sizeof got);
    static const char *const must[] = {
        "IMAD.WIDE.U32", "IMAD.IADD", "SHF.R.U32.HI", "IMAD.X", "ISETP", "ISETP.EX", "SEL",
        "LEA", "LEA.HI.X", "STG.E",
    };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(must); i++)
        ck_assert_msg(strstr(got, must[i]) != NULL, "%s missing: %s", must[i], got);
    /* 6 head operations, 1 + 5 + 1 + 2 + 2 + 2 + 2 for the 64-bit ones, STG, EXIT */
    unsigned ops = 1;
    for (const char *p = got; (p = strchr(p, ' ')) != NULL; p++)
        ops++;
    ck_assert_uint_eq(ops, 6 + 15 + 2);
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* IMAD.WIDE holds the FMA pipe 4 cycles, IMAD 2: ptxas's stall counts
 * in the spin probe's loop (IMAD.WIDE.U32 then IMAD: 4; IMAD then
 * IMAD.MOV: 2).  Independent multiplies of a lane value, one wide. */
START_TEST(test_wide_interval)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mul.lo.s32 %r3, %r2, 5;",
        "    mul.lo.s32 %r4, %r2, 9;",
        "    mul.wide.u32 %rd5, %r2, 7;",
        "    mul.lo.s32 %r5, %r2, 11;",
        "    mul.hi.u32 %r6, %r2, 13;",
        "    mul.lo.s32 %r7, %r2, 15;",
        "    add.s32 %r8, %r3, %r4;",
        "    add.s32 %r9, %r5, %r6;",
        "    add.s32 %r10, %r8, %r9;",
        "    add.s32 %r11, %r10, %r7;",
        "    cvt.u32.u64 %r12, %rd5;",
        "    add.s32 %r13, %r11, %r12;",
        "    st.global.u32 [%rd4], %r13;",
        KTAIL,
    };
    struct warp_inst w[48];
    unsigned n = stream(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, 48);
    unsigned wide = 0, after_wide = 0, after_imad = 0;
    for (unsigned i = 0; i + 1 < n; i++) {
        bool fma_next = w[i + 1].opclass == SIM_OPC_INT_MUL || w[i + 1].opclass == SIM_OPC_INT_WIDE;
        if (w[i].opclass == SIM_OPC_INT_WIDE) {
            wide++;
            if (fma_next) {
                ck_assert_msg(w[i].stall >= 4, "IMAD.WIDE at %u: stall %u", i, w[i].stall);
                after_wide++;
            }
        } else if (w[i].opclass == SIM_OPC_INT_MUL && fma_next) {
            ck_assert_msg(w[i].stall >= 2, "IMAD at %u: stall %u", i, w[i].stall);
            after_imad += w[i].stall == 2;
        }
    }
    /* the head's IMAD.WIDE for %rd4, mul.wide and mul.hi */
    ck_assert_uint_eq(wide, 3);
    ck_assert_uint_ge(after_wide, 1);
    ck_assert_uint_ge(after_imad, 1);     /* back to back at 2, not 4 */
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* A divisor's reciprocal (I2F.U32.RP, MUFU.RCP, F2I) is computed once
 * per basic block: two divisions by the parameter %r1 share it, a third
 * after a label computes it again, and one by a rewritten divisor too. */
static unsigned
count_of(const char *got, const char *name)
{
    unsigned c = 0;
    size_t n = strlen(name);
    for (const char *p = got; (p = strstr(p, name)) != NULL; p += n)
        c += (p == got || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '.');
    return c;
}

START_TEST(test_divisor_reciprocal)
{
    static const char *const ptx[] = {
        KHEAD,
        "    ld.global.s32 %r3, [%rd4];",
        "    add.s32 %r4, %r3, -1000;",
        "    div.s32 %r5, %r3, %r1;",
        "    div.s32 %r6, %r4, %r1;",            /* the same block: reciprocal reused */
        "    setp.gt.s32 %p1, %r5, 3;",
        "    @%p1 bra $L__1;",
        "    add.s32 %r6, %r6, 1;",
        "$L__1:",
        "    div.s32 %r7, %r4, %r1;",            /* a new block: computed again */
        "    add.s32 %r1, %r1, 1;",
        "    div.s32 %r8, %r3, %r1;",            /* a rewritten divisor: again */
        "    add.s32 %r9, %r5, %r6;",
        "    add.s32 %r9, %r9, %r7;",
        "    add.s32 %r9, %r9, %r8;",
        "    st.global.u32 [%rd4], %r9;",
        KTAIL,
    };
    char got[8192];
    issued(ptx, SIM_ARRAY_LEN(ptx), 7, got, sizeof got);
    ck_assert_msg(count_of(got, "MUFU") == 3, "MUFU.RCP x%u: %s", count_of(got, "MUFU"), got);
    ck_assert_uint_eq(count_of(got, "I2F"), 3);
    ck_assert_uint_eq(count_of(got, "IABS"), 3 * 2 + 1);   /* a reused divisor: only |dividend| */
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 7, NULL);
}
END_TEST

/* ... and once per function for a divisor defined once before its first
 * division (a parameter): ptxas keeps that reciprocal across blocks and
 * loops (ptxas 13.0 -arch=sm_90 on this very PTX: one I2F, one MUFU;
 * traces/sm90/stream.sass: 16 divisions by a parameter, 4 reciprocals,
 * none in the loop). */
START_TEST(test_divisor_reciprocal_across_blocks)
{
    static const char *const ptx[] = {
        KHEAD,
        "    ld.global.s32 %r3, [%rd4];",
        "    add.s32 %r4, %r3, -1000;",
        "    div.s32 %r5, %r3, %r1;",
        "    setp.gt.s32 %p1, %r5, 3;",
        "    @%p1 bra $L__1;",
        "    add.s32 %r4, %r4, 1;",
        "$L__1:",
        "    div.s32 %r7, %r4, %r1;",            /* another block, the same divisor: kept */
        "    rem.s32 %r8, %r3, %r1;",
        "    add.s32 %r9, %r5, %r7;",
        "    add.s32 %r9, %r9, %r8;",
        "    st.global.u32 [%rd4], %r9;",
        KTAIL,
    };
    char got[8192];
    issued(ptx, SIM_ARRAY_LEN(ptx), 7, got, sizeof got);
    ck_assert_msg(count_of(got, "MUFU") == 1, "MUFU.RCP x%u: %s", count_of(got, "MUFU"), got);
    ck_assert_uint_eq(count_of(got, "I2F"), 1);
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 7, NULL);
}
END_TEST

/* A float abs or neg read by float arithmetic is an operand modifier;
 * read by a store it is an operation (FADD.FTZ |x|, -0). */
START_TEST(test_fold_modifiers)
{
    static const char *const ptx[] = {
        KHEAD,
        "    cvt.rn.f32.u32 %f1, %r2;",
        "    neg.f32 %f2, %f1;",
        "    add.f32 %f3, %f2, 0f3F800000;",     /* FADD R, -R, 1 */
        "    abs.f32 %f4, %f3;",
        "    st.global.f32 [%rd4], %f4;",
        KTAIL,
    };
    char want[256];
    snprintf(want, sizeof want, "EXIT FADD FADD.FTZ I2FP.F32.U32 %s STG.E", HEAD_OPS);
    expect_issued(ptx, SIM_ARRAY_LEN(ptx), 0, want);
}
END_TEST

/* A barrier orders memory, not arithmetic or read-only loads: ptxas
 * hoists a later step's address arithmetic and its ld.global.nc
 * (LDG.E.CONSTANT) above the barriers of earlier steps (the SASS of
 * traces/mech/gload_bar_loop), while a plain global load stays after the
 * barrier before it, and nothing sinks below a barrier (bar_loop's FFMA
 * stays above its BAR.SYNC): here the POPC of the shared load. */
static const char *const BARRIERS_PTX[] = {
    KHEAD,
    "    mov.u32 %r3, sm;",
    "    shl.b32 %r4, %r2, 2;",
    "    add.s32 %r5, %r3, %r4;",
    "    ld.global.nc.u32 %r6, [%rd4];",
    "    add.s32 %r7, %r6, %r2;",
    "    st.shared.u32 [%r5], %r7;",
    "    bar.sync 0;",
    "    ld.shared.u32 %r8, [%r5];",
    "    popc.b32 %r9, %r8;",
    "    bar.sync 0;",
    "    add.s32 %r10, %r2, 1;",
    "    and.b32 %r11, %r10, 31;",
    "    mul.wide.u32 %rd6, %r11, 4;",
    "    add.s64 %rd5, %rd2, %rd6;",
    "    ld.global.nc.u32 %r12, [%rd5];",    /* may pass both barriers */
    "    ld.global.u32 %r13, [%rd4];",       /* stays after the second */
    "    add.s32 %r14, %r9, %r12;",
    "    add.s32 %r14, %r14, %r13;",
    "    add.s32 %r14, %r14, 1000;",
    "    st.global.u32 [%rd4], %r14;",
    KTAIL,
};

START_TEST(test_barriers)
{
    struct warp_inst w[48];
    char names[48][NAME_MAX];
    unsigned n = stream_named(BARRIERS_PTX, SIM_ARRAY_LEN(BARRIERS_PTX), 0, 90, w, names, 48);
    int ldg[3] = { -1, -1, -1 }, bar[2] = { -1, -1 }, popc = -1;
    unsigned nldg = 0, nbar = 0;
    for (unsigned i = 0; i < n; i++) {
        if (strncmp(names[i], "LDG", 3) == 0 && nldg < 3)
            ldg[nldg++] = (int)i;
        else if (strncmp(names[i], "BAR", 3) == 0 && nbar < 2)
            bar[nbar++] = (int)i;
        else if (strncmp(names[i], "POPC", 4) == 0)
            popc = (int)i;
    }
    ck_assert_uint_eq(nldg, 3);
    ck_assert_uint_eq(nbar, 2);
    ck_assert_int_ge(popc, 0);
    /* the two .nc loads before the first barrier, the plain one after the second */
    ck_assert_msg(ldg[1] < bar[0], "LDG at %d %d %d, BAR at %d %d", ldg[0], ldg[1], ldg[2],
                  bar[0], bar[1]);
    ck_assert_int_gt(ldg[2], bar[1]);
    ck_assert_int_lt(popc, bar[1]);
    uint32_t b[32];
    same_outputs(BARRIERS_PTX, SIM_ARRAY_LEN(BARRIERS_PTX), 0, b);
    for (unsigned l = 0; l < 32; l++)    /* the buffer starts zero */
        ck_assert_uint_eq(b[l], (uint32_t)__builtin_popcount(l) + 1000);
}
END_TEST

/* Loads of consecutive words from one 16-byte aligned base are one vector
 * load (LDS.128) that writes all four registers. */
START_TEST(test_merged_loads)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.u32 %r3, sm;",
        "    shl.b32 %r4, %r2, 4;",
        "    add.s32 %r5, %r3, %r4;",            /* sm + 16 tid: LEA */
        "    st.shared.u32 [%r5], %r2;",
        "    st.shared.u32 [%r5+4], %r2;",
        "    st.shared.u32 [%r5+8], %r1;",
        "    st.shared.u32 [%r5+12], %r2;",
        "    ld.shared.u32 %r6, [%r5];",
        "    ld.shared.u32 %r7, [%r5+4];",
        "    ld.shared.u32 %r8, [%r5+8];",
        "    ld.shared.u32 %r9, [%r5+12];",
        "    add.s32 %r10, %r6, %r7;",
        "    add.s32 %r11, %r8, %r9;",
        "    add.s32 %r12, %r10, %r11;",         /* three adds, one absorbed: IADD3 x 2 */
        "    st.global.u32 [%rd4], %r12;",
        KTAIL,
    };
    char got[4096];
    issued(ptx, SIM_ARRAY_LEN(ptx), 5, got, sizeof got);
    ck_assert_msg(strstr(got, "LDS.128") != NULL && strstr(got, "LDS ") == NULL &&
                  strstr(got, "LDS.128 LDS") == NULL, "one LDS.128: %s", got);
    ck_assert_msg(strstr(got, "S2UR") != NULL && strstr(got, "ULEA") != NULL, "%s", got);
    static struct warp_inst w[128];
    static char nm[128][NAME_MAX];
    unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 5, 90, w, nm, 128);
    for (unsigned i = 0; i < k; i++)
        if (strcmp(nm[i], "LDS.128") == 0) {
            ck_assert_uint_eq(w[i].n_dst, 4);
            ck_assert_uint_eq(w[i].width, 16);
        }
    uint32_t b[32];
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 5, b);
    ck_assert_uint_eq(b[3], 3 + 3 + 5 + 3);
}
END_TEST

/* The same with the offset masked, (tid << 4) & 240 as a register-tiled
 * GEMM computes it (traces/mech sgemm_reg): an 'and' with an immediate
 * keeps the alignment of the mask's lowest set bit, so the four loads are
 * still one LDS.128, as ptxas makes them. */
START_TEST(test_merged_loads_masked)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.u32 %r3, sm;",
        "    shl.b32 %r4, %r2, 4;",
        "    and.b32 %r13, %r4, 240;",
        "    add.s32 %r5, %r3, %r13;",
        "    st.shared.u32 [%r5], %r1;",
        "    st.shared.u32 [%r5+4], %r1;",
        "    st.shared.u32 [%r5+8], %r1;",
        "    st.shared.u32 [%r5+12], %r1;",
        "    bar.sync 0;",
        "    ld.shared.u32 %r6, [%r5];",
        "    ld.shared.u32 %r7, [%r5+4];",
        "    ld.shared.u32 %r8, [%r5+8];",
        "    ld.shared.u32 %r9, [%r5+12];",
        "    add.s32 %r10, %r6, %r7;",
        "    add.s32 %r11, %r8, %r9;",
        "    add.s32 %r12, %r10, %r11;",
        "    st.global.u32 [%rd4], %r12;",
        KTAIL,
    };
    char got[4096];
    issued(ptx, SIM_ARRAY_LEN(ptx), 5, got, sizeof got);
    ck_assert_msg(strstr(got, "LDS.128") != NULL && strstr(got, "LDS ") == NULL,
                  "one LDS.128: %s", got);
    uint32_t b[32];
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 5, b);
    for (unsigned l = 0; l < 32; l++)
        ck_assert_uint_eq(b[l], 4 * 5);
}
END_TEST

/* A short forward branch becomes predication: no branch, and the skipped
 * instructions issue for the whole warp, guarded, even when every lane
 * jumps.  A branch over a loop stays, inside BSSY ... BSYNC when its
 * lanes may split. */
START_TEST(test_branches)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.u32 %r3, 1;",
        "    setp.lt.u32 %p1, %r1, 100;",        /* every lane jumps (%r1 = 5) */
        "    @%p1 bra $L_a;",
        "    add.s32 %r3, %r3, %r2;",
        "    mul.lo.s32 %r3, %r3, 3;",
        "$L_a:",
        "    setp.lt.u32 %p2, %r2, 16;",         /* lanes split */
        "    @%p2 bra $L_b;",
        "$L_loop:",
        "    .pragma \"nounroll\";",
        "    add.s32 %r3, %r3, 2;",
        "    setp.lt.u32 %p3, %r3, 9;",
        "    @%p3 bra $L_loop;",
        "$L_b:",
        "    st.global.u32 [%rd4], %r3;",
        KTAIL,
    };
    char got[4096];
    issued(ptx, SIM_ARRAY_LEN(ptx), 5, got, sizeof got);
    ck_assert_msg(strstr(got, "BSSY") != NULL && strstr(got, "BSYNC") != NULL, "%s", got);
    static struct warp_inst w[256];
    static char nm[256][NAME_MAX];
    unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 5, 90, w, nm, 256);
    unsigned guarded_off = 0, bra = 0;
    for (unsigned i = 0; i < k; i++) {
        guarded_off += w[i].active_mask == 0 && strcmp(nm[i], "BRA") != 0;
        bra += strcmp(nm[i], "BRA") == 0;
    }
    ck_assert_uint_eq(guarded_off, 2);       /* the add and the multiply, predicated off */
    ck_assert_uint_ge(bra, 2);               /* the branch over the loop and its back edge */
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 5, NULL);
}
END_TEST

/* The outputs of a one-warp kernel as written and lowered: the same, and
 * lane l's is want[l / 8] (four groups of eight lanes). */
static void
expect_lane_groups(const char *const *ptx, size_t n, const uint32_t want[4])
{
    uint32_t b[32];
    same_outputs(ptx, n, 5, b);
    for (unsigned l = 0; l < 32; l++)
        ck_assert_msg(b[l] == want[l / 8], "lane %u: %#x, expected %#x", l, b[l], want[l / 8]);
}

/* A short forward branch is if-converted (the skipped instructions get
 * its predicate as their guard): an activemask in the region still sees
 * only the lanes that did not branch, as the PTX ISA says (a
 * predicated-off thread contributes 0).  The executor once wrote the
 * whole warp's active mask there, so the lowered kernel computed
 * 0xffffffff where the PTX as written gives 0xffffff00 (found by
 * tests/difftest.c). */
START_TEST(test_ifconv_activemask)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.u32 %r3, 0;",
        "    setp.lt.u32 %p1, %r2, 8;",          /* lanes 0 .. 7 jump */
        "    @%p1 bra $L_a;",
        "    activemask.b32 %r3;",
        "$L_a:",
        "    st.global.u32 [%rd4], %r3;",
        KTAIL,
    };
    static const uint32_t want[4] = { 0, 0xffffff00u, 0xffffff00u, 0xffffff00u };
    expect_lane_groups(ptx, SIM_ARRAY_LEN(ptx), want);
}
END_TEST

/* A region that writes its branch's predicate is not if-converted: the
 * lanes that skip it are fixed when the branch executes, but a guard read
 * after the write would see the new value (the lowering once predicated
 * the add below on the new %p1, so lanes 8 .. 23 skipped it; found by
 * tests/difftest.c). */
START_TEST(test_ifconv_guard_write)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.u32 %r3, 1;",
        "    setp.lt.u32 %p1, %r2, 8;",          /* lanes 0 .. 7 skip the region */
        "    @%p1 bra $L_a;",
        "    setp.lt.u32 %p1, %r2, 24;",         /* the region rewrites the predicate */
        "    add.s32 %r3, %r3, 2;",              /* every lane 8 .. 31 adds */
        "$L_a:",
        "    st.global.u32 [%rd4], %r3;",
        KTAIL,
    };
    static const uint32_t want[4] = { 1, 3, 3, 3 };
    expect_lane_groups(ptx, SIM_ARRAY_LEN(ptx), want);
}
END_TEST

/* A small counted loop without .pragma "nounroll" is unrolled 4 times by
 * ptxas: its counter, compare and branch issue once per 4 iterations (and
 * when it is left); its body every time. */
START_TEST(test_unrolled_loop)
{
    const char *ptx[] = {
        KHEAD,
        "    mov.u32 %r3, 0;",
        "    mov.u32 %r4, %r2;",
        "$L_loop:",
        "    mad.lo.s32 %r4, %r4, 5, 1;",
        "    add.s32 %r3, %r3, 1;",
        "    setp.lt.u32 %p1, %r3, %r1;",
        "    @%p1 bra $L_loop;",
        "    st.global.u32 [%rd4], %r4;",
        KTAIL,
    };
    static struct warp_inst w[256];
    static char nm[256][NAME_MAX];
    unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 12, 90, w, nm, 256);
    unsigned imad = 0, bra = 0, setp = 0;
    for (unsigned i = 0; i < k; i++) {
        imad += strcmp(nm[i], "IMAD") == 0;
        bra += strcmp(nm[i], "BRA") == 0;
        setp += strcmp(nm[i], "ISETP") == 0;
    }
    ck_assert_uint_eq(imad, 12);             /* the body: every iteration */
    ck_assert_uint_eq(bra, 3);               /* iterations 4, 8 and 12 */
    ck_assert_uint_eq(setp, 3);
    /* with the pragma: every iteration */
    ptx[19] = "    .pragma \"nounroll\"; mad.lo.s32 %r4, %r4, 5, 1;";
    k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 12, 90, w, nm, 256);
    bra = 0;
    for (unsigned i = 0; i < k; i++)
        bra += strcmp(nm[i], "BRA") == 0;
    ck_assert_uint_eq(bra, 12);
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 12, NULL);
}
END_TEST

/* A pointer the unrolled body steps by an immediate and reads only as an
 * address steps once per 4 iterations, as its counter does (ptxas folds
 * the other steps into the loads' offsets: row_walk in mech.sass); a
 * barrier in the body does not stop the unrolling (bar_loop).  A pointer
 * the body also reads as a value steps every iteration. */
START_TEST(test_unrolled_pointer)
{
    const char *ptx[] = {
        KHEAD,
        "    mov.u32 %r3, 0;",
        "    mov.u32 %r4, %r2;",
        "    mov.u64 %rd5, %rd2;",
        "$L_loop:",
        "    ld.global.u32 %r5, [%rd5];",
        "    add.s32 %r4, %r4, %r5;",
        "    bar.sync 0;",
        "    add.s64 %rd5, %rd5, 4;",
        "    add.s32 %r3, %r3, 1;",
        "    setp.lt.u32 %p1, %r3, %r1;",
        "    @%p1 bra $L_loop;",
        "    st.global.u32 [%rd4], %r4;",
        KTAIL,
    };
    static struct warp_inst w[256];
    static char nm[256][NAME_MAX];
    unsigned counts[2];
    for (int v = 0; v < 2; v++) {
        if (v == 1)    /* the pointer read as a value too */
            ptx[21] = "    cvt.u32.u64 %r6, %rd5; add.s32 %r4, %r4, %r6;";
        unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 12, 90, w, nm, 256);
        unsigned ldg = 0, bar = 0, bra = 0, step = 0;
        for (unsigned i = 0; i < k; i++) {
            ldg += strncmp(nm[i], "LDG", 3) == 0;
            bar += strncmp(nm[i], "BAR", 3) == 0;
            bra += strcmp(nm[i], "BRA") == 0;
            /* the high half of the 64-bit step (uniform here: UIMAD.X) */
            step += strstr(nm[i], "IMAD.X") != NULL || strstr(nm[i], "IADD3.X") != NULL;
        }
        ck_assert_uint_eq(ldg, 12);
        ck_assert_uint_eq(bar, 12);
        ck_assert_uint_eq(bra, 3);           /* iterations 4, 8 and 12 */
        counts[v] = step;
        same_outputs(ptx, SIM_ARRAY_LEN(ptx), 12, NULL);
    }
    ck_assert_uint_eq(counts[0], 3);         /* iterations 4, 8 and 12 */
    ck_assert_uint_eq(counts[1], 12);
}
END_TEST

/* __syncwarp (bar.warp.sync -1) in a loop is a barrier, not a fence:
 * the shared store stays before it and the load after it, but the
 * loop's counter and compare move above it, and the loop is unrolled as
 * one with bar.sync is (ptxas: smem_only in traces/mech/bar.sass, whose
 * IADD3 and ISETP issue between the first LDS and the NOPs, counter step
 * 16 where the PTX steps 4). */
START_TEST(test_warp_sync_loop)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.u32 %r3, sm;",
        "    shl.b32 %r4, %r2, 2;",
        "    add.s32 %r5, %r3, %r4;",
        "    xor.b32 %r6, %r4, 4;",
        "    add.s32 %r7, %r3, %r6;",
        "    mov.u32 %r8, %r2;",
        "    mov.u32 %r9, 0;",
        "$L_loop:",
        "    st.shared.u32 [%r5], %r8;",
        "    bar.warp.sync -1;",
        "    ld.shared.u32 %r10, [%r7];",
        "    add.s32 %r8, %r8, %r10;",
        "    bar.warp.sync -1;",
        "    add.s32 %r9, %r9, 1;",
        "    setp.lt.u32 %p1, %r9, %r1;",
        "    @%p1 bra $L_loop;",
        "    st.global.u32 [%rd4], %r8;",
        KTAIL,
    };
    static struct warp_inst w[256];
    static char nm[256][NAME_MAX];
    unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 12, 90, w, nm, 256);
    unsigned sync = 0, bra = 0, sts = 0;
    int last_sync = -1, last_setp = -1, last_sts = -1;
    for (unsigned i = 0; i < k; i++) {
        if (strcmp(nm[i], "WARPSYNC") == 0) {
            sync++;
            last_sync = (int)i;
            ck_assert_msg(last_sts >= 0, "a WARPSYNC at %u before any STS", i);
        } else if (strcmp(nm[i], "ISETP") == 0) {
            last_setp = (int)i;
        } else if (strncmp(nm[i], "STS", 3) == 0) {
            sts++;
            last_sts = (int)i;
        } else if (strncmp(nm[i], "LDS", 3) == 0) {
            /* the load stays after the sync that follows its store */
            ck_assert_int_gt((int)i, last_sync);
            ck_assert_int_gt(last_sync, last_sts);
        } else if (strcmp(nm[i], "BRA") == 0 && i + 1 < k && w[i + 1].pc < w[i].pc) {
            bra++;
            /* the compare was hoisted above the body's last sync */
            ck_assert_msg(last_setp >= 0 && last_setp < last_sync,
                          "ISETP at %d, the last WARPSYNC at %d", last_setp, last_sync);
        }
    }
    ck_assert_uint_eq(sts, 12);
    ck_assert_uint_eq(sync, 24);
    ck_assert_uint_eq(bra, 2);               /* taken after iterations 4 and 8 */
    uint32_t b[32];
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 12, b);
    for (uint32_t l = 0; l < 32; l++)        /* pairs add up, then double */
        ck_assert_uint_eq(b[l], (2 * (l & ~1u) + 1) << 11);
}
END_TEST

/* The IEEE sequences: rcp.rn.f32's fast path is 10 operations with a taken
 * branch over the slow path and a convergence point, div.rn.f32 8 with
 * FCHK, sqrt.rn.f32 10; an atomic whose result is unused is a reduction. */
START_TEST(test_sequences)
{
    static const char *const ptx[] = {
        KHEAD,
        "    cvt.rn.f32.u32 %f1, %r2;",
        "    add.f32 %f1, %f1, 0f3F800000;",
        "    rcp.rn.f32 %f2, %f1;",
        "    div.rn.f32 %f3, %f2, %f1;",
        "    sqrt.rn.f32 %f4, %f3;",
        "    st.global.f32 [%rd4], %f4;",
        "    atom.global.add.u32 %r5, [%rd4], 1;",
        KTAIL,
    };
    char got[4096];
    issued(ptx, SIM_ARRAY_LEN(ptx), 0, got, sizeof got);
    static const char *const must[] = { "MUFU.RCP", "FCHK", "MUFU.RSQ", "BSSY", "BSYNC",
                                        "FADD.FTZ", "REDG.E" };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(must); i++)
        ck_assert_msg(strstr(got, must[i]) != NULL, "%s missing: %s", must[i], got);
    unsigned ops = 1;
    for (const char *p = got; (p = strchr(p, ' ')) != NULL; p++)
        ops++;
    /* head 6, I2FP, FADD, 10 + 8 + 10, STG, REDG, EXIT */
    ck_assert_uint_eq(ops, 6 + 2 + 28 + 3);
    static struct warp_inst w[64];
    static char nm[64][NAME_MAX];
    unsigned k = stream_named(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, nm, 64);
    for (unsigned i = 0; i + 1 < k; i++)
        if (strcmp(nm[i], "BRA") == 0)        /* the model sees it taken */
            ck_assert_uint_ne(w[i + 1].pc, w[i].pc + 16);
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* An expansion of a value that is the same in every lane (a reciprocal of
 * a parameter, as hotspot's 1 / rx) cannot diverge: ptxas branches over
 * the slow-path call without a BSSY / BSYNC pair (traces_src_hotspot.sass);
 * of a lane's value it keeps them. */
START_TEST(test_uniform_expansion)
{
    static const char *const lane[] = {
        KHEAD,
        "    cvt.rn.f32.u32 %f1, %r2;",
        "    rcp.rn.f32 %f2, %f1;",
        "    st.global.f32 [%rd4], %f2;",
        KTAIL,
    };
    static const char *const param[] = {
        KHEAD,
        "    cvt.rn.f32.u32 %f1, %r1;",
        "    rcp.rn.f32 %f2, %f1;",
        "    st.global.f32 [%rd4], %f2;",
        KTAIL,
    };
    char got[2][4096];
    issued(lane, SIM_ARRAY_LEN(lane), 3, got[0], sizeof got[0]);
    issued(param, SIM_ARRAY_LEN(param), 3, got[1], sizeof got[1]);
    for (unsigned c = 0; c < 2; c++) {
        ck_assert_msg(strstr(got[c], "MUFU.RCP") != NULL, "case %u: %s", c, got[c]);
        ck_assert_msg((strstr(got[c], "BSSY") != NULL) == (c == 0), "case %u: %s", c, got[c]);
        ck_assert_msg((strstr(got[c], "BSYNC") != NULL) == (c == 0), "case %u: %s", c, got[c]);
    }
    same_outputs(param, SIM_ARRAY_LEN(param), 3, NULL);
}
END_TEST

/* Eight independent loads and their sum (test_register_budget,
 * test_reserved_registers; test_live_through puts them in a block of
 * their own). */
#define EIGHT_LOADS \
        "    ld.global.f32 %f1, [%rd2];", "    ld.global.f32 %f2, [%rd2+16];", \
        "    add.f32 %f9, %f1, %f2;", "    ld.global.f32 %f3, [%rd2+32];", \
        "    add.f32 %f9, %f9, %f3;", "    ld.global.f32 %f4, [%rd2+48];", \
        "    add.f32 %f9, %f9, %f4;", "    ld.global.f32 %f5, [%rd2+64];", \
        "    add.f32 %f9, %f9, %f5;", "    ld.global.f32 %f6, [%rd2+80];", \
        "    add.f32 %f9, %f9, %f6;", "    ld.global.f32 %f7, [%rd2+96];", \
        "    add.f32 %f9, %f9, %f7;", "    ld.global.f32 %f8, [%rd2+112];", \
        "    add.f32 %f9, %f9, %f8;"
static const char *const LOADS_PTX[] = {
    KHEAD, EIGHT_LOADS, "    st.global.f32 [%rd4], %f9;", KTAIL,
};

/* The index of the first FADD and of the last LDG.E of LOADS_PTX's
 * stream at `regs` (0: none). */
static void
loads_vs_add(const char *const *lines, size_t n, unsigned regs, unsigned *first_add,
             unsigned *last_load)
{
    struct warp_inst w[64];
    char nm[64][NAME_MAX];
    t_regs = regs;
    unsigned m = stream_named(lines, n, 0, 90, w, nm, 64);
    t_regs = 0;
    *first_add = *last_load = 0;
    for (unsigned i = 0; i < m; i++) {
        if (strcmp(nm[i], "FADD") == 0 && *first_add == 0)
            *first_add = i;
        if (strcmp(nm[i], "LDG.E") == 0)
            *last_load = i;
    }
    ck_assert_msg(*first_add > 0 && *last_load > 0, "regs %u: %u operations, no FADD or LDG",
                  regs, m);
}

/* The register budget: eight independent loads and a sum of them.  With
 * registers to spare ptxas issues every load first; at the launch's
 * `regs` (the kernel's live values and little more) the scheduler may not
 * hold all eight in flight: the first add comes before the last load. */
START_TEST(test_register_budget)
{
    unsigned first_add[2], last_load[2];
    const unsigned budget[2] = { 64, 6 };
    for (unsigned c = 0; c < 2; c++)
        loads_vs_add(LOADS_PTX, SIM_ARRAY_LEN(LOADS_PTX), budget[c], &first_add[c], &last_load[c]);
    ck_assert_msg(last_load[0] < first_add[0], "64 registers: loads %u, add %u", last_load[0],
                  first_add[0]);
    ck_assert_msg(last_load[1] > first_add[1], "6 registers: loads %u, add %u", last_load[1],
                  first_add[1]);
    uint32_t a[32], b[32];                   /* the order changes, the results do not */
    outputs(LOADS_PTX, SIM_ARRAY_LEN(LOADS_PTX), 0, 0, a);
    t_regs = 6;
    outputs(LOADS_PTX, SIM_ARRAY_LEN(LOADS_PTX), 0, 90, b);
    t_regs = 0;
    ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
}
END_TEST

/* ptxas reports the registers a kernel takes as its highest register + 3
 * (R1, the stack pointer, and two it never uses: every sm_90 listing of
 * shared/measured/h100/sass but one), so values get regs - 3.  The eight
 * loads of test_register_budget and their sum need 11: at regs = 14 every
 * load issues first, at 13 the first add comes before the last load. */
START_TEST(test_reserved_registers)
{
    const unsigned regs[2] = { 14, 13 };
    for (unsigned c = 0; c < 2; c++) {
        unsigned first_add, last_load;
        loads_vs_add(LOADS_PTX, SIM_ARRAY_LEN(LOADS_PTX), regs[c], &first_add, &last_load);
        ck_assert_msg((last_load < first_add) == (c == 0), "regs %u: last load %u, first add %u",
                      regs[c], last_load, first_add);
    }
}
END_TEST

/* Values live across a block that it does not touch (defined before it,
 * read after it) hold registers there too: the same eight loads in a
 * block of their own, with regs = 16, issue all first when nothing else
 * is live, and not when three more values pass through the block. */
START_TEST(test_live_through)
{
    static const char *const quiet[] = {
        KHEAD,
        "    setp.eq.u32 %p1, %r1, 7;",
        "    @%p1 bra BODY;",
        "BODY:",
        EIGHT_LOADS,
        "    st.global.f32 [%rd4], %f9;",
        KTAIL,
    };
    static const char *const busy[] = {
        KHEAD,
        "    mul.lo.u32 %r5, %r2, 3;",
        "    mul.lo.u32 %r6, %r2, 5;",
        "    mul.lo.u32 %r7, %r2, 7;",
        "    setp.eq.u32 %p1, %r1, 7;",
        "    @%p1 bra BODY;",
        "BODY:",
        EIGHT_LOADS,
        "    @%p1 bra TAIL;",
        "TAIL:",
        "    add.u32 %r8, %r5, %r6;",
        "    add.u32 %r8, %r8, %r7;",
        "    cvt.rn.f32.u32 %f10, %r8;",
        "    add.f32 %f9, %f9, %f10;",
        "    st.global.f32 [%rd4], %f9;",
        KTAIL,
    };
    for (unsigned c = 0; c < 2; c++) {
        unsigned first_add, last_load;
        if (c == 0)
            loads_vs_add(quiet, SIM_ARRAY_LEN(quiet), 16, &first_add, &last_load);
        else
            loads_vs_add(busy, SIM_ARRAY_LEN(busy), 16, &first_add, &last_load);
        ck_assert_msg((last_load < first_add) == (c == 0), "case %u: last load %u, first add %u",
                      c, last_load, first_add);
    }
    same_outputs(busy, SIM_ARRAY_LEN(busy), 7, NULL);
}
END_TEST

/* A wmma.mma is two HMMA.16816 on sm_90, each reading A and its half of
 * B.  Short of registers, ptxas loads B's second half after the first
 * HMMA, into the registers that read (the wmma_gemm listing, 32
 * registers: LDG R18, R19 after HMMA ... R12, R18); with room to spare
 * all eight loads go first.  The product is computed by the last HMMA,
 * so the first waits only for its own operands. */
START_TEST(test_wmma_split)
{
    static const char *const ptx[] = {
        KHEAD,
        "    .reg .b32 %a<8>;", "    .reg .b32 %b<8>;",
        "    .reg .f32 %c<8>;", "    .reg .f32 %d<8>;",
        "    mov.f32 %c0, 0f00000000;", "    mov.f32 %c1, 0f00000000;",
        "    mov.f32 %c2, 0f00000000;", "    mov.f32 %c3, 0f00000000;",
        "    mov.f32 %c4, 0f00000000;", "    mov.f32 %c5, 0f00000000;",
        "    mov.f32 %c6, 0f00000000;", "    mov.f32 %c7, 0f00000000;",
        "    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 "
        "{%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%rd2], %r1;",
        "    wmma.load.b.sync.aligned.col.m16n16k16.global.f16 "
        "{%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%rd2], %r1;",
        "    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 "
        "{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, "
        "{%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, "
        "{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};",
        "    wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], "
        "{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, %r1;",
        KTAIL,
    };
    static const char *const want[2] = { "LLLLLLHLLH", "LLLLLLLLHH" };
    const unsigned regs[2] = { 20, 24 };
    for (unsigned c = 0; c < 2; c++) {
        struct warp_inst w[96];
        char nm[96][NAME_MAX], got[32] = "";
        t_regs = regs[c];
        unsigned n = stream_named(ptx, SIM_ARRAY_LEN(ptx), 0, 90, w, nm, 96);
        t_regs = 0;
        size_t k = 0;
        for (unsigned i = 0; i < n && k + 1 < sizeof got; i++)
            if (strncmp(nm[i], "LDG", 3) == 0 || strncmp(nm[i], "HMMA", 4) == 0)
                got[k++] = nm[i][0] == 'L' ? 'L' : 'H';
        got[k] = '\0';
        ck_assert_msg(strcmp(got, want[c]) == 0, "regs %u: %s, want %s", regs[c], got, want[c]);
    }
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* A wmma.load is split into one load per register of the fragment (per
 * element for column-major .f16 A and B from global memory), each
 * writing its register and the register's repeat (.f16 A and B:
 * registers 4 .. 7 copy 0 .. 3).  With two loads whose fragments share
 * registers, the schedule interleaves their parts; a part must not write
 * the repeats of registers it does not load (the executor once rewrote
 * every register of the fragment in each part, so a part of A copied
 * %a0 into %a4 after a part of B had overwritten %a0; found by
 * tests/difftest.c). */
START_TEST(test_wmma_load_repeats)
{
    static const char *const ptx[] = {
        KHEAD,
        "    .reg .b32 %a<8>;",
        "    mad.lo.s32 %r3, %r2, 0x01030507, 0x10203;",
        "    st.global.u32 [%rd4], %r3;",
        "    wmma.load.a.sync.aligned.col.m16n16k16.global.f16 "      /* 62 bytes from ld 1 */
        "{%a0, %a1, %a2, %a3, %a4, %a5, %r10, %r11}, [%rd2], 1;",
        "    wmma.load.b.sync.aligned.col.m16n16k16.global.f16 "
        "{%r4, %r5, %r6, %r7, %r8, %a0, %a1, %a2}, [%rd2+64], 1;",
        "    xor.b32 %r12, %a4, %a5;",
        "    st.global.u32 [%rd4], %r12;",
        KTAIL,
    };
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* The registers of a split tensor operation beyond what one operation's
 * lists hold (4 destinations, 12 sources) still order it: the LDSM of a
 * wmma.load.a from shared memory writes all eight registers, and the last
 * HMMA of a wmma.mma reads A, B and C (24) and writes D (8).  A read of
 * %a5 or %d6 once moved above them and saw the old value (found by
 * tests/difftest.c). */
START_TEST(test_wmma_wide_parts)
{
    static const char *const ptx[] = {
        KHEAD,
        "    .reg .b32 %a<8>;", "    .reg .b32 %b<8>;",
        "    .reg .f32 %c<8>;", "    .reg .f32 %d<8>;",
        "    mov.u32 %r5, sm;",
        "    shl.b32 %r6, %r2, 4;",
        "    add.s32 %r7, %r5, %r6;",
        "    st.shared.v4.u32 [%r7], {%r2, %r2, %r2, %r2};",
        "    wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 "
        "{%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%r5], 4;",   /* in sm's 512 bytes */
        "    add.s32 %r8, %a5, 1;",
        "    wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 "
        "{%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%r5], 4;",
        "    wmma.load.c.sync.aligned.row.m16n16k16.shared.f32 "
        "{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%r5], 4;",
        "    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 "
        "{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, "
        "{%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, "
        "{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};",
        "    mov.b32 %r9, %d6;",
        "    xor.b32 %r10, %r9, %r8;",
        "    st.global.u32 [%rd4], %r10;",
        KTAIL,
    };
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 0, NULL);
}
END_TEST

/* Zeros of a register tuple (a vector store's data) are cleared two at a
 * time with CS2R, a lone zero with a move. */
START_TEST(test_zero_pairs)
{
    static const char *const ptx[] = {
        KHEAD,
        "    mov.f32 %f1, 0f00000000;",
        "    mov.f32 %f2, 0f00000000;",
        "    mov.f32 %f3, 0f00000000;",
        "    mov.f32 %f4, 0f00000000;",
        "    mov.u32 %r5, 0;",                    /* a lone zero: a move */
        "    cvt.u64.u32 %rd5, %r1;",
        "    mul.lo.s64 %rd6, %rd5, 12345;",      /* before the loop */
        "    mov.u32 %r3, 0;",
        "$L_loop:",
        "    .pragma \"nounroll\";",
        "    cvt.u64.u32 %rd7, %r3;",
        "    add.s64 %rd8, %rd6, %rd7;",
        "    cvt.u32.u64 %r4, %rd8;",
        "    add.s32 %r5, %r5, %r4;",
        "    add.s32 %r3, %r3, 1;",
        "    setp.lt.u32 %p1, %r3, 8;",
        "    @%p1 bra $L_loop;",
        "    st.global.u32 [%rd4], %r5;",
        "    st.global.v4.f32 [%rd2+64], {%f1, %f2, %f3, %f4};",
        KTAIL,
    };
    struct warp_inst w[256];
    char nm[256][NAME_MAX];
    unsigned n = stream_named(ptx, SIM_ARRAY_LEN(ptx), 3, 90, w, nm, 256);
    unsigned cs2r = 0;
    for (unsigned i = 0; i < n; i++)
        cs2r += strcmp(nm[i], "CS2R") == 0;
    ck_assert_uint_eq(cs2r, 2);              /* f1:f2 and f3:f4 */
    same_outputs(ptx, SIM_ARRAY_LEN(ptx), 3, NULL);
}
END_TEST

/* Every row of the table names a Hopper SASS opcode (or alternatives of
 * them), and every expansion has exactly one row that performs the PTX
 * instruction -- checked by lowering each key's instruction above; here
 * the names. */
START_TEST(test_table)
{
    unsigned n = ptx_lower_emit_rows();
    ck_assert_uint_gt(n, 100);
    for (unsigned i = 0; i < n; i++) {
        const char *key, *sass;
        ck_assert(ptx_lower_emit_row(i, &key, &sass));
        char buf[128];
        snprintf(buf, sizeof buf, "%s", sass);
        for (char *tok = strtok(buf, "|"); tok != NULL; tok = strtok(NULL, "|")) {
            struct sass_decoded d;
            ck_assert_msg(sass_decode(SASS_HOPPER, tok, strlen(tok), &d) == 0,
                          "row %u (%s): '%s' is not a Hopper opcode", i, key, tok);
        }
    }
    const char *key, *sass;
    ck_assert(!ptx_lower_emit_row(n, &key, &sass));
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("ptx_sched");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, test_loop_schedule);
    tcase_add_test(tc, test_same_results);
    tcase_add_test(tc, test_warp_operands);
    tcase_add_test(tc, test_spaces);
    tcase_add_test(tc, test_barriers);
    tcase_add_test(tc, test_lowering);
    tcase_add_test(tc, test_uniform_regions);
    tcase_add_test(tc, test_fold_address);
    tcase_add_test(tc, test_int64);
    tcase_add_test(tc, test_wide_interval);
    tcase_add_test(tc, test_divisor_reciprocal);
    tcase_add_test(tc, test_divisor_reciprocal_across_blocks);
    tcase_add_test(tc, test_register_budget);
    tcase_add_test(tc, test_reserved_registers);
    tcase_add_test(tc, test_wmma_split);
    tcase_add_test(tc, test_wmma_load_repeats);
    tcase_add_test(tc, test_wmma_wide_parts);
    tcase_add_test(tc, test_live_through);
    tcase_add_test(tc, test_zero_pairs);
    tcase_add_test(tc, test_fold_modifiers);
    tcase_add_test(tc, test_merged_loads);
    tcase_add_test(tc, test_merged_loads_masked);
    tcase_add_test(tc, test_branches);
    tcase_add_test(tc, test_ifconv_activemask);
    tcase_add_test(tc, test_ifconv_guard_write);
    tcase_add_test(tc, test_unrolled_loop);
    tcase_add_test(tc, test_unrolled_pointer);
    tcase_add_test(tc, test_warp_sync_loop);
    tcase_add_test(tc, test_sequences);
    tcase_add_test(tc, test_uniform_expansion);
    tcase_add_test(tc, test_pipe_balance);
    tcase_add_test(tc, test_table);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(suite)
