"""Proxy side of tests/heldout_cases.md, third round (J62-J67, J70, J71): reports against gateways and relays (mcp-proxy,
supergateway, mcpproxy-go, MCPHub), replayed against ``errscope proxy``.

The host is the real SDK client or ``ToolClient``, or raw JSON-RPC lines on the proxy's stdin; the server is the
plain ``MCPServer`` subprocess (tests/proxy/plain_server.py), the raw foreign peer of the client tests
(tests/client/servers/heldout_peer.py) for wire faults only a hand-written server makes, or a real ``MCPServer``
behind an ASGI gate over streamable HTTP on 127.0.0.1. The id bookkeeping case feeds
:class:`errscope.proxy._calls.Calls` the messages a relay sees, as J33 does.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass, Outcome
from errscope._telemetry import ServerTelemetry
from errscope.client import ConnectionState, ToolClient
from errscope.proxy._calls import Calls, Scope
from errscope.testing import CapturedTelemetry
from tests.client.test_heldout_cases import ok, tool
from tests.proxy.conftest import PLAIN, ROOT, free_port, proxy_command, serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

PEER_SCRIPT = str(ROOT / "tests" / "client" / "servers" / "heldout_peer.py")


def through_proxy(tmp_path: Path, tools: list[dict[str, Any]], answers: dict[str, Any], **listing: Any) -> StdioServerParameters:
    """``errscope proxy`` over stdio in front of the raw foreign peer answering as ``answers`` says."""
    spec = tmp_path / "peer.json"
    spec.write_text(json.dumps({"tools": tools, "answers": answers, **listing}))
    command = proxy_command(tmp_path / "out", "--", sys.executable, PEER_SCRIPT)
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env={"PEER_SPEC": str(spec)})


class RawHost:
    """A host writing exact lines to ``errscope proxy`` over stdio and reading its answers."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in iter(self.process.stdout.readline, b"")],  # type: ignore[union-attr]
                         daemon=True).start()

    def send(self, data: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(data).encode() + b"\n")
        self.process.stdin.flush()

    def frames_until(self, predicate: Any, timeout: float = 10) -> list[Any]:
        """Every frame read until one matches ``predicate`` (that one last)."""
        seen: list[Any] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                frame = json.loads(self.lines.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                break
            seen.append(frame)
            if predicate(frame):
                return seen
        raise AssertionError(f"no matching frame; saw {seen}")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def raw_host(tmp_path: Path) -> Iterator[RawHost]:
    host = RawHost(proxy_command(tmp_path, "--", *PLAIN, "stdio"))
    host.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw-host", "version": "1"}}})
    host.frames_until(lambda f: f.get("id") == 0, timeout=30)  # a loaded machine takes its time starting two processes
    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    yield host
    host.close()


def test_j62_request_with_a_null_id_is_not_a_tool_call(tmp_path: Path) -> None:
    """J62 (modelcontextprotocol/python-sdk #2057: a request with ``"id": null`` was taken for a notification;
    damionrashford/RivalSearchMCP PR #6; MCP 2025-11-25 Basic: a request id MUST NOT be null). A relay that
    keys its bookkeeping on the id must not open a tool-call span for such a frame, nor take the server's
    id-null error (its answer to the invalid frame, JSON-RPC 2.0 §5) for the answer to a call: the error
    passes untouched, no span is made, and the next real call is recorded as usual."""
    telemetry = CapturedTelemetry()
    try:
        calls, scope = Calls(ServerTelemetry(**telemetry.providers), transport="pipe"), Scope()
        calls.from_host(scope, {"jsonrpc": "2.0", "id": None, "method": "tools/call", "params": {"name": "echo", "arguments": {}}})
        invalid = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
        assert calls.from_server(scope, invalid) == invalid
        calls.from_host(scope, {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "echo", "arguments": {}}})
        calls.from_server(scope, {"jsonrpc": "2.0", "id": 0, "result": {"content": [{"type": "text", "text": "hi"}], "isError": False}})
        spans = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
        assert [s.attributes.get("jsonrpc.request.id") for s in spans] == ["0"]
    finally:
        telemetry.close()


def test_j63_batch_frame_does_not_break_the_relay(raw_host: RawHost) -> None:
    """J63 (modelcontextprotocol/python-sdk #934, typescript-sdk PR #2670, quarkiverse/quarkus-mcp-server PR #840,
    LIghtJUNction/OniMods PR #110: JSON-RPC batches were removed in MCP 2025-06-18; a host still sending one got a
    parse error, an array of answers no client expected, or silence). Through the proxy, an array frame is never
    answered with tool results; whatever answers it is a JSON-RPC error; the proxy stays up and the next single
    request on the same connection is answered."""
    raw_host.send([{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "a"}}},
                   {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}}])
    raw_host.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "after"}}})
    frames = raw_host.frames_until(lambda f: isinstance(f, dict) and f.get("id") == 9)
    assert frames[-1]["result"]["content"][0]["text"] == "after"
    for frame in frames[:-1]:
        assert isinstance(frame, dict) and isinstance(frame.get("error", {}).get("code"), int), frame


async def test_j64_bytes_that_are_not_utf8_from_the_server(tmp_path: Path) -> None:
    """J64 (NousResearch/hermes-agent PR #46104, tbxark/mcp-proxy and supergateway reports of relays dying on a
    server's bad byte). The child answers one call with a frame that is not UTF-8. The proxy does not die or drop
    the session: that call ends (answered or reported broken) well inside its timeout, and the next call works
    through the same proxy process."""
    frame = '{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"caf\xe9"}],"isError":false}}'
    params = through_proxy(tmp_path, [tool("menu"), tool("echo")], {"menu": {"raw": frame}, "echo": ok("echo")})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        first = await tc.call_tool("menu", {})
        after = await tc.call_tool("echo", {})
        assert tc.state is ConnectionState.CONNECTED
    assert first.outcome in (Outcome.OK, Outcome.ERROR), first
    assert after.text == "echo"


async def test_j65_error_object_that_breaks_the_schema(tmp_path: Path) -> None:
    """J65 (samanhappy/mcphub #922: an aggregator crashed on a tool answer it did not expect; leehack/mcp_dart PR
    #240: error objects with a non-integer code). The child answers with ``"code": "RATE_LIMITED"`` and no
    ``message``. The proxy relays a well-formed JSON-RPC error for that id (integer code, string message, a
    ref), does not die, and the next call works."""
    bad = '{"jsonrpc":"2.0","id":{id},"error":{"code":"RATE_LIMITED","detail":"slow down"}}'
    params = through_proxy(tmp_path, [tool("search"), tool("echo")], {"search": {"raw": bad}, "echo": ok("echo")})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        started = time.monotonic()
        result = await tc.call_tool("search", {"q": "x"})
        elapsed = time.monotonic() - started
        after = await tc.call_tool("echo", {})
    assert result.outcome is Outcome.ERROR and elapsed < 2.5, (result, elapsed)
    assert "ERR-" in result.text
    assert after.text == "echo"


async def test_j66_server_flooding_stderr_behind_the_proxy(tmp_path: Path) -> None:
    """J66 (tbxark/mcp-proxy PR #80: the proxy piped its stdio child's stderr and never read it, so a chatty server
    wedged once ~64 KiB of log filled the pipe and every call timed out; mark3labs/mcp-go #956). A child that
    writes 1 MiB to stderr on every call is answered through the proxy, call after call."""
    params = through_proxy(tmp_path, [tool("query")], {"query": ok("42 rows")}, stderr_bytes=1 << 20)
    async with ToolClient(params, timeout=10, retry=None) as tc:
        results = [await tc.call_tool("query", {"sql": "select 1"}) for _ in range(3)]
    assert [r.text for r in results] == ["42 rows"] * 3


async def test_j67_http_429_and_retry_after_cross_the_proxy(tmp_path: Path) -> None:
    """J67 (smart-mcp-proxy/mcpproxy-go PR #1042: the relay flattened every non-2xx upstream answer into an error
    string, so a 429's ``Retry-After`` was gone before the host saw it; open-webui/open-webui #27795). An HTTP
    upstream rate-limits ``tools/call`` with 429 and ``Retry-After: 30``; through ``errscope proxy --listen`` the
    host's client still reads class ``rate_limited``, a 30 s wait and a call that did not run."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import RATE_LIMITED, gated, issues_server, refusing

    server = issues_server()
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), refusing("search_issues", *RATE_LIMITED))) as base:
        listen = free_port()
        command = proxy_command(tmp_path, "--upstream", base + "/mcp", "--listen", f"127.0.0.1:{listen}")
        with serving(command, listen):
            async with ToolClient(f"http://127.0.0.1:{listen}/mcp", timeout=5) as tc:
                result = await tc.call_tool("search_issues", {"query": "crash"})
                after = await tc.call_tool("status", {})
    assert server.ran == []
    assert result.failure_class is FailureClass.RATE_LIMITED and result.retry_after == 30, result.text
    assert result.side_effect_possible is False
    assert after.text == "up"


async def test_j70_get_stream_refused_with_405_crosses_the_proxy(tmp_path: Path) -> None:
    """J70 (punkpeye/mcp-proxy PR #62: the relay answered the host's standalone GET with 400 where the upstream
    offers no stream, and Cursor reconnected in a loop; cap-js/mcp PR #36; open-webui/open-webui #27795). Through
    ``errscope proxy --listen``, the upstream's 405 reaches the host as 405 (MCP spec, Transports > Listening for
    Messages), so the host carries on POST-only: the calls succeed and the GET is not retried over and over."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, without_stream

    server = issues_server()
    gets: list[float] = []
    no_stream = without_stream(gets)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), no_stream)) as base:
        listen = free_port()
        with serving(proxy_command(tmp_path, "--upstream", base + "/mcp", "--listen", f"127.0.0.1:{listen}"), listen):
            async with ToolClient(f"http://127.0.0.1:{listen}/mcp", timeout=5, mode="legacy") as tc:
                results = [await tc.call_tool("search_issues", {"query": str(n)}) for n in range(3)]
                await anyio.sleep(1.0)
                assert tc.state is ConnectionState.CONNECTED
    assert [r.outcome for r in results] == [Outcome.OK] * 3
    assert 1 <= len(gets) <= 2, gets


async def test_j71_http_refusal_behind_a_stdio_proxy_keeps_its_status(tmp_path: Path) -> None:
    """J71 (smart-mcp-proxy/mcpproxy-go PR #1042: the SDK under the relay flattened a 429 into "Server returned an
    error response", so a stdio host behind it never learnt it was rate-limited or for how long). A stdio host
    reaches an HTTP upstream through ``errscope proxy --upstream URL``; the upstream refuses ``tools/call`` with
    429 and ``Retry-After: 30``. The host reads class ``rate_limited`` with the 30 s wait; the tool never ran;
    the next call works."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import RATE_LIMITED, gated, issues_server, refusing

    server = issues_server()
    refused: list[bytes] = []
    limiter = refusing("search_issues", *RATE_LIMITED, seen=refused)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), limiter)) as base:
        command = proxy_command(tmp_path, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
            after = await tc.call_tool("status", {})
    assert server.ran == [] and len(refused) == 1
    assert result.failure_class is FailureClass.RATE_LIMITED and result.retry_after == 30, result.text
    assert after.text == "up"


async def test_http_refusal_with_a_plain_json_body_behind_a_stdio_proxy_keeps_its_status(tmp_path: Path) -> None:
    """A gateway's 429 with ``application/json`` that is no JSON-RPC message (``{"message": "rate limit
    exceeded"}``: API gateways, Kong, Cloudflare) is a refusal too: the SDK stands in "Server returned an error
    response" for it as for a text body, so its status and ``Retry-After`` must reach the stdio host the same way.
    The body's kind, not its content type, tells the server's own JSON-RPC answer from a refusal."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    server = issues_server()
    limiter = refusing("search_issues", 429, b'{"message": "API rate limit exceeded"}', (b"retry-after", b"30"),
                       (b"content-type", b"application/json"))
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), limiter)) as base:
        command = proxy_command(tmp_path, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert server.ran == []
    assert result.failure_class is FailureClass.RATE_LIMITED and result.retry_after == 30, result.text
