#!/usr/bin/env bash
# Checks the shipped binaries against the ABI contract: strict header, only vn_* exported under VOICENOTE_0,
# the SONAME, every declared function exported (and nothing else), no Swift runtime library needed, FFmpeg not linked.
set -uo pipefail
build=${1:?usage: check-abi.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
so=$(readlink -f "$build/lib/libvoicenote.so")
cli=$build/bin/voicenote
passed=0 failed=0
check() {  # check NAME COMMAND...: runs COMMAND, counts the result
    local name=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo '#include "voicenote.h"' >"$tmp/h.c"

check "header compiles as strict C99" gcc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$top/include" "$tmp/h.c"
check "header compiles as strict C11 with clang-style warnings" gcc -std=c11 -Wall -Wextra -Wpedantic -Wstrict-prototypes -Werror -fsyntax-only -I"$top/include" "$tmp/h.c"
check "header compiles as C++11" g++ -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$top/include" "$tmp/h.c"

exports() { nm -D --defined-only --extern-only --without-symbol-versions "$so" | awk '$2 ~ /^[TDRBVWiu]$/ {print $3}' | sort; }
only_vn() { ! exports | grep -v '^vn_'; }
check "only vn_* symbols are exported" only_vn

declared() { gcc -E -P -I"$top/include" "$tmp/h.c" | grep -oE '\bvn_[a-z0-9_]+ *\(' | grep -v '_fn *($' | tr -d ' (' | sort -u; }
declared_match() {
    diff <(declared | grep -vE '^vn_[a-z_]+_fn$') <(exports) >"$tmp/diff" || { cat "$tmp/diff"; return 1; }
}
check "every declared function is exported, and nothing else" declared_match

# (nm output is captured before grep -q: with pipefail, grep quitting early makes nm fail with SIGPIPE)
versioned() { local symbols; symbols=$(nm -D --defined-only "$so"); ! grep ' T vn_' <<<"$symbols" | grep -qv '@@VOICENOTE_0'; }
check "every export carries the VOICENOTE_0 version node" versioned
soname() { readelf -d "$so" | grep -q 'SONAME.*\[libvoicenote.so.0\]'; }
check "SONAME is libvoicenote.so.0" soname
links() { [[ $(readlink "$build/lib/libvoicenote.so.0") == libvoicenote.so.0.* && $(readlink "$build/lib/libvoicenote.so") == libvoicenote.so.0 ]]; }
check "library symlinks .so -> .so.0 -> .so.0.x.y" links
no_swift_so() { ! ldd "$so" | grep -i swift; }
check "the .so needs no Swift runtime library" no_swift_so
no_swift_cli() { ! ldd "$cli" | grep -i swift; }
check "the CLI needs no Swift runtime library" no_swift_cli
no_foundation() { local symbols; symbols=$(nm "$so" 2>/dev/null); ! grep -q 'icu_' <<<"$symbols"; }
check "the .so does not carry Foundation's ICU" no_foundation
# The libraries opened with dlopen on first use (ARCHITECTURE.md): never a NEEDED entry, and their trampolines stay
# out of the dynamic symbol table, so they neither get exported nor bind to a host's own copy. FFmpeg (any format but
# Opus), libcurl (a URL: it and its ~30 dependencies), SQLite (an outbox), speexdsp (a take with voice cleanup),
# PocketSphinx (a transcript), sd-bus (MPRIS and the other players: libsystemd), libpulse (a stream role).
not_needed() { local dynamic; dynamic=$(readelf -d "$so" "$cli"); ! grep -E "NEEDED.*\[$1" <<<"$dynamic"; }
no_symbols() { local symbols; symbols=$(nm -D "$so" "$cli"); ! grep -E " $1" <<<"$symbols"; }
while IFS=';' read -r name library symbol; do
    check "$name is not linked (.so and CLI)" not_needed "$library"
    check "no $name symbol, defined or undefined, in the dynamic tables" no_symbols "$symbol"
done <<'LAZY'
FFmpeg;lib(av|sw)[a-z]*\.so;(av|swr)[a-z]*_
libcurl;libcurl;curl_
SQLite;libsqlite3;sqlite3_
speexdsp;libspeexdsp;speex_
PocketSphinx;lib(pocket)?sphinx;(ps_|cmd_ln_|logmath_|err_set)
sd-bus;libsystemd;sd_bus_
libpulse;libpulse;pa_
LAZY
cli_version() { [[ $("$cli" --version) == "$("$top/scripts/version.sh")" ]]; }
check "the CLI reports the header's version" cli_version

echo "check-abi: $passed passed, $failed failed"
((failed == 0))
