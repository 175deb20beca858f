/*
 * smt.c - .smt container: header codecs, streaming reader (inst_source),
 * verify/info/dump, and the writer.  Layout: doc/trace-format.md.
 *
 * Reader invariants: every byte range is bounds-checked against the file
 * size before it is used; every header and chunk checksum is checked
 * before its contents are trusted; sizes read from the file are capped
 * (SMT_MAX_CHUNK, 32 warps per block, 1 MB headers) so a hostile file
 * cannot make the reader allocate without bound.
 */
#include "frontend/smt/smt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include "frontend/smt/smtrec.h"

#include "frontend/smt/smt_layout.h"

/* ---- the open file ---------------------------------------------------- */

struct smt_file {
    int fd;
    char *path;
    uint64_t size;               /* bytes */
    uint16_t major, minor;
    uint32_t hdr_len;            /* bytes of the file header */
    uint16_t isa, isa_version;
    uint32_t chunk_max_raw;      /* bytes */
    char producer[256];
    uint32_t n_opnames;
    char **opnames;
};

struct smt_kern {
    uint64_t off;                /* file offset of the KERN header */
    uint32_t len;                /* bytes of the KERN header */
    uint32_t index;
    struct kernel_info ki;
    uint64_t section_len;        /* KERN header + all block sections */
    uint64_t n_blocks, warp_insts, thread_insts, n_chunks;
    uint64_t opc_hist[SIM_OPC_COUNT];
};

struct smt_blk {
    uint64_t off;
    uint32_t hdr_len;
    uint64_t id;
    uint32_t n_warps;
    uint64_t section_len;
    uint64_t first[MAX_WARPS_PER_BLOCK];   /* first chunk offset per warp (0 = none) */
    uint64_t n_insts[MAX_WARPS_PER_BLOCK];
    uint32_t n_chunks[MAX_WARPS_PER_BLOCK];
};

struct smt_chunk {
    uint64_t off;
    uint32_t comp_len, raw_len, n_records;
    uint64_t block;
    uint32_t warp, seq;
    uint64_t next;
};

static int
read_at(const struct smt_file *f, uint64_t off, void *buf, size_t n, const char *what,
        struct sim_error *err)
{
    if (off > f->size || n > f->size - off)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: truncated: %s at byte offset %" PRIu64 " needs %zu bytes, "
                             "file ends at %" PRIu64, f->path, what, off, n, f->size);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(f->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return sim_error_set(err, SIM_ERR_IO, "%s: read error at byte offset %" PRIu64 ": %s",
                                 f->path, off + got, strerror(errno));
        }
        if (r == 0)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: truncated at byte offset %" PRIu64 " (reading %s)",
                                 f->path, off + got, what);
        got += (size_t)r;
    }
    return SIM_OK;
}

static void
file_close(struct smt_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    for (uint32_t i = 0; i < f->n_opnames; i++)
        free(f->opnames[i]);
    free(f->opnames);
    free(f->path);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

bool
smt_sniff(const char *path)
{
    char magic[8];
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return false;
    bool ok = fread(magic, 1, 8, fp) == 8 && memcmp(magic, SMT_MAGIC, 8) == 0;
    fclose(fp);
    return ok;
}

static int
file_open(struct smt_file *f, const char *path, struct sim_error *err)
{
    struct stat st;
    uint8_t fixed[16];
    uint8_t *h = NULL;
    int rc;

    memset(f, 0, sizeof *f);
    f->fd = open(path, O_RDONLY);
    if (f->fd < 0)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot open trace: %s", path, strerror(errno));
    f->path = xstrdup(path);
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = sim_error_set(err, SIM_ERR_IO, "%s: not a regular file", path);
        goto fail;
    }
    f->size = (uint64_t)st.st_size;
    rc = read_at(f, 0, fixed, sizeof fixed, "the file header", err);
    if (rc < 0)
        goto fail;
    if (memcmp(fixed, SMT_MAGIC, 8) != 0) {
        rc = sim_error_set(err, SIM_ERR_FORMAT,
                           "%s: byte offset 0: not a .smt trace (bad magic; expected \"%s\")",
                           path, SMT_MAGIC);
        goto fail;
    }
    f->major = smt_get16(fixed + 8);
    f->minor = smt_get16(fixed + 10);
    f->hdr_len = smt_get32(fixed + 12);
    if (f->major != SMT_VERSION_MAJOR) {
        rc = sim_error_set(err, SIM_ERR_FORMAT,
                           "%s: byte offset 8: unsupported .smt version %u.%u (this smsim reads %d.x)",
                           path, f->major, f->minor, SMT_VERSION_MAJOR);
        goto fail;
    }
    if (f->hdr_len < 40 || f->hdr_len > MAX_HDR) {
        rc = sim_error_set(err, SIM_ERR_FORMAT,
                           "%s: byte offset 12: implausible header length %u", path, f->hdr_len);
        goto fail;
    }
    h = xmalloc(f->hdr_len);
    rc = read_at(f, 0, h, f->hdr_len, "the file header", err);
    if (rc < 0)
        goto fail;
    if (!smt_sum_ok(smt_get64(h + f->hdr_len - 8), smt_hash(h, f->hdr_len - 8))) {
        rc = sim_error_set(err, SIM_ERR_FORMAT,
                           "%s: byte offset 0: file header checksum mismatch (corrupt header)", path);
        goto fail;
    }
    f->isa = smt_get16(h + 16);
    f->isa_version = smt_get16(h + 18);
    f->chunk_max_raw = smt_get32(h + 20);
    if (f->chunk_max_raw == 0 || f->chunk_max_raw > SMT_MAX_CHUNK) {
        rc = sim_error_set(err, SIM_ERR_FORMAT,
                           "%s: byte offset 20: implausible chunk size %u (at most %u)",
                           path, f->chunk_max_raw, SMT_MAX_CHUNK);
        goto fail;
    }
    {
        const uint8_t *p = h + 24, *end = h + f->hdr_len - 8;
        if (end - p < 2)
            goto bad_header;
        uint16_t plen = smt_get16(p);
        p += 2;
        if ((size_t)(end - p) < plen || plen >= sizeof f->producer)
            goto bad_header;
        memcpy(f->producer, p, plen);
        f->producer[plen] = '\0';
        p += plen;
        if (end - p < 4)
            goto bad_header;
        uint32_t n_opnames = smt_get32(p);
        p += 4;
        if (n_opnames > 65536 || n_opnames > (size_t)(end - p))
            goto bad_header;         /* each name takes at least its length byte */
        /* set the count only with the array, so file_close() frees what exists */
        f->opnames = xcalloc(n_opnames, sizeof *f->opnames);
        f->n_opnames = n_opnames;
        for (uint32_t i = 0; i < f->n_opnames; i++) {
            if (end - p < 1 || (size_t)(end - p) < 1u + p[0])
                goto bad_header;
            f->opnames[i] = xmalloc((size_t)p[0] + 1);
            memcpy(f->opnames[i], p + 1, p[0]);
            f->opnames[i][p[0]] = '\0';
            p += 1 + p[0];
        }
        if (p != end)
            goto bad_header;
    }
    free(h);
    return SIM_OK;
bad_header:
    rc = sim_error_set(err, SIM_ERR_FORMAT, "%s: byte offset 24: malformed file header fields",
                       path);
fail:
    free(h);
    file_close(f);
    return rc;
}


static int
read_kern(const struct smt_file *f, uint64_t off, struct smt_kern *k, struct sim_error *err)
{
    uint8_t fixed[8];
    SIM_FORWARD_IF_ERROR(read_at(f, off, fixed, 8, "a kernel header", err));
    if (memcmp(fixed, TAG_KERN, 4) != 0)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": expected a kernel header (KERN), found '%.4s'",
                             f->path, off, (const char *)fixed);
    uint32_t len = smt_get32(fixed + 4);
    if (len < KERN_FIXED + 10 || len > MAX_HDR)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": implausible kernel header length %u",
                             f->path, off + 4, len);
    uint8_t *h = xmalloc(len);
    int rc = read_at(f, off, h, len, "a kernel header", err);
    if (rc < 0)
        goto out;
    if (!smt_sum_ok(smt_get64(h + len - 8), smt_hash(h, len - 8))) {
        rc = sim_error_set(err, SIM_ERR_FORMAT,
                           "%s: byte offset %" PRIu64 ": kernel header checksum mismatch",
                           f->path, off);
        goto out;
    }
    memset(k, 0, sizeof *k);
    k->off = off;
    k->len = len;
    k->index = smt_get32(h + 8);
    for (int i = 0; i < 3; i++) {
        k->ki.grid[i] = smt_get32(h + 12 + 4 * i);
        k->ki.block[i] = smt_get32(h + 24 + 4 * i);
    }
    k->ki.regs_per_thread = smt_get32(h + 36);
    k->ki.smem_static = smt_get32(h + 40);
    k->ki.smem_dynamic = smt_get32(h + 44);
    k->section_len = smt_get64(h + 48);
    k->n_blocks = smt_get64(h + 56);
    k->warp_insts = smt_get64(h + 64);
    k->thread_insts = smt_get64(h + 72);
    k->n_chunks = smt_get64(h + 80);
    uint32_t n_opc = smt_get32(h + 88);
    const uint8_t *p = h + KERN_FIXED;
    const uint8_t *end = h + len - 8;
    if (n_opc > 256 || (size_t)(end - p) < 8u * n_opc + 2)
        goto bad;
    for (uint32_t i = 0; i < n_opc; i++)
        if (i < SIM_OPC_COUNT)
            k->opc_hist[i] = smt_get64(p + 8 * i);
    p += 8u * n_opc;
    uint16_t nl = smt_get16(p);
    p += 2;
    if ((size_t)(end - p) != nl || nl >= SIM_KERNEL_NAME_MAX)
        goto bad;
    memcpy(k->ki.name, p, nl);
    k->ki.name[nl] = '\0';
    k->ki.isa = f->isa;
    k->ki.isa_version = f->isa_version;
    k->ki.warp_insts = k->warp_insts;
    {
        uint64_t tpb = (uint64_t)k->ki.block[0] * k->ki.block[1] * k->ki.block[2];
        uint64_t nb = (uint64_t)k->ki.grid[0] * k->ki.grid[1] * k->ki.grid[2];
        if (k->section_len > f->size - off) {
            rc = sim_error_set(err, SIM_ERR_FORMAT,
                               "%s: byte offset %" PRIu64 ": truncated: kernel %u's section needs %"
                               PRIu64 " bytes, the file ends at %" PRIu64, f->path, off, k->index,
                               k->section_len, f->size);
            goto out;
        }
        if (tpb == 0 || tpb > SIM_MAX_THREADS_PER_BLOCK || nb == 0 || nb > SIM_MAX_GRID_BLOCKS ||
            k->n_blocks > nb || k->section_len < len) {
            rc = sim_error_set(err, SIM_ERR_FORMAT,
                               "%s: byte offset %" PRIu64 ": kernel %u: implausible dimensions or "
                               "section length (grid %ux%ux%u, block %ux%ux%u, %" PRIu64 " bytes)",
                               f->path, off, k->index, k->ki.grid[0], k->ki.grid[1], k->ki.grid[2],
                               k->ki.block[0], k->ki.block[1], k->ki.block[2], k->section_len);
            goto out;
        }
        /* Counts the section cannot hold fail here, before anything is sized
         * by them: a chunk takes at least its header, a record at least one
         * raw byte, a block section at least its fixed header. */
        uint64_t body = k->section_len - len;
        if (k->n_chunks > body / CHUNK_HDR || k->n_blocks > body / (BLCK_FIXED + 8) ||
            k->warp_insts > k->n_chunks * (uint64_t)f->chunk_max_raw ||
            k->thread_insts > k->warp_insts * SIM_WARP_SIZE) {
            rc = sim_error_set(err, SIM_ERR_FORMAT,
                               "%s: byte offset %" PRIu64 ": kernel %u: implausible counts (%"
                               PRIu64 " blocks, %" PRIu64 " chunks, %" PRIu64 " warp instructions "
                               "in a %" PRIu64 "-byte section)", f->path, off, k->index,
                               k->n_blocks, k->n_chunks, k->warp_insts, k->section_len);
            goto out;
        }
    }
    rc = SIM_OK;
    goto out;
bad:
    rc = sim_error_set(err, SIM_ERR_FORMAT,
                       "%s: byte offset %" PRIu64 ": malformed kernel header fields", f->path, off);
out:
    free(h);
    return rc;
}

/* Read the FEND record at off into e and check its length, its checksum
 * and that it ends the file. */
static int
read_fend(const struct smt_file *f, uint64_t off, uint8_t e[FEND_LEN], struct sim_error *err)
{
    SIM_FORWARD_IF_ERROR(read_at(f, off, e, FEND_LEN, "the file end record", err));
    if (smt_get32(e + 4) != FEND_LEN || !smt_sum_ok(smt_get64(e + 24), smt_hash(e, 24)))
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": corrupt file end record", f->path, off);
    if (off + FEND_LEN != f->size)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": %" PRIu64 " unexpected bytes after "
                             "the end record", f->path, off + FEND_LEN, f->size - off - FEND_LEN);
    return SIM_OK;
}

/* The section at off: 1 = a kernel, read into *k; 0 = the FEND record;
 * negative = error. */
static int
kern_at(const struct smt_file *f, uint64_t off, struct smt_kern *k, struct sim_error *err)
{
    char tag[4];
    SIM_FORWARD_IF_ERROR(read_at(f, off, tag, 4, "a section tag", err));
    if (memcmp(tag, TAG_FEND, 4) == 0)
        return 0;
    SIM_FORWARD_IF_ERROR(read_kern(f, off, k, err));
    return 1;
}

static int
read_blk(const struct smt_file *f, uint64_t off, uint32_t wpb, struct smt_blk *b,
         struct sim_error *err)
{
    uint8_t h[BLCK_FIXED + MAX_WARPS_PER_BLOCK * BLCK_WARP + 8];
    SIM_FORWARD_IF_ERROR(read_at(f, off, h, 8, "a block header", err));
    if (memcmp(h, TAG_BLCK, 4) != 0)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": expected a block header (BLCK), found '%.4s'",
                             f->path, off, (const char *)h);
    uint32_t len = smt_get32(h + 4);
    if (len != BLCK_FIXED + wpb * BLCK_WARP + 8)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": block header length %u, expected %u for "
                             "%u warps", f->path, off + 4, len, BLCK_FIXED + wpb * BLCK_WARP + 8, wpb);
    SIM_FORWARD_IF_ERROR(read_at(f, off, h, len, "a block header", err));
    if (!smt_sum_ok(smt_get64(h + len - 8), smt_hash(h, len - 8)))
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": block header checksum mismatch",
                             f->path, off);
    b->off = off;
    b->hdr_len = len;
    b->id = smt_get64(h + 8);
    b->n_warps = smt_get32(h + 20);
    b->section_len = smt_get64(h + 24);
    if (b->section_len > f->size - off)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": truncated: block %" PRIu64 "'s section "
                             "needs %" PRIu64 " bytes, the file ends at %" PRIu64, f->path, off,
                             b->id, b->section_len, f->size);
    if (b->n_warps != wpb || b->section_len < len)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": block %" PRIu64 ": bad warp count or "
                             "section length", f->path, off, b->id);
    for (uint32_t w = 0; w < wpb; w++) {
        const uint8_t *p = h + BLCK_FIXED + w * BLCK_WARP;
        b->first[w] = smt_get64(p);
        b->n_insts[w] = smt_get64(p + 8);
        b->n_chunks[w] = smt_get32(p + 16);
        if (b->first[w] != 0 &&
            (b->first[w] < off + len || b->first[w] >= off + b->section_len))
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": block %" PRIu64 " warp %u: first "
                                 "chunk offset outside the block", f->path, off, b->id, w);
    }
    return SIM_OK;
}

/* A byte buffer sized by the chunks actually read, not by the header's
 * largest-chunk bound (a 4 KB file may declare 16 MiB chunks; the model
 * keeps one raw buffer per resident warp). */
struct smt_buf {
    uint8_t *p;
    size_t cap;
};

static uint8_t *
buf_need(struct smt_buf *b, size_t n)
{
    if (n > b->cap) {
        b->p = xrealloc(b->p, n);
        b->cap = n;
    }
    return b->p;
}

/* Read and check the chunk at off: its payload into comp, inflated into
 * raw (each grown to this chunk's sizes once they are checked). */
static int
read_chunk(const struct smt_file *f, uint64_t off, struct smt_buf *comp, struct smt_buf *raw,
           struct smt_chunk *c, struct sim_error *err)
{
    uint8_t h[CHUNK_HDR];
    SIM_FORWARD_IF_ERROR(read_at(f, off, h, CHUNK_HDR, "a chunk header", err));
    if (memcmp(h, TAG_CHNK, 4) != 0)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": expected a chunk (CHNK), found '%.4s'",
                             f->path, off, (const char *)h);
    c->off = off;
    c->comp_len = smt_get32(h + 4);
    c->raw_len = smt_get32(h + 8);
    c->n_records = smt_get32(h + 12);
    c->block = smt_get64(h + 16);
    c->warp = smt_get32(h + 24);
    c->seq = smt_get32(h + 28);
    c->next = smt_get64(h + CHUNK_NEXT_OFF);
    if (c->raw_len > f->chunk_max_raw || c->comp_len > compressBound(f->chunk_max_raw) ||
        c->n_records == 0 || c->n_records > c->raw_len)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": chunk header has implausible sizes "
                             "(%u compressed, %u raw, %u records)", f->path, off, c->comp_len,
                             c->raw_len, c->n_records);
    /* the header was read, so off + CHUNK_HDR <= size */
    if (c->comp_len > f->size - off - CHUNK_HDR)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: truncated: a chunk payload at byte offset %" PRIu64 " needs %u "
                             "bytes, file ends at %" PRIu64, f->path, off + CHUNK_HDR,
                             c->comp_len, f->size);
    uint8_t *cp = buf_need(comp, c->comp_len + 1u);
    SIM_FORWARD_IF_ERROR(read_at(f, off + CHUNK_HDR, cp, c->comp_len, "a chunk payload", err));
    if (!smt_sum_ok(smt_get64(h + 32), smt_chunk_hash(h, cp, c->comp_len)))
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": chunk checksum mismatch (block %" PRIu64
                             " warp %u chunk %u is corrupt)", f->path, off, c->block, c->warp, c->seq);
    uLongf out = c->raw_len;
    int zr = uncompress(buf_need(raw, c->raw_len), &out, cp, c->comp_len);
    if (zr != Z_OK || out != c->raw_len)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": chunk does not decompress to %u bytes "
                             "(zlib: %s)", f->path, off, c->raw_len, zError(zr));
    return SIM_OK;
}

/* ---- streaming source --------------------------------------------------- */

struct cursor {
    uint64_t next_chunk;         /* offset of the next chunk of this warp, 0 = none */
    uint64_t insts_left;         /* instructions not yet returned */
    uint64_t block;
    uint32_t warp;
    uint32_t next_seq;
    uint32_t sm;                 /* SM the block runs on (its compressed-chunk buffer) */
    uint32_t recs_left;          /* records left in the decoded chunk */
    uint32_t pos, len;           /* decode position in raw */
    struct smt_buf raw;          /* the decoded chunk */
    struct smtrec_state st;
};

struct smt_src {
    struct smt_file f;
    uint64_t next_kern_off;      /* offset of the next KERN or FEND */
    bool have_kernel;
    struct smt_kern k;
    uint32_t wpb;                /* warps per block of the current kernel */
    uint64_t next_blk_off;       /* next block section to look at */
    uint64_t kern_end;           /* end of the current kernel's section */
    uint32_t max_slots;
    struct cursor *cur;          /* max_slots * wpb */
    size_t n_cur;
    struct smt_buf *comp;        /* [n_comp] compressed-chunk buffers, one per SM:
                                    chunks of different SMs may be read concurrently */
    uint32_t n_comp;
};

static int
src_next_kernel(void *ctx, struct kernel_info *ki, struct sim_error *err)
{
    struct smt_src *s = ctx;
    if (s->have_kernel)
        s->next_kern_off = s->k.off + s->k.section_len;
    int r = kern_at(&s->f, s->next_kern_off, &s->k, err);
    s->have_kernel = r > 0;
    if (r == 0) {
        /* a file cut or damaged after its last kernel is still an error */
        uint8_t e[FEND_LEN];
        return read_fend(&s->f, s->next_kern_off, e, err);
    }
    if (r < 0)
        return r;
    s->wpb = kernel_info_warps_per_block(&s->k.ki);
    s->next_blk_off = s->k.off + s->k.len;
    s->kern_end = s->k.off + s->k.section_len;
    *ki = s->k.ki;
    return 1;
}

static int
src_kernel_begin(void *ctx, uint32_t max_slots, uint32_t n_sms, struct sim_error *err)
{
    struct smt_src *s = ctx;
    size_t need = (size_t)max_slots * s->wpb;

    if (need > s->n_cur) {
        s->cur = xrealloc(s->cur, need * sizeof *s->cur);
        memset(s->cur + s->n_cur, 0, (need - s->n_cur) * sizeof *s->cur);
        s->n_cur = need;
    }
    for (size_t i = 0; i < s->n_cur; i++) {
        s->cur[i].next_chunk = 0;
        s->cur[i].insts_left = 0;
        s->cur[i].recs_left = 0;
    }
    s->max_slots = max_slots;
    if (n_sms > s->n_comp) {
        s->comp = xrealloc(s->comp, n_sms * sizeof *s->comp);
        memset(s->comp + s->n_comp, 0, (n_sms - s->n_comp) * sizeof *s->comp);
        s->n_comp = n_sms;
    }
    (void)err;
    return SIM_OK;
}

static int
src_block_begin(void *ctx, uint64_t block_id, uint32_t slot, uint32_t sm, struct sim_error *err)
{
    struct smt_src *s = ctx;
    struct smt_blk b;

    SIM_ASSERT(slot < s->max_slots && sm < s->n_comp);
    for (;;) {
        if (s->next_blk_off >= s->kern_end)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: kernel %u: block %" PRIu64 " is not in the trace",
                                 s->f.path, s->k.index, block_id);
        SIM_FORWARD_IF_ERROR(read_blk(&s->f, s->next_blk_off, s->wpb, &b, err));
        s->next_blk_off += b.section_len;
        if (b.id == block_id)
            break;
        if (b.id > block_id)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": kernel %u: block %" PRIu64
                                 " missing (found block %" PRIu64 ")",
                                 s->f.path, b.off, s->k.index, block_id, b.id);
    }
    for (uint32_t w = 0; w < s->wpb; w++) {
        struct cursor *c = &s->cur[(size_t)slot * s->wpb + w];
        c->next_chunk = b.first[w];
        c->insts_left = b.n_insts[w];
        c->block = b.id;
        c->warp = w;
        c->sm = sm;
        c->next_seq = 0;
        c->recs_left = 0;
        if ((c->next_chunk == 0) != (c->insts_left == 0))
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": block %" PRIu64 " warp %u: chunk "
                                 "list and instruction count disagree", s->f.path, b.off, b.id, w);
    }
    return SIM_OK;
}

static int
load_next_chunk(struct smt_src *s, struct cursor *c, struct sim_error *err)
{
    struct smt_chunk ch;

    SIM_FORWARD_IF_ERROR(read_chunk(&s->f, c->next_chunk, &s->comp[c->sm], &c->raw, &ch, err));
    if (ch.block != c->block || ch.warp != c->warp || ch.seq != c->next_seq)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": chunk belongs to block %" PRIu64
                             " warp %u #%u, expected block %" PRIu64 " warp %u #%u",
                             s->f.path, ch.off, ch.block, ch.warp, ch.seq, c->block, c->warp,
                             c->next_seq);
    if (ch.n_records > c->insts_left)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": chunk holds more instructions than "
                             "its block header lists", s->f.path, ch.off);
    c->next_seq++;
    c->next_chunk = ch.next;
    c->pos = 0;
    c->len = ch.raw_len;
    c->recs_left = ch.n_records;
    smtrec_reset(&c->st);
    return SIM_OK;
}

static int
src_next_inst(void *ctx, uint32_t slot, uint32_t warp, sim_cycle_t now, struct warp_inst *wi,
              struct sim_error *err)
{
    (void)now;
    struct smt_src *s = ctx;
    struct cursor *c = &s->cur[(size_t)slot * s->wpb + warp];
    const char *why = NULL;

    if (c->recs_left == 0) {
        if (c->insts_left == 0)
            return 0;
        if (c->next_chunk == 0)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: block %" PRIu64 " warp %u: chunk list ends %" PRIu64
                                 " instructions early", s->f.path, c->block, c->warp,
                                 c->insts_left);
        SIM_FORWARD_IF_ERROR(load_next_chunk(s, c, err));
    }
    size_t n = smtrec_decode(&c->st, c->raw.p + c->pos, c->raw.p + c->len, wi, &why);
    if (n == 0)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: block %" PRIu64 " warp %u chunk %u: bad record at byte %u of "
                             "the chunk: %s", s->f.path, c->block, c->warp, c->next_seq - 1,
                             c->pos, why);
    c->pos += (uint32_t)n;
    c->recs_left--;
    c->insts_left--;
    if (c->recs_left == 0 && c->pos != c->len)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: block %" PRIu64 " warp %u chunk %u: %u trailing bytes after "
                             "the last record", s->f.path, c->block, c->warp, c->next_seq - 1,
                             c->len - c->pos);
    return 1;
}

static void
src_block_end(void *ctx, uint32_t slot)
{
    (void)ctx;
    (void)slot;
}

static const char *
src_opcode_name(void *ctx, uint16_t op)
{
    struct smt_src *s = ctx;
    return op < s->f.n_opnames ? s->f.opnames[op] : NULL;
}

static void
src_destroy(void *ctx)
{
    struct smt_src *s = ctx;
    for (size_t i = 0; i < s->n_cur; i++)
        free(s->cur[i].raw.p);
    free(s->cur);
    for (uint32_t i = 0; i < s->n_comp; i++)
        free(s->comp[i].p);
    free(s->comp);
    file_close(&s->f);
    free(s);
}

static const struct inst_source_ops smt_source_ops = {
    .next_kernel = src_next_kernel,
    .kernel_begin = src_kernel_begin,
    .block_begin = src_block_begin,
    .next_inst = src_next_inst,
    .block_end = src_block_end,
    .opcode_name = src_opcode_name,
    .destroy = src_destroy,
    .concurrent_next = true,     /* pread, per-cursor and per-SM buffers */
};

int
smt_source_open(const char *path, struct inst_source *src, struct sim_error *err)
{
    struct smt_src *s = xcalloc(1, sizeof *s);
    int rc = file_open(&s->f, path, err);
    if (rc < 0) {
        free(s);
        return rc;
    }
    s->next_kern_off = s->f.hdr_len;
    src->ops = &smt_source_ops;
    src->ctx = s;
    return SIM_OK;
}

/* Decode every record of chunk c (already read and inflated into raw),
 * calling fn for each; fn returns false to stop early.  Checks that the
 * records fill the chunk exactly. */
typedef bool (*record_fn)(void *arg, const struct warp_inst *wi);

static int
decode_chunk(const struct smt_file *f, const struct smt_chunk *c, const uint8_t *raw,
             record_fn fn, void *arg, struct sim_error *err)
{
    struct smtrec_state st;
    struct warp_inst wi;
    uint32_t p = 0;

    smtrec_reset(&st);
    for (uint32_t r = 0; r < c->n_records; r++) {
        const char *why = NULL;
        size_t n = smtrec_decode(&st, raw + p, raw + c->raw_len, &wi, &why);
        if (n == 0)
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: byte offset %" PRIu64 ": chunk "
                                 "record %u: %s", f->path, c->off, r, why);
        p += (uint32_t)n;
        if (!fn(arg, &wi))
            return SIM_OK;
    }
    if (p != c->raw_len)
        return sim_error_set(err, SIM_ERR_FORMAT, "%s: byte offset %" PRIu64 ": %u bytes after "
                             "the last record", f->path, c->off, c->raw_len - p);
    return SIM_OK;
}

/* ---- verify ----------------------------------------------------------- */

struct warp_check {
    uint64_t expect_off;         /* where the next chunk of this warp must be */
    uint64_t insts;
    uint32_t chunks;
};

struct count_ctx {
    struct smt_totals *tot;
    uint64_t *hist;
};

static bool
count_record(void *arg, const struct warp_inst *wi)
{
    struct count_ctx *cc = arg;
    cc->tot->thread_insts += inst_popc(wi->active_mask);
    cc->hist[wi->opclass]++;
    return true;
}

static int
verify_block(const struct smt_file *f, const struct smt_kern *k, uint64_t off, uint32_t wpb,
             struct smt_buf *comp, struct smt_buf *raw, struct smt_totals *tot,
             uint64_t *opc_hist, struct smt_blk *b, struct sim_error *err)
{
    struct warp_check wc[MAX_WARPS_PER_BLOCK];

    SIM_FORWARD_IF_ERROR(read_blk(f, off, wpb, b, err));
    for (uint32_t w = 0; w < wpb; w++) {
        wc[w].expect_off = b->first[w];
        wc[w].insts = 0;
        wc[w].chunks = 0;
    }
    uint64_t pos = off + b->hdr_len, end = off + b->section_len;
    while (pos < end) {
        struct smt_chunk c;
        SIM_FORWARD_IF_ERROR(read_chunk(f, pos, comp, raw, &c, err));
        if (c.block != b->id || c.warp >= wpb)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": chunk of block %" PRIu64 " warp %u "
                                 "inside block %" PRIu64, f->path, pos, c.block, c.warp, b->id);
        struct warp_check *w = &wc[c.warp];
        if (pos != w->expect_off || c.seq != w->chunks)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": chunk #%u of block %" PRIu64
                                 " warp %u is not linked from its predecessor", f->path, pos,
                                 c.seq, b->id, c.warp);
        if (c.next != 0 && (c.next <= pos || c.next >= end))
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": chunk link points outside its block",
                                 f->path, pos + CHUNK_NEXT_OFF);
        struct count_ctx cc = { tot, opc_hist };
        SIM_FORWARD_IF_ERROR(decode_chunk(f, &c, raw->p, count_record, &cc, err));
        w->expect_off = c.next;
        w->insts += c.n_records;
        w->chunks++;
        tot->chunks++;
        tot->raw_bytes += c.raw_len;
        tot->warp_insts += c.n_records;
        pos += CHUNK_HDR + c.comp_len;
    }
    if (pos != end)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%s: byte offset %" PRIu64 ": block %" PRIu64 " section overruns",
                             f->path, pos, b->id);
    for (uint32_t w = 0; w < wpb; w++) {
        if (wc[w].expect_off != 0 || wc[w].insts != b->n_insts[w] ||
            wc[w].chunks != b->n_chunks[w])
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "%s: byte offset %" PRIu64 ": block %" PRIu64 " warp %u: header "
                                 "lists %" PRIu64 " instructions in %u chunks, found %" PRIu64
                                 " in %u", f->path, off, b->id, w, b->n_insts[w], b->n_chunks[w],
                                 wc[w].insts, wc[w].chunks);
        if (wc[w].insts > 0)
            tot->warps++;
    }
    (void)k;
    return SIM_OK;
}

int
smt_verify(const char *path, struct smt_totals *tot, struct sim_error *err)
{
    struct smt_file f;
    struct smt_buf comp = { 0 }, raw = { 0 };
    uint64_t off;
    int rc;

    memset(tot, 0, sizeof *tot);
    SIM_FORWARD_IF_ERROR(file_open(&f, path, err));
    tot->bytes = f.size;
    off = f.hdr_len;
    for (;;) {
        struct smt_kern k;
        rc = kern_at(&f, off, &k, err);
        if (rc <= 0)
            break;
        if (k.index != tot->kernels) {
            rc = sim_error_set(err, SIM_ERR_FORMAT,
                               "%s: byte offset %" PRIu64 ": kernel index %u, expected %u",
                               path, off, k.index, tot->kernels);
            goto out;
        }
        uint32_t wpb = kernel_info_warps_per_block(&k.ki);
        uint64_t before_insts = tot->warp_insts, before_thr = tot->thread_insts;
        uint64_t before_chunks = tot->chunks, nblk = 0, last_id = 0;
        uint64_t hist[SIM_OPC_COUNT] = { 0 };
        uint64_t boff = off + k.len, kend = off + k.section_len;
        while (boff < kend) {
            struct smt_blk b;
            rc = verify_block(&f, &k, boff, wpb, &comp, &raw, tot, hist, &b, err);
            if (rc < 0)
                goto out;
            if (nblk > 0 && b.id <= last_id) {
                rc = sim_error_set(err, SIM_ERR_FORMAT,
                                   "%s: byte offset %" PRIu64 ": block ids not increasing "
                                   "(%" PRIu64 " after %" PRIu64 ")", path, boff, b.id, last_id);
                goto out;
            }
            last_id = b.id;
            nblk++;
            boff += b.section_len;
        }
        bool hist_ok = true;
        for (unsigned i = 0; i < SIM_OPC_COUNT; i++)
            hist_ok = hist_ok && hist[i] == k.opc_hist[i];
        if (boff != kend || nblk != k.n_blocks || tot->warp_insts - before_insts != k.warp_insts ||
            tot->thread_insts - before_thr != k.thread_insts ||
            tot->chunks - before_chunks != k.n_chunks || !hist_ok) {
            rc = sim_error_set(err, SIM_ERR_FORMAT,
                               "%s: byte offset %" PRIu64 ": kernel %u totals in its header do not "
                               "match its blocks", path, off, k.index);
            goto out;
        }
        tot->blocks += nblk;
        tot->kernels++;
        off = kend;
    }
    if (rc < 0)
        goto out;
    {
        uint8_t e[FEND_LEN];
        rc = read_fend(&f, off, e, err);
        if (rc < 0)
            goto out;
        if (smt_get32(e + 8) != tot->kernels || smt_get64(e + 16) != tot->warp_insts) {
            rc = sim_error_set(err, SIM_ERR_FORMAT,
                               "%s: byte offset %" PRIu64 ": file end record lists %u kernels and %"
                               PRIu64 " instructions, found %u and %" PRIu64, path, off,
                               smt_get32(e + 8), smt_get64(e + 16), tot->kernels, tot->warp_insts);
            goto out;
        }
    }
    rc = SIM_OK;
out:
    free(comp.p);
    free(raw.p);
    file_close(&f);
    return rc;
}

/* ---- info ------------------------------------------------------------- */

int
smt_info(const char *path, FILE *out, struct sim_error *err)
{
    struct smt_file f;
    uint64_t off;
    uint32_t nk = 0;
    uint64_t total = 0;
    int rc;

    SIM_FORWARD_IF_ERROR(file_open(&f, path, err));
    fprintf(out, "file:           %s\n", path);
    fprintf(out, "size:           %" PRIu64 " bytes\n", f.size);
    fprintf(out, "format:         .smt %u.%u\n", f.major, f.minor);
    fprintf(out, "source isa:     %s %u\n", inst_isa_name(f.isa), f.isa_version);
    fprintf(out, "producer:       %s\n", f.producer);
    fprintf(out, "chunk size:     %u bytes (uncompressed, at most)\n", f.chunk_max_raw);
    fprintf(out, "opcode names:   %u\n", f.n_opnames);
    off = f.hdr_len;
    for (;;) {
        struct smt_kern k;
        rc = kern_at(&f, off, &k, err);
        if (rc <= 0)
            break;
        fprintf(out, "\nkernel %u:       %s\n", k.index, k.ki.name);
        fprintf(out, "  grid:         (%u,%u,%u) = %" PRIu64 " blocks (%" PRIu64 " recorded)\n",
                k.ki.grid[0], k.ki.grid[1], k.ki.grid[2], kernel_info_blocks(&k.ki), k.n_blocks);
        fprintf(out, "  block:        (%u,%u,%u) = %u threads, %u warps\n", k.ki.block[0],
                k.ki.block[1], k.ki.block[2], kernel_info_threads_per_block(&k.ki),
                kernel_info_warps_per_block(&k.ki));
        fprintf(out, "  registers:    %u per thread\n", k.ki.regs_per_thread);
        fprintf(out, "  shared mem:   %u static + %u dynamic bytes per block\n", k.ki.smem_static,
                k.ki.smem_dynamic);
        fprintf(out, "  warp insts:   %" PRIu64 "\n", k.warp_insts);
        fprintf(out, "  thread insts: %" PRIu64 " (%.2f active lanes per warp instruction)\n",
                k.thread_insts, k.warp_insts ? (double)k.thread_insts / (double)k.warp_insts : 0.0);
        fprintf(out, "  chunks:       %" PRIu64 "\n", k.n_chunks);
        fprintf(out, "  by class:    ");
        for (unsigned i = 0; i < SIM_OPC_COUNT; i++)
            if (k.opc_hist[i])
                fprintf(out, " %s=%" PRIu64, inst_opclass_name(i), k.opc_hist[i]);
        fputc('\n', out);
        total += k.warp_insts;
        nk++;
        off += k.section_len;
    }
    if (rc == 0)
        fprintf(out, "\nkernels:        %u\nwarp insts:     %" PRIu64 "\n", nk, total);
    file_close(&f);
    return rc;
}

/* ---- dump ------------------------------------------------------------- */

static void
dump_inst(FILE *out, const struct smt_file *f, uint32_t kern, uint64_t block, uint32_t warp,
          const struct warp_inst *wi)
{
    char flags[96];
    const char *name = wi->opcode < f->n_opnames ? f->opnames[wi->opcode] : NULL;

    fprintf(out, "k%u b%" PRIu64 " w%u pc=%04x mask=%08x %-14s class=%-9s", kern, block, warp,
            wi->pc, wi->active_mask, name ? name : "?", inst_opclass_name(wi->opclass));
    if (wi->n_dst) {
        fputs(" dst=", out);
        for (unsigned i = 0; i < wi->n_dst; i++)
            fprintf(out, "%sr%u", i ? "," : "", wi->dst[i]);
    }
    if (wi->n_src) {
        fputs(" src=", out);
        for (unsigned i = 0; i < wi->n_src; i++)
            fprintf(out, "%sr%u", i ? "," : "", wi->src[i]);
    }
    if (wi->flags)
        fprintf(out, " flags=%s", inst_flags_str(wi->flags, flags, sizeof flags));
    if (wi->aux)
        fprintf(out, " aux=%u", wi->aux);
    if (wi->stall > 1)
        fprintf(out, " stall=%u", wi->stall);
    if (wi->sync != SIM_SYNC_NONE)
        fprintf(out, " %s=obj%u.%u", wi->sync == SIM_SYNC_WAIT ? "wait"
                : wi->sync == SIM_SYNC_SIGNAL_ASYNC ? "signal.after_copies" : "signal",
                wi->sync_obj, wi->aux);
    if (wi->bulk != SIM_BULK_NONE) {
        static const char *const kind[] = { "", "copy", "tensor", "dsmem" };
        fprintf(out, " bulk.%s %s %#" PRIx64 " bytes=%" PRIu64, kind[wi->bulk & 3],
                inst_space_name(wi->space), wi->addr[0], wi->addr[1]);
        for (unsigned d = 1; wi->bulk == SIM_BULK_TENSOR && d <= 4; d++)
            if (wi->addr[2 * d] > 1)
                fprintf(out, " x%" PRIu64 "/%" PRIu64, wi->addr[2 * d], wi->addr[2 * d + 1]);
    } else if (wi->space != SIM_SPACE_NONE) {
        fprintf(out, " %s.%u", inst_space_name(wi->space), wi->width);
        unsigned shown = 0;
        for (unsigned l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(wi->active_mask & (1u << l)))
                continue;
            if (shown == 4) {
                fprintf(out, " ...(%u lanes)", inst_popc(wi->active_mask));
                break;
            }
            fprintf(out, " %#" PRIx64, wi->addr[l]);
            shown++;
        }
    }
    fputc('\n', out);
}

struct dump_ctx {
    FILE *out;
    const struct smt_file *f;
    uint32_t kern;
    uint64_t block;
    uint32_t warp;
    uint64_t limit;              /* 0 = no limit */
    uint64_t *printed;
};

static bool
dump_record(void *arg, const struct warp_inst *wi)
{
    struct dump_ctx *d = arg;
    dump_inst(d->out, d->f, d->kern, d->block, d->warp, wi);
    ++*d->printed;
    return d->limit == 0 || *d->printed < d->limit;
}

int
smt_dump(const char *path, FILE *out, const struct smt_dump_opts *o, struct sim_error *err)
{
    struct smt_file f;
    struct smt_buf comp = { 0 }, raw = { 0 };
    uint64_t off, printed = 0;
    int rc;

    SIM_FORWARD_IF_ERROR(file_open(&f, path, err));
    off = f.hdr_len;
    for (;;) {
        struct smt_kern k;
        rc = kern_at(&f, off, &k, err);
        if (rc <= 0)
            break;
        uint32_t wpb = kernel_info_warps_per_block(&k.ki);
        uint64_t boff = off + k.len, kend = off + k.section_len;
        bool want_k = o->kernel < 0 || (uint64_t)o->kernel == k.index;
        while (want_k && boff < kend) {
            struct smt_blk b;
            rc = read_blk(&f, boff, wpb, &b, err);
            if (rc < 0)
                goto out;
            boff += b.section_len;
            if (o->block >= 0 && (uint64_t)o->block != b.id)
                continue;
            for (uint32_t w = 0; w < wpb; w++) {
                if (o->warp >= 0 && (uint64_t)o->warp != w)
                    continue;
                uint64_t coff = b.first[w];
                struct dump_ctx dc = { out, &f, k.index, b.id, w, o->limit, &printed };
                while (coff != 0 && !(o->limit && printed >= o->limit)) {
                    struct smt_chunk c;
                    rc = read_chunk(&f, coff, &comp, &raw, &c, err);
                    if (rc == SIM_OK)
                        rc = decode_chunk(&f, &c, raw.p, dump_record, &dc, err);
                    if (rc < 0)
                        goto out;
                    coff = c.next;
                }
            }
        }
        off = kend;
    }
out:
    free(comp.p);
    free(raw.p);
    file_close(&f);
    return rc < 0 ? rc : SIM_OK;
}
