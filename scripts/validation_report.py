#!/usr/bin/env python3
"""Regenerate the validation table and scatter plot of doc/validation.md.

For each kernel of seed 001 (Hotspot, KNN, MM) on each of its GPUs (GTX 760,
940MX, GTX 1070) this runs

    smsim validate --launch validation/seed-ptx/KERNEL.launch --config GPU --json
    smsim validate manybsp validation/cases/KERNEL-GPU.case --json

and writes validation/results.tsv (one row per case: simulated, Many-BSP as
the report computed it, Many-BSP extracted by smsim, measured, errors) and,
when gnuplot is installed, doc/validation-scatter.svg (predicted vs
measured, with y = x).  The Markdown table for doc/validation.md goes to
stdout.

    python3 scripts/validation_report.py build/smsim
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = ["hotspot", "knn", "mm"]
GPUS = [("gtx760", "GTX 760"), ("940mx", "940MX"), ("gtx1070", "GTX 1070")]


def run(smsim, *args):
    env = dict(os.environ, SMSIM_CONFIG_DIR=os.path.join(ROOT, "configs"),
               SMSIM_VALIDATION_DIR=os.path.join(ROOT, "validation"))
    p = subprocess.run([smsim, *args], capture_output=True, text=True, env=env)
    if p.returncode not in (0, 4):
        sys.exit("smsim %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return json.loads(p.stdout)


def pct(a, b):
    return "%+.1f" % ((a - b) / b * 100) if b else "—"


def main():
    smsim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "smsim")
    rows = []
    for k in KERNELS:
        for g, gname in GPUS:
            v = run(smsim, "validate", "--launch",
                    os.path.join(ROOT, "validation", "seed-ptx", k + ".launch"), "--config", g,
                    "--json")
            c = run(smsim, "validate", "manybsp",
                    os.path.join(ROOT, "validation", "cases", "%s-%s.case" % (k, g)), "--json")
            rows.append(dict(kernel=k, gpu=g, gpu_name=gname, simulated=v["simulated_cycles"],
                             extracted=v["manybsp_cycles"], seed=c["kernel_exec_cycle"],
                             measured=v["measured_cycles"]))
    tsv = os.path.join(ROOT, "validation", "results.tsv")
    with open(tsv, "w") as f:
        f.write("# written by scripts/validation_report.py; cycles of one kernel launch\n")
        f.write("kernel\tgpu\tsimulated\tmanybsp_seed\tmanybsp_extracted\tmeasured\n")
        for r in rows:
            f.write("%s\t%s\t%d\t%d\t%d\t%s\n" % (r["kernel"], r["gpu"], r["simulated"], r["seed"],
                                                 r["extracted"], r["measured"] or "held-out"))
    print("| kernel | GPU | simulated | Many-BSP (seed) | Many-BSP (extracted) | measured |"
          " simulated error % | seed error % | extracted error % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        m = r["measured"]
        print("| %s | %s | %d | %d | %d | %s | %s | %s | %s |" % (
            r["kernel"], r["gpu_name"], r["simulated"], r["seed"], r["extracted"],
            m if m else "held out", pct(r["simulated"], m) if m else "—",
            pct(r["seed"], m) if m else "—", pct(r["extracted"], m) if m else "—"))
    if shutil.which("gnuplot") is None:
        print("\n(gnuplot not found: the plot was not regenerated)", file=sys.stderr)
        return
    dat = os.path.join(ROOT, "validation", "results.dat")
    with open(dat, "w") as f:
        for key in ("simulated", "seed", "extracted"):
            for r in rows:
                if r["measured"]:
                    f.write("%d %d %s-%s\n" % (r["measured"], r[key], r["kernel"], r["gpu"]))
            f.write("\n\n")
    svg = os.path.join(ROOT, "doc", "validation-scatter.svg")
    png = os.path.join(ROOT, "doc", "validation-scatter.png")
    plot = """
set logscale xy
set xrange [3000:3e6]
set yrange [2000:3e6]
set format x '10^{%%L}'
set format y '10^{%%L}'
set xlabel 'measured cycles (seed 001)'
set ylabel 'predicted cycles'
set title 'Hotspot, KNN, MM on GTX 760 and 940MX: predicted vs measured'
set key top left
set grid
plot x title 'y = x' with lines lc rgb '#888888' dt 2, \\
     '%s' index 0 using 1:2 with points pt 7 ps 1.2 lc rgb '#1f77b4' title 'smsim (simulated)', \\
     '' index 1 using 1:2 with points pt 5 ps 1.2 lc rgb '#d62728' title 'Many-BSP (the report)', \\
     '' index 2 using 1:2 with points pt 9 ps 1.3 lc rgb '#2ca02c' title 'Many-BSP (extracted by smsim)'
""" % dat
    for term, out in (("svg size 640,520 font 'sans,11' background rgb 'white'", svg),
                      ("pngcairo size 640,520 font 'sans,10'", png)):
        subprocess.run(["gnuplot"], input="set terminal %s\nset output '%s'\n%s" % (term, out, plot),
                       text=True, check=True)
    os.remove(dat)
    print("\nwrote %s, %s and %s" % (tsv, svg, png), file=sys.stderr)


if __name__ == "__main__":
    main()
