#!/usr/bin/env bash
# Runs the C contract tests (bindings/c/tests) and the C++ layer's tests (bindings/cpp/tests) under ThreadSanitizer
# against the TSan-built library:
#   scripts/test-tsan-c.sh TSAN_LIBDIR        (e.g. build/tsan/lib, from `make tsan-so`)
# The tests are built with the Swift toolchain's clang and -fsanitize=thread, which links the TSan runtime into
# each test executable; the library (built with `swift build --sanitize=thread`) uses that runtime. The static
# runtime carries TSan's libdispatch interceptors, so the executables also link the toolchain's libdispatch and
# BlocksRuntime (the library itself does not use Dispatch).
# Fails on a failing test or on any ThreadSanitizer report (halt_on_error=1 also stops the run at the first).
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 TSAN_LIBDIR" >&2
    exit 2
fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
libdir=$(realpath "$1")
clang=${TSAN_CC:-/opt/swift/usr/bin/clang}
[[ -f $libdir/libvoicenote.so ]] || { echo "test-tsan-c: no libvoicenote.so in $libdir (run 'make tsan-so')" >&2; exit 1; }
[[ -x $clang ]] || { echo "test-tsan-c: no clang at $clang (set TSAN_CC)" >&2; exit 1; }

toolchain_libs=$(cd "$(dirname "$clang")/../lib/swift/linux" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-tsan-c.XXXXXX")
trap 'rm -rf "$out"' EXIT

# second_deadlock_stack: full stacks for lock-order reports. Anything the caller adds comes after ours.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
echo "== C tests under ThreadSanitizer ($libdir, $clang, TSAN_OPTIONS=$TSAN_OPTIONS)"
status=0
make -j"$(nproc)" -C "$repo/bindings/c/tests" run CC="$clang" EXTRA_CFLAGS="-fsanitize=thread -g" LIBDIR="$libdir" \
    EXTRA_LDFLAGS="-L$toolchain_libs -ldispatch -lBlocksRuntime -Wl,-rpath,$toolchain_libs" \
    INCDIR="$repo/include" OUT="$out/bin" TIMEOUT="${TSAN_TIMEOUT:-120}" 2>&1 | tee "$out/log" || status=$?

# The C++ layer's thread tests too, with the toolchain's clang++ (which also compiles every part of voicenote.hpp
# with -Werror here): its subscriptions and event loops, and a program recording and playing on two threads while a
# third subscribes. (make test-cpp runs every C++ test with g++.)
echo "== C++ thread tests under ThreadSanitizer ($libdir, ${clang}++)"
make -j"$(nproc)" -C "$repo/bindings/cpp/tests" run TESTS="core threads" CXXS="${clang}++" EXTRA_CXXFLAGS="-fsanitize=thread -g" LIBDIR="$libdir" \
    EXTRA_LDFLAGS="-L$toolchain_libs -ldispatch -lBlocksRuntime -Wl,-rpath,$toolchain_libs" \
    INCDIR="$repo/include" OUT="$out/cpp" TIMEOUT="${TSAN_TIMEOUT:-120}" 2>&1 | tee -a "$out/log" || status=$?

reports=$(grep -c 'WARNING: ThreadSanitizer' "$out/log" || true)
if [[ $reports -gt 0 ]]; then
    echo "test-tsan-c: $reports ThreadSanitizer report(s) above"
    status=1
fi
if [[ $status -ne 0 ]]; then
    echo "test-tsan-c: FAILED"
    exit 1
fi
echo "test-tsan-c: passed, no ThreadSanitizer reports"
