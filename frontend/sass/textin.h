/*
 * textin.h - streaming line reader for text inputs, plain or xz-compressed.
 *
 * Reads a file line by line through a fixed buffer, decompressing .xz in
 * process with liblzma (detected by the xz magic, not the name), so memory
 * does not grow with the file.  Lines are returned without their '\n' (and
 * without a '\r' before it); the last line need not end with a newline.
 * Every line has a 1-based number for messages.  A NUL byte or a line
 * longer than TEXTIN_MAX_LINE is an error naming the file and line.
 */
#ifndef SMSIM_FRONTEND_TEXTIN_H
#define SMSIM_FRONTEND_TEXTIN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

#define TEXTIN_MAX_LINE (1u << 20)   /* bytes */

typedef struct textin textin;

/* Open path; errors: cannot open (SIM_ERR_IO), xz without liblzma
 * (SIM_ERR_UNSUPPORTED). */
textin *textin_open(const char *path, struct sim_error *err);
void textin_close(textin *t);

/* Next line: 1 with *line / *len set (valid until the next call; the
 * buffer may be modified by the caller up to *len), 0 at end of file,
 * < 0 on an error (corrupt xz, read error, NUL byte, over-long line). */
int textin_next(textin *t, char **line, size_t *len, struct sim_error *err);

/* Number of the line last returned (0 before the first). */
uint64_t textin_line(const textin *t);

/* The path, for messages. */
const char *textin_path(const textin *t);

/* True if the file is xz-compressed. */
bool textin_is_xz(const textin *t);

#endif /* SMSIM_FRONTEND_TEXTIN_H */
