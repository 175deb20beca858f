/*
 * check_afile.c - atomic outputs: the destination appears only on commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/afile.h"
#include "testlib.h"

static bool
exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

START_TEST(test_commit_and_abort)
{
    char path[512];
    struct afile af;
    struct sim_error err = { 0 };
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".txt"));

    ck_assert_int_eq(afile_open(&af, path, &err), SIM_OK);
    fputs("hello\n", af.fp);
    ck_assert(!exists(path));                   /* nothing visible before commit */
    ck_assert(exists(af.tmp));
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s", af.tmp);
    ck_assert_int_eq(afile_commit(&af, &err), SIM_OK);
    ck_assert(exists(path));
    ck_assert(!exists(tmp));
    FILE *fp = fopen(path, "r");
    char buf[16] = { 0 };
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, fp));
    fclose(fp);
    ck_assert_str_eq(buf, "hello\n");

    /* an aborted rewrite leaves the old file untouched and no temporary */
    ck_assert_int_eq(afile_open(&af, path, &err), SIM_OK);
    fputs("partial", af.fp);
    snprintf(tmp, sizeof tmp, "%s", af.tmp);
    afile_abort(&af);
    ck_assert(!exists(tmp));
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, fp));
    fclose(fp);
    ck_assert_str_eq(buf, "hello\n");
    unlink(path);
}
END_TEST

START_TEST(test_unwritable_directory)
{
    struct afile af;
    struct sim_error err = { 0 };
    ck_assert_int_eq(afile_open(&af, "/nonexistent/dir/out.json", &err), SIM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir/out.json: cannot create output file"));
    afile_abort(&af);                           /* safe on a failed open */
}
END_TEST

static void
print_two(FILE *fp, void *arg)
{
    fprintf(fp, "%s%s", (const char *)arg, (const char *)arg);
}

START_TEST(test_write_helper)
{
    char path[512];
    struct sim_error err = { 0 };
    snprintf(path, sizeof path, "%s", testlib_tmpfile(".txt"));
    ck_assert_int_eq(afile_write(path, print_two, (void *)"ab", &err), SIM_OK);
    FILE *fp = fopen(path, "r");
    char buf[16] = { 0 };
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, fp));
    fclose(fp);
    ck_assert_str_eq(buf, "abab");
    unlink(path);
}
END_TEST

static Suite *
afile_suite(void)
{
    Suite *s = suite_create("afile");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_commit_and_abort);
    tcase_add_test(tc, test_unwritable_directory);
    tcase_add_test(tc, test_write_helper);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(afile_suite)
