"""Server-side overhead: in-memory round trip of a trivial tool, errscope vs the SDK's own telemetry.

Configurations, all served in-process through the real SDK client (``mcp.Client(server)``) with the
same SDK tracer and meter providers installed globally (spans go to a processor that drops them,
metrics to an in-memory reader; the SDK's default exemplar filter, trace-based):

- ``bare``: the ``mcp`` SDK with its ``OpenTelemetryMiddleware`` removed (no telemetry);
- ``builtin``: the SDK's default ``OpenTelemetryMiddleware``: one SERVER span, **no metric**;
- ``errscope``: ``errscope.instrument(server)``: one SERVER span and one
  ``mcp.server.operation.duration`` point (with an exemplar linking it to the trace);
- ``errscope_no_exemplars`` / ``errscope_no_metric``: the same with a meter provider whose
  exemplar filter is always-off, and with a no-op meter provider: diagnostics that split the
  success path's excess, not configurations anyone should run;
- ``fastmcp_native`` / ``fastmcp_errscope``: FastMCP 4 with its native telemetry vs errscope.

Success path: the tool returns a short text. Failure path: it raises with a 1 KB message. Calls
alternate between the configurations one by one, in a new random order each round; each figure is
the median microseconds per call, wall clock (the goal) and this thread's CPU time.

Issue #12's goal, at most 1.10x on the success path, is not shown met. The latest cuts (no
``AttributeError`` per request from reading the cancel flag through the log-scrubbing session
wrapper, an int request id turned into text inline, the outcome label a constant, no empty
comprehension after a plain success, the fast validator looked up inline) took 8.7 k instructions
off a round trip (callgrind, 150 calls): errscope 1.414 M -> 1.405 M, with a no-op meter
1.293 M -> 1.284 M, against the built-in's 1.292 M and the bare SDK's 1.039 M (ratio 1.094 ->
1.088). Seven runs alternating with the code before them at load average 4.8-11.5: wall
1.112-1.179 and one 1.92 after (median 1.129) against 1.136-1.335 (median 1.162), CPU 1.074-1.122
(median 1.114) against 1.071-1.156 (median 1.133), lower in 6 of the 7 pairs both ways; the two
runs at load 4.8-5.8: 1.124 and 1.115 wall after, 1.147 and 1.162 before; two more at load 1.6-2.0:
1.090 and 1.125 after, 1.099 and 1.121 before (the goal met in one run on each side). With a no-op meter
1.011-1.039 CPU after; the duration point 67-111 µs of CPU in the round trip. What is left is the OpenTelemetry SDK's: errscope with a no-op meter
executes fewer instructions than the built-in. Earlier: measured warm with callgrind, the duration point alone (``Histogram.record``
with the 6 success labels and a sampled span's context) is 120 k instructions, 86 k with 2 labels
(about 8.5 k per label: cleaned, copied, sorted through a ``lambda`` and hashed, every call) and 16 k
less without an exemplar; errscope's middleware without the point costs no more than the built-in's
span. Fewer labels would change the metric (all are semantic-convention attributes or read by the
dashboards, ``errscope.outcome`` in 12 queries), and a label dict built once per tool saves only
errscope's own comprehension: the SDK copies and hashes whatever mapping it gets. One run at load
average 6 (unchanged code): wall 1.146, CPU 1.107, failure path 0.983; one at load average 3.5:
wall 1.117, CPU 1.125, without the metric 1.02, failure path 0.889. The cuts before: a plain success
builds no outcome dict (nothing compared or merged at the end), the span's start attributes are not
copied to add ``errscope.outcome``, and the duration point's exemplar reads the context the call ran
in instead of a new one. Against the code before them, 5 runs of each alternating one after the
other at load average 3.4-4.8: wall 1.086-1.157, median 1.122 (before: 1.108-1.169, median 1.150;
lower in each of the 5 pairs); CPU 1.087-1.137, median 1.121 (before: 1.113-1.159, median 1.148);
``errscope_no_metric`` 0.99-1.04, median 1.028 (before: median 1.043); failure path 0.76-0.81 both
(median 0.785 against 0.787). The goal was met in 2 of the 5 runs, not in the median. Six more
pairs run at the same time as each other at load average 3.5-12 were swamped by the load (wall
1.09-1.33 on both sides, CPU median 1.10 on both). Counted with callgrind, which machine load does
not change: the middleware alone around a trivial handler, 392 k instructions per request (402 k
before), 230 k with a no-op meter (241 k before; the built-in's 235 k; the SDK span with errscope's
seven attributes and its rename alone, 194 k); the round trip (150 calls): errscope 1.39 M per
call (1.405 M before), the built-in 1.28-1.29 M, errscope with a no-op meter 1.27-1.28 M. So
errscope's span, seam and bookkeeping cost no more instructions than the built-in's span (which
parses ``_meta`` for a trace context on every request and runs three nested context managers);
what is left over the built-in is the duration point, ~120 k instructions (~9 % of the built-in's
round trip, more in time: below), spent inside the OpenTelemetry SDK.

Where the success path's excess over ``builtin`` went before them (issue #12 asks for at most 1.10x;
9 runs at load average 2.4-5.3 on the shared 2-core machine: 1.10-1.16 wall, median 1.136; 1.12-1.16
CPU). In CPU µs per call, median of each run, with the built-in at 780-1040 µs: the duration point
costs 70-115 µs, median 81 (``errscope`` minus ``errscope_no_metric``; the exemplar's share is
within the noise), and span, seam and bookkeeping 25-56 µs, median 38, over the built-in's span
(``errscope_no_metric`` is 1.03-1.07x ``builtin``). A stream of successes only, with no failure path
between calls, measured the same (1.12-1.13 in 3 runs). The point is one ``Histogram.record`` call,
which in the OpenTelemetry SDK (1.45) builds a ``Measurement`` (cleaning each of the 6 labels:
``mcp.method.name``, ``gen_ai.operation.name``, ``gen_ai.tool.name``, ``mcp.protocol.version``,
``network.transport``, ``errscope.outcome``), runs the exemplar filter, copies and hashes the labels
into a sorted key (``_ViewInstrumentMatch.consume_measurement``), aggregates under a lock and offers
the exemplar to the bucket reservoir, also under a lock: about 50 Python calls, 16-19 µs in a warm
tight loop, several times that in the round trip, where the metrics SDK's code is cold in the CPU
caches between calls. The SDK copies and hashes the labels on every call whatever mapping is passed
(a reused ``MappingProxyType`` measured slower than a fresh dict). The built-in records no metric,
so this cost has no counterpart; errscope's span path itself already avoids per-call work on success
(no attribute write after the start, no error ref drawn, no root cause built).
"""

from __future__ import annotations

import logging
import os
import random
import statistics
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from opentelemetry import metrics, trace
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
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


def _mcpserver(kind: str, meter_provider: MeterProvider | NoOpMeterProvider | None = None) -> Any:
    server = MCPServer("bench")
    server.add_tool(ok)
    server.add_tool(fail)
    if kind == "bare":
        server.middleware[:] = [m for m in server.middleware if type(m).__name__ != "OpenTelemetryMiddleware"]
    elif kind == "errscope":
        errscope.instrument(server, capture_httpx=False, meter_provider=meter_provider)
    return server


def _fastmcp(kind: str) -> Any:
    import fastmcp

    app = fastmcp.FastMCP("bench")
    app.tool(ok)
    app.tool(fail)
    if kind == "fastmcp_errscope":
        errscope.instrument(app, capture_httpx=False)
    return app


async def _measure(
    targets: dict[str, tuple[Any, Callable[[], None]]], calls: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per-call wall and CPU latencies in µs, interleaved call by call so load drifts hit every
    configuration alike, in a new random order every round: a configuration that always follows
    the same one finds that one's code in the CPU caches. In a fixed order, errscope without
    exemplars, run right after errscope, measured 10-12 % cheaper than it; in random order the two
    are within the noise. CPU is this thread's (client and server share it in memory): it leaves
    out the time other processes hold the core, not the cache misses they cause."""
    keys = [f"{k}/{t}" for k in targets for t in ("ok", "fail")]
    wall: dict[str, list[float]] = {key: [] for key in keys}
    cpu: dict[str, list[float]] = {key: [] for key in keys}
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(Client(target)) for name, (target, _) in targets.items()}
        order = list(targets)
        shuffle = random.Random(0).shuffle  # seeded: every run draws the same orders
        for round_ in range(calls + 20):  # 20 warm-up rounds: caches, validators, first-call imports
            shuffle(order)
            for name in order:
                _, before = targets[name]
                before()
                for tool in ("ok", "fail"):
                    started, started_cpu = time.perf_counter(), time.thread_time()
                    await clients[name].call_tool(tool, {})
                    if round_ >= 20:
                        cpu[f"{name}/{tool}"].append((time.thread_time() - started_cpu) * 1e6)
                        wall[f"{name}/{tool}"].append((time.perf_counter() - started) * 1e6)
    return wall, cpu


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

    without_exemplars = MeterProvider(metric_readers=[InMemoryMetricReader()], exemplar_filter=AlwaysOffExemplarFilter())
    targets = {
        "bare": (_mcpserver("bare"), process_state("native", with_errscope=False)),
        "builtin": (_mcpserver("builtin"), process_state("native", with_errscope=False)),
        "errscope": (_mcpserver("errscope"), process_state("native", with_errscope=True)),
        "errscope_no_exemplars": (_mcpserver("errscope", without_exemplars), process_state("native", with_errscope=True)),
        "errscope_no_metric": (_mcpserver("errscope", NoOpMeterProvider()), process_state("native", with_errscope=True)),
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
        wall, cpu = anyio.run(_measure, targets, CALLS)
    us = {key: statistics.median(values) for key, values in wall.items()}
    cpu_us = {key: statistics.median(values) for key, values in cpu.items()}
    return {
        "load_average_1min": round(os.getloadavg()[0], 2),
        "us_per_call": {key: round(value, 1) for key, value in us.items()},
        "cpu_us_per_call": {key: round(value, 1) for key, value in cpu_us.items()},
        "success_errscope_vs_builtin": round(us["errscope/ok"] / us["builtin/ok"], 3),
        "success_errscope_vs_builtin_cpu": round(cpu_us["errscope/ok"] / cpu_us["builtin/ok"], 3),
        # Where the success path's excess goes (the built-in records no metric): the same errscope
        # without exemplars (AlwaysOffExemplarFilter), and with a no-op meter provider.
        "success_errscope_without_exemplars_vs_builtin": round(us["errscope_no_exemplars/ok"] / us["builtin/ok"], 3),
        "success_errscope_without_metric_vs_builtin": round(us["errscope_no_metric/ok"] / us["builtin/ok"], 3),
        "success_errscope_vs_bare": round(us["errscope/ok"] / us["bare/ok"], 3),
        "failure_errscope_vs_builtin": round(us["errscope/fail"] / us["builtin/fail"], 3),
        "fastmcp_success_errscope_vs_native": round(us["fastmcp_errscope/ok"] / us["fastmcp_native/ok"], 3),
        "fastmcp_failure_errscope_vs_native": round(us["fastmcp_errscope/fail"] / us["fastmcp_native/fail"], 3),
    }


if __name__ == "__main__":
    print(run())
