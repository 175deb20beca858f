/*
 * ptxgen.h - random PTX kernels for differential testing (tests/difftest.c).
 *
 * ptxgen_generate() writes, from a 64-bit seed, one valid, terminating
 * PTX kernel (ISA 9.0, .target sm_90, .address_size 64, as nvcc writes it)
 * and a launch file for it (doc/launch-format.md).  The kernel exercises
 * every class of instruction the PTX frontend executes -- integer, float
 * and half-precision arithmetic, conversions, compares, predicates and
 * guards, global, shared and local memory, atomics, warp operations,
 * barriers and device-function calls -- in straight-line code, counted
 * and data-dependent loops and divergent if/else (doc/robustness.md).
 *
 * Invariants of every program (what makes two executions comparable):
 *  - deterministic: each thread writes only its own words of `out` and
 *    `scr`; shared memory written by one thread is read by another only
 *    between two bar.sync; atomics on words several threads update are
 *    integer operations whose final value does not depend on their order
 *    (add, and, or, xor, min, max) and their results are not read; no
 *    %clock, no uninitialised register, shared or local word is read;
 *  - terminating: every loop has a trip count of at most 5 (a uniform one
 *    from the parameter `n` or an immediate, or a per-thread one from
 *    data), which a break can only shorten, and at most two loops nest;
 *  - observable: every register is folded into the thread's `out` words at
 *    the end, so a wrong value anywhere changes the output bytes.
 * The same seed gives the same text on every host.
 */
#ifndef SMSIM_TESTS_PTXGEN_H
#define SMSIM_TESTS_PTXGEN_H

#include <stddef.h>
#include <stdint.h>

/* One generated program. */
struct ptxgen_prog {
    char *ptx;                   /* the PTX module text (NUL-terminated) */
    size_t ptx_len;              /* bytes of ptx */
    char *launch;                /* the launch file's text; it names the PTX "k.ptx" */
    size_t launch_len;           /* bytes of launch */
};

/* Generate the program of seed into *p (free with ptxgen_free). */
void ptxgen_generate(uint64_t seed, struct ptxgen_prog *p);

void ptxgen_free(struct ptxgen_prog *p);

#endif /* SMSIM_TESTS_PTXGEN_H */
