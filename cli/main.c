/*
 * main.c - smsim entry point: subcommand dispatch, --help, --version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    { "run", cmd_run, "simulate the kernels of a trace on a configured GPU" },
    { "config", cmd_config, "list, show, compare and document GPU configurations" },
    { "trace", cmd_trace, "inspect, verify, dump and record .smt traces" },
    { "exec", cmd_exec, "run a whole CUDA program on the simulated GPU, unmodified" },
    { "emulate", cmd_emulate, "execute a PTX kernel functionally (no timing) and write its outputs" },
    { "sass", cmd_sass, "a PTX kernel as the SASS-level operations the model issues" },
    { "stats", cmd_stats, "document the statistics smsim reports" },
    { "occupancy", cmd_occupancy, "blocks per SM, occupancy and the limiting resource of a kernel" },
    { "sweep", cmd_sweep, "what-if sweeps of config fields over kernels, locally or on a cluster" },
    { "plot", cmd_plot, "charts (SVG, PNG) of statistics, windows and validation results" },
    { "validate", cmd_validate, "the Many-BSP closed-form model and its cross-check" },
};

static void
usage(FILE *out)
{
    fprintf(out, "usage: smsim COMMAND [OPTIONS]\n"
                 "       smsim --version | --help\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'smsim COMMAND --help' describes a command.\n"
                 "exit status: 0 success, 1 usage error, 2 bad input (file, config, trace),\n"
                 "             3 internal error, 4 validation verdict beyond threshold\n");
}

/* What the command wrote to stdout must have reached it (a full disk, a
 * closed pipe's EPIPE is not ignored): else exit 2, whatever the command
 * returned, unless it had failed already. */
static int
stdout_flushed(int status)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    smsim_reportf(NULL, "cannot write the standard output: %s",
                errno != 0 ? strerror(errno) : "write error");
    return status != CLI_OK ? status : CLI_BAD_INPUT;
}

static int dispatch(int argc, char **argv);

int
main(int argc, char **argv)
{
    smsim_cleanup_on_signals();
    return stdout_flushed(dispatch(argc, argv));
}

static int
dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            char *sub[] = { argv[2], (char *)"--help", NULL };
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(commands[i].name, argv[2]) == 0)
                    return commands[i].fn(2, sub);
            fprintf(stderr, "smsim: unknown command '%s'\n", argv[2]);
            return CLI_USAGE;
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("smsim %s\n", PACKAGE_VERSION);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, argv[1]) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "smsim: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
