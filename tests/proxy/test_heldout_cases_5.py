"""Proxy side of tests/heldout_cases.md, fifth round (J115-J118): a stdio host reaching an HTTP upstream through ``errscope
proxy --upstream URL`` when the upstream closes its stream mid-call, its token expires or its session does; and a relayed
tool whose name has dots.

The upstream is a real ``MCPServer`` over streamable HTTP on 127.0.0.1 behind the ASGI gates of the client tests
(``tests/client/test_heldout_cases_5.py``), or the raw foreign stdio peer; the host is ``ToolClient`` over stdio.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer

from errscope import FailureClass, Outcome
from errscope._attributes import ERRSCOPE_FAILURE_CLASS, GEN_AI_TOOL_NAME
from errscope._otlp_json import load
from errscope.client import ToolClient
from tests.client.test_heldout_cases import failed, tool
from tests.client.test_heldout_cases_3 import MemoryEventStore, gated
from tests.client.test_heldout_cases_4 import first_refused
from tests.client.test_heldout_cases_5 import EXPIRED_TOKEN, JSON, SESSION_NOT_FOUND, calendar_server, refused_after
from tests.proxy.test_heldout_cases_3 import through_proxy
from tests.proxy.test_heldout_cases_4 import through

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_j115_a_stream_closed_mid_call_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J115 (J68 one hop further; modelcontextprotocol/inspector #723: a reconnect without ``Last-Event-ID`` loses the
    stream's events; SEP-1699). The upstream closes the call's SSE stream and answers later: behind the proxy the host
    gets the answer, and the tool ran once (resumed, not re-POSTed)."""
    from tests.client.servers.app import serve

    server = MCPServer("reports")
    runs: list[str] = []

    @server.tool()
    async def export_report(month: str, ctx: Context) -> str:
        runs.append(month)
        await ctx.close_sse_stream()
        await anyio.sleep(0.5)
        return f"report {month} exported"

    app = server.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=100)
    async with serve(app) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=8, retry=None) as tc:
            result = await tc.call_tool("export_report", {"month": "2026-01"})
    assert (result.outcome, result.text) == (Outcome.OK, "report 2026-01 exported"), result
    assert runs == ["2026-01"]


async def test_j116_an_expired_token_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J116 (J99 one hop further; punkpeye/mcp-remote #166: after the token expired the bridge only reported a failed
    server; obot-platform/obot PR #3413). The upstream's 401 ``invalid_token`` reaches the host as needing access: the
    call did not run, went upstream once, and the challenge's token text is not repeated; the next tool works."""
    from tests.client.servers.app import serve

    server = calendar_server()
    seen: list[bytes] = []
    gate = refused_after("list_events", 0, 401, b'{"error":"invalid_token"}', seen, EXPIRED_TOKEN, JSON)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=5) as tc:
            result = await tc.call_tool("list_events", {"day": "2026-04-21"})
            after = await tc.call_tool("status", {})
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert result.side_effect_possible is False and len(seen) == 1 and server.ran == [], (result, len(seen))
    assert "FAKE-jwt" not in result.text
    assert after.text == "up"


async def test_j117_an_expired_session_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J117 (J102 one hop further; punkpeye/mcp-remote PR #307: the bridge kept the dead session id and "from then on
    every call fails"). The upstream answers 404 "Session not found" (code -32001) once: the host's call is not a timeout
    and did not run (or was re-sent once, safely); the next calls work."""
    from tests.client.servers.app import serve

    server = calendar_server()
    seen: list[bytes] = []
    gate = first_refused("create_note", 404, SESSION_NOT_FOUND, seen, JSON)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=5) as tc:
            result = await tc.call_tool("create_note", {"text": "buy milk"})
            again = await tc.call_tool("create_note", {"text": "buy bread"})
            after = await tc.call_tool("status", {})
    assert result.outcome is not Outcome.TIMEOUT and "timed out" not in result.text.lower(), result
    if result.outcome is not Outcome.OK:
        assert result.side_effect_possible is False, result
    assert (again.text, after.text) == ("note 'buy bread' created", "up"), (again, after)


async def test_j118_dotted_tool_names_in_a_proxys_telemetry(tmp_path: Path) -> None:
    """J118 (J106 one hop further; barryw/ImmichMCP #4: ``immich.search.metadata`` behind docker/mcp-gateway). The proxy's
    span is named after the tool the server has, with ``gen_ai.tool.name`` exactly so, and carries the same class the
    host reads."""
    params = through_proxy(tmp_path, [tool("immich.search.metadata")],
                           {"immich.search.metadata": failed("403 Forbidden: album FAKE-7 is private")})
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("immich.search.metadata", {"query": "beach"})
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    # The proxy exports at exit (the host closed it above); errscope's own OTLP-JSON reader reads the folder.
    found = [span for span in load(tmp_path / "out").spans if span.name == "tools/call immich.search.metadata"]
    assert len(found) == 1, [span.name for span in load(tmp_path / "out").spans]
    assert found[0].attributes[GEN_AI_TOOL_NAME] == "immich.search.metadata"
    assert found[0].attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied"
