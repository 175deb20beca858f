/*
 * ptx.h - the PTX frontend: run a kernel described by a launch file.
 *
 * ptx_source_open() reads the launch file (frontend/launch.h), parses its
 * PTX, finds the kernel, lays out memory and decodes the kernel, and
 * returns an execution-driven instruction source: each next_inst() call
 * executes the warp's next instruction functionally and describes it to
 * the model.  After the run, ptx_source_write_outputs() writes the buffers
 * the launch file names.
 */
#ifndef SMSIM_FRONTEND_PTX_H
#define SMSIM_FRONTEND_PTX_H

#include "frontend/launch.h"
#include "sim/inst.h"

int ptx_source_open(const char *launch_path, struct inst_source *src, struct sim_error *err);

/* A launch of a CUDA program's kernel (exec/ptx_prog.h: the program's
 * memory and modules), which the run borrows; it is described by this
 * rather than by a launch file. */
struct ptx_prog;
struct ptx_prog_launch {
    const char *what;            /* names the launch in messages: "vadd (launch 3)" */
    uint32_t mod;                /* the program's module */
    const char *kernel;          /* its .entry name */
    uint32_t grid[3], block[3];
    uint32_t cluster[3];         /* blocks per cluster; 0, 0, 0: the kernel's own, else 1 */
    uint32_t smem;               /* dynamic shared memory per block, bytes */
    uint32_t stack;              /* bytes of call stack per thread */
    uint32_t regs;               /* registers per thread; 0: ptxas -v's (else 32) */
    const uint8_t *params;       /* the parameter space, laid out as the .param list says */
    uint64_t grid_ws;            /* cooperative: the grid-sync workspace (device address, 16
                                    zeroed bytes; %envreg1:%envreg2), its blocks co-resident;
                                    0: not cooperative */
};
int ptx_source_open_prog(struct ptx_prog *p, const struct ptx_prog_launch *pl,
                         struct inst_source *src, struct sim_error *err);

/* Is src a PTX source? */
bool ptx_source_is(const struct inst_source *src);

/* The launch description (buffers and their contents) of a PTX source. */
const struct launch *ptx_source_launch(const struct inst_source *src);

/* Write the launch file's `output` buffers (see launch_write_outputs for
 * outdir, which may be NULL).  A no-op for other sources. */
int ptx_source_write_outputs(const struct inst_source *src, const char *outdir,
                             struct sim_error *err);

/* Warp instructions executed so far. */
uint64_t ptx_source_executed(const struct inst_source *src);

/* Register the PTX source's statistics with zero values (smsim stats doc). */
void ptx_register_doc_stats(stats *st);

/* One static instruction of the kernel, as the model sees it (the warp
 * instruction's pc is 16 x its index). */
struct ptx_static {
    uint32_t line;               /* PTX source line */
    const char *mnemonic;        /* e.g. "ld.global.f32" */
    uint8_t opclass;             /* enum sim_opclass */
    uint8_t flags;               /* SIM_IF_* */
    uint8_t space;               /* enum sim_space of a memory access, else NONE */
    bool guarded;                /* has an @p guard */
    int32_t target;              /* branch target index, -1 if none */
    int32_t reconv;              /* reconvergence index of a branch, -1 = exit */
    uint8_t n_dst, n_src;
    uint16_t dst[SIM_MAX_DST], src[SIM_MAX_SRC];   /* register ids as in warp_inst */
    /* after lowering for a GPU (set_target): */
    bool silent;                 /* executes, issues nothing (folded by ptxas) */
    bool head;                   /* completes a PTX instruction */
    uint8_t npipe;               /* enum sass_npipe */
    uint8_t stall;               /* the static stall count */
};

/* The kernel's static instructions in order (NULL/0 for other sources). */
size_t ptx_source_static(const struct inst_source *src, struct ptx_static **out);

#endif /* SMSIM_FRONTEND_PTX_H */
