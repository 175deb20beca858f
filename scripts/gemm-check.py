#!/usr/bin/env python3
"""Check a GEMM kernel's output against a C = A . B^T reference in TF32.

    python3 scripts/gemm-check.py A.bin B.bin C.bin M N K [--samples S] [--fp32] [--b-kn]

A (M x K) and B (N x K) are row-major f32 (the launch file's inputs, as
its `output` lines write them), C (M x N) the kernel's result.  The
reference truncates A and B to TF32 (the top 19 bits, as the tensor core
reads them; --fp32: not) and sums in double precision; an element agrees
when |C - ref| <= 1e-4 x (1 + sum |a b|), the rounding of a K-term f32
accumulation.  S elements (default 4096; 0: all) are drawn with a fixed
seed.  Prints the count checked, the worst error and the elements that
disagree; exit 0 when none does, 1 otherwise, 2 on bad input.  --b-kn: B
is K x N row-major (C = A . B).
"""
import argparse
import random
import struct
import sys


def floats(path, n):
    raw = open(path, "rb").read()
    if len(raw) != 4 * n:
        raise ValueError("%s: %d bytes, expected %d" % (path, len(raw), 4 * n))
    return struct.unpack("<%df" % n, raw)


def tf32(xs):
    out = []
    for x in xs:
        u = struct.unpack("<I", struct.pack("<f", x))[0] & 0xffffe000
        out.append(struct.unpack("<f", struct.pack("<I", u))[0])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("c")
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("--samples", type=int, default=4096)
    ap.add_argument("--fp32", action="store_true")
    ap.add_argument("--b-kn", action="store_true", help="B is K x N (row-major): C = A . B")
    a = ap.parse_args()
    try:
        A = floats(a.a, a.m * a.k)
        B = floats(a.b, a.n * a.k)
        C = floats(a.c, a.m * a.n)
    except (OSError, ValueError) as e:
        print("gemm-check: %s" % e, file=sys.stderr)
        return 2
    if a.b_kn:                   # to N x K, the layout below
        B = [B[k * a.n + j] for j in range(a.n) for k in range(a.k)]
    if not a.fp32:
        A, B = tf32(A), tf32(B)
    rnd = random.Random(1)
    cells = ([(i, j) for i in range(a.m) for j in range(a.n)] if a.samples == 0 else
             [(rnd.randrange(a.m), rnd.randrange(a.n)) for _ in range(a.samples)])
    worst, bad = 0.0, 0
    for i, j in cells:
        ra, rb = A[i * a.k:(i + 1) * a.k], B[j * a.k:(j + 1) * a.k]
        s = sum(x * y for x, y in zip(ra, rb))
        mag = sum(abs(x * y) for x, y in zip(ra, rb))
        e = abs(C[i * a.n + j] - s)
        worst = max(worst, e / (1 + mag))
        if e > 1e-4 * (1 + mag):
            bad += 1
            if bad <= 5:
                print("C[%d][%d] = %.7g, reference %.7g" % (i, j, C[i * a.n + j], s))
    print("gemm-check: %d elements, worst error %.3g of 1 + sum |a b|, %d disagree"
          % (len(cells), worst, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
