#!/bin/sh
# run.sh - build the libFuzzer harnesses and run each for a set time
# (`make fuzz`; doc/robustness.md).
#
#   tests/fuzz/run.sh build            build only, into $FUZZ_DIR (default ./fuzz)
#   tests/fuzz/run.sh [run] [NAME...]  build, then fuzz each harness (all by
#                                      default: smt accelsim ptx config launch
#                                      difftest)
#   tests/fuzz/run.sh replay [NAME...] build, then run each harness once over its
#                                      seed corpus and regression crashers only
#
# difftest is not a libFuzzer harness but the differential tester of the
# sm_90 lowering ($DIFFTEST, the build's tests/difftest): run, it checks
# random programs for FUZZ_TIME seconds (FUZZ_RUNS programs, if set) from a
# seed taken from the clock; replayed, the 1500 programs of make check.  It
# needs no clang.
#
# Environment: FUZZ_CC (clang), FUZZ_TIME (seconds per harness, default 60),
# FUZZ_RUNS (stop after this many executions instead, 0 = no limit),
# FUZZ_FLAGS (extra libFuzzer flags), FUZZ_DIR (build and working directory),
# FUZZ_DEFS / FUZZ_LIBS (the preprocessor defines and libraries configure
# found; make fuzz passes them), srcdir (the source tree).
#
# The library sources are compiled again with clang and
# -fsanitize=fuzzer-no-link,address,undefined so the fuzzer sees their
# coverage; a harness stops at the first crash, leak, timeout (10 s an
# input) or sanitizer report and leaves the input in $FUZZ_DIR/NAME/.
set -eu

srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${FUZZ_CC:-clang}
FUZZ_DIR=${FUZZ_DIR:-fuzz}
FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_RUNS=${FUZZ_RUNS:-0}
[ "$FUZZ_RUNS" -gt 0 ] || FUZZ_RUNS=-1     # libFuzzer: -1 = no limit, 0 = only the corpus
FUZZ_FLAGS=${FUZZ_FLAGS:-}
DEFS=${FUZZ_DEFS:--DPACKAGE_VERSION=\"fuzz\" -DHAVE_LZMA=1}
LIBS=${FUZZ_LIBS:--lz -lxxhash -llzma}
ALL="smt accelsim ptx config launch difftest"
HARNESSES="smt accelsim ptx config launch"
DIFFTEST=${DIFFTEST:-}

# The differential tester: run or replay (see above).
difftest() {
    if [ -z "$DIFFTEST" ] || [ ! -x "$DIFFTEST" ]; then
        echo "make fuzz: difftest needs the build's tests/difftest (DIFFTEST=$DIFFTEST)" >&2
        return 1
    fi
    mkdir -p "$FUZZ_DIR/difftest"
    if [ "$1" = replay ]; then
        echo "== difftest: the programs of make check"
        (cd "$FUZZ_DIR/difftest" && SMSIM_PTXAS=none "$DIFFTEST" --seed 1 --count 1500 --quiet)
    else
        seed=$(( $(date +%s) % 1000000 * 1000000 ))
        echo "== difftest: $FUZZ_TIME s from seed $seed"
        count=""
        [ "$FUZZ_RUNS" -gt 0 ] && count="--count $FUZZ_RUNS"
        # shellcheck disable=SC2086
        (cd "$FUZZ_DIR/difftest" && SMSIM_PTXAS=none "$DIFFTEST" --seed "$seed" --time "$FUZZ_TIME" $count)
    fi
}

mode=run
case "${1:-}" in
build|run|replay) mode=$1; shift ;;
esac
names=${*:-$ALL}
case " $names " in
*" smt "*|*" accelsim "*|*" ptx "*|*" config "*|*" launch "*) need_cc=1 ;;
*) need_cc=0 ;;
esac
[ "$mode" = build ] && need_cc=1

if [ "$need_cc" = 1 ] && ! command -v "$CC" >/dev/null 2>&1; then
    echo "make fuzz: needs clang with libFuzzer (Debian: apt-get install clang); FUZZ_CC=$CC not found" >&2
    exit 1
fi

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-std=c11 -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DSIM_DEBUGLEVEL=1 -g -O1 \
-fno-omit-frame-pointer -I$srcdir -DSMSIM_SRCDIR=\"$srcdir\" -DSMSIM_DATADIR=\"$srcdir\" $DEFS"

# Compile one source into an object unless the object is newer.
compile() {
    src=$1 obj=$2 extra=$3
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$srcdir/sim" "$srcdir/frontend" \
            "$srcdir/tests/fuzz" -name '*.[hd]*' -newer "$obj" 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        "$CC" $CFLAGS $SAN $extra -c "$src" -o "$obj"
    fi
}

build() {
    mkdir -p "$FUZZ_DIR/obj"
    objs=""
    for s in "$srcdir"/sim/*.c "$srcdir"/frontend/*.c "$srcdir"/frontend/*/*.c "$srcdir/tests/fuzz/fuzz_common.c"; do
        o="$FUZZ_DIR/obj/$(basename "$s" .c).o"
        compile "$s" "$o" -fsanitize=fuzzer-no-link
        objs="$objs $o"
    done
    for n in $HARNESSES; do
        o="$FUZZ_DIR/obj/fuzz_$n.o"
        compile "$srcdir/tests/fuzz/fuzz_$n.c" "$o" -fsanitize=fuzzer-no-link
        # shellcheck disable=SC2086
        "$CC" $SAN -fsanitize=fuzzer -o "$FUZZ_DIR/fuzz_$n" "$o" $objs $LIBS -lm
    done
}

maxlen() {
    case $1 in
    smt) echo 4096 ;;
    accelsim|ptx) echo 8192 ;;
    *) echo 2048 ;;
    esac
}

[ "$need_cc" = 1 ] && build
[ "$mode" = build ] && exit 0
status=0
for n in $names; do
    if [ "$n" = difftest ]; then
        difftest "$mode" || status=1
        continue
    fi
    dict=""
    [ -f "$srcdir/tests/fuzz/$n.dict" ] && dict="-dict=$srcdir/tests/fuzz/$n.dict"
    if [ "$mode" = replay ]; then
        echo "== fuzz_$n: replaying the seeds and regression inputs"
        dirs="$srcdir/tests/fuzz/corpus/$n"
        [ -d "$srcdir/tests/fuzz/crashers/$n" ] && dirs="$dirs $srcdir/tests/fuzz/crashers/$n"
        # shellcheck disable=SC2086
        if "$FUZZ_DIR/fuzz_$n" -runs=0 $dirs > "$FUZZ_DIR/replay-$n.log" 2>&1; then
            tail -n 1 "$FUZZ_DIR/replay-$n.log"
        else
            tail -n 30 "$FUZZ_DIR/replay-$n.log"
            status=1
        fi
        continue
    fi
    echo "== fuzz_$n: $FUZZ_TIME s, max_len $(maxlen "$n")"
    # the grown corpus lives in $FUZZ_DIR/NAME/corpus; the committed seeds are read only
    mkdir -p "$FUZZ_DIR/$n/corpus"
    # shellcheck disable=SC2086,SC2046
    (cd "$FUZZ_DIR/$n" && "../fuzz_$n" -max_total_time="$FUZZ_TIME" -runs="$FUZZ_RUNS" \
        -max_len="$(maxlen "$n")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        $dict $FUZZ_FLAGS corpus "$srcdir/tests/fuzz/corpus/$n") || status=1
done
exit $status
