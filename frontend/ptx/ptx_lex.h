/*
 * ptx_lex.h - the PTX tokenizer, literal readers and name tables (private
 * to frontend/ptx_parse*.c).
 *
 * The lexer turns PTX text into words (names, directives and dotted
 * mnemonics: "%r1", ".reg", "ld.global.f32"), numbers, strings and single
 * punctuation characters, skipping whitespace and comments and counting
 * lines so that every message names file:line.  It never allocates.
 */
#ifndef SMSIM_FRONTEND_PTX_LEX_H
#define SMSIM_FRONTEND_PTX_LEX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

enum ptx_tk { PTX_TK_EOF, PTX_TK_WORD, PTX_TK_NUM, PTX_TK_PUNCT, PTX_TK_STRING };

struct ptx_lex {
    const char *path;            /* for messages */
    const char *p, *end;         /* the text still to scan */
    uint32_t line;               /* line of the current token */
    uint32_t next_line;          /* line where scanning resumes */
    enum ptx_tk kind;            /* the current token */
    char tok[4096];              /* its text, NUL-terminated (C++ template names run to
                                    thousands of characters) */
    char punct;                  /* PTX_TK_PUNCT: the character */
    struct sim_error *err;       /* where errors go */
};

/* Start lexing len bytes of text (name is used in messages); the first
 * token is read by the first ptx_lex_next(). */
void ptx_lex_init(struct ptx_lex *lx, const char *name, const char *text, size_t len,
                  struct sim_error *err);

/* Scan the next token into lx->tok.  SIM_OK, or SIM_ERR_FORMAT (an
 * unterminated comment or string, a token over 511 bytes). */
int ptx_lex_next(struct ptx_lex *lx);

/* A format error at the current token's line: "path:line: message". */
int ptx_lex_error(struct ptx_lex *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ptx_lex_verror(struct ptx_lex *lx, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static inline bool
ptx_lex_is_punct(const struct ptx_lex *lx, char c)
{
    return lx->kind == PTX_TK_PUNCT && lx->punct == c;
}

/* The current token is the word w. */
bool ptx_lex_is_word(const struct ptx_lex *lx, const char *w);

/* Consume punctuation c, or fail naming what was found. */
int ptx_lex_expect(struct ptx_lex *lx, char c);

/* Skip to just past the next ';' (or a whole { } block). */
int ptx_lex_skip_statement(struct ptx_lex *lx);

/* An integer literal (decimal, 0x hex, 0 octal, 0b binary, U suffix). */
bool ptx_lex_int(const char *s, int64_t *out);

/* A float literal: 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX or decimal; *kind is 1
 * (f32 bits in *bits) or 2 (f64 bits). */
bool ptx_lex_float(const char *s, int64_t *bits, uint8_t *kind);

/* A string -> int32 hash table (open addressing, linear probing).  Keys
 * point at strings owned elsewhere that outlive the table.  A zeroed
 * struct is an empty table. */
struct ptx_names {
    const char **key;
    int32_t *val;
    uint32_t cap;                /* power of two, or 0 */
    uint32_t n;
};

/* The value of key, or -1. */
int32_t ptx_names_get(const struct ptx_names *t, const char *key);
/* Set key to val (added, or replaced). */
void ptx_names_put(struct ptx_names *t, const char *key, int32_t val);
void ptx_names_free(struct ptx_names *t);

#endif /* SMSIM_FRONTEND_PTX_LEX_H */
