/*
 * stats.h - the statistics registry and its printers.
 *
 * Modules own their counters (plain uint64_t fields) and register them by
 * name at init; the registry keeps pointers, so it must be dumped before the
 * modules are destroyed.  A counter is a scalar or a vector with one element
 * per instance (per SM, per scheduler, ...).  Derived values (IPC, hit
 * rates, utilisation) are registered as ratios of counters and computed only
 * when printing.  Per-kernel figures are differences of two snapshots.
 * Output order is registration order, so output is deterministic.
 */
#ifndef SMSIM_SIM_STATS_H
#define SMSIM_SIM_STATS_H

#include <stdio.h>
#include "sim/types.h"

typedef struct stats stats;

/* A copy of every counter's value (vectors expanded), registration order. */
struct stats_snapshot {
    uint64_t *v;                 /* values */
    size_t n;                    /* number of values */
};

stats *stats_new(void);
void stats_destroy(stats *st);

/* Register a scalar counter.  name, unit and help must outlive st (string
 * literals).  name must be unique (checked). */
void stats_add_u64(stats *st, const char *name, const uint64_t *ptr, const char *unit,
                   const char *help);

/* Register a vector counter: element i is at (char *)base + i * stride.
 * instance names the index ("sm", "sched", "slice"). */
void stats_add_vec(stats *st, const char *name, const uint64_t *base, size_t stride,
                   size_t count, const char *instance, const char *unit, const char *help);

/* Register a derived value = scale * num / den, where num and den name
 * counters registered earlier (vectors give per-instance values too).
 * Printed as 0 when den is 0. */
void stats_add_ratio(stats *st, const char *name, const char *num, const char *den,
                     double scale, const char *unit, const char *help);

/* Snapshots. */
void stats_snapshot_init(const stats *st, struct stats_snapshot *s);
void stats_snapshot_take(const stats *st, struct stats_snapshot *s);
/* out = a - b, element-wise (out may alias a). */
void stats_snapshot_diff(struct stats_snapshot *out, const struct stats_snapshot *a,
                         const struct stats_snapshot *b);
void stats_snapshot_free(struct stats_snapshot *s);

/* A snapshot packed for keeping (a kernel's statistics until the report):
 * its non-zero values as varint runs (zeros skipped, value, repeats), so a
 * run of thousands of kernels, most of whose per-SM counters are zero or
 * equal, keeps hundreds of bytes per kernel, not the whole dense array. */
struct stats_packed {
    uint8_t *b;                  /* the runs */
    size_t len;                  /* bytes of b */
    size_t n;                    /* values of the snapshot */
};
void stats_pack(struct stats_packed *p, const struct stats_snapshot *s);
/* Unpack p into s (initialised for the same registry: p->n values). */
void stats_unpack(const struct stats_packed *p, struct stats_snapshot *s);
void stats_packed_free(struct stats_packed *p);

/* Value of a counter (sum over instances for vectors) in a snapshot; -1
 * cast if the name is unknown.  For tests and summaries. */
uint64_t stats_get(const stats *st, const struct stats_snapshot *s, const char *name);
/* Number of instances of a counter (1 for scalars, 0 if unknown), and the
 * value of instance i (UINT64_MAX if unknown or out of range). */
size_t stats_instances(const stats *st, const char *name);
uint64_t stats_get_at(const stats *st, const struct stats_snapshot *s, const char *name, size_t i);
/* Derived value by name from a snapshot (NAN if unknown). */
double stats_get_ratio(const stats *st, const struct stats_snapshot *s, const char *name);

/* Text printer: one "name  value  unit" line per stat; per-instance values
 * of vectors too when per_instance is true.  prefix is put before names. */
void stats_print_text(FILE *out, const stats *st, const struct stats_snapshot *s,
                      bool per_instance);

/* JSON printer: writes an object body  "name": value, ...  (no braces) with
 * per-instance arrays under "<instance>" keys.  indent = spaces. */
void stats_print_json(FILE *out, const stats *st, const struct stats_snapshot *s, int indent);

/* Markdown table of every registered stat (doc/stats-reference.md). */
void stats_print_reference(FILE *out, const stats *st);

/* Print a JSON string literal with escapes. */
void stats_json_string(FILE *out, const char *s);
/* Print a double as JSON (finite, fixed precision, deterministic). */
void stats_json_double(FILE *out, double v);

#endif /* SMSIM_SIM_STATS_H */
