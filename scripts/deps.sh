#!/usr/bin/env bash
# Installs what voicenote's build, tests and bench need on Debian 12: the Debian packages (apt-get, as root)
# and the Python packages (pip). Not root and something missing: prints the exact command and fails.
set -euo pipefail
python=$1
read -r -a debian <<<"$2"
read -r -a pypi <<<"$3"

missing=()
for package in "${debian[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$package")
done
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]]; then
        echo "deps: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "deps: missing Debian packages; run:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi

# Each Python package is NAME or NAME=MODULE when it is imported by another name (pytest-xdist=xdist). One interpreter
# finds them all without importing them (importing each in a process of its own took 5 s of every `make test`).
missing_names=$("$python" - "${pypi[@]}" <<'EOF'
import importlib.util
import sys

missing = []
for package in sys.argv[1:]:
    name, _, module = package.partition("=")
    if importlib.util.find_spec(module or name) is None:
        missing.append(name)
print(" ".join(missing))
EOF
)
read -r -a missing_py <<<"$missing_names"
if ((${#missing_py[@]})); then
    echo "deps: installing Python packages ${missing_py[*]}"
    "$python" -m pip install --quiet "${missing_py[@]}"
fi

# Synapse (PyPI), the Matrix homeserver the Python tests run, in a venv of its own: made once per user and shared by
# every checkout (bindings/python/tests/synapse.py says where). Without PyPI it cannot be made; the Matrix tests then
# skip, saying why, so that alone does not stop the rest.
if ! "$python" "$(dirname "$0")/../bindings/python/tests/synapse.py" --ensure-venv >/dev/null; then
    echo "deps: Synapse could not be installed (above); the tests that need it will skip" >&2
fi

if ! command -v swift >/dev/null; then
    echo "deps: no Swift toolchain on PATH (voicenote needs Swift 6.3; expected at /opt/swift/usr/bin)" >&2
    exit 1
fi
echo "deps: all present"
