/*
 * ptx_parse.c - PTX text -> struct ptx_module (see ptx_parse.h).
 *
 * The tokenizer (ptx_lex.c) feeds a recursive-descent reader.  Names
 * are resolved while parsing: registers against the body's .reg
 * declarations, memory and address operands against the body's params,
 * its .shared/.local/.param declarations and module-scope symbols, a
 * call's callee against the functions declared so far (PTX declares a
 * function before its first call); labels are resolved when the body
 * ends.  Kernels (.entry) and device functions (.func) are read by the
 * same body parser.  Every error names file:line.
 *
 * The parser is three files, each using only those below it: this one
 * (the module, its directives, kernel and function signatures, the layout
 * of parameters and shared memory), ptx_parse_ins.c (bodies,
 * instructions, operands, calls) and ptx_parse_decl.c (errors, names,
 * scopes, declarations).  A kernel's parameters are laid out in its
 * parameter space in order; a function's return parameter comes first,
 * then its arguments, each at the next offset of its alignment
 * (ptx_call.c places that block in every activation's frame).  A function
 * may be declared (a prototype, or .extern) before it is defined; calls
 * name it by its index in the module's functions, and the definition
 * takes the declaration's index.
 */
#include "frontend/ptx/ptx_parse_ins.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- kernel and function signatures ------------------------------------- */

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
 * .reqntid .minnctapersm .maxnreg .noreturn ... (no effect), and the
 * cluster a kernel requires: .reqnctapercluster X, Y, Z and
 * .explicitcluster (the launch file's cluster key must agree). */
static int
skip_attributes(struct parser *ps)
{
    while (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] == '.') {
        bool cluster = strcmp(ps->lx.tok, ".reqnctapercluster") == 0;
        if (strcmp(ps->lx.tok, ".explicitcluster") == 0 && ps->k != NULL)
            ps->k->explicit_cluster = true;
        unsigned d = 0;
        int64_t v;
        SIM_FORWARD_IF_ERROR(next(ps));
        while (ps->lx.kind == PTX_TK_NUM || is_punct(ps, ',')) {
            if (cluster && ps->lx.kind == PTX_TK_NUM && d < 3) {
                if (!ptx_lex_int(ps->lx.tok, &v) || v < 1 || v > 16)
                    return ptx_parse_err(ps, ".reqnctapercluster: a dimension is 1 .. 16 blocks");
                if (ps->k != NULL)
                    ps->k->cluster[d++] = (uint32_t)v;
            }
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        while (cluster && ps->k != NULL && d < 3 && d > 0)
            ps->k->cluster[d++] = 1;
    }
    return SIM_OK;
}

/* .entry NAME ( params ) [performance directives] { body } */
static int
parse_entry(struct parser *ps)
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
static int
parse_func(struct parser *ps)
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


static int
parse_module(struct parser *ps)
{
    struct ptx_module *m = ps->m;
    SIM_FORWARD_IF_ERROR(next(ps));
    while (ps->lx.kind != PTX_TK_EOF) {
        if (ps->lx.kind != PTX_TK_WORD || ps->lx.tok[0] != '.')
            return ptx_parse_err(ps, "expected a directive at module scope, found '%s'", ps->lx.tok);
        char d[64];
        snprintf(d, sizeof d, "%s", ps->lx.tok);
        SIM_FORWARD_IF_ERROR(next(ps));
        if (strcmp(d, ".version") == 0) {
            unsigned major = 0, minor = 0;
            char extra;
            if (sscanf(ps->lx.tok, "%u.%u%c", &major, &minor, &extra) != 2)
                return ptx_parse_err(ps, "bad .version '%s' (expected MAJOR.MINOR)", ps->lx.tok);
            if (major < 1 || major > PTX_MAX_VERSION_MAJOR)
                return ptx_parse_err(ps, "PTX ISA version %s is not supported (1.0 .. %d.x)", ps->lx.tok,
                            PTX_MAX_VERSION_MAJOR);
            snprintf(m->version, sizeof m->version, "%s", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
        } else if (strcmp(d, ".target") == 0) {
            snprintf(m->target, sizeof m->target, "%s", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
            while (is_punct(ps, ',')) {
                SIM_FORWARD_IF_ERROR(next(ps));
                SIM_FORWARD_IF_ERROR(next(ps));
            }
        } else if (strcmp(d, ".address_size") == 0) {
            int64_t a;
            if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, &a) || (a != 32 && a != 64))
                return ptx_parse_err(ps, "bad .address_size '%s'", ps->lx.tok);
            m->address_size = (uint32_t)a;
            SIM_FORWARD_IF_ERROR(next(ps));
        } else if (strcmp(d, ".visible") == 0 || strcmp(d, ".weak") == 0 ||
                   strcmp(d, ".extern") == 0 || strcmp(d, ".common") == 0) {
            bool ext = strcmp(d, ".extern") == 0;
            /* qualifier: look at what follows */
            if (is_word(ps, ".entry")) {
                SIM_FORWARD_IF_ERROR(next(ps));
                SIM_FORWARD_IF_ERROR(parse_entry(ps));
            } else if (is_word(ps, ".func")) {
                SIM_FORWARD_IF_ERROR(next(ps));
                SIM_FORWARD_IF_ERROR(parse_func(ps));
            } else if (is_word(ps, ".global") || is_word(ps, ".const") || is_word(ps, ".shared")) {
                uint8_t sp = is_word(ps, ".global") ? PS_GLOBAL : is_word(ps, ".const") ? PS_CONST
                                                                                         : PS_SHARED;
                SIM_FORWARD_IF_ERROR(next(ps));
                SIM_FORWARD_IF_ERROR(ptx_parse_var_decl(ps, sp, ext, &m->syms, &m->n_syms));
            } else {
                return ptx_parse_err(ps, "unexpected '%s' after %s", ps->lx.tok, d);
            }
        } else if (strcmp(d, ".entry") == 0) {
            SIM_FORWARD_IF_ERROR(parse_entry(ps));
        } else if (strcmp(d, ".func") == 0) {
            SIM_FORWARD_IF_ERROR(parse_func(ps));
        } else if (strcmp(d, ".global") == 0 || strcmp(d, ".const") == 0 ||
                   strcmp(d, ".shared") == 0) {
            uint8_t sp = strcmp(d, ".global") == 0 ? PS_GLOBAL : strcmp(d, ".const") == 0 ? PS_CONST
                                                                                             : PS_SHARED;
            SIM_FORWARD_IF_ERROR(ptx_parse_var_decl(ps, sp, false, &m->syms, &m->n_syms));
        } else if (strcmp(d, ".file") == 0 || strcmp(d, ".section") == 0 ||
                   strcmp(d, ".pragma") == 0 || strcmp(d, ".loc") == 0) {
            /* debug information: the statement runs to the next line break */
            uint32_t l = ps->lx.line;
            if (strcmp(d, ".section") == 0) {
                SIM_FORWARD_IF_ERROR(ptx_lex_skip_statement(&ps->lx));
            } else {
                while (ps->lx.kind != PTX_TK_EOF && ps->lx.line == l)
                    SIM_FORWARD_IF_ERROR(next(ps));
            }
        } else {
            return ptx_parse_err(ps, "unsupported directive '%s'", d);
        }
    }
    if (m->n_kernels == 0)
        return sim_error_set(ps->lx.err, SIM_ERR_FORMAT, "%s: no .entry kernel found", ps->lx.path);
    return SIM_OK;
}

/* ---- layout ------------------------------------------------------------- */

static uint64_t
align_up(uint64_t x, uint64_t a)
{
    return a ? (x + a - 1) / a * a : x;
}

/* Assign shared and local offsets of body k (static shared first, then
 * extern shared, 16-aligned, at the end), and the offsets of its .param
 * variables in their own area (callsite_bytes). */
static void
layout_kernel(struct ptx_kernel *k)
{
    uint64_t sh = 0, lo = 0, pa = 0;
    for (uint32_t i = 0; i < k->n_syms; i++) {
        struct ptx_sym *s = &k->syms[i];
        if (s->space == PS_SHARED && !s->external) {
            sh = align_up(sh, s->align);
            s->offset = sh;
            sh += s->size;
        } else if (s->space == PS_LOCAL) {
            lo = align_up(lo, s->align);
            s->offset = lo;
            lo += s->size;
        } else if (s->space == PS_PARAM) {
            pa = align_up(pa, s->align);
            s->offset = pa;
            pa += s->size;
        }
    }
    k->callsite_bytes = align_up(pa, 8);
    sh = align_up(sh, 16);
    for (uint32_t i = 0; i < k->n_syms; i++)
        if (k->syms[i].space == PS_SHARED && k->syms[i].external)
            k->syms[i].offset = sh;
    k->shared_bytes = sh;
    k->local_bytes = align_up(lo, 8);
}

/* ---- entry points -------------------------------------------------------- */

int
ptx_parse_text(const char *name, const char *text, size_t len, struct ptx_module **out,
               struct sim_error *err)
{
    struct parser ps;
    memset(&ps, 0, sizeof ps);
    ptx_lex_init(&ps.lx, name, text, len, err);
    ps.m = xcalloc(1, sizeof *ps.m);
    ps.m->path = xstrdup(name);
    ps.m->address_size = 64;
    int rc = parse_module(&ps);
    ptx_names_free(&ps.regs);
    ptx_names_free(&ps.labels);
    free(ps.shadow);
    free(ps.label_shadow);
    free(ps.label_depth);
    for (uint32_t i = 0; rc == SIM_OK && i < ps.m->n_kernels; i++) {
        layout_kernel(&ps.m->kernels[i]);
        rc = ptx_ir_reconvergence(&ps.m->kernels[i], name, err);
    }
    for (uint32_t i = 0; rc == SIM_OK && i < ps.m->n_funcs; i++) {
        layout_kernel(&ps.m->funcs[i]);
        rc = ptx_ir_reconvergence(&ps.m->funcs[i], name, err);
    }
    if (rc < 0) {
        ptx_module_free(ps.m);
        return rc;
    }
    *out = ps.m;
    return SIM_OK;
}

int
ptx_parse_file(const char *path, struct ptx_module **out, struct sim_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot open PTX file: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && !S_ISREG(st.st_mode)) {
        fclose(fp);
        return sim_error_set(err, SIM_ERR_IO, "%s: %s (expected a PTX file)", path,
                             S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
    }
    if (fseek(fp, 0, SEEK_END) != 0) {
        fclose(fp);
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot read PTX file", path);
    }
    long n = ftell(fp);
    if (n < 0 || n > (256L << 20)) {
        fclose(fp);
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: PTX file larger than 256 MB", path);
    }
    rewind(fp);
    char *buf = xmalloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, fp);
    fclose(fp);
    if (got != (size_t)n) {
        free(buf);
        return sim_error_set(err, SIM_ERR_IO, "%s: read error", path);
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', (size_t)n) != NULL) {
        free(buf);
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: not a text file (NUL byte)", path);
    }
    int rc = ptx_parse_text(path, buf, (size_t)n, out, err);
    free(buf);
    return rc;
}
