/*
 * difftest.c - differential tester of the PTX frontend's sm_90 lowering
 * (doc/robustness.md, "Differential testing of the sm_90 lowering").
 *
 * For each seed it generates a random PTX kernel (tests/ptxgen.c), runs it
 * in-process twice with record_emulate's order -- as the PTX is written
 * (no target) and lowered and scheduled for sm_90 (set_target(90)) -- and
 * compares every buffer of the launch byte for byte.  The rule it checks:
 * what a kernel computes never depends on the lowering.  A program the
 * frontend refuses, or one that fails as written, is a generator bug and
 * stops the run as loudly as a disagreement; a panic (exit 3) or a crash
 * while a program runs names its seed first.  A failing program is saved
 * with its launch file in DIR/seed-S/ (replay it with smsim emulate and
 * smsim trace record --config h100), and --reduce minimises one.
 *
 *   difftest [--seed S] [--count N] [--time SEC] [--out DIR] [--quiet]
 *   difftest --print S         the PTX and launch file of seed S
 *   difftest --check DIR       compare the two runs of DIR/k.ptx with DIR/k.launch
 *   difftest --reduce DIR      minimise DIR/k.ptx to DIR/min/k.ptx
 *
 * Defaults: seed 1, DIFFTEST_PROGRAMS (else 1500) programs, failures in
 * ./difftest-failures.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frontend/launch.h"
#include "frontend/ptx.h"
#include "frontend/record.h"
#include "tests/ptxgen.h"

#define MAX_WARP_INSTS 4000000u  /* per run: more is a loop that does not end */

/* The buffers of one run, concatenated. */
struct result {
    uint8_t *bytes;
    size_t len;                  /* bytes */
    uint64_t warp_insts;         /* warp instructions issued */
};

/* What the atexit and signal handlers report. */
static struct {
    char scratch[512];           /* the directory of the program being run */
    char out[512];               /* where failures go */
    uint64_t seed;
    bool running;                /* a program is being run */
} g_run;

/* ---- running one program ---------------------------------------------------- */

static int
sink_nop(void *ctx, struct sim_error *err)
{
    (void)ctx;
    (void)err;
    return SIM_OK;
}

static int
sink_kernel(void *ctx, const struct kernel_info *ki, struct sim_error *err)
{
    (void)ctx;
    (void)ki;
    (void)err;
    return SIM_OK;
}

static int
sink_block(void *ctx, uint64_t id, struct sim_error *err)
{
    (void)ctx;
    (void)id;
    (void)err;
    return SIM_OK;
}

static int
sink_inst(void *ctx, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    uint64_t *n = ctx;
    (void)warp;
    (void)wi;
    if (++*n > MAX_WARP_INSTS)
        return sim_error_set(err, SIM_ERR_FORMAT, "more than %u warp instructions: a loop does "
                             "not end", MAX_WARP_INSTS);
    return SIM_OK;
}

/* Run the launch file at path (cc 0: as written, else lowered for that
 * compute capability) into *res.  Returns SIM_OK or the error. */
static int
run_once(const char *path, unsigned cc, struct result *res, struct sim_error *err)
{
    struct inst_source src;
    memset(res, 0, sizeof *res);
    int rc = ptx_source_open(path, &src, err);
    if (rc < 0)
        return rc;
    if (cc != 0)
        src.ops->set_target(src.ctx, cc);
    uint64_t n = 0;
    struct record_sink sink = { sink_kernel, sink_block, sink_inst, sink_nop, sink_nop, &n };
    struct record_totals tot;
    rc = record_drive(&src, &sink, &tot, err);
    if (rc == SIM_OK) {
        const struct launch *l = ptx_source_launch(&src);
        for (uint32_t i = 0; i < l->n_args; i++)
            if (l->args[i].buffer)
                res->len += l->args[i].bytes;
        res->bytes = xmalloc(res->len ? res->len : 1);
        size_t at = 0;
        for (uint32_t i = 0; i < l->n_args; i++)
            if (l->args[i].buffer) {
                memcpy(res->bytes + at, l->args[i].data, l->args[i].bytes);
                at += l->args[i].bytes;
            }
        res->warp_insts = n;
    }
    inst_source_destroy(&src);
    return rc;
}

/* Where byte `at` of the concatenated buffers is: its buffer's name and
 * the word's index in it. */
static void
locate(const char *path, size_t at, char *buf, size_t n)
{
    struct launch *l = NULL;
    struct sim_error err = { 0 };
    snprintf(buf, n, "byte %zu", at);
    if (launch_parse(path, &l, &err) < 0)
        return;
    for (uint32_t i = 0; i < l->n_args; i++) {
        if (!l->args[i].buffer)
            continue;
        if (at < l->args[i].bytes) {
            snprintf(buf, n, "%s word %zu", l->args[i].name, at / 4);
            break;
        }
        at -= l->args[i].bytes;
    }
    launch_free(l);
}

/* ---- files ------------------------------------------------------------------ */

static void
write_file(const char *dir, const char *name, const char *text, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "difftest: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

static char *
read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "difftest: cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t cap = 65536, n = 0;
    char *s = xmalloc(cap);
    for (size_t k; (k = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += k;
        if (n + 1 == cap)
            s = xrealloc(s, cap *= 2);
    }
    fclose(f);
    s[n] = '\0';
    *len = n;
    return s;
}

static void
copy_file(const char *from_dir, const char *to_dir, const char *name)
{
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", from_dir, name);
    char *s = read_file(path, &len);
    write_file(to_dir, name, s, len);
    free(s);
}

/* Save the program in the scratch directory to OUT/seed-S/; its path into
 * dir. */
static void
save_failure(char *dir, size_t n)
{
    mkdir(g_run.out, 0777);
    snprintf(dir, n, "%s/seed-%llu", g_run.out, (unsigned long long)g_run.seed);
    mkdir(dir, 0777);
    copy_file(g_run.scratch, dir, "k.ptx");
    copy_file(g_run.scratch, dir, "k.launch");
}

/* A panic (exit 3) while a program runs: say which. */
static void
at_exit(void)
{
    if (!g_run.running)
        return;
    g_run.running = false;
    char dir[1100];
    save_failure(dir, sizeof dir);
    fprintf(stderr, "difftest: seed %llu: the run stopped (an internal error above?); the "
            "program is in %s\n", (unsigned long long)g_run.seed, dir);
}

static void
on_signal(int sig)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "\ndifftest: signal %d while running seed %llu (its "
                     "program: %s/k.ptx)\n", sig, (unsigned long long)g_run.seed, g_run.scratch);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        _exit(128 + sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- the differential run ---------------------------------------------------- */

/* The first word where a and b differ, described into msg: 0 none. */
static int
differ(const char *path, const struct result *a, const struct result *b, const char *how_b,
       char *msg, size_t n)
{
    if (a->len != b->len) {
        snprintf(msg, n, "%zu output bytes as written, %zu %s", a->len, b->len, how_b);
        return 1;
    }
    for (size_t i = 0; i + 4 <= a->len; i += 4) {
        uint32_t x, y;
        memcpy(&x, a->bytes + i, 4);
        memcpy(&y, b->bytes + i, 4);
        if (x != y) {
            char where[128];
            locate(path, i, where, sizeof where);
            snprintf(msg, n, "outputs differ: %s is %#x as written, %#x %s", where, x, y, how_b);
            return 1;
        }
    }
    return 0;
}

/* How the runs of the program in dir compare: as written with every
 * register in a slot of its own (the reference), lowered for sm_90, and
 * as written with the register file packed (ptx_regalloc.h; the lowered
 * run packs too).  0 the same, 1 different outputs, 2 it fails as written
 * (a generator bug), 3 it fails lowered or packed; the message into msg. */
static int
compare(const char *dir, char *msg, size_t n, uint64_t *insts)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/k.launch", dir);
    struct result a, b, c;
    struct sim_error err = { 0 };
    setenv("SMSIM_REGALLOC", "0", 1);
    int rc = run_once(path, 0, &a, &err);
    unsetenv("SMSIM_REGALLOC");
    if (rc < 0) {
        snprintf(msg, n, "fails as written: %s", err.msg);
        return 2;
    }
    if (run_once(path, 90, &b, &err) < 0) {
        free(a.bytes);
        snprintf(msg, n, "fails lowered for sm_90: %s", err.msg);
        return 3;
    }
    if (run_once(path, 0, &c, &err) < 0) {
        free(a.bytes);
        free(b.bytes);
        snprintf(msg, n, "fails with its registers packed: %s", err.msg);
        return 3;
    }
    if (insts != NULL)
        *insts += a.warp_insts + b.warp_insts + c.warp_insts;
    rc = differ(path, &a, &b, "lowered", msg, n);
    if (rc == 0)
        rc = differ(path, &a, &c, "with its registers packed", msg, n);
    free(a.bytes);
    free(b.bytes);
    free(c.bytes);
    return rc;
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
run_seeds(uint64_t seed, uint64_t count, double seconds, bool quiet)
{
    double t0 = now_s(), last = t0;
    uint64_t done = 0, insts = 0;
    for (uint64_t s = seed; done < count; s++) {
        if (seconds > 0 && now_s() - t0 >= seconds)
            break;
        struct ptxgen_prog p;
        ptxgen_generate(s, &p);
        write_file(g_run.scratch, "k.ptx", p.ptx, p.ptx_len);
        write_file(g_run.scratch, "k.launch", p.launch, p.launch_len);
        ptxgen_free(&p);
        g_run.seed = s;
        g_run.running = true;
        char msg[1024];
        int rc = compare(g_run.scratch, msg, sizeof msg, &insts);
        g_run.running = false;
        done++;
        if (rc != 0) {
            char dir[1100];
            save_failure(dir, sizeof dir);
            fprintf(stderr, "difftest: seed %llu: %s\n", (unsigned long long)s, msg);
            fprintf(stderr, "difftest: %s: the program %s; replay: smsim emulate --launch "
                    "%s/k.launch --output-dir A; smsim trace record --config h100 --launch "
                    "%s/k.launch -o /dev/null --output-dir B; cmp A/out.bin B/out.bin\n",
                    dir, rc == 2 ? "is refused or wrong (a generator bug)" :
                    "computes something else lowered (a lowering or scheduling bug)", dir, dir);
            return 1;
        }
        if (!quiet && now_s() - last >= 10) {
            last = now_s();
            fprintf(stderr, "difftest: %llu programs, %.0f a second\n",
                    (unsigned long long)done, done / (last - t0));
        }
    }
    double dt = now_s() - t0;
    printf("difftest: seeds %llu .. %llu: %llu programs agree (%.1f s, %.0f programs a second, "
           "%.1f M warp instructions)\n", (unsigned long long)seed,
           (unsigned long long)(seed + done - 1), (unsigned long long)done, dt,
           dt > 0 ? done / dt : 0.0, insts / 1e6);
    return 0;
}

/* ---- minimising a failure ------------------------------------------------------ */

/* Run compare() on the program in dir in a child process (a panic or a
 * crash is a result too): its status, or 4 + the signal. */
static int
probe(const char *dir)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("difftest: fork");
        exit(2);
    }
    if (pid == 0) {
        g_run.running = false;
        if (freopen("/dev/null", "w", stderr) == NULL)
            _exit(9);
        char msg[1024];
        _exit(compare(dir, msg, sizeof msg, NULL));
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 9;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 16 + WTERMSIG(st);
}

/* May line be deleted (an instruction, not a declaration, label or brace)? */
static bool
deletable(const char *line)
{
    while (*line == '\t' || *line == ' ')
        line++;
    if (*line == '\0' || *line == '.' || *line == '{' || *line == '}' || *line == '$' ||
        *line == '/' || *line == ')' || *line == '(')
        return false;
    if (strncmp(line, "ret;", 4) == 0)
        return false;
    size_t n = strlen(line);
    return n > 0 && line[n - 1] == ';';
}

static void
write_lines(const char *dir, char **lines, const bool *keep, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "difftest: cannot write %s\n", path);
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            fprintf(f, "%s\n", lines[i]);
    fclose(f);
}

/* The units the reducer deletes: an instruction line, or a whole call
 * sequence ({ // callseq ... } // callseq); first and last line of each
 * unit still kept, into u (2 entries a unit).  Returns the count. */
static size_t
units(char **lines, const bool *keep, size_t n, size_t *u, size_t max)
{
    size_t nu = 0;
    for (size_t i = 0; i < n && nu < max; i++) {
        if (!keep[i])
            continue;
        if (strncmp(lines[i], "\t{ // callseq", 14) == 0) {
            size_t j = i;
            while (j + 1 < n && strncmp(lines[j], "\t} // callseq", 14) != 0)
                j++;
            u[2 * nu] = i;
            u[2 * nu + 1] = j;
            nu++;
            i = j;
        } else if (deletable(lines[i])) {
            u[2 * nu] = u[2 * nu + 1] = i;
            nu++;
        }
    }
    return nu;
}

/* Delete chunks of units as long as the failure stays the same, halving
 * the chunk size down to single units, until nothing more can go. */
static int
reduce(const char *dir)
{
    char path[1024], min[1100];
    size_t len;
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    char *text = read_file(path, &len);
    snprintf(min, sizeof min, "%s/min", dir);
    mkdir(min, 0777);
    copy_file(dir, min, "k.launch");
    size_t n = 0, cap = 1024;
    char **lines = xmalloc(cap * sizeof *lines);
    for (char *s = text, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (nl == NULL)
            nl = s + strlen(s) - 1;
        else
            *nl = '\0';
        if (n == cap)
            lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = s;
        if (nl[1] == '\0')
            break;
    }
    bool *keep = xmalloc(n * sizeof *keep), *trial = xmalloc(n * sizeof *trial);
    size_t *u = xmalloc(2 * n * sizeof *u);
    for (size_t i = 0; i < n; i++)
        keep[i] = true;
    write_lines(min, lines, keep, n);
    int want = probe(min);
    if (want == 0 || want == 2) {
        fprintf(stderr, "difftest: %s does not fail (status %d)\n", path, want);
        return 1;
    }
    for (size_t chunk = 256; chunk >= 1; chunk /= 2) {
        for (bool again = true; again;) {
            again = false;
            size_t nu = units(lines, keep, n, u, n);
            for (size_t at = 0; at < nu; at += chunk) {
                memcpy(trial, keep, n * sizeof *keep);
                for (size_t k = at; k < at + chunk && k < nu; k++)
                    for (size_t l = u[2 * k]; l <= u[2 * k + 1]; l++)
                        trial[l] = false;
                write_lines(min, lines, trial, n);
                if (probe(min) == want) {
                    memcpy(keep, trial, n * sizeof *keep);
                    again = true;
                }
            }
        }
        if (chunk == 1)
            break;
    }
    write_lines(min, lines, keep, n);
    size_t left = units(lines, keep, n, u, n);
    printf("difftest: %s/k.ptx: %zu instructions left (status %d)\n", min, left, want);
    free(u);
    free(keep);
    free(trial);
    free(lines);
    free(text);
    return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static void
usage(void)
{
    fprintf(stderr, "usage: difftest [--seed S] [--count N] [--time SEC] [--out DIR] [--quiet]\n"
            "       difftest --print SEED\n       difftest --check DIR\n"
            "       difftest --reduce DIR\n");
    exit(1);
}

int
main(int argc, char **argv)
{
    uint64_t seed = 1, count = 1500;
    double seconds = 0;
    bool quiet = false;
    const char *env = getenv("DIFFTEST_PROGRAMS");
    if (env != NULL && *env != '\0')
        count = strtoull(env, NULL, 10);
    env = getenv("DIFFTEST_SEED");
    if (env != NULL && *env != '\0')
        seed = strtoull(env, NULL, 10);
    snprintf(g_run.out, sizeof g_run.out, "difftest-failures");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quiet") == 0) {
            quiet = true;
            continue;
        }
        if (v == NULL)
            usage();
        i++;
        if (strcmp(a, "--seed") == 0) {
            seed = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--count") == 0) {
            count = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--time") == 0) {
            seconds = strtod(v, NULL);
            count = UINT64_MAX;
        } else if (strcmp(a, "--out") == 0) {
            snprintf(g_run.out, sizeof g_run.out, "%s", v);
        } else if (strcmp(a, "--print") == 0) {
            struct ptxgen_prog p;
            ptxgen_generate(strtoull(v, NULL, 10), &p);
            printf("%s\n// ---- k.launch ----\n%s", p.ptx, p.launch);
            ptxgen_free(&p);
            return 0;
        } else if (strcmp(a, "--reduce") == 0) {
            return reduce(v);
        } else if (strcmp(a, "--check") == 0) {
            char msg[1024];
            int rc = compare(v, msg, sizeof msg, NULL);
            printf("difftest: %s: %s\n", v, rc == 0 ? "the same as written and lowered" : msg);
            return rc;
        } else {
            usage();
        }
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(g_run.scratch, sizeof g_run.scratch, "%s/difftest.XXXXXX",
             tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    if (mkdtemp(g_run.scratch) == NULL) {
        perror("difftest: mkdtemp");
        return 2;
    }
#ifdef M_MMAP_THRESHOLD
    /* the lowering allocates per-register tables of a few MB for each
     * kernel: keep freed memory instead of mapping fresh pages each time */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    atexit(at_exit);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGABRT, on_signal);
    int rc = run_seeds(seed, count, seconds, quiet);
    char path[1100];
    snprintf(path, sizeof path, "%s/k.ptx", g_run.scratch);
    unlink(path);
    snprintf(path, sizeof path, "%s/k.launch", g_run.scratch);
    unlink(path);
    rmdir(g_run.scratch);
    return rc;
}
