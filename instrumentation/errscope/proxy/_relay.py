"""A reverse HTTP/1.1 relay on asyncio Protocols: every request of the host to one upstream origin, its answer back.

Both directions are parsed by httptools (llhttp, Node's HTTP parser); the relay only frames what it
writes. A request is read whole (the body too: MCP bodies are small JSON-RPC messages), then written
to a kept-alive upstream connection in one write; the answer is written to the host as the upstream's
bytes arrive, in the same turn of the loop (no task, no queue between the two sockets), so a relayed
call costs two wake-ups and four socket operations. Whatever one turn writes goes out in one write.

:class:`Exchange` relays one request and its answer byte for byte (``bench.http_passthrough``
measures exactly that: the floor of ``errscope proxy`` over HTTP); subclasses read what they must
(:class:`errscope.proxy._http.McpExchange`).

Framing (RFC 9112): hop-by-hop fields (RFC 9110 §7.6.1) are not forwarded, nor ``Host``,
``Content-Length``, ``Transfer-Encoding``, ``Expect`` or the encodings (the upstream is asked for an
identity body so that a subclass can read it). The body to the upstream always has a
``Content-Length``; an answer keeps the upstream's ``Content-Length`` when it passes through unchanged,
else it is sent chunked (to an HTTP/1.0 host: ended by closing the connection). Field names are
passed on in lower case, as HTTP/2 sends them (they are case-insensitive, RFC 9110 §5.1).
"""

from __future__ import annotations

import asyncio
import collections
import ssl
import time
from typing import Final
from urllib.parse import urlsplit

import httptools

__all__ = ["Exchange", "Relay", "Request"]

Headers = list[tuple[bytes, bytes]]

NOT_FORWARDED: Final = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te", b"trailer", b"upgrade", b"host",
     b"content-length", b"accept-encoding", b"content-encoding", b"expect"}
)
KEEPALIVE_SECONDS: Final = 4.0
"""An idle upstream connection is dropped before the usual 5 s server keep-alive (Node, uvicorn) ends it."""
CONNECT_SECONDS: Final = 10.0
_NO_BODY: Final = frozenset({204, 304})
_BAD_REQUEST: Final = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
MAX_BODY: Final = 64 * 1024 * 1024
"""Bytes of one request body (read whole, in memory): a longer one is answered 413 and its connection closed, as a
stdio frame longer than this is dropped. The MCP SDK's servers refuse bodies over 4 MiB themselves; unbounded, one
400 MiB POST grew the proxy by 1.1 GiB."""
_TOO_LARGE: Final = b"HTTP/1.1 413 Content Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class _TooLarge(Exception):
    """Raised from a parser callback to stop reading a body over :data:`MAX_BODY`."""


def header(headers: Headers, name: bytes) -> bytes | None:
    """The first value of field ``name`` in ``headers`` (names are kept in lower case, as HTTP/2 sends them)."""
    for key, value in headers:
        if key == name:
            return value
    return None


class Request:
    """One request of the host, read whole."""

    __slots__ = ("body", "headers", "http11", "keep_alive", "method", "target")

    def __init__(self, method: bytes, target: bytes, headers: Headers, body: bytes, *, keep_alive: bool, http11: bool) -> None:
        self.method, self.target, self.headers, self.body = method, target, headers, body
        self.keep_alive, self.http11 = keep_alive, http11


class Exchange:
    """One request of the host and the upstream's answer, relayed byte for byte.

    The upstream connection calls :meth:`begin`, :meth:`data` and :meth:`end` as the answer is parsed,
    or :meth:`lost` (``sent``: whether the request was written to the upstream) when none or only
    part of it came; the host connection calls :meth:`host_gone` when the host hangs up first.
    Subclasses override these to read what they must and call the ``write_*`` methods.
    """

    def __init__(self, host: HostConnection, request: Request) -> None:
        self.host = host
        self.request = request
        self.upstream: UpstreamConnection | None = None
        self.answered = False
        """The answer's head was written to the host."""
        self.chunked = False

    def body(self) -> bytes:
        """The body to forward (a subclass may rewrite it)."""
        return self.request.body

    # -- from the upstream ---------------------------------------------------------------------------
    def begin(self, status: int, reason: bytes, headers: Headers) -> None:
        length = header(headers, b"content-length")
        self.write_head(status, reason, headers, None if length is None else int(length))

    def data(self, chunk: bytes) -> None:
        self.write_body(chunk)

    def end(self) -> None:
        self.finish()

    def lost(self, *, sent: bool) -> None:
        if not self.answered:
            self.write_head(502, b"Bad Gateway", [], 0)
            self.finish()
        elif self.chunked:
            self.finish()  # the stream ends where the upstream's did
        else:
            self.host.abort()  # a body shorter than its length: the host must see it cut

    def host_gone(self) -> None:
        if self.upstream is not None:
            self.upstream.abort()

    # -- to the host ---------------------------------------------------------------------------------
    def write_head(self, status: int, reason: bytes, headers: Headers, length: int | None) -> None:
        """The status line and ``headers`` (hop-by-hop fields left out); ``length`` ``None``: chunked."""
        lines = [b"HTTP/1.1 %d %s\r\n" % (status, reason)]
        lines.extend(b"%s: %s\r\n" % field for field in headers if field[0] not in NOT_FORWARDED)
        if length is not None:
            lines.append(b"content-length: %d\r\n" % length)
        elif not (self.request.method == b"HEAD" or status in _NO_BODY):
            if self.request.http11:
                self.chunked = True
                lines.append(b"transfer-encoding: chunked\r\n")
            else:
                self.request.keep_alive = False  # HTTP/1.0: the body ends where the connection does
        if not self.request.keep_alive:
            lines.append(b"connection: close\r\n")
        lines.append(b"\r\n")
        self.host.write(b"".join(lines))
        self.answered = True

    def write_body(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.host.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if self.chunked else chunk)

    def finish(self) -> None:
        """The answer is complete: the host connection goes on to its next request (or closes)."""
        if self.chunked:
            self.host.write(b"0\r\n\r\n")
        self.host.finished(self)


class Relay:
    """Relays the requests of every host that connects to ``upstream``'s origin (``http://`` or ``https://``).

    Keeps idle upstream connections for reuse (at most :data:`KEEPALIVE_SECONDS` idle); :meth:`exchange`
    makes the :class:`Exchange` of each request (override it to read the traffic).
    """

    def __init__(self, upstream: str) -> None:
        url = urlsplit(upstream)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"not an http(s) URL: {upstream!r}")
        self.address = (url.hostname, url.port or (443 if url.scheme == "https" else 80))
        self.authority = url.netloc.rpartition("@")[2].encode("ascii")
        self.ssl = ssl.create_default_context() if url.scheme == "https" else None
        self._idle: list[UpstreamConnection] = []
        self.connect_error: Exception | None = None
        """Why the last connection to the upstream could not be made (read by :meth:`Exchange.lost`)."""

    def exchange(self, host: HostConnection, request: Request) -> Exchange:
        return Exchange(host, request)

    async def serve(self, host: str, port: int) -> asyncio.Server:
        """Listen on ``host:port`` (0: a free port); the server runs until closed."""
        return await asyncio.get_running_loop().create_server(lambda: HostConnection(self), host, port)

    def close(self) -> None:
        while self._idle:
            self._idle.pop().transport.close()

    # -- upstream connections ------------------------------------------------------------------------
    def send(self, exchange: Exchange) -> None:
        """Write ``exchange``'s request to an idle upstream connection, or to a new one once it is open."""
        request, body = exchange.request, exchange.body()
        lines = [b"%s %s HTTP/1.1\r\nhost: %s\r\n" % (request.method, request.target, self.authority)]
        lines.extend(b"%s: %s\r\n" % field for field in request.headers if field[0] not in NOT_FORWARDED)
        lines.append(b"content-length: %d\r\n\r\n" % len(body))
        lines.append(body)
        data = b"".join(lines)
        now = time.monotonic()
        while self._idle:
            connection = self._idle.pop()
            if not connection.transport.is_closing() and now - connection.idle_since < KEEPALIVE_SECONDS:
                connection.send(exchange, data)
                return
            connection.transport.close()
        asyncio.ensure_future(self._connect_and_send(exchange, data))

    async def _connect_and_send(self, exchange: Exchange, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        try:
            _, connection = await asyncio.wait_for(
                loop.create_connection(lambda: UpstreamConnection(self), *self.address, ssl=self.ssl), CONNECT_SECONDS
            )
        except (OSError, asyncio.TimeoutError) as exc:
            self.connect_error = exc
            exchange.lost(sent=False)
            exchange.host.flush()
            return
        if exchange.host.closed:
            self.release(connection)
        else:
            connection.send(exchange, data)

    def release(self, connection: UpstreamConnection) -> None:
        connection.idle_since = time.monotonic()
        self._idle.append(connection)

    def discard(self, connection: UpstreamConnection) -> None:
        if connection in self._idle:
            self._idle.remove(connection)


class HostConnection(asyncio.Protocol):
    """One connection of the host: its requests parsed in order, answered one after the other (HTTP/1.1 pipelining)."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.exchange: Exchange | None = None
        self._queue: collections.deque[Request] = collections.deque()
        self._out: list[bytes] = []
        self._target = b""
        self._headers: Headers = []
        self._body: list[bytes] = []
        self._body_size = 0
        self._too_large = False

    # -- asyncio ---------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            pass  # the request went on without its Upgrade (hop-by-hop): its answer is HTTP; what follows is not read
        except httptools.HttpParserError:  # not HTTP, or a body over MAX_BODY
            if self.exchange is None:
                self._out.append(_TOO_LARGE if self._too_large else _BAD_REQUEST)
            self.flush()
            self.abort(graceful=True)
            return
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._queue.clear()
        exchange, self.exchange = self.exchange, None
        if exchange is not None:
            exchange.host_gone()

    def pause_writing(self) -> None:  # the host reads slower than the upstream writes: stop reading the upstream
        if self.exchange is not None and self.exchange.upstream is not None:
            self.exchange.upstream.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.exchange is not None and self.exchange.upstream is not None:
            self.exchange.upstream.transport.resume_reading()

    # -- httptools callbacks ---------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self._target, self._headers, self._body, self._body_size = b"", [], [], 0

    def on_url(self, url: bytes) -> None:
        self._target += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        length = header(self._headers, b"content-length") or b"0"
        if length.strip().isdigit() and int(length) > MAX_BODY:  # refused before its body is read
            self._too_large = True
            raise _TooLarge
        if (header(self._headers, b"expect") or b"").lower() == b"100-continue":
            self._out.append(b"HTTP/1.1 100 Continue\r\n\r\n")  # the body is read at once (RFC 9110 §10.1.1)

    def on_body(self, body: bytes) -> None:
        self._body_size += len(body)
        if self._body_size > MAX_BODY:  # a chunked body, whose length is known only as it comes
            self._too_large = True
            raise _TooLarge
        self._body.append(body)

    def on_message_complete(self) -> None:
        self._queue.append(Request(self.parser.get_method(), self._target, self._headers, b"".join(self._body),
                                   keep_alive=self.parser.should_keep_alive(), http11=self.parser.get_http_version() == "1.1"))
        if self.exchange is None:
            self._next()

    # -- the relay -------------------------------------------------------------------------------
    def _next(self) -> None:
        self.exchange = self.relay.exchange(self, self._queue.popleft())
        self.relay.send(self.exchange)

    def write(self, data: bytes) -> None:
        self._out.append(data)

    def flush(self) -> None:
        """Write what this turn of the loop has for the host, in one write."""
        if self._out and self.transport is not None and not self.closed:
            self.transport.write(self._out[0] if len(self._out) == 1 else b"".join(self._out))
        self._out.clear()

    def finished(self, exchange: Exchange) -> None:
        if exchange is not self.exchange:
            return
        self.exchange = None
        if not exchange.request.keep_alive:
            self.abort(graceful=True)
        elif self._queue:
            self._next()

    def abort(self, *, graceful: bool = False) -> None:
        self.flush()
        if self.transport is not None:
            if graceful:
                self.transport.close()  # after what is buffered is written
            else:
                self.transport.abort()


class UpstreamConnection(asyncio.Protocol):
    """One kept-alive connection to the upstream, carrying one exchange at a time."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.exchange: Exchange | None = None
        self.idle_since = 0.0
        self._reason = b""
        self._headers: Headers = []
        self._until_close = False
        """The answer has neither a length nor chunks: it ends when the connection does (RFC 9112 §6.3)."""
        self._informational = False

    def send(self, exchange: Exchange, data: bytes) -> None:
        self.exchange, exchange.upstream = exchange, self
        if not self.transport.is_reading():  # paused for a slow host of an earlier exchange
            self.transport.resume_reading()
        self.transport.write(data)

    def abort(self) -> None:
        self.exchange = None
        self.transport.abort()

    # -- asyncio ---------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        exchange = self.exchange
        try:
            self.parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade):  # not HTTP: what came is all there is
            self.transport.abort()
        if exchange is not None:
            exchange.host.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self.relay.discard(self)
        exchange, self.exchange = self.exchange, None
        if exchange is None:
            return
        if self._until_close:  # the answer's end, not its loss
            exchange.end()
        else:
            exchange.lost(sent=True)
        exchange.host.flush()

    # -- httptools callbacks ---------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self._reason, self._headers, self._until_close = b"", [], False

    def on_status(self, reason: bytes) -> None:
        self._reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        self._informational = 100 <= status < 200
        if self._informational or self.exchange is None:
            return
        exchange = self.exchange
        head_only = exchange.request.method == b"HEAD"
        self._until_close = not head_only and status not in _NO_BODY and header(self._headers, b"content-length") is None \
            and b"chunked" not in (header(self._headers, b"transfer-encoding") or b"").lower()
        exchange.begin(status, self._reason, self._headers)
        if head_only:  # llhttp would wait for the body the length announces: this connection is done
            self.exchange = None
            self.transport.close()
            exchange.end()

    def on_body(self, body: bytes) -> None:
        if self.exchange is not None:
            self.exchange.data(body)

    def on_message_complete(self) -> None:
        if self._informational:
            return
        exchange, self.exchange = self.exchange, None
        if self.parser.should_keep_alive() and not self.transport.is_closing():
            self.relay.release(self)  # first: the exchange's end may send the host's next request
        else:
            self.transport.close()
        if exchange is not None:
            exchange.end()
