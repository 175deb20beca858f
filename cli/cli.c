/*
 * cli.c - helpers shared by the subcommands.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int
cli_fail(const smsim_error *err)
{
    smsim_report(NULL, err->msg[0] ? err->msg : smsim_strerror(err->code));
    return smsim_exit_status(err->code);
}

static void *
checked(void *p)
{
    if (p == NULL) {
        smsim_report(NULL, "out of memory");
        exit(CLI_INTERNAL);
    }
    return p;
}

void *
cli_xmalloc(size_t n)
{
    return checked(malloc(n ? n : 1));
}

void *
cli_xcalloc(size_t count, size_t size)
{
    return checked(calloc(count ? count : 1, size ? size : 1));
}

void *
cli_xrealloc(void *p, size_t n)
{
    return checked(realloc(p, n ? n : 1));
}

char *
cli_xstrdup(const char *s)
{
    return checked(strdup(s));
}

int
cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "smsim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'smsim %s --help'.\n", cmd);
    return CLI_USAGE;
}

int
cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

char *
cli_xstrndup(const char *s, size_t n)
{
    return checked(strndup(s, n));
}
