#!/bin/sh
# Accel-Sim traces recorded on a real H100 by Accel-Sim's own tracer
# (traces/hopper; tracer version 5, NVBit 1.7.7.1): the small ones run, and
# Accel-Sim text -> .smt -> Accel-Sim text -> .smt gives the same records
# (trace dump of both .smt files identical).  Their statistics are golden
# files (tests/golden/cases, hopper-*); this script runs in the sanitizer
# pass too.  make correlate runs all twelve.
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# name and the warp instructions Nsight Compute counted for its launch
# (mma_tf32_chain_1w: HMMA.1688.F32.TF32, whose fragments of 4, 2 and 4
# registers must read back the same)
for t in "probe_empty_g1_b32 2" "traces_micro_inst_lat_fma_ilp4 1828" "traces_knn 48209" \
         "traces_ftest 102405" "modern_mma_tf32_chain_1w 16419"; do
    set -- $t
    d="$srcdir/traces/hopper/$1"
    out=$("$SMSIM" run --config h100 --trace "$d" 2>&1) || { fail "$1: run: $out"; continue; }
    echo "$out" | grep -q "total: 1 kernel(s), .* $2 warp instructions" ||
        fail "$1: expected $2 warp instructions: $(echo "$out" | tail -1)"
    "$SMSIM" trace convert "$d" -o "$tmp/$1.a.smt" >/dev/null 2>"$tmp/err" ||
        { fail "$1: convert: $(cat "$tmp/err")"; continue; }
    "$SMSIM" trace export --format accelsim "$tmp/$1.a.smt" -o "$tmp/$1.b" >/dev/null 2>"$tmp/err" ||
        { fail "$1: export: $(cat "$tmp/err")"; continue; }
    "$SMSIM" trace convert "$tmp/$1.b" -o "$tmp/$1.c.smt" >/dev/null 2>"$tmp/err" ||
        { fail "$1: re-import: $(cat "$tmp/err")"; continue; }
    "$SMSIM" trace dump "$tmp/$1.a.smt" >"$tmp/$1.a.txt"
    "$SMSIM" trace dump "$tmp/$1.c.smt" >"$tmp/$1.c.txt"
    [ "$(wc -l <"$tmp/$1.a.txt")" -eq "$2" ] || fail "$1: the dump has not $2 records"
    cmp -s "$tmp/$1.a.txt" "$tmp/$1.c.txt" || fail "$1: records differ after export and re-import"
done
if [ $fails -eq 0 ]; then echo "ok: real H100 traces run and round-trip"; fi
[ $fails -eq 0 ]
