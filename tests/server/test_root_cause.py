"""The three server styles give the same answers to output-schema and exception-chain cases.

Each tool is written once and served as a low-level ``Server`` (which declares the same schemas
and dispatches by name), an ``MCPServer`` and a FastMCP app, over a real SDK client on both
protocol eras. The downstream cases run a second, real ``MCPServer`` that the tool reaches
through ``mcp.Client`` in memory.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import httpx
import pydantic
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

import errscope
from errscope._refs import ERROR_REF_PATTERN
from errscope.testing import CapturedTelemetry
from tests.server.conftest import ERAS, STYLES, Served

pytestmark = pytest.mark.anyio

FAKE_TOKEN = "Bearer FAKE-eyJhbGciOiJIUzI1NiJ9.FAKE-PAYLOAD.FAKE-SIG"


class Weather(pydantic.BaseModel):
    temp_c: float


def _downstream() -> MCPServer:
    """The MCP server a proxy tool forwards to: one slow tool."""
    downstream = MCPServer("downstream")

    @downstream.tool()
    async def slow() -> str:
        await anyio.sleep(5)
        return "late"

    return downstream


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def weather_wrong_type() -> Weather:
    """Report the weather: the upstream said "warm" where a number belongs."""
    return {"temp_c": "warm"}  # type: ignore[return-value]


async def weather_no_structure() -> Weather:
    """Report the weather as text only, though the tool declares a structured result."""
    return CallToolResult(content=[TextContent(type="text", text="warm")])  # type: ignore[return-value]


async def weather_ok() -> Weather:
    """Report the weather correctly."""
    return Weather(temp_c=21.5)


async def parse_upstream() -> str:
    """Parse an upstream payload into a model: the upstream's data breaks it, not the arguments."""
    Weather.model_validate({"temp_c": "warm"})
    return "unreachable"


async def refund_order(order_id: str) -> str:
    """Crash with a secret in the message, wrapped by the SDK (the issue's refund_order)."""
    raise RuntimeError(f"refund of {order_id} failed: upstream rejected Authorization: {FAKE_TOKEN}")


async def hidden_connect() -> str:
    """Hide a refused connection behind ``raise ... from None``: the suppressed context still explains it."""
    try:
        with socket.create_connection(("127.0.0.1", _closed_port()), timeout=2):
            pass
    except ConnectionRefusedError:
        raise LookupError("payments backend lookup failed") from None
    return "unreachable"


async def grouped_failure() -> str:
    """Report a batch's failures as one group: a plain bug and a real refused HTTP connection."""
    failures: list[Exception] = [KeyError("not-meaningful")]
    try:
        async with httpx.AsyncClient() as client:
            await client.get(f"http://127.0.0.1:{_closed_port()}/", timeout=2)
    except httpx.ConnectError as exc:
        failures.append(exc)
    raise ExceptionGroup("batch failed", failures)


async def proxy_timeout() -> str:
    """Forward to a downstream MCP server whose tool outlives the client's read timeout (-32001)."""
    async with Client(_downstream(), read_timeout_seconds=0.2) as client:
        result = await client.call_tool("slow", {})
    return str(result.content)


async def proxy_missing_resource() -> str:
    """Read a resource the downstream does not have: its -32602 answer is the tool's failure."""
    async with Client(_downstream()) as client:
        result = await client.read_resource("file:///missing")
    return str(result.contents)


TOOLS = [
    weather_wrong_type,
    weather_no_structure,
    weather_ok,
    parse_upstream,
    refund_order,
    hidden_connect,
    grouped_failure,
    proxy_timeout,
    proxy_missing_resource,
]


def _mcpserver() -> MCPServer:
    server = MCPServer("chains")
    for tool in TOOLS:
        server.add_tool(tool)
    return server


def _lowlevel() -> Any:
    """Same names and schemas (from the MCPServer twin); the handler returns what the tool returned."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import ListToolsResult

    reference = _mcpserver()
    functions: dict[str, Callable[..., Awaitable[Any]]] = {tool.__name__: tool for tool in TOOLS}

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=await reference.list_tools())

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        result = await functions[params.name](**(params.arguments or {}))
        if isinstance(result, CallToolResult):
            return result
        if isinstance(result, pydantic.BaseModel | dict):
            structured = result.model_dump() if isinstance(result, pydantic.BaseModel) else result
            return CallToolResult(content=[TextContent(type="text", text=json.dumps(structured))], structured_content=structured)
        return CallToolResult(content=[TextContent(type="text", text=str(result))])

    return Server("chains", on_list_tools=list_tools, on_call_tool=call_tool)


def _fastmcp() -> Any:
    from fastmcp import FastMCP

    app = FastMCP("chains")
    for tool in TOOLS:
        app.tool(tool)
    return app


BUILD = {"lowlevel": _lowlevel, "mcpserver": _mcpserver, "fastmcp": _fastmcp}


@pytest.fixture(params=STYLES)
async def served(request: pytest.FixtureRequest, era: str) -> AsyncIterator[Served]:
    with CapturedTelemetry.installed() as telemetry:
        server = BUILD[request.param]()
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if request.param == "fastmcp" else server
        async with Client(target, mode=era) as client:  # type: ignore[arg-type]
            yield Served(server, telemetry, client)


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


def _exception_event(span: Any) -> dict[str, Any]:
    (event,) = [e for e in span.events if e.name == "exception"]
    return dict(event.attributes)


class TestOutputSchema:
    @pytest.mark.parametrize(
        ("tool", "detail"),
        [
            ("weather_wrong_type", "`structuredContent.temp_c` must be a number."),
            ("weather_no_structure", "`structuredContent` is required."),
        ],
    )
    async def test_invalid_result_is_not_a_success(self, served: Served, tool: str, detail: str) -> None:
        """A result that breaks the declared outputSchema is isError, class unknown, never invalid_input."""
        result = await served.call(tool)
        assert isinstance(result, CallToolResult) and result.is_error
        ref = result.meta["io.errscope/error_ref"]
        assert _text(result) == f"{tool} produced an invalid result. Ref {ref}"
        assert result.meta["io.errscope/failure_class"] == "unknown"
        span = served.span()
        assert span.attributes["errscope.failure_class"] == "unknown"
        assert span.attributes["errscope.failure_reason"] == "invalid_result"
        assert span.attributes["error.type"] == "tool_error"
        (record,) = served.telemetry.log_records
        assert getattr(record, "errscope.failure_detail") == detail
        assert "warm" not in getattr(record, "errscope.failure_detail")  # the value is never echoed

    async def test_valid_result_passes(self, served: Served) -> None:
        result = await served.call("weather_ok")
        assert isinstance(result, CallToolResult) and not result.is_error
        assert result.structured_content == {"temp_c": 21.5}
        assert "errscope.failure_class" not in served.span().attributes

    async def test_pydantic_error_inside_the_tool_is_not_invalid_input(self, served: Served) -> None:
        """Only argument validation is invalid_input: upstream data breaking a model is the tool's failure."""
        result = await served.call("parse_upstream")
        assert isinstance(result, CallToolResult) and result.is_error
        assert result.meta["io.errscope/failure_class"] == "unknown"
        assert "Fix the arguments" not in _text(result)
        assert _exception_event(served.span())["exception.type"] == "pydantic_core.ValidationError"


class TestRootCause:
    async def test_wrapped_crash_records_the_real_exception(self, served: Served) -> None:
        """The root type and scrubbed message are on the span's exception event and the log, not the model text."""
        result = await served.call("refund_order", {"order_id": "A-7"})
        assert isinstance(result, CallToolResult) and result.is_error
        text = _text(result)
        assert "RuntimeError" not in text and "FAKE-PAYLOAD" not in text
        span = served.span()
        event = _exception_event(span)
        assert event["exception.type"] == "RuntimeError"
        assert event["exception.message"].startswith("refund of A-7 failed")
        assert "FAKE-PAYLOAD" not in event["exception.message"] and "FAKE-PAYLOAD" not in event["exception.stacktrace"]
        assert "in refund_order" in event["exception.stacktrace"]
        fingerprint = span.attributes["errscope.error.fingerprint"]
        assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
        (record,) = served.telemetry.log_records
        assert getattr(record, "exception.type") == "RuntimeError"
        assert getattr(record, "errscope.error.fingerprint") == fingerprint
        assert "FAKE-PAYLOAD" not in getattr(record, "exception.stacktrace")

    async def test_fingerprint_is_stable_and_tells_failures_apart(self, served: Served) -> None:
        """Same root and path, other argument values: one fingerprint. Another failure: another one."""
        for order_id in ("A-1", "B-22222"):
            await served.call("refund_order", {"order_id": order_id})
        await served.call("parse_upstream")
        spans = [s for s in served.telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
        prints = [s.attributes["errscope.error.fingerprint"] for s in spans]
        assert prints[0] == prints[1] != prints[2]
        metric_labels = {k for point in served.telemetry.histogram_points("mcp.server.operation.duration") for k in point.attributes}
        assert "errscope.error.fingerprint" not in metric_labels

    async def test_suppressed_context_still_classifies(self, served: Served) -> None:
        """``raise ... from None`` hides the refused connection from the model, not from the walk."""
        result = await served.call("hidden_connect")
        assert isinstance(result, CallToolResult) and result.is_error
        assert result.meta["io.errscope/failure_class"] == "upstream_unavailable"
        assert _exception_event(served.span())["exception.type"] == "ConnectionRefusedError"

    async def test_exception_group_member_decides(self, served: Served) -> None:
        """A task group's failure is classified by the member a rule knows; its root is below that member."""
        result = await served.call("grouped_failure")
        assert isinstance(result, CallToolResult) and result.is_error
        assert result.meta["io.errscope/failure_class"] == "upstream_unavailable"
        assert _exception_event(served.span())["exception.type"] != "KeyError"


class TestClientInsideTheTool:
    async def test_downstream_timeout_is_an_execution_failure(self, served: Served) -> None:
        """A downstream MCP client's -32001 is an isError result, upstream_unavailable; not a protocol error."""
        result = await served.call("proxy_timeout")
        assert isinstance(result, CallToolResult), result
        assert result.is_error and result.meta["io.errscope/failure_class"] == "upstream_unavailable"
        assert ERROR_REF_PATTERN.search(_text(result))
        span = served.span()
        assert span.attributes["errscope.channel"] == "execution"
        # The SDK raises its -32001 from None over anyio's bare TimeoutError: the SDK's error, which a
        # rule knows and which says what timed out, is the root, not the empty builtin under it.
        assert _exception_event(span)["exception.type"] == "mcp.shared.exceptions.MCPError"

    async def test_downstream_protocol_error_is_the_tools_failure(self, served: Served) -> None:
        """The downstream's own protocol error (-32602) is an isError result, classified by its code."""
        result = await served.call("proxy_missing_resource")
        assert isinstance(result, CallToolResult), result
        assert result.is_error and result.meta["io.errscope/failure_class"] == "invalid_input"
        assert served.span().attributes["errscope.channel"] == "execution"


async def test_tool_raising_mcperror_on_purpose_stays_a_protocol_error() -> None:
    """The documented way: an ``MCPError`` raised by the tool's own code keeps its code (low-level, MCPServer)."""
    server = MCPServer("purpose")

    @server.tool()
    async def refuse() -> str:
        raise MCPError(-32099, "not in this state")

    with CapturedTelemetry.installed() as telemetry:
        errscope.instrument(server, **telemetry.providers)
        async with Client(server) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("refuse", {})
    assert caught.value.code == -32099


@pytest.mark.parametrize("style", STYLES)
async def test_unknown_prompt_and_resource_are_invalid_params(style: str) -> None:
    """-32602 and status unset on every style: a caller's typo must not trip the -32603 alert."""
    from opentelemetry.trace import StatusCode

    with CapturedTelemetry.installed() as telemetry:
        server = BUILD[style]()

        if style == "lowlevel":  # a low-level server with prompts and resources whose handlers say "no such"
            from mcp.server.lowlevel.server import Server

            async def get_prompt(ctx: Any, params: Any) -> Any:
                raise errscope.NotFound(f"no prompt {params.name}")

            async def read_resource(ctx: Any, params: Any) -> Any:
                raise FileNotFoundError(str(params.uri))

            server = Server("chains", on_get_prompt=get_prompt, on_read_resource=read_resource)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target) as client:
            for method, ask in (
                ("prompts/get", lambda: client.get_prompt("nope", {})),
                ("resources/read", lambda: client.read_resource("file:///nope")),
            ):
                with pytest.raises(MCPError) as caught:
                    await ask()
                assert caught.value.code == -32602, (method, caught.value)
                (span,) = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == method]
                assert span.status.status_code is StatusCode.UNSET


async def test_root_cause_is_built_for_whichever_sink_keeps_it() -> None:
    """An unsampled span gets no exception event, yet the failure log still carries the stack trace;
    with that log disabled too, the call is still answered with its ref (nothing is built for nobody)."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    server = MCPServer("unsampled")
    server.add_tool(refund_order)
    with CapturedTelemetry.installed() as telemetry:
        errscope.instrument(
            server,
            tracer_provider=TracerProvider(sampler=ALWAYS_OFF),
            meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]),
        )
        async with Client(server) as client:
            logged = await client.call_tool("refund_order", {"order_id": "A-1"})
            errscope_logger = logging.getLogger("errscope")
            level = errscope_logger.level
            errscope_logger.setLevel(logging.CRITICAL)
            try:
                silent = await client.call_tool("refund_order", {"order_id": "A-2"})
            finally:
                errscope_logger.setLevel(level)
        records = telemetry.log_records
    assert logged.is_error and silent.is_error
    assert len(records) == 1  # the second failure was not logged
    assert getattr(records[0], "errscope.error_ref") in _text(logged)
    assert "in refund_order" in getattr(records[0], "exception.stacktrace")
    assert ERROR_REF_PATTERN.search(_text(silent))
