/*
 * ptx_lower_emit.c - the SASS operations of one lowered PTX instruction
 * (see ptx_lower_emit.h; the expansions are ptx_lower_sm90.def).
 */
#include "frontend/lower/ptx_lower_emit.h"
#include "frontend/lower/ptxas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sass/sass_isa.h"

enum lower_opnd { LO_NN, LO_D, LO_A, LO_T0, LO_T1, LO_T2, LO_P0 };

struct lower_row {
    uint8_t key;                 /* enum lower_key */
    const char *name;            /* the key's name (tests, messages) */
    const char *sass;            /* the SASS operation; "A|B": balanced (ALU | FMA pipe) */
    uint8_t dst, s[3];           /* enum lower_opnd */
};

static const struct lower_row rows[] = {
#define LOWER(key, sass, d, a, b, c) { LK_##key, #key, sass, LO_##d, { LO_##a, LO_##b, LO_##c } },
#define NEXT LOWER
#include "frontend/lower/ptx_lower_sm90.def"
#undef LOWER
#undef NEXT
};


#define N_ROWS (sizeof rows / sizeof rows[0])

/* The rows of key (those of one key are consecutive: LOWER, then its
 * NEXT rows) and their number. */
static const struct lower_row *
rows_of(unsigned key, unsigned *count)
{
    unsigned i = 0;
    while (i < N_ROWS && rows[i].key != key)
        i++;
    unsigned n = 0;
    while (i + n < N_ROWS && rows[i + n].key == key)
        n++;
    if (count != NULL)
        *count = n;
    return &rows[i];
}

unsigned
ptx_lower_emit_count(unsigned key)
{
    unsigned n;
    rows_of(key, &n);
    return n;
}

bool
ptx_lower_emit_control(unsigned key)
{
    unsigned n;
    const struct lower_row *r = rows_of(key, &n);
    for (unsigned q = 0; q < n; q++)
        if (strcmp(r[q].sass, "BRA") == 0 || strcmp(r[q].sass, "BSSY") == 0 ||
            strcmp(r[q].sass, "BSYNC") == 0)
            return true;
    return false;
}

unsigned
ptx_lower_emit_rows(void)
{
    return (unsigned)N_ROWS;
}

bool
ptx_lower_emit_row(unsigned i, const char **key, const char **sass)
{
    if (i >= N_ROWS)
        return false;
    *key = rows[i].name;
    *sass = rows[i].sass;
    return true;
}

void
ptx_lower_emit_block(struct lower_emit *B)
{
    B->load[0] = B->load[1] = B->load[2] = 0;
    B->half[0] = B->half[1] = 0;
}


struct temps {
    uint16_t t[3], p0;
};

static uint16_t
tmp_id(const struct temps *t, unsigned o)
{
    return o == LO_T0 ? t->t[0] : o == LO_T1 ? t->t[1] : o == LO_T2 ? t->t[2] : t->p0;
}

void
ptx_lower_emit_add_id(uint16_t *list, uint8_t *n, unsigned max, uint16_t id)
{
    for (unsigned j = 0; j < *n; j++)
        if (list[j] == id)
            return;
    if (*n < max)
        list[(*n)++] = id;
}

/* Append operand o's ids to list[*n] (at most max). */
static void
add_ids(uint16_t *list, uint8_t *n, unsigned max, const struct xop *orig, const struct temps *t,
        unsigned o)
{
    switch (o) {
    case LO_NN:
        return;
    case LO_D:
        for (unsigned i = 0; i < orig->n_dst; i++)
            ptx_lower_emit_add_id(list, n, max, orig->dst[i]);
        return;
    case LO_A:
        for (unsigned i = 0; i < orig->n_src; i++)
            ptx_lower_emit_add_id(list, n, max, orig->src[i]);
        return;
    default:
        ptx_lower_emit_add_id(list, n, max, tmp_id(t, o));
        return;
    }
}

/* The U-form of a vector integer mnemonic (UIADD3 for IADD3), when a
 * uniform result is computed on the uniform datapath; NULL if none. */
static const char *
uniform_form(const char *mn, char *buf, size_t n)
{
    if (strncmp(mn, "VIADD", 5) == 0 || strncmp(mn, "IMAD.IADD", 9) == 0)
        mn = "IADD3";
    else if (strncmp(mn, "IMAD.MOV", 8) == 0)
        mn = "MOV";
    snprintf(buf, n, "U%s", mn);
    const char *dot = strchr(buf, '.');
    return sass_isa_find(SASS_HOPPER, buf, dot ? (size_t)(dot - buf) : strlen(buf)) >= 0 ? buf
                                                                                         : NULL;
}

/* The weights of ptxas's choice between the ALU and the FMA form of an
 * integer add, move or shift ("A|B" rows): an operation goes to the pipe
 * with the smaller weighted count so far in its block, to the FMA form when
 * the two are equal (a block's first add is a VIADD, its first constant an
 * IMAD.MOV.U32: the iadd ILP 1-8 and frcp ILP 1 loops, the spin probe's
 * loop in probe_probe.sass).  Calibrated on the listings of
 * traces_micro_inst_lat.sass: in the iadd ILP 16-128 loops ptxas issues 103
 * of 240 adds as IADD3 and 137 as VIADD (43 %: weights 4 : 3); in the frcp
 * ILP 16-128 loops, whose FFMA/FADD share the FMA pipe with the range
 * check's add, it issues that add as IADD3 for 91 % of the reciprocals,
 * which an FP32 operation weighing as much as an IMAD reproduces (half an
 * IMAD: 16 % IADD3). */
#define BAL_ALU 4
#define BAL_IMAD 3
#define BAL_FP32 3


/* Choose row's mnemonic for an operation of class `orig_class` (UNIFORM
 * when its result is uniform) and set the operation's opcode, class and
 * pipe.  keep_class: the operation keeps the PTX instruction's class. */
static int
name_op(struct lower_emit *B, const struct lower_row *row, struct xop *o, bool keep_class)
{
    char alt[64], ubuf[64];
    const char *mn = row->sass;
    if (strncmp(mn, "HFMA2.MMA|H", 11) == 0) {
        /* half-precision arithmetic: the MMA form and the FMA-pipe form
         * by turns in a block, the MMA form first (the probes of
         * ptx_lower_sm90.def) */
        if (B->half[0] <= B->half[1])
            snprintf(alt, sizeof alt, "HFMA2.MMA");
        else
            snprintf(alt, sizeof alt, "%s", mn + 10);
        mn = alt;
    } else if (strchr(mn, '|') != NULL) {
        /* the alternative whose pipe the basic block has used least */
        unsigned best = UINT32_MAX;
        for (const char *p = mn; p != NULL;) {
            const char *bar = strchr(p, '|');
            size_t n = bar != NULL ? (size_t)(bar - p) : strlen(p);
            unsigned np = sass_npipe_of(SASS_HOPPER, p, n);
            unsigned w = B->load[np == SASS_NPIPE_ALU ? 0 : np == SASS_NPIPE_FMA ? 1 : 2];
            if (w < best || (w == best && np == SASS_NPIPE_FMA)) {
                best = w;
                snprintf(alt, sizeof alt, "%.*s", (int)n, p);
            }
            p = bar != NULL ? bar + 1 : NULL;
        }
        mn = alt;
    }
    if (o->opclass == SIM_OPC_UNIFORM && (!keep_class || o->kind == XK_PARAM)) {
        const char *u = uniform_form(mn, ubuf, sizeof ubuf);
        if (u != NULL)
            mn = u;
    }
    char full[80];
    snprintf(full, sizeof full, "%s", mn);
    if (o->vbytes)
        snprintf(full, sizeof full, "%s.%u", mn, o->vbytes * 8u);
    struct sass_decoded d;
    if (sass_decode(SASS_HOPPER, full, strlen(full), &d) != 0)
        return sim_error_set(B->err, SIM_ERR_INTERNAL, "ptx_lower_sm90.def: '%s' is not a "
                             "Hopper SASS opcode", full);
    if (!keep_class && o->opclass != SIM_OPC_UNIFORM)
        o->opclass = strncmp(full, "MUFU.EX2", 8) == 0 ? SIM_OPC_SFU_EX2 :
                     strcmp(full, "CS2R") == 0 && o->op == PTXOP_MOV ? SIM_OPC_INT : d.opclass;
    o->npipe = (uint8_t)sass_npipe_of(SASS_HOPPER, full, strlen(full));
    if (o->npipe == SASS_NPIPE_ALU)
        B->load[0] += BAL_ALU;
    else if (o->npipe == SASS_NPIPE_FMA)
        B->load[1] += d.opclass == SIM_OPC_INT_MUL || d.opclass == SIM_OPC_INT_WIDE ? BAL_IMAD
                                                                                  : BAL_FP32;
    else if (strncmp(full, "HFMA2.MMA", 9) == 0)
        B->load[2] += BAL_IMAD;
    if (d.opclass == SIM_OPC_FP16 && strstr(row->sass, "MOV") == NULL)
        B->half[strncmp(full, "HFMA2.MMA", 9) == 0 ? 0 : 1]++;
    int m = ptx_module_mnem(B->r->m, full);
    if (m < 0)
        return sim_error_set(B->err, SIM_ERR_UNSUPPORTED, "%s: more than 65535 distinct "
                             "instruction forms", B->r->m->path);
    o->opcode = (uint16_t)m;
    return SIM_OK;
}

/* Does the operation keep the PTX instruction's class (memory, control,
 * warp operations and the special reads the SASS table classes
 * differently)? */
static bool
keeps_class(const struct xop *orig, unsigned key)
{
    return orig->kind != XK_ALU || key == LK_S2R || key == LK_S2UR || key == LK_SREGC;
}

/* A timing-only operation of row for instruction orig (or a standalone
 * one: orig NULL). */
static void
timing_op(const struct lower_row *row, const struct xop *orig, const struct temps *t,
          struct xop *out)
{
    memset(out, 0, sizeof *out);
    out->kind = XK_TIMING;
    out->target = out->reconv = -1;
    out->guard = -1;
    out->opclass = SIM_OPC_INT;
    if (orig == NULL)
        return;
    out->op = orig->op;
    out->type = orig->type;
    out->guard = orig->guard;
    out->guard_neg = orig->guard_neg;
    out->line = orig->line;
    out->unroll = orig->unroll;
    if (orig->opclass == SIM_OPC_UNIFORM)
        out->opclass = SIM_OPC_UNIFORM;
    add_ids(out->dst, &out->n_dst, SIM_MAX_DST, orig, t, row->dst);
    if (orig->guard >= 0)
        ptx_lower_emit_add_id(out->src, &out->n_src, SIM_MAX_SRC, (uint16_t)orig->guard);
    for (unsigned k = 0; k < 3; k++)
        add_ids(out->src, &out->n_src, SIM_MAX_SRC, orig, t, row->s[k]);
}

int
ptx_lower_emit_key(struct lower_emit *B, const struct xop *o, unsigned key, uint8_t body)
{
    unsigned nr;
    const struct lower_row *first = rows_of(key, &nr);
    struct temps t;
    for (unsigned k = 0; k < 3; k++)
        t.t[k] = (uint16_t)(PTX_TMP_BASE + B->tmp++ % PTX_TMP_COUNT);
    t.p0 = (uint16_t)(PTX_TMP_BASE + B->tmp++ % PTX_TMP_COUNT);
    for (unsigned q = 0; q < nr; q++) {
        const struct lower_row *row = &first[q];
        struct xop *out = &B->out[B->n++];
        bool keep = false;
        if (row->dst == LO_D) {
            *out = *o;           /* the one that performs the PTX instruction */
            out->n_src = 0;
            add_ids(out->src, &out->n_src, SIM_MAX_SRC, o, &t, LO_A);
            for (unsigned k = 0; k < 3; k++)
                if (row->s[k] != LO_A)
                    add_ids(out->src, &out->n_src, SIM_MAX_SRC, o, &t, row->s[k]);
            keep = keeps_class(o, key);
            if (key == LK_EXIT && o->kind == XK_BRA) {
                out->kind = XK_EXIT;   /* @p bra to a ret: @P EXIT */
                out->iflags = SIM_IF_EXIT;
                out->opclass = SIM_OPC_BRANCH;
            }
        } else {
            timing_op(row, o, &t, out);
            out->head = false;
            if (body != 0 && strncmp(row->sass, "HFMA2.MMA|", 10) == 0)
                out->unroll = body;   /* a constant: made once per unrolled body */
            if (strcmp(row->sass, "BRA") == 0) {
                out->ctl = XC_BRANCH;     /* over the slow path: taken */
                out->iflags = SIM_IF_BRANCH;
            } else if (strcmp(row->sass, "BSYNC") == 0) {
                out->ctl = XC_SYNC;       /* the warp resumes at the convergence point */
                out->iflags = SIM_IF_BRANCH;
            }
            /* of a warp-uniform value, no BSSY / BSYNC (the reciprocals of
             * hotspot's parameters in traces_src_hotspot.sass: @P2 BRA over
             * the CALL to the slow path, no barrier): they keep their
             * place in the structure, issuing nothing */
            if (B->invariant && (strcmp(row->sass, "BSSY") == 0 || strcmp(row->sass, "BSYNC") == 0))
                out->silent = true;
        }
        SIM_FORWARD_IF_ERROR(name_op(B, row, out, keep));
    }
    return SIM_OK;
}

int
ptx_lower_emit_op(struct lower_emit *B, const struct xop *o, const char *sass, bool keep_class)
{
    struct lower_row row = { LK_TENSOR, "TENSOR", sass, LO_D, { LO_A, LO_NN, LO_NN } };
    struct xop *out = &B->out[B->n++];
    *out = *o;
    return name_op(B, &row, out, keep_class);
}

int
ptx_lower_emit_standalone(struct lower_emit *B, unsigned key)
{
    struct xop *out = &B->out[B->n++];
    timing_op(rows_of(key, NULL), NULL, NULL, out);
    out->opclass = SIM_OPC_UNIFORM;
    if (key == LK_SYNC || key == LK_SSY) {
        out->opclass = SIM_OPC_BRANCH;
        if (key == LK_SYNC) {
            out->ctl = XC_SYNC;          /* the warp resumes at the convergence point */
            out->iflags = SIM_IF_BRANCH;
        }
    }
    return name_op(B, rows_of(key, NULL), out, true);
}

/* ---- function entries and returns --------------------------------------- */

/* A standalone operation of key that is an integer move or add on a
 * vector register (the stack pointer R1, the return address). */
static int
emit_int(struct lower_emit *B, unsigned key, uint32_t line)
{
    int rc = ptx_lower_emit_standalone(B, key);
    B->out[B->n - 1].opclass = SIM_OPC_INT;
    B->out[B->n - 1].line = line;
    return rc;
}

/* A callee-saved register stored to word k of the frame, or loaded from it
 * (restore: into timing register t). */
static int
emit_spill(struct lower_emit *B, const struct xfunc *f, unsigned k, bool restore, uint16_t t)
{
    int rc = ptx_lower_emit_standalone(B, restore ? LK_RESTORE : LK_SAVE);
    struct xop *x = &B->out[B->n - 1];
    x->kind = XK_SPILL;
    x->opclass = SIM_OPC_MEM;
    x->iflags = restore ? SIM_IF_LOAD : SIM_IF_STORE;
    x->space = PS_LOCAL;
    x->off = 4 * (int64_t)k;
    x->line = f->line;
    if (restore)
        x->dst[x->n_dst++] = t;
    return rc;
}

/* The operations ptxas puts at a function's entry: the stack pointer and
 * the callee-saved registers stored when it has a frame, else a copy of
 * its return address when it calls (the call overwrites R0). */
int
ptx_lower_emit_prologue(struct lower_emit *B, const struct xfunc *f, bool calls)
{
    int rc = SIM_OK;
    if (f->sp_adjust)
        rc = emit_int(B, LK_SPDOWN, f->line);
    for (unsigned k = 0; k < f->save_words && rc == SIM_OK; k++)
        rc = emit_spill(B, f, k, false, 0);
    if (rc == SIM_OK && calls && f->save_words == 0)
        rc = emit_int(B, LK_KEEPRA, f->line);
    return rc;
}

/* A function's ret: the callee-saved registers loaded (the return address
 * among them: the return waits for them), the stack pointer moved back,
 * the return. */
int
ptx_lower_emit_return(struct lower_emit *B, const struct xfunc *f, const struct xop *o,
                      unsigned key)
{
    int rc = SIM_OK;
    uint16_t t = (uint16_t)(PTX_TMP_BASE + B->tmp++ % PTX_TMP_COUNT);
    for (unsigned k = 0; k < f->save_words && rc == SIM_OK; k++)
        rc = emit_spill(B, f, k, true, t);
    if (rc == SIM_OK && f->sp_adjust)
        rc = emit_int(B, LK_SPUP, o->line);
    uint32_t first = B->n;
    if (rc == SIM_OK)
        rc = ptx_lower_emit_key(B, o, key, 0);
    for (uint32_t q = first; q < B->n && f->save_words > 0; q++)
        ptx_lower_emit_add_id(B->out[q].src, &B->out[q].n_src, SIM_MAX_SRC, t);
    return rc;
}

/* ---- what ptxas makes of a call on sm_90 ------------------------------------ */

/* 4-byte registers live across a call in f: written before a call and
 * read after it (in program order), plus the return address. */
static uint32_t
live_across(const struct ptx_run *r, const struct xfunc *f)
{
    uint32_t nid = r->npred + r->nvar32 + r->nvar64;
    uint8_t *live = xcalloc(nid ? nid : 1, 1);
    uint8_t *written = xcalloc(nid ? nid : 1, 1);
    for (int32_t c = f->entry; c < f->end; c++) {
        if (r->x[c].kind != XK_CALL)
            continue;
        memset(written, 0, nid);
        for (int32_t i = f->entry; i < c; i++)
            for (unsigned d = 0; d < r->x[i].n_dst; d++)
                if (r->x[i].dst[d] < nid)
                    written[r->x[i].dst[d]] = 1;
        for (int32_t i = c + 1; i < f->end; i++)
            for (unsigned s = 0; s < r->x[i].n_src; s++)
                if (r->x[i].src[s] < nid && written[r->x[i].src[s]])
                    live[r->x[i].src[s]] = 1;
    }
    uint32_t words = 1;                  /* the return address */
    for (uint32_t id = r->npred; id < nid; id++)
        if (live[id])
            words += id >= r->id64 ? 2 : 1;
    free(written);
    free(live);
    return words;
}

void
ptx_lower_emit_spills(struct ptx_run *r, unsigned cc, bool ask_ptxas)
{
    for (uint32_t i = 1; i < r->n_funcs; i++) {
        struct xfunc *f = &r->funcs[i];
        struct ptxas_info info;
        struct sim_error err = { 0 };
        f->save_words = 0;
        f->sp_adjust = false;
        if (ask_ptxas && ptxas_function_info(r->l->ptx_path, f->name, cc, &info, &err) == SIM_OK) {
            /* a recursive function's spills are the registers it keeps
             * across its calls (fib: 5 STL on entry, 5 LDL before RET) */
            f->save_words = (uint16_t)(f->recursive ? info.spill_stores / 4 : 0);
            f->sp_adjust = info.stack > 0;
        } else if (f->recursive) {
            uint32_t w = live_across(r, f);
            f->save_words = (uint16_t)(w > 255 ? 255 : w);
            f->sp_adjust = true;
        }
    }
}

/* The expansion of a cvt (ptx_lower_emit.h). */
unsigned
ptx_lower_emit_key_cvt(const struct xop *x)
{
    unsigned d = x->type, s = x->type2, db = ptx_type_bytes(d), sb = ptx_type_bytes(s);
    bool fd = ptx_type_is_float(d), fs = ptx_type_is_float(s);
    if (d == PT_E4M3X2 || d == PT_E5M2X2 || s == PT_E4M3X2 || s == PT_E5M2X2)
        return LK_F2FP8;
    if (!fd && !fs) {
        if (db == 8 && sb == 4)
            return ptx_type_is_signed(s) ? LK_SXT64 : LK_ZEXT;   /* the high word */
        return LK_IEXT;
    }
    if (fd && !fs) {
        if (d == PT_F32 && sb <= 4)
            return LK_I2FP;
        return d == PT_F16 || d == PT_BF16 ? LK_I2F : LK_I2F;
    }
    if (!fd && fs)
        return LK_F2I;
    if (d == s)
        return d == PT_F32 ? LK_FRND : LK_F2F;
    if (ptx_type_is_half(d) && s == PT_F32)
        return d == PT_BF16 || d == PT_BF16X2 ? LK_F2FPB : LK_F2FP;
    if (d == PT_F32 && (s == PT_F16 || s == PT_BF16))
        return s == PT_F16 ? LK_H2F : LK_BF2F;
    return LK_F2F;
}
