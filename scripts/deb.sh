#!/usr/bin/env bash
# Builds the Debian packages (README.md), the way Linux users expect to install a C library:
#   libvoicenote0     the shared library (usr/lib/libvoicenote.so.VERSION and its SONAME link)
#   libvoicenote-dev  the headers (C, and the C++ layer), the .so link, pkg-config and CMake files
#   voicenote-tools   the `voicenote` command-line tool
# Usage: scripts/deb.sh BUILD VERSION MAJOR OUTDIR      (called by `make deb`; BUILD holds a `make build`)
#
# The files come from scripts/install.sh with PREFIX=<package>/usr, so the packages hold exactly what
# `make install` installs. Depends: dpkg-shlibdeps on the installed binaries, plus FFmpeg's runtime libraries,
# which voicenote opens with dlopen (ARCHITECTURE.md) so no tool can see them: their packages are found by the
# SONAMEs the library was built against (the owners of those files on this machine).
set -euo pipefail

if [[ $# -ne 4 ]]; then
    echo "usage: $0 BUILD VERSION MAJOR OUTDIR" >&2
    exit 2
fi
build=$1 version=$2 major=$3 out=$4
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# The whole installed tree once, then split into the three packages.
"$repo/scripts/install.sh" "$work/all/usr" "$build" "$version" "$major" > /dev/null
lib=libvoicenote$major
declare -A files=(
    [$lib]="usr/lib/libvoicenote.so.$version usr/lib/libvoicenote.so.$major"
    [libvoicenote-dev]="usr/include/voicenote.h usr/include/voicenote.hpp usr/include/voicenote usr/lib/libvoicenote.so usr/lib/pkgconfig/voicenote.pc usr/lib/cmake/voicenote"
    [voicenote-tools]="usr/bin/voicenote"
)
for package in "${!files[@]}"; do
    for path in ${files[$package]}; do
        mkdir -p "$work/$package/$(dirname "$path")"
        cp -a "$work/all/$path" "$work/$package/$path"
    done
    mkdir -p "$work/$package/DEBIAN" "$work/$package/usr/share/doc/$package"
    cp "$repo/README.md" "$work/$package/usr/share/doc/$package/README.md"
done

# FFmpeg's runtime packages: the owners of the SONAMEs the loader opens (libavformat.so.59, ...).
ffmpeg_packages() {
    local soname owner list=()
    for soname in $(strings "$build/lib/libvoicenote.so.$version" | grep -E '^lib(av[a-z]+|sw[a-z]+)\.so\.[0-9]+$' | sort -u); do
        owner=$(dpkg -S "*/$soname" 2>/dev/null | head -n 1 | cut -d: -f1)
        [[ -n $owner ]] || { echo "deb.sh: no installed package owns $soname" >&2; exit 1; }
        list+=("$owner")
    done
    [[ ${#list[@]} -gt 0 ]] || { echo "deb.sh: found no FFmpeg SONAME in the library" >&2; exit 1; }
    local IFS=,
    echo "${list[*]}" | sed 's/,/, /g'
}

# shlib_depends PACKAGE BINARY: the Depends dpkg-shlibdeps computes for BINARY inside PACKAGE's tree.
shlib_depends() {
    (cd "$work/$1" && mkdir -p debian && printf 'Source: voicenote\n\nPackage: %s\nArchitecture: any\n' "$1" > debian/control &&
        dpkg-shlibdeps -O -e"$2" 2> /dev/null | sed -n 's/^shlibs:Depends=//p'; rm -rf debian)
}

ffmpeg=$(ffmpeg_packages)
printf 'libvoicenote %s %s (>= %s)\n' "$major" "$lib" "$version" > "$work/$lib/DEBIAN/shlibs"
printf 'activate-noawait ldconfig\n' > "$work/$lib/DEBIAN/triggers"
declare -A depends=(
    [$lib]="$(shlib_depends "$lib" "usr/lib/libvoicenote.so.$version"), $ffmpeg"
    [libvoicenote-dev]="$lib (= $version)"
    [voicenote-tools]="$(shlib_depends voicenote-tools usr/bin/voicenote), $ffmpeg"
)
declare -A section=([$lib]=libs [libvoicenote-dev]=libdevel [voicenote-tools]=sound)
declare -A summary=(
    [$lib]="voice messages for chat clients: recorder, player, waveform (library)"
    [libvoicenote-dev]="voice messages for chat clients (C and C++ headers, pkg-config and CMake files)"
    [voicenote-tools]="voice messages from the command line: record, waveform, info, recover"
)
for package in "${!files[@]}"; do
    size=$(du -sk --exclude=DEBIAN "$work/$package" | cut -f1)
    cat > "$work/$package/DEBIAN/control" <<EOF
Package: $package
Version: $version
Architecture: $arch
Maintainer: voicenote developers <dev@voicenote.invalid>
Section: ${section[$package]}
Priority: optional
Installed-Size: $size
Depends: ${depends[$package]}
Description: ${summary[$package]}
 voicenote is the voice-message engine Linux chat clients embed: crash-safe
 Ogg Opus recording from ALSA, Stream-compatible waveforms, playback and
 uploads behind a stable C ABI (libvoicenote.so.$major).
EOF
    dpkg-deb --root-owner-group -Zxz --build "$work/$package" "$out/${package}_${version}_${arch}.deb" > /dev/null
    echo "$out/${package}_${version}_${arch}.deb"
done
