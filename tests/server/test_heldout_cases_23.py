"""Server side of tests/heldout_cases.md, twenty-third round (J401, J403, J404, J407, J409, J411): real libraries
failing in a tool, each on 127.0.0.1: kafka-python refusing a setting's name, pg8000 losing its connection during the
startup exchange, an HTTP 423 Locked, botocore's throttling codes, a circuit breaker refusing while open, and a CDN's
52x statuses for an origin it never reached.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
import requests
from errscope._attributes import (
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_SIDE_EFFECT_POSSIBLE,
    ERRSCOPE_UPSTREAM_STATUS,
)
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, HttpUpstream, closed_port, closing_listener
from tests.server.test_heldout_cases import serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}


async def failed_call(style: str, telemetry: CapturedTelemetry, tool: Any, arguments: dict[str, Any]) -> Any:
    """Call ``tool`` once on a served ``style`` server; the call's span, checked to be an ``isError`` result."""
    async with serving(style, "legacy", telemetry, tool) as served:
        result = await served.call(tool.__name__, arguments)
    assert not isinstance(result, Exception) and result.is_error, result
    return served.span()


def facts(span: Any) -> tuple[Any, Any]:
    return span.attributes.get(ERRSCOPE_FAILURE_CLASS), span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE)


# --- J401: kafka-python refusing a setting it does not know ------------------------------------------------------------

async def publish_event(topic: str) -> str:
    """Publish an order event (kafka-python, with a setting its producer does not have)."""
    import kafka

    def produce() -> None:
        producer = kafka.KafkaProducer(bootstrap_servers=f"{HOST}:{TARGET['port']}", timeout_ms=5000)
        producer.send(topic, b"{}")

    await anyio.to_thread.run_sync(produce)
    return "published"


async def consume_events(topic: str) -> str:
    """Read order events (kafka-python's consumer, with a setting named as another client's)."""
    import kafka

    def consume() -> None:
        kafka.KafkaConsumer(topic, bootstrap_servers=f"{HOST}:{TARGET['port']}", request_timeout=5000)

    await anyio.to_thread.run_sync(consume)
    return "read"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [publish_event, consume_events])
async def test_j401_kafka_python_refuses_a_setting_named_timeout(style: str, tool: Any,
                                                                  telemetry: CapturedTelemetry) -> None:
    """J401 (HariSekhon/Nagios-Plugins #157: "kafkaProducer() Unrecognized configs: session_timeout_ms"; kafka-python
    3.x raises ``ValueError``/``KafkaConfigurationError("Unrecognized configs: {…}")`` for a setting its client lacks).
    A tool passes its client a setting the client does not have. The text names the setting, and the setting's name
    holds "timeout": it was read as an upstream timeout that may have taken effect (the outage panel, a "may have"
    note). Rule: a text that says a configuration setting is unrecognised, unknown, unsupported, unexpected,
    not a known config or given a value it cannot take names the setting, not an event: the tool's own configuration
    mistake, ``unknown``, nothing sent."""
    TARGET["port"] = closed_port()
    span = await failed_call(style, telemetry, tool, {"topic": "orders"})
    assert facts(span) == ("unknown", False), dict(span.attributes)


# --- J403: pg8000's connection dropped during the startup exchange -----------------------------------------------------

async def apply_discount(order_id: str) -> str:
    """Apply a discount (pg8000, to a server that drops the connection during startup)."""
    import pg8000.native

    def update() -> None:
        conn = pg8000.native.Connection("postgres", host=HOST, port=TARGET["port"], password="x", timeout=3)
        conn.run("UPDATE orders SET amount = amount * 0.9 WHERE id = :id", id=order_id)

    await anyio.to_thread.run_sync(update)
    return "applied"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("read_first", [True, False], ids=["after-startup-message", "before-startup-message"])
async def test_j403_pg8000_dropped_during_startup(style: str, read_first: bool, telemetry: CapturedTelemetry) -> None:
    """J403 (tlocke/pg8000 #105 and #102: pg8000 failing while it connects, through the Cloud SQL connector and to a
    database still initialising; pg8000's ``_read``/``_flush`` raise "network error" when the socket ends). A server
    that closes the connection during the startup exchange (after reading the startup message, or before). pg8000
    connects in its ``Connection`` constructor, not in a function named ``connect``, and its ``_read`` raised "network
    error": read as a statement whose answer was lost, "may have taken effect". Rule: a driver's connection object's
    constructor is a connecting call (as PEP 249's ``connect()``): no statement of the caller's existed yet, nothing
    sent."""
    with closing_listener(read_first=read_first) as port:
        TARGET["port"] = port
        span = await failed_call(style, telemetry, apply_discount, {"order_id": "A-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)


# --- J404: HTTP 423 Locked ----------------------------------------------------------------------------------------------

async def replace_with_httpx(item: str) -> str:
    """Upload a new version of a document (httpx)."""
    async with httpx.AsyncClient(timeout=5) as client:
        answer = await client.put(f"{TARGET['url']}/drive/items/{item}/content", content=b"new text")
        answer.raise_for_status()
    return "replaced"


async def replace_with_requests(item: str) -> str:
    """Upload a new version of a document (requests, in a worker thread)."""
    def put() -> None:
        requests.put(f"{TARGET['url']}/dav/{item}.docx", data=b"new text", timeout=5).raise_for_status()

    await anyio.to_thread.run_sync(put)
    return "replaced"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [replace_with_httpx, replace_with_requests])
async def test_j404_a_locked_resource(style: str, tool: Any, telemetry: CapturedTelemetry) -> None:
    """J404 (dotCMS/core #14784: a WebDAV upload answered 423 when another user locked the file; owncloud/core #31843:
    '423 … "video.mp4" is locked'; owncloud/android #4282: a 423 shown as "Unknown error"; OneDrive's "resourceLocked").
    A document another user holds open. 423 was ``unknown``: the mapping-gap alert for an answer the RFC defines. RFC
    4918 §11.3: "the source or destination resource of a method is locked"; the request is refused whole (nothing
    applied, §7) until the holder releases the lock, which neither the caller's arguments nor its credential fix: a
    resource busy for now, ``upstream_unavailable`` (as PostgreSQL's 55P03 lock_not_available and SQLite's SQLITE_BUSY
    are read), not sent."""
    with HttpUpstream() as upstream:
        TARGET["url"] = upstream.scripted(423, '{"error":{"code":"resourceLocked","message":"The resource you are '
                                               'attempting to access is locked"}}', {"Content-Type": "application/json"})
        span = await failed_call(style, telemetry, tool, {"item": "doc-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == "423", dict(span.attributes)


# --- J407: botocore's throttling codes sent with a 400 -----------------------------------------------------------------

ROUTE53_BUSY = ('<?xml version="1.0"?>\n<ErrorResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Error>'
                '<Type>Sender</Type><Code>{code}</Code><Message>{message}</Message></Error>'
                '<RequestId>FAKE-REQ-1</RequestId></ErrorResponse>')


async def upsert_record(name: str) -> str:
    """Point a DNS name at a new address (boto3's Route 53 client, in a worker thread)."""
    import boto3
    import botocore.config

    def change() -> None:
        client = boto3.client("route53", endpoint_url=TARGET["url"], region_name="us-east-1",
                              aws_access_key_id="AKIAFAKEFAKEFAKE", aws_secret_access_key="FAKE-SECRET",
                              config=botocore.config.Config(retries={"total_max_attempts": 1}))
        client.change_resource_record_sets(HostedZoneId="Z1FAKE", ChangeBatch={"Changes": [{
            "Action": "UPSERT", "ResourceRecordSet": {"Name": name, "Type": "A", "TTL": 60,
                                                      "ResourceRecords": [{"Value": "10.0.0.1"}]}}]})

    await anyio.to_thread.run_sync(change)
    return "changed"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("code", "message"), [
    ("PriorRequestNotComplete", "The request was rejected because Route 53 was still processing a prior request."),
    ("Throttling", "Rate exceeded"),
])
async def test_j407_route53_busy_with_a_prior_request(style: str, code: str, message: str,
                                                       telemetry: CapturedTelemetry) -> None:
    """J407 (hashicorp/terraform #1194, rancher/rancher #2529, aws/aws-sdk-js #1166 and boto/botocore PR #682: Route
    53's "PriorRequestNotComplete" sent with HTTP 400; botocore's ``retries/standard.py`` lists it among the throttling
    codes its retry backs off on, with ``BandwidthLimitExceeded``, ``TransactionInProgressException``,
    ``EC2ThrottledException``, ``LimitExceededException``). The tool's change was refused because Route 53 still applied
    an earlier one: it read as ``invalid_input`` (the 400), telling the model to fix a record that was right. Rule: the
    AWS SDKs' table of throttling codes decides before the status: ``rate_limited``, nothing applied. Guard:
    ``Throttling`` as before."""
    with HttpUpstream() as upstream:
        TARGET["url"] = upstream.scripted(400, ROUTE53_BUSY.format(code=code, message=message),
                                          {"Content-Type": "text/xml"})
        span = await failed_call(style, telemetry, upsert_record, {"name": "api.example.test"})
    assert facts(span) == ("rate_limited", False), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == code, dict(span.attributes)


# --- J409: a circuit breaker refusing while it is open -----------------------------------------------------------------

BREAKER: dict[str, Any] = {}


async def charge_card(amount: int) -> str:
    """Charge a card through a circuit breaker (pybreaker around httpx)."""
    def post() -> None:
        httpx.post(f"http://{HOST}:{TARGET['port']}/v1/charges", json={"amount": amount}, timeout=5)

    await anyio.to_thread.run_sync(BREAKER["breaker"].call, post)
    return "charged"


@pytest.mark.parametrize("style", STYLES)
async def test_j409_pybreaker_refuses_while_open(style: str, telemetry: CapturedTelemetry) -> None:
    """J409 (danielfm/pybreaker #82, about its ``CircuitBreakerError("Timeout not elapsed yet, circuit breaker still
    open")``; resilience4j/resilience4j-spring-boot2-demo #9: "CircuitBreaker 'backendA' is OPEN …"). A tool's breaker
    opened on the payment API's earlier failures; the next call is refused by the breaker itself, before any request.
    Its text holds "Timeout": read as a request that timed out and "may have taken effect", where nothing left the
    process. Rule: a circuit breaker's refusal while open (its words: a breaker or circuit "open", "not
    allowing/permitting calls") is ``upstream_unavailable`` and never sent, whatever else the text says (a timeout there
    is the breaker's reset timer)."""
    import pybreaker

    BREAKER["breaker"] = pybreaker.CircuitBreaker(fail_max=1, reset_timeout=60)
    TARGET["port"] = closed_port()
    with pytest.raises(pybreaker.CircuitBreakerError):  # the first failure opens it
        BREAKER["breaker"].call(lambda: httpx.post(f"http://{HOST}:{TARGET['port']}/v1/charges", timeout=5))
    span = await failed_call(style, telemetry, charge_card, {"amount": 100})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)


# --- J411: a CDN's statuses for an origin it never reached ---------------------------------------------------------------

async def create_order(sku: str) -> str:
    """Create an order behind the shop's CDN (httpx)."""
    async with httpx.AsyncClient(timeout=5) as client:
        answer = await client.post(f"{TARGET['url']}/v1/orders", json={"sku": sku})
        answer.raise_for_status()
    return "created"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("status", "side_effect"), [
    (521, False), (522, False), (523, False), (525, False), (526, False),  # the edge never reached the origin
    (520, True), (524, True),  # the origin had the request: an unknown answer, or none within 100 s
])
async def test_j411_cdn_statuses_for_an_origin_never_reached(style: str, status: int, side_effect: bool,
                                                              telemetry: CapturedTelemetry) -> None:
    """J411 (Cloudflare's "Cloudflare 5xx errors" support pages; anthropics/claude-code #67341 "API Error: 522",
    Helicone/helicone #798 and supabase/auth-helpers #777: 522 pages from APIs behind Cloudflare; acheong08/ChatGPT
    #1485: 524 "A timeout occurred"). An API behind a CDN whose edge could not reach the origin: 521 (the origin refused
    the connection), 522 (the TCP handshake or its ACK timed out), 523 (origin unreachable), 525 (TLS handshake failed),
    526 (invalid origin certificate). Every 5xx outside 501/503/505 was read "may have taken effect": the order was
    never forwarded. Rule: these CDN statuses say the origin was never reached: ``upstream_unavailable``, not sent.
    Guard: 520 (the origin answered something unreadable) and 524 (connected, no answer within 100 s) may have acted."""
    with HttpUpstream() as upstream:
        TARGET["url"] = upstream.scripted(status, f"error code: {status}", {"Content-Type": "text/plain",
                                                                             "Server": "cloudflare"})
        span = await failed_call(style, telemetry, create_order, {"sku": "SKU-1"})
    assert facts(span) == ("upstream_unavailable", side_effect), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == str(status), dict(span.attributes)
