"""Client side of tests/heldout_cases.md, seventh round (J139-J151): content that is not text inside an error (embedded
resources, resource links, images, audio, a block type from a newer spec), a tool list that changes during a call or
spans pages, a Windows server's framing (byte order mark, CRLF), a server's version or id echo that is not the
client's, the SDK's DNS-rebinding refusal, a host that refuses the server's sampling and elicitation requests, and a
task-only tool called without a task (MCP 2025-11-25, Tasks).

Each scenario is a real stdio subprocess (the raw foreign peer, ``servers/heldout_peer.py``, or the npm
``server-everything``) or a real ``MCPServer`` over streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from errscope import Channel, FailureClass, Outcome
from errscope.client import ConnectionState, ToolClient
from tests.client.test_heldout_cases import failed, ok, peer, tool
from tests.proxy.conftest import EVERYTHING, NODE, require_everything

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def error_result(*content: dict[str, Any]) -> dict[str, Any]:
    return {"result": {"content": list(content), "isError": True}}


def unknown_tool(name: str) -> dict[str, Any]:
    return {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}


LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_j139_an_error_told_in_an_embedded_resource(tmp_path: Path) -> None:
    """J139 (charmbracelet/crush PR #3907: an embedded resource reached the model as a Go pointer; NousResearch/hermes-agent
    PR #38463: embedded resources dropped while flattening a result to text). A tool reports its failure as an embedded
    text resource (the build log it produced), or as text beside a resource link. The embedded resource's text is
    content the model reads (MCP 2025-11-25, Tools > Embedded Resources), so it is read for the class like a text block;
    the whole result, link included, stays for the host."""
    params, _ = peer(tmp_path, [tool("build_image"), tool("fetch_report")], {
        "build_image": error_result({"type": "resource", "resource": {
            "uri": "file:///builds/42/build.log", "mimeType": "text/plain",
            "text": "step 3/7: registry.internal.example answered 503 Service Unavailable"}}),
        "fetch_report": error_result(
            {"type": "text", "text": "Permission denied: bucket reports-eu"},
            {"type": "resource_link", "uri": "s3://reports-eu/r-9.json", "name": "r-9.json", "mimeType": "application/json"}),
    })
    async with ToolClient(params, timeout=5, retry=None) as tc:
        build = await tc.call_tool("build_image", {})
        report = await tc.call_tool("fetch_report", {})
    assert (build.channel, build.failure_class) == (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE), build
    assert "503" in build.text and "Ref ERR-" in build.text, build.text
    assert report.failure_class is FailureClass.PERMISSION_DENIED, report
    assert report.result is not None and [block.type for block in report.result.content] == ["text", "resource_link"]


async def test_j140_an_error_that_is_only_an_image_or_audio(tmp_path: Path) -> None:
    """J140 (frontman-ai/frontman #1545: a host crashed on audio and resource content; microsoft/vscode PR #330709: a failed
    tool reached the model as an empty result). A browser tool fails with a screenshot only, a voice tool with a clip
    only. The model still gets a failure with a ref (never the base64 bytes as text), the host the blocks whole."""
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 12).decode()
    wav = base64.b64encode(b"RIFF" + bytes(4000)).decode()
    params, _ = peer(tmp_path, [tool("screenshot_page"), tool("speak")], {
        "screenshot_page": error_result({"type": "image", "data": png, "mimeType": "image/png"}),
        "speak": error_result({"type": "audio", "data": wav, "mimeType": "audio/wav"}),
    })
    async with ToolClient(params, timeout=5, retry=None) as tc:
        results = [await tc.call_tool(name, {}) for name in ("screenshot_page", "speak")]
        assert tc.state is ConnectionState.CONNECTED
    for result, kind, data in zip(results, ("image", "audio"), (png, wav), strict=True):
        assert (result.outcome, result.channel) == (Outcome.ERROR, Channel.EXECUTION), result
        assert "Ref ERR-" in result.text and data[:40] not in result.text and len(result.text) < 600, result.text
        assert result.result is not None and result.result.content[0].type == kind


async def test_j141_a_content_block_from_a_newer_spec_inside_an_error(tmp_path: Path) -> None:
    """J141 (openai/codex #33404 and #41280: "Unexpected response type" for a result holding a ``resource_link`` the client
    did not know; modelcontextprotocol/inspector #553: "Invalid Tool Result"; IBM/mcp-context-forge #2512). A server newer
    than the client adds a content block of a type the client's schema lacks. The text block beside it still says what
    failed: the class is read from it, not replaced by a validation failure."""
    params, _ = peer(tmp_path, [tool("search_issues"), tool("echo")], {
        "search_issues": error_result({"type": "text", "text": "429 Too Many Requests: retry in 30 seconds"},
                                      {"type": "x-trace", "traceId": "4bf92f3577b34da6a3ce929d0e0e4736"}),
        "echo": ok("pong"),
    })
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("search_issues", {})
        after = await tc.call_tool("echo", {})
    assert result.failure_class is FailureClass.RATE_LIMITED, result
    assert after.outcome is Outcome.OK, after


async def test_j142_a_tool_renamed_during_the_call(tmp_path: Path) -> None:
    """J142 (anthropics/claude-code #79826 and maximhq/bifrost #6885: ``notifications/tools/list_changed`` ignored, stale
    tools until restart; stacklok/toolhive #5749). The server renames ``search`` to ``search_v2`` while the call is in
    flight: it sends ``list_changed`` and answers the call "Unknown tool". The model is told the tool does not exist and
    which tools do now, from a listing taken after the change."""
    params, log = peer(tmp_path, [tool("search"), tool("fetch")], {
        "search": {**unknown_tool("search"), "retool": [tool("search_v2"), tool("fetch")], "before": [LIST_CHANGED]},
    })
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("search", {"q": "x"})
    assert result.failure_class is FailureClass.NOT_FOUND and result.channel is Channel.PROTOCOL, result
    assert "search_v2" in result.text, result.text
    assert len(log.received("tools/call")) == 1 and len(log.received("tools/list")) <= 3


async def test_j143_the_refresh_after_an_unknown_tool_reads_every_page(tmp_path: Path) -> None:
    """J143 (strands-agents/harness-sdk PR #4112: "a refresh re-lists every page with the cursor"; MCP 2025-11-25,
    Utilities > Pagination). After an unknown-tool error the client re-lists a server that pages its tools two at a
    time; the replacement tool is on the third page, and the note names it."""
    before = [tool("list_a"), tool("list_b"), tool("export_v1")]
    after = [tool("list_a"), tool("list_b"), tool("list_c"), tool("list_d"), tool("export_v2")]
    params, log = peer(tmp_path, before, {"export_v1": {**unknown_tool("export_v1"), "retool": after}}, page_size=2)
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("export_v1", {})
    assert result.failure_class is FailureClass.NOT_FOUND, result
    assert "export_v2" in result.text, result.text
    cursors = [event["params"].get("cursor") for event in log.received("tools/list")]
    assert "4" in cursors, cursors


async def test_j144_a_byte_order_mark_before_the_first_frame(tmp_path: Path) -> None:
    """J144 (the Windows servers' UTF-8 BOM: PowerShell and .NET consoles write one before the first byte of output;
    RFC 8259 §8.1: a parser "MAY ignore the presence of a byte order mark rather than treating it as an error";
    fastify/secure-json-parse PR #5). A stdio server's answer to ``initialize`` starts with U+FEFF. The handshake
    completes (the mark is not part of the message) and calls work; without that the client waits for an answer it
    already threw away."""
    params, _ = peer(tmp_path, [tool("echo")], {"echo": ok("pong")}, bom=True)
    async with ToolClient(params, timeout=3, connect_timeout=5, retry=None) as tc:
        result = await tc.call_tool("echo", {})
    assert result.outcome is Outcome.OK and result.text == "pong", result


async def test_j145_crlf_framing_from_a_windows_server(tmp_path: Path) -> None:
    r"""J145 (modelcontextprotocol/python-sdk #2433: ``stdio_server`` writes ``\r\n`` on Windows; go-sdk PR #665 "handle
    Windows CRLF in MCP client"; Taxuspt/garmin_mcp PR #162). Every frame ends with CRLF: calls work, and the failure
    text read for the class carries no stray carriage return."""
    params, _ = peer(tmp_path, [tool("echo"), tool("get_order")], {
        "echo": ok("pong"), "get_order": failed("Order A-1 not found")}, line_end="\r\n")
    async with ToolClient(params, timeout=3, retry=None) as tc:
        echo = await tc.call_tool("echo", {})
        missing = await tc.call_tool("get_order", {"id": "A-1"})
    assert echo.outcome is Outcome.OK and echo.text == "pong", echo
    assert missing.failure_class is FailureClass.NOT_FOUND and "\r" not in missing.text, missing


async def test_j146_a_server_answering_a_protocol_version_the_client_cannot_speak(tmp_path: Path) -> None:
    """J146 (modelcontextprotocol/java-sdk #436: "Unsupported protocol version from the server: 2024-11-05";
    OpenDigitalProductFactory PR #705: a mismatch read as "Failed to connect"; MCP 2025-11-25, Lifecycle > Version
    Negotiation: "If the client does not support the version in the server's response, it SHOULD disconnect"). The
    server answers ``initialize`` with a version from before MCP existed. The call fails at once without reaching a
    tool, says the versions do not match, is not retryable, and the server is not restarted in a loop."""
    params, log = peer(tmp_path, [tool("echo")], {"echo": ok("pong")}, protocol_version="2023-01-01")
    started = time.monotonic()
    async with ToolClient(params, timeout=3, connect_timeout=5) as tc:
        first = await tc.call_tool("echo", {})
        second = await tc.call_tool("echo", {})
    assert time.monotonic() - started < 10
    for result in (first, second):
        assert result.outcome is Outcome.ERROR and result.side_effect_possible is False, result
        assert "protocol version" in result.text.lower() and not result.retryable, result.text
    assert not log.received("tools/call")
    assert len(log.received("initialize")) <= 2


def other_hosts_only() -> tuple[Any, list[str]]:
    """A real ``MCPServer``'s streamable HTTP app whose DNS-rebinding protection allows only ``mcp.internal.example``
    (the SDK answers any other ``Host`` 421 "Invalid Host header"), and the accounts its ``get_balance`` ran for."""
    ran: list[str] = []
    server = MCPServer("ledger")

    @server.tool()
    def get_balance(account: str) -> str:
        ran.append(account)
        return "42.00"

    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=["mcp.internal.example"],
                                         allowed_origins=["https://mcp.internal.example"])
    return server.streamable_http_app(host="127.0.0.1", transport_security=security), ran


async def test_j147_the_sdks_dns_rebinding_refusal(tmp_path: Path) -> None:
    """J147 (modelcontextprotocol/python-sdk #1798 and PR #2247; awslabs/mcp #4507, cbcoutinho/nextcloud-mcp-server #373:
    every request answered "421 Misdirected Request: Invalid Host header" behind an ingress; the transport security
    answers 403 "Invalid Origin header" the same way). A real ``MCPServer`` whose DNS-rebinding protection allows
    another host name refuses this client. No request reached a tool; the refusal is the server's policy, which no
    retry changes: it is not an outage to retry or to trip a breaker on."""
    from tests.client.servers.app import serve

    app, ran = other_hosts_only()
    async with serve(app) as base:
        async with ToolClient(base + "/mcp", timeout=3, connect_timeout=5) as tc:
            result = await tc.call_tool("get_balance", {"account": "A-1"})
    assert result.outcome is Outcome.ERROR and result.side_effect_possible is False, result
    assert result.failure_class is FailureClass.PERMISSION_DENIED and not result.retryable, result
    assert result.attempts == 1 and not ran


async def test_j148_sampling_and_elicitation_the_host_does_not_offer(tmp_path: Path) -> None:
    """J148 (modelcontextprotocol/typescript-sdk #738: ``sampling/createMessage`` answered -32601; mcp-use/mcp-use #863
    "Sampling not supported"; modelcontextprotocol/go-sdk #285: a tool's sampling request hung until its timeout). A tool
    asks the host for a completion, another for a form; the host offers neither. Each request gets a JSON-RPC error at
    once (the tool is not left waiting), and the tool's own failure reaches the model with a ref."""
    refused = failed("Could not summarize: the client refused the sampling request")
    params, log = peer(tmp_path, [tool("summarize"), tool("confirm_delete")], {
        "summarize": {**ok("summary"), "on_refused": refused, "ask": {
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}],
                       "maxTokens": 100}}},
        "confirm_delete": {**ok("deleted"), "on_refused": failed("Not deleted: confirmation was refused"), "ask": {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Delete repo?",
                       "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}},
    })
    async with ToolClient(params, timeout=20, retry=None) as tc:
        results = [await tc.call_tool(name, {}) for name in ("summarize", "confirm_delete")]
    replies = log.events("reply")
    assert len(replies) == 2 and all(reply["error"] and isinstance(reply["error"]["code"], int) for reply in replies)
    for result in results:
        assert result.outcome is Outcome.ERROR and "Ref ERR-" in result.text, result  # not a timeout: nothing hung


async def test_j149_a_numeric_id_echoed_as_a_string(tmp_path: Path) -> None:
    """J149 (modelcontextprotocol/python-sdk PR #1720: a server answering ``"id": "0"`` to request id 0 left the client
    waiting for its timeout; awslabs/AutoCorrode PR #43: id 1 echoed as ``"1.0"``; python-sdk #961). A server echoes every
    numeric id as a string. The answer is the call's own (the only one in flight with that number), so the call ends
    with it, not with a timeout that claims the side effect may have happened."""
    params, _ = peer(tmp_path, [tool("echo"), tool("get_order")], {
        "echo": ok("pong"), "get_order": failed("Order A-1 not found")}, id_as_string=True)
    async with ToolClient(params, timeout=2, connect_timeout=4, retry=None) as tc:
        echo = await tc.call_tool("echo", {})
        missing = await tc.call_tool("get_order", {"id": "A-1"})
    assert echo.outcome is Outcome.OK, echo
    assert missing.failure_class is FailureClass.NOT_FOUND, missing


async def test_j150_a_task_only_tool_called_without_a_task(tmp_path: Path) -> None:
    """J150 (TanStack/ai #704: server-everything's ``simulate-research-query`` refuses a plain ``tools/call`` because it
    declares ``execution.taskSupport: "required"``; MCP 2025-11-25, Tasks > Tool-Level Negotiation: such a tool MUST be
    invoked as a task, and a server returns -32601 when it is not). errscope's client makes no task-augmented calls. The
    real server-everything answers with the TypeScript SDK's ``isError`` wrapping of its -32601 ("MCP error -32601: …"),
    a foreign peer with the JSON-RPC error itself. The tool exists: the model must not be told it does not; the refusal
    is a protocol error (the call did not happen), not retried."""
    require_everything()
    research = {**tool("simulate_research"), "execution": {"taskSupport": "required"}}
    raw, _ = peer(tmp_path, [research], {"simulate_research": {"error": {
        "code": -32601, "message": "Tool simulate_research requires task augmentation (taskSupport: 'required')"}}})
    everything = StdioServerParameters(command=str(NODE), args=[str(EVERYTHING), "stdio"])
    results = []
    for params, name in ((everything, "simulate-research-query"), (raw, "simulate_research")):
        async with ToolClient(params, timeout=5) as tc:
            results.append(await tc.call_tool(name, {"topic": "tides"}))
            assert tc.state is ConnectionState.CONNECTED
    for result in results:
        assert result.outcome is Outcome.ERROR and result.channel is Channel.PROTOCOL, result
        assert result.failure_class is not FailureClass.NOT_FOUND and "does not exist" not in result.text, result.text
        assert "task" in result.text.lower(), result.text
        assert result.attempts == 1 and result.side_effect_possible is False and not result.retryable, result
