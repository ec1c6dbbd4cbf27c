"""The desktop bench's measurements (bench/sections/desktop.py), run on a private session bus the section starts
(DBUS_SESSION_BUS_ADDRESS), with the library under test through the Python package; prints one JSON object.

    desktop_probe.py PULSE_ALSA_CONFIG MICROPHONE_RAW TURNS TRIALS FAKE_PLAYERS_SCRIPT FOLDER PULSE_ADDRESS

- media_key_ms: `playerctl -p NAME pause` started → our player's PAUSED context (a note playing on a PulseAudio null
  sink, paced), and → the reference player's (fake_mpris.py, dbus-next) Pause call logged; alternating turns.
- others_paused_ms: a take's begin() returned → the last of three playing fake players' Pause logged.
- exact: trials of a take with a random set of four fake players playing: Pause went to exactly those, Play after
  the take to exactly those.
- source_lost_ms: a take from PulseAudio's sine source "vn_usb" (440 Hz), its module unloaded after 1 s: the server
  moves the stream to the default source ("vn_default", 880 Hz); the gap is the take's silence between the tones
  plus what the take lacks against the wall-clock time it ran."""
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import voicenote

speaker, microphone_raw, turns, trials, fake_script, folder, pulse_address = sys.argv[1], sys.argv[2], \
    int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], Path(sys.argv[6]), sys.argv[7]
MICROPHONE = (f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{microphone_raw}" '
              'format raw }')


def playerctl(*arguments: str) -> str:
    return subprocess.run(["playerctl", "--no-messages", *arguments], capture_output=True, text=True,
                          timeout=10).stdout.strip()


class Fakes:
    def __init__(self, *specs: str) -> None:
        self.log = folder / f"calls-{time.monotonic_ns()}.jsonl"
        self.log.touch()
        self.process = subprocess.Popen([sys.executable, fake_script, "--log", str(self.log), "--exit-with-stdin",
                                         *specs], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "READY"

    def calls(self) -> list:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def wait(condition, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def media_key() -> dict:
    """A media key's Pause to our player and to the reference, in turns; the PAUSED context's arrival is taken in
    the callback itself."""
    note = folder / "long.wav"
    subprocess.run(["sox", "-n", "-r", "8000", "-c", "1", "-b", "16", str(note), "synth", "600", "sine", "440"],
                   check=True, timeout=60)
    reference = Fakes("reference:Playing")
    ours, theirs = [], []
    arrived: list = []
    paused = threading.Event()

    def on_event(event) -> None:
        if isinstance(event, voicenote.PlayerContextEvent) and event.context.state is voicenote.PlayerState.PAUSED:
            arrived.append(time.monotonic())
            paused.set()

    try:
        with voicenote.Player(device="vn_rt", device_config=speaker, mpris="Bench") as player:
            player.subscribe(on_event)
            name = player.mpris_name[len("org.mpris.MediaPlayer2."):]
            player.load(note)
            for _ in range(turns):
                assert wait(lambda: player.context.state is voicenote.PlayerState.PLAYING and player.mpris_exported)
                paused.clear()
                arrived.clear()
                started = time.monotonic()
                subprocess.run(["playerctl", "-p", name, "pause"], timeout=10)
                assert paused.wait(10)
                ours.append((arrived[0] - started) * 1000)
                player.play()
                count = len(reference.calls())
                started = time.monotonic()
                subprocess.run(["playerctl", "-p", "reference", "pause"], timeout=10)
                assert wait(lambda: len(reference.calls()) > count)
                theirs.append((reference.calls()[-1]["t"] - started) * 1000)
                playerctl("-p", "reference", "play")
    finally:
        reference.stop()
    return {"ours_ms": ours, "reference_ms": theirs}


def others_paused() -> list:
    fakes = Fakes("music:Playing", "video:Playing", "radio:Playing")
    delays = []
    try:
        with voicenote.Recorder(folder / "takes", device="vn_mic", device_config=MICROPHONE,
                                pause_other_players=True, min_duration=0) as recorder:
            for _ in range(turns):
                count = len(fakes.calls())
                recorder.begin()
                began = time.monotonic()
                assert wait(lambda: len(fakes.calls()) >= count + 3)
                delays.append((max(call["t"] for call in fakes.calls()[count:count + 3]) - began) * 1000)
                recorder.cancel()
                assert wait(lambda: len(fakes.calls()) >= count + 6)
    finally:
        fakes.stop()
    return delays


def exact() -> dict:
    names = ["a", "b", "c", "d"]
    fakes = Fakes(*(f"{name}:Paused" for name in names))
    chooser = random.Random(41)
    good = 0
    try:
        with voicenote.Recorder(folder / "takes", device="vn_mic", device_config=MICROPHONE,
                                pause_other_players=True, min_duration=0) as recorder:
            for _ in range(trials):
                playing = {name for name in names if chooser.random() < 0.5}
                for name in names:
                    playerctl("-p", name, "play" if name in playing else "pause")
                count = len(fakes.calls())
                recorder.begin()
                recorder.cancel()
                # The set-up calls were logged before `count`; now a Pause and a Play per playing one.
                wait(lambda: len(fakes.calls()) >= count + 2 * len(playing), 5)
                calls = fakes.calls()[count:]
                paused = {c["player"] for c in calls if c["call"] == "Pause"}
                resumed = {c["player"] for c in calls if c["call"] == "Play"}
                good += paused == playing and resumed == playing
    finally:
        fakes.stop()
    return {"trials": trials, "exact": good}


def pactl(*arguments: str) -> str:
    return subprocess.run(["pactl", f"--server={pulse_address}", *arguments], capture_output=True, text=True,
                          check=True, timeout=10).stdout.strip()


def source_lost() -> list:
    """Turns of a take whose source module is unloaded after 1 s; the gap each time, ms: the take's silence between
    the tones, plus the wall-clock time that passed beyond the audio the take gained (duration steps every 10 ms,
    timed as they arrive) from just before the unload to 1.5 s after it."""
    gaps = []
    pactl("load-module", "module-sine-source", "source_name=vn_default", "frequency=880", "rate=48000")
    pactl("set-default-source", "vn_default")
    usb = f'pcm.vn_src {{ type pulse server "{pulse_address}" device "vn_usb" }}'
    for _ in range(turns):
        index = pactl("load-module", "module-sine-source", "source_name=vn_usb", "frequency=440", "rate=48000")
        steps: list = []
        finished: list = []
        done = threading.Event()

        def on_event(event) -> None:
            if isinstance(event, voicenote.RecorderContextEvent):
                steps.append((time.monotonic(), event.context.duration))
            elif isinstance(event, voicenote.RecordingFinished):
                finished.append(event)
                done.set()

        with voicenote.Recorder(folder / "takes", device="vn_src", device_config=usb, duration_interval=0.01) as recorder:
            recorder.subscribe(on_event)
            recorder.begin()
            assert wait(lambda: recorder.context.duration >= 1.0)
            before = steps[-1]
            pactl("unload-module", index)
            assert wait(lambda: steps[-1][1] >= before[1] + 1.5)
            after = steps[-1]
            recorder.stop()
            assert done.wait(10)
        raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", finished[0].path, "-f", "s16le", "-ac", "1",
                              "-ar", "48000", "-"], capture_output=True, check=True, timeout=60).stdout
        samples = memoryview(raw).cast("h")
        quiet = longest = 0
        for value in samples[4800:]:
            quiet = quiet + 1 if abs(value) < 200 else 0
            longest = max(longest, quiet)
        lacking = (after[0] - before[0]) - (after[1] - before[1])
        gaps.append(1000 * (longest / 48000 + max(0.0, lacking)))
    return gaps


(folder / "takes").mkdir(parents=True, exist_ok=True)
print(json.dumps({"media_key": media_key(), "others_paused_ms": others_paused(), "exact": exact(),
                  "source_lost_ms": source_lost()}))
