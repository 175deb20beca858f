/*
 * error.h - the three-tier error policy.
 *
 * (a) Bad input, bad configuration and I/O failures are *expected* errors:
 *     functions return a negative enum sim_err and fill a struct sim_error
 *     whose message names the file and line (or byte offset) and what was
 *     expected.  The CLI maps them to exit code 2.
 * (b) A broken model invariant is a bug: SIM_ASSERT / SIM_PANIC print the
 *     source location (and the simulated cycle where one is known) and exit
 *     with status 3 (or abort() when SMSIM_ABORT is set, for a core dump).
 * (c) Allocation failure is fatal: xmalloc and friends never return NULL.
 */
#ifndef SMSIM_SIM_ERROR_H
#define SMSIM_SIM_ERROR_H

#include <stddef.h>
#include <stdarg.h>
#include "sim/types.h"

enum sim_err {
    SIM_OK = 0,
    SIM_ERR_IO = -1,          /* cannot open/read/write a file */
    SIM_ERR_FORMAT = -2,      /* malformed input (trace, PTX, launch file) */
    SIM_ERR_CONFIG = -3,      /* unknown key, bad value, out of range */
    SIM_ERR_NOMEM = -4,       /* implausible size requested by an input */
    SIM_ERR_UNSUPPORTED = -5, /* valid input that smsim does not support */
    SIM_ERR_USAGE = -6,       /* bad command-line usage */
    SIM_ERR_INTERNAL = -7     /* an invariant failed (model bug) */
};

#define SIM_ERRMSG_MAX 1024

/* An error report: plain data, owned by the caller, reusable. */
struct sim_error {
    int code;                    /* enum sim_err, SIM_OK when clear */
    char msg[SIM_ERRMSG_MAX];    /* "file:line: what was wrong, what was expected" */
};

/* Name of an error code ("I/O error", "format error", ...). */
const char *sim_strerror(int code);

/* Record an error in *e (if e is not NULL) and return code (negative).
 * printf-style message; a previous message is overwritten. */
int sim_error_set(struct sim_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sim_error_vset(struct sim_error *e, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Prefix an existing message with more context ("while reading X: ..."). */
void sim_error_prefix(struct sim_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void sim_error_clear(struct sim_error *e);

/* Exit status for an error code: 1 usage, 2 bad input, 3 internal. */
int sim_error_exit_status(int code);

/* Return on error, recording it: SIM_RETURN_IF(n > max, err, SIM_ERR_FORMAT, "..."). */
#define SIM_RETURN_IF(cond, e, code, ...) \
    do { if (cond) return sim_error_set((e), (code), __VA_ARGS__); } while (0)

/* Propagate a negative status unchanged. */
#define SIM_FORWARD_IF_ERROR(expr) \
    do { int sim_fwd_rc_ = (expr); if (sim_fwd_rc_ < 0) return sim_fwd_rc_; } while (0)

/* Print "smsim: KIND: message\n" (kind NULL: "smsim: message") on stderr
 * on one line (a newline or tab becomes a space), with every other control
 * character and byte that is not UTF-8 written as \xNN, so a file name or token quoted from an input can neither move
 * the terminal's cursor nor change its colours. */
void sim_report(const char *kind, const char *msg);
void sim_reportf(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sim_vreportf(const char *kind, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Bytes of the UTF-8 encoded character of 2 to 4 bytes at s (valid and
 * shortest form), or 0 when s does not start one. */
unsigned sim_utf8_len(const char *s);

/* msg with control characters and invalid UTF-8 written as \xNN, into
 * buf (n bytes, truncated at a character). */
void sim_escape(char *buf, size_t n, const char *msg);

/* ---- invariants ------------------------------------------------------ */

/* Print "smsim: internal error at FILE:LINE (cycle C): msg" and exit(3). */
_Noreturn void sim_panic_at(const char *file, int line, sim_cycle_t cycle,
                            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define SIM_NO_CYCLE SIM_CYCLE_MAX

#define SIM_PANIC(...) sim_panic_at(__FILE__, __LINE__, SIM_NO_CYCLE, __VA_ARGS__)
#define SIM_PANIC_AT(cycle, ...) sim_panic_at(__FILE__, __LINE__, (cycle), __VA_ARGS__)

/* Always-on assertion (model invariants are cheap to check where used). */
#define SIM_ASSERT(cond) \
    do { if (!(cond)) sim_panic_at(__FILE__, __LINE__, SIM_NO_CYCLE, "assertion failed: %s", #cond); } while (0)
#define SIM_ASSERT_AT(cycle, cond) \
    do { if (!(cond)) sim_panic_at(__FILE__, __LINE__, (cycle), "assertion failed: %s", #cond); } while (0)

/* Debug-only assertion, compiled out unless SIM_DEBUGLEVEL >= 2. */
#if defined(SIM_DEBUGLEVEL) && SIM_DEBUGLEVEL >= 2
#define SIM_DASSERT(cond) SIM_ASSERT(cond)
#else
#define SIM_DASSERT(cond) ((void)0)
#endif

/* ---- allocation (never returns NULL) --------------------------------- */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
/* xcalloc() of an array whose type asks for `align`-byte alignment (a power
 * of two; host cache lines): free() it as usual. */
void *xcalloc_aligned(size_t count, size_t size, size_t align);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The first n bytes of s (fewer if s is shorter), NUL-terminated. */
char *xstrndup(const char *s, size_t n);

#endif /* SMSIM_SIM_ERROR_H */
