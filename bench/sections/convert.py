"""Section `convert` (docs/player.md "Converting a note"): the 60 s speech note (speech_60s.ogg, bench/make_corpus.sh)
written again at 2x with its pitch kept, as Ogg Opus at 32 kbit/s, by two whole processes run side by side:
    ours     voicenote convert IN OUT --rate 2: the player's decoder, libsonic, the recorder's encoder (libopusenc,
             complexity 10, 20 ms frames), the output synced and renamed over OUT
    ffmpeg   ffmpeg -nostdin -v error -y -i IN -filter:a atempo=2 -c:a libopus -b:a 32k -application voip OUT: the same
             job (decode, atempo's time stretch with the pitch kept, libopus at complexity 10, 20 ms, VBR)
Our CLI is a copy of build/bin/voicenote in WORK/convert, taken once (a `make build` during the bench replaces the
binary; every turn measures the same one, whose sha256 is recorded). After one untimed warm-up of each they run in
turns (ours ffmpeg ours ffmpeg ...), each into a file deleted before it runs. Wall time is taken around each child,
CPU time (user + sys, every thread) and peak RSS (ru_maxrss) from os.wait4; a peak hidden below the harness's own
high-water mark (which a child inherits) is read by GNU time instead, median of 3 untimed runs. Each run of ours is
divided by ffmpeg's of the same turn; the table gives the median of those ratios and their min-max. Budget: ours
≤ 1.5x ffmpeg's wall time.
Every output is checked, or the section fails (BenchError): its exact length (last granule minus pre-skip) 30 s
± 2 %. The last turn's two outputs are also checked against the input once, decoded by ffmpeg to 16 kHz mono: Opus
(ffprobe), about 32 kbit/s (± 25 %, Ogg pages included), the pitch kept (the median zero-crossing rate of the 20 ms
frames louder than -35 dBFS within 0.7–1.4x the input's: a plain 2x speed-up doubles it) and the whole note there in
order (the 100-bucket level envelope correlated ≥ 0.9 with the input's: a cut to 30 s is not)."""
import array
import hashlib
import json
import math
import pathlib
import statistics
import subprocess
import time

from common.audio import PCM_RATE
from common.budgets import BUDGET_CONVERT_VS_FFMPEG
from common.corpus import make_corpus
from common.errors import BenchError
from common.library import stable_copy
from common.memory import gnu_time_peak_kib, harness_peak_kib
from common.ogg import opus_frames_48k
from common.process import capture, require_tools, run_once
from common.stats import summary
from common.text import ratio_text, secs, spread

CONVERT_RUNS = 5
QUICK_CONVERT_RUNS = 2
CONVERT_SECONDS = 60                          # speech_60s.ogg (bench/make_corpus.sh)
CONVERT_RATE = 2
CONVERT_KBPS = 32
DURATION_TOLERANCE = 0.02                     # each output lasts CONVERT_SECONDS / CONVERT_RATE ± 2 %
BITRATE_TOLERANCE = 0.25                      # file bytes over its length within ± 25 % of CONVERT_KBPS
ZCR_RANGE = (0.7, 1.4)                        # output / input median zero-crossing rate (2x without pitch kept: 1.7)
ENVELOPE_MIN_CORRELATION = 0.9                # output's level envelope against the input's (the first 30 s: 0.2)
CHECK_RATE = 16000                            # the checks decode at 16 kHz mono
CHECK_FRAME = 320                             # 20 ms at 16 kHz
CHECK_LOUD_DBFS = -35.0                       # frames at least this loud count for the zero-crossing rate
CHECK_BUCKETS = 100
PEAK_RUNS = 3
LABELS = {
    "ours": f"ours: voicenote convert --rate {CONVERT_RATE}",
    "ffmpeg": f"ffmpeg atempo={CONVERT_RATE}, libopus {CONVERT_KBPS}k",
}


def snapshot_cli(build: pathlib.Path, folder: pathlib.Path) -> dict:
    """Copies build/bin/voicenote into `folder` (checked: same bytes, source unchanged while copying) and returns the
    copy with its SHA-256 and the source's mtime."""
    cli = build / "bin" / "voicenote"
    if not cli.exists():
        raise BenchError(f"{cli} is missing: run `make build` first")
    copy = stable_copy(cli, folder / "voicenote")
    before = cli.stat()
    digest = hashlib.sha256()
    with open(copy, "rb") as f:  # in blocks: the harness's own peak RSS is inherited by every child it starts
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return {"path": copy, "source": str(cli), "sha256": digest.hexdigest(),
            "source_mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(before.st_mtime))}


def convert_commands(cli: pathlib.Path, note: pathlib.Path, outputs: dict) -> dict:
    """The two commands, in turn order."""
    return {
        "ours": [str(cli), "convert", str(note), str(outputs["ours"]), "--rate", str(CONVERT_RATE)],
        "ffmpeg": ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(note), "-filter:a", f"atempo={CONVERT_RATE}",
                   "-c:a", "libopus", "-b:a", f"{CONVERT_KBPS}k", "-application", "voip", str(outputs["ffmpeg"])],
    }


def output_seconds(path: pathlib.Path, label: str) -> float:
    """The exact length of one output (last granule minus pre-skip), checked against CONVERT_SECONDS / rate."""
    if not path.exists():
        raise BenchError(f"{label} wrote no {path}")
    seconds = opus_frames_48k(path) / PCM_RATE
    expected = CONVERT_SECONDS / CONVERT_RATE
    if abs(seconds - expected) > DURATION_TOLERANCE * expected:
        raise BenchError(f"{label}: {path.name} lasts {seconds:.3f} s, not {expected:g} s ± "
                         f"{DURATION_TOLERANCE:.0%}: it did not convert the note at {CONVERT_RATE}x")
    return seconds


def speech_profile(path: pathlib.Path) -> dict:
    """The file decoded by ffmpeg to 16 kHz mono S16, read 20 ms at a time (the harness's own peak RSS is inherited
    by every child it starts): the median zero-crossing rate of the loud frames, and the level envelope."""
    proc = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "s16le", "-ac", "1", "-ar",
                             str(CHECK_RATE), "-"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    loud = (32768 * 10 ** (CHECK_LOUD_DBFS / 20)) ** 2
    energies, crossings = [], []
    while True:
        data = proc.stdout.read(CHECK_FRAME * 2)
        if len(data) < CHECK_FRAME * 2:
            break
        frame = array.array("h")
        frame.frombytes(data)
        energy = sum(v * v for v in frame) / CHECK_FRAME
        energies.append(energy)
        if energy >= loud:
            crossings.append(sum((a < 0) != (b < 0) for a, b in zip(frame, frame[1:])) * CHECK_RATE / CHECK_FRAME / 2)
    stderr = proc.stderr.read().decode(errors="replace")
    if proc.wait() != 0 or len(energies) < CHECK_BUCKETS or not crossings:
        raise BenchError(f"ffmpeg could not decode {path} for the checks ({len(energies)} frames):\n{stderr}")
    per = len(energies) / CHECK_BUCKETS
    envelope = []
    for i in range(CHECK_BUCKETS):
        part = energies[int(i * per):int((i + 1) * per)]
        envelope.append(round(10 * math.log10(max(sum(part) / len(part) / 32768 ** 2, 1e-10)), 2))
    return {"decoded_s": len(energies) * CHECK_FRAME / CHECK_RATE, "loud_frames": len(crossings),
            "zero_crossing_hz": statistics.median(crossings), "envelope_db": envelope}


def verify_outputs(note: pathlib.Path, outputs: dict) -> dict:
    """Once, on the last turn's files: codec, bitrate, pitch kept and the whole note in order, against the input."""
    reference = speech_profile(note)
    files = {}
    for key, path in outputs.items():
        probe = json.loads(capture(["ffprobe", "-v", "error", "-show_entries",
                                    "format=duration:stream=codec_name,sample_rate,channels", "-of", "json",
                                    str(path)], f"ffprobe {path.name}"))
        stream = (probe.get("streams") or [{}])[0]
        seconds = opus_frames_48k(path) / PCM_RATE
        profile = speech_profile(path)
        info = {"size_bytes": path.stat().st_size, "duration_s": seconds,
                "ffprobe_duration_s": float(probe["format"]["duration"]), "codec": stream.get("codec_name"),
                "sample_rate": int(stream.get("sample_rate") or 0), "channels": stream.get("channels"),
                "kbit_s": path.stat().st_size * 8 / seconds / 1e3,
                "zero_crossing_hz": profile["zero_crossing_hz"], "loud_frames": profile["loud_frames"],
                "zero_crossing_vs_input": profile["zero_crossing_hz"] / reference["zero_crossing_hz"],
                "envelope_correlation": statistics.correlation(profile["envelope_db"], reference["envelope_db"])}
        problems = []
        if info["codec"] != "opus":
            problems.append(f"codec {info['codec']}, not opus")
        if abs(info["kbit_s"] / CONVERT_KBPS - 1) > BITRATE_TOLERANCE:
            problems.append(f"{info['kbit_s']:.1f} kbit/s, not {CONVERT_KBPS} ± {BITRATE_TOLERANCE:.0%}")
        if not ZCR_RANGE[0] <= info["zero_crossing_vs_input"] <= ZCR_RANGE[1]:
            problems.append(f"zero-crossing rate {info['zero_crossing_vs_input']:.2f}x the input's, not within "
                            f"{ZCR_RANGE[0]}–{ZCR_RANGE[1]}x: the pitch was not kept")
        if info["envelope_correlation"] < ENVELOPE_MIN_CORRELATION:
            problems.append(f"level envelope correlated {info['envelope_correlation']:.3f} with the input's, below "
                            f"{ENVELOPE_MIN_CORRELATION}: not the whole note in order")
        if problems:
            raise BenchError(f"{LABELS[key]}: {path.name}: " + "; ".join(problems))
        files[key] = info
    return {"input": {"path": str(note), "duration_s": opus_frames_48k(note) / PCM_RATE,
                      "zero_crossing_hz": reference["zero_crossing_hz"], "loud_frames": reference["loud_frames"]},
            "files": files}


def run_convert_turn(commands: dict, outputs: dict) -> dict:
    """One run of each, each into a deleted output; every output's length checked."""
    runs = {}
    for key, cmd in commands.items():
        outputs[key].unlink(missing_ok=True)
        runs[key] = run_once(cmd, LABELS[key])
        runs[key]["output_s"] = output_seconds(outputs[key], LABELS[key])
    return runs


def convert_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """docs/performance.md convert: the 60 s note at 2x to Opus 32 kbit/s, ours against ffmpeg, in turns."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffmpeg", "ffprobe"])
    corpus = make_corpus(work)
    note = corpus / f"speech_{CONVERT_SECONDS}s.ogg"
    if abs(opus_frames_48k(note) / PCM_RATE - CONVERT_SECONDS) > DURATION_TOLERANCE * CONVERT_SECONDS:
        raise BenchError(f"{note}: {opus_frames_48k(note) / PCM_RATE:.3f} s, not {CONVERT_SECONDS} s")
    folder = work / "convert"
    folder.mkdir(parents=True, exist_ok=True)
    cli = snapshot_cli(build, folder)
    outputs = {"ours": folder / "ours.ogg", "ffmpeg": folder / "ffmpeg.ogg"}
    commands = convert_commands(cli["path"], note, outputs)
    started = time.perf_counter()
    run_convert_turn(commands, outputs)
    series = {key: [] for key in commands}
    for turn in range(runs):
        results = run_convert_turn(commands, outputs)
        for key, result in results.items():
            series[key].append({k: result[k] for k in ("wall_s", "cpu_s", "user_s", "sys_s", "peak_kib", "output_s")})
        print(f"convert turn {turn + 1}/{runs}: " + ", ".join(
            f"{LABELS[key]} {series[key][-1]['wall_s']:.2f} s" for key in series), flush=True)
    check = verify_outputs(note, outputs)
    harness_kib = harness_peak_kib()
    section = {"input": str(note), "seconds_of_audio": CONVERT_SECONDS, "rate": CONVERT_RATE, "kbit_s": CONVERT_KBPS,
               "runs": runs, "commands": commands, "series": {}, "ratios": {}, "check": check,
               "cli": {k: str(v) for k, v in cli.items()}, "harness_peak_kib": harness_kib}
    # Peaks hidden below the harness's own high-water mark: GNU time, median of PEAK_RUNS untimed runs in turns.
    hidden = [key for key, rows in series.items()
              if statistics.median(r["peak_kib"] for r in rows) <= harness_kib + 256]
    gnu = {key: [] for key in hidden}
    for _ in range(PEAK_RUNS if hidden else 0):
        for key in hidden:
            gnu[key].append(gnu_time_peak_kib(commands[key]))
    baselines = {"ours": [str(cli["path"]), "version"], "ffmpeg": ["ffmpeg", "-nostdin", "-version"]}
    for key, rows in series.items():
        entry = {"wall_s": summary([r["wall_s"] for r in rows]), "cpu_s": summary([r["cpu_s"] for r in rows]),
                 "user_s": summary([r["user_s"] for r in rows]), "sys_s": summary([r["sys_s"] for r in rows]),
                 "runs": rows}
        if key in hidden:
            if None in gnu[key]:
                raise BenchError(f"the peak RSS of {LABELS[key]} is below what os.wait4 can see here, and GNU time "
                                 "is not installed")
            entry["peak_kib"] = {"value": statistics.median(gnu[key]), "from": f"gnu time, median of {PEAK_RUNS}"}
        else:
            entry["peak_kib"] = {"value": statistics.median(r["peak_kib"] for r in rows), "from": "os.wait4, median"}
        base = [gnu_time_peak_kib(baselines[key]) for _ in range(PEAK_RUNS)]
        entry["baseline"] = {"cmd": baselines[key],
                             "peak_kib": statistics.median(base) if None not in base else None}
        section["series"][key] = entry
    for measure in ("wall_s", "cpu_s"):
        ratios = [a[measure] / max(b[measure], 1e-9) for a, b in zip(series["ours"], series["ffmpeg"])]
        section["ratios"][f"ours/ffmpeg {measure[:-2]}"] = dict(summary(ratios), runs=ratios)
    value = section["ratios"]["ours/ffmpeg wall"]["median"]
    section["verdict"] = {"value": value, "limit": BUDGET_CONVERT_VS_FFMPEG, "pass": value <= BUDGET_CONVERT_VS_FFMPEG}
    for path in outputs.values():
        path.unlink(missing_ok=True)
    print(f"convert: n={runs}, ours/ffmpeg wall {value:.2f} (budget ≤ {BUDGET_CONVERT_VS_FFMPEG}x: "
          f"{'pass' if section['verdict']['pass'] else 'MISS'}); peak RSS ours "
          f"{section['series']['ours']['peak_kib']['value'] / 1024:.1f} MiB, ffmpeg "
          f"{section['series']['ffmpeg']['peak_kib']['value'] / 1024:.1f} MiB "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    return section


def convert_markdown(section: dict) -> str:
    check = section["check"]
    verdict = section["verdict"]
    lines = [
        f"Convert: the {section['seconds_of_audio']} s speech note (speech_{section['seconds_of_audio']}s.ogg, "
        f"bench/make_corpus.sh) written again at {section['rate']}x with its pitch kept, as Ogg Opus at "
        f"{section['kbit_s']} kbit/s: ours `voicenote convert IN OUT --rate {section['rate']}` (libsonic, libopusenc "
        f"at complexity 10) against `ffmpeg -i IN -filter:a atempo={section['rate']} -c:a libopus -b:a "
        f"{section['kbit_s']}k -application voip OUT`. Whole processes after a warm-up of each, in turns; times are "
        "medians (min–max), ratios medians (min–max) of the per-turn ratios. Budget (docs/performance.md): "
        f"ours ≤ {verdict['limit']}x ffmpeg's wall time.",
        "",
        "| run | n | wall s | CPU s | user s | sys s | peak RSS MiB | baseline MiB | ours / ffmpeg, wall "
        "| ours / ffmpeg, CPU | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    footnote = False
    for key, entry in section["series"].items():
        peak = entry["peak_kib"]
        peak_text = f"{peak['value'] / 1024:.1f}"
        if not peak["from"].startswith("os.wait4"):
            peak_text += "†"
            footnote = True
        base = entry["baseline"]["peak_kib"]
        base_text = "?" if base is None else f"{base / 1024:.1f}"
        if key == "ours":
            vs_wall = ratio_text(section["ratios"]["ours/ffmpeg wall"])
            vs_cpu = ratio_text(section["ratios"]["ours/ffmpeg cpu"])
            budget = f"{'pass' if verdict['pass'] else '**miss**'} (≤ {verdict['limit']}x)"
        else:
            vs_wall = vs_cpu = budget = "—"
        lines.append(f"| {LABELS[key]} | {section['runs']} | {spread(entry['wall_s'], secs)} "
                     f"| {spread(entry['cpu_s'], secs)} | {secs(entry['user_s']['median'])} "
                     f"| {secs(entry['sys_s']['median'])} | {peak_text} | {base_text} | {vs_wall} | {vs_cpu} "
                     f"| {budget} |")
    lines.append("")
    if footnote:
        lines.append(f"† below the harness's own peak ({section['harness_peak_kib'] / 1024:.1f} MiB), which a "
                     "child's ru_maxrss inherits: read by GNU time instead, median of 3 untimed runs.")
    lines.append("Baseline: the same binary doing no work (`voicenote version`, `ffmpeg -version`), GNU time, median "
                 "of 3.")
    source = check["input"]
    lines += [
        "",
        f"Outputs of the last turn, decoded by ffmpeg at 16 kHz for the checks (every turn's length was checked: "
        f"{section['seconds_of_audio'] / section['rate']:g} s ± {DURATION_TOLERANCE:.0%}). The input: "
        f"{source['duration_s']:.3f} s, median zero-crossing rate {source['zero_crossing_hz']:.0f} Hz over its "
        f"{source['loud_frames']} frames louder than {CHECK_LOUD_DBFS:g} dBFS.",
        "",
        "| output | exact duration s | ffprobe duration s | codec | bytes | kbit/s | zero-crossing rate Hz "
        "| vs input | level envelope vs input (correlation) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, info in check["files"].items():
        lines.append(f"| {LABELS[key]} | {info['duration_s']:.3f} | {info['ffprobe_duration_s']:.3f} "
                     f"| {info['codec']}, {info['sample_rate']} Hz, {info['channels']} ch | {info['size_bytes']:,} "
                     f"| {info['kbit_s']:.1f} | {info['zero_crossing_hz']:.0f} | {info['zero_crossing_vs_input']:.2f} "
                     f"(pitch kept: {ZCR_RANGE[0]}–{ZCR_RANGE[1]}) | {info['envelope_correlation']:.3f} "
                     f"(≥ {ENVELOPE_MIN_CORRELATION}) |")
    cli = section["cli"]
    lines += ["", f"CLI measured: a copy of {cli['source']} built {cli['source_mtime']}, "
                  f"sha256 {cli['sha256'][:16]}…."]
    return "\n".join(lines) + "\n"
