/*
 * async.h - asynchronous-copy groups as every frontend gives them to the
 * timing model (PTX cp.async, SASS LDGSTS / LDGDEPBAR / DEPBAR.LE).
 *
 * A warp's copies are numbered into groups: group g is the copies issued
 * after the g-th commit (cp.async.commit_group, LDGDEPBAR) and before the
 * next.  Each copy of group g writes the accumulating register
 * (sim/types.h) ASYNC_REG + g % ASYNC_SLOTS; several copies in flight may
 * write it, and it is ready when the last of them has landed.  A wait for
 * "all committed groups but the newest N" (cp.async.wait_group N,
 * DEPBAR.LE SB0, N) reads the registers of those groups.  With more than
 * ASYNC_SLOTS groups in flight, groups share registers: a wait may then
 * wait longer than it must, never shorter.
 *
 * Invariant: the PTX and the SASS frontends use these same ids, so a
 * kernel's PTX and its SASS trace time their copies alike and an exported
 * trace reads back with the registers it had.
 */
#ifndef SMSIM_FRONTEND_ASYNC_H
#define SMSIM_FRONTEND_ASYNC_H

#include <stdint.h>

#include "sim/types.h"

#define ASYNC_SLOTS 8u                       /* registers (groups in flight told apart) */
#define ASYNC_REG SIM_REG_ACC_BASE           /* the first of them */

/* Bulk groups (cp.async.bulk.commit_group, .wait_group N: a warp's bulk
 * copies from shared to global memory) work alike with registers of their
 * own, the next ASYNC_SLOTS accumulating registers. */
#define BULK_REG (ASYNC_REG + ASYNC_SLOTS)

/* wgmma groups (wgmma.commit_group, .wait_group N; SASS HGMMA ... gsb0,
 * WARPGROUP.DEPBAR.LE gsb0, N: a warp's warpgroup MMAs) likewise, the
 * ASYNC_SLOTS accumulating registers after those. */
#define WGMMA_REG (BULK_REG + ASYNC_SLOTS)

/* True if register id r is one of the group registers. */
static inline bool
async_is_reg(unsigned r)
{
    return r >= ASYNC_REG && r < ASYNC_REG + 3 * ASYNC_SLOTS;
}

/* The register the copies of group g write. */
static inline uint16_t
async_reg(uint32_t g)
{
    return (uint16_t)(ASYNC_REG + g % ASYNC_SLOTS);
}

/* The register the bulk copies of bulk group g write. */
static inline uint16_t
bulk_reg(uint32_t g)
{
    return (uint16_t)(BULK_REG + g % ASYNC_SLOTS);
}

/* True if register id r is one of the wgmma group registers. */
static inline bool
wgmma_is_reg(unsigned r)
{
    return r >= WGMMA_REG && r < WGMMA_REG + ASYNC_SLOTS;
}

/* The register the warpgroup MMAs of wgmma group g write. */
static inline uint16_t
wgmma_reg(uint32_t g)
{
    return (uint16_t)(WGMMA_REG + g % ASYNC_SLOTS);
}

/* Append to list (*n entries, room for max) the registers a wait for all
 * of `committed` groups but the newest `keep` reads, oldest group first
 * (at most ASYNC_SLOTS: the groups older than that share their registers
 * with newer ones); first: ASYNC_REG (cp.async groups), BULK_REG or WGMMA_REG. */
static inline void
async_group_wait_regs(uint16_t first, uint32_t committed, uint32_t keep, uint16_t *list,
                      uint8_t *n, unsigned max)
{
    uint32_t lo = committed > ASYNC_SLOTS ? committed - ASYNC_SLOTS : 0;
    for (uint32_t k = lo; k + keep < committed && *n < max; k++)
        list[(*n)++] = (uint16_t)(first + k % ASYNC_SLOTS);
}

/* The same for cp.async groups. */
static inline void
async_wait_regs(uint32_t committed, uint32_t keep, uint16_t *list, uint8_t *n, unsigned max)
{
    async_group_wait_regs(ASYNC_REG, committed, keep, list, n, max);
}

#endif /* SMSIM_FRONTEND_ASYNC_H */
