"""Real traffic for the dashboard tests: an errscope-instrumented MCP server and ToolClient, exporting OTLP.

Run as ``python -m tests.dashboards.feed --otlp http://127.0.0.1:PORT --service NAME``. It starts a local
HTTP upstream, serves an ``MCPServer`` instrumented with ``errscope.instrument`` in process, calls it
through ``errscope.client.ToolClient`` (in-memory transport) so both the server and the client
histograms are recorded by the real instrumentation, flushes the OTLP exporters and prints a JSON
summary of the logical calls it made. Every failure class, both channels, a -32603, upstream
statuses, client retries and a client timeout are produced; the tests assert on the series that
arrive in Prometheus through the Collector.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Annotated, Any

import anyio
import httpx
from mcp.server.mcpserver import Context
from pydantic import Field

from tests.status_upstream import status_upstream

UPSTREAM = {"url": ""}


async def _get(status: int) -> str:
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{UPSTREAM['url']}/status/{status}")
        response.raise_for_status()
        return "ok"


def build_server() -> Any:
    import errscope
    from mcp.server.mcpserver import MCPServer
    from mcp.shared.exceptions import MCPError
    from mcp_types import INTERNAL_ERROR, ToolAnnotations

    server = MCPServer("errscope-feed")

    @server.tool()
    async def get_order(order_id: str) -> str:
        """Fetch an order."""
        if order_id == "A-1":
            return "order A-1"
        raise errscope.NotFound(f"no order {order_id}")

    @server.tool()
    async def charge_card(amount: int) -> str:
        """Charge a card through the payment upstream (which answers 503)."""
        return await _get(503)

    # A read: the one tool the server declares safe to repeat, so the client retries it (issue 11).
    @server.tool(annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True))
    async def get_quote() -> str:
        """Ask the pricing upstream (which answers 429)."""
        return await _get(429)

    @server.tool()
    async def crash() -> str:
        """Fail with an exception the taxonomy does not map."""
        raise RuntimeError("kaboom: an unmapped failure")

    @server.tool()
    async def internal() -> str:
        """Fail on the protocol channel with -32603."""
        raise MCPError(INTERNAL_ERROR, "internal failure")

    @server.tool()
    async def read_secret() -> str:
        """Fail with a permission error."""
        raise PermissionError("access denied")

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep longer than the client waits."""
        await anyio.sleep(seconds)
        return "done"

    from errscope.idempotency import Idempotency, idempotency_key_of, keys_honoured

    idempotent = Idempotency()

    @server.tool()
    @keys_honoured
    async def create_ticket(title: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Create a ticket once per idempotency key; a repeat gets the stored result."""

        async def create(headers: dict[str, str]) -> str:
            return f"ticket {title}"

        key = idempotency_key_of(ctx)
        return await idempotent.run(key, tool="create_ticket", arguments={"title": title}, action=create)

    @server.tool()
    async def schedule(duration_min: Annotated[int, Field(ge=1, le=480)]) -> str:
        """Schedule something (arguments validated against the schema)."""
        return "scheduled"

    return server


# (tool, arguments, timeout seconds or None, repetitions)
PLAN: list[tuple[str, dict[str, Any], float | None, int]] = [
    ("get_order", {"order_id": "A-1"}, None, 6),
    ("get_order", {"order_id": "Z-9"}, None, 3),
    ("charge_card", {"amount": 5}, None, 2),
    ("get_quote", {}, None, 1),
    ("crash", {}, None, 2),
    ("internal", {}, None, 1),
    ("read_secret", {}, None, 1),
    ("schedule", {"duration_min": 0}, None, 1),
    ("slow", {"seconds": 1.5}, 0.3, 1),
]


ROUNDS = 2
"""The plan runs this many times, apart by more than two export intervals, so every series has a
sample before the last round's increments: ``rate()`` and ``increase()`` see the last round."""
EXPORT_INTERVAL_MS = 400
ROUND_GAP_S = 1.5


async def drive(otlp: str, service: str) -> dict[str, Any]:
    import logging
    import time

    from mcp.client._memory import InMemoryTransport
    from opentelemetry import metrics, trace
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    import errscope
    from errscope.client import RetryPolicy, ToolClient

    resource = Resource.create({"service.name": service})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{otlp}/v1/traces")))
    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=f"{otlp}/v1/metrics"), export_interval_millis=EXPORT_INTERVAL_MS
    )
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{otlp}/v1/logs")))
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    set_logger_provider(logger_provider)
    errscope_logger = logging.getLogger("errscope")
    errscope_logger.addHandler(LoggingHandler(level=logging.INFO, logger_provider=logger_provider))
    errscope_logger.setLevel(logging.INFO)

    server = errscope.instrument(build_server(), tracer_provider=tracer_provider, meter_provider=meter_provider)
    retry = RetryPolicy(max_attempts=2, budget=5.0, backoff_initial=0.01, backoff_max=0.05, jitter=0.0)
    calls: list[dict[str, Any]] = []
    async with ToolClient(
        lambda: InMemoryTransport(server),
        timeout=10.0,
        retry=retry,
        late_response_grace=0.1,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
    ) as client:
        for round_number in range(ROUNDS):
            last_round_started = time.time()
            for tool, arguments, timeout, repetitions in PLAN:
                for _ in range(repetitions):
                    result = await client.call_tool(tool, arguments, timeout=timeout)
                    calls.append(
                        {
                            "round": round_number,
                            "tool": tool,
                            "outcome": str(result.outcome),
                            "channel": None if result.channel is None else str(result.channel),
                            "failure_class": None if result.failure_class is None else str(result.failure_class),
                            "attempts": result.attempts,
                            "error_ref": getattr(result, "error_ref", None),
                        }
                    )
            # The same logical call sent twice with one key (a retry after a lost answer): the second is replayed.
            key = f"feed-ticket-{round_number}"
            for _ in range(2):
                result = await client.call_tool("create_ticket", {"title": "t"}, idempotency_key=key)
                calls.append({"round": round_number, "tool": "create_ticket", "outcome": str(result.outcome),
                              "channel": None, "failure_class": None, "attempts": result.attempts, "error_ref": None})
            await anyio.sleep(ROUND_GAP_S)  # the slow call finishes server-side; two exports happen
    meter_provider.force_flush()
    tracer_provider.force_flush()
    logger_provider.force_flush()
    finished = time.time()
    meter_provider.shutdown()
    tracer_provider.shutdown()
    logger_provider.shutdown()
    return {"service": service, "finished": finished, "last_round_started": last_round_started, "rounds": ROUNDS,
            "calls": calls}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--otlp", required=True, help="OTLP/HTTP base URL of the Collector")
    parser.add_argument("--service", default="errscope-feed")
    args = parser.parse_args()
    with status_upstream(retry_after="0") as url:
        UPSTREAM["url"] = url
        summary = anyio.run(drive, args.otlp, args.service)
    json.dump(summary, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
