"""Client side of tests/heldout_cases.md, thirty-first round (J472-J475): the lead a tool-calling SDK or host puts
before a tool's own failure, misread.

Every Python MCP server words a failed tool through its SDK: FastMCP 4 "Error calling tool 'x': <exception>", MCPServer
"Error executing tool x: <ToolError>" and, for a crash, the bare "Error executing tool x"; hosts and agent frameworks
that relay a call add their own ("Error executing MCP tool: …", Cline; "Error invoking MCP tool x: …", the OpenAI
Agents SDK and Codex). The lead hid phrases read only as a whole text (the OpenAI SDK's "Connection error.", the
TypeScript SDK's "Not connected"), and its tool name was read as the failure ("get_rate_limit" as a rate limit,
"crawl_404_pages" as a 404). J472-J474 run a real FastMCP and a real MCPServer (``servers/wrapping_sdks.py``, no
errscope) whose tools fail for real on 127.0.0.1; J475 relays the hosts' leads through the raw stdio peer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from errscope import Channel, FailureClass
from errscope.client import RetryPolicy, ToolClient
from mcp.client.stdio import StdioServerParameters

from tests.classification.upstreams import answering, closed_port, silent_listener
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of, no_argument_note
from tests.proxy.conftest import ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

STYLES = ["fastmcp", "mcpserver"]
ARGUMENTS = {"summarise": {"text": "refund order 17"}, "get_rate_limit": {}, "crawl_404_pages": {"site": "shop.test"},
             "fetch_report": {"report_id": "R-1"}, "list_invoices": {}}


@pytest.fixture(scope="module")
def upstreams() -> Iterator[dict[str, str]]:
    """The model API (a closed port), a reporting API that never answers, a billing API answering 429."""
    with silent_listener() as silent, answering(429, '{"error": "too many requests"}',
                                                {"Retry-After": "30", "Content-Type": "application/json"}) as limited:
        yield {"WRAP_MODEL_URL": f"http://127.0.0.1:{closed_port()}/v1", "WRAP_SILENT_URL": f"http://127.0.0.1:{silent}",
               "WRAP_LIMITED_URL": f"http://127.0.0.1:{limited}"}


def wrapping_server(style: str, runs: Path, upstreams: dict[str, str]) -> StdioServerParameters:
    """The real SDK server (``style``) over stdio, its tools' runs logged to ``runs``."""
    return StdioServerParameters(command=sys.executable, args=["-m", "tests.client.servers.wrapping_sdks", style],
                                 cwd=str(ROOT), env={**upstreams, "WRAP_RUNS": str(runs),
                                                     "PYTHONPATH": os.environ.get("PYTHONPATH", "")})


async def called(style: str, tmp_path: Path, telemetry: Any, upstreams: dict[str, str],
                 names: list[str]) -> dict[str, Any]:
    """Each tool called once through ``ToolClient``; every tool ran exactly once (none is safe to repeat)."""
    runs = tmp_path / "runs.txt"
    results = {}
    async with ToolClient(wrapping_server(style, runs, upstreams), timeout=10,
                          retry=RetryPolicy(backoff_initial=0.01, jitter=0), **telemetry.providers) as tc:
        for name in names:
            results[name] = await tc.call_tool(name, ARGUMENTS[name])
    assert sorted(runs.read_text().split()) == sorted(names), runs.read_text()
    return results


@pytest.mark.parametrize("style", STYLES)
async def test_j472_connection_error_under_the_sdks_lead(style: str, tmp_path: Path, telemetry: Any,
                                                         upstreams: dict[str, str]) -> None:
    """J472 (pydantic/pydantic-ai #1989 and openai/openai-agents-python #1288: a Python server's tool failure relayed as
    its SDK words it; BerriAI/litellm #10184 and J382: the OpenAI SDK's bare "Connection error."). The model API
    refuses the connection; FastMCP answers "Error calling tool 'summarise': Connection error.", MCPServer "Error
    executing tool summarise: Connection error." (the tool's ``ToolError`` over it). Both were ``unknown``: the
    phrase was read only as a whole text. ``upstream_unavailable``, no argument advice, whether the model call went out
    not known (the OpenAI SDK raises it before and after writing), and the write ran once."""
    results = await called(style, tmp_path, telemetry, upstreams, ["summarise"])
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)
    assert results["summarise"].side_effect_possible is None, results["summarise"]


@pytest.mark.parametrize("style", STYLES)
async def test_j473_the_tools_name_is_not_the_failure(style: str, tmp_path: Path, telemetry: Any,
                                                      upstreams: dict[str, str]) -> None:
    """J473 (the SDKs' own leads, mcp ``tools/base.py`` and fastmcp ``server.py``; github/github-mcp-server's
    ``get_rate_limit``-style tool names). Two tools crash on their own bug: FastMCP's "Error calling tool
    'get_rate_limit': 'NoneType' object is not subscriptable" read ``rate_limited`` (with "try again later" advice) and
    "Error calling tool 'crawl_404_pages': list index out of range" ``not_found``; MCPServer's bare "Error executing
    tool get_rate_limit" likewise. The name is the tool's: each is the tool's own failure, ``unknown`` (the
    mapping-gap alert that sends on-call to the tool's code), no wait, run once."""
    results = await called(style, tmp_path, telemetry, upstreams, ["get_rate_limit", "crawl_404_pages"])
    assert {name: (r.channel, r.failure_class) for name, r in results.items()} == dict.fromkeys(
        results, (Channel.EXECUTION, FailureClass.UNKNOWN)), results
    for result in results.values():
        assert result.retry_after is None and "Ref ERR-" in result.text, result


async def test_j474_fastmcps_own_words_for_a_timeout_and_a_429(tmp_path: Path, telemetry: Any,
                                                                upstreams: dict[str, str]) -> None:
    """J474 (jlowin/fastmcp PR #2467-era masking: FastMCP words an upstream timeout "Upstream request timed out, please
    retry" and a 429 "Rate limited by upstream API, please retry later" even when it masks details). Already right:
    the timeout ``upstream_unavailable`` and may have taken effect (the request was written to a listener that never
    answered), the 429 ``rate_limited`` with no wait (FastMCP drops the ``Retry-After``); each ran once."""
    results = await called("fastmcp", tmp_path, telemetry, upstreams, ["fetch_report", "list_invoices"])
    got = {name: (r.failure_class, r.side_effect_possible) for name, r in results.items()}
    assert got == {"fetch_report": (FailureClass.UPSTREAM_UNAVAILABLE, True),
                   "list_invoices": (FailureClass.RATE_LIMITED, None)}, results
    assert "may have" in results["fetch_report"].text, results["fetch_report"].text


HOSTS_LEADS = {
    "get_design": "Error executing MCP tool: Not connected",
    "draft_reply": "Error invoking MCP tool draft_reply: Connection error.",
    "summarise": "AgentsException: Error invoking MCP tool summarise: Connection error.",
    "sync_issues": "Tool execution failed: Not connected",
}


async def test_j475_hosts_leads_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J475 (GLips/Figma-Context-MCP #69 and AgentDeskAI/browser-tools-mcp #127: Cline's "Error executing MCP tool: Not
    connected"; the OpenAI Agents SDK's and Codex's "Error invoking MCP tool x: …", relayed by a gateway whose tools
    call other servers through them). Each was ``unknown``; the lead names only the tool, the rest decides:
    ``upstream_unavailable``, no argument advice, each sent once."""
    results = await answered(tmp_path, telemetry, HOSTS_LEADS)
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)


async def test_j475_guard_a_lead_over_the_tools_own_words(tmp_path: Path, telemetry: Any) -> None:
    """J475's guards: under the same leads, the tool's own words still decide (a credential refused, a missing
    record), and a lead with nothing after it, or a name that looks like a status, says nothing: ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "post_message": "Error executing MCP tool: invalid_auth",
        "get_order": "Error invoking MCP tool get_order: 404 Not Found",
        "list_429_events": "Error invoking MCP tool list_429_events: division by zero",
        "retry_timeouts": "Error executing tool retry_timeouts",
    })
    got = {name: result.failure_class for name, result in results.items()}
    assert got == {"post_message": FailureClass.PERMISSION_DENIED, "get_order": FailureClass.NOT_FOUND,
                   "list_429_events": FailureClass.UNKNOWN, "retry_timeouts": FailureClass.UNKNOWN}, got


PEER_GONE = {
    "save_note": "Error: write EOF",
    "list_notebooks": 'Failure in MCP tool execution: connection closed: calling "tools/call": client is closing: EOF',
    "open_browser": "connection closed: client is closing: EOF",
    "push_metrics": "Error: This socket has been ended by the other party",
}


async def test_j478_a_pipe_or_socket_the_peer_ended(tmp_path: Path, telemetry: Any) -> None:
    """J478 (CommandCodeAI/command-code #792: "Uncaught Exception - write EOF when calling MCP tool", Node on Windows
    writing to a stdio server that had gone, ``{code: 'EOF', syscall: 'write'}``, libuv's word for EPIPE there;
    jacob-bd/gemini-notebook-mcp-cli #171 and hosts on the Go SDK: "connection closed: calling "tools/call": client is
    closing: EOF", and the same without the method; Node's net.Socket ``writeAfterFIN``: "This socket has been ended by
    the other party", code EPIPE). "write EOF", the bare "client is closing: EOF" and Node's sentence were ``unknown``.
    Each is a peer that ended while the call was out, read as EPIPE is: ``upstream_unavailable``, it may have taken
    effect, and none is sent again (each a write with no hints)."""
    results = await answered(tmp_path, telemetry, PEER_GONE)
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)
    for name, result in results.items():
        assert result.side_effect_possible is True and "may have" in result.text, (name, result)


async def test_j479_the_csharp_sdks_masked_failure(tmp_path: Path, telemetry: Any) -> None:
    """J479 (modelcontextprotocol/csharp-sdk: a tool's exception other than ``McpException`` reaches the client as "An
    error occurred invoking 'x'." — servers' own notes call it "the SDK's bare … string" with no actionable detail;
    "…: message" for the failures it passes on). The bare text named only the tool, and its name was read:
    ``get_rate_limit`` and ``retry_throttled_jobs`` as rate limits (the model told to wait). The SDK said nothing of
    the failure: ``unknown``, no wait; the message after the lead still decides (a refused connection: no "may have
    taken effect")."""
    results = await answered(tmp_path, telemetry, {
        "get_rate_limit": "An error occurred invoking 'get_rate_limit'.",
        "retry_throttled_jobs": "An error occurred invoking 'retry_throttled_jobs'.",
        "sync_orders": "An error occurred invoking 'sync_orders': Connection refused (db.example-corp.test:5432)",
    })
    got = {name: (result.failure_class, result.retry_after, result.side_effect_possible)
           for name, result in results.items()}
    assert got == {"get_rate_limit": (FailureClass.UNKNOWN, None, None),
                   "retry_throttled_jobs": (FailureClass.UNKNOWN, None, None),
                   "sync_orders": (FailureClass.UPSTREAM_UNAVAILABLE, None, None)}, got
    assert "Wait" not in results["get_rate_limit"].text, results["get_rate_limit"].text
    assert "may have" not in results["sync_orders"].text, results["sync_orders"].text
