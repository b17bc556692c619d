"""``errscope proxy`` side of tests/heldout_cases.md, seventeenth round (J330-J332, J336, J338): J319-J326's words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from tests.client.conftest import SERVERS, ForeignLog
from tests.client.test_heldout_cases import failed
from tests.proxy.test_heldout_cases_3 import RawHost, proxy_command
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import call, relay_classes, relayed, text_of

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j330_what_a_tool_drives_gone_or_spent_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J330 (J319-J323 across the relay: microsoft/playwright-mcp #1597, firecrawl/firecrawl #2460, Helmi/claude-simone #33,
    modelcontextprotocol/typescript-sdk #1211, IBM/mcp-context-forge #4042). The relay's spans take the client's classes
    (one classifier); an output-schema complaint is not ``invalid_input``; each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "browser_snapshot": "Error: browserBackend.callTool: Target page, context or browser has been closed",
        "crawl_site": "Insufficient credits to perform this request. For more credits, you can upgrade your plan at "
                      "https://firecrawl.dev/pricing or try changing the request limit to a lower value.",
        "log_activity": "Failed to log activity: attempt to write a readonly database",
        "query_flights": "Error: SSE stream disconnected: TypeError: terminated",
        "list_dataset_ids": "Output validation error: outputSchema defined but no structured output returned",
    })
    assert classes.pop("list_dataset_ids") != "invalid_input", classes
    assert classes == {
        "browser_snapshot": "upstream_unavailable",
        "crawl_site": "permission_denied",
        "log_activity": "permission_denied",
        "query_flights": "upstream_unavailable",
    }, classes


INFURA_KEY = "9aa3d95b3bc440fa88ea12eaa4456161"


async def test_j331_a_node_provider_s_key_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J331 (J326 across the relay: oceanprotocol/provider #287, 0xPolygon/cdk-erigon #1529). The upstream's text carries an
    Infura URL with the project key in its path: neither the host's text nor anything the relay exports holds the
    key."""
    host, log = relayed(tmp_path, {"get_balance": failed(
        f'missing response (requestMethod="POST", serverError={{"code":"ECONNREFUSED"}}, '
        f'url="https://mainnet.infura.io/v3/{INFURA_KEY}", code=SERVER_ERROR, version=web/5.7.1)')})
    hosts.append(host)
    frame = call(host, 10, "get_balance")
    host.close()
    said = text_of(frame)
    assert INFURA_KEY not in said and "Ref ERR-" in said, said
    spans = await exported_spans(tmp_path / "out", "tools/call get_balance")
    assert [s.attributes.get(ERRSCOPE_FAILURE_CLASS) for s in spans] == ["upstream_unavailable"], spans
    exported = "".join(path.read_text() for path in (tmp_path / "out").iterdir() if path.is_file())
    assert INFURA_KEY not in exported
    assert len(log.received("tools/call")) == 1


async def test_j332_an_output_schema_32602_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J332 (J324 across the relay: yamadashy/repomix #833, the TypeScript SDK's -32602 "Structured content does not match
    the tool's output schema"). The relay passes the protocol error on with its ref; its span is not ``invalid_input``
    (the complaint is about the upstream's result, not the host's arguments); sent once."""
    message = ("MCP error -32602: Structured content does not match the tool's output schema: data should NOT have "
               "additional properties")
    host, log = relayed(tmp_path, {"pack_codebase": {"error": {"code": -32602, "message": message}}})
    hosts.append(host)
    frame = call(host, 10, "pack_codebase")
    host.close()
    assert frame["error"]["code"] == -32602 and "Ref ERR-" in frame["error"]["message"], frame
    spans = await exported_spans(tmp_path / "out", "tools/call pack_codebase")
    assert len(spans) == 1 and spans[0].attributes.get(ERRSCOPE_FAILURE_CLASS) != "invalid_input", spans
    assert len(log.received("tools/call")) == 1


async def test_j336_provider_refusals_and_a_start_up_wait_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J336 (J333-J335 across the relay: obot-platform/obot #3557, anthropics/claude-code #72457, anomalyco/opencode #1092).
    The relay's spans take the client's classes; each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "list_repos": "timed out waiting for MCP server to be ready",
        "second_opinion": 'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"This organization '
                          'has been disabled."}}',
        "review_files": "AI_APICallError: prompt is too long: 210171 tokens > 200000 maximum",
    })
    assert classes == {
        "list_repos": "upstream_unavailable",
        "second_opinion": "permission_denied",
        "review_files": "invalid_input",
    }, classes


async def test_j338_a_causeless_32000_for_a_call_missing_a_required_argument_behind_a_proxy(
        tmp_path: Path, hosts: list[RawHost]) -> None:
    """J338 (J337 across the relay: MemPalace/mempalace #1574, -32000 "Internal tool error" for a call without its required
    ``agent_name``). The relay tells the host which required argument the call lacked, with a ref, and its span says
    ``invalid_input``; sent once."""
    spec = tmp_path / "peer.json"
    spec.write_text(json.dumps({
        "tools": [{"name": "mempalace_diary_write", "inputSchema": {
            "type": "object", "properties": {"agent_name": {"type": "string"}, "entry": {"type": "string"}},
            "required": ["agent_name", "entry"]}}],
        "answers": {"mempalace_diary_write": {"error": {"code": -32000, "message": "Internal tool error"}}}}))
    log = tmp_path / "peer.jsonl"
    host = RawHost(proxy_command(tmp_path / "out", "--", "env", f"PEER_SPEC={spec}", f"PEER_LOG={log}", sys.executable,
                                 str(SERVERS / "heldout_peer.py")))
    hosts.append(host)
    host.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    host.frames_until(lambda f: f.get("id") == 0, timeout=30)
    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    host.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    host.frames_until(lambda f: f.get("id") == 1)
    host.send({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
               "params": {"name": "mempalace_diary_write", "arguments": {"entry": "TEST entry"}}})
    frame = host.frames_until(lambda f: f.get("id") == 10)[-1]
    host.close()
    assert frame["error"]["code"] == -32000, frame
    said = frame["error"]["message"]
    assert "agent_name" in said and "Ref ERR-" in said and "TEST entry" not in said, said
    spans = await exported_spans(tmp_path / "out", "tools/call mempalace_diary_write")
    assert [s.attributes.get(ERRSCOPE_FAILURE_CLASS) for s in spans] == ["invalid_input"], spans
    assert len(ForeignLog(log).received("tools/call")) == 1
