/*
 * evq.h - the discrete-event queue: the simulator's one event loop.
 *
 * Events are ordered by (cycle, priority, seq) where seq is a monotonically
 * increasing insertion counter, so the order never depends on pointer values
 * or hashing: the same inputs always give the same event order.  An event
 * may never be scheduled in the past.  Cancellation is done by the owner
 * (a stale event checks a generation counter and returns), never by heap
 * removal.  The heap grows by doubling; after warm-up it does not allocate.
 */
#ifndef SMSIM_SIM_EVQ_H
#define SMSIM_SIM_EVQ_H

#include "sim/types.h"

/* Priority tiers within one cycle, lowest first. */
enum evq_pri {
    EVQ_PRI_LAUNCH = 0,          /* kernel / block launches */
    EVQ_PRI_TICK = 1,            /* SM cycles */
    EVQ_PRI_STATS = 2,           /* sampling, progress */
    EVQ_PRI_EXIT = 3             /* end-of-run checks */
};

typedef void (*evq_fn)(void *ctx, sim_cycle_t now, uint64_t arg);

typedef struct evq evq;

evq *evq_new(size_t initial_capacity);
void evq_destroy(evq *q);

/* Schedule fn(ctx, when, arg) at cycle `when` (>= the current cycle). */
void evq_schedule(evq *q, sim_cycle_t when, enum evq_pri pri, evq_fn fn, void *ctx, uint64_t arg);

/* Cycle of the earliest pending event, SIM_CYCLE_MAX if none. */
sim_cycle_t evq_next_cycle(const evq *q);

/* Pop and run the earliest event; returns false if the queue is empty.
 * The current cycle becomes that event's cycle. */
bool evq_run_one(evq *q);

/* Priority of the event evq_run_one() would run next (queue not empty). */
enum evq_pri evq_next_pri(const evq *q);

/* The cycle of the event being run (or last run). */
sim_cycle_t evq_now(const evq *q);

/* Set the current cycle (only forward; used between kernels). */
void evq_set_now(evq *q, sim_cycle_t now);

size_t evq_size(const evq *q);

#endif /* SMSIM_SIM_EVQ_H */
