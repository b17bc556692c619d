"""qdrant-client over gRPC (``prefer_grpc=True``, the transport its docs advise for throughput) against a real gRPC
server on 127.0.0.1 built from qdrant-client's own generated stubs (``qdrant_client.grpc``), which fails the call the
way a Qdrant server does: a gRPC status and Qdrant's own words (``Not found: Collection `refunds` doesn't exist!``,
``Wrong input: Vector dimension error``), and for its rate limiter ``RESOURCE_EXHAUSTED`` with a ``retry-after``
trailer (seconds).

qdrant-client lets grpcio's ``RpcError`` through, except a ``RESOURCE_EXHAUSTED`` with a ``retry-after`` trailer, which
its interceptor raises as its own ``ResourceExhaustedResponse(retry_after_s=...)``. (Its REST client is in
test_api_sdks_more.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import pytest

qdrant_client = pytest.importorskip("qdrant_client")

import grpc  # noqa: E402
from qdrant_client.grpc import collections_service_pb2_grpc, points_service_pb2_grpc  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port  # noqa: E402


class _Abort:
    def __init__(self, code: grpc.StatusCode | None, details: str, trailer: tuple[tuple[str, str], ...] = (),
                 stall: float = 0) -> None:
        self.code, self.details, self.trailer, self.stall = code, details, trailer, stall

    def __call__(self, request: Any, context: Any) -> Any:
        if self.stall:
            import time
            time.sleep(self.stall)
        if self.trailer:
            context.set_trailing_metadata(self.trailer)
        context.abort(self.code, self.details)


@contextmanager
def qdrant(abort: _Abort) -> Iterator[int]:
    collections = collections_service_pb2_grpc.CollectionsServicer()
    points = points_service_pb2_grpc.PointsServicer()
    collections.Get = abort  # type: ignore[method-assign]
    points.Upsert = abort  # type: ignore[method-assign]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    collections_service_pb2_grpc.add_CollectionsServicer_to_server(collections, server)
    points_service_pb2_grpc.add_PointsServicer_to_server(points, server)
    port = server.add_insecure_port(f"{HOST}:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(None)


def _client(port: int, timeout: int = 5) -> Any:
    return qdrant_client.QdrantClient(host=HOST, port=closed_port(), grpc_port=port, prefer_grpc=True,
                                      timeout=timeout, check_compatibility=False)


def _get_collection(port: int, timeout: int = 5) -> Callable[[], Any]:
    return lambda: _client(port, timeout).get_collection("refunds")


def _upsert(port: int) -> Callable[[], Any]:
    from qdrant_client.models import PointStruct
    return lambda: _client(port).upsert("refunds", [PointStruct(id=17, vector=[0.1, 0.2, 0.3])])


@pytest.mark.parametrize(("code", "details", "failure_class", "side_effect"), [
    (grpc.StatusCode.NOT_FOUND, "Not found: Collection `refunds` doesn't exist!", C.NOT_FOUND, False),
    (grpc.StatusCode.INVALID_ARGUMENT, "Wrong input: Vector dimension error: expected dim: 4, got 3",
     C.INVALID_INPUT, False),
    (grpc.StatusCode.ALREADY_EXISTS, "Wrong input: Collection `refunds` already exists!", C.INVALID_INPUT, False),
    (grpc.StatusCode.PERMISSION_DENIED, "Forbidden: Write access denied", C.PERMISSION_DENIED, False),
    (grpc.StatusCode.UNAUTHENTICATED, "Must provide an API key or an Authorization bearer token",
     C.PERMISSION_DENIED, False),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "Rate limiting exceeded: Write rate limit exceeded", C.RATE_LIMITED, False),
    (grpc.StatusCode.UNAVAILABLE, "Service unavailable", C.UPSTREAM_UNAVAILABLE, None),
    (grpc.StatusCode.INTERNAL, "Service internal error: task panicked", C.UPSTREAM_UNAVAILABLE, True),
])
def test_refused(code: grpc.StatusCode, details: str, failure_class: C, side_effect: bool | None) -> None:
    with qdrant(_Abort(code, details)) as port:
        exc = raised(_upsert(port))
    assert isinstance(exc, grpc.RpcError) and exc.code() == code
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == code.name


def test_rate_limited_with_retry_after() -> None:
    with qdrant(_Abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "Rate limiting exceeded", (("retry-after", "4"),))) as port:
        exc = raised(_upsert(port))
    assert type(exc).__name__ == "ResourceExhaustedResponse" and exc.retry_after_s == 4
    assert check(exc, C.RATE_LIMITED, False).retry_after == 4.0


def test_collection_lookup_finds_nothing() -> None:
    with qdrant(_Abort(grpc.StatusCode.NOT_FOUND, "Not found: Collection `refunds` doesn't exist!")) as port:
        exc = raised(_get_collection(port))
    check(exc, C.NOT_FOUND, False)


def test_deadline_passes() -> None:
    with qdrant(_Abort(grpc.StatusCode.INTERNAL, "late", stall=2)) as port:
        exc = raised(_get_collection(port, timeout=1))
    assert isinstance(exc, grpc.RpcError) and exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_nothing_listens() -> None:
    # grpcio's UNAVAILABLE, as for a connection lost mid-call: only its details text says it never connected (as in
    # test_grpc, errscope does not parse it)
    exc = raised(_get_collection(closed_port()))
    assert isinstance(exc, grpc.RpcError) and exc.code() == grpc.StatusCode.UNAVAILABLE
    check(exc, C.UPSTREAM_UNAVAILABLE, None)
