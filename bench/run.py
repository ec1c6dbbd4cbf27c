#!/usr/bin/env python3
"""`make bench`: voicenote's speed, memory and size figures, each against a reference run in the same bench.

Usage: bench/run.py [--build DIR] [--results DIR] [--work DIR] [--sections LIST] [--quick] [--runs N]
                    [--lengths 5,60,600]
       bench/run.py --sections recorder [--quick]      only the two recorder sections
       bench/run.py --sections player [--quick]        only the player
       bench/run.py --sections remote [--quick]        only the player over HTTP (media cache cold and warm)
       bench/run.py --sections upload [--quick]        only the 10 MB upload against curl -F
       bench/run.py --sections upload-live [--quick]   only stop → uploaded while recording, at 256 kbit/s
       bench/run.py --sections outbox [--quick]        only the outbox's fault trials (SIGKILL, cut links, 5xx, restarts)
       bench/run.py --sections convert [--quick]       only voicenote convert at 2x against ffmpeg atempo + libopus
       bench/run.py --sections batch [--quick]         only the batch waveform of 1000 notes against a process per file
       bench/run.py --sections long [--quick]          only the 600 s note on every core against -j 1 and the floor
       bench/run.py --sections dask [--quick]          only the Dask example's files/s against the batch in one process
       bench/run.py --sections json [--quick]          only JSON parsing at n and 4n members against jansson alone
       bench/run.py --sections flow [--quick]          only how long vn_flow_* calls block, a 10-minute AAC take in preview
       bench/run.py --sections loudness [--quick]      only levelled playback's spread and the loudness's cost
       bench/run.py --sections cleanup [--quick]       only voice cleanup's PESQ, STOI, noise, quiet voice and CPU

This file is the runner: the options, which sections run, and the report. Sections (budgets: docs/performance.md,
in bench/common/budgets.py; --sections takes size, waveform, recorder-cpu, recorder-latency, hostile, player,
remote, upload, upload-live, convert, batch, long, dask, json, flow, loudness, cleanup, transcripts, all, recorder), each described in its
module's docstring:
- size              bench/sections/size.py: the stripped .so against its budget.
- waveform          bench/sections/waveform.py (inputs: waveform_inputs.py): our CLI and C call against a C floor
                    and ffprobe, time, memory and values, and libcurl not mapped.
- recorder-cpu      bench/sections/recorder_cpu.py (recorder_encoders.py, recorder_instructions.py): our
                    recorder's CPU against opusenc on 600 s of speech PCM.
- recorder-latency  bench/sections/recorder_latency.py (recorder_first_frame.py, also run alone by
                    bench/first_frame.py): begin, first frame and stop latencies on a private PulseAudio server.
                    Both recorder sections share bench/sections/recorder_inputs.py.
- hostile           bench/sections/hostile.py: analysis memory of headers-only ADTS frames.
- player            bench/sections/player.py (player_cpu.py, player_latency.py): CPU against opusdec | aplay, and
                    play → first frame against alsa-lib alone.
- remote            bench/sections/remote.py: play → first frame over HTTP from nginx, media cache cold and warm.
- upload            bench/sections/upload.py: a 10 MB multipart upload against curl -F.
- upload-live       bench/sections/upload_live.py (its child: bench/upload_live.py): stop → the whole take on the
                    server through a 256 kbit/s uplink, uploaded while recording against after the stop.
- outbox            bench/sections/outbox_faults.py (its proxy: bench/common/fault_proxy.py): the outbox's fault
                    trials — the host SIGKILLed and restarted, links cut, 5xx, the server restarted — exactly once.
- convert           bench/sections/convert.py: `voicenote convert` of the 60 s note at 2x (pitch kept, Opus 32
                    kbit/s) against ffmpeg's atempo and libopus, time and memory, both outputs checked.
- batch             bench/sections/batch.py: 1000 five-second notes in one `voicenote waveform --from LIST -j CORES`
                    process against a `voicenote waveform FILE` process per file and the C floor per file, in files
                    per second, and its peak memory by the batch's length; the output validated.
- long              bench/sections/long.py: the 600 s note's waveform in one `voicenote waveform F -j CORES` process
                    (the file split over threads) against `-j 1` and the C floor (Opus), and as MP3 and AAC against
                    `-j 1`; the values validated.
- dask              bench/sections/dask.py: the batch's 1000 notes through bindings/python/examples/dask_waveforms.py
                    on a LocalCluster of CORES worker processes against the same batch in one `voicenote waveform
                    --from LIST -j CORES` process, in files per second (the example's process start to exit, and its
                    own timing), no budget; its output validated against the batch's.
- json              bench/sections/json_parsing.py (its child: bench/json_parse.py): payloads and the resume store
                    of n and 4n members through the library against jansson alone, the growth of each.
- flow              bench/sections/flow.py (its child: bench/flow_calls.py): the longest time any vn_flow_* call
                    blocks its caller with a 10-minute AAC take in preview (restored, played, trimmed, destroyed
                    during a trim), against the 5 ms budget.
- loudness          bench/sections/loudness.py (its children: bench/play_file.c, bench/analyse_file.c): 20 notes at
                    −40…−14 LUFS played levelled, measured by FFmpeg's ebur128 filter; the loudness's cost in the
                    waveform's pass and levelled playback's CPU.
- cleanup           bench/sections/cleanup.py (its child: bench/record_file.c): noisy speech recorded with voice
                    cleanup off and on, scored by PyPI's pesq and pystoi; a quiet voice's level; cleanup's CPU.
- transcripts       bench/sections/transcripts.py: `voicenote transcribe` against pocketsphinx_continuous on the same
                    audio (WER, word times) at 8/16/48 kHz in Opus, MP3, AAC; first words of a 60 s note; real-time
                    factors; a cached transcript in-process.
The player and remote sections share bench/sections/player_inputs.py; every section uses the helpers of
bench/common/ (running and timing children, medians, peak memory, the PulseAudio and nginx servers, the
tables' number formats, latest.json).
Writes RESULTS/latest.json (every run) and RESULTS/latest.md (the tables; bench/report.py), and prints the tables.
Sections not selected keep their previous results there, marked with the date they were measured.
Exit status 0 when everything ran, budget misses included (the bench reports, it does not gate); 1 when a step
failed to run (a missing tool, a build or a command that failed, an upload the server did not store intact), or
when a warm-cache run reached the server, or a converted note was not the job done (its length, codec, bitrate,
pitch or content off), or the batch's output was not one line per note in input order with values equal to the C
floor's, or the long file's values on every core were not those of -j 1 (and the floor's), or the Dask example's
output was not one line per note with the one-process batch's values.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # bench/: its common/ and sections/ packages

from common.errors import BenchError
from common.machine import machine
from common.paths import HERE, REPO
from common.process import require_tools
from common.results import compact_json, previous_report
from report import report_markdown
from sections import upload
from sections.batch import BATCH_RUNS, PER_FILE_NOTES, QUICK_BATCH_RUNS, QUICK_PER_FILE_NOTES, batch_section
from sections.convert import CONVERT_RUNS, QUICK_CONVERT_RUNS, convert_section
from sections.dask import DASK_RUNS, QUICK_DASK_RUNS, dask_section
from sections.flow import FLOW_RUNS, QUICK_FLOW_RUNS, flow_section
from sections.hostile import HOSTILE_RUNS, QUICK_HOSTILE_RUNS, hostile_section
from sections.json_parsing import JSON_RUNS, QUICK_JSON_RUNS, json_section
from sections.long import LONG_RUNS, QUICK_LONG_RUNS, long_section
from sections.player import player_section
from sections.player_cpu import PLAYER_RUNS, QUICK_PLAYER_RUNS
from sections.player_inputs import build_player_inputs
from sections.player_latency import PLAYER_LATENCY_COUNTS, QUICK_PLAYER_LATENCY_COUNTS
from sections.recorder_cpu import QUICK_RECORDER_RUNS, RECORDER_RUNS, recorder_cpu_section
from sections.recorder_inputs import build_recorder_inputs
from sections.recorder_instructions import CALLGRIND_LENGTHS, QUICK_CALLGRIND_LENGTHS
from sections.recorder_latency import LATENCY_COUNTS, QUICK_LATENCY_COUNTS, recorder_latency_section
from sections.remote import QUICK_REMOTE_COUNTS, REMOTE_COUNTS, remote_section
from sections.size import library_size
from sections.upload_live import QUICK_TURNS as QUICK_UPLOAD_LIVE_TURNS
from sections.upload_live import TURNS as UPLOAD_LIVE_TURNS
from sections.upload_live import upload_live_section
from sections.outbox_faults import QUICK_TRIALS as QUICK_OUTBOX_TRIALS
from sections.outbox_faults import TRIALS as OUTBOX_TRIALS
from sections.outbox_faults import outbox_section
from sections.loudness import LOUDNESS_RUNS, QUICK_LOUDNESS_RUNS, loudness_section
from sections.cleanup import CLEANUP_RUNS, QUICK_CLEANUP_RUNS, cleanup_section
from sections.desktop import DESKTOP_TURNS, QUICK_DESKTOP_TURNS, desktop_section
from sections.transcripts import QUICK_TRANSCRIPT_RUNS, TRANSCRIPT_RUNS, transcripts_section
from sections.waveform import QUICK_RUNS, RUNS, waveform_section
from sections.waveform_inputs import LENGTHS

SECTIONS = ("size", "waveform", "recorder-cpu", "recorder-latency", "hostile", "player", "remote", "upload",
            "upload-live", "outbox", "convert", "batch", "long", "dask", "json", "flow", "loudness", "cleanup", "transcripts",
            "desktop")
SECTION_ALIASES = {"all": SECTIONS, "recorder": ("recorder-cpu", "recorder-latency")}
# Where each section lives in latest.json.
SECTION_KEYS = {"size": "library_size", "waveform": "waveform", "recorder-cpu": "recorder_cpu",
                "recorder-latency": "recorder_latency", "hostile": "hostile_input", "player": "player",
                "remote": "remote", "upload": "upload", "upload-live": "upload_live", "outbox": "outbox", "convert": "convert", "batch": "batch",
                "long": "long", "dask": "dask", "json": "json_parsing", "flow": "flow", "loudness": "loudness",
                "cleanup": "cleanup", "transcripts": "transcripts", "desktop": "desktop"}


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
                             f"{upload.QUICK_COUNTS}, convert {QUICK_CONVERT_RUNS}, batch {QUICK_BATCH_RUNS} "
                             f"(its per-file loops over {QUICK_PER_FILE_NOTES} files instead of {PER_FILE_NOTES}), "
                             f"long {QUICK_LONG_RUNS}, dask {QUICK_DASK_RUNS}, json {QUICK_JSON_RUNS}, "
                             f"flow {QUICK_FLOW_RUNS}")
    parser.add_argument("--runs", type=int, help="turns of every section: waveform at every length (default: "
                        f"{RUNS}), recorder CPU (default {RECORDER_RUNS}), begin processes and stop takes (default "
                        f"{LATENCY_COUNTS['begin_turns']}), player CPU (default {PLAYER_RUNS}), play-latency "
                        f"processes (default {PLAYER_LATENCY_COUNTS['turns']}), remote turns (default "
                        f"{REMOTE_COUNTS['turns']}), upload turns (default {upload.COUNTS['turns']}), convert "
                        f"turns (default {CONVERT_RUNS}), batch turns (default {BATCH_RUNS}), long turns (default "
                        f"{LONG_RUNS}), dask turns (default {DASK_RUNS}), json runs (default {JSON_RUNS}) and flow runs "
                        f"(default {FLOW_RUNS})")
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
    convert_runs = QUICK_CONVERT_RUNS if args.quick else CONVERT_RUNS
    batch_runs = QUICK_BATCH_RUNS if args.quick else BATCH_RUNS
    batch_per_file = QUICK_PER_FILE_NOTES if args.quick else PER_FILE_NOTES
    long_runs = QUICK_LONG_RUNS if args.quick else LONG_RUNS
    dask_runs = QUICK_DASK_RUNS if args.quick else DASK_RUNS
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
        convert_runs = args.runs
        batch_runs = args.runs
        long_runs = args.runs
        dask_runs = args.runs
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
            measured["upload"] = upload.upload_section(build, work, upload_counts)
        if "convert" in sections:
            measured["convert"] = convert_section(build, work, convert_runs)
        if "batch" in sections:
            measured["batch"] = batch_section(build, work, batch_runs, batch_per_file)
        if "long" in sections:
            measured["long"] = long_section(build, work, long_runs)
        if "dask" in sections:
            measured["dask"] = dask_section(build, work, dask_runs)
        if "json" in sections:
            measured["json"] = json_section(build, work, args.runs or (QUICK_JSON_RUNS if args.quick else JSON_RUNS))
        if "flow" in sections:
            measured["flow"] = flow_section(build, work, args.runs or (QUICK_FLOW_RUNS if args.quick else FLOW_RUNS))
        if "upload-live" in sections:
            measured["upload-live"] = upload_live_section(
                build, work, args.runs or (QUICK_UPLOAD_LIVE_TURNS if args.quick else UPLOAD_LIVE_TURNS))
        if "outbox" in sections:
            measured["outbox"] = outbox_section(build, work, args.runs or (QUICK_OUTBOX_TRIALS if args.quick else OUTBOX_TRIALS))
        if "loudness" in sections:
            measured["loudness"] = loudness_section(build, work, args.runs or (QUICK_LOUDNESS_RUNS if args.quick
                                                                              else LOUDNESS_RUNS))
        if "cleanup" in sections:
            measured["cleanup"] = cleanup_section(build, work, args.runs or (QUICK_CLEANUP_RUNS if args.quick
                                                                            else CLEANUP_RUNS))
        if "transcripts" in sections:
            measured["transcripts"] = transcripts_section(
                build, work, args.runs or (QUICK_TRANSCRIPT_RUNS if args.quick else TRANSCRIPT_RUNS))
        if "desktop" in sections:
            measured["desktop"] = desktop_section(build, work, args.runs or (QUICK_DESKTOP_TURNS if args.quick
                                                                            else DESKTOP_TURNS))
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
