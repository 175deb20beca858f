/*
 * kvfile: reader for the `key = value` text files smsim uses (GPU configs,
 * launch files).  '#' starts a comment; blank lines are skipped; keys and
 * values are trimmed.  Every error names "file:line".
 *
 * Usage:
 *     struct kvfile kf;
 *     if (kvfile_open(&kf, path, "config", SIM_ERR_CONFIG, err) < 0) ...
 *     while ((rc = kvfile_next(&kf, &key, &val, err)) > 0) { use kf.where }
 *     kvfile_close(&kf);
 * key and val point into an internal buffer valid until the next call.
 */
#ifndef SMSIM_KVFILE_H
#define SMSIM_KVFILE_H

#include <stdio.h>

#include "sim/error.h"

struct kvfile {
    FILE *fp;
    const char *path;
    int code;          /* error code for syntax errors (SIM_ERR_CONFIG/FORMAT) */
    unsigned line;     /* 1-based number of the line last returned */
    char where[1200];  /* "path:line" of the line last returned */
    char buf[4096];
};

/* Open path; what names the kind of file in the "cannot open" message. */
int kvfile_open(struct kvfile *kf, const char *path, const char *what, int code,
                struct sim_error *err);
/* 1 = a pair was read, 0 = end of file, < 0 = error (err set). */
int kvfile_next(struct kvfile *kf, char **key, char **val, struct sim_error *err);
void kvfile_close(struct kvfile *kf);

/* Trim leading and trailing white space in place. */
char *kv_trim(char *s);
/* rel resolved against the directory of base (malloc'd). */
char *kv_resolve(const char *base, const char *rel);

#endif
