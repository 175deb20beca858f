#!/usr/bin/env python3
"""Measure smsim launch files on a real NVIDIA GPU, in the format of
validation/measured/.

    python3 scripts/measure-gpu.py [--smsim SMSIM] [--ncu NCU | --no-ncu] [--run N]
                                   [--out FILE.tsv] [--clock64 FILE.tsv] [--outputs DIR]
                                   LAUNCH...
    python3 scripts/measure-gpu.py --check-inputs --smsim SMSIM LAUNCH...
    python3 scripts/measure-gpu.py --parse-ncu CSV LAUNCH

For each launch file it loads the PTX through the CUDA driver's JIT (as
ptxas -O3 for the GPU), builds every buffer exactly as smsim's launch
reader does, launches grid, block and arguments as written (`repeat = N`
times) and records, per launch, one row of validation/measured/h100-sxm5/
ncu.tsv's columns:

  - with Nsight Compute (`ncu` on PATH or --ncu): it runs itself under
    `ncu --clock-control none --cache-control all` (natural clocks, L1 and
    L2 flushed before every launch) and takes sm__cycles_elapsed.max,
    gpu__time_duration, the SM clock, SASS instructions (warp and thread),
    DRAM bytes, L1/L2 sector hit rates, occupancy, issue activity,
    registers, instructions per pipe and shared-memory bank conflicts;
  - without it (--no-ncu): CUDA events around each launch; cycles =
    duration x the device's clock rate (not the clock it really ran at),
    and the other columns "-".

A launch file whose buffer `clk` is a u64 output (the micro-benchmarks)
also gives a clock64 row (--clock64 FILE).  Rows are appended to --out
(default: standard output) with a header when the file is new.

Buffers.  With --smsim (or `smsim` on PATH) the initial contents come from
`smsim emulate --launch F --inputs DIR`: the launch reader's own bytes.
Without smsim they are computed here (splitmix64, Sattolo's chase, the
same float and integer conversions); numpy makes that fast, plain Python
is slow on buffers of hundreds of MB.  `--check-inputs` compares the two
for every buffer of the given launch files and needs no GPU (make check
runs it: tests/measure.sh).  `--parse-ncu` turns a saved `ncu --csv --page
raw --print-units base` output into rows (also tested without a GPU).

Exit status: 0 done, 1 usage, 2 an input, the driver or ncu failed.
"""
import argparse
import csv
import ctypes
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smsimlib import ROOT, TYPE_BYTES, PipelineError, parse_launch  # noqa: E402

COLUMNS = ["launch_file", "launch", "run", "cycles", "duration_ns", "sm_clock_hz",
           "sass_warp_insts", "sass_thread_insts", "dram_read_B", "dram_write_B", "l1_hit_pct",
           "l2_hit_pct", "achieved_occupancy_pct", "issue_active_pct", "regs", "pipe_fma",
           "pipe_alu", "pipe_fp64", "pipe_xu", "pipe_lsu", "smem_bank_conflicts"]

# ncu.tsv column -> Nsight Compute metric
METRICS = [
    ("cycles", "sm__cycles_elapsed.max"),
    ("duration_ns", "gpu__time_duration.sum"),
    ("sm_clock_hz", "sm__cycles_elapsed.avg.per_second"),
    ("sass_warp_insts", "smsp__inst_executed.sum"),
    ("sass_thread_insts", "smsp__thread_inst_executed.sum"),
    ("dram_read_B", "dram__bytes_read.sum"),
    ("dram_write_B", "dram__bytes_write.sum"),
    ("l1_hit_pct", "l1tex__t_sector_hit_rate.pct"),
    ("l2_hit_pct", "lts__t_sector_hit_rate.pct"),
    ("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("issue_active_pct", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("regs", "launch__registers_per_thread"),
    ("pipe_fma", "smsp__inst_executed_pipe_fma.sum"),
    ("pipe_alu", "smsp__inst_executed_pipe_alu.sum"),
    ("pipe_fp64", "smsp__inst_executed_pipe_fp64.sum"),
    ("pipe_xu", "smsp__inst_executed_pipe_xu.sum"),
    ("pipe_lsu", "smsp__inst_executed_pipe_lsu.sum"),
    ("smem_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
]

M64 = (1 << 64) - 1
GAMMA, C1, C2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def fail(msg):
    raise PipelineError(msg)


def rel_launch(path):
    p = os.path.abspath(path)
    return os.path.relpath(p, ROOT) if p.startswith(ROOT + os.sep) else path


# ---- the launch reader's initialisers (frontend/launch.c), bit for bit ----------------

def splitmix_seq(seed, n):
    """The first n outputs of splitmix64 seeded with seed (a list)."""
    out, s = [], seed & M64
    for _ in range(n):
        s = (s + GAMMA) & M64
        z = s
        z = ((z ^ (z >> 30)) * C1) & M64
        z = ((z ^ (z >> 27)) * C2) & M64
        out.append(z ^ (z >> 31))
    return out


def splitmix_np(np, seed, n):
    i = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + i * np.uint64(GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(C1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(C2)
    return z ^ (z >> np.uint64(31))


def wrap_u64(v):
    """launch.c wrap_u64: v truncated toward zero, reduced modulo 2^64."""
    if v != v:
        return 0
    if v in (float("inf"), float("-inf")):
        return 0
    return int(v) & M64


INT_FMT = {"u8": "B", "s8": "B", "u16": "H", "s16": "H", "u32": "I", "s32": "I",
           "u64": "Q", "s64": "Q"}


def pack_values(typ, vals):
    """Elements of type typ from doubles, as launch.c's store() does."""
    if typ == "f32":
        return struct.pack("<%df" % len(vals), *vals)
    if typ == "f64":
        return struct.pack("<%dd" % len(vals), *vals)
    if typ == "f16":    # nearest even from the double, as __double2half (struct's 'e' rounds so)
        return struct.pack("<%de" % len(vals), *vals)
    bits = 8 * TYPE_BYTES[typ]
    mask = (1 << bits) - 1
    return struct.pack("<%d%s" % (len(vals), INT_FMT[typ]), *[wrap_u64(v) & mask for v in vals])


def to_double(word):
    """A launch file float as launch.c reads it (decimal, 0x, inf, nan)."""
    try:
        return float(int(word, 0)) if re.match(r"^[-+]?0[xX][0-9a-fA-F]+$", word) else float(word)
    except ValueError:
        fail("bad number '%s'" % word)


def to_int(word):
    """A launch file integer as launch.c reads it: decimal or 0x, or a float
    literal with an integral value; a two's-complement Python int."""
    try:
        return int(word, 0)
    except ValueError:
        v = to_double(word)
        if v != int(v):
            fail("'%s' is not an integer" % word)
        return int(v)


def fill(typ, count, words, base_dir):
    """The initial bytes of a buffer: arg = NAME buffer TYPE COUNT INIT..."""
    b = TYPE_BYTES[typ]
    init, rest = words[0], words[1:]
    isfloat = typ in ("f32", "f64", "f16")
    if typ == "bf16" and init != "zeros" and init != "file":
        fail("bf16 %s: computed here only by smsim (give --smsim)" % init)
    mask = (1 << (8 * b)) - 1
    try:
        import numpy as np
    except ImportError:
        np = None
    if init == "zeros":
        return bytes(count * b)
    if init == "file":
        with open(os.path.join(base_dir, rest[0]), "rb") as f:
            data = f.read()
        if len(data) != count * b:
            fail("%s holds %d bytes, the buffer %d" % (rest[0], len(data), count * b))
        return data
    if init == "const":
        if isfloat:
            return pack_values(typ, [to_double(rest[0])]) * count
        return struct.pack("<%s" % INT_FMT[typ], to_int(rest[0]) & mask) * count
    if init == "seq":
        if isfloat:
            lo = to_double(rest[0])
            step = to_double(rest[1]) if len(rest) > 1 else 1.0
            return pack_values(typ, [lo + float(i) * step for i in range(count)])
        lo = to_int(rest[0])
        step = to_int(rest[1]) if len(rest) > 1 else 1
        return struct.pack("<%d%s" % (count, INT_FMT[typ]),
                           *[(lo + i * step) & mask for i in range(count)])
    if init == "random":
        seed = int(rest[3], 0) if len(rest) >= 4 else 1
        if isfloat:
            lo, hi = to_double(rest[0]), to_double(rest[1])
            # lo + (hi - lo) * ((r >> 11) * 2^-53) in doubles, then stored
            if np is not None:
                r = splitmix_np(np, seed, count)
                u = (r >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
                return (lo + (hi - lo) * u).astype({"f32": "<f4", "f64": "<f8", "f16": "<f2"}[typ]).tobytes()
            vals = [lo + (hi - lo) * ((x >> 11) * (1.0 / 9007199254740992.0))
                    for x in splitmix_seq(seed, count)]
            return pack_values(typ, vals)
        # lo + r % span in 64-bit integers (span 0: all of 2^64), exact
        a, z = to_int(rest[0]), to_int(rest[1])
        span = (z - a + 1) & M64
        if np is not None:
            r = splitmix_np(np, seed, count)
            t = (r % np.uint64(span)) if span else r
            with np.errstate(over="ignore"):
                v = t + np.uint64(a & M64)
            return (v & np.uint64(mask)).astype("<u%d" % b).tobytes()
        vals = [((x % span if span else x) + a) & mask for x in splitmix_seq(seed, count)]
        return struct.pack("<%d%s" % (count, INT_FMT[typ]), *vals)
    if init == "chase":
        stride = int(rest[0], 0)
        seed = int(rest[2], 0) if len(rest) >= 3 else 1
        m = count // stride
        nxt = list(range(m))
        r = splitmix_seq(seed, max(m - 1, 0))
        k = 0
        for i in range(m - 1, 0, -1):
            j = r[k] % i
            k += 1
            nxt[i], nxt[j] = nxt[j], nxt[i]
        buf = bytearray(count * b)
        fmt = "<I" if b == 4 else "<Q"
        for i in range(m):
            struct.pack_into(fmt, buf, i * stride * b, (nxt[i] * stride) & ((1 << (8 * b)) - 1))
        return bytes(buf)
    fail("unknown initialiser '%s'" % init)


FILLED = {}      # (type, count, init words) -> bytes of the `random` buffers made so far


def fill_cached(typ, count, words, base_dir):
    """fill(), remembering the random buffers: the seed-size GEMMs share
    hundreds of MB of them."""
    if words[0] != "random":
        return fill(typ, count, words, base_dir)
    key = (typ, count, tuple(words))
    if key not in FILLED:
        FILLED[key] = fill(typ, count, words, base_dir)
    return FILLED[key]


def buffers_python(launch):
    """{name: bytes} of every buffer argument, computed here."""
    lf = parse_launch(launch)
    base = os.path.dirname(os.path.abspath(launch))
    out = {}
    for name, words in lf["args"]:
        if words and words[0] == "buffer":
            out[name] = fill_cached(words[1], int(words[2], 0), words[3:], base)
    for name, words in lf["vars"] + lf["mems"]:
        out[name] = fill_cached(words[0], int(words[1], 0), words[2:], base)
    return out


def buffers_smsim(smsim, launch, tmp):
    """{name: bytes} of every buffer argument, from smsim's launch reader."""
    d = tempfile.mkdtemp(prefix="inputs.", dir=tmp)
    p = subprocess.run([smsim, "emulate", "--launch", launch, "--inputs", d],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("smsim emulate --inputs %s: exit %d: %s" % (launch, p.returncode, p.stderr.strip()))
    out = {}
    lf = parse_launch(launch)
    for name in ([n for n, w in lf["args"] if w and w[0] == "buffer"] +
                 [n for n, _ in lf["vars"] + lf["mems"]]):
        with open(os.path.join(d, name + ".bin"), "rb") as f:
            out[name] = f.read()
    shutil.rmtree(d)
    return out


def check_inputs(smsim, launches, tmp):
    """Compare this script's initialisers with smsim's for every buffer."""
    bad = 0
    for launch in launches:
        mine, theirs = buffers_python(launch), buffers_smsim(smsim, launch, tmp)
        for name in theirs:
            if mine.get(name) != theirs[name]:
                first = next((i for i, (x, y) in enumerate(zip(mine.get(name, b""), theirs[name]))
                              if x != y), min(len(mine.get(name, b"")), len(theirs[name])))
                print("%s: buffer %s differs from smsim's at byte %d" % (launch, name, first))
                bad += 1
            else:
                print("%s: buffer %s: %d bytes identical" % (launch, name, len(theirs[name])))
    return bad


# ---- the GPU (CUDA driver API through ctypes) ---------------------------------------

class Cuda:
    """The few driver calls a launch needs."""

    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            fail("no CUDA driver (libcuda.so.1): %s" % e)
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.dev = dev
        ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "context")
        self.check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        name = ctypes.create_string_buffer(256)
        self.lib.cuDeviceGetName(name, 256, dev)
        self.name = name.value.decode()
        khz = ctypes.c_int()
        self.lib.cuDeviceGetAttribute(ctypes.byref(khz), 13, dev)   # CLOCK_RATE, kHz
        self.clock_hz = khz.value * 1000.0

    def check(self, rc, what):
        if rc != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(s))
            fail("%s: CUDA error %d (%s)" % (what, rc, s.value.decode() if s.value else "?"))

    def alloc(self, data):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(len(data), 1))),
                   "cuMemAlloc")
        if data:
            self.check(self.lib.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "HtoD")
        return p

    def read(self, p, n):
        buf = ctypes.create_string_buffer(n)
        self.check(self.lib.cuMemcpyDtoH_v2(buf, p, ctypes.c_size_t(n)), "DtoH")
        return buf.raw

    def module(self, ptx, kernel):
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), ptx + b"\0"), "JIT of the PTX")
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, kernel.encode()),
                   "kernel %s" % kernel)
        return mod, fn

    def global_of(self, mod, name):
        """The device address and size of module variable name."""
        p, n = ctypes.c_uint64(), ctypes.c_size_t()
        self.check(self.lib.cuModuleGetGlobal_v2(ctypes.byref(p), ctypes.byref(n), mod,
                                                 name.encode()), "variable %s" % name)
        return p, n.value


# cuTensorMapEncodeTiled's enums (cuda.h): data types, swizzle, L2 promotion
TMAP_TYPE = {"u8": 0, "u16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5, "f16": 6, "f32": 7,
             "f64": 8, "bf16": 9, "f32_ftz": 10, "tf32": 11, "tf32_ftz": 12}
TMAP_BYTES = {"u8": 1, "u16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8, "f16": 2, "f32": 4,
              "f64": 8, "bf16": 2, "f32_ftz": 4, "tf32": 4, "tf32_ftz": 4}
TMAP_SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
TMAP_L2 = {"none": 0, "64B": 1, "128B": 2, "256B": 3}


def encode_tmap(cuda, words, ptrs, launch):
    """A CUtensorMap for `arg = NAME tensormap BUFFER TYPE key=value...`
    (doc/launch-format.md), encoded by the driver: (the buffer holding it,
    the address of its 128 bytes, 64-byte aligned as the parameter is)."""
    buf, typ = words[1], words[2]
    kv = dict(w.split("=", 1) for w in words[3:])
    unknown = set(kv) - {"dims", "box", "strides", "elemstrides", "swizzle", "fill",
                         "interleave", "l2promotion", "offset"}
    if buf not in ptrs or typ not in TMAP_TYPE or unknown or "dims" not in kv or "box" not in kv:
        fail("%s: tensormap %s: cannot encode (buffer, type or keys)" % (launch, " ".join(words)))
    dims = [int(x, 0) for x in kv["dims"].split(",")]
    box = [int(x, 0) for x in kv["box"].split(",")]
    rank = len(dims)
    if "strides" in kv:
        strides = [int(x, 0) for x in kv["strides"].split(",")]
    else:
        strides, acc = [], TMAP_BYTES[typ]
        for d in dims[:-1]:
            acc *= d
            strides.append(acc)
    es = [int(x, 0) for x in kv["elemstrides"].split(",")] if "elemstrides" in kv else [1] * rank
    if kv.get("interleave", "none") != "none":
        fail("%s: tensormap interleave: not measured here" % launch)
    u64, u32 = ctypes.c_uint64, ctypes.c_uint32
    tm = (ctypes.c_uint8 * 192)()      # 128 bytes at a 64-byte boundary inside it
    off = (-ctypes.addressof(tm)) % 64
    tmp = ctypes.c_void_p(ctypes.addressof(tm) + off)
    base = ptrs[buf][0].value + int(kv.get("offset", "0"), 0)
    fn = cuda.lib.cuTensorMapEncodeTiled
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int, u32, ctypes.c_void_p, ctypes.POINTER(u64),
                   ctypes.POINTER(u64), ctypes.POINTER(u32), ctypes.POINTER(u32), ctypes.c_int,
                   ctypes.c_int, ctypes.c_int, ctypes.c_int]
    cuda.check(fn(tmp, TMAP_TYPE[typ], rank, ctypes.c_void_p(base), (u64 * rank)(*dims),
                  (u64 * max(rank - 1, 1))(*(strides or [0])), (u32 * rank)(*box),
                  (u32 * rank)(*es), 0, TMAP_SWIZZLE[kv.get("swizzle", "none")],
                  TMAP_L2[kv.get("l2promotion", "none")],
                  1 if kv.get("fill", "zero") == "nan" else 0),
               "cuTensorMapEncodeTiled (%s)" % " ".join(words))
    return tm, tmp


SCALAR = {"u8": ctypes.c_uint8, "s8": ctypes.c_int8, "u16": ctypes.c_uint16,
          "s16": ctypes.c_int16, "u32": ctypes.c_uint32, "s32": ctypes.c_int32,
          "u64": ctypes.c_uint64, "s64": ctypes.c_int64, "f32": ctypes.c_float,
          "f64": ctypes.c_double}


def dims(v):
    d = [int(x) for x in v.split(",")] + [1, 1]
    return d[:3]


def run_launch(cuda, launch, bufs, events):
    """Launch the file's kernel `repeat` times; returns ([ms per launch or
    None], {buffer: bytes after the last launch})."""
    lf = parse_launch(launch)
    f = lf["fields"]
    base = os.path.dirname(os.path.abspath(launch))
    with open(os.path.join(base, f["ptx"]), "rb") as fp:
        mod, fn = cuda.module(fp.read(), f["kernel"])
    for name, _ in lf["vars"]:         # var lines: as cudaMemcpyToSymbol (PTX names only)
        p, n = cuda.global_of(mod, name)
        if n != len(bufs[name]):
            fail("%s: variable %s is %d bytes, the launch file gives %d" %
                 (launch, name, n, len(bufs[name])))
        cuda.check(cuda.lib.cuMemcpyHtoD_v2(p, bufs[name], ctypes.c_size_t(n)), "HtoD")
    smem = int(f.get("smem", "0"))
    if smem > 48 * 1024:
        cuda.check(cuda.lib.cuFuncSetAttribute(fn, 8, smem), "dynamic shared memory")
    args, keep, ptrs = [], [], {}
    for name, words in lf["mems"]:     # device memory that is no argument (tensor maps')
        p = cuda.alloc(bufs[name])
        ptrs[name] = (p, len(bufs[name]))
    for name, words in lf["args"]:
        if words[0] == "tensormap":    # a __grid_constant__ CUtensorMap, by value
            tm, at = encode_tmap(cuda, words, ptrs, launch)
            keep.append(tm)
            args.append(at)
        elif words[0] == "buffer":
            p = cuda.alloc(bufs[name])
            ptrs[name] = (p, len(bufs[name]))
            keep.append(p)
            args.append(ctypes.cast(ctypes.pointer(p), ctypes.c_void_p))
        else:
            typ, val = words[0], words[1]
            c = SCALAR[typ](to_double(val) if typ in ("f32", "f64") else to_int(val))
            keep.append(c)
            args.append(ctypes.cast(ctypes.pointer(c), ctypes.c_void_p))
    params = (ctypes.c_void_p * max(len(args), 1))(*args)
    g, b = dims(f["grid"]), dims(f["block"])
    times = []
    for _ in range(int(f.get("repeat", "1"))):
        e0, e1 = ctypes.c_void_p(), ctypes.c_void_p()
        if events:
            cuda.check(cuda.lib.cuEventCreate(ctypes.byref(e0), 0), "event")
            cuda.check(cuda.lib.cuEventCreate(ctypes.byref(e1), 0), "event")
            cuda.lib.cuEventRecord(e0, None)
        cuda.check(cuda.lib.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], smem, None,
                                           params, None), "cuLaunchKernel")
        if events:
            cuda.lib.cuEventRecord(e1, None)
        cuda.check(cuda.lib.cuCtxSynchronize(), "the kernel")
        if events:
            ms = ctypes.c_float()
            cuda.lib.cuEventElapsedTime(ctypes.byref(ms), e0, e1)
            times.append(ms.value)
    out = {name: cuda.read(p, n) for name, (p, n) in ptrs.items()}
    for p in ptrs.values():
        cuda.lib.cuMemFree_v2(p[0])
    return times, out


# ---- Nsight Compute ---------------------------------------------------------------------

def parse_ncu_csv(text, launch, run):
    """Rows (dicts of COLUMNS) from `ncu --csv --page raw --print-units base`
    output: one per profiled kernel launch, in order."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        fail("ncu printed no CSV (is the kernel profiled?)")
    rd = list(csv.reader(io.StringIO("\n".join(lines))))
    head, body = rd[0], rd[1:]
    if body and body[0] and (body[0][0] == "" or not body[0][0].strip().isdigit()):
        body = body[1:]               # the units row
    col = {m: i for i, m in enumerate(head)}
    rows = []
    for k, r in enumerate(body):
        row = {"launch_file": rel_launch(launch), "launch": str(k), "run": str(run)}
        for c, m in METRICS:
            v = r[col[m]].replace(",", "") if m in col and col[m] < len(r) else "-"
            try:
                x = float(v)
                row[c] = ("%.2f" % x) if "pct" in c or c == "sm_clock_hz" else ("%d" % x)
            except ValueError:
                row[c] = "-"
        rows.append(row)
    return rows


def ncu_rows(ncu, launch, run, args):
    me = [sys.executable, os.path.abspath(__file__), "--child", launch]
    if args.smsim:
        me += ["--smsim", args.smsim]
    cmd = [ncu, "--clock-control", "none", "--cache-control", "all", "--csv", "--page", "raw",
           "--print-units", "base", "--metrics", ",".join(m for _, m in METRICS)] + me
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        fail("%s: ncu ran past %d s" % (launch, args.timeout))
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd[:3]), p.returncode, p.stderr.strip()[-2000:]))
    return parse_ncu_csv(p.stdout, launch, run)


# ---- main ---------------------------------------------------------------------------------

def write_rows(path, rows, columns):
    new = path == "-" or not os.path.exists(path) or os.path.getsize(path) == 0
    text = ("\t".join(columns) + "\n" if new else "") + \
        "".join("\t".join(r.get(c, "-") for c in columns) + "\n" for r in rows)
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "a") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description="measure launch files on a real GPU")
    ap.add_argument("launches", nargs="+")
    ap.add_argument("--smsim", default=shutil.which("smsim") or
                    (os.path.join(ROOT, "build", "smsim")
                     if os.path.exists(os.path.join(ROOT, "build", "smsim")) else None))
    ap.add_argument("--ncu", default=shutil.which("ncu"))
    ap.add_argument("--no-ncu", action="store_true")
    ap.add_argument("--run", type=int, default=1, help="run number for the rows")
    ap.add_argument("--out", default="-")
    ap.add_argument("--clock64", default=None)
    ap.add_argument("--outputs", metavar="DIR", default=None,
                    help="write each output buffer to DIR/LAUNCHNAME_BUFFER.bin")
    ap.add_argument("--timeout", type=int, default=180,
                    help="seconds one launch file may take under ncu")
    ap.add_argument("--check-inputs", action="store_true")
    ap.add_argument("--parse-ncu", metavar="CSV")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="smsim-measure.")
    try:
        if a.check_inputs:
            if not a.smsim:
                print("measure-gpu: --check-inputs needs smsim (--smsim)", file=sys.stderr)
                return 1
            return 2 if check_inputs(a.smsim, a.launches, tmp) else 0
        if a.parse_ncu:
            with open(a.parse_ncu) as f:
                rows = parse_ncu_csv(f.read(), a.launches[0], a.run)
            write_rows(a.out, rows, COLUMNS)
            return 0
        cuda = Cuda()
        failed = 0
        for launch in a.launches:
            if a.child:
                bufs = (buffers_smsim(a.smsim, launch, tmp) if a.smsim else buffers_python(launch))
                run_launch(cuda, launch, bufs, events=False)
                continue
            try:
                measure_one(cuda, launch, a, tmp)
            except PipelineError as e:    # the next file is measured all the same
                print("measure-gpu: %s" % e, file=sys.stderr)
                failed += 1
        if failed:
            print("measure-gpu: %d of %d launch files failed" % (failed, len(a.launches)),
                  file=sys.stderr)
            return 2
    except (PipelineError, OSError) as e:
        print("measure-gpu: %s" % e, file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def measure_one(cuda, launch, a, tmp):
    """Measure one launch file: its rows, outputs and clock64 figure."""
    bufs = (buffers_smsim(a.smsim, launch, tmp) if a.smsim else buffers_python(launch))
    times, out = run_launch(cuda, launch, bufs, events=True)
    if a.ncu and not a.no_ncu:
        rows = ncu_rows(a.ncu, launch, a.run, a)
    else:
        rows = [{"launch_file": rel_launch(launch), "launch": str(k), "run": str(a.run),
                 "cycles": "%d" % round(ms * 1e-3 * cuda.clock_hz),
                 "duration_ns": "%d" % round(ms * 1e6),
                 "sm_clock_hz": "%.0f" % cuda.clock_hz} for k, ms in enumerate(times)]
    write_rows(a.out, rows, COLUMNS)
    lf = parse_launch(launch)
    types = {n: w[1] for n, w in lf["args"] if w[0] == "buffer"}
    if a.outputs:           # the hardware's bytes, to compare with smsim's
        os.makedirs(a.outputs, exist_ok=True)
        stem = os.path.basename(launch)[:-len(".launch")]
        for name, _ in lf["outputs"]:
            if name in out:
                with open(os.path.join(a.outputs, "%s_%s.bin" % (stem, name)), "wb") as fo:
                    fo.write(out[name])
    if a.clock64 and types.get("clk") == "u64" and "clk" in dict(lf["outputs"]):
        clk = struct.unpack("<Q", out["clk"][:8])[0]
        write_rows(a.clock64, [{"launch_file": rel_launch(launch), "clk": "%d" % clk}],
                   ["launch_file", "clk"])
    print("measure-gpu: %s on %s: %d launch(es)" % (launch, cuda.name, len(rows)),
          file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
