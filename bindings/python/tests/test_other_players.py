"""The desktop's other players: a recorder made with ``pause_other_players`` pauses every MPRIS player that is
playing while its take is recorded and resumes exactly those after; a player made with it does the same while it
plays; the CLI's ``record --pause-others``. The players are fakes (Tests/Servers/fake_mpris.py: some playing, some
paused; every call they get is logged) on a private session bus started here; the microphone is a file (ALSA's
``file`` plugin), the speaker unpaced. Every wait is bounded."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

from audiofiles import REPO_ROOT, write_tone
from helpers import TIMEOUT, wait_until
from microphones import EventLog, Speech, file_microphone
from session_bus import missing as session_bus_missing, session_bus_for_this_process
from test_player import file_speaker

import voicenote

pytestmark = pytest.mark.skipif(session_bus_missing() is not None, reason=str(session_bus_missing()))
FAKE_PLAYERS = REPO_ROOT / "Tests" / "Servers" / "fake_mpris.py"


@pytest.fixture(scope="module")
def session_bus() -> Iterator[str]:
    """A private session bus for this module (session_bus.py), this process's while the module runs."""
    with session_bus_for_this_process() as address:
        yield address


class FakePlayers:
    """fake_mpris.py with `specs` ("music:Playing"); `calls()` reads its log as "PLAYER CALL" lines."""

    def __init__(self, tmp_path: Path, *specs: str) -> None:
        self.log = tmp_path / "calls.jsonl"
        self.log.touch()
        self.process = subprocess.Popen([sys.executable, str(FAKE_PLAYERS), "--log", str(self.log),
                                         "--exit-with-stdin", *specs],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None and self.process.stdout.readline().strip() == "READY"

    def calls(self) -> List[str]:
        lines = self.log.read_text().splitlines()
        return [f"{record['player']} {record['call']}" for record in map(json.loads, lines)]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout):
            if stream:
                stream.close()


@pytest.fixture
def players(session_bus: str, tmp_path: Path) -> Iterator[FakePlayers]:
    fakes = FakePlayers(tmp_path, "music:Playing", "podcast:Paused", "video:Playing")
    try:
        yield fakes
    finally:
        fakes.stop()


def test_a_take_pauses_the_playing_ones_and_resumes_exactly_those(speech: Speech, players: FakePlayers,
                                                                   tmp_path: Path) -> None:
    with voicenote.Recorder(tmp_path, device="vn_mic", device_config=file_microphone(speech.raw48),
                            pause_other_players=True) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        assert wait_until(lambda: sorted(players.calls()) == ["music Pause", "video Pause"]), players.calls()
        recorder.stop()
        log.wait_end()
        assert wait_until(lambda: len(players.calls()) == 4), players.calls()
    assert sorted(players.calls()[2:]) == ["music Play", "video Play"], "the paused podcast was resumed"


def test_without_the_option_nothing_is_paused(speech: Speech, players: FakePlayers, tmp_path: Path) -> None:
    with voicenote.Recorder(tmp_path, device="vn_mic", device_config=file_microphone(speech.raw48)) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        recorder.stop()
        log.wait_end()
    # A player made with the option, playing a short note, is the fence: its pause round comes after.
    note = write_tone(tmp_path / "fence.wav", 0.3, 440)
    with voicenote.Player(device="vn_spk", device_config=file_speaker(tmp_path / "out.raw"),
                          pause_other_players=True) as player:
        finished: List[object] = []
        player.subscribe(lambda e: finished.append(e) if isinstance(e, voicenote.PlaybackFinished) else None)
        player.load(note)
        assert wait_until(lambda: bool(finished)), "the note did not end"
        assert wait_until(lambda: len(players.calls()) == 4), players.calls()
    assert sorted(players.calls()[:2]) == ["music Pause", "video Pause"]
    assert sorted(players.calls()[2:]) == ["music Play", "video Play"]


def test_the_cli_records_with_the_others_paused(cli: Path, speech: Speech, players: FakePlayers,
                                                tmp_path: Path) -> None:
    out = tmp_path / "take.ogg"
    result = subprocess.run([str(cli), "record", "-o", str(out), "--duration", "1", "--pause-others", "--device", "vn_mic",
                             "--device-config", file_microphone(speech.raw48)],
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert wait_until(lambda: len(players.calls()) == 4), players.calls()
    assert sorted(players.calls()[:2]) == ["music Pause", "video Pause"]
    assert sorted(players.calls()[2:]) == ["music Play", "video Play"]


def test_the_cli_plays_with_the_others_paused(cli: Path, players: FakePlayers, tmp_path: Path) -> None:
    note = write_tone(tmp_path / "note.wav", 0.3, 440)
    result = subprocess.run([str(cli), "play", str(note), "--pause-others", "--device", "vn_spk", "--device-config",
                             file_speaker(tmp_path / "out.raw")], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    # Resumed before the command exited.
    assert sorted(players.calls()[:2]) == ["music Pause", "video Pause"], players.calls()
    assert sorted(players.calls()[2:]) == ["music Play", "video Play"], players.calls()
