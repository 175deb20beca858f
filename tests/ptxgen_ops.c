/*
 * ptxgen_ops.c - the random generator's arithmetic statements (see
 * ptxgen_internal.h): each pg_op_* writes one instruction of its family
 * (a few for carry chains and fusion patterns), with random types,
 * modifiers and operands drawn from what the PTX frontend accepts
 * (doc/launch-format.md, "What the PTX frontend supports").  Every operand
 * is a defined register, a live temporary or an immediate, so every
 * result is deterministic; division by zero and out-of-range conversions
 * are allowed (the executor defines them, and the two executions compared
 * run the same executor).  Operands are drawn one per statement, in
 * order (ptxgen_internal.h).
 */
#include <stdio.h>
#include <string.h>

#include "tests/ptxgen_internal.h"

#define GUARD 6                  /* percent of instructions with a guard */

static const char *
int_type(struct pg *g)
{
    return pg_chance(g, 50) ? "u32" : "s32";
}

static const char *
cmp_int(struct pg *g)
{
    return PG_PICK(g, "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs");
}

static const char *
cmp_float(struct pg *g)
{
    return PG_PICK(g, "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu",
                   "geu", "num", "nan");
}

/* A random decimal immediate below n (shift amounts, bit positions). */
static const char *
small(struct pg *g, unsigned n)
{
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%u", pg_rand(g, n));
    return s;
}

/* A shift amount or bit position: an immediate below n or a .b32 value. */
static const char *
amount(struct pg *g, unsigned n)
{
    if (pg_chance(g, 60))
        return small(g, n);
    return pg_src(g, PG_R, false);
}

/* A predicate source, negated at times (where PTX allows !p). */
static const char *
pred_src(struct pg *g)
{
    const char *p = pg_src(g, PG_P, false);
    if (pg_chance(g, 70))
        return p;
    char *s = pg_str(g);
    snprintf(s, PG_STR, "!%s", p);
    return s;
}

/* The boolean part of a compare: "" or ".and" / ".or" / ".xor" (bop) and
 * its trailing predicate operand ", {!}p" (c). */
static void
boolean(struct pg *g, const char **bop, const char **c)
{
    *bop = "";
    *c = "";
    if (pg_chance(g, 70))
        return;
    *bop = PG_PICK(g, ".and", ".or", ".xor");
    const char *p = pred_src(g);
    char *s = pg_str(g);
    snprintf(s, PG_STR, ", %s", p);
    *c = s;
}

/* The destination of a setp: p, or p|q. */
static const char *
setp_dst(struct pg *g)
{
    const char *p = pg_dst(g, PG_P);
    if (pg_chance(g, 75))
        return p;
    const char *q = pg_dst(g, PG_P);
    char *s = pg_str(g);
    snprintf(s, PG_STR, "%s|%s", p, q);
    return s;
}

/* A setp of type t on the sources of pool p (imm: b may be immediate). */
static void
setp(struct pg *g, const char *t, enum pg_pool p, bool imm, bool fp)
{
    const char *cmp = fp ? cmp_float(g) : cmp_int(g);
    const char *ftz = fp && strcmp(t, "f32") == 0 && pg_chance(g, 20) ? ".ftz" : "";
    const char *bop, *c;
    boolean(g, &bop, &c);
    const char *a = pg_src(g, p, false);
    const char *b = pg_src(g, p, imm);
    const char *d = setp_dst(g);
    pg_emitg(g, GUARD, "setp.%s%s%s.%s %s, %s, %s%s", cmp, bop, ftz, t, d, a, b, c);
}

/* op.t d, a, b over pool p (b immediate at times, if imm). */
static void
bin_imm(struct pg *g, const char *op, const char *t, enum pg_pool p, bool imm)
{
    const char *a = pg_src(g, p, false);
    const char *b = pg_src(g, p, imm);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "%s.%s %s, %s, %s", op, t, d, a, b);
}

static void
bin(struct pg *g, const char *op, const char *t, enum pg_pool p)
{
    bin_imm(g, op, t, p, true);
}

/* mov.b<w> packing two registers of pool part into one of pool whole,
 * or unpacking one. */
static void
pack(struct pg *g, unsigned w, enum pg_pool part, enum pg_pool whole)
{
    if (pg_chance(g, 50)) {
        const char *lo = pg_src(g, part, false);
        const char *hi = pg_src(g, part, false);
        const char *d = pg_dst(g, whole);
        pg_emitg(g, GUARD, "mov.b%u %s, {%s, %s}", w, d, lo, hi);
    } else {
        const char *lo, *hi;
        pg_reg2(g, part, &lo, &hi);
        const char *a = pg_src(g, whole, false);
        pg_emitg(g, GUARD, "mov.b%u {%s, %s}, %s", w, lo, hi, a);
    }
}

/* abs or neg read by float arithmetic: an operand modifier in SASS
 * (FADD R, |R|, R), so the lowering folds it away. */
static void
modifier(struct pg *g, const char *t, enum pg_pool p)
{
    const char *mop = pg_chance(g, 50) ? "abs" : "neg";
    const char *a = pg_src(g, p, false);
    const char *m = pg_tmp(g, p);
    pg_emit(g, "%s.%s %s, %s", mop, t, m, a);
    const char *rop = PG_PICK(g, "add.rn", "mul.rn", "sub", "max");
    const char *b = pg_src(g, p, true);
    const char *d = pg_dst(g, p);
    if (pg_chance(g, 50))
        pg_emitg(g, GUARD, "%s.%s %s, %s, %s", rop, t, d, m, b);
    else
        pg_emitg(g, GUARD, "%s.%s %s, %s, %s", rop, t, d, b, m);
}

/* testp.<property>.t p, a over pool p. */
static void
testp(struct pg *g, const char *t, enum pg_pool p)
{
    const char *mode = PG_PICK(g, "finite", "infinite", "number", "notanumber", "normal",
                               "subnormal");
    const char *a = pg_src(g, p, false);
    const char *d = pg_dst(g, PG_P);
    pg_emitg(g, GUARD, "testp.%s.%s %s, %s", mode, t, d, a);
}

/* slct.t.s32 / slct(.ftz).t.f32 d, a, b, c over pool p: a or b by the
 * sign of c. */
static void
slct(struct pg *g, const char *t, enum pg_pool p, const char *ftz)
{
    bool fc = pg_chance(g, 50);
    const char *a = pg_src(g, p, false);
    const char *b = pg_src(g, p, true);
    const char *c = pg_src(g, fc ? PG_F : PG_R, false);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "slct%s.%s.%s %s, %s, %s, %s", fc ? ftz : "", t, fc ? "f32" : "s32", d,
             a, b, c);
}

/* A shift of a w-bit value (shl, or shr .b / .u / .s) by an amount up to
 * a quarter past the width. */
static void
shift(struct pg *g, bool left, unsigned w, enum pg_pool p)
{
    const char *op = left ? "shl.b" : PG_PICK(g, "shr.b", "shr.u", "shr.s");
    const char *a = pg_src(g, p, false);
    const char *n = amount(g, w + w / 4);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "%s%u %s, %s, %s", op, w, d, a, n);
}

/* op.t d, a, N over pool p with an immediate N below n. */
static void
bin_small(struct pg *g, const char *op, const char *t, enum pg_pool p, unsigned n)
{
    const char *a = pg_src(g, p, false);
    const char *v = small(g, n);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "%s.%s %s, %s, %s", op, t, d, a, v);
}

/* op.t d, a over pool p. */
static void
un(struct pg *g, const char *op, const char *t, enum pg_pool p)
{
    const char *a = pg_src(g, p, false);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "%s.%s %s, %s", op, t, d, a);
}

/* op.t d, a, b, c over pool p. */
static void
tern(struct pg *g, const char *op, const char *t, enum pg_pool p)
{
    const char *a = pg_src(g, p, false);
    const char *b = pg_src(g, p, true);
    const char *c = pg_src(g, p, true);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "%s.%s %s, %s, %s, %s", op, t, d, a, b, c);
}

/* selp.t d, a, b, p over pool p. */
static void
selp(struct pg *g, const char *t, enum pg_pool p)
{
    const char *a = pg_src(g, p, true);
    const char *b = pg_src(g, p, true);
    const char *c = pg_src(g, PG_P, false);
    const char *d = pg_dst(g, p);
    pg_emitg(g, GUARD, "selp.%s %s, %s, %s, %s", t, d, a, b, c);
}

/* bfe.t (or bfi.b32 / .b64 when insert) over pool p, bit positions and
 * lengths up to a few past the width. */
static void
bitfield(struct pg *g, const char *t, enum pg_pool p, bool insert)
{
    unsigned w = p == PG_RD ? 64 : 32;
    const char *a = pg_src(g, p, false);
    const char *b = insert ? pg_src(g, p, true) : NULL;
    const char *pos = amount(g, w + 6);
    const char *len = amount(g, w + 6);
    const char *d = pg_dst(g, p);
    if (b != NULL)
        pg_emitg(g, GUARD, "bfi.b%u %s, %s, %s, %s, %s", w, d, a, b, pos, len);
    else
        pg_emitg(g, GUARD, "bfe.%s %s, %s, %s, %s", t, d, a, pos, len);
}

/* un, bin or tern (arity 1 .. 3) of operation base with the modifiers
 * mod ("" or ".rn.ftz" ...). */
static void
op_mod(struct pg *g, unsigned arity, const char *base, const char *mod, const char *t,
       enum pg_pool p)
{
    char op[48];
    snprintf(op, sizeof op, "%s%s", base, mod);
    if (arity == 1)
        un(g, op, t, p);
    else if (arity == 2)
        bin(g, op, t, p);
    else
        tern(g, op, t, p);
}

/* A product or shift of 32-bit values into an add, as nvcc writes
 * indices: ptxas fuses the pair (IMAD, LEA, IADD3). */
static void
fused32(struct pg *g)
{
    const char *a = pg_src(g, PG_R, false);
    const char *b = pg_src(g, PG_R, true);
    const char *tm = pg_tmp(g, PG_R);
    unsigned k = pg_rand(g, 3);
    if (k == 0)
        pg_emit(g, "mul.lo.s32 %s, %s, %s", tm, a, b);
    else if (k == 1)
        pg_emit(g, "shl.b32 %s, %s, %u", tm, a, pg_rand(g, 32));
    else
        pg_emit(g, "add.s32 %s, %s, %s", tm, a, b);
    const char *c = pg_src(g, PG_R, true);
    const char *d = pg_dst(g, PG_R);
    if (pg_chance(g, 50))
        pg_emitg(g, GUARD, "add.s32 %s, %s, %s", d, tm, c);
    else
        pg_emitg(g, GUARD, "sub.s32 %s, %s, %s", d, pg_src(g, PG_R, false), tm);
}

void
pg_op_int32(struct pg *g)
{
    const char *t = int_type(g);
    unsigned k = pg_rand(g, 37);
    switch (k) {
    case 0: bin(g, "add", t, PG_R); return;
    case 1: bin(g, "sub", t, PG_R); return;
    case 2: bin(g, pg_chance(g, 50) ? "add.sat" : "sub.sat", "s32", PG_R); return;
    case 3: bin(g, pg_chance(g, 50) ? "mul.lo" : "mul.hi", t, PG_R); return;
    case 4: tern(g, pg_chance(g, 50) ? "mad.lo" : "mad.hi", t, PG_R); return;
    case 5: case 6: {
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, true);
        const char *c = k == 6 ? pg_src(g, PG_RD, true) : NULL;
        const char *d = pg_dst(g, PG_RD);
        if (c != NULL)
            pg_emitg(g, GUARD, "mad.wide.%s %s, %s, %s, %s", t, d, a, b, c);
        else
            pg_emitg(g, GUARD, "mul.wide.%s %s, %s, %s", t, d, a, b);
        return;
    }
    case 7: {
        const char *h = pg_chance(g, 50) ? "lo" : "hi";
        char op[16];
        if (pg_chance(g, 50)) {
            snprintf(op, sizeof op, "mul24.%s", h);
            bin(g, op, t, PG_R);
        } else {
            snprintf(op, sizeof op, "mad24.%s", h);
            tern(g, op, t, PG_R);
        }
        return;
    }
    case 8: tern(g, "sad", t, PG_R); return;
    case 9: bin(g, pg_chance(g, 50) ? "div" : "rem", t, PG_R); return;
    case 10: bin(g, pg_chance(g, 50) ? "min" : "max", t, PG_R); return;
    case 11: un(g, pg_chance(g, 50) ? "abs" : "neg", "s32", PG_R); return;
    case 12: bin(g, PG_PICK(g, "and", "or", "xor"), "b32", PG_R); return;
    case 13: un(g, pg_chance(g, 50) ? "not" : "cnot", "b32", PG_R); return;
    case 14: case 15: shift(g, k == 14, 32, PG_R); return;
    case 16: {
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, true);
        const char *c = pg_src(g, PG_R, true);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "lop3.b32 %s, %s, %s, %s, %u", d, a, b, c, pg_rand(g, 256));
        return;
    }
    case 17: case 18: bitfield(g, t, PG_R, k == 18); return;
    case 19: {
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, true);
        char *sel = pg_str(g);
        snprintf(sel, PG_STR, "%u", (unsigned)(pg_next(g) & 0xffff));
        const char *s = pg_chance(g, 70) ? sel : pg_src(g, PG_R, false);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "prmt.b32 %s, %s, %s, %s", d, a, b, s);
        return;
    }
    case 20: {
        const char *dir = pg_chance(g, 50) ? "l" : "r";
        const char *mode = pg_chance(g, 50) ? "wrap" : "clamp";
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, false);
        const char *n = amount(g, 40);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "shf.%s.%s.b32 %s, %s, %s, %s", dir, mode, d, a, b, n);
        return;
    }
    case 21: un(g, PG_PICK(g, "popc", "clz", "brev"), "b32", PG_R); return;
    case 22: un(g, pg_chance(g, 30) ? "bfind.shiftamt" : "bfind", t, PG_R); return;
    case 23: case 24: {
        char op[32];
        const char *t2 = int_type(g);
        if (k == 23)
            snprintf(op, sizeof op, "dp4a.%s", t);
        else
            snprintf(op, sizeof op, "dp2a.%s.%s", pg_chance(g, 50) ? "lo" : "hi", t);
        tern(g, op, t2, PG_R);
        return;
    }
    case 25: selp(g, "b32", PG_R); return;
    case 26: slct(g, t, PG_R, ""); return;
    case 27: {
        const char *cmp = cmp_int(g);
        const char *t2 = int_type(g);
        const char *bop, *c;
        boolean(g, &bop, &c);
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, true);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "set.%s%s.%s.%s %s, %s, %s%s", cmp, bop, t, t2, d, a, b, c);
        return;
    }
    case 28: {
        const char *op = PG_PICK(g, "add", "min", "max");
        const char *ty = pg_chance(g, 50) ? "u16x2" : "s16x2";
        bool relu = op[1] != 'd' && ty[0] == 's' && pg_chance(g, 40);
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, false);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "%s%s.%s %s, %s, %s", op, relu ? ".relu" : "", ty, d, a, b);
        return;
    }
    case 29: {
        unsigned form = pg_rand(g, 3);
        const char *ta = int_type(g);
        const char *tb = int_type(g);
        const char *a = pg_src(g, PG_R, false);
        const char *b = pg_src(g, PG_R, false);
        const char *c = pg_src(g, PG_R, false);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "vabsdiff4.%s.%s.%s%s %s, %s, %s, %s", t, ta, tb,
                 form == 0 ? "" : form == 1 ? ".sat" : ".add", d, a, b, c);
        return;
    }
    case 30: case 31: {
        const char *op = k == 31 ? (pg_chance(g, 50) ? "bfind.u64" : "bfind.s64")
                                 : (pg_chance(g, 50) ? "popc.b64" : "clz.b64");
        const char *a = pg_src(g, PG_RD, false);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "%s %s, %s", op, d, a);
        return;
    }
    case 32: fused32(g); return;
    case 33: setp(g, t, PG_R, true, false); return;
    case 34: bin_small(g, "mul.lo", t, PG_R, 64); return;
    case 35: {
        /* two divisions by one divisor: ptxas computes its reciprocal once */
        const char *b = pg_src(g, PG_R, false);
        for (unsigned i = 0; i < 2; i++) {
            const char *op = pg_chance(g, 50) ? "div" : "rem";
            const char *a = pg_src(g, PG_R, false);
            const char *d = pg_dst(g, PG_R);
            pg_emitg(g, GUARD, "%s.%s %s, %s, %s", op, t, d, a, b);
        }
        return;
    }
    default: bin_small(g, "add", t, PG_R, 16); return;
    }
}

/* An index widened and scaled into a 64-bit add (IMAD.WIDE, LEA.HI.X). */
static void
fused64(struct pg *g, const char *t)
{
    const char *i = pg_src(g, PG_R, false);
    const char *tm = pg_tmp(g, PG_RD);
    if (pg_chance(g, 50)) {
        pg_emit(g, "mul.wide.%s %s, %s, %u", t[0] == 'u' ? "u32" : "s32", tm, i,
                1u << pg_rand(g, 5));
    } else {
        const char *w = pg_tmp(g, PG_RD);
        pg_emit(g, "cvt.%s.%s %s, %s", t, t[0] == 'u' ? "u32" : "s32", w, i);
        pg_emit(g, "shl.b64 %s, %s, %u", tm, w, pg_rand(g, 5));
    }
    const char *a = pg_src(g, PG_RD, false);
    const char *d = pg_dst(g, PG_RD);
    pg_emitg(g, GUARD, "add.s64 %s, %s, %s", d, a, tm);
}

void
pg_op_int64(struct pg *g)
{
    const char *t = pg_chance(g, 50) ? "u64" : "s64";
    unsigned k = pg_rand(g, 20);
    switch (k) {
    case 0: bin(g, "add", t, PG_RD); return;
    case 1: bin(g, "sub", t, PG_RD); return;
    case 2: bin(g, pg_chance(g, 50) ? "mul.lo" : "mul.hi", t, PG_RD); return;
    case 3: tern(g, "mad.lo", t, PG_RD); return;
    case 4: bin(g, pg_chance(g, 50) ? "div" : "rem", t, PG_RD); return;
    case 5: bin(g, pg_chance(g, 50) ? "min" : "max", t, PG_RD); return;
    case 6: bin(g, PG_PICK(g, "and", "or", "xor"), "b64", PG_RD); return;
    case 7: un(g, "not", "b64", PG_RD); return;
    case 8: case 9: shift(g, k == 8, 64, PG_RD); return;
    case 10: un(g, pg_chance(g, 50) ? "neg" : "abs", "s64", PG_RD); return;
    case 11: un(g, "brev", "b64", PG_RD); return;
    case 12: case 13: bitfield(g, t, PG_RD, k == 13); return;
    case 14: selp(g, "b64", PG_RD); return;
    case 15: setp(g, t, PG_RD, true, false); return;
    case 16: fused64(g, t); return;
    case 17: {
        const char *a = pg_src(g, PG_RD, false);
        const char *b = pg_src(g, PG_RD, false);
        const char *tm = pg_tmp(g, PG_RD);
        pg_emit(g, "add.s64 %s, %s, %s", tm, a, b);
        const char *c = pg_src(g, PG_RD, false);
        const char *d = pg_dst(g, PG_RD);
        pg_emitg(g, GUARD, "add.s64 %s, %s, %s", d, tm, c);
        return;
    }
    case 18: bin_small(g, "mul.lo", t, PG_RD, 100); return;
    default: bin_small(g, "add", t, PG_RD, 64); return;
    }
}

void
pg_op_int16(struct pg *g)
{
    const char *t = pg_chance(g, 50) ? "u16" : "s16";
    unsigned k = pg_rand(g, 12);
    switch (k) {
    case 0: bin(g, pg_chance(g, 50) ? "add" : "sub", t, PG_RS); return;
    case 1: bin(g, pg_chance(g, 50) ? "mul.lo" : "mul.hi", t, PG_RS); return;
    case 2: tern(g, "mad.lo", t, PG_RS); return;
    case 3: {
        const char *a = pg_src(g, PG_RS, false);
        const char *b = pg_src(g, PG_RS, true);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "mul.wide.%s %s, %s, %s", t, d, a, b);
        return;
    }
    case 4: bin(g, pg_chance(g, 50) ? "div" : "rem", t, PG_RS); return;
    case 5: bin(g, pg_chance(g, 50) ? "min" : "max", t, PG_RS); return;
    case 6: bin(g, PG_PICK(g, "and", "or", "xor"), "b16", PG_RS); return;
    case 7: un(g, pg_chance(g, 50) ? "not" : "cnot", "b16", PG_RS); return;
    case 8: shift(g, pg_chance(g, 25), 16, PG_RS); return;
    case 9: un(g, pg_chance(g, 50) ? "abs" : "neg", "s16", PG_RS); return;
    case 10: selp(g, "b16", PG_RS); return;
    default: setp(g, t, PG_RS, true, false); return;
    }
}

/* A carry chain: add.cc, addc.cc ..., addc (or the sub and mad forms),
 * at times with an unrelated instruction between two links. */
void
pg_op_carry(struct pg *g)
{
    unsigned form = pg_rand(g, 4), links = 2 + pg_rand(g, 2);
    bool w64 = form == 3;
    enum pg_pool p = w64 ? PG_RD : PG_R;
    const char *t = w64 ? "u64" : pg_chance(g, 50) ? "u32" : "s32";
    for (unsigned i = 0; i < links; i++) {
        bool first = i == 0, last = i + 1 == links;
        const char *a = pg_src(g, p, false);
        const char *b = pg_src(g, p, true);
        const char *c = form == 2 ? pg_src(g, p, true) : NULL;
        const char *d = pg_dst(g, p);
        if (c != NULL)
            pg_emit(g, "mad%s.%s%s.%s %s, %s, %s, %s", first ? "" : "c",
                    pg_chance(g, 50) ? "lo" : "hi", last ? "" : ".cc", t, d, a, b, c);
        else
            pg_emit(g, "%s%s%s.%s %s, %s, %s", form == 1 ? "sub" : "add", first ? "" : "c",
                    last ? "" : ".cc", t, d, a, b);
        if (!last && pg_chance(g, 30))
            pg_op_int16(g);      /* does not touch the carry */
    }
}

void
pg_op_f32(struct pg *g)
{
    const char *ftz = pg_chance(g, 25) ? ".ftz" : "";
    unsigned k = pg_rand(g, 24);
    char op[48];
    switch (k) {
    case 0: case 1: {
        const char *rnd = PG_PICK(g, "", ".rn", ".rz", ".rm", ".rp");
        const char *sat = pg_chance(g, 15) ? ".sat" : "";
        snprintf(op, sizeof op, "%s%s%s%s", PG_PICK(g, "add", "sub", "mul"), rnd, ftz, sat);
        bin(g, op, "f32", PG_F);
        return;
    }
    case 2: case 3: {
        const char *rnd = PG_PICK(g, ".rn", ".rz", ".rm", ".rp");
        const char *sat = pg_chance(g, 15) ? ".sat" : "";
        snprintf(op, sizeof op, "%s%s%s%s", pg_chance(g, 70) ? "fma" : "mad", rnd, ftz, sat);
        tern(g, op, "f32", PG_F);
        return;
    }
    case 4:
        snprintf(op, sizeof op, "div%s%s",
                 PG_PICK(g, ".rn", ".rz", ".rm", ".rp", ".approx", ".full"), ftz);
        bin(g, op, "f32", PG_F);
        return;
    case 5:
        snprintf(op, sizeof op, "rcp%s%s", PG_PICK(g, ".rn", ".rz", ".approx"), ftz);
        un(g, op, "f32", PG_F);
        return;
    case 6:
        snprintf(op, sizeof op, "sqrt%s%s", PG_PICK(g, ".rn", ".rp", ".approx"), ftz);
        un(g, op, "f32", PG_F);
        return;
    case 7:
        snprintf(op, sizeof op, "%s.approx%s", PG_PICK(g, "rsqrt", "ex2", "lg2", "sin", "cos"),
                 ftz);
        un(g, op, "f32", PG_F);
        return;
    case 8: un(g, "tanh.approx", "f32", PG_F); return;
    case 9:
        op_mod(g, 2, pg_chance(g, 50) ? "min" : "max", ftz, "f32", PG_F);
        return;
    case 10:
        op_mod(g, 1, pg_chance(g, 50) ? "abs" : "neg", ftz, "f32", PG_F);
        return;
    case 11: modifier(g, "f32", PG_F); return;
    case 12: bin_imm(g, "copysign", "f32", PG_F, false); return;
    case 13: testp(g, "f32", PG_F); return;
    case 14: case 15: setp(g, "f32", PG_F, true, true); return;
    case 16: selp(g, "f32", PG_F); return;
    case 17: slct(g, "f32", PG_F, ftz); return;
    case 18: {
        const char *cmp = cmp_float(g);
        bool fd = pg_chance(g, 50);
        const char *dt = fd ? "f32" : pg_chance(g, 50) ? "u32" : "s32";
        const char *bop, *c;
        boolean(g, &bop, &c);
        const char *a = pg_src(g, PG_F, false);
        const char *b = pg_src(g, PG_F, true);
        const char *d = pg_dst(g, fd ? PG_F : PG_R);
        pg_emitg(g, GUARD, "set.%s%s%s.%s.f32 %s, %s, %s%s", cmp, bop, ftz, dt, d, a, b, c);
        return;
    }
    case 19: {
        const char *rnd = PG_PICK(g, ".rni", ".rzi", ".rmi", ".rpi");
        const char *sat = pg_chance(g, 15) ? ".sat" : "";
        snprintf(op, sizeof op, "cvt%s%s%s.f32", rnd, ftz, sat);
        un(g, op, "f32", PG_F);
        return;
    }
    case 20: {
        const char *v = pg_imm(g, PG_F);
        const char *d = pg_dst(g, PG_F);
        pg_emitg(g, GUARD, "mov.f32 %s, %s", d, v);
        return;
    }
    default:
        op_mod(g, 2, pg_chance(g, 50) ? "add" : "mul", ftz, "f32", PG_F);
        return;
    }
}

void
pg_op_f64(struct pg *g)
{
    const char *rnd = PG_PICK(g, ".rn", ".rz", ".rm", ".rp");
    unsigned k = pg_rand(g, 14);
    char op[48];
    switch (k) {
    case 0: case 1:
        op_mod(g, 2, PG_PICK(g, "add", "sub", "mul"), rnd, "f64", PG_FD);
        return;
    case 2:
        op_mod(g, 3, pg_chance(g, 70) ? "fma" : "mad", rnd, "f64", PG_FD);
        return;
    case 3:
        snprintf(op, sizeof op, "div%s", rnd);
        bin(g, op, "f64", PG_FD);
        return;
    case 4: un(g, PG_PICK(g, "rcp.rn", "sqrt.rn", "rcp.rz", "sqrt.rm"), "f64", PG_FD); return;
    case 5: bin(g, pg_chance(g, 50) ? "min" : "max", "f64", PG_FD); return;
    case 6: un(g, pg_chance(g, 50) ? "abs" : "neg", "f64", PG_FD); return;
    case 7: setp(g, "f64", PG_FD, true, true); return;
    case 8: selp(g, "f64", PG_FD); return;
    case 9: testp(g, "f64", PG_FD); return;
    case 10: bin_imm(g, "copysign", "f64", PG_FD, false); return;
    case 11:
        snprintf(op, sizeof op, "cvt%s.f64", PG_PICK(g, ".rni", ".rzi", ".rmi", ".rpi"));
        un(g, op, "f64", PG_FD);
        return;
    case 12: modifier(g, "f64", PG_FD); return;
    default: {
        const char *v = pg_imm(g, PG_FD);
        const char *d = pg_dst(g, PG_FD);
        pg_emitg(g, GUARD, "mov.f64 %s, %s", d, v);
        return;
    }
    }
}

/* Half precision: scalar .f16 / .bf16 in %rs, packed .f16x2 / .bf16x2 in
 * %r; every operand a register (the frontend's rule). */
void
pg_op_half(struct pg *g)
{
    bool packed = pg_chance(g, 50), bf = pg_chance(g, 35);
    enum pg_pool p = packed ? PG_R : PG_RS;
    const char *t = packed ? (bf ? "bf16x2" : "f16x2") : (bf ? "bf16" : "f16");
    const char *ftz = !bf && pg_chance(g, 25) ? ".ftz" : "";
    unsigned k = pg_rand(g, 12);
    char op[64];
    switch (k) {
    case 0: case 1: case 11: {
        const char *o = PG_PICK(g, "add", "sub", "mul");
        const char *rn = k == 11 || pg_chance(g, 50) ? ".rn" : "";
        const char *sat = !bf && pg_chance(g, 20) ? ".sat" : "";
        const char *a = pg_src(g, p, false);
        const char *b = pg_src(g, p, false);
        const char *d = pg_dst(g, p);
        pg_emitg(g, GUARD, "%s%s%s%s.%s %s, %s, %s", o, rn, ftz, sat, t, d, a, b);
        return;
    }
    case 2: case 3: {
        unsigned m = pg_rand(g, 3);
        const char *mod = m == 1 ? ".relu" : m == 2 && !bf ? ".sat" : "";
        const char *a = pg_src(g, p, false);
        const char *b = pg_src(g, p, false);
        const char *c = pg_src(g, p, false);
        const char *d = pg_dst(g, p);
        pg_emitg(g, GUARD, "fma.rn%s%s.%s %s, %s, %s, %s", ftz, mod, t, d, a, b, c);
        return;
    }
    case 4: un(g, pg_chance(g, 50) ? "neg" : "abs", t, p); return;
    case 5: {
        unsigned m = pg_rand(g, 4);
        snprintf(op, sizeof op, "%s%s%s", pg_chance(g, 50) ? "min" : "max", ftz,
                 m == 1 ? ".NaN" : m == 2 ? ".xorsign.abs" : m == 3 ? ".NaN.xorsign.abs" : "");
        const char *a = pg_src(g, p, false);
        const char *b = pg_src(g, p, false);
        const char *d = pg_dst(g, p);
        pg_emitg(g, GUARD, "%s.%s %s, %s, %s", op, t, d, a, b);
        return;
    }
    case 6: {
        const char *cmp = cmp_float(g);
        const char *a = pg_src(g, p, false);
        const char *b = pg_src(g, p, false);
        const char *d = packed ? setp_dst(g) : pg_dst(g, PG_P);
        pg_emitg(g, GUARD, "setp.%s%s.%s %s, %s, %s", cmp, ftz, t, d, a, b);
        return;
    }
    case 7: {
        const char *cmp = cmp_float(g);
        bool same = packed && pg_chance(g, 50);
        const char *dt = same ? t : pg_chance(g, 50) ? "u32" : "s32";
        const char *a = pg_src(g, p, false);
        const char *b = pg_src(g, p, false);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "set.%s%s.%s.%s %s, %s, %s", cmp, ftz, dt, t, d, a, b);
        return;
    }
    case 8:
        if (packed) {
            const char *rnd = pg_chance(g, 50) ? "rn" : "rz";
            const char *relu = pg_chance(g, 30) ? ".relu" : "";
            const char *a = pg_src(g, PG_F, false);
            const char *b = pg_src(g, PG_F, false);
            const char *d = pg_dst(g, PG_R);
            pg_emitg(g, GUARD, "cvt.%s%s.%s.f32 %s, %s, %s", rnd, relu, t, d, a, b);
        } else {
            un(g, pg_chance(g, 50) ? "ex2.approx" : "tanh.approx", "f16", PG_RS);
        }
        return;
    case 9: pack(g, 32, PG_RS, PG_R); return;
    default:
        bin_imm(g, pg_chance(g, 50) ? "add.rn" : "mul.rn", t, p, false);
        return;
    }
}

/* The pool of a conversion type. */
static enum pg_pool
cvt_pool(const char *t)
{
    if (strcmp(t, "f32") == 0)
        return PG_F;
    if (strcmp(t, "f64") == 0)
        return PG_FD;
    if (strcmp(t, "u64") == 0 || strcmp(t, "s64") == 0)
        return PG_RD;
    if (strcmp(t, "u32") == 0 || strcmp(t, "s32") == 0)
        return PG_R;
    return PG_RS;                /* 8 and 16 bits, f16, bf16 */
}

static unsigned
cvt_bits(const char *t)
{
    unsigned b = 0;
    for (const char *s = t; *s; s++)
        if (*s >= '0' && *s <= '9')
            b = b * 10 + (unsigned)(*s - '0');
    return b;
}

/* cvt between any two types, with the rounding each pair needs. */
void
pg_op_cvt(struct pg *g)
{
    static const char *const types[] = { "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64",
                                         "f16", "bf16", "f32", "f64" };
    const char *dt = types[pg_rand(g, 12)];
    const char *st = types[pg_rand(g, 12)];
    bool df = dt[0] == 'f' || dt[0] == 'b', sf = st[0] == 'f' || st[0] == 'b';
    unsigned db = cvt_bits(dt), sb = cvt_bits(st);
    const char *rnd = "", *mod = "";
    if (df && !sf) {
        rnd = PG_PICK(g, ".rn", ".rz", ".rm", ".rp");
    } else if (!df && sf) {
        rnd = PG_PICK(g, ".rni", ".rzi", ".rmi", ".rpi");
        if (pg_chance(g, 20))
            mod = ".sat";
    } else if (df && sf) {
        bool narrow = db < sb || (strcmp(dt, "bf16") == 0 && strcmp(st, "f16") == 0) ||
                      (strcmp(dt, "f16") == 0 && strcmp(st, "bf16") == 0);
        if (strcmp(dt, st) == 0)
            rnd = PG_PICK(g, ".rni", ".rzi", ".rmi", ".rpi");
        else if (narrow)
            rnd = PG_PICK(g, ".rn", ".rz", ".rm", ".rp");
        if (db <= 16 && strcmp(st, "f32") == 0 && pg_chance(g, 30))
            mod = pg_chance(g, 50) ? ".relu" : ".satfinite";
        else if (db > 16 && pg_chance(g, 10))
            mod = ".sat";
    } else if (pg_chance(g, 20)) {
        mod = ".sat";            /* integer saturation */
    }
    const char *ftz = strcmp(st, "f32") == 0 && pg_chance(g, 20) ? ".ftz" : "";
    const char *a = pg_src(g, cvt_pool(st), false);
    const char *d = pg_dst(g, cvt_pool(dt));
    pg_emitg(g, GUARD, "cvt%s%s%s.%s.%s %s, %s", rnd, ftz, mod, dt, st, d, a);
}

/* Predicate logic (it folds into the branch, compare or select that reads
 * it once: ptx_lower.c). */
void
pg_op_pred(struct pg *g)
{
    unsigned k = pg_rand(g, 5);
    if (k <= 1) {
        const char *op = PG_PICK(g, "and", "or", "xor");
        const char *a = pg_src(g, PG_P, false);
        const char *b = pred_src(g);
        const char *d = pg_dst(g, PG_P);
        pg_emitg(g, GUARD, "%s.pred %s, %s, %s", op, d, a, b);
    } else if (k <= 3) {
        const char *a = pg_src(g, PG_P, false);
        const char *d = pg_dst(g, PG_P);
        pg_emitg(g, GUARD, "%s.pred %s, %s", k == 2 ? "not" : "mov", d, a);
    } else {
        setp(g, int_type(g), PG_R, true, false);
    }
}

/* Moves: immediates, bit casts, packing, special registers. */
void
pg_op_move(struct pg *g)
{
    unsigned k = pg_rand(g, 12);
    switch (k) {
    case 0: un(g, "mov", "u32", PG_R); return;
    case 1: un(g, "mov", "b64", PG_RD); return;
    case 2: case 3: {
        bool to_f = pg_chance(g, 50);
        enum pg_pool from = k == 2 ? (to_f ? PG_R : PG_F) : (to_f ? PG_RD : PG_FD);
        enum pg_pool to = k == 2 ? (to_f ? PG_F : PG_R) : (to_f ? PG_FD : PG_RD);
        const char *a = pg_src(g, from, false);
        const char *d = pg_dst(g, to);
        pg_emitg(g, GUARD, "mov.b%u %s, %s", k == 2 ? 32u : 64u, d, a);
        return;
    }
    case 4: pack(g, 64, PG_R, PG_RD); return;
    case 5: un(g, "mov", "u16", PG_RS); return;
    case 6: {
        const char *sr = PG_PICK(g, "%laneid", "%warpid", "%nwarpid", "%lanemask_eq",
                                 "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge",
                                 "%ntid.x", "%nctaid.x", "%ctaid.x", "%tid.x", "%dynamic_smem_size",
                                 "%total_smem_size", "%smid", "%nsmid", "%tid.y", "%ntid.y");
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "mov.u32 %s, %s", d, sr);
        return;
    }
    case 7: un(g, "mov", "f32", PG_F); return;
    case 8: un(g, "mov", "f64", PG_FD); return;
    default: {
        const char *v = pg_imm(g, PG_R);
        const char *d = pg_dst(g, PG_R);
        pg_emitg(g, GUARD, "mov.u32 %s, %s", d, v);
        return;
    }
    }
}
