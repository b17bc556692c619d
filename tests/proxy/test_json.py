"""The proxy's JSON codec (:mod:`errscope.proxy._json`) gives the values the standard library gives, orjson or not."""

from __future__ import annotations

import json
import math

import pytest

from errscope.proxy import _json

pytest.importorskip("orjson")  # the cli extra installs it; without it the module is json itself

def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


READ_AS_JSON_READS = [
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"h\\u00e9"}}}',
    b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}',  # beyond 64 bits: orjson makes a float
    b'{"jsonrpc":"2.0","id":-9223372036854775809,"result":{}}',
    b'{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}',
    b'{"x":0.1000000000000000055511151231257827}',
    b'{"x":NaN,"y":-Infinity}',  # json reads these, orjson refuses them
    b'{"x":1e400}',
    b'{"x":"\\ud800"}',  # a lone surrogate escape: valid JSON text (RFC 8259 section 8.2)
    b'\xef\xbb\xbf{"x":1}',  # a byte order mark
    b'{"a":1,"a":2}',
    b'{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","id":4242424242}',  # many digits, no long run
    b'{"x":"12345678901234567890","id":1}',  # a long run inside a string
]


@pytest.mark.parametrize("data", READ_AS_JSON_READS)
def test_loads_gives_what_json_gives(data: bytes | str) -> None:
    """Every value, and every type (an int stays an int), is what json.loads reads."""
    expected, actual = json.loads(data), _json.loads(data)
    assert json.dumps(expected) == json.dumps(actual)
    assert repr(expected) == repr(actual)


@pytest.mark.parametrize("data", [b'{"x":"\xff"}', b'\xef\xbb\xbf{"x":1}', b'{"x":"caf\xc3\xa9"}'])
def test_loads_surrogateescape_reads_bytes_as_text(data: bytes) -> None:
    """An SSE event's data: bytes that are not UTF-8 kept as lone surrogates; a BOM is text, hence not JSON."""
    try:
        expected: object = json.loads(data.decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        expected = type(exc)
    try:
        actual: object = _json.loads(data, surrogateescape=True)
    except ValueError as exc:
        actual = type(exc)
    assert repr(expected) == repr(actual)


@pytest.mark.parametrize("data", [b"", b"{", b'{"x":1} trailing', b"\xff\xfe{", b"[" * 100_000])
def test_loads_refuses_what_json_refuses(data: bytes) -> None:
    """Not JSON: ValueError or RecursionError, the exceptions the relay already catches."""
    with pytest.raises((ValueError, RecursionError)):
        _json.loads(data)


@pytest.mark.parametrize(
    "value",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "h\u00e9"}]}},
        {"id": 2**70},
        {"x": math.nan, "y": math.inf},
        {"x": None},
        {"x": "\ud800"},
        {1: "non-string key"},
        _nested(300),  # deeper than orjson writes
    ],
)
def test_dumps_writes_what_json_reads_back(value: object) -> None:
    """What is written reads back (with json) as what json.dumps would have written: NaN stays NaN, not null."""
    assert repr(json.loads(_json.dumps(value))) == repr(json.loads(json.dumps(value)))


@pytest.mark.parametrize(
    "value",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": {"traceparent": "00-ab-cd-01"}}},
        {"x": "h\u00e9 \u2028", "f": [0.1, 1e-7, -0.0, 2**63 - 1]},
        {"id": 2**70},
        {"x": math.nan},
        {"x": None},
        {"x": "\ud800"},
    ],
)
def test_dumps_same_is_what_json_reads_back_or_none(value: object) -> None:
    """orjson's text where it holds the value json.dumps writes; None where json must write it (the stdio frames)."""
    data = _json.dumps_same(value)
    if data is not None:
        assert repr(json.loads(data)) == repr(json.loads(json.dumps(value)))
    else:
        assert repr(value) in (repr({"id": 2**70}), repr({"x": math.nan}), repr({"x": None}), repr({"x": "\ud800"}))
