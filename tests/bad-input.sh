#!/bin/sh
# bad-input.sh - the bad-input corpus (tests/bad-input/, doc/robustness.md):
# every malformed input must end with its expected exit status and message,
# never a crash, a hang or an unbounded allocation.
#
# Needs SMSIM and srcdir (make check sets them); SMTPATCH defaults to the
# tests/smtpatch built next to SMSIM.
set -u
: "${SMSIM:?}" "${srcdir:?}"
SMTPATCH=${SMTPATCH:-$(dirname "$SMSIM")/tests/smtpatch}
dir=$srcdir/tests/bad-input
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# The damaged .smt files of smt.tsv and the Accel-Sim ones, one trace per directory.
while IFS='	' read -r name edits; do
    case $name in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086
    "$SMTPATCH" "$srcdir/traces/tiny/fma_ilp4.smt" "$tmp/$name.smt" $edits ||
        { echo "FAIL: smtpatch $name"; fails=$((fails + 1)); }
done < "$dir/smt.tsv"
for f in "$dir"/as-*.traceg; do
    d=$tmp/as/$(basename "$f" .traceg)
    mkdir -p "$d" && cp "$f" "$d/kernel-1.traceg"
done
: > "$tmp/plainfile"
# A valid trace whose header declares the largest chunk size (16 MiB) with
# 4 KiB chunks: memory must follow the chunks, not the declared bound
# (8448 resident warps on the H100 config used to reserve 16 MiB each).
"$SMSIM" trace record --synth fma:blocks=600,threads=1024,n=4 -o "$tmp/small.smt" > /dev/null &&
    "$SMTPATCH" "$tmp/small.smt" "$tmp/big-chunk-bound.smt" FILE+20:4=16777216 ||
    { echo "FAIL: making big-chunk-bound.smt"; fails=$((fails + 1)); }

# Without ASan, bound the address space: an implausible size must fail before
# it is allocated.  (ASan reserves terabytes of address space up front.)
limit=""
if ! (ldd "$SMSIM" 2>/dev/null | grep -q libasan); then
    limit="ulimit -v 4194304;"
fi

while IFS='	' read -r name want frag args; do
    case $name in ''|'#'*) continue ;; esac
    n=$((n + 1))
    args=$(printf '%s' "$args" | sed "s|@IN@|$dir|g; s|@TMP@|$tmp|g; s|@SRC@|$srcdir|g")
    frag=$(printf '%s' "$frag" | sed "s|@TMP@|$tmp|g")
    # shellcheck disable=SC2086
    (cd "$tmp" && eval "$limit" && exec timeout 60 "$SMSIM" $args) > "$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $name: exit $got, expected $want: smsim $args"
        sed 's/^/    /' "$tmp/out" | head -5
        fails=$((fails + 1))
    elif ! grep -qF -- "$frag" "$tmp/out"; then
        echo "FAIL: $name: output lacks '$frag': smsim $args"
        sed 's/^/    /' "$tmp/out" | head -5
        fails=$((fails + 1))
    fi
done < "$dir/cases.tsv"

# No case may leave an output or a temporary file behind.
left=$(find "$tmp" -name '*.tmp.*' | head -n 3)
if [ -n "$left" ]; then
    echo "FAIL: temporary files left behind: $left"
    fails=$((fails + 1))
fi
echo "bad-input: $n cases, $fails failures"
[ "$fails" -eq 0 ]
