"""kazoo (Apache ZooKeeper's Python client) against real sockets on 127.0.0.1: dead addresses, and a small ZooKeeper
server (:func:`zookeeper`) that speaks the protocol's session handshake and answers each request with a chosen error
code, or drops the connection once the request arrived.

kazoo raises one ``ZookeeperError`` subclass per ZooKeeper error code (``KeeperException.Code``; kept as the class's
``code``): ``NoNodeError`` (-101), ``NodeExistsError`` (-110), ``BadVersionError`` (-103), ... A lost connection
under a request is ``ConnectionLoss`` (-4): the server may have applied it. ``KazooClient.start()`` waiting for a
session that never opens raises the handler's ``KazooTimeoutError``.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

kazoo_client = pytest.importorskip("kazoo.client")

from kazoo.retry import KazooRetry  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, closing_listener, silent_listener  # noqa: E402

PING_XID = -2
CLOSE_SESSION = -11


def _read_frame(conn: socket.socket) -> bytes | None:
    head = b""
    while len(head) < 4:
        chunk = conn.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (length,) = struct.unpack(">i", head)
    body = b""
    while len(body) < length:
        chunk = conn.recv(length - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def _send_frame(conn: socket.socket, payload: bytes) -> None:
    conn.sendall(struct.pack(">i", len(payload)) + payload)


@contextmanager
def zookeeper(error: int | None = None) -> Iterator[int]:
    """A ZooKeeper server (the jute wire format of ConnectRequest/ConnectResponse, RequestHeader/ReplyHeader) that
    opens every session, answers pings and closes, and answers every other request with ``error`` (a
    KeeperException code), or with ``None`` drops the connection once the request arrived."""
    listener = socket.socket()
    listener.bind((HOST, 0))
    listener.listen(16)

    def serve(conn: socket.socket) -> None:
        with conn:
            if _read_frame(conn) is None:  # ConnectRequest
                return
            # ConnectResponse: protocolVersion, negotiated timeout (ms), session id, password (16 bytes), readOnly
            _send_frame(conn, struct.pack(">iiqi", 0, 10000, 0x1234, 16) + b"\0" * 16 + b"\0")
            while (request := _read_frame(conn)) is not None:
                xid, op = struct.unpack_from(">ii", request)
                if xid == PING_XID or op == CLOSE_SESSION:
                    _send_frame(conn, struct.pack(">iqi", xid, 1, 0))
                    if op == CLOSE_SESSION:
                        return
                elif error is None:
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return  # reset, with the request read
                else:
                    _send_frame(conn, struct.pack(">iqi", xid, 1, error))  # ReplyHeader: xid, zxid, err

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()


def _client(hosts: str) -> Any:
    # no reconnects: the first failure is the one classified
    return kazoo_client.KazooClient(hosts=hosts, timeout=2, connection_retry=KazooRetry(max_tries=0),
                                    command_retry=KazooRetry(max_tries=0))


def _run(port: int, operation: Callable[[Any], Any]) -> Callable[[], Any]:
    def run() -> Any:
        client = _client(f"{HOST}:{port}")
        client.start(timeout=2)
        try:
            return operation(client)
        finally:
            client.stop()
            client.close()

    return run


OPERATIONS = {
    "get": lambda client: client.get("/refunds/17"),
    "create": lambda client: client.create("/refunds/17", b"done"),
    "set": lambda client: client.set("/refunds/17", b"done", version=3),
    "delete": lambda client: client.delete("/refunds"),
}


@pytest.mark.parametrize(("operation", "code", "exc_name", "failure_class"), [
    ("get", -101, "NoNodeError", C.NOT_FOUND),
    ("get", -102, "NoAuthError", C.PERMISSION_DENIED),
    ("create", -110, "NodeExistsError", C.INVALID_INPUT),
    ("create", -114, "InvalidACLError", C.INVALID_INPUT),
    ("create", -108, "NoChildrenForEphemeralsError", C.INVALID_INPUT),
    ("set", -103, "BadVersionError", C.INVALID_INPUT),
    ("delete", -111, "NotEmptyError", C.INVALID_INPUT),
    ("create", -127, "ThrottledOpError", C.RATE_LIMITED),
])
def test_error_code(operation: str, code: int, exc_name: str, failure_class: C) -> None:
    with zookeeper(code) as port:
        exc = raised(_run(port, OPERATIONS[operation]))
    assert type(exc).__module__ == "kazoo.exceptions" and type(exc).__name__ == exc_name
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.system == "zookeeper"


@pytest.mark.parametrize(("code", "exc_name", "side_effect"), [
    (-1, "SystemZookeeperError", True),
    (-7, "OperationTimeoutError", True),
    (-13, "NewConfigNoQuorumError", False),
])
def test_server_failure(code: int, exc_name: str, side_effect: bool) -> None:
    with zookeeper(code) as port:
        exc = raised(_run(port, OPERATIONS["create"]))
    assert type(exc).__name__ == exc_name
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


@pytest.mark.parametrize("operation", ["get", "create"])
def test_connection_lost_under_the_request(operation: str) -> None:
    with zookeeper(None) as port:
        exc = raised(_run(port, OPERATIONS[operation]))
    assert type(exc).__name__ == "ConnectionLoss"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("where", ["refused", "unresolvable", "silent", "closing"])
def test_session_never_opens(where: str) -> None:
    def start(hosts: str) -> Callable[[], Any]:
        def run() -> None:
            client = _client(hosts)
            try:
                client.start(timeout=1)
            finally:
                client.stop()
                client.close()

        return run

    if where == "refused":
        exc = raised(start(f"{HOST}:{closed_port()}"))
    elif where == "unresolvable":
        exc = raised(start(f"{UNRESOLVABLE}:2181"))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(start(f"{HOST}:{port}"))
    else:
        with closing_listener() as port:
            exc = raised(start(f"{HOST}:{port}"))
    assert type(exc).__name__ == "KazooTimeoutError"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
