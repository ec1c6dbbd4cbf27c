"""The recorder CPU section's instruction cross-check: callgrind's instruction counts of ours and the same-settings
opusenc on two take lengths, giving the cost per second of audio and the start-up."""
import os
import pathlib
import re
import shlex
import shutil
import subprocess

from common.audio import PCM_RATE
from common.errors import BenchError
from common.process import capture
from sections.recorder_encoders import RECORDER_LABELS, recorder_cpu_commands
from sections.recorder_inputs import RECORDER_SECONDS

CALLGRIND_LENGTHS = (10, 30)                  # the instruction cross-check: two take lengths, in seconds
QUICK_CALLGRIND_LENGTHS = (5, 15)


def pcm_head(inputs: dict, seconds: int) -> pathlib.Path:
    """The first `seconds` of the 600 s PCM, cached in WORK/recorder."""
    path = inputs["dir"] / f"speech_{seconds}s.raw"
    size = seconds * PCM_RATE * 2
    if not path.exists() or path.stat().st_size != size:
        with open(inputs["raw"], "rb") as f:
            path.write_bytes(f.read(size))
    return path


def recorder_instructions(inputs: dict, lengths: tuple) -> dict:
    """Instructions (callgrind's Ir, all threads) of ours and the same-settings opusenc on two take lengths: no
    noise from other tenants, unlike CPU time. The difference between the lengths gives the cost per second of
    audio; what is left at 0 s is start-up (for ours the dynamic linker and the runtime; FFmpeg's libraries are
    not loaded for an Opus take). valgrind 3.19 cannot read the DWARF 5 of the Swift-built library, so ours runs on a copy without
    debug sections (symbols kept), found first through LD_LIBRARY_PATH (the rpath is a RUNPATH)."""
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed"}
    source = inputs["snapshot"]["lib"]
    nodebug = inputs["dir"] / "lib-nodebug"
    nodebug.mkdir(parents=True, exist_ok=True)
    real = next(p for p in source.iterdir() if p.is_file() and not p.is_symlink() and not p.name.endswith(".tmp"))
    capture(["objcopy", "--strip-debug", str(real), str(nodebug / real.name)], "objcopy --strip-debug")
    for link in source.iterdir():
        if link.is_symlink():
            target = nodebug / link.name
            if target.is_symlink() or target.exists():
                target.unlink()
            target.symlink_to(os.readlink(link))
    out = inputs["dir"] / "callgrind"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    counts = {"ours": {}, "opusenc_same": {}}
    env = dict(os.environ, LD_LIBRARY_PATH=str(nodebug))
    for seconds in lengths:
        commands = recorder_cpu_commands(inputs, pcm_head(inputs, seconds), seconds, out)
        commands["ours"].append("600")  # record_file's timeout: valgrind runs it ~50x slower
        for key in counts:
            shutil.rmtree(out / "ours", ignore_errors=True)
            (out / "ours").mkdir()
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out / f'{key}_{seconds}s.cg'}"] + commands[key]
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, env=env if key == "ours" else None)
            found = re.search(r"Collected : (\d+)", proc.stderr)
            if proc.returncode != 0 or not found:
                raise BenchError(f"callgrind of {RECORDER_LABELS[key]} ({seconds} s) failed: {shlex.join(cmd)}\n"
                                 f"{proc.stderr[-3000:]}")
            counts[key][seconds] = int(found.group(1))
    shutil.rmtree(out / "ours", ignore_errors=True)
    short, long = lengths
    result = {"lengths_s": list(lengths), "instructions": counts, "files": str(out)}
    model = {}
    for key, by_length in counts.items():
        per_second = (by_length[long] - by_length[short]) / (long - short)
        model[key] = {"per_second": per_second, "start_up": by_length[short] - short * per_second}
    result["model"] = model
    result["ratio_per_second"] = model["ours"]["per_second"] / model["opusenc_same"]["per_second"]
    result["ratio_at_lengths"] = {s: counts["ours"][s] / counts["opusenc_same"][s] for s in lengths}
    at = RECORDER_SECONDS
    result["ratio_at_600s"] = ((model["ours"]["start_up"] + at * model["ours"]["per_second"])
                               / (model["opusenc_same"]["start_up"] + at * model["opusenc_same"]["per_second"]))
    return result
