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
echo "== recording it through a virtual ALSA microphone (the file plugin), 3 s, to Ogg Opus"
sox "$tmp/note.wav" -t raw -e signed-integer -b 16 -L -c 1 -r 48000 "$tmp/mic.raw" pad 0 1
mic="pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"$tmp/mic.raw\" format raw }"
"$build/bin/voicenote" record --device vn_mic --device-config "$mic" --duration 3 -o "$tmp/recorded.ogg" --progress none
"$build/bin/voicenote" info "$tmp/recorded.ogg" --json
COLUMNS=${COLUMNS:-100} "$build/bin/voicenote" waveform "$tmp/recorded.ogg" --format bars
echo "== its voiceRecording attachment payload (the JSON a chat message carries)"
"$build/bin/voicenote" attachment "$tmp/recorded.ogg" --title "Recording" --compact
