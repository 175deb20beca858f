/*
 * report.c - text and JSON printers (see report.h).
 */
#include "sim/report.h"

#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static double
pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void
kernel_text(FILE *out, const sim *s, size_t k, bool per_sm)
{
    const struct sim_kernel_result *kr = sim_kernel(s, k);
    const stats *st = sim_stats(s);
    const struct stats_snapshot *sn = &kr->snap;
    const struct sim_config *c = sim_config(s);
    uint64_t wi = stats_get(st, sn, "sm.warp_insts");
    static const char *const slots[] = { "issued", "no_inst", "scoreboard", "memory",
                                         "pipe_busy", "barrier", "idle" };
    uint64_t slot_total = 0, sv[7];

    fprintf(out, "kernel %zu: %s\n", k, kr->ki.name);
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
    fprintf(out, "  cycles        %" PRIu64 "%s (%.3f us at %.0f MHz)\n", kr->cycles,
            kr->truncated ? " (stopped at sim.max_cycles)" : "",
            (double)kr->cycles / c->gpu_clock_mhz, c->gpu_clock_mhz);
    fprintf(out, "  instructions  %" PRIu64 " warp, %" PRIu64 " thread; IPC %.3f per GPU, "
                 "%.3f per SM\n", wi, stats_get(st, sn, "sm.thread_insts"),
            kr->cycles ? (double)wi / (double)kr->cycles : 0.0,
            stats_get_ratio(st, sn, "sm.ipc"));
    for (unsigned i = 0; i < 7; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "sm.slot.%s", slots[i]);
        sv[i] = stats_get(st, sn, nm);
        slot_total += sv[i];
    }
    fputs("  issue slots  ", out);
    for (unsigned i = 0; i < 7; i++)
        fprintf(out, " %s %.1f%%", slots[i], pct(sv[i], slot_total));
    fputc('\n', out);
    fprintf(out, "  memory        L1 hit %.1f %%, L2 hit %.1f %%, DRAM %.3f MB read + %.3f MB "
                 "written (%.1f GB/s), %" PRIu64 " bank-conflict wavefronts\n",
            100.0 * stats_get_ratio(st, sn, "sm.l1.hit_rate"),
            100.0 * stats_get_ratio(st, sn, "l2.hit_rate"),
            (double)stats_get(st, sn, "dram.read_bytes") / 1e6,
            (double)stats_get(st, sn, "dram.write_bytes") / 1e6,
            kr->cycles ? (double)(stats_get(st, sn, "dram.read_bytes") +
                                  stats_get(st, sn, "dram.write_bytes")) *
                             c->gpu_clock_mhz / 1e3 / (double)kr->cycles
                       : 0.0,
            stats_get(st, sn, "sm.mem.bank_conflicts"));
    if (per_sm) {
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
    json_config(out, sim_config(s));
    fputs("  \"kernels\": [", out);
    for (size_t k = 0; k < sim_kernel_count(s); k++) {
        const struct sim_kernel_result *kr = sim_kernel(s, k);
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
        fprintf(out, "      \"warp_insts\": %" PRIu64 ",\n      \"stats\": {\n",
                stats_get(st, &kr->snap, "sm.warp_insts"));
        stats_print_json(out, st, &kr->snap, 8);
        fputs("      }\n    }", out);
    }
    fputs(sim_kernel_count(s) ? "\n  ],\n" : "],\n", out);
    fputs("  \"totals\": {\n", out);
    stats_print_json(out, st, sim_total_snapshot(s), 4);
    fputs("  }\n}\n", out);
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
}
