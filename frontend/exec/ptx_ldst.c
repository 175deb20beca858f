/*
 * ptx_ldst.c - the fast paths of PTX loads and stores (see ptx_ldst.h):
 * a converged warp's access through one register plus an offset, and
 * scalar 4- and 8-byte accesses to explicit shared, global and constant
 * addresses.  Whatever they do not take (a misaligned or out-of-bounds
 * lane, a watched or freed allocation, local memory, atomics) goes to
 * ptx_exec.c's lane-by-lane path, which reports the errors.
 */
#include "frontend/exec/ptx_ldst.h"

#include <string.h>

#include "frontend/exec/ptx_lanes.h"
#include "frontend/exec/ptx_mem.h"

/* eb (1, 2, 4 or 8) bytes at p, with memcpy of a constant size (inlined). */
static inline uint64_t
load_le(const uint8_t *p, unsigned eb)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (eb) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static inline void
store_le(uint8_t *p, uint64_t v, unsigned eb)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (eb) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* One element of a converged load or store, 4 or 8 bytes, into or from a
 * register of its size: lane l's at base + off[l]. */
static inline __attribute__((always_inline)) void
move_sized(struct pwarp *pw, const struct slot *d, bool ld, unsigned eb, uint8_t *base,
           const sim_addr_t *off)
{
    if (eb == 4) {
        union r32 *V = R32(*d);
        if (ld)
            for (unsigned l = 0; l < 32; l++)
                memcpy(&V[l].u, base + off[l], 4);
        else
            for (unsigned l = 0; l < 32; l++)
                memcpy(base + off[l], &V[l].u, 4);
    } else {
        union r64 *V = R64(*d);
        if (ld)
            for (unsigned l = 0; l < 32; l++)
                memcpy(&V[l].u, base + off[l], 8);
        else
            for (unsigned l = 0; l < 32; l++)
                memcpy(base + off[l], &V[l].u, 8);
    }
}

/* Whether slot d is a register of an eb-byte element's size. */
static inline bool
sized(const struct slot *d, unsigned eb)
{
    return (eb == 4 && d->cls == SC_32) || (eb == 8 && d->cls == SC_64);
}

/* The data moves of a converged load or store (move_lanes) other than a
 * scalar one into a register of its size: element by element, as
 * exec_mem does (sign- or zero-extended per type, sinks skipped). */
static void
move_lanes_elems(struct pwarp *pw, const struct xop *x, unsigned eb, uint8_t *base,
                 const sim_addr_t *off)
{
    bool ld = x->kind == XK_LD;
    for (unsigned v = 0; v < x->vec; v++) {
        const struct slot *d = &x->v[v];
        uint8_t *at = base + v * eb;
        if (ld && d->cls == SC_NONE)
            continue;
        if (sized(d, eb)) {
            move_sized(pw, d, ld, eb, at, off);
            continue;
        }
        if (d->cls == SC_32 && (eb == 1 || eb == 2)) {   /* bytes and halves: extend per type */
            union r32 *V = R32(*d);
            bool sgn = ptx_type_is_signed(x->type);
            if (!ld && eb == 1)
                for (unsigned l = 0; l < 32; l++)
                    at[off[l]] = (uint8_t)V[l].u;
            else if (!ld)
                for (unsigned l = 0; l < 32; l++)
                    memcpy(at + off[l], &(uint16_t){ (uint16_t)V[l].u }, 2);
            else if (eb == 1)
                for (unsigned l = 0; l < 32; l++)
                    V[l].u = sgn ? (uint32_t)(int8_t)at[off[l]] : at[off[l]];
            else
                for (unsigned l = 0; l < 32; l++) {
                    uint16_t h;
                    memcpy(&h, at + off[l], 2);
                    V[l].u = sgn ? (uint32_t)(int16_t)h : h;
                }
            continue;
        }
        for (unsigned l = 0; l < 32; l++) {
            if (ld)
                lane_set(pw, d, l, lane_extend(load_le(at + off[l], eb), x->type));
            else
                store_le(at + off[l], lane_get(pw, d, l), eb);
        }
    }
}

/* The lanes' data moves of a converged load or store whose lane l
 * touches base + off[l]: the common scalar access into a register of its
 * size inline, the rest element by element. */
static inline __attribute__((always_inline)) void
move_lanes(struct pwarp *pw, const struct xop *x, unsigned eb, uint8_t *base,
           const sim_addr_t *off)
{
    if (x->vec == 1 && sized(&x->v[0], eb))
        move_sized(pw, &x->v[0], x->kind == XK_LD, eb, base, off);
    else
        move_lanes_elems(pw, x, eb, base, off);
}

/* ptx_ldst_fast for a converged warp whose address is one register plus
 * an offset (most accesses of most kernels): the 32 addresses are formed
 * in one straight loop and checked together -- alignment to the access's
 * size, and that all of them fall in the block's shared window or in one
 * global allocation (a generic address: either) -- before the data
 * moves.  The same results as the lane by lane path; 0 sends x there
 * (which reports what is wrong). */
static int
exec_mem_converged(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                   struct warp_inst *wi, unsigned eb)
{
    unsigned bytes = eb * x->vec;
    if (eb > 8 || bytes > 16)
        return 0;
    uint64_t bits = 0, lo = UINT64_MAX, hi = 0;
    unsigned space = x->space;
    if (x->base.cls == SC_32) {         /* a 32-bit register's sum wraps at 2^32 */
        const union r32 *A = R32(x->base);
        uint32_t off = (uint32_t)x->off, bits32 = 0, lo32 = UINT32_MAX, hi32 = 0;
        for (unsigned l = 0; l < 32; l++) {
            uint32_t a = A[l].u + off;
            wi->addr[l] = a;
            bits32 |= a;
            lo32 = a < lo32 ? a : lo32;
            hi32 = a > hi32 ? a : hi32;
        }
        bits = bits32;
        lo = lo32;
        hi = hi32;
    } else {
        const union r64 *A = R64(x->base);
        uint64_t off = (uint64_t)x->off, mask = space == PS_SHARED ? UINT32_MAX : UINT64_MAX;
        for (unsigned l = 0; l < 32; l++) {
            uint64_t a = (A[l].u + off) & mask;   /* the shared window is 32-bit */
            wi->addr[l] = a;
            bits |= a;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
    }
    if ((bits & (bytes - 1)) != 0)
        return 0;
    if (space == PS_GENERIC && lo >= PTX_SHARED_WINDOW &&
        hi < PTX_SHARED_WINDOW + PTX_WINDOW_SIZE) {
        for (unsigned l = 0; l < 32; l++)
            wi->addr[l] -= PTX_SHARED_WINDOW;
        lo -= PTX_SHARED_WINDOW;
        hi -= PTX_SHARED_WINDOW;
        space = PS_SHARED;
    }
    if (space == PS_SHARED) {
        if (hi + bytes > r->shared_bytes)
            return 0;
        move_lanes(pw, x, eb, b->smem, wi->addr);
        wi->space = SIM_SPACE_SHARED;
        wi->width = (uint8_t)bytes;
        return 1;
    }
    if (space != PS_GLOBAL && space != PS_CONST && space != PS_GENERIC)
        return 0;
    /* one allocation holds lo .. hi: so every lane's address (no window
     * of a generic address lies in an allocation) */
    const struct region *g = ptx_mem_region(r, lo, bytes);
    if (g == NULL || hi - g->base + bytes > g->size || g->watch)
        return 0;
    for (unsigned l = 0; l < 32; l++)     /* offsets into it, then timing-model addresses */
        wi->addr[l] -= g->base;
    move_lanes(pw, x, eb, g->ptr, wi->addr);
    for (unsigned l = 0; l < 32; l++)
        wi->addr[l] += g->tbase;
    wi->space = space == PS_CONST ? SIM_SPACE_CONST : SIM_SPACE_GLOBAL;
    wi->width = (uint8_t)bytes;
    return 1;
}

/* Fast path: a scalar 4- or 8-byte load or store to an explicit shared,
 * global or const address, the bulk of memory instructions.  Returns 1 if
 * it handled x; 0 to take the general path (which also reports errors). */
int
ptx_ldst_fast(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
              uint32_t m, struct warp_inst *wi)
{
    if (x->kind != XK_LD && x->kind != XK_ST)
        return 0;
    unsigned eb = ptx_type_bytes(x->type);
    if (m == FULL && !(x->flags & PF_FRAME) && x->base.cls != SC_NONE)
        return exec_mem_converged(r, b, pw, x, wi, eb);
    if (x->vec != 1 || (eb != 4 && eb != 8) || x->v[0].cls != (eb == 4 ? SC_32 : SC_64))
        return 0;
    uint8_t *ptr[32];
    uint32_t mm = m;
    if (x->space == PS_SHARED) {
        while (mm != 0) {
            unsigned l = (unsigned)__builtin_ctz(mm);
            mm &= mm - 1;
            sim_addr_t a = lane_addr(pw, x, l);
            if (a + eb > r->shared_bytes || (a & (eb - 1)) != 0)
                return 0;
            ptr[l] = b->smem + a;
            wi->addr[l] = a;
        }
        wi->space = SIM_SPACE_SHARED;
    } else if (x->space == PS_GLOBAL || x->space == PS_CONST) {
        while (mm != 0) {
            unsigned l = (unsigned)__builtin_ctz(mm);
            mm &= mm - 1;
            sim_addr_t a = lane_addr(pw, x, l);
            const struct region *g = &r->regions[r->last_region];
            if (r->n_regions == 0 || a < g->base || a - g->base + eb > g->size) {
                g = ptx_mem_region(r, a, eb);
                if (g == NULL)
                    return 0;
            }
            if ((a & (eb - 1)) != 0 || g->watch)
                return 0;
            ptr[l] = g->ptr + (a - g->base);
            wi->addr[l] = g->tbase + (a - g->base);
        }
        wi->space = x->space == PS_CONST ? SIM_SPACE_CONST : SIM_SPACE_GLOBAL;
    } else {
        return 0;
    }
    wi->width = (uint8_t)eb;
    if (eb == 4) {
        union r32 *V = R32(x->v[0]);
        if (x->kind == XK_LD)
            LANES(m, { memcpy(&V[l].u, ptr[l], 4); });
        else
            LANES(m, { memcpy(ptr[l], &V[l].u, 4); });
    } else {
        union r64 *V = R64(x->v[0]);
        if (x->kind == XK_LD)
            LANES(m, { memcpy(&V[l].u, ptr[l], 8); });
        else
            LANES(m, { memcpy(ptr[l], &V[l].u, 8); });
    }
    return 1;
}
