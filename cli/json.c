/*
 * json.c - a small JSON reader (see json.h).
 *
 * Recursive descent over the text; values live in one growing array of
 * nodes, children of arrays and objects as index ranges into a second
 * array filled after each container closes, strings in a third; nothing
 * is allocated per value beyond amortised array growth.
 */
#include "cli/json.h"
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 256

struct json_value {
    const struct json_doc *doc;  /* owner (values are views into it) */
    enum json_type type;
    double num;
    size_t str;                  /* offset in doc->chars (strings; keys of members) */
    size_t first, n;             /* children: doc->kids[first .. first+n) */
};

struct json_doc {
    struct json_value *v;        /* nodes; v[0] is the root */
    size_t nv, cv;
    size_t *kids;                /* child node indices (objects: key node, value node) */
    size_t nk, ck;
    char *chars;                 /* string storage, NUL-terminated pieces */
    size_t nc, cc;
    size_t root;                 /* index of the root node */
};

struct parser {
    json_doc *d;
    const char *p, *end, *start;
    const char *name;
    smsim_error *err;
    int depth;
};

static int
fail(struct parser *ps, const char *what)
{
    size_t line = 1, col = 1;
    for (const char *q = ps->start; q < ps->p && q < ps->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    smsim_error_set(ps->err, SMSIM_ERR_FORMAT, "%s:%zu:%zu: invalid JSON: %s", ps->name, line, col,
                  what);
    return -1;
}

static size_t
new_node(json_doc *d, enum json_type t)
{
    if (d->nv == d->cv) {
        d->cv = d->cv ? 2 * d->cv : 64;
        d->v = cli_xrealloc(d->v, d->cv * sizeof *d->v);
    }
    memset(&d->v[d->nv], 0, sizeof d->v[0]);
    d->v[d->nv].doc = d;
    d->v[d->nv].type = t;
    return d->nv++;
}

static void
put_char(json_doc *d, char c)
{
    if (d->nc == d->cc) {
        d->cc = d->cc ? 2 * d->cc : 256;
        d->chars = cli_xrealloc(d->chars, d->cc);
    }
    d->chars[d->nc++] = c;
}

static void
skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int
hex4(struct parser *ps, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (ps->p >= ps->end)
            return fail(ps, "truncated \\u escape");
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(ps, "expected 4 hex digits after \\u");
    }
    *out = v;
    return 0;
}

static void
put_utf8(json_doc *d, unsigned cp)
{
    if (cp < 0x80) {
        put_char(d, (char)cp);
    } else if (cp < 0x800) {
        put_char(d, (char)(0xc0 | (cp >> 6)));
        put_char(d, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        put_char(d, (char)(0xe0 | (cp >> 12)));
        put_char(d, (char)(0x80 | ((cp >> 6) & 0x3f)));
        put_char(d, (char)(0x80 | (cp & 0x3f)));
    } else {
        put_char(d, (char)(0xf0 | (cp >> 18)));
        put_char(d, (char)(0x80 | ((cp >> 12) & 0x3f)));
        put_char(d, (char)(0x80 | ((cp >> 6) & 0x3f)));
        put_char(d, (char)(0x80 | (cp & 0x3f)));
    }
}

/* Parse a string at ps->p (at the opening quote); returns its offset. */
static int
parse_string(struct parser *ps, size_t *off)
{
    json_doc *d = ps->d;
    ps->p++;
    *off = d->nc;
    for (;;) {
        if (ps->p >= ps->end)
            return fail(ps, "unterminated string");
        unsigned char c = (unsigned char)*ps->p++;
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(ps, "control character in string");
        if (c != '\\') {
            put_char(d, (char)c);
            continue;
        }
        if (ps->p >= ps->end)
            return fail(ps, "unterminated string");
        c = (unsigned char)*ps->p++;
        switch (c) {
        case '"': put_char(d, '"'); break;
        case '\\': put_char(d, '\\'); break;
        case '/': put_char(d, '/'); break;
        case 'b': put_char(d, '\b'); break;
        case 'f': put_char(d, '\f'); break;
        case 'n': put_char(d, '\n'); break;
        case 'r': put_char(d, '\r'); break;
        case 't': put_char(d, '\t'); break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(ps, &cp) < 0)
                return -1;
            if (cp >= 0xd800 && cp < 0xdc00) {
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
                    return fail(ps, "unpaired surrogate in \\u escape");
                ps->p += 2;
                if (hex4(ps, &lo) < 0)
                    return -1;
                if (lo < 0xdc00 || lo >= 0xe000)
                    return fail(ps, "unpaired surrogate in \\u escape");
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                return fail(ps, "unpaired surrogate in \\u escape");
            }
            if (cp == 0)
                return fail(ps, "\\u0000 in string");
            put_utf8(d, cp);
            break;
        }
        default:
            return fail(ps, "unknown escape in string");
        }
    }
    put_char(d, '\0');
    return 0;
}

static int parse_value(struct parser *ps, size_t *node);

static int
parse_number(struct parser *ps, size_t *node)
{
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return fail(ps, "expected a value");
    if (*ps->p == '0')
        ps->p++;
    else
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "expected digits after '.'");
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "expected digits in exponent");
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    char buf[64];
    size_t n = (size_t)(ps->p - s);
    if (n >= sizeof buf)
        return fail(ps, "number too long");
    memcpy(buf, s, n);
    buf[n] = '\0';
    *node = new_node(ps->d, JSON_NUMBER);
    ps->d->v[*node].num = strtod(buf, NULL);
    return 0;
}

static int
literal(struct parser *ps, const char *word, enum json_type t, size_t *node)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail(ps, "expected a value");
    ps->p += n;
    *node = new_node(ps->d, t);
    return 0;
}

/* Children are collected on a local stack, then appended contiguously. */
static int
parse_container(struct parser *ps, size_t *node, bool object)
{
    char close = object ? '}' : ']';
    size_t *stack = NULL, n = 0, cap = 0;
    int rc = 0;
    if (++ps->depth > JSON_MAX_DEPTH)
        return fail(ps, "nesting too deep");
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
    } else {
        for (;;) {
            size_t key = 0, val;
            skip_ws(ps);
            if (object) {
                if (ps->p >= ps->end || *ps->p != '"') {
                    rc = fail(ps, "expected a string key");
                    break;
                }
                size_t off;
                if ((rc = parse_string(ps, &off)) < 0)
                    break;
                key = new_node(ps->d, JSON_STRING);
                ps->d->v[key].str = off;
                skip_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') {
                    rc = fail(ps, "expected ':' after key");
                    break;
                }
                ps->p++;
            }
            if ((rc = parse_value(ps, &val)) < 0)
                break;
            if (n + 2 > cap) {
                cap = cap ? 2 * cap : 16;
                stack = cli_xrealloc(stack, cap * sizeof *stack);
            }
            if (object)
                stack[n++] = key;
            stack[n++] = val;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == close) {
                ps->p++;
                break;
            }
            rc = fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
            break;
        }
    }
    if (rc == 0) {
        json_doc *d = ps->d;
        *node = new_node(d, object ? JSON_OBJECT : JSON_ARRAY);
        if (d->nk + n > d->ck) {
            while (d->nk + n > d->ck)
                d->ck = d->ck ? 2 * d->ck : 64;
            d->kids = cli_xrealloc(d->kids, d->ck * sizeof *d->kids);
        }
        d->v[*node].first = d->nk;
        d->v[*node].n = object ? n / 2 : n;
        if (n)
            memcpy(d->kids + d->nk, stack, n * sizeof *stack);
        d->nk += n;
    }
    free(stack);
    ps->depth--;
    return rc;
}

static int
parse_value(struct parser *ps, size_t *node)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end of input");
    switch (*ps->p) {
    case '{': return parse_container(ps, node, true);
    case '[': return parse_container(ps, node, false);
    case '"': {
        size_t off;
        if (parse_string(ps, &off) < 0)
            return -1;
        *node = new_node(ps->d, JSON_STRING);
        ps->d->v[*node].str = off;
        return 0;
    }
    case 't': return literal(ps, "true", JSON_TRUE, node);
    case 'f': return literal(ps, "false", JSON_FALSE, node);
    case 'n': return literal(ps, "null", JSON_NULL, node);
    default: return parse_number(ps, node);
    }
}

json_doc *
json_parse(const char *text, size_t len, const char *name, smsim_error *err)
{
    json_doc *d = cli_xcalloc(1, sizeof *d);
    struct parser ps = { d, text, text + len, text, name, err, 0 };
    size_t root;
    if (parse_value(&ps, &root) < 0) {
        json_free(d);
        return NULL;
    }
    skip_ws(&ps);
    if (ps.p != ps.end) {
        fail(&ps, "trailing characters after the value");
        json_free(d);
        return NULL;
    }
    d->root = root;
    return d;
}

json_doc *
json_load(const char *path, smsim_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        smsim_error_set(err, SMSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (cap - n < 65536) {
            cap = cap ? 2 * cap : 131072;
            buf = cli_xrealloc(buf, cap);
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
    } while (got > 0);
    bool bad = ferror(fp) != 0;
    fclose(fp);
    if (bad) {
        free(buf);
        smsim_error_set(err, SMSIM_ERR_IO, "%s: read error", path);
        return NULL;
    }
    json_doc *d = json_parse(buf, n, path, err);
    free(buf);
    return d;
}

void
json_free(json_doc *d)
{
    if (d == NULL)
        return;
    free(d->v);
    free(d->kids);
    free(d->chars);
    free(d);
}

const json_value *
json_root(const json_doc *d)
{
    return &d->v[d->root];
}

enum json_type
json_type_of(const json_value *v)
{
    return v ? v->type : JSON_NULL;
}

size_t
json_len(const json_value *v)
{
    return v && (v->type == JSON_ARRAY || v->type == JSON_OBJECT) ? v->n : 0;
}

const json_value *
json_at(const json_value *v, size_t i)
{
    if (v == NULL || i >= json_len(v))
        return NULL;
    const json_doc *d = v->doc;
    size_t k = v->type == JSON_OBJECT ? d->kids[v->first + 2 * i + 1] : d->kids[v->first + i];
    return &d->v[k];
}

const char *
json_key_at(const json_value *v, size_t i)
{
    if (v == NULL || v->type != JSON_OBJECT || i >= v->n)
        return NULL;
    const json_doc *d = v->doc;
    return d->chars + d->v[d->kids[v->first + 2 * i]].str;
}

const json_value *
json_get(const json_value *v, const char *key)
{
    if (v == NULL || v->type != JSON_OBJECT)
        return NULL;
    const json_doc *d = v->doc;
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(d->chars + d->v[d->kids[v->first + 2 * i]].str, key) == 0)
            return &d->v[d->kids[v->first + 2 * i + 1]];
    return NULL;
}

double
json_num(const json_value *v, double def)
{
    return v && v->type == JSON_NUMBER ? v->num : def;
}

const char *
json_str(const json_value *v)
{
    return v && v->type == JSON_STRING ? v->doc->chars + v->str : NULL;
}

const json_value *
json_path(const json_value *v, ...)
{
    va_list ap;
    va_start(ap, v);
    const char *k;
    while (v != NULL && (k = va_arg(ap, const char *)) != NULL)
        v = json_get(v, k);
    va_end(ap);
    return v;
}
