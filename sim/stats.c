/*
 * stats.c - registry of named counters, snapshots, text/JSON printers.
 */
#include "sim/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/error.h"

enum stat_kind { STAT_SCALAR, STAT_VEC, STAT_RATIO };

struct stat {
    const char *name;
    const char *unit;
    const char *help;
    enum stat_kind kind;
    const uint64_t *ptr;         /* scalar / vec base */
    size_t stride;               /* vec: bytes between elements */
    size_t count;                /* vec: elements */
    const char *instance;        /* vec: what an index is */
    size_t first;                /* index of first value in a snapshot */
    long num, den;               /* ratio: indices of the operand stats */
    double scale;                /* ratio */
};

struct stats {
    struct stat *s;
    size_t n, cap;
    size_t n_values;             /* snapshot length */
};

stats *
stats_new(void)
{
    return xcalloc(1, sizeof(stats));
}

void
stats_destroy(stats *st)
{
    if (st == NULL)
        return;
    free(st->s);
    free(st);
}

static long
find(const stats *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->s[i].name, name) == 0)
            return (long)i;
    return -1;
}

static struct stat *
add(stats *st, const char *name)
{
    if (find(st, name) >= 0)
        SIM_PANIC("statistic '%s' registered twice", name);
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 64;
        st->s = xrealloc(st->s, st->cap * sizeof *st->s);
    }
    struct stat *s = &st->s[st->n++];
    memset(s, 0, sizeof *s);
    s->name = name;
    return s;
}

void
stats_add_u64(stats *st, const char *name, const uint64_t *ptr, const char *unit,
              const char *help)
{
    struct stat *s = add(st, name);
    s->kind = STAT_SCALAR;
    s->ptr = ptr;
    s->count = 1;
    s->unit = unit;
    s->help = help;
    s->first = st->n_values;
    st->n_values += 1;
}

void
stats_add_vec(stats *st, const char *name, const uint64_t *base, size_t stride, size_t count,
              const char *instance, const char *unit, const char *help)
{
    struct stat *s = add(st, name);
    s->kind = STAT_VEC;
    s->ptr = base;
    s->stride = stride;
    s->count = count;
    s->instance = instance;
    s->unit = unit;
    s->help = help;
    s->first = st->n_values;
    st->n_values += count;
}

void
stats_add_ratio(stats *st, const char *name, const char *num, const char *den, double scale,
                const char *unit, const char *help)
{
    long in = find(st, num), id = find(st, den);
    if (in < 0 || id < 0 || st->s[in].kind == STAT_RATIO || st->s[id].kind == STAT_RATIO)
        SIM_PANIC("ratio '%s': operands '%s' / '%s' must be registered counters", name, num, den);
    struct stat *s = add(st, name);
    s->kind = STAT_RATIO;
    s->num = in;
    s->den = id;
    s->scale = scale;
    s->unit = unit;
    s->help = help;
    /* per-instance ratio only when both are vectors of the same length */
    s->count = (st->s[in].kind == STAT_VEC && st->s[id].kind == STAT_VEC &&
                st->s[in].count == st->s[id].count) ? st->s[in].count : 1;
    s->instance = s->count > 1 ? st->s[in].instance : NULL;
}

void
stats_snapshot_init(const stats *st, struct stats_snapshot *s)
{
    s->n = st->n_values;
    s->v = xcalloc(s->n ? s->n : 1, sizeof *s->v);
}

void
stats_snapshot_take(const stats *st, struct stats_snapshot *s)
{
    SIM_ASSERT(s->n == st->n_values);
    for (size_t i = 0; i < st->n; i++) {
        const struct stat *t = &st->s[i];
        if (t->kind == STAT_SCALAR) {
            s->v[t->first] = *t->ptr;
        } else if (t->kind == STAT_VEC) {
            for (size_t k = 0; k < t->count; k++)
                s->v[t->first + k] =
                    *(const uint64_t *)(const void *)((const char *)t->ptr + k * t->stride);
        }
    }
}

void
stats_snapshot_diff(struct stats_snapshot *out, const struct stats_snapshot *a,
                    const struct stats_snapshot *b)
{
    SIM_ASSERT(out->n == a->n && a->n == b->n);
    for (size_t i = 0; i < a->n; i++)
        out->v[i] = a->v[i] - b->v[i];
}

void
stats_snapshot_free(struct stats_snapshot *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

static size_t
put_varint(uint8_t *b, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    return n;
}

static uint64_t
get_varint(const uint8_t *b, size_t *at)
{
    uint64_t v = 0;
    for (unsigned sh = 0; sh < 64; sh += 7) {
        uint8_t c = b[(*at)++];
        v |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80))
            break;
    }
    return v;
}

void
stats_pack(struct stats_packed *p, const struct stats_snapshot *s)
{
    /* runs of one non-zero value: (zeros skipped, value, length - 1); the
     * per-SM values of a counter sit side by side and are often equal
     * (every SM's cycles, pipe slots) */
    size_t runs = 0;
    for (size_t i = 0; i < s->n; i++)
        runs += s->v[i] != 0 && (i == 0 || s->v[i] != s->v[i - 1]);
    uint8_t *b = xmalloc(runs * 30 + 1);   /* three varints of at most 10 bytes each */
    size_t len = 0, last = 0;
    for (size_t i = 0; i < s->n;) {
        if (s->v[i] == 0) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < s->n && s->v[j] == s->v[i])
            j++;
        len += put_varint(b + len, i - last);
        len += put_varint(b + len, s->v[i]);
        len += put_varint(b + len, j - i - 1);
        last = i = j;
    }
    p->b = xrealloc(b, len ? len : 1);
    p->len = len;
    p->n = s->n;
}

void
stats_unpack(const struct stats_packed *p, struct stats_snapshot *s)
{
    SIM_ASSERT(s->n == p->n);
    memset(s->v, 0, s->n * sizeof *s->v);
    size_t at = 0, i = 0;
    while (at < p->len) {
        i += get_varint(p->b, &at);
        uint64_t v = get_varint(p->b, &at);
        uint64_t k = get_varint(p->b, &at) + 1;
        SIM_ASSERT(i + k <= s->n);
        while (k-- > 0)
            s->v[i++] = v;
    }
}

void
stats_packed_free(struct stats_packed *p)
{
    free(p->b);
    p->b = NULL;
    p->len = p->n = 0;
}

static uint64_t
total(const struct stat *t, const struct stats_snapshot *s)
{
    uint64_t sum = 0;
    for (size_t k = 0; k < t->count; k++)
        sum += s->v[t->first + k];
    return sum;
}

static double
ratio_value(const stats *st, const struct stat *t, const struct stats_snapshot *s, long inst)
{
    const struct stat *n = &st->s[t->num], *d = &st->s[t->den];
    double nv, dv;
    if (inst < 0) {
        nv = (double)total(n, s);
        dv = (double)total(d, s);
    } else {
        nv = (double)s->v[n->first + (size_t)inst];
        dv = (double)s->v[d->first + (size_t)inst];
    }
    return dv == 0 ? 0.0 : t->scale * nv / dv;
}

uint64_t
stats_get(const stats *st, const struct stats_snapshot *s, const char *name)
{
    long i = find(st, name);
    if (i < 0 || st->s[i].kind == STAT_RATIO)
        return UINT64_MAX;
    return total(&st->s[i], s);
}

size_t
stats_instances(const stats *st, const char *name)
{
    long i = find(st, name);
    return i < 0 || st->s[i].kind == STAT_RATIO ? 0 : st->s[i].count;
}

uint64_t
stats_get_at(const stats *st, const struct stats_snapshot *s, const char *name, size_t inst)
{
    long i = find(st, name);
    if (i < 0 || st->s[i].kind == STAT_RATIO || inst >= st->s[i].count)
        return UINT64_MAX;
    return s->v[st->s[i].first + inst];
}

double
stats_get_ratio(const stats *st, const struct stats_snapshot *s, const char *name)
{
    long i = find(st, name);
    if (i < 0 || st->s[i].kind != STAT_RATIO)
        return NAN;
    return ratio_value(st, &st->s[i], s, -1);
}

void
stats_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        unsigned u = c >= 0x80 ? sim_utf8_len(s) : 0;
        if (u > 0) {                 /* a UTF-8 character as it is */
            fwrite(s, 1, u, out);
            s += u - 1;
        } else if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20 || c >= 0x7f) {
            fprintf(out, "\\u%04x", c);    /* a byte that is not UTF-8: as that code point */
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}

void
stats_json_double(FILE *out, double v)
{
    if (!isfinite(v))
        v = 0.0;
    if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, "%.1f", v);
    else
        fprintf(out, "%.6g", v);
}

void
stats_print_text(FILE *out, const stats *st, const struct stats_snapshot *s, bool per_instance)
{
    for (size_t i = 0; i < st->n; i++) {
        const struct stat *t = &st->s[i];
        if (t->kind == STAT_RATIO)
            fprintf(out, "%-36s %18.4f %s\n", t->name, ratio_value(st, t, s, -1), t->unit);
        else
            fprintf(out, "%-36s %18" PRIu64 " %s\n", t->name, total(t, s), t->unit);
        if (!per_instance || t->count <= 1)
            continue;
        for (size_t k = 0; k < t->count; k++) {
            char nm[128];
            snprintf(nm, sizeof nm, "  %s[%zu]", t->name, k);
            if (t->kind == STAT_RATIO)
                fprintf(out, "%-36s %18.4f %s\n", nm, ratio_value(st, t, s, (long)k), t->unit);
            else
                fprintf(out, "%-36s %18" PRIu64 " %s\n", nm, s->v[t->first + k], t->unit);
        }
    }
}

static void
indent_to(FILE *out, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', out);
}

void
stats_print_json(FILE *out, const stats *st, const struct stats_snapshot *s, int indent)
{
    /* totals first, then one object per instance kind with arrays */
    bool first = true;
    for (size_t i = 0; i < st->n; i++) {
        const struct stat *t = &st->s[i];
        fputs(first ? "" : ",\n", out);
        first = false;
        indent_to(out, indent);
        stats_json_string(out, t->name);
        fputs(": ", out);
        if (t->kind == STAT_RATIO)
            stats_json_double(out, ratio_value(st, t, s, -1));
        else
            fprintf(out, "%" PRIu64, total(t, s));
    }
    /* per-instance arrays, grouped by instance kind in first-seen order */
    const char *kinds[16];
    size_t nk = 0;
    for (size_t i = 0; i < st->n; i++) {
        const char *k = st->s[i].count > 1 ? st->s[i].instance : NULL;
        if (k == NULL)
            continue;
        bool seen = false;
        for (size_t j = 0; j < nk; j++)
            seen = seen || strcmp(kinds[j], k) == 0;
        if (!seen && nk < SIM_ARRAY_LEN(kinds))
            kinds[nk++] = k;
    }
    for (size_t j = 0; j < nk; j++) {
        fputs(first ? "" : ",\n", out);
        first = false;
        indent_to(out, indent);
        fprintf(out, "\"per_%s\": {\n", kinds[j]);
        bool f2 = true;
        for (size_t i = 0; i < st->n; i++) {
            const struct stat *t = &st->s[i];
            if (t->count <= 1 || t->instance == NULL || strcmp(t->instance, kinds[j]) != 0)
                continue;
            fputs(f2 ? "" : ",\n", out);
            f2 = false;
            indent_to(out, indent + 2);
            stats_json_string(out, t->name);
            fputs(": [", out);
            for (size_t k = 0; k < t->count; k++) {
                if (k)
                    fputs(", ", out);
                if (t->kind == STAT_RATIO)
                    stats_json_double(out, ratio_value(st, t, s, (long)k));
                else
                    fprintf(out, "%" PRIu64, s->v[t->first + k]);
            }
            fputc(']', out);
        }
        fputc('\n', out);
        indent_to(out, indent);
        fputc('}', out);
    }
    if (!first)
        fputc('\n', out);
}

void
stats_print_reference(FILE *out, const stats *st)
{
    fputs("| statistic | kind | unit | meaning |\n|---|---|---|---|\n", out);
    for (size_t i = 0; i < st->n; i++) {
        const struct stat *t = &st->s[i];
        char kind[96];
        if (t->kind == STAT_SCALAR)
            snprintf(kind, sizeof kind, "counter");
        else if (t->kind == STAT_VEC)
            snprintf(kind, sizeof kind, "counter per %s", t->instance);
        else
            snprintf(kind, sizeof kind, "%s / %s%s", st->s[t->num].name, st->s[t->den].name,
                     t->scale != 1.0 ? " (scaled)" : "");
        fprintf(out, "| `%s` | %s | %s | %s |\n", t->name, kind, t->unit[0] ? t->unit : "-",
                t->help);
    }
}
