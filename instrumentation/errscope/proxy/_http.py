"""The host speaks streamable HTTP to the proxy (MCP spec, Transports > Streamable HTTP), both eras.

The proxy is a reverse proxy at the HTTP level (:mod:`errscope.proxy._relay`): every request (POST,
GET, DELETE, the OAuth metadata paths) goes to the same path on the upstream's origin with its
headers (session id, protocol version, authorization, cookies, ``Last-Event-ID``), and every answer
comes back with its status, headers and SSE event ids. Only the JSON-RPC messages of a POST, and the
answer to a POST that holds a request (a JSON body, or the ``data`` of its SSE events) pass through
:class:`~errscope.proxy._calls.Calls`; request ids are scoped per POST, the stream on which their
answers come back. Everything else (GET streams, DELETE, a POST of notifications) is relayed as bytes.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from errscope._classify import http_address
from errscope._scrubbing import scrub
from errscope.proxy import _json
from errscope.proxy._calls import Calls, Scope
from errscope.proxy._relay import MAX_BODY, Exchange, Headers, HostConnection, Relay, Request, header

__all__ = ["HttpRelay", "McpExchange"]

logger = logging.getLogger("errscope.proxy")

_WRONG_ENDPOINT = (404, 405)
"""HTTP statuses of an ``initialize`` sent to a path that is not the server's MCP endpoint."""

_PASS, _JSON, _SSE, _TOO_LARGE = range(4)
"""How an answer is relayed: as bytes, read whole (a JSON body), event by event (an SSE stream), or not at all (a JSON
body over :data:`~errscope.proxy._relay.MAX_BODY`: read and dropped, its calls answered as lost)."""


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")


class HttpRelay(Relay):
    """Relays streamable HTTP to ``upstream`` (the server's MCP endpoint URL) through ``calls``.

    Args:
        upstream: e.g. ``http://127.0.0.1:9000/mcp``; a request to ``/mcp`` on the proxy goes there,
            any other path to the same path on the upstream's origin.
        calls: the tool-call bookkeeping (its address is the upstream's ``host[:port]``).
    """

    def __init__(self, upstream: str, calls: Calls) -> None:
        super().__init__(upstream)
        self.upstream = upstream
        self.calls = calls
        self.unreachable_said = False
        """The host's log was told the upstream cannot be reached; said again once it has answered."""
        self.wrong_endpoint_said = False
        """The host's log was told ``initialize`` reached no MCP endpoint; said again after one that did."""

    @staticmethod
    def address(upstream: str) -> str | None:
        return http_address(upstream)

    def exchange(self, host: HostConnection, request: Request) -> Exchange:
        if request.method != b"POST" or not request.body:
            return Exchange(host, request)  # no JSON-RPC message in it: bytes as they are
        return McpExchange(host, request, self)


class McpExchange(Exchange):
    """A POST of JSON-RPC messages and its answer, read where a request of the host may be answered."""

    def __init__(self, host: HostConnection, request: Request, relay: HttpRelay) -> None:
        super().__init__(host, request)
        self.relay = relay
        self.calls = relay.calls
        self.scope = Scope(session_id=_text(header(request.headers, b"mcp-session-id")),
                           protocol_version=_text(header(request.headers, b"mcp-protocol-version")))
        self.mode = _PASS
        self._pending = b""
        self._skipping = False
        """Inside an SSE event over MAX_BODY: dropped up to the blank line that ends it."""
        self._held: tuple[int, bytes, Headers] | None = None
        self._chunks: list[bytes] = []
        self._held_size = 0
        self._initialize = False
        """The POST holds the host's ``initialize``: a refusal of it is said on the proxy's log."""

    def body(self) -> bytes:
        body = self.request.body
        try:
            decoded = _json.loads(body)
        except (ValueError, RecursionError):
            return body  # the server answers -32700 itself, over HTTP
        if not isinstance(decoded, list):  # one message (always, since 2025-06-18)
            self._initialize = isinstance(decoded, dict) and decoded.get("method") == "initialize"
            forwarded = self.calls.from_host(self.scope, decoded)
            return body if forwarded is decoded else _json.dumps(forwarded)
        batch = [self.calls.from_host(self.scope, message) for message in decoded]
        if all(a is b for a, b in zip(batch, decoded)):
            return body
        return _json.dumps(batch)

    # -- the answer ------------------------------------------------------------------------------
    def begin(self, status: int, reason: bytes, headers: Headers) -> None:
        self.relay.unreachable_said = False
        if self._initialize and status not in _WRONG_ENDPOINT:
            self.relay.wrong_endpoint_said = False
        elif self._initialize and not self.relay.wrong_endpoint_said:
            # The host sees the status and that no session opened; what to fix belongs in the proxy's log, once until
            # an initialize is answered otherwise (a host retries it). A path goes to the same path on the upstream,
            # so either --upstream or the host's URL names the wrong one.
            self.relay.wrong_endpoint_said = True
            url = urlsplit(self.relay.upstream)
            path = self.request.target.decode("latin-1").split("?", 1)[0]
            logger.error("the MCP server at %s answered initialize with HTTP %d %s; check that --upstream is the"
                         " server's MCP endpoint, path included (streamable HTTP servers commonly serve /mcp), and"
                         " that the host calls the proxy at that same path",
                         scrub(f"{url.scheme}://{url.netloc}{path}"), status, scrub(reason.decode("latin-1")))
        for entry in self.scope.in_flight.values():
            entry.sent = True
        content_type = (header(headers, b"content-type") or b"").lower()
        if not (self.scope.in_flight or self.scope.cancelled):
            super().begin(status, reason, headers)  # no answer the proxy must see can come
        elif content_type.startswith(b"text/event-stream"):
            self.mode = _SSE
            self.write_head(status, reason, headers, None)
        elif content_type.startswith(b"application/json"):
            self.mode, self._held = _JSON, (status, reason, headers)
        else:
            super().begin(status, reason, headers)

    def data(self, chunk: bytes) -> None:
        if self.mode == _TOO_LARGE:
            return
        if self.mode == _JSON:
            self._held_size += len(chunk)
            self._chunks.append(chunk)
            if self._held_size > MAX_BODY:  # held whole to be read: bounded, as a request body is
                logger.warning("an answer from the MCP server longer than %d bytes was dropped; its calls are answered"
                               " as lost", MAX_BODY)
                self.mode, self._chunks = _TOO_LARGE, []
        elif self.mode == _SSE:
            # An event ends at a blank line; lines end in LF or CRLF (WHATWG HTML, Server-sent events).
            pending = (self._pending + chunk).replace(b"\r\n", b"\n")
            if self._skipping:
                end = pending.find(b"\n\n")
                if end < 0:
                    self._pending = pending[-1:]  # half of a CRLF or of the blank line
                    return
                self._skipping, pending = False, pending[end + 2:]
            *events, self._pending = pending.split(b"\n\n")
            if len(self._pending) > MAX_BODY:  # still open past the bound: dropped up to its blank line
                self._skipping, self._pending = True, self._pending[-1:]
            kept = [event for event in events if len(event) <= MAX_BODY]
            dropped = self._skipping or len(kept) < len(events)
            if dropped:
                logger.warning("an event from the MCP server longer than %d bytes was dropped", MAX_BODY)
            if kept:
                changed = [self._event(event) for event in kept]
                if any(changed) or dropped:
                    self.write_body(b"".join(new or event + b"\n\n" for new, event in zip(changed, kept)))
                else:  # the events as they came
                    self.write_body(pending[: len(pending) - len(self._pending)])
        else:
            super().data(chunk)

    def end(self) -> None:
        if self.mode == _TOO_LARGE:
            if not self._answer_lost(sent=True):
                super().lost(sent=True)
            self.calls.abandon(self.scope)
            return
        if self.mode == _JSON:
            assert self._held is not None
            raw = self._from_server(b"".join(self._chunks))
            status, reason, headers = self._held
            self.write_head(status, reason, headers, len(raw))
            self.write_body(raw)
        elif self.mode == _SSE and self._pending.strip() and not self._skipping:  # the stream ended inside an event
            self.write_body(self._event(self._pending) or self._pending + b"\n\n")
        self.finish()
        self.calls.abandon(self.scope)

    def lost(self, *, sent: bool) -> None:
        if sent:
            logger.warning("the MCP server at %s closed the connection before it answered; it may have acted on the"
                           " request", scrub(self.relay.upstream))
        elif not self.relay.unreachable_said:
            # Once until a connection is made again: every request fails the same way while the server is down.
            exc = self.relay.connect_error
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            logger.warning("cannot reach the MCP server at %s (%s); requests are answered as not sent until it answers:"
                           " check --upstream and that the server is running", scrub(self.relay.upstream), reason)
            self.relay.unreachable_said = True
        if self.answered and self.mode == _SSE:
            for answer in self.calls.lost(self.scope):
                self.write_body(b"event: message\ndata: " + _json.dumps(answer) + b"\n\n")
            self.finish()
        elif self.answered:
            super().lost(sent=sent)
        elif not self._answer_lost(sent=sent):
            super().lost(sent=sent)
        self.calls.abandon(self.scope)

    def _answer_lost(self, *, sent: bool) -> bool:
        """Answer the POST with one lost-call answer per request in flight (``sent``: whether they reached the server);
        ``False`` when none was in flight."""
        for entry in self.scope.in_flight.values():
            entry.sent = sent
        answers = self.calls.lost(self.scope)
        if not answers:
            return False
        body = _json.dumps(answers if len(answers) > 1 else answers[0])
        self.write_head(200, b"OK", [(b"content-type", b"application/json")], len(body))
        self.write_body(body)
        self.finish()
        return True

    def host_gone(self) -> None:
        super().host_gone()
        self.calls.abandon(self.scope)

    def _from_server(self, raw: bytes) -> bytes:
        if not raw:
            return raw
        try:
            decoded = _json.loads(raw)
        except (ValueError, RecursionError):  # also nested deeper than the reader recurses
            logger.warning("a malformed JSON body from the server was relayed as it is (%d bytes)", len(raw))
            return raw
        messages = decoded if isinstance(decoded, list) else [decoded]
        answers = [self.calls.from_server(self.scope, message) for message in messages]
        if all(a is b for a, b in zip(answers, messages)):
            return raw
        return _json.dumps(answers if isinstance(decoded, list) else answers[0])

    def _event(self, event: bytes) -> bytes | None:
        """One SSE event (WHATWG HTML, Server-sent events) with its ``data`` rewritten, other fields kept;
        ``None`` when it goes on as it came."""
        if not (self.scope.in_flight or self.scope.cancelled):
            return None  # no answer left that the proxy reads
        lines = event.split(b"\n")
        data = b"\n".join([line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")])
        # An empty data (a stream's priming event) holds no message.
        if data.strip():
            try:
                message = _json.loads(data, surrogateescape=True)  # bytes that are not UTF-8 pass unchanged
            except (ValueError, RecursionError):
                message = None
            if message is not None:
                answer = self.calls.from_server(self.scope, message)
                if answer is not message:
                    kept = [line for line in lines if not line.startswith(b"data:")]
                    return b"\n".join([*kept, b"data: " + _json.dumps(answer)]) + b"\n\n"
        return None
