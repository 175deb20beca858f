/*
 * cmd_sass.c - `smsim sass`: a PTX kernel as the SASS-level operations the
 * model issues for it on a GPU (frontend/ptx_lower.c, ptx_sched.c), the way
 * cuobjdump -sass shows what ptxas made of it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int
cmd_sass(int argc, char **argv)
{
    static const struct option opts[] = {
        { "launch", required_argument, NULL, 'L' },
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *launch = NULL, *config = "h100";
    const char *sets[64];
    size_t n_sets = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "L:c:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'L': launch = optarg; break;
        case 'c': config = optarg; break;
        case 's':
            if (n_sets == sizeof sets / sizeof sets[0])
                return cli_usage("sass", "too many --set");
            sets[n_sets++] = optarg;
            break;
        case 'h':
            fputs("usage: smsim sass --launch FILE [--config NAME] [--set key=value]...\n\n"
                  "Print the launch file's kernel as the model issues it on the config's GPU:\n"
                  "on sm_90 configs the SASS operations ptxas makes of the PTX (folded\n"
                  "instructions marked, expansions one line per operation) in ptxas's static\n"
                  "order, with each operation's timing class, Nsight Compute pipe, stall count\n"
                  "and register ids (destinations <- sources); elsewhere the PTX as written.\n"
                  "Columns: index, PTX line, operation, class, pipe, stall, registers.\n", stdout);
            return CLI_OK;
        default: return cli_usage("sass", "unknown option");
        }
    }
    if (optind != argc || launch == NULL)
        return cli_usage("sass", "expected --launch FILE");
    smsim_config *cfg = NULL;
    smsim_error err = { 0 };
    int status = CLI_OK;
    if (smsim_config_load(&cfg, config, sets, n_sets, &err) < 0 ||
        smsim_print_sass(stdout, launch, cfg, &err) < 0)
        status = cli_fail(&err);
    smsim_config_free(cfg);
    return status;
}
