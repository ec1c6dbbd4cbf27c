"""bench/maps_probe.c, preloaded into one untimed run: whether libcurl was mapped when a process exited, and the
probe's own control (a process that dlopens libcurl is seen with it)."""
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

from common.errors import BenchError
from common.paths import HERE
from common.process import capture


def build_maps_probe(work: pathlib.Path) -> pathlib.Path:
    """bench/maps_probe.c as WORK/maps_probe.so: preloaded, it tells at a process's exit whether libcurl is mapped."""
    work.mkdir(parents=True, exist_ok=True)
    probe = work / "maps_probe.so"
    capture(shlex.split(os.environ.get("CC", "cc")) + ["-std=c11", "-O2", "-Wall", "-Wextra", "-pedantic", "-shared",
                                                       "-fPIC", "-o", str(probe), str(HERE / "maps_probe.c")],
            "building bench/maps_probe.c")
    return probe


def libcurl_at_exit(cmd: list, probe: pathlib.Path, label: str, env: dict = None) -> dict:
    """One untimed run of `cmd` with bench/maps_probe.c preloaded: what /proc/self/maps held when it exited (libcurl
    or not, the libcurl files, how many shared objects). Its own line is the one with its pid (a shell's children
    write theirs too)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "maps.jsonl"
        env = dict(env or os.environ, LD_PRELOAD=str(probe), VN_MAPS_PROBE=str(out))
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=env)
        _, stderr = proc.communicate(timeout=120)
        lines = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    if proc.returncode != 0:
        raise BenchError(f"{label} (with bench/maps_probe.so) failed with exit status {proc.returncode}: "
                         f"{shlex.join(cmd)}\n{stderr.decode(errors='replace')}")
    mine = [line for line in lines if line.get("pid") == proc.pid]
    if not mine:
        raise BenchError(f"{label}: bench/maps_probe.so wrote no line for pid {proc.pid} (did it exit by _exit?)")
    return {"libcurl": mine[0]["libcurl"], "libcurl_paths": mine[0]["libcurl_paths"], "objects": mine[0]["objects"],
            "exe": mine[0]["exe"], "cmd": cmd}


def libcurl_probe_control(probe: pathlib.Path) -> dict:
    """The probe's own check: a process that dlopens libcurl.so.4 and does nothing else must be seen with it."""
    code = "import ctypes; ctypes.CDLL('libcurl.so.4')"
    try:
        seen = libcurl_at_exit([sys.executable, "-c", code], probe, "the maps probe's control (dlopen libcurl.so.4)")
    except BenchError as error:
        if "cannot open shared object file" in str(error):  # not installed: no control, the check still runs
            return {"ran": False, "why": "libcurl.so.4 could not be loaded"}
        raise
    if not seen["libcurl"]:
        raise BenchError("bench/maps_probe.so did not see libcurl in a process that dlopened it: the check is blind")
    return dict(seen, ran=True)
