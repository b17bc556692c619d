"""Client side of tests/heldout_cases.md, twenty-third round (J402, J405, J406, J408, J410, J412): what foreign MCP
servers relay when a client refused its own settings, a resource was locked, Go's transport found its idle connection
closed, a cloud API throttled with a code or a sentence, a circuit breaker refused while open, or a file was held by
another process, in the words of the runtimes they are written in (Python, librdkafka, the JVM, .NET, Go, Node).

The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError`` with the text; every tool is a write with
no hints, so a repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from errscope import Channel, FailureClass

from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of
from tests.client.test_heldout_cases_20 import not_sent

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def json_rpc_error(text: str) -> dict[str, Any]:
    """A JSON-RPC -32603 error whose message is ``text``, as mcp-go relays a tool handler's returned ``error`` (and many
    gateways an upstream's)."""
    return {"error": {"code": -32603, "message": text}}


def protocol_not_sent(results: dict[str, Any], failure_class: FailureClass) -> None:
    """Each protocol error is of ``failure_class`` and its note says nothing was done: no "may have taken effect"."""
    assert {name: (r.channel, r.failure_class) for name, r in results.items()} == dict.fromkeys(
        results, (Channel.PROTOCOL, failure_class))
    not_sent(results)


# --- J402: a client refusing a setting it does not know, relayed -----------------------------------------------------------

async def test_j402_unknown_settings_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J402 (HariSekhon/Nagios-Plugins #157: "Unrecognized configs: session_timeout_ms"; librdkafka's
    ``rd_kafka_conf_set`` "No such configuration property: "…"" as confluent-kafka prints it; Kafka's Java
    ``ConfigException`` "Invalid value … for configuration …"). Servers
    relay their client's refusal of a setting whose name holds "timeout": each was read as an upstream timeout that
    "may have taken effect". The name is a setting's, not an event: the tool's own configuration mistake, ``unknown``
    (no outage panel, no retry advice), nothing sent."""
    results = await answered(tmp_path, telemetry, {
        "publish_event": "kafka.errors.KafkaConfigurationError: Unrecognized configs: {'timeout_ms'}",
        "produce_order": 'cimpl.KafkaException: KafkaError{code=_INVALID_ARG,val=-186,str="No such configuration '
                         'property: "request.timeout""}',
        "send_invoice": "org.apache.kafka.common.config.ConfigException: Invalid value 10s for configuration "
                        "request.timeout.ms: Not a number of type INT",
    })
    all_of(results, FailureClass.UNKNOWN)
    not_sent(results)


# --- J405: HTTP 423 Locked, relayed ---------------------------------------------------------------------------------------

async def test_j405_locked_resources_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J405 (J404 through foreign servers: .NET's ``EnsureSuccessStatusCode`` "Response status code does not indicate
    success: 423 (Locked)."; owncloud/core #31843 and nextcloud/ios #251: sabre/dav's 'HTTP/1.1 423 "…" is locked';
    OneDrive's ``resourceLocked`` body). Each was ``unknown``. RFC 4918 §11.3: the resource is locked by another
    holder, the request refused whole: ``upstream_unavailable`` (busy for now), nothing applied."""
    results = await answered(tmp_path, telemetry, {
        "replace_sheet": "System.Net.Http.HttpRequestException: Response status code does not indicate success: 423 "
                         "(Locked).",
        "upload_photo": 'OCA\\DAV\\Connector\\Sabre\\Exception\\FileLocked: HTTP/1.1 423 '
                        '"Photos/2026/05/IMG_0001.jpg" is locked',
        "rename_doc": json.dumps({"error": {"code": "resourceLocked",
                                            "message": "The resource you are attempting to access is locked"}}),
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J406: Go's transport finding its idle connection closed ------------------------------------------------------------

async def test_j406_go_server_closed_idle_connection(tmp_path: Path, telemetry: Any) -> None:
    """J406 (golang/go #19943 and net/http's ``errServerClosedIdle``, transport.go: "not seen by users for idempotent
    requests, but may be seen by a user if the server shuts down an idle connection and sends its FIN in flight with
    already-written POST body bytes"; ``readLoopPeekFailLocked`` sets it only when the peek ended while no response
    was expected, so the server closed the connection before it read the request: ``shouldRetryRequest`` retries it
    for any replayable request). Go servers relay it for a POST, as an ``isError`` text or (mcp-go, a handler's
    returned error) a -32603 error. It was "not known", and as a -32603 "may have taken effect"; Go's own transport
    says the server never took the request: ``upstream_unavailable``, not sent."""
    results = await answered(tmp_path, telemetry, {
        "create_charge": 'Post "https://api.example.test/v1/charges": http: server closed idle connection',
        "send_payout": "charge: send: http: server closed idle connection",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "protocol").mkdir()
    protocol_not_sent(await answered(tmp_path / "protocol", telemetry, answer=json_rpc_error, texts={
        "create_charge": 'Post "https://api.example.test/v1/charges": http: server closed idle connection',
    }), FailureClass.UPSTREAM_UNAVAILABLE)


# --- J408: cloud APIs throttling with a code or a sentence, relayed ---------------------------------------------------------

async def test_j408_cloud_throttling_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J408 (cloudcaptainsh/cloudcaptain #114: the AWS Java SDK's "… (Service: AmazonRoute53; Status Code: 400; Error
    Code: PriorRequestNotComplete; …)"; pcorliss/ruby_route_53 #34; botocore's throttling table: BandwidthLimitExceeded,
    TransactionInProgressException; Azure Cosmos DB's 429 sentence "Request rate is large. More Request Units may be
    needed, so no changes were made."). Node, JVM and .NET servers relay them. The Route 53 one read as the caller's
    400 (``invalid_input``), the others ``unknown``. The SDKs' throttling codes and the throttling sentence:
    ``rate_limited``, nothing applied."""
    results = await answered(tmp_path, telemetry, {
        "upsert_record": "The request was rejected because Route 53 was still processing a prior request. (Service: "
                         "AmazonRoute53; Status Code: 400; Error Code: PriorRequestNotComplete; Request ID: "
                         "07591582-8646-11e6-96a2-cb64e5d9cd85)",
        "put_object": "BandwidthLimitExceeded: Bandwidth limit exceeded",
        "put_item": "TransactionInProgressException: The transaction with the given request token is already in "
                    "progress.",
        "upsert_doc": 'Message: {"Errors":["Request rate is large. More Request Units may be needed, so no changes were '
                      'made. Please retry this request later. Learn more: http://aka.ms/cosmosdb-error-429"]}',
    })
    all_of(results, FailureClass.RATE_LIMITED)
    not_sent(results)


# --- J410: circuit breakers refusing while open, relayed ----------------------------------------------------------------------

async def test_j410_open_breakers_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J410 (J409 in other runtimes: Polly's ``BrokenCircuitException`` "The circuit is now open and is not allowing
    calls."; nodeshift/opossum's "Breaker is open" (code EOPENBREAKER); resilience4j's ``CallNotPermittedException``
    "CircuitBreaker '…' is OPEN and does not permit further calls"; pybreaker's). Polly's and opossum's were
    ``unknown``, pybreaker's "may have taken effect", resilience4j's "not known" (and "may have taken effect" as a
    -32603 error). A breaker refusing while open sent nothing: ``upstream_unavailable``, not sent."""
    results = await answered(tmp_path, telemetry, {
        "charge_card": "Polly.CircuitBreaker.BrokenCircuitException: The circuit is now open and is not allowing calls.",
        "send_sms": "Error: Breaker is open",
        "book_slot": "io.github.resilience4j.circuitbreaker.CallNotPermittedException: CircuitBreaker 'payments' is "
                     "OPEN and does not permit further calls",
        "post_ledger": "pybreaker.CircuitBreakerError: Timeout not elapsed yet, circuit breaker still open",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "protocol").mkdir()
    protocol_not_sent(await answered(tmp_path / "protocol", telemetry, answer=json_rpc_error, texts={
        "book_slot": "io.github.resilience4j.circuitbreaker.CallNotPermittedException: CircuitBreaker 'payments' is "
                     "OPEN and does not permit further calls",
        "send_sms": "Error: Breaker is open",
    }), FailureClass.UPSTREAM_UNAVAILABLE)


# --- J412: a file another process holds, relayed -------------------------------------------------------------------------------

async def test_j412_sharing_violation_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J412 (Windows' ERROR_SHARING_VIOLATION, 32: "The process cannot access the file because it is being used by
    another process", in .NET's ``IOException`` with the path and in Python's ``PermissionError: [WinError 32]``; an
    Excel workbook open on the user's desk). .NET's was ``unknown``, Python's ``permission_denied`` (the model told to
    ask for access it has). errscope reads the same condition on an exception (NTSTATUS 0xC0000043, a lock) as a
    resource busy for now: ``upstream_unavailable``, nothing done; the text now says the same."""
    results = await answered(tmp_path, telemetry, {
        "update_sheet": "System.IO.IOException: The process cannot access the file 'C:\\data\\report.xlsx' because it is "
                        "being used by another process.",
        "append_row": "PermissionError: [WinError 32] The process cannot access the file because it is being used by "
                      "another process: 'C:\\\\data\\\\report.xlsx'",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
