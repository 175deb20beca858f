/*
 * ptx_parse_ins.h - the PTX parser's bodies and instructions
 * (ptx_parse_ins.c), for ptx_parse.c.  Private to the parser.
 */
#ifndef SMSIM_FRONTEND_PTX_PARSE_INS_H
#define SMSIM_FRONTEND_PTX_PARSE_INS_H

#include "frontend/ptx/ptx_parse_decl.h"

/* A body from its '{' to its '}'. */
int ptx_parse_body(struct parser *ps);
/* A call's operands (after the mnemonic) into ps->k->calls; ins->target =
 * its index.  SIM_OK, an error, or PARSE_SKIPPED (an unsupported form). */
int ptx_parse_call(struct parser *ps, struct ptx_ins *ins);

#endif /* SMSIM_FRONTEND_PTX_PARSE_INS_H */
