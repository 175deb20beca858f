/*
 * fuzz_config.c - libFuzzer harness for the GPU config parser (sim/config.c
 * over sim/kvfile.c): load a file over the defaults and validate it.
 */
#include "sim/config.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_error err;
    struct sim_config cfg;
    uint32_t carve[64];
    const char *p = fuzz_file("gpu.cfg", data, size);

    config_defaults(&cfg);
    struct cfg_origin *o = config_origin_new();
    if (config_load_file(&cfg, p, o, &err) == SIM_OK && config_validate(&cfg, &err) == SIM_OK)
        (void)config_carveouts(&cfg, carve, 64, &err);
    config_origin_destroy(o);
    return 0;
}
