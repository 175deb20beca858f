/*
 * types.h - fixed-width unit types and hard limits shared by every module.
 *
 * Simulated time, addresses and counters are always 64-bit unsigned; PCs
 * and active masks are 32-bit.  The limits below size the flat per-SM
 * arrays; the config parser rejects values that would exceed them, so the
 * model never has to check them on the per-cycle path.
 */
#ifndef SMSIM_SIM_TYPES_H
#define SMSIM_SIM_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <inttypes.h>

typedef uint64_t sim_cycle_t;   /* core-clock cycles */
typedef uint64_t sim_addr_t;    /* byte address in a simulated memory space */

#define SIM_CYCLE_MAX UINT64_MAX
/* Timing addresses from here up are host memory the GPU reaches over the
 * host link (zero-copy: pinned and registered host memory a kernel reads
 * or writes): no L1 or L2 holds them, and each access crosses the link
 * (mem.c).  Frontends put such memory there; nothing else is. */
#define SIM_SYSMEM_BASE ((sim_addr_t)1 << 56)
#define SIM_WARP_SIZE 32u                /* threads per warp (all NVIDIA GPUs) */

#define SIM_MAX_SMS             1024u    /* sm.count upper bound */
#define SIM_MAX_SUBPARTITIONS   8u       /* warp schedulers per SM */
#define SIM_MAX_WARPS_PER_SM    64u      /* resident warps per SM */
#define SIM_MAX_BLOCKS_PER_SM   32u      /* resident thread blocks per SM */
#define SIM_MAX_THREADS_PER_BLOCK 1024u
#define SIM_MAX_GRID_BLOCKS     0x7fffffffu  /* blocks per kernel (grid x*y*z): every frontend
                                              * rejects a larger grid (exit 2) before sizing
                                              * anything by it */
#define SIM_MAX_DST             4u       /* destination registers per instruction */
#define SIM_MAX_SRC             12u      /* source registers per instruction (an HMMA.16816
                                            reads 4 + 2 + 4 registers, and its guard) */
#define SIM_MAX_REGS            65536u   /* register ids are < this (16-bit ids) */
/* Accumulating registers, ids [SIM_REG_ACC_BASE, SIM_MAX_REGS): what the
 * SASS scoreboard's dependency barriers (SB0-SB5) are to the hardware.
 * Several instructions in flight may write one (a write waits for no
 * earlier write of it: no WAW stall), and it is ready when the last of
 * its pending writes is; an instruction that reads it waits for all of
 * them.  Frontends use them for cp.async groups (LDGSTS, LDGDEPBAR,
 * DEPBAR.LE) and other waits on several memory operations at once. */
#define SIM_REG_ACC_COUNT       64u
#define SIM_REG_ACC_BASE        (SIM_MAX_REGS - SIM_REG_ACC_COUNT)

#define SIM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Set bits of a 32-bit mask (active lanes, sectors).  Without -mpopcnt
 * __builtin_popcount is a call into libgcc's table routine; the SWAR form
 * is a dozen inline operations. */
static inline unsigned
sim_popc32(uint32_t m)
{
#ifdef __POPCNT__
    return (unsigned)__builtin_popcount(m);
#else
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    m = (m + (m >> 4)) & 0x0f0f0f0fu;
    return (m * 0x01010101u) >> 24;
#endif
}

#endif /* SMSIM_SIM_TYPES_H */
