/*
 * ptxlink.h - the device link of separately compiled PTX (nvcc -rdc=true),
 * done on the text: the relocatable PTX modules of a program's
 * translation units become one module, as nvlink makes one image of them.
 *
 * A function or variable one module declares `.extern` and another defines
 * resolves to the definition: the definitions' signatures (functions) and
 * declarations (variables) go first, so every use follows a declaration,
 * and the `.extern` declarations go.  Of several `.weak` definitions
 * (inline functions every unit emits) the first is kept.  A module's own
 * symbols (no .visible, .extern or .weak) that an earlier module also
 * declares are renamed in it (NAME$mK, K its index), as internal linkage
 * keeps them apart.  The header is the highest `.version` with the first
 * module's `.target` and `.address_size`.
 */
#ifndef SMSIM_CUDART_PTXLINK_H
#define SMSIM_CUDART_PTXLINK_H

#include <stddef.h>

/* The linked text of n modules (malloc'd, NUL-terminated, *len bytes), or
 * NULL with a message in why (a module that does not parse as PTX at
 * module scope). */
char *ptxlink(char *const *text, const size_t *len, unsigned n, size_t *out_len, char *why,
              size_t why_len);

#endif /* SMSIM_CUDART_PTXLINK_H */
