/*
 * sass_decoded.h - a SASS mnemonic decoded (plain data): what sass_isa.c
 * makes of a mnemonic and what sass_regs.c reads to size its operands, so
 * that neither needs the other's header.
 */
#ifndef SMSIM_FRONTEND_SASS_DECODED_H
#define SMSIM_FRONTEND_SASS_DECODED_H

#include <stdint.h>

/* Memory space column of the tables. */
enum sass_mem {
    SASS_MEM_NONE, SASS_MEM_GLOBAL, SASS_MEM_SHARED, SASS_MEM_LOCAL, SASS_MEM_CONST,
    SASS_MEM_GENERIC,            /* resolved per access from the kernel's window bases */
    SASS_MEM_TEX
};

/* A full mnemonic, decoded. */
struct sass_decoded {
    uint16_t op;                 /* index of the opcode in its ISA's table */
    uint8_t opclass;             /* enum sim_opclass, after modifiers */
    uint8_t mem;                 /* enum sass_mem */
    uint8_t flags;               /* SIM_IF_* (model flags), after modifiers */
    uint8_t width;               /* bytes per lane from a width modifier, 0 if none */
    uint8_t units;               /* SIM_OPC_TENSOR_DP: the warp_inst aux (sim/inst.h), else 0 */
};

#endif /* SMSIM_FRONTEND_SASS_DECODED_H */
