/*
 * windows.c - per-window issue statistics (see windows.h).
 *
 * Invariant: an accumulator holds the instructions of the open window of
 * its scope (one per SM, one GPU-wide); it closes after exactly k
 * instructions, so every instruction is counted in one per-SM and one
 * GPU-wide window.  Nothing is allocated per instruction.
 */
#include "sim/windows.h"

#include <stdlib.h>
#include <string.h>

struct acc {
    uint64_t insts, n_fp32, fma, fp32_lanes, index;
    sim_cycle_t begin;           /* first cycle of the open window */
    sim_cycle_t last;            /* cycle of its latest instruction */
    uint64_t pipe_slots[SIM_PIPE_COUNT]; /* lane-slots occupied */
    uint64_t sched[WINDOWS_MAX_SCHED];
};

struct windows {
    uint64_t k;
    windows_emit_fn emit;
    void *ctx;
    uint32_t n_sm, n_sub, n_sched, dispatch;
    uint32_t lanes[SIM_PIPE_COUNT];
    uint8_t pipe[SIM_OPC_COUNT];
    uint64_t cost[SIM_OPC_COUNT];
    uint32_t kernel;
    bool started;
    struct acc gpu;
    struct acc *sm;
};

double
windows_phi(double c_fp32, double theta, double m_fma)
{
    return theta * c_fp32 * (1 + m_fma);
}

double
windows_phi_hat(double u_issue, double f_fp32, double phi)
{
    return u_issue * f_fp32 * phi;
}

windows *
windows_new(const struct sim_config *cfg, uint64_t k, windows_emit_fn emit, void *ctx)
{
    windows *w = xcalloc(1, sizeof *w);
    w->k = k ? k : 1;
    w->emit = emit;
    w->ctx = ctx;
    w->n_sm = cfg->sm_count;
    w->n_sub = cfg->sm_subpartitions;
    w->n_sched = cfg->sm_subpartitions < WINDOWS_MAX_SCHED ? cfg->sm_subpartitions
                                                            : WINDOWS_MAX_SCHED;
    w->dispatch = cfg->sm_dispatch_units ? cfg->sm_dispatch_units : 1;
    for (unsigned p = 0; p < SIM_PIPE_COUNT; p++)
        w->lanes[p] = cfg->pipe_lanes[p];
    for (unsigned o = 0; o < SIM_OPC_COUNT; o++) {
        w->pipe[o] = (uint8_t)cfg->op_pipe[o];
        w->cost[o] = config_op_cost(cfg, o);
    }
    w->sm = xcalloc(w->n_sm, sizeof *w->sm);
    return w;
}

void
windows_destroy(windows *w)
{
    if (w == NULL)
        return;
    free(w->sm);
    free(w);
}

static void
reset(struct acc *a, sim_cycle_t begin)
{
    uint64_t idx = a->index;
    memset(a, 0, sizeof *a);
    a->index = idx;
    a->begin = begin;
}

void
windows_kernel_begin(windows *w, sim_cycle_t start)
{
    w->gpu.index = 0;
    reset(&w->gpu, start);
    for (uint32_t s = 0; s < w->n_sm; s++) {
        w->sm[s].index = 0;
        reset(&w->sm[s], start);
    }
    w->started = true;
}

static void
add(struct acc *a, const windows *w, uint32_t sched, sim_cycle_t cycle,
    const struct warp_inst *wi, unsigned opc)
{
    if (a->insts == 0 && cycle < a->begin)
        a->begin = cycle;        /* several windows closing in one cycle */
    a->last = cycle;
    a->insts++;
    if (opc == SIM_OPC_FP32 || opc == SIM_OPC_FP32_FMA) {
        a->n_fp32++;
        a->fp32_lanes += inst_popc(wi->active_mask);
        if (opc == SIM_OPC_FP32_FMA)
            a->fma++;
    }
    a->pipe_slots[w->pipe[opc]] += w->cost[opc];
    if (sched < WINDOWS_MAX_SCHED)
        a->sched[sched]++;
}

static void
close_window(windows *w, struct acc *a, bool gpu, uint32_t sm)
{
    struct window_row r;
    memset(&r, 0, sizeof r);
    double cycles = (double)(a->last - a->begin + 1);
    double units = gpu ? (double)w->n_sm * w->n_sub : w->n_sub;
    r.gpu = gpu;
    r.sm = sm;
    r.kernel = w->kernel;
    r.index = a->index;
    r.first = a->begin;
    r.last = a->last;
    r.insts = a->insts;
    r.n_fp32 = a->n_fp32;
    r.theta = a->n_fp32 ? (double)a->fp32_lanes / (SIM_WARP_SIZE * (double)a->n_fp32) : 0;
    r.m_fma = a->n_fp32 ? (double)a->fma / (double)a->n_fp32 : 0;
    r.f_fp32 = (double)a->n_fp32 / (double)a->insts;
    r.c_fp32 = w->lanes[SIM_PIPE_SP] * units;
    /* FP32 issue cycles used: each warp instruction 32 / C_fp32 of them */
    r.u_issue = (double)a->n_fp32 * SIM_WARP_SIZE / (cycles * r.c_fp32);
    r.phi = windows_phi(r.c_fp32, r.theta, r.m_fma);
    r.phi_hat = windows_phi_hat(r.u_issue, r.f_fp32, r.phi);
    r.flops = (double)a->fp32_lanes * (1 + r.m_fma) / cycles;
    for (unsigned p = 0; p < SIM_PIPE_COUNT; p++)
        r.u_pipe[p] = (double)a->pipe_slots[p] / (cycles * units * w->lanes[p]);
    if (!gpu) {
        r.n_sched = w->n_sched;
        for (uint32_t s = 0; s < w->n_sched; s++)
            r.u_sched[s] = (double)a->sched[s] / (cycles * w->dispatch);
    }
    w->emit(w->ctx, &r);
    a->index++;
    reset(a, a->last + 1);
}

void
windows_issue(windows *w, uint32_t sm, uint32_t sched, sim_cycle_t cycle,
              const struct warp_inst *wi)
{
    unsigned opc = wi->opclass;
    SIM_ASSERT_AT(cycle, opc < SIM_OPC_COUNT);
    if (!w->started)
        windows_kernel_begin(w, cycle);
    add(&w->gpu, w, UINT32_MAX, cycle, wi, opc);
    if (w->gpu.insts == w->k)
        close_window(w, &w->gpu, true, 0);
    if (sm < w->n_sm) {
        add(&w->sm[sm], w, sched, cycle, wi, opc);
        if (w->sm[sm].insts == w->k)
            close_window(w, &w->sm[sm], false, sm);
    }
}

void
windows_kernel_end(windows *w)
{
    if (w->gpu.insts > 0)
        close_window(w, &w->gpu, true, 0);
    for (uint32_t s = 0; s < w->n_sm; s++)
        if (w->sm[s].insts > 0)
            close_window(w, &w->sm[s], false, s);
    w->kernel++;
    w->started = false;
}
