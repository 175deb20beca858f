/*
 * smt.h - the .smt native trace container (spec: doc/trace-format.md).
 *
 * A .smt file holds the dynamic warp-instruction streams of one or more
 * kernels.  Each warp's stream is split into zlib-compressed chunks that
 * carry an XXH3-64 checksum and link to the warp's next chunk, so a reader
 * can follow every resident warp independently: memory is bounded by the
 * resident blocks (one decoded chunk per warp), never by the trace length.
 * Every header has its own checksum; a corrupt or truncated file is an
 * error naming the byte offset.
 */
#ifndef SMSIM_FRONTEND_SMT_H
#define SMSIM_FRONTEND_SMT_H

#include <stdio.h>
#include "sim/inst.h"
#include "sim/error.h"

#define SMT_VERSION_MAJOR 1
#define SMT_VERSION_MINOR 7
#define SMT_DEFAULT_CHUNK 4096u          /* uncompressed chunk payload target, bytes */
#define SMT_MAX_CHUNK (16u << 20)        /* largest chunk a reader accepts */

/* True if the file starts with the .smt magic. */
bool smt_sniff(const char *path);

/* ---- reading ---------------------------------------------------------- */

/* Open a .smt file as an instruction source (streaming). */
int smt_source_open(const char *path, struct inst_source *src, struct sim_error *err);

/* Totals found by smt_verify(). */
struct smt_totals {
    uint64_t bytes;              /* file size */
    uint32_t kernels;
    uint64_t blocks;
    uint64_t warps;              /* warps with at least one instruction */
    uint64_t chunks;
    uint64_t warp_insts;
    uint64_t thread_insts;       /* sum of active-lane counts */
    uint64_t raw_bytes;          /* uncompressed record bytes */
};

/* Check every header and chunk (checksums, decompression, every record,
 * chunk chains, counts).  Returns SIM_OK and fills *tot, or a negative
 * error naming the byte offset of the first problem. */
int smt_verify(const char *path, struct smt_totals *tot, struct sim_error *err);

/* Print the file header and every kernel header with its counts (reads
 * headers only). */
int smt_info(const char *path, FILE *out, struct sim_error *err);

/* Print records as text, one per line.  Negative filters mean "all". */
struct smt_dump_opts {
    int64_t kernel;              /* kernel index */
    int64_t block;               /* linear block id */
    int64_t warp;                /* warp in block */
    uint64_t limit;              /* stop after this many records (0 = no limit) */
};
int smt_dump(const char *path, FILE *out, const struct smt_dump_opts *opts,
             struct sim_error *err);

#endif /* SMSIM_FRONTEND_SMT_H */
