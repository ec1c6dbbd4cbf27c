"""Section `desktop` (docs/desktop.md): media keys, other players, exact resumption.

On a private session bus (dbus-daemon) and a private PulseAudio server (a null sink: a speaker paced in real time),
bench/desktop_probe.py drives the library through the Python package: a media key's Pause (playerctl) → our
player's PAUSED context, side by side with a reference MPRIS player (Tests/Servers/fake_mpris.py, dbus-next), in
alternating turns; a take's begin() → three playing fake players' Pause calls; and trials with a random set of four
fake players playing: the take must pause exactly those and resume exactly those. Budgets: ≤ 50 ms, ≤ 100 ms,
100 of 100; and a take whose PulseAudio source (a sine source) is unloaded after 1 s, which the server moves to the
default source: the gap (silence in the take, plus what it lacks against the wall-clock time it ran) ≤ 200 ms."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from common.budgets import (BUDGET_MEDIA_KEY_PAUSE_MS, BUDGET_OTHERS_PAUSED_MS, BUDGET_RESUME_EXACT_TRIALS,
                            BUDGET_SOURCE_LOST_GAP_MS)
from common.errors import BenchError
from common.paths import HERE, REPO
from common.process import require_tools
from common.stats import summary

DESKTOP_TURNS = 15
QUICK_DESKTOP_TURNS = 5


def desktop_section(build: pathlib.Path, work: pathlib.Path, turns: int, trials: int = BUDGET_RESUME_EXACT_TRIALS) -> dict:
    require_tools(["dbus-daemon", "playerctl", "pulseaudio", "sox"])
    folder = work / "desktop"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    library = build / "lib" / "libvoicenote.so"
    if not library.exists():
        raise BenchError(f"{library} is missing: run `make build` first")
    sys.path.insert(0, str(REPO / "bindings" / "python" / "tests"))
    import pulse  # the tests' private PulseAudio server
    from session_bus import private_session_bus

    microphone = folder / "speech.raw"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw",
                    str(microphone), "synth", "30", "pinknoise", "vol", "0.1"], check=True, timeout=60)
    server = pulse.PulseServer()
    try:
        server.warm()
        speaker = f'pcm.vn_rt {{ type pulse server "{server.address}" device "{server.sink}" }}'
        with private_session_bus() as address:
            environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, VOICENOTE_LIBRARY=str(library),
                               PYTHONPATH=str(REPO / "bindings" / "python"),
                               XDG_CACHE_HOME=tempfile.mkdtemp(dir=folder))
            probe = subprocess.run([sys.executable, str(HERE / "desktop_probe.py"), speaker, str(microphone),
                                    str(turns), str(trials), str(REPO / "Tests" / "Servers" / "fake_mpris.py"),
                                    str(folder), server.address], env=environment, capture_output=True, text=True,
                                   timeout=600)
    finally:
        server.stop()
    if probe.returncode != 0:
        raise BenchError(f"desktop_probe.py failed: {probe.stderr[-2000:]}")
    figures = json.loads(probe.stdout.strip().splitlines()[-1])
    ours = summary(figures["media_key"]["ours_ms"])
    reference = summary(figures["media_key"]["reference_ms"])
    others = summary(figures["others_paused_ms"])
    gap = summary(figures["source_lost_ms"])
    return {
        "turns": turns,
        "media_key_ms": {"ours": ours, "reference": reference},
        "media_key_pass": ours["median"] <= BUDGET_MEDIA_KEY_PAUSE_MS,
        "others_paused_ms": others,
        "others_paused_pass": others["median"] <= BUDGET_OTHERS_PAUSED_MS,
        "exact": figures["exact"],
        "exact_pass": figures["exact"]["exact"] == figures["exact"]["trials"],
        "source_lost_gap_ms": gap,
        "source_lost_pass": gap["median"] <= BUDGET_SOURCE_LOST_GAP_MS,
    }


def desktop_markdown(section: dict) -> str:
    def verdict(ok: bool) -> str:
        return "pass" if ok else "**miss**"
    key, others, exact = section["media_key_ms"], section["others_paused_ms"], section["exact"]
    gap = section.get("source_lost_gap_ms")
    return "\n".join([
        "The desktop (docs/desktop.md), on a private session bus and a PulseAudio null sink; medians of "
        f"{section['turns']} alternating turns.",
        "",
        "| measure | ours | reference | budget |",
        "| --- | --- | --- | --- |",
        f"| media-key Pause (playerctl started) → paused | {key['ours']['median']:.1f} ms | "
        f"{key['reference']['median']:.1f} ms (a dbus-next MPRIS player) | ≤ {BUDGET_MEDIA_KEY_PAUSE_MS:g} ms: "
        f"{verdict(section['media_key_pass'])} |",
        f"| take begun → three playing players paused | {others['median']:.1f} ms | | ≤ {BUDGET_OTHERS_PAUSED_MS:g} ms: "
        f"{verdict(section['others_paused_pass'])} |",
        f"| takes resuming exactly the players that played | {exact['exact']} of {exact['trials']} | | "
        f"{exact['trials']} of {exact['trials']}: {verdict(section['exact_pass'])} |",
        (f"| PulseAudio source unloaded mid-take → capture goes on (the gap) | {gap['median']:.0f} ms "
         f"(max {gap['max']:.0f}) | | ≤ {BUDGET_SOURCE_LOST_GAP_MS:g} ms: {verdict(section['source_lost_pass'])} |"
         if gap else "| capture source lost → capture goes on | not measured | | ≤ 200 ms |"),
        "",
    ])
