"""Server side of tests/heldout_cases.md, twenty-sixth round (J437-J439): a tool that calls another MCP server over
streamable HTTP (a gateway's tool, an agent's sub-server) and finds its session there gone.

The MCP server behind is a raw HTTP server on 127.0.0.1 (:class:`ForgetfulServer`): it answers ``initialize`` with a
session id and then, as a server restarted, scaled or past its idle timeout does (MCP 2025-11-25, Transports > Session
Management), answers every request in that session 404, in the body the Python SDK's server sends, in the TypeScript
SDK's code, or with no body. The tool uses the real ``mcp.Client``; real ``MCPServer`` and FastMCP servers with
``errscope.instrument``, the real SDK client in process.
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


class ForgetfulServer:
    """An MCP server over streamable HTTP that sets up a session and then no longer knows it.

    ``initialize`` gets a 2025-11-25 answer with ``Mcp-Session-Id``; ``notifications/initialized`` a 202; a GET 405 (no
    stream offered); every other POST ``status`` with ``body`` (a JSON-RPC error, or nothing). ``calls`` counts the
    requests it refused."""

    def __init__(self, status: int, body: dict[str, Any] | None) -> None:
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
                if frame.get("method") == "initialize":
                    answer = json.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "forgetful", "version": "1"}}}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Mcp-Session-Id", "FAKE-session-1")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    return
                if "id" not in frame:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                owner.calls += 1
                answer = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self._httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.url = f"http://{HOST}:{self._httpd.server_address[1]}/mcp"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @contextmanager
    def running(self) -> Iterator[ForgetfulServer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._httpd.shutdown()
            self._httpd.server_close()


async def refund_via_payments(order_id: str) -> str:
    """Refund an order through the payments MCP server (its ``refund`` tool)."""
    from mcp import Client

    async with Client(TARGET["url"], mode="legacy") as payments:
        result = await payments.call_tool("refund", {"order_id": order_id})
    return str(result)


async def refund(style: str, telemetry: CapturedTelemetry, status: int, body: dict[str, Any] | None) -> tuple[Any, str, int]:
    """The tool called once against a :class:`ForgetfulServer`: its span, the model's text, the refused requests."""
    with ForgetfulServer(status, body).running() as upstream:
        TARGET["url"] = upstream.url
        async with serving(style, "legacy", telemetry, refund_via_payments) as served:
            result = await served.call("refund_via_payments", {"order_id": "A-1"})
        assert not isinstance(result, Exception) and result.is_error, result
        return served.span(), " ".join(getattr(part, "text", "") for part in result.content), upstream.calls


def nothing_for_the_model_to_fix(text: str) -> None:
    assert "argument" not in text.lower() and "Fix the" not in text and "may have" not in text, text


# --- J437: the Python SDK server's 404 "Session not found" ----------------------------------------------------------------

@pytest.mark.parametrize("style", STYLES)
async def test_j437_upstream_session_not_found(style: str, telemetry: CapturedTelemetry) -> None:
    """J437 (modelcontextprotocol/python-sdk #1676: a client whose server ended the session gets 404 and raises instead of
    starting a new one; mcp's ``StreamableHTTPSessionManager`` answers 404 with the JSON-RPC error -32600 "Session not
    found"; ansible/aap-mcp-server PR #111, symgraph/GhidrAssistMCP #50: a tool's call failing "404 Session not found"
    mid-work). The tool's ``mcp.Client`` surfaces the body as ``MCPError(-32600, "Session not found")``, and -32600 was
    read by its code as the caller's invalid request: ``invalid_input``, the model told to fix right arguments. The
    refund server processed nothing: it is out of reach until a new session is set up (``upstream_unavailable``, side
    effect false)."""
    span, text, calls = await refund(style, telemetry, 404, {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Session not found"}})
    assert calls == 1
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    nothing_for_the_model_to_fix(text)


# --- J438: a 404 with no body: the Python client's own "Session terminated" ------------------------------------------------

@pytest.mark.parametrize("style", STYLES)
async def test_j438_upstream_session_terminated(style: str, telemetry: CapturedTelemetry) -> None:
    """J438 (python-sdk #1676; Eigenwise/atomic-agents PR #135: "mcp.shared.exceptions.McpError: Session terminated"; mcp's
    ``streamable_http`` client stands in -32600 "Session terminated" for a 404 to a request in a session). A server
    behind a proxy or load balancer that answers the 404 without a JSON-RPC body: the same session gone, in the client's
    words. It was ``invalid_input`` by its -32600; it is ``upstream_unavailable``, side effect false."""
    span, text, calls = await refund(style, telemetry, 404, None)
    assert calls == 1
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    nothing_for_the_model_to_fix(text)


# --- J439: the TypeScript SDK's -32001 "Session not found" ------------------------------------------------------------------

@pytest.mark.parametrize("style", STYLES)
async def test_j439_upstream_session_not_found_typescript_code(style: str, telemetry: CapturedTelemetry) -> None:
    """J439 (metatool-ai/metamcp #166: "Error POSTing to endpoint (HTTP 404): {"error":{"code":-32001,"message":"Session
    not found"},…}", the TypeScript SDK's ``StreamableHTTPServerTransport`` answering -32001 with its 404; Doist/todoist-mcp
    #309: -32001 "No transport found for sessionId"). -32001 is also the SDKs' own request timeout, so the tool's
    ``MCPError(-32001, "Session not found")`` was read "may have taken effect": a model told a refund might have gone
    out that the server never started. It is ``upstream_unavailable``, side effect false."""
    span, text, calls = await refund(style, telemetry, 404, {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32001, "message": "Session not found"}})
    assert calls == 1
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    nothing_for_the_model_to_fix(text)
