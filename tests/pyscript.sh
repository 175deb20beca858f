# pyscript.sh - sourced by the tests of the Python report scripts
# (validate.sh, correlate.sh, measure.sh): checks SMSIM, finds python3 (the
# test is skipped without it), makes $tmp (removed on exit) and counts
# failures with fail MESSAGE in $fails (gpu_bytes: see below).  Set test_name first (it names the
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

# gpu_bytes LAUNCH SHA256FILE: emulate LAUNCH into $tmp/e and time it on the
# h100 config into $tmp/r; both must write the C (out/NAME_C.bin) a real GPU
# wrote, whose sha256 SHA256FILE lists.  Returns 1 (after fail) if not.
gpu_bytes() {
    _n=$(basename "$1" .launch)
    "$SMSIM" emulate --launch "$1" --output-dir "$tmp/e" >"$tmp/err" 2>&1 ||
        { fail "$_n (emulate): $(cat "$tmp/err")"; return 1; }
    "$SMSIM" run --config h100 --quiet --launch "$1" --output-dir "$tmp/r" >"$tmp/err" 2>&1 ||
        { fail "$_n (run): $(cat "$tmp/err")"; return 1; }
    cmp -s "$tmp/e/out/${_n}_C.bin" "$tmp/r/out/${_n}_C.bin" ||
        { fail "$_n: emulate and run differ"; return 1; }
    _want=$(grep " ${_n}_C.bin\$" "$2" | cut -d' ' -f1)
    _got=$("$PYTHON3" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' \
        "$tmp/e/out/${_n}_C.bin")
    [ -n "$_want" ] && [ "$_got" = "$_want" ] ||
        { fail "$_n: C is not the GPU's bytes ($_got, GPU ${_want:-none})"; return 1; }
}
