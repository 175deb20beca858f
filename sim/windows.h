/*
 * windows.h - per-window issue statistics (seed 000: the FP32 CUDA-core
 * bound per window of K dynamic warp instructions).
 *
 * Fed with every issued warp instruction (sim_observer.on_issue), it cuts
 * consecutive windows of K instructions per SM and GPU-wide and reports
 * for each: the cycles it spans, N_warp_fp32 (FP32 and FP32-FMA warp
 * instructions), theta (their mean active-lane fraction), m_FMA (the FMA
 * share of them), f_fp32 (their share of all K), u_issue (FP32 issue slots
 * used / available in the window's cycles), Phi = theta x C_fp32 x (1 +
 * m_FMA) and Phi_hat = u_issue x f_fp32 x Phi in FLOPs/cycle, and the
 * utilisation of every pipe and of every scheduler.
 *
 * C_fp32 is the FP32 lanes of one SM (pipe.sp.lanes x sm.subpartitions),
 * of the whole GPU for GPU-wide windows.  A pipe's utilisation is the
 * pipe-cycles its instructions occupy (32 / lanes each) over the window's
 * cycles times the sub-partitions (times the SMs, GPU-wide); a
 * scheduler's is its issued instructions over cycles x dispatch units.
 *
 * A window's cycles run from the cycle after the previous window of its
 * scope closed (the kernel's start cycle for the first) to the cycle its
 * K-th instruction issued, so stalls between instructions are charged to
 * the window they delay and the windows of a scope tile the kernel; when
 * several windows close in one cycle the later ones span that one cycle.
 * The last window of a kernel may hold fewer than K instructions.
 *
 * Besides the seed's bound, each row carries the FLOPs/cycle the window
 * achieved: active FP32 lanes x (1 + FMA) over its cycles.
 */
#ifndef SMSIM_SIM_WINDOWS_H
#define SMSIM_SIM_WINDOWS_H

#include "sim/config.h"
#include "sim/inst.h"

#define WINDOWS_MAX_SCHED 8

struct window_row {
    bool gpu;                    /* GPU-wide window (else one SM's) */
    uint32_t sm;                 /* the SM (per-SM windows) */
    uint32_t kernel;             /* kernel index */
    uint64_t index;              /* window number within its scope and kernel */
    sim_cycle_t first, last;     /* its first cycle (see above) and the cycle its last
                                    instruction issued */
    uint64_t insts;              /* warp instructions (K, or fewer for the last) */
    uint64_t n_fp32;             /* N_warp_fp32 */
    double theta, m_fma, f_fp32, u_issue;
    double c_fp32;               /* FP32 lanes of the scope */
    double phi, phi_hat;         /* FLOPs/cycle: the bound and the extended bound */
    double flops;                /* FLOPs/cycle achieved */
    double u_pipe[SIM_PIPE_COUNT];
    double u_sched[WINDOWS_MAX_SCHED];  /* per scheduler (per-SM windows) */
    uint32_t n_sched;
};

typedef struct windows windows;
typedef void (*windows_emit_fn)(void *ctx, const struct window_row *row);

/* Windows of k instructions; rows go to emit as they close. */
windows *windows_new(const struct sim_config *cfg, uint64_t k, windows_emit_fn emit, void *ctx);
void windows_destroy(windows *w);

/* A kernel starts at cycle start (its windows are numbered from 0). */
void windows_kernel_begin(windows *w, sim_cycle_t start);

/* One issued warp instruction.  sched >= the SM's schedulers: GPU-wide
 * only (per-SM accounting skipped). */
void windows_issue(windows *w, uint32_t sm, uint32_t sched, sim_cycle_t cycle,
                   const struct warp_inst *wi);

/* End of a kernel: emit the partial windows. */
void windows_kernel_end(windows *w);

/* The seed-000 formulas. */
double windows_phi(double c_fp32, double theta, double m_fma);
double windows_phi_hat(double u_issue, double f_fp32, double phi);

#endif /* SMSIM_SIM_WINDOWS_H */
