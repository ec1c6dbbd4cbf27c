"""Section `batch` (the batch waveform: `voicenote waveform FILE... --from LIST -j N`, one pool of N threads in one
process): 1000 five-second Ogg Opus notes, in files per second, against a process per file.

The notes: 10 distinct 5 s speech notes, cut at 0, 5, ..., 45 s from the corpus's 600 s speech PCM
(bench/make_corpus.sh) and encoded as make_corpus.sh encodes (opusenc --bitrate 32 --framesize 20 --serial 1), each
copied 100 times: 1000 files (separate inodes, not links) in WORK/batch/notes, note i a copy of distinct note
i mod 10. All 21 MB of them sit in the page cache for every run alike (the first, untimed run reads them).
Runs, in alternating turns after an untimed validation run (ours A B C D, ours A B C D ...):
    ours                  one `voicenote waveform --from LIST -j CORES --samples 100` process, stdout /dev/null
    ours with -j 1        the same with one worker (reported: the pool's speed-up, and the per-note work in a batch)
    process per file      `voicenote waveform FILE --samples 100`, one process per file, one after the other
    process per file, ×N  the same, CORES processes at a time (what `xargs -P CORES` does; reported, no budget)
    C floor per file      bench/floor_waveform.c (libogg + opus_decode + the bucket loop), one process per file,
                          one after the other
CORES is the CPUs this process may use (sched_getaffinity), ours' default -j. The per-file loops spawn with
posix_spawn straight from the harness (stdin, stdout and stderr /dev/null; the leanest spawn a caller has) and reap
with wait4, which gives their CPU time; every exit status must be 0. By default they run over all 1000 files; with
--quick over the first 200 (every distinct note 20 times) and files/s is that sample's rate. Files/s = files / the
loop's (or ours') wall time; the ratios are medians (min–max) of the per-turn ratios of files/s.
Our CLI is a copy of build/bin/voicenote in WORK/batch (the library is linked into it), taken once, so a rebuild
during the bench does not change what is timed.
Validation (untimed, or the section fails): ours' output has one line per note in input order, each with its
path, a 5 s duration and 100 values, and no error line; every copy of a distinct note has the same values; each
distinct note's values equal the C floor's and the per-file CLI's (max abs difference ≤ 1e-3).
Memory: peak RSS by GNU time (a child of the harness inherits its high-water mark in ru_maxrss) of ours on batches of
2, 100 and 1000 notes with the same -j, PEAK_RUNS runs each in turns, medians; and of `voicenote version` (the
process baseline). Budgets (docs/performance.md): ours ≥ 5x the files/s of a process per file, one after the other,
on this machine's cores; peak RSS of the 1000-note batch ≤ 5 MiB per worker over the 2-note batch's (the growth with
the batch's length; the figure over `voicenote version` is reported too)."""
import json
import os
import pathlib
import shlex
import shutil
import statistics
import time

from common.audio import PCM_RATE, WAVEFORM_SAMPLES
from common.budgets import BUDGET_BATCH_MEMORY_PER_WORKER_MIB, BUDGET_BATCH_VS_PROCESS_PER_FILE
from common.corpus import make_corpus
from common.errors import BenchError
from common.memory import gnu_time_peak_kib, harness_peak_kib
from common.ogg import opus_frames_48k
from common.paths import HERE
from common.process import capture, require_tools, run_once
from common.stats import summary
from common.text import ratio_text, secs, spread
from sections.convert import snapshot_cli

BATCH_NOTES = 1000
DISTINCT_NOTES = 10
NOTE_SECONDS = 5
SOURCE_PCM = "speech_600s.raw"               # bench/make_corpus.sh: 48 kHz mono S16_LE
BATCH_RUNS = 3
QUICK_BATCH_RUNS = 1
PER_FILE_NOTES = 1000                        # files each per-file loop runs over per turn
QUICK_PER_FILE_NOTES = 200
MEMORY_LENGTHS = (2, 100, 1000)
PEAK_RUNS = 3
VALUE_TOLERANCE = 1e-3
DURATION_TOLERANCE_S = 0.01
KEYS = ("ours", "ours_j1", "per_file", "per_file_parallel", "floor")


def labels(jobs: int) -> dict:
    return {"ours": f"ours: one `voicenote waveform --from LIST -j {jobs}` process",
            "ours_j1": "ours with -j 1 (one worker)",
            "per_file": "`voicenote waveform FILE`, a process per file",
            "per_file_parallel": f"`voicenote waveform FILE`, a process per file, {jobs} at a time",
            "floor": "C floor, a process per file"}


def cpus() -> int:
    return len(os.sched_getaffinity(0))


def build_floor(folder: pathlib.Path) -> pathlib.Path:
    """bench/floor_waveform.c built into `folder` (WORK/batch; the long section's WORK/long), as the waveform section
    builds it."""
    cc = shlex.split(os.environ.get("CC", "cc"))
    flags = shlex.split(capture(["pkg-config", "--cflags", "--libs", "ogg", "opus"], "pkg-config ogg opus"))
    floor = folder / "floor_waveform"
    capture(cc + ["-O2", "-o", str(floor), str(HERE / "floor_waveform.c")] + flags + ["-lm"],
            "building the C floor")
    return floor


def make_notes(corpus: pathlib.Path, folder: pathlib.Path) -> list:
    """The 10 distinct 5 s notes (cached) and the 1000 copies; returns the copies' paths in input order."""
    pcm = corpus / SOURCE_PCM
    distinct_dir = folder / "distinct"
    distinct_dir.mkdir(parents=True, exist_ok=True)
    distinct = []
    for k in range(DISTINCT_NOTES):
        offset = k * NOTE_SECONDS
        note = distinct_dir / f"speech_5s_at_{offset:02d}s.ogg"
        if not note.exists():
            wav = distinct_dir / f"cut_{offset:02d}.wav"
            capture(["sox", "-R", "-t", "raw", "-r", str(PCM_RATE), "-e", "signed-integer", "-b", "16", "-c", "1",
                     "-L", str(pcm), "-b", "16", str(wav), "trim", str(offset), str(NOTE_SECONDS)],
                    f"sox (cutting {NOTE_SECONDS} s at {offset} s)")
            tmp = note.with_suffix(".tmp")
            capture(["opusenc", "--quiet", "--serial", "1", "--bitrate", "32", "--framesize", "20", str(wav),
                     str(tmp)], "opusenc (a batch note)")
            os.replace(tmp, note)
            wav.unlink()
        if opus_frames_48k(note) != NOTE_SECONDS * PCM_RATE:
            raise BenchError(f"{note}: {opus_frames_48k(note) / PCM_RATE:.3f} s, not {NOTE_SECONDS} s")
        distinct.append(note)
    contents = [note.read_bytes() for note in distinct]
    if len(set(contents)) != DISTINCT_NOTES:
        raise BenchError("the batch's distinct notes are not distinct")
    notes_dir = folder / "notes"
    notes_dir.mkdir(parents=True, exist_ok=True)
    notes, written = [], 0
    for i in range(BATCH_NOTES):
        k = i % DISTINCT_NOTES
        path = notes_dir / f"note_{i:04d}.ogg"
        try:
            same = path.read_bytes() == contents[k]
        except OSError:
            same = False
        if not same:
            shutil.copyfile(distinct[k], path)
            written += 1
        notes.append(path)
    if written:
        os.sync()  # no writeback of new copies during the timed runs
    print(f"batch: {BATCH_NOTES} notes in {notes_dir} ({DISTINCT_NOTES} distinct, {written} copies written)",
          flush=True)
    return notes


def write_list(path: pathlib.Path, notes: list) -> pathlib.Path:
    path.write_text("".join(f"{note}\n" for note in notes))
    return path


def batch_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """WORK/batch with its copy of the CLI (taken once per section), the 1000 notes and their list: what the batch and
    dask sections measure."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc"])
    corpus = make_corpus(work)
    folder = work / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    cli = snapshot_cli(build, folder)
    notes = make_notes(corpus, folder)
    return {"folder": folder, "cli": cli, "notes": notes,
            "listed": write_list(folder / f"list_{BATCH_NOTES}.txt", notes)}


def ours_command(cli: pathlib.Path, listed: pathlib.Path, jobs: int) -> list:
    """Ours: one `voicenote waveform --from LIST -j JOBS --samples 100` process."""
    return [str(cli), "waveform", "--from", str(listed), "-j", str(jobs), "--samples", str(WAVEFORM_SAMPLES)]


def output_values(text: str, notes: list) -> list:
    """The values of ours' output, each line checked: JSON, one per note in input order (its path), no error, a 5 s
    duration and 100 values."""
    lines = text.splitlines()
    if len(lines) != len(notes):
        raise BenchError(f"ours printed {len(lines)} lines for {len(notes)} notes")
    values = []
    for index, (line, note) in enumerate(zip(lines, notes)):
        try:
            record = json.loads(line)
        except ValueError:
            raise BenchError(f"ours, line {index + 1}: not JSON: {line[:200]}")
        if "error" in record:
            raise BenchError(f"ours, line {index + 1}: an error for {note}: {record['error']}")
        if record.get("path") != str(note):
            raise BenchError(f"ours, line {index + 1}: path {record.get('path')}, not {note} (input order)")
        if abs(float(record.get("duration", -1)) - NOTE_SECONDS) > DURATION_TOLERANCE_S:
            raise BenchError(f"ours, line {index + 1}: duration {record.get('duration')}, not {NOTE_SECONDS} s")
        got = record.get("values") or []
        if len(got) != WAVEFORM_SAMPLES:
            raise BenchError(f"ours, line {index + 1}: {len(got)} values, not {WAVEFORM_SAMPLES}")
        values.append(got)
    return values


def spawn(cmd: list) -> int:
    """posix_spawn with stdin, stdout and stderr on /dev/null; the pid."""
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    return os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)


def per_file(make_cmd, notes: list, at_once: int, label: str) -> dict:
    """One process per note, `at_once` of them running at a time: wall s of the whole loop, CPU s of all."""
    pending = iter(notes)
    running = {}
    cpu = 0.0
    started = time.perf_counter()

    def start_next() -> bool:
        note = next(pending, None)
        if note is None:
            return False
        cmd = make_cmd(note)
        running[spawn(cmd)] = cmd
        return True

    for _ in range(at_once):
        if not start_next():
            break
    while running:
        pid, status, usage = os.wait4(-1, 0)
        cmd = running.pop(pid, None)
        if cmd is None:
            continue
        cpu += usage.ru_utime + usage.ru_stime
        if os.waitstatus_to_exitcode(status) != 0:
            for other in running:
                os.wait4(other, 0)
            run_once(cmd, label)  # again, for its message: raises
            raise BenchError(f"{label} failed once (exit status {os.waitstatus_to_exitcode(status)}) and then "
                             f"ran: {shlex.join(cmd)}")
        start_next()
    wall = time.perf_counter() - started
    return {"files": len(notes), "wall_s": wall, "cpu_s": cpu, "files_per_s": len(notes) / wall}


def validate(commands: dict, notes: list, floor: pathlib.Path, cli: pathlib.Path) -> dict:
    """One untimed run of ours, its output read: one line per note in input order, no error, the values of every
    copy the same and equal to the floor's and the per-file CLI's."""
    started = time.perf_counter()
    per_note = output_values(capture(commands["ours"], "ours (validation run)"), notes)
    values = {}
    for index, got in enumerate(per_note):
        k = index % DISTINCT_NOTES
        if k in values and values[k] != got:
            raise BenchError(f"ours, line {index + 1}: values differ from the first copy of distinct note {k}")
        values.setdefault(k, got)
    worst_floor = worst_cli = 0.0
    for k in range(DISTINCT_NOTES):
        floor_values = json.loads(capture([str(floor), str(notes[k]), str(WAVEFORM_SAMPLES)], "the C floor"))
        cli_values = json.loads(capture([str(cli), "waveform", str(notes[k]), "--samples", str(WAVEFORM_SAMPLES)],
                                        "voicenote waveform FILE"))
        for name, other in (("the C floor", floor_values), ("voicenote waveform FILE", cli_values)):
            if len(other) != WAVEFORM_SAMPLES:
                raise BenchError(f"{name} printed {len(other)} values for {notes[k]}")
        worst_floor = max(worst_floor, max(abs(a - b) for a, b in zip(values[k], floor_values)))
        worst_cli = max(worst_cli, max(abs(a - b) for a, b in zip(values[k], cli_values)))
    if worst_floor > VALUE_TOLERANCE or worst_cli > VALUE_TOLERANCE:
        raise BenchError(f"ours' batch values differ from the C floor's by up to {worst_floor:.4g} and from the "
                         f"per-file CLI's by up to {worst_cli:.4g} (tolerance {VALUE_TOLERANCE:g})")
    return {"lines": len(per_note), "error_lines": 0, "in_input_order": True, "copies_identical": True,
            "max_abs_diff_vs_floor": worst_floor, "max_abs_diff_vs_per_file_cli": worst_cli,
            "seconds": time.perf_counter() - started}


def measure_memory(cli: pathlib.Path, folder: pathlib.Path, notes: list, jobs: int) -> dict:
    """GNU time peaks of ours on batches of MEMORY_LENGTHS notes (same -j) and of `voicenote version`, in turns."""
    commands = {"version": [str(cli), "version"]}
    for length in MEMORY_LENGTHS:
        listed = write_list(folder / f"list_{length}.txt", notes[:length])
        commands[str(length)] = [str(cli), "waveform", "--from", str(listed), "-j", str(jobs), "--samples",
                                 str(WAVEFORM_SAMPLES)]
    peaks = {key: [] for key in commands}
    for _ in range(PEAK_RUNS):
        for key, cmd in commands.items():
            peak = gnu_time_peak_kib(cmd)
            if peak is None:
                raise BenchError("GNU time (/usr/bin/time) is missing (`make deps` installs it)")
            peaks[key].append(peak)
    medians = {key: statistics.median(values) for key, values in peaks.items()}
    smallest, largest = str(MEMORY_LENGTHS[0]), str(MEMORY_LENGTHS[-1])
    growth_mib = (medians[largest] - medians[smallest]) / 1024
    over_version_mib = (medians[largest] - medians["version"]) / 1024
    limit = BUDGET_BATCH_MEMORY_PER_WORKER_MIB * jobs
    return {"runs": PEAK_RUNS, "commands": commands, "peak_kib": medians, "peak_kib_runs": peaks,
            "growth_mib": growth_mib, "growth_per_worker_mib": growth_mib / jobs,
            "over_version_mib": over_version_mib, "over_version_per_worker_mib": over_version_mib / jobs,
            "verdict": {"value": growth_mib, "limit": limit, "pass": growth_mib <= limit},
            "over_version_within": over_version_mib <= limit}


def batch_section(build: pathlib.Path, work: pathlib.Path, runs: int, per_file_notes: int) -> dict:
    """docs/performance.md batch: 1000 five-second notes, ours in one process against a process per file."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "pkg-config", os.environ.get("CC", "cc")])
    inputs = batch_inputs(build, work)
    folder, cli, notes, listed = inputs["folder"], inputs["cli"], inputs["notes"], inputs["listed"]
    floor = build_floor(folder)
    jobs = cpus()
    names = labels(jobs)
    per_file_notes = min(per_file_notes, BATCH_NOTES)
    sample = notes[:per_file_notes]
    commands = {
        "ours": ours_command(cli["path"], listed, jobs),
        "ours_j1": [str(cli["path"]), "waveform", "--from", str(listed), "-j", "1", "--samples",
                    str(WAVEFORM_SAMPLES)],
        "per_file": [str(cli["path"]), "waveform", "FILE", "--samples", str(WAVEFORM_SAMPLES)],
        "floor": [str(floor), "FILE", str(WAVEFORM_SAMPLES)],
    }

    def with_file(key):
        return lambda note: [str(note) if part == "FILE" else part for part in commands[key]]

    loops = {"per_file": (with_file("per_file"), 1), "per_file_parallel": (with_file("per_file"), jobs),
             "floor": (with_file("floor"), 1)}
    started = time.perf_counter()
    validation = validate(commands, notes, floor, cli["path"])  # also the warm-up of ours and the page cache
    for key, (make_cmd, at_once) in loops.items():  # warm-up: one distinct note each
        per_file(make_cmd, notes[:DISTINCT_NOTES], at_once, names[key])
    series = {key: [] for key in KEYS}
    for turn in range(runs):
        for key in ("ours", "ours_j1"):
            result = run_once(commands[key], names[key])
            series[key].append({"files": BATCH_NOTES, "wall_s": result["wall_s"], "cpu_s": result["cpu_s"],
                                "files_per_s": BATCH_NOTES / result["wall_s"], "peak_kib": result["peak_kib"]})
        for key, (make_cmd, at_once) in loops.items():
            series[key].append(per_file(make_cmd, sample, at_once, names[key]))
        print(f"batch turn {turn + 1}/{runs}: " + ", ".join(
            f"{key} {series[key][-1]['files_per_s']:.0f} files/s" for key in KEYS), flush=True)
    memory = measure_memory(cli["path"], folder, notes, jobs)
    section = {"notes": BATCH_NOTES, "distinct_notes": DISTINCT_NOTES, "note_seconds": NOTE_SECONDS,
               "jobs": jobs, "runs": runs, "per_file_notes": per_file_notes, "commands": commands,
               "labels": names, "validation": validation, "series": {}, "ratios": {}, "memory": memory,
               "cli": {k: str(v) for k, v in cli.items()}, "harness_peak_kib": harness_peak_kib()}
    for key, rows in series.items():
        section["series"][key] = {
            "files": rows[0]["files"], "wall_s": summary([r["wall_s"] for r in rows]),
            "cpu_s": summary([r["cpu_s"] for r in rows]),
            "cpu_ms_per_file": summary([r["cpu_s"] / r["files"] * 1e3 for r in rows]),
            "files_per_s": summary([r["files_per_s"] for r in rows]), "runs": rows}
    for ref in ("ours_j1", "per_file", "per_file_parallel", "floor"):
        ratios = [a["files_per_s"] / b["files_per_s"] for a, b in zip(series["ours"], series[ref])]
        section["ratios"][f"ours/{ref}"] = dict(summary(ratios), runs=ratios)
    value = section["ratios"]["ours/per_file"]["median"]
    section["verdict"] = {"value": value, "limit": BUDGET_BATCH_VS_PROCESS_PER_FILE,
                          "pass": value >= BUDGET_BATCH_VS_PROCESS_PER_FILE}
    print(f"batch: n={runs}, ours {section['series']['ours']['files_per_s']['median']:.0f} files/s, "
          f"{value:.2f}x a process per file (budget ≥ {BUDGET_BATCH_VS_PROCESS_PER_FILE:g}x: "
          f"{'pass' if section['verdict']['pass'] else 'MISS'}), "
          f"{section['ratios']['ours/floor']['median']:.2f}x the C floor per file; peak RSS "
          f"{memory['peak_kib'][str(MEMORY_LENGTHS[-1])] / 1024:.1f} MiB for {MEMORY_LENGTHS[-1]} notes, "
          f"{memory['growth_mib']:+.2f} MiB over {MEMORY_LENGTHS[0]} notes (budget ≤ "
          f"{memory['verdict']['limit']:g} MiB: {'pass' if memory['verdict']['pass'] else 'MISS'}) "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    return section


def batch_markdown(section: dict) -> str:
    jobs, verdict, memory = section["jobs"], section["verdict"], section["memory"]
    names = section["labels"]
    sampled = section["per_file_notes"] < section["notes"]
    lines = [
        f"Batch waveform: {section['notes']} Ogg Opus notes of {section['note_seconds']} s "
        f"({section['distinct_notes']} distinct speech notes cut from the corpus's 600 s PCM, each copied "
        f"{section['notes'] // section['distinct_notes']} times), {WAVEFORM_SAMPLES} values each: ours, one "
        f"`voicenote waveform --from LIST -j {jobs}` process (-j = the CPUs this process may use; also run with "
        f"-j 1), against one process per file (posix_spawn from the harness, one after the other, or {jobs} at a "
        "time) and against the C floor (bench/floor_waveform.c) once per file. "
        + (f"The per-file loops ran over the first {section['per_file_notes']} files (--quick); their files/s is "
           "that sample's rate. " if sampled else "Every run covers all the files. ")
        + "Runs in alternating turns after an untimed validation run; figures are medians (min–max), ratios medians "
        f"(min–max) of the per-turn ratios of files/s. Budget (docs/performance.md): ours ≥ "
        f"{verdict['limit']:g}x the files/s of a process per file.",
        "",
        "| run | n | files | wall s | files/s | CPU ms per file | ours ÷ this, files/s | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, entry in section["series"].items():
        if key == "ours":
            ratio, budget = "—", "—"
        elif key == "ours_j1":
            ratio, budget = ratio_text(section["ratios"]["ours/ours_j1"]) + " (the pool's speed-up)", "reported"
        else:
            ratio = ratio_text(section["ratios"][f"ours/{key}"])
            budget = (f"{'pass' if verdict['pass'] else '**miss**'} (≥ {verdict['limit']:g}x)" if key == "per_file"
                      else "reported")
        lines.append(f"| {names[key]} | {section['runs']} | {entry['files']} | {spread(entry['wall_s'], secs)} "
                     f"| {spread(entry['files_per_s'], lambda v: f'{v:.0f}')} "
                     f"| {entry['cpu_ms_per_file']['median']:.2f} | {ratio} | {budget} |")
    series = section["series"]
    per_process = series["per_file"]["cpu_ms_per_file"]["median"]
    in_batch = series["ours"]["cpu_ms_per_file"]["median"]
    lines += ["", f"What sets the ratio: a `voicenote waveform FILE` process costs {per_process:.1f} ms of CPU per "
                  f"file (start-up and the note's work); in the batch a note costs {in_batch:.1f} ms "
                  f"(-j {jobs}; {series['ours_j1']['cpu_ms_per_file']['median']:.1f} ms with -j 1; the C floor's "
                  f"whole process {series['floor']['cpu_ms_per_file']['median']:.1f} ms): the batch saves the "
                  f"start-up only, so on {jobs} busy cores it gets about {jobs} × {per_process:.1f} / "
                  f"{in_batch:.1f} = {jobs * per_process / in_batch:.2f}x a process per file; "
                  f"{verdict['limit']:g}x would need a note in the batch to cost at most {jobs} × {per_process:.1f} / "
                  f"{verdict['limit']:g} = {jobs * per_process / verdict['limit']:.1f} ms."]
    peaks = memory["peak_kib"]
    lengths = [key for key in peaks if key != "version"]
    mem = memory["verdict"]
    lines += [
        "",
        f"Peak RSS of ours (GNU time, median of {memory['runs']} runs in turns; -j {jobs}) by the batch's length, and "
        f"of `voicenote version` (the process baseline: {peaks['version'] / 1024:.1f} MiB). Budget: the "
        f"{lengths[-1]}-note batch ≤ {BUDGET_BATCH_MEMORY_PER_WORKER_MIB:g} MiB per worker ({mem['limit']:g} MiB) "
        f"over the {lengths[0]}-note batch.",
        "",
        "| notes | peak RSS MiB | over the " + lengths[0] + "-note batch MiB | over `voicenote version` MiB | budget |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key in lengths:
        growth = (peaks[key] - peaks[lengths[0]]) / 1024
        over = (peaks[key] - peaks["version"]) / 1024
        budget = (f"{'pass' if mem['pass'] else '**miss**'} ({growth / jobs:+.2f} MiB per worker, ≤ "
                  f"{BUDGET_BATCH_MEMORY_PER_WORKER_MIB:g})" if key == lengths[-1] else "—")
        lines.append(f"| {key} | {peaks[key] / 1024:.1f} | {growth:+.2f} | {over:+.2f} ({over / jobs:+.2f} per "
                     f"worker) | {budget} |")
    check = section["validation"]
    cli = section["cli"]
    lines += [
        "",
        f"Validation (one untimed run of ours, its output read): {check['lines']} lines in input order, "
        f"{check['error_lines']} error lines, every copy of a note with the same values; values against the C floor's "
        f"max abs difference {check['max_abs_diff_vs_floor']:.4g}, against the per-file CLI's "
        f"{check['max_abs_diff_vs_per_file_cli']:.4g} (≤ {VALUE_TOLERANCE:g}).",
        f"CLI measured: a copy of {cli['source']} built {cli['source_mtime']}, sha256 {cli['sha256'][:16]}….",
    ]
    return "\n".join(lines) + "\n"
