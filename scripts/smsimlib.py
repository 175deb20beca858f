"""Helpers shared by smsim's report scripts (validate.py, correlate.py,
measure-gpu.py): formatting, atomic writes, Markdown/TSV tables, launch-file
reading, the generated sections of a doc page, gnuplot, and running smsim.

Nothing here decides what a report contains; each script builds its own
tables from these pieces.
"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TYPE_BYTES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "u32": 4, "s32": 4, "f32": 4,
              "u64": 8, "s64": 8, "f64": 8}


class PipelineError(Exception):
    """A run or an input failed: the report cannot be made."""


class RunFailed(PipelineError):
    """smsim rejected an input (exit 2): the message is its first line."""


# ---- small helpers --------------------------------------------------------------

def rel(path):
    return os.path.relpath(path, ROOT)


def pct(pred, ref):
    return (pred - ref) / ref * 100.0


def fpct(v):
    if v is None:
        return "—"
    return "%+.1f" % (round(v, 1) + 0.0)     # never "-0.0"


def fnum(v, fmt="%.2f"):
    return "—" if v is None else fmt % v


def fgbps(v):
    return "%.0f" % v if v >= 100 else "%.1f" % v if v >= 1 else "%.3f" % v


def fint(v):
    return "—" if v is None else "%d" % round(v)


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def write_atomic(path, data):
    """Write text or bytes to path through a temporary file and a rename."""
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def md_table(header, aligns, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if a == "r" else "---" for a in aligns) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


def tsv(comment, header, rows):
    lines = ["# " + c for c in comment] + ["\t".join(header)]
    lines += ["\t".join(r) for r in rows]
    return "\n".join(lines) + "\n"


def read_tsv(path):
    """Rows of a tab-separated file with a header line (# comments and blank
    lines skipped) as dicts, each with '_line' = its line number.  A row with
    another number of columns than the header is an error naming file:line."""
    rows, head = [], None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if head is None:
                head = cols
                continue
            if len(cols) != len(head):
                raise PipelineError("%s:%d: expected %d tab-separated columns, got %d"
                                    % (rel(path), lineno, len(head), len(cols)))
            r = dict(zip(head, cols))
            r["_line"] = lineno
            rows.append(r)
    if head is None:
        raise PipelineError("%s: no header line" % rel(path))
    return head, rows


# ---- launch files ---------------------------------------------------------------

def parse_launch(path):
    """The fields of a launch file: key -> value, args (name, words), vars
    (name, words: TYPE COUNT INIT...), mems (name, words: TYPE COUNT
    INIT...: device memory that is no argument), outputs."""
    fields, args, outputs, variables, mems = {}, [], [], [], []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if "=" not in line:
                continue
            key, val = (s.strip() for s in line.split("=", 1))
            if key == "arg":
                words = val.split()
                args.append((words[0], words[1:]))
            elif key == "var":
                words = val.split()
                variables.append((words[0], words[1:]))
            elif key == "mem":
                words = val.split()
                mems.append((words[0], words[1:]))
            elif key == "output":
                name, p = val.split(None, 1)
                outputs.append((name, p.strip()))
            else:
                fields[key] = val
    return {"fields": fields, "args": args, "vars": variables, "mems": mems, "outputs": outputs}


def launch_dims(val):
    n = 1
    for x in val.split(","):
        n *= int(x)
    return n


# ---- generated sections of a doc page ----------------------------------------------

MARK = re.compile(r"<!-- generated:([a-z0-9-]+) begin[^>]*-->\n.*?<!-- generated:\1 end -->",
                  re.S)


def splice(doc, sections, path, script):
    """Replace the text between <!-- generated:NAME begin --> and
    <!-- generated:NAME end --> with sections[NAME]; every section must
    have its markers."""
    found = set()

    def repl(m):
        name = m.group(1)
        found.add(name)
        if name not in sections:
            return m.group(0)
        return ("<!-- generated:%s begin (%s; do not edit) -->\n%s\n"
                "<!-- generated:%s end -->" % (name, script, sections[name], name))
    out = MARK.sub(repl, doc)
    missing = sorted(set(sections) - found)
    if missing:
        raise PipelineError("%s lacks the markers of %s (<!-- generated:NAME begin --> ... "
                            "<!-- generated:NAME end -->)" % (path, ", ".join(missing)))
    return out


# ---- plots -------------------------------------------------------------------------

GP_HEAD = "set terminal svg size 760,560 dynamic font 'sans,11' background 'white'\n"
GP_PNG = "set terminal pngcairo size 760,560 font 'sans,10' background 'white'\n"


def gnuplot_path():
    """The gnuplot to use ($SMSIM_GNUPLOT, else 'gnuplot'), or None."""
    g = os.environ.get("SMSIM_GNUPLOT") or "gnuplot"
    return g if shutil.which(g) is not None else None


def gnuplot_draw(gnuplot, tmp, outbase, dat, lines, settings, plots):
    """Write the data lines to dat, then draw settings + plots to outbase.svg
    and outbase.png, each through a rename."""
    with open(dat, "w") as f:
        f.write("\n".join(lines) + "\n")
    script = settings + "plot " + ", \\\n     ".join(plots) + "\n"
    for term, ext in ((GP_HEAD, "svg"), (GP_PNG, "png")):
        target = "%s.%s" % (outbase, ext)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".plot.", suffix="." + ext,
                                    dir=os.path.dirname(target))
        os.close(fd)
        gp = term + "set output '%s'\n" % part + script + "unset output\n"
        p = subprocess.run([gnuplot], input=gp, text=True, capture_output=True, cwd=tmp)
        if p.returncode != 0:
            os.remove(part)
            raise PipelineError("gnuplot failed on %s: %s" % (target, p.stderr.strip()))
        os.chmod(part, 0o644)
        os.replace(part, target)


# ---- running smsim --------------------------------------------------------------

class Runner:
    """Runs smsim with this tree's configs (and validation data), counting
    the runs; safe to call from several threads."""

    def __init__(self, smsim, tmp):
        self.smsim = smsim
        self.tmp = tmp
        self.env = dict(os.environ, SMSIM_VALIDATION_DIR=os.path.join(ROOT, "validation"))
        self.env.setdefault("SMSIM_CONFIG_DIR", os.path.join(ROOT, "configs"))
        self.count = 0
        self.lock = threading.Lock()

    def call(self, args, ok=(0,)):
        with self.lock:
            self.count += 1
        p = subprocess.run([self.smsim] + args, capture_output=True, text=True, env=self.env)
        if p.returncode not in ok:
            msg = "smsim %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip())
            if p.returncode == 2:
                raise RunFailed(msg)
            raise PipelineError(msg)
        return p.stdout

    def simulate(self, tag, source, config, sets, after=None):
        """`smsim run --stats-json` in a fresh work directory; source(work)
        gives the input's arguments (they may name paths inside it).
        Returns (the statistics JSON, after(work)): after reads anything
        else the run wrote before the directory is removed."""
        work = tempfile.mkdtemp(prefix=tag + ".", dir=self.tmp)
        stats = os.path.join(work, "stats.json")
        args = ["run", "--config", config] + source(work) + ["--quiet", "--stats-json", stats]
        for s in sets:
            args += ["--set", s]
        try:
            self.call(args)
            with open(stats) as f:
                d = json.load(f)
            extra = after(work) if after else None
        finally:
            shutil.rmtree(work)
        return d, extra

    def run_trace(self, trace, config, sets=()):
        """Simulate a SASS trace (an Accel-Sim directory or file); statistics
        per kernel, as run() gives them (no outputs)."""
        d, _ = self.simulate(os.path.basename(trace.rstrip("/")), lambda w: ["--trace", trace],
                             config, sets)
        return {"kernels": [{"cycles": k["cycles"], "warp_insts": k["warp_insts"],
                             "stats": k["stats"]} for k in d["kernels"]]}

    def run(self, launch, config, sets=()):
        """Simulate a launch file; statistics per kernel and the first u64 of
        every u64 output buffer (the clock buffers).  sets: extra
        `--set KEY=VALUE` overrides."""
        tag = "%s-%s" % (os.path.basename(launch)[:-7], config)

        def outdir(work):
            return os.path.join(work, "o", "o")     # room for the files' "../out/"

        def read_u64(work):
            lf = parse_launch(launch)
            u64 = {}
            types = {n: w[1] for n, w in lf["args"] if w and w[0] == "buffer"}
            for name, p in lf["outputs"]:
                if types.get(name) == "u64":
                    with open(os.path.normpath(os.path.join(outdir(work), p)), "rb") as f:
                        u64[name] = struct.unpack("<Q", f.read(8))[0]
            return u64

        d, u64 = self.simulate(tag, lambda w: ["--launch", launch, "--output-dir", outdir(w)],
                               config, sets, read_u64)
        c = d["config"]
        kernels = []
        for k in d["kernels"]:
            s = k["stats"]
            kernels.append({
                "cycles": k["cycles"], "warp_insts": k["warp_insts"],
                "thread_insts": s.get("sm.thread_insts", 0),
                "global_loads": s.get("sm.mem.global_loads", 0),
                "l1_hit_rate": s.get("sm.l1.hit_rate", 0.0),
                "dram_bytes": s.get("dram.read_bytes", 0) + s.get("dram.write_bytes", 0),
                "cpi": k["cpi_stack"],
                "stats": s,
            })
        return {"cycles": d["cycles"], "clock_mhz": float(c["gpu.clock_mhz"]),
                "sm_count": int(c["sm.count"]), "gpu_name": c["gpu.name"],
                "launch_latency": int(c.get("gpu.kernel_launch_latency", 0)),
                "kernels": kernels, "u64": u64}
