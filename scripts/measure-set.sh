#!/bin/bash
# One device call for a folder of launch files (traces/mech, traces/sm90):
#   scripts/measure-set.sh DIR ARCH [RUNS]
# measures DIR/*.launch with Nsight Compute through scripts/measure-gpu.py
# (RUNS sittings, default 1: rows run 1 .. RUNS), keeps the hardware's output
# buffers (sha256 of all, the small ones whole) and cuobjdump -sass of every
# DIR/*.ptx compiled by ptxas for ARCH (sm_90, sm_90a).  Writes to $OUT:
# device.txt, NAME.sass, NAME-ncu.tsv, measure.log, gpu-outputs*.sha256,
# gpu-outputs-small.tgz (NAME = the folder's name).  LAUNCHES overrides the
# set; MEAS_S caps each sitting (seconds, default 300).
cd "$(dirname "$0")/.." || exit 2
dir=${1:?usage: measure-set.sh DIR ARCH [RUNS]}; arch=${2:?usage: measure-set.sh DIR ARCH [RUNS]}
runs=${3:-1}; name=$(basename "$dir"); : "${OUT:?OUT must name the output folder}"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv > $OUT/device.txt 2>&1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" >> $OUT/device.txt; $NCU --version >> $OUT/device.txt 2>&1; nvcc --version | tail -2 >> $OUT/device.txt
for p in "$dir"/*.ptx; do
    b=$(basename "$p" .ptx)
    ptxas -arch="$arch" "$p" -o /tmp/$b.cubin && cuobjdump -sass /tmp/$b.cubin > $OUT/$b.sass 2>&1
done
for run in $(seq 1 "$runs"); do
    timeout ${MEAS_S:-300} python3 scripts/measure-gpu.py --ncu "$NCU" --run $run --out $OUT/$name-ncu.tsv \
        --outputs /tmp/gout$run ${LAUNCHES:-$dir/*.launch} >> $OUT/measure.log 2>&1
    echo "measure run $run rc=$?" >> $OUT/measure.log
    (cd /tmp/gout$run && sha256sum *.bin > $OUT/gpu-outputs$run.sha256)
done
(cd /tmp/gout1 && find . -name '*.bin' -size -5M | tar czf $OUT/gpu-outputs-small.tgz -T -)
tail -5 $OUT/measure.log; wc -l $OUT/$name-ncu.tsv
