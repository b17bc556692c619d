"""The side-effect fact end to end on instrumented servers: a tool whose upstream call fails for real.

A read timeout after the request reached the upstream tells the model the action may have happened
(and to check first, unless the tool is idempotent); a refused connection says it did not. The fact
is on the SERVER span, the metric point, the log record and the result's ``_meta``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import fastmcp
import httpx
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

import errscope
from errscope import _attributes as attr
from errscope._explain import find_chains, render
from errscope._otlp_json import load
from errscope._setup import configure_telemetry
from errscope.demo import triage
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HOST, HttpUpstream, closed_port

MAYBE_DONE = "a backing service failed after it received the request"
CHECK_FIRST = "The action may have happened: check whether it took effect before calling again."
SAFE_TO_REPEAT = "The action may have happened; calling again is safe, repeats have no further effect."
NOT_SENT = "a backing service is unavailable. Try again later, or use another way to reach the goal."


def _tools(upstream: HttpUpstream) -> dict[str, Any]:
    async def refund(order_id: str) -> str:
        async with httpx.AsyncClient(timeout=httpx.Timeout(5, read=0.3)) as http:
            response = await http.post(f"{upstream.url}/stall", json={"order_id": order_id})
        return response.text

    async def lookup(order_id: str) -> str:
        async with httpx.AsyncClient(timeout=5) as http:
            response = await http.get(f"http://{HOST}:{closed_port()}/orders/{order_id}")
        return response.text

    return {"refund": refund, "set_address": refund, "lookup": lookup}


def _mcpserver(upstream: HttpUpstream) -> Any:
    server = MCPServer("side-effects")
    tools = _tools(upstream)
    server.tool(name="refund")(tools["refund"])
    server.tool(name="set_address", annotations={"idempotentHint": True})(tools["set_address"])
    server.tool(name="lookup")(tools["lookup"])
    return server


def _fastmcp(upstream: HttpUpstream) -> Any:
    app = fastmcp.FastMCP("side-effects")
    tools = _tools(upstream)
    app.tool(name="refund")(tools["refund"])
    app.tool(name="set_address", annotations={"idempotentHint": True})(tools["set_address"])
    app.tool(name="lookup")(tools["lookup"])
    return app


@pytest.fixture(params=["mcpserver", "fastmcp"])
async def served(request: pytest.FixtureRequest, upstream: HttpUpstream) -> AsyncIterator[tuple[Client, CapturedTelemetry]]:
    with CapturedTelemetry.installed() as telemetry:
        server = (_mcpserver if request.param == "mcpserver" else _fastmcp)(upstream)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if request.param == "fastmcp" else server
        async with Client(target) as client:
            yield client, telemetry


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if hasattr(block, "text"))


def _recorded(telemetry: CapturedTelemetry, tool: str) -> tuple[Any, Any, Any]:
    (span,) = [s for s in telemetry.spans() if s.attributes.get(attr.GEN_AI_TOOL_NAME) == tool]
    (point,) = [p for p in telemetry.histogram_points(attr.MCP_SERVER_OPERATION_DURATION)
                if p.attributes.get(attr.GEN_AI_TOOL_NAME) == tool]
    (record,) = [r for r in telemetry.log_records if getattr(r, attr.GEN_AI_TOOL_NAME, None) == tool]
    return span.attributes, point.attributes, record


@pytest.mark.anyio
async def test_read_timeout_may_have_happened(served: tuple[Client, CapturedTelemetry]) -> None:
    client, telemetry = served
    result = await client.call_tool("refund", {"order_id": "ord_1001"})
    assert result.is_error
    text = _text(result)
    assert text.startswith(f"refund failed: {MAYBE_DONE}. {CHECK_FIRST} Ref ERR-"), text
    assert result.meta is not None
    assert (result.meta[attr.META_FAILURE_CLASS], result.meta[attr.META_SIDE_EFFECT_POSSIBLE]) == ("upstream_unavailable", True)
    span, point, record = _recorded(telemetry, "refund")
    assert span[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] is True
    assert point[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] is True
    assert getattr(record, attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE) is True


@pytest.mark.anyio
async def test_idempotent_tool_may_be_repeated(served: tuple[Client, CapturedTelemetry]) -> None:
    client, telemetry = served
    result = await client.call_tool("set_address", {"order_id": "ord_1001"})
    assert _text(result).startswith(f"set_address failed: {MAYBE_DONE}. {SAFE_TO_REPEAT} Ref ERR-"), _text(result)
    assert result.meta is not None and result.meta[attr.META_SIDE_EFFECT_POSSIBLE] is True


@pytest.mark.anyio
async def test_refused_connection_never_reached_it(served: tuple[Client, CapturedTelemetry]) -> None:
    client, telemetry = served
    result = await client.call_tool("lookup", {"order_id": "ord_1001"})
    assert _text(result).startswith(f"lookup failed: {NOT_SENT} Ref ERR-"), _text(result)
    assert result.meta is not None and result.meta[attr.META_SIDE_EFFECT_POSSIBLE] is False
    span, point, _ = _recorded(telemetry, "lookup")
    assert span[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] is False
    assert point[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] is False


@pytest.mark.anyio
async def test_explain_and_triage_say_which_side_of_sent(upstream: HttpUpstream, tmp_path: Path) -> None:
    """From exported OTLP-JSON: explain and the demo's triage table tell "sent" from "never reached"."""
    telemetry = configure_telemetry("side-effects", output_dir=tmp_path, set_global=False)
    server = _mcpserver(upstream)
    errscope.instrument(server, **telemetry.providers)
    try:
        async with Client(server) as client:
            refs = {tool: (await client.call_tool(tool, {"order_id": "ord_1001"})).meta[attr.META_ERROR_REF]
                    for tool in ("refund", "lookup")}
    finally:
        telemetry.shutdown()
    exported = load(tmp_path)
    [sent] = find_chains(exported, refs["refund"])
    text = render(sent)
    assert "errscope.side_effect_possible=true" in text
    assert "no answer after the request was sent: it may have been applied" in text
    assert triage._upstream_status(exported, sent.tool) == "ReadTimeout, maybe applied"
    [refused] = find_chains(exported, refs["lookup"])
    text = render(refused)
    assert "errscope.side_effect_possible=false" in text
    assert "no answer: the request never reached it" in text
    assert triage._upstream_status(exported, refused.tool) == "ConnectError"


@pytest.mark.anyio
async def test_a_builtin_timeout_names_its_upstream_on_the_span(upstream: HttpUpstream) -> None:
    """urllib raises the socket's bare ``TimeoutError`` (no URL, no connection kept) for an answer that never came: the
    model reads "may have happened", and the tool span names the upstream its ``HTTPConnection`` was talking to."""
    import urllib.request

    server = MCPServer("side-effects")

    @server.tool(name="refund")
    def refund(order_id: str) -> str:
        request = urllib.request.Request(f"{upstream.url}/stall", data=order_id.encode())
        with urllib.request.urlopen(request, timeout=0.3) as answer:
            return str(answer.read())

    with CapturedTelemetry.installed() as telemetry:
        errscope.instrument(server, **telemetry.providers)
        async with Client(server) as client:
            result = await client.call_tool("refund", {"order_id": "ord_1001"})
    assert _text(result).startswith(f"refund failed: {MAYBE_DONE}. {CHECK_FIRST} Ref ERR-"), _text(result)
    span, _, _ = _recorded(telemetry, "refund")
    upstream_attributes = (span[attr.ERRSCOPE_UPSTREAM_SYSTEM], span[attr.ERRSCOPE_UPSTREAM_STATUS],
                           span[attr.ERRSCOPE_UPSTREAM_ADDRESS])
    assert upstream_attributes == ("http", "TimeoutError", f"{HOST}:{upstream.port}")
