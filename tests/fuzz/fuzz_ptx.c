/*
 * fuzz_ptx.c - libFuzzer harness for the PTX parser (frontend/ptx_parse.c),
 * in memory through ptx_parse_text().
 */
#include "frontend/ptx/ptx_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_error err;
    struct ptx_module *m = NULL;

    if (ptx_parse_text("fuzz.ptx", (const char *)data, size, &m, &err) == SIM_OK) {
        (void)ptx_module_find(m, "k");
        ptx_module_free(m);
    }
    return 0;
}
