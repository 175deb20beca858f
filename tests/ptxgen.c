/*
 * ptxgen.c - random PTX kernels for differential testing (see ptxgen.h):
 * the module, its kernel and device functions, control flow, memory,
 * warp operations and barriers; the arithmetic is in ptxgen_ops.c.
 *
 * A kernel is: a prologue (parameters, the thread's pointers and fixed
 * values in reserved registers, every general register loaded from the
 * input or derived from the thread's index, its shared-memory slot and
 * local array filled), a body of random statements, and an epilogue that
 * folds every register, the thread's shared slot, its local array and the
 * shared counters into eight words and stores them to the thread's part
 * of `out`.  Statements nest: if / if-else on per-lane or uniform
 * conditions, loops (counted to an immediate or to the parameter n,
 * bounded by data, top- or bottom-tested), calls, exchanges through
 * shared memory between two bar.sync, early exits.  The invariants that
 * keep the two executions comparable are in ptxgen.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "tests/ptxgen_internal.h"

/* ---- text -------------------------------------------------------------- */

static void
buf_vadd(struct pg_buf *b, const char *fmt, va_list ap)
{
    for (;;) {
        va_list cp;
        va_copy(cp, ap);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s + b->len, room, fmt, cp);
        va_end(cp);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (n > 0 ? (size_t)n : 0) + 256;
        b->s = xrealloc(b->s, b->cap);
    }
}

static void
buf_add(struct pg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
buf_add(struct pg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vadd(b, fmt, ap);
    va_end(ap);
}

static void
buf_init(struct pg_buf *b)
{
    b->cap = 4096;
    b->len = 0;
    b->s = xmalloc(b->cap);
    b->s[0] = '\0';
}

/* ---- randomness ---------------------------------------------------------- */

uint64_t
pg_next(struct pg *g)
{
    uint64_t z = (g->rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

unsigned
pg_rand(struct pg *g, unsigned n)
{
    return n <= 1 ? 0 : (unsigned)(pg_next(g) % n);
}

bool
pg_chance(struct pg *g, unsigned percent)
{
    return pg_rand(g, 100) < percent;
}

const char *
pg_pick(struct pg *g, const char *const *v, unsigned n)
{
    return v[pg_rand(g, n)];
}

/* ---- instructions ------------------------------------------------------- */

static void
emit_v(struct pg *g, const char *guard, const char *fmt, va_list ap)
{
    buf_add(g->out, "\t%s", guard);
    buf_vadd(g->out, fmt, ap);
    buf_add(g->out, ";\n");
    g->budget--;
    g->dst_tmp = false;
}

void
pg_emit(struct pg *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_v(g, "", fmt, ap);
    va_end(ap);
}

void
pg_emitg(struct pg *g, unsigned percent, const char *fmt, ...)
{
    char guard[32] = "";
    if (!g->dst_tmp && pg_chance(g, percent)) {
        bool neg = pg_chance(g, 40);
        snprintf(guard, sizeof guard, "@%s%%p%u ", neg ? "!" : "", 1 + pg_rand(g, g->pool[PG_P]));
    }
    va_list ap;
    va_start(ap, fmt);
    emit_v(g, guard, fmt, ap);
    va_end(ap);
}

static void
label(struct pg *g, unsigned l)
{
    buf_add(g->out, "$L__BB0_%u:\n", l);
}

/* ---- operands ----------------------------------------------------------- */

const char *const pg_pool_name[PG_POOLS] = { "%r", "%rd", "%f", "%fd", "%rs", "%p" };
static const char *const tmp_name[PG_POOLS] = { "%ta", "%tb", "%tf", "%tg", "%th", "%tq" };
static const char *const pool_decl[PG_POOLS] = { ".b32", ".b64", ".f32", ".f64", ".b16",
                                                 ".pred" };

char *
pg_str(struct pg *g)
{
    char *s = g->ring[g->ring_i++ % (sizeof g->ring / sizeof g->ring[0])];
    s[0] = '\0';
    return s;
}

const char *
pg_reg(struct pg *g, enum pg_pool p)
{
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%s%u", pg_pool_name[p], 1 + pg_rand(g, g->pool[p]));
    return s;
}

void
pg_reg2(struct pg *g, enum pg_pool p, const char **a, const char **b)
{
    unsigned i = pg_rand(g, g->pool[p]), j = (i + 1 + pg_rand(g, g->pool[p] - 1)) % g->pool[p];
    char *s = pg_str(g), *t = pg_str(g);
    snprintf(s, PG_STR, "%s%u", pg_pool_name[p], 1 + i);
    snprintf(t, PG_STR, "%s%u", pg_pool_name[p], 1 + j);
    *a = s;
    *b = t;
}

static const char *
tmp_named(struct pg *g, enum pg_pool p, bool pending)
{
    unsigned id = g->n_tmp[p]++;
    if (g->n_live[p] < PG_MAX_LIVE)
        g->live[p][g->n_live[p]++] = (struct pg_tmp){ (uint16_t)id, (uint8_t)g->depth, pending };
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%s%u", tmp_name[p], id);
    g->dst_tmp = true;
    return s;
}

const char *
pg_tmp(struct pg *g, enum pg_pool p)
{
    return tmp_named(g, p, false);
}

const char *
pg_dst(struct pg *g, enum pg_pool p)
{
    if (g->n_live[p] < PG_MAX_LIVE && pg_chance(g, 20))
        return tmp_named(g, p, true);
    return pg_reg(g, p);
}

/* A live temporary of pool p (a pending one first), or NULL. */
static const char *
live_tmp(struct pg *g, enum pg_pool p)
{
    unsigned n = g->n_live[p];
    if (n == 0)
        return NULL;
    unsigned k = pg_rand(g, n);
    for (unsigned i = 0; i < n; i++)
        if (g->live[p][(k + i) % n].pending) {
            k = (k + i) % n;
            break;
        }
    struct pg_tmp *t = &g->live[p][k];
    t->pending = false;
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%s%u", tmp_name[p], t->id);
    return s;
}

static const char *
imm32(struct pg *g)
{
    static const char *const v[] = { "0", "1", "2", "3", "4", "7", "8", "15", "16", "31", "32",
                                     "33", "63", "64", "255", "256", "65535", "-1", "-2", "-7",
                                     "2147483647", "-2147483648", "4660", "-1000" };
    if (pg_chance(g, 70))
        return v[pg_rand(g, sizeof v / sizeof v[0])];
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%d", (int32_t)(uint32_t)pg_next(g));
    return s;
}

const char *
pg_imm(struct pg *g, enum pg_pool p)
{
    static const uint32_t f32[] = { 0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000,
                                    0x40490fdb, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fffffff,
                                    0x00000001, 0x007fffff, 0x7f7fffff, 0x4b000000, 0x3eaaaaab,
                                    0xc2c80000, 0x3a83126f, 0x447a0000 };
    static const uint64_t f64[] = { 0, UINT64_C(0x8000000000000000), UINT64_C(0x3ff0000000000000),
                                    UINT64_C(0xbff0000000000000), UINT64_C(0x7ff0000000000000),
                                    UINT64_C(0x7ff8000000000000), UINT64_C(0x0000000000000001),
                                    UINT64_C(0x400921fb54442d18), UINT64_C(0x3fe0000000000000),
                                    UINT64_C(0x4330000000000000), UINT64_C(0x7fefffffffffffff) };
    char *s = pg_str(g);
    switch (p) {
    case PG_RD:
        if (pg_chance(g, 60))
            return imm32(g);
        snprintf(s, PG_STR, "%lld", (long long)(int64_t)pg_next(g));
        return s;
    case PG_F: {
        uint32_t v = pg_chance(g, 70) ? f32[pg_rand(g, sizeof f32 / sizeof f32[0])]
                                      : (uint32_t)pg_next(g);
        snprintf(s, PG_STR, "0f%08X", v);
        return s;
    }
    case PG_FD: {
        uint64_t v = pg_chance(g, 70) ? f64[pg_rand(g, sizeof f64 / sizeof f64[0])] : pg_next(g);
        snprintf(s, PG_STR, "0d%016llX", (unsigned long long)v);
        return s;
    }
    case PG_RS:
        snprintf(s, PG_STR, "%u", pg_chance(g, 50) ? pg_rand(g, 16) : pg_rand(g, 65536));
        return s;
    case PG_P:
        return pg_reg(g, PG_P);  /* no predicate immediates */
    default:
        return imm32(g);
    }
}

const char *
pg_src(struct pg *g, enum pg_pool p, bool imm)
{
    unsigned k = pg_rand(g, 100);
    if (k < 30) {
        const char *t = live_tmp(g, p);
        if (t != NULL)
            return t;
    }
    if (imm && k >= 90 && p != PG_P)
        return pg_imm(g, p);
    if (!g->in_func && k >= 82 && k < 90 && p != PG_FD && p != PG_RS && p != PG_P) {
        char *s = pg_str(g);
        if (p == PG_R)
            snprintf(s, PG_STR, "%%rk%u", pg_rand(g, RK_VALUES));
        else if (p == PG_RD)
            snprintf(s, PG_STR, "%%ra%u", pg_chance(g, 50) ? RA_IN : RA_SCR);
        else
            snprintf(s, PG_STR, "%%fk0");
        return s;
    }
    return pg_reg(g, p);
}

/* ---- scopes --------------------------------------------------------------- */

/* The context a nested scope changes. */
struct pg_ctx {
    bool divergent, block_uniform;
};

static struct pg_ctx
scope_begin(struct pg *g, bool divergent, bool block_uniform)
{
    struct pg_ctx saved = { g->divergent, g->block_uniform };
    g->divergent = g->divergent || divergent;
    g->block_uniform = g->block_uniform && block_uniform;
    g->depth++;
    return saved;
}

/* The temporaries of scopes at least min_depth deep that nothing read are
 * folded into a general register of their type (so every value reaches
 * the output), and none of them stays live. */
static void
close_temps(struct pg *g, unsigned min_depth)
{
    for (unsigned p = 0; p < PG_POOLS; p++) {
        while (g->n_live[p] > 0 && g->live[p][g->n_live[p] - 1].depth >= min_depth) {
            struct pg_tmp t = g->live[p][--g->n_live[p]];
            if (!t.pending)
                continue;
            char name[24];
            snprintf(name, sizeof name, "%s%u", tmp_name[p], t.id);
            const char *r = pg_reg(g, p);
            if (p != PG_F && p != PG_FD) {
                static const char *const bits[PG_POOLS] = { "b32", "b64", "", "", "b16", "pred" };
                pg_emit(g, "xor.%s %s, %s, %s", bits[p], r, r, name);
                continue;
            }
            /* a float: its bits */
            enum pg_pool ip = p == PG_F ? PG_R : PG_RD;
            unsigned w = p == PG_F ? 32 : 64;
            const char *a = pg_tmp(g, ip), *b = pg_tmp(g, ip), *d = pg_tmp(g, ip);
            pg_emit(g, "mov.b%u %s, %s", w, a, name);
            pg_emit(g, "mov.b%u %s, %s", w, b, r);
            pg_emit(g, "xor.b%u %s, %s, %s", w, d, a, b);
            pg_emit(g, "mov.b%u %s, %s", w, r, d);
        }
    }
    /* the temporaries the folds used die too */
    for (unsigned p = 0; p < PG_POOLS; p++)
        while (g->n_live[p] > 0 && g->live[p][g->n_live[p] - 1].depth >= min_depth)
            g->n_live[p]--;
}

/* End the innermost scope. */
static void
scope_end(struct pg *g, struct pg_ctx saved)
{
    close_temps(g, g->depth);
    g->depth--;
    g->divergent = saved.divergent;
    g->block_uniform = saved.block_uniform;
}

/* ---- control flow ------------------------------------------------------------- */

static void gen_seq(struct pg *g, int n);
static void store_all(struct pg *g);

/* A branch condition: a pool predicate, a fresh compare of data, or
 * predicate logic; *uniform says whether it is the same in every thread
 * of the block (then *warp_uniform too). */
static const char *
condition(struct pg *g, bool *uniform, bool *warp_uniform)
{
    *uniform = *warp_uniform = false;
    unsigned k = pg_rand(g, 10);
    if (!g->in_func && k < 2) {
        const char *p = pg_tmp(g, PG_P);
        unsigned v = pg_rand(g, 4);
        const char *cmp = PG_PICK(g, "lt", "ge", "eq", "ne");
        if (k == 0) {
            unsigned r = pg_chance(g, 50) ? RK_N : RK_CTA;
            pg_emit(g, "setp.%s.u32 %s, %%rk%u, %u", cmp, p, r, v);
            *uniform = *warp_uniform = true;
        } else {
            pg_emit(g, "setp.%s.u32 %s, %%rk%u, %u", cmp, p, RK_WARP, v);
            *warp_uniform = true;
        }
        return p;
    }
    if (k < 5)
        return pg_reg(g, PG_P);
    if (k < 8) {
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, true);
        const char *p = pg_tmp(g, PG_P);
        pg_emit(g, "setp.%s.s32 %s, %s, %s", PG_PICK(g, "lt", "ge", "eq", "ne", "gt"), p, a, b);
        return p;
    }
    const char *a = pg_src(g, PG_P, false);
    const char *b = pg_src(g, PG_P, false);
    const char *p = pg_tmp(g, PG_P);
    pg_emit(g, "%s.pred %s, %s, %s", PG_PICK(g, "and", "or", "xor"), p, a, b);
    return p;
}

static void
gen_if(struct pg *g, int room)
{
    bool uni, wuni;
    const char *p = condition(g, &uni, &wuni);
    bool neg = pg_chance(g, 40), has_else = pg_chance(g, 35);
    int body = pg_chance(g, 45) ? 1 + (int)pg_rand(g, 7) : 3 + (int)pg_rand(g, (unsigned)room / 2 + 1);
    if (has_else && pg_chance(g, 10))
        body = 0;                /* @p bra ELSE; bra.uni END: ptxas folds the pair */
    unsigned l_else = g->label++, l_end = g->label++;
    pg_emit(g, "@%s%s bra $L__BB0_%u", neg ? "!" : "", p, l_else);
    struct pg_ctx c = scope_begin(g, !wuni, uni);
    gen_seq(g, body);
    scope_end(g, c);
    if (has_else) {
        pg_emit(g, "bra.uni $L__BB0_%u", l_end);
        label(g, l_else);
        c = scope_begin(g, !wuni, uni);
        gen_seq(g, pg_chance(g, 50) ? 1 + (int)pg_rand(g, 6) : body);
        scope_end(g, c);
        label(g, l_end);
    } else {
        label(g, l_else);
    }
}

static void
gen_loop(struct pg *g, int room)
{
    unsigned L = g->loops, form = pg_rand(g, 5);
    char lc[16], lt[16], lp[16], bound[24];
    snprintf(lc, sizeof lc, "%%lc%u", L);
    snprintf(lt, sizeof lt, "%%lt%u", L);
    if (pg_chance(g, 70))
        snprintf(lp, sizeof lp, "%%lp%u", L);
    else
        snprintf(lp, sizeof lp, "%s", pg_reg(g, PG_P));
    /* the trip count: uniform (an immediate or n) or from data */
    bool data = form >= 3 || (g->in_func && form != 0);
    if (form == 0) {
        snprintf(bound, sizeof bound, "%u", 1 + pg_rand(g, 5));
    } else if (!data) {
        snprintf(bound, sizeof bound, "%%rk%u", RK_N);
    } else {
        const char *v = pg_src(g, PG_R, false);
        pg_emit(g, "and.b32 %s, %s, 3", lt, v);
        if (form != 4)
            pg_emit(g, "add.s32 %s, %s, 1", lt, lt);
        snprintf(bound, sizeof bound, "%s", lt);
    }
    int body = pg_chance(g, 50) ? 2 + (int)pg_rand(g, 10) : 4 + (int)pg_rand(g, (unsigned)room / 4 + 1);
    unsigned top = g->label++, out = g->label++, latch = g->label++;
    g->loops++;
    bool down = form == 2 && !data;
    /* a body that may break out or skip to the next iteration: some lanes
     * leave early, so it is divergent even when the trip count is not */
    bool exits = pg_chance(g, 15);
    unsigned brk = g->brk, cont = g->cont;
    g->brk = exits ? out + 1 : 0;
    g->cont = exits ? latch + 1 : 0;
    pg_emit(g, "mov.u32 %s, %s", lc, down ? bound : "0");
    label(g, top);
    if (pg_chance(g, 20))
        buf_add(g->out, "\t.pragma \"nounroll\";\n");
    struct pg_ctx c = scope_begin(g, data || exits, !data && !exits);
    if (form == 4) {             /* top-tested: may run no iteration */
        pg_emit(g, "setp.ge.u32 %s, %s, %s", lp, lc, bound);
        pg_emit(g, "@%s bra $L__BB0_%u", lp, out);
    }
    gen_seq(g, body);
    scope_end(g, c);
    g->brk = brk;
    g->cont = cont;
    if (exits)
        label(g, latch);         /* after the body's folds: a lane that skips here has
                                    defined none of the temporaries they read */
    if (form == 4) {
        pg_emit(g, "add.s32 %s, %s, 1", lc, lc);
        pg_emit(g, "bra.uni $L__BB0_%u", top);
    } else if (down) {
        pg_emit(g, "add.s32 %s, %s, -1", lc, lc);
        pg_emit(g, "setp.ne.s32 %s, %s, 0", lp, lc);
        pg_emit(g, "@%s bra $L__BB0_%u", lp, top);
    } else {
        pg_emit(g, "add.s32 %s, %s, 1", lc, lc);
        pg_emit(g, "setp.lt.u32 %s, %s, %s", lp, lc, bound);
        pg_emit(g, "@%s bra $L__BB0_%u", lp, top);
    }
    label(g, out);
    g->loops--;
}

/* Some lanes leave the innermost loop, or skip to its next iteration. */
static void
gen_break(struct pg *g)
{
    bool uni, wuni;
    const char *p = condition(g, &uni, &wuni);
    bool neg = pg_chance(g, 30), cont = pg_chance(g, 40);
    pg_emit(g, "@%s%s bra $L__BB0_%u", neg ? "!" : "", p, (cont ? g->cont : g->brk) - 1);
}

/* Some threads leave early: a branch to the kernel's exit block (ptxas:
 * a predicated EXIT), a guarded ret or exit; they may store what they
 * have first. */
static void
gen_exit(struct pg *g)
{
    if (pg_chance(g, 50))
        store_all(g);
    bool uni, wuni;
    const char *p = condition(g, &uni, &wuni);
    bool neg = pg_chance(g, 30);
    unsigned k = pg_rand(g, 4);
    if (k <= 1) {
        pg_emit(g, "@%s%s bra $L__exit", neg ? "!" : "", p);
        g->exit_label = true;
    } else {
        pg_emit(g, "@%s%s %s", neg ? "!" : "", p, k == 2 ? "ret" : "exit");
    }
    g->exited = true;
}

/* Do f and h take the same parameters and return the same type? */
static bool
same_signature(const struct pg_func *f, const struct pg_func *h)
{
    return f->n_params == h->n_params && f->ret == h->ret && f->scr == h->scr &&
           memcmp(f->param, h->param, f->n_params * sizeof f->param[0]) == 0;
}

/* A call of device function f (defined before this body) as nvcc writes
 * it: .param variables in a { } scope, call.uni when the warp cannot
 * diverge here; at times through a function pointer (with a prototype),
 * which may differ between the lanes when another function of the same
 * signature exists (each is called for its lanes in turn). */
static void
gen_call(struct pg *g, unsigned f, unsigned callable, const char *arg0)
{
    static const char *const st_type[PG_POOLS] = { "b32", "b64", "f32", "f64", "b16", "pred" };
    const struct pg_func *fn = &g->funcs[f];
    const char *fp = NULL;
    if (pg_chance(g, 35)) {
        fp = pg_tmp(g, PG_RD);
        pg_emit(g, "mov.u64 %s, fn%u", fp, f);
        unsigned h = pg_rand(g, callable);
        if (h != f && same_signature(fn, &g->funcs[h])) {
            const char *hp = pg_tmp(g, PG_RD);
            pg_emit(g, "mov.u64 %s, fn%u", hp, h);
            const char *p = pg_src(g, PG_P, false);
            const char *sel = pg_tmp(g, PG_RD);
            pg_emit(g, "selp.b64 %s, %s, %s, %s", sel, fp, hp, p);
            fp = sel;
        }
    }
    unsigned cs = g->callseq++;
    buf_add(g->out, "\t{ // callseq %u, 0\n", cs);
    for (unsigned i = 0; i < fn->n_params; i++) {
        enum pg_pool p = fn->param[i];
        buf_add(g->out, "\t.param .%s param%u;\n", p == PG_R || p == PG_F ? "b32" : "b64", i);
        const char *v = i == 0 && arg0 != NULL ? arg0 : pg_src(g, p, pg_chance(g, 20));
        pg_emit(g, "st.param.%s [param%u+0], %s", st_type[p], i, v);
    }
    if (fn->scr) {
        buf_add(g->out, "\t.param .b64 param%u;\n", fn->n_params);
        pg_emit(g, "st.param.b64 [param%u+0], %s", fn->n_params, g->scr);
    }
    enum pg_pool rp = fn->ret;
    const char *rt = rp == PG_R || rp == PG_F ? "b32" : "b64";
    unsigned np = fn->n_params + (fn->scr ? 1 : 0);
    buf_add(g->out, "\t.param .%s retval0;\n", rt);
    const char *call = g->divergent || fp != NULL ? "call" : "call.uni";
    if (fp != NULL) {
        buf_add(g->out, "\tprototype_%u : .callprototype (.param .%s _) _ (", cs, rt);
        for (unsigned i = 0; i < np; i++) {
            enum pg_pool p = i < fn->n_params ? fn->param[i] : PG_RD;
            buf_add(g->out, "%s.param .%s _", i ? ", " : "", p == PG_R || p == PG_F ? "b32" : "b64");
        }
        buf_add(g->out, ");\n\t%s (retval0), %s, (", call, fp);
        for (unsigned i = 0; i < np; i++)
            buf_add(g->out, "%sparam%u", i ? ", " : "", i);
        buf_add(g->out, "), prototype_%u;\n", cs);
    } else {
        buf_add(g->out, "\t%s (retval0), \n\tfn%u, \n\t(\n", call, f);
        for (unsigned i = 0; i < np; i++)
            buf_add(g->out, "\tparam%u%s\n", i, i + 1 < np ? ", " : "");
        buf_add(g->out, "\t);\n");
    }
    g->budget--;
    const char *d = pg_dst(g, rp);
    pg_emit(g, "ld.param.%s %s, [retval0+0]", st_type[rp], d);
    buf_add(g->out, "\t} // callseq %u\n", cs);
}

enum stmt { S_INT32, S_INT64, S_INT16, S_CARRY, S_F32, S_F64, S_HALF, S_CVT, S_PRED, S_MOVE,
            S_MEM, S_WARP, S_TENSOR, S_IF, S_LOOP, S_CALL, S_XCHG, S_BARRED, S_EXIT, S_BREAK,
            S_COUNT };

static void
gen_stmt(struct pg *g, int room)
{
    unsigned w[S_COUNT] = { 16, 6, 3, 2, 12, 4, 6, 6, 4, 3, 12, 6, 0, 0, 0, 0, 0, 0, 0, 0 };
    if (g->depth < 3 && room > 4)
        w[S_IF] = 6;
    if (g->loops < PG_MAX_LOOPS && room > 8)
        w[S_LOOP] = 4;
    unsigned callable = g->in_func ? g->func_index : g->n_funcs;
    if (callable > 0)
        w[S_CALL] = 3;
    if (!g->in_func && g->block_uniform) {
        w[S_XCHG] = 3;
        w[S_BARRED] = 1;
    }
    if (!g->in_func && g->loops == 0 && room > 4)
        w[S_EXIT] = 1;           /* not in a loop: its next iteration's earlier statements
                                    would run without the lanes that left */
    if (!g->in_func)
        w[S_TENSOR] = pg_tensor_ok(g) ? 3 : 1;
    if (g->brk != 0)
        w[S_BREAK] = 2;
    if (g->in_func && g->scr == NULL && g->flocal == NULL)
        w[S_MEM] = 0;
    unsigned total = 0;
    for (unsigned i = 0; i < S_COUNT; i++)
        total += w[i];
    unsigned k = pg_rand(g, total), s = 0;
    while (k >= w[s])
        k -= w[s++];
    static void (*const arith[S_MEM])(struct pg *) = {
        pg_op_int32, pg_op_int64, pg_op_int16, pg_op_carry, pg_op_f32, pg_op_f64, pg_op_half,
        pg_op_cvt, pg_op_pred, pg_op_move,
    };
    if (s < S_MEM) {
        arith[s](g);
        return;
    }
    switch (s) {
    case S_MEM: pg_gen_mem(g); break;
    case S_WARP: pg_gen_warp(g); break;
    case S_TENSOR: pg_gen_tensor(g); break;
    case S_IF: gen_if(g, room); break;
    case S_LOOP: gen_loop(g, room); break;
    case S_CALL: {
        unsigned f = pg_rand(g, callable);
        if (g->funcs[f].scr && g->scr == NULL)
            pg_op_int32(g);      /* it needs a scratch pointer this body has not */
        else
            gen_call(g, f, callable, NULL);
        break;
    }
    case S_XCHG: pg_gen_exchange(g); break;
    case S_BARRED: pg_gen_barred(g); break;
    case S_BREAK: gen_break(g); break;
    default: gen_exit(g); break;
    }
}

/* Statements until n more instructions are written (or the body's budget
 * is spent). */
static void
gen_seq(struct pg *g, int n)
{
    int stop = g->budget - n;
    if (stop < 0)
        stop = 0;
    while (g->budget > stop)
        gen_stmt(g, g->budget - stop);
}

/* ---- folding ------------------------------------------------------------------- */

/* acc = acc * 31 + v for the next of the n accumulators acc0, acc1, ... */
static void
mix(struct pg *g, const char *acc_fmt, unsigned n, unsigned *next, const char *v)
{
    char acc[16];
    snprintf(acc, sizeof acc, "%s%u", acc_fmt, *next % n);
    (*next)++;
    pg_emit(g, "mad.lo.s32 %s, %s, 31, %s", acc, acc, v);
}

/* Fold every general register of the body into n accumulators. */
static void
fold_pools(struct pg *g, const char *acc_fmt, unsigned n)
{
    unsigned next = 0;
    for (unsigned p = 0; p < PG_POOLS; p++)
        for (unsigned i = 1; i <= g->pool[p]; i++) {
            char r[16];
            snprintf(r, sizeof r, "%s%u", pg_pool_name[p], i);
            const char *a, *b, *w;
            switch (p) {
            case PG_R:
                mix(g, acc_fmt, n, &next, r);
                break;
            case PG_F:
                a = pg_tmp(g, PG_R);
                pg_emit(g, "mov.b32 %s, %s", a, r);
                mix(g, acc_fmt, n, &next, a);
                break;
            case PG_RS:
                a = pg_tmp(g, PG_R);
                pg_emit(g, "cvt.u32.u16 %s, %s", a, r);
                mix(g, acc_fmt, n, &next, a);
                break;
            case PG_P:
                a = pg_tmp(g, PG_R);
                pg_emit(g, "selp.u32 %s, %u, 0, %s", a, 1u << (i % 8), r);
                mix(g, acc_fmt, n, &next, a);
                break;
            default:
                w = r;
                if (p == PG_FD) {
                    w = pg_tmp(g, PG_RD);
                    pg_emit(g, "mov.b64 %s, %s", w, r);
                }
                a = pg_tmp(g, PG_R);
                b = pg_tmp(g, PG_R);
                pg_emit(g, "mov.b64 {%s, %s}, %s", a, b, w);
                mix(g, acc_fmt, n, &next, a);
                mix(g, acc_fmt, n, &next, b);
                break;
            }
        }
}

/* Where store_all puts each part in the thread's words of out (bytes). */
enum { OUT_R = 0, OUT_RD = 64, OUT_F = 128, OUT_FD = 192, OUT_RS = 224, OUT_P = 240,
       OUT_SCNT = 252, OUT_SLOT = 256, OUT_LOCAL = 288 };

/* Store registers 1 .. n of pool p (element type t, size bytes) from byte
 * `at` of the thread's output, in vectors of up to `vec`. */
static void
store_regs(struct pg *g, enum pg_pool p, const char *t, unsigned size, unsigned at, unsigned vec)
{
    unsigned n = g->pool[p];
    for (unsigned i = 1; i <= n;) {
        unsigned v = vec;
        while (v > 1 && (i + v - 1 > n || ((at + (i - 1) * size) % (v * size)) != 0))
            v /= 2;
        char list[96];
        size_t len = 0;
        for (unsigned k = 0; k < v; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%u", k ? ", " : "",
                                    pg_pool_name[p], i + k);
        if (v > 1)
            pg_emit(g, "st.global.v%u.%s [%%ra%u+%u], {%s}", v, t, RA_OUT, at + (i - 1) * size,
                    list);
        else
            pg_emit(g, "st.global.%s [%%ra%u+%u], %s", t, RA_OUT, at + (i - 1) * size, list);
        i += v;
    }
}

/* Copy bytes from [<reg><i>] of space sp to byte `at` of the thread's
 * output, 16 at a time. */
static void
copy_out(struct pg *g, const char *sp, const char *reg, unsigned i, unsigned bytes, unsigned at)
{
    for (unsigned off = 0; off < bytes; off += 16) {
        const char *a = pg_tmp(g, PG_R), *b = pg_tmp(g, PG_R), *c = pg_tmp(g, PG_R);
        const char *d = pg_tmp(g, PG_R);
        pg_emit(g, "ld%s.v4.u32 {%s, %s, %s, %s}, [%s%u+%u]", sp, a, b, c, d, reg, i, off);
        pg_emit(g, "st.global.v4.u32 [%%ra%u+%u], {%s, %s, %s, %s}", RA_OUT, at + off, a, b, c,
                d);
    }
}

/* The kernel's output: every general register, the predicates as bytes,
 * the thread's shared slot and local array, stored to the thread's words
 * of out (an early exit may store them before the end: the last store
 * wins). */
static void
store_all(struct pg *g)
{
    store_regs(g, PG_R, "u32", 4, OUT_R, 4);
    store_regs(g, PG_RD, "u64", 8, OUT_RD, 2);
    store_regs(g, PG_F, "f32", 4, OUT_F, 4);
    store_regs(g, PG_FD, "f64", 8, OUT_FD, 2);
    store_regs(g, PG_RS, "b16", 2, OUT_RS, 4);
    for (unsigned i = 1; i <= g->pool[PG_P]; i++) {
        const char *b = pg_tmp(g, PG_R);
        pg_emit(g, "selp.u32 %s, %u, 0, %%p%u", b, i, i);
        pg_emit(g, "st.global.u8 [%%ra%u+%u], %s", RA_OUT, OUT_P + i - 1, b);
    }
    copy_out(g, ".shared", "%rk", RK_SLOT, PG_SLOT_BYTES, OUT_SLOT);
    copy_out(g, ".local", "%ra", RA_LOC, PG_LOCAL_BYTES, OUT_LOCAL);
}

/* ---- prologues ------------------------------------------------------------------- */

/* Give every general register of the body a value: the .b32 ones from
 * the n_seed values seed (register names), the others from those. */
static void
init_pools(struct pg *g, char seed[][16], unsigned n_seed, bool ints)
{
    for (unsigned i = 1; i <= g->pool[PG_R]; i++) {
        const char *s = seed[(i - 1) % n_seed];
        char own[16];
        snprintf(own, sizeof own, "%%r%u", i);
        if (!ints && strcmp(s, own) == 0)
            continue;            /* loaded already */
        if (i <= n_seed) {
            pg_emit(g, "mov.b32 %%r%u, %s", i, s);
        } else {
            const char *op = PG_PICK(g, "xor.b32", "add.s32", "mul.lo.s32");
            pg_emit(g, "%s %%r%u, %s, %d", op, i, s, (int)(pg_next(g) & 0xffff) | 1);
        }
    }
    for (unsigned i = 1; i <= g->pool[PG_RD] && ints; i++) {
        unsigned a = 1 + pg_rand(g, g->pool[PG_R]), b = 1 + pg_rand(g, g->pool[PG_R]);
        unsigned k = pg_rand(g, 3);
        if (k == 0)
            pg_emit(g, "mov.b64 %%rd%u, {%%r%u, %%r%u}", i, a, b);
        else if (k == 1)
            pg_emit(g, "mul.wide.u32 %%rd%u, %%r%u, %%r%u", i, a, b);
        else
            pg_emit(g, "cvt.s64.s32 %%rd%u, %%r%u", i, a);
    }
    for (unsigned i = 1; i <= g->pool[PG_F]; i++) {
        unsigned a = 1 + pg_rand(g, g->pool[PG_R]), k = pg_rand(g, 4);
        if (k == 0) {
            pg_emit(g, "mov.b32 %%f%u, %%r%u", i, a);
        } else {
            pg_emit(g, "cvt.rn.f32.s32 %%f%u, %%r%u", i, a);
            if (k == 1)
                pg_emit(g, "mul.f32 %%f%u, %%f%u, 0f30000000", i, i);
            else if (k == 2)
                pg_emit(g, "mul.f32 %%f%u, %%f%u, 0f3C000000", i, i);
        }
    }
    for (unsigned i = 1; i <= g->pool[PG_FD]; i++) {
        unsigned a = 1 + pg_rand(g, g->pool[PG_F]), k = pg_rand(g, 3);
        if (k == 0)
            pg_emit(g, "cvt.f64.f32 %%fd%u, %%f%u", i, a);
        else if (k == 1)
            pg_emit(g, "cvt.rn.f64.s32 %%fd%u, %%r%u", i, 1 + pg_rand(g, g->pool[PG_R]));
        else
            pg_emit(g, "mov.b64 %%fd%u, %%rd%u", i, 1 + pg_rand(g, g->pool[PG_RD]));
    }
    for (unsigned i = 1; i <= g->pool[PG_RS]; i++) {
        unsigned k = pg_rand(g, 3);
        if (k == 0)
            pg_emit(g, "cvt.u16.u32 %%rs%u, %%r%u", i, 1 + pg_rand(g, g->pool[PG_R]));
        else if (k == 1)
            pg_emit(g, "cvt.rn.f16.f32 %%rs%u, %%f%u", i, 1 + pg_rand(g, g->pool[PG_F]));
        else
            pg_emit(g, "cvt.rn.bf16.f32 %%rs%u, %%f%u", i, 1 + pg_rand(g, g->pool[PG_F]));
    }
    for (unsigned i = 1; i <= g->pool[PG_P]; i++) {
        const char *cmp = PG_PICK(g, "lt", "gt", "ne", "le");
        unsigned a = 1 + pg_rand(g, g->pool[PG_R]), b = 1 + pg_rand(g, g->pool[PG_R]);
        pg_emit(g, "setp.%s.u32 %%p%u, %%r%u, %%r%u", cmp, i, a, b);
    }
}

/* The register declarations of a body. */
static void
declare(struct pg *g, struct pg_buf *b)
{
    for (unsigned p = 0; p < PG_POOLS; p++) {
        buf_add(b, "\t.reg %s \t%s<%u>;\n", pool_decl[p], pg_pool_name[p], g->pool[p] + 1);
        if (g->n_tmp[p] > 0)
            buf_add(b, "\t.reg %s \t%s<%u>;\n", pool_decl[p], tmp_name[p], g->n_tmp[p]);
    }
    buf_add(b, "\t.reg .b32 \t%%lc<%u>;\n\t.reg .b32 \t%%lt<%u>;\n\t.reg .pred \t%%lp<%u>;\n",
            PG_MAX_LOOPS, PG_MAX_LOOPS, PG_MAX_LOOPS);
    buf_add(b, "\t.reg .b32 \t%%rz<1>;\n\t.reg .b64 \t%%rzd<1>;\n");
}

static void
reset_body(struct pg *g)
{
    memset(g->n_tmp, 0, sizeof g->n_tmp);
    memset(g->n_live, 0, sizeof g->n_live);
    g->depth = g->loops = 0;
}

/* A recursive function's call of itself, for the lanes whose depth is not
 * 0, with depth - 1 (the depth bounds the recursion). */
static void
gen_recursion(struct pg *g, unsigned f, const char *depth)
{
    const char *z = pg_tmp(g, PG_P);
    pg_emit(g, "setp.eq.u32 %s, %s, 0", z, depth);
    unsigned skip = g->label++;
    pg_emit(g, "@%s bra $L__BB0_%u", z, skip);
    struct pg_ctx c = scope_begin(g, true, false);
    const char *d1 = pg_tmp(g, PG_R);
    pg_emit(g, "add.s32 %s, %s, -1", d1, depth);
    gen_call(g, f, f + 1, d1);
    scope_end(g, c);
    label(g, skip);
}

/* The signature of function f: its return value, name and parameters. */
static void
signature(const struct pg *g, struct pg_buf *mod, unsigned f)
{
    const struct pg_func *fn = &g->funcs[f];
    buf_add(mod, ".func  (.param .%s func_retval0) fn%u(\n",
            fn->ret == PG_R || fn->ret == PG_F ? "b32" : "b64", f);
    unsigned np = fn->n_params + (fn->scr ? 1 : 0);
    for (unsigned i = 0; i < np; i++) {
        enum pg_pool p = i < fn->n_params ? fn->param[i] : PG_RD;
        buf_add(mod, "\t.param .%s fn%u_param_%u%s\n", p == PG_R || p == PG_F ? "b32" : "b64",
                f, i, i + 1 < np ? "," : "");
    }
    buf_add(mod, ")");
}

/* Device function i: its signature, its parameters loaded, every register
 * initialised from them, a body, every register folded into the result. */
static void
gen_function(struct pg *g, struct pg_buf *mod, unsigned f)
{
    static const enum pg_pool kinds[4] = { PG_R, PG_RD, PG_F, PG_FD };
    static const char *const ld_type[PG_POOLS] = { "u32", "u64", "f32", "f64", "b16", "pred" };
    struct pg_func *fn = &g->funcs[f];
    fn->n_params = 1 + pg_rand(g, PG_MAX_PARAMS);
    for (unsigned i = 0; i < fn->n_params; i++)
        fn->param[i] = i == 0 ? PG_R : kinds[pg_rand(g, 4)];
    fn->ret = kinds[pg_rand(g, 4)];
    fn->scr = pg_chance(g, 40);
    fn->recursive = pg_chance(g, 30);
    bool local = pg_chance(g, 30);
    struct pg_buf body;
    buf_init(&body);
    reset_body(g);
    g->out = &body;
    g->in_func = true;
    g->func_index = f;
    g->divergent = true;
    g->block_uniform = false;
    g->pool[PG_R] = 4 + pg_rand(g, 4);
    g->pool[PG_RD] = 2 + pg_rand(g, 2);
    g->pool[PG_F] = 2 + pg_rand(g, 3);
    g->pool[PG_FD] = 2;
    g->pool[PG_RS] = 2;
    g->pool[PG_P] = 2 + pg_rand(g, 2);
    g->budget = 8 + (int)pg_rand(g, 40);
    g->scr = fn->scr ? "%fa0" : NULL;
    g->flocal = local ? "%fa1" : NULL;
    /* the parameters, in fresh temporaries read by the initialisation */
    char seed[PG_MAX_PARAMS + 1][16];
    unsigned n_seed = 0;
    for (unsigned i = 0; i < fn->n_params; i++) {
        enum pg_pool p = fn->param[i];
        const char *v = pg_tmp(g, p);
        pg_emit(g, "ld.param.%s %s, [fn%u_param_%u]", ld_type[p], v, f, i);
        const char *w = v;
        if (p != PG_R) {
            w = pg_tmp(g, PG_R);
            if (p == PG_F)
                pg_emit(g, "mov.b32 %s, %s", w, v);
            else if (p == PG_RD)
                pg_emit(g, "cvt.u32.u64 %s, %s", w, v);
            else
                pg_emit(g, "cvt.rzi.s32.f64 %s, %s", w, v);
        }
        snprintf(seed[n_seed++], 16, "%s", w);
    }
    if (fn->scr)
        pg_emit(g, "ld.param.u64 %%fa0, [fn%u_param_%u]", f, fn->n_params);
    if (n_seed < g->pool[PG_R]) {
        const char *l = pg_tmp(g, PG_R);
        pg_emit(g, "mov.u32 %s, %%laneid", l);
        snprintf(seed[n_seed++], 16, "%s", l);
    }
    char depth[16] = "";
    if (fn->recursive) {
        const char *dp = pg_tmp(g, PG_R);
        pg_emit(g, "and.b32 %s, %s, 3", dp, seed[0]);
        snprintf(depth, sizeof depth, "%s", dp);
    }
    init_pools(g, seed, n_seed, true);
    if (local) {
        pg_emit(g, "mov.u64 %%fa1, __local_depot%u", f + 1);
        pg_emit(g, "st.local.v4.u32 [%%fa1], {%%r1, %%r2, %%r3, %%r4}");
    }
    gen_seq(g, g->budget / 2);
    if (fn->recursive)
        gen_recursion(g, f, depth);
    gen_seq(g, g->budget);
    close_temps(g, 0);
    pg_emit(g, "mov.u32 %%fo0, 0");
    pg_emit(g, "mov.u32 %%fo1, 1");
    fold_pools(g, "%fo", 2);
    if (local) {
        const char *a = pg_tmp(g, PG_R), *b = pg_tmp(g, PG_R);
        pg_emit(g, "ld.local.v2.u32 {%s, %s}, [%%fa1+8]", a, b);
        pg_emit(g, "xor.b32 %%fo0, %%fo0, %s", a);
        pg_emit(g, "xor.b32 %%fo1, %%fo1, %s", b);
    }
    const char *r;
    switch (fn->ret) {
    case PG_R: pg_emit(g, "xor.b32 %%fo0, %%fo0, %%fo1"); r = "%fo0"; break;
    case PG_F: r = pg_tmp(g, PG_F); pg_emit(g, "mov.b32 %s, %%fo0", r); break;
    case PG_RD: r = pg_tmp(g, PG_RD); pg_emit(g, "mov.b64 %s, {%%fo0, %%fo1}", r); break;
    default: {
        const char *t = pg_tmp(g, PG_RD);
        pg_emit(g, "mov.b64 %s, {%%fo1, %%fo0}", t);
        r = pg_tmp(g, PG_FD);
        pg_emit(g, "mov.b64 %s, %s", r, t);
        break;
    }
    }
    static const char *const st_type[PG_POOLS] = { "b32", "b64", "f32", "f64", "b16", "pred" };
    pg_emit(g, "st.param.%s [func_retval0+0], %s", st_type[fn->ret], r);
    pg_emit(g, "ret");
    /* the text: a declaration (a recursive function calls itself), the
     * signature, the declarations, the body */
    if (fn->recursive) {
        signature(g, mod, f);
        buf_add(mod, ";\n\n");
    }
    signature(g, mod, f);
    buf_add(mod, "\n{\n");
    if (local)
        buf_add(mod, "\t.local .align 16 .b8 \t__local_depot%u[16];\n", f + 1);
    declare(g, mod);
    buf_add(mod, "\t.reg .b64 \t%%fa<2>;\n\t.reg .b32 \t%%fo<2>;\n\n%s}\n\n", body.s);
    free(body.s);
    g->in_func = false;
    g->scr = g->flocal = NULL;
}

/* The kernel's prologue: parameters, pointers, fixed values, registers,
 * the shared slot, the local array and the shared counters. */
static void
kernel_prologue(struct pg *g, bool shared_cnt)
{
    for (unsigned i = 0; i < 4; i++)
        pg_emit(g, "ld.param.u64 %%ra%u, [k_param_%u]", RA_P0 + i, i);
    pg_emit(g, "ld.param.u32 %%rk%u, [k_param_4]", RK_N);
    pg_emit(g, "ld.param.f32 %%fk0, [k_param_5]");
    pg_emit(g, "cvta.to.global.u64 %%ra%u, %%ra%u", RA_IN, RA_P0);
    pg_emit(g, "cvta.to.global.u64 %%ra%u, %%ra%u", RA_CNT, RA_P3);
    pg_emit(g, "mov.u32 %%rk%u, %%tid.x", RK_TID);
    pg_emit(g, "mov.u32 %%rk%u, %%ctaid.x", RK_CTA);
    pg_emit(g, "mov.u32 %%rk%u, %%ntid.x", RK_NTID);
    pg_emit(g, "mad.lo.s32 %%rk%u, %%rk%u, %%rk%u, %%rk%u", RK_GTID, RK_CTA, RK_NTID, RK_TID);
    pg_emit(g, "mov.u32 %%rk%u, %%laneid", RK_LANE);
    pg_emit(g, "mov.u32 %%rk%u, %%warpid", RK_WARP);
    pg_emit(g, "mov.u32 %%rk%u, %%lanemask_lt", RK_LTMASK);
    const char *o = pg_tmp(g, PG_RD), *oo = pg_tmp(g, PG_RD);
    pg_emit(g, "cvta.to.global.u64 %s, %%ra%u", o, RA_P1);
    pg_emit(g, "mul.wide.u32 %s, %%rk%u, %u", oo, RK_GTID, PG_OUT_WORDS * 4);
    pg_emit(g, "add.s64 %%ra%u, %s, %s", RA_OUT, o, oo);
    const char *s = pg_tmp(g, PG_RD), *ss = pg_tmp(g, PG_RD);
    pg_emit(g, "cvta.to.global.u64 %s, %%ra%u", s, RA_P2);
    pg_emit(g, "mul.wide.u32 %s, %%rk%u, %u", ss, RK_GTID, PG_SCR_WORDS * 4);
    pg_emit(g, "add.s64 %%ra%u, %s, %s", RA_SCR, s, ss);
    pg_emit(g, "add.s64 %%ra%u, %%ra%u, %s", RA_GSCR, RA_P2, ss);
    pg_emit(g, "mov.u32 %%rk%u, smem", RK_SMEM);
    const char *sl = pg_tmp(g, PG_R);
    pg_emit(g, "shl.b32 %s, %%rk%u, 5", sl, RK_TID);
    pg_emit(g, "add.s32 %%rk%u, %%rk%u, %s", RK_SLOT, RK_SMEM, sl);
    pg_emit(g, "add.s32 %%rk%u, %%rk%u, %u", RK_SCNT, RK_SMEM, g->threads * PG_SLOT_BYTES);
    const char *wl = pg_tmp(g, PG_R), *wo = pg_tmp(g, PG_RD);
    pg_emit(g, "shl.b32 %s, %%rk%u, 5", wl, RK_LANE);
    pg_emit(g, "sub.s32 %%rk%u, %%rk%u, %s", RK_WSH, RK_SLOT, wl);
    pg_emit(g, "mul.wide.u32 %s, %%rk%u, %u", wo, RK_LANE, PG_SCR_WORDS * 4);
    pg_emit(g, "sub.s64 %%ra%u, %%ra%u, %s", RA_WSCR, RA_SCR, wo);
    pg_emit(g, "cvt.u64.u32 %%ra%u, %%rk%u", RA_SH, RK_SLOT);
    pg_emit(g, "cvta.shared.u64 %%ra%u, %%ra%u", RA_GSH, RA_SH);
    pg_emit(g, "mov.u64 %%ra%u, gtab", RA_GTAB);
    pg_emit(g, "mov.u64 %%ra%u, ctab", RA_CTAB);
    pg_emit(g, "mov.u64 %%ra%u, __local_depot0", RA_LOC);
    pg_emit(g, "cvta.local.u64 %%ra%u, %%ra%u", RA_GLOC, RA_LOC);
    const char *w = pg_tmp(g, PG_R), *wi = pg_tmp(g, PG_R), *wb = pg_tmp(g, PG_RD);
    pg_emit(g, "mul.lo.s32 %s, %%rk%u, %u", w, RK_GTID, 16 * (1 + 2 * pg_rand(g, 40)) + 4);
    pg_emit(g, "and.b32 %s, %s, %u", wi, w, PG_IN_WORDS - 16);
    pg_emit(g, "mul.wide.u32 %s, %s, 4", wb, wi);
    pg_emit(g, "add.s64 %%ra%u, %%ra%u, %s", RA_WIN, RA_IN, wb);
    /* the registers: the window's words, and values made of them */
    char seed[16][16];
    for (unsigned i = 0; i < 16; i += 4) {
        unsigned r = i + 4 <= g->pool[PG_R] ? i + 1 : 0;
        const char *a = pg_tmp(g, PG_R), *b = pg_tmp(g, PG_R), *c = pg_tmp(g, PG_R);
        const char *d = pg_tmp(g, PG_R);
        if (r != 0)
            pg_emit(g, "ld.global.v4.u32 {%%r%u, %%r%u, %%r%u, %%r%u}, [%%ra%u+%u]", r, r + 1,
                    r + 2, r + 3, RA_WIN, 4 * i);
        else
            pg_emit(g, "ld.global.v4.u32 {%s, %s, %s, %s}, [%%ra%u+%u]", a, b, c, d, RA_WIN,
                    4 * i);
        for (unsigned k = 0; k < 4; k++) {
            if (r != 0)
                snprintf(seed[i + k], 16, "%%r%u", r + k);
            else
                snprintf(seed[i + k], 16, "%s", k == 0 ? a : k == 1 ? b : k == 2 ? c : d);
        }
    }
    /* registers may hold values the same in every thread: a multiple of
     * n, the two .f16 parameters packed (ptxas loads them as one word) */
    if (pg_chance(g, 50)) {
        const char *u = pg_tmp(g, PG_R);
        pg_emit(g, "mul.lo.s32 %s, %%rk%u, %u", u, RK_N, 1 + pg_rand(g, 1000));
        snprintf(seed[g->pool[PG_R] - 1 - pg_rand(g, g->pool[PG_R] % 4 + 1)], 16, "%s", u);
    }
    if (pg_chance(g, 50)) {
        const char *lo = pg_tmp(g, PG_RS), *hi = pg_tmp(g, PG_RS), *u = pg_tmp(g, PG_R);
        pg_emit(g, "ld.param.b16 %s, [k_param_6]", lo);
        pg_emit(g, "ld.param.b16 %s, [k_param_7]", hi);
        pg_emit(g, "mov.b32 %s, {%s, %s}", u, lo, hi);
        snprintf(seed[pg_rand(g, 16)], 16, "%s", u);
    }
    for (unsigned i = 0; i < 8 && i < g->pool[PG_RD]; i += 2) {
        if (i + 2 <= g->pool[PG_RD])
            pg_emit(g, "ld.global.v2.u64 {%%rd%u, %%rd%u}, [%%ra%u+%u]", i + 1, i + 2, RA_WIN,
                    8 * i);
        else
            pg_emit(g, "ld.global.u64 %%rd%u, [%%ra%u+%u]", i + 1, RA_WIN, 8 * i);
    }
    init_pools(g, seed, 16, false);
    pg_emit(g, "st.shared.v4.u32 [%%rk%u], {%%r1, %%r2, %%r3, %%r4}", RK_SLOT);
    pg_emit(g, "st.shared.v4.u32 [%%rk%u+16], {%%r5, %%r6, %%r7, %%r8}", RK_SLOT);
    for (unsigned off = 0; off < PG_LOCAL_BYTES; off += 16) {
        unsigned r[4];
        for (unsigned i = 0; i < 4; i++)
            r[i] = 1 + pg_rand(g, g->pool[PG_R]);
        pg_emit(g, "st.local.v4.u32 [%%ra%u+%u], {%%r%u, %%r%u, %%r%u, %%r%u}", RA_LOC, off,
                r[0], r[1], r[2], r[3]);
    }
    if (shared_cnt) {
        const char *p = pg_tmp(g, PG_P), *a = pg_tmp(g, PG_R), *b = pg_tmp(g, PG_R);
        pg_emit(g, "setp.lt.u32 %s, %%rk%u, %u", p, RK_TID, PG_CNT_WORDS);
        pg_emit(g, "shl.b32 %s, %%rk%u, 2", a, RK_TID);
        pg_emit(g, "add.s32 %s, %%rk%u, %s", b, RK_SCNT, a);
        pg_emit(g, "@%s st.shared.u32 [%s], 0", p, b);
        pg_emit(g, "bar.sync 0");
    }
}

/* The shared counters, after every thread's updates, into the output. */
static void
shared_counters(struct pg *g)
{
    pg_emit(g, "bar.sync 0");
    const char *i = pg_tmp(g, PG_R), *o = pg_tmp(g, PG_R), *a = pg_tmp(g, PG_R);
    const char *v = pg_tmp(g, PG_R);
    pg_emit(g, "and.b32 %s, %%rk%u, %u", i, RK_TID, PG_CNT_WORDS - 1);
    pg_emit(g, "shl.b32 %s, %s, 2", o, i);
    pg_emit(g, "add.s32 %s, %%rk%u, %s", a, RK_SCNT, o);
    pg_emit(g, "ld.shared.u32 %s, [%s]", v, a);
    pg_emit(g, "st.global.u32 [%%ra%u+%u], %s", RA_OUT, OUT_SCNT, v);
}

void
ptxgen_generate(uint64_t seed, struct ptxgen_prog *prog)
{
    struct pg *g = xcalloc(1, sizeof *g);
    g->rng = seed * UINT64_C(0x2545f4914f6cdd1d) + 1;
    static const unsigned sizes[] = { 32, 64, 64, 96, 128, 128, 48, 80 };
    g->threads = sizes[pg_rand(g, sizeof sizes / sizeof sizes[0])];
    g->blocks = 1 + pg_rand(g, 3);
    g->dyn_shared = pg_chance(g, 30);
    g->local_dynamic = pg_chance(g, 40);
    bool shared_cnt = pg_chance(g, 40);
    g->shared_cnt = shared_cnt;
    struct pg_buf mod, body, k;
    buf_init(&mod);
    buf_add(&mod, "//\n// Generated by smsim's tests/ptxgen.c, seed %llu\n//\n\n.version 9.0\n"
            ".target sm_90\n.address_size 64\n\n", (unsigned long long)seed);
    if (g->dyn_shared)
        buf_add(&mod, ".extern .shared .align 16 .b8 smem[];\n\n");
    /* read-only tables in the module's .global and .const memory */
    const char *tn[2] = { ".global .align 16 .b32 gtab", ".const .align 16 .b32 ctab" };
    unsigned tw[2] = { PG_GTAB_BYTES / 4, PG_CTAB_BYTES / 4 };
    for (unsigned t = 0; t < 2; t++) {
        buf_add(&mod, "%s[%u] = {", tn[t], tw[t]);
        for (unsigned i = 0; i < tw[t]; i++)
            buf_add(&mod, "%s%u", i ? ", " : "", (unsigned)pg_next(g));
        buf_add(&mod, "};\n");
    }
    buf_add(&mod, "\n");
    g->n_funcs = pg_chance(g, 40) ? 1 + pg_rand(g, PG_MAX_FUNCS) : 0;
    for (unsigned f = 0; f < g->n_funcs; f++)
        gen_function(g, &mod, f);
    /* the kernel */
    buf_init(&body);
    reset_body(g);
    g->out = &body;
    g->divergent = false;
    g->block_uniform = true;
    snprintf(g->kscr, sizeof g->kscr, "%%ra%u", RA_SCR);
    g->scr = g->kscr;
    g->pool[PG_R] = 8 + pg_rand(g, 7);
    g->pool[PG_RD] = 3 + pg_rand(g, 5);
    g->pool[PG_F] = 5 + pg_rand(g, 7);
    g->pool[PG_FD] = 2 + pg_rand(g, 3);
    g->pool[PG_RS] = 2 + pg_rand(g, 4);
    g->pool[PG_P] = 2 + pg_rand(g, 5);
    g->budget = 1000;
    kernel_prologue(g, shared_cnt);
    int n = 30 + (int)pg_rand(g, 150);
    g->budget = n;
    gen_seq(g, n);
    close_temps(g, 0);
    if (shared_cnt)
        shared_counters(g);
    store_all(g);
    pg_emit(g, "ret");
    if (g->exit_label)
        buf_add(&body, "$L__exit:\n\tret;\n");
    buf_init(&k);
    buf_add(&k, ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1,\n"
            "\t.param .u64 k_param_2,\n\t.param .u64 k_param_3,\n\t.param .u32 k_param_4,\n"
            "\t.param .f32 k_param_5,\n\t.param .b16 k_param_6,\n\t.param .b16 k_param_7\n)\n{\n"
            "\t.local .align 16 .b8 \t__local_depot0[%u];\n",
            PG_LOCAL_BYTES);
    declare(g, &k);
    buf_add(&k, "\t.reg .b64 \t%%ra<%u>;\n\t.reg .b32 \t%%rk<%u>;\n\t.reg .f32 \t%%fk<1>;\n",
            RA_COUNT, RK_COUNT);
    unsigned smem_bytes = g->threads * PG_SLOT_BYTES + PG_CNT_WORDS * 4;
    if (!g->dyn_shared)
        buf_add(&k, "\t.shared .align 16 .b8 smem[%u];\n", smem_bytes);
    buf_add(&k, "\n%s}\n", body.s);
    buf_add(&mod, "%s", k.s);
    free(body.s);
    free(k.s);
    /* the launch file */
    static const unsigned regs[] = { 16, 24, 32, 40, 48, 64, 96, 128, 255 };
    static const char *const fp[] = { "0.75", "-3.5", "1e-3", "12345.678", "0", "-0.0", "2.5e30",
                                      "1.17549435e-38" };
    /* the same, for f16 scalars: in the type's range (an infinity as inf,
     * the smallest subnormal for the denormal) */
    static const char *const hp[] = { "0.75", "-3.5", "1e-3", "12345.678", "0", "-0.0", "inf",
                                      "6e-8" };
    struct pg_buf l;
    buf_init(&l);
    unsigned threads = g->threads * g->blocks;
    unsigned nregs = regs[pg_rand(g, sizeof regs / sizeof regs[0])];
    unsigned cnt0 = pg_chance(g, 50) ? 0u : 0x1234567u, trips = 1 + pg_rand(g, 4);
    const char *f = fp[pg_rand(g, sizeof fp / sizeof fp[0])];
    const char *h0 = hp[pg_rand(g, sizeof hp / sizeof hp[0])];
    const char *h1 = hp[pg_rand(g, sizeof hp / sizeof hp[0])];
    buf_add(&l, "# smsim tests/ptxgen.c, seed %llu\nptx = k.ptx\nkernel = k\ngrid = %u\n"
            "block = %u\nregs = %u\n", (unsigned long long)seed, g->blocks, g->threads, nregs);
    if (g->dyn_shared)
        buf_add(&l, "smem = %u\n", smem_bytes);
    /* calls nest (a recursive function called from others): room for the
     * deepest chain the generator builds, so a program is never refused
     * as written for its stack (seed 4271717 needed 1,088 bytes) */
    buf_add(&l, "stack = 8192\n");
    buf_add(&l, "arg = in buffer u32 %u random 0 4294967295 seed %llu\n"
            "arg = out buffer u32 %u zeros\narg = scr buffer u32 %u zeros\n"
            "arg = cnt buffer u32 %u const %u\narg = n u32 %u\narg = fp f32 %s\n"
            "arg = h0 f16 %s\narg = h1 f16 %s\n"
            "output = out out.bin\noutput = scr scr.bin\noutput = cnt cnt.bin\n",
            PG_IN_WORDS, (unsigned long long)(seed + 1), threads * PG_OUT_WORDS,
            threads * PG_SCR_WORDS, PG_CNT_WORDS, cnt0, trips, f, h0, h1);
    prog->ptx = mod.s;
    prog->ptx_len = mod.len;
    prog->launch = l.s;
    prog->launch_len = l.len;
    free(g);
}

void
ptxgen_free(struct ptxgen_prog *p)
{
    free(p->ptx);
    free(p->launch);
    p->ptx = p->launch = NULL;
    p->ptx_len = p->launch_len = 0;
}
