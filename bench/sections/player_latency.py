"""The player section's play → first frame part: bench/play_latency.c, a new player per take loading the 5 s note
with autoplay, against alsa-lib alone opening the same PCM with the library's parameters and writing 20 ms
periods; alternating processes, the first take of each "first in process". Two moments: the first
snd_pcm_writei() returning frames (play_latency interposes it) and the sink's output file first growing (a
thread stat()ing it every 0.2 ms; the file plugin writes only past a buffer's worth). Budget ≤ 50 ms."""
import statistics
import time

from common.budgets import BUDGET_PLAY_FIRST_FRAME_MS
from common.errors import BenchError
from common.process import run_latency
from common.stats import figure, summary
from sections.player_inputs import player_device

PLAYER_LATENCY_COUNTS = {"turns": 7, "takes_per_process": 5}
QUICK_PLAYER_LATENCY_COUNTS = {"turns": 3, "takes_per_process": 3}


def player_latency_section(inputs: dict, counts: dict) -> dict:
    """docs/performance.md play → first frame: bench/play_latency.c ours (vn_player_load of the 5 s note with
    autoplay) against alsa-lib alone (open, configure, write), alternating processes of `takes_per_process` each."""
    if counts["takes_per_process"] < 2:
        raise BenchError("the play latency needs at least 2 takes per process (the first is first in process)")
    program = str(inputs["programs"]["play_latency"])
    output = inputs["dir"] / "latency.raw"
    started = time.perf_counter()
    raw = {"ours": [], "floor": []}
    for turn in range(counts["turns"]):
        ours = run_latency([program, "ours", str(inputs["short_ogg"]), str(output), str(counts["takes_per_process"])],
                           "play_latency ours", timeout=120)
        floor = run_latency([program, "floor", str(output), str(counts["takes_per_process"])], "play_latency floor",
                            timeout=120)
        for name, run in (("ours", ours), ("floor", floor)):
            missing = [v for v in run["first_write_ms"] + run["file_grew_ms"] if v < 0]
            if missing:
                raise BenchError(f"play_latency {name}: a take saw no first frame or no file growth:\n{run}")
        raw["ours"].append(ours)
        raw["floor"].append(floor)
        print(f"play → first frame turn {turn + 1}/{counts['turns']}: ours {ours['first_write_ms'][0]:.2f} ms "
              f"(then {statistics.median(ours['first_write_ms'][1:]):.2f}), alsa-lib "
              f"{floor['first_write_ms'][0]:.2f} ms (then {statistics.median(floor['first_write_ms'][1:]):.2f})",
              flush=True)
    output.unlink(missing_ok=True)

    def cold(side, key):
        return [run[key][0] for run in raw[side]]

    def warm(side, key):
        return [v for run in raw[side] for v in run[key][1:]]

    def ratios(key, first):
        values = [(o[key][0] / max(f[key][0], 1e-9)) if first else
                  (statistics.median(o[key][1:]) / max(statistics.median(f[key][1:]), 1e-9))
                  for o, f in zip(raw["ours"], raw["floor"])]
        return dict(summary(values), runs=values)
    limit = BUDGET_PLAY_FIRST_FRAME_MS
    figures = {
        "first_write_cold": figure(cold("ours", "first_write_ms"), limit),
        "first_write_warm": figure(warm("ours", "first_write_ms"), limit),
        "file_grew_cold": figure(cold("ours", "file_grew_ms"), limit),
        "file_grew_warm": figure(warm("ours", "file_grew_ms"), limit),
        "load_call": figure(warm("ours", "load_call_ms") + cold("ours", "load_call_ms")),
        "frames_at_growth": figure(warm("ours", "frames_at_growth") + cold("ours", "frames_at_growth")),
        "floor_first_write_cold": figure(cold("floor", "first_write_ms")),
        "floor_first_write_warm": figure(warm("floor", "first_write_ms")),
        "floor_file_grew_cold": figure(cold("floor", "file_grew_ms")),
        "floor_file_grew_warm": figure(warm("floor", "file_grew_ms")),
        "floor_configured_warm": figure(warm("floor", "configured_ms")),
        "ratio_first_write_cold": ratios("first_write_ms", True),
        "ratio_first_write_warm": ratios("first_write_ms", False),
        "ratio_file_grew_cold": ratios("file_grew_ms", True),
        "ratio_file_grew_warm": ratios("file_grew_ms", False),
    }
    print(f"play → first frame: ours {figures['first_write_cold']['median']:.2f} ms first in process, "
          f"{figures['first_write_warm']['median']:.2f} ms warm ({time.perf_counter() - started:.0f} s)", flush=True)
    return {"counts": counts, "figures": figures, "raw": raw, "device": player_device(output),
            "period_frames": raw["floor"][0].get("period_frames"), "buffer_frames": raw["floor"][0].get("buffer_frames"),
            "budget_ms": limit}
