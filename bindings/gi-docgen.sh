#!/usr/bin/env bash
# Builds a binding's API reference with gi-docgen (bindings/glib and bindings/gtk call it from `make reference`),
# every warning an error: first the gtk-doc references gi-docgen would show as plain code (gir-doc-links.py), then
# `gi-docgen check` (undocumented symbols, parameters, return values), then `gi-docgen generate` (links to unknown
# symbols), into a temporary directory renamed to OUTPUT_DIR only when all three passed:
#   bindings/gi-docgen.sh FILE.gir PROJECT.toml OUTPUT_DIR [GIR_DIRECTORY...]
# Extra files the project names (its urlmap.js) are found beside PROJECT.toml. GIR_DIRECTORY... are where the .gir files it includes are, besides the system's (/usr/share/gir-1.0).
set -euo pipefail
gir=${1:?usage: gi-docgen.sh FILE.gir PROJECT.toml OUTPUT_DIR [GIR_DIRECTORY...]}
project=${2:?usage: gi-docgen.sh FILE.gir PROJECT.toml OUTPUT_DIR [GIR_DIRECTORY...]}
output=${3:?usage: gi-docgen.sh FILE.gir PROJECT.toml OUTPUT_DIR [GIR_DIRECTORY...]}
shift 3
gi_docgen=${GI_DOCGEN:-gi-docgen}
command -v "$gi_docgen" >/dev/null || { echo "no $gi_docgen: install gi-docgen (Debian: gi-docgen)" >&2; exit 1; }
includes=()
for directory in "$@"; do includes+=(--add-include-path "$directory"); done

"$(dirname "$0")/gir-doc-links.py" "$gir" "$@"
"$gi_docgen" check --quiet --fatal-warnings -C "$project" ${includes[@]+"${includes[@]}"} "$gir"
rm -rf "$output.tmp"
mkdir -p "$(dirname "$output")"
"$gi_docgen" generate --quiet --fatal-warnings -C "$project" --content-dir "$(dirname "$project")" \
    ${includes[@]+"${includes[@]}"} --no-namespace-dir --output-dir "$output.tmp" "$gir"
rm -rf "$output"
mv "$output.tmp" "$output"
