"""botocore/boto3 (S3's REST-XML and DynamoDB's JSON protocols) against a real HTTP server on 127.0.0.1.

The server answers each AWS error in its service's documented wire format (S3: an ``<Error>`` XML
document; DynamoDB: ``{"__type": ..., "message": ...}``), and botocore parses it into a real
``ClientError``. No moto: these are the error bodies AWS itself sends, which moto does not produce
for throttling. botocore's own retries are off, so the first failure is the one raised.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import (
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
    ResponseStreamingError,
)

from errscope import FailureClass as C
from errscope import Upstream
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port, closing_listener, per_connection

SHORT = 0.3


def _client(service: str, endpoint: str, **timeouts: float) -> Any:
    config = Config(retries={"total_max_attempts": 1}, connect_timeout=timeouts.get("connect", 5),
                    read_timeout=timeouts.get("read", 5), s3={"addressing_style": "path"})
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="AKIDTEST",
                        aws_secret_access_key="secret-test", config=config)


def _s3_get(endpoint: str, **timeouts: float) -> Any:
    return lambda: _client("s3", endpoint, **timeouts).get_object(Bucket="invoices", Key="inv-1.pdf")


def _dynamodb_put(endpoint: str, **timeouts: float) -> Any:
    return lambda: _client("dynamodb", endpoint, **timeouts).put_item(TableName="orders", Item={"id": {"S": "o1"}})


def _s3_error(code: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>upstream said no</Message><RequestId>R1</RequestId></Error>'


@pytest.mark.parametrize(("status", "code", "failure_class", "side_effect"), [
    (404, "NoSuchKey", C.NOT_FOUND, False),
    (404, "NoSuchBucket", C.NOT_FOUND, False),
    (403, "AccessDenied", C.PERMISSION_DENIED, False),
    (403, "InvalidAccessKeyId", C.PERMISSION_DENIED, False),
    (403, "SignatureDoesNotMatch", C.PERMISSION_DENIED, False),
    (503, "SlowDown", C.RATE_LIMITED, False),  # S3's throttling arrives as a 503
    (500, "InternalError", C.UPSTREAM_UNAVAILABLE, True),
    (400, "InvalidArgument", C.INVALID_INPUT, False),
])
def test_s3_error(upstream: HttpUpstream, status: int, code: str, failure_class: C, side_effect: bool) -> None:
    endpoint = upstream.scripted(status, _s3_error(code), {"Content-Type": "application/xml"})
    exc = raised(_s3_get(endpoint))
    assert isinstance(exc, ClientError) and exc.response["Error"]["Code"] == code
    result = check(exc, failure_class, side_effect)
    # the error keeps no URL: the client whose _make_api_call raised it names its endpoint (meta.endpoint_url)
    assert result.upstream == Upstream("aws", code, f"{HOST}:{upstream.port}")


@pytest.mark.parametrize(("status", "code", "failure_class", "side_effect"), [
    # DynamoDB sends every client-side error, throttling included, as a 400 with its type.
    (400, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", C.RATE_LIMITED, False),
    (400, "com.amazonaws.dynamodb.v20120810#ThrottlingException", C.RATE_LIMITED, False),
    (400, "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded", C.RATE_LIMITED, False),
    (400, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", C.NOT_FOUND, False),
    (400, "com.amazonaws.dynamodb.v20120810#AccessDeniedException", C.PERMISSION_DENIED, False),
    (400, "com.amazon.coral.service#UnrecognizedClientException", C.PERMISSION_DENIED, False),
    (400, "com.amazon.coral.validate#ValidationException", C.INVALID_INPUT, False),
    (400, "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", C.INVALID_INPUT, False),
    (500, "com.amazonaws.dynamodb.v20120810#InternalServerError", C.UPSTREAM_UNAVAILABLE, True),
    (503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable", C.UPSTREAM_UNAVAILABLE, False),
])
def test_dynamodb_error(upstream: HttpUpstream, status: int, code: str, failure_class: C, side_effect: bool) -> None:
    body = json.dumps({"__type": code, "message": "upstream said no"})
    endpoint = upstream.scripted(status, body, {"Content-Type": "application/x-amz-json-1.0"})
    exc = raised(_dynamodb_put(endpoint))
    assert isinstance(exc, ClientError) and exc.response["Error"]["Code"] == code.rpartition("#")[2]
    result = check(exc, failure_class, side_effect)
    assert result.upstream == Upstream("aws", code.rpartition("#")[2][:32], f"{HOST}:{upstream.port}")


class TestTransport:
    def test_connection_refused(self) -> None:
        exc = raised(_s3_get(f"http://{HOST}:{closed_port()}"))
        assert isinstance(exc, EndpointConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(_dynamodb_put(f"http://{UNRESOLVABLE}"))
        assert isinstance(exc, EndpointConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connect_timeout(self, backlog_port: int) -> None:
        exc = raised(_s3_get(f"http://{HOST}:{backlog_port}", connect=SHORT))
        assert isinstance(exc, ConnectTimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_read(self, upstream: HttpUpstream) -> None:
        exc = raised(_dynamodb_put(f"{upstream.url}/stall", read=SHORT))
        assert isinstance(exc, ReadTimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(_dynamodb_put(f"{upstream.url}/drop"))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


# An object's answer whose body breaks off after its headers came (Content-Length 64, 10 bytes sent): S3's GetObject
# returns once the headers are read; the tool's Body.read() meets the failure, raised by botocore's StreamingBody
# over urllib3's. The object was being served: the upstream had the request (acted: may have).
PARTIAL_OBJECT = (b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 64\r\n"
                  b"Connection: close\r\n\r\n0123456789")


def _stall_after_headers(conn: socket.socket) -> None:
    with conn:
        conn.recv(65536)
        conn.sendall(PARTIAL_OBJECT)
        time.sleep(3)


def _reset_after_headers(conn: socket.socket) -> None:
    with conn:
        conn.recv(65536)
        conn.sendall(PARTIAL_OBJECT)
        time.sleep(0.1)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST on close


class TestStreamedBody:
    """The failure keeps no URL and no connection: urllib3's answer (``HTTPResponse._pool``) names the endpoint."""

    def _read_body(self, port: int, **timeouts: float) -> Any:
        return lambda: _client("s3", f"http://{HOST}:{port}", **timeouts).get_object(
            Bucket="invoices", Key="inv-1.pdf")["Body"].read()

    def test_body_cut_short(self) -> None:
        with closing_listener(PARTIAL_OBJECT, read_first=True) as port:
            exc = raised(self._read_body(port))
        assert isinstance(exc, ResponseStreamingError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream == Upstream("http", "ProtocolError", f"{HOST}:{port}")

    def test_body_reset(self) -> None:
        with per_connection(_reset_after_headers) as port:
            exc = raised(self._read_body(port))
        assert isinstance(exc, ResponseStreamingError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream == Upstream("http", "ProtocolError", f"{HOST}:{port}")

    def test_body_stalls(self) -> None:
        with per_connection(_stall_after_headers) as port:
            exc = raised(self._read_body(port, read=SHORT))
        assert isinstance(exc, ReadTimeoutError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"
