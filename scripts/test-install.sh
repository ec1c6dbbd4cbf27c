#!/usr/bin/env bash
# Tests the installed tree the way a user meets it: scripts/test-install.sh PYTHON (called by `make test-install`).
#
#   a) `make install` into a fresh prefix; the C samples build with pkg-config (bindings/c/Makefile) and run;
#      play.c plays a URL from Tests/Servers/http_server.py with a header and a key, then from the media cache;
#      queue.c plays two notes in a row as a queue player (with the other samples, on the file speaker);
#      attachment.c uploads a note to it (multipart with a header and a query parameter, and raw)
#   b) the C and C++ samples build with CMake (find_package(voicenote 0.1) + voicenote::voicenote) and run; the version
#      file accepts the version (EXACT too) and refuses the next minor and the next major
#   c) the prefix is moved elsewhere: CMake and pkg-config find the new place (relocatable), samples run again
#   d) the library and the tool are stripped, the SONAME and symlinks are right, only vn_* is exported, the
#      headers (C and C++) are the repo's, and no installed text file records the prefix
#   e) the Python package installs with `pip install --target` and, run from outside the repo with
#      VOICENOTE_LIBRARY unset, loads the installed library and reports the version
#   g) voicenote-glib and voicenote-gtk from the moved prefix only: pkg-config finds voicenote-glib-1 and
#      voicenote-gtk-1 there; a C program (scripts/test-install-gnome/player.c) builds with pkg-config and plays a note
#      on a VnPlayer; Python (python3-gi, GI_TYPELIB_PATH on the prefix) and a Vala program (valac --pkg voicenote-gtk-1
#      with the prefix's vapidir) make a Voicenote.Player, a VoicenoteGtk.Waveform and a VoicenoteGtk.VoiceMessage
#      (under xvfb-run: a GTK widget needs a display); each loads only the prefix's libraries and typelibs; and the
#      proof from four languages (bindings/gtk/tests/proof) runs over the prefix only: its Python, gjs, Vala and C
#      programs, each driven through real X input by drive.py (hold, lock, stop, trim, send, a received note at 2x)
#   h) the QML module Voicenote from the moved prefix only: installed in lib/qt6/qml/Voicenote (plugin stripped, RUNPATH
#      $ORIGIN/../../..); qmllint with the prefix's import path passes a file using every type with no warning (and
#      fails without it); a QML host (scripts/test-install-qml) builds with CMake's find_package(voicenote COMPONENTS
#      qml) and voicenote::qml, loads `import Voicenote` from the prefix (offscreen) and plays a note through a
#      VoicePlayer on the file speaker, and with LANGUAGE=de shows a RecordButton named in German (the catalogue in the
#      plugin); find_package(voicenote COMPONENTS qml) fails when the module is missing
#   f) `make deb`: the ten packages pass lintian (no error) and hold what `make install` installs, libvoicenote's split
#      as Debian splits a C library, with Depends that include FFmpeg (loaded with dlopen, invisible to dpkg-shlibdeps),
#      voicenote-glib's and voicenote-gtk's as it splits a GNOME library (library, gir1.2 typelib in
#      usr/lib/<multiarch>, -dev), each with its Depends, and qml6-module-voicenote holding exactly the module in
#      usr/lib/<multiarch>/qt6/qml/Voicenote, depending on Qt Quick's libraries and QML module; extracted, the samples
#      build from them with pkg-config and CMake and run, g)'s C, Python and Vala programs use them and qmllint finds
#      the module's types; as root they also install with dpkg, build and run
#      from /usr (Python finding the typelibs with no GI_TYPELIB_PATH, the QML host and qmllint finding the module on
#      Qt's own import path, the controls in German), and are purged again
# Temporary directories are removed on exit. Ends with "N passed, N failed, N skipped"; non-zero on any failure.
set -uo pipefail

python=${1:-python3}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=$("$repo/scripts/version.sh") || exit 1
major=${version%%.*}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-test-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log
passed=0 failed=0 skipped=0

# check NAME COMMAND...: runs COMMAND, counts it, shows its output only when it fails.
check() {
    local name=$1; shift
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "ok    $name"
    else
        failed=$((failed + 1)); echo "FAIL  $name"; sed 's/^/      | /' "$log" | tail -n 40
    fi
}
skip() { skipped=$((skipped + 1)); echo "skip  $1"; }
# expect_eq WANT GOT: succeeds when they are equal, else says what differed.
expect_eq() { [[ $1 == "$2" ]] || { echo "expected '$1', got '$2'"; return 1; }; }

# A voice note for the samples that read one (waveform.c), made here like every fixture.
note=$tmp/note.ogg
espeak-ng -w "$tmp/note.wav" "A voice note for the C samples." 2>/dev/null
opusenc --quiet "$tmp/note.wav" "$note"
# A virtual microphone for record.c: ALSA's file plugin reading the note's audio as raw 48 kHz frames.
sox "$tmp/note.wav" -t raw -e signed-integer -b 16 -L -c 1 -r 48000 "$tmp/mic.raw"
printf 'pcm.vn_mic { type file slave.pcm { type null } file "/dev/null" infile "%s" format raw }\n' "$tmp/mic.raw" >"$tmp/mic.conf"
mkdir -p "$tmp/recordings"
# --clean: the installed library's voice cleanup (speexdsp, opened on first use) in the C and C++ samples.
record_args="--clean $tmp/recordings 1.5 vn_mic $tmp/mic.conf"
# A longer virtual microphone for flow.c (its script records for over 3 s): 30 s of tone.
sox -n -r 48000 -c 1 -b 16 -e signed-integer -L -t raw "$tmp/tone.raw" synth 30 sine 300 vol 0.3
printf 'pcm.vn_tone { type file slave.pcm { type null } file "/dev/null" infile "%s" format raw }\n' "$tmp/tone.raw" >"$tmp/tone.conf"
# A file speaker for play.c: ALSA's file plugin over null, writing what it plays as raw frames (not paced).
printf 'pcm.vn_spk { type file slave.pcm { type null } file "%s" format raw perm 0644 }\n' "$tmp/speaker.raw" >"$tmp/speaker.conf"
play_args="$note --rate 2 --device vn_spk --device-config $tmp/speaker.conf --mpris Sample --artist Alice --role phone"
# Two short notes for queue.c, one after the other on the same file speaker: the Opus note and its WAV.
queue_args="--device vn_spk --device-config $tmp/speaker.conf $note $tmp/note.wav"
# convert.c writes the note again at 2x beside it.
convert_args="$note $tmp/note-2x.ogg 2"
# transcribe.c transcribes the note (PocketSphinx, opened on first use; its media cache is the test's XDG_CACHE_HOME).
# waveforms.c computes three waveforms in one batch.
waveforms_args="$note $note $note"
flow_args="$tmp/recordings --mic vn_tone --mic-config $tmp/tone.conf --speaker vn_spk --speaker-config $tmp/speaker.conf"

generator=("-G" "Unix Makefiles")
command -v ninja >/dev/null && generator=("-G" "Ninja")

# build_with_make PREFIX OUT: builds and runs the samples with bindings/c/Makefile and pkg-config only.
build_with_make() {
    env PKG_CONFIG_PATH="$1/lib/pkgconfig" LD_LIBRARY_PATH="$1/lib" XDG_CACHE_HOME="$tmp/sample-cache" \
        make -C "$repo/bindings/c" run OUT="$2" EXTRA_CFLAGS=-Werror ARGS_waveform="$note" ARGS_record="$record_args" \
        ARGS_play="$play_args" ARGS_queue="$queue_args" ARGS_flow="$flow_args" ARGS_convert="$convert_args" \
        ARGS_waveforms="$waveforms_args" ARGS_transcribe="$note"
}
# play_url PREFIX DIR: play.c (built in DIR against PREFIX) plays the note over HTTP from Tests/Servers/http_server.py
# with a bearer header and a key (the server must see the header); then, the server stopped, another URL under the
# same key plays from the media cache (a cache of its own in $tmp, never the user's).
play_url() {
    local word port url status=0
    local -a play=(env LD_LIBRARY_PATH="$1/lib" XDG_CACHE_HOME="$tmp/play-url-cache" "$2/play")
    local -a device=(--device vn_spk --device-config "$tmp/speaker.conf")
    coproc http_server { exec "$python" "$repo/Tests/Servers/http_server.py" --root "$tmp" --log "$tmp/http.log" \
        --port 0 --exit-with-stdin; }
    if ! read -r -t 10 word port <&"${http_server[0]}" || [[ $word != PORT ]]; then
        echo "http_server.py did not print PORT <n> within 10 s"; kill "$http_server_PID"; wait "$http_server_PID"
        return 1
    fi
    url=http://127.0.0.1:$port/auth/tok/range/note.ogg
    "${play[@]}" "$url" --header "Authorization: Bearer tok" --key message-1/0 "${device[@]}" || status=1
    kill "$http_server_PID"; wait "$http_server_PID"
    grep -qF '"authorization": "Bearer tok"' "$tmp/http.log" || { echo "no request carried the header"; status=1; }
    "${play[@]}" "$url?sig=2" --header "Authorization: Bearer tok" --key message-1/0 "${device[@]}" ||
        { echo "the same key did not play again from the cache"; status=1; }
    return $status
}
# upload_note PREFIX DIR: attachment.c (built in DIR against PREFIX) uploads the note to Tests/Servers/http_server.py,
# multipart (Stream's /channels/<type>/<id>/file, with an api_key query parameter and a header the server must see)
# and raw (Matrix's /_matrix/media/v3/upload, an mxc:// asset_url); the server stored the note's exact bytes. Then
# record.c uploads its take while it records it (raw), and the server stored the finished take's exact bytes; outbox.c
# sends the note through a durable outbox.
upload_note() {
    local word port out status=0 root=$tmp/upload-root
    local -a attachment=(env LD_LIBRARY_PATH="$1/lib" "$2/attachment")
    rm -rf "$root" && mkdir -p "$root"
    coproc http_server { exec "$python" "$repo/Tests/Servers/http_server.py" --root "$root" --log "$root/http.log" \
        --port 0 --exit-with-stdin; }
    if ! read -r -t 10 word port <&"${http_server[0]}" || [[ $word != PORT ]]; then
        echo "http_server.py did not print PORT <n> within 10 s"; kill "$http_server_PID"; wait "$http_server_PID"
        return 1
    fi
    out=$("${attachment[@]}" "$note" --upload "http://127.0.0.1:$port/channels/messaging/c1/file" \
        --header "Authorization: Bearer tok" --query api_key=key-1) || status=1
    echo "$out"
    grep -qF "\"asset_url\": \"http://127.0.0.1:$port/range/uploads/1.bin\"" <<<"$out" ||
        { echo "multipart: not the server's asset_url"; status=1; }
    out=$("${attachment[@]}" "$note" --raw --upload "http://127.0.0.1:$port/_matrix/media/v3/upload") || status=1
    echo "$out"
    grep -qF '"asset_url": "mxc://localhost/2"' <<<"$out" || { echo "raw: not the server's mxc:// URI"; status=1; }
    kill "$http_server_PID"; wait "$http_server_PID"
    grep -qF '"authorization": "Bearer tok"' "$root/http.log" || { echo "no request carried the header"; status=1; }
    grep -qF '"query": {"api_key": "key-1"}' "$root/http.log" || { echo "no request carried api_key"; status=1; }
    cmp "$note" "$root/uploads/1.bin" && cmp "$note" "$root/uploads/2.bin" || status=1
    # record.c with an upload URL: the take uploaded while it is recorded (or, when the unpaced virtual microphone
    # ended it first, as a file); the server stored the finished take's exact bytes.
    rm -rf "$root" "$tmp/recorded" && mkdir -p "$root" "$tmp/recorded"
    coproc http_server { exec "$python" "$repo/Tests/Servers/http_server.py" --root "$root" --log "$root/http.log" \
        --port 0 --exit-with-stdin; }
    if ! read -r -t 10 word port <&"${http_server[0]}" || [[ $word != PORT ]]; then
        echo "http_server.py did not print PORT <n> within 10 s"; kill "$http_server_PID"; wait "$http_server_PID"
        return 1
    fi
    out=$(env LD_LIBRARY_PATH="$1/lib" "$2/record" "$tmp/recorded" 1.5 vn_mic "$tmp/mic.conf" \
        "http://127.0.0.1:$port/_matrix/media/v3/upload") || status=1
    echo "$out"
    kill "$http_server_PID"; wait "$http_server_PID"
    grep -qF '"asset_url":"mxc://localhost/1"' <<<"$out" || { echo "record.c: not the server's mxc:// URI"; status=1; }
    cmp "$root/uploads/1.bin" "$tmp"/recorded/*.ogg || { echo "record.c: the stored take is not the file"; status=1; }
    # outbox.c: the note through a durable outbox (raw, with a header), handed off once and acknowledged.
    rm -rf "$root" "$tmp/outbox" && mkdir -p "$root"
    coproc http_server { exec "$python" "$repo/Tests/Servers/http_server.py" --root "$root" --log "$root/http.log" \
        --port 0 --exit-with-stdin; }
    if ! read -r -t 10 word port <&"${http_server[0]}" || [[ $word != PORT ]]; then
        echo "http_server.py did not print PORT <n> within 10 s"; kill "$http_server_PID"; wait "$http_server_PID"
        return 1
    fi
    out=$(env LD_LIBRARY_PATH="$1/lib" "$2/outbox" "$tmp/outbox" "http://127.0.0.1:$port/_matrix/media/v3/upload" \
        --raw --header "Authorization: Bearer tok" "$note") || status=1
    echo "$out"
    kill "$http_server_PID"; wait "$http_server_PID"
    grep -qF '"id":1,"payload":' <<<"$out" && grep -qF '"asset_url":"mxc://localhost/1"' <<<"$out" ||
        { echo "outbox.c: not the uploaded payload"; status=1; }
    cmp "$note" "$root/uploads/1.bin" || { echo "outbox.c: the stored note is not the file"; status=1; }
    grep -qF '"authorization": "Bearer tok"' "$root/http.log" || { echo "outbox.c: no request carried the header"; status=1; }
    return $status
}
# build_with_cmake PREFIX DIR: configures, builds and runs (ctest) the samples with bindings/c/CMakeLists.txt.
build_with_cmake() {
    cmake -S "$repo/bindings/c" -B "$2" "${generator[@]}" -DCMAKE_PREFIX_PATH="$1" \
        -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DVOICENOTE_SAMPLE_ARGS_waveform="$note" -DVOICENOTE_SAMPLE_ARGS_record="$record_args" \
        -DVOICENOTE_SAMPLE_ARGS_play="$play_args" -DVOICENOTE_SAMPLE_ARGS_queue="$queue_args" \
        -DVOICENOTE_SAMPLE_ARGS_flow="$flow_args" -DVOICENOTE_SAMPLE_ARGS_convert="$convert_args" \
        -DVOICENOTE_SAMPLE_ARGS_waveforms="$waveforms_args" -DVOICENOTE_SAMPLE_ARGS_transcribe="$note" &&
        cmake --build "$2" &&
        XDG_CACHE_HOME="$tmp/sample-cache" ctest --test-dir "$2" --output-on-failure
}
# cmake_links_to PREFIX DIR: every sample CMake built runs against PREFIX's library (its RUNPATH and ldd).
cmake_links_to() {
    local lib=$1/lib/libvoicenote.so.$major n=0 exe
    for exe in "$2"/*; do
        [[ -f $exe && -x $exe ]] || continue
        n=$((n + 1))
        ldd "$exe" | grep -F "libvoicenote.so.$major => $lib " || { echo "$exe does not load $lib:"; ldd "$exe"; return 1; }
    done
    [[ $n -gt 0 ]] || { echo "no sample executables in $2"; return 1; }
}
# find_package_result PREFIX REQUEST...: configures a tiny project doing find_package(voicenote REQUEST...).
find_package_result() {
    local prefix=$1; shift
    local dir
    dir=$(mktemp -d "$tmp/find.XXXXXX")
    cat >"$dir/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(find_voicenote LANGUAGES C)
find_package(voicenote $* REQUIRED)
get_target_property(location voicenote::voicenote IMPORTED_LOCATION)
get_target_property(soname voicenote::voicenote IMPORTED_SONAME)
get_target_property(includes voicenote::voicenote INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "voicenote_VERSION=\${voicenote_VERSION}")
message(STATUS "IMPORTED_LOCATION=\${location}")
message(STATUS "IMPORTED_SONAME=\${soname}")
message(STATUS "INTERFACE_INCLUDE_DIRECTORIES=\${includes}")
EOF
    cmake -S "$dir" -B "$dir/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix"
}
find_package_refuses() { ! find_package_result "$@"; }
# imported_target_is PREFIX: the imported target's properties point into PREFIX.
imported_target_is() {
    local out
    out=$(find_package_result "$1" 0.1) || { echo "$out"; return 1; }
    grep -qxF -- "-- voicenote_VERSION=$version" <<<"$out" &&
        grep -qxF -- "-- IMPORTED_LOCATION=$1/lib/libvoicenote.so.$version" <<<"$out" &&
        grep -qxF -- "-- IMPORTED_SONAME=libvoicenote.so.$major" <<<"$out" &&
        grep -qxF -- "-- INTERFACE_INCLUDE_DIRECTORIES=$1/include" <<<"$out" ||
        { echo "$out"; return 1; }
}
# pkg_config_points_to PREFIX: pkg-config's flags for voicenote name PREFIX (after resolving ..), and the version.
pkg_config_points_to() {
    local libs cflags modversion libdir incdir
    modversion=$(PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --modversion voicenote) || return 1
    libs=$(PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --libs voicenote | xargs) || return 1
    cflags=$(PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --cflags voicenote | xargs) || return 1
    echo "modversion: $modversion"; echo "libs: $libs"; echo "cflags: $cflags"
    expect_eq "$version" "$modversion" || return 1
    [[ $libs =~ ^-L([^ ]+)\ -lvoicenote$ ]] || { echo "unexpected --libs"; return 1; }
    libdir=$(realpath "${BASH_REMATCH[1]}") || return 1
    [[ $cflags =~ ^-I([^ ]+)$ ]] || { echo "unexpected --cflags (Requires.private leaking?)"; return 1; }
    incdir=$(realpath "${BASH_REMATCH[1]}") || return 1
    expect_eq "$(realpath "$1/lib")" "$libdir" && expect_eq "$(realpath "$1/include")" "$incdir"
}
is_stripped() { file -L "$1" | tee /dev/stderr | grep -q ', stripped'; }
soname_is() { readelf -d "$1" | grep -F '(SONAME)' | tee /dev/stderr | grep -qF "[$2]"; }
symlink_is() { [[ -L $1 ]] && expect_eq "$2" "$(readlink "$1")"; }
only_vn_exported() {
    local others
    others=$(nm -D --defined-only --extern-only --without-symbol-versions "$1" | awk '$2 ~ /^[TDRBWVi]$/ && $3 !~ /^vn_/ {print $3}')
    [[ -z $others ]] || { echo "exported besides vn_*:"; echo "$others"; return 1; }
    # (grep on a captured list: `nm | grep -q` fails under pipefail when grep exits before nm finishes writing)
    local defined
    defined=$(nm -D --defined-only "$1")
    grep -q ' T vn_version_number' <<<"$defined" || { echo "vn_version_number is not exported"; return 1; }
}
no_file_records() {
    # Text files only; the binaries are checked through their RUNPATH below.
    if grep -rIlF -- "$2" "$1"; then echo "^ these installed files record the prefix $2"; return 1; fi
}
runpath_not_absolute() {
    local runpath
    runpath=$(readelf -d "$1" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    echo "RUNPATH of $1: '${runpath}'"
    [[ -z $runpath || $runpath != */* || $runpath == '$ORIGIN'* ]]
}

# binding_installed PREFIX glib|gtk: voicenote-BINDING's library is stripped, named by its SONAME, finds what it needs
# beside it (RUNPATH $ORIGIN), has its .so link; include/voicenote-BINDING-1/ holds the public headers as in the repo.
binding_installed() {
    local lib=$1/lib/libvoicenote-$2-1.so.0 dir=$repo/bindings/$2 header
    is_stripped "$lib" && soname_is "$lib" "libvoicenote-$2-1.so.0" &&
        symlink_is "$1/lib/libvoicenote-$2-1.so" libvoicenote-$2-1.so.0 || return 1
    expect_eq '$ORIGIN' "$(readelf -d "$lib" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')" || return 1
    for header in "voicenote-$2.h" $(sed -n 's/^#include "\(.*\)"$/\1/p' "$dir/voicenote-$2.h"); do
        cmp "$dir/$header" "$1/include/voicenote-$2-1/$header" || return 1
    done
    expect_eq "$(ls "$1/include/voicenote-$2-1" | wc -l)" "$(( $(grep -c '^#include "' "$dir/voicenote-$2.h") + 1 ))"
}
no_file_records_checkout() {
    if grep -rlF -- "$repo" "$1"; then echo "^ these installed files record the checkout $repo"; return 1; fi
}
# gnome_pkg_config PREFIX: pkg-config finds voicenote-glib-1 and voicenote-gtk-1 in PREFIX (resolving ..), each with
# its own include directory and libvoicenote's.
gnome_pkg_config() {
    local pc=$1/lib/pkgconfig cflags libs
    expect_eq "1.0.0 1.0.0" "$(PKG_CONFIG_PATH=$pc pkg-config --modversion voicenote-glib-1 voicenote-gtk-1 | xargs)" || return 1
    cflags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags-only-I voicenote-gtk-1) || return 1
    libs=$(PKG_CONFIG_PATH=$pc pkg-config --libs-only-L voicenote-gtk-1) || return 1
    echo "cflags: $cflags"; echo "libs: $libs"
    local include want=("$1/include/voicenote-gtk-1" "$1/include/voicenote-glib-1" "$1/include")
    for include in "${want[@]}"; do
        grep -qw -- "-I$(realpath "$include")" <<<"$(resolved_paths $cflags)" || { echo "no -I$include"; return 1; }
    done
    expect_eq "-L$(realpath "$1/lib")" "$(resolved_paths $libs | sort -u)"
}
# resolved_paths -XPATH...: each flag with its path resolved, one a line.
resolved_paths() {
    local flag
    for flag in "$@"; do echo "${flag:0:2}$(realpath "${flag:2}")"; done
}
# only_prefix_files PREFIX OUTPUT: every voicenote library OUTPUT names (a line each) is in PREFIX, and
# voicenote-glib's and libvoicenote are among them.
only_prefix_files() {
    echo "$2"
    local path
    while read -r path; do
        [[ $path == "$1/"* ]] || { echo "$path is not in $1"; return 1; }
    done < <(grep '^/' <<<"$2")
    for path in libvoicenote-glib-1.so.0 libvoicenote.so.$version; do
        grep -qxF "$1/lib/$path" <<<"$2" || { echo "$1/lib/$path was not loaded"; return 1; }
    done
}
gnome=$repo/scripts/test-install-gnome
# gnome_c_player PREFIX OUT: player.c built with the prefix's pkg-config only, run on the file speaker over the note.
gnome_c_player() {
    local out
    env PKG_CONFIG_PATH="$1/lib/pkgconfig" bash -c 'cc -std=c11 -Wall -Wextra -Werror -o "$0" "$1" \
        $(pkg-config --cflags --libs voicenote-glib-1)' "$2" "$gnome/player.c" || return 1
    out=$(env LD_LIBRARY_PATH="$1/lib" "$2" vn_spk "$(cat "$tmp/speaker.conf")" "$note") || { echo "$out"; return 1; }
    only_prefix_files "$1" "$(sort -u <<<"$out")"
}
# gnome_under_x PREFIX TYPELIB_PATH PROGRAM...: PROGRAM on a virtual X server with the prefix's libraries and
# GI_TYPELIB_PATH (none when empty: the system's directories only).
gnome_under_x() {
    local prefix=$1 typelibs=$2; shift 2
    env -u GI_TYPELIB_PATH ${typelibs:+GI_TYPELIB_PATH="$typelibs"} LD_LIBRARY_PATH="$prefix/lib" GDK_BACKEND=x11 \
        GTK_A11Y=none timeout 60 xvfb-run -a "$@"
}
# gnome_python PREFIX TYPELIB_DIR [GI_TYPELIB_PATH]: widgets.py finds the typelibs in TYPELIB_DIR (through
# GI_TYPELIB_PATH, TYPELIB_DIR unless given) and the libraries in PREFIX/lib.
gnome_python() {
    local out
    out=$(cd "$tmp" && gnome_under_x "$1" "${3-$2}" /usr/bin/python3 "$gnome/widgets.py" vn_spk "$(cat "$tmp/speaker.conf")") ||
        { echo "$out"; return 1; }
    only_prefix_files "$1" "$out" && grep -qxF "['$2/VoicenoteGtk-1.0.typelib']" <<<"$out" &&
        grep -qxF "['$2/Voicenote-1.0.typelib']" <<<"$out" && grep -qxF "$1/lib/libvoicenote-gtk-1.so.0" <<<"$out"
}
# gnome_translated PREFIX: voicenote-gtk, loaded from PREFIX by Python (gi) with LANGUAGE=de, binds its text domain to
# PREFIX/share/locale and translates from the German catalogue installed there.
gnome_translated() {
    local out
    out=$(cd "$tmp" && LANGUAGE=de LC_ALL=C.UTF-8 gnome_under_x "$1" "$1/lib/girepository-1.0" /usr/bin/python3 -c '
import ctypes, gi
gi.require_version("Gtk", "4.0"); gi.require_version("VoicenoteGtk", "1.0")
from gi.repository import Gtk, VoicenoteGtk
Gtk.init()
VoicenoteGtk.Waveform()
libc = ctypes.CDLL(None)
libc.bindtextdomain.restype = libc.dgettext.restype = ctypes.c_char_p
print(libc.bindtextdomain(b"voicenote-gtk-1", None).decode())
print(libc.dgettext(b"voicenote-gtk-1", b"Play").decode())
') || { echo "$out"; return 1; }
    echo "$out"
    expect_eq "$(realpath "$1")/share/locale" "$(sed -n 1p <<<"$out")" && expect_eq "Abspielen" "$(sed -n 2p <<<"$out")"
}
# gnome_vala PREFIX OUT: widgets.vala compiled with the prefix's vapidir and pkg-config files only, then run.
gnome_vala() {
    mkdir -p "$2.c" &&
        env PKG_CONFIG_PATH="$1/lib/pkgconfig" valac --fatal-warnings -X -w --pkg voicenote-gtk-1 \
            --vapidir "$1/share/vala/vapi" --directory "$2.c" --basedir "$gnome" -o "$2" "$gnome/widgets.vala" &&
        gnome_under_x "$1" "" "$2" vn_spk "$(cat "$tmp/speaker.conf")"
}
# gnome_proof PREFIX LANGUAGE: the proof from four languages (bindings/gtk/tests/proof: one chat window in Python,
# JavaScript, Vala and C) in LANGUAGE over the prefix only — its typelibs, libraries, and for Vala and C its vapi and
# pkg-config files, as a user's program is built — driven by drive.py through real X input on its own X server; its
# screenshots are kept in build/test-output/proof/LANGUAGE.
gnome_proof() {
    local prefix=$1 language=$2 work=$tmp/proof-$2 program=()
    local output=${VOICENOTE_TEST_OUTPUT:-$repo/build/test-output}/proof/$language
    mkdir -p "$work" "$output"
    case $language in
        python) program=(/usr/bin/python3 "$proof/app.py") ;;
        gjs) program=(gjs -m "$proof/app.js") ;;
        vala)
            env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" valac --fatal-warnings -X -w --pkg voicenote-gtk-1 \
                --pkg gtk4-x11 --pkg gio-unix-2.0 --vapidir "$prefix/share/vala/vapi" --directory "$work/c" \
                --basedir "$proof" -o "$work/app" "$proof/app.vala" -X -lm || return 1
            program=("$work/app") ;;
        c)
            env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" bash -c 'cc -std=c11 -Wall -Wextra -Werror -o "$0" "$1" \
                $(pkg-config --cflags --libs voicenote-gtk-1 gtk4-x11 gio-unix-2.0) -lm' "$work/app" "$proof/app.c" ||
                return 1
            program=("$work/app") ;;
    esac
    GTK_THEME= GSETTINGS_BACKEND=memory gnome_under_x "$prefix" "$prefix/lib/girepository-1.0" /usr/bin/python3 \
        "$proof/drive.py" "$output" "${program[@]}"
}
proof=$repo/bindings/gtk/tests/proof

qml=lib/qt6/qml
qml_host_dir=$repo/scripts/test-install-qml
qmllint=/usr/lib/qt6/bin/qmllint
# qml_installed PREFIX: PREFIX/lib/qt6/qml/Voicenote holds the plugin (stripped, RUNPATH $ORIGIN/../../..: PREFIX/lib),
# the qmldir naming the module and its .qmltypes, and that .qmltypes.
qml_installed() {
    local dir=$1/$qml/Voicenote
    is_stripped "$dir/libvoicenote_qml.so" || return 1
    expect_eq '$ORIGIN/../../..' "$(readelf -d "$dir/libvoicenote_qml.so" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')" &&
        grep -qx 'module Voicenote' "$dir/qmldir" && grep -qx 'typeinfo voicenote_qml.qmltypes' "$dir/qmldir" &&
        grep -q 'name: "voicenote_qml::VoicePlayer"' "$dir/voicenote_qml.qmltypes"
}
# qml_lint IMPORT_DIR: qmllint with IMPORT_DIR on its import path (none when empty: Qt's own only) passes the file
# using every type (bindings/qml/tests/TypesInUse.qml) and the host's play.qml with no warning at all.
qml_lint() {
    local out
    out=$("$qmllint" ${1:+-I "$1"} "$repo/bindings/qml/tests/TypesInUse.qml" "$qml_host_dir/play.qml" \
        "$qml_host_dir/translated.qml" 2>&1) ||
        { echo "$out"; return 1; }
    [[ -z $out ]] || { echo "$out"; return 1; }
}
qml_lint_fails() { ! qml_lint "$@"; }
# qml_host PREFIX OUT IMPORT_DIR [--system]: the host built with CMake from PREFIX (find_package(voicenote COMPONENTS
# qml), voicenote::qml) and run offscreen with no LD_LIBRARY_PATH: it plays the note through a VoicePlayer on the file
# speaker (which receives it), having loaded IMPORT_DIR's plugin and PREFIX's libvoicenote and no other; with
# --system the host adds no import path and Qt's own finds the module.
qml_host() {
    local prefix=$1 out=$2 import=$3 output; shift 3
    cmake -S "$qml_host_dir" -B "$out" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_COMPILE_WARNING_AS_ERROR=ON > /dev/null && cmake --build "$out" || return 1
    rm -f "$tmp/speaker.raw"
    output=$(env -u QML_IMPORT_PATH -u QML2_IMPORT_PATH -u LD_LIBRARY_PATH QT_QPA_PLATFORM=offscreen \
        XDG_RUNTIME_DIR="$tmp" XDG_CACHE_HOME="$tmp/qml-cache" timeout 30 \
        "$out/qml-host" "$qml_host_dir/play.qml" "$note" vn_spk "$(cat "$tmp/speaker.conf")" "$@" 2>&1) ||
        { echo "$output"; return 1; }
    echo "$output"
    expect_eq "$(printf '%s\n' "$prefix/lib/libvoicenote.so.$version" "$import/Voicenote/libvoicenote_qml.so" | sort)" \
        "$(grep '^/' <<<"$output" | sort)" || return 1
    [[ $* == --system ]] || grep -qxF "import path: $import" <<<"$output" ||
        { echo "voicenote::qml gave another path"; return 1; }
    [[ -s $tmp/speaker.raw ]] || { echo "the speaker received nothing"; return 1; }
}
# qml_translated OUT [--system]: the host qml_host built in OUT, run offscreen with LANGUAGE=de, makes a RecordButton
# of the module (translated.qml) and finds its accessible name German: the plugin installed its own catalogue.
qml_translated() {
    local out=$1; shift
    env -u QML_IMPORT_PATH -u QML2_IMPORT_PATH -u LD_LIBRARY_PATH QT_QPA_PLATFORM=offscreen LANGUAGE=de \
        XDG_RUNTIME_DIR="$tmp" XDG_CACHE_HOME="$tmp/qml-cache" timeout 30 \
        "$out/qml-host" "$qml_host_dir/translated.qml" "$note" vn_spk "$(cat "$tmp/speaker.conf")" "$@"
}
# qml_component_required PREFIX: find_package(voicenote COMPONENTS qml) fails once the module is gone (moved away for
# the check), and voicenote without the component is still found.
qml_component_required() {
    local dir=$1/$qml/Voicenote status=0
    mv "$dir" "$dir.away" || return 1
    find_package_refuses "$1" 0.1 COMPONENTS qml && find_package_result "$1" 0.1 > /dev/null || status=1
    mv "$dir.away" "$dir"
    return $status
}

echo "== test-install: voicenote $version"
prefix=$tmp/prefix
# build_cpp_with_cmake PREFIX DIR: the C++ samples with bindings/cpp/samples/CMakeLists.txt (find_package).
build_cpp_with_cmake() {
    cmake -S "$repo/bindings/cpp/samples" -B "$2" "${generator[@]}" -DCMAKE_PREFIX_PATH="$1" \
        -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DVOICENOTE_SAMPLE_ARGS_waveform="$note" -DVOICENOTE_SAMPLE_ARGS_record="$record_args" \
        -DVOICENOTE_SAMPLE_ARGS_play="$play_args" -DVOICENOTE_SAMPLE_ARGS_queue="$queue_args" \
        -DVOICENOTE_SAMPLE_ARGS_flow="$flow_args" -DVOICENOTE_SAMPLE_ARGS_convert="$convert_args" \
        -DVOICENOTE_SAMPLE_ARGS_waveforms="$waveforms_args" &&
        cmake --build "$2" &&
        ctest --test-dir "$2" --output-on-failure
}
# cpp_headers_installed PREFIX: voicenote.hpp and every part of it, as in the repo.
cpp_headers_installed() {
    local part
    cmp "$repo/include/voicenote.hpp" "$1/include/voicenote.hpp" || return 1
    for part in "$repo"/include/voicenote/*.hpp; do
        cmp "$part" "$1/include/voicenote/$(basename "$part")" || return 1
    done
}
if ! make -s -C "$repo" install PREFIX="$prefix" >"$log" 2>&1; then
    cat "$log"
    echo "test-install: make install failed"
    echo "0 passed, 1 failed"
    exit 1
fi
passed=$((passed + 1)); echo "ok    make install PREFIX=$prefix"

echo "== a) pkg-config + Makefile"
check "pkg-config finds voicenote $version in the prefix" pkg_config_points_to "$prefix"
check "samples build with bindings/c/Makefile and run" build_with_make "$prefix" "$tmp/make-samples"
check "play.c plays an http URL with a header and a key, then from the cache" play_url "$prefix" "$tmp/make-samples"
check "attachment.c uploads a note to http_server.py (multipart and raw), record.c a take while recording it" upload_note "$prefix" "$tmp/make-samples"

echo "== b) CMake find_package"
check "the imported target voicenote::voicenote points into the prefix" imported_target_is "$prefix"
check "find_package(voicenote $version EXACT) is accepted" find_package_result "$prefix" "$version" EXACT
minor=${version#*.}
minor=${minor%%.*}
check "find_package(voicenote $major.$((minor + 1))) is refused" find_package_refuses "$prefix" "$major.$((minor + 1))"
check "find_package(voicenote $((major + 1))) is refused (SameMajorVersion)" find_package_refuses "$prefix" "$((major + 1))"
check "samples build with bindings/c/CMakeLists.txt and run" build_with_cmake "$prefix" "$tmp/cmake-samples"
check "CMake-built samples load the prefix's library" cmake_links_to "$prefix" "$tmp/cmake-samples"
check "C++ samples build with bindings/cpp/samples/CMakeLists.txt and run" build_cpp_with_cmake "$prefix" "$tmp/cmake-cpp-samples"

echo "== d) installed files"
lib=$prefix/lib/libvoicenote.so.$version
check "lib/libvoicenote.so.$version is stripped" is_stripped "$lib"
check "bin/voicenote is stripped" is_stripped "$prefix/bin/voicenote"
check "SONAME is libvoicenote.so.$major" soname_is "$lib" "libvoicenote.so.$major"
check "lib/libvoicenote.so.$major -> libvoicenote.so.$version" symlink_is "$prefix/lib/libvoicenote.so.$major" "libvoicenote.so.$version"
check "lib/libvoicenote.so -> libvoicenote.so.$major" symlink_is "$prefix/lib/libvoicenote.so" "libvoicenote.so.$major"
check "only vn_* symbols are exported" only_vn_exported "$lib"
check "include/voicenote.h is the repo's header" cmp "$repo/include/voicenote.h" "$prefix/include/voicenote.h"
check "include/voicenote.hpp and include/voicenote/*.hpp are the repo's" cpp_headers_installed "$prefix"
check "the CMake config and version files are installed" test -f "$prefix/lib/cmake/voicenote/voicenoteConfig.cmake" -a -f "$prefix/lib/cmake/voicenote/voicenoteConfigVersion.cmake"
check "no installed text file records the prefix" no_file_records "$prefix" "$prefix"
check "the library's RUNPATH names no absolute directory" runpath_not_absolute "$lib"
check "bin/voicenote runs" "$prefix/bin/voicenote" --help
for binding in glib gtk; do
    check "lib/libvoicenote-$binding-1.so.0: stripped, RUNPATH \$ORIGIN, .so link; its headers the repo's" \
        binding_installed "$prefix" "$binding"
done
check "lib/qt6/qml/Voicenote: the plugin stripped, RUNPATH \$ORIGIN/../../.., its qmldir and .qmltypes" \
    qml_installed "$prefix"
check "no installed file records the checkout (binaries too)" no_file_records_checkout "$prefix"

echo "== c) the prefix moved"
moved=$tmp/moved/somewhere/else
mkdir -p "$(dirname "$moved")"
mv "$prefix" "$moved"
check "pkg-config follows the moved prefix" pkg_config_points_to "$moved"
check "the imported target follows the moved prefix" imported_target_is "$moved"
check "samples build with CMake from the moved prefix and run" build_with_cmake "$moved" "$tmp/cmake-samples-moved"
check "CMake-built samples load the moved prefix's library" cmake_links_to "$moved" "$tmp/cmake-samples-moved"
check "samples build with the Makefile from the moved prefix and run" build_with_make "$moved" "$tmp/make-samples-moved"

echo "== e) Python package from the moved prefix"
# pip_install: installs a copy of bindings/python (pip builds in the source tree; keep the repo clean).
pip_install() {
    cp -r "$repo/bindings/python" "$tmp/python-src" &&
        rm -rf "$tmp/python-src/build" "$tmp/python-src"/*.egg-info &&
        VOICENOTE_HEADER="$repo/include/voicenote.h" \
        "$python" -m pip install --quiet --no-deps --target "$moved/python" "$tmp/python-src"
}
# python_reports_version: imports the installed package from outside the repo and checks the version and
# which files it used.
python_reports_version() {
    local out
    out=$(cd "$tmp" && env -u VOICENOTE_LIBRARY PYTHONPATH="$moved/python" LD_LIBRARY_PATH="$moved/lib" \
        "$python" -c '
import voicenote
print(voicenote.version())
print(voicenote.__file__)
with open("/proc/self/maps") as maps:
    print(sorted({line.split()[-1] for line in maps if "libvoicenote" in line}))
print(voicenote.__version__)
') || { echo "$out"; return 1; }
    echo "$out"
    expect_eq "$version" "$(sed -n 1p <<<"$out")" || return 1
    [[ $(sed -n 2p <<<"$out") == "$moved/python/"* ]] || { echo "imported voicenote from outside $moved/python"; return 1; }
    [[ $(sed -n 3p <<<"$out") == "['$moved/lib/libvoicenote.so.$version']" ]] ||
        { echo "expected only $moved/lib/libvoicenote.so.$version to be loaded"; return 1; }
    expect_eq "$version" "$(sed -n 4p <<<"$out")"  # the package's own version, written into it by setup.py
}
if [[ -f $repo/bindings/python/pyproject.toml ]]; then
    check "pip install --target PREFIX/python bindings/python" pip_install
    check "python -c 'import voicenote; print(voicenote.version(), voicenote.__version__)' prints $version" python_reports_version
else
    skip "Python package: bindings/python/pyproject.toml does not exist yet"
fi

echo "== g) voicenote-glib and voicenote-gtk from the moved prefix"
check "pkg-config finds voicenote-glib-1 and voicenote-gtk-1 in the moved prefix" gnome_pkg_config "$moved"
check "a C program on VnPlayer builds with pkg-config and plays a note (the prefix's libraries)" \
    gnome_c_player "$moved" "$tmp/gnome-player"
if command -v xvfb-run >/dev/null; then
    check "Python (gi) makes a Voicenote.Player and VoicenoteGtk widgets from the prefix's typelibs" gnome_python "$moved" "$moved/lib/girepository-1.0"
    check "valac --pkg voicenote-gtk-1 builds a program from the prefix's vapi and .pc, and it runs" \
        gnome_vala "$moved" "$tmp/gnome-vala"
    check "voicenote-gtk translates from the moved prefix's share/locale (LANGUAGE=de)" gnome_translated "$moved"
    for language in python gjs vala c; do
        check "the proof in $language over the moved prefix: hold, lock, stop, trim, send, a note played at 2x" \
            gnome_proof "$moved" "$language"
    done
else
    skip "voicenote-gtk from Python and Vala, and the proof from four languages: xvfb-run (xvfb) is not installed"
fi

echo "== h) the QML module from the moved prefix"
check "qmllint with the prefix's import path passes every type with no warning" qml_lint "$moved/$qml"
if [[ ! -e $(/usr/lib/qt6/bin/qtpaths6 --query QT_INSTALL_QML)/Voicenote ]]; then
    check "qmllint without it warns (the import is checked)" qml_lint_fails ""
else
    skip "qmllint without the prefix's import path: a Voicenote module is installed on Qt's own"
fi
check "a QML host builds with find_package(voicenote COMPONENTS qml) + voicenote::qml and plays a note (offscreen)" \
    qml_host "$moved" "$tmp/qml-host" "$moved/$qml"
check "with LANGUAGE=de the host's RecordButton from the moved prefix is named in German" qml_translated "$tmp/qml-host"
check "find_package(voicenote COMPONENTS qml) fails without the module" qml_component_required "$moved"

echo "== f) Debian packages (make deb)"
debs=$tmp/debs
# deb_holds DEB PATH...: the package's file list has each PATH (./usr/...), and nothing under usr/ besides
# them and its doc directory.
deb_holds() {
    local deb=$1 listed expected; shift
    listed=$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$' | grep -v '^./usr/share/doc/' | sort)
    expected=$(printf '%s\n' "$@" | sort)
    expect_eq "$expected" "$listed"
}
# deb_depends_on DEB PACKAGE...: each PACKAGE is named in the Depends field.
deb_depends_on() {
    local deb=$1 depends package; shift
    depends=$(dpkg-deb -f "$deb" Depends)
    for package in "$@"; do
        grep -Eq "(^|, )$package( |,|$)" <<<"$depends" || { echo "Depends lacks $package: $depends"; return 1; }
    done
}
if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
    check "make deb builds ten packages" make -s -C "$repo" deb DEBDIR="$debs"
    arch=$(dpkg --print-architecture)
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    runtime=$debs/libvoicenote${major}_${version}_$arch.deb dev=$debs/libvoicenote-dev_${version}_$arch.deb
    tools=$debs/voicenote-tools_${version}_$arch.deb
    # voicenote-glib's and voicenote-gtk's: library, typelib and -dev packages, as Debian names them.
    gnome_names=(libvoicenote-glib-1-0 gir1.2-voicenote-1.0 libvoicenote-glib-dev
        libvoicenote-gtk-1-0 gir1.2-voicenotegtk-1.0 libvoicenote-gtk-dev)
    gnome_debs=()
    for name in "${gnome_names[@]}"; do gnome_debs+=("$debs/${name}_${version}_$arch.deb"); done
    qml_deb=$debs/qml6-module-voicenote_${version}_$arch.deb
    system_qml=/usr/lib/$multiarch/qt6/qml
    check "libvoicenote$major holds the library and its SONAME link" deb_holds "$runtime" \
        "./usr/lib/libvoicenote.so.$version" "./usr/lib/libvoicenote.so.$major"
    check "libvoicenote-dev holds the headers, the .so link, pkg-config and CMake files" deb_holds "$dev" \
        ./usr/include/voicenote.h ./usr/include/voicenote.hpp $(cd "$repo/include" && printf './usr/include/%s ' voicenote/*.hpp) \
        ./usr/lib/libvoicenote.so ./usr/lib/pkgconfig/voicenote.pc \
        ./usr/lib/cmake/voicenote/voicenoteConfig.cmake ./usr/lib/cmake/voicenote/voicenoteConfigVersion.cmake
    check "voicenote-tools holds the CLI" deb_holds "$tools" ./usr/bin/voicenote
    check "libvoicenote$major depends on ALSA, Opus and FFmpeg's libraries" deb_depends_on "$runtime" \
        libasound2 libopus0 libopusenc0 libopusfile0 libogg0 libavformat59 libavcodec59 libswresample4 libavutil57
    check "libvoicenote-dev depends on libvoicenote$major (= $version)" deb_depends_on "$dev" "libvoicenote$major \\(= $version\\)"
    check "libvoicenote$major declares its shlibs" expect_eq "libvoicenote $major libvoicenote$major (>= $version)" \
        "$(dpkg-deb --ctrl-tarfile "$runtime" | tar -xO ./shlibs)"
    for binding in glib gtk; do
        namespace=Voicenote; [[ $binding == gtk ]] && namespace=VoicenoteGtk
        pc=voicenote-$binding-1
        catalogues=()
        [[ $binding == gtk ]] && catalogues=($(cd "$repo/bindings/gtk/po" && printf "./usr/share/locale/%s/LC_MESSAGES/voicenote-gtk-1.mo " $(cat LINGUAS)))
        check "libvoicenote-$binding-1-0 holds the library${catalogues:+ and its translations}" \
            deb_holds "$debs/libvoicenote-$binding-1-0_${version}_$arch.deb" "./usr/lib/libvoicenote-$binding-1.so.0" \
            "${catalogues[@]}"
        check "gir1.2-${namespace,,}-1.0 holds the typelib in usr/lib/$multiarch/girepository-1.0" \
            deb_holds "$debs/gir1.2-${namespace,,}-1.0_${version}_$arch.deb" \
            "./usr/lib/$multiarch/girepository-1.0/$namespace-1.0.typelib"
        check "libvoicenote-$binding-dev holds the headers, the .so link, the .pc, the .gir and the vapi" \
            deb_holds "$debs/libvoicenote-$binding-dev_${version}_$arch.deb" \
            $(cd "$moved/include/$pc" && printf "./usr/include/$pc/%s " *.h) \
            "./usr/lib/libvoicenote-$binding-1.so" "./usr/lib/pkgconfig/$pc.pc" "./usr/share/gir-1.0/$namespace-1.0.gir" \
            "./usr/share/vala/vapi/$pc.vapi" "./usr/share/vala/vapi/$pc.deps"
        check "libvoicenote-$binding-1-0 declares its shlibs" \
            expect_eq "libvoicenote-$binding-1 0 libvoicenote-$binding-1-0 (>= $version)" \
            "$(dpkg-deb --ctrl-tarfile "$debs/libvoicenote-$binding-1-0_${version}_$arch.deb" | tar -xO ./shlibs)"
    done
    check "qml6-module-voicenote holds exactly the module, in usr/lib/$multiarch/qt6/qml/Voicenote" \
        deb_holds "$qml_deb" \
        $(cd "$moved/$qml" && find Voicenote -type f | sed "s|^|.$system_qml/|")
    check "qml6-module-voicenote depends on Qt Quick (libraries and QML module) and libvoicenote$major" deb_depends_on \
        "$qml_deb" libqt6quick6 libqt6qml6 qml6-module-qtquick "libvoicenote$major \\(>= $version\\)"
    check "libvoicenote-glib-1-0 depends on GLib and libvoicenote$major" deb_depends_on \
        "$debs/libvoicenote-glib-1-0_${version}_$arch.deb" libglib2.0-0 "libvoicenote$major \\(>= $version\\)"
    check "libvoicenote-gtk-1-0 depends on GTK 4, libvoicenote-glib-1-0 and libvoicenote$major" deb_depends_on \
        "$debs/libvoicenote-gtk-1-0_${version}_$arch.deb" libgtk-4-1 "libvoicenote-glib-1-0 \\(>= $version\\)" \
        "libvoicenote$major \\(>= $version\\)"
    check "gir1.2-voicenote-1.0 depends on its library and gir1.2-glib-2.0" deb_depends_on \
        "$debs/gir1.2-voicenote-1.0_${version}_$arch.deb" "libvoicenote-glib-1-0 \\(>= $version\\)" gir1.2-glib-2.0
    check "gir1.2-voicenotegtk-1.0 depends on its library, gir1.2-gtk-4.0 and gir1.2-voicenote-1.0" deb_depends_on \
        "$debs/gir1.2-voicenotegtk-1.0_${version}_$arch.deb" "libvoicenote-gtk-1-0 \\(>= $version\\)" gir1.2-gtk-4.0 \
        "gir1.2-voicenote-1.0 \\(>= $version\\)"
    check "libvoicenote-glib-dev depends on its library, typelib, libglib2.0-dev and libvoicenote-dev" deb_depends_on \
        "$debs/libvoicenote-glib-dev_${version}_$arch.deb" "libvoicenote-glib-1-0 \\(= $version\\)" \
        "gir1.2-voicenote-1.0 \\(= $version\\)" libglib2.0-dev "libvoicenote-dev \\(= $version\\)"
    check "libvoicenote-gtk-dev depends on its library, typelib, libgtk-4-dev and libvoicenote-glib-dev" deb_depends_on \
        "$debs/libvoicenote-gtk-dev_${version}_$arch.deb" "libvoicenote-gtk-1-0 \\(= $version\\)" \
        "gir1.2-voicenotegtk-1.0 \\(= $version\\)" libgtk-4-dev "libvoicenote-glib-dev \\(= $version\\)"
    # Lintian, Debian's package checker, beside the checks below (it takes ~10 s): an error (E:) fails; its warnings
    # are shown with the result.
    if command -v lintian >/dev/null; then
        lintian --fail-on error --tag-display-limit 0 "$runtime" "$dev" "$tools" "${gnome_debs[@]}" "$qml_deb" \
            >"$tmp/lintian.log" 2>&1 &
        lintian_pid=$!
    fi
    root=$tmp/debroot
    check "the packages extract" bash -c 'for d; do dpkg -x "$d" "$0" || exit 1; done' "$root" "$runtime" "$dev" "$tools" \
        "${gnome_debs[@]}" "$qml_deb"
    check "samples build with pkg-config from the extracted packages and run" build_with_make "$root/usr" "$tmp/deb-make"
    check "samples build with CMake from the extracted packages and run" build_with_cmake "$root/usr" "$tmp/deb-cmake"
    check "the packaged voicenote runs" "$root/usr/bin/voicenote" version
    check "qmllint passes every type with the extracted package's import path" qml_lint "$root$system_qml"
    check "pkg-config finds voicenote-glib-1 and voicenote-gtk-1 in the extracted packages" gnome_pkg_config "$root/usr"
    check "a C program on VnPlayer builds from the extracted packages and plays a note" \
        gnome_c_player "$root/usr" "$tmp/deb-gnome-player"
    if command -v xvfb-run >/dev/null; then
        check "Python (gi) uses the extracted packages' typelibs and libraries" \
            gnome_python "$root/usr" "$root/usr/lib/$multiarch/girepository-1.0"
        check "valac --pkg voicenote-gtk-1 builds from the extracted packages, and the program runs" \
            gnome_vala "$root/usr" "$tmp/deb-gnome-vala"
    fi
    if [[ -n ${lintian_pid:-} ]]; then
        lintian_passed() { local status=0; wait "$lintian_pid" || status=$?; grep -v '^running with root' "$tmp/lintian.log"; return $status; }
        check "lintian finds no error in the ten packages" lintian_passed
        grep -E '^W: ' "$tmp/lintian.log" | sed 's/^/      lintian /' || true
    else
        skip "lintian over the packages: lintian is not installed"
    fi
    if [[ $(id -u) -eq 0 ]] && ! dpkg-query -W libvoicenote-dev >/dev/null 2>&1; then
        # purge_debs: removes what this test installed, whatever happened before.
        # (the GNOME packages first: they depend on the others)
        installed=(qml6-module-voicenote
            libvoicenote-gtk-dev gir1.2-voicenotegtk-1.0 libvoicenote-gtk-1-0 libvoicenote-glib-dev
            gir1.2-voicenote-1.0 libvoicenote-glib-1-0 voicenote-tools libvoicenote-dev "libvoicenote$major")
        # dpkg_when_free ARGS...: dpkg, waiting (up to 120 s, looking each second) while another package manager
        # (apt, unattended-upgrades) holds dpkg's lock, as apt's DPkg::Lock::Timeout waits; any other failure at once.
        dpkg_when_free() {
            local out status deadline=$((SECONDS + 120))
            while :; do
                status=0; out=$(dpkg "$@" 2>&1) || status=$?
                [[ $status != 0 && $out == *"dpkg frontend lock"* && $SECONDS -lt $deadline ]] || break
                sleep 1
            done
            printf '%s\n' "$out"
            return $status
        }
        purge_debs() { dpkg_when_free --purge "${installed[@]}" >/dev/null 2>&1 || true; }
        trap 'purge_debs; rm -rf "$tmp"' EXIT
        check "dpkg -i installs the ten packages" dpkg_when_free -i "$runtime" "$dev" "$tools" "${gnome_debs[@]}" "$qml_deb"
        check "samples build with the system's pkg-config and run" build_with_make /usr "$tmp/deb-system-make"
        check "samples build with CMake from /usr and run" build_with_cmake /usr "$tmp/deb-system-cmake"
        check "voicenote from the package runs" /usr/bin/voicenote version
        check "a C program on VnPlayer builds with the system's pkg-config and plays a note" \
            gnome_c_player /usr "$tmp/deb-system-gnome-player"
        if command -v xvfb-run >/dev/null; then
            check "Python (gi) finds the typelibs in the system's directory (no GI_TYPELIB_PATH)" \
                gnome_python /usr "/usr/lib/$multiarch/girepository-1.0" ""
        fi
        check "qmllint passes every type with Qt's own import path only (the packaged module)" qml_lint ""
        check "the QML host builds from /usr and plays a note, the module found on Qt's own import path" \
            qml_host /usr "$tmp/deb-system-qml-host" "$system_qml" --system
        check "with LANGUAGE=de the packaged module's RecordButton is named in German" \
            qml_translated "$tmp/deb-system-qml-host" --system
        check "dpkg --purge removes them" dpkg_when_free --purge "${installed[@]}"
        check "nothing of them is left in /usr" bash -c '! ls /usr/lib/libvoicenote* /usr/include/voicenote.h /usr/bin/voicenote \
            /usr/include/voicenote-g* /usr/lib/*/girepository-1.0/Voicenote* /usr/share/gir-1.0/Voicenote* \
            /usr/share/vala/vapi/voicenote-* /usr/lib/pkgconfig/voicenote* /usr/lib/*/qt6/qml/Voicenote 2>/dev/null | grep -q .'
    else
        skip "dpkg -i: needs root and no voicenote packages already installed"
    fi
else
    skip "Debian packages: dpkg-deb or dpkg-shlibdeps (dpkg-dev) is not installed"
fi

echo "test-install: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
