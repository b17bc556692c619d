"""JSON for the relayed messages: orjson when it is installed (the ``cli`` extra), else the standard library.

Both give the same values. orjson (Rust) reads and writes an MCP message in about a fifth of the
time ``json`` takes (``bench/bench_proxy.py``), and the proxy reads every message of the host and
every answer to a request, on the path between the two sockets. Where orjson would give another
value, :mod:`json` does the work:

- reading: an integer beyond 64 bits (orjson makes it a float: every number of 19 or more digits is
  left to ``json``), ``NaN`` / ``Infinity`` and numbers beyond the double range, lone surrogate
  escapes, bytes that are not UTF-8, a byte order mark: orjson refuses them, ``json`` reads them as before;
- writing: orjson writes a non-finite float as ``null`` (any output holding ``null`` is written again
  by ``json``), and refuses integers beyond 64 bits, lone surrogates, non-string keys and deep nesting.

orjson writes UTF-8 and no spaces; ``json`` escapes non-ASCII (``\\u00e9``) and puts a space after
``:`` and ``,``. Either is the same JSON text to a reader (RFC 8259).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

try:
    import orjson
except ImportError:  # pragma: no cover - the cli extra installs it
    orjson = None  # type: ignore[assignment]

__all__ = ["dumps", "dumps_same", "loads"]

_DIGITS: Final = b"0123456789"
_LONG_NUMBER: Final = re.compile(rb"[0-9]{19}")
"""A run of digits that may be an integer orjson cannot hold (2**63 has 19 digits)."""


def loads(data: bytes, *, surrogateescape: bool = False) -> Any:
    """The value in ``data`` (JSON text in UTF-8), as :func:`json.loads` reads it.

    ``surrogateescape``: ``json`` reads bytes that are not UTF-8 as ``data.decode("utf-8",
    "surrogateescape")`` (a value with lone surrogates), not as :func:`json.loads` reads bytes.

    Raises:
        ValueError: not JSON (``json.JSONDecodeError``, or ``UnicodeDecodeError`` for bytes in no
            encoding ``json`` reads), as :func:`json.loads` raises.
        RecursionError: nested deeper than :func:`json.loads` recurses.
    """
    # Fewer than 19 digits in all (the common case, counted in C) hold no long number; else the search decides.
    if orjson is not None and (len(data) - len(data.translate(None, _DIGITS)) < 19 or not _LONG_NUMBER.search(data)):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # maybe JSON orjson refuses and json reads (NaN, a lone surrogate, a BOM): json decides
    return json.loads(data.decode("utf-8", "surrogateescape") if surrogateescape else data)


def dumps_same(value: Any) -> bytes | None:
    """``value`` as orjson writes it (UTF-8, no spaces) when that is the value :func:`json.dumps` writes; else ``None``
    (no orjson, or a value orjson refuses or would change: the caller writes it with :mod:`json` its own way)."""
    if orjson is not None:
        try:
            data = orjson.dumps(value)
        except orjson.JSONEncodeError:
            return None
        if b"null" not in data:  # a NaN or infinity orjson turned into null: json writes it as it was read
            return data
    return None


def dumps(value: Any) -> bytes:
    """``value`` as JSON text in UTF-8 (what :func:`json.dumps` writes, in fewer bytes when orjson is there)."""
    data = dumps_same(value)
    return data if data is not None else json.dumps(value).encode()
