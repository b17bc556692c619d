"""Answer frames that are not JSON-RPC instead of dropping them.

On stdio the SDK turns an unparseable line into an exception item and drops it with a debug log:
the client waits forever and nobody sees it (reference/mcp-sdk-2.3.md §2f). JSON-RPC 2.0 §5.1 says
to answer with -32700 (parse error) or -32600 (invalid request), with ``"id": null`` unless the
request's id can be read (then the caller gets its answer under that id). This wrapper
around the server's read stream does that, logs one scrubbed record with an error ref, and keeps
the connection serving. (The HTTP transports already answer -32700 themselves.)
"""

from __future__ import annotations

import logging
from typing import Any

import pydantic
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

from errscope import _attributes as attr
from errscope._refs import new_error_ref
from errscope._streams import ReceiveStreamProxy
from errscope._vocabulary import Channel, FailureClass

__all__ = ["AnswerMalformedFrames"]

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


def _code_for(error: Exception) -> int:
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
        what = "Parse error: the frame is not valid JSON" if code == PARSE_ERROR else "Invalid Request: not a JSON-RPC message"
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

