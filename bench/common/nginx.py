"""Debian's nginx on 127.0.0.1 (Tests/Servers/nginx_server.py) for the remote section, and its access log read once
it has settled."""
import os
import pathlib
import sys
import time

from common.errors import BenchError
from common.paths import REPO

REMOTE_SETTLE_S = 0.1                         # how long the access log is watched after a process for late lines


def start_nginx(root: pathlib.Path, log: pathlib.Path):
    """Debian's nginx serving `root` on 127.0.0.1 (Tests/Servers/nginx_server.py), its access log in `log`."""
    servers = str(REPO / "Tests" / "Servers")
    sys.path.insert(0, servers)
    try:
        import nginx_server
    except ImportError as error:
        raise BenchError(f"Tests/Servers/nginx_server.py cannot be imported: {error}")
    finally:
        sys.path.remove(servers)
    if not os.access(nginx_server.NGINX, os.X_OK):
        raise BenchError(f"{nginx_server.NGINX} is missing (`make deps` installs nginx-light)")
    log.unlink(missing_ok=True)
    server = nginx_server.NginxTestServer(str(root), log=str(log))
    try:
        server.start()
    except RuntimeError as error:
        raise BenchError(f"nginx did not start: {error}")
    return server


def settled_requests(server, at_least: int, timeout: float = 5.0) -> list:
    """The access log's records once it holds at least `at_least` and took no new one for REMOTE_SETTLE_S (nginx
    writes a request's line when the request ends, which can be a moment after the client has its bytes)."""
    deadline = time.monotonic() + timeout
    records = server.requests()
    while True:
        time.sleep(REMOTE_SETTLE_S)
        again = server.requests()
        if (len(again) == len(records) and len(again) >= at_least) or time.monotonic() >= deadline:
            return again
        records = again
