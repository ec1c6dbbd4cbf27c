"""Section `flow`: no vn_flow_* call blocks its caller. A 10-minute AAC take (made once by ffmpeg: speech-like tone
at 32 kbit/s) is restored into preview from a draft, played, sought, trimmed (an AAC re-encode of seconds, on the
flow's worker), poked while the trim runs, and the flow destroyed during a second trim (bench/flow_calls.py, one
child process per section, RUNS runs). The figure: for each function, the median over runs of its longest call;
and the longest of those. Budget: ≤ 5 ms."""
import json
import pathlib
import statistics
import sys

from common.budgets import BUDGET_FLOW_CALL_MS
from common.paths import HERE, REPO
from common.process import capture, require_tools

FLOW_RUNS = 5
QUICK_FLOW_RUNS = 3


def ten_minute_aac(work: pathlib.Path) -> pathlib.Path:
    """The 600 s AAC take (ADTS at 48 kHz mono, 32 kbit/s, what the recorder writes), made once and cached."""
    take = work / "flow" / "take-600s.aac"
    if not take.exists():
        require_tools(["ffmpeg"])
        take.parent.mkdir(parents=True, exist_ok=True)
        partial = take.with_suffix(".part.aac")
        capture(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                 "sine=frequency=220:sample_rate=48000:duration=600,volume=0.3", "-ac", "1", "-c:a", "aac",
                 "-b:a", "32k", "-f", "adts", str(partial)], "ffmpeg (the 10-minute AAC take)")
        partial.rename(take)
    return take


def flow_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """Runs bench/flow_calls.py against build/lib and returns the longest block of each vn_flow_* call."""
    take = ten_minute_aac(work)
    folder = work / "flow" / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    per_run = json.loads(capture([sys.executable, str(HERE / "flow_calls.py"), str(REPO / "bindings" / "python"),
                                  str(build / "lib" / "libvoicenote.so"), str(take), str(folder), str(runs)],
                                 "bench/flow_calls.py"))
    calls = {name: statistics.median(run[name] for run in per_run) * 1000 for name in per_run[0]}
    worst = max(calls, key=calls.get)
    longest_ms = calls[worst]
    print(f"flow: the longest vn_flow_* call blocks {longest_ms:.2f} ms ({worst}; median of {runs} runs' longest), "
          f"budget {BUDGET_FLOW_CALL_MS:g} ms", flush=True)
    return {"runs": runs, "calls_ms": calls, "longest_ms": longest_ms, "longest_call": worst,
            "budget_ms": BUDGET_FLOW_CALL_MS, "pass": longest_ms <= BUDGET_FLOW_CALL_MS}


def flow_markdown(section: dict) -> str:
    lines = [
        "Flow calls with a 10-minute AAC take in preview (restored from a draft, played, sought, trimmed to a minute "
        "— an AAC re-encode on the flow's worker — poked during the trim, destroyed during a second trim): how long "
        f"each vn_flow_* call blocks its caller, the median of {section['runs']} runs' longest call. "
        f"Budget: ≤ {section['budget_ms']:g} ms.",
        "",
        "| call | longest block (ms) |",
        "| --- | --- |",
    ]
    for name, value in sorted(section["calls_ms"].items(), key=lambda item: -item[1]):
        lines.append(f"| vn_flow_{name} | {value:.3f} |")
    lines.append(f"| **all** | **{section['longest_ms']:.3f}** ({section['longest_call']}): "
                 f"**{'pass' if section['pass'] else 'miss'}** |")
    return "\n".join(lines) + "\n"
