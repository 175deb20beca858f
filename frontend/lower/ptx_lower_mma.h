/*
 * ptx_lower_mma.h - the SASS operations of the tensor-core instructions on
 * sm_90 (private to frontend/ptx_lower*.c).
 *
 * An mma.sync is one HMMA/IMMA; a wmma.mma one per tile of its fragments
 * (ptx_mma.h: M / 16 x N / 8 tiles), each reading its tile's A, B and C
 * registers and writing its D registers; a wmma.load or wmma.store one
 * memory operation per part of ptxas's split of the fragment
 * (ptx_mma_parts: LDG.E, LDG.E.64, LDS, LDSM.16.M88.4, STG.E, ...), each
 * moving its own registers; ldmatrix and stmatrix one LDSM / STSM.  The
 * mnemonics are the ones the wmma_gemm and mma_tf32_chain listings show
 * (shared/measured/h100/sass/modern_modern.sass) and their family for the
 * other types and shapes.
 */
#ifndef SMSIM_FRONTEND_PTX_LOWER_MMA_H
#define SMSIM_FRONTEND_PTX_LOWER_MMA_H

#include "frontend/lower/ptx_lower_emit.h"
#include "frontend/exec/ptx_mma.h"

/* Append the operations of tensor instruction o (mma, wmma, ldmatrix,
 * stmatrix): at most PTX_PARTS_MAX. */
int ptx_lower_mma(struct lower_emit *B, const struct xop *o);

/* The SASS mnemonic of an mma (wmma: of one tile) of descriptor d
 * (HMMA.16816.F32.BF16, IMMA.16832.S8.U8.SAT, ...) into buf. */
void ptx_lower_mma_mnemonic(const struct ptx_mma_desc *d, char *buf, size_t n);

/* The SASS mnemonic of decoded wgmma.mma_async o (HGMMA.64x128x16.F32,
 * IGMMA.64x256x32.S8.S8, QGMMA.64x256x32.F32.E4M3.E4M3: the probes'
 * listing, shared/measured/h100/hopper-probes/results-h100/sass.txt). */
void ptx_lower_wgmma_mnemonic(const struct xop *o, char *buf, size_t n);

#endif /* SMSIM_FRONTEND_PTX_LOWER_MMA_H */
