/*
 * smt_layout.h - byte layout constants and little-endian helpers shared by
 * the .smt reader (smt.c) and writer (smt_writer.c).  Private to frontend/.
 * The layout itself is specified in doc/trace-format.md.
 */
#ifndef SMSIM_FRONTEND_SMT_LAYOUT_H
#define SMSIM_FRONTEND_SMT_LAYOUT_H

#include <string.h>
#include <xxhash.h>
#include "sim/types.h"

#define SMT_MAGIC "SMSIMTRC"
#define TAG_KERN "KERN"
#define TAG_BLCK "BLCK"
#define TAG_CHNK "CHNK"
#define TAG_FEND "FEND"
#define CHUNK_HDR 48u
#define CHUNK_NEXT_OFF 40u
#define FEND_LEN 32u
#define KERN_FIXED 92u
#define BLCK_FIXED 32u
#define BLCK_WARP 20u
#define MAX_HDR (1u << 20)
#define MAX_WARPS_PER_BLOCK (SIM_MAX_THREADS_PER_BLOCK / SIM_WARP_SIZE)

/* ---- little-endian helpers ------------------------------------------- */

static inline void smt_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void smt_put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline void smt_put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline uint16_t smt_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t smt_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t smt_get64(const uint8_t *p) { return (uint64_t)smt_get32(p) | (uint64_t)smt_get32(p + 4) << 32; }

static inline uint64_t
smt_hash(const void *p, size_t n)
{
    return XXH3_64bits(p, n);
}

/* True when a stored checksum matches the computed one.  Fuzzing builds
 * (-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, set by tests/fuzz/run.sh)
 * accept any checksum so the fuzzer reaches the parsing behind it; the
 * reader must stay safe on any bytes either way. */
static inline bool
smt_sum_ok(uint64_t stored, uint64_t computed)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    (void)stored;
    (void)computed;
    return true;
#else
    return stored == computed;
#endif
}

/* Checksum of a chunk: header bytes [0, 32) then the payload. */
static inline uint64_t
smt_chunk_hash(const uint8_t *hdr, const uint8_t *payload, size_t n)
{
    uint64_t h1 = XXH3_64bits(hdr, 32);
    return XXH3_64bits_withSeed(payload, n, h1);
}

#endif /* SMSIM_FRONTEND_SMT_LAYOUT_H */
