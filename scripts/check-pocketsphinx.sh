#!/bin/bash
# Compiles voicenote's own declarations of the PocketSphinx functions it calls (Sources/CPocketSphinxLoader/include/
# pocketsphinx_functions.h, repeated because SwiftPM cannot put pocketsphinx.h's directory on the search path) against
# PocketSphinx's real header: each function's type must be the header's, or this fails to compile.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/check.c" <<'C'
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#define VNPS(type, name, parameters, arguments) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), type(*) parameters), #name " differs from the header");
#include "pocketsphinx_functions.h"
int main(void) { return 0; }
C
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -std=gnu11 -Wall -Werror -fsyntax-only $(pkg-config --cflags pocketsphinx sphinxbase) \
    -I"$top/Sources/CPocketSphinxLoader/include" "$work/check.c"
echo "check-pocketsphinx: voicenote's declarations match pocketsphinx.h"
