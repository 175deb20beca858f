#!/bin/sh
# bench.sh - smsim's performance benchmark (make bench; not part of make check).
#
#   bench/bench.sh SMSIM [OUT.csv]
#
# For a fixed set of workloads it measures the wall time of `smsim run`, the
# warp instructions and simulated cycles per second, the peak RSS, and for
# .smt inputs the frontend's decode-only rate (`smsim trace verify`, which
# decompresses and decodes every record without the timing model).  Each
# figure is the best of $BENCH_REPEAT runs (default 3).  Prints a table and
# writes OUT.csv (default bench/results.csv) with the machine, the commit and
# the config of every row.  Inputs are generated into $BENCH_DIR (default a
# temporary directory) with ../shared/tools/gen_accelsim_trace.py when it is
# there ($GEN_TRACE overrides), else with `smsim trace record --synth saxpy`.
# BENCH_QUICK=1 runs only the 1x SAXPY rows.
set -eu
SMSIM=${1:?usage: bench.sh SMSIM [OUT.csv]}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${2:-$root/bench/results.csv}
repeat=${BENCH_REPEAT:-3}
export SMSIM_CONFIG_DIR=${SMSIM_CONFIG_DIR:-$root/configs}
gen=${GEN_TRACE:-$root/../shared/tools/gen_accelsim_trace.py}
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/smsim-bench.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench.sh: needs GNU time (/usr/bin/time, Debian package 'time')" >&2; exit 2; }

machine="$(uname -m) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# saxpy ITERS [keep-text]: the SAXPY trace (640 blocks x 256 threads) as
# .smt, and as Accel-Sim text if keep-text (the 100x text is 3.5 GB)
saxpy() {
    d="$work/saxpy-$1"
    [ -f "$d.smt" ] && return 0
    if [ -f "$gen" ] && command -v python3 >/dev/null 2>&1; then
        python3 "$gen" --blocks 640 --threads 256 --iters "$1" "$d" >/dev/null
        "$SMSIM" trace convert "$d" -o "$d.smt" >/dev/null
        [ "${2:-}" = keep-text ] || rm -rf "$d"
    else
        "$SMSIM" trace record --synth "saxpy:blocks=640,threads=256,iters=$1" -o "$d.smt" >/dev/null
    fi
}

# measure NAME CONFIG KIND ARG: best-of-$repeat wall time and peak RSS of a
# timed run, its statistics, and the decode-only rate for .smt inputs.
printf '%-24s %-7s %12s %12s %8s %8s %10s %10s %10s %8s\n' workload config warp_insts cycles \
    wall_s rss_mb Mwi_per_s Mcyc_per_s decode_Mwi sim/dec >&2
tmp_csv="$out.tmp.$$"
echo "workload,config,kind,threads,warp_insts,cycles,wall_s,peak_rss_kb,warp_insts_per_s,cycles_per_s,decode_warp_insts_per_s,machine,commit" >"$tmp_csv"
# now: wall-clock seconds with nanoseconds (GNU time's %e has 10 ms steps,
# too coarse for the 1x decode-only run of ~40 ms)
now() { date +%s.%N; }
# measure NAME CONFIG KIND ARG [THREADS [EXTRA]]: THREADS is smsim run -j
# (default 1); EXTRA more options (--sample: the warp instructions counted
# are the kernel's, skipped ones included, so the rate is the effective one)
measure() {
    name=$1; cfg=$2; kind=$3; arg=$4; jobs=${5:-1}; extra=${6:-}
    best=""; rss=0
    i=0
    while [ "$i" -lt "$repeat" ]; do
        t0=$(now)
        # shellcheck disable=SC2086
        $TIME -f "%M" -o "$work/time" "$SMSIM" run --config "$cfg" "--$kind" "$arg" --quiet \
            -j "$jobs" --no-outputs --stats-json "$work/stats.json" $extra >/dev/null
        t=$(awk "BEGIN{printf \"%.3f\", $(now) - $t0}")
        read -r m <"$work/time"
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
        [ "$m" -gt "$rss" ] && rss=$m
        i=$((i + 1))
    done
    wi=$(sed -n 's/^  "warp_insts": \([0-9]*\),*/\1/p' "$work/stats.json" | head -1)
    sk=$(sed -n 's/^  "warp_insts_skipped": \([0-9]*\),*/\1/p' "$work/stats.json" | head -1)
    wi=$((wi + ${sk:-0}))
    cy=$(sed -n 's/^  "cycles": \([0-9]*\),*/\1/p' "$work/stats.json" | head -1)
    dec=""
    case "$jobs:$arg" in
    1:*.smt)
        dbest=""
        i=0
        while [ "$i" -lt "$repeat" ]; do
            t0=$(now)
            "$SMSIM" trace verify "$arg" >/dev/null
            t=$(awk "BEGIN{printf \"%.4f\", $(now) - $t0}")
            if [ -z "$dbest" ] || awk "BEGIN{exit !($t < $dbest)}"; then dbest=$t; fi
            i=$((i + 1))
        done
        dec=$(awk "BEGIN{printf \"%.0f\", $wi / ($dbest > 0 ? $dbest : 0.01)}")
        ;;
    esac
    wps=$(awk "BEGIN{printf \"%.0f\", $wi / ($best > 0 ? $best : 0.01)}")
    cps=$(awk "BEGIN{printf \"%.0f\", $cy / ($best > 0 ? $best : 0.01)}")
    # sim/dec: the simulation's rate as a share of the decode-only rate
    printf '%-24s %-7s %12s %12s %8s %8.1f %10.2f %10.2f %10s %8s\n' "$name" "$cfg" "$wi" "$cy" "$best" \
        "$(awk "BEGIN{print $rss / 1024}")" "$(awk "BEGIN{print $wps / 1e6}")" \
        "$(awk "BEGIN{print $cps / 1e6}")" \
        "$([ -n "$dec" ] && awk "BEGIN{printf \"%.2f\", $dec / 1e6}" || echo -)" \
        "$([ -n "$dec" ] && awk "BEGIN{printf \"%.1f%%\", 100 * $wps / $dec}" || echo -)" >&2
    echo "$name,$cfg,$kind,$jobs,$wi,$cy,$best,$rss,$wps,$cps,$dec,\"$machine\",$commit" >>"$tmp_csv"
}

saxpy 16 keep-text
measure saxpy-1x-text v100 trace "$work/saxpy-16"
measure saxpy-1x-smt v100 trace "$work/saxpy-16.smt"
measure saxpy-1x-smt-j2 v100 trace "$work/saxpy-16.smt" 2
if [ "${BENCH_QUICK:-0}" != 1 ]; then
    saxpy 160
    measure saxpy-10x-smt v100 trace "$work/saxpy-160.smt"
    measure saxpy-10x-smt-j2 v100 trace "$work/saxpy-160.smt" 2
    saxpy 1600
    measure saxpy-100x-smt v100 trace "$work/saxpy-1600.smt"
    measure ptx-mm h100 launch "$root/traces/mm.launch"
    measure ptx-mm-j2 h100 launch "$root/traces/mm.launch" 2
    measure ptx-hotspot h100 launch "$root/traces/hotspot.launch"
    # tensor-core GEMMs through PTX, functional execution included: wmma
    # from global memory, and mma.sync + ldmatrix over cp.async tiles
    measure ptx-wmma-gemm1024 h100 launch "$root/traces/modern/wmma_gemm_1024.launch"
    measure ptx-mma-ldsm-gemm1024 h100 launch "$root/traces/mech/mma_ldsm_gemm_n1024.launch"
    # real H100 traces (NVBit, Accel-Sim text compressed with xz)
    measure h100-mm-text h100 trace "$root/traces/hopper/traces_mm"
    measure h100-mm-text-j2 h100 trace "$root/traces/hopper/traces_mm" 2
    measure h100-transpose-text h100 trace "$root/traces/hopper/traces_micro_transpose_padded"
    measure synth-copy h100 synth "copy:blocks=528,threads=256,iters=64,width=16"
    measure synth-fma h100 synth "fma:blocks=264,threads=256,n=4096,ilp=4"
    # sampled simulation (doc/performance.md): 128 waves of a steady kernel
    measure synth-fma-sampled h100 synth "fma:blocks=135168,threads=256,n=256" 1 --sample
    measure synth-copy-sampled h100 synth "copy:blocks=135168,threads=256,iters=16" 1 --sample
    # a straight-line kernel of 100,000 PTX instructions: the sm_90 lowering
    # and schedule stay linear in its length (h100 within 2x of v100)
    if command -v python3 >/dev/null 2>&1; then
        python3 "$root/scripts/gen-long-ptx.py" 100000 "$work" >/dev/null
        measure ptx-long100k v100 launch "$work/long100000.launch"
        measure ptx-long100k h100 launch "$work/long100000.launch"
    fi
fi
mv "$tmp_csv" "$out"
echo "bench.sh: wrote $out" >&2
