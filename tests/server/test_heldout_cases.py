"""Server side of tests/heldout_cases.md (J13-J19, J23-J25): public bug reports beyond the public cases.

Each test instruments a real server (MCPServer, low-level Server, FastMCP) and calls it with the real SDK
client in both protocol eras, or speaks raw JSON-RPC to it over streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, CallToolResult, ListToolsResult, TextContent, Tool
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import StatusCode
from pydantic import BaseModel

import errscope
from errscope.testing import CapturedTelemetry
from tests.server.conftest import Served
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

REF = r"Ref ERR-[0-9A-Z]{8}"


def text_of(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if hasattr(block, "text"))


def everything_recorded(telemetry: CapturedTelemetry) -> str:
    parts: list[str] = []
    for span in telemetry.spans():
        parts += [span.name, span.status.description or "", json.dumps(dict(span.attributes), default=str)]
        parts += [event.name + json.dumps(dict(event.attributes or {}), default=str) for event in span.events]
    for record in telemetry.log_records:
        parts.append(json.dumps({k: str(v) for k, v in record.__dict__.items()}, default=str))
    return "\n".join(parts)


@asynccontextmanager
async def serving(style: str, era: str, telemetry: CapturedTelemetry, *tools: Callable[..., Any], **options: Any) -> AsyncIterator[Served]:
    """The catalogue server of ``style`` plus ``tools``, instrumented, with a connected SDK client."""
    server = BUILDERS[style]()
    for tool in tools:
        (server.tool if style == "fastmcp" else server.add_tool)(tool)
    errscope.instrument(server, **telemetry.providers, **options)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        yield Served(server, telemetry, client)


async def handshake(http: httpx.AsyncClient) -> dict[str, str]:
    """A raw 2025-11-25 handshake on ``/mcp``; the headers every later POST of the session needs."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    init = await http.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    })
    if init.headers.get("mcp-session-id"):
        headers["mcp-session-id"] = init.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-11-25"
    await http.post("/mcp", headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


class Forecast(BaseModel):
    city: str
    celsius: float


async def get_forecast(city: str) -> Forecast:
    """A tool with an output schema (its return type) that fails before it has a result."""
    raise errscope.NotFound(f"station lookup returned nothing for {city}", public_message=f"no weather station for {city}")


async def read_config(path: str) -> str:
    """A tool whose file is missing (sem #182: a user mistake reported as -32603)."""
    with open(path) as fh:
        return fh.read()


async def ledger_query(account: str) -> str:
    """A tool that raises a JSON-RPC error on purpose, carrying what a careless author puts in it."""
    raise MCPError(
        INTERNAL_ERROR,
        "ledger query failed for postgresql://svc:FAKE-PG-PASS-9@ledger.internal.example:5432/ledger",
        data={"stack": 'Traceback (most recent call last):\n  File "/srv/app/FAKE/ledger.py", line 42', "account": account},
    )


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
class TestJ13FailureOfToolWithOutputSchema:
    """J13 (typescript-sdk #654): a tool that declares an outputSchema can still report its own failure."""

    async def test_raised_failure_is_the_tools_not_an_invalid_result(self, style: str, era: str, telemetry: CapturedTelemetry) -> None:
        """The failure's class and wording reach the model; nothing says the result broke the schema."""
        async with serving(style, era, telemetry, get_forecast) as served:
            listed = {t.name: t for t in (await served.client.list_tools()).tools}
            assert listed["get_forecast"].output_schema is not None
            result = await served.call("get_forecast", {"city": "Atlantis"})
        assert isinstance(result, CallToolResult) and result.is_error
        assert re.fullmatch(r"get_forecast failed: no weather station for Atlantis\. .*" + REF + r"\.?", text_of(result)), text_of(result)
        span = served.span()
        assert span.attributes["errscope.failure_class"] == "not_found"
        assert "errscope.failure_reason" not in span.attributes


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j13_tool_built_error_without_structured_content(era: str, telemetry: CapturedTelemetry) -> None:
    """J13, the report's own reproduction: a low-level tool with an outputSchema returns ``isError`` and no
    ``structuredContent``. The spec exempts error results from the output schema (Tools > Output Schema
    applies to structured results), so its text is kept, not replaced by "produced an invalid result"."""
    from mcp.server.lowlevel.server import Server

    schema = {"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="get_forecast", input_schema={"type": "object"}, output_schema=schema)])

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="404 Not Found: no weather station for Atlantis")], is_error=True)

    server = Server("forecast", on_list_tools=list_tools, on_call_tool=call_tool)
    errscope.instrument(server, **telemetry.providers)
    async with Client(server, mode=era) as client:
        await client.list_tools()
        result = await client.call_tool("get_forecast", {"city": "Atlantis"})
    assert result.is_error
    assert "no weather station for Atlantis" in text_of(result) and "invalid result" not in text_of(result)
    (span,) = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    assert span.attributes["errscope.failure_class"] == "not_found"
    assert "errscope.failure_reason" not in span.attributes


class TestJ14UserMistakeIsNotInternalError:
    """J14 (Ataraxy-Labs/sem #182): a path the user got wrong is a tool failure the model can fix, not -32603."""

    @pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
    async def test_missing_file_is_not_found(self, style: str, telemetry: CapturedTelemetry) -> None:
        async with serving(style, "legacy", telemetry, read_config) as served:
            result = await served.call("read_config", {"path": "/nonexistent/FAKE/settings.toml"})
        assert isinstance(result, CallToolResult) and result.is_error
        assert served.span().attributes["errscope.failure_class"] == "not_found"
        assert "/nonexistent/FAKE" not in text_of(result)


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
class TestJ15ProtocolErrorRaisedOnPurpose:
    """J15 (0xzr/freellmpool #88, everruns/bashkit #1182, NethermindEth/nethermind #13198): a JSON-RPC error a
    tool raises carries no credentials, paths or stack frames to the client, in ``message`` or ``data``."""

    async def test_message_and_data_are_scrubbed(self, style: str, telemetry: CapturedTelemetry) -> None:
        async with serving(style, "legacy", telemetry, ledger_query) as served:
            outcome = await served.call("ledger_query", {"account": "ACC-1"})
        wire = json.dumps(
            {"message": outcome.message, "data": outcome.data} if isinstance(outcome, MCPError)
            else outcome.model_dump(mode="json")
        )
        for fragment in ("FAKE-PG-PASS-9", "svc:", "/srv/app", "Traceback", "ledger.py"):
            assert fragment not in wire, wire
        assert "FAKE-PG-PASS-9" not in everything_recorded(telemetry)

    async def test_span_is_an_error(self, style: str, telemetry: CapturedTelemetry) -> None:
        """-32603 is the server's fault, not the caller's: status ERROR (semconv-genai PR #404 exempts only caller mistakes)."""
        async with serving(style, "legacy", telemetry, ledger_query) as served:
            await served.call("ledger_query", {"account": "ACC-1"})
        span = served.span()
        assert span.status.status_code is StatusCode.ERROR


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j15_malformed_arguments_answer_names_no_internals(style: str, telemetry: CapturedTelemetry) -> None:
    """J15 (everruns/bashkit #1182): ``arguments`` that is not an object gets -32602 without the validator's
    internals (type names, pydantic's help links, the input echoed back)."""
    from tests.client.servers.app import serve

    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    app = server.http_app(path="/mcp") if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")

    async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        headers = await handshake(http)
        answer = await http.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "schedule_meeting", "arguments": "start=FAKE-now"},
        })
    body = answer.text
    frame = json.loads(body[body.index("{"):body.rindex("}") + 1])
    assert frame["error"]["code"] == -32602, frame
    for fragment in ("pydantic", "errors.pydantic.dev", "input_type", "FAKE-now", "dict_type", "model_type"):
        assert fragment not in json.dumps(frame), frame


@pytest.mark.parametrize("style", ["lowlevel", "mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j16_client_chosen_names_are_not_metric_labels(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J16 (stacklok/toolhive #6169 and PR #5956): prompt names and resource URIs a client makes up do not
    become label values of the duration metric; each one would be a new series."""
    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    made_up = [f"FAKE-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    async with Client(target, mode=era) as client:
        for name in made_up:
            for call in (lambda: client.get_prompt(name), lambda: client.read_resource(f"file:///{name}")):
                try:
                    await call()
                except MCPError:
                    pass
    labels = json.dumps([dict(p.attributes) for p in telemetry.histogram_points("mcp.server.operation.duration")])
    assert all(name not in labels for name in made_up), labels


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j17_trace_context_from_http_headers(style: str, telemetry: CapturedTelemetry) -> None:
    """J17 (aws-observability/aws-otel-python-instrumentation #826, PR #829): a client (or gateway) that puts the
    trace context only in the HTTP headers still gets the server's span in its trace."""
    from tests.client.servers.app import serve

    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    app = server.http_app(path="/mcp") if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")
    trace_id = uuid.uuid4().hex
    span_id = uuid.uuid4().hex[:16]
    traceparent = f"00-{trace_id}-{span_id}-01"
    async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        headers = await handshake(http)
        # errscope instruments httpx in this process, and an instrumented httpx writes the traceparent of its own
        # CLIENT span: make that span a child of the caller's trace, as it would be in the caller's process.
        caller = trace.NonRecordingSpan(trace.SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=True,
                                                          trace_flags=trace.TraceFlags(1)))
        token = otel_context.attach(trace.set_span_in_context(caller))
        try:
            answer = await http.post("/mcp", headers={**headers, "traceparent": traceparent}, json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_orders", "arguments": {}},
            })
        finally:
            otel_context.detach(token)
    assert answer.status_code == 200 and '"isError":false' in answer.text.replace(" ", "")
    (span,) = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call" and s.kind.name == "SERVER"]
    assert format(span.context.trace_id, "032x") == trace_id


async def test_j18_fastmcp_masking_keeps_argument_feedback(telemetry: CapturedTelemetry) -> None:
    """J18 (PrefectHQ/fastmcp #1316): with ``mask_error_details=True`` the model still learns which argument
    was wrong, since that is what lets it correct itself; the masking still hides everything else."""
    from fastmcp import FastMCP

    from tests.servers.catalogue import TOOLS

    app = FastMCP("masked", mask_error_details=True)
    for tool in TOOLS:
        app.tool(tool)
    errscope.instrument(app, **telemetry.providers)
    async with Client(app._mcp_server, mode="legacy") as client:
        bad = await client.call_tool("schedule_meeting", {"start": "2026-12-01T10:00:00Z", "duration_min": "ninety"})
        leak = await client.call_tool("get_order", {"order_id": "A-100"})
    assert bad.is_error and "`duration_min` must be an integer from 1 to 480" in text_of(bad)
    assert leak.is_error and "FAKE-PG-PASS-123" not in text_of(leak)


async def test_j19_fastmcp_tool_error_message_is_for_the_model(telemetry: CapturedTelemetry) -> None:
    """J19 (PrefectHQ/fastmcp PR #434 and PR #2697, sooperset/mcp-atlassian PR #1010): ``ToolError`` is how a
    FastMCP author says "send this message to the client"; it reaches the model (scrubbed, with a ref)."""
    from fastmcp import FastMCP
    from fastmcp.exceptions import ToolError

    app = FastMCP("explicit", mask_error_details=True)

    @app.tool
    async def ship_order(order_id: str) -> str:
        """Ship an order."""
        raise ToolError(f"order {order_id} is already shipped; nothing to do")

    errscope.instrument(app, **telemetry.providers)
    async with Client(app._mcp_server, mode="legacy") as client:
        result = await client.call_tool("ship_order", {"order_id": "ord_7"})
    assert result.is_error
    assert "order ord_7 is already shipped" in text_of(result), text_of(result)
    assert re.search(REF, text_of(result))


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j16_made_up_method_names_are_not_metric_labels(style: str, telemetry: CapturedTelemetry) -> None:
    """J16 (stacklok/toolhive PR #5956): an unknown JSON-RPC method gets -32601 and is counted under a bounded
    ``mcp.method.name`` (the conventions' ``_OTHER``), never under the name the client sent."""
    from tests.client.servers.app import serve

    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    app = server.http_app(path="/mcp") if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")
    made_up = [f"x-FAKE-{uuid.uuid4().hex[:8]}/list" for _ in range(3)]
    async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        headers = await handshake(http)
        answers = [
            await http.post("/mcp", headers=headers, json={"jsonrpc": "2.0", "id": 10 + i, "method": method, "params": {}})
            for i, method in enumerate(made_up)
        ]
    assert all('"code":-32601' in a.text.replace(" ", "") for a in answers), [a.text for a in answers]
    labels = json.dumps([dict(p.attributes) for p in telemetry.histogram_points("mcp.server.operation.duration")])
    assert all(method not in labels for method in made_up), labels


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j23_failure_outside_tools_call_leaks_nothing(era: str, telemetry: CapturedTelemetry) -> None:
    """J23 (jdubois/boot-ui PR #705, 0xzr/freellmpool #88): an unexpected exception in a handler other than a
    tool's (here ``tools/list`` and ``resources/read``) answers -32603 without the exception's text, and the
    span and log keep only scrubbed text."""
    from mcp.server.lowlevel.server import Server

    secret = "postgresql://svc:FAKE-LIST-PW@catalog.internal.example:5432/tools"

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        raise RuntimeError(f"tool catalogue unavailable: could not connect to {secret}")

    async def read_resource(ctx: Any, params: Any) -> Any:
        raise OSError(f"[Errno 13] Permission denied: '/srv/app/FAKE/secrets/{params.uri.split('/')[-1]}'")

    server = Server("broken", on_list_tools=list_tools, on_read_resource=read_resource)
    errscope.instrument(server, **telemetry.providers)
    answers: list[MCPError] = []
    async with Client(server, mode=era) as client:
        for call in (client.list_tools, lambda: client.read_resource("file:///token.txt")):
            try:
                await call()
            except MCPError as exc:
                answers.append(exc)
    assert [a.code for a in answers] == [INTERNAL_ERROR, INTERNAL_ERROR]
    wire = json.dumps([{"message": a.message, "data": a.data} for a in answers], default=str)
    for fragment in ("FAKE-LIST-PW", "svc:", "/srv/app", "catalog.internal"):
        assert fragment not in wire, wire
    assert "FAKE-LIST-PW" not in everything_recorded(telemetry)


class TestJ24ServerSideRetryMiddleware:
    """J24 (langchain-ai/langchain #40688; FastMCP's ``RetryMiddleware`` is the same design inside an MCP server):
    a retry layer that re-runs a tool whose call may already have acted duplicates its side effect."""

    @staticmethod
    def _app(telemetry: CapturedTelemetry, *, added_after: bool = False) -> tuple[Any, list[str]]:
        from fastmcp import FastMCP
        from fastmcp.server.middleware.error_handling import RetryMiddleware

        sent: list[str] = []
        app = FastMCP("mailer")
        retry = RetryMiddleware(max_retries=2, base_delay=0.01, max_delay=0.02)
        if not added_after:
            app.add_middleware(retry)

        @app.tool
        async def send_invoice(invoice_id: str) -> str:
            """Send an invoice by e-mail (not idempotent: each run sends one more e-mail)."""
            sent.append(invoice_id)
            raise ConnectionResetError("mail relay reset the connection after DATA")

        errscope.instrument(app, **telemetry.providers)
        if added_after:
            app.add_middleware(retry)
        return app, sent

    @pytest.mark.parametrize("added_after", [False, True])
    async def test_instrument_says_what_the_middleware_breaks(
        self, telemetry: CapturedTelemetry, caplog: Any, added_after: bool
    ) -> None:
        with caplog.at_level("WARNING", logger="errscope"):
            self._app(telemetry, added_after=added_after)
        assert any("RetryMiddleware" in r.getMessage() and "idempotentHint" in r.getMessage() for r in caplog.records)

    @pytest.mark.parametrize("added_after", [False, True])
    async def test_non_idempotent_tool_runs_once(self, telemetry: CapturedTelemetry, added_after: bool) -> None:
        """The tool's failure is the call's answer: errscope's seam turns it into the ``isError`` result before the
        retry layer sees an exception, so the e-mail is sent once; also when the retry layer was added after
        ``errscope.instrument()`` (it goes outside errscope's seam, which stays next to the tool)."""
        app, sent = self._app(telemetry, added_after=added_after)
        async with Client(app._mcp_server, mode="legacy") as client:
            result = await client.call_tool("send_invoice", {"invoice_id": "INV-1"})
        assert result.is_error
        assert sent == ["INV-1"]


async def quit_midway(job: str) -> str:
    """A tool whose library calls ``sys.exit`` on a fatal condition (a CLI wrapped as a library)."""
    raise SystemExit(f"fatal: cannot lock {job}")


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j25_tool_calling_sys_exit_does_not_end_the_server(style: str, telemetry: CapturedTelemetry) -> None:
    """J25 (modelcontextprotocol/python-sdk #396): a tool that ends with ``SystemExit`` (a ``BaseException``, not an
    ``Exception``) is that call's failure: ``isError`` with a ref, and the server goes on serving."""
    async with serving(style, "legacy", telemetry, quit_midway) as served:
        failed = await served.call("quit_midway", {"job": "nightly"})
        after = await served.call("list_orders", {})
    assert isinstance(failed, CallToolResult) and failed.is_error and re.search(REF, text_of(failed))
    assert isinstance(after, CallToolResult) and not after.is_error
