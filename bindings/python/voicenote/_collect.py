"""Lists a synchronous C call hands to a Python trampoline item by item (``vn_devices_enumerate``,
``vn_recover``): the call's ``user_data`` is an integer key into :data:`_live`, so the module-level trampoline
finds the list of the call in progress. An exception raised while making an item never reaches C: it is kept and
raised by :func:`collect` once the call returned.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import check

__all__ = ["collect", "add"]

_keys = itertools.count(1)  # never 0: user_data 0 would reach C as NULL
#: Calls in progress: key → (the items so far, the first exception making one raised).
_live: Dict[int, Tuple[List[Any], List[BaseException]]] = {}


def collect(call: Callable[[int], int]) -> List[Any]:
    """Runs ``call(key)`` (a C function returning a status, passing ``key`` as its ``user_data``) and returns the
    items its trampoline :func:`add`-ed, in order. Raises the status's exception, or the first exception an item
    raised."""
    key = next(_keys)
    items: List[Any] = []
    failure: List[BaseException] = []
    _live[key] = (items, failure)
    try:
        check(call(key))
    finally:
        _live.pop(key, None)
    if failure:
        raise failure[0]
    return items


def add(user_data: Optional[int], make: Callable[[], Any]) -> None:
    """For a trampoline: appends ``make()`` to the list of the call ``user_data`` names. Ignores unknown keys and
    everything after a failure; never raises."""
    state = _live.get(user_data or 0)
    if state is None or state[1]:
        return
    try:
        state[0].append(make())
    except BaseException as error:  # noqa: BLE001 - never raise into C; collect() raises it afterwards
        state[1].append(error)
