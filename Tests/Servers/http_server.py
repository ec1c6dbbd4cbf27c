#!/usr/bin/env python3
"""A small scripted HTTP/1.1 (and HTTPS) server for the HTTP byte source tests.

It serves the files of one directory, and the first segment of the request path picks how it misbehaves, so one
server covers every case a test needs (ranges, no ranges, chunked, throttled, slow, dropped, stalled, redirects,
status codes, bearer auth, uploads). It only uses the Python standard library.

Behaviours (``<file>`` is a path relative to the root; ``..`` is refused with 404):

    /range/<file>            RFC 7233 single range: 200, or 206 with Content-Range, or 416; ETag, Last-Modified
    /norange/<file>          always 200 with the whole body; Accept-Ranges: none
    /chunked/<file>          200, Transfer-Encoding: chunked (4096-byte chunks), no Content-Length, no ranges
    /throttle/<rate>/<file>  like /range, the body paced at <rate> bytes per second
    /slow/<seconds>/<file>   like /range, after waiting <seconds> before the status line
    /drop/<file>             200 with the full Content-Length, half the body, then the connection is cut
    /stall/<after>/<file>    200 with the full Content-Length, <after> bytes, then silence until the client leaves
    /status/<code>           that status, body "status <code>" (401 also sends WWW-Authenticate: Bearer)
    /redirect/<n>/<rest>     302 to /redirect/<n-1>/<rest>, and at n == 1 to /<rest> (relative Location)
    /auth/<token>/<rest>     401 unless "Authorization: Bearer <token>", else serves /<rest>
    /upload/<mode>           POST/PUT; stores the body as <root>/uploads/<n>.bin; mode stream, matrix or status/<code>
    anything else            404

Every request is appended to the log file as one JSON object per line when its response ends (also when the
client went away): method, path, headers (lower-case names), range, status, bytes (body bytes sent), completed
(whole intended body sent), start and time (``time.monotonic()`` at the start and at the end), and for uploads
body_bytes and upload.

As a script (prints one line ``PORT <n>`` once listening, serves until SIGTERM or SIGINT, then exits 0):

    python3 Tests/Servers/http_server.py --root DIR --log FILE [--bind 127.0.0.1] [--port 0] [--cert C --key K]

From Python (the server runs in a child process, so a stalled server can never hang the test process):

    with HTTPTestServer(root) as server:
        urllib.request.urlopen(server.url("/range/a.ogg"))
        server.wait_for_request(lambda r: r["path"] == "/range/a.ogg" and r["completed"])
"""

from __future__ import annotations

import argparse
import email.utils
import json
import math
import os
import select
import shutil
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

SCRIPT = os.path.abspath(__file__)

CONTENT_TYPES = {
    ".ogg": "audio/ogg",
    ".opus": "audio/ogg",
    ".mp3": "audio/mpeg",
    ".aac": "audio/aac",
    ".m4a": "audio/mp4",
    ".wav": "audio/wav",
    ".flac": "audio/flac",
}
DEFAULT_CONTENT_TYPE = "application/octet-stream"

CHUNK_SIZE = 4096          # /chunked/ chunk size
COPY_SIZE = 64 * 1024      # unpaced body writes
PACING_STEPS = 50          # /throttle/ pieces per second
SHUTDOWN_GRACE = 0.5       # seconds handler threads get to finish their log line when the server stops
HANDSHAKE_TIMEOUT = 10.0   # TLS handshake, per connection
IDLE_TIMEOUT = 120.0       # socket timeout of a connection (idle keep-alive, blocked writes)

SIGNALS = {signal.SIGTERM, signal.SIGINT}


def content_type(path: str) -> str:
    """The Content-Type the server sends for a file name."""
    return CONTENT_TYPES.get(os.path.splitext(path)[1].lower(), DEFAULT_CONTENT_TYPE)


class Unsatisfiable(Exception):
    """A Range header none of whose bytes exist (answered with 416)."""


def parse_range(header: str | None, total: int) -> tuple[int, int] | None:
    """The inclusive (first, last) byte positions a Range header asks for, of a body of `total` bytes.

    Returns None when the header is absent, malformed, not in bytes or asks for several ranges (RFC 7233 lets a
    server ignore such a header and answer 200). Raises Unsatisfiable when the single range starts past the end.
    """
    if not header:
        return None
    unit, _, spec = header.partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first, dash, last = spec.strip().partition("-")
    if not dash or (first and not first.isdigit()) or (last and not last.isdigit()) or not (first or last):
        return None
    if not first:                                   # bytes=-n: the last n bytes
        count = int(last)
        if count == 0 or total == 0:
            raise Unsatisfiable
        return max(0, total - count), total - 1
    start = int(first)
    if last and int(last) < start:                  # bytes=9-3 is malformed, not unsatisfiable
        return None
    if start >= total:
        raise Unsatisfiable
    return start, min(int(last), total - 1) if last else total - 1


class RequestLog:
    """The JSON-lines request log: one object per line, written and flushed at once, safe across threads."""

    def __init__(self, path: str):
        self._file = open(path, "a", encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, record: dict) -> None:
        """Appends one record (ignored once the log is closed)."""
        line = json.dumps(record, sort_keys=True) + "\n"
        with self._lock:
            if not self._file.closed:
                self._file.write(line)
                self._file.flush()

    def close(self) -> None:
        """Closes the file; later writes are dropped."""
        with self._lock:
            self._file.close()


class ClientGone(Exception):
    """The client went away, or the server is stopping, before the response was complete."""


class TestRequestHandler(BaseHTTPRequestHandler):
    """Answers one connection's requests; the behaviour is picked by the first path segment."""

    protocol_version = "HTTP/1.1"
    server_version = "VoiceNoteTestHTTP/1.0"
    timeout = IDLE_TIMEOUT

    # -- connection ---------------------------------------------------------------------------------------------

    def setup(self) -> None:
        if isinstance(self.request, ssl.SSLSocket):    # handshake here, not in the accept loop
            self.request.settimeout(HANDSHAKE_TIMEOUT)
            self.request.do_handshake()
        super().setup()

    def log_message(self, format: str, *args) -> None:   # noqa: A002 - the base class's name
        """Silent: the JSON log is the record."""

    def do_GET(self) -> None:
        """Every method goes through the same dispatcher."""
        self._dispatch()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = do_GET

    # -- dispatch and logging -----------------------------------------------------------------------------------

    def _dispatch(self) -> None:
        url = urlsplit(self.path)
        self._query = url.query
        self._body_read = False
        self._headers_sent = False
        self._record = {
            "method": self.command,
            "path": self.path,
            "headers": self._header_dict(),
            "range": self.headers.get("Range"),
            "status": None,
            "bytes": 0,
            "completed": False,
            "start": time.monotonic(),
        }
        try:
            self._route([segment for segment in url.path.split("/") if segment])
            if not self._body_read and self._has_body():
                self.close_connection = True         # an unread request body would be taken for the next request
        except (ClientGone, OSError) as error:      # the client went away (or the server is stopping)
            self._fail(error)
        except ValueError as error:                  # a malformed request body
            self._fail(error, 400)
        except Exception as error:                   # a bug in this file: answer 500 if still possible
            self._fail(error, 500)
        finally:
            self._record["time"] = time.monotonic()
            self.server.request_log.write(self._record)

    def _fail(self, error: Exception, status: int | None = None) -> None:
        self._record["completed"] = False
        self._record["error"] = repr(error)
        self.close_connection = True
        if status is not None and not self._headers_sent:
            try:
                self._send_text(status, f"{status} {error!r}")
                self._record["completed"] = False
            except OSError:
                pass

    def _header_dict(self) -> dict:
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        return headers

    def _route(self, segments: list[str]) -> None:
        routes = {
            "range": self._route_range,
            "norange": self._route_norange,
            "chunked": self._route_chunked,
            "throttle": self._route_throttle,
            "slow": self._route_slow,
            "drop": self._route_drop,
            "stall": self._route_stall,
            "status": self._route_status,
            "redirect": self._route_redirect,
            "auth": self._route_auth,
            "upload": self._route_upload,
        }
        route = routes.get(segments[0]) if segments else None
        if route is None:
            self._send_text(404, "not found")
        else:
            route(segments[1:])

    # -- behaviours -----------------------------------------------------------------------------------------------

    def _route_range(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if path:
            self._serve_ranged(path)

    def _route_norange(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if path:
            self._serve_whole(path, [("Accept-Ranges", "none")])

    def _route_chunked(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if path:
            self._serve_chunked(path)

    def _route_throttle(self, rest: list[str]) -> None:
        rate = _number(rest[0], float) if rest else None
        if rate is None or not 0 < rate < math.inf:
            self._send_text(404, "bad rate")
            return
        path = self._file_for(rest[1:])
        if path:
            self._serve_ranged(path, rate=rate)

    def _route_slow(self, rest: list[str]) -> None:
        delay = _number(rest[0], float) if rest else None
        if delay is None or not 0 <= delay < math.inf:
            self._send_text(404, "bad delay")
            return
        if self.server.stopping.wait(delay):
            raise ClientGone("server stopping")
        self._route_range(rest[1:])

    def _route_drop(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if path:
            self._serve_whole(path, [("Accept-Ranges", "none")], stop_after=os.path.getsize(path) // 2)

    def _route_stall(self, rest: list[str]) -> None:
        after = _number(rest[0], int) if rest else None
        if after is None or after < 0:
            self._send_text(404, "bad byte count")
            return
        path = self._file_for(rest[1:])
        if path:
            self._serve_whole(path, [("Accept-Ranges", "none")], stop_after=after, stall=True)

    def _route_status(self, rest: list[str]) -> None:
        code = _number(rest[0], int) if len(rest) == 1 else None
        if code is None or not 200 <= code <= 599:
            self._send_text(404, "bad status")
        else:
            self._send_status(code)

    def _route_redirect(self, rest: list[str]) -> None:
        count = _number(rest[0], int) if rest else None
        if count is None or count < 1:
            self._send_text(404, "bad redirect count")
            return
        tail = "/".join(rest[1:])
        location = f"/redirect/{count - 1}/{tail}" if count > 1 else f"/{tail}"
        if self._query:
            location += "?" + self._query
        self._send_text(302, f"redirect to {location}", [("Location", location)])

    def _route_auth(self, rest: list[str]) -> None:
        if not rest:
            self._send_text(404, "no token")
        elif self.headers.get("Authorization") != f"Bearer {unquote(rest[0])}":
            self._send_status(401)
        else:
            self._route(rest[1:])

    def _route_upload(self, rest: list[str]) -> None:
        if self.command not in ("POST", "PUT"):
            self._send_text(405, "upload needs POST or PUT", [("Allow", "POST, PUT")])
            return
        body = self._read_body()
        self._record["body_bytes"] = len(body)
        mode = rest[0] if rest else ""
        if mode == "status":
            code = _number(rest[1], int) if len(rest) == 2 else None
            if code is None or not 200 <= code <= 599:
                self._send_text(404, "bad status")
            else:
                self._send_status(code)
        elif mode in ("stream", "matrix") and len(rest) == 1:
            number = self.server.store_upload(body)
            self._record["upload"] = f"uploads/{number}.bin"
            if mode == "stream":
                reply = {"file": f"{self._origin()}/range/uploads/{number}.bin", "thumb_url": None}
            else:
                reply = {"content_uri": f"mxc://localhost/{number}"}
            self._send_bytes(200, json.dumps(reply).encode(), [("Content-Type", "application/json")])
        else:
            self._send_text(404, "unknown upload mode")

    # -- files ----------------------------------------------------------------------------------------------------

    def _file_for(self, segments: list[str]) -> str | None:
        """The regular file under the root that the segments name, or None after answering 404 or 405."""
        names = [unquote(segment) for segment in segments]
        if not names or any(name in (".", "..") or "/" in name or "\\" in name or "\0" in name for name in names):
            self._send_text(404, "not found")
            return None
        root = self.server.root
        path = os.path.realpath(os.path.join(root, *names))
        if os.path.commonpath([root, path]) != root or not os.path.isfile(path):
            self._send_text(404, "not found")
            return None
        if self.command not in ("GET", "HEAD"):
            self._send_text(405, "method not allowed", [("Allow", "GET, HEAD")])
            return None
        return path

    def _file_headers(self, path: str, size: int, mtime: float) -> list[tuple[str, str]]:
        return [
            ("Content-Type", content_type(path)),
            ("Last-Modified", email.utils.formatdate(mtime, usegmt=True)),
            ("ETag", _etag(size, mtime)),
        ]

    def _serve_ranged(self, path: str, rate: float | None = None) -> None:
        """200, 206 or 416 for a file with range support; the body optionally paced at `rate` bytes/s."""
        stat = os.stat(path)
        size = stat.st_size
        headers = self._file_headers(path, size, stat.st_mtime) + [("Accept-Ranges", "bytes")]
        try:
            wanted = parse_range(self.headers.get("Range"), size) if self._if_range_holds(size, stat.st_mtime) else None
        except Unsatisfiable:
            self._send_bytes(416, b"range not satisfiable", headers + [("Content-Range", f"bytes */{size}")])
            return
        if wanted is None:
            status, first, length = 200, 0, size
        else:
            status, first, length = 206, wanted[0], wanted[1] - wanted[0] + 1
            headers.append(("Content-Range", f"bytes {wanted[0]}-{wanted[1]}/{size}"))
        self._start(status, headers + [("Content-Length", str(length))])
        self._send_file(path, first, length, rate=rate)
        self._record["completed"] = True

    def _if_range_holds(self, size: int, mtime: float) -> bool:
        condition = self.headers.get("If-Range")
        if condition is None:
            return True
        return condition.strip() in (_etag(size, mtime), email.utils.formatdate(mtime, usegmt=True))

    def _serve_whole(self, path: str, extra: list[tuple[str, str]], stop_after: int | None = None,
                     stall: bool = False) -> None:
        """200 with the whole file's Content-Length; with `stop_after`, only that many bytes, then the connection
        is cut (or, with `stall`, held silent until the client leaves or the server stops)."""
        stat = os.stat(path)
        size = stat.st_size
        headers = self._file_headers(path, size, stat.st_mtime) + extra + [("Content-Length", str(size))]
        self._start(200, headers)
        sent = size if stop_after is None else min(stop_after, size)
        self._send_file(path, 0, sent)
        if sent == size or self.command == "HEAD":
            self._record["completed"] = True
        elif stall:
            self._hold_until_gone()
        else:
            self._cut_connection()

    def _serve_chunked(self, path: str) -> None:
        """200 with Transfer-Encoding: chunked (close-delimited for an HTTP/1.0 client)."""
        stat = os.stat(path)
        headers = self._file_headers(path, stat.st_size, stat.st_mtime)
        chunked = self.request_version != "HTTP/1.0"
        headers.append(("Transfer-Encoding", "chunked") if chunked else ("Connection", "close"))
        self._start(200, headers)
        if self.command != "HEAD":
            with open(path, "rb") as file:
                while piece := file.read(CHUNK_SIZE):
                    self._write(piece, framed=chunked)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        self._record["completed"] = True

    def _send_file(self, path: str, first: int, length: int, rate: float | None = None) -> None:
        if self.command == "HEAD" or length == 0:
            return
        piece_size = max(1, int(rate / PACING_STEPS)) if rate else COPY_SIZE
        began = time.monotonic()
        sent = 0
        with open(path, "rb") as file:
            file.seek(first)
            while sent < length:
                if rate:
                    self._pace(began + sent / rate)
                piece = file.read(min(piece_size, length - sent))
                if not piece:
                    raise ClientGone("file shrank while being sent")
                self._write(piece)
                sent += len(piece)

    def _pace(self, due: float) -> None:
        delay = due - time.monotonic()
        if delay > 0 and self.server.stopping.wait(delay):
            raise ClientGone("server stopping")

    # -- connection tricks ----------------------------------------------------------------------------------------

    def _cut_connection(self) -> None:
        """Ends the connection abruptly: no more bytes, no TLS close_notify."""
        self.close_connection = True
        try:
            socket.socket.shutdown(self.connection, socket.SHUT_RDWR)
        except OSError:
            pass

    def _hold_until_gone(self) -> None:
        """Sends nothing until the client closes (or sends anything), the server stops or the idle timeout ends."""
        self.close_connection = True
        if isinstance(self.connection, ssl.SSLSocket) and self.connection.pending():
            return
        select.select([self.connection, self.server.wake_fd], [], [], IDLE_TIMEOUT)

    # -- responses ------------------------------------------------------------------------------------------------

    def _start(self, status: int, headers: list[tuple[str, str]]) -> None:
        self._record["status"] = status
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self._headers_sent = True

    def _write(self, data: bytes, framed: bool = False) -> None:
        if framed:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        else:
            self.wfile.write(data)
        self._record["bytes"] += len(data)

    def _send_bytes(self, status: int, body: bytes, headers: list[tuple[str, str]] = ()) -> None:
        """A complete response with a small in-memory body (none for HEAD, 204 and 304)."""
        bodiless = status in (204, 304)
        headers = list(headers) + ([] if bodiless else [("Content-Length", str(len(body)))])
        self._start(status, headers)
        if self.command != "HEAD" and not bodiless:
            self._write(body)
        self._record["completed"] = True

    def _send_text(self, status: int, text: str, headers: list[tuple[str, str]] = ()) -> None:
        self._send_bytes(status, text.encode(), [("Content-Type", "text/plain; charset=utf-8"), *headers])

    def _send_status(self, code: int) -> None:
        extra = [("WWW-Authenticate", "Bearer")] if code == 401 else []
        self._send_text(code, f"status {code}", extra)

    def _origin(self) -> str:
        scheme = "https" if self.server.tls else "http"
        host, port = self.server.server_address[:2]
        return f"{scheme}://{self.headers.get('Host') or f'{host}:{port}'}"

    # -- request bodies -------------------------------------------------------------------------------------------

    def _has_body(self) -> bool:
        length = self.headers.get("Content-Length", "0").strip()
        return "chunked" in self.headers.get("Transfer-Encoding", "").lower() or (length.isdigit() and int(length) > 0)

    def _read_body(self) -> bytes:
        """The request body, by Content-Length or chunked transfer coding."""
        self._body_read = True
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        length = self.headers.get("Content-Length", "0").strip()
        if not length.isdigit():
            raise ValueError(f"bad Content-Length {length!r}")
        return self._read_exactly(int(length))

    def _read_chunked(self) -> bytes:
        parts = []
        while True:
            size_line = self.rfile.readline(1024)
            if not size_line:
                raise ClientGone("request body ended early")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                break
            parts.append(self._read_exactly(size))
            self._read_exactly(2)                   # CRLF after the chunk
        while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
            pass                                    # trailers
        return b"".join(parts)

    def _read_exactly(self, count: int) -> bytes:
        data = self.rfile.read(count)
        if len(data) != count:
            raise ClientGone("request body ended early")
        return data


class TestHTTPServer(ThreadingHTTPServer):
    """The listening server: a thread per connection, and a stop that does not wait for stalled handlers."""

    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], root: str, request_log: RequestLog,
                 ssl_context: ssl.SSLContext | None = None):
        super().__init__(address, TestRequestHandler)
        if ssl_context is not None:
            self.socket = ssl_context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)
        self.tls = ssl_context is not None
        self.root = os.path.realpath(root)
        self.request_log = request_log
        self.stopping = threading.Event()
        self.wake_fd, self._wake_write_fd = os.pipe()     # readable once stopping: ends every stall at once
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._lock = threading.Lock()

    def server_bind(self) -> None:
        """Binds without HTTPServer's reverse DNS lookup of the address."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def process_request_thread(self, request, client_address) -> None:
        with self._lock:
            self._connections[request] = threading.current_thread()
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._connections.pop(request, None)

    def handle_error(self, request, client_address) -> None:
        """One line on stderr (failed TLS handshakes end up here) instead of a traceback."""
        print(f"http_server: connection {client_address}: {sys.exc_info()[1]!r}", file=sys.stderr, flush=True)

    def store_upload(self, body: bytes) -> int:
        """Stores an upload as <root>/uploads/<n>.bin with the first free n (from 1) and returns n."""
        folder = os.path.join(self.root, "uploads")
        os.makedirs(folder, exist_ok=True)
        with self._lock:
            number = 1
            while True:
                try:
                    with open(os.path.join(folder, f"{number}.bin"), "xb") as file:
                        file.write(body)
                    return number
                except FileExistsError:
                    number += 1

    def stop(self) -> None:
        """Stops serving, cuts every open connection and gives the handlers SHUTDOWN_GRACE seconds to log."""
        self.stopping.set()
        os.write(self._wake_write_fd, b"x")
        self.shutdown()
        self.server_close()
        with self._lock:
            connections = list(self._connections.items())
        for connection, _ in connections:
            try:
                socket.socket.shutdown(connection, socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for _, thread in connections:
            thread.join(max(0.0, deadline - time.monotonic()))


def _number(text: str, kind: type):
    try:
        return kind(unquote(text))
    except ValueError:
        return None


def _etag(size: int, mtime: float) -> str:
    return f'"{size:x}-{int(mtime * 1_000_000):x}"'


def make_ssl_context(cert: str, key: str) -> ssl.SSLContext:
    """A server-side TLS context for a PEM certificate (chain) and key."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def _exit_when_stdin_closes() -> None:
    """Sends ourselves SIGTERM when stdin reaches end of file (the parent test process died or closed it)."""
    def watch() -> None:
        while os.read(sys.stdin.fileno(), 4096):
            pass
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch, name="stdin-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    """Runs the server until SIGTERM or SIGINT; prints `PORT <n>` once listening."""
    parser = argparse.ArgumentParser(description="Scripted HTTP/1.1 test server (see the module docstring).")
    parser.add_argument("--root", required=True, help="directory of the files to serve")
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--log", required=True, help="JSON-lines request log (appended to)")
    parser.add_argument("--cert", help="PEM certificate: serve HTTPS")
    parser.add_argument("--key", help="PEM private key for --cert")
    parser.add_argument("--exit-with-stdin", action="store_true", help="stop when stdin is closed")
    args = parser.parse_args(argv)
    if bool(args.cert) != bool(args.key):
        parser.error("--cert and --key go together")

    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)    # threads inherit the mask; sigwait below takes them
    context = make_ssl_context(args.cert, args.key) if args.cert else None
    request_log = RequestLog(args.log)
    server = TestHTTPServer((args.bind, args.port), args.root, request_log, context)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="serve", daemon=True).start()
    if args.exit_with_stdin:
        _exit_when_stdin_closes()
    print(f"PORT {server.server_address[1]}", flush=True)
    signal.sigwait(SIGNALS)
    server.stop()
    request_log.close()
    return 0


class LoggedTestServer:
    """What the test servers share once started: `base_url`, `url()`, the request log (`requests()`,
    `wait_for_request()`, kept after stop), stopping the child process, and use as a context manager.

    Subclasses set `_process`, `port` and `base_url` in `start`, and provide `_read_requests()` (the log's records)
    and `_failure_text()` (what to show when the child died)."""

    name = "test server"

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._final_requests: list[dict] | None = None
        self.port = 0
        self.base_url = ""

    def start(self) -> "LoggedTestServer":
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def _read_requests(self) -> list[dict]:
        raise NotImplementedError

    def _failure_text(self) -> str:
        return ""

    def url(self, path: str) -> str:
        """base_url + path (path starts with /)."""
        return self.base_url + path

    def requests(self) -> list[dict]:
        """The requests logged so far, oldest first (still available after stop)."""
        if self._final_requests is not None:
            return list(self._final_requests)
        return self._read_requests()

    def wait_for_request(self, predicate, timeout: float = 10.0) -> dict:
        """The first logged request for which predicate(request) is true; polls the log every 20 ms.

        Raises TimeoutError (with the log so far) after `timeout` seconds, RuntimeError if the server died."""
        deadline = time.monotonic() + timeout
        while True:
            for request in self.requests():
                if predicate(request):
                    return request
            if time.monotonic() >= deadline:
                log = "\n".join(json.dumps(request) for request in self.requests())
                raise TimeoutError(f"no matching request within {timeout} s; log:\n{log}")
            if self._process is None:
                raise RuntimeError(f"the {self.name} is not running")
            try:
                self._process.wait(0.02)
                raise RuntimeError(f"{self.name} exited ({self._process.returncode}): {self._failure_text()}")
            except subprocess.TimeoutExpired:
                pass

    def _end_process(self) -> subprocess.Popen | None:
        """SIGTERM, up to 5 s for the exit, then SIGKILL; returns the process that was running, if any."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        return process

    def __enter__(self):
        return self if self._process is not None else self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()


class HTTPTestServer(LoggedTestServer):
    """This file's server run as a child process, for Python tests.

    `root` is the directory served; `cert`/`key` (PEM paths) make it HTTPS; `log` names the request log (by
    default a file in a temporary directory that `stop` removes). `start` returns self, so
    ``server = HTTPTestServer(root).start()`` works, as does ``with HTTPTestServer(root) as server:``.
    """

    def __init__(self, root: str, *, cert: str | None = None, key: str | None = None, log: str | None = None,
                 bind: str = "127.0.0.1", startup_timeout: float = 10.0):
        if bool(cert) != bool(key):
            raise ValueError("cert and key go together")
        super().__init__()
        self.root = os.path.abspath(root)
        self.cert, self.key = cert, key
        self.bind = bind
        self.startup_timeout = startup_timeout
        self.log_path = os.path.abspath(log) if log else None
        self._own_log = log is None
        self._directory: str | None = None
        self._stderr = None

    def start(self) -> "HTTPTestServer":
        """Spawns the server and waits (at most `startup_timeout` seconds) until it listens."""
        if self._process is not None:
            raise RuntimeError("HTTPTestServer already started")
        self._final_requests = None
        self._directory = tempfile.mkdtemp(prefix="vn-httpsrv-")
        if self._own_log:
            self.log_path = os.path.join(self._directory, "requests.jsonl")
        self._stderr = open(os.path.join(self._directory, "stderr.txt"), "w+b")
        command = [sys.executable, SCRIPT, "--root", self.root, "--bind", self.bind, "--port", "0",
                   "--log", self.log_path, "--exit-with-stdin"]
        if self.cert:
            command += ["--cert", os.path.abspath(self.cert), "--key", os.path.abspath(self.key)]
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        try:
            self.port = self._read_port()
        except BaseException:
            self.stop()
            raise
        scheme = "https" if self.cert else "http"
        self.base_url = f"{scheme}://{self.bind}:{self.port}"
        return self

    def _read_port(self) -> int:
        deadline = time.monotonic() + self.startup_timeout
        output = b""
        fd = self._process.stdout.fileno()
        while b"\n" not in output:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise RuntimeError(f"http_server.py did not listen within {self.startup_timeout} s: {self.stderr()}")
            data = os.read(fd, 4096)
            if not data:
                self._process.wait(5)
                raise RuntimeError(f"http_server.py exited ({self._process.returncode}): {self.stderr()}")
            output += data
        line = output.split(b"\n")[0].decode()
        if not line.startswith("PORT "):
            raise RuntimeError(f"http_server.py printed {line!r}: {self.stderr()}")
        return int(line.split()[1])

    name = "http_server.py"

    def _read_requests(self) -> list[dict]:
        return read_log(self.log_path) if self.log_path else []

    def _failure_text(self) -> str:
        return self.stderr()

    def stderr(self) -> str:
        """What the server wrote to stderr so far (failed TLS handshakes, crashes)."""
        if self._stderr is None or self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def stop(self) -> None:
        """SIGTERM, up to 5 s for the exit, then SIGKILL; keeps the log's requests; idempotent."""
        process = self._end_process()
        if process is None:
            return
        for pipe in (process.stdin, process.stdout):
            pipe.close()
        self._final_requests = self._read_requests()
        if self._stderr is not None:
            self._stderr.close()
        if self._directory:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None


def read_log(path: str) -> list[dict]:
    """The records of a JSON-lines log; an unfinished last line is skipped."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.split("\n")[:-1] if line.strip()]


if __name__ == "__main__":
    sys.exit(main())
