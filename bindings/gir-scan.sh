#!/usr/bin/env bash
# Runs g-ir-scanner for a binding (bindings/glib and bindings/gtk call it): in WORKDIR (its temporary dumper program
# goes there), writing OUTPUT.gir through a temporary file; anything the scanner prints fails, so the .gir exists
# only when the scanner had nothing to say:
#   bindings/gir-scan.sh WORKDIR OUTPUT.gir g-ir-scanner ARGS...     (without --output)
set -uo pipefail
workdir=${1:?usage: gir-scan.sh WORKDIR OUTPUT.gir SCANNER ARGS...}
output=${2:?usage: gir-scan.sh WORKDIR OUTPUT.gir SCANNER ARGS...}
shift 2
mkdir -p "$workdir" "$(dirname "$output")"
log=$workdir/scanner.log
(cd "$workdir" && "$@" --output="$output.tmp") >"$log" 2>&1
rc=$?
if [[ $rc != 0 || -s $log ]]; then
    cat "$log" >&2
    rm -f "$output.tmp"
    echo "g-ir-scanner failed or warned (exit $rc): fix the annotations" >&2
    exit 1
fi
mv "$output.tmp" "$output"
