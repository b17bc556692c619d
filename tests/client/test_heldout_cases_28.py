"""Client side of tests/heldout_cases.md, twenty-eighth round (J450-J454, J457): what foreign MCP SDKs and hosts put on
the wire when the MCP server one hop further never completed its handshake, ended, or was never connected to (the Java
SDK, the PHP SDK, the C# SDK, VS Code, n8n, the Python SDK under LangChain and Qwen-Agent), and a Python server's
printed traceback relayed as its text; and ``errscope explain`` on one of them.

The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError`` with the text; every tool is a write with
no hints, so a repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass
from errscope.client import RetryPolicy, ToolClient

from tests.client.conftest import free_port
from tests.client.test_heldout_cases import failed, peer, tool
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of, no_argument_note
from tests.client.test_heldout_cases_20 import not_sent

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


# --- J450: a handshake one hop further that failed, relayed -------------------------------------------------------------

async def test_j450_a_failed_mcp_handshake_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J450 (modelcontextprotocol/java-sdk #433, #501, #882: "io.modelcontextprotocol.spec.McpError: Client failed to
    initialize by explicit API call", the Java SDK's wrapping of any failure of ``initialize``; agentscope-ai/agentscope-java
    #912: "Failed to initialize MCP client: gaode-mcp java.lang.RuntimeException: Client failed to initialize by explicit
    API call"; modelcontextprotocol/csharp-sdk #646: VS Code's "Server exited before responding to `initialize`
    request."; php-mcp/server #10: the PHP server's "MCP error -32600: Client not initialized." to a request its
    session never set up, relayed by Roo Code's "Error executing MCP tool:"). An agent's tool relays its MCP client's
    failure to set up a session with the server behind. Each was ``unknown`` (the mapping-gap alert). No request but
    the handshake reached that server (MCP 2025-11-25, Lifecycle > Initialization): ``upstream_unavailable``, nothing
    sent, no advice to change the arguments."""
    results = await answered(tmp_path, telemetry, {
        "list_models": "io.modelcontextprotocol.spec.McpError: Client failed to initialize by explicit API call",
        "plan_route": "Failed to initialize MCP client: gaode-mcp java.lang.RuntimeException: Client failed to initialize "
                      "by explicit API call",
        "get_utc_time": "Server exited before responding to `initialize` request.",
        "create_note": "Error executing MCP tool:\nMCP error -32600: Client not initialized.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    no_argument_note(results)


async def test_j450_guard_a_client_used_before_its_own_initialize(tmp_path: Path, telemetry: Any) -> None:
    """J450's guard (gradusnikov/eclipse-chatgpt-plugin #65: "McpError: Client must be initialized before listing
    tools"; openai/openai-agents-python #446: "Server not initialized. Make sure you call `connect()` first."): the
    tool's own client used before it called ``initialize``/``connect`` is its own order of calls, as J420 read
    MongoDB's "must be connected": ``unknown``, and never the model's arguments."""
    results = await answered(tmp_path, telemetry, {
        "list_files": "io.modelcontextprotocol.spec.McpError: Client must be initialized before listing tools",
        "search_files": "agents.exceptions.UserError: Server not initialized. Make sure you call `connect()` first.",
    })
    all_of(results, FailureClass.UNKNOWN)
    no_argument_note(results)


# --- J451: the C# SDK's "The server shut down unexpectedly." ---------------------------------------------------------------

async def test_j451_a_server_that_shut_down_unexpectedly(tmp_path: Path, telemetry: Any) -> None:
    """J451 (modelcontextprotocol/csharp-sdk #350: "The server shut down unexpectedly." out of ``McpClient.ConnectAsync``
    for a stdio server launched with ``npx``, relayed by a .NET agent's tool). The MCP server process behind ended while
    its client waited: it was ``unknown``; it is ``upstream_unavailable`` (whether it acted is not known)."""
    results = await answered(tmp_path, telemetry, {
        "web_search": "System.IO.IOException: The server shut down unexpectedly.",
        "extract_page": "ModelContextProtocol.McpException: Request failed (remote): The server shut down unexpectedly.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)


# --- J452: n8n's MCP client timing out while it connects ---------------------------------------------------------------------

async def test_j452_a_timeout_while_connecting_sent_nothing(tmp_path: Path, telemetry: Any) -> None:
    """J452 (nerding-io/n8n-nodes-mcp #42: "Failed to execute operation: Failed to connect to MCP server: MCP error
    -32001: Request timed out"; brave/brave-search-mcp-server #80: the same host's "Failed to connect to MCP server: MCP
    error -32000: Connection closed"). The TypeScript SDK's -32001 under a host's "Failed to connect": the handshake
    timed out, no tool call went out. It said "may have taken effect" (the innermost "timed out"); the code label
    between is read through to the operation further out: ``upstream_unavailable``, nothing sent."""
    results = await answered(tmp_path, telemetry, {
        "list_tools_op": "Failed to execute operation: Failed to connect to MCP server: MCP error -32001: Request timed out",
        "ask_perplexity": "Failed to execute operation: Failed to connect to MCP server: MCP error -32000: Connection "
                          "closed",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


async def test_j452_guard_a_call_that_timed_out_may_have_acted(tmp_path: Path, telemetry: Any) -> None:
    """J452's guard: the TypeScript SDK's -32001 on its own (a ``tools/call`` that was sent and not answered in time)
    still may have taken effect."""
    results = await answered(tmp_path, telemetry, {"create_issue": "MCP error -32001: Request timed out"})
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    assert results["create_issue"].side_effect_possible is True, results


# --- J453: the Python SDK's ClosedResourceError, relayed ---------------------------------------------------------------------

async def test_j453_a_closed_session_stream_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J453 (langchain-ai/langchain-mcp-adapters #78, #142, #188: LangGraph's "Error: ClosedResourceError()\\n Please fix
    your mistakes."; QwenLM/Qwen-Agent #512 and NousResearch/hermes-agent #19417: "MCP call failed:
    ClosedResourceError: "). The Python SDK's session writes each request to an anyio memory stream; once its transport
    ended, ``send`` raises ``ClosedResourceError`` and the request is never written. Each was ``unknown``, and
    LangGraph's "Please fix your mistakes" would send the model to its arguments: ``upstream_unavailable``, nothing
    sent, no argument advice."""
    results = await answered(tmp_path, telemetry, {
        "k8s_get_pods": "Error: ClosedResourceError()\n Please fix your mistakes.",
        "paperclip_search": "MCP call failed: ClosedResourceError: ",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    no_argument_note(results)


# --- J454: a Python server's printed traceback as its text ---------------------------------------------------------------------

IDA = ("Mcp error: -32000: Failed to connect to IDA Pro! Did you run Edit -> Plugins -> MCP (Ctrl+Alt+M) to start the "
       "server?\nTraceback (most recent call last):\n  File \"C:\\\\Users\\\\FAKE\\\\ida_pro_mcp\\\\server.py\", line 50, in "
       "dispatch_proxy\n    conn.request(\"POST\", \"/mcp\", request, {\"Content-Type\": \"application/json\"})\n  File "
       "\"C:\\\\Python311\\\\Lib\\\\http\\\\client.py\", line 962, in connect\n    self.sock = self._create_connection(\n"
       "ConnectionRefusedError: [WinError 10061] No connection could be made because the target machine actively "
       "refused it")
XAGENT = ("Traceback (most recent call last):\n  File \"/srv/toolserver/handle.py\", line 216, in execute_command_client\n"
          "    response = requests.post(url, json=payload)\n  File \"/usr/lib/python3/site-packages/urllib3/connection.py\", "
          "line 203, in _new_conn\n    sock = connection.create_connection(\nConnectionRefusedError: [Errno 111] "
          "Connection refused\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most "
          "recent call last):\n  File \"/usr/lib/python3/site-packages/requests/adapters.py\", line 519, in send\n    raise "
          "ConnectionError(e, request=request)\nrequests.exceptions.ConnectionError: HTTPConnectionPool(host='toolserver."
          "internal', port=8080): Max retries exceeded with url: /execute_tool (Caused by NewConnectionError('<urllib3."
          "connection.HTTPConnection object at 0x7f0c>: Failed to establish a new connection: [Errno 111] Connection "
          "refused'))")


async def test_j454_a_printed_python_traceback_is_read_by_its_exception(tmp_path: Path, telemetry: Any) -> None:
    """J454 (mrexodia/ida-pro-mcp #253: "Mcp error: -32000: Failed to connect to IDA Pro! …" with the server's whole
    traceback down to "ConnectionRefusedError: [WinError 10061] …"; OpenBMB/XAgent #53: a tool server's traceback down
    to requests' "Max retries exceeded … Connection refused"). Python prints every uncaught exception as a traceback, an
    upstream that refused as much as a bug; errscope read any traceback as the server's own crash: ``unknown``. Its
    exception lines say what failed: ``upstream_unavailable``, nothing sent (a refused connection)."""
    results = await answered(tmp_path, telemetry, {"decompile_function": IDA, "execute_tool": XAGENT})
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    for result in results.values():
        assert "Traceback" not in result.text and "FAKE" not in result.text, result.text


async def test_j454_guard_a_traceback_of_the_programs_own_bug(tmp_path: Path, telemetry: Any) -> None:
    """J454's guard: a traceback ending in the program's own ``KeyError`` (whose quoted key says "NOT_FOUND") or a
    ``ValueError`` on a value it parsed stays the server's own failure, ``unknown``: no missing record, no argument
    advice."""
    results = await answered(tmp_path, telemetry, {
        "refund": "Traceback (most recent call last):\n  File \"/srv/app/tools.py\", line 12, in refund\n    "
                  "os.environ['PAYMENTS_NOT_FOUND_URL']\nKeyError: 'PAYMENTS_NOT_FOUND_URL'",
        "transfer": "Traceback (most recent call last):\n  File \"/srv/app/tools.py\", line 30, in transfer\n    amount = "
                    "int(raw)\nValueError: invalid literal for int() with base 10: 'ten'",
    })
    all_of(results, FailureClass.UNKNOWN)
    no_argument_note(results)


def _printed_task_group_failure(coroutine: Any) -> str:
    """What a Python MCP server prints for a tool whose TaskGroup member failed (PEP 654's format, real asyncio)."""
    import asyncio
    import traceback

    async def run() -> str:
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(coroutine())
        except BaseException as exc:  # noqa: BLE001 (printed, as the server printed it)
            return "".join(traceback.format_exception(exc))
        raise AssertionError("the member did not fail")

    return asyncio.run(run())


async def test_j454_an_exception_group_is_read_by_its_members(tmp_path: Path, telemetry: Any) -> None:
    """J454, the same server on Python 3.11+ with its upstream call inside a TaskGroup (the MCP Python SDK's and anyio's
    "unhandled errors in a TaskGroup (1 sub-exception)"): the members' tracebacks are printed behind a "| " margin and
    were not read, ``unknown``. The refused connect (real httpx against a closed port on 127.0.0.1) decides; a member's
    own ``KeyError`` keeps the group the server's own failure."""
    import anyio
    import httpx

    port = free_port()

    async def fetch() -> None:
        async with httpx.AsyncClient() as client:
            await client.get(f"http://127.0.0.1:{port}/orders")

    async def lookup() -> None:
        raise KeyError("ORDERS_NOT_FOUND_URL")

    refused = await anyio.to_thread.run_sync(_printed_task_group_failure, fetch)
    own_bug = await anyio.to_thread.run_sync(_printed_task_group_failure, lookup)
    assert "Exception Group Traceback" in refused and "| httpx.ConnectError" in refused
    results = await answered(tmp_path, telemetry, {"fetch_orders": refused, "lookup_orders": own_bug})
    refusal = {"fetch_orders": results.pop("fetch_orders")}
    all_of(refusal, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(refusal)
    all_of(results, FailureClass.UNKNOWN)
    no_argument_note(results)


# --- J457: the on-call path for J452 -----------------------------------------------------------------------------------------

async def test_j457_explain_on_a_connect_timeout_says_nothing_was_sent(tmp_path: Path) -> None:
    """J457 (J452 on the on-call path: a user quoting "list_tools_op failed … Ref ERR-…"). ``errscope explain`` on the
    sentence the model was shown finds the call, names ``upstream_unavailable`` and does not say the call may have been
    applied; the tool was called once."""
    from errscope._setup import configure_telemetry

    from tests.client.test_oncall_explain import explain

    text = "Failed to execute operation: Failed to connect to MCP server: MCP error -32001: Request timed out"
    params, log = peer(tmp_path, [tool("send_invoice")], {"send_invoice": failed(text)})
    host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
    try:
        async with ToolClient(params, timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                              tracer_provider=host.tracer_provider, meter_provider=host.meter_provider) as tc:
            result = await tc.call_tool("send_invoice", {"customer": "C-1"})
    finally:
        host.shutdown()
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is not True and "may have" not in result.text, result
    said = explain(result.text, tmp_path)
    assert result.error_ref in said and "errscope.failure_class=upstream_unavailable" in said, said
    assert "errscope.side_effect_possible=true" not in said.lower() and "may have" not in said, said
    assert len(log.received("tools/call")) == 1
