/*
 * cmd_sass.c - `smsim sass`: a PTX kernel as the SASS-level operations the
 * model issues for it on a GPU (frontend/ptx_lower.c, ptx_sched.c), the way
 * cuobjdump -sass shows what ptxas made of it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "frontend/ptx.h"
#include "frontend/sass/sass_isa.h"
#include "sim/config.h"

static void
print_ids(FILE *out, const uint16_t *ids, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%u", i ? "," : "", ids[i]);
    if (n == 0)
        fputc('-', out);
}

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
    struct sim_config cfg;
    struct sim_error err = { 0 };
    struct inst_source src = { 0 };
    if (config_load(&cfg, config, sets, n_sets, NULL, &err) < 0 ||
        ptx_source_open(launch, &src, &err) < 0)
        return cli_fail(&err);
    if (src.ops->set_target != NULL)
        src.ops->set_target(src.ctx, cfg.gpu_cc);
    struct kernel_info ki;
    int rc = src.ops->next_kernel(src.ctx, &ki, &err);   /* reports a lowering failure */
    if (rc < 0) {
        inst_source_destroy(&src);
        return cli_fail(&err);
    }
    struct ptx_static *st = NULL;
    size_t n = ptx_source_static(&src, &st), ops = 0, ptx = 0;
    for (size_t i = 0; i < n; i++) {
        ops += !st[i].silent;
        ptx += st[i].head;
    }
    printf("# kernel %s on %s (sm_%u): %zu PTX instructions, %zu operations issue\n", ki.name,
           cfg.gpu_name, cfg.gpu_cc, ptx, ops);
    for (size_t i = 0; i < n; i++) {
        const struct ptx_static *s = &st[i];
        char line[16] = "-";
        if (s->line)
            snprintf(line, sizeof line, "%u", s->line);
        if (s->silent) {
            printf("%5zu %5s   (%s: folded)\n", i, line, s->mnemonic);
            continue;
        }
        printf("%5zu %5s %s%-26s %-9s %-5s %2u  ", i, line, s->guarded ? "@ " : "  ",
               s->mnemonic, inst_opclass_name(s->opclass), sass_npipe_name(s->npipe), s->stall);
        print_ids(stdout, s->dst, s->n_dst);
        fputs(" <- ", stdout);
        print_ids(stdout, s->src, s->n_src);
        if (s->target >= 0)
            printf("  -> %d", s->target);
        putchar('\n');
    }
    free(st);
    inst_source_destroy(&src);
    return CLI_OK;
}
