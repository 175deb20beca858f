#!/bin/sh
# End-to-end tests of the smsim command line: exit codes, error messages
# naming file:line or byte offset, atomic outputs, determinism, and that the
# generated docs in doc/ are up to date.
set -u
: "${SMSIM:?SMSIM must name the smsim binary}"
: "${srcdir:=.}"
SMSIM_CONFIG_DIR=${SMSIM_CONFIG_DIR:-$srcdir/configs}
export SMSIM_CONFIG_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsim-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# expect STATUS "fragment" -- command...: run, check exit status and that
# stdout+stderr contain the fragment.
expect() {
    want=$1; frag=$2; shift 2
    n=$((n + 1))
    "$@" >"$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: exit $got, expected $want: $*"; sed 's/^/    /' "$tmp/out" | head -5
        fails=$((fails + 1)); return
    fi
    if [ -n "$frag" ] && ! grep -qF -- "$frag" "$tmp/out"; then
        echo "FAIL: output lacks '$frag': $*"; sed 's/^/    /' "$tmp/out" | head -5
        fails=$((fails + 1)); return
    fi
    echo "ok $n: $*"
}

expect 0 "smsim " "$SMSIM" --version
expect 0 "commands:" "$SMSIM" --help
expect 1 "unknown command" "$SMSIM" frobnicate
for c in run config trace stats occupancy plot sweep sass; do expect 0 "usage: smsim $c" "$SMSIM" "$c" --help; done
expect 1 "expected exactly one of" "$SMSIM" run --config h100

# configs
expect 0 "sm.count = 132" "$SMSIM" config show h100
fields=$("$SMSIM" config show h100 | grep -c ' = ')
want=$(grep -c '^| `' "$srcdir/doc/config-reference.md")
[ "$fields" -eq "$want" ] && echo "ok: config show prints all $fields fields" ||
    { echo "FAIL: config show printed $fields fields, reference lists $want"; fails=$((fails + 1)); }
expect 0 "h200" "$SMSIM" config list
expect 0 "sm.count" "$SMSIM" config diff h100 v100
expect 2 "sm.count = 0 is out of range: allowed 1 .. 1024 SMs" \
    "$SMSIM" run --config h100 --set sm.count=0 --synth fma
expect 2 "unknown key 'sm.cuont' (did you mean 'sm.count'?)" \
    "$SMSIM" run --config h100 --set sm.cuont=4 --synth fma
printf 'include = %s/configs/h100.cfg\nl1.hit_latncy = 30\n' "$srcdir" >"$tmp/typo.cfg"
expect 2 "$tmp/typo.cfg:2: unknown key 'l1.hit_latncy' (did you mean 'l1.hit_latency'?)" \
    "$SMSIM" config show "$tmp/typo.cfg"
expect 2 "unknown config 'nosuchgpu'" "$SMSIM" config show nosuchgpu

# traces: record, verify, info, dump, run
expect 0 "warp instructions" "$SMSIM" trace record --synth saxpy:blocks=20,threads=128,iters=4 -o "$tmp/s.smt"
expect 0 "OK: 1 kernel(s), 20 blocks" "$SMSIM" trace verify "$tmp/s.smt"
expect 0 "warp insts:   3760" "$SMSIM" trace info "$tmp/s.smt"
expect 0 "LDG.E" "$SMSIM" trace dump "$tmp/s.smt" --block 3 --warp 1 --limit 12
expect 0 "kernel 0: synth_saxpy" "$SMSIM" run --trace "$tmp/s.smt"

# a flipped byte inside a compressed chunk: exit 2 naming the chunk's offset
off=$(grep -abo CHNK "$tmp/s.smt" | sed -n 3p | cut -d: -f1)
cp "$tmp/s.smt" "$tmp/bad.smt"
printf '\377' | dd of="$tmp/bad.smt" bs=1 seek=$((off + 60)) conv=notrunc 2>/dev/null
expect 2 "byte offset $off: chunk checksum mismatch" "$SMSIM" trace verify "$tmp/bad.smt"
expect 2 "byte offset $off: chunk checksum mismatch" "$SMSIM" run --trace "$tmp/bad.smt"
# truncated: exit 2 naming an offset
size=$(wc -c <"$tmp/s.smt")
head -c $((size / 2)) "$tmp/s.smt" >"$tmp/trunc.smt"
expect 2 "truncated" "$SMSIM" trace verify "$tmp/trunc.smt"
expect 2 "byte offset" "$SMSIM" run --trace "$tmp/trunc.smt"
expect 2 "not a trace smsim reads" "$SMSIM" run --trace "$srcdir/README.md"
expect 2 "cannot open" "$SMSIM" trace verify "$tmp/missing.smt"

# PTX launch files: run, emulate and record, and errors naming file:line
# (reduce's float atomics across blocks make its sum depend on the timing,
# so outputs are compared on a kernel whose result does not)
expect 0 "kernel 0: reduce" "$SMSIM" run --config gtx1070 --launch "$srcdir/traces/reduce.launch" \
    --output-dir "$tmp/o1"
expect 0 "1 kernel(s), 2048 blocks" "$SMSIM" emulate --launch "$srcdir/traces/reduce.launch" \
    --output-dir "$tmp/o2"
expect 0 "kernel 0: divergent" "$SMSIM" run --config gtx1070 --launch "$srcdir/traces/divergent.launch" \
    --output-dir "$tmp/o1"
expect 0 "1 kernel(s), 64 blocks" "$SMSIM" emulate --launch "$srcdir/traces/divergent.launch" \
    --output-dir "$tmp/o2"
cmp -s "$tmp/o1/out/divergent_steps.bin" "$tmp/o2/out/divergent_steps.bin" &&
    cmp -s "$tmp/o1/out/divergent_digits.bin" "$tmp/o2/out/divergent_digits.bin" &&
    echo "ok: run and emulate write the same outputs" ||
    { echo "FAIL: run and emulate outputs differ"; fails=$((fails + 1)); }
expect 0 "warp instructions" "$SMSIM" trace record --launch "$srcdir/traces/divergent.launch" \
    --output-dir "$tmp/o3" -o "$tmp/d.smt"
expect 0 "OK: 1 kernel(s)" "$SMSIM" trace verify "$tmp/d.smt"
# --config: the operations the model issues on that GPU (sm_90: SASS), as smsim sass lists them
expect 0 "warp instructions" "$SMSIM" trace record --launch "$srcdir/traces/divergent.launch" \
    --config h100 --output-dir "$tmp/o4" -o "$tmp/d90.smt"
expect 0 "ISETP" "$SMSIM" trace dump "$tmp/d90.smt" --limit 40
# ... with their stall counts (.smt 1.7): the recording replays to the PTX run's very cycle
# (without them, 1-2 % fast: hotspot -1.1 %, mm -2.0 %)
expect 0 "stall=" "$SMSIM" trace dump "$tmp/d90.smt" --limit 40
for k in divergent hotspot; do
    [ "$k" = divergent ] || "$SMSIM" trace record --launch "$srcdir/traces/$k.launch" --config h100 \
        --output-dir "$tmp/o4" -o "$tmp/d90.smt" >/dev/null 2>&1
    a=$("$SMSIM" run --config h100 --trace "$tmp/d90.smt" 2>&1 | awk '$1 == "cycles" { print $2 }')
    b=$("$SMSIM" run --config h100 --launch "$srcdir/traces/$k.launch" --no-outputs 2>&1 |
        awk '$1 == "cycles" { print $2 }')
    [ -n "$a" ] && [ "$a" = "$b" ] && echo "ok: $k recorded for h100 replays in $a cycles, as run" ||
        { echo "FAIL: $k recorded for h100 replays in '$a' cycles, run takes '$b'"; fails=$((fails + 1)); }
done
expect 0 "setp" "$SMSIM" trace dump "$tmp/d.smt" --limit 40
expect 2 "no-such-gpu" "$SMSIM" trace record --launch "$srcdir/traces/divergent.launch" \
    --config no-such-gpu -o "$tmp/x.smt"
sed 's/^grid *=.*/grid = 0/' "$srcdir/traces/vecadd.launch" >"$tmp/bad.launch"
sed -i "s|^ptx *=.*|ptx = $srcdir/traces/src/vecadd.ptx|" "$tmp/bad.launch"
line=$(grep -n '^grid' "$tmp/bad.launch" | cut -d: -f1)
expect 2 "bad.launch:$line: expected grid" "$SMSIM" run --launch "$tmp/bad.launch"
expect 2 "bad.launch:$line: expected grid" "$SMSIM" trace record --launch "$tmp/bad.launch" -o "$tmp/x.smt"
sed 's/add.f32/frob.f32/' "$srcdir/traces/src/vecadd.ptx" >"$tmp/bad.ptx"
sed "s|^ptx *=.*|ptx = bad.ptx|" "$srcdir/traces/vecadd.launch" >"$tmp/badptx.launch"
line=$(grep -n 'frob.f32' "$tmp/bad.ptx" | head -1 | cut -d: -f1)
expect 2 "bad.ptx:$line: kernel vecadd: unsupported instruction 'frob.f32'" "$SMSIM" emulate --launch "$tmp/badptx.launch"
expect 1 "expected exactly one of" "$SMSIM" run --launch "$srcdir/traces/reduce.launch" --synth fma

# Accel-Sim traces: run, convert, export, errors naming file:line
expect 0 "total: 2 kernel(s)" "$SMSIM" run --config v100 --trace "$srcdir/traces/accelsim/features"
expect 0 "2 kernel(s), 5 blocks, 158 warp instructions" \
    "$SMSIM" trace convert "$srcdir/traces/accelsim/features" -o "$tmp/f.smt"
expect 0 "158 warp instructions written as Accel-Sim tracer format 5" \
    "$SMSIM" trace export --format accelsim "$tmp/f.smt" -o "$tmp/f-as"
expect 0 "total: 2 kernel(s)" "$SMSIM" run --config v100 --trace "$tmp/f-as/kernelslist.g"
expect 0 "1 kernel(s), 7148800 warp instructions" \
    "$SMSIM" trace export --format accelsim --launch "$srcdir/traces/mm.launch" -o "$tmp/mm-as"
sed 's/^-binary version = 70/-binary version = 71/' \
    "$srcdir/traces/accelsim/edge/kernel-1.traceg" >"$tmp/bad.traceg"
expect 2 "bad.traceg:7: unknown binary version '71'" "$SMSIM" run --trace "$tmp/bad.traceg"
sed 's/IADD3/FROBNICATE/; s/ S2R / FROTZ.X /' "$srcdir/traces/accelsim/edge/kernel-1.traceg" \
    >"$tmp/unk.traceg"
line=$(grep -n FROBNICATE "$tmp/unk.traceg" | head -1 | cut -d: -f1)
line2=$(grep -n FROTZ.X "$tmp/unk.traceg" | head -1 | cut -d: -f1)
# every unknown opcode of the trace in one message, each with its first line
[ "$line2" -lt "$line" ] || echo "FAIL: the test trace should have FROTZ.X first"
expect 2 "unk.traceg:$line2: unknown opcodes for volta (binary version 70): FROTZ.X (line $line2), FROBNICATE (line $line)" \
    "$SMSIM" run --trace "$tmp/unk.traceg"
expect 0 "total: 1 kernel(s)" "$SMSIM" run --trace "$tmp/unk.traceg" --unknown-opcode=alu
expect 1 "--unknown-opcode takes" "$SMSIM" run --trace "$tmp/unk.traceg" --unknown-opcode=skip
expect 1 "expected --format accelsim" "$SMSIM" trace export "$tmp/f.smt" -o "$tmp/x"

# the validator
expect 0 '"kernel_exec_cycle": 453451' "$SMSIM" validate manybsp "$srcdir/validation/cases/hotspot-gtx760.case" --json
expect 2 "measured.tsv:5: expected 'key = value'" "$SMSIM" validate manybsp "$srcdir/validation/measured.tsv"
expect 0 "verdict        within" "$SMSIM" validate --launch "$srcdir/validation/seed-ptx/mm.launch" --config 940mx
expect 4 "verdict        beyond" "$SMSIM" validate --launch "$srcdir/validation/seed-ptx/knn.launch" --config gtx760 \
    --measured 3500 --threshold 5           # about half the simulated cycles: beyond, whatever the calibration
expect 0 '"manybsp_cycles"' "$SMSIM" validate --launch "$srcdir/traces/knn.launch" --config h100 --json --measured 5000 --threshold 90
expect 1 "expected --launch FILE" "$SMSIM" validate --config h100
# measurements on real GPUs: validation/measured/*.tsv after measured.tsv; a bad row is exit 2
mkdir -p "$tmp/vd/measured"
cp "$srcdir/validation/measured.tsv" "$tmp/vd/"
# (1,234 cycles: a tenth of any plausible simulation, so the verdict is "beyond": exit 4)
printf 'vecadd\th100\t1234\tcli.sh\tclock64\tnone\n' > "$tmp/vd/measured/a.tsv"
expect 4 "1234 cycles ($tmp/vd/measured/a.tsv:1 (cli.sh; clock64; none))" \
    env SMSIM_VALIDATION_DIR="$tmp/vd" "$SMSIM" validate --launch "$srcdir/traces/vecadd.launch" --config h100
printf 'knn\th100\tmany\tcli.sh\tclock64\tnone\n' > "$tmp/vd/measured/b.tsv"
expect 2 "b.tsv:1: expected 6 tab-separated columns" \
    env SMSIM_VALIDATION_DIR="$tmp/vd" "$SMSIM" validate --launch "$srcdir/traces/knn.launch" --config h100

# occupancy calculator (seed 003's A100 examples and the hardware answer to its smem example)
expect 0 '"blocks_per_sm": 32, "active_warps": 32, "max_warps": 64, "occupancy": 0.5, "limiter": "blocks"' \
    "$SMSIM" occupancy --config a100 --block 32 --json
expect 0 '"occupancy": 0.75, "limiter": "threads"' "$SMSIM" occupancy --config a100 --block 768 --json
expect 0 '"occupancy": 0.5, "limiter": "registers"' "$SMSIM" occupancy --config a100 --block 256 --regs 64 --json
expect 0 '"blocks_per_sm": 4, "active_warps": 32, "max_warps": 64, "occupancy": 0.5, "limiter": "shared_memory"' \
    "$SMSIM" occupancy --config a100 --block 256 --smem 32K --json
expect 0 "4 blocks/SM = 32 of 64 warps = 50.0 % occupancy, limited by shared_memory" \
    "$SMSIM" occupancy --config a100 --block 256 --smem 32768
expect 2 "needs 262144 registers" "$SMSIM" occupancy --block 1024 --regs 255
expect 1 "--block THREADS is required" "$SMSIM" occupancy --config a100

# per-window statistics and the CPI stack
expect 0 "CPI stack" "$SMSIM" run --synth fma:blocks=8,threads=128,n=64
expect 0 "" "$SMSIM" run --synth fma:blocks=8,threads=128,n=64 --quiet --windows 100 --windows-out "$tmp/w.csv"
head -1 "$tmp/w.csv" | grep -q '^kernel,scope,sm,window,first_cycle,last_cycle,cycles,warp_insts,n_warp_fp32,theta,m_fma,f_fp32,u_issue,c_fp32,phi,phi_hat,flops,u_sp,' &&
    echo "ok: windows CSV header" || { echo "FAIL: windows CSV header: $(head -1 "$tmp/w.csv")"; fails=$((fails + 1)); }
# every GPU-wide window of full-mask FMAs (n_warp_fp32 > 0) has phi = 2 x 132 x 128
bad=$(awk -F, 'NR > 1 && $2 == "gpu" && $9 > 0 && $15 != 33792.0' "$tmp/w.csv" | wc -l)
[ "$bad" -eq 0 ] && echo "ok: pure FMA windows have phi = 2 C_fp32" ||
    { echo "FAIL: $bad windows with phi != 2 C_fp32"; fails=$((fails + 1)); }
expect 0 "" "$SMSIM" run --synth fma:blocks=8,threads=128,n=64 --quiet --windows 100 --windows-out "$tmp/w.jsonl"
if command -v python3 >/dev/null 2>&1; then
    python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$tmp/w.jsonl" &&
        echo "ok: windows JSON Lines parse" || { echo "FAIL: invalid JSON Lines"; fails=$((fails + 1)); }
fi
expect 1 "go together" "$SMSIM" run --synth fma --windows 100
expect 1 "--windows takes a positive number" "$SMSIM" run --synth fma --windows 0 --windows-out "$tmp/x.csv"

# what-if sweep: 8 points x 2 inputs -> 16 rows; a re-run does no work; the
# emitted Slurm script is valid bash with one array task per point; the GNU
# parallel job list plus 'sweep collect' gives the same table
sw="sweep --config h100 --vary sm.count=2,4 --vary l1.size_kb=64,128 --vary sched.policy=gto,lrr
    --synth fma:blocks=8,threads=64,n=32 --synth copy:blocks=8,threads=64,iters=2"
expect 0 "16 rows: 16 ok, 0 failed, 0 missing" "$SMSIM" $sw -o "$tmp/sw" -j 2
[ "$(wc -l <"$tmp/sw/results.csv")" -eq 17 ] && echo "ok: sweep CSV has 16 rows" ||
    { echo "FAIL: sweep CSV has $(wc -l <"$tmp/sw/results.csv") lines"; fails=$((fails + 1)); }
head -1 "$tmp/sw/results.csv" | grep -q '^point,input,kind,arg,sm.count,l1.size_kb,sched.policy,status,kernels,cycles' &&
    echo "ok: sweep CSV header names the varied keys" ||
    { echo "FAIL: sweep CSV header: $(head -1 "$tmp/sw/results.csv")"; fails=$((fails + 1)); }
expect 0 "16 done, 0 to run" "$SMSIM" $sw -o "$tmp/sw" -j 2
expect 1 "holds a different sweep" "$SMSIM" sweep --config h100 --vary sm.count=2,8 \
    --synth fma:blocks=8 -o "$tmp/sw"
expect 2 "sm.count = 0 is out of range" "$SMSIM" sweep --vary sm.count=0,2 --synth fma -o "$tmp/swbad"
expect 0 "8 array tasks" "$SMSIM" $sw -o "$tmp/sws" --emit slurm
bash -n "$tmp/sws/sweep.slurm" && grep -qx '#SBATCH --array=0-7' "$tmp/sws/sweep.slurm" &&
    echo "ok: Slurm script passes bash -n, one array task per point" ||
    { echo "FAIL: Slurm script"; fails=$((fails + 1)); }
expect 0 "16 jobs" "$SMSIM" $sw -o "$tmp/swp" --emit parallel
sh "$tmp/swp/jobs.txt"
expect 0 "16 rows: 16 ok" "$SMSIM" sweep collect "$tmp/swp"
if [ "$(cut -d, -f1-3,5- "$tmp/sw/results.csv")" = "$(cut -d, -f1-3,5- "$tmp/swp/results.csv")" ]; then
    echo "ok: collected job-list results equal the local sweep"; else
    echo "FAIL: collected results differ"; fails=$((fails + 1)); fi

# what comes from an input file reaches the terminal and the JSON safely,
# and failures the user could miss are not ignored
sed "s|^ptx *= *src/|ptx = $srcdir/traces/src/|" "$srcdir/traces/vecadd.launch" |
    sed 's|^output.*||' >"$tmp/plain.launch"
printf '\357\273\277' | cat - "$tmp/plain.launch" >"$tmp/bom.launch"
expect 0 "4097 blocks" "$SMSIM" emulate --launch "$tmp/bom.launch"      # a UTF-8 BOM
printf 'ptx = x\033[31mred.ptx\nkernel = k\ngrid = 1\nblock = 32\n' >"$tmp/esc.launch"
expect 2 'x\x1b[31mred.ptx: cannot open PTX file' "$SMSIM" emulate --launch "$tmp/esc.launch"
expect 2 "cannot write the standard output: No space left on device" \
    sh -c "\"$SMSIM\" run --config h100 --launch \"$tmp/plain.launch\" >/dev/full"
mkdir -p "$tmp/oddname"
printf -- '-kernel name = odd\377\033name\n' >"$tmp/oddname/kernel-1.traceg"
tail -n +2 "$srcdir/traces/accelsim/features/kernel-1.traceg" >>"$tmp/oddname/kernel-1.traceg"
printf 'kernel-1.traceg\n' >"$tmp/oddname/kernelslist.g"
expect 0 'kernel 0: odd\xff\x1bname' "$SMSIM" run --config v100 --trace "$tmp/oddname" \
    --stats-json "$tmp/odd.json"
if [ -n "${PYTHON3:-}" ] || command -v python3 >/dev/null 2>&1; then
    "${PYTHON3:-python3}" -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/odd.json" &&
        echo "ok: a kernel name that is not UTF-8 still gives valid JSON" ||
        { echo "FAIL: invalid JSON for a kernel name that is not UTF-8"; fails=$((fails + 1)); }
fi
sed "s|^ptx *= *src/|ptx = $srcdir/traces/src/|" "$srcdir/traces/vecadd.launch" |
    sed "s|^output *= *c .*|output = c $tmp/partial_c.bin|" >"$tmp/trunc.launch"
expect 0 "stopped at sim.max_cycles before it finished: its outputs are not written" \
    "$SMSIM" run --config h100 --set sim.max_cycles=1000 --launch "$tmp/trunc.launch"
[ ! -e "$tmp/partial_c.bin" ] && echo "ok: no outputs of an unfinished kernel" ||
    { echo "FAIL: an unfinished kernel's outputs were written"; fails=$((fails + 1)); }

# 20,000 kernel launches in one trace stay under 100 MB (each kernel's
# statistics are kept packed); not measured under ASan (its shadow memory)
if command -v "${PYTHON3:-python3}" >/dev/null 2>&1 && ! ldd "$SMSIM" 2>/dev/null | grep -q asan; then
    mkdir -p "$tmp/many"
    cp "$srcdir/traces/accelsim/features/kernel-1.traceg" "$tmp/many/"
    i=0
    while [ $i -lt 20000 ]; do echo kernel-1.traceg; i=$((i + 1)); done >"$tmp/many/kernelslist.g"
    kb=$("${PYTHON3:-python3}" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$SMSIM" run --quiet --config v100 \
        --trace "$tmp/many")
    if [ -n "$kb" ] && [ "$kb" -lt 102400 ]; then
        echo "ok: 20,000 kernel launches in $kb KB"
    else
        echo "FAIL: 20,000 kernel launches took ${kb:-?} KB (at most 100 MB)"; fails=$((fails + 1))
    fi
fi

# a sweep killed outright (SIGKILL) leaves no run behind (Linux: the runs
# die with it)
if [ "$(uname -s)" = Linux ] && command -v pgrep >/dev/null 2>&1; then
    "$SMSIM" sweep --config h100 --vary sm.count=2,4 --synth fma:n=1000000000 \
        -o "$tmp/swkill" -j 2 --quiet >/dev/null 2>&1 &
    kpid=$!
    i=0
    while [ $i -lt 100 ] && [ -z "$(pgrep -f "swkill/" 2>/dev/null | grep -v "^$kpid\$")" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$kpid" 2>/dev/null
    wait "$kpid" 2>/dev/null
    sleep 0.5
    if [ -n "$(pgrep -f "swkill/" 2>/dev/null)" ]; then
        echo "FAIL: runs of a killed sweep are still running"; fails=$((fails + 1))
        pkill -KILL -f "swkill/" 2>/dev/null
    else
        echo "ok: a killed sweep's runs end with it"
    fi
fi

# plots (gnuplot is optional at test time: skipped without it)
if command -v "${SMSIM_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    "$SMSIM" run --synth saxpy:blocks=16 --quiet --stats-json "$tmp/p.json" \
        --windows 200 --windows-out "$tmp/p.csv"
    expect 0 "" "$SMSIM" plot "$tmp/p.json" "$tmp/p.csv" -o "$tmp/plots"
    expect 0 "results-cycles.svg" "$SMSIM" plot "$tmp/sw/results.csv" -o "$tmp/plots"
    expect 0 "results-ipc.png" "$SMSIM" plot "$tmp/sw/results.csv" --metric ipc -o "$tmp/plots"
    for f in p-cpi p-pipes p-caches p-issue p-flops results-cycles results-ipc; do
        [ -s "$tmp/plots/$f.svg" ] && [ -s "$tmp/plots/$f.png" ] || { echo "FAIL: no $f.svg/.png"; fails=$((fails + 1)); }
    done
    # the sweep chart: a line per input x (l1.size_kb, sched.policy), sm.count on x
    [ "$(grep -c ' with linespoints ' "$tmp/plots/results-cycles.gp")" -eq 8 ] &&
        [ "$(grep -vc '^#' "$tmp/plots/results-cycles.dat")" -eq 2 ] && echo "ok: sweep chart has 8 lines of 2 points" ||
        { echo "FAIL: sweep chart data"; fails=$((fails + 1)); }
    echo "ok: plots rendered"
else
    echo "skip: plots (no gnuplot)"
fi
expect 2 "" "$SMSIM" plot "$tmp/missing.json" -o "$tmp/plots2"
expect 2 "no column 'bogus' after 'status'" "$SMSIM" plot "$tmp/sw/results.csv" --metric bogus -o "$tmp/plots2"
head -2 "$tmp/sw/results.csv" > "$tmp/swcut.csv"
printf '0,"unterminated\n' >> "$tmp/swcut.csv"
expect 2 "swcut.csv:3: expected" "$SMSIM" plot "$tmp/swcut.csv" -o "$tmp/plots2"
printf 'a,b\n1,2\n' > "$tmp/other.csv"
expect 2 "expected the header of a windows CSV" "$SMSIM" plot "$tmp/other.csv" -o "$tmp/plots2"

# outputs are atomic: a failing run leaves no file behind, an unwritable one fails with 2
expect 2 "" "$SMSIM" run --trace "$tmp/bad.smt" --stats-json "$tmp/never.json"
[ ! -e "$tmp/never.json" ] && echo "ok: no stats file after a failed run" ||
    { echo "FAIL: stats file written by a failed run"; fails=$((fails + 1)); }
expect 2 "cannot create output file" "$SMSIM" run --synth fma:blocks=2 --quiet --stats-json /nonexistent/dir/x.json
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && echo "ok: no temporary files left" ||
    { echo "FAIL: temporary files left: $(ls "$tmp")"; fails=$((fails + 1)); }

# determinism: the same run twice gives byte-identical statistics
"$SMSIM" run --trace "$tmp/s.smt" --quiet --stats-json "$tmp/a.json"
"$SMSIM" run --trace "$tmp/s.smt" --quiet --stats-json "$tmp/b.json"
if cmp -s "$tmp/a.json" "$tmp/b.json"; then echo "ok: identical stats on re-run"; else
    echo "FAIL: stats differ between identical runs"; fails=$((fails + 1)); fi
# ... and so does ticking the SMs on two threads (-j), for a trace big enough
# that most cycles are ticked in parallel (check_par covers 2-4 threads)
"$SMSIM" trace record --synth saxpy:blocks=320,threads=256,iters=4 -o "$tmp/p.smt" >/dev/null
"$SMSIM" run --config v100 --trace "$tmp/p.smt" --quiet -j 1 --stats-json "$tmp/j1.json"
"$SMSIM" run --config v100 --trace "$tmp/p.smt" --quiet -j 2 --stats-json "$tmp/j2.json"
if cmp -s "$tmp/j1.json" "$tmp/j2.json"; then echo "ok: identical stats with -j 1 and -j 2"; else
    echo "FAIL: stats differ between -j 1 and -j 2"; fails=$((fails + 1)); fi
expect 1 "-j takes a number of threads" "$SMSIM" run --synth fma:blocks=2 -j 0
grep -q '"cycles": ' "$tmp/a.json" && grep -q '"warp_insts": 3760' "$tmp/a.json" &&
    grep -q '"kernels": \[' "$tmp/a.json" && echo "ok: stats JSON has cycles, warp_insts, kernels" ||
    { echo "FAIL: stats JSON lacks required keys"; fails=$((fails + 1)); }
if command -v python3 >/dev/null 2>&1; then
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/a.json" &&
        echo "ok: stats JSON parses" || { echo "FAIL: invalid JSON"; fails=$((fails + 1)); }
fi

# regs = auto: ptxas -v for the simulated GPU (a stand-in ptxas here: the
# suite never runs a real one, SMSIM_PTXAS=none), cached per PTX file and
# target; without ptxas, 32 registers and a note; a failing ptxas is exit 2
cat >"$tmp/ptxas" <<'EOF'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/ptxas.calls"
case "$*" in *sm_75*) echo "ptxas fatal   : Value 'sm_75' is not defined"; exit 1 ;; esac
printf "ptxas info    : Compiling entry function 'vecadd' for 'sm_90'\n"
printf "ptxas info    : Function properties for vecadd\n"
printf "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
printf "ptxas info    : Used 40 registers, used 0 barriers, 380 bytes cmem[0]\n"
EOF
chmod +x "$tmp/ptxas"
cp "$srcdir/traces/src/vecadd.ptx" "$tmp/vecadd.ptx"
printf 'ptx = vecadd.ptx\nkernel = vecadd\ngrid = 2\nblock = 64\nregs = auto\narg = a buffer f32 128 zeros\narg = b buffer f32 128 zeros\narg = c buffer f32 128 zeros\narg = n s32 128\n' >"$tmp/auto.launch"
expect 0 '"regs_per_thread": 40' env SMSIM_PTXAS="$tmp/ptxas" SMSIM_CACHE_DIR="$tmp/cache" \
    "$SMSIM" run --config h100 --launch "$tmp/auto.launch" --no-outputs --stats-json -
expect 0 '"regs_per_thread": 40' env SMSIM_PTXAS="$tmp/ptxas" SMSIM_CACHE_DIR="$tmp/cache" \
    "$SMSIM" run --config h100 --launch "$tmp/auto.launch" --no-outputs --stats-json -
[ "$(wc -l <"$tmp/ptxas.calls")" -eq 1 ] && grep -q -- "-arch=sm_90 -v" "$tmp/ptxas.calls" &&
    echo "ok: ptxas ran once for sm_90, then the cache answered" ||
    { echo "FAIL: ptxas calls: $(cat "$tmp/ptxas.calls")"; fails=$((fails + 1)); }
expect 0 "regs = auto, but there is no ptxas" env SMSIM_PTXAS=none SMSIM_CACHE_DIR="$tmp/cache2" \
    "$SMSIM" run --config h100 --launch "$tmp/auto.launch" --no-outputs --stats-json "$tmp/n.json"
grep -q '"regs_per_thread": 32' "$tmp/n.json" && echo "ok: 32 registers without ptxas" ||
    { echo "FAIL: without ptxas, not 32 registers"; fails=$((fails + 1)); }
expect 2 "ptxas -arch=sm_75 failed (exit status 1): ptxas fatal" env SMSIM_PTXAS="$tmp/ptxas" \
    SMSIM_CACHE_DIR="$tmp/cache" "$SMSIM" run --config rtx2080ti --launch "$tmp/auto.launch" --quiet
# a kernel name longer than any line buffer (CUTLASS's mangled names run past
# 1,000 characters): its report is still found
long=$(awk 'BEGIN { s = "k"; for (i = 0; i < 1200; i++) s = s "x"; print s }')
sed "s/vecadd/$long/g" "$tmp/ptxas" >"$tmp/ptxas_long" && chmod +x "$tmp/ptxas_long"
sed "s/vecadd/$long/g" "$srcdir/traces/src/vecadd.ptx" >"$tmp/long.ptx"
sed "s/vecadd.ptx/long.ptx/; s/kernel = vecadd/kernel = $long/" "$tmp/auto.launch" >"$tmp/long.launch"
expect 0 '"regs_per_thread": 40' env SMSIM_PTXAS="$tmp/ptxas_long" SMSIM_CACHE_DIR="$tmp/cache3" \
    "$SMSIM" run --config h100 --launch "$tmp/long.launch" --no-outputs --stats-json -

# the SASS-level listing of a PTX kernel
expect 0 "22 PTX instructions, 20 operations issue" "$SMSIM" sass --launch "$srcdir/traces/vecadd.launch"
expect 0 "(mul.wide.s32: folded)" "$SMSIM" sass --launch "$srcdir/traces/vecadd.launch"
expect 0 "IMAD.WIDE" "$SMSIM" sass --launch "$srcdir/traces/vecadd.launch" --config h100
expect 0 "22 PTX instructions, 22 operations issue" "$SMSIM" sass --launch "$srcdir/traces/vecadd.launch" --config v100
expect 1 "expected --launch FILE" "$SMSIM" sass
expect 2 "cannot open launch file" "$SMSIM" sass --launch "$tmp/nope.launch"

# generated docs are current
"$SMSIM" config doc -o "$tmp/config-reference.md"
"$SMSIM" stats doc -o "$tmp/stats-reference.md"
for d in config-reference.md stats-reference.md; do
    if cmp -s "$tmp/$d" "$srcdir/doc/$d"; then echo "ok: doc/$d is current"; else
        echo "FAIL: doc/$d is stale: run 'make doc'"; fails=$((fails + 1)); fi
done

echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]
