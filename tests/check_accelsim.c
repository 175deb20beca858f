/*
 * check_accelsim.c - the Accel-Sim trace reader and writer
 * (frontend/accelsim.c, accelsim_export.c).
 *
 *  - every trace in traces/accelsim/ simulates, with the instruction
 *    counts its lines say;
 *  - what a line means: address modes, generic windows, register pairs,
 *    RZ, immediates, L1 bypass, a memory op with no lanes;
 *  - the edge cases Accel-Sim trips on (insts = 0, no final newline) work;
 *  - every malformed input is exit status 2 naming file:line;
 *  - export then import gives identical statistics.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/sass/accelsim.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "frontend/smt/smt.h"
#include "sim/stats.h"
#include "testlib.h"

#ifdef HAVE_LZMA
#include <lzma.h>
#endif

static const char *
trace_path(const char *rel)
{
    static char p[1024];
    const char *srcdir = getenv("srcdir");
    snprintf(p, sizeof p, "%s/traces/accelsim/%s", srcdir ? srcdir : ".", rel);
    return p;
}

static void
open_trace(const char *path, int unknown, struct inst_source *src)
{
    struct sim_error err = { 0 };
    struct accelsim_opts o = { unknown };
    ck_assert_msg(accelsim_source_open(path, &o, src, &err) == SIM_OK, "%s", err.msg);
}

/* Run a source on the default GPU; returns the sim. */
static sim *
run(struct inst_source *src)
{
    struct sim_config c;
    testlib_config(&c, "sm.count = 8");
    return testlib_run(&c, src);
}

/* ---- the bundled traces ------------------------------------------------------ */

static const struct {
    const char *path;
    unsigned kernels;
    uint64_t warp_insts;
} bundled[] = {
    { "features", 2, 2 * 2 * 26 + 3 * 3 * 6 },
    { "pascal-v4-lineinfo/kernel-1.traceg", 1, 2 * 4 * 10 },
    { "kepler-v3/kernel-1.traceg", 1, 2 * 2 * 8 },
    { "tracer-1.2/kernel-1.traceg", 1, 2 * 2 * 5 },
    { "turing/kernel-1.traceg", 1, 2 * 2 * 9 },
    { "ampere/kernel-1.traceg", 1, 2 * 4 * 11 },
    { "hopper/kernel-1.traceg", 1, 4 * 7 },
    { "edge", 1, 3 * 3 },
};

START_TEST(bundled_traces_simulate)
{
    struct inst_source src;
    open_trace(trace_path(bundled[_i].path), ACCELSIM_UNKNOWN_ERROR, &src);
    sim *s = run(&src);
    ck_assert_uint_eq(sim_kernel_count(s), bundled[_i].kernels);
    uint64_t n = 0;
    for (size_t k = 0; k < sim_kernel_count(s); k++) {
        n += testlib_stat(s, k, "sm.warp_insts");
        ck_assert_uint_gt(sim_kernel(s, k)->cycles, 0);
    }
    ck_assert_uint_eq(n, bundled[_i].warp_insts);
    ck_assert_uint_eq(testlib_stat(s, 0, "sass.unknown_opcode_insts"), 0);
    sim_destroy(s);
    inst_source_destroy(&src);
}
END_TEST

/* The instructions of features/kernel-1, warp 0 of block 0, as decoded. */
START_TEST(line_meanings)
{
    struct inst_source src;
    struct kernel_info ki;
    struct sim_error err = { 0 };
    struct warp_inst w[32];
    open_trace(trace_path("features"), ACCELSIM_UNKNOWN_ERROR, &src);
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 1);
    ck_assert_str_eq(ki.name, "_Z8featuresPfS_");
    ck_assert_uint_eq(ki.isa, SIM_ISA_SASS);
    ck_assert_uint_eq(ki.isa_version, 70);
    ck_assert_uint_eq(ki.smem_static, 256);
    ck_assert_uint_eq(ki.regs_per_thread, 24);
    const struct sim_copy *cp;
    ck_assert_uint_eq(src.ops->copies(src.ctx, &cp), 2);
    ck_assert_uint_eq(cp[1].addr, UINT64_C(0x7f0000100000));
    ck_assert_uint_eq(cp[1].bytes, 65536);
    ck_assert_int_eq(src.ops->kernel_begin(src.ctx, 2, 1, &err), SIM_OK);
    ck_assert_int_eq(src.ops->block_begin(src.ctx, 0, 0, 0, &err), SIM_OK);
    unsigned n = 0;
    while (n < 32 && inst_source_next(&src, 0, 0, SIM_CYCLE_MAX, &w[n], &err) == 1)
        n++;
    ck_assert_uint_eq(n, 26);
    const uint64_t X = UINT64_C(0x7f0000000000), Y = UINT64_C(0x7f0000100000);
    /* IMAD.WIDE.U32 R2 <- R0, RZ: RZ makes no source */
    ck_assert_uint_eq(w[2].n_src, 1);
    ck_assert_uint_eq(w[2].src[0], 0);
    /* base+stride */
    ck_assert_uint_eq(w[3].addr[0], X);
    ck_assert_uint_eq(w[3].addr[31], X + 124);
    ck_assert_uint_eq(w[3].width, 4);
    ck_assert_uint_eq(w[3].space, SIM_SPACE_GLOBAL);
    /* base+delta, 64-bit: destination pair R6:R7 */
    ck_assert_uint_eq(w[4].addr[31], Y + 8 * 31);
    ck_assert_uint_eq(w[4].n_dst, 2);
    ck_assert_uint_eq(w[4].dst[1], 7);
    ck_assert_uint_eq(w[4].width, 8);
    /* list mode over 16 lanes */
    ck_assert_uint_eq(w[5].active_mask, 0xffffu);
    ck_assert_uint_eq(w[5].addr[1], X + 4 * 97);
    /* explicit shared: offsets as written; generic: by window */
    ck_assert_uint_eq(w[6].space, SIM_SPACE_SHARED);
    ck_assert_uint_eq(w[7].opclass, SIM_OPC_BARRIER);
    ck_assert_uint_eq(w[8].space, SIM_SPACE_SHARED);
    ck_assert_uint_eq(w[8].addr[0], 128);                /* shmem base subtracted */
    ck_assert_uint_eq(w[9].space, SIM_SPACE_LOCAL);
    ck_assert_uint_eq(w[9].flags, SIM_IF_STORE);
    ck_assert_uint_eq(w[10].space, SIM_SPACE_GLOBAL);
    /* no lanes */
    ck_assert_uint_eq(w[11].active_mask, 0);
    ck_assert_uint_eq(w[11].opclass, SIM_OPC_MEM);
    ck_assert_uint_eq(w[12].opclass, SIM_OPC_SFU);
    /* DFMA: pairs everywhere */
    ck_assert_uint_eq(w[13].opclass, SIM_OPC_FP64_FMA);
    ck_assert_uint_eq(w[13].n_dst, 2);
    ck_assert_uint_eq(w[13].n_src, 6);
    ck_assert_uint_eq(w[14].opclass, SIM_OPC_CONV64);
    ck_assert_uint_eq(w[15].flags, SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC | SIM_IF_BYPASS_L1);
    ck_assert_uint_eq(w[15].addr[5], X);                 /* stride 0 */
    ck_assert_uint_eq(w[16].space, SIM_SPACE_GLOBAL);    /* RED: generic, outside the windows */
    ck_assert_uint_eq(w[16].flags & (SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC),
                      SIM_IF_STORE | SIM_IF_ATOMIC);
    ck_assert_uint_eq(w[17].flags, SIM_IF_LOAD | SIM_IF_BYPASS_L1);
    ck_assert_uint_eq(w[18].opclass, SIM_OPC_WARP);
    /* a wide store's data register pair */
    ck_assert_uint_eq(w[20].n_src, 3);
    ck_assert_uint_eq(w[20].src[2], 15);
    ck_assert_uint_eq(w[21].flags, SIM_IF_BRANCH);
    ck_assert_uint_eq(w[21].active_mask, 0xffff0000u);
    ck_assert_uint_eq(w[24].aux, 1);                     /* DEPBAR.LE's immediate */
    ck_assert_uint_eq(w[25].flags, SIM_IF_EXIT);
    ck_assert_uint_eq(w[25].pc, 0x190);
    inst_source_destroy(&src);
}
END_TEST

/* Accel-Sim aborts on both; smsim simulates them. */
START_TEST(edge_cases_accelsim_trips_on)
{
    struct inst_source src;
    struct sim_error err = { 0 };
    struct kernel_info ki;
    struct warp_inst wi;
    open_trace(trace_path("edge"), ACCELSIM_UNKNOWN_ERROR, &src);
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 1);
    src.ops->kernel_begin(src.ctx, 1, 1, &err);
    ck_assert_int_eq(src.ops->block_begin(src.ctx, 0, 0, 0, &err), SIM_OK);
    ck_assert_int_eq(src.ops->block_begin(src.ctx, 1, 0, 0, &err), SIM_OK);
    ck_assert_int_eq(inst_source_next(&src, 0, 1, SIM_CYCLE_MAX, &wi, &err), 0);  /* insts = 0 */
    ck_assert_int_eq(inst_source_next(&src, 0, 0, SIM_CYCLE_MAX, &wi, &err), 1);
    /* the last line had no newline and the list ends without one */
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 0);
    inst_source_destroy(&src);
}
END_TEST

/* ---- malformed input ------------------------------------------------------- */


static void
write_text(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", testlib_dir, name);
    FILE *fp = fopen(p, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    ck_assert_int_eq(fclose(fp), 0);
}

/* A valid one-kernel trace (block (1,1,1) of 64 threads, grid (2,1,1)),
 * 16 header lines then the body; line numbers of the body start at 17. */
static const char *const GOOD[] = {
    /*  1 */ "-kernel name = _Z1kv",
    /*  2 */ "-kernel id = 1",
    /*  3 */ "-grid dim = (2,1,1)",
    /*  4 */ "-block dim = (64,1,1)",
    /*  5 */ "-shmem = 0",
    /*  6 */ "-nregs = 16",
    /*  7 */ "-binary version = 70",
    /*  8 */ "-cuda stream id = 0",
    /*  9 */ "-shmem base_addr = 0x00007f0ff0000000",
    /* 10 */ "-local mem base_addr = 0x00007f0ff2000000",
    /* 11 */ "-nvbit version = 1.7",
    /* 12 */ "-accelsim tracer version = 5",
    /* 13 */ "-enable lineinfo = 0",
    /* 14 */ "",
    /* 15 */ "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num ...",
    /* 16 */ "",
    /* 17 */ "#BEGIN_TB",
    /* 18 */ "thread block = 0,0,0",
    /* 19 */ "warp = 0",
    /* 20 */ "insts = 3",
    /* 21 */ "0000 ffffffff 1 R0 S2R 0 0 0",
    /* 22 */ "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0",
    /* 23 */ "0020 ffffffff 0 EXIT 0 0 0",
    /* 24 */ "warp = 1",
    /* 25 */ "insts = 2",
    /* 26 */ "0000 ffffffff 1 R0 S2R 0 0 0",
    /* 27 */ "0020 ffffffff 0 EXIT 0 0 0",
    /* 28 */ "#END_TB",
    /* 29 */ "#BEGIN_TB",
    /* 30 */ "thread block = 1,0,0",
    /* 31 */ "warp = 0",
    /* 32 */ "insts = 1",
    /* 33 */ "0020 ffffffff 0 EXIT 0 0 0",
    /* 34 */ "warp = 1",
    /* 35 */ "insts = 1",
    /* 36 */ "0020 ffffffff 0 EXIT 0 0 0",
    /* 37 */ "#END_TB",
};

/* Write k.traceg: GOOD with line `at` replaced by repl (NULL: deleted),
 * then extra lines appended. */
static void
write_kernel(unsigned at, const char *repl, const char *extra)
{
    char p[512];
    snprintf(p, sizeof p, "%s/k.traceg", testlib_dir);
    FILE *fp = fopen(p, "w");
    ck_assert_ptr_nonnull(fp);
    for (unsigned i = 0; i < SIM_ARRAY_LEN(GOOD); i++) {
        if (i + 1 == at) {
            if (repl != NULL)
                fprintf(fp, "%s\n", repl);
        } else {
            fprintf(fp, "%s\n", GOOD[i]);
        }
    }
    if (extra != NULL)
        fputs(extra, fp);
    ck_assert_int_eq(fclose(fp), 0);
}

/* Open and simulate testlib_dir/name; returns the status. */
static int
try_run(const char *name, int unknown, struct sim_error *err, uint64_t *unknown_count)
{
    char p[512];
    struct inst_source src;
    struct accelsim_opts o = { unknown };
    snprintf(p, sizeof p, "%s/%s", testlib_dir, name);
    int rc = accelsim_source_open(p, &o, &src, err);
    if (rc < 0)
        return rc;
    struct sim_config c;
    testlib_config(&c, "sm.count = 2");
    sim *s = sim_new(&c);
    rc = sim_run(s, &src, err);
    if (rc == SIM_OK && unknown_count != NULL)
        *unknown_count = testlib_stat(s, 0, "sass.unknown_opcode_insts");
    sim_destroy(s);
    inst_source_destroy(&src);
    return rc;
}

static void
expect_error(const char *name, const char *where, const char *frag)
{
    struct sim_error err = { 0 };
    int rc = try_run(name, ACCELSIM_UNKNOWN_ERROR, &err, NULL);
    ck_assert_msg(rc < 0, "expected an error (%s %s), the run succeeded", where, frag);
    ck_assert_msg(sim_error_exit_status(rc) == 2, "exit status %d: %s", sim_error_exit_status(rc),
                  err.msg);
    ck_assert_msg(where == NULL || strstr(err.msg, where) != NULL, "message lacks '%s': %s",
                  where, err.msg);
    ck_assert_msg(strstr(err.msg, frag) != NULL, "message lacks '%s': %s", frag, err.msg);
}

START_TEST(good_kernel_runs)
{
    struct sim_error err = { 0 };
    write_kernel(0, NULL, NULL);
    ck_assert_msg(try_run("k.traceg", ACCELSIM_UNKNOWN_ERROR, &err, NULL) == SIM_OK, "%s",
                  err.msg);
}
END_TEST

static const struct {
    unsigned at;
    const char *repl;                /* NULL deletes the line */
    const char *extra;
    const char *where;               /* "k.traceg:N:" */
    const char *frag;
} bad[] = {
    /* header */
    { 7, "-binary version = 71", NULL, "k.traceg:7:", "unknown binary version '71'" },
    { 7, "-binary version = 100", NULL, "k.traceg:7:", "unknown binary version" },
    { 12, "-accelsim tracer version = 6", NULL, "k.traceg:12:", "unknown accelsim tracer version" },
    { 3, "-grid dim = (0,1,1)", NULL, "k.traceg:3:", "expected grid dim" },
    { 4, "-block dim = (2048,1,1)", NULL, "k.traceg:4:", "at most 1024 threads" },
    { 6, "-nregs = lots", NULL, "k.traceg:6:", "bad nregs" },
    { 11, "-frobnicate = 3", NULL, "k.traceg:11:", "unknown header line '-frobnicate'" },
    { 11, "kernel name _Z1kv", NULL, "k.traceg:11:", "expected a '-key = value' header line" },
    { 7, NULL, NULL, "k.traceg", "no '-binary version = ...' line" },
    { 12, NULL, NULL, "k.traceg", "no '-accelsim tracer version = ...' line" },
    /* thread-block structure */
    { 17, "#BEGIN_BLOCK", NULL, "k.traceg:17:", "expected #BEGIN_TB" },
    { 18, "thread block = 2,0,0", NULL, "k.traceg:18:", "outside the grid" },
    { 30, "thread block = 0,0,0", NULL, "k.traceg:30:", "appears twice" },
    { 19, "warp = 2", NULL, "k.traceg:19:", "warp 2 of a block of 2 warps" },
    { 24, "warp = 0", NULL, "k.traceg:24:", "warp 0 appears twice" },
    { 20, "instructions = 3", NULL, "k.traceg:20:", "expected 'insts = N'" },
    { 20, "insts = 4", NULL, "k.traceg:24:", "'insts = 4' (line 20) but only 3 instruction lines" },
    { 20, "insts = 2", NULL, "k.traceg:23:", "expected 'warp = N' or #END_TB" },
    { 34, "#END_TB", NULL, "k.traceg:34:", "has no warp 1" },
    { 29, "", NULL, "k.traceg:30:", "expected #BEGIN_TB" },
    { 0, NULL, "#BEGIN_TB\nthread block = 1,0,0\n", "k.traceg:38:", "more thread blocks than" },
    { 37, NULL, NULL, "k.traceg:", "the file ends inside the thread block" },
    /* instruction lines: every field */
    { 22, "zz10 ffffffff 1 R2 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "expected a hex PC" },
    { 22, "0010 fffffffff 1 R2 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "32-bit active mask" },
    { 22, "0010 ffffffff x R2 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "number of destination registers" },
    { 22, "0010 ffffffff 1 Q2 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "expected a destination register" },
    { 22, "0010 ffffffff 1 R256 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "expected a destination register" },
    { 22, "0010 ffffffff 1 R2 FROB.E.SYS 1 R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "unknown opcodes for volta (binary version 70): FROB.E.SYS (line 22)" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS x R0 4 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "number of source registers" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 four 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "memory access width" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 32 1 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "at most 16" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 4 3 0x7f0000000000 4 0", NULL, "k.traceg:22:",
      "address mode 0, 1 or 2" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 4 1 7f00zz 4 0", NULL, "k.traceg:22:",
      "hex base address" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 4 0 0x7f0000000000 0x7f0000000004", NULL,
      "k.traceg:22:", "expected 32 hex addresses" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 4 2 0x7f0000000000 4 4", NULL, "k.traceg:22:",
      "expected 31 address deltas" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 4 1 0x7f0000000000 4 0 7", NULL, "k.traceg:22:",
      "unexpected '7' after the immediate" },
    { 22, "0010 ffffffff 1 R2 LDG.E.SYS 1 R0 0 0", NULL, "k.traceg:22:",
      "without a memory width and addresses" },
    { 21, "0000 ffffffff 1 R0 S2R 0 4 1 0x10 4 0", NULL, "k.traceg:21:",
      "not a memory instruction but has a memory width" },
    { 21, "0000 ffffffff 1 R0 S2R 0 0 zero", NULL, "k.traceg:21:", "expected an immediate" },
};

START_TEST(malformed_traces)
{
    write_kernel(bad[_i].at, bad[_i].repl, bad[_i].extra);
    expect_error("k.traceg", bad[_i].where, bad[_i].frag);
}
END_TEST

/* An unknown opcode: exit 2 by default; with alu, simulated and counted. */
START_TEST(unknown_opcode_policy)
{
    struct sim_error err = { 0 };
    uint64_t count = 0;
    write_kernel(21, "0000 ffffffff 1 R0 FROB.X 0 0 0", NULL);
    expect_error("k.traceg", "k.traceg:21:", "unknown opcodes for volta (binary version 70): "
                 "FROB.X (line 21)");
    ck_assert_msg(try_run("k.traceg", ACCELSIM_UNKNOWN_ALU, &err, &count) == SIM_OK, "%s",
                  err.msg);
    ck_assert_uint_eq(count, 1);
}
END_TEST

START_TEST(kernel_lists)
{
    write_kernel(0, NULL, NULL);
    write_text("kernelslist.g", "MemcpyHtoD,0x00007f0000000000,4096\nk.traceg\nk.traceg\n");
    struct sim_error err = { 0 };
    ck_assert_msg(try_run("kernelslist.g", 0, &err, NULL) == SIM_OK, "%s", err.msg);
    ck_assert_msg(try_run(".", 0, &err, NULL) == SIM_OK, "%s", err.msg);   /* the directory */
    write_text("kernelslist.g", "k.traceg\nMemcpyDtoH,0x1,4\n");
    expect_error("kernelslist.g", "kernelslist.g:2:", "expected 'MemcpyHtoD,...' or a kernel");
    write_text("kernelslist.g", "MemcpyHtoD,0x00007f0000000000\nk.traceg\n");
    expect_error("kernelslist.g", "kernelslist.g:1:", "expected MemcpyHtoD,0xADDRESS,BYTES");
    write_text("kernelslist.g", "k.traceg\nkernel-9.traceg\n");
    struct sim_error e2 = { 0 };
    ck_assert_int_eq(try_run("kernelslist.g", 0, &e2, NULL), SIM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(e2.msg, "kernelslist.g:2: "));
    ck_assert_ptr_nonnull(strstr(e2.msg, "kernel-9.traceg: cannot open"));
    /* kernels of two instruction sets in one list */
    char other[8192];
    snprintf(other, sizeof other, "%s", "");
    write_text("kernelslist.g", "k.traceg\nk2.traceg\n");
    char p[512];
    snprintf(p, sizeof p, "%s/k.traceg", testlib_dir);
    FILE *in = fopen(p, "r");
    size_t n = fread(other, 1, sizeof other - 1, in);
    fclose(in);
    other[n] = '\0';
    char *v = strstr(other, "= 70");
    v[2] = '8';
    v[3] = '6';
    write_text("k2.traceg", other);
    expect_error("kernelslist.g", "k2.traceg:7:", "every kernel of one run must use the same");
}
END_TEST

#ifdef HAVE_LZMA
/* .xz traces stream through liblzma: same statistics as the text. */
START_TEST(xz_equals_text)
{
    char p[512];
    write_kernel(0, NULL, NULL);
    snprintf(p, sizeof p, "%s/k.traceg", testlib_dir);
    FILE *in = fopen(p, "rb");
    static uint8_t text[1 << 16], z[1 << 16];
    size_t n = fread(text, 1, sizeof text, in), zn = 0;
    fclose(in);
    ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, text, n, z, &zn, sizeof z),
                     LZMA_OK);
    snprintf(p, sizeof p, "%s/k.traceg.xz", testlib_dir);
    FILE *out = fopen(p, "wb");
    fwrite(z, 1, zn, out);
    fclose(out);
    struct sim_error err = { 0 };
    ck_assert_msg(try_run("k.traceg.xz", 0, &err, NULL) == SIM_OK, "%s", err.msg);
    /* truncated: an error naming the file */
    out = fopen(p, "wb");
    fwrite(z, 1, zn - 30, out);
    fclose(out);
    expect_error("k.traceg.xz", "k.traceg.xz", "xz data corrupt or truncated");
}
END_TEST
#endif

/* ---- asynchronous copies and wide operands ----------------------------------- */

/* Write testlib_dir/w.traceg: one block of one warp of SASS binary
 * version `bin`, running the n instruction lines of body. */
static void
write_warp(unsigned bin, const char *const *body, unsigned n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/w.traceg", testlib_dir);
    FILE *fp = fopen(p, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "-kernel name = w\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
            "-shmem = 4096\n-nregs = 32\n-binary version = %u\n-cuda stream id = 0\n"
            "-shmem base_addr = 0x00007f0ff0000000\n"
            "-local mem base_addr = 0x00007f0ff2000000\n-nvbit version = 1.7\n"
            "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n#traces format = ...\n\n"
            "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = %u\n", bin, n);
    for (unsigned i = 0; i < n; i++)
        fprintf(fp, "%s\n", body[i]);
    fprintf(fp, "#END_TB\n");
    ck_assert_int_eq(fclose(fp), 0);
}

/* Latencies the timing tests count with: a first-touch global load is a
 * DRAM access of DRAM_LAT cycles, FP32 operations take FADD_LAT. */
#define DRAM_LAT 450u
#define FADD_LAT 4u
#define TIMING_CFG "dram.latency = 450; l2.hit_latency = 200; op.fp32.latency = 4;" \
                   "smem.latency = 23; op.tensor.latency = 33"

/* Cycles of the one-warp Ampere kernel body[0, n) on a small GPU
 * (testlib). */
static uint64_t
warp_cycles(const char *const *body, unsigned n)
{
    char p[512];
    struct inst_source src;
    struct sim_config c;
    write_warp(86, body, n);
    snprintf(p, sizeof p, "%s/w.traceg", testlib_dir);
    open_trace(p, ACCELSIM_UNKNOWN_ERROR, &src);
    testlib_small_config(&c, TIMING_CFG);
    sim *s = testlib_run(&c, &src);
    uint64_t cycles = sim_kernel(s, 0)->cycles;
    sim_destroy(s);
    inst_source_destroy(&src);
    return cycles;
}

/* A cp.async pipeline of two groups, one 16-byte copy each (one lane,
 * one DRAM sector: no bandwidth queueing): copy A (group 0) and its
 * commit; `delay` dependent FADDs of R10; copy B (group 1), whose global
 * address register is R10, so it issues after them, and its commit;
 * DEPBAR.LE keep (keep < 0: no DEPBAR); `tail` dependent FADDs of R20
 * (nothing the copies write); EXIT.  Returns the cycles. */
static uint64_t
async_cycles(unsigned delay, int keep, unsigned tail, bool one_group)
{
    static char lines[256][96];
    const char *body[256];
    unsigned n = 0, pc = 0;
#define LINE(...) (snprintf(lines[n], sizeof lines[n], __VA_ARGS__), body[n] = lines[n], n++, \
                   pc += 16)
    LINE("%04x 00000001 0 LDGSTS.E.BYPASS.128 2 R0 R2 16 0 0x7f0000000000 0", pc);
    if (!one_group)
        LINE("%04x ffffffff 0 LDGDEPBAR 0 0 0", pc);
    for (unsigned i = 0; i < delay; i++)
        LINE("%04x ffffffff 1 R10 FADD 2 R10 R10 0 0", pc);
    LINE("%04x 00000001 0 LDGSTS.E.BYPASS.128 2 R1 R10 16 0 0x7f0000100000 0", pc);
    LINE("%04x ffffffff 0 LDGDEPBAR 0 0 0", pc);
    if (keep >= 0)
        LINE("%04x ffffffff 0 DEPBAR.LE 0 0 %d", pc, keep);
    for (unsigned i = 0; i < tail; i++)
        LINE("%04x ffffffff 1 R20 FADD 2 R20 R20 0 0", pc);
    LINE("%04x ffffffff 0 EXIT 0 0 0", pc);
#undef LINE
    ck_assert_uint_lt(n, SIM_ARRAY_LEN(lines));
    return warp_cycles(body, n);
}

/* LDGSTS writes its group's accumulating register, LDGDEPBAR closes the
 * group, DEPBAR.LE N waits for all committed groups but the newest N
 * (frontend/async.h).  Copy A issues at 0 and lands at DRAM_LAT; copy B
 * issues after its commit (1) and `delay` FADDs, at 2 + delay x FADD_LAT,
 * and lands DRAM_LAT later; the tail's first FADD issues the cycle after
 * the DEPBAR, and the kernel ends when the last FADD's result or the last
 * copy lands. */
START_TEST(async_copy_groups)
{
    const uint64_t tail = 50 * FADD_LAT, b_issue = 2 + 10 * FADD_LAT;
    /* (b) DEPBAR.LE 1 waits for group 0 only: the tail starts after A */
    ck_assert_uint_eq(async_cycles(10, 1, 50, false), DRAM_LAT + 1 + tail);
    /* (c) DEPBAR.LE 0 waits for both: the tail starts after B */
    ck_assert_uint_eq(async_cycles(10, 0, 50, false), b_issue + DRAM_LAT + 1 + tail);
    /* a wait for none (N >= the committed groups) or no DEPBAR: the tail
     * runs at once and the kernel ends when B lands */
    ck_assert_uint_eq(async_cycles(10, 2, 50, false), b_issue + DRAM_LAT);
    ck_assert_uint_eq(async_cycles(10, -1, 50, false), b_issue + DRAM_LAT);
    /* (a) two groups in flight: B issues at 6, while A is, and the wait
     * for both ends DRAM_LAT after B, not after two DRAM accesses */
    ck_assert_uint_eq(async_cycles(1, 0, 10, false), 2 + FADD_LAT + DRAM_LAT + 1 + 10 * FADD_LAT);
    /* two copies of one group (no LDGDEPBAR between them) write one
     * register without waiting for each other; the group's wait lasts
     * until the later lands (B at 1 + 10 x FADD_LAT) */
    ck_assert_uint_eq(async_cycles(10, 0, 50, true), b_issue - 1 + DRAM_LAT + 1 + tail);
    ck_assert_uint_eq(async_cycles(10, 1, 50, true), b_issue - 1 + DRAM_LAT);
}
END_TEST

/* The instructions of testlib_dir/w.traceg, decoded (at most max). */
static unsigned
read_warp(const char *path, struct warp_inst *w, unsigned max)
{
    struct inst_source src;
    open_trace(path, ACCELSIM_UNKNOWN_ERROR, &src);
    return testlib_warp0(&src, 0, w, NULL, 0, max);
}

static void
expect_regs(const struct warp_inst *wi, unsigned line, const char *dst, const char *src)
{
    char d[128] = "", s[128] = "";
    size_t k = 0;
    for (unsigned i = 0; i < wi->n_dst; i++)
        k += (size_t)snprintf(d + k, sizeof d - k, "%s%u", i ? "," : "", wi->dst[i]);
    k = 0;
    for (unsigned i = 0; i < wi->n_src; i++)
        k += (size_t)snprintf(s + k, sizeof s - k, "%s%u", i ? "," : "", wi->src[i]);
    ck_assert_msg(strcmp(d, dst) == 0 && strcmp(s, src) == 0, "line %u: dst %s src %s, "
                  "expected dst %s src %s", line, d, s, dst, src);
}

/* Wide operands of tensor operations and LDSM/STSM: the registers the
 * PTX ISA's fragments per thread take (sass_regs.h). */
static const char *const WIDE[] = {
    "0000 ffffffff 1 R4 HMMA.16816.F32 3 R12 R18 R4 0 0",        /* A 4, B 2, C/D 4 */
    "0010 ffffffff 1 R4 HMMA.16816.F16 3 R12 R18 R4 0 0",        /* C/D 2 */
    "0020 ffffffff 1 R4 HMMA.1688.F32.TF32 3 R12 R18 R4 0 0",    /* A 4, B 2, C/D 4 */
    "0030 ffffffff 1 R4 HMMA.1688.F32 3 R12 R18 R4 0 0",         /* A 2, B 1, C/D 4 */
    "0040 ffffffff 1 R4 HMMA.1684.F32.TF32 3 R12 R18 R4 0 0",    /* A 2, B 1, C/D 4 */
    "0050 ffffffff 1 R4 IMMA.16832.S8.S8 3 R12 R18 R4 0 0",      /* A 4, B 2, C/D 4 */
    "0060 ffffffff 1 R4 IMMA.16816.U8.S8.SAT 3 R12 R18 R4 0 0",  /* A 2, B 1, C/D 4 */
    "0070 ffffffff 1 R4 HMMA.16816.F32.BF16 3 R12 R18 R255 0 0", /* C = RZ: none */
    "0080 ffffffff 1 R4 LDSM.16.M88.4 1 R0 16 1 0x0 16 0",        /* 4 matrices */
    "0090 ffffffff 1 R4 LDSM.16.MT88.2 1 R0 16 1 0x0 16 0",       /* 2 */
    "00a0 ffffffff 1 R4 LDSM.16.M88 1 R0 16 1 0x0 16 0",          /* 1 */
    "00b0 ffffffff 0 STSM.16.M88.4 2 R0 R4 16 1 0x0 16 0",        /* data: 4 */
    "00c0 ffffffff 1 R4 DMMA.884 3 R12 R18 R4 0 0",              /* f64: A 2, B 2, C/D 4 */
    "00d0 ffffffff 0 EXIT 0 0 0",
};

START_TEST(wide_operands)
{
    struct warp_inst w[16];
    char p[512];
    snprintf(p, sizeof p, "%s/w.traceg", testlib_dir);
    write_warp(90, WIDE, SIM_ARRAY_LEN(WIDE));
    ck_assert_uint_eq(read_warp(p, w, 16), SIM_ARRAY_LEN(WIDE));
    expect_regs(&w[0], 0, "4,5,6,7", "12,13,14,15,18,19,4,5,6,7");
    ck_assert_uint_eq(w[0].opclass, SIM_OPC_TENSOR);
    expect_regs(&w[1], 1, "4,5", "12,13,14,15,18,19,4,5");
    expect_regs(&w[2], 2, "4,5,6,7", "12,13,14,15,18,19,4,5,6,7");
    expect_regs(&w[3], 3, "4,5,6,7", "12,13,18,4,5,6,7");
    ck_assert_uint_eq(w[3].opclass, SIM_OPC_TENSOR_HALF);
    expect_regs(&w[4], 4, "4,5,6,7", "12,13,18,4,5,6,7");
    expect_regs(&w[5], 5, "4,5,6,7", "12,13,14,15,18,19,4,5,6,7");
    expect_regs(&w[6], 6, "4,5,6,7", "12,13,18,4,5,6,7");
    expect_regs(&w[7], 7, "4,5,6,7", "12,13,14,15,18,19");
    expect_regs(&w[8], 8, "4,5,6,7", "0");
    ck_assert_uint_eq(w[8].width, 16);
    expect_regs(&w[9], 9, "4,5", "0");
    expect_regs(&w[10], 10, "4", "0");
    expect_regs(&w[11], 11, "", "0,4,5,6,7");
    expect_regs(&w[12], 12, "4,5,6,7", "12,13,18,19,4,5,6,7");
}
END_TEST

/* An HMMA.16816 waits for a load into the fourth register of its A
 * fragment (R15 of R12..R15), not for one into the register after it. */
START_TEST(mma_waits_for_its_whole_fragment)
{
    static char load[96];
    const char *body[] = { load, "0010 ffffffff 1 R4 HMMA.16816.F32 3 R12 R18 R4 0 0",
                           "0020 ffffffff 0 EXIT 0 0 0" };
    const uint64_t tensor_lat = 33;                 /* op.tensor.latency of TIMING_CFG */
    snprintf(load, sizeof load, "0000 00000001 1 R15 LDG.E 1 R2 4 0 0x7f0000000000 0");
    ck_assert_uint_eq(warp_cycles(body, 3), DRAM_LAT + tensor_lat);
    /* R16 is no operand: the HMMA issues at 1, the kernel ends when the
     * load lands */
    snprintf(load, sizeof load, "0000 00000001 1 R16 LDG.E 1 R2 4 0 0x7f0000000000 0");
    ck_assert_uint_eq(warp_cycles(body, 3), DRAM_LAT);
    /* the fourth register of C (R7 of R4..R7) too */
    snprintf(load, sizeof load, "0000 00000001 1 R7 LDG.E 1 R2 4 0 0x7f0000000000 0");
    ck_assert_uint_eq(warp_cycles(body, 3), DRAM_LAT + tensor_lat);
}
END_TEST


/* ---- export -> import ----------------------------------------------------------- */

/* Statistics of every kernel of a run, flattened. */
static void
stats_of(sim *s, uint64_t *out, size_t cap, size_t *n)
{
    *n = 0;
    for (size_t k = 0; k < sim_kernel_count(s); k++) {
        const struct sim_kernel_result *kr = sim_kernel(s, k);
        const struct stats_snapshot *sn = sim_kernel_stats(s, k);
        ck_assert_uint_lt(*n + sn->n + 1, cap);
        out[(*n)++] = kr->cycles;
        memcpy(out + *n, sn->v, sn->n * sizeof *out);
        *n += sn->n;
    }
}

START_TEST(export_import_round_trips)
{
    static uint64_t a[1 << 16], b[1 << 16];
    size_t na, nb;
    struct inst_source src;
    struct sim_error err = { 0 };
    char smt[512], out[512];

    /* the statistics of the original */
    open_trace(trace_path(bundled[_i].path), 0, &src);
    sim *s = run(&src);
    stats_of(s, a, SIM_ARRAY_LEN(a), &na);
    sim_destroy(s);
    inst_source_destroy(&src);

    /* trace -> .smt -> Accel-Sim directory -> statistics */
    snprintf(smt, sizeof smt, "%s/t.smt", testlib_dir);
    snprintf(out, sizeof out, "%s/export", testlib_dir);
    struct record_totals rt;
    open_trace(trace_path(bundled[_i].path), 0, &src);
    ck_assert_msg(record_to_smt(&src, smt, "test", 0, &rt, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&src);
    ck_assert_int_eq(smt_source_open(smt, &src, &err), SIM_OK);
    struct accelsim_export_opts eo = { 0 };
    struct accelsim_export_totals et;
    ck_assert_msg(accelsim_export(&src, out, &eo, &et, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&src);
    ck_assert_uint_eq(et.warp_insts, bundled[_i].warp_insts);
    ck_assert_uint_eq(et.approximated, 0);
    open_trace(out, 0, &src);
    s = run(&src);
    stats_of(s, b, SIM_ARRAY_LEN(b), &nb);
    sim_destroy(s);
    inst_source_destroy(&src);
    ck_assert_uint_eq(na, nb);
    for (size_t i = 0; i < na; i++)
        ck_assert_msg(a[i] == b[i], "%s: statistic %zu differs: %" PRIu64 " vs %" PRIu64,
                      bundled[_i].path, i, a[i], b[i]);
}
END_TEST

/* The async copies and the wide operands read back as they were written:
 * a hand-written Hopper warp exported and re-read gives the same records. */
static const char *const ASYNC_WIDE[] = {
    "0000 00000001 0 LDGSTS.E.BYPASS.128 2 R0 R2 16 0 0x7f0000000000 0",
    "0010 ffffffff 0 LDGDEPBAR 0 0 0",
    "0020 00000003 0 LDGSTS.E.LTC128B.128 2 R1 R10 16 1 0x7f0000100000 16 0",
    "0030 ffffffff 0 LDGDEPBAR 0 0 0",
    "0040 ffffffff 0 DEPBAR.LE 0 0 1",
    "0050 ffffffff 0 DEPBAR.LE 0 0 5",                           /* waits for none */
    "0060 ffffffff 0 DEPBAR.LE 0 0 0",
};

START_TEST(export_keeps_groups_and_fragments)
{
    const char *body[32];
    unsigned n = 0;
    for (unsigned i = 0; i < SIM_ARRAY_LEN(ASYNC_WIDE); i++)
        body[n++] = ASYNC_WIDE[i];
    for (unsigned i = 0; i < SIM_ARRAY_LEN(WIDE); i++)
        body[n++] = WIDE[i];
    write_warp(90, body, n);
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/w.traceg", testlib_dir);
    snprintf(out, sizeof out, "%s/export", testlib_dir);
    struct inst_source src;
    struct sim_error err = { 0 };
    struct accelsim_export_opts eo = { 0 };
    struct accelsim_export_totals et;
    open_trace(in, ACCELSIM_UNKNOWN_ERROR, &src);
    ck_assert_msg(accelsim_export(&src, out, &eo, &et, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&src);
    ck_assert_uint_eq(et.regs_dropped + et.regs_folded + et.approximated + et.async_approx, 0);
    static struct warp_inst a[32], b[32];
    ck_assert_uint_eq(read_warp(in, a, 32), n);
    ck_assert_uint_eq(read_warp(out, b, 32), n);
    /* the group registers: copies write 0 and 1, the waits read 0 (LE 1),
     * nothing (LE 5), 0 and 1 (LE 0) */
    expect_regs(&a[0], 0, "65472", "0,2");
    expect_regs(&a[2], 2, "65473", "1,10");
    expect_regs(&a[4], 4, "", "65472");
    expect_regs(&a[5], 5, "", "");
    expect_regs(&a[6], 6, "", "65472,65473");
    for (unsigned i = 0; i < n; i++) {
        ck_assert_msg(a[i].opcode == b[i].opcode && a[i].opclass == b[i].opclass &&
                      a[i].flags == b[i].flags && a[i].aux == b[i].aux &&
                      a[i].width == b[i].width && a[i].space == b[i].space &&
                      a[i].active_mask == b[i].active_mask, "line %u differs", i);
        char dst[128] = "", srcs[128] = "";
        size_t k = 0;
        for (unsigned j = 0; j < a[i].n_dst; j++)
            k += (size_t)snprintf(dst + k, sizeof dst - k, "%s%u", j ? "," : "", a[i].dst[j]);
        k = 0;
        for (unsigned j = 0; j < a[i].n_src; j++)
            k += (size_t)snprintf(srcs + k, sizeof srcs - k, "%s%u", j ? "," : "", a[i].src[j]);
        expect_regs(&b[i], i, dst, srcs);
    }
}
END_TEST

/* A digest of the group registers every instruction of a source writes
 * and reads, in record order. */
struct acc_digest {
    uint64_t h, with_acc;
};

static int
digest_inst(void *ctx, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    struct acc_digest *d = ctx;
    bool any = false;
    (void)err;
    d->h = d->h * 1000003u + warp;
    for (unsigned i = 0; i < wi->n_dst; i++)
        if (wi->dst[i] >= SIM_REG_ACC_BASE) {
            d->h = d->h * 1000003u + wi->dst[i];
            any = true;
        }
    for (unsigned i = 0; i < wi->n_src; i++)
        if (wi->src[i] >= SIM_REG_ACC_BASE) {
            d->h = d->h * 1000003u + 7u * wi->src[i];
            any = true;
        }
    d->with_acc += any;
    return SIM_OK;
}

static int
digest_kernel(void *ctx, const struct kernel_info *ki, struct sim_error *err)
{
    (void)ctx;
    (void)ki;
    (void)err;
    return SIM_OK;
}

static int
digest_block(void *ctx, uint64_t id, struct sim_error *err)
{
    struct acc_digest *d = ctx;
    (void)err;
    d->h = d->h * 1000003u + id;
    return SIM_OK;
}

static int
digest_end(void *ctx, struct sim_error *err)
{
    (void)ctx;
    (void)err;
    return SIM_OK;
}

static struct acc_digest
digest(struct inst_source *src)
{
    struct acc_digest d = { 0, 0 };
    struct record_sink sink = { digest_kernel, digest_block, digest_inst, digest_end, digest_end,
                                &d };
    struct record_totals rt;
    struct sim_error err = { 0 };
    ck_assert_msg(record_drive(src, &sink, &rt, &err) == SIM_OK, "%s", err.msg);
    return d;
}

/* A PTX cp.async pipeline (traces/tensor/cp_async_stages.launch: commit,
 * wait_group 1 per stage) exported as Hopper SASS reads back with the
 * group registers it had. */
START_TEST(export_ptx_cp_async)
{
    char launch[512], out[512];
    const char *srcdir = getenv("srcdir");
    snprintf(launch, sizeof launch, "%s/traces/tensor/cp_async_stages.launch",
             srcdir ? srcdir : ".");
    snprintf(out, sizeof out, "%s/export", testlib_dir);
    struct inst_source src;
    struct sim_error err = { 0 };
    ck_assert_msg(ptx_source_open(launch, &src, &err) == SIM_OK, "%s", err.msg);
    struct acc_digest want = digest(&src);
    inst_source_destroy(&src);
    ck_assert_uint_gt(want.with_acc, 1000);
    ck_assert_msg(ptx_source_open(launch, &src, &err) == SIM_OK, "%s", err.msg);
    struct accelsim_export_opts eo = { 90 };
    struct accelsim_export_totals et;
    ck_assert_msg(accelsim_export(&src, out, &eo, &et, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&src);
    ck_assert_uint_eq(et.async_approx, 0);
    open_trace(out, ACCELSIM_UNKNOWN_ERROR, &src);
    struct acc_digest got = digest(&src);
    inst_source_destroy(&src);
    ck_assert_uint_eq(got.with_acc, want.with_acc);
    ck_assert_uint_eq(got.h, want.h);
    /* Volta has no LDGSTS: the copies and waits are approximations, said so */
    ck_assert_msg(ptx_source_open(launch, &src, &err) == SIM_OK, "%s", err.msg);
    eo.binary_version = 70;
    ck_assert_msg(accelsim_export(&src, out, &eo, &et, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&src);
    ck_assert_uint_gt(et.async_approx, 0);
}
END_TEST

static Suite *
accelsim_suite(void)
{
    Suite *s = suite_create("accelsim");
    TCase *tc = tcase_create("traces");
    tcase_add_loop_test(tc, bundled_traces_simulate, 0, (int)SIM_ARRAY_LEN(bundled));
    tcase_add_test(tc, line_meanings);
    tcase_add_test(tc, edge_cases_accelsim_trips_on);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_test(tc, good_kernel_runs);
    tcase_add_loop_test(tc, malformed_traces, 0, (int)SIM_ARRAY_LEN(bad));
    tcase_add_test(tc, unknown_opcode_policy);
    tcase_add_test(tc, kernel_lists);
    tcase_add_test(tc, async_copy_groups);
    tcase_add_test(tc, wide_operands);
    tcase_add_test(tc, mma_waits_for_its_whole_fragment);
#ifdef HAVE_LZMA
    tcase_add_test(tc, xz_equals_text);
#endif
    suite_add_tcase(s, tc);
    tc = tcase_create("export");
    tcase_add_checked_fixture(tc, testlib_dir_setup, testlib_dir_teardown);
    tcase_add_loop_test(tc, export_import_round_trips, 0, (int)SIM_ARRAY_LEN(bundled));
    tcase_add_test(tc, export_keeps_groups_and_fragments);
    tcase_add_test(tc, export_ptx_cp_async);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(accelsim_suite)
