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

# Each Python package is NAME or NAME=MODULE when it is imported by another name (pytest-xdist=xdist).
missing_py=()
for package in "${pypi[@]}"; do
    "$python" -c "import ${package#*=}" 2>/dev/null || missing_py+=("${package%%=*}")
done
if ((${#missing_py[@]})); then
    echo "deps: installing Python packages ${missing_py[*]}"
    "$python" -m pip install --quiet "${missing_py[@]}"
fi

if ! command -v swift >/dev/null; then
    echo "deps: no Swift toolchain on PATH (voicenote needs Swift 6.3; expected at /opt/swift/usr/bin)" >&2
    exit 1
fi
echo "deps: all present"
