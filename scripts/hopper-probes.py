#!/usr/bin/env python3
"""smsim against the Hopper-native probes measured on an H100 (issue 30).

    python3 scripts/hopper-probes.py [--smsim SMSIM] [--config h100] [--probes DIR] [--only REGEX]

The probes and their H100 figures live in the project's shared measurement
folder (default ../shared/measured/h100/hopper-probes: README.md there,
results-h100/hopper-probes.tsv).  Each probe is an smsim launch file that
times itself with clock64: slot s of its u64 buffer `clk` holds (t0, t1);
slots 0-15 are empty regions whose median is the clock-read overhead.
This script runs the probes smsim supports through `smsim run`, reads the
same quantities the GPU gave from the simulated clk buffer (the method of
the folder's README: medians of the regions, overhead subtracted, per
operation where a region holds several), and prints them beside the H100's.
It is the calibration table of the sync.* and tma.* config fields (their
comments name the rows they were set from).  The wgmma probes' results
are also checked against the product the probes compute (the README's
validity check).  Exit 0, 1 if a wgmma result is wrong, or 2 if the probes
folder is missing or a run fails.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smsimlib import ROOT  # noqa: E402

NOVH = 16
# probe -> (analysis, quantity): the rows compared (probe name = launch file stem)
BULK_LAT = ["bulk_g2s_lat_%s_%s" % (s, src) for src in ("l2", "dram")
            for s in ("128B", "1K", "4K", "16K", "64K")] + ["mbar_expect_tx_bulk16"]
BULK_BW = ["bulk_g2s_bw_16K_q1_l2", "bulk_g2s_bw_16K_q2_l2", "bulk_g2s_bw_16K_q4_l2",
           "bulk_g2s_bw_16K_q8_l2", "bulk_g2s_bw_4K_q4_l2", "bulk_g2s_bw_16K_q4_dram"]
BULK_S2G_BW = ["bulk_s2g_bw_16K_q1", "bulk_s2g_bw_16K_q4", "bulk_s2g_bw_16K_q8"]
DSMEM = ["dsmem_c2", "dsmem_c4", "dsmem_c8"]
# the wgmma probes: every launch file wgmma_*.launch but the deliberately broken descswap
WGMMA_SKIP = ("wgmma_f16_n64_ss_descswap",)
MBAR = ["arrive_trywait_roundtrip", "pingpong_roundtrip", "test_wait_false", "test_wait_true",
        "try_wait_timeout", "arrive_only", "cta_barrier_mbarrier_64thr", "bar_sync_64thr"]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return float(xs[n // 2]) if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def launch_info(path):
    """(scalar args, metadata, output file of clk) of a launch file."""
    args, meta, clk = {}, {}, None
    for line in open(path):
        m = re.match(r"#@\s*(\w+)\s*=\s*(\S+)", line)
        if m:
            meta[m.group(1)] = m.group(2)
        line = line.split("#")[0].strip()
        m = re.match(r"arg\s*=\s*(\w+)\s+(u32|s32)\s+(\S+)$", line)
        if m:
            args[m.group(1)] = int(m.group(3), 0)
        m = re.match(r"output\s*=\s*clk\s+(\S+)", line)
        if m:
            clk = m.group(1)
    return args, meta, clk


def deltas(clk, first, count):
    return [clk[2 * s + 1] - clk[2 * s] for s in range(first, first + count)]


def simulate(smsim, config, path, outdir):
    """The simulated clk buffer (a list of u64) of launch file path."""
    args, meta, clk = launch_info(path)
    r = subprocess.run([smsim, "run", "--config", config, "--quiet", "--launch", path,
                        "--output-dir", outdir], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (path, r.stderr.strip()))
    raw = open(os.path.join(outdir, clk), "rb").read()
    return args, meta, list(struct.unpack("<%dQ" % (len(raw) // 8), raw))


def pat_a(m, k):
    return (m * 37 + k * 11 + (m * k) % 7) % 5 - 2


def pat_b(n, k):
    return (n * 13 + k * 29 + (n * k) % 3) % 5 - 2


def wgmma_check(path, args, meta, outdir):
    """Elements of the simulated D (warpgroup 0, every accumulator set) that
    differ from the probes' expected reps x iters x A.B^T (the README's
    validity check, in plain Python), and how many were checked."""
    n, k, nacc = int(meta["n"]), int(meta["k"]), int(meta["nacc"])
    ksteps = 4 if meta["mode"] == "sw128" else 1
    iters, reps = args["iters"], args["reps"]
    exp = [[0] * n for _ in range(64)]
    for ks in range(ksteps):
        cnt = len([j for j in range(iters) if j % ksteps == ks]) if iters > 1 else int(ks == 0)
        for m in range(64 if cnt else 0):
            for c in range(n):
                exp[m][c] += cnt * sum(pat_a(m, kk) * pat_b(c, kk)
                                       for kk in range(ks * k, (ks + 1) * k))
    out = None
    for line in open(path):
        mo = re.match(r"output\s*=\s*dout\s+(\S+)", line.split("#")[0].strip())
        if mo:
            out = mo.group(1)
    raw = open(os.path.join(outdir, out), "rb").read()
    vals = struct.unpack_from("<%d%s" % (nacc * 128 * (n // 2), "i" if meta["dtype"] == "s8" else "f"),
                              raw)
    bad = 0
    for a in range(nacc):
        for t in range(128):
            for i in range(n // 2):
                r = 16 * (t // 32) + (t % 32) // 4 + 8 * ((i >> 1) & 1)
                c = 8 * (i >> 2) + 2 * (t % 4) + (i & 1)
                bad += vals[(a * 128 + t) * (n // 2) + i] != exp[r][c] * reps
    return bad, nacc * 64 * n


def analyse(name, args, meta, clk):
    """{quantity: value} as the probes' README defines them."""
    ovh = median(deltas(clk, 0, NOVH))
    if name in BULK_LAT:
        d = [x - ovh for x in deltas(clk, NOVH, args["reps"])]
        use = d[1:] if meta.get("source", "l2") == "l2" else d
        return {"latency": median(use)}
    if name in BULK_BW:
        d = [x - ovh for x in deltas(clk, NOVH, args["reps"])]
        use = d[1:] if meta.get("source", "l2") == "l2" and args["reps"] > 1 else d
        return {"bytes_per_clk": args["copies"] * args["chunk"] / median(use)}
    if name in BULK_S2G_BW:
        d = [x - ovh for x in deltas(clk, NOVH, args["reps"])]
        return {"bytes_per_clk": args["copies"] * args["chunk"] / median(d)}
    if name.startswith("wgmma_"):
        nwg = int(meta["nwg"])
        iters, reps, nacc = args["iters"], args["reps"], int(meta["nacc"])
        t = [[(clk[2 * (NOVH + r * nwg + w)], clk[2 * (NOVH + r * nwg + w) + 1])
              for w in range(nwg)] for r in range(reps)]
        if meta["kind"] == "lat":
            return {"latency": median([t[r][0][1] - t[r][0][0] - ovh for r in range(reps)])}
        per_wg = median([b - a - ovh for rr in t for a, b in rr]) / (iters * nacc)
        span = median([max(b for _, b in rr) - min(a for a, _ in rr) - ovh for rr in t])
        return {"cycles_per_wgmma": per_wg, "sm_cycles_per_wgmma": span / (nwg * iters * nacc)}
    if name.startswith("dsmem_"):
        cs, n = int(meta["cluster"]), int(meta["samples"])
        nt = 256 if "block" not in meta else int(meta["block"])
        slot = NOVH
        out = {}

        def take(div):
            nonlocal slot
            d = [(x - ovh) / div for x in deltas(clk, slot, n)]
            slot += n
            return d
        out["local_chase_per_hop"] = median(take(args["hops"]))
        remote = []
        for j in range(cs):
            d = median(take(args["hops"]))
            out["cluster_chase_per_hop_rank%d" % j] = d
            remote += [d] if j > 0 else []
        out["remote_chase_per_hop"] = median(remote)
        nbytes = nt * 16 * 8 * args["bw_iters"]
        for q in ("local_bw_bytes_per_clk", "remote_bw_bytes_per_clk"):
            out[q] = median([nbytes / x if x > 0 else float("nan") for x in take(1)])
        for q in ("cluster_barrier", "cluster_barrier_relaxed", "bar_sync_cta"):
            out[q] = median(take(args["bar_iters"]))
        return out
    if name == "mbar_probe":
        n = int(meta["samples"])
        out = {}
        for j, q in enumerate(MBAR):
            cnt = args["tw_iters"] if q == "try_wait_timeout" else args["iters"]
            out[q] = median([(x - ovh) / cnt for x in deltas(clk, NOVH + j * n, n)])
        return out
    return {}


def measured(tsv):
    out = {}
    for line in open(tsv):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 4 and not line.startswith("#"):
            try:
                out[(f[1], f[2])] = float(f[3])
            except ValueError:
                pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smsim", default=os.path.join(ROOT, "build", "smsim"))
    ap.add_argument("--config", default="h100")
    ap.add_argument("--probes", default=os.path.join(ROOT, "..", "shared", "measured", "h100",
                                                     "hopper-probes"))
    ap.add_argument("--only", default=None, help="regex: the probes to run")
    a = ap.parse_args()
    tsv = os.path.join(a.probes, "results-h100", "hopper-probes.tsv")
    if not os.path.exists(tsv):
        print("hopper-probes: no %s (the shared measurement folder)" % tsv, file=sys.stderr)
        return 2
    meas = measured(tsv)
    wgmma = sorted(f[:-7] for f in os.listdir(os.path.join(a.probes, "launch"))
                   if f.startswith("wgmma_") and f.endswith(".launch") and f[:-7] not in WGMMA_SKIP)
    names = BULK_LAT + BULK_BW + BULK_S2G_BW + ["mbar_probe"] + wgmma + DSMEM
    if a.only:
        names = [n for n in names if re.search(a.only, n)]
    rows, errs, checks, wrong = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            try:
                args, meta, clk = simulate(a.smsim, a.config, os.path.join(a.probes, "launch",
                                                                          n + ".launch"), tmp)
            except (RuntimeError, OSError) as e:
                print("hopper-probes: %s" % e, file=sys.stderr)
                return 2
            if n.startswith("wgmma_"):
                bad, total = wgmma_check(os.path.join(a.probes, "launch", n + ".launch"), args,
                                         meta, tmp)
                wrong.extend([n] if bad else [])
                checks.append("%s: D %s" % (n, "exact" if not bad else "WRONG in %d of %d elements"
                                            % (bad, total)))
            for q, v in analyse(n, args, meta, clk).items():
                m = meas.get((n, q))
                if meas.get((n, "valid")) == 0:
                    continue         # the GPU's own run of it computed a wrong result
                err = (v - m) / m * 100 if m else float("nan")
                rows.append((n, q, m, v, err))
                errs.append(abs(err))
    print("%-26s %-26s %10s %10s %8s" % ("probe", "quantity", "H100", "smsim", "err %"))
    for n, q, m, v, e in rows:
        print("%-26s %-26s %10.1f %10.1f %+8.1f" % (n, q, m if m is not None else float("nan"), v, e))
    if errs:
        print("MAE %.1f %% over %d figures (%s)" % (sum(errs) / len(errs), len(errs), a.config))
    for c in checks:
        print(c)
    if wrong:
        print("hopper-probes: wrong results: %s" % " ".join(wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
