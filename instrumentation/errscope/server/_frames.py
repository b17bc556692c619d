"""Answer frames that are not JSON-RPC instead of dropping them.

On stdio the SDK turns an unparseable line into an exception item and drops it with a debug log:
the client waits forever and nobody sees it (reference/mcp-sdk-2.3.md §2f). JSON-RPC 2.0 §5.1 says
to answer with -32700 (parse error) or -32600 (invalid request), with ``"id": null`` unless the
request's id can be read (then the caller gets its answer under that id). This wrapper
around the server's read stream does that, logs one scrubbed record with an error ref, and keeps
the connection serving. (The HTTP transports already answer -32700 themselves.)

Request ids follow MCP (Basic > Messages): "Requests MUST include a string or integer ID. Unlike
base JSON-RPC, the ID MUST NOT be null." An integral number (``7.0``) is an integer (JSON Schema's
``integer``, which MCP's ``schema.json`` uses) and is served as ``7``. Every other id (null, a
fraction, a boolean, an object, an array) is answered -32600 with ``"id": null``: mcp 2.3 would
parse such a frame as a notification, dropping the id, and never answer it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import mcp_types
import pydantic
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCNotification

from errscope import _attributes as attr
from errscope._refs import new_error_ref
from errscope._streams import ReceiveStreamProxy
from errscope._vocabulary import Channel, FailureClass

__all__ = ["AnswerMalformedFrames", "ForbiddenRequestId", "apply_request_id_rule_on_stdio"]

_log = logging.getLogger("errscope")


def _request_id_of(error: Exception) -> str | int | None:
    """The id of a request whose shape is wrong but whose id can be read (JSON-RPC 2.0 §5).

    pydantic reports the parsed object as the input of a top-level "missing" error (the
    response branches of the message union), so the id is found without parsing the line again.
    Only requests (a ``method`` and a string or integer id) are answered under their id.
    """
    if not isinstance(error, pydantic.ValidationError):
        return None
    for problem in error.errors(include_url=False):
        frame = problem.get("input")
        if isinstance(frame, dict) and "method" in frame:
            request_id = frame.get("id")
            if isinstance(request_id, str | int) and not isinstance(request_id, bool):
                return request_id
    return None


class ForbiddenRequestId(ValueError):
    """A request whose ``id`` MCP forbids (null, a fraction, a boolean, an object, an array)."""


class _ParseWithIdRule:
    """The stdio server's JSON-RPC parser (a pydantic ``TypeAdapter``) with MCP's request-id rule.

    Only frames the SDK parsed as notifications are looked at again, and only when their text
    holds ``"id"``: ordinary traffic costs one substring test.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def validate_json(self, data: str | bytes, /, **kwargs: Any) -> Any:
        message = self._inner.validate_json(data, **kwargs)
        if not isinstance(message, JSONRPCNotification) or ('"id"' if isinstance(data, str) else b'"id"') not in data:
            return message
        frame = json.loads(data)
        if not isinstance(frame, dict) or "id" not in frame:
            return message
        request_id = frame["id"]
        if isinstance(request_id, float) and request_id.is_integer():
            return self._inner.validate_python({**frame, "id": int(request_id)}, **kwargs)
        raise ForbiddenRequestId(f"request id of type {type(request_id).__name__}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _TypesWithIdRule:
    """``mcp_types`` as the stdio server module sees it, with :class:`_ParseWithIdRule` as its parser."""

    def __init__(self) -> None:
        self.jsonrpc_message_adapter = _ParseWithIdRule(mcp_types.jsonrpc_message_adapter)

    def __getattr__(self, name: str) -> Any:
        return getattr(mcp_types, name)


def apply_request_id_rule_on_stdio() -> None:
    """Make the SDK's stdio server hand ids MCP forbids to :class:`AnswerMalformedFrames` (idempotent).

    mcp 2.3's ``stdio_server`` parses each line with ``mcp_types.jsonrpc_message_adapter``, looked
    up on its module at every line; the SDK offers no other seam before the id is lost. Process-wide,
    but it only changes frames the SDK would otherwise have dropped unanswered.
    """
    import mcp.server.stdio as stdio

    if not isinstance(stdio.types, _TypesWithIdRule):
        stdio.types = _TypesWithIdRule()  # type: ignore[assignment]


def _code_for(error: Exception) -> int:
    if isinstance(error, ForbiddenRequestId):
        return INVALID_REQUEST
    if isinstance(error, pydantic.ValidationError) and any(e["type"] != "json_invalid" for e in error.errors()):
        return INVALID_REQUEST
    return PARSE_ERROR


class AnswerMalformedFrames(ReceiveStreamProxy):
    """A receive stream that answers exception items on ``write_stream`` and yields only messages.

    The SDK's context stream attributes (``last_context``) come from the inner stream.
    """

    def __init__(self, inner: Any, write_stream: Any) -> None:
        super().__init__(inner)
        self._write_stream = write_stream

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._answer(item)

    async def _answer(self, error: Exception) -> None:
        code = _code_for(error)
        ref = new_error_ref()
        if isinstance(error, ForbiddenRequestId):
            what = "Invalid Request: a request id must be a string or an integer"
        elif code == PARSE_ERROR:
            what = "Parse error: the frame is not valid JSON"
        else:
            what = "Invalid Request: not a JSON-RPC message"
        _log.warning(
            "malformed frame answered",
            extra={
                attr.ERRSCOPE_ERROR_REF: ref,
                attr.ERRSCOPE_CHANNEL: Channel.PROTOCOL.value,
                attr.ERRSCOPE_FAILURE_CLASS: FailureClass.INVALID_INPUT.value,
                attr.RPC_RESPONSE_STATUS_CODE: str(code),
            },
        )
        request_id = _request_id_of(error) if code == INVALID_REQUEST else None
        answer = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=f"{what} (Ref {ref})"))
        try:
            await self._write_stream.send(SessionMessage(answer))
        except Exception:  # the peer is gone; nothing left to answer
            _log.debug("could not answer a malformed frame", exc_info=False)

