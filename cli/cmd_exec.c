/*
 * cmd_exec.c - `smsim exec`: run a whole CUDA program on the simulated
 * GPU.  The program runs unmodified with smsim's libcudart.so.13 (cudart/)
 * first on the loader's search path; what it is to simulate travels in
 * SMSIM_EXEC_* environment variables (doc/exec.md).
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SMSIM_LIBEXECDIR
#define SMSIM_LIBEXECDIR "/usr/local/libexec/smsim"
#endif

static void
usage(FILE *out)
{
    fputs("usage: smsim exec [--config GPU] [--set KEY=VALUE]... [--no-timing] [--sample]\n"
          "                  [--stats-json FILE] [--windows K --windows-out FILE] [-j N]\n"
          "                  [--quiet] [--keep-ptx] [--cudart DIR] -- PROGRAM [ARG]...\n\n"
          "Run a CUDA program compiled with `nvcc -cudart shared` and PTX embedded\n"
          "(-gencode arch=compute_NN,code=compute_NN) on the simulated GPU, unmodified.\n"
          "The program's output and exit status are its own; smsim's report (every\n"
          "kernel as `smsim run` gives it, and the whole-program timeline) goes to\n"
          "stderr when the program ends.  doc/exec.md lists the CUDA runtime calls.\n\n"
          "  -c, --config GPU    the GPU (a name in configs/, or a .cfg path; default h100)\n"
          "  -s, --set K=V       override a config field (repeatable)\n"
          "  --no-timing         execute the kernels functionally only (as `smsim emulate`)\n"
          "  --sample            sampled simulation of each kernel, as `smsim run --sample`\n"
          "                      (sim.sample; launch sampling of repeats is on either way:\n"
          "                      sim.sample_launches)\n"
          "  --stats-json FILE   write every statistic as JSON when the program ends\n"
          "  --windows K         per-window statistics over windows of K warp instructions\n"
          "  --windows-out FILE  where they go: CSV, or JSON Lines if FILE ends in .jsonl\n"
          "  -j, --jobs N        tick the SMs on N threads (results are identical)\n"
          "  -q, --quiet         no report on stderr (the JSON still written)\n"
          "  --keep-ptx          keep the PTX taken from the program's fat binaries\n"
          "                      ($TMPDIR/smsim-exec-PID-N.ptx; messages name its lines)\n"
          "  --cudart DIR        the directory holding smsim's libcudart.so.13\n"
          "                      (default: $SMSIM_CUDART_DIR, beside smsim, installed)\n",
          out);
}

static bool
has_cudart(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/libcudart.so.13", dir);
    return access(p, R_OK) == 0;
}

/* The directory of smsim's libcudart.so.13: --cudart, $SMSIM_CUDART_DIR,
 * cudart/ beside this executable (a build tree), the installed one. */
static const char *
find_cudart(const char *given, char *buf, size_t n)
{
    if (given != NULL)
        return has_cudart(given) ? given : NULL;
    const char *env = getenv("SMSIM_CUDART_DIR");
    if (env != NULL && *env)
        return has_cudart(env) ? env : NULL;
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(buf, n, "%s/cudart", self);
            if (has_cudart(buf))
                return buf;
        }
    }
    snprintf(buf, n, "%s", SMSIM_LIBEXECDIR);
    return has_cudart(buf) ? buf : NULL;
}

static int
setenv_or_die(const char *k, const char *v)
{
    if (setenv(k, v, 1) != 0) {
        smsim_reportf("error", "exec: setenv %s: %s", k, strerror(errno));
        return -1;
    }
    return 0;
}

int
cmd_exec(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "no-timing", no_argument, NULL, 'N' },
        { "sample", no_argument, NULL, 'A' },
        { "stats-json", required_argument, NULL, 'J' },
        { "windows", required_argument, NULL, 'w' },
        { "windows-out", required_argument, NULL, 'W' },
        { "jobs", required_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' },
        { "keep-ptx", no_argument, NULL, 'K' },
        { "cudart", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *config = "h100", *json = NULL, *wout = NULL, *cudart = NULL;
    uint64_t jobs = 1, wk = 0;
    bool no_timing = false, quiet = false, keep = false;
    size_t sets_len = 0;
    char *sets = cli_xcalloc(1, 1);
    const char **setv = cli_xcalloc((size_t)argc + 1, sizeof *setv);
    size_t n_sets = 0;
    int c, rc = CLI_USAGE;
    optind = 1;
    /* '+': options end at the program's name */
    while ((c = getopt_long(argc, argv, "+c:s:j:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'A':                    /* --sample: a --set of its own */
        case 's': {
            const char *kv = c == 'A' ? "sim.sample=true" : optarg;
            size_t l = strlen(kv);
            if (strchr(kv, '\n') != NULL) {
                rc = cli_usage("exec", "--set %s: a value on one line", kv);
                goto out;
            }
            sets = cli_xrealloc(sets, sets_len + l + 2);
            memcpy(sets + sets_len, kv, l);
            sets_len += l;
            sets[sets_len++] = '\n';
            sets[sets_len] = '\0';
            setv[n_sets++] = kv;
            break;
        }
        case 'N': no_timing = true; break;
        case 'J': json = optarg; break;
        case 'w':
            if (cli_parse_u64(optarg, &wk) != 0 || wk == 0) {
                rc = cli_usage("exec", "--windows takes a positive number of warp instructions");
                goto out;
            }
            break;
        case 'W': wout = optarg; break;
        case 'j':
            if (cli_parse_u64(optarg, &jobs) != 0 || jobs == 0 || jobs > 256) {
                rc = cli_usage("exec", "-j takes a number of threads from 1 to 256");
                goto out;
            }
            break;
        case 'q': quiet = true; break;
        case 'K': keep = true; break;
        case 'C': cudart = optarg; break;
        case 'h': usage(stdout); rc = CLI_OK; goto out;
        default: rc = cli_usage("exec", "unknown option"); goto out;
        }
    }
    if (optind >= argc) {
        rc = cli_usage("exec", "no program to run (smsim exec [options] -- PROGRAM [ARG]...)");
        goto out;
    }
    if ((wk != 0) != (wout != NULL)) {
        rc = cli_usage("exec", "--windows K and --windows-out FILE go together");
        goto out;
    }
    /* the config must load here, so that a bad one is exit 2 before the program runs */
    smsim_error err = { 0 };
    smsim_config *cfg = NULL;
    char cfgpath[PATH_MAX], abspath[PATH_MAX];
    if (smsim_config_load(&cfg, config, setv, n_sets, &err) < 0 ||
        smsim_config_resolve(config, cfgpath, sizeof cfgpath, &err) < 0) {
        smsim_config_free(cfg);
        rc = cli_fail(&err);
        goto out;
    }
    smsim_config_free(cfg);
    char dirbuf[PATH_MAX];
    const char *dir = find_cudart(cudart, dirbuf, sizeof dirbuf);
    if (dir == NULL) {
        smsim_reportf("error", "exec: no libcudart.so.13 of smsim's in %s (build it: make; or "
                      "say where: --cudart DIR)", cudart ? cudart : "--cudart, "
                      "$SMSIM_CUDART_DIR, beside smsim or " SMSIM_LIBEXECDIR);
        rc = CLI_BAD_INPUT;
        goto out;
    }
    char libpath[2 * PATH_MAX];
    const char *old = getenv("LD_LIBRARY_PATH");
    snprintf(libpath, sizeof libpath, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
    char num[32];
    rc = CLI_INTERNAL;
    if (setenv_or_die("LD_LIBRARY_PATH", libpath) < 0 ||
        setenv_or_die("SMSIM_EXEC_CONFIG", realpath(cfgpath, abspath) ? abspath : cfgpath) < 0 ||
        setenv_or_die("SMSIM_EXEC_CONFIG_NAME", config) < 0 ||
        setenv_or_die("SMSIM_EXEC_SET", sets) < 0 ||
        setenv_or_die("SMSIM_EXEC_NO_TIMING", no_timing ? "1" : "0") < 0 ||
        setenv_or_die("SMSIM_EXEC_QUIET", quiet ? "1" : "0") < 0 ||
        setenv_or_die("SMSIM_EXEC_STATS_JSON", json ? json : "") < 0 ||
        (keep && setenv_or_die("SMSIM_EXEC_KEEP_PTX", "1") < 0))
        goto out;
    snprintf(num, sizeof num, "%" PRIu64, jobs);
    if (setenv_or_die("SMSIM_EXEC_THREADS", num) < 0)
        goto out;
    snprintf(num, sizeof num, "%" PRIu64, wk);
    if (setenv_or_die("SMSIM_EXEC_WINDOWS", num) < 0 ||
        setenv_or_die("SMSIM_EXEC_WINDOWS_OUT", wout ? wout : "") < 0)
        goto out;
    fflush(NULL);
    execvp(argv[optind], argv + optind);
    smsim_reportf("error", "exec: cannot run %s: %s", argv[optind], strerror(errno));
    rc = CLI_BAD_INPUT;
out:
    free(sets);
    free(setv);
    return rc;
}
