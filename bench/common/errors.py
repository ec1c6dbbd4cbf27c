"""BenchError: a step that failed to run, which makes the bench exit 1 (a missed budget is not one)."""


class BenchError(Exception):
    """A step that failed to run (not a missed budget)."""
