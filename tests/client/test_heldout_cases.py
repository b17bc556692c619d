"""Client side of tests/heldout_cases.md (J01-J12, J20-J22, J26): public bug reports beyond the public cases.

Each test drives ``ToolClient`` against a real peer: a raw JSON-RPC stdio server whose answers come
from a JSON spec (``servers/heldout_peer.py``), the foreign server of the public cases, or a real
``MCPServer`` over streamable HTTP on 127.0.0.1. Timeouts are scaled down to fractions of a second.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import ERROR_TYPE, ERRSCOPE_FAILURE_CLASS, RPC_RESPONSE_STATUS_CODE, TOOL_ERROR
from errscope.client import ConnectionState, RetryPolicy, TimeoutPolicy, ToolClient
from tests.client.conftest import SERVERS, ForeignLog, free_port, wait_port

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def peer(
    tmp_path: Path, tools: list[dict[str, Any]], answers: dict[str, Any], **listing: Any
) -> tuple[StdioServerParameters, ForeignLog]:
    """A stdio server listing ``tools`` verbatim and answering each call as ``answers[name]`` says
    (``listing``: ``page_size``, ``stuck_cursor``; see ``servers/heldout_peer.py``)."""
    spec = tmp_path / "peer.json"
    spec.write_text(json.dumps({"tools": tools, "answers": answers, **listing}))
    log = tmp_path / "peer.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(SERVERS / "heldout_peer.py")],
        env={"PEER_SPEC": str(spec), "PEER_LOG": str(log)},
    )
    return params, ForeignLog(log)


def tool(name: str, **schema: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", **schema}}


def failed(text: str, **extra: Any) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}] if text else [], "isError": True, **extra}}


def ok(text: str) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}


def recorded(telemetry: Any) -> str:
    """Every span's name, status, attributes and events, and every metric point's labels, as one text."""
    parts = [f"{s.name}{s.status.description}{dict(s.attributes or {})}{[(e.name, dict(e.attributes or {})) for e in s.events]}"
             for s in telemetry.spans()]
    parts.append(repr(telemetry.histogram_points("mcp.client.operation.duration")))
    return "\n".join(parts)


class TestJ01ErrorResultWithOutputSchema:
    """J01 (typescript-sdk #1943, inspector #1045): an isError result is not checked against outputSchema."""

    async def test_error_envelope_reaches_the_model(self, tmp_path: Path, telemetry: Any) -> None:
        """The tool's own failure, not a schema complaint: class from its text, structured body kept for the host."""
        output_schema = {"type": "object", "properties": {"things": {"type": "array", "items": {"type": "string"}}},
                         "required": ["things"]}
        envelope = {"err": {"code": "NOT_FOUND", "message": "no thing T-1"}}
        params, _ = peer(
            tmp_path,
            [{**tool("get_things"), "outputSchema": output_schema}],
            {"get_things": failed("404 Not Found: no thing with id T-1", structuredContent=envelope)},
        )
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("get_things", {"id": "T-1"})
        assert (result.outcome, result.channel, result.failure_class) == (
            Outcome.ERROR, Channel.EXECUTION, FailureClass.NOT_FOUND)
        assert "schema" not in result.text.lower() and "invalid result" not in result.text.lower()
        assert result.result is not None and result.result.structured_content == envelope


class TestJ02StructuredErrorWithoutText:
    """J02 (langchain-mcp-adapters #619): an isError result whose only body is structuredContent."""

    async def test_structured_body_is_read_and_kept(self, tmp_path: Path) -> None:
        """The machine-readable error is kept whole for the host and read for the class (MCP 2025-11-25, Tools >
        Structured Content: the text block is only a SHOULD, so a client falls back to the structured body)."""
        body = {"code": "RATE_LIMITED", "retry_after": 30}
        params, _ = peer(tmp_path, [tool("search")], {"search": failed("", structuredContent=body)})
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("search", {"q": "x"})
        assert result.result is not None and result.result.structured_content == body
        assert result.failure_class is FailureClass.RATE_LIMITED
        assert result.text.strip() and "Ref ERR-" in result.text


class TestJ03ErrorTextReachesTheModel:
    """J03 (anomalyco/opencode #47740): the server's isError text is what the model reads, not a bare placeholder."""

    async def test_text_kept(self, tmp_path: Path) -> None:
        """An actionable error text survives (scrubbed, one line) with its class and a ref."""
        text = "Requirement deadbeef-dead-dead-dead-deadbeefdead was not found in the project"
        params, _ = peer(tmp_path, [tool("set_status")], {"set_status": failed(text)})
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("set_status", {"id": "deadbeef-dead-dead-dead-deadbeefdead", "status": "draft"})
        assert result.failure_class is FailureClass.NOT_FOUND
        assert "was not found in the project" in result.text
        assert result.text != "Error executing tool set_status"


class TestJ04StackTraceInErrorText:
    """J04 (yjacquin/fast-mcp #130): a missing-argument error carrying the server's Ruby backtrace."""

    async def test_note_names_the_argument_without_paths(self, tmp_path: Path) -> None:
        """The model gets the argument note; no file paths, line numbers or frames."""
        text = (
            "Error: 'table_name' is required, /Users/FAKE/.asdf/installs/ruby/3.3.5/lib/ruby/gems/3.3.0/gems/"
            "ruby-pg-extras-5.6.10/lib/ruby-pg-extras.rb:94:in `block in run_query_base'\n"
            "/Users/FAKE/.asdf/installs/ruby/3.3.5/lib/ruby/gems/3.3.0/gems/ruby-pg-extras-5.6.10/lib/"
            "ruby-pg-extras.rb:92:in `each'"
        )
        schema = {"properties": {"table_name": {"type": "string"}}, "required": ["table_name"]}
        params, _ = peer(tmp_path, [tool("table_schema", **schema)], {"table_schema": failed(text)})
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("table_schema", {})
        assert result.failure_class is FailureClass.INVALID_INPUT
        assert "`table_name` is required" in result.text
        for fragment in ("/Users", ".rb", "block in", "FAKE", ":94"):
            assert fragment not in result.text


class TestJ05StackTraceInErrorData:
    """J05 (modelcontextprotocol/java-sdk PR #519): a -32603 whose ``data`` is the serialised exception."""

    async def test_data_is_for_the_host_only(self, tmp_path: Path, telemetry: Any) -> None:
        """The model text and telemetry carry neither frames nor the DSN; the host still gets ``error`` whole."""
        data = {
            "cause": None,
            "stackTrace": [{"classLoaderName": "app", "methodName": "build", "fileName": "McpError.java", "lineNumber": 88}],
            "detail": "jdbc:postgresql://db.internal.example:5432/app?user=svc&password=FAKE-JDBC-PW",
        }
        params, _ = peer(
            tmp_path,
            [tool("get_report")],
            {"get_report": {"error": {"code": -32603, "message": "Internal error", "data": data}}},
        )
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("get_report", {})
        assert result.outcome is Outcome.ERROR and result.channel is Channel.PROTOCOL
        assert result.error is not None and result.error.data == data
        everything = result.text + recorded(telemetry)
        for fragment in ("FAKE-JDBC-PW", "McpError.java", "stackTrace", "db.internal.example"):
            assert fragment not in everything
        (span,) = telemetry.spans("tools/call get_report")
        assert dict(span.attributes or {})[RPC_RESPONSE_STATUS_CODE] == "-32603"


class TestJ06LateErrorAfterCancel:
    """J06 (anthropics/claude-code #51073, python-sdk #2493): a server answers a cancelled request with code 0."""

    async def test_late_answer_is_ignored_and_session_kept(self, tmp_path: Path) -> None:
        """The late ``{"code": 0, "message": "Request cancelled"}`` is no reason to drop or re-open the session."""
        params, log = peer(
            tmp_path,
            [tool("poll_build"), tool("echo")],
            {
                "poll_build": {"hold": True, "on_cancel": {"error": {"code": 0, "message": "Request cancelled"}}},
                "echo": ok("still here"),
            },
        )
        async with ToolClient(params, timeout=0.3) as tc:
            first = await tc.call_tool("poll_build", {})
            await log.wait("recv", 1, method="notifications/cancelled")
            await anyio.sleep(0.2)  # let the late answer arrive
            second = await tc.call_tool("echo", {})
            assert tc.state is ConnectionState.CONNECTED
        assert first.outcome is Outcome.TIMEOUT
        assert (second.outcome, second.text) == (Outcome.OK, "still here")
        assert len(log.received("initialize")) == 1  # no reconnect


class TestJ07ProgressWithoutCallback:
    """J07 (anomalyco/opencode #28186, typescript-sdk PR #2136): progress resets the timer with no callback."""

    async def test_progress_keeps_a_call_alive_without_a_callback(self, foreign: Any) -> None:
        """Every call carries a progressToken; progress restarts the idle timer whether or not the host listens."""
        params, log = foreign("slow")
        async with ToolClient(params) as tc:
            result = await tc.call_tool(
                "export_report", {"seconds": 1.2, "progress_every": 0.1}, timeout=TimeoutPolicy(idle=0.4, ceiling=5)
            )
        assert result.outcome is Outcome.OK, result.text
        (call,) = log.received("tools/call")
        assert "progressToken" in call["params"]["_meta"]


class TestJ08OneBadToolSchema:
    """J08 (anthropics/claude-code #88049, NousResearch/hermes-agent PR #101804): one tool with a schema the
    SDK rejects must not take the server's other tools down."""

    async def test_other_tools_stay_listed_and_callable(self, tmp_path: Path) -> None:
        """The valid tool is in the catalog and callable; the session is up."""
        params, _ = peer(
            tmp_path,
            [{"name": "lookup", "inputSchema": {"type": "string"}}, tool("healthy")],
            {"healthy": ok("fine"), "lookup": ok("looked up")},
        )
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("healthy", {})
            assert "healthy" in tc.catalog.names
            assert tc.state is ConnectionState.CONNECTED
        assert (result.outcome, result.text) == (Outcome.OK, "fine")


class TestJ09SessionEndedByRestart:
    """J09 (modelcontextprotocol/rust-sdk #733, anthropics/claude-code #62008): after the server restarts,
    its 404 to the old session id makes the client start a new session (MCP 2025-11-25, Transports >
    Session Management: the client MUST send a new InitializeRequest)."""

    @staticmethod
    def _start(port: int) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "plain_server.py"), "http", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(port, timeout=30)
        return proc

    async def _restart_between_calls(self, retry: Any) -> tuple[Any, Any, str | None, str | None]:
        """Call echo, restart the server on the same port, call echo again; both results and session ids."""
        port = free_port()
        procs = [self._start(port)]
        try:
            async with ToolClient(f"http://127.0.0.1:{port}/mcp", timeout=5, mode="legacy", retry=retry) as tc:
                before = await tc.call_tool("echo", {"text": "one"})
                old_session = tc.connection.session_id
                procs[0].terminate()
                procs[0].wait(10)
                procs.append(self._start(port))
                after = await tc.call_tool("echo", {"text": "two"})
                again = await tc.call_tool("echo", {"text": "three"})
                new_session = tc.connection.session_id
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(10)
        assert before.text == "one"
        return after, again, old_session, new_session

    async def test_refused_call_is_reported_not_run_and_a_new_session_follows(self) -> None:
        """The mcp server's 404 carries a JSON-RPC "Session not found" body: that is the session ending (the call
        was not run), never the server refusing the arguments; the next call runs on a new session."""
        after, again, old_session, new_session = await self._restart_between_calls(retry=None)  # no automatic repeat
        assert "had ended the session; echo was not run" in after.text, after.text
        assert after.side_effect_possible is False and "Fix the arguments" not in after.text
        assert after.failure_class is not FailureClass.INVALID_INPUT
        assert (again.outcome, again.text) == (Outcome.OK, "three")
        assert new_session not in (None, old_session)

    async def test_refused_call_is_resent_once_on_the_new_session(self) -> None:
        after, _, _, _ = await self._restart_between_calls(retry=RetryPolicy())
        assert (after.outcome, after.text) == (Outcome.OK, "two"), after.text


class TestJ10ToolErrorOnClientTelemetry:
    """J10 (traceloop/openllmetry #4037, jaegertracing/jaeger PR #9335): an isError result is an error on
    the client span and its duration point, with ``error.type=tool_error``."""

    async def test_span_and_metric(self, foreign: Any, telemetry: Any) -> None:
        params, _ = foreign("d04")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            await tc.call_tool("get_issue", {})
        (span,) = telemetry.spans("tools/call get_issue")
        assert span.status.status_code.name == "ERROR"
        assert span.status.description == "not_found"
        assert dict(span.attributes or {})[ERROR_TYPE] == TOOL_ERROR
        points = [dict(p.attributes) for p in telemetry.histogram_points("mcp.client.operation.duration")
                  if p.attributes.get("mcp.method.name") == "tools/call"]
        assert [(p[ERROR_TYPE], p[ERRSCOPE_FAILURE_CLASS]) for p in points] == [(TOOL_ERROR, "not_found")]


class TestJ11TraceContextInHeaders:
    """J11 (aws-observability/aws-otel-python-instrumentation #826): trace context also travels in the HTTP
    headers, so a server or gateway that reads only headers joins the client's trace."""

    async def test_headers_and_meta_carry_the_same_context(self, telemetry: Any) -> None:
        from mcp.server.mcpserver import MCPServer

        from tests.client.servers.app import serve

        server = MCPServer("headers")

        @server.tool()
        def echo(text: str) -> str:
            return text

        app = server.streamable_http_app(host="127.0.0.1")
        seen: list[tuple[dict[str, str], bytes]] = []

        async def recording(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                await app(scope, receive, send)
                return
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            body: list[bytes] = []

            async def tapped() -> Any:
                message = await receive()
                body.append(message.get("body", b""))
                if not message.get("more_body"):
                    seen.append((headers, b"".join(body)))
                return message

            await app(scope, tapped, send)

        async with serve(recording) as base:
            async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
                result = await tc.call_tool("echo", {"text": "hi"})
        assert result.ok
        (headers, body) = next((h, b) for h, b in seen if b"tools/call" in b)
        meta = json.loads(body)["params"]["_meta"]
        assert headers.get("traceparent") == meta["traceparent"]
        (span,) = [s for s in telemetry.spans("tools/call echo") if s.kind.name == "CLIENT"]
        assert meta["traceparent"].split("-")[1] == format(span.context.trace_id, "032x")


class TestJ12DuplicateResponse:
    """J12 (python-sdk #1152, rust-sdk PR #957): a server that answers one request id twice."""

    async def test_second_answer_changes_nothing(self, tmp_path: Path) -> None:
        """The first answer is the call's; the repeat is dropped, the session stays, the next call works."""
        params, log = peer(
            tmp_path,
            [tool("charge"), tool("echo")],
            {"charge": {**ok("charged once"), "repeat": 2}, "echo": ok("echo")},
        )
        async with ToolClient(params, timeout=2) as tc:
            first = await tc.call_tool("charge", {})
            second = await tc.call_tool("echo", {})
            assert tc.state is ConnectionState.CONNECTED
        assert (first.text, second.text) == ("charged once", "echo")
        assert len(log.received("initialize")) == 1 and len(log.received("tools/call")) == 2


class TestJ20PaginatedListing:
    """J20 (vercel/ai #19240, Factory-AI/factory #7, knowsuchagency/mcp2cli #64): tools past the first page of
    ``tools/list`` are the server's tools like any other (MCP spec, Utilities > Pagination)."""

    async def test_tool_on_page_three_is_known(self, tmp_path: Path) -> None:
        """Every page is read: a page-3 tool is in the catalog, its annotations count, and calling it needs no re-list."""
        names = [f"tool_{i}" for i in range(5)]
        tools = [tool(name) for name in names[:-1]] + [{**tool("create_entry"), "annotations": {"idempotentHint": True}}]
        params, log = peer(tmp_path, tools, {"create_entry": ok("created")}, page_size=2)
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("create_entry", {})
            assert tc.catalog.names == [*names[:-1], "create_entry"]
            assert tc.catalog.is_safe_to_repeat("create_entry", keyed=False)
        assert (result.outcome, result.text) == (Outcome.OK, "created")
        assert len(log.received("tools/list")) == 3  # pages 1, 2, 3; no refresh for the call

    async def test_cursor_that_never_advances_ends_the_listing(self, tmp_path: Path) -> None:
        """DeusData/codebase-memory-mcp #1247: a server returning the same ``nextCursor`` forever must not make the
        client loop or multiply its tools; a repeated cursor ends the listing."""
        params, log = peer(tmp_path, [tool("search_code"), tool("trace_path")], {"search_code": ok("found")},
                           page_size=2, stuck_cursor=True)
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("search_code", {})
            assert tc.catalog.names == ["search_code", "trace_path"]
        assert result.ok
        assert len(log.received("tools/list")) <= 2


class TestJ21InvalidStructuredResult:
    """J21 (cyanheads/obsidian-mcp-server #108, mastra-ai/mastra PR #22556): a successful result whose
    ``structuredContent`` breaks the tool's ``outputSchema`` is the server's bug, not the caller's."""

    async def test_reported_as_the_tools_fault_after_it_ran(self, tmp_path: Path, telemetry: Any) -> None:
        """The model hears the tool ran but its result could not be used (never "invalid arguments", never
        "refused"); the call may have acted; the host keeps the result."""
        schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
        body = {"count": "many"}
        params, log = peer(
            tmp_path,
            [{**tool("count_notes"), "outputSchema": schema}],
            {"count_notes": {"result": {"content": [{"type": "text", "text": json.dumps(body)}],
                                        "structuredContent": body, "isError": False}}},
        )
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("count_notes", {})
            assert tc.state is ConnectionState.CONNECTED
        assert result.outcome is Outcome.ERROR
        assert result.failure_class is not FailureClass.INVALID_INPUT
        assert "Fix the arguments" not in result.text and "refused" not in result.text
        assert result.side_effect_possible is not False
        assert len(log.received("tools/call")) == 1  # not repeated


class TestJ22GatewayErrorOnOneCall:
    """J22 (OpenHands/software-agent-sdk #3928): one HTTP 503 from a gateway, among calls in parallel, must not
    take the connection, and every other tool with it, down for the rest of the run."""

    async def test_only_that_call_fails(self, telemetry: Any) -> None:
        from mcp.server.mcpserver import MCPServer

        from tests.client.servers.app import serve

        server = MCPServer("gateway")

        @server.tool()
        async def list_issues(team: str) -> str:
            await anyio.sleep(0.2)
            return f"issues of {team}"

        app = server.streamable_http_app(host="127.0.0.1")

        async def gateway(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                message = await receive()
                if b'"team":"FAKE-503"' in message.get("body", b"").replace(b" ", b""):
                    await send({"type": "http.response.start", "status": 503,
                                "headers": [(b"content-type", b"text/plain")]})
                    await send({"type": "http.response.body", "body": b"Service Unavailable"})
                    return
                replayed = [message]

                async def again() -> Any:
                    return replayed.pop() if replayed else await receive()

                await app(scope, again, send)
                return
            await app(scope, receive, send)

        results: dict[str, Any] = {}
        async with serve(gateway) as base:
            async with ToolClient(base + "/mcp", timeout=5, retry=None, **telemetry.providers) as tc:

                async def call(team: str) -> None:
                    results[team] = await tc.call_tool("list_issues", {"team": team})

                async with anyio.create_task_group() as tg:
                    for team in ("alpha", "FAKE-503", "beta"):
                        tg.start_soon(call, team)
                after = await tc.call_tool("list_issues", {"team": "gamma"})
                assert tc.state is ConnectionState.CONNECTED
        assert (results["alpha"].text, results["beta"].text, after.text) == (
            "issues of alpha", "issues of beta", "issues of gamma")
        failed = results["FAKE-503"]
        assert failed.outcome is Outcome.ERROR and failed.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert "FAKE-503" not in failed.text


class TestJ26AuthChallengeOnToolCall:
    """J26 (MoonshotAI/kimi-code PR #3846, onyx-dot-app/onyx #9237): a server that lets ``initialize`` and
    ``tools/list`` through anonymously answers ``tools/call`` with HTTP 401 and a ``WWW-Authenticate`` challenge
    (MCP, Authorization: an invalid or expired token gets 401)."""

    async def test_reported_as_needing_access_not_as_a_lost_answer(self, telemetry: Any) -> None:
        """Class ``permission_denied``; the request was refused, so it did not run (``side_effect_possible`` false);
        not repeated; the session stays usable for tools that need no token."""
        from mcp.server.mcpserver import MCPServer

        from tests.client.servers.app import serve

        server = MCPServer("models")
        calls: list[str] = []

        @server.tool()
        def generate_model(prompt: str) -> str:
            calls.append(prompt)
            return "model-1"

        @server.tool()
        def status() -> str:
            return "up"

        app = server.streamable_http_app(host="127.0.0.1")

        async def auth_gate(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                message = await receive()
                if b'"generate_model"' in message.get("body", b""):
                    challenge = b'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
                    await send({"type": "http.response.start", "status": 401,
                                "headers": [(b"www-authenticate", challenge), (b"content-type", b"application/json")]})
                    await send({"type": "http.response.body", "body": b'{"error":"invalid_token"}'})
                    return
                replayed = [message]

                async def again() -> Any:
                    return replayed.pop() if replayed else await receive()

                await app(scope, again, send)
                return
            await app(scope, receive, send)

        async with serve(auth_gate) as base:
            async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
                result = await tc.call_tool("generate_model", {"prompt": "a chair"})
                after = await tc.call_tool("status", {})
        assert calls == []
        assert result.failure_class is FailureClass.PERMISSION_DENIED, result.text
        assert result.side_effect_possible is False and result.attempts == 1
        assert "may have run" not in result.text
        assert after.text == "up"
