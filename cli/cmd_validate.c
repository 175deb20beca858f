/*
 * cmd_validate.c - `smsim validate`: the Many-BSP closed form, alone on a
 * worked case or extracted from a kernel and held against the simulator.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void
validate_help(FILE *out)
{
    fputs("usage: smsim validate manybsp CASE [--json]\n"
          "       smsim validate --launch FILE [--config NAME] [--set key=value]...\n"
          "                      [--measured CYCLES] [--threshold PCT] [--tables] [--json]\n\n"
          "manybsp  evaluate the closed-form Many-BSP model (seed 001, equations 4-27) on a\n"
          "         case file (validation/cases/*.case: the model's parameters and level-1\n"
          "         supersteps) and print every intermediate quantity and kernel_exec_cycle,\n"
          "         next to the report's own prediction and measurement\n\n"
          "  --json   print one JSON object (with at least \"kernel_exec_cycle\")\n\n"
          "--launch  the cross-check: simulate the launch file's kernel on the GPU (default\n"
          "         h100), extract its Many-BSP model from the PTX (doc/manybsp.md) and\n"
          "         evaluate it, and compare both with the measured cycles when given\n"
          "         (--measured) or listed in validation/measured.tsv (the seed's), else\n"
          "         in validation/measured/*.tsv (real GPUs; the first row found counts).\n"
          "         The verdict holds the simulation against the measurement (else\n"
          "         against Many-BSP): exit 0 when within\n"
          "         --threshold percent (default 15), 4 beyond.\n"
          "  --tables print the extracted tables x-1/x-2/x-3 too\n", out);
}

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
    smsim_error err = { 0 };
    if (smsim_validate_case(stdout, argv[optind], json, &err) < 0)
        return cli_fail(&err);
    return CLI_OK;
}

static int
validate_launch(int argc, char **argv)
{
    static const struct option opts[] = {
        { "launch", required_argument, NULL, 'L' }, { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' }, { "measured", required_argument, NULL, 'm' },
        { "threshold", required_argument, NULL, 't' }, { "tables", no_argument, NULL, 'T' },
        { "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *launch = NULL, *config = "h100";
    const char **sets = cli_xcalloc((size_t)argc, sizeof *sets);
    size_t n_sets = 0;
    double measured = -1, threshold = 15;
    bool json = false, tables = false;
    int c, status = CLI_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, "L:c:s:m:t:Tjh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'L': launch = optarg; break;
        case 'c': config = optarg; break;
        case 's': sets[n_sets++] = optarg; break;
        case 'm':
            measured = strtod(optarg, &end);
            if (*end != '\0' || !(measured > 0)) {
                free(sets);
                return cli_usage("validate", "--measured takes a positive number of cycles");
            }
            break;
        case 't':
            threshold = strtod(optarg, &end);
            if (*end != '\0' || !(threshold >= 0)) {
                free(sets);
                return cli_usage("validate", "--threshold takes a percentage");
            }
            break;
        case 'T': tables = true; break;
        case 'j': json = true; break;
        case 'h': validate_help(stdout); free(sets); return CLI_OK;
        default: free(sets); return cli_usage("validate", "unknown option");
        }
    }
    if (optind != argc || launch == NULL) {
        free(sets);
        return cli_usage("validate", "expected --launch FILE");
    }
    smsim_error err = { 0 };
    struct smsim_validate_opts o = { launch, config, sets, n_sets, measured, threshold, tables,
                                     json };
    bool within = false;
    if (smsim_validate_launch(stdout, &o, &within, &err) < 0)
        status = cli_fail(&err);
    else if (!within)
        status = CLI_VERDICT;
    free(sets);
    return status;
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
    if (argv[1][0] == '-')
        return validate_launch(argc, argv);
    return cli_usage("validate", "unknown subcommand '%s'", argv[1]);
}
