/*
 * sass_regs.c - registers per operand of a SASS mnemonic (see
 * sass_regs.h).
 *
 * Invariant: sass_regs_split() inverts the reader's expansion for every
 * size sass_regs_of() returns: expanding the first registers it gives,
 * with the same sizes, yields the list it was given (tests/check_sass.c).
 */
#include "frontend/sass/sass_regs.h"

#include <string.h>

#include "sim/inst.h"

#define MAX_SPAN 8u              /* larger fragments (DMMA.16816's A) are left unexpanded */

static bool
tok_is(const char *t, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(t, s, n) == 0;
}

/* Next '.'-separated token after *p (p at a '.' or the end) within end. */
static bool
next_tok(const char **p, const char *end, const char **t, size_t *n)
{
    if (*p >= end)
        return false;
    *t = *p + 1;
    const char *e = memchr(*t, '.', (size_t)(end - *t));
    if (e == NULL)
        e = end;
    *n = (size_t)(e - *t);
    *p = e;
    return true;
}

/* LDSM/STSM: the matrix count after the shape token (M88, MT88, M816, ...). */
static unsigned
matrices(const char *dot, const char *end)
{
    const char *p = dot, *t;
    size_t n;
    bool after_shape = false;
    while (next_tok(&p, end, &t, &n)) {
        if (after_shape && (tok_is(t, n, "2") || tok_is(t, n, "4")))
            return (unsigned)(t[0] - '0');
        after_shape = n >= 2 && t[0] == 'M' && (t[1] == 'T' || (t[1] >= '0' && t[1] <= '9'));
    }
    return 1;
}

/* HMMA/IMMA/DMMA: the fragment sizes of the shape and types (sass_regs.h);
 * false if the mnemonic has no shape, is sparse or its fragments do not
 * spread evenly over the lanes. */
static bool
mma_regs(const char *op, size_t oplen, const char *dot, const char *end, unsigned frag[3])
{
    unsigned in = 16, acc = 32, m = 0, nn = 0, k = 0;
    bool acc_set = false;
    if (tok_is(op, oplen, "IMMA"))
        in = 8;
    else if (tok_is(op, oplen, "DMMA"))
        in = acc = 64;
    else if (!tok_is(op, oplen, "HMMA"))
        return false;
    const char *p = dot, *t;
    size_t n;
    while (next_tok(&p, end, &t, &n)) {
        bool digits = n >= 3;
        for (size_t i = 0; i < n && digits; i++)
            digits = t[i] >= '0' && t[i] <= '9';
        if (digits && m == 0) {
            size_t at;
            if (t[0] == '1' && t[1] == '6' && t[2] == '8') {
                m = 16;
                at = 3;
            } else if (t[0] == '8' && t[1] == '8') {
                m = 8;
                at = 2;
            } else {
                return false;
            }
            nn = 8;
            for (size_t i = at; i < n; i++)
                k = 10 * k + (unsigned)(t[i] - '0');
        } else if (tok_is(t, n, "SP")) {
            return false;                    /* sparse A and its metadata: not modelled */
        } else if (tok_is(op, oplen, "HMMA")) {
            if (!acc_set && (tok_is(t, n, "F32") || tok_is(t, n, "F16"))) {
                acc = t[1] == '3' ? 32 : 16;
                acc_set = true;
            } else if (tok_is(t, n, "TF32")) {
                in = 32;
            }
        } else if (tok_is(op, oplen, "IMMA")) {
            if (tok_is(t, n, "S4") || tok_is(t, n, "U4"))
                in = 4;
        }
    }
    if (m == 0 || k == 0)
        return false;
    /* bits of each fragment over 32 lanes x 32 bits */
    unsigned bits[3] = { m * k * in, nn * k * in, m * nn * acc };
    for (int i = 0; i < 3; i++) {
        if (bits[i] % 1024 != 0 || bits[i] / 1024 == 0 || bits[i] / 1024 > MAX_SPAN)
            return false;
        frag[i] = bits[i] / 1024;
    }
    return frag[0] + frag[1] + frag[2] <= SIM_MAX_SRC;
}

void
sass_regs_of(const char *mn, size_t len, const struct sass_decoded *d, unsigned width,
             struct sass_regs *out)
{
    const char *end = mn + len;
    const char *dot = memchr(mn, '.', len);
    if (dot == NULL)
        dot = end;
    size_t oplen = (size_t)(dot - mn);
    out->dst = 1;
    out->src[0] = out->src[1] = out->src[2] = 1;
    out->rest = 1;
    out->last = 0;
    switch (d->opclass) {
    case SIM_OPC_FP64:
    case SIM_OPC_FP64_FMA:
        out->dst = out->src[0] = out->src[1] = out->src[2] = out->rest = 2;
        return;
    case SIM_OPC_MEM:
        if (tok_is(mn, oplen, "LDSM")) {
            out->dst = (uint8_t)matrices(dot, end);
        } else if (tok_is(mn, oplen, "STSM")) {
            out->last = (uint8_t)matrices(dot, end);
        } else if (width >= 8 && width <= 4 * MAX_SPAN) {
            if (d->flags & SIM_IF_LOAD)
                out->dst = (uint8_t)(width / 4);
            if (d->flags & SIM_IF_STORE)
                out->last = (uint8_t)(width / 4);
        }
        return;
    case SIM_OPC_TENSOR:
    case SIM_OPC_TENSOR_HALF:
    case SIM_OPC_TENSOR_DP: {
        unsigned f[3];
        if (mma_regs(mn, oplen, dot, end, f)) {
            for (int i = 0; i < 3; i++)
                out->src[i] = (uint8_t)f[i];
            out->dst = (uint8_t)f[2];
        }
        return;
    }
    default:
        return;
    }
}

/* How many of regs[at, end) continue regs[at] consecutively, at most want. */
static unsigned
run(const uint16_t *regs, unsigned at, unsigned end, unsigned want)
{
    unsigned c = 1;
    while (c < want && at + c < end && regs[at + c] == regs[at] + c)
        c++;
    return c;
}

unsigned
sass_regs_split(const struct sass_regs *r, const uint16_t *regs, unsigned n, uint16_t *first,
                unsigned max, bool *exact)
{
    unsigned out = 0, tail = n;
    *exact = true;
    if (r->last != 0 && n > 0) {
        /* the last operand: the longest consecutive run (up to r->last)
         * that ends the list */
        unsigned t = 1;
        while (t < r->last && t < n && regs[n - 1 - t] + 1 == regs[n - t])
            t++;
        tail = n - t;
        *exact = t == r->last;
    }
    for (unsigned i = 0, p = 0; i < tail; p++) {
        unsigned want = p < 3 ? r->src[p] : r->rest;
        unsigned c = run(regs, i, tail, want);
        if (c != want)
            *exact = false;
        if (out < max)
            first[out++] = regs[i];
        i += c;
    }
    if (tail < n && out < max)
        first[out++] = regs[tail];
    return out;
}

bool
sass_regs_dst_fits(const struct sass_regs *r, const uint16_t *dst, unsigned n)
{
    return n == 0 || (n == r->dst && run(dst, 0, n, n) == n);
}
