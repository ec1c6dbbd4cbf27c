"""The Player (``vn_player``) through the binding, on real ALSA PCMs given as configuration text: a file speaker
(ALSA's ``file`` plugin over ``null``, which writes every frame it is given to a raw file and is not paced, so a
note plays in milliseconds). Frames written count what was played: at 1x the note's length, at 2x half of it, at
0.5x double.

State sequences that must not race the end of a note use a file-like object that stops giving bytes half-way
through playback (``GatedStream``): the player then stays PLAYING, with nothing to play, until the test opens the
gate.

Every wait is bounded (``helpers.TIMEOUT``) and waits for a condition, never a sleep.
"""

from __future__ import annotations

import io
import math
import threading
from pathlib import Path
from typing import Any, List

import pytest

from audiofiles import Media, run
from helpers import TIMEOUT, Recorder as Collector, wait_event

import voicenote
from voicenote import (PlaybackFailed, PlaybackFinished, Player, PlayerContext, PlayerContextEvent, PlayerState,
                       _capi)

RATE = 48000


def file_speaker(output: Path, name: str = "vn_spk") -> str:
    """ALSA configuration text defining ``pcm.<name>``: a speaker writing raw S16LE frames to ``output``."""
    return f'pcm.{name} {{ type file slave.pcm {{ type null }} file "{output}" format raw perm 0644 }}'


def speaker_player(output: Path, **options: Any) -> Player:
    return Player(device="vn_spk", device_config=file_speaker(output), **options)


def contexts(events: List[Any]) -> List[PlayerContext]:
    return [event.context for event in events if isinstance(event, PlayerContextEvent)]


def states(events: List[Any]) -> List[PlayerState]:
    """The states of the context events, consecutive repeats (progress steps) folded."""
    folded: List[PlayerState] = []
    for context in contexts(events):
        if not folded or folded[-1] is not context.state:
            folded.append(context.state)
    return folded


def finished(events: List[Any]) -> bool:
    """A PlaybackFinished came, and the STOPPED context after it."""
    ends = [i for i, event in enumerate(events) if isinstance(event, PlaybackFinished)]
    return bool(ends) and any(c.state is PlayerState.STOPPED for c in contexts(events[ends[-1]:]))


def play_to_end(player: Player, location: Any, log: Collector, **load: Any) -> List[Any]:
    """Loads ``location`` with autoplay (and ``load``'s keywords) and waits for its end; fails on a PlaybackFailed."""
    player.load(location, **load)
    events = log.wait_for(lambda items: finished(items) or any(isinstance(e, PlaybackFailed) for e in items),
                          what="the note to play to its end")
    failures = [event.error for event in events if isinstance(event, PlaybackFailed)]
    assert not failures, failures
    return events


def frames(output: Path) -> int:
    return output.stat().st_size // 2  # mono S16


# --- playing to the end -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [1.0, 2.0, 0.5])
def test_a_rate_scales_the_frames_played(media: Media, tmp_path: Path, rate: float) -> None:
    """Every frame of the note reaches the speaker at 1x; at 2x half as many, at 0.5x twice as many (±2%). The
    context ends STOPPED at 0 with the real duration, and FINISHED names the location."""
    output = tmp_path / "out.raw"
    note = media.files["opus"]
    log = Collector()
    with speaker_player(output, progress_interval=0.05) as player:
        player.rate = rate
        assert player.rate == rate
        player.subscribe(log.add)
        events = play_to_end(player, note, log)
        assert [e for e in events if isinstance(e, PlaybackFinished)] == [PlaybackFinished(str(note))]
        end = player.context
        assert end.state is PlayerState.STOPPED and end.current_time == 0.0
        assert end.duration == pytest.approx(media.wav_seconds, abs=0.03)
        assert end.rate == rate and end.location == str(note) and end.last_status == 0
        assert end.buffered_fraction == 1.0 and not end.duration_is_estimate
    # Closed: the device is closed and the speaker's file complete.
    assert frames(output) == pytest.approx(media.wav_seconds * RATE / rate, rel=0.02)
    playing = [c for c in contexts(events) if c.state is PlayerState.PLAYING]
    assert len(playing) >= 3, "no progress steps"
    times = [c.current_time for c in playing]
    assert times == sorted(times) and times[-1] > 0.5 * media.wav_seconds
    assert states(events)[:3] == [PlayerState.NOT_LOADED, PlayerState.LOADING, PlayerState.PLAYING]


def test_bytes_and_a_file_like_object_play(media: Media, tmp_path: Path) -> None:
    """Encoded bytes and a binary file-like object play to their end like a path; their locations are the
    sources' names."""
    note = media.files["wav"]
    for kind, location, name in (("bytes", note.read_bytes(), "memory"),
                                 ("stream", io.BytesIO(note.read_bytes()), "host source")):
        output = tmp_path / f"{kind}.raw"
        log = Collector()
        with speaker_player(output) as player:
            player.subscribe(log.add)
            events = play_to_end(player, location, log)
            assert PlaybackFinished(name) in events
            assert player.context.location == name
        assert frames(output) == pytest.approx(media.wav_seconds * RATE, rel=0.02), kind


def test_an_open_file_plays(media: Media, tmp_path: Path) -> None:
    """A file opened in binary mode plays; the player lets it go when closed."""
    output = tmp_path / "out.raw"
    log = Collector()
    with open(media.files["opus"], "rb") as stream, speaker_player(output) as player:
        player.subscribe(log.add)
        play_to_end(player, stream, log)
    assert frames(output) == pytest.approx(media.wav_seconds * RATE, rel=0.02)


# --- failures and hostile values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [1, 4, 7, 7999])
def test_a_sample_rate_the_player_cannot_take_is_unsupported(tmp_path: Path, rate: int) -> None:
    """A WAV at a few hertz decodes (info and the waveform read it) but cannot be played: the load fails with
    UnsupportedError, the file's fault, never InvalidArgumentError, which would blame the caller."""
    note = tmp_path / f"rate{rate}.wav"
    run(["sox", "-n", "-r", str(rate), "-c", "1", "-b", "16", str(note), "synth", "3", "sine", str(rate / 4)])
    log = Collector()
    with speaker_player(tmp_path / "out.raw") as player:
        player.subscribe(log.add)
        player.load(note)
        events = log.wait_for(lambda items: any(isinstance(e, PlaybackFailed) for e in items), what="the failed load")
        failure = next(e for e in events if isinstance(e, PlaybackFailed)).error
        assert isinstance(failure, voicenote.UnsupportedError) and f"{rate} Hz" in str(failure), failure


def test_a_missing_file_fails_with_not_found(media: Media, tmp_path: Path) -> None:
    """A missing file: load returns, then PlaybackFailed(NotFoundError) and the state NOT_LOADED with the
    location kept; play is then a MisuseError."""
    output = tmp_path / "out.raw"
    log = Collector()
    with speaker_player(output) as player:
        player.subscribe(log.add)
        player.load(media.missing, duration_hint=3)
        events = log.wait_for(lambda items: any(isinstance(e, PlaybackFailed) for e in items)
                              and contexts(items)[-1].state is PlayerState.NOT_LOADED, what="the failed load")
        failure = next(e for e in events if isinstance(e, PlaybackFailed)).error
        assert isinstance(failure, voicenote.NotFoundError) and isinstance(failure, FileNotFoundError)
        assert failure.code == _capi.VN_E_NOT_FOUND
        context = player.context
        assert context.state is PlayerState.NOT_LOADED and context.duration == 0.0
        assert context.last_status == _capi.VN_E_NOT_FOUND and context.location == str(media.missing)
        assert states(events) == [PlayerState.NOT_LOADED, PlayerState.LOADING, PlayerState.NOT_LOADED]
        with pytest.raises(voicenote.MisuseError) as caught:
            player.play()
        assert caught.value.code == _capi.VN_E_MISUSE
    assert not output.exists() or frames(output) == 0


def test_hostile_numbers_are_refused(media: Media) -> None:
    """Rates 0, 3, NaN, volumes -1, 2, NaN, seeks to NaN/inf and bad hints are InvalidArgumentError (a ValueError)
    and change nothing; non-numbers are TypeError; options out of range fail the constructor."""
    with Player() as player:
        for rate in (0, 3, math.nan, math.inf, 0.49):
            with pytest.raises(voicenote.InvalidArgumentError) as caught:
                player.rate = rate
            assert isinstance(caught.value, ValueError) and caught.value.code == _capi.VN_E_INVALID_ARG
        assert player.rate == 1.0
        for volume in (-1, 2, math.nan):
            with pytest.raises(voicenote.InvalidArgumentError):
                player.volume = volume
        assert player.volume == 1.0
        for seconds in (math.nan, math.inf, -math.inf):
            with pytest.raises(voicenote.InvalidArgumentError):
                player.seek(seconds)
        for hint in (math.nan, math.inf, -1, 2e6):
            with pytest.raises(voicenote.InvalidArgumentError):
                player.load(media.files["opus"], autoplay=False, duration_hint=hint)
        with pytest.raises(TypeError):
            player.rate = "fast"  # type: ignore[assignment]
        with pytest.raises(voicenote.UnsupportedError):
            player.load("gopher://example.org/note.ogg")  # http(s) is taken; other schemes are not
        with pytest.raises(voicenote.InvalidArgumentError):
            player.load("")
        assert player.context.state is PlayerState.NOT_LOADED
        player.volume = 0.25
        player.skip_silence = True
        assert (player.volume, player.skip_silence) == (0.25, True)
    for options in ({"progress_interval": 0}, {"progress_interval": math.nan}, {"resume_limit": 100001},
                    {"device": ""}):
        with pytest.raises(voicenote.InvalidArgumentError):
            Player(**options)
    with pytest.raises(ValueError):
        Player(device_config="pcm.x { type null }")


# --- control ------------------------------------------------------------------------------------------------------


class GatedStream(io.RawIOBase):
    """A readable, seekable copy of ``data`` that, once it has been read to its end (loading does that: the length
    of a WAV is what its packets hold), gives no byte at or past ``gate`` until ``open_gate()``: a read there
    blocks (on the player's thread, during playback) and sets ``blocked``."""

    def __init__(self, data: bytes, gate: int) -> None:
        super().__init__()
        self.data = data
        self.gate = gate
        self.position = 0
        self.armed = False
        self.opened = threading.Event()
        self.blocked = threading.Event()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: len(self.data)}[whence]
        self.position = base + offset
        return self.position

    def tell(self) -> int:
        return self.position

    def readinto(self, buffer: Any) -> int:
        if self.armed and self.gate <= self.position < len(self.data) and not self.opened.is_set():
            self.blocked.set()
            assert self.opened.wait(TIMEOUT), "the gate was never opened"
        end = self.gate if self.armed and not self.opened.is_set() else len(self.data)
        count = max(0, min(len(buffer), end - self.position))
        if count == 0 and self.position >= len(self.data):
            self.armed = True
        buffer[:count] = self.data[self.position:self.position + count]
        self.position += count
        return count

    def open_gate(self) -> None:
        self.opened.set()


def test_location_text_is_parsed_by_the_library(media: Media, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's one parser decides what text names: a scheme it does not fetch (with or without ``//``) is
    UnsupportedError; a ``file://`` URL of another host, an http URL with a space and text that is not UTF-8 (a
    lone surrogate passed on by the one text encoder) are InvalidArgumentError; a NUL byte is refused before C. A
    relative path whose first part holds a colon plays when written with ``./`` (a file named ``a://b`` is
    ``./a://b``)."""
    with speaker_player(tmp_path / "out.raw") as player:
        for text in ("data:audio/ogg;base64,T2dnUw==", "javascript:alert(1)", "mxc://matrix.org/abc",
                     "FTP://example.org/a.ogg", "a:b.ogg"):
            with pytest.raises(voicenote.UnsupportedError):
                player.load(text, autoplay=False)
        for text in ("file://elsewhere/a.ogg", "http://a b/c.ogg", "\udcff.ogg", "\ud800.ogg"):
            with pytest.raises(voicenote.InvalidArgumentError):
                player.load(text, autoplay=False)
        with pytest.raises(ValueError, match="null byte"):
            player.load("a\0b.ogg", autoplay=False)
        with pytest.raises(TypeError):
            player.load("https://example.org/a.ogg", key=5)  # type: ignore[arg-type]
        assert player.context.state is PlayerState.NOT_LOADED

        (tmp_path / "a:").mkdir()
        (tmp_path / "a:" / "b").write_bytes(media.files["opus"].read_bytes())
        monkeypatch.chdir(tmp_path)
        log = Collector()
        player.subscribe(log.add)
        player.load("./a://b", autoplay=False)
        log.wait_for(lambda items: states(items)[-1:] == [PlayerState.PAUSED], what="PAUSED")
        assert player.context.location == "./a://b" and player.context.duration > 0


def test_pause_play_stop_sequence(media: Media, tmp_path: Path) -> None:
    """While playing (held half-way by the gate): pause → PAUSED at a time within the note, play → PLAYING,
    stop → STOPPED at 0, each published at once in that order."""
    data = media.files["wav"].read_bytes()
    stream = GatedStream(data, len(data) // 2)
    log = Collector()
    with speaker_player(tmp_path / "out.raw") as player:
        try:
            player.subscribe(log.add)
            player.load(stream)
            wait_event(stream.blocked, "the player to read up to the gate")
            log.wait_for(lambda items: PlayerState.PLAYING in states(items), what="PLAYING")
            assert player.context.state is PlayerState.PLAYING
            player.pause()
            paused = player.context
            assert paused.state is PlayerState.PAUSED and 0.0 <= paused.current_time <= media.wav_seconds
            player.pause()  # nothing happens when paused
            player.play()
            assert player.context.state is PlayerState.PLAYING
            player.play()  # nothing happens while playing
            player.stop()
            stopped = player.context
            assert stopped.state is PlayerState.STOPPED and stopped.current_time == 0.0
            assert stopped.duration == pytest.approx(media.wav_seconds, abs=0.01)
            events = log.wait_for(lambda items: states(items)[-1:] == [PlayerState.STOPPED], what="STOPPED")
            assert states(events) == [PlayerState.NOT_LOADED, PlayerState.LOADING, PlayerState.PLAYING,
                                      PlayerState.PAUSED, PlayerState.PLAYING, PlayerState.STOPPED]
        finally:
            stream.open_gate()  # the player's thread may be waiting in a read: close would wait for it


def test_seek_clamps_and_keeps_pause(media: Media, tmp_path: Path) -> None:
    """Loaded paused: seek(1) moves there, seek(-1) clamps to 0, seek past the end clamps to the duration; the
    state stays PAUSED; stop then seek makes a stopped item paused there."""
    log = Collector()
    with speaker_player(tmp_path / "out.raw") as player:
        player.subscribe(log.add)
        player.load(media.files["opus"], autoplay=False)
        log.wait_for(lambda items: states(items)[-1:] == [PlayerState.PAUSED], what="PAUSED after loading")
        player.seek(1.0)
        assert player.context.current_time == pytest.approx(1.0) and player.context.state is PlayerState.PAUSED
        player.seek(-1)
        context = player.context
        assert context.current_time == 0.0 and context.state is PlayerState.PAUSED
        player.seek(1e9)
        assert player.context.current_time == pytest.approx(context.duration)
        log.wait_for(lambda items: not contexts(items)[-1].is_seeking, what="the seek to be carried out")
        player.stop()
        player.seek(0.5)
        assert player.context.state is PlayerState.PAUSED and player.context.current_time == pytest.approx(0.5)
    with Player() as empty:
        with pytest.raises(voicenote.MisuseError):
            empty.seek(1.0)


def test_subscribe_receives_the_current_context_first(media: Media, tmp_path: Path) -> None:
    """A subscriber's first event is the context as it is then: NOT_LOADED for a new player, the loaded PAUSED
    context later (with the location and the real duration)."""
    first = Collector()
    with speaker_player(tmp_path / "out.raw") as player:
        player.subscribe(first.add)
        initial = first.wait_count(1)[0]
        assert isinstance(initial, PlayerContextEvent) and initial.context.state is PlayerState.NOT_LOADED
        assert initial.context == player.context
        player.load(media.files["opus"], autoplay=False)
        first.wait_for(lambda items: states(items)[-1:] == [PlayerState.PAUSED], what="PAUSED")
        later = Collector()
        player.subscribe(later.add)
        event = later.wait_count(1)[0]
        assert isinstance(event, PlayerContextEvent)
        assert event.context == player.context
        assert event.context.state is PlayerState.PAUSED and event.context.location == str(media.files["opus"])


def test_close_inside_a_callback_returns(media: Media, tmp_path: Path) -> None:
    """close() from the player's own callback (once it plays) returns; the subscription is released and no
    callback runs after it."""
    closed = threading.Event()
    released = threading.Event()
    after: List[Any] = []
    player = speaker_player(tmp_path / "out.raw")

    def on_event(event: Any) -> None:
        if closed.is_set():
            after.append(event)
        if isinstance(event, PlayerContextEvent) and event.context.state is PlayerState.PLAYING and not closed.is_set():
            player.close()
            closed.set()

    player.subscribe(on_event, on_release=released.set)
    player.load(media.files["opus"])
    wait_event(closed, "close() inside the callback to return")
    wait_event(released, "the subscription to be released")
    assert after == []
    assert player.closed
    with pytest.raises(ValueError):
        player.play()
