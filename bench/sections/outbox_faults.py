"""Section `outbox`: the durable outbox's fault trials. Each trial adds three notes (speech, 2, 5 and 9 s, Ogg Opus from
sox and opusenc) to a fresh outbox (`voicenote outbox add`: durable once it returns) and sends them with
`voicenote outbox send --messages LOG` — a host that appends each
uploaded payload to its message log (synced, each item id once) and then acknowledges it — to
Tests/Servers/http_server.py (multipart, Stream's path, and raw, Matrix's, alternately; it honours Idempotency-Key
across its restarts) through a faulty proxy (bench/common/fault_proxy.py, paced at 96 kB/s so an upload takes a
while). Every trial SIGKILLs the host at a random moment, then restarts it until it exits (nothing left to send),
SIGKILLing the restarted host once more in half the trials; and has one network fault of four, in turn:

    kill      none besides the kills
    cut       the proxy cuts 30 % of the connections after a random number of bytes
    refuse    the proxy answers 30 % of the requests 503 or 500 without reaching the server
    restart   the server is SIGKILLed at a random moment and started again 0.3 s later on the same port

A trial passes when the message log holds each note exactly once, each payload's asset_url names a stored upload
byte-identical to its note, the server stored exactly three uploads, and the outbox ends empty (`outbox list`).
Figures: trials passed of run, per kind; the time to drain after the last kill (median, max); attempts."""
import json
import pathlib
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

from common.errors import BenchError
from common.paths import HERE, REPO
from common.process import capture, require_tools

KINDS = ("kill", "cut", "refuse", "restart")
TRIALS = 200
QUICK_TRIALS = 20
RATE_BYTES_PER_S = 96_000
FAULT_SHARE = 0.3
DRAIN_LIMIT_S = 120
NOTE_SECONDS = (2, 5, 9)
SEED = 38


def notes(work: pathlib.Path) -> list:
    """Three speech notes (espeak-ng → sox → opusenc), made once and cached."""
    require_tools(["espeak-ng", "sox", "opusenc"])
    folder = work / "outbox" / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for seconds in NOTE_SECONDS:
        note = folder / f"note-{seconds}s.ogg"
        if not note.exists():
            wav = folder / f"note-{seconds}s.wav"
            capture(["espeak-ng", "-w", str(wav), "the outbox keeps every note until it is sent " * 3], "espeak-ng")
            capture(["sox", str(wav), "-r", "48000", str(wav) + ".48k.wav", "pad", "0", str(seconds), "trim", "0",
                     str(seconds)], "sox")
            capture(["opusenc", "--quiet", str(wav) + ".48k.wav", str(note) + ".part"], "opusenc")
            pathlib.Path(str(note) + ".part").rename(note)
        made.append(note)
    return made


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_child(command: list, label: str) -> tuple:
    """A child that prints `PORT <n>` once it listens, and that port."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = child.stdout.readline()
    if not line.startswith("PORT "):
        child.kill()
        child.wait(5)
        raise BenchError(f"{label} did not start")
    return child, int(line.split()[1])


def stop_child(child: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if child.poll() is None:
        child.send_signal(sig)
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(5)


class Server:
    """http_server.py on a fixed port (so a restart keeps the proxy's target), stopped and started at will."""

    def __init__(self, root: pathlib.Path, port: int) -> None:
        self.root, self.port, self.child = root, port, None

    def start(self) -> None:
        deadline = time.monotonic() + 10
        while True:  # the port may linger a moment after a kill
            try:
                self.child, _ = start_child([sys.executable, str(REPO / "Tests" / "Servers" / "http_server.py"),
                                          "--root", str(self.root), "--log", str(self.root / "http.log"),
                                          "--port", str(self.port)], "http_server.py")
                return
            except BenchError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        stop_child(self.child, signal.SIGKILL)


def host(cli: pathlib.Path, outbox: pathlib.Path, log: pathlib.Path, endpoint: str, raw: bool, files: list) -> subprocess.Popen:
    command = [str(cli), "outbox", "send", str(outbox), *map(str, files), "--endpoint", endpoint, "--messages",
               str(log), "--retry-base", "0.05", "--retry-cap", "0.4"]
    if raw:
        command.append("--raw")
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def trial(number: int, kind: str, cli: pathlib.Path, sources: list, work: pathlib.Path, chance: random.Random) -> dict:
    folder = work / "outbox" / "trial"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "served").mkdir(parents=True)
    outbox, log = folder / "outbox", folder / "messages.jsonl"
    server = Server(folder / "served", free_port())
    server.start()
    mode = kind if kind in ("cut", "refuse") else "none"
    proxy, proxy_port = start_child([sys.executable, str(HERE / "common" / "fault_proxy.py"), str(server.port),
                                     str(RATE_BYTES_PER_S), mode, str(FAULT_SHARE), str(SEED * 1000 + number)],
                                    "fault_proxy.py")
    raw = number % 2 == 1
    path = "/_matrix/media/v3/upload" if raw else "/channels/messaging/bench/file"
    endpoint = f"http://127.0.0.1:{proxy_port}{path}"
    kills = 0
    try:
        # The user sent three notes: `add` returned for each (durable from then on), then the host sends.
        capture([str(cli), "outbox", "add", str(outbox), *map(str, sources), "--endpoint", endpoint,
                 *(["--raw"] if raw else [])], "voicenote outbox add")
        first = host(cli, outbox, log, endpoint, raw, [])
        started = time.monotonic()
        if kind == "restart":
            time.sleep(chance.uniform(0.05, 0.8))
            server.kill()
            time.sleep(0.3)
            server.start()
        time.sleep(max(0.0, chance.uniform(0.0, 1.2) - (time.monotonic() - started)))
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        kills += 1
        if chance.random() < 0.5:
            second = host(cli, outbox, log, endpoint, raw, [])
            time.sleep(chance.uniform(0.05, 0.6))
            second.send_signal(signal.SIGKILL)
            second.wait(10)
            kills += 1
        resumed = time.monotonic()
        last = host(cli, outbox, log, endpoint, raw, [])
        try:
            _, errors = last.communicate(timeout=DRAIN_LIMIT_S)
        except subprocess.TimeoutExpired:
            last.kill()
            _, errors = last.communicate()
            return {"kind": kind, "ok": False, "why": f"not drained within {DRAIN_LIMIT_S} s", "kills": kills}
        drained = time.monotonic() - resumed
        problems = check(folder, outbox, log, sources, cli, last.returncode, errors)
        return {"kind": kind, "ok": not problems, "why": "; ".join(problems), "drain_s": drained, "kills": kills,
                "attempts": errors.count("again in")}
    finally:
        stop_child(proxy)
        stop_child(server.child)


def check(folder: pathlib.Path, outbox: pathlib.Path, log: pathlib.Path, sources: list, cli: pathlib.Path,
          code: int, errors: str) -> list:
    problems = []
    if code != 0:
        problems.append(f"the host exited {code}: {errors.strip()[-300:]}")
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    ids = sorted(line["id"] for line in lines)
    if ids != [1, 2, 3]:
        problems.append(f"message log ids {ids}")
    stored = sorted((folder / "served" / "uploads").glob("*.bin"))
    if len(stored) != len(sources):
        problems.append(f"{len(stored)} uploads stored")
    wanted = {source.read_bytes() for source in sources}
    for line in lines:
        url = line["payload"]["asset_url"]
        name = url.rsplit("/", 1)[-1]
        name = name if name.endswith(".bin") else name + ".bin"
        stored_file = folder / "served" / "uploads" / name
        if not stored_file.exists() or stored_file.read_bytes() not in wanted:
            problems.append(f"{url} is not a note byte for byte")
    listing = subprocess.run([str(cli), "outbox", "list", str(outbox), "--compact"], capture_output=True, text=True,
                             timeout=30)
    if listing.returncode != 0 or json.loads(listing.stdout or "null") != []:
        problems.append(f"the outbox is not empty: {listing.stdout.strip()[:200]} {listing.stderr.strip()[:200]}")
    return problems


def outbox_section(build: pathlib.Path, work: pathlib.Path, trials: int) -> dict:
    cli = build / "bin" / "voicenote"
    sources = notes(work)
    chance = random.Random(SEED)
    results = []
    for number in range(trials):
        kind = KINDS[number % len(KINDS)]
        outcome = trial(number, kind, cli, sources, work, chance)
        results.append(outcome)
        if not outcome["ok"]:
            print(f"outbox trial {number} ({kind}): FAILED: {outcome['why']}", flush=True)
    per_kind = {kind: {"run": sum(r["kind"] == kind for r in results),
                       "passed": sum(r["kind"] == kind and r["ok"] for r in results)} for kind in KINDS}
    drains = [r["drain_s"] for r in results if "drain_s" in r]
    passed = sum(r["ok"] for r in results)
    print(f"outbox: {passed} of {len(results)} fault trials passed", flush=True)
    return {"trials": len(results), "passed": passed, "per_kind": per_kind,
            "drain_median_s": statistics.median(drains) if drains else None, "drain_max_s": max(drains, default=None),
            "kills": sum(r.get("kills", 0) for r in results),
            "retries_median": statistics.median(r.get("attempts", 0) for r in results),
            "failures": [r["why"] for r in results if not r["ok"]][:10], "pass": passed == len(results)}


def outbox_markdown(section: dict) -> str:
    lines = [
        f"Outbox fault trials: three notes a trial sent by `voicenote outbox send` (multipart and raw, alternately) "
        f"through a faulty proxy at {RATE_BYTES_PER_S // 1000} kB/s; every trial SIGKILLs the host at a random moment "
        f"(half of them twice) and restarts it until the outbox is drained. Passed: each note in the host's message "
        f"log exactly once, stored once and byte-identical, the outbox empty.",
        "",
        "| fault | trials passed |",
        "| --- | --- |",
    ]
    for kind, counts in section["per_kind"].items():
        lines.append(f"| {kind} | {counts['passed']} of {counts['run']} |")
    lines.append(f"| **all** | **{section['passed']} of {section['trials']}: {'pass' if section['pass'] else 'miss'}** |")
    lines.append("")
    lines.append(f"{section['kills']} SIGKILLs; drain after the last restart: median {section['drain_median_s']:.2f} s, "
                 f"max {section['drain_max_s']:.2f} s; transient failures retried per trial (median): "
                 f"{section['retries_median']:g}.")
    for failure in section["failures"]:
        lines.append(f"- failed: {failure}")
    return "\n".join(lines) + "\n"
