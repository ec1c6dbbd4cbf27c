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
echo "== a spoken voice note (espeak-ng → opusenc), its facts and waveform"
espeak-ng -w "$tmp/note.wav" "Hey, it's me. I'm just leaving the office now. See you at seven." 2>/dev/null
opusenc --quiet --bitrate 32 --framesize 20 "$tmp/note.wav" "$tmp/note.ogg"
"$build/bin/voicenote" info "$tmp/note.ogg"
COLUMNS=${COLUMNS:-100} "$build/bin/voicenote" waveform "$tmp/note.ogg" --format bars
"$build/bin/voicenote" waveform "$tmp/note.ogg" --samples 20
echo "== the same through the C API (bindings/c/waveform.c)"
cc -std=c99 -Wall -Wextra -I"$top/include" "$top/bindings/c/waveform.c" -L"$build/lib" -lvoicenote \
    -Wl,-rpath,"$build/lib" -o "$tmp/waveform"
"$tmp/waveform" "$tmp/note.ogg" 20
