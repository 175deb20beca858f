/*
 * inst.c - name tables for pipes, opcode classes, memory spaces and flags.
 */
#include "sim/inst.h"

#include <stdio.h>
#include <string.h>

static const char *const pipe_names[] = {
#define X(id, name, help) name,
    SIM_PIPES(X)
#undef X
};

static const struct {
    const char *name;
    const char *help;
    unsigned pipe;
    unsigned latency;
} opclass_table[] = {
#define OPCLASS(id, name, pipe, lat, help) { name, help, SIM_PIPE_##pipe, lat },
#include "sim/opclass.def"
#undef OPCLASS
};

static const char *const space_names[] = {
#define X(id, name) name,
    SIM_SPACES(X)
#undef X
};

_Static_assert(SIM_ARRAY_LEN(pipe_names) == SIM_PIPE_COUNT, "pipe table");
_Static_assert(SIM_ARRAY_LEN(opclass_table) == SIM_OPC_COUNT, "opclass table");
_Static_assert(SIM_ARRAY_LEN(space_names) == SIM_SPACE_COUNT, "space table");

void
inst_source_destroy(struct inst_source *s)
{
    if (s != NULL && s->ops != NULL && s->ops->destroy != NULL)
        s->ops->destroy(s->ctx);
    if (s != NULL) {
        s->ops = NULL;
        s->ctx = NULL;
    }
}

uint64_t
kernel_info_blocks(const struct kernel_info *ki)
{
    return (uint64_t)ki->grid[0] * ki->grid[1] * ki->grid[2];
}

uint32_t
kernel_info_threads_per_block(const struct kernel_info *ki)
{
    return ki->block[0] * ki->block[1] * ki->block[2];
}

uint32_t
kernel_info_cluster_size(const struct kernel_info *ki)
{
    uint32_t n = 1;
    for (unsigned d = 0; d < 3; d++)
        n *= ki->cluster[d] ? ki->cluster[d] : 1;
    return n;
}

uint32_t
kernel_info_cluster_blocks(const struct kernel_info *ki, uint64_t c, uint64_t *ids)
{
    uint32_t cd[3], n = 0;
    for (unsigned d = 0; d < 3; d++)
        cd[d] = ki->cluster[d] ? ki->cluster[d] : 1;
    uint64_t nx = ki->grid[0] / cd[0], ny = ki->grid[1] / cd[1];
    uint64_t cx = c % nx, cy = c / nx % ny, cz = c / (nx * ny);
    for (uint32_t z = 0; z < cd[2]; z++)
        for (uint32_t y = 0; y < cd[1]; y++)
            for (uint32_t x = 0; x < cd[0]; x++)
                ids[n++] = cx * cd[0] + x +
                           ki->grid[0] * (cy * cd[1] + y + (uint64_t)ki->grid[1] * (cz * cd[2] + z));
    return n;
}

uint32_t
kernel_info_warps_per_block(const struct kernel_info *ki)
{
    return (kernel_info_threads_per_block(ki) + SIM_WARP_SIZE - 1) / SIM_WARP_SIZE;
}

const char *
inst_pipe_name(unsigned pipe)
{
    return pipe < SIM_PIPE_COUNT ? pipe_names[pipe] : "?";
}

const char *
inst_opclass_name(unsigned opclass)
{
    return opclass < SIM_OPC_COUNT ? opclass_table[opclass].name : "?";
}

const char *
inst_opclass_help(unsigned opclass)
{
    return opclass < SIM_OPC_COUNT ? opclass_table[opclass].help : "?";
}

unsigned
inst_opclass_default_pipe(unsigned opclass)
{
    return opclass < SIM_OPC_COUNT ? opclass_table[opclass].pipe : SIM_PIPE_INT;
}

unsigned
inst_opclass_default_latency(unsigned opclass)
{
    return opclass < SIM_OPC_COUNT ? opclass_table[opclass].latency : 4;
}

const char *
inst_space_name(unsigned space)
{
    return space < SIM_SPACE_COUNT ? space_names[space] : "?";
}

const char *
inst_isa_name(unsigned isa)
{
    switch (isa) {
    case SIM_ISA_PTX: return "ptx";
    case SIM_ISA_SASS: return "sass";
    case SIM_ISA_SYNTH: return "synthetic";
    default: return "none";
    }
}

static int
lookup(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

int
inst_pipe_lookup(const char *name)
{
    return lookup(pipe_names, SIM_PIPE_COUNT, name);
}

int
inst_opclass_lookup(const char *name)
{
    for (unsigned i = 0; i < SIM_OPC_COUNT; i++)
        if (strcmp(opclass_table[i].name, name) == 0)
            return (int)i;
    return -1;
}

int
inst_space_lookup(const char *name)
{
    return lookup(space_names, SIM_SPACE_COUNT, name);
}

const char *
inst_flags_str(unsigned flags, char *buf, size_t n)
{
    static const char *const names[] = {
        "load", "store", "atomic", "barrier", "exit", "branch", "bypass_l1", "fence"
    };
    size_t len = 0;

    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (unsigned b = 0; b < SIM_ARRAY_LEN(names); b++) {
        if (!(flags & (1u << b)))
            continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? "|" : "", names[b]);
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
    }
    if (len == 0)
        snprintf(buf, n, "-");
    return buf;
}
