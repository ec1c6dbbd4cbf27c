"""An uploader's configuration made into the C object: the arguments of :class:`~voicenote.Uploader` checked,
written into ``vn_upload_options``, and the ``vn_uploader`` created from them."""

from __future__ import annotations

import ctypes
import dataclasses
import operator
import os
from collections.abc import Mapping
from typing import Any, Optional, Tuple, Union

from . import _capi
from ._http import Headers, HTTPOptions, options_handle
from ._loop import EventLoop
from ._upload_events import Query, UploadMode
from ._strings import c_text
from .errors import check, invalid_argument

__all__ = ["create_uploader", "create_with_upload_options"]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def _query_pairs(query: Query) -> Tuple[Tuple[bytes, bytes], ...]:
    items = query.items() if isinstance(query, Mapping) else query
    return tuple((c_text(str(name), "a query name"), c_text(str(value), "a query value")) for name, value in items)


def create_uploader(*arguments: Any) -> Tuple[Any, str, UploadMode]:
    """Creates the ``vn_uploader`` for :class:`~voicenote.Uploader`'s arguments (see there); returns its handle, the
    endpoint as given and the mode. Everything is checked before anything is created.

    Raises:
        as :class:`~voicenote.Uploader`.
    """

    def make(url: bytes, options: Any) -> Any:
        handle = _capi.vn_uploader_p()
        check(_capi.vn_uploader_create(url, options, ctypes.byref(handle)))
        return handle

    return create_with_upload_options(make, *arguments)


def create_with_upload_options(
    make: Any,
    endpoint: str,
    headers: Optional[Headers],
    query: Optional[Query],
    mode: Union[UploadMode, str, int],
    url_key: Optional[str],
    ca_file: Optional[Union[str, "os.PathLike[str]"]],
    type: str,
    max_bytes: Optional[int],
    http: Optional[HTTPOptions],
    loop: Optional[EventLoop],
) -> Tuple[Any, str, UploadMode]:
    """Makes the ``vn_upload_options`` for an uploader's arguments (see :class:`~voicenote.Uploader`) and returns
    ``make(endpoint, options)`` (the C object made from them: an uploader, an outbox), the endpoint as given and the
    mode. Everything is checked before anything is created; the options are destroyed after ``make``.

    Raises:
        as :class:`~voicenote.Uploader`, and what ``make`` raises.
    """
    url = c_text(endpoint, "endpoint")
    upload_mode = UploadMode.parse(mode)
    options_given = http is not None or headers is not None or ca_file is not None
    http_options = http or HTTPOptions()
    if headers is not None:
        http_options = dataclasses.replace(
            http_options, headers=http_options.header_pairs() + HTTPOptions(headers).header_pairs())
    if ca_file is not None:
        http_options = dataclasses.replace(http_options, ca_file=ca_file)
    pairs = _query_pairs(query) if query is not None else ()
    key_arg = None if url_key is None else c_text(url_key, "url_key")
    type_arg = c_text(type, "type")
    limit = None
    if max_bytes is not None:
        limit = operator.index(max_bytes)
        if not _INT64_MIN <= limit <= _INT64_MAX:
            raise invalid_argument(f"max_bytes must be 1…{_INT64_MAX} or None, not {limit}")
    loop_handle = loop._handle_for_child() if loop is not None else None

    options = _capi.vn_upload_options_p()
    check(_capi.vn_upload_options_create(ctypes.byref(options)))
    try:
        check(_capi.vn_upload_options_set_mode(options, int(upload_mode)))
        if options_given:
            with options_handle(http_options) as http_handle:
                check(_capi.vn_upload_options_set_http(options, http_handle))
        for name, value in pairs:
            check(_capi.vn_upload_options_add_query(options, name, value))
        if key_arg is not None:
            check(_capi.vn_upload_options_set_url_key(options, key_arg))
        check(_capi.vn_upload_options_set_attachment_type(options, type_arg))
        if limit is not None:
            check(_capi.vn_upload_options_set_max_bytes(options, limit))
        if loop_handle is not None:
            check(_capi.vn_upload_options_set_event_loop(options, loop_handle))
        handle = make(url, options)
    finally:
        _capi.vn_upload_options_destroy(options)
    return handle, url.decode("utf-8"), upload_mode
