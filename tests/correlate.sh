#!/bin/sh
# The correlator's fast subset: scripts/correlate.py --quick (one launch file
# per kernel family of validation/measured/h100-sxm5, one of them a modern
# kernel with a device-function call) into a temporary directory.  Checks
# that the pipeline runs (PTX launch files and one real SASS trace), that
# every generated section and data file is written with numbers that parse,
# that every measured launch file runs (the not-run section says so),
# that a second run gives the same files, that --strict exits 0 or 1 (never
# 2), and that a malformed measurement row stops it with file:line (exit 2).
# It asserts no accuracy: `make correlate` reports that.
test_name=correlate
. "${srcdir:-.}/tests/pyscript.sh"
corr="$srcdir/scripts/correlate.py"

"$PYTHON3" "$corr" --quick --out-dir "$tmp/a" "$SMSIM" >"$tmp/a.out" 2>"$tmp/a.err" ||
    { fail "correlate.py --quick: exit $?"; cat "$tmp/a.err"; }
grep -q '^[0-9]* kernel launches of [0-9]* launch files simulated' "$tmp/a.out" ||
    fail "no summary line"
grep -q '^| \*\*all\*\* |' "$tmp/a.out" || fail "no family table"
doc=$tmp/a/doc/correlation.md
for s in summary families kernels clock64 sass; do
    sed -n "/generated:$s begin/,/generated:$s end/p" "$doc" >"$tmp/sec"
    [ "$(grep -c '^|' "$tmp/sec")" -ge 3 ] || fail "section $s has no table rows"
done
sed -n "/generated:notrun begin/,/generated:notrun end/p" "$doc" >"$tmp/sec"
grep -q 'Every measured launch file runs' "$tmp/sec" || fail "a launch file is listed as not run"
"$PYTHON3" - "$tmp/a/validation" <<'PY' || fail "data files do not parse"
import sys, os
d = sys.argv[1]
def rows(name):
    with open(os.path.join(d, name)) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    head, body = lines[0], lines[1:]
    assert body, name + ": no rows"
    return [dict(zip(head, r)) for r in body]
r = rows("correlation.tsv")
assert len(r) == 8, len(r)
assert any(x["launch_file"] == "traces/modern/call_poly.launch" for x in r), r
for x in r:
    assert int(x["cycles"]) > 0 and int(x["smsim_cycles"]) > 0, x
    float(x["error_pct"]); int(x["smsim_warp_insts"]); int(x["smsim_dram_B"])
assert {x["family"] for x in r} >= {"empty kernel", "instruction ILP", "applications"}
c = rows("correlation-clock64.tsv")
assert sorted(x["launch_file"] for x in c) == ["traces/micro/inst_lat_fadd_ilp1.launch",
                                               "traces/micro/latency_smem.launch"], c
for x in c:
    assert int(x["clk"]) > 0 and int(x["smsim_clk"]) > 0 and int(x["divisor"]) > 0
s = rows("correlation-sass.tsv")
assert [x["trace"] for x in s] == ["traces/hopper/probe_empty_g1_b32"], s
for x in s:
    assert x["launch_file"] == "traces/probe/empty_g1_b32.launch", x
    assert int(x["cycles"]) > 0 and int(x["smsim_cycles"]) > 0 and int(x["ptx_cycles"]) > 0, x
    float(x["error_pct"]); float(x["ptx_error_pct"]); int(x["smsim_warp_insts"])
PY
# a second run, --strict, no plots: the same data and doc, exit 0 or 1
"$PYTHON3" "$corr" --quick --strict --no-plots --out-dir "$tmp/b" "$SMSIM" \
    >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { fail "--strict: exit $rc"; cat "$tmp/b.err"; }
diff -r -x '*.svg' -x '*.png' "$tmp/a" "$tmp/b" >/dev/null || fail "two runs differ"
# a malformed measurement: exit 2 naming the file and line
mkdir -p "$tmp/m"
head -3 "$srcdir/validation/measured/h100-sxm5/ncu.tsv" >"$tmp/m/ncu.tsv"
printf 'traces/knn.launch\t0\t1\n' >>"$tmp/m/ncu.tsv"
"$PYTHON3" "$corr" --quick --measured "$tmp/m" "$SMSIM" >/dev/null 2>"$tmp/m.err"
rc=$?
[ $rc -eq 2 ] || fail "malformed ncu.tsv: exit $rc, expected 2"
grep -q 'ncu.tsv:4: expected 21 tab-separated columns' "$tmp/m.err" ||
    { fail "malformed ncu.tsv: message"; cat "$tmp/m.err"; }
# --quick without --out-dir writes nothing
before=$(cksum "$srcdir/doc/correlation.md")
"$PYTHON3" "$corr" --quick --no-plots "$SMSIM" >/dev/null 2>&1 || fail "--quick without --out-dir"
[ "$before" = "$(cksum "$srcdir/doc/correlation.md")" ] ||
    fail "--quick without --out-dir changed the source tree"
if [ $fails -eq 0 ]; then echo "ok: correlate.py --quick"; fi
[ $fails -eq 0 ]
