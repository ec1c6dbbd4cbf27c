"""The Dask example (examples/dask_waveforms.py) on a LocalCluster of two worker processes: a thousand notes (two
of them bad) in shards of 100, each shard one task writing JSON lines; every note appears once, with the values
voicenote.waveforms gives in one process, and the bad ones with their error."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audiofiles import Media, is_tsan_build, loaded_library_path, write_tone
from helpers import PACKAGE_ROOT, TIMEOUT

import voicenote

EXAMPLE = PACKAGE_ROOT / "examples" / "dask_waveforms.py"


def test_a_thousand_notes_over_a_local_cluster(media: Media, tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="dask.distributed is not installed (make deps installs it)")
    if is_tsan_build(loaded_library_path()):
        pytest.skip("worker processes of their own: the example runs in the plain run, not under ThreadSanitizer")
    notes = tmp_path / "notes"
    notes.mkdir()
    tones = [write_tone(tmp_path / f"tone-{hz}.wav", 0.5, frequency=hz) for hz in (220, 330, 440, 550)]
    paths = []
    for index in range(998):
        path = notes / f"{index:04d}.wav"
        os.link(tones[index % 4], path)
        paths.append(str(path))
    paths.insert(400, str(notes / "missing.wav"))
    (notes / "text.wav").write_text("not audio")
    paths.insert(700, str(notes / "text.wav"))
    listing = tmp_path / "notes.txt"
    listing.write_text("\n".join(paths) + "\n")
    out = tmp_path / "out"

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    result = subprocess.run([sys.executable, str(EXAMPLE), "--from", str(listing), "--out", str(out), "--local", "2",
                             "--shard", "100", "--samples", "20"], capture_output=True, text=True, env=env,
                            timeout=8 * TIMEOUT)
    assert result.returncode == 1, result.stderr[-2000:]  # two notes failed
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["files"] == 1000 and summary["failures"] == 2 and summary["shards"] == 10
    assert summary["cores"] >= 2 and summary["files_per_second"] > 0

    lines = [json.loads(line) for part in sorted(out.glob("part-*.jsonl")) for line in part.read_text().splitlines()]
    assert [line["path"] for line in lines] == paths  # shards in order, notes in order within each
    assert not list(out.glob("*.part"))
    expected = {tone: [round(v, 4) for v in voicenote.waveform(tone, 20)] for tone in map(str, tones)}
    for index, line in enumerate(lines):
        if index in (400, 700):
            assert line["error"]["status"] == ("VN_E_NOT_FOUND" if index == 400 else "VN_E_FORMAT")
        else:
            tone = str(tones[(index - (index > 400) - (index > 700)) % 4])
            assert line["values"] == expected[tone] and line["duration"] == pytest.approx(0.5, abs=0.001)
    shutil.rmtree(notes)
