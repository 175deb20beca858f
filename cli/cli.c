/*
 * cli.c - helpers shared by the subcommands.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

int
cli_fail(const struct sim_error *err)
{
    sim_report(NULL, err->msg[0] ? err->msg : sim_strerror(err->code));
    return sim_error_exit_status(err->code);
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
