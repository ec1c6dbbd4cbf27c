"""Section `loudness` (docs/loudness.md): every voice at one level, and what it costs.

1. Spread: 20 speech notes (espeak-ng: five voices, four sentences), each scaled by sox to a loudness evenly from −40
   to −14 LUFS (FFmpeg's ebur128 filter measures the speech first) and encoded by opusenc; each played by
   bench/play_file.c levelled to −19 LUFS (the default target) into ALSA's file plugin, the gain from the player's 3 s pre-pass (`level`)
   and from the loudness given with the load (`level-given`, a payload's case); what the speaker got is measured by
   FFmpeg's `ebur128` filter (integrated loudness, true peak), not by our code. Pass: every note within ±1 LU of
   the target and at or under −1 dBTP.
2. The loudness's cost in the waveform's pass: bench/analyse_file.c on the 600 s note, `plain` (the waveform alone:
   no loudness asked) against `loudness` (the same decode measuring it), with the C floor (bench/floor_waveform.c)
   beside them; whole processes in turns after a warm-up, CPU (user + sys) from wait4, the median of the per-turn
   ratios. Budget ≤ 1.10x.
3. Levelled playback's CPU: bench/play_file.c of the 600 s note at 1x into an unpaced sink, `plain` against
   `level-given` (levelling's own cost: gain and limiter) and `level` (with the 3 s pre-pass), in turns. Budget
   ≤ 1.05x."""
import json
import os
import pathlib
import re
import shlex
import subprocess

from common.budgets import BUDGET_LEVELLED_PLAYBACK, BUDGET_LOUDNESS_IN_WAVEFORM, LEVELLING_SPREAD_LU
from common.corpus import make_corpus
from common.errors import BenchError
from common.library import snapshot_library
from common.paths import HERE, REPO
from common.process import capture, require_tools, run_once
from common.stats import summary
from sections.player_inputs import PLAYER_DEVICE, player_device

LOUDNESS_RUNS = 7
QUICK_LOUDNESS_RUNS = 2
TARGET = -19.0
CEILING = -1.0
NOTES = 20
VOICES = ("en-us", "en-gb", "en-us+f3", "en-gb+m3", "en-us+f5")
SENTENCES = (
    "Hi, it's me. I'm running a bit late, so start without me and I'll catch up at the station.",
    "Can you pick up some bread and milk on the way home? The shop on the corner closes at eight.",
    "The meeting moved to Thursday afternoon, half past three, in the small room upstairs.",
    "Happy birthday! I hope you have a wonderful day, and I'll call you properly tonight.",
)


def ffmpeg_ebur128(path: pathlib.Path, raw: bool = False) -> dict:
    """FFmpeg's ebur128 filter on `path` (raw: 48 kHz mono S16LE): integrated loudness and true peak."""
    source = ["-f", "s16le", "-ar", "48000", "-ac", "1"] if raw else []
    done = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-nostats"] + source + ["-i", str(path), "-af",
                          "ebur128=peak=true:framelog=verbose", "-f", "null", "-"],
                          capture_output=True, text=True, timeout=120)
    integrated = re.findall(r"I:\s+(-?[0-9.]+) LUFS", done.stderr)
    peak = re.findall(r"Peak:\s+(-?[0-9.]+|-inf) dBFS", done.stderr)
    if done.returncode != 0 or not integrated or not peak:
        raise BenchError(f"ffmpeg ebur128 of {path} failed:\n{done.stderr[-2000:]}")
    return {"integrated_lufs": float(integrated[-1]), "true_peak_dbtp": float(peak[-1])}


def make_notes(folder: pathlib.Path) -> list:
    """The 20 notes: speech scaled to −40…−14 LUFS (by FFmpeg's measure), Ogg Opus; cached."""
    folder.mkdir(parents=True, exist_ok=True)
    notes = []
    for index in range(NOTES):
        wanted = -40.0 + 26.0 * index / (NOTES - 1)
        note = folder / f"note_{index:02d}.ogg"
        if not note.exists():
            speech = folder / f"speech_{index:02d}.wav"
            capture(["espeak-ng", "-v", VOICES[index % len(VOICES)], "-w", str(speech),
                     SENTENCES[index % len(SENTENCES)]], "espeak-ng")
            measured = ffmpeg_ebur128(speech)["integrated_lufs"]
            scaled = folder / f"scaled_{index:02d}.wav"
            capture(["sox", str(speech), "-r", "48000", str(scaled), "rate", "-v", "48k", "gain",
                     f"{wanted - measured:.2f}"], "sox (scaling a note)")
            capture(["opusenc", "--quiet", str(scaled), str(note)], "opusenc")
        notes.append({"path": note, "made_lufs": round(wanted, 2)})
    return notes


def build_programs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """bench/play_file.c, bench/analyse_file.c and the C floor, against a snapshot of the library."""
    cc_name = os.environ.get("CC", "cc")
    require_tools(["espeak-ng", "sox", "opusenc", "ffmpeg", "pkg-config", cc_name])
    lib = snapshot_library(build, work)["lib"]
    cc = shlex.split(cc_name)
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include")]
    link = ["-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"]
    programs = {"play_file": work / "loudness_play_file", "analyse_file": work / "analyse_file",
                "floor": work / "loudness_floor"}
    capture(cc + flags + ["-o", str(programs["play_file"]), str(HERE / "play_file.c")] + link, "building play_file.c")
    capture(cc + flags + ["-o", str(programs["analyse_file"]), str(HERE / "analyse_file.c")] + link,
            "building analyse_file.c")
    ogg_opus = shlex.split(capture(["pkg-config", "--cflags", "--libs", "ogg", "opus"], "pkg-config ogg opus"))
    capture(cc + ["-O2", "-o", str(programs["floor"]), str(HERE / "floor_waveform.c")] + ogg_opus + ["-lm"],
            "building the C floor")
    return programs


def measured_loudness(programs: dict, note: pathlib.Path) -> list:
    """The note's loudness as a payload carries it (bench/analyse_file.c), as play_file's `level-given` arguments."""
    figures = json.loads(run_once([str(programs["analyse_file"]), str(note), "loudness"], "analyse_file",
                                  keep_stdout=True)["stdout"])
    return [str(figures["integrated_lufs"]), str(figures["range_lu"]), str(figures["true_peak_dbtp"])]


def spread(programs: dict, notes: list, folder: pathlib.Path) -> dict:
    """Each note played levelled in both modes; FFmpeg's meter on what the speaker got."""
    rows = []
    for note in notes:
        row = {"note": note["path"].name, "made_lufs": note["made_lufs"],
               "in": ffmpeg_ebur128(note["path"])}
        given = measured_loudness(programs, note["path"])
        for mode in ("level", "level-given"):
            heard = folder / f"heard_{mode}.raw"
            run_once([str(programs["play_file"]), str(note["path"]), "1", PLAYER_DEVICE, player_device(heard), "120",
                      mode] + (given if mode == "level-given" else []), f"play_file {mode}", timeout=180)
            row[mode] = ffmpeg_ebur128(heard, raw=True)
        rows.append(row)
    result = {"rows": rows, "target_lufs": TARGET, "ceiling_dbtp": CEILING, "tolerance_lu": LEVELLING_SPREAD_LU}
    raw = [row["in"]["integrated_lufs"] for row in rows]
    result["raw_spread_lu"] = max(raw) - min(raw)
    for mode in ("level", "level-given"):
        errors = [row[mode]["integrated_lufs"] - TARGET for row in rows]
        peaks = [row[mode]["true_peak_dbtp"] for row in rows]
        result[mode] = {"worst_lu": max(errors, key=abs), "spread_lu": max(errors) - min(errors),
                        "highest_true_peak_dbtp": max(peaks),
                        "pass": all(abs(error) <= LEVELLING_SPREAD_LU for error in errors) and max(peaks) <= CEILING}
    return result


def turns(commands: dict, runs: int) -> dict:
    """Each command once untimed, then `runs` turns of all of them; CPU seconds per run."""
    for key, command in commands.items():
        run_once(command, f"{key} (warm-up)", timeout=900)
    cpu = {key: [] for key in commands}
    for _ in range(runs):
        for key, command in commands.items():
            cpu[key].append(run_once(command, key, timeout=900)["cpu_s"])
    return cpu


def ratio_summary(cpu: dict, key: str, reference: str, budget: float) -> dict:
    ratios = [ours / ref for ours, ref in zip(cpu[key], cpu[reference])]
    entry = {"ratio": summary(ratios), "cpu_s": summary(cpu[key]), "reference_cpu_s": summary(cpu[reference])}
    entry["budget"] = budget
    entry["pass"] = entry["ratio"]["median"] <= budget
    return entry


def loudness_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    folder = work / "loudness"
    programs = build_programs(build, folder)
    long_note = make_corpus(work) / "speech_600s.ogg"
    section = {"runs": runs, "spread": spread(programs, make_notes(folder / "notes"), folder)}
    waveform = turns({"plain": [str(programs["analyse_file"]), str(long_note), "plain"],
                      "loudness": [str(programs["analyse_file"]), str(long_note), "loudness"],
                      "floor": [str(programs["floor"]), str(long_note), "100"]}, runs)
    section["waveform"] = ratio_summary(waveform, "loudness", "plain", BUDGET_LOUDNESS_IN_WAVEFORM)
    section["waveform"]["floor_cpu_s"] = summary(waveform["floor"])
    section["waveform"]["vs_floor"] = summary([a / b for a, b in zip(waveform["loudness"], waveform["floor"])])
    sink = player_device("/dev/null")
    play = [str(programs["play_file"]), str(long_note), "1", PLAYER_DEVICE, sink, "900"]
    given = ["level-given"] + measured_loudness(programs, long_note)
    playback = turns({"plain": play + ["plain"], "level-given": play + given, "level": play + ["level"]}, runs)
    section["playback"] = {mode: ratio_summary(playback, mode, "plain", BUDGET_LEVELLED_PLAYBACK)
                           for mode in ("level-given", "level")}
    spread_result = section["spread"]
    print(f"loudness: spread {spread_result['raw_spread_lu']:.1f} LU in; levelled (given) worst "
          f"{spread_result['level-given']['worst_lu']:+.2f} LU, (pre-pass) {spread_result['level']['worst_lu']:+.2f} LU; "
          f"waveform+loudness {section['waveform']['ratio']['median']:.3f}x; levelled playback "
          f"{section['playback']['level-given']['ratio']['median']:.3f}x", flush=True)
    return section


def loudness_markdown(section: dict) -> str:
    result = section["spread"]

    def verdict(ok: bool) -> str:
        return "pass" if ok else "**miss**"
    lines = [
        f"Loudness (docs/loudness.md). Spread: {NOTES} espeak-ng speech notes made at −40…−14 LUFS (raw spread "
        f"{result['raw_spread_lu']:.1f} LU by FFmpeg's meter), Ogg Opus, each played levelled to {TARGET:g} LUFS by "
        "bench/play_file.c into ALSA's file plugin; FFmpeg's `ebur128` filter measures what the speaker got. Budget: "
        f"every note within ±{LEVELLING_SPREAD_LU:g} LU of the target, true peak ≤ {CEILING:g} dBTP.",
        "",
        "| note | made at LUFS | in: FFmpeg LUFS | heard, pre-pass: LUFS / dBTP | heard, loudness given: LUFS / dBTP |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['note']} | {row['made_lufs']:.1f} | {row['in']['integrated_lufs']:.1f} "
                     f"| {row['level']['integrated_lufs']:.1f} / {row['level']['true_peak_dbtp']:.1f} "
                     f"| {row['level-given']['integrated_lufs']:.1f} / {row['level-given']['true_peak_dbtp']:.1f} |")
    for mode, name in (("level", "pre-pass"), ("level-given", "loudness given")):
        entry = result[mode]
        lines.append(f"| **{name}** | | | worst {entry['worst_lu']:+.2f} LU, spread {entry['spread_lu']:.2f} LU, "
                     f"highest true peak {entry['highest_true_peak_dbtp']:.1f} dBTP | {verdict(entry['pass'])} |")
    wave = section["waveform"]
    lines += [
        "",
        f"Cost ({section['runs']} turns, CPU medians, per-turn ratios): the 600 s note's waveform with its loudness "
        "against the waveform alone (bench/analyse_file.c: the same call with and without a loudness to fill), the C "
        "floor beside them; levelled playback of the 600 s note at 1x against plain playback (bench/play_file.c).",
        "",
        "| figure | ours CPU s | reference CPU s | ratio (min–max) | budget |",
        "| --- | --- | --- | --- | --- |",
        f"| waveform + loudness vs waveform alone | {wave['cpu_s']['median']:.3f} | {wave['reference_cpu_s']['median']:.3f} "
        f"| {wave['ratio']['median']:.3f}x ({wave['ratio']['min']:.3f}–{wave['ratio']['max']:.3f}) "
        f"| ≤ {wave['budget']:.2f}x: {verdict(wave['pass'])} |",
        f"| waveform + loudness vs the C floor | {wave['cpu_s']['median']:.3f} | {wave['floor_cpu_s']['median']:.3f} "
        f"| {wave['vs_floor']['median']:.3f}x ({wave['vs_floor']['min']:.3f}–{wave['vs_floor']['max']:.3f}) | reported |",
    ]
    for mode, name in (("level-given", "levelled playback (loudness given)"), ("level", "levelled playback (3 s pre-pass)")):
        entry = section["playback"][mode]
        lines.append(f"| {name} vs plain | {entry['cpu_s']['median']:.3f} | {entry['reference_cpu_s']['median']:.3f} "
                     f"| {entry['ratio']['median']:.3f}x ({entry['ratio']['min']:.3f}–{entry['ratio']['max']:.3f}) "
                     f"| ≤ {entry['budget']:.2f}x: {verdict(entry['pass'])} |")
    return "\n".join(lines) + "\n"
