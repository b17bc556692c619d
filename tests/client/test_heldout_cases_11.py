"""Client side of tests/heldout_cases.md, eleventh round (J214-J222): where the detail of a failure hides.

A ``-32602`` whose message is only "Invalid params" and whose argument problems sit in ``error.data`` (a zod issue
array, ajv's output units, a field/reason object); an ``isError`` text that is an upstream API's JSON error document,
nested once or twice, holding a key; a gateway whose compressed answer cannot be decoded.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``) and, for J222, a real ``MCPServer`` over
streamable HTTP on 127.0.0.1 behind an ASGI gate (``tests/client/test_heldout_cases_3.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import ToolClient
from tests.client.test_heldout_cases import failed, peer, recorded, tool
from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SECRET = "sk-proj-FAKEc0ffee1234567890abcdefFAKE0987654321"


def rejected(data: Any, message: str = "Invalid params") -> dict[str, Any]:
    return {"error": {"code": -32602, "message": message, "data": data}}


async def call_rejected(tmp_path: Path, telemetry: Any, name: str, schema: dict[str, Any], data: Any,
                        arguments: dict[str, Any], message: str = "Invalid params") -> Any:
    params, log = peer(tmp_path, [tool(name, **schema)], {name: rejected(data, message)})
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        result = await tc.call_tool(name, arguments)
    calls = log.received("tools/call")
    return result, calls


def assert_argument_note(result: Any, argument: str, *absent: str) -> None:
    assert (result.outcome, result.channel, result.failure_class) == (
        Outcome.ERROR, Channel.PROTOCOL, FailureClass.INVALID_INPUT), result
    assert f"`{argument}`" in result.text, result.text
    for fragment in absent:
        assert fragment not in result.text, (fragment, result.text)


ORDER_SCHEMA = {"properties": {"order_id": {"type": "string"}, "note": {"type": "string"}}, "required": ["order_id"]}


async def test_j214_zod_issues_only_in_error_data(tmp_path: Path, telemetry: Any) -> None:
    """J214 (punkpeye/fastmcp #1 and PR #5: zod failures thrown as ``InvalidParams`` with a generic message, the issues in
    ``data``; Intuned/cookbook PR #254, raw zod errors replaced by readable notes). ``-32602 Invalid params`` with the
    zod 3 issue array as ``error.data``: the note names ``order_id`` and says it is required; the sent note (a key the
    user pasted) is not echoed; one attempt."""
    issues = [{"code": "invalid_type", "expected": "string", "received": "undefined", "path": ["order_id"],
               "message": "Required"}]
    result, calls = await call_rejected(tmp_path, telemetry, "refund_order", ORDER_SCHEMA, issues,
                                        {"note": f"use {SECRET}"})
    assert_argument_note(result, "order_id", "FAKE", "invalid_type")
    assert "required" in result.text.lower(), result.text
    assert len(calls) == 1
    assert "FAKE" not in recorded(telemetry)


async def test_j215_ajv_output_units_only_in_error_data(tmp_path: Path, telemetry: Any) -> None:
    """J215 (JSON Schema output format, ajv's ``errors`` array as ``error.data``: a validator middleware answering
    ``-32602`` "Invalid params" with ``{"errors":[{instancePath, keyword, params, message}]}``). The note names
    ``limit`` and what it must be (at most 100), not the pointer syntax."""
    schema = {"properties": {"query": {"type": "string"}, "limit": {"type": "integer", "maximum": 100}}}
    data = {"errors": [{"instancePath": "/limit", "schemaPath": "#/properties/limit/maximum", "keyword": "maximum",
                        "params": {"comparison": "<=", "limit": 100}, "message": "must be <= 100"}]}
    result, calls = await call_rejected(tmp_path, telemetry, "search_orders", schema, data,
                                        {"query": "late", "limit": 5000})
    assert_argument_note(result, "limit", "5000", "instancePath", "#/properties")
    assert "100" in result.text, result.text
    assert len(calls) == 1


async def test_j216_field_reason_object_only_in_error_data(tmp_path: Path, telemetry: Any) -> None:
    """J216 (Jellyfish-AI/jellyfish-mcp PR #33: an API's ``{"errors":[{"field": "team", ...}]}`` lost as
    ``[object Object]``; Google APIs' ``fieldViolations``). ``-32602`` whose ``data`` is
    ``{"fieldViolations":[{"field":"start_date","description":"must be an ISO 8601 date"}]}``: the note names
    ``start_date`` and what it must be; the sent value is not echoed."""
    schema = {"properties": {"start_date": {"type": "string"}, "team": {"type": "string"}}}
    data = {"fieldViolations": [{"field": "start_date", "description": "must be an ISO 8601 date"}]}
    result, _ = await call_rejected(tmp_path, telemetry, "list_deliverables", schema, data,
                                    {"start_date": "next tuesday-ish", "team": "Platform"})
    assert_argument_note(result, "start_date", "next tuesday-ish")
    assert "ISO 8601" in result.text, result.text


async def test_j217_upstream_api_error_document_with_a_key(tmp_path: Path, telemetry: Any) -> None:
    """J217 (micasa-dev/micasa #156: an LLM server's raw JSON error body shown as the message; earendil-works/pi
    #4092: nested ``error.message`` not read). A tool relays OpenAI's 401 body verbatim as its ``isError`` text, the
    rejected key inside: class ``permission_denied``; the model reads the inner message ("Incorrect API key
    provided"), not the JSON; the key reaches neither the model nor telemetry."""
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}. You can find your API key at "
                                            "https://platform.openai.com/account/api-keys.",
                                 "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}})
    params, _ = peer(tmp_path, [tool("summarise")], {"summarise": failed(body)})
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        result = await tc.call_tool("summarise", {"url": "https://docs.example.test/a"})
    assert (result.channel, result.failure_class) == (Channel.EXECUTION, FailureClass.PERMISSION_DENIED), result
    assert "Incorrect API key provided" in result.text, result.text
    for fragment in ("FAKE", '{"error"', "invalid_request_error", '"param"'):
        assert fragment not in result.text, (fragment, result.text)
    assert "FAKE" not in recorded(telemetry)


async def test_j218_stream_error_event_document(tmp_path: Path) -> None:
    """J218 (earendil-works/pi #4092: OpenAI's streamed ``{"type":"error","error":{"type":"server_error",...}}``
    rendered as raw JSON, hiding that the failure is transient). Relayed as a tool's ``isError`` text: class
    ``upstream_unavailable`` (``server_error``); the model reads the inner message, without the JSON around it."""
    body = json.dumps({"type": "error", "error": {
        "type": "server_error", "code": "server_error", "param": None,
        "message": "An error occurred while processing your request. You can retry your request. Please include the "
                   "request ID 4087f0ae-FAKE in your message."}, "sequence_number": 4})
    params, _ = peer(tmp_path, [tool("draft_reply")], {"draft_reply": failed(body)})
    async with ToolClient(params, timeout=3) as tc:
        result = await tc.call_tool("draft_reply", {"thread": "T-9"})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert "An error occurred while processing your request" in result.text, result.text
    assert '"sequence_number"' not in result.text and '{"type"' not in result.text, result.text


async def test_j219_provider_error_nested_as_a_string(tmp_path: Path) -> None:
    """J219 (decocms/studio PR #6827: OpenRouter's ``{"error":{"message":"Provider returned error","metadata":
    {"raw": "<the provider's JSON as a string>"}}}``, the real cause one JSON document deeper). The provider's 429
    ``RESOURCE_EXHAUSTED`` is inside ``metadata.raw``: class ``rate_limited``, and the model reads the provider's
    message, not "Provider returned error" alone and not escaped JSON."""
    raw = json.dumps({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                                "status": "RESOURCE_EXHAUSTED"}})
    body = json.dumps({"error": {"message": "Provider returned error", "code": 429,
                                 "metadata": {"raw": raw, "provider_name": "Google"}}})
    params, _ = peer(tmp_path, [tool("translate")], {"translate": failed(body)})
    async with ToolClient(params, timeout=3) as tc:
        result = await tc.call_tool("translate", {"text": "hola"})
    assert result.failure_class is FailureClass.RATE_LIMITED, result
    assert "Resource has been exhausted" in result.text, result.text
    assert '\\"' not in result.text and '{"error"' not in result.text, result.text


async def test_j220_foreign_meta_namespaces_kept_beside_the_ref(tmp_path: Path) -> None:
    """J220 (livekit/agents #5008 and PR #5045, leehack/mcp_dart #37: a result's ``_meta`` dropped on the way to the
    host). An ``isError`` result whose ``_meta`` carries another vendor's keys: the host still sees them, whole,
    beside errscope's ref."""
    meta = {"com.acme.billing/charge-id": "ch_FAKE_1", "io.example/attribution": {"source": "crm", "rows": 0}}
    params, _ = peer(tmp_path, [tool("charge")], {"charge": failed("card declined by issuer", _meta=meta)})
    async with ToolClient(params, timeout=3) as tc:
        result = await tc.call_tool("charge", {"amount": 5})
    assert result.result is not None, result
    kept = result.result.meta or {}
    for key, value in meta.items():
        assert kept.get(key) == value, (key, kept)
    assert "Ref ERR-" in result.text


async def test_j221_long_tool_name_and_argument_in_the_note(tmp_path: Path, telemetry: Any) -> None:
    """J221 (SEP-986: tool names up to 128 characters; gateways prefixing server names make long ones). A 128-character
    tool name and a 20,000-character argument rejected with ``-32602``: the note stays within its bound, names the
    argument, and carries neither the long value nor its fragments; the span name keeps the listed tool name."""
    name = "acme_gateway__" + "crm_" * 28 + "find_contact"
    name = name[:128]
    value = ("lorem ipsum FAKE dolor " * 900)[:20000]
    schema = {"properties": {"query": {"type": "string", "maxLength": 200}}}
    result, _ = await call_rejected(tmp_path, telemetry, name, schema, None, {"query": value},
                                    message="Invalid params: 'query' must be at most 200 characters")
    assert_argument_note(result, "query", "FAKE", "lorem ipsum")
    assert len(result.text) <= 600, len(result.text)
    assert any(span.name == f"tools/call {name}" for span in telemetry.spans())


async def test_j222_a_gateway_answer_that_cannot_be_decoded(telemetry: Any) -> None:
    """J222 (a gateway that labels a plain body ``Content-Encoding: gzip``: httpx's ``DecodingError``, seen through
    nginx and CDN compression misconfiguration). The call reached the other side and an answer came back unreadable:
    not ``unknown``; ``upstream_unavailable``; the side effect may have happened; not repeated."""
    from tests.client.servers.app import serve

    server = issues_server()
    seen: list[bytes] = []
    gate = refusing("search_issues", 200, b'{"jsonrpc":"2.0","id":1,"result":{}}', (b"content-type", b"application/json"),
                    (b"content-encoding", b"gzip"), seen=seen)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is not False, result
    assert sum(1 for body in seen if b'"search_issues"' in body) == 1


@pytest.mark.parametrize(("text", "expected"), [
    ('{"type":"error","error":{"type":"not_found_error","message":"model: x"}}', "model: x (not_found_error)"),
    ('Error: 503 {"error":{"code":503,"message":"The service is unavailable.","status":"UNAVAILABLE"}}',
     "The service is unavailable. (503, UNAVAILABLE)"),
    ('{"error":{"message":"Not found"},"data":{"items":[{"title":"x","description":"a record"}]}}', "Not found"),
    ('{"items": [{"description": "a record"}]}', None),  # no error in it: a result that happens to be JSON
    ("plain words {not json}", None),
], ids=["anthropic", "google-prefixed", "record-beside-error", "no-error", "not-json"])
def test_json_error_message_reads_where_errors_nest(text: str, expected: str | None) -> None:
    """J217-J219's reader: the innermost message where an error nests, with its codes; never a record's own words."""
    from errscope._foreign_text import json_error_message

    assert json_error_message(text) == expected
