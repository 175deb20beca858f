/*
 * synth.h - synthetic kernels generated on the fly (no input file).
 *
 * A spec "NAME[:key=value,...]" selects a kernel shape; instructions are
 * computed from (block, warp, step) when asked for, so a synthetic trace of
 * any length costs no memory.  Opcode names follow SASS (sm_70 style) so the
 * streams read naturally in dumps and exports.
 *
 *   saxpy  blocks, threads, iters, alu      grid-stride y = a*x + y (the
 *          shape of ../shared/tools/gen_accelsim_trace.py)
 *   fma    blocks, threads, n, ilp          n FFMAs per thread in ilp
 *          independent dependency chains
 *   copy   blocks, threads, iters, width    grid-stride copy, width = 4/8/16
 *                                           bytes per lane
 */
#ifndef SMSIM_FRONTEND_SYNTH_H
#define SMSIM_FRONTEND_SYNTH_H

#include <stdio.h>
#include "sim/inst.h"

/* Open a synthetic kernel as an instruction source. */
int synth_source_open(const char *spec, struct inst_source *src, struct sim_error *err);

/* Print the kernel shapes and their parameters (for --help). */
void synth_print_help(FILE *out);

#endif /* SMSIM_FRONTEND_SYNTH_H */
