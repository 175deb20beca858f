/*
 * afile.c - temporary file + rename.
 *
 * Temporary files not yet committed or aborted are listed in pending[] so
 * that afile_cleanup_on_signals()' handler can remove them when the process
 * is interrupted.  A slot holds the pointer af->tmp from afile_open() until
 * after the rename or unlink, and the string is freed only after its slot is
 * cleared, so the handler never reads freed memory.
 */
#include "sim/afile.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AFILE_MAX_PENDING 64     /* more open at once still work, uncleaned on a signal */

static _Atomic(char *) pending[AFILE_MAX_PENDING];
static pid_t cleanup_pid;        /* the process that installed the handler (not its children) */

/* Replace the first slot holding from by to: track with (NULL, tmp), untrack
 * with (tmp, NULL).  A full table just leaves a temporary untracked. */
static void
swap_slot(char *from, char *to)
{
    for (size_t i = 0; i < AFILE_MAX_PENDING; i++) {
        char *expected = from;
        if (atomic_compare_exchange_strong(&pending[i], &expected, to))
            return;
    }
}

/* Remove the pending temporaries, then die of the signal as if unhandled. */
static void
on_signal(int sig)
{
    if (getpid() == cleanup_pid) {
        for (size_t i = 0; i < AFILE_MAX_PENDING; i++) {
            char *p = atomic_load(&pending[i]);
            if (p != NULL)
                unlink(p);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void
afile_cleanup_on_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    struct sigaction sa, old;

    cleanup_pid = getpid();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
}

int
afile_open(struct afile *af, const char *path, struct sim_error *err)
{
    memset(af, 0, sizeof *af);
    af->fd = -1;
    if (strcmp(path, "-") == 0) {
        af->fp = stdout;
        af->fd = fileno(stdout);
        af->path = xstrdup(path);
        return SIM_OK;
    }
    size_t n = strlen(path) + 16;
    af->tmp = xmalloc(n);
    snprintf(af->tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int e = errno;
        free(af->tmp);
        af->tmp = NULL;
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot create output file: %s", path,
                             strerror(e));
    }
    /* mkstemp creates 0600; use the usual 0666 & ~umask */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    af->fd = fd;
    af->fp = fdopen(fd, "w");
    if (af->fp == NULL) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        free(af->tmp);
        af->tmp = NULL;
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot open output stream: %s", path,
                             strerror(e));
    }
    af->path = xstrdup(path);
    swap_slot(NULL, af->tmp);
    return SIM_OK;
}

int
afile_commit(struct afile *af, struct sim_error *err)
{
    int rc = SIM_OK;

    if (af->tmp == NULL) {
        if (af->fp != NULL && fflush(af->fp) != 0)
            rc = sim_error_set(err, SIM_ERR_IO, "%s: write error: %s", af->path, strerror(errno));
        free(af->path);
        af->path = NULL;
        af->fp = NULL;
        return rc;
    }
    if (fflush(af->fp) != 0 || ferror(af->fp))
        rc = sim_error_set(err, SIM_ERR_IO, "%s: write error: %s", af->path, strerror(errno));
    else if (fsync(af->fd) != 0)
        rc = sim_error_set(err, SIM_ERR_IO, "%s: sync error: %s", af->path, strerror(errno));
    if (fclose(af->fp) != 0 && rc == SIM_OK)
        rc = sim_error_set(err, SIM_ERR_IO, "%s: close error: %s", af->path, strerror(errno));
    af->fp = NULL;
    af->fd = -1;
    if (rc == SIM_OK && rename(af->tmp, af->path) != 0)
        rc = sim_error_set(err, SIM_ERR_IO, "%s: cannot rename into place: %s", af->path,
                           strerror(errno));
    if (rc != SIM_OK)
        unlink(af->tmp);
    swap_slot(af->tmp, NULL);
    free(af->tmp);
    free(af->path);
    af->tmp = NULL;
    af->path = NULL;
    return rc;
}

void
afile_abort(struct afile *af)
{
    if (af->tmp != NULL) {
        if (af->fp != NULL)
            fclose(af->fp);
        unlink(af->tmp);
        swap_slot(af->tmp, NULL);
        free(af->tmp);
    }
    free(af->path);
    memset(af, 0, sizeof *af);
    af->fd = -1;
}

int
afile_write(const char *path, void (*print)(FILE *fp, void *arg), void *arg,
            struct sim_error *err)
{
    struct afile af;
    SIM_FORWARD_IF_ERROR(afile_open(&af, path, err));
    print(af.fp, arg);
    return afile_commit(&af, err);
}
