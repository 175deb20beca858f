/*
 * report.h - printers for simulation results: a text summary and the JSON
 * statistics file.  They read results through sim.h only.
 *
 * JSON layout (see doc/stats-reference.md): top-level "cycles" (all kernels,
 * core clock), "warp_insts", "config" (every field), "kernels" (one object
 * per kernel with its occupancy, cycles and statistics) and "totals".
 * Output depends only on the inputs (no timestamps, no wall time), so two
 * runs of the same input give byte-identical files.
 */
#ifndef SMSIM_SIM_REPORT_H
#define SMSIM_SIM_REPORT_H

#include <stdio.h>
#include "sim/sim.h"
#include "sim/windows.h"

/* Human-readable summary of every kernel and the totals.  per_sm adds
 * per-SM values of every statistic. */
void report_text(FILE *out, const sim *s, const char *config_name, bool per_sm);

/* The JSON statistics document. */
void report_json(FILE *out, const sim *s, const char *config_name);

/* Per-window rows (sim/windows.h) as CSV (a header line, then one line
 * per row) or JSON Lines (one object per row).  n_sched = schedulers per
 * SM, the number of u_sched columns. */
enum report_wfmt { REPORT_WCSV, REPORT_WJSONL };
void report_window_header(FILE *out, enum report_wfmt f, uint32_t n_sched);
void report_window_row(FILE *out, enum report_wfmt f, uint32_t n_sched,
                       const struct window_row *r);

/* The statistics reference (doc/stats-reference.md) for a simulator. */
void report_stats_reference(FILE *out, const sim *s);

#endif /* SMSIM_SIM_REPORT_H */
