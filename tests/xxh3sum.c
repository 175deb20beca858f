/*
 * xxh3sum.c - print the XXH3-64 digest of each file ("DIGEST  PATH"), for
 * the determinism test (tests/determinism.sh).  Not installed; xxhsum -H3
 * does the same where the xxhash tools are installed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <xxhash.h>

int
main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        if (fp == NULL) {
            perror(argv[i]);
            rc = 1;
            continue;
        }
        XXH3_state_t *st = XXH3_createState();
        XXH3_64bits_reset(st);
        char buf[1 << 16];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
            XXH3_64bits_update(st, buf, n);
        if (ferror(fp)) {
            perror(argv[i]);
            rc = 1;
        } else {
            printf("%016" PRIx64 "  %s\n", (uint64_t)XXH3_64bits_digest(st), argv[i]);
        }
        XXH3_freeState(st);
        fclose(fp);
    }
    return rc;
}
