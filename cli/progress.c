/*
 * progress.c - the progress line of long runs (see progress.h).
 */
#include "cli/progress.h"

#include <unistd.h>

#define PROGRESS_AFTER_S 2.0
#define PROGRESS_EVERY_S 0.25
#define PROGRESS_TICKS 16         /* block retirements between clock reads */

void
progress_init(struct progress *p, bool enabled)
{
    *p = (struct progress){ 0 };
    if (enabled && isatty(STDERR_FILENO))
        p->out = stderr;
    p->t0 = p->t_kernel = smsim_wall_seconds();
}

void
progress_kernel(struct progress *p, uint32_t index, const char *name)
{
    p->kernel = index;
    p->name = name;
    p->t_kernel = smsim_wall_seconds();
}

static void
draw(struct progress *p, const smsim_sim *s, double now)
{
    uint64_t done = smsim_blocks_retired(s), total = smsim_blocks_total(s);
    double el = now - p->t0, kel = now - p->t_kernel;
    double rate = el > 0 ? (double)smsim_warp_insts(s) / el : 0;
    fprintf(p->out, "\r\033[Kkernel %u %s: %llu/%llu blocks, %llu cycles, %.1f M warp-inst/s",
            p->kernel, p->name ? p->name : "", (unsigned long long)done,
            (unsigned long long)total, (unsigned long long)smsim_now(s), rate / 1e6);
    if (done > 0 && done < total)
        fprintf(p->out, ", ETA %.0f s", kel * (double)(total - done) / (double)done);
    fflush(p->out);
    p->t_drawn = now;
}

void
progress_event(struct progress *p, const smsim_sim *s)
{
    if (p->out == NULL || ++p->tick < PROGRESS_TICKS)
        return;
    p->tick = 0;
    double now = smsim_wall_seconds();
    if (now - p->t0 >= PROGRESS_AFTER_S && now - p->t_drawn >= PROGRESS_EVERY_S)
        draw(p, s, now);
}

void
progress_end(struct progress *p)
{
    if (p->out != NULL && p->t_drawn > 0) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
    p->t_drawn = 0;
}
