# pyscript.sh - sourced by the tests of the Python report scripts
# (validate.sh, correlate.sh, measure.sh): checks SMSIM, finds python3 (the
# test is skipped without it), makes $tmp (removed on exit) and counts
# failures with fail MESSAGE in $fails.  Set test_name first (it names the
# temporary directory).
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
PYTHON3=${PYTHON3:-python3}
if ! command -v "$PYTHON3" >/dev/null 2>&1; then
    echo "SKIP: no python3"; exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-${test_name:?}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
