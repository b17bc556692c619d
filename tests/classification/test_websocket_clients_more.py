"""httpx-ws and aiohttp's WebSocket client against real peers on 127.0.0.1: a handshake answered
with an HTTP status (the upgrade refused), or with a plain 200 (no WebSocket server there), and a
real WebSocket server (websockets' own) that closes the connection under a waiting receive with a
close code (RFC 6455 §7.4.1; 4400-4499 mirror HTTP statuses in graphql-ws and other subprotocols).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import aiohttp
import httpx
import httpx_ws
import pytest
from websockets.sync.server import ServerConnection, serve

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def _httpx_ws(url: str) -> None:
    with httpx.Client() as client, httpx_ws.connect_ws(url, client) as ws:
        ws.receive_text(timeout=5)


async def _aiohttp_ws(url: str) -> None:
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        await ws.receive_str(timeout=5)


@pytest.mark.parametrize(("path", "failure_class", "side_effect"), [
    ("status/401", C.PERMISSION_DENIED, False),
    ("status/404", C.NOT_FOUND, False),
    ("status/429", C.RATE_LIMITED, False),
    ("status/503", C.UPSTREAM_UNAVAILABLE, False),
    ("ok", C.UPSTREAM_UNAVAILABLE, False),  # a plain HTTP 200: no WebSocket server answers there
])
class TestHandshake:
    def test_httpx_ws(self, upstream: HttpUpstream, path: str, failure_class: C, side_effect: bool) -> None:
        exc = raised(lambda: _httpx_ws(f"{upstream.url}/{path}"))
        assert isinstance(exc, httpx_ws.WebSocketUpgradeError)
        check(exc, failure_class, side_effect)

    def test_aiohttp(self, upstream: HttpUpstream, path: str, failure_class: C, side_effect: bool) -> None:
        exc = raised(lambda: _aiohttp_ws(f"{upstream.url}/{path}"))
        assert isinstance(exc, aiohttp.WSServerHandshakeError)
        check(exc, failure_class, side_effect)


def test_httpx_ws_connection_refused() -> None:
    check(raised(lambda: _httpx_ws(f"http://{HOST}:{closed_port()}/")), C.UPSTREAM_UNAVAILABLE, False)


def test_aiohttp_ws_connection_refused() -> None:
    check(raised(lambda: _aiohttp_ws(f"http://{HOST}:{closed_port()}/")), C.UPSTREAM_UNAVAILABLE, False)


@contextmanager
def closing_with(code: int) -> Iterator[str]:
    """A WebSocket server that accepts and closes each connection with ``code``."""

    def handler(connection: ServerConnection) -> None:
        connection.close(code, "closed by the corpus")

    with serve(handler, HOST, 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"ws://{HOST}:{server.socket.getsockname()[1]}/"
        server.shutdown()


@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    (1001, C.UPSTREAM_UNAVAILABLE, True),  # going away: the server shut down under the call
    (1011, C.UPSTREAM_UNAVAILABLE, True),  # internal error
    (1013, C.UPSTREAM_UNAVAILABLE, False),  # try again later: refused for now, like a 503
    (4401, C.PERMISSION_DENIED, False),  # graphql-ws: Unauthorized
    (4429, C.RATE_LIMITED, False),  # graphql-ws: too many initialisation requests
])
def test_httpx_ws_closed_with_code(code: int, failure_class: C, side_effect: bool) -> None:
    with closing_with(code) as url:
        exc = raised(lambda: _httpx_ws(url.replace("ws://", "http://")))
    assert isinstance(exc, httpx_ws.WebSocketDisconnect) and exc.code == code
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    (1011, C.UPSTREAM_UNAVAILABLE, True),
    (4403, C.PERMISSION_DENIED, False),  # graphql-ws: Forbidden
])
def test_websockets_client_closed_with_code(code: int, failure_class: C, side_effect: bool) -> None:
    from websockets.exceptions import ConnectionClosedError
    from websockets.sync.client import connect

    def receive(url: str) -> None:
        with connect(url) as ws:
            ws.recv(timeout=5)

    with closing_with(code) as url:
        exc = raised(lambda: receive(url))
    assert isinstance(exc, ConnectionClosedError) and exc.rcvd is not None and exc.rcvd.code == code
    check(exc, failure_class, side_effect)


def test_aiohttp_ws_closed_under_receive() -> None:
    # aiohttp hands the CLOSE frame to receive_str, which raises WSMessageTypeError (it expected text); the
    # exception keeps neither the close code nor the frame's kind, so whether anything was acted on stays open
    with closing_with(1011) as url:
        exc = raised(lambda: _aiohttp_ws(url.replace("ws://", "http://")))
    assert type(exc).__name__ == "WSMessageTypeError"
    check(exc, C.UPSTREAM_UNAVAILABLE, None)
