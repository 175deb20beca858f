/*
 * ptxas.h - what ptxas -v reports for a kernel: registers per thread, the
 * stack frame, spills (for `regs = auto` in launch files).
 *
 * ptxas is run once per PTX file and target (ptxas -arch=sm_XX -v) and
 * its report cached under $SMSIM_CACHE_DIR (default
 * $XDG_CACHE_HOME/smsim, else ~/.cache/smsim), keyed by the xxHash of the
 * file's contents and the target, so a later run needs no ptxas.  Which
 * ptxas: $SMSIM_PTXAS when set ("none": no ptxas at all), else `ptxas`
 * on PATH.
 */
#ifndef SMSIM_FRONTEND_PTXAS_H
#define SMSIM_FRONTEND_PTXAS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/error.h"

struct ptxas_info {
    uint32_t regs;               /* registers per thread */
    uint32_t stack;              /* bytes of stack frame (local arrays, spills) */
    uint32_t spill_stores, spill_loads;   /* bytes */
};

/* Is a ptxas available (the cache aside)? */
bool ptxas_available(void);

/* The report of ptxas for `kernel` in the PTX file at ptx_path, compiled
 * for sm_<sm>: from the cache, else by running ptxas.  Returns SIM_OK;
 * 1 when the report is not cached and no ptxas is available; a negative
 * error when ptxas fails (its first message lines quoted) or does not
 * report the kernel. */
int ptxas_kernel_info(const char *ptx_path, const char *kernel, unsigned sm,
                      struct ptxas_info *out, struct sim_error *err);

/* The same for device function func (regs is 0: ptxas reports registers
 * per kernel). */
int ptxas_function_info(const char *ptx_path, const char *func, unsigned sm,
                        struct ptxas_info *out, struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTXAS_H */
