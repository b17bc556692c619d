"""The host speaks streamable HTTP to the proxy (MCP spec, Transports > Streamable HTTP), both eras.

The proxy is a reverse proxy at the HTTP level: every request (POST, GET, DELETE, the OAuth
metadata paths) goes to the same path on the upstream's origin with its headers (session id,
protocol version, authorization, ``Last-Event-ID``), and every response comes back with its status,
headers and SSE event ids. Only the JSON-RPC messages inside (a JSON body, or the ``data`` of an SSE
event) pass through :class:`~errscope.proxy._calls.Calls`; request ids are scoped per POST, the
stream on which their answers come back.

It is a bare ASGI app on one pooled ``aiohttp`` session (its C parser costs about a third of the CPU
of ``httpx``'s pure-Python one per request, ``python -m bench bench_proxy``): per request it does
only what the relay needs, and a stream that can hold no answer it must see (a GET stream, a POST of
notifications) is relayed chunk by chunk without being parsed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, Final

import aiohttp
from yarl import URL

from errscope._classify import http_address
from errscope.proxy._calls import Calls, Scope

if TYPE_CHECKING:
    import uvicorn

__all__ = ["HttpRelay", "http_server", "upstream_session"]

logger = logging.getLogger("errscope.proxy")

# RFC 9110 §7.6.1 hop-by-hop fields, plus what the proxy recomputes (length, host, encoding: the
# upstream is asked for an identity body so the proxy can read its messages).
_NOT_FORWARDED: Final = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te", b"trailer", b"upgrade", b"host",
     b"content-length", b"accept-encoding", b"content-encoding"}
)
# Connecting failed or timed out: the request never reached the server.
_NOT_SENT: Final = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)
_LOST: Final = (aiohttp.ClientError, asyncio.TimeoutError)


def _forwarded(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    return [(key, value) for key, value in headers if key.lower() not in _NOT_FORWARDED]


def _as_text(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(key.decode("latin-1"), value.decode("latin-1")) for key, value in headers]


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def http_server(app: Any, host: str, port: int) -> uvicorn.Server:
    """The server a relay is served by: uvicorn (its C parser, httptools, from the ``cli`` extra), the bare ASGI ``app``."""
    import uvicorn

    # The upstream's own Date and Server headers are relayed; no X-Forwarded-* is read (the relay is the app).
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="off",
        proxy_headers=False, server_header=False, date_header=False,
    )
    return uvicorn.Server(config)


def upstream_session() -> aiohttp.ClientSession:
    """The pooled client session a relay sends every request on (open it inside the serving loop)."""
    return aiohttp.ClientSession(
        # Idle connections are dropped before the usual 5 s server keep-alive (Node, uvicorn) ends them.
        connector=aiohttp.TCPConnector(keepalive_timeout=4.0),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=10.0),
        skip_auto_headers=("User-Agent", "Accept-Encoding"),  # the host's, or none: an identity body
        auto_decompress=False,
        # Cookies are the host's: Set-Cookie goes back to it and its Cookie comes along, so one
        # host's cookies are never sent on another's requests (and there is no jar to look up).
        cookie_jar=aiohttp.DummyCookieJar(),
    )


class HttpRelay:
    """An ASGI app relaying to ``upstream`` (the server's MCP endpoint URL).

    Args:
        upstream: e.g. ``http://127.0.0.1:9000/mcp``; a request to ``/mcp`` on the proxy goes there,
            any other path to the same path on the upstream's origin.
        calls: the tool-call bookkeeping (its address is the upstream's ``host[:port]``).

    The upstream session (one connection pool, no read timeout: SSE streams stay open) is opened on the
    first request, inside the server's event loop; :meth:`aclose` closes it.
    """

    def __init__(self, upstream: str, calls: Calls) -> None:
        self.origin = str(URL(upstream).origin())
        self.calls = calls
        self._session: aiohttp.ClientSession | None = None

    @staticmethod
    def address(upstream: str) -> str | None:
        return http_address(upstream)

    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = upstream_session()
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return  # lifespan and websocket: nothing to relay
        headers = scope["headers"]
        body = await _body(receive)
        calls_scope = Scope(session_id=_header(headers, b"mcp-session-id"), protocol_version=_header(headers, b"mcp-protocol-version"))
        if scope["method"] == "POST" and body:
            body = self._from_host(calls_scope, body)
        query = scope.get("query_string") or b""
        url = URL(self.origin + (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
                  + ("?" + query.decode("latin-1") if query else ""), encoded=True)
        try:
            response = await self.session().request(
                scope["method"], url, headers=_as_text(_forwarded(headers)), data=body or None, allow_redirects=False
            )
        except _LOST as exc:
            logger.warning("the MCP server at %s did not answer: %s", self.origin, type(exc).__name__)
            await self._lost(calls_scope, send, sent=not isinstance(exc, _NOT_SENT))
            return
        for entry in calls_scope.in_flight.values():
            entry.sent = True
        start = {"type": "http.response.start", "status": response.status, "headers": _forwarded(response.raw_headers)}
        content_type = response.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            await send(start)
            await self._stream(calls_scope, response, receive, send)
            return
        try:
            raw = await response.read()
        except _LOST:
            await self._lost(calls_scope, send, sent=True)
            return
        finally:
            response.release()
        if content_type.startswith("application/json") and raw:
            raw = self._from_server(calls_scope, raw)
        self.calls.abandon(calls_scope)
        start["headers"].append((b"content-length", str(len(raw)).encode()))
        await send(start)
        await send({"type": "http.response.body", "body": raw})

    def _from_host(self, scope: Scope, body: bytes) -> bytes:
        try:
            decoded = json.loads(body)
        except (ValueError, RecursionError):
            return body  # the server answers -32700 itself, over HTTP
        messages = decoded if isinstance(decoded, list) else [decoded]
        forwarded = [self.calls.from_host(scope, message) for message in messages]
        if all(a is b for a, b in zip(forwarded, messages)):
            return body
        return json.dumps(forwarded if isinstance(decoded, list) else forwarded[0]).encode()

    def _from_server(self, scope: Scope, raw: bytes) -> bytes:
        try:
            decoded = json.loads(raw)
        except (ValueError, RecursionError):  # also nested deeper than the reader recurses
            logger.warning("a malformed JSON body from the server was relayed as it is (%d bytes)", len(raw))
            return raw
        messages = decoded if isinstance(decoded, list) else [decoded]
        answers = [self.calls.from_server(scope, message) for message in messages]
        if all(a is b for a, b in zip(answers, messages)):
            return raw
        return json.dumps(answers if isinstance(decoded, list) else answers[0]).encode()

    async def _stream(self, scope: Scope, response: aiohttp.ClientResponse, receive: Any, send: Any) -> None:
        """Relay an SSE stream until the server ends it or the host goes away (then the stream is closed)."""
        relay = asyncio.ensure_future(self._relay_events(scope, response, send))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait((relay, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (relay, gone):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await relay
            response.close()
            self.calls.abandon(scope)

    async def _relay_events(self, scope: Scope, response: aiohttp.ClientResponse, send: Any) -> None:
        try:
            async for chunk in self._events(scope, response):
                # What one read brought goes out in one write, with the stream's end when the server
                # has already ended it: each write is a wake-up of the host (and the end its own).
                if response.content.at_eof():
                    await send({"type": "http.response.body", "body": chunk})
                    return
                if chunk:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except _LOST:
            logger.warning("the MCP server at %s dropped a stream", self.origin)
            for answer in self.calls.lost(scope):
                event = b"event: message\ndata: " + json.dumps(answer).encode() + b"\n\n"
                await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def _events(self, scope: Scope, response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
        if not scope.in_flight:  # no answer the proxy must see can come on this stream: bytes as they are
            async for chunk in response.content.iter_any():
                yield chunk
            return
        pending = b""
        async for chunk in response.content.iter_any():
            # An event ends at a blank line; lines end in LF or CRLF (WHATWG HTML, Server-sent events).
            pending = (pending + chunk).replace(b"\r\n", b"\n")
            *events, pending = pending.split(b"\n\n")
            if response.content.at_eof() and pending.strip():  # the stream ended inside an event
                events.append(pending)
                pending = b""
            yield b"".join(self._event(scope, event.decode().split("\n")) for event in events)
        if pending.strip():
            yield self._event(scope, pending.decode().split("\n"))

    def _event(self, scope: Scope, lines: list[str]) -> bytes:
        """One SSE event (WHATWG HTML, Server-sent events): its ``data`` relayed, other fields kept."""
        data = "\n".join(line[5:].removeprefix(" ") for line in lines if line.startswith("data:"))
        # An empty data (a stream's priming event) holds no message; with nothing open or cancelled, none to change.
        if data.strip() and (scope.in_flight or scope.cancelled):
            try:
                message = json.loads(data)
            except (ValueError, RecursionError):
                message = None
            if message is not None:
                answer = self.calls.from_server(scope, message)
                if answer is not message:
                    kept = [line for line in lines if not line.startswith("data:")]
                    lines = [*kept, "data: " + json.dumps(answer)]
        return ("\n".join(lines) + "\n\n").encode()

    async def _lost(self, scope: Scope, send: Any, *, sent: bool) -> None:
        for entry in scope.in_flight.values():
            entry.sent = sent
        answers = self.calls.lost(scope)
        body = json.dumps(answers if len(answers) > 1 else answers[0]).encode() if answers else b""
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())] if answers else [(b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 200 if answers else 502, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the host went away before it finished sending
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
