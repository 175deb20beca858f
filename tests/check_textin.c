/*
 * check_textin.c - the streaming line reader (frontend/textin.c): plain
 * and xz input give the same lines, lines may straddle buffer refills,
 * the last line needs no newline, CRLF is accepted, and NUL bytes,
 * over-long lines and damaged xz data are errors naming the place.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/sass/textin.h"
#include "testlib.h"

#ifdef HAVE_LZMA
#include <lzma.h>
#endif

static void
write_bytes(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
    ck_assert_int_eq(fclose(fp), 0);
}

#ifdef HAVE_LZMA
/* xz-compress [p, p + n) into a malloc'd buffer. */
static uint8_t *
xz(const void *p, size_t n, size_t *out_n)
{
    size_t cap = n + n / 2 + 1024, pos = 0;
    uint8_t *out = malloc(cap);
    ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, p, n, out, &pos, cap),
                     LZMA_OK);
    *out_n = pos;
    return out;
}
#endif

/* A text of `lines` lines of varied length, line i = "L<i>:" + (i*37 % 5000) 'x'. */
static char *
make_text(unsigned lines, size_t *n)
{
    size_t cap = 1024, len = 0;
    char *t = malloc(cap);
    for (unsigned i = 0; i < lines; i++) {
        size_t k = (size_t)i * 37 % 5000;
        while (len + k + 32 > cap)
            t = realloc(t, cap *= 2);
        len += (size_t)sprintf(t + len, "L%u:", i);
        memset(t + len, 'x', k);
        len += k;
        t[len++] = '\n';
    }
    *n = len;
    return t;
}

static void
check_lines(const char *path, unsigned lines)
{
    struct sim_error err = { 0 };
    textin *t = textin_open(path, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    char *line;
    size_t len;
    for (unsigned i = 0; i < lines; i++) {
        ck_assert_int_eq(textin_next(t, &line, &len, &err), 1);
        char want[32];
        int w = snprintf(want, sizeof want, "L%u:", i);
        ck_assert_uint_eq(len, (size_t)w + (size_t)i * 37 % 5000);
        ck_assert(strncmp(line, want, (size_t)w) == 0);
        ck_assert_uint_eq(strlen(line), len);
        ck_assert_uint_eq(textin_line(t), i + 1);
    }
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 0);
    textin_close(t);
}

START_TEST(plain_and_xz_agree)
{
    size_t n, zn;
    char *text = make_text(3000, &n);                /* ~7.5 MB: many refills */
    char path[512];
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".txt"));
    write_bytes(path, text, n);
    check_lines(path, 3000);
#ifdef HAVE_LZMA
    uint8_t *z = xz(text, n, &zn);
    write_bytes(path, z, zn);
    check_lines(path, 3000);
    struct sim_error err = { 0 };
    textin *t = textin_open(path, &err);
    ck_assert(textin_is_xz(t));
    textin_close(t);
    free(z);
#else
    (void)zn;
#endif
    unlink(path);
    free(text);
}
END_TEST

START_TEST(line_endings)
{
    static const char text[] = "a\r\n\nlast without newline";
    char path[512];
    struct sim_error err = { 0 };
    char *line;
    size_t len;
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".txt"));
    write_bytes(path, text, sizeof text - 1);
    textin *t = textin_open(path, &err);
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 1);
    ck_assert_str_eq(line, "a");
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 1);
    ck_assert_str_eq(line, "");
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 1);
    ck_assert_str_eq(line, "last without newline");
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 0);
    textin_close(t);
    write_bytes(path, "", 0);                        /* empty file: no lines */
    t = textin_open(path, &err);
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 0);
    textin_close(t);
    unlink(path);
}
END_TEST

START_TEST(errors_name_the_place)
{
    char path[512];
    struct sim_error err = { 0 };
    char *line;
    size_t len;
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".txt"));

    write_bytes(path, "ok\nbad\0byte\n", 12);
    textin *t = textin_open(path, &err);
    ck_assert_int_eq(textin_next(t, &line, &len, &err), 1);
    ck_assert_int_eq(textin_next(t, &line, &len, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: NUL byte"));
    textin_close(t);

    size_t big = TEXTIN_MAX_LINE + 10;
    char *longline = malloc(big + 1);
    memset(longline, 'y', big);
    longline[big] = '\n';
    write_bytes(path, longline, big + 1);
    free(longline);
    t = textin_open(path, &err);
    ck_assert_int_eq(textin_next(t, &line, &len, &err), SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, ":1: line longer than"));
    textin_close(t);

#ifdef HAVE_LZMA
    /* damaged xz: a flipped byte in the middle, and a truncated stream */
    size_t n, zn;
    char *text = make_text(400, &n);
    uint8_t *z = xz(text, n, &zn);
    z[zn / 2] ^= 0x55;
    write_bytes(path, z, zn);
    t = textin_open(path, &err);
    int r;
    while ((r = textin_next(t, &line, &len, &err)) > 0)
        ;
    ck_assert_int_eq(r, SIM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "xz data corrupt or truncated"));
    textin_close(t);
    z[zn / 2] ^= 0x55;
    write_bytes(path, z, zn - 20);
    t = textin_open(path, &err);
    while ((r = textin_next(t, &line, &len, &err)) > 0)
        ;
    ck_assert_int_eq(r, SIM_ERR_FORMAT);
    textin_close(t);
    free(z);
    free(text);
#endif

    unlink(path);
    ck_assert_ptr_null(textin_open(path, &err));
    ck_assert_int_eq(err.code, SIM_ERR_IO);
}
END_TEST

static Suite *
textin_suite(void)
{
    Suite *s = suite_create("textin");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, plain_and_xz_agree);
    tcase_add_test(tc, line_endings);
    tcase_add_test(tc, errors_name_the_place);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(textin_suite)
