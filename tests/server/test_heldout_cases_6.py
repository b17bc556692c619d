"""Server side of tests/heldout_cases.md, sixth round (J132-J136): a gateway tool whose upstream MCP server fails (its
-32603 relaying a transport failure, its process dying), a tool speaking a line protocol whose peer hangs up, an XML-RPC
service's HTTP refusals (Odoo servers), and a root cause re-raised without ``from``.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument`` and the real SDK client in process; each tool meets a
real failure: the raw foreign peer as the upstream MCP server over stdio (``tests/client/servers/heldout_peer.py``), TCP
and HTTP servers on 127.0.0.1 that hang up or refuse, a port nobody listens on.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import xmlrpc.client
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_RETRY_AFTER, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HttpUpstream, closed_port
from tests.client.conftest import SERVERS
from tests.server.test_heldout_cases import serving, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def upstream_peer(tmp_path: Path, answers: dict[str, Any]) -> StdioServerParameters:
    """The raw foreign stdio MCP server answering each named tool as ``answers`` says."""
    spec = tmp_path / "upstream.json"
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in answers]
    spec.write_text(json.dumps({"tools": tools, "answers": answers}))
    return StdioServerParameters(command=sys.executable, args=[str(SERVERS / "heldout_peer.py")],
                                 env={"PEER_SPEC": str(spec)})


async def relay(params: StdioServerParameters, name: str) -> str:
    """What a gateway's tool does: call ``name`` on its upstream MCP server with the real SDK client."""
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(name, {})
    return " ".join(getattr(block, "text", "") for block in result.content)


def failed_text(result: Any) -> str:
    """The model-facing text of a failed call: an ``isError`` result's text or a JSON-RPC error's message."""
    if isinstance(result, MCPError):
        return result.error.message
    assert result.is_error, result
    return text_of(result)


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j132_a_gateway_tool_relaying_its_upstreams_transport_failure(
        style: str, tmp_path: Path, telemetry: CapturedTelemetry) -> None:
    """J132 (mcp-router/mcp-router #57: "MCP error -32603: MCP error -32603: Error calling tool zhi: MCP error -32001:
    Request timed out"; windmill-labs/windmill #6693: "MCP error -32603: Failed to execute request: error sending
    request for url"). A gateway's tool calls the real server's tool, which answers -32603 with its own transport
    failure. -32603 says nothing of the class; the message does, read with the rules the client and the proxy read it
    with: the gateway's span says ``upstream_unavailable`` (not ``unknown``, which alerts as a mapping gap)."""
    params = upstream_peer(tmp_path, {
        "zhi": {"error": {"code": -32603, "message": "Error calling tool zhi: MCP error -32001: Request timed out"}},
        "run_flow": {"error": {"code": -32603, "message": "Failed to execute request: error sending request for url "
                                                          "(http://127.0.0.1:8000/api/w/main/jobs/run/p/f/flow)"}},
    })

    async def ask(tool: str) -> str:
        """Relay a call to the upstream MCP server."""
        return await relay(params, tool)

    async with serving(style, "legacy", telemetry, ask) as served:
        results = [await served.call("ask", {"tool": name}) for name in ("zhi", "run_flow")]
    for result in results:
        assert "ERR-" in failed_text(result), result
    spans = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    assert [s.attributes[ERRSCOPE_FAILURE_CLASS] for s in spans] == ["upstream_unavailable"] * 2


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j133_a_gateway_tool_whose_upstream_process_dies(style: str, tmp_path: Path, telemetry: CapturedTelemetry) -> None:
    """J133 (HKUDS/nanobot PR #3338: "27 ClosedResourceError occurrences in a single day" when an MCP bridge process
    restarted; livekit/agents PR #6298: a dead MCP server surfacing as a raw anyio error). The upstream MCP server exits
    while a gateway's tool waits for its answer: the SDK reports the closed connection, and the gateway's call is
    ``upstream_unavailable`` that may have run (the upstream had the request), with a ref."""
    params = upstream_peer(tmp_path, {"charge_card": {"exit": 1}})

    async def pay(amount: int) -> str:
        """Charge a card through the payments MCP server."""
        return await relay(params, "charge_card")

    async with serving(style, "legacy", telemetry, pay) as served:
        result = await served.call("pay", {"amount": 5})
    assert "ERR-" in failed_text(result)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable"
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not False


@contextmanager
def hanging_up() -> Iterator[int]:
    """A TCP service on 127.0.0.1 that reads a request and closes without answering (a backend that crashed
    mid-request; reading first makes the close a clean FIN, never a reset); yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(1024)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j134_a_peer_that_hangs_up_before_answering(style: str, telemetry: CapturedTelemetry) -> None:
    """J134 (HKUDS/nanobot PR #3338 lists anyio's ``EndOfStream`` and ``BrokenResourceError`` among the connection errors
    an MCP client meets; anyio's docs: ``EndOfStream`` is "raised when trying to read from a stream that has been closed
    from the other end"). A tool sends a command over ``anyio.connect_tcp`` and its peer closes without answering: the
    upstream is unavailable and the command may have been acted on (it was delivered), as with asyncio's
    ``IncompleteReadError``."""
    with hanging_up() as port:

        async def enqueue(job: str) -> str:
            """Put a job on the queue service."""
            async with await anyio.connect_tcp("127.0.0.1", port) as stream:
                await stream.send(f"PUSH {job}\n".encode())
                return (await stream.receive()).decode()

        async with serving(style, "legacy", telemetry, enqueue) as served:
            result = await served.call("enqueue", {"job": "reindex"})
    assert "ERR-" in failed_text(result)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable"
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is True


@pytest.mark.parametrize(("status", "headers", "expected", "retry_after"), [
    (503, {"Retry-After": "7"}, "upstream_unavailable", 7.0),  # RFC 9110 §10.2.3: kept with a 503 too
    (429, {"Retry-After": "7"}, "rate_limited", 7.0),
    (401, {"WWW-Authenticate": 'Basic realm="odoo"'}, "permission_denied", None),
    (404, {}, "not_found", None),
])
async def test_j135_an_xmlrpc_services_http_refusal(status: int, headers: dict[str, str], expected: str,
                                                    retry_after: float | None, telemetry: CapturedTelemetry) -> None:
    """J135 (ivnvxd/mcp-server-odoo PR #29: Odoo 18's missing XML-RPC routes answered 404 to every CRUD call;
    erpipe-org/mcp-odoo #11: an MCP server talking XML-RPC to 127.0.0.1:8069). Python's ``xmlrpc.client`` raises
    ``ProtocolError`` for any HTTP answer but 200, the status in ``errcode`` and the headers in ``headers``: the status
    decides the class as for any HTTP client (RFC 9110 §15), and a 429's ``Retry-After`` is kept."""
    with HttpUpstream() as upstream:
        url = upstream.scripted(status, "<html><body>refused</body></html>", {"Content-Type": "text/html", **headers})

        def search_partners(name: str) -> str:
            """Find partners by name in Odoo."""
            proxy = xmlrpc.client.ServerProxy(url)
            return str(proxy.execute_kw("odoo", 2, "FAKE-odoo-key", "res.partner", "search", [[["name", "=", name]]]))

        async with serving("mcpserver", "legacy", telemetry, search_partners) as served:
            result = await served.call("search_partners", {"name": "Acme"})
    assert "ERR-" in failed_text(result) and "FAKE-odoo-key" not in failed_text(result)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == expected
    assert span.attributes.get(ERRSCOPE_RETRY_AFTER) == retry_after


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j136_a_root_cause_re_raised_without_from(style: str, telemetry: CapturedTelemetry) -> None:
    """J136 (modelcontextprotocol/python-sdk #2541 and PR #2542: ``raise ValueError(str(e))`` "discards the original
    exception's type"; Nikola1Davydov/AnalyzeTool #97: "the sentence that says what actually broke lives in
    InnerException and is thrown away"). A tool re-raises a real refused connection as ``RuntimeError(str(exc))``
    without ``from``: Python still keeps it as the implicit context, so the class is ``upstream_unavailable`` (not sent)
    and the span's exception event names ``ConnectionRefusedError`` for on-call."""
    port = closed_port()

    def sync_orders(day: str) -> str:
        """Copy a day of orders from the warehouse service."""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        except OSError as exc:
            raise RuntimeError(f"sync failed: {exc}")  # noqa: B904 - the case: no `from`
        return "synced"

    async with serving(style, "legacy", telemetry, sync_orders) as served:
        result = await served.call("sync_orders", {"day": "2026-05-05"})
    assert "ERR-" in failed_text(result)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable"
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False
    (event,) = [e for e in span.events if e.name == "exception"]
    assert event.attributes["exception.type"] == "ConnectionRefusedError", dict(event.attributes)
