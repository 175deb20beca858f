/*
 * ptx_parse_decl.c - the PTX parser's ground floor (ptx_parse_decl.h):
 * its errors, the names visible in a body (registers, labels, scopes,
 * symbols), and declarations: .reg, variables of every state space with
 * their initialisers and alignment.  Used by ptx_parse_ins.c (bodies and
 * instructions) and ptx_parse.c (the module, signatures); it calls
 * neither.
 */
#include "frontend/ptx/ptx_parse_decl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
ptx_parse_err(struct parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ptx_lex_verror(&ps->lx, fmt, ap);
    va_end(ap);
    return rc;
}

/* Skip the rest of an instruction statement, its ';' included. */
int
ptx_parse_skip_instruction(struct parser *ps)
{
    while (ps->lx.kind != PTX_TK_EOF && !is_punct(ps, ';'))
        SIM_FORWARD_IF_ERROR(next(ps));
    if (ps->lx.kind == PTX_TK_EOF)
        return ptx_parse_err(ps, "missing ';' at the end of an instruction");
    SIM_FORWARD_IF_ERROR(next(ps));
    return PARSE_SKIPPED;
}

/* "kernel" or "function", for messages about body k. */
const char *
ptx_parse_body_kind(const struct ptx_kernel *k)
{
    return k->is_func ? "function" : "kernel";
}

/* An instruction the simulator does not support, in a kernel or function
 * body: the body keeps the first such message and the statement is
 * skipped (to its ';'), so the module's other kernels still run;
 * launching this one, or one that calls this function, is the error
 * (ptx.c).  Returns PARSE_SKIPPED.  Outside a body: an error. */
int
ptx_parse_unsupported(struct parser *ps, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ps->k == NULL)
        return ptx_parse_err(ps, "%s", msg);
    if (ps->k->unsupported == NULL) {
        size_t n = strlen(ps->lx.path) + strlen(ps->k->name) + strlen(msg) + 40;
        ps->k->unsupported = xmalloc(n);
        snprintf(ps->k->unsupported, n, "%s:%u: %s %s: %s", ps->lx.path, ps->lx.line,
                 ptx_parse_body_kind(ps->k), ps->k->name, msg);
    }
    return ptx_parse_skip_instruction(ps);
}

/* ---- names -------------------------------------------------------------- */

static char *
ptx_parse_dup(const char *s)
{
    return xstrdup(s);
}

/* p, an array of n elements of size bytes, with room for one more: grown
 * by doubling (16, 32, 64, ...) so that declaring n items costs O(n), not
 * O(n^2) - %r<100000> is a 12-byte input. */
void *
ptx_parse_grow(void *p, uint32_t n, size_t size)
{
    if (n == 0)
        return xrealloc(p, 16 * size);
    if (n >= 16 && (n & (n - 1)) == 0)
        return xrealloc(p, 2 * (size_t)n * size);
    return p;
}

/* The register called name in the current scope, or -1. */
int32_t
ptx_parse_find_reg(const struct parser *ps, const char *name)
{
    return ptx_names_get(&ps->regs, name);
}

/* A new label called name, hiding `hid` (-1: none). */
static int32_t
new_label(struct parser *ps, const char *name, int32_t hid)
{
    struct ptx_kernel *k = ps->k;
    k->labels = ptx_parse_grow(k->labels, k->n_labels, sizeof *k->labels);
    k->label_at = ptx_parse_grow(k->label_at, k->n_labels, sizeof *k->label_at);
    ps->label_shadow = ptx_parse_grow(ps->label_shadow, k->n_labels, sizeof *ps->label_shadow);
    ps->label_depth = ptx_parse_grow(ps->label_depth, k->n_labels, sizeof *ps->label_depth);
    k->labels[k->n_labels] = ptx_parse_dup(name);
    k->label_at[k->n_labels] = -1;
    ps->label_shadow[k->n_labels] = hid;
    ps->label_depth[k->n_labels] = 0;
    ptx_names_put(&ps->labels, k->labels[k->n_labels], (int32_t)k->n_labels);
    return (int32_t)k->n_labels++;
}

/* The label called name as a branch names it: the visible one (created,
 * undefined, if new).  Labels are scoped by { } as registers are: inline
 * assembly repeats its blocks' labels (CUTLASS's `{ LAB_WAIT: ... bra
 * LAB_WAIT; DONE: }` in every barrier wait).  A branch binds to the label
 * its name shows where the branch stands; a forward one, to the label a
 * later definition in the same or an enclosing block gives the name. */
int32_t
ptx_parse_find_label(struct parser *ps, const char *name)
{
    int32_t i = ptx_names_get(&ps->labels, name);
    return i >= 0 ? i : new_label(ps, name, -1);
}

int32_t
ptx_parse_define_label(struct parser *ps, const char *name)
{
    struct ptx_kernel *k = ps->k;
    int32_t l = ptx_names_get(&ps->labels, name);
    if (l >= 0 && k->label_at[l] >= 0) {
        if (ps->label_depth[l] >= ps->depth) {
            ptx_parse_err(ps, "label %s defined twice", name);
            return -1;
        }
        l = new_label(ps, name, l);          /* an inner block's own: hides the outer one */
    } else if (l < 0) {
        l = new_label(ps, name, -1);
    }
    k->label_at[l] = (int32_t)k->n_ins;
    ps->label_depth[l] = (uint8_t)ps->depth;
    return l;
}

/* Open a { } scope in a kernel body. */
int
ptx_parse_scope_open(struct parser *ps)
{
    if (ps->depth == PTX_MAX_SCOPES)
        return ptx_parse_err(ps, "blocks nested more than %d deep", PTX_MAX_SCOPES);
    ps->sym_mark[ps->depth] = ps->k->n_syms;
    ps->label_mark[ps->depth] = ps->k->n_labels;
    ps->scope_mark[ps->depth++] = ps->k->n_regs;
    return SIM_OK;
}

/* Close a scope: its registers and the labels it defined go out of view,
 * uncovering what they hid (a label it only branched to stays: an
 * enclosing block defines it), and so do the .param variables declared
 * in it (each call sequence declares its own param0, retval0 in a { } of
 * its own). */
void
ptx_parse_scope_close(struct parser *ps)
{
    struct ptx_kernel *k = ps->k;
    uint32_t mark = ps->scope_mark[--ps->depth];
    for (uint32_t i = k->n_regs; i-- > mark;)
        ptx_names_put(&ps->regs, k->regs[i].name, ps->shadow[i]);
    for (uint32_t i = k->n_labels; i-- > ps->label_mark[ps->depth];)
        if (ps->label_depth[i] > ps->depth)
            ptx_names_put(&ps->labels, k->labels[i], ps->label_shadow[i]);
    for (uint32_t i = ps->sym_mark[ps->depth]; i < k->n_syms; i++)
        if (k->syms[i].space == PS_PARAM)
            k->syms[i].hidden = true;
}

static int32_t
ptx_parse_find_module_sym(const struct ptx_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_syms; i++)
        if (strcmp(m->syms[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* A symbol visible in body k: its params, its own declarations (the
 * latest visible one), then module symbols (copied into the body's table
 * on first use, with the module index in .offset's place kept via init ==
 * NULL and a marker).  Returns the index in k->syms (params: -2 - their
 * index). */
int32_t
ptx_parse_find_sym(struct parser *ps, const char *name)
{
    struct ptx_kernel *k = ps->k;
    for (uint32_t i = 0; i < k->n_params; i++)
        if (strcmp(k->params[i].name, name) == 0)
            return -(int32_t)i - 2;      /* params: -2, -3, ... */
    for (uint32_t i = k->n_syms; i-- > 0;)
        if (!k->syms[i].hidden && strcmp(k->syms[i].name, name) == 0)
            return (int32_t)i;
    int32_t g = ptx_parse_find_module_sym(ps->m, name);
    if (g < 0)
        return -1 - (int32_t)0x40000000;
    k->syms = xrealloc(k->syms, (k->n_syms + 1) * sizeof *k->syms);
    struct ptx_sym *s = &k->syms[k->n_syms];
    *s = ps->m->syms[g];
    s->name = ptx_parse_dup(ps->m->syms[g].name);
    s->init = NULL;                      /* data lives in the module symbol */
    s->offset = (uint64_t)g;             /* module index until layout */
    s->type = 0xff;                      /* marks a reference to a module symbol */
    return (int32_t)k->n_syms++;
}


/* ---- declarations ------------------------------------------------------- */

int
ptx_parse_type_word(const char *w, uint8_t *t)
{
    if (w[0] != '.')
        return -1;
    for (unsigned i = 1; i < PT_COUNT; i++) {
        if (strcmp(w + 1, ptx_type_name(i)) == 0) {
            *t = (uint8_t)i;
            return 0;
        }
    }
    return -1;
}

static uint8_t
rclass_of(uint8_t t)
{
    if (t == PT_PRED)
        return RC_PRED;
    return ptx_type_bytes(t) == 8 ? RC_64 : RC_32;
}

int
ptx_parse_add_reg(struct parser *ps, const char *name, uint8_t type)
{
    struct ptx_kernel *k = ps->k;
    int32_t old = ptx_parse_find_reg(ps, name);
    if (old >= 0 && ps->depth > 0 && (uint32_t)old >= ps->scope_mark[ps->depth - 1])
        return ptx_parse_err(ps, "register %s declared twice in one scope", name);
    if (k->n_regs >= 100000)
        return ptx_parse_err(ps, "more than 100000 registers");
    k->regs = ptx_parse_grow(k->regs, k->n_regs, sizeof *k->regs);
    ps->shadow = ptx_parse_grow(ps->shadow, k->n_regs, sizeof *ps->shadow);
    ps->shadow[k->n_regs] = old;
    struct ptx_reg *r = &k->regs[k->n_regs];
    r->name = ptx_parse_dup(name);
    r->type = type;
    r->rclass = rclass_of(type);
    r->index = k->n_rclass[r->rclass]++;
    ptx_names_put(&ps->regs, r->name, (int32_t)k->n_regs);
    k->n_regs++;
    return SIM_OK;
}

/* .reg .type %name<N>, %other, ... ; (current token: after ".reg") */
int
ptx_parse_reg_decl(struct parser *ps)
{
    uint8_t type;
    if (ps->lx.kind == PTX_TK_WORD && strncmp(ps->lx.tok, ".v", 2) == 0)
        return ptx_parse_err(ps, "vector registers (.reg %s) are unsupported", ps->lx.tok);
    if (ps->lx.kind != PTX_TK_WORD || ptx_parse_type_word(ps->lx.tok, &type) != 0)
        return ptx_parse_err(ps, "expected a register type after .reg, found '%s'", ps->lx.tok);
    SIM_FORWARD_IF_ERROR(next(ps));
    for (;;) {
        if (ps->lx.kind != PTX_TK_WORD || ps->lx.tok[0] == '.' || isdigit((unsigned char)ps->lx.tok[0]))
            return ptx_parse_err(ps, "expected a register name, found '%s'", ps->lx.tok);
        char name[256];
        snprintf(name, sizeof name, "%s", ps->lx.tok);
        SIM_FORWARD_IF_ERROR(next(ps));
        if (is_punct(ps, '<')) {
            SIM_FORWARD_IF_ERROR(next(ps));
            int64_t cnt;
            if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, &cnt) || cnt < 0 || cnt > 100000)
                return ptx_parse_err(ps, "expected a register count in %s<N>", name);
            SIM_FORWARD_IF_ERROR(next(ps));
            SIM_FORWARD_IF_ERROR(expect_punct(ps, '>'));
            for (int64_t i = 0; i < cnt; i++) {
                char nm[300];
                snprintf(nm, sizeof nm, "%s%" PRId64, name, i);
                SIM_FORWARD_IF_ERROR(ptx_parse_add_reg(ps, nm, type));
            }
        } else {
            SIM_FORWARD_IF_ERROR(ptx_parse_add_reg(ps, name, type));
        }
        if (is_punct(ps, ','))
            SIM_FORWARD_IF_ERROR(next(ps));
        else
            break;
    }
    return expect_punct(ps, ';');
}

/* Initial values of a variable: = v or = { v, v, ... } of element type t. */
static int
parse_init(struct parser *ps, struct ptx_sym *s, uint8_t t)
{
    unsigned eb = ptx_type_bytes(t);
    uint64_t idx = 0;
    bool brace = is_punct(ps, '{');
    if (brace)
        SIM_FORWARD_IF_ERROR(next(ps));
    if (s->size == 0 || s->size > (64u << 20))
        return ptx_parse_err(ps, "initialised variable %s has no size or is too large", s->name);
    s->init = xcalloc(1, s->size);
    for (;;) {
        bool neg = false;
        if (is_punct(ps, '-')) {
            neg = true;
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        int64_t v;
        uint8_t fk = 0;
        int32_t fn = ps->lx.kind == PTX_TK_WORD && !neg ? ptx_module_func(ps->m, ps->lx.tok) : -1;
        if (fn >= 0 && eb == 8) {
            /* a function table: {f, g} (function pointers) */
            ps->m->funcs[fn].addr_taken = true;
            v = (int64_t)(PTX_FUNC_BASE + 16 * (uint64_t)fn);
        } else if (ps->lx.kind != PTX_TK_NUM) {
            return ptx_parse_err(ps, "expected a number in the initialiser of %s", s->name);
        } else if (!ptx_lex_float(ps->lx.tok, &v, &fk) && !ptx_lex_int(ps->lx.tok, &v)) {
            return ptx_parse_err(ps, "bad number '%s' in the initialiser of %s", ps->lx.tok, s->name);
        } else if (fk == 2 && t == PT_F32) {
            double d;
            memcpy(&d, &v, 8);
            float f = (float)(neg ? -d : d);
            uint32_t b;
            memcpy(&b, &f, 4);
            v = b;
        } else if (fk == 2 && t == PT_F64) {
            if (neg) {
                double d;
                memcpy(&d, &v, 8);
                d = -d;
                memcpy(&v, &d, 8);
            }
        } else if (fk == 0 && ptx_type_is_float(t)) {
            double d = (double)(neg ? -v : v);
            if (t == PT_F32) {
                float f = (float)d;
                uint32_t b;
                memcpy(&b, &f, 4);
                v = b;
            } else {
                memcpy(&v, &d, 8);
            }
        } else if (neg) {
            v = -v;
        }
        if ((idx + 1) * eb > s->size)
            return ptx_parse_err(ps, "too many initialisers for %s", s->name);
        memcpy(s->init + idx * eb, &v, eb);   /* little-endian host */
        idx++;
        SIM_FORWARD_IF_ERROR(next(ps));
        if (brace && is_punct(ps, ',')) {
            SIM_FORWARD_IF_ERROR(next(ps));
            continue;
        }
        break;
    }
    if (brace)
        SIM_FORWARD_IF_ERROR(expect_punct(ps, '}'));
    return SIM_OK;
}

/* The rest of a variable declaration after its name: array sizes and an
 * initialiser, into *s.  On error the caller frees s->name and s->init. */
static int
parse_var_shape(struct parser *ps, uint8_t space, uint8_t type, struct ptx_sym *s)
{
    bool unsized = false;
    while (is_punct(ps, '[')) {
        SIM_FORWARD_IF_ERROR(next(ps));
        if (is_punct(ps, ']')) {
            unsized = true;
        } else {
            int64_t d;
            if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, &d) || d < 0 || d > (INT64_C(1) << 32)) {
                return ptx_parse_err(ps, "bad array size '%s'", ps->lx.tok);
            }
            if (s->size > (UINT64_C(1) << 40) / (uint64_t)(d ? d : 1)) {
                return ptx_parse_err(ps, "array too large");
            }
            s->size *= (uint64_t)d;
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        SIM_FORWARD_IF_ERROR(expect_punct(ps, ']'));
    }
    if (unsized) {
        if (space != PS_SHARED) {
            return ptx_parse_err(ps, "unsized array %s outside shared memory", s->name);
        }
        s->size = 0;
        s->external = true;
    }
    if (is_punct(ps, '=')) {
        SIM_FORWARD_IF_ERROR(next(ps));
        SIM_FORWARD_IF_ERROR(parse_init(ps, s, type));
    }
    return SIM_OK;
}

int
ptx_parse_align(struct parser *ps, uint32_t *align)
{
    SIM_FORWARD_IF_ERROR(next(ps));
    int64_t a;
    if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, &a) || a <= 0 || a > 4096 ||
        (a & (a - 1)))
        return ptx_parse_err(ps, "bad .align value '%s'", ps->lx.tok);
    *align = (uint32_t)a;
    return SIM_OK;
}

/* [.align N] .type name[N][M]... [= init] ;  for .shared/.local/.global/.const.
 * Appends to syms (module or kernel). */
int
ptx_parse_var_decl(struct parser *ps, uint8_t space, bool external, struct ptx_sym **syms,
                   uint32_t *n)
{
    uint32_t align = 0;
    uint8_t type = 0;
    bool managed = false;
    while (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] == '.') {
        if (strcmp(ps->lx.tok, ".align") == 0) {
            SIM_FORWARD_IF_ERROR(ptx_parse_align(ps, &align));
        } else if (strcmp(ps->lx.tok, ".attribute") == 0) {
            /* .attribute(.managed) (__managed__), .attribute(.unified(a, b)) */
            SIM_FORWARD_IF_ERROR(next(ps));
            if (!is_punct(ps, '('))
                return ptx_parse_err(ps, "expected ( after .attribute");
            for (int depth = 1; depth > 0;) {
                SIM_FORWARD_IF_ERROR(next(ps));
                if (ps->lx.kind == PTX_TK_EOF)
                    return ptx_parse_err(ps, "unterminated .attribute( )");
                if (is_punct(ps, '('))
                    depth++;
                else if (is_punct(ps, ')'))
                    depth--;
                else if (ps->lx.kind == PTX_TK_WORD && strcmp(ps->lx.tok, ".managed") == 0)
                    managed = true;
            }
        } else if (ptx_parse_type_word(ps->lx.tok, &type) != 0 && strncmp(ps->lx.tok, ".v", 2) != 0 &&
                   strcmp(ps->lx.tok, ".ptr") != 0) {
            return ptx_parse_err(ps, "unexpected '%s' in a variable declaration", ps->lx.tok);
        }
        SIM_FORWARD_IF_ERROR(next(ps));
    }
    if (type == 0)
        return ptx_parse_err(ps, "variable declaration without a type");
    if (ps->lx.kind != PTX_TK_WORD)
        return ptx_parse_err(ps, "expected a variable name, found '%s'", ps->lx.tok);
    struct ptx_sym s = { 0 };
    s.name = ptx_parse_dup(ps->lx.tok);
    s.space = space;
    s.external = external;
    s.managed = managed;
    s.type = type;
    s.align = align ? align : ptx_type_bytes(type);
    s.size = ptx_type_bytes(type);
    int rc = next(ps);
    if (rc == SIM_OK)
        rc = parse_var_shape(ps, space, type, &s);
    if (rc < 0) {
        free(s.name);
        free(s.init);
        return rc;
    }
    *syms = xrealloc(*syms, (*n + 1) * sizeof **syms);
    (*syms)[(*n)++] = s;
    return expect_punct(ps, ';');
}
