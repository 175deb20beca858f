/*
 * ptx_parse_internal.h - the PTX parser's state and helpers shared by
 * ptx_parse.c (modules, declarations, instructions) and ptx_parse_func.c
 * (kernel and function signatures, calls).  Private to those two files.
 */
#ifndef SMSIM_FRONTEND_PTX_PARSE_INTERNAL_H
#define SMSIM_FRONTEND_PTX_PARSE_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontend/ptx_lex.h"
#include "frontend/ptx_parse.h"

struct parser {
    struct ptx_lex lx;           /* the tokenizer: the current token, file and line */
    struct ptx_module *m;
    struct ptx_kernel *k;        /* kernel or function being parsed */
    /* name lookup in the body being parsed */
    struct ptx_names regs;           /* visible register name -> index in k->regs */
    struct ptx_names labels;         /* label name -> index in k->labels */
    int32_t *shadow;             /* per register: the one its name hid, or -1 */
    uint32_t scope_mark[PTX_MAX_SCOPES]; /* k->n_regs when each open '{' began */
    uint32_t sym_mark[PTX_MAX_SCOPES];   /* k->n_syms when each open '{' began */
    unsigned depth;              /* open braces in the body */
    bool nounroll;               /* a .pragma "nounroll" applies to the next instruction */
};

#define PARSE_SKIPPED 1          /* an instruction was skipped (not an error) */

static inline int
next(struct parser *ps)
{
    return ptx_lex_next(&ps->lx);
}

static inline bool
is_punct(const struct parser *ps, char c)
{
    return ptx_lex_is_punct(&ps->lx, c);
}

static inline bool
is_word(const struct parser *ps, const char *w)
{
    return ptx_lex_is_word(&ps->lx, w);
}

static inline int
expect_punct(struct parser *ps, char c)
{
    return ptx_lex_expect(&ps->lx, c);
}

/* A format error naming the current line. */
int ptx_parse_err(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An unsupported instruction in the body being parsed: recorded in
 * ps->k->unsupported, the statement skipped; returns PARSE_SKIPPED. */
int ptx_parse_unsupported(struct parser *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* p, an array of n elements of size bytes, with room for one more. */
void *ptx_parse_grow(void *p, uint32_t n, size_t size);
/* The register called name in the current scope, or -1. */
int32_t ptx_parse_find_reg(const struct parser *ps, const char *name);
/* Declare register name of type in the current scope. */
int ptx_parse_add_reg(struct parser *ps, const char *name, uint8_t type);
/* ".f32" -> PT_F32; -1 if w is no type. */
int ptx_parse_type_word(const char *w, uint8_t *t);
/* At `.align`: its value, a power of two up to 4096, into *align (the
 * number stays the current token). */
int ptx_parse_align(struct parser *ps, uint32_t *align);
/* One operand (in_branch: a bare name is a label). */
int ptx_parse_operand(struct parser *ps, struct ptx_opnd *o, bool in_branch);
/* A body from its '{' to its '}'. */
int ptx_parse_body(struct parser *ps);

/* ptx_parse_func.c: .entry NAME ( params ) ... { body }  (after ".entry") */
int ptx_parse_entry(struct parser *ps);
/* .func [(ret)] NAME [(params)] ... ( ; | { body } )  (after ".func") */
int ptx_parse_func(struct parser *ps);
/* A call's operands (after the mnemonic) into ps->k->calls; ins->target =
 * its index.  SIM_OK, an error, or PARSE_SKIPPED (an unsupported form). */
int ptx_parse_call(struct parser *ps, struct ptx_ins *ins);

#endif /* SMSIM_FRONTEND_PTX_PARSE_INTERNAL_H */
