/*
 * fuzz_accelsim.c - libFuzzer harness for the Accel-Sim text trace reader
 * (frontend/accelsim.c): one kernel-1.traceg, opened and drained.  The
 * first input byte picks the unknown-opcode policy.
 */
#include "frontend/accelsim.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_error err;
    struct inst_source src;
    struct accelsim_opts o = { ACCELSIM_UNKNOWN_ERROR };

    if (size > 0 && data[0] == 'U') {
        o.unknown = ACCELSIM_UNKNOWN_ALU;
        data++;
        size--;
    }
    const char *p = fuzz_file("kernel-1.traceg", data, size);
    if (accelsim_source_open(p, &o, &src, &err) == SIM_OK) {
        (void)fuzz_drain(&src, &err);
        inst_source_destroy(&src);
    }
    return 0;
}
