/*
 * par.h - a fork-join pool of worker threads for the per-cycle work of the
 * SMs (smsim run -j N).
 *
 * par_run() hands one function to every worker and returns when all have
 * finished it: a synchronisation point.  The caller's thread is worker 0,
 * so a pool of one thread runs everything inline and starts no thread.
 * Cycles are short (microseconds), so waiting workers spin for a while
 * before they sleep; the pool adds no ordering of its own: what the
 * workers compute must not depend on which worker runs what, which is how
 * smsim's results stay byte-identical for every N.
 */
#ifndef SMSIM_SIM_PAR_H
#define SMSIM_SIM_PAR_H

#include <stdint.h>

typedef struct par par;

/* fn(ctx, k, n): the share of worker k of n (0 <= k < n). */
typedef void (*par_fn)(void *ctx, uint32_t k, uint32_t n);

/* A pool of n_threads threads in all (the caller's included; 1 = none
 * started).  Exits the program (exit 3) if threads cannot be started. */
par *par_new(uint32_t n_threads);
void par_destroy(par *p);
uint32_t par_threads(const par *p);

/* Run fn on every worker, the caller being worker 0; returns when all
 * have returned.  Not reentrant; one caller thread. */
void par_run(par *p, par_fn fn, void *ctx);

#endif /* SMSIM_SIM_PAR_H */
