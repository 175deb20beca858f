/*
 * fuzz_accelsim.c - libFuzzer harness for the Accel-Sim text trace reader
 * (frontend/accelsim.c), opened and drained.  The first input byte picks
 * the mode: 'L' - the rest is a kernelslist.g whose directory also holds a
 * valid kernel-1.traceg (traces/accelsim/edge); 'U' - the rest is a
 * kernel-1.traceg read with --unknown-opcode alu; anything else - the
 * whole input is a kernel-1.traceg.
 */
#include <string.h>

#include "frontend/sass/accelsim.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char edge_trace[] =
    "-kernel name = _Z4edgev\n"
    "-kernel id = 1\n"
    "-grid dim = (2,1,1)\n"
    "-block dim = (64,1,1)\n"
    "-shmem = 0\n"
    "-nregs = 8\n"
    "-binary version = 70\n"
    "-cuda stream id = 0\n"
    "-shmem base_addr = 0x00007f0ff0000000\n"
    "-local mem base_addr = 0x00007f0ff2000000\n"
    "-nvbit version = 1.7\n"
    "-accelsim tracer version = 5\n"
    "-enable lineinfo = 0\n"
    "\n"
    "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n"
    "\n"
    "#BEGIN_TB\n"
    "\n"
    "thread block = 0,0,0\n"
    "\n"
    "warp = 0\n"
    "insts = 3\n"
    "0000 ffffffff 1 R0 S2R 0 0 0\n"
    "0010 ffffffff 1 R1 IADD3 2 R0 R0 0 0\n"
    "0020 ffffffff 0 EXIT 0 0 0\n"
    "\n"
    "warp = 1\n"
    "insts = 3\n"
    "0000 ffffffff 1 R0 S2R 0 0 0\n"
    "0010 ffffffff 1 R1 IADD3 2 R0 R0 0 0\n"
    "0020 ffffffff 0 EXIT 0 0 0\n"
    "\n"
    "#END_TB\n"
    "\n"
    "\n"
    "#BEGIN_TB\n"
    "\n"
    "thread block = 1,0,0\n"
    "\n"
    "warp = 0\n"
    "insts = 3\n"
    "0000 ffffffff 1 R0 S2R 0 0 0\n"
    "0010 ffffffff 1 R1 IADD3 2 R0 R0 0 0\n"
    "0020 ffffffff 0 EXIT 0 0 0\n"
    "\n"
    "warp = 1\n"
    "insts = 0\n"
    "\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_error err;
    struct inst_source src;
    struct accelsim_opts o = { ACCELSIM_UNKNOWN_ERROR };
    const char *p;

    if (size > 0 && data[0] == 'L') {
        (void)fuzz_file("kernel-1.traceg", (const uint8_t *)edge_trace, strlen(edge_trace));
        p = fuzz_file("kernelslist.g", data + 1, size - 1);
    } else {
        if (size > 0 && data[0] == 'U') {
            o.unknown = ACCELSIM_UNKNOWN_ALU;
            data++;
            size--;
        }
        p = fuzz_file("kernel-1.traceg", data, size);
    }
    if (accelsim_source_open(p, &o, &src, &err) == SIM_OK) {
        (void)fuzz_drain(&src, &err);
        inst_source_destroy(&src);
    }
    return 0;
}
