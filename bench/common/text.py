"""How figures are written in the latest.md tables: milliseconds, seconds, median (min–max), ratios, the
library measured."""


def ms(seconds: float) -> str:
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def spread(entry: dict, fmt) -> str:
    return f"{fmt(entry['median'])} ({fmt(entry['min'])}–{fmt(entry['max'])})"


def ratio_text(entry: dict) -> str:
    return spread(entry, lambda v: f"{v:.2f}")


def secs(value: float) -> str:
    return f"{value:.2f}"


def library_note(section: dict) -> str:
    library = section.get("library") or {}
    return (f"Library measured: a copy of {library.get('source', '?')} built {library.get('source_mtime', '?')}, "
            f"sha256 {str(library.get('sha256', '?'))[:16]}….")


def f_ms(value: float) -> str:
    return f"{value:.2f}"
