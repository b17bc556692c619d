"""Server side of tests/heldout_cases.md, ninth round (J179-J190): what a tool raises or returns, classified.

Errors that mask others (a failing ``finally``, a cause chain that loops, a group holding ``SystemExit``), exceptions
that break the machinery around a tool (``StopIteration`` out of a sync tool, a result that is not JSON, ``None`` for
a declared output schema, a reserved JSON-RPC code), errors about an upstream's *answer* that are no fault of the
arguments (``JSONDecodeError``, ``UnicodeDecodeError``, pydantic's ``ValidationError``), a full disk and exhausted
memory, and a secret in a ``ToolError`` and in the tool's own ``logger.exception``.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument`` and the real SDK client in process (J181 and J185
also over streamable HTTP under uvicorn); the upstream is a real HTTP server on 127.0.0.1 read with httpx.
"""

from __future__ import annotations

import errno
import logging
import re
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import PARSE_ERROR, CallToolResult
from pydantic import BaseModel

import errscope
from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HttpUpstream, closed_port
from tests.server.conftest import Served
from tests.server.test_heldout_cases import REF, everything_recorded, serving, text_of
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TRANSPORTS = ["memory", "http"]
TOKEN = "ghp_FAKE0123456789abcdefghijklmnopqrstuv"


async def ping() -> str:
    """Liveness."""
    return "pong"


@asynccontextmanager
async def serving_http(style: str, telemetry: CapturedTelemetry, *tools: Callable[..., Any]) -> AsyncIterator[Served]:
    """Like ``serving``, over streamable HTTP: the catalogue server under uvicorn on 127.0.0.1, the SDK client by URL."""
    from tests.client.servers.app import serve

    server = BUILDERS[style]()
    for tool in tools:
        (server.tool if style == "fastmcp" else server.add_tool)(tool)
    errscope.instrument(server, **telemetry.providers)
    app = server.http_app(path="/mcp") if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")
    async with serve(app) as base, Client(f"{base}/mcp", mode="legacy") as client:
        yield Served(server, telemetry, client)


def over(transport: str, style: str, telemetry: CapturedTelemetry, *tools: Callable[..., Any]) -> Any:
    return serving_http(style, telemetry, *tools) if transport == "http" else serving(style, "legacy", telemetry, *tools)


def span_of(telemetry: CapturedTelemetry, tool: str) -> Any:
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == tool]
    return span


def exception_event(span: Any) -> dict[str, Any]:
    (event,) = [e for e in span.events if e.name == "exception"]
    return dict(event.attributes or {})


def assert_failed(result: Any, after: Any) -> str:
    """The call failed on the execution channel with a ref, and the next call on the same connection answered."""
    assert isinstance(result, CallToolResult) and result.is_error, result
    assert re.search(REF, text_of(result)), text_of(result)
    assert isinstance(after, CallToolResult) and not after.is_error and text_of(after) == "pong", after
    return text_of(result)


HTML_PAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>"  # a proxy's page, sent with 200
LATIN1_LABELLED_UTF8 = "Stra\u00dfe M\u00fcller".encode("latin-1")
FORECAST_WITH_WORDS = b'{"city": "Oslo", "temp_c": "warm"}'


@pytest.mark.parametrize("style", STYLES)
async def test_j179_a_failing_finally_masks_the_first_error(style: str, telemetry: CapturedTelemetry) -> None:
    """J179: the upstream refuses the connection; the tool's ``finally`` then fails too (closing a client that never
    opened). The masking ``RuntimeError`` has no rule; the class comes from the first error, and the refused connect
    is named in the span's exception event."""
    port = closed_port()

    async def sync_inventory(sku: str) -> str:
        """Pull stock levels."""
        try:
            async with httpx.AsyncClient(timeout=5) as client:
                return (await client.get(f"http://127.0.0.1:{port}/stock/{sku}")).text
        finally:
            raise RuntimeError("cannot close the inventory session: it was never opened")  # noqa: B012

    async with serving(style, "legacy", telemetry, sync_inventory, ping) as served:
        result = await served.call("sync_inventory", {"sku": "A-1"})
        after = await served.call("ping")
    assert_failed(result, after)
    span = span_of(telemetry, "sync_inventory")
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    event = exception_event(span)
    assert "ConnectError" in event["exception.type"] + event["exception.stacktrace"], event


class RetryFailed(Exception):
    """A home-made retry helper's error: it keeps the last attempt's error as its cause."""


@pytest.mark.parametrize("style", STYLES)
async def test_j180_a_cause_chain_that_loops(style: str, telemetry: CapturedTelemetry) -> None:
    """J180: a retry helper reuses exception objects, so ``a.__cause__ is b`` and ``b.__cause__ is a``. Walking the
    chain must end: the call fails with a ref within the test's time, the span has its exception event, and the
    server answers the next call."""

    async def reconcile(batch: str) -> str:
        """Reconcile a batch."""
        last = RetryFailed(f"batch {batch}: gave up")
        attempt = ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")
        last.__cause__, attempt.__cause__ = attempt, last
        raise last

    async with serving(style, "legacy", telemetry, reconcile, ping) as served:
        with anyio.fail_after(20):
            result = await served.call("reconcile", {"batch": "b-7"})
            after = await served.call("ping")
    assert_failed(result, after)
    span = span_of(telemetry, "reconcile")
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert exception_event(span)["exception.stacktrace"], exception_event(span)


class DeadlineExceeded(BaseException):
    """A timeout library's exception. gevent's ``Timeout`` and func_timeout's ``FunctionTimedOut`` derive from
    ``BaseException`` on purpose, "so that ``except Exception`` does not catch it" (neither is a dependency here)."""


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("style", STYLES)
async def test_j181_a_base_exception_from_a_tool_alone_and_in_a_group(style: str, transport: str,
                                                                       telemetry: CapturedTelemetry) -> None:
    """J181: a tool fans out in an anyio task group; one branch's connection is refused, the other's deadline
    library raises its ``BaseException``. The group is a ``BaseExceptionGroup``, no ``Exception``: it passed every
    ``except Exception`` and ended the session. Another tool raises the deadline alone. Each call fails with a ref,
    the group's class is the refused connection's (the deadline is no failure class of its own), and the server keeps
    serving."""
    port = closed_port()
    fetched = anyio.Event()

    async def over_deadline() -> None:
        # The library's own wait, which the group cannot cancel; it ends once the fetch has failed, so both branches'
        # exceptions are in the group whatever the machine's load (a fixed 0.3 s lost the race under load).
        with anyio.CancelScope(shield=True):
            await fetched.wait()
        raise DeadlineExceeded("export took longer than 0.3 s")

    async def fetch() -> None:
        try:
            async with httpx.AsyncClient(timeout=5) as client:
                await client.get(f"http://127.0.0.1:{port}/export")
        finally:
            fetched.set()

    async def export_weekly(name: str) -> str:
        """Export a report."""
        async with anyio.create_task_group() as group:
            group.start_soon(over_deadline)
            group.start_soon(fetch)
        return "done"

    async def render_chart(name: str) -> str:
        """Render a chart."""
        raise DeadlineExceeded("render took longer than 2 s")

    async with over(transport, style, telemetry, export_weekly, render_chart, ping) as served:
        grouped = await served.call("export_weekly", {"name": "weekly"})
        alone = await served.call("render_chart", {"name": "sales"})
        after = await served.call("ping")
    text = assert_failed(grouped, after)
    assert "sub-exception" not in text, text
    assert_failed(alone, after)
    assert span_of(telemetry, "export_weekly").attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable"
    assert exception_event(span_of(telemetry, "render_chart"))["exception.type"].endswith("DeadlineExceeded")


@pytest.mark.parametrize("style", STYLES)
async def test_j182_stop_iteration_out_of_a_sync_tool(style: str, telemetry: CapturedTelemetry) -> None:
    """J182: a sync tool takes ``next(...)`` of an empty query result. A ``StopIteration`` cannot cross a thread's
    future or a coroutine (it turns into ``TypeError``/``RuntimeError``, or silently ends a generator). The call fails
    with a ref, the span names ``StopIteration`` as the root cause, and the server answers the next call."""

    def first_overdue(customer: str) -> str:
        """The customer's first overdue invoice."""
        rows = sqlite3.connect(":memory:").execute("SELECT 'inv-1' WHERE 0")
        return str(next(iter(rows)))

    async with serving(style, "legacy", telemetry, first_overdue, ping) as served:
        result = await served.call("first_overdue", {"customer": "c-9"})
        after = await served.call("ping")
    assert_failed(result, after)
    span = span_of(telemetry, "first_overdue")
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "unknown" and span.attributes.get(ERRSCOPE_ERROR_REF)
    assert exception_event(span)["exception.type"] == "StopIteration", exception_event(span)


@pytest.mark.parametrize("style", STYLES)
async def test_j183_a_result_that_is_not_json(style: str, telemetry: CapturedTelemetry) -> None:
    """J183: a tool returns the database cursor instead of its rows. The result cannot be serialised; the call fails
    on the execution channel with a ref (no -32603, no dropped connection), class ``unknown``, and the next call works."""

    def recent_orders(customer: str) -> Any:
        """Recent orders."""
        return {"rows": sqlite3.connect(":memory:").execute("SELECT 1")}

    async with serving(style, "legacy", telemetry, recent_orders, ping) as served:
        result = await served.call("recent_orders", {"customer": "c-9"})
        after = await served.call("ping")
    assert_failed(result, after)
    assert span_of(telemetry, "recent_orders").attributes[ERRSCOPE_FAILURE_CLASS] == "unknown"


class Forecast(BaseModel):
    city: str
    temp_c: float


@pytest.mark.parametrize("style", STYLES)
async def test_j184_none_for_a_declared_output_schema(style: str, telemetry: CapturedTelemetry) -> None:
    """J184: ``get_forecast -> Forecast`` returns ``None`` when the station has no reading (an ``Optional`` forgotten in
    the annotation). The result breaks the declared ``outputSchema``: ``isError``, class ``unknown``, the text says the
    tool produced an invalid result (never "fix the arguments"), a ref; the next call works."""

    async def get_forecast(city: str) -> Forecast:
        """Forecast for a city."""
        return None  # type: ignore[return-value]

    async with serving(style, "legacy", telemetry, get_forecast, ping) as served:
        result = await served.call("get_forecast", {"city": "Oslo"})
        after = await served.call("ping")
    text = assert_failed(result, after)
    assert "argument" not in text.lower() and "invalid result" in text, text
    assert span_of(telemetry, "get_forecast").attributes[ERRSCOPE_FAILURE_CLASS] == "unknown"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("style", STYLES)
async def test_j185_a_tool_raising_a_reserved_parse_error(style: str, transport: str, telemetry: CapturedTelemetry) -> None:
    """J185: a tool that could not parse its upstream's reply raises ``MCPError(PARSE_ERROR, ...)``. JSON-RPC 2.0 §5.1
    reserves -32700 for "invalid JSON was received by the server": the request parsed, so the client must not be told
    its JSON was broken (nor that its input was invalid). The call gets no -32700; it fails on the execution channel
    with a ref, class ``unknown``, and the next call works."""

    async def import_feed(url: str) -> str:
        """Import a partner feed."""
        raise MCPError(PARSE_ERROR, "could not parse the partner feed")

    async with over(transport, style, telemetry, import_feed, ping) as served:
        result = await served.call("import_feed", {"url": "https://feeds.example/x"})
        after = await served.call("ping")
    assert not (isinstance(result, MCPError) and result.code == PARSE_ERROR), result
    assert_failed(result, after)
    assert span_of(telemetry, "import_feed").attributes[ERRSCOPE_FAILURE_CLASS] == "unknown"


@pytest.mark.parametrize("style", STYLES)
async def test_j186_an_html_page_where_json_was_expected(style: str, telemetry: CapturedTelemetry) -> None:
    """J186: the upstream (a proxy in front of it) answers 200 with an HTML page; ``response.json()`` raises
    ``json.JSONDecodeError``, a ``ValueError``. The arguments were fine: never ``invalid_input`` or "fix the
    arguments"; the span names ``JSONDecodeError``."""
    with HttpUpstream() as up:
        base = up.scripted(200, HTML_PAGE, {"Content-Type": "text/html"})

        async def get_rates(currency: str) -> Any:
            """Exchange rates."""
            async with httpx.AsyncClient(timeout=5) as client:
                return (await client.get(f"{base}/rates")).json()

        async with serving(style, "legacy", telemetry, get_rates, ping) as served:
            result = await served.call("get_rates", {"currency": "EUR"})
            after = await served.call("ping")
    text = assert_failed(result, after)
    assert "argument" not in text.lower(), text
    span = span_of(telemetry, "get_rates")
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] != "invalid_input", dict(span.attributes)
    assert exception_event(span)["exception.type"].endswith("JSONDecodeError"), exception_event(span)


@pytest.mark.parametrize("style", STYLES)
async def test_j187_latin1_bytes_labelled_utf8(style: str, telemetry: CapturedTelemetry) -> None:
    """J187: the upstream labels Latin-1 bytes UTF-8; the tool's strict ``decode`` raises ``UnicodeDecodeError`` (a
    ``ValueError``). Not ``invalid_input``; the undecodable bytes are no part of the model text."""
    with HttpUpstream() as up:
        base = up.scripted(200, LATIN1_LABELLED_UTF8, {"Content-Type": "text/plain; charset=utf-8"})

        async def get_address(customer: str) -> str:
            """A customer's street address."""
            async with httpx.AsyncClient(timeout=5) as client:
                return (await client.get(f"{base}/address")).content.decode("utf-8")

        async with serving(style, "legacy", telemetry, get_address, ping) as served:
            result = await served.call("get_address", {"customer": "c-1"})
            after = await served.call("ping")
    text = assert_failed(result, after)
    assert "argument" not in text.lower() and "\\xdf" not in text and "0xdf" not in text, text
    span = span_of(telemetry, "get_address")
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] != "invalid_input", dict(span.attributes)
    assert exception_event(span)["exception.type"] == "UnicodeDecodeError", exception_event(span)


@pytest.mark.parametrize("style", STYLES)
async def test_j188_pydantic_validation_of_an_upstream_answer(style: str, telemetry: CapturedTelemetry) -> None:
    """J188: the tool parses its upstream's JSON with a pydantic model and the upstream sent ``"temp_c": "warm"``.
    The ``ValidationError`` is about upstream data, raised in the tool: class ``unknown``, not ``invalid_input``, and
    the model is not told to fix its arguments."""
    with HttpUpstream() as up:
        base = up.scripted(200, FORECAST_WITH_WORDS, {"Content-Type": "application/json"})

        async def station_reading(city: str) -> str:
            """The latest station reading."""
            async with httpx.AsyncClient(timeout=5) as client:
                reading = Forecast.model_validate((await client.get(f"{base}/reading")).json())
            return f"{reading.temp_c} C"

        async with serving(style, "legacy", telemetry, station_reading, ping) as served:
            result = await served.call("station_reading", {"city": "Oslo"})
            after = await served.call("ping")
    text = assert_failed(result, after)
    assert "argument" not in text.lower() and "temp_c" not in text, text
    span = span_of(telemetry, "station_reading")
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "unknown", dict(span.attributes)
    assert exception_event(span)["exception.type"] .endswith("ValidationError"), exception_event(span)


@pytest.mark.parametrize("style", STYLES)
async def test_j189_a_full_disk_and_exhausted_memory(style: str, telemetry: CapturedTelemetry, tmp_path: Any) -> None:
    """J189: writing an export fails with ``OSError(ENOSPC)`` (a local disk, not a network errno, not a permission),
    and a tool asks for more memory than there is (a real ``MemoryError``). Both fail with a ref, class ``unknown``
    (neither is the upstream's nor the caller's), and the server answers the next call."""
    target = tmp_path / "export.csv"

    def write_export(rows: int) -> str:
        """Write an export file."""
        with target.open("w") as sink:
            sink.write("id\n")
            raise OSError(errno.ENOSPC, "No space left on device", str(target))  # a full disk cannot be made here

    def build_matrix(size: int) -> int:
        """Build a dense matrix."""
        return len(bytearray(1 << 62))  # the allocator refuses: a real MemoryError

    async with serving(style, "legacy", telemetry, write_export, build_matrix, ping) as served:
        disk = await served.call("write_export", {"rows": 10})
        memory = await served.call("build_matrix", {"size": 10})
        after = await served.call("ping")
    assert_failed(disk, after)
    assert_failed(memory, after)
    assert span_of(telemetry, "write_export").attributes[ERRSCOPE_FAILURE_CLASS] == "unknown"
    assert span_of(telemetry, "build_matrix").attributes[ERRSCOPE_FAILURE_CLASS] == "unknown"
    assert exception_event(span_of(telemetry, "build_matrix"))["exception.type"] == "MemoryError"


@pytest.mark.parametrize("style", STYLES)
async def test_j190_a_secret_in_a_tool_error_and_in_logger_exception(style: str, telemetry: CapturedTelemetry,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    """J190: a tool logs its failure with ``logger.exception("... %s", headers)`` (the token in the arguments and in the
    traceback's exception text), then raises the framework's ``ToolError`` with the token in its message, meant for
    the model. The model text keeps the message's words but not the token; no span, event or log record holds it."""
    if style == "fastmcp":
        from fastmcp.exceptions import ToolError
    else:
        from mcp.server.mcpserver.exceptions import ToolError
    log = logging.getLogger("billing.refunds")

    async def refund_order(order_id: str) -> str:
        """Refund an order."""
        headers = {"Authorization": f"Bearer {TOKEN}"}
        try:
            raise ConnectionRefusedError(f"refused with headers {headers}")
        except ConnectionRefusedError:
            log.exception("refund of %s failed, headers=%s", order_id, headers)
            raise ToolError(f"refund of {order_id} was refused by the payment API (token {TOKEN})") from None

    caplog.set_level(logging.INFO)
    async with serving(style, "legacy", telemetry, refund_order, ping) as served:
        result = await served.call("refund_order", {"order_id": "ord_7"})
        after = await served.call("ping")
    text = assert_failed(result, after)
    assert "refused by the payment API" in text and TOKEN not in text, text
    assert TOKEN not in everything_recorded(telemetry)
    assert "refund of ord_7 failed" in caplog.text and TOKEN not in caplog.text
