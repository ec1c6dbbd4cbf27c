"""Section `json`: JSON parses in linear time whatever its shape. Each shape (a payload with one object of n keys, a
payload with an array of n objects, the resume store of n entries) is read at n and 4n members through the library
(vn_payload_parse, vn_resume_position: the parse, the tree copied into Swift, the checks) and through jansson alone
(json_loadb, the floor), medians of RUNS in one child process (bench/json_parse.py). The figure is the growth:
time at 4n over time at n — 4 for a linear parser, 16 for a quadratic one, and a little over 4 for both ours and
the floor on a real machine (the memory hierarchy). Budget: our growth ≤ 1.5x the floor's on the same texts."""
import json
import pathlib
import sys

from common.budgets import BUDGET_JSON_GROWTH_VS_FLOOR
from common.paths import HERE
from common.process import capture

JSON_RUNS = 5
QUICK_JSON_RUNS = 3


def json_section(build: pathlib.Path, work: pathlib.Path, runs: int) -> dict:
    """Runs bench/json_parse.py against build/lib and returns each shape's times and growths."""
    library = build / "lib" / "libvoicenote.so"
    folder = work / "json"
    folder.mkdir(parents=True, exist_ok=True)
    rows = json.loads(capture([sys.executable, str(HERE / "json_parse.py"), str(library), str(folder), str(runs)],
                              "bench/json_parse.py"))
    for row in rows:
        row["growth"] = row["ours_s_4n"] / row["ours_s_n"]
        row["floor_growth"] = row["floor_s_4n"] / row["floor_s_n"]
        row["pass"] = row["growth"] <= BUDGET_JSON_GROWTH_VS_FLOOR * row["floor_growth"]
        print(f"json: {row['shape']}: {row['ours_s_n'] * 1000:.1f} ms at n = {row['n']:,}, "
              f"{row['ours_s_4n'] * 1000:.1f} ms at 4n: {row['growth']:.2f}x (jansson alone {row['floor_growth']:.2f}x)",
              flush=True)
    return {"runs": runs, "shapes": rows, "budget_vs_floor": BUDGET_JSON_GROWTH_VS_FLOOR,
            "pass": all(row["pass"] for row in rows)}


def json_markdown(section: dict) -> str:
    lines = [
        "JSON parsing, linear whatever the shape: each input at n and 4n members through the library "
        "(vn_payload_parse, vn_resume_position) and through jansson alone (json_loadb, the floor), medians of "
        f"{section['runs']}. Growth is the time at 4n over the time at n (4 when linear, 16 when quadratic). "
        f"Budget: our growth ≤ {section['budget_vs_floor']:g}x the floor's.",
        "",
        "| shape | n | 4n bytes | ours ms at n | at 4n | growth | jansson ms at n | at 4n | its growth | result |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in section["shapes"]:
        lines.append(f"| {row['shape']} | {row['n']:,} | {row['bytes_4n']:,} | {row['ours_s_n'] * 1000:.1f} "
                     f"| {row['ours_s_4n'] * 1000:.1f} | {row['growth']:.2f}x | {row['floor_s_n'] * 1000:.1f} "
                     f"| {row['floor_s_4n'] * 1000:.1f} | {row['floor_growth']:.2f}x "
                     f"| {'pass' if row['pass'] else 'miss'} |")
    return "\n".join(lines) + "\n"
