/*
 * accelsim.h - Accel-Sim / NVBit SASS traces (doc/trace-format.md,
 * "Accel-Sim traces").
 *
 * Reading: accelsim_source_open() takes a kernelslist.g (several kernels,
 * MemcpyHtoD lines) or a single kernel-N.traceg[.xz] and returns a
 * streaming instruction source: each thread block's section is parsed when
 * the model opens that block and kept, compactly encoded, until the block
 * retires, so memory is bounded by the resident blocks, not the file.
 * Opcodes are decoded with the table of the trace's own SASS version
 * (frontend/sass_isa.h), so a trace runs on any GPU config.
 *
 * Writing: accelsim_export() writes any instruction source (a .smt file,
 * PTX, ...) as an Accel-Sim trace directory that Accel-Sim itself reads.
 */
#ifndef SMSIM_FRONTEND_ACCELSIM_H
#define SMSIM_FRONTEND_ACCELSIM_H

/* Register ids of the SASS register files as the reader gives them to the
 * model (and the exporter names them back): R0..R254 are 0..254, UR0..UR62
 * 256..318, P0..P6 320..326, UP0..UP6 328..334 (RZ, URZ, PT and UPT are
 * no dependence and are dropped).  AS_REG_PRED.. are implicit predicates:
 * NVBit's tracer lists only R registers, not the guard a branch reads, so
 * the reader makes each compare that writes predicates (class setp) write
 * the next of AS_REG_PREDS ids in rotation (no false write-after-write
 * between compares) and each BRA and EXIT read the latest: the dependence
 * the SASS has on nearly every conditional branch.  The exporter does not
 * write them, nor the async-copy group registers (frontend/async.h) that
 * LDGSTS writes and DEPBAR.LE reads, which it writes as the tracer does
 * (no destination; the immediate). */
#define AS_REG_UR 256u
#define AS_REG_P 320u
#define AS_REG_UP 328u
#define AS_REG_PRED 336u
#define AS_REG_PREDS 8u

#include <stdio.h>

#include "sim/error.h"
#include "sim/inst.h"

/* What to do with an opcode the trace's ISA table does not know. */
enum accelsim_unknown {
    ACCELSIM_UNKNOWN_ERROR,      /* exit 2 naming the line and opcode (default) */
    ACCELSIM_UNKNOWN_ALU         /* simulate as an integer ALU instruction, counted */
};

struct accelsim_opts {
    int unknown;                 /* enum accelsim_unknown */
};

/* True if path looks like an Accel-Sim trace: a directory holding
 * kernelslist.g, or a file named kernelslist.g, *.traceg or *.traceg.xz. */
bool accelsim_sniff(const char *path);

/* Open a trace (path as accepted by accelsim_sniff). */
int accelsim_source_open(const char *path, const struct accelsim_opts *opts,
                         struct inst_source *src, struct sim_error *err);

/* Register the reader's counters in a statistics registry without a trace
 * (for the generated statistics reference). */
void accelsim_register_doc_stats(stats *st);

struct accelsim_export_opts {
    unsigned binary_version;     /* SASS version to write; 0 = the source's own
                                  * if it is SASS, else 70 (Volta) */
};

struct accelsim_export_totals {
    uint32_t kernels;
    uint64_t warp_insts;
    uint64_t approximated;       /* instructions written as a MUFU (IEEE div/rcp/sqrt) */
    uint64_t regs_folded;        /* register ids of no trace register file, written modulo 255 */
    uint64_t regs_dropped;       /* destinations beyond the first, sources beyond the fourth */
    uint64_t async_approx;       /* async copies and waits that read back waiting otherwise:
                                    written for an instruction set without LDGSTS (a plain
                                    load, a wait on nothing), or PTX's wait_all (a commit and
                                    a wait in one instruction; read back, it does not wait
                                    for the group it commits) */
};

/* Write every kernel of src into directory dir (created if missing):
 * kernelslist.g and kernel-N.traceg, Accel-Sim tracer format 5.  Files are
 * written to temporaries and renamed, so a failure leaves no partial
 * trace. */
int accelsim_export(struct inst_source *src, const char *dir,
                    const struct accelsim_export_opts *opts,
                    struct accelsim_export_totals *tot, struct sim_error *err);

#endif /* SMSIM_FRONTEND_ACCELSIM_H */
