/*
 * mbdev.h - Many-BSP device descriptions: per PTX instruction, the
 * functional unit, units per warp scheduler (n_fu), throughput per warp
 * scheduler (T) and latency, as the report's tables 1-2..1-7 give them for
 * the GTX 760, 940MX and GTX 1070 (validation/devices/<gpu>.mbd).
 *
 * For an instruction no pattern covers, and for GPUs without a file, the
 * values come from the GPU config: the opcode class's latency and pipe,
 * T = min(warp_size, lanes of that pipe per sub-partition), shared-memory,
 * L1 and DRAM latencies, and the barrier latency as its overhead.
 */
#ifndef SMSIM_VALIDATION_MBDEV_H
#define SMSIM_VALIDATION_MBDEV_H

#include "sim/config.h"
#include "sim/error.h"
#include "validation/mbx.h"

#define MBDEV_MAX_OPS 128

struct mbdev_op {
    char pattern[32];            /* leading mnemonic components, e.g. "ld.global" */
    uint8_t fu;                  /* enum mbx_fu */
    double n_fu, T, lat;
};

struct mbdev {
    struct mbdev_op op[MBDEV_MAX_OPS];
    uint32_t n_op;
    double bar_nt[8], bar_ovh[8];  /* barrier overhead by threads per block */
    uint32_t n_bar;
    double l1_hit_latency;
    const struct sim_config *cfg;  /* the fallback */
    char path[512];                /* the file read, or "" */
};

/* Start from the config alone (no file). */
void mbdev_init(struct mbdev *d, const struct sim_config *cfg);

/* Read a device file; errors name file:line. */
int mbdev_load(struct mbdev *d, const char *path, struct sim_error *err);

/* FU, n_fu, T and latency of an instruction: mnemonic as written in the
 * PTX, its opcode class, and whether it reads %tid/%ctaid (mov.sreg).
 * Memory: global accesses get the DRAM latency (communication), shared
 * ones the shared-memory latency. */
void mbdev_lookup(const struct mbdev *d, const char *mnemonic, unsigned opclass, unsigned space,
                  bool store, struct mbx_row *row);

/* Overhead of a block barrier for n_t threads per block. */
double mbdev_bar_ovh(const struct mbdev *d, double n_t);

/* Latency of a global load served by L1. */
double mbdev_l1_latency(const struct mbdev *d);

#endif /* SMSIM_VALIDATION_MBDEV_H */
