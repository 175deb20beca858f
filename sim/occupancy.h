/*
 * occupancy.h - how many blocks of a kernel fit on one SM.
 *
 * The rules of NVIDIA's occupancy calculator (cuda_occupancy.h, CUDA 13):
 * a block needs ceil(threads/32) warps; registers are allocated per warp,
 * regs/thread x 32 rounded up to sm.reg_alloc_unit, and the register file
 * is split evenly among the sub-partitions, each holding a whole number of
 * warps; shared memory per block is static + dynamic + sm.smem_reserved,
 * rounded up to sm.smem_alloc_unit.  The block scheduler and `smsim
 * occupancy` use this same code.
 */
#ifndef SMSIM_SIM_OCCUPANCY_H
#define SMSIM_SIM_OCCUPANCY_H

#include "sim/config.h"

enum occ_limiter {
    OCC_LIMIT_BLOCKS,            /* sm.max_blocks */
    OCC_LIMIT_WARPS,             /* sm.max_warps */
    OCC_LIMIT_THREADS,           /* sm.max_threads */
    OCC_LIMIT_REGISTERS,         /* sm.registers */
    OCC_LIMIT_SMEM,              /* sm.smem_size */
    OCC_LIMIT_COUNT
};

struct occ_result {
    uint32_t threads_per_block;
    uint32_t warps_per_block;
    uint32_t regs_per_warp;      /* registers allocated per warp */
    uint32_t smem_per_block;     /* bytes allocated per block (with reservation) */
    uint32_t limit[OCC_LIMIT_COUNT]; /* blocks per SM allowed by each resource */
    uint32_t blocks_per_sm;      /* min of limit[] */
    enum occ_limiter limiter;    /* the resource that sets blocks_per_sm */
    uint32_t active_warps;       /* blocks_per_sm x warps_per_block */
    double occupancy;            /* active_warps / sm.max_warps */
};

/* Compute occupancy.  smem_bytes = static + dynamic shared memory per
 * block.  Returns SIM_ERR_FORMAT (with the reason) if not even one block
 * fits: too many threads, registers or too much shared memory. */
int occupancy_compute(const struct sim_config *cfg, uint32_t threads_per_block,
                      uint32_t regs_per_thread, uint32_t smem_bytes, struct occ_result *r,
                      struct sim_error *err);

const char *occupancy_limiter_name(enum occ_limiter l);

/* Shared-memory carve-out (KB) the driver picks for a kernel that keeps
 * blocks_per_sm blocks of r resident: the smallest configured carve-out
 * that holds them (unified L1 configs); 0 if none is needed. */
uint32_t occupancy_carveout_kb(const struct sim_config *cfg, const struct occ_result *r);

/* L1 data cache bytes left for a kernel with occupancy r. */
uint64_t occupancy_l1_bytes(const struct sim_config *cfg, const struct occ_result *r);

#endif /* SMSIM_SIM_OCCUPANCY_H */
