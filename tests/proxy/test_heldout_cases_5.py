"""Proxy side of tests/heldout_cases.md, fifth round (J115-J118): a stdio host reaching an HTTP upstream through ``errscope
proxy --upstream URL`` when the upstream closes its stream mid-call, its token expires or its session does; and a relayed
tool whose name has dots.

The upstream is a real ``MCPServer`` over streamable HTTP on 127.0.0.1 behind the ASGI gates of the client tests
(``tests/client/test_heldout_cases_5.py``), or the raw foreign stdio peer; the host is ``ToolClient`` over stdio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context

from errscope import FailureClass, Outcome
from errscope._attributes import ERRSCOPE_FAILURE_CLASS, GEN_AI_TOOL_NAME
from errscope._otlp_json import TelemetryError, load
from errscope.client import ToolClient
from tests.client.test_heldout_cases import failed, tool
from tests.client.test_heldout_cases_3 import Gate, MemoryEventStore, gated
from tests.client.test_heldout_cases_4 import first_refused
from tests.client.test_heldout_cases_5 import EXPIRED_TOKEN, JSON, SESSION_NOT_FOUND, calendar_server, refused_after
from tests.proxy.test_heldout_cases_3 import through_proxy
from tests.proxy.test_heldout_cases_4 import through

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def either(*gates: Gate) -> Gate:
    """A gate answering a request by the first of ``gates`` that does."""

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        for each in gates:
            if await each(scope, request, send, method):
                return True
        return False

    return gate


async def test_j115_to_j117_one_upstream_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """Through one ``errscope proxy --upstream`` (one proxy process for the three cases, to keep the test short):

    J115 (J68 one hop further; modelcontextprotocol/inspector #723: a reconnect without ``Last-Event-ID`` loses the
    stream's events; SEP-1699). The upstream closes the call's SSE stream and answers later: the host gets the answer,
    and the tool ran once (resumed, not re-POSTed).

    J116 (J99 one hop further; punkpeye/mcp-remote #166; obot-platform/obot PR #3413). The upstream's 401
    ``invalid_token`` reaches the host as needing access: the call did not run, went upstream once, and the challenge's
    token text is not repeated.

    J117 (J102 one hop further; punkpeye/mcp-remote PR #307). The upstream answers 404 "Session not found" (code -32001)
    once: the host's call is not a timeout and did not run (or was re-sent once, safely); the next calls work.
    """
    from tests.client.servers.app import serve

    server = calendar_server()
    reports: list[str] = []

    @server.tool()
    async def export_report(month: str, ctx: Context) -> str:
        reports.append(month)
        await ctx.close_sse_stream()
        await anyio.sleep(0.5)
        return f"report {month} exported"

    refused: list[bytes] = []
    expired: list[bytes] = []
    gate = either(refused_after("list_events", 0, 401, b'{"error":"invalid_token"}', refused, EXPIRED_TOKEN, JSON),
                  first_refused("create_note", 404, SESSION_NOT_FOUND, expired, JSON))
    app = server.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=100)
    async with serve(gated(app, gate)) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=10, retry=None, mode="legacy") as tc:
            report = await tc.call_tool("export_report", {"month": "2026-01"})
            denied = await tc.call_tool("list_events", {"day": "2026-04-21"})
            lost = await tc.call_tool("create_note", {"text": "buy milk"})
            again = await tc.call_tool("create_note", {"text": "buy bread"})
            after = await tc.call_tool("status", {})
    # J115
    assert (report.outcome, report.text) == (Outcome.OK, "report 2026-01 exported"), report
    assert reports == ["2026-01"]
    # J116
    assert denied.failure_class is FailureClass.PERMISSION_DENIED, denied
    assert denied.side_effect_possible is False and len(refused) == 1, (denied, len(refused))
    assert "FAKE-jwt" not in denied.text
    # J117
    assert lost.outcome is not Outcome.TIMEOUT and "timed out" not in lost.text.lower(), lost
    if lost.outcome is not Outcome.OK:
        assert lost.side_effect_possible is False, lost
    assert (again.text, after.text) == ("note 'buy bread' created", "up"), (again, after)
    assert "list_events:2026-04-21" not in server.ran


async def test_j117_a_session_that_really_expired_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J117, the session really gone: the upstream expires idle sessions (``session_idle_timeout``), as gateways do after
    an hour. The first call after the idle gap did not run; the next ones run on a new upstream session."""
    from tests.client.servers.app import serve

    server = calendar_server()
    async with serve(server.streamable_http_app(host="127.0.0.1", session_idle_timeout=0.2)) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=10, mode="legacy") as tc:
            assert (await tc.call_tool("status", {})).text == "up"
            await anyio.sleep(0.6)  # the upstream reaps the session
            result = await tc.call_tool("create_note", {"text": "buy milk"})
            again = await tc.call_tool("create_note", {"text": "buy bread"})
    assert result.outcome is not Outcome.TIMEOUT and (result.outcome is Outcome.OK or result.side_effect_possible is False), result
    assert again.text == "note 'buy bread' created", again


async def test_j118_dotted_tool_names_in_a_proxys_telemetry(tmp_path: Path) -> None:
    """J118 (J106 one hop further; barryw/ImmichMCP #4: ``immich.search.metadata`` behind docker/mcp-gateway). The proxy's
    span is named after the tool the server has, with ``gen_ai.tool.name`` exactly so, and carries the same class the
    host reads."""
    params = through_proxy(tmp_path, [tool("immich.search.metadata")],
                           {"immich.search.metadata": failed("403 Forbidden: album FAKE-7 is private")})
    async with ToolClient(params, timeout=10, retry=None) as tc:
        result = await tc.call_tool("immich.search.metadata", {"query": "beach"})
    found = await exported_spans(tmp_path / "out", "tools/call immich.search.metadata")  # flushed when the host left
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert len(found) == 1, found
    assert found[0].attributes[GEN_AI_TOOL_NAME] == "immich.search.metadata"
    assert found[0].attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied"


async def exported_spans(out: Path, name: str, timeout: float = 15) -> list[Any]:
    """The spans named ``name`` that the proxy has exported to ``out`` (in batches, and the rest when its host leaves),
    read with errscope's own OTLP-JSON reader; waits up to ``timeout`` seconds for the first."""
    with anyio.move_on_after(timeout):
        while True:
            try:
                found = [span for span in load(out).spans if span.name == name]
            except TelemetryError:  # a line being written
                found = []
            if found:
                return found
            await anyio.sleep(0.1)
    return []
