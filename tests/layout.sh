#!/bin/sh
# layout.sh - the house rules of HACKING.md, checked on the source tree:
#   cli/ and cudart/ see lib/smsim.h and their own files, nothing else of smsim;
#   sim/ never includes frontend/, lib/ or validation/; frontends include
#   only sim/'s data and utility headers; validation/ only sim/;
#   no two files include each other's headers (no circles between modules);
#   no source file over 1,500 lines; frontend/'s top level holds at most
#   about ten files.
# Prints every violation; exit 1 if any.
: "${srcdir:=.}"
PYTHON3=${PYTHON3:-python3}
if ! command -v "$PYTHON3" >/dev/null 2>&1; then
    echo "SKIP: no python3"; exit 77
fi
exec "$PYTHON3" - "$srcdir" <<'PY'
import os, re, sys
root = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = {}
for d in ("sim", "frontend", "validation", "lib", "cli", "cudart"):
    for dp, _, fs in os.walk(os.path.join(root, d)):
        for f in fs:
            if f.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(dp, f), root)
                with open(os.path.join(dp, f), errors="replace") as fp:
                    text = fp.read()
                files[rel] = (text, inc.findall(text))
bad = []
SIM_FOR_FRONTENDS = {"sim/inst.h", "sim/error.h", "sim/types.h", "sim/afile.h",
                     "sim/kvfile.h", "sim/stats.h", "sim/opclass.def", "sim/ffwd.h"}
for f, (text, incs) in sorted(files.items()):
    room = f.split("/")[0]
    for h in incs:
        top = h.split("/")[0] if "/" in h else room
        if room == "cli" and not (top == "cli" or h == "lib/smsim.h"):
            bad.append("%s includes %s: the CLI sees lib/smsim.h only" % (f, h))
        if room == "cudart" and not (top == "cudart" or h == "lib/smsim.h"):
            bad.append("%s includes %s: the CUDA runtime sees lib/smsim.h only" % (f, h))
        if room == "sim" and top in ("frontend", "lib", "validation", "cli"):
            bad.append("%s includes %s: sim/ never sees %s/" % (f, h, top))
        if room == "frontend" and top == "sim" and h not in SIM_FOR_FRONTENDS:
            bad.append("%s includes %s: frontends see sim/'s data and utility headers only"
                       % (f, h))
        if room == "frontend" and top in ("lib", "validation", "cli"):
            bad.append("%s includes %s" % (f, h))
        if room == "validation" and top not in ("sim", "validation"):
            bad.append("%s includes %s: validation/ sees sim/ only" % (f, h))
    n = text.count("\n")
    if n > 1500:
        bad.append("%s has %d lines (more than 1,500)" % (f, n))
# circles: module A (a.c/a.h) includes B's header and B includes A's
def module(p):
    return os.path.splitext(p)[0]
deps = {}
for f, (_, incs) in files.items():
    m = module(f)
    for h in incs:
        hm = module(h if "/" in h else os.path.join(os.path.dirname(f), h))
        if hm != m:
            deps.setdefault(m, set()).add(hm)
for a in sorted(deps):
    for b in sorted(deps[a]):
        if a < b and a in deps.get(b, ()):
            bad.append("%s and %s include each other" % (a, b))
top = [f for f in os.listdir(os.path.join(root, "frontend"))
       if os.path.isfile(os.path.join(root, "frontend", f))]
if len(top) > 10:
    bad.append("frontend/ holds %d files at its top (at most about ten)" % len(top))
with open(os.path.join(root, "tests", "check_smsim.c")) as fp:
    for h in inc.findall(fp.read()):
        if h != "lib/smsim.h":
            bad.append("tests/check_smsim.c includes %s: it is an embedder (lib/smsim.h only)" % h)
for b in bad:
    print("FAIL: " + b)
print("layout: %d files checked, %d violations" % (len(files), len(bad)))
sys.exit(1 if bad else 0)
PY
