"""The host speaks streamable HTTP to the proxy (MCP spec, Transports > Streamable HTTP), both eras.

The proxy is a reverse proxy at the HTTP level: every request (POST, GET, DELETE, the OAuth
metadata paths) goes to the same path on the upstream's origin with its headers (session id,
protocol version, authorization, ``Last-Event-ID``), and every response comes back with its status,
headers and SSE event ids. Only the JSON-RPC messages inside (a JSON body, or the ``data`` of an SSE
event) pass through :class:`~errscope.proxy._calls.Calls`; request ids are scoped per POST, the
stream on which their answers come back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from errscope._classify import http_address
from errscope.proxy._calls import Calls, Scope

__all__ = ["HttpRelay"]

logger = logging.getLogger("errscope.proxy")

# RFC 9110 §7.6.1 hop-by-hop fields, plus what the proxy recomputes (length, host, encoding: the
# upstream is asked for an identity body so the proxy can read its messages).
_NOT_FORWARDED: Final = frozenset(
    {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host",
     "content-length", "accept-encoding", "content-encoding"}
)
# ConnectError and ConnectTimeout: the request never reached the server.
_NOT_SENT: Final = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def _forwarded(headers: Any) -> list[tuple[str, str]]:
    return [(key, value) for key, value in headers.items() if key.lower() not in _NOT_FORWARDED]


class HttpRelay:
    """An ASGI app relaying to ``upstream`` (the server's MCP endpoint URL).

    Args:
        upstream: e.g. ``http://127.0.0.1:9000/mcp``; a request to ``/mcp`` on the proxy goes there,
            any other path to the same path on the upstream's origin.
        calls: the tool-call bookkeeping (its address is the upstream's ``host[:port]``).
        client: the HTTP client for the upstream; no read timeout (SSE streams stay open).
    """

    def __init__(self, upstream: str, calls: Calls, client: httpx.AsyncClient | None = None) -> None:
        self.origin = httpx.URL(upstream).copy_with(path="/", query=None, fragment=None)
        self.calls = calls
        self.client = client or httpx.AsyncClient(timeout=httpx.Timeout(10.0, read=None), follow_redirects=False)

    @staticmethod
    def address(upstream: str) -> str:
        return http_address(httpx.URL(upstream))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        request = Request(scope, receive)
        response = await self.relay(request)
        await response(scope, receive, send)

    async def relay(self, request: Request) -> Response:
        body = await request.body()
        scope = Scope(
            session_id=request.headers.get("mcp-session-id"),
            protocol_version=request.headers.get("mcp-protocol-version"),
        )
        if request.method == "POST" and body:
            body = self._from_host(scope, body)
        url = self.origin.copy_with(path=request.url.path, query=request.url.query.encode() or None)
        upstream_request = self.client.build_request(request.method, url, headers=_forwarded(request.headers), content=body)
        try:
            response = await self.client.send(upstream_request, stream=True)
        except httpx.TransportError as exc:
            logger.warning("the MCP server at %s did not answer: %s", self.origin, type(exc).__name__)
            return self._lost(scope, sent=not isinstance(exc, _NOT_SENT))
        for entry in scope.in_flight.values():
            entry.sent = True
        headers = dict(_forwarded(response.headers))
        content_type = response.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            return StreamingResponse(self._events(scope, response), status_code=response.status_code, headers=headers)
        try:
            raw = await response.aread()
        except httpx.TransportError:
            return self._lost(scope, sent=True)
        finally:
            await response.aclose()
        if content_type.startswith("application/json") and raw:
            raw = self._from_server(scope, raw)
        self.calls.abandon(scope)
        return Response(raw, status_code=response.status_code, headers=headers)

    def _from_host(self, scope: Scope, body: bytes) -> bytes:
        try:
            decoded = json.loads(body)
        except ValueError:
            return body  # the server answers -32700 itself, over HTTP
        messages = decoded if isinstance(decoded, list) else [decoded]
        forwarded = [self.calls.from_host(scope, message) for message in messages]
        if all(a is b for a, b in zip(forwarded, messages)):
            return body
        return json.dumps(forwarded if isinstance(decoded, list) else forwarded[0]).encode()

    def _from_server(self, scope: Scope, raw: bytes) -> bytes:
        try:
            decoded = json.loads(raw)
        except ValueError:
            logger.warning("a malformed JSON body from the server was relayed as it is (%d bytes)", len(raw))
            return raw
        messages = decoded if isinstance(decoded, list) else [decoded]
        answers = [self.calls.from_server(scope, message) for message in messages]
        if all(a is b for a, b in zip(answers, messages)):
            return raw
        return json.dumps(answers if isinstance(decoded, list) else answers[0]).encode()

    async def _events(self, scope: Scope, response: httpx.Response) -> AsyncIterator[bytes]:
        lines: list[str] = []
        try:
            async for line in response.aiter_lines():
                if line:
                    lines.append(line)
                    continue
                yield self._event(scope, lines)
                lines = []
            if lines:
                yield self._event(scope, lines)
        except httpx.TransportError:
            logger.warning("the MCP server at %s dropped a stream", self.origin)
            for answer in self.calls.lost(scope):
                yield b"event: message\ndata: " + json.dumps(answer).encode() + b"\n\n"
        finally:
            await response.aclose()
            self.calls.abandon(scope)

    def _event(self, scope: Scope, lines: list[str]) -> bytes:
        """One SSE event (WHATWG HTML, Server-sent events): its ``data`` relayed, other fields kept."""
        data = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
        if data:
            try:
                message = json.loads("\n".join(data))
            except ValueError:
                message = None
            if message is not None:
                answer = self.calls.from_server(scope, message)
                if answer is not message:
                    kept = [line for line in lines if not line.startswith("data:")]
                    lines = [*kept, "data: " + json.dumps(answer)]
        return ("\n".join(lines) + "\n\n").encode()

    def _lost(self, scope: Scope, *, sent: bool) -> Response:
        for entry in scope.in_flight.values():
            entry.sent = sent
        answers = self.calls.lost(scope)
        if not answers:
            return Response(status_code=502)
        body = answers if len(answers) > 1 else answers[0]
        return Response(json.dumps(body), media_type="application/json")

