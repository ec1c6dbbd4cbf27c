#!/usr/bin/env python3
"""`make bench`: voicenote's speed, memory and size figures, each against a reference run in the same bench.

Usage: bench/run.py [--build DIR] [--results DIR] [--work DIR] [--quick] [--runs N] [--lengths 5,60,600]

Sections (budgets: SPEC §11):
- Library size: the stripped .so against its budget.
- Waveform (SPEC §5.1, 100 values) of Ogg Opus speech of 5 s, 60 s and 600 s (bench/make_corpus.sh), four
  whole processes run side by side:
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
Writes RESULTS/latest.json (every run) and RESULTS/latest.md (the tables), and prints the tables.
Exit status 0 when everything ran, budget misses included (the bench reports, it does not gate); 1 when a step
failed to run (a missing tool, a build or a command that failed).
"""
import argparse
import json
import math
import os
import pathlib
import platform
import re
import resource
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent

BUDGET_STRIPPED_SO_BYTES = 16 * 1024 * 1024  # SPEC §11
BUDGET_VS_FLOOR = 1.2                         # SPEC §11: ≤ 1.2x the C floor
BUDGET_VS_FFPROBE = 0.66                      # SPEC §11: ≤ 0.66x the ffprobe line
BUDGET_OVER_BASELINE_MIB = 5.0                # SPEC §11: peak RSS ≤ 5 MiB above the process baseline
VALUE_TOLERANCE = 1e-3                        # our values against the floor's

WAVEFORM_SAMPLES = 100
LENGTHS = (5, 60, 600)
RUNS = {5: 21, 60: 21, 600: 21}
QUICK_RUNS = {5: 5, 60: 5, 600: 3}
BASELINE_RUNS = 5
CALL_TIME = re.compile(r"vn_waveform_file: \d+ values in ([0-9.]+) ms")
GNU_TIME = "/usr/bin/time"

# The four waveform commands, in turn order; the first two are ours.
OURS = ("cli", "sample")
LABELS = {
    "cli": "our CLI",
    "sample": "our C call",
    "floor": "C floor",
    "ffprobe": "ffprobe astats",
}


class BenchError(Exception):
    """A step that failed to run (not a missed budget)."""


# ---------------------------------------------------------------------------------------------------------------
# Library size

def library_size(build: pathlib.Path) -> dict:
    """Stripped size of the shipped .so against its budget."""
    so = (build / "lib" / "libvoicenote.so").resolve()
    if not so.exists():
        raise BenchError(f"{so} is missing: run `make build` first")
    with tempfile.TemporaryDirectory() as tmp:
        stripped = pathlib.Path(tmp) / "libvoicenote.so"
        subprocess.run(["strip", "--strip-unneeded", "-o", str(stripped), str(so)], check=True)
        size = stripped.stat().st_size
    return {
        "name": "library size (stripped .so)",
        "bytes": size,
        "budget_bytes": BUDGET_STRIPPED_SO_BYTES,
        "ratio_to_budget": round(size / BUDGET_STRIPPED_SO_BYTES, 3),
        "within_budget": size <= BUDGET_STRIPPED_SO_BYTES,
    }


def library_size_markdown(row: dict) -> str:
    return "\n".join([
        "| figure | value | budget | ratio | verdict |",
        "| --- | --- | --- | --- | --- |",
        f"| {row['name']} | {row['bytes'] / 1048576:.2f} MiB | {row['budget_bytes'] / 1048576:.0f} MiB "
        f"| {row['ratio_to_budget']} | {'pass' if row['within_budget'] else 'miss'} |",
    ]) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Running and measuring one child

def run_once(cmd: list, label: str) -> dict:
    """Runs cmd once (stdin and stdout /dev/null, stderr kept): wall s, CPU s, peak KiB and stderr."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{stderr}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_kib": usage.ru_maxrss,
            "stderr": stderr}


def capture(cmd: list, label: str) -> str:
    """Runs cmd once and returns its stdout; a failure is a BenchError."""
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{proc.stderr}")
    return proc.stdout


def gnu_time_peak_kib(cmd: list):
    """Peak RSS of one run read by GNU time, or None when it is not installed.

    A child of this Python process inherits its high-water mark at exec (ru_maxrss counts the address space the
    child came from), so os.wait4 cannot see a peak below the harness's own; GNU time forks the command from its
    own small process and can."""
    if not os.access(GNU_TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        text = out.read().split()
    return int(text[-1]) if text and text[-1].isdigit() else None


def summary(values: list) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def harness_peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ---------------------------------------------------------------------------------------------------------------
# Inputs: corpus, floor, C sample

def require_tools(tools: list) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise BenchError(f"missing tools: {', '.join(missing)} (`make deps` installs them)")


def build_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """Builds the corpus (cached), the C floor and the C sample into `work`."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffprobe", "pkg-config", os.environ.get("CC", "cc")])
    cli = build / "bin" / "voicenote"
    lib = build / "lib"
    for path in (cli, lib / "libvoicenote.so"):
        if not path.exists():
            raise BenchError(f"{path} is missing: run `make build` first")
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus"
    started = time.perf_counter()
    proc = subprocess.run(["sh", str(HERE / "make_corpus.sh"), str(corpus)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"bench/make_corpus.sh failed:\n{proc.stdout}{proc.stderr}")
    print(f"corpus: {corpus} ({time.perf_counter() - started:.1f} s)", flush=True)

    cc = shlex.split(os.environ.get("CC", "cc"))
    ogg_opus = shlex.split(capture(["pkg-config", "--cflags", "--libs", "ogg", "opus"], "pkg-config ogg opus"))
    floor = work / "floor_waveform"
    sample = work / "waveform_sample"
    capture(cc + ["-O2", "-o", str(floor), str(HERE / "floor_waveform.c")] + ogg_opus + ["-lm"],
            "building the C floor")
    capture(cc + ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include"),
                  "-o", str(sample), str(REPO / "bindings" / "c" / "waveform.c"),
                  "-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"],
            "building the C sample bindings/c/waveform.c")
    return {"cli": cli, "floor": floor, "sample": sample,
            "ogg": {length: corpus / f"speech_{length}s.ogg" for length in LENGTHS}}


def opus_frames_48k(path: pathlib.Path) -> int:
    """Frames of an Ogg Opus file at 48 kHz: its last granule position minus the pre-skip."""
    with open(path, "rb") as f:
        head = f.read(65536)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 65536))
        tail = f.read()
    if head[:4] != b"OggS" or len(head) < 27:
        raise BenchError(f"{path}: not an Ogg file")
    serial = struct.unpack_from("<I", head, 14)[0]
    body = 27 + head[26]
    if head[body:body + 8] != b"OpusHead":
        raise BenchError(f"{path}: not Ogg Opus")
    pre_skip = struct.unpack_from("<H", head, body + 10)[0]
    at = tail.rfind(b"OggS")
    while at >= 0:
        if at + 27 <= len(tail) and tail[at + 4] == 0 and struct.unpack_from("<I", tail, at + 14)[0] == serial:
            granule = struct.unpack_from("<q", tail, at + 6)[0]
            if granule >= 0:
                return max(0, granule - pre_skip)
        at = tail.rfind(b"OggS", 0, at)
    raise BenchError(f"{path}: no granule position in its last 64 KiB")


def waveform_commands(tools: dict, ogg: pathlib.Path) -> dict:
    """The four commands for one file, in turn order."""
    if re.search(r"[,:;=\[\]'\\ ]", str(ogg)):
        raise BenchError(f"{ogg}: the lavfi graph needs a path without , : ; = [ ] ' \\ or spaces")
    per_bucket = math.ceil(opus_frames_48k(ogg) / WAVEFORM_SAMPLES)
    graph = (f"amovie={ogg},asetnsamples=n={per_bucket}:p=0,astats=metadata=1:reset=1:measure_perchannel=none:"
             "measure_overall=RMS_level,ametadata=print:key=lavfi.astats.Overall.RMS_level")
    return {
        "cli": [str(tools["cli"]), "waveform", str(ogg), "--samples", str(WAVEFORM_SAMPLES)],
        "sample": [str(tools["sample"]), "-t", str(ogg), str(WAVEFORM_SAMPLES)],
        "floor": [str(tools["floor"]), str(ogg), str(WAVEFORM_SAMPLES)],
        "ffprobe": ["ffprobe", "-v", "error", "-f", "lavfi", graph,
                    "-show_entries", "frame_tags=lavfi.astats.Overall.RMS_level", "-of", "json"],
    }


# ---------------------------------------------------------------------------------------------------------------
# Waveform section

def measure_baselines(tools: dict) -> dict:
    """Peak RSS (and start-up time) of our two binaries doing nothing useful."""
    commands = {"cli": [str(tools["cli"]), "version"], "sample": [str(tools["sample"]), "--baseline"]}
    runs = {key: [] for key in commands}
    for key, cmd in commands.items():
        run_once(cmd, f"{key} baseline")
    for _ in range(BASELINE_RUNS):
        for key, cmd in commands.items():
            runs[key].append(run_once(cmd, f"{key} baseline"))
    return {key: {"cmd": commands[key],
                  "peak_kib": statistics.median(r["peak_kib"] for r in runs[key]),
                  "wall_s": summary([r["wall_s"] for r in runs[key]])} for key in commands}


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
    """Budgets of SPEC §11 for our two rows, and the memory figures of every row."""
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
        base = baselines[ours]["peak_kib"]
        if base <= harness_kib + 256:
            raise BenchError(f"the {LABELS[ours]} baseline ({base} KiB) is below what os.wait4 can see here")
        over_mib = (peaks[ours]["peak_kib"] - base) / 1024
        peaks[ours]["over_baseline_mib"] = over_mib
        checks = {
            "vs floor": {"value": vs_floor, "limit": BUDGET_VS_FLOOR, "pass": vs_floor <= BUDGET_VS_FLOOR},
            "vs ffprobe": {"value": vs_ffprobe, "limit": BUDGET_VS_FFPROBE, "pass": vs_ffprobe <= BUDGET_VS_FFPROBE},
            "memory": {"value": over_mib, "limit": BUDGET_OVER_BASELINE_MIB,
                       "pass": over_mib <= BUDGET_OVER_BASELINE_MIB},
        }
        verdicts[ours] = {"checks": checks, "pass": all(c["pass"] for c in checks.values())}
    return {"peaks": peaks, "verdicts": verdicts}


# ---------------------------------------------------------------------------------------------------------------
# Markdown

def ms(seconds: float) -> str:
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def spread(entry: dict, fmt) -> str:
    return f"{fmt(entry['median'])} ({fmt(entry['min'])}–{fmt(entry['max'])})"


def ratio_text(entry: dict) -> str:
    return spread(entry, lambda v: f"{v:.2f}")


def verdict_text(verdict: dict) -> str:
    missed = [name for name, check in verdict["checks"].items() if not check["pass"]]
    return "pass" if not missed else "miss: " + ", ".join(missed)


def waveform_markdown(section: dict) -> str:
    lines = [
        f"Waveform, {WAVEFORM_SAMPLES} values, of Ogg Opus speech (32 kbit/s, 20 ms, mono; bench/make_corpus.sh). "
        "Whole processes, start-up included, run in turns after a warm-up; times are medians (min–max), ratios "
        "are medians (min–max) of the per-turn ratios of wall times. Budgets (SPEC §11): "
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
    lines += [
        "",
        f"Baselines (no work, median of {BASELINE_RUNS}): our CLI `voicenote version` "
        f"{base['cli']['peak_kib'] / 1024:.1f} MiB, {spread(base['cli']['wall_s'], ms)} ms; "
        f"our C sample `waveform --baseline` {base['sample']['peak_kib'] / 1024:.1f} MiB, "
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
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------

def machine() -> dict:
    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return None

    model = None
    try:
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                      if line.startswith("model name")), None)
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(), "cpu": model, "kernel": platform.release(), "python": platform.python_version(),
        "load_average_at_start": os.getloadavg(),
        "libopus": first_line(["pkg-config", "--modversion", "opus"]),
        "libogg": first_line(["pkg-config", "--modversion", "ogg"]),
        "ffprobe": first_line(["ffprobe", "-version"]), "cc": first_line([os.environ.get("CC", "cc"), "--version"]),
    }


def waveform_section(build: pathlib.Path, work: pathlib.Path, runs: dict, lengths: list) -> dict:
    tools = build_inputs(build, work)
    baselines = measure_baselines(tools)
    section = {"samples": WAVEFORM_SAMPLES, "baselines": baselines, "lengths": {}}
    for length in lengths:
        started = time.perf_counter()
        commands = waveform_commands(tools, tools["ogg"][length])
        verification = verify(commands, length)
        measured = measure_waveform(commands, runs[length])
        harness_kib = harness_peak_kib()
        section["lengths"][length] = {
            "file": str(tools["ogg"][length]), "verification": verification, "measured": measured,
            "judged": judge(length, measured, baselines, verification, harness_kib),
        }
        series = measured["series"]
        print(f"waveform {length} s: n={runs[length]}, " + ", ".join(
            f"{LABELS[key]} {ms(series[key]['wall_s']['median'])} ms" for key in series)
            + f" ({time.perf_counter() - started:.0f} s)", flush=True)
    section["harness_peak_kib"] = harness_peak_kib()
    return section


def compact_json(value) -> str:
    """Indented JSON with every list of numbers or strings on one line, so the file stays short and diffable."""
    text = json.dumps(value, indent=1, default=str)
    compact = re.sub(r"\[\s*((?:[-0-9.eE+]+|\"[^\"\n]*\")(?:,\s*(?:[-0-9.eE+]+|\"[^\"\n]*\"))*)\s*\]",
                     lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return compact if json.loads(compact) == json.loads(text) else text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=REPO / "build", type=pathlib.Path, help="where make build put bin/, lib/")
    parser.add_argument("--results", default=HERE / "results", type=pathlib.Path)
    parser.add_argument("--work", default=HERE / "work", type=pathlib.Path, help="corpus and C programs (cached)")
    parser.add_argument("--quick", action="store_true", help="fewer turns: " + str(QUICK_RUNS))
    parser.add_argument("--runs", type=int, help="turns at every length (default: " + str(RUNS) + ")")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="subset of 5,60,600")
    args = parser.parse_args()
    build = args.build.resolve()
    runs = dict(QUICK_RUNS if args.quick else RUNS)
    if args.runs:
        runs = {length: args.runs for length in LENGTHS}
    lengths = [int(text) for text in args.lengths.split(",") if text]
    if not lengths or any(length not in LENGTHS for length in lengths):
        parser.error(f"--lengths takes a subset of {','.join(map(str, LENGTHS))}")

    started = time.perf_counter()
    try:
        size = library_size(build)
        info = machine()
        waveform = waveform_section(build, args.work.resolve(), runs, lengths)
    except (BenchError, subprocess.CalledProcessError, OSError) as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    info["load_average_at_end"] = os.getloadavg()
    elapsed = time.perf_counter() - started

    report = {"machine": info, "seconds": round(elapsed, 1), "quick": args.quick,
              "library_size": size, "waveform": waveform}
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "latest.json").write_text(compact_json(report) + "\n")
    load = " / ".join(f"{value:.2f}" for value in (info["load_average_at_start"][0], info["load_average_at_end"][0]))
    text = (f"`make bench`: {info['cpus']} CPUs ({info['cpu']}), load {load} at start / end, "
            f"{elapsed:.0f} s{' (--quick)' if args.quick else ''}.\n\n"
            + waveform_markdown(waveform) + "\n" + library_size_markdown(size))
    (args.results / "latest.md").write_text(text)
    sys.stdout.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
