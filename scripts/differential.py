#!/usr/bin/env python3
"""differential.py - what a kernel computes never depends on the GPU config.

Every kernel the repository has (each launch file under traces/,
tests/ptx/realworld, tests/ptx/conform -- that one from each of its three
PTX files -- tests/ptx/regress and validation/seed-ptx) is executed once
by `smsim emulate` (the PTX as written, one warp at a time) and then timed
by `smsim run` on every GPU config (on sm_90 configs lowered to SASS
operations and reordered as ptxas would, warps interleaved by the model).
Every output buffer must be byte-identical to emulate's, and what the
kernel printed identical too.

Kernels whose results legitimately depend on the order of atomics say so
in their launch file ("# test: order-dependent -- why"): their
floating-point outputs are compared within a relative tolerance (1e-4 of
the largest magnitude, the error of a float sum reordered), their integer
outputs as multisets (which thread got which exchanged value changes, the
values do not); an integer output that is not even a permutation (the
value an exchange leaves behind) is reported as such, and the kernel's own
reference check (tests/conform.sh, realworld.sh) judges it.  A kernel
whose output is a clock reading says "# test: timing": its outputs are not
compared, only that it runs.  All of them are listed in the report.

  scripts/differential.py [-j N] [--configs a,b] [--match REGEX] [--tsv FILE] SMSIM

Exit status: 0 all agree, 1 a disagreement (listed), 2 a run failed.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smsimlib import ROOT, TYPE_BYTES, parse_launch  # noqa: E402

DIRS = ["traces", "traces/micro", "traces/tensor", "traces/modern", "traces/probe",
        "tests/ptx/realworld", "tests/ptx/regress", "validation/seed-ptx"]
CONFORM = "tests/ptx/conform"
FMT = {"f32": "f", "f64": "d", "u8": "B", "s8": "b", "u16": "H", "s16": "h", "u32": "I",
       "s32": "i", "u64": "Q", "s64": "q"}


def kernels(tmp):
    """(name, launch path, order-dependent, expected failure) of every kernel."""
    out = []
    for d in DIRS:
        p = os.path.join(ROOT, d)
        if not os.path.isdir(p):
            continue
        for f in sorted(os.listdir(p)):
            if f.endswith(".launch"):
                out.append((os.path.join(d, f), os.path.join(p, f)))
    conform = os.path.join(ROOT, CONFORM)
    if os.path.isdir(conform):
        for t in (75, 80, 90):
            for f in sorted(os.listdir(conform)):
                if not f.endswith(".launch"):
                    continue
                with open(os.path.join(conform, f)) as fp:
                    text = fp.read()
                text = re.sub(r"(?m)^ptx *=.*$", "ptx = %s/conform_sm%d.ptx" %
                              (os.path.dirname(conform), t), text)
                # relative paths in it stay relative to the original directory
                dst = os.path.join(tmp, "conform_sm%d_%s" % (t, f))
                with open(dst, "w") as fp:
                    fp.write(text)
                out.append(("%s/%s (sm_%d)" % (CONFORM, f, t), dst))
    res = []
    for name, path in out:
        with open(path) as fp:
            text = fp.read()
        od = re.search(r"(?m)^# test: order-dependent", text) is not None
        if re.search(r"(?m)^# test: timing", text) is not None:
            od = "timing"
        res.append((name, path, od, name.endswith("-assert.launch")))
    return res


def run(smsim, args, outdir):
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.run([smsim] + args + ["--quiet", "--output-dir", outdir],
                       capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr.strip().splitlines()[:1]


def close_floats(a, b, fmt):
    n = len(a) // struct.calcsize(fmt)
    x = struct.unpack("<%d%s" % (n, fmt), a)
    y = struct.unpack("<%d%s" % (n, fmt), b)
    big = max([abs(v) for v in x if v == v and abs(v) != float("inf")] + [1e-30])
    for u, v in zip(x, y):
        if u != u and v != v:
            continue
        if u == v:
            continue
        if abs(u - v) > 1e-4 * big:
            return False
    return True


def same_multiset(a, b, fmt):
    n = len(a) // struct.calcsize(fmt)
    return sorted(struct.unpack("<%d%s" % (n, fmt), a)) == \
        sorted(struct.unpack("<%d%s" % (n, fmt), b))


def compare(launch, emu_dir, run_dir, od):
    """None if the outputs agree, "order" if an order-dependent output differs
    beyond what the comparison can judge, else what differs."""
    if od == "timing":
        return None
    lf = parse_launch(launch)
    types = {}
    for name, words in lf["args"]:
        if words and words[0] == "buffer":
            types[name] = words[1]
    for name, words in lf["vars"]:
        types[name] = words[0]
    for name, path in lf["outputs"]:
        if os.path.isabs(path):
            return None                      # written outside --output-dir: not comparable
        a_p, b_p = os.path.join(emu_dir, path), os.path.join(run_dir, path)
        with open(a_p, "rb") as f:
            a = f.read()
        with open(b_p, "rb") as f:
            b = f.read()
        if a == b:
            continue
        t = types.get(name, "u8")
        if od and t in ("f32", "f64") and len(a) == len(b) and close_floats(a, b, FMT[t]):
            continue
        if od and t in FMT and t[0] in "us" and len(a) == len(b) and \
                same_multiset(a, b, FMT[t]):
            continue
        if od:
            return "order"                   # half sums, the value an exchange leaves: the
                                             # kernel's own reference check judges it
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return "%s differs from emulate's at byte %d" % (path, first)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("smsim")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--configs", default="")
    ap.add_argument("--match", default="")
    ap.add_argument("--tsv", default="")
    a = ap.parse_args()
    smsim = os.path.abspath(a.smsim)
    if a.configs:
        configs = a.configs.split(",")
    else:
        p = subprocess.run([smsim, "config", "list"], capture_output=True, text=True, check=True)
        configs = [l.split()[0] for l in p.stdout.splitlines() if l and not l.startswith("#")]
    tmp = tempfile.mkdtemp(prefix="smsim-diff.")
    try:
        ks = [k for k in kernels(tmp) if re.search(a.match, k[0])]
        rows, bad, failed = [], 0, 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
            emus = {k[0]: ex.submit(run, smsim, ["emulate", "--launch", k[1]],
                                    os.path.join(tmp, "e%d" % i)) for i, k in enumerate(ks)}
            jobs = []
            for i, (name, path, od, xfail) in enumerate(ks):
                for c in configs:
                    d = os.path.join(tmp, "r%d_%s" % (i, c))
                    jobs.append((name, path, od, xfail, c, i,
                                 ex.submit(run, smsim, ["run", "--config", c, "--launch", path],
                                           d)))
            for name, path, od, xfail, c, i, fut in jobs:
                e_rc, e_out, e_err = emus[name].result()
                r_rc, r_out, r_err = fut.result()
                verdict = "identical"
                if xfail:
                    verdict = "same failure" if e_rc == r_rc != 0 else \
                        "emulate exit %d, run exit %d" % (e_rc, r_rc)
                elif e_rc != 0 or r_rc != 0:
                    verdict = "FAILED: emulate exit %d %s, run exit %d %s" % (
                        e_rc, " ".join(e_err), r_rc, " ".join(r_err))
                    failed += 1
                else:
                    why = compare(path, os.path.join(tmp, "e%d" % i),
                                  os.path.join(tmp, "r%d_%s" % (i, c)), od)
                    if why is None and e_out != r_out and not od:
                        why = "printed output differs"
                    if why == "order":
                        verdict = "within tolerance (order-dependent: an exchanged value; " \
                                  "judged by the kernel's reference check)"
                    elif why is not None:
                        verdict = "DIFFERS: " + why
                        bad += 1
                    elif od == "timing":
                        verdict = "within tolerance (timing output, not compared)"
                    elif od:
                        verdict = "within tolerance (order-dependent)"
                if xfail and verdict != "same failure":
                    bad += 1
                rows.append((name, c, verdict))
                shutil.rmtree(os.path.join(tmp, "r%d_%s" % (i, c)), ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, c, v in rows:
        if not v.startswith(("identical", "within", "same failure")):
            print("%s on %s: %s" % (name, c, v))
    per = {}
    for name, c, v in rows:
        s = per.setdefault(c, [0, 0, 0, 0])
        s[0] += 1
        s[1] += v == "identical" or v == "same failure"
        s[2] += v.startswith("within")
        s[3] += not v.startswith(("identical", "within", "same failure"))
    print("| config | kernels | identical | within tolerance | differ or fail |")
    print("|---|---:|---:|---:|---:|")
    for c in configs:
        s = per.get(c, [0, 0, 0, 0])
        print("| %s | %d | %d | %d | %d |" % (c, s[0], s[1], s[2], s[3]))
    for kind in sorted({v for n, c, v in rows if v.startswith("within")}):
        names = sorted({n for n, c, v in rows if v == kind})
        print("%s: %s" % (kind, ", ".join(names)))
    print("differential: %d kernels x %d configs = %d runs: %d differ, %d failed" %
          (len({r[0] for r in rows}), len(configs), len(rows), bad, failed))
    if a.tsv:
        with open(a.tsv + ".tmp", "w") as f:
            f.write("kernel\tconfig\tverdict\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        os.replace(a.tsv + ".tmp", a.tsv)
    return 2 if failed else 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
