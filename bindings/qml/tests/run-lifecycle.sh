#!/bin/bash
# Runs the lifecycle test (lifecycle.cpp) built with AddressSanitizer in $1 (build/qml-asan, by `make test-qml-asan`)
# under LeakSanitizer: any error or leak fails it. [ROUNDS] as $2 (default 1000).
# - A note minutes long (sox, opusenc) for the engines torn down while it plays: the virtual speaker is unpaced, and a
#   long note is still playing when the engine goes.
# - Offscreen (QT_QPA_PLATFORM=offscreen): the test makes and destroys, nothing needs drawing, and Mesa's OpenGL
#   under ASan would only add allocations of its own. No leak suppressions are needed (none of Qt, fontconfig or Mesa
#   shows up offscreen); ASan's default fast unwinder records the stacks (its slow one deadlocks beside GTK's
#   threads, bindings/gtk/README.md; not needed here).
# Caches and data go to a directory of the run's own, never the user's; bounded by a timeout.
set -euo pipefail
out=${1:?usage: run-lifecycle.sh BUILD_QML_ASAN_DIR [ROUNDS]}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-qml-lifecycle.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
sox -n -r 48000 -c 1 -b 16 -e signed-integer "$scratch/long.wav" synth 120 sine 300 vol 0.3
opusenc --quiet "$scratch/long.wav" "$scratch/long.ogg"
XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch" QT_QPA_PLATFORM=offscreen \
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
	timeout 120 "$out/tests/voicenote-qml-lifecycle" "$scratch/long.ogg" "${2:-1000}"
