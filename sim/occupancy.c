/*
 * occupancy.c - the occupancy rules (see occupancy.h).
 */
#include "sim/occupancy.h"

#include <string.h>

static uint32_t
round_up(uint32_t x, uint32_t unit)
{
    return unit ? (x + unit - 1) / unit * unit : x;
}

const char *
occupancy_limiter_name(enum occ_limiter l)
{
    static const char *const names[] = { "blocks", "warps", "threads", "registers",
                                         "shared_memory" };
    return l < OCC_LIMIT_COUNT ? names[l] : "?";
}

int
occupancy_compute(const struct sim_config *c, uint32_t tpb, uint32_t regs, uint32_t smem,
                  struct occ_result *r, struct sim_error *err)
{
    memset(r, 0, sizeof *r);
    if (tpb == 0 || tpb > c->sm_max_threads_per_block)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "a block of %u threads cannot launch (sm.max_threads_per_block = %u)",
                             tpb, c->sm_max_threads_per_block);
    if (regs > c->sm_max_regs_per_thread)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%u registers per thread exceed sm.max_regs_per_thread = %u", regs,
                             c->sm_max_regs_per_thread);
    r->threads_per_block = tpb;
    r->warps_per_block = (tpb + SIM_WARP_SIZE - 1) / SIM_WARP_SIZE;
    r->limit[OCC_LIMIT_BLOCKS] = c->sm_max_blocks;
    r->limit[OCC_LIMIT_WARPS] = c->sm_max_warps / r->warps_per_block;
    r->limit[OCC_LIMIT_THREADS] = c->sm_max_threads / tpb;

    /* registers: per warp, rounded to the allocation unit; each sub-partition
     * holds a whole number of warps */
    r->regs_per_warp = round_up(regs * SIM_WARP_SIZE, c->sm_reg_alloc_unit);
    if (r->regs_per_warp == 0) {
        r->limit[OCC_LIMIT_REGISTERS] = UINT32_MAX;
    } else {
        uint32_t per_block = r->regs_per_warp * round_up(r->warps_per_block, c->sm_subpartitions);
        if (per_block > c->sm_max_regs_per_block)
            return sim_error_set(err, SIM_ERR_FORMAT,
                                 "a block of %u threads at %u registers per thread needs %u "
                                 "registers (sm.max_regs_per_block = %u)", tpb, regs, per_block,
                                 c->sm_max_regs_per_block);
        uint32_t warps_per_sub = (c->sm_registers / c->sm_subpartitions) / r->regs_per_warp;
        r->limit[OCC_LIMIT_REGISTERS] = warps_per_sub * c->sm_subpartitions / r->warps_per_block;
    }

    /* shared memory */
    r->smem_per_block = round_up(smem + c->sm_smem_reserved, c->sm_smem_alloc_unit);
    if (smem > c->sm_smem_per_block || r->smem_per_block > c->sm_smem_size)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "%u bytes of shared memory per block exceed the limit "
                             "(sm.smem_per_block = %u, sm.smem_size = %u)", smem,
                             c->sm_smem_per_block, c->sm_smem_size);
    r->limit[OCC_LIMIT_SMEM] = r->smem_per_block ? c->sm_smem_size / r->smem_per_block : UINT32_MAX;

    /* on a tie the limiter named is the first of: block slots, thread
     * slots (as the CUDA documentation words it), warp slots, registers,
     * shared memory */
    static const enum occ_limiter order[OCC_LIMIT_COUNT] = {
        OCC_LIMIT_BLOCKS, OCC_LIMIT_THREADS, OCC_LIMIT_WARPS, OCC_LIMIT_REGISTERS, OCC_LIMIT_SMEM
    };
    r->blocks_per_sm = UINT32_MAX;
    for (int i = 0; i < OCC_LIMIT_COUNT; i++) {
        enum occ_limiter l = order[i];
        if (r->limit[l] < r->blocks_per_sm) {
            r->blocks_per_sm = r->limit[l];
            r->limiter = l;
        }
    }
    if (r->blocks_per_sm == 0)
        return sim_error_set(err, SIM_ERR_FORMAT,
                             "no block of %u threads, %u registers/thread and %u bytes of shared "
                             "memory fits on an SM (limited by %s)", tpb, regs, smem,
                             occupancy_limiter_name(r->limiter));
    if (r->blocks_per_sm > SIM_MAX_BLOCKS_PER_SM)
        r->blocks_per_sm = SIM_MAX_BLOCKS_PER_SM;
    r->active_warps = r->blocks_per_sm * r->warps_per_block;
    r->occupancy = (double)r->active_warps / (double)c->sm_max_warps;
    return SIM_OK;
}

uint32_t
occupancy_carveout_kb(const struct sim_config *c, const struct occ_result *r)
{
    uint32_t carve[32];
    struct sim_error err;
    uint64_t need = (uint64_t)r->blocks_per_sm * r->smem_per_block;

    if (c->l1_unified_kb == 0 || need == 0)
        return 0;
    int n = config_carveouts(c, carve, SIM_ARRAY_LEN(carve), &err);
    for (int i = 0; i < n; i++)
        if ((uint64_t)carve[i] * 1024 >= need)
            return carve[i];
    return n > 0 ? carve[n - 1] : 0;
}

uint64_t
occupancy_l1_bytes(const struct sim_config *c, const struct occ_result *r)
{
    uint64_t l1 = (uint64_t)c->l1_size_kb * 1024;
    if (c->l1_unified_kb != 0) {
        uint64_t left = ((uint64_t)c->l1_unified_kb - occupancy_carveout_kb(c, r)) * 1024;
        if (left < l1)
            l1 = left;
    }
    return l1;
}
