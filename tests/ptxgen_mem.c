/*
 * ptxgen_mem.c - the random generator's memory accesses, atomics, warp
 * operations and barriers (see ptxgen_internal.h).
 *
 * Every access stays inside a region the thread may use (its words of
 * scr, its shared slot, its local array; the read-only input and module
 * tables) at an address aligned to its size; a store goes only to the thread's own
 * words; shared memory another thread wrote is read only between the two
 * bar.sync of an exchange; an atomic whose result is read updates an
 * address only this thread uses, and the counters all threads update get
 * one order-independent operation each, their results never read.
 */
#include <stdio.h>
#include <string.h>

#include "tests/ptxgen_internal.h"

/* ---- memory ---------------------------------------------------------------- */

struct mtype {
    const char *name;            /* the ld/st type */
    enum pg_pool pool;
    unsigned bytes;              /* per element */
};

static const struct mtype mtypes[] = {
    { "u32", PG_R, 4 }, { "s32", PG_R, 4 }, { "b32", PG_R, 4 }, { "f32", PG_F, 4 },
    { "u64", PG_RD, 8 }, { "s64", PG_RD, 8 }, { "b64", PG_RD, 8 }, { "f64", PG_FD, 8 },
    { "u16", PG_RS, 2 }, { "s16", PG_RS, 2 }, { "b16", PG_RS, 2 }, { "u8", PG_RS, 1 },
    { "s8", PG_RS, 1 }, { "u8", PG_R, 1 }, { "s16", PG_R, 2 },
};
#define N_MTYPES (sizeof mtypes / sizeof mtypes[0])

/* A random access shape: type, vector width (1, 2, 4; at most 16 bytes). */
static const struct mtype *
mshape(struct pg *g, unsigned *vec)
{
    const struct mtype *t = &mtypes[pg_rand(g, N_MTYPES)];
    *vec = 1;
    if (t->bytes >= 2 && pg_chance(g, 30)) {
        *vec = t->bytes == 8 || pg_chance(g, 50) ? 2 : 4;
        if (t->pool == PG_R && t->bytes < 4)
            *vec = 1;
    }
    return t;
}

/* A register list for a vector access: "{a, b}" (distinct registers for
 * a load), or one register. */
static const char *
vregs(struct pg *g, enum pg_pool p, unsigned vec, bool load)
{
    if (vec == 1)
        return load ? pg_dst(g, p) : pg_src(g, p, false);
    char *s = pg_str(g);
    unsigned used[4], n = 0;
    size_t len = (size_t)snprintf(s, PG_STR, "{");
    for (unsigned i = 0; i < vec; i++) {
        unsigned k = pg_rand(g, g->pool[p]);
        if (load) {
            bool again = true;
            while (again) {       /* distinct destinations */
                again = false;
                for (unsigned j = 0; j < n; j++)
                    again = again || used[j] == k;
                if (again)
                    k = (k + 1) % g->pool[p];
            }
            used[n++] = k;
        }
        len += (size_t)snprintf(s + len, PG_STR - len, "%s%s%u", i ? ", " : "", pg_pool_name[p], 1 + k);
    }
    snprintf(s + len, PG_STR - len, "}");
    return s;
}

/* "[base+off]" with off a multiple of align below size. */
static const char *
at(struct pg *g, const char *base, unsigned size, unsigned align)
{
    char *s = pg_str(g);
    unsigned off = align * pg_rand(g, size / align);
    if (off == 0)
        snprintf(s, PG_STR, "[%s]", base);
    else
        snprintf(s, PG_STR, "[%s+%u]", base, off);
    return s;
}

static const char *
rk(struct pg *g, unsigned i)
{
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%%rk%u", i);
    return s;
}

static const char *
ra(struct pg *g, unsigned i)
{
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%%ra%u", i);
    return s;
}

/* A 64-bit address base + (data & (count - 1)) * scale, in temporaries
 * written once each (their one definition lets the lowering see the
 * address's alignment): a data-dependent element of a region. */
static const char *
indexed(struct pg *g, const char *base, unsigned count, unsigned scale)
{
    const char *v = pg_src(g, PG_R, false);
    const char *i = pg_tmp(g, PG_R);
    pg_emit(g, "and.b32 %s, %s, %u", i, v, count - 1);
    const char *o = pg_tmp(g, PG_RD);
    pg_emit(g, "mul.wide.u32 %s, %s, %u", o, i, scale);
    const char *a = pg_tmp(g, PG_RD);
    pg_emit(g, "add.s64 %s, %s, %s", a, base, o);
    return a;
}

/* ld or st of a random shape at [base+off] in a region of size bytes of
 * space sp ("" generic), or at a data-dependent element when idx. */
static void
access(struct pg *g, const char *sp, const char *base_name, unsigned size, bool store, bool idx)
{
    char base[48];
    snprintf(base, sizeof base, "%s", base_name);
    unsigned vec;
    const struct mtype *t = mshape(g, &vec);
    while (vec > g->pool[t->pool])
        vec /= 2;
    unsigned bytes = t->bytes * vec;
    const char *addr;
    if (idx) {
        const char *a = indexed(g, base, size / bytes, bytes);
        char *s = pg_str(g);
        snprintf(s, PG_STR, "[%s]", a);
        addr = s;
    } else {
        addr = at(g, base, size, bytes);
    }
    char v[8] = "";
    if (vec > 1)
        snprintf(v, sizeof v, ".v%u", vec);
    const char *r = vregs(g, t->pool, vec, !store);
    const char *cop = store ? "" : PG_PICK(g, "", "", "", ".ca", ".cg", ".cs", ".lu", ".cv");
    if (strcmp(sp, ".global") != 0)
        cop = "";
    if (store)
        pg_emitg(g, 5, "st%s%s.%s %s, %s", sp, v, t->name, addr, r);
    else
        pg_emitg(g, 5, "ld%s%s%s.%s %s, %s", sp, cop, v, t->name, r, addr);
}

/* Loads of consecutive words from one base with a few unrelated
 * instructions between: ptxas merges them into one vector load. */
static void
load_run(struct pg *g, const char *sp, const char *base_name, unsigned size)
{
    char base[48];
    snprintf(base, sizeof base, "%s", base_name);
    bool wide = pg_chance(g, 25);
    unsigned eb = wide ? 8 : 4, n = wide ? 2 : pg_chance(g, 50) ? 2 : 4;
    unsigned off = (n * eb) * pg_rand(g, size / (n * eb));
    const char *ty = wide ? PG_PICK(g, "u64", "f64") : PG_PICK(g, "u32", "f32", "b32");
    enum pg_pool p = wide ? (ty[0] == 'f' ? PG_FD : PG_RD) : (ty[0] == 'f' ? PG_F : PG_R);
    for (unsigned i = 0; i < n; i++) {
        const char *d = pg_dst(g, p);
        pg_emit(g, "ld%s.%s %s, [%s+%u]", sp, ty, d, base, off + i * eb);
        if (i + 1 < n && pg_chance(g, 40))
            pg_op_int32(g);
    }
}

/* An atomic on an address only this thread uses, its result read. */
static void
atomic_own(struct pg *g, const char *sp, const char *base_name, unsigned size)
{
    char base[48];
    snprintf(base, sizeof base, "%s", base_name);
    static const struct { const char *op, *t; enum pg_pool p; unsigned bytes; } a[] = {
        { "add", "u32", PG_R, 4 }, { "add", "s32", PG_R, 4 }, { "min", "u32", PG_R, 4 },
        { "max", "s32", PG_R, 4 }, { "inc", "u32", PG_R, 4 }, { "dec", "u32", PG_R, 4 },
        { "and", "b32", PG_R, 4 }, { "or", "b32", PG_R, 4 }, { "xor", "b32", PG_R, 4 },
        { "exch", "b32", PG_R, 4 }, { "cas", "b32", PG_R, 4 }, { "add", "f32", PG_F, 4 },
        { "add", "u64", PG_RD, 8 }, { "min", "s64", PG_RD, 8 }, { "max", "u64", PG_RD, 8 },
        { "and", "b64", PG_RD, 8 }, { "exch", "b64", PG_RD, 8 }, { "cas", "b64", PG_RD, 8 },
        { "add.noftz", "f16x2", PG_R, 4 }, { "add.noftz", "bf16x2", PG_R, 4 },
        { "add.noftz", "f16", PG_RS, 2 },
    };
    unsigned k = pg_rand(g, sizeof a / sizeof a[0]);
    const char *addr = at(g, base, size, a[k].bytes);
    const char *b = pg_src(g, a[k].p, false);
    bool cas = strcmp(a[k].op, "cas") == 0, exch = strcmp(a[k].op, "exch") == 0;
    if (!cas && !exch && a[k].p != PG_RS && pg_chance(g, 25)) {
        pg_emitg(g, 5, "red%s.%s.%s %s, %s", sp, a[k].op, a[k].t, addr, b);
        return;
    }
    const char *c = cas ? pg_src(g, a[k].p, false) : NULL;
    const char *d = pg_dst(g, a[k].p);
    if (c != NULL)
        pg_emitg(g, 5, "atom%s.%s.%s %s, %s, %s, %s", sp, a[k].op, a[k].t, d, addr, b, c);
    else
        pg_emitg(g, 5, "atom%s.%s.%s %s, %s, %s", sp, a[k].op, a[k].t, d, addr, b);
}

/* An update of a counter every thread updates: each counter word has one
 * operation (word k: add, or, and, xor, min, max in turn) whose final
 * value does not depend on the order; the result, if any, goes to %rz,
 * which nothing reads. */
static void
atomic_counter(struct pg *g, bool shared)
{
    static const char *const op[] = { "add.u32", "or.b32", "and.b32", "xor.b32", "min.u32",
                                      "max.s32", "add.u32", "max.u32" };
    unsigned w = pg_rand(g, 8);
    bool wide = !shared && pg_chance(g, 25);
    const char *v = pg_src(g, wide ? PG_RD : PG_R, false);
    char addr[48];
    if (shared)
        snprintf(addr, sizeof addr, "[%%rk%u+%u]", RK_SCNT, 4 * (pg_chance(g, 50) ? w : w + 8));
    else
        snprintf(addr, sizeof addr, "[%%ra%u+%u]", RA_CNT, wide ? 32 + 8 * (w % 4) : 4 * w);
    const char *o = wide ? (w % 4 == 0 ? "add.u64" : w % 4 == 1 ? "or.b64" : w % 4 == 2 ?
                            "xor.b64" : "max.u64") : op[w];
    const char *sp = shared ? ".shared" : ".global";
    if (pg_chance(g, 60))
        pg_emitg(g, 5, "red%s.%s %s, %s", sp, o, addr, v);
    else
        pg_emitg(g, 5, "atom%s.%s %s, %s, %s", sp, o, wide ? "%rzd0" : "%rz0", addr, v);
}

void
pg_gen_mem(struct pg *g)
{
    if (g->in_func) {
        bool st = pg_chance(g, 50);
        if (g->flocal != NULL && (g->scr == NULL || pg_chance(g, 40))) {
            access(g, ".local", g->flocal, 16, st, false);
        } else if (g->scr != NULL) {
            unsigned k = pg_rand(g, 4);
            if (k == 0)
                atomic_own(g, ".global", g->scr, PG_SCR_WORDS * 4);
            else
                access(g, k == 1 ? "" : ".global", g->scr, PG_SCR_WORDS * 4, st, false);
        } else {
            pg_op_move(g);
        }
        return;
    }
    unsigned k = pg_rand(g, 18);
    bool st = pg_chance(g, 50), idx = pg_chance(g, 25), alt = pg_chance(g, 50);
    switch (k) {
    case 0: case 1:
        access(g, ".global", ra(g, RA_WIN), 64, false, false);
        break;
    case 2:
        access(g, PG_PICK(g, ".global", ".global.nc"), ra(g, RA_IN), PG_IN_WORDS * 4, false, true);
        break;
    case 3: {
        const char *d = pg_dst(g, PG_R);
        const char *a = at(g, ra(g, RA_WIN), 64, 4);
        pg_emitg(g, 5, "ldu.global.u32 %s, %s", d, a);
        break;
    }
    case 4: case 5:
        access(g, ".global", ra(g, RA_SCR), PG_SCR_WORDS * 4, st, idx);
        break;
    case 6:
        access(g, "", ra(g, alt ? RA_GSCR : RA_GSH), PG_SLOT_BYTES, st, false);
        break;
    case 7: case 8:
        access(g, ".shared", alt ? rk(g, RK_SLOT) : ra(g, RA_SH), PG_SLOT_BYTES, st, false);
        break;
    case 9:
        load_run(g, ".shared", rk(g, RK_SLOT), PG_SLOT_BYTES);
        break;
    case 10: case 11: {
        bool gen = idx && !g->local_dynamic;
        access(g, gen ? "" : ".local", ra(g, gen ? RA_GLOC : RA_LOC), PG_LOCAL_BYTES, st,
               g->local_dynamic && alt);
        break;
    }
    case 12: {
        unsigned w = pg_rand(g, 3);
        atomic_own(g, w == 0 ? ".global" : w == 1 ? ".shared" : "",
                   w == 0 ? ra(g, RA_SCR) : w == 1 ? rk(g, RK_SLOT) : ra(g, RA_GSCR),
                   w == 0 ? PG_SCR_WORDS * 4 : PG_SLOT_BYTES);
        break;
    }
    case 13:
        atomic_counter(g, g->shared_cnt && alt);
        break;
    case 14:
        load_run(g, ".global", ra(g, alt ? RA_SCR : RA_GTAB),
                 alt ? PG_SCR_WORDS * 4 : PG_GTAB_BYTES);
        break;
    case 16:
        access(g, ".global", ra(g, RA_GTAB), PG_GTAB_BYTES, false, idx);
        break;
    case 17: {
        /* the .const table: by its name or through a register */
        if (alt) {
            access(g, ".const", ra(g, RA_CTAB), PG_CTAB_BYTES, false, false);
            break;
        }
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, 5, "ld.const.u32 %s, [ctab+%u]", d, 4 * pg_rand(g, PG_CTAB_BYTES / 4));
        break;
    }
    default:
        pg_emit(g, "%s", PG_PICK(g, "membar.cta", "membar.gl", "fence.sc.cta",
                                 "fence.acq_rel.gpu", "nanosleep.u32 20"));
        break;
    }
}

/* ---- warp operations --------------------------------------------------------- */

/* The member mask of a warp operation: all lanes where the whole warp is
 * known to be here, else the active lanes. */
static const char *
warp_mask(struct pg *g)
{
    if (!g->divergent && !g->exited && g->threads % 32 == 0 && pg_chance(g, 85))
        return "-1";
    const char *m = pg_tmp(g, PG_R);
    pg_emit(g, "activemask.b32 %s", m);
    return m;
}

/* A lane operand of shfl: an immediate or a value made in this block. */
static const char *
lane_opnd(struct pg *g, unsigned imm_max)
{
    unsigned k = pg_rand(g, 4);
    if (k == 0) {
        char *s = pg_str(g);
        snprintf(s, PG_STR, "%u", pg_rand(g, imm_max));
        return s;
    }
    if (k == 1)
        return pg_src(g, PG_R, false);
    const char *v = pg_src(g, PG_R, false);
    const char *t = pg_tmp(g, PG_R);
    pg_emit(g, "and.b32 %s, %s, %u", t, v, k == 2 ? 31u : 0x1f1fu);
    return t;
}

void
pg_gen_warp(struct pg *g)
{
    unsigned k = pg_rand(g, 9);
    switch (k) {
    case 0: case 1: case 2: {
        const char *mode = PG_PICK(g, "up", "down", "bfly", "idx");
        bool f = pg_chance(g, 25);
        const char *a = pg_src(g, f ? PG_F : PG_R, false);
        const char *b = lane_opnd(g, 32);
        const char *c;
        if (pg_chance(g, 60)) {
            static const char *const cv[] = { "0", "31", "7711", "6175", "4127", "7967", "3103" };
            c = mode[0] == 'u' && pg_chance(g, 60) ? "0" : cv[pg_rand(g, 7)];
        } else {
            c = lane_opnd(g, 0x2000);
        }
        const char *m = warp_mask(g);
        const char *d = pg_dst(g, f ? PG_F : PG_R);
        if (pg_chance(g, 30)) {
            const char *p = pg_dst(g, PG_P);
            pg_emit(g, "shfl.sync.%s.b32 %s|%s, %s, %s, %s, %s", mode, d, p, a, b, c, m);
        } else {
            pg_emit(g, "shfl.sync.%s.b32 %s, %s, %s, %s, %s", mode, d, a, b, c, m);
        }
        return;
    }
    case 3: {
        const char *mode = PG_PICK(g, "all", "any", "uni", "ballot");
        bool neg = pg_chance(g, 30);
        const char *a = pg_src(g, PG_P, false);
        const char *m = warp_mask(g);
        const char *d = pg_dst(g, mode[0] == 'b' ? PG_R : PG_P);
        pg_emit(g, "vote.sync.%s.%s %s, %s%s, %s", mode, mode[0] == 'b' ? "b32" : "pred", d,
                neg ? "!" : "", a, m);
        return;
    }
    case 4: {
        bool all = pg_chance(g, 40), w64 = pg_chance(g, 30);
        const char *a = pg_src(g, w64 ? PG_RD : PG_R, false);
        const char *m = warp_mask(g);
        const char *d = pg_dst(g, PG_R);
        if (all && pg_chance(g, 60)) {
            const char *p = pg_dst(g, PG_P);
            pg_emit(g, "match.all.sync.b%s %s|%s, %s, %s", w64 ? "64" : "32", d, p, a, m);
        } else {
            pg_emit(g, "match.%s.sync.b%s %s, %s, %s", all ? "all" : "any", w64 ? "64" : "32",
                    d, a, m);
        }
        return;
    }
    case 5: {
        const char *op = PG_PICK(g, "add.u32", "add.s32", "min.u32", "min.s32", "max.u32",
                                 "max.s32", "and.b32", "or.b32", "xor.b32");
        const char *a = pg_src(g, PG_R, false);
        const char *m = warp_mask(g);
        const char *d = pg_dst(g, PG_R);
        pg_emit(g, "redux.sync.%s %s, %s, %s", op, d, a, m);
        return;
    }
    case 6: {
        const char *d = pg_dst(g, PG_R);
        pg_emit(g, "activemask.b32 %s", d);
        return;
    }
    case 7: {
        const char *m = warp_mask(g);
        pg_emit(g, "bar.warp.sync %s", m);
        return;
    }
    default: {
        const char *sr = PG_PICK(g, "%laneid", "%lanemask_lt", "%lanemask_ge", "%lanemask_eq");
        const char *d = pg_dst(g, PG_R);
        pg_emit(g, "mov.u32 %s, %s", d, sr);
        return;
    }
    }
}

/* ---- barriers --------------------------------------------------------------- */

/* Store to this thread's shared slot, bar.sync, load from another
 * thread's slot, bar.sync: the only way one thread reads what another
 * wrote to shared memory. */
void
pg_gen_exchange(struct pg *g)
{
    access(g, ".shared", rk(g, RK_SLOT), PG_SLOT_BYTES, true, false);
    if (pg_chance(g, 40))
        access(g, ".shared", rk(g, RK_SLOT), PG_SLOT_BYTES, true, false);
    pg_emit(g, "%s", pg_chance(g, 80) ? "bar.sync 0" : "barrier.sync 0");
    const char *who;
    unsigned k = pg_rand(g, 3);
    if (k == 2 && g->threads % 32 != 0)
        k = 0;
    if (k == 0) {            /* the mirror thread */
        const char *a = pg_tmp(g, PG_R), *b = pg_tmp(g, PG_R);
        pg_emit(g, "add.s32 %s, %%rk%u, -1", a, RK_NTID);
        pg_emit(g, "sub.s32 %s, %s, %%rk%u", b, a, RK_TID);
        who = b;
    } else if (k == 1) {     /* a rotation */
        const char *a = pg_tmp(g, PG_R), *b = pg_tmp(g, PG_R);
        pg_emit(g, "add.s32 %s, %%rk%u, %u", a, RK_TID, 1 + pg_rand(g, 200));
        pg_emit(g, "rem.u32 %s, %s, %%rk%u", b, a, RK_NTID);
        who = b;
    } else {                 /* a lane of the same warp */
        const char *a = pg_tmp(g, PG_R);
        pg_emit(g, "xor.b32 %s, %%rk%u, %u", a, RK_TID, 1 + pg_rand(g, 31));
        who = a;
    }
    const char *s = pg_tmp(g, PG_R), *base = pg_tmp(g, PG_R);
    pg_emit(g, "shl.b32 %s, %s, 5", s, who);
    pg_emit(g, "add.s32 %s, %%rk%u, %s", base, RK_SMEM, s);
    if (pg_chance(g, 50))
        load_run(g, ".shared", base, PG_SLOT_BYTES);
    else
        access(g, ".shared", base, PG_SLOT_BYTES, false, false);
    pg_emit(g, "%s", pg_chance(g, 80) ? "bar.sync 0" : "barrier.sync 0");
}

void
pg_gen_barred(struct pg *g)
{
    unsigned k = pg_rand(g, 3);
    bool neg = pg_chance(g, 30);
    const char *p = pg_src(g, PG_P, false);
    const char *d = pg_dst(g, k == 0 ? PG_R : PG_P);
    pg_emit(g, "bar.red.%s %s, 0, %s%s", k == 0 ? "popc.u32" : k == 1 ? "and.pred" : "or.pred",
            d, neg ? "!" : "", p);
}

