#!/bin/bash
# Runs the Qt Quick Test suites of the module Voicenote, whose build tree is $1 (build/qml: the module, the runner
# tests/voicenote-qml-tests and the suites' module VoicenoteTest). With VOICENOTE_QML_PREFIX set (`make test-qml`
# installs the product there first), the suites run against that installed prefix, as a client uses it: the module
# from PREFIX/lib/qt6/qml, the library from PREFIX/lib (tst_module.qml checks which were loaded); else against the
# build tree. Further arguments go to the runner (a suite or a function: then once, under Basic only).
# First qmllint, which fails on any warning, over every QML file: the controls, the chat example, a file using every
# type (tests/TypesInUse.qml) and the suites themselves (their singletons TestRig and UploadServer described by
# VoicenoteTest's .qmltypes). Then check-translations.sh: every qsTr() text in every catalogue (i18n/*.ts) translated.
# The suites run on a virtual X server (Xvfb: Mesa's OpenGL draws the waveform's geometry nodes, Qt Quick's software
# renderer does not), within a time bound: every suite under the Qt Quick Controls style `Basic`, the controls'
# suites again under `Fusion`, and under KDE's `org.kde.desktop` when it is installed for Qt 6 (Debian 12 has it for
# Qt 5 only: the run says it skipped it). They run in English (LANGUAGE=en) but translated_de.qml, run with
# LANGUAGE=de. Caches and data (resume positions, drafts) go to a directory of the run's own, never the user's;
# screenshots to $1/test-output (the controls' under another style to $1/test-output/STYLE). Then the QML chat
# example, built in $1/../qml-chat, driven by chat_example.py.
set -euo pipefail
out=${1:?usage: run.sh BUILD_QML_DIR}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-qml-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
tests=$(dirname "$0")
example=$tests/../../cpp/examples/qml
import_path=$out
library_path=()
if [ -n "${VOICENOTE_QML_PREFIX:-}" ]; then
	import_path=$VOICENOTE_QML_PREFIX/lib/qt6/qml
	[ -f "$import_path/Voicenote/qmldir" ] || { echo "run.sh: no module Voicenote in $import_path"; exit 1; }
	library_path=(VOICENOTE_QML_IMPORT_PATH="$import_path" LD_LIBRARY_PATH="$VOICENOTE_QML_PREFIX/lib")
	echo "run.sh: the suites run against the installed prefix $VOICENOTE_QML_PREFIX"
fi
# The module's .qmltypes describe every type, VoicenoteTest's the suites' singletons: all lint-clean.
/usr/lib/qt6/bin/qmllint -I "$import_path" -I "$out/tests" "$tests/TypesInUse.qml" "$tests"/*.qml "$tests"/../*.qml \
	"$example/Main.qml"
# Every qsTr() text of the controls translated in every catalogue (i18n/*.ts), none unfinished or left over.
"$tests/check-translations.sh"
rm -rf "$out/test-output"
mkdir -p "$out/test-output"

# run STYLE OUTPUT [runner arguments]: the runner under a style, screenshots into OUTPUT.
run() {
	env "${library_path[@]}" XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch" \
		LANGUAGE="${language:-en}" VOICENOTE_QML_TEST_OUTPUT="$2" QT_QPA_PLATFORM=xcb QT_QUICK_CONTROLS_STYLE="$1" \
		timeout 300 xvfb-run -a -s "-screen 0 1024x768x24" "$out/tests/voicenote-qml-tests" "${@:3}"
}

run Basic "$out/test-output" "${@:2}"
[ $# -gt 1 ] && exit 0  # a chosen suite or function: once
# The controls in German (the user's language from LANGUAGE, as gettext reads it; the others run in English).
language=de run Basic "$out/test-output" -input "$tests/translated_de.qml"
# The QML chat example (built by `make qml` beside the module) driven through X input on an Xvfb of its own.
chat=$(dirname "$out")/qml-chat
if [ -x "$chat/voicenote-qml-chat" ]; then
	XDG_RUNTIME_DIR="$scratch" timeout 120 python3 "$tests/chat_example.py" "$chat"
else
	echo "SKIP: the QML chat example is not built in $chat (make qml builds it)"
fi
styles=(Fusion)
if [ -d /usr/lib/x86_64-linux-gnu/qt6/qml/org/kde/desktop ]; then
	styles+=(org.kde.desktop)
else
	echo "SKIP: the org.kde.desktop style is not installed for Qt 6 (not in Debian 12): the controls ran under Basic and Fusion"
fi
for style in "${styles[@]}"; do
	for suite in tst_record_button.qml tst_controls_scenario.qml tst_voice_message_reading.qml; do
		run "$style" "$out/test-output/$style" -input "$tests/$suite"
	done
done
