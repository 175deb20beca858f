/*
 * cmd_plot.c - `smsim plot`: charts from smsim's outputs, drawn by gnuplot.
 *
 * Inputs (by extension):
 *   .json   statistics (`run --stats-json`): the CPI stack per kernel and
 *           per SM, pipe utilisation and cache hit rates per kernel;
 *   .csv / .jsonl  windows (`run --windows`): GPU-wide issue utilisation of
 *           every pipe over time, and seed 000's FP32 bound (phi, phi_hat)
 *           against the FLOPs/cycle achieved;
 *   .tsv    validation results (validation/results.tsv, as written by
 *           scripts/validate.py): predicted vs measured cycles;
 *   .csv    whose header starts 'point,input,kind,arg,': a sweep's
 *           results (smsim sweep): one column (--metric) against the first
 *           varied key, a line per input and other varied values.
 * For each chart NAME it writes NAME.dat and NAME.gp into the output
 * directory (so a user can restyle and rerun it) and runs gnuplot, which
 * renders NAME.svg and NAME.png; images are written under temporary names
 * and renamed when gnuplot succeeds.  NAME is the input's base name and a
 * suffix (-cpi, -cpi-sm, -pipes, -caches, -issue, -flops, -scatter, or
 * the sweep metric's name).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/json.h"

static const char *const slot_names[] = { "issued", "no_inst", "scoreboard", "memory",
                                          "pipe_busy", "barrier", "idle" };
static const char *const pipe_names[] = { "sp", "int", "dpu", "sfu", "ldst", "tensor", "branch" };

struct plotter {
    const char *dir;
    const char *gnuplot;
    char base[256];              /* base name of the current input */
    int n_made;
};

/* ---- files ----------------------------------------------------------------- */

static void
path_in(char *buf, size_t n, const struct plotter *pl, const char *name, const char *ext)
{
    snprintf(buf, n, "%s/%s%s", pl->dir, name, ext);
}

/* A buffer of text written atomically to DIR/NAME.EXT. */
struct text {
    char *s;
    size_t n, cap;
};

static void __attribute__((format(printf, 2, 3)))
tprintf(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k >= 0 && t->s != NULL && (size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap ? 2 * t->cap + (size_t)k : 4096 + (size_t)k;
        t->s = cli_xrealloc(t->s, t->cap);
    }
}

static void
print_text(FILE *fp, void *arg)
{
    const struct text *t = arg;
    if (t->n)
        fwrite(t->s, 1, t->n, fp);
}

static int
write_text(const struct plotter *pl, const char *name, const char *ext, struct text *t,
           smsim_error *err)
{
    char path[1024];
    path_in(path, sizeof path, pl, name, ext);
    int rc = smsim_write_file(path, print_text, t, err);
    free(t->s);
    *t = (struct text){ 0 };
    return rc;
}

/* Quote a label for gnuplot data files: keep [A-Za-z0-9_.+-], else '_'. */
static void
label(char *out, size_t n, const char *s)
{
    size_t i = 0;
    for (; s && *s && i + 1 < n; s++)
        out[i++] = ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                    (*s >= '0' && *s <= '9') || strchr("_.+-", *s)) ? *s : '_';
    out[i] = '\0';
    if (i == 0)
        snprintf(out, n, "-");
}

/* The common head of a script: SVG first, PNG by replot at the end. */
static void
gp_head(struct text *g, const char *name, const char *title, int w, int h)
{
    tprintf(g, "# %s.gp - written by smsim plot; 'gnuplot %s.gp' redraws %s.svg and %s.png\n",
            name, name, name, name);
    tprintf(g, "set terminal svg size %d,%d dynamic enhanced font 'sans,11' background 'white'\n",
            w, h);
    tprintf(g, "set output '%s.svg.tmp'\nset title \"%s\" noenhanced\n", name, title);
    tprintf(g, "set grid ytics lc rgb '#dddddd'\nset border 3\nset tics nomirror\n"
               "set key outside right top noenhanced\n");
}

static void
gp_tail(struct text *g, const char *name, int w, int h)
{
    tprintf(g, "set terminal pngcairo size %d,%d font 'sans,10' background 'white'\n"
               "set output '%s.png.tmp'\nreplot\nunset output\n", w, h, name);
}

/* Run gnuplot on DIR/NAME.gp and move the images into place. */
static int
render(struct plotter *pl, const char *name, smsim_error *err)
{
    char script[512];
    snprintf(script, sizeof script, "%s.gp", name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return smsim_error_set(err, SMSIM_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(pl->dir) != 0)
            _exit(126);
        execlp(pl->gnuplot, pl->gnuplot, script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return smsim_error_set(err, SMSIM_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
    char tmp[1024], fin[1024];
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        for (int i = 0; i < 2; i++) {
            snprintf(tmp, sizeof tmp, "%s/%s.%s.tmp", pl->dir, name, i ? "png" : "svg");
            unlink(tmp);
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
            return smsim_error_set(err, SMSIM_ERR_IO,
                                 "cannot run '%s' (install gnuplot, e.g. apt-get install "
                                 "gnuplot-nox, or set SMSIM_GNUPLOT); %s/%s.gp is written",
                                 pl->gnuplot, pl->dir, name);
        return smsim_error_set(err, SMSIM_ERR_FORMAT, "%s/%s.gp: gnuplot failed (status %d)",
                             pl->dir, name, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    for (int i = 0; i < 2; i++) {
        const char *ext = i ? "png" : "svg";
        snprintf(tmp, sizeof tmp, "%s/%s.%s.tmp", pl->dir, name, ext);
        snprintf(fin, sizeof fin, "%s/%s.%s", pl->dir, name, ext);
        if (rename(tmp, fin) != 0)
            return smsim_error_set(err, SMSIM_ERR_IO, "%s: cannot rename into place: %s", fin,
                                 strerror(errno));
        printf("%s\n", fin);
    }
    pl->n_made++;
    return SMSIM_OK;
}

/* Write NAME.dat and NAME.gp, then render. */
static int
chart(struct plotter *pl, const char *suffix, struct text *dat, struct text *gp,
      smsim_error *err)
{
    char name[300];
    snprintf(name, sizeof name, "%s-%s", pl->base, suffix);
    if (write_text(pl, name, ".dat", dat, err) < 0 || write_text(pl, name, ".gp", gp, err) < 0)
        return SMSIM_ERR_IO;
    return render(pl, name, err);
}

/* ---- statistics JSON --------------------------------------------------------- */

static double
kstat(const json_value *k, const char *key)
{
    return json_num(json_get(json_get(k, "stats"), key), 0);
}

/* The first line of a .dat file: gnuplot's columnhead() names. */
static void
dat_header(struct text *dat, const char *first, const char *const *names, size_t n)
{
    tprintf(dat, "%s", first);
    for (size_t i = 0; i < n; i++)
        tprintf(dat, " %s", names[i]);
    tprintf(dat, "\n");
}

/* A clustered bar chart of ncols percentages per row (kernel) of dat,
 * written as BASE-suffix. */
static int
percent_bars(struct plotter *pl, const char *suffix, const char *title, const char *ylabel,
             size_t ncols, int w, int h, struct text *dat, struct text *gp, smsim_error *err)
{
    char name[300];
    snprintf(name, sizeof name, "%s-%s", pl->base, suffix);
    gp_head(gp, name, title, w, h);
    tprintf(gp, "set style data histograms\nset style histogram clustered gap 1\n"
                "set style fill solid 0.85 border -1\nset ylabel '%s (%%)'\n"
                "set yrange [0:100]\nset xtics rotate by -30 noenhanced\n", ylabel);
    tprintf(gp, "plot for [c=2:%zu] '%s.dat' using c:xtic(1) title columnhead(c)\n", ncols + 1,
            name);
    gp_tail(gp, name, w, h);
    return chart(pl, suffix, dat, gp, err);
}

static int
plot_stats(struct plotter *pl, const char *path, smsim_error *err)
{
    json_doc *d = json_load(path, err);
    if (d == NULL)
        return SMSIM_ERR_FORMAT;
    const json_value *ks = json_get(json_root(d), "kernels");
    size_t nk = json_len(ks);
    if (json_type_of(ks) != JSON_ARRAY || nk == 0 ||
        json_get(json_at(ks, 0), "cpi_stack") == NULL) {
        json_free(d);
        return smsim_error_set(err, SMSIM_ERR_FORMAT,
                             "%s: expected an smsim statistics file (smsim run --stats-json) "
                             "with a \"kernels\" array holding \"cpi_stack\"", path);
    }
    char name[300], lab[64];
    struct text dat = { 0 }, gp = { 0 };
    int rc;

    /* CPI stack per kernel */
    dat_header(&dat, "kernel", slot_names, ARRAY_LEN(slot_names));
    size_t longest = 0;
    for (size_t k = 0; k < nk; k++) {
        const json_value *kv = json_at(ks, k), *cs = json_get(kv, "cpi_stack");
        if (json_num(json_get(kv, "cycles"), 0) > json_num(json_get(json_at(ks, longest), "cycles"), 0))
            longest = k;
        label(lab, sizeof lab, json_str(json_get(kv, "name")));
        tprintf(&dat, "%zu:%s", k, lab);
        for (size_t i = 0; i < ARRAY_LEN(slot_names); i++)
            tprintf(&dat, " %.6g", json_num(json_get(cs, slot_names[i]), 0));
        tprintf(&dat, "\n");
    }
    snprintf(name, sizeof name, "%s-cpi", pl->base);
    gp_head(&gp, name, "CPI stack per kernel (cycles per warp instruction per SM)", 900, 500);
    tprintf(&gp, "set style data histograms\nset style histogram rowstacked\n"
                 "set style fill solid 0.85 border -1\nset boxwidth 0.7\n"
                 "set ylabel 'cycles per warp instruction'\nset xtics rotate by -30 noenhanced\n"
                 "set yrange [0:*]\n");
    tprintf(&gp, "plot for [c=2:%zu] '%s.dat' using c:xtic(1) title columnhead(c) noenhanced\n",
            ARRAY_LEN(slot_names) + 1, name);
    gp_tail(&gp, name, 900, 500);
    if ((rc = chart(pl, "cpi", &dat, &gp, err)) < 0)
        goto out;

    /* CPI stack per SM of the longest kernel */
    const json_value *kv = json_at(ks, longest);
    const json_value *psm = json_get(json_get(kv, "cpi_stack"), "per_sm");
    size_t nsm = json_len(json_get(psm, "cpi"));
    dat_header(&dat, "sm", slot_names, ARRAY_LEN(slot_names));
    for (size_t m = 0; m < nsm; m++) {
        tprintf(&dat, "%zu", m);
        for (size_t i = 0; i < ARRAY_LEN(slot_names); i++)
            tprintf(&dat, " %.6g", json_num(json_at(json_get(psm, slot_names[i]), m), 0));
        tprintf(&dat, "\n");
    }
    snprintf(name, sizeof name, "%s-cpi-sm", pl->base);
    char title[256];
    label(lab, sizeof lab, json_str(json_get(kv, "name")));
    snprintf(title, sizeof title, "CPI stack per SM, kernel %zu (%s)", longest, lab);
    gp_head(&gp, name, title, 1100, 500);
    tprintf(&gp, "set style data histograms\nset style histogram rowstacked\n"
                 "set style fill solid 0.85 noborder\nset boxwidth 1\nset xlabel 'SM'\n"
                 "set ylabel 'cycles per warp instruction'\nset yrange [0:*]\n"
                 "set xtics %zu\nset xrange [-1:%zu]\n", nsm > 16 ? (nsm + 7) / 8 : 1, nsm);
    tprintf(&gp, "plot for [c=2:%zu] '%s.dat' using c title columnhead(c)\n",
            ARRAY_LEN(slot_names) + 1, name);
    gp_tail(&gp, name, 1100, 500);
    if ((rc = chart(pl, "cpi-sm", &dat, &gp, err)) < 0)
        goto out;

    /* pipe utilisation per kernel */
    dat_header(&dat, "kernel", pipe_names, ARRAY_LEN(pipe_names));
    for (size_t k = 0; k < nk; k++) {
        const json_value *kk = json_at(ks, k);
        label(lab, sizeof lab, json_str(json_get(kk, "name")));
        tprintf(&dat, "%zu:%s", k, lab);
        for (size_t p = 0; p < ARRAY_LEN(pipe_names); p++) {
            char key[64];
            snprintf(key, sizeof key, "sm.pipe.%s.util", pipe_names[p]);
            tprintf(&dat, " %.6g", 100 * kstat(kk, key));
        }
        tprintf(&dat, "\n");
    }
    if ((rc = percent_bars(pl, "pipes", "Pipe utilisation per kernel (lane-slots used / "
                           "available)", "utilisation", ARRAY_LEN(pipe_names), 900, 500,
                           &dat, &gp, err)) < 0)
        goto out;

    /* cache hit rates per kernel */
    tprintf(&dat, "kernel L1 L2\n");
    for (size_t k = 0; k < nk; k++) {
        const json_value *kk = json_at(ks, k);
        label(lab, sizeof lab, json_str(json_get(kk, "name")));
        tprintf(&dat, "%zu:%s %.6g %.6g\n", k, lab, 100 * kstat(kk, "sm.l1.hit_rate"),
                100 * kstat(kk, "l2.hit_rate"));
    }
    rc = percent_bars(pl, "caches", "Cache hit rates per kernel (sectors)", "hit rate", 2, 800,
                      450, &dat, &gp, err);
out:
    free(dat.s);
    free(gp.s);
    json_free(d);
    return rc;
}

/* ---- windows CSV / JSON Lines -------------------------------------------------- */

/* Columns the window charts use, in .dat order. */
static const char *const wcols[] = {
    "last_cycle", "u_sp", "u_int", "u_dpu", "u_sfu", "u_ldst", "u_tensor", "u_branch",
    "phi", "phi_hat", "flops", "kernel"
};
#define WC_N (sizeof wcols / sizeof wcols[0])

static int
split_csv(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; ) {
        if (n == max)
            return -1;
        f[n++] = p;
        char *c = strchr(p, ',');
        if (c == NULL)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* Close an input after reading it: an error when reading failed (rc < 0)
 * or found no rows of the kind wanted; the chart data is freed then. */
static int
end_input(FILE *fp, char *line, struct text *dat, int rc, size_t rows, const char *path,
          const char *what, smsim_error *err)
{
    free(line);
    fclose(fp);
    if (rc == SMSIM_OK && rows == 0)
        rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s: no %s in the file", path, what);
    if (rc < 0) {
        free(dat->s);
        dat->s = NULL;
    }
    return rc;
}

static int
plot_windows(struct plotter *pl, const char *path, bool jsonl, smsim_error *err)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return smsim_error_set(err, SMSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct text dat = { 0 }, gp = { 0 };
    char *line = NULL;
    size_t cap = 0, lineno = 0, rows = 0;
    int idx[WC_N], scope = -1, rc = SMSIM_OK, nf = 0;
    char *f[128];
    ssize_t len;

    tprintf(&dat, "# cycle");
    for (size_t i = 1; i < WC_N; i++)
        tprintf(&dat, " %s", wcols[i]);
    tprintf(&dat, "\n");
    while ((len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        double v[WC_N];
        if (jsonl) {
            smsim_error e2 = { 0 };
            char where[512];
            snprintf(where, sizeof where, "%s:%zu", path, lineno);
            json_doc *d = json_parse(line, (size_t)len, where, &e2);
            if (d == NULL) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s", e2.msg);
                break;
            }
            const json_value *r = json_root(d);
            const char *sc = json_str(json_get(r, "scope"));
            bool ok = sc != NULL && json_get(r, "last_cycle") != NULL;
            for (size_t i = 0; ok && i < WC_N; i++)
                v[i] = json_num(json_get(r, wcols[i]), 0);
            bool gpu = ok && strcmp(sc, "gpu") == 0;
            json_free(d);
            if (!ok) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected a window object "
                                   "(smsim run --windows-out FILE.jsonl)", path, lineno);
                break;
            }
            if (!gpu)
                continue;
        } else {
            nf = split_csv(line, f, (int)ARRAY_LEN(f));
            if (lineno == 1) {
                for (size_t i = 0; i < WC_N; i++)
                    idx[i] = -1;
                for (int c = 0; c < nf; c++) {
                    if (strcmp(f[c], "scope") == 0)
                        scope = c;
                    for (size_t i = 0; i < WC_N; i++)
                        if (strcmp(f[c], wcols[i]) == 0)
                            idx[i] = c;
                }
                bool ok = scope >= 0;
                for (size_t i = 0; i < WC_N; i++)
                    ok = ok && idx[i] >= 0;
                if (!ok) {
                    rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:1: expected the header of a "
                                       "windows CSV (smsim run --windows-out FILE.csv)", path);
                    break;
                }
                continue;
            }
            if (nf < 0 || nf <= scope) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected a window row", path,
                                   lineno);
                break;
            }
            if (strcmp(f[scope], "gpu") != 0)
                continue;
            bool bad = false;
            for (size_t i = 0; i < WC_N; i++) {
                char *end;
                if (idx[i] >= nf) {
                    bad = true;
                    break;
                }
                v[i] = strtod(f[idx[i]], &end);
                bad = bad || end == f[idx[i]] || *end != '\0';
            }
            if (bad) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected numbers in a window "
                                   "row", path, lineno);
                break;
            }
        }
        tprintf(&dat, "%.0f", v[0]);
        for (size_t i = 1; i < WC_N - 1; i++)
            tprintf(&dat, " %.6g", (i <= 7 ? 100 : 1) * v[i]);
        tprintf(&dat, " %.0f\n", v[WC_N - 1]);
        rows++;
    }
    if ((rc = end_input(fp, line, &dat, rc, rows, path, "GPU-wide windows", err)) < 0)
        return rc;
    struct text dat2 = { 0 };
    tprintf(&dat2, "%.*s", (int)dat.n, dat.s);
    char name[300];
    snprintf(name, sizeof name, "%s-issue", pl->base);
    gp_head(&gp, name, "Issue utilisation per pipe, GPU-wide windows", 1000, 500);
    tprintf(&gp, "set xlabel 'cycle (end of window)'\nset ylabel 'utilisation (%%)'\n"
                 "set yrange [0:*]\nset style data lines\n");
    tprintf(&gp, "plot for [c=2:8] '%s.dat' using 1:c title word('sp int dpu sfu ldst tensor "
                 "branch', c-1) lw 1.5\n", name);
    gp_tail(&gp, name, 1000, 500);
    if ((rc = chart(pl, "issue", &dat, &gp, err)) < 0) {
        free(dat2.s);
        return rc;
    }
    snprintf(name, sizeof name, "%s-flops", pl->base);
    gp_head(&gp, name, "FP32 bound per window (seed 000), GPU-wide", 1000, 500);
    tprintf(&gp, "set xlabel 'cycle (end of window)'\nset ylabel 'FLOPs per cycle'\n"
                 "set yrange [0:*]\nset style data lines\n");
    tprintf(&gp, "plot '%s.dat' using 1:9 title 'Φ (bound)' lw 1.5, '' using 1:10 title "
                 "'Φ̂ (extended bound)' lw 1.5, '' using 1:11 title 'achieved' lw 1.5\n", name);
    gp_tail(&gp, name, 1000, 500);
    return chart(pl, "flops", &dat2, &gp, err);
}

/* ---- validation results TSV ------------------------------------------------------ */

static int
plot_results(struct plotter *pl, const char *path, smsim_error *err)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return smsim_error_set(err, SMSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct text dat = { 0 }, gp = { 0 };
    char *line = NULL;
    size_t cap = 0, lineno = 0, rows = 0;
    ssize_t len;
    int rc = SMSIM_OK;
    bool header = false;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[8];
        int n = 0;
        for (char *p = line; n < 8; ) {
            f[n++] = p;
            char *t = strchr(p, '\t');
            if (t == NULL)
                break;
            *t = '\0';
            p = t + 1;
        }
        if (!header) {
            if (n != 6 || strcmp(f[0], "kernel") != 0 || strcmp(f[2], "simulated") != 0 ||
                strcmp(f[5], "measured") != 0) {
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected the header 'kernel "
                                   "gpu simulated manybsp_seed manybsp_extracted measured' "
                                   "(validation/results.tsv)", path, lineno);
                break;
            }
            header = true;
            continue;
        }
        if (n != 6) {
            rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected 6 tab-separated fields",
                               path, lineno);
            break;
        }
        char *end;
        double meas = strtod(f[5], &end);
        if (end == f[5] || *end != '\0')
            continue;   /* measured value held out or missing: nothing to plot against */
        char lab[64], lab2[64];
        label(lab, sizeof lab, f[0]);
        label(lab2, sizeof lab2, f[1]);
        tprintf(&dat, "%s/%s %.0f", lab, lab2, meas);
        for (int c = 2; c <= 4; c++) {
            double v = strtod(f[c], &end);
            if (end == f[c] || *end != '\0')
                tprintf(&dat, " NaN");
            else
                tprintf(&dat, " %.0f", v);
        }
        tprintf(&dat, "\n");
        rows++;
    }
    if ((rc = end_input(fp, line, &dat, rc, rows, path, "rows with a measured value", err)) < 0)
        return rc;
    char name[300];
    snprintf(name, sizeof name, "%s-scatter", pl->base);
    gp_head(&gp, name, "Predicted vs measured kernel cycles", 700, 600);
    tprintf(&gp, "set logscale xy\nset xlabel 'measured cycles'\nset ylabel 'predicted cycles'\n"
                 "set key inside left top\nset size ratio -1\nset grid xtics ytics\n"
                 "set format xy '%%.0s%%c'\n"
                 "stats '%s.dat' using 2 nooutput\nlo = STATS_min / 2; hi = STATS_max * 2\n"
                 "set xrange [lo:hi]\nset yrange [lo:hi]\nset datafile missing 'NaN'\n", name);
    tprintf(&gp, "plot x title 'y = x' lc rgb '#888888' dt 2, "
                 "'%s.dat' using 2:3 title 'smsim (simulated)' pt 7 ps 1.2, "
                 "'' using 2:4 title 'Many-BSP (seed)' pt 5 ps 1.1, "
                 "'' using 2:5 title 'Many-BSP (extracted)' pt 9 ps 1.3, "
                 "'' using 2:3:1 with labels offset 1,0.6 font ',8' notitle noenhanced\n", name);
    gp_tail(&gp, name, 700, 600);
    return chart(pl, "scatter", &dat, &gp, err);
}

/* ---- sweep results ---------------------------------------------------------------- */

#define SWEEP_MAX_COLS 256
#define SWEEP_MAX_X 256          /* values of the first varied key */
#define SWEEP_MAX_SERIES 32      /* input x other varied values */

/* Split a CSV line in place, with "..." fields whose quotes are doubled (as
 * smsim sweep writes them); returns the field count, or -1 past max or on
 * a malformed quote. */
static int
split_csv_quoted(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == max)
            return -1;
        if (*p != '"') {
            f[n++] = p;
            p = strchr(p, ',');
            if (p == NULL)
                return n;
            *p = '\0';
            continue;
        }
        char *w = ++p;
        f[n++] = w;
        for (;;) {
            if (*p == '\0')
                return -1;
            if (*p == '"' && p[1] != '"')
                break;
            if (*p == '"')
                p++;
            *w++ = *p++;
        }
        *w = '\0';               /* w < p: the closing quote or before */
        p++;
        if (*p == '\0')
            return n;
        if (*p != ',')
            return -1;
    }
}

/* Index of s in set[0..*n), added if new; max when the set is full. */
static size_t
intern(char **set, size_t *n, size_t max, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(set[i], s) == 0)
            return i;
    if (*n == max)
        return max;
    set[*n] = strdup(s);
    if (set[*n] == NULL)
        return max;
    return (*n)++;
}

/* A gnuplot single-quoted string: ' doubled. */
static void
gp_quoted(struct text *g, const char *s)
{
    tprintf(g, "'");
    for (; *s; s++)
        tprintf(g, *s == '\'' ? "''" : "%c", *s);
    tprintf(g, "'");
}

/* DIR/results.csv of smsim sweep: `metric` against the first varied key,
 * one line per input and combination of the other varied keys; runs that
 * did not succeed are left out. */
static int
plot_sweep(struct plotter *pl, const char *path, const char *metric, smsim_error *err)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return smsim_error_set(err, SMSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *xs[SWEEP_MAX_X], *ser[SWEEP_MAX_SERIES], *hdr[SWEEP_MAX_COLS], *f[SWEEP_MAX_COLS];
    size_t nx = 0, ns = 0, rows = 0, lineno = 0, cap = 0;
    double ymax = 0;
    double *y = malloc(sizeof *y * SWEEP_MAX_X * SWEEP_MAX_SERIES);
    char *line = NULL, *head = NULL;
    int ncol = 0, status = -1, mcol = -1, rc = SMSIM_OK;
    ssize_t len;
    if (y == NULL) {
        fclose(fp);
        return smsim_error_set(err, SMSIM_ERR_IO, "%s: out of memory", path);
    }
    for (size_t i = 0; i < SWEEP_MAX_X * SWEEP_MAX_SERIES; i++)
        y[i] = NAN;
    while (rc == SMSIM_OK && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (head == NULL) {
            head = strdup(line);
            ncol = head ? split_csv_quoted(head, hdr, SWEEP_MAX_COLS) : -1;
            for (int c = 4; c < ncol && status < 0; c++)
                if (strcmp(hdr[c], "status") == 0)
                    status = c;
            for (int c = status + 1; status > 0 && c < ncol && mcol < 0; c++)
                if (strcmp(hdr[c], metric) == 0)
                    mcol = c;
            if (status <= 4)
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:1: expected a sweep header "
                                   "'point,input,kind,arg,KEY...,status,...' with at least "
                                   "one varied KEY", path);
            else if (mcol < 0)
                rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:1: no column '%s' after 'status' "
                                   "(--metric: cycles, time_us, ipc, l2_hit_rate, cpi, ...)",
                                   path, metric);
            continue;
        }
        if (line[0] == '\0')
            continue;
        int n = split_csv_quoted(line, f, SWEEP_MAX_COLS);
        if (n < 0) {
            rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected %d comma-separated "
                               "fields (a quote is not closed, or too many fields)", path,
                               lineno, ncol);
            break;
        }
        if (n != ncol) {
            rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: expected %d comma-separated "
                               "fields, found %d", path, lineno, ncol, n);
            break;
        }
        if (strcmp(f[status], "ok") != 0)
            continue;            /* failed or missing run: no value */
        char name[1024];
        int o = snprintf(name, sizeof name, "%s", f[1]);
        for (int c = 5; c < status && o > 0 && (size_t)o < sizeof name; c++)
            o += snprintf(name + o, sizeof name - (size_t)o, " %s=%s", hdr[c], f[c]);
        size_t xi = intern(xs, &nx, SWEEP_MAX_X, f[4]), si = intern(ser, &ns, SWEEP_MAX_SERIES, name);
        char *end;
        double v = strtod(f[mcol], &end);
        if (xi == SWEEP_MAX_X || si == SWEEP_MAX_SERIES) {
            rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: more than %d values of %s or %d "
                               "lines (inputs x other varied values) to draw", path, lineno,
                               SWEEP_MAX_X, hdr[4], SWEEP_MAX_SERIES);
        } else if (end == f[mcol] || *end != '\0') {
            rc = smsim_error_set(err, SMSIM_ERR_FORMAT, "%s:%zu: %s: expected a number, found '%s'",
                               path, lineno, metric, f[mcol]);
        } else {
            y[xi * SWEEP_MAX_SERIES + si] = v;
            ymax = v > ymax ? v : ymax;
            rows++;
        }
    }
    struct text dat = { 0 }, gp = { 0 };
    bool numeric = true;
    for (size_t i = 0; i < nx; i++) {
        char *end;
        (void)strtod(xs[i], &end);
        numeric = numeric && end != xs[i] && *end == '\0';
    }
    if (rc == SMSIM_OK) {
        char lab[256];
        label(lab, sizeof lab, hdr[4]);
        tprintf(&dat, "# %s", lab);
        for (size_t j = 0; j < ns; j++)
            tprintf(&dat, " s%zu", j + 1);
        tprintf(&dat, "\n");
        for (size_t i = 0; i < nx; i++) {
            label(lab, sizeof lab, xs[i]);
            tprintf(&dat, "%s", numeric ? xs[i] : lab);
            for (size_t j = 0; j < ns; j++) {
                double v = y[i * SWEEP_MAX_SERIES + j];
                if (isnan(v))
                    tprintf(&dat, " NaN");
                else
                    tprintf(&dat, " %.17g", v);
            }
            tprintf(&dat, "\n");
        }
    }
    int erc = end_input(fp, line, &dat, rc, rows, path, "successful runs", err);
    if (erc == SMSIM_OK) {
        char name[300], title[600];
        snprintf(name, sizeof name, "%s-%s", pl->base, metric);
        snprintf(title, sizeof title, "%s by %s (smsim sweep)", metric, hdr[4]);
        gp_head(&gp, name, title, 800, 500);
        tprintf(&gp, "set datafile missing 'NaN'\nset xlabel ");
        gp_quoted(&gp, hdr[4]);
        tprintf(&gp, " noenhanced\nset ylabel ");
        gp_quoted(&gp, metric);
        tprintf(&gp, " noenhanced\nset yrange [0:*]\nset key below left Left reverse\n");
        if (ymax >= 1e4)
            tprintf(&gp, "set format y '%%.1s%%c'\n");
        tprintf(&gp, "plot ");
        for (size_t j = 0; j < ns; j++) {
            tprintf(&gp, "%s'%s.dat' using %s%zu%s with linespoints pt 7 title ", j ? ", \\\n     " : "",
                    name, numeric ? "1:" : "0:", j + 2, numeric ? "" : ":xtic(1)");
            gp_quoted(&gp, ser[j]);
        }
        tprintf(&gp, "\n");
        gp_tail(&gp, name, 800, 500);
        erc = chart(pl, metric, &dat, &gp, err);
    }
    for (size_t i = 0; i < nx; i++)
        free(xs[i]);
    for (size_t i = 0; i < ns; i++)
        free(ser[i]);
    free(head);
    free(y);
    return erc;
}

/* Whether a .csv file is a sweep's results (its header says so). */
static bool
is_sweep_csv(const char *path)
{
    static const char want[] = "point,input,kind,arg,";
    char buf[sizeof want] = { 0 };
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof want - 1, fp);
    fclose(fp);
    return n == sizeof want - 1 && memcmp(buf, want, n) == 0;
}

/* ---- command --------------------------------------------------------------------- */

static bool
ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int
cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "metric", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *dir = NULL, *metric = "cycles";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case 'm': metric = optarg; break;
        case 'h':
            fputs("usage: smsim plot FILE... -o DIR [--metric COLUMN]\n\n"
                  "Draw charts of smsim's outputs with gnuplot (SVG and PNG), writing each\n"
                  "chart's data (.dat) and gnuplot script (.gp) next to it in DIR:\n"
                  "  STATS.json     from 'smsim run --stats-json': CPI stack per kernel\n"
                  "                 (-cpi) and per SM of the longest kernel (-cpi-sm), pipe\n"
                  "                 utilisation (-pipes) and cache hit rates (-caches)\n"
                  "  WINDOWS.csv    from 'smsim run --windows K --windows-out': issue\n"
                  "  WINDOWS.jsonl  utilisation of every pipe over time (-issue) and\n"
                  "                 seed 000's FP32 bound vs achieved FLOPs/cycle (-flops)\n"
                  "  RESULTS.tsv    validation/results.tsv: predicted vs measured cycles\n"
                  "                 (-scatter)\n"
                  "  DIR/results.csv  from 'smsim sweep': a column (--metric, default\n"
                  "                 cycles; any after 'status': time_us, ipc, l2_hit_rate,\n"
                  "                 cpi, cpi_memory, ...) against the first varied key, a\n"
                  "                 line per input and other varied values (-METRIC)\n"
                  "Chart names are the input's base name plus the suffix shown.  The\n"
                  "gnuplot program is $SMSIM_GNUPLOT, else 'gnuplot'.\n", stdout);
            return CLI_OK;
        default: return cli_usage("plot", "unknown option");
        }
    }
    if (dir == NULL || optind >= argc)
        return cli_usage("plot", "expected FILE... -o DIR");
    smsim_error err = { 0 };
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        smsim_error_set(&err, SMSIM_ERR_IO, "%s: cannot create directory: %s", dir, strerror(errno));
        return cli_fail(&err);
    }
    struct plotter pl = { .dir = dir };
    pl.gnuplot = getenv("SMSIM_GNUPLOT");
    if (pl.gnuplot == NULL || pl.gnuplot[0] == '\0')
        pl.gnuplot = "gnuplot";
    for (int i = optind; i < argc; i++) {
        const char *in = argv[i], *slash = strrchr(in, '/');
        const char *b = slash ? slash + 1 : in, *dot = strrchr(b, '.');
        size_t bl = dot && dot != b ? (size_t)(dot - b) : strlen(b);
        snprintf(pl.base, sizeof pl.base, "%.*s", (int)(bl < 200 ? bl : 200), b);
        int rc;
        if (ends_with(in, ".json"))
            rc = plot_stats(&pl, in, &err);
        else if (ends_with(in, ".csv") && is_sweep_csv(in))
            rc = plot_sweep(&pl, in, metric, &err);
        else if (ends_with(in, ".csv"))
            rc = plot_windows(&pl, in, false, &err);
        else if (ends_with(in, ".jsonl"))
            rc = plot_windows(&pl, in, true, &err);
        else if (ends_with(in, ".tsv"))
            rc = plot_results(&pl, in, &err);
        else
            rc = smsim_error_set(&err, SMSIM_ERR_FORMAT, "%s: expected a .json statistics file, a "
                               ".csv or .jsonl windows file or a .tsv validation results file",
                               in);
        if (rc < 0)
            return cli_fail(&err);
    }
    return CLI_OK;
}
