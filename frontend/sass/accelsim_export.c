/*
 * accelsim_export.c - write any instruction source as an Accel-Sim trace
 * directory (see accelsim.h).
 *
 * The source is driven without the timing model (frontend/record.c), one
 * block at a time; each warp's lines are collected in memory (so its
 * `insts = N` can precede them) and the block is written when it ends.
 * The output is tracer format 5 without line numbers: what Accel-Sim's
 * post-processor writes.  Mnemonics come from sass_encode(), which
 * guarantees that smsim reads each line back with the same class, flags,
 * space and width, and picks shapes (HMMA.16816.F32, LDSM.16.M88.4) whose
 * operand sizes give back the registers (sass_regs.h): each operand is
 * written as its first register.  Register ids above 254 are folded into
 * R0..R254 and at most one destination and four sources are written
 * (Accel-Sim's limits; SASS-derived streams never exceed them).
 * Addresses use base+stride when the active lanes are contiguous with a
 * constant stride, else base+delta, as the NVBit tracer does.
 *
 * Asynchronous copies (frontend/async.h) are written as Accel-Sim's tracer
 * records them: a copy (an instruction writing a group register) as an
 * LDGSTS without destination, a commit as LDGDEPBAR, a wait (a no-op
 * reading group registers) as DEPBAR.LE with the number of newest groups
 * it does not wait for as its immediate, which the reader turns back into
 * the same registers.  Commits are recognised by name (LDGDEPBAR,
 * cp.async.commit_group, cp.async.wait_all), so each warp's group count
 * follows the source's.
 */
#include "frontend/sass/accelsim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/async.h"
#include "frontend/record.h"
#include "frontend/sass/sass_isa.h"
#include "frontend/sass/sass_regs.h"
#include "sim/afile.h"

/* Generic-window bases written in the header (no generic accesses are
 * written, so they only need to be plausible and disjoint). */
#define EXPORT_SHMEM_BASE UINT64_C(0x00007ff000000000)
#define EXPORT_LOCAL_BASE UINT64_C(0x00007ff001000000)

struct wbuf {
    char *p;
    size_t len, cap;
    uint64_t n;                  /* lines */
    uint32_t groups;             /* async-copy groups the warp has committed */
};

struct exporter {
    const char *dir;
    const struct accelsim_export_opts *opts;
    struct accelsim_export_totals *tot;
    struct inst_source *src;
    int isa;
    unsigned binver;
    struct kernel_info ki;
    struct afile kf;             /* the kernel file being written */
    bool kf_open;
    struct wbuf *w;              /* per warp of the current block */
    uint32_t wpb;                /* warps per block of the current kernel */
    uint32_t n_w;                /* entries of w allocated */
    uint64_t block;
    struct wbuf list;            /* kernelslist.g contents */
};

static void
wb_printf(struct wbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
wb_printf(struct wbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->p + b->len, room, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap ? 2 * b->cap : 4096;
        while (n >= 0 && b->cap - b->len <= (size_t)n)
            b->cap *= 2;
        b->p = xrealloc(b->p, b->cap);
    }
}

/* Append register id r by its file's name (accelsim.h): R, UR, P, UP;
 * an id of no file is folded into R0..R254 (and counted). */
static void
reg_out(struct exporter *e, struct wbuf *b, unsigned r)
{
    if (r < 255)
        wb_printf(b, " R%u", r);
    else if (r >= AS_REG_UR && r < AS_REG_UR + 63)
        wb_printf(b, " UR%u", r - AS_REG_UR);
    else if (r >= AS_REG_P && r < AS_REG_P + 7)
        wb_printf(b, " P%u", r - AS_REG_P);
    else if (r >= AS_REG_UP && r < AS_REG_UP + 7)
        wb_printf(b, " UP%u", r - AS_REG_UP);
    else {
        e->tot->regs_folded++;
        wb_printf(b, " R%u", r % 255);
    }
}

static int
ex_kernel_begin(void *ctx, const struct kernel_info *ki, struct sim_error *err)
{
    struct exporter *e = ctx;
    char path[4096], name[64];

    if (e->isa < 0) {
        unsigned v = e->opts->binary_version;
        if (v == 0)
            v = ki->isa == SIM_ISA_SASS && sass_isa_of_version(ki->isa_version) >= 0 ?
                ki->isa_version : 70;
        e->isa = sass_isa_of_version(v);
        if (e->isa < 0)
            return sim_error_set(err, SIM_ERR_USAGE, "binary version %u is not one smsim has an "
                                 "opcode table for", v);
        e->binver = v;
    }
    e->ki = *ki;
    e->wpb = kernel_info_warps_per_block(ki);
    if (e->wpb > e->n_w) {
        e->w = xrealloc(e->w, e->wpb * sizeof *e->w);
        memset(e->w + e->n_w, 0, (e->wpb - e->n_w) * sizeof *e->w);
        e->n_w = e->wpb;
    }
    e->block = 0;
    snprintf(name, sizeof name, "kernel-%u.traceg", e->tot->kernels + 1);
    snprintf(path, sizeof path, "%s/%s", e->dir, name);
    SIM_FORWARD_IF_ERROR(afile_open(&e->kf, path, err));
    e->kf_open = true;
    if (e->src->ops->copies != NULL) {
        const struct sim_copy *cp;
        size_t n = e->src->ops->copies(e->src->ctx, &cp);
        for (size_t i = 0; i < n; i++)
            wb_printf(&e->list, "MemcpyHtoD,0x%016" PRIx64 ",%" PRIu64 "\n", cp[i].addr,
                      cp[i].bytes);
    }
    wb_printf(&e->list, "%s\n", name);
    FILE *fp = e->kf.fp;
    fprintf(fp, "-kernel name = %s\n", ki->name);
    fprintf(fp, "-kernel id = %u\n", e->tot->kernels + 1);
    fprintf(fp, "-grid dim = (%u,%u,%u)\n", ki->grid[0], ki->grid[1], ki->grid[2]);
    fprintf(fp, "-block dim = (%u,%u,%u)\n", ki->block[0], ki->block[1], ki->block[2]);
    fprintf(fp, "-shmem = %u\n", ki->smem_static + ki->smem_dynamic);
    fprintf(fp, "-nregs = %u\n", ki->regs_per_thread);
    fprintf(fp, "-binary version = %u\n", e->binver);
    fprintf(fp, "-cuda stream id = 0\n");
    fprintf(fp, "-shmem base_addr = 0x%016" PRIx64 "\n", EXPORT_SHMEM_BASE);
    fprintf(fp, "-local mem base_addr = 0x%016" PRIx64 "\n", EXPORT_LOCAL_BASE);
    fprintf(fp, "-nvbit version = smsim-" PACKAGE_VERSION "\n");
    fprintf(fp, "-accelsim tracer version = 5\n");
    fprintf(fp, "-enable lineinfo = 0\n\n");
    fprintf(fp, "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
                "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n");
    return SIM_OK;
}

static int
ex_block_begin(void *ctx, uint64_t id, struct sim_error *err)
{
    struct exporter *e = ctx;
    (void)err;
    e->block = id;
    for (uint32_t w = 0; w < e->wpb; w++) {
        e->w[w].len = 0;
        e->w[w].n = 0;
        e->w[w].groups = 0;
    }
    return SIM_OK;
}

/* The addresses of the active lanes, compressed as the tracer does. */
static void
write_addrs(struct wbuf *b, const struct warp_inst *wi)
{
    uint32_t m = wi->active_mask;
    unsigned lanes = (unsigned)__builtin_popcount(m);
    if (lanes == 0) {
        wb_printf(b, " 0");
        return;
    }
    unsigned first = (unsigned)__builtin_ctz(m);
    bool contiguous = (m >> first & ((m >> first) + 1)) == 0;
    if (contiguous && lanes >= 2) {
        int64_t stride = (int64_t)(wi->addr[first + 1] - wi->addr[first]);
        bool same = stride >= INT32_MIN && stride <= INT32_MAX;
        for (unsigned l = first + 1; same && l < first + lanes; l++)
            same = (int64_t)(wi->addr[l] - wi->addr[l - 1]) == stride;
        if (same) {
            wb_printf(b, " 1 0x%" PRIx64 " %" PRId64, wi->addr[first], stride);
            return;
        }
    }
    wb_printf(b, " 2 0x%" PRIx64, wi->addr[first]);
    uint64_t prev = wi->addr[first];
    for (uint32_t mm = m & (m - 1); mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        wb_printf(b, " %" PRId64, (int64_t)(wi->addr[l] - prev));
        prev = wi->addr[l];
    }
}

/* What an instruction is to its warp's async-copy groups. */
enum ex_async { EX_NONE, EX_COPY, EX_COMMIT, EX_WAIT, EX_COMMIT_WAIT };

static bool
name_has(const char *name, const char *part)
{
    return name != NULL && strstr(name, part) != NULL;
}

/* The async role of wi (source opcode name `name`, may be NULL). */
static int
async_role(const struct warp_inst *wi, const char *name)
{
    bool writes = false, reads = false;
    for (unsigned i = 0; i < wi->n_dst; i++)
        writes = writes || async_is_reg(wi->dst[i]);
    for (unsigned i = 0; i < wi->n_src; i++)
        reads = reads || async_is_reg(wi->src[i]);
    if (writes && wi->opclass == SIM_OPC_MEM)
        return EX_COPY;
    if (wi->opclass != SIM_OPC_NOP)
        return EX_NONE;
    if (name != NULL && (strcmp(name, "LDGDEPBAR") == 0 || name_has(name, "commit_group")))
        return EX_COMMIT;
    if (name_has(name, "wait_all"))
        return EX_COMMIT_WAIT;
    return reads ? EX_WAIT : EX_NONE;
}

/* Copy of wi without the registers the reader adds itself: the implicit
 * predicates of a SASS-read stream (accelsim.h) and the group registers. */
static void
trace_regs(const struct warp_inst *wi, bool sass, struct warp_inst *v)
{
    *v = *wi;
    v->n_dst = v->n_src = 0;
    for (unsigned i = 0; i < wi->n_dst; i++) {
        unsigned r = wi->dst[i];
        if (!async_is_reg(r) && !(sass && r >= AS_REG_PRED && r < AS_REG_PRED + AS_REG_PREDS))
            v->dst[v->n_dst++] = wi->dst[i];
    }
    for (unsigned i = 0; i < wi->n_src; i++) {
        unsigned r = wi->src[i];
        if (!async_is_reg(r) && !(sass && r >= AS_REG_PRED && r < AS_REG_PRED + AS_REG_PREDS))
            v->src[v->n_src++] = wi->src[i];
    }
}

/* Write instruction wi (v: its registers as the trace lists them) as the
 * line "pc mask ndst dst mnemonic nsrc srcs width addrs aux". */
static int
write_line(struct exporter *e, struct wbuf *b, uint32_t warp, const struct warp_inst *wi,
           const struct warp_inst *vp, const char *mn, uint32_t aux, struct sim_error *err)
{
    struct warp_inst v = *vp;
    wb_printf(b, "%04x %08x", wi->pc, wi->active_mask);
    /* operands by their first registers (sass_regs.h) */
    struct sass_decoded d;
    struct sass_regs rs = { 1, { 1, 1, 1 }, 1, 0 };
    if (sass_decode(e->isa, mn, strlen(mn), &d) == 0)
        sass_regs_of(mn, strlen(mn), &d, v.opclass == SIM_OPC_MEM ? v.width : 0, &rs);
    if (v.n_dst > 0) {
        wb_printf(b, " 1");
        reg_out(e, b, v.dst[0]);
        if (!sass_regs_dst_fits(&rs, v.dst, v.n_dst))
            e->tot->regs_dropped += v.n_dst - 1u;   /* not the one operand it names */
    } else {
        wb_printf(b, " 0");
    }
    wb_printf(b, " %s", mn);
    uint16_t srcs[SIM_MAX_SRC];
    bool exact;
    unsigned ns = sass_regs_split(&rs, v.src, v.n_src, srcs, SIM_MAX_SRC, &exact);
    if (ns > 4) {
        e->tot->regs_dropped += ns - 4;
        ns = 4;
    }
    wb_printf(b, " %u", ns);
    for (unsigned i = 0; i < ns; i++)
        reg_out(e, b, srcs[i]);
    if (wi->opclass == SIM_OPC_MEM && wi->space == SIM_SPACE_GLOBAL)
        for (uint32_t m = wi->active_mask; m != 0; m &= m - 1) {
            uint64_t a = wi->addr[__builtin_ctz(m)];
            if (a >= EXPORT_SHMEM_BASE && a < EXPORT_LOCAL_BASE + (UINT64_C(1) << 24))
                return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s block %" PRIu64
                                     " warp %u pc %#x: global address %#" PRIx64 " lies in the "
                                     "shared/local windows the export declares", e->ki.name,
                                     e->block, warp, wi->pc, a);
        }
    if (wi->opclass == SIM_OPC_MEM && wi->width > 0) {
        wb_printf(b, " %u", wi->width);
        write_addrs(b, wi);
    } else {
        wb_printf(b, " 0");
    }
    wb_printf(b, " %" PRIu32 "\n", aux);
    b->n++;
    e->tot->warp_insts++;
    return SIM_OK;
}

static int
ex_inst(void *ctx, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    struct exporter *e = ctx;
    struct wbuf *b = &e->w[warp];
    char mn[128];
    const char *why = NULL;
    const char *base = NULL, *name = NULL;

    if (e->src->ops->opcode_name != NULL)
        name = e->src->ops->opcode_name(e->src->ctx, wi->opcode);
    if (e->ki.isa == SIM_ISA_SASS && sass_isa_of_version(e->ki.isa_version) == e->isa)
        base = name;
    /* the implicit predicates and group registers are the reader's, not the trace's */
    bool sass = e->ki.isa == SIM_ISA_SASS;
    struct warp_inst v;
    trace_regs(wi, sass, &v);
    if (wi->sync != SIM_SYNC_NONE || wi->bulk != SIM_BULK_NONE)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s block %" PRIu64 " warp %u pc "
                             "%#x: unsupported: mbarrier and bulk-copy operations cannot be "
                             "written as Accel-Sim traces yet", e->ki.name, e->block, warp,
                             wi->pc);
    /* warpgroup MMAs and their waits (accelsim.c reads them back: each
     * HGMMA a group of its own, WARPGROUP.DEPBAR.LE N) */
    bool wg_wait = false;
    for (unsigned i = 0; i < wi->n_src; i++)
        wg_wait = wg_wait || (wi->opclass == SIM_OPC_NOP && wgmma_is_reg(wi->src[i]));
    if (wi->opclass == SIM_OPC_WGMMA || wg_wait) {
        if (e->isa != SASS_HOPPER)
            return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s block %" PRIu64 " warp %u "
                                 "pc %#x: unsupported: warpgroup MMAs exist in sm_90 SASS only "
                                 "(--binary-version 90)", e->ki.name, e->block, warp, wi->pc);
        if (wg_wait && wi->aux > 0)
            e->tot->async_approx++;   /* wait_group N > 0: the reader counts MMAs, not groups */
        if (wg_wait)
            return write_line(e, b, warp, wi, &v, "WARPGROUP.DEPBAR.LE", 0, err);
        /* the shape from aux when the name lacks it (a .smt keeps the base
         * opcode only): HGMMA.64xNx16.F32, IGMMA.64xNx32.S8.S8, QGMMA... */
        if (name != NULL && strstr(name, "GMMA.64x") != NULL) {
            snprintf(mn, sizeof mn, "%s", name);
        } else {
            const char *op = name != NULL && (!strcmp(name, "IGMMA") || !strcmp(name, "QGMMA"))
                             ? name : "HGMMA";
            snprintf(mn, sizeof mn, "%s.64x%ux%s", op, SIM_WGMMA_N(wi->aux),
                     op[0] == 'I' ? "32.S8.S8" : op[0] == 'Q' ? "32.F32.E4M3.E4M3" : "16.F32");
        }
        return write_line(e, b, warp, wi, &v, mn, 0, err);
    }
    int role = async_role(wi, name);
    uint32_t aux = wi->aux;
    if (role == EX_COPY && base == NULL)
        base = "LDGSTS";
    else if (role == EX_COMMIT && base == NULL)
        base = "LDGDEPBAR";
    else if (role == EX_WAIT || role == EX_COMMIT_WAIT)
        base = "DEPBAR";
    if (role == EX_COMMIT || role == EX_COMMIT_WAIT)
        b->groups++;
    int r = sass_encode(e->isa, &v, base, mn, sizeof mn, &why);
    if (r < 0)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "kernel %s block %" PRIu64 " warp %u pc "
                             "%#x: cannot write a %s instruction as %s SASS: %s", e->ki.name,
                             e->block, warp, wi->pc, inst_opclass_name(wi->opclass),
                             sass_isa_name(e->isa), why);
    if (r > 0)
        e->tot->approximated++;
    bool has_ldgsts = sass_isa_find(e->isa, "LDGSTS", 6) >= 0;
    if (role == EX_WAIT || role == EX_COMMIT_WAIT) {
        /* DEPBAR.LE N: N = the newest groups not waited for, from the
         * newest group register read (the last) */
        unsigned newest = 0;
        for (unsigned i = 0; i < wi->n_src; i++)
            if (async_is_reg(wi->src[i]))
                newest = wi->src[i] - ASYNC_REG;
        aux = b->groups > 0 ? (b->groups - 1 - newest) % ASYNC_SLOTS : 0;
        if (strcmp(mn, "DEPBAR") == 0)
            snprintf(mn, sizeof mn, "DEPBAR.LE");
        /* wait_all commits in the same instruction: the reader, which
         * commits on LDGDEPBAR only, does not wait for that last group */
        if (role == EX_COMMIT_WAIT || !has_ldgsts)
            e->tot->async_approx++;
    } else if (role == EX_NONE && strcmp(mn, "DEPBAR") == 0 &&
               (wi->aux >= b->groups || wi->aux >= ASYNC_SLOTS)) {
        snprintf(mn, sizeof mn, "DEPBAR.LE");    /* waits for no group: as it was read */
    } else if (role == EX_COPY && !has_ldgsts) {
        e->tot->async_approx++;                  /* a plain load nothing waits for */
    }
    return write_line(e, b, warp, wi, &v, mn, aux, err);
}

static int
ex_block_end(void *ctx, struct sim_error *err)
{
    struct exporter *e = ctx;
    FILE *fp = e->kf.fp;
    uint32_t gx = e->ki.grid[0], gy = e->ki.grid[1];
    (void)err;
    fprintf(fp, "#BEGIN_TB\n\nthread block = %" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n\n",
            e->block % gx, e->block / gx % gy, e->block / ((uint64_t)gx * gy));
    for (uint32_t w = 0; w < e->wpb; w++) {
        fprintf(fp, "warp = %u\ninsts = %" PRIu64 "\n", w, e->w[w].n);
        fwrite(e->w[w].p, 1, e->w[w].len, fp);
        fputc('\n', fp);
    }
    fprintf(fp, "#END_TB\n\n");
    return SIM_OK;
}

static int
ex_kernel_end(void *ctx, struct sim_error *err)
{
    struct exporter *e = ctx;
    e->kf_open = false;
    SIM_FORWARD_IF_ERROR(afile_commit(&e->kf, err));
    e->tot->kernels++;
    return SIM_OK;
}

static void
write_list(FILE *fp, void *arg)
{
    const struct wbuf *b = arg;
    fwrite(b->p, 1, b->len, fp);
}

int
accelsim_export(struct inst_source *src, const char *dir, const struct accelsim_export_opts *opts,
                struct accelsim_export_totals *tot, struct sim_error *err)
{
    struct exporter e;
    struct record_totals rt;
    char list[4096];

    memset(tot, 0, sizeof *tot);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot create directory: %s", dir,
                             strerror(errno));
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    if (unlink(list) != 0 && errno != ENOENT)     /* no stale list if this export fails */
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot replace: %s", list, strerror(errno));
    memset(&e, 0, sizeof e);
    e.dir = dir;
    e.opts = opts;
    e.tot = tot;
    e.src = src;
    e.isa = -1;
    struct record_sink sink = { ex_kernel_begin, ex_block_begin, ex_inst, ex_block_end,
                                ex_kernel_end, &e };
    int rc = record_drive(src, &sink, &rt, err);
    if (rc == SIM_OK)
        rc = afile_write(list, write_list, &e.list, err);
    if (e.kf_open)
        afile_abort(&e.kf);
    for (uint32_t w = 0; w < e.n_w; w++)
        free(e.w[w].p);
    free(e.w);
    free(e.list.p);
    return rc;
}
