#!/usr/bin/env bash
# Installs a GObject binding into a prefix, laid out as GNOME libraries are (bindings/glib's and bindings/gtk's
# `make install` call it):
#   bindings/gi-install.sh PREFIX PKG_NAME LIBRARY GIR TYPELIB VAPIDIR PC_IN API HEADER...
#
#   PREFIX/lib/SONAME                    LIBRARY (linked with RUNPATH $ORIGIN), stripped
#   PREFIX/lib/libNAME.so                -> SONAME
#   PREFIX/include/PKG_NAME/             the HEADERs
#   PREFIX/share/gir-1.0/                GIR
#   PREFIX/lib/girepository-1.0/         TYPELIB
#   PREFIX/share/vala/vapi/              VAPIDIR/PKG_NAME.vapi and .deps
#   PREFIX/lib/pkgconfig/PKG_NAME.pc     PC_IN with @API@ replaced (relocatable: it computes its prefix)
#
# Files go through a temporary file renamed into place (scripts/install-put.sh), as scripts/install.sh's do.
set -euo pipefail

if [[ $# -lt 9 ]]; then
    echo "usage: $0 PREFIX PKG_NAME LIBRARY GIR TYPELIB VAPIDIR PC_IN API HEADER..." >&2
    exit 2
fi
prefix=$1 pkg=$2 library=$3 gir=$4 typelib=$5 vapidir=$6 pc_in=$7 api=$8
shift 8
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$repo/scripts/install-put.sh"
soname=$(basename "$library")

for f in "$library" "$gir" "$typelib" "$vapidir/$pkg.vapi" "$vapidir/$pkg.deps" "$pc_in" "$@"; do
    [[ -f $f ]] || { echo "gi-install.sh: missing $f" >&2; exit 1; }
done
mkdir -p "$prefix/lib/pkgconfig" "$prefix/lib/girepository-1.0" "$prefix/include/$pkg" "$prefix/share/gir-1.0" \
    "$prefix/share/vala/vapi"

STRIP=1 put "$library" "$prefix/lib/$soname" 755
ln -sfn "$soname" "$prefix/lib/${soname%.so.*}.so"
for header in "$@"; do
    put "$header" "$prefix/include/$pkg/$(basename "$header")" 644
done
put "$gir" "$prefix/share/gir-1.0/$(basename "$gir")" 644
put "$typelib" "$prefix/lib/girepository-1.0/$(basename "$typelib")" 644
put "$vapidir/$pkg.vapi" "$prefix/share/vala/vapi/$pkg.vapi" 644
put "$vapidir/$pkg.deps" "$prefix/share/vala/vapi/$pkg.deps" 644
fill "$pc_in" "$prefix/lib/pkgconfig/$pkg.pc" -e "s/@API@/$api/g"
