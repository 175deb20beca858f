/*
 * textin.c - streaming line reader, plain or xz (see textin.h).
 *
 * Invariant: buf[head, tail) holds bytes read but not yet returned; a line
 * is returned in place (its '\n' replaced by '\0'), so no copy is made
 * unless a line straddles the end of the buffer, in which case the
 * remainder is moved to the front before refilling.
 */
#include "frontend/sass/textin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif

#define BUF_BYTES (1u << 18)         /* decoded bytes held at once (grows for long lines) */
#define IN_BYTES (1u << 16)          /* compressed bytes read at once */

struct textin {
    FILE *fp;
    char *path;
    char *buf;
    size_t cap, head, tail;
    uint64_t line;
    bool eof;                        /* no more input bytes */
    bool xz;
#ifdef HAVE_LZMA
    lzma_stream lz;
    uint8_t *in;
    bool lz_done;
#endif
};

static const uint8_t XZ_MAGIC[6] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };

textin *
textin_open(const char *path, struct sim_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        sim_error_set(err, SIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    uint8_t magic[6] = { 0 };
    size_t got = fread(magic, 1, sizeof magic, fp);
    bool xz = got == sizeof magic && memcmp(magic, XZ_MAGIC, sizeof magic) == 0;
    rewind(fp);
#ifndef HAVE_LZMA
    if (xz) {
        fclose(fp);
        sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s: xz-compressed, and this smsim was built "
                      "without liblzma (install liblzma-dev and reconfigure)", path);
        return NULL;
    }
#endif
    textin *t = xcalloc(1, sizeof *t);
    t->fp = fp;
    t->path = xstrdup(path);
    t->cap = BUF_BYTES;
    t->buf = xmalloc(t->cap + 1);
    t->xz = xz;
#ifdef HAVE_LZMA
    if (xz) {
        lzma_stream init = LZMA_STREAM_INIT;
        t->lz = init;
        if (lzma_stream_decoder(&t->lz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
            sim_error_set(err, SIM_ERR_NOMEM, "%s: cannot start the xz decoder", path);
            textin_close(t);
            return NULL;
        }
        t->in = xmalloc(IN_BYTES);
    }
#endif
    return t;
}

void
textin_close(textin *t)
{
    if (t == NULL)
        return;
#ifdef HAVE_LZMA
    if (t->xz) {
        lzma_end(&t->lz);
        free(t->in);
    }
#endif
    if (t->fp != NULL)
        fclose(t->fp);
    free(t->buf);
    free(t->path);
    free(t);
}

/* Append decoded bytes at tail (room: cap - tail > 0). */
static int
fill(textin *t, struct sim_error *err)
{
    size_t room = t->cap - t->tail;
    if (!t->xz) {
        size_t n = fread(t->buf + t->tail, 1, room, t->fp);
        if (n == 0) {
            if (ferror(t->fp))
                return sim_error_set(err, SIM_ERR_IO, "%s: read error: %s", t->path,
                                     strerror(errno));
            t->eof = true;
        }
        t->tail += n;
        return SIM_OK;
    }
#ifdef HAVE_LZMA
    t->lz.next_out = (uint8_t *)t->buf + t->tail;
    t->lz.avail_out = room;
    while (t->lz.avail_out == room && !t->lz_done) {
        lzma_action action = LZMA_RUN;
        if (t->lz.avail_in == 0) {
            size_t n = fread(t->in, 1, IN_BYTES, t->fp);
            if (n == 0 && ferror(t->fp))
                return sim_error_set(err, SIM_ERR_IO, "%s: read error: %s", t->path,
                                     strerror(errno));
            t->lz.next_in = t->in;
            t->lz.avail_in = n;
            if (n == 0)
                action = LZMA_FINISH;
        }
        lzma_ret r = lzma_code(&t->lz, action);
        if (r == LZMA_STREAM_END) {
            t->lz_done = true;
        } else if (r != LZMA_OK) {
            return sim_error_set(err, SIM_ERR_FORMAT, "%s: xz data corrupt or truncated near "
                                 "compressed byte offset %" PRIu64 " (liblzma error %d)",
                                 t->path, (uint64_t)t->lz.total_in, (int)r);
        }
    }
    t->tail += room - t->lz.avail_out;
    if (t->lz_done)
        t->eof = true;              /* bytes still in buf are returned first */
#endif
    return SIM_OK;
}

int
textin_next(textin *t, char **line, size_t *len, struct sim_error *err)
{
    size_t scan = t->head;
    for (;;) {
        char *nl = memchr(t->buf + scan, '\n', t->tail - scan);
        if (nl != NULL || (t->eof && t->tail > t->head)) {
            char *start = t->buf + t->head;
            size_t n = nl != NULL ? (size_t)(nl - start) : t->tail - t->head;
            t->head += n + (nl != NULL);
            t->line++;
            if (memchr(start, '\0', n) != NULL)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s:%" PRIu64 ": NUL byte (not a text "
                                     "file?)", t->path, t->line);
            if (n > 0 && start[n - 1] == '\r')
                n--;
            start[n] = '\0';
            *line = start;
            *len = n;
            return 1;
        }
        if (t->eof)
            return 0;
        /* need more bytes: make room at the end */
        if (t->head > 0) {
            memmove(t->buf, t->buf + t->head, t->tail - t->head);
            t->tail -= t->head;
            t->head = 0;
        }
        if (t->tail == t->cap) {
            if (t->cap >= TEXTIN_MAX_LINE)
                return sim_error_set(err, SIM_ERR_FORMAT, "%s:%" PRIu64 ": line longer than "
                                     "%u bytes", t->path, t->line + 1, TEXTIN_MAX_LINE);
            t->cap *= 2;
            t->buf = xrealloc(t->buf, t->cap + 1);
        }
        scan = t->tail;
        SIM_FORWARD_IF_ERROR(fill(t, err));
    }
}

uint64_t
textin_line(const textin *t)
{
    return t->line;
}

const char *
textin_path(const textin *t)
{
    return t->path;
}

bool
textin_is_xz(const textin *t)
{
    return t->xz;
}
