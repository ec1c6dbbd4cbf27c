"""Transcripts from Python (docs/transcripts.md): PocketSphinx on espeak-ng speech by every entry point (the
function, the object with its events, asyncio, the CLI's transcribe and search, a URL from a real HTTP server), a
second request served from the media cache, a recogniser written in Python that scripts, fails or blocks, cancel
leaving no thread, and PocketSphinx absent (an empty library of its SONAME first on the library path):
VN_E_UNSUPPORTED naming what to install, while waveforms go on."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List

import pytest

from audiofiles import Media, run
from helpers import PACKAGE_ROOT, TIMEOUT, threads_named, wait_until

import voicenote
import voicenote.aio
from voicenote import TranscriptionEventKind, TranscriptWord

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402

#: Sentences PocketSphinx's English model hears well enough from espeak-ng's en-us+f2 voice for "tomorrow" and
#: "morning" to come through, with pauses that end an utterance between them (three word events).
SSML = ("<speak>Open the door please.<break time='1200ms'/>Call me tomorrow morning.<break time='1200ms'/>"
        "The weather is nice today.</speak>")


@pytest.fixture(scope="module")
def sentence(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("transcribe")
    raw, wav, ogg = folder / "raw.wav", folder / "speech.wav", folder / "speech.ogg"
    run(["espeak-ng", "-m", "-v", "en-us+f2", "-s", "160", "-w", str(raw), SSML])
    run(["sox", "-R", str(raw), "-r", "48000", "-c", "1", "-b", "16", str(wav), "pad", "0.3", "0.5"])
    run(["opusenc", "--quiet", str(wav), str(ogg)])
    return ogg


def test_the_function_hears_the_sentence_and_a_second_request_is_a_cache_read(sentence: Path) -> None:
    first = voicenote.transcribe(sentence)
    assert first.recogniser == "pocketsphinx/en-us"
    assert "tomorrow morning" in first.text, first.text
    assert all(a.start <= b.start for a, b in zip(first.words, first.words[1:]))
    assert all(0 <= w.start <= w.end <= 9 and 0 <= w.confidence <= 1 for w in first.words), first.words
    tomorrow = next(i for i, w in enumerate(first.words) if w.text == "tomorrow")
    assert first.word_at(first.words[tomorrow].start + 0.01) == tomorrow
    started = time.monotonic()
    again = voicenote.transcribe(sentence)
    assert time.monotonic() - started < 0.5 and again == first


def test_the_object_tells_words_as_each_utterance_ends(sentence: Path) -> None:
    events: List[voicenote.TranscriptionEvent] = []
    ended = threading.Event()

    def collect(event: voicenote.TranscriptionEvent) -> None:
        events.append(event)
        if event.kind is not TranscriptionEventKind.WORDS:
            ended.set()

    with voicenote.Transcription(str(sentence)) as job:
        job.subscribe(collect)
        job.start()
        transcript = job.wait(TIMEOUT)
        assert ended.wait(TIMEOUT)
    words = [e for e in events if e.kind is TranscriptionEventKind.WORDS]
    assert len(words) >= 3, events
    assert events[-1].kind is TranscriptionEventKind.FINISHED and not events[-1].cached
    assert tuple(w for e in words for w in e.words) == transcript.words == events[-1].words


def test_asyncio_and_a_url_from_a_real_server(sentence: Path) -> None:
    with HTTPTestServer(str(sentence.parent)) as server:
        url = server.url(f"/range/{sentence.name}")
        transcript = asyncio.run(voicenote.aio.transcribe(url))
    assert "tomorrow" in transcript.text


def test_asyncio_cancel_cancels_and_leaves_no_thread(sentence: Path) -> None:
    gate = threading.Event()

    class Session:
        def feed(self, samples: memoryview) -> List[TranscriptWord]:
            gate.wait(TIMEOUT)
            return []

        def finish(self) -> List[TranscriptWord]:
            return []

    class Slow(voicenote.HostRecogniser):
        def begin(self) -> Session:
            return Session()

    async def cancelled() -> None:
        task = asyncio.ensure_future(voicenote.aio.transcribe(sentence, Slow("test/slow")))
        await asyncio.sleep(0)
        deadline = time.monotonic() + TIMEOUT
        while threads_named("vn-transcribe", prefix=True) == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        task.cancel()
        gate.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    assert wait_until(lambda: threads_named("vn-transcribe", prefix=True) == 0), "a vn-transcribe thread is left"


class Scripted(voicenote.HostRecogniser):
    """One word per second of audio fed ("s0", "s1", …), "done" at the finish; fails on `fail_at` samples."""

    def __init__(self, identity: str, fail_at: int = -1) -> None:
        super().__init__(identity, 16000)
        self.fail_at = fail_at
        self.sessions = 0

    def begin(self) -> "Scripted.Session":
        self.sessions += 1
        return Scripted.Session(self)

    class Session:
        def __init__(self, owner: "Scripted") -> None:
            self.owner, self.fed = owner, 0

        def feed(self, samples: memoryview) -> List[TranscriptWord]:
            assert samples.format == "h" and 0 < len(samples) <= 1600
            before, self.fed = self.fed, self.fed + len(samples)
            if 0 <= self.owner.fail_at <= self.fed:
                raise voicenote.IOFailedError(-4, "VN_E_IO", "scripted failure")
            return [TranscriptWord(f"s{s}", s, s + 0.5, 0.5) for s in range(before // 16000, self.fed // 16000)]

        def finish(self) -> List[TranscriptWord]:
            return [TranscriptWord("done", self.fed / 16000, self.fed / 16000, 1.0)]


def test_a_python_recogniser_scripts_its_words(media: Media) -> None:
    recogniser = Scripted("test/scripted")
    transcript = voicenote.transcribe(media.files["mp3"], recogniser)
    assert transcript.recogniser == "test/scripted"
    seconds = int(media.wav_seconds)
    assert [w.text for w in transcript.words] == [f"s{s}" for s in range(seconds)] + ["done"]
    assert abs(transcript.words[-1].start - media.wav_seconds) < 0.1
    assert recogniser.sessions == 1
    # A transcript kept by another identity is not served to this one, nor this one's to PocketSphinx.
    assert voicenote.transcribe(media.files["mp3"], Scripted("test/other")).recogniser == "test/other"


def test_a_python_recogniser_that_fails_fails_the_transcription(media: Media) -> None:
    with pytest.raises(voicenote.IOFailedError):
        voicenote.transcribe(media.files["opus"], Scripted("test/failing", fail_at=16000))

    class Broken(voicenote.HostRecogniser):
        def begin(self) -> None:
            raise RuntimeError("no model")

    with pytest.raises(voicenote.InternalError):
        voicenote.transcribe(media.files["opus"], Broken("test/broken"))


def test_the_cli_transcribes_and_searches(cli: Path, sentence: Path, media: Media) -> None:
    out = subprocess.run([str(cli), "transcribe", "--json", "-j", "2", str(sentence), str(media.files["wav"]),
                          "/nonexistent.ogg"], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 1, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["path"] for line in lines] == [str(sentence), str(media.files["wav"]), "/nonexistent.ogg"]
    assert "tomorrow" in lines[0]["text"] and lines[0]["words"][0]["start"] >= 0 and not lines[0]["cached"]
    assert lines[2]["error"]["status"] == "VN_E_NOT_FOUND"
    found = subprocess.run([str(cli), "search", "Tomorrow MORNING", str(sentence), str(media.files["wav"]),
                            str(media.files["opus"])], capture_output=True, text=True, timeout=TIMEOUT)
    assert found.returncode == 0, found.stderr
    path, seconds, text = found.stdout.splitlines()[0].split("\t")
    assert path == str(sentence) and 2 < float(seconds) < 6 and "tomorrow morning" in text
    assert len(found.stdout.splitlines()) == 1
    assert f"{media.files['opus']}: no transcript kept" in found.stderr
    missing = subprocess.run([str(cli), "search", "banana", str(sentence)], capture_output=True, text=True,
                             timeout=TIMEOUT)
    assert missing.returncode == 1 and missing.stdout == ""
    streamed = subprocess.run([str(cli), "transcribe", str(media.files["flac"])], capture_output=True, text=True,
                              timeout=TIMEOUT)
    assert streamed.returncode == 0 and streamed.stdout.strip(), streamed.stderr


CHILD = r"""
import sys, voicenote
print(len(voicenote.waveform(sys.argv[1], 20)))
try:
    voicenote.transcribe(sys.argv[1])
except voicenote.VoiceNoteError as error:
    print(error.name, error)
"""


def test_without_pocketsphinx_transcripts_are_unsupported_and_the_rest_works(media: Media, tmp_path: Path) -> None:
    (tmp_path / "libpocketsphinx.so.3").write_bytes(b"")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["LD_LIBRARY_PATH"] = os.pathsep.join([str(tmp_path)] + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    child = subprocess.run([sys.executable, "-c", CHILD, str(media.files["opus"])], capture_output=True, text=True,
                           env=env, timeout=TIMEOUT)
    assert child.returncode == 0, child.stderr
    count, failure = child.stdout.splitlines()
    assert count == "20"
    assert failure.startswith("VN_E_UNSUPPORTED") and "libpocketsphinx3" in failure and "cannot load libpocketsphinx.so.3" in failure, failure
    assert child.stderr == ""


def test_a_payload_carries_the_transcript_to_matrix_and_back() -> None:
    transcript = voicenote.Transcript("pocketsphinx/en-us", (TranscriptWord("call", 0.25, 0.5, 0.9),
                                                             TranscriptWord("me", 0.52, 0.7, 0.456)))
    payload = voicenote.VoiceRecordingPayload("mxc://example.org/abc", duration=7.5)
    assert payload.transcript is None
    payload.transcript = transcript
    assert payload.transcript == transcript
    content = payload.to_matrix_content()
    assert content["body"] == "Voice message: call me"
    assert content["org.matrix.msc1767.text"] == "call me"
    assert content["org.voicenote.transcript"]["words"] == [["call", 250, 500, 900], ["me", 520, 700, 456]]
    received = voicenote.VoiceRecordingPayload.from_matrix_content(json.dumps(content))
    assert received.transcript == transcript
    payload.transcript = None
    assert payload.transcript is None


def test_a_player_seeks_to_a_word(sentence: Path, tmp_path: Path) -> None:
    from test_player import speaker_player

    word = TranscriptWord("tomorrow", 3.11, 3.55, 0.9)  # a word of the sentence, as PocketSphinx times it
    with speaker_player(tmp_path / "out.raw") as player:
        player.load(str(sentence), autoplay=False)
        player.seek_to_word(word)
        deadline = time.monotonic() + TIMEOUT
        while (player.context.is_seeking or abs(player.context.current_time - (word.start - 0.05)) > 1e-6) \
                and time.monotonic() < deadline:
            time.sleep(0.005)
        assert abs(player.context.current_time - (word.start - 0.05)) < 1e-6
        with pytest.raises(TypeError):
            player.seek_to_word("tomorrow")


def test_a_python_recogniser_dropped_is_released(media: Media) -> None:
    import gc
    import weakref

    from voicenote import _transcript

    before = len(_transcript._hosts)
    recogniser = Scripted("test/dropped")
    assert voicenote.transcribe(media.files["wav"], recogniser).words
    watch = weakref.ref(recogniser)
    del recogniser
    gc.collect()
    assert watch() is None
    deadline = time.monotonic() + TIMEOUT
    while len(_transcript._hosts) > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(_transcript._hosts) == before  # the library's release came
    assert not _transcript._sessions
