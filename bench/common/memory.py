"""Peak memory: GNU time's peak RSS of a command (what os.wait4 cannot see below the harness's own high-water mark),
and that mark."""
import os
import resource
import shlex
import subprocess
import tempfile

from common.errors import BenchError

GNU_TIME = "/usr/bin/time"


def gnu_time_peak_kib(cmd: list):
    """Peak RSS of one run read by GNU time, or None when it is not installed.

    A child of this Python process inherits its high-water mark at exec (ru_maxrss counts the address space the
    child came from), so os.wait4 cannot see a peak below the harness's own; GNU time forks the command from its
    own small process and can."""
    if not os.access(GNU_TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        text = out.read().split()
    return int(text[-1]) if text and text[-1].isdigit() else None


def gnu_time_run(cmd: list) -> dict:
    """One run under GNU time whatever its exit status (a hostile file is refused): peak KiB, exit status, the
    last line of stderr."""
    if not os.access(GNU_TIME, os.X_OK):
        raise BenchError(f"{GNU_TIME} is missing (`make deps` installs it)")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        proc = subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        text = out.read().split()
    if not text or not text[-1].isdigit():
        raise BenchError(f"GNU time reported no peak for {shlex.join(cmd)}")
    lines = proc.stderr.strip().splitlines()
    return {"peak_kib": int(text[-1]), "exit": proc.returncode, "message": lines[-1] if lines else ""}


def harness_peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
