/*
 * smtrec.h - encoding of one warp instruction as a variable-length .smt
 * record (the uncompressed payload of a chunk).  See doc/trace-format.md.
 *
 * Records are delta-coded against the previous record of the same warp
 * (PC, active mask), so a codec state lives per warp and is reset at the
 * start of every chunk: each chunk decodes on its own.
 */
#ifndef SMSIM_FRONTEND_SMTREC_H
#define SMSIM_FRONTEND_SMTREC_H

#include "sim/inst.h"

/* Largest encoded record: header, pc, opcode, class, flags, mask, regs,
 * aux, memory header and 32 list-mode addresses of 10 bytes each. */
#define SMTREC_MAX_BYTES 512

/* Per-warp delta state, reset at each chunk start. */
struct smtrec_state {
    uint32_t pc;                 /* PC of the previous record */
    uint32_t mask;               /* active mask of the previous record */
};

void smtrec_reset(struct smtrec_state *st);

/* Encode wi into out (at least SMTREC_MAX_BYTES); returns the length.
 * Precondition: wi passed smtrec_check(). */
size_t smtrec_encode(struct smtrec_state *st, const struct warp_inst *wi, uint8_t *out);

/* Decode one record from [p, end) into wi.  Returns the number of bytes
 * consumed, or 0 if the record is malformed or runs past end (what is
 * wrong is written to why). */
size_t smtrec_decode(struct smtrec_state *st, const uint8_t *p, const uint8_t *end,
                     struct warp_inst *wi, const char **why);

/* Check that wi can be stored (field ranges); returns NULL or a reason. */
const char *smtrec_check(const struct warp_inst *wi);

#endif /* SMSIM_FRONTEND_SMTREC_H */
