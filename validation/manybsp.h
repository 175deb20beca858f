/*
 * manybsp.h - the closed-form Many-BSP model (seed 001: Riahi, Savadi,
 * Naghibzadeh, "Many-BSP: An Analytical Performance Model for CUDA
 * Kernels", Computing 106(5), 2024, supplementary report).
 *
 * Inputs are the model parameters of the report's table 1-8 and the
 * level-1 supersteps of one block (start ~ end, comp, comm, ovh,
 * iterations; tables x-3).  manybsp_eval() applies equations 4-6 and 10-26
 * and returns every intermediate quantity and the predicted
 * kernel_exec_cycle.  doc/manybsp.md states each equation, the rounding
 * conventions (chosen so that the nine worked cases of the report come out
 * as printed) and the inconsistencies of the report's own arithmetic.
 *
 * A case file (validation/cases/NAME.case) holds one worked case: see
 * manybsp_case_load().
 */
#ifndef SMSIM_VALIDATION_MANYBSP_H
#define SMSIM_VALIDATION_MANYBSP_H

#include <stdio.h>

#include "sim/error.h"
#include "sim/types.h"

#define MANYBSP_MAX_SSTEPS 256

/* Table 1-8.  Counts are plain numbers; cycles are core cycles. */
struct manybsp_params {
    double d;                    /* depth of the memory tree (Multi-BSP levels) */
    double n_c;                  /* cores per SM */
    double n_sm;                 /* SMs */
    double n_ws;                 /* warp schedulers per SM */
    double n_du;                 /* dispatch units per SM */
    double n_fu;                 /* functional-unit kinds (SP, DPU, SFU, LDST) */
    double warp_size;
    double n_b;                  /* blocks of the kernel */
    double n_t;                  /* threads per block */
    double h;                    /* PTX instructions of the kernel */
    double l;                    /* instructions executed by one thread */
    double l_c;                  /* of which computation */
    double l_m;                  /* of which memory accesses (communication) */
    double l_b;                  /* of which barriers */
    double g[3];                 /* g_0 .. g_2: latency added by each memory level, cycles */
    double mem_lat;              /* G_2 = g_0 + g_1 + g_2 (eq. 26), cycles */
    double warp_lnch_ovh;        /* cycles per warp */
    double block_lnch_ovh;       /* cycles per block */
    double issue_cycle;          /* cycles to issue one warp instruction */
    double max_thread_per_sm;
    double reg_per_thread;
    double shmem_size;           /* bytes per SM */
    double shmem_per_block;      /* bytes */
    double n_reg;                /* 32-bit registers per SM */
    double mu;                   /* block-level overlap cap of eq. 24/25 (see doc/manybsp.md) */
};

/* A level-1 superstep: instructions start..end, its costs for one block
 * (cycles), executed `iters` times. */
struct manybsp_sstep {
    uint32_t start, end;
    double comp, comm, ovh;
    uint32_t iters;
};

/* Figures the report printed that its own arithmetic does not produce;
 * when set (>= 0) they replace the computed value so that the report's
 * final figure is reproduced (the corrected figure is computed too). */
struct manybsp_overrides {
    double block_bar_ovh;        /* -1 = computed */
    double block_lnch_ovh;       /* -1 = the parameter */
    double block_exec_comp;      /* COMP term as added in eq. 4, -1 = COMP */
    double warp_comp;            /* -1 = computed */
};

struct manybsp_input {
    struct manybsp_params p;
    struct manybsp_sstep ss[MANYBSP_MAX_SSTEPS];
    uint32_t n_ss;
    double block_comm_delta;     /* the block's overlappable communication; < 0 = derive */
    struct manybsp_overrides ov;
};

/* Every quantity of equations 4-6 and 10-25. */
struct manybsp_result {
    double w;                    /* eq. 6: warps per scheduler */
    double parallel_comp;        /* eq. 10 */
    double block_bar_ovh;        /* eq. 11 */
    double block_comm;           /* eq. 12 */
    double block_comm_delta;
    double max_sum_overlapped;   /* eq. 13 */
    double min_nonoverlapped;    /* eq. 14 */
    double COMP;                 /* eq. 5 */
    double warp_comp;            /* COMP / w, rounded up */
    double warp_comm_delta;      /* block_comm_delta / w */
    double warps_need;           /* eq. 15 */
    double nonoverlapped;        /* eq. 17, rounded up */
    double block_exec_cycle;     /* eq. 4 */
    double comp;                 /* eq. 19 (all blocks alike) */
    double novlp;                /* eq. 20 */
    double rho;                  /* eq. 21 */
    double K;                    /* eq. 22 */
    double tau;                  /* eq. 23 */
    int equation;                /* 24 or 25 */
    double kernel_exec_cycle;    /* eq. 24/25, unrounded */
};

/* Evaluate the model.  Errors (SIM_ERR_FORMAT): no superstep, w = 0, ... */
int manybsp_eval(const struct manybsp_input *in, struct manybsp_result *r, struct sim_error *err);

/* Equation 27, in percent. */
double manybsp_error_pct(double measured, double predicted);

/* The warps_need of earlier models the report compares with (eq. 1-3). */
double manybsp_warps_need_eq1(double mem_lat, double inst_time, double alpha);
double manybsp_warps_need_eq2(double mem_lat, double inst_time, double alpha);
double manybsp_warps_need_eq3(double mem_lat, double alu_thru, double alpha, double alu_lat);

/* One worked case: the model's input plus what the report printed. */
struct manybsp_case {
    char name[128];
    struct manybsp_input in;
    double seed_kernel_exec_cycle;   /* the report's prediction, -1 if none */
    double measured;                 /* the report's measurement, -1 if held out */
    char note[1024];                 /* what the report's arithmetic gets wrong */
};

/* Load a case file: `key = value` lines (sim/kvfile.h): every field of
 * struct manybsp_params by its name (g0, g1, g2), `sstep = START END COMP
 * COMM OVH ITERS` per level-1 superstep in order, `block_comm_delta`,
 * `seed_kernel_exec_cycle`, `measured` (a number or `held-out`),
 * `override.<name>` and `note`.  Errors name file:line. */
int manybsp_case_load(const char *path, struct manybsp_case *c, struct sim_error *err);

/* Print every input and intermediate quantity, text or JSON. */
void manybsp_print(FILE *out, const struct manybsp_case *c, const struct manybsp_result *r,
                   const struct manybsp_result *corrected);
void manybsp_print_json(FILE *out, const struct manybsp_case *c, const struct manybsp_result *r,
                        const struct manybsp_result *corrected);

/* True if the case sets any override (then `corrected` is worth showing). */
bool manybsp_case_has_overrides(const struct manybsp_case *c);

#endif /* SMSIM_VALIDATION_MANYBSP_H */
