"""MinIO's S3 client and clickhouse-connect (ClickHouse's HTTP interface) against a real HTTP
server on 127.0.0.1 that answers every path one way (both take a host and port, not a base URL).

MinIO raises S3Error with the S3 error ``code`` of the XML body (``NoSuchKey``, ``SlowDown``) and the
response; a body-less answer (HEAD) is ServerError with ``status_code``. clickhouse-connect raises
PEP 249's DatabaseError/OperationalError with ClickHouse's own error ``code`` (ErrorCodes.cpp, sent in
``X-ClickHouse-Exception-Code``), not the HTTP status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import clickhouse_connect
import pytest
import urllib3
from minio import Minio
from minio.error import S3Error

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, answering, closed_port


def _minio_get(port: int) -> Callable[[], Any]:
    client = Minio(f"{HOST}:{port}", access_key="access", secret_key="secret", secure=False, region="us-east-1",
                   http_client=urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(connect=5, read=5)))
    return lambda: client.get_object("orders", "2026/a.csv")


def _s3_error(code: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>refused</Message>'
            "<Resource>/orders/2026/a.csv</Resource><RequestId>1</RequestId><HostId>h</HostId></Error>")


@pytest.mark.parametrize(("status", "code", "failure_class", "side_effect"), [
    (404, "NoSuchKey", C.NOT_FOUND, False),
    (404, "NoSuchBucket", C.NOT_FOUND, False),
    (403, "AccessDenied", C.PERMISSION_DENIED, False),
    (403, "InvalidAccessKeyId", C.PERMISSION_DENIED, False),
    (503, "SlowDown", C.RATE_LIMITED, False),  # S3's throttling comes as a 503: the code says which
    (500, "InternalError", C.UPSTREAM_UNAVAILABLE, True),
])
def test_minio_s3_error(status: int, code: str, failure_class: C, side_effect: bool) -> None:
    with answering(status, _s3_error(code), {"Content-Type": "application/xml"}) as port:
        exc = raised(_minio_get(port))
    assert isinstance(exc, S3Error) and exc.code == code
    check(exc, failure_class, side_effect)


def test_minio_connection_refused() -> None:
    check(raised(_minio_get(closed_port())), C.UPSTREAM_UNAVAILABLE, False)


def _clickhouse(port: int) -> Callable[[], Any]:
    return lambda: clickhouse_connect.get_client(host=HOST, port=port, username="tool", password="pw", query_retries=0,
                                                 connect_timeout=5, send_receive_timeout=5).query("SELECT 1")


@pytest.mark.parametrize(("status", "code", "name", "failure_class", "side_effect"), [
    (403, 516, "AUTHENTICATION_FAILED", C.PERMISSION_DENIED, False),
    (403, 497, "ACCESS_DENIED", C.PERMISSION_DENIED, False),
    (404, 60, "UNKNOWN_TABLE", C.UNKNOWN, False),  # the tool's own query: a bug, not the caller's
    (400, 62, "SYNTAX_ERROR", C.UNKNOWN, False),
    (500, 241, "MEMORY_LIMIT_EXCEEDED", C.UPSTREAM_UNAVAILABLE, False),  # the query was aborted
    (500, 159, "TIMEOUT_EXCEEDED", C.UPSTREAM_UNAVAILABLE, False),
    (503, 202, "TOO_MANY_SIMULTANEOUS_QUERIES", C.UPSTREAM_UNAVAILABLE, False),
])
def test_clickhouse_server_error(status: int, code: int, name: str, failure_class: C, side_effect: bool) -> None:
    body = f"Code: {code}. DB::Exception: refused. ({name}) (version 24.8.1.1)\n"
    with answering(status, body, {"X-ClickHouse-Exception-Code": str(code), "Content-Type": "text/plain"}) as port:
        exc = raised(_clickhouse(port))
    assert getattr(exc, "code", None) == code
    check(exc, failure_class, side_effect)


def test_clickhouse_connection_refused() -> None:
    check(raised(_clickhouse(closed_port())), C.UPSTREAM_UNAVAILABLE, False)
