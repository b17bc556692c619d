"""Server side of tests/heldout_cases.md, thirty-second round (J488, J489): a gateway's tool whose MCP server behind
gave up on the call it forwarded further, in that server's own words.

The server behind is a raw streamable HTTP server on 127.0.0.1 (:class:`AnsweringServer`) standing for a TypeScript
gateway (mcp-router) and for hosts that relay (Zed, Codex), which do not run here: it sets up a session and answers
``tools/call`` as it is told, a JSON-RPC error or an ``isError`` result. The tool uses the real ``mcp.Client`` (J488)
or ``fastmcp.Client`` (J489); real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client
in process.
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
