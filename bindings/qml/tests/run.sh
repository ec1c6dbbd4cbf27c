#!/bin/bash
# Lints tests/TypesInUse.qml against the module built in $1 (build/qml), then runs its Qt Quick Test suites on a
# virtual X server (Xvfb: Mesa's OpenGL draws the waveform's geometry nodes, Qt Quick's software renderer does not),
# within a time bound.
# Caches and data (resume positions, drafts) go to a directory of the run's own, never the user's; screenshots to
# $1/test-output.
set -euo pipefail
out=${1:?usage: run.sh BUILD_QML_DIR}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-qml-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The module's .qmltypes describe every type: a file using them all is lint-clean (qmllint fails on any warning).
/usr/lib/qt6/bin/qmllint -I "$out" "$(dirname "$0")/TypesInUse.qml"
rm -rf "$out/test-output"
mkdir -p "$out/test-output"
XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch" \
	VOICENOTE_QML_TEST_OUTPUT="$out/test-output" QT_QPA_PLATFORM=xcb \
	timeout 300 xvfb-run -a -s "-screen 0 1024x768x24" "$out/tests/voicenote-qml-tests" "${@:2}"
