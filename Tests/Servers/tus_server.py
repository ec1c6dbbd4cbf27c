#!/usr/bin/env python3
"""A tus 1.0.0 server someone else wrote — tuspyserver (PyPI), a FastAPI router — under uvicorn on 127.0.0.1, for
the tus uploads' tests. It stores uploads in ``<root>`` and logs, one JSON object a line in ``<log>``:

    every request when answered: method, path, status, headers (lower-case names), offset (Upload-Offset sent),
        length (Upload-Length sent), body_bytes (Content-Length), time (time.monotonic())
    every completed upload: {"complete": <upload id>, "size": n, "sha256": hex, "metadata": {...}}

``--fail-patch N[,M…]`` answers the N-th (and M-th…) PATCH (counted from 1) with 503 without reading its body, as a
proxy or a restarting server would: a client resumes from the offset its HEAD gives.

As a script (prints ``PORT <n>`` once listening, serves until SIGTERM/SIGINT or, with ``--exit-with-stdin``, until
standard input closes):

    python3 Tests/Servers/tus_server.py --root DIR --log FILE [--fail-patch N]

From Python: ``with TusTestServer(root) as server: server.url("/files/")`` (a child process, stopped by its pid).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional

SCRIPT = os.path.abspath(__file__)


def read_log(path: str) -> List[Dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as log:
            return [json.loads(line) for line in log if line.strip()]
    except FileNotFoundError:
        return []


def serve(root: str, log_path: str, fail_patch: "set[int]", exit_with_stdin: bool) -> None:
    import uvicorn  # noqa: PLC0415 - only the child needs them
    from fastapi import FastAPI, Request
    from fastapi.responses import Response
    from tuspyserver import create_tus_router

    lock = threading.Lock()

    def log(entry: Dict[str, Any]) -> None:
        with lock, open(log_path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry, sort_keys=True) + "\n")

    def completed(path: str, metadata: dict) -> None:
        with open(path, "rb") as stored:
            data = stored.read()
        log({"complete": os.path.basename(path), "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
             "metadata": metadata})

    app = FastAPI()
    app.include_router(create_tus_router(prefix="files", files_dir=root, on_upload_complete=completed))
    patches = {"count": 0}

    @app.middleware("http")
    async def record(request: Request, call_next: Callable[[Request], Any]) -> Any:
        if request.method == "PATCH":
            patches["count"] += 1
            if patches["count"] in fail_patch:
                log({"method": "PATCH", "path": request.url.path, "status": 503, "failed_on_purpose": True,
                     "time": time.monotonic()})
                return Response(status_code=503, headers={"Connection": "close"})
        response = await call_next(request)
        headers = {k.lower(): v for k, v in request.headers.items()}
        log({"method": request.method, "path": request.url.path, "status": response.status_code, "headers": headers,
             "offset": headers.get("upload-offset"), "length": headers.get("upload-length"),
             "body_bytes": int(headers.get("content-length", "0") or 0), "time": time.monotonic()})
        return response

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, fd=listener.fileno(), log_level="warning", access_log=False))
    if exit_with_stdin:
        def watch() -> None:
            sys.stdin.read()
            server.should_exit = True
        threading.Thread(target=watch, daemon=True).start()
    server.run()


class TusTestServer:
    """tus_server.py in a child process over ``root``, stopped (SIGTERM, then SIGKILL) by its pid on exit."""

    def __init__(self, root: str, fail_patch: "int | tuple[int, ...]" = 0) -> None:
        self.root = root
        self.log_path = os.path.join(root, "tus.log")
        self.fail_patch = (fail_patch,) if isinstance(fail_patch, int) else fail_patch
        self.process: Optional[subprocess.Popen] = None
        self.port = 0

    def __enter__(self) -> "TusTestServer":
        self.process = subprocess.Popen([sys.executable, SCRIPT, "--root", self.root, "--log", self.log_path,
                                         "--fail-patch", ",".join(map(str, self.fail_patch))],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        deadline = time.monotonic() + 30
        line = ""
        while time.monotonic() < deadline and not line.startswith("PORT "):
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError(f"tus_server.py ended: {self.process.stderr.read() if self.process.stderr else ''}")
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError("tus_server.py printed no PORT within 30 s")
        self.port = int(line.split()[1])
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def requests(self) -> List[Dict[str, Any]]:
        return [entry for entry in read_log(self.log_path) if "method" in entry]

    def completed(self) -> List[Dict[str, Any]]:
        return [entry for entry in read_log(self.log_path) if "complete" in entry]

    def wait_for(self, predicate: Callable[[List[Dict[str, Any]]], bool], timeout: float = 10.0) -> bool:
        """Whether `predicate` (over every logged line) held within `timeout` seconds (polls every 20 ms)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(read_log(self.log_path)):
                return True
            time.sleep(0.02)
        return predicate(read_log(self.log_path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--fail-patch", default="0", help="the PATCHes (numbers from 1, comma-separated) to fail")
    parser.add_argument("--exit-with-stdin", action="store_true")
    arguments = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    failing = {int(number) for number in arguments.fail_patch.split(",") if number.strip()}
    serve(arguments.root, arguments.log, failing, arguments.exit_with_stdin)


if __name__ == "__main__":
    main()
