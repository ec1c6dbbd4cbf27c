"""Helpers shared by the voicenote binding tests.

Every wait is bounded (``TIMEOUT``) and asserts it did not time out; nothing sleeps in place of waiting for a
condition. Importing this module puts this checkout's ``bindings/python`` first on ``sys.path``, so the package
under test is the one in the checkout, not an installed copy.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, List, Optional

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # bindings/python
if str(PACKAGE_ROOT) not in sys.path:
    sys.path.insert(0, str(PACKAGE_ROOT))

#: Upper bound of every wait, in seconds (generous: the suite also runs against a ThreadSanitizer build).
TIMEOUT = float(os.environ.get("VOICENOTE_TEST_TIMEOUT", "30"))

#: The public header, when the tests run from a source checkout.
HEADER = PACKAGE_ROOT.parents[1] / "include" / "voicenote.h"


class Recorder:
    """Collects items from any thread and lets the test wait, bounded, for a condition on them."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.items: List[Any] = []

    def add(self, item: Any) -> None:
        """Appends ``item`` and wakes waiters. Safe to call from library threads."""
        with self.condition:
            self.items.append(item)
            self.condition.notify_all()

    def __len__(self) -> int:
        with self.condition:
            return len(self.items)

    def snapshot(self) -> List[Any]:
        """A copy of the items so far."""
        with self.condition:
            return list(self.items)

    def wait_for(self, predicate: Callable[[List[Any]], bool], timeout: float = TIMEOUT,
                 what: Optional[str] = None) -> List[Any]:
        """Waits until ``predicate(items)`` holds; fails the test on timeout. Returns a copy of the items.

        Never call a ``vn_`` function that may wait for a callback while inside this (it holds the lock the
        callbacks take)."""
        with self.condition:
            ok = self.condition.wait_for(lambda: predicate(self.items), timeout)
            assert ok, f"timed out after {timeout} s waiting for {what or 'condition'}; have {len(self.items)} items"
            return list(self.items)

    def wait_count(self, n: int, timeout: float = TIMEOUT) -> List[Any]:
        """Waits until at least ``n`` items arrived."""
        return self.wait_for(lambda items: len(items) >= n, timeout, f"{n} items")


def wait_event(event: threading.Event, what: str, timeout: float = TIMEOUT) -> None:
    """Waits for a :class:`threading.Event`; fails the test on timeout."""
    assert event.wait(timeout), f"timed out after {timeout} s waiting for {what}"


def threads_named(name: str, prefix: bool = False) -> int:
    """The threads of this process named ``name`` (as the library names its threads), or whose name starts with it
    when ``prefix``; a thread that ends while they are counted is not counted."""
    count = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
        except OSError:
            continue
        count += comm.startswith(name) if prefix else comm == name
    return count


def wait_until(condition: Callable[[], bool], timeout: float = TIMEOUT, every: float = 0.02) -> bool:
    """Re-checks a condition nobody signals (a value the library computes when asked) every ``every`` seconds
    until it holds or ``timeout`` seconds passed; whether it held."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)
    return True
