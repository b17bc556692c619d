"""Server side of tests/heldout_cases.md, twenty-fifth round (J423, J427, J431): real libraries failing in a tool, each on
127.0.0.1: kafka-python's producer giving up before it had the topic's metadata, boto3's S3 client answered S3's
``RequestTimeout``, and google-api-core's mapping of a gRPC ``ABORTED`` (a write Firestore aborted for contention).

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from errscope._attributes import ERRSCOPE_UPSTREAM_STATUS
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, HttpUpstream, closed_port
from tests.server.test_heldout_cases_24 import facts, failed_call

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}


# --- J423: kafka-python giving up before it had the topic's metadata -----------------------------------------------------

async def publish_order_event(order_id: str) -> str:
    """Publish an order event (kafka-python's producer, blocking at most 1 s for the topic's metadata)."""
    import kafka

    def produce() -> None:
        producer = kafka.KafkaProducer(bootstrap_servers=f"{HOST}:{TARGET['port']}", api_version=(2, 5, 0),
                                       max_block_ms=1000)
        try:
            producer.send("orders", order_id.encode())
        finally:
            producer.close(timeout=0)

    await anyio.to_thread.run_sync(produce)
    return "published"


@pytest.mark.parametrize("style", STYLES)
async def test_j423_kafka_producer_without_metadata(style: str, telemetry: CapturedTelemetry) -> None:
    """J423 (dpkp/kafka-python #2240, #607 and #2626: "KafkaTimeoutError: Failed to update metadata after 60.0 secs.",
    raised by ``KafkaProducer.send`` from ``_wait_on_metadata``; the same wait in Java's producer, ``max.block.ms``).
    kafka-python blocks in ``send`` until it knows the topic's partitions and gives up before the record is appended to
    its accumulator: nothing reached a broker. Its ``KafkaTimeoutError`` was read "not known" whether the event went
    out, so a model could not tell that publishing it again is safe. Rule: a producer that timed out waiting for
    metadata never sent (``upstream_unavailable``, side effect false)."""
    TARGET["port"] = closed_port()
    span, text = await failed_call(style, telemetry, publish_order_event, {"order_id": "A-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert "may have" not in text, text


# --- J427: S3 answering RequestTimeout ------------------------------------------------------------------------------------

S3_ERROR = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>'
            '<RequestId>FAKE0REQ0ID</RequestId><HostId>FAKE0HOST0ID</HostId></Error>')


async def upload_report(key: str) -> str:
    """Store a report (boto3's S3 client, one attempt, in a worker thread)."""
    import boto3
    import botocore.config

    def put() -> None:
        client = boto3.client("s3", endpoint_url=TARGET["url"], region_name="us-east-1",
                              aws_access_key_id="AKIAFAKEFAKEFAKE", aws_secret_access_key="FAKE-SECRET",
                              config=botocore.config.Config(retries={"total_max_attempts": 1}))
        client.put_object(Bucket="reports", Key=key, Body=b"month,total\n2026-11,42\n")

    await anyio.to_thread.run_sync(put)
    return "stored"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("code", "message", "failure_class"), [
    ("RequestTimeout", "Your socket connection to the server was not read from or written to within the timeout period. "
                       "Idle connections will be closed.", "upstream_unavailable"),
    ("InvalidArgument", "Invalid argument.", "invalid_input"),  # guard: a 400 that refuses the arguments
])
async def test_j427_s3_request_timeout(style: str, code: str, message: str, failure_class: str,
                                       telemetry: CapturedTelemetry) -> None:
    """J427 (ember-cli-deploy/ember-cli-deploy-s3 #108, MaayanLab/archs4 #33: S3's 400 ``RequestTimeout`` "Your socket
    connection to the server was not read from or written to within the timeout period"; botocore's
    ``retries/standard.py`` counts ``RequestTimeout`` and ``RequestTimeoutException`` as transient). S3 stopped waiting
    for the upload's body and stored nothing. boto3's ``ClientError`` read as ``invalid_input`` (the 400): the model was
    told to fix a right key and body. Rule: the AWS SDKs' transient codes are a service that could not take the request
    now, ``upstream_unavailable``, nothing applied (the 400). Guard: ``InvalidArgument`` stays ``invalid_input``."""
    with HttpUpstream() as upstream:
        TARGET["url"] = upstream.scripted(400, S3_ERROR.format(code=code, message=message),
                                          {"Content-Type": "application/xml"})
        span, _ = await failed_call(style, telemetry, upload_report, {"key": "2026-11.csv"})
    assert facts(span) == (failure_class, False), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == code, dict(span.attributes)


# --- J431: a gRPC ABORTED as google-api-core raises it --------------------------------------------------------------------

@contextmanager
def grpc_aborting() -> Iterator[str]:
    """A gRPC server on 127.0.0.1 whose every method aborts with the status the request names (raw bytes: no stubs),
    with Firestore's words for its contention."""
    import grpc

    def call(request: bytes, context: Any) -> bytes:
        context.abort(grpc.StatusCode[request.decode()], "Too much contention on these documents. Please try again.")
        return b""  # not reached: abort raises

    handler = grpc.method_handlers_generic_handler("google.firestore.v1.Firestore",
                                                   {"Commit": grpc.unary_unary_rpc_method_handler(call)})
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(f"{HOST}:0")
    server.start()
    try:
        yield f"{HOST}:{port}"
    finally:
        server.stop(0)


async def increment_counter(status: str) -> str:
    """Commit a counter's increment (a gRPC call wrapped by google-api-core's error mapping, as every Google Cloud
    client library calls, in a worker thread)."""
    import grpc
    from google.api_core import grpc_helpers

    def commit() -> None:
        with grpc.insecure_channel(TARGET["grpc"]) as channel:
            grpc_helpers.wrap_errors(channel.unary_unary("/google.firestore.v1.Firestore/Commit"))(status.encode(),
                                                                                                  timeout=5)

    await anyio.to_thread.run_sync(commit)
    return "committed"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("status", "failure_class"), [
    ("ABORTED", "upstream_unavailable"),
    ("ALREADY_EXISTS", "invalid_input"),  # guard: the other gRPC status api_core maps to 409
])
async def test_j431_grpc_aborted_through_api_core(style: str, status: str, failure_class: str,
                                                 telemetry: CapturedTelemetry) -> None:
    """J431 (googleapis/python-firestore #571, GoogleCloudPlatform/python-docs-samples #3548: "google.api_core.exceptions.
    Aborted: 409 Too much contention on these documents. Please try again."; googleapis/nodejs-firestore #827: the same
    as gRPC's "10 ABORTED"). google-api-core turns the gRPC error into its own exception, which carries the HTTP status
    google/rpc/code.proto maps the code to (409 for ABORTED and ALREADY_EXISTS alike) and the gRPC code itself
    (``grpc_status_code``). The 409 decided: ``invalid_input``, the model told to fix arguments for a write the database
    aborted because another touched the same documents. Rule: the gRPC status an exception carries decides before the
    HTTP status derived from it: ABORTED is a concurrency conflict, rolled back (``upstream_unavailable``, nothing
    applied; upstream status "ABORTED"), as on a grpcio error. Guard: ALREADY_EXISTS stays ``invalid_input``."""
    with grpc_aborting() as target:
        TARGET["grpc"] = target
        span, _ = await failed_call(style, telemetry, increment_counter, {"status": status})
    assert facts(span) == (failure_class, False), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == status, dict(span.attributes)
