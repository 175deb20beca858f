#!/bin/sh
# The conformance corpus (tests/ptx/conform.cu): the CUDA features users
# write every day, compiled by nvcc 13.0 for sm_75, sm_80 and sm_90.  Each
# launch file in tests/ptx/conform/ runs from each of the three PTX files
# (its ptx line rewritten) under emulate, run --config h100 and run
# --config a100; the timed runs' outputs must be byte-identical to the
# emulation's, except for a launch marked "# test: order-dependent" (float
# atomics across blocks), and tests/ptx/conform_check.py recomputes every
# output of every run (those within a stated tolerance).  What a kernel
# prints goes to <dir>/<kernel>.stdout for the check.
test_name=conform
. "${srcdir:-.}/tests/pyscript.sh"
dir=$(cd "$srcdir/tests/ptx/conform" && pwd)
outs=""
for l in "$dir"/*.launch; do
    n=$(basename "$l" .launch)
    "$SMSIM" emulate --quiet --launch "$l" --inputs "$tmp/in/$n" >"$tmp/err" 2>&1 ||
        fail "$n: inputs: $(cat "$tmp/err")"
done
for t in 75 80 90; do
    for l in "$dir"/*.launch; do
        n=$(basename "$l" .launch)
        sed "s|^ptx *=.*|ptx = $dir/../conform_sm$t.ptx|" "$l" >"$tmp/$n.launch"
        od=0
        grep -q '^# test: order-dependent' "$l" && od=1
        for c in emu h100 a100; do
            o=$tmp/${c}_sm$t
            if [ $c = emu ]; then
                set -- emulate
            else
                set -- run --config $c
            fi
            "$SMSIM" "$@" --quiet --launch "$tmp/$n.launch" --output-dir "$o" >"$o.$n.stdout" \
                2>"$tmp/err" || { fail "$n (sm_$t) on $c: $(cat "$tmp/err")"; continue; }
            mv "$o.$n.stdout" "$o/$n.stdout"
            [ $c = emu ] || [ $od = 1 ] && continue
            for f in "$o"/out/$n*.bin; do
                cmp -s "$f" "$tmp/emu_sm$t/out/$(basename "$f")" ||
                    fail "$n (sm_$t) on $c: $(basename "$f") differs from the emulation"
            done
        done
    done
    outs="$outs $tmp/emu_sm$t $tmp/h100_sm$t $tmp/a100_sm$t"
done
# shellcheck disable=SC2086
"$PYTHON3" "$dir/../conform_check.py" "$tmp/in" $outs >"$tmp/check" 2>&1 ||
    fail "outputs: $(grep -v ' ok ' "$tmp/check")"
if [ $fails -eq 0 ]; then
    echo "ok: $(ls "$dir"/*.launch | wc -l) conformance kernels x 3 targets x 3 runs compute"
fi
[ $fails -eq 0 ]
