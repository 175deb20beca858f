/*
 * config.h - the simulator configuration: one typed table of fields.
 *
 * struct sim_config is generated from sim/config_fields.def, as are the
 * parser's field table, the range checks, `smsim config show` and
 * doc/config-reference.md.  A config is loaded from a `key = value` file
 * (with `include = FILE` for shared bases) and then adjusted by
 * `--set key=value` overrides.  Unknown keys, malformed and out-of-range
 * values are errors naming file:line; nothing is silently ignored.
 */
#ifndef SMSIM_SIM_CONFIG_H
#define SMSIM_SIM_CONFIG_H

#include <stdio.h>
#include "sim/types.h"
#include "sim/error.h"
#include "sim/inst.h"

#define CFG_STR_MAX 128

enum cfg_arch { CFG_ARCH_KEPLER, CFG_ARCH_MAXWELL, CFG_ARCH_PASCAL, CFG_ARCH_VOLTA,
                CFG_ARCH_TURING, CFG_ARCH_AMPERE, CFG_ARCH_ADA, CFG_ARCH_HOPPER };
enum cfg_sched { CFG_SCHED_LRR, CFG_SCHED_GTO, CFG_SCHED_TWO_LEVEL, CFG_SCHED_GTRR };
enum cfg_write { CFG_WRITE_THROUGH, CFG_WRITE_BACK };

struct sim_config {
#define CFG_U32(m, n, lo, hi, d, u, h) uint32_t m;
#define CFG_U64(m, n, lo, hi, d, u, h) uint64_t m;
#define CFG_F64(m, n, lo, hi, d, u, h) double m;
#define CFG_BOOL(m, n, d, h) bool m;
#define CFG_ENUM(m, n, names, d, h) int m;
#define CFG_STR(m, n, d, h) char m[CFG_STR_MAX];
#define CFG_U32_IDX(m, i, n, lo, hi, d, u, h)
#define CFG_F64_IDX(m, i, n, lo, hi, d, u, h)
#define CFG_ENUM_IDX(m, i, n, names, d, h)
#include "sim/config_fields.def"
#undef CFG_U32
#undef CFG_U64
#undef CFG_F64
#undef CFG_BOOL
#undef CFG_ENUM
#undef CFG_STR
#undef CFG_U32_IDX
#undef CFG_F64_IDX
#undef CFG_ENUM_IDX
    uint32_t pipe_lanes[SIM_PIPE_COUNT];     /* lanes per sub-partition */
    int op_pipe[SIM_OPC_COUNT];              /* enum sim_pipe per opcode class */
    uint32_t op_latency[SIM_OPC_COUNT];      /* cycles */
    double op_interval[SIM_OPC_COUNT];       /* cycles per warp instruction, 0 = derived */
};

enum cfg_type { CFG_T_U32, CFG_T_U64, CFG_T_F64, CFG_T_BOOL, CFG_T_ENUM, CFG_T_STR };

/* One field of the table. */
struct cfg_field {
    const char *name;            /* dotted name, e.g. "sm.count" */
    enum cfg_type type;
    size_t offset;               /* byte offset in struct sim_config */
    uint64_t umin, umax;         /* range of integer fields (inclusive) */
    double fmin, fmax;           /* range of F64 fields (inclusive) */
    const char *def;             /* default value, as text */
    const char *unit;            /* "cycles", "bytes", ... ("" if none) */
    const char *help;            /* one sentence */
    const char *const *enum_names; /* NULL-terminated, CFG_T_ENUM only */
};

/* Where each field's value came from ("default", "configs/h100.cfg:12",
 * "--set"); owned by the caller, created by config_origin_new(). */
struct cfg_origin;

/* The field table. */
size_t config_field_count(void);
const struct cfg_field *config_field(size_t i);
/* Field by exact name, or NULL. */
const struct cfg_field *config_field_find(const char *name);
/* Index of a field in the table, or -1. */
long config_field_index(const char *name);
/* The valid name closest to name (for "did you mean"), never NULL. */
const char *config_field_suggest(const char *name);

/* Fill *cfg with every field's default. */
void config_defaults(struct sim_config *cfg);

/* Load a config file (following includes) on top of the current values of
 * *cfg.  path is used as given.  origin may be NULL.  Returns SIM_OK or a
 * negative error with a message naming file:line. */
int config_load_file(struct sim_config *cfg, const char *path, struct cfg_origin *origin,
                     struct sim_error *err);

/* Apply one "key=value" override.  where names its source in messages. */
int config_set(struct sim_config *cfg, const char *assignment, const char *where,
               struct cfg_origin *origin, struct sim_error *err);

/* Cross-field checks (after loading and overrides). */
int config_validate(const struct sim_config *cfg, struct sim_error *err);

/* Resolve a config NAME ("h100") or PATH to a file path.  Search order for
 * names: $SMSIM_CONFIG_DIR, the installed data directory, the source tree.
 * Returns SIM_OK and writes the path into buf. */
int config_resolve(const char *name, char *buf, size_t n, struct sim_error *err);

/* The directory config names are looked up in first (for `config list`). */
int config_dir(char *buf, size_t n, struct sim_error *err);

/* One-stop: defaults, resolve name, load, apply overrides, validate. */
int config_load(struct sim_config *cfg, const char *name, const char *const *sets, size_t n_sets,
                struct cfg_origin *origin, struct sim_error *err);

/* Format field i of cfg as text (the form the parser accepts). */
void config_format_value(const struct sim_config *cfg, size_t i, char *buf, size_t n);

/* Print every field as `key = value  # unit; origin` lines. */
void config_print(FILE *out, const struct sim_config *cfg, const struct cfg_origin *origin);

/* Print doc/config-reference.md (the whole table, grouped by section). */
void config_print_reference(FILE *out);

struct cfg_origin *config_origin_new(void);
void config_origin_destroy(struct cfg_origin *o);
const char *config_origin_get(const struct cfg_origin *o, size_t field);

/* Enum name tables (NULL-terminated). */
extern const char *const cfg_arch_names[];
extern const char *const cfg_sched_names[];
extern const char *const cfg_write_names[];
extern const char *const cfg_pipe_names[];

/* Parsed l1.carveouts_kb: up to max values into out[], returns count or
 * a negative error. */
int config_carveouts(const struct sim_config *cfg, uint32_t *out, size_t max, struct sim_error *err);

/* Lane-slots one warp instruction of opcode class opc occupies on its
 * pipe (op.<name>.interval x the pipe's lanes; 32 when the interval is
 * derived): the pipe is busy cost / lanes cycles. */
uint64_t config_op_cost(const struct sim_config *cfg, unsigned opc);

/* Bytes per core cycle of the whole DRAM system at its achievable rate. */
double config_dram_bytes_per_cycle(const struct sim_config *cfg);

#endif /* SMSIM_SIM_CONFIG_H */
