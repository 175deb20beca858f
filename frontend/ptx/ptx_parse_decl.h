/*
 * ptx_parse_decl.h - the PTX parser's ground floor: its state (struct
 * parser), the token helpers, errors, names, scopes and declarations
 * (ptx_parse_decl.c).  The parser is three files, each using only those
 * below it: ptx_parse.c (the module, signatures), ptx_parse_ins.c
 * (bodies, instructions, calls: ptx_parse_ins.h), ptx_parse_decl.c.
 * Private to them.
 */
#ifndef SMSIM_FRONTEND_PTX_PARSE_DECL_H
#define SMSIM_FRONTEND_PTX_PARSE_DECL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontend/ptx/ptx_lex.h"
#include "frontend/ptx/ptx_parse.h"

struct parser {
    struct ptx_lex lx;           /* the tokenizer: the current token, file and line */
    struct ptx_module *m;
    struct ptx_kernel *k;        /* kernel or function being parsed */
    /* name lookup in the body being parsed */
    struct ptx_names regs;           /* visible register name -> index in k->regs */
    struct ptx_names labels;         /* label name -> index in k->labels */
    int32_t *shadow;             /* per register: the one its name hid, or -1 */
    int32_t *label_shadow;       /* per label: the one its name hid, or -1 ... */
    uint8_t *label_depth;        /* ... and the depth of the { } that defines it (0: none yet) */
    uint32_t scope_mark[PTX_MAX_SCOPES]; /* k->n_regs when each open '{' began */
    uint32_t label_mark[PTX_MAX_SCOPES]; /* k->n_labels when each open '{' began */
    uint32_t sym_mark[PTX_MAX_SCOPES];   /* k->n_syms when each open '{' began */
    unsigned depth;              /* open braces in the body */
    bool nounroll;               /* a .pragma "nounroll" applies to the next instruction */
    bool has_coords;             /* the operand just parsed was [tensorMap, {coords}]: ... */
    struct ptx_opnd coords;      /* ... its coordinates, the instruction's next operand */
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

/* A symbol name that is none (ptx_parse_find_sym). */
#define SYM_UNKNOWN (-1 - (int32_t)0x40000000)

/* Skip the rest of an instruction statement, its ';' included. */
int ptx_parse_skip_instruction(struct parser *ps);
/* "kernel" or "function", for messages about body k. */
const char *ptx_parse_body_kind(const struct ptx_kernel *k);
/* p, an array of n elements of size bytes, with room for one more (grown
 * by doubling). */
void *ptx_parse_grow(void *p, uint32_t n, size_t size);
/* The register called name in the current scope, or -1. */
int32_t ptx_parse_find_reg(const struct parser *ps, const char *name);
/* The label called name (created, undefined, if new). */
int32_t ptx_parse_find_label(struct parser *ps, const char *name);
/* Define label `name` at the current instruction of the innermost open
 * { }: its index, or -1 with an error (defined twice in one block). */
int32_t ptx_parse_define_label(struct parser *ps, const char *name);
/* Open / close a { } scope in a body (closing one takes its registers and
 * .param variables out of view). */
int ptx_parse_scope_open(struct parser *ps);
void ptx_parse_scope_close(struct parser *ps);
/* A symbol visible in the body: its index in ps->k->syms (params: -2 -
 * their index), or SYM_UNKNOWN. */
int32_t ptx_parse_find_sym(struct parser *ps, const char *name);
/* ".f32" -> PT_F32; -1 if w is no type. */
int ptx_parse_type_word(const char *w, uint8_t *t);
/* Declare register name of type in the current scope. */
int ptx_parse_add_reg(struct parser *ps, const char *name, uint8_t type);
/* .reg .type %name<N>, %other, ... ;  (current token: after ".reg") */
int ptx_parse_reg_decl(struct parser *ps);
/* At `.align`: its value, a power of two up to 4096, into *align (the
 * number stays the current token). */
int ptx_parse_align(struct parser *ps, uint32_t *align);
/* [.align N] .type name[N][M]... [= init] ;  of space (.shared, .local,
 * .global, .const), appended to syms (the module's or the body's). */
int ptx_parse_var_decl(struct parser *ps, uint8_t space, bool external, struct ptx_sym **syms,
                       uint32_t *n);

#endif /* SMSIM_FRONTEND_PTX_PARSE_DECL_H */
