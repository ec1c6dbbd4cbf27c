"""Figures from a series of runs: the median with its min and max, and a latency figure checked against its
budget."""
import statistics


def summary(values: list) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def figure(values: list, limit: float = None) -> dict:
    """n, median, min, max (and the budget check on the median) of one latency figure, in ms."""
    entry = dict(summary(values), n=len(values), runs=values)
    if limit is not None:
        entry.update(limit_ms=limit, **{"pass": entry["median"] <= limit}, max_within=entry["max"] <= limit)
    return entry
