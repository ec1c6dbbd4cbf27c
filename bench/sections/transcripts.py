"""Section `transcripts` (docs/transcripts.md): our pipeline against PocketSphinx's own tool, and what it costs.

Accuracy: espeak-ng speech (en-us+f2, 12 sentences with pauses between them, ~45 s) at 8, 16 and 48 kHz, encoded as
Opus (opusenc), MP3 (lame) and AAC (ffmpeg). Ours: `voicenote transcribe --json` on the file (a fresh media cache
each time). The reference: FFmpeg decodes the same file to 16 kHz mono samples, which `pocketsphinx_continuous
-infile -time yes` (PocketSphinx's own tool, the same library and model) transcribes. Both word lists are scored against the
script (word error rate, fillers dropped, `word(2)` → `word`); budget: ours within 1 point of the reference's. Word
times: the words both recognised, aligned (difflib on the word sequences, runs of three or more), start and end
differences; budget ≤ 100 ms. Speed: the first words of a 60 s Opus note (`voicenote transcribe`, which prints each utterance's words as
they come: time from the process's start to its first line) ≤ 2 s; the whole note's real-time factor beside the
reference tool's on the 16 kHz WAV (which it reads without decoding); a cached transcript in-process
(`voicenote.transcribe` on a note already transcribed, median of 20) ≤ 5 ms."""
import difflib
import json
import os
import pathlib
import re
import statistics
import subprocess
import tempfile
import time

from common.budgets import (BUDGET_TRANSCRIPT_CACHED_MS, BUDGET_TRANSCRIPT_FIRST_WORDS_S, BUDGET_TRANSCRIPT_TIMES_S,
                            BUDGET_TRANSCRIPT_WER_POINTS)
from common.errors import BenchError
from common.library import stable_copy
from common.paths import REPO
from common.process import capture, require_tools
from common.stats import summary

TRANSCRIPT_RUNS = 3
QUICK_TRANSCRIPT_RUNS = 1
VOICE = "en-us+f2"
SCRIPT = (
    "Open the door please.", "Call me tomorrow morning.", "The weather is nice today.",
    "I will be home at seven.", "Please bring the charger.", "The meeting moved to Thursday.",
    "Can you pick up some bread and milk?", "The shop closes at eight.", "I am running a bit late.",
    "Start without me and I will catch up.", "Happy birthday to you.", "See you at the station.",
)
RATES = (8000, 16000, 48000)
FORMATS = ("opus", "mp3", "aac")


def words_of(text: str) -> list:
    return [w for w in re.sub(r"[^a-z' ]", " ", text.lower()).split() if w]


def spoken(word: str):
    """A recogniser's token as a word: None for fillers and silences, the pronunciation number dropped."""
    if not word or word[0] in "<[+":
        return None
    return re.sub(r"\(\d+\)$", "", word)


def wer(reference: list, hypothesis: list) -> float:
    """Word error rate in points: (substitutions + deletions + insertions) / reference words × 100."""
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        current = [i] + [0] * len(hypothesis)
        for j, hyp in enumerate(hypothesis, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref != hyp))
        previous = current
    return 100.0 * previous[-1] / max(len(reference), 1)


def speech(folder: pathlib.Path, sentences: tuple, name: str) -> pathlib.Path:
    """The sentences spoken with 1.2 s pauses (SSML), as a 48 kHz mono WAV."""
    raw, wav = folder / f"{name}-raw.wav", folder / f"{name}.wav"
    ssml = "<speak>" + "<break time='1200ms'/>".join(sentences) + "</speak>"
    capture(["espeak-ng", "-m", "-v", VOICE, "-s", "160", "-w", str(raw), ssml], "espeak-ng")
    capture(["sox", "-R", str(raw), "-r", "48000", "-c", "1", "-b", "16", str(wav), "pad", "0.3", "0.5"], "sox")
    return wav


def encode(wav: pathlib.Path, rate: int, kind: str, folder: pathlib.Path) -> pathlib.Path:
    at_rate = folder / f"speech-{rate}.wav"
    if not at_rate.exists():
        capture(["sox", "-R", str(wav), "-r", str(rate), str(at_rate)], "sox rate")
    out = folder / f"speech-{rate}.{kind}"
    if kind == "opus":
        capture(["opusenc", "--quiet", str(at_rate), str(out)], "opusenc")
    elif kind == "mp3":
        capture(["lame", "--quiet", "-b", "64", str(at_rate), str(out)], "lame")
    else:
        capture(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(at_rate), "-c:a", "aac", "-b:a", "64k",
                 "-f", "adts", str(out)], "ffmpeg aac")
    return out


def ours(cli: pathlib.Path, note: pathlib.Path) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        start = time.perf_counter()
        out = subprocess.run([str(cli), "transcribe", "--json", str(note)], capture_output=True, text=True, env=env,
                             timeout=600)
        seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise BenchError(f"voicenote transcribe {note.name} failed: {out.stderr.strip()}")
    words = json.loads(out.stdout)["words"]
    return {"words": [(w["text"], w["start"], w["end"]) for w in words], "seconds": seconds}


def reference(note: pathlib.Path, folder: pathlib.Path) -> dict:
    # Raw samples, not a WAV: pocketsphinx_continuous skips exactly 44 bytes of a .wav, and FFmpeg's WAV header is
    # longer (a LIST chunk): the rest of it would be fed as audio.
    wav = folder / (note.name + ".16k.raw")
    capture(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(note), "-ar", "16000", "-ac", "1", "-f", "s16le",
             str(wav)], "ffmpeg → 16 kHz raw")
    start = time.perf_counter()
    text = capture(["pocketsphinx_continuous", "-infile", str(wav), "-time", "yes", "-logfn", "/dev/null"],
                   "pocketsphinx_continuous", timeout=600)
    seconds = time.perf_counter() - start
    words = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 4 and spoken(fields[0]):
            try:
                words.append((spoken(fields[0]), float(fields[1]), float(fields[2])))
            except ValueError:
                continue
    return {"words": words, "seconds": seconds}


def timing(a: list, b: list) -> dict:
    """Start and end differences of the words both lists hold, aligned by their sequences: runs of at least three
    words alike (a lone "the" matched across a sentence is no alignment)."""
    matcher = difflib.SequenceMatcher(a=[w[0] for w in a], b=[w[0] for w in b], autojunk=False)
    differences = []
    for block in matcher.get_matching_blocks():
        if block.size < 3:
            continue
        for k in range(block.size):
            x, y = a[block.a + k], b[block.b + k]
            differences.append(max(abs(x[1] - y[1]), abs(x[2] - y[2])))
    return {"matched": len(differences), "max_s": max(differences, default=0.0)}


def accuracy(cli: pathlib.Path, folder: pathlib.Path, wav: pathlib.Path) -> list:
    script = words_of(" ".join(SCRIPT))
    rows = []
    for kind in FORMATS:
        for rate in RATES:
            note = encode(wav, rate, kind, folder)
            mine, theirs = ours(cli, note), reference(note, folder)
            row = {"format": kind, "rate": rate,
                   "ours_wer": wer(script, [w[0] for w in mine["words"]]),
                   "reference_wer": wer(script, [w[0] for w in theirs["words"]]),
                   "times": timing(mine["words"], theirs["words"])}
            row["wer_difference"] = row["ours_wer"] - row["reference_wer"]
            row["pass"] = (row["wer_difference"] <= BUDGET_TRANSCRIPT_WER_POINTS
                           and row["times"]["max_s"] <= BUDGET_TRANSCRIPT_TIMES_S)
            rows.append(row)
            print(f"transcripts: {kind} {rate} Hz: WER ours {row['ours_wer']:.1f}, reference "
                  f"{row['reference_wer']:.1f}; times within {1000 * row['times']['max_s']:.0f} ms over "
                  f"{row['times']['matched']} words", flush=True)
    return rows


def first_words(cli: pathlib.Path, note: pathlib.Path) -> float:
    """Seconds from the start of `voicenote transcribe NOTE` to its first line of words (a fresh cache)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        start = time.perf_counter()
        proc = subprocess.Popen([str(cli), "transcribe", str(note)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        try:
            line = proc.stdout.readline()
            seconds = time.perf_counter() - start
            proc.communicate(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    if proc.returncode != 0 or not line.strip():
        raise BenchError(f"voicenote transcribe printed no words (rc {proc.returncode})")
    return seconds


def cached_ms(note: pathlib.Path, library: pathlib.Path) -> list:
    """In-process: a transcript already kept, asked 20 times (a child Python with the package)."""
    child = (
        "import sys, time, voicenote\n"
        "voicenote.transcribe(sys.argv[1])\n"
        "times = []\n"
        "for _ in range(20):\n"
        "    t = time.perf_counter(); voicenote.transcribe(sys.argv[1]); times.append(1000 * (time.perf_counter() - t))\n"
        "print(' '.join(f'{x:.3f}' for x in times))\n")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache, VOICENOTE_LIBRARY=str(library),
                   PYTHONPATH=str(REPO / "bindings" / "python"))
        out = subprocess.run(["python3", "-c", child, str(note)], capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise BenchError(f"the cached-transcript child failed: {out.stderr.strip()}")
    return [float(x) for x in out.stdout.split()]


def transcripts_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    require_tools(["espeak-ng", "sox", "opusenc", "lame", "ffmpeg", "pocketsphinx_continuous"])
    folder = work / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    source = build / "bin" / "voicenote"
    if not source.exists():
        raise BenchError(f"{source} is missing: run `make build` first")
    cli = stable_copy(source, folder / "voicenote")
    wav = speech(folder, SCRIPT, "script")
    section = {"runs": runs, "rows": accuracy(cli, folder, wav)}
    long_wav = speech(folder, SCRIPT * 2, "long")
    long_note = folder / "long.ogg"
    capture(["sox", str(long_wav), str(folder / "long-60.wav"), "trim", "0", "60"], "sox trim")
    capture(["opusenc", "--quiet", str(folder / "long-60.wav"), str(long_note)], "opusenc")
    firsts = [first_words(cli, long_note) for _ in range(runs)]
    section["first_words_s"] = summary(firsts)
    section["first_words_pass"] = section["first_words_s"]["median"] <= BUDGET_TRANSCRIPT_FIRST_WORDS_S
    rtf_ours, rtf_reference = [], []
    for _ in range(runs):  # alternating turns
        rtf_ours.append(ours(cli, long_note)["seconds"] / 60)
        rtf_reference.append(reference(long_note, folder)["seconds"] / 60)
    section["rtf"] = {"ours": summary(rtf_ours), "reference": summary(rtf_reference)}
    library = (build / "lib" / "libvoicenote.so").resolve()
    cached = cached_ms(long_note, library)
    section["cached_ms"] = summary(cached)
    section["cached_pass"] = section["cached_ms"]["median"] <= BUDGET_TRANSCRIPT_CACHED_MS
    section["accuracy_pass"] = all(row["pass"] for row in section["rows"])
    section["mean_wer_difference"] = statistics.mean(row["wer_difference"] for row in section["rows"])
    print(f"transcripts: first words {section['first_words_s']['median']:.2f} s; RTF ours "
          f"{section['rtf']['ours']['median']:.3f}, reference {section['rtf']['reference']['median']:.3f}; cached "
          f"{section['cached_ms']['median']:.2f} ms", flush=True)
    return section


def transcripts_markdown(section: dict) -> str:
    def verdict(ok: bool) -> str:
        return "pass" if ok else "**miss**"
    lines = [
        "Transcripts (docs/transcripts.md). espeak-ng speech (12 sentences, en-us+f2) at each rate and format: "
        "`voicenote transcribe --json` against FFmpeg's 16 kHz decode fed to `pocketsphinx_continuous` (the reference "
        "tool, the same library and model); word error rates against the script.",
        "",
        "| format | rate | WER ours | WER reference | difference | word times, max difference |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in section["rows"]:
        lines.append(f"| {row['format']} | {row['rate']} Hz | {row['ours_wer']:.1f} | {row['reference_wer']:.1f} | "
                     f"{row['wer_difference']:+.1f} | {1000 * row['times']['max_s']:.0f} ms "
                     f"({row['times']['matched']} words) |")
    rtf = section["rtf"]
    lines += [
        f"| **mean** | | {statistics.mean(r['ours_wer'] for r in section['rows']):.1f} | "
        f"{statistics.mean(r['reference_wer'] for r in section['rows']):.1f} | {section['mean_wer_difference']:+.1f} | |",
        "",
        f"Budgets: WER within {BUDGET_TRANSCRIPT_WER_POINTS:g} point of the reference's and word times within "
        f"{1000 * BUDGET_TRANSCRIPT_TIMES_S:.0f} ms, every row: {verdict(section['accuracy_pass'])}. "
        f"First words of a 60 s note: {section['first_words_s']['median']:.2f} s "
        f"({section['first_words_s']['min']:.2f}–{section['first_words_s']['max']:.2f}; budget "
        f"≤ {BUDGET_TRANSCRIPT_FIRST_WORDS_S:g} s: {verdict(section['first_words_pass'])}). Real-time factor of the "
        f"whole note: ours {rtf['ours']['median']:.3f} (decoding included), the reference tool's "
        f"{rtf['reference']['median']:.3f} (on a WAV, no decoding). A cached transcript: "
        f"{section['cached_ms']['median']:.2f} ms in-process (budget ≤ {BUDGET_TRANSCRIPT_CACHED_MS:g} ms: "
        f"{verdict(section['cached_pass'])}).",
    ]
    return "\n".join(lines)
