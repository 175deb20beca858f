"""The published micro-benchmark figures, run on every config (a section of
`make validate`, scripts/validate.py).

validation/published.tsv holds what papers and public benchmark outputs
measured on the GPUs the configs model (or a GPU with the same SM, named in
its measured_gpu column): load-to-use latencies by pointer chasing,
dependent-issue latencies of single instructions, and bandwidths, each
with its source and where in it the figure stands.  This module writes,
for every config, launch files of the same micro-benchmarks
(traces/ubench/ubench.cu, and the chases and copies of traces/micro/) sized
for that config (one block per SM, working sets from its L2 size), runs them through the timing model and sets each simulated figure
beside each published one.  The figures it compares are cycles at the
config's clock (latencies, and shared and L1 throughput per SM) and GB/s
(L2 and DRAM bandwidth).

Nothing here is fitted: the table only reports how far each config's
mechanisms, run the way the papers ran their benchmarks, land from what the
papers measured.
"""
import os
import re

from smsimlib import ROOT, PipelineError, fnum, fpct, md_table, mean, pct, read_tsv, tsv

UBENCH = os.path.join(ROOT, "traces", "ubench", "ubench.ptx")
LATENCY = os.path.join(ROOT, "traces", "micro", "latency.ptx")
COPY = os.path.join(ROOT, "traces", "micro", "copy_bw.ptx")
TABLE = os.path.join(ROOT, "validation", "published.tsv")

# Every config, oldest architecture first.
CONFIGS = ["gtx760", "titan-black", "940mx", "titan-x", "gtx1070", "v100", "titan-v",
           "rtx2080ti", "a100", "rtx4070", "h100", "h200"]
QUICK_CONFIGS = ["h100"]
QUICK_QUANTITIES = ["lat_smem", "bw_smem"]

TOLERANCE_PCT = 10.0
LATENCY_MAE_PCT = 10.0
BANDWIDTH_MAE_PCT = 15.0
WITHIN_SHARE_PCT = 70.0

CHAIN = 256         # dependent operations per iteration of a lat_* kernel
CHAIN_ITERS = 4

# The dependent chains: quantity -> (kernel, element type, a, b).  Integer
# and half2 chains take raw 32-bit operands.
CHAINS = {
    "lat_fadd": ("lat_fadd", "f32", "0.5", "1.0001"),
    "lat_fmul": ("lat_fmul", "f32", "0.5", "1.0001"),
    "lat_ffma": ("lat_ffma", "f32", "0.5", "1.0001"),
    "lat_iadd": ("lat_iadd", "u32", "3", "7"),
    "lat_imad": ("lat_imad", "u32", "3", "7"),
    "lat_dfma": ("lat_dfma", "f64", "0.5", "1.0001"),
    "lat_hfma2": ("lat_hfma2", "u32", "0x3c003c00", "0x3c003c00"),
    "lat_mufu": ("lat_mufu", "f32", "2.0", "1.0"),
    "lat_shfl": ("lat_shfl", "u32", "3", "7"),
}
# Registers per thread, `ptxas -v` (CUDA 13.0, sm_75) on the kernels used.
REGS = {"lat_mufu": 15, "lat_shfl": 15, "chase_smem_ptr": 14, "chase_l1_ptr": 22,
        "bw_smem": 15, "bw_l1": 23, "bw_l2": 12, "chase_l2": 32, "chase_dram": 14,
        "copy_f4_u4": 32}

QUANTITY_LABEL = {
    "lat_smem": "shared-memory load (pointer chase)",
    "lat_l1": "L1 hit (pointer chase)",
    "lat_l2": "L2 hit (pointer chase)",
    "lat_dram": "DRAM (pointer chase)",
    "lat_fadd": "FADD", "lat_fmul": "FMUL", "lat_ffma": "FFMA", "lat_iadd": "IADD",
    "lat_imad": "IMAD", "lat_dfma": "DFMA", "lat_hfma2": "HFMA2", "lat_mufu": "MUFU (rsqrt)",
    "lat_shfl": "SHFL",
    "bw_smem": "shared-memory throughput", "bw_l1": "L1 throughput",
    "bw_l2": "L2 read bandwidth", "bw_dram": "DRAM copy bandwidth",
}
# cycles, ns: latencies; B/clk/SM: shared and L1 throughput per SM; GB/s
# and B/clk: L2 and DRAM bandwidth of the whole GPU (B/clk = GB/s over the
# clock in GHz: a sibling GPU's L2 with the same slices at another clock);
# %peak: DRAM bandwidth as a share of the theoretical peak (a sibling GPU
# with another memory clock or width).
UNITS = {"cycles", "ns", "B/clk/SM", "GB/s", "B/clk", "%peak"}

# The papers compile their L1 benchmarks with -Xptxas -dlcm=ca, which makes
# global loads cache in L1 on GPUs whose default is L2 only (CC 3.x, 5.x);
# smsim's l1.cache_global is that compile default.
DLCM_CA = ("l1.cache_global=true",)


def read_table(path=TABLE):
    """The published figures: a list of dicts (the TSV's columns)."""
    _, rows = read_tsv(path)
    for r in rows:
        where = "%s:%d" % (os.path.relpath(path, ROOT), r["_line"])
        if r["quantity"] not in QUANTITY_LABEL:
            raise PipelineError("%s: unknown quantity %r" % (where, r["quantity"]))
        if r["unit"] not in UNITS:
            raise PipelineError("%s: unit %r, expected one of %s" % (where, r["unit"],
                                                                      ", ".join(sorted(UNITS))))
        try:
            r["value"] = float(r["value"])
        except ValueError:
            raise PipelineError("%s: value %r is not a number" % (where, r["value"]))
    return rows


def config_facts(runner, config):
    """The fields the launch files are sized by and the units converted with."""
    return {key: float(runner.config_field(config, key))
            for key in ("sm.count", "sm.max_threads", "l2.size_kb", "gpu.clock_mhz",
                        "dram.bandwidth_gbps")}


def _launch(ptx, kernel, grid, block, args, comment, repeat=1):
    lines = ["# " + comment, "ptx    = " + ptx,
             "kernel = " + kernel, "grid   = %d" % grid, "block  = %d" % block,
             "regs   = %d" % REGS.get(kernel, 12)]
    if repeat > 1:
        lines.append("repeat = %d" % repeat)
    lines += ["arg    = " + a for a in args]
    lines += ["output = clk clk.bin"] if any(a.startswith("clk ") for a in args) else []
    return "\n".join(lines) + "\n"


def launches(facts):
    """quantity -> (launch file text, how to read the result, --set
    overrides): 'clk/N' (the kernel's clk[0] / N cycles), 'bytes/clk' (N
    bytes per clk[0]) or 'gbps' (N bytes over the last launch's time)."""
    sms = int(facts["sm.count"])
    l2 = int(facts["l2.size_kb"]) * 1024
    out = {}
    for q, (kernel, t, a, b) in sorted(CHAINS.items()):
        out[q] = (_launch(UBENCH, kernel, 1, 32,
                          ["a %s %s" % (t, a), "b %s %s" % (t, b),
                           "out buffer %s 32 zeros" % t, "clk buffer u64 1 zeros",
                           "iters s32 %d" % CHAIN_ITERS], q),
                  ("clk/N", CHAIN * CHAIN_ITERS))
    steps = 2048
    out["lat_smem"] = (_launch(UBENCH, "chase_smem_ptr", 1, 1,
                               ["a buffer u32 2048 chase 1 seed 3", "n u32 2048",
                                "res buffer u32 1 zeros", "clk buffer u64 1 zeros",
                                "steps s32 %d" % steps], "lat_smem: 8 KB ring"),
                       ("clk/N", steps))
    # L1: a ring of 64 nodes 256 bytes apart (16 KB of u64 addresses).
    out["lat_l1"] = (_launch(UBENCH, "chase_l1_ptr", 1, 1,
                             ["a buffer u32 2048 chase 32 seed 5",
                              "p buffer u64 2048 zeros", "n u32 2048", "stride u32 32",
                              "res buffer u32 1 zeros", "clk buffer u64 1 zeros",
                              "steps s32 %d" % steps], "lat_l1: 64-node ring"),
                     ("clk/N", steps))
    # L2: half the L2 (at most 4 MB, seed 002's size), one node per 128-byte line.
    wset = max(64 * 1024, min(l2 // 2, 4 << 20)) // 4096 * 4096
    out["lat_l2"] = (_launch(LATENCY, "chase_l2", 1, 1,
                             ["a buffer u32 %d chase 32 seed 3" % (wset // 4),
                              "n u32 %d" % (wset // 4), "stride u32 32",
                              "res buffer u32 2 zeros", "clk buffer u64 1 zeros",
                              "steps s32 %d" % steps], "lat_l2: %d KB ring" % (wset >> 10)),
                     ("clk/N", steps))
    # DRAM: caches start cold and the timed pass touches each line once;
    # the ring spreads over twice the L2 (at least 16 MB).
    wset = max(16 << 20, 2 * l2)
    out["lat_dram"] = (_launch(LATENCY, "chase_dram", 1, 1,
                               ["a buffer u32 %d chase 32 seed 4" % (wset // 4),
                                "res buffer u32 1 zeros", "clk buffer u64 1 zeros",
                                "steps s32 1024"], "lat_dram: %d MB ring" % (wset >> 20)),
                       ("clk/N", 1024))
    iters = 32
    out["bw_smem"] = (_launch(UBENCH, "bw_smem", sms, 1024,
                              ["out buffer u32 %d zeros" % (sms * 1024),
                               "clk buffer u64 1 zeros", "iters s32 %d" % iters],
                              "bw_smem: one block per SM"),
                      ("bytes/clk", 1024 * 4 * 32 * iters))
    out["bw_l1"] = (_launch(UBENCH, "bw_l1", sms, 1024,
                            ["buf buffer f32 4096 random -1 1 seed 6",
                             "out buffer f32 %d zeros" % (sms * 1024),
                             "clk buffer u64 1 zeros", "iters s32 %d" % iters],
                            "bw_l1: one block per SM, 16 KB"),
                    ("bytes/clk", 1024 * 16 * 4 * iters))
    # L2 read bandwidth: a quarter of the L2, read 8 times by one wave of
    # 1024-thread blocks (as many per SM as fit); launch 1 brings the buffer
    # into L2, launch 2 is timed.
    per_sm = max(1, int(facts["sm.max_threads"]) // 1024)
    threads = per_sm * sms * 1024
    n = max(threads, (l2 // 4 // 16) // threads * threads)
    passes = 8
    out["bw_l2"] = (_launch(UBENCH, "bw_l2", per_sm * sms, 1024,
                            ["buf buffer f32 %d random -1 1 seed 7" % (4 * n), "n u32 %d" % n,
                             "out buffer f32 %d zeros" % threads, "iters s32 %d" % passes],
                            "bw_l2: %d KB read %d times" % (n * 16 >> 10, passes), repeat=2),
                    ("gbps", n * 16 * passes))
    # DRAM copy: two buffers of twice the L2 each (at least 32 MB), one
    # block per SM; launch 2 (timed) starts with launch 1's dirty lines in L2,
    # as every timed iteration of a STREAM-style loop does.
    nbytes = max(32 << 20, 2 * l2) // (1 << 20) * (1 << 20)
    out["bw_dram"] = (_launch(COPY, "copy_f4_u4", sms, 1024,
                              ["src buffer f32 %d random -1 1 seed 7" % (nbytes // 4),
                               "dst buffer f32 %d zeros" % (nbytes // 4),
                               "n u64 %d" % (nbytes // 16)],
                              "bw_dram: %d MB copy" % (nbytes >> 20), repeat=2),
                      ("gbps", 2 * nbytes))
    return {q: (text, how, DLCM_CA if q in ("lat_l1", "bw_l1") else ())
            for q, (text, how) in out.items()}


def plan(runner, tmp, quick):
    """Jobs for validate.py's executor, and what reading them needs:
    (jobs, meta) with meta[(config, quantity)] = (how, N, the config's facts)."""
    jobs, meta = {}, {}
    d = os.path.join(tmp, "published")
    os.makedirs(d, exist_ok=True)
    for config in (QUICK_CONFIGS if quick else CONFIGS):
        facts = config_facts(runner, config)
        for q, (text, how, sets) in sorted(launches(facts).items()):
            if quick and q not in QUICK_QUANTITIES:
                continue
            path = os.path.join(d, "%s-%s.launch" % (config, q))
            with open(path, "w") as f:
                f.write(text)
            jobs[("pub", config, q)] = ("run", (path, config, sets))
            meta[(config, q)] = how + (facts,)
    return jobs, meta


def simulated(res, meta):
    """(config, quantity) -> the simulated figure: cycles, B/clk/SM or GB/s."""
    out = {}
    for (config, q), (how, n, _) in meta.items():
        r = res[("pub", config, q)]
        if how == "clk/N":
            out[(config, q)] = r["u64"]["clk"] / float(n)
        elif how == "bytes/clk":
            out[(config, q)] = n / float(r["u64"]["clk"])
        else:
            cycles = r["kernels"][-1]["cycles"] - r["launch_latency"]
            out[(config, q)] = n / (cycles / r["clock_mhz"] * 1e-6) / 1e9
    return out


def in_unit(v, unit, facts):
    """A simulated figure (cycles, B/clk/SM or GB/s) in a published row's unit."""
    if unit == "ns":
        return v / facts["gpu.clock_mhz"] * 1000.0
    if unit == "B/clk":
        return v / (facts["gpu.clock_mhz"] / 1000.0)
    if unit == "%peak":
        return 100.0 * v / facts["dram.bandwidth_gbps"]
    return v


def build(rep, res, meta, quick):
    sim = simulated(res, meta)
    configs = QUICK_CONFIGS if quick else CONFIGS
    rows, trows, errs = [], [], {"lat": [], "bw": []}
    for p in read_table():
        config, q = p["config"], p["quantity"]
        if config not in configs or (config, q) not in sim:
            continue
        v = in_unit(sim[(config, q)], p["unit"], meta[(config, q)][2])
        e = pct(v, p["value"])
        errs["lat" if q.startswith("lat_") else "bw"].append(e)
        rows.append([config, QUANTITY_LABEL[q], p["measured_gpu"], "%s %s" % (fnum(p["value"], "%g"),
                     p["unit"]), fnum(v, "%.1f"), fpct(e), "%s (%s)" % (p["source"], p["where"])])
        trows.append([config, q, p["measured_gpu"], "%g" % p["value"], p["unit"], "%.2f" % v,
                      "%.1f" % e, p["source"], p["label"]])
    lat = [abs(e) for e in errs["lat"]]
    bw = [abs(e) for e in errs["bw"]]
    both = lat + bw
    within = 100.0 * sum(1 for e in both if e <= TOLERANCE_PCT) / len(both) if both else 0.0
    line = ("%d on %d configs, latency MAE %s %% (%d), bandwidth MAE %s %% (%d), %.0f %% within "
            "%g %%." % (len(both), len({r[0] for r in rows}), fnum(mean(lat), "%.1f"), len(lat),
                        fnum(mean(bw), "%.1f"), len(bw), within, TOLERANCE_PCT))
    rep.sections["published"] = "\n".join([
        "Published figures: " + line, "",
        md_table(["config", "quantity", "measured on", "published", "smsim", "error %", "source"],
                 "lllrrrl", rows)])
    rep.files["validation/published-results.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): the micro-benchmarks of "
         "traces/ubench on every config",
         "beside the published figures of validation/published.tsv (smsim in the row's unit)"],
        ["config", "quantity", "measured_gpu", "published", "unit", "smsim", "error_pct",
         "source", "label"], trows)
    rep.summary.append("Published micro-benchmark figures: " + line)
    if lat:
        rep.criteria.append(("published latencies, MAE", "<= %g %%" % LATENCY_MAE_PCT,
                             "%.1f %%" % mean(lat), mean(lat) <= LATENCY_MAE_PCT))
    if bw:
        rep.criteria.append(("published bandwidths, MAE", "<= %g %%" % BANDWIDTH_MAE_PCT,
                             "%.1f %%" % mean(bw), mean(bw) <= BANDWIDTH_MAE_PCT))
    if both:
        rep.criteria.append(("published figures within %g %%" % TOLERANCE_PCT,
                             ">= %g %%" % WITHIN_SHARE_PCT, "%.0f %%" % within,
                             within >= WITHIN_SHARE_PCT))
