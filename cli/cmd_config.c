/*
 * cmd_config.c - `smsim config list|show|diff|doc`.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/afile.h"
#include "sim/config.h"

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
    struct sim_error err = { 0 };
    char *names[256];
    size_t n = 0;

    if (config_dir(dir, sizeof dir, &err) < 0)
        return cli_fail(&err);
    DIR *d = opendir(dir);
    if (d == NULL) {
        sim_error_set(&err, SIM_ERR_IO, "%s: cannot list config directory", dir);
        return cli_fail(&err);
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < SIM_ARRAY_LEN(names)) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".cfg") == 0 && e->d_name[0] != '.')
            names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], name_cmp);
    printf("# configs in %s\n", dir);
    int status = CLI_OK;
    for (size_t i = 0; i < n; i++) {
        struct sim_config cfg;
        names[i][strlen(names[i]) - 4] = '\0';
        if (config_load(&cfg, names[i], NULL, 0, NULL, &err) < 0) {
            printf("%-12s  (invalid: %s)\n", names[i], err.msg);
            status = CLI_BAD_INPUT;
        } else {
            printf("%-12s  %-28s %s, %u SMs, %.0f MHz\n", names[i], cfg.gpu_name,
                   cfg_arch_names[cfg.gpu_arch], cfg.sm_count, cfg.gpu_clock_mhz);
        }
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
    const char **sets = xcalloc((size_t)argc, sizeof *sets);
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
    struct sim_config cfg;
    struct sim_error err = { 0 };
    struct cfg_origin *origin = config_origin_new();
    int rc = config_load(&cfg, argv[optind], sets, n_sets, origin, &err);
    free(sets);
    if (rc < 0) {
        config_origin_destroy(origin);
        return cli_fail(&err);
    }
    printf("# %s: %s (%zu fields)\n", argv[optind], cfg.gpu_name, config_field_count());
    config_print(stdout, &cfg, origin);
    config_origin_destroy(origin);
    return CLI_OK;
}

static int
config_diff(const char *a, const char *b)
{
    struct sim_config ca, cb;
    struct sim_error err = { 0 };
    char va[CFG_STR_MAX + 32], vb[CFG_STR_MAX + 32];
    size_t ndiff = 0;

    if (config_load(&ca, a, NULL, 0, NULL, &err) < 0 || config_load(&cb, b, NULL, 0, NULL, &err) < 0)
        return cli_fail(&err);
    printf("%-34s %-22s %-22s\n", "field", a, b);
    for (size_t i = 0; i < config_field_count(); i++) {
        config_format_value(&ca, i, va, sizeof va);
        config_format_value(&cb, i, vb, sizeof vb);
        if (strcmp(va, vb) != 0) {
            printf("%-34s %-22s %-22s\n", config_field(i)->name, va, vb);
            ndiff++;
        }
    }
    printf("# %zu of %zu fields differ\n", ndiff, config_field_count());
    return CLI_OK;
}

static void
print_reference(FILE *fp, void *arg)
{
    (void)arg;
    config_print_reference(fp);
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
        struct sim_error err = { 0 };
        if (afile_write(out, print_reference, NULL, &err) < 0)
            return cli_fail(&err);
        return CLI_OK;
    }
    return cli_usage("config", "unknown subcommand '%s'", sub);
}
