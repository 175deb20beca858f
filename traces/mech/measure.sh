#!/bin/bash
# One device call: measure traces/mech/*.launch with Nsight Compute, keep the
# hardware's outputs (hashes, small ones whole) and ptxas/cuobjdump SASS.
cd "$(dirname "$0")/../.." || exit 2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv > $OUT/device.txt 2>&1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" >> $OUT/device.txt; $NCU --version >> $OUT/device.txt 2>&1; nvcc --version | tail -2 >> $OUT/device.txt
ptxas -arch=sm_90 traces/mech/mech.ptx -o /tmp/mech.cubin && cuobjdump -sass /tmp/mech.cubin > $OUT/mech.sass 2>&1
timeout ${MEAS_S:-420} python3 scripts/measure-gpu.py --ncu "$NCU" --run ${RUN:-1} --out $OUT/mech-ncu.tsv \
    --outputs /tmp/gout ${LAUNCHES:-traces/mech/*.launch} > $OUT/measure.log 2>&1
echo "measure rc=$?" >> $OUT/measure.log
(cd /tmp/gout && sha256sum *.bin > $OUT/gpu-outputs.sha256 && \
  find . -name '*.bin' -size -5M | tar czf $OUT/gpu-outputs-small.tgz -T -)
tail -5 $OUT/measure.log; wc -l $OUT/mech-ncu.tsv
