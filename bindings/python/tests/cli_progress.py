"""What `voicenote record --progress json` prints, read from a pipe, the take's `.part` files, and the bounded wait for
the command's end: shared by the CLI tests that end a take from outside."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

from helpers import TIMEOUT


class Progress:
    """Reads `--progress json` lines from a pipe, waiting (bounded) for the next ones."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""

    def until(self, seconds: float) -> Dict[str, Any]:
        """Reads lines until a context with at least ``seconds`` captured; returns it."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                context = json.loads(line)
                if context.get("duration", 0) >= seconds:
                    return context
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no progress reached {seconds} s within {TIMEOUT} s"
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                chunk = os.read(self.fd, 65536)
                assert chunk, "record closed its output before reaching the duration"
                self.pending += chunk


def parts(directory: Path) -> List[Path]:
    """The `.part` files of takes in ``directory`` (a finished take leaves none)."""
    return list(directory.glob("*.part"))


def finish(child: "subprocess.Popen[bytes]") -> Tuple[bytes, str]:
    """Waits (bounded) for `record` to exit, killing it if it does not; its standard output and error."""
    try:
        rest, errors = child.communicate(timeout=TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(TIMEOUT)
    return rest, errors.decode(errors="replace")
