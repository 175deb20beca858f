/*
 * cmd_run.c - `smsim run`: simulate the kernels of a trace on a GPU config.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/progress.h"

#define DEFAULT_CONFIG "h100"

static void
run_help(FILE *out)
{
    fputs("usage: smsim run [--config NAME] [--set key=value]...\n"
          "                 (--launch FILE [--output-dir DIR | --no-outputs] | --trace FILE |\n"
          "                  --synth SPEC)\n"
          "                 [--stats-json FILE] [--stats FILE] [--per-sm]\n"
          "                 [--windows K --windows-out FILE.csv|FILE.jsonl] [-j N] [--quiet]\n\n"
          "Simulate every kernel of the input on a GPU configuration and print a summary\n"
          "(with the CPI stack: each SM's cycles per warp instruction split by what its\n"
          "schedulers' issue slots did).  A run longer than about 2 s shows a progress\n"
          "line on stderr when stderr is a terminal.\n\n"
          "  --config NAME       GPU config name or .cfg path (default " DEFAULT_CONFIG ";\n"
          "                      'smsim config list' shows the names)\n"
          "  --set key=value     override a config field (repeatable)\n"
          "  --launch FILE       a PTX launch file (doc/launch-format.md): the kernel is\n"
          "                      executed functionally as it is simulated, and the\n"
          "                      launch file's outputs are written afterwards\n"
          "  --output-dir DIR    write the launch file's relative outputs under DIR\n"
          "                      instead of the launch file's directory\n"
          "  --no-outputs        do not write the launch file's outputs\n"
          "  --trace FILE        a .smt trace, or an Accel-Sim trace: kernelslist.g,\n"
          "                      kernel-N.traceg[.xz], or a directory with a kernelslist.g\n"
          "  --unknown-opcode error|alu\n"
          "                      an opcode the trace's SASS table lacks: exit 2 (default),\n"
          "                      or simulate it as an integer instruction and count it\n"
          "  --synth SPEC        a synthetic kernel (see below)\n"
          "  --stats-json FILE   write every statistic as JSON ('-' = stdout)\n"
          "  --stats FILE        write every statistic as text, per SM too\n"
          "  --per-sm            print per-SM statistics in the summary\n"
          "  --windows K         per-window statistics over windows of K warp\n"
          "                      instructions, per SM and GPU-wide (seed 000's FP32\n"
          "                      bound, pipe and scheduler utilisation; see\n"
          "                      doc/stats-reference.md)\n"
          "  --windows-out FILE  where the windows go: CSV, or JSON Lines if FILE ends\n"
          "                      in .jsonl ('-' = CSV on stdout)\n"
          "  -j, --jobs N        tick the SMs of each cycle on N threads; the results are\n"
          "                      byte-identical for every N (at most one per CPU; PTX\n"
          "                      launches and --windows runs tick on one thread:\n"
          "                      see doc/performance.md)\n"
          "  --sample            sampled simulation (sim.sample): once a kernel runs\n"
          "                      steadily, skip whole waves of its blocks (run\n"
          "                      functionally: outputs are still complete) and estimate\n"
          "                      their cycles, with an interval in the summary and JSON\n"
          "                      (cycles_lo, cycles_hi); see doc/performance.md\n"
          "  --quiet             no summary on stdout and no progress line\n\n", out);
    smsim_print_synth_help(out);
}

int
cli_input_count(const struct cli_input *in)
{
    return (in->trace != NULL) + (in->synth != NULL) + (in->launch != NULL);
}

int
cli_open_source(const struct cli_input *in, smsim_source **src, smsim_error *err)
{
    if (in->synth != NULL)
        return smsim_source_open_synth(src, in->synth, err);
    if (in->launch != NULL)
        return smsim_source_open_launch(src, in->launch, err);
    return smsim_source_open_trace(src, in->trace, in->unknown_opcode, err);
}

int
cli_parse_unknown_opcode(const char *s)
{
    if (strcmp(s, "error") == 0)
        return SMSIM_UNKNOWN_ERROR;
    if (strcmp(s, "alu") == 0)
        return SMSIM_UNKNOWN_ALU;
    return -1;
}

struct text_arg {
    const smsim_sim *s;
    const char *config;
};

static void
print_json(FILE *fp, void *arg)
{
    struct text_arg *a = arg;
    smsim_print_json(fp, a->s, a->config);
}

static void
print_stats(FILE *fp, void *arg)
{
    struct text_arg *a = arg;
    smsim_print_stats(fp, a->s, a->config);
}

/* The progress line follows the run. */
static void
watch_kernel_begin(void *ctx, const smsim_sim *s, size_t index, const char *name)
{
    (void)s;
    progress_kernel(ctx, (uint32_t)index, name);
}

static void
watch_block(void *ctx, const smsim_sim *s)
{
    progress_event(ctx, s);
}

int
cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "trace", required_argument, NULL, 't' },
        { "synth", required_argument, NULL, 'y' },
        { "launch", required_argument, NULL, 'L' },
        { "output-dir", required_argument, NULL, 'O' },
        { "no-outputs", no_argument, NULL, 'N' },
        { "unknown-opcode", required_argument, NULL, 'U' },
        { "stats-json", required_argument, NULL, 'J' },
        { "jobs", required_argument, NULL, 'j' },
        { "stats", required_argument, NULL, 'S' },
        { "per-sm", no_argument, NULL, 'p' },
        { "windows", required_argument, NULL, 'w' },
        { "windows-out", required_argument, NULL, 'W' },
        { "quiet", no_argument, NULL, 'q' },
        { "sample", no_argument, NULL, 'A' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *config = DEFAULT_CONFIG;
    struct cli_input in = { 0 };
    const char *json = NULL, *text = NULL, *wpath = NULL;
    uint64_t wk = 0, jobs = 1;
    const char **sets = cli_xcalloc((size_t)argc, sizeof *sets);
    size_t n_sets = 0;
    bool per_sm = false, quiet = false, no_outputs = false;
    int c, status = CLI_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:t:y:L:O:NU:J:j:S:pw:W:qAh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 's': sets[n_sets++] = optarg; break;
        case 't': in.trace = optarg; break;
        case 'y': in.synth = optarg; break;
        case 'L': in.launch = optarg; break;
        case 'O': in.outdir = optarg; break;
        case 'N': no_outputs = true; break;
        case 'U':
            in.unknown_opcode = cli_parse_unknown_opcode(optarg);
            if (in.unknown_opcode < 0) {
                free(sets);
                return cli_usage("run", "--unknown-opcode takes 'error' or 'alu'");
            }
            break;
        case 'J': json = optarg; break;
        case 'j':
            if (cli_parse_u64(optarg, &jobs) < 0 || jobs == 0 || jobs > 256) {
                free(sets);
                return cli_usage("run", "-j takes a number of threads from 1 to 256");
            }
            break;
        case 'S': text = optarg; break;
        case 'p': per_sm = true; break;
        case 'w':
            if (cli_parse_u64(optarg, &wk) < 0 || wk == 0) {
                free(sets);
                return cli_usage("run", "--windows takes a positive number of warp instructions");
            }
            break;
        case 'W': wpath = optarg; break;
        case 'q': quiet = true; break;
        case 'A': sets[n_sets++] = "sim.sample=true"; break;
        case 'h': run_help(stdout); free(sets); return CLI_OK;
        default: free(sets); return cli_usage("run", "unknown option");
        }
    }
    if (optind != argc) {
        free(sets);
        return cli_usage("run", "unexpected argument '%s'", argv[optind]);
    }
    if (cli_input_count(&in) != 1) {
        free(sets);
        return cli_usage("run", "expected exactly one of --launch FILE, --trace FILE or --synth SPEC");
    }

    if ((wk != 0) != (wpath != NULL)) {
        free(sets);
        return cli_usage("run", "--windows K and --windows-out FILE go together");
    }

    smsim_config *cfg = NULL;
    smsim_error err = { 0 };
    smsim_source *src = NULL;
    smsim_outfile *waf = NULL;
    struct progress prog;
    smsim_sim *s = NULL;
    if (smsim_config_load(&cfg, config, sets, n_sets, &err) < 0 ||
        cli_open_source(&in, &src, &err) < 0 ||
        (wpath != NULL && smsim_outfile_open(&waf, wpath, &err) < 0)) {
        status = cli_fail(&err);
        goto out;
    }
    s = smsim_new(cfg);
    /* more threads than CPUs would only wait for each other */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    smsim_set_threads(s, (unsigned)(ncpu > 0 && (uint64_t)ncpu < jobs ? (uint64_t)ncpu : jobs));
    progress_init(&prog, !quiet);
    if (wpath != NULL) {
        size_t L = strlen(wpath);
        smsim_set_windows(s, wk, smsim_outfile_stream(waf),
                          L > 6 && strcmp(wpath + L - 6, ".jsonl") == 0);
    }
    if (prog.out != NULL) {
        struct smsim_watch w = { watch_kernel_begin, watch_block, &prog };
        smsim_set_watch(s, &w);
    }
    bool is_launch = smsim_source_is_launch(src);
    int rc = smsim_run(s, src, &err);
    progress_end(&prog);
    /* a kernel stopped at sim.max_cycles did not finish: what it computed
     * so far is not its result, so its buffers are not written out */
    struct smsim_kernel kr;
    for (size_t k = 0; rc >= 0 && !no_outputs && k < smsim_kernel_count(s); k++)
        if (smsim_kernel(s, k, &kr) == SMSIM_OK && kr.truncated && is_launch) {
            smsim_reportf("note", "kernel %zu (%s) stopped at sim.max_cycles before it finished: "
                          "its outputs are not written", k, kr.name);
            no_outputs = true;
        }
    if (rc < 0 || (!no_outputs && smsim_source_write_outputs(src, in.outdir, &err) < 0)) {
        status = cli_fail(&err);
        goto out;
    }
    if (waf != NULL) {
        rc = smsim_outfile_commit(waf, &err);
        waf = NULL;
        if (rc < 0) {
            status = cli_fail(&err);
            goto out;
        }
    }
    for (size_t k = 0; k < smsim_kernel_count(s); k++) {
        smsim_kernel(s, k, &kr);
        if (kr.regs_requested > kr.regs_per_thread)
            smsim_reportf("note", "kernel %zu (%s) asks for %u registers per thread, more than "
                          "this GPU's %u: simulated with %u (the spill code a compiler would add "
                          "is not modelled)", k, kr.name, kr.regs_requested,
                          kr.regs_per_thread, kr.regs_per_thread);
    }
    struct text_arg ta = { s, config };
    if (json != NULL && smsim_write_file(json, print_json, &ta, &err) < 0) {
        status = cli_fail(&err);
        goto out;
    }
    if (text != NULL && smsim_write_file(text, print_stats, &ta, &err) < 0) {
        status = cli_fail(&err);
        goto out;
    }
    if (!quiet)
        smsim_print_summary(stdout, s, config, per_sm);
out:
    smsim_outfile_abort(waf);
    smsim_free(s);
    smsim_source_free(src);
    smsim_config_free(cfg);
    free(sets);
    return status;
}

static void
print_reference(FILE *fp, void *arg)
{
    smsim_error *err = arg;
    smsim_print_stats_reference(fp, err);
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
    smsim_error err = { 0 }, ref_err = { 0 };
    if (smsim_write_file(out, print_reference, &ref_err, &err) < 0)
        return cli_fail(&err);
    if (ref_err.code != SMSIM_OK)
        return cli_fail(&ref_err);
    return CLI_OK;
}

int
cmd_emulate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "launch", required_argument, NULL, 'L' },
        { "output-dir", required_argument, NULL, 'O' },
        { "inputs", required_argument, NULL, 'I' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *launch = NULL, *outdir = NULL, *inputs = NULL;
    bool quiet = false;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "L:O:I:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'L': launch = optarg; break;
        case 'O': outdir = optarg; break;
        case 'I': inputs = optarg; break;
        case 'q': quiet = true; break;
        case 'h':
            fputs("usage: smsim emulate --launch FILE [--output-dir DIR] [--quiet]\n"
                  "       smsim emulate --launch FILE --inputs DIR\n\n"
                  "Execute the launch file's PTX kernel functionally, without the timing model\n"
                  "(warps in order, each to its next barrier), write the launch file's outputs\n"
                  "and print the instruction count and emulation rate.  Relative output paths\n"
                  "are resolved against --output-dir DIR if given, else the launch file's\n"
                  "directory.\n\n"
                  "--inputs DIR writes every buffer argument's initial contents to DIR/NAME.bin\n"
                  "and stops (the kernel is not run): the exact bytes a real GPU must be given\n"
                  "to measure the same launch (scripts/measure-gpu.py).\n", stdout);
            return CLI_OK;
        default: return cli_usage("emulate", "unknown option");
        }
    }
    if (optind != argc || launch == NULL)
        return cli_usage("emulate", "expected --launch FILE");
    if (inputs != NULL) {
        smsim_error err = { 0 };
        if (smsim_launch_write_inputs(launch, inputs, &err) < 0)
            return cli_fail(&err);
        return CLI_OK;
    }
    smsim_source *src = NULL;
    smsim_error err = { 0 };
    struct smsim_totals tot;
    struct timespec t0, t1;
    if (smsim_source_open_launch(&src, launch, &err) < 0)
        return cli_fail(&err);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = smsim_emulate(src, &tot, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == SMSIM_OK)
        rc = smsim_source_write_outputs(src, outdir, &err);
    if (rc < 0) {
        smsim_source_free(src);
        return cli_fail(&err);
    }
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (!quiet)
        printf("%s: %u kernel(s), %" PRIu64 " blocks, %" PRIu64 " warp instructions in %.3f s "
               "(%.1f M warp instructions/s)\n", launch, tot.kernels, tot.blocks, tot.warp_insts, s,
               s > 0 ? (double)tot.warp_insts / s / 1e6 : 0.0);
    smsim_source_free(src);
    return CLI_OK;
}
