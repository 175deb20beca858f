/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses in tests/fuzz/.
 *
 * The parsers that take a path are fed through a file in a private
 * temporary directory (on /dev/shm when it exists), rewritten for every
 * input; fuzz_drain() pulls a bounded number of instructions out of an
 * instruction source so the lazy parts of the readers run too.  Nothing
 * here keeps state from one input to the next except the directory.
 */
#ifndef SMSIM_TESTS_FUZZ_COMMON_H
#define SMSIM_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "sim/inst.h"

/* Write data to the file called name in the harness's temporary directory
 * and return its path (valid until the next call).  Aborts if the file
 * cannot be written: that is a harness failure, not a finding. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

/* Drive src like the model would, but bounded: at most 4 kernels, 16
 * blocks per kernel and 65536 instructions in all.  Returns the source's
 * first error (err set), or SIM_OK.  Does not destroy src. */
int fuzz_drain(struct inst_source *src, struct sim_error *err);

#endif
