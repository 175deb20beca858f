/*
 * fatbin.c - find and decompress the PTX of a CUDA fat binary (see
 * fatbin.h).  Decompression is liblz4's and libzstd's.
 */
#include "cudart/fatbin.h"

#include <inttypes.h>
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define KIND_PTX 1
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
/* PTX of a fat binary larger than this is not plausible */
#define PTX_MAX (UINT64_C(1) << 31)

static uint64_t
rd(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int
decode(const unsigned char *pay, uint64_t size, uint64_t csize, uint64_t usize, uint64_t flags,
       char **text, size_t *len, char *why, size_t why_len)
{
    if ((flags & (FLAG_LZ4 | FLAG_ZSTD)) == 0) {
        size_t n = strnlen((const char *)pay, size);
        *text = malloc(n + 1);
        if (*text == NULL)
            return snprintf(why, why_len, "out of memory"), -1;
        memcpy(*text, pay, n);
        (*text)[n] = '\0';
        *len = n;
        return 0;
    }
    if (csize > size || usize == 0 || usize > PTX_MAX)
        return snprintf(why, why_len, "a compressed PTX entry with sizes %" PRIu64 " -> %"
                        PRIu64 " in %" PRIu64 " bytes", csize, usize, size), -1;
    char *out = malloc(usize + 1);
    if (out == NULL)
        return snprintf(why, why_len, "out of memory"), -1;
    uint64_t got;
    if (flags & FLAG_LZ4) {
        int n = LZ4_decompress_safe((const char *)pay, out, (int)csize, (int)usize);
        if (n < 0) {
            free(out);
            return snprintf(why, why_len, "an LZ4-compressed PTX entry does not decompress"),
                   -1;
        }
        got = (uint64_t)n;
    } else {
        size_t n = ZSTD_decompress(out, usize, pay, csize);
        if (ZSTD_isError(n)) {
            snprintf(why, why_len, "a Zstandard-compressed PTX entry does not decompress: %s",
                     ZSTD_getErrorName(n));
            free(out);
            return -1;
        }
        got = n;
    }
    out[got] = '\0';
    *text = out;
    *len = strnlen(out, got);
    return 0;
}

int
fatbin_ptx(const void *data, size_t avail, unsigned cc, char **text, size_t *len,
           unsigned *arch, char *why, size_t why_len)
{
    const unsigned char *d = data;
    if (rd(d, 4) != FATBIN_MAGIC)
        return snprintf(why, why_len, "no fat binary (magic %#" PRIx64 ", expected %#x)",
                        rd(d, 4), FATBIN_MAGIC), -1;
    uint64_t hs = rd(d + 6, 2), total = rd(d + 8, 8);
    if (avail != 0 && hs + total > avail)
        return snprintf(why, why_len, "a fat binary of %" PRIu64 " bytes in %zu",
                        hs + total, avail), -1;
    const unsigned char *best = NULL, *p = d + hs, *end = d + hs + total;
    unsigned best_arch = 0, lowest = 0, n_ptx = 0;
    while (p + 16 <= end) {
        uint64_t kind = rd(p, 2), ehs = rd(p + 4, 4), size = rd(p + 8, 8);
        if (ehs < 64 || ehs > (uint64_t)(end - p) || size > (uint64_t)(end - p) - ehs)
            return snprintf(why, why_len, "a malformed fat binary entry at byte %td (header %"
                            PRIu64 ", payload %" PRIu64 " bytes)", p - d, ehs, size), -1;
        if (kind == KIND_PTX) {
            unsigned a = (unsigned)rd(p + 28, 4);
            n_ptx++;
            if (lowest == 0 || a < lowest)
                lowest = a;
            if (a <= cc && a >= best_arch) {
                best = p;
                best_arch = a;
            }
        }
        p += ehs + size;
    }
    if (best == NULL) {
        if (n_ptx == 0)
            return snprintf(why, why_len, "the fat binary holds no PTX (compile with "
                            "-gencode arch=compute_NN,code=compute_NN)"), -1;
        return snprintf(why, why_len, "the fat binary's PTX is for compute_%u and up, the "
                        "simulated GPU is sm_%u", lowest, cc), -1;
    }
    uint64_t ehs = rd(best + 4, 4), size = rd(best + 8, 8);
    *arch = best_arch;
    return decode(best + ehs, size, rd(best + 16, 4), rd(best + 56, 8), rd(best + 40, 8), text,
                  len, why, why_len);
}
