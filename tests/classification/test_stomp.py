"""stomp.py (the STOMP client of ActiveMQ, RabbitMQ's STOMP plugin, Artemis) against real sockets on 127.0.0.1.

``Connection.connect(wait=True)`` raises ``ConnectFailedException`` with no text and no chain when no host takes the
connection (the socket errors are only logged), and when the broker answers CONNECT with an ERROR frame (a refused
login); a broker that closes before CONNECTED leaves ``NotConnectedException``. Nothing was sent in any of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

stomp = pytest.importorskip("stomp")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port, closing_listener  # noqa: E402


def _send(port: int) -> Callable[[], Any]:
    def run() -> None:
        connection = stomp.Connection([(HOST, port)], reconnect_attempts_max=1, timeout=1, heartbeats=(0, 0))
        try:
            connection.connect("refunds", "s3cret", wait=True)
            connection.send("/queue/refunds", "refund 17")
        finally:
            connection.disconnect()

    return run


def test_refused() -> None:
    exc = raised(_send(closed_port()))
    assert type(exc).__name__ == "ConnectFailedException"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_before_connected() -> None:
    # the broker reads CONNECT first: a close before that races stomp.py's own send (EBADF from its closed socket)
    with closing_listener(read_first=True) as port:
        exc = raised(_send(port))
    assert type(exc).__name__ in ("NotConnectedException", "ConnectFailedException")
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_login_refused() -> None:
    # RabbitMQ's answer to a wrong password (STOMP 1.2 §ERROR: the server closes the connection after it)
    frame = b"ERROR\nmessage:Access refused\ncontent-type:text/plain\n\nAccess refused for user 'refunds'\x00"
    with closing_listener(frame, read_first=True) as port:
        exc = raised(_send(port))
    assert type(exc).__name__ == "ConnectFailedException"
    check(exc, C.PERMISSION_DENIED, False)
