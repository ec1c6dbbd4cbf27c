#!/usr/bin/env python3
"""The first captured frame after begin, on a fresh and on a warm PulseAudio server, ours against arecord on the
same server, run alone (its rows and JSON only); bench/run.py runs it as part of the recorder-latency section:

    bench/first_frame.py [--build DIR] [--work DIR] [--turns N]

What it measures and how: bench/sections/recorder_first_frame.py.
"""
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # bench/: its common/ and sections/ packages

from common.errors import BenchError
from common.paths import HERE, REPO
from common.process import require_tools
from common.results import compact_json
from sections.recorder_first_frame import markdown, measure
from sections.recorder_inputs import build_recorder_inputs
from sections.recorder_latency import LATENCY_COUNTS


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=REPO / "build", type=pathlib.Path)
    parser.add_argument("--work", default=HERE / "work", type=pathlib.Path)
    parser.add_argument("--turns", type=int, default=LATENCY_COUNTS["begin_turns"])
    args = parser.parse_args()
    try:
        require_tools(["pulseaudio", "parec", "paplay", "arecord"])
        inputs = build_recorder_inputs(args.build.resolve(), args.work.resolve())
        section = measure(inputs, args.turns)
    except (BenchError, subprocess.CalledProcessError, OSError) as error:
        print(f"first_frame: {error}", file=sys.stderr)
        return 1

    def row(name, device, entry, reference, ratio, budget):
        verdict = "pass" if entry["pass"] else "miss"
        return (f"| {name} | {device} | {entry['n']} | {entry['median']:.1f} | {entry['min']:.1f}–{entry['max']:.1f} "
                f"| {reference} | {ratio} | ≤ {budget:g} ms | {verdict} |")
    rows, notes = markdown(section, row)
    print("\n".join(["| figure | microphone | n | median ms | min–max ms | reference | ours / reference | budget "
                     "| verdict |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"] + rows + notes))
    print(compact_json(section))
    return 0


if __name__ == "__main__":
    sys.exit(main())
