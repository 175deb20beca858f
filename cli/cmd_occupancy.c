/*
 * cmd_occupancy.c - `smsim occupancy`: the occupancy calculator.
 *
 * The block scheduler's own rules (sim/occupancy.c) applied to one kernel
 * shape: how many blocks fit on an SM, what limits them, and the warp
 * occupancy that gives.  doc/occupancy.md explains the rules.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void
occ_help(FILE *out)
{
    fputs("usage: smsim occupancy [--config NAME] [--set key=value]... --block THREADS\n"
          "                       [--regs REGS_PER_THREAD] [--smem BYTES_PER_BLOCK] [--json]\n\n"
          "Blocks per SM, active warps, occupancy and the limiting resource of a kernel,\n"
          "by the rules the block scheduler uses (NVIDIA's occupancy calculator:\n"
          "registers allocated per warp in sm.reg_alloc_unit and split among the\n"
          "sub-partitions, shared memory per block plus sm.smem_reserved rounded to\n"
          "sm.smem_alloc_unit; doc/occupancy.md).\n\n"
          "  --config NAME     GPU config (default h100)\n"
          "  --set key=value   override a config field (repeatable)\n"
          "  --block THREADS   threads per block\n"
          "  --regs N          registers per thread (default 32)\n"
          "  --smem BYTES      static + dynamic shared memory per block (default 0;\n"
          "                    a K suffix multiplies by 1024)\n"
          "  --json            print a JSON object instead of text\n\n"
          "Exit status 2 if not even one block fits.\n", out);
}

static int
parse_bytes(const char *s, uint64_t *out)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n + 1);
    uint64_t mul = 1;
    if (buf[n - 1] == 'K' || buf[n - 1] == 'k') {
        mul = 1024;
        buf[n - 1] = '\0';
    }
    if (cli_parse_u64(buf, out) < 0 || *out > UINT32_MAX / mul)
        return -1;
    *out *= mul;
    return 0;
}

int
cmd_occupancy(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "block", required_argument, NULL, 'b' },
        { "regs", required_argument, NULL, 'r' },
        { "smem", required_argument, NULL, 'm' },
        { "json", no_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *config = "h100";
    const char **sets = cli_xcalloc((size_t)argc, sizeof *sets);
    size_t n_sets = 0;
    uint64_t block = 0, regs = 32, smem = 0;
    bool json = false;
    int c, status = CLI_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:b:r:m:Jh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 's': sets[n_sets++] = optarg; break;
        case 'b':
            if (cli_parse_u64(optarg, &block) < 0 || block == 0 || block > UINT32_MAX) {
                free(sets);
                return cli_usage("occupancy", "--block takes a positive number of threads");
            }
            break;
        case 'r':
            if (cli_parse_u64(optarg, &regs) < 0 || regs > 65536) {
                free(sets);
                return cli_usage("occupancy", "--regs takes a number of registers per thread");
            }
            break;
        case 'm':
            if (parse_bytes(optarg, &smem) < 0) {
                free(sets);
                return cli_usage("occupancy", "--smem takes bytes per block (e.g. 49152 or 48K)");
            }
            break;
        case 'J': json = true; break;
        case 'h': occ_help(stdout); free(sets); return CLI_OK;
        default: free(sets); return cli_usage("occupancy", "unknown option");
        }
    }
    if (optind != argc) {
        free(sets);
        return cli_usage("occupancy", "unexpected argument '%s'", argv[optind]);
    }
    if (block == 0) {
        free(sets);
        return cli_usage("occupancy", "--block THREADS is required");
    }
    smsim_config *cfg = NULL;
    smsim_error err = { 0 };
    if (smsim_config_load(&cfg, config, sets, n_sets, &err) < 0 ||
        smsim_print_occupancy(stdout, cfg, config, (uint32_t)block, (uint32_t)regs,
                              (uint32_t)smem, json, &err) < 0)
        status = cli_fail(&err);
    smsim_config_free(cfg);
    free(sets);
    return status;
}
