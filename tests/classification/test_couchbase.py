"""The Couchbase Python SDK (``couchbase`` 4, over its C++ core) against a real Key-Value node on 127.0.0.1: raw
sockets speaking the memcached binary protocol as Couchbase Server does (HELLO, SASL, SELECT_BUCKET, the cluster map
by GET_CLUSTER_CONFIG), then answering the tool's operation with a KV status
(https://github.com/couchbase/kv_engine/blob/master/docs/BinaryProtocol.md#response-status).

The SDK raises one class per failure (``couchbase.exceptions``: ``DocumentNotFoundException``,
``DocumentExistsException``, ``ValueTooLargeException``, ``RateLimitedException``, ``AuthenticationException``, ...)
and, for a timeout, says whether the operation took effect in the class's name: ``UnAmbiguousTimeoutException`` (it
was not performed: never connected, or every attempt refused) or ``AmbiguousTimeoutException`` (it may have been;
https://docs.couchbase.com/python-sdk/current/howtos/error-handling.html). The login here is SASL PLAIN, which the
SDK uses over plain TCP only when told to (``allowed_sasl_mechanisms``).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest

couchbase = pytest.importorskip("couchbase")

from couchbase.auth import PasswordAuthenticator  # noqa: E402
from couchbase.cluster import Cluster  # noqa: E402
from couchbase.options import ClusterOptions, ClusterTimeoutOptions  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port  # noqa: E402

_HELLO, _SASL_LIST_MECHS, _SASL_AUTH, _SASL_STEP, _SELECT_BUCKET, _GET_CLUSTER_CONFIG = 0x1F, 0x20, 0x21, 0x22, 0x89, \
    0xB5
_GET, _SET, _ADD = 0x00, 0x01, 0x02
_HEADER = ">BBHBBHIIQ"  # magic, opcode, key length, extras length, datatype, status, body length, opaque, CAS


def _cluster_map(port: int) -> bytes:
    return json.dumps({
        "rev": 1, "name": "shop", "uuid": "5f0c3a528a8e4ac49c1f5a3c2d1e0f17", "nodeLocator": "vbucket",
        "nodesExt": [{"services": {"kv": port, "mgmt": 8091}, "hostname": HOST, "thisNode": True}],
        "vBucketServerMap": {"hashAlgorithm": "CRC", "numReplicas": 0, "serverList": [f"{HOST}:{port}"],
                             "vBucketMap": [[0]] * 1024},
        "bucketCapabilities": ["couchapi", "xattr", "dcp", "cbhello", "touch", "cccp", "nodesExt"],
        "bucketCapabilitiesVer": ""}).encode()


class _Node:
    """A KV node: ``login`` is SASL_AUTH's status (0: accepted), ``status`` what the tool's operation gets."""

    def __init__(self, status: int, login: int) -> None:
        self.status, self.login = status, login

    def serve(self, conn: socket.socket, port: int) -> None:
        with conn:
            conn.settimeout(30)
            buffer = b""
            try:
                while True:
                    while len(buffer) < 24:
                        buffer += self._recv(conn)
                    _, opcode, _, _, _, _, length, opaque, _ = struct.unpack(_HEADER, buffer[:24])
                    while len(buffer) < 24 + length:
                        buffer += self._recv(conn)
                    buffer = buffer[24 + length:]
                    status, value, datatype = self._answer(opcode, port)
                    conn.sendall(struct.pack(_HEADER, 0x81, opcode, 0, 0, datatype, status, len(value), opaque, 0)
                                 + value)
            except (OSError, ConnectionError):
                return

    def _answer(self, opcode: int, port: int) -> tuple[int, bytes, int]:
        if opcode == _HELLO or opcode == _SELECT_BUCKET:
            return 0, b"", 0
        if opcode == _SASL_LIST_MECHS:
            return 0, b"PLAIN", 0
        if opcode in (_SASL_AUTH, _SASL_STEP):
            return self.login, b"Auth failure" if self.login else b"", 0
        if opcode == _GET_CLUSTER_CONFIG:
            return 0, _cluster_map(port), 0x01  # JSON
        if opcode in (_GET, _SET, _ADD):
            return self.status, b"", 0
        return 0x81, b"", 0  # unknown command

    @staticmethod
    def _recv(conn: socket.socket) -> bytes:
        data = conn.recv(65536)
        if not data:
            raise ConnectionError("closed")
        return data


@contextmanager
def kv_node(status: int = 0, login: int = 0) -> Iterator[int]:
    node = _Node(status, login)
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(16)
        port = int(sock.getsockname()[1])

        def accept() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                threading.Thread(target=node.serve, args=(conn, port), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        try:
            yield port
        finally:
            sock.shutdown(socket.SHUT_RDWR)


def _collection(address: str) -> Any:
    options = ClusterOptions(PasswordAuthenticator("tool", "pw", allowed_sasl_mechanisms=["PLAIN"]),
                             timeout_options=ClusterTimeoutOptions(connect_timeout=timedelta(seconds=2),
                                                                   bootstrap_timeout=timedelta(seconds=2),
                                                                   kv_timeout=timedelta(seconds=1)))
    return Cluster(f"couchbase://{address}", options).bucket("shop").default_collection()


def _get(address: str) -> Callable[[], Any]:
    return lambda: _collection(address).get("ord_17")


def _insert(address: str) -> Callable[[], Any]:
    return lambda: _collection(address).insert("ord_17", {"total": 5})


@pytest.mark.parametrize(("operation", "status", "exc_name", "failure_class", "side_effect"), [
    (_get, 0x01, "DocumentNotFoundException", C.NOT_FOUND, False),  # KEY_ENOENT
    (_insert, 0x02, "DocumentExistsException", C.INVALID_INPUT, False),  # KEY_EEXISTS
    # E2BIG: over the document size limit; the SDK has no class for its code 104 (value_too_large), only the code
    (_insert, 0x03, "CouchbaseException", C.INVALID_INPUT, False),
    (_get, 0x30, "RateLimitedException", C.RATE_LIMITED, False),  # RATE_LIMITED_NETWORK_INGRESS
    (_get, 0x24, "AuthenticationException", C.PERMISSION_DENIED, False),  # EACCESS: no read privilege
])
def test_refused(operation: Callable[[str], Callable[[], Any]], status: int, exc_name: str, failure_class: C,
                 side_effect: bool) -> None:
    with kv_node(status) as port:
        exc = raised(operation(f"{HOST}:{port}"))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("operation", "exc_name", "side_effect"), [
    # a read retried on ETMPFAIL until its timeout: never performed (its code 14, unambiguous timeout)
    (_get, "TemporaryFailException", False),
])
def test_temporary_failure_until_the_timeout(operation: Callable[[str], Callable[[], Any]], exc_name: str,
                                             side_effect: bool) -> None:
    with kv_node(0x86) as port:  # ETMPFAIL: the node cannot take it now
        exc = raised(operation(f"{HOST}:{port}"))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_login_refused() -> None:
    with kv_node(login=0x20) as port:  # AUTH_ERROR
        exc = raised(_get(f"{HOST}:{port}"))
    assert type(exc).__name__ == "AuthenticationException"
    check(exc, C.PERMISSION_DENIED, False)


@pytest.mark.parametrize("address", [pytest.param("refused", id="refused"), pytest.param(UNRESOLVABLE, id="dns")])
def test_never_connected(address: str) -> None:
    exc = raised(_get(f"{HOST}:{closed_port()}" if address == "refused" else address))
    assert type(exc).__name__ == "UnAmbiguousTimeoutException"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
