/* kvfile: `key = value` file reader shared by configs and launch files. */
#include "sim/kvfile.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

char *
kv_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

char *
kv_resolve(const char *base, const char *rel)
{
    const char *slash = strrchr(base, '/');
    if (rel[0] == '/' || slash == NULL)
        return xstrdup(rel);
    size_t n = (size_t)(slash - base) + 1 + strlen(rel) + 1;
    char *p = xmalloc(n);
    snprintf(p, n, "%.*s/%s", (int)(slash - base), base, rel);
    return p;
}

int
kvfile_open(struct kvfile *kf, const char *path, const char *what, int code,
            struct sim_error *err)
{
    memset(kf, 0, sizeof *kf);
    kf->path = path;
    kf->code = code;
    kf->fp = fopen(path, "r");
    if (kf->fp == NULL)
        return sim_error_set(err, SIM_ERR_IO, "%s: cannot open %s file: %s", path, what,
                             strerror(errno));
    struct stat st;
    if (fstat(fileno(kf->fp), &st) == 0 && !S_ISREG(st.st_mode)) {
        fclose(kf->fp);
        kf->fp = NULL;
        return sim_error_set(err, SIM_ERR_IO, "%s: %s (expected a %s file)", path,
                             S_ISDIR(st.st_mode) ? "a directory" : "not a regular file", what);
    }
    return SIM_OK;
}

int
kvfile_next(struct kvfile *kf, char **key, char **val, struct sim_error *err)
{
    while (fgets(kf->buf, sizeof kf->buf, kf->fp) != NULL) {
        kf->line++;
        snprintf(kf->where, sizeof kf->where, "%s:%u", kf->path, kf->line);
        if (strchr(kf->buf, '\n') == NULL && !feof(kf->fp))
            return sim_error_set(err, kf->code, "%s: line longer than %zu characters",
                                 kf->where, sizeof kf->buf - 2);
        if (kf->line == 1 && memcmp(kf->buf, "\xef\xbb\xbf", 3) == 0)
            memmove(kf->buf, kf->buf + 3, strlen(kf->buf + 3) + 1);   /* a UTF-8 byte-order mark */
        char *hash = strchr(kf->buf, '#');
        if (hash != NULL)
            *hash = '\0';
        char *s = kv_trim(kf->buf);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL)
            return sim_error_set(err, kf->code, "%s: expected 'key = value', found '%s'",
                                 kf->where, s);
        *eq = '\0';
        *key = kv_trim(s);
        *val = kv_trim(eq + 1);
        if (**key == '\0')
            return sim_error_set(err, kf->code, "%s: missing key before '='", kf->where);
        if (**val == '\0')
            return sim_error_set(err, kf->code, "%s: missing value for '%s'", kf->where, *key);
        return 1;
    }
    if (ferror(kf->fp))
        return sim_error_set(err, SIM_ERR_IO, "%s: read error: %s", kf->path, strerror(errno));
    return 0;
}

void
kvfile_close(struct kvfile *kf)
{
    if (kf->fp != NULL)
        fclose(kf->fp);
    kf->fp = NULL;
}
