"""A private PulseAudio server with a null sink (Tests/Support/PulseServer.swift's recipe), the real-time
microphone of the recorder-latency section and its first-frame part."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
import time

from common.audio import PCM_RATE
from common.errors import BenchError


class PulseServer:
    """A private `pulseaudio` with one null sink (`vn_null`, 48 kHz mono) and a native socket with anonymous auth
    in its own short temporary directory; the server and its clients get their own HOME, XDG_RUNTIME_DIR and
    PULSE_RUNTIME_PATH, so no user session is touched (root works; pulseaudio only warns). Every process it starts
    is stopped by its pid (SIGTERM, then SIGKILL after 5 s)."""

    SINK = "vn_null"

    def __init__(self, timeout: float = 15, sink_arguments: str = ""):
        """Starts the server; `sink_arguments` are added to the null sink's (sections/recorder_first_frame.py's
        norewinds=1)."""
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="vnpa-", dir="/tmp"))  # a socket path is short
        self.socket = self.directory / "native"
        self.children = []
        self.daemon = None
        for sub in ("home", "run", "run/pulse"):
            (self.directory / sub).mkdir(parents=True, exist_ok=True)
        self.log_path = self.directory / "pulseaudio.log"
        try:
            with open(self.log_path, "wb") as log:
                self.daemon = subprocess.Popen(
                    ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                     "--log-target=stderr", "--log-level=info",
                     f"--load=module-null-sink sink_name={self.SINK} rate={PCM_RATE} channels=1 {sink_arguments}".rstrip(),
                     f"--load=module-native-protocol-unix auth-anonymous=1 socket={self.socket}"],
                    env=self.environment(client=False), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=log)
            deadline = time.monotonic() + timeout
            while b"Daemon startup complete" not in self.log_path.read_bytes():
                if self.daemon.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"pulseaudio did not start within {timeout} s:\n{self.log()}")
                time.sleep(0.05)
        except BaseException:
            self.stop()
            raise

    @property
    def address(self) -> str:
        return f"unix:{self.socket}"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def environment(self, client: bool = True) -> dict:
        env = dict(os.environ, HOME=str(self.directory / "home"), XDG_RUNTIME_DIR=str(self.directory / "run"),
                   PULSE_RUNTIME_PATH=str(self.directory / "run" / "pulse"))
        env.pop("PULSE_SERVER", None)
        if client:
            env["PULSE_SERVER"] = self.address
        return env

    def alsa_configuration(self, pcm: str) -> str:
        """`pcm.<pcm>`: the monitor of the null sink through the ALSA pulse plugin (a real-time microphone)."""
        return f'pcm.{pcm} {{ type pulse server "{self.address}" device "{self.SINK}.monitor" }}'

    def warm(self, timeout: float = 15) -> None:
        """Keeps `parec --latency-msec=10` on the monitor until stop, and waits for its first data: while it runs
        the idle null sink uses short blocks and new streams start within tens of ms (else ~1.8 s late)."""
        parec = subprocess.Popen(["parec", f"--server={self.address}", f"--device={self.SINK}.monitor",
                                  "--latency-msec=10", "--raw", "--format=s16le", f"--rate={PCM_RATE}",
                                  "--channels=1"], env=self.environment(), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.children.append(parec)
        arrived = threading.Event()

        def drain():
            while parec.stdout.read1(65536):
                arrived.set()
        threading.Thread(target=drain, daemon=True).start()
        if not arrived.wait(timeout) or parec.poll() is not None:
            raise BenchError(f"parec got no data within {timeout} s\n{self.log()}")

    def play(self, raw: pathlib.Path) -> None:
        """Plays headerless 48 kHz mono S16 PCM into the null sink (`paplay --raw`), so the microphone hears speech."""
        self.children.append(subprocess.Popen(
            ["paplay", f"--server={self.address}", f"--device={self.SINK}", "--raw", "--format=s16le",
             f"--rate={PCM_RATE}", "--channels=1", str(raw)], env=self.environment(), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def stop(self) -> None:
        """Clients first, then the server; each by pid. Removes the directory. Idempotent."""
        for child in self.children[::-1] + ([self.daemon] if self.daemon else []):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(5)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait(5)
            if child.stdout:
                child.stdout.close()
        self.children = []
        self.daemon = None
        shutil.rmtree(self.directory, ignore_errors=True)
