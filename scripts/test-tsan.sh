#!/usr/bin/env bash
# The subscription contract under ThreadSanitizer, through the C ABI: the C drivers (built with the toolchain's
# clang -fsanitize=thread) and the Python suite (with the TSan runtime and libdispatch preloaded).
set -euo pipefail
libdir=$(cd "${1:?usage: test-tsan.sh TSAN_LIBDIR PYTHON}" && pwd)
python=${2:-python3}
top=$(cd "$(dirname "$0")/.." && pwd)
toolchain=$(dirname "$(dirname "$(command -v swift)")")
runtime=$toolchain/lib/swift/clang/lib/linux/libclang_rt.tsan-x86_64.so
dispatch=$toolchain/lib/swift/linux/libdispatch.so
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66 suppressions=$top/scripts/tsan.supp"

"$top/scripts/test-tsan-c.sh" "$libdir"

echo "test-tsan: Python suite against the TSan library"
# pytest captures file descriptor 2, and a report ends the process (halt_on_error) before pytest shows what it
# captured: the reports go to files of their own, printed here. Bounded (20 min, four times its usual length): a
# worker a report ended has been seen to leave pytest-xdist waiting for it forever.
reports=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-tsan-py.XXXXXX")
trap 'rm -rf "$reports"' EXIT
status=0
TSAN_OPTIONS="$TSAN_OPTIONS log_path=$reports/report" LD_PRELOAD="$runtime $dispatch" \
    VOICENOTE_LIBRARY="$libdir/libvoicenote.so" VOICENOTE_CLI="$top/build/bin/voicenote" \
    timeout --kill-after=30 1200 "$python" -m pytest -q -p no:cacheprovider ${VOICENOTE_PYTEST_ARGS:-} \
    "$top/bindings/python/tests" || status=$?
if compgen -G "$reports/report*" >/dev/null; then
    cat "$reports"/report*
    echo "test-tsan: ThreadSanitizer report(s) above"
    status=1
fi
exit $status
