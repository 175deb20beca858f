/*
 * check_ptxlink.c - the device link of relocatable PTX (cudart/ptxlink.c)
 * without a CUDA toolkit: two modules written as nvcc -rdc=true writes
 * them (an .extern function and variable the other defines, a .weak
 * function in both, internal names in both), linked, loaded with libsmsim
 * and run: the kernel's results say every reference resolved to the right
 * definition.  And a module that is not PTX at module scope.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/ptxlink.h"
#include "lib/smsim.h"
#include "testlib.h"

/* out[t] = twice(t) + bias + weak_one(t) + own(t) + counter (before the atomic) */
static const char unit_a[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    "// a comment with { braces } and ; semicolons\n"
    ".extern .func  (.param .b32 func_retval0) twice\n(\n\t.param .b32 twice_param_0\n)\n;\n"
    ".extern .global .align 4 .u32 counter;\n"
    ".global .align 4 .u32 bias = 100;\n"
    ".weak .func  (.param .b32 func_retval0) weak_one(\n\t.param .b32 weak_one_param_0\n)\n"
    "{\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [weak_one_param_0];\n"
    "\tadd.s32 %r2, %r1, 1;\n\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
    ".func  (.param .b32 func_retval0) own(\n\t.param .b32 own_param_0\n)\n"
    "{\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [own_param_0];\n"
    "\tmul.lo.s32 %r2, %r1, 10;\n\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
    ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
    "\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0+0], %r1;\n\t.param .b32 r0;\n"
    "\tcall.uni (r0), twice, (p0);\n\tld.param.b32 %r2, [r0+0];\n\t}\n"
    "\t{\n\t.param .b32 p1;\n\tst.param.b32 [p1+0], %r1;\n\t.param .b32 r1;\n"
    "\tcall.uni (r1), weak_one, (p1);\n\tld.param.b32 %r3, [r1+0];\n\t}\n"
    "\t{\n\t.param .b32 p2;\n\tst.param.b32 [p2+0], %r1;\n\t.param .b32 r2;\n"
    "\tcall.uni (r2), own, (p2);\n\tld.param.b32 %r4, [r2+0];\n\t}\n"
    "\tld.global.u32 %r5, [bias];\n\tld.global.u32 %r6, [counter];\n"
    "\tadd.s32 %r7, %r2, %r3;\n\tadd.s32 %r8, %r7, %r4;\n\tadd.s32 %r9, %r8, %r5;\n"
    "\tadd.s32 %r10, %r9, %r6;\n"
    "\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tst.global.u32 [%rd4], %r10;\n\tret;\n}\n";

/* twice(x) = 2 x + own(x) (its own `own`: x + 5); counter = 7; bias = 1 here */
static const char unit_b[] =
    ".version 8.3\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter = 7;\n"
    ".global .align 4 .u32 bias = 1;\n"
    ".func  (.param .b32 func_retval0) own(\n\t.param .b32 own_param_0\n)\n"
    "{\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [own_param_0];\n"
    "\tadd.s32 %r2, %r1, 5;\n\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
    ".weak .func  (.param .b32 func_retval0) weak_one(\n\t.param .b32 weak_one_param_0\n)\n"
    "{\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [weak_one_param_0];\n"
    "\tadd.s32 %r2, %r1, 1;\n\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
    ".visible .func  (.param .b32 func_retval0) twice(\n\t.param .b32 twice_param_0\n)\n"
    "{\n\t.reg .b32 %r<6>;\n\tld.param.u32 %r1, [twice_param_0];\n"
    "\t{\n\t.param .b32 q0;\n\tst.param.b32 [q0+0], %r1;\n\t.param .b32 s0;\n"
    "\tcall.uni (s0), own, (q0);\n\tld.param.b32 %r2, [s0+0];\n\t}\n"
    "\tld.global.u32 %r4, [bias];\n"
    "\tshl.b32 %r3, %r1, 1;\n\tadd.s32 %r5, %r3, %r2;\n\tadd.s32 %r5, %r5, %r4;\n"
    "\tst.param.b32 [func_retval0+0], %r5;\n\tret;\n}\n";

START_TEST(links_and_runs)
{
    char *texts[2] = { (char *)unit_a, (char *)unit_b };
    size_t lens[2] = { sizeof unit_a - 1, sizeof unit_b - 1 }, len = 0;
    char why[256] = "";
    char *linked = ptxlink(texts, lens, 2, &len, why, sizeof why);
    ck_assert_msg(linked != NULL, "%s", why);
    ck_assert_msg(strstr(linked, ".version 8.3") != NULL, "the highest .version");
    ck_assert_msg(strstr(linked, "own$m1") != NULL && strstr(linked, "bias$m1") != NULL,
                  "unit b's internal names renamed:\n%s", linked);
    ck_assert_msg(strstr(linked, ".extern") == NULL, "extern declarations resolved:\n%s", linked);
    unsigned weak = 0;
    for (const char *w = strstr(linked, ".weak .func"); w != NULL; w = strstr(w + 1, ".weak .func"))
        weak++;
    ck_assert_msg(weak == 1, "%u .weak definitions, expected 1:\n%s", weak, linked);

    smsim_error err = { 0 };
    smsim_program *p = smsim_program_new();
    unsigned mod;
    ck_assert_msg(smsim_program_load_ptx(p, "linked.ptx", linked, len, NULL, &mod, &err) ==
                  SMSIM_OK, "%s\n%s", err.msg, linked);
    enum { N = 32 };
    uint64_t out;
    ck_assert_int_eq(smsim_program_malloc(p, N * 4, "out", &out, &err), SMSIM_OK);
    uint8_t blob[8];
    memcpy(blob, &out, 8);
    struct smsim_launch_desc d = { .what = "linked", .module = mod, .kernel = "k",
                                   .grid = { 1, 1, 1 }, .block = { N, 1, 1 }, .params = blob };
    ck_assert_msg(smsim_program_launch(p, NULL, &d, NULL, &err) == SMSIM_OK, "%s", err.msg);
    const uint32_t *o = smsim_program_host(p, out, N * 4, &err);
    for (uint32_t t = 0; t < N; t++) {
        /* twice: 2t + (t + 5) + 1 (b's own, b's bias); weak_one: t + 1; a's own: 10 t;
         * a's bias 100; counter 7 */
        uint32_t want = 2 * t + t + 5 + 1 + (t + 1) + 10 * t + 100 + 7;
        ck_assert_msg(o[t] == want, "thread %u: %u, expected %u", t, o[t], want);
    }
    smsim_program_free(p);
    free(linked);
}
END_TEST

START_TEST(not_ptx)
{
    char *texts[1] = { (char *)".version 8.0\n.target sm_80\n.global .u32 x = 1\n" };
    size_t lens[1] = { strlen(texts[0]) }, len;
    char why[256] = "";
    ck_assert_ptr_null(ptxlink(texts, lens, 1, &len, why, sizeof why));
    ck_assert_msg(strstr(why, "without ';'") != NULL, "%s", why);
}
END_TEST

static Suite *
ptxlink_suite(void)
{
    Suite *s = suite_create("ptxlink");
    TCase *tc = tcase_create("ptxlink");
    tcase_add_test(tc, links_and_runs);
    tcase_add_test(tc, not_ptx);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ptxlink_suite)
