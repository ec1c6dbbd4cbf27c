#!/bin/bash
# Lints tests/TypesInUse.qml and the module's controls (RecordButton.qml, Composer.qml, VoiceMessage.qml) against the
# module built in $1 (build/qml), then runs its Qt Quick Test suites on a virtual X server (Xvfb: Mesa's OpenGL draws
# the waveform's geometry nodes, Qt Quick's software renderer does not), within a time bound: every suite under the
# Qt Quick Controls style `Basic`, the controls' suites again under `Fusion`, and under KDE's `org.kde.desktop` when
# it is installed for Qt 6 (Debian 12 has it for Qt 5 only: the run says it skipped it).
# Before the suites, check-translations.sh: every qsTr() text in every catalogue (i18n/*.ts), translated. The suites
# run in English (LANGUAGE=en) but translated_de.qml, run with LANGUAGE=de. Caches and data (resume positions, drafts)
# go to a directory of the run's own, never the user's; screenshots to $1/test-output (the controls' under another
# style to $1/test-output/STYLE). Then the QML chat example, built in $1/../qml-chat, driven by chat_example.py.
set -euo pipefail
out=${1:?usage: run.sh BUILD_QML_DIR}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-qml-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The module's .qmltypes describe every type: a file using them all is lint-clean (qmllint fails on any warning).
tests=$(dirname "$0")
example=$tests/../../cpp/examples/qml
/usr/lib/qt6/bin/qmllint -I "$out" "$tests/TypesInUse.qml" "$tests"/../*.qml "$example/Main.qml"
# Every qsTr() text of the controls translated in every catalogue (i18n/*.ts), none unfinished or left over.
"$tests/check-translations.sh"
rm -rf "$out/test-output"
mkdir -p "$out/test-output"

# run STYLE OUTPUT [runner arguments]: the runner under a style, screenshots into OUTPUT.
run() {
	XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch" \
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
