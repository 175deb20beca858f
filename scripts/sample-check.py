#!/usr/bin/env python3
"""Sampled against full simulation (smsim run --sample; sim/sample.h).

Runs every case of CASES twice, in full and with --sample, on the same
config, and writes one row per case to validation/sample.tsv: the cycles
of each, the sampled run's error against the full one, whether the full
cycles lie inside the stated interval, the blocks and warp instructions
skipped, and the wall time of both (the speed-up).  The summary (mean |error|, interval hits,
median speed-up above 10^8 warp instructions) goes to stdout and into
doc/performance.md's generated section.

    scripts/sample-check.py --smsim build/smsim [--jobs 2] [--only NAME,...]

The cases span the families the issue names: micro-benchmarks (built-in
synthetic kernels, probes), memory-bound kernels, real-world kernels
(Rodinia, from ../shared/measured/h100/rodinia: used from there), tensor-
core kernels and irregular ones (BFS, B+tree, divergent control).  Grids
too small for the H100 to run many waves run on a GPU of fewer SMs (the
GTX 1070's 15, the RTX 4070's 46), which is as valid a comparison of
sampled against full: both runs use the same config.  Launch outputs are
not written (--no-outputs); tests/sample.sh checks that a sampled run's
outputs equal emulate's.
"""
import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import time

import tempfile

import smsimlib as L
from correlate import RODINIA, prepare_extra

R = "@RODINIA@"      # replaced by the folder holding the Rodinia launch files and their data

# (name, family, config, input arguments)
CASES = [
    # micro-benchmarks
    ("synth_fma_h100", "micro", "h100", ["--synth", "fma:blocks=16896,threads=256,n=256"]),
    ("synth_fma_ilp4_1070", "micro", "gtx1070", ["--synth", "fma:blocks=2400,threads=256,n=512,ilp=4"]),
    ("synth_saxpy_h100", "micro", "h100", ["--synth", "saxpy:blocks=10560,threads=256,iters=8"]),
    ("synth_saxpy_alu_v100", "micro", "v100", ["--synth", "saxpy:blocks=6400,threads=256,iters=4,alu=4"]),
    ("synth_fma_big_h100", "micro", "h100", ["--synth", "fma:blocks=135168,threads=256,n=256"]),
    ("synth_copy_big_h100", "memory", "h100", ["--synth", "copy:blocks=135168,threads=256,iters=16"]),
    ("probe_empty_g67584_b1024", "micro", "h100", ["--launch", "traces/probe/empty_g67584_b1024.launch"]),
    ("probe_empty_g67584_b32", "micro", "h100", ["--launch", "traces/probe/empty_g67584_b32.launch"]),
    ("probe_spin_g528_i1000_1070", "micro", "gtx1070", ["--launch", "traces/probe/spin_g528_i1000.launch"]),
    # memory-bound
    ("synth_copy_h100", "memory", "h100", ["--synth", "copy:blocks=10560,threads=256,iters=4"]),
    ("synth_copy16_a100", "memory", "a100", ["--synth", "copy:blocks=20000,threads=256,iters=2,width=16"]),
    ("stride_write_s1_96mb", "memory", "h100", ["--launch", "traces/mech/stride_write_s1_96mb.launch"]),
    ("stride_write_s1_48mb", "memory", "h100", ["--launch", "traces/mech/stride_write_s1_48mb.launch"]),
    ("stride_read_s8_4070", "memory", "rtx4070", ["--launch", "traces/mech/stride_read_s8.launch"]),
    ("stride_write_s32_1070", "memory", "gtx1070", ["--launch", "traces/mech/stride_write_s32.launch"]),
    ("h2axpy_h100", "memory", "h100", ["--launch", "traces/modern/h2axpy.launch"]),
    ("cp_async_copy_4070", "memory", "rtx4070", ["--launch", "traces/modern/cp_async_copy.launch"]),
    ("vecadd_1070", "memory", "gtx1070", ["--launch", "traces/vecadd.launch"]),
    ("softmax_rows_4070", "memory", "rtx4070", ["--launch", "traces/mech/softmax_rows_r4096_c1024.launch"]),
    # real-world
    ("gaussian_Fan2", "real-world", "h100", ["--launch", R + "/gaussian_Fan2.launch"]),
    ("lud_internal", "real-world", "h100", ["--launch", R + "/lud_lud_internal.launch"]),
    ("srad_v2_1", "real-world", "h100", ["--launch", R + "/srad_v2_srad_cuda_1.launch"]),
    ("srad_v2_2", "real-world", "h100", ["--launch", R + "/srad_v2_srad_cuda_2.launch"]),
    ("backprop_layerforward_4070", "real-world", "rtx4070", ["--launch", R + "/backprop_bpnn_layerforward_CUDA.launch"]),
    ("backprop_adjust_1070", "real-world", "gtx1070", ["--launch", R + "/backprop_bpnn_adjust_weights_cuda.launch"]),
    ("srad_v1_srad_1070", "real-world", "gtx1070", ["--launch", R + "/srad_v1_srad.launch"]),
    ("srad_v1_reduce_1070", "real-world", "gtx1070", ["--launch", R + "/srad_v1_reduce.launch"]),
    ("hotspot_1070", "real-world", "gtx1070", ["--launch", "traces/hotspot.launch"]),
    ("reduce_1070", "real-world", "gtx1070", ["--launch", "traces/reduce.launch"]),
    ("call_poly_h100", "real-world", "h100", ["--launch", "traces/modern/call_poly.launch"]),
    ("pathfinder_1070", "real-world", "gtx1070", ["--launch", R + "/pathfinder_dynproc_kernel.launch"]),
    # tensor cores
    ("wmma_gemm_1024_4070_8sm", "tensor", "rtx4070", ["--set", "sm.count=8", "--launch", "traces/modern/wmma_gemm_1024.launch"]),
    ("mma_tf32_chain_528x128_4070_4sm", "tensor", "rtx4070", ["--set", "sm.count=4", "--launch", "traces/modern/mma_tf32_chain_528x128.launch"]),
    # irregular
    ("bfs_Kernel_1070", "irregular", "gtx1070", ["--launch", R + "/bfs_Kernel.launch"]),
    ("bfs_Kernel2_1070", "irregular", "gtx1070", ["--launch", R + "/bfs_Kernel2.launch"]),
    ("btree_findK", "irregular", "h100", ["--launch", R + "/b+tree_findK.launch"]),
    ("btree_findRangeK", "irregular", "h100", ["--launch", R + "/b+tree_findRangeK.launch"]),
    ("kmeans_invert_1070", "irregular", "gtx1070", ["--launch", R + "/kmeans_invert_mapping.launch"]),
]

RDIR = [RODINIA]
SETS = []             # --set KEY=VALUE of the sampled runs (trying the sampler's own settings)

COLUMNS = ["name", "family", "config", "warp_insts", "full_cycles", "sampled", "cycles", "cycles_lo",
           "cycles_hi", "err_pct", "in_interval", "blocks", "blocks_skipped", "full_s", "sampled_s",
           "speedup", "why"]


def run_one(smsim, config, args, sample):
    args = [x.replace(R, RDIR[0]) for x in args]
    cmd = [smsim, "run", "--config", config, "--quiet", "--stats-json", "-"] + args
    if "--launch" in args:
        cmd.append("--no-outputs")
    if sample:
        cmd += ["--sample"] + SETS
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=L.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise L.RunFailed("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[:300]))
    return json.loads(p.stdout), wall


def check(smsim, case):
    name, family, config, args = case
    full, tf = run_one(smsim, config, args, False)
    samp, ts = run_one(smsim, config, args, True)
    k = samp["kernels"][0]
    fc = full["cycles"]
    row = {"name": name, "family": family, "config": config, "warp_insts": full["warp_insts"],
           "full_cycles": fc, "sampled": "yes" if samp.get("sampled") else "no",
           "cycles": samp["cycles"], "cycles_lo": samp.get("cycles_lo", samp["cycles"]),
           "cycles_hi": samp.get("cycles_hi", samp["cycles"]),
           "blocks": sum(x["grid"][0] * x["grid"][1] * x["grid"][2] for x in samp["kernels"]),
           "blocks_skipped": sum(x.get("blocks_skipped", 0) for x in samp["kernels"]),
           "full_s": round(tf, 3), "sampled_s": round(ts, 3),
           "why": k.get("sample_why", "") if len(samp["kernels"]) == 1 else ""}
    row["err_pct"] = round(L.pct(row["cycles"], fc), 3)
    row["in_interval"] = "yes" if row["cycles_lo"] <= fc <= row["cycles_hi"] else "no"
    row["speedup"] = round(tf / ts, 2) if ts > 0 else 0
    return row


def summary(rows):
    s = [r for r in rows if r["sampled"] == "yes"]
    out = []
    errs = [abs(r["err_pct"]) for r in rows]
    out.append("cases: %d, sampled: %d (the others simulated in full: why in the table)"
               % (len(rows), len(s)))
    if rows:
        out.append("mean |error| over all cases: %.2f %%; over the sampled ones: %.2f %%"
                   % (statistics.mean(errs), statistics.mean(abs(r["err_pct"]) for r in s) if s else 0))
        bad = [r for r in s if abs(r["err_pct"]) > 3 and r["in_interval"] != "yes"]
        out.append("sampled cases within 3 %% or inside their interval: %d of %d; inside the "
                   "interval: %d of %d; largest |error| %.2f %% (%s)"
                   % (len(s) - len(bad), len(s), sum(r["in_interval"] == "yes" for r in s), len(s),
                      max((abs(r["err_pct"]) for r in s), default=0),
                      max(s, key=lambda r: abs(r["err_pct"]))["name"] if s else "-"))
        big = [r["speedup"] for r in s if r["warp_insts"] >= 1e8]
        out.append("median speed-up of sampled cases: %.1fx; above 10^8 warp instructions: %s"
                   % (statistics.median(r["speedup"] for r in s) if s else 0,
                      "%.1fx (%d cases)" % (statistics.median(big), len(big)) if big else "no case"))
        out.append("mean relative interval half-width of sampled cases: %.2f %%"
                   % (statistics.mean((r["cycles_hi"] - r["cycles_lo"]) / 2 / r["cycles"] * 100
                                      for r in s) if s else 0))
    return out


def markdown(rows):
    t = ["| case | family | config | warp insts | full cycles | sampled cycles | error % | "
         "interval | held | skipped blocks | speed-up |", "|" + "---|" * 11]
    for r in rows:
        if r["sampled"] == "yes":
            iv = "[%d, %d]" % (r["cycles_lo"], r["cycles_hi"])
            t.append("| %s | %s | %s | %.3g | %d | %d | %+.2f | %s | %s | %d of %d | %.1fx |"
                     % (r["name"], r["family"], r["config"], r["warp_insts"], r["full_cycles"],
                        r["cycles"], r["err_pct"], iv, r["in_interval"], r["blocks_skipped"],
                        r["blocks"], r["speedup"]))
        else:
            t.append("| %s | %s | %s | %.3g | %d | full: %s | 0 | — | — | 0 of %d | %.1fx |"
                     % (r["name"], r["family"], r["config"], r["warp_insts"], r["full_cycles"],
                        r["why"] or "—", r["blocks"], r["speedup"]))
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smsim", default=os.path.join(L.ROOT, "build", "smsim"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--family", default="", help="only these families (comma-separated)")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for the sampled runs")
    ap.add_argument("--tsv", default=os.path.join(L.ROOT, "validation", "sample.tsv"))
    ap.add_argument("--doc", default=os.path.join(L.ROOT, "doc", "performance.md"))
    ap.add_argument("--no-doc", action="store_true")
    a = ap.parse_args()
    smsim = os.path.abspath(a.smsim)
    cases = CASES
    if a.only:
        want = set(a.only.split(","))
        cases = [c for c in CASES if c[0] in want]
    if a.family:
        want = set(a.family.split(","))
        cases = [c for c in cases if c[1] in want]
    SETS.extend(x for kv in a.set for x in ("--set", kv))
    work = tempfile.TemporaryDirectory(prefix="sample-check.")
    if any(R in x for c in cases for x in c[3]):
        RDIR[0] = prepare_extra(RODINIA, work.name)[1]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(check, smsim, c) for c in cases]
        rows = []
        for c, f in zip(cases, futs):
            r = f.result()
            rows.append(r)
            print("%-30s %-8s err %+7.2f %% %-3s in [%d, %d] full %d  speed-up %.1fx %s"
                  % (r["name"], r["config"], r["err_pct"], r["sampled"], r["cycles_lo"],
                     r["cycles_hi"], r["full_cycles"], r["speedup"], r["why"]), flush=True)
    for line in summary(rows):
        print(line)
    if a.only or a.family or a.set:
        return 0
    L.write_atomic(a.tsv, L.tsv(["sampled (smsim run --sample) against full simulation: "
                                 "scripts/sample-check.py"], COLUMNS,
                                [[str(r[c]) for c in COLUMNS] for r in rows]))
    if not a.no_doc:
        with open(a.doc) as f:
            doc = f.read()
        text = "\n".join(["- " + x for x in summary(rows)] + [""] + markdown(rows))
        L.write_atomic(a.doc, L.splice(doc, {"sample-check": text}, a.doc,
                                       "scripts/sample-check.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
