"""Hints the model can act on: each JSON Schema keyword becomes words, and no argument value is echoed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from errscope._messages import describe_schema, field_sentence
from errscope._validation import ArgumentValidator

INVOICE = {"type": "string", "pattern": r"^INV-\d{6}$"}


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": "number", "exclusiveMinimum": 0}, "a number greater than 0"),
        ({"type": "number", "exclusiveMaximum": 1, "minimum": 0}, "a number at least 0 and less than 1"),
        ({"type": "integer", "minimum": 1, "maximum": 480}, "an integer from 1 to 480"),
        ({"type": "integer", "minimum": 1}, "an integer of at least 1"),
        ({"type": "string", "minLength": 2, "maxLength": 8}, "a string of 2 to 8 characters"),
        ({"type": "string", "examples": ["INV-000123"], **INVOICE}, "a string like INV-000123"),
        ({"type": "string", "format": "date", "examples": ["2026-01-31"]}, "an ISO-8601 date like 2026-01-31"),
        ({"enum": ["EUR", "USD"]}, "one of: EUR, USD"),
        ({"const": "v1"}, "exactly v1"),
    ],
)
def test_keyword_wording(schema: dict[str, Any], words: str) -> None:
    assert describe_schema(schema) == words


def test_pattern_becomes_an_example_that_matches_it() -> None:
    """Without ``examples``, a simple pattern yields an example string, checked against the pattern."""
    words = describe_schema(INVOICE)
    assert words is not None and words.startswith("a string like INV-")
    assert re.fullmatch(INVOICE["pattern"], words.removeprefix("a string like "))


def test_pattern_without_a_clean_example_is_quoted() -> None:
    """A pattern whose first example would be whitespace is named, not illustrated."""
    assert describe_schema({"type": "string", "pattern": "^[^@]+@[^@]+$"}) == "a string matching ^[^@]+@[^@]+$"


SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "invoice_id": INVOICE},
    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        ({"a": "SECRET-A", "b": "SECRET-B"}, "`arguments` must be given with exactly one of a or b (oneOf)."),
        ({"a": "x", "zzz": "SECRET-Z"}, "`zzz` is not an accepted argument."),
        ({"a": "x", "invoice_id": "SECRET-123"}, "`invoice_id` must be a string like INV-000000."),
    ],
)
def test_whole_object_rules_are_named_without_values(arguments: dict[str, Any], sentence: str) -> None:
    text = field_sentence(ArgumentValidator().problems(SCHEMA, arguments))
    assert text == sentence
    assert "SECRET" not in text
