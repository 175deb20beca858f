/*
 * ptx.h - the PTX frontend: run a kernel described by a launch file.
 *
 * ptx_source_open() reads the launch file (frontend/launch.h), parses its
 * PTX, finds the kernel, lays out memory and decodes the kernel, and
 * returns an execution-driven instruction source: each next_inst() call
 * executes the warp's next instruction functionally and describes it to
 * the model.  After the run, ptx_source_write_outputs() writes the buffers
 * the launch file names.
 */
#ifndef SMSIM_FRONTEND_PTX_H
#define SMSIM_FRONTEND_PTX_H

#include "frontend/launch.h"
#include "sim/inst.h"

int ptx_source_open(const char *launch_path, struct inst_source *src, struct sim_error *err);

/* Is src a PTX source? */
bool ptx_source_is(const struct inst_source *src);

/* The launch description (buffers and their contents) of a PTX source. */
const struct launch *ptx_source_launch(const struct inst_source *src);

/* Write the launch file's `output` buffers (see launch_write_outputs for
 * outdir, which may be NULL).  A no-op for other sources. */
int ptx_source_write_outputs(const struct inst_source *src, const char *outdir,
                             struct sim_error *err);

/* Warp instructions executed so far. */
uint64_t ptx_source_executed(const struct inst_source *src);

#endif /* SMSIM_FRONTEND_PTX_H */
