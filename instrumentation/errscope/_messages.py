"""What the model reads when a tool call fails: short, honest, actionable, and quotable.

Each class has one wording that says what to do next (DESIGN.md, "The closed vocabulary"); the
error ref ends every message so a user's screenshot leads straight to the trace. No raw exception
text is ever used: only an author's ``public_message`` (scrubbed), field paths and what the input
schema says a field must be. Argument values are never echoed (SEP-1303 wants the model to fix its
input, not to see it repeated).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

import exrex  # type: ignore[import-untyped]

from errscope._classify import Classification, FieldProblem
from errscope._foreign_text import printable, without_terminal_escapes
from errscope._scrubbing import scrub
from errscope._vocabulary import FailureClass

__all__ = [
    "MAYBE_DONE_ADVICE",
    "describe_schema",
    "expected_for_path",
    "field_sentence",
    "invalid_result_message",
    "model_message",
    "printable",
    "unknown_tool_message",
    "without_terminal_escapes",
]

MAX_PUBLIC_MESSAGE: Final = 300
"""Characters of an author's public message the model may see."""
MAX_FIELDS: Final = 5
"""Field problems named in one message; the rest are counted."""
MAX_NAME: Final = 128
"""Characters of a client-supplied name (tool, field) echoed back: the spec's bound for a tool name (MCP 2025-11-25,
Tools > Tool Names: 1 to 128 characters), so that a listed name, a gateway's prefix included, is echoed whole and two
long names never collapse into one span name."""
_MAX_PATTERN: Final = 64
"""Characters of a schema ``pattern`` read for an example or quoted in a hint."""

_ADVICE: Final = {
    FailureClass.NOT_FOUND: "Check the identifier, or ask the user for the right one.",
    FailureClass.PERMISSION_DENIED: "Do not retry; ask the user to grant access.",
    FailureClass.RATE_LIMITED: "Wait before calling again.",
    FailureClass.UPSTREAM_UNAVAILABLE: "Try again later, or use another way to reach the goal.",
    FailureClass.INVALID_INPUT: "Fix the arguments and call again.",
    FailureClass.UNKNOWN: "Do not retry blindly; tell the user and quote the reference.",
}

_SUMMARY: Final = {
    FailureClass.NOT_FOUND: "the requested item was not found",
    FailureClass.PERMISSION_DENIED: "permission denied",
    FailureClass.RATE_LIMITED: "rate limited by a backing service",
    FailureClass.UPSTREAM_UNAVAILABLE: "a backing service is unavailable",
    FailureClass.INVALID_INPUT: "the arguments were not accepted",
    FailureClass.UNKNOWN: "an unexpected error occurred",
}


# upstream_unavailable after the request reached the upstream (a read or write timeout, a connection
# dropped after sending, a 500/502/504, a downstream MCP timeout): it may have acted, so the model
# must not hear "try again later" (issue #11: the refund was applied every time).
_MAYBE_DONE: Final = "a backing service failed after it received the request"
MAYBE_DONE_ADVICE: Final = "The action may have happened: check whether it took effect before calling again."
"""What the model is told to do when a call may have taken effect (``errscope proxy`` adds it to a relayed protocol
error's message)."""
_MAYBE_DONE_IDEMPOTENT: Final = "The action may have happened; calling again is safe, repeats have no further effect."


def _clip(text: str, limit: int) -> str:
    text = " ".join(without_terminal_escapes(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return printable(text)  # echoed text is one printable line


@lru_cache(maxsize=1024)
def safe_name(name: str) -> str:
    """A client-supplied name as it may be echoed: scrubbed, one line, at most :data:`MAX_NAME` characters.

    Cached: every call names its tool, and the same few names come back all the time.
    """
    return _clip(scrub(name), MAX_NAME)


def _rate_advice(retry_after: float | None) -> str:
    if retry_after is None:
        return _ADVICE[FailureClass.RATE_LIMITED]
    return f"Wait about {max(1, round(retry_after))} s before calling again."


def _field_clause(problem: FieldProblem) -> str:
    name = f"`{safe_name(problem.path)}`"
    if problem.expected == "present":
        return f"{name} is required"
    if problem.expected == "absent":
        return f"{name} is not an accepted argument"
    if problem.expected == "unique":
        return f"{name} must be unique"
    if problem.expected:
        return f"{name} must be {problem.expected}"
    return f"{name} is not valid"


def _fields_sentence(fields: Sequence[FieldProblem]) -> str:
    clauses = [_field_clause(problem) for problem in fields[:MAX_FIELDS]]
    if len(fields) > MAX_FIELDS:
        clauses.append(f"and {len(fields) - MAX_FIELDS} more")
    return "; ".join(clauses) + "."


def model_message(tool: str, classification: Classification, error_ref: str, *, idempotent: bool = False) -> str:
    """Return the text the model reads for a failed call of ``tool``.

    Shapes: ``"<tool> failed: <what>. <advice> Ref ERR-…"``, or for invalid input
    ``"Invalid arguments for <tool>: `f` must be <expected>; …. Fix the arguments and call again. Ref ERR-…"``.
    An ``upstream_unavailable`` failure whose request may have been acted on
    (``side_effect_possible``) says so and asks to check before repeating, unless the tool is
    ``idempotent`` (``annotations.idempotentHint``, MCP spec, Tools > Tool annotations); one the upstream said when
    to retry (a 503's ``Retry-After``) says "Try again in about N s".
    """
    cls = classification.failure_class
    tool = safe_name(tool)
    summary = _SUMMARY[cls]
    advice = _rate_advice(classification.retry_after) if cls is FailureClass.RATE_LIMITED else _ADVICE[cls]
    if cls is FailureClass.UPSTREAM_UNAVAILABLE and classification.side_effect_possible:
        summary = _MAYBE_DONE
        advice = _MAYBE_DONE_IDEMPOTENT if idempotent else MAYBE_DONE_ADVICE
    elif cls is FailureClass.UPSTREAM_UNAVAILABLE and classification.retry_after is not None:
        # A 503's Retry-After says how long the service expects to be down (RFC 9110 §10.2.3): "later" made exact.
        advice = f"Try again in about {max(1, round(classification.retry_after))} s, or use another way to reach the goal."
    elif cls is FailureClass.PERMISSION_DENIED and _credentials_rejected(classification):
        # 401 is "lacks valid authentication credentials" (RFC 9110 §15.5.2: expired or revoked tokens, RFC 6750 §3.1),
        # not a refusal of who the caller is (403): granting access does not help, signing in again does.
        summary, advice = _CREDENTIALS_REJECTED, _CREDENTIALS_ADVICE
    if classification.public_message:
        what = _clip(scrub(classification.public_message), MAX_PUBLIC_MESSAGE).rstrip(".")
        return f"{tool} failed: {what}. {advice} Ref {error_ref}"
    if cls is FailureClass.INVALID_INPUT and classification.fields:
        return f"Invalid arguments for {tool}: {_fields_sentence(classification.fields)} {advice} Ref {error_ref}"
    return f"{tool} failed: {summary}. {advice} Ref {error_ref}"


_CREDENTIALS_REJECTED: Final = "a backing service rejected the credentials (missing, invalid or expired)"
_CREDENTIALS_ADVICE: Final = "Do not retry with the same credentials; the user must sign in again or renew them."
_UNAUTHENTICATED: Final = frozenset({"401", "407", "UNAUTHENTICATED"})
"""Upstream statuses that say the credentials were not valid (HTTP 401 and a proxy's 407, RFC 9110 §15.5.2 and
§15.5.8; gRPC ``UNAUTHENTICATED``, google/rpc/code.proto), as opposed to a refusal of a valid caller (403)."""


def _credentials_rejected(classification: Classification) -> bool:
    upstream = classification.upstream
    return upstream is not None and upstream.status in _UNAUTHENTICATED


def unknown_tool_message(tool: str) -> str:
    """The JSON-RPC error message for an unknown tool (MCP spec, Tools > Error Handling example)."""
    return f"Unknown tool: {safe_name(tool)}"


def invalid_result_message(tool: str, error_ref: str) -> str:
    """The text for a result that broke the tool's declared ``outputSchema``: not the model's doing.

    ``"<tool> produced an invalid result. Ref ERR-…"``. No field is named: the model cannot fix
    the tool's output, and the fields are the server's detail (they go to the log record, see
    :func:`field_sentence`).
    """
    return f"{safe_name(tool)} produced an invalid result. Ref {error_ref}"


def field_sentence(fields: Sequence[FieldProblem]) -> str:
    """``"`a` must be a number; `b` is required."``: field paths and rules, never values."""
    return _fields_sentence(fields)


_FORMATS: Final = {
    "date-time": "an ISO-8601 date-time",
    "date": "an ISO-8601 date",
    "time": "an ISO-8601 time",
    "email": "an email address",
    "uri": "a URI",
    "uuid": "a UUID",
}
_TYPES: Final = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _bound(schema: Mapping[str, Any], inclusive: str, exclusive: str) -> tuple[Any, bool] | None:
    # JSON Schema 2020-12 §6.2: exclusiveMinimum/-Maximum are numbers; "greater than", not "at least".
    for key, strict in ((exclusive, True), (inclusive, False)):
        value = schema.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value, strict
    return None


def _range(schema: Mapping[str, Any]) -> str:
    low = _bound(schema, "minimum", "exclusiveMinimum")
    high = _bound(schema, "maximum", "exclusiveMaximum")
    if low and high and not low[1] and not high[1]:
        return f" from {low[0]} to {high[0]}"
    parts = []
    if low:
        parts.append(f"greater than {low[0]}" if low[1] else f"at least {low[0]}")
    if high:
        parts.append(f"less than {high[0]}" if high[1] else f"at most {high[0]}")
    if len(parts) == 1 and not (low or high)[1]:  # type: ignore[index]
        return f" of {parts[0]}"
    return " " + " and ".join(parts) if parts else ""


def _example(schema: Mapping[str, Any]) -> str | None:
    """One value the schema accepts, to show the model: the schema's own ``examples``, else one
    derived from a simple ``pattern`` (checked to match it). Never the caller's value."""
    examples = schema.get("examples")
    if isinstance(examples, list) and examples and isinstance(examples[0], str | int | float) and not isinstance(examples[0], bool):
        return _clip(str(examples[0]), 32)
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and len(pattern) <= _MAX_PATTERN:
        return _pattern_example(pattern)
    return None


@lru_cache(maxsize=256)
def _pattern_example(pattern: str) -> str | None:
    try:
        example = next(exrex.generate(pattern, limit=2), None)
        matches = example is not None and re.search(pattern, example) is not None
    except Exception:  # noqa: BLE001 - a pattern exrex cannot read: no example, the hint stays plain
        return None
    if not matches or not example or len(example) > 32 or not all(c.isprintable() and not c.isspace() for c in example):
        return None
    return example


def describe_schema(schema: Mapping[str, Any]) -> str | None:
    """Say in a few words what a JSON Schema (2020-12) accepts: ``"an integer from 1 to 480"``.

    Only the schema is read (it is the server's own declaration), never an instance value.
    """
    if "enum" in schema and isinstance(schema["enum"], list):
        options = ", ".join(_clip(str(option), 32) for option in schema["enum"][:8])
        return f"one of: {options}"
    if "const" in schema:
        return f"exactly {_clip(str(schema['const']), 32)}"
    if isinstance(schema.get("format"), str) and schema["format"] in _FORMATS:
        example = _example(schema)
        return _FORMATS[schema["format"]] + (f" like {example}" if example else "")
    kind = schema.get("type")
    if isinstance(kind, list):
        names = [_TYPES[k] for k in kind if k in _TYPES and k != "null"]
        return " or ".join(names) if names else None
    if kind in ("integer", "number"):
        example = _example(schema)
        return _TYPES[kind] + _range(schema) + (f", e.g. {example}" if example else "")
    if kind == "string":
        low, high = schema.get("minLength"), schema.get("maxLength")
        if low is not None and high is not None:
            text = f"a string of {low} to {high} characters"
        elif low:
            text = "a non-empty string" if low == 1 else f"a string of at least {low} characters"
        elif high is not None:
            text = f"a string of at most {high} characters"
        else:
            text = _TYPES["string"]
        example = _example(schema)
        if example is not None:
            return f"{text} like {example}"
        if isinstance(schema.get("pattern"), str):
            return f"{text} matching {_clip(schema['pattern'], _MAX_PATTERN)}"
        return text
    if isinstance(kind, str) and kind in _TYPES:
        return _TYPES[kind]
    for combinator in ("anyOf", "oneOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            names = [name for option in options if isinstance(option, Mapping) for name in [describe_schema(option)] if name]
            return " or ".join(dict.fromkeys(names)) or None
    return None


def expected_for_path(schema: Mapping[str, Any] | None, path: Sequence[str | int]) -> str | None:
    """Describe what the input schema wants at ``path`` (property names and array indices)."""
    node: Any = schema
    for part in path:
        if not isinstance(node, Mapping):
            return None
        if isinstance(part, int) or (isinstance(part, str) and part.isdigit()):
            node = node.get("items")
        else:
            node = (node.get("properties") or {}).get(part)
        node = _resolve(schema, node)
    return describe_schema(node) if isinstance(node, Mapping) else None


def _resolve(root: Mapping[str, Any] | None, node: Any) -> Any:
    # Local $ref only ("#/$defs/X"), as pydantic-generated tool schemas use.
    if isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") and root:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        return target
    return node
