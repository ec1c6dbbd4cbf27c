#!/usr/bin/env bash
# Installs voicenote into a prefix: scripts/install.sh PREFIX BUILD VERSION MAJOR (called by `make install`).
#
#   PREFIX/lib/libvoicenote.so.VERSION   stripped; SONAME libvoicenote.so.MAJOR
#   PREFIX/lib/libvoicenote.so.MAJOR     -> libvoicenote.so.VERSION
#   PREFIX/lib/libvoicenote.so           -> libvoicenote.so.MAJOR
#   PREFIX/include/voicenote.h
#   PREFIX/include/voicenote.hpp and PREFIX/include/voicenote/*.hpp (the header-only C++ layer)
#   PREFIX/lib/pkgconfig/voicenote.pc
#   PREFIX/lib/cmake/voicenote/voicenoteConfig.cmake, voicenoteConfigVersion.cmake
#   PREFIX/bin/voicenote                 stripped
#   voicenote-glib and voicenote-gtk (bindings/gi-install.sh): PREFIX/lib/libvoicenote-{glib,gtk}-1.so.0 and .so,
#   PREFIX/include/voicenote-{glib,gtk}-1/, PREFIX/lib/girepository-1.0/{Voicenote,VoicenoteGtk}-1.0.typelib,
#   PREFIX/share/gir-1.0/*.gir, PREFIX/share/vala/vapi/voicenote-{glib,gtk}-1.{vapi,deps},
#   PREFIX/lib/pkgconfig/voicenote-{glib,gtk}-1.pc
#   the QML module Voicenote (bindings/qml, built in BUILD/qml by `make qml` first): PREFIX/lib/qt6/qml/Voicenote/ with
#   libvoicenote_qml.so (stripped, RUNPATH $ORIGIN/../../..: PREFIX/lib), qmldir and voicenote_qml.qmltypes
#
# Nothing installed records PREFIX: the .pc and CMake files compute it from their own location, so the tree can
# be moved or packaged (PREFIX=$DESTDIR/usr works as DESTDIR would). Files are written next to their target and
# renamed into place, so a process that has the old library mapped keeps a valid file.
set -euo pipefail

if [[ $# -ne 4 ]]; then
    echo "usage: $0 PREFIX BUILD VERSION MAJOR" >&2
    exit 2
fi
prefix=$1 build=$2 version=$3 major=$4
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
so=libvoicenote.so.$version

[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install.sh: VERSION must be major.minor.patch, got '$version'" >&2; exit 2; }
[[ ${version%%.*} == "$major" ]] || { echo "install.sh: MAJOR '$major' does not match VERSION '$version'" >&2; exit 2; }
for f in "$build/lib/$so" "$build/bin/voicenote" "$repo/include/voicenote.h" "$repo/pkgconfig/voicenote.pc.in" \
         "$repo/cmake/voicenoteConfig.cmake.in" "$repo/cmake/voicenoteConfigVersion.cmake.in"; do
    [[ -f $f ]] || { echo "install.sh: missing $f (run 'make build' first)" >&2; exit 1; }
done

# The pointer size the library was built for, from its ELF class (byte 4: 1 = 32-bit, 2 = 64-bit).
case $(od -An -tu1 -j4 -N1 "$build/lib/$so" | tr -d ' ') in
    1) sizeof_void_p=4 ;;
    2) sizeof_void_p=8 ;;
    *) echo "install.sh: $build/lib/$so is not an ELF file" >&2; exit 1 ;;
esac

# put SRC DEST MODE (STRIP=1 strips) and fill TEMPLATE DEST SED_ARGS...: each through a temporary file renamed
# into place.
source "$repo/scripts/install-put.sh"
# The templates' @VERSION@, @MAJOR@ and @SIZEOF_VOID_P@.
substitutions=(-e "s/@VERSION@/$version/g" -e "s/@MAJOR@/$major/g" -e "s/@SIZEOF_VOID_P@/$sizeof_void_p/g")

mkdir -p "$prefix/lib/pkgconfig" "$prefix/lib/cmake/voicenote" "$prefix/include" "$prefix/bin"

STRIP=1 put "$build/lib/$so" "$prefix/lib/$so" 755
ln -sfn "$so" "$prefix/lib/libvoicenote.so.$major"
ln -sfn "libvoicenote.so.$major" "$prefix/lib/libvoicenote.so"
put "$repo/include/voicenote.h" "$prefix/include/voicenote.h" 644
put "$repo/include/voicenote.hpp" "$prefix/include/voicenote.hpp" 644
mkdir -p "$prefix/include/voicenote"
for part in "$repo"/include/voicenote/*.hpp; do
    put "$part" "$prefix/include/voicenote/$(basename "$part")" 644
done
fill "$repo/pkgconfig/voicenote.pc.in" "$prefix/lib/pkgconfig/voicenote.pc" "${substitutions[@]}"
fill "$repo/cmake/voicenoteConfig.cmake.in" "$prefix/lib/cmake/voicenote/voicenoteConfig.cmake" "${substitutions[@]}"
fill "$repo/cmake/voicenoteConfigVersion.cmake.in" "$prefix/lib/cmake/voicenote/voicenoteConfigVersion.cmake" "${substitutions[@]}"
STRIP=1 put "$build/bin/voicenote" "$prefix/bin/voicenote" 755

# voicenote-glib, then voicenote-gtk over it, from their build trees in BUILD/glib and BUILD/gtk (built there if they
# are not yet, as `make test-glib`/`test-gtk` build them), linked again to find libvoicenote beside them. (glib's
# `introspection` too: voicenote-gtk's scanner reads its build-tree .pc, which `install` alone does not make.)
bindings=(LIBDIR="$build/lib" INCDIR="$repo/include" PREFIX="$prefix")
"${MAKE:-make}" -s -C "$repo/bindings/glib" introspection install "${bindings[@]}" OUT="$build/glib"
"${MAKE:-make}" -s -C "$repo/bindings/gtk" install "${bindings[@]}" GLIB_OUT="$build/glib" OUT="$build/gtk"

# The QML module, from its build tree in BUILD/qml (configured and built by `make qml`, incremental): CMake installs
# it into a staging directory (rewriting the plugin's RUNPATH), from where each file is put into the prefix.
"${MAKE:-make}" -s -C "$repo" qml BUILD="$build" VOICENOTE_BUILT=1 > /dev/null
stage=$(mktemp -d "$build/qml/.install.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cmake --install "$build/qml" --prefix "$stage" > /dev/null
qml=lib/qt6/qml/Voicenote
mkdir -p "$prefix/$qml"
for file in "$stage/$qml"/*; do
    case $file in
        *.so) STRIP=1 put "$file" "$prefix/$qml/$(basename "$file")" 644 ;;
        *) put "$file" "$prefix/$qml/$(basename "$file")" 644 ;;
    esac
done

echo "installed voicenote $version into $prefix"
