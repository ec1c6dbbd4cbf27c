# Sourced by the install scripts (scripts/install.sh, bindings/gi-install.sh): how one file is installed.
#
# put SRC DEST MODE: copies (or, with STRIP=1, strips) SRC to a temporary file beside DEST, then renames it, so a
# process that has the old file mapped keeps a valid one.
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

# fill TEMPLATE DEST SED_ARGS...: TEMPLATE through `sed SED_ARGS...` (its @NAME@ replacements) into DEST, mode 644,
# the same way.
fill() {
    local template=$1 dest=$2 tmp
    shift 2
    tmp=$(mktemp "$(dirname "$dest")/.install.XXXXXX")
    sed "$@" "$template" > "$tmp"
    chmod 644 "$tmp"
    mv -f "$tmp" "$dest"
}
