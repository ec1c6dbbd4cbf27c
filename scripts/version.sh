#!/usr/bin/env bash
# Prints the project's version, "major.minor.patch", read from the one place it is written: the VN_VERSION_MAJOR,
# VN_VERSION_MINOR and VN_VERSION_PATCH macros of include/voicenote.h. `version.sh major` prints the major alone.
set -euo pipefail
header=$(cd "$(dirname "$0")/.." && pwd)/include/voicenote.h
number() {
    local value
    value=$(sed -n "s/^#define VN_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header")
    [[ -n $value ]] || { echo "version.sh: no VN_VERSION_$1 in $header" >&2; exit 1; }
    echo "$value"
}
case "${1:-full}" in
    major) number MAJOR ;;
    full)
        # Each number in a variable of its own: `set -e` does not stop at a failed substitution inside echo's arguments.
        major=$(number MAJOR)
        minor=$(number MINOR)
        patch=$(number PATCH)
        echo "$major.$minor.$patch"
        ;;
    *) echo "usage: version.sh [major|full]" >&2; exit 2 ;;
esac
