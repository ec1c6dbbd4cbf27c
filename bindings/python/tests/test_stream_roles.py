"""Stream roles, through a private PulseAudio server (tests/pulse.py) with module-role-ducking loaded and another
application's music playing (a 440 Hz tone as a stream with the role "music"): a player or recorder given
``stream_role="phone"`` puts its stream on the server with that role and its name, and the server's own ducking
lowers the music while the note plays or records, and brings it back after; without a role nothing is ducked and
no role is set. Levels are measured at the sink (its monitor, recorded with parec for a bounded time); every wait is
bounded."""
from __future__ import annotations

import array
import math
import subprocess
from pathlib import Path
from typing import Iterator, Tuple

import pytest

import pulse
from helpers import TIMEOUT, wait_until

import voicenote


@pytest.fixture
def ducking(tmp_path: Path) -> Iterator[Tuple[pulse.PulseServer, float]]:
    """A warmed server that ducks music under phone streams (playing, and recording: `use_source_trigger` with
    `global`, as PulseAudio documents), the music playing; yields it with the music's full level at the sink."""
    with pulse.warmed_server() as server:
        server.pactl("load-module", "module-role-ducking", "trigger_roles=phone", "ducking_roles=music",
                     "use_source_trigger=true", "global=true", "volume=-20dB")
        music = tmp_path / "music.raw"
        music.write_bytes(array.array("h", (int(8000 * math.sin(2 * math.pi * 440 * i / 48000))
                                            for i in range(48000 * 30))).tobytes())
        server.play_raw(str(music), role="music")
        assert wait_until(lambda: server.level() > 3000, timeout=TIMEOUT), "the music is not heard"
        yield server, server.level()


@pytest.fixture(scope="module")
def silent_note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("roles") / "silence.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", str(path), "trim", "0", "20"], check=True,
                   timeout=TIMEOUT)
    return path


def ours(server: pulse.PulseServer, playback: bool) -> str:
    name = "Voice message" if playback else "Voice message recording"
    return next((block for block in server.streams(playback) if f'media.name = "{name}"' in block), "")


def test_a_phone_role_note_ducks_the_music_while_it_plays(ducking: Tuple[pulse.PulseServer, float],
                                                            silent_note: Path) -> None:
    server, full = ducking
    with voicenote.Player(device="vn_rt", device_config=server.alsa_config(device=server.sink),
                          stream_role="phone") as player:
        player.load(silent_note, autoplay=True)
        assert wait_until(lambda: 'media.role = "phone"' in ours(server, playback=True)), server.streams(True)
        assert wait_until(lambda: server.level() < full * 0.2), "the music was not ducked"
        player.pause()
        assert wait_until(lambda: server.level() > full * 0.8), "the music did not come back"


def test_a_note_without_a_role_ducks_nothing(ducking: Tuple[pulse.PulseServer, float], silent_note: Path) -> None:
    server, full = ducking
    with voicenote.Player(device="vn_rt", device_config=server.alsa_config(device=server.sink)) as player:
        player.load(silent_note, autoplay=True)
        assert wait_until(lambda: any("ALSA" in block and "Corked: no" in block for block in server.streams(True)))
        assert server.level() > full * 0.8
        assert not any('media.role = "phone"' in block for block in server.streams(True))


def test_a_phone_role_take_carries_its_role_and_ducks_where_told(ducking: Tuple[pulse.PulseServer, float],
                                                                  tmp_path: Path) -> None:
    server, full = ducking
    with voicenote.Recorder(tmp_path / "takes", device="vn_rt", device_config=server.alsa_config(),
                            stream_role="phone") as recorder:
        recorder.begin()
        assert wait_until(lambda: 'media.role = "phone"' in ours(server, playback=False)), server.streams(False)
        assert wait_until(lambda: server.level() < full * 0.2), "the music was not ducked during the take"
        recorder.cancel()
        assert wait_until(lambda: server.level() > full * 0.8), "the music did not come back"


@pytest.mark.parametrize("role", ["", "x" * 65, "ph\x01one", "é"])
def test_a_role_that_is_not_printable_ascii_is_refused(role: str) -> None:
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.Player(stream_role=role)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.QueuePlayer(stream_role=role)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.Recorder("/nonexistent/takes", stream_role=role)


def test_the_cli_plays_and_records_with_a_role(ducking: Tuple[pulse.PulseServer, float], silent_note: Path,
                                               cli: Path, tmp_path: Path) -> None:
    server, full = ducking
    speaker = server.alsa_config(device=server.sink)
    player = subprocess.Popen([str(cli), "play", str(silent_note), "--device", "vn_rt", "--device-config", speaker,
                               "--role", "phone"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert wait_until(lambda: 'media.role = "phone"' in ours(server, playback=True)), server.streams(True)
        assert wait_until(lambda: server.level() < full * 0.2), "the music was not ducked by `play --role phone`"
    finally:
        player.terminate()
        player.wait(TIMEOUT)
    assert wait_until(lambda: server.level() > full * 0.8), "the music did not come back"

    recorder = subprocess.Popen([str(cli), "record", "--device", "vn_rt", "--device-config", server.alsa_config(),
                                 "--role", "phone", "--duration", "20", "--progress", "none", "-o",
                                 str(tmp_path / "take.ogg")], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
    try:
        assert wait_until(lambda: 'media.role = "phone"' in ours(server, playback=False)), server.streams(False)
    finally:
        recorder.terminate()
        recorder.wait(TIMEOUT)
    # A short note with a role plays to its end (the server's drain) and the command ends by itself.
    short = tmp_path / "short.wav"
    subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", str(short), "synth", "1.3", "sine", "300"],
                   check=True, timeout=TIMEOUT)
    played = subprocess.run([str(cli), "play", str(short), "--device", "vn_rt", "--device-config", speaker, "--role",
                             "phone"], capture_output=True, text=True, timeout=TIMEOUT)
    assert played.returncode == 0, played.stderr
    refused = subprocess.run([str(cli), "play", str(silent_note), "--role", ""], capture_output=True, text=True,
                             timeout=TIMEOUT)
    assert refused.returncode != 0 and "--role" in refused.stderr
