#!/usr/bin/env bash
# Runs each libFuzzer target: `fuzz.sh SECONDS` explores each with a random seed for that long (`make fuzz`:
# 300 s); `fuzz.sh --runs N` replays the seeds and runs N inputs from a fixed seed (`make test`: reproducible in
# CI, so a run that passed here passes there). Targets and seeds:
#   voicenote-fuzz-decoders  speech in each format, made here, and every earlier finding (Tests/Fixtures/fuzz)
#   voicenote-fuzz-ffmpeg    FFmpeg's path alone with its whitelist: the decoder seeds, Ogg Vorbis and FLAC, and
#                            hostile containers (Tests/Fixtures/fuzz-ffmpeg: concat, DASH, HLS, gzip)
#   voicenote-fuzz-json      payloads and message lists (Tests/Fixtures/messages, Tests/Fixtures/fuzz-json)
# A finding leaves crash-* files and fails.
# `fuzz.sh --build-only` builds the targets and runs nothing; `fuzz.sh --built ...` runs targets built before. The
# targets run side by side (one process each), their reports shown in the order above.
set -euo pipefail
build=yes
case ${1:-} in
    --build-only) build=only ;;
    --built) build=no; shift ;;
esac
targets=(voicenote-fuzz-decoders voicenote-fuzz-ffmpeg voicenote-fuzz-json)
# Extra `swift build` arguments from the Makefile (its SANITIZER_SWIFTC: whole-module compilation), none by default.
read -r -a swiftc_flags <<<"${VOICENOTE_SWIFTC_FLAGS:-}"
if [[ $build == only ]]; then
    for target in "${targets[@]}"; do
        swift build --sanitize=fuzzer --scratch-path "$(dirname "$0")/../.build-fuzz" --product "$target" \
            ${swiftc_flags[@]+"${swiftc_flags[@]}"}
    done
    exit 0
fi
if [[ ${1:-} == --runs ]]; then
    limit=(-runs="${2:?usage: fuzz.sh --runs N}" -seed=1)
    what="${2} inputs from seed 1"
else
    limit=(-max_total_time="${1:-300}")
    what="${1:-300}s"
fi
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# The speech the decoder seeds are made of, made once before the targets run side by side.
speech() {
    espeak-ng -w "$work/s.wav" "A short voice note for the fuzzer." 2>/dev/null
    sox -R "$work/s.wav" -r 16000 -c 1 "$work/speech.wav" trim 0 1
}

decoder_seeds() {
    opusenc --quiet --serial 1 --bitrate 16 "$work/speech.wav" "$1/speech.ogg"
    for spec in "aac:-f adts" "mp3:" "flac:" "m4a:" ; do
        ext=${spec%%:*}; args=${spec#*:}
        ffmpeg -nostdin -v error -i "$work/speech.wav" $args "$1/speech.$ext"
    done
    cp "$work/speech.wav" "$1/"
    cp "$top"/Tests/Fixtures/fuzz/* "$1/"  # earlier findings: regressions seed every run
}

ffmpeg_seeds() {
    decoder_seeds "$1"
    ffmpeg -nostdin -v error -i "$work/speech.wav" -c:a libvorbis "$1/speech.oga" 2>/dev/null || true
    ffmpeg -nostdin -v error -i "$work/speech.wav" -c:a flac "$1/speech-flac.oga" 2>/dev/null || true
    head -c 65536 /dev/zero | gzip -9 > "$1/zeros.gz"
    cp "$top"/Tests/Fixtures/fuzz-ffmpeg/* "$1/"
}

json_seeds() {
    cp "$top"/Tests/Fixtures/messages/*.json "$top"/Tests/Fixtures/fuzz-json/* "$1/"
}

# fuzz TARGET SEEDER: seeds a corpus and runs the target on it; a finding is copied to build/fuzz-findings/.
fuzz() {
    local target=$1 corpus=$work/$1/corpus findings=$work/$1/findings
    mkdir -p "$corpus" "$findings"
    "$2" "$corpus"
    echo "fuzz: $target, $what"
    SWIFT_BACKTRACE=enable=no ".build-fuzz/debug/$target" "$corpus" "${limit[@]}" \
        -rss_limit_mb=1024 -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1 2>"$work/$target.log" || {
        tail -40 "$work/$target.log"
        mkdir -p "$top/build/fuzz-findings" && cp "$findings"/* "$top/build/fuzz-findings/" 2>/dev/null || true
        echo "fuzz: FINDING in $target (inputs copied to build/fuzz-findings/)"
        exit 1
    }
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$target.log" || true
    echo "fuzz: $target: no finding"
}

[[ $build == no ]] || for target in "${targets[@]}"; do
    swift build --sanitize=fuzzer --scratch-path .build-fuzz --product "$target" ${swiftc_flags[@]+"${swiftc_flags[@]}"} \
        >/dev/null
done
speech
pids=()
for run in voicenote-fuzz-decoders:decoder_seeds voicenote-fuzz-ffmpeg:ffmpeg_seeds voicenote-fuzz-json:json_seeds; do
    fuzz "${run%%:*}" "${run#*:}" >"$work/${run%%:*}.report" 2>&1 &
    pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$work/${targets[$i]}.report"
done
exit $status
