/*
 * launch.c - launch-file parser, buffer initialisation and outputs.
 */
#include "frontend/launch.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/ptx_call.h"
#include "frontend/ptx_half.h"
#include "frontend/ptx_ir.h"
#include "sim/afile.h"
#include "sim/kvfile.h"

#define MAX_ARGS 64
#define MAX_BUFFER_BYTES (UINT64_C(8) << 30)   /* all buffers together, by default */

static uint64_t buffer_limit = MAX_BUFFER_BYTES;

void
launch_set_buffer_limit(uint64_t bytes)
{
    buffer_limit = bytes != 0 ? bytes : MAX_BUFFER_BYTES;
}

static const char *const type_names[LT_COUNT] = { "u8", "s8", "u16", "s16", "u32", "s32",
                                                  "u64", "s64", "f32", "f64", "f16", "bf16" };
static const uint8_t type_bytes[LT_COUNT] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2, 2 };

unsigned
launch_type_bytes(unsigned t)
{
    return t < LT_COUNT ? type_bytes[t] : 0;
}

const char *
launch_type_name(unsigned t)
{
    return t < LT_COUNT ? type_names[t] : "?";
}

bool
launch_type_is_float(unsigned t)
{
    return t == LT_F32 || t == LT_F64 || t == LT_F16 || t == LT_BF16;
}

static int
type_lookup(const char *s)
{
    for (int i = 0; i < LT_COUNT; i++)
        if (strcmp(type_names[i], s) == 0)
            return i;
    return -1;
}

int
launch_find_arg(const struct launch *l, const char *name)
{
    for (uint32_t i = 0; i < l->n_args; i++)
        if (strcmp(l->args[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* splitmix64: the seeded generator for random initialisers */
static uint64_t
splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* v truncated toward zero and reduced modulo 2^64 (NaN gives 0): the bit
 * pattern of an integer element, defined for every double.  Values in the
 * range of int64_t or uint64_t convert exactly as a C cast would. */
static uint64_t
wrap_u64(double v)
{
    const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
    if (isnan(v))
        return 0;
    if (v >= -two63 && v < two63)
        return (uint64_t)(int64_t)v;
    if (v >= two63 && v < two64)
        return (uint64_t)v;
    double m = fmod(trunc(v), two64);  /* exact: |v| >= 2^63 is an integer */
    if (isnan(m))
        return 0;                      /* infinities */
    return m < 0 ? (uint64_t)0 - (uint64_t)(-m) : (uint64_t)m;
}

/* Store v as one element of type at p (little-endian).  Integer types take
 * the low bytes of wrap_u64(v), so out-of-range values wrap instead of
 * being undefined. */
static void
store(uint8_t *p, unsigned type, double v)
{
    if (type == LT_F32) {
        float x = (float)v;
        memcpy(p, &x, 4);
    } else if (type == LT_F64) {
        memcpy(p, &v, 8);
    } else if (type == LT_F16 || type == LT_BF16) {
        /* rounded to nearest even, as cvt.rn.f16.f64 / __double2half would */
        uint16_t h = ptx_half_round(v, type == LT_F16 ? PTX_HF16 : PTX_HBF16, PR_RN);
        p[0] = (uint8_t)h;
        p[1] = (uint8_t)(h >> 8);
    } else {
        uint64_t x = wrap_u64(v);
        for (unsigned i = 0; i < launch_type_bytes(type); i++)
            p[i] = (uint8_t)(x >> (8 * i));
    }
}

/* chase STRIDE: the elements at multiples of STRIDE form one random cycle
 * (Sattolo's algorithm); each holds the element index of the next. */
static void
fill_chase(uint8_t *dst, unsigned type, uint64_t n, uint64_t stride, uint64_t seed)
{
    unsigned b = launch_type_bytes(type);
    uint64_t m = n / stride, s = seed;
    uint64_t *next = xmalloc((m ? m : 1) * sizeof *next);
    for (uint64_t i = 0; i < m; i++)
        next[i] = i;
    for (uint64_t i = m - 1; m > 1 && i > 0; i--) {
        uint64_t j = splitmix(&s) % i;
        uint64_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    memset(dst, 0, n * b);
    for (uint64_t i = 0; i < m; i++) {
        uint64_t v = next[i] * stride;
        memcpy(dst + i * stride * b, &v, b);  /* little-endian: low bytes */
    }
    free(next);
}

void
launch_fill(uint8_t *dst, unsigned type, uint64_t n, unsigned init, double lo, double hi,
            uint64_t seed)
{
    unsigned b = launch_type_bytes(type);
    uint64_t s = seed;
    if (init == LI_CHASE) {
        fill_chase(dst, type, n, (uint64_t)lo, seed);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        double v;
        switch (init) {
        case LI_CONST:
            v = lo;
            break;
        case LI_SEQ:
            v = lo + (double)i * hi;
            break;
        case LI_RANDOM: {
            uint64_t r = splitmix(&s);
            if (launch_type_is_float(type)) {
                v = lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
            } else {
                /* parse_arg keeps integer ranges inside int64_t */
                int64_t a = (int64_t)lo, z = (int64_t)hi;
                uint64_t span = (uint64_t)z - (uint64_t)a + 1;
                v = (double)(a + (int64_t)(span ? r % span : r));
            }
            break;
        }
        default:
            v = 0;
            break;
        }
        store(dst + i * b, type, v);
    }
}

static bool
parse_dims(char *v, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    int i = 0;
    for (char *t = strtok(v, ", \t"); t != NULL; t = strtok(NULL, ", \t")) {
        char *end;
        errno = 0;
        unsigned long x = strtoul(t, &end, 10);
        if (i == 3 || *end != '\0' || errno != 0 || x == 0 || x > 0x7fffffffUL || t[0] == '-')
            return false;
        d[i++] = (uint32_t)x;
    }
    return i > 0;
}

static bool
parse_double(const char *s, double *out)
{
    char *end;
    if (s == NULL)
        return false;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* arg = NAME TYPE VALUE | NAME buffer TYPE COUNT INIT... */
static int
parse_arg(struct launch *l, char *v, const char *where, uint64_t *total, struct sim_error *err)
{
    char *tok[12];
    int n = 0;
    for (char *t = strtok(v, " \t"); t != NULL && n < 12; t = strtok(NULL, " \t"))
        tok[n++] = t;
    if (n < 3)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: expected 'arg = NAME TYPE VALUE' or 'arg = NAME buffer TYPE COUNT "
                             "INIT'", where);
    if (l->n_args == MAX_ARGS)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: more than %d arguments", where, MAX_ARGS);
    if (strlen(tok[0]) >= sizeof l->args[0].name)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: argument name too long", where);
    if (launch_find_arg(l, tok[0]) >= 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: argument '%s' named twice", where, tok[0]);
    struct launch_arg a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "%s", tok[0]);
    if (strcmp(tok[1], "buffer") != 0) {
        int t = type_lookup(tok[1]);
        if (t < 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown type '%s' (expected u8 s8 u16 "
                                 "s16 u32 s32 u64 s64 f32 f64 f16 bf16 or buffer)", where,
                                 tok[1]);
        if (n != 3)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: a scalar takes one value", where);
        a.type = (uint8_t)t;
        a.bytes = launch_type_bytes((unsigned)t);
        double d;
        char *end;
        if (launch_type_is_float((unsigned)t)) {
            if (!parse_double(tok[2], &d))
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' is not a number", where, tok[2]);
        } else {
            errno = 0;
            long long x = strtoll(tok[2], &end, 0);
            if (*end != '\0' || errno != 0) {
                unsigned long long ux = strtoull(tok[2], &end, 0);
                if (*end != '\0' || tok[2][0] == '-')
                    return sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' is not an integer", where,
                                         tok[2]);
                memcpy(&a.value, &ux, 8);
                goto scalar_done;
            }
            d = (double)x;
            if (t == LT_U64 || t == LT_S64) {
                memcpy(&a.value, &x, 8);
                goto scalar_done;
            }
        }
        store((uint8_t *)&a.value, (unsigned)t, d);
    scalar_done:
        a.line = 0;
        l->args = xrealloc(l->args, (l->n_args + 1) * sizeof *l->args);
        l->args[l->n_args++] = a;
        return SIM_OK;
    }
    if (n < 5)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'arg = NAME buffer TYPE COUNT INIT'",
                             where);
    int t = type_lookup(tok[2]);
    if (t < 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown element type '%s'", where, tok[2]);
    char *end;
    errno = 0;
    unsigned long long cnt = strtoull(tok[3], &end, 0);
    if (*end != '\0' || errno != 0 || cnt == 0 || tok[3][0] == '-')
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad element count '%s'", where, tok[3]);
    a.buffer = true;
    a.type = (uint8_t)t;
    a.count = cnt;
    if (cnt > buffer_limit / launch_type_bytes((unsigned)t) ||
        *total + cnt * launch_type_bytes((unsigned)t) > buffer_limit)
        return sim_error_set(err, SIM_ERR_NOMEM, "%s: buffers larger than %" PRIu64 " bytes in all",
                             where, buffer_limit);
    a.bytes = cnt * launch_type_bytes((unsigned)t);
    const char *init = tok[4];
    char **rest = &tok[5];
    int nr = n - 5;
    if (strcmp(init, "zeros") == 0 && nr == 0) {
        a.init = LI_ZEROS;
    } else if (strcmp(init, "const") == 0 && nr == 1 && parse_double(rest[0], &a.lo)) {
        a.init = LI_CONST;
    } else if (strcmp(init, "seq") == 0 && (nr == 1 || nr == 2) && parse_double(rest[0], &a.lo)) {
        a.init = LI_SEQ;
        a.hi = 1;
        if (nr == 2 && !parse_double(rest[1], &a.hi))
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad seq step '%s'", where, rest[1]);
    } else if (strcmp(init, "random") == 0 && (nr == 2 || nr == 4) &&
               parse_double(rest[0], &a.lo) && parse_double(rest[1], &a.hi)) {
        a.init = LI_RANDOM;
        a.seed = 1;
        if (nr == 4) {
            if (strcmp(rest[2], "seed") != 0)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'seed S' after the range",
                                     where);
            errno = 0;
            a.seed = strtoull(rest[3], &end, 0);
            if (*end != '\0' || errno != 0)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad seed '%s'", where, rest[3]);
        }
        if (a.hi < a.lo)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: random range %g .. %g is empty", where,
                                 a.lo, a.hi);
        if (!launch_type_is_float((unsigned)t) &&
            (a.lo < -9223372036854775808.0 || a.hi >= 9223372036854775808.0))
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: random range %g .. %g of integers "
                                 "outside -2^63 .. 2^63-1", where, a.lo, a.hi);
    } else if (strcmp(init, "chase") == 0 && (nr == 1 || nr == 3)) {
        a.init = LI_CHASE;
        a.seed = 1;
        errno = 0;
        unsigned long long st = strtoull(rest[0], &end, 0);
        if (*end != '\0' || errno != 0 || st == 0 || st > cnt || rest[0][0] == '-')
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad chase stride '%s' (1 .. COUNT "
                                 "elements)", where, rest[0]);
        if (launch_type_is_float((unsigned)t) || launch_type_bytes((unsigned)t) < 4 ||
            (launch_type_bytes((unsigned)t) == 4 && cnt > UINT32_MAX))
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: chase needs 32- or 64-bit integer "
                                 "elements able to hold every index", where);
        a.lo = (double)st;
        if (nr == 3) {
            if (strcmp(rest[1], "seed") != 0)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'seed S' after the stride",
                                     where);
            errno = 0;
            a.seed = strtoull(rest[2], &end, 0);
            if (*end != '\0' || errno != 0)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad seed '%s'", where, rest[2]);
        }
    } else if (strcmp(init, "file") == 0 && nr == 1) {
        a.init = LI_FILE;
    } else {
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: bad initialiser (expected zeros | const V | random LO HI [seed S] "
                             "| seq START [STEP] | chase STRIDE [seed S] | file PATH)", where);
    }
    a.data = calloc(1, a.bytes);
    if (a.data == NULL)
        return sim_error_set(err, SIM_ERR_NOMEM, "%s: cannot allocate %llu bytes", where,
                             (unsigned long long)a.bytes);
    if (a.init == LI_FILE) {
        char *p = kv_resolve(l->path, rest[0]);
        FILE *fp = fopen(p, "rb");
        if (fp == NULL) {
            int e = errno;
            free(a.data);
            sim_error_set(err, SIM_ERR_IO, "%s: cannot open %s: %s", where, p, strerror(e));
            free(p);
            return SIM_ERR_IO;
        }
        size_t got = fread(a.data, 1, a.bytes, fp);
        int extra = fgetc(fp);
        fclose(fp);
        if (got != a.bytes || extra != EOF) {
            free(a.data);
            sim_error_set(err, SIM_ERR_FORMAT, "%s: %s holds %s bytes than the buffer's %llu", where,
                          p, got != a.bytes ? "fewer" : "more", (unsigned long long)a.bytes);
            free(p);
            return SIM_ERR_FORMAT;
        }
        free(p);
    } else if (a.init != LI_ZEROS) {
        launch_fill(a.data, a.type, a.count, a.init, a.lo, a.hi, a.seed);
    }
    *total += a.bytes;
    l->args = xrealloc(l->args, (l->n_args + 1) * sizeof *l->args);
    l->args[l->n_args++] = a;
    return SIM_OK;
}

int
launch_parse(const char *path, struct launch **out, struct sim_error *err)
{
    struct kvfile kf;
    char *key, *v;
    uint64_t total = 0;
    int rc = kvfile_open(&kf, path, "launch", SIM_ERR_FORMAT, err);

    if (rc < 0)
        return rc;
    struct launch *l = xcalloc(1, sizeof *l);
    l->path = xstrdup(path);
    l->regs = 32;
    l->repeat = 1;
    l->stack = PTX_STACK_DEFAULT;
    while ((rc = kvfile_next(&kf, &key, &v, err)) > 0) {
        const char *where = kf.where;
        unsigned lineno = kf.line;
        if (strcmp(key, "ptx") == 0 && l->ptx_path == NULL) {
            l->ptx_path = kv_resolve(path, v);
            l->line_ptx = lineno;
        } else if (strcmp(key, "kernel") == 0 && l->kernel[0] == '\0') {
            if (strlen(v) >= sizeof l->kernel) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: kernel name too long", where);
                break;
            }
            snprintf(l->kernel, sizeof l->kernel, "%s", v);
            l->line_kernel = lineno;
        } else if (strcmp(key, "grid") == 0 && l->line_grid == 0) {
            if (!parse_dims(v, l->grid)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected grid = X[, Y[, Z]] with "
                                   "positive values below 2^31", where);
                break;
            }
            uint64_t nb = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
            if (nb > SIM_MAX_GRID_BLOCKS) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: the grid has %" PRIu64 " blocks, "
                                   "more than smsim's limit of %u", where, nb, SIM_MAX_GRID_BLOCKS);
                break;
            }
            l->line_grid = lineno;
        } else if (strcmp(key, "block") == 0 && l->line_block == 0) {
            if (!parse_dims(v, l->block) ||
                (uint64_t)l->block[0] * l->block[1] * l->block[2] > SIM_MAX_THREADS_PER_BLOCK) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected block = X[, Y[, Z]] of at "
                                   "most %u threads", where, SIM_MAX_THREADS_PER_BLOCK);
                break;
            }
            l->line_block = lineno;
        } else if (strcmp(key, "smem") == 0) {
            char *end;
            errno = 0;
            unsigned long x = strtoul(v, &end, 0);
            if (*end != '\0' || errno != 0 || x > (1u << 20) || v[0] == '-') {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad smem '%s' (bytes, at most 1 MiB)",
                                   where, v);
                break;
            }
            l->smem = (uint32_t)x;
        } else if (strcmp(key, "regs") == 0 && strcmp(v, "auto") == 0) {
            l->regs_auto = l->regs_given = true;
        } else if (strcmp(key, "regs") == 0) {
            char *end;
            errno = 0;
            unsigned long x = strtoul(v, &end, 0);
            if (*end != '\0' || errno != 0 || x == 0 || x > 255 || v[0] == '-') {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad regs '%s' (1 .. 255 registers per "
                                   "thread, or auto)", where, v);
                break;
            }
            l->regs = (uint32_t)x;
            l->regs_given = true;
        } else if (strncmp(key, "regs.sm_", 8) == 0) {
            char *end, *vend;
            errno = 0;
            unsigned long cc = strtoul(key + 8, &end, 10);
            unsigned long x = strtoul(v, &vend, 0);
            if (*end != '\0' || end == key + 8 || cc < 10 || cc > 199 || errno != 0 ||
                *vend != '\0' || x == 0 || x > 255 || v[0] == '-') {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad '%s = %s' (expected regs.sm_NN = "
                                   "1 .. 255 registers per thread, e.g. regs.sm_90 = 32)", where,
                                   key, v);
                break;
            }
            unsigned i;
            for (i = 0; i < l->n_regs_arch && l->regs_cc[i] != cc; i++)
                ;
            if (i < l->n_regs_arch || l->n_regs_arch == LAUNCH_MAX_REGS_ARCH) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, i < l->n_regs_arch ? "%s: '%s' given "
                                   "twice" : "%s: more than 16 regs.sm_NN lines (%s)", where, key);
                break;
            }
            l->regs_cc[l->n_regs_arch] = (uint32_t)cc;
            l->regs_arch[l->n_regs_arch++] = (uint32_t)x;
        } else if (strcmp(key, "repeat") == 0) {
            char *end;
            errno = 0;
            unsigned long x = strtoul(v, &end, 0);
            if (*end != '\0' || errno != 0 || x == 0 || x > 100000 || v[0] == '-') {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad repeat '%s' (1 .. 100000 "
                                   "launches)", where, v);
                break;
            }
            l->repeat = (uint32_t)x;
        } else if (strcmp(key, "stack") == 0) {
            char *end;
            errno = 0;
            unsigned long x = strtoul(v, &end, 0);
            if (*end != '\0' || errno != 0 || x < 16 || x > (1u << 20) || v[0] == '-') {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: bad stack '%s' (bytes of call stack "
                                   "per thread, 16 .. 1 MiB)", where, v);
                break;
            }
            l->stack = (uint32_t)x;
        } else if (strcmp(key, "arg") == 0) {
            rc = parse_arg(l, v, where, &total, err);
            if (rc < 0)
                break;
            l->args[l->n_args - 1].line = lineno;
        } else if (strcmp(key, "output") == 0) {
            char *name = strtok(v, " \t");
            char *file = strtok(NULL, " \t");
            int a = name ? launch_find_arg(l, name) : -1;
            if (file == NULL || strtok(NULL, " \t") != NULL) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'output = BUFFER PATH'", where);
                break;
            }
            if (a < 0 || !l->args[a].buffer) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' is not a buffer argument declared "
                                   "above", where, name);
                break;
            }
            l->outputs = xrealloc(l->outputs, (l->n_outputs + 1) * sizeof *l->outputs);
            l->outputs[l->n_outputs].arg = (uint32_t)a;
            l->outputs[l->n_outputs].path = kv_resolve(path, file);
            l->outputs[l->n_outputs].given = xstrdup(file);
            l->outputs[l->n_outputs].line = lineno;
            l->n_outputs++;
        } else if (strcmp(key, "ptx") == 0 || strcmp(key, "kernel") == 0 ||
                   strcmp(key, "grid") == 0 || strcmp(key, "block") == 0) {
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' given twice", where, key);
            break;
        } else {
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown key '%s' (expected ptx, kernel, "
                               "grid, block, smem, regs, regs.sm_NN, repeat, stack, arg or output)", where,
                               key);
            break;
        }
    }
    kvfile_close(&kf);
    if (rc == 0) {
        const char *missing = l->ptx_path == NULL ? "ptx" : l->kernel[0] == '\0' ? "kernel"
                              : l->line_grid == 0 ? "grid" : l->line_block == 0 ? "block" : NULL;
        if (missing != NULL)
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: no '%s = ...' line", path, missing);
    }
    if (rc < 0) {
        launch_free(l);
        return rc;
    }
    *out = l;
    return SIM_OK;
}

void
launch_free(struct launch *l)
{
    if (l == NULL)
        return;
    for (uint32_t i = 0; i < l->n_args; i++)
        free(l->args[i].data);
    free(l->args);
    for (uint32_t i = 0; i < l->n_outputs; i++) {
        free(l->outputs[i].path);
        free(l->outputs[i].given);
    }
    free(l->outputs);
    free(l->ptx_path);
    free(l->path);
    free(l);
}

/* mkdir -p of the directory part of path. */
static int
make_parents(const char *path, struct sim_error *err)
{
    char *d = xstrdup(path);
    int rc = SIM_OK;
    for (char *p = d + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(d, 0777) != 0 && errno != EEXIST) {
            rc = sim_error_set(err, SIM_ERR_IO, "cannot create directory %s: %s", d,
                               strerror(errno));
            break;
        }
        *p = '/';
    }
    free(d);
    return rc;
}

struct out_arg {
    const struct launch_arg *a;
};

static void
write_buffer(FILE *fp, void *arg)
{
    const struct launch_arg *a = ((struct out_arg *)arg)->a;
    fwrite(a->data, 1, a->bytes, fp);
}

/* Write buffer a to path (atomically), creating missing directories. */
static int
write_arg(const struct launch_arg *a, const char *path, struct sim_error *err)
{
    struct out_arg oa = { a };
    int rc = make_parents(path, err);
    if (rc == SIM_OK)
        rc = afile_write(path, write_buffer, &oa, err);
    return rc;
}

int
launch_write_outputs(const struct launch *l, const char *outdir, struct sim_error *err)
{
    for (uint32_t i = 0; i < l->n_outputs; i++) {
        const struct launch_output *o = &l->outputs[i];
        char *path;
        if (outdir != NULL && o->given[0] != '/') {
            size_t n = strlen(outdir) + strlen(o->given) + 2;
            path = xmalloc(n);
            snprintf(path, n, "%s/%s", outdir, o->given);
        } else {
            path = xstrdup(o->path);
        }
        int rc = write_arg(&l->args[o->arg], path, err);
        free(path);
        if (rc < 0) {
            sim_error_prefix(err, "%s:%u: output: ", l->path, o->line);
            return rc;
        }
    }
    return SIM_OK;
}

int
launch_write_inputs(const struct launch *l, const char *dir, struct sim_error *err)
{
    for (uint32_t i = 0; i < l->n_args; i++) {
        const struct launch_arg *a = &l->args[i];
        if (!a->buffer)
            continue;
        size_t n = strlen(dir) + strlen(a->name) + 6;
        char *path = xmalloc(n);
        snprintf(path, n, "%s/%s.bin", dir, a->name);
        int rc = write_arg(a, path, err);
        free(path);
        if (rc < 0) {
            sim_error_prefix(err, "%s:%u: input: ", l->path, a->line);
            return rc;
        }
    }
    return SIM_OK;
}
