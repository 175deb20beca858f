/*
 * fuzz_smt.c - libFuzzer harness for the .smt reader (frontend/smt.c):
 * verify, info, dump and the streaming source on one input.
 */
#include <stdio.h>

#include "frontend/smt/smt.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    struct sim_error err;
    struct smt_totals tot;
    struct inst_source src;
    const char *p = fuzz_file("in.smt", data, size);

    if (null == NULL)
        null = fopen("/dev/null", "w");
    (void)smt_verify(p, &tot, &err);
    (void)smt_info(p, null, &err);
    struct smt_dump_opts o = { -1, -1, -1, 2000 };
    (void)smt_dump(p, null, &o, &err);
    if (smt_source_open(p, &src, &err) == SIM_OK) {
        (void)fuzz_drain(&src, &err);
        inst_source_destroy(&src);
    }
    return 0;
}
