"""Client side of tests/heldout_cases.md, thirty-second round (J481-J486): hosts', gateways' and agent frameworks' own
words for a call they lost or gave up on, relayed by a gateway whose tools call other servers through them.

A host or gateway that stops waiting for a tool (Zed's 60 s "Context server request timeout", Codex's "timed out awaiting
tools/call after 120s", OpenHands', mcphost's Go deadline) did not stop the tool: it may have acted. A TypeScript gateway
that wraps its downstream's -32001 timeout in its own -32603 says the same on the protocol channel. Goose's and rmcp's
words for a transport that closed, a gateway's 502 body relayed without its status, CrewAI's adapter that never
connected; and a session the server behind names by its id, or by its header, read as a record "not found" or a bad
request.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import Channel, FailureClass

from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_14 import called_once, rpc_error
from tests.client.test_heldout_cases_17 import all_of, no_argument_note

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def maybe_acted(results: dict[str, Any]) -> None:
    """Each result says the call may have taken effect, in its flag and its text."""
    for name, result in results.items():
        assert result.side_effect_possible is True and "may have" in result.text, (name, result)


def nothing_said_of_acting(results: dict[str, Any]) -> None:
    for name, result in results.items():
        assert result.side_effect_possible is not True and "may have" not in result.text, (name, result)


GATEWAY_TIMEOUTS = {
    "run_zhi": "MCP error -32603: Error calling tool zhi: MCP error -32001: Request timed out",
    "send_invoice": "MCP error -32603: Failed to call tool send_invoice: MCP error -32001: Request timed out",
}


async def test_j481_a_gateways_32603_over_its_downstreams_timeout(tmp_path: Path, telemetry: Any) -> None:
    """J481 (mcp-router/mcp-router #57: ``{"error": "MCP error -32603: MCP error -32603: Error calling tool zhi: MCP error
    -32001: Request timed out"}``; a TypeScript gateway's low-level ``CallTool`` handler rethrows the downstream client's
    ``McpError``, which the SDK answers as -32603). The downstream server took the call and did not answer in 60 s: the
    tool may have run. A protocol-channel error, ``upstream_unavailable``, may have taken effect, sent once (a write: no
    automatic repeat)."""
    results = await called_once(tmp_path, telemetry, {name: rpc_error(-32603, text)
                                                      for name, text in GATEWAY_TIMEOUTS.items()})
    assert {name: (r.channel, r.failure_class) for name, r in results.items()} == dict.fromkeys(
        results, (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE)), results
    maybe_acted(results)
    no_argument_note(results)


HOSTS_GAVE_UP = {
    "ask_feedback": "Context server request timeout",
    "draft_reply": "timed out awaiting tools/call after 120s",
    "query_metrics": ("MCP tool 'query_metrics' timed out after 300 seconds. The tool server may be unresponsive or the "
                      "operation is taking too long. Consider retrying or using an alternative approach."),
    "export_ledger": "Tool invocation timed out after 60s",
    "get_metrics": "Error calling tool getMetrics: context deadline exceeded",
}


async def test_j482_a_host_that_stopped_waiting(tmp_path: Path, telemetry: Any) -> None:
    """J482 (zed-industries/zed #32668: "Context server request timeout" after Zed's fixed 60 s; osanoai/multicli #49:
    Codex's "timed out awaiting tools/call after 120s"; OpenHands/software-agent-sdk PR #1862: "MCP tool 'x' timed out
    after 300 seconds. The tool server may be unresponsive…"; MarimerLLC/rockbot PR #80: "Tool invocation timed out after
    60s"; mark3labs/mcphost #11: "Error calling tool getMetrics: context deadline exceeded"; relayed by a gateway whose
    tools reach other servers through these hosts). The host gave up waiting; the server behind kept the call:
    ``upstream_unavailable``, may have taken effect, each sent once."""
    results = await answered(tmp_path, telemetry, HOSTS_GAVE_UP)
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    maybe_acted(results)
    no_argument_note(results)


TRANSPORT_CLOSED = {
    "run_query": "Error: -32603: Transport closed",
    "take_screenshot": ("Call to 'ComputerControllerExtension' failed for 'tools/call'. Error from mcp-server: "
                        "Channel closed"),
    "list_buckets": ('TransportError { error: DynamicTransportError { transport_name: "rmcp::transport::worker::'
                     'WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<reqwest::'
                     'async_impl::client::Client>>", transport_type_id: TypeId(0x32b1c270444201caf977817085727746), '
                     'error: TransportChannelClosed }, context: "send initialized notification" }'),
}


async def test_j483_goose_and_rmcp_words_for_a_closed_transport(tmp_path: Path, telemetry: Any) -> None:
    """J483 (aaif-goose/goose #7063: "Error: -32603: Transport closed" on every query after a database extension
    dropped; goose #930: "Call to 'ComputerControllerExtension' failed for 'tools/call'. Error from mcp-server: Channel
    closed"; aws/amazon-q-developer-cli #3015: rmcp's ``TransportError { … error: TransportChannelClosed }, context:
    "send initialized notification"`` as Rust's ``Debug`` prints it). Each is the server behind gone:
    ``upstream_unavailable``, no argument advice, each sent once."""
    results = await answered(tmp_path, telemetry, TRANSPORT_CLOSED)
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)


async def test_j483_guard_the_servers_own_bug_under_gooses_codes(tmp_path: Path, telemetry: Any) -> None:
    """J483's guard (aaif-goose/goose #5340: "-32603: -32603: Mcp error: -32603: keyValidator._parse is not a function",
    a zod version mismatch inside the TypeScript server): the server's own bug under the same codes, ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "bookmark_search": "-32603: -32603: Mcp error: -32603: keyValidator._parse is not a function"})
    all_of(results, FailureClass.UNKNOWN)


async def test_j484_a_gateways_502_body_without_its_status(tmp_path: Path, telemetry: Any) -> None:
    """J484 (dialog-tools/reddit-research-mcp #24: every tool failing "Streamable HTTP error: Error POSTing to endpoint:
    {"error": "Bad gateway"}" while fastmcp.app's edge could not reach the backend; the TypeScript SDK's newer wording
    drops the "(HTTP 502)"). The edge's JSON body names the failure: ``upstream_unavailable``, sent once."""
    results = await answered(tmp_path, telemetry, {
        "discover_operations": 'Streamable HTTP error: Error POSTing to endpoint: {"error": "Bad gateway"}',
        "execute_operation": 'Error POSTing to endpoint: {"error":"Bad Gateway","status":502}',
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)


async def test_j485_an_adapter_that_never_connected(tmp_path: Path, telemetry: Any) -> None:
    """J485 (crewAIInc/crewAI #3254 and #3326: "RuntimeError: Failed to initialize MCP Adapter: Couldn't connect to the MCP
    server after 30 seconds", CrewAI's ``MCPServerAdapter`` relayed by a gateway tool). Nothing reached the server behind:
    ``upstream_unavailable``, nothing said of its having acted, sent once."""
    results = await answered(tmp_path, telemetry, {
        "research_topic": ("RuntimeError: Failed to initialize MCP Adapter: Couldn't connect to the MCP server after 30 "
                           "seconds"),
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    nothing_said_of_acting(results)


SESSIONS_NAMED = {
    "post_journal": ('Error 404 status sending message to https://erp.example-corp.test/mcp/server: {"jsonrpc":"2.0",'
                     '"id":94,"error":{"code":-32001,"message":"MCP session with ID '
                     '\'df859b7e-77dc-40a0-98df-3b42450a93f3\' could not be found."}}'),
    "route_prompt": ('Streamable HTTP error: Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32000,'
                     '"message":"Bad Request: Unknown Mcp-Session-Id header"},"id":null}'),
}


async def test_j486_a_session_the_server_names_or_its_header(tmp_path: Path, telemetry: Any) -> None:
    """J486 (microsoft/vscode #301591: VS Code's "Error 404 status sending message to …: {… -32001 "MCP session with ID
    '…' could not be found."}" from a Dynamics 365 MCP server whose 30-minute session ended; diegosouzapw/OmniRoute #5169:
    a 400 -32000 "Bad Request: Unknown Mcp-Session-Id header" for an idled-out session; relayed by a gateway). The
    session words were read only without an id between them and only as "invalid session ID": the first was
    ``not_found`` by its 404 (the model told to check an identifier it never gave), the second ``invalid_input`` by its
    400. The MCP server behind forgot the session and processed nothing: ``upstream_unavailable``, nothing said of its
    having acted, each sent once."""
    results = await answered(tmp_path, telemetry, SESSIONS_NAMED)
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    nothing_said_of_acting(results)
    no_argument_note(results)


async def test_j486_guard_a_session_that_is_the_tools_own_record(tmp_path: Path, telemetry: Any) -> None:
    """J486's guard: a record the tool keeps, named with an id, with no word of MCP around it, is still the tool's own
    ``not_found``."""
    results = await answered(tmp_path, telemetry, {
        "get_training": "Training session with ID 'TS-2024-05' could not be found."})
    all_of(results, FailureClass.NOT_FOUND)
