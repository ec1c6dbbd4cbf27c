"""Fixtures for the voicenote binding tests (helpers live in helpers.py)."""

from __future__ import annotations

import gc
import logging
import sys
import warnings
from pathlib import Path
from typing import Iterator, List

import pytest

from helpers import Recorder
from audiofiles import REPO_ROOT, Media, find_cli, is_tsan_build, loaded_library_path, make_media, make_tones
from microphones import Speech, make_speech
import pulse
from synapse import Synapse, SynapseUnavailable, ensure_venv

import voicenote  # noqa: F401  (fails early and clearly when the library cannot be loaded)
from voicenote import _events, _queue, _session, _sources

sys.path.insert(0, str(REPO_ROOT / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402


@pytest.fixture
def pulse_microphone(speech: Speech) -> Iterator[pulse.PulseServer]:
    """A real-time microphone: a warmed private PulseAudio server (tests/pulse.py) with about a minute of speech
    playing into its null sink, heard through ALSA's pulse plugin (``alsa_config("vn_rt")``); stopped by its pid.
    Skips visibly where PulseAudio is missing."""
    missing = pulse.available()
    if missing:
        pytest.skip(f"PulseAudio: {missing}")
    running = pulse.PulseServer()
    try:
        running.warm()
        running.play(speech.long_wav)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def media(tmp_path_factory: pytest.TempPathFactory) -> Media:
    """Speech in every format voicenote reads and the bad inputs of docs/errors.md, made once per session."""
    return make_media(tmp_path_factory.mktemp("media"))


@pytest.fixture(scope="session")
def tones(tmp_path_factory: pytest.TempPathFactory) -> List[Path]:
    """Three short Ogg Opus tones of different pitch (audiofiles.make_tones), made once per session."""
    return make_tones(tmp_path_factory.mktemp("tones"))


@pytest.fixture(scope="session")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Speech:
    """Speech over a room-like noise floor as raw microphone input (48 and 44.1 kHz) and a long WAV to play into
    a PulseAudio sink, made once per session."""
    return make_speech(tmp_path_factory.mktemp("speech"))


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `voicenote` command-line tool under test; skips when there is none."""
    path = find_cli()
    if path is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    if is_tsan_build(loaded_library_path()):
        pytest.skip("the CLI is the release build, not the library under ThreadSanitizer: its suites run in the plain run")
    return path


@pytest.fixture(autouse=True)
def own_media_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test its own media cache, never the user's: the library's (set here) and the CLI's (through
    ``$XDG_CACHE_HOME``, which child processes inherit)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    voicenote.set_cache_directory(tmp_path / "cache")
    yield tmp_path / "cache"
    voicenote.set_cache_directory(None)


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synapse]:
    """A real Matrix homeserver (tests/synapse.py: Synapse from PyPI, in a venv of the user's made by ``make deps`` or
    on first use and reused after, or in ``$VOICENOTE_SYNAPSE_VENV``) on 127.0.0.1, one for the whole session.

    It has no users and no rooms: each test registers its own with ``synapse.register_user(name)``, under names no
    other test uses (the server lives as long as the session). Its folder (config, ``homeserver.log``, database,
    media) is a pytest temporary folder, kept for inspection like the others. Skips, saying why (also as a
    warning, seen without ``-rs``), when the venv cannot be made, e.g. with no way to PyPI; fails when Synapse
    itself does not start. Skips in the run under ThreadSanitizer: what talks to it (the bot, the uploads) runs in
    the plain run, and the bot's own process would be instrumented too."""
    if is_tsan_build(loaded_library_path()):
        pytest.skip("the Matrix suites run in the plain run, not under ThreadSanitizer")
    try:
        venv = ensure_venv()
    except SynapseUnavailable as error:
        reason = f"no Synapse homeserver (the venv could not be made): {error}"
        warnings.warn(reason)
        pytest.skip(reason)
    with Synapse(tmp_path_factory.mktemp("synapse"), venv=venv) as server:
        yield server


@pytest.fixture
def upload_server(tmp_path: Path) -> Iterator[HTTPTestServer]:
    """Tests/Servers/http_server.py on 127.0.0.1, storing uploads under a folder of the test's own."""
    root = tmp_path / "server"
    root.mkdir()
    with HTTPTestServer(str(root)) as running:
        yield running


@pytest.fixture
def recorder() -> Recorder:
    """A fresh :class:`helpers.Recorder`."""
    return Recorder()


@pytest.fixture(autouse=True)
def contract_checks(caplog: pytest.LogCaptureFixture):
    """After each test: nothing was logged at ERROR by the binding (a callback raised, or a release came for an
    unknown key), and every subscription, host byte source and set of session hooks the test made has been
    released (no leaked user_data keys), queue players' data sources included.

    Tests that make callbacks raise on purpose check the log themselves and then call ``caplog.clear()``."""
    caplog.set_level(logging.WARNING, logger="voicenote")
    unknown_before = _events.unknown_releases
    unknown_sources_before = _sources.unknown_releases
    unknown_data_sources_before = _queue.unknown_releases
    yield
    gc.collect()
    errors = [r for r in caplog.records if r.name == "voicenote" and r.levelno >= logging.ERROR]
    assert not errors, "voicenote logged errors:\n" + "\n".join(r.getMessage() for r in errors)
    assert _events.unknown_releases == unknown_before, "release ran for an unknown or already released key"
    leaked = {key: entry.callback for key, entry in _events._entries.items()}
    assert not leaked, f"subscriptions never released: {leaked}"
    assert _sources.unknown_releases == unknown_sources_before, "release ran for an unknown host-source key"
    assert not _sources._streams, f"host sources never released: {_sources._streams}"
    assert not _session._hooks, f"session hooks never discarded: {_session._hooks}"
    assert _queue.unknown_releases == unknown_data_sources_before, "release ran for an unknown data-source key"
    assert not _queue._data_sources, f"queue data sources never released: {_queue._data_sources}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "one_thread: the test's library calls run on its own thread alone, no library "
                            "thread involved (parsing, a child process's synchronous calls): the ThreadSanitizer run, "
                            "which has nothing to see there, skips it (visibly); the plain run runs it")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks into the tests' ids
def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    """Keeps together, when pytest-xdist spreads the suite over processes (``make test`` runs it with
    ``-n N --dist loadgroup``), the tests that share something costly to make: those of a module that has a
    module-scoped fixture (a built example client, a wheel, a recorded note) run in one worker, so it is made once,
    and every test of the one Synapse homeserver runs in one worker, so one server starts. Every other test goes to
    whichever worker is free. Without xdist the marks change nothing. Under ThreadSanitizer, the ``one_thread`` tests
    are skipped (their reason says why)."""
    tsan = is_tsan_build(loaded_library_path())
    for item in items:
        if tsan and item.get_closest_marker("one_thread") is not None:
            item.add_marker(pytest.mark.skip(reason="one thread's synchronous calls: nothing for ThreadSanitizer to "
                                                    "see; it runs in the plain run"))
        definitions = getattr(item, "_fixtureinfo", None)
        if definitions is None:
            continue
        fixtures = definitions.name2fixturedefs
        if "synapse" in fixtures:
            group = "synapse"
        elif any(d.scope == "module" for defs in fixtures.values() for d in defs):
            group = item.module.__name__ if item.module is not None else item.nodeid.split("::")[0]
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(group))
