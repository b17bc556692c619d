"""Server side of tests/heldout_cases.md, thirty-second round (J488-J490, J492): a gateway's tool whose MCP server
behind gave up on the call it forwarded further, in that server's own words, or forgot its session; and a tool whose
payments API refuses a request while another with its idempotency key is still being processed.

The server behind is a raw streamable HTTP server on 127.0.0.1 (:class:`AnsweringServer`) standing for a TypeScript
gateway (mcp-router) and for hosts that relay (Zed, Codex), which do not run here: it sets up a session and answers
``tools/call`` as it is told, a JSON-RPC error or an ``isError`` result. The tool uses the real ``mcp.Client`` (J488)
or ``fastmcp.Client`` (J489); J490 reuses round 26's ``ForgetfulServer``; J492 the real Stripe SDK against a
listener answering as Stripe does. Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK
client in process.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST
from tests.server.test_heldout_cases import serving
from tests.server.test_heldout_cases_24 import facts
from tests.server.test_heldout_cases_26 import nothing_for_the_model_to_fix, refund

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}


class AnsweringServer:
    """An MCP server over streamable HTTP (2025-11-25, JSON answers) whose every ``tools/call`` gets ``answer``: a
    JSON-RPC ``error`` object or a ``result``. ``calls`` counts the calls it answered."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.calls = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_DELETE(self) -> None:  # noqa: N802
                self.do_GET()

            def do_POST(self) -> None:  # noqa: N802
                frame = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                if "id" not in frame:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if frame.get("method") == "initialize":
                    reply: dict[str, Any] = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                                        "serverInfo": {"name": "gateway", "version": "1"}}}
                elif frame.get("method") == "tools/call":
                    owner.calls += 1
                    reply = answer
                else:
                    reply = {"result": {}}
                body = json.dumps({"jsonrpc": "2.0", "id": frame["id"], **reply}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Mcp-Session-Id", "FAKE-session-32")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.url = f"http://{HOST}:{self._httpd.server_address[1]}/mcp"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @contextmanager
    def running(self) -> Iterator[AnsweringServer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._httpd.shutdown()
            self._httpd.server_close()


async def send_invoice(invoice_id: str) -> str:
    """Send an invoice through the billing gateway (its ``send_invoice`` tool)."""
    from mcp import Client

    async with Client(TARGET["url"], mode="legacy") as billing:
        result = await billing.call_tool("send_invoice", {"invoice_id": invoice_id})
    return str(result)


async def send_invoice_via_fastmcp(invoice_id: str) -> str:
    """Send an invoice through the billing gateway with ``fastmcp.Client`` (it raises a failed call as ``ToolError``)."""
    from fastmcp import Client

    async with Client(TARGET["url"]) as billing:
        result = await billing.call_tool("send_invoice", {"invoice_id": invoice_id})
    return str(result.data)


async def forwarded(style: str, telemetry: CapturedTelemetry, tool: Any, answer: dict[str, Any]) -> tuple[Any, str, int]:
    """``tool`` called once against an :class:`AnsweringServer`: its span, the model's text, the calls forwarded."""
    with AnsweringServer(answer).running() as gateway:
        TARGET["url"] = gateway.url
        async with serving(style, "legacy", telemetry, tool) as served:
            result = await served.call(tool.__name__, {"invoice_id": "INV-7"})
        assert not isinstance(result, Exception) and result.is_error, result
        return served.span(), " ".join(getattr(part, "text", "") for part in result.content), gateway.calls


@pytest.mark.parametrize("style", STYLES)
async def test_j488_a_gateways_32603_over_its_downstreams_timeout(style: str, telemetry: CapturedTelemetry) -> None:
    """J488 (mcp-router/mcp-router #57: "MCP error -32603: Error calling tool zhi: MCP error -32001: Request timed out",
    the gateway's -32603 around the TypeScript client's own timeout of the server behind it). The tool's ``mcp.Client``
    raises ``MCPError(-32603, …)``: the invoice service took the call and was not heard from in time, so the invoice may
    have gone out. ``upstream_unavailable``, may have taken effect; forwarded once."""
    span, text, calls = await forwarded(style, telemetry, send_invoice, {"error": {
        "code": -32603, "message": "MCP error -32001: Request timed out"}})
    assert calls == 1
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert "may have" in text, text


@pytest.mark.parametrize("style", STYLES)
async def test_j489_a_hosts_timeout_through_fastmcps_client(style: str, telemetry: CapturedTelemetry) -> None:
    """J489 (zed-industries/zed #32668: "Context server request timeout"; a relay that reaches the invoice service through
    a host answers the call ``isError`` with the host's words; ``fastmcp.Client.call_tool`` raises that text as a
    ``ToolError`` with no cause, J476). ``upstream_unavailable``, may have taken effect; forwarded once."""
    span, text, calls = await forwarded(style, telemetry, send_invoice_via_fastmcp, {"result": {
        "content": [{"type": "text", "text": "Context server request timeout"}], "isError": True}})
    assert calls == 1
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert "may have" in text, text


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("status", "code", "message"), [
    (404, -32001, "MCP session with ID 'df859b7e-77dc-40a0-98df-3b42450a93f3' could not be found."),
    (400, -32000, "Bad Request: Unknown Mcp-Session-Id header"),
])
async def test_j490_a_session_the_server_names_or_its_header(style: str, status: int, code: int, message: str,
                                                           telemetry: CapturedTelemetry) -> None:
    """J490 (microsoft/vscode #301591: a Dynamics 365 MCP server's 404 -32001 "MCP session with ID '…' could not be
    found." once its session ended; diegosouzapw/OmniRoute #5169: a 400 -32000 "Bad Request: Unknown Mcp-Session-Id
    header" for an idled-out session). The tool's ``mcp.Client`` raises the body as ``MCPError``: the first read "may
    have taken effect" by its -32001 (the SDKs' own request timeout), the second ``unknown``. The server behind forgot
    the session and processed nothing: ``upstream_unavailable``, side effect false, one refused call."""
    span, text, calls = await refund(style, telemetry, status, {"jsonrpc": "2.0", "id": None, "error": {
        "code": code, "message": message}})
    assert calls == 1
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    nothing_for_the_model_to_fix(text)


STRIPE_IN_FLIGHT = {"error": {"type": "api_error", "message": (
    "There is currently another in-progress request using this Stripe-Idempotency-Key (that probably means you "
    "submitted twice, and the other request is still going through): FAKE-refund-17. Please try again later.")}}
STRIPE_KEY_REUSED = {"error": {"type": "idempotency_error", "message": (
    "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a "
    "key other than 'FAKE-refund-17' if you meant to execute a different request.")}}


async def refund_charge(invoice_id: str) -> str:
    """Refund the charge of an invoice (the Stripe SDK, its idempotency key the invoice's, no retries of its own)."""
    import stripe

    client = stripe.StripeClient("sk_test_FAKE", base_addresses={"api": TARGET["url"]}, max_network_retries=0)
    refund = await client.v1.refunds.create_async(params={"charge": f"ch_{invoice_id}"},
                                                  options={"idempotency_key": f"FAKE-refund-{invoice_id}"})
    return refund.id


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("status", "body", "expected"), [
    (409, STRIPE_IN_FLIGHT, ("upstream_unavailable", True)),
    (400, STRIPE_KEY_REUSED, ("invalid_input", False)),
])
async def test_j492_an_idempotency_key_still_in_flight(style: str, status: int, body: dict[str, Any],
                                                       expected: tuple[str, bool], telemetry: CapturedTelemetry) -> None:
    """J492 (agentmail-to/agentmail-mcp #49 and codefuturist/email-mcp #62: a host retrying a timed-out send delivers it
    twice unless the key is kept; Stripe answers a request whose key another in-progress request holds 409 "There is
    currently another in-progress request using this Stripe-Idempotency-Key … Please try again later."; the IETF
    idempotency-key draft's 409 "A request is outstanding for this Idempotency-Key"). The Stripe SDK raises ``APIError``
    with its 409, read ``invalid_input``, not applied: the model told to fix arguments it got right, and a call with
    changed arguments gets a new key and refunds twice. The first request may still take effect and the same key later
    gets its outcome: ``upstream_unavailable``, may have taken effect. Guard: the key used before with other parameters
    (Stripe's 400 ``idempotency_error``) stays ``invalid_input``, not applied."""
    from tests.classification.upstreams import answering

    with answering(status, json.dumps(body), {"Content-Type": "application/json"}) as port:
        TARGET["url"] = f"http://{HOST}:{port}"
        async with serving(style, "legacy", telemetry, refund_charge) as served:
            result = await served.call("refund_charge", {"invoice_id": "17"})
    assert not isinstance(result, Exception) and result.is_error, result
    span = served.span()
    assert facts(span) == expected, dict(span.attributes)
    assert span.attributes.get("errscope.upstream.status") == str(status), dict(span.attributes)
    text = " ".join(getattr(part, "text", "") for part in result.content)
    assert ("may have" in text) is expected[1], text
