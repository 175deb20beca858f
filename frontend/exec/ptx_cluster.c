/*
 * ptx_cluster.c - thread-block clusters (see ptx_cluster.h).
 */
#include "frontend/exec/ptx_cluster.h"

#include <inttypes.h>
#include <string.h>

#include "frontend/exec/ptx_lanes.h"

/* The linear id of block b's cluster. */
static uint64_t
cluster_id(const struct ptx_run *r, const struct pblock *b)
{
    const uint32_t *g = r->l->grid, *c = r->cluster;
    uint64_t nx = g[0] / c[0], ny = g[1] / c[1];
    return b->ctaid[0] / c[0] + nx * (b->ctaid[1] / c[1] + ny * (uint64_t)(b->ctaid[2] / c[2]));
}

uint32_t
ptx_cluster_rank(const struct ptx_run *r, const struct pblock *b)
{
    const uint32_t *c = r->cluster;
    return b->ctaid[0] % c[0] + c[0] * (b->ctaid[1] % c[1] + c[1] * (b->ctaid[2] % c[2]));
}

void
ptx_cluster_block_begin(struct ptx_run *r, struct pblock *b)
{
    b->running = true;
    b->cluster = -1;
    if (r->cluster_size <= 1)
        return;
    if (r->cap_clusters < r->n_slots) {   /* the slots grew (a kernel_begin): so do these */
        r->clusters = xrealloc(r->clusters, r->n_slots * sizeof *r->clusters);
        memset(r->clusters + r->cap_clusters, 0,
               (r->n_slots - r->cap_clusters) * sizeof *r->clusters);
        r->cap_clusters = r->n_slots;
    }
    uint64_t id = cluster_id(r, b);
    int32_t free_i = -1;
    for (uint32_t i = 0; i < r->n_slots; i++) {
        if (r->clusters[i].live > 0 && r->clusters[i].id == id) {
            r->clusters[i].live++;
            b->cluster = (int32_t)i;
            return;
        }
        if (r->clusters[i].live == 0 && free_i < 0)
            free_i = (int32_t)i;
    }
    r->clusters[free_i] = (struct pcluster){ id, 1, { 0, 0 }, 0, { false, false }, false };
    b->cluster = free_i;
}

void
ptx_cluster_block_end(struct ptx_run *r, struct pblock *b)
{
    b->running = false;
    if (b->cluster >= 0)
        r->clusters[b->cluster].live--;
    b->cluster = -1;
}

struct pblock *
ptx_cluster_shared(struct ptx_run *r, struct pblock *b, uint64_t a, uint32_t *off)
{
    uint64_t rank = (a >> PTX_CLUSTER_SHIFT) - 1;
    *off = (uint32_t)(a & ((1u << PTX_CLUSTER_SHIFT) - 1));
    if (rank >= r->cluster_size)
        return NULL;
    /* the block of that rank: b's cluster's origin plus the rank's position */
    const uint32_t *c = r->cluster, *g = r->l->grid;
    uint32_t p[3] = { (uint32_t)(rank % c[0]), (uint32_t)(rank / c[0] % c[1]),
                      (uint32_t)(rank / ((uint64_t)c[0] * c[1])) };
    uint64_t id = 0;
    for (int d = 2; d >= 0; d--)
        id = id * g[d] + (b->ctaid[d] - b->ctaid[d] % c[d] + p[d]);
    if (id == b->id)
        return b;
    for (uint32_t s = 0; s < r->n_slots; s++)
        if (r->blocks[s].running && r->blocks[s].id == id)
            return &r->blocks[s];
    return NULL;
}

bool
ptx_cluster_wait_done(const struct ptx_run *r, const struct pblock *b, const struct pwarp *pw)
{
    return b->cluster < 0 || r->clusters[b->cluster].gen > pw->cl_waits;
}

int
ptx_cluster_exec(struct ptx_run *r, struct pblock *b, struct pwarp *pw, const struct xop *x,
                 uint32_t m, struct warp_inst *wi, bool *advance, struct sim_error *err)
{
    (void)err;
    switch (x->kind) {
    case XK_MAPA: {
        /* d = the same offset in block `rank`'s shared memory: a
         * shared::cluster address, or (.u64 of a generic address) that in
         * the shared window; getctarank (no rank operand): d = the rank of
         * the block the address names */
        bool generic = x->space != PS_SHARED;
        if (x->b.cls == SC_NONE) {
            uint32_t own = ptx_cluster_rank(r, b);
            LANES(m, {
                uint64_t a = lane_get(pw, &x->a, l);
                uint64_t hi = (generic ? a - PTX_SHARED_WINDOW : a) >> PTX_CLUSTER_SHIFT;
                lane_set(pw, &x->d, l, hi == 0 ? own : (uint32_t)hi - 1);
            });
            return SIM_OK;
        }
        LANES(m, {
            uint64_t a = lane_get(pw, &x->a, l), rank = (uint32_t)lane_get(pw, &x->b, l);
            uint64_t off = generic ? a - PTX_SHARED_WINDOW : a;
            off &= (1u << PTX_CLUSTER_SHIFT) - 1;
            uint64_t v = (rank + 1) << PTX_CLUSTER_SHIFT | off;
            lane_set(pw, &x->d, l, generic ? v + PTX_SHARED_WINDOW : v);
        });
        return SIM_OK;
    }
    case XK_CLARRIVE:
        if (m != 0 && b->cluster >= 0) {
            struct pcluster *c = &r->clusters[b->cluster];
            uint32_t ph = pw->cl_arrives;
            c->arrived[ph % 2] += inst_popc(m);
            c->release[ph % 2] |= (x->flags & PF_RELAXED) == 0;
            if (c->arrived[ph % 2] >= r->cluster_size * r->tpb) {
                c->arrived[ph % 2] = 0;   /* phase ph is complete */
                c->last_release = c->release[ph % 2];
                c->release[ph % 2] = false;
                c->gen = ph + 1;
            }
        }
        pw->cl_arrives++;
        return SIM_OK;
    default:                     /* XK_CLWAIT */
        if (m == 0 || b->cluster < 0) {
            pw->cl_waits++;
            return SIM_OK;
        }
        if (!SIM_UNTIMED(r->now)) {
            /* decided when it issues (ptx_sync_poll / commit) */
            pw->poll = (int32_t)(x - r->x);
            pw->poll_mask = m;
            wi->sync = SIM_SYNC_POLL;
            wi->aux = SIM_POLL_BLOCKING;   /* issues once complete */
            return SIM_OK;
        }
        if (!ptx_cluster_wait_done(r, b, pw)) {
            *advance = false;    /* again at the warp's next turn */
            wi->sync = SIM_SYNC_BLOCKED;
            return SIM_OK;
        }
        pw->cl_waits++;
        return SIM_OK;
    }
}
