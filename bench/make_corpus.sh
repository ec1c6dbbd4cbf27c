#!/bin/sh
# The speech corpus of the waveform bench (bench/run.py).
#
# Usage: bench/make_corpus.sh OUTDIR
#
# Writes OUTDIR/speech_5s.ogg, speech_60s.ogg and speech_600s.ogg: synthetic voice notes (espeak-ng, several
# voices and speeds, a pause after each sentence like a speaker taking breath) over a faint pink-noise room floor
# (peaks about -50 dBFS), as 48 kHz mono 16-bit PCM cut to 5, 60 and 600 seconds, then encoded the way a chat
# client sends a voice note: `opusenc --bitrate 32 --framesize 20 --serial 1`.
# Also keeps the PCM of the 600 s note as OUTDIR/speech_600s.raw (headerless S16_LE, 48 kHz, mono: 57,600,000
# bytes), the microphone input of the recorder bench.
#
# Deterministic: sox runs with -R (its noise generator is seeded) and opusenc with a fixed serial, so the same
# tool versions give byte-identical files. When all three outputs exist, nothing is done (delete them to rebuild).
# Needs espeak-ng, sox (with soxi) and opusenc (opus-tools). About 15 s on 2 cores.
set -eu

out=${1:?usage: make_corpus.sh OUTDIR}
lengths="5 60 600"
raw_lengths="600"

missing=0
for len in $lengths; do
    [ -s "$out/speech_${len}s.ogg" ] || missing=1
done
for len in $raw_lengths; do
    [ -s "$out/speech_${len}s.raw" ] || missing=1
done
if [ "$missing" = 0 ]; then
    echo "corpus: cached in $out"
    exit 0
fi

for tool in espeak-ng sox soxi opusenc; do
    command -v "$tool" >/dev/null 2>&1 || { echo "make_corpus.sh: $tool is not installed" >&2; exit 1; }
done

mkdir -p "$out"
tmp=$(mktemp -d "$out/.corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# One sentence group per line: espeak-ng voice, words per minute, pause after it (s), text.
n=0
while IFS='|' read -r voice wpm pause text; do
    [ -n "$voice" ] || continue
    n=$((n + 1))
    clip=$(printf '%s/clip_%02d.wav' "$tmp" "$n")
    espeak-ng -v "$voice" -s "$wpm" -w "$tmp/tts.wav" "$text"
    # To 48 kHz mono 16-bit, loudest peak at -3 dBFS, then the pause.
    sox -R -G "$tmp/tts.wav" -r 48000 -c 1 -b 16 "$clip" rate -v 48k gain -n -3 pad 0 "$pause"
done <<'SENTENCES'
en-us+m2|155|0.7|Hi, it's me again. The train is stuck outside the station, they say ten more minutes, but I don't believe them. Start dinner without me, and keep a plate warm if you can.
en-gb+f2|165|1.0|So I spoke to the landlord about the heating. He says the engineer can come on Tuesday morning, between eight and twelve, which means one of us has to work from home. Can you do it? I have the dentist.
en+m4|145|0.5|Quick one about the slides for tomorrow. I moved the budget chart to the end and cut the two pages about last year. If you still want them, they're in the backup folder, just copy them back.
en-us+f3|185|1.1|You will not believe who I just bumped into at the supermarket. Your old flatmate, the one with the bicycle shop! He says hello, and he wants to know if you're coming to the reunion in June.
en-gb-scotland+f4|150|0.8|Granddad called, he's fine, don't worry. He fell asleep in the garden and missed the phone, that's all. He says thank you for the photos, and he wants a copy of the one with the dog on the beach.
en-029+m3|170|0.6|Okay, I'm at the hardware shop and they have three kinds of hinges. Brass, black, or the cheap silver ones. The brass ones are twice the price. Tell me which, I'll wait here for five minutes.
en-gb-x-rp+f1|140|0.9|Hello, this message is from the library. The book you reserved has arrived and will be held at the front desk until Friday. Please bring your card with you when you collect it. Thank you.
en-us+m6|195|1.2|Right, final score was three two, we won in the last minute, absolute chaos. Coach is buying pizza for everybody, so I'll be home late. Don't wait up, and tell Sam his boots are in the car.
SENTENCES

sox -R "$tmp"/clip_*.wav "$tmp/sentences.wav"
sentences_s=$(soxi -D "$tmp/sentences.wav")

for len in $lengths; do
    # Repeat the sentences until they cover len seconds and cut to exactly len.
    repeats=$(awk -v len="$len" -v s="$sentences_s" 'BEGIN { r = int(len / s); if (r * s < len) r++; print (r > 0 ? r - 1 : 0) }')
    sox -R "$tmp/sentences.wav" "$tmp/speech.wav" repeat "$repeats" trim 0 "$len"
    # The room: pink noise peaking about -50 dBFS (RMS about -62 dBFS), mixed in at unity.
    sox -R -n -r 48000 -c 1 -b 16 "$tmp/room.wav" synth "$len" pinknoise vol 0.0034
    sox -R -m -v 1 "$tmp/speech.wav" -v 1 "$tmp/room.wav" -b 16 "$tmp/speech_${len}s.wav"
    opusenc --quiet --serial 1 --bitrate 32 --framesize 20 "$tmp/speech_${len}s.wav" "$tmp/speech_${len}s.ogg"
    mv "$tmp/speech_${len}s.ogg" "$out/speech_${len}s.ogg"
    case " $raw_lengths " in
        *" $len "*)
            sox "$tmp/speech_${len}s.wav" -t raw -e signed-integer -b 16 -L "$tmp/speech_${len}s.raw"
            mv "$tmp/speech_${len}s.raw" "$out/speech_${len}s.raw" ;;
    esac
done

for len in $lengths; do
    echo "corpus: $out/speech_${len}s.ogg $(wc -c < "$out/speech_${len}s.ogg") bytes"
done
for len in $raw_lengths; do
    echo "corpus: $out/speech_${len}s.raw $(wc -c < "$out/speech_${len}s.raw") bytes"
done
