/*
 * accelsim.c - the Accel-Sim / NVBit trace reader (see accelsim.h).
 *
 * Format facts: ../shared/reference/accelsim-format.md section 2 and
 * doc/trace-format.md.  Differences from Accel-Sim's own parser, on
 * purpose: a warp with `insts = 0` and a file without a final newline are
 * fine; an unknown binary or tracer version, an `insts` count that
 * disagrees with the lines that follow, a missing warp, a thread block
 * outside the grid or given twice, too few or too many blocks, and any
 * malformed token are errors naming file:line; MemcpyHtoD warm-up uses the
 * full 64-bit address; R255 (RZ) creates no dependence.  Beyond what
 * Accel-Sim models: every register of a wide operand is a dependence
 * (frontend/sass_regs.h: pairs, quads, MMA fragments, LDSM matrices), and
 * LDGSTS / LDGDEPBAR / DEPBAR.LE are cp.async groups a DEPBAR waits for
 * (frontend/async.h).
 *
 * Invariants: blocks are opened in increasing id order and the k-th
 * `#BEGIN_TB` section of the file is block k (the order Accel-Sim issues
 * them); a block's section is parsed completely when the block is opened
 * and held, encoded with the .smt record codec, until the slot is reused.
 */
#include "frontend/sass/accelsim.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "frontend/async.h"
#include "frontend/sass/sass_isa.h"
#include "frontend/sass/sass_regs.h"
#include "frontend/smt/smtrec.h"
#include "frontend/sass/textin.h"
#include "sim/stats.h"

#define SHARED_WINDOW (UINT64_C(1) << 24)   /* bytes of generic space per window (assumption) */
#define MAX_KERNEL_NAME 512

struct as_warp {
    uint8_t *buf;                /* encoded records */
    size_t len, cap, pos;
    uint64_t left;               /* records not yet returned */
    struct smtrec_state dec;
};

struct as_block {
    struct as_warp *w;           /* warps_per_block */
    uint32_t n_warps;            /* allocated */
};

/* What an instruction does to its warp's asynchronous-copy groups
 * (frontend/async.h). */
enum as_async {
    AS_ASYNC_NONE,
    AS_ASYNC_COPY,               /* LDGSTS: a copy of the open group */
    AS_ASYNC_COMMIT,             /* LDGDEPBAR: closes the open group */
    AS_ASYNC_WAIT,               /* DEPBAR.LE: waits for all committed groups but the
                                    newest `immediate` */
    AS_WGMMA,                    /* HGMMA, IGMMA, QGMMA: a warpgroup MMA, its own group */
    AS_WGMMA_WAIT                /* WARPGROUP.DEPBAR.LE: waits for all of them but the newest
                                    `immediate` */
};

/* Decoded-mnemonic cache: the full opcode string -> its meaning. */
struct mn_entry {
    char *key;
    struct sass_decoded d;
    bool unknown;
    uint8_t npipe;               /* enum sass_npipe */
    uint8_t async;               /* enum as_async */
    bool reads_pred;             /* BRA, EXIT: reads the implicit predicate (accelsim.h) */
    int16_t regs_width;          /* the memory width `regs` is for (-1: none yet) */
    struct sass_regs regs;       /* sass_regs_of the mnemonic at that width */
};

struct as_src {
    struct accelsim_opts opts;
    uint32_t preds;              /* implicit predicates written so far in the warp parsed */
    uint32_t groups;             /* async-copy groups it has committed (LDGDEPBAR) */
    uint32_t wgmma_groups;       /* warpgroup MMAs it has issued */
    char *list_path;             /* kernelslist.g, or NULL for a single kernel file */
    bool listed_any;             /* kernelslist.g has named a kernel trace */
    char *single;                /* the kernel file when opened directly */
    textin *list;
    textin *kt;                  /* current kernel trace */
    bool single_done;
    /* current kernel */
    struct kernel_info ki;
    int isa;
    unsigned tracer_version;
    bool lineinfo;
    uint64_t shmem_base, local_base;
    uint32_t wpb;
    uint64_t n_blocks, blocks_read;
    uint8_t *seen;               /* grid bitmap of thread-block ids met */
    struct as_block *slots;
    uint32_t n_slots;
    /* copies before the current kernel */
    struct sim_copy *copies;
    size_t n_copies, cap_copies;
    /* mnemonic cache */
    struct mn_entry *mn;
    uint32_t mn_cap, mn_n;
    int cache_isa;
    /* counters */
    uint64_t unknown_insts;      /* warp instructions of unknown opcodes simulated as ALU */
    uint64_t mixed_generic;      /* generic accesses whose lanes fall in different windows */
    uint64_t npipe_insts[SASS_NPIPE_COUNT]; /* warp instructions per Nsight Compute pipe */
};

/* ---- small lexical helpers ------------------------------------------------ */

/* Error at the line last read from t. */
static int
lerr(textin *t, struct sim_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
lerr(textin *t, struct sim_error *err, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sim_error_set(err, SIM_ERR_FORMAT, "%s:%" PRIu64 ": %s", textin_path(t),
                         textin_line(t), msg);
}

/* Next whitespace-separated token of *p: returns its start and length (0
 * at the end of the line). */
static const char *
tok(char **p, size_t *n)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s;
    while (*e != '\0' && *e != ' ' && *e != '\t')
        e++;
    *n = (size_t)(e - s);
    *p = e;
    return s;
}

static bool
parse_hex(const char *s, size_t n, uint64_t *v)
{
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        x = x << 4 | d;
    }
    *v = x;
    return true;
}

static bool
parse_dec(const char *s, size_t n, int64_t *v)
{
    bool neg = false;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    if (n == 0 || n > 19)
        return false;
    int64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = neg ? -x : x;
    return true;
}

/* "R<n>" with n <= 255. */
/* A register token: R0..R255, UR0..UR63, P0..P7, UP0..UP7 or RZ, URZ, PT,
 * UPT; *r = its id (accelsim.h), or REG_NONE for a zero/true register. */
#define REG_NONE 0xffffu

static bool
parse_reg(const char *s, size_t n, unsigned *r)
{
    /* by hand, not by table: a trace line has several of these */
    unsigned base, count;
    size_t pl;
    if (n >= 2 && s[0] == 'U' && s[1] == 'R') {
        base = AS_REG_UR, count = 64, pl = 2;
    } else if (n >= 2 && s[0] == 'U' && s[1] == 'P') {
        base = AS_REG_UP, count = 8, pl = 2;
    } else if (n >= 1 && s[0] == 'R') {
        base = 0, count = 256, pl = 1;
    } else if (n >= 1 && s[0] == 'P') {
        base = AS_REG_P, count = 8, pl = 1;
    } else {
        return false;
    }
    /* RZ, URZ, PT, UPT: the zero (true) registers */
    if (n == pl + 1 && (s[pl] == 'Z' || s[pl] == 'T')) {
        bool zero = (count >= 64 && s[pl] == 'Z') || (count == 8 && s[pl] == 'T');
        if (zero)
            *r = REG_NONE;
        return zero;
    }
    if (n == pl)
        return false;
    unsigned v = 0;
    for (size_t i = pl; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = 10 * v + (unsigned)(s[i] - '0');
        if (v >= count)
            return false;
    }
    if (v >= count)
        return false;
    /* the last of each file is its zero register */
    *r = v == count - 1 ? REG_NONE : base + v;
    return true;
}

static bool
blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

/* ---- mnemonic cache ---------------------------------------------------------- */

static uint32_t
hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void
mn_clear(struct as_src *s)
{
    for (uint32_t i = 0; i < s->mn_cap; i++)
        free(s->mn[i].key);
    free(s->mn);
    s->mn = NULL;
    s->mn_cap = s->mn_n = 0;
}

/* The async-copy role of opcode `name` in mnemonic k[0, n): the trace
 * does not name DEPBAR's scoreboard (NVBit passes only its immediate), so
 * every DEPBAR.LE is a wait on the LDGSTS groups (SB0); in a warp that has
 * committed none (every trace before Ampere) it waits on nothing. */
static uint8_t
async_kind(const char *name, const char *k, size_t n)
{
    if (strcmp(name, "LDGSTS") == 0)
        return AS_ASYNC_COPY;
    if (strcmp(name, "LDGDEPBAR") == 0)
        return AS_ASYNC_COMMIT;
    if (strcmp(name, "DEPBAR") == 0 && n >= 9 && memcmp(k + 6, ".LE", 3) == 0 &&
        (n == 9 || k[9] == '.'))
        return AS_ASYNC_WAIT;
    if (strcmp(name, "HGMMA") == 0 || strcmp(name, "IGMMA") == 0 || strcmp(name, "QGMMA") == 0)
        return AS_WGMMA;
    if (n >= 19 && memcmp(k, "WARPGROUP.DEPBAR.LE", 19) == 0)
        return AS_WGMMA_WAIT;
    return AS_ASYNC_NONE;
}

static struct mn_entry *
mn_lookup(struct as_src *s, const char *k, size_t n)
{
    if (s->cache_isa != s->isa) {
        mn_clear(s);
        s->cache_isa = s->isa;
    }
    if (2 * (s->mn_n + 1) > s->mn_cap) {
        struct mn_entry *old = s->mn;
        uint32_t oc = s->mn_cap;
        s->mn_cap = oc ? 2 * oc : 256;
        s->mn = xcalloc(s->mn_cap, sizeof *s->mn);
        for (uint32_t i = 0; i < oc; i++)
            if (old[i].key != NULL) {
                uint32_t j = hash_str(old[i].key, strlen(old[i].key)) & (s->mn_cap - 1);
                while (s->mn[j].key != NULL)
                    j = (j + 1) & (s->mn_cap - 1);
                s->mn[j] = old[i];
            }
        free(old);
    }
    uint32_t j = hash_str(k, n) & (s->mn_cap - 1);
    while (s->mn[j].key != NULL) {
        if (strncmp(s->mn[j].key, k, n) == 0 && s->mn[j].key[n] == '\0')
            return &s->mn[j];
        j = (j + 1) & (s->mn_cap - 1);
    }
    struct mn_entry *e = &s->mn[j];
    e->key = xmalloc(n + 1);
    memcpy(e->key, k, n);
    e->key[n] = '\0';
    e->unknown = sass_decode(s->isa, k, n, &e->d) != 0;
    if (e->unknown) {
        e->d.op = (uint16_t)sass_isa_count(s->isa);   /* the "UNKNOWN" opcode name */
        e->d.opclass = SIM_OPC_INT;
        e->d.mem = SASS_MEM_NONE;
        e->d.flags = 0;
        e->d.width = 0;
    }
    e->npipe = (uint8_t)(e->unknown ? SASS_NPIPE_NONE : sass_npipe_of(s->isa, k, n));
    e->async = (uint8_t)(e->unknown ? AS_ASYNC_NONE : async_kind(sass_isa_op(s->isa, e->d.op)->name,
                                                                 k, n));
    e->reads_pred = (n >= 3 && memcmp(k, "BRA", 3) == 0 && (n == 3 || k[3] == '.')) ||
                    (n >= 4 && memcmp(k, "EXIT", 4) == 0 && (n == 4 || k[4] == '.'));
    e->regs_width = -1;
    s->mn_n++;
    return e;
}

/* ---- kernelslist.g and kernel headers ------------------------------------ */

static bool
ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static char *
sibling(const char *list_path, const char *name, size_t n)
{
    const char *slash = strrchr(list_path, '/');
    size_t d = slash != NULL ? (size_t)(slash - list_path) + 1 : 0;
    char *p = xmalloc(d + n + 1);
    memcpy(p, list_path, d);
    memcpy(p + d, name, n);
    p[d + n] = '\0';
    return p;
}

/* Parse "(x,y,z)" */
static bool
parse_dim3(const char *v, uint32_t d[3])
{
    unsigned long long a, b, c;
    char extra;
    if (sscanf(v, " ( %llu , %llu , %llu ) %c", &a, &b, &c, &extra) != 3)
        return false;
    if (a == 0 || b == 0 || c == 0 || a > 0x7fffffffULL || b > 0xffffULL || c > 0xffffULL)
        return false;
    d[0] = (uint32_t)a;
    d[1] = (uint32_t)b;
    d[2] = (uint32_t)c;
    return true;
}

static bool
parse_u64_val(const char *v, uint64_t *out, bool hex)
{
    char *end;
    while (*v == ' ')
        v++;
    if (*v == '-' || *v == '\0')
        return false;
    errno = 0;
    unsigned long long x = strtoull(v, &end, hex ? 16 : 10);
    while (*end == ' ')
        end++;
    if (errno != 0 || *end != '\0')
        return false;
    *out = x;
    return true;
}

/* Read the header of the kernel trace s->kt up to the "#traces format" line. */
static int
read_header(struct as_src *s, uint32_t index, struct sim_error *err)
{
    textin *t = s->kt;
    char *line;
    size_t len;
    int r;
    bool have_name = false, have_grid = false, have_block = false, have_ver = false,
         have_bin = false, have_regs = false, have_shmem = false;

    memset(&s->ki, 0, sizeof s->ki);
    s->tracer_version = 0;
    s->lineinfo = false;
    s->shmem_base = s->local_base = 0;
    while ((r = textin_next(t, &line, &len, err)) > 0) {
        if (blank(line))
            continue;
        if (line[0] == '#')
            break;                   /* "#traces format = ..." ends the header */
        if (line[0] != '-')
            return lerr(t, err, "expected a '-key = value' header line or '#traces format', "
                        "found '%.60s'", line);
        char *eq = strchr(line, '=');
        if (eq == NULL)
            return lerr(t, err, "expected '-key = value', found '%.60s'", line);
        char *k = line + 1, *v = eq + 1;
        char *ke = eq;
        while (ke > k && ke[-1] == ' ')
            ke--;
        *ke = '\0';
        while (*v == ' ')
            v++;
        uint64_t x;
        if (strcmp(k, "kernel name") == 0) {
            if (strlen(v) >= MAX_KERNEL_NAME || *v == '\0')
                return lerr(t, err, "kernel name empty or longer than %d bytes", MAX_KERNEL_NAME - 1);
            snprintf(s->ki.name, sizeof s->ki.name, "%s", v);
            have_name = true;
        } else if (strcmp(k, "kernel id") == 0) {
            if (!parse_u64_val(v, &x, false))
                return lerr(t, err, "bad kernel id '%s'", v);
        } else if (strcmp(k, "grid dim") == 0) {
            if (!parse_dim3(v, s->ki.grid))
                return lerr(t, err, "expected grid dim = (x,y,z) with positive values, found '%s'", v);
            if (kernel_info_blocks(&s->ki) > SIM_MAX_GRID_BLOCKS)
                return lerr(t, err, "grid dim %s has %" PRIu64 " thread blocks, more than smsim's "
                            "limit of %u", v, kernel_info_blocks(&s->ki), SIM_MAX_GRID_BLOCKS);
            have_grid = true;
        } else if (strcmp(k, "block dim") == 0) {
            if (!parse_dim3(v, s->ki.block) ||
                (uint64_t)s->ki.block[0] * s->ki.block[1] * s->ki.block[2] > SIM_MAX_THREADS_PER_BLOCK)
                return lerr(t, err, "expected block dim = (x,y,z) of at most %u threads, found '%s'",
                            SIM_MAX_THREADS_PER_BLOCK, v);
            have_block = true;
        } else if (strcmp(k, "shmem") == 0) {
            if (!parse_u64_val(v, &x, false) || x > (1u << 20))
                return lerr(t, err, "bad shmem '%s' (bytes, at most 1 MiB)", v);
            s->ki.smem_static = (uint32_t)x;
            have_shmem = true;
        } else if (strcmp(k, "nregs") == 0) {
            if (!parse_u64_val(v, &x, false) || x > 255)
                return lerr(t, err, "bad nregs '%s' (0 .. 255)", v);
            s->ki.regs_per_thread = x ? (uint32_t)x : 1;
            have_regs = true;
        } else if (strcmp(k, "binary version") == 0) {
            if (!parse_u64_val(v, &x, false) || sass_isa_of_version((unsigned)x) < 0)
                return lerr(t, err, "unknown binary version '%s' (smsim reads 30-37 Kepler, "
                            "50-62 Maxwell/Pascal, 70/72 Volta, 75 Turing, 80/86/87/89 "
                            "Ampere/Ada, 90 Hopper)", v);
            if (index > 0 && s->isa != sass_isa_of_version((unsigned)x))
                return lerr(t, err, "binary version %s: every kernel of one run must use the "
                            "same instruction set (kernel 0 is %s)", v, sass_isa_name(s->isa));
            s->isa = sass_isa_of_version((unsigned)x);
            s->ki.isa_version = (uint16_t)x;
            have_bin = true;
        } else if (strcmp(k, "cuda stream id") == 0) {
            if (!parse_u64_val(v, &x, false))
                return lerr(t, err, "bad cuda stream id '%s'", v);
        } else if (strcmp(k, "shmem base_addr") == 0) {
            if (!parse_u64_val(v, &s->shmem_base, true))
                return lerr(t, err, "bad shmem base_addr '%s'", v);
        } else if (strcmp(k, "local mem base_addr") == 0) {
            if (!parse_u64_val(v, &s->local_base, true))
                return lerr(t, err, "bad local mem base_addr '%s'", v);
        } else if (strcmp(k, "nvbit version") == 0) {
            /* informational */
        } else if (strcmp(k, "accelsim tracer version") == 0) {
            /* "1.2" (per-line block ids), 3, 4 or 5 */
            if (strcmp(v, "1.2") == 0 || strcmp(v, "1") == 0 || strcmp(v, "2") == 0)
                s->tracer_version = 1;
            else if (parse_u64_val(v, &x, false) && x >= 3 && x <= 5)
                s->tracer_version = (unsigned)x;
            else
                return lerr(t, err, "unknown accelsim tracer version '%s' (smsim reads 1.2, 3, 4 "
                            "and 5)", v);
            have_ver = true;
        } else if (strcmp(k, "enable lineinfo") == 0) {
            if (!parse_u64_val(v, &x, false) || x > 1)
                return lerr(t, err, "bad enable lineinfo '%s' (0 or 1)", v);
            s->lineinfo = x == 1;
        } else {
            return lerr(t, err, "unknown header line '-%s'", k);
        }
    }
    if (r < 0)
        return r;
    const char *missing = !have_name ? "kernel name" : !have_grid ? "grid dim" :
                          !have_block ? "block dim" : !have_bin ? "binary version" :
                          !have_ver ? "accelsim tracer version" : !have_regs ? "nregs" :
                          !have_shmem ? "shmem" : NULL;
    if (missing != NULL)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: the header has no '-%s = ...' line",
                             textin_path(t), missing);
    s->ki.isa = SIM_ISA_SASS;
    s->wpb = kernel_info_warps_per_block(&s->ki);
    s->n_blocks = kernel_info_blocks(&s->ki);
    s->blocks_read = 0;
    free(s->seen);
    s->seen = xcalloc((size_t)((s->n_blocks + 7) / 8), 1);
    return SIM_OK;
}

/* Nothing but blank lines may follow the last thread block. */
static int
check_kernel_end(struct as_src *s, struct sim_error *err)
{
    char *line;
    size_t len;
    int r;
    while ((r = textin_next(s->kt, &line, &len, err)) > 0)
        if (!blank(line))
            return lerr(s->kt, err, "more thread blocks than the grid's %" PRIu64, s->n_blocks);
    return r;
}

static int
as_next_kernel(void *ctx, struct kernel_info *ki, struct sim_error *err)
{
    struct as_src *s = ctx;
    char *line;
    size_t len;
    int r;
    uint32_t index = s->ki.name[0] != '\0' ? 1 : 0;

    if (s->kt != NULL) {
        SIM_FORWARD_IF_ERROR(check_kernel_end(s, err));
        textin_close(s->kt);
        s->kt = NULL;
    }
    s->n_copies = 0;
    if (s->single != NULL) {
        if (s->single_done)
            return 0;
        s->single_done = true;
        s->kt = textin_open(s->single, err);
        if (s->kt == NULL)
            return err->code;
    } else {
        for (;;) {
            r = textin_next(s->list, &line, &len, err);
            if (r == 0 && !s->listed_any)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s: lists no kernel (expected "
                                     "kernel-N.traceg lines, as the Accel-Sim tracer writes)",
                                     s->list_path);
            if (r <= 0)
                return r;
            char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '\0' || *p == '#')
                continue;
            if (strncmp(p, "MemcpyHtoD,", 11) == 0) {
                uint64_t a, n;
                char *c = strchr(p + 11, ',');
                if (c == NULL)
                    return lerr(s->list, err, "expected MemcpyHtoD,0xADDRESS,BYTES");
                *c = '\0';
                if (!parse_hex(p + 11, strlen(p + 11), &a) || !parse_u64_val(c + 1, &n, false))
                    return lerr(s->list, err, "expected MemcpyHtoD,0xADDRESS,BYTES");
                if (s->n_copies == s->cap_copies) {
                    s->cap_copies = s->cap_copies ? 2 * s->cap_copies : 8;
                    s->copies = xrealloc(s->copies, s->cap_copies * sizeof *s->copies);
                }
                s->copies[s->n_copies++] = (struct sim_copy){ a, n };
                continue;
            }
            size_t n = strlen(p);
            while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
                n--;
            p[n] = '\0';
            if (strncmp(p, "kernel", 6) == 0 || ends_with(p, ".traceg") || ends_with(p, ".traceg.xz")) {
                char *path = sibling(s->list_path, p, n);
                if (access(path, F_OK) != 0 && !ends_with(path, ".xz")) {
                    /* kernel-N.traceg compressed in place: read kernel-N.traceg.xz */
                    char *xz = xmalloc(strlen(path) + 4);
                    sprintf(xz, "%s.xz", path);
                    if (access(xz, F_OK) == 0) {
                        free(path);
                        path = xz;
                    } else {
                        free(xz);
                    }
                }
                s->kt = textin_open(path, err);
                free(path);
                if (s->kt == NULL) {
                    sim_error_prefix(err, "%s:%" PRIu64 ": ", s->list_path, textin_line(s->list));
                    return err->code;
                }
                s->listed_any = true;
                break;
            }
            return lerr(s->list, err, "expected 'MemcpyHtoD,...' or a kernel trace file name, "
                        "found '%.60s'", p);
        }
    }
    SIM_FORWARD_IF_ERROR(read_header(s, index, err));
    *ki = s->ki;
    return 1;
}

static int
as_kernel_begin(void *ctx, uint32_t max_slots, uint32_t n_sms, struct sim_error *err)
{
    struct as_src *s = ctx;
    (void)n_sms;
    (void)err;
    if (max_slots > s->n_slots) {
        s->slots = xrealloc(s->slots, max_slots * sizeof *s->slots);
        memset(s->slots + s->n_slots, 0, (max_slots - s->n_slots) * sizeof *s->slots);
        s->n_slots = max_slots;
    }
    return SIM_OK;
}

/* ---- instruction lines --------------------------------------------------------- */

/* Window of a generic address. */
static uint8_t
generic_space(const struct as_src *s, uint64_t a)
{
    if (s->shmem_base != 0 && a >= s->shmem_base &&
        a < (s->local_base > s->shmem_base ? s->local_base : s->shmem_base + SHARED_WINDOW))
        return SIM_SPACE_SHARED;
    if (s->local_base != 0 && a >= s->local_base && a < s->local_base + SHARED_WINDOW)
        return SIM_SPACE_LOCAL;
    return SIM_SPACE_GLOBAL;
}

static uint8_t
space_of(uint8_t mem)
{
    switch (mem) {
    case SASS_MEM_GLOBAL: return SIM_SPACE_GLOBAL;
    case SASS_MEM_SHARED: return SIM_SPACE_SHARED;
    case SASS_MEM_LOCAL: return SIM_SPACE_LOCAL;
    case SASS_MEM_CONST: return SIM_SPACE_CONST;
    case SASS_MEM_TEX: return SIM_SPACE_TEX;
    default: return SIM_SPACE_NONE;
    }
}

static void
add_reg(uint16_t *list, uint8_t *n, unsigned max, unsigned r, unsigned span)
{
    /* a wide operand: the following registers of its file, to its zero register */
    unsigned end = r < AS_REG_UR ? 255 : r < AS_REG_P ? AS_REG_P - 1 : r < AS_REG_UP ?
                   AS_REG_UP - 1 : AS_REG_PRED - 1;
    for (unsigned k = 0; k < span && *n < max && r + k < end; k++)
        list[(*n)++] = (uint16_t)(r + k);
}

/* A register list of an instruction line: a count (0..8) then that many
 * registers R0..R255; `what` names it in errors ("destination", "source"). */
static int
parse_reg_list(textin *t, char **p, const char *what, unsigned regs[8], unsigned *count,
               struct sim_error *err)
{
    size_t n;
    int64_t v;
    const char *k = tok(p, &n);
    if (!parse_dec(k, n, &v) || v < 0 || v > 8)
        return lerr(t, err, "expected the number of %s registers, found '%.*s'", what, (int)n, k);
    *count = (unsigned)v;
    for (unsigned i = 0; i < *count; i++) {
        k = tok(p, &n);
        if (!parse_reg(k, n, &regs[i]))
            return lerr(t, err, "expected a %s register (R0..R255, UR0..UR63, P0..P7, UP0..UP7), "
                        "found '%.*s'", what, (int)n, k);
    }
    return SIM_OK;
}

/* The opcode token of an instruction line (NULL if the line is not one). */
static const char *
line_opcode(const struct as_src *s, char *line, size_t *n)
{
    char *p = line;
    size_t k;
    unsigned skip = (s->tracer_version < 3 ? 4u : 0u) + (s->lineinfo ? 1u : 0u) + 2u;
    for (unsigned i = 0; i < skip; i++)
        if (tok(&p, &k), k == 0)
            return NULL;
    const char *c = tok(&p, &k);
    int64_t nd;
    if (!parse_dec(c, k, &nd) || nd < 0 || nd > 8)
        return NULL;
    for (int64_t i = 0; i < nd; i++)
        tok(&p, &k);
    c = tok(&p, n);
    return *n > 0 && isupper((unsigned char)c[0]) ? c : NULL;
}

/* An unknown opcode at line `at` of the kernel file: read the whole file
 * and name every unknown opcode in one message (exit 2), each with its
 * first line. */
static int
unknown_opcodes(struct as_src *s, uint64_t at, struct sim_error *err)
{
    const char *path = textin_path(s->kt);
    struct sim_error e2 = { 0 };
    textin *t = textin_open(path, &e2);
    char msg[sizeof err->msg];
    size_t used = 0;
    unsigned found = 0;
    struct seen { char name[48]; uint64_t line; } seen[16];
    if (t != NULL) {
        char *line;
        size_t len;
        while (textin_next(t, &line, &len, &e2) > 0) {
            if (line[0] == '#' || line[0] == '-')
                continue;
            size_t n;
            const char *op = line_opcode(s, line, &n);
            if (op == NULL || !mn_lookup(s, op, n)->unknown)
                continue;
            unsigned i = 0;
            while (i < found && (strlen(seen[i].name) != n || memcmp(seen[i].name, op, n) != 0))
                i++;
            if (i == found && found < SIM_ARRAY_LEN(seen)) {
                snprintf(seen[found].name, sizeof seen[found].name, "%.*s", (int)n, op);
                seen[found++].line = textin_line(t);
            }
        }
        textin_close(t);
    }
    for (unsigned i = 0; i < found && used + 80 < sizeof msg; i++)
        used += (size_t)snprintf(msg + used, sizeof msg - used, "%s%s (line %" PRIu64 ")",
                                 i ? ", " : "", seen[i].name, seen[i].line);
    if (found == SIM_ARRAY_LEN(seen) && used + 8 < sizeof msg)
        snprintf(msg + used, sizeof msg - used, ", ...");
    return sim_error_set(err, SIM_ERR_FORMAT, "%s:%" PRIu64 ": unknown opcodes for %s (binary "
                         "version %u): %s; --unknown-opcode=alu simulates them as integer "
                         "instructions", path, at, sass_isa_name(s->isa), s->ki.isa_version,
                         found ? msg : "?");
}

/* Parse one instruction line into wi. */
/* A warpgroup MMA (HGMMA.64x128x16.F32, ...) as the model times it
 * (sim/inst.h SIM_OPC_WGMMA): N from the mnemonic; A in registers when it
 * reads a register besides its accumulator (the matrix descriptors are
 * uniform registers, which the trace does not list).  The accumulator
 * itself is no dependence: the tensor core chains the MMAs on it, and the
 * warp reads it after a WARPGROUP.DEPBAR.  The trace does not show which
 * HGMMA closes a group (its gsb0), so each is a group of its own: a
 * WARPGROUP.DEPBAR.LE N then waits for all but the newest N MMAs, not
 * groups (exact for N = 0, the usual wait). */
static void
wgmma_op(struct as_src *s, const char *key, struct warp_inst *wi)
{
    const char *x = strstr(key, ".64x");
    unsigned n = x != NULL ? (unsigned)strtoul(x + 4, NULL, 10) : 0;
    bool a_regs = false;
    uint8_t k = 0;
    for (unsigned i = 0; i < wi->n_src; i++) {
        bool acc = false;
        for (unsigned d = 0; d < wi->n_dst; d++)
            acc = acc || wi->src[i] == wi->dst[d];
        if (!acc && wi->src[i] < AS_REG_PRED) {
            a_regs = true;
            wi->src[k++] = wi->src[i];
        }
    }
    wi->n_src = k;
    wi->n_dst = 1;
    wi->dst[0] = wgmma_reg(s->wgmma_groups++);
    wi->aux = (n <= 256 ? n : 0) | (a_regs ? 0 : SIM_WGMMA_A_SHARED);
}

static int
parse_inst(struct as_src *s, char *line, struct warp_inst *wi, struct sim_error *err)
{
    textin *t = s->kt;
    char *p = line;
    size_t n;
    const char *k;
    int64_t v;
    uint64_t h;

    memset(wi, 0, offsetof(struct warp_inst, addr));
    if (s->tracer_version < 3)
        for (int i = 0; i < 4; i++) {
            k = tok(&p, &n);
            if (!parse_dec(k, n, &v))
                return lerr(t, err, "expected the 4 thread-block/warp numbers of a tracer 1.2 line");
        }
    if (s->lineinfo) {
        k = tok(&p, &n);
        if (!parse_dec(k, n, &v))
            return lerr(t, err, "expected a source line number (enable lineinfo = 1), found '%.*s'",
                        (int)n, k);
    }
    k = tok(&p, &n);
    if (!parse_hex(k, n, &h) || h > UINT32_MAX)
        return lerr(t, err, "expected a hex PC, found '%.*s'", (int)n, k);
    wi->pc = (uint32_t)h;
    k = tok(&p, &n);
    if (!parse_hex(k, n, &h) || h > UINT32_MAX)
        return lerr(t, err, "expected a hex 32-bit active mask, found '%.*s'", (int)n, k);
    wi->active_mask = (uint32_t)h;
    /* destinations */
    unsigned dregs[8], nd;
    int rc = parse_reg_list(t, &p, "destination", dregs, &nd, err);
    if (rc < 0)
        return rc;
    /* opcode */
    k = tok(&p, &n);
    if (n == 0 || !isupper((unsigned char)k[0]))
        return lerr(t, err, "expected an opcode, found '%.*s'", (int)n, k);
    struct mn_entry *me = mn_lookup(s, k, n);
    if (me->unknown) {
        if (s->opts.unknown != ACCELSIM_UNKNOWN_ALU)
            return unknown_opcodes(s, textin_line(t), err);
        s->unknown_insts++;
    }
    s->npipe_insts[me->npipe]++;
    wi->opcode = me->d.op;
    wi->opclass = me->d.opclass;
    wi->flags = me->d.flags;
    if (me->d.opclass == SIM_OPC_TENSOR_DP)
        wi->aux = me->d.units;   /* its work in DMMA.884 units (sim/inst.h) */
    if (wi->flags & SIM_IF_BARRIER)
        wi->opclass = SIM_OPC_BARRIER;
    /* sources */
    unsigned sregs[8], ns;
    rc = parse_reg_list(t, &p, "source", sregs, &ns, err);
    if (rc < 0)
        return rc;
    /* memory */
    k = tok(&p, &n);
    if (!parse_dec(k, n, &v) || v < 0 || v > 64)
        return lerr(t, err, "expected the memory access width in bytes, found '%.*s'", (int)n, k);
    unsigned width = (unsigned)v;
    if (width > 0) {
        if (me->d.mem == SASS_MEM_NONE)
            return lerr(t, err, "'%s' is not a memory instruction but has a memory width",
                        me->key);
        if (width > 16)
            return lerr(t, err, "memory width %u bytes per lane (smsim models at most 16)", width);
        wi->width = (uint8_t)width;
        k = tok(&p, &n);
        int64_t mode;
        if (!parse_dec(k, n, &mode) || mode < 0 || mode > 2)
            return lerr(t, err, "expected an address mode 0, 1 or 2, found '%.*s'", (int)n, k);
        uint32_t m = wi->active_mask;
        unsigned lanes = (unsigned)__builtin_popcount(m);
        uint64_t addr = 0;
        int64_t step = 0;
        /* base+stride always carries both, base+delta its base, even when
         * no lane is active (the tracer writes "1 0x0 0" then) */
        if (mode != 0) {
            k = tok(&p, &n);
            if (!parse_hex(k, n, &addr))
                return lerr(t, err, "expected a hex base address, found '%.*s'", (int)n, k);
        }
        if (mode == 1) {
            k = tok(&p, &n);
            if (!parse_dec(k, n, &step))
                return lerr(t, err, "expected a decimal address stride, found '%.*s'", (int)n, k);
        }
        for (unsigned i = 0; m != 0; i++) {
            unsigned l = (unsigned)__builtin_ctz(m);
            m &= m - 1;
            if (mode == 0) {
                k = tok(&p, &n);
                if (!parse_hex(k, n, &addr))
                    return lerr(t, err, "expected %u hex addresses (one per active lane), "
                                "found '%.*s' as number %u", lanes, (int)n, k, i + 1);
            } else if (mode == 1 && i > 0) {
                addr += (uint64_t)step;
            } else if (mode == 2 && i > 0) {
                k = tok(&p, &n);
                if (!parse_dec(k, n, &step))
                    return lerr(t, err, "expected %u address deltas, found '%.*s' as number %u",
                                lanes - 1, (int)n, k, i);
                addr += (uint64_t)step;
            }
            wi->addr[l] = addr;
        }
        /* the space, resolving generic addresses by window */
        uint8_t space = space_of(me->d.mem);
        if (me->d.mem == SASS_MEM_GENERIC) {
            space = SIM_SPACE_GLOBAL;
            bool first = true;
            for (uint32_t mm = wi->active_mask; mm != 0; mm &= mm - 1) {
                uint8_t sp = generic_space(s, wi->addr[__builtin_ctz(mm)]);
                if (first)
                    space = sp;
                else if (sp != space) {
                    s->mixed_generic++;
                    break;
                }
                first = false;
            }
        }
        wi->space = space;
        if (space == SIM_SPACE_SHARED && s->shmem_base != 0)
            for (uint32_t mm = wi->active_mask; mm != 0; mm &= mm - 1) {
                unsigned l = (unsigned)__builtin_ctz(mm);
                if (wi->addr[l] >= s->shmem_base)
                    wi->addr[l] -= s->shmem_base;     /* offset in the block's shared memory */
            }
    } else if (me->d.mem == SASS_MEM_CONST) {
        /* a constant-bank load (LDC c[0x0][...]): the tracer records no
         * address for it: a constant-cache hit (the parameter bank) */
        wi->space = SIM_SPACE_PARAM;
        memset(wi->addr, 0, sizeof wi->addr);   /* one (unknown) word for all lanes */
    } else if (me->d.mem != SASS_MEM_NONE && (me->d.flags & (SIM_IF_LOAD | SIM_IF_STORE))) {
        return lerr(t, err, "memory instruction '%s' without a memory width and addresses",
                    me->key);
    }
    /* the optional immediate */
    k = tok(&p, &n);
    if (n > 0) {
        if (!parse_dec(k, n, &v))
            return lerr(t, err, "expected an immediate or the end of the line, found '%.*s'",
                        (int)n, k);
        wi->aux = (uint32_t)v;
        k = tok(&p, &n);
        if (n > 0)
            return lerr(t, err, "unexpected '%.*s' after the immediate", (int)n, k);
    }
    /* wide operands: pairs, quads, matrix fragments (sass_regs.h) */
    if (me->regs_width != wi->width) {
        sass_regs_of(me->key, strlen(me->key), &me->d, wi->width, &me->regs);
        me->regs_width = wi->width;
    }
    const struct sass_regs rs = me->regs;
    for (unsigned i = 0; i < nd; i++)
        if (dregs[i] != REG_NONE)
            add_reg(wi->dst, &wi->n_dst, SIM_MAX_DST, dregs[i], rs.dst);
    for (unsigned i = 0; i < ns; i++)
        if (sregs[i] != REG_NONE)
            add_reg(wi->src, &wi->n_src, SIM_MAX_SRC, sregs[i], sass_regs_src(&rs, i, ns));
    /* async copies (frontend/async.h): LDGSTS writes its group's register,
     * DEPBAR.LE reads those of the groups it waits for */
    if (me->async == AS_ASYNC_COPY && wi->n_dst < SIM_MAX_DST)
        wi->dst[wi->n_dst++] = async_reg(s->groups);
    else if (me->async == AS_ASYNC_COMMIT)
        s->groups++;
    else if (me->async == AS_ASYNC_WAIT)
        async_wait_regs(s->groups, wi->aux, wi->src, &wi->n_src, SIM_MAX_SRC);
    else if (me->async == AS_WGMMA)
        wgmma_op(s, me->key, wi);
    else if (me->async == AS_WGMMA_WAIT)
        async_group_wait_regs(WGMMA_REG, s->wgmma_groups, wi->aux, wi->src, &wi->n_src,
                              SIM_MAX_SRC);
    /* the implicit predicates (accelsim.h): compares write them in
     * rotation, a branch reads the latest */
    if (wi->opclass == SIM_OPC_SETP && wi->n_dst < SIM_MAX_DST)
        wi->dst[wi->n_dst++] = (uint16_t)(AS_REG_PRED + s->preds++ % AS_REG_PREDS);
    else if (me->reads_pred && s->preds > 0 && wi->n_src < SIM_MAX_SRC)
        wi->src[wi->n_src++] = (uint16_t)(AS_REG_PRED + (s->preds - 1) % AS_REG_PREDS);
    return SIM_OK;
}

/* Parse "key = number" of a TB section line. */
static bool
kv_num(const char *line, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    while (*line == ' ')
        line++;
    if (strncmp(line, key, kl) != 0)
        return false;
    const char *p = line + kl;
    while (*p == ' ')
        p++;
    if (*p != '=')
        return false;
    return parse_u64_val(p + 1, v, false);
}

static void
warp_reserve(struct as_warp *w, size_t more)
{
    if (w->len + more > w->cap) {
        w->cap = w->cap ? w->cap : 1024;
        while (w->len + more > w->cap)
            w->cap *= 2;
        w->buf = xrealloc(w->buf, w->cap);
    }
}

static int
as_block_begin(void *ctx, uint64_t id, uint32_t slot, uint32_t sm, struct sim_error *err)
{
    struct as_src *s = ctx;
    textin *t = s->kt;
    char *line;
    size_t len;
    int r;
    (void)sm;

    SIM_ASSERT(slot < s->n_slots);
    if (id != s->blocks_read)
        return sim_error_set(err, SIM_ERR_INTERNAL, "block %" PRIu64 " opened out of order", id);
    struct as_block *b = &s->slots[slot];
    if (b->n_warps < s->wpb) {
        b->w = xrealloc(b->w, s->wpb * sizeof *b->w);
        memset(b->w + b->n_warps, 0, (s->wpb - b->n_warps) * sizeof *b->w);
        b->n_warps = s->wpb;
    }
    for (uint32_t w = 0; w < s->wpb; w++) {
        b->w[w].len = b->w[w].pos = 0;
        b->w[w].left = UINT64_MAX;                    /* "not given yet" */
        smtrec_reset(&b->w[w].dec);
    }
    /* #BEGIN_TB */
    for (;;) {
        r = textin_next(t, &line, &len, err);
        if (r < 0)
            return r;
        if (r == 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: the file ends after %" PRIu64 " of %"
                                 PRIu64 " thread blocks", textin_path(t), s->blocks_read,
                                 s->n_blocks);
        if (blank(line))
            continue;
        if (strncmp(line, "#BEGIN_TB", 9) == 0 && blank(line + 9))
            break;
        return lerr(t, err, "expected #BEGIN_TB, found '%.60s'", line);
    }
    uint64_t begin_line = textin_line(t);
    /* thread block = x,y,z */
    do {
        r = textin_next(t, &line, &len, err);
    } while (r > 0 && blank(line));
    if (r <= 0)
        return r < 0 ? r : lerr(t, err, "the file ends inside a thread block");
    unsigned long long bx, by, bz;
    char extra;
    if (sscanf(line, " thread block = %llu , %llu , %llu %c", &bx, &by, &bz, &extra) != 3)
        return lerr(t, err, "expected 'thread block = x,y,z', found '%.60s'", line);
    if (bx >= s->ki.grid[0] || by >= s->ki.grid[1] || bz >= s->ki.grid[2])
        return lerr(t, err, "thread block (%llu,%llu,%llu) is outside the grid (%u,%u,%u)",
                    bx, by, bz, s->ki.grid[0], s->ki.grid[1], s->ki.grid[2]);
    uint64_t lin = bx + (uint64_t)s->ki.grid[0] * (by + (uint64_t)s->ki.grid[1] * bz);
    if (s->seen[lin / 8] & (1u << (lin % 8)))
        return lerr(t, err, "thread block (%llu,%llu,%llu) appears twice", bx, by, bz);
    s->seen[lin / 8] |= (uint8_t)(1u << (lin % 8));
    /* warp = w / insts = n / n lines, ... / #END_TB */
    struct warp_inst wi;
    for (;;) {
        r = textin_next(t, &line, &len, err);
        if (r <= 0)
            return r < 0 ? r : lerr(t, err, "the file ends inside the thread block that starts at "
                                    "line %" PRIu64, begin_line);
        if (blank(line))
            continue;
        if (strncmp(line, "#END_TB", 7) == 0 && blank(line + 7))
            break;
        uint64_t w, ninst;
        if (!kv_num(line, "warp", &w))
            return lerr(t, err, "expected 'warp = N' or #END_TB, found '%.60s'", line);
        if (w >= s->wpb)
            return lerr(t, err, "warp %" PRIu64 " of a block of %u warps", w, s->wpb);
        struct as_warp *aw = &b->w[w];
        if (aw->left != UINT64_MAX)
            return lerr(t, err, "warp %" PRIu64 " appears twice in this thread block", w);
        do {
            r = textin_next(t, &line, &len, err);
        } while (r > 0 && blank(line));
        if (r <= 0)
            return r < 0 ? r : lerr(t, err, "the file ends before 'insts = N'");
        if (!kv_num(line, "insts", &ninst))
            return lerr(t, err, "expected 'insts = N', found '%.60s'", line);
        uint64_t insts_line = textin_line(t);
        struct smtrec_state enc;
        smtrec_reset(&enc);
        s->preds = 0;
        s->groups = 0;
        s->wgmma_groups = 0;
        for (uint64_t i = 0; i < ninst; i++) {
            r = textin_next(t, &line, &len, err);
            if (r < 0)
                return r;
            if (r == 0 || line[0] == '#' || strncmp(line, "warp", 4) == 0 || blank(line))
                return sim_error_set(err, SIM_ERR_FORMAT, "%s:%" PRIu64 ": 'insts = %" PRIu64
                                     "' (line %" PRIu64 ") but only %" PRIu64 " instruction lines "
                                     "follow", textin_path(t), textin_line(t), ninst, insts_line, i);
            SIM_FORWARD_IF_ERROR(parse_inst(s, line, &wi, err));
            warp_reserve(aw, SMTREC_MAX_BYTES);
            aw->len += smtrec_encode(&enc, &wi, aw->buf + aw->len);
        }
        aw->left = ninst;
    }
    for (uint32_t w = 0; w < s->wpb; w++)
        if (b->w[w].left == UINT64_MAX)
            return lerr(t, err, "the thread block that starts at line %" PRIu64 " has no warp %u "
                        "(it must list all %u)", begin_line, w, s->wpb);
    s->blocks_read++;
    return SIM_OK;
}

static int
as_next_inst(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now, struct warp_inst *wi,
             struct sim_error *err)
{
    struct as_src *s = ctx;
    struct as_warp *w = &s->slots[slot].w[warp];
    const char *why;
    (void)now;
    if (w->left == 0)
        return 0;
    size_t n = smtrec_decode(&w->dec, w->buf + w->pos, w->buf + w->len, wi, &why);
    if (n == 0)
        return sim_error_set(err, SIM_ERR_INTERNAL, "re-reading a buffered instruction: %s", why);
    w->pos += n;
    w->left--;
    return 1;
}

static void
as_block_end(void *ctx, uint32_t slot)
{
    struct as_src *s = ctx;
    struct as_block *b = &s->slots[slot];
    /* keep the buffers for reuse, but give back very large ones */
    for (uint32_t w = 0; w < b->n_warps; w++)
        if (b->w[w].cap > (1u << 20)) {
            free(b->w[w].buf);
            b->w[w].buf = NULL;
            b->w[w].cap = 0;
        }
}

static const char *
as_opcode_name(void *ctx, uint16_t op)
{
    struct as_src *s = ctx;
    size_t n = sass_isa_count(s->isa);
    if (op < n)
        return sass_isa_op(s->isa, op)->name;
    return op == n ? "UNKNOWN" : NULL;
}

static size_t
as_copies(void *ctx, const struct sim_copy **out)
{
    struct as_src *s = ctx;
    *out = s->copies;
    return s->n_copies;
}

static void
register_counters(stats *st, const uint64_t *unknown, const uint64_t *mixed,
                  const uint64_t *npipe)
{
    sass_register_npipe_stats(st, npipe);
    stats_add_u64(st, "sass.unknown_opcode_insts", unknown, "warp insts",
                  "instructions of opcodes the trace's ISA table lacks, simulated as integer ALU "
                  "instructions (--unknown-opcode=alu)");
    stats_add_u64(st, "sass.generic_mixed_windows", mixed, "warp insts",
                  "generic loads/stores whose lanes fall in different windows (shared, local, "
                  "global); the first active lane's window is used");
}

static void
as_register_stats(void *ctx, stats *st)
{
    struct as_src *s = ctx;
    register_counters(st, &s->unknown_insts, &s->mixed_generic, s->npipe_insts);
}

void
accelsim_register_doc_stats(stats *st)
{
    static const uint64_t zero[2 + SASS_NPIPE_COUNT];
    register_counters(st, &zero[0], &zero[1], &zero[2]);
}

static void
as_destroy(void *ctx)
{
    struct as_src *s = ctx;
    for (uint32_t i = 0; i < s->n_slots; i++) {
        for (uint32_t w = 0; w < s->slots[i].n_warps; w++)
            free(s->slots[i].w[w].buf);
        free(s->slots[i].w);
    }
    free(s->slots);
    mn_clear(s);
    textin_close(s->kt);
    textin_close(s->list);
    free(s->copies);
    free(s->seen);
    free(s->list_path);
    free(s->single);
    free(s);
}

static const struct inst_source_ops accelsim_ops = {
    .next_kernel = as_next_kernel,
    .kernel_begin = as_kernel_begin,
    .block_begin = as_block_begin,
    .next_inst = as_next_inst,
    .block_end = as_block_end,
    .opcode_name = as_opcode_name,
    .destroy = as_destroy,
    .copies = as_copies,
    .register_stats = as_register_stats,
    .concurrent_next = true,     /* per-slot state only */
};

static bool
is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool
accelsim_sniff(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    return is_dir(path) || strcmp(base, "kernelslist.g") == 0 || ends_with(path, ".traceg") ||
           ends_with(path, ".traceg.xz");
}

int
accelsim_source_open(const char *path, const struct accelsim_opts *opts, struct inst_source *src,
                     struct sim_error *err)
{
    struct as_src *s = xcalloc(1, sizeof *s);
    if (opts != NULL)
        s->opts = *opts;
    s->cache_isa = -1;
    if (is_dir(path)) {
        size_t n = strlen(path) + sizeof "/kernelslist.g";
        s->list_path = xmalloc(n);
        snprintf(s->list_path, n, "%s%skernelslist.g", path,
                 ends_with(path, "/") ? "" : "/");
    } else if (ends_with(path, ".traceg") || ends_with(path, ".traceg.xz")) {
        s->single = xstrdup(path);
    } else {
        s->list_path = xstrdup(path);
    }
    if (s->list_path != NULL) {
        s->list = textin_open(s->list_path, err);
        if (s->list == NULL) {
            as_destroy(s);
            return err->code;
        }
    }
    src->ops = &accelsim_ops;
    src->ctx = s;
    return SIM_OK;
}
