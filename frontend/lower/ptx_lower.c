/*
 * ptx_lower.c - a decoded PTX kernel as the SASS operations ptxas emits
 * for it on sm_90 (see ptx_lower.h; the expansions are ptx_lower_sm90.def).
 *
 * The rules, read off the SASS of every kernel the H100 measured
 * (shared/measured/h100/sass) against its PTX:
 *  - folded away (silent): cvta; an integer truncation (it takes the low
 *    register; an extension to 64 bits sets the high one); a mov of a register whose destination has no other
 *    definition (ptxas coalesces it); mov/not of predicates; a float abs
 *    or neg read only by float arithmetic (an operand modifier: FADD R,
 *    |R|, 2); and/or/xor of predicates read once by a branch, a compare or
 *    a select (ISETP ... .AND P1; @P0 BRA P1); an add of an immediate read
 *    only as a memory address (the offset of [R+imm]);
 *  - fused into their one reader, which becomes a single instruction: a
 *    32-bit multiply or shift-left into an add (IMAD, LEA), an add into an
 *    add (IADD3 takes three inputs, 64-bit ones too with two carries);
 *    mul.wide into every add.s64 reading
 *    it (IMAD.WIDE at each), shl.b64 into its add.s64 (LEA, LEA.HI.X); a
 *    reader absorbs at most one producer, and one that absorbed cannot be
 *    fused in turn;
 *  - 64-bit integer add/sub, logic, shifts, compares and selects are two
 *    operations, a 64-bit multiply three; loads of 2 or 4 consecutive words
 *    from one base, aligned to their total, in one basic block with no
 *    store between, are one vector load (the matrix_mul loop's LDS.128);
 *  - a branch to a block that only returns is a predicated EXIT; an
 *    unconditional branch right after a conditional one that jumps over
 *    it is folded into it (the condition is inverted);
 *  - ld.local/st.local of a local array whose every access has a constant
 *    address are registers (ptxas -v reports no stack frame for it);
 *  - device-function calls (ptxas's calling convention passes arguments,
 *    results and the return address in registers): a call is MOV (the
 *    return address) and CALL.REL.NOINC, a ret MOV and HFMA2.MMA (the
 *    return address pair) and RET.REL.NODEC; a parameter's ld.param and
 *    the st.param of a value nothing else reads fold away, a stored
 *    constant or a value that must outlive the call elsewhere is a MOV; a
 *    function that calls keeps its return address in another register
 *    (MOV); a function with a stack frame moves the stack pointer on entry
 *    and before returning, and a recursive one stores its callee-saved
 *    registers on entry and loads them before returning (STL/LDL,
 *    ptx_lower_emit_spills: ptxas -v's spills, else the registers live across
 *    its calls).
 * Between ptxas's register allocator and its scheduler some choices stay
 * unpredictable (a register copy kept here and there); the counts match
 * the listings within a few per cent (doc/correlation.md).
 */
#include "frontend/lower/ptx_lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/exec/ptx_half.h"
#include "frontend/lower/ptx_lower_emit.h"
#include "frontend/lower/ptx_lower_mma.h"
#include "frontend/exec/ptx_mma.h"
#include "frontend/lower/ptx_uniform.h"
#include "frontend/sass/sass_isa.h"
/* ---- analysis context ---------------------------------------------------- */

struct lctx {
    struct ptx_run *r;
    const struct xop *x;         /* the decoded kernel (r->x) */
    uint32_t n;                  /* instructions */
    uint32_t n_ids;              /* register ids: predicates, 32-bit, 64-bit */
    uint16_t *ndef;              /* per id: its static definitions (saturating) */
    int32_t *def;                /* per id: the definition when there is one */
    uint32_t *ustart, *use;      /* per id: the instructions reading it, use[ustart[id] ..] */
    int32_t *first_div;          /* per id: the first 32-bit div/rem by it, or -1 */
    uint16_t *key;               /* per instruction: enum lower_key */
    bool *absorbed;              /* per instruction: it absorbed a fused producer */
    int32_t *lead;               /* per instruction: the merged load it belongs to, or -1 */
    uint8_t *vbytes;             /* per leader: bytes per lane of the merged load */
    uint8_t *body;               /* per instruction: the unrolled loop it is in (tag), or 0 */
    bool *label;                 /* per instruction (and n): a branch of the PTX targets it */
    int32_t *fn;                 /* per instruction: the function it is in (r->funcs) */
};

/* The register id of slot s, or -1 for a constant or special register. */
static int32_t
sid(const struct lctx *L, const struct slot *s)
{
    const struct ptx_run *r = L->r;
    switch (s->cls) {
    case SC_PRED: return s->idx < r->nvarp ? (int32_t)s->idx : -1;
    case SC_32: return s->idx < r->nvar32 ? (int32_t)(r->id32 + s->idx) : -1;
    case SC_64: return s->idx < r->nvar64 ? (int32_t)(r->id64 + s->idx) : -1;
    default: return -1;
    }
}

/* Is slot s an immediate (or symbol address, or parameter value)? */
static bool
is_imm(const struct lctx *L, const struct slot *s)
{
    const struct ptx_run *r = L->r;
    return (s->cls == SC_32 && s->idx >= r->nvar32 + SR_COUNT) ||
           (s->cls == SC_64 && s->idx >= r->nvar64) || (s->cls == SC_PRED && s->idx >= r->nvarp);
}

/* The special register slot s names, or -1. */
static int
sreg_of(const struct lctx *L, const struct slot *s)
{
    const struct ptx_run *r = L->r;
    if (s->cls == SC_32 && s->idx >= r->nvar32 && s->idx < r->nvar32 + SR_COUNT)
        return (int)(s->idx - r->nvar32);
    return -1;
}

static uint64_t
imm_value(const struct lctx *L, const struct slot *s)
{
    const struct ptx_run *r = L->r;
    if (s->cls == SC_32)
        return r->const32[s->idx - r->nvar32 - SR_COUNT].u;
    if (s->cls == SC_64)
        return r->const64[s->idx - r->nvar64].u;
    return 0;
}

static int32_t
def1(const struct lctx *L, int32_t id)
{
    return id >= 0 && (uint32_t)id < L->n_ids && L->ndef[id] == 1 ? L->def[id] : -1;
}

static uint32_t
n_uses(const struct lctx *L, int32_t id)
{
    return id >= 0 && (uint32_t)id < L->n_ids ? L->ustart[id + 1] - L->ustart[id] : 0;
}

static const uint32_t *
uses(const struct lctx *L, int32_t id)
{
    return &L->use[L->ustart[id]];
}

/* The definition of the register in slot s when it has exactly one. */
static int32_t
def_of(const struct lctx *L, const struct slot *s)
{
    return def1(L, sid(L, s));
}

static void
build_defuse(struct lctx *L)
{
    struct ptx_run *r = L->r;
    L->n_ids = r->nvarp + r->nvar32 + r->nvar64;
    uint32_t n = L->n_ids ? L->n_ids : 1;
    L->ndef = xcalloc(n, sizeof *L->ndef);
    L->def = xmalloc(n * sizeof *L->def);
    L->ustart = xcalloc(n + 1, sizeof *L->ustart);
    L->first_div = xmalloc(n * sizeof *L->first_div);
    for (uint32_t i = 0; i < n; i++)
        L->def[i] = L->first_div[i] = -1;
    uint32_t total = 0;
    for (uint32_t i = 0; i < L->n; i++) {
        const struct xop *x = &L->x[i];
        for (unsigned k = 0; k < x->n_fdst; k++)
            if (x->fdst[k] < L->n_ids) {
                if (L->ndef[x->fdst[k]] < UINT16_MAX)
                    L->ndef[x->fdst[k]]++;
                L->def[x->fdst[k]] = (int32_t)i;
            }
        for (unsigned k = 0; k < x->n_fsrc; k++)
            if (x->fsrc[k] < L->n_ids) {
                L->ustart[x->fsrc[k] + 1]++;
                total++;
            }
        bool idiv = x->kind == XK_ALU && (x->op == PTXOP_DIV || x->op == PTXOP_REM) &&
                    !ptx_type_is_float(x->type) && ptx_type_bytes(x->type) == 4;
        int32_t dv = idiv ? sid(L, &x->b) : -1;
        if (dv >= 0 && L->first_div[dv] < 0)
            L->first_div[dv] = (int32_t)i;
    }
    for (uint32_t i = 0; i < n; i++)
        L->ustart[i + 1] += L->ustart[i];
    L->use = xmalloc((total ? total : 1) * sizeof *L->use);
    uint32_t *fill = xmalloc(n * sizeof *fill);
    memcpy(fill, L->ustart, n * sizeof *fill);
    for (uint32_t i = 0; i < L->n; i++) {
        const struct xop *x = &L->x[i];
        for (unsigned k = 0; k < x->n_fsrc; k++)
            if (x->fsrc[k] < L->n_ids)
                L->use[fill[x->fsrc[k]]++] = i;
    }
    free(fill);
}

/* ---- instruction predicates ---------------------------------------------- */

static bool is_fp(unsigned t) { return ptx_type_is_float(t); }

static bool
is_int(const struct xop *x, unsigned bytes)
{
    return !is_fp(x->type) && x->type != PT_PRED && ptx_type_bytes(x->type) == bytes;
}

static bool
is_alu(const struct xop *x, unsigned op)
{
    return x->kind == XK_ALU && x->op == op;
}

static bool
is_mem(const struct xop *x)
{
    return x->kind == XK_LD || x->kind == XK_ST || x->kind == XK_ATOM || x->kind == XK_RED;
}

/* Does instruction c read id only as an ordinary operand a or b (not as
 * an address, a stored value or its guard)? */
static bool
reads_as_ab(const struct lctx *L, const struct xop *c, int32_t id)
{
    bool in_ab = sid(L, &c->a) == id || sid(L, &c->b) == id;
    bool elsewhere = sid(L, &c->c) == id || sid(L, &c->e) == id || sid(L, &c->base) == id ||
                     (c->guard >= 0 && (int32_t)c->guard == id);
    return in_ab && !elsewhere && sid(L, &c->a) != sid(L, &c->b);
}

/* Is every reader of id a memory instruction using it only as its base? */
static bool
only_addresses(const struct lctx *L, int32_t id)
{
    uint32_t nu = n_uses(L, id);
    if (nu == 0)
        return false;
    for (uint32_t k = 0; k < nu; k++) {
        const struct xop *c = &L->x[uses(L, id)[k]];
        if (!is_mem(c) || sid(L, &c->base) != id || sid(L, &c->v[0]) == id ||
            sid(L, &c->v[1]) == id || sid(L, &c->b) == id || sid(L, &c->c) == id)
            return false;
    }
    return true;
}

/* Can instruction c (a float operation) take id as an operand modifier? */
static bool
takes_fp_modifier(const struct lctx *L, const struct xop *c, int32_t id, unsigned type)
{
    if (c->kind != XK_ALU || c->type != type || sid(L, &c->d) == id)
        return false;
    switch (c->op) {
    case PTXOP_ADD: case PTXOP_SUB: case PTXOP_MUL: case PTXOP_FMA: case PTXOP_MAD:
    case PTXOP_SETP: case PTXOP_MIN: case PTXOP_MAX: case PTXOP_LG2: case PTXOP_EX2:
    case PTXOP_RCP: case PTXOP_SQRT: case PTXOP_RSQRT: case PTXOP_SIN: case PTXOP_COS:
    case PTXOP_DIV:
        return true;
    default:
        return false;
    }
}

/* Does the register in slot s hold a constant address (a chain of moves
 * and adds of immediates)? */
static bool
static_address(const struct lctx *L, const struct slot *s, unsigned depth)
{
    if (s->cls == SC_NONE || is_imm(L, s))
        return true;
    int32_t d = def_of(L, s);
    if (d < 0 || depth > 8)
        return false;
    const struct xop *x = &L->x[d];
    if (x->kind != XK_ALU || x->guard >= 0)
        return false;
    switch (x->op) {
    case PTXOP_MOV: case PTXOP_CVTA:
        return static_address(L, &x->a, depth + 1);
    case PTXOP_ADD: case PTXOP_SUB:
        return static_address(L, &x->a, depth + 1) && static_address(L, &x->b, depth + 1);
    default:
        return false;
    }
}

/* Does every local-memory access have a constant address (ptxas keeps
 * such an array in registers)? */
static bool
local_in_registers(const struct lctx *L)
{
    bool any = false;
    for (uint32_t i = 0; i < L->n; i++) {
        const struct xop *x = &L->x[i];
        if (!is_mem(x) || x->space != PS_LOCAL)
            continue;
        if (x->kind != XK_LD && x->kind != XK_ST)
            return false;
        if (!static_address(L, &x->base, 0))
            return false;
        any = true;
    }
    return any;
}

/* Is instruction t (a branch target) a block that only returns? */
static bool
returns_only(const struct lctx *L, int32_t t)
{
    return t >= 0 && (uint32_t)t < L->n && L->x[t].kind == XK_EXIT && L->x[t].guard < 0;
}

/* Are both operands of x uniform registers?  A vector IMAD takes one
 * uniform operand at most: ptxas makes such a product once, on the uniform
 * datapath (UIMAD.WIDE in l2_bw), instead of fusing it into its readers. */
static bool
uniform_factors(const struct lctx *L, const struct xop *x)
{
    return x->opclass == SIM_OPC_UNIFORM && !is_imm(L, &x->a) && !is_imm(L, &x->b);
}

/* ---- folding: which instructions vanish into their readers ------------- */

/* Producer p fuses into its single reader of kind `want`; the reader
 * absorbs it. */
static bool
fuse_single(struct lctx *L, uint32_t p, bool (*want)(const struct lctx *, const struct xop *,
                                                      int32_t))
{
    const struct xop *x = &L->x[p];
    int32_t id = sid(L, &x->d);
    if (id < 0 || x->guard >= 0 || L->absorbed[p] || def1(L, id) != (int32_t)p ||
        n_uses(L, id) != 1 || x->n_fdst != 1)
        return false;
    uint32_t c = uses(L, id)[0];
    if (c <= p || L->absorbed[c] || !want(L, &L->x[c], id) ||
        (uniform_factors(L, x) && L->x[c].opclass != SIM_OPC_UNIFORM))
        return false;
    L->absorbed[c] = true;
    L->key[p] = LK_SILENT;
    return true;
}

/* A 32-bit add or subtract reading id: IMAD and IADD3 negate an operand,
 * so a multiply or add fuses into either side of a subtract ... */
static bool
want_add32(const struct lctx *L, const struct xop *c, int32_t id)
{
    return (is_alu(c, PTXOP_ADD) || is_alu(c, PTXOP_SUB)) && is_int(c, 4) &&
           !(c->flags & PF_CC) && reads_as_ab(L, c, id);
}

/* ... LEA adds its shifted operand: a shift fuses into an add, or into the
 * subtrahend's other side */
static bool
want_lea32(const struct lctx *L, const struct xop *c, int32_t id)
{
    return want_add32(L, c, id) && !(is_alu(c, PTXOP_SUB) && sid(L, &c->b) == id);
}

static bool
want_add64(const struct lctx *L, const struct xop *c, int32_t id)
{
    return is_alu(c, PTXOP_ADD) && is_int(c, 8) && !(c->flags & PF_CC) && reads_as_ab(L, c, id);
}

/* mul.wide (and a 64-bit mul.lo) fuses into every add.s64 that reads it:
 * an IMAD.WIDE each (copy_bw recomputes 3 x stride in its loop). */
static bool
fuse_wide(struct lctx *L, uint32_t p)
{
    const struct xop *x = &L->x[p];
    int32_t id = sid(L, &x->d);
    uint32_t nu = n_uses(L, id);
    if (id < 0 || x->guard >= 0 || def1(L, id) != (int32_t)p || nu == 0)
        return false;
    for (uint32_t k = 0; k < nu; k++) {
        uint32_t c = uses(L, id)[k];
        if (c <= p || L->absorbed[c] || !want_add64(L, &L->x[c], id) ||
            (uniform_factors(L, x) && L->x[c].opclass != SIM_OPC_UNIFORM))
            return false;
    }
    for (uint32_t k = 0; k < nu; k++)
        L->absorbed[uses(L, id)[k]] = true;
    L->key[p] = LK_SILENT;
    return true;
}

/* Predicate logic read once by a branch's guard, a compare or a select. */
static bool
pred_folds(const struct lctx *L, uint32_t p)
{
    const struct xop *x = &L->x[p];
    int32_t id = sid(L, &x->d);
    if (id < 0 || x->guard >= 0 || n_uses(L, id) != 1)
        return false;
    const struct xop *c = &L->x[uses(L, id)[0]];
    return (c->kind == XK_BRA && c->guard == id) || is_alu(c, PTXOP_SETP) ||
           is_alu(c, PTXOP_SELP) || (c->kind == XK_ALU && c->type == PT_PRED);
}

/* Is x (instruction i) an ld.param of a 16-bit half of an aligned word
 * whose other half an earlier ld.param loads, both read only by one
 * mov.b32 {lo, hi} packing them?  ptxas loads the word once (h2axpy's
 * __half2 parameter: LDC R0, c[0x0][0x220]), so the later load folds. */
static bool
param_half_merged(const struct lctx *L, uint32_t i)
{
    const struct xop *x = &L->x[i];
    int32_t id = sid(L, &x->d);
    if (x->kind != XK_PARAM || x->vec != 1 || ptx_type_bytes(x->type) != 2 || id < 0 ||
        n_uses(L, id) != 1 || def1(L, id) != (int32_t)i)
        return false;
    const struct xop *c = &L->x[uses(L, id)[0]];
    if (!is_alu(c, PTXOP_MOV) || c->vec != 2 || !(c->flags & PF_WIDE) ||
        ptx_type_bytes(c->type) != 4)
        return false;
    unsigned k = sid(L, &c->v[0]) == id ? 0 : 1;
    int32_t o = def_of(L, &c->v[1 - k]);
    if (o < 0 || (uint32_t)o >= i)
        return false;
    const struct xop *y = &L->x[o];
    if (y->kind != XK_PARAM || y->vec != 1 || ptx_type_bytes(y->type) != 2 ||
        n_uses(L, sid(L, &y->d)) != 1 || x->guard >= 0 || y->guard >= 0)
        return false;
    int64_t lo = k == 0 ? x->off : y->off, hi = k == 0 ? y->off : x->off;
    return lo % 4 == 0 && hi == lo + 2;
}

static void
fold(struct lctx *L, bool local_regs)
{
    for (uint32_t i = 0; i < L->n; i++) {
        const struct xop *x = &L->x[i];
        int32_t id = sid(L, &x->d);
        if ((is_mem(x) && x->space == PS_LOCAL && local_regs) || param_half_merged(L, i)) {
            L->key[i] = LK_SILENT;
            continue;
        }
        if (x->kind != XK_ALU)
            continue;
        switch (x->op) {
        case PTXOP_CVTA:
            L->key[i] = LK_SILENT;
            break;
        case PTXOP_CVT:
            /* truncations and same-size conversions take the low register;
             * a 64-bit extension sets the high word (IMAD.MOV.U32 R, RZ,
             * RZ, RZ or SHF.R.S32.HI: ptx_lower_emit_key_cvt) */
            if (!is_fp(x->type) && !is_fp(x->type2) && ptx_type_bytes(x->type) >= 4 &&
                ptx_type_bytes(x->type2) >= 4 &&
                ptx_type_bytes(x->type) <= ptx_type_bytes(x->type2))
                L->key[i] = LK_SILENT;
            break;
        case PTXOP_MOV:
            if (x->type == PT_PRED || x->v[0].cls != SC_NONE ||
                (id >= 0 && def1(L, id) == (int32_t)i && sid(L, &x->a) >= 0 && x->guard < 0))
                L->key[i] = LK_SILENT;
            else if (local_regs && id >= 0 && only_addresses(L, id))
                L->key[i] = LK_SILENT;
            break;
        case PTXOP_NOT:
            if (x->type == PT_PRED)
                L->key[i] = LK_SILENT;
            break;
        case PTXOP_AND: case PTXOP_OR: case PTXOP_XOR:
            if (x->type == PT_PRED && pred_folds(L, i))
                L->key[i] = LK_SILENT;
            break;
        case PTXOP_ABS: case PTXOP_NEG: {
            if (!is_fp(x->type) || id < 0 || x->guard >= 0 || n_uses(L, id) == 0 ||
                def1(L, id) != (int32_t)i)
                break;
            bool ok = true;
            for (uint32_t k = 0; k < n_uses(L, id) && ok; k++)
                ok = takes_fp_modifier(L, &L->x[uses(L, id)[k]], id, x->type);
            if (ok)
                L->key[i] = LK_SILENT;
            break;
        }
        case PTXOP_MUL:
            if ((x->flags & PF_WIDE) && is_int(x, 2))
                break;           /* a 32-bit product: one IMAD of its own */
            if (x->flags & PF_WIDE)
                fuse_wide(L, i);
            else if (is_int(x, 4) && !(x->flags & PF_HI))
                fuse_single(L, i, want_add32);
            else if (is_int(x, 8) && !(x->flags & PF_HI))
                fuse_wide(L, i);   /* recomputed at each add, as its IMAD.WIDE.U32 addend */
            break;
        case PTXOP_SHL:
            if (is_imm(L, &x->b) && is_int(x, 4) && imm_value(L, &x->b) < 32)
                fuse_single(L, i, want_lea32);
            else if (is_imm(L, &x->b) && is_int(x, 8) && imm_value(L, &x->b) < 32 &&
                     fuse_single(L, i, want_add64)) {
                /* LEA.HI.X.SX32 sign-extends a 32-bit index on the way */
                int32_t s = def_of(L, &x->a);
                if (s >= 0 && is_alu(&L->x[s], PTXOP_CVT) && n_uses(L, sid(L, &x->a)) == 1 &&
                    L->x[s].guard < 0)
                    L->key[s] = LK_SILENT;
            }
            break;
        case PTXOP_ADD: case PTXOP_SUB:
            if (is_fp(x->type) || x->guard >= 0 || id < 0 || def1(L, id) != (int32_t)i)
                break;
            if ((is_imm(L, &x->a) || is_imm(L, &x->b)) && only_addresses(L, id))
                L->key[i] = LK_SILENT;           /* the [R+imm] offset */
            else if (is_int(x, 4) && !(x->flags & PF_CC))
                fuse_single(L, i, want_add32);   /* IADD3 takes three inputs */
            else if (is_int(x, 8) && is_alu(x, PTXOP_ADD) && !is_imm(L, &x->a) &&
                     !is_imm(L, &x->b))
                fuse_single(L, i, want_add64);   /* and two carries: IADD3, IADD3.X */
            break;
        default:
            break;
        }
    }
}

/* ---- choosing each instruction's expansion ------------------------------ */

/* Is x (a 64-bit multiply) by a value whose high word is 0? */
static bool
mul64_narrow(const struct lctx *L, const struct xop *x)
{
    return (is_imm(L, &x->a) && imm_value(L, &x->a) >> 32 == 0) ||
           (is_imm(L, &x->b) && imm_value(L, &x->b) >> 32 == 0);
}

/* Does slot s stay in a uniform register (a parameter, or a product of
 * two uniform registers, which ptxas makes with UIMAD.WIDE: copy_f1_u1 and
 * l2_bw add it with IADD3.X R, R, UR)?  Other uniform values often end up
 * in vector registers (copy_f4_u4's stride). */
static bool
is_uniform(const struct lctx *L, const struct slot *s)
{
    int32_t d = def_of(L, s);
    if (d < 0)
        return false;
    const struct xop *x = &L->x[d];
    if (is_alu(x, PTXOP_CVTA) || (is_alu(x, PTXOP_MOV) && L->key[d] == LK_SILENT))
        return is_uniform(L, &x->a);  /* what a folded conversion or copy passes on */
    return x->kind == XK_PARAM ||
           (is_alu(x, PTXOP_MUL) && (x->flags & PF_WIDE) && uniform_factors(L, x));
}

/* Did the producer of slot s fuse into its reader? */
static bool
fused_from(const struct lctx *L, const struct slot *s, unsigned op)
{
    int32_t d = def_of(L, s);
    return d >= 0 && L->key[d] == LK_SILENT && is_alu(&L->x[d], op);
}

/* Did 64-bit add x absorb another add (three inputs)? */
static bool
absorbed_add(const struct lctx *L, const struct xop *x)
{
    return fused_from(L, &x->a, PTXOP_ADD) || fused_from(L, &x->b, PTXOP_ADD);
}

static unsigned
key_int_add(const struct lctx *L, const struct xop *x)
{
    if (is_int(x, 8)) {
        if (fused_from(L, &x->a, PTXOP_MUL) || fused_from(L, &x->b, PTXOP_MUL)) {
            int32_t m = fused_from(L, &x->a, PTXOP_MUL) ? def_of(L, &x->a) : def_of(L, &x->b);
            if (L->x[m].flags & PF_WIDE) {
                int32_t d = sid(L, &x->d);
                return d >= 0 && L->ndef[d] > 1 ? LK_IMADWIDEC : LK_IMADWIDE;
            }
            bool imm = is_imm(L, &x->a) || is_imm(L, &x->b);     /* the addend */
            if (mul64_narrow(L, &L->x[m]))
                return imm ? LK_IMUL64I : LK_IMUL64;
            return imm ? LK_IMUL64FI : LK_IMUL64F;
        }
        if (fused_from(L, &x->a, PTXOP_SHL) || fused_from(L, &x->b, PTXOP_SHL))
            return LK_LEA64;
        if (x->opclass != SIM_OPC_UNIFORM && (is_uniform(L, &x->a) || is_uniform(L, &x->b) ||
                                              is_imm(L, &x->a) || is_imm(L, &x->b) ||
                                              absorbed_add(L, x)))
            return LK_IADD64U;          /* IMAD.X cannot add these; three inputs need IADD3.X */
        return LK_IADD64;
    }
    if (fused_from(L, &x->a, PTXOP_MUL) || fused_from(L, &x->b, PTXOP_MUL))
        return LK_IMAD;
    if (fused_from(L, &x->a, PTXOP_SHL) || fused_from(L, &x->b, PTXOP_SHL))
        return LK_LEA;
    if (is_imm(L, &x->a) || is_imm(L, &x->b))
        return LK_IADDI;
    return LK_IADD;
}

static unsigned
key_mem(const struct xop *x)
{
    bool ld = x->kind == XK_LD;
    switch (x->kind) {
    case XK_LD: case XK_ST:
        switch (x->space) {
        case PS_GLOBAL: return ld ? LK_LDG : LK_STG;
        case PS_SHARED: return ld ? LK_LDS : LK_STS;
        case PS_LOCAL: return ld ? LK_LDL : LK_STL;
        case PS_CONST: return ld ? LK_LDCM : LK_ST;
        default: return ld ? LK_LD : LK_ST;
        }
    case XK_ATOM: return x->space == PS_GLOBAL ? LK_ATOMG : x->space == PS_SHARED ? LK_ATOMS : LK_ATOM;
    default: return x->space == PS_GLOBAL ? LK_REDG : x->space == PS_SHARED ? LK_ATOMS : LK_RED;
    }
}

static unsigned
key_fp(const struct xop *x, unsigned k32, unsigned k64, unsigned k16)
{
    return x->type == PT_F64 ? k64 : x->type == PT_F32 ? k32 : k16;
}

/* A half-precision add, sub, mul or fma: packed ones without .sat have the
 * HFMA2.MMA form too (ptx_lower_sm90.def). */
static unsigned
key_half(const struct xop *x)
{
    bool alt = (x->type == PT_F16X2 || x->type == PT_BF16X2) && !(x->flags & PF_SAT);
    switch (x->op) {
    case PTXOP_MUL: return alt ? LK_HMUL2B : LK_HMUL;
    case PTXOP_FMA: case PTXOP_MAD: return alt ? LK_HFMA2B : LK_HFMA;
    default: return alt ? LK_HADD2B : LK_HADD;
    }
}

/* Does 32-bit division or remainder x divide by a register whose
 * reciprocal an earlier one in its basic block computed, the divisor not
 * written since, or one defined once, before the function's first
 * division by it?  ptxas computes a divisor's reciprocal estimate once
 * per block (I2F.U32.RP, MUFU.RCP, F2I and the refinement): two divisions
 * of different values by one n compile to one I2F/MUFU/F2I (a ptxas 13.0
 * probe: 51 operations against 34 for one; 32 "% n" of an unrolled loop
 * to one, tests/ptx/realworld.cu bigunroll). */
static bool
recip_known(const struct lctx *L, const struct xop *x)
{
    int32_t dv = sid(L, &x->b);
    uint32_t i = (uint32_t)(x - L->x);
    if (dv < 0)
        return false;
    /* across blocks: a divisor defined once, before the function's first
     * division by it -- ptxas keeps that reciprocal (hoisted out of the
     * loops: stream.cu's load loop, 16 divisions by a parameter, computes
     * it 4 times, traces/sm90/stream.sass; check_ptx_sched's probe once) */
    int32_t d = def1(L, dv), f = L->first_div[dv];
    if (d >= 0 && f >= 0 && d < f && (uint32_t)f < i && L->fn[f] == L->fn[i] &&
        ptx_type_is_signed(L->x[f].type) == ptx_type_is_signed(x->type) && L->key[f] != LK_SILENT)
        return true;
    for (uint32_t j = i; j-- > 0;) {
        const struct xop *y = &L->x[j];
        if (y->kind == XK_BRA || y->kind == XK_EXIT || y->kind == XK_RET || y->kind == XK_CALL ||
            y->kind == XK_BAR || L->label[j + 1])   /* a label: the block starts at j + 1 */
            return false;
        bool writes = false;
        for (unsigned k = 0; k < y->n_fdst; k++)
            writes = writes || (int32_t)y->fdst[k] == dv;
        if ((is_alu(y, PTXOP_DIV) || is_alu(y, PTXOP_REM)) && is_int(y, 4) &&
            ptx_type_is_signed(y->type) == ptx_type_is_signed(x->type) && sid(L, &y->b) == dv &&
            L->key[j] != LK_SILENT)
            return true;
        if (writes)
            return false;
    }
    return false;
}

static unsigned
key_alu(const struct lctx *L, const struct xop *x)
{
    unsigned t = x->type;
    bool fp = is_fp(t), i64 = is_int(x, 8), approx = (x->flags & PF_APPROX) != 0;
    switch (x->op) {
    case PTXOP_MOV: {
        int sr = sreg_of(L, &x->a);
        switch (sr) {
        case -1: break;
        case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z: return LK_S2UR;
        case SR_NTID_X: case SR_NTID_Y: case SR_NTID_Z: case SR_NCTAID_X: case SR_NCTAID_Y:
        case SR_NCTAID_Z: case SR_DYN_SMEM: case SR_TOTAL_SMEM: case SR_NWARPID:
            return LK_SREGC;
        default: return LK_S2R;
        }
        if (x->flags & PF_SHSYM)
            return LK_SHADDR;
        if (ptx_type_bytes(t) == 8 && !(is_imm(L, &x->a) && imm_value(L, &x->a) >> 32 == 0))
            return LK_MOV64;
        return is_imm(L, &x->a) ? LK_MOVI : LK_MOV;
    }
    case PTXOP_ADD: case PTXOP_SUB:
        if (fp)
            return key_fp(x, LK_FADD, LK_DADD, key_half(x));
        if (t == PT_U16X2 || t == PT_S16X2)
            return LK_IADD16X2;
        return key_int_add(L, x);
    case PTXOP_ADDC: case PTXOP_SUBC:
        return LK_IADD;
    case PTXOP_MUL:
        if (fp)
            return key_fp(x, LK_FMUL, LK_DMUL, key_half(x));
        if (x->flags & PF_WIDE)
            return is_int(x, 2) ? LK_IMAD : LK_IMADWIDE;
        if (x->flags & PF_HI)
            return LK_IMADHI;
        if (i64)
            return mul64_narrow(L, x) ? LK_IMUL64 : LK_IMUL64F;
        return LK_IMAD;
    case PTXOP_MAD: case PTXOP_FMA: case PTXOP_MADC:
        if (fp)
            return key_fp(x, LK_FFMA, LK_DFMA, key_half(x));
        if (x->flags & PF_WIDE)
            return is_int(x, 2) ? LK_IMAD : LK_IMADWIDE;
        if (x->flags & PF_HI)
            return LK_IMADHI;
        return i64 ? LK_IMUL64 : LK_IMAD;
    case PTXOP_MUL24: case PTXOP_MAD24:
        return LK_IMAD;
    case PTXOP_DP4A:
        return LK_IDP4A;
    case PTXOP_DP2A:
        return LK_IDP2A;
    case PTXOP_SAD:
        return LK_ISAD;
    case PTXOP_VABSDIFF4:
        return LK_VABSDIFF4;
    case PTXOP_DIV: case PTXOP_REM:
        if (t == PT_F32)
            return (approx || (x->flags & PF_FULL)) ? LK_DIVAPPROX : LK_DIVRN;
        if (t == PT_F64)
            return LK_DRCP;
        if (i64)
            return LK_IDIV64;
        if (recip_known(L, x))
            return ptx_type_is_signed(t) ? LK_IDIVSR : LK_IDIVR;
        return ptx_type_is_signed(t) ? LK_IDIVS : LK_IDIV;
    case PTXOP_RCP:
        if (approx)
            return LK_MUFU;
        return t == PT_F64 ? LK_DRCP : LK_RCPRN;
    case PTXOP_SQRT:
        if (approx)
            return LK_MUFU;
        return t == PT_F64 ? LK_DSQRT : LK_SQRTRN;
    case PTXOP_RSQRT: case PTXOP_LG2: case PTXOP_TANH:
        return LK_MUFU;
    case PTXOP_EX2:
        return (x->flags & PF_FTZ) || t != PT_F32 ? LK_EX2FTZ : LK_EX2;
    case PTXOP_SIN:
        return LK_SIN;
    case PTXOP_COS:
        return LK_COS;
    case PTXOP_ABS: case PTXOP_NEG:
        if (ptx_type_is_half(t))        /* HADD2 -RZ, -x; .bf16: HFMA2 -RZ, RZ, -x */
            return t == PT_BF16 || t == PT_BF16X2 ? LK_HFMA : LK_HADD;
        if (fp)
            return t == PT_F64 ? LK_DADD : LK_FABS;
        if (i64)
            return LK_IADD64;
        return x->op == PTXOP_ABS ? LK_IABS : LK_INEG;
    case PTXOP_MIN: case PTXOP_MAX:
        if (fp)
            return key_fp(x, LK_FMNMX, LK_DMNMX, LK_HMNMX);
        return i64 ? LK_IMNMX64 : LK_IMNMX;
    case PTXOP_AND: case PTXOP_OR: case PTXOP_XOR: case PTXOP_NOT: case PTXOP_CNOT:
    case PTXOP_LOP3:
        if (t == PT_PRED)
            return LK_PLOP;
        if (i64 && !((is_imm(L, &x->a) && imm_value(L, &x->a) >> 32 == 0) ||
                     (is_imm(L, &x->b) && imm_value(L, &x->b) >> 32 == 0)))
            return LK_LOP64;
        return LK_LOP;
    case PTXOP_SHL: case PTXOP_SHR:
        if (i64) {
            if (is_imm(L, &x->b) && imm_value(L, &x->b) >= 32)
                return LK_SHF64H;
            return x->op == PTXOP_SHL ? LK_SHF64 : LK_SHR64;
        }
        return x->op == PTXOP_SHL ? LK_SHL : LK_SHR;
    case PTXOP_SHF:
        return LK_SHF;
    case PTXOP_SETP: case PTXOP_SET: case PTXOP_TESTP:
        if (x->op == PTXOP_SETP && x->c.cls == SC_NONE && is_imm(L, &x->a) && is_imm(L, &x->b))
            return LK_SILENT;   /* constants (wgmma's `setp.ne.b32 p, 1, 0`): ptxas folds it */
        if (x->op == PTXOP_SET && ptx_type_is_half(x->type2))
            return LK_HSET;
        if (fp)
            return key_fp(x, LK_FSETP, LK_DSETP, LK_HSETP);
        return i64 || x->op == PTXOP_SET ? LK_ISETP64 : LK_ISETP;
    case PTXOP_SELP: case PTXOP_SLCT:
        if (ptx_type_bytes(t) == 8)
            return LK_SEL64;
        return fp ? LK_FSEL : LK_SEL;
    case PTXOP_COPYSIGN:
        return LK_LOP;
    case PTXOP_CVT:
        return ptx_lower_emit_key_cvt(x);
    case PTXOP_CVTA:
        return LK_SILENT;
    case PTXOP_POPC:
        return LK_POPC;
    case PTXOP_CLZ:
        return LK_CLZ;
    case PTXOP_BFIND:
        return LK_FLO;
    case PTXOP_BREV:
        return LK_BREV;
    case PTXOP_PRMT:
        return LK_PRMT;
    case PTXOP_BFE:
        return LK_BFE;
    case PTXOP_BFI:
        return LK_BFI;
    default:
        return LK_IADD;
    }
}

/* A call's argument or return value, or a function's parameter: ptxas
 * passes them in registers.  A parameter's load and the store of a value
 * nothing else reads fold away (the value is computed in the register the
 * callee reads, or read where the callee left it); a stored constant is a
 * move, and so is a value that must live on in another register: an
 * argument read again after its call, a loaded value read after a later
 * call (outer's first inner() result). */
static unsigned
key_param(const struct lctx *L, uint32_t i)
{
    const struct xop *x = &L->x[i];
    if (x->kind == XK_ST) {
        if (is_imm(L, &x->v[0]))
            return LK_MOVI;
        int32_t id = sid(L, &x->v[0]);
        return id >= 0 && n_uses(L, id) > 1 ? LK_MOV : LK_SILENT;
    }
    int32_t id = sid(L, &x->v[0]);
    int32_t end = L->r->funcs[L->fn[i]].end, call = -1;
    for (int32_t j = (int32_t)i + 1; j < end && call < 0; j++)
        if (L->x[j].kind == XK_CALL)
            call = j;
    if (id < 0 || call < 0)
        return LK_SILENT;
    for (uint32_t k = 0; k < n_uses(L, id); k++)
        if ((int32_t)uses(L, id)[k] > call)
            return LK_MOV;
    return LK_SILENT;
}

static unsigned
key_of(const struct lctx *L, uint32_t i)
{
    const struct xop *x = &L->x[i];
    if ((x->kind == XK_LD || x->kind == XK_ST) && x->space == PS_PARAM)
        return key_param(L, i);
    switch (x->kind) {
    case XK_CALL:
        return L->r->sites[x->off].func == XCALL_INDIRECT ? LK_CALLABS : LK_CALL;
    case XK_RET: return L->r->funcs[L->fn[i]].save_words > 0 ? LK_RETSAVED : LK_RET;
    case XK_FRAMEADDR: return LK_IADDI;     /* IADD3 R, R1, offset */
    case XK_ALU: return key_alu(L, x);
    case XK_PARAM: return LK_PARAM;
    case XK_MOVE_CLOCK: return LK_CLOCK;
    case XK_ATOM:
        if (n_uses(L, sid(L, &x->d)) == 0)   /* the result is not read: a reduction */
            return x->space == PS_GLOBAL ? LK_REDG : x->space == PS_SHARED ? LK_ATOMS : LK_RED;
        return key_mem(x);
    case XK_LD: case XK_ST: case XK_RED: return key_mem(x);
    case XK_BRA:
        if (returns_only(L, x->target))
            return LK_EXIT;
        if (x->guard < 0 && i > 0 && L->x[i - 1].kind == XK_BRA && L->x[i - 1].guard >= 0 &&
            L->x[i - 1].target == (int32_t)i + 1)
            return LK_SILENT;          /* @p bra L; bra M; L: is @!p bra M */
        return LK_BRA;
    case XK_EXIT: return LK_EXIT;
    case XK_BAR: return x->atom != PA_NONE ? LK_BARRED : (x->flags & PF_ARRIVE) ? LK_BARARV : LK_BAR;
    case XK_CPASYNC: return LK_LDGSTS;
    case XK_MBAR: return x->mode == PM_MB_TEST || x->mode == PM_MB_TRY ? LK_MBWAIT
                  : x->mode == PM_MB_INIT || x->mode == PM_MB_INVAL ? LK_MBINIT
                  : x->op == PTXOP_CP ? LK_LDGSTSBAR : LK_MBARRIVE;   /* cp.async.mbarrier */
    case XK_BULK:
        if (x->flags & PF_TENSOR)  /* UTMALDG / UTMASTG / UTMAPF */
            return x->iflags == 0 ? LK_TMAPF : (x->iflags & SIM_IF_LOAD) ? LK_TMALDG : LK_TMASTG;
        return (x->iflags & SIM_IF_LOAD) ? LK_BULKG2S : LK_BULKS2G;
    case XK_WMMA: case XK_WLOAD: case XK_WSTORE: case XK_MMA: case XK_LDMATRIX: case XK_STMATRIX:
    case XK_WGMMA:
        return LK_TENSOR;          /* ptx_lower_mma.c */
    case XK_WGFENCE: return LK_WGARRIVE;
    case XK_TEX:                 /* TLD: integer coordinates (tex1Dfetch) */
        return x->op == PTXOP_TEX ? (x->type2 == PT_S32 ? LK_TLD : LK_TEX) : x->op == PTXOP_TLD4
               ? LK_TLD4 : x->op == PTXOP_TXQ ? LK_TXQ : x->op == PTXOP_SULD ? LK_SULD
               : x->op == PTXOP_SUST ? LK_SUST : LK_SUQ;
    case XK_CLARRIVE: case XK_CLWAIT: return x->kind == XK_CLWAIT ? LK_CLWAIT : LK_CLARRIVE;
    case XK_WGCOMMIT: return LK_SILENT;   /* the last HGMMA's gsb0 */
    case XK_WGWAIT: return LK_WGDEPBAR;
    case XK_NOP:
        return x->op == PTXOP_NANOSLEEP ? LK_NANOSLEEP
               : x->op == PTXOP_CP ? (x->mode == PM_COMMIT ? LK_LDGDEPBAR : LK_DEPBAR)
               : x->op == PTXOP_SETMAXNREG ? LK_SETMAXREG : x->op == PTXOP_PREFETCH ? LK_IADD
               : x->op == PTXOP_GRIDDEPCONTROL ? (x->mode == PM_GDC_WAIT ? LK_ACQBULK : LK_PREEXIT)
               : (x->flags & PF_WARPSYNC) ? LK_WARPSYNC : LK_MEMBAR;
    case XK_SHFL: return LK_SHFL;
    case XK_VOTE:
        return x->op == PTXOP_REDUX ? LK_REDUX : x->op == PTXOP_MATCH ? LK_MATCH : LK_VOTE;
    case XK_ACTIVEMASK: case XK_ELECT: return x->kind == XK_ELECT ? LK_ELECT : LK_VOTE;
    default: return LK_IADD;
    }
}

/* ---- if-conversion ----------------------------------------------------------- */

/* ptxas turns a short forward branch over straight-line code into
 * predication: the skipped instructions issue for the whole warp with
 * the branch's condition as their guard, and the branch disappears (the
 * reduction's `@!P0 LDS ...` in traces_src_reduce.sass; hotspot and ftest
 * have runs of 1 to 6 such instructions, knn's sqrt slow path 9).  Regions
 * of at most IFCONV_MAX operations, with no branch, barrier, fence, clock
 * read or guarded instruction inside and no label other than the end,
 * are converted: the branch stays in the PTX (it executes, silent) but no
 * longer jumps; each skipped instruction takes the inverted condition as
 * its guard, so the lanes that jumped still do not execute it. */
#define IFCONV_MAX 8

static void
if_convert(struct lctx *L, struct ptx_run *r)
{
    const bool *label = L->label;    /* as the PTX has them: a conversion removes branches */
    for (uint32_t i = 0; i < L->n; i++) {
        struct xop *b = &r->x[i];
        if (b->kind != XK_BRA || b->guard < 0 || L->key[i] != LK_BRA || b->target <= (int32_t)i + 1)
            continue;
        uint32_t t = (uint32_t)b->target, ops = 0;
        bool ok = true;
        for (uint32_t j = i + 1; j < t && ok; j++) {
            const struct xop *x = &L->x[j];
            ok = !label[j] && x->guard < 0 && x->kind != XK_BRA && x->kind != XK_EXIT &&
                 x->kind != XK_BAR && x->kind != XK_NOP && x->kind != XK_MOVE_CLOCK &&
                 x->kind != XK_CALL && x->kind != XK_RET &&
                 L->lead[j] < 0 && !ptx_lower_emit_control(L->key[j]);
            /* the region must not write the branch's predicate: its guard
             * would change under the instructions after the write (the
             * lanes that branched are fixed when the branch executes) */
            for (unsigned k = 0; k < x->n_fdst && ok; k++)
                ok = x->fdst[k] != (uint16_t)b->guard;
            ops += L->key[j] == LK_SILENT ? 0 : ptx_lower_emit_count(L->key[j]);
        }
        if (!ok || ops == 0 || ops > IFCONV_MAX)
            continue;
        for (uint32_t j = i + 1; j < t; j++) {
            struct xop *x = &r->x[j];
            x->guard = b->guard;
            x->guard_neg = (uint8_t)!b->guard_neg;
            if (x->n_src < SIM_MAX_SRC)
                x->src[x->n_src++] = (uint16_t)b->guard;   /* predicate ids are their slots */
            if (x->n_fsrc < SIM_MAX_SRC)
                x->fsrc[x->n_fsrc++] = (uint16_t)b->guard;
        }
        b->kind = XK_NOP;            /* executes as nothing: the lanes stay together */
        b->target = b->reconv = -1;
        L->key[i] = LK_SILENT;
    }
}

/* ---- unrolled loops ----------------------------------------------------------- */

/* ptxas unrolls a small counted loop PTX_UNROLL times (with a remainder
 * loop): the SASS of spin's LCG loop steps its counter by 16 where the PTX
 * steps it by 4.  A loop qualifies when it is one basic block of at most
 * UNROLL_BODY operations ending in a branch back to its first
 * instruction, that instruction carries no .pragma "nounroll", and the
 * branch's predicate is a compare of a counter the body steps by an
 * immediate with an immediate or a value the body does not write.  Its
 * counter step, compare and branch are marked, and so is every pointer the
 * body steps by an immediate and reads only as a load's or store's
 * address (ptxas folds three of every four steps into the addresses'
 * immediate offsets: row_walk's two pointers step by 0x40 once per 16
 * loads in mech.sass); the executor issues them once per PTX_UNROLL
 * iterations (ptx_exec.c).
 *
 * UNROLL_BODY from the loops of every measured listing (shared/measured/
 * h100/sass, rodinia/sass, traces/mech/mech.sass and bar.sass): ptxas
 * unrolled bodies of 8 to 36 SASS operations, barriers and __syncwarp
 * included (spin 8, kmeans 21, lud 22-23, row_walk, bar_loop and
 * smem_only 23, gdep_bar_loop 27, streamcluster 28, col_walk 30, pb_gemm
 * 33, gload_bar_loop 36: each the loop nvcc already unrolled 4 times, now
 * guarded by a remaining count > 12), none of 41 or more (b+tree 41,
 * hotspot3D 56, srad's reduce 73, matrix_mul 84), no grid-stride copy. */
#define UNROLL_BODY 40

static bool
writes_in(const struct lctx *L, int32_t id, uint32_t lo, uint32_t hi, uint32_t *count,
          uint32_t *where)
{
    *count = 0;
    for (uint32_t j = lo; j <= hi; j++)
        for (unsigned k = 0; k < L->x[j].n_fdst; k++)
            if ((int32_t)L->x[j].fdst[k] == id) {
                (*count)++;
                *where = j;
            }
    return *count != 0;
}

/* Is x[j] of the loop body [h, e) a pointer's step: an integer add or
 * subtract of an immediate to the register it writes, the body's only
 * write of it, and every other read of it in the body a load's or
 * store's address (not a value stored, not arithmetic)? */
static bool
address_step(const struct lctx *L, uint32_t h, uint32_t e, uint32_t j)
{
    const struct xop *st = &L->x[j];
    if ((!is_alu(st, PTXOP_ADD) && !is_alu(st, PTXOP_SUB)) || is_fp(st->type) ||
        st->guard >= 0 || (st->flags & PF_CC) || st->n_fdst != 1)
        return false;
    int32_t p = (int32_t)st->fdst[0];
    bool self = (sid(L, &st->a) == p && is_imm(L, &st->b)) ||
                (is_alu(st, PTXOP_ADD) && sid(L, &st->b) == p && is_imm(L, &st->a));
    uint32_t nw, at;
    if (!self || !writes_in(L, p, h, e - 1, &nw, &at) || nw != 1)
        return false;
    for (uint32_t k = h; k < e; k++) {
        const struct xop *y = &L->x[k];
        if (k == j)
            continue;
        unsigned reads = 0;
        for (unsigned q = 0; q < y->n_fsrc; q++)
            reads += (int32_t)y->fsrc[q] == p;
        if (reads == 0)
            continue;
        if ((y->kind != XK_LD && y->kind != XK_ST) || y->space == PS_PARAM ||
            sid(L, &y->base) != p || reads != 1)
            return false;
    }
    return true;
}

static void
mark_unrolled(struct lctx *L, struct ptx_run *r)
{
    for (uint32_t e = 0; e < L->n && r->n_unroll < 255; e++) {
        struct xop *b = &r->x[e];
        if (b->kind != XK_BRA || b->guard < 0 || L->key[e] != LK_BRA || b->target < 0 ||
            (uint32_t)b->target >= e || (r->x[b->target].flags & PF_NOUNROLL))
            continue;
        uint32_t h = (uint32_t)b->target, ops = 0, n, s = 0, c_at = 0;
        bool ok = true;
        for (uint32_t j = h; j < e && ok; j++) {
            const struct xop *x = &L->x[j];
            ok = x->kind != XK_BRA && x->kind != XK_EXIT && x->kind != XK_MOVE_CLOCK &&
                 (x->kind != XK_NOP || (x->flags & PF_WARPSYNC)) && x->kind != XK_CALL &&
                 x->kind != XK_RET;
            ops += L->key[j] == LK_SILENT ? 0 : ptx_lower_emit_count(L->key[j]);
        }
        for (uint32_t j = 0; j < L->n && ok; j++)   /* one block: no label inside */
            ok = !(L->x[j].kind == XK_BRA && L->x[j].target > (int32_t)h &&
                   L->x[j].target <= (int32_t)e);
        if (!ok || ops > UNROLL_BODY)
            continue;
        /* the compare feeding the branch */
        if (!writes_in(L, b->guard, h, e - 1, &n, &s) || n != 1)
            continue;
        const struct xop *cmp = &L->x[s];
        if (!is_alu(cmp, PTXOP_SETP) || is_fp(cmp->type) || cmp->guard >= 0)
            continue;
        int32_t ca = sid(L, &cmp->a), cb = sid(L, &cmp->b), ctr = -1;
        for (int side = 0; side < 2 && ctr < 0; side++) {
            int32_t c = side ? cb : ca, o = side ? ca : cb;
            const struct slot *os = side ? &cmp->a : &cmp->b;
            uint32_t nw;
            if (c < 0 || (!is_imm(L, os) && o >= 0 && writes_in(L, o, h, e, &nw, &c_at)))
                continue;
            if (!writes_in(L, c, h, e, &nw, &c_at) || nw != 1)
                continue;
            const struct xop *st = &L->x[c_at];
            if ((is_alu(st, PTXOP_ADD) || is_alu(st, PTXOP_SUB)) && !is_fp(st->type) &&
                st->guard < 0 && (is_imm(L, &st->a) || is_imm(L, &st->b)) &&
                (sid(L, &st->a) == c || sid(L, &st->b) == c))
                ctr = c;
        }
        if (ctr < 0)
            continue;
        uint8_t tag = (uint8_t)++r->n_unroll;
        b->unroll = tag;
        r->x[s].unroll = tag;
        r->x[c_at].unroll = tag;
        for (uint32_t j = h; j < e; j++) {
            L->body[j] = tag;
            if (j != c_at && j != s && address_step(L, h, e, j))
                r->x[j].unroll = tag;
        }
    }
}

/* ---- merged loads ---------------------------------------------------------- */

/* Known alignment (a power of two, at most 16) of the value of slot s. */
static unsigned
align_of(const struct lctx *L, const struct slot *s, unsigned depth)
{
    if (s->cls == SC_NONE)
        return 16;
    if (is_imm(L, s)) {
        uint64_t v = imm_value(L, s);
        unsigned a = 16;
        while (a > 1 && v % a != 0)
            a /= 2;
        return a;
    }
    int32_t d = def_of(L, s);
    if (d < 0 || depth > 8)
        return 1;
    const struct xop *x = &L->x[d];
    if (x->kind == XK_PARAM)
        return 1;                    /* a pointer argument: ptxas knows no alignment */
    if (x->kind != XK_ALU || x->guard >= 0)
        return 1;
    unsigned a = align_of(L, &x->a, depth + 1), b;
    switch (x->op) {
    case PTXOP_MOV: case PTXOP_CVTA: case PTXOP_CVT:
        return a;
    case PTXOP_ADD: case PTXOP_SUB:
        b = align_of(L, &x->b, depth + 1);
        return a < b ? a : b;
    case PTXOP_MUL: case PTXOP_SHL:
        if (!is_imm(L, &x->b))
            return a;
        b = x->op == PTXOP_SHL ? (imm_value(L, &x->b) >= 4 ? 16 : 1u << imm_value(L, &x->b))
                               : align_of(L, &x->b, depth + 1);
        return a * b > 16 ? 16 : a * b;
    case PTXOP_MAD:
        b = align_of(L, &x->b, depth + 1);
        a = a * b > 16 ? 16 : a * b;
        b = align_of(L, &x->c, depth + 1);
        return a < b ? a : b;
    case PTXOP_AND:                  /* a mask clears the low bits: (t << 4) & 240 */
        if (!is_imm(L, &x->b))
            return a;
        for (b = 1; b < 16 && !(imm_value(L, &x->b) & b); b *= 2)
            ;
        return a > b ? a : b;
    default:
        return 1;
    }
}

/* Merge runs of scalar 4- or 8-byte loads from one base register at
 * consecutive offsets, within a basic block with no store or barrier
 * between, into vector loads of 8 or 16 bytes where the address is
 * aligned to the vector (ptxas does; the shared loads of matrix_mul's
 * rows become LDS.128). */
static void
merge_loads(struct lctx *L)
{
    for (uint32_t i = 0; i < L->n; i++) {
        const struct xop *x = &L->x[i];
        if (x->kind != XK_LD || x->vec != 1 || L->lead[i] >= 0 || L->key[i] == LK_SILENT ||
            (x->space != PS_SHARED && x->space != PS_GLOBAL) || x->guard >= 0)
            continue;
        unsigned eb = ptx_type_bytes(x->type);
        if (eb != 4 && eb != 8)
            continue;
        int32_t base = sid(L, &x->base);
        unsigned want = 16 / eb, got = 1;
        uint32_t members[4] = { i };
        for (uint32_t j = i + 1; j < L->n && got < want; j++) {
            const struct xop *y = &L->x[j];
            if (y->kind == XK_BRA || y->kind == XK_EXIT || y->kind == XK_BAR ||
                y->kind == XK_NOP || y->kind == XK_ST || y->kind == XK_ATOM ||
                y->kind == XK_RED || y->kind == XK_CALL || y->kind == XK_RET)
                break;
            bool writes_base = false;
            for (unsigned k = 0; k < y->n_fdst; k++)
                writes_base = writes_base || (int32_t)y->fdst[k] == base;
            if (y->kind == XK_LD && y->vec == 1 && y->space == x->space && y->guard < 0 &&
                y->type == x->type && sid(L, &y->base) == base &&
                y->base.cls == x->base.cls && L->lead[j] < 0 &&
                y->off == x->off + (int64_t)(got * eb))
                members[got++] = j;
            if (writes_base)
                break;
        }
        while (got > 1 && (got & (got - 1)) != 0)
            got--;
        if (got < 2)
            continue;
        unsigned bytes = got * eb;
        if (align_of(L, &x->base, 0) < bytes || x->off % (int64_t)bytes != 0)
            continue;
        L->vbytes[i] = (uint8_t)bytes;
        for (unsigned k = 1; k < got; k++) {
            L->lead[members[k]] = (int32_t)i;
            L->key[members[k]] = LK_SILENT;
        }
        L->lead[i] = (int32_t)i;
    }
}

/* The timing sources of every instruction: a register whose one
 * definition was folded away stands for that definition's own sources
 * (whoever reads a cvta's result waits for the pointer it converted). */
static void
forward_sources(struct lctx *L, struct xop *x)
{
    for (uint32_t i = 0; i < L->n; i++) {
        struct xop *c = &x[i];
        uint16_t src[SIM_MAX_SRC];
        uint8_t n = 0;
        for (unsigned k = 0; k < c->n_src; k++) {
            int32_t d = def1(L, c->src[k]);
            if (d >= 0 && (uint32_t)d < i && L->key[d] == LK_SILENT && L->lead[d] < 0)
                for (unsigned j = 0; j < x[d].n_src; j++)
                    ptx_lower_emit_add_id(src, &n, SIM_MAX_SRC, x[d].src[j]);
            else
                ptx_lower_emit_add_id(src, &n, SIM_MAX_SRC, c->src[k]);
        }
        memcpy(c->src, src, sizeof src);
        c->n_src = n;
    }
}

/* ---- register tuples and zero moves ------------------------------------------- */

/* Does an operation of kind k end its basic block? */
static bool
terminator_kind(unsigned k)
{
    return k == XK_BRA || k == XK_EXIT || k == XK_CALL || k == XK_RET;
}

/* Is register id read as part of a register tuple (an MMA's fragment, a
 * vector store's data), which ptxas allocates as consecutive registers? */
static bool
tuple_use(const struct lctx *L, int32_t id)
{
    for (uint32_t k = 0; k < n_uses(L, id); k++) {
        const struct xop *u = &L->x[uses(L, id)[k]];
        if (u->kind == XK_MMA || u->kind == XK_WMMA || u->kind == XK_WSTORE ||
            u->kind == XK_STMATRIX || (u->kind == XK_ST && u->vec > 1))
            return true;
    }
    return false;
}

/* Is instruction i a move of the constant 0: of an immediate 0, or a copy
 * of a register whose last write before it in its basic block (from
 * `start`) is one (ptxas propagates constants)? */
static bool
zero_move(const struct lctx *L, uint32_t i, uint32_t start)
{
    const struct xop *x = &L->x[i];
    unsigned key = L->key[i];
    if (x->guard >= 0 || x->vec > 1 || (key != LK_MOVI && key != LK_MOV) ||
        ptx_type_bytes(x->type) != 4 || x->opclass == SIM_OPC_UNIFORM || x->n_dst != 1 ||
        !tuple_use(L, (int32_t)x->dst[0]))
        return false;            /* a uniform zero is UMOV URn, URZ; a lone register's
                                    IMAD.MOV.U32 Rn, RZ, RZ, RZ (the divergent listing) */
    if (key == LK_MOVI)
        return imm_value(L, &x->a) == 0;
    int32_t id = sid(L, &x->a);
    for (uint32_t j = i; id >= 0 && j-- > start;) {
        const struct xop *y = &L->x[j];
        bool writes = false;
        for (unsigned k = 0; k < y->n_dst && !writes; k++)
            writes = y->dst[k] == (uint16_t)id;
        if (writes)
            return is_alu(y, PTXOP_MOV) && y->guard < 0 && is_imm(L, &y->a) &&
                   ptx_type_bytes(y->type) == 4 && imm_value(L, &y->a) == 0;
    }
    return false;
}

/* ptxas clears the registers of a tuple two at a time: CS2R Rn, SRZ
 * writes a 64-bit zero (the wmma_gemm and mma_tf32_chain listings clear
 * their accumulators with CS2R R4, SRZ; CS2R R6, SRZ ...).  Moves of 0 in one basic block go in
 * pairs: the first is a CS2R, its partner issues nothing; one left over
 * stays a move (call_poly's HFMA2.MMA R3, -RZ, RZ, 0, 0). */
static void
pair_zero_moves(struct lctx *L)
{
    bool *leader = xmalloc((L->n + 1) * sizeof *leader);
    memcpy(leader, L->label, (L->n + 1) * sizeof *leader);
    for (uint32_t i = 0; i < L->n; i++) {
        const struct xop *x = &L->x[i];
        if (x->kind == XK_BRA || x->kind == XK_EXIT || x->kind == XK_BAR)
            leader[i + 1] = true;
    }
    int32_t open = -1;
    uint32_t start = 0;
    for (uint32_t i = 0; i < L->n; i++) {
        if (leader[i]) {
            open = -1;
            start = i;
        }
        if (!zero_move(L, i, start))
            continue;
        if (open < 0) {
            open = (int32_t)i;       /* a CS2R when a partner follows in the block */
        } else {
            L->key[open] = LK_ZERO2;
            L->key[i] = LK_SILENT;   /* the other half of the CS2R at `open` */
            open = -1;
        }
    }
    free(leader);
}

int
ptx_lower(struct ptx_run *r, struct sim_error *err)
{
    struct lctx L;
    memset(&L, 0, sizeof L);
    L.r = r;
    L.n = r->n_x;
    uint32_t top = r->nvarp + r->nvar32 + r->nvar64;
    if (top > PTX_TMP_BASE)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s: kernel %s has %u registers; the "
                             "lowering to SASS operations needs fewer than %u", r->m->path,
                             r->k->name, top, PTX_TMP_BASE);
    bool *div_branch = xcalloc(r->n_x ? r->n_x : 1, sizeof *div_branch);
    bool *inv_srcs = xcalloc(r->n_x ? r->n_x : 1, sizeof *inv_srcs);
    ptx_uniform_mark(r, div_branch, inv_srcs);
    for (uint32_t i = 0; i < r->n_x; i++) {
        struct xop *x = &r->x[i];
        x->n_fdst = x->n_dst;
        x->n_fsrc = x->n_src;
        memcpy(x->fdst, x->dst, sizeof x->fdst);
        memcpy(x->fsrc, x->src, sizeof x->fsrc);
    }
    L.x = r->x;
    build_defuse(&L);
    uint32_t n = L.n ? L.n : 1;
    L.key = xcalloc(n, sizeof *L.key);
    L.absorbed = xcalloc(n, sizeof *L.absorbed);
    L.lead = xmalloc(n * sizeof *L.lead);
    L.vbytes = xcalloc(n, sizeof *L.vbytes);
    L.body = xcalloc(n, sizeof *L.body);
    L.label = xcalloc(L.n + 1, sizeof *L.label);
    for (uint32_t i = 0; i < L.n; i++)
        if (r->x[i].kind == XK_BRA && r->x[i].target >= 0 && (uint32_t)r->x[i].target <= L.n)
            L.label[r->x[i].target] = true;
    L.fn = xcalloc(n, sizeof *L.fn);
    bool *calls = xcalloc(r->n_funcs, sizeof *calls);   /* the function calls another */
    for (uint32_t f = 0; f < r->n_funcs; f++)
        for (int32_t i = r->funcs[f].entry; i < r->funcs[f].end; i++) {
            L.fn[i] = (int32_t)f;
            calls[f] = calls[f] || r->x[i].kind == XK_CALL;
        }
    for (uint32_t i = 0; i < L.n; i++) {
        L.lead[i] = -1;
        L.key[i] = LK_COUNT;                 /* not decided */
    }
    /* local arrays: in registers when ptxas reports no stack frame, else
     * when every access has a constant address (its rule for them) */
    bool local_regs = r->ptxas_stack == 0 ? true :
                      r->ptxas_stack > 0 ? false : local_in_registers(&L);
    fold(&L, local_regs);
    for (uint32_t i = 0; i < L.n; i++)
        if (L.key[i] == LK_COUNT)
            L.key[i] = (uint16_t)key_of(&L, i);
    pair_zero_moves(&L);
    merge_loads(&L);
    if_convert(&L, r);
    mark_unrolled(&L, r);
    /* Divergence regions: a branch on a predicate that may differ between
     * the lanes of a warp gets a BSSY before it and a BSYNC where its paths
     * reconverge, unless they reconverge only to return (the SASS of
     * copy_bw and l2_bw: BSSY before the first loop's guard, BSYNC at its
     * exit; none around the last loop) -- one pair per reconvergence point,
     * the BSSY before its first branch. */
    bool *ssy_before = xcalloc(n + 1, sizeof *ssy_before);
    bool *sync_at = xcalloc(n + 1, sizeof *sync_at);
    for (uint32_t i = 0; i < L.n; i++) {
        const struct xop *x = &r->x[i];
        int32_t R = x->reconv;
        if (!div_branch[i] || L.key[i] != LK_BRA || R < 0 || (uint32_t)R >= L.n ||
            returns_only(&L, R) || sync_at[R])
            continue;
        sync_at[R] = true;
        ssy_before[i] = true;
    }
    /* a call that may diverge (no .uni): BSSY before, BSYNC after, as
     * around ptxas's indirect calls */
    for (uint32_t i = 0; i + 1 < L.n; i++)
        if (r->x[i].kind == XK_CALL && !(r->x[i].flags & PF_UNI) && L.fn[i + 1] == L.fn[i] &&
            !sync_at[i + 1]) {
            ssy_before[i] = true;
            sync_at[i + 1] = true;
        }
    /* a merged load's leader writes its members' registers */
    for (uint32_t i = 0; i < L.n; i++) {
        struct xop *x = &r->x[i];
        if (L.lead[i] >= 0 && L.lead[i] != (int32_t)i) {
            struct xop *ld = &r->x[L.lead[i]];
            for (unsigned k = 0; k < x->n_dst; k++)
                ptx_lower_emit_add_id(ld->dst, &ld->n_dst, SIM_MAX_DST, x->dst[k]);
        }
        if (L.lead[i] == (int32_t)i)
            x->vbytes = L.vbytes[i];
    }
    forward_sources(&L, r->x);

    /* the new instruction list */
    bool global = false;
    uint32_t total = 2;
    for (uint32_t i = 0; i < L.n; i++) {
        total += (L.key[i] == LK_SILENT ? 1 : L.key[i] == LK_TENSOR ? PTX_PARTS_MAX :
                  ptx_lower_emit_count(L.key[i])) + sync_at[i] + ssy_before[i];
        total += r->funcs[L.fn[i]].save_words + 2;   /* a prologue or epilogue, at most */
        global = global || (is_mem(&r->x[i]) && (r->x[i].space == PS_GLOBAL ||
                                                   r->x[i].space == PS_GENERIC));
    }
    struct lower_emit B = { .r = r, .out = xcalloc(total, sizeof(struct xop)), .err = err };
    int32_t *map = xmalloc((L.n + 1) * sizeof *map);
    int rc = ptx_lower_emit_standalone(&B, LK_PROLOGUE);
    B.out[0].ctl = XC_ENTRY;
    if (rc == SIM_OK && global)
        rc = ptx_lower_emit_standalone(&B, LK_GDESC);
    for (uint32_t i = 0; i < L.n && rc == SIM_OK; i++) {
        const struct xop *o = &r->x[i];
        const struct xfunc *f = &r->funcs[L.fn[i]];
        if (i == 0 || o->kind == XK_BRA || r->x[i - 1].kind == XK_BRA ||
            r->x[i - 1].kind == XK_EXIT || r->x[i - 1].kind == XK_CALL ||
            r->x[i - 1].kind == XK_RET || (int32_t)i == f->entry)
            ptx_lower_emit_block(&B);     /* a new basic block (roughly) */
        map[i] = (int32_t)B.n;
        if ((int32_t)i == f->entry && L.fn[i] > 0)
            rc = ptx_lower_emit_prologue(&B, f, calls[L.fn[i]]);
        if (sync_at[i] && rc == SIM_OK)
            rc = ptx_lower_emit_standalone(&B, LK_SYNC);
        if (ssy_before[i] && rc == SIM_OK)
            rc = ptx_lower_emit_standalone(&B, LK_SSY);
        if (rc != SIM_OK)
            break;
        if (L.key[i] == LK_SILENT) {
            struct xop *out = &B.out[B.n++];
            *out = *o;
            out->silent = true;
            out->n_dst = out->n_src = 0;
            continue;
        }
        if (o->kind == XK_CALL || o->kind == XK_RET) {
            /* the call waits for its arguments, the return for its result:
             * the registers their st.param stored (ptxas waits at the CALL
             * for the load that made its argument) */
            struct xop c = *o;
            for (int32_t j = (int32_t)i - 1; j >= f->entry && !terminator_kind(r->x[j].kind); j--)
                if (r->x[j].kind == XK_ST && r->x[j].space == PS_PARAM)
                    for (unsigned k = 0; k < r->x[j].n_src; k++)
                        ptx_lower_emit_add_id(c.src, &c.n_src, SIM_MAX_SRC, r->x[j].src[k]);
            rc = o->kind == XK_RET ? ptx_lower_emit_return(&B, f, &c, L.key[i])
                                   : ptx_lower_emit_key(&B, &c, L.key[i], L.body[i]);
        } else if (L.key[i] == LK_TENSOR) {
            rc = ptx_lower_mma(&B, o);
        } else {
            B.invariant = inv_srcs[i];
            rc = ptx_lower_emit_key(&B, o, L.key[i], L.body[i]);
            B.invariant = false;
        }
    }
    map[L.n] = (int32_t)B.n;
    /* a branch to the kernel's first instruction still skips the entry loads */
    if (rc == SIM_OK) {
        for (uint32_t i = 0; i < B.n; i++) {
            struct xop *x = &B.out[i];
            if (x->target >= 0 && (uint32_t)x->target <= L.n)
                x->target = map[x->target];
            if (x->reconv >= 0 && (uint32_t)x->reconv <= L.n)
                x->reconv = map[x->reconv];
        }
        for (uint32_t f = 0; f < r->n_funcs; f++) {
            if (f > 0)
                r->funcs[f].entry = map[r->funcs[f].entry];
            r->funcs[f].end = map[r->funcs[f].end];
        }
        free(r->x);
        r->x = B.out;
        r->n_x = B.n;
    } else {
        free(B.out);
    }
    free(map);
    free(div_branch);
    free(inv_srcs);
    free(ssy_before);
    free(sync_at);
    free(L.ndef);
    free(L.def);
    free(L.ustart);
    free(L.use);
    free(L.first_div);
    free(L.key);
    free(L.absorbed);
    free(L.lead);
    free(L.vbytes);
    free(L.body);
    free(L.label);
    free(L.fn);
    free(calls);
    return rc;
}
