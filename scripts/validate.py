#!/usr/bin/env python3
"""smsim's accuracy suite: run it and regenerate doc/validation.md.

    python3 scripts/validate.py [--quick] [--strict] [--out-dir DIR] [--no-plots]
                                [--jobs N] SMSIM

(`make validate` in the build directory runs it with the freshly built
binary.)  It runs, each through the full timing model:

  seed 001   Hotspot, KNN and MM (validation/seed-ptx/*.launch) on gtx760,
             940mx and gtx1070: simulated cycles, Many-BSP as the report
             computed it (validation/cases/), Many-BSP extracted by smsim,
             the measured cycles of validation/measured.tsv, errors, mean
             absolute error and Pearson correlation; then every measurement
             of validation/measured.tsv and validation/measured/*.tsv next to
             the simulated cycles of its kernel; and leave one GPU out:
             dram.efficiency and pipe.dpu.holds_issue calibrated on two
             GPUs' visible cases, the third GPU's cases predicted with them
             (LOGO_KEYS, LOGO_GRID);
  seed 002   the H100 micro-benchmarks of traces/micro/ on the h100 config:
             the instruction ILP sweeps, the pointer-chase latencies and the
             copy / L2 bandwidth curves, next to the seed's visible figures;
  seed 004   ftest (traces/ftest.launch) on the five GPUs of the report,
             next to the report's estimates;
  published  the papers' micro-benchmarks (traces/ubench/, sized per
             config) on all twelve configs, next to the figures of
             validation/published.tsv (scripts/published.py);

and an acceptance table (the criteria of the accuracy work).  It rewrites
the generated parts of doc/validation.md (between `<!-- generated:NAME
begin -->` and `<!-- generated:NAME end -->`; the prose around them is
kept), the data files validation/{results,logo,measurements,h100-ilp,
h100-latency,h100-bandwidth,ftest,published-results,acceptance}.tsv and, with gnuplot, the
plots doc/validation-{scatter,ilp,bandwidth}.{svg,png}.  Output is
deterministic and every file is written atomically.

  --quick       one case per section (knn on the three GPUs, fadd ILP 1,
                ...): a check that the pipeline works; writes only under
                --out-dir (nothing without it)
  --strict      exit 1 when an acceptance criterion fails (default: the
                report's exit status is 0 whatever the accuracy)
  --out-dir DIR write doc/ and validation/ under DIR instead of the source
                tree (doc/validation.md is taken from DIR when it is there,
                else from the source tree)
  --no-plots    do not draw the plots
  --jobs N      smsim processes at a time (default 2)

Exit status: 0 done (and, with --strict, every criterion met), 1 a
criterion failed under --strict, 2 a run or an input failed (nothing is
written then).  The configs come from $SMSIM_CONFIG_DIR, else configs/ of
this tree; gnuplot is $SMSIM_GNUPLOT, else 'gnuplot'.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time

import published
from smsimlib import (ROOT, TYPE_BYTES, PipelineError, Runner, fgbps, fint, fnum, fpct,
                      gnuplot_draw, launch_dims, md_table, mean, parse_launch, pct, pearson, rel, splice,
                      tsv, write_atomic)

MICRO = os.path.join(ROOT, "traces", "micro")
H100 = "h100"

# ---- the seeds' figures --------------------------------------------------------

SEED001_KERNELS = ["hotspot", "knn", "mm"]
SEED001_GPUS = [("gtx760", "GTX 760"), ("940mx", "940MX"), ("gtx1070", "GTX 1070")]

# Seed 002 section 2, cycles per warp instruction at ILP = 1 and ILP = 128
# (ILP = 2..64 are held out).
ILP_OPS = ["fadd", "fmul", "fma", "iadd", "imul", "frcp", "fsqrt", "sinf", "logf", "expf"]
ILPS = [1, 2, 4, 8, 16, 32, 64, 128]
SEED_ILP = {
    "fadd": (29.0, 1.1), "fmul": (29.0, 1.1), "fma": (29.0, 1.2), "iadd": (29.0, 1.1),
    "imul": (29.0, 2.1), "frcp": (87.0, 76.8), "fsqrt": (66.0, 55.8), "sinf": (29.0, 9.1),
    "logf": (45.0, 9.3), "expf": (54.0, 8.5),
}

# Seed 002 section 3a: (level, launch file, seed working set, seed cycles, seed ns).
SEED_LATENCY = [
    ("shared memory", "latency_smem", "8 KB", 28.6, 14.4),
    ("L1", "latency_l1", "8 KB", 40.2, 20.3),
    ("L2", "latency_l2", "4 MB", 259.9, 131.3),
    ("HBM", "latency_dram", "256 MB", 570.5, 288.1),
]

# Seed 002 sections 3b and 3c, GB/s, for the launch files traces/micro/README.md
# ties to a visible figure; every other bandwidth row is held out or smsim's own.
SEED_BW = {
    "copy_bw_132blocks": (1992.0, "3b: all SMs"),
    "copy_bw_132blocks_66mb": (1992.0, "3b: all SMs"),
    "copy_bw_528blocks": (2034.0, "3b: 528 blocks"),
    "l2_bw_132blocks": (3223.0, "3c: all SMs"),
    "l2_bw_132blocks_u4": (3223.0, "3c: all SMs"),
    "l2_bw_528blocks": (3574.0, "3c: 528 blocks"),
}

# Seed 002 figures the h100 config no longer follows: the same quantities
# measured on a real H100 SXM5 with the project's own kernels
# (validation/measured/h100-sxm5, doc/correlation.md) disagree, and the
# config follows the GPU.  These criteria are still reported, marked, and
# do not fail --strict.
FOLLOWS_H100 = {
    "H100 L2 latency": "the H100's own L2 chase: 290.5 cycles/step (clock64.tsv)",
    "H100 HBM latency": "the H100's own HBM chase: 693.3 cycles/step (clock64.tsv)",
    "H100 copy_bw_132blocks_66mb bandwidth": "the H100 copies at 2.9 TB/s (ncu.tsv)",
    "H100 copy_bw_132blocks bandwidth": "the H100 copies 2 x 256 MB in 362k cycles (ncu.tsv)",
    "H100 copy_bw_528blocks bandwidth": "the H100 copies 2 x 256 MB in 363k cycles (ncu.tsv)",
}


def follows_h100(name):
    """The reason a criterion follows the measured H100 instead of the seed, or None."""
    for k, why in FOLLOWS_H100.items():
        if name.startswith(k + " within"):
            return why
    return None


# Seed 004 section 5: (config, GPU, t_compute, t_mem, t_total in microseconds;
# t_total = max(t_compute, t_mem) + 5 us of launch overhead).
SEED004 = [
    ("titan-black", "GTX TITAN Black", 0.019, 0.930, 5.930),
    ("titan-x", "GTX TITAN X", 0.015, 0.929, 5.929),
    ("titan-v", "TITAN V", 0.006, 0.479, 5.479),
    ("rtx2080ti", "RTX 2080 Ti", 0.007, 0.507, 5.507),
    ("rtx4070", "RTX 4070", 0.003, 0.620, 5.620),
]

# Leave-one-GPU-out on seed 001: the seed GPUs' configs have two values no hardware fact gives:
# dram.efficiency (the report measures no bandwidth) and pipe.dpu.holds_issue (whether a warp's FP64
# instruction keeps its scheduler from issuing while it feeds the 1- or 2-lane DPU; NVIDIA documents
# neither way).  For each GPU the pair is calibrated on the visible cases of the other two (the
# lowest mean absolute error over efficiency 0.1 steps x off/on, the efficiency refined by 0.05 on
# both sides of each fold's best; ties: the lower value, off before on) and that GPU's cases are
# predicted with it.  The GTX 1070's measurements are held out, so its fold is calibrated on both
# visible GPUs, and each visible GPU's fold on the other one alone.  A value is "EFF/HOLD".
LOGO_KEYS = ("dram.efficiency", "pipe.dpu.holds_issue")
LOGO_GRID = ["%.2f/%s" % (0.40 + 0.10 * i, h) for i in range(6) for h in ("off", "on")]
LOGO_STEP = 0.05                                                  # the refinement
LOGO_NAME = "dram.efficiency / pipe.dpu.holds_issue"


def logo_sets(v):
    """The --set arguments of a leave-one-GPU-out value "EFF/HOLD"."""
    eff, hold = v.split("/")
    return ("%s=%s" % (LOGO_KEYS[0], eff),
            "%s=%s" % (LOGO_KEYS[1], "true" if hold == "on" else "false"))


def logo_order(v):
    eff, hold = v.split("/")
    return (float(eff), hold == "on")


def logo_config_value(res, gpu):
    """The "EFF/HOLD" a config holds, from its two fields as `config show` prints them."""
    return "%.2f/%s" % (float(res[("config", gpu, LOGO_KEYS[0])]),
                        "on" if res[("config", gpu, LOGO_KEYS[1])] == "true" else "off")

TOLERANCE_PCT = 10.0      # each visible case / target
MAE_LIMIT_PCT = 7.0       # mean absolute error of the visible seed-001 cases

QUICK = {
    "seed001": [("knn", "gtx760"), ("knn", "940mx"), ("knn", "gtx1070")],
    "ilp": [("fadd", 1)],
    "latency": ["latency_smem"],
    "bandwidth": ["copy_bw_1warp"],
    "ftest": ["rtx4070"],
}

def launch_scalar(lf, name):
    for n, words in lf["args"]:
        if n == name and words and words[0] != "buffer":
            return float(words[1])
    raise PipelineError("launch file has no scalar argument '%s'" % name)


def launch_buffer_bytes(lf, name):
    for n, words in lf["args"]:
        if n == name and words and words[0] == "buffer":
            return TYPE_BYTES[words[1]] * int(words[2])
    raise PipelineError("launch file has no buffer '%s'" % name)


def find_launch(kernel):
    """The launch file of a measured kernel: seed-ptx first, then traces/."""
    for d in ("validation/seed-ptx", "traces", "traces/micro"):
        p = os.path.join(ROOT, d, kernel + ".launch")
        if os.path.exists(p):
            return p
    return None


# ---- running smsim --------------------------------------------------------------

class ValidateRunner(Runner):
    """Runner plus the two `smsim validate` calls of the seed-001 section."""

    def validate(self, kernel, gpu):
        launch = os.path.join(ROOT, "validation", "seed-ptx", kernel + ".launch")
        return json.loads(self.call(["validate", "--launch", launch, "--config", gpu, "--json"],
                                    ok=(0, 4)))

    def config_field(self, gpu, key):
        """The resolved value of one config field, as `smsim config show` prints it."""
        m = re.search(r"^%s = (\S+)" % re.escape(key), self.call(["config", "show", gpu]),
                      re.MULTILINE)
        if m is None:
            raise PipelineError("smsim config show %s: no field %s" % (gpu, key))
        return m.group(1)

    def case(self, kernel, gpu):
        case = os.path.join(ROOT, "validation", "cases", "%s-%s.case" % (kernel, gpu))
        return json.loads(self.call(["validate", "manybsp", case, "--json"]))


# ---- the plan: every job, then the tables from their results --------------------

def measurement_rows():
    """Every measurement: validation/measured.tsv and validation/measured/*.tsv."""
    rows = []
    files = [os.path.join(ROOT, "validation", "measured.tsv")]
    files += sorted(glob.glob(os.path.join(ROOT, "validation", "measured", "*.tsv")))
    for path in files:
        extra = os.path.basename(os.path.dirname(path)) == "measured"
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                if line.startswith("#") or not line.strip():
                    continue
                cols = line.rstrip("\n").split("\t")
                want = 6 if extra else 3
                if len(cols) < want:
                    raise PipelineError("%s:%d: expected %d tab-separated columns "
                                        "(see validation/measured/README.md), got %d"
                                        % (rel(path), lineno, want, len(cols)))
                try:
                    cycles = float(cols[2])
                except ValueError:
                    raise PipelineError("%s:%d: cycles '%s' is not a number"
                                        % (rel(path), lineno, cols[2]))
                rows.append({
                    "kernel": cols[0], "gpu": cols[1], "cycles": cycles,
                    "source": cols[3] if len(cols) > 3 else "",
                    "method": cols[4] if extra else "published",
                    "device": cols[5] if extra else "(the report's)",
                    "file": "%s:%d" % (rel(path), lineno),
                })
    return rows


def plan(quick):
    """Jobs: key -> (method name, arguments)."""
    jobs = {}
    s001 = QUICK["seed001"] if quick else [(k, g) for k in SEED001_KERNELS
                                          for g, _ in SEED001_GPUS]
    for k, g in s001:
        jobs[("validate", k, g)] = ("validate", (k, g))
        jobs[("case", k, g)] = ("case", (k, g))
        jobs.update(logo_jobs(k, g, LOGO_GRID))
    for g in sorted({g for _, g in s001}):
        for key in LOGO_KEYS:
            jobs[("config", g, key)] = ("config_field", (g, key))
    meas = measurement_rows()
    for m in meas:
        if ("validate", m["kernel"], m["gpu"]) in jobs:
            continue
        if quick and (m["kernel"], m["gpu"]) not in s001:
            continue
        launch = find_launch(m["kernel"])
        if launch is not None:
            jobs[("run", launch, m["gpu"])] = ("run", (launch, m["gpu"]))
    ilp = QUICK["ilp"] if quick else [(op, n) for op in ILP_OPS for n in ILPS]
    for op, n in ilp:
        p = os.path.join(MICRO, "inst_lat_%s_ilp%d.launch" % (op, n))
        if os.path.exists(p):
            jobs[("run", p, H100)] = ("run", (p, H100))
    for name in (QUICK["latency"] if quick else [x[1] for x in SEED_LATENCY]):
        p = os.path.join(MICRO, name + ".launch")
        if os.path.exists(p):
            jobs[("run", p, H100)] = ("run", (p, H100))
    for p in bandwidth_files(quick):
        jobs[("run", p, H100)] = ("run", (p, H100))
    for g in (QUICK["ftest"] if quick else [x[0] for x in SEED004]):
        p = os.path.join(ROOT, "traces", "ftest.launch")
        jobs[("run", p, g)] = ("run", (p, g))
    return jobs, meas, s001


def logo_jobs(kernel, gpu, values):
    launch = os.path.join(ROOT, "validation", "seed-ptx", kernel + ".launch")
    return {("logo", kernel, gpu, v): ("run", (launch, gpu, logo_sets(v))) for v in values}


def logo_values(res):
    """The LOGO_KEYS values run for every seed-001 case so far, in increasing order."""
    cases = {(key[1], key[2]) for key in res if key[0] == "logo"}
    runs = {(key[1], key[2], key[3]) for key in res if key[0] == "logo"}
    vals = {key[3] for key in res if key[0] == "logo"}
    return sorted((v for v in vals if all((k, g, v) in runs for k, g in cases)), key=logo_order)


def logo_refine(res, s001):
    """Jobs for the second stage: LOGO_STEP on both sides of each fold's best value."""
    measured = {(k, g): res[("validate", k, g)]["measured_cycles"] for k, g in s001
                if res[("validate", k, g)].get("measured_cycles")}
    gpus = sorted({g for _, g in s001})
    extra = set()
    for held in gpus:
        v, _, _ = logo_fold(res, s001, measured, [g for g in gpus if g != held])
        if v is not None:
            eff, hold = v.split("/")
            extra |= {"%.2f/%s" % (float(eff) + d, hold) for d in (-LOGO_STEP, LOGO_STEP)}
    extra = {v for v in extra if 0.0 < logo_order(v)[0] <= 1.0 and
             ("logo", s001[0][0], s001[0][1], v) not in res}
    jobs = {}
    for k, g in s001:
        jobs.update(logo_jobs(k, g, sorted(extra, key=logo_order)))
    return jobs


def bandwidth_files(quick):
    names = QUICK["bandwidth"] if quick else None
    out = []
    for p in sorted(glob.glob(os.path.join(MICRO, "copy_bw_*.launch")) +
                    glob.glob(os.path.join(MICRO, "l2_bw_*.launch"))):
        if names is None or os.path.basename(p)[:-7] in names:
            out.append(p)
    return out


def execute(runner, jobs, njobs):
    results, errors = {}, []
    keys = sorted(jobs, key=repr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, njobs)) as pool:
        futs = {pool.submit(getattr(runner, jobs[k][0]), *jobs[k][1]): k for k in keys}
        for fut in concurrent.futures.as_completed(futs):
            try:
                results[futs[fut]] = fut.result()
            except (PipelineError, OSError, ValueError, KeyError) as e:
                errors.append("%s: %s" % (futs[fut][0], e))
    if errors:
        raise PipelineError("\n".join(sorted(errors)))
    return results


# ---- section builders -------------------------------------------------------------

class Report:
    def __init__(self):
        self.sections = {}     # marker name -> markdown
        self.files = {}        # path relative to the output root -> text
        self.summary = []      # one line per section
        self.criteria = []     # (criterion, target, value, passed)
        self.plots = {}        # name -> data for the plotters


def build_seed001(rep, res, s001):
    gpu_names = dict(SEED001_GPUS)
    rows, tsv_rows, vis = [], [], []
    for k in SEED001_KERNELS:
        for g, gname in SEED001_GPUS:
            if (k, g) not in s001:
                continue
            v, c = res[("validate", k, g)], res[("case", k, g)]
            sim, ext, seed = v["simulated_cycles"], v["manybsp_cycles"], c["kernel_exec_cycle"]
            meas = v.get("measured_cycles") or None
            e = [pct(x, meas) if meas else None for x in (sim, seed, ext)]
            rows.append([k, gname, fint(sim), fint(seed), fint(ext),
                         fint(meas) if meas else "held out"] + [fpct(x) for x in e])
            tsv_rows.append([k, g, "%d" % sim, "%d" % seed, "%d" % ext,
                             "%d" % meas if meas else "held-out"])
            if meas:
                vis.append((k, g, sim, seed, ext, meas))
    md = [md_table(["kernel", "GPU", "simulated", "Many-BSP (seed)", "Many-BSP (extracted)",
                    "measured", "simulated error %", "seed error %", "extracted error %"],
                   "llrrrrrrr", rows), ""]
    stats = {}
    for i, name in ((2, "simulated"), (3, "Many-BSP (seed)"), (4, "Many-BSP (extracted)")):
        errs = [abs(pct(r[i], r[5])) for r in vis]
        stats[name] = (mean(errs), pearson([r[i] for r in vis], [r[5] for r in vis]),
                       pearson([math.log(r[i]) for r in vis], [math.log(r[5]) for r in vis]))
    srows = [[name, fnum(m, "%.1f"), fnum(r, "%.3f"), fnum(rl, "%.3f")]
             for name, (m, r, rl) in stats.items()]
    md.append("Over the %d cases with a visible measurement:" % len(vis))
    md.append("")
    md.append(md_table(["predictor", "mean absolute error %", "Pearson r (cycles)",
                        "Pearson r (log cycles)"], "lrrr", srows))
    md.append("")
    md.append("![predicted vs measured](validation-scatter.png)")
    rep.sections["seed001"] = "\n".join(md)
    rep.files["validation/results.tsv"] = tsv(
        ["written by scripts/validate.py (make validate); cycles of one kernel launch",
         "smsim plot reads this file (-scatter)"],
        ["kernel", "gpu", "simulated", "manybsp_seed", "manybsp_extracted", "measured"], tsv_rows)
    mae = stats["simulated"][0]
    for k, g, sim, _, _, meas in vis:
        e = pct(sim, meas)
        rep.criteria.append(("seed 001 %s on %s within %g %%" % (k, gpu_names[g], TOLERANCE_PCT),
                             "%d cycles" % meas, "%d (%s %%)" % (sim, fpct(e)),
                             abs(e) <= TOLERANCE_PCT))
    if mae is not None:
        rep.criteria.append(("seed 001 mean absolute error <= %g %%" % MAE_LIMIT_PCT,
                             "<= %g %%" % MAE_LIMIT_PCT, "%.1f %%" % mae, mae <= MAE_LIMIT_PCT))
    mb = stats["Many-BSP (seed)"][0]
    rep.summary.append(
        "Seed 001: %d cases simulated, %d with a measurement; mean absolute error %s %% "
        "(Many-BSP as the report computed it: %s %%), Pearson r %s."
        % (len(rows), len(vis), fnum(mae, "%.1f"), fnum(mb, "%.1f"),
           fnum(stats["simulated"][1], "%.3f")))
    rep.plots["scatter"] = bool(vis)


def logo_fold(res, s001, measured, train):
    """Calibrate LOGO_KEYS on the visible cases of the GPUs in train: (value, their mean
    absolute error %, number of cases), or (None, None, 0) when none is visible."""
    cases = [(k, g) for k, g in s001 if g in train and (k, g) in measured]
    if not cases:
        return None, None, 0
    best = None
    for v in logo_values(res):
        mae = mean([abs(pct(res[("logo", k, g, v)]["cycles"], measured[(k, g)]))
                    for k, g in cases])
        if best is None or mae < best[1] - 1e-9:
            best = (v, mae)
    return best[0], best[1], len(cases)


def build_logo(rep, res, s001):
    names = dict(SEED001_GPUS)
    gpus = [g for g, _ in SEED001_GPUS if any(g == x for _, x in s001)]
    measured = {(k, g): res[("validate", k, g)]["measured_cycles"] for k, g in s001
                if res[("validate", k, g)].get("measured_cycles")}
    rows, tsv_rows, errs, chosen = [], [], [], {}
    for held in gpus:
        train = [g for g in gpus if g != held]
        v, tmae, n = logo_fold(res, s001, measured, train)
        chosen[held] = v
        on = " + ".join(names[g] for g in train if any((k, g) in measured for k in
                                                       SEED001_KERNELS)) or "—"
        for k in SEED001_KERNELS:
            if (k, held) not in s001:
                continue
            pred = res[("logo", k, held, v)]["cycles"] if v is not None else None
            meas = measured.get((k, held))
            e = pct(pred, meas) if pred is not None and meas else None
            if e is not None:
                errs.append(abs(e))
            rows.append([names[held], k, "%s (%d cases)" % (on, n), v or "—",
                         fnum(tmae, "%.1f"), fint(pred), fint(meas) if meas else "held out",
                         fpct(e)])
            tsv_rows.append([held, k, ",".join(train), v or "", "%.1f" % tmae if n else "",
                             fint(pred), "%d" % meas if meas else "held-out", fpct(e)])
    grid_rows = []
    shown = [g for g in gpus if any((k, g) in measured for k in SEED001_KERNELS)]
    for v in logo_values(res):
        cells = []
        for g in shown:
            cs = [abs(pct(res[("logo", k, g, v)]["cycles"], measured[(k, g)]))
                  for k in SEED001_KERNELS if (k, g) in measured]
            cells.append(fnum(mean(cs), "%.1f"))
        grid_rows.append([v] + cells)
    cfg = {g: logo_config_value(res, g) for g in gpus}
    whole = chosen.get(gpus[-1])      # the fold calibrated on every visible GPU (the GTX 1070's)
    # The GTX 1070's dram.efficiency follows JIA18's measured GP104 copy bandwidth
    # (configs/gtx1070.cfg): only its hold must be the fold's.
    own_eff = whole is not None and "gtx1070" in cfg and \
        logo_order(cfg["gtx1070"]) != logo_order(whole)
    agree = whole is not None and all(
        cfg[g].split("/")[1] == whole.split("/")[1] if g == "gtx1070" and own_eff else
        logo_order(cfg[g]) == logo_order(whole) for g in gpus)
    md = [md_table(["predicted GPU", "kernel", "%s calibrated on" % LOGO_NAME, "value",
                    "calibration MAE %", "predicted", "measured", "error %"],
                   "lllrrrrr", rows), ""]
    md.append("Over the %d predictions with a visible measurement: mean absolute error %s %%, "
              "largest %s %%.  The configs hold %s = %s: %s.  Mean absolute error of each "
              "GPU's visible cases at every value run:"
              % (len(errs), fnum(mean(errs), "%.1f"), fnum(max(errs) if errs else None, "%.1f"),
                 LOGO_NAME, ", ".join("%s (%s)" % (cfg[g], names[g]) for g in gpus),
                 "the %s fold's value%s" % (names[gpus[-1]], own_eff and " but for the GTX 1070's "
                                            "dram.efficiency, which follows the published copy "
                                            "bandwidth of its GP104 memory system (JIA18's Tesla "
                                            "P4; configs/gtx1070.cfg)" or "") if agree else
                 "**not** the %s fold's %s (set it in the configs)" % (names[gpus[-1]], whole)))
    md.append("")
    md.append(md_table([LOGO_NAME] + ["%s MAE %%" % names[g] for g in shown],
                       "l" + "r" * len(shown), grid_rows))
    rep.sections["seed001-logo"] = "\n".join(md)
    rep.files["validation/logo.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): seed 001 leave-one-GPU-out;",
         "%s calibrated on the visible cases of the other GPUs, then the held GPU predicted"
         % LOGO_NAME],
        ["gpu", "kernel", "calibrated_on", "value", "calibration_mae_pct", "predicted",
         "measured", "error_pct"], tsv_rows)
    rep.summary.append(
        "Seed 001 leave-one-GPU-out (%s calibrated on the other GPUs): %d predictions with a "
        "measurement, mean absolute error %s %%; the GTX 1070 fold chose %s."
        % (LOGO_NAME, len(errs), fnum(mean(errs), "%.1f"), chosen.get("gtx1070") or "—"))


def build_measurements(rep, res, meas):
    rows, tsv_rows, errs = [], [], []
    for m in sorted(meas, key=lambda m: (m["kernel"], m["gpu"], m["file"])):
        k, g = m["kernel"], m["gpu"]
        sim = None
        if ("validate", k, g) in res:
            sim = res[("validate", k, g)]["simulated_cycles"]
        else:
            launch = find_launch(k)
            if launch is not None and ("run", launch, g) in res:
                sim = res[("run", launch, g)]["cycles"]
            elif launch is None:
                sim = "no launch file"
        if sim is None:
            continue                       # --quick: not run
        e = pct(sim, m["cycles"]) if not isinstance(sim, str) else None
        if e is not None:
            errs.append(abs(e))
        simtxt = sim if isinstance(sim, str) else fint(sim)
        rows.append([k, g, fint(m["cycles"]), simtxt, fpct(e), m["method"], m["device"],
                     m["source"] or "—", "`%s`" % m["file"]])
        tsv_rows.append([k, g, fint(m["cycles"]), simtxt, fpct(e), m["method"], m["device"],
                         m["source"], m["file"]])
    extra = sum(1 for m in meas if m["file"].startswith("validation/measured/"))
    md = [md_table(["kernel", "GPU", "measured", "simulated", "error %", "method", "device",
                    "source", "from"], "llrrrllll", rows), ""]
    if extra == 0:
        md.append("`validation/measured/` holds no measurements yet: the rows above are the "
                  "report's.")
    rep.sections["measurements"] = "\n".join(md)
    rep.files["validation/measurements.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): every measurement of",
         "validation/measured.tsv and validation/measured/*.tsv next to smsim"],
        ["kernel", "gpu", "measured", "simulated", "error_pct", "method", "device", "source",
         "from"], tsv_rows)
    rep.summary.append("Measurements: %d (%d from validation/measured/), mean absolute error "
                       "%s %%." % (len(rows), extra, fnum(mean(errs), "%.1f")))


def build_ilp(rep, res):
    table, tsv_rows, curves, errs = [], [], {}, []
    for op in ILP_OPS:
        sim_cells, seed_cells, have = [], [], False
        for n in ILPS:
            p = os.path.join(MICRO, "inst_lat_%s_ilp%d.launch" % (op, n))
            r = res.get(("run", p, H100))
            v = None
            if r is not None:
                lf = parse_launch(p)
                v = r["u64"]["clk"] / (launch_scalar(lf, "iters") * n)
                curves.setdefault(op, []).append((n, v))
                have = True
            seedv = {1: SEED_ILP[op][0], 128: SEED_ILP[op][1]}.get(n)
            e = pct(v, seedv) if v is not None and seedv is not None else None
            sim_cells.append(fnum(v))
            if seedv is None:
                seed_cells.append("held out")
            else:
                seed_cells.append("%.1f (%s %%)" % (seedv, fpct(e)) if e is not None
                                  else "%.1f" % seedv)
            if v is not None:
                tsv_rows.append([op, "%d" % n, "%d" % r["u64"]["clk"], "%.3f" % v,
                                 "%.1f" % seedv if seedv is not None else "held-out", fpct(e)])
            if e is not None:
                errs.append(abs(e))
                rep.criteria.append(("H100 %s ILP=%d within %g %%" % (op, n, TOLERANCE_PCT),
                                     "%.1f cycles" % seedv, "%.2f (%s %%)" % (v, fpct(e)),
                                     abs(e) <= TOLERANCE_PCT))
        if have:
            table.append([op, "smsim"] + sim_cells)
            table.append(["", "seed (error)"] + seed_cells)
    md = [md_table(["op", ""] + ["ILP=%d" % n for n in ILPS], "ll" + "r" * len(ILPS), table),
          "", "![cycles per warp instruction vs ILP](validation-ilp.png)"]
    rep.sections["h100-ilp"] = "\n".join(md)
    rep.files["validation/h100-ilp.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): seed 002 section 2 on the h100 config",
         "cycles per warp instruction = clk / (iters * ilp); seed ILP 2..64 held out"],
        ["op", "ilp", "clk", "cycles_per_inst", "seed", "error_pct"], tsv_rows)
    rep.summary.append("H100 instruction latency/throughput: %d runs; mean absolute error at "
                       "the seed's visible points %s %%." % (len(tsv_rows),
                                                           fnum(mean(errs), "%.1f")))
    rep.plots["ilp"] = curves


def build_latency(rep, res):
    rows, tsv_rows, errs = [], [], []
    for level, name, wset, seedc, seedns in SEED_LATENCY:
        p = os.path.join(MICRO, name + ".launch")
        r = res.get(("run", p, H100))
        if r is None:
            continue
        lf = parse_launch(p)
        v = r["u64"]["clk"] / launch_scalar(lf, "steps")
        ns = v / r["clock_mhz"] * 1000.0
        size = launch_buffer_bytes(lf, "a")
        mine = ("%g MB" % (size / float(1 << 20)) if size >= 1 << 20
                else "%g KB" % (size / 1024.0))
        e = pct(v, seedc)
        errs.append(abs(e))
        rows.append([level, "`%s`" % name, "%s (seed %s)" % (mine, wset), "%.1f" % v,
                     "%.1f" % seedc, fpct(e), "%.1f" % ns, "%.1f" % seedns])
        tsv_rows.append([level, name, "%d" % r["u64"]["clk"], "%.2f" % v, "%.1f" % seedc,
                         fpct(e), "%.2f" % ns])
        rep.criteria.append(("H100 %s latency within %g %%" % (level, TOLERANCE_PCT),
                             "%.1f cycles" % seedc, "%.1f (%s %%)" % (v, fpct(e)),
                             abs(e) <= TOLERANCE_PCT))
    rep.sections["h100-latency"] = md_table(
        ["level", "launch file", "working set", "simulated cycles", "seed cycles", "error %",
         "simulated ns", "seed ns"], "lllrrrrr", rows)
    rep.files["validation/h100-latency.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): seed 002 section 3a on the h100 config",
         "latency = clk / steps cycles"],
        ["level", "launch", "clk", "cycles", "seed", "error_pct", "ns"], tsv_rows)
    rep.summary.append("H100 memory latency: %d levels; mean absolute error %s %%."
                       % (len(rows), fnum(mean(errs), "%.1f")))


def bw_label(grid, block, sm_count):
    if grid == 1:
        return {1: "1 thread", 32: "1 warp"}.get(block, "1 SM")
    if grid <= sm_count:
        return "%d SMs" % grid
    return "%d blocks (%g per SM)" % (grid, grid / float(sm_count))


def build_bandwidth(rep, res, quick):
    rows, tsv_rows, errs, pts = [], [], [], []
    entries = []
    for p in bandwidth_files(quick):
        r = res[("run", p, H100)]
        lf = parse_launch(p)
        name = os.path.basename(p)[:-7]
        grid, block = launch_dims(lf["fields"]["grid"]), launch_dims(lf["fields"]["block"])
        nbytes = launch_buffer_bytes(lf, "src")
        k = r["kernels"][-1]            # l2_bw: the last launch runs from a warm L2
        # the seed's bandwidths are steady-state: the launch's fixed cost
        # (gpu.kernel_launch_latency, about 5,000 cycles on the H100) is not in them
        cyc = max(k["cycles"] - r["launch_latency"], 1)
        bw = 2.0 * nbytes * r["clock_mhz"] / cyc / 1000.0
        dram = k["dram_bytes"] * r["clock_mhz"] / cyc / 1000.0
        entries.append((name.startswith("l2_"), grid * block, nbytes, name, lf, grid, block,
                        r, k, bw, dram))
    for is_l2, threads, nbytes, name, lf, grid, block, r, k, bw, dram in sorted(
            entries, key=lambda e: e[:4]):
        seed = SEED_BW.get(name)
        e = pct(bw, seed[0]) if seed else None
        label = bw_label(grid, block, r["sm_count"])
        kern = lf["fields"]["kernel"]
        scaling = re.match(r"^(copy_bw_(1thread|1warp|\d+blocks?)|l2_bw_\d+blocks?)$", name)
        seedtxt = "%.0f (%s)" % seed if seed else "held out" if scaling else "—"
        rows.append(["`%s`" % name, kern, "%d x %d" % (grid, block), label,
                     "%.2f" % (nbytes / float(1 << 20)), "%d" % k["cycles"], fgbps(bw),
                     fgbps(dram), seedtxt, fpct(e)])
        tsv_rows.append([name, kern, "%d" % grid, "%d" % block, "%d" % nbytes,
                         "%d" % k["cycles"], "%.1f" % bw, "%.1f" % dram,
                         "%.0f" % seed[0] if seed else "-", fpct(e)])
        if e is not None:
            errs.append(abs(e))
            rep.criteria.append(("H100 %s bandwidth within %g %%" % (name, TOLERANCE_PCT),
                                 "%.0f GB/s" % seed[0], "%.0f (%s %%)" % (bw, fpct(e)),
                                 abs(e) <= TOLERANCE_PCT))
        pts.append({"name": name, "l2": is_l2, "threads": threads, "label": label,
                    "bw": bw, "dram": dram, "seed": seed[0] if seed else None,
                    "scaling": bool(scaling), "kernel": kern})
    md = [md_table(["launch file", "kernel", "grid x block", "SMs used", "MiB per buffer",
                    "cycles", "2 x bytes / time GB/s", "DRAM traffic GB/s", "seed GB/s",
                    "error %"], "lllrrrrrrr", rows), "",
          "![bandwidth vs SMs](validation-bandwidth.png)"]
    rep.sections["h100-bandwidth"] = "\n".join(md)
    rep.files["validation/h100-bandwidth.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): seed 002 sections 3b, 3c on h100",
         "gbps = 2 * bytes (one buffer) / time of the last launch less gpu.kernel_launch_latency;"
         " dram_gbps = DRAM traffic over the same time"],
        ["launch", "kernel", "grid", "block", "bytes", "cycles", "gbps", "dram_gbps", "seed",
         "error_pct"], tsv_rows)
    rep.summary.append("H100 bandwidth: %d runs, %d with a visible seed figure; mean absolute "
                       "error %s %%." % (len(rows), len(errs), fnum(mean(errs), "%.1f")))
    rep.plots["bandwidth"] = pts


def build_ftest(rep, res):
    p = os.path.join(ROOT, "traces", "ftest.launch")
    rows, tsv_rows, ratios, last = [], [], [], None
    lf = parse_launch(p)
    nrows = launch_scalar(lf, "rows")
    for cfg, gname, tc, tm, ttot in SEED004:
        r = res.get(("run", p, cfg))
        if r is None:
            continue
        k = r["kernels"][0]
        us = r["cycles"] / r["clock_mhz"]
        ratios.append(us / ttot)
        last = (gname, k)
        rows.append([gname, "`%s`" % cfg, "%.0f" % r["clock_mhz"], "%d" % r["cycles"],
                     "%.1f" % us, "%.3f" % max(tc, tm), "%.3f" % ttot, "%.1f" % (us / ttot),
                     "%.0f" % (k["cycles"] / nrows), "%.1f" % (k["l1_hit_rate"] * 100.0),
                     "%d" % r["launch_latency"]])
        tsv_rows.append([cfg, "%.0f" % r["clock_mhz"], "%d" % r["cycles"], "%.3f" % us,
                         "%.3f" % max(tc, tm), "%.3f" % ttot, "%.2f" % (us / ttot)])
    md = [md_table(["GPU", "config", "clock MHz", "simulated cycles", "simulated µs",
                    "report t_body µs", "report t_total µs", "simulated / report",
                    "cycles per row of the k loop", "L1 hit %", "config launch latency (cycles)"],
                   "llrrrrrrrrr", rows), ""]
    if last is not None:
        gname, k = last
        threads = launch_dims(lf["fields"]["grid"]) * launch_dims(lf["fields"]["block"])
        pairs = int(launch_scalar(lf, "colsx") * launch_scalar(lf, "colsy"))
        diag = 0 if launch_scalar(lf, "diagFlag") else min(launch_scalar(lf, "colsx"),
                                                          launch_scalar(lf, "colsy"))
        us = [float(r[4]) for r in rows]
        md.append(
            "Generated note: smsim predicts %.1f to %.1f µs, %.0f to %.0f times the report's "
            "estimate.  Of the %d threads launched, %d have an (i, j) pair and %d of those "
            "run the loop over %d rows (diagFlag = 0 skips the diagonal); in each row the "
            "multiply-adds of a model form one dependent chain, each link waiting for its "
            "two loads.  The kernel is the same "
            "%d warp instructions on every GPU (%d thread instructions, %d warp-level global "
            "loads; %d bytes of DRAM traffic on the %s).  smsim's "
            "figure includes no host launch overhead unless the config sets "
            "`gpu.kernel_launch_latency`; the report's adds 5 µs for it."
            % (min(us), max(us), min(ratios), max(ratios), threads, pairs, pairs - diag,
               nrows, k["warp_insts"], k["thread_insts"], k["global_loads"], k["dram_bytes"],
               gname))
    rep.sections["ftest"] = "\n".join(md)
    rep.files["validation/ftest.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): seed 004, traces/ftest.launch",
         "report_us = the report's t_total (t_body + 5 us launch overhead)"],
        ["config", "clock_mhz", "cycles", "us", "report_body_us", "report_us", "ratio"],
        tsv_rows)
    rep.summary.append("Seed 004 ftest: %d GPUs; smsim / report = %s to %s."
                       % (len(rows), fnum(min(ratios) if ratios else None, "%.1f"),
                          fnum(max(ratios) if ratios else None, "%.1f")))


def build_summary(rep):
    """The acceptance table; returns (met, counted): criteria that follow
    the measured H100 instead of the seed are shown but not counted."""
    rows, trows = [], []
    ok = n = h100 = 0
    for c in rep.criteria:
        why = None if c[3] else follows_h100(c[0])
        if why is not None:
            h100 += 1
            met, tmet = "no: follows the measured H100 (%s)" % why, "follows-h100"
        else:
            n += 1
            ok += 1 if c[3] else 0
            met, tmet = ("yes", "yes") if c[3] else ("**no**", "no")
        rows.append([c[0], c[1], c[2], met])
        trows.append([c[0], c[1], c[2], tmet])
    md = ["Met %d of %d acceptance criteria%s." % (
        ok, n, "; %d more follow the measured H100 instead of seed 002 (doc/correlation.md)"
        % h100 if h100 else ""), ""]
    md += ["- " + s for s in rep.summary]
    md += ["", md_table(["criterion", "target", "smsim", "met"], "lrrl", rows)]
    rep.sections["summary"] = "\n".join(md)
    rep.files["validation/acceptance.tsv"] = tsv(
        ["written by scripts/validate.py (make validate): the acceptance criteria",
         "met = follows-h100: the config follows a measurement of the real H100 that "
         "disagrees with seed 002"],
        ["criterion", "target", "smsim", "met"], trows)
    return ok, n


# ---- doc/validation.md -------------------------------------------------------------

# ---- plots -------------------------------------------------------------------------

def plot_ilp(gnuplot, tmp, outbase, curves):
    dat = os.path.join(tmp, "ilp.dat")
    lines, plots, idx = [], [], 0
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf"]
    for i, op in enumerate(ILP_OPS):
        if op not in curves:
            continue
        col = palette[i % len(palette)]
        lines += ["%d %.4f" % (n, v) for n, v in curves[op]] + ["", ""]
        lines += ["1 %.1f" % SEED_ILP[op][0], "128 %.1f" % SEED_ILP[op][1], "", ""]
        plots.append("'%s' index %d using 1:2 with linespoints lw 1.5 pt %d ps 0.7 lc rgb '%s' "
                     "title '%s'" % (dat, idx, (1, 2, 3, 6, 8, 10, 12, 14, 7, 5)[i], col, op))
        plots.append("'%s' index %d using 1:2 with points pt 4 ps 1.6 lw 2 lc rgb '%s' "
                     "notitle" % (dat, idx + 1, col))
        idx += 2
    plots.append("NaN with points pt 4 ps 1.6 lw 2 lc rgb 'black' title 'seed 002'")
    gnuplot_draw(gnuplot, tmp, outbase, dat, lines,
                 "set title 'H100: cycles per warp instruction vs ILP (lines: smsim; squares: "
                 "seed 002)' noenhanced\n"
                 "set logscale x 2\nset logscale y 10\nset xrange [0.8:160]\n"
                 "set yrange [0.3:200]\nset xtics (1, 2, 4, 8, 16, 32, 64, 128)\nset grid\n"
                 "set xlabel 'ILP (independent chains per thread)'\n"
                 "set ylabel 'cycles per warp instruction'\nset key outside right top\n",
                 plots)


def plot_bandwidth(gnuplot, tmp, outbase, pts):
    dat = os.path.join(tmp, "bw.dat")
    series = [
        ("copy: 2 x bytes / time", lambda p: p["scaling"] and not p["l2"], "bw",
         "linespoints lw 2 pt 7 lc rgb '#1f77b4'"),
        ("copy: DRAM traffic", lambda p: p["scaling"] and not p["l2"], "dram",
         "linespoints lw 1 dt 2 pt 6 lc rgb '#1f77b4'"),
        ("L2 copy (__ldcg/__stcg), warm", lambda p: p["scaling"] and p["l2"], "bw",
         "linespoints lw 2 pt 5 lc rgb '#2ca02c'"),
        ("copy, other launch files", lambda p: not p["scaling"] and not p["l2"], "bw",
         "points pt 2 ps 1.2 lc rgb '#7f7f7f'"),
        ("seed 002 (HBM copy)", lambda p: p["seed"] is not None and not p["l2"], "seed",
         "points pt 4 ps 2 lw 2 lc rgb '#d62728'"),
        ("seed 002 (L2)", lambda p: p["seed"] is not None and p["l2"], "seed",
         "points pt 12 ps 2 lw 2 lc rgb '#d62728'"),
    ]
    lines, plots, idx = [], [], 0
    for title, sel, key, style in series:
        chosen = sorted((p for p in pts if sel(p)), key=lambda p: (p["threads"], p["name"]))
        if not chosen:
            continue
        lines += ["%d %.2f \"%s\"" % (p["threads"], p[key], p["label"]) for p in chosen]
        lines += ["", ""]
        plots.append("'%s' index %d using 1:2%s with %s title '%s'"
                     % (dat, idx, ":xtic(3)" if idx == 0 else "", style, title))
        idx += 1
    if plots:
        gnuplot_draw(gnuplot, tmp, outbase, dat, lines,
                     "set termoption noenhanced\n"
                     "set title 'H100 copy bandwidth vs threads launched (smsim vs seed 002)'\n"
                     "set logscale x 2\nset logscale y 10\nset grid\n"
                     "set xtics rotate by -35 font ',9'\n"
                     "set xlabel 'launch (blocks of 1024 threads)'\nset ylabel 'GB/s'\n"
                     "set key top left\nset bmargin 6\nset rmargin 14\n", plots)


def plot_all(rep, runner, out, tmp):
    gnuplot = os.environ.get("SMSIM_GNUPLOT") or "gnuplot"
    if shutil.which(gnuplot) is None:
        print("validate: gnuplot not found ($SMSIM_GNUPLOT or 'gnuplot'): plots not drawn",
              file=sys.stderr)
        return []
    doc = os.path.join(out, "doc")
    made = []
    if rep.plots.get("scatter"):
        pdir = os.path.join(tmp, "scatter")
        runner.call(["plot", os.path.join(out, "validation", "results.tsv"), "-o", pdir])
        for ext in ("svg", "png"):
            target = os.path.join(doc, "validation-scatter." + ext)
            with open(os.path.join(pdir, "results-scatter." + ext), "rb") as f:
                write_atomic(target, f.read())
            made.append(target)
    if rep.plots.get("ilp"):
        plot_ilp(gnuplot, tmp, os.path.join(doc, "validation-ilp"), rep.plots["ilp"])
        made += [os.path.join(doc, "validation-ilp." + e) for e in ("svg", "png")]
    if rep.plots.get("bandwidth"):
        plot_bandwidth(gnuplot, tmp, os.path.join(doc, "validation-bandwidth"),
                       rep.plots["bandwidth"])
        made += [os.path.join(doc, "validation-bandwidth." + e) for e in ("svg", "png")]
    return made


# ---- main ----------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description="smsim's accuracy suite (make validate)")
    ap.add_argument("smsim", nargs="?", default=os.path.join(ROOT, "build", "smsim"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--out-dir")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if not os.access(a.smsim, os.X_OK):
        print("validate: %s is not an executable smsim" % a.smsim, file=sys.stderr)
        return 2
    out = os.path.abspath(a.out_dir) if a.out_dir else (None if a.quick else ROOT)
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="smsim-validate.")
    try:
        runner = ValidateRunner(os.path.abspath(a.smsim), tmp)
        jobs, meas, s001 = plan(a.quick)
        pjobs, pmeta = published.plan(runner, tmp, a.quick)
        jobs.update(pjobs)
        res = execute(runner, jobs, a.jobs)
        res.update(execute(runner, logo_refine(res, s001), a.jobs))
        rep = Report()
        build_seed001(rep, res, s001)
        build_logo(rep, res, s001)
        build_measurements(rep, res, meas)
        build_ilp(rep, res)
        build_latency(rep, res)
        build_bandwidth(rep, res, a.quick)
        build_ftest(rep, res)
        published.build(rep, res, pmeta, a.quick)
        ok, n = build_summary(rep)
        written = []
        if out is not None:
            src = os.path.join(out, "doc", "validation.md")
            if not os.path.exists(src):
                src = os.path.join(ROOT, "doc", "validation.md")
            with open(src) as f:
                doc = splice(f.read(), rep.sections, rel(src), "scripts/validate.py")
            for path, text in sorted(rep.files.items()):
                write_atomic(os.path.join(out, path), text)
                written.append(os.path.join(out, path))
            write_atomic(os.path.join(out, "doc", "validation.md"), doc)
            written.append(os.path.join(out, "doc", "validation.md"))
            if not a.no_plots:
                written += plot_all(rep, runner, out, tmp)
    except PipelineError as e:
        print("validate: %s" % e, file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(rep.sections["summary"])
    for w in written:
        shown = rel(w) if w.startswith(ROOT + os.sep) else w
        print("validate: wrote %s" % shown, file=sys.stderr)
    print("validate: %d smsim runs in %.1f s%s" % (runner.count, time.time() - t0,
                                                   " (quick)" if a.quick else ""),
          file=sys.stderr)
    if a.strict and ok < n:
        print("validate: --strict: %d of %d criteria not met" % (n - ok, n), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
