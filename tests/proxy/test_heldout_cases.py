"""Proxy side of tests/heldout_cases.md (J33-J37): reports against MCP proxies and gateways, replayed against
``errscope proxy``.

The bookkeeping cases feed :class:`errscope.proxy._calls.Calls` the messages a relay sees, in the order a real
session produces them; the transport cases run the real ``errscope proxy`` command in front of a real Python
``MCPServer`` subprocess (tests/proxy/plain_server.py) and talk to it with the real SDK client.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from errscope._telemetry import ServerTelemetry
from errscope.proxy._calls import Calls, Scope
from errscope.testing import CapturedTelemetry
from tests.proxy.conftest import PLAIN, ROOT, free_port, proxy_command, serving
from tests.proxy.plain_server import SECRET

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

REF = re.compile(r"ERR-[0-9A-Z]{8}")


@pytest.fixture
def relay() -> Iterator[tuple[Calls, CapturedTelemetry]]:
    telemetry = CapturedTelemetry()
    yield Calls(ServerTelemetry(**telemetry.providers), transport="pipe"), telemetry
    telemetry.close()


def tool_call(request_id: object, name: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {}}}


def tools_call_spans(telemetry: CapturedTelemetry) -> list[object]:
    return [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]


def test_j33_server_request_with_the_hosts_id(relay: tuple[Calls, CapturedTelemetry]) -> None:
    """J33 (supergateway / mcp-proxy reports of sampling and elicitation breaking behind a proxy; the two sides
    number their requests independently, JSON-RPC 2.0 §4): while the host's ``tools/call`` id 1 is open, the
    server sends its own request id 1 (``sampling/createMessage``) and the host answers it. Neither is taken
    for the tool call's answer: both pass untouched, and the real answer that follows is the one shaped."""
    calls, telemetry = relay
    scope = Scope()
    calls.from_host(scope, tool_call(1, "draft_reply"))
    sampling = {"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage",
                "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "draft"}}], "maxTokens": 50}}
    assert calls.from_server(scope, sampling) == sampling
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": {"type": "text", "text": "Dear…"}, "model": "m"}}
    assert calls.from_host(scope, answer) == answer
    assert tools_call_spans(telemetry) == []  # the call is still open
    shaped = calls.from_server(scope, {"jsonrpc": "2.0", "id": 1, "result": {
        "isError": True, "content": [{"type": "text", "text": "429 Too Many Requests, retry after 30s"}]}})
    assert shaped["result"]["_meta"]["io.errscope/failure_class"] == "rate_limited"
    (span,) = tools_call_spans(telemetry)
    assert span.attributes["errscope.failure_class"] == "rate_limited"


def test_j34_cancelled_call_is_one_span_and_its_late_answer_is_not_raw(relay: tuple[Calls, CapturedTelemetry]) -> None:
    """J34 (python-sdk #1152 seen from a gateway; agentgateway / toolhive reports of spans counted twice): the host
    cancels ``tools/call`` 7; the server answers anyway. The call is one span with outcome ``cancelled``; the
    late answer makes no second span, and nothing raw from it reaches the host (the host must ignore it, MCP
    spec Utilities > Cancellation, but a frame that does cross still crosses the scrubbing boundary)."""
    calls, telemetry = relay
    scope = Scope()
    calls.from_host(scope, tool_call(7, "crash"))
    calls.from_host(scope, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    late = {"jsonrpc": "2.0", "id": 7, "result": {"isError": True, "content": [
        {"type": "text", "text": f"db connect failed for postgres://admin:{SECRET}@10.0.0.5:5432/orders"}]}}
    forwarded = calls.from_server(scope, late)
    (span,) = tools_call_spans(telemetry)
    assert span.attributes["errscope.outcome"] == "cancelled"
    assert SECRET not in json.dumps(forwarded)


def _banner_server() -> list[str]:
    """The plain server behind a start-up banner printed on stdout (what many CLI-wrapped servers do)."""
    code = ("print('plain server v1 starting on stdio', flush=True); import runpy, sys; "
            "sys.argv = ['plain_server', 'stdio']; runpy.run_module('tests.proxy.plain_server', run_name='__main__')")
    return [sys.executable, "-c", code]


async def test_j35_large_frame_and_stdout_noise_through_stdio(tmp_path: Path) -> None:
    """J35 (TokenRhythm/opensquilla PR #953: asyncio's 64 KiB line limit; openai/codex PR #31805; stdout banners
    breaking supergateway / mcp-proxy sessions): a child that prints a non-JSON banner on stdout, then answers
    with a 2 MiB frame, keeps its session: the frame reaches the host whole, and the next call works."""
    command = proxy_command(tmp_path, "--", *_banner_server())
    text = "x" * (2 * 1024 * 1024)
    async with Client(StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))) as client:
        big = await client.call_tool("echo", {"text": text})
        small = await client.call_tool("echo", {"text": "after"})
    assert not big.is_error and big.content[0].text == text
    assert small.content[0].text == "after"


async def test_j36_explain_finds_the_call_behind_the_ref_the_user_saw(tmp_path: Path) -> None:
    """J36 (on-call path, DESIGN.md "one lookup"; mcp-remote / docker mcp gateway reports that a client-side error
    cannot be tied to the server's logs): the text a user saw through the proxy holds a ref; ``errscope explain``
    with that ref, copied as it appears (trailing punctuation and all), gives the tool, its class and the
    upstream status of that very call."""
    command = proxy_command(tmp_path, "--", sys.executable, "-m", "tests.proxy.plain_server", "stdio")
    async with Client(StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))) as client:
        seen = (await client.call_tool("rate_limited", {})).content[0].text
        await client.call_tool("forbidden", {})
    quoted = seen[seen.index("Ref ") + 4:]  # e.g. "ERR-7K3M9QXZ." as the user pasted it
    explained = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", quoted, "--from", str(tmp_path)],
                               capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert explained.returncode == 0, explained.stderr
    ref = REF.search(seen).group(0)
    assert explained.stdout.startswith(f"{ref}  tool=rate_limited"), explained.stdout
    assert "rate_limited" in explained.stdout and "isError" in explained.stdout
    assert "forbidden" not in explained.stdout


async def test_j37_server_notifications_during_a_call_reach_the_host(tmp_path: Path) -> None:
    """J37 (supergateway and mcp-proxy reports of dropped ``notifications/message`` and progress): log messages a
    server sends while a tool runs reach the host through the proxy, in order, before the answer."""
    server = tmp_path / "chatty.py"
    server.write_text(
        "from mcp.server.mcpserver import MCPServer, Context\n"
        "server = MCPServer('chatty')\n"
        "@server.tool()\n"
        "async def migrate(ctx: Context) -> str:\n"
        "    for step in ('lock', 'copy', 'swap'):\n"
        "        await ctx.info(f'step {step}')\n"
        "    return 'migrated'\n"
        "server.run('stdio')\n"
    )
    command = proxy_command(tmp_path / "out", "--", sys.executable, str(server))
    messages: list[str] = []

    async def on_log(params: object) -> None:
        messages.append(str(getattr(params, "data", params)))

    async with Client(StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT)),
                      logging_callback=on_log, mode="legacy") as client:  # logging: 2025-11-25 era (SEP-2577)
        result = await client.call_tool("migrate", {})
    assert result.content[0].text == "migrated"
    assert messages == ["step lock", "step copy", "step swap"], messages


async def test_j42_stale_session_through_the_http_proxy_gets_404(tmp_path: Path) -> None:
    """J42 (sparfenyuk/mcp-proxy #149, modelcontextprotocol/rust-sdk #733, anthropics/claude-code #62008): a host
    that still holds a session id the server no longer knows (the server restarted) must get HTTP 404 from the
    proxy, the signal to start a new session (MCP spec, Transports > Session Management), not a 5xx or a hang;
    a new session through the same proxy then works."""
    import httpx

    upstream, listen = free_port(), free_port()
    with serving([*PLAIN, "http", str(upstream)], upstream), \
            serving(proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{upstream}/mcp", "--listen",
                                  f"127.0.0.1:{listen}"), listen):
        url = f"http://127.0.0.1:{listen}/mcp"
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
                   "mcp-session-id": "FAKE-stale-session-0001", "mcp-protocol-version": "2025-11-25"}
        async with httpx.AsyncClient(timeout=10) as http:
            stale = await http.post(url, headers=headers, json=tool_call(3, "echo") | {"params": {"name": "echo", "arguments": {"text": "hi"}}})
        async with Client(url, mode="legacy") as client:
            fresh = await client.call_tool("echo", {"text": "again"})
    assert stale.status_code == 404, (stale.status_code, stale.text)
    assert fresh.content[0].text == "again"
