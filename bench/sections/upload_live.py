"""Section `upload-live`: from the stop of a take to its whole file on the server, when the take was uploaded while
it was recorded, against uploading the finished file after the stop (the reference), through a throttling proxy at
256 kbit/s on loopback (bench/common/throttle.py: a weak uplink, the client → server direction paced) to
Tests/Servers/http_server.py (raw, `POST /_matrix/media/v3/upload`, chunked). The microphone is real time: a private
PulseAudio server's null-sink monitor with pink noise playing into the sink (the encoder's rate as for speech).
Takes of 10 s and 60 s in alternating turns, and of 600 s in one turn of each kind (ten minutes of recording a
turn; `--quick` leaves it out), each length in a child process of its own (bench/upload_live.py).
VOICENOTE_BENCH_UPLOAD_LIVE_LENGTHS (e.g. `600`) runs only the lengths it names. Figures: the medians of the stop → uploaded times; the process's CPU over a whole turn (recording and
upload) of each kind, and its peak RSS. Budget: live ≤ 0.5 s at every length."""
import json
import os
import pathlib
import statistics
import subprocess
import sys

from common.budgets import BUDGET_UPLOAD_LIVE_RELEASE_S
from common.errors import BenchError
from common.paths import HERE, REPO
from common.process import capture, require_tools
from common.pulse import PulseServer
from sections.upload import start_server

UPLINK_BYTES_PER_S = 32_000                   # 256 kbit/s
LENGTHS_S = (10, 60, 600)
#: Lengths whose turns are one of each kind whatever `turns` says (each records for ten minutes).
LONG_LENGTHS_S = (600,)
TURNS = 3
QUICK_TURNS = 1


def noise(work: pathlib.Path, seconds: int) -> pathlib.Path:
    """`seconds` of pink noise, 48 kHz mono S16 raw (what the null sink plays), made once and cached."""
    raw = work / "upload_live" / f"pink_{seconds}s.raw"
    if not raw.exists():
        require_tools(["sox"])
        raw.parent.mkdir(parents=True, exist_ok=True)
        capture(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw",
                 str(raw) + ".part", "synth", str(seconds), "pinknoise", "vol", "0.3"], "sox (pink noise)")
        pathlib.Path(str(raw) + ".part").rename(raw)
    return raw


def start_proxy(target_port: int) -> tuple:
    proxy = subprocess.Popen([sys.executable, str(HERE / "common" / "throttle.py"), str(target_port),
                              str(UPLINK_BYTES_PER_S)], stdout=subprocess.PIPE, text=True)
    line = proxy.stdout.readline()
    if not line.startswith("PORT "):
        proxy.kill()
        raise BenchError("the throttling proxy did not start")
    return proxy, int(line.split()[1])


def upload_live_section(build: pathlib.Path, work: pathlib.Path, turns: int) -> dict:
    require_tools(["pulseaudio", "paplay", "parec"])
    folder = work / "upload_live"
    folder.mkdir(parents=True, exist_ok=True)
    only = {int(text) for text in os.environ.get("VOICENOTE_BENCH_UPLOAD_LIVE_LENGTHS", "").split(",") if text}
    plan = [(length, 1 if length in LONG_LENGTHS_S else turns) for length in LENGTHS_S
            if not (turns == QUICK_TURNS and length in LONG_LENGTHS_S) and (not only or length in only)]
    total = sum(2 * count * (length + 8) for length, count in plan) + 60
    pulse = PulseServer()
    server = proxy = None
    try:
        pulse.warm()
        pulse.play(noise(work, total))
        server = start_server(folder / "served", folder / "http.log")
        proxy, port = start_proxy(server.port)
        url = f"http://127.0.0.1:{port}/_matrix/media/v3/upload"
        lengths = {}
        for length, count in plan:
            runs = folder / f"runs-{length}"
            runs.mkdir(exist_ok=True)
            measured = json.loads(capture(
                [sys.executable, str(HERE / "upload_live.py"), str(REPO / "bindings" / "python"),
                 str(build / "lib" / "libvoicenote.so"), str(runs), url, pulse.alsa_configuration("vn_rt"),
                 str(length), str(count)], "bench/upload_live.py", timeout=count * 2 * (length + 90) + 120))
            figures = {kind: {"release_s": statistics.median(t["release_s"] for t in measured[kind]),
                              "cpu_s": statistics.median(t["cpu_s"] for t in measured[kind]),
                              "bytes": statistics.median(t["bytes"] for t in measured[kind]),
                              "peak_rss_kib": statistics.median(t["peak_rss_kib"] for t in measured[kind])}
                       for kind in ("live", "after")}
            figures["max_rss_kib"] = measured["max_rss_kib"]
            figures["turns"] = count
            lengths[str(length)] = figures
            print(f"upload-live {length} s: stop → uploaded {figures['live']['release_s']:.3f} s while recording, "
                  f"{figures['after']['release_s']:.3f} s after (median of {count}); budget "
                  f"{BUDGET_UPLOAD_LIVE_RELEASE_S:g} s", flush=True)
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(5)
        if server is not None:
            server.stop()
        pulse.stop()
    worst = max(figures["live"]["release_s"] for figures in lengths.values())
    return {"turns": turns, "uplink_bytes_per_s": UPLINK_BYTES_PER_S, "lengths": lengths, "worst_live_s": worst,
            "budget_s": BUDGET_UPLOAD_LIVE_RELEASE_S, "pass": worst <= BUDGET_UPLOAD_LIVE_RELEASE_S}


def rss(figures: dict) -> str:
    """A turn's peak RSS in MiB (results of runs before it was measured per turn have none)."""
    return f"{figures['peak_rss_kib'] / 1024:.1f} MiB" if "peak_rss_kib" in figures else "–"


def upload_live_markdown(section: dict) -> str:
    lines = [
        f"Upload while recording: stop → the whole file on the server through a {section['uplink_bytes_per_s'] * 8 // 1000} "
        f"kbit/s uplink (a throttling proxy on loopback), raw and chunked, a real-time microphone; the median of "
        f"{section['turns']} alternating turns (600 s: one turn of each). Budget: ≤ {section['budget_s']:g} s while "
        f"recording, at every length.",
        "",
        "| take | while recording: stop → uploaded | after the stop (reference) | file | CPU per turn, live / after | peak RSS per turn, live / after |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for length, figures in section["lengths"].items():
        live, after = figures["live"], figures["after"]
        lines.append(f"| {length} s | {live['release_s']:.3f} s | {after['release_s']:.3f} s | {live['bytes'] / 1000:.0f} kB "
                     f"| {live['cpu_s']:.2f} / {after['cpu_s']:.2f} s | {rss(live)} / {rss(after)} |")
    lines.append(f"| **worst** | **{section['worst_live_s']:.3f} s: {'pass' if section['pass'] else 'miss'}** | | | | |")
    return "\n".join(lines) + "\n"
