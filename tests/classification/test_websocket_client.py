"""websocket-client (the synchronous ``websocket`` package) against real peers on 127.0.0.1: refused,
unresolvable, a handshake answered with an HTTP status, and a real websockets server that closes,
drops or never answers after the message."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import websocket
import websockets.sync.server

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3


@pytest.fixture(scope="module")
def ws_url() -> Iterator[str]:
    """A websockets server that reads one message and then does what it says: ``close`` (1011),
    ``drop`` (the socket closed without a close frame) or ``stall`` (never answers)."""
    stop = threading.Event()

    def handler(ws: websockets.sync.server.ServerConnection) -> None:
        message = ws.recv()
        if message == "close":
            ws.close(1011, "upstream failed")
        elif message == "drop":
            # shutdown first: a close() alone does not end the connection while the server's reader thread is
            # blocked in recv() on the same socket (the client then waited for its timeout instead)
            ws.socket.shutdown(socket.SHUT_RDWR)
            ws.socket.close()
        else:
            stop.wait(5)

    server = websockets.sync.server.serve(handler, HOST, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"ws://{HOST}:{server.socket.getsockname()[1]}/"
    stop.set()
    server.shutdown()


def _exchange(url: str, message: str = "refund", timeout: float = 5) -> None:
    ws = websocket.create_connection(url, timeout=timeout)
    try:
        ws.send(message)
        ws.recv()
        ws.send(message)
        ws.recv()
    finally:
        ws.close()


def test_connection_refused() -> None:
    exc = raised(lambda: _exchange(f"ws://{HOST}:{closed_port()}/"))
    assert isinstance(exc, ConnectionRefusedError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_name_does_not_resolve() -> None:
    exc = raised(lambda: _exchange(f"ws://{UNRESOLVABLE}/"))
    assert isinstance(exc, websocket.WebSocketAddressException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "wait"), [
    (401, None, C.PERMISSION_DENIED, None),
    (404, None, C.NOT_FOUND, None),
    (429, "9", C.RATE_LIMITED, 9.0),
    (503, "4", C.UPSTREAM_UNAVAILABLE, 4.0),
])
def test_handshake_refused_with_a_status(upstream: HttpUpstream, status: int, retry_after: str | None,
                                         failure_class: C, wait: float | None) -> None:
    base = upstream.scripted(status, b"no", {"Retry-After": retry_after} if retry_after else {})
    exc = raised(lambda: _exchange(base.replace("http://", "ws://")))
    assert isinstance(exc, websocket.WebSocketBadStatusException)
    assert check(exc, failure_class, False).retry_after == wait


def test_handshake_answered_by_a_non_websocket_server(upstream: HttpUpstream) -> None:
    # A 200 without the Upgrade: the peer is no websocket server, and no message was sent.
    exc = raised(lambda: _exchange(f"ws://{HOST}:{upstream.port}/ok"))
    assert isinstance(exc, websocket.WebSocketBadStatusException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("ending", ["close", "drop"])
def test_server_ends_the_connection_after_the_message(ws_url: str, ending: str) -> None:
    exc = raised(lambda: _exchange(ws_url, ending))
    assert isinstance(exc, websocket.WebSocketConnectionClosedException)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_no_answer_to_the_message(ws_url: str) -> None:
    exc = raised(lambda: _exchange(ws_url, "stall", timeout=SHORT))
    assert isinstance(exc, websocket.WebSocketTimeoutException)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
