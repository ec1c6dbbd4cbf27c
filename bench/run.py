#!/usr/bin/env python3
"""`make bench`: voicenote's speed, memory and size figures, each against a reference run in the same bench.

Usage: bench/run.py [--build DIR] [--results DIR] [--work DIR] [--sections LIST] [--quick] [--runs N]
                    [--lengths 5,60,600]
       bench/run.py --sections recorder [--quick]      only the two recorder sections
       bench/run.py --sections player [--quick]        only the player
       bench/run.py --sections remote [--quick]        only the player over HTTP (media cache cold and warm)
       bench/run.py --sections upload [--quick]        only the 10 MB upload against curl -F

Sections (budgets: docs/performance.md; --sections takes size, waveform, recorder-cpu, recorder-latency, hostile,
player, remote, upload, all, recorder):
- Library size: the stripped .so against its budget.
- Waveform (docs/waveform.md, 100 values) of Ogg Opus speech of 5 s, 60 s and 600 s (bench/make_corpus.sh), four
  whole processes run side by side:
    our CLI       build/bin/voicenote waveform F --samples 100
    our C call    bindings/c/waveform.c (vn_waveform_file in process), built here against DIR/lib with an rpath
    C floor       bench/floor_waveform.c: libogg + a plain opus_decode at 16 kHz + the §5.1 loop with a dB table
    ffprobe       ffprobe -f lavfi amovie=F,asetnsamples,astats: the fastest per-bucket level a user has
  After one untimed warm-up of each, they run in turns (A B C D A B C D ...), so a slow spell of this shared
  machine hits all four alike. Wall time is taken around each child, CPU time (user + sys) and peak RSS
  (ru_maxrss) from os.wait4. Each run of ours is divided by the floor's and by ffprobe's run of the same turn;
  the table gives the median of those ratios and their min-max. Memory is the peak minus the same binary's
  baseline (`voicenote version`, `waveform --baseline`: start-up and libraries, no work).
  Once per length, our values are checked against the floor's (max abs difference, expected within 1e-3).
  Once per length, untimed: each of ours run with bench/maps_probe.c preloaded, which reads /proc/self/maps when
  the process exits: libcurl must not be mapped (a process that only reads files never loads it); recorded as
  libcurl_at_exit per length and libcurl_mapped for the section, with a control (a process that dlopens
  libcurl.so.4 is seen with it). The timed turns run without the probe.
- Recorder CPU (docs/recorder.md): 600 s of speech PCM (the PCM of speech_600s.ogg) recorded to Ogg Opus, three whole
  processes in turns after a 5 s warm-up of each:
    ours          bench/record_file.c: libvoicenote's recorder from a virtual microphone (ALSA `file` plugin
                  reading the PCM, given as configuration text), defaults of docs/formats.md, maximum length exactly 600 s,
                  waits for FINISHED
    opusenc same  opusenc --bitrate 32 --framesize 20 --comp 10 --vbr --raw ... with our other settings (VOIP,
                  decision delay 0, pages of at most 500 ms): its Opus packets are checked to equal ours
    opusenc       the same without them (opusenc's defaults: application audio, 1 s pages)
  CPU (user + sys, all threads) from os.wait4; per-turn ratios ours / each opusenc, medians. Budget ≤ 1.15x the
  same-settings opusenc. Both outputs' sizes and durations (granule and ffprobe) are checked and reported.
- Recorder latency: bench/record_latency.c against a private PulseAudio server (null sink, monitor opened with
  the ALSA pulse plugin, warmed by a parec kept running, speech played in with paplay; the recipe of
  Tests/Support/PulseServer.swift): vn_recorder_begin() wall time (warm and first in process) against alsa-lib
  alone opening, configuring and starting the same device, in alternating processes; the lag of the first
  captured frame; stop to FINISHED of a 10 s real-time take; and of a 600 s take on the file microphone (a
  real-time one cannot deliver 10 minutes faster), stopped while recording and, to separate the finishing from
  the backlog a faster-than-real-time device leaves in the ring, paused first. Budgets: begin ≤ 50 ms, stop to
  finished ≤ 100 ms. With it, bench/first_frame.py: begin → first captured frame on a fresh and on a warm server,
  against arecord on the same server.
  The recorder's C programs link against a copy of the library in WORK/lib (a `make build` during the bench
  rewrites build/lib in place).
- Hostile input: `voicenote info` of 21 MB of ADTS frames that are all header (7 bytes, no payload: 3 million
  frames no decoder accepts) against `voicenote info` of a normal ADTS file (the 5 s note as 64 kbit/s AAC), whole
  processes in turns, peak RSS by GNU time (medians). Budget: ≤ 5 MiB over the normal file's peak (the ≤ 5 MiB
  analysis budget at any length; before FFmpeg's probing was bounded this took 420 MB).
- Player (docs/player.md): both sides play to the same unpaced sink, ALSA's `file` plugin over `null`
  (`pcm.vn_bench`, the only definition of an ALSA_CONFIG_PATH file every run gets; ours is handed the same text).
  CPU: the 600 s speech Opus played to its end, four whole processes in turns after a 5 s warm-up of each:
    ours 1x, 2x   bench/play_file.c: libvoicenote's player, load with autoplay, waits (bounded) for FINISHED
    opusdec | aplay                     `sh -c 'opusdec --quiet F - | aplay -D vn_bench -t raw -f S16_LE ...'`
    opusdec | sox tempo -s 2 | aplay    the 2x reference: a time stretch with the pitch kept
  CPU of ours from os.wait4; of a pipeline, the shell's children (os.wait4 on the shell includes what it
  reaped). Per-turn ratios, medians. Budget ≤ 1.2x opusdec | aplay at 1x; 2x is reported. One untimed run into
  real files checks the frames played (ours = the file's length; aplay's padding checked to be silence) and our
  samples against opusdec's.
  Play → first frame: bench/play_latency.c, a new player per take loading the 5 s note with autoplay, against
  alsa-lib alone opening the same PCM with the library's parameters and writing 20 ms periods; alternating
  processes, the first take of each "first in process". Two moments: the first snd_pcm_writei() returning frames
  (play_latency interposes it) and the sink's output file first growing (a thread stat()ing it every 0.2 ms; the
  file plugin writes only past a buffer's worth). Budget ≤ 50 ms.
- Remote (docs/performance.md "play → first frame over HTTP"): Debian's nginx (Tests/Servers/nginx_server.py) on
  127.0.0.1 serving the 5 s note, started once for the section and stopped at its end; bench/play_latency.c
  `url` loads its URL with vn_player_load on the player section's sink. Per turn, after an untimed warm-up turn,
  three processes: cold (vn_cache_set_directory(a fresh directory), vn_cache_clear(), one take: libcurl's dlopen,
  the connection and the download are inside the timed part), the reference (`play_latency ours` on the local
  file), warm (a new process on the cache the cold one left; its first take first in process, the others a warm
  process). nginx's access log is read after each: the cold process must show its request, the warm one none (a
  request there marks the row FAIL and the bench exits 1). Ratios against the local file, per turn, medians.
  Budgets: cold ≤ 200 ms; warm at the local file's speed (read as ≤ 1.25x). The CLI's `waveform URL` with the
  maps probe preloaded checks that the probe sees libcurl when it is loaded.
- Upload (bench/upload.py, budget: ≥ 0.9x the throughput of `curl -F` on the same file): 10 MB of random bytes,
  multipart, to Tests/Servers/http_server.py on 127.0.0.1 (`POST /channels/<type>/<id>/file`, the body parsed,
  hashed and stored as it streams in), started once for the section. Per turn, after an untimed warm-up turn, in
  alternating order: bench/upload_file.c (one process, one uploader, K takes of vn_uploader_upload_file with a
  payload from vn_payload_create, so the file is not decoded; each timed from the call to the end of
  vn_uploader_wait; the first take, with libcurl's dlopen and the first connection, reported apart) and K runs of
  `curl -s -o /dev/null -w '%{time_total}' -F "file=@FILE;type=audio/ogg" URL` (curl's own transfer time). Every
  upload's stored part is checked in the server's log (size and sha256 of the file). Ratio: curl ms / ours ms
  from the medians, with the min-max of per-turn ratios.
Writes RESULTS/latest.json (every run) and RESULTS/latest.md (the tables), and prints the tables. Sections not
selected keep their previous results there, marked with the date they were measured.
Exit status 0 when everything ran, budget misses included (the bench reports, it does not gate); 1 when a step
failed to run (a missing tool, a build or a command that failed, an upload the server did not store intact), or
when a warm-cache run reached the server.
"""
import argparse
import filecmp
import hashlib
import json
import math
import os
import pathlib
import platform
import re
import resource
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

import first_frame  # bench/first_frame.py: this directory is sys.path[0]
import upload  # bench/upload.py: the upload section

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent

BUDGET_STRIPPED_SO_BYTES = 16 * 1024 * 1024  # docs/performance.md
BUDGET_VS_FLOOR = 1.2                         # docs/performance.md: ≤ 1.2x the C floor
BUDGET_VS_FFPROBE = 0.66                      # docs/performance.md: ≤ 0.66x the ffprobe line
BUDGET_OVER_BASELINE_MIB = 5.0                # docs/performance.md: peak RSS ≤ 5 MiB above the process baseline
VALUE_TOLERANCE = 1e-3                        # our values against the floor's

WAVEFORM_SAMPLES = 100
LENGTHS = (5, 60, 600)
RUNS = {5: 21, 60: 21, 600: 21}
QUICK_RUNS = {5: 5, 60: 5, 600: 3}
BASELINE_RUNS = 5
CALL_TIME = re.compile(r"vn_waveform_file: \d+ values in ([0-9.]+) ms")
GNU_TIME = "/usr/bin/time"

# Recorder (docs/recorder.md, docs/performance.md)
BUDGET_RECORDER_CPU = 1.15                    # docs/performance.md: ≤ 1.15x opusenc on the same PCM with the same settings
                                              # (it also decodes its own pages for the exact waveform)
BUDGET_BEGIN_MS = 50.0                        # docs/performance.md: begin returns with capture running ≤ 50 ms
BUDGET_FINISH_MS = 100.0                      # docs/performance.md: stop to finished ≤ 100 ms for a 10 min take
PCM_RATE = 48000
RECORDER_SECONDS = 600                        # the PCM of speech_600s.ogg (bench/make_corpus.sh)
WARM_SECONDS = 5                              # the untimed warm-up: the first 5 s of it
LOOP_TAIL_SECONDS = 30                        # the file microphone of the stop latency: 600 s + its first 30 s
BEGIN_TAKE_SECONDS = 0.3                      # each begin-latency take records this much, then stops
REALTIME_TAKE_SECONDS = 10                    # the stop latency on the real-time microphone
# opusenc set as our recorder: OPUS_SET_APPLICATION(OPUS_APPLICATION_VOIP), OPE_SET_DECISION_DELAY(0), and pages
# of at most 500 ms (OPE_SET_MUXING_DELAY(24000)); VBR and complexity 10 are its defaults and ours.
OPUSENC_SAME_SETTINGS = ["--max-delay", "500", "--set-ctl-int", "4000=2048", "--set-ctl-int", "14000=0"]
CALLGRIND_LENGTHS = (10, 30)                  # the instruction cross-check: two take lengths, in seconds
QUICK_CALLGRIND_LENGTHS = (5, 15)
RECORDER_RUNS = 5
QUICK_RECORDER_RUNS = 2
# Hostile input: ADTS frames of 7 bytes, header only (AAC LC, 48 kHz, mono, frame length 7, no payload).
HOSTILE_ADTS_FRAME = bytes([0xFF, 0xF1, 0x4C, 0x40, 0x00, 0xFF, 0xFC])
HOSTILE_ADTS_FRAMES = 3_000_000               # 21 MB
HOSTILE_RUNS = 5
QUICK_HOSTILE_RUNS = 2
LATENCY_COUNTS = {"begin_turns": 5, "begins_per_process": 6, "realtime_takes": 5, "file_takes": 5,
                  "file_take_seconds": 600}
QUICK_LATENCY_COUNTS = {"begin_turns": 2, "begins_per_process": 4, "realtime_takes": 2, "file_takes": 2,
                        "file_take_seconds": 30}
RECORDER_LABELS = {
    "ours": "ours: libvoicenote recorder (bench/record_file.c)",
    "opusenc_same": "opusenc, same settings (VOIP, max delay 500 ms, decision delay 0)",
    "opusenc": "opusenc as is (its defaults: application audio, max delay 1000 ms)",
}
# Player (docs/player.md, docs/performance.md)
BUDGET_PLAYER_CPU = 1.2                       # docs/performance.md: ≤ 1.2x opusdec | aplay at 1x
BUDGET_PLAY_FIRST_FRAME_MS = 50.0             # docs/performance.md: play → first frame written ≤ 50 ms
PLAYER_SECONDS = 600                          # speech_600s.ogg
PLAYER_DEVICE = "vn_bench"                    # the unpaced sink both sides play to (ALSA file plugin over null)
PLAYER_RUNS = 7
QUICK_PLAYER_RUNS = 2
PLAYER_LATENCY_COUNTS = {"turns": 7, "takes_per_process": 5}
QUICK_PLAYER_LATENCY_COUNTS = {"turns": 3, "takes_per_process": 3}
PLAYER_LABELS = {
    "ours_1x": "ours at 1x: libvoicenote player (bench/play_file.c)",
    "ref_1x": "opusdec | aplay",
    "ours_2x": "ours at 2x (libsonic, pitch kept)",
    "ref_2x": "opusdec | sox tempo -s 2 | aplay",
}
# Remote (docs/performance.md "play → first frame over HTTP", "waveform without the network")
BUDGET_REMOTE_COLD_MS = 200.0                 # docs/performance.md: cold cache ≤ 200 ms, libcurl's loading included
BUDGET_REMOTE_WARM_VS_LOCAL = 1.25            # "warm cache: the local file's speed", read here as ≤ 1.25x the local
                                              # file's figure in the same turn (first frames of ~1 ms vary by a
                                              # quarter from turn to turn on this machine)
REMOTE_COUNTS = {"turns": 7, "takes_per_process": 5}
QUICK_REMOTE_COUNTS = {"turns": 3, "takes_per_process": 3}
REMOTE_SETTLE_S = 0.1                         # how long the access log is watched after a process for late lines
SECTIONS = ("size", "waveform", "recorder-cpu", "recorder-latency", "hostile", "player", "remote", "upload")
SECTION_ALIASES = {"all": SECTIONS, "recorder": ("recorder-cpu", "recorder-latency")}
# Where each section lives in latest.json.
SECTION_KEYS = {"size": "library_size", "waveform": "waveform", "recorder-cpu": "recorder_cpu",
                "recorder-latency": "recorder_latency", "hostile": "hostile_input", "player": "player",
                "remote": "remote", "upload": "upload"}

# The four waveform commands, in turn order; the first two are ours.
OURS = ("cli", "sample")
LABELS = {
    "cli": "our CLI",
    "sample": "our C call",
    "floor": "C floor",
    "ffprobe": "ffprobe astats",
}


class BenchError(Exception):
    """A step that failed to run (not a missed budget)."""


# ---------------------------------------------------------------------------------------------------------------
# Library size

def library_size(build: pathlib.Path) -> dict:
    """Stripped size of the shipped .so against its budget."""
    so = (build / "lib" / "libvoicenote.so").resolve()
    if not so.exists():
        raise BenchError(f"{so} is missing: run `make build` first")
    with tempfile.TemporaryDirectory() as tmp:
        stripped = pathlib.Path(tmp) / "libvoicenote.so"
        subprocess.run(["strip", "--strip-unneeded", "-o", str(stripped), str(so)], check=True)
        size = stripped.stat().st_size
    return {
        "name": "library size (stripped .so)",
        "bytes": size,
        "budget_bytes": BUDGET_STRIPPED_SO_BYTES,
        "ratio_to_budget": round(size / BUDGET_STRIPPED_SO_BYTES, 3),
        "within_budget": size <= BUDGET_STRIPPED_SO_BYTES,
    }


def library_size_markdown(row: dict) -> str:
    return "\n".join([
        "| figure | value | budget | ratio | verdict |",
        "| --- | --- | --- | --- | --- |",
        f"| {row['name']} | {row['bytes'] / 1048576:.2f} MiB | {row['budget_bytes'] / 1048576:.0f} MiB "
        f"| {row['ratio_to_budget']} | {'pass' if row['within_budget'] else 'miss'} |",
    ]) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Running and measuring one child

def run_once(cmd: list, label: str, keep_stdout: bool = False, env: dict = None) -> dict:
    """Runs cmd once (stdin /dev/null, stdout /dev/null unless kept, stderr kept; `env` or ours): wall s, CPU s
    (user + sys of every thread, and of the children it reaped: a shell's pipeline), peak KiB, stderr (and stdout)."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out if keep_stdout else subprocess.DEVNULL,
                                stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        out.seek(0)
        stdout = out.read().decode(errors="replace")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{stderr}")
    result = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "user_s": usage.ru_utime,
              "sys_s": usage.ru_stime, "peak_kib": usage.ru_maxrss, "stderr": stderr}
    if keep_stdout:
        result["stdout"] = stdout
    return result


def capture(cmd: list, label: str) -> str:
    """Runs cmd once and returns its stdout; a failure is a BenchError."""
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{proc.stderr}")
    return proc.stdout


def gnu_time_peak_kib(cmd: list):
    """Peak RSS of one run read by GNU time, or None when it is not installed.

    A child of this Python process inherits its high-water mark at exec (ru_maxrss counts the address space the
    child came from), so os.wait4 cannot see a peak below the harness's own; GNU time forks the command from its
    own small process and can."""
    if not os.access(GNU_TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        text = out.read().split()
    return int(text[-1]) if text and text[-1].isdigit() else None


def gnu_time_run(cmd: list) -> dict:
    """One run under GNU time whatever its exit status (a hostile file is refused): peak KiB, exit status, the
    last line of stderr."""
    if not os.access(GNU_TIME, os.X_OK):
        raise BenchError(f"{GNU_TIME} is missing (`make deps` installs it)")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        proc = subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        text = out.read().split()
    if not text or not text[-1].isdigit():
        raise BenchError(f"GNU time reported no peak for {shlex.join(cmd)}")
    lines = proc.stderr.strip().splitlines()
    return {"peak_kib": int(text[-1]), "exit": proc.returncode, "message": lines[-1] if lines else ""}


def summary(values: list) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def harness_peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ---------------------------------------------------------------------------------------------------------------
# Inputs: corpus, floor, C sample

def require_tools(tools: list) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise BenchError(f"missing tools: {', '.join(missing)} (`make deps` installs them)")


def make_corpus(work: pathlib.Path) -> pathlib.Path:
    """bench/make_corpus.sh into WORK/corpus (cached): the Ogg Opus notes and the 600 s PCM."""
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus"
    started = time.perf_counter()
    proc = subprocess.run(["sh", str(HERE / "make_corpus.sh"), str(corpus)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"bench/make_corpus.sh failed:\n{proc.stdout}{proc.stderr}")
    print(f"corpus: {corpus} ({time.perf_counter() - started:.1f} s)", flush=True)
    return corpus


def build_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """Builds the corpus (cached), the C floor and the C sample into `work`."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffprobe", "pkg-config", os.environ.get("CC", "cc")])
    cli = build / "bin" / "voicenote"
    lib = build / "lib"
    for path in (cli, lib / "libvoicenote.so"):
        if not path.exists():
            raise BenchError(f"{path} is missing: run `make build` first")
    corpus = make_corpus(work)

    cc = shlex.split(os.environ.get("CC", "cc"))
    ogg_opus = shlex.split(capture(["pkg-config", "--cflags", "--libs", "ogg", "opus"], "pkg-config ogg opus"))
    floor = work / "floor_waveform"
    sample = work / "waveform_sample"
    capture(cc + ["-O2", "-o", str(floor), str(HERE / "floor_waveform.c")] + ogg_opus + ["-lm"],
            "building the C floor")
    capture(cc + ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include"),
                  "-o", str(sample), str(REPO / "bindings" / "c" / "waveform.c"),
                  "-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"],
            "building the C sample bindings/c/waveform.c")
    return {"cli": cli, "floor": floor, "sample": sample, "probe": build_maps_probe(work),
            "ogg": {length: corpus / f"speech_{length}s.ogg" for length in LENGTHS}}


def build_maps_probe(work: pathlib.Path) -> pathlib.Path:
    """bench/maps_probe.c as WORK/maps_probe.so: preloaded, it tells at a process's exit whether libcurl is mapped."""
    work.mkdir(parents=True, exist_ok=True)
    probe = work / "maps_probe.so"
    capture(shlex.split(os.environ.get("CC", "cc")) + ["-std=c11", "-O2", "-Wall", "-Wextra", "-pedantic", "-shared",
                                                       "-fPIC", "-o", str(probe), str(HERE / "maps_probe.c")],
            "building bench/maps_probe.c")
    return probe


def libcurl_at_exit(cmd: list, probe: pathlib.Path, label: str, env: dict = None) -> dict:
    """One untimed run of `cmd` with bench/maps_probe.c preloaded: what /proc/self/maps held when it exited (libcurl
    or not, the libcurl files, how many shared objects). Its own line is the one with its pid (a shell's children
    write theirs too)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "maps.jsonl"
        env = dict(env or os.environ, LD_PRELOAD=str(probe), VN_MAPS_PROBE=str(out))
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=env)
        _, stderr = proc.communicate(timeout=120)
        lines = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    if proc.returncode != 0:
        raise BenchError(f"{label} (with bench/maps_probe.so) failed with exit status {proc.returncode}: "
                         f"{shlex.join(cmd)}\n{stderr.decode(errors='replace')}")
    mine = [line for line in lines if line.get("pid") == proc.pid]
    if not mine:
        raise BenchError(f"{label}: bench/maps_probe.so wrote no line for pid {proc.pid} (did it exit by _exit?)")
    return {"libcurl": mine[0]["libcurl"], "libcurl_paths": mine[0]["libcurl_paths"], "objects": mine[0]["objects"],
            "exe": mine[0]["exe"], "cmd": cmd}


def libcurl_probe_control(probe: pathlib.Path) -> dict:
    """The probe's own check: a process that dlopens libcurl.so.4 and does nothing else must be seen with it."""
    code = "import ctypes; ctypes.CDLL('libcurl.so.4')"
    try:
        seen = libcurl_at_exit([sys.executable, "-c", code], probe, "the maps probe's control (dlopen libcurl.so.4)")
    except BenchError as error:
        if "cannot open shared object file" in str(error):  # not installed: no control, the check still runs
            return {"ran": False, "why": "libcurl.so.4 could not be loaded"}
        raise
    if not seen["libcurl"]:
        raise BenchError("bench/maps_probe.so did not see libcurl in a process that dlopened it: the check is blind")
    return dict(seen, ran=True)


def opus_frames_48k(path: pathlib.Path) -> int:
    """Frames of an Ogg Opus file at 48 kHz: its last granule position minus the pre-skip."""
    with open(path, "rb") as f:
        head = f.read(65536)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 65536))
        tail = f.read()
    if head[:4] != b"OggS" or len(head) < 27:
        raise BenchError(f"{path}: not an Ogg file")
    serial = struct.unpack_from("<I", head, 14)[0]
    body = 27 + head[26]
    if head[body:body + 8] != b"OpusHead":
        raise BenchError(f"{path}: not Ogg Opus")
    pre_skip = struct.unpack_from("<H", head, body + 10)[0]
    at = tail.rfind(b"OggS")
    while at >= 0:
        if at + 27 <= len(tail) and tail[at + 4] == 0 and struct.unpack_from("<I", tail, at + 14)[0] == serial:
            granule = struct.unpack_from("<q", tail, at + 6)[0]
            if granule >= 0:
                return max(0, granule - pre_skip)
        at = tail.rfind(b"OggS", 0, at)
    raise BenchError(f"{path}: no granule position in its last 64 KiB")


def waveform_commands(tools: dict, ogg: pathlib.Path) -> dict:
    """The four commands for one file, in turn order."""
    if re.search(r"[,:;=\[\]'\\ ]", str(ogg)):
        raise BenchError(f"{ogg}: the lavfi graph needs a path without , : ; = [ ] ' \\ or spaces")
    per_bucket = math.ceil(opus_frames_48k(ogg) / WAVEFORM_SAMPLES)
    graph = (f"amovie={ogg},asetnsamples=n={per_bucket}:p=0,astats=metadata=1:reset=1:measure_perchannel=none:"
             "measure_overall=RMS_level,ametadata=print:key=lavfi.astats.Overall.RMS_level")
    return {
        "cli": [str(tools["cli"]), "waveform", str(ogg), "--samples", str(WAVEFORM_SAMPLES)],
        "sample": [str(tools["sample"]), "-t", str(ogg), str(WAVEFORM_SAMPLES)],
        "floor": [str(tools["floor"]), str(ogg), str(WAVEFORM_SAMPLES)],
        "ffprobe": ["ffprobe", "-v", "error", "-f", "lavfi", graph,
                    "-show_entries", "frame_tags=lavfi.astats.Overall.RMS_level", "-of", "json"],
    }


# ---------------------------------------------------------------------------------------------------------------
# Waveform section

def measure_baselines(tools: dict) -> dict:
    """Peak RSS (and start-up time) of our two binaries doing nothing useful."""
    commands = {"cli": [str(tools["cli"]), "version"], "sample": [str(tools["sample"]), "--baseline"]}
    runs = {key: [] for key in commands}
    for key, cmd in commands.items():
        run_once(cmd, f"{key} baseline")
    for _ in range(BASELINE_RUNS):
        for key, cmd in commands.items():
            runs[key].append(run_once(cmd, f"{key} baseline"))
    result = {}
    for key in commands:
        gnu = [gnu_time_peak_kib(commands[key]) for _ in range(3)]
        result[key] = {"cmd": commands[key],
                       "peak_kib": statistics.median(r["peak_kib"] for r in runs[key]),
                       "gnu_time_peak_kib": statistics.median(gnu) if None not in gnu else None,
                       "wall_s": summary([r["wall_s"] for r in runs[key]])}
    return result


def verify(commands: dict, length: int) -> dict:
    """Our values against the floor's, once; also the real peaks by GNU time for what wait4 cannot see."""
    values = {key: json.loads(capture(commands[key], LABELS[key])) for key in ("cli", "sample", "floor")}
    for key, got in values.items():
        if len(got) != WAVEFORM_SAMPLES:
            raise BenchError(f"{LABELS[key]} printed {len(got)} values for {length} s, not {WAVEFORM_SAMPLES}")
    probe = json.loads(capture(commands["ffprobe"], "ffprobe astats"))

    def worst(a, b):
        diffs = [abs(x - y) for x, y in zip(a, b)]
        index = max(range(len(diffs)), key=diffs.__getitem__)
        return {"max_abs_diff": diffs[index], "at_bucket": index, "values": [a[index], b[index]],
                "buckets_differing": sum(d > 0 for d in diffs)}

    cli_floor = worst(values["cli"], values["floor"])
    sample_cli = worst(values["sample"], values["cli"])
    return {
        "cli_vs_floor": cli_floor,
        "sample_vs_cli": sample_cli,
        "agree": cli_floor["max_abs_diff"] <= VALUE_TOLERANCE and sample_cli["max_abs_diff"] <= VALUE_TOLERANCE,
        "ffprobe_levels": len(probe.get("frames", [])),
        "values": values,
        "gnu_time_peak_kib": {key: gnu_time_peak_kib(cmd) for key, cmd in commands.items()},
    }


def measure_waveform(commands: dict, runs: int) -> dict:
    """One warm-up each, then `runs` turns of the four commands; per-turn ratios of ours to floor and ffprobe."""
    order = list(commands)
    for key in order:
        run_once(commands[key], LABELS[key])
    series = {key: [] for key in order}
    for _ in range(runs):
        for key in order:
            series[key].append(run_once(commands[key], LABELS[key]))
    result = {"runs": runs, "commands": commands, "series": {}, "ratios": {}}
    for key in order:
        rows = series[key]
        entry = {
            "wall_s": summary([r["wall_s"] for r in rows]),
            "cpu_s": summary([r["cpu_s"] for r in rows]),
            "peak_kib": summary([r["peak_kib"] for r in rows]),
            "runs": [{k: r[k] for k in ("wall_s", "cpu_s", "peak_kib")} for r in rows],
        }
        if key == "sample":
            calls = [float(m.group(1)) / 1e3 for m in (CALL_TIME.search(r["stderr"]) for r in rows) if m]
            if len(calls) != len(rows):
                raise BenchError("the C sample did not print its call time (-t)")
            entry["call_s"] = summary(calls)
            entry["runs"] = [dict(run, call_s=call) for run, call in zip(entry["runs"], calls)]
        result["series"][key] = entry
    calls = [run["call_s"] / max(floor["wall_s"], 1e-9)
             for run, floor in zip(result["series"]["sample"]["runs"], series["floor"])]
    result["ratios"]["sample call/floor wall"] = dict(summary(calls), runs=calls)
    for ours in OURS:
        for ref in ("floor", "ffprobe"):
            for measure in ("wall_s", "cpu_s"):
                ratios = [a[measure] / max(b[measure], 1e-9) for a, b in zip(series[ours], series[ref])]
                result["ratios"][f"{ours}/{ref} {measure[:-2]}"] = dict(summary(ratios), runs=ratios)
    return result


def judge(length: int, measured: dict, baselines: dict, verification: dict, harness_kib: int) -> dict:
    """Budgets of docs/performance.md for our two rows, and the memory figures of every row."""
    peaks = {}
    for key, entry in measured["series"].items():
        kib = entry["peak_kib"]["median"]
        hidden = kib <= harness_kib + 256  # the harness's own high-water mark, not the child's
        if hidden:
            kib = verification["gnu_time_peak_kib"].get(key)
        peaks[key] = {"peak_kib": kib, "from": "gnu time, one run" if hidden else "os.wait4, median",
                      "visible_to_wait4": not hidden}
    verdicts = {}
    for ours in OURS:
        vs_floor = measured["ratios"][f"{ours}/floor wall"]["median"]
        vs_ffprobe = measured["ratios"][f"{ours}/ffprobe wall"]["median"]
        # Peak and baseline read the same way: by GNU time when os.wait4 cannot see below the harness's own peak.
        base, peak = baselines[ours]["peak_kib"], peaks[ours]["peak_kib"]
        if base <= harness_kib + 256 or not peaks[ours]["visible_to_wait4"]:
            base, peak = baselines[ours]["gnu_time_peak_kib"], verification["gnu_time_peak_kib"].get(ours)
            peaks[ours]["baseline_from"] = "gnu time, median of 3"
            if base is None or peak is None:
                raise BenchError(f"the {LABELS[ours]} baseline is below what os.wait4 can see here, and GNU time "
                                 "is not installed")
            peaks[ours]["peak_kib"] = peak
            peaks[ours]["from"] = "gnu time, one run"
            peaks[ours]["visible_to_wait4"] = False
        peaks[ours]["baseline_kib"] = base
        over_mib = (peak - base) / 1024
        peaks[ours]["over_baseline_mib"] = over_mib
        checks = {
            "vs floor": {"value": vs_floor, "limit": BUDGET_VS_FLOOR, "pass": vs_floor <= BUDGET_VS_FLOOR},
            "vs ffprobe": {"value": vs_ffprobe, "limit": BUDGET_VS_FFPROBE, "pass": vs_ffprobe <= BUDGET_VS_FFPROBE},
            "memory": {"value": over_mib, "limit": BUDGET_OVER_BASELINE_MIB,
                       "pass": over_mib <= BUDGET_OVER_BASELINE_MIB},
        }
        verdicts[ours] = {"checks": checks, "pass": all(c["pass"] for c in checks.values())}
    return {"peaks": peaks, "verdicts": verdicts}


# ---------------------------------------------------------------------------------------------------------------
# Markdown

def ms(seconds: float) -> str:
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def spread(entry: dict, fmt) -> str:
    return f"{fmt(entry['median'])} ({fmt(entry['min'])}–{fmt(entry['max'])})"


def ratio_text(entry: dict) -> str:
    return spread(entry, lambda v: f"{v:.2f}")


def verdict_text(verdict: dict) -> str:
    missed = [name for name, check in verdict["checks"].items() if not check["pass"]]
    return "pass" if not missed else "miss: " + ", ".join(missed)


def waveform_markdown(section: dict) -> str:
    lines = [
        f"Waveform, {WAVEFORM_SAMPLES} values, of Ogg Opus speech (32 kbit/s, 20 ms, mono; bench/make_corpus.sh). "
        "Whole processes, start-up included, run in turns after a warm-up; times are medians (min–max), ratios "
        "are medians (min–max) of the per-turn ratios of wall times. Budgets (docs/performance.md): "
        f"≤ {BUDGET_VS_FLOOR}x the C floor, ≤ {BUDGET_VS_FFPROBE}x ffprobe, "
        f"≤ {BUDGET_OVER_BASELINE_MIB:g} MiB peak RSS over the binary's baseline.",
        "",
        "| audio | run | n | wall ms | CPU ms | peak RSS MiB | over baseline MiB | ours / floor | ours / ffprobe "
        "| budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    footnote = False
    for length, entry in section["lengths"].items():
        measured, judged = entry["measured"], entry["judged"]
        for key, series in measured["series"].items():
            peak = judged["peaks"][key]
            peak_text = f"{peak['peak_kib'] / 1024:.1f}" if peak["peak_kib"] is not None else "?"
            if not peak["visible_to_wait4"]:
                peak_text += "†"
                footnote = True
            run = LABELS[key]
            if key == "sample":
                call_ratio = measured["ratios"]["sample call/floor wall"]["median"]
                run += f" (in-process call {spread(series['call_s'], ms)} ms, {call_ratio:.2f}x the floor)"
            if key in OURS:
                over = f"{judged['peaks'][key]['over_baseline_mib']:.2f}"
                vs_floor = ratio_text(measured["ratios"][f"{key}/floor wall"])
                vs_ffprobe = ratio_text(measured["ratios"][f"{key}/ffprobe wall"])
                verdict = verdict_text(judged["verdicts"][key])
            else:
                over = vs_floor = vs_ffprobe = verdict = "—"
            lines.append(f"| {length} s | {run} | {measured['runs']} | {spread(series['wall_s'], ms)} "
                         f"| {ms(series['cpu_s']['median'])} | {peak_text} | {over} | {vs_floor} | {vs_ffprobe} "
                         f"| {verdict} |")
    base = section["baselines"]

    def baseline_mib(key: str) -> str:
        gnu = base[key].get("gnu_time_peak_kib")
        return (f"{gnu / 1024:.1f} MiB (GNU time, median of 3)" if gnu is not None
                else f"{base[key]['peak_kib'] / 1024:.1f} MiB")
    lines += [
        "",
        f"Baselines (no work, median of {BASELINE_RUNS}): our CLI `voicenote version` "
        f"{baseline_mib('cli')}, {spread(base['cli']['wall_s'], ms)} ms; "
        f"our C sample `waveform --baseline` {baseline_mib('sample')}, "
        f"{spread(base['sample']['wall_s'], ms)} ms.",
    ]
    if footnote:
        lines.append(f"† below the harness's own peak ({section['harness_peak_kib'] / 1024:.1f} MiB), which a "
                     "child's ru_maxrss inherits: read by GNU time on one run instead.")
    lines += ["", "| audio | our CLI vs C floor: max abs difference | buckets differing | our C call vs CLI "
              "| ffprobe levels | verdict |", "| --- | --- | --- | --- | --- | --- |"]
    for length, entry in section["lengths"].items():
        check = entry["verification"]
        worst = check["cli_vs_floor"]
        lines.append(f"| {length} s | {worst['max_abs_diff']:.4g} (bucket {worst['at_bucket']}: "
                     f"{worst['values'][0]:g} vs {worst['values'][1]:g}) | {worst['buckets_differing']} "
                     f"| {check['sample_vs_cli']['max_abs_diff']:.4g} | {check['ffprobe_levels']} "
                     f"| {'agree' if check['agree'] else 'DIFFER'} (≤ {VALUE_TOLERANCE:g}) |")
    if any("libcurl_at_exit" in entry for entry in section["lengths"].values()):
        seen = "; ".join(
            f"{length} s: " + ", ".join(f"{LABELS[key]} {'**yes**' if probe['libcurl'] else 'no'} "
                                        f"({probe['objects']} shared objects mapped)"
                                        for key, probe in entry["libcurl_at_exit"].items())
            for length, entry in section["lengths"].items() if "libcurl_at_exit" in entry)
        control = section.get("libcurl_probe_control") or {}
        control_text = ("a process that dlopens libcurl.so.4 is seen with it "
                        f"({', '.join(control.get('libcurl_paths', []))})" if control.get("ran")
                        else f"control not run: {control.get('why', '?')}")
        lines += ["", f"libcurl mapped when the process exits (bench/maps_probe.c preloaded into one untimed run of "
                      f"each, which reads /proc/self/maps at exit; the timed runs have no probe): {seen}. "
                      f"libcurl_mapped = {str(bool(section.get('libcurl_mapped'))).lower()}. The probe's control: "
                      f"{control_text}."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Recorder: shared inputs

def snapshot_library(build: pathlib.Path, work: pathlib.Path) -> dict:
    """Copies the built .so into WORK/lib (with its SONAME links) and returns it with its SHA-256.

    The recorder's C programs link against this copy, not build/lib: `make build` rewrites build/lib's .so in
    place (cp), and a process that has the old one mapped dies of SIGBUS when someone rebuilds during a 10-minute
    section. The copy is checked against its source (same bytes, source unchanged while copying)."""
    so = (build / "lib" / "libvoicenote.so").resolve()
    if not so.exists():
        raise BenchError(f"{so} is missing: run `make build` first")
    lib = work / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    for attempt in range(5):
        before = so.stat()
        copy = lib / so.name
        tmp = lib / (so.name + ".tmp")
        shutil.copyfile(so, tmp)
        after = so.stat()
        same = (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size)
        if same and filecmp.cmp(so, tmp, shallow=False):
            os.replace(tmp, copy)  # a new inode: programs still running on an older copy keep theirs
            break
        tmp.unlink(missing_ok=True)
        print(f"{so} changed while being copied (a build is running?); retrying in 20 s", flush=True)
        time.sleep(20)
    else:
        raise BenchError(f"{so} kept changing while being copied")
    soname = "libvoicenote.so." + so.name.split(".so.", 1)[1].split(".")[0]
    for link, target in ((soname, copy.name), ("libvoicenote.so", soname)):
        path = lib / link
        if path.is_symlink() or path.exists():
            path.unlink()
        path.symlink_to(target)
    return {"lib": lib, "source": str(so), "sha256": hashlib.sha256(copy.read_bytes()).hexdigest(),
            "source_mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(so.stat().st_mtime))}


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


def ogg_audio_packets(path: pathlib.Path) -> dict:
    """Pages, audio packets (after the two headers), their bytes and a digest of their concatenation."""
    data = path.read_bytes()
    at, pages, packets, current = 0, 0, [], b""
    while at < len(data):
        if data[at:at + 4] != b"OggS" or at + 27 > len(data):
            raise BenchError(f"{path}: not an Ogg page at byte {at}")
        count = data[at + 26]
        body = at + 27 + count
        for lace in data[at + 27:at + 27 + count]:
            current += data[body:body + lace]
            body += lace
            if lace < 255:
                packets.append(current)
                current = b""
        pages += 1
        at = body
    audio = packets[2:]
    return {"pages": pages, "packets": len(audio), "packet_bytes": sum(map(len, audio)),
            "packets_sha256": hashlib.sha256(b"".join(audio)).hexdigest()}


def describe_ogg(path: pathlib.Path) -> dict:
    """Size, exact duration (last granule minus pre-skip), ffprobe's duration and the audio packets of one file."""
    probe = json.loads(capture(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_name",
                                "-of", "json", str(path)], f"ffprobe {path.name}"))
    return {"size_bytes": path.stat().st_size, "duration_s": opus_frames_48k(path) / PCM_RATE,
            "ffprobe_duration_s": float(probe["format"]["duration"]),
            "codec": (probe.get("streams") or [{}])[0].get("codec_name"), **ogg_audio_packets(path)}


# ---------------------------------------------------------------------------------------------------------------
# Recorder CPU against opusenc

def recorder_cpu_commands(inputs: dict, raw: pathlib.Path, seconds: int, outputs: pathlib.Path) -> dict:
    """The three encoders of one turn, in turn order, on `raw` (`seconds` long)."""
    opusenc = ["opusenc", "--quiet", "--bitrate", "32", "--framesize", "20", "--comp", "10", "--vbr", "--raw",
               "--raw-rate", str(PCM_RATE), "--raw-chan", "1"]
    return {
        "ours": [str(inputs["programs"]["record_file"]), str(outputs / "ours"), str(raw), str(seconds)],
        "opusenc_same": opusenc + OPUSENC_SAME_SETTINGS + [str(raw), str(outputs / "opusenc_same.ogg")],
        "opusenc": opusenc + [str(raw), str(outputs / "opusenc.ogg")],
    }


def run_recorder_turn(commands: dict, outputs: pathlib.Path) -> dict:
    """One run of each encoder; ours writes into an emptied directory and names its file on stdout."""
    ours_dir = outputs / "ours"
    shutil.rmtree(ours_dir, ignore_errors=True)
    ours_dir.mkdir(parents=True)
    runs = {}
    for key, cmd in commands.items():
        runs[key] = run_once(cmd, RECORDER_LABELS[key], keep_stdout=key == "ours")
    try:
        finished = json.loads(runs["ours"]["stdout"])
    except json.JSONDecodeError as error:
        raise BenchError(f"record_file printed no result: {error}\n{runs['ours']['stdout']}{runs['ours']['stderr']}")
    runs["ours"]["finished"] = finished
    runs["ours"]["file"] = pathlib.Path(finished["path"])
    runs["opusenc_same"]["file"] = outputs / "opusenc_same.ogg"
    runs["opusenc"]["file"] = outputs / "opusenc.ogg"
    return runs


def recorder_cpu_section(inputs: dict, runs: int, callgrind_lengths: tuple) -> dict:
    """docs/performance.md recorder CPU: our recorder (file microphone) against opusenc on the same 600 s PCM, in turns."""
    outputs = inputs["dir"] / "cpu"
    outputs.mkdir(parents=True, exist_ok=True)
    commands = recorder_cpu_commands(inputs, inputs["raw"], RECORDER_SECONDS, outputs)
    started = time.perf_counter()
    run_recorder_turn(recorder_cpu_commands(inputs, inputs["warm_raw"], WARM_SECONDS, outputs), outputs)
    series = {key: [] for key in commands}
    check = None
    for turn in range(runs):
        results = run_recorder_turn(commands, outputs)
        files = {key: describe_ogg(result["file"]) for key, result in results.items()}
        same = files["ours"]["packets_sha256"] == files["opusenc_same"]["packets_sha256"]
        if check is None:
            check = {"files": files, "finished_event": results["ours"]["finished"], "identical_packets": [same]}
        else:
            check["identical_packets"].append(same)
        frames = files["ours"]["duration_s"] * PCM_RATE
        if round(frames) != RECORDER_SECONDS * PCM_RATE or abs(results["ours"]["finished"]["duration_s"]
                                                                - RECORDER_SECONDS) > 1e-6:
            raise BenchError(f"our take holds {frames:.0f} frames (event: {results['ours']['finished']['duration_s']}"
                             f" s), not {RECORDER_SECONDS * PCM_RATE}")
        for key, result in results.items():
            series[key].append({k: result[k] for k in ("wall_s", "cpu_s", "user_s", "sys_s", "peak_kib")})
        results["ours"]["file"].unlink(missing_ok=True)
        print(f"recorder CPU turn {turn + 1}/{runs}: " + ", ".join(
            f"{RECORDER_LABELS[key]} {series[key][-1]['cpu_s']:.2f} s CPU" for key in series), flush=True)
    harness_kib = harness_peak_kib()
    section = {"seconds_of_audio": RECORDER_SECONDS, "raw": str(inputs["raw"]), "runs": runs,
               "commands": commands, "settings": recorder_settings(), "series": {}, "ratios": {}, "check": check,
               "library": {k: v for k, v in inputs["snapshot"].items() if k != "lib"}}
    for key, rows in series.items():
        peak = statistics.median(r["peak_kib"] for r in rows)
        entry = {"wall_s": summary([r["wall_s"] for r in rows]), "cpu_s": summary([r["cpu_s"] for r in rows]),
                 "user_s": summary([r["user_s"] for r in rows]), "sys_s": summary([r["sys_s"] for r in rows]),
                 "runs": rows}
        if peak <= harness_kib + 256:  # hidden under the harness's own high-water mark: GNU time on a short run
            short = recorder_cpu_commands(inputs, inputs["warm_raw"], WARM_SECONDS, outputs)[key]
            entry["peak_kib"] = {"value": gnu_time_peak_kib(short), "from": f"gnu time, one {WARM_SECONDS} s run"}
        else:
            entry["peak_kib"] = {"value": peak, "from": "os.wait4, median"}
        section["series"][key] = entry
    for ref in ("opusenc_same", "opusenc"):
        for measure in ("cpu_s", "user_s", "sys_s", "wall_s"):
            ratios = [a[measure] / max(b[measure], 1e-9) for a, b in zip(series["ours"], series[ref])]
            section["ratios"][f"ours/{ref} {measure[:-2]}"] = dict(summary(ratios), runs=ratios)
    value = section["ratios"]["ours/opusenc_same cpu"]["median"]
    section["verdict"] = {"value": value, "limit": BUDGET_RECORDER_CPU, "pass": value <= BUDGET_RECORDER_CPU}
    shutil.rmtree(outputs / "ours", ignore_errors=True)
    counted = time.perf_counter()
    section["instructions"] = recorder_instructions(inputs, callgrind_lengths)
    if "ratio_at_600s" in section["instructions"]:
        print(f"recorder instructions (callgrind): ours/opusenc (same settings) "
              f"{section['instructions']['ratio_per_second']:.4f} per second of audio, "
              f"{section['instructions']['ratio_at_600s']:.4f} at {RECORDER_SECONDS} s "
              f"({time.perf_counter() - counted:.0f} s)", flush=True)
    print(f"recorder CPU: n={runs}, ours/opusenc (same settings) CPU {value:.3f} "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    return section


def pcm_head(inputs: dict, seconds: int) -> pathlib.Path:
    """The first `seconds` of the 600 s PCM, cached in WORK/recorder."""
    path = inputs["dir"] / f"speech_{seconds}s.raw"
    size = seconds * PCM_RATE * 2
    if not path.exists() or path.stat().st_size != size:
        with open(inputs["raw"], "rb") as f:
            path.write_bytes(f.read(size))
    return path


def recorder_instructions(inputs: dict, lengths: tuple) -> dict:
    """Instructions (callgrind's Ir, all threads) of ours and the same-settings opusenc on two take lengths: no
    noise from other tenants, unlike CPU time. The difference between the lengths gives the cost per second of
    audio; what is left at 0 s is start-up (for ours the dynamic linker and the runtime; FFmpeg's libraries are
    not loaded for an Opus take). valgrind 3.19 cannot read the DWARF 5 of the Swift-built library, so ours runs on a copy without
    debug sections (symbols kept), found first through LD_LIBRARY_PATH (the rpath is a RUNPATH)."""
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed"}
    source = inputs["snapshot"]["lib"]
    nodebug = inputs["dir"] / "lib-nodebug"
    nodebug.mkdir(parents=True, exist_ok=True)
    real = next(p for p in source.iterdir() if p.is_file() and not p.is_symlink() and not p.name.endswith(".tmp"))
    capture(["objcopy", "--strip-debug", str(real), str(nodebug / real.name)], "objcopy --strip-debug")
    for link in source.iterdir():
        if link.is_symlink():
            target = nodebug / link.name
            if target.is_symlink() or target.exists():
                target.unlink()
            target.symlink_to(os.readlink(link))
    out = inputs["dir"] / "callgrind"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    counts = {"ours": {}, "opusenc_same": {}}
    env = dict(os.environ, LD_LIBRARY_PATH=str(nodebug))
    for seconds in lengths:
        commands = recorder_cpu_commands(inputs, pcm_head(inputs, seconds), seconds, out)
        commands["ours"].append("600")  # record_file's timeout: valgrind runs it ~50x slower
        for key in counts:
            shutil.rmtree(out / "ours", ignore_errors=True)
            (out / "ours").mkdir()
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out / f'{key}_{seconds}s.cg'}"] + commands[key]
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, env=env if key == "ours" else None)
            found = re.search(r"Collected : (\d+)", proc.stderr)
            if proc.returncode != 0 or not found:
                raise BenchError(f"callgrind of {RECORDER_LABELS[key]} ({seconds} s) failed: {shlex.join(cmd)}\n"
                                 f"{proc.stderr[-3000:]}")
            counts[key][seconds] = int(found.group(1))
    shutil.rmtree(out / "ours", ignore_errors=True)
    short, long = lengths
    result = {"lengths_s": list(lengths), "instructions": counts, "files": str(out)}
    model = {}
    for key, by_length in counts.items():
        per_second = (by_length[long] - by_length[short]) / (long - short)
        model[key] = {"per_second": per_second, "start_up": by_length[short] - short * per_second}
    result["model"] = model
    result["ratio_per_second"] = model["ours"]["per_second"] / model["opusenc_same"]["per_second"]
    result["ratio_at_lengths"] = {s: counts["ours"][s] / counts["opusenc_same"][s] for s in lengths}
    at = RECORDER_SECONDS
    result["ratio_at_600s"] = ((model["ours"]["start_up"] + at * model["ours"]["per_second"])
                               / (model["opusenc_same"]["start_up"] + at * model["opusenc_same"]["per_second"]))
    return result


def recorder_settings() -> dict:
    """What both encoders are set to, and where opusenc's defaults differ from ours (docs/formats.md, docs/recorder.md)."""
    return {
        "ours": "libopusenc pull API: 32 kbit/s VBR, complexity 10, 20 ms, OPUS_APPLICATION_VOIP, "
                "OPE_SET_DECISION_DELAY(0), OPE_SET_MUXING_DELAY(24000); beside the encode: the meter (every 0.1 s) "
                "and its own Ogg pages decoded at 16 kHz with §5.1 blocks of that, for the take's waveform (the "
                "captured PCM's dB blocks only when that analysis cannot run)",
        "opusenc": "opus-tools opusenc on libopusenc: VBR and complexity 10 are its defaults (as ours); its "
                   "application is OPUS_APPLICATION_AUDIO (ours VOIP), its muxing delay 1000 ms (ours 500 ms), its "
                   "decision delay libopusenc's default 96000 (ours 0)",
        "opusenc_same": "opusenc " + " ".join(OPUSENC_SAME_SETTINGS) + ": 4000 = OPUS_SET_APPLICATION_REQUEST, "
                        "2048 = OPUS_APPLICATION_VOIP, 14000 = OPE_SET_DECISION_DELAY_REQUEST; --max-delay 500 = "
                        "OPE_SET_MUXING_DELAY(24000). Its Opus packets are checked to equal ours byte for byte",
    }


def recorder_cpu_markdown(section: dict) -> str:
    check = section["check"]
    files = check["files"]
    lines = [
        f"Recorder CPU, {section['seconds_of_audio']} s of speech (the 48 kHz mono S16 PCM of "
        f"speech_{section['seconds_of_audio']}s.ogg, bench/make_corpus.sh) to Ogg Opus at 32 kbit/s VBR, "
        "complexity 10, 20 ms frames. Ours: bench/record_file.c, libvoicenote's recorder reading a virtual "
        "microphone (ALSA `file` plugin, as fast as it is read) with a maximum length of exactly "
        f"{section['seconds_of_audio']} s, waiting for FINISHED. Whole processes after a {WARM_SECONDS} s warm-up "
        "of each, in turns; CPU is user + sys of all threads (os.wait4); times are medians (min–max), ratios "
        f"medians (min–max) of per-turn ratios. Budget (docs/performance.md): ≤ {BUDGET_RECORDER_CPU}x opusenc with the "
        "same settings.",
        "",
        "| run | n | CPU s | user s | sys s | wall s | peak RSS MiB | output | ours / run, CPU | ours / run, user "
        "| ours / run, wall | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, entry in section["series"].items():
        peak = entry["peak_kib"]
        peak_text = "?" if peak["value"] is None else f"{peak['value'] / 1024:.1f}" + (
            "" if peak["from"].startswith("os.wait4") else "†")
        info = files[key]
        output = f"{info['duration_s']:.3f} s, {info['size_bytes']:,} B"
        if key == "ours":
            vs_cpu = vs_user = vs_wall = verdict = "—"
        else:
            vs_cpu = ratio_text(section["ratios"][f"ours/{key} cpu"])
            vs_user = ratio_text(section["ratios"][f"ours/{key} user"])
            vs_wall = ratio_text(section["ratios"][f"ours/{key} wall"])
            if key == "opusenc_same":
                v = section["verdict"]
                verdict = f"{'pass' if v['pass'] else 'miss'} (≤ {v['limit']}x)"
            else:
                verdict = "— (not the same settings)"
        lines.append(f"| {RECORDER_LABELS[key]} | {section['runs']} | {spread(entry['cpu_s'], secs)} "
                     f"| {secs(entry['user_s']['median'])} | {secs(entry['sys_s']['median'])} "
                     f"| {spread(entry['wall_s'], secs)} | {peak_text} | {output} | {vs_cpu} | {vs_user} | {vs_wall} "
                     f"| {verdict} |")
    same = all(check["identical_packets"])
    lines += [
        "",
        f"† below the harness's own peak, which a child's ru_maxrss inherits: GNU time on one {WARM_SECONDS} s run.",
        "",
        "| output (first turn) | exact duration s | ffprobe duration s | bytes | pages | audio packets | packet bytes "
        "| packets equal ours |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, info in files.items():
        equal = "—" if key == "ours" else (
            ("yes, every turn" if same else "NO") if key == "opusenc_same"
            else ("yes" if info["packets_sha256"] == files["ours"]["packets_sha256"] else "no (other settings)"))
        lines.append(f"| {RECORDER_LABELS[key]} | {info['duration_s']:.6f} | {info['ffprobe_duration_s']:.6f} "
                     f"| {info['size_bytes']:,} | {info['pages']} | {info['packets']} | {info['packet_bytes']:,} "
                     f"| {equal} |")
    counted = section.get("instructions") or {}
    if "model" in counted:
        short, long = counted["lengths_s"]
        model = counted["model"]
        lines += [
            "",
            "Instructions (callgrind Ir, every thread; deterministic, unlike CPU time on this shared machine): "
            f"takes of {short} s and {long} s; their difference gives the cost per second of audio, the rest is "
            "start-up.",
            "",
            f"| run | {short} s take, M | {long} s take, M | per second of audio, M | start-up, M "
            f"| {RECORDER_SECONDS} s (modelled), M |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for key in ("ours", "opusenc_same"):
            m = model[key]
            by = {int(k): v for k, v in counted["instructions"][key].items()}
            lines.append(f"| {RECORDER_LABELS[key]} | {by[short] / 1e6:,.1f} | {by[long] / 1e6:,.1f} "
                         f"| {m['per_second'] / 1e6:,.2f} | {m['start_up'] / 1e6:,.1f} "
                         f"| {(m['start_up'] + RECORDER_SECONDS * m['per_second']) / 1e6:,.0f} |")
        at = {int(k): v for k, v in counted["ratio_at_lengths"].items()}
        lines.append(f"| ours / same-settings opusenc | {at[short]:.3f} | {at[long]:.3f} "
                     f"| {counted['ratio_per_second']:.4f} | — | {counted['ratio_at_600s']:.4f} |")
    elif counted.get("skipped"):
        lines += ["", f"Instructions: not counted ({counted['skipped']})."]
    event = check["finished_event"]
    lines += [
        "",
        f"Our FINISHED event: {event['duration_s']:.6f} s, {event['size_bytes']:,} bytes, after {event['events']} "
        "events in all. Settings: ours — " + section["settings"]["ours"] + ". opusenc — "
        + section["settings"]["opusenc"] + ". Same settings — " + section["settings"]["opusenc_same"] + ".",
        "",
        library_note(section),
    ]
    return "\n".join(lines) + "\n"


def secs(value: float) -> str:
    return f"{value:.2f}"


def library_note(section: dict) -> str:
    library = section.get("library") or {}
    return (f"Library measured: a copy of {library.get('source', '?')} built {library.get('source_mtime', '?')}, "
            f"sha256 {str(library.get('sha256', '?'))[:16]}….")


# ---------------------------------------------------------------------------------------------------------------
# Recorder latency: a private PulseAudio server (Tests/Support/PulseServer.swift's recipe)

class PulseServer:
    """A private `pulseaudio` with one null sink (`vn_null`, 48 kHz mono) and a native socket with anonymous auth
    in its own short temporary directory; the server and its clients get their own HOME, XDG_RUNTIME_DIR and
    PULSE_RUNTIME_PATH, so no user session is touched (root works; pulseaudio only warns). Every process it starts
    is stopped by its pid (SIGTERM, then SIGKILL after 5 s)."""

    SINK = "vn_null"

    def __init__(self, timeout: float = 15, sink_arguments: str = ""):
        """Starts the server; `sink_arguments` are added to the null sink's (bench/first_frame.py's norewinds=1)."""
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="vnpa-", dir="/tmp"))  # a socket path is short
        self.socket = self.directory / "native"
        self.children = []
        self.daemon = None
        for sub in ("home", "run", "run/pulse"):
            (self.directory / sub).mkdir(parents=True, exist_ok=True)
        self.log_path = self.directory / "pulseaudio.log"
        try:
            with open(self.log_path, "wb") as log:
                self.daemon = subprocess.Popen(
                    ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                     "--log-target=stderr", "--log-level=info",
                     f"--load=module-null-sink sink_name={self.SINK} rate={PCM_RATE} channels=1 {sink_arguments}".rstrip(),
                     f"--load=module-native-protocol-unix auth-anonymous=1 socket={self.socket}"],
                    env=self.environment(client=False), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=log)
            deadline = time.monotonic() + timeout
            while b"Daemon startup complete" not in self.log_path.read_bytes():
                if self.daemon.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"pulseaudio did not start within {timeout} s:\n{self.log()}")
                time.sleep(0.05)
        except BaseException:
            self.stop()
            raise

    @property
    def address(self) -> str:
        return f"unix:{self.socket}"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def environment(self, client: bool = True) -> dict:
        env = dict(os.environ, HOME=str(self.directory / "home"), XDG_RUNTIME_DIR=str(self.directory / "run"),
                   PULSE_RUNTIME_PATH=str(self.directory / "run" / "pulse"))
        env.pop("PULSE_SERVER", None)
        if client:
            env["PULSE_SERVER"] = self.address
        return env

    def alsa_configuration(self, pcm: str) -> str:
        """`pcm.<pcm>`: the monitor of the null sink through the ALSA pulse plugin (a real-time microphone)."""
        return f'pcm.{pcm} {{ type pulse server "{self.address}" device "{self.SINK}.monitor" }}'

    def warm(self, timeout: float = 15) -> None:
        """Keeps `parec --latency-msec=10` on the monitor until stop, and waits for its first data: while it runs
        the idle null sink uses short blocks and new streams start within tens of ms (else ~1.8 s late)."""
        parec = subprocess.Popen(["parec", f"--server={self.address}", f"--device={self.SINK}.monitor",
                                  "--latency-msec=10", "--raw", "--format=s16le", f"--rate={PCM_RATE}",
                                  "--channels=1"], env=self.environment(), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.children.append(parec)
        arrived = threading.Event()

        def drain():
            while parec.stdout.read1(65536):
                arrived.set()
        threading.Thread(target=drain, daemon=True).start()
        if not arrived.wait(timeout) or parec.poll() is not None:
            raise BenchError(f"parec got no data within {timeout} s\n{self.log()}")

    def play(self, raw: pathlib.Path) -> None:
        """Plays headerless 48 kHz mono S16 PCM into the null sink (`paplay --raw`), so the microphone hears speech."""
        self.children.append(subprocess.Popen(
            ["paplay", f"--server={self.address}", f"--device={self.SINK}", "--raw", "--format=s16le",
             f"--rate={PCM_RATE}", "--channels=1", str(raw)], env=self.environment(), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def stop(self) -> None:
        """Clients first, then the server; each by pid. Removes the directory. Idempotent."""
        for child in self.children[::-1] + ([self.daemon] if self.daemon else []):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(5)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait(5)
            if child.stdout:
                child.stdout.close()
        self.children = []
        self.daemon = None
        shutil.rmtree(self.directory, ignore_errors=True)


def run_latency(cmd: list, label: str, env: dict = None, timeout: float = 600) -> dict:
    """Runs bench/record_latency.c once and returns its JSON."""
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                              timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise BenchError(f"{label} did not end within {timeout:.0f} s: {shlex.join(cmd)}\n{error.stderr or ''}")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{proc.stderr}")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        raise BenchError(f"{label} printed no JSON ({error}):\n{proc.stdout}{proc.stderr}")


def figure(values: list, limit: float = None) -> dict:
    """n, median, min, max (and the budget check on the median) of one latency figure, in ms."""
    entry = dict(summary(values), n=len(values), runs=values)
    if limit is not None:
        entry.update(limit_ms=limit, **{"pass": entry["median"] <= limit}, max_within=entry["max"] <= limit)
    return entry


def recorder_latency_section(inputs: dict, counts: dict) -> dict:
    """docs/performance.md start latency (begin returns with capture running ≤ 50 ms) and finish (stop to finished ≤ 100 ms
    for a 10 min take), on a warmed real-time microphone (PulseAudio null-sink monitor) and, for the long take,
    on the file microphone."""
    latency = inputs["programs"]["record_latency"]
    takes_dir = inputs["dir"] / "latency"
    shutil.rmtree(takes_dir, ignore_errors=True)
    takes_dir.mkdir(parents=True)
    started = time.perf_counter()
    raw = {"begin": {"ours": [], "floor": []}}
    turn_ratios = {"warm": [], "cold": []}
    pulse = PulseServer()
    try:
        pulse.warm()
        pulse.play(inputs["raw"])
        env = pulse.environment()
        rt = pulse.alsa_configuration("vn_rt")
        raw["device"] = rt
        for turn in range(counts["begin_turns"]):
            ours = run_latency([str(latency), "takes", str(takes_dir), "vn_rt", rt, str(BEGIN_TAKE_SECONDS),
                                str(counts["begins_per_process"]), "30"], "record_latency takes (begin)", env)
            floor = run_latency([str(latency), "floor", "vn_rt", rt, str(counts["begins_per_process"])],
                                "record_latency floor", env)
            raw["begin"]["ours"].append(ours)
            raw["begin"]["floor"].append(floor)
            turn_ratios["warm"].append(statistics.median(ours["begin_ms"][1:])
                                       / max(statistics.median(floor["start_ms"][1:]), 1e-9))
            turn_ratios["cold"].append(ours["begin_ms"][0] / max(floor["start_ms"][0], 1e-9))
            print(f"recorder begin turn {turn + 1}/{counts['begin_turns']}: ours "
                  f"{statistics.median(ours['begin_ms'][1:]):.1f} ms (first {ours['begin_ms'][0]:.1f}), alsa-lib "
                  f"{statistics.median(floor['start_ms'][1:]):.1f} ms (first {floor['start_ms'][0]:.1f})", flush=True)
        raw["realtime_take"] = run_latency(
            [str(latency), "takes", str(takes_dir), "vn_rt", rt, str(REALTIME_TAKE_SECONDS),
             str(counts["realtime_takes"]), str(REALTIME_TAKE_SECONDS + 30)],
            "record_latency takes (real-time)", env, timeout=counts["realtime_takes"] * (REALTIME_TAKE_SECONDS + 40))
        print(f"recorder stop, real-time {REALTIME_TAKE_SECONDS} s takes: "
              + ", ".join(f"{v:.1f}" for v in raw["realtime_take"]["stop_to_finished_ms"]) + " ms", flush=True)
    finally:
        pulse.stop()
    first_frames = first_frame.measure(inputs, counts["begin_turns"], sys.modules[__name__])

    file_mic = file_microphone(inputs["looped_raw"])
    seconds = counts["file_take_seconds"]
    raw["file_mic"] = file_mic
    for mode in ("stop", "pause"):
        key = f"file_take_{mode}"
        raw[key] = run_latency([str(latency), "takes", str(takes_dir), "vn_mic", file_mic, str(seconds),
                                str(counts["file_takes"]), str(seconds + 120)] + (["pause"] if mode == "pause" else []),
                               f"record_latency takes (file, {mode})",
                               timeout=counts["file_takes"] * (seconds + 180))
        print(f"recorder stop, {seconds} s file-microphone takes ({mode}): "
              + ", ".join(f"{v:.1f}" for v in raw[key]["stop_to_finished_ms"]) + " ms", flush=True)
    leftovers = sorted(p.name for p in takes_dir.iterdir())
    shutil.rmtree(takes_dir, ignore_errors=True)

    ours_begins = raw["begin"]["ours"]
    floors = raw["begin"]["floor"]
    warm_begin = [v for run in ours_begins for v in run["begin_ms"][1:]]
    cold_begin = [run["begin_ms"][0] for run in ours_begins]
    first_audio = [v for run in ours_begins for v in run["first_audio_ms"][1:]]
    realtime = raw["realtime_take"]
    figures = {
        "begin_warm": figure(warm_begin, BUDGET_BEGIN_MS),
        "begin_cold": figure(cold_begin, BUDGET_BEGIN_MS),
        "floor_start_warm": figure([v for run in floors for v in run["start_ms"][1:]]),
        "floor_start_cold": figure([run["start_ms"][0] for run in floors]),
        "floor_first_frame_warm": figure([v for run in floors for v in run["first_frame_ms"][1:]]),
        "first_audio_warm": figure(first_audio),
        "realtime_begin": figure(realtime["begin_ms"], BUDGET_BEGIN_MS),
        "realtime_stop_call": figure(realtime["stop_call_ms"]),
        "realtime_stop_to_finished": figure(realtime["stop_to_finished_ms"], BUDGET_FINISH_MS),
        "file_stop_to_finished": figure(raw["file_take_stop"]["stop_to_finished_ms"], BUDGET_FINISH_MS),
        "file_stop_backlog_s": figure([f - a for f, a in zip(raw["file_take_stop"]["finished_duration_s"],
                                                             raw["file_take_stop"]["duration_at_stop_s"])]),
        "file_pause_call": figure(raw["file_take_pause"]["pause_call_ms"]),
        "file_pause_backlog_s": figure([f - a for f, a in zip(raw["file_take_pause"]["finished_duration_s"],
                                                              raw["file_take_pause"]["duration_at_stop_s"])]),
        "file_paused_stop_to_finished": figure(raw["file_take_pause"]["stop_to_finished_ms"], BUDGET_FINISH_MS),
        "begin_ratio_warm": dict(summary(turn_ratios["warm"]), runs=turn_ratios["warm"]),
        "begin_ratio_cold": dict(summary(turn_ratios["cold"]), runs=turn_ratios["cold"]),
    }
    print(f"recorder latency: ({time.perf_counter() - started:.0f} s)", flush=True)
    return {"counts": counts, "figures": figures, "raw": raw, "leftover_files": leftovers, "first_frame": first_frames,
            "budgets_ms": {"begin": BUDGET_BEGIN_MS, "finish": BUDGET_FINISH_MS},
            "library": {k: v for k, v in inputs["snapshot"].items() if k != "lib"}}


def recorder_latency_markdown(section: dict) -> str:
    f = section["figures"]
    c = section["counts"]
    budgets = section["budgets_ms"]

    def row(name, device, entry, reference="—", ratio="—", budget=None):
        n = entry["n"]
        verdict = "—"
        if budget is not None:
            verdict = "pass" if entry["pass"] else "miss"
            if not entry["max_within"]:
                verdict += f" (max {entry['max']:.1f} ms over)"
        budget_text = f"≤ {budget:g} ms" if budget is not None else "—"
        return (f"| {name} | {device} | {n} | {entry['median']:.1f} | {entry['min']:.1f}–{entry['max']:.1f} "
                f"| {reference} | {ratio} | {budget_text} | {verdict} |")

    rt = "real-time: PulseAudio null-sink monitor, warmed"
    first_frame_rows, first_frame_notes = first_frame.markdown(section.get("first_frame"), row, sys.modules[__name__])
    fm = "file microphone (faster than real time)"
    turns, per = c["begin_turns"], c["begins_per_process"]
    lines = [
        "Recorder latency (bench/record_latency.c, in process, CLOCK_MONOTONIC). Real-time microphone: a private "
        "PulseAudio server with a null sink (48 kHz mono) whose monitor is opened through the ALSA pulse plugin "
        "(configuration text), warmed by a `parec --latency-msec=10` kept running, with speech played into the sink "
        f"(`paplay`). Begin: {turns} processes of {per} takes of {BEGIN_TAKE_SECONDS} s each (begin, wait for the "
        "audio, stop); the first take of a process loads the ALSA pulse plugin and connects (\"first in process\"). "
        "Reference for begin: the same device opened, configured as the library does and started with alsa-lib "
        "alone (`record_latency floor`), alternating processes with ours; ratios are medians (min–max) of per-"
        "process ratios. arecord is not used as a reference: as a whole process its start-up cannot be separated "
        "from the device's. Stop: the time from calling vn_recorder_stop() to the FINISHED callback. A real-time "
        f"microphone cannot deliver 10 minutes in less than 10 minutes, so the {c['file_take_seconds']} s take uses "
        f"the file microphone, and the real-time figure is a {REALTIME_TAKE_SECONDS} s take. Budgets (docs/performance.md): "
        f"begin ≤ {budgets['begin']:g} ms, stop to finished ≤ {budgets['finish']:g} ms for a 10 min take; verdicts "
        "on the median (the max is flagged when over).",
        "",
        "| figure | microphone | n | median ms | min–max ms | reference | ours / reference | budget | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        row("begin (warm process)", rt, f["begin_warm"],
            f"alsa-lib open + configure + start: {f['floor_start_warm']['median']:.1f} ms",
            ratio_text(f["begin_ratio_warm"]), budgets["begin"]),
        row("begin (first in process)", rt, f["begin_cold"],
            f"alsa-lib, first in process: {f['floor_start_cold']['median']:.1f} ms",
            ratio_text(f["begin_ratio_cold"]), budgets["begin"]),
        row("first audio after begin: lag of the first captured frame*", rt, f["first_audio_warm"],
            f"alsa-lib: first 20 ms period read {f['floor_first_frame_warm']['median']:.1f} ms after open"),
        *first_frame_rows,
        row(f"stop → FINISHED, {REALTIME_TAKE_SECONDS} s take", rt, f["realtime_stop_to_finished"],
            f"stop call itself {f['realtime_stop_call']['median']:.1f} ms", "—", budgets["finish"]),
        row(f"stop → FINISHED, {c['file_take_seconds']} s take, stopped while recording", fm,
            f["file_stop_to_finished"],
            f"stop still encodes the ring's backlog: {f['file_stop_backlog_s']['median']:.2f} s of audio", "—",
            budgets["finish"]),
        row(f"stop → FINISHED, {c['file_take_seconds']} s take, paused first (finishing alone)", fm,
            f["file_paused_stop_to_finished"],
            f"the pause before it: {f['file_pause_call']['median']:.1f} ms for "
            f"{f['file_pause_backlog_s']['median']:.2f} s of backlog", "—", budgets["finish"]),
        "",
        "\\* the time from the begin call to the first context event, minus the audio that event reports (0.1 s): "
        "how late capture really started. At or below 0 means no measurable lag (PulseAudio hands over what the "
        "monitor already holds, so the first 0.1 s can arrive a little sooner than 0.1 s after begin).",
        *first_frame_notes,
        "",
        library_note(section),
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Player: CPU against opusdec | aplay, play → first frame against alsa-lib alone

def player_device(output) -> str:
    """ALSA configuration text of the sink both sides play to: the file plugin over a null slave, unpaced (it takes
    frames as fast as they are written), copying them into `output` (/dev/null when timed)."""
    return f'pcm.{PLAYER_DEVICE} {{ type file slave.pcm {{ type null }} file "{output}" format raw }}'


def build_player_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """The corpus (speech_600s.ogg, speech_5s.ogg), a snapshot of the library, bench/play_file.c and
    bench/play_latency.c."""
    cc_name = os.environ.get("CC", "cc")
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "opusdec", "aplay", "pkg-config", cc_name])
    corpus = make_corpus(work)
    folder = work / "player"
    folder.mkdir(parents=True, exist_ok=True)
    if re.search(r'["\\\\ ]', str(folder)) or re.search(r'["\\\\ ]', str(corpus)):
        raise BenchError(f"{folder}: the ALSA configuration text and the shell line need a path without \", \\ or spaces")
    snapshot = snapshot_library(build, work)
    lib = snapshot["lib"]
    cc = shlex.split(cc_name)
    alsa = shlex.split(capture(["pkg-config", "--cflags", "--libs", "alsa"], "pkg-config alsa"))
    flags = ["-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include")]
    link = ["-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"]
    programs = {"play_file": work / "play_file", "play_latency": work / "play_latency"}
    capture(cc + ["-std=c99"] + flags + ["-o", str(programs["play_file"]), str(HERE / "play_file.c")] + link,
            "building bench/play_file.c")
    # -rdynamic: play_latency's own snd_pcm_writei (which times the first frame) must take the library's calls.
    capture(cc + ["-std=c11", "-rdynamic"] + flags + ["-o", str(programs["play_latency"]), str(HERE / "play_latency.c")]
            + link + alsa + ["-ldl"], "building bench/play_latency.c")
    return {"ogg": corpus / f"speech_{PLAYER_SECONDS}s.ogg", "short_ogg": corpus / "speech_5s.ogg", "dir": folder,
            "snapshot": snapshot, "programs": programs}


def player_commands(inputs: dict, ogg: pathlib.Path, outputs: dict) -> dict:
    """The four runs of one turn, in turn order, each {cmd, env}: `outputs[key]` is where its sink copies the frames.
    Every run gets ALSA_CONFIG_PATH = a file holding only its sink's definition (aplay finds `vn_bench` there; ours
    is handed the same text through vn_player_options_set_device)."""
    aplay = f"aplay -q -D {PLAYER_DEVICE} -t raw -f S16_LE -r {PCM_RATE} -c 1"
    decode = f"opusdec --quiet {shlex.quote(str(ogg))} -"
    stretch = f"sox -V1 -t raw -r {PCM_RATE} -e signed -b 16 -c 1 - -t raw - tempo -s 2"
    commands = {}
    for key in PLAYER_LABELS:
        text = player_device(outputs[key])
        config = inputs["dir"] / f"alsa-{key}.conf"
        config.write_text(text + "\n")
        env = dict(os.environ, ALSA_CONFIG_PATH=str(config))
        if key.startswith("ours"):
            rate = key.split("_")[1][:-1]
            cmd = [str(inputs["programs"]["play_file"]), str(ogg), rate, PLAYER_DEVICE, text, "600"]
        else:
            cmd = ["sh", "-c", f"{decode} | {aplay}" if key == "ref_1x" else f"{decode} | {stretch} | {aplay}"]
        commands[key] = {"cmd": cmd, "env": env}
    return commands


def run_player_turn(commands: dict) -> dict:
    runs = {}
    for key, command in commands.items():
        runs[key] = run_once(command["cmd"], PLAYER_LABELS[key], keep_stdout=key.startswith("ours"),
                             env=command["env"])
        if key.startswith("ours"):
            try:
                runs[key]["played"] = json.loads(runs[key]["stdout"])
            except json.JSONDecodeError as error:
                raise BenchError(f"play_file printed no result: {error}\n{runs[key]['stdout']}{runs[key]['stderr']}")
    return runs


def max_sample_difference(a: pathlib.Path, b: pathlib.Path, frames: int) -> int:
    """The largest absolute difference between two S16 mono files over their first `frames` samples (-1 when one
    is shorter). Read in blocks: the harness's own peak RSS is inherited by every child it starts."""
    import array
    largest, left, block = 0, frames, 1 << 19
    with open(a, "rb") as f, open(b, "rb") as g:
        while left > 0:
            count = min(left, block)
            x, y = array.array("h"), array.array("h")
            x.frombytes(f.read(count * 2))
            y.frombytes(g.read(count * 2))
            if len(x) != count or len(y) != count:
                return -1
            largest = max(largest, max(map(abs, map(int.__sub__, x, y))))
            left -= count
    return largest


def verify_player(inputs: dict) -> dict:
    """One untimed run of each into real files: the frames each played (1x: ours = the file's own length; opusdec
    | aplay the same, then aplay's padding, checked to be silence), and how far ours is from opusdec's samples
    (both dither to 16 bits, so a few LSB, not 0)."""
    folder = inputs["dir"]
    outputs = {key: folder / f"verify_{key}.raw" for key in PLAYER_LABELS}
    for path in outputs.values():
        path.unlink(missing_ok=True)
    runs = run_player_turn(player_commands(inputs, inputs["ogg"], outputs))
    decoded = opus_frames_48k(inputs["ogg"])
    frames = {key: path.stat().st_size // 2 for key, path in outputs.items()}
    with open(outputs["ref_1x"], "rb") as f:
        f.seek(decoded * 2)
        tail = f.read()
    check = {
        "file_frames": decoded,
        "frames": frames,
        "ours_1x_equal_file": frames["ours_1x"] == decoded,
        "ref_1x_padding_frames": frames["ref_1x"] - decoded,
        "ref_1x_padding_is_silence": not any(tail),
        "max_abs_sample_difference_1x": max_sample_difference(outputs["ours_1x"], outputs["ref_1x"], decoded),
        "played_event": {key: runs[key]["played"] for key in ("ours_1x", "ours_2x")},
    }
    for path in outputs.values():
        path.unlink(missing_ok=True)
    if not check["ours_1x_equal_file"]:
        raise BenchError(f"our player wrote {frames['ours_1x']} frames at 1x, the file holds {decoded}")
    return check


def player_cpu_section(inputs: dict, runs: int) -> dict:
    """docs/performance.md player CPU: 600 s of Opus speech played by ours (1x, 2x) and by opusdec | aplay (and
    | sox tempo at 2x) to the same unpaced sink, whole processes in turns after a 5 s warm-up of each."""
    started = time.perf_counter()
    nulls = {key: "/dev/null" for key in PLAYER_LABELS}
    run_player_turn(player_commands(inputs, inputs["short_ogg"], nulls))
    check = verify_player(inputs)
    print(f"player: frames played at 1x: ours {check['frames']['ours_1x']:,}, opusdec | aplay "
          f"{check['frames']['ref_1x']:,} (file {check['file_frames']:,}); max sample difference "
          f"{check['max_abs_sample_difference_1x']}", flush=True)
    commands = player_commands(inputs, inputs["ogg"], nulls)
    series = {key: [] for key in commands}
    events = []
    for turn in range(runs):
        results = run_player_turn(commands)
        for key, result in results.items():
            series[key].append({k: result[k] for k in ("wall_s", "cpu_s", "user_s", "sys_s", "peak_kib")})
        events.append({key: results[key]["played"] for key in ("ours_1x", "ours_2x")})
        print(f"player CPU turn {turn + 1}/{runs}: " + ", ".join(
            f"{key} {series[key][-1]['cpu_s']:.2f} s" for key in series), flush=True)
    harness_kib = harness_peak_kib()
    section = {"seconds_of_audio": PLAYER_SECONDS, "file": str(inputs["ogg"]), "runs": runs,
               "device": player_device("/dev/null"),
               "commands": {key: c["cmd"] for key, c in commands.items()}, "series": {}, "ratios": {},
               "check": check, "events": events, "harness_peak_kib": harness_kib,
               "library": {k: v for k, v in inputs["snapshot"].items() if k != "lib"}}
    for key, rows in series.items():
        peak = statistics.median(r["peak_kib"] for r in rows)
        entry = {m: summary([r[m] for r in rows]) for m in ("wall_s", "cpu_s", "user_s", "sys_s")}
        entry["runs"] = rows
        if peak <= harness_kib + 256:  # hidden under the harness's own high-water mark: GNU time on a short run
            short = player_commands(inputs, inputs["short_ogg"], nulls)[key]
            cmd = ["env", f"ALSA_CONFIG_PATH={short['env']['ALSA_CONFIG_PATH']}"] + short["cmd"]
            entry["peak_kib"] = {"value": gnu_time_peak_kib(cmd), "from": "gnu time, one 5 s run"}
        else:
            entry["peak_kib"] = {"value": peak, "from": "os.wait4, median"}
        section["series"][key] = entry
    for ours, ref in (("ours_1x", "ref_1x"), ("ours_2x", "ref_2x"), ("ours_2x", "ours_1x")):
        for measure in ("cpu_s", "user_s", "sys_s", "wall_s"):
            ratios = [a[measure] / max(b[measure], 1e-9) for a, b in zip(series[ours], series[ref])]
            section["ratios"][f"{ours}/{ref} {measure[:-2]}"] = dict(summary(ratios), runs=ratios)
    value = section["ratios"]["ours_1x/ref_1x cpu"]["median"]
    section["verdict"] = {"value": value, "limit": BUDGET_PLAYER_CPU, "pass": value <= BUDGET_PLAYER_CPU}
    print(f"player CPU: n={runs}, ours/opusdec | aplay at 1x {value:.3f}, at 2x ours/sox tempo "
          f"{section['ratios']['ours_2x/ref_2x cpu']['median']:.3f} ({time.perf_counter() - started:.0f} s)",
          flush=True)
    return section


def player_latency_section(inputs: dict, counts: dict) -> dict:
    """docs/performance.md play → first frame: bench/play_latency.c ours (vn_player_load of the 5 s note with
    autoplay) against alsa-lib alone (open, configure, write), alternating processes of `takes_per_process` each."""
    if counts["takes_per_process"] < 2:
        raise BenchError("the play latency needs at least 2 takes per process (the first is first in process)")
    program = str(inputs["programs"]["play_latency"])
    output = inputs["dir"] / "latency.raw"
    started = time.perf_counter()
    raw = {"ours": [], "floor": []}
    for turn in range(counts["turns"]):
        ours = run_latency([program, "ours", str(inputs["short_ogg"]), str(output), str(counts["takes_per_process"])],
                           "play_latency ours", timeout=120)
        floor = run_latency([program, "floor", str(output), str(counts["takes_per_process"])], "play_latency floor",
                            timeout=120)
        for name, run in (("ours", ours), ("floor", floor)):
            missing = [v for v in run["first_write_ms"] + run["file_grew_ms"] if v < 0]
            if missing:
                raise BenchError(f"play_latency {name}: a take saw no first frame or no file growth:\n{run}")
        raw["ours"].append(ours)
        raw["floor"].append(floor)
        print(f"play → first frame turn {turn + 1}/{counts['turns']}: ours {ours['first_write_ms'][0]:.2f} ms "
              f"(then {statistics.median(ours['first_write_ms'][1:]):.2f}), alsa-lib "
              f"{floor['first_write_ms'][0]:.2f} ms (then {statistics.median(floor['first_write_ms'][1:]):.2f})",
              flush=True)
    output.unlink(missing_ok=True)

    def cold(side, key):
        return [run[key][0] for run in raw[side]]

    def warm(side, key):
        return [v for run in raw[side] for v in run[key][1:]]

    def ratios(key, first):
        values = [(o[key][0] / max(f[key][0], 1e-9)) if first else
                  (statistics.median(o[key][1:]) / max(statistics.median(f[key][1:]), 1e-9))
                  for o, f in zip(raw["ours"], raw["floor"])]
        return dict(summary(values), runs=values)
    limit = BUDGET_PLAY_FIRST_FRAME_MS
    figures = {
        "first_write_cold": figure(cold("ours", "first_write_ms"), limit),
        "first_write_warm": figure(warm("ours", "first_write_ms"), limit),
        "file_grew_cold": figure(cold("ours", "file_grew_ms"), limit),
        "file_grew_warm": figure(warm("ours", "file_grew_ms"), limit),
        "load_call": figure(warm("ours", "load_call_ms") + cold("ours", "load_call_ms")),
        "frames_at_growth": figure(warm("ours", "frames_at_growth") + cold("ours", "frames_at_growth")),
        "floor_first_write_cold": figure(cold("floor", "first_write_ms")),
        "floor_first_write_warm": figure(warm("floor", "first_write_ms")),
        "floor_file_grew_cold": figure(cold("floor", "file_grew_ms")),
        "floor_file_grew_warm": figure(warm("floor", "file_grew_ms")),
        "floor_configured_warm": figure(warm("floor", "configured_ms")),
        "ratio_first_write_cold": ratios("first_write_ms", True),
        "ratio_first_write_warm": ratios("first_write_ms", False),
        "ratio_file_grew_cold": ratios("file_grew_ms", True),
        "ratio_file_grew_warm": ratios("file_grew_ms", False),
    }
    print(f"play → first frame: ours {figures['first_write_cold']['median']:.2f} ms first in process, "
          f"{figures['first_write_warm']['median']:.2f} ms warm ({time.perf_counter() - started:.0f} s)", flush=True)
    return {"counts": counts, "figures": figures, "raw": raw, "device": player_device(output),
            "period_frames": raw["floor"][0].get("period_frames"), "buffer_frames": raw["floor"][0].get("buffer_frames"),
            "budget_ms": limit}


def player_section(build: pathlib.Path, work: pathlib.Path, runs: int, counts: dict, inputs: dict = None) -> dict:
    inputs = inputs or build_player_inputs(build, work)
    return {"cpu": player_cpu_section(inputs, runs), "latency": player_latency_section(inputs, counts)}


def player_markdown(section: dict) -> str:
    cpu, latency = section["cpu"], section["latency"]
    check = cpu["check"]
    lines = [
        f"Player CPU, {cpu['seconds_of_audio']} s of Ogg Opus speech (speech_{cpu['seconds_of_audio']}s.ogg, "
        "bench/make_corpus.sh) played to its end. Both sides play to the same unpaced sink, ALSA's `file` plugin "
        f"over `null` writing to /dev/null (`{cpu['device']}`), the only definition in the ALSA_CONFIG_PATH file "
        "given to every run (ours gets the same text through vn_player_options_set_device). Ours: "
        "bench/play_file.c, load with autoplay, wait for FINISHED (player defaults: progress every 0.1 s). "
        "Reference: `opusdec --quiet F - | aplay -D vn_bench -t raw -f S16_LE -r 48000 -c 1` through `sh -c` "
        "(CPU of the shell and both children, os.wait4); at 2x `opusdec | sox tempo -s 2 | aplay` (a time "
        "stretch with the pitch kept, as libsonic). Whole processes in turns after a 5 s warm-up of each; CPU is "
        "user + sys of all threads; times medians (min–max), ratios medians (min–max) of per-turn ratios. Budget "
        f"(docs/performance.md): ≤ {BUDGET_PLAYER_CPU}x opusdec | aplay at 1x; 2x has none.",
        "",
        "| run | n | CPU s | user s | sys s | wall s | peak RSS MiB | ours / reference, CPU | ours / reference, user "
        "| ours / reference, sys | ours / reference, wall | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    pairs = {"ref_1x": "ours_1x", "ref_2x": "ours_2x"}
    for key, entry in cpu["series"].items():
        peak = entry["peak_kib"]
        peak_text = "?" if peak["value"] is None else f"{peak['value'] / 1024:.1f}" + (
            "" if peak["from"].startswith("os.wait4") else "†")
        if key in pairs:
            ours = pairs[key]
            vs = [ratio_text(cpu["ratios"][f"{ours}/{key} {m}"]) for m in ("cpu", "user", "sys", "wall")]
            if key == "ref_1x":
                v = cpu["verdict"]
                verdict = f"{'pass' if v['pass'] else '**miss**'} (≤ {v['limit']}x)"
            else:
                verdict = "— (none)"
        else:
            vs = ["—"] * 4
            verdict = "—"
        lines.append(f"| {PLAYER_LABELS[key].replace('|', chr(92) + '|')} | {cpu['runs']} | {spread(entry['cpu_s'], secs)} "
                     f"| {secs(entry['user_s']['median'])} | {secs(entry['sys_s']['median'])} "
                     f"| {spread(entry['wall_s'], secs)} | {peak_text} | {' | '.join(vs)} | {verdict} |")
    frames = check["frames"]
    lines += [
        "",
        f"Ours at 2x against ours at 1x: CPU {ratio_text(cpu['ratios']['ours_2x/ours_1x cpu'])}. Peak RSS: ours "
        "from os.wait4, or † by GNU time on a 5 s run when os.wait4 cannot see below the harness's own peak (a child "
        "inherits it); a pipeline's is its largest process.",
        "",
        f"Frames played (one untimed run into real files): the file holds {check['file_frames']:,} frames at 48 kHz; "
        f"ours wrote {frames['ours_1x']:,} at 1x ({'equal' if check['ours_1x_equal_file'] else 'DIFFERENT'}), "
        f"opusdec | aplay {frames['ref_1x']:,} (the file's, then {check['ref_1x_padding_frames']:,} frames aplay "
        f"adds at the end, {'silence' if check['ref_1x_padding_is_silence'] else 'NOT silence'}); our samples are "
        f"within {check['max_abs_sample_difference_1x']} LSB of opusdec's (both dither their float decode to 16 "
        f"bits). At 2x: ours {frames['ours_2x']:,}, sox tempo {frames['ref_2x']:,}.",
    ]
    f = latency["figures"]
    c = latency["counts"]
    budget = latency["budget_ms"]

    def row(name, entry, reference, ratio):
        verdict = "pass" if entry["pass"] else "**miss**"
        if not entry["max_within"]:
            verdict += f" (max {entry['max']:.1f} ms over)"
        return (f"| {name} | {entry['n']} | {entry['median']:.2f} | {entry['min']:.2f}–{entry['max']:.2f} "
                f"| {reference['median']:.2f} | {ratio_text(ratio)} | ≤ {budget:g} ms | {verdict} |")
    lines += [
        "",
        "Play → first frame (bench/play_latency.c, CLOCK_MONOTONIC from just before the call): a new player on the "
        f"same kind of sink, the file plugin over null writing to a regular file, vn_player_load of the 5 s note "
        f"with autoplay; {c['turns']} processes of {c['takes_per_process']} takes each (the first take of a process "
        "is \"first in process\": ALSA's configuration and plugins), alternating with alsa-lib alone opening the same "
        "PCM, setting the library's parameters (S16_LE mono 48 kHz, 20 ms periods, 8-period buffer) and writing "
        "20 ms periods. \"First frame accepted\": the first snd_pcm_writei() that returned frames (play_latency "
        "defines snd_pcm_writei and forwards to alsa-lib's, so the library's calls are seen from outside it). "
        "\"File grew\": the output file first non-empty, seen by a thread stat()ing it every 0.2 ms; the file "
        f"plugin writes only once more than its buffer is queued ({latency.get('buffer_frames')} frames), so this "
        f"comes after ~{f['frames_at_growth']['median']:,.0f} frames were accepted (ours, median). Ratios: "
        "medians (min–max) of per-process ratios.",
        "",
        "| figure | n | ours median ms | min–max ms | alsa-lib alone, median ms | ours / alsa-lib | budget | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        row("play → first frame accepted, first in process", f["first_write_cold"], f["floor_first_write_cold"],
            f["ratio_first_write_cold"]),
        row("play → first frame accepted, warm process", f["first_write_warm"], f["floor_first_write_warm"],
            f["ratio_first_write_warm"]),
        row("play → output file grew, first in process", f["file_grew_cold"], f["floor_file_grew_cold"],
            f["ratio_file_grew_cold"]),
        row("play → output file grew, warm process", f["file_grew_warm"], f["floor_file_grew_warm"],
            f["ratio_file_grew_warm"]),
        "",
        f"vn_player_load itself returns in {f['load_call']['median']:.3f} ms (median; the player's thread opens the "
        f"file and the device); alsa-lib alone is configured and prepared {f['floor_configured_warm']['median']:.2f} ms "
        "after its open call (warm).",
        "",
        library_note(cpu),
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Remote: play → first frame over loopback HTTP (nginx), cold and warm media cache, against the local file

def start_nginx(root: pathlib.Path, log: pathlib.Path):
    """Debian's nginx serving `root` on 127.0.0.1 (Tests/Servers/nginx_server.py), its access log in `log`."""
    servers = str(REPO / "Tests" / "Servers")
    sys.path.insert(0, servers)
    try:
        import nginx_server
    except ImportError as error:
        raise BenchError(f"Tests/Servers/nginx_server.py cannot be imported: {error}")
    finally:
        sys.path.remove(servers)
    if not os.access(nginx_server.NGINX, os.X_OK):
        raise BenchError(f"{nginx_server.NGINX} is missing (`make deps` installs nginx-light)")
    log.unlink(missing_ok=True)
    server = nginx_server.NginxTestServer(str(root), log=str(log))
    try:
        server.start()
    except RuntimeError as error:
        raise BenchError(f"nginx did not start: {error}")
    return server


def settled_requests(server, at_least: int, timeout: float = 5.0) -> list:
    """The access log's records once it holds at least `at_least` and took no new one for REMOTE_SETTLE_S (nginx
    writes a request's line when the request ends, which can be a moment after the client has its bytes)."""
    deadline = time.monotonic() + timeout
    records = server.requests()
    while True:
        time.sleep(REMOTE_SETTLE_S)
        again = server.requests()
        if (len(again) == len(records) and len(again) >= at_least) or time.monotonic() >= deadline:
            return again
        records = again


def run_play_latency(cmd: list, label: str) -> dict:
    run = run_latency(cmd, label, timeout=120)
    if any(v < 0 for v in run["first_write_ms"] + run["file_grew_ms"]):
        raise BenchError(f"{label}: a take saw no first frame or no file growth:\n{run}")
    return run


def request_summary(records: list) -> list:
    return [{k: r.get(k) for k in ("method", "path", "status", "bytes", "range", "completed")} for r in records]


def remote_turn(program: str, url: str, local: pathlib.Path, output: pathlib.Path, cache: pathlib.Path,
                takes: int, server, label: str) -> dict:
    """One turn: cold (new process, fresh cache directory, vn_cache_clear, one take), the local file (the same
    harness, `takes` takes), warm (new process on the cache the cold one left, `takes` takes); the requests nginx
    logged during each."""
    shutil.rmtree(cache, ignore_errors=True)
    mark = len(settled_requests(server, 0))
    runs, requests = {}, {}
    for key, cmd in (("cold", [program, "url", url, str(output), "1", str(cache), "clear"]),
                     ("local", [program, "ours", str(local), str(output), str(takes)]),
                     ("warm", [program, "url", url, str(output), str(takes), str(cache), "keep"])):
        runs[key] = run_play_latency(cmd, f"play_latency {key} ({label})")
        records = settled_requests(server, mark + (1 if key == "cold" else 0))
        requests[key] = request_summary(records[mark:])
        mark = len(records)
    if not requests["cold"]:
        raise BenchError(f"{label}: the cold run played the URL but nginx logged no request")
    if runs["cold"]["cache_bytes_after"] <= 0:
        raise BenchError(f"{label}: the cold run left nothing in the media cache {cache} (waited "
                         f"{runs['cold']['cache_wait_ms']:.0f} ms)")
    if requests["warm"]:
        print(f"REMOTE WARM CACHE: {label}: {len(requests['warm'])} request(s) reached nginx from the warm-cache "
              f"process, which should have read the cache only: {requests['warm']}", file=sys.stderr, flush=True)
    return {"runs": runs, "requests": requests}


def remote_section(inputs: dict, work: pathlib.Path, counts: dict, cli: pathlib.Path) -> dict:
    """docs/performance.md "play → first frame over HTTP": bench/play_latency.c playing the 5 s note from nginx on
    127.0.0.1 with a cold media cache (libcurl's loading included) and a warm one, each against the same harness on
    the local file in the same turn."""
    if counts["takes_per_process"] < 2:
        raise BenchError("the remote section needs at least 2 takes per process (the first is first in process)")
    program = str(inputs["programs"]["play_latency"])
    folder = work / "remote"
    www = folder / "www"
    www.mkdir(parents=True, exist_ok=True)
    local = inputs["short_ogg"]
    served = www / local.name
    if not served.exists() or not filecmp.cmp(local, served, shallow=False):
        shutil.copyfile(local, served)
    output = folder / "latency.raw"
    caches = folder / "cache"
    probe = build_maps_probe(work)
    takes = counts["takes_per_process"]
    started = time.perf_counter()
    server = start_nginx(www, folder / "access.log")
    try:
        url = server.url("/" + served.name)
        shown_url = url.replace(f":{server.port}/", ":PORT/")
        warm_up = remote_turn(program, url, local, output, caches / "warm-up", takes, server, "warm-up")
        turns = []
        for turn in range(counts["turns"]):
            result = remote_turn(program, url, local, output, caches / f"turn-{turn + 1}", takes, server,
                                 f"turn {turn + 1}")
            turns.append(result)
            runs = result["runs"]
            print(f"remote turn {turn + 1}/{counts['turns']}: cold {runs['cold']['first_write_ms'][0]:.2f} ms "
                  f"({len(result['requests']['cold'])} request), local {runs['local']['first_write_ms'][0]:.2f} ms, "
                  f"warm cache {runs['warm']['first_write_ms'][0]:.2f} ms ({len(result['requests']['warm'])} "
                  "requests)", flush=True)
        # The maps probe of the waveform section, checked on a process that does use the network: our CLI's
        # waveform of the URL (its own empty cache, so it downloads).
        with tempfile.TemporaryDirectory(dir=folder) as xdg:
            mark = len(settled_requests(server, 0))
            control = libcurl_at_exit([str(cli), "waveform", url, "--samples", str(WAVEFORM_SAMPLES)], probe,
                                      "voicenote waveform URL", env=dict(os.environ, XDG_CACHE_HOME=xdg))
            control["requests"] = len(settled_requests(server, mark + 1)) - mark
    finally:
        server.stop()
    shutil.rmtree(caches, ignore_errors=True)
    output.unlink(missing_ok=True)

    def first(key, measure):
        return [t["runs"][key][measure][0] for t in turns]

    def rest(key, measure):
        return [v for t in turns for v in t["runs"][key][measure][1:]]

    def ratios(key, measure, first_take):
        values = [(t["runs"][key][measure][0] / max(t["runs"]["local"][measure][0], 1e-9)) if first_take else
                  (statistics.median(t["runs"][key][measure][1:]) /
                   max(statistics.median(t["runs"]["local"][measure][1:]), 1e-9)) for t in turns]
        return dict(summary(values), runs=values)
    cold_minus_local = [t["runs"]["cold"]["first_write_ms"][0] - t["runs"]["local"]["first_write_ms"][0]
                        for t in turns]
    figures = {
        "cold_first_write": figure(first("cold", "first_write_ms"), BUDGET_REMOTE_COLD_MS),
        "cold_file_grew": figure(first("cold", "file_grew_ms"), BUDGET_REMOTE_COLD_MS),
        "cold_load_call": figure(first("cold", "load_call_ms")),
        "cold_minus_local_first_write": figure(cold_minus_local),
        "local_first_write_first": figure(first("local", "first_write_ms")),
        "local_first_write_warm": figure(rest("local", "first_write_ms")),
        "local_file_grew_first": figure(first("local", "file_grew_ms")),
        "local_file_grew_warm": figure(rest("local", "file_grew_ms")),
        "warm_first_write_first": figure(first("warm", "first_write_ms")),
        "warm_first_write_warm": figure(rest("warm", "first_write_ms")),
        "warm_file_grew_first": figure(first("warm", "file_grew_ms")),
        "warm_file_grew_warm": figure(rest("warm", "file_grew_ms")),
        "ratio_cold_first_write": ratios("cold", "first_write_ms", True),
        "ratio_cold_file_grew": ratios("cold", "file_grew_ms", True),
        "ratio_warm_first_write_first": ratios("warm", "first_write_ms", True),
        "ratio_warm_first_write_warm": ratios("warm", "first_write_ms", False),
        "ratio_warm_file_grew_first": ratios("warm", "file_grew_ms", True),
        "ratio_warm_file_grew_warm": ratios("warm", "file_grew_ms", False),
    }
    warm_requests = sum(len(t["requests"]["warm"]) for t in turns + [warm_up])
    cold_requests = [len(t["requests"]["cold"]) for t in turns]
    libcurl = {key: sum(bool(t["runs"][key]["libcurl_mapped"]) for t in turns) for key in ("cold", "local", "warm")}
    verdicts = {"cold": figures["cold_first_write"]["pass"]}
    for key in ("first", "warm"):
        value = figures[f"ratio_warm_first_write_{key}"]["median"]
        verdicts[f"warm_{key}"] = {"value": value, "limit": BUDGET_REMOTE_WARM_VS_LOCAL,
                                   "pass": value <= BUDGET_REMOTE_WARM_VS_LOCAL and warm_requests == 0}
    print(f"remote: cold cache {figures['cold_first_write']['median']:.2f} ms "
          f"({figures['ratio_cold_first_write']['median']:.2f}x local), warm cache "
          f"{figures['warm_first_write_first']['median']:.2f} ms "
          f"({figures['ratio_warm_first_write_first']['median']:.2f}x local), warm-cache requests {warm_requests} "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    return {
        "counts": counts, "url": shown_url, "file": str(local),
        "file_bytes": local.stat().st_size, "server": "Tests/Servers/nginx_server.py",
        "device": player_device(output), "figures": figures, "verdicts": verdicts,
        "warm_cache_requests": warm_requests, "warm_cache_ok": warm_requests == 0,
        "cold_requests_per_process": cold_requests,
        "cold_requests": [t["requests"]["cold"] for t in turns],
        "cache_wait_ms": figure([t["runs"]["cold"]["cache_wait_ms"] for t in turns]),
        "cache_bytes": statistics.median(t["runs"]["cold"]["cache_bytes_after"] for t in turns),
        "libcurl_mapped_processes": libcurl, "libcurl_probe_control": control,
        "warm_up": warm_up, "raw": turns, "budget_ms": BUDGET_REMOTE_COLD_MS,
        "library": {k: v for k, v in inputs["snapshot"].items() if k != "lib"},
    }


def remote_markdown(section: dict) -> str:
    f, c, v = section["figures"], section["counts"], section["verdicts"]
    turns = c["turns"]
    warm_ok = section["warm_cache_ok"]

    def row(name, entry, reference, ratio, budget, verdict):
        return (f"| {name} | {entry['n']} | {entry['median']:.2f} | {entry['min']:.2f}–{entry['max']:.2f} "
                f"| {reference['median']:.2f} | {ratio_text(ratio)} | {budget} | {verdict} |")

    def cold_verdict(entry):
        text = "pass" if entry["pass"] else "**miss**"
        return text + ("" if entry["max_within"] else f" (max {entry['max']:.1f} ms over)")

    def warm_verdict(key):
        if not warm_ok:
            return f"**FAIL: {section['warm_cache_requests']} request(s) reached the server**"
        check = v[key]
        return f"{'pass' if check['pass'] else '**miss**'} ({check['value']:.2f}x)"
    warm_budget = f"local-file speed (≤ {BUDGET_REMOTE_WARM_VS_LOCAL:g}x)"
    requests = section["cold_requests"]
    statuses = sorted({(r["status"], r["bytes"], r["range"] or "whole") for turn in requests for r in turn},
                      key=str)
    libcurl = section["libcurl_mapped_processes"]
    control = section.get("libcurl_probe_control") or {}
    lines = [
        "Play → first frame over HTTP (bench/play_latency.c `url`, CLOCK_MONOTONIC from just before the call): "
        f"Debian's nginx on 127.0.0.1 ({section['server']}) serving the 5 s note ({section['file_bytes']:,} B), "
        "started once for the section; a new player on the same sink as the player section's first frame, "
        f"vn_player_load(`{section['url']}`) with autoplay (default HTTP options). Each turn, after one untimed "
        "warm-up turn, three processes in this order: cold — vn_cache_set_directory(a fresh directory) and "
        "vn_cache_clear(), one take (libcurl dlopened, connection and download inside the timed part); the "
        f"reference — the same harness on the local file (`play_latency ours`, {c['takes_per_process']} takes, the "
        "first first in process); warm — a new process on the cache the cold one left, "
        f"{c['takes_per_process']} takes. nginx's access log is read after each process: the cold one must show "
        "its download, the warm one nothing (a request there fails the row). Ratios: medians (min–max) of "
        "per-turn ratios against the local file in the same turn, first take to first take (first in process) or "
        "median of the later takes to theirs (warm process).",
        "",
        "| figure | n | ours median ms | min–max ms | local file, median ms | ours / local file | budget | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        row("play → first frame accepted over HTTP, cold cache (new process: libcurl loaded, one download)",
            f["cold_first_write"], f["local_first_write_first"], f["ratio_cold_first_write"],
            f"≤ {section['budget_ms']:g} ms", cold_verdict(f["cold_first_write"])),
        row("play → output file grew over HTTP, cold cache", f["cold_file_grew"], f["local_file_grew_first"],
            f["ratio_cold_file_grew"], f"≤ {section['budget_ms']:g} ms", cold_verdict(f["cold_file_grew"])),
        row("play → first frame accepted, warm cache, new process (a replay: no request)",
            f["warm_first_write_first"], f["local_first_write_first"], f["ratio_warm_first_write_first"],
            warm_budget, warm_verdict("warm_first")),
        row("play → first frame accepted, warm cache, warm process", f["warm_first_write_warm"],
            f["local_first_write_warm"], f["ratio_warm_first_write_warm"], warm_budget, warm_verdict("warm_warm")),
        row("play → output file grew, warm cache, new process", f["warm_file_grew_first"], f["local_file_grew_first"],
            f["ratio_warm_file_grew_first"], "—", "—"),
        "",
        f"Cold minus local, first frame, per turn: {spread(f['cold_minus_local_first_write'], lambda x: f'{x:.2f}')} "
        f"ms. Requests nginx logged: per cold process {', '.join(map(str, section['cold_requests_per_process']))} "
        f"({'; '.join(f'status {s}, {b:,} B, {r}' for s, b, r in statuses)}); from the warm-cache processes "
        f"{section['warm_cache_requests']} in {turns + 1} processes of {c['takes_per_process']} loads, the warm-up "
        f"turn's included ({'none, as required' if warm_ok else '**the cache was not used: FAIL**'}). The cold "
        f"process found its entry in the cache {f_ms(section['cache_wait_ms']['median'])} ms after its take "
        f"(median wait; {section['cache_bytes']:,.0f} B on disk). libcurl mapped at the end of the process (/proc/self/maps): "
        f"cold {libcurl['cold']}/{turns}, warm cache {libcurl['warm']}/{turns}, local file {libcurl['local']}/{turns}. "
        f"vn_player_load itself returns in {f['cold_load_call']['median']:.3f} ms (cold, median).",
    ]
    if control:
        lines += ["", f"The waveform section's maps probe on a process that uses the network, `voicenote waveform "
                      f"URL` (an empty cache, {control.get('requests')} request): libcurl "
                      f"{'mapped' if control.get('libcurl') else '**not seen**'} "
                      f"({', '.join(control.get('libcurl_paths', [])) or '—'}; {control.get('objects')} shared "
                      "objects)."]
    lines += ["", library_note(section)]
    return "\n".join(lines) + "\n"


def f_ms(value: float) -> str:
    return f"{value:.2f}"


# ---------------------------------------------------------------------------------------------------------------

def machine() -> dict:
    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return None

    model = None
    try:
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                      if line.startswith("model name")), None)
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(), "cpu": model, "kernel": platform.release(), "python": platform.python_version(),
        "load_average_at_start": os.getloadavg(),
        "libopus": first_line(["pkg-config", "--modversion", "opus"]),
        "libogg": first_line(["pkg-config", "--modversion", "ogg"]),
        "ffprobe": first_line(["ffprobe", "-version"]), "cc": first_line([os.environ.get("CC", "cc"), "--version"]),
        "opusenc": first_line(["opusenc", "--version"]), "libopusenc": first_line(["pkg-config", "--modversion",
                                                                                    "libopusenc"]),
        "git": first_line(["git", "-C", str(REPO), "describe", "--always", "--dirty", "--abbrev=12"]),
        "pulseaudio": first_line(["pulseaudio", "--version"]), "alsa-lib": first_line(["pkg-config", "--modversion",
                                                                                        "alsa"]),
        "opusdec": first_line(["opusdec", "--version"]), "aplay": first_line(["aplay", "--version"]),
        "sox": first_line(["sox", "--version"]), "libsonic": first_line(["dpkg-query", "-W", "-f", "${Version}",
                                                                          "libsonic0"]),
    }


def waveform_section(build: pathlib.Path, work: pathlib.Path, runs: dict, lengths: list) -> dict:
    tools = build_inputs(build, work)
    baselines = measure_baselines(tools)
    section = {"samples": WAVEFORM_SAMPLES, "baselines": baselines, "lengths": {}}
    for length in lengths:
        started = time.perf_counter()
        commands = waveform_commands(tools, tools["ogg"][length])
        verification = verify(commands, length)
        # docs/performance.md "waveform without the network": one untimed run of each of ours with the maps probe
        # preloaded (the timed turns below run without it).
        libcurl = {key: libcurl_at_exit(commands[key], tools["probe"], LABELS[key]) for key in OURS}
        for key, seen in libcurl.items():
            if seen["libcurl"]:
                print(f"waveform {length} s: {LABELS[key]} HAS LIBCURL MAPPED at exit: {seen['libcurl_paths']}",
                      file=sys.stderr, flush=True)
        measured = measure_waveform(commands, runs[length])
        harness_kib = harness_peak_kib()
        section["lengths"][length] = {
            "file": str(tools["ogg"][length]), "verification": verification, "measured": measured,
            "judged": judge(length, measured, baselines, verification, harness_kib), "libcurl_at_exit": libcurl,
        }
        series = measured["series"]
        print(f"waveform {length} s: n={runs[length]}, " + ", ".join(
            f"{LABELS[key]} {ms(series[key]['wall_s']['median'])} ms" for key in series)
            + f" ({time.perf_counter() - started:.0f} s)", flush=True)
    section["harness_peak_kib"] = harness_peak_kib()
    section["libcurl_probe_control"] = libcurl_probe_control(tools["probe"])
    section["libcurl_mapped"] = any(seen["libcurl"] for entry in section["lengths"].values()
                                    for seen in entry["libcurl_at_exit"].values())
    return section


def hostile_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """`voicenote info` of headers-only ADTS frames against a normal ADTS file: peak RSS by GNU time, in turns."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffmpeg"])
    cli = build / "bin" / "voicenote"
    if not cli.exists():
        raise BenchError(f"{cli} is missing: run `make build` first")
    corpus = make_corpus(work)
    folder = work / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    normal = folder / "speech_5s.aac"
    if not normal.exists():
        capture(["ffmpeg", "-nostdin", "-v", "error", "-i", str(corpus / "speech_5s.ogg"), "-c:a", "aac", "-b:a",
                 "64k", "-f", "adts", str(normal)], "ffmpeg (the normal ADTS file)")
    hostile = folder / "headers_only.aac"
    if not hostile.exists() or hostile.stat().st_size != len(HOSTILE_ADTS_FRAME) * HOSTILE_ADTS_FRAMES:
        hostile.write_bytes(HOSTILE_ADTS_FRAME * HOSTILE_ADTS_FRAMES)
    files = {"normal": normal, "hostile": hostile}
    series = {key: [] for key in files}
    for _ in range(runs):
        for key, path in files.items():
            series[key].append(gnu_time_run([str(cli), "info", str(path)]))
    if any(run["exit"] != 0 for run in series["normal"]):
        raise BenchError(f"voicenote info {normal} failed: {series['normal'][-1]['message']}")
    peaks = {key: summary([run["peak_kib"] for run in rows]) for key, rows in series.items()}
    over_mib = (peaks["hostile"]["median"] - peaks["normal"]["median"]) / 1024
    section = {
        "runs": runs,
        "files": {key: {"path": str(path), "size_bytes": path.stat().st_size} for key, path in files.items()},
        "peak_kib": peaks,
        "hostile_exit": sorted({run["exit"] for run in series["hostile"]}),
        "hostile_message": series["hostile"][-1]["message"].replace(str(hostile), hostile.name),
        "over_normal_mib": over_mib,
        "budget_mib": BUDGET_OVER_BASELINE_MIB,
        "pass": over_mib <= BUDGET_OVER_BASELINE_MIB,
    }
    print(f"hostile: info of {hostile.name} {peaks['hostile']['median'] / 1024:.1f} MiB, of {normal.name} "
          f"{peaks['normal']['median'] / 1024:.1f} MiB", flush=True)
    return section


def hostile_markdown(section: dict) -> str:
    files, peaks = section["files"], section["peak_kib"]

    def mib(entry: dict) -> str:
        return f"{entry['median'] / 1024:.1f} ({entry['min'] / 1024:.1f}–{entry['max'] / 1024:.1f})"
    verdict = "pass" if section["pass"] else "miss"
    return "\n".join([
        "Hostile input: `voicenote info` (our CLI) of ADTS frames that are all header (7 bytes, no payload), "
        "against `voicenote info` of a normal ADTS file (the 5 s note, 64 kbit/s AAC). Whole processes in turns, "
        "peak RSS by GNU time, medians (min–max). Budget: ≤ "
        f"{section['budget_mib']:g} MiB over the normal file, the analysis budget at any length.",
        "",
        "| file | size | n | peak RSS MiB | normal file | its peak RSS MiB | over normal MiB | result | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| headers-only ADTS frames | {files['hostile']['size_bytes']:,} B | {section['runs']} "
        f"| {mib(peaks['hostile'])} | {files['normal']['size_bytes']:,} B | {mib(peaks['normal'])} "
        f"| {section['over_normal_mib']:.2f} | exit {', '.join(map(str, section['hostile_exit']))}: "
        f"{section['hostile_message'].replace('|', '/')} | {verdict} |",
    ]) + "\n"


def compact_json(value) -> str:
    """Indented JSON with every list of numbers or strings on one line, so the file stays short and diffable."""
    text = json.dumps(value, indent=1, default=str)
    compact = re.sub(r"\[\s*((?:[-0-9.eE+]+|\"[^\"\n]*\")(?:,\s*(?:[-0-9.eE+]+|\"[^\"\n]*\"))*)\s*\]",
                     lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return compact if json.loads(compact) == json.loads(text) else text


def report_markdown(report: dict) -> str:
    """latest.md from latest.json's report: a header line, then every section present (carried-over ones marked)."""
    info = report["machine"]
    load = " / ".join(f"{value:.2f}" for value in (info["load_average_at_start"][0], info["load_average_at_end"][0]))
    text = (f"`make bench`: {info['cpus']} CPUs ({info['cpu']}), load {load} at start / end, "
            f"{report['seconds']:.0f} s{' (--quick)' if report['quick'] else ''}, {report['date']}, tree "
            f"{info.get('git')}; sections run: {', '.join(report['sections_run'])}.\n")
    renderers = (("waveform", waveform_markdown), ("recorder_cpu", recorder_cpu_markdown),
                 ("recorder_latency", recorder_latency_markdown), ("hostile_input", hostile_markdown),
                 ("player", player_markdown), ("remote", remote_markdown), ("upload", upload.upload_markdown),
                 ("library_size", library_size_markdown))
    for key, render in renderers:
        if key not in report:
            continue
        text += "\n"
        if key in report["carried_over"]:
            quick = " (--quick)" if (report[key].get("measured") or {}).get("quick") else ""
            text += f"Not measured in this run: the results of {report['carried_over'][key]}{quick}.\n\n"
        text += render(report[key])
    return text


def parse_sections(text: str) -> list:
    """--sections: names from SECTIONS or the aliases all / recorder, comma-separated; returned in SECTIONS order."""
    chosen = set()
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        if name in SECTION_ALIASES:
            chosen.update(SECTION_ALIASES[name])
        elif name in SECTIONS:
            chosen.add(name)
        else:
            raise ValueError(name)
    if not chosen:
        raise ValueError(text)
    return [name for name in SECTIONS if name in chosen]


def previous_report(results: pathlib.Path):
    """The last latest.json, whose sections not run this time are carried over (marked as such)."""
    try:
        return json.loads((results / "latest.json").read_text())
    except (OSError, ValueError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=REPO / "build", type=pathlib.Path, help="where make build put bin/, lib/")
    parser.add_argument("--results", default=HERE / "results", type=pathlib.Path)
    parser.add_argument("--work", default=HERE / "work", type=pathlib.Path, help="corpus and C programs (cached)")
    parser.add_argument("--sections", default="all",
                        help=f"comma-separated: {', '.join(SECTIONS)}, or all, recorder (= recorder-cpu,"
                             "recorder-latency); sections not run keep their previous results in latest.*")
    parser.add_argument("--quick", action="store_true",
                        help=f"fewer turns: waveform {QUICK_RUNS}, recorder CPU {QUICK_RECORDER_RUNS}, "
                             f"latency {QUICK_LATENCY_COUNTS}, player CPU {QUICK_PLAYER_RUNS}, player latency "
                             f"{QUICK_PLAYER_LATENCY_COUNTS}, remote {QUICK_REMOTE_COUNTS}, upload "
                             f"{upload.QUICK_COUNTS}")
    parser.add_argument("--runs", type=int, help="turns of every section: waveform at every length (default: "
                        f"{RUNS}), recorder CPU (default {RECORDER_RUNS}), begin processes and stop takes (default "
                        f"{LATENCY_COUNTS['begin_turns']}), player CPU (default {PLAYER_RUNS}), play-latency "
                        f"processes (default {PLAYER_LATENCY_COUNTS['turns']}), remote turns (default "
                        f"{REMOTE_COUNTS['turns']}) and upload turns (default {upload.COUNTS['turns']})")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="waveform: subset of 5,60,600")
    args = parser.parse_args()
    build = args.build.resolve()
    work = args.work.resolve()
    try:
        sections = parse_sections(args.sections)
    except ValueError as error:
        parser.error(f"--sections: unknown section {error} (use {', '.join(SECTIONS)}, all, recorder)")
    runs = dict(QUICK_RUNS if args.quick else RUNS)
    recorder_runs = QUICK_RECORDER_RUNS if args.quick else RECORDER_RUNS
    counts = dict(QUICK_LATENCY_COUNTS if args.quick else LATENCY_COUNTS)
    player_runs = QUICK_PLAYER_RUNS if args.quick else PLAYER_RUNS
    player_counts = dict(QUICK_PLAYER_LATENCY_COUNTS if args.quick else PLAYER_LATENCY_COUNTS)
    remote_counts = dict(QUICK_REMOTE_COUNTS if args.quick else REMOTE_COUNTS)
    upload_counts = dict(upload.QUICK_COUNTS if args.quick else upload.COUNTS)
    if args.runs:
        if args.runs < 1:
            parser.error("--runs must be at least 1")
        runs = {length: args.runs for length in LENGTHS}
        recorder_runs = args.runs
        counts.update(begin_turns=args.runs, realtime_takes=args.runs, file_takes=args.runs)
        player_runs = args.runs
        player_counts["turns"] = args.runs
        remote_counts["turns"] = args.runs
        upload_counts["turns"] = args.runs
    lengths = [int(text) for text in args.lengths.split(",") if text]
    if not lengths or any(length not in LENGTHS for length in lengths):
        parser.error(f"--lengths takes a subset of {','.join(map(str, LENGTHS))}")

    started = time.perf_counter()
    date = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    measured = {}
    try:
        info = machine()
        if "size" in sections:
            measured["size"] = library_size(build)
        if "waveform" in sections:
            measured["waveform"] = waveform_section(build, work, runs, lengths)
        if "recorder-cpu" in sections or "recorder-latency" in sections:
            require_tools(["pulseaudio", "parec", "paplay", "arecord"] if "recorder-latency" in sections else [])
            inputs = build_recorder_inputs(build, work)
            if "recorder-cpu" in sections:
                measured["recorder-cpu"] = recorder_cpu_section(
                    inputs, recorder_runs, QUICK_CALLGRIND_LENGTHS if args.quick else CALLGRIND_LENGTHS)
            if "recorder-latency" in sections:
                measured["recorder-latency"] = recorder_latency_section(inputs, counts)
        if "hostile" in sections:
            measured["hostile"] = hostile_section(build, work, args.runs or (QUICK_HOSTILE_RUNS if args.quick
                                                                            else HOSTILE_RUNS))
        player_inputs = build_player_inputs(build, work) if "player" in sections or "remote" in sections else None
        if "player" in sections:
            measured["player"] = player_section(build, work, player_runs, player_counts, player_inputs)
        if "remote" in sections:
            measured["remote"] = remote_section(player_inputs, work, remote_counts, build / "bin" / "voicenote")
        if "upload" in sections:
            # bench/upload.py gets this module for BenchError and the shared helpers (run as a script, it is
            # __main__, not an importable `run`).
            measured["upload"] = upload.upload_section(sys.modules[__name__], build, work, upload_counts)
    except (BenchError, subprocess.CalledProcessError, OSError) as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    info["load_average_at_end"] = os.getloadavg()
    elapsed = time.perf_counter() - started

    previous = previous_report(args.results) or {}
    report = {"machine": info, "date": date, "seconds": round(elapsed, 1), "quick": args.quick,
              "sections_run": sections, "carried_over": {}}
    for name in SECTIONS:
        key = SECTION_KEYS[name]
        if name in measured:
            report[key] = dict(measured[name], measured={"date": date, "quick": args.quick})
        elif key in previous:
            report[key] = previous[key]
            # Its own date: measured, or carried over already, or (a report of the runner before sections) its run's.
            when = ((previous[key].get("measured") or {}).get("date")
                    or (previous.get("carried_over") or {}).get(key)
                    or (None if "sections_run" in previous else previous.get("date")))
            report["carried_over"][key] = when or "an earlier run"
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "latest.json").write_text(compact_json(report) + "\n")
    text = report_markdown(report)
    (args.results / "latest.md").write_text(text)
    sys.stdout.write("\n" + text)
    if "remote" in measured and not measured["remote"]["warm_cache_ok"]:
        print(f"bench: FAILED: the warm-cache runs of the remote section made "
              f"{measured['remote']['warm_cache_requests']} request(s) to the server: they did not play from the "
              "media cache, so their row is not a warm-cache figure", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
