#!/bin/bash
# Checks the controls' catalogues (bindings/qml/i18n/voicenote_qml_<lang>.ts): each must be what lupdate makes of the
# controls' qsTr() texts now — every text in it, none gone from the controls kept — and have no unfinished
# translation. Fails naming the catalogue and the difference. To update one after changing a text:
#   /usr/lib/qt6/bin/lupdate -locations none -no-obsolete bindings/qml/*.qml -ts bindings/qml/i18n/voicenote_qml_de.ts
# then translate what it marks unfinished (Qt Linguist or by hand) and remove type="unfinished".
set -euo pipefail
qml=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-qml-ts.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
status=0
count=0
for ts in "$qml"/i18n/voicenote_qml_*.ts; do
	count=$((count + 1))
	cp "$ts" "$scratch/current.ts"
	/usr/lib/qt6/bin/lupdate -silent -locations none -no-obsolete "$qml"/*.qml -ts "$scratch/current.ts"
	if ! diff -u "$ts" "$scratch/current.ts" >"$scratch/diff"; then
		echo "FAIL: $(basename "$ts") differs from the controls' texts (lupdate's view, + lines):" >&2
		cat "$scratch/diff" >&2
		status=1
	fi
	if grep -q 'type="unfinished"\|type="vanished"\|type="obsolete"' "$ts"; then
		echo "FAIL: $(basename "$ts") has unfinished or obsolete messages" >&2
		status=1
	fi
done
[ "$count" -gt 0 ] || { echo "FAIL: no catalogue in $qml/i18n" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "translations: $count catalogue(s), every text translated"
exit "$status"
