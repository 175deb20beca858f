#!/bin/sh
# Golden statistics: run each case of tests/golden/cases and compare its
# JSON statistics with the committed tests/golden/<case>.json.  A change in
# any cycle count or counter shows as a diff.  After an intended model
# change, regenerate with `make regen-golden` (or tests/golden.sh --regen)
# and review the diff before committing.
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
SMSIM_CONFIG_DIR=${SMSIM_CONFIG_DIR:-$srcdir/configs}
export SMSIM_CONFIG_DIR
regen=0
[ "${1:-}" = "--regen" ] && regen=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0
# each line: NAME CONFIG INPUT (relative to the source tree) [--set k=v ...];
# INPUT is a trace (.smt or Accel-Sim) or a PTX launch file (*.launch)
while read -r name config trace rest; do
    case "$name" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    case "$trace" in
        *.launch) input="--launch $srcdir/$trace --output-dir $tmp/out" ;;
        *) input="--trace $srcdir/$trace" ;;
    esac
    # shellcheck disable=SC2086
    if ! "$SMSIM" run --config "$config" $input $rest --quiet \
        --stats-json "$tmp/$name.json" 2>"$tmp/err"; then
        echo "FAIL $name: smsim exited with an error:"; cat "$tmp/err"; fails=$((fails + 1)); continue
    fi
    # the version string is not part of the golden data
    grep -v '"smsim_version"' "$tmp/$name.json" >"$tmp/$name.got"
    if [ $regen -eq 1 ]; then
        cp "$tmp/$name.got" "$srcdir/tests/golden/$name.json"
        echo "regenerated $name"
    elif ! diff -u "$srcdir/tests/golden/$name.json" "$tmp/$name.got" >"$tmp/diff"; then
        echo "FAIL $name: statistics differ from tests/golden/$name.json:"
        grep '^[-+] ' "$tmp/diff" | head -20
        echo "  (intended? run 'make regen-golden' and review the diff)"
        fails=$((fails + 1))
    else
        echo "ok $name"
    fi
done <"$srcdir/tests/golden/cases"
echo "$n golden cases, $fails failed"
[ "$fails" -eq 0 ]
