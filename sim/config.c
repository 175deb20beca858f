/*
 * config.c - field table, key = value parser, overrides, checks, printers.
 *
 * Invariants: every default in the table parses and lies in its range (a
 * unit test checks it); a value reaches struct sim_config only through
 * parse_value(), so every stored value has passed its range check.
 */
#include "sim/config.h"
#include "sim/cache.h"
#include "sim/kvfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


const char *const cfg_arch_names[] = { "kepler", "maxwell", "pascal", "volta", "turing",
                                       "ampere", "ada", "hopper", NULL };
const char *const cfg_sched_names[] = { "lrr", "gto", "two_level", "gtrr", NULL };
const char *const cfg_write_names[] = { "write_through", "write_back", NULL };
const char *const cfg_pipe_names[] = {
#define X(id, name, help) name,
    SIM_PIPES(X)
#undef X
    NULL
};

#define OFF(m) offsetof(struct sim_config, m)

static const struct cfg_field cfg_fields[] = {
#define CFG_U32(m, n, lo, hi, d, u, h) { n, CFG_T_U32, OFF(m), (lo), (hi), 0, 0, d, u, h, NULL },
#define CFG_U64(m, n, lo, hi, d, u, h) { n, CFG_T_U64, OFF(m), (lo), (hi), 0, 0, d, u, h, NULL },
#define CFG_F64(m, n, lo, hi, d, u, h) { n, CFG_T_F64, OFF(m), 0, 0, (lo), (hi), d, u, h, NULL },
#define CFG_BOOL(m, n, d, h) { n, CFG_T_BOOL, OFF(m), 0, 1, 0, 0, d, "", h, NULL },
#define CFG_ENUM(m, n, names, d, h) { n, CFG_T_ENUM, OFF(m), 0, 0, 0, 0, d, "", h, names },
#define CFG_STR(m, n, d, h) { n, CFG_T_STR, OFF(m), 0, CFG_STR_MAX - 1, 0, 0, d, "", h, NULL },
#define CFG_U32_IDX(m, i, n, lo, hi, d, u, h) \
    { n, CFG_T_U32, OFF(m) + (i) * sizeof(uint32_t), (lo), (hi), 0, 0, d, u, h, NULL },
#define CFG_F64_IDX(m, i, n, lo, hi, d, u, h) \
    { n, CFG_T_F64, OFF(m) + (i) * sizeof(double), 0, 0, (lo), (hi), d, u, h, NULL },
#define CFG_ENUM_IDX(m, i, n, names, d, h) \
    { n, CFG_T_ENUM, OFF(m) + (i) * sizeof(int), 0, 0, 0, 0, d, "", h, names },
#include "sim/config_fields.def"
};

#define NFIELDS SIM_ARRAY_LEN(cfg_fields)

struct cfg_origin {
    char *where[NFIELDS];        /* strdup'd "file:line", NULL = default */
};

size_t
config_field_count(void)
{
    return NFIELDS;
}

const struct cfg_field *
config_field(size_t i)
{
    return i < NFIELDS ? &cfg_fields[i] : NULL;
}

long
config_field_index(const char *name)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(cfg_fields[i].name, name) == 0)
            return (long)i;
    return -1;
}

const struct cfg_field *
config_field_find(const char *name)
{
    long i = config_field_index(name);
    return i < 0 ? NULL : &cfg_fields[i];
}

/* Levenshtein distance, for suggestions (names are short). */
static size_t
edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[128];

    if (la >= SIM_ARRAY_LEN(row) || lb >= SIM_ARRAY_LEN(row))
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    return row[lb];
}

const char *
config_field_suggest(const char *name)
{
    size_t best = (size_t)-1;
    const char *best_name = cfg_fields[0].name;

    for (size_t i = 0; i < NFIELDS; i++) {
        size_t d = edit_distance(name, cfg_fields[i].name);
        if (d < best) {
            best = d;
            best_name = cfg_fields[i].name;
        }
    }
    return best_name;
}

static void
describe_range(const struct cfg_field *f, char *buf, size_t n)
{
    switch (f->type) {
    case CFG_T_U32:
    case CFG_T_U64:
        snprintf(buf, n, "%" PRIu64 " .. %" PRIu64 "%s%s", f->umin, f->umax,
                 f->unit[0] ? " " : "", f->unit);
        break;
    case CFG_T_F64:
        snprintf(buf, n, "%g .. %g%s%s", f->fmin, f->fmax, f->unit[0] ? " " : "", f->unit);
        break;
    case CFG_T_BOOL:
        snprintf(buf, n, "true or false");
        break;
    case CFG_T_ENUM: {
        size_t len = 0;
        buf[0] = '\0';
        for (const char *const *e = f->enum_names; *e != NULL; e++) {
            int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", *e);
            if (w < 0 || (size_t)w >= n - len)
                break;
            len += (size_t)w;
        }
        break;
    }
    case CFG_T_STR:
        snprintf(buf, n, "text of at most %d characters", CFG_STR_MAX - 1);
        break;
    }
}

static bool
strieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Parse text into field f of cfg.  where = "file:line" for messages. */
static int
parse_value(struct sim_config *cfg, const struct cfg_field *f, const char *text,
            const char *where, struct sim_error *err)
{
    char *base = (char *)cfg + f->offset;
    char range[256];
    char *end = NULL;

    describe_range(f, range, sizeof range);
    switch (f->type) {
    case CFG_T_U32:
    case CFG_T_U64: {
        if (text[0] == '-' || text[0] == '\0' || !isdigit((unsigned char)text[0]))
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "%s: %s = '%s' is not a non-negative integer (allowed %s)",
                                 where, f->name, text, range);
        errno = 0;
        unsigned long long v = strtoull(text, &end, 0);
        if (errno != 0 || *end != '\0')
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "%s: %s = '%s' is not a valid integer (allowed %s)",
                                 where, f->name, text, range);
        if (v < f->umin || v > f->umax)
            return sim_error_set(err, SIM_ERR_CONFIG, "%s: %s = %s is out of range: allowed %s",
                                 where, f->name, text, range);
        if (f->type == CFG_T_U32)
            *(uint32_t *)(void *)base = (uint32_t)v;
        else
            *(uint64_t *)(void *)base = (uint64_t)v;
        return SIM_OK;
    }
    case CFG_T_F64: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !isfinite(v))
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "%s: %s = '%s' is not a number (allowed %s)",
                                 where, f->name, text, range);
        if (v < f->fmin || v > f->fmax)
            return sim_error_set(err, SIM_ERR_CONFIG, "%s: %s = %s is out of range: allowed %s",
                                 where, f->name, text, range);
        *(double *)(void *)base = v;
        return SIM_OK;
    }
    case CFG_T_BOOL: {
        static const char *const yes[] = { "true", "yes", "on", "1" };
        static const char *const no[] = { "false", "no", "off", "0" };
        for (size_t i = 0; i < SIM_ARRAY_LEN(yes); i++) {
            if (strieq(text, yes[i])) {
                *(bool *)(void *)base = true;
                return SIM_OK;
            }
            if (strieq(text, no[i])) {
                *(bool *)(void *)base = false;
                return SIM_OK;
            }
        }
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: %s = '%s' is not a boolean (allowed %s)",
                             where, f->name, text, range);
    }
    case CFG_T_ENUM:
        for (int i = 0; f->enum_names[i] != NULL; i++) {
            if (strieq(text, f->enum_names[i])) {
                *(int *)(void *)base = i;
                return SIM_OK;
            }
        }
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: %s = '%s' is not one of: %s",
                             where, f->name, text, range);
    case CFG_T_STR: {
        size_t n = strlen(text);
        if (n >= 2 && text[0] == '"' && text[n - 1] == '"') {
            text++;
            n -= 2;
        }
        if (n >= CFG_STR_MAX)
            return sim_error_set(err, SIM_ERR_CONFIG, "%s: %s is too long (allowed %s)",
                                 where, f->name, range);
        memcpy(base, text, n);
        base[n] = '\0';
        return SIM_OK;
    }
    }
    return sim_error_set(err, SIM_ERR_INTERNAL, "%s: field %s has no type", where, f->name);
}

static void
origin_set(struct cfg_origin *o, size_t i, const char *where)
{
    if (o == NULL)
        return;
    free(o->where[i]);
    o->where[i] = xstrdup(where);
}

void
config_defaults(struct sim_config *cfg)
{
    struct sim_error err;

    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < NFIELDS; i++)
        if (parse_value(cfg, &cfg_fields[i], cfg_fields[i].def, "default", &err) < 0)
            SIM_PANIC("config table: %s", err.msg);
}

#define MAX_INCLUDE_DEPTH 16

/* The files being read, outermost first, to find include cycles. */
struct include_stack {
    int n;
    dev_t dev[MAX_INCLUDE_DEPTH + 1];
    ino_t ino[MAX_INCLUDE_DEPTH + 1];
};

static int
load_file(struct sim_config *cfg, const char *path, struct include_stack *inc_stack,
          struct cfg_origin *origin, struct sim_error *err)
{
    struct kvfile kf;
    struct stat st;
    char *key, *val;
    unsigned *set_at;
    int rc;

    if (inc_stack->n > MAX_INCLUDE_DEPTH)
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: includes nested more than %d deep",
                             path, MAX_INCLUDE_DEPTH);
    rc = kvfile_open(&kf, path, "config", SIM_ERR_CONFIG, err);
    if (rc < 0)
        return rc;
    if (fstat(fileno(kf.fp), &st) != 0) {
        rc = sim_error_set(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
        kvfile_close(&kf);
        return rc;
    }
    for (int i = 0; i < inc_stack->n; i++) {
        if (inc_stack->dev[i] == st.st_dev && inc_stack->ino[i] == st.st_ino) {
            kvfile_close(&kf);
            return sim_error_set(err, SIM_ERR_CONFIG, "%s: include cycle (the file includes "
                                 "itself%s)", path, i + 1 < inc_stack->n ? " indirectly" : "");
        }
    }
    inc_stack->dev[inc_stack->n] = st.st_dev;
    inc_stack->ino[inc_stack->n] = st.st_ino;
    inc_stack->n++;
    set_at = xcalloc(NFIELDS, sizeof *set_at);
    while ((rc = kvfile_next(&kf, &key, &val, err)) > 0) {
        const char *where = kf.where;
        if (strcmp(key, "include") == 0) {
            char *inc = kv_resolve(path, val);
            rc = load_file(cfg, inc, inc_stack, origin, err);
            free(inc);
            if (rc < 0) {
                sim_error_prefix(err, "%s: in included file: ", where);
                break;
            }
            continue;
        }
        long idx = config_field_index(key);
        if (idx < 0) {
            rc = sim_error_set(err, SIM_ERR_CONFIG, "%s: unknown key '%s' (did you mean '%s'?)",
                               where, key, config_field_suggest(key));
            break;
        }
        if (set_at[idx] != 0) {
            rc = sim_error_set(err, SIM_ERR_CONFIG, "%s: '%s' is already set at line %u of this file",
                               where, key, set_at[idx]);
            break;
        }
        set_at[idx] = kf.line;
        rc = parse_value(cfg, &cfg_fields[idx], val, where, err);
        if (rc < 0)
            break;
        origin_set(origin, (size_t)idx, where);
    }
    free(set_at);
    kvfile_close(&kf);
    inc_stack->n--;
    return rc < 0 ? rc : SIM_OK;
}

int
config_load_file(struct sim_config *cfg, const char *path, struct cfg_origin *origin,
                 struct sim_error *err)
{
    struct include_stack inc_stack = { 0 };
    return load_file(cfg, path, &inc_stack, origin, err);
}

int
config_set(struct sim_config *cfg, const char *assignment, const char *where,
           struct cfg_origin *origin, struct sim_error *err)
{
    char buf[1024];
    char ctx[1200];

    snprintf(ctx, sizeof ctx, "%s %s", where, assignment);
    if (strlen(assignment) >= sizeof buf)
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: too long", ctx);
    snprintf(buf, sizeof buf, "%s", assignment);
    char *eq = strchr(buf, '=');
    if (eq == NULL)
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: expected key=value", ctx);
    *eq = '\0';
    char *key = kv_trim(buf);
    char *val = kv_trim(eq + 1);
    long idx = config_field_index(key);
    if (idx < 0)
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: unknown key '%s' (did you mean '%s'?)",
                             ctx, key, config_field_suggest(key));
    if (*val == '\0')
        return sim_error_set(err, SIM_ERR_CONFIG, "%s: missing value", ctx);
    int rc = parse_value(cfg, &cfg_fields[idx], val, ctx, err);
    if (rc == SIM_OK)
        origin_set(origin, (size_t)idx, where);
    return rc;
}

int
config_carveouts(const struct sim_config *cfg, uint32_t *out, size_t max, struct sim_error *err)
{
    const char *s = cfg->l1_carveouts_kb;
    size_t n = 0;
    uint32_t prev = 0;

    while (*s != '\0') {
        char *end;
        while (*s == ' ' || *s == ',')
            s++;
        if (*s == '\0')
            break;
        if (!isdigit((unsigned char)*s))
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "l1.carveouts_kb = '%s': expected comma-separated KB values",
                                 cfg->l1_carveouts_kb);
        unsigned long v = strtoul(s, &end, 10);
        if (n >= max || v > 1048576 || (n > 0 && v <= prev))
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "l1.carveouts_kb = '%s': expected at most %zu ascending values",
                                 cfg->l1_carveouts_kb, max);
        out[n++] = (uint32_t)v;
        prev = (uint32_t)v;
        s = end;
    }
    return (int)n;
}

double
config_dram_bytes_per_cycle(const struct sim_config *cfg)
{
    /* GB/s / (cycles/s) = bytes/cycle; GB = 1e9 bytes, MHz = 1e6 /s. */
    return cfg->dram_bandwidth_gbps * cfg->dram_efficiency * 1e3 / cfg->gpu_clock_mhz;
}

static int
check_cache(const char *name, uint32_t size_kb, uint32_t ways, uint32_t line, uint32_t sector,
            uint32_t slices, struct sim_error *err)
{
    if ((line & (line - 1)) != 0 || (sector & (sector - 1)) != 0)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "%s.line_size (%u) and %s.sector_size (%u) must be powers of two",
                             name, line, name, sector);
    if (line % sector != 0 || line / sector > CACHE_MAX_SECTORS)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "%s.line_size (%u) must be a multiple of %s.sector_size (%u), at most %u sectors",
                             name, line, name, sector, CACHE_MAX_SECTORS);
    if (size_kb == 0)
        return SIM_OK;
    uint64_t bytes = (uint64_t)size_kb * 1024;
    if (bytes % ((uint64_t)slices * ways * line) != 0)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "%s.size_kb (%u KB) must divide into %u slice(s) x %u ways x %u-byte lines",
                             name, size_kb, slices, ways, line);
    return SIM_OK;
}

int
config_validate(const struct sim_config *c, struct sim_error *err)
{
    uint32_t carve[32];
    int n;

    if (c->sm_max_threads > c->sm_max_warps * SIM_WARP_SIZE)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "sm.max_threads (%u) exceeds sm.max_warps (%u) x 32",
                             c->sm_max_threads, c->sm_max_warps);
    if (c->sm_max_threads_per_block > c->sm_max_threads)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "sm.max_threads_per_block (%u) exceeds sm.max_threads (%u)",
                             c->sm_max_threads_per_block, c->sm_max_threads);
    if (c->smem_bank_width != 4 && c->smem_bank_width != 8)
        return sim_error_set(err, SIM_ERR_CONFIG, "smem.bank_width = %u: must be 4 or 8 bytes",
                             c->smem_bank_width);
    if (c->sm_smem_per_block > c->sm_smem_size)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "sm.smem_per_block (%u) exceeds sm.smem_size (%u)",
                             c->sm_smem_per_block, c->sm_smem_size);
    if (c->sm_max_regs_per_block > c->sm_registers)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "sm.max_regs_per_block (%u) exceeds sm.registers (%u)",
                             c->sm_max_regs_per_block, c->sm_registers);
    if (c->sm_registers % c->sm_subpartitions != 0)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "sm.registers (%u) must divide evenly among sm.subpartitions (%u)",
                             c->sm_registers, c->sm_subpartitions);
    SIM_FORWARD_IF_ERROR(check_cache("l1", c->l1_size_kb, c->l1_assoc, c->l1_line_size,
                                     c->l1_sector_size, 1, err));
    SIM_FORWARD_IF_ERROR(check_cache("l2", c->l2_size_kb, c->l2_assoc, c->l2_line_size,
                                     c->l2_sector_size, c->l2_slices, err));
    if (c->dram_access_bytes != 0 &&
        ((c->dram_access_bytes & (c->dram_access_bytes - 1)) != 0 ||
         c->dram_access_bytes < c->l2_sector_size || c->dram_access_bytes > c->l2_line_size))
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "dram.access_bytes = %u: must be 0 or a power of two from "
                             "l2.sector_size (%u) to l2.line_size (%u)",
                             c->dram_access_bytes, c->l2_sector_size, c->l2_line_size);
    if (c->l2_partial_lines != 0 && c->l2_line_size / c->l2_sector_size > 4)
        return sim_error_set(err, SIM_ERR_CONFIG,
                             "l2.partial_lines = %u needs at most 4 sectors a line "
                             "(l2.line_size %u / l2.sector_size %u)",
                             c->l2_partial_lines, c->l2_line_size, c->l2_sector_size);
    if (c->l1_unified_kb != 0) {
        n = config_carveouts(c, carve, SIM_ARRAY_LEN(carve), err);
        if (n < 0)
            return n;
        if (n == 0)
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "l1.carveouts_kb is empty but l1.unified_kb is set");
        if ((uint64_t)carve[n - 1] * 1024 < c->sm_smem_size)
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "the largest carve-out (%u KB) is smaller than sm.smem_size (%u bytes)",
                                 carve[n - 1], c->sm_smem_size);
        if (carve[n - 1] > c->l1_unified_kb)
            return sim_error_set(err, SIM_ERR_CONFIG,
                                 "the largest carve-out (%u KB) exceeds l1.unified_kb (%u KB)",
                                 carve[n - 1], c->l1_unified_kb);
    }
    return SIM_OK;
}

static int
path_is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int
path_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directories searched for config names, in order. */
static size_t
search_dirs(const char **dirs, size_t max)
{
    size_t n = 0;
    const char *env = getenv("SMSIM_CONFIG_DIR");
    if (env != NULL && *env != '\0' && n < max)
        dirs[n++] = env;
#ifdef SMSIM_DATADIR
    if (n < max)
        dirs[n++] = SMSIM_DATADIR "/configs";
#endif
#ifdef SMSIM_SRCDIR
    if (n < max)
        dirs[n++] = SMSIM_SRCDIR "/configs";
#endif
    return n;
}

int
config_dir(char *buf, size_t n, struct sim_error *err)
{
    const char *dirs[4];
    size_t nd = search_dirs(dirs, SIM_ARRAY_LEN(dirs));
    for (size_t i = 0; i < nd; i++) {
        if (path_is_dir(dirs[i])) {
            snprintf(buf, n, "%s", dirs[i]);
            return SIM_OK;
        }
    }
    return sim_error_set(err, SIM_ERR_IO,
                         "no config directory found (set SMSIM_CONFIG_DIR to the configs/ folder)");
}

int
config_resolve(const char *name, char *buf, size_t n, struct sim_error *err)
{
    size_t len = strlen(name);
    const char *dirs[4];
    size_t nd;

    if (len == 0)
        return sim_error_set(err, SIM_ERR_CONFIG, "empty config name");
    if (strchr(name, '/') != NULL || (len > 4 && strcmp(name + len - 4, ".cfg") == 0)) {
        struct stat st;
        if (stat(name, &st) != 0)
            return sim_error_set(err, SIM_ERR_IO, "%s: no such config file", name);
        if (!S_ISREG(st.st_mode))
            return sim_error_set(err, SIM_ERR_IO, "%s: %s (expected a config file)", name,
                                 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        snprintf(buf, n, "%s", name);
        return SIM_OK;
    }
    nd = search_dirs(dirs, SIM_ARRAY_LEN(dirs));
    for (size_t i = 0; i < nd; i++) {
        snprintf(buf, n, "%s/%s.cfg", dirs[i], name);
        if (path_is_file(buf))
            return SIM_OK;
    }
    return sim_error_set(err, SIM_ERR_CONFIG,
                         "unknown config '%s' (run `smsim config list` for the names)", name);
}

int
config_load(struct sim_config *cfg, const char *name, const char *const *sets, size_t n_sets,
            struct cfg_origin *origin, struct sim_error *err)
{
    char path[4096];

    config_defaults(cfg);
    SIM_FORWARD_IF_ERROR(config_resolve(name, path, sizeof path, err));
    SIM_FORWARD_IF_ERROR(config_load_file(cfg, path, origin, err));
    for (size_t i = 0; i < n_sets; i++)
        SIM_FORWARD_IF_ERROR(config_set(cfg, sets[i], "--set", origin, err));
    return config_validate(cfg, err);
}

void
config_format_value(const struct sim_config *cfg, size_t i, char *buf, size_t n)
{
    const struct cfg_field *f = &cfg_fields[i];
    const char *base = (const char *)cfg + f->offset;

    switch (f->type) {
    case CFG_T_U32:
        snprintf(buf, n, "%" PRIu32, *(const uint32_t *)(const void *)base);
        break;
    case CFG_T_U64:
        snprintf(buf, n, "%" PRIu64, *(const uint64_t *)(const void *)base);
        break;
    case CFG_T_F64:
        snprintf(buf, n, "%.10g", *(const double *)(const void *)base);
        break;
    case CFG_T_BOOL:
        snprintf(buf, n, "%s", *(const bool *)(const void *)base ? "true" : "false");
        break;
    case CFG_T_ENUM:
        snprintf(buf, n, "%s", f->enum_names[*(const int *)(const void *)base]);
        break;
    case CFG_T_STR:
        snprintf(buf, n, "%s", base);
        break;
    }
}

void
config_print(FILE *out, const struct sim_config *cfg, const struct cfg_origin *origin)
{
    char val[CFG_STR_MAX + 32];
    char lhs[512];

    for (size_t i = 0; i < NFIELDS; i++) {
        const struct cfg_field *f = &cfg_fields[i];
        config_format_value(cfg, i, val, sizeof val);
        snprintf(lhs, sizeof lhs, "%s = %s", f->name, val);
        fprintf(out, "%-44s # %s%s%s\n", lhs, f->unit[0] ? f->unit : "",
                f->unit[0] ? "; " : "", config_origin_get(origin, i));
    }
}

static void
md_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else
            fputc(*s, out);
    }
}

void
config_print_reference(FILE *out)
{
    char range[256];
    char section[64] = "";

    fputs("# Configuration reference\n\n"
          "<!-- Generated by `smsim config doc` from sim/config_fields.def; do not edit. -->\n\n"
          "A config is a text file of `key = value` lines; `#` starts a comment and\n"
          "`include = FILE` reads another file (relative to the including one) at that\n"
          "point.  A key may appear once per file; a file may override what it\n"
          "included.  `smsim run --set key=value` overrides after loading.  Unknown keys,\n"
          "malformed values and values outside the ranges below are errors (exit 2)\n"
          "naming the file and line.  The defaults describe an H100 SXM5.\n", out);
    for (size_t i = 0; i < NFIELDS; i++) {
        const struct cfg_field *f = &cfg_fields[i];
        const char *dot = strchr(f->name, '.');
        size_t sl = dot ? (size_t)(dot - f->name) : strlen(f->name);
        if (strlen(section) != sl || strncmp(section, f->name, sl) != 0) {
            snprintf(section, sizeof section, "%.*s", (int)sl, f->name);
            fprintf(out, "\n## %s\n\n| key | type | unit | allowed | default | meaning |\n"
                         "|---|---|---|---|---|---|\n", section);
        }
        static const char *const tnames[] = { "u32", "u64", "f64", "bool", "enum", "string" };
        describe_range(f, range, sizeof range);
        fprintf(out, "| `%s` | %s | %s | ", f->name, tnames[f->type], f->unit);
        md_escape(out, range);
        fprintf(out, " | `%s` | ", f->def);
        md_escape(out, f->help);
        fputs(" |\n", out);
    }
}

struct cfg_origin *
config_origin_new(void)
{
    return xcalloc(1, sizeof(struct cfg_origin));
}

void
config_origin_destroy(struct cfg_origin *o)
{
    if (o == NULL)
        return;
    for (size_t i = 0; i < NFIELDS; i++)
        free(o->where[i]);
    free(o);
}

const char *
config_origin_get(const struct cfg_origin *o, size_t i)
{
    if (o == NULL || i >= NFIELDS || o->where[i] == NULL)
        return "default";
    return o->where[i];
}

uint64_t
config_op_cost(const struct sim_config *cfg, unsigned opc)
{
    unsigned p = (unsigned)cfg->op_pipe[opc];
    double iv = cfg->op_interval[opc];
    uint64_t cost = iv > 0 ? (uint64_t)llround(iv * cfg->pipe_lanes[p]) : SIM_WARP_SIZE;
    return cost ? cost : 1;
}
