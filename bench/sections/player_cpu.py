"""The player section's CPU part (docs/player.md): the 600 s speech Opus played to its end, four whole processes in
turns after a 5 s warm-up of each:
    ours 1x, 2x   bench/play_file.c: libvoicenote's player, load with autoplay, waits (bounded) for FINISHED
    opusdec | aplay                     `sh -c 'opusdec --quiet F - | aplay -D vn_bench -t raw -f S16_LE ...'`
    opusdec | sox tempo -s 2 | aplay    the 2x reference: a time stretch with the pitch kept
CPU of ours from os.wait4; of a pipeline, the shell's children (os.wait4 on the shell includes what it reaped).
Per-turn ratios, medians. Budget ≤ 1.2x opusdec | aplay at 1x; 2x is reported. One untimed run into real files
checks the frames played (ours = the file's length; aplay's padding checked to be silence) and our samples
against opusdec's."""
import json
import os
import pathlib
import shlex
import statistics
import time

from common.audio import PCM_RATE
from common.budgets import BUDGET_PLAYER_CPU
from common.errors import BenchError
from common.memory import gnu_time_peak_kib, harness_peak_kib
from common.ogg import opus_frames_48k
from common.process import run_once
from common.stats import summary
from sections.player_inputs import PLAYER_DEVICE, PLAYER_SECONDS, player_device

PLAYER_RUNS = 7
QUICK_PLAYER_RUNS = 2
PLAYER_LABELS = {
    "ours_1x": "ours at 1x: libvoicenote player (bench/play_file.c)",
    "ref_1x": "opusdec | aplay",
    "ours_2x": "ours at 2x (libsonic, pitch kept)",
    "ref_2x": "opusdec | sox tempo -s 2 | aplay",
}


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
