#!/bin/sh
# determinism.sh - the same run gives byte-identical statistics
# (doc/robustness.md): every statistics output (--stats-json, --stats,
# --windows-out) of each input below is compared by its XXH3-64 digest.
#
# same LABEL 'ARGS A' 'ARGS B' INPUT...: run INPUT with ARGS A and with
# ARGS B and require identical digests.  "Twice" is same with equal
# arguments; a parallel run compares '-j 1' against '-j 4' (capped at the
# CPUs, so 2 threads on a 2-CPU machine) with SMSIM_FORCE_POOL=1, so that
# every eligible cycle really runs on the pool, and without --windows,
# which would keep the SMs on one thread.
#
# Needs SMSIM and srcdir (make check sets them); XXH3SUM defaults to the
# tests/xxh3sum built next to SMSIM.
set -u
: "${SMSIM:?}" "${srcdir:?}"
XXH3SUM=${XXH3SUM:-$(dirname "$SMSIM")/tests/xxh3sum}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# digests TAG ARGS...: run, print the digest of each output (paths stripped).
# With -j among ARGS: no --windows, and the pool forced.
digests() {
    tag=$1
    shift
    case " $* " in
    *" -j "*)
        win=""; force=1; outs="$tmp/$tag.json $tmp/$tag.txt" ;;
    *)
        win="--windows 2000 --windows-out $tmp/$tag.csv"; force=""
        outs="$tmp/$tag.json $tmp/$tag.txt $tmp/$tag.csv" ;;
    esac
    # shellcheck disable=SC2086
    if ! env ${force:+SMSIM_FORCE_POOL=1} "$SMSIM" run --quiet "$@" --stats-json "$tmp/$tag.json" \
            --stats "$tmp/$tag.txt" $win < /dev/null > "$tmp/$tag.out" 2>&1; then
        sed 's/^/    /' "$tmp/$tag.out" | head -5 >&2
        echo "run failed"
        return
    fi
    # shellcheck disable=SC2086
    "$XXH3SUM" $outs | sed "s|  $tmp/$tag| |"
}

same() {
    label=$1 a=$2 b=$3
    shift 3
    n=$((n + 1))
    # shellcheck disable=SC2086
    da=$(digests a $a "$@")
    # shellcheck disable=SC2086
    db=$(digests b $b "$@")
    if [ "$da" != "$db" ] || [ "$da" = "run failed" ]; then
        echo "FAIL: $label: smsim run $* ($a | $b)"
        echo "$da" | sed 's/^/    A /'
        echo "$db" | sed 's/^/    B /'
        fails=$((fails + 1))
    else
        echo "ok: $label: $(echo "$da" | tr '\n' ' ')"
    fi
}

inputs() {
    echo "smt|--config h100 --trace $srcdir/traces/tiny/saxpy.smt"
    echo "accelsim|--config v100 --trace $srcdir/traces/accelsim/features"
    echo "ptx|--config gtx1070 --no-outputs --launch $srcdir/traces/reduce.launch"
    echo "synth|--config a100 --synth copy:blocks=64,threads=256,iters=2"
}

inputs > "$tmp/inputs"
while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    same "$name twice" "" "" $args
    # shellcheck disable=SC2086
    same "$name -j 1 vs -j 4" "-j 1" "-j 4" $args
done < "$tmp/inputs"
echo "determinism: $n comparisons, $fails failures"
[ "$fails" -eq 0 ]
