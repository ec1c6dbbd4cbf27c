"""RESULTS/latest.json: its compact JSON text, and the previous one whose sections not run are carried over."""
import json
import pathlib
import re


def compact_json(value) -> str:
    """Indented JSON with every list of numbers or strings on one line, so the file stays short and diffable."""
    text = json.dumps(value, indent=1, default=str)
    compact = re.sub(r"\[\s*((?:[-0-9.eE+]+|\"[^\"\n]*\")(?:,\s*(?:[-0-9.eE+]+|\"[^\"\n]*\"))*)\s*\]",
                     lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return compact if json.loads(compact) == json.loads(text) else text


def previous_report(results: pathlib.Path):
    """The last latest.json, whose sections not run this time are carried over (marked as such)."""
    try:
        return json.loads((results / "latest.json").read_text())
    except (OSError, ValueError):
        return None
