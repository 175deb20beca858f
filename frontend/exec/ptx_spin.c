/*
 * ptx_spin.c - kernels that never end (see ptx_spin.h).
 *
 * Cost.  A back-edge costs a compare and an increment; a warp's state is
 * hashed only when it has come back to one loop head 2^k times (k >= 6)
 * with memory unchanged, and once more at the next back-edge to compare,
 * so an ordinary loop is hashed a handful of times in its life.
 */
#include "frontend/exec/ptx_spin.h"

#include <inttypes.h>
#include <string.h>
#include <xxhash.h>

#define SPIN_FIRST_LOOK 64u      /* back-edges with memory unchanged before the first look */

/* The hash of everything warp pw's next iterations depend on besides
 * memory: its registers (every lane), predicates, SIMT stack, call depth,
 * exited lanes, carry flags and cp.async groups.  Not its instruction
 * count (the %clock proxy: a loop that reads %clock has it in a
 * register) nor its unrolled-loop counters (timing only). */
static uint64_t
state_hash(const struct ptx_run *r, const struct pwarp *pw)
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, pw->r32, (size_t)r->nvar32 * 32 * sizeof *pw->r32);
    XXH3_64bits_update(st, pw->r64, (size_t)r->nvar64 * 32 * sizeof *pw->r64);
    XXH3_64bits_update(st, pw->pred, (size_t)r->nvarp * sizeof *pw->pred);
    XXH3_64bits_update(st, pw->stk, (size_t)pw->sp * sizeof *pw->stk);
    uint32_t misc[4] = { (uint32_t)pw->cs.n, pw->exited, pw->carry, pw->async_groups };
    XXH3_64bits_update(st, misc, sizeof misc);
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

/* Is every unfinished warp of every block begun spinning (since memory
 * last changed) or waiting at a barrier that has not released (not every
 * unfinished warp of its block has reached it)?  A warp that reached a
 * barrier that has since released has not run yet, but will. */
static bool
stuck(const struct ptx_run *r)
{
    for (uint32_t slot = 0; slot < r->n_slots; slot++) {
        const struct pblock *b = &r->blocks[slot];
        if (!b->allocated)
            continue;
        uint32_t live = 0;
        for (uint32_t w = 0; w < r->wpb; w++)
            live += b->warps[w].live && !b->warps[w].finished;
        for (uint32_t w = 0; w < r->wpb; w++) {
            const struct pwarp *pw = &b->warps[w];
            if (!pw->live || pw->finished)
                continue;
            if (pw->spin.state == 2 && pw->spin.epoch == r->mem_epoch)
                continue;
            if (pw->bar_pending && b->bar_arrived[(pw->bars - 1) % 2] < live)
                continue;
            if (pw->nbar >= 0 && b->nbar_gen[pw->nbar] == pw->nbar_gen)
                continue;        /* its named barrier has not released */
            return false;
        }
    }
    return true;
}

void
ptx_spin_reset(struct pwarp *pw)
{
    memset(&pw->spin, 0, sizeof pw->spin);
    pw->spin.pc = -1;
}

int
ptx_spin_backedge(struct ptx_run *r, const struct pblock *b, struct pwarp *pw,
                  const struct xop *x, int32_t target, struct sim_error *err)
{
    struct ptx_spin *s = &pw->spin;
    if (s->pc != target || s->epoch != r->mem_epoch) {
        s->pc = target;                  /* another loop, or memory moved: start over */
        s->epoch = r->mem_epoch;
        s->count = 0;
        s->state = 0;
        return SIM_OK;
    }
    s->count++;
    if (s->state == 0) {
        if (s->count >= SPIN_FIRST_LOOK && (s->count & (s->count - 1)) == 0) {
            s->hash = state_hash(r, pw);
            s->state = 1;
        }
        return SIM_OK;
    }
    if (s->state == 1) {
        if (state_hash(r, pw) != s->hash) {
            s->state = 0;                /* it moves: look again at the next power of two */
            return SIM_OK;
        }
        s->state = 2;
        r->n_spinning++;
    }
    /* spinning since memory last changed: the kernel is stuck when no
     * other warp can change memory either (the counts say when to look) */
    if (r->n_spinning + r->n_at_bar < r->live_warps || !stuck(r))
        return SIM_OK;
    const struct xop *head = &r->x[target];
    return sim_error_set(err, SIM_ERR_FORMAT, "%s:%u: kernel %s never ends: warp %u of block %"
                         PRIu64 " loops from line %u back to line %u forever (its registers "
                         "repeat and memory has not changed for %u passes), and no warp can "
                         "change it: of the %u running, %u spin and %u wait at a barrier%s",
                         r->m->path, x->line, r->k->name, pw->index, b->id, x->line, head->line,
                         s->count, r->live_warps, r->n_spinning, r->n_at_bar,
                         SIM_UNTIMED(r->now) && r->n_blocks > 1 ? " (emulate runs one block "
                         "at a time: a block that waits for another finishes only under run)"
                         : "");
}
