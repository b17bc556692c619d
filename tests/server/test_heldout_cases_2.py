"""Server side of tests/heldout_cases.md, second round (J27-J33): resources, prompts, middleware and the on-call
path (duplicate instrumentation, exemplars, the upstream span of a tool running in a worker thread).

Real servers (MCPServer, low-level Server, FastMCP), the real SDK client in both protocol eras, a real uvicorn
upstream on 127.0.0.1, in-memory OpenTelemetry exporters.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult
from opentelemetry.trace import SpanKind, StatusCode

import errscope
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import Forecast, everything_recorded, text_of
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

RESOURCE_NOT_FOUND = -32002
"""MCP spec 2025-11-25, Resources > Error Handling; SEP-2164 moves it to -32602 for 2026-07-28."""


def tool_spans(telemetry: CapturedTelemetry) -> list[Any]:
    return [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call" and s.kind is SpanKind.SERVER]


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j27_unknown_resource_is_not_found(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J27 (python-sdk #1579, fastmcp #3038 / PR #3041, SEP-2164): reading a URI the server does not have answers
    the spec's not-found code (-32002, or -32602 after SEP-2164), never code 0 or -32603 "internal error"."""
    server = BUILDERS[style]()

    @server.resource("config://app/settings")
    def settings() -> str:
        return "{}"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("config://app/FAKE-missing")
        assert (await client.read_resource("config://app/settings")).contents
    assert raised.value.code in (RESOURCE_NOT_FOUND, INVALID_PARAMS), (raised.value.code, raised.value.message)


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j28_prompt_missing_argument_is_invalid_params(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J28 (modelcontextprotocol/ruby-sdk PR #517, jmrplens/gitlab-mcp-server PR #333): ``prompts/get`` without a
    required argument is the caller's mistake: -32602 (MCP spec, Prompts > Error Handling), and a server span
    with the code recorded but status left unset (caller mistakes are not server errors)."""
    server = BUILDERS[style]()

    @server.prompt()
    def review_order(order_id: str) -> str:
        """Ask for a review of one order."""
        return f"Review order {order_id}"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("review_order", {})
        ok = await client.get_prompt("review_order", {"order_id": "A-1"})
    assert raised.value.code == INVALID_PARAMS, (raised.value.code, raised.value.message)
    assert "order_id" in raised.value.message
    assert "Review order A-1" in json.dumps(ok.model_dump(mode="json"))
    spans = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "prompts/get" and s.kind is SpanKind.SERVER]
    failed = [s for s in spans if s.attributes.get("rpc.response.status_code") is not None]
    assert failed and all(s.status.status_code is not StatusCode.ERROR for s in failed), [(s.attributes, s.status) for s in spans]


async def test_j29_exception_in_fastmcp_middleware(telemetry: CapturedTelemetry) -> None:
    """J29 (PrefectHQ/fastmcp #2673, Teradata/teradata-mcp-server #320, ffroliva/gflow-cli #473): a
    middleware that raises before the tool runs (a quota check whose exception holds a DSN) answers a failure
    that names no secret, gets a class and a ref, and its span is an error; the next call still works."""
    from fastmcp.server.middleware import Middleware

    class Quota(Middleware):
        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            if context.message.name == "get_order":
                raise ConnectionRefusedError("quota store down: redis://:FAKE-REDIS-PW@quota.internal.example:6379/0")
            return await call_next(context)

    app = BUILDERS["fastmcp"]()
    app.add_middleware(Quota())
    errscope.instrument(app, **telemetry.providers)
    async with Client(app._mcp_server, mode="legacy") as client:
        try:
            failed: CallToolResult | MCPError = await client.call_tool("get_order", {"order_id": "A-100"})
        except MCPError as exc:
            failed = exc
        ok = await client.call_tool("list_orders", {})
    wire = json.dumps(failed.model_dump(mode="json") if isinstance(failed, CallToolResult) else [failed.message, failed.data], default=str)
    for fragment in ("FAKE-REDIS-PW", "quota.internal"):
        assert fragment not in wire, wire
    assert "FAKE-REDIS-PW" not in everything_recorded(telemetry)  # the host may stay: it is the upstream's address
    assert "ERR-" in wire
    assert not ok.is_error
    span = next(s for s in tool_spans(telemetry) if s.attributes.get("gen_ai.tool.name") == "get_order")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["errscope.failure_class"] == "upstream_unavailable"


@pytest.mark.parametrize("style", ["lowlevel", "mcpserver", "fastmcp"])
async def test_j30_instrumenting_twice_gives_one_span_per_call(style: str, telemetry: CapturedTelemetry) -> None:
    """J30 (dhyansraj/mcp-mesh #1202, equinor/ert #10843, alibaba/loongsuite-python #150): instrumenting twice
    (an app factory and a plugin both call it) must not double spans, duration points or log records: one
    call is one SERVER span, one count, one ref."""
    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        result = await client.call_tool("get_order", {"order_id": "A-100"})
    assert result.is_error
    assert len(tool_spans(telemetry)) == 1, [s.name for s in tool_spans(telemetry)]
    points = [p for p in telemetry.histogram_points("mcp.server.operation.duration")
              if p.attributes.get("mcp.method.name") == "tools/call"]
    assert sum(p.count for p in points) == 1, [dict(p.attributes) for p in points]
    assert text_of(result).count("ERR-") == 1, text_of(result)
    assert len([r for r in telemetry.log_records if getattr(r, "errscope.error_ref", None) or "ERR-" in r.getMessage()]) <= 1


@pytest.mark.parametrize("style", ["lowlevel", "mcpserver", "fastmcp"])
async def test_j31_error_point_has_an_exemplar_of_its_trace(style: str, telemetry: CapturedTelemetry) -> None:
    """J31 (on-call path: a Prometheus alert on the error rate must lead to a trace; open-telemetry/
    opentelemetry-python exemplars are kept only for measurements recorded inside a sampled span's context):
    the failed call's duration point carries an exemplar whose trace and span ids are the SERVER span's."""
    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        await client.call_tool("get_order", {"order_id": "A-100"})
    (span,) = tool_spans(telemetry)
    (point,) = [p for p in telemetry.histogram_points("mcp.server.operation.duration")
                if p.attributes.get("mcp.method.name") == "tools/call"]
    assert point.attributes.get("errscope.failure_class") == span.attributes["errscope.failure_class"]
    assert [(e.trace_id, e.span_id) for e in point.exemplars] == [(span.context.trace_id, span.context.span_id)]


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j32_sync_tool_upstream_span_is_the_tools_child(style: str, telemetry: CapturedTelemetry) -> None:
    """J32 (Arize-ai/openinference and pydantic/logfire reports of orphan spans from sync tools: the SDKs run a sync
    tool in a worker thread, and a context not copied there loses the parent): a sync tool's HTTP call to its
    upstream is a CLIENT span under the tool's SERVER span, and the upstream's 503 lands on the tool span."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from tests.client.servers.app import serve

    async def inventory(request: Any) -> PlainTextResponse:
        return PlainTextResponse("Service Unavailable", status_code=503)

    upstream = Starlette(routes=[Route("/stock/{sku}", inventory)])
    server = BUILDERS[style]()
    async with serve(upstream) as base:

        def check_stock(sku: str) -> str:
            """A sync tool (run in a worker thread) that asks the inventory service."""
            response = httpx.get(f"{base}/stock/{sku}", timeout=5)
            response.raise_for_status()
            return response.text

        (server.tool if style == "fastmcp" else server.add_tool)(check_stock)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool("check_stock", {"sku": "SKU-1"})
    assert result.is_error
    (tool,) = tool_spans(telemetry)
    children = [s for s in telemetry.spans() if s.kind is SpanKind.CLIENT and s.attributes.get("http.response.status_code") == 503]
    assert len(children) == 1, [(s.name, dict(s.attributes)) for s in telemetry.spans()]
    assert children[0].parent is not None and children[0].parent.span_id == tool.context.span_id
    assert children[0].context.trace_id == tool.context.trace_id
    assert tool.attributes["errscope.upstream.status"] == "503"
    assert tool.attributes["errscope.failure_class"] == "upstream_unavailable"


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j40_result_that_breaks_the_tools_own_schema(style: str, telemetry: CapturedTelemetry) -> None:
    """J40 (modelcontextprotocol/python-sdk #1702 / PR #2227: output validation runs after the tool acted;
    tachyonmcp/tachyon #238; oaslananka/easyeda-mcp-pro #13): a tool whose return value breaks its declared
    output type is the server's bug, found after the side effect: an ``isError`` with a ref, status ERROR, not
    class ``invalid_input``, and no wording that blames the caller's arguments or shows pydantic's internals."""
    async def book_forecast_slot(city: str) -> Forecast:
        """Books a slot (the side effect), then returns a value its own output type rejects."""
        return {"city": city, "celsius": "warm"}  # type: ignore[return-value]

    server = BUILDERS[style]()
    (server.tool if style == "fastmcp" else server.add_tool)(book_forecast_slot)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        try:
            outcome: CallToolResult | MCPError = await client.call_tool("book_forecast_slot", {"city": "Oslo"})
        except MCPError as exc:
            outcome = exc
    assert isinstance(outcome, CallToolResult) and outcome.is_error, outcome
    text = text_of(outcome)
    assert "ERR-" in text
    for fragment in ("argument", "errors.pydantic.dev", "float_parsing", "input_value"):
        assert fragment not in text, text
    (span,) = tool_spans(telemetry)
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["errscope.failure_class"] != "invalid_input"


@pytest.mark.parametrize("style", ["lowlevel", "mcpserver", "fastmcp"])
async def test_j43_failure_log_record_is_emitted_in_its_spans_context(style: str, telemetry: CapturedTelemetry) -> None:
    """J43 (on-call path: Loki line → Tempo trace; open-telemetry/opentelemetry-python's ``LoggingHandler`` and
    Logfire stamp a record with the span current when it is emitted, so a record written after the span was
    detached lands with no trace id or another one): the failure record carries the ref and is emitted while
    the call's SERVER span is current."""
    import logging

    from opentelemetry import trace

    seen: list[tuple[Any, int, int]] = []

    class SpanStamp(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            context = trace.get_current_span().get_span_context()
            seen.append((record, context.trace_id, context.span_id))

    stamp = SpanStamp()
    logging.getLogger("errscope").addHandler(stamp)
    try:
        server = BUILDERS[style]()
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool("get_order", {"order_id": "A-100"})
    finally:
        logging.getLogger("errscope").removeHandler(stamp)
    (span,) = tool_spans(telemetry)
    ref = span.attributes["errscope.error_ref"]
    assert ref in text_of(result)
    stamped = [(t, s) for record, t, s in seen if ref in json.dumps({k: str(v) for k, v in record.__dict__.items()})]
    assert stamped == [(span.context.trace_id, span.context.span_id)], stamped


async def read_reports(telemetry: CapturedTelemetry) -> dict[str, MCPError]:
    """A masking FastMCP server whose resource template fails on purpose (``2026-13``) and by accident (other months)."""
    from fastmcp import FastMCP
    from fastmcp.exceptions import ResourceError

    app = FastMCP("reports", mask_error_details=True)

    @app.resource("reports://{month}")
    def report(month: str) -> str:
        if month == "2026-13":
            raise ResourceError("there is no month 13; months run from 01 to 12")
        raise RuntimeError("report store down: postgresql://rep:FAKE-REPORT-PW@reports.internal.example:5432/r")

    errscope.instrument(app, **telemetry.providers)
    answers: dict[str, MCPError] = {}
    async with Client(app._mcp_server, mode="legacy") as client:
        for month in ("2026-13", "2026-01"):
            with pytest.raises(MCPError) as raised:
                await client.read_resource(f"reports://{month}")
            answers[month] = raised.value
    return answers


async def test_j44_fastmcp_masking_on_resources(telemetry: CapturedTelemetry) -> None:
    """J44 (PrefectHQ/fastmcp PR #434: ``ResourceError`` is how an author says "tell the client this", every other
    exception is masked under ``mask_error_details``): with errscope instrumenting a masking FastMCP server, a
    resource template's ``ResourceError`` still reaches the client in its words, and another exception (holding a
    DSN) reaches it with neither its text nor its credentials."""
    answers = await read_reports(telemetry)
    assert "there is no month 13" in answers["2026-13"].message, answers["2026-13"].message
    masked = json.dumps([answers["2026-01"].message, answers["2026-01"].data], default=str)
    for fragment in ("FAKE-REPORT-PW", "report store down", "reports.internal"):
        assert fragment not in masked, masked
    assert "FAKE-REPORT-PW" not in everything_recorded(telemetry)


async def test_j44_resource_failure_has_a_quotable_ref(telemetry: CapturedTelemetry) -> None:
    """J44, the on-call half: a -32603 the server answers for a failed resource read is a server failure the user
    may report, so its message carries the ref that the span and log record have (DESIGN.md: error ref in the
    model-visible text), on FastMCP as on MCPServer."""
    answers = await read_reports(telemetry)
    refs = [s.attributes.get("errscope.error_ref") for s in telemetry.spans()
            if s.attributes.get("mcp.method.name") == "resources/read"]
    for month, answer in answers.items():
        assert answer.code == -32603
        assert any(ref and ref in answer.message for ref in refs), (month, answer.message, refs)


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j45_error_type_on_the_metric_is_a_closed_set(style: str, telemetry: CapturedTelemetry) -> None:
    """J45 (traceloop/openllmetry and open-telemetry/opentelemetry-python-contrib GenAI instrumentations setting
    ``error.type`` to the exception's class name; stacklok/toolhive #6169 on label cardinality): tools that raise
    exceptions of many different classes add no ``error.type`` label values: a tool's failure is ``tool_error``
    (DESIGN.md), its class goes to ``errscope.failure_class``."""
    made_up = [type(f"FakeVendor{uuid}Error", (Exception,), {}) for uuid in ("A1", "B2", "C3")]
    server = BUILDERS[style]()

    def raising(number: int, error: type[Exception]) -> Any:
        def tool(order_id: str) -> str:
            raise error(f"vendor call failed for {order_id}")
        tool.__name__ = f"vendor_call_{number}"
        return tool

    for number, error in enumerate(made_up):
        (server.tool if style == "fastmcp" else server.add_tool)(raising(number, error))
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        for number in range(len(made_up)):
            assert (await client.call_tool(f"vendor_call_{number}", {"order_id": "A-1"})).is_error
    points = [p for p in telemetry.histogram_points("mcp.server.operation.duration")
              if p.attributes.get("mcp.method.name") == "tools/call"]
    assert {p.attributes.get("error.type") for p in points} == {"tool_error"}, [dict(p.attributes) for p in points]
    assert all(e.__name__ not in json.dumps([dict(p.attributes) for p in points]) for e in made_up)
    assert {s.attributes.get("error.type") for s in tool_spans(telemetry)} == {"tool_error"}
