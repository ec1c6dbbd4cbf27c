"""How URLs are fetched: :class:`HTTPOptions` (request headers, a CA file, timeouts) and the ``vn_http_options``
handle made from them for one C call."""

from __future__ import annotations

import contextlib
import ctypes
import os
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Optional, Tuple, Union

from . import _capi
from ._buffers import count_arg, real
from ._strings import c_text
from .errors import check

__all__ = ["HTTPOptions", "Headers", "options_handle"]

#: Request headers: a mapping, or ``(name, value)`` pairs (a name may then repeat).
Headers = Union[Mapping[str, str], "tuple[Tuple[str, str], ...]", "list[Tuple[str, str]]"]


@dataclass(frozen=True)
class HTTPOptions:
    """How a URL is fetched (``vn_http_options``).

    Attributes:
        headers: request headers sent with every request of the download (``Authorization``, a CDN token), as a
            mapping or ``(name, value)`` pairs.
        ca_file: a PEM file of certificate authorities to trust instead of the system's (a self-hosted server).
        connect_timeout: seconds to wait for a connection (0.1…600); None for the library's 15.
        stall_timeout: seconds without a byte before the download fails with :class:`~voicenote.NetworkError`
            (0.1…3600); None for the library's 30.
        transfer_timeout: seconds one transfer may take in all, however it trickles (1…86400); None for the
            library's 600.
        max_bytes: the largest resource a download takes (1…2**40 bytes); a larger one fails with
            :class:`~voicenote.TooLargeError` as soon as it is known; None for the library's 100 MiB.
    """

    headers: Headers = field(default_factory=dict)
    ca_file: Optional[Union[str, "os.PathLike[str]"]] = None
    connect_timeout: Optional[float] = None
    stall_timeout: Optional[float] = None
    transfer_timeout: Optional[float] = None
    max_bytes: Optional[int] = None

    def header_pairs(self) -> Tuple[Tuple[str, str], ...]:
        """The headers as ``(name, value)`` pairs, in order."""
        items = self.headers.items() if isinstance(self.headers, Mapping) else self.headers
        return tuple((str(name), str(value)) for name, value in items)


@contextlib.contextmanager
def options_handle(options: Optional[HTTPOptions]) -> Iterator[Optional[Any]]:
    """A ``vn_http_options`` handle for ``options`` during the ``with`` block (None for None: the defaults).

    Raises:
        InvalidArgumentError: a header name or value the library refuses, a timeout out of range.
        ValueError: a NUL byte in a header or the CA file's path.
    """
    if options is None:
        yield None
        return
    handle = _capi.vn_http_options_p()
    check(_capi.vn_http_options_create(ctypes.byref(handle)))
    try:
        for name, value in options.header_pairs():
            check(_capi.vn_http_options_add_header(handle, c_text(name, "a header name"),
                                                   c_text(value, "a header value")))
        if options.ca_file is not None:
            check(_capi.vn_http_options_set_ca_file(handle, c_text(options.ca_file, "ca_file", path=True)))
        if options.connect_timeout is not None:
            check(_capi.vn_http_options_set_connect_timeout(handle, real(options.connect_timeout)))
        if options.stall_timeout is not None:
            check(_capi.vn_http_options_set_stall_timeout(handle, real(options.stall_timeout)))
        if options.transfer_timeout is not None:
            check(_capi.vn_http_options_set_transfer_timeout(handle, real(options.transfer_timeout)))
        if options.max_bytes is not None:
            check(_capi.vn_http_options_set_max_bytes(handle, count_arg("max_bytes", options.max_bytes, 1, 1 << 40)))
        yield handle
    finally:
        _capi.vn_http_options_destroy(handle)
