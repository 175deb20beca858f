/*
 * ptx_mma.c - mma.sync over a warp's fragments (see ptx_mma.h).
 */
#include "frontend/ptx_mma.h"

#include <string.h>

#include "frontend/ptx_lanes.h"

bool
ptx_mma_shape(unsigned shape, unsigned atype, unsigned *na, unsigned *nb, unsigned *ncd)
{
    bool half = atype == PT_F16 || atype == PT_BF16;
    *ncd = 4;
    if (shape == PM_M16N8K8 && atype == PT_TF32) {
        *na = 4;
        *nb = 2;
        return true;
    }
    if (shape == PM_M16N8K8 && half) {
        *na = 2;
        *nb = 1;
        return true;
    }
    if (shape == PM_M16N8K16 && half) {
        *na = 4;
        *nb = 2;
        return true;
    }
    return false;
}

/* Element e of a lane's A fragment: its row and column (g = lane / 4,
 * t = lane % 4).  tf32 k8: one element a register; f16: two a register,
 * low half first. */
static void
a_pos(unsigned shape, unsigned atype, unsigned g, unsigned t, unsigned e, unsigned *row,
      unsigned *col)
{
    if (atype == PT_TF32) {              /* a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4) */
        *row = g + 8 * (e & 1);
        *col = t + 4 * (e >> 1);
    } else if (shape == PM_M16N8K8) {    /* a0 a1 (g, 2t..), a2 a3 (g+8, 2t..) */
        *row = g + 8 * (e >> 1);
        *col = 2 * t + (e & 1);
    } else {                             /* k16: a0-a3 as k8, a4-a7 eight columns on */
        *row = g + 8 * ((e >> 1) & 1);
        *col = 2 * t + (e & 1) + 8 * (e >> 2);
    }
}

/* Element e of a lane's B fragment: its row (k) and column (n = g). */
static void
b_pos(unsigned shape, unsigned atype, unsigned g, unsigned t, unsigned e, unsigned *row,
      unsigned *col)
{
    *col = g;
    if (atype == PT_TF32)                /* b0 (t), b1 (t+4) */
        *row = t + 4 * e;
    else if (shape == PM_M16N8K8)        /* b0 b1 (2t, 2t+1) */
        *row = 2 * t + e;
    else                                 /* b0 b1 (2t..), b2 b3 (2t+8..) */
        *row = 2 * t + (e & 1) + 8 * (e >> 1);
}

static double
f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double
bf16_to_double(uint16_t h)
{
    return f32_of((uint32_t)h << 16);
}

/* Element e of a fragment register set (regs[], per lane) as a double. */
static double
frag_elem(const struct pwarp *pw, const struct slot *regs, unsigned atype, unsigned lane,
          unsigned e)
{
    if (atype == PT_TF32)
        return f32_of((uint32_t)lane_get(pw, &regs[e], lane) & 0xffffe000u);
    uint32_t v = (uint32_t)lane_get(pw, &regs[e / 2], lane);
    uint16_t h = (uint16_t)(v >> (16 * (e & 1)));
    return atype == PT_BF16 ? bf16_to_double(h) : ptx_alu_half_to_float(h);
}

void
ptx_mma_exec(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    unsigned shape = x->mode, atype = x->type2;
    unsigned na, nb, ncd;
    if (!ptx_mma_shape(shape, atype, &na, &nb, &ncd))
        return;                          /* rejected at decode */
    unsigned K = shape == PM_M16N8K8 ? 8 : 16;
    unsigned per_a = atype == PT_TF32 ? na : 2 * na, per_b = atype == PT_TF32 ? nb : 2 * nb;
    const struct slot *D = &x->frag[0], *A = &x->frag[ncd], *B = &x->frag[ncd + na],
                      *C = &x->frag[ncd + na + nb];
    double a[16][16], b[16][8];
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned g = lane >> 2, t = lane & 3, row, col;
        for (unsigned e = 0; e < per_a; e++) {
            a_pos(shape, atype, g, t, e, &row, &col);
            a[row][col] = frag_elem(pw, A, atype, lane, e);
        }
        for (unsigned e = 0; e < per_b; e++) {
            b_pos(shape, atype, g, t, e, &row, &col);
            b[row][col] = frag_elem(pw, B, atype, lane, e);
        }
    }
    LANES(m, {
        unsigned g = l >> 2, t = l & 3;
        float out[4];
        for (unsigned e = 0; e < 4; e++) {
            unsigned row = g + 8 * (e >> 1), col = 2 * t + (e & 1);
            double s = f32_of((uint32_t)lane_get(pw, &C[e], l));
            for (unsigned k = 0; k < K; k++)
                s += a[row][k] * b[k][col];
            out[e] = (float)s;
        }
        for (unsigned e = 0; e < 4; e++) {
            uint32_t u;
            memcpy(&u, &out[e], 4);
            lane_set(pw, &D[e], l, u);
        }
    });
}

/* ---- wmma m16n16k16 --------------------------------------------------------- */

unsigned
ptx_wmma_layout(unsigned frag, unsigned ebytes, unsigned lane, struct ptx_wmma_elem *out,
                unsigned *nregs)
{
    unsigned g = lane >> 2, t = lane & 3, n = 0, row, col;
    if (frag == 'a' || frag == 'b') {
        *nregs = 8;
        for (unsigned r = 0; r < 8; r++) {
            for (unsigned h = 0; h < 2; h++) {
                unsigned rr = r & 3;
                if (frag == 'a') {
                    a_pos(PM_M16N8K16, PT_F16, g, t, 2 * rr + h, &row, &col);
                } else {
                    b_pos(PM_M16N8K16, PT_F16, g, t, 2 * (rr & 1) + h, &row, &col);
                    col += 8 * (rr >> 1);
                }
                out[n++] = (struct ptx_wmma_elem){ (uint8_t)row, (uint8_t)col, (uint8_t)r,
                                                   (uint8_t)h };
            }
        }
        return n;
    }
    /* C / D: c0..c3 of an m16n8 accumulator per 8 columns */
    *nregs = ebytes == 4 ? 8 : 4;
    for (unsigned q = 0; q < 8; q++) {
        unsigned nh = q >> 2, e = q & 3;
        row = g + 8 * (e >> 1);
        col = 2 * t + (e & 1) + 8 * nh;
        unsigned reg = ebytes == 4 ? q : q >> 1, half = ebytes == 4 ? 0 : q & 1;
        out[n++] = (struct ptx_wmma_elem){ (uint8_t)row, (uint8_t)col, (uint8_t)reg,
                                           (uint8_t)half };
    }
    return n;
}

/* Value of element el of a fragment in regs (element type t). */
static double
wmma_get(const struct pwarp *pw, const struct slot *regs, unsigned t, unsigned lane,
         const struct ptx_wmma_elem *el)
{
    uint32_t v = (uint32_t)lane_get(pw, &regs[el->reg], lane);
    if (t == PT_F32)
        return f32_of(v);
    uint16_t h = (uint16_t)(v >> (16 * el->half));
    return t == PT_BF16 ? bf16_to_double(h) : ptx_alu_half_to_float(h);
}

void
ptx_wmma_exec(struct pwarp *pw, const struct xop *x, uint32_t m)
{
    static const unsigned bytes_f16 = 2, bytes_f32 = 4;
    double a[16][16], b[16][16], c[16][16];
    struct ptx_wmma_elem el[16];
    unsigned nregs;
    unsigned atype = x->type2, ctype = x->ctype, dtype = x->type;
    unsigned cb = ctype == PT_F32 ? bytes_f32 : bytes_f16;
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned n = ptx_wmma_layout('a', bytes_f16, lane, el, &nregs);
        for (unsigned i = 0; i < n; i++)
            a[el[i].row][el[i].col] = wmma_get(pw, &x->frag[PTX_WMMA_A], atype, lane, &el[i]);
        n = ptx_wmma_layout('b', bytes_f16, lane, el, &nregs);
        for (unsigned i = 0; i < n; i++)
            b[el[i].row][el[i].col] = wmma_get(pw, &x->frag[PTX_WMMA_B], atype, lane, &el[i]);
        n = ptx_wmma_layout('c', cb, lane, el, &nregs);
        for (unsigned i = 0; i < n; i++)
            c[el[i].row][el[i].col] = wmma_get(pw, &x->frag[PTX_WMMA_C], ctype, lane, &el[i]);
    }
    unsigned db = dtype == PT_F32 ? bytes_f32 : bytes_f16;
    LANES(m, {
        unsigned n = ptx_wmma_layout('d', db, l, el, &nregs);
        uint32_t out[8] = { 0 };
        for (unsigned i = 0; i < n; i++) {
            double s = c[el[i].row][el[i].col];
            for (unsigned k = 0; k < 16; k++)
                s += a[el[i].row][k] * b[k][el[i].col];
            float f = (float)s;
            uint32_t u;
            memcpy(&u, &f, 4);
            if (dtype == PT_F32)
                out[el[i].reg] = u;
            else
                out[el[i].reg] |= (uint32_t)ptx_alu_float_to_half(f) << (16 * el[i].half);
        }
        for (unsigned r = 0; r < nregs; r++)
            lane_set(pw, &x->frag[r], l, out[r]);
    });
}
