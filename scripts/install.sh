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

# put SRC DEST MODE: copies (or, with STRIP=1, strips) SRC to a temporary file beside DEST, then renames it.
put() {
    local src=$1 dest=$2 mode=$3 tmp
    tmp=$(mktemp "$(dirname "$dest")/.install.XXXXXX")
    if [[ ${STRIP:-0} == 1 ]]; then
        strip --strip-unneeded -o "$tmp" "$src"
    else
        cp "$src" "$tmp"
    fi
    chmod "$mode" "$tmp"
    mv -f "$tmp" "$dest"
}

# fill TEMPLATE DEST: replaces @VERSION@, @MAJOR@ and @SIZEOF_VOID_P@.
fill() {
    local tmp
    tmp=$(mktemp "$(dirname "$2")/.install.XXXXXX")
    sed -e "s/@VERSION@/$version/g" -e "s/@MAJOR@/$major/g" -e "s/@SIZEOF_VOID_P@/$sizeof_void_p/g" "$1" > "$tmp"
    chmod 644 "$tmp"
    mv -f "$tmp" "$2"
}

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
fill "$repo/pkgconfig/voicenote.pc.in" "$prefix/lib/pkgconfig/voicenote.pc"
fill "$repo/cmake/voicenoteConfig.cmake.in" "$prefix/lib/cmake/voicenote/voicenoteConfig.cmake"
fill "$repo/cmake/voicenoteConfigVersion.cmake.in" "$prefix/lib/cmake/voicenote/voicenoteConfigVersion.cmake"
STRIP=1 put "$build/bin/voicenote" "$prefix/bin/voicenote" 755

echo "installed voicenote $version into $prefix"
