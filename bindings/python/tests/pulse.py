"""A private PulseAudio server for one test: a real-time microphone on a machine with no sound card (the Python twin
of ``Tests/Support/PulseServer.swift``).

The server has one null sink (``vn_null``, 48 kHz mono) whose monitor source hears whatever is played into the sink,
and a native-protocol socket with anonymous auth in its own short directory (``/tmp/vnpa-XXXX``: a socket path must
fit in 107 bytes). The server and its clients get their own ``HOME``, ``XDG_RUNTIME_DIR`` and ``PULSE_RUNTIME_PATH``,
so no user session is touched; running as root works (pulseaudio only warns). Every process is stopped by its pid.

    server = PulseServer()                  # returns once the server logged "Daemon startup complete"
    server.warm()                           # optional: a low-latency stream kept running
    server.play(wav)                        # paplay into the sink
    config = server.alsa_config("vn_rt")    # Recorder(device="vn_rt", device_config=config)
    server.kill()                           # SIGKILL: a device loss for its clients
    server.stop()                           # clients and server, by pid; removes the directory

Every wait is bounded and raises :class:`PulseError` (with the server's log) on timeout.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from contextlib import contextmanager
from typing import IO, Callable, Dict, Iterator, List, Optional

from helpers import TIMEOUT

TOOLS = ("pulseaudio", "parec", "paplay", "pactl")


class PulseError(RuntimeError):
    """The server or a client did not do what was expected in time."""


def available() -> Optional[str]:
    """None when the tools are installed, else what is missing."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return "not installed: " + ", ".join(missing)
    if not Path("/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pulse.so").exists() and not any(
        Path("/usr/lib").glob("*/alsa-lib/libasound_module_pcm_pulse.so")
    ):
        return "ALSA's pulse plugin (libasound2-plugins) is not installed"
    return None


class _Child:
    """A process whose stderr is kept as text and whose stdout is counted and discarded, by reader threads; every
    change wakes :meth:`wait`."""

    def __init__(self, command: List[str], env: Dict[str, str]) -> None:
        self.command = command
        self.condition = threading.Condition()
        self.stderr = ""
        self.output_bytes = 0
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=self._pump, args=(self.process.stdout, False), daemon=True),
            threading.Thread(target=self._pump, args=(self.process.stderr, True), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _pump(self, stream: IO[bytes], keep: bool) -> None:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            with self.condition:
                if not chunk:
                    self.condition.notify_all()
                    break
                if keep:
                    self.stderr += chunk.decode(errors="replace")
                else:
                    self.output_bytes += len(chunk)
                self.condition.notify_all()
        stream.close()

    def exited(self) -> bool:
        return self.process.poll() is not None

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Waits until ``predicate()`` holds (checked after every output chunk and when the pipes close at exit);
        returns whether it holds."""
        with self.condition:
            return self.condition.wait_for(predicate, timeout)

    def signal(self, number: int) -> None:
        """Sends a signal by pid unless the process was reaped (its pid may be reused then)."""
        if self.process.poll() is None:
            self.process.send_signal(number)

    def end(self, timeout: float = 5) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` seconds; reaps it."""
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait(timeout)
        for reader in self._readers:
            reader.join(timeout)


class PulseServer:
    """A running private PulseAudio server; see the module's doc."""

    def __init__(self, sink: str = "vn_null", rate: int = 48000, channels: int = 1,
                 timeout: float = TIMEOUT) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="vnpa-", dir="/tmp"))
        self.socket = self.directory / "native"
        self.sink = sink
        self.rate = rate
        self.channels = channels
        self._clients: List[_Child] = []
        self._stopped = False
        for sub in ("home", "run", "run/pulse"):
            (self.directory / sub).mkdir(parents=True, exist_ok=True)
        self._env = dict(os.environ)
        self._env.update(HOME=str(self.directory / "home"), XDG_RUNTIME_DIR=str(self.directory / "run"),
                         PULSE_RUNTIME_PATH=str(self.directory / "run" / "pulse"))
        self._env.pop("PULSE_SERVER", None)
        # Never a session bus: with one (the desktop suites set a private one) every server takes org.PulseAudio1
        # there, and a second server started meanwhile exits.
        self._env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        self._env.pop("LD_PRELOAD", None)  # a ThreadSanitizer runtime meant for the test process only
        try:
            # norewinds=1: with default arguments the idle null sink renders its first 2 s block ahead, before any
            # capture stream can connect, so audio played into it at the start is lost for every client (measured:
            # ``arecord -D pulse`` loses the same 1.46 s as our recorder on a fresh server); without rewinds it is not.
            self.daemon = _Child(
                ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                 "--log-target=stderr", "--log-level=info",
                 f"--load=module-null-sink sink_name={sink} rate={rate} channels={channels} norewinds=1",
                 f"--load=module-native-protocol-unix auth-anonymous=1 socket={self.socket}"],
                self._env,
            )
        except BaseException:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        started = self.daemon.wait(lambda: "Daemon startup complete" in self.daemon.stderr or self.daemon.exited(),
                                   timeout)
        if not started or self.daemon.exited():
            log = self.daemon.stderr
            self.stop()
            raise PulseError(f"pulseaudio did not start within {timeout} s:\n{log}")

    @property
    def address(self) -> str:
        """``unix:<socket>``, for ``--server=`` and the ALSA pulse plugin's ``server``."""
        return f"unix:{self.socket}"

    @property
    def monitor(self) -> str:
        """The null sink's monitor source: a microphone that hears what is played into the sink."""
        return f"{self.sink}.monitor"

    @property
    def pid(self) -> int:
        """The pulseaudio process id."""
        return self.daemon.pid

    @property
    def log(self) -> str:
        """What pulseaudio logged so far."""
        return self.daemon.stderr

    def alsa_config(self, pcm: str = "vn_rt", device: Optional[str] = None) -> str:
        """ALSA configuration text defining ``pcm.<pcm>`` as this server's ``device`` (the monitor by default)."""
        return f'pcm.{pcm} {{ type pulse server "{self.address}" device "{device or self.monitor}" }}'

    def _client(self, command: List[str]) -> _Child:
        env = dict(self._env)
        env["PULSE_SERVER"] = self.address
        child = _Child(command, env)
        self._clients.append(child)
        return child

    def warm(self, timeout: float = TIMEOUT) -> None:
        """Starts a low-latency ``parec`` on the monitor and waits for its first data. It runs until :meth:`stop`:
        while it does, the idle null sink runs with short blocks and new streams start within tens of
        milliseconds. (Needed on a null sink with default arguments, where the first data of every stream would
        come ~1.8 s late; with this fixture's norewinds=1 a fresh server is as quick.)"""
        recorder = self._client(["parec", f"--server={self.address}", f"--device={self.monitor}",
                                 "--latency-msec=10", "--raw", "--format=s16le", f"--rate={self.rate}",
                                 f"--channels={self.channels}"])
        if not recorder.wait(lambda: recorder.output_bytes > 0 or recorder.exited(), timeout) or recorder.exited():
            raise PulseError(f"parec got no data within {timeout} s: {recorder.stderr}\n{self.log}")

    def play(self, path: Path) -> int:
        """Plays an audio file into the sink with ``paplay``; returns its pid (stopped by :meth:`stop`)."""
        return self._client(["paplay", f"--server={self.address}", f"--device={self.sink}", str(path)]).pid

    def play_raw(self, path: str = "/dev/zero", role: str = "music") -> int:
        """Plays raw S16_LE frames at the sink's rate and channels from ``path`` (silence from /dev/zero, for as long
        as the server runs, by default) with ``pacat``, real-time paced, as a stream with the ``media.role`` given:
        another application's music, for the sound server's ducking. Returns its pid (stopped by :meth:`stop`)."""
        return self._client(["pacat", f"--server={self.address}", f"--device={self.sink}", "--playback", "--raw",
                             "--format=s16le", f"--rate={self.rate}", f"--channels={self.channels}",
                             f"--property=media.role={role}", path]).pid

    def level(self, seconds: float = 0.6) -> float:
        """The RMS level of what the sink plays (its monitor) over the last 0.3 s of ``seconds`` recorded with a
        low-latency ``parec`` (ended by ``timeout``: a bounded recording)."""
        raw = subprocess.run(["timeout", str(seconds), "parec", f"--server={self.address}", f"--device={self.monitor}",
                              "--latency-msec=10", "--raw", "--format=s16le", f"--rate={self.rate}",
                              f"--channels={self.channels}"], env=self._env, timeout=seconds + TIMEOUT,
                             capture_output=True).stdout
        samples = memoryview(raw[: len(raw) // 2 * 2]).cast("h")[-int(self.rate * 0.3) * self.channels:]
        return (sum(value * value for value in samples) / len(samples)) ** 0.5 if len(samples) else 0.0

    def streams(self, playback: bool) -> List[str]:
        """The server's sink inputs (``playback``) or source outputs, each as its ``pactl list`` block."""
        listing = self.pactl("list", "sink-inputs" if playback else "source-outputs")
        return [block for block in listing.split("\n\n") if "#" in block]

    def pactl(self, *arguments: str, timeout: float = TIMEOUT) -> str:
        """Runs ``pactl`` against this server; returns what it printed."""
        return subprocess.run(["pactl", f"--server={self.address}", *arguments], env=self._env, check=True,
                              timeout=timeout, capture_output=True, text=True).stdout.strip()

    def suspend(self, suspended: bool = True, timeout: float = TIMEOUT) -> None:
        """Suspends (or resumes) the sink and with it its monitor source, as a sound server does to an idle or
        muted device: a stream on the monitor stays connected and delivers nothing."""
        subprocess.run(["pactl", f"--server={self.address}", "suspend-sink", self.sink, "1" if suspended else "0"],
                       env=self._env, check=True, timeout=timeout, capture_output=True)

    def kill(self, timeout: float = 5) -> None:
        """SIGKILL to the server by pid, then waits until it is gone: a device loss for every client."""
        self.daemon.signal(signal.SIGKILL)
        try:
            self.daemon.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise PulseError(f"pulseaudio (pid {self.pid}) did not exit within {timeout} s of SIGKILL") from None

    def stop(self) -> None:
        """Ends the clients and the server (SIGTERM, then SIGKILL), by pid, and removes the directory.
        Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        for child in self._clients + ([self.daemon] if hasattr(self, "daemon") else []):
            child.end()
        self._clients = []
        shutil.rmtree(self.directory, ignore_errors=True)


@contextmanager
def warmed_server() -> Iterator[PulseServer]:
    """A warmed private server for the ``with`` block, stopped by its pid after; skips the test visibly where
    PulseAudio is missing."""
    import pytest

    missing = available()
    if missing:
        pytest.skip(f"PulseAudio: {missing}")
    server = PulseServer()
    try:
        server.warm()
        yield server
    finally:
        server.stop()
