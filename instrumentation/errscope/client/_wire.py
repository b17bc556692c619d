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
frames that failed to parse, and the end of the stream. Whether a ``-32000``/``-32001`` came from
the peer or from the SDK itself is decided here: only a frame on the wire is the peer's.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import anyio
from mcp.client._transport import Transport, TransportStreams
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from errscope._streams import ReceiveStreamProxy

__all__ = ["CURRENT_ATTEMPT", "WireAttempt", "WireTap"]

_TRACE_KEYS = ("traceparent", "tracestate", "baggage")


@dataclass(slots=True, eq=False)
class WireAttempt:
    """What the wire did for one ``tools/call`` attempt."""

    trace_meta: dict[str, str] = field(default_factory=dict)
    request_id: Any = None
    cancel_reason: str | None = None
    reason_for_cancel: Callable[[], str | None] | None = None
    cancels_sent: int = 0
    response_frames: int = 0
    error_frame: bool = False
    late_frames: int = 0
    finished: bool = False
    on_late: Callable[[], None] | None = None


CURRENT_ATTEMPT: contextvars.ContextVar[WireAttempt | None] = contextvars.ContextVar(
    "errscope_client_attempt", default=None
)


class WireTap:
    """Per-connection wire observer; :meth:`wrap` puts it around a transport."""

    def __init__(self) -> None:
        self.outstanding: dict[Any, WireAttempt | None] = {}
        self.recent: dict[Any, WireAttempt] = {}
        self.stray_responses = 0
        self.garbage_frames = 0
        self.closed = False
        self.frames_out: list[dict[str, Any]] = []
        self.frames_in: list[dict[str, Any]] = []
        self.record_frames = False
        self.listeners: list[Callable[[str], None]] = []

    def _emit(self, event: str) -> None:
        for listener in list(self.listeners):
            listener(event)

    # -- write side ---------------------------------------------------------------------------
    def on_send(self, item: SessionMessage) -> SessionMessage:
        message = item.message
        attempt = CURRENT_ATTEMPT.get()
        if isinstance(message, JSONRPCRequest):
            key = coerce_request_id(message.id)
            if attempt is not None and message.method == "tools/call":
                attempt.request_id = message.id
                self.outstanding[key] = attempt
                self.recent[key] = attempt
                if len(self.recent) > 4096:
                    self.recent.pop(next(iter(self.recent)))
                params = dict(message.params or {})
                meta = {k: v for k, v in dict(params.get("_meta") or {}).items() if k not in _TRACE_KEYS}
                meta.update(attempt.trace_meta)
                params["_meta"] = meta
                item = SessionMessage(message=message.model_copy(update={"params": params}), metadata=item.metadata)
            else:
                self.outstanding[key] = None
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            params = dict(message.params or {})
            target = params.get("requestId")
            if attempt is not None and target is not None and attempt.request_id is not None:
                if coerce_request_id(target) == coerce_request_id(attempt.request_id):
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
    def on_receive(self, item: SessionMessage | Exception) -> None:
        if self.record_frames and not isinstance(item, Exception):
            self.frames_in.append(item.message.model_dump(by_alias=True, exclude_none=True))
        if isinstance(item, Exception):
            self.garbage_frames += 1
            self._emit("garbage_frame")
            return
        message = item.message
        if isinstance(message, (JSONRPCResponse, JSONRPCError)):
            if message.id is None:
                self.stray_responses += 1
                self._emit("stray_response")
                return
            key = coerce_request_id(message.id)
            if key in self.outstanding:
                attempt = self.outstanding.pop(key)
                if attempt is not None:
                    attempt.response_frames += 1
                    attempt.error_frame = isinstance(message, JSONRPCError)
                    if attempt.finished:
                        attempt.late_frames += 1
                        if attempt.on_late is not None:
                            attempt.on_late()
                return
            late = self.recent.get(key)
            if late is not None and late.finished:
                late.late_frames += 1
                if late.on_late is not None:
                    late.on_late()
                return
            self.stray_responses += 1
            self._emit("stray_response")

    def forget(self, attempt: WireAttempt) -> None:
        """The attempt ended: a response for its id from now on is late, not pending."""
        attempt.finished = True
        if attempt.request_id is not None:
            self.outstanding.pop(coerce_request_id(attempt.request_id), None)

    def wrap(self, transport: Transport) -> Transport:
        """Return a transport whose streams pass through this tap."""
        tap = self

        @asynccontextmanager
        async def wrapped() -> AsyncIterator[TransportStreams]:
            async with transport as (read, write):
                yield _TapRead(read, tap), _TapWrite(write, tap)

        return wrapped()


class _TapWrite:
    def __init__(self, inner: Any, tap: WireTap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(self._tap.on_send(item))

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
            self._tap.closed = True
            self._tap._emit("closed")
            raise
        self._tap.on_receive(item)
        received: SessionMessage | Exception = item
        return received
