#!/bin/bash
# One device call (about 5 minutes): the GEMM launch files of this folder on
# a real H100, written to $OUT (README.md, "Measured"):
#   gemm-full.tsv   the seed-size launches, CUDA events (no ncu: the seed's
#                   own method), each file twice in a row (the first warms)
#   gemm-ncu.tsv    the slabs the table simulates and traces/gemm/*_256,
#                   under ncu --clock-control none --cache-control all
#   gemm-outputs.tgz  C of the *_256 launches as the GPU wrote it
#   gemm-sass.tgz   cuobjdump -sass of the three PTX files (ptxas sm_90a)
#   device.txt, measure.log
cd "$(dirname "$0")/../../.." || exit 2
: "${OUT:?OUT must name the output folder}"
export PYTHONUNBUFFERED=1
M=scripts/measure-gpu.py; D=traces/gemm/seed
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv > $OUT/device.txt 2>&1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" >> $OUT/device.txt; $NCU --version >> $OUT/device.txt 2>&1; nvcc --version | tail -2 >> $OUT/device.txt
mkdir -p /tmp/sass
for p in traces/gemm/*.ptx; do
    b=$(basename "$p" .ptx)
    ptxas -arch=sm_90a "$p" -o /tmp/$b.cubin && cuobjdump -sass /tmp/$b.cubin > /tmp/sass/$b.sass 2>&1
done
(cd /tmp/sass && tar czf $OUT/gemm-sass.tgz *.sass)
full=$(ls $D/*_full.launch)
timeout 150 python3 $M --no-ncu --out $OUT/gemm-full.tsv $full $full >> $OUT/measure.log 2>&1
echo "full rc=$?" >> $OUT/measure.log
timeout 300 python3 $M --ncu "$NCU" --timeout 60 --out $OUT/gemm-ncu.tsv --outputs /tmp/gout \
    traces/gemm/*_256.launch $D/*_slab1.launch $D/*_slab2.launch >> $OUT/measure.log 2>&1
echo "ncu rc=$?" >> $OUT/measure.log
(cd /tmp/gout && tar czf $OUT/gemm-outputs.tgz *_C.bin)
tail -3 $OUT/measure.log; wc -l $OUT/*.tsv
