/*
 * cmd_validate.c - `smsim validate`: the Many-BSP closed form, alone on a
 * worked case or extracted from a kernel and held against the simulator.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/afile.h"
#include "validation/manybsp.h"

static void
validate_help(FILE *out)
{
    fputs("usage: smsim validate manybsp CASE [--json]\n\n"
          "manybsp  evaluate the closed-form Many-BSP model (seed 001, equations 4-27) on a\n"
          "         case file (validation/cases/*.case: the model's parameters and level-1\n"
          "         supersteps) and print every intermediate quantity and kernel_exec_cycle,\n"
          "         next to the report's own prediction and measurement\n\n"
          "  --json   print one JSON object (with at least \"kernel_exec_cycle\")\n", out);
}

struct print_arg {
    const struct manybsp_case *c;
    const struct manybsp_result *r, *corr;
};

static int
validate_manybsp(int argc, char **argv)
{
    static const struct option opts[] = {
        { "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'h': validate_help(stdout); return CLI_OK;
        default: return cli_usage("validate manybsp", "unknown option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage("validate manybsp", "expected one CASE file");
    struct manybsp_case *mc = xmalloc(sizeof *mc);
    struct manybsp_result r, corr;
    struct sim_error err = { 0 };
    int rc = manybsp_case_load(argv[optind], mc, &err);
    if (rc == SIM_OK)
        rc = manybsp_eval(&mc->in, &r, &err);
    const struct manybsp_result *cp = NULL;
    if (rc == SIM_OK && manybsp_case_has_overrides(mc)) {
        struct manybsp_input fixed = mc->in;
        fixed.ov = (struct manybsp_overrides){ -1, -1, -1, -1 };
        rc = manybsp_eval(&fixed, &corr, &err);
        cp = &corr;
    }
    if (rc < 0) {
        free(mc);
        return cli_fail(&err);
    }
    if (json)
        manybsp_print_json(stdout, mc, &r, cp);
    else
        manybsp_print(stdout, mc, &r, cp);
    free(mc);
    return CLI_OK;
}

int
cmd_validate(int argc, char **argv)
{
    if (argc < 2) {
        validate_help(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        validate_help(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "manybsp") == 0)
        return validate_manybsp(argc - 1, argv + 1);
    return cli_usage("validate", "unknown subcommand '%s'", argv[1]);
}
