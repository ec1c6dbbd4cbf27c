"""Section `hostile`: `voicenote info` of 21 MB of ADTS frames that are all header (7 bytes, no payload: 3 million
frames no decoder accepts) against `voicenote info` of a normal ADTS file (the 5 s note as 64 kbit/s AAC), whole
processes in turns, peak RSS by GNU time (medians). Budget: ≤ 5 MiB over the normal file's peak (the ≤ 5 MiB
analysis budget at any length; before FFmpeg's probing was bounded this took 420 MB)."""
import pathlib

from common.budgets import BUDGET_OVER_BASELINE_MIB
from common.corpus import make_corpus
from common.errors import BenchError
from common.memory import gnu_time_run
from common.process import capture, require_tools
from common.stats import summary

# Hostile input: ADTS frames of 7 bytes, header only (AAC LC, 48 kHz, mono, frame length 7, no payload).
HOSTILE_ADTS_FRAME = bytes([0xFF, 0xF1, 0x4C, 0x40, 0x00, 0xFF, 0xFC])
HOSTILE_ADTS_FRAMES = 3_000_000               # 21 MB
HOSTILE_RUNS = 5
QUICK_HOSTILE_RUNS = 2


def hostile_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """`voicenote info` of headers-only ADTS frames against a normal ADTS file: peak RSS by GNU time, in turns."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffmpeg"])
    cli = build / "bin" / "voicenote"
    if not cli.exists():
        raise BenchError(f"{cli} is missing: run `make build` first")
    corpus = make_corpus(work)
    folder = work / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    normal = folder / "speech_5s.aac"
    if not normal.exists():
        capture(["ffmpeg", "-nostdin", "-v", "error", "-i", str(corpus / "speech_5s.ogg"), "-c:a", "aac", "-b:a",
                 "64k", "-f", "adts", str(normal)], "ffmpeg (the normal ADTS file)")
    hostile = folder / "headers_only.aac"
    if not hostile.exists() or hostile.stat().st_size != len(HOSTILE_ADTS_FRAME) * HOSTILE_ADTS_FRAMES:
        hostile.write_bytes(HOSTILE_ADTS_FRAME * HOSTILE_ADTS_FRAMES)
    files = {"normal": normal, "hostile": hostile}
    series = {key: [] for key in files}
    for _ in range(runs):
        for key, path in files.items():
            series[key].append(gnu_time_run([str(cli), "info", str(path)]))
    if any(run["exit"] != 0 for run in series["normal"]):
        raise BenchError(f"voicenote info {normal} failed: {series['normal'][-1]['message']}")
    peaks = {key: summary([run["peak_kib"] for run in rows]) for key, rows in series.items()}
    over_mib = (peaks["hostile"]["median"] - peaks["normal"]["median"]) / 1024
    section = {
        "runs": runs,
        "files": {key: {"path": str(path), "size_bytes": path.stat().st_size} for key, path in files.items()},
        "peak_kib": peaks,
        "hostile_exit": sorted({run["exit"] for run in series["hostile"]}),
        "hostile_message": series["hostile"][-1]["message"].replace(str(hostile), hostile.name),
        "over_normal_mib": over_mib,
        "budget_mib": BUDGET_OVER_BASELINE_MIB,
        "pass": over_mib <= BUDGET_OVER_BASELINE_MIB,
    }
    print(f"hostile: info of {hostile.name} {peaks['hostile']['median'] / 1024:.1f} MiB, of {normal.name} "
          f"{peaks['normal']['median'] / 1024:.1f} MiB", flush=True)
    return section


def hostile_markdown(section: dict) -> str:
    files, peaks = section["files"], section["peak_kib"]

    def mib(entry: dict) -> str:
        return f"{entry['median'] / 1024:.1f} ({entry['min'] / 1024:.1f}–{entry['max'] / 1024:.1f})"
    verdict = "pass" if section["pass"] else "miss"
    return "\n".join([
        "Hostile input: `voicenote info` (our CLI) of ADTS frames that are all header (7 bytes, no payload), "
        "against `voicenote info` of a normal ADTS file (the 5 s note, 64 kbit/s AAC). Whole processes in turns, "
        "peak RSS by GNU time, medians (min–max). Budget: ≤ "
        f"{section['budget_mib']:g} MiB over the normal file, the analysis budget at any length.",
        "",
        "| file | size | n | peak RSS MiB | normal file | its peak RSS MiB | over normal MiB | result | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| headers-only ADTS frames | {files['hostile']['size_bytes']:,} B | {section['runs']} "
        f"| {mib(peaks['hostile'])} | {files['normal']['size_bytes']:,} B | {mib(peaks['normal'])} "
        f"| {section['over_normal_mib']:.2f} | exit {', '.join(map(str, section['hostile_exit']))}: "
        f"{section['hostile_message'].replace('|', '/')} | {verdict} |",
    ]) + "\n"
