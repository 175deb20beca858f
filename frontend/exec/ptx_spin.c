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
#define SPIN_MAX_YIELDS 32u      /* yields of one warp with memory unchanged: more paths
                                    than a warp has lanes means they all spin */

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

/* Independent thread scheduling (compute capability 7.0 on; NVIDIA's
 * Volta architecture whitepaper, "Independent Thread Scheduling": "the
 * scheduler ... ensures all threads eventually make forward progress", so
 * starvation-free algorithms such as a mutex taken by the lanes of one
 * warp work).  The path on top of warp pw's SIMT stack spins: give the
 * warp's other lanes their turn.  The first path below it that can run
 * (a path not begun, or one a yield split off) moves to the top; or, when
 * the first is where the spinning lanes reconverge, the lanes waiting
 * there go on past it as a path of their own, to the next reconvergence
 * point, while the spinning lanes will still come to it.  Only entries of
 * the current call are considered.  False: no other lanes can run.
 * apply false: only say whether they could. */
static bool
its_yield(struct pwarp *pw, bool apply)
{
    int base = pw->cs.n > 0 ? pw->cs.frames[pw->cs.n - 1].base_sp : 0;
    int top = pw->sp - 1;
    if (top <= base)
        return false;
    int32_t rpc = pw->stk[top].rpc;      /* where the lanes of `lanes` reconverge */
    uint32_t lanes = pw->stk[top].mask;
    for (int i = top - 1; i >= base; i--) {
        struct simt_entry *x = &pw->stk[i];
        if (x->mask == 0 || x->pc == x->rpc)
            continue;                    /* lanes waiting at a reconvergence point */
        if (rpc >= 0 && x->pc == rpc) {  /* where the spinning lanes reconverge */
            uint32_t waiting = x->mask & ~lanes;
            if (waiting == 0) {          /* only they: look one level out */
                rpc = x->rpc;
                lanes = x->mask;
                continue;
            }
            if (pw->sp - base + 1 > PTX_STACK_MAX)
                return false;
            if (!apply)
                return true;
            ptx_stack_reserve(pw);
            x = &pw->stk[i];
            x->mask &= ~waiting;
            pw->stk[pw->sp++] = (struct simt_entry){ x->pc, x->rpc, waiting };
            return true;
        }
        if (!apply)
            return true;
        struct simt_entry run = *x;      /* a path of its own: it runs first */
        memmove(x, x + 1, (size_t)(top - i) * sizeof *x);
        pw->stk[top] = run;
        return true;
    }
    return false;
}

void
ptx_spin_yield(struct pwarp *pw)
{
    if (its_yield(pw, true))
        pw->spin.its = true;
}

int
ptx_spin_sync(const struct ptx_run *r, struct pwarp *pw, const struct xop *x, int32_t pc,
              uint32_t need, uint32_t *m, struct sim_error *err)
{
    struct ptx_spin *s = &pw->spin;
    int top = pw->sp - 1;
    if (!s->its || *m != pw->stk[top].mask)
        return 0;
    need &= ptx_warp_lanes(r, pw->index) & ~pw->exited;
    if (pw->cs.n > 0) {
        if ((need & ~*m) == 0)
            return 0;
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s:%u: unsupported: lanes of warp %u "
                             "synchronize with others of their warp in a called function after "
                             "independent thread scheduling split the warp", r->m->path, x->line,
                             pw->index);
    }
    if ((s->parked & need) != 0 && s->parked_pc != pc)
        return sim_error_set(err, SIM_ERR_UNSUPPORTED, "%s:%u: unsupported: lanes of warp %u "
                             "wait at two different synchronizing instructions (this one and "
                             "the one at line %u) after independent thread scheduling split the "
                             "warp", r->m->path, x->line, pw->index, r->x[s->parked_pc].line);
    uint32_t here = s->parked_pc == pc ? *m | s->parked : *m;
    uint32_t others = need & ~here;
    bool elsewhere = false;      /* are they on a path that runs? */
    for (int i = 0; i < top && others != 0; i++)
        elsewhere = elsewhere || (pw->stk[i].mask & others) != 0;
    if (others == 0 || !elsewhere) {
        if (s->parked_pc == pc) {        /* those waiting go on with these */
            uint32_t path = pw->stk[top].mask;
            for (int i = 0; i < top; i++)    /* and reconverge where they do */
                if ((pw->stk[i].mask & path) == path)
                    pw->stk[i].mask |= s->parked;
            pw->stk[top].mask |= s->parked;
            *m |= s->parked;
            s->parked = 0;
            s->parked_pc = -1;
        }
        return 0;
    }
    s->parked |= *m;             /* they wait there for the others */
    s->parked_pc = pc;
    pw->sp--;
    for (int i = 0; i < pw->sp; i++)
        pw->stk[i].mask &= ~*m;
    return 1;
}

void
ptx_spin_unpark(struct pwarp *pw)
{
    pw->stk[pw->sp++] = (struct simt_entry){ pw->spin.parked_pc, -1, pw->spin.parked };
    pw->spin.parked = 0;
    pw->spin.parked_pc = -1;
}

/* Could a spinning warp of a running block give other lanes their turn? */
static bool
any_could_yield(const struct ptx_run *r)
{
    for (uint32_t slot = 0; slot < r->n_slots; slot++) {
        const struct pblock *b = &r->blocks[slot];
        for (uint32_t w = 0; b->allocated && w < r->wpb; w++) {
            struct pwarp *pw = &b->warps[w];
            if (pw->live && !pw->finished && pw->spin.state == 2 && its_yield(pw, false))
                return true;
        }
    }
    return false;
}

void
ptx_spin_reset(struct pwarp *pw)
{
    memset(&pw->spin, 0, sizeof pw->spin);
    pw->spin.pc = -1;
    pw->spin.parked_pc = -1;
}

int
ptx_spin_backedge(struct ptx_run *r, const struct pblock *b, struct pwarp *pw,
                  const struct xop *x, int32_t target, bool *yield, struct sim_error *err)
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
        if (r->cc >= 70) {               /* independent thread scheduling */
            if (s->yield_epoch != r->mem_epoch) {
                s->yield_epoch = r->mem_epoch;
                s->yields = 0;
            }
            if (s->yields < SPIN_MAX_YIELDS && its_yield(pw, false)) {
                s->yields++;
                s->pc = -1;              /* another path runs: start over */
                s->state = 0;
                *yield = true;
                return SIM_OK;
            }
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
                         r->cc != 0 && r->cc < 70 && any_could_yield(r)
                         ? " (lanes that could end it wait for their warp's spinning lanes "
                           "to reconverge: GPUs before compute capability 7.0 have no "
                           "independent thread scheduling)"
                         : SIM_UNTIMED(r->now) && r->n_blocks > 1 ? " (emulate runs one block "
                         "at a time: a block that waits for another finishes only under run)"
                         : "");
}
