/*
 * afile.h - atomic output files.
 *
 * Every output smsim writes (stats, CSV, traces, docs) goes to a temporary
 * file in the destination's directory and is renamed over the destination
 * only when complete, so an interrupted or failed run never leaves a
 * half-written file.  The path "-" means standard output (not atomic).
 */
#ifndef SMSIM_SIM_AFILE_H
#define SMSIM_SIM_AFILE_H

#include <stdio.h>
#include "sim/error.h"

struct afile {
    FILE *fp;                    /* stream on the temporary file (or stdout) */
    int fd;                      /* its descriptor (for pwrite users) */
    char *path;                  /* final destination */
    char *tmp;                   /* temporary file, NULL for stdout */
};

/* Create the temporary file next to path.  Returns SIM_OK or SIM_ERR_IO
 * naming the directory. */
int afile_open(struct afile *af, const char *path, struct sim_error *err);

/* Flush, sync and rename into place.  On failure the temporary is removed
 * and the destination left as it was. */
int afile_commit(struct afile *af, struct sim_error *err);

/* Discard the temporary file (safe to call after a failed commit, and on
 * a zeroed struct). */
void afile_abort(struct afile *af);

/* Install handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT (unless
 * ignored) that remove every temporary file not yet committed, then let the
 * signal end the process as usual (exit status 128 + signal).  The CLI calls
 * it once at start; a SIGKILL still leaves the destinations untouched but
 * may leave a PATH.tmp.XXXXXX behind. */
void afile_cleanup_on_signals(void);

/* Write a whole file atomically from a callback that prints into fp. */
int afile_write(const char *path, void (*print)(FILE *fp, void *arg), void *arg,
                struct sim_error *err);

#endif /* SMSIM_SIM_AFILE_H */
