#!/bin/sh
# The Hopper GEMMs of traces/gemm at 256 x 256 x 256: emulated and timed
# on the H100 config, they write the same bytes, and C agrees with the
# TF32 reference (scripts/gemm-check.py; the naive kernel: FP32), and C is
# byte for byte what a real H100 wrote for the same launch file
# (validation/measured/h100-sxm5/outputs/gemm.sha256).
test_name=gemm
. "${srcdir:-.}/tests/pyscript.sh"
gpu="$srcdir/validation/measured/h100-sxm5/outputs/gemm.sha256"
for lf in "$srcdir"/traces/gemm/*_256.launch; do
    n=$(basename "$lf" .launch)
    # FP32 FMAs, and TF32 tensor-core steps as the H100 rounds them (ptx_mma.h)
    gpu_bytes "$lf" "$gpu" || continue
    fp=; case $n in gemm_naive*) fp=--fp32;; esac    # FP32 FMAs, not TF32
    case $n in gemm_naive_kn*) fp="$fp --b-kn";; esac   # B stored K x N
    "$PYTHON3" "$srcdir/scripts/gemm-check.py" "$tmp/e/out/${n}_A.bin" "$tmp/e/out/${n}_B.bin" \
        "$tmp/e/out/${n}_C.bin" 256 256 256 --samples 2048 $fp >"$tmp/chk" 2>&1 ||
        fail "$n: $(cat "$tmp/chk")"
done
[ "$fails" -eq 0 ] && echo "gemm: ok" && exit 0
exit 1
