/*
 * cli.h - shared pieces of the smsim command-line tool.
 *
 * The CLI sees libsmsim's public header (lib/smsim.h) and nothing else of
 * the simulator: it parses arguments, calls the library and prints.  Each
 * subcommand is a function (argc, argv) -> exit status:
 *   0 success, 1 usage error, 2 bad input (file, config, trace),
 *   3 internal error, 4 validation verdict beyond threshold (validate).
 */
#ifndef SMSIM_CLI_CLI_H
#define SMSIM_CLI_CLI_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/smsim.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum cli_exit {
    CLI_OK = 0,
    CLI_USAGE = 1,
    CLI_BAD_INPUT = 2,
    CLI_INTERNAL = 3,
    CLI_VERDICT = 4
};

/* Print "smsim: <message>" for err and return its exit status. */
int cli_fail(const smsim_error *err);

/* Allocation that never returns NULL (exit 3 when memory runs out). */
void *cli_xmalloc(size_t n);
void *cli_xcalloc(size_t count, size_t size);
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrdup(const char *s);
char *cli_xstrndup(const char *s, size_t n);

/* Print "smsim CMD: <message>\nTry 'smsim CMD --help'." and return 1. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse an unsigned integer argument; returns 0 on success. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Where instructions come from: exactly one of trace, synth, launch. */
struct cli_input {
    const char *trace;           /* a .smt file or an Accel-Sim trace */
    const char *synth;           /* a synthetic kernel spec */
    const char *launch;          /* a PTX launch file */
    const char *outdir;          /* --output-dir: base of the launch file's relative outputs */
    int unknown_opcode;          /* enum smsim_unknown_opcode (--unknown-opcode) */
};

/* Parse --unknown-opcode's value ("error" or "alu"); -1 if neither. */
int cli_parse_unknown_opcode(const char *s);

/* Open the instruction source of in.  Defined in cmd_run.c. */
int cli_open_source(const struct cli_input *in, smsim_source **src, smsim_error *err);

/* Count the inputs given; 1 is required. */
int cli_input_count(const struct cli_input *in);

int cmd_run(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_emulate(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_sass(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

#endif /* SMSIM_CLI_CLI_H */
