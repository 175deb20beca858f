/*
 * cmd_run.c - `smsim run`: simulate the kernels of a trace on a GPU config.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "frontend/smt.h"
#include "frontend/synth.h"
#include "sim/afile.h"
#include "sim/config.h"
#include "sim/report.h"
#include "sim/sim.h"

#define DEFAULT_CONFIG "h100"

static void
run_help(FILE *out)
{
    fputs("usage: smsim run [--config NAME] [--set key=value]... (--trace FILE | --synth SPEC)\n"
          "                 [--stats-json FILE] [--stats FILE] [--per-sm] [--quiet]\n\n"
          "Simulate every kernel of the input on a GPU configuration and print a summary.\n\n"
          "  --config NAME       GPU config name or .cfg path (default " DEFAULT_CONFIG ";\n"
          "                      'smsim config list' shows the names)\n"
          "  --set key=value     override a config field (repeatable)\n"
          "  --trace FILE        a .smt trace\n"
          "  --synth SPEC        a synthetic kernel (see below)\n"
          "  --stats-json FILE   write every statistic as JSON ('-' = stdout)\n"
          "  --stats FILE        write every statistic as text, per SM too\n"
          "  --per-sm            print per-SM statistics in the summary\n"
          "  --quiet             no summary on stdout\n\n", out);
    synth_print_help(out);
}

int
cli_open_source(const char *trace, const char *synth, struct inst_source *src,
                struct sim_error *err)
{
    if (synth != NULL)
        return synth_source_open(synth, src, err);
    if (smt_sniff(trace))
        return smt_source_open(trace, src, err);
    FILE *fp = fopen(trace, "rb");
    if (fp == NULL)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot open trace", trace);
    fclose(fp);
    return sim_error_set(err, SIM_ERR_FORMAT,
                         "%s: byte offset 0: not a trace smsim reads (expected a .smt file)", trace);
}

struct text_arg {
    const sim *s;
    const char *config;
};

static void
print_json(FILE *fp, void *arg)
{
    struct text_arg *a = arg;
    report_json(fp, a->s, a->config);
}

static void
print_stats(FILE *fp, void *arg)
{
    struct text_arg *a = arg;
    report_text(fp, a->s, a->config, true);
}

int
cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "trace", required_argument, NULL, 't' },
        { "synth", required_argument, NULL, 'y' },
        { "stats-json", required_argument, NULL, 'j' },
        { "stats", required_argument, NULL, 'S' },
        { "per-sm", no_argument, NULL, 'p' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *config = DEFAULT_CONFIG, *trace = NULL, *synth = NULL;
    const char *json = NULL, *text = NULL;
    const char **sets = xcalloc((size_t)argc, sizeof *sets);
    size_t n_sets = 0;
    bool per_sm = false, quiet = false;
    int c, status = CLI_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:t:y:j:S:pqh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 's': sets[n_sets++] = optarg; break;
        case 't': trace = optarg; break;
        case 'y': synth = optarg; break;
        case 'j': json = optarg; break;
        case 'S': text = optarg; break;
        case 'p': per_sm = true; break;
        case 'q': quiet = true; break;
        case 'h': run_help(stdout); free(sets); return CLI_OK;
        default: free(sets); return cli_usage("run", "unknown option");
        }
    }
    if (optind != argc) {
        free(sets);
        return cli_usage("run", "unexpected argument '%s'", argv[optind]);
    }
    if ((trace == NULL) == (synth == NULL)) {
        free(sets);
        return cli_usage("run", "expected exactly one of --trace FILE or --synth SPEC");
    }

    struct sim_config cfg;
    struct sim_error err = { 0 };
    struct inst_source src = { 0 };
    sim *s = NULL;
    if (config_load(&cfg, config, sets, n_sets, NULL, &err) < 0 ||
        cli_open_source(trace, synth, &src, &err) < 0) {
        status = cli_fail(&err);
        goto out;
    }
    s = sim_new(&cfg);
    if (sim_run(s, &src, &err) < 0) {
        status = cli_fail(&err);
        goto out;
    }
    struct text_arg ta = { s, config };
    if (json != NULL && afile_write(json, print_json, &ta, &err) < 0) {
        status = cli_fail(&err);
        goto out;
    }
    if (text != NULL && afile_write(text, print_stats, &ta, &err) < 0) {
        status = cli_fail(&err);
        goto out;
    }
    if (!quiet)
        report_text(stdout, s, config, per_sm);
out:
    sim_destroy(s);
    inst_source_destroy(&src);
    free(sets);
    return status;
}

static void
print_reference(FILE *fp, void *arg)
{
    report_stats_reference(fp, arg);
}

int
cmd_stats(int argc, char **argv)
{
    const char *out = "-";
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs("usage: smsim stats doc [-o FILE]\n\n"
              "doc  the statistics reference (Markdown; doc/stats-reference.md)\n", stdout);
        return CLI_OK;
    }
    if (argc < 2 || strcmp(argv[1], "doc") != 0)
        return cli_usage("stats", "expected 'doc'");
    if (argc == 4 && strcmp(argv[2], "-o") == 0)
        out = argv[3];
    else if (argc != 2)
        return cli_usage("stats doc", "expected [-o FILE]");
    struct sim_config cfg;
    struct sim_error err = { 0 };
    config_defaults(&cfg);
    cfg.sm_count = 2;
    sim *s = sim_new(&cfg);
    int rc = afile_write(out, print_reference, s, &err);
    sim_destroy(s);
    return rc < 0 ? cli_fail(&err) : CLI_OK;
}
