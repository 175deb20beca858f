/*
 * check_smt.c - the .smt container: round trip, streaming, corruption and
 * truncation (every failure names a byte offset).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/record.h"
#include "frontend/smt/smt.h"
#include "frontend/smt/smt_layout.h"
#include "frontend/smt/smt_writer.h"
#include "frontend/smt/smtrec.h"
#include "frontend/synth.h"
#include "testlib.h"

static uint64_t
mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

/* Instructions per warp: some warps are empty. */
static uint64_t
n_insts(unsigned kern, uint64_t block, uint32_t warp)
{
    uint64_t h = mix(kern * 1000003u + block * 131u + warp);
    return h % 7 == 0 ? 0 : 1 + h % 300;
}

static void
gen(unsigned kern, uint64_t block, uint32_t warp, uint64_t k, struct warp_inst *wi)
{
    uint64_t h = mix((kern + 1) * UINT64_C(0x9e3779b97f4a7c15) ^ (block << 20) ^ (warp << 12) ^ k);
    memset(wi, 0, sizeof *wi);
    wi->pc = (uint32_t)(k * 16 + (h % 5 == 0 ? 0x1000 : 0));
    wi->active_mask = h % 3 == 0 ? 0xffffffffu : (uint32_t)(h >> 16);
    wi->opcode = (uint16_t)(h % 9);
    wi->opclass = (uint8_t)(h % SIM_OPC_COUNT);
    wi->flags = (uint8_t)(h % 4 == 0 ? (h >> 8) & 0xff : 0);
    wi->n_dst = (uint8_t)(h % (SIM_MAX_DST + 1));
    wi->n_src = (uint8_t)((h >> 3) % (SIM_MAX_SRC + 1));
    for (unsigned i = 0; i < wi->n_dst; i++)
        wi->dst[i] = (uint16_t)((h >> (i * 5)) % SIM_MAX_REGS);
    for (unsigned i = 0; i < wi->n_src; i++)
        wi->src[i] = (uint16_t)((h >> (i * 7 % 48)) % SIM_MAX_REGS);   /* 12 sources: wrap */
    wi->aux = h % 6 == 0 ? (uint32_t)(h >> 40) : 0;
    if (h % 2 == 0) {
        static const uint8_t w[] = { 1, 2, 4, 8, 16 };
        wi->space = (uint8_t)(1 + (h >> 4) % (SIM_SPACE_COUNT - 1));
        wi->width = w[(h >> 9) % 5];
        uint64_t base = h & UINT64_C(0xffffffffff0);
        for (unsigned l = 0; l < 32; l++) {
            if (h % 4 == 0)
                wi->addr[l] = base + l * wi->width;          /* strided */
            else
                wi->addr[l] = mix(h + l) & UINT64_C(0xffffffffffff); /* scattered */
        }
    }
    uint64_t g = mix(h);
    if (g % 5 == 0) {            /* a transaction-barrier signal, signal after copies or wait
                                    (.smt 1.7) */
        wi->sync = (uint8_t)(g % 3 == 0 ? SIM_SYNC_SIGNAL : g % 3 == 1 ? SIM_SYNC_WAIT
                             : SIM_SYNC_SIGNAL_ASYNC);
        wi->sync_obj = (uint8_t)((g >> 8) % SIM_SYNC_OBJS);
        wi->aux = 1 + (uint32_t)((g >> 16) % 100000);
    }
    if (wi->space != SIM_SPACE_NONE && g % 7 == 0) {   /* a bulk copy */
        wi->bulk = (uint8_t)(1 + (g >> 4) % 3);
        wi->active_mask = 1u << (g >> 24) % 32;
        memset(wi->addr, 0, sizeof wi->addr);
        for (unsigned i = 0; i < (wi->bulk == SIM_BULK_TENSOR ? 10u : 2u); i++)
            wi->addr[i] = mix(g + i) >> (i % 3 == 0 ? 16 : 40);
    }
}

static bool
same(const struct warp_inst *a, const struct warp_inst *b)
{
    if (a->pc != b->pc || a->active_mask != b->active_mask || a->opcode != b->opcode ||
        a->opclass != b->opclass || a->flags != b->flags || a->space != b->space ||
        a->width != b->width || a->n_dst != b->n_dst || a->n_src != b->n_src || a->aux != b->aux ||
        a->sync != b->sync || a->sync_obj != b->sync_obj || a->bulk != b->bulk)
        return false;
    if (a->bulk != SIM_BULK_NONE)
        return memcmp(a->addr, b->addr, 10 * sizeof a->addr[0]) == 0;
    if (memcmp(a->dst, b->dst, a->n_dst * sizeof a->dst[0]) != 0 ||
        memcmp(a->src, b->src, a->n_src * sizeof a->src[0]) != 0)
        return false;
    if (a->space != SIM_SPACE_NONE)
        for (unsigned l = 0; l < 32; l++)
            if ((a->active_mask & (1u << l)) && a->addr[l] != b->addr[l])
                return false;
    return true;
}

#define KERNELS 2
static const uint32_t grid[KERNELS] = { 5, 3 };
static const uint32_t threads[KERNELS] = { 96, 1024 };

/* Write the test file with warps interleaved round-robin. */
static uint64_t
write_test_file(const char *path, uint32_t chunk)
{
    static const char *const names[] = { "OP0", "OP1", "OP2", "OP3", "OP4", "OP5", "OP6", "OP7", "OP8" };
    struct sim_error err = { 0 };
    uint64_t total = 0;
    smt_writer *w = smt_writer_open(path, SIM_ISA_SASS, 70, "check_smt", names, 9, chunk, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    for (unsigned k = 0; k < KERNELS; k++) {
        struct kernel_info ki = { 0 };
        snprintf(ki.name, sizeof ki.name, "kernel_%u", k);
        ki.grid[0] = grid[k];
        ki.grid[1] = ki.grid[2] = 1;
        ki.block[0] = threads[k];
        ki.block[1] = ki.block[2] = 1;
        ki.regs_per_thread = 32;
        ki.smem_static = 1024 * k;
        ck_assert_int_eq(smt_writer_kernel_begin(w, &ki, &err), SIM_OK);
        uint32_t wpb = (threads[k] + 31) / 32;
        for (uint64_t b = 0; b < grid[k]; b++) {
            ck_assert_int_eq(smt_writer_block_begin(w, b, &err), SIM_OK);
            for (uint64_t i = 0; i < 300; i++) {
                for (uint32_t wp = 0; wp < wpb; wp++) {
                    if (i >= n_insts(k, b, wp))
                        continue;
                    struct warp_inst wi;
                    gen(k, b, wp, i, &wi);
                    ck_assert_msg(smt_writer_add(w, wp, &wi, &err) == SIM_OK, "%s", err.msg);
                    total++;
                }
            }
            ck_assert_int_eq(smt_writer_block_end(w, &err), SIM_OK);
        }
        ck_assert_int_eq(smt_writer_kernel_end(w, &err), SIM_OK);
    }
    ck_assert_msg(smt_writer_close(w, &err) == SIM_OK, "%s", err.msg);
    return total;
}

START_TEST(test_record_codec_round_trip)
{
    struct smtrec_state a, b;
    uint8_t buf[SMTREC_MAX_BYTES];
    smtrec_reset(&a);
    smtrec_reset(&b);
    for (uint64_t k = 0; k < 20000; k++) {
        struct warp_inst wi, out;
        const char *why = NULL;
        gen(7, k % 13, (uint32_t)(k % 5), k, &wi);
        ck_assert_ptr_null(smtrec_check(&wi));
        size_t n = smtrec_encode(&a, &wi, buf);
        ck_assert_uint_le(n, SMTREC_MAX_BYTES);
        ck_assert_uint_eq(smtrec_decode(&b, buf, buf + n, &out, &why), n);
        ck_assert_msg(same(&wi, &out), "record %" PRIu64 " differs", k);
        /* a truncated record is rejected, never over-read, and leaves the
         * delta state alone */
        struct smtrec_state keep = b;
        ck_assert_uint_eq(smtrec_decode(&keep, buf, buf + n - 1, &out, &why), 0);
        ck_assert_int_eq(memcmp(&keep, &b, sizeof keep), 0);
    }
}
END_TEST

/* Sync bytes and bulk parts that no writer makes are rejected, as are
 * the sync operations a trace cannot hold (polls, waits of untimed runs)
 * and cluster operations. */
START_TEST(test_sync_and_bulk_rejected_when_malformed)
{
    struct smtrec_state st;
    uint8_t buf[SMTREC_MAX_BYTES];
    struct warp_inst wi, out;
    const char *why = NULL;
    memset(&wi, 0, sizeof wi);
    wi.opclass = SIM_OPC_MEM;
    wi.active_mask = 1;
    wi.space = SIM_SPACE_SHARED;
    wi.width = 8;
    wi.sync = SIM_SYNC_WAIT;
    wi.sync_obj = 3;
    wi.aux = 7;
    ck_assert_ptr_null(smtrec_check(&wi));
    smtrec_reset(&st);
    size_t n = smtrec_encode(&st, &wi, buf);
    /* the sync byte follows the aux varint (7): find it and break it */
    size_t at = 0;
    for (size_t i = 1; i < n; i++)
        if (buf[i] == (SIM_SYNC_WAIT | 3 << 3) && buf[i - 1] == 7)
            at = i;
    ck_assert_uint_gt(at, 0);
    smtrec_reset(&st);
    ck_assert_uint_eq(smtrec_decode(&st, buf, buf + n, &out, &why), n);
    ck_assert_int_eq(out.sync, SIM_SYNC_WAIT);
    ck_assert_int_eq(out.sync_obj, 3);
    /* every object 0 .. 31 fits the byte's five bits: object 31 reads back */
    buf[at] = SIM_SYNC_WAIT | 31u << 3;
    smtrec_reset(&st);
    ck_assert_uint_eq(smtrec_decode(&st, buf, buf + n, &out, &why), n);
    ck_assert_int_eq(out.sync_obj, 31);
    buf[at] = SIM_SYNC_WAIT | 3 << 3;
    static const uint8_t bad[] = { SIM_SYNC_POLL, SIM_SYNC_WAITING, SIM_SYNC_BLOCKED, 0, 7,
                                   7 | 0x80 };
    for (unsigned i = 0; i < sizeof bad; i++) {
        uint8_t copy[SMTREC_MAX_BYTES];
        memcpy(copy, buf, n);
        copy[at] = bad[i];
        smtrec_reset(&st);
        ck_assert_uint_eq(smtrec_decode(&st, copy, copy + n, &out, &why), 0);
        ck_assert_ptr_nonnull(strstr(why, "sync"));
    }
    /* what the writer refuses */
    struct warp_inst w2 = wi;
    w2.sync = SIM_SYNC_POLL;
    ck_assert_ptr_nonnull(smtrec_check(&w2));
    w2 = wi;
    w2.aux = 0;
    ck_assert_ptr_nonnull(smtrec_check(&w2));
    w2 = wi;
    w2.remote = 1;
    ck_assert_ptr_nonnull(strstr(smtrec_check(&w2), "unsupported"));
    w2 = wi;
    w2.rsig_mask = 1;
    ck_assert_ptr_nonnull(smtrec_check(&w2));
    w2 = wi;
    w2.bulk = 4;
    ck_assert_ptr_nonnull(smtrec_check(&w2));
    /* address mode 3 without the bulk bit */
    wi.sync = SIM_SYNC_NONE;
    wi.aux = 0;
    wi.bulk = SIM_BULK_COPY;
    wi.space = SIM_SPACE_GLOBAL;
    wi.addr[0] = 0x1000;
    wi.addr[1] = 4096;
    smtrec_reset(&st);
    n = smtrec_encode(&st, &wi, buf);
    ck_assert_int_eq(buf[0] & 0x20, 0x20);
    smtrec_reset(&st);
    ck_assert_uint_eq(smtrec_decode(&st, buf, buf + n, &out, &why), n);
    ck_assert_int_eq(out.bulk, SIM_BULK_COPY);
    ck_assert_uint_eq(out.addr[1], 4096);
    buf[0] &= (uint8_t)~0x20;
    smtrec_reset(&st);
    ck_assert_uint_eq(smtrec_decode(&st, buf, buf + n, &out, &why), 0);
    ck_assert_ptr_nonnull(strstr(why, "mode 3"));
}
END_TEST

START_TEST(test_round_trip_streaming)
{
    const char *p = testlib_tmpfile(".smt");
    char path[512];
    snprintf(path, sizeof path, "%s", p);
    uint64_t total = write_test_file(path, 600);

    struct smt_totals t;
    struct sim_error err = { 0 };
    ck_assert_msg(smt_verify(path, &t, &err) == SIM_OK, "%s", err.msg);
    ck_assert_uint_eq(t.kernels, KERNELS);
    ck_assert_uint_eq(t.blocks, grid[0] + grid[1]);
    ck_assert_uint_eq(t.warp_insts, total);
    ck_assert_uint_gt(t.chunks, t.warps);           /* small chunks: several per warp */

    struct inst_source src;
    ck_assert_int_eq(smt_source_open(path, &src, &err), SIM_OK);
    ck_assert_str_eq(src.ops->opcode_name(src.ctx, 3), "OP3");
    for (unsigned k = 0; k < KERNELS; k++) {
        struct kernel_info ki;
        ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 1);
        ck_assert_uint_eq(ki.grid[0], grid[k]);
        ck_assert_uint_eq(ki.smem_static, 1024 * k);
        ck_assert_uint_eq(ki.isa, SIM_ISA_SASS);
        uint32_t wpb = kernel_info_warps_per_block(&ki);
        ck_assert_int_eq(src.ops->kernel_begin(src.ctx, 2, 1, &err), SIM_OK);
        /* two blocks open at once, warps read in reverse interleaved order */
        for (uint64_t b = 0; b < grid[k]; b += 2) {
            uint32_t nb = b + 1 < grid[k] ? 2 : 1;
            for (uint32_t s = 0; s < nb; s++)
                ck_assert_msg(src.ops->block_begin(src.ctx, b + s, s, 0, &err) == SIM_OK, "%s", err.msg);
            uint64_t got[2][32] = { { 0 } };
            bool more = true;
            while (more) {
                more = false;
                for (uint32_t s = 0; s < nb; s++) {
                    for (uint32_t wp = wpb; wp-- > 0;) {
                        struct warp_inst wi, want;
                        int r = inst_source_next(&src, s, wp, SIM_CYCLE_MAX, &wi, &err);
                        ck_assert_msg(r >= 0, "%s", err.msg);
                        if (r == 0) {
                            ck_assert_uint_eq(got[s][wp], n_insts(k, b + s, wp));
                            continue;
                        }
                        gen(k, b + s, wp, got[s][wp], &want);
                        ck_assert_msg(same(&wi, &want), "k%u b%" PRIu64 " w%u i%" PRIu64, k, b + s,
                                      wp, got[s][wp]);
                        got[s][wp]++;
                        more = true;
                    }
                }
            }
        }
    }
    struct kernel_info ki;
    ck_assert_int_eq(src.ops->next_kernel(src.ctx, &ki, &err), 0);
    inst_source_destroy(&src);

    /* info and dump work and agree with the counts */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(smt_info(path, fp, &err), SIM_OK);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "kernel 1:       kernel_1"));
    free(buf);
    fp = open_memstream(&buf, &len);
    struct smt_dump_opts o = { 1, 2, -1, 0 };
    ck_assert_int_eq(smt_dump(path, fp, &o, &err), SIM_OK);
    fclose(fp);
    uint64_t lines = 0, want = 0;
    for (char *c = buf; *c; c++)
        lines += *c == '\n';
    for (uint32_t wp = 0; wp < 32; wp++)
        want += n_insts(1, 2, wp);
    ck_assert_uint_eq(lines, want);
    free(buf);
    unlink(path);
}
END_TEST

static uint8_t *
slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *b = malloc(*n);
    ck_assert_uint_eq(fread(b, 1, *n, fp), *n);
    fclose(fp);
    return b;
}

static void
spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
    fclose(fp);
}

/* A fresh test trace (write_test_file(chunk)) in path and its bytes; bad
 * gets a second temporary name for the damaged copy. */
static uint8_t *
test_file_bytes(char path[512], char bad[512], uint32_t chunk, size_t *n)
{
    snprintf(path, 512, "%s", testlib_tmpfile(".smt"));
    snprintf(bad, 512, "%s", testlib_tmpfile(".smt"));
    write_test_file(path, chunk);
    return slurp(path, n);
}

/* Offset of the n-th occurrence of tag. */
static size_t
find_tag(const uint8_t *b, size_t len, const char *tag, unsigned nth)
{
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(b + i, tag, 4) == 0 && nth-- == 0)
            return i;
    ck_abort_msg("tag %s not found", tag);
    return 0;
}

START_TEST(test_corrupt_chunk_names_offset)
{
    char path[512], bad[512], want[64];
    size_t n;
    uint8_t *b = test_file_bytes(path, bad, 600, &n);
    size_t chunk = find_tag(b, n, "CHNK", 5);
    uint32_t comp = (uint32_t)b[chunk + 4] | (uint32_t)b[chunk + 5] << 8;
    ck_assert_uint_gt(comp, 8);
    b[chunk + 48 + comp / 2] ^= 0x40;           /* one byte inside the compressed payload */
    spit(bad, b, n);

    struct smt_totals t;
    struct sim_error err = { 0 };
    ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
    snprintf(want, sizeof want, "byte offset %zu: chunk checksum mismatch", chunk);
    ck_assert_msg(strstr(err.msg, want) != NULL, "got: %s", err.msg);
    free(b);
    unlink(path);
    unlink(bad);
}
END_TEST

START_TEST(test_truncated_file_names_offset)
{
    char path[512], bad[512];
    size_t n;
    uint8_t *b = test_file_bytes(path, bad, 600, &n);
    size_t cuts[] = { n - 1, n - 32, n / 2, find_tag(b, n, "CHNK", 3) + 20, 100, 9, 0 };
    for (size_t i = 0; i < SIM_ARRAY_LEN(cuts); i++) {
        struct smt_totals t;
        struct sim_error err = { 0 };
        spit(bad, b, cuts[i]);
        ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
        ck_assert_msg(strstr(err.msg, "byte offset") != NULL || strstr(err.msg, "truncated") != NULL,
                      "cut at %zu: %s", cuts[i], err.msg);
    }
    /* trailing garbage is also an error */
    uint8_t *c = malloc(n + 3);
    memcpy(c, b, n);
    memcpy(c + n, "xyz", 3);
    spit(bad, c, n + 3);
    struct smt_totals t;
    struct sim_error err = { 0 };
    ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "unexpected bytes after the end record"));
    free(c);
    free(b);
    unlink(path);
    unlink(bad);
}
END_TEST

START_TEST(test_bad_headers)
{
    char path[512], bad[512];
    size_t n;
    uint8_t *b = test_file_bytes(path, bad, 0, &n);
    struct smt_totals t;
    struct sim_error err = { 0 };
    struct inst_source src;

    b[0] = 'X';                                 /* wrong magic */
    spit(bad, b, n);
    ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "byte offset 0: not a .smt trace"));
    ck_assert(!smt_sniff(bad));
    b[0] = 'S';
    b[8] = 2;                                   /* future major version */
    spit(bad, b, n);
    ck_assert_int_eq(smt_source_open(bad, &src, &err), SIM_ERR_FORMAT);
    char want[64];
    snprintf(want, sizeof want, "unsupported .smt version 2.%d", SMT_VERSION_MINOR);
    ck_assert_ptr_nonnull(strstr(err.msg, want));
    b[8] = 1;
    b[26] ^= 1;                                 /* inside the producer string */
    spit(bad, b, n);
    ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "file header checksum mismatch"));
    b[26] ^= 1;
    size_t kern = find_tag(b, n, "KERN", 0);
    b[kern + 12] ^= 1;                          /* grid x of kernel 0 */
    spit(bad, b, n);
    ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "kernel header checksum mismatch"));
    ck_assert_int_eq(smt_source_open("/nonexistent.smt", &src, &err), SIM_ERR_IO);
    free(b);
    unlink(path);
    unlink(bad);
}
END_TEST

/* Fuzz finding (tests/fuzz/crashers/smt/opnames-count-null-free.smt): an
 * opcode-name count above 65536 in a header with a valid checksum made the
 * reader free names from a NULL table.  Now a format error. */
START_TEST(test_huge_opname_count)
{
    char path[512], bad[512];
    size_t n;
    uint8_t *b = test_file_bytes(path, bad, 0, &n);
    uint32_t hlen = smt_get32(b + 12);
    size_t count_at = 26 + smt_get16(b + 24);   /* after the producer string */
    uint32_t counts[] = { 70000, 65536, 0xffffffffu };
    for (size_t i = 0; i < SIM_ARRAY_LEN(counts); i++) {
        struct smt_totals t;
        struct sim_error err = { 0 };
        smt_put32(b + count_at, counts[i]);
        smt_put64(b + hlen - 8, smt_hash(b, hlen - 8));
        spit(bad, b, n);
        ck_assert_int_eq(smt_verify(bad, &t, &err), SIM_ERR_FORMAT);
        ck_assert_msg(strstr(err.msg, "byte offset 24: malformed file header") != NULL, "%s",
                      err.msg);
    }
    free(b);
    unlink(path);
    unlink(bad);
}
END_TEST

START_TEST(test_synth_record_matches_direct)
{
    /* recording a synthetic kernel and reading it back gives the same stream */
    char path[512];
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".smt"));
    struct inst_source a, b;
    struct sim_error err = { 0 };
    struct record_totals tot;
    ck_assert_int_eq(synth_source_open("saxpy:blocks=3,threads=64,iters=5,alu=2", &a, &err), SIM_OK);
    ck_assert_msg(record_to_smt(&a, path, "test", 0, &tot, &err) == SIM_OK, "%s", err.msg);
    inst_source_destroy(&a);
    ck_assert_uint_eq(tot.warp_insts, 3 * 2 * (6 + 5 * 12 + 1));
    ck_assert_int_eq(synth_source_open("saxpy:blocks=3,threads=64,iters=5,alu=2", &a, &err), SIM_OK);
    ck_assert_int_eq(smt_source_open(path, &b, &err), SIM_OK);
    struct kernel_info ka, kb;
    ck_assert_int_eq(a.ops->next_kernel(a.ctx, &ka, &err), 1);
    ck_assert_int_eq(b.ops->next_kernel(b.ctx, &kb, &err), 1);
    ck_assert_str_eq(ka.name, kb.name);
    a.ops->kernel_begin(a.ctx, 1, 1, &err);
    b.ops->kernel_begin(b.ctx, 1, 1, &err);
    for (uint64_t blk = 0; blk < 3; blk++) {
        a.ops->block_begin(a.ctx, blk, 0, 0, &err);
        ck_assert_int_eq(b.ops->block_begin(b.ctx, blk, 0, 0, &err), SIM_OK);
        for (uint32_t w = 0; w < 2; w++) {
            struct warp_inst x, y;
            int ra, rb;
            do {
                ra = inst_source_next(&a, 0, w, SIM_CYCLE_MAX, &x, &err);
                rb = inst_source_next(&b, 0, w, SIM_CYCLE_MAX, &y, &err);
                ck_assert_int_eq(ra, rb);
                if (ra == 1)
                    ck_assert(same(&x, &y));
            } while (ra == 1);
        }
    }
    ck_assert_str_eq(b.ops->opcode_name(b.ctx, 7), "FFMA");
    inst_source_destroy(&a);
    inst_source_destroy(&b);
    unlink(path);
}
END_TEST

START_TEST(test_writer_rejects_bad_input_and_leaves_no_file)
{
    char path[512];
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".smt"));
    struct sim_error err = { 0 };
    smt_writer *w = smt_writer_open(path, SIM_ISA_PTX, 80, "t", NULL, 0, 0, &err);
    struct kernel_info ki = { 0 };
    ki.grid[0] = ki.grid[1] = ki.grid[2] = 1;
    ki.block[0] = 64;
    ki.block[1] = ki.block[2] = 1;
    ck_assert_int_eq(smt_writer_kernel_begin(w, &ki, &err), SIM_OK);
    ck_assert_int_eq(smt_writer_block_begin(w, 0, &err), SIM_OK);
    struct warp_inst wi;
    tl_alu(&wi, SIM_OPC_INT, 1, 2, 3);
    ck_assert_int_eq(smt_writer_add(w, 2, &wi, &err), SIM_ERR_FORMAT);   /* no warp 2 */
    wi.n_dst = SIM_MAX_DST + 1;
    ck_assert_int_eq(smt_writer_add(w, 0, &wi, &err), SIM_ERR_FORMAT);
    smt_writer_abort(w);
    struct stat st;
    ck_assert_int_ne(stat(path, &st), 0);      /* nothing was left behind */
}
END_TEST

static Suite *
smt_suite(void)
{
    Suite *s = suite_create("smt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_record_codec_round_trip);
    tcase_add_test(tc, test_sync_and_bulk_rejected_when_malformed);
    tcase_add_test(tc, test_round_trip_streaming);
    tcase_add_test(tc, test_corrupt_chunk_names_offset);
    tcase_add_test(tc, test_truncated_file_names_offset);
    tcase_add_test(tc, test_bad_headers);
    tcase_add_test(tc, test_huge_opname_count);
    tcase_add_test(tc, test_synth_record_matches_direct);
    tcase_add_test(tc, test_writer_rejects_bad_input_and_leaves_no_file);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(smt_suite)
