#!/usr/bin/env python3
"""Write the small Accel-Sim traces of traces/accelsim/ (see README.md).

Every instruction line below is written by hand to exercise one feature of
the format or of an instruction set; this script only repeats them per warp
and block (shifting addresses), counts them for `insts = N`, and writes the
headers.  Run from anywhere: python3 traces/accelsim/make.py
Needs the xz tool for features/kernel-2.traceg.xz.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SHMEM_BASE = 0x00007F0FF0000000
LOCAL_BASE = 0x00007F0FF2000000
FULL = "ffffffff"


def header(name, grid, block, binver, tracer="5", lineinfo=0, shmem=0, nregs=32):
    return (f"-kernel name = {name}\n-kernel id = 1\n"
            f"-grid dim = ({grid[0]},{grid[1]},{grid[2]})\n"
            f"-block dim = ({block[0]},{block[1]},{block[2]})\n"
            f"-shmem = {shmem}\n-nregs = {nregs}\n-binary version = {binver}\n"
            "-cuda stream id = 0\n"
            f"-shmem base_addr = 0x{SHMEM_BASE:016x}\n"
            f"-local mem base_addr = 0x{LOCAL_BASE:016x}\n"
            "-nvbit version = 1.7\n"
            f"-accelsim tracer version = {tracer}\n"
            f"-enable lineinfo = {lineinfo}\n\n"
            "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
            "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n")


def body(grid, warps, insts, prefix=None, final_newline=True, per_warp_override=None):
    """insts(b, w) -> list of lines; prefix(b, w) -> per-line prefix (tracer 1.2)."""
    out = []
    nblocks = grid[0] * grid[1] * grid[2]
    for b in range(nblocks):
        x, y, z = b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1])
        out.append(f"#BEGIN_TB\n\nthread block = {x},{y},{z}\n")
        for w in range(warps):
            lines = insts(b, w)
            if per_warp_override is not None and (b, w) in per_warp_override:
                lines = per_warp_override[(b, w)]
            if prefix is not None:
                lines = [prefix(b, w) + " " + l for l in lines]
            out.append(f"warp = {w}\ninsts = {len(lines)}\n" + "".join(l + "\n" for l in lines))
        out.append("#END_TB\n\n")
    text = "\n".join(out)
    return text if final_newline else text.rstrip("\n")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def deltas(n, step):
    return " ".join([str(step)] * (n - 1))


# ---- features: Volta, tracer 5, two kernels, MemcpyHtoD, one .xz ----------
X, Y = 0x7F0000000000, 0x7F0000100000


def volta_k1(b, w):
    g = (b * 2 + w) * 32                    # first element of this warp
    return [
        f"0000 {FULL} 1 R1 MOV 0 0 0",                       # immediate operand 0
        f"0010 {FULL} 1 R0 S2R 0 0 0",
        f"0020 {FULL} 1 R2 IMAD.WIDE.U32 2 R0 R255 0 0",      # RZ source: no dependence
        # base+stride (mode 1)
        f"0030 {FULL} 1 R4 LDG.E.SYS 1 R2 4 1 0x{X + 4 * g:x} 4 0",
        # base+delta (mode 2), 64-bit load into R6:R7
        f"0040 {FULL} 1 R6 LDG.E.64.SYS 1 R2 8 2 0x{Y + 8 * g:x} {deltas(32, 8)} 0",
        # list (mode 0), half the lanes, scattered
        f"0050 0000ffff 1 R8 LDG.E.SYS 1 R2 4 0 "
        + " ".join(f"0x{X + 4 * (g + 97 * l % 512):x}" for l in range(16)) + " 0",
        f"0060 {FULL} 0 STS 2 R0 R4 4 1 0x{4 * 32 * w:x} 4 0",   # shared offsets
        f"0070 {FULL} 0 BAR.SYNC 0 0 0",
        # generic loads and stores resolved by window
        f"0080 {FULL} 1 R9 LD.E 1 R2 4 1 0x{SHMEM_BASE + 4 * 32 * (1 - w):x} 4 0",
        f"0090 {FULL} 0 ST.E 2 R2 R9 4 1 0x{LOCAL_BASE + 4 * 32 * w:x} 4 0",
        f"00a0 {FULL} 1 R10 LD.E 1 R2 4 1 0x{X + 4 * g + 0x10000:x} 4 0",
        # a memory instruction with every lane predicated off
        f"00b0 00000000 1 R11 LDG.E.SYS 1 R2 4 0 0",
        f"00c0 {FULL} 1 R12 MUFU.EX2 1 R4 0 0",
        f"00d0 {FULL} 1 R14 DFMA 3 R6 R6 R6 0 0",             # pairs R14:R15, R6:R7
        f"00e0 {FULL} 1 R16 F2F.F64.F32 1 R4 0 0",            # a 64-bit conversion
        f"00f0 {FULL} 1 R17 ATOMG.E.ADD.STRONG.GPU 2 R2 R4 4 1 0x{X:x} 0 0",
        f"0100 {FULL} 0 RED.E.ADD.STRONG.GPU 2 R2 R4 4 1 0x{X + 0x100:x} 0 0",
        f"0110 {FULL} 1 R18 LDG.E.STRONG.GPU 1 R2 4 1 0x{X + 4 * g:x} 4 0",   # bypasses L1
        f"0120 {FULL} 1 R19 SHFL.BFLY 2 R4 R255 0 0",
        f"0130 {FULL} 1 R20 FFMA 3 R4 R12 R19 0 0",
        f"0140 {FULL} 0 STG.E.64.SYS 2 R2 R14 8 1 0x{Y + 8 * g:x} 8 0",   # wide store data R14:R15
        f"0150 ffff0000 0 BRA 0 0 0",                          # divergent branch
        f"0160 ffff0000 1 R21 IADD3 3 R20 R21 R255 0 0",
        f"0170 {FULL} 0 WARPSYNC 0 0 0",
        f"0180 {FULL} 0 DEPBAR.LE 0 0 1",                      # immediate 1
        f"0190 {FULL} 0 EXIT 0 0 0",
    ]


def volta_k2(b, w):
    return [
        f"0000 {FULL} 1 R0 S2R 0 0 0",
        f"0010 {FULL} 1 R2 IMAD.WIDE 2 R0 R255 0 0",
        f"0020 {FULL} 1 R4 LDG.E.128.SYS 1 R2 16 1 0x{X + 512 * w:x} 16 0",  # R4..R7
        f"0030 {FULL} 1 R8 FADD 2 R4 R7 0 0",
        f"0040 {FULL} 0 STG.E.SYS 2 R2 R8 4 1 0x{Y + 128 * w:x} 4 0",
        f"0050 {FULL} 0 EXIT 0 0 0",
    ]


def features():
    d = os.path.join(HERE, "features")
    write(os.path.join(d, "kernel-1.traceg"),
          header("_Z8featuresPfS_", (2, 1, 1), (64, 1, 1), 70, shmem=256, nregs=24)
          + body((2, 1, 1), 2, volta_k1))
    k2 = os.path.join(d, "kernel-2.traceg")
    write(k2, header("_Z6vload4Pf", (3, 1, 1), (96, 1, 1), 70, nregs=12)
          + body((3, 1, 1), 3, volta_k2))
    subprocess.run(["xz", "-f", "-9", k2], check=True)      # leaves kernel-2.traceg.xz
    write(os.path.join(d, "kernelslist.g"),
          f"MemcpyHtoD,0x{X:016x},65536\nMemcpyHtoD,0x{Y:016x},65536\n"
          "kernel-1.traceg\nkernel-2.traceg.xz\n")


# ---- Pascal, tracer 4 with line numbers, no immediates -------------------------
def pascal(b, w):
    a = X + 128 * (b * 4 + w)
    lines = [
        ("0008", FULL, "1 R0 S2R 0", " 0"),
        ("0010", FULL, "1 R2 XMAD 2 R0 R0", " 0"),
        ("0018", FULL, "1 R3 LDG.E 1 R2", f" 4 1 0x{a:x} 4"),
        ("0020", FULL, "1 R4 FFMA 3 R3 R3 R3", " 0"),
        ("0028", FULL, "0 STS 2 R0 R4", f" 4 1 0x{4 * 32 * w:x} 4"),
        ("0030", FULL, "0 BAR.SYNC 0", " 0"),
        ("0038", FULL, "1 R5 LDS.U.64 1 R0", f" 8 1 0x{8 * 32 * (3 - w) % 1024:x} 8"),
        ("0040", FULL, "1 R7 HADD2 2 R5 R6", " 0"),
        ("0048", FULL, "0 STG.E 2 R2 R7", f" 4 1 0x{a + 0x10000:x} 4"),
        ("0050", FULL, "0 EXIT 0", " 0"),
    ]
    # line number, PC, mask, ... ; no trailing immediate (tracer 4 before it was added)
    return [f"{17 + i} {pc} {m} {rest}{mem}" for i, (pc, m, rest, mem) in enumerate(lines)]


def pascal_v4():
    write(os.path.join(HERE, "pascal-v4-lineinfo", "kernel-1.traceg"),
          header("_Z6pascalPf", (2, 1, 1), (128, 1, 1), 61, tracer="4", lineinfo=1,
                 shmem=1024, nregs=16)
          + body((2, 1, 1), 4, pascal))


# ---- Kepler, tracer 3, 8-byte instructions ---------------------------------
def kepler(b, w):
    a = X + 128 * (b * 2 + w)
    return [
        f"0008 {FULL} 1 R0 S2R 0 0",
        f"0010 {FULL} 1 R2 IMAD 2 R0 R0 0",
        f"0018 {FULL} 1 R3 LD.E 1 R2 4 1 0x{a:x} 4",            # generic -> global
        f"0020 {FULL} 1 R4 LDG.E 1 R2 4 1 0x{a + 0x8000:x} 4",  # sm_35 read-only path
        f"0028 {FULL} 1 R5 FFMA 3 R3 R4 R4 0",
        f"0030 {FULL} 1 R6 MUFU.RCP 1 R5 0",
        f"0038 {FULL} 0 ST.E.CG 2 R2 R6 4 1 0x{a + 0x10000:x} 4",
        f"0040 {FULL} 0 EXIT 0 0",
    ]


def kepler_v3():
    write(os.path.join(HERE, "kepler-v3", "kernel-1.traceg"),
          header("_Z6keplerPf", (2, 1, 1), (64, 1, 1), 35, tracer="3", nregs=8)
          + body((2, 1, 1), 2, kepler))


# ---- tracer 1.2: every line starts with the block and warp ids --------------
def tracer12():
    def insts(b, w):
        a = X + 128 * (b * 2 + w)
        return [
            f"0000 {FULL} 1 R0 S2R 0 0",
            f"0010 {FULL} 1 R2 LDG.E 1 R0 4 1 0x{a:x} 4",
            f"0020 {FULL} 1 R3 FMUL 2 R2 R2 0",
            f"0030 {FULL} 0 STG.E 2 R0 R3 4 1 0x{a + 0x10000:x} 4",
            f"0040 {FULL} 0 EXIT 0 0",
        ]
    write(os.path.join(HERE, "tracer-1.2", "kernel-1.traceg"),
          header("_Z3oldPf", (2, 1, 1), (64, 1, 1), 60, tracer="1.2", nregs=8)
          + body((2, 1, 1), 2, insts, prefix=lambda b, w: f"{b} 0 0 {w}"))


# ---- Turing: uniform datapath, HMMA -----------------------------------------
def turing(b, w):
    a = X + 128 * (b * 2 + w)
    return [
        f"0000 {FULL} 0 ULDC.64 0 0 0",
        f"0010 {FULL} 1 R0 S2R 0 0 0",
        f"0020 {FULL} 0 UIADD3 0 0 0",
        f"0030 {FULL} 1 R2 LEA 1 R0 0 0",
        f"0040 {FULL} 1 R4 LDG.E.64.SYS 1 R2 8 1 0x{a:x} 8 0",
        f"0050 {FULL} 1 R8 HMMA.1688.F32 3 R4 R4 R8 0 0",
        f"0060 {FULL} 1 R12 HMMA.1688.F32 3 R4 R4 R8 0 0",
        f"0070 {FULL} 0 STG.E.SYS 2 R2 R12 4 1 0x{a + 0x10000:x} 4 0",
        f"0080 {FULL} 0 EXIT 0 0 0",
    ]


def turing_t():
    write(os.path.join(HERE, "turing", "kernel-1.traceg"),
          header("_Z6turingPf", (2, 1, 1), (64, 1, 1), 75, nregs=40)
          + body((2, 1, 1), 2, turing))


# ---- Ampere: cp.async (LDGSTS) with its barriers, HMMA.16816 ----------------
def ampere(b, w):
    a = X + 512 * (b * 4 + w)
    return [
        f"0000 {FULL} 1 R0 S2R 0 0 0",
        f"0010 {FULL} 0 ULDC 0 0 0",
        f"0020 {FULL} 0 LDGSTS.E.BYPASS.128 2 R0 R2 16 1 0x{a:x} 16 0",
        f"0030 {FULL} 0 LDGDEPBAR 0 0 0",
        f"0040 {FULL} 0 DEPBAR.LE 0 0 0",
        f"0050 {FULL} 0 BAR.SYNC.DEFER_BLOCKING 0 0 0",
        f"0060 {FULL} 1 R4 LDSM.16.M88.4 1 R0 16 1 0x{512 * w:x} 16 0",
        f"0070 {FULL} 1 R12 HMMA.16816.F32 3 R4 R6 R12 0 0",
        f"0080 {FULL} 1 R16 F2FP.PACK_AB 2 R12 R13 0 0",
        f"0090 {FULL} 0 STG.E 2 R2 R16 4 1 0x{a + 0x10000:x} 4 0",
        f"00a0 {FULL} 0 EXIT 0 0 0",
    ]


def ampere_t():
    write(os.path.join(HERE, "ampere", "kernel-1.traceg"),
          header("_Z6amperePf", (2, 1, 1), (128, 1, 1), 86, shmem=8192, nregs=64)
          + body((2, 1, 1), 4, ampere))


# ---- Hopper: warpgroup MMA, a global reduction -------------------------------
def hopper(b, w):
    a = X + 128 * (b * 4 + w)
    return [
        f"0000 {FULL} 1 R0 S2R 0 0 0",
        f"0010 {FULL} 0 UMOV 0 0 0",
        f"0020 {FULL} 1 R2 LDG.E.64 1 R0 8 1 0x{a:x} 8 0",
        f"0030 {FULL} 0 WARPGROUP.ARRIVE 0 0 0",
        f"0040 {FULL} 1 R24 HGMMA.64x64x16.F32 2 R2 R24 0 0",
        f"0050 {FULL} 0 REDG.E.ADD.F32.FTZ.RN.STRONG.GPU 2 R0 R24 4 1 0x{X:x} 0 0",
        f"0060 {FULL} 0 EXIT 0 0 0",
    ]


def hopper_t():
    write(os.path.join(HERE, "hopper", "kernel-1.traceg"),
          header("_Z6hopperPf", (1, 1, 1), (128, 1, 1), 90, nregs=90)
          + body((1, 1, 1), 4, hopper))


# ---- edge cases Accel-Sim itself trips on ------------------------------------
def edge():
    def insts(b, w):
        return [f"0000 {FULL} 1 R0 S2R 0 0 0",
                f"0010 {FULL} 1 R1 IADD3 2 R0 R0 0 0",
                f"0020 {FULL} 0 EXIT 0 0 0"]
    # warp 1 of block 1 has no instructions; the file has no final newline
    write(os.path.join(HERE, "edge", "kernel-1.traceg"),
          header("_Z4edgev", (2, 1, 1), (64, 1, 1), 70, nregs=8)
          + body((2, 1, 1), 2, insts, final_newline=False, per_warp_override={(1, 1): []}))
    write(os.path.join(HERE, "edge", "kernelslist.g"), "kernel-1.traceg")   # no newline either


if __name__ == "__main__":
    features()
    pascal_v4()
    kepler_v3()
    tracer12()
    turing_t()
    ampere_t()
    hopper_t()
    edge()
