/*
 * smt_writer.c - .smt writer.
 *
 * Invariants: w->off is the end of the data written so far; a block's
 * header region [blk_off, blk_off + blk_len) is reserved when the block
 * begins and filled when it ends; a warp's last_chunk is the offset of its
 * most recent chunk, whose link field is patched when the next one is
 * written.
 */
#include "frontend/smt/smt_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "frontend/smt/smt.h"
#include "frontend/smt/smt_layout.h"
#include "frontend/smt/smtrec.h"
#include "sim/afile.h"

struct wwarp {
    uint8_t *raw;                /* pending records, chunk_raw bytes */
    uint32_t len;                /* bytes pending */
    uint32_t n_records;          /* records pending */
    struct smtrec_state st;      /* delta state within the pending chunk */
    uint64_t first_chunk;        /* offset of the warp's first chunk in this block, 0 = none */
    uint64_t last_chunk;         /* offset of its latest chunk, 0 = none */
    uint64_t n_insts;
    uint32_t n_chunks;
};

struct smt_writer {
    struct afile af;
    uint64_t off;                /* end of data written */
    uint32_t chunk_raw;          /* bytes */
    uint8_t *comp;               /* compression buffer: CHUNK_HDR + compressBound */
    size_t comp_cap;
    /* kernel */
    bool in_kernel;
    uint32_t n_kernels;
    struct kernel_info ki;
    uint64_t kern_off;
    uint32_t kern_len;
    uint32_t wpb;                /* warps per block */
    uint64_t k_blocks, k_insts, k_threads, k_chunks;
    uint64_t k_hist[SIM_OPC_COUNT];
    bool have_last_block;
    uint64_t last_block;
    /* block */
    bool in_block;
    uint64_t block_id;
    uint64_t blk_off;
    uint32_t blk_len;
    struct wwarp warps[MAX_WARPS_PER_BLOCK];
    uint64_t total_insts;
};

static int
wr(smt_writer *w, uint64_t off, const void *buf, size_t n, struct sim_error *err)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite(w->af.fd, (const uint8_t *)buf + done, n - done, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return sim_error_set(err, SIM_ERR_IO, "%s: write error: %s", w->af.path,
                                 strerror(errno));
        }
        done += (size_t)r;
    }
    return SIM_OK;
}

smt_writer *
smt_writer_open(const char *path, unsigned isa, unsigned isa_version, const char *producer,
                const char *const *opnames, size_t n_opnames, uint32_t chunk_raw,
                struct sim_error *err)
{
    if (strcmp(path, "-") == 0) {
        sim_error_set(err, SIM_ERR_USAGE, "a .smt trace cannot be written to standard output");
        return NULL;
    }
    if (chunk_raw == 0)
        chunk_raw = SMT_DEFAULT_CHUNK;
    if (chunk_raw < SMTREC_MAX_BYTES || chunk_raw > SMT_MAX_CHUNK) {
        sim_error_set(err, SIM_ERR_USAGE, "chunk size must be %u .. %u bytes", SMTREC_MAX_BYTES,
                      SMT_MAX_CHUNK);
        return NULL;
    }
    smt_writer *w = xcalloc(1, sizeof *w);
    if (afile_open(&w->af, path, err) < 0) {
        free(w);
        return NULL;
    }
    w->chunk_raw = chunk_raw;
    w->comp_cap = CHUNK_HDR + compressBound(chunk_raw);
    w->comp = xmalloc(w->comp_cap);

    /* file header */
    size_t plen = producer ? strlen(producer) : 0;
    if (plen > 255)
        plen = 255;
    size_t len = 24 + 2 + plen + 4 + 8;
    for (size_t i = 0; i < n_opnames; i++)
        len += 1 + (strlen(opnames[i]) > 255 ? 255 : strlen(opnames[i]));
    uint8_t *h = xcalloc(1, len);
    memcpy(h, SMT_MAGIC, 8);
    smt_put16(h + 8, SMT_VERSION_MAJOR);
    smt_put16(h + 10, SMT_VERSION_MINOR);
    smt_put32(h + 12, (uint32_t)len);
    smt_put16(h + 16, (uint16_t)isa);
    smt_put16(h + 18, (uint16_t)isa_version);
    smt_put32(h + 20, chunk_raw);
    uint8_t *p = h + 24;
    smt_put16(p, (uint16_t)plen);
    memcpy(p + 2, producer ? producer : "", plen);
    p += 2 + plen;
    smt_put32(p, (uint32_t)n_opnames);
    p += 4;
    for (size_t i = 0; i < n_opnames; i++) {
        size_t nl = strlen(opnames[i]) > 255 ? 255 : strlen(opnames[i]);
        *p++ = (uint8_t)nl;
        memcpy(p, opnames[i], nl);
        p += nl;
    }
    smt_put64(p, smt_hash(h, len - 8));
    int rc = wr(w, 0, h, len, err);
    free(h);
    if (rc < 0) {
        smt_writer_abort(w);
        return NULL;
    }
    w->off = len;
    return w;
}

static uint32_t
kern_len(const struct kernel_info *ki)
{
    return KERN_FIXED + 8u * SIM_OPC_COUNT + 2u + (uint32_t)strlen(ki->name) + 8u;
}

static int
write_kern(smt_writer *w, struct sim_error *err)
{
    uint8_t *h = xcalloc(1, w->kern_len);
    smt_put32(h + 4, w->kern_len);
    memcpy(h, TAG_KERN, 4);
    smt_put32(h + 8, w->n_kernels);
    for (int i = 0; i < 3; i++) {
        smt_put32(h + 12 + 4 * i, w->ki.grid[i]);
        smt_put32(h + 24 + 4 * i, w->ki.block[i]);
    }
    smt_put32(h + 36, w->ki.regs_per_thread);
    smt_put32(h + 40, w->ki.smem_static);
    smt_put32(h + 44, w->ki.smem_dynamic);
    smt_put64(h + 48, w->off - w->kern_off);
    smt_put64(h + 56, w->k_blocks);
    smt_put64(h + 64, w->k_insts);
    smt_put64(h + 72, w->k_threads);
    smt_put64(h + 80, w->k_chunks);
    smt_put32(h + 88, SIM_OPC_COUNT);
    uint8_t *p = h + KERN_FIXED;
    for (unsigned i = 0; i < SIM_OPC_COUNT; i++, p += 8)
        smt_put64(p, w->k_hist[i]);
    size_t nl = strlen(w->ki.name);
    smt_put16(p, (uint16_t)nl);
    memcpy(p + 2, w->ki.name, nl);
    smt_put64(h + w->kern_len - 8, smt_hash(h, w->kern_len - 8));
    int rc = wr(w, w->kern_off, h, w->kern_len, err);
    free(h);
    return rc;
}

int
smt_writer_kernel_begin(smt_writer *w, const struct kernel_info *ki, struct sim_error *err)
{
    SIM_ASSERT(!w->in_kernel);
    uint32_t tpb = kernel_info_threads_per_block(ki);
    if (tpb == 0 || tpb > SIM_MAX_THREADS_PER_BLOCK || kernel_info_blocks(ki) == 0)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "kernel %s: block of %u threads / grid of %" PRIu64 " blocks cannot "
                             "be recorded", ki->name, tpb, kernel_info_blocks(ki));
    if (strlen(ki->name) >= SIM_KERNEL_NAME_MAX)
        return sim_error_set(err, SIM_ERR_FORMAT, "kernel name longer than %d bytes",
                             SIM_KERNEL_NAME_MAX - 1);
    w->ki = *ki;
    w->in_kernel = true;
    w->kern_off = w->off;
    w->kern_len = kern_len(ki);
    w->wpb = kernel_info_warps_per_block(ki);
    w->k_blocks = w->k_insts = w->k_threads = w->k_chunks = 0;
    memset(w->k_hist, 0, sizeof w->k_hist);
    w->have_last_block = false;
    w->off += w->kern_len;
    return SIM_OK;
}

int
smt_writer_block_begin(smt_writer *w, uint64_t block_id, struct sim_error *err)
{
    SIM_ASSERT(w->in_kernel && !w->in_block);
    if (block_id >= kernel_info_blocks(&w->ki) || (w->have_last_block && block_id <= w->last_block))
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "block %" PRIu64 " out of order or outside the grid", block_id);
    w->in_block = true;
    w->block_id = block_id;
    w->blk_off = w->off;
    w->blk_len = BLCK_FIXED + w->wpb * BLCK_WARP + 8;
    w->off += w->blk_len;
    for (uint32_t i = 0; i < w->wpb; i++) {
        struct wwarp *ww = &w->warps[i];
        if (ww->raw == NULL)
            ww->raw = xmalloc(w->chunk_raw);
        ww->len = ww->n_records = 0;
        ww->first_chunk = ww->last_chunk = ww->n_insts = 0;
        ww->n_chunks = 0;
        smtrec_reset(&ww->st);
    }
    return SIM_OK;
}

static int
flush_chunk(smt_writer *w, uint32_t warp, struct sim_error *err)
{
    struct wwarp *ww = &w->warps[warp];
    uint8_t *h = w->comp;
    uLongf clen = w->comp_cap - CHUNK_HDR;

    if (ww->n_records == 0)
        return SIM_OK;
    int zr = compress2(h + CHUNK_HDR, &clen, ww->raw, ww->len, Z_DEFAULT_COMPRESSION);
    if (zr != Z_OK)
        return sim_error_set(err, SIM_ERR_INTERNAL, "zlib compress2 failed: %s", zError(zr));
    memset(h, 0, CHUNK_HDR);
    memcpy(h, TAG_CHNK, 4);
    smt_put32(h + 4, (uint32_t)clen);
    smt_put32(h + 8, ww->len);
    smt_put32(h + 12, ww->n_records);
    smt_put64(h + 16, w->block_id);
    smt_put32(h + 24, warp);
    smt_put32(h + 28, ww->n_chunks);
    smt_put64(h + 32, smt_chunk_hash(h, h + CHUNK_HDR, clen));
    smt_put64(h + CHUNK_NEXT_OFF, 0);
    SIM_FORWARD_IF_ERROR(wr(w, w->off, h, CHUNK_HDR + clen, err));
    if (ww->last_chunk != 0) {
        uint8_t link[8];
        smt_put64(link, w->off);
        SIM_FORWARD_IF_ERROR(wr(w, ww->last_chunk + CHUNK_NEXT_OFF, link, 8, err));
    } else {
        ww->first_chunk = w->off;
    }
    ww->last_chunk = w->off;
    w->off += CHUNK_HDR + clen;
    ww->n_chunks++;
    w->k_chunks++;
    ww->len = ww->n_records = 0;
    smtrec_reset(&ww->st);
    return SIM_OK;
}

int
smt_writer_add(smt_writer *w, uint32_t warp, const struct warp_inst *wi, struct sim_error *err)
{
    uint8_t rec[SMTREC_MAX_BYTES];

    SIM_ASSERT(w->in_block);
    if (warp >= w->wpb)
        return sim_error_set(err, SIM_ERR_FORMAT, "warp %u outside a block of %u warps", warp,
                             w->wpb);
    struct warp_inst plain;
    if (wi->sync == SIM_SYNC_WAITING) {
        /* an untimed test_wait that found its phase incomplete (sim/inst.h):
         * executed, false; nothing for the model to wait for */
        memcpy(&plain, wi, sizeof plain);
        plain.sync = SIM_SYNC_NONE;
        plain.sync_obj = 0;
        plain.aux = 0;
        wi = &plain;
    }
    const char *why = smtrec_check(wi);
    if (why != NULL)
        return sim_error_set(err, strncmp(why, "unsupported", 11) == 0 ? SIM_ERR_UNSUPPORTED
                             : SIM_ERR_FORMAT, "block %" PRIu64 " warp %u pc %#x: %s",
                             w->block_id, warp, wi->pc, why);
    struct wwarp *ww = &w->warps[warp];
    struct smtrec_state st = ww->st;
    size_t n = smtrec_encode(&st, wi, rec);
    if (ww->len + n > w->chunk_raw) {
        SIM_FORWARD_IF_ERROR(flush_chunk(w, warp, err));
        st = ww->st;
        n = smtrec_encode(&st, wi, rec);
    }
    memcpy(ww->raw + ww->len, rec, n);
    ww->len += (uint32_t)n;
    ww->n_records++;
    ww->st = st;
    ww->n_insts++;
    w->k_insts++;
    w->k_threads += inst_popc(wi->active_mask);
    w->k_hist[wi->opclass]++;
    return SIM_OK;
}

int
smt_writer_block_end(smt_writer *w, struct sim_error *err)
{
    SIM_ASSERT(w->in_block);
    for (uint32_t i = 0; i < w->wpb; i++)
        SIM_FORWARD_IF_ERROR(flush_chunk(w, i, err));
    uint8_t h[BLCK_FIXED + MAX_WARPS_PER_BLOCK * BLCK_WARP + 8];
    memset(h, 0, sizeof h);
    memcpy(h, TAG_BLCK, 4);
    smt_put32(h + 4, w->blk_len);
    smt_put64(h + 8, w->block_id);
    smt_put32(h + 16, w->n_kernels);
    smt_put32(h + 20, w->wpb);
    smt_put64(h + 24, w->off - w->blk_off);
    for (uint32_t i = 0; i < w->wpb; i++) {
        uint8_t *p = h + BLCK_FIXED + i * BLCK_WARP;
        smt_put64(p, w->warps[i].first_chunk);
        smt_put64(p + 8, w->warps[i].n_insts);
        smt_put32(p + 16, w->warps[i].n_chunks);
    }
    smt_put64(h + w->blk_len - 8, smt_hash(h, w->blk_len - 8));
    SIM_FORWARD_IF_ERROR(wr(w, w->blk_off, h, w->blk_len, err));
    w->in_block = false;
    w->have_last_block = true;
    w->last_block = w->block_id;
    w->k_blocks++;
    return SIM_OK;
}

int
smt_writer_kernel_end(smt_writer *w, struct sim_error *err)
{
    SIM_ASSERT(w->in_kernel && !w->in_block);
    SIM_FORWARD_IF_ERROR(write_kern(w, err));
    w->total_insts += w->k_insts;
    w->n_kernels++;
    w->in_kernel = false;
    return SIM_OK;
}

int
smt_writer_close(smt_writer *w, struct sim_error *err)
{
    uint8_t e[FEND_LEN];
    int rc;

    SIM_ASSERT(!w->in_kernel);
    memset(e, 0, sizeof e);
    memcpy(e, TAG_FEND, 4);
    smt_put32(e + 4, FEND_LEN);
    smt_put32(e + 8, w->n_kernels);
    smt_put64(e + 16, w->total_insts);
    smt_put64(e + 24, smt_hash(e, 24));
    rc = wr(w, w->off, e, FEND_LEN, err);
    if (rc == SIM_OK)
        rc = afile_commit(&w->af, err);
    if (rc < 0) {
        smt_writer_abort(w);
        return rc;
    }
    for (size_t i = 0; i < MAX_WARPS_PER_BLOCK; i++)
        free(w->warps[i].raw);
    free(w->comp);
    free(w);
    return SIM_OK;
}

void
smt_writer_abort(smt_writer *w)
{
    if (w == NULL)
        return;
    afile_abort(&w->af);
    for (size_t i = 0; i < MAX_WARPS_PER_BLOCK; i++)
        free(w->warps[i].raw);
    free(w->comp);
    free(w);
}
