/*
 * progress.h - the progress line of long runs (stderr).
 *
 * While a simulation runs, a line on stderr shows the kernel, blocks
 * retired of its total, simulated cycles, warp instructions per second of
 * wall time and an ETA for the kernel (from its blocks' rate).  It appears
 * only after the run has taken about 2 s, only when stderr is a terminal,
 * and is redrawn at most 4 times a second; progress_end() erases it.
 * Wall time is read at most once every 4096 issued instructions or
 * retired blocks, so the cost per instruction is a counter increment.
 */
#ifndef SMSIM_CLI_PROGRESS_H
#define SMSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/smsim.h"

struct progress {
    FILE *out;                   /* NULL = disabled */
    double t0;                   /* wall seconds at start */
    double t_kernel;             /* wall seconds at the kernel's start */
    double t_drawn;              /* wall seconds of the last redraw, 0 = none */
    uint32_t tick;               /* events since the last clock read */
    uint32_t kernel;             /* kernel index */
    const char *name;            /* kernel name */
};

/* enabled: the caller's decision (not --quiet); the line also needs a tty. */
void progress_init(struct progress *p, bool enabled);
void progress_kernel(struct progress *p, uint32_t index, const char *name);
/* A block retired: redraw the line now and then. */
void progress_event(struct progress *p, const smsim_sim *s);
/* Erase the line (if drawn). */
void progress_end(struct progress *p);

#endif /* SMSIM_CLI_PROGRESS_H */
