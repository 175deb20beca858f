#!/bin/sh
# exec.sh - whole CUDA programs under `smsim exec` and the replacement CUDA
# runtime (cudart/, doc/exec.md).
#
#  1. tests/exec_capi, a C program that registers its PTX as nvcc's host
#     code does (no CUDA toolkit needed): its checks pass with the fat
#     binary plain, LZ4- and Zstandard-compressed; a fat binary without PTX
#     for the GPU is refused; what it computes is the same bytes with and
#     without timing and on every config; the report, --stats-json and
#     --windows come out, the same for -j 1 and -j 2; launch sampling
#     estimates repeats within 1 % and changes no output; a missing
#     program is exit 2.
#  2. the CUDA programs of tests/cuda/ (nvcc -cudart shared, PTX embedded)
#     print their own PASS line and exit 0; skipped, with a message, when
#     nvcc is not installed.
#
# Needs SMSIM, srcdir (make check sets them) and EXEC_CAPI (the built
# tests/exec_capi).
set -u
: "${SMSIM:?}" "${srcdir:?}"
EXEC_CAPI=${EXEC_CAPI:-$(dirname "$SMSIM")/tests/exec_capi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# 1. the C-level program
for mode in plain lz4 zstd; do
    if ! "$SMSIM" exec -q -- "$EXEC_CAPI" "$mode" >"$tmp/$mode.out" 2>"$tmp/$mode.err"; then
        fail "exec_capi $mode: exit status $?"; cat "$tmp/$mode.out" "$tmp/$mode.err" >&2
    fi
    grep -q FAIL "$tmp/$mode.out" && fail "exec_capi $mode: $(grep FAIL "$tmp/$mode.out")"
    [ "$(grep -c PASS "$tmp/$mode.out")" -ge 14 ] || fail "exec_capi $mode: too few checks ran"
done
grep -q "use\|out-of-bounds" "$tmp/plain.err" ||
    fail "exec_capi: the out-of-bounds kernel's message is missing from stderr"
grep -q "(block [0-9]*, thread [0-9]*, pc 0x[0-9a-f]*)" "$tmp/plain.err" ||
    fail "exec_capi: the out-of-bounds message does not name block, thread and pc"
"$SMSIM" exec -- "$EXEC_CAPI" future >"$tmp/future.out" 2>&1 ||
    { fail "exec_capi future"; cat "$tmp/future.out" >&2; }
grep -q "compute_100 and up, the simulated GPU is sm_90" "$tmp/future.out" ||
    fail "exec_capi future: no message naming the PTX's target"

# CUDA graphs (cudart/cudart_graph.c), with and without timing
for t in "" --no-timing; do
    # shellcheck disable=SC2086
    if ! "$SMSIM" exec -q $t -- "$EXEC_CAPI" graph >"$tmp/graph.out" 2>"$tmp/graph.err"; then
        fail "exec_capi graph $t: exit status $?"; cat "$tmp/graph.out" "$tmp/graph.err" >&2
    fi
    grep -q FAIL "$tmp/graph.out" && fail "exec_capi graph $t: $(grep FAIL "$tmp/graph.out")"
    [ "$(grep -c PASS "$tmp/graph.out")" -eq 22 ] || fail "exec_capi graph $t: not 22 checks"
done

# CUDA arrays, texture and surface objects (cudart/cudart_tex.c, frontend/exec/ptx_tex.c)
for t in "" --no-timing; do
    # shellcheck disable=SC2086
    if ! "$SMSIM" exec -q $t -- "$EXEC_CAPI" texture >"$tmp/tex.out" 2>"$tmp/tex.err"; then
        fail "exec_capi texture $t: exit status $?"; cat "$tmp/tex.out" "$tmp/tex.err" >&2
    fi
    grep -q FAIL "$tmp/tex.out" && fail "exec_capi texture $t: $(grep FAIL "$tmp/tex.out")"
    [ "$(grep -c PASS "$tmp/tex.out")" -eq 16 ] || fail "exec_capi texture $t: not 16 checks"
    grep -q "kernel tex2d, block 0, thread 0, pc 0x[0-9a-f]*: tex: handle 0x[0-9a-f]* names no texture object" "$tmp/tex.err" ||
        fail "exec_capi texture $t: no message naming the bad handle"
done

# the same output bytes with and without timing, and on another GPU
"$SMSIM" exec -q --no-timing -- "$EXEC_CAPI" plain >"$tmp/nt.out" 2>/dev/null
cmp -s "$tmp/plain.out" "$tmp/nt.out" || fail "exec_capi: --no-timing prints something else"
"$SMSIM" exec -q --config a100 -- "$EXEC_CAPI" zstd >"$tmp/a100.out" 2>/dev/null
cmp -s "$tmp/plain.out" "$tmp/a100.out" || fail "exec_capi: the A100 prints something else"

# the report: kernels, the timeline with the host link's copies, JSON
"$SMSIM" exec --stats-json "$tmp/s.json" -- "$EXEC_CAPI" plain >/dev/null 2>"$tmp/report"
grep -q "^smsim exec: h100 (NVIDIA H100 SXM5 80GB): 3 kernel launches" "$tmp/report" ||
    fail "exec report: no header line with 3 launches (vscale, heapk, the faulting vscale)"
grep -q "^kernel 0: vscale" "$tmp/report" || fail "exec report: no kernel summary"
grep -q "copy host to device, 4000 bytes" "$tmp/report" || fail "exec report: no copy in the timeline"
# 4000 bytes over PCIe 5.0 x16 (63 GB/s): 0.063 us
grep -q "0.063  copy host to device, 4000 bytes" "$tmp/report" ||
    fail "exec report: a 4000-byte copy does not take 4000 / 63 GB/s"
grep -q '"cycles": [1-9]' "$tmp/s.json" || fail "exec --stats-json: no cycles"
# --sample is run's: sim.sample on, each kernel's report says whether it was sampled
"$SMSIM" exec --sample -- "$EXEC_CAPI" plain >"$tmp/sm.out" 2>"$tmp/sm.err" || fail "exec --sample"
grep -q "^  sampled       no, simulated in full" "$tmp/sm.err" || fail "exec --sample: no sampling line"
cmp -s "$tmp/plain.out" "$tmp/sm.out" || fail "exec --sample: the program prints something else"
# the same statistics and windows for -j 1 and -j 2
for j in 1 2; do
    "$SMSIM" exec -q -j $j --stats-json "$tmp/j$j.json" --windows 200 --windows-out "$tmp/w$j.csv" \
        -- "$EXEC_CAPI" plain >/dev/null 2>&1 || fail "exec -j $j"
done
cmp -s "$tmp/j1.json" "$tmp/j2.json" || fail "exec: -j 2 gives other statistics than -j 1"
cmp -s "$tmp/w1.csv" "$tmp/w2.csv" || fail "exec: -j 2 gives other windows than -j 1"
[ "$(wc -l <"$tmp/w1.csv")" -gt 2 ] || fail "exec --windows: no windows written"

# launch sampling (sim.sample_launches): 40 launches of one shape, most of
# them estimated; the program prints the same bytes as with every launch
# simulated, and the kernels' time is within 1 % of that run's
"$SMSIM" exec --stats-json "$tmp/r3.json" -- "$EXEC_CAPI" repeat >"$tmp/r3.out" 2>"$tmp/r3.err" ||
    { fail "exec_capi repeat"; cat "$tmp/r3.out" "$tmp/r3.err" >&2; }
"$SMSIM" exec --set sim.sample_launches=0 -- "$EXEC_CAPI" repeat >"$tmp/r0.out" 2>"$tmp/r0.err" ||
    fail "exec_capi repeat, every launch simulated"
cmp -s "$tmp/r3.out" "$tmp/r0.out" || fail "launch sampling changes what the program prints"
grep -q "counter 4000000" "$tmp/r3.out" || fail "launch sampling: not every launch ran"
grep -q "40 kernel launches (3[0-9] estimated)" "$tmp/r3.err" ||
    fail "launch sampling: the header does not say how many launches were estimated"
grep -q "40 kernel launches (0 estimated)" "$tmp/r0.err" ||
    fail "sim.sample_launches=0: launches were estimated"
grep -q "kernel vscale ([0-9]* cycles, estimated: launch sampling)" "$tmp/r3.err" ||
    fail "launch sampling: the timeline does not mark the estimated launches"
grep -q '"launches_estimated": 3[0-9]' "$tmp/r3.json" ||
    fail "launch sampling: --stats-json has no exec.launches_estimated"
# launch sampling of warps that poll an mbarrier: their failed polls (many
# more timed than functional) are not work; kernels within 1 % again
"$SMSIM" exec -- "$EXEC_CAPI" spin >"$tmp/s3.out" 2>"$tmp/s3.err" ||
    { fail "exec_capi spin"; cat "$tmp/s3.out" "$tmp/s3.err" >&2; }
"$SMSIM" exec --set sim.sample_launches=0 -- "$EXEC_CAPI" spin >"$tmp/s0.out" 2>"$tmp/s0.err" ||
    fail "exec_capi spin, every launch simulated"
grep -q "30 kernel launches (2[0-9] estimated)" "$tmp/s3.err" ||
    fail "launch sampling of polling warps: fewer than 20 of 30 launches estimated"
# replayed launches (sim.replay_launches): 24 launches of c = 2 a, whose
# results the program checks, print the same with and without replay and
# count the same work; untimed, 19 are replayed (round 1: all but the
# first, which also makes the device heap; round 2: all but the first;
# round 3, new data: all but the first two), timed some of the estimated
for t in "" "--no-timing"; do
    "$SMSIM" exec $t --stats-json "$tmp/rp1.json" -- "$EXEC_CAPI" replay >"$tmp/rp1.out" \
        2>"$tmp/rp1.err" || { fail "exec_capi replay $t"; cat "$tmp/rp1.out" "$tmp/rp1.err" >&2; }
    "$SMSIM" exec $t --set sim.replay_launches=false -- "$EXEC_CAPI" replay >"$tmp/rp0.out" \
        2>"$tmp/rp0.err" || fail "exec_capi replay $t, sim.replay_launches=false"
    cmp -s "$tmp/rp1.out" "$tmp/rp0.out" || fail "replay $t changes what the program prints"
    grep -q "FAIL" "$tmp/rp1.out" && fail "exec_capi replay $t: $(grep FAIL "$tmp/rp1.out")"
    grep -q "replayed" "$tmp/rp0.err" && fail "sim.replay_launches=false: launches replayed"
done
grep -q "^smsim exec: 19 functional launches replayed" "$tmp/rp1.err" ||
    fail "replay --no-timing: not 19 launches replayed ($(grep replayed "$tmp/rp1.err"))"
[ "$(grep "executed functionally" "$tmp/rp1.err" | sed 's/ (with.*//')" = \
  "$(grep "executed functionally" "$tmp/rp0.err")" ] ||
    fail "replay --no-timing: other totals than executing every launch"
"$SMSIM" exec --stats-json "$tmp/rp1.json" -- "$EXEC_CAPI" replay >/dev/null 2>"$tmp/rp1.err"
grep -q '"launches_replayed": 1[0-9]' "$tmp/rp1.json" ||
    fail "replay: --stats-json has no exec.launches_replayed of 10 or more"
# a cudaFree after the runtime's exit handler (a C++ global's destructor):
# cudaErrorCudartUnloading (4), no second set-up, one report
"$SMSIM" exec -- "$EXEC_CAPI" late >"$tmp/late.out" 2>"$tmp/late.err" ||
    { fail "exec_capi late"; cat "$tmp/late.out" "$tmp/late.err" >&2; }
grep -q "^late cudaFree: 4$" "$tmp/late.out" ||
    fail "a cudaFree after shut-down: not cudaErrorCudartUnloading ($(tail -1 "$tmp/late.out"))"
[ "$(grep -c "^smsim exec: h100" "$tmp/late.err")" -eq 1 ] ||
    fail "a cudaFree after shut-down set the runtime up again (more than one report)"
# estimated launches run functionally in the block storage that simulated
# launches of the kernel left, laid out for the timing model's lowering
"$SMSIM" exec -- "$EXEC_CAPI" reuse >"$tmp/ru.out" 2>"$tmp/ru.err" ||
    { fail "exec_capi reuse"; cat "$tmp/ru.out" "$tmp/ru.err" >&2; }
grep -q "8 kernel launches ([1-9] estimated)" "$tmp/ru.err" ||
    fail "exec_capi reuse: no launch was estimated"
kus() { sed -n 's/.*(kernels \([0-9.]*\) us.*/\1/p' "$1"; }
awk -v a="$(kus "$tmp/r3.err")" -v b="$(kus "$tmp/r0.err")" \
    'BEGIN { d = (a - b) / b; exit !(b > 0 && d < 0.01 && d > -0.01) }' ||
    fail "launch sampling: kernels $(kus "$tmp/r3.err") us against $(kus "$tmp/r0.err") us simulated"
awk -v a="$(kus "$tmp/s3.err")" -v b="$(kus "$tmp/s0.err")" \
    'BEGIN { d = (a - b) / b; exit !(b > 0 && d < 0.01 && d > -0.01) }' ||
    fail "launch sampling, polling warps: kernels $(kus "$tmp/s3.err") us against $(kus "$tmp/s0.err") us simulated"

# a program linked with a closed NVIDIA library is told so by name (a stand-in
# libcublas.so.13 here: the runtime recognises the name, not the contents)
CC=${CC:-cc}
if [ -n "${SMSIM_SANITIZED:-}" ]; then
    echo "exec.sh: SKIP the closed-library check under the sanitizers (its program is not instrumented)"
elif printf 'int cublas_stand_in;\n' >"$tmp/blas.c" && printf 'int main(void) { return 0; }\n' >"$tmp/useblas.c" &&
   "$CC" -shared -fPIC -o "$tmp/libcublas.so.13" -Wl,-soname,libcublas.so.13 "$tmp/blas.c" 2>/dev/null &&
   "$CC" -o "$tmp/useblas" "$tmp/useblas.c" -Wl,--no-as-needed "$tmp/libcublas.so.13" \
       "$(dirname "$SMSIM")/cudart/libcudart.so.13" -Wl,-rpath,"$tmp" 2>/dev/null; then
    "$SMSIM" exec -q -- "$tmp/useblas" 2>"$tmp/blas.err" || fail "exec of a cuBLAS program: exit status"
    grep -q "unsupported: the program is linked with libcublas.so.13, NVIDIA's cuBLAS" "$tmp/blas.err" ||
        fail "exec: a program linked with cuBLAS is not told so"
else
    echo "exec.sh: SKIP the closed-library check: $CC cannot build the stand-in"
fi

# usage and input errors
"$SMSIM" exec -q -- "$tmp/no-such-program" 2>"$tmp/e1"
[ $? -eq 2 ] || fail "exec of a missing program: exit status not 2"
grep -q "cannot run" "$tmp/e1" || fail "exec of a missing program: no message"
"$SMSIM" exec --config no-such-gpu -- true 2>/dev/null
[ $? -eq 2 ] || fail "exec --config no-such-gpu: exit status not 2"
"$SMSIM" exec 2>/dev/null
[ $? -eq 1 ] || fail "exec without a program: exit status not 1"

# 2. the CUDA programs, where nvcc is
# NVCC set and empty (NVCC= make check) runs the suite as a machine without nvcc would
NVCC=${NVCC-$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)}
if [ -z "$NVCC" ]; then
    echo "exec.sh: SKIP the CUDA programs of tests/cuda: no nvcc (the C-level runtime tests ran)"
elif [ -n "${SMSIM_SANITIZED:-}" ]; then
    echo "exec.sh: SKIP the CUDA programs of tests/cuda under the sanitizers (not instrumented)"
else
    flags="-cudart shared -gencode arch=compute_90,code=compute_90"
    run() {         # run NAME [ARG]: exit 0 and a PASS line
        name=$1; shift
        if ! "$SMSIM" exec -q -- "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
            fail "$name $*: exit status $?"; cat "$tmp/$name.out" "$tmp/$name.err" >&2
        elif ! grep -q "^PASS" "$tmp/$name.out"; then
            fail "$name $*: no PASS line"; cat "$tmp/$name.out" >&2
        fi
    }
    for f in "$srcdir"/tests/cuda/*.cu; do
        name=$(basename "$f" .cu)
        case $name in two_modules_b|rdc_lib) continue ;; esac
        src=$f
        [ "$name" = two_modules_a ] && name=two_modules && src="$f $srcdir/tests/cuda/two_modules_b.cu"
        extra=
        [ "$name" = per_thread ] && extra="--default-stream per-thread"   # the _ptds/_ptsz calls
        [ "$name" = cub_thrust ] && extra="--extended-lambda"             # a __device__ lambda
        # separate compilation: two units' relocatable PTX, linked by the runtime
        [ "$name" = rdc_main ] && extra="-rdc=true" && src="$f $srcdir/tests/cuda/rdc_lib.cu"
        # shellcheck disable=SC2086
        "$NVCC" $flags $extra -o "$tmp/$name" $src >"$tmp/$name.nvcc" 2>&1 ||
            { fail "nvcc $name"; cat "$tmp/$name.nvcc" >&2; continue; }
        run "$name"
    done
    # device debug builds (-G: .loc lines, a function's own __shared__, isspacep,
    # long template names) compute the same
    for name in cluster tma_tensor_map intrinsics libcxx; do
        "$NVCC" $flags -G -o "$tmp/$name-G" "$srcdir/tests/cuda/$name.cu" >"$tmp/$name-G.nvcc" 2>&1 ||
            { fail "nvcc -G $name"; cat "$tmp/$name-G.nvcc" >&2; continue; }
        run "$name-G"
    done
    run printf_assert assert
    grep -q "Assertion .x\[threadIdx.x\] > 0' failed (block 0, thread 5)" "$tmp/printf_assert.err" ||
        fail "printf_assert: the assertion's message is missing"
    [ "$(grep -c "^hello from block" "$tmp/printf_assert.out")" -eq 4 ] ||
        fail "printf_assert: device printf did not print 4 lines"
    # a failed launch is said again when the program ends, even under -q
    grep -q "^smsim exec: 1 kernel launch failed; the first: .*Assertion" "$tmp/printf_assert.err" ||
        fail "printf_assert: no closing line for the failed launch"
fi

[ "$fails" -eq 0 ] && echo "exec.sh: all passed"
exit "$fails"
