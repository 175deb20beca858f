/*
 * sample.h - sampled simulation of a kernel's blocks (smsim run --sample).
 *
 * A kernel whose blocks behave alike runs in waves: once the GPU is full,
 * every retirement lets the next block in, and the work the GPU does per
 * cycle settles to a rate that changes slowly if at all (it drifts as the
 * L2 fills with the kernel's data, as DRAM write-backs start).  The
 * sampler measures that rate over windows of one wave (as many
 * retirements as the GPU holds blocks: core cycles and warp instructions
 * issued by all SMs in them).  Once the rate is steady (the mean of the
 * last `windows` or more windows after the first, the warm-up, known to
 * tol / 2, and their older and newer halves within tol of each other:
 * find_steady() in sample.c), the blocks not yet dispatched,
 * less the last `tail_waves` waves, are covered by systematic sampling:
 * up to `chunks` runs of whole waves are skipped, one simulated window
 * between each two, and the tail is simulated.  A skipped block is run
 * functionally (sim/ffwd.h: a PTX kernel's outputs are still computed,
 * and its warp instructions counted), and the global-memory accesses of
 * a run's last blocks (enough to move twice the L2's capacity: sim.c
 * warm_tail) warm the L1s and the L2 (mem_warm(): SMARTS's functional
 * warming), so the windows after a skip find the caches as the skipped
 * blocks left them.  A skipped run
 * of I warp instructions takes
 *
 *     I x (c_before + c_after) / 2 cycles
 *
 * where c is cycles per warp instruction of the simulated window just
 * before it and of the second one after it (a drift in between is taken
 * as linear).  The first window after a skip is a transition: the blocks
 * still resident from before the skip finish beside blocks from after
 * it, with the L2 as the skipped blocks left it, which is not how any
 * stretch of the full simulation runs; its cycles are re-timed at the
 * rate of the window after it (`settle`, taken off the cycles
 * simulated), and a window between two runs is two windows.  Skipped
 * time is added to the cycles simulated.  This is
 * the wave-level block sampling of PKA (Avalos Baddouh et al., MICRO
 * 2021) and Photon (Liu et al., MICRO 2023), with SMARTS's systematic
 * sampling and warming (Wunderlich et al., ISCA 2003), extrapolating by
 * instructions, not blocks, so skipped blocks that do more or less work
 * than the measured ones are weighted by it.
 *
 * A kernel is simulated in full (sampled = false, and `why` says why) when
 * it has fewer than `min_waves` waves, when its windows never agree (the
 * blocks do not behave alike: data-dependent trip counts, a frontier that
 * grows), or when too few blocks are left once they do.
 *
 * The stated interval around the estimate adds, per skipped run:
 *   - drift: I x |c_before - c_after| / 2 (the rate's path in between is
 *     not known; linear is the estimate, a step either way the bounds);
 *   - noise: the run's cycles x max(sqrt(2) s, tol / 2), s the
 *     windows' relative standard deviation (a single window's rate is
 *     known to about s; the mean of two to s / sqrt(2), at 2 sigma), and
 *     the re-timed transition window's cycles x 2 s, all summed over runs
 *     in quadrature (runs measure independently); s is estimated from
 *     every window after the warm-up, from the differences of successive
 *     ones (robust to a slow drift, and not only the windows that
 *     happened to agree);
 *   - work mix: the run's cycles x |its warp instructions per block / the
 *     windows' around it - 1| (blocks unlike the ones measured may run at
 *     another rate);
 *   - transition: the size of each transition window's re-timing (the
 *     transition may last longer than the one window re-timed, or less);
 * and once, for the tail simulated after the last run: its warp
 * instructions x |c_after - c_before| of that run (whether the rate
 * after it moved because the kernel's did or because the state the skip
 * left is not the full simulation's, the tail ran in that state).
 * Everything is in core cycles and warp instructions.
 */
#ifndef SMSIM_SIM_SAMPLE_H
#define SMSIM_SIM_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/types.h"

#define SAMPLE_MAX_WINDOWS 16u
#define SAMPLE_MAX_CHUNKS 64u

struct sample_params {
    uint32_t min_waves;          /* kernels of fewer waves are simulated in full */
    uint32_t windows;            /* fewest windows the steady rate comes from, 2 .. 16 */
    uint32_t tail_waves;         /* waves at the end always simulated */
    uint32_t chunks;             /* at most this many skipped runs, 1 .. SAMPLE_MAX_CHUNKS */
    double tol;                  /* steady: mean rate to tol / 2, halves within tol */
};

enum sample_state {
    SAMPLE_OFF,                  /* simulated in full (why says why) */
    SAMPLE_MEASURING,            /* looking for the steady state */
    SAMPLE_PENDING,              /* blocks [skip_lo, skip_hi) skipped when next dispatched */
    SAMPLE_SETTLE,               /* a run was skipped: the window after it (a transition) */
    SAMPLE_GAP,                  /* the window after that: the rate after the run */
    SAMPLE_DONE                  /* every run skipped and measured: the tail */
};

struct sample_chunk {
    uint64_t blocks, insts;      /* skipped */
    double c_before, c_after;    /* cycles per warp instruction around it */
    double ipb_before, ipb_after;   /* warp instructions per retirement around it */
    double settle_cyc, settle_ins;  /* the transition window after it */
};

struct sampler {
    struct sample_params p;
    enum sample_state state;
    uint64_t n_blocks, wave;
    /* the window being measured */
    uint64_t win_left;           /* retirements until it closes */
    sim_cycle_t win_t0;
    uint64_t win_i0;
    uint32_t n_win;              /* windows closed, the first (warm-up) included */
    double w_cyc[SAMPLE_MAX_WINDOWS], w_ins[SAMPLE_MAX_WINDOWS];   /* ring of the last ones */
    double last_c, last_ipb;     /* the last closed window's */
    /* the plan */
    double rel_sd;               /* the windows' relative standard deviation */
    double ss_diff;              /* sum of squared relative differences of successive windows */
    uint32_t n_diff;
    uint64_t run_blocks;         /* blocks per skipped run (whole waves) */
    uint32_t n_chunks, cur;      /* runs planned; the current one */
    uint64_t skip_lo, skip_hi;   /* the current run's blocks */
    struct sample_chunk ch[SAMPLE_MAX_CHUNKS];
    uint64_t skipped;            /* blocks skipped in all */
    uint64_t tail_i0;            /* warp instructions issued when the last run's rate
                                  * after it was measured (the simulated tail starts) */
    char why[96];
};

struct sample_result {
    bool sampled;
    uint64_t blocks_skipped, insts_skipped;
    uint32_t runs;               /* skipped runs */
    double cycles_skipped;       /* estimated */
    double rel_sd;               /* the windows' relative standard deviation used */
    double half_drift, half_noise, half_mix;   /* the interval's terms, cycles */
    double half_tail;            /* the tail's term (below) */
    double settle;               /* cycles taken off the transition windows (may be < 0) */
    double half_settle;          /* the sum of their sizes: the interval's fourth term */
    uint64_t simulated;          /* cycles simulated in detail */
    uint64_t cycles, lo, hi;     /* simulated + skipped, and the interval (all = simulated
                                  * when not sampled) */
};

/* Start watching a kernel of n_blocks blocks on a GPU holding `wave` at
 * once; the kernel starts at `start` with `insts` warp instructions issued
 * so far (all SMs).  enabled false: OFF. */
void sample_begin(struct sampler *sp, const struct sample_params *p, bool enabled,
                  uint64_t n_blocks, uint64_t wave, sim_cycle_t start, uint64_t insts);
/* A simulated block retired at cycle t with `insts` warp instructions
 * issued so far; next_block is the next block to dispatch.  May decide to
 * skip (state PENDING: the run [skip_lo, skip_hi), skip_lo == next_block,
 * is skipped when next_block is next dispatched). */
void sample_retired(struct sampler *sp, sim_cycle_t t, uint64_t insts, uint64_t next_block);
/* A block of the current run was skipped; it ran `insts` warp
 * instructions.  The run's last one moves the state to GAP. */
void sample_skipped_block(struct sampler *sp, uint64_t insts);
/* The kernel's estimate given the cycles simulated in detail and the warp
 * instructions issued (all SMs, the same count as sample_retired's) at
 * its end. */
void sample_result(const struct sampler *sp, uint64_t simulated, uint64_t insts_end,
                   struct sample_result *r);

#endif /* SMSIM_SIM_SAMPLE_H */
