"""`voicenote demo` the way a newcomer meets it: a fresh HOME whose ALSA default points at a card that does not
exist and no PulseAudio, so there is no sound card and no microphone; the demo must still tell the whole story and
every file it names must decode. With an upload server, the note goes there and plays back from its URL."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from audiofiles import REPO_ROOT
from microphones import decoded_samples

sys.path.insert(0, str(REPO_ROOT / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402

#: The demo's own bound, as the issue gives it.
DEMO_SECONDS = 60


def no_sound_card(home: Path) -> Dict[str, str]:
    """An environment with a fresh HOME whose ALSA default is a card that does not exist, and no PulseAudio."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".asoundrc").write_text("pcm.!default { type hw card 27 }\nctl.!default { type hw card 27 }\n")
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("XDG_", "PULSE_", "ALSA_")) and key != "HOME"}
    env.update(HOME=str(home), PULSE_SERVER="unix:/nonexistent/pulse")
    return env


def run_demo(cli: Path, tmp_path: Path, *options: str) -> "tuple[str, List[Path]]":
    """Runs the demo; returns its output and the files its last lines name."""
    out = tmp_path / "out"
    result = subprocess.run([str(cli), "demo", "--output-dir", str(out), *options], env=no_sound_card(tmp_path / "home"),
                            capture_output=True, text=True, timeout=DEMO_SECONDS)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    named = result.stdout.split("▸ files:\n", 1)[1].splitlines()
    files = [Path(line.strip().split("  (", 1)[0]) for line in named if line.startswith("  /")]
    return result.stdout, files


def seconds(path: Path) -> float:
    """The length FFmpeg decodes (a reference outside the library; Ogg Opus with its pre-skip applied, which
    ffprobe's container duration leaves in)."""
    return decoded_samples(str(path)) / 48000


def decodes(path: Path) -> bool:
    return decoded_samples(str(path)) > 0


def test_the_demo_tells_the_whole_story_without_a_sound_card(cli: Path, tmp_path: Path) -> None:
    output, files = run_demo(cli, tmp_path)
    names = {path.name for path in files}
    assert names == {"speech.wav", "note.ogg", "waveform.svg", "playback-1x.wav", "playback-2x.wav", "note-2.ogg",
                     "note-3.ogg", "queue.wav"}, names
    for path in files:
        assert path.exists(), path
        if path.suffix != ".svg":
            assert decodes(path), path
    svg = (tmp_path / "out" / "waveform.svg").read_text()
    heights = [float(part.split('"', 1)[0]) for part in svg.split('height="')[2:]]  # the first is the image's
    assert svg.startswith("<svg") and len(heights) == int(300 // 3.5)  # Stream's bars: 1.5 px wide, 2 px apart
    assert max(heights) > 10, "a waveform with speech in it, not a flat line"
    # The flow's steps, the take and its payload.
    for state in ("recording:", "locked:", "preview:", "idle:"):
        assert f"  {state}" in output
    payload = json.loads(output.split("what a chat message carries):\n", 1)[1].splitlines()[0])
    note = tmp_path / "out" / "note.ogg"
    assert payload["asset_url"] == f"file://{note}" and len(payload["waveform_data"]) == 100
    assert abs(payload["duration"] - seconds(note)) < 0.05
    # Its loudness, measured as it was recorded, shown and carried; the notes played levelled to -19 LUFS.
    loudness = payload["voicenote_loudness"]
    assert -40 < loudness["integrated_lufs"] < -5 and loudness["true_peak_dbtp"] < 1, loudness
    assert "its loudness (EBU R128, measured as it was recorded): " in output
    assert "levelled to -19.0 LUFS" in output
    # The speaker's files hold the playback: the note at 1x, at 2x in half the time, and the three notes in a row.
    one, two = seconds(tmp_path / "out" / "playback-1x.wav"), seconds(tmp_path / "out" / "playback-2x.wav")
    assert abs(one - payload["duration"]) < 0.1 and abs(two - one / 2) < 0.1
    queue = sum(seconds(tmp_path / "out" / name) for name in ("note.ogg", "note-2.ogg", "note-3.ogg"))
    assert abs(seconds(tmp_path / "out" / "queue.wav") - queue) < 0.2
    assert "takes" not in os.listdir(tmp_path / "out")


def test_with_an_endpoint_the_note_is_uploaded_and_played_from_the_server(cli: Path, tmp_path: Path,
                                                                           upload_server: HTTPTestServer) -> None:
    server = upload_server
    output, files = run_demo(cli, tmp_path, "--endpoint", server.url("/channels/messaging/demo/file"))
    uploaded = json.loads(output.split("where the note is now):\n", 1)[1].splitlines()[0])
    assert uploaded["asset_url"] == server.url("/range/uploads/1.bin")
    assert (Path(server.root) / "uploads" / "1.bin").read_bytes() == (tmp_path / "out" / "note.ogg").read_bytes()
    assert f"  ▶ {uploaded['asset_url']}" in output
    played = server.wait_for_request(lambda request: request["path"] == "/range/uploads/1.bin")
    assert played["method"] == "GET"
    assert abs(seconds(tmp_path / "out" / "playback-1x.wav") - uploaded["duration"]) < 0.1


@pytest.mark.parametrize("relative, name", [
    (True, "|touch PWNED;"),  # relative, as typed: ALSA's file plugin ran a name starting with | as a command
    (False, "q\"uote \\ $HOME 's %r %% {x} # ;\nline"),  # every character ALSA's text or the plugin reads
], ids=["pipe", "quote-backslash-dollar-percent-newline"])
def test_any_output_directory_is_only_a_directory(cli: Path, tmp_path: Path, relative: bool, name: str) -> None:
    """The demo writes its virtual microphone's input and its speakers' WAV files through ALSA configuration text:
    the directory's name is a path there, whatever it holds, and nothing runs."""
    out = Path(name) if relative else tmp_path / name
    result = subprocess.run([str(cli), "demo", "--output-dir", str(out)], env=no_sound_card(tmp_path / "home"),
                            cwd=tmp_path, capture_output=True, text=True, timeout=DEMO_SECONDS)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert not (tmp_path / "PWNED").exists()
    folder = tmp_path / out
    assert {"playback-1x.wav", "playback-2x.wav", "queue.wav", "note.ogg", "note-2.ogg"} <= set(os.listdir(folder))
    assert decodes(folder / "playback-1x.wav") and decodes(folder / "note-2.ogg")  # both ALSA devices: out and in


def test_bad_options_are_refused(cli: Path, tmp_path: Path) -> None:
    for options in (["--endpoint", "ftp://host/x"], ["--output-dir", ""], ["--text", " "]):
        result = subprocess.run([str(cli), "demo", *options], capture_output=True, timeout=DEMO_SECONDS,
                                cwd=tmp_path)
        assert result.returncode == 64, (options, result.stderr)
