#!/bin/sh
# The tensor cores' arithmetic against a real H100's bytes: each launch of
# traces/tensor/bits (mma.sync over K = 256 of random data, one rounding
# rule per form) is emulated and timed on the h100 config; both must write
# the C the GPU wrote (validation/measured/h100-sxm5/outputs/mma_bits.sha256).
test_name=tensor-bits
. "${srcdir:-.}/tests/pyscript.sh"
gpu="$srcdir/validation/measured/h100-sxm5/outputs/mma_bits.sha256"
for lf in "$srcdir"/traces/tensor/bits/*.launch; do
    gpu_bytes "$lf" "$gpu"
done
[ "$fails" -eq 0 ] && echo "tensor-bits: ok" && exit 0
exit 1
