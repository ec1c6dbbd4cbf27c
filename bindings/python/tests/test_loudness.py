"""A note's loudness (EBU R128) in Python: voicenote.analyse gives waveform()'s values, the length and the loudness
in one pass from a path, bytes, a file-like object and (aio) a task; the figures agree with FFmpeg's own EBU R128
meter (its `ebur128` filter, another implementation) within 0.3 LU on every format; the batch carries them or not;
a payload made from the file carries them, and a Matrix content too; a silent note is silent, not an error."""
from __future__ import annotations

import asyncio
import json
import io
import math
import re
import subprocess
from pathlib import Path

import pytest

from audiofiles import FORMATS, Media, run

import voicenote
import voicenote.aio as vaio


def ffmpeg_integrated(path: Path) -> float:
    """FFmpeg's integrated loudness of `path` (its ebur128 filter's summary)."""
    done = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-i", str(path), "-af", "ebur128=framelog=verbose",
                           "-f", "null", "-"], capture_output=True, text=True, timeout=60, check=True)
    found = re.findall(r"I:\s+(-?[0-9.]+) LUFS", done.stderr)
    assert found, done.stderr[-2000:]
    return float(found[-1])


@pytest.mark.parametrize("kind", FORMATS)
def test_analyse_agrees_with_ffmpegs_meter_and_every_way_in(media: Media, kind: str) -> None:
    path = media.files[kind]
    analysis = voicenote.analyse(path)
    assert analysis.values == voicenote.waveform(path)
    assert analysis.duration == pytest.approx(voicenote.info(path)["duration"], abs=0.03)
    loudness = analysis.loudness
    assert loudness is not None and not loudness.silent
    assert abs(loudness.integrated_lufs - ffmpeg_integrated(path)) <= 0.3, loudness
    assert 0 <= loudness.range_lu < 20 and -20 < loudness.true_peak_dbtp < 3, loudness
    data = path.read_bytes()
    assert voicenote.analyse(data) == analysis
    with open(path, "rb") as stream:
        assert voicenote.analyse(stream) == analysis
    assert voicenote.analyse(io.BytesIO(data), samples=7).loudness == loudness


def test_a_silent_note_is_silent_not_an_error(tmp_path: Path) -> None:
    silence = tmp_path / "silence.wav"
    run(["sox", "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", str(silence), "trim", "0", "2"])
    loudness = voicenote.analyse(silence).loudness
    assert loudness == voicenote.Loudness(-math.inf, 0.0, -math.inf) and loudness.silent


def test_the_batch_carries_the_loudness_unless_told_not_to(media: Media) -> None:
    paths = [media.files["opus"], media.files["mp3"], str(media.missing)]
    measured = list(voicenote.waveforms(paths, jobs=2))
    assert [r.loudness == voicenote.analyse(p).loudness for r, p in zip(measured[:2], paths[:2])] == [True, True]
    assert measured[2].loudness is None and isinstance(measured[2].error, voicenote.NotFoundError)
    plain = list(voicenote.waveforms(paths, jobs=2, loudness=False))
    assert [r.loudness for r in plain] == [None, None, None]
    assert [r.values for r in plain[:2]] == [r.values for r in measured[:2]]


def test_a_payload_carries_it_to_stream_and_matrix(media: Media) -> None:
    path = media.files["opus"]
    measured = voicenote.analyse(path).loudness
    payload = voicenote.VoiceRecordingPayload.from_recording(path)
    carried = payload.loudness
    assert carried is not None and abs(carried.integrated_lufs - measured.integrated_lufs) <= 0.005
    assert "voicenote_loudness" in payload.to_json()
    payload.asset_url = "mxc://example.org/abcdef"
    content = payload.to_matrix_content()
    # Matrix events are canonical JSON (no reals): the figures in hundredths, as integers.
    assert content["org.voicenote.loudness"] == {"integrated_lufs_x100": round(carried.integrated_lufs * 100),
                                                 "range_lu_x100": round(carried.range_lu * 100),
                                                 "true_peak_dbtp_x100": round(carried.true_peak_dbtp * 100)}
    assert voicenote.VoiceRecordingPayload.from_matrix_content(content).loudness == carried
    # Reals (which no homeserver relays) or figures out of range in a received content are not a loudness.
    for figures in ({"integrated_lufs_x100": -19.5, "range_lu_x100": 2, "true_peak_dbtp_x100": -1},
                    {"integrated_lufs_x100": -900000, "range_lu_x100": 2, "true_peak_dbtp_x100": -1},
                    {"integrated_lufs": -19.5, "range_lu": 2.0, "true_peak_dbtp": -1.0}):
        assert voicenote.VoiceRecordingPayload.from_matrix_content(
            dict(content, **{"org.voicenote.loudness": figures})).loudness is None
    payload.loudness = None
    assert payload.loudness is None and "voicenote_loudness" not in payload.to_json()
    with pytest.raises(voicenote.InvalidArgumentError):
        payload.loudness = voicenote.Loudness(math.nan, 0.0, -1.0)
    with pytest.raises(TypeError):
        payload.loudness = (-20.0, 1.0, -1.0)  # type: ignore[assignment]
    stranger = voicenote.VoiceRecordingPayload.from_json(
        '{"asset_url":"https://example.com/a.ogg","voicenote_loudness":{"integrated_lufs":900,"range_lu":1,'
        '"true_peak_dbtp":-1}}')
    assert stranger.loudness is None


def test_aio_analyse(media: Media) -> None:
    path = media.files["aac"]
    analysis = asyncio.run(asyncio.wait_for(vaio.analyse(path), 60))
    assert analysis == voicenote.analyse(path)


def test_the_cli_info_prints_the_loudness(cli: Path, media: Media) -> None:
    path = media.files["mp3"]
    measured = voicenote.analyse(path).loudness
    facts = json.loads(run([str(cli), "info", str(path), "--json"]).stdout)
    assert facts["loudness"] == {"integrated_lufs": round(measured.integrated_lufs, 2),
                                 "range_lu": round(measured.range_lu, 2),
                                 "true_peak_dbtp": round(measured.true_peak_dbtp, 2)}
    text = run([str(cli), "info", str(path)]).stdout.decode()
    line = re.search(r"^loudness:    (-?[0-9.]+) LUFS, range ([0-9.]+) LU, true peak (-?[0-9.]+) dBTP$", text, re.M)
    assert line, text
    printed = [float(figure) for figure in line.groups()]
    wanted = [measured.integrated_lufs, measured.range_lu, measured.true_peak_dbtp]
    assert all(abs(a - b) <= 0.051 for a, b in zip(printed, wanted)), (printed, wanted)
    assert "loudness" not in json.loads(run([str(cli), "info", str(path), "--json", "--no-loudness"]).stdout)


def test_a_player_levels_a_quiet_note(tmp_path: Path) -> None:
    """A note at −40 LUFS played levelled, its loudness given (a payload's) and not (the pre-pass): the speaker hears
    it within 1.5 LU of the target by FFmpeg's meter, its true peak at or under −1 dBTP; the context says the gain."""
    from test_player import file_speaker
    speech = tmp_path / "speech.wav"
    run(["espeak-ng", "-w", str(tmp_path / "raw.wav"), "Voice notes arrive at wildly different loudness, "
         "one friend whispers and the next one shouts into the phone."])
    as_made = voicenote.analyse(tmp_path / "raw.wav").loudness
    run(["sox", str(tmp_path / "raw.wav"), "-r", "48000", str(speech), "rate", "-v", "48k", "gain",
         str(-40 - as_made.integrated_lufs)])
    quiet = tmp_path / "quiet.ogg"
    run(["opusenc", "--quiet", str(speech), str(quiet)])
    measured = voicenote.analyse(quiet).loudness
    assert measured is not None and -42 < measured.integrated_lufs < -38, measured
    for given in (measured, None):
        heard = tmp_path / f"heard-{given is not None}.raw"
        player = voicenote.Player(device="vn_spk", device_config=file_speaker(heard))
        try:
            player.set_leveling(target=-16.0)
            assert player.context.leveling and player.context.leveling_target == -16.0
            done = __import__("threading").Event()
            player.subscribe(lambda event: done.set() if isinstance(event, voicenote.PlaybackFinished) else None)
            player.load(quiet, loudness=given)
            assert done.wait(30), "the note did not play to its end"
            assert player.context.leveling_gain > 20
        finally:
            player.close()
        wav = tmp_path / "heard.wav"
        run(["sox", "-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "1", str(heard), str(wav)])
        out = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-i", str(wav), "-af",
                              "ebur128=peak=true:framelog=verbose", "-f", "null", "-"],
                             capture_output=True, text=True, timeout=60, check=True).stderr
        integrated = float(re.findall(r"I:\s+(-?[0-9.]+) LUFS", out)[-1])
        peak = float(re.findall(r"Peak:\s+(-?[0-9.]+) dBFS", out)[-1])
        assert abs(integrated - -16.0) <= 1.5, (given, integrated)
        assert peak <= -1.0, (given, peak)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.Player().set_leveling(target=-5.0)


def test_the_cli_plays_levelled(cli: Path, tmp_path: Path) -> None:
    """``voicenote play --level``: a −36 LUFS note heard within 1.5 LU of −19 LUFS (the default; FFmpeg's meter), and with
    ``--level-offset -6`` 6 dB softer; out-of-range settings are refused before anything plays."""
    from test_player import file_speaker
    run(["espeak-ng", "-w", str(tmp_path / "raw.wav"), "Play every voice note at the same loudness, please."])
    made = voicenote.analyse(tmp_path / "raw.wav").loudness
    note = tmp_path / "note.wav"
    run(["sox", str(tmp_path / "raw.wav"), "-r", "48000", str(note), "gain", str(-36 - made.integrated_lufs)])
    for offset, wanted in ((0.0, -19.0), (-6.0, -25.0)):
        heard = tmp_path / f"heard{offset}.raw"
        run([str(cli), "play", str(note), "--device", "vn_spk", "--device-config", file_speaker(heard), "--level",
             "--level-offset", str(offset)])
        wav = tmp_path / f"heard{offset}.wav"
        run(["sox", "-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "1", str(heard), str(wav)])
        assert abs(ffmpeg_integrated(wav) - wanted) <= 1.5, (offset, ffmpeg_integrated(wav))
    refused = subprocess.run([str(cli), "play", str(note), "--level", "--level-target", "-5"], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode != 0 and "--level-target must be -30…-10 LUFS" in refused.stderr
