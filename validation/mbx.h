/*
 * mbx.h - Many-BSP extraction: from a kernel's instruction table (the
 * report's table x-1) to its BLOCK data structure (table x-2) and its
 * level-2 and level-1 supersteps (table x-3), steps 3 and 4 of seed 001.
 *
 * The rules (doc/manybsp.md, "Extraction") were recovered from the
 * report's nine worked cases; in short, with w warps per scheduler,
 * r = min(warp_size/T, latency) and k = w x n_ma:
 *  - Issue = w for SP instructions and barriers, w x warp_size / n_fu
 *    otherwise; two neighbours marked p that do not depend on each other
 *    issue together (the cheaper Issue is dropped);
 *  - an instruction costs latency + (k-1) r in its FU column when it is
 *    the first of the kernel, follows a barrier, uses the result of the
 *    instruction before it, or is the first use of a non-SP unit in its
 *    level-2 superstep; otherwise k r; global accesses cost no FU time but
 *    w x n_ma x mem_lat of communication; barriers add their overhead;
 *  - a level-2 superstep ends where the next instruction depends on this
 *    one, at a conditional branch, a global access, a barrier or a level-1
 *    boundary, and where equation 7 fails for a nearer-than-the-boundary
 *    consumer (equation 8 gives its sync); its cost is equation 9;
 *  - level-1 supersteps are cut before loop heads, after back edges and
 *    after loop exits; their iterations come from the execution profile.
 *
 * The module sees only plain data: the CLI builds the rows from the PTX
 * frontend's static listing, an execution profile and a device table.
 */
#ifndef SMSIM_VALIDATION_MBX_H
#define SMSIM_VALIDATION_MBX_H

#include <stdio.h>

#include "sim/error.h"
#include "sim/types.h"
#include "validation/manybsp.h"

/* Functional units of the report (FU_1..FU_4) and the barrier ("MI"). */
enum mbx_fu { MBX_SP, MBX_DPU, MBX_SFU, MBX_LDST, MBX_BAR, MBX_FU_COUNT };

/* One row of table x-1. */
struct mbx_row {
    char text[64];               /* mnemonic, for the tables */
    uint32_t line;               /* source line */
    uint8_t fu;                  /* enum mbx_fu */
    double n_fu;                 /* units of that FU per warp scheduler */
    double T;                    /* threads per cycle per warp scheduler */
    double lat;                  /* computation latency, cycles */
    double bar_ovh;              /* barrier overhead, cycles (barriers) */
    double n_ma;                 /* memory transactions per warp access (memory rows) */
    bool global;                 /* global access served by L2/DRAM: communication */
    bool load;                   /* a load (for block_comm_delta) */
    bool branch, cond_branch;    /* control transfer; guarded */
    int32_t target;              /* branch target row, -1 */
    int32_t u;                   /* first later row reading this row's result, -1 */
    bool p;                      /* may dual-issue with the next row */
    double count;                /* executions per warp (profile), for iterations */
    bool l1_cut;                 /* input: a level-1 boundary after this row that no rule
                                  * gives (the report's KNN cut after its guard) */
};

/* Parameters of the extraction. */
struct mbx_params {
    double w;                    /* warps per scheduler (eq. 6) */
    double warp_size;
    double mem_lat;              /* G_2 */
};

/* One row of table x-2. */
struct mbx_cell {
    double issue;                /* 0 when dual-issued with its partner */
    char form;                   /* 'L' latency form, 'I' throughput form, 0 no FU cost */
    double cost;                 /* in the column of the row's FU */
    double comm, ovh, sync;
    int32_t partner;             /* dual-issue partner row, -1 */
};

struct mbx_superstep {
    uint32_t start, end;         /* rows, inclusive, 0-based */
    double comp, comm, ovh;
    double comm_loads;           /* communication of global loads (block_comm_delta) */
    uint32_t iters;              /* level 1 only */
};

struct mbx_result {
    struct mbx_cell *cell;       /* n rows */
    struct mbx_superstep *l2, *l1;
    uint32_t n_l2, n_l1;
};

/* Build tables x-2 and x-3 from the rows.  Errors: empty table. */
int mbx_extract(const struct mbx_row *rows, uint32_t n, const struct mbx_params *p,
                struct mbx_result *r, struct sim_error *err);
void mbx_result_free(struct mbx_result *r);

/* Fill in->ss and in->block_comm_delta from the level-1 supersteps. */
int mbx_to_input(const struct mbx_result *r, struct manybsp_input *in, struct sim_error *err);

/* Print tables x-1, x-2 and x-3 (text). */
void mbx_print(FILE *out, const struct mbx_row *rows, uint32_t n, const struct mbx_result *r);

/* The first later row reading a register row i writes, for every row: u_i.
 * dst/src: per row up to 8 register ids (ids < 65536), -1 terminated. */
void mbx_first_uses(const int32_t (*dst)[8], const int32_t (*src)[8], uint32_t n, int32_t *u);

const char *mbx_fu_name(unsigned fu);

#endif /* SMSIM_VALIDATION_MBX_H */
