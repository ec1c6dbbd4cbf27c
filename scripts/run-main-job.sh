#!/usr/bin/env bash
# The main job (`make run`): `voicenote demo` on this machine, sound card or not. The demo records a sentence
# spoken by espeak-ng through a virtual ALSA microphone and the hold-to-record flow, uploads it to the project's own
# loopback upload server (Tests/Servers/http_server.py, started here and stopped by its pid), and plays it back from
# the server's URL at 1x and 2x and in a queue of three notes, to the default device or to WAV files. Its files
# stay in BUILD_DIR/demo.
set -euo pipefail
build=$(cd "${1:?usage: run-main-job.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
out=$build/demo
rm -rf "$out" && mkdir -p "$out"
server_root=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$server_root"
}
trap cleanup EXIT

# The upload server prints "PORT <n>" once it listens.
exec {server_out}< <(exec "$python" "$top/Tests/Servers/http_server.py" --root "$server_root" \
    --log "$server_root/requests.log" --port 0 & echo "PID $!"; wait)
read -r word server_pid <&"$server_out" && [[ $word == PID ]]
if ! read -r -t 10 word port <&"$server_out" || [[ $word != PORT ]]; then
    echo "run-main-job: the upload server did not start within 10 s" >&2
    exit 1
fi
echo "== voicenote demo (an upload server listens on 127.0.0.1:$port)"
"$build/bin/voicenote" demo --output-dir "$out" --endpoint "http://127.0.0.1:$port/channels/messaging/demo/file"
