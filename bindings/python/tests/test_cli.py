"""The `voicenote` command-line tool (README.md): every command answers --help, data commands print JSON, errors exit
non-zero with a one-line reason, and `record` keeps the file on a length limit and on Ctrl-C (SIGINT).

Devices are real ALSA PCMs: a virtual microphone through ALSA's `file` plugin, given as configuration text."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from audiofiles import write_tone

import voicenote

TIMEOUT = 60


@pytest.fixture(scope="module")
def microphone(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(device name, ALSA configuration text) of a virtual microphone reading 6 s of speech."""
    directory = tmp_path_factory.mktemp("mic")
    wav, raw = directory / "speech.wav", directory / "speech.raw"
    subprocess.run(["espeak-ng", "-w", str(wav), "Hey, it's me. I'm just leaving the office now. See you at seven, "
                    "and please bring the charger for the small camera."], check=True, timeout=TIMEOUT)
    subprocess.run(["sox", str(wav), "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r", "48000",
                    str(raw), "pad", "0", "2"], check=True, timeout=TIMEOUT)
    return "vn_mic", f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{raw}" format raw }}'


def run(cli: Path, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli), *arguments], capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("command", ["", "record", "recover", "info", "waveform", "devices", "version"])
def test_every_command_answers_help(cli: Path, command: str) -> None:
    result = run(cli, *([command] if command else []), "--help")
    assert result.returncode == 0, result.stderr
    assert "USAGE" in result.stdout.upper()


def test_record_stops_at_the_duration_and_keeps_the_file(cli: Path, microphone: tuple[str, str], tmp_path: Path) -> None:
    device, config = microphone
    output = tmp_path / "note.ogg"
    result = run(cli, "record", "--device", device, "--device-config", config, "--duration", "1.5",
                 "-o", str(output), "--progress", "json")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    steps = [line for line in lines if line.get("state") == "recording"]
    assert steps and all(0 <= step["average_power"] <= 1 for step in steps)
    assert lines[-1] == {"finished": str(output), "duration": 1.5, "size": output.stat().st_size}
    facts = voicenote.info(output)
    assert facts["codec"] == "opus" and facts["duration"] == pytest.approx(1.5, abs=1e-6)
    assert not list(tmp_path.glob("*.part"))


def test_record_aac(cli: Path, microphone: tuple[str, str], tmp_path: Path) -> None:
    device, config = microphone
    output = tmp_path / "note.aac"
    result = run(cli, "record", "--device", device, "--device-config", config, "--duration", "1",
                 "--format", "aac", "-o", str(output), "--progress", "none")
    assert result.returncode == 0, result.stderr
    assert voicenote.info(output)["codec"] == "aac"


def test_ctrl_c_stops_and_keeps_the_file(cli: Path, microphone: tuple[str, str], tmp_path: Path) -> None:
    device, config = microphone
    output = tmp_path / "interrupted.ogg"
    child = subprocess.Popen([str(cli), "record", "--device", device, "--device-config", config, "--max-duration", "0",
                              "-o", str(output), "--progress", "json"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        first = json.loads(child.stdout.readline())
        assert first["state"] == "recording"
        # Interrupt once audio was captured (a take with no frame is never a file): the first step with a duration.
        while json.loads(child.stdout.readline() or '{"duration": -1}')["duration"] == 0:
            pass
        child.send_signal(signal.SIGINT)
        rest, _ = child.communicate(timeout=TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0
    finished = json.loads(rest.splitlines()[-1])
    assert finished["finished"] == str(output) and finished["duration"] > 0
    assert voicenote.info(output)["duration"] == pytest.approx(finished["duration"], abs=0.001)


def test_record_from_a_missing_device_fails_with_one_line(cli: Path, tmp_path: Path) -> None:
    result = run(cli, "record", "--device", "vn_no_such_device", "--duration", "1", "-o", str(tmp_path / "x.ogg"))
    assert result.returncode != 0
    reason = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(reason) == 1 and "VN_E_DEVICE" in reason[0]
    assert not list(tmp_path.iterdir())


def record_under_a_file_size_limit(cli: Path, microphone: tuple[str, str], output: Path, limit_kib: int) -> str:
    """`voicenote record` of 7 s under RLIMIT_FSIZE (SIGXFSZ ignored, as a shell's `ulimit -f` with a trap leaves
    it): writes past the limit fail with EFBIG, which is a full disk for the recorder (docs/recorder.md). Checks that the
    command failed with VN_E_NO_SPACE; returns its stdout."""
    device, config = microphone
    script = f'ulimit -f {limit_kib} && trap "" XFSZ && exec "$0" "$@"'
    # Without a preloaded sanitizer runtime (the TSan suite preloads one for the library under test): it maps
    # files of its own, which the file-size limit breaks.
    env = {name: value for name, value in os.environ.items() if name != "LD_PRELOAD"}
    result = subprocess.run(["bash", "-c", script, str(cli), "record", "--device", device, "--device-config", config,
                             "--duration", "7", "-o", str(output), "--progress", "json"],
                            capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert result.returncode != 0
    assert "VN_E_NO_SPACE" in result.stderr, result.stderr
    return result.stdout


def test_a_file_size_limit_ends_the_take_keeping_what_fitted(cli: Path, microphone: tuple[str, str],
                                                             tmp_path: Path) -> None:
    # VN_E_NO_SPACE, and the file is kept, valid, and reported with the length it holds (not what was captured).
    output = tmp_path / "note.ogg"
    stdout = record_under_a_file_size_limit(cli, microphone, output, 16)
    finished = json.loads(stdout.splitlines()[-1])
    assert finished["finished"] == str(output) and 0 < finished["size"] <= 16 * 1024
    assert output.stat().st_size == finished["size"]
    duration = voicenote.info(output)["duration"]
    assert 1 < duration < 7 and duration == pytest.approx(finished["duration"], abs=0.03)
    assert not list(tmp_path.glob("*.part"))


def test_a_file_size_limit_before_any_audio_keeps_nothing(cli: Path, microphone: tuple[str, str],
                                                          tmp_path: Path) -> None:
    # 1 KiB holds the Ogg Opus headers but not the first page of audio: no file is kept (no .part either, which
    # `recover` could only report as failed forever), and the error is VN_E_NO_SPACE.
    output = tmp_path / "note.ogg"
    stdout = record_under_a_file_size_limit(cli, microphone, output, 1)
    assert not any("finished" in line for line in stdout.splitlines())
    assert list(tmp_path.iterdir()) == []


def test_recover_finishes_a_part_file(cli: Path, microphone: tuple[str, str], tmp_path: Path) -> None:
    device, config = microphone
    take = tmp_path / "take.ogg"
    assert run(cli, "record", "--device", device, "--device-config", config, "--duration", "2", "-o", str(take),
               "--progress", "none").returncode == 0
    data = take.read_bytes()
    part = tmp_path / "CRASHED.ogg.part"
    part.write_bytes(data[: len(data) * 3 // 4])  # what a killed process leaves: cut inside a page
    take.unlink()
    result = run(cli, "recover", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {"recovered": [str(tmp_path / "CRASHED.ogg")], "failed": []}
    assert 0.5 < voicenote.info(tmp_path / "CRASHED.ogg")["duration"] < 2
    assert run(cli, "recover", str(tmp_path)).stdout.strip() == "nothing to recover"


def test_recover_of_a_missing_directory_fails(cli: Path, tmp_path: Path) -> None:
    result = run(cli, "recover", str(tmp_path / "missing"))
    assert result.returncode != 0 and "VN_E_NOT_FOUND" in result.stderr


def test_devices_lists_alsa_pcms(cli: Path) -> None:
    result = run(cli, "devices", "--json")
    assert result.returncode == 0, result.stderr
    devices = json.loads(result.stdout)
    null = [device for device in devices if device["name"] == "null"]
    assert null and null[0]["description"] and null[0]["capture"] and null[0]["playback"]


def test_info_of_a_missing_file_fails(cli: Path, tmp_path: Path) -> None:
    result = run(cli, "info", str(tmp_path / "missing.ogg"), "--json")
    assert result.returncode != 0 and "VN_E_NOT_FOUND" in result.stderr and not result.stdout


def test_convert_under_a_file_size_limit_fails_with_no_space_and_leaves_nothing(cli: Path, tmp_path: Path) -> None:
    # `ulimit -f` with no trap: the CLI ignores SIGXFSZ itself, so the write fails (EFBIG) instead of killing it.
    note = write_tone(tmp_path / "long.wav", 20.0)
    output = tmp_path / "out" / "note.ogg"
    output.parent.mkdir()
    env = {name: value for name, value in os.environ.items() if name != "LD_PRELOAD"}  # see the recorder's test
    result = subprocess.run(["bash", "-c", 'ulimit -f 8 && exec "$0" "$@"', str(cli), "convert", str(note), str(output),
                             "--bitrate", "64"], capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert result.returncode == 1 and "VN_E_NO_SPACE" in result.stderr, result.stderr
    assert not list(output.parent.iterdir())


def test_convert_to_a_name_of_255_bytes(cli: Path, tmp_path: Path) -> None:
    # The part file's name is cut to fit NAME_MAX; the output keeps its own.
    output = tmp_path / ("n" * 251 + ".ogg")
    result = run(cli, "convert", str(write_tone(tmp_path / "tone.wav", 0.5)), str(output))
    assert result.returncode == 0, result.stderr
    assert voicenote.info(output)["duration"] == pytest.approx(0.5, abs=0.03)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([output.name, "tone.wav"])


def test_an_output_dir_that_is_a_dangling_symlink_is_named_as_such(cli: Path, tmp_path: Path) -> None:
    link = tmp_path / "alink"
    link.symlink_to(tmp_path / "gone")
    result = run(cli, "demo", "--output-dir", str(link))
    assert result.returncode != 0 and "VN_E_NOT_FOUND" in result.stderr
    assert f"{link} is a symbolic link to '{tmp_path / 'gone'}', which does not exist" in result.stderr, result.stderr
    assert not (tmp_path / "gone").exists()


def damaged_flac(source: Path, target: Path) -> Path:
    """``source`` with every frame's body XORed (metadata and frame headers intact): STREAMINFO still claims its
    samples, but nothing decodes (ffmpeg decodes nothing either)."""
    data = bytearray(source.read_bytes())
    position = 4
    while True:
        last = data[position] & 0x80
        position += 4 + int.from_bytes(data[position + 1:position + 4], "big")
        if last:
            break
    syncs = [i for i in range(position, len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xF8]
    for index, sync in enumerate(syncs):
        end = syncs[index + 1] if index + 1 < len(syncs) else len(data)
        for offset in range(sync + 8, end - 2):
            data[offset] ^= 0x5A
    target.write_bytes(bytes(data))
    return target


def test_info_waveform_and_play_agree_on_a_file_with_no_decodable_audio(cli: Path, tmp_path: Path) -> None:
    subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", str(tmp_path / "tone.wav"), "synth", "2",
                    "sine", "440"], check=True)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(tmp_path / "tone.wav"), str(tmp_path / "tone.flac")],
                   check=True)
    broken = damaged_flac(tmp_path / "tone.flac", tmp_path / "damaged.flac")
    reference = subprocess.run(["ffmpeg", "-nostdin", "-v", "quiet", "-i", str(broken), "-f", "s16le", "-"],
                               capture_output=True)
    assert reference.stdout == b""  # the reference decoder gets nothing out of it either
    speaker = f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{tmp_path / "out.raw"}" format raw }}'
    for arguments in (["info", str(broken)], ["waveform", str(broken)],
                      ["play", str(broken), "--device", "vn_spk", "--device-config", speaker]):
        result = run(cli, *arguments)
        assert result.returncode == 1, (arguments, result.stdout, result.stderr)
        assert result.stderr.startswith("Error: VN_E_FORMAT") and "no audio could be decoded" in result.stderr


def test_waveform_outputs(cli: Path, microphone: tuple[str, str], tmp_path: Path) -> None:
    device, config = microphone
    note = tmp_path / "note.ogg"
    assert run(cli, "record", "--device", device, "--device-config", config, "--duration", "2", "-o", str(note),
               "--progress", "none").returncode == 0
    bars = run(cli, "waveform", str(note), "--format", "bars", env={"COLUMNS": "40"})
    assert bars.returncode == 0 and len(bars.stdout.rstrip("\n")) == 40
    assert set(bars.stdout.rstrip("\n")) <= set(" ▁▂▃▄▅▆▇█")
    svg = run(cli, "waveform", str(note), "--format", "svg")
    assert svg.stdout.startswith("<svg") and svg.stdout.count("<rect") == 200
    png = tmp_path / "wave.png"
    assert run(cli, "waveform", str(note), "--format", "png", "-o", str(png)).returncode == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run(cli, "waveform", str(note), "--format", "png").returncode != 0  # png needs -o
    telegram = json.loads(run(cli, "waveform", str(note), "--encoding", "telegram").stdout)
    assert len(telegram) == 63 and all(0 <= value <= 255 for value in telegram)
    assert bytes(telegram) == voicenote.encode_waveform(voicenote.waveform(note), "telegram")
    matrix = json.loads(run(cli, "waveform", str(note), "--encoding", "matrix").stdout)
    assert len(matrix) == 100 and max(matrix) <= 1024


def test_enter_on_a_terminal_stops_and_keeps_the_file(cli: Path, microphone: tuple[str, str], tmp_path: Path) -> None:
    """On a TTY `record` shows a live meter and timer, and Enter stops it and keeps the file."""
    import pty
    import select

    device, config = microphone
    output = tmp_path / "enter.ogg"
    primary, secondary = pty.openpty()
    child = subprocess.Popen([str(cli), "record", "--device", device, "--device-config", config, "--max-duration", "0",
                              "-o", str(output)], stdin=secondary, stdout=secondary, stderr=secondary,
                             env={**os.environ, "COLUMNS": "60"})
    os.close(secondary)
    screen = b""
    try:
        # Wait (bounded) for the meter line to show captured audio: a timer past 00:00.0 after the recording dot. The
        # first line comes with the take's first context, before capture; an Enter then ends a take of no audio,
        # which is discarded as too short (this test failed so about one run in three).
        deadline = time.monotonic() + TIMEOUT
        while not re.search(rb"\xe2\x97\x8f (?!00:00\.0)\d\d:\d\d\.\d", screen):
            ready, _, _ = select.select([primary], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no meter on the terminal; saw {screen!r}"
            screen += os.read(primary, 4096)
        os.write(primary, b"\n")
        assert child.wait(timeout=TIMEOUT) == 0
        while True:
            ready, _, _ = select.select([primary], [], [], 1)
            if not ready:
                break
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
    finally:
        if child.poll() is None:
            child.kill()
        os.close(primary)
    text = screen.decode(errors="replace")
    assert "Recording" in text and "00:0" in text
    assert str(output) in text
    assert voicenote.info(output)["duration"] > 0
