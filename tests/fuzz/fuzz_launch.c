/*
 * fuzz_launch.c - libFuzzer harness for the launch-file parser
 * (frontend/launch.c).  Buffers are capped at 64 KiB in all so one input
 * cannot spend the run filling gigabytes.
 */
#include "frontend/launch.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_error err;
    struct launch *l = NULL;

    launch_set_buffer_limit(64u << 10);
    const char *p = fuzz_file("k.launch", data, size);
    if (launch_parse(p, &l, &err) == SIM_OK)
        launch_free(l);
    return 0;
}
