#!/usr/bin/env bash
# The main job. For now (foundation) a smoke run of the CLI and the library through C; the demo issue makes it
# `voicenote demo`: record, waveform, attachment, playback on a machine with no sound card.
set -euo pipefail
build=$(cd "${1:?usage: run-main-job.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
echo "== voicenote --version"
"$build/bin/voicenote" --version
echo "== voicenote version --json"
"$build/bin/voicenote" version --json
echo "== the C sample bindings/c/version.c against build/lib"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -std=c99 -Wall -Wextra -I"$top/include" "$top/bindings/c/version.c" -L"$build/lib" -lvoicenote \
    -Wl,-rpath,"$build/lib" -o "$tmp/version"
"$tmp/version"
