"""Running the bench's children: one timed run (wall, CPU and peak RSS from os.wait4), a command's stdout, a
latency program's JSON, and the check that the tools are installed."""
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from common.errors import BenchError


def run_once(cmd: list, label: str, keep_stdout: bool = False, env: dict = None, timeout: float = None) -> dict:
    """Runs cmd once (stdin /dev/null, stdout /dev/null unless kept, stderr kept; `env` or ours): wall s, CPU s
    (user + sys of every thread, and of the children it reaped: a shell's pipeline), peak KiB, stderr (and stdout).
    With `timeout` (s), a run still going then is killed (by its pid) and is a BenchError."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out if keep_stdout else subprocess.DEVNULL,
                                stderr=err, env=env)
        if timeout is None:
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
        else:
            wall, status, usage = wait_bounded(proc.pid, start, timeout)
            if status is None:
                raise BenchError(f"{label} did not end within {timeout:g} s and was killed: {shlex.join(cmd)}")
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        out.seek(0)
        stdout = out.read().decode(errors="replace")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{stderr}")
    result = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "user_s": usage.ru_utime,
              "sys_s": usage.ru_stime, "peak_kib": usage.ru_maxrss, "stderr": stderr}
    if keep_stdout:
        result["stdout"] = stdout
    return result


def wait_bounded(pid: int, start: float, timeout: float) -> tuple:
    """Waits for child `pid` (started at perf_counter `start`), killing it with SIGKILL if it still runs after
    `timeout` s: (wall s, wait status, rusage), the status None when it was killed. It is waited for without being
    reaped first (waitid WNOWAIT), so the timer can only ever signal this child, never a process given its pid."""
    expired = threading.Event()

    def expire():
        expired.set()
        os.kill(pid, signal.SIGKILL)

    timer = threading.Timer(timeout, expire)
    timer.start()
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        wall = time.perf_counter() - start
    finally:
        timer.cancel()
        timer.join()
    _, status, usage = os.wait4(pid, 0)
    return wall, None if expired.is_set() else status, usage


def capture(cmd: list, label: str, timeout: float = None) -> str:
    """Runs cmd once and returns its stdout; a failure (or, with `timeout` s, a run still going then: killed) is a
    BenchError."""
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{label} did not end within {timeout:g} s and was killed: {shlex.join(cmd)}")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{proc.stderr}")
    return proc.stdout


def require_tools(tools: list) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise BenchError(f"missing tools: {', '.join(missing)} (`make deps` installs them)")


def run_latency(cmd: list, label: str, env: dict = None, timeout: float = 600) -> dict:
    """Runs bench/record_latency.c once and returns its JSON."""
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                              timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise BenchError(f"{label} did not end within {timeout:.0f} s: {shlex.join(cmd)}\n{error.stderr or ''}")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n{proc.stderr}")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        raise BenchError(f"{label} printed no JSON ({error}):\n{proc.stdout}{proc.stderr}")
