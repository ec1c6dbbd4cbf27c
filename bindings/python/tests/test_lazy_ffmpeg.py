"""FFmpeg is loaded on first use, not at start-up (ARCHITECTURE.md): checked in fresh interpreters, whose
/proc/self/maps shows which libraries the process holds. A waveform of Ogg Opus maps none of FFmpeg's; the first
MP3 maps all four. Without a loadable FFmpeg, Opus still works and other formats fail with VN_E_UNSUPPORTED."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional


from audiofiles import Media
from helpers import PACKAGE_ROOT, TIMEOUT

FFMPEG_LIBRARIES = ("libavutil", "libswresample", "libavcodec", "libavformat")

#: Prints, as JSON, the FFmpeg libraries mapped after importing the package, after an Opus waveform, and after a
#: waveform of the second file (or the error it raised).
CHILD = r"""
import json, re, sys
import voicenote

def mapped():
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "/" in line}
    return sorted(p for p in paths if re.search(r"/lib(avutil|swresample|avcodec|avformat)\.so", p))

steps = {"import": mapped()}
steps["opus"] = [len(voicenote.waveform(sys.argv[1], 50)), mapped()]
try:
    steps["other"] = [len(voicenote.waveform(sys.argv[2], 50)), mapped()]
except voicenote.VoiceNoteError as error:
    steps["other"] = [error.name, str(error)]
print(json.dumps(steps))
"""


def run_child(opus: Path, other: Path, library_path: Optional[Path] = None) -> Dict[str, List]:
    """Runs CHILD in a fresh interpreter (the library under test comes from VOICENOTE_LIBRARY, inherited)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if library_path is not None:
        inherited = [env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []
        env["LD_LIBRARY_PATH"] = os.pathsep.join([str(library_path)] + inherited)
    child = subprocess.run([sys.executable, "-c", CHILD, str(opus), str(other)], capture_output=True, text=True,
                           env=env, timeout=TIMEOUT)
    assert child.returncode == 0, f"rc={child.returncode}\nstdout:\n{child.stdout}\nstderr:\n{child.stderr}"
    return json.loads(child.stdout)


def test_opus_never_loads_ffmpeg_and_mp3_loads_it(media: Media) -> None:
    steps = run_child(media.files["opus"], media.files["mp3"])
    assert steps["import"] == [], "loading libvoicenote.so must not load FFmpeg"
    assert steps["opus"] == [50, []], "an Opus waveform must not load FFmpeg"
    count, mapped = steps["other"]
    assert count == 50
    names = {re.sub(r"\.so.*", "", Path(path).name) for path in mapped}
    assert names == set(FFMPEG_LIBRARIES), mapped


def test_without_ffmpeg_opus_works_and_other_formats_are_unsupported(media: Media, tmp_path: Path) -> None:
    """A directory on LD_LIBRARY_PATH holding a broken libavcodec (an empty file named by its SONAME) stands for a
    system without a usable FFmpeg."""
    mapped = run_child(media.files["opus"], media.files["wav"])["other"][1]
    soname = next(re.sub(r"(\.so\.\d+).*", r"\1", Path(path).name) for path in mapped if "/libavcodec.so" in path)
    (tmp_path / soname).write_bytes(b"")
    steps = run_child(media.files["opus"], media.files["wav"], library_path=tmp_path)
    assert steps["opus"] == [50, []]
    name, message = steps["other"]
    assert name == "VN_E_UNSUPPORTED"
    assert f"cannot load {soname}" in message, message
