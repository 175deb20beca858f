/*
 * testlib.h - fixtures shared by the Check test binaries.
 *
 *  - configs built from defaults plus inline "key = value" text;
 *  - a programmable instruction source (a callback per instruction), so
 *    component tests can feed the model exact instruction streams;
 *  - instruction builders and a run-to-completion helper.
 */
#ifndef SMSIM_TESTS_TESTLIB_H
#define SMSIM_TESTS_TESTLIB_H

#include <check.h>
#include "sim/config.h"
#include "sim/inst.h"
#include "sim/sim.h"

/* Defaults, then each line of text ("key = value" or "key=value"; lines
 * separated by '\n' or ';').  Fails the test on any error. */
void testlib_config(struct sim_config *cfg, const char *text);

/* A minimal GPU for component tests: 1 SM, 1 sub-partition, no launch
 * latencies, round numbers; further overrides in text (may be NULL). */
void testlib_small_config(struct sim_config *cfg, const char *text);

/* Instruction generator: fill *wi with instruction k of (block, warp);
 * return 1, or 0 when the warp has no more instructions. */
typedef int (*testlib_gen_fn)(void *arg, uint64_t block, uint32_t warp, uint64_t k,
                              struct warp_inst *wi);

struct testlib_kernel {
    const char *name;
    uint32_t blocks;             /* grid x */
    uint32_t threads;            /* block x */
    uint32_t regs;               /* per thread */
    uint32_t smem;               /* bytes per block */
    testlib_gen_fn gen;
    void *arg;
};

/* The enum sim_isa that sources made afterwards report (default
 * SIM_ISA_SYNTH; 0 restores it). */
void testlib_set_isa(unsigned isa);

/* An instruction source over up to 8 kernels run in order. */
void testlib_source(struct inst_source *src, const struct testlib_kernel *k, unsigned n);

/* Run the source on cfg; returns the sim (caller destroys).  Fails the
 * test if the run fails. */
sim *testlib_run(const struct sim_config *cfg, struct inst_source *src);

/* Cycles of kernel 0 of a fresh run of one kernel. */
uint64_t testlib_cycles(const struct sim_config *cfg, const struct testlib_kernel *k);

/* Value of a counter (total) in kernel i's statistics. */
uint64_t testlib_stat(const sim *s, size_t kernel, const char *name);

/* Warp 0 of block 0 of src's next kernel (a grid of one block), after
 * set_target(cc) when cc != 0: its first max instructions into out and
 * their opcode names ("?" for none), name_len bytes each, into names
 * (either may be NULL).  Destroys src; returns the count. */
unsigned testlib_warp0(struct inst_source *src, unsigned cc, struct warp_inst *out, char *names,
                       size_t name_len, unsigned max);

/* Instruction builders (all lanes active unless the caller changes the mask). */
void tl_alu(struct warp_inst *wi, unsigned opclass, int dst, int src0, int src1);
void tl_mem(struct warp_inst *wi, unsigned space, unsigned flags, int dst, int src,
            sim_addr_t base, int64_t stride, unsigned width);
void tl_barrier(struct warp_inst *wi);
void tl_exit(struct warp_inst *wi);

/* Path of a fresh temporary file name (in $TMPDIR or /tmp), static buffer. */
const char *testlib_tmpfile(const char *suffix);

/* Create a fresh temporary directory (in $TMPDIR or /tmp) into buf, and
 * remove one with everything in it. */
void testlib_tmpdir(char *buf, size_t n);
void testlib_rmtree(const char *dir);

/* A checked fixture: a fresh temporary directory in testlib_dir for each
 * test, removed with its contents afterwards. */
extern char testlib_dir[256];
void testlib_dir_setup(void);
void testlib_dir_teardown(void);

/* Write lines[] to testlib_dir/name, replacing line `at` (1-based; 0 = none)
 * by `repl` and appending `extra` (may be NULL). */
void testlib_write_lines(const char *name, const char *const *lines, size_t n, unsigned at,
                         const char *repl, const char *extra);

/* Open the one-kernel PTX module lines[] (kernel k, written to
 * testlib_dir/k.ptx) as a PTX source with a launch file of one warp whose
 * first argument is "out", a buffer of 32 u32 zeros, then launch_extra
 * (may be NULL); fails the test on an error. */
void testlib_ptx_open(const char *const *lines, size_t n, const char *launch_extra,
                      struct inst_source *src);

/* testlib_ptx_open, then emulate it; returns out's contents (valid until
 * the caller destroys src). */
const uint32_t *testlib_ptx_run(const char *const *lines, size_t n, const char *launch_extra,
                                struct inst_source *src);

/* Open launch file path as a PTX source and run it: emulated (cfg_text
 * NULL) or timed on the default config plus cfg_text; *s gets the sim (NULL
 * when emulated).  Returns the launch (its buffers hold the results); the
 * caller destroys *s and src.  Fails the test on an error. */
const struct launch *testlib_launch_run(const char *path, const char *cfg_text,
                                        struct inst_source *src, sim **s);

/* Write ptx[] as k.ptx and launch[] as k.launch into testlib_dir, emulate
 * the launch, then time it under cfg_text: after each run check(launch,
 * sim (NULL: the emulated run), ctx). */
void testlib_emulate_and_run(const char *const *ptx, size_t n_ptx, const char *const *launch,
                             size_t n_launch, const char *cfg_text,
                             void (*check)(const struct launch *l, sim *s, void *ctx), void *ctx);

/* Open testlib_dir/k.launch and emulate it; returns the status and fills
 * err. */
int testlib_ptx_emulate(struct sim_error *err);

/* Emulating testlib_dir/k.launch must fail with exit status 2 and a
 * message containing "<file>:<line>:" and frag. */
void testlib_expect_error(const char *file, unsigned line, const char *frag);

/* Standard main for a suite. */
#define TESTLIB_MAIN(suite_fn) \
    int main(void) \
    { \
        SRunner *sr = srunner_create(suite_fn()); \
        srunner_run_all(sr, CK_ENV); \
        int failed = srunner_ntests_failed(sr); \
        srunner_free(sr); \
        return failed == 0 ? 0 : 1; \
    }

#endif /* SMSIM_TESTS_TESTLIB_H */
