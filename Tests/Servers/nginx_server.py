#!/usr/bin/env python3
"""Debian's nginx as a test server: a real-world HTTP/1.1 server with Range support, TLS and rate limiting.

It serves the files of one directory at ``/`` (nginx does Range, multi-range, ETag and If-Range itself) and again
at ``/throttle/`` with ``limit_rate`` (64 KiB/s by default). Everything nginx needs (configuration, pid file, logs,
temporary directories, certificates) lives in a private temporary directory; nothing under /etc or /var is used.
It only uses the Python standard library and the ``nginx`` and ``openssl`` programs.

With ``tls=True`` it makes a test CA and a server certificate for IP 127.0.0.1 and DNS localhost (valid one day)
and serves HTTPS; a client must trust ``ca_file``. ``make_self_signed`` makes a certificate no client trusts, for
the "untrusted certificate is refused" tests (usable with ``http_server.py --cert --key``); ``make_test_ca`` makes
a CA and a certificate it signed (usable with both servers).

With ``proxy_to="http://127.0.0.1:<port>"`` it is instead a (with ``tls=True``, TLS-terminating) reverse proxy:
every request goes to that upstream (e.g. http_server.py) with its path and query string as the client sent them
and its headers (also those with underscores, like api_key; Host as the client sent it; X-Forwarded-For and
X-Forwarded-Proto added); its body is passed on as it arrives (proxy_request_buffering off, no size limit, a
chunked body stays chunked over HTTP/1.1), and the response comes back unbuffered. nginx answers "Expect:
100-continue" itself and does not pass it on. The access log then also has request_length (bytes of the request,
body included) and upstream_status; an upstream that cuts the connection shows up as 502.

From Python:

    with NginxTestServer(root, tls=True) as server:
        fetch(server.url("/a.ogg"), cafile=server.ca_file)
        server.wait_for_request(lambda r: r["path"] == "/a.ogg" and r["completed"])

    with HTTPTestServer(root) as upstream, NginxTestServer(root, tls=True, proxy_to=upstream.base_url) as proxy:
        post(proxy.url("/channels/messaging/1/file?api_key=k"), cafile=proxy.ca_file)   # logged by both

As a script (prints one line ``PORT <n>`` once nginx accepts connections, stops nginx on SIGTERM or SIGINT):

    python3 Tests/Servers/nginx_server.py --root DIR --log FILE [--tls DIR] [--throttle-rate 65536] [--proxy-to URL]

``--tls DIR`` writes the CA to DIR/ca.pem (the certificate and key to DIR/server.pem and DIR/server.key). The
--log file is nginx's access log, one JSON object per line with the keys method, path, status, bytes, range,
completed ("OK" or ""), request_time, msec and headers; ``requests()`` turns "" into null and "OK" into true.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_server import LoggedTestServer, read_log  # noqa: E402  (the same folder; also when run as a script)

NGINX = "/usr/sbin/nginx"
OPENSSL = "openssl"
DEFAULT_THROTTLE_RATE = 65536
START_ATTEMPTS = 5          # fresh ports to try when nginx cannot bind (another process took the port)

SIGNALS = {signal.SIGTERM, signal.SIGINT}

CONTENT_TYPES = """
        audio/ogg ogg opus;
        audio/mpeg mp3;
        audio/aac aac;
        audio/mp4 m4a;
        audio/wav wav;
        audio/flac flac;
        text/plain txt;
        application/json json;
"""

# nginx escapes the variables for JSON; numbers are always numbers. Absent headers become "".
LOG_FORMAT = (
    '{"method":"$request_method","path":"$request_uri","status":$status,"bytes":$body_bytes_sent,'
    '"range":"$http_range","completed":"$request_completion","request_time":$request_time,"msec":$msec,'
    '"headers":{"authorization":"$http_authorization","range":"$http_range","if-range":"$http_if_range",'
    '"user-agent":"$http_user_agent","host":"$http_host"}}'
)
PROXY_LOG_FORMAT = LOG_FORMAT[:-1] + ',"request_length":$request_length,"upstream_status":"$upstream_status"}'
PROXY_TIMEOUT = 120         # seconds nginx waits on a silent upstream (as http_server.py's IDLE_TIMEOUT)
PROXY_BODY_BUFFER = "1m"    # client_body_buffer_size: the pieces a request body is passed on in


# -- certificates ---------------------------------------------------------------------------------------------------

def _openssl(directory: str, *args: str) -> None:
    result = subprocess.run([OPENSSL, *args], cwd=directory, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {result.stderr.strip()}")


def _write(path: str, text: str) -> str:
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return path


SERVER_EXTENSIONS = """\
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
"""


def _request_config(common_name: str, extensions: str) -> str:
    return f"""\
[req]
distinguished_name = dn
prompt = no
x509_extensions = ext
[dn]
CN = {common_name}
[ext]
{extensions}"""


def make_test_ca(directory: str) -> dict:
    """Makes a test CA and a server certificate it signed, for IP 127.0.0.1 and DNS localhost, valid one day
    (EC P-256 keys), in `directory` (created if needed).

    Returns dict(ca_file=<CA certificate PEM a client must trust>, cert=<server certificate PEM>, key=<its key>).
    """
    os.makedirs(directory, exist_ok=True)
    ca_extensions = ("basicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\n"
                     "subjectKeyIdentifier = hash\n")
    _write(os.path.join(directory, "ca.cnf"), _request_config("VoiceNote Test CA", ca_extensions))
    _openssl(directory, "req", "-x509", "-new", "-config", "ca.cnf", "-newkey", "ec",
             "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
             "-days", "1", "-sha256")
    _write(os.path.join(directory, "server.cnf"), _request_config("localhost", SERVER_EXTENSIONS))
    _write(os.path.join(directory, "server.ext"), SERVER_EXTENSIONS + "authorityKeyIdentifier = keyid\n")
    _openssl(directory, "req", "-new", "-config", "server.cnf", "-newkey", "ec",
             "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out", "server.csr")
    _openssl(directory, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-set_serial", "0x" + secrets.token_hex(8), "-days", "1", "-sha256",
             "-extfile", "server.ext", "-out", "server.pem")
    return {
        "ca_file": os.path.join(directory, "ca.pem"),
        "cert": os.path.join(directory, "server.pem"),
        "key": os.path.join(directory, "server.key"),
    }


def make_self_signed(directory: str) -> tuple[str, str]:
    """Makes a self-signed certificate for IP 127.0.0.1 and DNS localhost (valid one day) that no client trusts,
    in `directory` (created if needed). Returns (certificate PEM path, key PEM path)."""
    os.makedirs(directory, exist_ok=True)
    _write(os.path.join(directory, "self-signed.cnf"), _request_config("localhost", SERVER_EXTENSIONS))
    _openssl(directory, "req", "-x509", "-new", "-config", "self-signed.cnf", "-newkey", "ec",
             "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "self-signed.key",
             "-out", "self-signed.pem", "-days", "1", "-sha256")
    return os.path.join(directory, "self-signed.pem"), os.path.join(directory, "self-signed.key")


# -- nginx ----------------------------------------------------------------------------------------------------------

def _quote(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def proxy_upstream(url: str) -> str:
    """The proxy_pass target for a proxy_to URL: scheme://host:port with no path, so that nginx passes each
    request URI on as the client sent it. ValueError for anything else."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"proxy_to must be http(s)://host[:port], not {url!r}")
    _ = parts.port                                  # ValueError for a bad port
    return f"{parts.scheme}://{parts.netloc}"


def _locations(root: str, throttle_rate: int, proxy_to: str | None) -> str:
    """The server block's locations: the files (and /throttle/), or everything proxied to `proxy_to`."""
    if proxy_to:
        return f"""\
        client_max_body_size 0;
        client_body_buffer_size {PROXY_BODY_BUFFER};
        underscores_in_headers on;

        location / {{
            proxy_pass {proxy_upstream(proxy_to)};
            proxy_http_version 1.1;
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_connect_timeout 10s;
            proxy_send_timeout {PROXY_TIMEOUT}s;
            proxy_read_timeout {PROXY_TIMEOUT}s;
        }}
"""
    return f"""\
        location / {{
        }}

        location /throttle/ {{
            alias {_quote(os.path.join(root, ""))};
            limit_rate_after 0;
            limit_rate {int(throttle_rate)};
        }}
"""


def nginx_config(directory: str, root: str, port: int, access_log: str, *, certificate: dict | None = None,
                 throttle_rate: int = DEFAULT_THROTTLE_RATE, proxy_to: str | None = None) -> str:
    """The nginx.conf text: `root` at / and at /throttle/ (rate limited), or with `proxy_to` every request proxied
    there; every path nginx writes in `directory`."""
    def d(name: str) -> str:
        return _quote(os.path.join(directory, name))

    tls = ""
    if certificate:
        tls = (f"        ssl_certificate {_quote(certificate['cert'])};\n"
               f"        ssl_certificate_key {_quote(certificate['key'])};\n"
               "        ssl_protocols TLSv1.2 TLSv1.3;\n")
    user = "user root;\n" if os.geteuid() == 0 else ""    # the worker must read roots made by mkdtemp (mode 0700)
    return f"""\
{user}worker_processes 1;
pid {d("nginx.pid")};
error_log {d("error.log")} info;

events {{
    worker_connections 512;
}}

http {{
    types {{{CONTENT_TYPES}    }}
    default_type application/octet-stream;

    client_body_temp_path {d("client_body")};
    proxy_temp_path {d("proxy")};
    fastcgi_temp_path {d("fastcgi")};
    uwsgi_temp_path {d("uwsgi")};
    scgi_temp_path {d("scgi")};

    log_format vn_test escape=json '{PROXY_LOG_FORMAT if proxy_to else LOG_FORMAT}';
    access_log {_quote(access_log)} vn_test;

    sendfile on;
    keepalive_timeout 60s;
    server_tokens off;

    server {{
        listen 127.0.0.1:{port}{" ssl" if certificate else ""};
        server_name localhost 127.0.0.1;
{tls}        root {_quote(root)};

{_locations(root, throttle_rate, proxy_to)}    }}
}}
"""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class NginxTestServer(LoggedTestServer):
    """nginx serving `root` on 127.0.0.1 (HTTPS with `tls=True`), run in the foreground as a child process.

    `throttle_rate` is the limit_rate (bytes per second) of /throttle/; `proxy_to` (http(s)://host:port) makes it
    a reverse proxy of every path to there instead of a file server; `log` names the access log (by default a
    file in the private directory, which `stop` removes). After `start`: port, base_url, url(), ca_file (None
    without TLS), requests(), wait_for_request(). ``with NginxTestServer(root) as server:`` starts and stops it.
    """

    def __init__(self, root: str, *, tls: bool = False, throttle_rate: int = DEFAULT_THROTTLE_RATE,
                 log: str | None = None, tls_directory: str | None = None, nginx: str = NGINX,
                 startup_timeout: float = 10.0, proxy_to: str | None = None):
        super().__init__()
        if proxy_to:
            proxy_upstream(proxy_to)                # fail here, not when nginx reads its configuration
        self.root = os.path.abspath(root)
        self.tls = tls
        self.throttle_rate = throttle_rate
        self.proxy_to = proxy_to
        self.log_path = os.path.abspath(log) if log else None
        self._own_log = log is None
        self._tls_directory = tls_directory
        self.nginx = nginx
        self.startup_timeout = startup_timeout
        self.directory: str | None = None
        self.ca_file: str | None = None
        self.certificate: dict | None = None
        self._stderr = None
        self._final_error_log = ""

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def start(self) -> "NginxTestServer":
        """Makes the configuration (and certificates), starts nginx and waits until it accepts connections."""
        if self._process is not None:
            raise RuntimeError("NginxTestServer already started")
        self._final_requests = None
        self.directory = tempfile.mkdtemp(prefix="vn-nginx-")
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.mkdir(os.path.join(self.directory, name))
        if self._own_log:
            self.log_path = os.path.join(self.directory, "access.log")
        try:
            if self.tls:
                self.certificate = make_test_ca(self._tls_directory or os.path.join(self.directory, "tls"))
                self.ca_file = self.certificate["ca_file"]
            self._start_on_a_free_port()
        except BaseException:
            self.stop()
            raise
        scheme = "https" if self.tls else "http"
        self.base_url = f"{scheme}://127.0.0.1:{self.port}"
        return self

    def _start_on_a_free_port(self) -> None:
        for _ in range(START_ATTEMPTS):
            self.port = free_port()
            config = nginx_config(self.directory, self.root, self.port, self.log_path,
                                  certificate=self.certificate, throttle_rate=self.throttle_rate,
                                  proxy_to=self.proxy_to)
            config_path = _write(os.path.join(self.directory, "nginx.conf"), config)
            self._stderr = open(os.path.join(self.directory, "stderr.txt"), "w+b")
            # With its master process (not "master_process off"), nginx takes SIGTERM even when started with the
            # signal blocked (a blocked mask is inherited, e.g. from main() below): the master waits in sigsuspend
            # and the worker clears its mask.
            self._process = subprocess.Popen(
                [self.nginx, "-p", self.directory + "/", "-c", config_path,
                 "-e", os.path.join(self.directory, "error.log"), "-g", "daemon off;"],
                stdin=subprocess.DEVNULL, stdout=self._stderr, stderr=self._stderr)
            if self._wait_until_listening():
                return
            self._kill()
            if "Address already in use" not in self.error_log():
                raise RuntimeError(f"nginx did not start: {self.error_log()}")
        raise RuntimeError(f"nginx found no free port in {START_ATTEMPTS} attempts: {self.error_log()}")

    def _wait_until_listening(self) -> bool:
        """True once a TCP connection to the port succeeds, False if nginx exited; bounded by startup_timeout."""
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0):
                    return True
            except OSError:
                pass
            try:
                self._process.wait(0.02)
                return False
            except subprocess.TimeoutExpired:
                pass
        self._kill()
        raise RuntimeError(f"nginx did not listen within {self.startup_timeout} s: {self.error_log()}")

    def stop(self) -> None:
        """Stops nginx (SIGTERM, up to 5 s, then SIGKILL), keeps the log's requests, removes the private directory.
        Idempotent."""
        self._kill()
        if self._final_requests is None and self.log_path and self.port:
            self._final_requests = self._read_requests()
        if self.directory:
            self._final_error_log = self.error_log()
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def _kill(self) -> None:
        self._end_process()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    @property
    def running(self) -> bool:
        """Whether nginx is (still) running."""
        return self._process is not None and self._process.poll() is None

    # -- use ------------------------------------------------------------------------------------------------------

    def error_log(self) -> str:
        """nginx's error log and stderr so far (kept after stop), for failure messages."""
        if not self.directory:
            return self._final_error_log
        text = ""
        for name in ("stderr.txt", "error.log"):
            try:
                with open(os.path.join(self.directory, name), encoding="utf-8", errors="replace") as file:
                    text += file.read()
            except FileNotFoundError:
                pass
        return text

    name = "nginx"

    def _failure_text(self) -> str:
        return self.error_log()

    def _read_requests(self) -> list[dict]:
        return [normalize_record(record) for record in read_log(self.log_path)] if self.log_path else []


def normalize_record(raw: dict) -> dict:
    """One access-log object in the shape of http_server.py's log records."""
    record = dict(raw)
    record["headers"] = {name: value for name, value in raw.get("headers", {}).items() if value}
    record["range"] = raw.get("range") or None
    record["completed"] = raw.get("completed") == "OK"
    if "msec" in raw:
        record["time"] = raw["msec"] - (time.time() - time.monotonic())
    return record


def main(argv: list[str] | None = None) -> int:
    """Runs nginx until SIGTERM or SIGINT; prints `PORT <n>` once it accepts connections."""
    parser = argparse.ArgumentParser(description="Debian's nginx as a test server (see the module docstring).")
    parser.add_argument("--root", required=True, help="directory of the files to serve")
    parser.add_argument("--log", required=True, help="access log, JSON lines (appended to)")
    parser.add_argument("--tls", metavar="DIR", help="serve HTTPS; the test CA is written to DIR/ca.pem")
    parser.add_argument("--throttle-rate", type=int, default=DEFAULT_THROTTLE_RATE, help="bytes/s of /throttle/")
    parser.add_argument("--proxy-to", metavar="URL", help="be a reverse proxy of every path to http(s)://host:port")
    args = parser.parse_args(argv)
    if args.proxy_to:
        try:
            proxy_upstream(args.proxy_to)
        except ValueError as error:
            parser.error(str(error))

    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS | {signal.SIGCHLD})
    server = NginxTestServer(args.root, tls=bool(args.tls), tls_directory=args.tls, log=args.log,
                             throttle_rate=args.throttle_rate, proxy_to=args.proxy_to)
    server.start()
    try:
        print(f"PORT {server.port}", flush=True)
        while signal.sigwait(SIGNALS | {signal.SIGCHLD}) == signal.SIGCHLD:
            if not server.running:             # nginx died: say so and exit non-zero
                print(f"nginx exited: {server.error_log()}", file=sys.stderr, flush=True)
                return 1
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
