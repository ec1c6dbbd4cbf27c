#!/usr/bin/env bash
# Runs each libFuzzer target: `fuzz.sh SECONDS` explores with a random seed for that long (`make fuzz`: 300 s);
# `fuzz.sh --runs N` replays the seeds and runs N inputs from a fixed seed (`make test`: reproducible in CI, so a
# run that passed here passes there). Seeds: speech in each format, made here, and every earlier finding
# (Tests/Fixtures/fuzz). A finding leaves crash-* files and fails.
set -euo pipefail
if [[ ${1:-} == --runs ]]; then
    limit=(-runs="${2:?usage: fuzz.sh --runs N}" -seed=1)
    what="${2} inputs from seed 1"
else
    limit=(-max_total_time="${1:-300}")
    what="${1:-300}s"
fi
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
swift build --sanitize=fuzzer --scratch-path .build-fuzz --product voicenote-fuzz-decoders >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
corpus=$work/corpus; mkdir -p "$corpus" "$work/findings"
espeak-ng -w "$work/s.wav" "A short voice note for the fuzzer." 2>/dev/null
sox -R "$work/s.wav" -r 16000 -c 1 "$work/speech.wav" trim 0 1
opusenc --quiet --serial 1 --bitrate 16 "$work/speech.wav" "$corpus/speech.ogg"
for spec in "aac:-f adts" "mp3:" "flac:" "m4a:" ; do
    ext=${spec%%:*}; args=${spec#*:}
    ffmpeg -nostdin -v error -i "$work/speech.wav" $args "$corpus/speech.$ext"
done
cp "$work/speech.wav" "$corpus/"
cp "$top"/Tests/Fixtures/fuzz/* "$corpus/"  # earlier findings: regressions seed every run
echo "fuzz: voicenote-fuzz-decoders, $what"
SWIFT_BACKTRACE=enable=no .build-fuzz/debug/voicenote-fuzz-decoders "$corpus" "${limit[@]}" \
    -rss_limit_mb=1024 -timeout=10 -artifact_prefix="$work/findings/" -print_final_stats=1 2>"$work/log" || {
    tail -40 "$work/log"
    mkdir -p "$top/build/fuzz-findings" && cp "$work"/findings/* "$top/build/fuzz-findings/" 2>/dev/null || true
    echo "fuzz: FINDING (inputs copied to build/fuzz-findings/)"
    exit 1
}
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/log" || true
echo "fuzz: no finding"
