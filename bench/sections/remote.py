"""Section `remote` (docs/performance.md "play → first frame over HTTP"): Debian's nginx
(Tests/Servers/nginx_server.py) on 127.0.0.1 serving the 5 s note, started once for the section and stopped at
its end; bench/play_latency.c `url` loads its URL with vn_player_load on the player section's sink. Per turn,
after an untimed warm-up turn, three processes: cold (vn_cache_set_directory(a fresh directory),
vn_cache_clear(), one take: libcurl's dlopen, the connection and the download are inside the timed part), the
reference (`play_latency ours` on the local file), warm (a new process on the cache the cold one left; its first
take first in process, the others a warm process). nginx's access log is read after each: the cold process must
show its request, the warm one none (a request there marks the row FAIL and the bench exits 1). Ratios against
the local file, per turn, medians. Budgets: cold ≤ 200 ms; warm at the local file's speed (read as ≤ 1.25x).
The CLI's `waveform URL` with the maps probe preloaded checks that the probe sees libcurl when it is loaded."""
import filecmp
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

from common.audio import WAVEFORM_SAMPLES
from common.budgets import BUDGET_REMOTE_COLD_MS, BUDGET_REMOTE_WARM_VS_LOCAL
from common.errors import BenchError
from common.maps_probe import build_maps_probe, libcurl_at_exit
from common.nginx import settled_requests, start_nginx
from common.process import run_latency
from common.stats import figure, summary
from common.text import f_ms, library_note, ratio_text, spread
from sections.player_inputs import player_device

REMOTE_COUNTS = {"turns": 7, "takes_per_process": 5}
QUICK_REMOTE_COUNTS = {"turns": 3, "takes_per_process": 3}


def run_play_latency(cmd: list, label: str) -> dict:
    run = run_latency(cmd, label, timeout=120)
    if any(v < 0 for v in run["first_write_ms"] + run["file_grew_ms"]):
        raise BenchError(f"{label}: a take saw no first frame or no file growth:\n{run}")
    return run


def request_summary(records: list) -> list:
    return [{k: r.get(k) for k in ("method", "path", "status", "bytes", "range", "completed")} for r in records]


def remote_turn(program: str, url: str, local: pathlib.Path, output: pathlib.Path, cache: pathlib.Path,
                takes: int, server, label: str) -> dict:
    """One turn: cold (new process, fresh cache directory, vn_cache_clear, one take), the local file (the same
    harness, `takes` takes), warm (new process on the cache the cold one left, `takes` takes); the requests nginx
    logged during each."""
    shutil.rmtree(cache, ignore_errors=True)
    mark = len(settled_requests(server, 0))
    runs, requests = {}, {}
    for key, cmd in (("cold", [program, "url", url, str(output), "1", str(cache), "clear"]),
                     ("local", [program, "ours", str(local), str(output), str(takes)]),
                     ("warm", [program, "url", url, str(output), str(takes), str(cache), "keep"])):
        runs[key] = run_play_latency(cmd, f"play_latency {key} ({label})")
        records = settled_requests(server, mark + (1 if key == "cold" else 0))
        requests[key] = request_summary(records[mark:])
        mark = len(records)
    if not requests["cold"]:
        raise BenchError(f"{label}: the cold run played the URL but nginx logged no request")
    if runs["cold"]["cache_bytes_after"] <= 0:
        raise BenchError(f"{label}: the cold run left nothing in the media cache {cache} (waited "
                         f"{runs['cold']['cache_wait_ms']:.0f} ms)")
    if requests["warm"]:
        print(f"REMOTE WARM CACHE: {label}: {len(requests['warm'])} request(s) reached nginx from the warm-cache "
              f"process, which should have read the cache only: {requests['warm']}", file=sys.stderr, flush=True)
    return {"runs": runs, "requests": requests}


def remote_section(inputs: dict, work: pathlib.Path, counts: dict, cli: pathlib.Path) -> dict:
    """docs/performance.md "play → first frame over HTTP": bench/play_latency.c playing the 5 s note from nginx on
    127.0.0.1 with a cold media cache (libcurl's loading included) and a warm one, each against the same harness on
    the local file in the same turn."""
    if counts["takes_per_process"] < 2:
        raise BenchError("the remote section needs at least 2 takes per process (the first is first in process)")
    program = str(inputs["programs"]["play_latency"])
    folder = work / "remote"
    www = folder / "www"
    www.mkdir(parents=True, exist_ok=True)
    local = inputs["short_ogg"]
    served = www / local.name
    if not served.exists() or not filecmp.cmp(local, served, shallow=False):
        shutil.copyfile(local, served)
    output = folder / "latency.raw"
    caches = folder / "cache"
    probe = build_maps_probe(work)
    takes = counts["takes_per_process"]
    started = time.perf_counter()
    server = start_nginx(www, folder / "access.log")
    try:
        url = server.url("/" + served.name)
        shown_url = url.replace(f":{server.port}/", ":PORT/")
        warm_up = remote_turn(program, url, local, output, caches / "warm-up", takes, server, "warm-up")
        turns = []
        for turn in range(counts["turns"]):
            result = remote_turn(program, url, local, output, caches / f"turn-{turn + 1}", takes, server,
                                 f"turn {turn + 1}")
            turns.append(result)
            runs = result["runs"]
            print(f"remote turn {turn + 1}/{counts['turns']}: cold {runs['cold']['first_write_ms'][0]:.2f} ms "
                  f"({len(result['requests']['cold'])} request), local {runs['local']['first_write_ms'][0]:.2f} ms, "
                  f"warm cache {runs['warm']['first_write_ms'][0]:.2f} ms ({len(result['requests']['warm'])} "
                  "requests)", flush=True)
        # The maps probe of the waveform section, checked on a process that does use the network: our CLI's
        # waveform of the URL (its own empty cache, so it downloads).
        with tempfile.TemporaryDirectory(dir=folder) as xdg:
            mark = len(settled_requests(server, 0))
            control = libcurl_at_exit([str(cli), "waveform", url, "--samples", str(WAVEFORM_SAMPLES)], probe,
                                      "voicenote waveform URL", env=dict(os.environ, XDG_CACHE_HOME=xdg))
            control["requests"] = len(settled_requests(server, mark + 1)) - mark
    finally:
        server.stop()
    shutil.rmtree(caches, ignore_errors=True)
    output.unlink(missing_ok=True)

    def first(key, measure):
        return [t["runs"][key][measure][0] for t in turns]

    def rest(key, measure):
        return [v for t in turns for v in t["runs"][key][measure][1:]]

    def ratios(key, measure, first_take):
        values = [(t["runs"][key][measure][0] / max(t["runs"]["local"][measure][0], 1e-9)) if first_take else
                  (statistics.median(t["runs"][key][measure][1:]) /
                   max(statistics.median(t["runs"]["local"][measure][1:]), 1e-9)) for t in turns]
        return dict(summary(values), runs=values)
    cold_minus_local = [t["runs"]["cold"]["first_write_ms"][0] - t["runs"]["local"]["first_write_ms"][0]
                        for t in turns]
    figures = {
        "cold_first_write": figure(first("cold", "first_write_ms"), BUDGET_REMOTE_COLD_MS),
        "cold_file_grew": figure(first("cold", "file_grew_ms"), BUDGET_REMOTE_COLD_MS),
        "cold_load_call": figure(first("cold", "load_call_ms")),
        "cold_minus_local_first_write": figure(cold_minus_local),
        "local_first_write_first": figure(first("local", "first_write_ms")),
        "local_first_write_warm": figure(rest("local", "first_write_ms")),
        "local_file_grew_first": figure(first("local", "file_grew_ms")),
        "local_file_grew_warm": figure(rest("local", "file_grew_ms")),
        "warm_first_write_first": figure(first("warm", "first_write_ms")),
        "warm_first_write_warm": figure(rest("warm", "first_write_ms")),
        "warm_file_grew_first": figure(first("warm", "file_grew_ms")),
        "warm_file_grew_warm": figure(rest("warm", "file_grew_ms")),
        "ratio_cold_first_write": ratios("cold", "first_write_ms", True),
        "ratio_cold_file_grew": ratios("cold", "file_grew_ms", True),
        "ratio_warm_first_write_first": ratios("warm", "first_write_ms", True),
        "ratio_warm_first_write_warm": ratios("warm", "first_write_ms", False),
        "ratio_warm_file_grew_first": ratios("warm", "file_grew_ms", True),
        "ratio_warm_file_grew_warm": ratios("warm", "file_grew_ms", False),
    }
    warm_requests = sum(len(t["requests"]["warm"]) for t in turns + [warm_up])
    cold_requests = [len(t["requests"]["cold"]) for t in turns]
    libcurl = {key: sum(bool(t["runs"][key]["libcurl_mapped"]) for t in turns) for key in ("cold", "local", "warm")}
    verdicts = {"cold": figures["cold_first_write"]["pass"]}
    for key in ("first", "warm"):
        value = figures[f"ratio_warm_first_write_{key}"]["median"]
        verdicts[f"warm_{key}"] = {"value": value, "limit": BUDGET_REMOTE_WARM_VS_LOCAL,
                                   "pass": value <= BUDGET_REMOTE_WARM_VS_LOCAL and warm_requests == 0}
    print(f"remote: cold cache {figures['cold_first_write']['median']:.2f} ms "
          f"({figures['ratio_cold_first_write']['median']:.2f}x local), warm cache "
          f"{figures['warm_first_write_first']['median']:.2f} ms "
          f"({figures['ratio_warm_first_write_first']['median']:.2f}x local), warm-cache requests {warm_requests} "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    return {
        "counts": counts, "url": shown_url, "file": str(local),
        "file_bytes": local.stat().st_size, "server": "Tests/Servers/nginx_server.py",
        "device": player_device(output), "figures": figures, "verdicts": verdicts,
        "warm_cache_requests": warm_requests, "warm_cache_ok": warm_requests == 0,
        "cold_requests_per_process": cold_requests,
        "cold_requests": [t["requests"]["cold"] for t in turns],
        "cache_wait_ms": figure([t["runs"]["cold"]["cache_wait_ms"] for t in turns]),
        "cache_bytes": statistics.median(t["runs"]["cold"]["cache_bytes_after"] for t in turns),
        "libcurl_mapped_processes": libcurl, "libcurl_probe_control": control,
        "warm_up": warm_up, "raw": turns, "budget_ms": BUDGET_REMOTE_COLD_MS,
        "library": {k: v for k, v in inputs["snapshot"].items() if k != "lib"},
    }


def remote_markdown(section: dict) -> str:
    f, c, v = section["figures"], section["counts"], section["verdicts"]
    turns = c["turns"]
    warm_ok = section["warm_cache_ok"]

    def row(name, entry, reference, ratio, budget, verdict):
        return (f"| {name} | {entry['n']} | {entry['median']:.2f} | {entry['min']:.2f}–{entry['max']:.2f} "
                f"| {reference['median']:.2f} | {ratio_text(ratio)} | {budget} | {verdict} |")

    def cold_verdict(entry):
        text = "pass" if entry["pass"] else "**miss**"
        return text + ("" if entry["max_within"] else f" (max {entry['max']:.1f} ms over)")

    def warm_verdict(key):
        if not warm_ok:
            return f"**FAIL: {section['warm_cache_requests']} request(s) reached the server**"
        check = v[key]
        return f"{'pass' if check['pass'] else '**miss**'} ({check['value']:.2f}x)"
    warm_budget = f"local-file speed (≤ {BUDGET_REMOTE_WARM_VS_LOCAL:g}x)"
    requests = section["cold_requests"]
    statuses = sorted({(r["status"], r["bytes"], r["range"] or "whole") for turn in requests for r in turn},
                      key=str)
    libcurl = section["libcurl_mapped_processes"]
    control = section.get("libcurl_probe_control") or {}
    lines = [
        "Play → first frame over HTTP (bench/play_latency.c `url`, CLOCK_MONOTONIC from just before the call): "
        f"Debian's nginx on 127.0.0.1 ({section['server']}) serving the 5 s note ({section['file_bytes']:,} B), "
        "started once for the section; a new player on the same sink as the player section's first frame, "
        f"vn_player_load(`{section['url']}`) with autoplay (default HTTP options). Each turn, after one untimed "
        "warm-up turn, three processes in this order: cold — vn_cache_set_directory(a fresh directory) and "
        "vn_cache_clear(), one take (libcurl dlopened, connection and download inside the timed part); the "
        f"reference — the same harness on the local file (`play_latency ours`, {c['takes_per_process']} takes, the "
        "first first in process); warm — a new process on the cache the cold one left, "
        f"{c['takes_per_process']} takes. nginx's access log is read after each process: the cold one must show "
        "its download, the warm one nothing (a request there fails the row). Ratios: medians (min–max) of "
        "per-turn ratios against the local file in the same turn, first take to first take (first in process) or "
        "median of the later takes to theirs (warm process).",
        "",
        "| figure | n | ours median ms | min–max ms | local file, median ms | ours / local file | budget | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        row("play → first frame accepted over HTTP, cold cache (new process: libcurl loaded, one download)",
            f["cold_first_write"], f["local_first_write_first"], f["ratio_cold_first_write"],
            f"≤ {section['budget_ms']:g} ms", cold_verdict(f["cold_first_write"])),
        row("play → output file grew over HTTP, cold cache", f["cold_file_grew"], f["local_file_grew_first"],
            f["ratio_cold_file_grew"], f"≤ {section['budget_ms']:g} ms", cold_verdict(f["cold_file_grew"])),
        row("play → first frame accepted, warm cache, new process (a replay: no request)",
            f["warm_first_write_first"], f["local_first_write_first"], f["ratio_warm_first_write_first"],
            warm_budget, warm_verdict("warm_first")),
        row("play → first frame accepted, warm cache, warm process", f["warm_first_write_warm"],
            f["local_first_write_warm"], f["ratio_warm_first_write_warm"], warm_budget, warm_verdict("warm_warm")),
        row("play → output file grew, warm cache, new process", f["warm_file_grew_first"], f["local_file_grew_first"],
            f["ratio_warm_file_grew_first"], "—", "—"),
        "",
        f"Cold minus local, first frame, per turn: {spread(f['cold_minus_local_first_write'], lambda x: f'{x:.2f}')} "
        f"ms. Requests nginx logged: per cold process {', '.join(map(str, section['cold_requests_per_process']))} "
        f"({'; '.join(f'status {s}, {b:,} B, {r}' for s, b, r in statuses)}); from the warm-cache processes "
        f"{section['warm_cache_requests']} in {turns + 1} processes of {c['takes_per_process']} loads, the warm-up "
        f"turn's included ({'none, as required' if warm_ok else '**the cache was not used: FAIL**'}). The cold "
        f"process found its entry in the cache {f_ms(section['cache_wait_ms']['median'])} ms after its take "
        f"(median wait; {section['cache_bytes']:,.0f} B on disk). libcurl mapped at the end of the process (/proc/self/maps): "
        f"cold {libcurl['cold']}/{turns}, warm cache {libcurl['warm']}/{turns}, local file {libcurl['local']}/{turns}. "
        f"vn_player_load itself returns in {f['cold_load_call']['median']:.3f} ms (cold, median).",
    ]
    if control:
        lines += ["", f"The waveform section's maps probe on a process that uses the network, `voicenote waveform "
                      f"URL` (an empty cache, {control.get('requests')} request): libcurl "
                      f"{'mapped' if control.get('libcurl') else '**not seen**'} "
                      f"({', '.join(control.get('libcurl_paths', [])) or '—'}; {control.get('objects')} shared "
                      "objects)."]
    lines += ["", library_note(section)]
    return "\n".join(lines) + "\n"
