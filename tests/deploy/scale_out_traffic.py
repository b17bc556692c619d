"""Tool calls for the scale-out tests: clients report to one agent, their servers to another.

Run as ``python -m tests.deploy.scale_out_traffic --client-otlp URL --server-otlp URL --calls N --out FILE``.
In one process, ``--servers`` ``errscope.instrument``-ed ``MCPServer`` instances (service ``<prefix>-<i>``)
are called through ``errscope.client.ToolClient`` over the SDK's in-memory transport. The client side has its
own TracerProvider and MeterProvider exporting OTLP/HTTP to ``--client-otlp`` (agent 1); each server has its
own exporting to ``--server-otlp`` (agent 2). Every tool calls a real local HTTP upstream (the
``opentelemetry-instrumentation-httpx`` child span) whose status decides the call's class.

What was sent is recorded next to the exporters (an in-memory exporter on every TracerProvider), so FILE holds
the ground truth: per trace its span ids by kind, its tool and class; per server and tool, the calls made.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx

from tests.status_upstream import status_upstream

TOOLS = ("orders", "payments", "inventory")
MIX = (200,) * 8 + (404, 403, 422, 429, 503, 418)
"""Upstream statuses, one per call in turn: 8 successes, then one failure of each class errscope maps HTTP onto
(not_found, permission_denied, invalid_input, rate_limited, upstream_unavailable, and 418 for unknown)."""
CYCLE = len(MIX) * len(TOOLS)
"""Calls after which every tool has met every status once (the two lengths are coprime)."""
CLIENT_SERVICE = "errscope-scale-client"
EXPORT_INTERVAL_MS = 500


def build_server(name: str, upstream_url: str, http: httpx.AsyncClient) -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name)

    async def call_upstream(status: int) -> str:
        response = await http.get(f"{upstream_url}/status/{status}")
        response.raise_for_status()
        return "done"

    for tool in TOOLS:
        server.tool(name=tool, description=f"Ask the {tool} upstream; its HTTP status decides the outcome.")(call_upstream)
    return server


class _Side:
    """One side's providers: OTLP/HTTP to its agent, plus an in-memory copy of every span (the ground truth)."""

    def __init__(self, service: str, otlp: str) -> None:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        resource = Resource.create({"service.name": service})
        self.sent = InMemorySpanExporter()
        self.tracer_provider = TracerProvider(resource=resource)
        # a queue large enough for the whole run: the SDK must not drop what the test then looks for
        self.tracer_provider.add_span_processor(BatchSpanProcessor(
            OTLPSpanExporter(endpoint=f"{otlp}/v1/traces"), max_queue_size=200_000, schedule_delay_millis=200))
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.sent))
        reader = PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=f"{otlp}/v1/metrics"),
                                               export_interval_millis=EXPORT_INTERVAL_MS)
        self.meter_provider = MeterProvider(resource=resource, metric_readers=[reader])

    def close(self) -> None:
        for provider in (self.meter_provider, self.tracer_provider):
            provider.force_flush()
            provider.shutdown()


async def drive(args: argparse.Namespace, upstream_url: str) -> dict[str, Any]:
    from mcp.client._memory import InMemoryTransport

    import errscope
    from errscope.client import ToolClient

    client_side = _Side(CLIENT_SERVICE, args.client_otlp)
    names = [f"{args.prefix}-{i}" for i in range(args.servers)]
    server_sides = [_Side(name, args.server_otlp) for name in names]
    calls: Counter[tuple[str, str, str]] = Counter()
    plan = enumerate(itertools.islice(zip(itertools.cycle(MIX), itertools.cycle(TOOLS), strict=False), args.calls))
    async with httpx.AsyncClient() as http, AsyncExitStack() as stack:
        clients = []
        for index, side in enumerate(server_sides):
            server = errscope.instrument(build_server(names[index], upstream_url, http),
                                         tracer_provider=side.tracer_provider, meter_provider=side.meter_provider)
            client = ToolClient(lambda server=server: InMemoryTransport(server), timeout=10.0, retry=None,
                                tracer_provider=client_side.tracer_provider, meter_provider=client_side.meter_provider)
            clients.append(await stack.enter_async_context(client))
        started = time.time()

        async def worker() -> None:
            for number, (status, tool) in plan:  # one shared iterator: each call is made once
                index = number // CYCLE % len(clients)  # whole cycles per server: every tool meets every status
                result = await clients[index].call_tool(tool, {"status": status})
                calls[(names[index], tool, str(result.failure_class or result.outcome))] += 1

        async with anyio.create_task_group() as workers:
            for _ in range(args.concurrency):
                workers.start_soon(worker)
    finished = time.time()
    for side in (client_side, *server_sides):
        side.close()
    return {"started": started, "finished": finished, "traces": _traces(client_side, server_sides),
            "calls": [{"service": s, "tool": t, "class": c, "count": n} for (s, t, c), n in sorted(calls.items())]}


def _traces(client_side: _Side, server_sides: list[_Side]) -> dict[str, dict[str, Any]]:
    """trace id (hex) -> span ids by role, the tool and the failure class (``ok`` for a success)."""
    from opentelemetry.trace import SpanKind

    from errscope._attributes import ERRSCOPE_FAILURE_CLASS

    traces: dict[str, dict[str, Any]] = {}
    spans = [(s, "client") for s in client_side.sent.get_finished_spans()]
    for side in server_sides:
        spans += [(s, "server" if s.kind is SpanKind.SERVER else "upstream") for s in side.sent.get_finished_spans()]
    for span, role in spans:
        if role == "upstream" and span.kind is not SpanKind.CLIENT:
            role = "other"
        trace = traces.setdefault(f"{span.context.trace_id:032x}", {"client": [], "server": [], "upstream": [], "other": []})
        trace[role].append(f"{span.context.span_id:016x}")
        if role == "server":
            trace["tool"] = span.attributes.get("gen_ai.tool.name")
            trace["class"] = span.attributes.get(ERRSCOPE_FAILURE_CLASS, "ok")
    return traces


def main() -> int:
    logging.disable(logging.CRITICAL)  # thousands of "tool call failed" console lines cost more than the calls
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client-otlp", required=True, help="OTLP/HTTP base URL of agent 1")
    parser.add_argument("--server-otlp", required=True, help="OTLP/HTTP base URL of agent 2")
    parser.add_argument("--calls", type=int, required=True)
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--prefix", default="errscope-scale", help="server i is service PREFIX-i")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    with status_upstream() as url:
        summary = anyio.run(drive, args, url)
    args.out.write_text(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
