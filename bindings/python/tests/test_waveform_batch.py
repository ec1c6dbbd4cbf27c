"""Many waveforms in one process: voicenote.waveforms (vn_waveform_batch_*) and `voicenote waveform FILE… -j N`.
Results in input order, exactly one per input, failures (a missing file, a directory, random bytes, a URL that
answers 404) in the middle of good ones without stopping the batch, values equal to the one-file call, -j 1 equal
to -j 4, input read lazily (a generator, standard input), workers gone when the iteration stops early, and a batch
of 1000 notes in bounded memory."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from audiofiles import Media, is_tsan_build, loaded_library_path
from helpers import TIMEOUT, threads_named
from http_server import HTTPTestServer  # Tests/Servers, on the path through conftest.py

import voicenote


@pytest.fixture
def server(media: Media) -> Iterator[HTTPTestServer]:
    """A server over the media folder, stopped by its pid after the test."""
    with HTTPTestServer(media.files["opus"].parent) as running:
        yield running


def mixed_inputs(media: Media, server: HTTPTestServer, tmp_path: Path) -> List[str]:
    """Good notes of every format with four bad inputs between them; and which are bad."""
    garbage = tmp_path / "random.ogg"
    garbage.write_bytes(os.urandom(4096))
    good = [str(media.files[kind]) for kind in ("opus", "mp3", "aac", "wav", "flac", "vorbis")]
    return [good[0], str(tmp_path / "missing.ogg"), good[1], str(tmp_path), good[2], str(garbage), good[3],
            server.url("/status/404"), good[4], server.url(f"/range/{media.files['opus'].name}"), good[5]]


BAD = {1: voicenote.NotFoundError, 3: voicenote.InvalidArgumentError, 5: voicenote.FormatError,
       7: voicenote.NotFoundError}


def vn_waveform_threads() -> int:
    """The library's waveform workers alive in this process (by the name the library gives them)."""
    return threads_named("vn-waveform")


@pytest.mark.parametrize("jobs", [1, 4])
def test_results_in_input_order_with_failures_in_the_middle(jobs: int, media: Media, server: HTTPTestServer,
                                                           tmp_path: Path) -> None:
    inputs = mixed_inputs(media, server, tmp_path)
    results = list(voicenote.waveforms(inputs, samples=40, jobs=jobs))
    assert [r.index for r in results] == list(range(len(inputs)))
    assert [r.location for r in results] == inputs
    for index, result in enumerate(results):
        if index in BAD:
            assert isinstance(result.error, BAD[index]) and not result.ok and result.values == [], result
        else:
            assert result.ok, result.error
            assert result.values == voicenote.waveform(inputs[index], 40)
            assert result.duration == pytest.approx(media.wav_seconds, abs=0.05)


def test_one_job_and_four_give_the_same_values(media: Media, server: HTTPTestServer, tmp_path: Path) -> None:
    inputs = mixed_inputs(media, server, tmp_path)
    one = [(r.values, r.duration, type(r.error)) for r in voicenote.waveforms(inputs, jobs=1)]
    four = [(r.values, r.duration, type(r.error)) for r in voicenote.waveforms(inputs, jobs=4)]
    assert one == four


def test_input_is_read_lazily_and_an_early_stop_ends_the_workers(media: Media) -> None:
    pulled = 0

    def paths() -> Iterator[str]:
        nonlocal pulled
        for _ in range(10_000):
            pulled += 1
            yield str(media.files["opus"])

    results = voicenote.waveforms(paths(), samples=10, jobs=2)
    first = next(results)
    assert first.ok and first.index == 0
    assert pulled <= 2 * 2 + 1  # the window's notes, not the ten thousand
    assert vn_waveform_threads() == 2
    results.close()  # as a `break` or a collected generator does: the batch is destroyed, its workers joined
    assert vn_waveform_threads() == 0


def test_arguments_are_checked_before_anything_runs() -> None:
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.waveforms(["a.ogg"], samples=0)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.waveforms(["a.ogg"], jobs=0)
    with pytest.raises(TypeError):
        list(voicenote.waveforms([12]))
    assert list(voicenote.waveforms([])) == []


# --- the command line -------------------------------------------------------------------------------------------

def run_cli(cli: Path, *arguments: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([str(cli), "waveform", *arguments], input=stdin, capture_output=True, text=True,
                          timeout=4 * TIMEOUT)


def test_the_cli_prints_one_json_line_per_input_in_order(cli: Path, media: Media, server: HTTPTestServer,
                                                         tmp_path: Path) -> None:
    inputs = mixed_inputs(media, server, tmp_path)
    result = run_cli(cli, *inputs, "--samples", "40", "-j", "4")
    assert result.returncode == 1, result.stderr  # some failed
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["path"] for line in lines] == inputs
    for index, line in enumerate(lines):
        if index in BAD:
            assert set(line) == {"path", "error"} and line["error"]["status"].startswith("VN_E_")
            assert line["error"]["message"]
        else:
            assert set(line) == {"path", "duration", "values"}
            assert line["values"] == json.loads(run_cli(cli, inputs[index], "--samples", "40").stdout)  # as one file
            assert line["duration"] == pytest.approx(media.wav_seconds, abs=0.05)
    assert [lines[i]["error"]["status"] for i in sorted(BAD)] == ["VN_E_NOT_FOUND", "VN_E_INVALID_ARG",
                                                                  "VN_E_FORMAT", "VN_E_NOT_FOUND"]


def test_the_cli_reads_inputs_from_stdin_and_one_job_equals_four(cli: Path, media: Media) -> None:
    good = [str(media.files[kind]) for kind in ("opus", "mp3", "flac")] * 3
    by_stdin = run_cli(cli, "--from", "-", "-j", "1", "--encoding", "matrix", stdin="\n".join(good) + "\n\n")
    by_arguments = run_cli(cli, *good, "-j", "4", "--encoding", "matrix")
    assert by_stdin.returncode == 0 and by_arguments.returncode == 0, by_stdin.stderr + by_arguments.stderr
    assert by_stdin.stdout == by_arguments.stdout
    assert len(by_stdin.stdout.splitlines()) == len(good)
    assert all(isinstance(v, int) for v in json.loads(by_stdin.stdout.splitlines()[0])["values"])
    refused = run_cli(cli, *good[:2], "--format", "svg")
    assert refused.returncode == 64 and "json" in refused.stderr


def test_a_thousand_notes_in_bounded_memory(cli: Path, media: Media, tmp_path: Path) -> None:
    note = media.files["opus"]
    listing = tmp_path / "thousand.txt"
    listing.write_text((str(note) + "\n") * 1000)

    def peak_kib(*arguments: str) -> int:
        report = tmp_path / "time.txt"
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(report), str(cli), "waveform", *arguments],
                                capture_output=True, text=True, timeout=20 * TIMEOUT)
        assert result.returncode == 0, result.stderr
        return int(report.read_text().split()[-1])

    one = peak_kib(str(note), str(note), "-j", "2")
    thousand = peak_kib("--from", str(listing), "-j", "2")
    assert thousand - one <= 2 * 5 * 1024, f"{thousand} KiB for 1000 notes, {one} KiB for 2"


# --- one long note on every core ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def long_notes(media: Media, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """45 s of speech (the session's sentence nine times, 0.7 s cut off the end) by opusenc and lame (VBR, with its
    Xing/LAME tag): long enough for four ranges of at least ten seconds. Not under ThreadSanitizer: the ranges' threads
    are its Swift suite's (a batch splitting a long note) and the C tests' there; these check the values."""
    if is_tsan_build(loaded_library_path()):
        pytest.skip("the long notes' values are checked in the plain run; the split's threads under ThreadSanitizer "
                    "by the Swift and C suites")
    folder = tmp_path_factory.mktemp("long")
    wav = folder / "long.wav"
    subprocess.run(["sox", str(media.files["wav"])] * 1 + [str(media.files["wav"])] * 8 + [str(folder / "joined.wav")],
                   check=True, timeout=TIMEOUT)
    seconds = 9 * media.wav_seconds - 0.7
    subprocess.run(["sox", str(folder / "joined.wav"), str(wav), "trim", "0", f"{seconds:.3f}"], check=True, timeout=TIMEOUT)
    notes = {"opus": folder / "long.opus", "mp3": folder / "long.mp3"}
    subprocess.run(["opusenc", "--quiet", "--bitrate", "24", str(wav), str(notes["opus"])], check=True, timeout=TIMEOUT)
    subprocess.run(["lame", "--quiet", "-V", "5", str(wav), str(notes["mp3"])], check=True, timeout=TIMEOUT)
    assert seconds >= 4 * 10
    return notes


@pytest.mark.parametrize("kind", ["opus", "mp3"])
def test_a_batch_of_one_long_note_splits_it_and_gives_the_one_pass_values(kind: str,
                                                                       long_notes: Dict[str, Path]) -> None:
    note = str(long_notes[kind])
    lines: List[str] = []
    voicenote.set_log_handler(lambda level, line: lines.append(line), voicenote.LOG_DEBUG)
    try:
        [split] = voicenote.waveforms([note], samples=100, jobs=4)
        [alone] = voicenote.waveforms([note], samples=100, jobs=1)
    finally:
        voicenote.set_log_handler(None)
    assert any(line.endswith(": 4 ranges decoded in parallel") and note in line for line in lines), lines
    assert sum("ranges decoded in parallel" in line for line in lines) == 1  # -j 1 never splits
    assert split.ok and alone.ok
    assert alone.values == voicenote.waveform(note, 100)
    # The buckets holding a cut may differ a little (a decoder restarted 80 ms before it for Opus), never by 0.001.
    assert split.values == pytest.approx(alone.values, abs=0.001, rel=0)
    assert split.duration == alone.duration


def test_the_cli_gives_a_long_note_the_same_values_on_one_core_and_four(cli: Path,
                                                                        long_notes: Dict[str, Path]) -> None:
    notes = [str(long_notes["opus"]), str(long_notes["mp3"])]
    for note in notes:
        one = run_cli(cli, note, "-j", "1")
        four = run_cli(cli, note, "-j", "4")
        assert one.returncode == 0 and four.returncode == 0, one.stderr + four.stderr
        assert len(json.loads(one.stdout)) == 100
        assert json.loads(four.stdout) == pytest.approx(json.loads(one.stdout), abs=0.001, rel=0)
    both = run_cli(cli, *notes, "-j", "4")  # as a batch: the last note taken may use the idle workers
    for line, note in zip(both.stdout.splitlines(), notes):
        assert json.loads(line)["values"] == pytest.approx(json.loads(run_cli(cli, note, "-j", "1").stdout),
                                                           abs=0.001, rel=0)
    assert len(both.stdout.splitlines()) == len(notes)
