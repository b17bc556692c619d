"""Rust servers' words (the ``rmcp`` SDK, serde, std, tokio, sqlx, reqwest/rustls) read as families, not strings.

The live server in ``tests/foreign/rust`` (``tests/foreign/test_rust_server.py``) shows each family on the wire;
these cases pin the variants one server cannot produce at once: other types, other argument names and values,
deeper paths, and the look-alikes that must not be read as rejected arguments.
"""

from __future__ import annotations

from typing import Any

import pytest

from errscope import FailureClass
from errscope._foreign_text import classify_text
from errscope.client._answer import read_text
from errscope.client._invalid_params import invalid_params_note, is_argument_rejection

SHIP: dict[str, Any] = {  # as schemars writes a nested tool input: local $refs into $defs
    "type": "object",
    "properties": {
        "address": {"$ref": "#/$defs/Address"},
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        "note": {"type": ["string", "null"]},
    },
    "required": ["address", "items"],
    "$defs": {
        "Address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                    "required": ["city", "zip"]},
        "Item": {"type": "object", "properties": {"sku": {"type": "string"},
                                                  "qty": {"type": "integer", "format": "uint32", "minimum": 0}},
                 "required": ["sku", "qty"]},
    },
}
PREFIX = "failed to deserialize parameters: "  # rmcp's Parameters<T>


@pytest.mark.parametrize(
    ("message", "arguments", "says", "never"),
    [
        # serde names a missing field bare: the one object that declares and lacks it gives the path
        ("missing field `zip`", {"address": {"city": "Lyon"}, "items": []}, "`address.zip` is required", ""),
        ("missing field `qty`", {"address": {"city": "Lyon", "zip": "69001"}, "items": [{"sku": "A", "qty": 1},
                                                                                      {"sku": "B"}]},
         "`items.1.qty` is required", ""),
        # two objects lack it: which one is unknown, the bare name stays
        ("missing field `qty`", {"address": {"city": "Lyon", "zip": "69001"}, "items": [{"sku": "A"}, {"sku": "B"}]},
         "`qty` is required", ""),
        ("missing field `items`", {"address": {"city": "Lyon", "zip": "69001"}}, "`items` is required", ""),
        # unsigned integers: -1 is an integer, but not one a u64 takes
        ("invalid value: integer `-40`, expected u64", {"address": {}, "items": [{"sku": "A", "qty": -40}]},
         "`items.0.qty` must be a non-negative integer", "-40"),
        ("invalid type: floating point `2.5`, expected usize", {"address": {}, "items": [{"sku": "A", "qty": 2.5}]},
         "`items.0.qty` must be a non-negative integer", "2.5"),
        ("invalid value: integer `-3`, expected i64", {"address": {}, "items": [{"sku": "A", "qty": -3}]},
         "`items.0.qty` must be an integer", ""),
        # containers are echoed by kind; an object that holds the wrong one is a map too, but the schema wants it
        ("invalid type: map, expected a string", {"address": {"city": {"n": "Lyon"}, "zip": "69001"}, "items": []},
         "`address.city` must be a string", "Lyon"),
        ("invalid type: sequence, expected a string", {"address": {"city": "Lyon", "zip": ["69001"]}, "items": []},
         "`address.zip` must be a string", "69001"),
        ("invalid type: map, expected a sequence", {"address": {"city": "Lyon", "zip": "69001"}, "items": {"a": 1}},
         "`items` must be an array", ""),
        # non-ASCII text is echoed as it is (Rust's Debug), not escaped as JSON would
        ('invalid type: string "Ærøskøbing", expected u32',
         {"address": {}, "items": [{"sku": "A", "qty": "Ærøskøbing"}]},
         "`items.0.qty` must be a non-negative integer", "Ærøskøbing"),
    ],
)
def test_serde_reports_name_the_argument(message: str, arguments: dict[str, Any], says: str, never: str) -> None:
    """Each serde report, with rmcp's prefix, names the argument (a path when nested) and what it must be."""
    note = invalid_params_note("ship", PREFIX + message, arguments, SHIP)
    assert says in note, note
    assert not never or never not in note, note
    assert is_argument_rejection(PREFIX + message, {"address", "items", "note"})


@pytest.mark.parametrize(
    ("message", "arguments", "says"),
    [
        # a tool's own check, as Rust (and Go) authors word it: "invalid <argument> [<value>]: <rule>"
        ('invalid order_id "parcel-17": must match ^ORD-\\d{4}$', {"order_id": "parcel-17"},
         "`order_id` must be a string matching ^ORD-\\d{4}$"),
        ("invalid weight_kg 31: must be greater than 0 and at most 30", {"weight_kg": 31},
         "`weight_kg` must be greater than 0 and at most 30"),
        ("invalid value for limit: must be at most 100", {"limit": 500}, "`limit` must be at most 100"),
        ("invalid `page_size` (0): should be at least 1", {"page_size": 0}, "`page_size` must be at least 1"),
        ("invalid email 'bob@': must match the pattern ^[^@]+@[^@]+$", {"email": "bob@"},
         "`email` must be a string matching ^[^@]+@[^@]+$"),
        ("Invalid value for 'limit': expected integer", {"limit": "lots"}, "`limit` must be an integer"),
        ("invalid argument `mode`: expected one of fast, slow", {"mode": "turbo"}, "`mode` must be one of fast, slow"),
        ("Invalid mode 'turbo': expected one of fast, slow", {"mode": "turbo"}, "`mode` must be one of fast, slow"),
        # Rust's range notation: ..= includes the end, .. does not
        ("invalid limit 500: out of range 1..=100", {"limit": 500}, "`limit` must be between 1 and 100"),
        ("invalid limit 500: not in range 1..100", {"limit": 500}, "`limit` must be at least 1 and less than 100"),
        ("Missing 'query' parameter", {"limit": 5}, "`query` is required"),
        ("missing argument `query`", {"limit": 5}, "`query` is required"),
    ],
)
def test_a_tools_own_check_names_the_argument(message: str, arguments: dict[str, Any], says: str) -> None:
    """-32602 from a tool's own check (``ErrorData::invalid_params``): the argument and its rule, never the value."""
    note = invalid_params_note("t", message, arguments)
    assert says in note, note
    for value in arguments.values():
        assert f" {value}" not in note.replace(says, ""), note


@pytest.mark.parametrize(
    "message",
    [
        "invalid token: expired",  # no rule: not an argument
        "Invalid input: expected number, received string",  # zod's own header: no argument named
        "invalid type: string \"x\", expected f64",  # serde's own header: "type" is no argument
    ],
)
def test_validator_headers_are_not_arguments(message: str) -> None:
    """The header words of validators and prose without a rule never become an argument of the note."""
    note = invalid_params_note("t", message, {"x_value": "x"})
    assert "`token`" not in note and "`type`" not in note and "`input`" not in note, note


MODES: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "mode": {"$ref": "#/$defs/Mode"}},
    "$defs": {"Mode": {"anyOf": [{"type": "string", "enum": ["fast", "slow"]}, {"type": "integer"}]}},
}


@pytest.mark.parametrize(
    ("message", "arguments", "says"),
    [
        # serde echoes no value: the length sent names the argument, or the Rust type's $defs entry does
        ("invalid length 0, expected a non-empty string", {"query": "", "mode": "fast"},
         "`query` must be a non-empty string"),
        ("data did not match any variant of untagged enum Mode", {"query": "q", "mode": "turbo"},
         "`mode` must be one of"),
        # an argument named without quotes counts only when the tool declares it
        ("query is required", {"mode": "fast"}, "`query` is required"),
        ("input contains invalid characters", {"query": "q"}, "— input contains invalid characters."),
    ],
)
def test_serde_reports_without_a_value(message: str, arguments: dict[str, Any], says: str) -> None:
    """Reports naming neither the argument nor its value still name it, from what was sent and the schema; rmcp's
    prefix never reaches the model."""
    note = invalid_params_note("search", PREFIX + message, arguments, MODES)
    assert says in note and "deserialize" not in note, note


def test_an_unquoted_word_that_is_no_argument_stays_prose() -> None:
    """"Authentication is required" names no declared argument: no "`Authentication` is required"."""
    note = invalid_params_note("search", "Authentication is required", {"query": "q"}, MODES)
    assert "`Authentication`" not in note, note


def test_a_bare_method_name_adds_nothing_to_the_note() -> None:
    """rmcp answers a tools/call it cannot decode with -32601 and the method's name as its whole message."""
    note = invalid_params_note("add", "tools/call")
    assert note == "add was rejected: invalid arguments. Fix the arguments and call again."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # panic payloads without "panicked" (catch_unwind, a JoinError's message): the tool's bug, whatever words
        ("called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }", FailureClass.UNKNOWN),
        ("called `Option::expect()` on a `None` value", FailureClass.UNKNOWN),
        ("called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound, message: \"No such file\" }",
         FailureClass.UNKNOWN),
        ("index out of bounds: the len is 0 but the index is 3", FailureClass.UNKNOWN),
        ("attempt to subtract with overflow", FailureClass.UNKNOWN),
        ("attempt to divide by zero", FailureClass.UNKNOWN),
        # tokio's timeout, rustls, sqlx and Go's database/sql
        ("deadline has elapsed", FailureClass.UPSTREAM_UNAVAILABLE),
        ("quote service: deadline has elapsed", FailureClass.UPSTREAM_UNAVAILABLE),
        ("error trying to connect: invalid peer certificate: UnknownIssuer", FailureClass.UPSTREAM_UNAVAILABLE),
        ("error trying to connect: received fatal alert: HandshakeFailure", FailureClass.UPSTREAM_UNAVAILABLE),
        ("no rows returned by a query that expected to return at least one row", FailureClass.NOT_FOUND),
        ("sql: no rows in result set", FailureClass.NOT_FOUND),
        # Debug-printed kinds in CamelCase
        ("inventory sync failed: ConnectionRefused", FailureClass.UPSTREAM_UNAVAILABLE),
        ("Io(Custom { kind: PermissionDenied, error: \"nope\" })", FailureClass.PERMISSION_DENIED),
        ("lookup failed: RowNotFound", FailureClass.NOT_FOUND),
        ("upstream said: TooManyRequests", FailureClass.RATE_LIMITED),
        ("ExportFailed", FailureClass.UNKNOWN),
        # a decoder failing on an upstream's answer is not the caller's input
        ("error decoding response body: invalid type: null, expected f64 at line 1 column 29", FailureClass.UNKNOWN),
        ("failed to parse upstream response: expected value at line 1 column 1", FailureClass.UNKNOWN),
        ("could not decode the API response: missing field `id`", FailureClass.UNKNOWN),
        # ...but the same words about the tool's own input still are
        ("invalid type: string \"x\", expected f64", FailureClass.INVALID_INPUT),
        ("invalid amount: must be positive", FailureClass.INVALID_INPUT),
    ],
)
def test_rust_failure_texts(text: str, expected: FailureClass) -> None:
    """Rust runtime and library texts land on their class."""
    assert classify_text(text) is expected


@pytest.mark.parametrize("declared", [None, frozenset({"symbol"})])
def test_an_upstream_decode_failure_is_not_a_rejection(declared: frozenset[str] | None) -> None:
    """serde's words about an upstream's body are no rejected arguments, listed tool or not."""
    text = "error decoding response body: invalid type: null, expected a string at line 1 column 42"
    assert not is_argument_rejection(text, declared)
    assert read_text(text, "price_feed", declared).failure_class is FailureClass.UNKNOWN
