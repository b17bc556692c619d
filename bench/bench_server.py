"""Server-side overhead: in-memory round trip of a trivial tool, errscope vs the SDK's own telemetry.

Configurations, all served in-process through the real SDK client (``mcp.Client(server)``) with the
same SDK tracer and meter providers installed globally (spans go to a processor that drops them):

- ``bare``: the ``mcp`` SDK with its ``OpenTelemetryMiddleware`` removed (no telemetry);
- ``builtin``: the SDK's default ``OpenTelemetryMiddleware``;
- ``errscope``: ``errscope.instrument(server)``;
- ``fastmcp_native`` / ``fastmcp_errscope``: FastMCP 4 with its native telemetry vs errscope.

Success path: the tool returns a short text. Failure path: it raises with a 1 KB message. Calls
alternate between the configurations one by one; each figure is the median microseconds per call.
"""

from __future__ import annotations

import logging
import os
import statistics
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

import errscope
from errscope import _logfilter

CALLS = int(os.environ.get("BENCH_CALLS", "1000"))
MESSAGE = "upstream said: " + "x" * 1009  # 1 KB


class _Drop(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        return SpanExportResult.SUCCESS


async def ok() -> str:
    """Succeed."""
    return "ok"


async def fail() -> str:
    """Fail with a 1 KB message."""
    raise RuntimeError(MESSAGE)


def _mcpserver(kind: str) -> Any:
    server = MCPServer("bench")
    server.add_tool(ok)
    server.add_tool(fail)
    if kind == "bare":
        server.middleware[:] = [m for m in server.middleware if type(m).__name__ != "OpenTelemetryMiddleware"]
    elif kind == "errscope":
        errscope.instrument(server, capture_httpx=False)
    return server


def _fastmcp(kind: str) -> Any:
    import fastmcp

    app = fastmcp.FastMCP("bench")
    app.tool(ok)
    app.tool(fail)
    if kind == "fastmcp_errscope":
        errscope.instrument(app, capture_httpx=False)
    return app


async def _measure(targets: dict[str, tuple[Any, Callable[[], None]]], calls: int) -> dict[str, list[float]]:
    """Per-call latencies in µs, interleaved call by call so load drifts hit every configuration alike."""
    samples: dict[str, list[float]] = {f"{k}/{t}": [] for k in targets for t in ("ok", "fail")}
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(Client(target)) for name, (target, _) in targets.items()}
        for round_ in range(calls + 20):  # 20 warm-up rounds: caches, validators, first-call imports
            for name, (_, before) in targets.items():
                before()
                for tool in ("ok", "fail"):
                    started = time.perf_counter()
                    await clients[name].call_tool(tool, {})
                    if round_ >= 20:
                        samples[f"{name}/{tool}"].append((time.perf_counter() - started) * 1e6)
    return samples


def run() -> dict[str, Any]:
    trace.set_tracer_provider(provider := TracerProvider())
    provider.add_span_processor(SimpleSpanProcessor(_Drop()))
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    import fastmcp

    def process_state(mode: str, *, with_errscope: bool) -> Callable[[], None]:
        """What is process-wide is set before each configuration's calls as its user would have it:
        errscope switches FastMCP's own spans off, and its log scrubbing (of the SDK's crash
        records among others) exists only in a process that imported errscope."""

        def set_state() -> None:
            fastmcp.settings.telemetry_mode = mode
            _logfilter.scrub_logs(enabled=with_errscope)

        return set_state

    targets = {
        "bare": (_mcpserver("bare"), process_state("native", with_errscope=False)),
        "builtin": (_mcpserver("builtin"), process_state("native", with_errscope=False)),
        "errscope": (_mcpserver("errscope"), process_state("native", with_errscope=True)),
        "fastmcp_native": (_fastmcp("fastmcp_native")._mcp_server, process_state("native", with_errscope=False)),
        "fastmcp_errscope": (_fastmcp("fastmcp_errscope")._mcp_server, process_state("off", with_errscope=True)),
    }
    # Every record is rendered as a server's log would have it, by the standard library's own
    # handler and formatter into /dev/null: MCPServer and FastMCP install rich console handlers,
    # whose rendering would dominate every failure-path figure; a NullHandler would render nothing,
    # which no deployed server does (the SDK's crash record carries the traceback it formats).
    with open(os.devnull, "w") as sink:
        for name in ("", "fastmcp"):
            logging.getLogger(name).handlers = [logging.StreamHandler(sink)]  # FastMCP's does not propagate
        samples = anyio.run(_measure, targets, CALLS)
    us = {key: statistics.median(values) for key, values in samples.items()}
    return {
        "us_per_call": {key: round(value, 1) for key, value in us.items()},
        "success_errscope_vs_builtin": round(us["errscope/ok"] / us["builtin/ok"], 3),
        "success_errscope_vs_bare": round(us["errscope/ok"] / us["bare/ok"], 3),
        "failure_errscope_vs_builtin": round(us["errscope/fail"] / us["builtin/fail"], 3),
        "fastmcp_success_errscope_vs_native": round(us["fastmcp_errscope/ok"] / us["fastmcp_native/ok"], 3),
        "fastmcp_failure_errscope_vs_native": round(us["fastmcp_errscope/fail"] / us["fastmcp_native/fail"], 3),
    }


if __name__ == "__main__":
    print(run())
