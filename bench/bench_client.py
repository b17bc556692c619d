"""Client-side overhead per tool call: errscope's ToolClient against a bare ``mcp.Client``.

Both talk to the same kind of server (a plain ``MCPServer`` over stdio, tool ``echo``), in the same
run, with the same OpenTelemetry SDK provider installed (spans recorded to memory), alternating call
by call so drift hits both sides alike. The number that matters is the ratio of median latencies.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from errscope.client import ToolClient

SERVER = Path(__file__).resolve().parent.parent / "tests" / "client" / "servers" / "plain_server.py"
BATCHES = 10
PER_BATCH = 50


async def _measure() -> dict[str, Any]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        trace.set_tracer_provider(provider)
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    bare_times: list[float] = []
    errscope_times: list[float] = []
    async with Client(params) as bare, ToolClient(
        params, timeout=30, tracer_provider=provider, meter_provider=meter_provider
    ) as tc:
        for _ in range(20):  # warm up both paths
            await bare.call_tool("echo", {"text": "warm"})
            await tc.call_tool("echo", {"text": "warm"})
        for _ in range(BATCHES):
            for _ in range(PER_BATCH):  # alternate call by call, so load drift hits both sides alike
                start = time.perf_counter()
                await bare.call_tool("echo", {"text": "x"})
                bare_times.append(time.perf_counter() - start)
                start = time.perf_counter()
                result = await tc.call_tool("echo", {"text": "x"})
                errscope_times.append(time.perf_counter() - start)
                assert result.ok
            exporter.clear()
    bare_median = statistics.median(bare_times)
    errscope_median = statistics.median(errscope_times)
    return {
        "calls_per_side": len(bare_times),
        "bare_median_ms": round(bare_median * 1000, 3),
        "errscope_median_ms": round(errscope_median * 1000, 3),
        "overhead_ms": round((errscope_median - bare_median) * 1000, 3),
        "ratio": round(errscope_median / bare_median, 3),
    }


def run() -> dict[str, Any]:
    """Run the benchmark and return its numbers (the bench registry prints them)."""
    return anyio.run(_measure)


if __name__ == "__main__":
    print(run())
