#!/usr/bin/env bash
# `make wheel`: a platform wheel of the Python package that carries libvoicenote.so (stripped) inside it, as
# voicenote/_libs/libvoicenote.so.<major>, which the package loads before anything else.
# usage: wheel.sh BUILD_DIR OUT_DIR PYTHON
set -euo pipefail
build=$(cd "${1:?usage: wheel.sh BUILD_DIR OUT_DIR PYTHON}" && pwd)
out=${2:?usage: wheel.sh BUILD_DIR OUT_DIR PYTHON}
python=${3:-python3}
repo=$(cd "$(dirname "$0")/.." && pwd)
version=$("$repo/scripts/version.sh")
major=$("$repo/scripts/version.sh" major)
library=$build/lib/libvoicenote.so.$version
[[ -f $library ]] || { echo "wheel: no $library (make so)" >&2; exit 1; }

# pip builds in the folder it is given: a staging copy, in a folder of this run's own (two runs at once, as the
# tests in parallel make, never share one), keeps the checkout clean.
mkdir -p "$out"
stage=$(mktemp -d "$build/wheel-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp -r "$repo/bindings/python/pyproject.toml" "$repo/bindings/python/setup.py" "$repo/bindings/python/README.md" \
    "$repo/bindings/python/voicenote" "$stage/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$stage/voicenote/_built_version.py"
mkdir -p "$stage/voicenote/_libs"
strip --strip-unneeded -o "$stage/voicenote/_libs/libvoicenote.so.$major" "$library"

rm -f "$out"/voicenote-"$version"-*.whl
# This interpreter's setuptools when it can make wheels itself (70.1 and later) or with the `wheel` package that
# still has its bdist_wheel; else pip's isolated build environment (setuptools from PyPI).
isolation=(--no-build-isolation)
"$python" -c 'import setuptools.command.bdist_wheel' 2>/dev/null ||
    "$python" -c 'import wheel.bdist_wheel' 2>/dev/null || isolation=()
VOICENOTE_HEADER="$repo/include/voicenote.h" \
    "$python" -m pip wheel --quiet --no-deps "${isolation[@]}" --wheel-dir "$out" "$stage"
ls "$out"/voicenote-"$version"-*.whl
