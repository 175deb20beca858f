#!/bin/sh
# sample.sh - sampled simulation (smsim run --sample, sim/sample.h) end to
# end: a sampled PTX launch writes the bytes emulate writes; its report
# states what it skipped and an interval that holds the full run's cycles
# on a homogeneous kernel; results are the same for every -j; a kernel too
# small to sample says so and equals the full run.
#
# Needs SMSIM and srcdir (make check sets them).
set -u
: "${SMSIM:?}" "${srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# json FILE KEY: a top-level number or boolean of a --stats-json file
json() { sed -n "s/^  \"$2\": \([0-9a-z.]*\),*\$/\1/p" "$1" | head -1; }

# 1. outputs: vecadd on the GTX 1070 (35 waves of 120 blocks)
launch=$srcdir/traces/vecadd.launch
"$SMSIM" emulate --launch "$launch" --output-dir "$tmp/emu" --quiet || fail "emulate vecadd"
"$SMSIM" run --config gtx1070 --launch "$launch" --output-dir "$tmp/samp" --sample --quiet \
    --stats-json "$tmp/samp.json" || fail "run --sample vecadd"
cmp -s "$tmp/emu/out/vecadd_c.bin" "$tmp/samp/out/vecadd_c.bin" ||
    fail "vecadd: the sampled run's output differs from emulate's"
[ "$(json "$tmp/samp.json" sampled)" = true ] || fail "vecadd was not sampled"
skipped=$(sed -n 's/^      "blocks_skipped": \([0-9]*\),$/\1/p' "$tmp/samp.json")
# at least four one-wave runs skipped (how many depends on the rate's noise:
# five when pascal.cfg's L2 took 32 bytes a slice a cycle, four at its
# calibrated 59), and the full run's cycles inside the stated interval
[ "${skipped:-0}" -ge 480 ] || fail "vecadd: only ${skipped:-0} blocks skipped"
"$SMSIM" run --config gtx1070 --launch "$launch" --no-outputs --quiet \
    --stats-json "$tmp/vfull.json" || fail "run vecadd in full"
vfull=$(json "$tmp/vfull.json" cycles)
vlo=$(json "$tmp/samp.json" cycles_lo)
vhi=$(json "$tmp/samp.json" cycles_hi)
if [ -z "$vfull" ] || [ -z "$vlo" ] || [ -z "$vhi" ] || [ "$vlo" -gt "$vfull" ] ||
   [ "$vfull" -gt "$vhi" ]; then
    fail "vecadd: full $vfull cycles outside the sampled interval [$vlo, $vhi]"
fi

# 2. a homogeneous kernel: the full run's cycles inside the stated interval
spec=fma:blocks=16896,threads=256,n=256
"$SMSIM" run --config h100 --synth "$spec" --quiet --stats-json "$tmp/full.json" || fail "full fma"
"$SMSIM" run --config h100 --synth "$spec" --sample --quiet --stats-json "$tmp/s1.json" \
    > /dev/null || fail "sampled fma"
full=$(json "$tmp/full.json" cycles)
lo=$(json "$tmp/s1.json" cycles_lo)
hi=$(json "$tmp/s1.json" cycles_hi)
est=$(json "$tmp/s1.json" cycles)
if [ -z "$full" ] || [ -z "$lo" ] || [ -z "$hi" ] || [ "$lo" -gt "$full" ] || [ "$full" -gt "$hi" ] ||
   [ "$lo" -gt "$est" ] || [ "$est" -gt "$hi" ]; then
    fail "fma: full $full cycles, sampled $est in [$lo, $hi]"
fi
[ "$(json "$tmp/s1.json" sampled)" = true ] || fail "fma was not sampled"

# 3. every -j gives the same bytes
SMSIM_FORCE_POOL=1 "$SMSIM" run --config h100 --synth "$spec" --sample -j 2 --quiet \
    --stats-json "$tmp/s2.json" > /dev/null || fail "sampled fma -j 2"
cmp -s "$tmp/s1.json" "$tmp/s2.json" || fail "fma: --sample -j 2 differs from -j 1"

# 4. too small to sample: said, and the same cycles as in full
"$SMSIM" run --config h100 --launch "$launch" --no-outputs --sample --quiet \
    --stats-json "$tmp/small.json" || fail "sampled vecadd on h100"
"$SMSIM" run --config h100 --launch "$launch" --no-outputs --quiet \
    --stats-json "$tmp/smallfull.json" || fail "vecadd on h100"
[ "$(json "$tmp/small.json" sampled)" = false ] || fail "vecadd on h100 (4 waves) was sampled"
grep -q '"sample_why": ".*too few' "$tmp/small.json" || fail "vecadd on h100: no reason given"
[ "$(json "$tmp/small.json" cycles)" = "$(json "$tmp/smallfull.json" cycles)" ] ||
    fail "vecadd on h100: unsampled --sample run differs from the full run"

# 5. the summary says what was sampled
"$SMSIM" run --config gtx1070 --launch "$launch" --no-outputs --sample > "$tmp/sum.txt" 2>&1 ||
    fail "summary run"
grep -q '^  sampled       [0-9]* of 4097 blocks simulated' "$tmp/sum.txt" ||
    fail "the summary has no 'sampled' line: $(head -5 "$tmp/sum.txt")"

[ "$fails" -eq 0 ] && echo "sample.sh: all passed"
exit $((fails > 0))
