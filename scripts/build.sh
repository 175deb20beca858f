#!/bin/sh
# build.sh - set up, build and run smsim on Debian 12 (the README's two commands).
#
#   scripts/build.sh demo    install what is missing, build, simulate a bundled kernel
#                            (HotSpot, from its PTX) on the H100
#   scripts/build.sh check   install what is missing, build, run every test (make check),
#                            then build again with ASan+UBSan in build-san/ and run the
#                            Check suites and the robustness tests there
#                            (make check-sanitizer; SMSIM_NO_SANITIZER=1 skips it)
#   scripts/build.sh build   install what is missing and build only
#
# Safe to re-run: packages are installed only when missing (apt-get needs
# root), the out-of-tree build in build/ is reused and brought up to date.
# Extra configure options can be given in SMSIM_CONFIGURE_FLAGS.
set -eu
cd "$(dirname "$0")/.."

PKGS="build-essential autoconf automake pkg-config zlib1g-dev libxxhash-dev liblzma-dev liblz4-dev libzstd-dev check python3 gnuplot-nox valgrind"

deps() {
    missing=""
    for p in $PKGS; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "build.sh: these Debian packages are missing:$missing" >&2
        echo "build.sh: run as root (or install them) and try again" >&2
        exit 1
    fi
    echo "build.sh: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
}

# build [DIR [CONFIGURE FLAGS...]]: configure (once) and build in DIR (default build).
build() {
    dir=${1:-build}
    [ $# -gt 0 ] && shift
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
        autoreconf -fi
    fi
    mkdir -p "$dir"
    if [ ! -f "$dir/Makefile" ]; then
        # shellcheck disable=SC2086
        (cd "$dir" && ../configure --enable-werror "$@" ${SMSIM_CONFIGURE_FLAGS:-})
    fi
    make -C "$dir" -j"$(nproc)"
}

case "${1:-}" in
demo)
    deps
    build
    echo
    echo "== build/smsim run --config h100 --launch traces/hotspot.launch"
    ./build/smsim run --config h100 --launch traces/hotspot.launch
    ;;
check)
    deps
    build
    if ! make -C build -j"$(nproc)" check; then
        cat build/test-suite.log 2>/dev/null || true
        exit 1
    fi
    if [ -z "${SMSIM_NO_SANITIZER:-}" ]; then
        echo "build.sh: the sanitizer pass (ASan + UBSan) in build-san/"
        build build-san --enable-asan --enable-ubsan
        if ! make -C build-san -j"$(nproc)" check-sanitizer; then
            cat build-san/test-suite.log 2>/dev/null || true
            exit 1
        fi
    fi
    ;;
build)
    deps
    build
    ;;
*)
    echo "usage: scripts/build.sh demo|check|build" >&2
    exit 1
    ;;
esac
