"""A real Matrix homeserver (Synapse) for the tests, and a small standard-library client for it.

Synapse comes from PyPI (``matrix-synapse``) into a virtual environment of its own, one per user shared by every
checkout, ``$XDG_DATA_HOME/voicenote-tests/synapse-venv`` (``~/.local/share/...``; ``$VOICENOTE_SYNAPSE_VENV``
overrides it), made by ``make deps`` (or on first use) with :func:`ensure_venv` and reused after that, as the other
packages the tests use are installed once per machine (remove it to take a newer Synapse); the test process itself
needs nothing but the standard library (and pytest, for conftest.py's fixture).

:class:`Synapse` writes a config for a closed, test-only server into a folder (a temporary one by default):
server name ``localhost``, one HTTP listener on 127.0.0.1 at a port the kernel picks, SQLite, no federation, no
open registration (users are made through the shared-secret admin API), rate limits out of the way, authenticated
media on. It starts Synapse as a child process, waits (bounded) until ``GET /health`` answers, and stops it on
exit. Its methods are the Matrix calls the tests need: register, log in, create and join rooms, send, sync, wait for
a message, upload and download media. Every request has a timeout and every wait a deadline.

Run as a script: ``python3 synapse.py --ensure-venv`` makes the venv (``make synapse-venv``); ``--serve`` starts a
server and prints its URL, for trying requests by hand.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import hashlib
import hmac
import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

#: What pip installs. Not pinned: the newest release (1.163.2 on 2026-11-26) installs and runs on Debian 12's
#: Python 3.11, and a later one that drops 3.11 declares it in its Requires-Python, so pip then takes the newest
#: release that still fits instead of failing.
SYNAPSE_REQUIREMENT = "matrix-synapse"


def default_venv() -> Path:
    """Where the venv lives unless ``$VOICENOTE_SYNAPSE_VENV`` says otherwise: under the user's data folder
    (``$XDG_DATA_HOME`` when it is an absolute path, else ``~/.local/share``), outside any checkout, so that a fresh
    clone finds it made (installing it costs about 35 s of CPU)."""
    data = os.environ.get("XDG_DATA_HOME", "")
    base = Path(data) if os.path.isabs(data) else Path.home() / ".local" / "share"
    return base / "voicenote-tests" / "synapse-venv"


#: Written into the venv only after a successful install; a venv without it (an install that was cut short) is
#: made again.
MARKER_NAME = ".voicenote-synapse-ready"

#: Seconds allowed to make the venv (venv + pip install from PyPI, about a minute on this machine).
INSTALL_TIMEOUT = 600.0

#: Seconds allowed from starting Synapse until it answers ``/health`` (it applies its database schema first).
START_TIMEOUT = 60.0

#: Seconds Synapse gets to exit after SIGTERM before it is killed.
STOP_TIMEOUT = 15.0

#: Seconds one HTTP request may take (a /sync long poll gets its own poll time on top).
HTTP_TIMEOUT = 30.0

#: A rate limit no test reaches.
UNLIMITED = {"per_second": 10000, "burst_count": 100000}


class SynapseUnavailable(RuntimeError):
    """Synapse could not be installed (no network to PyPI, pip failed or timed out): tests should skip."""


class SynapseError(RuntimeError):
    """Synapse did not start, or stopped: tests should fail."""


class MatrixError(RuntimeError):
    """A Matrix request was answered with an HTTP status other than 2xx."""

    def __init__(self, method: str, path: str, status: int, body: bytes) -> None:
        self.status = status
        self.body = body
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = {}
        self.errcode: Optional[str] = decoded.get("errcode") if isinstance(decoded, dict) else None
        super().__init__(f"{method} {path} answered {status}: {body[:500].decode(errors='replace')}")


# --- the virtual environment ------------------------------------------------------------------------------------


def venv_path() -> Path:
    """The venv's folder: ``$VOICENOTE_SYNAPSE_VENV`` or :func:`default_venv`."""
    override = os.environ.get("VOICENOTE_SYNAPSE_VENV")
    return Path(override).resolve() if override else default_venv()


def venv_python(venv: Path) -> Path:
    """The interpreter of ``venv``."""
    return venv / "bin" / "python"


def venv_is_ready(venv: Path) -> bool:
    """Whether ``venv`` was fully installed for :data:`SYNAPSE_REQUIREMENT` and its interpreter still exists (a
    venv links to the interpreter that made it, which may have gone)."""
    marker = venv / MARKER_NAME
    try:
        requirement = marker.read_text().splitlines()[0]
    except (OSError, IndexError):
        return False
    return requirement == SYNAPSE_REQUIREMENT and venv_python(venv).exists()


#: Variables the venv's programs do not inherit: those that would make their interpreter import from elsewhere
#: (this folder has a ``synapse.py`` that must never shadow the real package), and the sanitizer runtime that the
#: ThreadSanitizer run preloads into the test process (scripts/test-tsan.sh), which is for voicenote, not Synapse.
UNINHERITED = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "LD_PRELOAD", "TSAN_OPTIONS", "ASAN_OPTIONS",
               "LSAN_OPTIONS", "UBSAN_OPTIONS")


def child_environment() -> Dict[str, str]:
    """The environment for the venv's programs (pip, Synapse): this one less :data:`UNINHERITED`."""
    return {k: v for k, v in os.environ.items() if k not in UNINHERITED}


def tail(text: str, lines: int = 40) -> str:
    """The last ``lines`` lines of ``text``."""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_bounded(command: Sequence[str], timeout: float, cwd: Path) -> str:
    """Runs ``command`` in a process group of its own, with stdout and stderr together, and returns that output.
    Raises :class:`SynapseUnavailable` with the output's tail when it fails or outlives ``timeout`` seconds (then
    its whole group, pip's helpers included, is killed)."""
    process = subprocess.Popen(list(command), cwd=cwd, env=child_environment(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=max(timeout, 1.0))
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        raise SynapseUnavailable(f"{command[0]} {command[1:3]} timed out after {timeout:.0f} s:\n"
                                 f"{tail(output.decode(errors='replace'))}") from None
    text = output.decode(errors="replace")
    if process.returncode != 0:
        raise SynapseUnavailable(f"{' '.join(command)} failed ({process.returncode}):\n{tail(text)}")
    return text


@contextlib.contextmanager
def file_lock(path: Path, timeout: float) -> Iterator[None]:
    """Holds an exclusive ``fcntl.flock`` on ``path`` (made if missing); waits at most ``timeout`` seconds for it,
    polling, then raises :class:`SynapseUnavailable`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SynapseUnavailable(f"{path} stayed locked for {timeout:.0f} s (another install?)") from None
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_venv(venv: Optional[Path] = None, python: str = sys.executable,
                timeout: float = INSTALL_TIMEOUT) -> Path:
    """Makes sure ``venv`` (default :func:`venv_path`) holds an installed Synapse and returns it.

    A ready venv (see :func:`venv_is_ready`) is reused as it is. Otherwise, holding the lock file
    ``<venv>.lock`` so that concurrent test processes install once, it removes what is there, runs
    ``python -m venv`` and ``pip install matrix-synapse`` within ``timeout`` seconds and writes the marker.
    Raises :class:`SynapseUnavailable` (with pip's last lines) when that fails."""
    venv = Path(venv) if venv is not None else venv_path()
    if venv_is_ready(venv):
        return venv
    # Waiting for another process's install may take as long as that install.
    with file_lock(venv.with_name(venv.name + ".lock"), timeout + 30):
        if venv_is_ready(venv):  # another process made it while this one waited
            return venv
        deadline = time.monotonic() + timeout
        shutil.rmtree(venv, ignore_errors=True)
        cwd = venv.parent  # never this folder, whose synapse.py would shadow the package
        run_bounded([python, "-m", "venv", str(venv)], deadline - time.monotonic(), cwd)
        # Socket timeout and retries of pip's own, so that a registry that does not answer fails in minutes, well
        # before `timeout` (pip's defaults allow 5 retries of up to 15 s each, or of $PIP_DEFAULT_TIMEOUT).
        pip = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
               "--progress-bar", "off", "--timeout", "60", "--retries", "2", SYNAPSE_REQUIREMENT]
        run_bounded(pip, deadline - time.monotonic(), cwd)
        version = run_bounded([str(venv_python(venv)), "-c",
                               "import importlib.metadata as m; print(m.version('matrix-synapse'))"],
                              deadline - time.monotonic(), cwd).strip()
        partial = venv / (MARKER_NAME + ".tmp")
        partial.write_text(f"{SYNAPSE_REQUIREMENT}\nmatrix-synapse {version}\n")
        partial.rename(venv / MARKER_NAME)
    return venv


def installed_version(venv: Path) -> str:
    """The Synapse version a ready ``venv`` holds (from its marker), e.g. ``1.163.2``."""
    lines = (venv / MARKER_NAME).read_text().splitlines()
    return lines[1].split()[-1] if len(lines) > 1 else "unknown"


# --- HTTP ---------------------------------------------------------------------------------------------------------


@dataclass
class Response:
    """One HTTP answer: status, headers (names in lower case) and body."""

    status: int
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


def http_request(host: str, port: int, method: str, path: str, headers: Optional[Mapping[str, str]] = None,
                 body: Optional[bytes] = None, timeout: float = HTTP_TIMEOUT) -> Response:
    """One HTTP request, straight to ``host:port`` (http.client, so no ``$http_proxy`` is in the way); raises
    ``OSError`` (``TimeoutError`` included) when the server cannot be reached in ``timeout`` seconds."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=dict(headers or {}))
        answer = connection.getresponse()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        connection.close()


def quote(part: str) -> str:
    """``part`` escaped as one path segment (room ids have ``!`` and ``:``, user ids ``@``)."""
    return urllib.parse.quote(part, safe="")


def parse_mxc(mxc: str) -> Tuple[str, str]:
    """``mxc://server/media_id`` → ``(server, media_id)``; raises ``ValueError`` on anything else."""
    parsed = urllib.parse.urlparse(mxc)
    media_id = parsed.path.lstrip("/")
    if parsed.scheme != "mxc" or not parsed.netloc or not media_id or "/" in media_id:
        raise ValueError(f"not an mxc:// URI: {mxc!r}")
    return parsed.netloc, media_id


def media_download_path(mxc: str, authenticated: bool = True) -> str:
    """The download path of ``mxc``: the authenticated ``/_matrix/client/v1/media/download/...`` (needs an access
    token) or the legacy unauthenticated ``/_matrix/media/v3/download/...``."""
    server, media_id = parse_mxc(mxc)
    prefix = "/_matrix/client/v1/media/download" if authenticated else "/_matrix/media/v3/download"
    return f"{prefix}/{quote(server)}/{quote(media_id)}"


def timeline_events(sync_response: Mapping[str, Any], room_id: str) -> List[Dict[str, Any]]:
    """The timeline events of joined room ``room_id`` in one /sync answer, oldest first."""
    room = sync_response.get("rooms", {}).get("join", {}).get(room_id, {})
    return list(room.get("timeline", {}).get("events", []))


# --- the server ---------------------------------------------------------------------------------------------------


def listening_ports(pid: int) -> List[int]:
    """The TCP ports process ``pid`` listens on (Linux: its socket inodes in /proc/PID/fd matched against the
    LISTEN rows of /proc/net/tcp and tcp6). Empty while it listens on none, or when it has gone."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[len("socket:["):-1])
    except OSError:
        return []
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            next(rows)  # the header
            for row in rows:
                fields = row.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(set(ports))


@dataclass
class Synapse:
    """A Synapse homeserver for tests, as a context manager: ``with Synapse() as server: server.base_url``.

    ``directory`` holds its config, signing key, SQLite database, media store and logs (``homeserver.log`` at
    WARNING, ``console.log`` for what the process itself prints); when none is given a temporary folder is made
    and removed on exit (unless ``keep``). A given folder is left as it is, for inspection. ``config_overrides``
    are merged over the generated config (top-level keys replace, dictionaries merge one level deep).
    Users are not made here: call :meth:`register_user` with names unique on the server."""

    directory: Optional[Path] = None
    venv: Optional[Path] = None
    server_name: str = "localhost"
    config_overrides: Mapping[str, Any] = field(default_factory=dict)
    start_timeout: float = START_TIMEOUT
    keep: bool = False
    host: str = field(default="127.0.0.1", init=False)
    port: int = field(default=0, init=False)
    registration_shared_secret: str = field(default_factory=lambda: secrets.token_hex(32), init=False)
    process: Optional[subprocess.Popen] = field(default=None, init=False, repr=False)
    _owns_directory: bool = field(default=False, init=False, repr=False)
    _console: Any = field(default=None, init=False, repr=False)
    _transactions: int = field(default=0, init=False, repr=False)

    # -- life cycle

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, the client-server API's root."""
        return f"http://{self.host}:{self.port}"

    @property
    def config_path(self) -> Path:
        """The homeserver config (JSON, which Synapse reads as the YAML it is)."""
        return self._folder / "homeserver.yaml"

    @property
    def log_path(self) -> Path:
        """Synapse's log (WARNING and above)."""
        return self._folder / "homeserver.log"

    @property
    def console_path(self) -> Path:
        """What the Synapse process printed on stdout and stderr."""
        return self._folder / "console.log"

    @property
    def _folder(self) -> Path:
        assert self.directory is not None, "the server has no folder before start()"
        return Path(self.directory)

    def __enter__(self) -> "Synapse":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> "Synapse":
        """Makes the venv when missing (:func:`ensure_venv`), writes the config, starts Synapse and waits until it
        answers. Raises :class:`SynapseUnavailable` when the venv cannot be made and :class:`SynapseError` (with
        the log's tail) when Synapse exits or stays silent for ``start_timeout`` seconds; nothing keeps running
        after either."""
        self.venv = ensure_venv(self.venv)
        if self.directory is None:
            self.directory = Path(tempfile.mkdtemp(prefix="voicenote-synapse-"))
            self._owns_directory = True
        self._folder.mkdir(parents=True, exist_ok=True)
        self.write_config()
        try:
            self._spawn()
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def write_config(self) -> Path:
        """Writes the signing key, the log config and the homeserver config into the folder; returns the last."""
        folder = self._folder
        key_path = folder / "signing.key"
        if not key_path.exists():
            # Synapse's own format (what --generate-keys writes): algorithm, key version, unpadded base64 of a
            # 32-byte ed25519 seed, any 32 random bytes being a valid seed. Quicker than a second Synapse start.
            seed = base64.b64encode(secrets.token_bytes(32)).decode().rstrip("=")
            key_path.write_text(f"ed25519 a_test {seed}\n")
        log_config_path = folder / "log.config"
        log_config_path.write_text(json.dumps(self.log_config(), indent=2))
        config = self.homeserver_config(key_path, log_config_path)
        for key, value in self.config_overrides.items():
            if isinstance(value, Mapping) and isinstance(config.get(key), dict):
                config[key] = {**config[key], **value}
            else:
                config[key] = value
        self.config_path.write_text(json.dumps(config, indent=2))
        return self.config_path

    def log_config(self) -> Dict[str, Any]:
        """The Python logging config Synapse gets: WARNING and above into ``homeserver.log``."""
        return {
            "version": 1,
            "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
            "handlers": {"file": {"class": "logging.FileHandler", "formatter": "plain",
                                  "filename": str(self.log_path), "encoding": "utf8"}},
            "root": {"level": "WARNING", "handlers": ["file"]},
            "disable_existing_loggers": False,
        }

    def homeserver_config(self, key_path: Path, log_config_path: Path) -> Dict[str, Any]:
        """The homeserver config: a closed test server (see the class's doc)."""
        folder = self._folder
        return {
            "server_name": self.server_name,
            "pid_file": str(folder / "homeserver.pid"),
            # Port 0: the kernel picks a free one, read back from /proc once Synapse listens (no race with other
            # processes, as binding a probe socket first would have). Only the client resource: it carries the
            # client API, media and the admin API; no federation listener.
            "listeners": [{"port": 0, "bind_addresses": [self.host], "type": "http", "tls": False,
                           "x_forwarded": False, "resources": [{"names": ["client"], "compress": False}]}],
            "database": {"name": "sqlite3", "args": {"database": str(folder / "homeserver.db")}},
            "log_config": str(log_config_path),
            "signing_key_path": str(key_path),
            "media_store_path": str(folder / "media_store"),
            "max_upload_size": "50M",
            "enable_authenticated_media": True,
            "url_preview_enabled": False,
            # No federation: no other server is ever contacted, not even matrix.org for keys.
            "federation_domain_whitelist": [],
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "allow_public_rooms_over_federation": False,
            "enable_registration": False,
            "registration_shared_secret": self.registration_shared_secret,
            "macaroon_secret_key": secrets.token_hex(32),
            "form_secret": secrets.token_hex(32),
            "report_stats": False,
            "enable_metrics": False,
            "presence": {"enabled": False},  # nothing to wait for in /sync but rooms
            **self.rate_limits(),
        }

    @staticmethod
    def rate_limits() -> Dict[str, Any]:
        """Every client-side rate limit of Synapse set out of reach (the defaults allow, e.g., 10 messages then one
        every 5 s, 10 rooms then one a minute, 5 logins then one per 5 minutes). Keys a version does not know are
        ignored by it."""
        return {
            "rc_message": UNLIMITED,
            "rc_registration": UNLIMITED,
            "rc_registration_token_validity": UNLIMITED,
            "rc_login": {"address": UNLIMITED, "account": UNLIMITED, "failed_attempts": UNLIMITED},
            "rc_joins": {"local": UNLIMITED, "remote": UNLIMITED},
            "rc_joins_per_room": UNLIMITED,
            "rc_invites": {"per_room": UNLIMITED, "per_user": UNLIMITED, "per_issuer": UNLIMITED},
            "rc_third_party_invite": UNLIMITED,
            "rc_room_creation": UNLIMITED,
            "rc_media_create": UNLIMITED,
            "rc_3pid_validation": UNLIMITED,
            "rc_admin_redaction": UNLIMITED,
            "rc_key_requests": UNLIMITED,
            "rc_presence": {"per_user": UNLIMITED},
            "rc_delayed_event_mgmt": UNLIMITED,
            "rc_reports": UNLIMITED,
            "rc_user_directory": UNLIMITED,
            "rc_profile": UNLIMITED,
        }

    def _spawn(self) -> None:
        assert self.venv is not None
        self._console = open(self.console_path, "ab")
        # cwd is the server's folder: ``python -m`` puts the cwd first on sys.path, and this tests folder has a
        # synapse.py that would shadow the package.
        self.process = subprocess.Popen(
            [str(venv_python(self.venv)), "-m", "synapse.app.homeserver", "--config-path", str(self.config_path)],
            cwd=self._folder, env=child_environment(), stdin=subprocess.DEVNULL, stdout=self._console,
            stderr=subprocess.STDOUT, start_new_session=True)

    def _wait_until_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                raise SynapseError(f"Synapse exited with {code} while starting\n{self.diagnostics()}")
            ports = listening_ports(self.process.pid)
            if ports:
                self.port = ports[0]
                with contextlib.suppress(OSError):
                    if http_request(self.host, self.port, "GET", "/health", timeout=2).status == 200:
                        return
            time.sleep(0.1)
        raise SynapseError(f"Synapse did not answer /health within {self.start_timeout:.0f} s\n{self.diagnostics()}")

    def stop(self) -> None:
        """Stops Synapse (SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT` seconds) and removes the folder when it
        is a temporary one of this object's own. Safe to call twice."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_TIMEOUT)
        if self._console is not None:
            self._console.close()
            self._console = None
        if self._owns_directory and not self.keep and self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self._owns_directory = False

    def is_running(self) -> bool:
        """Whether the Synapse process is alive."""
        return self.process is not None and self.process.poll() is None

    def diagnostics(self, lines: int = 40) -> str:
        """The tails of ``homeserver.log`` and ``console.log``, for failure messages."""
        parts = []
        for path in (self.log_path, self.console_path):
            with contextlib.suppress(OSError):
                parts.append(f"--- {path} ---\n{tail(path.read_text(errors='replace'), lines)}")
        return "\n".join(parts)

    # -- requests

    def request(self, method: str, path: str, token: Optional[str] = None,
                body: Union[None, bytes, Mapping[str, Any]] = None, content_type: Optional[str] = None,
                query: Optional[Mapping[str, Any]] = None, timeout: float = HTTP_TIMEOUT) -> Response:
        """One request to the server, whatever its answer: a mapping ``body`` is sent as JSON, ``token`` as
        ``Authorization: Bearer``, ``query`` URL-encoded."""
        headers: Dict[str, str] = {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if isinstance(body, Mapping):
            body = json.dumps(body).encode()
            content_type = content_type or "application/json"
        if content_type is not None:
            headers["Content-Type"] = content_type
        if query:
            path = f"{path}?{urllib.parse.urlencode(query)}"
        return http_request(self.host, self.port, method, path, headers, body, timeout)

    def call(self, method: str, path: str, token: Optional[str] = None,
             body: Union[None, bytes, Mapping[str, Any]] = None, **kwargs: Any) -> Any:
        """:meth:`request`, expecting a 2xx answer: returns its JSON, raises :class:`MatrixError` otherwise."""
        response = self.request(method, path, token, body, **kwargs)
        if not 200 <= response.status < 300:
            raise MatrixError(method, path, response.status, response.body)
        return response.json()

    # -- the Matrix calls tests make

    def register_user(self, username: str, password: Optional[str] = None, admin: bool = False,
                      displayname: Optional[str] = None) -> Tuple[str, str]:
        """Registers ``username`` (localpart) through the shared-secret admin API
        (``/_synapse/admin/v1/register``: a nonce, then an HMAC-SHA1 of nonce, name, password and admin flag) and
        returns ``(user_id, access_token)``. ``password`` defaults to a random one (pass one to :meth:`login`
        later). Names are unique on the server: a session-wide server needs names no other test uses."""
        password = password if password is not None else secrets.token_urlsafe(16)
        nonce = self.call("GET", "/_synapse/admin/v1/register")["nonce"]
        mac = hmac.new(self.registration_shared_secret.encode(), digestmod=hashlib.sha1)
        mac.update(b"\x00".join([nonce.encode(), username.encode(), password.encode(),
                                 b"admin" if admin else b"notadmin"]))
        body: Dict[str, Any] = {"nonce": nonce, "username": username, "password": password, "admin": admin,
                                "mac": mac.hexdigest()}
        if displayname is not None:
            body["displayname"] = displayname
        answer = self.call("POST", "/_synapse/admin/v1/register", body=body)
        return answer["user_id"], answer["access_token"]

    def login(self, username: str, password: str) -> Tuple[str, str]:
        """Logs in with a password (a new device); returns ``(user_id, access_token)``."""
        answer = self.call("POST", "/_matrix/client/v3/login", body={
            "type": "m.login.password", "identifier": {"type": "m.id.user", "user": username}, "password": password})
        return answer["user_id"], answer["access_token"]

    def create_room(self, token: str, invite: Sequence[str] = (), **fields: Any) -> str:
        """Creates a private room (preset ``private_chat``) inviting the user ids ``invite``; returns its id.
        ``fields`` go into the createRoom body as they are (``name``, ``preset``, ``is_direct``, ...)."""
        body = {"preset": "private_chat", "invite": list(invite), **fields}
        return self.call("POST", "/_matrix/client/v3/createRoom", token, body)["room_id"]

    def join(self, token: str, room_id: str) -> str:
        """Joins (or accepts the invitation to) ``room_id``, an id or alias; returns the room id."""
        return self.call("POST", f"/_matrix/client/v3/join/{quote(room_id)}", token, {})["room_id"]

    def send_event(self, token: str, room_id: str, event_type: str, content: Mapping[str, Any]) -> str:
        """Sends a room event with a fresh transaction id; returns its event id."""
        self._transactions += 1
        txn = f"vn{self._transactions}-{uuid.uuid4().hex[:8]}"
        path = f"/_matrix/client/v3/rooms/{quote(room_id)}/send/{quote(event_type)}/{txn}"
        return self.call("PUT", path, token, dict(content))["event_id"]

    def send_message(self, token: str, room_id: str, content: Mapping[str, Any]) -> str:
        """Sends an ``m.room.message`` with ``content`` (``msgtype``, ``body``, ...); returns its event id."""
        return self.send_event(token, room_id, "m.room.message", content)

    def upload_media(self, token: str, data: bytes, content_type: str, filename: Optional[str] = None) -> str:
        """Uploads ``data`` (``POST /_matrix/media/v3/upload``); returns its ``mxc://`` URI."""
        query = {"filename": filename} if filename else None
        answer = self.call("POST", "/_matrix/media/v3/upload", token, data, content_type=content_type, query=query)
        return answer["content_uri"]

    def download_media(self, token: str, mxc: str) -> bytes:
        """Downloads ``mxc`` through authenticated media (``/_matrix/client/v1/media/download``, Bearer token);
        returns its bytes, raises :class:`MatrixError` on any status but 200."""
        path = media_download_path(mxc)
        response = self.request("GET", path, token)
        if response.status != 200:
            raise MatrixError("GET", path, response.status, response.body)
        return response.body

    def sync(self, token: str, since: Optional[str] = None, timeout_ms: int = 0,
             filter: Union[None, str, Mapping[str, Any]] = None) -> Dict[str, Any]:
        """One ``/sync``: a full one without ``since``, else what happened after it, waiting up to ``timeout_ms``
        for something to happen. ``filter`` is a filter id or an inline filter. Returns the JSON answer."""
        query: Dict[str, Any] = {"timeout": int(timeout_ms)}
        if since is not None:
            query["since"] = since
        if filter is not None:
            query["filter"] = filter if isinstance(filter, str) else json.dumps(filter)
        return self.call("GET", "/_matrix/client/v3/sync", token, query=query,
                         timeout=HTTP_TIMEOUT + timeout_ms / 1000)

    def wait_for_message(self, token: str, room_id: str, predicate: Callable[[Dict[str, Any]], bool],
                         timeout_s: float = 30.0, since: Optional[str] = None) -> Dict[str, Any]:
        """Long-polls ``/sync`` for at most ``timeout_s`` seconds until an ``m.room.message`` of joined room
        ``room_id`` satisfies ``predicate``; returns that event. Without ``since`` the first sync is a full one,
        so a recent message already in the room (the last 100) counts too. Raises ``TimeoutError`` naming the
        messages seen."""
        deadline = time.monotonic() + timeout_s
        room_filter = {"room": {"rooms": [room_id], "timeline": {"limit": 100, "types": ["m.room.message"]},
                                "state": {"lazy_load_members": True}},
                       "presence": {"types": []}, "account_data": {"types": []}}
        seen: List[str] = []
        while True:
            remaining = deadline - time.monotonic()
            poll_ms = int(min(max(remaining, 0), 10) * 1000) if since is not None else 0
            answer = self.sync(token, since, poll_ms, room_filter)
            for event in timeline_events(answer, room_id):
                if event.get("type") == "m.room.message":
                    if predicate(event):
                        return event
                    seen.append(f"{event.get('sender')}: {event.get('content', {}).get('body')!r}")
            since = answer["next_batch"]
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no matching m.room.message in {room_id} within {timeout_s} s; "
                                   f"seen: {seen or 'none'}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line: ``--ensure-venv`` makes the venv and prints its folder; ``--serve`` runs a server for
    ``--seconds`` (or until Ctrl-C) and prints its URL and registration secret."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ensure-venv", action="store_true", help="make the venv (or check it) and print its path")
    parser.add_argument("--serve", action="store_true", help="run a server for --seconds and print its URL")
    parser.add_argument("--seconds", type=float, default=600.0, help="how long --serve runs (default 600)")
    options = parser.parse_args(argv)
    if not (options.ensure_venv or options.serve):
        parser.error("say --ensure-venv or --serve")
    if not venv_is_ready(venv_path()):
        print(f"synapse: installing {SYNAPSE_REQUIREMENT} into {venv_path()} (about a minute)", file=sys.stderr)
    try:
        venv = ensure_venv()
    except SynapseUnavailable as error:
        print(f"synapse: {error}", file=sys.stderr)
        return 1
    print(f"{venv} (matrix-synapse {installed_version(venv)})")
    if options.serve:
        with Synapse() as server:
            print(f"{server.base_url} (folder {server.directory}, shared secret {server.registration_shared_secret})",
                  flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                deadline = time.monotonic() + options.seconds
                while time.monotonic() < deadline and server.is_running():
                    time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
