/*
 * cmd_config.c - `smsim config list|show|diff|doc`.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void
config_help(FILE *out)
{
    fputs("usage: smsim config list\n"
          "       smsim config show NAME|FILE [--set key=value]...\n"
          "       smsim config diff A B\n"
          "       smsim config doc [-o FILE]\n\n"
          "list   the GPU configurations found in the config directory\n"
          "show   every field of a configuration, resolved (includes and overrides\n"
          "       applied), with its unit and where its value came from\n"
          "diff   the fields whose values differ between two configurations\n"
          "doc    the configuration reference (Markdown; doc/config-reference.md)\n\n"
          "NAME is a file in the config directory without .cfg (smsim config list);\n"
          "a path containing '/' or ending in .cfg is used as given.  The directory is\n"
          "$SMSIM_CONFIG_DIR if set, else the installed or source-tree configs/.\n", out);
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
config_list(void)
{
    char dir[4096];
    smsim_error err = { 0 };
    char *names[256];
    size_t n = 0;

    if (smsim_config_dir(dir, sizeof dir, &err) < 0)
        return cli_fail(&err);
    DIR *d = opendir(dir);
    if (d == NULL) {
        smsim_error_set(&err, SMSIM_ERR_IO, "%s: cannot list config directory", dir);
        return cli_fail(&err);
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < ARRAY_LEN(names)) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".cfg") == 0 && e->d_name[0] != '.')
            names[n++] = cli_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], name_cmp);
    printf("# configs in %s\n", dir);
    int status = CLI_OK;
    for (size_t i = 0; i < n; i++) {
        smsim_config *cfg = NULL;
        struct smsim_gpu g;
        names[i][strlen(names[i]) - 4] = '\0';
        if (smsim_config_load(&cfg, names[i], NULL, 0, &err) < 0) {
            printf("%-12s  (invalid: %s)\n", names[i], err.msg);
            status = CLI_BAD_INPUT;
        } else {
            smsim_config_gpu(cfg, &g);
            printf("%-12s  %-28s %s, %u SMs, %.0f MHz\n", names[i], g.name, g.arch, g.sm_count,
                   g.clock_mhz);
        }
        smsim_config_free(cfg);
        free(names[i]);
    }
    return status;
}

static int
config_show(int argc, char **argv)
{
    static const struct option opts[] = {
        { "set", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char **sets = cli_xcalloc((size_t)argc, sizeof *sets);
    size_t n_sets = 0;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
        if (c == 's') {
            sets[n_sets++] = optarg;
        } else if (c == 'h') {
            config_help(stdout);
            free(sets);
            return CLI_OK;
        } else {
            free(sets);
            return cli_usage("config show", "unknown option");
        }
    }
    if (optind != argc - 1) {
        free(sets);
        return cli_usage("config show", "expected one config NAME");
    }
    smsim_config *cfg = NULL;
    smsim_error err = { 0 };
    struct smsim_gpu g;
    int rc = smsim_config_load(&cfg, argv[optind], sets, n_sets, &err);
    free(sets);
    if (rc < 0)
        return cli_fail(&err);
    smsim_config_gpu(cfg, &g);
    printf("# %s: %s (%zu fields)\n", argv[optind], g.name, smsim_config_field_count());
    smsim_config_print(stdout, cfg);
    smsim_config_free(cfg);
    return CLI_OK;
}

static int
config_diff(const char *a, const char *b)
{
    smsim_config *ca = NULL, *cb = NULL;
    smsim_error err = { 0 };
    char va[1024], vb[1024];
    size_t ndiff = 0;

    if (smsim_config_load(&ca, a, NULL, 0, &err) < 0 ||
        smsim_config_load(&cb, b, NULL, 0, &err) < 0) {
        smsim_config_free(ca);
        return cli_fail(&err);
    }
    printf("%-34s %-22s %-22s\n", "field", a, b);
    for (size_t i = 0; i < smsim_config_field_count(); i++) {
        smsim_config_value(ca, i, va, sizeof va);
        smsim_config_value(cb, i, vb, sizeof vb);
        if (strcmp(va, vb) != 0) {
            printf("%-34s %-22s %-22s\n", smsim_config_field_name(i), va, vb);
            ndiff++;
        }
    }
    printf("# %zu of %zu fields differ\n", ndiff, smsim_config_field_count());
    smsim_config_free(ca);
    smsim_config_free(cb);
    return CLI_OK;
}

static void
print_reference(FILE *fp, void *arg)
{
    (void)arg;
    smsim_config_print_reference(fp);
}

int
cmd_config(int argc, char **argv)
{
    if (argc < 2) {
        config_help(stderr);
        return CLI_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        config_help(stdout);
        return CLI_OK;
    }
    if (strcmp(sub, "list") == 0) {
        if (argc != 2)
            return cli_usage("config list", "takes no arguments");
        return config_list();
    }
    if (strcmp(sub, "show") == 0)
        return config_show(argc - 1, argv + 1);
    if (strcmp(sub, "diff") == 0) {
        if (argc != 4)
            return cli_usage("config diff", "expected two config names");
        return config_diff(argv[2], argv[3]);
    }
    if (strcmp(sub, "doc") == 0) {
        const char *out = "-";
        if (argc == 4 && strcmp(argv[2], "-o") == 0)
            out = argv[3];
        else if (argc != 2)
            return cli_usage("config doc", "expected [-o FILE]");
        smsim_error err = { 0 };
        if (smsim_write_file(out, print_reference, NULL, &err) < 0)
            return cli_fail(&err);
        return CLI_OK;
    }
    return cli_usage("config", "unknown subcommand '%s'", sub);
}
