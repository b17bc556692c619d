"""The rest of RFC 6455's close codes (§7.4.1, and the IANA registry's 1012-1014) under a waiting receive, through
websockets (sync and asyncio clients) and httpx-ws, from a real websockets server on 127.0.0.1; and a keepalive
ping that a peer never answers.

What a code says about the message the client sent:

- 1003 unsupported data (a frame type the endpoint cannot take: text to a binary-only server): the tool's choice,
  a bug, not the caller's: ``unknown``; refused, nothing done;
- 1007 invalid frame payload data (not what the message type promises: servers send it for a payload that does not
  parse) and 1009 message too big (like HTTP's 413): ``invalid_input``, refused;
- 1008 policy violation (the generic refusal; servers close with it for a missing or bad credential):
  ``permission_denied``, refused;
- 1012 service restart (like a 503): ``upstream_unavailable``, refused for now;
- 1014 bad gateway (like a 502): ``upstream_unavailable``, the upstream behind it may have acted.

A keepalive ping left unanswered ends the connection with 1011 from the client's side; nothing came from the
peer, and the message sent before it may have been acted on.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import httpx_ws
import pytest
import websockets.asyncio.client
import websockets.exceptions
import websockets.sync.client
from websockets.sync.server import ServerConnection, serve

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST

CODES = [
    (1003, C.UNKNOWN, False),
    (1007, C.INVALID_INPUT, False),
    (1008, C.PERMISSION_DENIED, False),
    (1009, C.INVALID_INPUT, False),
    (1012, C.UPSTREAM_UNAVAILABLE, False),
    (1014, C.UPSTREAM_UNAVAILABLE, True),
]


@contextmanager
def closing_after_message(code: int) -> Iterator[str]:
    """A WebSocket server that reads one message and closes the connection with ``code``."""

    def handler(connection: ServerConnection) -> None:
        connection.recv()
        connection.close(code, "closed by the corpus")

    with serve(handler, HOST, 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"ws://{HOST}:{server.socket.getsockname()[1]}/orders"
        server.shutdown()


def _sync(url: str) -> Callable[[], object]:
    def exchange() -> None:
        with websockets.sync.client.connect(url) as ws:
            ws.send('{"order": 17}')
            ws.recv(timeout=5)

    return exchange


def _asyncio(url: str) -> Callable[[], object]:
    async def exchange() -> None:
        async with websockets.asyncio.client.connect(url) as ws:
            await ws.send('{"order": 17}')
            await asyncio.wait_for(ws.recv(), 5)

    return exchange


def _httpx_ws(url: str) -> Callable[[], object]:
    def exchange() -> None:
        with httpx.Client() as client, httpx_ws.connect_ws(url.replace("ws://", "http://"), client) as ws:
            ws.send_text('{"order": 17}')
            ws.receive_text(timeout=5)

    return exchange


CLIENTS = {"websockets-sync": _sync, "websockets-asyncio": _asyncio, "httpx-ws": _httpx_ws}


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize(("code", "failure_class", "side_effect"), CODES)
def test_closed_with_code(client: str, code: int, failure_class: C, side_effect: bool) -> None:
    with closing_after_message(code) as url:
        exc = raised(CLIENTS[client](url))
    assert isinstance(exc, websockets.exceptions.ConnectionClosed | httpx_ws.WebSocketDisconnect)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("websocket", str(code))


@contextmanager
def deaf_websocket_server() -> Iterator[str]:
    """A peer that completes the opening handshake (RFC 6455 §4.2.2) and then reads nothing and answers nothing:
    no pong to a ping."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(8)
        held: list[socket.socket] = []

        def serve_forever() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                request = conn.recv(65536).decode("latin-1")
                key = next(line.split(":", 1)[1].strip() for line in request.split("\r\n")
                           if line.lower().startswith("sec-websocket-key:"))
                accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode())
                                          .digest()).decode()
                conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
                held.append(conn)

        threading.Thread(target=serve_forever, daemon=True).start()
        yield f"ws://{HOST}:{sock.getsockname()[1]}/orders"
        sock.shutdown(socket.SHUT_RDWR)
        for conn in held:
            conn.close()


def test_keepalive_ping_unanswered_websockets() -> None:
    async def exchange(url: str) -> None:
        async with websockets.asyncio.client.connect(url, ping_interval=0.1, ping_timeout=0.2,
                                                     close_timeout=0.2) as ws:
            await ws.send('{"order": 17}')
            await asyncio.wait_for(ws.recv(), 5)

    with deaf_websocket_server() as url:
        exc = raised(lambda: exchange(url))
    assert isinstance(exc, websockets.exceptions.ConnectionClosedError) and exc.rcvd is None
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_keepalive_ping_unanswered_httpx_ws() -> None:
    def exchange(url: str) -> None:
        with httpx.Client() as client, httpx_ws.connect_ws(
                url.replace("ws://", "http://"), client, keepalive_ping_interval_seconds=0.1,
                keepalive_ping_timeout_seconds=0.2) as ws:
            ws.send_text('{"order": 17}')
            ws.receive_text(timeout=5)

    with deaf_websocket_server() as url:
        exc = raised(lambda: exchange(url))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
