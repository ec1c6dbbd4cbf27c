"""Section `upload` of bench/run.py: a 10 MB multipart upload to the loopback server, ours against `curl -F`.

Budget (docs/performance.md style): upload of 10 MB to the loopback server ≥ 0.9x the throughput of `curl -F` on the
same file. The server is Tests/Servers/http_server.py on 127.0.0.1 (`POST /channels/<type>/<id>/file`: it parses
the multipart body as it streams in, hashes the part and stores it), started once for the section. The file is
10,000,000 random bytes named *.ogg, so both sides send the part as audio/ogg.

Per turn (after one untimed warm-up turn), in alternating order:
    ours    bench/upload_file.c: one process, one uploader (multipart), K takes of vn_uploader_upload_file with a
            payload from vn_payload_create("file:///bench") (no decode of the file), each timed from the call to
            the end of vn_uploader_wait (CLOCK_MONOTONIC); take 1 is first in process (libcurl's dlopen, threads,
            the first connection), the others are the figure
    curl    `curl -s -o /dev/null -w '%{time_total} %{http_code}' -F "file=@FILE;type=audio/ogg" URL`, K processes;
            curl's own time_total (its process start and libcurl's loading are outside it)
Every upload is checked in the server's request log: POST 200, one part named `file` whose size and sha256 are the
file's (ours also by the URL the server answered). Ratio: curl ms / ours ms (throughput ours / curl's), from the
medians; per turn, the median of curl's takes over the median of our later takes, median (min–max).

"""
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import statistics
import subprocess
import sys
import time

from common.budgets import BUDGET_VS_CURL
from common.errors import BenchError
from common.library import snapshot_library
from common.paths import HERE, REPO
from common.process import capture, require_tools
from common.stats import figure, summary

FILE_BYTES = 10_000_000                       # "10 MB"
FILE_NAME = "random_10MB.ogg"                 # .ogg: the library sends audio/ogg, as curl is told to
ENDPOINT_PATH = "/channels/messaging/bench/file"
COUNTS = {"turns": 7, "takes_per_process": 10}
QUICK_COUNTS = {"turns": 3, "takes_per_process": 3}
TAKE_TIMEOUT_S = 120                          # per process of ours, per curl run
LOG_TIMEOUT_S = 10.0                          # how long the server's log lines of a batch are waited for
LABELS = {"ours": "ours (bench/upload_file.c, libvoicenote uploader)",
          "curl": "curl -F (time_total)"}


def build(build_dir: pathlib.Path, work: pathlib.Path) -> dict:
    """A snapshot of the library, bench/upload_file.c built against it, the random file (cached) and its sha256."""
    cc_name = os.environ.get("CC", "cc")
    require_tools(["curl", cc_name])
    folder = work / "upload"
    folder.mkdir(parents=True, exist_ok=True)
    snapshot = snapshot_library(build_dir, work)
    lib = snapshot["lib"]
    program = work / "upload_file"
    capture(shlex.split(cc_name) + ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I",
                                    str(REPO / "include"), "-o", str(program), str(HERE / "upload_file.c"),
                                    "-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"],
            "building bench/upload_file.c")
    data = folder / FILE_NAME
    if not data.exists() or data.stat().st_size != FILE_BYTES:
        tmp = data.with_suffix(".tmp")
        tmp.write_bytes(os.urandom(FILE_BYTES))
        os.replace(tmp, data)
    if any(c in str(data) for c in ';,"'):
        raise BenchError(f"{data}: curl -F needs a path without ; , or \"")
    return {"program": program, "file": data, "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
            "dir": folder, "snapshot": snapshot}


def start_server(root: pathlib.Path, log: pathlib.Path):
    """Tests/Servers/http_server.py on 127.0.0.1 serving `root` (uploads land in root/uploads), its log `log`."""
    servers = str(REPO / "Tests" / "Servers")
    sys.path.insert(0, servers)
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True               # no __pycache__ left in Tests/Servers
    try:
        import http_server
    except ImportError as error:
        raise BenchError(f"Tests/Servers/http_server.py cannot be imported: {error}")
    finally:
        sys.path.remove(servers)
        sys.dont_write_bytecode = writes_bytecode
    log.unlink(missing_ok=True)
    server = http_server.HTTPTestServer(str(root), log=str(log))
    try:
        server.start()
    except RuntimeError as error:
        raise BenchError(f"http_server.py did not start: {error}")
    return server


def logged(server, count: int, label: str) -> list:
    """The log's records once it holds `count` (a request's line is written when its response ends, which can be
    a moment after the client has it)."""
    deadline = time.monotonic() + LOG_TIMEOUT_S
    while True:
        records = server.requests()
        if len(records) >= count:
            return records
        if time.monotonic() >= deadline:
            raise BenchError(f"{label}: the server logged {len(records)} requests, expected {count}")
        time.sleep(0.02)


def run_ours(inputs: dict, url: str, takes: int, label: str) -> list:
    """One process of bench/upload_file.c: its takes' JSON lines."""
    cmd = [str(inputs["program"]), url, str(inputs["file"]), str(takes)]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=TAKE_TIMEOUT_S * takes)
    except subprocess.TimeoutExpired as error:
        raise BenchError(f"{label} did not end in time: {shlex.join(cmd)}\n{error.stderr or ''}")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed with exit status {proc.returncode}: {shlex.join(cmd)}\n"
                         f"{proc.stdout}{proc.stderr}")
    try:
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    except json.JSONDecodeError as error:
        raise BenchError(f"{label} printed a line that is not JSON ({error}):\n{proc.stdout}")
    if len(rows) != takes or [row["take"] for row in rows] != list(range(1, takes + 1)):
        raise BenchError(f"{label}: {len(rows)} take lines for {takes} takes:\n{proc.stdout}")
    return rows


def run_curl(inputs: dict, url: str, takes: int, label: str) -> list:
    """`takes` curl processes: [{ms, http_code}] from curl's own time_total."""
    cmd = ["curl", "-s", "-o", "/dev/null", "-w", "%{time_total} %{http_code}", "-F",
           f"file=@{inputs['file']};type=audio/ogg", url]
    rows = []
    for _ in range(takes):
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=TAKE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise BenchError(f"{label} did not end in time: {shlex.join(cmd)}")
        fields = proc.stdout.split()
        if proc.returncode != 0 or len(fields) != 2 or fields[1] != "200":
            raise BenchError(f"{label} failed (exit status {proc.returncode}, output {proc.stdout!r}): "
                             f"{shlex.join(cmd)}\n{proc.stderr}")
        rows.append({"ms": float(fields[0]) * 1e3, "http_code": int(fields[1])})
    return rows


def check_uploads(inputs: dict, records: list, label: str, urls: list = None) -> list:
    """Every record a POST of the endpoint answered 200 whose one part `file` has the file's size and sha256 (and,
    for ours, the upload the answered URL names); returns what the report keeps of each (the server's duration of
    the request, its framing)."""
    kept = []
    for n, record in enumerate(records):
        parts = record.get("parts") or []
        part = parts[0] if parts else {}
        problems = []
        if record.get("method") != "POST" or record.get("path") != ENDPOINT_PATH:
            problems.append(f"request {record.get('method')} {record.get('path')}")
        if record.get("status") != 200 or not record.get("completed"):
            problems.append(f"status {record.get('status')}, completed {record.get('completed')}")
        if len(parts) != 1 or part.get("name") != "file":
            problems.append(f"parts {[p.get('name') for p in parts]}")
        if part.get("size") != FILE_BYTES:
            problems.append(f"part size {part.get('size')}, not {FILE_BYTES}")
        if part.get("sha256") != inputs["sha256"]:
            problems.append(f"part sha256 {part.get('sha256')}, not the file's {inputs['sha256']}")
        if urls is not None and not (urls[n] or "").endswith(f"/range/{record.get('upload')}"):
            problems.append(f"answered URL {urls[n]} is not the stored {record.get('upload')}")
        if problems:
            raise BenchError(f"{label}, upload {n + 1}: " + "; ".join(problems) + f"\n{json.dumps(record)}")
        headers = record.get("headers") or {}
        kept.append({"server_ms": (record["time"] - record["start"]) * 1e3,
                     "expect_continue": record.get("expect_continue"),
                     "content_length": headers.get("content-length"),
                     "transfer_encoding": headers.get("transfer-encoding"),
                     "user_agent": headers.get("user-agent"), "part_type": part.get("content_type"),
                     "part_filename": part.get("filename")})
    return kept


def clear_uploads(root: pathlib.Path) -> None:
    """Removes the server's stored uploads (10 MB each) once their batch is logged."""
    shutil.rmtree(root / "uploads", ignore_errors=True)


def run_turn(inputs: dict, server, url: str, root: pathlib.Path, takes: dict, curl_first: bool,
             label: str) -> dict:
    """One turn: ours (one process, takes["ours"] takes) and curl (takes["curl"] processes), in the order given;
    each batch checked against the server's log."""
    result = {"order": ["curl", "ours"] if curl_first else ["ours", "curl"]}
    for side in result["order"]:
        mark = len(server.requests())
        what = f"{LABELS[side]} ({label})"
        if side == "ours":
            rows = run_ours(inputs, url, takes["ours"], what)
            urls = [row.get("asset_url") for row in rows]
        else:
            rows = run_curl(inputs, url, takes["curl"], what)
            urls = None
        records = logged(server, mark + len(rows), what)[mark:]
        if len(records) != len(rows):
            raise BenchError(f"{what}: the server logged {len(records)} requests for {len(rows)} uploads")
        clear_uploads(root)
        result[side] = {"ms": [row["ms"] for row in rows],
                        "requests": check_uploads(inputs, records, what, urls)}
    return result


def upload_section(build_dir: pathlib.Path, work: pathlib.Path, counts: dict) -> dict:
    """The section: figures, per-turn runs, the checks, the versions."""
    takes = counts["takes_per_process"]
    if takes < 2:
        raise BenchError("the upload section needs at least 2 takes per process (the first is first in process)")
    inputs = build(build_dir, work)
    root = inputs["dir"] / "www"
    root.mkdir(parents=True, exist_ok=True)
    clear_uploads(root)
    started = time.perf_counter()
    server = start_server(root, inputs["dir"] / "requests.jsonl")
    try:
        url = server.url(ENDPOINT_PATH)
        warm_up = run_turn(inputs, server, url, root, {"ours": 2, "curl": 1}, False, "warm-up")
        turns = []
        for turn in range(counts["turns"]):
            result = run_turn(inputs, server, url, root, {"ours": takes, "curl": takes}, turn % 2 == 1,
                              f"turn {turn + 1}")
            turns.append(result)
            ours_later = statistics.median(result["ours"]["ms"][1:])
            curl_ms = statistics.median(result["curl"]["ms"])
            print(f"upload turn {turn + 1}/{counts['turns']} ({' first, '.join(result['order'])} second): ours "
                  f"{ours_later:.1f} ms (first in process {result['ours']['ms'][0]:.1f} ms), curl {curl_ms:.1f} ms, "
                  f"ratio {curl_ms / ours_later:.2f}", flush=True)
        requests = len(server.requests())
    finally:
        server.stop()
        clear_uploads(root)

    ours = [v for t in turns for v in t["ours"]["ms"][1:]]
    ours_first = [t["ours"]["ms"][0] for t in turns]
    curl = [v for t in turns for v in t["curl"]["ms"]]
    per_turn = [statistics.median(t["curl"]["ms"]) / statistics.median(t["ours"]["ms"][1:]) for t in turns]
    per_turn_first = [statistics.median(t["curl"]["ms"]) / t["ours"]["ms"][0] for t in turns]
    figures = {"ours_ms": figure(ours), "ours_first_ms": figure(ours_first),
               "curl_ms": figure(curl),
               "ours_server_ms": figure([r["server_ms"] for t in turns for r in t["ours"]["requests"][1:]]),
               "curl_server_ms": figure([r["server_ms"] for t in turns for r in t["curl"]["requests"]]),
               "ratio_per_turn": dict(summary(per_turn), runs=per_turn),
               "ratio_first_per_turn": dict(summary(per_turn_first), runs=per_turn_first)}
    ratio = figures["curl_ms"]["median"] / figures["ours_ms"]["median"]
    ratio_first = figures["curl_ms"]["median"] / figures["ours_first_ms"]["median"]

    def framing(side):
        seen = {(r["expect_continue"], r["content_length"], r["transfer_encoding"], r["part_type"],
                 r["part_filename"], r["user_agent"]) for t in turns + [warm_up] for r in t[side]["requests"]}
        return [dict(zip(("expect_continue", "content_length", "transfer_encoding", "part_type", "part_filename",
                          "user_agent"), entry)) for entry in sorted(seen, key=str)]
    print(f"upload: ours {figures['ours_ms']['median']:.1f} ms ({FILE_BYTES / figures['ours_ms']['median'] / 1e3:.0f}"
          f" MB/s; first in process {figures['ours_first_ms']['median']:.1f} ms), curl "
          f"{figures['curl_ms']['median']:.1f} ms, throughput ratio {ratio:.2f} "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    curl_version = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.splitlines()
    return {
        "counts": counts, "file_bytes": FILE_BYTES, "file_sha256": inputs["sha256"],
        "server": "Tests/Servers/http_server.py", "url": url.replace(f":{server.port}/", ":PORT/"),
        "figures": figures, "ratio": ratio, "ratio_first": ratio_first, "budget_vs_curl": BUDGET_VS_CURL,
        "pass": ratio >= BUDGET_VS_CURL, "uploads_checked": requests, "framing": {s: framing(s) for s in LABELS},
        "turns": [{"order": t["order"], "ours_ms": t["ours"]["ms"], "curl_ms": t["curl"]["ms"]} for t in turns],
        "curl": curl_version[0] if curl_version else None,
        "library": {k: v for k, v in inputs["snapshot"].items() if k != "lib"},
    }


def upload_markdown(section: dict) -> str:
    f, c = section["figures"], section["counts"]
    mb = section["file_bytes"] / 1e6

    def cell(entry):
        return f"{entry['median']:.1f} ({mb / entry['median'] * 1e3:.0f} MB/s) | {entry['min']:.1f}–{entry['max']:.1f}"

    def ratio(value, per_turn):
        return f"{value:.2f} (per turn {per_turn['median']:.2f}, {per_turn['min']:.2f}–{per_turn['max']:.2f})"
    verdict = "pass" if section["pass"] else "**miss**"

    def framing(side):
        return "; ".join(f"Expect: 100-continue {r['expect_continue'] or 'not sent'}, "
                         + (f"Content-Length {int(r['content_length']):,}" if r["content_length"] else
                            f"Transfer-Encoding {r['transfer_encoding']}")
                         + f", part {r['part_filename']} {r['part_type']}, {r['user_agent']}"
                         for r in section["framing"][side])
    lines = [
        f"Upload of {section['file_bytes']:,} random bytes (multipart, `POST {section['url']}`) to "
        f"{section['server']} on 127.0.0.1, which parses the body as it streams in, hashes the part and stores it; "
        "started once for the section. Each turn, after one untimed warm-up turn, in alternating order: ours — "
        f"bench/upload_file.c, one process, one uploader, {c['takes_per_process']} takes of vn_uploader_upload_file "
        "(payload from vn_payload_create, no decode) timed from the call to the end of vn_uploader_wait, the first "
        f"first in process (libcurl dlopened, the first connection); curl — {c['takes_per_process']} processes of "
        "`curl -s -o /dev/null -F \"file=@FILE;type=audio/ogg\" URL`, curl's own `time_total`. Medians (min–max) "
        f"of {c['turns']} turns; ratio: curl ms / ours ms (our throughput over curl's), from the medians, and the "
        "median (min–max) of per-turn ratios. Budget: ≥ "
        f"{section['budget_vs_curl']:g}x curl's throughput.",
        "",
        "| figure | n | ours median ms (MB/s) | min–max ms | curl median ms (MB/s) | min–max ms | throughput ours / curl "
        "| budget | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| upload 10 MB, warm process | {f['ours_ms']['n']} | {cell(f['ours_ms'])} | {cell(f['curl_ms'])} "
        f"| {ratio(section['ratio'], f['ratio_per_turn'])} | ≥ {section['budget_vs_curl']:g}x | {verdict} |",
        f"| upload 10 MB, first in process (libcurl loaded, first connection) | {f['ours_first_ms']['n']} "
        f"| {cell(f['ours_first_ms'])} | {cell(f['curl_ms'])} "
        f"| {ratio(section['ratio_first'], f['ratio_first_per_turn'])} | — | reported |",
        "",
        f"Every upload checked in the server's log ({section['uploads_checked']} requests, warm-up included): 200, "
        "one part `file` of the file's size and sha256 (ours also the stored upload its answer names). The "
        f"server's own time per request (its log's start to end): ours {f['ours_server_ms']['median']:.1f} ms, "
        f"curl {f['curl_server_ms']['median']:.1f} ms (medians). Requests as the server saw them: ours "
        f"{framing('ours')}; curl {framing('curl')}. {section['curl']}.",
        "",
        (f"Library measured: a copy of {section['library'].get('source', '?')} built "
         f"{section['library'].get('source_mtime', '?')}, sha256 {str(section['library'].get('sha256', '?'))[:16]}…."),
    ]
    return "\n".join(lines) + "\n"
