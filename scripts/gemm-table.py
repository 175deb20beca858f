#!/usr/bin/env python3
"""gemm-table.py - seed 002 section 5's GEMM progression, simulated.

    python3 scripts/gemm-table.py [--smsim build/smsim] [--jobs 2] [--only REGEX]

Runs the ten kernels of traces/gemm (traces/gemm/README.md; for the naive
row gemm_naive_kn, which stores B K x N as the seed's naive kernel does,
not gemm_naive's N x K that the tensor-core kernels share) on the h100
config at the seed's size (M = 4096, N = 8192, K = 16384: 1.1 TFLOP a
GEMM) and writes validation/gemm.tsv (kernel, seed_ms, sim_ms, err_pct,
seed_tflops, sim_tflops, and how each figure was sampled) and the plot
doc/gemm-progression.{svg,png}.

A full-size run is 10^9 to 10^11 warp instructions, days of simulation
on this project's 2-core machine, so each figure is sampled (the
scaling issue's design, done here by hand and said so in the TSV):

  * waves: a GEMM's blocks are alike.  The sample is a slab of whole tile
    rows holding at most one wave of blocks (132 SMs x the blocks an SM
    holds, from the kernel's occupancy), at the seed's N; the full grid
    takes ceil(blocks / wave) such waves.  The 4 or so SMs a slab leaves
    idle make it a few per cent optimistic.  gemm_ws (persistent) gets one
    tile a block: its overlap of one tile's epilogue with the next
    tile's loads is not sampled.  gemm_wgmma_pipe_swz's grouped order
    (L2 reuse across 8 tile rows) is not either: a slab has 2.
  * k-loop: a block's time is a prologue plus its k-tiles, each alike
    once the pipeline is full; the slab runs at K1 and K2 = 2 K1 and the
    time is extrapolated linearly to the seed's K.  K1 = 1024 for the six
    Hopper kernels (at K2 the slab's B, 64 MB, already exceeds the 50 MB
    L2, as at the seed's K); 512 for the four sm_80 kernels, whose
    simulation is slower (their B, 32 MB at K2, still fits: L2 traffic
    the full size would send to DRAM is not sampled).

Every figure is the model's cycles at the config's 1,980 MHz.  Exit
status 0, or 2 when a run fails.
"""
import argparse
import concurrent.futures
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smsimlib import ROOT, gnuplot_draw, gnuplot_path, read_tsv, tsv, write_atomic  # noqa: E402

M, N, K = 4096, 8192, 16384
SQUARE = (1024, 2048)     # --write-launches: square GEMMs simulated whole
SMS = 132
CLOCK_MHZ = 1980.0

# kernel, PTX, seed row, seed ms, tile rows x cols, threads, regs, smem,
# (K1 for the k-loop sample), grid kind
KERNELS = [
    ("gemm_naive_kn", "gemm_simt.ptx", "Naive (FP32)", 296.23, (16, 16), 256, 32, 0, 512, "2d"),
    ("gemm_mma", "gemm_simt.ptx", "CuTe Simple MMA (TF32)", 26.04, (128, 128), 128, 212, 0, 512, "2d"),
    ("gemm_smem8", "gemm_simt.ptx", "CuTe SMEM k=8 (TF32)", 17.85, (128, 128), 128, 164, 0, 512, "2d"),
    ("gemm_smem32", "gemm_simt.ptx", "CuTe SMEM k=32 (TF32)", 11.55, (128, 128), 128, 164, 0, 512, "2d"),
    ("gemm_wgmma", "gemm_wgmma.ptx", "CuTe WGMMA", 6.26, (128, 128), 256, 92, 32768, 1024, "2d"),
    ("gemm_wgmma_pipe", "gemm_wgmma.ptx", "CuTe WGMMA Pipe", 4.50, (128, 128), 256, 90, 65536, 1024,
     "2d"),
    ("gemm_wgmma_pipe_swz", "gemm_wgmma.ptx", "CuTe WGMMA Pipe+Swiz", 4.47, (128, 128), 256, 92,
     65536, 1024, "1d"),
    ("gemm_tma", "gemm_tma.ptx", "CuTe WGMMA TMA 128x128", 4.62, (128, 128), 384, 90, 99328, 1024,
     "tma"),
    ("gemm_tma_wide", "gemm_tma.ptx", "CuTe WGMMA TMA 128x256", 3.65, (128, 256), 512, 90, 148480,
     1024, "tma"),
    ("gemm_ws", "gemm_tma.ptx", "CUTLASS WS GEMM", 4.80, (128, 128), 384, 168, 99328, 1024, "ws"),
]

# the progression's steps (seed 002 sec 5 "Progression")
STEPS = [("gemm_naive_kn", "gemm_mma"), ("gemm_mma", "gemm_smem32"), ("gemm_smem32", "gemm_wgmma"),
         ("gemm_wgmma", "gemm_wgmma_pipe"), ("gemm_wgmma_pipe", "gemm_tma_wide")]


def launch_text(k, rows, kk, ptxdir=None, persistent=False, n=N):
    """The launch file of kernel k on a slab of `rows` tile rows at K = kk
    (the PTX named from ptxdir, else by its absolute path; persistent: a
    gemm_ws grid of one block per SM, else one tile a block)."""
    name, ptx, _, _, (tm, tn), threads, regs, smem, _, kind = k
    m = rows * tm
    gx, gy = n // tn, rows
    what = ("the seed's full size" if (m, n, kk) == (M, N, K) else "a slab" if n == N
            else "a square GEMM")
    lines = ["# gemm-table.py: %s, %s, %d x %d x %d (M x N x K)" % (name, what, m, n, kk),
             # B: N x K, or K x N for gemm_naive_kn: the same count
             "ptx    = %s" % (os.path.join(ptxdir, ptx) if ptxdir is not None
                              else os.path.join(ROOT, "traces", "gemm", ptx)),
             "kernel = %s" % name]
    if kind == "1d":
        lines.append("grid   = %d" % (gx * gy))
    elif kind == "ws":
        lines.append("grid   = %d" % (min(SMS, gx * gy) if persistent else gx * gy))
    else:
        lines.append("grid   = %d, %d" % (gx, gy))
    lines.append("block  = %d" % threads)
    if smem:
        lines.append("smem   = %d" % smem)
    lines.append("regs   = %d" % regs)
    if kind in ("tma", "ws"):
        lines += ["mem    = a f32 %d random -1 1 seed 1" % (m * kk),
                  "mem    = b f32 %d random -1 1 seed 2" % (n * kk),
                  "arg    = tmA tensormap a f32 dims=%d,%d box=32,128 swizzle=128B" % (kk, m),
                  "arg    = tmB tensormap b f32 dims=%d,%d box=32,128 swizzle=128B" % (kk, n)]
    else:
        lines += ["arg    = a buffer f32 %d random -1 1 seed 1" % (m * kk),
                  "arg    = b buffer f32 %d random -1 1 seed 2" % (n * kk)]
    lines += ["arg    = C buffer f32 %d zeros" % (m * n), "arg    = M s32 %d" % m,
              "arg    = N s32 %d" % n, "arg    = K s32 %d" % kk]
    return "\n".join(lines) + "\n"


def run(smsim, tmp, k, rows, kk):
    """(cycles, blocks per SM) of kernel k's slab at K = kk."""
    path = os.path.join(tmp, "%s_r%d_k%d.launch" % (k[0], rows, kk))
    with open(path, "w") as f:
        f.write(launch_text(k, rows, kk))
    p = subprocess.run([smsim, "run", "--config", "h100", "--no-outputs", "--launch", path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: smsim exit %d: %s" % (path, p.returncode, p.stderr.strip()))
    cyc = re.search(r"^\s+cycles\s+(\d+)", p.stdout, re.M)
    occ = re.search(r"occupancy\s+(\d+) blocks/SM", p.stdout)
    if cyc is None or occ is None:
        raise RuntimeError("%s: no cycles or occupancy in smsim's summary" % path)
    return int(cyc.group(1)), int(occ.group(1))


def sample(smsim, tmp, k):
    """Kernel k's sampled full-size figure and how it was sampled."""
    name, _, _, seed_ms, (tm, tn), _, _, _, k1, kind = k
    per_row = N // tn
    # blocks an SM holds: from a small run (one tile row)
    _, bps = run(smsim, tmp, k, 1, 64 if tm == 16 else 128)
    wave = SMS * bps
    rows = max(1, wave // per_row)
    blocks = (M // tm) * per_row
    waves = math.ceil(blocks / wave)
    c1, _ = run(smsim, tmp, k, rows, k1)
    c2, _ = run(smsim, tmp, k, rows, 2 * k1)
    slab = c2 + (c2 - c1) * (K - 2 * k1) / k1
    cycles = waves * slab
    sim_ms = cycles / (CLOCK_MHZ * 1e3)
    flops = 2.0 * M * N * K
    return {"kernel": name, "seed_ms": seed_ms, "sim_ms": sim_ms,
            "err_pct": 100.0 * (sim_ms - seed_ms) / seed_ms,
            "seed_tflops": flops / (seed_ms * 1e-3) / 1e12,
            "sim_tflops": flops / (sim_ms * 1e-3) / 1e12,
            "blocks_per_sm": bps, "slab_rows": rows * tm, "waves": waves, "k1": k1,
            "cycles_k1": c1, "cycles_k2": c2, "sim_cycles": int(round(cycles))}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smsim", default=os.path.join(ROOT, "build", "smsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=None, help="kernels whose name matches (no files written)")
    ap.add_argument("--no-sim", action="store_true",
                    help="rewrite validation/gemm.tsv's measured columns and the plot from its "
                    "simulated figures, running nothing")
    ap.add_argument("--write-launches", metavar="DIR",
                    help="write each kernel's launch files at the seed's size (NAME_full), "
                    "of the two sampled slabs (NAME_slab1, _slab2; rows from "
                    "validation/gemm.tsv) and square (NAME_sq1024, _sq2048) to DIR, "
                    "running nothing")
    a = ap.parse_args(argv)
    if a.write_launches:
        return write_launches(a.write_launches)
    if a.no_sim:
        with tempfile.TemporaryDirectory(prefix="gemm-table.") as tmp:
            return write_table(rows_of_tsv(), tmp)
    ks = [k for k in KERNELS if a.only is None or re.search(a.only, k[0])]
    res = {}
    with tempfile.TemporaryDirectory(prefix="gemm-table.") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = {ex.submit(sample, a.smsim, tmp, k): k[0] for k in ks}
            for f in concurrent.futures.as_completed(futs):
                try:
                    r = f.result()
                except RuntimeError as e:
                    print("gemm-table: %s" % e, file=sys.stderr)
                    return 2
                res[r["kernel"]] = r
                print("%-20s sim %7.2f ms  (%d waves of %d-row slabs)"
                      % (r["kernel"], r["sim_ms"], r["waves"], r["slab_rows"]), flush=True)
        rows = [res[k[0]] for k in ks if k[0] in res]
        if a.only is not None:
            add_measured(rows)
            report(rows)
            return 0
        return write_table(rows, tmp)


SIM_COLS = ["kernel", "seed_ms", "sim_ms", "err_pct", "seed_tflops", "sim_tflops", "blocks_per_sm",
            "slab_rows", "waves", "k1", "cycles_k1", "cycles_k2", "sim_cycles"]
HW_COLS = ["hw_ms", "sim_vs_hw_pct", "hw_vs_seed_pct", "hw_cycles_k1", "hw_cycles_k2",
           "hw_sampled_ms"]
MEASURED = os.path.join(ROOT, "validation", "measured", "h100-sxm5")


def add_measured(rows):
    """The same kernels on a real H100 (validation/measured/h100-sxm5,
    gemm-full.tsv and gemm-slabs.tsv): hw_ms at the seed's size (CUDA
    events, the mean of the sittings), the slabs' cycles (ncu), and the
    table's sampling applied to those slabs (at the clock they ran at)."""
    full, slabs = {}, {}
    for r in read_tsv(os.path.join(MEASURED, "gemm-full.tsv"))[1]:
        full.setdefault(os.path.basename(r["launch_file"])[:-len("_full.launch")], []).append(
            float(r["duration_ns"]) * 1e-6)
    for r in read_tsv(os.path.join(MEASURED, "gemm-slabs.tsv"))[1]:
        slabs[os.path.basename(r["launch_file"])[:-len(".launch")]] = (
            int(r["cycles"]), float(r["sm_clock_hz"]))
    for r in rows:
        name = r["kernel"]
        if name not in full:
            for c in HW_COLS:
                r[c] = "-"
            continue
        hw = sum(full[name]) / len(full[name])
        r["hw_ms"] = hw
        r["sim_vs_hw_pct"] = 100.0 * (r["sim_ms"] - hw) / hw
        r["hw_vs_seed_pct"] = 100.0 * (hw - r["seed_ms"]) / r["seed_ms"]
        (c1, f1), (c2, f2) = slabs[name + "_slab1"], slabs[name + "_slab2"]
        r["hw_cycles_k1"], r["hw_cycles_k2"] = c1, c2
        slab = c2 + (c2 - c1) * (K - 2 * r["k1"]) / r["k1"]
        r["hw_sampled_ms"] = r["waves"] * slab / ((f1 + f2) / 2) * 1e3


def report(rows):
    """Print each kernel against the seed and the H100, and the steps."""
    res = {r["kernel"]: r for r in rows}
    for r in rows:
        hw = ("  H100 %6.2f ms (sim %+6.1f %%, H100 vs seed %+6.1f %%)"
              % (r["hw_ms"], r["sim_vs_hw_pct"], r["hw_vs_seed_pct"])
              if r.get("hw_ms", "-") != "-" else "")
        print("%-20s seed %7.2f ms  sim %7.2f ms  %+6.1f %%%s"
              % (r["kernel"], r["seed_ms"], r["sim_ms"], r["err_pct"], hw))
    for s0, s1 in STEPS:
        if s0 in res and s1 in res:
            seed = res[s0]["seed_ms"] / res[s1]["seed_ms"]
            sim = res[s0]["sim_ms"] / res[s1]["sim_ms"]
            line = ("step %s -> %s: seed %.2fx, sim %.2fx (%+.1f %%)"
                    % (s0, s1, seed, sim, 100.0 * (sim - seed) / seed))
            if res[s0].get("hw_ms", "-") != "-" and res[s1].get("hw_ms", "-") != "-":
                hw = res[s0]["hw_ms"] / res[s1]["hw_ms"]
                line += ", H100 %.2fx (sim %+.1f %%)" % (hw, 100.0 * (sim - hw) / hw)
            print(line)


def write_table(rows, tmp):
    """validation/gemm.tsv and the plot, from the sampled rows."""
    add_measured(rows)
    report(rows)
    fmt = {"seed_ms": "%.2f", "sim_ms": "%.2f", "err_pct": "%+.1f", "seed_tflops": "%.1f",
           "sim_tflops": "%.1f", "hw_ms": "%.2f", "sim_vs_hw_pct": "%+.1f",
           "hw_vs_seed_pct": "%+.1f", "hw_sampled_ms": "%.2f"}
    body = [[(fmt.get(c, "%s") if r[c] != "-" else "%s") % r[c] for c in SIM_COLS + HW_COLS]
            for r in rows]
    comment = ["seed 002 sec 5 GEMMs (M=4096 N=8192 K=16384) on the h100 config, sampled: a slab "
               "of slab_rows rows x N (at most one wave)",
               "at K = k1 and 2 k1, extrapolated linearly to K, times waves "
               "(scripts/gemm-table.py; sim_* at 1,980 MHz).  hw_*: the same kernels on a real",
               "H100 SXM5 (validation/measured/h100-sxm5/gemm-*.tsv): hw_ms at the seed's size "
               "(CUDA events), hw_cycles_k*: the slabs (ncu),",
               "hw_sampled_ms: the same sampling applied to the measured slabs"]
    write_atomic(os.path.join(ROOT, "validation", "gemm.tsv"), tsv(comment, SIM_COLS + HW_COLS, body))
    plot(rows, tmp)
    print("gemm-table: wrote validation/gemm.tsv")
    return 0


def rows_of_tsv():
    """validation/gemm.tsv's simulated columns, as sample() returns them."""
    _, rows = read_tsv(os.path.join(ROOT, "validation", "gemm.tsv"))
    out = []
    for r in rows:
        d = {c: r[c] for c in SIM_COLS}
        for c in ("seed_ms", "sim_ms", "err_pct", "seed_tflops", "sim_tflops"):
            d[c] = float(d[c])
        for c in ("blocks_per_sm", "slab_rows", "waves", "k1", "cycles_k1", "cycles_k2",
                  "sim_cycles"):
            d[c] = int(d[c])
        out.append(d)
    return out


def write_launches(d):
    """The launch files a GPU measures (scripts/measure-gpu.py) to judge
    the table: full size, and the two slabs the table simulates."""
    _, rows = read_tsv(os.path.join(ROOT, "validation", "gemm.tsv"))
    slab = {r["kernel"]: int(r["slab_rows"]) for r in rows}
    os.makedirs(d, exist_ok=True)
    ptxdir = os.path.relpath(os.path.join(ROOT, "traces", "gemm"), os.path.abspath(d))
    for k in KERNELS:
        name, tm, k1 = k[0], k[4][0], k[8]
        if name not in slab:
            print("gemm-table: %s has no row in validation/gemm.tsv" % name, file=sys.stderr)
            return 2
        files = [("full", M // tm, K, N), ("slab1", slab[name] // tm, k1, N),
                 ("slab2", slab[name] // tm, 2 * k1, N)]
        if name != "gemm_naive_kn":   # square sizes smsim runs whole
            files += [("sq%d" % q, q // tm, q, q) for q in SQUARE]
        for tag, rows_, kk, n in files:
            write_atomic(os.path.join(d, "%s_%s.launch" % (name, tag)),
                         launch_text(k, rows_, kk, ptxdir, persistent=(tag != "slab1" and
                                                                       tag != "slab2"), n=n))
    print("gemm-table: wrote the launch files to %s" % d)
    return 0


def plot(rows, tmp):
    """doc/gemm-progression.{svg,png}: TFLOPS by kernel: the seed's, smsim's
    and this project's kernels measured on an H100."""
    gp = gnuplot_path()
    if gp is None:
        print("gemm-table: no gnuplot: the plot is not drawn", file=sys.stderr)
        return 0
    flops = 2.0 * M * N * K
    lines = ["%d \"%s\" %.3f %.3f %s" % (i, r["kernel"].replace("gemm_", ""), r["seed_tflops"],
                                         r["sim_tflops"],
                                         "%.3f" % (flops / (r["hw_ms"] * 1e-3) / 1e12)
                                         if r.get("hw_ms", "-") != "-" else "NaN")
             for i, r in enumerate(rows)]
    settings = ("set termoption noenhanced\n"
                "set title 'Seed 002 GEMM progression (H100, M=4096 N=8192 K=16384)'\n"
                "set ylabel 'TFLOPS'\nset xtics rotate by -40\nset key top left\n"
                "set grid ytics\nset yrange [0:*]\nset xrange [-0.5:%d]\n" % len(rows))
    plots = ["'gemm.dat' using 1:3:xtic(2) with linespoints title 'H100 (seed 002)'",
             "'gemm.dat' using 1:4 with linespoints title 'smsim (sampled)'",
             "'gemm.dat' using 1:5 with linespoints title 'traces/gemm kernels on an H100'"]
    gnuplot_draw(gp, tmp, os.path.join(ROOT, "doc", "gemm-progression"),
                 os.path.join(tmp, "gemm.dat"), lines, settings, plots)
    print("gemm-table: wrote doc/gemm-progression.{svg,png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
