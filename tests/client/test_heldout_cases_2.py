"""Client side of tests/heldout_cases.md, second round (J38-J39): the on-call path from the client's span.

``ToolClient`` drives a real stdio peer: ``errscope proxy`` in front of the plain ``MCPServer`` subprocess
(tests/proxy/plain_server.py), which writes its own OTLP-JSON telemetry, so the client's span and the server
side's span can be joined the way a trace backend joins them.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import Outcome
from errscope._attributes import ERROR_TYPE, ERRSCOPE_OUTCOME, TOOL_ERROR
from errscope.client import ConnectionState, ToolClient
from tests.proxy.conftest import ROOT, proxy_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def proxied(out: Path) -> StdioServerParameters:
    command = proxy_command(out, "--", sys.executable, "-m", "tests.proxy.plain_server", "stdio")
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))


def exported_spans(out: Path, timeout: float = 10) -> list[dict[str, Any]]:
    """The SERVER spans the proxy exported (OTLP-JSON lines), once the file is there."""
    path = out / "traces.jsonl"
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return [span for line in path.read_text().splitlines() for rs in json.loads(line)["resourceSpans"]
            for ss in rs["scopeSpans"] for span in ss["spans"]]


async def test_j38_server_span_over_stdio_is_in_the_clients_trace(tmp_path: Path, telemetry: Any) -> None:
    """J38 (Arize-ai/openinference #1616, DEVtheOPS/opencode-plugin-otel #62, mastra-ai/mastra #23922: client and
    server traces disjoint, above all over stdio where no HTTP header can carry them): the failing call's span
    on the far side of a stdio pipe is a child of the client's span, in the same trace, with the same ref."""
    async with ToolClient(proxied(tmp_path), timeout=10, **telemetry.providers) as tc:
        failed = await tc.call_tool("rate_limited", {})
    assert failed.outcome is Outcome.ERROR and failed.error_ref
    (client,) = telemetry.spans("tools/call rate_limited")
    server = [s for s in exported_spans(tmp_path) if s["name"] == "tools/call rate_limited"]
    assert len(server) == 1, [s["name"] for s in exported_spans(tmp_path)]
    assert server[0]["traceId"] == format(client.context.trace_id, "032x")
    assert server[0]["parentSpanId"] == format(client.context.span_id, "016x")
    server_ref = {a["key"]: a["value"] for a in server[0]["attributes"]}["errscope.error_ref"]["stringValue"]
    assert server_ref == failed.error_ref


async def test_j39_timed_out_call_ends_its_span_once_as_a_timeout(tmp_path: Path, telemetry: Any) -> None:
    """J39 (UsefulSoftwareCo/executor PR #1487: a call cut off mid-flight exports no span; getsentry and openllmetry
    reports of MCP spans left open on timeouts): a call that times out ends its CLIENT span at the timeout, once,
    as an error whose outcome is ``timeout`` and whose ``error.type`` is not ``tool_error`` (nothing answered);
    its duration point says the same."""
    async with ToolClient(proxied(tmp_path), timeout=0.3, **telemetry.providers) as tc:
        started = time.monotonic()
        result = await tc.call_tool("slow", {"seconds": 1.5})
        elapsed = time.monotonic() - started
    assert result.outcome is Outcome.TIMEOUT and elapsed < 1.2
    spans = telemetry.spans("tools/call slow")
    assert len(spans) == 1 and spans[0].end_time is not None
    (span,) = spans
    attributes = dict(span.attributes or {})
    assert span.status.status_code.name == "ERROR"
    assert attributes[ERRSCOPE_OUTCOME] == "timeout"
    assert attributes.get(ERROR_TYPE) not in (None, TOOL_ERROR)
    points = [dict(p.attributes) for p in telemetry.histogram_points("mcp.client.operation.duration")
              if p.attributes.get("mcp.method.name") == "tools/call"]
    assert [(p.get(ERRSCOPE_OUTCOME, "timeout"), p.get(ERROR_TYPE)) for p in points] == [("timeout", attributes[ERROR_TYPE])]


async def test_j41_server_whose_start_up_fails_is_reported_at_once(tmp_path: Path) -> None:
    """J41 (anthropics/claude-code #35287, andrewyng/openworker PR #528, GCWing/OpenBitFun PR #888): a stdio
    server whose lifespan fails (its database is unreachable) exits before answering anything. The client
    reports the server unavailable without restarting it over and over (at most one more start, for the
    server/discover fallback), well inside its call timeout, and repeats no credential the server printed."""
    launches = tmp_path / "launches"
    server = tmp_path / "broken_start.py"
    server.write_text(
        "import sys\n"
        "from contextlib import asynccontextmanager\n"
        "from mcp.server.mcpserver import MCPServer\n"
        f"open({str(launches)!r}, 'a').write('started\\n')\n"
        "@asynccontextmanager\n"
        "async def lifespan(app):\n"
        "    raise ConnectionRefusedError('cannot reach postgresql://svc:FAKE-LIFESPAN-PW@db.internal.example:5432/app')\n"
        "    yield\n"
        "server = MCPServer('broken', lifespan=lifespan)\n"
        "server.run('stdio')\n"
    )
    params = StdioServerParameters(command=sys.executable, args=[str(server)], cwd=str(ROOT))
    started = time.monotonic()
    try:
        async with ToolClient(params, timeout=30) as tc:
            said = (await tc.call_tool("anything", {})).text
            assert tc.state is not ConnectionState.CONNECTED
    except Exception as exc:  # noqa: BLE001 - raising at connect is as good an answer as a failed call
        said = f"{exc!s} {exc!r}"
    assert time.monotonic() - started < 30, said
    assert "FAKE-LIFESPAN-PW" not in said, said
    assert len(launches.read_text().splitlines()) <= 2, said
