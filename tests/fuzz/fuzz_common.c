/*
 * fuzz_common.c - see fuzz_common.h.
 */
#include "tests/fuzz/fuzz_common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DRAIN_KERNELS 4u
#define DRAIN_BLOCKS 16u
#define DRAIN_INSTS 65536u

static char dir[256];
static char path[512];

const char *
fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    if (dir[0] == '\0') {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/smsim-fuzz-XXXXXX", base);
        if (mkdtemp(dir) == NULL) {
            perror("fuzz_file: mkdtemp");
            abort();
        }
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        perror("fuzz_file: open");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            perror("fuzz_file: write");
            abort();
        }
        done += (size_t)w;
    }
    close(fd);
    return path;
}

int
fuzz_drain(struct inst_source *src, struct sim_error *err)
{
    struct kernel_info ki;
    struct warp_inst wi;
    uint32_t budget = DRAIN_INSTS;

    for (unsigned k = 0; k < DRAIN_KERNELS; k++) {
        int rc = src->ops->next_kernel(src->ctx, &ki, err);
        if (rc <= 0)
            return rc;
        SIM_FORWARD_IF_ERROR(src->ops->kernel_begin(src->ctx, 1, 1, err));
        uint64_t nb = kernel_info_blocks(&ki);
        uint32_t wpb = kernel_info_warps_per_block(&ki);
        for (uint64_t b = 0; b < nb && b < DRAIN_BLOCKS; b++) {
            SIM_FORWARD_IF_ERROR(src->ops->block_begin(src->ctx, b, 0, 0, err));
            for (uint32_t w = 0; w < wpb; w++) {
                while (budget > 0) {
                    rc = inst_source_next(src, 0, w, SIM_CYCLE_MAX, &wi, err);
                    if (rc < 0)
                        return rc;
                    if (rc == 0)
                        break;
                    budget--;
                }
            }
            src->ops->block_end(src->ctx, 0);
        }
        for (uint16_t op = 0; src->ops->opcode_name(src->ctx, op) != NULL && op < 4096; op++)
            continue;
        if (src->ops->copies != NULL) {
            const struct sim_copy *c;
            (void)src->ops->copies(src->ctx, &c);
        }
    }
    return SIM_OK;
}
