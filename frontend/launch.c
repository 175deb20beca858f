/*
 * launch.c - launch-file parser, buffer initialisation and outputs.
 */
#include "frontend/launch.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "frontend/exec/ptx_half.h"
#include "frontend/ptx/ptx_ir.h"
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

int
launch_find_var(const struct launch *l, const char *name)
{
    for (uint32_t i = 0; i < l->n_vars; i++)
        if (strcmp(l->vars[i].name, name) == 0)
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

/* Store the integer bit pattern x (two's complement) as one element of
 * integer type t at p: its low bytes, little-endian. */
static void
store_bits(uint8_t *p, unsigned t, uint64_t x)
{
    for (unsigned i = 0; i < launch_type_bytes(t); i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

void
launch_fill(uint8_t *dst, const struct launch_arg *a)
{
    unsigned type = a->type, b = launch_type_bytes(type);
    bool fl = launch_type_is_float(type);
    uint64_t s = a->seed, n = a->count;
    if (a->init == LI_CHASE) {
        fill_chase(dst, type, n, (uint64_t)a->lo, a->seed);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *p = dst + i * b;
        switch (a->init) {
        case LI_CONST:
            if (fl)
                store(p, type, a->lo);
            else
                store_bits(p, type, a->ilo);
            break;
        case LI_SEQ:
            if (fl)
                store(p, type, a->lo + (double)i * a->hi);
            else
                store_bits(p, type, a->ilo + i * a->ihi);   /* range checked: no wrap */
            break;
        case LI_RANDOM: {
            uint64_t r = splitmix(&s);
            if (fl) {
                store(p, type, a->lo + (a->hi - a->lo) * ((double)(r >> 11) *
                                                            (1.0 / 9007199254740992.0)));
            } else {
                uint64_t span = a->ihi - a->ilo + 1;          /* 0: all of 2^64 */
                store_bits(p, type, a->ilo + (span ? r % span : r));
            }
            break;
        }
        default:
            memset(p, 0, b);
            break;
        }
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

/* A finite number (for counts, steps and strides given as floats). */
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

/* The largest finite value of float type t. */
static double
float_max(unsigned t)
{
    return t == LT_F64 ? DBL_MAX : t == LT_F32 ? FLT_MAX : t == LT_F16 ? 65504.0
                                                                       : 3.3895313892515355e38;
}

static bool
int_signed(unsigned t)
{
    return t == LT_S8 || t == LT_S16 || t == LT_S32 || t == LT_S64;
}

/* v rounded to float type t (to nearest even), as a double. */
static double
rounded(unsigned t, double v)
{
    if (t == LT_F32)
        return (float)v;
    if (t == LT_F16 || t == LT_BF16) {
        unsigned fmt = t == LT_F16 ? PTX_HF16 : PTX_HBF16;
        return ptx_half_value(ptx_half_round(v, fmt, PR_RN), fmt);
    }
    return v;
}

/* One value of type t, as a literal: for a float type a C floating-point
 * literal or inf, -inf, +inf, nan, -nan (any case; with allow_special
 * only), whose magnitude the type can hold (a finite literal that would
 * round to infinity is an error, not an infinity); for an integer type a
 * decimal or 0x integer (or a float literal with an integral value) in
 * the type's range.  Floats go to *d, integers to *u as a two's-complement
 * bit pattern.  Returns NULL, or what is wrong (for the caller's message). */
static const char *
parse_value(const char *tok, unsigned t, bool allow_special, double *d, uint64_t *u)
{
    static char why[160];
    if (launch_type_is_float(t)) {
        const char *p = tok + (tok[0] == '-' || tok[0] == '+');
        bool neg = tok[0] == '-';
        if (strcasecmp(p, "inf") == 0 || strcasecmp(p, "infinity") == 0 ||
            strcasecmp(p, "nan") == 0) {
            if (!allow_special) {
                snprintf(why, sizeof why, "'%s' cannot be used here (finite values only)", tok);
                return why;
            }
            *d = (p[0] == 'n' || p[0] == 'N') ? (neg ? -NAN : NAN) : (neg ? -INFINITY : INFINITY);
            return NULL;
        }
        char *end;
        errno = 0;
        double v = strtod(tok, &end);
        if (*end != '\0' || end == tok || (errno != 0 && isinf(v)) || !isfinite(v)) {
            if (*end == '\0' && end != tok && isinf(v))
                goto range;
            snprintf(why, sizeof why, "'%s' is not a number (expected a floating-point "
                     "literal, inf, -inf or nan)", tok);
            return why;
        }
        if (fabs(v) > float_max(t) && isinf(rounded(t, v)))
            goto range;             /* a value the type rounds to its largest finite one is in */
        *d = v;
        return NULL;
    range:
        snprintf(why, sizeof why, "'%s' is out of range for %s (largest finite value %g; write "
                 "inf or -inf for an infinity)", tok, launch_type_name(t), float_max(t));
        return why;
    }
    unsigned bits = 8 * launch_type_bytes(t);
    bool sig = int_signed(t);
    char *end;
    errno = 0;
    bool neg = tok[0] == '-';
    uint64_t mag;
    unsigned long long x = strtoull(tok + (neg || tok[0] == '+'), &end, 0);
    if (*end == '\0' && end != tok + (neg || tok[0] == '+') && errno == 0 &&
        isdigit((unsigned char)tok[neg || tok[0] == '+'])) {
        mag = x;
    } else {
        double v;
        if (!parse_double(tok, &v) || v != trunc(v)) {
            snprintf(why, sizeof why, "'%s' is not an integer", tok);
            return why;
        }
        if (fabs(v) >= 18446744073709551616.0)
            goto irange;
        neg = v < 0;
        mag = (uint64_t)fabs(v);
    }
    if (sig) {
        uint64_t lim = UINT64_C(1) << (bits - 1);           /* -lim .. lim - 1 */
        if ((neg && mag > lim) || (!neg && mag >= lim))
            goto irange;
    } else if ((neg && mag != 0) || (bits < 64 && mag >> bits != 0)) {
        goto irange;
    }
    *u = neg ? (uint64_t)0 - mag : mag;
    *d = neg ? -(double)mag : (double)mag;
    return NULL;
irange:
    if (sig)
        snprintf(why, sizeof why, "'%s' is out of range for %s (%" PRId64 " .. %" PRId64 ")",
                 tok, launch_type_name(t), bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1)),
                 bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1);
    else
        snprintf(why, sizeof why, "'%s' is out of range for %s (0 .. %" PRIu64 ")", tok,
                 launch_type_name(t), bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
    return why;
}

/* Is integer bit pattern v of type t below w (signed or unsigned as t)? */
static bool
int_below(unsigned t, uint64_t v, uint64_t w)
{
    return int_signed(t) ? (int64_t)v < (int64_t)w : v < w;
}

/* "seed S" (tok[0], tok[1]) after the range or stride: into a->seed. */
static int
parse_seed(struct launch_arg *a, char **tok, const char *after, const char *where,
           struct sim_error *err)
{
    char *end;
    if (strcmp(tok[0], "seed") != 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'seed S' after the %s", where,
                             after);
    errno = 0;
    a->seed = strtoull(tok[1], &end, 0);
    if (*end != '\0' || errno != 0 || tok[1][0] == '-')
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad seed '%s'", where, tok[1]);
    return SIM_OK;
}

/* The initialiser tok[0 .. n) of a buffer or variable a of a.count
 * elements of a.type: into a (init, lo/hi or ilo/ihi, seed), *file set
 * to the path of `file PATH`. */
static int
parse_init(struct launch_arg *a, char **tok, int n, const char **file, const char *where,
           struct sim_error *err)
{
    unsigned t = a->type;
    bool fl = launch_type_is_float(t);
    const char *init = tok[0], *why;
    char **rest = &tok[1];
    int nr = n - 1;
    char *end;
    *file = NULL;
    if (strcmp(init, "zeros") == 0 && nr == 0) {
        a->init = LI_ZEROS;
    } else if (strcmp(init, "const") == 0 && nr == 1) {
        a->init = LI_CONST;
        if ((why = parse_value(rest[0], t, true, &a->lo, &a->ilo)) != NULL)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: const: %s", where, why);
    } else if (strcmp(init, "seq") == 0 && (nr == 1 || nr == 2)) {
        a->init = LI_SEQ;
        a->hi = 1;
        a->ihi = 1;
        if ((why = parse_value(rest[0], t, false, &a->lo, &a->ilo)) != NULL)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: seq start: %s", where, why);
        if (nr == 2 && (fl ? !parse_double(rest[1], &a->hi)
                           : parse_value(rest[1], LT_S64, false, &a->hi, &a->ihi) != NULL))
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad seq step '%s'%s", where, rest[1],
                                 fl ? "" : " (an integer for an integer buffer)");
        /* the last element must be in range too */
        double last = a->lo + (double)(a->count - 1) * a->hi;
        bool bad;
        if (fl) {
            bad = fabs(last) > float_max(t) && isinf(rounded(t, last));
        } else {
            unsigned bits = 8 * launch_type_bytes(t);
            bool sig = int_signed(t);
            long double start = sig ? (long double)(int64_t)a->ilo : (long double)a->ilo;
            long double exact = start + (long double)(a->count - 1) * (long double)(int64_t)a->ihi;
            long double lo = sig ? -ldexpl(1, (int)bits - 1) : 0;
            long double hi = (sig ? ldexpl(1, (int)bits - 1) : ldexpl(1, (int)bits)) - 1;
            bad = exact < lo || exact > hi;
            last = (double)exact;
        }
        if (bad)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: seq: the last element, %g, is out of "
                                 "range for %s", where, last, launch_type_name(t));
    } else if (strcmp(init, "random") == 0 && (nr == 2 || nr == 4)) {
        a->init = LI_RANDOM;
        a->seed = 1;
        if ((why = parse_value(rest[0], t, false, &a->lo, &a->ilo)) != NULL ||
            (why = parse_value(rest[1], t, false, &a->hi, &a->ihi)) != NULL)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: random: %s%s", where, why,
                                 fl && strstr(why, "finite") ? " (a random range needs finite "
                                 "bounds; const inf gives infinities)" : "");
        if (nr == 4)
            SIM_FORWARD_IF_ERROR(parse_seed(a, &rest[2], "range", where, err));
        if (fl ? a->hi < a->lo : int_below(t, a->ihi, a->ilo))
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: random range %s .. %s is empty", where,
                                 rest[0], rest[1]);
    } else if (strcmp(init, "chase") == 0 && (nr == 1 || nr == 3)) {
        a->init = LI_CHASE;
        a->seed = 1;
        errno = 0;
        unsigned long long st = strtoull(rest[0], &end, 0);
        if (*end != '\0' || errno != 0 || st == 0 || st > a->count || rest[0][0] == '-')
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad chase stride '%s' (1 .. COUNT "
                                 "elements)", where, rest[0]);
        if (fl || launch_type_bytes(t) < 4 || (launch_type_bytes(t) == 4 && a->count > UINT32_MAX))
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: chase needs 32- or 64-bit integer "
                                 "elements able to hold every index", where);
        a->lo = (double)st;
        if (nr == 3)
            SIM_FORWARD_IF_ERROR(parse_seed(a, &rest[1], "stride", where, err));
    } else if (strcmp(init, "file") == 0 && nr == 1) {
        a->init = LI_FILE;
        *file = rest[0];
    } else {
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: bad initialiser (expected zeros | const V | random LO HI [seed S] "
                             "| seq START [STEP] | chase STRIDE [seed S] | file PATH)", where);
    }
    return SIM_OK;
}

/* Allocate a->data (a->bytes) and fill it per a's initialiser. */
static int
fill_data(const struct launch *l, struct launch_arg *a, const char *file, const char *what,
          const char *where, struct sim_error *err)
{
    a->data = calloc(1, a->bytes ? a->bytes : 1);
    if (a->data == NULL)
        return sim_error_set(err, SIM_ERR_NOMEM, "%s: cannot allocate %llu bytes", where,
                             (unsigned long long)a->bytes);
    if (a->init == LI_FILE) {
        char *p = kv_resolve(l->path, file);
        struct stat st;
        FILE *fp = fopen(p, "rb");
        if (fp == NULL || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
            int e = fp == NULL ? errno : EISDIR;
            if (fp != NULL)
                fclose(fp);
            sim_error_set(err, SIM_ERR_IO, "%s: cannot open %s: %s", where, p,
                          e == EISDIR ? "not a regular file" : strerror(e));
            free(p);
            return SIM_ERR_IO;
        }
        size_t got = fread(a->data, 1, a->bytes, fp);
        int extra = fgetc(fp);
        fclose(fp);
        if (got != a->bytes || extra != EOF) {
            sim_error_set(err, SIM_ERR_FORMAT, "%s: %s holds %s bytes than the %s's %llu", where,
                          p, got != a->bytes ? "fewer" : "more", what,
                          (unsigned long long)a->bytes);
            free(p);
            return SIM_ERR_FORMAT;
        }
        free(p);
    } else if (a->init != LI_ZEROS) {
        launch_fill(a->data, a);
    }
    return SIM_OK;
}

/* NAME TYPE COUNT INIT... (tok[0 .. n)) of a buffer or device variable:
 * *a's name, type, count, bytes and contents. */
static int
parse_memory(struct launch *l, struct launch_arg *a, char **tok, int n, uint64_t *total,
             const char *what, const char *where, struct sim_error *err)
{
    if (n < 4)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: expected '%s'", where, what);
    int t = type_lookup(tok[1]);
    if (t < 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown element type '%s' (expected u8 s8 "
                             "u16 s16 u32 s32 u64 s64 f32 f64 f16 bf16)", where, tok[1]);
    char *end;
    errno = 0;
    unsigned long long cnt = strtoull(tok[2], &end, 0);
    if (*end != '\0' || errno != 0 || cnt == 0 || tok[2][0] == '-')
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: bad element count '%s'", where, tok[2]);
    a->type = (uint8_t)t;
    a->count = cnt;
    if (cnt > buffer_limit / launch_type_bytes((unsigned)t) ||
        *total + cnt * launch_type_bytes((unsigned)t) > buffer_limit)
        return sim_error_set(err, SIM_ERR_NOMEM, "%s: buffers larger than %" PRIu64 " bytes in all",
                             where, buffer_limit);
    a->bytes = cnt * launch_type_bytes((unsigned)t);
    const char *file;
    SIM_FORWARD_IF_ERROR(parse_init(a, &tok[3], n - 3, &file, where, err));
    int rc = fill_data(l, a, file, strncmp(what, "var", 3) == 0 ? "variable" : "buffer", where,
                       err);
    if (rc < 0) {
        free(a->data);           /* a is not in the launch yet: nobody else frees it */
        a->data = NULL;
        return rc;
    }
    *total += a->bytes;
    return SIM_OK;
}

/* Split v into at most max blank-separated tokens; returns the count, or
 * max + 1 when there are more. */
static int
split(char *v, char **tok, int max)
{
    int n = 0;
    for (char *t = strtok(v, " \t"); t != NULL; t = strtok(NULL, " \t")) {
        if (n == max)
            return max + 1;
        tok[n++] = t;
    }
    return n;
}

/* Comma-separated numbers of v into out (at most max): unsigned ones in
 * any base strtoull reads, or with sign16 signed decimals that fit 16 bits
 * (as int64_t); their count, 0 if bad. */
static unsigned
parse_nums(const char *v, uint64_t *out, unsigned max, bool sign16)
{
    unsigned n = 0;
    const char *p = v;
    while (n < max) {
        char *end;
        if (sign16) {
            long x = strtol(p, &end, 10);
            if (end == p || x < INT16_MIN || x > INT16_MAX)
                return 0;
            out[n++] = (uint64_t)(int64_t)x;
        } else {
            if (*p < '0' || *p > '9')
                return 0;
            out[n++] = strtoull(p, &end, 0);
        }
        if (*end == '\0')
            return n;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}

static unsigned
parse_list(const char *v, uint64_t *out, unsigned max)
{
    return parse_nums(v, out, max, false);
}

/* lower= or upper= of an im2col map into c[]: their count, 0 if bad. */
static unsigned
parse_corners(const char *v, int16_t *c)
{
    uint64_t x[3];
    unsigned n = parse_nums(v, x, 3, true);
    for (unsigned j = 0; j < n; j++)
        c[j] = (int16_t)(int64_t)x[j];
    return n;
}

/* arg = NAME tensormap BUFFER TYPE dims=D0,.. box=B0,.. [strides=S1,..]
 * [elemstrides=E0,..] [swizzle=none|32B|64B|128B] [interleave=none]
 * [fill=zero|nan] [l2promotion=none|64B|128B|256B] [offset=BYTES]: the
 * arguments of cuTensorMapEncodeTiled (the global address: the buffer's
 * plus offset; strides default to the packed ones).  With mode=im2col,
 * lower=W,.. upper=W,.. channels=C pixels=P instead of box=: those of
 * cuTensorMapEncodeIm2col. */
static int
parse_tensormap(struct launch *l, struct launch_arg *a, char **tok, int n, const char *where,
                struct sim_error *err)
{
    static const char use[] = "expected 'arg = NAME tensormap BUFFER TYPE dims=D0,D1.. "
                              "box=B0,B1.. [strides=S1,..] [elemstrides=E0,..] "
                              "[swizzle=none|32B|64B|128B] [fill=zero|nan] [offset=BYTES]', "
                              "or mode=im2col lower=W,.. upper=W,.. channels=C pixels=P "
                              "instead of box=";
    if (n < 6)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: %s", where, use);
    a->tmap = true;
    a->tmap_buffer = launch_find_arg(l, tok[2]);
    if (a->tmap_buffer < 0 || !l->args[a->tmap_buffer].buffer)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: '%s' is no buffer argument "
                             "listed before it", where, tok[2]);
    int t = ptx_tmap_type_lookup(tok[3]);
    if (t < 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: unknown element type '%s' "
                             "(u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32_ftz tf32 tf32_ftz)",
                             where, tok[3]);
    struct ptx_tmap *m = &a->tm;
    m->type = (uint8_t)t;
    m->esize = (uint8_t)ptx_tmap_type_size((unsigned)t);
    uint64_t v[5];
    unsigned nd = 0, nb = 0, ns = 0, ne = 0, nlo = 0, nup = 0;
    bool strides = false, pixel_keys = false;
    for (int i = 4; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        if (eq == NULL)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: expected key=value, found "
                                 "'%s'", where, tok[i]);
        *eq = '\0';
        const char *k = tok[i], *val = eq + 1;
        if (strcmp(k, "dims") == 0 && (nd = parse_list(val, m->dims, 5)) > 0) {
            m->rank = (uint8_t)nd;
        } else if (strcmp(k, "box") == 0 && (nb = parse_list(val, v, 5)) > 0) {
            for (unsigned d = 0; d < nb; d++)
                m->box[d] = v[d] > 256 ? 0 : (uint32_t)v[d];
        } else if (strcmp(k, "strides") == 0 && (ns = parse_list(val, v, 4)) > 0) {
            strides = true;
            for (unsigned d = 0; d < ns; d++)
                m->strides[d + 1] = v[d];
        } else if (strcmp(k, "elemstrides") == 0 && (ne = parse_list(val, v, 5)) > 0) {
            for (unsigned d = 0; d < ne; d++)
                m->estride[d] = v[d] > 8 ? 0 : (uint32_t)v[d];
        } else if (strcmp(k, "swizzle") == 0) {
            static const char *const sw[] = { "none", "32B", "64B", "128B" };
            unsigned s;
            for (s = 0; s < 4 && strcmp(val, sw[s]) != 0; s++)
                ;
            if (s == 4)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: swizzle is none, 32B, "
                                     "64B or 128B", where);
            m->swizzle = (uint8_t)s;
        } else if (strcmp(k, "fill") == 0 && (!strcmp(val, "zero") || !strcmp(val, "nan"))) {
            m->fill_nan = val[0] == 'n';
        } else if (strcmp(k, "interleave") == 0 && strcmp(val, "none") == 0) {
            m->interleave = 0;
        } else if (strcmp(k, "l2promotion") == 0 && (!strcmp(val, "none") ||
                   !strcmp(val, "64B") || !strcmp(val, "128B") || !strcmp(val, "256B"))) {
            ;                    /* where the L2 fills from DRAM: not modelled */
        } else if (strcmp(k, "offset") == 0 && parse_list(val, v, 1) == 1) {
            a->tmap_offset = v[0];
        } else if (strcmp(k, "mode") == 0 && (!strcmp(val, "tiled") || !strcmp(val, "im2col"))) {
            m->im2col = val[0] == 'i';
        } else if (strcmp(k, "lower") == 0 && (nlo = parse_corners(val, m->lower)) > 0) {
            pixel_keys = true;
        } else if (strcmp(k, "upper") == 0 && (nup = parse_corners(val, m->upper)) > 0) {
            pixel_keys = true;
        } else if (strcmp(k, "channels") == 0 && parse_list(val, v, 1) == 1) {
            m->cpp = v[0] > 256 ? 0 : (uint16_t)v[0];
            pixel_keys = true;
        } else if (strcmp(k, "pixels") == 0 && parse_list(val, v, 1) == 1) {
            m->ppc = v[0] > 1024 ? 0 : (uint16_t)v[0];
            pixel_keys = true;
        } else {
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: bad or unknown '%s=%s' (%s)",
                                 where, k, val, use + 9);
        }
    }
    if (m->im2col && (nb != 0 || nd < 3 || nlo != nd - 2u || nup != nd - 2u || m->cpp == 0 ||
                      m->ppc == 0))
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: mode=im2col takes dims of 3 .. "
                             "5 values (C, W, [H, [D,]] N), lower= and upper= with one value per "
                             "pixel dimension (W first), channels=1..256 and pixels=1..1024, and "
                             "no box=", where);
    if (!m->im2col && pixel_keys)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: lower=, upper=, channels= and "
                             "pixels= belong to mode=im2col", where);
    if (nd == 0 || (!m->im2col && nb != nd) || (strides && ns != nd - 1u) ||
        (ne != 0 && ne != nd))
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: dims and box need one value "
                             "per dimension (1 .. 5), strides one per dimension but the first, "
                             "elemstrides one per dimension", where);
    if (ne == 0)
        for (unsigned d = 0; d < nd; d++)
            m->estride[d] = 1;
    m->strides[0] = m->esize;
    if (!strides)
        for (unsigned d = 1; d < nd; d++)
            m->strides[d] = m->strides[d - 1] * m->dims[d - 1];
    m->gaddr = 0;                /* known once the buffer is placed: its alignment is 4 KB */
    const char *why;
    if (!ptx_tmap_check(m, &why))
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: %s (cuTensorMapEncode%s's "
                             "rules)", where, why, m->im2col ? "Im2col" : "Tiled");
    if (a->tmap_offset % 16 != 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: the offset must be a multiple "
                             "of 16 bytes", where);
    /* the tensor must lie inside the buffer */
    uint64_t last = a->tmap_offset;
    for (unsigned d = 0; d < nd; d++)
        last += (m->dims[d] - 1) * m->strides[d];
    if (last + m->esize > l->args[a->tmap_buffer].bytes)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: tensormap: the tensor reaches byte %" PRIu64
                             " of buffer %s, which has %" PRIu64, where, last + m->esize,
                             tok[2], l->args[a->tmap_buffer].bytes);
    a->bytes = PTX_TMAP_BYTES;
    return SIM_OK;
}

/* arg = NAME TYPE VALUE | NAME buffer TYPE COUNT INIT... | NAME tensormap ... */
static int
parse_arg(struct launch *l, char *v, const char *where, uint64_t *total, struct sim_error *err)
{
    char *tok[16];
    int n = split(v, tok, 16);
    if (n < 3 || n > 16)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: expected 'arg = NAME TYPE VALUE' or 'arg = NAME buffer TYPE COUNT "
                             "INIT'", where);
    if (l->n_args == MAX_ARGS)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: more than %d arguments", where, MAX_ARGS);
    if (strlen(tok[0]) >= sizeof l->args[0].name)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: argument name too long", where);
    if (launch_find_arg(l, tok[0]) >= 0 || launch_find_var(l, tok[0]) >= 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: argument '%s' named twice", where, tok[0]);
    struct launch_arg a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "%s", tok[0]);
    if (strcmp(tok[1], "tensormap") == 0) {
        SIM_FORWARD_IF_ERROR(parse_tensormap(l, &a, tok, n, where, err));
        l->args = xrealloc(l->args, (l->n_args + 1) * sizeof *l->args);
        l->args[l->n_args++] = a;
        return SIM_OK;
    }
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
        uint64_t u;
        const char *why = parse_value(tok[2], (unsigned)t, true, &d, &u);
        if (why != NULL)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: %s", where, why);
        if (launch_type_is_float((unsigned)t))
            store((uint8_t *)&a.value, (unsigned)t, d);
        else
            a.value = u & (a.bytes == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * a.bytes)) - 1);
        l->args = xrealloc(l->args, (l->n_args + 1) * sizeof *l->args);
        l->args[l->n_args++] = a;
        return SIM_OK;
    }
    a.buffer = true;
    tok[1] = tok[0];
    SIM_FORWARD_IF_ERROR(parse_memory(l, &a, &tok[1], n - 1, total,
                                      "arg = NAME buffer TYPE COUNT INIT", where, err));
    l->args = xrealloc(l->args, (l->n_args + 1) * sizeof *l->args);
    l->args[l->n_args++] = a;
    return SIM_OK;
}

/* var = NAME TYPE COUNT INIT...: the initial contents of a module variable
 * (__constant__ or __device__), as cudaMemcpyToSymbol would set them. */
static int
parse_var(struct launch *l, char *v, const char *where, uint64_t *total, struct sim_error *err)
{
    char *tok[12];
    int n = split(v, tok, 12);
    if (n < 4 || n > 12)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'var = NAME TYPE COUNT INIT' (a "
                             "__constant__ or __device__ variable's contents)", where);
    if (l->n_vars == MAX_ARGS)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: more than %d variables", where, MAX_ARGS);
    if (strlen(tok[0]) >= sizeof l->vars[0].name)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: variable name too long", where);
    if (launch_find_var(l, tok[0]) >= 0 || launch_find_arg(l, tok[0]) >= 0)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' named twice (an argument or variable "
                             "above has that name)", where, tok[0]);
    struct launch_arg a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "%s", tok[0]);
    a.buffer = true;
    SIM_FORWARD_IF_ERROR(parse_memory(l, &a, tok, n, total, "var = NAME TYPE COUNT INIT", where,
                                      err));
    l->vars = xrealloc(l->vars, (l->n_vars + 1) * sizeof *l->vars);
    l->vars[l->n_vars++] = a;
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
        } else if (strcmp(key, "cluster") == 0 && l->line_cluster == 0) {
            if (!parse_dims(v, l->cluster) ||
                (uint64_t)l->cluster[0] * l->cluster[1] * l->cluster[2] > 16) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected cluster = X[, Y[, Z]] of at "
                                   "most 16 blocks", where);
                break;
            }
            l->line_cluster = lineno;
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
        } else if (strcmp(key, "mem") == 0) {
            /* mem = NAME TYPE COUNT INIT: a buffer, not an argument */
            size_t vl = strlen(v);
            char *w = xmalloc(vl + 9);
            char *sp = strpbrk(v, " \t");
            if (sp == NULL) {
                free(w);
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'mem = NAME TYPE COUNT "
                                   "INIT'", where);
                break;
            }
            snprintf(w, vl + 9, "%.*s buffer%s", (int)(sp - v), v, sp);
            rc = parse_arg(l, w, where, &total, err);
            free(w);
            if (rc < 0)
                break;
            l->args[l->n_args - 1].line = lineno;
            l->args[l->n_args - 1].unbound = true;
        } else if (strcmp(key, "var") == 0) {
            rc = parse_var(l, v, where, &total, err);
            if (rc < 0)
                break;
            l->vars[l->n_vars - 1].line = lineno;
        } else if (strcmp(key, "output") == 0) {
            char *name = strtok(v, " \t");
            char *file = strtok(NULL, " \t");
            int a = name ? launch_find_arg(l, name) : -1;
            int vi = name && a < 0 ? launch_find_var(l, name) : -1;
            if (file == NULL || strtok(NULL, " \t") != NULL) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: expected 'output = BUFFER PATH'", where);
                break;
            }
            if (vi < 0 && (a < 0 || !l->args[a].buffer)) {
                rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' is not a buffer argument or a "
                                   "variable declared above", where, name);
                break;
            }
            l->outputs = xrealloc(l->outputs, (l->n_outputs + 1) * sizeof *l->outputs);
            l->outputs[l->n_outputs].var = vi >= 0;
            l->outputs[l->n_outputs].arg = (uint32_t)(vi >= 0 ? vi : a);
            l->outputs[l->n_outputs].path = kv_resolve(path, file);
            l->outputs[l->n_outputs].given = xstrdup(file);
            l->outputs[l->n_outputs].line = lineno;
            l->n_outputs++;
        } else if (strcmp(key, "ptx") == 0 || strcmp(key, "kernel") == 0 ||
                   strcmp(key, "grid") == 0 || strcmp(key, "block") == 0 ||
                   strcmp(key, "cluster") == 0) {
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: '%s' given twice", where, key);
            break;
        } else {
            rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: unknown key '%s' (expected ptx, kernel, "
                               "grid, block, cluster, smem, regs, regs.sm_NN, repeat, stack, arg, "
                               "mem, var or output)", where,
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
    for (uint32_t i = 0; i < l->n_vars; i++)
        free(l->vars[i].data);
    free(l->vars);
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
        int rc = write_arg(o->var ? &l->vars[o->arg] : &l->args[o->arg], path, err);
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
    for (uint32_t i = 0; i < l->n_args + l->n_vars; i++) {
        const struct launch_arg *a = i < l->n_args ? &l->args[i] : &l->vars[i - l->n_args];
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
