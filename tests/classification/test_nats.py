"""nats-py (the NATS client) against a socket on 127.0.0.1 that speaks the NATS client protocol
(docs.nats.io, "Client Protocol"): ``INFO`` on connect, ``PONG`` to the client's ``PING``, ``-ERR``
lines for a refused login, and a ``NATS/1.0 503`` status message for a request nobody subscribes to
(the server's "no responders"). No NATS server ships as a Debian or PyPI package; these are the
exact lines nats-server sends, so the client's own code path raises its own exceptions.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import nats
import nats.errors

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port, closing_listener

INFO = {"server_id": "errscope-corpus", "version": "2.10.22", "proto": 1, "headers": True, "max_payload": 1048576}


@contextmanager
def nats_peer(mode: str) -> Iterator[int]:
    """``mode``: ``deny`` (-ERR 'Authorization Violation' after CONNECT), ``no_responders`` (a 503 status
    message to every request), ``silent`` (requests are never answered)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(8)

        def serve(conn: socket.socket) -> None:
            with conn, conn.makefile("rb") as lines:
                conn.sendall(b"INFO " + json.dumps(INFO).encode() + b"\r\n")
                subscriptions: dict[str, str] = {}
                for line in lines:
                    verb, *args = line.decode().split()
                    if verb == "CONNECT" and mode == "deny":
                        conn.sendall(b"-ERR 'Authorization Violation'\r\n")
                        return
                    if verb == "PING":
                        conn.sendall(b"PONG\r\n")
                    elif verb == "SUB":
                        subscriptions[args[0]] = args[-1]
                    elif verb in ("PUB", "HPUB"):
                        lines.read(int(args[-1]) + 2)  # the payload and its CRLF
                        reply = args[1] if len(args) > (3 if verb == "HPUB" else 2) else None
                        if mode == "no_responders" and reply:
                            sid = next(s for subject, s in subscriptions.items()
                                       if subject == reply or (subject.endswith(".*") and reply.startswith(subject[:-1])))
                            status = b"NATS/1.0 503\r\n\r\n"
                            conn.sendall(f"HMSG {reply} {sid} {len(status)} {len(status)}\r\n".encode() + status + b"\r\n")

        def accept() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                threading.Thread(target=serve, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        yield int(sock.getsockname()[1])
        sock.shutdown(socket.SHUT_RDWR)


async def _request(port: int, timeout: float = 5) -> None:
    client = await nats.connect(f"nats://{HOST}:{port}", allow_reconnect=False, max_reconnect_attempts=1,
                                reconnect_time_wait=0, connect_timeout=1)
    try:
        await client.request("orders.refund", b"{}", timeout=timeout)
    finally:
        await client.close()


def test_connection_refused() -> None:
    exc = raised(lambda: _request(closed_port()))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_login_refused() -> None:
    with nats_peer("deny") as port:
        exc = raised(lambda: _request(port))
    check(exc, C.PERMISSION_DENIED, False)


def test_no_responders() -> None:
    # nobody serves the subject: the request reached no service, nothing ran
    with nats_peer("no_responders") as port:
        exc = raised(lambda: _request(port))
    assert isinstance(exc, nats.errors.NoRespondersError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_request_timeout() -> None:
    with nats_peer("silent") as port:
        exc = raised(lambda: _request(port, timeout=0.3))
    assert isinstance(exc, nats.errors.TimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_peer_closes_before_info() -> None:
    with closing_listener() as port:
        exc = raised(lambda: _request(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
