/*
 * smtpatch.c - make a damaged copy of a .smt trace for the bad-input corpus
 * (tests/bad-input.sh).  Not installed.
 *
 *   smtpatch IN OUT [EDIT...]
 *
 * EDIT is one of
 *   TAG[.N]+OFF:SIZE=VALUE   set the SIZE-byte (1, 2, 4, 8) little-endian
 *                            field at byte OFF of the N-th (from 0) TAG
 *                            record, TAG one of FILE KERN BLCK CHNK FEND,
 *                            then recompute that record's checksum so the
 *                            reader gets past it to the field itself;
 *   TAG[.N]+OFF:SIZE=VALUE!  the same, leaving the checksum as it is;
 *   cut=N                    keep only the first N bytes (negative: drop -N).
 * Records are found by their tag bytes (FILE is offset 0), which is good
 * enough for the small traces in traces/tiny.  Exit 0, or 1 with a message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/smt/smt_layout.h"

static uint8_t *buf;
static size_t len;

static void
die(const char *what, const char *arg)
{
    fprintf(stderr, "smtpatch: %s: %s\n", what, arg);
    exit(1);
}

/* Offset of the nth record with tag (FILE: 0). */
static size_t
find(const char *tag, unsigned nth, const char *arg)
{
    if (strcmp(tag, "FILE") == 0)
        return 0;
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(buf + i, tag, 4) == 0 && nth-- == 0)
            return i;
    die("no such record", arg);
    return 0;
}

/* Recompute the checksum of the record at off. */
static void
reseal(const char *tag, size_t off, const char *arg)
{
    uint8_t *r = buf + off;
    size_t n;
    if (strcmp(tag, "FILE") == 0 || strcmp(tag, "KERN") == 0 || strcmp(tag, "BLCK") == 0) {
        n = smt_get32(r + (strcmp(tag, "FILE") == 0 ? 12 : 4));
        if (n < 16 || off + n > len)
            die("record length out of the file; use ! to skip the checksum", arg);
        smt_put64(r + n - 8, smt_hash(r, n - 8));
    } else if (strcmp(tag, "FEND") == 0) {
        if (off + 32 > len)
            die("FEND out of the file", arg);
        smt_put64(r + 24, smt_hash(r, 24));
    } else {
        n = smt_get32(r + 4);
        if (off + 48 + n > len)
            die("chunk payload out of the file; use ! to skip the checksum", arg);
        smt_put64(r + 32, smt_chunk_hash(r, r + 48, n));
    }
}

static void
edit(const char *arg)
{
    char tag[5] = { 0 }, val[64] = { 0 }, *end;
    unsigned nth = 0, off, size;
    long long cut;

    if (sscanf(arg, "cut=%lld", &cut) == 1) {
        if (cut < 0 ? (size_t)-cut > len : (size_t)cut > len)
            die("cut beyond the end", arg);
        len = cut < 0 ? len - (size_t)-cut : (size_t)cut;
        return;
    }
    int k = sscanf(arg, "%4[A-Z].%u+%u:%u=%63s", tag, &nth, &off, &size, val);
    if (k < 5) {
        nth = 0;
        k = sscanf(arg, "%4[A-Z]+%u:%u=%63s", tag, &off, &size, val) + 1;
    }
    unsigned long long value = strtoull(val, &end, 0);
    bool reseal_it = *end == '\0';
    if (k < 5 || (size != 1 && size != 2 && size != 4 && size != 8) || end == val ||
        (*end != '\0' && strcmp(end, "!") != 0))
        die("expected TAG[.N]+OFF:SIZE=VALUE[!] or cut=N", arg);
    size_t at = find(tag, nth, arg);
    if (at + off + size > len)
        die("field beyond the end of the file", arg);
    for (unsigned i = 0; i < size; i++)
        buf[at + off + i] = (uint8_t)(value >> (8 * i));
    if (reseal_it)
        reseal(tag, at, arg);
}

int
main(int argc, char **argv)
{
    if (argc < 3)
        die("usage", "smtpatch IN OUT [TAG[.N]+OFF:SIZE=VALUE[!] | cut=N]...");
    FILE *fp = fopen(argv[1], "rb");
    if (fp == NULL)
        die("cannot open", argv[1]);
    size_t cap = 1 << 16;
    buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += got;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(fp);
    if (buf == NULL)
        die("out of memory", argv[1]);
    for (int i = 3; i < argc; i++)
        edit(argv[i]);
    fp = fopen(argv[2], "wb");
    if (fp == NULL || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0)
        die("cannot write", argv[2]);
    free(buf);
    return 0;
}
