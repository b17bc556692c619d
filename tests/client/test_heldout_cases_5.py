"""Client side of tests/heldout_cases.md, fifth round (J99-J104, J106-J110): OAuth challenges and expired sessions, stdio
servers that exit with code 0, foreign results that break their own output schema, non-ASCII error text, tool names
with dots and slashes, one failure among many calls in flight, and error texts of several MiB.

``ToolClient`` drives a real ``MCPServer`` over streamable HTTP on 127.0.0.1 behind the ASGI gates of the earlier rounds
(for what an authorisation layer or a session store answers), and the raw stdio peer (``servers/heldout_peer.py``) for
foreign servers' exact answers and exits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from errscope import FailureClass, Outcome
from errscope._attributes import GEN_AI_TOOL_NAME
from errscope.client import ConnectionState, ToolClient
from tests.client.test_heldout_cases import failed, ok, peer, recorded, tool
from tests.client.test_heldout_cases_3 import Gate, answer, gated
from tests.client.test_heldout_cases_4 import cut_mid_answer, first_refused

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

JSON = (b"content-type", b"application/json")
EXPIRED_TOKEN = (b"www-authenticate", b'Bearer error="invalid_token", error_description="The access token FAKE-jwt-eyJhbGci'
                 b'.expired expired at 2026-04-20T10:00:00Z", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"')
"""RFC 6750 §3's challenge for a token that was valid and has expired (MCP 2025-11-25, Authorization > Token Handling)."""
SESSION_NOT_FOUND = b'{"jsonrpc":"2.0","id":"","error":{"code":-32001,"message":"Session not found"}}'
"""The 404 body a gateway sends for an expired session (metatool-ai/metamcp #166): -32001 is also the SDK's own timeout code."""


def refused_after(tool_name: str, passed: int, status: int, body: bytes, seen: list[bytes], *headers: tuple[bytes, bytes]) -> Gate:
    """A gate letting the first ``passed`` POSTs calling ``tool_name`` through and answering the later ones itself
    (each of those request bodies appended to ``seen``): a token that expires mid-session."""
    through: list[bytes] = []

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        if method != "POST" or f'"{tool_name}"'.encode() not in request:
            return False
        if len(through) < passed:
            through.append(request)
            return False
        seen.append(request)
        return await answer(send, status, body, *headers)

    return gate


def calendar_server() -> MCPServer:
    """Tools behind an authorisation layer; each run is noted in ``server.ran``."""
    server = MCPServer("calendar")
    ran: list[str] = []

    @server.tool()
    def list_events(day: str) -> str:
        ran.append(f"list_events:{day}")
        return f"3 events on {day}"

    @server.tool()
    def create_product(name: str) -> str:
        ran.append(f"create_product:{name}")
        return f"product {name} created"

    @server.tool()
    def create_note(text: str) -> str:
        ran.append(f"create_note:{text}")
        return f"note {text!r} created"

    @server.tool()
    def status() -> str:
        return "up"

    server.ran = ran  # type: ignore[attr-defined]
    return server


async def test_j99_a_token_that_expires_mid_session(telemetry: Any) -> None:
    """J99 (Softeria/ms-365-mcp-server PR #406: "sessions silently died once the upstream access token expired"; byadsco/
    meta-ads-mcp PR #61; openai/codex PR #6209). The first call runs; then the token expires and the server answers 401
    with ``error="invalid_token"`` (RFC 6750 §3). The refused call did not run, is reported as needing access (the host's
    cue to refresh or sign in again), is not re-sent, and neither the model text nor telemetry repeats the token's text;
    the session is kept for tools that still work."""
    from tests.client.servers.app import serve

    server = calendar_server()
    seen: list[bytes] = []
    gate = refused_after("list_events", 1, 401, b'{"error":"invalid_token","error_description":"token expired"}', seen,
                         EXPIRED_TOKEN, JSON)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
            first = await tc.call_tool("list_events", {"day": "2026-04-20"})
            result = await tc.call_tool("list_events", {"day": "2026-04-21"})
            after = await tc.call_tool("status", {})
            assert tc.state is ConnectionState.CONNECTED
    assert first.text == "3 events on 2026-04-20"
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert result.side_effect_possible is False and result.attempts == 1 and len(seen) == 1, (result, len(seen))
    assert server.ran == ["list_events:2026-04-20"]
    assert "FAKE-jwt" not in result.text and "FAKE-jwt" not in recorded(telemetry)
    assert after.text == "up"


async def test_j100_insufficient_scope_is_not_an_expired_token(telemetry: Any) -> None:
    """J100 (anthropics/claude-code #68720: a 403 ``insufficient_scope`` step-up challenge "misreported as 'token expired'";
    #44652; MCP 2025-11-25, Authorization > Step-Up Authorization Flow). A valid token lacking a scope is refused with 403:
    the model reads a permission failure, not that a token expired, and the refused write is not re-sent."""
    from tests.client.servers.app import serve

    server = calendar_server()
    seen: list[bytes] = []
    challenge = (b"www-authenticate", b'Bearer error="insufficient_scope", scope="products:write", '
                 b'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"')
    gate = refused_after("create_product", 0, 403, b'{"error":"insufficient_scope"}', seen, challenge, JSON)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
            result = await tc.call_tool("create_product", {"name": "lamp"})
            after = await tc.call_tool("status", {})
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert result.side_effect_possible is False and len(seen) == 1 and server.ran == []
    assert "expired" not in result.text.lower(), result.text
    assert after.text == "up"


async def test_j101_an_upstream_rejecting_the_token_is_permission_denied(tmp_path: Path) -> None:
    """J101 (ProfessionalWiki/MediaWiki-MCP-Server #443: the wiki's "mwoauth-invalid-authorization: … Invalid access token"
    came back as a tool error categorised as an upstream failure). Words that say the credentials were rejected decide
    the class: ``permission_denied``, which the user fixes by signing in again, not ``upstream_unavailable``, which pages
    someone for an outage and counts toward the breaker."""
    text = ("Failed to retrieve search data: mwoauth-invalid-authorization: The authorization headers in your request are "
            "not valid: Invalid access token")
    params, _ = peer(tmp_path, [tool("search_pages")], {"search_pages": failed(text)})
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("search_pages", {"query": "onboarding"})
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert "Ref ERR-" in result.text


async def test_j102_an_expired_session_answered_404_with_code_32001(telemetry: Any) -> None:
    """J102 (anthropics/claude-code #83404: "an immediate 404 'Session not found' is surfaced as -32001 Request timed
    out … the call is silently lost"; metatool-ai/metamcp #166; MCP spec, Transports > Session Management: a 404 to a
    request with a session id means the session is gone, and the client MUST start a new one). The refused call did not
    run and did not time out, whatever code the body carries; the next calls run on a new session."""
    from tests.client.servers.app import serve

    server = calendar_server()
    seen: list[bytes] = []
    gate = first_refused("create_note", 404, SESSION_NOT_FOUND, seen, JSON)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, mode="legacy", **telemetry.providers) as tc:
            result = await tc.call_tool("create_note", {"text": "buy milk"})
            again = await tc.call_tool("create_note", {"text": "buy bread"})
            after = await tc.call_tool("status", {})
    assert result.outcome is not Outcome.TIMEOUT and "timed out" not in result.text.lower(), result
    if result.outcome is Outcome.OK:  # re-sent once on the new session: safe, the refused request provably did not run
        assert result.text == "note 'buy milk' created", result
    else:
        assert result.side_effect_possible is False, result
    assert (again.text, after.text) == ("note 'buy bread' created", "up"), (again, after)
    ran = ["create_note:buy milk"] if result.outcome is Outcome.OK else []
    assert server.ran == [*ran, "create_note:buy bread"], server.ran


async def test_j103_an_output_schema_without_structured_content(tmp_path: Path) -> None:
    """J103 (microsoft/wassette #263: "Tool has an output schema but did not return structured content"; MCP 2025-11-25,
    Tools > Output Schema: servers MUST provide structured results conforming to it). The server broke its own contract
    after the tool ran: a failure that is not the caller's (no ``invalid_input``, nothing about arguments), that may
    have taken effect and is not repeated; the session stays up."""
    schema = {"type": "object", "properties": {"temp_c": {"type": "number"}}, "required": ["temp_c"]}
    params, log = peer(tmp_path, [{**tool("get_weather"), "outputSchema": schema}, tool("echo")],
                       {"get_weather": ok('{"temp_c": 21}'), "echo": ok("echo")})
    async with ToolClient(params, timeout=5) as tc:
        result = await tc.call_tool("get_weather", {"city": "Oslo"})
        after = await tc.call_tool("echo", {})
    assert result.outcome is Outcome.ERROR and result.failure_class is not FailureClass.INVALID_INPUT, result
    assert "argument" not in result.text.lower() and result.side_effect_possible is not False, result
    assert len([r for r in log.received("tools/call") if r["params"]["name"] == "get_weather"]) == 1
    assert after.text == "echo"


async def test_j104_non_ascii_and_emoji_in_a_foreign_error(tmp_path: Path) -> None:
    """J104 (anthropics/claude-code #75095: UTF-8 tool text shown as Latin-1 mojibake; slackapi/slack-skills-plugin #6:
    ``\\uXXXX`` escapes instead of text). The model reads the error's words as characters, able to quote the order id back."""
    text = "❌ 404 Not Found: заказ «Ёлка-42» не найден — 注文が見つかりません 🎄"
    params, _ = peer(tmp_path, [tool("find_order")], {"find_order": failed(text)})
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("find_order", {"id": "Ёлка-42"})
    assert result.failure_class is FailureClass.NOT_FOUND, result
    for fragment in ("«Ёлка-42»", "注文", "❌", "🎄"):
        assert fragment in result.text, (fragment, result.text)
    assert "\\u" not in result.text and "Ã" not in result.text and "Ref ERR-" in result.text


async def test_j106_tool_names_with_dots_and_slashes(tmp_path: Path, telemetry: Any) -> None:
    """J106 (openai/codex #8174, github/copilot-cli #1879, microsoft/vscode #308463: hosts refusing ``calendar.respondToEvent``
    though SEP-986 allows ``.`` and ``/`` in tool names). Both tools are called under their own names, and the client
    spans and ``gen_ai.tool.name`` carry those names exactly."""
    params, log = peer(tmp_path, [tool("drive.search"), tool("repo/issues.create")],
                       {"drive.search": failed("404 Not Found: folder X"), "repo/issues.create": ok("created #7")})
    async with ToolClient(params, timeout=5, retry=None, **telemetry.providers) as tc:
        missing = await tc.call_tool("drive.search", {"folder": "X"})
        created = await tc.call_tool("repo/issues.create", {"title": "bug"})
    assert missing.failure_class is FailureClass.NOT_FOUND and created.text == "created #7", (missing, created)
    assert [r["params"]["name"] for r in log.received("tools/call")] == ["drive.search", "repo/issues.create"]
    spans = {s.name: s for s in telemetry.spans() if s.name.startswith("tools/call ")}
    assert set(spans) == {"tools/call drive.search", "tools/call repo/issues.create"}, set(spans)
    assert spans["tools/call drive.search"].attributes[GEN_AI_TOOL_NAME] == "drive.search"


async def test_j107_a_server_that_exits_0_in_the_middle_of_a_call(tmp_path: Path) -> None:
    """J107 (openai/codex #18977: a stdio server exiting cleanly left the host with "Transport closed"; MoonshotAI/
    kimi-code #2109: calls to a dead stdio server hang until the tool timeout). The server read the call and exited 0
    without answering: the call ends at once, well inside its timeout, as an unavailable server that may have acted
    (it had the request), not repeated; the next call runs on a new server process."""
    params, log = peer(tmp_path, [tool("export_ledger"), tool("status")],
                       {"export_ledger": {"exit": 0}, "status": ok("up")})
    async with ToolClient(params, timeout=10) as tc:
        with anyio.fail_after(6):  # well inside the 10 s timeout, with room for a loaded machine
            result = await tc.call_tool("export_ledger", {"month": "2026-03"})
        after = await tc.call_tool("status", {})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is not False and result.attempts == 1, result
    assert "Transport closed" not in result.text and "Connection closed" not in result.text, result.text
    assert len([r for r in log.received("tools/call") if r["params"]["name"] == "export_ledger"]) == 1
    assert after.text == "up"


async def test_j108_a_server_that_exits_0_after_answering(tmp_path: Path) -> None:
    """J108 (openai/codex #18977's minimal repro: one successful answer, then ``os._exit(0)``; the next call failed). The
    answered call is kept; the next one runs on a new server process."""
    answer_then_exit = {**ok("found"), "exit": 0}
    params, log = peer(tmp_path, [tool("lookup")], {"lookup": answer_then_exit})
    async with ToolClient(params, timeout=5) as tc:
        first = await tc.call_tool("lookup", {"key": "a"})
        await anyio.sleep(0.2)  # the process is gone
        second = await tc.call_tool("lookup", {"key": "b"})
    assert (first.outcome, first.text) == (Outcome.OK, "found"), first
    assert (second.outcome, second.text) == (Outcome.OK, "found"), second
    assert len(log.received("initialize")) == 2


async def test_j109_many_calls_in_flight_one_connection_cut(telemetry: Any) -> None:
    """J109 (openai/openai-agents-python PR #2683 and #2703: "one failed request can cancel sibling in-flight requests on
    the same session"; bytedance/deer-flow #5256; anthropics/claude-code #64920). Six calls run at once; the connection of
    one is cut mid-answer. Only that call fails; the five others answer their own pages; a seventh call works."""
    from tests.client.servers.app import serve

    server = MCPServer("wiki")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def read_page(page: str) -> str:
        await anyio.sleep(0.2)
        return f"text of {page}"

    seen: list[bytes] = []
    pages = [f"p{i}" for i in range(6)]
    results: dict[str, Any] = {}
    async with serve(cut_mid_answer(server.streamable_http_app(host="127.0.0.1"), "read_page", seen)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=None, **telemetry.providers) as tc:

            async def read(page: str) -> None:
                results[page] = await tc.call_tool("read_page", {"page": page})

            async with anyio.create_task_group() as group:
                for page in pages:
                    group.start_soon(read, page)
            seventh = await tc.call_tool("read_page", {"page": "p6"})
            state = tc.state
    failures = [page for page, result in results.items() if result.outcome is not Outcome.OK]
    assert len(failures) == 1, {page: (r.outcome, r.text) for page, r in results.items()}
    for page in set(pages) - set(failures):
        assert results[page].text == f"text of {page}", results[page]
    assert seventh.text == "text of p6" and state is ConnectionState.CONNECTED, (seventh, state)


async def test_j110_a_huge_error_text_keeps_its_ref_and_class(tmp_path: Path, telemetry: Any) -> None:
    """J110 (NousResearch/hermes-agent PR #56068 and #56072: cap MCP results, keeping the error message at the start;
    daintreehq/daintree #11526). A 2 MiB error text is cut to the client's limit: its class comes from its head, the model
    text ends with the ref the user can quote, and no span attribute, status or metric label carries the dump."""
    text = "429 Too Many Requests: " + "\n".join(f"log line {i}: retrying shard {i % 7}" for i in range(62_000))
    assert len(text) > 2_000_000
    params, _ = peer(tmp_path, [tool("run_query")], {"run_query": failed(text)})
    async with ToolClient(params, timeout=10, retry=None, max_model_text=4000, **telemetry.providers) as tc:
        result = await tc.call_tool("run_query", {"sql": "select 1"})
    assert result.failure_class is FailureClass.RATE_LIMITED, result.failure_class
    assert len(result.text) < 4000 and result.error_ref is not None, len(result.text)
    assert result.error_ref in result.text[-40:], result.text[-200:]
    for span in telemetry.spans():
        assert len(span.status.description or "") <= 4096
        for value in (span.attributes or {}).values():
            assert len(json.dumps(value, default=str)) <= 4096, (span.name, str(value)[:80])
    assert len(repr(telemetry.histogram_points("mcp.client.operation.duration"))) < 20_000
