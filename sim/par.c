/*
 * par.c - fork-join worker pool (see par.h).
 *
 * A run is published by bumping `gen`; each worker runs fn once per
 * generation and decrements `pending`; par_run() spins until it is 0.
 * Waiting is busy for SPIN_POLLS polls, then yields the CPU at each poll
 * (so that an oversubscribed machine still makes progress), and a worker
 * that sees no new generation for YIELD_POLLS more sleeps on a condition
 * variable.  Lost wake-ups are impossible because both sides use
 * sequentially consistent atomics: the caller bumps gen, then reads
 * sleepers; a worker increments sleepers (under the mutex), then re-reads
 * gen before it waits.
 */
#include "sim/par.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sim/error.h"

#define SPIN_POLLS 100000        /* busy polls (some 100 microseconds: many cycles' work) */
#define YIELD_POLLS 2000         /* then polls that yield the CPU, before a worker sleeps */

struct worker {
    par *pool;
    uint32_t k;
    pthread_t th;
};

struct par {
    uint32_t n;
    struct worker *w;            /* [n]; w[0] is the caller */
    par_fn fn;
    void *ctx;
    atomic_uint_fast64_t gen;    /* generation of the current run */
    atomic_uint pending;         /* workers (other than 0) still running it */
    atomic_uint sleepers;
    atomic_bool stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* One busy poll.  Deliberately not the x86 PAUSE instruction: under a
 * hypervisor with pause-loop exiting (a Firecracker VM here) a PAUSE loop
 * gets the virtual CPU descheduled, and a hand-over took 16-50 us instead
 * of about 1 us. */
static inline void
cpu_relax(void)
{
    __asm__ __volatile__("" ::: "memory");
}

/* One poll of a wait that has lasted `polls` polls. */
static inline void
backoff(unsigned polls)
{
    if (polls < SPIN_POLLS)
        cpu_relax();
    else
        sched_yield();
}

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    par *p = w->pool;
    uint64_t seen = 0;

    for (;;) {
        unsigned spins = 0;
        while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop)) {
            if (++spins < SPIN_POLLS + YIELD_POLLS) {
                backoff(spins);
                continue;
            }
            pthread_mutex_lock(&p->mu);
            atomic_fetch_add(&p->sleepers, 1);
            while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->cv, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop))
            return NULL;
        seen = atomic_load(&p->gen);
        p->fn(p->ctx, w->k, p->n);
        atomic_fetch_sub(&p->pending, 1);
    }
}

static void
wake_sleepers(par *p)
{
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

par *
par_new(uint32_t n_threads)
{
    par *p = xcalloc(1, sizeof *p);
    p->n = n_threads ? n_threads : 1;
    p->w = xcalloc(p->n, sizeof *p->w);
    atomic_init(&p->gen, 0);
    atomic_init(&p->pending, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->stop, false);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (uint32_t k = 1; k < p->n; k++) {
        p->w[k].pool = p;
        p->w[k].k = k;
        if (pthread_create(&p->w[k].th, NULL, worker_main, &p->w[k]) != 0)
            SIM_PANIC("cannot start worker thread %u of %u", k, p->n);
    }
    return p;
}

void
par_destroy(par *p)
{
    if (p == NULL)
        return;
    atomic_store(&p->stop, true);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t k = 1; k < p->n; k++)
        pthread_join(p->w[k].th, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->w);
    free(p);
}

uint32_t
par_threads(const par *p)
{
    return p->n;
}

void
par_run(par *p, par_fn fn, void *ctx)
{
    if (p->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    atomic_store(&p->pending, p->n - 1);
    atomic_fetch_add(&p->gen, 1);
    wake_sleepers(p);
    fn(ctx, 0, p->n);
    for (unsigned polls = 0; atomic_load(&p->pending) != 0; polls++)
        backoff(polls);
}
