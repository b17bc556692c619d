"""pymilvus (the Milvus vector database's Python client, over grpcio) against a real gRPC server on 127.0.0.1 that
implements Milvus's ``MilvusService`` from pymilvus's own generated stubs: it opens the session (``Connect``) and
answers ``DescribeCollection`` with a chosen ``common.Status``, or fails the call with a gRPC status.

Milvus answers a refusal inside the reply, not as a gRPC status: ``Status.code`` is one of its own error codes
(``merr``: https://github.com/milvus-io/milvus/blob/master/pkg/util/merr/errors.go; 100 collection not found, 1100
invalid parameter, 1401 privilege not permitted, 8 rate limit exceeded, ...), ``error_code`` the legacy
``common.ErrorCode``, ``retriable`` and ``extra_info["is_input_error"]`` the server's own verdict. pymilvus raises
``MilvusException`` with them (``code``, ``compatible_code``, ``retriable``, ``is_input_error``). Several Milvus codes
fall in 400-599 (400 replica not found, 503 channel not available) and are no HTTP statuses. A gRPC failure its retry
gives up on (the call's ``timeout`` spent) is a ``MilvusException`` keeping the ``grpc.StatusCode`` as ``code``,
raised from the ``RpcError``; a channel that never becomes ready is ``MilvusException(code=2)`` ("Fail connecting").
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import pytest

pymilvus = pytest.importorskip("pymilvus")

import grpc  # noqa: E402
from pymilvus.exceptions import MilvusException  # noqa: E402
from pymilvus.grpc_gen import common_pb2, milvus_pb2, milvus_pb2_grpc  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port  # noqa: E402


class _Milvus(milvus_pb2_grpc.MilvusServiceServicer):
    def __init__(self, status: common_pb2.Status | None, abort: grpc.StatusCode | None) -> None:
        self.status, self.abort = status, abort

    def Connect(self, request: Any, context: Any) -> Any:
        return milvus_pb2.ConnectResponse(status=common_pb2.Status(), identifier=17)

    def DescribeCollection(self, request: Any, context: Any) -> Any:
        if self.abort is not None:
            context.abort(self.abort, "the server said no")
        return milvus_pb2.DescribeCollectionResponse(status=self.status)


@contextmanager
def milvus(status: common_pb2.Status | None = None, abort: grpc.StatusCode | None = None) -> Iterator[int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    milvus_pb2_grpc.add_MilvusServiceServicer_to_server(_Milvus(status, abort), server)
    port = server.add_insecure_port(f"{HOST}:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(None)


def _describe(port: int) -> Any:
    client = pymilvus.MilvusClient(uri=f"http://{HOST}:{port}", timeout=2)
    try:
        return client.describe_collection("refunds", timeout=1)
    finally:
        client.close()


def _status(code: int, legacy: int = common_pb2.UnexpectedError, *, retriable: bool = False,
            input_error: bool = False) -> common_pb2.Status:
    return common_pb2.Status(code=code, error_code=legacy, reason="the server said no", retriable=retriable,
                             extra_info={"is_input_error": "true"} if input_error else {})


@pytest.mark.parametrize(("code", "legacy", "input_error", "failure_class", "side_effect"), [
    (100, common_pb2.CollectionNotExists, True, C.NOT_FOUND, False),  # collection not found
    (800, common_pb2.UnexpectedError, True, C.NOT_FOUND, False),  # database not found
    (1700, common_pb2.UnexpectedError, True, C.NOT_FOUND, False),  # field not found
    (1100, common_pb2.IllegalArgument, True, C.INVALID_INPUT, False),  # invalid parameter
    (101, common_pb2.UnexpectedError, False, C.INVALID_INPUT, False),  # collection not loaded: load it first
    (1400, common_pb2.UnexpectedError, False, C.PERMISSION_DENIED, False),  # not authenticated
    (1401, common_pb2.PermissionDenied, False, C.PERMISSION_DENIED, False),  # privilege not permitted
    (9, common_pb2.ForceDeny, False, C.RATE_LIMITED, False),  # quota exceeded
    (1, common_pb2.NotReadyServe, False, C.UPSTREAM_UNAVAILABLE, False),  # service not ready
    (2, common_pb2.UnexpectedError, False, C.UPSTREAM_UNAVAILABLE, False),  # service unavailable
    (106, common_pb2.UnexpectedError, False, C.UPSTREAM_UNAVAILABLE, False),  # collection on recovering
    (400, common_pb2.UnexpectedError, False, C.UPSTREAM_UNAVAILABLE, False),  # replica not found: no HTTP 400
    (401, common_pb2.UnexpectedError, False, C.UPSTREAM_UNAVAILABLE, False),  # replica not available: no HTTP 401
    (503, common_pb2.UnexpectedError, False, C.UPSTREAM_UNAVAILABLE, False),  # channel not available
    (65535, common_pb2.UnexpectedError, False, C.UPSTREAM_UNAVAILABLE, None),  # unexpected error
])
def test_refused_in_the_reply(code: int, legacy: int, input_error: bool, failure_class: C,
                              side_effect: bool | None) -> None:
    with milvus(_status(code, legacy, input_error=input_error)) as port:
        exc = raised(lambda: _describe(port))
    assert isinstance(exc, MilvusException) and exc.code == code  # DescribeCollectionException
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.system == "milvus" and result.upstream.status == str(code)


def test_rate_limit_retried_until_the_timeout() -> None:
    # code 8 (rate limit exceeded) is retried with back-off until the call's timeout, then raised with the code kept
    with milvus(_status(8, common_pb2.RateLimit, retriable=True)) as port:
        exc = raised(lambda: _describe(port))
    assert type(exc) is MilvusException and exc.code == 8
    check(exc, C.RATE_LIMITED, False)


@pytest.mark.parametrize(("abort", "failure_class", "side_effect"), [
    (grpc.StatusCode.PERMISSION_DENIED, C.PERMISSION_DENIED, False),
    (grpc.StatusCode.INVALID_ARGUMENT, C.INVALID_INPUT, False),
    (grpc.StatusCode.UNAVAILABLE, C.UPSTREAM_UNAVAILABLE, None),
    (grpc.StatusCode.INTERNAL, C.UPSTREAM_UNAVAILABLE, True),
])
def test_grpc_status(abort: grpc.StatusCode, failure_class: C, side_effect: bool | None) -> None:
    with milvus(abort=abort) as port:
        exc = raised(lambda: _describe(port))
    check(exc, failure_class, side_effect)


def test_nothing_listens() -> None:
    exc = raised(lambda: _describe(closed_port()))
    assert type(exc) is MilvusException and exc.code == 2
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_client_side_check() -> None:
    # pymilvus's own check of the arguments (ParamError, code 1): refused before anything was sent; the tool's own
    # call, as botocore's ParamValidationError
    with milvus(_status(0, 0)) as port:
        exc = raised(lambda: pymilvus.MilvusClient(uri=f"http://{HOST}:{port}", timeout=2).describe_collection(""))
    assert type(exc) is pymilvus.exceptions.ParamError
    check(exc, C.UNKNOWN, False)
