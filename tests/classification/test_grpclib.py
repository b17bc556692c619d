"""grpclib, the pure-Python asyncio gRPC (what betterproto's generated clients call), against a grpclib server on
127.0.0.1 whose one method fails with the status the request names.

grpclib's ``GRPCError`` keeps the status as ``status``, a member of its own ``grpclib.const.Status`` enum, named as
google/rpc/code.proto names the codes: the same status must land where grpcio's ``RpcError.code()`` does (see
test_grpc.py), read by the code's name, not by the library that carries it. Messages are protobuf's well-known
``StringValue``, so no generated code is needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpclib.client
import grpclib.const
import grpclib.server
import pytest
from google.protobuf.wrappers_pb2 import StringValue
from grpclib.exceptions import GRPCError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port

Status = grpclib.const.Status


class Orders:
    """The service: ``Get`` raises ``GRPCError`` with the status its request names; ``STALL`` never answers,
    ``CRASH`` raises a plain exception (the server answers UNKNOWN)."""

    def __mapping__(self) -> dict[str, grpclib.const.Handler]:
        return {"/orders.Orders/Get": grpclib.const.Handler(self.get, grpclib.const.Cardinality.UNARY_UNARY,
                                                            StringValue, StringValue)}

    async def get(self, stream: Any) -> None:
        request = await stream.recv_message()
        if request.value == "STALL":
            await asyncio.sleep(30)
        if request.value == "CRASH":
            raise RuntimeError("the handler failed")
        raise GRPCError(Status[request.value], "upstream said no")


async def _call(value: str, *, port: int | None = None, timeout: float = 5) -> None:
    server = None
    if port is None:
        server = grpclib.server.Server([Orders()])
        await server.start(HOST, 0)
        port = server._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    channel = grpclib.client.Channel(HOST, port)
    try:
        call = grpclib.client.UnaryUnaryMethod(channel, "/orders.Orders/Get", StringValue, StringValue)
        await call(StringValue(value=value), timeout=timeout)
    finally:
        channel.close()
        if server is not None:
            server.close()
            await server.wait_closed()


def _run(value: str, **options: Any) -> Callable[[], Awaitable[None]]:
    return lambda: _call(value, **options)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    ("NOT_FOUND", C.NOT_FOUND, False),
    ("PERMISSION_DENIED", C.PERMISSION_DENIED, False),
    ("UNAUTHENTICATED", C.PERMISSION_DENIED, False),
    ("RESOURCE_EXHAUSTED", C.RATE_LIMITED, False),
    ("INVALID_ARGUMENT", C.INVALID_INPUT, False),
    ("FAILED_PRECONDITION", C.INVALID_INPUT, False),
    ("ALREADY_EXISTS", C.INVALID_INPUT, False),
    ("ABORTED", C.UPSTREAM_UNAVAILABLE, False),
    ("UNAVAILABLE", C.UPSTREAM_UNAVAILABLE, None),
    ("INTERNAL", C.UPSTREAM_UNAVAILABLE, True),
    ("DEADLINE_EXCEEDED", C.UPSTREAM_UNAVAILABLE, True),
    ("DATA_LOSS", C.UPSTREAM_UNAVAILABLE, True),
])
def test_status(status: str, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(_run(status))
    assert isinstance(exc, GRPCError) and exc.status is Status[status]
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("grpc", status)


def test_handler_crashed() -> None:
    exc = raised(_run("CRASH"))
    assert isinstance(exc, GRPCError) and exc.status is Status.UNKNOWN
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_deadline_passed_while_waiting() -> None:
    exc = raised(_run("STALL", timeout=0.3))
    assert isinstance(exc, asyncio.TimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_server_not_running() -> None:
    exc = raised(_run("NOT_FOUND", port=closed_port()))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_http1_server_on_the_port() -> None:
    """An HTTP/1.1 server where the gRPC service should be: it answers the HTTP/2 preface with a 400 and closes
    (grpclib: StreamTerminatedError)."""
    with HttpUpstream() as server:
        exc = raised(_run("NOT_FOUND", port=server.port))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)  # the headers went out before the peer closed
