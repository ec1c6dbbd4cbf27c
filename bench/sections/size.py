"""Section `size`: the stripped libvoicenote.so against its budget (docs/performance.md)."""
import pathlib
import subprocess
import tempfile

from common.budgets import BUDGET_STRIPPED_SO_BYTES
from common.errors import BenchError


def library_size(build: pathlib.Path) -> dict:
    """Stripped size of the shipped .so against its budget."""
    so = (build / "lib" / "libvoicenote.so").resolve()
    if not so.exists():
        raise BenchError(f"{so} is missing: run `make build` first")
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


def library_size_markdown(row: dict) -> str:
    return "\n".join([
        "| figure | value | budget | ratio | verdict |",
        "| --- | --- | --- | --- | --- |",
        f"| {row['name']} | {row['bytes'] / 1048576:.2f} MiB | {row['budget_bytes'] / 1048576:.0f} MiB "
        f"| {row['ratio_to_budget']} | {'pass' if row['within_budget'] else 'miss'} |",
    ]) + "\n"
