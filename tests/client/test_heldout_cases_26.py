"""Client side of tests/heldout_cases.md, twenty-sixth round (J432-J436): what foreign MCP servers, gateways and agent
tools relay when an MCP server one hop further has lost or never set up their session, in the words of the SDKs and
hosts on that hop (the Java SDK, the TypeScript SDK and its examples, VS Code, mcp-remote, the Python client), and an
MCP server's own words for a credential that expired.

The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError`` with the text; every tool is a write with
no hints, so a repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass
from errscope.client import ToolClient

from tests.client.test_heldout_cases import failed, peer, tool
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of, no_argument_note
from tests.client.test_heldout_cases_20 import not_sent

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def not_a_missing_record(results: dict[str, Any]) -> None:
    """No "does not exist" reading: the session, not the tool or a record the model named, is gone (the excerpt may
    quote "Session not found")."""
    for name, result in results.items():
        assert "does not exist" not in result.text and "service could not be reached" in result.text, (name, result.text)


# --- J432: the 404 of a session an MCP server forgot, relayed ---------------------------------------------------------------

async def test_j432_a_forgotten_session_404_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J432 (symgraph/GhidrAssistMCP #50: the Java SDK client's "Sending message failed with a non-OK HTTP code: 404" with
    "Session not found: <id>" inside a tool's "Tool execution failed"; metatool-ai/metamcp #166: the TypeScript SDK's
    "Error POSTing to endpoint (HTTP 404): {"error":{"code":-32001,"message":"Session not found"},…}" from a gateway
    holding an expired session; Michael-Obele/shadcn-svelte-mcp #6: VS Code's "Error 404 status sending message to
    <url>: {… -32000 "Session not found" …}"; datagouv/datagouv-mcp #25: mcp-remote's "Streamable HTTP error: Error
    POSTing to endpoint: {… -32600 "Session not found" …}"). MCP 2025-11-25 (Transports > Session Management): a server
    that ended a session answers every request in it with 404, and processed none. Each relay was read ``not_found`` by
    the 404 or "not found": a model told a record it named does not exist. The MCP server behind is out of reach until a
    new session is set up: ``upstream_unavailable``, nothing sent."""
    results = await answered(tmp_path, telemetry, {
        "decompile": "java.lang.RuntimeException: Tool execution failed: Sending message failed with a non-OK HTTP code: "
                     "404 - {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Session not found: "
                     "6e0a1180-ef67-40fb-a8b4-168b21227152\"}}",
        "search_books": "Error POSTing to endpoint (HTTP 404): {\"error\":{\"code\":-32001,\"message\":\"Session not "
                        "found\"},\"id\":\"\",\"jsonrpc\":\"2.0\"}",
        "add_component": "Error 404 status sending message to https://mcp.example.test/api/mcp: {\"jsonrpc\":\"2.0\","
                         "\"error\":{\"code\":-32000,\"message\":\"Session not found\"},\"id\":null}",
        "search_datasets": "StreamableHTTPError: Streamable HTTP error: Error POSTing to endpoint: {\"jsonrpc\":\"2.0\","
                           "\"id\":\"server-error\",\"error\":{\"code\":-32600,\"message\":\"Session not found\"}}",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    not_a_missing_record(results)


# --- J433: a session id the server does not know, at 400, relayed --------------------------------------------------------------

async def test_j433_an_unknown_session_id_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J433 (Doist/todoist-mcp #309: "Streamable HTTP error: Error POSTing to endpoint: {… -32001 "No transport found for
    sessionId" …}" mid-session; higress-group/wasm-go #32: "Tools/list request failed with status 400: Bad Request: No
    valid session ID provided", a gateway whose initialize and later requests reached different pods;
    Kuadrant/mcp-gateway #270: "MCP error -32001: Error POSTing to endpoint (HTTP 400): Invalid session ID";
    DAWNCR0W/affine-mcp-server #301 and supercorp-ai/supergateway #123: servers built on the TypeScript SDK's examples
    answering an unknown session 400 "Bad Request: No valid session ID or not an initialize request" where the spec says
    404). The server behind did not know the session and processed nothing. Todoist's was ``unknown``, the others
    ``invalid_input`` by their 400: the model told to fix right arguments. They are ``upstream_unavailable``, nothing
    sent, no advice to change the arguments."""
    results = await answered(tmp_path, telemetry, {
        "add_task": "Streamable HTTP error: Error POSTing to endpoint: {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,"
                    "\"message\":\"No transport found for sessionId\"},\"id\":null}",
        "route_call": "Tools/list request failed with status 400: Bad Request: No valid session ID provided",
        "get_weather": "MCP error -32001: Error POSTing to endpoint (HTTP 400): Invalid session ID",
        "create_doc": "HTTP 400 {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: No valid "
                      "session ID or not an initialize request\"},\"id\":null}",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    no_argument_note(results)


async def test_j433_guard_a_session_the_model_named(tmp_path: Path, telemetry: Any) -> None:
    """J433's guard: a tool whose own records are sessions (``session_id`` declared) answering "Session not found" with no
    word of MCP or JSON-RPC is the model's identifier, ``not_found``; a missing ``session_id`` is the model's argument."""
    params, _ = peer(tmp_path, [tool("get_session", properties={"session_id": {"type": "string"}}),
                                tool("end_session", properties={"session_id": {"type": "string"}},
                                     required=["session_id"])],
                     {"get_session": failed("Session not found"),
                      "end_session": failed("Missing required argument: session_id")})
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        found = await tc.call_tool("get_session", {"session_id": "S-404"})
        missing = await tc.call_tool("end_session", {})
    assert (found.failure_class, missing.failure_class) == (FailureClass.NOT_FOUND, FailureClass.INVALID_INPUT), (
        found.text, missing.text)


# --- J434: the Python client's "Session terminated", relayed --------------------------------------------------------------------

async def test_j434_python_client_session_terminated_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J434 (modelcontextprotocol/python-sdk #1676: the client raises "Session terminated" for the 404 instead of starting
    a new session; Eigenwise/atomic-agents PR #135: "mcp.shared.exceptions.McpError: Session terminated" and "Failed to
    list tools via MCP session: Session terminated"). An agent's tool relays its Python MCP client's error. It was
    ``unknown`` (the mapping-gap alert); it is the MCP server behind out of reach, ``upstream_unavailable``, nothing
    sent."""
    results = await answered(tmp_path, telemetry, {
        "run_agent": "mcp.shared.exceptions.McpError: Session terminated",
        "fetch_definitions": "Failed to list tools via MCP session: Session terminated",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J435: a single-session server refusing a gateway's handshake, relayed -----------------------------------------------------

async def test_j435_a_server_already_or_not_initialized_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J435 (aplaceforallmystuff/mcp-arr #21 and dynatrace-oss/dynatrace-mcp #134: one shared ``StreamableHTTPServerTransport``
    answers every later ``initialize`` 400 -32600 "Invalid Request: Server already initialized", so a gateway that opens a
    session per call fails every call after the first; modelcontextprotocol/servers #1572: -32000 "Bad Request: Server not
    initialized", a request to a transport no handshake set up). The server behind refused the session and ran nothing.
    Each was ``invalid_input`` (the 400, "Invalid Request"): the model told to fix its arguments. They are the MCP server
    behind out of reach, ``upstream_unavailable``, nothing sent, no advice to change the arguments."""
    results = await answered(tmp_path, telemetry, {
        "list_series": "HTTP 400 {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Invalid Request: Server "
                       "already initialized\"},\"id\":null}",
        "list_problems": "MCP error -32600: Invalid Request: Server already initialized",
        "get_weather": "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: Server not "
                       "initialized\"},\"id\":null}",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    no_argument_note(results)


# --- J436: an MCP server's OAuth tokens that expired ----------------------------------------------------------------------------

async def test_j436_tokens_no_longer_valid(tmp_path: Path, telemetry: Any) -> None:
    """J436 (nspady/google-calendar-mcp #62 and #178: "MCP error -32600: Authentication tokens are no longer valid. Please
    restart the server to re-authenticate.", a Google app in testing mode whose tokens expire after 7 days, relayed by
    the host as the tool's text). The server's credential expired: ``permission_denied`` (fixed by signing in again),
    not ``unknown``, and no advice to change the arguments."""
    results = await answered(tmp_path, telemetry, {
        "list_events": "MCP error -32600: Authentication tokens are no longer valid. Please restart the server to "
                       "re-authenticate.",
        "create_event": "Authentication tokens are no longer valid. Please restart the server to re-authenticate.",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)
