/*
 * ptx_opclass.h - the timing class of a PTX instruction (private to
 * frontend/exec/).
 */
#ifndef SMSIM_FRONTEND_PTX_OPCLASS_H
#define SMSIM_FRONTEND_PTX_OPCLASS_H

#include "frontend/ptx/ptx_ir.h"

/* The enum sim_opclass of instruction in: by its opcode, types and
 * modifiers (an unknown one: int). */
unsigned ptx_opclass_of(const struct ptx_ins *in);

/* True for the clock and timer special registers (%clock, %clock64,
 * %clock_hi, %globaltimer and its halves). */
bool ptx_opclass_sreg_is_clock(unsigned s);

#endif /* SMSIM_FRONTEND_PTX_OPCLASS_H */
