/*
 * ptx_parse_func.c - kernel and device-function signatures, and calls
 * (part of the PTX parser: ptx_parse_internal.h).
 *
 * A kernel's parameters are laid out in its parameter space in order; a
 * function's return parameter comes first, then its arguments, each at
 * the next offset of its alignment (ptx_call.c places that block in every
 * activation's frame).  A function may be declared (a prototype, or
 * .extern) before it is defined; calls name it by its index in the
 * module's functions, and the definition takes the declaration's index.
 */
#include "frontend/ptx_parse_internal.h"

#include <stdlib.h>

/* An optional parameter array suffix "[N]" (1 <= N <= 65536): *d = N, or
 * 1 when there is none. */
static int
parse_param_dim(struct parser *ps, int64_t *d)
{
    *d = 1;
    if (!is_punct(ps, '['))
        return SIM_OK;
    SIM_FORWARD_IF_ERROR(next(ps));
    if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, d) || *d <= 0 || *d > 65536)
        return ptx_parse_err(ps, "bad parameter array size");
    SIM_FORWARD_IF_ERROR(next(ps));
    return expect_punct(ps, ']');
}

/* A parameter list "( .param ... , ... )" of body k (current token: '(');
 * each parameter is appended to k->params at the next offset of its
 * alignment in k->param_bytes.  In a .func a parameter may be a .reg
 * (old PTX): it is then a register of the function too. */
static int
parse_param_list(struct parser *ps, struct ptx_kernel *k)
{
    SIM_FORWARD_IF_ERROR(expect_punct(ps, '('));
    while (!is_punct(ps, ')')) {
        bool reg = k->is_func && is_word(ps, ".reg");
        if (!is_word(ps, ".param") && !reg)
            return ptx_parse_err(ps, "expected .param in the parameter list of %s, found '%s'",
                                 k->name, ps->lx.tok);
        SIM_FORWARD_IF_ERROR(next(ps));
        /* reuse the variable parser up to the name; params end with ',' or ')' */
        uint32_t align = 0;
        uint8_t type = 0;
        while (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] == '.') {
            if (strcmp(ps->lx.tok, ".align") == 0) {
                SIM_FORWARD_IF_ERROR(ptx_parse_align(ps, &align));
            } else if (ptx_parse_type_word(ps->lx.tok, &type) != 0 &&
                       strcmp(ps->lx.tok, ".ptr") != 0 && strncmp(ps->lx.tok, ".global", 7) != 0 &&
                       strncmp(ps->lx.tok, ".const", 6) != 0 &&
                       strncmp(ps->lx.tok, ".shared", 7) != 0 &&
                       strncmp(ps->lx.tok, ".local", 6) != 0) {
                return ptx_parse_err(ps, "unexpected '%s' in a parameter", ps->lx.tok);
            }
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        if (type == 0 || ps->lx.kind != PTX_TK_WORD)
            return ptx_parse_err(ps, "malformed parameter of %s", k->name);
        struct ptx_sym p = { 0 };
        p.name = xstrdup(ps->lx.tok);
        p.space = reg ? PS_REG : PS_PARAM;
        p.type = type;
        p.size = ptx_type_bytes(type);
        int64_t d = 1;
        int rc = next(ps);
        if (rc == SIM_OK && !reg)
            rc = parse_param_dim(ps, &d);
        if (rc == SIM_OK && reg) {
            rc = ptx_parse_add_reg(ps, p.name, type);
            p.offset = k->n_regs - 1;        /* the register's index in k->regs */
        }
        if (rc < 0) {
            free(p.name);
            return rc;
        }
        p.size *= (uint64_t)d;
        p.align = align ? align : ptx_type_bytes(type);
        if (!reg) {
            k->param_bytes = (k->param_bytes + p.align - 1) / p.align * p.align;
            p.offset = k->param_bytes;
            k->param_bytes += p.size;
        }
        k->params = xrealloc(k->params, (k->n_params + 1) * sizeof *k->params);
        k->params[k->n_params++] = p;
        if (is_punct(ps, ','))
            SIM_FORWARD_IF_ERROR(next(ps));
        else if (!is_punct(ps, ')'))
            return ptx_parse_err(ps, "expected ',' or ')' in the parameters of %s", k->name);
    }
    return next(ps);
}

/* Start parsing body k: fresh register and label names. */
static void
body_begin(struct parser *ps, struct ptx_kernel *k)
{
    ps->k = k;
    ptx_names_free(&ps->regs);
    ptx_names_free(&ps->labels);
    ps->depth = 0;
}

/* Performance and other directives after a signature: .maxntid 256, 1, 1
 * .reqntid .minnctapersm .maxnreg .noreturn ... (no effect) */
static int
skip_attributes(struct parser *ps)
{
    while (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] == '.') {
        SIM_FORWARD_IF_ERROR(next(ps));
        while (ps->lx.kind == PTX_TK_NUM || is_punct(ps, ','))
            SIM_FORWARD_IF_ERROR(next(ps));
    }
    return SIM_OK;
}

/* .entry NAME ( params ) [performance directives] { body } */
int
ptx_parse_entry(struct parser *ps)
{
    struct ptx_module *m = ps->m;
    if (ps->lx.kind != PTX_TK_WORD)
        return ptx_parse_err(ps, "expected a kernel name after .entry");
    m->kernels = xrealloc(m->kernels, (m->n_kernels + 1) * sizeof *m->kernels);
    struct ptx_kernel *k = &m->kernels[m->n_kernels++];
    memset(k, 0, sizeof *k);
    k->name = xstrdup(ps->lx.tok);
    k->line = ps->lx.line;
    body_begin(ps, k);
    SIM_FORWARD_IF_ERROR(next(ps));
    if (is_punct(ps, '('))
        SIM_FORWARD_IF_ERROR(parse_param_list(ps, k));
    SIM_FORWARD_IF_ERROR(skip_attributes(ps));
    SIM_FORWARD_IF_ERROR(ptx_parse_body(ps));
    ps->k = NULL;
    return SIM_OK;
}

/* .func [(return parameter)] NAME [(parameters)] [.noreturn ...] ( ; | { body } )
 * A declaration (';': a prototype, or .extern) lets calls name the
 * function; its definition may follow, and takes the declaration's index
 * (the calls already parsed point at it). */
int
ptx_parse_func(struct parser *ps)
{
    struct ptx_module *m = ps->m;
    m->funcs = xrealloc(m->funcs, (m->n_funcs + 1) * sizeof *m->funcs);
    struct ptx_kernel *f = &m->funcs[m->n_funcs++];
    memset(f, 0, sizeof *f);
    f->is_func = true;
    f->name = xstrdup("(function)");
    f->line = ps->lx.line;
    body_begin(ps, f);
    if (is_punct(ps, '(')) {
        SIM_FORWARD_IF_ERROR(parse_param_list(ps, f));
        f->n_rets = f->n_params;
        if (f->n_rets > 1)
            return ptx_parse_err(ps, "a function returns one parameter at most");
    }
    if (ps->lx.kind != PTX_TK_WORD || ps->lx.tok[0] == '.' || ps->lx.tok[0] == '%')
        return ptx_parse_err(ps, "expected a function name after .func, found '%s'", ps->lx.tok);
    free(f->name);
    f->name = xstrdup(ps->lx.tok);
    f->line = ps->lx.line;
    SIM_FORWARD_IF_ERROR(next(ps));
    if (is_punct(ps, '('))
        SIM_FORWARD_IF_ERROR(parse_param_list(ps, f));
    SIM_FORWARD_IF_ERROR(skip_attributes(ps));
    int32_t earlier = -1;
    for (uint32_t i = 0; i + 1 < m->n_funcs; i++)
        if (strcmp(m->funcs[i].name, f->name) == 0)
            earlier = (int32_t)i;
    if (is_punct(ps, ';')) {                 /* a declaration */
        if (earlier >= 0) {                  /* declared again: keep the first */
            ptx_body_free(f);
            m->n_funcs--;
        }
        ps->k = NULL;
        return next(ps);
    }
    if (earlier >= 0) {
        struct ptx_kernel *e = &m->funcs[earlier];
        if (e->defined)
            return sim_error_set(ps->lx.err, SIM_ERR_FORMAT, "%s:%u: function %s defined twice "
                                 "(first at line %u)", ps->lx.path, f->line, f->name, e->line);
        bool taken = e->addr_taken;
        ptx_body_free(e);                    /* the definition takes the declaration's place */
        *e = *f;
        e->addr_taken = e->addr_taken || taken;
        memset(f, 0, sizeof *f);
        m->n_funcs--;
        f = e;
        ps->k = f;
    }
    f->defined = true;
    SIM_FORWARD_IF_ERROR(ptx_parse_body(ps));
    ps->k = NULL;
    return SIM_OK;
}

/* A call's return value or argument (current token: its first). */
static int
parse_call_operand(struct parser *ps, struct ptx_opnd *o, const char *what)
{
    SIM_FORWARD_IF_ERROR(ptx_parse_operand(ps, o, false));
    if (o->kind == PO_REG || o->kind == PO_IMM)
        return SIM_OK;
    if (o->kind == PO_SYM && o->sym >= 0 && ps->k->syms[o->sym].space == PS_PARAM && o->imm == 0)
        return SIM_OK;
    return ptx_parse_err(ps, "a call's %s must be a .param variable of the caller, a register "
                         "or a constant", what);
}

/* The operands of a call (current token: the first after the mnemonic):
 *   call{.uni} [(ret),] func[, (args)];
 *   call{.uni} [(ret),] %fptr, [(args),] prototype;   (through a function pointer)
 * into body k's calls; ins->target = its index.  Returns SIM_OK, an
 * error, or PARSE_SKIPPED for an unsupported form. */
int
ptx_parse_call(struct parser *ps, struct ptx_ins *ins)
{
    struct ptx_kernel *k = ps->k;
    struct ptx_call c = { .func = -1, .fptr = -1 };
    int rc = SIM_OK;
    if (is_punct(ps, '(')) {                 /* the return value */
        SIM_FORWARD_IF_ERROR(next(ps));
        SIM_FORWARD_IF_ERROR(parse_call_operand(ps, &c.ret, "return value"));
        if (c.ret.kind == PO_IMM)
            return ptx_parse_err(ps, "a call's return value cannot be a constant");
        c.has_ret = true;
        SIM_FORWARD_IF_ERROR(expect_punct(ps, ')'));
        SIM_FORWARD_IF_ERROR(expect_punct(ps, ','));
    }
    if (ps->lx.kind != PTX_TK_WORD || ps->lx.tok[0] == '.')
        return ptx_parse_err(ps, "expected the called function's name, found '%s'", ps->lx.tok);
    char callee[256];
    snprintf(callee, sizeof callee, "%s", ps->lx.tok);
    int32_t reg = ptx_parse_find_reg(ps, callee);
    if (reg >= 0) {
        c.fptr = reg;
    } else {
        c.func = ptx_module_func(ps->m, callee);
        if (c.func < 0)
            return ptx_parse_err(ps, "call to undeclared function '%s' (a function is declared "
                                 "or defined before its first call)", callee);
    }
    SIM_FORWARD_IF_ERROR(next(ps));
    bool proto = false;
    while (is_punct(ps, ',')) {
        rc = next(ps);                       /* c.args may hold the arguments: no return */
        if (rc < 0)
            goto fail;
        if (is_punct(ps, '(') && c.nargs == 0 && c.args == NULL && !proto) {
            SIM_FORWARD_IF_ERROR(next(ps));
            c.args = xcalloc(1, sizeof *c.args);   /* an empty list: () */
            while (!is_punct(ps, ')')) {
                if (c.nargs >= 1024) {
                    rc = ptx_parse_err(ps, "more than 1024 arguments in a call");
                    goto fail;
                }
                c.args = ptx_parse_grow(c.args, c.nargs, sizeof *c.args);
                rc = parse_call_operand(ps, &c.args[c.nargs], "argument");
                if (rc < 0)
                    goto fail;
                c.nargs++;
                if (is_punct(ps, ','))
                    rc = next(ps);
                else if (!is_punct(ps, ')'))
                    rc = ptx_parse_err(ps, "expected ',' or ')' in a call's arguments, found "
                                       "'%s'", ps->lx.tok);
                if (rc < 0)
                    goto fail;
            }
            rc = next(ps);
        } else if (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] != '.' && c.fptr >= 0 && !proto) {
            proto = true;                    /* the prototype (or call table) */
            rc = next(ps);
        } else {
            rc = ptx_parse_err(ps, "unexpected '%s' in a call (expected (arguments)%s)",
                               ps->lx.tok, c.fptr >= 0 ? " or a prototype" : "");
        }
        if (rc < 0)
            goto fail;
    }
    if (!is_punct(ps, ';')) {
        rc = ptx_parse_err(ps, "expected ';' after a call, found '%s'", ps->lx.tok);
        goto fail;
    }
    if (c.fptr >= 0 && !proto) {
        rc = ptx_parse_err(ps, "a call through a function pointer (%s) needs a prototype or "
                           "call table as its last operand", callee);
        goto fail;
    }
    if (c.func >= 0) {
        const struct ptx_kernel *f = &ps->m->funcs[c.func];
        uint32_t want = f->n_params - f->n_rets;
        if (c.nargs != want) {
            rc = ptx_parse_err(ps, "the call passes %u argument%s, function %s takes %u",
                               c.nargs, c.nargs == 1 ? "" : "s", f->name, want);
            goto fail;
        }
        if (c.has_ret && f->n_rets == 0) {
            rc = ptx_parse_err(ps, "the call expects a return value, function %s returns none",
                               f->name);
            goto fail;
        }
    }
    k->calls = ptx_parse_grow(k->calls, k->n_calls, sizeof *k->calls);
    ins->target = (int32_t)k->n_calls;
    k->calls[k->n_calls++] = c;
    return SIM_OK;
fail:
    free(c.args);
    return rc;
}

