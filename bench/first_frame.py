#!/usr/bin/env python3
"""The first captured frame after begin, on a fresh and on a warm PulseAudio server, ours against arecord on the
same server. Part of bench/run.py's recorder-latency section; alone (its rows and JSON only):

    bench/first_frame.py [--build DIR] [--work DIR] [--turns N]

Both clients open the monitor of the server's null sink through the ALSA pulse plugin, S16_LE mono 48 kHz, 20 ms
periods, a buffer of 8 periods (what the library asks for), while speech plays into the sink (`paplay`):
  ours     bench/record_latency.c, one take in a new process: first_audio_ms, the time from the vn_recorder_begin()
           call to the first CONTEXT event minus the audio that event reports;
  arecord  `arecord -D pulse:<monitor> --period-time=20000 --buffer-time=160000`, a whole process: the time from
           spawning it to its first 20 ms period on stdout, minus that period. Its start-up is included; measured
           alone on ALSA's `null` PCM it is a few ms (reported).
Either figure is how late the first captured frame left the microphone; at or below 0, no measurable lag.
  fresh    a new server for every run, no warm-up, the client started FRESH_START_S after the server is up: as long
           as nothing asked it for a low latency, the null sink renders (and hands its monitor) 2 s blocks ahead,
           and a stream that connects in the middle of one gets nothing before the block ends.
  warm     one server warmed as run.py's are (`parec --latency-msec=10` kept running); the runs in turns on it.
Runs alternate ours, arecord; per-turn ratios ours / arecord, medians (min–max). Budget: 50 ms (docs/performance.md).
"""
import os
import pathlib
import select
import shutil
import subprocess
import sys
import time

PERIOD_MS = 20                 # the library's default period (CaptureDevice), and arecord's here
BUFFER_PERIODS = 8
TAKE_SECONDS = 0.3             # each take of ours records this much, then stops
FRESH_START_S = 0.5            # a fresh server's client starts this long after the server is up
FIRST_PERIOD_TIMEOUT_S = 10


def arecord_command(device: str, rate: int) -> list:
    return ["arecord", "-q", "-D", device, "-f", "S16_LE", "-r", str(rate), "-c", "1", "-t", "raw",
            f"--period-time={PERIOD_MS * 1000}", f"--buffer-time={PERIOD_MS * BUFFER_PERIODS * 1000}"]


def arecord_lag_ms(bench, device: str, env: dict = None) -> float:
    """Spawns arecord on `device`; the time to its first whole period on stdout minus that period, in ms."""
    period_bytes = bench.PCM_RATE * PERIOD_MS // 1000 * 2
    spawned = time.monotonic()
    proc = subprocess.Popen(arecord_command(device, bench.PCM_RATE), env=env, stdin=subprocess.DEVNULL,
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
        raise bench.BenchError(f"arecord -D {device}: no whole period within {FIRST_PERIOD_TIMEOUT_S} s "
                               f"({received} bytes): {errors.decode(errors='replace')}")
    return (arrived - spawned) * 1e3 - PERIOD_MS


def ours_lag_ms(bench, inputs: dict, pulse, takes_dir: pathlib.Path) -> float:
    """One take of record_latency.c (first in its process) on `pulse`'s monitor: its first_audio_ms."""
    run = bench.run_latency([str(inputs["programs"]["record_latency"]), "takes", str(takes_dir), "vn_rt",
                             pulse.alsa_configuration("vn_rt"), str(TAKE_SECONDS), "1", "30"],
                            "record_latency takes (first frame)", pulse.environment(), timeout=60)
    return run["first_audio_ms"][0]


def monitor(bench) -> str:
    return f"pulse:{bench.PulseServer.SINK}.monitor"


def fresh_run(bench, inputs: dict, takes_dir: pathlib.Path, client: str) -> float:
    """A new server, speech played in, then `client` (ours or arecord) FRESH_START_S after the server is up."""
    pulse = bench.PulseServer()
    try:
        up = time.monotonic()
        pulse.play(inputs["raw"])
        time.sleep(max(0.0, up + FRESH_START_S - time.monotonic()))   # a fixed schedule, the same for both
        if client == "ours":
            return ours_lag_ms(bench, inputs, pulse, takes_dir)
        return arecord_lag_ms(bench, monitor(bench), pulse.environment())
    finally:
        pulse.stop()


def measure(inputs: dict, turns: int, bench) -> dict:
    """Both servers, `turns` turns of (ours, arecord) each; `bench` is bench/run.py's module."""
    takes_dir = inputs["dir"] / "first_frame"
    takes_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    runs = {"fresh": {"ours": [], "arecord": []}, "warm": {"ours": [], "arecord": []}}
    for turn in range(turns):
        for client in ("ours", "arecord"):
            runs["fresh"][client].append(fresh_run(bench, inputs, takes_dir, client))
        print(f"first frame, fresh server, turn {turn + 1}/{turns}: ours {runs['fresh']['ours'][-1]:.1f} ms, "
              f"arecord {runs['fresh']['arecord'][-1]:.1f} ms", flush=True)
    pulse = bench.PulseServer()
    try:
        pulse.warm()
        pulse.play(inputs["raw"])
        for turn in range(turns):
            runs["warm"]["ours"].append(ours_lag_ms(bench, inputs, pulse, takes_dir))
            runs["warm"]["arecord"].append(arecord_lag_ms(bench, monitor(bench), pulse.environment()))
        print("first frame, warm server: ours " + ", ".join(f"{v:.1f}" for v in runs["warm"]["ours"])
              + " ms; arecord " + ", ".join(f"{v:.1f}" for v in runs["warm"]["arecord"]) + " ms", flush=True)
    finally:
        pulse.stop()
    startup = [arecord_lag_ms(bench, "null") + PERIOD_MS for _ in range(max(3, turns))]
    leftovers = sorted(p.name for p in takes_dir.iterdir())
    shutil.rmtree(takes_dir, ignore_errors=True)
    figures = {"arecord_startup": bench.figure(startup)}
    for server, clients in runs.items():
        ratios = [o / a if abs(a) >= 1 else float("nan") for o, a in zip(clients["ours"], clients["arecord"])]
        ratios = [r for r in ratios if r == r]
        figures[server] = {
            "ours": bench.figure(clients["ours"], bench.BUDGET_BEGIN_MS),
            "arecord": bench.figure(clients["arecord"], bench.BUDGET_BEGIN_MS),
            "ratio": dict(bench.summary(ratios), runs=ratios) if ratios else None,
        }
    print(f"first frame: ({time.perf_counter() - started:.0f} s)", flush=True)
    return {"turns": turns, "period_ms": PERIOD_MS, "fresh_start_s": FRESH_START_S, "figures": figures,
            "leftover_files": leftovers}


def markdown(section, row, bench) -> tuple:
    """(rows for the recorder-latency table, note lines); nothing for a report measured before these rows."""
    if not section:
        return [], []
    f = section["figures"]
    rows = []
    for server, device in (("fresh", "real-time: PulseAudio null-sink monitor, fresh server (no warm-up)"),
                           ("warm", "real-time: PulseAudio null-sink monitor, warmed")):
        entry = f[server]
        reference = (f"arecord on the same server: {entry['arecord']['median']:.1f} ms "
                     f"({entry['arecord']['min']:.1f}–{entry['arecord']['max']:.1f})")
        # Within one period of 0 both are "no measurable lag", and their ratio is noise: the difference instead.
        if entry["ratio"] and abs(entry["arecord"]["median"]) >= section["period_ms"]:
            ratio = bench.ratio_text(entry["ratio"])
        else:
            difference = entry["ours"]["median"] - entry["arecord"]["median"]
            ratio = f"— (both within one period; ours {difference:+.1f} ms)"
        rows.append(row(f"begin → first captured frame, {server} server†", device, entry["ours"], reference, ratio,
                        bench.BUDGET_BEGIN_MS))
    notes = [
        "",
        f"† bench/first_frame.py: how late the first captured frame left the microphone, ours (first_audio_ms of "
        f"one take, first in its process) against `arecord -D pulse:<monitor>` with the same {section['period_ms']} "
        f"ms periods (spawn to its first period on stdout, minus the period; its start-up, "
        f"{f['arecord_startup']['median']:.1f} ms on ALSA's null PCM, is included), {section['turns']} turns "
        f"alternating. Fresh: a new server per run, the client started {section['fresh_start_s']:g} s after it is "
        "up: the idle null sink renders its monitor's audio in 2 s blocks until a stream asks for less, and a stream "
        "that connects in a block gets nothing before the block ends, whatever its ALSA parameters (the same for "
        "arecord and parec). Warm: `parec --latency-msec=10` kept running, as above.",
    ]
    return rows, notes


def main() -> int:
    import argparse
    import run as bench  # bench/run.py: the server, the build of record_latency.c, the figures

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=bench.REPO / "build", type=pathlib.Path)
    parser.add_argument("--work", default=bench.HERE / "work", type=pathlib.Path)
    parser.add_argument("--turns", type=int, default=bench.LATENCY_COUNTS["begin_turns"])
    args = parser.parse_args()
    try:
        bench.require_tools(["pulseaudio", "parec", "paplay", "arecord"])
        inputs = bench.build_recorder_inputs(args.build.resolve(), args.work.resolve())
        section = measure(inputs, args.turns, bench)
    except (bench.BenchError, subprocess.CalledProcessError, OSError) as error:
        print(f"first_frame: {error}", file=sys.stderr)
        return 1

    def row(name, device, entry, reference, ratio, budget):
        verdict = "pass" if entry["pass"] else "miss"
        return (f"| {name} | {device} | {entry['n']} | {entry['median']:.1f} | {entry['min']:.1f}–{entry['max']:.1f} "
                f"| {reference} | {ratio} | ≤ {budget:g} ms | {verdict} |")
    rows, notes = markdown(section, row, bench)
    print("\n".join(["| figure | microphone | n | median ms | min–max ms | reference | ours / reference | budget "
                     "| verdict |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"] + rows + notes))
    print(bench.compact_json(section))
    return 0


if __name__ == "__main__":
    sys.exit(main())
