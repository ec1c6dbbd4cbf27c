#!/usr/bin/env python3
"""A small scripted HTTP/1.1 (and HTTPS) server for the HTTP byte source tests.

It serves the files of one directory, and the first segment of the request path picks how it misbehaves, so one
server covers every case a test needs (ranges, no ranges, chunked, throttled, slow, dropped, stalled, redirects,
status codes, bearer auth, multipart and raw uploads). It only uses the Python standard library.

Behaviours (``<file>`` is a path relative to the root; ``..`` is refused with 404):

    /range/<file>            RFC 7233 single range: 200, or 206 with Content-Range, or 416; ETag, Last-Modified
    /norange/<file>          always 200 with the whole body; Accept-Ranges: none
    /chunked/<file>          200, Transfer-Encoding: chunked (4096-byte chunks), no Content-Length, no ranges
    /throttle/<rate>/<file>  like /range, the body paced at <rate> bytes per second
    /slow/<seconds>/<file>   like /range, after waiting <seconds> before the status line
    /pacednorange/<rate>/<file>
                             like /norange (no ranges), the body paced at <rate> bytes per second
    /drop/<file>             200 with the full Content-Length, half the body, then the connection is cut
    /stall/<after>/<file>    200 with the full Content-Length, <after> bytes, then silence until the client leaves
    /status/<code>           that status, body "status <code>" (401 also sends WWW-Authenticate: Bearer)
    /endless/<file>          200 without Content-Length (Connection: close): the file, then zero bytes without end
                             until the client leaves (an unbounded download)
    /claim/<bytes>/<file>    200 with Content-Length: <bytes> (a lie), the file, then silence until the client leaves
    /liarange/<file>         206 "bytes <a>-<size-1>/<size*1000>" with the file from <a> for any Range (from 0
                             without one): a total that is never reached, then empty answers past the file's end
    /flipping/<file>         like /range, but the resource changes with every request to the path: the n-th is the
                             file with every byte XOR (n-1), ETag "v<n>", and honours Range only when If-Range names
                             that ETag (else 200, the whole new version); the first answer is cut half-way
    /redirect/<n>/<rest>     302 to /redirect/<n-1>/<rest>, and at n == 1 to /<rest> (relative Location)
    /goto/<code>/<any>?to=<url>
                             status <code> (301, 302, 303, 307, 308) with Location: <url> (any URL, another host's
                             too), after reading and discarding a request body
    /auth/<token>/<rest>     401 unless "Authorization: Bearer <token>", else serves /<rest>
    /channels/<type>/<id>/file
                             POST multipart/form-data (Stream-like upload), parsed as it streams in; the part
                             named "file" is stored as <root>/uploads/<n>.bin; 200 {"file": "<origin>/range/
                             uploads/<n>.bin", "thumb_url": "<origin>/range/uploads/<n>.thumb"} (<origin> as the
                             client used it: Host, and X-Forwarded-Proto behind a proxy); 400 {"message": ...}
                             for a body that is not multipart/form-data, or without a "file" part
    /_matrix/media/v3/upload POST or PUT, the raw body (Matrix-like upload: Content-Type header, the file name in
                             ?filename=) stored as <root>/uploads/<n>.bin; 200 {"content_uri": "mxc://localhost/<n>"}
    /uploadmode/<mode>/<upload path>
                             either upload above, failing as <mode> says:
      status-<code>          reads the whole body, then that status with {"message": "status <code>"}
      notjson                a normal upload (stored), but 200 text/html "<html>not json</html>"
      badurl                 a normal upload (stored), but its URLs in the answer are javascript: and data: URLs
      holdanswer-<seconds>   a normal upload, answered <seconds> after its whole body was read; that moment is a
                             line with "body_complete": true in <log>.receiving
      drop                   reads half the Content-Length (64 KiB of a chunked body), then cuts the connection
      slowread-<rate>        a normal upload whose body is read at <rate> bytes per second (4 KiB reads); the
                             kernel's socket buffers (some MB on loopback) still take the client's bytes faster,
                             and a client that leaves is only seen once they are read
      expect-<token>         401 {"message": "unauthorized"} unless "Authorization: Bearer <token>", else normal;
                             to "Expect: 100-continue" it answers that 401 at once, without 100 and unread body
      failfirst-<n>          the first <n> requests to this path (counted by the server) read the body and get
                             500 {"message": "failing first"}; later ones are normal (for retries)
    anything else            404

Other methods on the upload paths get 405, other upload paths 404. Request bodies may be chunked; to "Expect:
100-continue" the server answers 100 at once (except as said for expect-<token>). Bodies are read in 256 KiB
pieces and hashed as they arrive (a 10 MB upload takes tens of milliseconds), never parsed in one piece.

While an upload's body arrives, the first bytes read of it append one line to ``<log>.receiving`` (path,
body_bytes, start): the moment a client's body has reached the server, which a test can wait for instead of a
client-side progress figure that depends on the kernel's socket buffers. A /stall/ response appends one line
there too when it has sent its bytes and starts holding the connection silent (path, "stalling": true,
bytes_sent): the moment a client reading it must be waiting on the network.

Every request is appended to the log file as one JSON object per line when its response ends (also when the
client went away): method, path, headers (lower-case names), range, status, bytes (body bytes sent), completed
(whole intended body sent), start and time (``time.monotonic()`` at the start and at the end), expect_continue
("sent" or "withheld", only when the request had "Expect: 100-continue"), and for the upload paths body_bytes
(request body bytes read, so far if the client went away), query (the query parameters; a repeated one as a list)
and then as far as the upload got: parts (multipart: a list of {name, filename, content_type, size, sha256}, the
filename and content_type null when absent), content_type and sha256 (raw upload: the Content-Type header and the
body's SHA-256, hex), upload ("uploads/<n>.bin", once stored), idempotent_replay (true when the request's
Idempotency-Key named an upload stored before: nothing was stored again and the answer names that upload).

As a script (prints one line ``PORT <n>`` once listening, serves until SIGTERM or SIGINT, then exits 0):

    python3 Tests/Servers/http_server.py --root DIR --log FILE [--bind 127.0.0.1] [--port 0] [--cert C --key K]

From Python (the server runs in a child process, so a stalled server can never hang the test process):

    with HTTPTestServer(root) as server:
        urllib.request.urlopen(server.url("/range/a.ogg"))
        server.wait_for_request(lambda r: r["path"] == "/range/a.ogg" and r["completed"])
"""

from __future__ import annotations

import argparse
import email.message
import email.parser
import email.policy
import email.utils
import hashlib
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
from typing import Callable, Iterable, Iterator
from urllib.parse import parse_qs, unquote, urlsplit

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
READ_SIZE = 256 * 1024     # request body reads (at most one socket read each)
SLOW_READ_SIZE = 4096      # request body reads of /uploadmode/slowread-<rate>/
DROP_UNKNOWN_LENGTH = 64 * 1024   # /uploadmode/drop/ of a chunked body: bytes read before the cut
MAX_PART_HEADERS = 16 * 1024      # a multipart part's header block
MAX_BOUNDARY_PADDING = 1024       # transport padding after a multipart boundary

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


class MalformedBody(ValueError):
    """A request body that is not what its Content-Type says (answered with 400)."""


def multipart_boundary(header: str | None) -> bytes:
    """The boundary of a ``multipart/form-data`` Content-Type header; MalformedBody for any other header."""
    message = email.message.Message()
    if header:
        message["Content-Type"] = header
    if message.get_content_type() != "multipart/form-data":
        raise MalformedBody(f"Content-Type {header!r} is not multipart/form-data")
    boundary = message.get_boundary()
    if not boundary or len(boundary) > 70 or not boundary.isascii() or boundary.endswith(" "):
        raise MalformedBody(f"bad multipart boundary {boundary!r}")
    return boundary.encode("ascii")


def parse_part_headers(block: bytes) -> email.message.Message:
    """The header block of one multipart part (CRLF-separated lines, UTF-8 allowed in values)."""
    text = block.decode("utf-8", "replace")
    for line in text.split("\r\n"):
        if line and line[0] not in " \t":
            name, colon, _ = line.partition(":")
            if not colon or not name or name != name.strip():
                raise MalformedBody(f"bad part header line {line[:80]!r}")
    return email.parser.Parser(policy=email.policy.HTTP).parsestr(text, headersonly=True)


class MultipartReader:
    """A streaming multipart/form-data parser (RFC 7578, RFC 2046): `feed` the body in pieces of any size, then
    `close`. For each part, `new_part(headers)` gets its parsed header block and returns a sink whose
    `write(data)` gets the part's bytes in order. Linear in the body size: the buffer holds one fed piece at most
    (plus a boundary's length). Raises MalformedBody for a body it cannot take apart."""

    def __init__(self, boundary: bytes, new_part: Callable[[email.message.Message], object]):
        self._delimiter = b"\r\n--" + boundary
        self._buffer = bytearray(b"\r\n")        # so a boundary at the very start is found like any other
        self._state = "preamble"
        self._new_part = new_part
        self._part = None

    def feed(self, data: bytes) -> None:
        """Takes the next piece of the body."""
        self._buffer += data
        while getattr(self, f"_in_{self._state}")():
            pass

    def close(self) -> None:
        """The body ended: MalformedBody unless the closing boundary was seen."""
        if self._state != "epilogue":
            raise MalformedBody(f"the body ended before the closing boundary (in the {self._state})")

    # Each state consumes what it can and returns True when another state should look at the buffer.

    def _in_preamble(self) -> bool:
        found = self._buffer.find(self._delimiter)
        if found < 0:
            del self._buffer[:max(0, len(self._buffer) - len(self._delimiter) + 1)]
            return False
        del self._buffer[:found + len(self._delimiter)]
        self._state = "boundary"
        return True

    def _in_boundary(self) -> bool:
        """After a boundary: "--" ends the body; else optional transport padding and CRLF, then a part."""
        if len(self._buffer) < 2:
            return False
        if self._buffer.startswith(b"--"):
            self._state = "epilogue"
            return True
        end = self._buffer.find(b"\r\n")
        if end < 0:
            if len(self._buffer) > MAX_BOUNDARY_PADDING:
                raise MalformedBody("no line end after a boundary")
            return False
        if self._buffer[:end].strip(b" \t"):
            raise MalformedBody(f"garbage after a boundary: {bytes(self._buffer[:min(end, 80)])!r}")
        del self._buffer[:end + 2]
        self._state = "headers"
        return True

    def _in_headers(self) -> bool:
        if self._buffer.startswith(b"\r\n"):
            end = 0                                 # an empty header block
        else:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buffer) > MAX_PART_HEADERS:
                    raise MalformedBody(f"a part's headers exceed {MAX_PART_HEADERS} bytes")
                return False
            end += 2
        headers = parse_part_headers(bytes(self._buffer[:end]))
        del self._buffer[:end + 2]
        self._part = self._new_part(headers)
        self._state = "body"
        return True

    def _in_body(self) -> bool:
        found = self._buffer.find(self._delimiter)
        if found < 0:                               # all but a possible start of the delimiter is part data
            safe = len(self._buffer) - len(self._delimiter) + 1
            if safe > 0:
                self._part.write(self._buffer[:safe])
                del self._buffer[:safe]
            return False
        self._part.write(self._buffer[:found])
        del self._buffer[:found + len(self._delimiter)]
        self._part = None
        self._state = "boundary"
        return True

    def _in_epilogue(self) -> bool:
        self._buffer.clear()                        # ignored, like the preamble
        return False


class UploadPart:
    """One form-data part as it streams in: its name, filename and Content-Type, size and SHA-256, and (after
    `keep_bytes`) its bytes as a list of pieces."""

    def __init__(self, headers: email.message.Message):
        if headers.get_content_disposition() != "form-data":
            raise MalformedBody(f"part Content-Disposition {headers.get('Content-Disposition')!r} is not form-data")
        name = headers.get_param("name", header="content-disposition")
        if name is None:
            raise MalformedBody("a form-data part without a name")
        self.name = email.utils.collapse_rfc2231_value(name)
        self.filename = headers.get_filename()
        self.content_type = str(headers["Content-Type"]) if "Content-Type" in headers else None
        self.size = 0
        self.pieces: list[bytes] | None = None
        self._digest = hashlib.sha256()

    def keep_bytes(self) -> None:
        """Keeps the part's bytes in `pieces` (called before the first write)."""
        self.pieces = []

    def write(self, data: bytes) -> None:
        """The next bytes of the part."""
        self.size += len(data)
        self._digest.update(data)
        if self.pieces is not None:
            self.pieces.append(data)

    def record(self) -> dict:
        """The part as the request log shows it."""
        return {"name": self.name, "filename": self.filename, "content_type": self.content_type,
                "size": self.size, "sha256": self._digest.hexdigest()}


def parse_upload_mode(text: str) -> tuple[str, object] | None:
    """(name, argument) of an /uploadmode/<mode>/ segment, or None when it is no mode: ("status", code),
    ("notjson", None), ("drop", None), ("slowread", bytes per second), ("expect", token), ("failfirst", n)."""
    name, dash, argument = unquote(text).partition("-")
    if name in ("notjson", "badurl", "drop") and not dash:
        return name, None
    if name == "holdanswer":
        seconds = _number(argument, float) if argument else None
        return (name, seconds) if seconds is not None and 0 <= seconds <= 60 else None
    if name == "status" and argument.isdigit() and 200 <= int(argument) <= 599:
        return name, int(argument)
    if name == "slowread":
        rate = _number(argument, float)
        return (name, rate) if rate is not None and 0 < rate < math.inf else None
    if name == "expect" and argument:
        return name, argument
    if name == "failfirst" and argument.isdigit():
        return name, int(argument)
    return None


def upload_kind(segments: list[str]) -> str | None:
    """"multipart" for /channels/<type>/<id>/file, "raw" for /_matrix/media/v3/upload, else None."""
    if len(segments) == 4 and segments[0] == "channels" and segments[3] == "file":
        return "multipart"
    if segments == ["_matrix", "media", "v3", "upload"]:
        return "raw"
    return None


class RequestLog:
    """The JSON-lines request log: one object per line, written and flushed at once, safe across threads."""

    def __init__(self, path: str):
        self.path = path
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
    disable_nagle_algorithm = True      # TCP_NODELAY: no 40 ms delayed-ACK stall between headers and body

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

    def parse_request(self) -> bool:
        """The base class's, after forgetting the previous request's 100 Continue."""
        self._continue: str | None = None
        return super().parse_request()

    def handle_expect_100(self) -> bool:
        """Answers "Expect: 100-continue" with 100 at once, unless the request is refused for its Authorization
        (expect-<token>): then the 401 comes instead, and the client does not send the body."""
        segments = [segment for segment in urlsplit(self.path).path.split("/") if segment]
        mode = parse_upload_mode(segments[1]) if len(segments) > 1 and segments[0] == "uploadmode" else None
        if mode and mode[0] == "expect" and not self._authorized(mode[1]):
            self._continue = "withheld"
            return True
        self._continue = "sent"
        return super().handle_expect_100()

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
        if self._continue:
            self._record["expect_continue"] = self._continue
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
            "goto": self._route_goto,
            "endless": self._route_endless,
            "pacednorange": self._route_pacednorange,
            "claim": self._route_claim,
            "liarange": self._route_liarange,
            "flipping": self._route_flipping,
            "auth": self._route_auth,
            "channels": self._route_channels,
            "_matrix": self._route_matrix,
            "uploadmode": self._route_uploadmode,
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

    def _route_pacednorange(self, rest: list[str]) -> None:
        rate = _number(rest[0], float) if rest else None
        if rate is None or not 0 < rate < math.inf:
            self._send_text(404, "bad rate")
            return
        path = self._file_for(rest[1:])
        if not path:
            return
        stat = os.stat(path)
        headers = self._file_headers(path, stat.st_size, stat.st_mtime) + [("Accept-Ranges", "none")]
        self._start(200, headers + [("Content-Length", str(stat.st_size))])
        self._send_file(path, 0, stat.st_size, rate=rate)
        self._record["completed"] = True

    def _route_endless(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if not path:
            return
        self.close_connection = True
        self._start(200, [("Content-Type", content_type(path)), ("Connection", "close")])
        with open(path, "rb") as file:
            self._write(file.read())
        zeros = bytes(COPY_SIZE)
        while not self.server.stopping.is_set():
            self._write(zeros)              # ends with ClientGone once the client leaves

    def _route_claim(self, rest: list[str]) -> None:
        claimed = _number(rest[0], int) if rest else None
        path = self._file_for(rest[1:])
        if claimed is None or claimed < 0 or not path:
            self._send_text(404, "bad claim")
            return
        self._start(200, [("Content-Type", content_type(path)), ("Content-Length", str(claimed))])
        with open(path, "rb") as file:
            self._write(file.read(claimed))
        self._hold_until_gone()

    def _route_liarange(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if not path:
            return
        with open(path, "rb") as file:
            data = file.read()
        wanted = self.headers.get("Range", "bytes=0-")
        first = _number(wanted[6:].split("-")[0], int) or 0
        body = data[first:]
        self._start(206, [("Content-Type", content_type(path)), ("Accept-Ranges", "bytes"),
                          ("Content-Range", f"bytes {first}-{len(data) - 1}/{len(data) * 1000}"),
                          ("Content-Length", str(len(body)))])
        self._write(body)
        self._record["completed"] = True

    def _route_flipping(self, rest: list[str]) -> None:
        path = self._file_for(rest)
        if not path:
            return
        version = self.server.count_request(self.path.split("?")[0])
        with open(path, "rb") as file:
            data = bytes(byte ^ ((version - 1) & 0xFF) for byte in file.read())
        tag = f'"v{version}"'
        headers = [("Content-Type", content_type(path)), ("Accept-Ranges", "bytes"), ("ETag", tag)]
        condition = self.headers.get("If-Range")
        try:
            wanted = parse_range(self.headers.get("Range"), len(data)) if condition in (None, tag) else None
        except Unsatisfiable:
            wanted = None
        if wanted is None:
            self._start(200, headers + [("Content-Length", str(len(data)))])
            if version == 1:
                self._write(data[:len(data) // 2])
                self._cut_connection()
                return
            self._write(data)
        else:
            first, last = wanted
            self._start(206, headers + [("Content-Range", f"bytes {first}-{last}/{len(data)}"),
                                        ("Content-Length", str(last - first + 1))])
            self._write(data[first:last + 1])
        self._record["completed"] = True

    def _route_goto(self, rest: list[str]) -> None:
        code = _number(rest[0], int) if rest else None
        target = parse_qs(self._query or "").get("to", [None])[0]
        if code not in (301, 302, 303, 307, 308) or not target:
            self._send_text(404, "goto needs a redirect status and ?to=<url>")
            return
        if self._has_body():
            self._discard_body()
        self._send_text(code, f"redirect to {target}", [("Location", target)])

    def _route_auth(self, rest: list[str]) -> None:
        if not rest:
            self._send_text(404, "no token")
        elif self.headers.get("Authorization") != f"Bearer {unquote(rest[0])}":
            self._send_status(401)
        else:
            self._route(rest[1:])

    def _route_channels(self, rest: list[str]) -> None:
        self._route_upload(["channels", *rest], None)

    def _route_matrix(self, rest: list[str]) -> None:
        self._route_upload(["_matrix", *rest], None)

    def _route_uploadmode(self, rest: list[str]) -> None:
        mode = parse_upload_mode(rest[0]) if rest else None
        if mode is None:
            self._send_text(404, "unknown upload mode")
        else:
            self._route_upload(rest[1:], mode)

    # -- uploads --------------------------------------------------------------------------------------------------

    def _route_upload(self, segments: list[str], mode: tuple[str, object] | None) -> None:
        """A multipart or raw upload, failing as `mode` (from parse_upload_mode) says."""
        kind = upload_kind(segments)
        if kind is None:
            self._send_text(404, "not an upload path")
            return
        methods = ("POST", "PUT") if kind == "raw" else ("POST",)
        if self.command not in methods:
            self._send_text(405, f"upload needs {' or '.join(methods)}", [("Allow", ", ".join(methods))])
            return
        self._record["body_bytes"] = 0
        self._record["query"] = self._query_dict()
        name, argument = mode or ("normal", None)
        if name == "failfirst" and self.server.count_request(self.path.split("?")[0]) <= argument:
            self._discard_body()
            self._send_json(500, {"message": "failing first"})
        elif name == "expect" and not self._authorized(argument):
            self._discard_body()
            self._send_json(401, {"message": "unauthorized"}, [("WWW-Authenticate", "Bearer")])
        elif name == "status":
            self._discard_body()
            extra = [("WWW-Authenticate", "Bearer")] if argument == 401 else []
            self._send_json(argument, {"message": f"status {argument}"}, extra)
        elif name == "drop":
            length = self.headers.get("Content-Length", "").strip()
            for _ in self._body_chunks(limit=int(length) // 2 if length.isdigit() else DROP_UNKNOWN_LENGTH):
                pass
            self._cut_connection()
        else:
            self._receive_upload(kind, html_reply=name == "notjson", bad_url=name == "badurl",
                                 rate=argument if name == "slowread" else None,
                                 hold=argument if name == "holdanswer" else None)

    def _receive_upload(self, kind: str, html_reply: bool, rate: float | None, bad_url: bool = False,
                        hold: float | None = None) -> None:
        """Reads (at `rate` bytes/s if given), checks and stores the upload, and answers (`hold` seconds after the
        body was read, if given)."""
        chunks = self._body_chunks(rate=rate)
        try:
            number = self._receive_multipart(chunks) if kind == "multipart" else self._receive_raw(chunks)
            if hold is not None:
                self.server.receiving_log.write({"path": self.path, "body_complete": True, "time": time.monotonic(),
                                                 "body_bytes": self._record.get("body_bytes", 0)})
                if self.server.stopping.wait(hold):
                    raise ClientGone("server stopping")
        except MalformedBody as error:
            self._record["error"] = f"malformed: {error}"
            for _ in chunks:                        # read the rest, so that the client reads the answer
                pass
            self._send_json(400, {"message": f"malformed body: {error}"})
            return
        if number is None:
            self._send_json(400, {"message": "no file part"})
        elif html_reply:
            self._send_bytes(200, b"<html>not json</html>", [("Content-Type", "text/html; charset=utf-8")])
        elif bad_url:
            self._send_json(200, {"file": "javascript:alert(1)", "content_uri": "javascript:alert(1)",
                                  "thumb_url": "data:text/html,<script>alert(1)</script>"})
        elif kind == "multipart":
            base = f"{self._origin()}/range/uploads/{number}"
            self._send_json(200, {"file": f"{base}.bin", "thumb_url": f"{base}.thumb"})
        else:
            self._send_json(200, {"content_uri": f"mxc://localhost/{number}"})

    def _receive_multipart(self, chunks: Iterator[bytes]) -> int | None:
        """Parses a multipart/form-data body as it arrives, logs its parts, and stores the (first) part named
        "file"; returns its upload number, or None when there is no such part."""
        boundary = multipart_boundary(self.headers.get("Content-Type"))
        parts: list[UploadPart] = []
        self._record["parts"] = []

        def new_part(headers: email.message.Message) -> UploadPart:
            part = UploadPart(headers)
            if part.name == "file" and not any(other.pieces is not None for other in parts):
                part.keep_bytes()
            parts.append(part)
            return part

        reader = MultipartReader(boundary, new_part)
        try:
            for piece in chunks:
                reader.feed(piece)
            reader.close()
        finally:
            self._record["parts"] = [part.record() for part in parts]
        stored = next((part for part in parts if part.pieces is not None), None)
        return None if stored is None else self._store(stored.pieces)

    def _receive_raw(self, chunks: Iterator[bytes]) -> int:
        """Reads a raw upload body, logs its Content-Type and SHA-256, stores it; returns the upload number."""
        self._record["content_type"] = self.headers.get("Content-Type")
        digest = hashlib.sha256()
        pieces = []
        for piece in chunks:
            digest.update(piece)
            pieces.append(piece)
        self._record["sha256"] = digest.hexdigest()
        return self._store(pieces)

    def _store(self, pieces: Iterable[bytes]) -> int:
        key = self.headers.get("Idempotency-Key")
        number, replayed = self.server.store_upload(pieces, key=key) if key else (self.server.store_upload(pieces), False)
        self._record["upload"] = f"uploads/{number}.bin"
        if replayed:
            self._record["idempotent_replay"] = True
        return number

    def _authorized(self, token: object) -> bool:
        return self.headers.get("Authorization") == f"Bearer {token}"

    def _query_dict(self) -> dict:
        values = parse_qs(self._query, keep_blank_values=True)
        return {name: found[0] if len(found) == 1 else found for name, found in values.items()}

    def _discard_body(self) -> None:
        """Reads and forgets the request body, unless 100 Continue was withheld (then the client does not send it
        and the connection is closed after the response)."""
        if self._continue != "withheld":
            for _ in self._body_chunks():
                pass

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
            self.server.receiving_log.write({"path": self.path, "stalling": True, "bytes_sent": sent,
                                             "start": time.monotonic()})
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

    def _send_json(self, status: int, value: dict, headers: list[tuple[str, str]] = ()) -> None:
        self._send_bytes(status, json.dumps(value).encode(), [("Content-Type", "application/json"), *headers])

    def _send_status(self, code: int) -> None:
        extra = [("WWW-Authenticate", "Bearer")] if code == 401 else []
        self._send_text(code, f"status {code}", extra)

    def _origin(self) -> str:
        """scheme://host[:port] the client used (behind a proxy: its Host and X-Forwarded-Proto)."""
        forwarded = self.headers.get("X-Forwarded-Proto", "").strip().lower()
        scheme = forwarded if forwarded in ("http", "https") else "https" if self.server.tls else "http"
        host, port = self.server.server_address[:2]
        return f"{scheme}://{self.headers.get('Host') or f'{host}:{port}'}"

    # -- request bodies -------------------------------------------------------------------------------------------

    def _has_body(self) -> bool:
        length = self.headers.get("Content-Length", "0").strip()
        return "chunked" in self.headers.get("Transfer-Encoding", "").lower() or (length.isdigit() and int(length) > 0)

    def _read_body(self) -> bytes:
        """The whole request body, by Content-Length or chunked transfer coding."""
        return b"".join(self._body_chunks())

    def _body_chunks(self, rate: float | None = None, limit: int | None = None) -> Iterator[bytes]:
        """The request body in pieces of at most READ_SIZE bytes as they arrive, counted into the record's
        body_bytes. With `rate`, read in SLOW_READ_SIZE pieces paced at that many bytes per second; with `limit`,
        stops after that many bytes. Marks the body read once all of it is."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = BodyReader(self.rfile, None)
        else:
            length = self.headers.get("Content-Length", "0").strip()
            if not length.isdigit():
                raise ValueError(f"bad Content-Length {length!r}")
            body = BodyReader(self.rfile, int(length))
        piece_size = SLOW_READ_SIZE if rate else READ_SIZE
        began = time.monotonic()
        got = 0
        while limit is None or got < limit:
            if rate:
                self._pace(began + got / rate)
            piece = body.read(piece_size if limit is None else min(piece_size, limit - got))
            if not piece:
                self._body_read = True
                return
            if got == 0 and "body_bytes" in self._record:     # an upload's first bytes are here
                self.server.receiving_log.write({"path": self.path, "body_bytes": len(piece),
                                                 "start": self._record["start"]})
            got += len(piece)
            self._record["body_bytes"] = self._record.get("body_bytes", 0) + len(piece)
            yield piece


class BodyReader:
    """One request body from a connection's buffered reader: `length` bytes, or chunked when `length` is None."""

    def __init__(self, rfile, length: int | None):
        self._rfile = rfile
        self._chunked = length is None
        self._left = length or 0                    # bytes left of the body, or of the current chunk
        self._ended = not self._chunked and self._left == 0

    def read(self, wanted: int) -> bytes:
        """At most `wanted` bytes of the body (what one socket read brings), b"" at its end. Raises ClientGone
        when the connection ends first, ValueError for broken chunked framing."""
        if self._ended:
            return b""
        if self._left == 0 and not self._next_chunk():
            return b""
        piece = self._rfile.read1(min(wanted, self._left))
        if not piece:
            raise ClientGone("request body ended early")
        self._left -= len(piece)
        if self._left == 0:
            if self._chunked:
                self._expect_line_end()
            else:
                self._ended = True
        return piece

    def _next_chunk(self) -> bool:
        """Reads a chunk-size line; at the last chunk reads the trailers, marks the end and returns False."""
        line = self._rfile.readline(1024)
        if not line:
            raise ClientGone("request body ended early")
        size_text = line.split(b";")[0].strip()
        if not size_text or size_text.strip(b"0123456789abcdefABCDEF"):
            raise ValueError(f"bad chunk size line {line[:80]!r}")
        size = int(size_text, 16)
        if size == 0:
            while self._rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                pass                                # trailers
            self._ended = True
            return False
        self._left = size
        return True

    def _expect_line_end(self) -> None:
        end = self._rfile.readline(3)
        if end not in (b"\r\n", b"\n"):
            raise ClientGone("request body ended early") if not end else ValueError("no CRLF after a chunk")


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
        self.receiving_log = RequestLog(request_log.path + ".receiving")
        self.stopping = threading.Event()
        self.wake_fd, self._wake_write_fd = os.pipe()     # readable once stopping: ends every stall at once
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}                 # requests per path, for failfirst-<n>
        self._counts_lock = threading.Lock()

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

    def count_request(self, path: str) -> int:
        """How many requests to `path` this server has seen, this one included."""
        with self._counts_lock:
            self._counts[path] = self._counts.get(path, 0) + 1
            return self._counts[path]

    def store_upload(self, body: bytes | Iterable[bytes], key: str | None = None):
        """Stores an upload (bytes, or a list of pieces) as <root>/uploads/<n>.bin with the first free n (from 1)
        and returns n. With `key` (an Idempotency-Key header), returns (n, replayed): an upload under a key stored
        before (<root>/uploads/keys/<key>, kept across restarts of the server) is not stored again, and answers
        with that upload's n."""
        if key is not None:
            safe = hashlib.sha256(key.encode()).hexdigest()
            keys = os.path.join(self.root, "uploads", "keys")
            os.makedirs(keys, exist_ok=True)
            known = os.path.join(keys, safe)
            if os.path.exists(known):
                with open(known, encoding="ascii") as file:
                    return int(file.read()), True
            number = self.store_upload(body)
            with open(known + ".new", "w", encoding="ascii") as file:
                file.write(str(number))
            os.replace(known + ".new", known)
            return number, False
        pieces = [body] if isinstance(body, (bytes, bytearray, memoryview)) else list(body)
        folder = os.path.join(self.root, "uploads")
        os.makedirs(folder, exist_ok=True)
        number = 1
        while True:
            try:
                file = open(os.path.join(folder, f"{number}.bin"), "xb")     # exclusive: n is ours alone
            except FileExistsError:
                number += 1
                continue
            with file:
                file.writelines(pieces)
            return number

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
    server.receiving_log.close()
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
        def failure() -> str:
            log = "\n".join(json.dumps(request) for request in self.requests())
            return f"no matching request within {timeout} s; log:\n{log}"
        return self._poll(lambda: next((r for r in self.requests() if predicate(r)), None), timeout, failure)

    def _poll(self, find, timeout: float, failure) -> dict:
        """find()'s first answer that is not None, asked every 20 ms: TimeoutError (with failure()'s text) after
        `timeout` seconds, RuntimeError if the server died."""
        deadline = time.monotonic() + timeout
        while True:
            found = find()
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(failure())
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

    def wait_for_receiving(self, path_prefix: str, timeout: float = 10.0, complete: bool = False) -> dict:
        """Waits until an upload to a path starting with `path_prefix` has reached the server (its first body
        bytes were read; with `complete`, all of it, in a holdanswer mode) and returns that line of
        ``<log>.receiving``: path, body_bytes, and start (or body_complete and time). Polls every 20 ms;
        TimeoutError after `timeout` seconds, RuntimeError if the server died."""
        lines = lambda: read_log(self.log_path + ".receiving") if self.log_path else []  # noqa: E731
        wanted = lambda line: (line["path"].startswith(path_prefix) and "stalling" not in line  # noqa: E731
                               and line.get("body_complete", False) == complete)
        return self._poll(lambda: next((line for line in lines() if wanted(line)), None),
                          timeout, lambda: f"no upload to {path_prefix} reached the server within {timeout} s")

    def wait_for_stalling(self, path_prefix: str, timeout: float = 10.0) -> dict:
        """Waits until a /stall/ response to a path starting with `path_prefix` has sent its bytes and holds the
        connection silent, and returns that line of ``<log>.receiving`` (path, stalling, bytes_sent, start). Polls
        every 20 ms; TimeoutError after `timeout` seconds, RuntimeError if the server died."""
        lines = lambda: read_log(self.log_path + ".receiving") if self.log_path else []  # noqa: E731
        wanted = lambda line: line["path"].startswith(path_prefix) and line.get("stalling", False)  # noqa: E731
        return self._poll(lambda: next((line for line in lines() if wanted(line)), None),
                          timeout, lambda: f"no stalled response to {path_prefix} within {timeout} s")

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
