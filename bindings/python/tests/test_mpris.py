"""The desktop's media keys and controls: a player made with ``mpris`` is an MPRIS 2 player on the session bus while
a note is loaded (a private ``dbus-daemon`` started by this module and stopped by pid; ``playerctl``, Debian's, as
the media keys), with the host's metadata; gone when idle and after close; without a session bus it plays on. The
CLI's ``play --mpris`` is driven the same way from another process. Speakers are ALSA's ``file`` plugin over
``null`` (unpaced: long notes keep the player busy); every wait is bounded."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator, List

import pytest

import pulse
from audiofiles import write_tone
from helpers import TIMEOUT, wait_until
from session_bus import missing as session_bus_missing, session_bus_for_this_process
from test_player import file_speaker

import voicenote

pytestmark = pytest.mark.skipif(session_bus_missing() is not None, reason=str(session_bus_missing()))


@pytest.fixture(scope="module")
def session_bus() -> Iterator[str]:
    """A private session bus for this module (session_bus.py), this process's while the module runs."""
    with session_bus_for_this_process() as address:
        yield address


def playerctl(*arguments: str) -> str:
    result = subprocess.run(["playerctl", *arguments], capture_output=True, text=True, timeout=TIMEOUT)
    return result.stdout.strip()


def players() -> List[str]:
    return [line for line in playerctl("--list-all").splitlines() if line]


@pytest.fixture(scope="module")
def long_note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mpris") / "from-alice.wav"
    subprocess.run(["sox", "-n", "-r", "8000", "-c", "1", "-b", "16", str(path), "synth", "600", "sine", "440"],
                   check=True, timeout=TIMEOUT)
    return path


@pytest.fixture(scope="module")
def paced_speaker() -> Iterator[str]:
    """ALSA configuration of `vn_rt`, a speaker that plays in real time: a private PulseAudio server's null sink
    (tests/pulse.py; stopped by its pid). Skips visibly where PulseAudio is missing."""
    with pulse.warmed_server() as server:
        yield f'pcm.vn_rt {{ type pulse server "{server.address}" device "{server.sink}" }}'


def test_media_keys_reach_a_loaded_note_and_an_idle_player_is_gone(session_bus: str, long_note: Path,
                                                                     paced_speaker: str) -> None:
    with voicenote.Player(device="vn_rt", device_config=paced_speaker, mpris="Chat Example",
                          mpris_desktop_entry="org.example.Chat") as player:
        name = player.mpris_name
        assert name is not None and name.startswith("org.mpris.MediaPlayer2.Chat_Example.instance")
        short = name[len("org.mpris.MediaPlayer2."):]
        assert not player.mpris_exported and players() == []
        player.set_metadata(long_note, title="Voice message", artist="Alice")
        player.load(long_note, autoplay=False)
        assert wait_until(lambda: player.mpris_exported), "the MPRIS name"
        assert players() == [short]
        assert wait_until(lambda: playerctl("-p", short, "metadata", "--format", "{{title}}|{{artist}}|{{mpris:length}}")
                          == "Voice message|Alice|600000000"), "the metadata"
        playerctl("-p", short, "play")
        assert wait_until(lambda: player.context.state is voicenote.PlayerState.PLAYING), "playing"
        playerctl("-p", short, "pause")
        assert wait_until(lambda: player.context.state is voicenote.PlayerState.PAUSED), "paused"
        playerctl("-p", short, "position", "120")
        assert wait_until(lambda: abs(player.context.current_time - 120) < 0.5), "the seek"
        playerctl("-p", short, "stop")
        assert wait_until(lambda: not player.mpris_exported), "the name gone when stopped"
        assert players() == []
        player.play()
        assert wait_until(lambda: player.mpris_exported), "the name back"
    assert players() == [], "a name was left after close"


def test_without_mpris_or_a_session_bus_nothing_is_exported(session_bus: str, tmp_path: Path) -> None:
    note = write_tone(tmp_path / "short.wav", 0.5, 440)
    with voicenote.Player(device="vn_spk", device_config=file_speaker(tmp_path / "a.raw")) as plain:
        assert plain.mpris_name is None and not plain.mpris_exported
        plain.set_metadata(note, title="ignored")  # no MPRIS: nothing to show, no failure
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={tmp_path}/no-bus"
    try:
        with voicenote.Player(device="vn_spk", device_config=file_speaker(tmp_path / "b.raw"), mpris="X") as player:
            finished: List[object] = []
            player.subscribe(lambda e: finished.append(e) if isinstance(e, voicenote.PlaybackFinished) else None)
            player.load(note)
            assert wait_until(lambda: finished), "the end of the note"
            assert not player.mpris_exported
    finally:
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = session_bus
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.Player(mpris="")


def test_the_cli_plays_with_mpris(session_bus: str, cli: Path, long_note: Path, paced_speaker: str) -> None:
    """`voicenote play --mpris --title --artist` in another process, on a speaker paced in real time (so the note
    is still playing when the keys come): playerctl sees its metadata and pauses it; a stop ends the command."""
    command = [str(cli), "play", str(long_note), "--mpris", "--title", "Voice message", "--artist", "Bob",
               "--device", "vn_rt", "--device-config", paced_speaker]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: players() != []), "the CLI's MPRIS name"
        short = players()[0]
        assert short.startswith("voicenote.instance")
        assert playerctl("-p", short, "metadata", "--format", "{{title}}|{{artist}}") == "Voice message|Bob"
        playerctl("-p", short, "pause")
        assert wait_until(lambda: playerctl("-p", short, "status") == "Paused"), "paused by the media key"
        playerctl("-p", short, "stop")
        assert process.wait(timeout=TIMEOUT) == 0
        assert players() == []
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=TIMEOUT)
