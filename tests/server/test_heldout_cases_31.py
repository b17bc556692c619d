"""Server side of tests/heldout_cases.md, thirty-first round (J476): a gateway tool that calls another MCP server and
raises the failure it was told, in that server's SDK's words.

The instrumented server (MCPServer and FastMCP with ``errscope.instrument``, the real SDK client in process) has a tool
that calls a foreign Python server (``tests/client/servers/wrapping_sdks.py``: a real FastMCP without errscope, over
stdio) through ``fastmcp.Client``, which raises the ``isError`` text as a ``ToolError`` with no cause ("Error calling
tool 'summarise': Connection error."). Its model API is a closed port on 127.0.0.1.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import closed_port
from tests.proxy.conftest import ROOT
from tests.server.test_heldout_cases_24 import facts, failed_call

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}


async def _ask_agent(tool: str, arguments: dict[str, Any]) -> str:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(sys.executable, ["-m", "tests.client.servers.wrapping_sdks", "fastmcp"], cwd=str(ROOT),
                               env={"WRAP_MODEL_URL": TARGET["model_url"], "WRAP_SILENT_URL": "http://127.0.0.1:9",
                                    "WRAP_LIMITED_URL": "http://127.0.0.1:9", "WRAP_RUNS": TARGET["runs"],
                                    "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    async with Client(transport) as agent:
        result = await agent.call_tool(tool, arguments)  # raise_on_error: a ToolError holding the text
    return str(result.data)


async def summarise_ticket(ticket: str) -> str:
    """Summarise a ticket through the summariser agent's MCP server."""
    return await _ask_agent("summarise", {"text": ticket})


async def quota_left(account: str) -> str:
    """The account's quota, as the agent's ``get_rate_limit`` tool tells it."""
    return await _ask_agent("get_rate_limit", {})


@pytest.mark.parametrize("style", STYLES)
async def test_j476_a_gateway_tool_raising_a_foreign_servers_words(style: str, tmp_path: Path,
                                                                   telemetry: CapturedTelemetry) -> None:
    """J476 (jlowin/fastmcp's ``Client.call_tool`` raises the ``isError`` text as a ``ToolError``; J472's FastMCP lead
    over the OpenAI SDK's "Connection error."). The gateway's tool lets the ``ToolError`` "Error calling tool
    'summarise': Connection error." through; read as the tool's own words, it was ``unknown`` on the span (the mapping
    gap alert). ``upstream_unavailable``, and the foreign server's crash in a tool named ``get_rate_limit`` stays
    ``unknown`` (its name is no rate limit). Each foreign tool ran once."""
    TARGET.update(model_url=f"http://127.0.0.1:{closed_port()}/v1", runs=str(tmp_path / "runs.txt"))
    span, text = await failed_call(style, telemetry, summarise_ticket, {"ticket": "refund order 17"})
    assert facts(span)[0] == "upstream_unavailable", dict(span.attributes)
    assert "argument" not in text.lower(), text
    telemetry.exporter.clear()
    span, _ = await failed_call(style, telemetry, quota_left, {"account": "A-1"})
    assert facts(span)[0] == "unknown", dict(span.attributes)
    assert Path(TARGET["runs"]).read_text().split() == ["summarise", "get_rate_limit"]
