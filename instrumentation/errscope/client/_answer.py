"""Reading a failed tool call's answer back: what an errscope peer declared, and the rule for everyone else's text.

An errscope server (or ``errscope proxy``) puts its verdict in the result's ``_meta`` or the error's ``data``
(:mod:`errscope._attributes`, ``io.errscope/*``): class, ref, retry-after, whether the call may have taken
effect. Every reader of an answer (the client's shaping, the proxy, the instrumentor's span, the server seam
for a tool's own ``isError`` result) reads those fields here, with the same checks: a class outside the closed
set, a ref without the ref's shape or a non-boolean flag counts as absent, because each is echoed to the
model or a span.

Text from a peer that declared nothing is read by one rule, in one order (:func:`read_text`): an unknown-tool
message naming this tool, then an argument rejection (:func:`is_argument_rejection`), then the text classifier.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

from errscope._attributes import META_ERROR_REF, META_FAILURE_CLASS, META_RETRY_AFTER, META_SIDE_EFFECT_POSSIBLE
from errscope._classify import delay_seconds
from errscope._foreign_text import (
    MESSAGE_KEYS,
    about_the_result,
    classify_text,
    failed_after_sending,
    json_error_message,
    never_reached,
    relays_ended_session,
)
from errscope._http import CDN_ORIGIN_NOT_REACHED
from errscope._refs import ERROR_REF_PATTERN
from errscope._vocabulary import FailureClass
from errscope.client._invalid_params import is_argument_rejection, names_this_tool_unknown

__all__ = [
    "TextReading",
    "as_float",
    "declared_class",
    "error_ref",
    "error_texts",
    "names_the_session",
    "not_run",
    "reached_and_failed",
    "read_text",
    "refusal_may_have_run",
    "retry_after",
    "side_effect_possible",
    "strict_response",
    "text_of",
    "wrapped_protocol_error",
]


def declared_class(fields: Mapping[str, Any]) -> FailureClass | None:
    """The failure class an errscope peer put in ``_meta``/``data``, if it is one of the closed set."""
    value = fields.get(META_FAILURE_CLASS)
    try:
        return FailureClass(value) if isinstance(value, str) else None
    except ValueError:
        return None


def error_ref(fields: Mapping[str, Any]) -> str | None:
    """The peer's error ref, only if it has the ref's shape: it is echoed to the model and put on the span,
    so a peer's arbitrary string must not ride along."""
    value = fields.get(META_ERROR_REF)
    return value if isinstance(value, str) and ERROR_REF_PATTERN.fullmatch(value) else None


def side_effect_possible(fields: Mapping[str, Any]) -> bool | None:
    """Whether the peer said the call may have taken effect; ``None`` when it said nothing (or not a boolean)."""
    value = fields.get(META_SIDE_EFFECT_POSSIBLE)
    return value if isinstance(value, bool) else None


_REJECTED_BEFORE_DISPATCH: Final = frozenset({PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS})
"""JSON-RPC 2.0 §5.1: errors about the request as received; the method was never invoked."""


def not_run(code: int, data: Any) -> bool:
    """Whether a peer's JSON-RPC error proves the tool did not run: the peer said so
    (``side_effect_possible: false`` in ``data``), or the code rejects the request itself (-32700,
    -32600, -32601, -32602). Any other code (-32603, the -32000 band, application codes) may come
    after the tool ran: FastMCP's ``ErrorHandlingMiddleware`` turns every tool exception into one."""
    declared = side_effect_possible(data) if isinstance(data, Mapping) else None
    if declared is not None:
        return not declared
    return code in _REJECTED_BEFORE_DISPATCH


def reached_and_failed(code: int, data: Any, failure_class: FailureClass, message: str) -> bool:
    """Whether a peer's JSON-RPC error of class ``failure_class`` leaves the call's effect open: it is
    ``upstream_unavailable``, its code or the peer's word does not prove the tool did not run (:func:`not_run`), and its
    ``message`` does not say the upstream was never reached (a gateway's -32603 over its downstream's -32001 timeout
    may have acted, tests/heldout_cases.md J481; a -32603 for "spawnSync kubectl ENOENT" did not, J302). The client
    and ``errscope proxy`` tell the model so."""
    return failure_class is FailureClass.UPSTREAM_UNAVAILABLE and not not_run(code, data) and not never_reached(message)


def retry_after(fields: Mapping[str, Any]) -> float | None:
    """The peer's ``retry_after`` in seconds (a number or numeric string), as :func:`delay_seconds` bounds it."""
    return delay_seconds(as_float(fields.get(META_RETRY_AFTER)))


def as_float(value: Any) -> float | None:
    """A number or numeric string as a float; ``None`` for anything else (booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def strict_response(message: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """A peer's JSON-RPC response as a strict reader must receive it, read the way a lax reader reads it.

    A lax reader (the Python SDK's pydantic models) takes a code written as ``-32602.0`` or ``"-32602"`` for
    -32602 and ``isError: "true"`` for true; a strict one (the TypeScript SDK's ``z.number().int()`` and
    ``z.boolean()``) drops the frame and its caller waits for a timeout. So: an integral number or decimal-integer
    string as ``error.code`` becomes that integer (JSON-RPC 2.0 §5.1: "MUST be an integer"), the strings
    ``"true"``/``"false"`` as ``result.isError`` become booleans, and a ``null`` ``result`` or ``error`` beside the
    other member is absent (JSON-RPC 2.0 §5: one of them, never both; encoders that write both with one null). A
    real ``result`` beside a real ``error`` is the error: the peer reported a failure. Returns the response and
    whether a result was dropped that way (something ran: the call may have taken effect). Anything else passes
    as it came: ``message`` itself when nothing changed.
    """
    response = dict(message)
    for member, other in (("result", "error"), ("error", "result")):
        if member in response and response[member] is None and response.get(other) is not None:
            del response[member]
    dropped = isinstance(response.get("error"), Mapping) and response.get("result") is not None
    if dropped:
        del response["result"]
    error = response.get("error")
    if isinstance(error, Mapping) and not isinstance(error.get("code"), int):
        code = _integral(error.get("code"))
        if code is not None:
            response["error"] = {**error, "code": code}
    result = response.get("result")
    if isinstance(result, Mapping) and isinstance(result.get("isError"), str):
        flag = result["isError"].strip().lower()
        if flag in ("true", "false"):
            response["result"] = {**result, "isError": flag == "true"}
    # The very object when nothing changed (a relay writes an unchanged frame byte for byte). Compared member by
    # member by identity: -32602.0 == -32602 in Python.
    unchanged = response.keys() == message.keys() and all(response[key] is message[key] for key in response)
    return (message if unchanged else response), dropped


_SESSION: Final = re.compile(r"\bsession\b", re.IGNORECASE)
MAX_REFUSAL_BODY: Final = 64 * 1024
"""Bytes of an HTTP refusal's body read for its JSON-RPC error (a refusal is a line; anything longer is not one)."""


def names_the_session(body: bytes) -> bool:
    """Whether an HTTP 400 body is a JSON-RPC error about the session: the answer servers built from the TypeScript
    SDK's stateful examples give to a session id they do not know, where the spec says 404 (MCP, Transports > Session
    Management; typescript-sdk #1476, punkpeye/fastmcp #121: -32000 "Bad Request: No valid session ID provided")."""
    if len(body) > MAX_REFUSAL_BODY:
        return False
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    error = message.get("error") if isinstance(message, dict) else None
    said = error.get("message") if isinstance(error, dict) else None
    return isinstance(said, str) and _SESSION.search(said) is not None


def gateway_never_forwarded(status: int, page: str) -> bool:
    """Whether a gateway's 5xx answer without a JSON-RPC body says the request never reached the server behind it.

    ``status`` is the HTTP status, ``page`` the start of its body as text. True for a CDN's origin-connection statuses
    (:data:`errscope._http.CDN_ORIGIN_NOT_REACHED`) and for a 502 or 503 whose page says the gateway could not connect
    to or find the server (:func:`~errscope._foreign_text.never_reached`: Envoy's "reset reason: connection failure" and
    "no healthy upstream", HAProxy's "No server is available to handle this request", a refused or unresolved
    upstream). A 504 (RFC 9110 §15.6.5: the upstream did not answer in time) and a page that says nothing of the kind
    stay "may have run" (J77): nginx's bare "502 Bad Gateway" is also its answer to an upstream that died mid-request.
    """
    if status in CDN_ORIGIN_NOT_REACHED:
        return True
    return status in (502, 503) and bool(page) and never_reached(page)


def refusal_may_have_run(status: int, page: str) -> bool:
    """Whether a request the MCP endpoint answered with the HTTP error ``status`` may have been acted on: the one rule
    for ``ToolClient`` and ``errscope proxy`` (``page``: the start of the answer's body, read for a 502 or 503).

    A 4xx refuses the request as a whole (RFC 9110 §15.5: a dead session's 404, a 401, a 429; nothing ran). A 5xx,
    503 included, may come after the request was forwarded and acted on (J77: a gateway's 503 or 502 once its upstream
    reset mid-request, Envoy's "reset reason: connection termination"), unless the gateway says it never reached the
    server (:func:`gateway_never_forwarded`). Not retried on a 5xx alone, a tool that declares nothing runs once.
    """
    return status >= 500 and not gateway_never_forwarded(status, page)


def _integral(value: Any) -> int | None:
    """An integral float or a decimal-integer string as an int; ``None`` for anything else (booleans included)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d{1,10}\s*", value):
        return int(value)
    return None


def error_texts(message: str, data: Any) -> tuple[str, ...]:
    """The texts a JSON-RPC error says something in: its ``message``, and its ``data`` when that is a string.

    ``data`` holds "additional information about the error" (JSON-RPC 2.0, section 5.1); some SDKs put the
    specifics there and keep the message generic (the Java SDK: message ``Unknown tool: invalid_tool_name``,
    data ``Tool not found: <name>``), or in a text field of an object ``data`` (hermes-mcp: message ``Invalid params``,
    data ``{"message": "Tool not found: <name>"}``; the Swift SDK: ``{"detail": ...}``).
    """
    if isinstance(data, str) and data:
        return (message, data)
    if isinstance(data, Mapping):  # {"message": "Tool not found: x"} (hermes-mcp), {"detail": ...} (Swift SDK)
        said = tuple(data[key] for key in _DATA_TEXT_KEYS if isinstance(data.get(key), str) and data[key])
        return (message, *said)
    return (message,)


_DATA_TEXT_KEYS: Final = (*MESSAGE_KEYS, "error")  # and a bare string under ``error``


def text_of(content: Iterable[Any] | None, structured: Any = None) -> str:
    """The text a result's ``content`` holds, one block per line: SDK objects or the wire's dicts alike.

    Text blocks come first, then the text of embedded text resources: an embedded resource is content the model
    reads like a text block (MCP 2025-11-25, Tools > Embedded Resources), and a tool may tell its failure only there
    (its build log; charmbracelet/crush PR #3907). Images, audio, resource links and blobs hold no text to read.

    A result with no such text but a ``structuredContent`` reads as that value's JSON: the serialized copy
    in a text block is only a SHOULD (MCP 2025-11-25, Tools > Structured Content), and an error body that
    lives only there must still be read and shown (langchain-mcp-adapters #619).
    """
    texts, embedded = [], []
    for block in content or ():
        text = _field(block, "text")
        if isinstance(text, str):
            texts.append(text)
        elif isinstance(resource_text := _field(_field(block, "resource"), "text"), str):
            embedded.append(resource_text)
    texts += embedded
    if not texts and structured is not None:
        return json.dumps(structured, ensure_ascii=False, default=str)
    return "\n".join(texts)


def _field(value: Any, name: str) -> Any:
    """``value[name]`` for the wire's dicts, ``value.name`` for SDK objects; ``None`` when absent."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


_SDK_WRAPPED_ERROR: Final = re.compile(r"^\s*MCP error (-?\d+):\s*(.*)", re.S)
"""The TypeScript SDK's wording of a JSON-RPC error (``McpError``), which its server puts in an ``isError`` result when a
``tools/call`` handler refuses the call (typescript-sdk #1510)."""


def wrapped_protocol_error(text: str) -> tuple[int, str] | None:
    """The code and message of a protocol error the TypeScript SDK wrapped into an ``isError`` text, else ``None``."""
    match = _SDK_WRAPPED_ERROR.match(text)
    return (int(match.group(1)), match.group(2)) if match else None


@dataclass(frozen=True, slots=True)
class TextReading:
    """What a peer's failure text says, read by :func:`read_text`."""

    failure_class: FailureClass
    unknown_tool: bool = False
    """The text says this tool does not exist (re-list; the protocol channel, MCP spec, Tools > Error Handling)."""
    arguments_rejected: bool = False
    """The text rejects the call's arguments (the one sanctioned crossing: :func:`invalid_params_note`)."""
    side_effect_possible: bool | None = None
    """``True`` when the text says an upstream may have acted before the failure
    (:func:`~errscope._foreign_text.failed_after_sending`);
    ``None``: it does not say."""


def read_text(text: str, tool: str | None, declared_arguments: Collection[str] | None = None) -> TextReading:
    """Read a failure text from a peer that declared no class.

    Args:
        text: the ``isError`` result's text or the JSON-RPC error's message.
        tool: the called tool's name (a message naming another tool is this tool's own failure).
        declared_arguments: the tool's declared argument names, when listed.
    """
    if tool is not None and names_this_tool_unknown(text, tool):
        return TextReading(FailureClass.NOT_FOUND, unknown_tool=True)
    if about_the_result(text):
        # a check of what the tool returned failed after it ran (its server's own bug): no argument to fix, and the
        # tool may have acted (the reading errscope gives its own output-schema check, J21)
        return TextReading(FailureClass.UNKNOWN, side_effect_possible=True)
    if is_argument_rejection(text, declared_arguments):
        return TextReading(FailureClass.INVALID_INPUT, arguments_rejected=True)
    # An upstream API's JSON error document: its innermost message and codes say what happened, not the envelope
    # (OpenAI's ``invalid_request_error`` type around an ``invalid_api_key`` code).
    # ... except where the envelope is what says the text is about an MCP session (relays_ended_session)
    said = text if relays_ended_session(text) else (json_error_message(text) or text)
    failure_class = classify_text(said)
    maybe_acted = failure_class is FailureClass.UPSTREAM_UNAVAILABLE and failed_after_sending(said)
    return TextReading(failure_class, side_effect_possible=True if maybe_acted else None)
