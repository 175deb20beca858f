/*
 * ptx_replay.h - replaying a CUDA program's functional launches that
 * repeat an earlier one (`smsim exec`; lib/smsim_program.c).
 *
 * Benchmark loops launch the same kernel with the same arguments on the
 * same data again and again ("100 identical iterations").  A functional
 * launch is a deterministic function of its kernel, launch shape,
 * parameters and the program's memory (the untimed %clock is a count of
 * the warp's own instructions), so a launch that finds all of these as an
 * earlier functional launch found them would write what it wrote: its
 * writes are made again instead of executing it, and its work counted
 * again.  Exact, not an estimate: the memory after a replay is byte for
 * byte what executing the launch would leave.
 *
 * The memory's fingerprint covers every region of the program (cudaMalloc
 * allocations, mapped host memory, module variables; freed regions by
 * their place and kind): its place, size, kind and an XXH3 hash of its
 * bytes.  A recorded launch keeps the bytes of the regions it changed.
 * Kernels that may call printf, assert, malloc, free or
 * cudaGraphSetConditional are never replayed (their effects are not all
 * in memory); a launch key that has
 * missed PTX_REPLAY_GIVE_UP times without a hit is no longer
 * fingerprinted (its launches each find new data: a solver, a BFS).
 * Recorded bytes are held to PTX_REPLAY_BUDGET, oldest dropped first.
 */
#ifndef SMSIM_FRONTEND_PTX_REPLAY_H
#define SMSIM_FRONTEND_PTX_REPLAY_H

#include "frontend/exec/ptx_prog.h"

#define PTX_REPLAY_BUDGET (UINT64_C(256) << 20)   /* bytes of recorded writes */
#define PTX_REPLAY_GIVE_UP 16u

/* What a launch did besides writing memory: the totals of its emulation
 * and what it added to the program's counters. */
struct ptx_replay_work {
    uint64_t kernels, blocks, warp_insts;
    struct ptx_counters cnt;
};

struct ptx_replay;

struct ptx_replay *ptx_replay_new(void);
void ptx_replay_free(struct ptx_replay *rp);

/* Before a functional launch of module mod's kernel `kernel` whose launch
 * (kernel, shape, parameters, ...) hashes to key: 1 when a recorded launch matches, whose
 * writes are then made and whose work is *w; 0 when none does and the
 * launch is to run (ptx_replay_end records it); -1 when the launch is not
 * considered (its kernel's calls, or a key given up on). */
int ptx_replay_begin(struct ptx_replay *rp, struct ptx_prog *p, uint32_t mod, const char *kernel,
                     uint64_t key, struct ptx_replay_work *w);
/* After the launch ptx_replay_begin returned 0 for: ok (it ran without
 * error) records it with its work *w. */
void ptx_replay_end(struct ptx_replay *rp, struct ptx_prog *p, bool ok,
                    const struct ptx_replay_work *w);

#endif /* SMSIM_FRONTEND_PTX_REPLAY_H */
