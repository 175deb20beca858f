/*
 * ptxlink.c - the device link of separately compiled PTX (see ptxlink.h).
 *
 * Each module is cut into its module-scope statements: header directives
 * (to the end of their line), functions (a signature, then a body in
 * braces or a ';'), and the rest (variables: to the ';' outside any
 * initialiser's braces).  Comments are skipped where statements are cut
 * and kept inside them.
 */
#include "cudart/ptxlink.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_HEADER, S_FUNC, S_VAR };
enum { L_NONE = 0, L_VISIBLE = 1, L_EXTERN = 2, L_WEAK = 4 };

struct stmt {
    const char *s;
    size_t n;                    /* its bytes */
    size_t sig;                  /* a function with a body: the bytes before the '{' */
    int kind, link;
    bool body;
    char name[256];
};

struct mod {
    char *text;                  /* owned (renamed copy) */
    size_t len;
    struct stmt *st;
    size_t n, cap;
};

static bool
idch(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

static bool
idstart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}

/* Skip white space and comments from p; the first byte of the next token. */
static size_t
skip(const char *t, size_t len, size_t p)
{
    for (;;) {
        while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r'))
            p++;
        if (p + 1 < len && t[p] == '/' && t[p + 1] == '/') {
            while (p < len && t[p] != '\n')
                p++;
        } else if (p + 1 < len && t[p] == '/' && t[p + 1] == '*') {
            const char *e = strstr(t + p + 2, "*/");
            p = e != NULL ? (size_t)(e - t) + 2 : len;
        } else {
            return p;
        }
    }
}

/* The end of the bracketed text opening at p (its matching close + 1),
 * comments skipped. */
static size_t
match(const char *t, size_t len, size_t p, char open, char close)
{
    int depth = 0;
    while (p < len) {
        size_t q = skip(t, len, p);
        if (q != p) {
            p = q;
            continue;
        }
        if (t[p] == open)
            depth++;
        else if (t[p] == close && --depth == 0)
            return p + 1;
        p++;
    }
    return len;
}

/* The first byte from e that is one of stops, skipping comments and
 * bracketed groups (open .. close); len if none. */
static size_t
until(const char *t, size_t len, size_t e, const char *stops, char open, char close)
{
    while (e < len && (t[e] == '\0' || strchr(stops, t[e]) == NULL)) {
        size_t k = skip(t, len, e);
        if (k != e)
            e = k;
        else if (t[e] == open)
            e = match(t, len, e, open, close);
        else
            e++;
    }
    return e;
}

static bool
has_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++)
        if (memcmp(s + i, w, wl) == 0 && (i + wl == n || !idch(s[i + wl])) &&
            (i == 0 || !idch(s[i - 1])))
            return true;
    return false;
}

/* The identifier at or after p (past one parenthesised list when paren). */
static void
ident_after(const char *t, size_t len, size_t p, bool paren, char *out, size_t cap)
{
    p = skip(t, len, p);
    if (paren && p < len && t[p] == '(')
        p = skip(t, len, match(t, len, p, '(', ')'));
    size_t i = 0;
    while (p < len && idch(t[p]) && i + 1 < cap)
        out[i++] = t[p++];
    out[i] = '\0';
}

static void
add(struct mod *m, const struct stmt *s)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->st = realloc(m->st, m->cap * sizeof *m->st);
        if (m->st == NULL)
            abort();
    }
    m->st[m->n++] = *s;
}

/* Cut module m into statements; false at text that is none. */
static bool
cut(struct mod *m, char *why, size_t why_len, unsigned index)
{
    const char *t = m->text;
    size_t len = m->len, p = skip(t, len, 0);
    m->n = 0;
    while (p < len) {
        struct stmt s;
        memset(&s, 0, sizeof s);
        s.s = t + p;
        if (strncmp(t + p, ".section", 8) == 0) {   /* debug sections (-G): dropped */
            size_t e = until(t, len, p, "{", '(', ')');
            e = e < len ? match(t, len, e, '{', '}') : len;
            s.kind = S_HEADER;
            s.n = e - p;
            add(m, &s);
            p = skip(t, len, e);
            continue;
        }
        if (strncmp(t + p, ".version", 8) == 0 || strncmp(t + p, ".target", 7) == 0 ||
            strncmp(t + p, ".address_size", 13) == 0 || strncmp(t + p, ".file", 5) == 0) {
            size_t e = p;
            while (e < len && t[e] != '\n')
                e++;
            s.kind = S_HEADER;
            s.n = e - p;
            add(m, &s);
            p = skip(t, len, e);
            continue;
        }
        /* the words before the first ';', '{' or '(' say what it is */
        size_t q = p;
        while (q < len && t[q] != ';' && t[q] != '{' && t[q] != '(' && t[q] != '=')
            q++;
        s.link = (has_word(t + p, q - p, ".visible") ? L_VISIBLE : 0) |
                 (has_word(t + p, q - p, ".extern") ? L_EXTERN : 0) |
                 (has_word(t + p, q - p, ".weak") ? L_WEAK : 0);
        size_t e;
        if (has_word(t + p, q - p, ".func") || has_word(t + p, q - p, ".entry")) {
            s.kind = S_FUNC;
            const char *kw = strstr(t + p, has_word(t + p, q - p, ".func") ? ".func" : ".entry");
            ident_after(t, len, (size_t)(kw - t) + (kw[1] == 'f' ? 5 : 6), kw[1] == 'f', s.name,
                        sizeof s.name);
            /* the signature: parenthesised lists up to a '{' or ';' */
            e = until(t, len, p, "{;", '(', ')');
            if (e < len && t[e] == '{') {
                s.body = true;
                s.sig = e - p;
                e = match(t, len, e, '{', '}');
            } else {
                e = e < len ? e + 1 : len;
            }
        } else {
            s.kind = S_VAR;
            /* the name: the first identifier not a directive or number */
            size_t k = p;
            s.name[0] = '\0';
            while (k < q) {
                k = skip(t, len, k);
                size_t b = k;
                while (k < q && t[k] != ' ' && t[k] != '\t' && t[k] != '\n' && t[k] != '[' &&
                       t[k] != ';' && t[k] != '<')
                    k++;
                if (k > b && t[b] != '.' && idstart(t[b]) && k - b < sizeof s.name) {
                    memcpy(s.name, t + b, k - b);
                    s.name[k - b] = '\0';
                    break;
                }
                if (k == b)
                    k++;
            }
            e = until(t, len, p, ";", '{', '}');   /* past an initialiser's braces */
            if (e >= len) {
                snprintf(why, why_len, "module %u: a module-scope statement without ';' at "
                         "byte %zu", index, p);
                return false;
            }
            e++;
        }
        s.n = e - p;
        add(m, &s);
        p = skip(t, len, e);
    }
    return true;
}

/* text with every identifier `from` replaced by `to` (malloc'd). */
static char *
rename_in(const char *t, size_t len, const char *from, const char *to, size_t *out_len)
{
    size_t fl = strlen(from), tl = strlen(to), cap = len + 1, n = 0;
    char *o = malloc(cap);
    if (o == NULL)
        abort();
    for (size_t i = 0; i < len;) {
        bool hit = i + fl <= len && memcmp(t + i, from, fl) == 0 &&
                   (i == 0 || !idch(t[i - 1])) && (i + fl == len || !idch(t[i + fl]));
        size_t add_n = hit ? tl : 1;
        if (n + add_n + 1 > cap) {
            cap = 2 * cap + add_n;
            o = realloc(o, cap);
            if (o == NULL)
                abort();
        }
        if (hit) {
            memcpy(o + n, to, tl);
            n += tl;
            i += fl;
        } else {
            o[n++] = t[i++];
        }
    }
    o[n] = '\0';
    *out_len = n;
    return o;
}

/* The statement of m that defines name (kind k, with a body for a function,
 * not .extern), or NULL. */
static const struct stmt *
definition(const struct mod *m, unsigned nm, const char *name, int k, unsigned *where)
{
    for (unsigned i = 0; i < nm; i++)
        for (size_t j = 0; j < m[i].n; j++) {
            const struct stmt *s = &m[i].st[j];
            if (s->kind == k && !(s->link & L_EXTERN) && (k == S_VAR || s->body) &&
                strcmp(s->name, name) == 0) {
                if (where != NULL)
                    *where = i;
                return s;
            }
        }
    return NULL;
}

static void
put(char **o, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n + len + 2 > *cap) {
        *cap = 2 * *cap + len + 2;
        *o = realloc(*o, *cap);
        if (*o == NULL)
            abort();
    }
    memcpy(*o + *n, s, len);
    *n += len;
    (*o)[*n] = '\0';
}

char *
ptxlink(char *const *text, const size_t *len, unsigned n, size_t *out_len, char *why,
        size_t why_len)
{
    struct mod *m = calloc(n ? n : 1, sizeof *m);
    if (m == NULL)
        abort();
    char *out = NULL;
    for (unsigned i = 0; i < n; i++) {
        m[i].text = malloc(len[i] + 1);
        if (m[i].text == NULL)
            abort();
        memcpy(m[i].text, text[i], len[i]);
        m[i].text[len[i]] = '\0';
        m[i].len = len[i];
        if (!cut(&m[i], why, why_len, i))
            goto done;
        /* a symbol of its own that an earlier module declares too: renamed */
        for (size_t j = 0; j < m[i].n; j++) {
            struct stmt *s = &m[i].st[j];
            if (s->kind == S_HEADER || s->link != L_NONE || s->name[0] == '\0')
                continue;
            bool clash = false;
            for (unsigned e = 0; e < i && !clash; e++)
                for (size_t k = 0; k < m[e].n && !clash; k++)
                    clash = m[e].st[k].kind != S_HEADER && strcmp(m[e].st[k].name, s->name) == 0;
            if (!clash)
                continue;
            char to[300];
            snprintf(to, sizeof to, "%s$m%u", s->name, i);
            size_t nl;
            char *r = rename_in(m[i].text, m[i].len, s->name, to, &nl);
            free(m[i].text);
            m[i].text = r;
            m[i].len = nl;
            if (!cut(&m[i], why, why_len, i))
                goto done;
            j = (size_t)-1;      /* the statements moved: again from the start */
        }
    }
    size_t on = 0, cap = 4096;
    out = malloc(cap);
    if (out == NULL)
        abort();
    out[0] = '\0';
    /* the header: the highest .version, the first module's .target and .address_size */
    double best = 0;
    const struct stmt *ver = NULL;
    for (unsigned i = 0; i < n; i++)
        for (size_t j = 0; j < m[i].n; j++)
            if (m[i].st[j].kind == S_HEADER && strncmp(m[i].st[j].s, ".version", 8) == 0 &&
                strtod(m[i].st[j].s + 8, NULL) > best) {
                best = strtod(m[i].st[j].s + 8, NULL);
                ver = &m[i].st[j];
            }
    if (ver != NULL) {
        put(&out, &on, &cap, ver->s, ver->n);
        put(&out, &on, &cap, "\n", 1);
    }
    for (size_t j = 0; n > 0 && j < m[0].n; j++)
        if (m[0].st[j].kind == S_HEADER && strncmp(m[0].st[j].s, ".version", 8) != 0) {
            put(&out, &on, &cap, m[0].st[j].s, m[0].st[j].n);
            put(&out, &on, &cap, "\n", 1);
        }
    const char *head = "\n// smsim: the modules' shared definitions, declared first\n";
    put(&out, &on, &cap, head, strlen(head));
    /* what one module declares .extern and another defines: the functions'
     * signatures and the variables themselves first */
    const char **above = NULL;   /* their names */
    size_t n_above = 0;
    for (unsigned i = 0; i < n; i++)
        for (size_t j = 0; j < m[i].n; j++) {
            const struct stmt *s = &m[i].st[j];
            if (s->kind == S_HEADER || !(s->link & L_EXTERN))
                continue;
            const struct stmt *d = definition(m, n, s->name, s->kind, NULL);
            bool done_already = false;
            for (size_t k = 0; k < n_above && !done_already; k++)
                done_already = strcmp(above[k], s->name) == 0;
            if (d == NULL || done_already)
                continue;        /* unresolved (a runtime function), or done */
            if (s->kind == S_FUNC) {
                put(&out, &on, &cap, d->s, d->sig);
                put(&out, &on, &cap, ";\n", 2);
            } else {
                put(&out, &on, &cap, d->s, d->n);
                put(&out, &on, &cap, "\n", 1);
            }
            above = realloc(above, (n_above + 1) * sizeof *above);
            if (above == NULL)
                abort();
            above[n_above++] = s->name;
        }
    for (unsigned i = 0; i < n; i++) {
        char note[64];
        snprintf(note, sizeof note, "\n// smsim: module %u\n", i);
        put(&out, &on, &cap, note, strlen(note));
        for (size_t j = 0; j < m[i].n; j++) {
            const struct stmt *s = &m[i].st[j];
            if (s->kind == S_HEADER)
                continue;
            const struct stmt *d = s->name[0] ? definition(m, n, s->name, s->kind, NULL) : NULL;
            bool is_above = false;
            for (size_t k = 0; k < n_above && !is_above; k++)
                is_above = strcmp(above[k], s->name) == 0;
            if ((s->link & L_EXTERN) && d != NULL)
                continue;        /* declared above */
            if (is_above && (s->kind == S_VAR || !s->body))
                continue;        /* the variable, or a forward declaration: above */
            if (d != NULL && d != s && s->body && (s->link & L_WEAK))
                continue;        /* a second .weak definition */
            put(&out, &on, &cap, s->s, s->n);
            put(&out, &on, &cap, "\n", 1);
        }
    }
    free(above);
    *out_len = on;
done:
    for (unsigned i = 0; i < n; i++) {
        free(m[i].text);
        free(m[i].st);
    }
    free(m);
    return out;
}
