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
#include "sim/config.h"
#include "sim/occupancy.h"
#include "sim/stats.h"

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

static void
print_text(const struct sim_config *c, const char *name, uint32_t regs, uint32_t smem,
           const struct occ_result *r)
{
    static const char *const what[OCC_LIMIT_COUNT] = {
        "block slots (sm.max_blocks)", "warp slots (sm.max_warps)",
        "thread slots (sm.max_threads)", "registers (sm.registers)",
        "shared memory (sm.smem_size)"
    };
    printf("%s (%s): blocks of %u threads, %u registers/thread, %u B shared memory/block\n",
           name, c->gpu_name, r->threads_per_block, regs, smem);
    printf("  a block takes %u warps, %u registers per warp, %u B of shared memory "
           "(with %u B reserved)\n", r->warps_per_block, r->regs_per_warp, r->smem_per_block,
           c->sm_smem_reserved);
    printf("  blocks per SM allowed by:\n");
    for (int l = 0; l < OCC_LIMIT_COUNT; l++) {
        if (r->limit[l] == UINT32_MAX)
            printf("    %-32s unlimited\n", what[l]);
        else
            printf("    %-32s %u%s\n", what[l], r->limit[l],
                   (enum occ_limiter)l == r->limiter ? "  <- limiter" : "");
    }
    printf("  %u blocks/SM = %u of %u warps = %.1f %% occupancy, limited by %s\n",
           r->blocks_per_sm, r->active_warps, c->sm_max_warps, 100.0 * r->occupancy,
           occupancy_limiter_name(r->limiter));
}

static void
print_json(const struct sim_config *c, const char *name, uint32_t regs, uint32_t smem,
           const struct occ_result *r)
{
    fputs("{\"config\": ", stdout);
    stats_json_string(stdout, name);
    fputs(", \"gpu\": ", stdout);
    stats_json_string(stdout, c->gpu_name);
    printf(", \"threads_per_block\": %u, \"regs_per_thread\": %u, \"smem_per_block\": %u,\n"
           " \"warps_per_block\": %u, \"regs_per_warp\": %u, \"smem_allocated_per_block\": %u,\n"
           " \"limits\": {", r->threads_per_block, regs, smem, r->warps_per_block,
           r->regs_per_warp, r->smem_per_block);
    for (int l = 0; l < OCC_LIMIT_COUNT; l++) {
        printf("%s\"%s\": ", l ? ", " : "", occupancy_limiter_name((enum occ_limiter)l));
        if (r->limit[l] == UINT32_MAX)
            fputs("null", stdout);
        else
            printf("%u", r->limit[l]);
    }
    printf("},\n \"blocks_per_sm\": %u, \"active_warps\": %u, \"max_warps\": %u, "
           "\"occupancy\": ", r->blocks_per_sm, r->active_warps, c->sm_max_warps);
    stats_json_double(stdout, r->occupancy);
    printf(", \"limiter\": \"%s\"}\n", occupancy_limiter_name(r->limiter));
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
    const char **sets = xcalloc((size_t)argc, sizeof *sets);
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
    struct sim_config cfg;
    struct sim_error err = { 0 };
    struct occ_result r;
    if (config_load(&cfg, config, sets, n_sets, NULL, &err) < 0 ||
        occupancy_compute(&cfg, (uint32_t)block, (uint32_t)regs, (uint32_t)smem, &r, &err) < 0)
        status = cli_fail(&err);
    else if (json)
        print_json(&cfg, config, (uint32_t)regs, (uint32_t)smem, &r);
    else
        print_text(&cfg, config, (uint32_t)regs, (uint32_t)smem, &r);
    free(sets);
    return status;
}
