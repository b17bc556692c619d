"""Proxy side of tests/heldout_cases.md, seventh round (J153-J158): what ``errscope proxy`` must carry unchanged (a URL
elicitation's ``data``, the host's request ids with their JSON types, a Windows server's framing), what it must not
rewrite (a task-only tool's -32601 is no unknown tool), a server's request the host refuses, and the SDK's
DNS-rebinding refusal of the proxy's upstream.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``) or a real ``MCPServer`` over
streamable HTTP on 127.0.0.1; the host is ``ToolClient`` or raw JSON-RPC lines on the proxy's stdin.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.client import ToolClient
from tests.client.test_heldout_cases import failed, ok, tool
from tests.client.test_heldout_cases_7 import other_hosts_only
from tests.proxy.conftest import EVERYTHING, NODE, proxy_command, require_everything
from tests.proxy.test_heldout_cases_3 import PEER_SCRIPT, RawHost, through_proxy
from tests.proxy.test_heldout_cases_4 import through
from tests.proxy.test_heldout_cases_5 import exported_spans

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

CONSENT_URL = "https://auth.example.test/consent?state=FAKE-STATE-1&scope=repo"


async def test_j153_a_url_elicitation_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J153 (J59 one hop further; modelcontextprotocol/python-sdk #1768 and PR #1780: the consent URL of a -32042 lost on
    the way to the host; MCP 2025-11-25, Elicitation > URL mode: the error's ``data.elicitations`` are what the host
    must show). The upstream answers -32042 with one URL elicitation; the host behind the proxy gets -32042 and the
    elicitation's URL and id exactly as sent, so it can open the page."""
    elicitation = {"mode": "url", "url": CONSENT_URL, "elicitationId": "el-7f3a", "message": "Authorise repo access"}
    params = through_proxy(tmp_path, [tool("list_private_repos")], {
        "list_private_repos": {"error": {"code": -32042, "message": "This request requires more information.",
                                         "data": {"elicitations": [elicitation]}}},
    })
    async with ToolClient(params, timeout=10, retry=None) as tc:
        result = await tc.call_tool("list_private_repos", {})
    assert result.error is not None and result.error.code == -32042, result
    assert [(e.url, e.elicitation_id) for e in result.elicitations] == [(CONSENT_URL, "el-7f3a")], result.elicitations


async def test_j154_a_windows_servers_framing_behind_a_stdio_proxy(tmp_path: Path) -> None:
    r"""J154 (J144 and J145 one hop further; modelcontextprotocol/python-sdk #2433, Taxuspt/garmin_mcp PR #162: Claude
    Desktop on Windows "Server disconnected" with "Invalid JSON"; stackql/stackql #668). The upstream starts its output
    with a byte order mark and ends every frame with CRLF. Through the proxy the handshake completes, calls are answered,
    and the host receives plain LF-delimited JSON-RPC."""
    params = through_proxy(tmp_path, [tool("echo"), tool("get_order")], {
        "echo": ok("pong"), "get_order": failed("Order A-1 not found")}, bom=True, line_end="\r\n")
    async with ToolClient(params, timeout=5, connect_timeout=10, retry=None) as tc:
        echo = await tc.call_tool("echo", {})
        missing = await tc.call_tool("get_order", {"id": "A-1"})
    assert echo.outcome is Outcome.OK and echo.text == "pong", echo
    assert missing.failure_class is FailureClass.NOT_FOUND, missing


def test_j155_the_hosts_ids_come_back_with_their_json_types(tmp_path: Path) -> None:
    """J155 (modelcontextprotocol/python-sdk #961 and #1025: a string id ``"1"`` answered as the number 1, and Copilot
    Studio stopped; radareorg/radare2-mcp #68; JSON-RPC 2.0 §5: the response id "MUST be the same as the value of the id
    member in the Request Object"). A host sends ``"7"``, ``7`` and a non-ASCII string id through the proxy; each
    answer carries the host's id with its JSON type."""
    spec = tmp_path / "peer.json"
    spec.write_text(json.dumps({"tools": [tool("echo")], "answers": {"echo": ok("pong")}}))
    host = RawHost(proxy_command(tmp_path / "out", "--", "env", f"PEER_SPEC={spec}", sys.executable, PEER_SCRIPT))
    try:
        host.send({"jsonrpc": "2.0", "id": "0", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        (init,) = [f for f in host.frames_until(lambda f: "id" in f) if "id" in f]
        assert init["id"] == "0" and "result" in init, init
        host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ids: list[Any] = ["7", 7, "appel-é-7"]
        for request_id in ids:
            host.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {}}})
        answers = []
        for _ in ids:
            answers += [f for f in host.frames_until(lambda f: "id" in f) if "id" in f]
        assert sorted(((type(a["id"]).__name__, a["id"]) for a in answers), key=repr) == sorted(
            ((type(i).__name__, i) for i in ids), key=repr), answers
        assert all(a["result"]["content"][0]["text"] == "pong" for a in answers), answers
    finally:
        host.process.terminate()
        host.process.wait(timeout=10)


async def test_j156_a_task_only_tool_behind_a_proxy_is_no_unknown_tool(tmp_path: Path) -> None:
    """J156 (J150 one hop further; MCP 2025-11-25, Tasks > Tool-Level Negotiation: a tool declaring ``execution.taskSupport:
    "required"`` called without a task is answered -32601; TanStack/ai #704). The proxy knows the tool is listed: it
    must not rewrite that -32601 into "Unknown tool", which would tell the model a listed tool does not exist, whether
    the server sends the JSON-RPC error (a foreign peer) or the TypeScript SDK's ``isError`` wrap of it (the real npm
    server-everything). The host gets the refusal on the protocol channel, not retried, the tool not run."""
    require_everything()
    research = {**tool("simulate_research"), "execution": {"taskSupport": "required"}}
    (tmp_path / "raw").mkdir()
    raw = through_proxy(tmp_path / "raw", [research, tool("echo")], {
        "simulate_research": {"error": {"code": -32601, "message": "Tool simulate_research requires task augmentation "
                                                                   "(taskSupport: 'required')"}},
        "echo": ok("pong"),
    })
    command = proxy_command(tmp_path / "everything", "--", str(NODE), str(EVERYTHING), "stdio")
    everything = StdioServerParameters(command=command[0], args=command[1:])
    results = []
    for params, name in ((raw, "simulate_research"), (everything, "simulate-research-query")):
        async with ToolClient(params, timeout=10) as tc:
            results.append(await tc.call_tool(name, {"topic": "tides"}))
    for result in results:
        assert result.channel is Channel.PROTOCOL and result.failure_class is not FailureClass.NOT_FOUND, result
        assert "does not exist" not in result.text and "task" in result.text.lower(), result.text
        # One refusal is not re-sent; a call that went out before the host's first listing came back is re-sent once
        # when the refresh lists the tool (it did not run: -32601 rejects the request).
        assert result.attempts <= 2 and result.side_effect_possible is False and not result.retryable, result


async def test_j157_a_sampling_request_the_host_refuses_behind_a_proxy(tmp_path: Path) -> None:
    """J157 (J148 one hop further; supergateway and mcp-proxy reports of sampling failing behind a relay; go-sdk #285: the
    request hung until the tool's timeout). The upstream's tool asks for a completion; the request crosses the proxy to a
    host that offers no sampling, whose refusal crosses back at once; the tool's failure reaches the host with a ref."""
    params = through_proxy(tmp_path, [tool("summarize")], {
        "summarize": {**ok("summary"), "on_refused": failed("Could not summarize: the client refused the sampling request"),
                      "ask": {"method": "sampling/createMessage", "params": {
                          "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}],
                          "maxTokens": 100}}},
    })
    async with ToolClient(params, timeout=20, retry=None) as tc:
        result = await tc.call_tool("summarize", {})
    assert result.outcome is Outcome.ERROR and "Ref ERR-" in result.text, result  # not a timeout: nothing hung
    assert "refused" in result.text, result.text


async def test_j158_the_sdks_dns_rebinding_refusal_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J158 (J147 one hop further; apache/doris-mcp-server #203: a relay's every call "Client error '421 Misdirected
    Request'"; bethington/ghidra-mcp #161). ``errscope proxy --upstream`` reaches a real ``MCPServer`` whose DNS-rebinding
    protection allows another host name. The host learns that access is refused (not an outage to retry), that no tool
    ran, and the proxy's span says the same."""
    from tests.client.servers.app import serve

    app, ran = other_hosts_only()
    async with serve(app) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=5, connect_timeout=10, retry=None) as tc:
            result = await tc.call_tool("get_balance", {"account": "A-1"})
    assert result.failure_class is FailureClass.PERMISSION_DENIED and not result.retryable, result
    assert result.side_effect_possible is False and not ran, result
    found = await exported_spans(tmp_path, "tools/call get_balance", timeout=5)
    assert all(span.attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied" for span in found), found
