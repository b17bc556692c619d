"""websockets (the asyncio client) against real peers on 127.0.0.1: refused, unresolvable, a
handshake answered with an HTTP error status, and a real websockets server that closes mid-call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import websockets.asyncio.client
import websockets.asyncio.server
import websockets.exceptions

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port


def _send_and_receive(url: str) -> Callable[[], Awaitable[Any]]:
    async def call() -> None:
        async with websockets.asyncio.client.connect(url, open_timeout=5) as ws:
            await ws.send('{"op": "refund"}')
            await ws.recv()

    return call


def test_connection_refused() -> None:
    exc = raised(_send_and_receive(f"ws://{HOST}:{closed_port()}/"))
    assert isinstance(exc, ConnectionRefusedError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_name_does_not_resolve() -> None:
    exc = raised(_send_and_receive(f"ws://{UNRESOLVABLE}/"))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
    (401, None, C.PERMISSION_DENIED, False, None),
    (404, None, C.NOT_FOUND, False, None),
    (429, "9", C.RATE_LIMITED, False, 9.0),
    (503, None, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_handshake_refused_with_a_status(upstream: HttpUpstream, status: int, retry_after: str | None,
                                         failure_class: C, side_effect: bool, wait: float | None) -> None:
    base = upstream.scripted(status, b"no", {"Retry-After": retry_after} if retry_after else {})
    exc = raised(_send_and_receive(base.replace("http://", "ws://")))
    assert isinstance(exc, websockets.exceptions.InvalidStatus)
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


def test_handshake_answered_by_a_non_websocket_server(upstream: HttpUpstream) -> None:
    # An HTTP 200 without the Upgrade: the peer is not a websocket server; nothing was sent.
    exc = raised(_send_and_receive(f"ws://{HOST}:{upstream.port}/ok"))
    assert isinstance(exc, websockets.exceptions.InvalidHandshake)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("ending", ["internal-error-1011", "dropped"])
def test_server_ends_the_connection_after_the_message(ending: str) -> None:
    async def handler(ws: websockets.asyncio.server.ServerConnection) -> None:
        await ws.recv()
        if ending == "dropped":
            ws.transport.abort()
        else:
            await ws.close(1011, "upstream failed")

    async def call() -> None:
        async with websockets.asyncio.server.serve(handler, HOST, 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            await _send_and_receive(f"ws://{HOST}:{port}/")()

    exc = raised(call)
    assert isinstance(exc, websockets.exceptions.ConnectionClosedError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
