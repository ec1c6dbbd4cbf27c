"""`make wheel`'s wheel on a machine state with no build tree and no ``$VOICENOTE_LIBRARY``: a copy of the wheel in a
temporary directory, installed into a fresh virtual environment, imported with ``PYTHONPATH`` and
``LD_LIBRARY_PATH`` clear from a directory outside the checkout, records through a virtual microphone, analyses the
take and plays it. The library it loads must be the one inside the wheel."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from audiofiles import REPO_ROOT, is_tsan_build, loaded_library_path
from helpers import TIMEOUT
from microphones import decoded_samples, run
from test_player import file_speaker

import voicenote

#: The program run inside the virtual environment: records 1.5 s from the microphone ``vn_mic``, analyses the take,
#: plays it to the speaker ``vn_spk``; prints one JSON line of what it saw. Every wait is bounded.
PROGRAM = r'''
import asyncio, json, sys
import voicenote, voicenote.aio as vaio

async def main(folder, microphone, speaker, timeout):
    loop = vaio.EventLoop()
    try:
        recorder = voicenote.Recorder(folder + "/takes", device="vn_mic", device_config=microphone, loop=loop)
        recorder.begin()
        async for event in vaio.events(recorder):
            if isinstance(event, voicenote.RecorderContextEvent) and event.context.duration >= 1.5:
                break
        take = await asyncio.wait_for(vaio.stop(recorder), timeout)
        player = voicenote.Player(device="vn_spk", device_config=speaker, loop=loop)
        player.load(take.path)
        await asyncio.wait_for(vaio.finished(player), timeout)
        with open("/proc/self/maps") as maps:
            libraries = sorted({line.split()[-1] for line in maps if "libvoicenote" in line})
        print(json.dumps({"take": take.path, "duration": take.duration, "info": voicenote.info(take.path)["duration"],
                          "waveform": voicenote.waveform(take.path), "library": libraries,
                          "package": voicenote.__file__, "version": voicenote.__version__,
                          "library_version": voicenote.version()}))
        player.close()
        recorder.close()
    finally:
        loop.close()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
'''


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel made by ``scripts/wheel.sh`` (what ``make wheel`` runs) from the release library of this checkout,
    copied alone into a temporary directory."""
    library = loaded_library_path()
    if is_tsan_build(library):
        pytest.skip("the wheel carries the release library, not the one under ThreadSanitizer: tested in the plain run")
    build = REPO_ROOT / "build"
    if not (build / "lib" / f"libvoicenote.so.{voicenote.__version__}").exists():
        pytest.skip(f"no release library in {build}/lib (make so)")
    made = tmp_path_factory.mktemp("made")
    subprocess.run([str(REPO_ROOT / "scripts" / "wheel.sh"), str(build), str(made), sys.executable], check=True,
                   capture_output=True, timeout=4 * TIMEOUT)
    wheels = list(made.glob("*.whl"))
    assert len(wheels) == 1, wheels
    alone = tmp_path_factory.mktemp("wheel") / wheels[0].name
    shutil.copy(wheels[0], alone)
    return alone


def test_the_wheel_is_tagged_for_this_platform_and_carries_the_stripped_library(wheel: Path) -> None:
    assert wheel.name == f"voicenote-{voicenote.__version__}-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "voicenote/_libs/libvoicenote.so.0" in names
        assert "voicenote/_built_version.py" in names
        metadata = archive.read(f"voicenote-{voicenote.__version__}.dist-info/WHEEL").decode()
        bundled = archive.read("voicenote/_libs/libvoicenote.so.0")
    assert "Root-Is-Purelib: false" in metadata and "Tag: py3-none-linux_x86_64" in metadata
    assert bundled[:4] == b"\x7fELF"
    assert b".symtab" not in bundled  # stripped: the section names keep no symbol table
    assert len(bundled) < loaded_library_path().stat().st_size


def test_the_wheel_installed_in_a_fresh_venv_records_analyses_and_plays(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # A venv with pip takes seconds on an idle machine, and several times that while the suite's other processes
    # build the example clients beside it.
    run([sys.executable, "-m", "venv", str(venv)], timeout=4 * TIMEOUT)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)], timeout=4 * TIMEOUT)
    tone = tmp_path / "mic.raw"
    run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", str(tone),
         "synth", "30", "sine", "300", "vol", "0.3"])
    microphone = f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{tone}" format raw }}'
    heard = tmp_path / "heard.raw"
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("VOICENOTE_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "PYTHONHOME")}
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    result = subprocess.run([str(python), str(program), str(tmp_path), microphone, file_speaker(heard), str(TIMEOUT)],
                            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=4 * TIMEOUT)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert seen["package"] == str(site / "voicenote" / "__init__.py")
    assert seen["library"] == [str(site / "voicenote" / "_libs" / "libvoicenote.so.0")]
    assert seen["version"] == seen["library_version"] == voicenote.__version__
    assert seen["duration"] >= 1.5 and seen["info"] == pytest.approx(seen["duration"], abs=0.01)
    assert len(seen["waveform"]) > 0 and max(seen["waveform"]) > 0.1
    assert abs(heard.stat().st_size / 2 - decoded_samples(seen["take"])) < 4800
