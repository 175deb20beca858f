/*
 * fatbin.h - the PTX in a CUDA fat binary, as nvcc embeds it in a program
 * (the .nv_fatbin section a __cudaRegisterFatBinary wrapper points at).
 *
 * Layout (little-endian; observed in nvcc 12-13 output and described by
 * public reverse-engineering notes such as cuda-fatbin-decompression):
 * a 16-byte container header
 *     u32 magic 0xBA55ED50, u16 version 1, u16 header bytes, u64 bytes that follow
 * then entries, each a header of at least 64 bytes
 *     u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header bytes,
 *     u64 payload bytes (padded), u32 compressed bytes, u32 -,
 *     u16 minor, u16 major (PTX ISA version), u32 arch (sm_NN: NN),
 *     u32 name offset, u32 name bytes, u64 flags, u64 -, u64 uncompressed bytes
 * and its payload.  flags 0x2000: an LZ4 block, 0x8000: a Zstandard
 * frame (nvcc -compress-mode speed / default), else the text as is.
 */
#ifndef SMSIM_CUDART_FATBIN_H
#define SMSIM_CUDART_FATBIN_H

#include <stddef.h>

#define FATBIN_MAGIC 0xBA55ED50u

/* The PTX in the fat binary at data (at most `avail` bytes readable; 0: its
 * header says) best for a GPU of compute capability cc x 10: the highest
 * PTX arch <= cc.  *text (malloc'd, NUL-terminated), *len, *arch.
 * Returns 0; else -1 with a message in why (none fits, a malformed or
 * undecompressable entry). */
int fatbin_ptx(const void *data, size_t avail, unsigned cc, char **text, size_t *len,
               unsigned *arch, char *why, size_t why_len);

#endif /* SMSIM_CUDART_FATBIN_H */
