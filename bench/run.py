#!/usr/bin/env python3
"""`make bench`: voicenote's speed and size figures, each as a ratio against a reference run in the same bench.

Sections grow with the issues (waveform vs a C floor and ffprobe, encoder vs opusenc, player vs opusdec).
Results are printed and written to bench/results/ as JSON and Markdown.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

BUDGET_STRIPPED_SO_BYTES = 16 * 1024 * 1024  # SPEC §11


def library_size(build: pathlib.Path) -> dict:
    """Stripped size of the shipped .so against its budget."""
    so = (build / "lib" / "libvoicenote.so").resolve()
    with tempfile.TemporaryDirectory() as tmp:
        stripped = pathlib.Path(tmp) / "libvoicenote.so"
        subprocess.run(["strip", "--strip-unneeded", "-o", str(stripped), str(so)], check=True)
        size = stripped.stat().st_size
    return {
        "name": "library size (stripped .so)",
        "bytes": size,
        "budget_bytes": BUDGET_STRIPPED_SO_BYTES,
        "ratio_to_budget": round(size / BUDGET_STRIPPED_SO_BYTES, 3),
        "within_budget": size <= BUDGET_STRIPPED_SO_BYTES,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build", type=pathlib.Path)
    parser.add_argument("--results", default=pathlib.Path(__file__).parent / "results", type=pathlib.Path)
    args = parser.parse_args()
    rows = [library_size(args.build)]
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "latest.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = ["| figure | value | budget | ratio |", "| --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['name']} | {row['bytes'] / 1048576:.2f} MiB | {row['budget_bytes'] / 1048576:.0f} MiB "
                     f"| {row['ratio_to_budget']} |")
    text = "\n".join(lines) + "\n"
    (args.results / "latest.md").write_text(text)
    sys.stdout.write(text)
    return 0 if all(row["within_budget"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
