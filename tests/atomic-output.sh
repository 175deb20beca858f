#!/bin/sh
# atomic-output.sh - an interrupted run never leaves a half-written output
# (sim/afile.c, doc/robustness.md).  A long run writing statistics and a
# windows CSV is stopped with SIGTERM, SIGHUP and SIGKILL while the CSV is
# being written: the previous contents of the outputs must survive intact,
# and after SIGTERM/SIGHUP no temporary file may be left behind.  (SIGINT
# gets the same handler, but a background job of a script ignores it.)
#
# Needs SMSIM and srcdir (make check sets them).
set -u
: "${SMSIM:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# Is SIGHUP ignored here (a parent under nohup)?  A run inherits that, and
# would never stop: the HUP case is then skipped, said so.
hup_ignored() {
    sh -c 'kill -HUP $$; exit 0' >/dev/null 2>&1
}

for sig in TERM HUP KILL; do
    if [ "$sig" = HUP ] && hup_ignored; then
        echo "skip: SIGHUP is ignored in this environment (nohup?): the SIGHUP case cannot run"
        continue
    fi
    d=$tmp/$sig
    mkdir -p "$d"
    for f in s.json s.txt w.csv; do echo "previous $f" > "$d/$f"; done
    # far longer than the test waits; stopped long before it could finish
    "$SMSIM" run --quiet --synth fma:n=1000000000 --stats-json "$d/s.json" --stats "$d/s.txt" \
        --windows 1000 --windows-out "$d/w.csv" < /dev/null > "$d/out" 2>&1 &
    pid=$!
    # wait until the run is writing the CSV (its temporary file exists), at most 30 s
    i=0
    while [ $i -lt 300 ] && [ -z "$(find "$d" -name 'w.csv.tmp.*' -size +0 2>/dev/null)" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ $i -lt 300 ] || fail "SIG$sig: the run never started writing $d/w.csv"
    kill -s "$sig" "$pid"
    # it must stop within 30 s; a run that does not is killed, and fails the test
    i=0
    while [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        fail "SIG$sig: the run did not stop within 30 s"
    fi
    wait "$pid"
    st=$?
    case $sig in TERM) want=143 ;; HUP) want=129 ;; KILL) want=137 ;; esac
    [ "$st" -eq "$want" ] || fail "SIG$sig: exit status $st, expected $want"
    for f in s.json s.txt w.csv; do
        [ "$(cat "$d/$f")" = "previous $f" ] || fail "SIG$sig: $f was changed by the interrupted run"
    done
    if [ "$sig" != KILL ]; then
        left=$(find "$d" -name '*.tmp.*')
        [ -z "$left" ] || fail "SIG$sig: temporary files left behind: $left"
    fi
done

# A failing run (here: its windows output cannot be created) writes none of its outputs.
d=$tmp/fail
mkdir -p "$d"
: > "$d/plainfile"
"$SMSIM" run --quiet --synth fma --stats-json "$d/s.json" --windows 100 \
    --windows-out "$d/plainfile/w.csv" < /dev/null > "$d/out" 2>&1
st=$?
[ "$st" -eq 2 ] || fail "unwritable output: exit status $st, expected 2"
[ ! -e "$d/s.json" ] || fail "unwritable output: s.json written anyway"
[ -z "$(find "$d" -name '*.tmp.*')" ] || fail "unwritable output: temporary files left behind"

echo "atomic-output: $fails failures"
[ "$fails" -eq 0 ]
