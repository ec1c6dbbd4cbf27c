"""Section `recorder-latency`: bench/record_latency.c against a private PulseAudio server (null sink, monitor opened
with the ALSA pulse plugin, warmed by a parec kept running, speech played in with paplay; the recipe of
Tests/Support/PulseServer.swift): vn_recorder_begin() wall time (warm and first in process) against alsa-lib
alone opening, configuring and starting the same device, in alternating processes; the lag of the first
captured frame; stop to FINISHED of a 10 s real-time take; and of a 600 s take on the file microphone (a
real-time one cannot deliver 10 minutes faster), stopped while recording and, to separate the finishing from
the backlog a faster-than-real-time device leaves in the ring, paused first. Budgets: begin ≤ 50 ms, stop to
finished ≤ 100 ms. With it, sections/recorder_first_frame.py: begin → first captured frame on a fresh and on a
warm server, against arecord on the same server."""
import shutil
import statistics
import time

from common.budgets import BUDGET_BEGIN_MS, BUDGET_FINISH_MS
from common.process import run_latency
from common.pulse import PulseServer
from common.stats import figure, summary
from common.text import library_note, ratio_text
from sections import recorder_first_frame
from sections.recorder_inputs import file_microphone

BEGIN_TAKE_SECONDS = 0.3                      # each begin-latency take records this much, then stops
REALTIME_TAKE_SECONDS = 10                    # the stop latency on the real-time microphone
LATENCY_COUNTS = {"begin_turns": 5, "begins_per_process": 6, "realtime_takes": 5, "file_takes": 5,
                  "file_take_seconds": 600}
QUICK_LATENCY_COUNTS = {"begin_turns": 2, "begins_per_process": 4, "realtime_takes": 2, "file_takes": 2,
                        "file_take_seconds": 30}


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
    first_frames = recorder_first_frame.measure(inputs, counts["begin_turns"])

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
    first_frame_rows, first_frame_notes = recorder_first_frame.markdown(section.get("first_frame"), row)
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
