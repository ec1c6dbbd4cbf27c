#!/usr/bin/env python3
"""The upload_live section's child (bench/sections/upload_live.py): from the stop of a take to its whole file on
the server, uploading while recording against uploading after the stop (the reference), in alternating turns.

Each turn records SECONDS of a real-time microphone (the ALSA configuration text given: PulseAudio's null-sink
monitor) and sends it raw (`POST /_matrix/media/v3/upload`) through the throttling proxy at URL:
    live    Uploader.start(recorder) right after begin; the figure is stop() → the upload's end (wait)
    after   stop(), then Uploader.start(file) of the finished take; the figure is stop() → the upload's end
The process's CPU time (user + system, getrusage) is taken over each whole turn (recording and upload), and its peak
RSS during the turn (VmHWM, reset before the turn by writing 5 to /proc/self/clear_refs). Prints, as JSON,
{"live": [{"release_s", "cpu_s", "bytes", "peak_rss_kib"}...], "after": [...], "max_rss_kib"}.

Usage: upload_live.py PACKAGE_DIR LIBRARY WORK URL ALSA_CONFIG SECONDS TURNS"""
import json
import os
import pathlib
import resource
import sys
import time

PACKAGE, LIBRARY, WORK, URL, ALSA, SECONDS, TURNS = sys.argv[1:8]
SECONDS, TURNS = float(SECONDS), int(TURNS)
os.environ["VOICENOTE_LIBRARY"] = LIBRARY
sys.path.insert(0, PACKAGE)
import voicenote  # noqa: E402

WAIT_S = 600


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def reset_peak_rss() -> None:
    """Makes VmHWM the current RSS (Linux's clear_refs 5), so the next reading is this turn's peak."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def peak_rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise SystemExit("no VmHWM in /proc/self/status")


def take(live: bool, folder: pathlib.Path) -> dict:
    reset_peak_rss()
    started = cpu()
    with voicenote.Recorder(folder, device="vn_rt", device_config=ALSA) as recorder, \
            voicenote.Uploader(URL, mode="raw") as uploader:
        recorder.begin()
        if live:
            uploader.start(recorder)
        deadline = time.monotonic() + SECONDS + 30
        while recorder.context.duration < SECONDS:
            if time.monotonic() > deadline:
                raise SystemExit("the take did not reach its length")
            time.sleep(0.02)
        stopped = time.monotonic()
        recorder.stop()
        path = pathlib.Path(recorder.context.path)
        if not live:
            uploader.start(path)
        if uploader.wait(WAIT_S) is not voicenote.UploadState.UPLOADED:
            uploader.result()  # raises the failure
            raise SystemExit("the upload did not end")
        ended = time.monotonic()
        sent = uploader.result()
    if sent.file_size != path.stat().st_size:
        raise SystemExit(f"uploaded {sent.file_size} bytes of {path.stat().st_size}")
    return {"release_s": ended - stopped, "cpu_s": cpu() - started, "bytes": path.stat().st_size,
            "peak_rss_kib": peak_rss_kib()}


def main() -> None:
    work = pathlib.Path(WORK)
    results = {"live": [], "after": []}
    for turn in range(TURNS):
        for kind in (("live", "after") if turn % 2 == 0 else ("after", "live")):
            results[kind].append(take(kind == "live", work / f"{kind}-{turn}"))
    results["max_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(results))


if __name__ == "__main__":
    main()
