"""Client side of tests/heldout_cases.md, third round (J46-J56, J68, J69, J72-J74): hosts and client frameworks against
servers and gateways that break the wire.

``ToolClient`` drives real peers: the raw stdio peer (``servers/heldout_peer.py``) for faults only a hand-written
server makes (banners on stdout, a flood on stderr, bytes that are not UTF-8, malformed frames), and a real
``MCPServer`` over streamable HTTP behind an ASGI gate on 127.0.0.1 for what gateways and proxies answer.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context

from errscope import Channel, FailureClass, Outcome
from errscope.client import ConnectionState, ToolClient
from tests.client.test_heldout_cases import failed, ok, peer, recorded, tool

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

Gate = Callable[[dict[str, Any], Any, Any, Any], Awaitable[bool]]


def gated(app: Any, gate: Gate) -> Any:
    """An ASGI app that lets ``gate(scope, body, send, method)`` answer a request itself (it returns True) or
    hands it, body replayed, to ``app``."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        message = await receive() if scope["method"] == "POST" else {"type": "http.request", "body": b""}
        if await gate(scope, message.get("body", b""), send, scope["method"]):
            return
        replayed = [message] if scope["method"] == "POST" else []

        async def again() -> Any:
            return replayed.pop() if replayed else await receive()

        await app(scope, again, send)

    return asgi


async def answer(send: Any, status: int, body: bytes, *headers: tuple[bytes, bytes]) -> bool:
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})
    return True


def refusing(tool_name: str, status: int, body: bytes, *headers: tuple[bytes, bytes], seen: list[bytes] | None = None) -> Gate:
    """A gate answering each POST that calls ``tool_name`` itself, with ``status``, ``body`` and ``headers``
    (each refused request body appended to ``seen``); everything else goes to the server."""

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        if method != "POST" or f'"{tool_name}"'.encode() not in request:
            return False
        if seen is not None:
            seen.append(request)
        return await answer(send, status, body, *headers)

    return gate


def refusing_get(gets: list[float], status: int, body: bytes, *headers: tuple[bytes, bytes]) -> Gate:
    """A gate answering every standalone GET stream itself with ``status``, ``body`` and ``headers``, noting the
    time of each GET in ``gets``."""

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        if method != "GET":
            return False
        gets.append(time.monotonic())
        return await answer(send, status, body, *headers)

    return gate


def without_stream(gets: list[float]) -> Gate:
    """A gate refusing the standalone GET stream with 405 (MCP spec, Transports > Listening for Messages)."""
    return refusing_get(gets, 405, b"", (b"allow", b"POST, DELETE"))


RATE_LIMITED = (429, b"Too Many Requests", (b"retry-after", b"30"), (b"content-type", b"text/plain"))
"""A gateway's 429 with ``Retry-After: 30`` and no JSON-RPC body."""


def issues_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("issues")
    ran: list[str] = []

    @server.tool()
    def search_issues(query: str) -> str:
        ran.append(query)
        return f"3 issues match {query}"

    @server.tool()
    def status() -> str:
        return "up"

    server.ran = ran  # type: ignore[attr-defined]
    return server


async def test_j46_log_lines_on_stdout_do_not_break_the_session(tmp_path: Any) -> None:
    """J46 (microsoft/azure-devops-mcp #147, TSavo/printify-mcp #3, GPSxtreme/mcp-coinglass PR #3: a server printing
    its banner and debug lines on stdout made clients fail with "Unexpected token … is not valid JSON", and a
    Hermes gateway took the parse error for a dead server and restarted it in a loop). The MCP spec forbids
    anything but MCP messages on a stdio server's stdout, but a line that is not JSON-RPC is one bad line, not a
    dead server: the calls succeed on the one session the client started."""
    params, log = peer(
        tmp_path, [tool("search"), tool("get_doc")],
        {"search": ok("2 hits"), "get_doc": ok("the doc")},
        stdout_noise=["Azure DevOps MCP Server version : 1.0.0", "✅ Server started successfully over stdio."],
    )
    async with ToolClient(params, timeout=5, retry=None) as tc:
        first = await tc.call_tool("search", {"q": "x"})
        second = await tc.call_tool("get_doc", {"id": "d-1"})
        assert tc.state is ConnectionState.CONNECTED
    assert (first.outcome, first.text, second.text) == (Outcome.OK, "2 hits", "the doc")
    assert len(log.received("initialize")) == 1


async def test_j47_a_server_flooding_stderr_still_answers(tmp_path: Any) -> None:
    """J47 (mark3labs/mcp-go #956, tbxark/mcp-proxy PR #80, simonx1/ruby-mcp-client PR #142: a client that pipes a
    stdio server's stderr and never reads it wedges the server once ~64 KiB of log fill the pipe; every call then
    times out with no error anywhere). A server that writes 1 MiB of log to stderr per call is answered."""
    params, _ = peer(tmp_path, [tool("query")], {"query": ok("42 rows")}, stderr_bytes=1 << 20)
    async with ToolClient(params, timeout=10, retry=None) as tc:
        started = time.monotonic()
        results = [await tc.call_tool("query", {"sql": "select 1"}) for _ in range(3)]
        elapsed = time.monotonic() - started
    assert [r.text for r in results] == ["42 rows"] * 3
    assert elapsed < 10


async def test_j48_bytes_that_are_not_utf8_fail_one_call_not_the_session(tmp_path: Any) -> None:
    """J48 (NousResearch/hermes-agent PR #46104, modelcontextprotocol/python-sdk PR #2302: one byte that is not
    UTF-8 on the stdio pipe raised UnicodeDecodeError in the reader and took the whole connection down). The
    call whose frame held the byte is answered (the byte replaced, or the frame reported as broken), the next
    call succeeds on the same session, and the model is never told the server is gone."""
    frame = '{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"caf\xe9 men\xfc"}],"isError":false}}'
    params, log = peer(tmp_path, [tool("latin1_menu"), tool("echo")], {"latin1_menu": {"raw": frame}, "echo": ok("echo")})
    async with ToolClient(params, timeout=2, retry=None) as tc:
        first = await tc.call_tool("latin1_menu", {})
        after = await tc.call_tool("echo", {})
        assert tc.state is ConnectionState.CONNECTED
    assert first.outcome in (Outcome.OK, Outcome.ERROR), first  # answered, not timed out
    assert first.outcome is Outcome.OK or first.failure_class is not FailureClass.UPSTREAM_UNAVAILABLE
    assert after.text == "echo"
    assert len(log.received("initialize")) == 1


async def test_j49_error_object_that_breaks_the_schema_fails_that_call_only(tmp_path: Any, telemetry: Any) -> None:
    """J49 (leehack/mcp_dart PR #240, yjacquin/fast-mcp PR #83, twentyhq/twenty #13801: servers sending error objects
    with a string ``code`` or no ``message``; SDK clients failed schema validation and dropped the frame, so
    the call waited for its timeout). JSON-RPC 2.0 §5.1 requires an integer code and a string message: the
    call fails at once as a protocol failure of the server, without validator noise in the model text, and
    the session stays."""
    bad = '{"jsonrpc":"2.0","id":{id},"error":{"code":"RATE_LIMITED","detail":"slow down"}}'
    params, _ = peer(tmp_path, [tool("search"), tool("echo")], {"search": {"raw": bad}, "echo": ok("echo")})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        started = time.monotonic()
        result = await tc.call_tool("search", {"q": "x"})
        elapsed = time.monotonic() - started
        after = await tc.call_tool("echo", {})
        assert tc.state is ConnectionState.CONNECTED
    assert result.outcome is Outcome.ERROR and elapsed < 2.5, (result, elapsed)
    for noise in ("validation error", "pydantic", "input_value", "Field required"):
        assert noise not in result.text
    assert "Ref ERR-" in result.text
    assert after.text == "echo"


async def test_j50_result_without_content_is_not_an_empty_success(tmp_path: Any) -> None:
    """J50 (cloudflare/mcp-server-cloudflare #12: a server answering ``{"toolResult": {...}}`` (a draft-era shape)
    made Cline report a zod error "expected array, received undefined" at ``content``; llama.cpp #26410 and
    HKUDS/nanobot PR #4660 for results the client could not render). ``content`` is required in a
    ``CallToolResult`` (MCP schema 2025-11-25): a result without it and without ``structuredContent`` is
    a broken answer, reported as a failure with a ref (the tool may have run), not as an empty success."""
    params, log = peer(tmp_path, [tool("list_zones")],
                       {"list_zones": {"result": {"toolResult": {"content": [{"type": "text", "text": "zones: 3"}]}}}})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        result = await tc.call_tool("list_zones", {})
    assert result.outcome is Outcome.ERROR, result
    assert "Ref ERR-" in result.text and "invalid_type" not in result.text
    assert result.side_effect_possible is not False
    assert len(log.received("tools/call")) == 1  # not repeated


async def test_j51_a_very_large_result_is_cut_for_the_model_and_kept_whole(tmp_path: Any) -> None:
    """J51 (anthropics/claude-code #45770, QwenLM/qwen-code #2439, charmbracelet/crush #3480, onyx-dot-app/onyx #11007:
    MCP results of several MiB went into the model context uncut and the next completion failed on the
    context limit). A 4 MiB result over stdio arrives whole for the host; the model text is cut to the
    client's limit with a note saying so."""
    big = "row;" * (1 << 20)
    params, _ = peer(tmp_path, [tool("dump_table")], {"dump_table": ok(big)})
    async with ToolClient(params, timeout=10, retry=None, max_model_text=20_000) as tc:
        result = await tc.call_tool("dump_table", {})
    assert result.outcome is Outcome.OK and result.text_truncated
    assert len(result.text) < 21_000 and result.text.startswith("row;row;")
    assert result.result is not None and result.result.content[0].text == big


async def test_j52_http_429_with_retry_after(telemetry: Any) -> None:
    """J52 (modelcontextprotocol/typescript-sdk #1892 and PR #1965, basicmachines-co/basic-memory #1378,
    smart-mcp-proxy/mcpproxy-go PR #1042: a gateway's HTTP 429 with ``Retry-After`` reached the model as a
    generic transport error and the hint was lost). The call was refused before it ran: class ``rate_limited``,
    the wait taken from the header (RFC 9110 §10.2.3), ``side_effect_possible`` false. A wait longer than the
    client waits out itself (``RetryPolicy.max_rate_limit_wait``, 10 s) goes to the model at once: one POST,
    no silent sleep; the next call works."""
    from tests.client.servers.app import serve

    server = issues_server()
    refused: list[bytes] = []
    limiter = refusing("search_issues", *RATE_LIMITED, seen=refused)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), limiter)) as base:
        async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("search_issues", {"query": "crash"})
            elapsed = time.monotonic() - started
            after = await tc.call_tool("status", {})
    assert server.ran == [] and len(refused) == 1
    assert result.failure_class is FailureClass.RATE_LIMITED, result.text
    assert result.retry_after == 30 and "30 s" in result.text, result.text
    assert result.side_effect_possible is False
    assert elapsed < 5
    assert after.text == "up"


async def test_j53_html_sign_in_page_instead_of_json(telemetry: Any) -> None:
    """J53 (modelcontextprotocol/python-sdk #1382: a ``text/html`` answer was logged as "Unexpected content type" and
    the call hung; omnigent-ai/omnigent PR #6309 and getsentry/sentry-mcp PR #370: an IdP or reverse proxy's
    sign-in page reached the model as "Unexpected token '<'" with the HTML in it). The call fails at once, the
    model text quotes no HTML, and the next call works."""
    from tests.client.servers.app import serve

    server = issues_server()
    page = b"<!DOCTYPE html><html><head><title>Sign in - FAKE corp SSO</title></head><body>session=FAKE-SSO-9</body></html>"

    sso = refusing("search_issues", 200, page, (b"content-type", b"text/html; charset=utf-8"))
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), sso)) as base:
        async with ToolClient(base + "/mcp", timeout=4, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("search_issues", {"query": "crash"})
            elapsed = time.monotonic() - started
            after = await tc.call_tool("status", {})
    assert result.outcome is Outcome.ERROR and elapsed < 3, (result, elapsed)
    for fragment in ("<html", "DOCTYPE", "FAKE-SSO-9", "Sign in - FAKE"):
        assert fragment not in result.text and fragment not in recorded(telemetry)
    assert after.text == "up"


async def test_j54_get_stream_refused_with_405_is_not_a_broken_connection(telemetry: Any) -> None:
    """J54 (cap-js/mcp PR #36, punkpeye/mcp-proxy PR #62, open-webui/open-webui #27795, f/prompts.chat PR #1117: a
    server without a standalone SSE stream answers the GET with 405, which the spec allows (Transports >
    Listening for Messages); clients that took it for a failure reconnected in a loop until rate-limited).
    Calls work, the connection stays CONNECTED, and the GET is not retried over and over."""
    from tests.client.servers.app import serve

    server = issues_server()
    gets: list[float] = []
    no_stream = without_stream(gets)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), no_stream)) as base:
        async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
            results = [await tc.call_tool("search_issues", {"query": str(n)}) for n in range(3)]
            await anyio.sleep(1.0)
            assert tc.state is ConnectionState.CONNECTED
    assert [r.outcome for r in results] == [Outcome.OK] * 3
    assert len(gets) <= 2, gets


async def test_j55_bearer_token_in_error_data_reaches_neither_model_nor_telemetry(tmp_path: Any, telemetry: Any) -> None:
    """J55 (cyanheads/mcp-ts-core #355: a framework passed its request context, bearer token included, as
    ``error.data``; baruchiro/paperless-mcp #113: the request's ``Authorization`` header logged on every
    failed call). A JSON-RPC error whose ``data`` echoes the caller's credentials: the model text and every
    span/metric hold neither the token nor the header value."""
    token = "mcp_pat_FAKE9f8e7d6c5b4a3928171605"
    data = {"requestId": "FOB7K", "auth": {"sub": "sub", "scopes": ["a"], "token": token},
            "request": {"headers": {"Authorization": f"Bearer {token}"}}}
    params, _ = peer(tmp_path, [tool("probe")],
                     {"probe": {"error": {"code": -32603, "message": "probe failed", "data": data}}})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("probe", {})
    assert result.outcome is Outcome.ERROR and result.channel is Channel.PROTOCOL
    assert token not in result.text
    assert token not in recorded(telemetry)
    assert "FAKE9f8e7d6c5b4a" not in recorded(telemetry)


async def test_j56_error_text_that_is_json_is_read_not_stringified(tmp_path: Any) -> None:
    """J56 (agynio/v1 #97, anthropics/claude-code-action #1841: an ``isError`` body whose text was a JSON error
    object, or whose content was an array, reached users as "[object Object]"). The model reads the error's
    own message with its class and a ref."""
    body = '{"error":{"code":"NOT_FOUND","message":"Task 42 not found in project FAKE-ops"}}'
    params, _ = peer(tmp_path, [tool("get_task")], {"get_task": failed(body)})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        result = await tc.call_tool("get_task", {"id": 42})
    assert result.failure_class is FailureClass.NOT_FOUND, result.text
    assert "Task 42 not found" in result.text
    assert "[object Object]" not in result.text and "Ref ERR-" in result.text


class MemoryEventStore:
    """The smallest ``EventStore`` (mcp.server.streamable_http): every event kept, replayed after an id."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        from mcp.server.streamable_http import EventMessage

        stream = next((s for e, s, _ in self.events if e == last_event_id), None)
        for event_id, stream_id, message in self.events:
            if stream_id == stream and int(event_id) > int(last_event_id) and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


async def test_j68_server_closing_the_stream_mid_call_is_resumed(telemetry: Any) -> None:
    """J68 (SEP-1699, modelcontextprotocol/modelcontextprotocol PR #1783 and PR #1852, python-sdk PR #1654: a server
    may close a request's SSE stream at will once it has sent an event id; the client reconnects with
    ``Last-Event-ID`` and gets the rest, and "disconnection" includes the server's own closing). A long tool
    closes its stream (``ctx.close_sse_stream()``) and answers later: the call succeeds once, with its answer;
    it is not reported as lost or "may have run"."""
    from mcp.server.mcpserver import MCPServer

    from tests.client.servers.app import serve

    server = MCPServer("reports")
    runs: list[str] = []

    @server.tool()
    async def export_report(month: str, ctx: Context) -> str:
        runs.append(month)
        await ctx.close_sse_stream()
        await anyio.sleep(0.5)
        return f"report {month} exported"

    resumed: list[bytes] = []

    async def watch(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        resumed.extend(value for key, value in scope["headers"] if method == "GET" and key == b"last-event-id")
        return False

    app = server.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=100)
    async with serve(gated(app, watch)) as base:
        # SEP-1699 is of the 2025-11-25 era; on 2026-07-28 HTTP the SDK offers no stream to close.
        async with ToolClient(base + "/mcp", timeout=5, retry=None, mode="legacy", **telemetry.providers) as tc:
            result = await tc.call_tool("export_report", {"month": "2026-01"})
    assert resumed, "the stream was never resumed with Last-Event-ID"
    assert (result.outcome, result.text) == (Outcome.OK, "report 2026-01 exported"), result
    assert runs == ["2026-01"]


async def test_j69_http_202_to_a_request_is_not_waited_on(telemetry: Any) -> None:
    """J69 (saidsurucu/borsa-mcp #6 and damionrashford/RivalSearchMCP #5: servers and gateways answering a request
    with ``202 Accepted`` and no body; MCP spec, Transports > Sending Messages: a POST carrying a request MUST be
    answered with ``text/event-stream`` or ``application/json``, and 202 is only for notifications and
    responses). No answer can follow a 202 (a response never arrives on the standalone stream), so the call
    ends at once, reported as possibly run (the request was accepted), not after the full timeout."""
    from tests.client.servers.app import serve

    server = issues_server()

    accept_only = refusing("search_issues", 202, b"")
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), accept_only)) as base:
        async with ToolClient(base + "/mcp", timeout=4, retry=None, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("search_issues", {"query": "crash"})
            elapsed = time.monotonic() - started
            after = await tc.call_tool("status", {})
    assert result.outcome is Outcome.ERROR and elapsed < 3, (result, elapsed)
    assert result.side_effect_possible is not False
    assert after.text == "up"


async def test_j72_failing_tools_list_does_not_sink_an_answered_call(tmp_path: Any, telemetry: Any) -> None:
    """J72 (modelcontextprotocol/python-sdk #2626 and PR #3322: ``call_tool`` re-lists tools after the answer to check
    the output schema, so a server whose ``tools/list`` fails, e.g. a gateway whose listing needs a scope the token
    lacks, made every answered call raise the listing's error; PR #2441). The tool answered: the model gets that
    answer, not "the connection was lost while it was running", and the call is not repeated."""
    params, log = peer(tmp_path, [tool("search")], {"search": ok("3 hits")},
                       list_error={"code": -32603, "message": "listing needs scope read:org"})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("search", {"q": "x"})
        assert tc.state is ConnectionState.CONNECTED
    assert (result.outcome, result.text) == (Outcome.OK, "3 hits"), result
    assert len(log.received("tools/call")) == 1


async def test_a_stalled_tools_list_does_not_turn_an_answered_call_into_a_timeout(tmp_path: Any) -> None:
    """J72's other half: the SDK's follow-up ``tools/list`` is never answered (a server or gateway that stalls
    listings). The tool's answer came on the wire before the idle timer fired, so it stands: not "timed out,
    may already have been done", which would send the model to check (and a safe tool to be called again)."""
    params, log = peer(tmp_path, [tool("search")], {"search": ok("3 hits")}, list_hold=True)
    async with ToolClient(params, timeout=1.5, retry=None) as tc:
        result = await tc.call_tool("search", {"q": "x"})
    assert (result.outcome, result.text) == (Outcome.OK, "3 hits"), result
    assert len(log.received("tools/call")) == 1


async def test_j73_answer_wrapped_in_an_array(tmp_path: Any) -> None:
    """J73 (gensecaihq/Wazuh-MCP-Server #59: a server wrapped every JSON-RPC answer in an array and added
    ``"error": null``, and the n8n client's schema rejected it; modelcontextprotocol/typescript-sdk PR #2670: JSON
    arrays are batches, which MCP removed in 2025-06-18). A harmless ``"error": null`` beside a result is read;
    an answer wrapped in an array, which no client can take for its call's answer, ends the call at once as an
    answer that could not be read (it may have run), instead of leaving it to time out; the session stays."""
    with_null = '{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"12 alerts"}],"isError":false},"error":null}'
    wrapped = '[{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"12 alerts"}],"isError":false}}]'
    params, log = peer(tmp_path, [tool("alerts"), tool("agents"), tool("echo")],
                       {"alerts": {"raw": with_null}, "agents": {"raw": wrapped}, "echo": ok("echo")})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        alerts = await tc.call_tool("alerts", {})
        started = time.monotonic()
        agents = await tc.call_tool("agents", {})
        elapsed = time.monotonic() - started
        after = await tc.call_tool("echo", {})
    assert (alerts.outcome, alerts.text) == (Outcome.OK, "12 alerts")
    assert agents.outcome is Outcome.ERROR and elapsed < 2.5, (agents, elapsed)
    assert agents.side_effect_possible is True and "Ref ERR-" in agents.text
    assert after.text == "echo" and len(log.received("tools/call")) == 3


async def test_j74_error_result_without_any_content(tmp_path: Any, telemetry: Any) -> None:
    """J74 (infiniflow/ragflow PR #13899 and HKUDS/nanobot PR #4660: an MCP answer with empty content crashed the
    client's rendering or reached the model as nothing; anthropics/claude-code-action #1841). An ``isError`` result
    with ``content: []`` and no ``structuredContent`` still gives the model a sentence naming the tool, with a ref;
    the span records a tool error."""
    params, _ = peer(tmp_path, [tool("sync_inbox")], {"sync_inbox": failed("")})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("sync_inbox", {})
    assert result.outcome is Outcome.ERROR and result.channel is Channel.EXECUTION
    assert "sync_inbox" in result.text and "Ref ERR-" in result.text, result.text
    (span,) = telemetry.spans("tools/call sync_inbox")
    assert span.attributes["error.type"] == "tool_error"


async def test_arguments_holding_a_lone_surrogate_are_refused_before_sending(tmp_path: Any) -> None:
    """A model's arguments may hold a lone surrogate (``"\\ud800"`` decoded from its JSON): no UTF-8 encodes it
    (MCP messages are UTF-8), so the request can never be written. The call is the caller's mistake and nothing
    was sent, not "the connection was lost while search was running"."""
    params, log = peer(tmp_path, [tool("search")], {"search": ok("3 hits")})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        result = await tc.call_tool("search", {"q": "x\ud800"})
        after = await tc.call_tool("search", {"filters": {"lang": "日本語"}, "q": "x"})  # the session is intact
    assert result.failure_class is FailureClass.INVALID_INPUT and result.side_effect_possible is False, result
    assert "'q'" in result.text and "Ref ERR-" in result.text and result.attempts == 1, result
    assert after.text == "3 hits" and len(log.received("tools/call")) == 1


async def test_an_answer_holding_a_lone_surrogate_escape_is_read(tmp_path: Any) -> None:
    """``"\\ud800"`` is valid JSON (RFC 8259 §8.2) that pydantic refuses: the tool's answer should cost one
    character (U+FFFD), not become "the answer could not be read"."""
    params, log = peer(tmp_path, [tool("search")], {"search": ok("3 hits \ud800")})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        result = await tc.call_tool("search", {"q": "x"})
    assert result.outcome is Outcome.OK and result.text == "3 hits \ufffd", result
