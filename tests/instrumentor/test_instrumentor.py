"""``MCPInstrumentor``: servers and clients created after ``instrument()`` are errscope's, until ``uninstrument()``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import Annotated

import pytest
from mcp import Client
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared import _otel as sdk_otel
from opentelemetry.instrumentation.utils import suppress_instrumentation
from pydantic import Field

from errscope import FailureClass
from errscope.client import _shaping as shape
from errscope.instrumentor import MCPInstrumentor
from errscope.server import uninstrument
from errscope.server._mcp import ErrscopeMiddleware
from errscope.testing import CapturedTelemetry

pytestmark = pytest.mark.anyio


@pytest.fixture
def captured() -> Iterator[CapturedTelemetry]:
    telemetry = CapturedTelemetry()
    instrumentor = MCPInstrumentor()
    instrumentor.instrument(**telemetry.providers)
    try:
        yield telemetry
    finally:
        instrumentor.uninstrument()


def build() -> MCPServer:
    server = MCPServer("zero-code")

    @server.tool()
    def lookup(order_id: str) -> str:
        raise FileNotFoundError(f"order {order_id} is not in /srv/orders")

    return server


def test_entry_point_names_the_instrumentor() -> None:
    """``opentelemetry-instrument`` finds it under the ``opentelemetry_instrumentor`` group."""
    found = {ep.name: ep.load() for ep in entry_points(group="opentelemetry_instrumentor") if ep.name == "errscope"}
    assert found == {"errscope": MCPInstrumentor}
    assert list(MCPInstrumentor().instrumentation_dependencies()) == ["mcp >= 2.3, < 3"]


async def test_servers_and_clients_after_instrument(captured: CapturedTelemetry) -> None:
    """A new MCPServer answers with errscope's shaped error; server and client spans carry the class."""
    server = build()
    async with Client(server) as client:
        result = await client.call_tool("lookup", {"order_id": "A1"})
    assert result.is_error and result.meta["io.errscope/failure_class"] == "not_found"
    assert "/srv/orders" not in result.content[0].text
    spans = {span.kind.name: span for span in captured.spans() if span.name == "tools/call lookup"}
    assert spans["SERVER"].attributes["errscope.failure_class"] == "not_found"
    assert spans["CLIENT"].attributes["errscope.failure_class"] == "not_found"
    assert spans["CLIENT"].attributes["errscope.channel"] == "execution"


async def test_one_client_span_per_call(captured: CapturedTelemetry, monkeypatch: pytest.MonkeyPatch) -> None:
    """errscope's CLIENT span replaces the SDK's ``MCP send tools/call``; the server continues errscope's span.

    The legacy era drives the SDK's JSON-RPC dispatcher (as stdio and HTTP do), which opens the SDK's
    span. Other requests keep it; after ``uninstrument()`` the SDK's tool-call span is back.
    """
    # The SDK's spans go to the global provider; its module tracer is pointed at the captured one instead.
    monkeypatch.setattr(sdk_otel, "_tracer", captured.providers["tracer_provider"].get_tracer("mcp-python-sdk"))
    async with Client(build(), mode="legacy") as client:
        await client.list_tools()
        await client.call_tool("lookup", {"order_id": "A1"})
    spans = captured.spans()
    clients = [span for span in spans if span.kind.name == "CLIENT"]
    assert [span.name for span in clients if "tools/call" in span.name] == ["tools/call lookup"]
    assert "MCP send tools/list" in [span.name for span in clients]
    server_span = next(span for span in spans if span.kind.name == "SERVER" and span.name == "tools/call lookup")
    errscope_span = next(span for span in clients if span.name == "tools/call lookup")
    assert server_span.parent is not None and server_span.parent.span_id == errscope_span.context.span_id

    MCPInstrumentor().uninstrument()
    async with Client(build(), mode="legacy") as client:
        await client.call_tool("lookup", {"order_id": "A1"})
    after = [span.name for span in captured.spans()[len(spans):] if span.kind.name == "CLIENT"]
    assert [name for name in after if "tools/call" in name] == ["MCP send tools/call lookup"]


def plain_refund_server() -> MCPServer:
    """A server errscope does not instrument (an uninstrumented peer): its rejections are the SDK's own words."""
    server = MCPServer("plain")

    @server.tool()
    def refund(amount: Annotated[int, Field(le=500)]) -> str:
        return "refunded"

    uninstrument(server)
    return server


async def test_client_span_reads_answers_as_the_client_does(captured: CapturedTelemetry) -> None:
    """The CLIENT span's class for an uninstrumented server's answer is what ``ToolClient`` reads from it.

    The SDK answers ``amount=900`` with pydantic's "less than or equal to 500": an argument rejection, not the
    HTTP 500 the bare text classifier sees in it. The SDK wraps an unknown tool into an ``isError`` result
    ("Unknown tool: refnd"): ``not_found``, as the client reads it.
    """
    async with Client(plain_refund_server()) as client:
        rejected = await client.call_tool("refund", {"amount": 900})
        unknown = await client.call_tool("refnd", {"amount": 1})
    assert shape.from_result("refnd", unknown, {}, max_text=4000) is None  # the client's "unknown tool" reading
    client_reading = shape.from_result("refund", rejected, {}, max_text=4000, arguments={"amount": 900})
    assert client_reading is not None and client_reading.failure_class is FailureClass.INVALID_INPUT
    spans = {span.name: span.attributes for span in captured.spans() if span.kind.name == "CLIENT"}
    assert spans["tools/call refund"]["errscope.failure_class"] == client_reading.failure_class.value
    assert spans["tools/call refnd"]["errscope.failure_class"] == FailureClass.NOT_FOUND.value


def test_one_middleware_for_nested_construction(captured: CapturedTelemetry) -> None:
    """MCPServer builds a low-level Server inside: errscope is installed once, on the outer one."""
    server = build()
    chain = server._lowlevel_server.middleware
    assert sum(isinstance(m, ErrscopeMiddleware) for m in chain) == 1
    lowlevel = Server("plain")
    assert sum(isinstance(m, ErrscopeMiddleware) for m in lowlevel.middleware) == 1


async def test_suppressed_records_nothing(captured: CapturedTelemetry) -> None:
    """Inside ``suppress_instrumentation()`` the call is served and shaped, but no errscope span is recorded."""
    server = build()
    with suppress_instrumentation():
        async with Client(server) as client:
            result = await client.call_tool("lookup", {"order_id": "A1"})
    assert result.is_error
    assert [span.name for span in captured.spans() if span.name.startswith("tools/call")] == []


def test_uninstrument_restores() -> None:
    """After ``uninstrument()`` new servers are plain and the instrumented ones are restored; twice is a no-op."""
    instrumentor = MCPInstrumentor()
    original_init, original_call = MCPServer.__init__, Client.call_tool
    instrumentor.instrument()
    instrumentor.instrument()  # BaseInstrumentor: a warning, not a second wrap
    before = build()
    instrumentor.uninstrument()
    assert MCPServer.__init__ is original_init and Client.call_tool is original_call
    for server in (before, build()):
        assert not any(isinstance(m, ErrscopeMiddleware) for m in server._lowlevel_server.middleware)


def test_library_import_needs_no_sdk() -> None:
    """``import errscope`` and the instrumentor load the OpenTelemetry API only, never the SDK or exporters."""
    code = "import sys, errscope, errscope.instrumentor; print(sorted({m.split('.')[1] for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))}))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def test_fastmcp_app_after_instrument(captured: CapturedTelemetry) -> None:
    """A ``fastmcp.FastMCP`` app created after ``instrument()`` carries errscope's middleware once."""
    import fastmcp  # the `fastmcp` extra: make test installs it

    from errscope.server._fastmcp import ErrscopeToolMiddleware

    app = fastmcp.FastMCP("zero-code")
    assert sum(isinstance(m, ErrscopeToolMiddleware) for m in app.middleware) == 1
    assert sum(isinstance(m, ErrscopeMiddleware) for m in app._mcp_server.middleware) == 1
