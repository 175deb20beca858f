/*
 * report.c - text and JSON printers (see report.h).
 */
#include "sim/report.h"

#include <stdint.h>
#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* The scheduler-slot classes (sm.slot.*), in their order. */
#define SM_SLOT_CLASSES 7
static const char *const slot_names[SM_SLOT_CLASSES] = {
    "issued", "no_inst", "scoreboard", "memory", "pipe_busy", "barrier", "idle"
};

/* CPI stack: every scheduler slot is classified once, so the slots of one
 * SM add up to cycles x sub-partitions; dividing each class by
 * sub-partitions x warp instructions splits the SM's cycles per warp
 * instruction (cpi) into parts that add up to it. */
struct cpi {
    double cpi;
    double part[SM_SLOT_CLASSES];
};

/* For SM sm_i, or every SM together when sm_i == SIZE_MAX. */
static void
cpi_get(const stats *st, const struct stats_snapshot *sn, size_t sm_i, uint32_t n_sub,
        struct cpi *c)
{
    char nm[64];
    uint64_t wi = sm_i == SIZE_MAX ? stats_get(st, sn, "sm.warp_insts")
                                   : stats_get_at(st, sn, "sm.warp_insts", sm_i);
    double den = (double)wi * n_sub;
    memset(c, 0, sizeof *c);
    for (unsigned i = 0; i < SM_SLOT_CLASSES; i++) {
        snprintf(nm, sizeof nm, "sm.slot.%s", slot_names[i]);
        uint64_t v = sm_i == SIZE_MAX ? stats_get(st, sn, nm) : stats_get_at(st, sn, nm, sm_i);
        c->part[i] = den > 0 ? (double)v / den : 0.0;
        c->cpi += c->part[i];
    }
}

static void
cpi_text_per_sm(FILE *out, const stats *st, const struct stats_snapshot *sn, uint32_t n_sub)
{
    size_t n = stats_instances(st, "sm.warp_insts");
    fprintf(out, "  CPI stack per SM (cycles per warp instruction):\n    %4s %8s", "sm", "cpi");
    for (unsigned i = 0; i < SM_SLOT_CLASSES; i++)
        fprintf(out, " %10s", slot_names[i]);
    fputc('\n', out);
    for (size_t m = 0; m < n; m++) {
        struct cpi c;
        cpi_get(st, sn, m, n_sub, &c);
        fprintf(out, "    %4zu %8.3f", m, c.cpi);
        for (unsigned i = 0; i < SM_SLOT_CLASSES; i++)
            fprintf(out, " %10.3f", c.part[i]);
        fputc('\n', out);
    }
}

static void
cpi_json(FILE *out, const stats *st, const struct stats_snapshot *sn, uint32_t n_sub)
{
    struct cpi c;
    size_t n = stats_instances(st, "sm.warp_insts");
    cpi_get(st, sn, SIZE_MAX, n_sub, &c);
    fputs("      \"cpi_stack\": {\"cpi\": ", out);
    stats_json_double(out, c.cpi);
    for (unsigned i = 0; i < SM_SLOT_CLASSES; i++) {
        fprintf(out, ", \"%s\": ", slot_names[i]);
        stats_json_double(out, c.part[i]);
    }
    fputs(",\n        \"per_sm\": {", out);
    for (unsigned i = 0; i <= SM_SLOT_CLASSES; i++) {
        fprintf(out, "%s\"%s\": [", i ? ",\n          " : "", i ? slot_names[i - 1] : "cpi");
        for (size_t m = 0; m < n; m++) {
            cpi_get(st, sn, m, n_sub, &c);
            if (m)
                fputs(", ", out);
            stats_json_double(out, i ? c.part[i - 1] : c.cpi);
        }
        fputc(']', out);
    }
    fputs("}},\n", out);
}

static void
kernel_text(FILE *out, const sim *s, size_t k, bool per_sm)
{
    const struct sim_kernel_result *kr = sim_kernel(s, k);
    const stats *st = sim_stats(s);
    const struct stats_snapshot *sn = sim_kernel_stats(s, k);
    const struct sim_config *c = sim_config(s);
    uint64_t wi = stats_get(st, sn, "sm.warp_insts");

    char name[4 * sizeof kr->ki.name];
    sim_escape(name, sizeof name, kr->ki.name);    /* a trace's name may hold any bytes */
    fprintf(out, "kernel %zu: %s\n", k, name);
    fprintf(out, "  launch        grid (%u,%u,%u) x block (%u,%u,%u) = %" PRIu64 " blocks of %u "
                 "warps; %u regs/thread%s, %u B shared/block\n",
            kr->ki.grid[0], kr->ki.grid[1], kr->ki.grid[2], kr->ki.block[0], kr->ki.block[1],
            kr->ki.block[2], kernel_info_blocks(&kr->ki), kr->occ.warps_per_block,
            kr->ki.regs_per_thread, kr->regs_requested > kr->ki.regs_per_thread ?
            " (clamped: the kernel asks for more)" : "", kr->ki.smem_static + kr->ki.smem_dynamic);
    fprintf(out, "  occupancy     %u blocks/SM (limited by %s) = %u warps, %.1f %% theoretical, "
                 "%.1f %% achieved\n",
            kr->occ.blocks_per_sm, occupancy_limiter_name(kr->occ.limiter), kr->occ.active_warps,
            100.0 * kr->occ.occupancy,
            100.0 * stats_get_ratio(st, sn, "sm.achieved_occupancy"));
    /* rates are of what was simulated in detail */
    const struct sample_result *sr = &kr->sample;
    double simc = (double)sr->simulated;
    fprintf(out, "  cycles        %" PRIu64 "%s (%.3f us at %.0f MHz)\n", kr->cycles,
            kr->truncated ? " (stopped at sim.max_cycles)" : sr->sampled ? " (sampled)" : "",
            (double)kr->cycles / c->gpu_clock_mhz, c->gpu_clock_mhz);
    if (sr->sampled)
        fprintf(out, "  sampled       %" PRIu64 " of %" PRIu64 " blocks simulated in %" PRIu64
                     " cycles; %" PRIu64 " skipped (%" PRIu64 " warp instructions, run "
                     "functionally) in %u run(s); interval [%" PRIu64 ", %" PRIu64
                     "] (-%.1f/+%.1f %%); the statistics below cover the simulated blocks\n",
                kr->blocks, kernel_info_blocks(&kr->ki), sr->simulated, sr->blocks_skipped,
                sr->insts_skipped, sr->runs, sr->lo, sr->hi,
                100.0 * (double)(kr->cycles - sr->lo) / (double)kr->cycles,
                100.0 * (double)(sr->hi - kr->cycles) / (double)kr->cycles);
    else if (kr->sample_asked)
        fprintf(out, "  sampled       no, simulated in full: %s\n", kr->sample_why);
    fprintf(out, "  instructions  %" PRIu64 " warp, %" PRIu64 " thread; IPC %.3f per GPU, "
                 "%.3f per SM\n", wi, stats_get(st, sn, "sm.thread_insts"),
            simc > 0 ? (double)wi / simc : 0.0,
            stats_get_ratio(st, sn, "sm.ipc"));
    struct cpi cs;
    cpi_get(st, sn, SIZE_MAX, c->sm_subpartitions, &cs);
    fprintf(out, "  CPI stack     %.3f cycles per warp instruction per SM =", cs.cpi);
    for (unsigned i = 0; i < SM_SLOT_CLASSES; i++)
        fprintf(out, "%s %s %.3f", i ? " +" : "", slot_names[i], cs.part[i]);
    fputc('\n', out);
    fprintf(out, "  memory        L1 hit %.1f %%, L2 hit %.1f %%, DRAM %.3f MB read + %.3f MB "
                 "written (%.1f GB/s), %" PRIu64 " bank-conflict wavefronts\n",
            100.0 * stats_get_ratio(st, sn, "sm.l1.hit_rate"),
            100.0 * stats_get_ratio(st, sn, "l2.hit_rate"),
            (double)stats_get(st, sn, "dram.read_bytes") / 1e6,
            (double)stats_get(st, sn, "dram.write_bytes") / 1e6,
            simc > 0 ? (double)(stats_get(st, sn, "dram.read_bytes") +
                                stats_get(st, sn, "dram.write_bytes")) *
                           c->gpu_clock_mhz / 1e3 / simc
                     : 0.0,
            stats_get(st, sn, "sm.mem.bank_conflicts"));
    if (per_sm) {
        cpi_text_per_sm(out, st, sn, c->sm_subpartitions);
        fputs("  statistics:\n", out);
        stats_print_text(out, st, sn, true);
    }
}

void
report_text(FILE *out, const sim *s, const char *config_name, bool per_sm)
{
    const struct sim_config *c = sim_config(s);
    fprintf(out, "smsim %s: config %s (%s, %u SMs at %.0f MHz)\n", PACKAGE_VERSION, config_name,
            c->gpu_name, c->sm_count, c->gpu_clock_mhz);
    for (size_t k = 0; k < sim_kernel_count(s); k++)
        kernel_text(out, s, k, per_sm);
    fprintf(out, "total: %zu kernel(s), %" PRIu64 " cycles (%.3f us), %" PRIu64
                 " warp instructions\n",
            sim_kernel_count(s), sim_total_cycles(s),
            (double)sim_total_cycles(s) / c->gpu_clock_mhz,
            stats_get(sim_stats(s), sim_total_snapshot(s), "sm.warp_insts"));
}

static void
json_config(FILE *out, const struct sim_config *c)
{
    char val[CFG_STR_MAX + 32];
    fputs("  \"config\": {\n", out);
    for (size_t i = 0; i < config_field_count(); i++) {
        const struct cfg_field *f = config_field(i);
        config_format_value(c, i, val, sizeof val);
        fputs("    ", out);
        stats_json_string(out, f->name);
        fputs(": ", out);
        if (f->type == CFG_T_STR || f->type == CFG_T_ENUM)
            stats_json_string(out, val);
        else
            fputs(val, out);
        fputs(i + 1 < config_field_count() ? ",\n" : "\n", out);
    }
    fputs("  },\n", out);
}

/* A kernel's sampling (only when sim.sample was set: runs without it
 * print what they always did). */
static void
json_sample(FILE *out, const struct sim_kernel_result *kr)
{
    const struct sample_result *sr = &kr->sample;
    if (!kr->sample_asked)
        return;
    if (!sr->sampled) {
        fputs("      \"sampled\": false,\n      \"sample_why\": ", out);
        stats_json_string(out, kr->sample_why);
        fputs(",\n", out);
        return;
    }
    fprintf(out, "      \"sampled\": true,\n      \"cycles_lo\": %" PRIu64 ",\n"
                 "      \"cycles_hi\": %" PRIu64 ",\n      \"cycles_simulated\": %" PRIu64
                 ",\n      \"blocks_simulated\": %" PRIu64 ",\n      \"blocks_skipped\": %"
                 PRIu64 ",\n      \"warp_insts_skipped\": %" PRIu64 ",\n",
            sr->lo, sr->hi, sr->simulated, kr->blocks, sr->blocks_skipped, sr->insts_skipped);
    const struct { const char *name; double v; } terms[] = {
        { "rel_sd", sr->rel_sd }, { "half_drift", sr->half_drift },
        { "half_noise", sr->half_noise }, { "half_mix", sr->half_mix },
        { "half_settle", sr->half_settle }, { "half_tail", sr->half_tail },
        { "settle", sr->settle },
    };
    fprintf(out, "      \"sample\": {\"runs\": %u", sr->runs);
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        fprintf(out, ", \"%s\": ", terms[i].name);
        stats_json_double(out, terms[i].v);
    }
    fputs("},\n", out);
}

static void
json_sample_totals(FILE *out, const sim *s)
{
    bool asked = false, any = false;
    uint64_t lo = 0, hi = 0, skipped = 0;
    for (size_t k = 0; k < sim_kernel_count(s); k++) {
        const struct sim_kernel_result *kr = sim_kernel(s, k);
        asked = asked || kr->sample_asked;
        any = any || kr->sample.sampled;
        lo += kr->sample.lo;
        hi += kr->sample.hi;
        skipped += kr->sample.insts_skipped;
    }
    if (asked)
        fprintf(out, "  \"sampled\": %s,\n  \"cycles_lo\": %" PRIu64 ",\n  \"cycles_hi\": %"
                     PRIu64 ",\n  \"warp_insts_skipped\": %" PRIu64 ",\n",
                any ? "true" : "false", lo, hi, skipped);
}

void
report_json(FILE *out, const sim *s, const char *config_name)
{
    const stats *st = sim_stats(s);
    fputs("{\n  \"smsim_version\": ", out);
    stats_json_string(out, PACKAGE_VERSION);
    fputs(",\n  \"config_name\": ", out);
    stats_json_string(out, config_name);
    fprintf(out, ",\n  \"cycles\": %" PRIu64 ",\n  \"warp_insts\": %" PRIu64 ",\n",
            sim_total_cycles(s), stats_get(st, sim_total_snapshot(s), "sm.warp_insts"));
    json_sample_totals(out, s);
    json_config(out, sim_config(s));
    fputs("  \"kernels\": [", out);
    for (size_t k = 0; k < sim_kernel_count(s); k++) {
        const struct sim_kernel_result *kr = sim_kernel(s, k);
        const struct stats_snapshot *sn = sim_kernel_stats(s, k);
        fputs(k ? ",\n    {\n" : "\n    {\n", out);
        fprintf(out, "      \"index\": %zu,\n      \"name\": ", k);
        stats_json_string(out, kr->ki.name);
        fprintf(out, ",\n      \"grid\": [%u, %u, %u],\n      \"block\": [%u, %u, %u],\n",
                kr->ki.grid[0], kr->ki.grid[1], kr->ki.grid[2], kr->ki.block[0], kr->ki.block[1],
                kr->ki.block[2]);
        fprintf(out, "      \"regs_per_thread\": %u,\n      \"regs_requested\": %u,\n"
                     "      \"smem_per_block\": %u,\n",
                kr->ki.regs_per_thread, kr->regs_requested,
                kr->ki.smem_static + kr->ki.smem_dynamic);
        fprintf(out, "      \"occupancy\": {\"blocks_per_sm\": %u, \"warps_per_block\": %u, "
                     "\"active_warps\": %u, \"occupancy\": ",
                kr->occ.blocks_per_sm, kr->occ.warps_per_block, kr->occ.active_warps);
        stats_json_double(out, kr->occ.occupancy);
        fputs(", \"limiter\": ", out);
        stats_json_string(out, occupancy_limiter_name(kr->occ.limiter));
        fprintf(out, ", \"carveout_kb\": %u, \"l1_bytes\": %" PRIu64 "},\n", kr->carveout_kb,
                kr->l1_bytes);
        fprintf(out, "      \"start_cycle\": %" PRIu64 ",\n      \"cycles\": %" PRIu64
                     ",\n      \"truncated\": %s,\n",
                kr->start, kr->cycles, kr->truncated ? "true" : "false");
        fprintf(out, "      \"warp_insts\": %" PRIu64 ",\n",
                stats_get(st, sn, "sm.warp_insts"));
        json_sample(out, kr);
        cpi_json(out, st, sn, sim_config(s)->sm_subpartitions);
        fputs("      \"stats\": {\n", out);
        stats_print_json(out, st, sn, 8);
        fputs("      }\n    }", out);
    }
    fputs(sim_kernel_count(s) ? "\n  ],\n" : "],\n", out);
    fputs("  \"totals\": {\n", out);
    stats_print_json(out, st, sim_total_snapshot(s), 4);
    fputs("  }\n}\n", out);
}

/* Per-window columns, in order, with their meaning: the single source for
 * the CSV header, the JSON Lines keys and doc/stats-reference.md. */
static const struct wcol {
    const char *name, *unit, *help;
} wcols[] = {
    { "kernel", "", "kernel index (0 = first kernel of the run)" },
    { "scope", "", "`sm` (one SM's instructions) or `gpu` (every SM's, in issue order)" },
    { "sm", "", "the SM; -1 for GPU-wide windows" },
    { "window", "", "window number within its kernel and scope, from 0" },
    { "first_cycle", "cycles", "first cycle of the window: the cycle after the previous window of "
                               "its scope closed (the kernel's start for the first)" },
    { "last_cycle", "cycles", "the cycle its last (K-th) warp instruction issued" },
    { "cycles", "cycles", "last_cycle - first_cycle + 1" },
    { "warp_insts", "warp insts", "warp instructions in the window (K; fewer for the last)" },
    { "n_warp_fp32", "warp insts", "N_warp_fp32: FP32 and FP32-FMA warp instructions" },
    { "theta", "fraction", "theta: mean active-lane fraction of the FP32 warp instructions" },
    { "m_fma", "fraction", "m_FMA: share of the FP32 warp instructions that are FMAs" },
    { "f_fp32", "fraction", "f_fp32: n_warp_fp32 / warp_insts" },
    { "u_issue", "fraction", "u_issue: FP32 pipe issue slots used / available in the window's cycles" },
    { "c_fp32", "lanes", "C_fp32: FP32 lanes of the scope (pipe.sp.lanes x sm.subpartitions, "
                         "x sm.count GPU-wide)" },
    { "phi", "FLOPs/cycle", "Phi = theta x C_fp32 x (1 + m_FMA): seed 000's per-window FP32 bound" },
    { "phi_hat", "FLOPs/cycle", "Phi_hat = u_issue x f_fp32 x Phi: the extended bound" },
    { "flops", "FLOPs/cycle", "achieved: active FP32 lanes x (1 + FMA) / cycles" },
};
/* Index of the first floating-point column (theta). */
#define WCOL_FIRST_REAL 9

void
report_window_header(FILE *out, enum report_wfmt f, uint32_t n_sched)
{
    if (f != REPORT_WCSV)
        return;
    for (size_t i = 0; i < SIM_ARRAY_LEN(wcols); i++)
        fprintf(out, "%s%s", i ? "," : "", wcols[i].name);
    for (unsigned p = 0; p < SIM_PIPE_COUNT; p++)
        fprintf(out, ",u_%s", cfg_pipe_names[p]);
    for (uint32_t k = 0; k < n_sched; k++)
        fprintf(out, ",u_sched%u", k);
    fputc('\n', out);
}

static void
wnum(FILE *out, enum report_wfmt f, const char *key, double v)
{
    if (f == REPORT_WCSV) {
        fputc(',', out);
        stats_json_double(out, v);
    } else {
        fprintf(out, ", \"%s\": ", key);
        stats_json_double(out, v);
    }
}

void
report_window_row(FILE *out, enum report_wfmt f, uint32_t n_sched, const struct window_row *r)
{
    if (f == REPORT_WCSV)
        fprintf(out, "%u,%s,%ld,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%" PRIu64, r->kernel, r->gpu ? "gpu" : "sm", r->gpu ? -1L : (long)r->sm,
                r->index, r->first, r->last, r->last - r->first + 1, r->insts, r->n_fp32);
    else
        fprintf(out, "{\"kernel\": %u, \"scope\": \"%s\", \"sm\": %ld, \"window\": %" PRIu64
                     ", \"first_cycle\": %" PRIu64 ", \"last_cycle\": %" PRIu64
                     ", \"cycles\": %" PRIu64 ", \"warp_insts\": %" PRIu64
                     ", \"n_warp_fp32\": %" PRIu64, r->kernel, r->gpu ? "gpu" : "sm",
                r->gpu ? -1L : (long)r->sm, r->index, r->first, r->last,
                r->last - r->first + 1, r->insts, r->n_fp32);
    const double v[] = { r->theta, r->m_fma, r->f_fp32, r->u_issue, r->c_fp32, r->phi,
                         r->phi_hat, r->flops };
    for (size_t i = 0; i < SIM_ARRAY_LEN(v); i++)
        wnum(out, f, wcols[WCOL_FIRST_REAL + i].name, v[i]);
    for (unsigned p = 0; p < SIM_PIPE_COUNT; p++) {
        char key[32];
        snprintf(key, sizeof key, "u_%s", cfg_pipe_names[p]);
        wnum(out, f, key, r->u_pipe[p]);
    }
    if (f == REPORT_WCSV) {
        for (uint32_t k = 0; k < n_sched; k++) {
            fputc(',', out);
            if (!r->gpu)
                stats_json_double(out, k < r->n_sched ? r->u_sched[k] : 0.0);
        }
        fputc('\n', out);
    } else {
        if (!r->gpu) {
            fputs(", \"u_sched\": [", out);
            for (uint32_t k = 0; k < r->n_sched; k++) {
                if (k)
                    fputs(", ", out);
                stats_json_double(out, r->u_sched[k]);
            }
            fputc(']', out);
        }
        fputs("}\n", out);
    }
}

void
report_stats_reference(FILE *out, const sim *s)
{
    fputs("# Statistics reference\n\n"
          "<!-- Generated by `smsim stats doc`; do not edit. -->\n\n"
          "Every statistic smsim reports, in the order it is printed.  Counters are\n"
          "integers summed over the kernel (or the run, under `totals`); a counter \"per sm\"\n"
          "has one value per SM (JSON: under `per_sm`) and its total is the sum.  Ratios\n"
          "are computed from two counters when printed (per SM when both are per-SM\n"
          "counters).  One scheduler issue slot is one cycle of one warp scheduler; each\n"
          "slot is classified exactly once (`sm.slot.*`), so the seven classes add up to\n"
          "cycles x sub-partitions per SM.\n\n"
          "Top-level JSON keys: `cycles` (all kernels, core clock), `warp_insts`,\n"
          "`config` (every config field), `kernels` (per kernel: `name`, `grid`, `block`,\n"
          "`regs_per_thread`, `regs_requested` (more than `regs_per_thread` when the\n"
          "kernel asked for more registers than the GPU has and was clamped),\n"
          "`smem_per_block`, `occupancy`, `start_cycle`, `cycles`, `truncated`,\n"
          "`warp_insts`, `stats`) and `totals`.\n\n", out);
    stats_print_reference(out, sim_stats(s));

    fputs("\n## CPI stack\n\n"
          "The summary's `CPI stack` line and the JSON key `cpi_stack` of each kernel split\n"
          "the cycles per warp instruction of one SM by what its scheduler slots did:\n"
          "`cpi` = cycles x sub-partitions / warp instructions, and each part (`issued`,\n"
          "`no_inst`, `scoreboard`, `memory`, `pipe_busy`, `barrier`, `idle`) is\n"
          "`sm.slot.<part>` / warp instructions, so the parts add up to `cpi`.  `issued`\n"
          "is 1 / dispatch units when every slot issues (0.25 on a 4-scheduler SM).\n"
          "`per_sm` holds the same numbers per SM (`smsim run --per-sm` prints them); an\n"
          "SM that issued nothing shows 0 for all of them.\n\n"
          "## Per-window statistics\n\n"
          "`smsim run --windows K --windows-out FILE` writes one row per window of K\n"
          "dynamic warp instructions, per SM (`scope` = `sm`) and GPU-wide (`gpu`), as\n"
          "CSV (`.csv`) or JSON Lines (`.jsonl`, same keys, `u_sched` as an array).  The\n"
          "windows of one scope tile the kernel: every cycle belongs to exactly one.\n"
          "Seed 000 defines theta, m_FMA, f_fp32, u_issue, Phi and Phi_hat; pipe and\n"
          "scheduler utilisations are charged at the issue cycle, so a window of few\n"
          "cycles can show a multi-cycle instruction as slightly over 1.\n\n"
          "| Column | Unit | Meaning |\n|---|---|---|\n", out);
    for (size_t i = 0; i < SIM_ARRAY_LEN(wcols); i++)
        fprintf(out, "| `%s` | %s | %s |\n", wcols[i].name, wcols[i].unit, wcols[i].help);
    for (unsigned p = 0; p < SIM_PIPE_COUNT; p++)
        fprintf(out, "| `u_%s` | fraction | %s pipe: pipe-cycles occupied (32 / lanes per "
                     "instruction) / (cycles x sub-partitions%s) |\n",
                cfg_pipe_names[p], cfg_pipe_names[p], ", x SMs GPU-wide");
    fputs("| `u_sched<k>` | fraction | scheduler k of the SM: instructions issued / (cycles x "
          "dispatch units); empty GPU-wide |\n", out);
}
