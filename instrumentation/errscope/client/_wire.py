"""A tap on the client's transport streams: the seam the SDK lacks (no client middleware).

The SDK's dispatcher writes in the caller's task, so the write side sees the attempt that is
sending (a :class:`contextvars.ContextVar`) and can:

- learn the JSON-RPC id of the attempt's ``tools/call``;
- set the trace keys of ``params._meta`` (errscope's span, or the caller's own ``traceparent``
  kept verbatim; baggage only through the allow-list) after the SDK's own injection;
- count the ``notifications/cancelled`` it sends for that id and put the real reason in it
  ("timeout after 5s" rather than the SDK's "caller cancelled").

The read side sees every frame before the dispatcher does and records what the dispatcher would
only debug-log: responses for ids nobody waits for (late answers after a timeout, wrong ids),
frames that failed to parse, bytes that are not text, and the end of the stream. It changes one
thing: a ``tools/list`` page loses the tools whose definitions the SDK would reject, and a ``tools/call``
result the content blocks it would reject, since the SDK rejects either whole
(:func:`errscope.client._catalog.usable_listing`, :func:`usable_result`). Whether an
error frame is the peer's is decided by how it arose, never by its code or text:

- on streamable HTTP the SDK stands in for answers it could not read (an unparseable body, an
  HTTP error status without a JSON-RPC body, a broken event stream) with error frames it builds
  itself. Every frame it read off the wire went through its parser first, which
  :func:`observe_http_parsing` marks; an unmarked error frame is the SDK's, not the server's.
- on stdio the SDK builds no frames: a line that does not parse arrives as an exception item,
  and bytes that are not UTF-8 are replaced (the :data:`UNDECODABLE` codec error handler) and
  counted, where the SDK's default ``strict`` handler would kill its reader and wedge the session.
- on either, a frame shaped like a response (an ``id``, a ``result`` or ``error``, no ``method``) that
  breaks the JSON-RPC schema (an error ``code`` that is not an integer, no ``message``) would reach
  the SDK as an exception without its id, and its call would wait for the timeout; errscope stands
  in for it under its id instead (:func:`stand_in_for_broken_response`), like the SDK's own
  stand-ins, so the call ends at once as an answer that could not be read.

Every table here is bounded and emptied by its owner or by time (:mod:`errscope._tables`); a tap
lives exactly as long as its connection.
"""

from __future__ import annotations

import codecs
import contextvars
import json
import logging
import typing
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final

import anyio
from mcp.client._transport import Transport, TransportStreams
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types import (
    INTERNAL_ERROR,
    PROTOCOL_VERSION_META_KEY,
    ContentBlock,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)
from mcp_types.methods import validate_server_result

from errscope._classify import Classification
from errscope._streams import ReceiveStreamProxy
from errscope._tables import Table, expiring_table, owned_table, track
from errscope.client._catalog import usable_listing

__all__ = [
    "CURRENT_ATTEMPT",
    "CURRENT_TAP",
    "UNDECODABLE",
    "WireAttempt",
    "WireTap",
    "observe_http_parsing",
    "observe_stdio_parsing",
    "stand_in_for_broken_response",
]

logger = logging.getLogger("errscope.client")

_TRACE_KEYS = ("traceparent", "tracestate", "baggage")
_BOM: Final = "\ufeff"
_MAX_RECENT = 4096
"""Attempts that ended without their answer, whose late answers are recognised, per connection."""
_RECENT_TTL = 300.0
"""Seconds such an attempt's late answer is still recognised as late (then it is stray)."""
_MAX_OTHER = 1024
_OTHER_TTL = 600.0
"""Bounds for ids of requests other than tools/call (tools/list...), which no attempt owns."""


@dataclass(slots=True, eq=False)
class WireAttempt:
    """What the wire did for one ``tools/call`` attempt."""

    trace_meta: dict[str, str] = field(default_factory=dict)
    request_id: Any = None
    written: bool = False
    """The ``tools/call`` was handed to the transport's writer: from then on it may reach the server. Until then
    (the writer still busy with earlier messages) a timeout or a closed connection leaves it unsent."""
    cancel_reason: str | None = None
    reason_for_cancel: Callable[[], str | None] | None = None
    cancels_sent: int = 0
    response_frames: int = 0
    error_frame: bool = False
    """The peer answered with a JSON-RPC error frame."""
    answer: dict[str, Any] | None = None
    """The ``result`` of the peer's answer, as received (before the SDK's own follow-up requests)."""
    stand_in_frame: bool = False
    """The SDK answered for the peer: an error frame it built because it could not read the answer."""
    session_ended: bool = False
    """The server answered that the session no longer exists: the request was not processed."""
    transport_failure: Classification | None = None
    """The HTTP request carrying the attempt failed in transport (reset, refused, pool timeout)."""
    http_status: int | None = None
    """The HTTP status of the POST carrying the attempt (streamable HTTP)."""
    http_retry_after: float | None = None
    """Its ``Retry-After`` header in seconds (RFC 9110 §10.2.3: delay-seconds or an HTTP-date)."""
    gateway_not_forwarded: bool = False
    """The POST's 5xx answer (no JSON-RPC body) was a gateway's saying it never reached the server behind it
    (:func:`errscope.client._answer.gateway_never_forwarded`)."""
    http_redirect: int | None = None
    """The status of the last answer to the attempt's POST when it was a redirect (3xx): the SDK follows a POST's
    307/308 within the origin up to its budget, so a redirect that is the last answer was not followed (another origin,
    a 301/302 a POST may not follow, a loop) and the request reached no tool."""
    undelivered: bool = False
    """The request certainly never reached the tool (set by the attempt once it has ended)."""
    held: bool = False
    """The circuit breaker held the attempt back: nothing was sent."""
    late_frames: int = 0
    finished: bool = False
    on_late: Callable[[], None] | None = None
    late: Any = None
    """The attempt's :class:`~errscope.client._late.LateWatch`, made when it ended without its answer."""


CURRENT_ATTEMPT: contextvars.ContextVar[WireAttempt | None] = contextvars.ContextVar(
    "errscope_client_attempt", default=None
)


CURRENT_TAP: contextvars.ContextVar[weakref.ref[WireTap] | None] = contextvars.ContextVar(
    "errscope_client_tap", default=None
)
"""The tap of the connection whose task is running: the transport's reader tasks inherit it. Held
weakly: a context copied into a task or timer that outlives the connection must not keep its tap."""

UNDECODABLE: Final = "errscope.undecodable"
"""Codec error handler for a stdio server's output: U+FFFD for each undecodable sequence, counted on
:data:`CURRENT_TAP` (Python ``codecs.register_error``)."""


def _undecodable(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError | UnicodeEncodeError):
        raise error
    if isinstance(error, UnicodeEncodeError):  # our own text (a lone surrogate): never the peer's fault
        return "?", error.end
    ref = CURRENT_TAP.get()
    tap = ref() if ref is not None else None
    if tap is not None:
        tap.on_undecodable()
    return "\ufffd", error.end


codecs.register_error(UNDECODABLE, _undecodable)


class WireTap:
    """Per-connection wire observer; :meth:`wrap` puts it around a transport.

    Args:
        stand_ins_possible: the transport may build error frames itself (streamable HTTP through
            an observed parser, :func:`observe_http_parsing`); only marked error frames are the peer's.
    """

    def __init__(self, *, stand_ins_possible: bool = False) -> None:
        self.stand_ins_possible = stand_ins_possible
        self.outstanding = owned_table(Table.WIRE_PENDING)  # tools/call attempts: forget() empties it
        self.other_requests = expiring_table(Table.WIRE_PENDING, maxsize=_MAX_OTHER, ttl=_OTHER_TTL)
        self.recent = expiring_table(Table.WIRE_RECENT, maxsize=_MAX_RECENT, ttl=_RECENT_TTL)
        self.stray_responses = 0
        self.garbage_frames = 0
        self.undecodable = 0
        self.stand_ins = 0
        self.closed = False
        self.frames_out: list[dict[str, Any]] = []
        self.frames_in: list[dict[str, Any]] = []
        self.record_frames = False
        self.protocol_version = "2025-11-25"
        """The era the peer speaks, as learnt from ``initialize`` or a request's ``_meta`` (for reading listings)."""
        self.offered_version: str | None = None
        """The version the server's ``initialize`` answer named, whether or not the SDK speaks it."""
        self.handshake_status: int | None = None
        """The HTTP error status of a POST no call attempt carried (the handshake), when one came."""
        self.handshake_error: ErrorData | None = None
        """The error that answered ``initialize``, when one did."""
        self.listeners: list[Callable[[str], None]] = []
        track(Table.CONNECTIONS, self)

    def _emit(self, event: str) -> None:
        for listener in list(self.listeners):
            listener(event)

    # -- write side ---------------------------------------------------------------------------
    def on_send(self, item: SessionMessage) -> SessionMessage | None:
        """Record what ``item`` says; returns what is written, or ``None`` for nothing (a cancel of an unsent request)."""
        message = item.message
        attempt = CURRENT_ATTEMPT.get()
        if isinstance(message, JSONRPCRequest):
            key = coerce_request_id(message.id)
            if attempt is not None and message.method == "tools/call":
                attempt.request_id = message.id
                self.outstanding[key] = attempt
                params = message.params
                if params is None:
                    item = SessionMessage(
                        message=message.model_copy(update={"params": {"_meta": dict(attempt.trace_meta)}}),
                        metadata=item.metadata,
                    )
                else:
                    # The SDK builds each request's params and _meta for that one write: its _meta is
                    # replaced in place, with no model copied per call.
                    meta = params.get("_meta")
                    meta = {k: v for k, v in meta.items() if k not in _TRACE_KEYS} if isinstance(meta, dict) else {}
                    meta.update(attempt.trace_meta)
                    params["_meta"] = meta
            else:
                self.other_requests[key] = message.method
                version = ((message.params or {}).get("_meta") or {}).get(PROTOCOL_VERSION_META_KEY)
                if isinstance(version, str):  # 2026-07-28: every request names its era
                    self.protocol_version = version
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            params = dict(message.params or {})
            target = params.get("requestId")
            if attempt is not None and target is not None and attempt.request_id is not None:
                if coerce_request_id(target) == coerce_request_id(attempt.request_id):
                    if not attempt.written:
                        # MCP, Cancellation: only a request previously issued is cancelled; this one never left.
                        return None
                    attempt.cancels_sent += 1
                    reason = attempt.reason_for_cancel() if attempt.reason_for_cancel else None
                    attempt.cancel_reason = reason or params.get("reason")
                    if reason:
                        params["reason"] = reason
                        item = SessionMessage(
                            message=message.model_copy(update={"params": params}), metadata=item.metadata
                        )
        if self.record_frames:
            self.frames_out.append(item.message.model_dump(by_alias=True, exclude_none=True))
        return item

    # -- read side ----------------------------------------------------------------------------
    def on_receive(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        """Record what ``item`` says; returns the item the SDK gets (a ``tools/list`` page without its broken tools)."""
        if self.record_frames and not isinstance(item, Exception):
            self.frames_in.append(item.message.model_dump(by_alias=True, exclude_none=True))
        if isinstance(item, Exception):
            self.garbage_frames += 1
            self._emit("garbage_frame")
            return item
        message = item.message
        if isinstance(message, (JSONRPCResponse, JSONRPCError)):
            if message.id is None:
                self.stray_responses += 1
                self._emit("stray_response")
                return item
            key = coerce_request_id(message.id)
            attempt = self.outstanding.pop(key, None)  # the common case first: a plain dict, no lock
            if attempt is not None:
                attempt.response_frames += 1
                # The answer first: its exact class is a C check, where the error model's is an ABC's
                # __instancecheck__ (pydantic's metaclass), a Python call.
                if isinstance(message, JSONRPCResponse):
                    attempt.error_frame = False
                    item = usable_result(item, self.protocol_version)
                    attempt.answer = item.message.result  # type: ignore[union-attr]
                elif _stood_in(message.error) or (
                    self.stand_ins_possible and not _read_off_the_wire(message.error)
                ):
                    attempt.stand_in_frame = True
                    self.stand_ins += 1
                    self._emit("unreadable_answer")
                else:
                    attempt.error_frame = True
                if attempt.finished:
                    attempt.late_frames += 1
                    if attempt.on_late is not None:
                        attempt.on_late()
                return item
            method = self.other_requests.pop(key, _ABSENT)
            if method == "tools/list" and isinstance(message, JSONRPCResponse):
                return usable_listing(item, self.protocol_version)
            if method == "initialize" and isinstance(message, JSONRPCError):
                self.handshake_error = message.error
            if method == "initialize" and isinstance(message, JSONRPCResponse):
                version = message.result.get("protocolVersion")
                if isinstance(version, str):
                    self.protocol_version = self.offered_version = version
            if method is not _ABSENT:
                return item
            late = self.recent.get(key)
            if late is not None and late.finished:
                late.late_frames += 1
                if late.on_late is not None:
                    late.on_late()
                return item
            self.stray_responses += 1
            self._emit("stray_response")
        return item

    def unanswered(self, method: str) -> bool:
        """Whether a request of ``method`` other than ``tools/call`` went out and got no answer (yet)."""
        return method in self.other_requests.values()

    def session_ended(self, *, refused_the_call: bool) -> None:
        """The server has ended the session (HTTP 404 to it): the connection is lost, the next call re-opens one.

        Runs in the sending task (the SDK's HTTP transport posts in its sender's context), so the
        attempt that met it is :data:`CURRENT_ATTEMPT`. Only when the 404 answered the POST that carried that
        attempt (``refused_the_call``) was the call not processed; a 404 to a later request of the attempt (the
        ``Last-Event-ID`` GET resuming its stream, SEP-1699) comes after the server took the call, which may have run.
        """
        attempt = CURRENT_ATTEMPT.get()
        if attempt is not None and refused_the_call:
            attempt.session_ended = True
        if not self.closed:
            self.closed = True
            self._emit("session_ended")

    def on_undecodable(self) -> None:
        """The peer wrote bytes that are not text in the stream's encoding: a protocol fault."""
        self.undecodable += 1
        self._emit("undecodable_bytes")
        if self.undecodable == 1:  # one record per connection; the count says how often
            logger.warning("tool server wrote bytes that are not UTF-8; replaced with U+FFFD")

    def forget(self, attempt: WireAttempt) -> None:
        """The attempt ended: a response for its id from now on is late, not pending.

        Only an attempt that ended without its answer (a timeout, a cancel) can get a late one, so
        only such an attempt goes into :attr:`recent`; an answered one costs no table write.
        """
        attempt.finished = True
        if attempt.request_id is not None and attempt.response_frames == 0:  # an answer took it out already
            key = coerce_request_id(attempt.request_id)
            self.outstanding.pop(key, None)
            self.recent[key] = attempt

    def wrap(self, transport: Transport) -> Transport:
        """Return a transport whose streams pass through this tap."""
        tap = self

        @asynccontextmanager
        async def wrapped() -> AsyncIterator[TransportStreams]:
            token = CURRENT_TAP.set(weakref.ref(tap))  # before the transport starts its reader tasks
            try:
                async with transport as (read, write):
                    yield _TapRead(read, tap), _TapWrite(write, tap)
            finally:
                CURRENT_TAP.reset(token)

        return wrapped()


_ABSENT = object()

_peer_errors: dict[int, weakref.ref[ErrorData]] = {}
"""Error objects the SDK's HTTP client parsed off the wire, by ``id()``, held weakly."""


def _mark_read_off_the_wire(error: ErrorData) -> None:
    key = id(error)
    _peer_errors[key] = weakref.ref(error, lambda _ref: _peer_errors.pop(key, None))


def _read_off_the_wire(error: ErrorData) -> bool:
    ref = _peer_errors.get(id(error))
    return ref is not None and ref() is error


_stand_ins: dict[int, weakref.ref[ErrorData]] = {}
"""Error objects errscope built for broken response frames, by ``id()``, held weakly."""


def _stood_in(error: ErrorData) -> bool:
    ref = _stand_ins.get(id(error))
    return ref is not None and ref() is error


def stand_in_for_broken_response(raw: str | bytes) -> JSONRPCError | None:
    """The stand-in error frame for ``raw``, a frame that failed the JSON-RPC schema, if it is a response.

    A response is a JSON object with an ``id`` (a string or an integer: JSON-RPC 2.0 §5 and MCP's request
    ids) and a ``result`` or ``error`` member, and no ``method``; an array holding one such object (a batch
    answer, though batches left MCP in 2025-06-18 and the client sends none) stands for it. Its stand-in is
    a ``-32603`` error for that id whose message names no part of the frame (the frame is the peer's words).
    Returns ``None`` for anything else (not JSON, a request or notification, no usable id): that stays a
    garbage frame. Sources: leehack/mcp_dart PR #240 and yjacquin/fast-mcp PR #83 (error objects without an
    integer code or a message), gensecaihq/Wazuh-MCP-Server #59 (answers wrapped in an array); SDK clients
    dropped such frames and the call waited for its timeout.
    """
    try:
        frame = json.loads(raw)
    except (ValueError, RecursionError):  # also nested deeper than the reader recurses
        return None
    if isinstance(frame, list) and len(frame) == 1:
        frame = frame[0]
    if not isinstance(frame, dict) or "method" in frame or not ({"result", "error"} & frame.keys()):
        return None
    request_id = frame.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    error = ErrorData(code=INTERNAL_ERROR, message="The server's answer is not a valid JSON-RPC response.")
    key = id(error)
    _stand_ins[key] = weakref.ref(error, lambda _ref: _stand_ins.pop(key, None))
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


_CONTENT_TYPES: Final = frozenset(
    literal for block in typing.get_args(ContentBlock) for literal in typing.get_args(block.model_fields["type"].annotation)
)
"""The content block types the SDK's schema knows (``text``, ``image``, ``audio``, ``resource_link``, ``resource``)."""


def usable_result(item: SessionMessage, version: str) -> SessionMessage:
    """A ``tools/call`` response without the content blocks of types the SDK's schema does not know.

    The SDK validates a result as a whole, so one block of a type it does not know (a newer spec's, or a
    server's own) would turn the whole answer into "could not read", and an ``isError`` text beside it would
    be lost (openai/codex #33404: "Unexpected response type" for a ``resource_link``). Such blocks are
    dropped, with a warning naming their type, when the rest then validates; otherwise (or when every block
    is of a known type: the common case, one scan and no copy) the result is passed on untouched, and the
    SDK's own check decides.
    """
    message = item.message
    assert isinstance(message, JSONRPCResponse)
    content = message.result.get("content")
    if not isinstance(content, list):
        return item
    for block in content:  # the common case: every block of a known type, no set built
        if isinstance(block, dict) and block.get("type") not in _CONTENT_TYPES:
            break
    else:
        return item
    unknown = {str(block.get("type"))[:64] for block in content if isinstance(block, dict) and block.get("type") not in _CONTENT_TYPES}
    kept = [block for block in content if not isinstance(block, dict) or block.get("type") in _CONTENT_TYPES]
    result = {**message.result, "content": kept}
    try:
        validate_server_result("tools/call", version, result)
    except (KeyError, ValueError):  # still broken (pydantic's ValidationError is a ValueError), or an unknown era
        return item
    logger.warning("content blocks of types %s left out of a tools/call result: the MCP schema has no such type", sorted(unknown))
    return SessionMessage(message=message.model_copy(update={"result": result}), metadata=item.metadata)


def _without_lone_surrogates(raw: str | bytes) -> str | None:
    """``raw``, a JSON text, re-serialised with each lone surrogate replaced by U+FFFD; ``None`` when it has
    none or is not JSON.

    ``"\\ud800"`` alone is valid JSON (RFC 8259 section 8.2 allows unpaired surrogate escapes) that the
    SDK's parser (pydantic's jiter) refuses as a whole frame: the answer would be lost for one character.
    The standard library's parser reads it; a paired escape is already one character by then.
    """
    try:
        text = json.dumps(json.loads(raw), ensure_ascii=False)
    except (ValueError, RecursionError):
        return None
    repaired = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return repaired if repaired != text else None


class _MarkingParser:
    """The SDK's JSON-RPC parser (a pydantic ``TypeAdapter``), marking each error object it reads and
    standing in for a response frame that breaks the schema (:func:`stand_in_for_broken_response`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def validate_json(self, data: Any, /, **kwargs: Any) -> Any:
        try:
            message = self._inner.validate_json(data, **kwargs)
        except ValueError:  # pydantic's ValidationError and JSON decoding errors alike
            repaired = _without_lone_surrogates(data)
            if repaired is not None:
                return self.validate_json(repaired, **kwargs)
            stand_in = stand_in_for_broken_response(data)
            if stand_in is None:
                raise
            return stand_in
        if isinstance(message, JSONRPCError):
            _mark_read_off_the_wire(message.error)
        return message

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def observe_http_parsing() -> None:
    """Mark every error frame mcp's streamable HTTP client reads off the wire (idempotent, process-wide).

    mcp 2.3's ``mcp.client.streamable_http`` parses every server body and event with its module's
    ``jsonrpc_message_adapter``, and keeps the parsed error object when it re-addresses an error
    (an error body at an HTTP error status, an SSE answer); its stand-ins are built with the
    constructor. Marking changes nothing the SDK does.
    """
    import mcp.client.streamable_http as http

    if not isinstance(http.jsonrpc_message_adapter, _MarkingParser):
        http.jsonrpc_message_adapter = _MarkingParser(http.jsonrpc_message_adapter)  # type: ignore[assignment]


def observe_stdio_parsing() -> None:
    """Stand in for broken response frames on mcp's stdio client (idempotent, process-wide).

    mcp 2.3's ``mcp.client.stdio`` parses each line with its module's ``_parse_line``, which returns an
    exception (without the frame's id) for a line that fails the schema; the wrapper returns the
    stand-in of :func:`stand_in_for_broken_response` for a response-shaped line instead.
    """
    import mcp.client.stdio as stdio

    parse = getattr(stdio, "_parse_line", None)
    if parse is None or getattr(parse, "errscope_stand_ins", False):
        return

    def parse_line(line: str) -> SessionMessage | Exception:
        parsed = parse(line)
        if isinstance(parsed, Exception):
            if line.startswith(_BOM):
                # RFC 8259 §8.1: a parser MAY ignore a byte order mark; Windows consoles write one before their
                # first output, which would cost the answer it prefixes (often ``initialize``'s).
                return parse_line(line.lstrip(_BOM))
            repaired = _without_lone_surrogates(line)
            if repaired is not None:
                return parse_line(repaired)
            stand_in = stand_in_for_broken_response(line)
            if stand_in is not None:
                return SessionMessage(stand_in)
        return parsed

    parse_line.errscope_stand_ins = True  # type: ignore[attr-defined]
    stdio._parse_line = parse_line


class _TapWrite:
    def __init__(self, inner: Any, tap: WireTap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, item: SessionMessage, /) -> None:
        tapped = self._tap.on_send(item)
        if tapped is None:
            return
        await self._inner.send(tapped)  # with a busy writer this waits, and a deadline can cancel it here
        attempt = CURRENT_ATTEMPT.get()
        if attempt is not None and attempt.request_id is not None:
            attempt.written = True

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc, tb)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _TapRead(ReceiveStreamProxy):
    def __init__(self, inner: Any, tap: WireTap) -> None:
        super().__init__(inner)
        self._tap = tap

    async def receive(self) -> SessionMessage | Exception:
        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._closed()
            raise
        received: SessionMessage | Exception = self._tap.on_receive(item)
        return received

    async def __anext__(self) -> SessionMessage | Exception:
        # The SDK's reader iterates the stream: read here, not through receive(), one coroutine fewer a message.
        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            self._closed()
            raise StopAsyncIteration from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._closed()
            raise
        received: SessionMessage | Exception = self._tap.on_receive(item)
        return received

    def _closed(self) -> None:
        self._tap.closed = True
        self._tap._emit("closed")
