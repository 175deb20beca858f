/*
 * ptx_decode_const.c - the constant slots of a decoded kernel: immediates,
 * symbol and function addresses, each distinct value in one slot (see
 * ptx_decode_int.h).
 */
#include <stdlib.h>

#include "frontend/exec/ptx_decode_int.h"
#include "sim/error.h"

/* The slot of a constant: looked up in a hash index of the values so far
 * (a kernel may hold thousands: decoding stays linear), added if new.
 * vals (cap entries) and idx (2 * cap) grow together. */
static uint64_t
mix(uint64_t v)
{
    v ^= v >> 33;
    v *= UINT64_C(0xff51afd7ed558ccd);
    return v ^ (v >> 33);
}

#define CONST_FIND(vals, n, cap, idx, v, found) \
    do { \
        found = UINT32_MAX; \
        if ((cap) > 0) \
            for (uint64_t h_ = mix(v) & (2 * (uint64_t)(cap) - 1);; \
                 h_ = (h_ + 1) & (2 * (uint64_t)(cap) - 1)) { \
                if ((idx)[h_] == 0) \
                    break; \
                if ((vals)[(idx)[h_] - 1].u == (v)) { \
                    found = (idx)[h_] - 1; \
                    break; \
                } \
            } \
    } while (0)

/* Grow vals to hold one more and rebuild idx when it does. */
#define CONST_ADD(vals, n, cap, idx, v) \
    do { \
        if ((n) == (cap)) { \
            (cap) = (cap) ? 2 * (cap) : 16; \
            (vals) = xrealloc((vals), (cap) * sizeof *(vals)); \
            free(idx); \
            (idx) = xcalloc(2 * (size_t)(cap), sizeof *(idx)); \
            for (uint32_t i_ = 0; i_ < (n); i_++) { \
                uint64_t h_ = mix((vals)[i_].u) & (2 * (uint64_t)(cap) - 1); \
                while ((idx)[h_] != 0) \
                    h_ = (h_ + 1) & (2 * (uint64_t)(cap) - 1); \
                (idx)[h_] = i_ + 1; \
            } \
        } \
        (vals)[(n)].u = (v); \
        uint64_t h_ = mix(v) & (2 * (uint64_t)(cap) - 1); \
        while ((idx)[h_] != 0) \
            h_ = (h_ + 1) & (2 * (uint64_t)(cap) - 1); \
        (idx)[h_] = ++(n); \
    } while (0)

uint32_t
ptx_dc_const32(struct dctx *c, uint32_t v)
{
    uint32_t i;
    CONST_FIND(c->c32, c->n_c32, c->cap_c32, c->h32, v, i);
    if (i == UINT32_MAX) {
        i = c->n_c32;
        CONST_ADD(c->c32, c->n_c32, c->cap_c32, c->h32, v);
    }
    return c->r->nvar32 + SR_COUNT + i;
}

uint32_t
ptx_dc_const64(struct dctx *c, uint64_t v)
{
    uint32_t i;
    CONST_FIND(c->c64, c->n_c64, c->cap_c64, c->h64, v, i);
    if (i == UINT32_MAX) {
        i = c->n_c64;
        CONST_ADD(c->c64, c->n_c64, c->cap_c64, c->h64, v);
    }
    return c->r->nvar64 + i;
}

uint32_t
ptx_dc_constp(struct dctx *c, bool v)
{
    uint32_t m = v ? 0xffffffffu : 0;
    for (uint32_t i = 0; i < c->n_cp; i++)
        if (c->cp[i] == m)
            return c->r->nvarp + i;
    if (c->n_cp == c->cap_cp) {
        c->cap_cp = c->cap_cp ? 2 * c->cap_cp : 4;
        c->cp = xrealloc(c->cp, c->cap_cp * sizeof *c->cp);
    }
    c->cp[c->n_cp] = m;
    return c->r->nvarp + c->n_cp++;
}
