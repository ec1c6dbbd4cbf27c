"""The first captured frame after begin, on a fresh and on a warm PulseAudio server, ours against arecord on the
same server. Part of the recorder-latency section (sections/recorder_latency.py); alone (its rows and JSON only):
bench/first_frame.py [--build DIR] [--work DIR] [--turns N].

Both clients open the monitor of the server's null sink through the ALSA pulse plugin, S16_LE mono 48 kHz, 20 ms
periods, a buffer of 8 periods (what the library asks for), while speech plays into the sink (`paplay`):
  ours     bench/record_latency.c, one take in a new process: first_audio_ms, the time from the vn_recorder_begin()
           call to the first CONTEXT event minus the audio that event reports;
  arecord  `arecord -D pulse:<monitor> --period-time=20000 --buffer-time=160000`, a whole process: the time from
           spawning it to its first 20 ms period on stdout, minus that period. Its start-up is included; measured
           alone on ALSA's `null` PCM it is a few ms (reported).
Either figure is how late the first captured frame left the microphone; at or below 0, no measurable lag.
The null sink is loaded as the test fixtures load it (Tests/Support/PulseServer.swift, bindings/python/tests/
pulse.py), with norewinds=1, except in the "fresh, default arguments" row:
  fresh, default arguments   a new server for every run, the null sink at its default arguments, no warm-up, the
           client started FRESH_START_S after the server is up: as long as nothing asked it for a low latency, the
           null sink renders (and hands its monitor) 2 s blocks ahead, and a stream that connects in the middle of
           one gets nothing before the block ends (the audio played meanwhile is lost, for every client);
  fresh    the same with norewinds=1: no such block;
  warm     one norewinds=1 server warmed as the recorder-latency section's are (`parec --latency-msec=10` kept
           running); the runs in turns on it.
Runs alternate ours, arecord; per-turn ratios ours / arecord, medians (min–max). Budget: 50 ms (docs/performance.md).
"""
import os
import pathlib
import select
import shutil
import subprocess
import time

from common.audio import PCM_RATE
from common.budgets import BUDGET_BEGIN_MS
from common.errors import BenchError
from common.process import run_latency
from common.pulse import PulseServer
from common.stats import figure, summary
from common.text import ratio_text

PERIOD_MS = 20                 # the library's default period (CaptureDevice), and arecord's here
BUFFER_PERIODS = 8
TAKE_SECONDS = 0.3             # each take of ours records this much, then stops
FRESH_START_S = 0.5            # a fresh server's client starts this long after the server is up
FIRST_PERIOD_TIMEOUT_S = 10
NOREWINDS = "norewinds=1"      # the fixtures' null sink argument
# (key in the figures, null sink arguments, warmed, the row's label, its microphone column), in the table's order
SERVERS = (
    ("fresh_default", "", False, "fresh server, null sink at default arguments",
     "real-time: PulseAudio null-sink monitor, default arguments, fresh server (no warm-up)"),
    ("fresh", NOREWINDS, False, "fresh server",
     f"real-time: PulseAudio null-sink monitor ({NOREWINDS}), fresh server (no warm-up)"),
    ("warm", NOREWINDS, True, "warm server", f"real-time: PulseAudio null-sink monitor ({NOREWINDS}), warmed"),
)


def arecord_command(device: str, rate: int) -> list:
    return ["arecord", "-q", "-D", device, "-f", "S16_LE", "-r", str(rate), "-c", "1", "-t", "raw",
            f"--period-time={PERIOD_MS * 1000}", f"--buffer-time={PERIOD_MS * BUFFER_PERIODS * 1000}"]


def arecord_lag_ms(device: str, env: dict = None) -> float:
    """Spawns arecord on `device`; the time to its first whole period on stdout minus that period, in ms."""
    period_bytes = PCM_RATE * PERIOD_MS // 1000 * 2
    spawned = time.monotonic()
    proc = subprocess.Popen(arecord_command(device, PCM_RATE), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    received, arrived = 0, None
    try:
        deadline = spawned + FIRST_PERIOD_TIMEOUT_S
        while received < period_bytes and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    break
                received += len(data)
        if received >= period_bytes:
            arrived = time.monotonic()
    finally:
        proc.terminate()
        try:
            _, errors = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, errors = proc.communicate()
    if arrived is None:
        raise BenchError(f"arecord -D {device}: no whole period within {FIRST_PERIOD_TIMEOUT_S} s "
                         f"({received} bytes): {errors.decode(errors='replace')}")
    return (arrived - spawned) * 1e3 - PERIOD_MS


def ours_lag_ms(inputs: dict, pulse, takes_dir: pathlib.Path) -> float:
    """One take of record_latency.c (first in its process) on `pulse`'s monitor: its first_audio_ms."""
    run = run_latency([str(inputs["programs"]["record_latency"]), "takes", str(takes_dir), "vn_rt",
                       pulse.alsa_configuration("vn_rt"), str(TAKE_SECONDS), "1", "30"],
                      "record_latency takes (first frame)", pulse.environment(), timeout=60)
    return run["first_audio_ms"][0]


def monitor() -> str:
    return f"pulse:{PulseServer.SINK}.monitor"


def pulse_server(sink_arguments: str):
    """common/pulse.py's PulseServer, with `sink_arguments` added to its null sink's (the recorder-latency section's
    own server takes none)."""
    return PulseServer(sink_arguments=sink_arguments)


def fresh_run(inputs: dict, takes_dir: pathlib.Path, client: str, sink_arguments: str) -> float:
    """A new server, speech played in, then `client` (ours or arecord) FRESH_START_S after the server is up."""
    pulse = pulse_server(sink_arguments)
    try:
        up = time.monotonic()
        pulse.play(inputs["raw"])
        time.sleep(max(0.0, up + FRESH_START_S - time.monotonic()))   # a fixed schedule, the same for both
        if client == "ours":
            return ours_lag_ms(inputs, pulse, takes_dir)
        return arecord_lag_ms(monitor(), pulse.environment())
    finally:
        pulse.stop()


def measure(inputs: dict, turns: int) -> dict:
    """Every server of SERVERS, `turns` turns of (ours, arecord) each."""
    takes_dir = inputs["dir"] / "first_frame"
    takes_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    runs = {key: {"ours": [], "arecord": []} for key, *_ in SERVERS}
    for turn in range(turns):
        for key, sink_arguments, warmed, label, _ in SERVERS:
            if warmed:
                continue
            for client in ("ours", "arecord"):
                runs[key][client].append(fresh_run(inputs, takes_dir, client, sink_arguments))
            print(f"first frame, {label}, turn {turn + 1}/{turns}: ours {runs[key]['ours'][-1]:.1f} ms, "
                  f"arecord {runs[key]['arecord'][-1]:.1f} ms", flush=True)
    for key, sink_arguments, warmed, label, _ in SERVERS:
        if not warmed:
            continue
        pulse = pulse_server(sink_arguments)
        try:
            pulse.warm()
            pulse.play(inputs["raw"])
            for turn in range(turns):
                runs[key]["ours"].append(ours_lag_ms(inputs, pulse, takes_dir))
                runs[key]["arecord"].append(arecord_lag_ms(monitor(), pulse.environment()))
            print(f"first frame, {label}: ours " + ", ".join(f"{v:.1f}" for v in runs[key]["ours"])
                  + " ms; arecord " + ", ".join(f"{v:.1f}" for v in runs[key]["arecord"]) + " ms", flush=True)
        finally:
            pulse.stop()
    startup = [arecord_lag_ms("null") + PERIOD_MS for _ in range(max(3, turns))]
    leftovers = sorted(p.name for p in takes_dir.iterdir())
    shutil.rmtree(takes_dir, ignore_errors=True)
    figures = {"arecord_startup": figure(startup)}
    for server, clients in runs.items():
        ratios = [o / a if abs(a) >= 1 else float("nan") for o, a in zip(clients["ours"], clients["arecord"])]
        ratios = [r for r in ratios if r == r]
        figures[server] = {
            "ours": figure(clients["ours"], BUDGET_BEGIN_MS),
            "arecord": figure(clients["arecord"], BUDGET_BEGIN_MS),
            "ratio": dict(summary(ratios), runs=ratios) if ratios else None,
        }
    print(f"first frame: ({time.perf_counter() - started:.0f} s)", flush=True)
    return {"turns": turns, "period_ms": PERIOD_MS, "fresh_start_s": FRESH_START_S,
            "sink_arguments": {key: arguments for key, arguments, *_ in SERVERS}, "figures": figures,
            "leftover_files": leftovers}


def markdown(section, row) -> tuple:
    """(rows for the recorder-latency table, note lines); nothing for a report measured before these rows."""
    if not section:
        return [], []
    f = section["figures"]
    servers = [(key, label, device) for key, _, _, label, device in SERVERS]
    if "sink_arguments" not in section:  # measured before norewinds=1: both servers had default arguments
        servers = [("fresh", "fresh server, null sink at default arguments", SERVERS[0][4]),
                   ("warm", "warm server", "real-time: PulseAudio null-sink monitor, warmed")]
    rows = []
    for server, label, device in servers:
        entry = f.get(server)
        if not entry:
            continue
        reference = (f"arecord on the same server: {entry['arecord']['median']:.1f} ms "
                     f"({entry['arecord']['min']:.1f}–{entry['arecord']['max']:.1f})")
        # Within one period of 0 both are "no measurable lag", and their ratio is noise: the difference instead.
        if entry["ratio"] and abs(entry["arecord"]["median"]) >= section["period_ms"]:
            ratio = ratio_text(entry["ratio"])
        else:
            difference = entry["ours"]["median"] - entry["arecord"]["median"]
            ratio = f"— (both within one period; ours {difference:+.1f} ms)"
        rows.append(row(f"begin → first captured frame, {label}†", device, entry["ours"], reference, ratio,
                        BUDGET_BEGIN_MS))
    notes = [
        "",
        f"† bench/first_frame.py: how late the first captured frame left the microphone, ours (first_audio_ms of "
        f"one take, first in its process) against `arecord -D pulse:<monitor>` with the same {section['period_ms']} "
        f"ms periods (spawn to its first period on stdout, minus the period; its start-up, "
        f"{f['arecord_startup']['median']:.1f} ms on ALSA's null PCM, is included), {section['turns']} turns "
        f"alternating. Fresh: a new server per run, the client started {section['fresh_start_s']:g} s after it is "
        "up. With the null sink at its default arguments the idle sink renders its monitor's audio in 2 s blocks "
        "until a stream asks for less, and a stream that connects in a block gets nothing before the block ends "
        "(that audio is lost), whatever its ALSA parameters (the same for arecord and parec); with "
        f"{NOREWINDS}, as the test fixtures load it, there is no such block. Warm: `parec --latency-msec=10` kept "
        "running, as above.",
    ]
    return rows, notes
