"""`voicenote play A B C` (Sources/voicenote-cli/PlayCommand.swift, PlaybackSession.swift): several files or URLs
play in order as a queue, back to back, to a file speaker (ALSA's `file` plugin over `null`, as in
test_cli_play.py). The notes are three short Ogg Opus tones of different pitch (audiofiles.make_tones), so the order
they were heard in can be read back from the speaker's output. An item that fails to load is reported on stderr and
the queue goes on; the command then exits non-zero."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator, List

import pytest

from audiofiles import REPO_ROOT, TONE_FREQUENCIES, assert_tones_in_order
from test_cli_play import file_speaker, run

sys.path.insert(0, str(REPO_ROOT / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402


def play(cli: Path, output: Path, *locations: str):
    return run(cli, "play", *locations, "--device", "vn_spk", "--device-config", file_speaker(output))


@pytest.fixture
def server(tones: List[Path]) -> Iterator[HTTPTestServer]:
    with HTTPTestServer(tones[0].parent) as running:
        yield running


def test_three_files_play_in_order_back_to_back(cli: Path, tones: List[Path], tmp_path: Path) -> None:
    output = tmp_path / "out.raw"
    result = play(cli, output, *map(str, tones))
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""
    assert_tones_in_order(output, TONE_FREQUENCIES)


def test_a_missing_middle_file_is_reported_and_the_third_still_plays(cli: Path, tones: List[Path],
                                                                     tmp_path: Path) -> None:
    output = tmp_path / "out.raw"
    missing = tmp_path / "no-such-note.ogg"
    result = play(cli, output, str(tones[0]), str(missing), str(tones[2]))
    assert result.returncode != 0
    assert str(missing) in result.stderr and "VN_E_NOT_FOUND" in result.stderr, result.stderr
    assert result.stdout == ""
    assert_tones_in_order(output, [TONE_FREQUENCIES[0], TONE_FREQUENCIES[2]])
    # The status is the failure's, as when the missing file is played alone.
    alone = play(cli, tmp_path / "alone.raw", str(missing))
    assert result.returncode == alone.returncode > 0


def test_urls_play_in_order(cli: Path, tones: List[Path], server: HTTPTestServer, tmp_path: Path) -> None:
    output = tmp_path / "out.raw"
    paths = [f"/range/{tones[0].name}", f"/norange/{tones[1].name}", f"/chunked/{tones[2].name}"]
    result = play(cli, output, *(server.url(path) for path in paths))
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""
    assert_tones_in_order(output, TONE_FREQUENCIES)
    requested = [request["path"] for request in server.requests()]
    assert all(path in requested for path in paths), requested
