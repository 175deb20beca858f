#!/bin/sh
# Hopper's mbarrier and bulk copies (traces/sm90, measured on an H100):
# emulated and timed on the H100 and A100 configs, each kernel writes the
# very bytes the GPU wrote (validation/measured/h100-sxm5/outputs/
# sm90.sha256), and `smsim trace record` refuses what .smt cannot hold
# yet.  Emulating mbar_ring (every warp waits on the others) takes
# milliseconds: a wait that finds its phase incomplete gives the other
# warps their turn (sim/inst.h SIM_SYNC_WAITING).
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-sm90.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sums=$srcdir/validation/measured/h100-sxm5/outputs/sm90.sha256
for n in bulk_copy_g1_c16k bulk_pipe_g1_s4_c16k mbar_ring_b128 load_stream_c1k_s16; do
    want=$(grep " $n""_out.bin\$" "$sums" | cut -c1-64)
    [ -n "$want" ] || { fail "$n: no measured hash in $sums"; continue; }
    for mode in emulate "run --config h100" "run --config a100"; do
        rm -rf "$tmp/o"
        $SMSIM $mode --quiet --launch "$srcdir/traces/sm90/$n.launch" --output-dir "$tmp/o" \
            >"$tmp/err" 2>&1 || { fail "$n ($mode): $(cat "$tmp/err")"; continue; }
        got=$(sha256sum "$tmp/o/out/sm90_${n}_out.bin" | cut -c1-64)
        [ "$got" = "$want" ] || fail "$n ($mode): output differs from the H100's"
    done
done
# the model's cycles: the bulk copies and the waits on them take time
c=$("$SMSIM" run --config h100 --launch "$srcdir/traces/sm90/bulk_copy_g1_c16k.launch" \
    --output-dir "$tmp/o" 2>&1 | awk '$1 == "cycles" { print $2 }')
[ -n "$c" ] && [ "$c" -gt 20000 ] || fail "bulk_copy_g1_c16k: $c cycles (64 dependent 16 KB copies)"
"$SMSIM" trace record --launch "$srcdir/traces/sm90/bulk_copy_g1_c16k.launch" -o "$tmp/x.smt" \
    >"$tmp/err" 2>&1 && fail "record of bulk copies succeeded"
grep -q unsupported "$tmp/err" || fail "record: no 'unsupported' message: $(cat "$tmp/err")"
[ "$fails" -eq 0 ] && echo "sm90: ok" && exit 0
exit 1
