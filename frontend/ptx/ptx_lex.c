/*
 * ptx_lex.c - the PTX tokenizer, literal readers and name tables (see
 * ptx_lex.h).
 */
#include "frontend/ptx/ptx_lex.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ptx_lex_init(struct ptx_lex *lx, const char *name, const char *text, size_t len,
             struct sim_error *err)
{
    memset(lx, 0, sizeof *lx);
    lx->path = name;
    lx->p = text;
    lx->end = text + len;
    lx->line = lx->next_line = 1;
    lx->err = err;
}

int
ptx_lex_verror(struct ptx_lex *lx, const char *fmt, va_list ap)
{
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return sim_error_set(lx->err, SIM_ERR_FORMAT, "%s:%u: %s", lx->path, lx->line, msg);
}

int
ptx_lex_error(struct ptx_lex *lx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ptx_lex_verror(lx, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- name tables --------------------------------------------------------- */

static uint32_t
names_hash(const char *s)
{
    uint32_t h = 2166136261u;    /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Slot of key, or of the empty slot where it would go. */
static uint32_t
names_slot(const struct ptx_names *t, const char *key)
{
    uint32_t i = names_hash(key) & (t->cap - 1);
    while (t->key[i] != NULL && strcmp(t->key[i], key) != 0)
        i = (i + 1) & (t->cap - 1);
    return i;
}

int32_t
ptx_names_get(const struct ptx_names *t, const char *key)
{
    if (t->cap == 0)
        return -1;
    uint32_t i = names_slot(t, key);
    return t->key[i] != NULL ? t->val[i] : -1;
}

void
ptx_names_put(struct ptx_names *t, const char *key, int32_t val)
{
    if (2 * (t->n + 1) > t->cap) {
        struct ptx_names old = *t;
        t->cap = old.cap ? 2 * old.cap : 64;
        t->key = xcalloc(t->cap, sizeof *t->key);
        t->val = xcalloc(t->cap, sizeof *t->val);
        t->n = 0;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.key[i] != NULL) {
                uint32_t j = names_slot(t, old.key[i]);
                t->key[j] = old.key[i];
                t->val[j] = old.val[i];
                t->n++;
            }
        free(old.key);
        free(old.val);
    }
    uint32_t i = names_slot(t, key);
    if (t->key[i] == NULL) {
        t->key[i] = key;
        t->n++;
    }
    t->val[i] = val;
}

void
ptx_names_free(struct ptx_names *t)
{
    free(t->key);
    free(t->val);
    memset(t, 0, sizeof *t);
}

/* ---- tokens -------------------------------------------------------------- */

static bool
word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* Scan the next token into lx->tok. */
int
ptx_lex_next(struct ptx_lex *lx)
{
    const char *p = lx->p;
    uint32_t line = lx->next_line;

    for (;;) {
        while (p < lx->end && isspace((unsigned char)*p)) {
            if (*p == '\n')
                line++;
            p++;
        }
        if (p + 1 < lx->end && p[0] == '/' && p[1] == '/') {
            while (p < lx->end && *p != '\n')
                p++;
            continue;
        }
        if (p + 1 < lx->end && p[0] == '/' && p[1] == '*') {
            uint32_t start = line;
            p += 2;
            while (p + 1 < lx->end && !(p[0] == '*' && p[1] == '/')) {
                if (*p == '\n')
                    line++;
                p++;
            }
            if (p + 1 >= lx->end) {
                lx->line = start;
                return ptx_lex_error(lx, "unterminated comment (it starts here)");
            }
            p += 2;
            continue;
        }
        break;
    }
    lx->line = line;
    if (p >= lx->end) {
        lx->kind = PTX_TK_EOF;
        lx->tok[0] = '\0';
        lx->p = p;
        lx->next_line = line;
        return SIM_OK;
    }
    size_t n = 0;
    if (*p == '"') {
        p++;
        while (p < lx->end && *p != '"' && *p != '\n') {
            if (n + 1 < sizeof lx->tok)
                lx->tok[n++] = *p;
            p++;
        }
        if (p >= lx->end || *p != '"')
            return ptx_lex_error(lx, "unterminated string");
        p++;
        lx->kind = PTX_TK_STRING;
    } else if (isdigit((unsigned char)*p)) {
        while (p < lx->end && (isalnum((unsigned char)*p) || *p == '.')) {
            if (n + 1 >= sizeof lx->tok)
                return ptx_lex_error(lx, "token too long");
            lx->tok[n++] = *p++;
        }
        lx->kind = PTX_TK_NUM;
    } else if (word_char(*p)) {
        /* '%' may only start a name (ptxas reads "selp.b32%r4" as two tokens);
         * a directive ends at its next '.' (cuda_fp16.h's inline asm writes
         * "{.reg.b32 f;", which ptxas reads as ".reg .b32 f;") */
        bool directive = *p == '.';
        while (p < lx->end && (word_char(*p) || (p + 1 < lx->end && p[0] == ':' && p[1] == ':')) &&
               !(n > 0 && *p == '%') && !(n > 0 && directive && *p == '.')) {
            if (n + 2 >= sizeof lx->tok)
                return ptx_lex_error(lx, "token too long");
            if (*p == ':') {
                lx->tok[n++] = *p++;
            }
            lx->tok[n++] = *p++;
        }
        lx->kind = PTX_TK_WORD;
    } else {
        lx->punct = *p++;
        lx->tok[n++] = lx->punct;
        lx->kind = PTX_TK_PUNCT;
    }
    lx->tok[n] = '\0';
    lx->p = p;
    lx->next_line = line;
    return SIM_OK;
}

bool
ptx_lex_is_word(const struct ptx_lex *lx, const char *w)
{
    return lx->kind == PTX_TK_WORD && strcmp(lx->tok, w) == 0;
}

int
ptx_lex_expect(struct ptx_lex *lx, char c)
{
    if (!ptx_lex_is_punct(lx, c))
        return ptx_lex_error(lx, "expected '%c', found '%s'", c,
                             lx->kind == PTX_TK_EOF ? "end of file" : lx->tok);
    return ptx_lex_next(lx);
}

/* Skip to just past the next ';' (or a whole { } block). */
int
ptx_lex_skip_statement(struct ptx_lex *lx)
{
    int depth = 0;
    while (lx->kind != PTX_TK_EOF) {
        if (ptx_lex_is_punct(lx, '{'))
            depth++;
        else if (ptx_lex_is_punct(lx, '}'))
            depth--;
        if ((ptx_lex_is_punct(lx, ';') && depth == 0) || (ptx_lex_is_punct(lx, '}') && depth == 0)) {
            return ptx_lex_next(lx);
        }
        SIM_FORWARD_IF_ERROR(ptx_lex_next(lx));
    }
    return SIM_OK;
}

/* ---- numbers ------------------------------------------------------------ */

/* Parse an integer literal (decimal, 0x hex, 0 octal, 0b binary, U suffix). */
bool
ptx_lex_int(const char *s, int64_t *out)
{
    char buf[128];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    if (buf[n - 1] == 'U' || buf[n - 1] == 'u')
        buf[--n] = '\0';
    int base = 10;
    const char *d = buf;
    if (n > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
        base = 16;
        d += 2;
    } else if (n > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) {
        base = 2;
        d += 2;
    } else if (n > 1 && d[0] == '0') {
        base = 8;
        d += 1;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(d, &end, base);
    if (errno != 0 || *end != '\0' || end == d)
        return false;
    *out = (int64_t)v;
    return true;
}

/* Parse a float literal: 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX or decimal.  Sets
 * *kind to 1 (f32 bits) or 2 (f64 bits). */
bool
ptx_lex_float(const char *s, int64_t *bits, uint8_t *kind)
{
    size_t n = strlen(s);
    char *end;
    if (n == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
        unsigned long v = strtoul(s + 2, &end, 16);
        if (*end != '\0')
            return false;
        *bits = (int64_t)(uint32_t)v;
        *kind = 1;
        return true;
    }
    if (n == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
        unsigned long long v = strtoull(s + 2, &end, 16);
        if (*end != '\0')
            return false;
        *bits = (int64_t)v;
        *kind = 2;
        return true;
    }
    /* a decimal float has a '.' or an exponent; 0x3E00 is a hex integer
     * (PTX writes float bit patterns 0f... / 0d..., never C's 0x1p3) */
    if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return false;
    if (strchr(s, '.') == NULL && strchr(s, 'e') == NULL && strchr(s, 'E') == NULL)
        return false;
    double d = strtod(s, &end);
    if (*end != '\0')
        return false;
    memcpy(bits, &d, sizeof d);
    *kind = 2;
    return true;
}
