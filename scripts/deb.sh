#!/usr/bin/env bash
# Builds the Debian packages (README.md), the way Linux users expect to install a C library:
#   libvoicenote0     the shared library (usr/lib/libvoicenote.so.VERSION and its SONAME link)
#   libvoicenote-dev  the headers (C, and the C++ layer), the .so link, pkg-config and CMake files
#   voicenote-tools   the `voicenote` command-line tool
# and voicenote-glib's and voicenote-gtk's, the way Debian packages GNOME libraries:
#   libvoicenote-glib-1-0, libvoicenote-gtk-1-0      the shared libraries (usr/lib/libvoicenote-*-1.so.0)
#   gir1.2-voicenote-1.0, gir1.2-voicenotegtk-1.0    the typelibs, in usr/lib/<multiarch>/girepository-1.0 (where
#                                                     Debian's libgirepository looks)
#   libvoicenote-glib-dev, libvoicenote-gtk-dev      headers, the .so link, the .pc, the .gir (usr/share/gir-1.0) and
#                                                     the vapi and .deps (usr/share/vala/vapi)
# and the QML module, the way Debian packages Qt 6's (qml6-module-*: a runtime package a QML application depends on,
# apart from the -dev package, which only a build needs):
#   qml6-module-voicenote   usr/lib/<multiarch>/qt6/qml/Voicenote/ (Qt's own import path): plugin, qmldir, .qmltypes
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

# The whole installed tree once, then split into the packages: each entry a path in it, or PATH=WHERE for a file
# that goes elsewhere in the package (the typelibs and the QML module, into the multiarch directory).
"$repo/scripts/install.sh" "$work/all/usr" "$build" "$version" "$major" > /dev/null
lib=libvoicenote$major
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
declare -A files=(
    [$lib]="usr/lib/libvoicenote.so.$version usr/lib/libvoicenote.so.$major"
    [libvoicenote-dev]="usr/include/voicenote.h usr/include/voicenote.hpp usr/include/voicenote usr/lib/libvoicenote.so usr/lib/pkgconfig/voicenote.pc usr/lib/cmake/voicenote"
    [voicenote-tools]="usr/bin/voicenote"
)
# The machine-readable copyright file every package carries (Debian Policy 12.5). The repository declares no licence
# yet, so none is claimed here either.
debian_copyright() {
    cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: voicenote
Comment: Built from the voicenote repository by scripts/deb.sh.

Files: *
Copyright: 2025-2026 the voicenote developers
License: NOASSERTION
 The voicenote repository declares no licence.
EOF
}
# debian_changelog PACKAGE: the changelog of a native package, one entry for this version (Debian Policy 12.7).
debian_changelog() {
    cat <<EOF
$1 ($version) unstable; urgency=medium

  * Built from the voicenote repository by scripts/deb.sh.

 -- voicenote developers <dev@voicenote.invalid>  $(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}")
EOF
}
# gnome_packages NAME PKG_NAME NAMESPACE [DATA]: voicenote-NAME's library (with DATA: its translations), gir1.2 and -dev
# packages.
gnome_packages() {
    local typelib=girepository-1.0/$3-1.0.typelib
    files[libvoicenote-$1-1-0]="usr/lib/libvoicenote-$1-1.so.0${4:+ $4}"
    files[gir1.2-${3,,}-1.0]="usr/lib/$typelib=usr/lib/$multiarch/$typelib"
    files[libvoicenote-$1-dev]="usr/include/$2 usr/lib/libvoicenote-$1-1.so usr/lib/pkgconfig/$2.pc usr/share/gir-1.0/$3-1.0.gir usr/share/vala/vapi/$2.vapi usr/share/vala/vapi/$2.deps"
}
gnome_packages glib voicenote-glib-1 Voicenote
gnome_packages gtk voicenote-gtk-1 VoicenoteGtk usr/share/locale
qml=qt6/qml/Voicenote
files[qml6-module-voicenote]="usr/lib/$qml=usr/lib/$multiarch/$qml"
qml_plugin=usr/lib/$multiarch/$qml/libvoicenote_qml.so
for package in "${!files[@]}"; do
    for entry in ${files[$package]}; do
        path=${entry#*=}
        mkdir -p "$work/$package/$(dirname "$path")"
        cp -a "$work/all/${entry%%=*}" "$work/$package/$path"
    done
    doc=$work/$package/usr/share/doc/$package
    mkdir -p "$work/$package/DEBIAN" "$doc"
    cp "$repo/README.md" "$doc/README.md"
    debian_copyright > "$doc/copyright"
    debian_changelog "$package" | gzip -9n > "$doc/changelog.gz"
done
# A shared library is not a program (Debian Policy 8.1): mode 0644, as dh_fixperms leaves it (the QML plugin too).
find "$work" -path "$work/all" -prune -o -type f \( -name '*.so.*' -o -name '*.so' \) -exec chmod 0644 {} +

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

# Our own libraries' shlibs (LIBRARY SONAME-VERSION PACKAGE): each library package declares its own, and
# dpkg-shlibdeps reads them all (debian/shlibs.local) for the libraries the others link to.
shlibs=(
    "libvoicenote $major $lib (>= $version)"
    "libvoicenote-glib-1 0 libvoicenote-glib-1-0 (>= $version)"
    "libvoicenote-gtk-1 0 libvoicenote-gtk-1-0 (>= $version)"
)
# shlib_depends PACKAGE BINARY: the Depends dpkg-shlibdeps computes for BINARY inside PACKAGE's tree (our libraries
# found in the installed tree).
shlib_depends() {
    (cd "$work/$1" && mkdir -p debian && printf 'Source: voicenote\n\nPackage: %s\nArchitecture: any\n' "$1" > debian/control &&
        printf '%s\n' "${shlibs[@]}" > debian/shlibs.local &&
        dpkg-shlibdeps -O -l"$work/all/usr/lib" -e"$2" 2> /dev/null | sed -n 's/^shlibs:Depends=//p'; rm -rf debian)
}

ffmpeg=$(ffmpeg_packages)
for entry in "${shlibs[@]}"; do
    package=$(cut -d' ' -f3 <<<"$entry")
    printf '%s\n' "$entry" > "$work/$package/DEBIAN/shlibs"
    printf 'activate-noawait ldconfig\n' > "$work/$package/DEBIAN/triggers"
done
declare -A depends=(
    [$lib]="$(shlib_depends "$lib" "usr/lib/libvoicenote.so.$version"), $ffmpeg"
    [libvoicenote-dev]="$lib (= $version)"
    [voicenote-tools]="$(shlib_depends voicenote-tools usr/bin/voicenote), $ffmpeg"
    [libvoicenote-glib-1-0]="$(shlib_depends libvoicenote-glib-1-0 usr/lib/libvoicenote-glib-1.so.0)"
    [gir1.2-voicenote-1.0]="libvoicenote-glib-1-0 (>= $version), gir1.2-glib-2.0"
    [libvoicenote-glib-dev]="libvoicenote-glib-1-0 (= $version), gir1.2-voicenote-1.0 (= $version), libglib2.0-dev, libvoicenote-dev (= $version)"
    [libvoicenote-gtk-1-0]="$(shlib_depends libvoicenote-gtk-1-0 usr/lib/libvoicenote-gtk-1.so.0)"
    [gir1.2-voicenotegtk-1.0]="libvoicenote-gtk-1-0 (>= $version), gir1.2-gtk-4.0, gir1.2-voicenote-1.0 (>= $version)"
    [libvoicenote-gtk-dev]="libvoicenote-gtk-1-0 (= $version), gir1.2-voicenotegtk-1.0 (= $version), libgtk-4-dev, libvoicenote-glib-dev (= $version)"
    # The plugin's libraries, and the QML module it imports (its qmldir's `depends QtQuick`), which no tool can see.
    [qml6-module-voicenote]="$(shlib_depends qml6-module-voicenote "$qml_plugin"), qml6-module-qtquick"
)
declare -A section=([$lib]=libs [libvoicenote-dev]=libdevel [voicenote-tools]=sound
    [libvoicenote-glib-1-0]=libs [gir1.2-voicenote-1.0]=introspection [libvoicenote-glib-dev]=libdevel
    [libvoicenote-gtk-1-0]=libs [gir1.2-voicenotegtk-1.0]=introspection [libvoicenote-gtk-dev]=libdevel
    [qml6-module-voicenote]=libs)
declare -A summary=(
    [$lib]="voice messages for chat clients: recorder, player, waveform (library)"
    [libvoicenote-dev]="voice messages for chat clients (C and C++ headers, pkg-config and CMake files)"
    [voicenote-tools]="voice messages from the command line: record, waveform, info, recover"
    [libvoicenote-glib-1-0]="voice messages for chat clients as GObjects (voicenote-glib library)"
    [gir1.2-voicenote-1.0]="voice messages for chat clients as GObjects (GObject introspection data)"
    [libvoicenote-glib-dev]="voice messages for chat clients as GObjects (headers, gir, vapi, pkg-config)"
    [libvoicenote-gtk-1-0]="GTK 4 widgets for voice messages (voicenote-gtk library)"
    [gir1.2-voicenotegtk-1.0]="GTK 4 widgets for voice messages (GObject introspection data)"
    [libvoicenote-gtk-dev]="GTK 4 widgets for voice messages (headers, gir, vapi, pkg-config)"
    [qml6-module-voicenote]="Qt Quick types for voice messages (QML module Voicenote)"
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
