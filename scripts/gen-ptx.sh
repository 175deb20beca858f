#!/bin/sh
# gen-ptx.sh - regenerate the committed PTX of the kernel suite (`make ptx`).
#
# Every CUDA source under the given directories (default: traces/src,
# traces/micro, traces/ubench, traces/sm90 and tests/ptx) names its own compile line in a comment of the form
#     // PTX: nvcc -ptx -arch=sm_75 NAME.cu ...
# This script runs that line (with $NVCC in place of "nvcc") in the
# source's directory and writes NAME.ptx beside it.  A source may have
# several such lines, each ending in "-o FILE.ptx" (one PTX file per
# target: tests/ptx/conform.cu); each is run and writes its FILE.  The
# generated PTX is committed so that builds and tests never need nvcc.
set -eu
NVCC=${NVCC:-nvcc}
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$here/traces/src" "$here/traces/micro" "$here/traces/ubench" "$here/traces/sm90" "$here/tests/ptx"
n=0
for d in "$@"; do
    for cu in "$d"/*.cu; do
        [ -e "$cu" ] || continue
        name=$(basename "$cu" .cu)
        # the "PTX: nvcc ..." comments: the arguments up to the .cu name,
        # and the output after -o (NAME.ptx when there is none)
        lines=$(sed -n 's|^// PTX: nvcc \(.*\)$|\1|p' "$cu")
        if [ -z "$lines" ]; then
            echo "gen-ptx: $cu: no '// PTX: nvcc ...' line" >&2
            exit 2
        fi
        printf '%s\n' "$lines" | while IFS= read -r line; do
            args=$(printf '%s\n' "$line" | sed "s|$name\.cu.*||")
            out=$(printf '%s\n' "$line" | sed -n 's|.* -o \([^ ]*\).*|\1|p')
            [ -n "$out" ] || out=$name.ptx
            echo "  NVCC  $cu -> $out"
            # shellcheck disable=SC2086
            (cd "$(dirname "$cu")" && "$NVCC" $args -o "$out" "$name.cu")
        done
        n=$((n + 1))
    done
done
echo "gen-ptx: regenerated $n PTX files"
