/*
 * error.c - error reports, panics and the allocation wrappers.
 */
#include "sim/error.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
sim_strerror(int code)
{
    switch (code) {
    case SIM_OK: return "success";
    case SIM_ERR_IO: return "I/O error";
    case SIM_ERR_FORMAT: return "format error";
    case SIM_ERR_CONFIG: return "configuration error";
    case SIM_ERR_NOMEM: return "size limit exceeded";
    case SIM_ERR_UNSUPPORTED: return "unsupported";
    case SIM_ERR_USAGE: return "usage error";
    case SIM_ERR_INTERNAL: return "internal error";
    default: return "unknown error";
    }
}

/* Names longer than NAME_LONG characters (CUTLASS's kernels have names
 * of 1,500) are cut to their first NAME_KEPT and "..." in a message that
 * would not fit otherwise, so that the part after them (what went wrong)
 * is not what is lost. */
enum { NAME_LONG = 128, NAME_KEPT = 96 };

static bool
name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '.';
}

/* Copy src into dst[SIM_ERRMSG_MAX]: as it is if it fits, else with its
 * long names shortened (and then cut at the end if still too long). */
static void
fit_message(char *dst, const char *src)
{
    size_t len = strlen(src);
    if (len < SIM_ERRMSG_MAX) {
        memcpy(dst, src, len + 1);
        return;
    }
    size_t o = 0;
    for (const char *p = src; *p != '\0' && o < SIM_ERRMSG_MAX - 1;) {
        size_t run = 0;
        while (name_char(p[run]))
            run++;
        if (run == 0)
            run = 1;
        size_t keep = run > NAME_LONG ? NAME_KEPT : run;
        for (size_t i = 0; i < keep && o < SIM_ERRMSG_MAX - 1; i++)
            dst[o++] = p[i];
        for (size_t i = 0; keep < run && i < 3 && o < SIM_ERRMSG_MAX - 1; i++)
            dst[o++] = '.';
        p += run;
    }
    dst[o] = '\0';
}

int
sim_error_vset(struct sim_error *e, int code, const char *fmt, va_list ap)
{
    if (e != NULL) {
        e->code = code;
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        if (n >= (int)sizeof e->msg) {           /* too long: shorten its names */
            char *full = malloc((size_t)n + 1);
            if (full != NULL) {
                vsnprintf(full, (size_t)n + 1, fmt, aq);
                fit_message(e->msg, full);
                free(full);
            }
        }
        va_end(aq);
    }
    return code;
}

int
sim_error_set(struct sim_error *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_error_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

void
sim_error_prefix(struct sim_error *e, const char *fmt, ...)
{
    va_list ap;

    if (e == NULL)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t b = strlen(e->msg);
    char *full = n < 0 ? NULL : malloc((size_t)n + b + 1);
    if (full == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(full, (size_t)n + 1, fmt, ap);
    va_end(ap);
    memcpy(full + n, e->msg, b + 1);
    fit_message(e->msg, full);
    free(full);
}

void
sim_error_clear(struct sim_error *e)
{
    if (e != NULL) {
        e->code = SIM_OK;
        e->msg[0] = '\0';
    }
}

int
sim_error_exit_status(int code)
{
    if (code == SIM_OK)
        return 0;
    if (code == SIM_ERR_USAGE)
        return 1;
    if (code == SIM_ERR_INTERNAL)
        return 3;
    return 2;
}

unsigned
sim_utf8_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (unsigned i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

void
sim_escape(char *buf, size_t n, const char *msg)
{
    const unsigned char *p = (const unsigned char *)msg;
    size_t o = 0;
    if (n == 0)
        return;
    while (*p != '\0') {
        unsigned u = *p >= 0x80 ? sim_utf8_len((const char *)p) : 0;
        if (u > 0) {                             /* a whole UTF-8 character */
            if (o + u >= n)
                break;
            memcpy(buf + o, p, u);
            o += u;
            p += u;
        } else if (*p == '\n' || *p == '\t') {   /* one line: a quoted tool's output */
            if (o + 1 >= n)
                break;
            if (p[1] != '\0')
                buf[o++] = ' ';
            p++;
        } else if (*p < 0x20 || *p == 0x7f || *p >= 0x80) {
            if (o + 4 >= n)
                break;
            snprintf(buf + o, n - o, "\\x%02x", *p);
            o += 4;
            p++;
        } else {
            if (o + 1 >= n)
                break;
            buf[o++] = (char)*p++;
        }
    }
    buf[o] = '\0';
}

void
sim_report(const char *kind, const char *msg)
{
    char buf[4 * SIM_ERRMSG_MAX + 1];
    sim_escape(buf, sizeof buf, msg);
    if (kind != NULL)
        fprintf(stderr, "smsim: %s: %s\n", kind, buf);
    else
        fprintf(stderr, "smsim: %s\n", buf);
}

void
sim_vreportf(const char *kind, const char *fmt, va_list ap)
{
    char msg[2 * SIM_ERRMSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    sim_report(kind, msg);
}

void
sim_reportf(const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_vreportf(kind, fmt, ap);
    va_end(ap);
}

_Noreturn void
sim_panic_at(const char *file, int line, sim_cycle_t cycle, const char *fmt, ...)
{
    va_list ap;
    char msg[2 * SIM_ERRMSG_MAX];

    fflush(stdout);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cycle == SIM_NO_CYCLE)
        sim_reportf(NULL, "internal error at %s:%d: %s", file, line, msg);
    else
        sim_reportf(NULL, "internal error at %s:%d (cycle %" PRIu64 "): %s", file, line, cycle,
                    msg);
    fflush(stderr);
    if (getenv("SMSIM_ABORT") != NULL)
        abort();
    exit(3);
}

static _Noreturn void
out_of_memory(size_t n)
{
    fprintf(stderr, "smsim: out of memory allocating %zu bytes\n", n);
    exit(3);
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        out_of_memory(n);
    return p;
}

void *
xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        out_of_memory(count * size);
    return p;
}

void *
xcalloc_aligned(size_t count, size_t size, size_t align)
{
    if (size != 0 && count > SIZE_MAX / size)
        out_of_memory(SIZE_MAX);
    size_t n = count * size;
    n = n == 0 ? align : (n + align - 1) / align * align;   /* aligned_alloc wants a multiple */
    void *p = aligned_alloc(align, n);
    if (p == NULL)
        out_of_memory(n);
    memset(p, 0, n);
    return p;
}

void *
xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        out_of_memory(n);
    return q;
}

char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

char *
xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
