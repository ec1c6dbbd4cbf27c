"""What both recorder sections run (docs/recorder.md): the 600 s speech PCM (the PCM of speech_600s.ogg), its 5 s
head for the warm-ups and a looped copy for the file microphone, a snapshot of the library in WORK/lib (a
`make build` during the bench rewrites build/lib in place), and bench/record_file.c, bench/record_latency.c built
against it."""
import os
import pathlib
import re
import shlex

from common.audio import PCM_RATE
from common.corpus import make_corpus
from common.errors import BenchError
from common.library import snapshot_library
from common.paths import HERE, REPO
from common.process import capture, require_tools

RECORDER_SECONDS = 600                        # the PCM of speech_600s.ogg (bench/make_corpus.sh)
WARM_SECONDS = 5                              # the untimed warm-up: the first 5 s of it
LOOP_TAIL_SECONDS = 30                        # the file microphone of the stop latency: 600 s + its first 30 s


def build_recorder_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """The 600 s PCM (corpus), a snapshot of the library, and bench/record_file.c, bench/record_latency.c."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffprobe", "pkg-config", os.environ.get("CC", "cc")])
    corpus = make_corpus(work)
    raw = corpus / f"speech_{RECORDER_SECONDS}s.raw"
    if raw.stat().st_size != RECORDER_SECONDS * PCM_RATE * 2:
        raise BenchError(f"{raw}: {raw.stat().st_size} bytes, not {RECORDER_SECONDS} s of 48 kHz mono S16")
    if re.search(r'["\\\\]', str(raw)):
        raise BenchError(f"{raw}: the ALSA configuration text needs a path without \" or \\\\")
    snapshot = snapshot_library(build, work)
    lib = snapshot["lib"]
    cc = shlex.split(os.environ.get("CC", "cc"))
    alsa = shlex.split(capture(["pkg-config", "--cflags", "--libs", "alsa"], "pkg-config alsa"))
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include")]
    link = ["-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"]
    programs = {}
    for name, extra in (("record_file", []), ("record_latency", alsa)):
        programs[name] = work / name
        capture(cc + flags + ["-o", str(programs[name]), str(HERE / f"{name}.c")] + link + extra,
                f"building bench/{name}.c")
    recorder = work / "recorder"
    recorder.mkdir(parents=True, exist_ok=True)
    # A short head of the same PCM for the untimed warm-up of every command.
    warm = recorder / f"speech_{WARM_SECONDS}s.raw"
    if not warm.exists() or warm.stat().st_size != WARM_SECONDS * PCM_RATE * 2:
        with open(raw, "rb") as f:
            warm.write_bytes(f.read(WARM_SECONDS * PCM_RATE * 2))
    # The file microphone of the stop latency: the PCM and its first seconds again, so that what a stop finds
    # still in the ring (a faster-than-real-time device runs ahead) is speech, not the silence after the end.
    looped = recorder / f"speech_{RECORDER_SECONDS + LOOP_TAIL_SECONDS}s.raw"
    if not looped.exists() or looped.stat().st_size != (RECORDER_SECONDS + LOOP_TAIL_SECONDS) * PCM_RATE * 2:
        with open(raw, "rb") as f, open(looped, "wb") as out:
            data = f.read()
            out.write(data)
            out.write(data[:LOOP_TAIL_SECONDS * PCM_RATE * 2])
    return {"raw": raw, "warm_raw": warm, "looped_raw": looped, "snapshot": snapshot, "programs": programs,
            "dir": recorder}


def file_microphone(raw: pathlib.Path, pcm: str = "vn_mic") -> str:
    """ALSA configuration text of a virtual microphone reading `raw` (ALSA's file plugin over a null slave)."""
    return f'pcm.{pcm} {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{raw}" format raw }}'
