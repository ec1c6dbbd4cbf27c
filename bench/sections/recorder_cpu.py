"""Section `recorder-cpu` (docs/recorder.md): 600 s of speech PCM recorded to Ogg Opus by the three encoders of
sections/recorder_encoders.py, whole processes in turns after a 5 s warm-up of each. CPU (user + sys, all
threads) from os.wait4; per-turn ratios ours / each opusenc, medians. Budget ≤ 1.15x the same-settings opusenc.
Both outputs' sizes and durations (granule and ffprobe) are checked and reported; the instruction counts of
sections/recorder_instructions.py beside them."""
import json
import pathlib
import shutil
import statistics
import time

from common.audio import PCM_RATE
from common.budgets import BUDGET_RECORDER_CPU
from common.errors import BenchError
from common.memory import gnu_time_peak_kib, harness_peak_kib
from common.ogg import ogg_audio_packets, opus_frames_48k
from common.process import capture, run_once
from common.stats import summary
from common.text import library_note, ratio_text, secs, spread
from sections.recorder_encoders import RECORDER_LABELS, recorder_cpu_commands, recorder_settings
from sections.recorder_inputs import RECORDER_SECONDS, WARM_SECONDS
from sections.recorder_instructions import recorder_instructions

RECORDER_RUNS = 5
QUICK_RECORDER_RUNS = 2


def describe_ogg(path: pathlib.Path) -> dict:
    """Size, exact duration (last granule minus pre-skip), ffprobe's duration and the audio packets of one file."""
    probe = json.loads(capture(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_name",
                                "-of", "json", str(path)], f"ffprobe {path.name}"))
    return {"size_bytes": path.stat().st_size, "duration_s": opus_frames_48k(path) / PCM_RATE,
            "ffprobe_duration_s": float(probe["format"]["duration"]),
            "codec": (probe.get("streams") or [{}])[0].get("codec_name"), **ogg_audio_packets(path)}


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
