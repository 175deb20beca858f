#!/bin/sh
# The modern kernels measured on a real H100 (traces/modern: wmma, cp.async,
# f16x2, a device-function call) emulated in PTX mode: their outputs equal
# the bytes the GPU wrote (validation/measured/h100-sxm5/outputs/*.head.bin,
# the first 256 KB of each output buffer).  wmma_gemm_2048 takes a minute
# to emulate (make correlate runs it); mma_tf32_chain's only output is its
# clock64 reading.  Then the forms of traces/tensor timed on two GPUs.
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-modern.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
meas=$srcdir/validation/measured/h100-sxm5/outputs
# launch file, output buffer, output file (as the launch file names it)
for t in "wmma_gemm_256 c wmma_c.bin" "wmma_gemm_1024 c wmma_c.bin" \
         "cp_async_copy dst cpasync_dst.bin" "h2axpy y h2_y.bin" "call_poly y poly_y.bin"; do
    set -- $t
    out=$("$SMSIM" emulate --quiet --launch "$srcdir/traces/modern/$1.launch" \
          --output-dir "$tmp" 2>&1) || { fail "$1: emulate: $out"; continue; }
    head=$meas/$1__$2.head.bin
    n=$(wc -c <"$head")
    [ "$n" -gt 0 ] || { fail "$1: no measured output $head"; continue; }
    head -c "$n" "$tmp/out/$3" | cmp -s - "$head" ||
        fail "$1: output $2 differs from the H100's in its first $n bytes"
done
# every tensor-core, ldmatrix and cp.async form (traces/tensor; check_kernels
# holds their emulated outputs against C): the same outputs when timed on
# the H100 (lowered to SASS operations, split fragments, async groups) and
# on the A100 (nvcc's PTX order)
for l in "$srcdir"/traces/tensor/*.launch; do
    n=$(basename "$l" .launch)
    rm -rf "$tmp/emu" "$tmp/run"
    "$SMSIM" emulate --quiet --launch "$l" --output-dir "$tmp/emu" >"$tmp/err" 2>&1 ||
        { fail "$n: emulate: $(cat "$tmp/err")"; continue; }
    for c in h100 a100; do
        rm -rf "$tmp/run"
        "$SMSIM" run --config "$c" --quiet --launch "$l" --output-dir "$tmp/run" >"$tmp/err" 2>&1 ||
            { fail "$n on $c: $(cat "$tmp/err")"; continue; }
        diff -r "$tmp/emu" "$tmp/run" >/dev/null || fail "$n on $c: outputs differ from the emulation"
    done
done
if [ $fails -eq 0 ]; then echo "ok: modern kernels give the H100's outputs"; fi
[ $fails -eq 0 ]
