"""The neo4j driver against a real Bolt server on 127.0.0.1: raw sockets speaking Bolt 5.0 (the handshake, chunked
PackStream messages), which opens the session (``HELLO``) or refuses it, and answers a query's ``RUN`` with
``FAILURE`` and one of Neo4j's status codes, stalls, or drops the connection.

Neo4j answers a refusal with its own status code, ``Neo.<classification>.<category>.<title>``
(https://neo4j.com/docs/status-codes/current/errors/all-errors/): the classification says whose fault it is
(``ClientError``: the request, do not retry it as sent; ``TransientError``: the server's state, the same request may
succeed later, nothing committed; ``DatabaseError``: the server failed), the title what happened. The driver raises one
``Neo4jError`` subclass per classification (``ClientError``, ``TransientError``, ``DatabaseError``) and a few per code
(``AuthError``, ``Forbidden``, ``CypherSyntaxError``, ``ConstraintError``, ``DatabaseUnavailable``), keeping the code
as ``.code`` (``neo4j.exceptions``, https://neo4j.com/docs/api/python-driver/current/api.html#errors). A connection
lost under a query is ``SessionExpired``/``ServiceUnavailable``.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

neo4j = pytest.importorskip("neo4j")

import errscope  # noqa: E402
from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST  # noqa: E402

_HELLO, _LOGON, _RUN, _PULL, _RESET, _GOODBYE, _BEGIN = 0x01, 0x6A, 0x10, 0x3F, 0x0F, 0x02, 0x11
_SUCCESS, _FAILURE, _IGNORED = 0x70, 0x7F, 0x7E


def _pack(value: Any) -> bytes:
    """PackStream (https://neo4j.com/docs/bolt/current/packstream/): the few types a server's answer needs."""
    if value is None:
        return b"\xc0"
    if isinstance(value, bool):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        return bytes([value]) if 0 <= value < 128 else b"\xcb" + struct.pack(">q", value)
    if isinstance(value, str):
        data = value.encode()
        return (bytes([0x80 + len(data)]) if len(data) < 16 else b"\xd1" + struct.pack(">H", len(data))) + data
    if isinstance(value, list):
        return bytes([0x90 + len(value)]) + b"".join(_pack(item) for item in value)
    if isinstance(value, dict):
        return bytes([0xA0 + len(value)]) + b"".join(_pack(k) + _pack(v) for k, v in value.items())
    raise TypeError(value)


def _message(signature: int, *fields: Any) -> bytes:
    body = bytes([0xB0 + len(fields), signature]) + b"".join(_pack(field) for field in fields)
    return struct.pack(">H", len(body)) + body + b"\x00\x00"


class _Bolt:
    """One Bolt 5.0 server: ``hello`` is the FAILURE metadata for HELLO (None: SUCCESS), ``run`` what a RUN gets:
    a FAILURE's metadata, ``"stall"`` (never answered) or ``"drop"`` (the connection closed once it is read)."""

    def __init__(self, hello: dict[str, str] | None = None, run: dict[str, str] | str | None = None,
                 hints: dict[str, Any] | None = None) -> None:
        self.hello, self.run, self.hints = hello, run, hints or {}
        self.stop = threading.Event()

    def serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            try:
                self._session(conn)
            except OSError:
                return

    def _session(self, conn: socket.socket) -> None:
        handshake = self._read(conn, 20)
        if handshake[:4] != b"\x60\x60\xb0\x17":
            return
        conn.sendall(b"\x00\x00\x00\x05")  # Bolt 5.0
        failed = False
        while True:
            signature = self._request(conn)
            if signature is None or signature == _GOODBYE:
                return
            if signature == _RESET:
                failed = False
                conn.sendall(_message(_SUCCESS, {}))
            elif failed:
                conn.sendall(_message(_IGNORED))
            elif signature == _HELLO:
                if self.hello is not None:
                    conn.sendall(_message(_FAILURE, self.hello))
                    return  # a server closes the connection it refused the login of
                conn.sendall(_message(_SUCCESS, {"server": "Neo4j/5.26.0", "connection_id": "bolt-17",
                                                 "hints": self.hints}))
            elif signature == _RUN:
                if self.run == "stall":
                    self.stop.wait(30)
                    return
                if self.run == "drop":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                if isinstance(self.run, dict):
                    conn.sendall(_message(_FAILURE, self.run))
                    failed = True
                else:
                    conn.sendall(_message(_SUCCESS, {"fields": ["n"], "t_first": 0}))
            elif signature == _PULL:
                conn.sendall(_message(_SUCCESS, {"type": "r", "t_last": 0}))
            else:
                conn.sendall(_message(_SUCCESS, {}))

    @staticmethod
    def _read(conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def _request(self, conn: socket.socket) -> int | None:
        body = b""
        while True:
            try:
                size = struct.unpack(">H", self._read(conn, 2))[0]
            except ConnectionError:
                return None
            if size == 0:
                if body:
                    return body[1]  # after the struct marker: the message's signature
                continue  # a NOOP chunk
            body += self._read(conn, size)


@contextmanager
def bolt_server(**script: Any) -> Iterator[int]:
    server = _Bolt(**script)
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(16)

        def accept() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                threading.Thread(target=server.serve, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        try:
            yield int(sock.getsockname()[1])
        finally:
            server.stop.set()
            sock.shutdown(socket.SHUT_RDWR)


def _run(port: int, query: str = "MATCH (o:Order {id: $id}) RETURN o") -> Any:
    with neo4j.GraphDatabase.driver(f"bolt://{HOST}:{port}", auth=("neo4j", "corpus-pw"), connection_timeout=2,
                                    connection_acquisition_timeout=3, max_connection_lifetime=60) as driver:
        with driver.session() as session:
            return session.run(query, id="ord_17").data()


def _failure(code: str) -> dict[str, str]:
    return {"code": code, "message": "the server said no"}


@pytest.mark.parametrize(("code", "failure_class"), [
    ("Neo.ClientError.Security.Unauthorized", C.PERMISSION_DENIED),  # wrong password
    ("Neo.ClientError.Security.AuthenticationRateLimit", C.RATE_LIMITED),  # too many failed logins: wait
    ("Neo.ClientError.Security.CredentialsExpired", C.PERMISSION_DENIED),
    ("Neo.ClientError.Security.TokenExpired", C.PERMISSION_DENIED),
    ("Neo.TransientError.General.DatabaseUnavailable", C.UPSTREAM_UNAVAILABLE),
])
def test_login_refused(code: str, failure_class: C) -> None:
    with bolt_server(hello=_failure(code)) as port:
        exc = raised(lambda: _run(port))
    assert isinstance(exc, neo4j.exceptions.Neo4jError) and exc.code == code
    result = check(exc, failure_class, False)
    # the address the driver was connecting to (a frame's ``address``, neo4j's ``Address`` tuple) names the server
    assert result.upstream == errscope.Upstream("neo4j", code.rsplit(".", 1)[1], f"{HOST}:{port}")


@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    # the request: do not send it again as it is
    ("Neo.ClientError.Statement.SyntaxError", C.INVALID_INPUT, False),
    ("Neo.ClientError.Statement.ParameterMissing", C.INVALID_INPUT, False),
    ("Neo.ClientError.Statement.ArgumentError", C.INVALID_INPUT, False),
    ("Neo.ClientError.Statement.TypeError", C.INVALID_INPUT, False),
    ("Neo.ClientError.Schema.ConstraintValidationFailed", C.INVALID_INPUT, False),  # a unique node exists
    ("Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists", C.INVALID_INPUT, False),
    ("Neo.ClientError.Statement.EntityNotFound", C.NOT_FOUND, False),
    ("Neo.ClientError.Database.DatabaseNotFound", C.NOT_FOUND, False),
    ("Neo.ClientError.Procedure.ProcedureNotFound", C.NOT_FOUND, False),
    ("Neo.ClientError.Security.Forbidden", C.PERMISSION_DENIED, False),
    ("Neo.ClientError.Security.AuthorizationExpired", C.PERMISSION_DENIED, False),
    # the server's state: the same request may succeed later, and nothing was committed
    ("Neo.TransientError.Transaction.DeadlockDetected", C.UPSTREAM_UNAVAILABLE, False),
    ("Neo.TransientError.General.MemoryPoolOutOfMemoryError", C.UPSTREAM_UNAVAILABLE, False),
    # an operator killed it (the driver files it as Neo.ClientError.Transaction.Terminated: not to be retried)
    ("Neo.TransientError.Transaction.Terminated", C.UPSTREAM_UNAVAILABLE, False),
    ("Neo.TransientError.General.DatabaseUnavailable", C.UPSTREAM_UNAVAILABLE, False),
    ("Neo.TransientError.Request.ResourceExhaustion", C.UPSTREAM_UNAVAILABLE, False),  # the server is overloaded
    # the server failed under the statement: whether it applied is open
    ("Neo.DatabaseError.General.UnknownError", C.UPSTREAM_UNAVAILABLE, None),
    ("Neo.DatabaseError.Statement.ExecutionFailed", C.UPSTREAM_UNAVAILABLE, None),
])
def test_query_refused(code: str, failure_class: C, side_effect: bool | None) -> None:
    with bolt_server(run=_failure(code)) as port:
        exc = raised(lambda: _run(port))
    # the driver rewrites a few codes (TransientError.Transaction.Terminated: a ClientError); the title stays
    assert isinstance(exc, neo4j.exceptions.Neo4jError) and exc.code.rsplit(".", 1)[1] == code.rsplit(".", 1)[1]
    result = check(exc, failure_class, side_effect)
    assert result.upstream == errscope.Upstream("neo4j", code.rsplit(".", 1)[1])  # the title: a code outgrows a label


@pytest.mark.parametrize("code", ["Neo.ClientError.General.ForbiddenOnReadOnlyDatabase",
                                  "Neo.ClientError.Cluster.NotALeader"])  # a write sent to a follower
def test_write_to_a_server_that_takes_no_writes(code: str) -> None:
    # the driver turns these into WriteServiceUnavailable (the server is no writer: a read replica, a database set
    # read-only), raised while handling the Neo4jError: refused, nothing written
    with bolt_server(run=_failure(code)) as port:
        exc = raised(lambda: _run(port, "CREATE (o:Order {id: $id})"))
    assert isinstance(exc, neo4j.exceptions.WriteServiceUnavailable)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_connection_dropped_under_the_query() -> None:
    with bolt_server(run="drop") as port:
        exc = raised(lambda: _run(port))
    assert isinstance(exc, (neo4j.exceptions.SessionExpired, neo4j.exceptions.ServiceUnavailable))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_query_never_answered() -> None:
    # the server's own hint (Bolt 4.3+: connection.recv_timeout_seconds) is the driver's read timeout
    with bolt_server(run="stall", hints={"connection.recv_timeout_seconds": 1}) as port:
        exc = raised(lambda: _run(port))
    assert isinstance(exc, (neo4j.exceptions.SessionExpired, neo4j.exceptions.ServiceUnavailable))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_not_a_bolt_server() -> None:
    # an HTTP server on the Bolt port (Neo4j's browser port 7474 given by mistake): the handshake gets no version
    from tests.classification.upstreams import answering
    with answering(400, "") as port:
        exc = raised(lambda: _run(port))
    assert isinstance(exc, neo4j.exceptions.ServiceUnavailable)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_tls_to_a_plain_listener() -> None:
    # bolt+ssc:// (TLS, any certificate) to a server that speaks Bolt in the clear: the handshake never completes
    with bolt_server() as port:
        exc = raised(lambda: _run_at(f"bolt+ssc://{HOST}:{port}"))
    assert isinstance(exc, neo4j.exceptions.ServiceUnavailable)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_connect_times_out(backlog_port: int) -> None:
    exc = raised(lambda: _run_at(f"bolt://{HOST}:{backlog_port}"))
    assert isinstance(exc, neo4j.exceptions.ServiceUnavailable)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def _run_at(uri: str) -> Any:
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", "corpus-pw"), connection_timeout=1,
                                    connection_acquisition_timeout=2) as driver:
        with driver.session() as session:
            return session.run("RETURN 1").data()
