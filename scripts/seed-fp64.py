#!/usr/bin/env python3
"""Does ptxas keep HotSpot's FP64 work?  (doc/validation.md, "HotSpot's FP64")

    python3 scripts/seed-fp64.py [--ptxas PTXAS] [--arch sm_75]

Seed 001's HotSpot PTX (validation/seed-ptx/hotspot.ptx, nvcc 7.5 for sm_30)
does its stencil in double precision.  The seed GPUs' compilers (sm_30,
sm_50, sm_61) are not here and the installed ptxas targets sm_75 and later,
and there is no disassembler (cuobjdump, nvdisasm).  So this script:

1. compiles one-instruction probe kernels (fma.rn.f64, add.f64, mul.f64,
   cvt.f64.f32, cvt.rn.f32.f64, fma.rn.f32, add.f32, mul.f32) for --arch and
   learns each one's SASS opcode as the low 12 bits of the one 128-bit
   instruction word that the probe adds to a baseline kernel;
2. compiles hotspot.ptx, the same PTX with every FP64 operation made FP32
   (cvt to/from f64 become mov.f32), and a three-line f32 -> f64 add -> f32
   kernel that could be demoted to one FP32 add without changing its result;
3. counts those opcodes in each cubin's .text and prints the PTX's own counts.

It tells what this ptxas does with the PTX; not what CUDA 7.5/9.0's ptxas
did for sm_30/50/61 (the SASS there may differ in count and order).
Exit status: 0, 2 when ptxas is missing or fails.
"""
import argparse
import collections
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOTSPOT = os.path.join(ROOT, "validation", "seed-ptx", "hotspot.ptx")

PROBE = """.version 4.3
.target sm_30
.address_size 64
.visible .entry k(.param .u64 a){
 .reg .f32 %%f<8>; .reg .f64 %%fd<8>; .reg .u64 %%rd<4>;
 ld.param.u64 %%rd1,[a]; cvta.to.global.u64 %%rd2,%%rd1;
 ld.global.f32 %%f1,[%%rd2]; ld.global.f32 %%f2,[%%rd2+4]; ld.global.f32 %%f3,[%%rd2+8];
 ld.global.f64 %%fd1,[%%rd2+16]; ld.global.f64 %%fd2,[%%rd2+24]; ld.global.f64 %%fd3,[%%rd2+32];
 %s
 st.global.f32 [%%rd2+40],%%f4; st.global.f64 [%%rd2+48],%%fd4;
 ret;}
"""
PROBES = [  # (SASS name, PTX, PTX opcodes it stands for)
    ("DFMA", "mov.f32 %f4,%f1; fma.rn.f64 %fd4,%fd1,%fd2,%fd3;", ["fma.rn.f64"]),
    ("DADD", "mov.f32 %f4,%f1; add.f64 %fd4,%fd1,%fd2;", ["add.f64", "sub.f64"]),
    ("DMUL", "mov.f32 %f4,%f1; mul.f64 %fd4,%fd1,%fd2;", ["mul.f64"]),
    ("F2F (64-bit)", "mov.f32 %f4,%f1; cvt.f64.f32 %fd4,%f2;", ["cvt.f64.f32", "cvt.rn.f32.f64"]),
    ("FFMA", "fma.rn.f32 %f4,%f1,%f2,%f3; mov.f64 %fd4,%fd1;", ["fma.rn.f32"]),
    ("FADD", "add.f32 %f4,%f1,%f2; mov.f64 %fd4,%fd1;", ["add.f32", "sub.f32"]),
    ("FMUL", "mul.f32 %f4,%f1,%f2; mov.f64 %fd4,%fd1;", ["mul.f32"]),
]
BASE = "mov.f32 %f4,%f1; mov.f64 %fd4,%fd1;"
DEMOTABLE = """.version 4.3
.target sm_30
.address_size 64
.visible .entry k(.param .u64 a){
 .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .u64 %rd<4>;
 ld.param.u64 %rd1,[a]; cvta.to.global.u64 %rd2,%rd1;
 ld.global.f32 %f1,[%rd2]; ld.global.f32 %f2,[%rd2+4];
 cvt.f64.f32 %fd1,%f1; cvt.f64.f32 %fd2,%f2; add.f64 %fd3,%fd1,%fd2; cvt.rn.f32.f64 %f3,%fd3;
 st.global.f32 [%rd2+40],%f3;
 ret;}
"""


def text_words(cubin):
    """The 128-bit instruction words of every .text.* section of an ELF cubin."""
    d = open(cubin, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    secs = [struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    words = []
    for name, _, _, _, off, size in secs:
        n = d[stroff + name:d.index(b"\0", stroff + name)].decode()
        if n.startswith(".text."):
            words += [d[off + i:off + i + 16] for i in range(0, size, 16)]
    return words


def opcodes(cubin):
    return collections.Counter(struct.unpack_from("<Q", w)[0] & 0xfff for w in text_words(cubin))


def compile_ptx(ptxas, arch, tmp, name, text):
    src, out = os.path.join(tmp, name + ".ptx"), os.path.join(tmp, name + ".cubin")
    with open(src, "w") as f:
        f.write(text)
    p = subprocess.run([ptxas, "-arch=" + arch, src, "-o", out], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("ptxas %s: %s" % (name, p.stderr.strip()))
    return opcodes(out)


def fp64_as_fp32(ptx):
    """The PTX with every FP64 value made FP32: conversions become moves."""
    ptx = re.sub(r"cvt\.f64\.f32(\s+)", r"mov.f32\1", ptx)
    ptx = re.sub(r"cvt\.rn\.f32\.f64(\s+)", r"mov.f32\1", ptx)
    return ptx.replace(".f64", ".f32").replace("%fd", "%fx")


def ptx_counts(ptx, ops):
    body = [ln.split("//")[0] for ln in ptx.splitlines()]
    return sum(1 for ln in body for op in ops if re.match(r"\s*(@!?%p\d+\s+)?" + re.escape(op) +
                                                          r"\s", ln))


def main():
    ap = argparse.ArgumentParser(description="does ptxas keep HotSpot's FP64 work?")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--arch", default="sm_75")
    a = ap.parse_args()
    if not os.access(a.ptxas, os.X_OK):
        print("seed-fp64: no ptxas (--ptxas)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="seed-fp64.")
    try:
        base = compile_ptx(a.ptxas, a.arch, tmp, "base", PROBE % BASE)
        code = {}
        for name, body, _ in PROBES:
            new = compile_ptx(a.ptxas, a.arch, tmp, "probe", PROBE % body) - base
            new = [op for op in new if (op & 0xf00) != 0x900]      # NOP padding (0x918)
            if len(new) != 1:
                raise RuntimeError("probe %s: %d new opcodes, expected 1" % (name, len(new)))
            code[name] = new[0]
        hot = open(HOTSPOT).read()
        cubins = [("hotspot.ptx", compile_ptx(a.ptxas, a.arch, tmp, "hot", hot)),
                  ("hotspot.ptx, FP64 made FP32",
                   compile_ptx(a.ptxas, a.arch, tmp, "hot32", fp64_as_fp32(hot))),
                  ("f32 -> f64 add -> f32", compile_ptx(a.ptxas, a.arch, tmp, "dem", DEMOTABLE))]
    except RuntimeError as e:
        print("seed-fp64: %s" % e, file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ptxas %s, -arch=%s; SASS opcode = low 12 bits of the instruction word"
          % (a.ptxas, a.arch))
    print("%-14s %6s %12s %12s %28s %22s" % ("SASS", "opcode", "PTX (static)", cubins[0][0],
                                              cubins[1][0], cubins[2][0]))
    for name, _, ptxops in PROBES:
        print("%-14s  0x%03x %12d %12d %28d %22d"
              % (name, code[name], ptx_counts(hot, ptxops), cubins[0][1][code[name]],
                 cubins[1][1][code[name]], cubins[2][1][code[name]]))
    print("%-14s %6s %12s %12d %28d %22d" % ("all (16 B each)", "", "", sum(cubins[0][1].values()),
                                             sum(cubins[1][1].values()),
                                             sum(cubins[2][1].values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
