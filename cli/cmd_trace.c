/*
 * cmd_trace.c - `smsim trace info|verify|dump|record`.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static void
trace_help(FILE *out)
{
    fputs("usage: smsim trace info FILE.smt\n"
          "       smsim trace verify FILE.smt\n"
          "       smsim trace dump FILE.smt [--kernel K] [--block B] [--warp W] [--limit N]\n"
          "       smsim trace record (--launch FILE | --synth SPEC | --trace FILE) -o OUT.smt\n"
          "                          [--chunk BYTES] [--output-dir DIR] [--unknown-opcode error|alu]\n"
          "                          [--config NAME]\n"
          "       smsim trace convert TRACE -o OUT.smt [--chunk BYTES] [--unknown-opcode error|alu]\n"
          "       smsim trace export --format accelsim (IN | --launch FILE | --synth SPEC) -o DIR\n"
          "                          [--binary-version N]\n\n"
          "info    the file and kernel headers with their instruction counts\n"
          "verify  check every header and chunk (checksums, decompression, every\n"
          "        record, chunk chains, counts); exit 2 naming the byte offset of the\n"
          "        first problem\n"
          "dump    the instruction records as text, one per line\n"
          "record  write a source's instruction streams to a .smt file (a launch file's\n"
          "        outputs are written too, under --output-dir DIR if given); with\n"
          "        --config, a launch file's kernels as the model issues them on that\n"
          "        GPU (on sm_90: the SASS operations ptxas makes of the PTX, as `smsim\n"
          "        sass` lists them, with their stall counts), to compare with an\n"
          "        Accel-Sim trace of the same kernel or to replay fast.  mbarrier\n"
          "        waits are recorded once, complete, naming what they wait for;\n"
          "        clustered kernels cannot be recorded\n"
          "convert an Accel-Sim trace (kernelslist.g, kernel-N.traceg[.xz] or its\n"
          "        directory) or a .smt file to a .smt file: record --trace TRACE\n"
          "export  write any input (a .smt file, an Accel-Sim trace, a launch file, a\n"
          "        synthetic kernel) as an Accel-Sim trace directory: kernelslist.g and\n"
          "        kernel-N.traceg in tracer format 5, SASS of binary version N (default:\n"
          "        the input's own if it is SASS, else 70), readable by Accel-Sim and smsim\n\n",
          out);
    smsim_print_synth_help(out);
}

static int
trace_verify(const char *path)
{
    struct smsim_trace_totals t;
    smsim_error err = { 0 };
    if (smsim_trace_verify(path, &t, &err) < 0)
        return cli_fail(&err);
    printf("%s: OK: %" PRIu64 " kernel(s), %" PRIu64 " blocks, %" PRIu64 " warps, %" PRIu64
           " warp instructions (%" PRIu64 " thread instructions) in %" PRIu64 " chunks; %" PRIu64
           " bytes, %.2f bytes per warp instruction (%.1fx compression)\n",
           path, t.kernels, t.blocks, t.warps, t.warp_insts, t.thread_insts, t.chunks, t.bytes,
           t.warp_insts ? (double)t.bytes / (double)t.warp_insts : 0.0,
           t.bytes ? (double)t.raw_bytes / (double)t.bytes : 0.0);
    return CLI_OK;
}

static int
trace_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        { "kernel", required_argument, NULL, 'k' }, { "block", required_argument, NULL, 'b' },
        { "warp", required_argument, NULL, 'w' },   { "limit", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
    };
    struct { int64_t kernel, block, warp; uint64_t limit; } o = { -1, -1, -1, 0 };
    uint64_t v;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "k:b:w:n:h", opts, NULL)) != -1) {
        if (c == 'h') {
            trace_help(stdout);
            return CLI_OK;
        }
        if (c == '?' || cli_parse_u64(optarg, &v) != 0 || v > INT64_MAX)
            return cli_usage("trace dump", "bad option or value");
        if (c == 'k')
            o.kernel = (int64_t)v;
        else if (c == 'b')
            o.block = (int64_t)v;
        else if (c == 'w')
            o.warp = (int64_t)v;
        else
            o.limit = v;
    }
    if (optind != argc - 1)
        return cli_usage("trace dump", "expected one FILE");
    smsim_error err = { 0 };
    if (smsim_trace_dump(argv[optind], stdout, o.kernel, o.block, o.warp, o.limit, &err) < 0)
        return cli_fail(&err);
    return CLI_OK;
}

static int
trace_record(int argc, char **argv)
{
    static const struct option opts[] = {
        { "synth", required_argument, NULL, 's' }, { "trace", required_argument, NULL, 't' },
        { "launch", required_argument, NULL, 'L' }, { "output-dir", required_argument, NULL, 'O' },
        { "output", required_argument, NULL, 'o' }, { "chunk", required_argument, NULL, 'c' },
        { "unknown-opcode", required_argument, NULL, 'U' },
        { "config", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 }
    };
    struct cli_input in = { 0 };
    const char *out = NULL, *config = NULL;
    uint64_t chunk = 0;
    int c;
    bool convert = strcmp(argv[0], "convert") == 0;
    const char *cmd = convert ? "trace convert" : "trace record";

    optind = 1;
    while ((c = getopt_long(argc, argv, "s:t:L:O:o:c:U:C:h", opts, NULL)) != -1) {
        switch (c) {
        case 'C':
            if (convert)
                return cli_usage(cmd, "--config is for trace record");
            config = optarg;
            break;
        case 's': in.synth = optarg; break;
        case 't': in.trace = optarg; break;
        case 'L': in.launch = optarg; break;
        case 'O': in.outdir = optarg; break;
        case 'o': out = optarg; break;
        case 'U':
            in.unknown_opcode = cli_parse_unknown_opcode(optarg);
            if (in.unknown_opcode < 0)
                return cli_usage(cmd, "--unknown-opcode takes 'error' or 'alu'");
            break;
        case 'c':
            if (cli_parse_u64(optarg, &chunk) != 0 || chunk > UINT32_MAX)
                return cli_usage(cmd, "bad --chunk value");
            break;
        case 'h': trace_help(stdout); return CLI_OK;
        default: return cli_usage(cmd, "unknown option");
        }
    }
    if (convert) {
        if (optind + 1 != argc || out == NULL || cli_input_count(&in) != 0)
            return cli_usage(cmd, "expected TRACE -o OUT.smt");
        in.trace = argv[optind++];
    }
    if (optind != argc || out == NULL || cli_input_count(&in) != 1)
        return cli_usage(cmd, "expected one of --launch/--synth/--trace and -o OUT.smt");
    smsim_source *src = NULL;
    smsim_error err = { 0 };
    struct smsim_totals tot;
    smsim_config *cfg = NULL;
    if (config != NULL && smsim_config_load(&cfg, config, NULL, 0, &err) < 0)
        return cli_fail(&err);
    if (cli_open_source(&in, &src, &err) < 0) {
        smsim_config_free(cfg);
        return cli_fail(&err);
    }
    if (cfg != NULL)
        smsim_source_set_target(src, cfg);
    smsim_config_free(cfg);
    int rc = smsim_trace_record(src, out, convert ? "smsim " PACKAGE_VERSION " trace convert" :
                           "smsim " PACKAGE_VERSION " trace record", (uint32_t)chunk, &tot, &err);
    if (rc == SMSIM_OK)
        rc = smsim_source_write_outputs(src, in.outdir, &err);
    smsim_source_free(src);
    if (rc < 0)
        return cli_fail(&err);
    printf("%s: %u kernel(s), %" PRIu64 " blocks, %" PRIu64 " warp instructions\n", out,
           tot.kernels, tot.blocks, tot.warp_insts);
    return CLI_OK;
}

static int
trace_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
        { "binary-version", required_argument, NULL, 'b' },
        { "launch", required_argument, NULL, 'L' }, { "synth", required_argument, NULL, 's' },
        { "unknown-opcode", required_argument, NULL, 'U' },
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 }
    };
    struct cli_input in = { 0 };
    unsigned binary_version = 0;
    const char *out = NULL, *format = NULL;
    uint64_t v;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:b:L:s:U:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': out = optarg; break;
        case 'b':
            if (cli_parse_u64(optarg, &v) != 0 || v > 1000)
                return cli_usage("trace export", "bad --binary-version value");
            binary_version = (unsigned)v;
            break;
        case 'L': in.launch = optarg; break;
        case 's': in.synth = optarg; break;
        case 'U':
            in.unknown_opcode = cli_parse_unknown_opcode(optarg);
            if (in.unknown_opcode < 0)
                return cli_usage("trace export", "--unknown-opcode takes 'error' or 'alu'");
            break;
        case 'h': trace_help(stdout); return CLI_OK;
        default: return cli_usage("trace export", "unknown option");
        }
    }
    if (optind < argc && cli_input_count(&in) == 0)
        in.trace = argv[optind++];
    if (optind != argc || out == NULL || cli_input_count(&in) != 1)
        return cli_usage("trace export", "expected IN (or --launch FILE or --synth SPEC) and -o DIR");
    if (format == NULL || strcmp(format, "accelsim") != 0)
        return cli_usage("trace export", "expected --format accelsim");
    smsim_source *src = NULL;
    smsim_error err = { 0 };
    struct smsim_export_totals tot;
    if (cli_open_source(&in, &src, &err) < 0)
        return cli_fail(&err);
    int rc = smsim_trace_export(src, out, binary_version, &tot, &err);
    smsim_source_free(src);
    if (rc < 0)
        return cli_fail(&err);
    printf("%s: %u kernel(s), %" PRIu64 " warp instructions written as Accel-Sim tracer format 5\n",
           out, tot.kernels, tot.warp_insts);
    if (tot.approximated > 0)
        printf("  note: %" PRIu64 " IEEE divide/reciprocal/square-root instructions written as MUFU "
               "(SASS builds them from several instructions)\n", tot.approximated);
    if (tot.async_approx > 0)
        printf("  note: %" PRIu64 " async copies/waits approximated (a binary version without "
               "LDGSTS, or cp.async.wait_all): read back, they wait differently\n",
               tot.async_approx);
    if (tot.regs_folded > 0 || tot.regs_dropped > 0)
        printf("  note: %" PRIu64 " register ids above 254 folded into R0..R254, %" PRIu64
               " registers beyond Accel-Sim's one destination / four sources left out\n",
               tot.regs_folded, tot.regs_dropped);
    return CLI_OK;
}

int
cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        trace_help(stderr);
        return CLI_USAGE;
    }
    const char *sub = argv[1];
    smsim_error err = { 0 };
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        trace_help(stdout);
        return CLI_OK;
    }
    if (strcmp(sub, "info") == 0 || strcmp(sub, "verify") == 0) {
        if (argc == 3 && strcmp(argv[2], "--help") == 0) {
            trace_help(stdout);
            return CLI_OK;
        }
        if (argc != 3)
            return cli_usage("trace", "%s expects one FILE", sub);
        if (strcmp(sub, "verify") == 0)
            return trace_verify(argv[2]);
        if (smsim_trace_info(argv[2], stdout, &err) < 0)
            return cli_fail(&err);
        return CLI_OK;
    }
    if (strcmp(sub, "dump") == 0)
        return trace_dump(argc - 1, argv + 1);
    if (strcmp(sub, "record") == 0 || strcmp(sub, "convert") == 0)
        return trace_record(argc - 1, argv + 1);
    if (strcmp(sub, "export") == 0)
        return trace_export(argc - 1, argv + 1);
    return cli_usage("trace", "unknown subcommand '%s'", sub);
}
