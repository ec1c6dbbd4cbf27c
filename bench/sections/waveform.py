"""Section `waveform`: the waveform (docs/waveform.md, 100 values) of Ogg Opus speech of 5 s, 60 s and 600 s
(bench/make_corpus.sh), four whole processes run side by side:
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
libcurl.so.4 is seen with it). The timed turns run without the probe."""
import json
import pathlib
import re
import statistics
import sys
import time

from common.audio import WAVEFORM_SAMPLES
from common.budgets import BUDGET_OVER_BASELINE_MIB, BUDGET_VS_FFPROBE, BUDGET_VS_FLOOR
from common.errors import BenchError
from common.maps_probe import libcurl_at_exit, libcurl_probe_control
from common.memory import gnu_time_peak_kib, harness_peak_kib
from common.process import capture, run_once
from common.stats import summary
from common.text import ms, ratio_text, spread
from sections.waveform_inputs import build_inputs, waveform_commands

VALUE_TOLERANCE = 1e-3                        # our values against the floor's
RUNS = {5: 21, 60: 21, 600: 21}
QUICK_RUNS = {5: 5, 60: 5, 600: 3}
BASELINE_RUNS = 5
CALL_TIME = re.compile(r"vn_waveform_file: \d+ values in ([0-9.]+) ms")
# The four waveform commands, in turn order; the first two are ours.
OURS = ("cli", "sample")
LABELS = {
    "cli": "our CLI",
    "sample": "our C call",
    "floor": "C floor",
    "ffprobe": "ffprobe astats",
}


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
