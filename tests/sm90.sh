#!/bin/sh
# Hopper's mbarrier and bulk copies (traces/sm90, measured on an H100):
# emulated and timed on the H100 and A100 configs, each kernel writes the
# very bytes the GPU wrote (validation/measured/h100-sxm5/outputs/
# sm90.sha256); `smsim trace record` writes them to .smt (1.7: sync and
# bulk records) with the same bytes, and the recorded trace replays within
# 3 % of the PTX run's cycles; a clustered kernel is refused.  Emulating
# mbar_ring (every warp waits on the others) takes milliseconds: a try_wait
# whose phase is incomplete is not executed and the other warps get their
# turn (sim/inst.h SIM_SYNC_BLOCKED).
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
# recorded as the model issues them on the H100 (the SASS operations) and
# replayed: the same waits on the same signals, so about the same cycles
# (the PTX run also issues the try_wait loops' failed rounds)
cyc() { awk '$1 == "cycles" { print $2 }' "$1"; }
for n in bulk_copy_g1_c16k bulk_pipe_g1_s4_c16k mbar_ring_b128; do
    want=$(grep " $n""_out.bin\$" "$sums" | cut -c1-64)
    rm -rf "$tmp/o"
    "$SMSIM" trace record --config h100 --launch "$srcdir/traces/sm90/$n.launch" \
        -o "$tmp/$n.smt" --output-dir "$tmp/o" >"$tmp/err" 2>&1 ||
        { fail "record $n: $(cat "$tmp/err")"; continue; }
    got=$(sha256sum "$tmp/o/out/sm90_${n}_out.bin" | cut -c1-64)
    [ "$got" = "$want" ] || fail "record $n: output differs from the H100's"
    "$SMSIM" trace dump "$tmp/$n.smt" | grep -q " wait=obj" || fail "record $n: no waits in the dump"
    "$SMSIM" run --config h100 --trace "$tmp/$n.smt" >"$tmp/a" 2>&1 ||
        { fail "replay $n: $(cat "$tmp/a")"; continue; }
    "$SMSIM" run --config h100 --launch "$srcdir/traces/sm90/$n.launch" --no-outputs \
        >"$tmp/b" 2>&1 || { fail "run $n: $(cat "$tmp/b")"; continue; }
    a=$(cyc "$tmp/a") b=$(cyc "$tmp/b")
    [ -n "$a" ] && [ -n "$b" ] && [ $((a * 100)) -ge $((b * 97)) ] && [ $((a * 100)) -le $((b * 103)) ] ||
        fail "replay $n: $a cycles against the PTX run's $b"
done
# a clustered kernel (distributed shared memory, remote signals) cannot be recorded
cat >"$tmp/cl.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry cl(.param .u64 p) .reqnctapercluster 2, 1, 1
{
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
PTX
printf 'ptx = cl.ptx\nkernel = cl\ngrid = 2\nblock = 32\narg = p buffer u32 1 zeros\n' >"$tmp/cl.launch"
"$SMSIM" run --config h100 --launch "$tmp/cl.launch" --no-outputs >"$tmp/err" 2>&1 ||
    fail "cluster kernel: $(cat "$tmp/err")"
"$SMSIM" trace record --launch "$tmp/cl.launch" -o "$tmp/cl.smt" >"$tmp/err" 2>&1 &&
    fail "record of a clustered kernel succeeded"
grep -q unsupported "$tmp/err" || fail "record: no 'unsupported' message: $(cat "$tmp/err")"
[ -e "$tmp/cl.smt" ] && fail "record of a clustered kernel left a file"
[ "$fails" -eq 0 ] && echo "sm90: ok" && exit 0
exit 1
