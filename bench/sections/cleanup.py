"""Section `cleanup` (docs/recorder.md, "Voice cleanup"): a clean voice from a noisy room, and what it costs.

Speech (espeak-ng: four voices, four sentences, at −26 dBFS) after 2 s of noise alone, the noise going on under it:
pink noise, a fan (brown noise and a 120 Hz hum, tremolo) and babble (five other espeak-ng voices talking at
once), at 0, 5 and 10 dB SNR. Each mix is recorded twice by bench/record_file.c through a virtual microphone
(ALSA's file plugin), with voice cleanup off and on; the takes are decoded by FFmpeg and compared with the clean
speech by PyPI's `pesq` (wide-band) and `pystoi` (STOI), at 16 kHz, the first 2 s left out of the speech scores.
Budgets: PESQ-wb better by ≥ 0.5 on average, STOI no lower (within 0.005), the noise-only second (the lead's
second second, once the noise estimate has settled) ≥ 15 dB lower. A quiet voice: the same speech at −45 dBFS
and at −26 dBFS (over a −80 dBFS hiss) recorded with cleanup: their levels within ±3 dB. CPU: a 120 s noisy note
recorded with and without cleanup in turns (CPU from wait4); cleanup's share of a core at 48 kHz ≤ 10 %."""
import os
import pathlib
import shlex
import subprocess

from common.budgets import (BUDGET_CLEANUP_CPU_SHARE, BUDGET_CLEANUP_NOISE_DB, BUDGET_CLEANUP_PESQ_GAIN,
                            BUDGET_CLEANUP_QUIET_DB, BUDGET_CLEANUP_STOI_DROP)
from common.errors import BenchError
from common.library import snapshot_library
from common.paths import HERE, REPO
from common.process import capture, require_tools, run_once
from common.stats import summary

CLEANUP_RUNS = 5
QUICK_CLEANUP_RUNS = 2
RATE = 48000
LEAD_S = 2.0
CPU_SECONDS = 120
SENTENCES = (
    ("en-us", "The meeting moved to Thursday afternoon, half past three, in the small room upstairs."),
    ("en-gb", "Can you pick up some bread and milk on the way home? The shop closes at eight."),
    ("en-us+f3", "I'm running a bit late, so start without me and I'll catch up at the station."),
    ("en-gb+m3", "Happy birthday! I hope you have a wonderful day, and I'll call you tonight."),
)
BABBLE_VOICES = ("en-us+m7", "en-gb+f4", "en-us+m2", "en-gb+f2", "en-us+m5")
NOISES = ("pink", "fan", "babble")
SNRS = (0, 5, 10)


def numpy():
    """numpy, pesq and pystoi (PyPI; `make deps`)."""
    try:
        import numpy as np
        from pesq import pesq
        from pystoi import stoi
    except ImportError as error:
        raise BenchError(f"section cleanup needs numpy, pesq and pystoi from PyPI (make deps): {error}") from error
    return np, pesq, stoi


def sox_raw(arguments: list, output: pathlib.Path, effects: list = ()) -> None:
    capture(["sox", "-R"] + arguments + ["-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r",
                                          str(RATE), str(output)] + list(effects), f"sox → {output.name}")


def read_raw(path: pathlib.Path):
    np, _, _ = numpy()
    return np.fromfile(path, dtype="<i2").astype(np.float64)


def write_raw(path: pathlib.Path, samples) -> None:
    np, _, _ = numpy()
    np.clip(np.round(samples), -32768, 32767).astype("<i2").tofile(path)


def rms_db(samples) -> float:
    np, _, _ = numpy()
    return float(10 * np.log10(np.mean(samples ** 2) + 1e-9) - 20 * np.log10(32768))


def at_db(samples, decibels: float):
    return samples * 10 ** ((decibels - rms_db(samples)) / 20)


def speech(folder: pathlib.Path, voice: str, text: str, name: str):
    wav = folder / f"{name}.wav"
    capture(["espeak-ng", "-v", voice, "-w", str(wav), text], f"espeak-ng {name}")
    sox_raw([str(wav)], folder / f"{name}.raw", ["rate", "-v", "48k"])
    return read_raw(folder / f"{name}.raw")


def noise(folder: pathlib.Path, kind: str, frames: int):
    np, _, _ = numpy()
    raw = folder / f"noise_{kind}.raw"
    seconds = str(frames / RATE + 1)
    if kind == "pink":
        sox_raw(["-n"], raw, ["synth", seconds, "pinknoise"])
    elif kind == "fan":
        sox_raw(["-n"], raw, ["synth", seconds, "brownnoise", "synth", seconds, "sine", "mix", "120", "lowpass",
                              "1500", "tremolo", "25", "20"])
    else:
        voices = []
        for index, voice in enumerate(BABBLE_VOICES):
            said = speech(folder, voice, "Well I told him the whole story, and then we went to the market to buy "
                          "some fish and a lot of bread for everybody. " * 2, f"babble{index}")
            voices.append(np.tile(said, frames // len(said) + 2)[index * 12345: index * 12345 + frames])
        write_raw(raw, sum(voices))
    return read_raw(raw)[:frames]


def build_record_file(build: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    cc_name = os.environ.get("CC", "cc")
    require_tools(["espeak-ng", "sox", "ffmpeg", cc_name])
    lib = snapshot_library(build, work)["lib"]
    program = work / "cleanup_record_file"
    capture(shlex.split(cc_name) + ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include"),
                                    "-o", str(program), str(HERE / "record_file.c"), "-L", str(lib),
                                    f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"], "building record_file.c")
    return program


def record(program: pathlib.Path, raw: pathlib.Path, seconds: float, folder: pathlib.Path, clean: bool) -> dict:
    """One take of `raw` (`seconds` long) with cleanup `clean`; the take decoded to 48 kHz mono samples, and CPU."""
    takes = folder / "takes"
    takes.mkdir(parents=True, exist_ok=True)
    for old in takes.iterdir():
        old.unlink()
    done = run_once([str(program), str(takes), str(raw), f"{seconds:.6f}", str(seconds + 120)]
                    + (["clean"] if clean else []), "record_file" + (" clean" if clean else ""), timeout=seconds + 180)
    (take,) = [path for path in takes.iterdir() if path.suffix == ".ogg"]
    decoded = folder / "take.raw"
    capture(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", str(take), "-f", "s16le", "-ac", "1", "-ar",
             str(RATE), str(decoded)], "ffmpeg decode")
    return {"samples": read_raw(decoded), "cpu_s": done["cpu_s"]}


def to16k(folder: pathlib.Path, samples):
    write_raw(folder / "score48.raw", samples)
    capture(["sox", "-R", "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r", str(RATE),
             str(folder / "score48.raw"), "-t", "raw", "-r", "16000", str(folder / "score16.raw")], "sox to 16 kHz")
    return read_raw(folder / "score16.raw")


def quality(folder: pathlib.Path, program: pathlib.Path) -> dict:
    """PESQ-wb, STOI and the noise-only drop over every sentence × noise × SNR, cleanup off and on."""
    np, pesq, stoi = numpy()
    cleans = [at_db(speech(folder, voice, text, f"clean{index}"), -26) for index, (voice, text) in enumerate(SENTENCES)]
    lead = int(LEAD_S * RATE)
    frames = lead + max(len(c) for c in cleans) + RATE // 2
    noises = {kind: noise(folder, kind, frames) for kind in NOISES}
    rows = []
    for kind in NOISES:
        for snr in SNRS:
            row = {"noise": kind, "snr_db": snr, "off": {"pesq": [], "stoi": [], "noise_db": []},
                   "on": {"pesq": [], "stoi": [], "noise_db": []}}
            for clean in cleans:
                reference = np.concatenate([np.zeros(lead), clean, np.zeros(frames - lead - len(clean))])
                mix = reference + at_db(noises[kind], rms_db(clean) - snr)
                write_raw(folder / "mix.raw", mix)
                scored = to16k(folder, reference)[int(LEAD_S * 16000):]
                for mode in ("off", "on"):
                    take = record(program, folder / "mix.raw", frames / RATE, folder, mode == "on")["samples"]
                    heard = to16k(folder, take)[int(LEAD_S * 16000):]
                    n = min(len(scored), len(heard))
                    row[mode]["pesq"].append(float(pesq(16000, scored[:n] / 32768, heard[:n] / 32768, "wb")))
                    row[mode]["stoi"].append(float(stoi(scored[:n], heard[:n], 16000, extended=False)))
                    row[mode]["noise_db"].append(rms_db(take[RATE:2 * RATE]))
            for mode in ("off", "on"):
                row[mode] = {key: float(np.mean(values)) for key, values in row[mode].items()}
            rows.append(row)
            print(f"cleanup: {kind} {snr} dB: PESQ {row['off']['pesq']:.2f} → {row['on']['pesq']:.2f}, STOI "
                  f"{row['off']['stoi']:.3f} → {row['on']['stoi']:.3f}, noise-only "
                  f"{row['off']['noise_db'] - row['on']['noise_db']:.1f} dB lower", flush=True)
    mean = {mode: {key: float(np.mean([row[mode][key] for row in rows])) for key in ("pesq", "stoi", "noise_db")}
            for mode in ("off", "on")}
    pesq_gain = mean["on"]["pesq"] - mean["off"]["pesq"]
    stoi_change = mean["on"]["stoi"] - mean["off"]["stoi"]
    noise_drop = mean["off"]["noise_db"] - mean["on"]["noise_db"]
    return {"rows": rows, "mean": mean, "pesq_gain": pesq_gain, "stoi_change": stoi_change, "noise_drop_db": noise_drop,
            "pesq_pass": pesq_gain >= BUDGET_CLEANUP_PESQ_GAIN, "stoi_pass": stoi_change >= -BUDGET_CLEANUP_STOI_DROP,
            "noise_pass": noise_drop >= BUDGET_CLEANUP_NOISE_DB}


def quiet_voice(folder: pathlib.Path, program: pathlib.Path) -> dict:
    """The first sentence at −26 and at −45 dBFS over a −80 dBFS hiss, recorded with cleanup: levels after 1 s."""
    np, _, _ = numpy()
    said = read_raw(folder / "clean0.raw")
    lead = RATE // 2
    levels = {}
    for decibels in (-26, -45):
        hiss = at_db(np.random.default_rng(1).normal(size=lead + len(said) + RATE // 2), -80)
        mix = np.concatenate([np.zeros(lead), at_db(said, decibels), np.zeros(RATE // 2)]) + hiss
        write_raw(folder / "quiet.raw", mix)
        take = record(program, folder / "quiet.raw", len(mix) / RATE, folder, True)["samples"]
        levels[decibels] = rms_db(take[lead + RATE: lead + len(said)])
    difference = levels[-45] - levels[-26]
    return {"normal_dbfs": levels[-26], "quiet_dbfs": levels[-45], "difference_db": difference,
            "pass": abs(difference) <= BUDGET_CLEANUP_QUIET_DB}


def cpu_share(folder: pathlib.Path, program: pathlib.Path, runs: int) -> dict:
    """A 120 s note of speech over a −40 dBFS hiss recorded with and without cleanup in turns: the extra CPU per second."""
    np, _, _ = numpy()
    said = read_raw(folder / "clean1.raw")
    voice = np.tile(np.concatenate([said, np.zeros(RATE)]), CPU_SECONDS * RATE // (len(said) + RATE) + 1)
    voice = voice[:CPU_SECONDS * RATE]
    write_raw(folder / "long.raw", voice + at_db(np.random.default_rng(2).normal(size=len(voice)), -40))
    record(program, folder / "long.raw", CPU_SECONDS, folder, True)  # warm-up
    cpu = {"off": [], "on": []}
    for _ in range(runs):
        for mode in ("off", "on"):
            cpu[mode].append(record(program, folder / "long.raw", CPU_SECONDS, folder, mode == "on")["cpu_s"])
    shares = [(on - off) / CPU_SECONDS for on, off in zip(cpu["on"], cpu["off"])]
    share = summary(shares)
    return {"share": share, "off_cpu_s": summary(cpu["off"]), "on_cpu_s": summary(cpu["on"]),
            "budget": BUDGET_CLEANUP_CPU_SHARE, "pass": share["median"] <= BUDGET_CLEANUP_CPU_SHARE}


def cleanup_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    folder = work / "cleanup"
    folder.mkdir(parents=True, exist_ok=True)
    program = build_record_file(build, folder)
    section = {"runs": runs, "quality": quality(folder, program)}
    section["quiet"] = quiet_voice(folder, program)
    section["cpu"] = cpu_share(folder, program, runs)
    q = section["quality"]
    print(f"cleanup: PESQ-wb {q['pesq_gain']:+.2f}, STOI {q['stoi_change']:+.3f}, noise-only {q['noise_drop_db']:.1f} dB "
          f"lower; quiet voice {section['quiet']['difference_db']:+.1f} dB from a normal one; CPU "
          f"{100 * section['cpu']['share']['median']:.2f} % of a core", flush=True)
    return section


def cleanup_markdown(section: dict) -> str:
    def verdict(ok: bool) -> str:
        return "pass" if ok else "**miss**"
    q = section["quality"]
    lines = [
        "Voice cleanup (docs/recorder.md). espeak-ng speech (4 voices) after 2 s of noise, recorded by "
        "bench/record_file.c through ALSA's file plugin with cleanup off and on; PESQ-wb (PyPI `pesq`) and STOI "
        "(`pystoi`) against the clean speech at 16 kHz; the noise-only second is the lead's second second.",
        "",
        "| noise | SNR | PESQ-wb off → on | STOI off → on | noise-only, dB lower |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in q["rows"]:
        lines.append(f"| {row['noise']} | {row['snr_db']} dB | {row['off']['pesq']:.2f} → {row['on']['pesq']:.2f} "
                     f"| {row['off']['stoi']:.3f} → {row['on']['stoi']:.3f} "
                     f"| {row['off']['noise_db'] - row['on']['noise_db']:.1f} |")
    lines += [
        f"| **mean** | | {q['pesq_gain']:+.2f} (budget ≥ +{BUDGET_CLEANUP_PESQ_GAIN:g}: {verdict(q['pesq_pass'])}) "
        f"| {q['stoi_change']:+.3f} ({verdict(q['stoi_pass'])}) "
        f"| {q['noise_drop_db']:.1f} (budget ≥ {BUDGET_CLEANUP_NOISE_DB:g}: {verdict(q['noise_pass'])}) |",
        "",
        f"Quiet voice: speech at −45 dBFS came out at {section['quiet']['quiet_dbfs']:.1f} dBFS, at −26 dBFS at "
        f"{section['quiet']['normal_dbfs']:.1f} dBFS ({section['quiet']['difference_db']:+.1f} dB; budget "
        f"±{BUDGET_CLEANUP_QUIET_DB:g}: {verdict(section['quiet']['pass'])}).",
        f"CPU ({section['runs']} turns of a {CPU_SECONDS} s note): cleanup takes "
        f"{100 * section['cpu']['share']['median']:.2f} % of a core at 48 kHz (budget ≤ "
        f"{100 * BUDGET_CLEANUP_CPU_SHARE:g} %: {verdict(section['cpu']['pass'])}).",
    ]
    return "\n".join(lines)
