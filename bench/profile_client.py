"""Where a ``ToolClient`` call's client-side cost goes: Python calls per logical call, and errscope's own parts.

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.profile_client calls     # Python calls per logical call, errscope and the bare client
    python -m bench.profile_client lines     # Python lines executed per logical call, by function, both sides
    python -m bench.profile_client parts     # errscope's own CPU per call, part by part
    python -m bench.profile_client cprofile  # cProfile of errscope's own path, top functions by own time

Set-up as :mod:`bench.bench_client`: tool ``echo`` of the plain stdio server, spans to memory through a
``SimpleSpanProcessor``, a ``MeterProvider`` with an in-memory reader.

``calls`` counts every Python function entered (``sys.setprofile``) during 200 warm calls of each side, and
prints the calls per logical call and the functions whose count differs between the sides.

``parts`` and ``cprofile`` replace the SDK's ``call_tool`` on the live session by a stub that yields once and
returns a fixed ``CallToolResult``: what is left is errscope's own work around the call (span, duration
point, deadline, key, bookkeeping) without the wire, the server, or the stdio reads whose timing a shared
machine moves. ``parts`` switches one part off at a time (patching errscope's internals), block by block
in one process in alternating order, and prints the median ``time.thread_time`` per call of each variant:
the differences are the parts' costs. A measuring tool, not a test: the patches name private functions.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import INVALID_SPAN_CONTEXT, NonRecordingSpan

import errscope.client._call as call_module
import errscope.client._client as client_module
from bench.bench_client import SERVER
from errscope.client import ToolClient
from errscope.client._deadline import CallDeadline, TimeoutPolicy
from errscope.client._telemetry import ClientTelemetry

_ARGS = {"text": "x"}
_RESULT = CallToolResult(content=[TextContent(type="text", text="x")])


class _NoScope(CallDeadline):
    """No timer at all (neither asyncio's nor anyio's)."""

    def __init__(self, policy: TimeoutPolicy) -> None:
        self.policy, self.ceiling_at, self.progress_events, self._done, self._caught = policy, float("inf"), 0, False, False
        self.timer = None
        self.scope = contextlib.nullcontext()  # type: ignore[assignment]

    @property
    def fired(self) -> None:
        return None


class _NoTimer(_NoScope):
    """The asyncio timer entered and left, with no deadline: no timer handle, no clock read."""

    def __init__(self, policy: TimeoutPolicy) -> None:
        super().__init__(policy)
        self.timer = asyncio.timeout_at(None)


_PARTS: dict[str, list[tuple[Any, str, Any]]] = {
    "all": [],
    "no span": [(ClientTelemetry, "start_span", lambda self, name, **kw: NonRecordingSpan(INVALID_SPAN_CONTEXT))],
    "no duration point": [(ClientTelemetry, "record_duration", lambda self, seconds, attributes: None)],
    "no timer handle": [(call_module, "CallDeadline", _NoTimer)],
    "no timer": [(call_module, "CallDeadline", _NoScope)],
    "no idempotency key": [(client_module, "new_idempotency_key", lambda: None)],
}
_PARTS["bookkeeping only"] = [p for name in ("no span", "no duration point", "no timer", "no idempotency key")
                              for p in _PARTS[name]]


@contextlib.contextmanager
def _switched_off(patches: list[tuple[Any, str, Any]]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


async def _main(mode: str) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    async with Client(params) as bare, ToolClient(
        params, timeout=30, tracer_provider=provider, meter_provider=meter_provider
    ) as tools:
        sides: dict[str, Callable[[], Awaitable[Any]]] = {
            "bare": lambda: bare.call_tool("echo", _ARGS),
            "errscope": lambda: tools.call_tool("echo", _ARGS),
        }
        for _ in range(30):
            for side in sides.values():
                await side()
        exporter.clear()
        if mode in ("calls", "lines"):
            count = _count_calls if mode == "calls" else _count_lines
            counts = {side: await count(call, 200) for side, call in sides.items()}
            for side, counter in counts.items():
                print(f"{side}: {sum(counter.values()) / 200:.1f} Python {mode} a call")
            keys = set(counts["bare"]) | set(counts["errscope"])
            diff = sorted(((counts["errscope"][k] - counts["bare"][k]) / 200, k) for k in keys)
            for delta, name in sorted(diff, key=lambda d: -abs(d[0])):
                if abs(delta) >= 1:
                    print(f"{delta:+6.1f}  {name}")
            return

        async def stub(*args: Any, **kwargs: Any) -> CallToolResult:
            await anyio.lowlevel.checkpoint()
            return _RESULT

        conn = tools.connection.current
        assert conn is not None and conn.client is not None
        conn.client.call_tool = stub  # type: ignore[method-assign]
        errscope_call = sides["errscope"]
        if mode == "cprofile":
            profile = cProfile.Profile(time.thread_time)
            profile.enable()
            for _ in range(2000):
                await errscope_call()
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(40)
            return
        per_call: dict[str, list[float]] = {name: [] for name in _PARTS}
        names = list(_PARTS)
        for block in range(int(os.environ.get("ERRSCOPE_BENCH_BLOCKS", "24"))):
            for name in names if block % 2 == 0 else names[::-1]:
                with _switched_off(_PARTS[name]):
                    exporter.clear()
                    start = time.thread_time()
                    for _ in range(200):
                        await errscope_call()
                    per_call[name].append((time.thread_time() - start) / 200)
        everything = statistics.median(per_call["all"])
        for name, times in per_call.items():
            median = statistics.median(times)
            print(f"{name:20s} {median * 1e6:6.1f} µs a call ({(median - everything) * 1e6:+6.1f})")
        print(f"load average {os.getloadavg()[0]:.2f}")


async def _count_calls(call: Callable[[], Awaitable[Any]], n: int) -> collections.Counter[str]:
    counter: collections.Counter[str] = collections.Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            counter[f"{code.co_filename.rsplit('site-packages/', 1)[-1]}:{code.co_name}"] += 1

    sys.setprofile(profile)
    try:
        for _ in range(n):
            await call()
    finally:
        sys.setprofile(None)
    return counter


async def _count_lines(call: Callable[[], Awaitable[Any]], n: int) -> collections.Counter[str]:
    """Python lines executed per function (``sys.settrace`` line events) during ``n`` calls."""
    counter: collections.Counter[str] = collections.Counter()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            code = frame.f_code
            counter[f"{code.co_filename.rsplit('site-packages/', 1)[-1]}:{code.co_name}"] += 1
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        return local

    sys.settrace(tracer)
    try:
        for _ in range(n):
            await call()
    finally:
        sys.settrace(None)
    return counter


if __name__ == "__main__":
    anyio.run(_main, sys.argv[1] if len(sys.argv) > 1 else "parts")
