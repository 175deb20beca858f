/*
 * ptx_decode.h - prepare a PTX kernel for execution (private to frontend/).
 *
 * ptx_decode_kernel() (after ptx_mem_layout(), which places the memory)
 * turns each PTX instruction into a struct xop
 * with register-file slots, and assigns what the timing model sees: the
 * opcode class, memory space and width, flags and register ids.
 */
#ifndef SMSIM_FRONTEND_PTX_DECODE_H
#define SMSIM_FRONTEND_PTX_DECODE_H

#include "frontend/exec/ptx_run.h"

int ptx_decode_kernel(struct ptx_run *r, struct sim_error *err);

/* The timing register id of slot s, when it is an ordinary register
 * (false for a constant or special register). */
bool ptx_decode_reg_id(const struct ptx_run *r, const struct slot *s, uint16_t *id);

#endif /* SMSIM_FRONTEND_PTX_DECODE_H */
