/*
 * ptx_prog.h - the device of a CUDA program that smsim runs whole
 * (`smsim exec`, lib/smsim.h's smsim_program): its global memory and the
 * PTX modules the program registered (private to frontend/ptx*.c and
 * lib/).
 *
 * Memory persists from launch to launch, as on a GPU:
 *  - allocations (cudaMalloc) get device addresses PTX_REGION_STRIDE apart
 *    from PTX_PROG_BASE up, above every host address; a freed one stays
 *    as an RK_FREED region, so that a late access is reported as a use
 *    after free, until an allocation of the very same size takes its
 *    address again (the most recently freed first), as CUDA's allocator
 *    gives a program that frees and allocates the same size (Thrust's
 *    and CUB's temporary storage, per-iteration buffers) the same
 *    address: so that such a program's launches repeat exactly
 *    (ptx_replay.h) and its data lands on the same cache lines;
 *  - host memory the device may address (cudaMallocManaged,
 *    cudaMallocHost) is mapped at its host address;
 *  - each module's .global and .const variables get an allocation when it
 *    is loaded, initialised from the PTX.
 * Timing-model addresses are laid out compactly as a GPU allocator would,
 * 4 KB apart.  A launch of a module's kernel is a PTX run whose regions,
 * variable addresses and parameters ptx_prog_layout() fills in
 * (ptx.h: ptx_source_open_prog); one set of counters (ptx.insts, the
 * pipes) is shared by all of them.
 */
#ifndef SMSIM_FRONTEND_PTX_PROG_H
#define SMSIM_FRONTEND_PTX_PROG_H

#include "frontend/exec/ptx_run.h"

/* First device address of a program's allocations (2^48: no host address
 * on x86-64 or AArch64 Linux reaches it). */
#define PTX_PROG_BASE UINT64_C(0x0001000000000000)

struct ptx_prog;

struct ptx_prog *ptx_prog_new(void);
void ptx_prog_free(struct ptx_prog *p);

/* Allocate `bytes` of device memory (zeroed), named what in messages. */
int ptx_prog_alloc(struct ptx_prog *p, uint64_t bytes, const char *what, sim_addr_t *addr,
                   struct sim_error *err);
/* Let the device address `bytes` of host memory at its own address;
 * zero_copy: its accesses cross the host link (pinned, registered memory;
 * timing addresses from SIM_SYSMEM_BASE), else they are timed as device
 * memory's (managed memory, which migrates to the device). */
int ptx_prog_map_host(struct ptx_prog *p, void *host, uint64_t bytes, const char *what,
                      bool zero_copy, struct sim_error *err);
/* The device heap's size (cudaLimitMallocHeapSize), which can be set until
 * the heap is made (the first layout of a module that calls malloc). */
int ptx_prog_set_heap(struct ptx_prog *p, uint64_t bytes, struct sim_error *err);
uint64_t ptx_prog_heap(const struct ptx_prog *p);
/* Free the allocation (or unmap the host memory) starting at addr;
 * *host_out (if not NULL) is the host memory of a mapped one. */
int ptx_prog_release(struct ptx_prog *p, sim_addr_t addr, void **host_out,
                     struct sim_error *err);
/* Host memory of device bytes [addr, addr + bytes), which must lie in
 * one live allocation, else NULL and err says which and why. */
uint8_t *ptx_prog_host(struct ptx_prog *p, sim_addr_t addr, uint64_t bytes,
                       struct sim_error *err);
/* Is addr in a live allocation or mapped host memory?  *base and *size:
 * that region's (either may be NULL); *mapped: host memory. */
bool ptx_prog_lookup(struct ptx_prog *p, sim_addr_t addr, sim_addr_t *base, uint64_t *size,
                     bool *mapped);

/* Parse PTX text as a module (name labels it in messages; ptx_path, if
 * not NULL, is a file holding the same text, for ptxas -v) and allocate
 * its variables.  *mod: its index. */
int ptx_prog_load(struct ptx_prog *p, const char *name, const char *text, size_t len,
                  const char *ptx_path, uint32_t *mod, struct sim_error *err);
uint32_t ptx_prog_modules(const struct ptx_prog *p);
struct ptx_module *ptx_prog_module(struct ptx_prog *p, uint32_t mod);
const char *ptx_prog_module_path(const struct ptx_prog *p, uint32_t mod);

/* The address and size of module variable `name` (a .global or .const). */
int ptx_prog_symbol(struct ptx_prog *p, uint32_t mod, const char *name, sim_addr_t *addr,
                    uint64_t *size, struct sim_error *err);

/* Give run r (of one of module mod's kernels, r->k set) the program's
 * memory: every region, the module's variable addresses, and the
 * parameter space copied from params (r->k->param_bytes bytes). */
int ptx_prog_layout(struct ptx_prog *p, uint32_t mod, struct ptx_run *r, const uint8_t *params,
                    struct sim_error *err);

/* Block storage from launch to launch: a finished run's blocks are kept
 * (park) and the next run of the same kernel, shape and register files
 * takes them (adopt) instead of allocating and zeroing its own, which is
 * most of a short launch's cost.  adopt leaves r->blocks NULL when
 * nothing fits. */
void ptx_prog_park_blocks(struct ptx_prog *p, struct ptx_run *r);
void ptx_prog_adopt_blocks(struct ptx_prog *p, struct ptx_run *r);

/* The program's regions (live, freed and mapped), sorted by base: *n of
 * them, valid until the next allocation, mapping or release. */
const struct region *ptx_prog_regions(const struct ptx_prog *p, uint32_t *n);

/* The counters every launch of the program adds to. */
struct ptx_counters *ptx_prog_counters(struct ptx_prog *p);

#endif /* SMSIM_FRONTEND_PTX_PROG_H */
