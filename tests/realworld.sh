#!/bin/sh
# CUDA kernels of the kinds users bring that the measured set lacks
# (tests/ptx/realworld.cu, nvcc 13.0 sm_90 PTX): each launch file in
# tests/ptx/realworld/ loads, emulates, and gives the same outputs timed on
# the H100 (lowered to SASS operations) and on the A100 (PTX as written);
# tests/ptx/realworld_check.py recomputes every output in Python.  printfs
# prints what CUDA's printf does (printfs.expected) on every path, and
# printfs-assert stops with the GPU's assertion message.
test_name=realworld
. "${srcdir:-.}/tests/pyscript.sh"
dir=$srcdir/tests/ptx/realworld
# printed WHAT: $tmp/stdout must be $dir/$n.expected when that exists
printed() {
    [ ! -e "$dir/$n.expected" ] || cmp -s "$tmp/stdout" "$dir/$n.expected" ||
        fail "$1: printed $(cat "$tmp/stdout")"
}
for l in "$dir"/*.launch; do
    n=$(basename "$l" .launch)
    case $n in *-assert) continue ;; esac
    "$SMSIM" emulate --quiet --launch "$l" --inputs "$tmp/in/$n" >"$tmp/err" 2>&1 ||
        { fail "$n: inputs: $(cat "$tmp/err")"; continue; }
    "$SMSIM" emulate --quiet --launch "$l" --output-dir "$tmp/emu" >"$tmp/stdout" 2>"$tmp/err" ||
        { fail "$n: emulate: $(cat "$tmp/err")"; continue; }
    printed "$n"
    for c in h100 a100; do
        rm -rf "$tmp/run"
        "$SMSIM" run --config "$c" --quiet --launch "$l" --output-dir "$tmp/run" >"$tmp/stdout" \
            2>"$tmp/err" || { fail "$n on $c: $(cat "$tmp/err")"; continue; }
        printed "$n on $c"
        for f in "$tmp"/run/out/*.bin; do
            cmp -s "$f" "$tmp/emu/out/$(basename "$f")" ||
                fail "$n on $c: $(basename "$f") differs from the emulation"
        done
    done
done
for c in h100 a100; do
    "$SMSIM" run --config "$c" --quiet --no-outputs --launch "$dir/printfs-assert.launch" \
        >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "device-side assertion failed: realworld.cu:[0-9]*: .*printfs.*: Assertion \`i < n' failed (block 1, thread 36)" "$tmp/err" ||
        fail "printfs-assert on $c: exit $rc: $(cat "$tmp/err")"
done
"$PYTHON3" "$dir/../realworld_check.py" "$tmp/in" "$tmp/emu/out" >"$tmp/check" 2>&1 ||
    fail "outputs: $(grep -v ' ok ' "$tmp/check")"
if [ $fails -eq 0 ]; then echo "ok: $(ls "$dir"/*.launch | wc -l) real-world kernels load, run and compute"; fi
[ $fails -eq 0 ]
