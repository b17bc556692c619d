"""cassandra-driver (also ScyllaDB's fork, the same ``cassandra`` package) against a real CQL server on 127.0.0.1:
raw sockets speaking the native protocol v4 (https://github.com/apache/cassandra/blob/trunk/doc/native_protocol_v4.spec),
which opens the session (OPTIONS, STARTUP, the login), answers the control connection's ``system.local`` and
``system.peers`` queries, and answers the tool's statement with an ERROR frame.

The ERROR frame's code is the spec's table (§9): 0x0000 server error, 0x0100 bad credentials, 0x1000 unavailable (too
few replicas alive: the coordinator did not run it), 0x1001 overloaded, 0x1002 bootstrapping, 0x1100 write timeout
(some replicas may have written: the spec says so), 0x1200 read timeout, 0x1300 read failure, 0x1500 write failure,
0x2000 syntax error, 0x2100 unauthorized, 0x2200 invalid, 0x2300 config error, 0x2400 already exists. The driver
raises the error message itself for most (``cassandra.protocol.SyntaxException``, ``InvalidRequest`` ...: ``.code``
is the spec's), turns a few into its own classes (``cassandra.Unavailable``, ``ReadTimeout``, ``WriteTimeout``,
``ReadFailure``, ``WriteFailure``, ``AlreadyExists``), and a refused login into ``NoHostAvailable`` over
``AuthenticationFailed``. Its default RetryPolicy retries none of these on a one-node cluster.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

cassandra = pytest.importorskip("cassandra")

from cassandra.auth import PlainTextAuthProvider  # noqa: E402
from cassandra.cluster import Cluster, NoHostAvailable  # noqa: E402
from cassandra.policies import RetryPolicy  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST  # noqa: E402

_ERROR, _STARTUP, _READY, _AUTHENTICATE, _OPTIONS, _SUPPORTED, _QUERY, _RESULT = 0x00, 0x01, 0x02, 0x03, 0x05, 0x06, \
    0x07, 0x08
_PREPARE, _EXECUTE, _REGISTER, _AUTH_RESPONSE, _AUTH_SUCCESS = 0x09, 0x0A, 0x0B, 0x0F, 0x10
_VARCHAR = 0x000D


def _string(value: str) -> bytes:
    data = value.encode()
    return struct.pack(">H", len(data)) + data


def _frame(stream: int, opcode: int, body: bytes) -> bytes:
    return struct.pack(">BBhBi", 0x84, 0, stream, opcode, len(body)) + body


def _rows(table: str, row: dict[str, str] | None) -> bytes:
    """A RESULT Rows body (§4.2.5.2): every column a varchar, one row or none."""
    columns = list(row or {"key": ""})
    metadata = struct.pack(">ii", 0x0001, len(columns)) + _string("system") + _string(table)
    metadata += b"".join(_string(name) + struct.pack(">H", _VARCHAR) for name in columns)
    body = struct.pack(">i", 0x0002) + metadata + struct.pack(">i", 1 if row else 0)
    if row:
        body += b"".join(struct.pack(">i", len(value.encode())) + value.encode() for value in row.values())
    return body


_LOCAL = {"key": "local", "cluster_name": "corpus", "data_center": "dc1", "rack": "rack1",
          "release_version": "4.1.5", "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner"}


class _Cql:
    """One CQL node: ``login`` (an ERROR body) refuses the login, ``error`` is the ERROR body every statement of the
    tool's gets."""

    def __init__(self, error: bytes | None, login: bytes | None) -> None:
        self.error, self.login = error, login

    def serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            try:
                while True:
                    header = self._read(conn, 9)
                    version, _, stream, opcode, length = struct.unpack(">BBhBi", header)
                    body = self._read(conn, length) if length else b""
                    if version & 0x7F != 4:
                        message = b"Invalid or unsupported protocol version; the supported versions are (4/v4)"
                        conn.sendall(struct.pack(">BBhBi", version, 0, stream, _ERROR, 4 + 2 + len(message))
                                     + struct.pack(">iH", 0x000A, len(message)) + message)
                        continue
                    conn.sendall(_frame(stream, *self._answer(opcode, body)))
            except (OSError, ConnectionError):
                return

    def _answer(self, opcode: int, body: bytes) -> tuple[int, bytes]:
        if opcode == _OPTIONS:
            return _SUPPORTED, struct.pack(">H", 2) + _string("CQL_VERSION") + struct.pack(">H", 1) + _string(
                "3.4.6") + _string("COMPRESSION") + struct.pack(">H", 0)
        if opcode == _STARTUP:
            if self.login is not None:
                return _AUTHENTICATE, _string("org.apache.cassandra.auth.PasswordAuthenticator")
            return _READY, b""
        if opcode == _AUTH_RESPONSE:
            return _ERROR, self.login or b""
        if opcode == _REGISTER:
            return _READY, b""
        if opcode == _QUERY:
            query = body[4:4 + struct.unpack(">i", body[:4])[0]].decode()
            if "system.peers_v2" in query:
                return _ERROR, struct.pack(">i", 0x2200) + _string("unconfigured table peers_v2")
            if "system.local" in query:
                return _RESULT, _rows("local", _LOCAL)
            if "system.peers" in query:
                return _RESULT, _rows("peers", None)
            if self.error is not None:
                return _ERROR, self.error
            return _RESULT, struct.pack(">i", 0x0001)  # Void
        return _ERROR, struct.pack(">i", 0x000A) + _string("unexpected message")

    @staticmethod
    def _read(conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data


@contextmanager
def cql_node(error: bytes | None = None, login: bytes | None = None) -> Iterator[int]:
    node = _Cql(error, login)
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(16)

        def accept() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                threading.Thread(target=node.serve, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        try:
            yield int(sock.getsockname()[1])
        finally:
            sock.shutdown(socket.SHUT_RDWR)


def _execute(port: int, *, auth: bool = False) -> Any:
    cluster = Cluster([HOST], port=port, protocol_version=4, connect_timeout=3, control_connection_timeout=3,
                      schema_metadata_enabled=False, token_metadata_enabled=False,
                      auth_provider=PlainTextAuthProvider("tool", "wrong-pw") if auth else None)
    cluster.default_retry_policy = RetryPolicy()
    try:
        session = cluster.connect()
        return session.execute("INSERT INTO shop.orders (id, total) VALUES ('ord_17', 5)", timeout=3)
    finally:
        cluster.shutdown()


def _error(code: int, extra: bytes = b"") -> bytes:
    return struct.pack(">i", code) + _string("the server said no") + extra


_ONE = struct.pack(">H", 0x0001)  # consistency ONE


@pytest.mark.parametrize(("code", "extra", "failure_class", "side_effect"), [
    (0x0000, b"", C.UPSTREAM_UNAVAILABLE, None),  # the server failed under it
    (0x1000, _ONE + struct.pack(">ii", 1, 0), C.UPSTREAM_UNAVAILABLE, False),  # too few replicas: not run
    (0x1001, b"", C.UPSTREAM_UNAVAILABLE, False),  # overloaded
    (0x1002, b"", C.UPSTREAM_UNAVAILABLE, False),  # bootstrapping
    (0x1100, _ONE + struct.pack(">ii", 0, 1) + _string("SIMPLE"), C.UPSTREAM_UNAVAILABLE, True),  # may have written
    (0x1200, _ONE + struct.pack(">iiB", 0, 1, 0), C.UPSTREAM_UNAVAILABLE, True),
    (0x1500, _ONE + struct.pack(">iii", 0, 1, 1) + _string("SIMPLE"), C.UPSTREAM_UNAVAILABLE, True),
    (0x1300, _ONE + struct.pack(">iiiB", 0, 1, 1, 0), C.UPSTREAM_UNAVAILABLE, None),
    (0x2100, b"", C.PERMISSION_DENIED, False),  # no MODIFY permission on the table
    (0x2200, b"", C.INVALID_INPUT, False),  # the server refused the request's values
    (0x2400, _string("shop") + _string("orders"), C.INVALID_INPUT, False),  # the table exists already
    # the tool's own statement: a syntax error, a keyspace misconfigured (SQLSTATE class 42's and 3D's kin)
    (0x2000, b"", C.UNKNOWN, False),
    (0x2300, b"", C.UNKNOWN, False),
])
def test_statement_refused(code: int, extra: bytes, failure_class: C, side_effect: bool | None) -> None:
    with cql_node(error=_error(code, extra)) as port:
        exc = raised(lambda: _execute(port))
    assert type(exc).__module__.startswith("cassandra"), repr(exc)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.system == "cassandra"


def test_login_refused() -> None:
    with cql_node(login=_error(0x0100)) as port:
        exc = raised(lambda: _execute(port, auth=True))
    assert isinstance(exc, NoHostAvailable)
    check(exc, C.PERMISSION_DENIED, False)


def test_statement_never_answered() -> None:
    # the client's own timeout (OperationTimedOut) on an open session: the coordinator may have run it
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(16)
        port = int(sock.getsockname()[1])
        node = _Cql(None, None)
        stall = threading.Event()

        def serve(conn: socket.socket) -> None:
            original = node._answer

            def answer(opcode: int, body: bytes) -> tuple[int, bytes]:
                if opcode == _QUERY and b"shop.orders" in body:
                    stall.wait(10)
                return original(opcode, body)
            node._answer = answer  # type: ignore[method-assign]
            node.serve(conn)

        def accept() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                threading.Thread(target=serve, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        try:
            cluster = Cluster([HOST], port=port, protocol_version=4, connect_timeout=3, control_connection_timeout=3,
                              schema_metadata_enabled=False, token_metadata_enabled=False)
            try:
                session = cluster.connect()
                exc = raised(lambda: session.execute("SELECT * FROM shop.orders", timeout=0.5))
            finally:
                stall.set()
                cluster.shutdown()
        finally:
            sock.shutdown(socket.SHUT_RDWR)
    assert type(exc).__name__ == "OperationTimedOut"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
