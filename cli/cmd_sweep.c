/*
 * cmd_sweep.c - `smsim sweep`: what-if sweeps over config fields.
 *
 * A sweep is the cartesian product of the --vary lists (the last --vary
 * changes fastest) applied on top of a config, run on every input.  One
 * job = one point x one input = one `smsim run ... --stats-json` whose
 * result file DIR/runs/pPPPP-iII.json appears atomically when it succeeds,
 * so a job is done exactly when its result file exists: re-running a sweep
 * skips finished jobs, and jobs emitted for a cluster (--emit slurm |
 * parallel) need no coordination.  DIR/sweep.manifest records the sweep;
 * a second sweep into the same DIR must match it.  `smsim sweep collect
 * DIR` (run at the end of every local sweep) reads the result files and
 * writes DIR/results.csv: one row per point x input with every varied
 * key and the main statistics.
 *
 * Files in DIR:
 *   sweep.manifest   key = value: smsim, config, set, vary, input, points
 *   runs/ID.json     statistics of job ID (smsim run --stats-json)
 *   runs/ID.log      its stderr (kept; non-empty means a message)
 *   results.csv      written by collect
 *   sweep.slurm      --emit slurm: a job array, one task per point
 *   jobs.txt         --emit parallel: one shell command per job
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include "cli/cli.h"
#include "cli/json.h"

#define SWEEP_MAX_POINTS 100000
#define SWEEP_MAX_INPUTS 100

struct vary {
    char *key;
    char **vals;
    size_t n;
};

struct input {
    char kind;                   /* 'L' launch, 'T' trace, 'S' synth */
    char *arg;                   /* absolute path (L, T) or the spec (S) */
};

struct sweep {
    char *smsim;                 /* absolute path of the smsim binary */
    char *config;                /* config as given */
    char *config_path;           /* resolved absolute path */
    char **sets;
    size_t n_sets;
    struct vary *v;
    size_t nv;
    struct input *in;
    size_t ni;
    size_t points;
    char *dir;                   /* absolute */
};

static void
sweep_free(struct sweep *sw)
{
    free(sw->smsim);
    free(sw->config);
    free(sw->config_path);
    for (size_t i = 0; i < sw->n_sets; i++)
        free(sw->sets[i]);
    free(sw->sets);
    for (size_t i = 0; i < sw->nv; i++) {
        free(sw->v[i].key);
        for (size_t j = 0; j < sw->v[i].n; j++)
            free(sw->v[i].vals[j]);
        free(sw->v[i].vals);
    }
    free(sw->v);
    for (size_t i = 0; i < sw->ni; i++)
        free(sw->in[i].arg);
    free(sw->in);
    free(sw->dir);
}

static const char *
kind_name(char k)
{
    return k == 'L' ? "launch" : k == 'T' ? "trace" : "synth";
}

/* Value index of vary j at point p (last vary fastest). */
static size_t
point_value(const struct sweep *sw, size_t p, size_t j)
{
    for (size_t k = sw->nv; k-- > j + 1; )
        p /= sw->v[k].n;
    return p % sw->v[j].n;
}

static void
job_id(char *buf, size_t n, size_t p, size_t i)
{
    snprintf(buf, n, "p%04zu-i%02zu", p, i);
}

static char *
absolute(const char *path, smsim_error *err)
{
    char *r = realpath(path, NULL);
    if (r == NULL)
        smsim_error_set(err, SMSIM_ERR_IO, "%s: %s", path, strerror(errno));
    return r;
}

/* ---- parsing and planning ------------------------------------------------------ */

static int
add_vary(struct sweep *sw, const char *arg, smsim_error *err)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg || eq[1] == '\0')
        return smsim_error_set(err, SMSIM_ERR_USAGE, "--vary expects KEY=V1,V2,... (got '%s')", arg);
    char *key = cli_xstrndup(arg, (size_t)(eq - arg));
    if (smsim_config_field_index(key) < 0) {
        smsim_error_set(err, SMSIM_ERR_CONFIG, "--vary: unknown config key '%s' (did you mean '%s'?)",
                      key, smsim_config_field_suggest(key));
        free(key);
        return SMSIM_ERR_CONFIG;
    }
    for (size_t i = 0; i < sw->nv; i++) {
        if (strcmp(sw->v[i].key, key) == 0) {
            smsim_error_set(err, SMSIM_ERR_USAGE, "--vary %s given twice", key);
            free(key);
            return SMSIM_ERR_USAGE;
        }
    }
    sw->v = cli_xrealloc(sw->v, (sw->nv + 1) * sizeof *sw->v);
    struct vary *v = &sw->v[sw->nv++];
    v->key = key;
    v->vals = NULL;
    v->n = 0;
    for (const char *p = eq + 1;; ) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0)
            return smsim_error_set(err, SMSIM_ERR_USAGE, "--vary %s: empty value in '%s'", key, eq + 1);
        v->vals = cli_xrealloc(v->vals, (v->n + 1) * sizeof *v->vals);
        v->vals[v->n++] = cli_xstrndup(p, len);
        if (c == NULL)
            break;
        p = c + 1;
    }
    return SMSIM_OK;
}

static int
add_input(struct sweep *sw, char kind, const char *arg, smsim_error *err)
{
    if (sw->ni == SWEEP_MAX_INPUTS)
        return smsim_error_set(err, SMSIM_ERR_USAGE, "at most %d inputs", SWEEP_MAX_INPUTS);
    if (strpbrk(arg, "#\n") != NULL)
        return smsim_error_set(err, SMSIM_ERR_USAGE, "'%s': inputs may not contain '#' or newlines",
                             arg);
    char *a = kind == 'S' ? cli_xstrdup(arg) : absolute(arg, err);
    if (a == NULL)
        return SMSIM_ERR_IO;
    sw->in = cli_xrealloc(sw->in, (sw->ni + 1) * sizeof *sw->in);
    sw->in[sw->ni].kind = kind;
    sw->in[sw->ni].arg = a;
    sw->ni++;
    return SMSIM_OK;
}

/* The --set arguments of point p (the fixed ones, then one per vary). */
static size_t
point_sets(const struct sweep *sw, size_t p, char **out, char bufs[][SMSIM_CONFIG_VALUE_MAX])
{
    size_t n = 0;
    for (size_t i = 0; i < sw->n_sets; i++)
        out[n++] = sw->sets[i];
    for (size_t j = 0; j < sw->nv; j++) {
        snprintf(bufs[j], SMSIM_CONFIG_VALUE_MAX, "%s=%s", sw->v[j].key,
                 sw->v[j].vals[point_value(sw, p, j)]);
        out[n++] = bufs[j];
    }
    return n;
}

/* Every point's config must load: catch bad values before running. */
static int
check_points(const struct sweep *sw, smsim_error *err)
{
    char **sets = cli_xcalloc(sw->n_sets + sw->nv + 1, sizeof *sets);
    char (*bufs)[SMSIM_CONFIG_VALUE_MAX] = cli_xcalloc(sw->nv + 1, sizeof *bufs);
    int rc = SMSIM_OK;
    for (size_t p = 0; p < sw->points && rc == SMSIM_OK; p++) {
        size_t n = point_sets(sw, p, sets, bufs);
        smsim_config *cfg = NULL;
        smsim_error e2 = { 0 };
        if (smsim_config_load(&cfg, sw->config_path, (const char *const *)sets, n, &e2) < 0)
            rc = smsim_error_set(err, e2.code, "point %zu: %s", p, e2.msg);
        smsim_config_free(cfg);
    }
    free(sets);
    free(bufs);
    return rc;
}

/* The manifest text (also the identity of the sweep). */
static char *
manifest_text(const struct sweep *sw)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (fp == NULL) {
        smsim_report(NULL, "out of memory (open_memstream)");
        exit(CLI_INTERNAL);
    }
    fprintf(fp, "# smsim sweep manifest: written by 'smsim sweep', read by 'smsim sweep collect'\n");
    fprintf(fp, "smsim = %s\nconfig = %s\nconfig_path = %s\n", sw->smsim, sw->config,
            sw->config_path);
    for (size_t i = 0; i < sw->n_sets; i++)
        fprintf(fp, "set = %s\n", sw->sets[i]);
    for (size_t j = 0; j < sw->nv; j++) {
        fprintf(fp, "vary = %s=", sw->v[j].key);
        for (size_t k = 0; k < sw->v[j].n; k++)
            fprintf(fp, "%s%s", k ? "," : "", sw->v[j].vals[k]);
        fputc('\n', fp);
    }
    for (size_t i = 0; i < sw->ni; i++)
        fprintf(fp, "input = %s %s\n", kind_name(sw->in[i].kind), sw->in[i].arg);
    fprintf(fp, "points = %zu\n", sw->points);
    fclose(fp);
    return buf;
}

static void
print_str(FILE *fp, void *arg)
{
    fputs(arg, fp);
}

static int
mkdir_p(const char *dir, smsim_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return smsim_error_set(err, SMSIM_ERR_IO, "%s: cannot create directory: %s", dir,
                             strerror(errno));
    return SMSIM_OK;
}

/* Write the manifest, or check that an existing one matches. */
static int
write_manifest(const struct sweep *sw, smsim_error *err)
{
    char path[PATH_MAX + 32];
    char *text = manifest_text(sw);
    snprintf(path, sizeof path, "%s/sweep.manifest", sw->dir);
    FILE *fp = fopen(path, "r");
    int rc = SMSIM_OK;
    if (fp != NULL) {
        size_t n = strlen(text);
        char *old = cli_xmalloc(n + 2);
        size_t got = fread(old, 1, n + 1, fp);
        fclose(fp);
        if (got != n || memcmp(old, text, n) != 0) {
            size_t line = 1;
            for (size_t i = 0; i < got && i < n && old[i] == text[i]; i++)
                line += text[i] == '\n';
            rc = smsim_error_set(err, SMSIM_ERR_USAGE,
                               "%s:%zu: this directory holds a different sweep (its manifest "
                               "differs from this command's); use another -o DIR or remove it",
                               path, line);
        }
        free(old);
    } else {
        rc = smsim_write_file(path, print_str, text, err);
    }
    free(text);
    return rc;
}

/* ---- jobs ------------------------------------------------------------------------ */

struct argv_buf {
    char *a[64 + 2 * 256];
    size_t n;
    char sets[256][SMSIM_CONFIG_VALUE_MAX];
    char stats[PATH_MAX + 64];
};

/* argv of job (p, i); the --set values live in ab. */
static void
job_argv(const struct sweep *sw, size_t p, size_t i, struct argv_buf *ab)
{
    char id[32];
    char *sets[512];
    job_id(id, sizeof id, p, i);
    size_t ns = point_sets(sw, p, sets, ab->sets);
    ab->n = 0;
    ab->a[ab->n++] = sw->smsim;
    ab->a[ab->n++] = (char *)"run";
    ab->a[ab->n++] = (char *)"--config";
    ab->a[ab->n++] = sw->config_path;
    for (size_t k = 0; k < ns; k++) {
        ab->a[ab->n++] = (char *)"--set";
        ab->a[ab->n++] = sets[k];
    }
    const struct input *in = &sw->in[i];
    ab->a[ab->n++] = (char *)(in->kind == 'L' ? "--launch" : in->kind == 'T' ? "--trace"
                                                                            : "--synth");
    ab->a[ab->n++] = in->arg;
    if (in->kind == 'L')
        ab->a[ab->n++] = (char *)"--no-outputs";
    snprintf(ab->stats, sizeof ab->stats, "%s/runs/%s.json", sw->dir, id);
    ab->a[ab->n++] = (char *)"--stats-json";
    ab->a[ab->n++] = ab->stats;
    ab->a[ab->n++] = (char *)"--quiet";
    ab->a[ab->n] = NULL;
}

static bool
job_done(const struct sweep *sw, size_t p, size_t i)
{
    char id[32], path[PATH_MAX + 64];
    job_id(id, sizeof id, p, i);
    snprintf(path, sizeof path, "%s/runs/%s.json", sw->dir, id);
    return access(path, F_OK) == 0;
}

/* Shell-quote s into fp ('...' with ' as '\''). */
static void
shq(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", fp);
        else
            fputc(*s, fp);
    }
    fputc('\'', fp);
}

/* One shell command running job (p, i) unless its result exists. */
static void
job_shell(FILE *fp, const struct sweep *sw, size_t p, size_t i)
{
    struct argv_buf *ab = cli_xmalloc(sizeof *ab);
    char id[32], log[PATH_MAX + 64];
    job_argv(sw, p, i, ab);
    job_id(id, sizeof id, p, i);
    snprintf(log, sizeof log, "%s/runs/%s.log", sw->dir, id);
    fputs("[ -e ", fp);
    shq(fp, ab->stats);
    fputs(" ] || ", fp);
    for (size_t k = 0; k < ab->n; k++) {
        if (k)
            fputc(' ', fp);
        shq(fp, ab->a[k]);
    }
    fputs(" 2>", fp);
    shq(fp, log);
    free(ab);
}

/* Remove temporary files a killed run left in DIR/runs. */
static void
clean_tmp(const struct sweep *sw)
{
    char runs[PATH_MAX + 8], path[2 * PATH_MAX];
    snprintf(runs, sizeof runs, "%s/runs", sw->dir);
    DIR *d = opendir(runs);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strstr(e->d_name, ".tmp.") != NULL) {
            snprintf(path, sizeof path, "%s/%s", runs, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

static pid_t
spawn(const struct sweep *sw, size_t p, size_t i, smsim_error *err)
{
    struct argv_buf *ab = cli_xmalloc(sizeof *ab);
    char id[32], log[PATH_MAX + 64];
    job_argv(sw, p, i, ab);
    job_id(id, sizeof id, p, i);
    snprintf(log, sizeof log, "%s/runs/%s.log", sw->dir, id);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
#ifdef __linux__
        /* a sweep killed outright (SIGKILL: no handler runs) takes its runs
         * with it; and one that died before this line was reached too */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(126);
#else
        (void)parent;
#endif
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 2) < 0 || dup2(nul, 1) < 0)
            _exit(126);
        execv(ab->a[0], ab->a);
        dprintf(2, "smsim sweep: cannot run %s: %s\n", ab->a[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        smsim_error_set(err, SMSIM_ERR_IO, "cannot start a run: %s", strerror(errno));
    free(ab);
    return pid;
}

/* Run every job not yet done, up to jobs at a time.  Returns the number of
 * jobs that failed (their logs say why), or < 0 on error. */
static long
run_jobs(const struct sweep *sw, unsigned jobs, bool quiet, smsim_error *err)
{
    size_t total = sw->points * sw->ni, todo = 0, done = 0;
    for (size_t j = 0; j < total; j++)
        todo += !job_done(sw, j / sw->ni, j % sw->ni);
    if (!quiet)
        fprintf(stderr, "smsim sweep: %zu points x %zu inputs = %zu runs: %zu done, %zu to run "
                "(%u at a time)\n", sw->points, sw->ni, total, total - todo, todo, jobs);
    if (todo == 0)
        return 0;
    pid_t *pid = cli_xcalloc(jobs, sizeof *pid);
    size_t *which = cli_xcalloc(jobs, sizeof *which);
    double *t0 = cli_xcalloc(jobs, sizeof *t0);
    size_t next = 0, running = 0;
    long failed = 0;
    int rc = SMSIM_OK;
    for (;;) {
        while (rc == SMSIM_OK && running < jobs && next < total) {
            size_t j = next++;
            if (job_done(sw, j / sw->ni, j % sw->ni))
                continue;
            unsigned slot = 0;
            while (pid[slot] != 0)
                slot++;
            pid[slot] = spawn(sw, j / sw->ni, j % sw->ni, err);
            if (pid[slot] < 0) {
                pid[slot] = 0;
                rc = SMSIM_ERR_IO;
                break;
            }
            which[slot] = j;
            t0[slot] = smsim_wall_seconds();
            running++;
        }
        if (running == 0)
            break;
        int st;
        pid_t w = wait(&st);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = smsim_error_set(err, SMSIM_ERR_IO, "wait: %s", strerror(errno));
            break;
        }
        unsigned slot = 0;
        while (slot < jobs && pid[slot] != w)
            slot++;
        if (slot == jobs)
            continue;
        pid[slot] = 0;
        running--;
        done++;
        size_t j = which[slot];
        char id[32];
        job_id(id, sizeof id, j / sw->ni, j % sw->ni);
        bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!ok)
            failed++;
        if (ok && !quiet)
            fprintf(stderr, "smsim sweep: [%zu/%zu] %s done in %.1f s\n", done, todo, id,
                    smsim_wall_seconds() - t0[slot]);
        else if (!ok)
            fprintf(stderr, "smsim sweep: [%zu/%zu] %s FAILED in %.1f s: see %s/runs/%s.log\n",
                    done, todo, id, smsim_wall_seconds() - t0[slot], sw->dir, id);
    }
    free(pid);
    free(which);
    free(t0);
    return rc < 0 ? rc : failed;
}

/* ---- emitted scripts ---------------------------------------------------------------- */

static void
print_slurm(FILE *fp, void *arg)
{
    const struct sweep *sw = arg;
    fputs("#!/bin/bash\n", fp);
    fprintf(fp, "#SBATCH --job-name=smsim-sweep\n#SBATCH --array=0-%zu\n", sw->points - 1);
    fputs("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n#SBATCH --output=", fp);
    fprintf(fp, "%s/runs/slurm-%%A_%%a.out\n", sw->dir);
    fprintf(fp, "# Written by 'smsim sweep --emit slurm': %zu points x %zu inputs.  Array task P\n"
                "# runs every input at point P; a run whose result file exists is skipped,\n"
                "# so the array can be resubmitted.  Afterwards: smsim sweep collect ", sw->points,
            sw->ni);
    shq(fp, sw->dir);
    fputs("\nset -u\nrc=0\ncase \"${SLURM_ARRAY_TASK_ID:?run this script with sbatch}\" in\n", fp);
    for (size_t p = 0; p < sw->points; p++) {
        fprintf(fp, "%zu)\n", p);
        for (size_t i = 0; i < sw->ni; i++) {
            fputs("    ", fp);
            job_shell(fp, sw, p, i);
            fputs(" || rc=1\n", fp);
        }
        fputs("    ;;\n", fp);
    }
    fputs("*)\n    echo \"no point $SLURM_ARRAY_TASK_ID in this sweep\" >&2\n    exit 1\n    ;;\n"
          "esac\nexit $rc\n", fp);
}

static void
print_jobs(FILE *fp, void *arg)
{
    const struct sweep *sw = arg;
    for (size_t p = 0; p < sw->points; p++)
        for (size_t i = 0; i < sw->ni; i++) {
            job_shell(fp, sw, p, i);
            fputc('\n', fp);
        }
}

/* ---- collect ---------------------------------------------------------------------------- */

static int
read_manifest(struct sweep *sw, const char *dir, smsim_error *err)
{
    char path[PATH_MAX + 32];
    smsim_kvfile *kf = NULL;
    char *k, *v;
    int rc;
    memset(sw, 0, sizeof *sw);
    sw->dir = absolute(dir, err);
    if (sw->dir == NULL)
        return SMSIM_ERR_IO;
    snprintf(path, sizeof path, "%s/sweep.manifest", sw->dir);
    if (smsim_kvfile_open(&kf, path, "sweep manifest", SMSIM_ERR_FORMAT, err) < 0)
        return SMSIM_ERR_IO;
    while ((rc = smsim_kvfile_next(kf, &k, &v, err)) > 0) {
        if (strcmp(k, "smsim") == 0) {
            free(sw->smsim);
            sw->smsim = cli_xstrdup(v);
        } else if (strcmp(k, "config") == 0) {
            free(sw->config);
            sw->config = cli_xstrdup(v);
        } else if (strcmp(k, "config_path") == 0) {
            free(sw->config_path);
            sw->config_path = cli_xstrdup(v);
        } else if (strcmp(k, "set") == 0) {
            sw->sets = cli_xrealloc(sw->sets, (sw->n_sets + 1) * sizeof *sw->sets);
            sw->sets[sw->n_sets++] = cli_xstrdup(v);
        } else if (strcmp(k, "vary") == 0) {
            smsim_error e2 = { 0 };
            if (add_vary(sw, v, &e2) < 0) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: %s", smsim_kvfile_where(kf), e2.msg);
                break;
            }
        } else if (strcmp(k, "input") == 0) {
            char *sp = strchr(v, ' ');
            char kind = 0;
            if (sp != NULL) {
                *sp = '\0';
                kind = strcmp(v, "launch") == 0 ? 'L' : strcmp(v, "trace") == 0 ? 'T'
                         : strcmp(v, "synth") == 0 ? 'S' : 0;
            }
            if (kind == 0) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: expected 'input = launch|trace|"
                                   "synth ARG'", smsim_kvfile_where(kf));
                break;
            }
            sw->in = cli_xrealloc(sw->in, (sw->ni + 1) * sizeof *sw->in);
            sw->in[sw->ni].kind = kind;
            sw->in[sw->ni].arg = cli_xstrdup(sp + 1);
            sw->ni++;
        } else if (strcmp(k, "points") == 0) {
            uint64_t n;
            if (cli_parse_u64(v, &n) < 0 || n == 0 || n > SWEEP_MAX_POINTS) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: expected a number of points",
                                   smsim_kvfile_where(kf));
                break;
            }
            sw->points = (size_t)n;
        } else {
            rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: unknown key '%s'", smsim_kvfile_where(kf), k);
            break;
        }
    }
    smsim_kvfile_close(kf);
    if (rc < 0)
        return rc;
    size_t prod = 1;
    for (size_t j = 0; j < sw->nv; j++)
        prod *= sw->v[j].n;
    if (sw->smsim == NULL || sw->config_path == NULL || sw->ni == 0 || sw->points != prod)
        return smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: incomplete or inconsistent manifest "
                             "(smsim, config_path, input and points = product of the vary "
                             "lists are required)", path);
    return SMSIM_OK;
}

/* CSV field, quoted when it holds a comma, quote or newline. */
static void
csv_field(FILE *fp, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

static const char *const slot_names[] = { "issued", "no_inst", "scoreboard", "memory",
                                          "pipe_busy", "barrier", "idle" };

struct collect {
    const struct sweep *sw;
    size_t n_ok, n_failed, n_missing;
    smsim_error err;
    bool bad;
};

static void
print_csv(FILE *fp, void *arg)
{
    struct collect *co = arg;
    const struct sweep *sw = co->sw;
    fputs("point,input,kind,arg", fp);
    for (size_t j = 0; j < sw->nv; j++) {
        fputc(',', fp);
        csv_field(fp, sw->v[j].key);
    }
    fputs(",status,kernels,cycles,time_us,warp_insts,ipc,achieved_occupancy,l1_hit_rate,"
          "l2_hit_rate,dram_read_bytes,dram_write_bytes,cpi", fp);
    for (size_t k = 0; k < ARRAY_LEN(slot_names); k++)
        fprintf(fp, ",cpi_%s", slot_names[k]);
    fputc('\n', fp);
    for (size_t p = 0; p < sw->points; p++) {
        for (size_t i = 0; i < sw->ni; i++) {
            char id[32], path[PATH_MAX + 64], lab[PATH_MAX];
            const char *a = sw->in[i].arg, *sl = strrchr(a, '/');
            job_id(id, sizeof id, p, i);
            snprintf(lab, sizeof lab, "%s", sw->in[i].kind == 'S' || sl == NULL ? a : sl + 1);
            fprintf(fp, "%zu,", p);
            csv_field(fp, lab);
            fprintf(fp, ",%s,", kind_name(sw->in[i].kind));
            csv_field(fp, a);
            for (size_t j = 0; j < sw->nv; j++) {
                fputc(',', fp);
                csv_field(fp, sw->v[j].vals[point_value(sw, p, j)]);
            }
            snprintf(path, sizeof path, "%s/runs/%s.json", sw->dir, id);
            json_doc *d = NULL;
            if (access(path, F_OK) == 0) {
                smsim_error e2 = { 0 };
                d = json_load(path, &e2);
                if (d == NULL && !co->bad) {
                    co->err = e2;
                    co->bad = true;
                }
            }
            if (d == NULL) {
                snprintf(path, sizeof path, "%s/runs/%s.log", sw->dir, id);
                bool failed = access(path, F_OK) == 0;
                fputs(failed ? ",failed" : ",missing", fp);
                for (size_t k = 0; k < 12 + ARRAY_LEN(slot_names); k++)
                    fputc(',', fp);
                fputc('\n', fp);
                co->n_failed += failed;
                co->n_missing += !failed;
                continue;
            }
            co->n_ok++;
            const json_value *r = json_root(d), *tot = json_get(r, "totals");
            const json_value *ks = json_get(r, "kernels");
            double cycles = json_num(json_get(r, "cycles"), 0);
            double wi = json_num(json_get(r, "warp_insts"), 0);
            double mhz = json_num(json_path(r, "config", "gpu.clock_mhz", (char *)NULL), 0);
            double part[ARRAY_LEN(slot_names)] = { 0 }, cpi = 0;
            for (size_t k = 0; k < json_len(ks); k++) {
                const json_value *kv = json_at(ks, k), *cs = json_get(kv, "cpi_stack");
                double kw = json_num(json_get(kv, "warp_insts"), 0);
                for (size_t s = 0; s < ARRAY_LEN(slot_names); s++)
                    part[s] += kw * json_num(json_get(cs, slot_names[s]), 0);
            }
            fprintf(fp, ",ok,%zu,%.0f,", json_len(ks), cycles);
            smsim_json_double(fp, mhz > 0 ? cycles / mhz : 0);
            fprintf(fp, ",%.0f,", wi);
            smsim_json_double(fp, cycles > 0 ? wi / cycles : 0);
            static const char *const keys[] = { "sm.achieved_occupancy", "sm.l1.hit_rate",
                                                "l2.hit_rate" };
            for (size_t k = 0; k < ARRAY_LEN(keys); k++) {
                fputc(',', fp);
                smsim_json_double(fp, json_num(json_get(tot, keys[k]), 0));
            }
            fprintf(fp, ",%.0f,%.0f,", json_num(json_get(tot, "dram.read_bytes"), 0),
                    json_num(json_get(tot, "dram.write_bytes"), 0));
            for (size_t s = 0; s < ARRAY_LEN(slot_names); s++) {
                part[s] = wi > 0 ? part[s] / wi : 0;
                cpi += part[s];
            }
            smsim_json_double(fp, cpi);
            for (size_t s = 0; s < ARRAY_LEN(slot_names); s++) {
                fputc(',', fp);
                smsim_json_double(fp, part[s]);
            }
            fputc('\n', fp);
            json_free(d);
        }
    }
}

static int
collect(const struct sweep *sw, bool quiet, smsim_error *err)
{
    char path[PATH_MAX + 32];
    struct collect co = { .sw = sw };
    snprintf(path, sizeof path, "%s/results.csv", sw->dir);
    if (smsim_write_file(path, print_csv, &co, err) < 0)
        return SMSIM_ERR_IO;
    if (co.bad) {
        *err = co.err;
        return SMSIM_ERR_FORMAT;
    }
    if (!quiet || co.n_failed || co.n_missing)
        fprintf(stderr, "smsim sweep: %s: %zu rows: %zu ok, %zu failed, %zu missing\n", path,
                sw->points * sw->ni, co.n_ok, co.n_failed, co.n_missing);
    return SMSIM_OK;
}

/* ---- command ------------------------------------------------------------------------- */

static void
sweep_help(FILE *out)
{
    fputs("usage: smsim sweep [--config NAME] [--set key=value]... --vary KEY=V1,V2,...\n"
          "                   [--vary ...]... (--launch FILE | --trace FILE | --synth SPEC)...\n"
          "                   -o DIR [-j N] [--emit slurm|parallel] [--quiet]\n"
          "       smsim sweep collect DIR\n\n"
          "Run every input on every point of the cartesian product of the --vary lists\n"
          "(the last --vary changes fastest) and write DIR/results.csv: one row per\n"
          "point x input with each varied key and the main statistics (cycles, time,\n"
          "IPC, occupancy, hit rates, DRAM bytes, CPI stack).  Each run's statistics go\n"
          "to DIR/runs/pPPPP-iII.json, which appears only when the run succeeds: running\n"
          "the same sweep again skips finished runs (a different sweep into the same DIR\n"
          "is refused).  Every point's config is checked before anything runs.\n\n"
          "  -j N               runs at a time (default: the number of processors)\n"
          "  --emit slurm       write DIR/sweep.slurm, a Slurm job array with one task\n"
          "                     per point, instead of running (sbatch DIR/sweep.slurm)\n"
          "  --emit parallel    write DIR/jobs.txt, one shell command per run, instead\n"
          "                     of running (parallel -j N < DIR/jobs.txt)\n"
          "  --quiet            report only failures\n"
          "collect DIR          build DIR/results.csv from the result files present\n\n"
          "Exit status 2 if a run failed (its DIR/runs/ID.log says why).\n", out);
}

int
cmd_sweep(int argc, char **argv)
{
    smsim_error err = { 0 };
    struct sweep sw = { 0 };
    int status = CLI_OK;

    if (argc >= 2 && strcmp(argv[1], "collect") == 0) {
        if (argc != 3 || argv[2][0] == '-')
            return cli_usage("sweep", "expected 'collect DIR'");
        if (read_manifest(&sw, argv[2], &err) < 0 || collect(&sw, false, &err) < 0)
            status = cli_fail(&err);
        sweep_free(&sw);
        return status;
    }

    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "vary", required_argument, NULL, 'v' },
        { "launch", required_argument, NULL, 'L' },
        { "trace", required_argument, NULL, 'T' },
        { "synth", required_argument, NULL, 'S' },
        { "output", required_argument, NULL, 'o' },
        { "jobs", required_argument, NULL, 'j' },
        { "emit", required_argument, NULL, 'e' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *config = "h100", *dir = NULL, *emit = NULL;
    uint64_t jobs = 0;
    bool quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:v:L:T:S:o:j:e:qh", opts, NULL)) != -1) {
        int rc = SMSIM_OK;
        switch (c) {
        case 'c': config = optarg; break;
        case 's':
            sw.sets = cli_xrealloc(sw.sets, (sw.n_sets + 1) * sizeof *sw.sets);
            sw.sets[sw.n_sets++] = cli_xstrdup(optarg);
            break;
        case 'v': rc = add_vary(&sw, optarg, &err); break;
        case 'L': case 'T': case 'S': rc = add_input(&sw, (char)c, optarg, &err); break;
        case 'o': dir = optarg; break;
        case 'j':
            if (cli_parse_u64(optarg, &jobs) < 0 || jobs == 0 || jobs > 1024) {
                sweep_free(&sw);
                return cli_usage("sweep", "-j takes a number of runs from 1 to 1024");
            }
            break;
        case 'e':
            if (strcmp(optarg, "slurm") != 0 && strcmp(optarg, "parallel") != 0) {
                sweep_free(&sw);
                return cli_usage("sweep", "--emit takes 'slurm' or 'parallel'");
            }
            emit = optarg;
            break;
        case 'q': quiet = true; break;
        case 'h': sweep_help(stdout); sweep_free(&sw); return CLI_OK;
        default: sweep_free(&sw); return cli_usage("sweep", "unknown option");
        }
        if (rc < 0) {
            sweep_free(&sw);
            return rc == SMSIM_ERR_USAGE ? cli_usage("sweep", "%s", err.msg) : cli_fail(&err);
        }
    }
    if (optind != argc) {
        sweep_free(&sw);
        return cli_usage("sweep", "unexpected argument '%s'", argv[optind]);
    }
    if (dir == NULL || sw.nv == 0 || sw.ni == 0) {
        sweep_free(&sw);
        return cli_usage("sweep", "expected --vary KEY=V1,..., at least one --launch, --trace "
                                  "or --synth input, and -o DIR");
    }
    if (jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (uint64_t)n : 1;
    }
    sw.points = 1;
    for (size_t j = 0; j < sw.nv; j++) {
        sw.points *= sw.v[j].n;
        if (sw.points > SWEEP_MAX_POINTS) {
            sweep_free(&sw);
            return cli_usage("sweep", "more than %d points", SWEEP_MAX_POINTS);
        }
    }
    if (sw.n_sets + sw.nv > 256) {
        sweep_free(&sw);
        return cli_usage("sweep", "at most 256 --set and --vary keys in all");
    }

    char cpath[PATH_MAX], runs[PATH_MAX + 8], lockp[PATH_MAX + 16];
    int lock = -1;
    sw.config = cli_xstrdup(config);
    sw.smsim = realpath("/proc/self/exe", NULL);
    if (sw.smsim == NULL) {
        smsim_error_set(&err, SMSIM_ERR_IO, "cannot find the smsim binary: %s", strerror(errno));
        goto fail;
    }
    if (smsim_config_resolve(config, cpath, sizeof cpath, &err) < 0)
        goto fail;
    sw.config_path = absolute(cpath, &err);
    if (sw.config_path == NULL || check_points(&sw, &err) < 0 || mkdir_p(dir, &err) < 0)
        goto fail;
    sw.dir = absolute(dir, &err);
    if (sw.dir == NULL)
        goto fail;
    snprintf(runs, sizeof runs, "%s/runs", sw.dir);
    if (mkdir_p(runs, &err) < 0 || write_manifest(&sw, &err) < 0)
        goto fail;

    if (emit != NULL) {
        char out[PATH_MAX + 32];
        bool slurm = strcmp(emit, "slurm") == 0;
        snprintf(out, sizeof out, "%s/%s", sw.dir, slurm ? "sweep.slurm" : "jobs.txt");
        if (smsim_write_file(out, slurm ? print_slurm : print_jobs, &sw, &err) < 0)
            goto fail;
        if (slurm)
            chmod(out, 0755);
        printf("%s: %zu %s (%zu points x %zu inputs)\n", out, slurm ? sw.points : sw.points * sw.ni,
               slurm ? "array tasks" : "jobs", sw.points, sw.ni);
        printf("run it with '%s %s', then 'smsim sweep collect %s'\n",
               slurm ? "sbatch" : "parallel -j N <", out, sw.dir);
        sweep_free(&sw);
        return CLI_OK;
    }

    snprintf(lockp, sizeof lockp, "%s/.lock", sw.dir);
    lock = open(lockp, O_RDWR | O_CREAT, 0666);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        smsim_error_set(&err, SMSIM_ERR_IO, "%s: %s", sw.dir, lock < 0 ? strerror(errno) :
                      "another sweep is running in this directory");
        goto fail;
    }
    clean_tmp(&sw);
    long failed = run_jobs(&sw, (unsigned)jobs, quiet, &err);
    if (failed < 0 || collect(&sw, quiet, &err) < 0)
        goto fail;
    if (failed > 0) {
        fprintf(stderr, "smsim sweep: %ld run(s) failed\n", failed);
        status = CLI_BAD_INPUT;
    }
    close(lock);
    sweep_free(&sw);
    return status;
fail:
    if (lock >= 0)
        close(lock);
    sweep_free(&sw);
    return cli_fail(&err);
}
