"""Clients of binary protocols over TCP a tool drives, against real sockets on 127.0.0.1: ClickHouse's native protocol
(clickhouse-driver), Modbus/TCP (pymodbus) and Apache Thrift (its own TSocket and THttpClient transports).

- clickhouse-driver wraps a socket error as ``NetworkError``/``SocketTimeoutError`` (codes 210/209 in the text), and
  lets its Cython reader's bare ``EOFError`` out when the server closes the stream; all here happen on its hello,
  before the query is sent. A server's Exception packet is ``ServerException`` with ClickHouse's code (read here as
  the driver reads the one a server sends in answer to its hello).
- pymodbus raises ``ConnectionException`` (refused; the stream closed mid-read) and ``ModbusIOException`` ("No response
  received") with the fault in words only.
- Thrift's ``TTransportException`` keeps its kind as ``type`` (NOT_OPEN, TIMED_OUT, END_OF_FILE, UNKNOWN over a
  socket error); THttpClient lets http.client's own errors out.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port, closing_listener, silent_listener


def _clickhouse(port: int) -> Callable[[], Any]:
    driver = pytest.importorskip("clickhouse_driver")
    client = driver.Client(HOST, port=port, connect_timeout=1, send_receive_timeout=1, sync_request_timeout=1)
    return lambda: client.execute("INSERT INTO refunds VALUES (17, 40)")


def _modbus(port: int) -> Callable[[], Any]:
    client_module = pytest.importorskip("pymodbus.client")
    client = client_module.ModbusTcpClient(HOST, port=port, timeout=1, retries=0)

    def write() -> Any:
        client.connect()
        return client.write_register(1, 17, device_id=1)
    return write


def _thrift_call(transport: Any) -> Callable[[], Any]:
    protocol_module = pytest.importorskip("thrift.protocol.TBinaryProtocol")
    protocol = protocol_module.TBinaryProtocol(transport)

    def call() -> Any:  # a call of ``refund()`` with no arguments, as generated code writes it
        transport.open()
        protocol.writeMessageBegin("refund", 1, 1)
        protocol.writeStructBegin("refund_args")
        protocol.writeFieldStop()
        protocol.writeStructEnd()
        protocol.writeMessageEnd()
        transport.flush()
        return protocol.readMessageBegin()
    return call


def _thrift(port: int) -> Callable[[], Any]:
    tsocket = pytest.importorskip("thrift.transport.TSocket")
    ttransport = pytest.importorskip("thrift.transport.TTransport")
    sock = tsocket.TSocket(HOST, port)
    sock.setTimeout(1000)
    return _thrift_call(ttransport.TBufferedTransport(sock))


def _thrift_http(port: int) -> Callable[[], Any]:
    thttp = pytest.importorskip("thrift.transport.THttpClient")
    transport = thttp.THttpClient(f"http://{HOST}:{port}/refunds")
    transport.setTimeout(1000)
    return _thrift_call(transport)


CALLS = {"clickhouse": _clickhouse, "modbus": _modbus, "thrift": _thrift, "thrift_http": _thrift_http}
BEFORE_THE_REQUEST = {"clickhouse"}  # its hello comes first: a server that fails there never saw the query


@pytest.mark.parametrize("client", list(CALLS))
def test_refused(client: str) -> None:
    check(raised(CALLS[client](closed_port())), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", list(CALLS))
def test_closed_after_the_request(client: str) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(CALLS[client](port))
    check(exc, C.UPSTREAM_UNAVAILABLE, client not in BEFORE_THE_REQUEST)


@pytest.mark.parametrize("client", list(CALLS))
def test_no_answer(client: str) -> None:
    with silent_listener() as port:
        exc = raised(CALLS[client](port))
    check(exc, C.UPSTREAM_UNAVAILABLE, client not in BEFORE_THE_REQUEST)


def test_thrift_kinds() -> None:
    """The kinds the rule reads, as Thrift's TSocket raised them here."""
    with closing_listener(read_first=True) as port:
        assert raised(_thrift(port)).type == 4  # type: ignore[attr-defined]  # END_OF_FILE
    with silent_listener() as port:
        assert raised(_thrift(port)).type == 3  # type: ignore[attr-defined]  # TIMED_OUT
    assert raised(_thrift(closed_port())).type == 1  # type: ignore[attr-defined]  # NOT_OPEN


def _clickhouse_exception(code: int, message: str) -> bytes:
    """The native protocol's Exception packet (type 2): code (Int32), name, message, stack trace (varint-prefixed
    strings), no nested exception (src/Server/TCPHandler.cpp, clickhouse-driver's readhelpers.read_exception)."""
    def text(value: str) -> bytes:
        data = value.encode()
        return bytes([len(data)]) + data
    return b"\x02" + struct.pack("<i", code) + text("DB::Exception") + text(message) + text("") + b"\x00"


CLICKHOUSE_EXCEPTIONS = [
    (516, "default: Authentication failed: password is incorrect, or there is no user with such name.",
     C.PERMISSION_DENIED),
    (497, "default: Not enough privileges. To execute this query, it's necessary to have the grant INSERT ON "
     "default.refunds", C.PERMISSION_DENIED),
    (60, "Table default.refunds does not exist", C.UNKNOWN),  # the tool's own query names it
    (53, "Type mismatch in IN or VALUES section. Expected: UInt32. Got: String", C.INVALID_INPUT),
    (241, "Memory limit (total) exceeded: would use 9.31 GiB (attempt to allocate chunk of 4194304 bytes), maximum: "
     "9.30 GiB", C.UPSTREAM_UNAVAILABLE),
    (202, "Too many simultaneous queries. Maximum: 100", C.UPSTREAM_UNAVAILABLE),
    (159, "Timeout exceeded: elapsed 5.000 seconds, maximum: 5", C.UPSTREAM_UNAVAILABLE),
    (252, "Too many parts (300). Merges are processing significantly slower than inserts", C.UPSTREAM_UNAVAILABLE),
]


@pytest.mark.parametrize(("code", "message", "failure_class"), CLICKHOUSE_EXCEPTIONS)
def test_clickhouse_server_exception(code: int, message: str, failure_class: C) -> None:
    with closing_listener(_clickhouse_exception(code, message), read_first=True) as port:
        exc = raised(_clickhouse(port))
    assert (type(exc).__name__, exc.code) == ("ServerException", code)  # type: ignore[attr-defined]
    check(exc, failure_class, False)
