/*
 * ptxas.c - ptxas -v reports, run or cached (see ptxas.h).
 *
 * The report is ptxas's own text (stderr of `ptxas -arch=sm_XX -v -o
 * /dev/null FILE`), cached as is; parsing it is the same for a fresh run
 * and a cached one:
 *   ptxas info    : Compiling entry function 'k' for 'sm_90'
 *   ptxas info    : Function properties for k
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]
 */
#include "frontend/lower/ptxas.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "sim/afile.h"
#include "sim/types.h"

#define REPORT_MAX (1u << 20)   /* bytes of ptxas output kept */

/* The ptxas to run, or NULL. */
static const char *
ptxas_cmd(char *buf, size_t n)
{
    const char *env = getenv("SMSIM_PTXAS");
    if (env != NULL && env[0] != '\0')
        return strcmp(env, "none") == 0 ? NULL : env;
    const char *path = getenv("PATH");
    if (path == NULL)
        return NULL;
    for (const char *p = path; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len > 0 && (size_t)snprintf(buf, n, "%.*s/ptxas", (int)len, p) < n &&
            access(buf, X_OK) == 0)
            return buf;
        if (e == NULL)
            break;
        p = e + 1;
    }
    return NULL;
}

bool
ptxas_available(void)
{
    char buf[4096];
    return ptxas_cmd(buf, sizeof buf) != NULL;
}

/* The cache directory (created), or NULL. */
static const char *
cache_dir(char *buf, size_t n)
{
    const char *d = getenv("SMSIM_CACHE_DIR");
    if (d != NULL && d[0] != '\0') {
        snprintf(buf, n, "%s", d);
    } else if ((d = getenv("XDG_CACHE_HOME")) != NULL && d[0] != '\0') {
        snprintf(buf, n, "%s/smsim", d);
    } else if ((d = getenv("HOME")) != NULL && d[0] != '\0') {
        snprintf(buf, n, "%s/.cache/smsim", d);
    } else {
        return NULL;
    }
    /* mkdir -p */
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0755);
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return NULL;
    return buf;
}

static char *
read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    size_t cap = 65536, n = 0;
    char *b = xmalloc(cap + 1);
    size_t k;
    while ((k = fread(b + n, 1, cap - n, fp)) > 0) {
        n += k;
        if (n == cap) {
            cap *= 2;
            b = xrealloc(b, cap + 1);
        }
    }
    bool bad = ferror(fp) != 0;
    fclose(fp);
    if (bad) {
        free(b);
        return NULL;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* Does ptx_path target the architecture-specific sm_<sm>a (its .target
 * line names it: sm_90a's wgmma, setmaxnreg)?  ptxas then needs that
 * -arch. */
static bool
arch_specific(const char *ptx_path, unsigned sm)
{
    FILE *fp = fopen(ptx_path, "r");
    if (fp == NULL)
        return false;
    char line[256], want[32];
    snprintf(want, sizeof want, "sm_%ua", sm);
    bool found = false;
    for (int i = 0; i < 200 && fgets(line, sizeof line, fp) != NULL; i++) {
        const char *t = strstr(line, ".target");
        if (t != NULL) {
            found = strstr(t, want) != NULL;
            break;
        }
    }
    fclose(fp);
    return found;
}

/* Run ptxas on ptx_path for sm_<sm>; its output in *out (NUL-terminated).
 * Returns SIM_OK or an error quoting it. */
static int
run_ptxas(const char *cmd, const char *ptx_path, unsigned sm, char **out,
          struct sim_error *err)
{
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=sm_%u%s", sm, arch_specific(ptx_path, sm) ? "a" : "");
    int fds[2];
    if (pipe(fds) != 0)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot run %s: %s", ptx_path, cmd,
                             strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot run %s: %s", ptx_path, cmd,
                             strerror(errno));
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execlp(cmd, cmd, arch, "-v", "-o", "/dev/null", ptx_path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 65536, n = 0;
    char *b = xmalloc(cap + 1);
    ssize_t k;
    while ((k = read(fds[0], b + n, cap - n)) > 0 || (k < 0 && errno == EINTR)) {
        if (k < 0)
            continue;
        n += (size_t)k;
        if (n == cap && cap < REPORT_MAX) {
            cap *= 2;
            b = xrealloc(b, cap + 1);
        } else if (n == cap) {
            n = 0;               /* keep reading, drop the overflow */
        }
    }
    close(fds[0]);
    b[n] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *nl = strchr(b, '\n');
        if (nl != NULL && (nl = strchr(nl + 1, '\n')) != NULL)
            *nl = '\0';          /* two lines of its message */
        int rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: %s %s failed (%s %d): %s", ptx_path,
                               cmd, arch, WIFEXITED(status) ? "exit status" : "signal",
                               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                               n > 0 ? b : "no output");
        free(b);
        return rc;
    }
    *out = b;
    return SIM_OK;
}

static void
print_text(FILE *fp, void *arg)
{
    fputs(arg, fp);
}

/* Parse the report for kernel (func: a device function, which has no
 * register line of its own); returns true if found.  The text is split
 * into its lines in place: a line has no length limit (CUTLASS's mangled
 * kernel names run past 1,000 characters). */
static bool
parse_report(char *text, const char *kernel, bool func, struct ptxas_info *out)
{
    bool in_kernel = false, props = false, got_regs = false;
    size_t kl = strlen(kernel);
    memset(out, 0, sizeof *out);
    for (char *p = text; *p != '\0';) {
        char *e = strchr(p, '\n');
        if (e != NULL)
            *e = '\0';
        const char *q, *line = p;
        if ((q = strstr(line, "Compiling entry function '")) != NULL) {
            q += strlen("Compiling entry function '");
            in_kernel = strncmp(q, kernel, kl) == 0 && q[kl] == '\'';
        } else if ((q = strstr(line, "Function properties for ")) != NULL) {
            q += strlen("Function properties for ");
            props = strncmp(q, kernel, kl) == 0 && (q[kl] == '\0' || q[kl] == ' ');
        } else if (props && strstr(line, "bytes stack frame") != NULL) {
            unsigned st = 0, ss = 0, sl = 0;
            if (sscanf(line, " %u bytes stack frame, %u bytes spill stores, %u bytes spill loads",
                       &st, &ss, &sl) >= 1) {
                out->stack = st;
                out->spill_stores = ss;
                out->spill_loads = sl;
                got_regs = got_regs || func;
            }
            props = false;
        } else if (in_kernel && (q = strstr(line, "Used ")) != NULL) {
            unsigned r;
            if (sscanf(q, "Used %u registers", &r) == 1) {
                out->regs = r;
                got_regs = true;
            }
            in_kernel = false;
        }
        if (e == NULL)
            break;
        p = e + 1;
    }
    return got_regs;
}

static int
report_info(const char *ptx_path, const char *kernel, bool func, unsigned sm,
            struct ptxas_info *out, struct sim_error *err)
{
    size_t len;
    char *ptx = read_all(ptx_path, &len);
    if (ptx == NULL)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot read: %s", ptx_path, strerror(errno));
    unsigned long long h = (unsigned long long)XXH64(ptx, len, 0);
    free(ptx);
    char dir[4096], path[4200], cmdbuf[4096];
    const char *d = cache_dir(dir, sizeof dir);
    if (d != NULL)
        snprintf(path, sizeof path, "%s/ptxas-%016llx-sm_%u.txt", d, h, sm);
    char *report = d != NULL ? read_all(path, &len) : NULL;
    if (report == NULL) {
        const char *cmd = ptxas_cmd(cmdbuf, sizeof cmdbuf);
        if (cmd == NULL)
            return 1;
        SIM_FORWARD_IF_ERROR(run_ptxas(cmd, ptx_path, sm, &report, err));
        if (d != NULL) {
            struct sim_error ignored = { 0 };
            afile_write(path, print_text, report, &ignored);   /* a cache: best effort */
        }
    }
    bool found = parse_report(report, kernel, func, out);
    free(report);
    if (!found)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: ptxas -v reports no %s '%s' for "
                             "sm_%u", ptx_path, func ? "function" : "kernel", kernel, sm);
    return SIM_OK;
}

int
ptxas_kernel_info(const char *ptx_path, const char *kernel, unsigned sm,
                  struct ptxas_info *out, struct sim_error *err)
{
    return report_info(ptx_path, kernel, false, sm, out, err);
}

int
ptxas_function_info(const char *ptx_path, const char *func, unsigned sm,
                    struct ptxas_info *out, struct sim_error *err)
{
    return report_info(ptx_path, func, true, sm, out, err);
}
