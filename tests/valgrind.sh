#!/bin/sh
# valgrind.sh - a few end-to-end runs under valgrind's memcheck must be
# clean: no invalid access, no use of uninitialised values, no leak
# (doc/robustness.md).  Skipped (exit 77) without valgrind or when smsim is
# built with ASan (the two do not mix).
#
# Needs SMSIM and srcdir (make check sets them).
set -u
: "${SMSIM:?}" "${srcdir:?}"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind.sh: valgrind not installed; skipped"
    exit 77
fi
if ldd "$SMSIM" 2>/dev/null | grep -q libasan; then
    echo "valgrind.sh: $SMSIM is built with ASan; skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# vg STATUS ARGS...: smsim ARGS under memcheck must exit with STATUS (an
# error valgrind finds makes it 99).
vg() {
    want=$1
    shift
    n=$((n + 1))
    valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect "$SMSIM" "$@" < /dev/null > "$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: exit $got (expected $want): valgrind smsim $*"
        sed 's/^/    /' "$tmp/out" | head -30
        fails=$((fails + 1))
    fi
}

vg 0 run --quiet --config h100 --trace "$srcdir/traces/tiny/fma_ilp4.smt" --stats-json "$tmp/s.json" \
    --windows 500 --windows-out "$tmp/w.csv"
vg 0 run --quiet --config v100 --trace "$srcdir/traces/accelsim/features"
vg 0 run --quiet --config gtx1070 --launch "$srcdir/tests/bad-input/launch-ok.launch" --output-dir "$tmp"
vg 0 trace record --synth fma:blocks=4 -o "$tmp/f.smt"
vg 0 trace verify "$tmp/f.smt"
vg 0 trace export --format accelsim "$srcdir/traces/tiny/fma_ilp4.smt" -o "$tmp/as"
vg 2 config show "$srcdir/tests/bad-input/cfg-unknown-key.cfg"
vg 2 run --quiet --trace "$srcdir/tests/bad-input/as-unknown-opcode.traceg"
echo "valgrind: $n runs, $fails failures"
[ "$fails" -eq 0 ]
