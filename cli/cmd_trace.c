/*
 * cmd_trace.c - `smsim trace info|verify|dump|record`.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "frontend/smt.h"
#include "frontend/synth.h"
#include "sim/inst.h"

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
          "                          [--chunk BYTES] [--output-dir DIR]\n\n"
          "info    the file and kernel headers with their instruction counts\n"
          "verify  check every header and chunk (checksums, decompression, every\n"
          "        record, chunk chains, counts); exit 2 naming the byte offset of the\n"
          "        first problem\n"
          "dump    the instruction records as text, one per line\n"
          "record  write a source's instruction streams to a .smt file (a launch file's\n"
          "        outputs are written too, under --output-dir DIR if given)\n\n", out);
    synth_print_help(out);
}

static int
trace_verify(const char *path)
{
    struct smt_totals t;
    struct sim_error err = { 0 };
    if (smt_verify(path, &t, &err) < 0)
        return cli_fail(&err);
    printf("%s: OK: %u kernel(s), %" PRIu64 " blocks, %" PRIu64 " warps, %" PRIu64
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
    struct smt_dump_opts o = { -1, -1, -1, 0 };
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
    struct sim_error err = { 0 };
    if (smt_dump(argv[optind], stdout, &o, &err) < 0)
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
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 }
    };
    struct cli_input in = { 0 };
    const char *out = NULL;
    uint64_t chunk = 0;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "s:t:L:O:o:c:h", opts, NULL)) != -1) {
        switch (c) {
        case 's': in.synth = optarg; break;
        case 't': in.trace = optarg; break;
        case 'L': in.launch = optarg; break;
        case 'O': in.outdir = optarg; break;
        case 'o': out = optarg; break;
        case 'c':
            if (cli_parse_u64(optarg, &chunk) != 0 || chunk > UINT32_MAX)
                return cli_usage("trace record", "bad --chunk value");
            break;
        case 'h': trace_help(stdout); return CLI_OK;
        default: return cli_usage("trace record", "unknown option");
        }
    }
    if (optind != argc || out == NULL || cli_input_count(&in) != 1)
        return cli_usage("trace record", "expected one of --launch/--synth/--trace and -o OUT.smt");
    struct inst_source src = { 0 };
    struct sim_error err = { 0 };
    struct record_totals tot;
    if (cli_open_source(&in, &src, &err) < 0)
        return cli_fail(&err);
    int rc = record_to_smt(&src, out, "smsim " PACKAGE_VERSION " trace record", (uint32_t)chunk,
                           &tot, &err);
    if (rc == SIM_OK)
        rc = ptx_source_write_outputs(&src, in.outdir, &err);
    inst_source_destroy(&src);
    if (rc < 0)
        return cli_fail(&err);
    printf("%s: %u kernel(s), %" PRIu64 " blocks, %" PRIu64 " warp instructions\n", out,
           tot.kernels, tot.blocks, tot.warp_insts);
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
    struct sim_error err = { 0 };
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
        if (smt_info(argv[2], stdout, &err) < 0)
            return cli_fail(&err);
        return CLI_OK;
    }
    if (strcmp(sub, "dump") == 0)
        return trace_dump(argc - 1, argv + 1);
    if (strcmp(sub, "record") == 0)
        return trace_record(argc - 1, argv + 1);
    return cli_usage("trace", "unknown subcommand '%s'", sub);
}
