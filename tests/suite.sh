#!/bin/sh
# The kernel suite on the timing model: every launch file under traces/
# (and traces/micro/) runs on h100 and on the three GPUs of seed 001 with
# exit 0.  For the kernels of traces/*.launch, whose results do not depend
# on timing, the outputs of each timed run must be byte-identical to those
# of the functional emulation (check_kernels compares those with C
# references), so the execution-driven path computes the same results in
# whatever order the model interleaves the warps.  A launch file with a
# "# test: order-dependent" line (float atomics across blocks) is exempt.
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
SMSIM_CONFIG_DIR=${SMSIM_CONFIG_DIR:-$srcdir/configs}
export SMSIM_CONFIG_DIR
configs=${SUITE_CONFIGS:-"h100 gtx760 940mx gtx1070"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-suite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0
for launch in "$srcdir"/traces/*.launch "$srcdir"/traces/micro/*.launch; do
    [ -e "$launch" ] || continue
    name=$(basename "$launch" .launch)
    case "$launch" in */micro/*) compare=0 ;; *) compare=1 ;; esac
    grep -q '^# test: order-dependent' "$launch" && compare=0
    if [ $compare -eq 1 ] &&
        ! "$SMSIM" emulate --launch "$launch" --quiet --output-dir "$tmp/emu" 2>"$tmp/err"; then
        echo "FAIL $name: emulate:"; cat "$tmp/err"; fails=$((fails + 1)); continue
    fi
    for c in $configs; do
        n=$((n + 1))
        rm -rf "$tmp/run"
        if ! "$SMSIM" run --config "$c" --launch "$launch" --quiet --output-dir "$tmp/run" \
            2>"$tmp/err"; then
            echo "FAIL $name on $c:"; cat "$tmp/err"; fails=$((fails + 1)); continue
        fi
        if [ $compare -eq 1 ] && [ -d "$tmp/emu" ] && ! diff -r "$tmp/emu" "$tmp/run" >/dev/null; then
            echo "FAIL $name on $c: outputs differ from the functional emulation"
            fails=$((fails + 1)); continue
        fi
        echo "ok $name on $c"
    done
    rm -rf "$tmp/emu"
done
echo "$n runs, $fails failed"
[ "$fails" -eq 0 ]
