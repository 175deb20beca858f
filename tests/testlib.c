/*
 * testlib.c - test fixtures (see testlib.h).
 */
#include "testlib.h"
#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
testlib_config(struct sim_config *cfg, const char *text)
{
    struct sim_error err = { 0 };
    char buf[8192];

    config_defaults(cfg);
    if (text == NULL)
        return;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *line = strtok(buf, "\n;"); line != NULL; line = strtok(NULL, "\n;")) {
        while (*line == ' ')
            line++;
        if (*line == '\0' || *line == '#')
            continue;
        ck_assert_msg(config_set(cfg, line, "test", NULL, &err) == SIM_OK, "%s", err.msg);
    }
    ck_assert_msg(config_validate(cfg, &err) == SIM_OK, "%s", err.msg);
}

void
testlib_small_config(struct sim_config *cfg, const char *text)
{
    char buf[8192];
    snprintf(buf, sizeof buf,
             "sm.count = 1; sm.subpartitions = 1; gpu.kernel_launch_latency = 0;"
             "sm.block_launch_latency = 0; sm.warp_launch_latency = 0; sched.fetch_latency = 0;"
             "sched.policy = gto; l2.slices = 4; l2.size_kb = 1024; dram.channels = 4;"
             "dram.bandwidth_gbps = 1000; dram.efficiency = 1; gpu.clock_mhz = 1000;"
             "l1.size_kb = 64; l1.unified_kb = 0;%s", text ? text : "");
    testlib_config(cfg, buf);
}

#define MAX_KERNELS 8

struct tsrc {
    struct testlib_kernel k[MAX_KERNELS];
    unsigned n, cur;
    bool started;
    uint32_t max_slots, wpb;
    uint64_t *step;              /* [slot * wpb + warp] */
    uint64_t *block;             /* [slot] */
};

static unsigned t_isa;

void
testlib_set_isa(unsigned isa)
{
    t_isa = isa;
}

static int
t_next_kernel(void *ctx, struct kernel_info *ki, struct sim_error *err)
{
    struct tsrc *t = ctx;
    (void)err;
    if (t->started)
        t->cur++;
    t->started = true;
    if (t->cur >= t->n)
        return 0;
    const struct testlib_kernel *k = &t->k[t->cur];
    memset(ki, 0, sizeof *ki);
    snprintf(ki->name, sizeof ki->name, "%s", k->name ? k->name : "test");
    ki->grid[0] = k->blocks;
    ki->grid[1] = ki->grid[2] = 1;
    ki->block[0] = k->threads;
    ki->block[1] = ki->block[2] = 1;
    ki->regs_per_thread = k->regs;
    ki->smem_static = k->smem;
    ki->isa = (uint16_t)(t_isa ? t_isa : SIM_ISA_SYNTH);
    t->wpb = (k->threads + 31) / 32;
    return 1;
}

static int
t_kernel_begin(void *ctx, uint32_t max_slots, uint32_t n_sms, struct sim_error *err)
{
    (void)n_sms;
    struct tsrc *t = ctx;
    (void)err;
    free(t->step);
    free(t->block);
    t->max_slots = max_slots;
    t->step = calloc((size_t)max_slots * t->wpb, sizeof *t->step);
    t->block = calloc(max_slots, sizeof *t->block);
    return SIM_OK;
}

static int
t_block_begin(void *ctx, uint64_t id, uint32_t slot, uint32_t sm, struct sim_error *err)
{
    (void)sm;
    struct tsrc *t = ctx;
    (void)err;
    ck_assert_uint_lt(slot, t->max_slots);
    t->block[slot] = id;
    for (uint32_t w = 0; w < t->wpb; w++)
        t->step[(size_t)slot * t->wpb + w] = 0;
    return SIM_OK;
}

static int
t_next_inst(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now, struct warp_inst *wi,
            struct sim_error *err)
{
    (void)now;
    struct tsrc *t = ctx;
    (void)err;
    uint64_t *k = &t->step[(size_t)slot * t->wpb + warp];
    const struct testlib_kernel *kk = &t->k[t->cur];
    int r = kk->gen(kk->arg, t->block[slot], warp, *k, wi);
    if (r > 0) {
        if (wi->pc == 0)
            wi->pc = (uint32_t)(*k * 16);
        (*k)++;
    }
    return r;
}

static void
t_block_end(void *ctx, uint32_t slot)
{
    (void)ctx;
    (void)slot;
}

static void
t_destroy(void *ctx)
{
    struct tsrc *t = ctx;
    free(t->step);
    free(t->block);
    free(t);
}

static const struct inst_source_ops tsrc_ops = {
    .next_kernel = t_next_kernel,
    .kernel_begin = t_kernel_begin,
    .block_begin = t_block_begin,
    .next_inst = t_next_inst,
    .block_end = t_block_end,
    .destroy = t_destroy,
};

void
testlib_source(struct inst_source *src, const struct testlib_kernel *k, unsigned n)
{
    struct tsrc *t = calloc(1, sizeof *t);
    ck_assert(n <= MAX_KERNELS);
    memcpy(t->k, k, n * sizeof *k);
    t->n = n;
    src->ops = &tsrc_ops;
    src->ctx = t;
}

sim *
testlib_run(const struct sim_config *cfg, struct inst_source *src)
{
    struct sim_error err = { 0 };
    sim *s = sim_new(cfg);
    int rc = sim_run(s, src, &err);
    ck_assert_msg(rc == SIM_OK, "sim_run failed: %s", err.msg);
    return s;
}

uint64_t
testlib_cycles(const struct sim_config *cfg, const struct testlib_kernel *k)
{
    struct inst_source src;
    testlib_source(&src, k, 1);
    sim *s = testlib_run(cfg, &src);
    uint64_t c = sim_kernel(s, 0)->cycles;
    sim_destroy(s);
    inst_source_destroy(&src);
    return c;
}

uint64_t
testlib_stat(const sim *s, size_t kernel, const char *name)
{
    uint64_t v = stats_get(sim_stats(s), sim_kernel_stats(s, kernel), name);
    ck_assert_msg(v != UINT64_MAX, "no statistic %s", name);
    return v;
}

unsigned
testlib_warp0(struct inst_source *src, unsigned cc, struct warp_inst *out, char *names,
              size_t name_len, unsigned max)
{
    struct sim_error err = { 0 };
    struct kernel_info ki;
    struct warp_inst wi;
    if (cc != 0) {
        ck_assert_ptr_nonnull(src->ops->set_target);
        src->ops->set_target(src->ctx, cc);
    }
    ck_assert_msg(src->ops->next_kernel(src->ctx, &ki, &err) == 1, "%s", err.msg);
    ck_assert_msg(src->ops->kernel_begin(src->ctx, 1, 1, &err) == SIM_OK, "%s", err.msg);
    ck_assert_msg(src->ops->block_begin(src->ctx, 0, 0, 0, &err) == SIM_OK, "%s", err.msg);
    unsigned k = 0;
    while (k < max && inst_source_next(src, 0, 0, SIM_CYCLE_MAX, &wi, &err) == 1) {
        if (names != NULL) {
            const char *nm = src->ops->opcode_name(src->ctx, wi.opcode);
            snprintf(names + k * name_len, name_len, "%s", nm != NULL ? nm : "?");
        }
        if (out != NULL)
            out[k] = wi;
        k++;
    }
    inst_source_destroy(src);
    return k;
}

static void
base(struct warp_inst *wi, unsigned opclass)
{
    memset(wi, 0, sizeof *wi);
    wi->active_mask = 0xffffffffu;
    wi->opclass = (uint8_t)opclass;
}

void
tl_alu(struct warp_inst *wi, unsigned opclass, int dst, int src0, int src1)
{
    base(wi, opclass);
    if (dst >= 0)
        wi->dst[wi->n_dst++] = (uint16_t)dst;
    if (src0 >= 0)
        wi->src[wi->n_src++] = (uint16_t)src0;
    if (src1 >= 0)
        wi->src[wi->n_src++] = (uint16_t)src1;
}

void
tl_mem(struct warp_inst *wi, unsigned space, unsigned flags, int dst, int src, sim_addr_t b,
       int64_t stride, unsigned width)
{
    tl_alu(wi, SIM_OPC_MEM, dst, src, -1);
    wi->space = (uint8_t)space;
    wi->flags = (uint8_t)flags;
    wi->width = (uint8_t)width;
    for (unsigned l = 0; l < SIM_WARP_SIZE; l++)
        wi->addr[l] = b + (uint64_t)((int64_t)l * stride);
}

void
tl_barrier(struct warp_inst *wi)
{
    base(wi, SIM_OPC_BARRIER);
    wi->flags = SIM_IF_BARRIER;
}

void
tl_exit(struct warp_inst *wi)
{
    base(wi, SIM_OPC_BRANCH);
    wi->flags = SIM_IF_EXIT;
}

const char *
testlib_tmpfile(const char *suffix)
{
    static char buf[512];
    static unsigned n;
    const char *dir = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/smsim-test-%d-%u%s", dir ? dir : "/tmp", (int)getpid(), n++,
             suffix);
    return buf;
}

void
testlib_tmpdir(char *buf, size_t n)
{
    const char *t = getenv("TMPDIR");
    snprintf(buf, n, "%s/smsim-test.XXXXXX", t != NULL ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

void
testlib_rmtree(const char *dir)
{
    char cmd[1024];
    ck_assert_ptr_null(strchr(dir, '\''));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

char testlib_dir[256];

void
testlib_dir_setup(void)
{
    testlib_tmpdir(testlib_dir, sizeof testlib_dir);
}

void
testlib_dir_teardown(void)
{
    testlib_rmtree(testlib_dir);
}

void
testlib_write_lines(const char *name, const char *const *lines, size_t n, unsigned at,
                    const char *repl, const char *extra)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", testlib_dir, name);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s\n", i + 1 == at ? repl : lines[i]);
    if (extra != NULL)
        fprintf(fp, "%s\n", extra);
    ck_assert_int_eq(fclose(fp), 0);
}

void
testlib_ptx_open(const char *const *lines, size_t n, const char *launch_extra,
                 struct inst_source *src)
{
    struct sim_error err = { 0 };
    char path[512];
    static const char *const launch[] = {
        "ptx = k.ptx", "kernel = k", "grid = 1", "block = 32", "arg = out buffer u32 32 zeros",
    };
    testlib_write_lines("k.ptx", lines, n, 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, 5, 0, NULL, launch_extra);
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    ck_assert_msg(ptx_source_open(path, src, &err) == SIM_OK, "%s", err.msg);
}

const uint32_t *
testlib_ptx_run(const char *const *lines, size_t n, const char *launch_extra,
                struct inst_source *src)
{
    struct sim_error err = { 0 };
    struct record_totals tot;
    testlib_ptx_open(lines, n, launch_extra, src);
    ck_assert_msg(record_emulate(src, &tot, &err) == SIM_OK, "%s", err.msg);
    const struct launch *l = ptx_source_launch(src);
    return (const uint32_t *)l->args[0].data;
}

const struct launch *
testlib_launch_run(const char *path, const char *cfg_text, struct inst_source *src, sim **s)
{
    struct sim_error err = { 0 };
    ck_assert_msg(ptx_source_open(path, src, &err) == SIM_OK, "%s", err.msg);
    *s = NULL;
    if (cfg_text != NULL) {
        struct sim_config cfg;
        testlib_config(&cfg, cfg_text);
        *s = testlib_run(&cfg, src);
    } else {
        struct record_totals tot;
        ck_assert_msg(record_emulate(src, &tot, &err) == SIM_OK, "%s", err.msg);
    }
    return ptx_source_launch(src);
}

void
testlib_emulate_and_run(const char *const *ptx, size_t n_ptx, const char *const *launch,
                        size_t n_launch, const char *cfg_text,
                        void (*check)(const struct launch *l, sim *s, void *ctx), void *ctx)
{
    testlib_write_lines("k.ptx", ptx, n_ptx, 0, NULL, NULL);
    testlib_write_lines("k.launch", launch, n_launch, 0, NULL, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    for (int timed = 0; timed <= 1; timed++) {
        struct inst_source src;
        sim *s;
        const struct launch *l = testlib_launch_run(path, timed ? cfg_text : NULL, &src, &s);
        check(l, s, ctx);
        if (s != NULL)
            sim_destroy(s);
        inst_source_destroy(&src);
    }
}

/* Open testlib_dir/k.launch and emulate it; returns the status and fills err. */
int
testlib_ptx_emulate(struct sim_error *err)
{
    char path[512];
    struct inst_source src;
    struct record_totals tot;
    snprintf(path, sizeof path, "%s/k.launch", testlib_dir);
    int rc = ptx_source_open(path, &src, err);
    if (rc < 0)
        return rc;
    rc = record_emulate(&src, &tot, err);
    inst_source_destroy(&src);
    return rc;
}

/* The run must fail with exit status 2 and a message containing
 * "<file>:<line>:" and frag. */
void
testlib_expect_error(const char *file, unsigned line, const char *frag)
{
    struct sim_error err = { 0 };
    int rc = testlib_ptx_emulate(&err);
    char where[64];
    snprintf(where, sizeof where, "%s:%u:", file, line);
    ck_assert_msg(rc < 0, "expected an error naming %s (%s), the run succeeded", where, frag);
    ck_assert_msg(sim_error_exit_status(rc) == 2, "exit status %d for: %s",
                  sim_error_exit_status(rc), err.msg);
    ck_assert_msg(strstr(err.msg, where) != NULL, "message lacks '%s': %s", where, err.msg);
    ck_assert_msg(strstr(err.msg, frag) != NULL, "message lacks '%s': %s", frag, err.msg);
}
