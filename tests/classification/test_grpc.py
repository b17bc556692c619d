"""grpcio (sync and asyncio stubs) against a real gRPC server on 127.0.0.1.

The server's one method aborts with the status code the request names, or stalls past the
client's deadline; requests and answers are raw bytes, so no generated stubs are needed.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterator

import grpc
import grpc.aio
import pytest

from errscope import FailureClass as C
from errscope._classify import explain
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, silent_listener

METHOD = "/corpus.Upstream/Call"
SHORT = 0.3


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    stop = threading.Event()

    def call(request: bytes, context: grpc.ServicerContext) -> bytes:
        if request == b"STALL":
            stop.wait(10)
            return b""
        context.abort(grpc.StatusCode[request.decode()], "upstream said no")
        return b""  # not reached: abort raises

    handler = grpc.method_handlers_generic_handler("corpus.Upstream", {"Call": grpc.unary_unary_rpc_method_handler(call)})
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(f"{HOST}:0")
    server.start()
    yield f"{HOST}:{port}"
    stop.set()
    server.stop(0)


def _call(target: str, request: bytes, timeout: float = 5) -> bytes:
    with grpc.insecure_channel(target) as channel:
        return channel.unary_unary(METHOD)(request, timeout=timeout)


# google/rpc/code.proto gives each code its HTTP mapping; the class follows it.
@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    ("INVALID_ARGUMENT", C.INVALID_INPUT, False),
    ("NOT_FOUND", C.NOT_FOUND, False),
    ("ALREADY_EXISTS", C.INVALID_INPUT, False),
    ("PERMISSION_DENIED", C.PERMISSION_DENIED, False),
    ("UNAUTHENTICATED", C.PERMISSION_DENIED, False),
    ("RESOURCE_EXHAUSTED", C.RATE_LIMITED, False),
    ("UNAVAILABLE", C.UPSTREAM_UNAVAILABLE, None),  # also a connection dropped mid-call: not said
    ("DEADLINE_EXCEEDED", C.UPSTREAM_UNAVAILABLE, True),  # the server's own deadline ran out mid-work
    ("FAILED_PRECONDITION", C.INVALID_INPUT, False),
    ("ABORTED", C.UPSTREAM_UNAVAILABLE, False),  # a concurrency conflict, rolled back: retry the whole thing
    ("INTERNAL", C.UPSTREAM_UNAVAILABLE, True),
    ("UNIMPLEMENTED", C.UNKNOWN, False),  # our call is wrong (a method the server lacks): a bug, not the caller's
])
def test_server_aborts(target: str, code: str, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(lambda: _call(target, code.encode()))
    assert isinstance(exc, grpc.RpcError) and exc.code() is grpc.StatusCode[code]
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("grpc", code)
    assert explain(exc)[1] is exc


def test_deadline_exceeded_while_the_server_works(target: str) -> None:
    exc = raised(lambda: _call(target, b"STALL", timeout=SHORT))
    assert isinstance(exc, grpc.RpcError) and exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


# gRPC reports a refused connection and an unresolvable name as UNAVAILABLE, the same code as a
# connection lost mid-call; only the details text tells them apart, which errscope never parses.
def test_connection_refused() -> None:
    exc = raised(lambda: _call(f"{HOST}:{closed_port()}", b"OK"))
    assert isinstance(exc, grpc.RpcError) and exc.code() is grpc.StatusCode.UNAVAILABLE
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_name_does_not_resolve() -> None:
    exc = raised(lambda: _call(f"{UNRESOLVABLE}:50051", b"OK"))
    assert isinstance(exc, grpc.RpcError) and exc.code() is grpc.StatusCode.UNAVAILABLE
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_channel_never_ready() -> None:
    """``channel_ready_future(...).result(timeout)`` on a listener that never speaks HTTP/2: the wait for the channel
    to connect ran out (grpc's ``FutureTimeoutError``), no RPC was started on it."""
    with silent_listener() as port:
        channel = grpc.insecure_channel(f"{HOST}:{port}")
        try:
            exc = raised(lambda: grpc.channel_ready_future(channel).result(timeout=SHORT))
        finally:
            channel.close()
    assert isinstance(exc, grpc.FutureTimeoutError)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.system == "grpc"


def test_rpc_future_waited_out(target: str) -> None:
    """The control: the same ``FutureTimeoutError`` from an RPC's own future, which the server was handling."""
    with grpc.insecure_channel(target) as channel:
        future = channel.unary_unary(METHOD).future(b"STALL")
        try:
            exc = raised(lambda: future.result(timeout=SHORT))
        finally:
            future.cancel()
    assert isinstance(exc, grpc.FutureTimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


class TestAio:
    def test_server_aborts(self, target: str) -> None:
        async def call() -> None:
            async with grpc.aio.insecure_channel(target) as channel:
                await channel.unary_unary(METHOD)(b"RESOURCE_EXHAUSTED", timeout=5)

        exc = raised(call)
        assert isinstance(exc, grpc.aio.AioRpcError)
        check(exc, C.RATE_LIMITED, False)

    def test_deadline_exceeded(self, target: str) -> None:
        async def call() -> None:
            async with grpc.aio.insecure_channel(target) as channel:
                await channel.unary_unary(METHOD)(b"STALL", timeout=SHORT)

        exc = raised(call)
        assert isinstance(exc, grpc.aio.AioRpcError) and exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        check(exc, C.UPSTREAM_UNAVAILABLE, True)
