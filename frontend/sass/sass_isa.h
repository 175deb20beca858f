/*
 * sass_isa.h - NVIDIA SASS instruction sets: what each opcode means to the
 * timing model (doc/sass-opcodes.md).
 *
 * One X-macro table per instruction set as NVIDIA's CUDA Binary Utilities
 * groups them (frontend/sass_<isa>.def): Kepler, Maxwell/Pascal, Volta,
 * Turing, Ampere/Ada, Hopper.  A trace names its ISA by the SASS "binary
 * version" (sm number: 35, 61, 70, ...); its opcodes are always decoded
 * with that ISA's table, whatever GPU config it is simulated on.
 *
 * A full mnemonic is the opcode followed by '.'-separated modifiers
 * (`LDG.E.128.STRONG.GPU`).  The opcode selects the table entry; the
 * modifiers refine it: a 64-bit type on a conversion makes it a 64-bit
 * conversion, a width token gives the bytes per lane of a memory access,
 * `.STRONG.GPU`/`.STRONG.SYS` (Volta and later) and `.CG`/`.CV` (earlier)
 * make a global access bypass L1.
 */
#ifndef SMSIM_FRONTEND_SASS_ISA_H
#define SMSIM_FRONTEND_SASS_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "frontend/sass/sass_decoded.h"
#include "sim/inst.h"

/* Instruction sets.  ORDER ISA (names in sass_isa.c). */
enum sass_isa {
    SASS_KEPLER,
    SASS_MAXWELL,                /* Maxwell and Pascal */
    SASS_VOLTA,
    SASS_TURING,
    SASS_AMPERE,                 /* Ampere and Ada */
    SASS_HOPPER,
    SASS_ISA_COUNT
};

/* Flags column of the tables. */
#define SF_LOAD    (1u << 0)
#define SF_STORE   (1u << 1)
#define SF_ATOMIC  (1u << 2)
#define SF_BARRIER (1u << 3)
#define SF_EXIT    (1u << 4)
#define SF_BRANCH  (1u << 5)
#define SF_FENCE   (1u << 6)

/* One table entry. */
struct sass_op {
    const char *name;            /* opcode as the disassembler prints it */
    uint8_t opclass;             /* enum sim_opclass */
    uint8_t mem;                 /* enum sass_mem */
    uint8_t flags;               /* SF_* */
    const char *help;
};

/* The ISA of a SASS binary version (30..37 Kepler, 50..62 Maxwell/Pascal,
 * 70/72 Volta, 75 Turing, 80/86/87/89 Ampere/Ada, 90 Hopper), or -1. */
int sass_isa_of_version(unsigned binary_version);

/* A representative binary version of an ISA (35, 61, 70, 75, 86, 90). */
unsigned sass_isa_version(int isa);

const char *sass_isa_name(int isa);

/* Table access. */
size_t sass_isa_count(int isa);
const struct sass_op *sass_isa_op(int isa, size_t i);

/* Index of opcode name[0, len) in the ISA's table, or -1. */
int sass_isa_find(int isa, const char *name, size_t len);

/* Decode mnemonic[0, len) (opcode + modifiers).  Returns 0, or -1 if the
 * opcode is not in the table. */
int sass_decode(int isa, const char *mnemonic, size_t len, struct sass_decoded *out);

/* The pipes Nsight Compute counts a SASS instruction in
 * (smsp__inst_executed_pipe_<name>; Volta and later), for comparing
 * instruction mixes with its measurements.  ORDER NPIPE (names in
 * sass_isa.c). */
enum sass_npipe {
    SASS_NPIPE_NONE,             /* none of the five (uniform, branch, constant loads, ...) */
    SASS_NPIPE_FMA,              /* FP32 arithmetic, IMAD, VIADD, HFMA2 */
    SASS_NPIPE_ALU,              /* integer add/logic/shift/compare/select, moves, I2FP */
    SASS_NPIPE_FP64,             /* DADD, DMUL, DFMA, DSETP */
    SASS_NPIPE_XU,               /* MUFU, conversions (F2F, F2I, I2F), FCHK */
    SASS_NPIPE_LSU,              /* loads, stores, atomics to L1TEX, S2R, SHFL */
    SASS_NPIPE_COUNT
};

/* The Nsight Compute pipe of mnemonic[0, len) in ISA `isa` (NONE for an
 * unknown opcode or an ISA before Volta). */
unsigned sass_npipe_of(int isa, const char *mnemonic, size_t len);
const char *sass_npipe_name(unsigned npipe);

/* Register counts[SASS_NPIPE_COUNT] (warp instructions per pipe, index
 * NONE unused) as the statistics sass.inst_pipe_<name>: the SASS-level
 * instruction mix of a run, whichever frontend produced it. */
void sass_register_npipe_stats(stats *st, const uint64_t *counts);

/* Write into buf (size n) a mnemonic of ISA `isa` that sass_decode() turns
 * back into the same class, flags, space and width as wi: the opcode is
 * `base` when given and present in the table (a trace's own opcode), else
 * a representative opcode of wi's class and memory kind; modifiers carry
 * the width, L1 bypass and 64-bit conversion.  A generic-address opcode
 * (RED on Volta) may stand for a global access: the writer must declare
 * shared and local windows that hold none of its addresses.  Returns 0; 1 if the
 * mnemonic only approximates wi (IEEE divide, reciprocal and square root,
 * which SASS builds from MUFU and FFMAs, are written as MUFU: class sfu
 * when read back); -1 (with *why) if the ISA has no opcode for wi. */
int sass_encode(int isa, const struct warp_inst *wi, const char *base, char *buf, size_t n,
                const char **why);

#endif /* SMSIM_FRONTEND_SASS_ISA_H */
