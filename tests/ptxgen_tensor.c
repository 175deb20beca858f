/*
 * ptxgen_tensor.c - the random generator's tensor-core and asynchronous
 * copy instructions (see ptxgen_internal.h): mma.sync in every shape and
 * type the frontend executes, wmma load / mma / store, ldmatrix,
 * stmatrix, and cp.async with its groups.
 *
 * The .sync.aligned ones need the whole warp: they are written only where
 * no lane can be inactive (pg_tensor_ok).  The warp's memory for them is
 * its threads' own memory, so nothing another warp uses changes: a wmma
 * tile of 1 KB is the warp's 32 shared slots (or 2 KB of its threads'
 * scratch words), and ldmatrix / stmatrix rows are the lanes' own slots.
 * A wmma load of the read-only input may read any of it.
 */
#include <stdio.h>
#include <string.h>

#include "tests/ptxgen_internal.h"

bool
pg_tensor_ok(const struct pg *g)
{
    return !g->in_func && !g->divergent && !g->exited && g->threads % 32 == 0 &&
           g->pool[PG_F] >= 8 && g->pool[PG_R] >= 8;
}

/* "{%r3, %r7, ...}": n different registers of pool p. */
static const char *
frag(struct pg *g, enum pg_pool p, unsigned n)
{
    unsigned k = pg_rand(g, g->pool[p]);
    char *s = pg_str(g);
    size_t len = (size_t)snprintf(s, PG_STR, "{");
    for (unsigned i = 0; i < n; i++, k = (k + 1) % g->pool[p])
        len += (size_t)snprintf(s + len, PG_STR - len, "%s%s%u", i ? ", " : "", pg_pool_name[p],
                                1 + k);
    snprintf(s + len, PG_STR - len, "}");
    return s;
}

/* mma.sync.aligned.row.col: the shapes and types of ptx_mma.c. */
static void
gen_mma(struct pg *g)
{
    static const struct {
        const char *shape, *types;
        unsigned na, nb, nc;         /* fragment registers of A, B, C / D */
        enum pg_pool cd;             /* C and D: f32, s32 or packed f16 */
    } f[] = {
        { "m16n8k16", "f32.f16.f16.f32", 4, 2, 4, PG_F },
        { "m16n8k8", "f32.f16.f16.f32", 2, 1, 4, PG_F },
        { "m16n8k16", "f16.f16.f16.f16", 4, 2, 2, PG_R },
        { "m16n8k8", "f16.f16.f16.f16", 2, 1, 2, PG_R },
        { "m16n8k16", "f32.bf16.bf16.f32", 4, 2, 4, PG_F },
        { "m16n8k8", "f32.bf16.bf16.f32", 2, 1, 4, PG_F },
        { "m16n8k8", "f32.tf32.tf32.f32", 4, 2, 4, PG_F },
        { "m16n8k4", "f32.tf32.tf32.f32", 2, 1, 4, PG_F },
        { "m16n8k32", "s32.s8.s8.s32", 4, 2, 4, PG_R },
        { "m16n8k32", "s32.u8.s8.s32", 4, 2, 4, PG_R },
        { "m16n8k16", "s32.s8.u8.s32", 2, 1, 4, PG_R },
        { "m16n8k16", "s32.u8.u8.s32", 2, 1, 4, PG_R },
    };
    unsigned k = pg_rand(g, sizeof f / sizeof f[0]);
    const char *sat = f[k].types[0] == 's' && pg_chance(g, 50) ? ".satfinite" : "";
    const char *a = frag(g, PG_R, f[k].na);
    const char *b = frag(g, PG_R, f[k].nb);
    const char *c = frag(g, f[k].cd, f[k].nc);
    const char *d = frag(g, f[k].cd, f[k].nc);
    pg_emit(g, "mma.sync.aligned.%s.row.col%s.%s %s, %s, %s, %s", f[k].shape, sat, f[k].types, d,
            a, b, c);
}

/* The warp's shared slots (1 KB) or scratch words (2 KB): a register. */
static const char *
warp_region(struct pg *g, bool shared)
{
    char *s = pg_str(g);
    if (shared)
        snprintf(s, PG_STR, "%%rk%u", RK_WSH);
    else
        snprintf(s, PG_STR, "%%ra%u", RA_WSCR);
    return s;
}

/* wmma m16n16k16: a and b (.f16) and c (.f32) loaded from the input or
 * the warp's own memory, the product, d stored to the warp's memory. */
static void
gen_wmma(struct pg *g)
{
    const char *lay[2] = { "row", "col" };
    unsigned la = pg_rand(g, 2), lb = pg_rand(g, 2), lc = pg_rand(g, 2);
    char base[3][48];
    for (unsigned i = 0; i < 3; i++) {
        bool own = pg_chance(g, 30);
        if (own) {
            bool sh = pg_chance(g, 50);
            snprintf(base[i], sizeof base[i], "%s.%s", sh ? "shared" : "global",
                     warp_region(g, sh));
        } else {
            /* the input: a tile of 512 (f16) or 1024 (f32) bytes */
            snprintf(base[i], sizeof base[i], "global.%%ra%u+%u", RA_IN,
                     32 * pg_rand(g, (PG_IN_WORDS * 4 - 1024) / 32));
        }
    }
    const char *fa = frag(g, PG_R, 8);
    const char *fb = frag(g, PG_R, 8);
    const char *fc = frag(g, PG_F, 8);
    const char *fd = frag(g, PG_F, 8);
    char sp[3][16], addr[3][48];
    for (unsigned i = 0; i < 3; i++) {
        const char *dot = strchr(base[i], '.');
        snprintf(sp[i], sizeof sp[i], "%.*s", (int)(dot - base[i]), base[i]);
        snprintf(addr[i], sizeof addr[i], "[%s]", dot + 1);
    }
    unsigned kind = pg_rand(g, 4);
    if (kind == 0 || kind == 3)
        pg_emit(g, "wmma.load.a.sync.aligned.%s.m16n16k16.%s.f16 %s, %s, 16", lay[la], sp[0], fa,
                addr[0]);
    if (kind == 1 || kind == 3)
        pg_emit(g, "wmma.load.b.sync.aligned.%s.m16n16k16.%s.f16 %s, %s, 16", lay[lb], sp[1], fb,
                addr[1]);
    if (kind == 2 || kind == 3)
        pg_emit(g, "wmma.load.c.sync.aligned.%s.m16n16k16.%s.f32 %s, %s, 16", lay[lc], sp[2], fc,
                addr[2]);
    pg_emit(g, "wmma.mma.sync.aligned.%s.%s.m16n16k16.f32.f32 %s, %s, %s, %s", lay[la], lay[lb],
            fd, fa, fb, fc);
    if (pg_chance(g, 50)) {
        bool sh = pg_chance(g, 50);
        pg_emit(g, "wmma.store.d.sync.aligned.%s.m16n16k16.%s.f32 [%s], %s, 16",
                lay[pg_rand(g, 2)], sh ? "shared" : "global", warp_region(g, sh), fd);
    }
}

/* ldmatrix / stmatrix of 8x8 .b16 matrices whose rows are the lanes' own
 * shared slots. */
static void
gen_matrix(struct pg *g)
{
    unsigned x = 1u << pg_rand(g, 3);
    const char *trans = pg_chance(g, 30) ? ".trans" : "";
    unsigned off = 16 * pg_rand(g, 2);
    const char *r = frag(g, PG_R, x);
    if (pg_chance(g, 60))
        pg_emit(g, "ldmatrix.sync.aligned.m8n8.x%u%s.shared.b16 %s, [%%rk%u+%u]", x, trans, r,
                RK_SLOT, off);
    else
        pg_emit(g, "stmatrix.sync.aligned.m8n8.x%u%s.shared.b16 [%%rk%u+%u], %s", x, trans,
                RK_SLOT, off, r);
}

/* cp.async of 4, 8 or 16 bytes of the input into the thread's shared
 * slot (a src-size below the copy zero-fills), a commit, a few unrelated
 * instructions, and the wait before the slot is read again. */
static void
gen_cp_async(struct pg *g)
{
    unsigned n = 1 + pg_rand(g, 2);
    for (unsigned i = 0; i < n; i++) {
        unsigned size = 4u << pg_rand(g, 3);
        unsigned dst = size * pg_rand(g, PG_SLOT_BYTES / size), src = size * pg_rand(g, 64 / size);
        const char *cg = size == 16 && pg_chance(g, 50) ? "cg" : "ca";
        if (pg_chance(g, 25))
            pg_emit(g, "cp.async.%s.shared.global [%%rk%u+%u], [%%ra%u+%u], %u, %u", cg, RK_SLOT,
                    dst, RA_WIN, src, size, pg_rand(g, size + 1));
        else
            pg_emit(g, "cp.async.%s.shared.global [%%rk%u+%u], [%%ra%u+%u], %u", cg, RK_SLOT, dst,
                    RA_WIN, src, size);
        if (pg_chance(g, 60))
            pg_emit(g, "cp.async.commit_group");
    }
    pg_emit(g, "cp.async.commit_group");
    for (unsigned k = pg_rand(g, 3); k > 0; k--)
        pg_op_int32(g);
    pg_emit(g, "%s", pg_chance(g, 50) ? "cp.async.wait_all" : "cp.async.wait_group 0");
}

void
pg_gen_tensor(struct pg *g)
{
    unsigned k = pg_rand(g, 7);
    bool warp = pg_tensor_ok(g);
    if (k < 3 && warp)
        gen_mma(g);
    else if (k < 4 && warp)
        gen_wmma(g);
    else if (k < 5 && warp)
        gen_matrix(g);
    else
        gen_cp_async(g);
}
