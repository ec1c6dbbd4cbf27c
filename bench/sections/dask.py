"""Section `dask` (bindings/python/examples/dask_waveforms.py: the notes cut into shards, one Dask task per shard,
each task one `voicenote.waveforms` call writing JSON lines): the example on a LocalCluster of this machine, in files
per second, against the same batch in one `voicenote waveform --from LIST -j CORES` process. No budget: the figure
is reported.

The notes: the batch section's 1000 five-second Ogg Opus notes in WORK/batch/notes and their list (made, or checked
and kept, by bench/sections/batch.py's batch_inputs; 21 MB, in the page cache for every run alike).
Runs, in alternating turns after one untimed validation run of each (ours Dask, ours Dask ...):
    ours   one `voicenote waveform --from LIST -j CORES --samples 100` process, stdout /dev/null (the batch
           section's "ours")
    Dask   `python3 bindings/python/examples/dask_waveforms.py --from LIST --out DIR --local CORES --threads 1
           --shard ceil(1000 / CORES) --samples 100`: a LocalCluster of CORES worker processes with one Dask thread
           each, every task's library pool of one thread (CORES // CORES, what the example gives a local cluster
           sharing the machine's cores when --threads is not said), one shard per worker (the example's default
           shard of 1000 would be one task on one worker, the others idle)
CORES is the CPUs this process may use (sched_getaffinity), ours' default -j. Both are whole processes started by
the harness, each with a timeout; the Dask run's environment has VOICENOTE_LIBRARY on a copy of
build/lib/libvoicenote.so in WORK/lib (common/library.py's snapshot, taken once) and PYTHONPATH=bindings/python,
and its output folder WORK/dask/out is removed before and after every run.
Figures per run: ours' files/s = 1000 / its wall time. Dask's files/s two ways: by the harness (1000 / the process's
wall time, start to exit: the interpreter, importing dask.distributed, starting and closing the LocalCluster
included) and by the example's own summary line (1000 / its "seconds": from the first submit to the last result,
which includes the workers' first import of voicenote and load of the library, made inside the tasks). Their
difference (harness wall - its seconds) is the cost outside its timing: start-up, cluster start and shut-down.
The ratios are medians (min–max) of the per-turn ratios of files/s, Dask ÷ ours, for both of Dask's figures.
Validation (untimed, or the section fails): ours' output has one line per note in input order, each with 100
values and no error (batch.py's output_values); the Dask run exits 0, its summary says 1000 files, 0 failures,
the expected shards and CORES cores, its part-*.jsonl files hold exactly one JSON line per note (no error line, no
leftover .part file), and each note's values equal ours' for the same path (max abs difference ≤ 1e-3; the example
rounds to 4 decimals). Every timed Dask run's summary must say 1000 files and 0 failures too.
Our CLI is batch.py's copy of build/bin/voicenote in WORK/batch, taken once per section."""
import json
import os
import pathlib
import shutil
import sys
import time

from common.audio import WAVEFORM_SAMPLES
from common.errors import BenchError
from common.library import snapshot_library
from common.paths import REPO
from common.process import run_once
from common.stats import summary
from common.text import ratio_text, secs, spread
from sections.batch import BATCH_NOTES, NOTE_SECONDS, batch_inputs, cpus, ours_command, output_values

DASK_RUNS = 3
QUICK_DASK_RUNS = 1
THREADS_PER_WORKER = 1                        # library threads per task: CORES workers x 1 = CORES
VALUE_TOLERANCE = 1e-3
DURATION_TOLERANCE_S = 0.01
OURS_TIMEOUT_S = 300                          # one batch of 1000 notes in one process (about 5 s here)
DASK_TIMEOUT_S = 600                          # one Dask run, the cluster's start included (about 6 s here)
EXAMPLE = REPO / "bindings" / "python" / "examples" / "dask_waveforms.py"
PACKAGE = REPO / "bindings" / "python"
KEYS = ("ours", "dask")


def labels(jobs: int) -> dict:
    return {"ours": f"ours: one `voicenote waveform --from LIST -j {jobs}` process",
            "dask": f"Dask example, LocalCluster of {jobs} worker processes (harness: process start to exit)",
            "dask_own": "Dask example, its own timing (first submit to last result)"}


def shard_size(notes: int, workers: int) -> int:
    """Notes per task: one shard per worker process."""
    return -(-notes // workers)


def dask_command(listed: pathlib.Path, out: pathlib.Path, jobs: int, shard: int) -> list:
    """The example on a LocalCluster of `jobs` processes, one library thread each, shards of `shard` notes."""
    return [sys.executable, str(EXAMPLE), "--from", str(listed), "--out", str(out), "--local", str(jobs),
            "--threads", str(THREADS_PER_WORKER), "--shard", str(shard), "--samples", str(WAVEFORM_SAMPLES)]


def dask_environment(library: pathlib.Path) -> dict:
    """Ours plus VOICENOTE_LIBRARY on the library's copy and PYTHONPATH on the package in the checkout."""
    if (PACKAGE / "voicenote" / "_libs").exists():
        raise BenchError(f"{PACKAGE / 'voicenote' / '_libs'} exists: a library bundled in the package would be "
                         "loaded instead of VOICENOTE_LIBRARY's (remove it; `make wheel` builds elsewhere)")
    return dict(os.environ, VOICENOTE_LIBRARY=str(library), PYTHONPATH=str(PACKAGE))


def run_dask(cmd: list, env: dict, out: pathlib.Path, label: str, expected: dict) -> dict:
    """One run of the example into a fresh `out` (left for the caller to read): wall, CPU and its summary line,
    which must say the expected files and shards, no failures and CORES cores."""
    shutil.rmtree(out, ignore_errors=True)
    result = run_once(cmd, label, keep_stdout=True, env=env, timeout=DASK_TIMEOUT_S)
    lines = result["stdout"].strip().splitlines()
    try:
        printed = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise BenchError(f"{label} printed no summary line: {result['stdout'][-500:]}\n{result['stderr'][-2000:]}")
    wrong = {key: (printed.get(key), value) for key, value in expected.items() if printed.get(key) != value}
    if wrong:
        raise BenchError(f"{label}: its summary {printed} has " + ", ".join(
            f"{key} {got}, not {want}" for key, (got, want) in wrong.items()))
    files, seconds = printed["files"], float(printed["seconds"])
    return {"files": files, "wall_s": result["wall_s"], "cpu_s": result["cpu_s"], "peak_kib": result["peak_kib"],
            "files_per_s": files / result["wall_s"], "own_seconds": seconds, "own_files_per_s": files / seconds,
            "outside_own_s": result["wall_s"] - seconds, "summary": printed}


def dask_values(out: pathlib.Path, notes: list) -> dict:
    """The Dask output: every note's values by path, from exactly one JSON line each across the part files, with
    no error line and no leftover .part file."""
    leftovers = sorted(path.name for path in out.glob("*.part"))
    if leftovers:
        raise BenchError(f"the Dask run left unfinished part files in {out}: {', '.join(leftovers[:5])}")
    parts = sorted(out.glob("part-*.jsonl"))
    values, wanted = {}, {str(note) for note in notes}
    for part in parts:
        for number, line in enumerate(part.read_text().splitlines(), 1):
            where = f"{part.name}, line {number}"
            try:
                record = json.loads(line)
            except ValueError:
                raise BenchError(f"Dask output {where}: not JSON: {line[:200]}")
            path = record.get("path")
            if "error" in record:
                raise BenchError(f"Dask output {where}: an error for {path}: {record['error']}")
            if path not in wanted:
                raise BenchError(f"Dask output {where}: {path} is not one of the notes")
            if path in values:
                raise BenchError(f"Dask output {where}: {path} a second time")
            if abs(float(record.get("duration", -1)) - NOTE_SECONDS) > DURATION_TOLERANCE_S:
                raise BenchError(f"Dask output {where}: duration {record.get('duration')}, not {NOTE_SECONDS} s")
            if len(record.get("values") or []) != WAVEFORM_SAMPLES:
                raise BenchError(f"Dask output {where}: {len(record.get('values') or [])} values, not "
                                 f"{WAVEFORM_SAMPLES}")
            values[path] = record["values"]
    if len(values) != len(notes):
        raise BenchError(f"the Dask output in {out} has {len(values)} notes of {len(notes)} "
                         f"({len(parts)} part files)")
    return values


def validate(commands: dict, env: dict, out: pathlib.Path, notes: list, names: dict, expected: dict) -> dict:
    """One untimed run of each (also their warm-up): ours' output read, the Dask output read and its values
    compared with ours' for the same path."""
    started = time.perf_counter()
    ours = run_once(commands["ours"], f"{names['ours']} (validation run)", keep_stdout=True, timeout=OURS_TIMEOUT_S)
    reference = {str(note): got for note, got in zip(notes, output_values(ours["stdout"], notes))}
    run = run_dask(commands["dask"], env, out, f"{names['dask']} (validation run)", expected)
    values = dask_values(out, notes)
    shutil.rmtree(out, ignore_errors=True)
    worst, worst_path = 0.0, None
    for path, got in values.items():
        diff = max(abs(a - b) for a, b in zip(got, reference[path]))
        if diff > worst:
            worst, worst_path = diff, path
    if worst > VALUE_TOLERANCE:
        raise BenchError(f"the Dask output's values differ from ours' by up to {worst:.4g} ({worst_path}; "
                         f"tolerance {VALUE_TOLERANCE:g})")
    return {"ours_lines": len(reference), "dask_lines": len(values), "error_lines": 0,
            "parts": run["summary"]["shards"], "max_abs_diff_vs_ours": worst, "summary": run["summary"],
            "wall_s": run["wall_s"], "seconds": time.perf_counter() - started}


def measure(commands: dict, env: dict, out: pathlib.Path, runs: int, names: dict, expected: dict) -> dict:
    """`runs` turns of ours then Dask: files/s of each (Dask's by the harness and by its own summary)."""
    series = {key: [] for key in KEYS}
    for turn in range(runs):
        result = run_once(commands["ours"], names["ours"], timeout=OURS_TIMEOUT_S)
        series["ours"].append({"files": BATCH_NOTES, "wall_s": result["wall_s"], "cpu_s": result["cpu_s"],
                               "peak_kib": result["peak_kib"], "files_per_s": BATCH_NOTES / result["wall_s"]})
        series["dask"].append(run_dask(commands["dask"], env, out, names["dask"], expected))
        shutil.rmtree(out, ignore_errors=True)
        dask = series["dask"][-1]
        print(f"dask turn {turn + 1}/{runs}: ours {series['ours'][-1]['files_per_s']:.0f} files/s, Dask "
              f"{dask['files_per_s']:.0f} files/s by the harness ({secs(dask['wall_s'])} s), "
              f"{dask['own_files_per_s']:.0f} by its own timing ({secs(dask['own_seconds'])} s)", flush=True)
    return series


def dask_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """The Dask example's files per second against the same batch in one process (reported, no budget)."""
    inputs = batch_inputs(build, work)
    library = snapshot_library(build, work)
    copy = (library["lib"] / "libvoicenote.so").resolve()
    folder = work / "dask"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "out"
    notes = inputs["notes"]
    jobs = cpus()
    names = labels(jobs)
    shard = shard_size(len(notes), jobs)
    commands = {"ours": ours_command(inputs["cli"]["path"], inputs["listed"], jobs),
                "dask": dask_command(inputs["listed"], out, jobs, shard)}
    env = dask_environment(copy)
    expected = {"files": len(notes), "failures": 0, "shards": -(-len(notes) // shard), "cores": jobs}
    started = time.perf_counter()
    validation = validate(commands, env, out, notes, names, expected)
    series = measure(commands, env, out, runs, names, expected)
    section = {"notes": len(notes), "note_seconds": NOTE_SECONDS, "cores": jobs, "workers": jobs,
               "threads_per_worker": THREADS_PER_WORKER, "shard": shard, "runs": runs, "commands": commands,
               "labels": names, "python": sys.executable, "validation": validation,
               "environment": {"VOICENOTE_LIBRARY": env["VOICENOTE_LIBRARY"], "PYTHONPATH": env["PYTHONPATH"]},
               "cli": {k: str(v) for k, v in inputs["cli"].items()},
               "library": {k: str(v) for k, v in library.items()}, "series": {}, "ratios": {},
               "last_summary": series["dask"][-1]["summary"]}
    for key, rows in series.items():
        section["series"][key] = {"files": rows[0]["files"], "wall_s": summary([r["wall_s"] for r in rows]),
                                  "cpu_s": summary([r["cpu_s"] for r in rows]),
                                  "files_per_s": summary([r["files_per_s"] for r in rows]), "runs": rows}
    dask = section["series"]["dask"]
    for field in ("own_seconds", "own_files_per_s", "outside_own_s"):
        dask[field] = summary([r[field] for r in series["dask"]])
    for name, field in (("dask/ours", "files_per_s"), ("dask_own/ours", "own_files_per_s")):
        ratios = [d[field] / o["files_per_s"] for d, o in zip(series["dask"], series["ours"])]
        section["ratios"][name] = dict(summary(ratios), runs=ratios)
    print(f"dask: n={runs}, {jobs} cores: ours {section['series']['ours']['files_per_s']['median']:.0f} files/s; "
          f"Dask {dask['files_per_s']['median']:.0f} files/s by the harness "
          f"({section['ratios']['dask/ours']['median']:.2f}x ours), {dask['own_files_per_s']['median']:.0f} by its "
          f"own timing ({section['ratios']['dask_own/ours']['median']:.2f}x ours); "
          f"{dask['outside_own_s']['median']:.2f} s outside its timing (no budget) "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    return section


def dask_markdown(section: dict) -> str:
    jobs, names, series, ratios = section["cores"], section["labels"], section["series"], section["ratios"]
    ours, dask = series["ours"], series["dask"]
    lines = [
        f"Dask example: the batch section's {section['notes']} Ogg Opus notes of {section['note_seconds']} s, "
        f"{WAVEFORM_SAMPLES} values each, through bindings/python/examples/dask_waveforms.py on a LocalCluster of "
        f"{section['workers']} worker processes (`--local {section['workers']} --threads "
        f"{section['threads_per_worker']} --shard {section['shard']}`: one Dask thread and one library thread per "
        f"worker, one shard per worker), against ours, the same list in one `voicenote waveform --from LIST -j "
        f"{jobs}` process (-j = the CPUs this process may use). The Dask run's files/s by the harness counts the "
        "whole process (interpreter, imports, the cluster's start and shut-down); by its own summary, from the first "
        "submit to the last result. Whole processes in alternating turns after an untimed validation run of each; "
        "figures are medians (min–max), ratios medians (min–max) of the per-turn ratios of files/s. No budget: the "
        "figure is reported.",
        "",
        "| run | n | files | wall s | files/s | CPU s | this ÷ ours, files/s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| {names['ours']} | {section['runs']} | {ours['files']} | {spread(ours['wall_s'], secs)} "
        f"| {spread(ours['files_per_s'], lambda v: f'{v:.0f}')} | {ours['cpu_s']['median']:.2f} | — |",
        f"| {names['dask']} | {section['runs']} | {dask['files']} | {spread(dask['wall_s'], secs)} "
        f"| {spread(dask['files_per_s'], lambda v: f'{v:.0f}')} | {dask['cpu_s']['median']:.2f} "
        f"| {ratio_text(ratios['dask/ours'])} |",
        f"| {names['dask_own']} | {section['runs']} | {dask['files']} | {spread(dask['own_seconds'], secs)} "
        f"| {spread(dask['own_files_per_s'], lambda v: f'{v:.0f}')} | — | {ratio_text(ratios['dask_own/ours'])} |",
    ]
    check, cli, library = section["validation"], section["cli"], section["library"]
    lines += [
        "",
        f"Outside the example's own timing (harness wall - its seconds: interpreter start, importing "
        f"dask.distributed, the LocalCluster's start and shut-down): {spread(dask['outside_own_s'], secs)} s. CPU s "
        "of the Dask run counts the processes the harness's child reaped (its worker processes). The example's "
        f"summary line, last turn: `{json.dumps(section['last_summary'])}`.",
        "",
        f"Validation (one untimed run of each): ours {check['ours_lines']} lines in input order; Dask "
        f"{check['dask_lines']} lines across {check['parts']} part files, one per note, {check['error_lines']} error "
        f"lines; values against ours' for the same path max abs difference {check['max_abs_diff_vs_ours']:.4g} "
        f"(≤ {VALUE_TOLERANCE:g}).",
        f"CLI measured: a copy of {cli['source']} built {cli['source_mtime']}, sha256 {cli['sha256'][:16]}…; the "
        f"Dask workers' library: a copy of {library['source']} built {library['source_mtime']}, sha256 "
        f"{library['sha256'][:16]}… (VOICENOTE_LIBRARY), the package from bindings/python (PYTHONPATH).",
    ]
    return "\n".join(lines) + "\n"
