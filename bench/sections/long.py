"""Section `long` (one long local file's waveform split over threads: `voicenote waveform FILE -j N` cuts the file
into ranges of at least 10 s, decodes them in parallel and adds their integer bucket sums): the 600 s speech note on
every core against the one-pass analysis (-j 1) and the C floor.

The files, in WORK/long (the encodes cached, remade when the corpus's PCM is newer):
    opus  speech_600s.ogg of the corpus (bench/make_corpus.sh: Ogg Opus, 32 kbit/s, 20 ms frames)
    mp3   the corpus's 600 s speech PCM (speech_600s.raw) as MP3: `lame -m m -V 5` (48 kHz mono; sox makes the WAV
          it reads)
    aac   the same PCM as AAC in ADTS: `ffmpeg -c:a aac -b:a 48k -f adts`
Per file, in alternating turns after one untimed validation run of each (A B C A B C ...):
    ours, every core   voicenote waveform F --samples 100 -j CORES
    ours, one pass     voicenote waveform F --samples 100 -j 1
    C floor            bench/floor_waveform.c F 100 (libogg + opus_decode + the bucket loop; Opus only)
CORES is the CPUs this process may use (sched_getaffinity), the CLI's default -j. Wall time is taken around each
child, CPU time (user + sys, every thread) from os.wait4; each run has a timeout (RUN_TIMEOUT_S). The ratios are
medians (min–max) of the per-turn ratios of wall times: every core / floor (Opus), every core / one pass (every
file), one pass / floor (Opus, reported). Budget (docs/performance.md): the Opus note on every core ≤ 0.65x the
floor's wall time, set for 2 cores: with fewer it is reported, not judged.
Validation (untimed, or the section fails): every exit status 0, 100 values from each command, the -j CORES values
within 1e-3 of the -j 1 values, and for Opus both within 1e-3 of the floor's (max abs differences recorded).
Our CLI is a copy of build/bin/voicenote in WORK/long, taken once, so a rebuild during the bench does not change what
is timed."""
import json
import os
import pathlib
import time

from common.audio import PCM_RATE, WAVEFORM_SAMPLES
from common.budgets import BUDGET_LONG_VS_FLOOR
from common.corpus import make_corpus
from common.errors import BenchError
from common.process import capture, require_tools, run_once
from common.stats import summary
from common.text import ms, ratio_text, spread
from sections.batch import build_floor, cpus
from sections.convert import snapshot_cli

LONG_RUNS = 9
QUICK_LONG_RUNS = 3
LONG_SECONDS = 600
SOURCE_OGG = "speech_600s.ogg"                # bench/make_corpus.sh
SOURCE_PCM = "speech_600s.raw"                # bench/make_corpus.sh: 48 kHz mono S16_LE
MP3_QUALITY = 5                               # lame -V
AAC_KBPS = 48
BUDGET_CORES = 2                              # the cores the budget is set for
VALUE_TOLERANCE = 1e-3
RUN_TIMEOUT_S = 300                           # one waveform run (about 1 s here)
ENCODE_TIMEOUT_S = 900                        # one encode of the 600 s PCM (about 10 s here)
KINDS = ("opus", "mp3", "aac")
NAMES = {"opus": "Opus", "mp3": "MP3", "aac": "AAC"}
DESCRIPTIONS = {
    "opus": f"{SOURCE_OGG} of the corpus (Ogg Opus, 32 kbit/s)",
    "mp3": f"`lame -m m -V {MP3_QUALITY}` of the corpus's {LONG_SECONDS} s PCM",
    "aac": f"`ffmpeg -c:a aac -b:a {AAC_KBPS}k -f adts` of the same PCM",
}


def labels(jobs: int) -> dict:
    return {"ours": f"ours, every core (-j {jobs})", "ours_j1": "ours, one pass (-j 1)",
            "floor": "C floor (bench/floor_waveform.c)"}


def fresh(path: pathlib.Path, source: pathlib.Path) -> bool:
    """A cached encode that exists, is not empty and is not older than its source."""
    return path.exists() and path.stat().st_size > 0 and path.stat().st_mtime >= source.stat().st_mtime


def encode_mp3(pcm: pathlib.Path, path: pathlib.Path) -> None:
    """The PCM as MP3 (lame -V 5, mono), through a WAV by sox (lame built with libsndfile may misread raw input)."""
    wav = path.with_name(path.stem + ".tmp.wav")
    tmp = path.with_name(path.name + ".tmp")
    try:
        capture(["sox", "-t", "raw", "-r", str(PCM_RATE), "-e", "signed-integer", "-b", "16", "-c", "1", "-L",
                 str(pcm), str(wav)], "sox (the 600 s PCM to WAV)", timeout=ENCODE_TIMEOUT_S)
        capture(["lame", "--quiet", "-m", "m", "-V", str(MP3_QUALITY), str(wav), str(tmp)],
                f"lame -V {MP3_QUALITY}", timeout=ENCODE_TIMEOUT_S)
        os.replace(tmp, path)
    finally:
        wav.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)


def encode_aac(pcm: pathlib.Path, path: pathlib.Path) -> None:
    """The PCM as AAC in ADTS (FFmpeg's native encoder at 48 kbit/s)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        capture(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "s16le", "-ar", str(PCM_RATE), "-ac", "1", "-i",
                 str(pcm), "-c:a", "aac", "-b:a", f"{AAC_KBPS}k", "-f", "adts", str(tmp)],
                f"ffmpeg (AAC {AAC_KBPS}k ADTS)", timeout=ENCODE_TIMEOUT_S)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def make_files(corpus: pathlib.Path, folder: pathlib.Path) -> dict:
    """The three 600 s files: the corpus's Opus note, and its PCM encoded as MP3 and AAC (cached)."""
    pcm = corpus / SOURCE_PCM
    files = {"opus": corpus / SOURCE_OGG, "mp3": folder / "speech_600s.mp3", "aac": folder / "speech_600s.aac"}
    for kind, encode in (("mp3", encode_mp3), ("aac", encode_aac)):
        if not fresh(files[kind], pcm):
            started = time.perf_counter()
            encode(pcm, files[kind])
            print(f"long: encoded {files[kind]} ({files[kind].stat().st_size} bytes, "
                  f"{time.perf_counter() - started:.1f} s)", flush=True)
    return files


def long_commands(cli: pathlib.Path, floor: pathlib.Path, path: pathlib.Path, kind: str, jobs: int) -> dict:
    """One file's commands, in turn order (the floor for Opus only)."""
    commands = {
        "ours": [str(cli), "waveform", str(path), "--samples", str(WAVEFORM_SAMPLES), "-j", str(jobs)],
        "ours_j1": [str(cli), "waveform", str(path), "--samples", str(WAVEFORM_SAMPLES), "-j", "1"],
    }
    if kind == "opus":
        commands["floor"] = [str(floor), str(path), str(WAVEFORM_SAMPLES)]
    return commands


def values_of(text: str, label: str) -> list:
    """The JSON array of WAVEFORM_SAMPLES numbers one command printed."""
    try:
        values = json.loads(text)
    except ValueError:
        raise BenchError(f"{label} printed no JSON array: {text[:200]}")
    if not isinstance(values, list) or len(values) != WAVEFORM_SAMPLES:
        raise BenchError(f"{label} printed {len(values) if isinstance(values, list) else 'no'} values, not "
                         f"{WAVEFORM_SAMPLES}")
    return [float(v) for v in values]


def difference(a: list, b: list) -> dict:
    """Max abs difference of two value lists, and how many buckets differ at all."""
    diffs = [abs(x - y) for x, y in zip(a, b)]
    return {"max_abs_diff": max(diffs), "buckets_differing": sum(d > 0 for d in diffs)}


def validate(commands: dict, kind: str, names: dict) -> dict:
    """One untimed run of each command (also the warm-up): exit status 0, 100 values, -j CORES within
    VALUE_TOLERANCE of -j 1 and, for Opus, both within it of the floor."""
    values = {}
    for key, cmd in commands.items():
        result = run_once(cmd, f"{kind}: {names[key]} (validation run)", keep_stdout=True, timeout=RUN_TIMEOUT_S)
        values[key] = values_of(result["stdout"], f"{kind}: {names[key]}")
    checks = {"jobs_vs_one_pass": difference(values["ours"], values["ours_j1"])}
    if "floor" in values:
        checks["jobs_vs_floor"] = difference(values["ours"], values["floor"])
        checks["one_pass_vs_floor"] = difference(values["ours_j1"], values["floor"])
    off = {name: check["max_abs_diff"] for name, check in checks.items() if check["max_abs_diff"] > VALUE_TOLERANCE}
    if off:
        raise BenchError(f"{kind}: values differ beyond {VALUE_TOLERANCE:g}: " + ", ".join(
            f"{name} {diff:.4g}" for name, diff in off.items()))
    return {"checks": checks, "values": values}


def measure(commands: dict, runs: int, kind: str, names: dict) -> dict:
    """`runs` turns of the commands (A B C A B C ...): wall and CPU per run."""
    series = {key: [] for key in commands}
    for turn in range(runs):
        for key, cmd in commands.items():
            result = run_once(cmd, f"{kind}: {names[key]}", timeout=RUN_TIMEOUT_S)
            series[key].append({k: result[k] for k in ("wall_s", "cpu_s", "peak_kib")})
        print(f"long {kind} turn {turn + 1}/{runs}: " + ", ".join(
            f"{key} {ms(series[key][-1]['wall_s'])} ms" for key in series), flush=True)
    return series


def ratios_of(series: dict) -> dict:
    """Per-turn wall ratios: every core / one pass; with the floor, every core / floor and one pass / floor."""
    pairs = [("ours", "ours_j1")] + ([("ours", "floor"), ("ours_j1", "floor")] if "floor" in series else [])
    result = {}
    for a, b in pairs:
        values = [x["wall_s"] / max(y["wall_s"], 1e-9) for x, y in zip(series[a], series[b])]
        result[f"{a}/{b} wall"] = dict(summary(values), runs=values)
    return result


def judge(ratio: dict, jobs: int) -> dict:
    """The budget on the Opus note's every core / floor median; not judged on fewer than BUDGET_CORES cores."""
    value = ratio["median"]
    if jobs < BUDGET_CORES:
        return {"value": value, "limit": BUDGET_LONG_VS_FLOOR, "pass": None, "judged": False,
                "why": f"the budget is for {BUDGET_CORES} cores; this process may use {jobs}"}
    return {"value": value, "limit": BUDGET_LONG_VS_FLOOR, "pass": value <= BUDGET_LONG_VS_FLOOR, "judged": True}


def file_entry(kind: str, path: pathlib.Path, commands: dict, validation: dict, series: dict) -> dict:
    """One file's results: its commands, validation, series (medians and runs) and ratios."""
    entry = {"path": str(path), "bytes": path.stat().st_size, "description": DESCRIPTIONS[kind],
             "commands": commands, "validation": validation["checks"],
             "values_one_pass": validation["values"]["ours_j1"], "series": {}, "ratios": ratios_of(series)}
    for key, rows in series.items():
        entry["series"][key] = {"wall_s": summary([r["wall_s"] for r in rows]),
                                "cpu_s": summary([r["cpu_s"] for r in rows]),
                                "peak_kib": summary([r["peak_kib"] for r in rows]), "runs": rows}
    return entry


def verdict_word(verdict: dict) -> str:
    if not verdict["judged"]:
        return f"not judged, {verdict['why']}"
    return "pass" if verdict["pass"] else "MISS"


def verdict_text(verdict: dict) -> str:
    if not verdict["judged"]:
        return f"not judged ({verdict['why']})"
    return f"{'pass' if verdict['pass'] else '**miss**'} (≤ {verdict['limit']:g}x)"


def long_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """docs/performance.md long file: the 600 s note on every core against one pass and the C floor."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "lame", "ffmpeg", "pkg-config",
                   os.environ.get("CC", "cc")])
    corpus = make_corpus(work)
    folder = work / "long"
    folder.mkdir(parents=True, exist_ok=True)
    floor = build_floor(folder)
    cli = snapshot_cli(build, folder)
    files = make_files(corpus, folder)
    jobs = cpus()
    names = labels(jobs)
    started = time.perf_counter()
    section = {"seconds_of_audio": LONG_SECONDS, "samples": WAVEFORM_SAMPLES, "cores": jobs, "runs": runs,
               "labels": names, "files": {}, "cli": {k: str(v) for k, v in cli.items()}, "floor": str(floor)}
    for kind in KINDS:
        commands = long_commands(cli["path"], floor, files[kind], kind, jobs)
        validation = validate(commands, kind, names)
        series = measure(commands, runs, kind, names)
        section["files"][kind] = file_entry(kind, files[kind], commands, validation, series)
    section["verdict"] = judge(section["files"]["opus"]["ratios"]["ours/floor wall"], jobs)
    opus = section["files"]["opus"]
    print(f"long: n={runs}, -j {jobs}: opus every core {ms(opus['series']['ours']['wall_s']['median'])} ms, "
          f"{section['verdict']['value']:.2f}x the C floor (budget ≤ {BUDGET_LONG_VS_FLOOR:g}x: "
          f"{verdict_word(section['verdict'])}); every core / one pass: " + ", ".join(
              f"{kind} {section['files'][kind]['ratios']['ours/ours_j1 wall']['median']:.2f}" for kind in KINDS)
          + f" ({time.perf_counter() - started:.0f} s)", flush=True)
    return section


def long_markdown(section: dict) -> str:
    jobs, verdict, names = section["cores"], section["verdict"], section["labels"]
    lines = [
        f"Long file waveform: {section['seconds_of_audio']} s of speech, {section['samples']} values, ours "
        f"`voicenote waveform F -j {jobs}` (-j = the CPUs this process may use: the file split into ranges decoded "
        "in parallel) against ours `-j 1` (one pass) and, for Opus, the C floor (bench/floor_waveform.c). Whole "
        "processes in alternating turns per file after an untimed validation run of each; times are medians "
        "(min–max), ratios medians (min–max) of the per-turn ratios of wall times. Budget (docs/performance.md): the "
        f"Opus note on every core ≤ {verdict['limit']:g}x the floor's wall time, on {BUDGET_CORES} cores.",
        "",
        "| file | run | n | wall ms | CPU ms | every core ÷ this, wall | budget |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for kind, entry in section["files"].items():
        for key, series in entry["series"].items():
            if key == "ours":
                ratio, budget = "—", "—"
            elif key == "ours_j1":
                ratio, budget = ratio_text(entry["ratios"]["ours/ours_j1 wall"]), "reported"
            else:
                ratio, budget = ratio_text(entry["ratios"]["ours/floor wall"]), verdict_text(verdict)
            lines.append(f"| {NAMES[kind]} | {names[key]} | {section['runs']} "
                         f"| {spread(series['wall_s'], ms)} | {ms(series['cpu_s']['median'])} | {ratio} | {budget} |")
    opus = section["files"]["opus"]
    lines += ["", f"One pass against the floor (Opus): {ratio_text(opus['ratios']['ours_j1/floor wall'])}. Files: "
              + "; ".join(f"{NAMES[kind]}: {entry['description']}, {entry['bytes']:,} bytes"
                          for kind, entry in section["files"].items()) + "."]
    checks = "; ".join(
        f"{kind}: -j {jobs} vs -j 1 {entry['validation']['jobs_vs_one_pass']['max_abs_diff']:.4g} "
        f"({entry['validation']['jobs_vs_one_pass']['buckets_differing']} buckets differ)"
        + (f", -j {jobs} vs the floor {entry['validation']['jobs_vs_floor']['max_abs_diff']:.4g}, -j 1 vs the floor "
           f"{entry['validation']['one_pass_vs_floor']['max_abs_diff']:.4g}" if "jobs_vs_floor" in entry["validation"]
           else "")
        for kind, entry in section["files"].items())
    cli = section["cli"]
    lines += [
        "",
        f"Validation (one untimed run of each, every exit status 0; max abs difference ≤ {VALUE_TOLERANCE:g}): "
        f"{checks}.",
        f"CLI measured: a copy of {cli['source']} built {cli['source_mtime']}, sha256 {cli['sha256'][:16]}….",
    ]
    return "\n".join(lines) + "\n"
