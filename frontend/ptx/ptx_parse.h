/*
 * ptx_parse.h - read a PTX file into a struct ptx_module.
 *
 * Accepts PTX as nvcc emits it (ISA 6.x-9.x, and the older 4.x/5.x of
 * seed 001's listings): module directives, .entry kernels and .func
 * device functions with .param, .reg, .shared, .local declarations,
 * module-scope .global/.const/.shared data, labels, predicated
 * instructions, vector and memory operands, calls.  Anything it does not
 * support (an unknown instruction or modifier, a texture) is an error
 * naming the file and line: for the body holding it when it is an
 * instruction (ptx_kernel.unsupported), else for the module.
 */
#ifndef SMSIM_FRONTEND_PTX_PARSE_H
#define SMSIM_FRONTEND_PTX_PARSE_H

#include "frontend/ptx/ptx_ir.h"
#include "sim/error.h"

/* Parse path.  On success *out owns the module (free with
 * ptx_module_free) and every branch target is resolved. */
int ptx_parse_file(const char *path, struct ptx_module **out, struct sim_error *err);

/* Parse PTX text held in memory; name is used in messages. */
int ptx_parse_text(const char *name, const char *text, size_t len, struct ptx_module **out,
                   struct sim_error *err);

#endif /* SMSIM_FRONTEND_PTX_PARSE_H */
