/*
 * synth.c - synthetic kernels (see synth.h).
 *
 * Each kernel is a pure function step -> instruction for a given block and
 * warp; per-warp state is only the step counter.
 */
#include "frontend/synth.h"

#include <stdlib.h>
#include <string.h>

/* Opcode ids of the synthetic ISA.  ORDER SYNTH_OP (stored in .smt). */
#define SYNTH_OPS(X) \
    X(MOV, "MOV") X(S2R, "S2R") X(IMAD, "IMAD") X(IMAD_WIDE, "IMAD.WIDE") \
    X(ISETP, "ISETP.GE.AND") X(LDG, "LDG.E") X(STG, "STG.E") X(FFMA, "FFMA") \
    X(IADD3, "IADD3") X(BRA, "BRA") X(EXIT, "EXIT") X(LDG128, "LDG.E.128") \
    X(STG128, "STG.E.128") X(LDG64, "LDG.E.64") X(STG64, "STG.E.64")

enum {
#define X(id, name) OP_##id,
    SYNTH_OPS(X)
#undef X
    OP_COUNT
};

static const char *const op_names[] = {
#define X(id, name) name,
    SYNTH_OPS(X)
#undef X
};

enum shape { SHAPE_SAXPY, SHAPE_FMA, SHAPE_COPY };

struct synth {
    enum shape shape;
    uint64_t blocks;
    uint32_t threads;
    uint64_t iters;              /* saxpy/copy: grid-stride iterations */
    uint64_t n;                  /* fma: FFMAs per thread */
    uint32_t ilp;                /* fma: independent chains */
    uint32_t alu;                /* saxpy: extra FFMAs per iteration */
    uint32_t width;              /* copy: bytes per lane */
    bool kernel_given;
    uint32_t wpb;
    uint32_t max_slots;
    uint64_t *step;              /* [slot * wpb + warp] */
    uint64_t *block;             /* [slot] */
    char name[64];
};

#define BASE_X UINT64_C(0x7f0000000000)

static uint64_t
elems(const struct synth *s)
{
    return s->blocks * s->threads * (s->iters ? s->iters : 1);
}

static uint64_t
base_y(const struct synth *s)
{
    /* y[] follows x[], rounded up to 1 MB plus a 1 MB gap */
    uint64_t bytes = elems(s) * (s->shape == SHAPE_COPY ? s->width : 4);
    return BASE_X + ((bytes + 0xfffff) & ~UINT64_C(0xfffff)) + 0x100000;
}

static void
set(struct warp_inst *wi, uint32_t pc, unsigned op, unsigned opclass, unsigned nd, unsigned ns)
{
    memset(wi, 0, offsetof(struct warp_inst, addr));
    wi->pc = pc;
    wi->active_mask = 0xffffffffu;
    wi->opcode = (uint16_t)op;
    wi->opclass = (uint8_t)opclass;
    wi->n_dst = (uint8_t)nd;
    wi->n_src = (uint8_t)ns;
}

static void
mem(struct warp_inst *wi, unsigned space_flags, uint64_t first, uint32_t width)
{
    wi->space = SIM_SPACE_GLOBAL;
    wi->width = (uint8_t)width;
    wi->flags |= (uint8_t)space_flags;
    for (unsigned l = 0; l < SIM_WARP_SIZE; l++)
        wi->addr[l] = first + (uint64_t)l * width;
}

/* The prologue shared by the grid-stride kernels: 6 instructions. */
static void
prologue(unsigned k, struct warp_inst *wi)
{
    static const struct { unsigned op, cls, nd, ns, dst, s0, s1; } p[6] = {
        { OP_MOV, SIM_OPC_INT, 1, 0, 1, 0, 0 },
        { OP_S2R, SIM_OPC_SREG, 1, 0, 0, 0, 0 },
        { OP_S2R, SIM_OPC_SREG, 1, 0, 3, 0, 0 },
        { OP_IMAD, SIM_OPC_INT_MUL, 1, 2, 0, 0, 3 },
        { OP_ISETP, SIM_OPC_INT, 0, 1, 0, 0, 0 },
        { OP_MOV, SIM_OPC_INT, 1, 0, 9, 0, 0 },
    };
    set(wi, 0x10 * k, p[k].op, p[k].cls, p[k].nd, p[k].ns);
    wi->dst[0] = (uint16_t)p[k].dst;
    wi->src[0] = (uint16_t)p[k].s0;
    wi->src[1] = (uint16_t)p[k].s1;
}

static int
gen_saxpy(const struct synth *s, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    uint64_t body = 10 + s->alu;
    if (k < 6) {
        prologue((unsigned)k, wi);
        return 1;
    }
    k -= 6;
    if (k >= s->iters * body) {
        if (k > s->iters * body)
            return 0;
        set(wi, 0x100, OP_EXIT, SIM_OPC_BRANCH, 0, 0);
        wi->flags = SIM_IF_EXIT;
        return 1;
    }
    uint64_t it = k / body, j = k % body;
    uint64_t e = block * s->threads + warp * SIM_WARP_SIZE + it * s->blocks * s->threads;
    if (j >= 6 && j < 6 + s->alu) {
        uint16_t r = (uint16_t)(10 + (j - 6) % 8);
        set(wi, (uint32_t)(0x200 + 16 * (j - 6)), OP_FFMA, SIM_OPC_FP32_FMA, 1, 2);
        wi->dst[0] = r;
        wi->src[0] = r;
        wi->src[1] = 7;
        return 1;
    }
    if (j >= 6)
        j -= s->alu;
    switch (j) {
    case 0: set(wi, 0x60, OP_MOV, SIM_OPC_INT, 1, 0); wi->dst[0] = 5; break;
    case 1: set(wi, 0x70, OP_IMAD_WIDE, SIM_OPC_INT_WIDE, 1, 2); wi->dst[0] = 2; wi->src[0] = 0; wi->src[1] = 5; break;
    case 2: set(wi, 0x80, OP_IMAD_WIDE, SIM_OPC_INT_WIDE, 1, 2); wi->dst[0] = 4; wi->src[0] = 0; wi->src[1] = 5; break;
    case 3: set(wi, 0x90, OP_LDG, SIM_OPC_MEM, 1, 1); wi->dst[0] = 2; wi->src[0] = 2;
            mem(wi, SIM_IF_LOAD, BASE_X + 4 * e, 4); break;
    case 4: set(wi, 0xa0, OP_LDG, SIM_OPC_MEM, 1, 1); wi->dst[0] = 6; wi->src[0] = 4;
            mem(wi, SIM_IF_LOAD, base_y(s) + 4 * e, 4); break;
    case 5: set(wi, 0xb0, OP_FFMA, SIM_OPC_FP32_FMA, 1, 2); wi->dst[0] = 7; wi->src[0] = 2; wi->src[1] = 6; break;
    case 6: set(wi, 0xc0, OP_IADD3, SIM_OPC_INT, 1, 2); wi->dst[0] = 0; wi->src[0] = 0; wi->src[1] = 9; break;
    case 7: set(wi, 0xd0, OP_STG, SIM_OPC_MEM, 0, 2); wi->src[0] = 4; wi->src[1] = 7;
            mem(wi, SIM_IF_STORE, base_y(s) + 4 * e, 4); break;
    case 8: set(wi, 0xe0, OP_ISETP, SIM_OPC_INT, 0, 1); wi->src[0] = 0; break;
    default: set(wi, 0xf0, OP_BRA, SIM_OPC_BRANCH, 0, 0); wi->flags = SIM_IF_BRANCH; break;
    }
    return 1;
}

static int
gen_fma(const struct synth *s, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    (void)warp;
    if (k < s->n) {
        uint16_t r = (uint16_t)(10 + k % s->ilp);
        set(wi, (uint32_t)(0x10 * (k % 4096)), OP_FFMA, SIM_OPC_FP32_FMA, 1, 3);
        wi->dst[0] = r;
        wi->src[0] = r;
        wi->src[1] = 1;
        wi->src[2] = 2;
        return 1;
    }
    if (k == s->n) {
        set(wi, 0x10000, OP_EXIT, SIM_OPC_BRANCH, 0, 0);
        wi->flags = SIM_IF_EXIT;
        return 1;
    }
    return 0;
}

static int
gen_copy(const struct synth *s, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    if (k < 6) {
        prologue((unsigned)k, wi);
        return 1;
    }
    k -= 6;
    if (k >= s->iters * 5) {
        if (k > s->iters * 5)
            return 0;
        set(wi, 0x100, OP_EXIT, SIM_OPC_BRANCH, 0, 0);
        wi->flags = SIM_IF_EXIT;
        return 1;
    }
    uint64_t it = k / 5, j = k % 5;
    uint64_t e = block * s->threads + warp * SIM_WARP_SIZE + it * s->blocks * s->threads;
    unsigned ld = s->width == 16 ? OP_LDG128 : s->width == 8 ? OP_LDG64 : OP_LDG;
    unsigned st = s->width == 16 ? OP_STG128 : s->width == 8 ? OP_STG64 : OP_STG;
    switch (j) {
    case 0: set(wi, 0x60, ld, SIM_OPC_MEM, 1, 1); wi->dst[0] = 4; wi->src[0] = 2;
            mem(wi, SIM_IF_LOAD, BASE_X + s->width * e, s->width); break;
    case 1: set(wi, 0x70, OP_IADD3, SIM_OPC_INT, 1, 2); wi->dst[0] = 0; wi->src[0] = 0; wi->src[1] = 9; break;
    case 2: set(wi, 0x80, st, SIM_OPC_MEM, 0, 2); wi->src[0] = 3; wi->src[1] = 4;
            mem(wi, SIM_IF_STORE, base_y(s) + s->width * e, s->width); break;
    case 3: set(wi, 0x90, OP_ISETP, SIM_OPC_INT, 0, 1); wi->src[0] = 0; break;
    default: set(wi, 0xa0, OP_BRA, SIM_OPC_BRANCH, 0, 0); wi->flags = SIM_IF_BRANCH; break;
    }
    return 1;
}

static int
sy_next_kernel(void *ctx, struct kernel_info *ki, struct sim_error *err)
{
    struct synth *s = ctx;
    (void)err;
    if (s->kernel_given)
        return 0;
    s->kernel_given = true;
    memset(ki, 0, sizeof *ki);
    snprintf(ki->name, sizeof ki->name, "%s", s->name);
    ki->grid[0] = (uint32_t)s->blocks;
    ki->grid[1] = ki->grid[2] = 1;
    ki->block[0] = s->threads;
    ki->block[1] = ki->block[2] = 1;
    ki->regs_per_thread = s->shape == SHAPE_FMA ? 32 : 16;
    ki->isa = SIM_ISA_SYNTH;
    ki->isa_version = 70;
    uint64_t per_warp;
    switch (s->shape) {
    case SHAPE_SAXPY: per_warp = 6 + s->iters * (10 + s->alu) + 1; break;
    case SHAPE_FMA: per_warp = s->n + 1; break;
    default: per_warp = 6 + s->iters * 5 + 1; break;
    }
    ki->warp_insts = per_warp * s->blocks * s->wpb;
    return 1;
}

static int
sy_kernel_begin(void *ctx, uint32_t max_slots, uint32_t n_sms, struct sim_error *err)
{
    (void)n_sms;
    struct synth *s = ctx;
    (void)err;
    free(s->step);
    free(s->block);
    s->max_slots = max_slots;
    s->step = xcalloc((size_t)max_slots * s->wpb, sizeof *s->step);
    s->block = xcalloc(max_slots, sizeof *s->block);
    return SIM_OK;
}

static int
sy_block_begin(void *ctx, uint64_t block_id, uint32_t slot, uint32_t sm, struct sim_error *err)
{
    (void)sm;
    struct synth *s = ctx;
    if (block_id >= s->blocks)
        return sim_error_set(err, SIM_ERR_FORMAT, "synthetic kernel has no block %" PRIu64,
                             block_id);
    s->block[slot] = block_id;
    for (uint32_t w = 0; w < s->wpb; w++)
        s->step[(size_t)slot * s->wpb + w] = 0;
    return SIM_OK;
}

static int
sy_next_inst(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now, struct warp_inst *wi,
             struct sim_error *err)
{
    (void)now;
    struct synth *s = ctx;
    uint64_t *k = &s->step[(size_t)slot * s->wpb + warp];
    uint64_t b = s->block[slot];
    int r;
    (void)err;
    switch (s->shape) {
    case SHAPE_SAXPY: r = gen_saxpy(s, b, warp, *k, wi); break;
    case SHAPE_FMA: r = gen_fma(s, warp, *k, wi); break;
    default: r = gen_copy(s, b, warp, *k, wi); break;
    }
    if (r > 0)
        (*k)++;
    return r;
}

static void
sy_block_end(void *ctx, uint32_t slot)
{
    (void)ctx;
    (void)slot;
}

static const char *
sy_opcode_name(void *ctx, uint16_t op)
{
    (void)ctx;
    return op < OP_COUNT ? op_names[op] : NULL;
}

static void
sy_destroy(void *ctx)
{
    struct synth *s = ctx;
    free(s->step);
    free(s->block);
    free(s);
}

static const struct inst_source_ops synth_ops = {
    .next_kernel = sy_next_kernel,
    .kernel_begin = sy_kernel_begin,
    .block_begin = sy_block_begin,
    .next_inst = sy_next_inst,
    .block_end = sy_block_end,
    .opcode_name = sy_opcode_name,
    .destroy = sy_destroy,
    .concurrent_next = true,     /* per-slot state only */
};

static int
parse_u64(const char *spec, const char *key, const char *val, uint64_t lo, uint64_t hi,
          uint64_t *out, struct sim_error *err)
{
    char *end;
    if (val[0] == '-' || val[0] == '\0')
        goto bad;
    unsigned long long v = strtoull(val, &end, 0);
    if (*end != '\0' || v < lo || v > hi)
        goto bad;
    *out = v;
    return SIM_OK;
bad:
    return sim_error_set(err, SIM_ERR_USAGE, "synthetic kernel '%s': %s = '%s' must be %" PRIu64
                         " .. %" PRIu64, spec, key, val, lo, hi);
}

int
synth_source_open(const char *spec, struct inst_source *src, struct sim_error *err)
{
    struct synth *s = xcalloc(1, sizeof *s);
    char buf[512];
    int rc = SIM_OK;

    snprintf(buf, sizeof buf, "%s", spec);
    char *colon = strchr(buf, ':');
    if (colon != NULL)
        *colon = '\0';
    if (strcmp(buf, "saxpy") == 0)
        s->shape = SHAPE_SAXPY;
    else if (strcmp(buf, "fma") == 0)
        s->shape = SHAPE_FMA;
    else if (strcmp(buf, "copy") == 0)
        s->shape = SHAPE_COPY;
    else {
        rc = sim_error_set(err, SIM_ERR_USAGE,
                           "unknown synthetic kernel '%s' (expected saxpy, fma or copy)", buf);
        goto fail;
    }
    snprintf(s->name, sizeof s->name, "synth_%.32s", buf);
    s->blocks = 80;
    s->threads = 256;
    s->iters = 4;
    s->n = 1024;
    s->ilp = 1;
    s->width = 4;
    for (char *kv = colon ? colon + 1 : NULL; kv != NULL && *kv != '\0';) {
        char *next = strchr(kv, ',');
        if (next != NULL)
            *next++ = '\0';
        char *eq = strchr(kv, '=');
        if (eq == NULL) {
            rc = sim_error_set(err, SIM_ERR_USAGE, "synthetic kernel '%s': expected key=value, "
                               "found '%s'", spec, kv);
            goto fail;
        }
        *eq = '\0';
        const char *key = kv, *val = eq + 1;
        uint64_t v;
        if (strcmp(key, "blocks") == 0) {
            rc = parse_u64(spec, key, val, 1, SIM_MAX_GRID_BLOCKS, &v, err);
            s->blocks = v;
        } else if (strcmp(key, "threads") == 0) {
            rc = parse_u64(spec, key, val, 32, SIM_MAX_THREADS_PER_BLOCK, &v, err);
            s->threads = (uint32_t)v;
            if (rc == SIM_OK && v % 32 != 0)
                rc = sim_error_set(err, SIM_ERR_USAGE, "synthetic kernel '%s': threads must be "
                                   "a multiple of 32", spec);
        } else if (strcmp(key, "iters") == 0 && s->shape != SHAPE_FMA) {
            rc = parse_u64(spec, key, val, 1, UINT64_C(1) << 32, &v, err);
            s->iters = v;
        } else if (strcmp(key, "alu") == 0 && s->shape == SHAPE_SAXPY) {
            rc = parse_u64(spec, key, val, 0, 1024, &v, err);
            s->alu = (uint32_t)v;
        } else if (strcmp(key, "n") == 0 && s->shape == SHAPE_FMA) {
            rc = parse_u64(spec, key, val, 1, UINT64_C(1) << 40, &v, err);
            s->n = v;
        } else if (strcmp(key, "ilp") == 0 && s->shape == SHAPE_FMA) {
            rc = parse_u64(spec, key, val, 1, 128, &v, err);
            s->ilp = (uint32_t)v;
        } else if (strcmp(key, "width") == 0 && s->shape == SHAPE_COPY) {
            rc = parse_u64(spec, key, val, 4, 16, &v, err);
            s->width = (uint32_t)v;
            if (rc == SIM_OK && v != 4 && v != 8 && v != 16)
                rc = sim_error_set(err, SIM_ERR_USAGE, "synthetic kernel '%s': width must be 4, "
                                   "8 or 16", spec);
        } else {
            rc = sim_error_set(err, SIM_ERR_USAGE, "synthetic kernel '%s': unknown parameter '%s'",
                               spec, key);
        }
        if (rc < 0)
            goto fail;
        kv = next;
    }
    s->wpb = s->threads / SIM_WARP_SIZE;
    src->ops = &synth_ops;
    src->ctx = s;
    return SIM_OK;
fail:
    free(s);
    return rc;
}

void
synth_print_help(FILE *out)
{
    fputs("synthetic kernels (SPEC = NAME[:key=value,...]):\n"
          "  saxpy  blocks=80 threads=256 iters=4 alu=0   grid-stride y = a*x + y (2 loads, 1 store,\n"
          "                                               1 FFMA + alu extra FFMAs per iteration)\n"
          "  fma    blocks=80 threads=256 n=1024 ilp=1    n FFMAs per thread in ilp dependency chains\n"
          "  copy   blocks=80 threads=256 iters=4 width=4 grid-stride copy of width-byte elements\n",
          out);
}
