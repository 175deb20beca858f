#!/bin/sh
# The accuracy suite's fast subset: scripts/validate.py --quick (knn of seed
# 001 on its three GPUs, one H100 micro-benchmark per section, ftest on one
# GPU) into a temporary directory.  Checks that the pipeline runs, that every
# generated section and data file is written with numbers in it, that a
# second run gives the same files, and that --strict exits 0 or 1 (never 2).
# It asserts no accuracy: the configs are being calibrated (make validate
# runs the whole suite and reports the acceptance criteria).
test_name=validate
. "${srcdir:-.}/tests/pyscript.sh"

"$PYTHON3" "$srcdir/scripts/validate.py" --quick --out-dir "$tmp/a" "$SMSIM" \
    >"$tmp/a.out" 2>"$tmp/a.err" || { fail "validate.py --quick: exit $?"; cat "$tmp/a.err"; }
grep -q '^Met [0-9]* of [0-9]* acceptance criteria' "$tmp/a.out" || fail "no acceptance line"
doc=$tmp/a/doc/validation.md
for s in summary seed001 seed001-logo measurements h100-ilp h100-latency h100-bandwidth ftest published; do
    sed -n "/generated:$s begin/,/generated:$s end/p" "$doc" >"$tmp/sec"
    [ "$(grep -c '^|' "$tmp/sec")" -ge 3 ] || fail "section $s has no table rows"
done
# every number the quick subset produces, parsed back from the data files
"$PYTHON3" - "$tmp/a/validation" <<'PY' || fail "data files do not parse"
import sys, os
d = sys.argv[1]
def rows(name):
    with open(os.path.join(d, name)) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    head, body = lines[0], lines[1:]
    assert body, name + ": no rows"
    return [dict(zip(head, r)) for r in body]
r = rows("results.tsv")
assert sorted(x["gpu"] for x in r) == ["940mx", "gtx1070", "gtx760"], r
for x in r:
    assert x["kernel"] == "knn" and int(x["simulated"]) > 0 and int(x["manybsp_seed"]) > 0
    assert int(x["manybsp_extracted"]) > 0
    assert x["measured"] == "held-out" or int(x["measured"]) > 0
g = rows("logo.tsv")              # leave one GPU out: one fold per GPU, knn only
assert sorted(x["gpu"] for x in g) == ["940mx", "gtx1070", "gtx760"], g
for x in g:
    eff, hold = x["value"].split("/")          # dram.efficiency / pipe.dpu.holds_issue
    assert x["kernel"] == "knn" and 0 < float(eff) <= 1 and hold in ("off", "on")
    assert int(x["predicted"]) > 0
    assert x["measured"] == "held-out" or int(x["measured"]) > 0
assert [x["calibrated_on"] for x in g if x["gpu"] == "gtx1070"] == ["gtx760,940mx"], g
i = rows("h100-ilp.tsv")
assert i[0]["op"] == "fadd" and i[0]["ilp"] == "1" and 0 < float(i[0]["cycles_per_inst"]) < 1000
assert float(rows("h100-latency.tsv")[0]["cycles"]) > 0
assert float(rows("h100-bandwidth.tsv")[0]["gbps"]) > 0
f = rows("ftest.tsv")
assert f[0]["config"] == "rtx4070" and float(f[0]["us"]) > 0
p = rows("published-results.tsv")  # the quick subset: h100, the shared chase and throughput
assert sorted({x["quantity"] for x in p}) == ["bw_smem", "lat_smem"], p
for x in p:
    assert x["config"] == "h100" and float(x["published"]) > 0 and 0 < float(x["smsim"]) < 1000
for x in rows("acceptance.tsv"):
    assert x["met"] in ("yes", "no", "follows-h100")
PY
# a second run, --strict, no plots: the same data and doc, exit 0 or 1
"$PYTHON3" "$srcdir/scripts/validate.py" --quick --strict --no-plots --out-dir "$tmp/b" \
    "$SMSIM" >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { fail "--strict: exit $rc"; cat "$tmp/b.err"; }
diff -r -x '*.svg' -x '*.png' "$tmp/a" "$tmp/b" >/dev/null || fail "two runs differ"
# --quick without --out-dir writes nothing (the source tree's files stay)
before=$(cksum "$srcdir/doc/validation.md" "$srcdir/validation/results.tsv")
"$PYTHON3" "$srcdir/scripts/validate.py" --quick --no-plots "$SMSIM" >/dev/null 2>&1 ||
    fail "--quick without --out-dir"
[ "$before" = "$(cksum "$srcdir/doc/validation.md" "$srcdir/validation/results.tsv")" ] ||
    fail "--quick without --out-dir changed the source tree"
if [ $fails -eq 0 ]; then echo "ok: validate.py --quick"; fi
[ $fails -eq 0 ]
