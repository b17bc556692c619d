"""MCP, JSON-RPC and tool errors: JSON-RPC codes (JSON-RPC 2.0 §5.1, MCP's -32002), the SDK's ``MCPError`` and
``ToolError``, errscope's ``ToolFailure``, pydantic's argument validation.
"""

from __future__ import annotations

import pydantic
from typing import Any, Final

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
)

from errscope._classify._core import Classification, FieldProblem, RESOURCE_NOT_FOUND, Upstream, _UNKNOWN, classify
from errscope._exceptions import InvalidInput, RateLimited, ToolFailure
from errscope._foreign_text import (
    classify_text,
    data_texts,
    failed_after_sending,
    json_error_message,
    names_ended_session,
    names_no_cause,
    retry_after_from_text,
)
from errscope._vocabulary import FailureClass


_JSONRPC_CLASSES: Final = {
    PARSE_ERROR: FailureClass.INVALID_INPUT,
    INVALID_REQUEST: FailureClass.INVALID_INPUT,
    INVALID_PARAMS: FailureClass.INVALID_INPUT,
    METHOD_NOT_FOUND: FailureClass.NOT_FOUND,
    RESOURCE_NOT_FOUND: FailureClass.NOT_FOUND,
    INTERNAL_ERROR: FailureClass.UNKNOWN,
    REQUEST_TIMEOUT: FailureClass.UPSTREAM_UNAVAILABLE,
    CONNECTION_CLOSED: FailureClass.UPSTREAM_UNAVAILABLE,
    REQUEST_CANCELLED: FailureClass.UPSTREAM_UNAVAILABLE,
}


def class_for_jsonrpc_code(code: int) -> FailureClass:
    """Map a JSON-RPC error code (JSON-RPC 2.0 §5.1, MCP spec "Error Codes") to a class.

    -32001/-32000 are the SDK's local timeout and closed connection; a peer using that band for
    something else is indistinguishable by code alone (reference/mcp-sdk-2.3.md, pitfall 10). -32800 is the
    SDK's answer to a request cancelled on the server's side (``mcp.server.streamable_http.REQUEST_CANCELLED``):
    received for a call this client did not cancel, a gateway or the server gave up on it while it ran
    (mindstone/Super-MCP #1, tests/heldout_cases.md J92), so the service did not complete it.
    """
    return _JSONRPC_CLASSES.get(code, FailureClass.UNKNOWN)


def class_for_jsonrpc_error(code: int, message: str, data: Any = None) -> FailureClass:
    """The class of a JSON-RPC error: by its code, else by its message, else by what its ``data`` says.

    -32603 and the implementation-defined band name no class, and gateways reuse the SDKs' own -32000/-32001
    for other failures (a relayed "Connection closed", a 404 "Session not found"): then the message is read
    with the rules a foreign tool's error text is read with (``classify_text``), so one failure gets one class
    whether the client, ``errscope proxy`` or a gateway's tool (an ``MCPError`` from its upstream) meets it.
    A generic message ("Internal error", "Tool execution failed") leaves the cause to ``data``
    (:func:`~errscope._foreign_text.data_texts`: rmcp's ``internal_error(msg, Some(json!({"error": ...})))``).
    """
    failure_class = class_for_jsonrpc_code(code)
    if code not in (INVALID_PARAMS, METHOD_NOT_FOUND) and names_ended_session(message):
        # the session the request was sent in is gone (mcp's -32600 "Session not found" with its 404, the client's own
        # "Session terminated"; :data:`~errscope._foreign_text._SESSION_ENDED`): the server behind is out of reach
        # until a new session is set up, not the caller's invalid request
        return FailureClass.UPSTREAM_UNAVAILABLE
    if failure_class is FailureClass.UNKNOWN or code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
        from_text = classify_text(message)
        if from_text is not FailureClass.UNKNOWN and not names_no_cause(message):
            return from_text
        for said in data_texts(data):
            from_data = classify_text(json_error_message(said) or said)
            if from_data is not FailureClass.UNKNOWN:
                return from_data
        if from_text is not FailureClass.UNKNOWN:
            return from_text
    return failure_class


def _tool_failure(exc: BaseException) -> Classification:
    assert isinstance(exc, ToolFailure)
    upstream = None
    if exc.upstream_status or exc.upstream_system:
        upstream = Upstream(exc.upstream_system, exc.upstream_status)
    fields: tuple[FieldProblem, ...] = ()
    if isinstance(exc, InvalidInput) and exc.field:
        fields = (FieldProblem(exc.field, exc.expected),)
    cause = classify(exc.__cause__) if exc.__cause__ is not None else None
    return Classification(
        exc.failure_class,
        retry_after=exc.retry_after if isinstance(exc, RateLimited) else (cause.retry_after if cause else None),
        upstream=upstream or (cause.upstream if cause else None),
        public_message=exc.public_message,
        fields=fields,
        side_effect_possible=cause.side_effect_possible if cause else None,
    )


def _pydantic_validation(exc: BaseException) -> Classification:
    # Raised inside the tool (upstream data, its own models) or by an output check: the model's
    # arguments were fine, so it is not invalid_input. The argument-validation seams of the
    # frameworks wrap theirs (see _mcp_tool_error, the FastMCP adapter): argument_problems.
    return _UNKNOWN


def argument_problems(exc: pydantic.ValidationError) -> Classification:
    """``invalid_input`` naming each wrong field, for a ``ValidationError`` of the *arguments*.

    Only an argument-validation seam calls this (where the error arose decides, not its text): a
    framework validating the call's arguments before the tool runs. Never echoes a value.
    """
    fields = tuple(
        FieldProblem(".".join(str(part) for part in error["loc"]) or "arguments", _PYDANTIC_EXPECTED.get(error["type"]))
        for error in exc.errors(include_input=False, include_url=False)
    )
    return Classification(FailureClass.INVALID_INPUT, fields=fields)


# pydantic error types -> what the value must be (https://docs.pydantic.dev/latest/errors/validation_errors/)
_PYDANTIC_EXPECTED: Final = {
    "missing": "present",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "datetime_type": "an ISO-8601 date-time",
    "datetime_parsing": "an ISO-8601 date-time",
    "date_parsing": "an ISO-8601 date",
}


def _mcp_tool_error(exc: BaseException) -> Classification | None:
    # MCPServer wraps everything in ToolError/UnexpectedToolError; the cause says what happened.
    # Its argument validation (Tool.run) is the one plain ToolError over a pydantic error: the
    # caller's arguments; an UnexpectedToolError over one is the tool's body or its output.
    if type(exc) is ToolError and isinstance(exc.__cause__, pydantic.ValidationError):
        return argument_problems(exc.__cause__)
    return tool_error_text(exc)


def tool_error_text(exc: BaseException) -> Classification | None:
    """A ``ToolError`` (MCPServer's or FastMCP's): its cause says what happened; a bare one is only text.

    That text is what the tool's author wrote for the model, and it reaches a client (or ``errscope
    proxy``) as the ``isError`` text: it is read with the client's rules (``classify_text``, and
    ``failed_after_sending`` for whether the upstream may have acted), so one failure gets one reading wherever
    errscope sits.
    """
    if exc.__cause__ is not None:
        return None
    text = str(exc)
    if text.startswith("Unknown tool"):
        return Classification(FailureClass.NOT_FOUND)
    # An upstream API's JSON error document passed on as the message: the model reads its innermost message.
    said = json_error_message(text) or text
    cls = classify_text(said)
    retry_after = retry_after_from_text(text) if cls is FailureClass.RATE_LIMITED else None
    acted = True if cls is FailureClass.UPSTREAM_UNAVAILABLE and failed_after_sending(said) else None
    return Classification(cls, retry_after=retry_after, side_effect_possible=acted, public_message=said)


def _mcp_error(exc: BaseException) -> Classification:
    assert isinstance(exc, MCPError)
    failure_class = class_for_jsonrpc_error(exc.code, exc.error.message, exc.error.data)
    if exc.code not in (INVALID_PARAMS, METHOD_NOT_FOUND) and names_ended_session(exc.error.message):
        return Classification(failure_class, side_effect_possible=False)  # refused for its session: nothing ran
    return Classification(failure_class, side_effect_possible=_JSONRPC_SENT.get(exc.code))


# Whether a JSON-RPC error leaves the request's effect open: the peer refused it before running
# (the -327xx codes, resource not found), or it was sent and the answer never came (the SDK's local
# timeout -32001 and closed connection -32000, a cancellation -32800 mid-run) or the peer failed while
# running it (-32603).
_JSONRPC_SENT: Final = {
    PARSE_ERROR: False,
    INVALID_REQUEST: False,
    METHOD_NOT_FOUND: False,
    INVALID_PARAMS: False,
    RESOURCE_NOT_FOUND: False,
    INTERNAL_ERROR: True,
    REQUEST_TIMEOUT: True,
    CONNECTION_CLOSED: True,
    REQUEST_CANCELLED: True,
}
