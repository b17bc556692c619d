"""Server side of tests/heldout_cases.md, eleventh round (J223-J227): what a tool returns beside its failure, and the
order a host speaks in.

An ``isError`` result whose ``_meta`` holds another vendor's keys; a failure told only in ``structuredContent``; an
upstream API's JSON error document in a ``ToolError`` and in a plain exception, a key inside; a ``tools/call`` sent
after the ``initialize`` answer but before ``notifications/initialized``.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process, or raw HTTP
against the server under uvicorn on 127.0.0.1 (J227).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from mcp_types import CallToolResult, TextContent

from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS, META_ERROR_REF
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import REF, everything_recorded, serving, text_of
from tests.server.test_heldout_cases_9 import span_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
KEY = "sk-proj-FAKEfeed1234567890abcdefFAKE0987654321"
FOREIGN_META = {"com.acme.billing/charge-id": "ch_FAKE_2", "io.example/attribution": {"source": "crm", "rows": 0}}


async def charge_card(amount: int) -> CallToolResult:
    """A payment tool whose failure carries its processor's ids in ``_meta`` under the vendor's own namespace."""
    return CallToolResult(content=[TextContent(type="text", text="card declined by issuer: insufficient funds")],
                          is_error=True, _meta=dict(FOREIGN_META))


async def find_ticket(ticket_id: str) -> CallToolResult:
    """A tool that tells its failure only in ``structuredContent`` (the text copy is a SHOULD)."""
    return CallToolResult(content=[], is_error=True,
                          structured_content={"error": {"code": "NOT_FOUND", "message": f"no ticket {ticket_id}"}})


def openai_401() -> str:
    return json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}. You can find your API key at "
                                            "https://platform.openai.com/account/api-keys.",
                                 "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}})


@pytest.mark.parametrize("style", STYLES)
async def test_j223_foreign_meta_namespaces_kept_beside_the_ref(style: str, telemetry: CapturedTelemetry) -> None:
    """J223 (livekit/agents #5008, leehack/mcp_dart #37: a result's ``_meta`` lost between the tool and the host; MCP
    2025-11-25, ``_meta``: keys under another vendor's prefix belong to that vendor). errscope writes its ref into the
    result's ``_meta`` and keeps every key the tool put there, whole."""
    async with serving(style, "legacy", telemetry, charge_card) as served:
        result = await served.call("charge_card", {"amount": 5})
    assert isinstance(result, CallToolResult) and result.is_error, result
    meta = result.meta or {}
    for key, value in FOREIGN_META.items():
        assert meta.get(key) == value, (key, meta)
    assert meta.get(META_ERROR_REF) == span_of(telemetry, "charge_card").attributes[ERRSCOPE_ERROR_REF]


@pytest.mark.parametrize("style", STYLES)
async def test_j224_a_failure_told_only_in_structured_content(style: str, telemetry: CapturedTelemetry) -> None:
    """J224 (langchain-ai/langchain-mcp-adapters #619 on the server side; MCP 2025-11-25, Tools > Structured Content).
    A tool returns ``isError`` with no content and its error only in ``structuredContent``: the span reads the class
    from that body (``not_found``), the structured body is kept for the host, and the model gets a text with the ref."""
    async with serving(style, "legacy", telemetry, find_ticket) as served:
        result = await served.call("find_ticket", {"ticket_id": "T-77"})
    assert isinstance(result, CallToolResult) and result.is_error, result
    assert span_of(telemetry, "find_ticket").attributes[ERRSCOPE_FAILURE_CLASS] == "not_found"
    assert result.structured_content == {"error": {"code": "NOT_FOUND", "message": "no ticket T-77"}}
    assert re.search(REF, text_of(result)), text_of(result)


@pytest.mark.parametrize("style", STYLES)
async def test_j225_an_api_error_document_in_a_tool_error(style: str, telemetry: CapturedTelemetry) -> None:
    """J225 (micasa-dev/micasa #156 and earendil-works/pi #4092 on the server: a tool relays its upstream's JSON error
    body as the message meant for the model). A ``ToolError`` whose message is OpenAI's 401 document with the rejected
    key: class ``permission_denied``; the model reads "Incorrect API key provided", not the JSON; the key reaches
    neither the model nor telemetry."""
    if style == "fastmcp":
        from fastmcp.exceptions import ToolError
    else:
        from mcp.server.mcpserver.exceptions import ToolError

    async def summarise(url: str) -> str:
        """Summarise a page with a hosted model."""
        raise ToolError(openai_401())

    async with serving(style, "legacy", telemetry, summarise) as served:
        result = await served.call("summarise", {"url": "https://docs.example.test/a"})
    assert isinstance(result, CallToolResult) and result.is_error, result
    text = text_of(result)
    assert "Incorrect API key provided" in text, text
    for fragment in ("FAKE", '{"error"', "invalid_request_error"):
        assert fragment not in text, (fragment, text)
    assert span_of(telemetry, "summarise").attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied"
    assert "FAKE" not in everything_recorded(telemetry)


@pytest.mark.parametrize("style", STYLES)
async def test_j226_an_api_error_document_in_a_plain_exception(style: str, telemetry: CapturedTelemetry) -> None:
    """J226 (decocms/studio PR #6827: the provider's 429 nested as a JSON string inside a gateway's error). A tool
    raises ``RuntimeError`` with OpenRouter's body, the provider's ``RESOURCE_EXHAUSTED`` one document deeper: class
    ``rate_limited`` (not ``unknown``), nothing raw in the text."""
    raw = json.dumps({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                                "status": "RESOURCE_EXHAUSTED"}})
    body = json.dumps({"error": {"message": "Provider returned error", "code": 429,
                                 "metadata": {"raw": raw, "provider_name": "Google"}}})

    async def translate(text: str) -> str:
        """Translate through a model gateway."""
        raise RuntimeError(body)

    async with serving(style, "legacy", telemetry, translate) as served:
        result = await served.call("translate", {"text": "hola"})
    assert isinstance(result, CallToolResult) and result.is_error, result
    assert span_of(telemetry, "translate").attributes[ERRSCOPE_FAILURE_CLASS] == "rate_limited"
    assert '{"error"' not in text_of(result) and "metadata" not in text_of(result), text_of(result)


@pytest.mark.parametrize("style", STYLES)
async def test_j227_a_call_before_notifications_initialized(style: str, telemetry: CapturedTelemetry) -> None:
    """J227 (modelcontextprotocol/rust-sdk #783: a request between the initialize answer and
    ``notifications/initialized`` killed the session; zoedsoupe/anubis-mcp PR #198 and go-sdk PR #419: on streamable
    HTTP the two POSTs race, and the spec lets a client send requests once ``initialize`` is answered). A raw client
    sends ``tools/call`` first and the notification after it: the call is answered (a result, or a protocol error
    that is not -32603), its span is recorded, and the session keeps working."""
    from tests.client.servers.app import serve
    from tests.servers.catalogue import BUILDERS

    import errscope

    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    app = server.http_app() if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}

    def body_of(response: httpx.Response) -> dict[str, Any]:
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            (data,) = [line[5:] for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]
            return json.loads(data)
        return response.json()

    async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        init = await http.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "racing-host", "version": "1"}}})
        assert init.status_code == 200, init.text
        if init.headers.get("mcp-session-id"):
            headers["mcp-session-id"] = init.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-11-25"
        early = await http.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_orders", "arguments": {}}})
        await http.post("/mcp", headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        later = await http.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_orders", "arguments": {}}})
    answered = body_of(early)
    assert answered.get("id") == 2, answered
    assert "result" in answered or answered["error"]["code"] != -32603, answered
    assert "result" in body_of(later), body_of(later)
    spans = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    assert len(spans) == 2, [s.name for s in spans]
